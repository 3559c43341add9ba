//! What a CI pipeline and a team adopting lemplint on a legacy repository run, end to end:
//! repository-relative paths and content fingerprints in the code-scanning formats,
//! `--baseline`, `--add-noqa`, `--statistics`, `--output-file` and `--color`.

use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};

fn lemplint(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_lemplint"))
        .args(args)
        .current_dir(dir)
        .env_remove("NO_COLOR")
        .env_remove("LEMPLINT_TIMINGS")
        .output()
        .expect("run lemplint")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn write(dir: &Path, rel: &str, body: &str) {
    let p = dir.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, body).unwrap();
}

const NGINX: &str = "events {}
http {
    server_tokens on;
    server {
        listen 80;
        root /srv/www;
        autoindex on;
    }
}
";

/// A git repository holding a server's configuration under `srv/etc/`, with two findings
/// (NGX022 on line 3, NGX104 on line 7) and a php.ini with two more (FPM103).
fn repo() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    let git = Command::new("git")
        .args(["init", "-q", "."])
        .current_dir(d.path())
        .status();
    if !git.is_ok_and(|s| s.success()) {
        std::fs::create_dir(d.path().join(".git")).unwrap();
    }
    write(d.path(), "srv/etc/nginx/nginx.conf", NGINX);
    write(
        d.path(),
        "srv/etc/php/8.2/fpm/php.ini",
        "[PHP]\nallow_url_include = On\nexpose_php = On\n",
    );
    d
}

fn json(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}\nstderr: {}", text(&out.stdout), text(&out.stderr)))
}

/// (uri, fingerprint) of each SARIF result.
fn sarif_results(log: &Value) -> Vec<(String, String)> {
    log["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let loc = &r["locations"][0]["physicalLocation"]["artifactLocation"];
            assert_eq!(loc["uriBaseId"], "%SRCROOT%", "{loc}");
            (
                loc["uri"].as_str().unwrap().to_string(),
                r["partialFingerprints"]["lemplint/v1"]
                    .as_str()
                    .unwrap()
                    .to_string(),
            )
        })
        .collect()
}

#[test]
fn sarif_and_gitlab_paths_are_relative_to_the_repository_root() {
    let d = repo();
    let root = std::fs::canonicalize(d.path()).unwrap();
    let sub = root.join("srv");
    let abs_etc = root.join("srv/etc");
    let runs = [
        lemplint(&root, &["lint", "--format", "sarif", "srv"]),
        // From a subdirectory, relative and absolute.
        lemplint(&sub, &["lint", "--format", "sarif", "."]),
        lemplint(
            &sub,
            &["lint", "--format", "sarif", abs_etc.to_str().unwrap()],
        ),
    ];
    let mut all = Vec::new();
    for out in &runs {
        assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
        let log = json(out);
        assert_eq!(
            log["runs"][0]["originalUriBaseIds"]["%SRCROOT%"]["uri"],
            format!("file://{}/", root.display())
        );
        let results = sarif_results(&log);
        let uris: Vec<&str> = results.iter().map(|(u, _)| u.as_str()).collect();
        assert_eq!(
            uris,
            [
                "srv/etc/nginx/nginx.conf",
                "srv/etc/nginx/nginx.conf",
                "srv/etc/php/8.2/fpm/php.ini",
                "srv/etc/php/8.2/fpm/php.ini"
            ]
        );
        let rules = log["runs"][0]["tool"]["driver"]["rules"]
            .as_array()
            .unwrap();
        for rule in rules {
            let id = rule["id"].as_str().unwrap();
            assert_eq!(
                rule["helpUri"],
                format!("https://github.com/lemplint/lemplint/blob/main/docs/rules/{id}.md")
            );
            assert!(
                Path::new(env!("CARGO_MANIFEST_DIR"))
                    .join(format!("docs/rules/{id}.md"))
                    .is_file(),
                "the page helpUri names exists"
            );
            // All four rules here are security rules.
            assert!(rule["properties"]["security-severity"].is_string(), "{id}");
        }
        all.push(results);
    }
    assert!(all.windows(2).all(|w| w[0] == w[1]), "{all:?}");

    let out = lemplint(
        &sub,
        &["lint", "--format", "gitlab", abs_etc.to_str().unwrap()],
    );
    let issues = json(&out);
    let paths: Vec<&str> = issues
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["location"]["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths[0], "srv/etc/nginx/nginx.conf");
    let fingerprints: Vec<&str> = issues
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["fingerprint"].as_str().unwrap())
        .collect();
    let sarif: Vec<&str> = all[0].iter().map(|(_, f)| f.as_str()).collect();
    assert_eq!(fingerprints, sarif, "GitLab and SARIF share fingerprints");
}

/// The GitLab and SARIF fingerprints of a run in `dir`.
fn fingerprints(dir: &Path) -> (Vec<String>, Vec<String>) {
    let gitlab = json(&lemplint(dir, &["lint", "--format", "gitlab", "."]));
    let sarif = json(&lemplint(dir, &["lint", "--format", "sarif", "."]));
    (
        gitlab
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["fingerprint"].as_str().unwrap().to_string())
            .collect(),
        sarif_results(&sarif).into_iter().map(|(_, f)| f).collect(),
    )
}

#[test]
fn fingerprints_do_not_move_with_lines_added_above() {
    let d = repo();
    let before = fingerprints(d.path());
    assert_eq!(before.0.len(), 4);
    // Comment lines and a blank line above both nginx findings, a pool comment above the
    // php.ini ones: every line number changes, no fingerprint does.
    write(
        d.path(),
        "srv/etc/nginx/nginx.conf",
        &format!("# managed by ansible\n# do not edit\n\n{NGINX}"),
    );
    write(
        d.path(),
        "srv/etc/php/8.2/fpm/php.ini",
        "; production settings\n[PHP]\n\nallow_url_include = On\nexpose_php = On\n",
    );
    let out = lemplint(d.path(), &["lint", "--format", "json", "."]);
    let lines: Vec<u64> = json(&out)["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["line"].as_u64().unwrap())
        .collect();
    assert_eq!(lines, [6, 10, 4, 5], "the findings moved");
    assert_eq!(fingerprints(d.path()), before);
    // Changing the flagged line changes its fingerprint, and only its.
    write(
        d.path(),
        "srv/etc/nginx/nginx.conf",
        &NGINX.replace("server_tokens on;", "server_tokens on; # legacy"),
    );
    let after = fingerprints(d.path());
    assert_ne!(after.0[0], before.0[0]);
    assert_eq!(after.0[1..], before.0[1..]);
    assert_ne!(after.1[0], before.1[0]);
}

#[test]
fn baseline_reports_only_new_findings_and_counts_fixed_ones() {
    let d = repo();
    let dir = d.path();
    // No baseline yet: it is written with every finding, and the run passes.
    let out = lemplint(dir, &["lint", "--baseline", "lemplint-baseline.json", "."]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stderr)
        .contains("Wrote the baseline lemplint-baseline.json: 4 findings recorded"));
    let written = std::fs::read_to_string(dir.join("lemplint-baseline.json")).unwrap();
    let baseline: Value = serde_json::from_str(&written).unwrap();
    assert_eq!(baseline["version"], 1);
    let entries = baseline["findings"].as_array().unwrap();
    assert_eq!(entries.len(), 4);
    let codes: Vec<&str> = entries
        .iter()
        .map(|e| e["code"].as_str().unwrap())
        .collect();
    assert_eq!(codes, ["NGX022", "NGX104", "FPM103", "FPM103"]);
    for e in entries {
        assert_eq!(
            e.as_object().unwrap().keys().collect::<Vec<_>>(),
            ["file", "code", "fingerprint", "message"]
        );
    }
    let mut sorted = entries.clone();
    sorted.sort_by_key(|e| {
        (
            e["file"].as_str().unwrap().to_string(),
            e["code"].as_str().unwrap().to_string(),
            e["fingerprint"].as_str().unwrap().to_string(),
        )
    });
    assert_eq!(
        &sorted, entries,
        "entries are sorted by file, code, fingerprint"
    );

    // Unchanged tree: nothing new, exit 0, and the baseline is left as it was.
    let out = lemplint(
        dir,
        &[
            "lint",
            "--baseline",
            "lemplint-baseline.json",
            "--format",
            "concise",
            ".",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    assert!(
        text(&out.stderr).contains("4 known findings not shown"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("lemplint-baseline.json")).unwrap(),
        written
    );

    // One new finding (a second `server_tokens on;`, the same text and message as a
    // recorded one: told apart by its occurrence), lines shifted above the old ones: only
    // the new one is reported, exit 1.
    write(
        dir,
        "srv/etc/nginx/nginx.conf",
        &format!(
            "# moved\n{}",
            NGINX.replace(
                "    }\n}\n",
                "    }\n    server {\n        listen 81;\n        server_tokens on;\n    }\n}\n"
            )
        ),
    );
    let out = lemplint(
        dir,
        &[
            "lint",
            "--baseline",
            "lemplint-baseline.json",
            "--format",
            "concise",
            ".",
        ],
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let reported: Vec<&str> = stdout.lines().filter(|l| l.starts_with("srv/")).collect();
    assert_eq!(
        reported,
        ["srv/etc/nginx/nginx.conf:12:23: warning[NGX022] `server_tokens on` discloses the nginx version"],
        "{stdout}"
    );
    assert!(
        text(&out.stderr).contains("4 known findings not shown."),
        "{}",
        text(&out.stderr)
    );

    // A recorded finding fixed: said so, and the run passes once the new one is gone.
    write(
        dir,
        "srv/etc/nginx/nginx.conf",
        &NGINX.replace("server_tokens on;", "server_tokens off;"),
    );
    let out = lemplint(dir, &["lint", "--baseline", "lemplint-baseline.json", "."]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("3 known findings not shown; 1 fixed"),
        "{stderr}"
    );

    // --update-baseline drops the fixed entry.
    let out = lemplint(
        dir,
        &[
            "lint",
            "--baseline",
            "lemplint-baseline.json",
            "--update-baseline",
            ".",
        ],
    );
    assert_eq!(out.status.code(), Some(0));
    assert!(
        text(&out.stderr).contains("3 findings recorded (1 fixed since, 0 new)"),
        "{}",
        text(&out.stderr)
    );
    let updated: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("lemplint-baseline.json")).unwrap())
            .unwrap();
    assert_eq!(updated["findings"].as_array().unwrap().len(), 3);

    // A baseline that is not one is an error, never an empty baseline.
    std::fs::write(dir.join("bad.json"), "{\"findings\": 3}").unwrap();
    let out = lemplint(dir, &["lint", "--baseline", "bad.json", "."]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn add_noqa_suppresses_every_finding_once_and_is_idempotent() {
    let d = repo();
    let dir = d.path();
    let out = lemplint(dir, &["lint", "--add-noqa", "."]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("Added 4 suppression comments to 2 files"),
        "{}",
        text(&out.stderr)
    );
    let nginx = std::fs::read_to_string(dir.join("srv/etc/nginx/nginx.conf")).unwrap();
    assert_eq!(
        nginx,
        NGINX
            .replace(
                "    server_tokens on;",
                "    # lemplint: ignore NGX022 -- TODO: reason\n    server_tokens on;"
            )
            .replace(
                "        autoindex on;",
                "        # lemplint: ignore NGX104 -- TODO: reason\n        autoindex on;"
            )
    );
    // php.ini comments start with `;`.
    let ini = std::fs::read_to_string(dir.join("srv/etc/php/8.2/fpm/php.ini")).unwrap();
    assert_eq!(
        ini,
        "[PHP]\n; lemplint: ignore FPM103 -- TODO: reason\nallow_url_include = On\n; lemplint: ignore FPM103 -- TODO: reason\nexpose_php = On\n"
    );
    // Everything is suppressed (the placeholder is a reason: no LINT002), and a second run
    // changes nothing.
    let out = lemplint(dir, &["lint", "--format", "concise", "."]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    let out = lemplint(dir, &["lint", "--add-noqa", "."]);
    assert_eq!(out.status.code(), Some(0));
    assert!(text(&out.stderr).contains("No suppression comments to add."));
    assert_eq!(
        std::fs::read_to_string(dir.join("srv/etc/nginx/nginx.conf")).unwrap(),
        nginx
    );
    // Two findings on one line share one comment; CRLF files get CRLF.
    write(
        dir,
        "srv/etc/nginx/nginx.conf",
        "events {}\r\nhttp {\r\n    server_tokens on; server_tokens on;\r\n}\r\n",
    );
    let out = lemplint(dir, &["lint", "--add-noqa", "srv/etc/nginx/nginx.conf"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let nginx = std::fs::read_to_string(dir.join("srv/etc/nginx/nginx.conf")).unwrap();
    assert!(
        nginx.contains("http {\r\n    # lemplint: ignore NGX022,NGX023 -- TODO: reason\r\n    server_tokens on; server_tokens on;\r\n"),
        "{nginx:?}"
    );
}

#[test]
fn statistics_count_findings_per_rule() {
    let d = repo();
    let out = lemplint(d.path(), &["lint", "--statistics", "."]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "the gate still follows the findings"
    );
    assert_eq!(
        text(&out.stdout),
        "2  FPM103  insecure-php-setting\n1  NGX022  server-tokens-on [1 fixable]\n1  NGX104  autoindex-on\nFound 4 problems.\n"
    );
    let out = lemplint(d.path(), &["lint", "--statistics", "--format", "json", "."]);
    let v = json(&out);
    assert_eq!(v[0]["code"], "FPM103");
    assert_eq!(v[0]["count"], 2);
    assert_eq!(v.as_array().unwrap().len(), 3);
}

#[test]
fn output_file_is_written_whole_instead_of_stdout() {
    let d = repo();
    let out = lemplint(
        d.path(),
        &[
            "lint",
            "--format",
            "sarif",
            "--output-file",
            "results.sarif",
            ".",
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty(), "{}", text(&out.stdout));
    let log: Value =
        serde_json::from_slice(&std::fs::read(d.path().join("results.sarif")).unwrap()).unwrap();
    assert_eq!(log["runs"][0]["results"].as_array().unwrap().len(), 4);
    // No temporary file is left beside it.
    let names: Vec<String> = std::fs::read_dir(d.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("lemplint-"))
        .collect();
    assert!(names.is_empty(), "{names:?}");
    // A directory that does not exist: exit 2 and a message, not a report on stdout.
    let out = lemplint(
        d.path(),
        &["lint", "--output-file", "no/such/dir/x.txt", "."],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("no/such/dir/x.txt"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn color_always_never_and_no_color() {
    let d = repo();
    let esc = |o: &Output| o.stdout.contains(&0x1b);
    let always = lemplint(d.path(), &["lint", "--color", "always", "."]);
    assert!(esc(&always), "--color always colours a pipe");
    let never = lemplint(d.path(), &["lint", "--color", "never", "."]);
    assert!(!esc(&never));
    // auto: stdout is a pipe here, so no colour, NO_COLOR or not.
    let auto = lemplint(d.path(), &["lint", "."]);
    assert!(!esc(&auto));
    assert_eq!(auto.stdout, never.stdout);
    let bad = lemplint(d.path(), &["lint", "--color", "sometimes", "."]);
    assert_eq!(bad.status.code(), Some(2));
}

#[test]
fn rule_did_you_mean() {
    let d = tempfile::tempdir().unwrap();
    for (typed, meant) in [
        ("server-token", "server-tokens-on (NGX022)"),
        ("ngx22", "server-tokens-on (NGX022)"),
        ("autoindx-on", "autoindex-on (NGX104)"),
    ] {
        let out = lemplint(d.path(), &["rule", typed]);
        assert_eq!(out.status.code(), Some(2));
        let err = text(&out.stderr);
        assert!(
            err.contains(&format!("did you mean {meant}?")),
            "{typed}: {err}"
        );
    }
    let out = lemplint(d.path(), &["rule", "no-such-thing-at-all"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(!text(&out.stderr).contains("did you mean"));
}

/// A tool the test needs: its absence skips the check with a note, except under CI=true.
fn have(tool: &str) -> bool {
    let found = Command::new("sh")
        .args(["-c", &format!("command -v {tool}")])
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "{tool} is required when CI=true"
        );
        eprintln!("note: {tool} is not installed: that check is skipped");
    }
    found
}

#[test]
fn man_page_renders() {
    let d = tempfile::tempdir().unwrap();
    for (args, title, must) in [
        (&["man"][..], "lemplint(1)", "lemplint-lint(1)"),
        (&["man", "lint"][..], "lemplint-lint(1)", "--baseline"),
    ] {
        let out = lemplint(d.path(), args);
        assert_eq!(out.status.code(), Some(0));
        let roff = text(&out.stdout);
        assert!(roff.starts_with(".ie"), "{roff}");
        if !have("groff") {
            continue;
        }
        let path = d.path().join("page.1");
        std::fs::write(&path, &out.stdout).unwrap();
        let rendered = Command::new("groff")
            .args(["-man", "-Tascii", "-ww", "-P-c", "-P-b", "-P-u"])
            .arg(&path)
            .output()
            .unwrap();
        assert!(rendered.status.success());
        assert_eq!(text(&rendered.stderr), "", "groff warns about the page");
        let page = text(&rendered.stdout);
        assert!(page.starts_with(title), "{page}");
        for section in ["NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", must] {
            assert!(page.contains(section), "{section} missing:\n{page}");
        }
    }
    let out = lemplint(d.path(), &["man", "lnt"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("did you mean `lint`?"));
}

#[test]
fn shell_completions() {
    let d = tempfile::tempdir().unwrap();
    for shell in ["bash", "zsh", "fish"] {
        let out = lemplint(d.path(), &["completions", shell]);
        assert_eq!(out.status.code(), Some(0), "{shell}");
        let script = text(&out.stdout);
        for word in ["lint", "baseline", "add-noqa", "completions"] {
            assert!(script.contains(word), "{shell}: {word}");
        }
    }
    if !have("bash") {
        return;
    }
    // bash itself completes `lemplint li` to `lint` and `lemplint lint --base` to
    // `--baseline` with the script loaded.
    let script = d.path().join("lemplint.bash");
    std::fs::write(&script, lemplint(d.path(), &["completions", "bash"]).stdout).unwrap();
    let complete = |words: &str| -> String {
        let cmd = format!(
            "source {}; COMP_WORDS=({words}); COMP_CWORD=$((${{#COMP_WORDS[@]}} - 1)); \
             COMP_LINE=\"{words}\"; COMP_POINT=${{#COMP_LINE}}; \
             _lemplint lemplint \"${{COMP_WORDS[COMP_CWORD]}}\" \"${{COMP_WORDS[COMP_CWORD-1]}}\"; \
             printf '%s\\n' \"${{COMPREPLY[@]}}\"",
            script.display()
        );
        let out = Command::new("bash").args(["-c", &cmd]).output().unwrap();
        assert!(out.status.success(), "{}", text(&out.stderr));
        text(&out.stdout)
    };
    assert_eq!(complete("lemplint li").trim(), "lint");
    assert!(complete("lemplint lint --base").contains("--baseline"));
}
