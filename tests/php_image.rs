//! A pool file a Dockerfile copies into a docker-library php-fpm image
//! (`/usr/local/etc/php-fpm.d/`) is read inside the image's own configuration: its
//! `php-fpm.conf` includes `php-fpm.d/*.conf` in name order. Since January 2026 the image's
//! `listen = 9000` is in `docker.conf`: a repository's `www.conf` (or `zz-www.conf`) is read
//! after it and keeps its own `listen`, while a `[www]` pool in a file read before it
//! (`app.conf`) loses its `listen` to it. The image's files are not in the tree: listed,
//! never reported in.

mod common;

use common::run_lemplint;
use serde_json::Value;
use std::path::Path;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// `(file, line, code, severity, message)` of each finding.
fn lint(dir: &str) -> Vec<(String, u64, String, String, String)> {
    let out = run_lemplint(
        root(),
        &[
            "lint", dir, "--format", "json", "--cpus", "2", "--memory", "2GiB",
        ],
        None,
    );
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    doc["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            let s = |k: &str| d[k].as_str().unwrap_or_default().to_string();
            (
                s("file"),
                d["line"].as_u64().unwrap(),
                s("code"),
                s("severity"),
                s("message"),
            )
        })
        .collect()
}

fn stack(dir: &str) -> String {
    let out = run_lemplint(root(), &["stack", dir], None);
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn a_www_conf_listen_is_read_after_the_images_docker_conf() {
    let dir = "fixtures/templates/php-image";
    let text = stack(dir);
    for want in [
        "/usr/local/etc/php-fpm.conf",
        "master (not in the tree: php:8.3-fpm-alpine's own php-fpm.conf",
        "/usr/local/etc/php-fpm.d/docker.conf",
        "/usr/local/etc/php-fpm.d/zz-docker.conf",
        "copied by the Dockerfile to /usr/local/etc/php-fpm.d/www.conf",
        "[www] listen 127.0.0.1:9000",
    ] {
        assert!(text.contains(want), "{want}: {text}");
    }
    // The repository's www.conf takes the image's www.conf's place.
    assert!(
        !text.contains("\n    /usr/local/etc/php-fpm.d/www.conf"),
        "{text}"
    );
    let found = lint(dir);
    assert!(found.iter().all(|f| f.2 != "FPM100"), "{found:?}");
    assert!(
        found.iter().all(|f| !f.0.starts_with("/usr/local")),
        "{found:?}"
    );
}

/// A `[www]` pool in a file read before the image's `docker.conf` loses its `listen` to it.
#[test]
fn a_www_pool_read_before_docker_conf_loses_its_listen() {
    let found = lint("fixtures/templates/php-image-early");
    let fpm100: Vec<_> = found.iter().filter(|f| f.2 == "FPM100").collect();
    assert_eq!(fpm100.len(), 1, "{found:?}");
    let (file, line, _, severity, message) = fpm100[0];
    assert!(file.ends_with("config/app.conf") && *line == 5, "{found:?}");
    assert_eq!(severity, "warning");
    assert!(message.contains("never takes effect"), "{message}");
    assert!(message.contains("docker.conf"), "{message}");
}

#[test]
fn a_unix_socket_in_www_conf_is_kept() {
    let dir = "fixtures/templates/php-image-socket";
    assert!(stack(dir).contains("listen unix:/run/php/php-fpm.sock"));
    let found = lint(dir);
    assert!(found.iter().all(|f| f.2 != "FPM100"), "{found:?}");
}

#[test]
fn a_pool_file_read_after_zz_docker_conf_keeps_its_listen() {
    let dir = "fixtures/templates/php-image-zz";
    assert!(stack(dir).contains("[www] listen 127.0.0.1:9000"));
    let found = lint(dir);
    assert!(found.iter().all(|f| f.2 != "FPM100"), "{found:?}");
}

/// A pool that leaves `listen` to the image takes the image's design as it is: nothing is
/// reported in the image's own files.
#[test]
fn the_images_own_listen_is_not_reported() {
    let found = lint("fixtures/clean/symfony-compose");
    assert!(found.iter().all(|f| f.2 != "FPM100"), "{found:?}");
}

/// The image's master reads only what the Dockerfile copies: a pool file of another
/// container or host is still one php-fpm may run, not "not loaded".
#[test]
fn other_pool_files_are_not_unloaded_by_the_images_master() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("repo");
    std::fs::create_dir_all(dir.join("config")).unwrap();
    std::fs::create_dir_all(dir.join("other")).unwrap();
    let fixture = root().join("fixtures/templates/php-image");
    for f in ["Dockerfile", "config/www.conf"] {
        std::fs::copy(fixture.join(f), dir.join(f)).unwrap();
    }
    std::fs::write(
        dir.join("other/app.conf"),
        "[app]\nlisten = /run/php/app.sock\npm = static\npm.max_children = 4\n",
    )
    .unwrap();
    let text = stack(dir.to_str().unwrap());
    assert!(
        text.contains("pool file: no master here includes it"),
        "{text}"
    );
    assert!(!text.contains("not loaded"), "{text}");
}

/// A compose file that mounts the pool file over the image's `www.conf` is the same case as
/// a Dockerfile's `COPY`.
#[test]
fn a_compose_volume_over_www_conf_keeps_its_listen() {
    let dir = "fixtures/templates/php-image-compose";
    let text = stack(dir);
    assert!(
        text.contains(
            "mounted by the compose file to /usr/local/etc/php-fpm.d/www.conf of php:8.2-fpm"
        ) && text.contains("[www] listen 127.0.0.1:9000"),
        "{text}"
    );
    let found = lint(dir);
    assert!(found.iter().all(|f| f.2 != "FPM100"), "{found:?}");
}

/// A directory mounted over `php-fpm.d/` hides the image's own files: no zz-docker.conf,
/// the repository's listen is php-fpm's.
#[test]
fn a_directory_mounted_over_php_fpm_d_hides_the_images_files() {
    let dir = "fixtures/templates/php-image-compose-dir";
    let text = stack(dir);
    assert!(!text.contains("zz-docker.conf"), "{text}");
    assert!(text.contains("[www] listen 127.0.0.1:9000"), "{text}");
    let found = lint(dir);
    assert!(found.iter().all(|f| f.2 != "FPM100"), "{found:?}");
}

/// A pool file named `php-fpm.conf` in the repository and copied in as the image's
/// `www.conf` is a pool of the image's master (not a master of its own, whose pool was
/// judged alone), read after the image's `docker.conf`: its loopback `listen` holds.
#[test]
fn a_file_named_like_a_master_copied_into_php_fpm_d_is_a_pool() {
    let dir = "fixtures/templates/php-image-named-master";
    let text = stack(dir);
    assert!(
        text.contains("copied by the Dockerfile to /usr/local/etc/php-fpm.d/www.conf")
            && text.contains("[www] listen 127.0.0.1:9000"),
        "{text}"
    );
    let found = lint(dir);
    assert!(found.iter().all(|f| f.2 != "FPM100"), "{found:?}");
}

/// A pool file copied over the image's own `php-fpm.conf` is the master: php-fpm reads only
/// it (it includes nothing), so the image's `php-fpm.d/` files are not read, and the pool
/// runs on PHP's compiled-in defaults (FPM112, preview) as the image has no php.ini.
#[test]
fn a_file_copied_over_the_images_master_is_the_master() {
    let dir = "fixtures/templates/php-image-over-master";
    let text = stack(dir);
    assert!(
        text.contains(
            "master (copied by the Dockerfile over php:8.2-fpm-alpine's own php-fpm.conf"
        ) && text.contains("[www] listen 127.0.0.1:9000")
            && text.contains("pm.max_children 9")
            && !text.contains("php-fpm.d/docker.conf"),
        "{text}"
    );
    let out = run_lemplint(
        root(),
        &["lint", dir, "--select", "FPM112", "--format", "concise"],
        None,
    );
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(
        report
            .contains("docker/www.conf:1:1: warning[FPM112] pool `www` runs in php:8.2-fpm-alpine"),
        "{report}"
    );
}

/// `COPY etc/php-fpm.conf /usr/local/etc/`: Docker keeps the source's name when the
/// destination is a directory, so the file replaces the image's master as well.
#[test]
fn a_php_fpm_conf_copied_into_the_masters_directory_is_the_master() {
    let text = stack("fixtures/templates/php-image-into-master-dir");
    assert!(
        text.contains("master (copied by the Dockerfile over php:8.3-fpm's own php-fpm.conf")
            && text.contains("[www] listen 127.0.0.1:9000"),
        "{text}"
    );
}

/// The image's `listen = 9000` is the two-container design; a compose `ports:` entry that
/// publishes 9000 on every address of the host opens FastCGI to the world: an error, at the
/// pool's header in the repository's file, naming the compose file and the entry. Bound to
/// the host's loopback it is not.
#[test]
fn a_published_fastcgi_port_is_an_error_and_a_loopback_one_is_not() {
    let found = lint("fixtures/templates/php-image-published");
    let f = found
        .iter()
        .find(|f| f.2 == "FPM100")
        .unwrap_or_else(|| panic!("{found:?}"));
    assert_eq!((f.1, f.3.as_str()), (2, "error"), "{f:?}");
    assert!(f.0.ends_with("docker/php/www.conf"), "{f:?}");
    assert!(
        f.4.contains("docker-compose.yml publishes it on the host (`ports: - \"9000:9000\"`)"),
        "{f:?}"
    );
    let found = lint("fixtures/templates/php-image-published-loopback");
    assert!(found.iter().all(|f| f.2 != "FPM100"), "{found:?}");
}

/// A pool on a bare port that nginx reaches by another container's name (`app:9000`) runs
/// in a container, where that listen is the design: FPM100 is information about the
/// container's network (what it exposes depends on publishing, which the tree does not
/// show), with no address to hard-code.
#[test]
fn a_pool_in_another_container_gets_information_about_its_network() {
    fpm100_by_design(
        "fixtures/templates/container-pool",
        "nginx reaches it as app:9000",
    );
    // The same pool on a host (nginx on 127.0.0.1) stays an error.
    let dir = tempfile::tempdir().unwrap();
    let conf = dir.path().join("php-fpm.conf");
    let text =
        std::fs::read_to_string(root().join("fixtures/templates/container-pool/php/php-fpm.conf"))
            .unwrap();
    std::fs::write(&conf, text).unwrap();
    let out = run_lemplint(
        root(),
        &[
            "lint",
            conf.to_str().unwrap(),
            "--format",
            "concise",
            "--isolated",
        ],
        None,
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("error[FPM100]"), "{text}");
}

/// The same pool in a container (its logs go to the container's output), where nginx's
/// `fastcgi_pass` names an address set when the containers start (an upstream of
/// placeholders its entrypoint fills in): whether nginx reaches it by a container name is
/// unknown, and the listen is information, saying what it depends on.
#[test]
fn a_container_pool_behind_a_runtime_address_gets_information() {
    fpm100_by_design(
        "fixtures/templates/container-pool-runtime-address",
        "nginx passes FastCGI to `fastcgi_backend`, an address set when the containers run",
    );
}

/// `dir`'s FPM100 is information that says the listen is the design, and `how` nginx
/// reaches the pool.
fn fpm100_by_design(dir: &str, how: &str) {
    let found = lint(dir);
    let f = found
        .iter()
        .find(|f| f.2 == "FPM100")
        .unwrap_or_else(|| panic!("{found:?}"));
    assert_eq!(f.3, "info", "{f:?}");
    assert!(
        f.4.contains(how) && f.4.contains("the listen is the design"),
        "{f:?}"
    );
}

/// FPM100's help says where a `listen` takes effect over the image's `docker.conf` only
/// where the image's pool files are read; a repository master without that include sets
/// `listen` where it is.
#[test]
fn the_www_conf_advice_only_where_the_images_pool_files_are_read() {
    let help = |dir: &str| {
        let out = run_lemplint(
            root(),
            &["lint", dir, "--select", "FPM100", "--format", "json"],
            None,
        );
        let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
        doc["diagnostics"][0]["help"]
            .as_str()
            .unwrap_or_else(|| panic!("{doc}"))
            .to_string()
    };
    assert!(help("fixtures/templates/php-image-early").contains("such as www.conf"));
    // The image's master replaced by one that includes nothing, listening everywhere.
    let dir = tempfile::tempdir().unwrap();
    common::copy_tree(
        &root().join("fixtures/templates/php-image-into-master-dir"),
        dir.path(),
    );
    let conf = dir.path().join("etc/php-fpm.conf");
    let text = std::fs::read_to_string(&conf).unwrap();
    std::fs::write(&conf, text.replace("127.0.0.1:9000", "[::]:9000")).unwrap();
    let own = help(dir.path().to_str().unwrap());
    assert!(
        own.contains("unix socket") && !own.contains("www.conf"),
        "{own}"
    );
}
