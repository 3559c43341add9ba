//! Directives of modules an nginx lacks, checked against the real nginx: with the optional
//! modules `nginx -V` prints as `[host] nginx-modules`, lemplint reports `unknown directive`
//! (NGX024) exactly where `nginx -t` stops, and accepts what `load_module` brings in.
//!
//! Needs Debian's nginx and its echo module (libnginx-mod-http-echo, which `nginx -V` does
//! not list: it is a separate package, present only when loaded). Skips with a notice when
//! they are missing, and fails when `CI=true`.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

fn missing(what: &str) {
    if std::env::var("CI").as_deref() == Ok("true") {
        panic!("{what} is required on CI (CI=true) for tests/modules_binary.rs");
    }
    eprintln!("note: {what} not found; skipping (set CI=true to make this an error)");
}

/// `nginx -V`'s configure arguments.
fn configure_arguments(bin: &Path) -> String {
    let out = Command::new(bin).arg("-V").output().expect("nginx -V runs");
    let text = String::from_utf8_lossy(&out.stderr).into_owned();
    text.lines()
        .find_map(|l| l.strip_prefix("configure arguments: "))
        .expect("nginx -V prints its configure arguments")
        .to_string()
}

/// `nginx -t`'s first error and its line in nginx.conf, or `None` when it accepts the file.
fn nginx_t(bin: &Path, prefix: &Path) -> Option<(String, u32)> {
    let out = common::nginx_test(bin, prefix);
    if out.status.success() {
        return None;
    }
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let at = stderr.find("[emerg] ").expect("an [emerg] line");
    let msg = stderr[at + 8..].lines().next().unwrap_or("");
    let msg = msg.split_once(": ").map_or(msg, |(_, m)| m);
    let (text, line) = msg.rsplit_once(".conf:").expect("a file:line");
    let text = text
        .rsplit_once(" in ")
        .map_or(text, |(t, _)| t)
        .to_string();
    Some((text, line.trim().parse().expect("a line number")))
}

/// lemplint's NGX024 findings in nginx.conf: (message, line).
fn ngx024(prefix: &Path) -> Vec<(String, u32)> {
    let out = Command::new(env!("CARGO_BIN_EXE_lemplint"))
        .current_dir(prefix)
        .args([
            "lint",
            "--select",
            "NGX024",
            "--format",
            "json",
            "nginx.conf",
        ])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON output");
    v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["message"].as_str().unwrap().to_string(),
                d["line"].as_u64().unwrap() as u32,
            )
        })
        .collect()
}

fn case(dir: &Path, conf: &str, modules: &str) -> PathBuf {
    std::fs::create_dir_all(dir.join("logs")).unwrap();
    std::fs::write(dir.join("nginx.conf"), conf).unwrap();
    std::fs::write(
        dir.join("lemplint.toml"),
        format!("[host]\nnginx-modules = [{modules:?}]\n"),
    )
    .unwrap();
    dir.to_path_buf()
}

#[test]
fn a_module_nginx_lacks_is_unknown_where_nginx_says_and_load_module_brings_it_in() {
    let Some(bin) = common::nginx_binary() else {
        return missing("nginx");
    };
    let Some(echo) = common::nginx_module(&bin, "ngx_http_echo_module.so") else {
        return missing("the nginx echo module (scripts/nginx-modules.sh)");
    };
    let modules = configure_arguments(&bin);
    let tmp = tempfile::tempdir().unwrap();
    let body = "events {}\nhttp {\n    server {\n        listen 127.0.0.1:18931;\n        \
                location / {\n            echo \"hello\";\n        }\n    }\n}\n";

    // Not loaded: both stop at `echo`, line 6.
    let lacks = case(&tmp.path().join("lacks"), body, &modules);
    let nginx = nginx_t(&bin, &lacks);
    assert_eq!(
        nginx,
        Some(("unknown directive \"echo\"".to_string(), 6)),
        "nginx -t"
    );
    assert_eq!(
        ngx024(&lacks),
        vec![nginx.unwrap()],
        "lemplint agrees with nginx -t"
    );

    // Loaded: both accept it.
    let loads = case(
        &tmp.path().join("loads"),
        &format!("load_module {};\n{body}", echo.display()),
        &modules,
    );
    assert_eq!(
        nginx_t(&bin, &loads),
        None,
        "nginx -t accepts the loaded module"
    );
    assert_eq!(ngx024(&loads), vec![], "lemplint accepts the loaded module");

    // Without `[host] nginx-modules` lemplint assumes the module is there.
    std::fs::remove_file(lacks.join("lemplint.toml")).unwrap();
    assert_eq!(ngx024(&lacks), vec![], "no module list, no verdict");
}
