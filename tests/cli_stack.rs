//! `lemplint stack` on fixture trees laid out as real servers: exactly the right files, pools,
//! sysctl values and host facts.

use std::process::Command;

fn stack(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_lemplint"))
        .arg("stack")
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn debian_layout_with_sites_enabled_symlink_and_pool_d() {
    insta::assert_snapshot!(stack(&[
        "fixtures/stacks/debian-php",
        "--cpus",
        "2",
        "--memory",
        "2GiB"
    ]));
}

/// Names that say PHP-FPM under etc/nginx: the include graph decides, then the content; a
/// pool file no master includes is listed as not loaded (and not among the pools).
#[test]
fn file_roles_come_from_evidence() {
    insta::assert_snapshot!(stack(&["fixtures/stacks/ambiguous-names"]));
}

#[test]
fn source_build_with_two_php_masters_and_sysctl_precedence() {
    let text = stack(&["fixtures/stacks/source-build"]);
    // /etc/sysctl.conf is applied after /etc/sysctl.d/*.conf, so its somaxconn wins.
    assert!(
        text.contains("net.core.somaxconn = 1024  (sysctl.conf:1)"),
        "{text}"
    );
    insta::assert_snapshot!(text);
}

#[test]
fn repository_with_two_hosts_is_two_stacks_with_their_own_host_facts() {
    let text = stack(&["fixtures/stacks/two-hosts"]);
    assert_eq!(
        text.matches("\nStack ").count() + usize::from(text.starts_with("Stack ")),
        2
    );
    insta::assert_snapshot!(text);
}

#[test]
fn json_lists_pools_with_listen_addresses() {
    let v: serde_json::Value = serde_json::from_str(&stack(&[
        "fixtures/stacks/source-build",
        "--format",
        "json",
    ]))
    .unwrap();
    let pools = v["stacks"][0]["pools"].as_array().unwrap();
    let listens: Vec<&str> = pools
        .iter()
        .map(|p| p["listen"].as_str().unwrap())
        .collect();
    assert_eq!(listens, ["127.0.0.1:9000", "unix:/tmp/php74-fpm.sock"]);
    assert_eq!(
        v["stacks"][0]["sysctl"]["net.core.somaxconn"]["value"],
        "1024"
    );
}

#[test]
fn a_single_file_loads_its_whole_stack() {
    let text = stack(&["fixtures/stacks/debian-php/etc/nginx/sites-enabled/example.org"]);
    assert!(text.contains("etc/php/8.2/fpm/pool.d/www.conf"), "{text}");
    assert!(
        text.contains("sites-enabled/example.org  glob from nginx.conf:30"),
        "{text}"
    );
}

/// An application repository: only the nginx files are read. Other programs' files
/// (supervisor's `php-fpm.conf`, syslog-ng's) and a test directory excluded in lemplint.toml
/// are left alone; a hidden `.ddev/nginx/` is read; a `.j2` template is read as the file it
/// renders, its placeholders as holes; `conf.d/grafana.conf` is a vhost.
#[test]
fn an_application_repository_reads_only_its_server_files() {
    let text = stack(&["fixtures/discovery/app-repo"]);
    for absent in ["supervisor", "syslog-ng", "broken.conf"] {
        assert!(!text.contains(absent), "{absent}: {text}");
    }
    insta::assert_snapshot!(text);
}
