//! A pool file a Dockerfile copies into a docker-library php-fpm image
//! (`/usr/local/etc/php-fpm.d/`) is read inside the image's own configuration: its
//! `php-fpm.conf` includes `php-fpm.d/*.conf` in name order, so the image's `zz-docker.conf`
//! (`[www] listen = 9000`) replaces the `listen` of a `www.conf`, and a `zz-www.conf` comes
//! after it. The image's files are not in the tree: listed, never reported in.

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
fn a_www_conf_listen_is_replaced_by_the_images_zz_docker_conf() {
    let dir = "fixtures/templates/php-image";
    let text = stack(dir);
    for want in [
        "/usr/local/etc/php-fpm.conf",
        "master (not in the tree: php:8.3-fpm-alpine's own php-fpm.conf",
        "/usr/local/etc/php-fpm.d/docker.conf",
        "/usr/local/etc/php-fpm.d/zz-docker.conf",
        "copied by the Dockerfile to /usr/local/etc/php-fpm.d/www.conf",
        "[www] listen *:9000",
    ] {
        assert!(text.contains(want), "{want}: {text}");
    }
    // The repository's www.conf takes the image's www.conf's place.
    assert!(
        !text.contains("\n    /usr/local/etc/php-fpm.d/www.conf"),
        "{text}"
    );
    let found = lint(dir);
    let fpm100: Vec<_> = found.iter().filter(|f| f.2 == "FPM100").collect();
    assert_eq!(fpm100.len(), 1, "{found:?}");
    let (file, line, _, severity, message) = fpm100[0];
    assert!(file.ends_with("config/www.conf") && *line == 5, "{found:?}");
    assert_eq!(severity, "warning");
    assert!(message.contains("never takes effect"), "{message}");
    assert!(message.contains("zz-docker.conf"), "{message}");
    assert!(
        found.iter().all(|f| !f.0.starts_with("/usr/local")),
        "{found:?}"
    );
}

#[test]
fn a_unix_socket_in_www_conf_is_replaced_too() {
    let found = lint("fixtures/templates/php-image-socket");
    assert!(
        found.iter().any(|f| f.2 == "FPM100"
            && f.3 == "warning"
            && f.4
                .contains("listen = /run/php/php-fpm.sock never takes effect")),
        "{found:?}"
    );
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
fn a_compose_volume_over_www_conf_is_replaced_too() {
    let dir = "fixtures/templates/php-image-compose";
    assert!(stack(dir).contains(
        "mounted by the compose file to /usr/local/etc/php-fpm.d/www.conf of php:8.2-fpm"
    ));
    let found = lint(dir);
    assert!(
        found.iter().any(|f| f.2 == "FPM100"
            && f.0.ends_with("docker/php/www.conf")
            && f.4.contains("listen = 127.0.0.1:9000 never takes effect")),
        "{found:?}"
    );
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
/// judged alone): its loopback `listen` is replaced by `zz-docker.conf` all the same.
#[test]
fn a_file_named_like_a_master_copied_into_php_fpm_d_is_a_pool() {
    let dir = "fixtures/templates/php-image-named-master";
    let text = stack(dir);
    assert!(
        text.contains("copied by the Dockerfile to /usr/local/etc/php-fpm.d/www.conf"),
        "{text}"
    );
    let found = lint(dir);
    assert!(
        found.iter().any(|f| f.0.ends_with("config/php-fpm.conf")
            && f.1 == 5
            && f.2 == "FPM100"
            && f.3 == "warning"
            && f.4.contains("never takes effect")),
        "{found:?}"
    );
}
