//! `lemplint parse` end to end: include resolution, root mapping, dumps, stdin, exit codes,
//! and the rendered errors users read.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

fn lemplint(args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_lemplint"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run lemplint");
    if let Some(input) = stdin {
        child.stdin.take().unwrap().write_all(input).unwrap();
    }
    drop(child.stdin.take());
    child.wait_with_output().unwrap()
}

/// (path, how it was reached) for every file in a `parse --format json` output.
fn files(out: &Output) -> Vec<(String, String)> {
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json on stdout");
    v["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let r = &f["reached"];
            let how = match r["by"].as_str().unwrap() {
                "entry" => "entry".to_string(),
                by => format!("{by} from {}:{}", r["from"], r["line"]),
            };
            (f["path"].as_str().unwrap().to_string(), how)
        })
        .collect()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn globs_are_sorted_and_skip_hidden_files() {
    let out = lemplint(&["parse", "fixtures/includes/globs/nginx.conf"], None);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        files(&out),
        [
            ("fixtures/includes/globs/nginx.conf", "entry"),
            ("fixtures/includes/globs/conf.d/a.conf", "glob from 0:3"),
            ("fixtures/includes/globs/conf.d/b.conf", "glob from 0:3"),
        ]
        .map(|(a, b)| (a.to_string(), b.to_string()))
    );
}

#[test]
fn relative_includes_resolve_against_the_main_file_directory() {
    let out = lemplint(&["parse", "fixtures/includes/prefix/nginx.conf"], None);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let paths: Vec<String> = files(&out).into_iter().map(|f| f.0).collect();
    assert_eq!(paths[2], "fixtures/includes/prefix/conf/a.conf");
}

#[test]
fn prefix_flag_changes_where_relative_includes_resolve() {
    let out = lemplint(
        &[
            "parse",
            "fixtures/includes/prefix/sub/inner.conf",
            "--prefix",
            "fixtures/includes/prefix",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(files(&out)[1].0, "fixtures/includes/prefix/conf/a.conf");
}

#[test]
fn absolute_includes_are_read_inside_a_mirrored_server_tree() {
    let out = lemplint(
        &[
            "parse",
            "fixtures/includes/hostrepo/hosts/web1/etc/nginx/nginx.conf",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        files(&out)[1].0,
        "fixtures/includes/hostrepo/hosts/web1/etc/nginx/conf.d/site.conf"
    );
    // An explicit --root wins over detection.
    let out = lemplint(
        &[
            "parse",
            "fixtures/includes/hostrepo/hosts/web1/etc/nginx/nginx.conf",
            "--root",
            "/nonexistent",
        ],
        None,
    );
    assert_eq!(
        files(&out).len(),
        1,
        "glob under a missing root matches nothing"
    );
}

#[test]
fn single_file_does_not_follow_includes() {
    let out = lemplint(
        &[
            "parse",
            "--single-file",
            "fixtures/includes/globs/nginx.conf",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(files(&out).len(), 1);
}

#[test]
fn missing_include_is_an_error_but_an_empty_glob_is_not() {
    let out = lemplint(&["parse", "fixtures/includes/missing/nginx.conf"], None);
    assert_eq!(out.status.code(), Some(2));
    insta::assert_snapshot!(stderr(&out));
}

#[test]
fn include_cycles_are_reported_and_not_followed() {
    let out = lemplint(&["parse", "fixtures/includes/cycle/nginx.conf"], None);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(files(&out).len(), 3);
    insta::assert_snapshot!(stderr(&out));
}

#[test]
fn stdin_is_read_with_dash() {
    let out = lemplint(
        &["parse", "-"],
        Some(b"events {}\nhttp { server { listen 80 } }\n"),
    );
    assert_eq!(out.status.code(), Some(2));
    insta::assert_snapshot!(stderr(&out));
}

#[test]
fn nginx_dump_is_read_as_a_tree_of_files() {
    let dump = b"# configuration file /etc/nginx/nginx.conf:\nevents {}\nhttp {\n    include /etc/nginx/conf.d/*.conf;\n}\n\n# configuration file /etc/nginx/conf.d/a.conf:\nserver { listen 80; }\n\n";
    let out = lemplint(&["parse", "-"], Some(dump));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        files(&out),
        [
            ("/etc/nginx/nginx.conf", "entry"),
            ("/etc/nginx/conf.d/a.conf", "glob from 0:3")
        ]
        .map(|(a, b)| (a.to_string(), b.to_string()))
    );
}

/// The lines of a `map` are entries, not directives (`"type": "entry"`), and an `include`
/// among them is followed (the map module calls nginx's include). crossplane, which knows no
/// word lists, shows them as directives and lists the include's file all the same.
#[test]
fn word_list_lines_are_entries_whose_includes_are_followed() {
    let dump = b"# configuration file /etc/nginx/nginx.conf:\nevents {}\nhttp {\n    map $uri $v {\n        server_tokens on;\n        include /etc/nginx/redirects.map;\n    }\n    server_tokens off;\n}\n\n# configuration file /etc/nginx/redirects.map:\n/old /new;\n\n";
    let out = lemplint(&["parse", "-"], Some(dump));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        files(&out),
        [
            ("/etc/nginx/nginx.conf", "entry"),
            ("/etc/nginx/redirects.map", "include from 0:5")
        ]
        .map(|(a, b)| (a.to_string(), b.to_string()))
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let http = &v["files"][0]["nodes"][1]["block"]["children"];
    let kinds = |nodes: &serde_json::Value| -> Vec<(String, String)> {
        let nodes = nodes.as_array().unwrap();
        let pair = |n: &serde_json::Value| {
            let name = n["name"].as_str().unwrap_or("").to_string();
            (n["type"].as_str().unwrap().to_string(), name)
        };
        nodes.iter().map(pair).collect()
    };
    let pairs = |list: &[(&str, &str)]| -> Vec<(String, String)> {
        list.iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    };
    assert_eq!(
        kinds(http),
        pairs(&[("directive", "map"), ("directive", "server_tokens")])
    );
    let map = &http[0]["block"];
    assert_eq!(map["kind"], "words");
    assert_eq!(
        kinds(&map["children"]),
        pairs(&[("entry", "server_tokens"), ("entry", "include")])
    );
    assert_eq!(map["children"][1]["includes"], serde_json::json!([1]));

    let out = lemplint(&["parse", "-", "--format", "crossplane"], Some(dump));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let map = &v["config"][0]["parsed"][1]["block"][0]["block"];
    assert_eq!(map[0]["directive"], "server_tokens");
    assert_eq!(map[1]["directive"], "include");
    assert_eq!(map[1]["includes"], serde_json::json!([1]));
}

#[test]
fn a_real_nginx_dump_round_trips_every_file() {
    // `nginx -T` output of the example stack, when nginx is installed.
    let Some(nginx) = ["/usr/sbin/nginx", "/usr/local/sbin/nginx"]
        .into_iter()
        .find(|p| Path::new(p).exists())
    else {
        assert_ne!(
            std::env::var("CI").as_deref(),
            Ok("true"),
            "nginx is required in CI (scripts/test installs it)"
        );
        eprintln!("nginx not installed; skipping");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let conf = dir.path().join("nginx.conf");
    std::fs::write(
        dir.path().join("inc.conf"),
        "# no final newline\nserver { listen 127.0.0.1:18089; }",
    )
    .unwrap();
    std::fs::write(
        &conf,
        format!(
            "pid {0}/nginx.pid;\nerror_log stderr;\nevents {{}}\r\nhttp {{\n    client_body_temp_path {0}/tmp;\n    include inc.conf;\n}}\n",
            dir.path().display()
        ),
    )
    .unwrap();
    let dump = Command::new(nginx)
        .args(["-T", "-q", "-p"])
        .arg(dir.path())
        .arg("-c")
        .arg(&conf)
        .output()
        .unwrap();
    assert!(
        dump.status.success(),
        "{}",
        String::from_utf8_lossy(&dump.stderr)
    );
    let out = lemplint(&["parse", "-"], Some(&dump.stdout));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["files"].as_array().unwrap().len(), 2);
    // The spans of the last node of each file end where the file on disk ends.
    for (f, disk) in v["files"]
        .as_array()
        .unwrap()
        .iter()
        .zip([&conf, &dir.path().join("inc.conf")])
    {
        let len = std::fs::read(disk).unwrap().len() as u64;
        let last = f["nodes"].as_array().unwrap().last().unwrap();
        let end = last["span"][1].as_u64().unwrap();
        assert!(
            end <= len && len - end <= 1,
            "{}: span end {end}, file length {len}",
            disk.display()
        );
    }
}

#[test]
fn unreadable_input_exits_2() {
    let out = lemplint(&["parse", "fixtures/does-not-exist.conf"], None);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("cannot read fixtures/does-not-exist.conf"),
        "{}",
        stderr(&out)
    );
}
