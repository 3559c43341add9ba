//! Configurations as repositories hold them (`fixtures/templates/`): placeholders an
//! installer's `sed`, envsubst, Jinja2 or ERB fill in are holes. No finding lies on a
//! placeholder's line or in a conditional's body, the real problems beside them are still
//! found, `tune` leaves placeholders to the installer, and files nothing loads are marked.

mod common;

use common::run_lemplint;
use serde_json::Value;
use std::path::Path;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The findings of `lemplint lint DIR --format json` (with host facts), as (file, line,
/// code, loaded), and the exit code.
fn lint(dir: &str, extra: &[&str]) -> (Vec<(String, u64, String, bool)>, i32) {
    let mut args = vec![
        "lint", dir, "--format", "json", "--cpus", "2", "--memory", "2GiB",
    ];
    args.extend(extra);
    let out = run_lemplint(root(), &args, None);
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    let found = doc["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["file"].as_str().unwrap().to_string(),
                d["line"].as_u64().unwrap(),
                d["code"].as_str().unwrap().to_string(),
                d["loaded"].as_bool().unwrap(),
            )
        })
        .collect();
    (found, out.status.code().unwrap_or(-1))
}

/// The text of `line` (1-based) of `file`, relative to the crate.
fn line_of(file: &str, line: u64) -> String {
    let text = std::fs::read_to_string(root().join(file)).unwrap();
    text.lines()
        .nth(line as usize - 1)
        .unwrap_or("")
        .to_string()
}

const PLACEHOLDERS: [&str; 8] = ["@", "SED", "<", "{{", "%", "${", "$clear", "<%"];

fn assert_none_on_placeholders(found: &[(String, u64, String, bool)]) {
    for (file, line, code, _) in found {
        let text = line_of(file, *line);
        // What the server reads of the line: not its comment.
        let code_part = text.split(" #").next().unwrap_or("");
        assert!(
            !PLACEHOLDERS
                .iter()
                .any(|p| code_part.contains(p) && !text.trim_start().starts_with('#')),
            "{code} at {file}:{line} is on a placeholder: {text}"
        );
    }
}

#[test]
fn an_installers_sed_placeholders_are_not_values() {
    let (found, code) = lint("fixtures/templates/installer", &[]);
    assert_none_on_placeholders(&found);
    let codes: Vec<&str> = found.iter().map(|f| f.2.as_str()).collect();
    // Before: FPM001 ×5 ("not a valid number", "invalid boolean"), FPM003 on `%…%`.
    assert!(
        !codes.contains(&"FPM001") && !codes.contains(&"FPM003"),
        "{found:?}"
    );
    // The PHP location without try_files is still reported beside the placeholders.
    assert!(codes.contains(&"NGX008"), "{found:?}");
    assert_ne!(code, 2, "{found:?}");
}

#[test]
fn tune_leaves_placeholders_to_the_installer() {
    let tune = |extra: &[&str]| {
        let args = [
            &[
                "tune",
                "fixtures/templates/installer",
                "--cpus",
                "2",
                "--memory",
                "2GiB",
            ][..],
            extra,
        ]
        .concat();
        String::from_utf8_lossy(&run_lemplint(root(), &args, None).stdout).into_owned()
    };
    let diff = tune(&["--diff"]);
    for line in diff
        .lines()
        .filter(|l| l.starts_with('-') && !l.starts_with("---"))
    {
        assert!(
            !PLACEHOLDERS.iter().any(|p| line.contains(p)),
            "tune rewrote a placeholder: {line}\n{diff}"
        );
    }
    let plan = tune(&[]);
    assert!(
        plan.contains("worker_connections is `@NGINX_WORKER_CONNECTIONS`, a placeholder"),
        "tune says which settings it left: {plan}"
    );
}

#[test]
fn a_jinja_template_is_read_with_both_branches() {
    let (found, _) = lint("fixtures/templates/ansible-role", &[]);
    assert_none_on_placeholders(&found);
    let at: Vec<(u64, &str)> = found.iter().map(|f| (f.1, f.2.as_str())).collect();
    // `ssl_protocols TLSv1 …` inside `{% if nginx_ssl %}`: rendered only when the role's
    // variable says so, so not reported; the `autoindex on` outside any conditional is.
    let text = std::fs::read_to_string(
        root().join("fixtures/templates/ansible-role/templates/nginx.conf.j2"),
    )
    .unwrap();
    let ssl_line = text
        .lines()
        .position(|l| l.contains("ssl_protocols"))
        .unwrap() as u64
        + 1;
    assert!(at.iter().all(|(l, _)| *l != ssl_line), "{found:?}");
    // `autoindex on;  # {{ autoindex_note }}`: a placeholder in nginx's own comment hides
    // nothing on its line.
    assert!(at.iter().any(|(_, c)| *c == "NGX104"), "{found:?}");
}

#[test]
fn erb_and_envsubst_templates_are_read() {
    let (found, _) = lint("fixtures/templates/erb", &[]);
    assert_none_on_placeholders(&found);
    let codes: Vec<&str> = found.iter().map(|f| f.2.as_str()).collect();
    // `ssl on;` under `<% if @legacy %>` is the template's choice (NGX028 silent); the
    // alias without a trailing slash on its location is a real traversal.
    assert!(!codes.contains(&"NGX028"), "{found:?}");
    assert!(codes.contains(&"NGX100"), "{found:?}");
    let (found, code) = lint("fixtures/templates/envsubst", &[]);
    assert_none_on_placeholders(&found);
    assert_ne!(code, 2, "{found:?}");
}

#[test]
fn files_nothing_loads_are_marked_and_can_be_hidden() {
    let dir = "fixtures/templates/unloaded";
    let (found, _) = lint(dir, &[]);
    let old: Vec<_> = found
        .iter()
        .filter(|f| f.0.ends_with("sites-available/old-site"))
        .collect();
    assert!(!old.is_empty(), "{found:?}");
    assert!(old.iter().all(|f| !f.3), "{found:?}");
    assert!(
        found
            .iter()
            .filter(|f| !f.0.contains("old-site"))
            .all(|f| f.3),
        "{found:?}"
    );
    let (hidden, _) = lint(dir, &["--loaded-only"]);
    assert!(
        hidden.iter().all(|f| !f.0.contains("old-site")),
        "{hidden:?}"
    );
    let human = run_lemplint(
        root(),
        &[
            "lint", dir, "--format", "concise", "--cpus", "2", "--memory", "2GiB",
        ],
        None,
    );
    let text = String::from_utf8_lossy(&human.stdout);
    assert!(
        text.lines()
            .filter(|l| l.contains("old-site"))
            .all(|l| l.ends_with("[not loaded]")),
        "{text}"
    );
}

/// `include=/etc/php/SEDPHPVER/fpm/pool.d/*.conf`: the installer's version is a placeholder
/// inside the path, so the include reads the pools of any version in the tree, and the pool
/// is judged as loaded (before: "not loaded", every pool check skipped).
#[test]
fn a_placeholder_inside_an_include_path_matches_any_name() {
    let out = run_lemplint(root(), &["stack", "fixtures/templates/sed-include"], None);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("pool.d/www.conf  include from php-fpm.conf:4"),
        "{text}"
    );
    let (found, _) = lint("fixtures/templates/sed-include", &[]);
    assert!(found.iter().any(|f| f.2 == "FPM004"), "{found:?}");
    assert_none_on_placeholders(&found);
}

/// An nginx include whose path is a placeholder is not followed and reports nothing.
#[test]
fn an_include_of_a_placeholder_is_unknown_not_missing() {
    let out = run_lemplint(root(), &["stack", "fixtures/templates/ansible-role"], None);
    let text = String::from_utf8_lossy(&out.stdout);
    let (found, code) = lint("fixtures/templates/ansible-role", &[]);
    assert!(found.iter().all(|f| f.2 != "NGX020"), "{found:?}");
    assert_ne!(code, 2, "{text}");
}

/// An application image ships only `conf.d/` fragments; the official nginx image's own
/// nginx.conf includes them inside `http`, so the sibling's `client_max_body_size 64M` is
/// the server's (STK007 said "nginx's default, 1m" when each file was an island). The stock
/// file is not in the tree: listed as such, nothing reported in it.
#[test]
fn fragments_are_read_inside_the_platforms_main_file() {
    let dir = "fixtures/templates/app-image";
    let out = run_lemplint(root(), &["stack", dir], None);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("not in the tree: the official nginx image's own nginx.conf"),
        "{text}"
    );
    let (found, _) = lint(dir, &[]);
    assert!(found.iter().all(|f| f.2 != "STK007"), "{found:?}");
    assert!(
        found.iter().all(|f| !f.0.ends_with("nginx/nginx.conf")),
        "{found:?}"
    );
}

/// A directory whose name says nothing (`docker/nginx/site`) that the compose file mounts
/// as the nginx image's `/etc/nginx/conf.d` is read inside the image's main file too: the
/// sibling's http-level `client_max_body_size 64M` is the server's. Without it, the server
/// is on nginx's 1m and STK007 still fires.
#[test]
fn a_directory_mounted_as_conf_d_is_read_inside_the_platforms_main_file() {
    let dir = "fixtures/templates/compose-mount";
    let out = run_lemplint(root(), &["stack", dir], None);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("not in the tree: the official nginx image's own nginx.conf"),
        "{text}"
    );
    let (found, _) = lint(dir, &[]);
    assert!(found.iter().all(|f| f.2 != "STK007"), "{found:?}");
    let (found, _) = lint("fixtures/templates/compose-mount-unset", &[]);
    assert!(found.iter().any(|f| f.2 == "STK007"), "{found:?}");
}

/// The lines of `dir`'s NGX020 (missing include) findings, lint's exit code, and what
/// `lemplint stack` says of the tree.
fn missing_includes(dir: &str) -> (Vec<u64>, i32, String) {
    let (found, code) = lint(dir, &[]);
    let missing = found
        .iter()
        .filter(|f| f.2 == "NGX020")
        .map(|f| f.1)
        .collect();
    let out = run_lemplint(root(), &["stack", dir], None);
    (
        missing,
        code,
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

/// A file the Dockerfile downloads at build time is supplied at deployment, not missing;
/// one no script of the tree names is still a missing include (nginx would not start).
#[test]
fn an_include_a_deployment_script_supplies_is_not_missing() {
    let (missing, code, text) = missing_includes("fixtures/templates/supplied");
    assert_eq!(missing, [8]);
    assert_eq!(code, 2);
    assert!(text.contains("supplied at deployment ("), "{text}");
}

/// A file under a directory a Dockerfile builds (`composer create-project … /flarum/app`)
/// is the application's, supplied at deployment; a file missing in nginx's own directory
/// (which the Dockerfile copies) or under a directory no script names is still missing.
#[test]
fn an_include_under_a_directory_the_image_builds_is_not_missing() {
    let (missing, code, text) = missing_includes("fixtures/templates/app-built");
    assert_eq!(missing, [11, 12]);
    assert_eq!(code, 2);
    assert!(text.contains("Dockerfile builds `/flarum/app`)"), "{text}");
}

/// certbot's nginx plugin writes `/etc/letsencrypt/options-ssl-nginx.conf` beside the
/// keys, a directory no repository commits: an include of it is supplied, not missing; a
/// missing snippet of the site's own is still reported.
#[test]
fn certbots_own_files_are_supplied_at_deployment() {
    let dir = "fixtures/templates/certbot";
    let (found, code) = lint(dir, &[]);
    let missing: Vec<u64> = found
        .iter()
        .filter(|f| f.2 == "NGX020")
        .map(|f| f.1)
        .collect();
    assert_eq!(missing, [9], "{found:?}");
    assert_eq!(code, 2);
    let out = run_lemplint(root(), &["stack", dir], None);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("supplied at deployment (certbot writes it)"),
        "{text}"
    );
}

/// An Ansible role's template includes snippets its tasks (or other roles) install beside
/// it on the server: not missing. A task that renders the snippet names its template
/// (`listen-443.conf.j2`), and is said to supply it.
#[test]
fn an_ansible_roles_snippets_are_supplied_at_deployment() {
    let dir = "fixtures/templates/ansible-snippets";
    let (found, code) = lint(dir, &[]);
    assert!(found.iter().all(|f| f.2 != "NGX020"), "{found:?}");
    assert_eq!(code, 0);
    let out = run_lemplint(root(), &["stack", dir], None);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("tasks/main.yml names it"), "{text}");
    assert!(text.contains("an Ansible role's tasks install"), "{text}");
}

/// `fmt --check` leaves a template with tags of its own as the template lays it out, and
/// says so, rather than failing the run (it did: "the formatted text would not parse").
#[test]
fn fmt_leaves_templates_as_written() {
    for dir in ["fixtures/templates/ansible-role", "fixtures/templates/erb"] {
        let out = run_lemplint(root(), &["fmt", "--check", dir], None);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{dir}: {err}");
        assert!(
            err.contains("1 file left as written: templates"),
            "{dir}: {err}"
        );
    }
}

/// A file the main configuration (or a site template nothing loads) names in an include it
/// has commented out, or a copy kept in `old/`, was left out on purpose: its findings are info and marked not loaded. A file
/// nothing includes and nothing explains keeps its severity (still marked).
#[test]
fn switched_off_and_stale_files_are_told_at_info() {
    let out = run_lemplint(
        root(),
        &[
            "lint",
            "fixtures/templates/switched-off",
            "--format",
            "concise",
            "--cpus",
            "2",
            "--memory",
            "2GiB",
        ],
        None,
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let line = |name: &str| {
        text.lines()
            .find(|l| l.contains(name) && l.contains("[NGX104]"))
            .unwrap_or_else(|| panic!("no NGX104 in {name}: {text}"))
            .to_string()
    };
    for name in [
        "conf.d/site-multi.conf",
        "old/site.conf",
        "globals/sitemap.conf",
    ] {
        let l = line(name);
        assert!(
            l.contains("info[NGX104]") && l.ends_with("[not loaded]"),
            "{l}"
        );
    }
    // Nothing explains extra.conf; live.conf is named in a commented-out include but
    // another file (the site template) includes it for real.
    for name in ["conf.d/extra.conf", "globals/live.conf"] {
        let l = line(name);
        assert!(
            l.contains("warning[NGX104]") && l.ends_with("[not loaded]"),
            "{l}"
        );
    }
    assert!(!text.contains("conf.d/site.conf:"), "{text}");
}
