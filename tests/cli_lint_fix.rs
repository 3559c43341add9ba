//! `lemplint lint` and `lemplint fix` end to end, as a user runs them.

mod common;

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Output};

fn run(dir: &Path, args: &[&str], stdin: Option<&[u8]>) -> Output {
    common::run_lemplint(dir, args, stdin)
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn write(dir: &Path, rel: &str, body: &str) {
    let p = dir.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, body).unwrap();
}

const SITE: &str =
    "server {\n\tlisten 80;\n\t# keep this comment\n\tserver_tokens on;  # and this one\n}\n";

/// A small server tree: nginx.conf including a symlinked site, as Debian lays it out.
fn tree() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "etc/nginx/nginx.conf",
        "events {}\nhttp {\n    include /etc/nginx/sites-enabled/*;\n}\n",
    );
    write(d.path(), "etc/nginx/sites-available/site", SITE);
    std::fs::create_dir_all(d.path().join("etc/nginx/sites-enabled")).unwrap();
    std::os::unix::fs::symlink(
        "../sites-available/site",
        d.path().join("etc/nginx/sites-enabled/site"),
    )
    .unwrap();
    std::fs::set_permissions(
        d.path().join("etc/nginx/sites-available/site"),
        std::fs::Permissions::from_mode(0o640),
    )
    .unwrap();
    d
}

#[test]
fn exit_codes() {
    let d = tree();
    let out = run(d.path(), &["lint", "--format", "concise", "."], None);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
    assert!(
        text(&out.stdout).contains("etc/nginx/sites-enabled/site:4:16: warning[NGX022]"),
        "{}",
        text(&out.stdout)
    );
    let out = run(d.path(), &["lint", "--fail-on", "error", "."], None);
    assert_eq!(out.status.code(), Some(0));
    let out = run(d.path(), &["lint", "--select", "NGX999", "."], None);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("unknown rule selector NGX999"),
        "{}",
        text(&out.stderr)
    );
    write(
        d.path(),
        "etc/nginx/conf.d/broken.conf",
        "server { listen 80 }\n",
    );
    write(
        d.path(),
        "etc/nginx/nginx.conf",
        "events {}\nhttp {\n    include /etc/nginx/conf.d/*.conf;\n}\n",
    );
    let out = run(d.path(), &["lint", "--format", "concise", "."], None);
    assert_eq!(
        out.status.code(),
        Some(2),
        "a file that does not parse fails the run: {}",
        text(&out.stdout)
    );
    let out = run(d.path(), &["lint", "does-not-exist"], None);
    assert_eq!(out.status.code(), Some(2));
    // A tree with nothing of ours passes with a warning (a gate that fails with nothing to
    // fix gets switched off), and machine formats still get their (empty) document.
    let empty = tempfile::tempdir().unwrap();
    let out = run(empty.path(), &["lint", "."], None);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        text(&out.stderr).contains("no configuration files found"),
        "{}",
        text(&out.stderr)
    );
    let out = run(empty.path(), &["lint", ".", "--format", "json"], None);
    assert_eq!(out.status.code(), Some(0));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["diagnostics"], serde_json::json!([]));
}

#[test]
fn config_errors_point_into_the_toml() {
    let d = tree();
    write(
        d.path(),
        "lemplint.toml",
        "[host]\ncpus = 2\nmemroy = \"2GiB\"\n",
    );
    let out = run(d.path(), &["lint", "."], None);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(
        err.contains("unknown field `memroy`") && err.contains("lemplint.toml:3:1"),
        "{err}"
    );
}

/// Runs `lint` with `toml` as lemplint.toml; returns the exit code and standard error.
fn lint_with_config(toml: &str) -> (Option<i32>, String) {
    let d = tree();
    write(d.path(), "lemplint.toml", toml);
    let out = run(d.path(), &["lint", "."], None);
    assert!(
        out.stdout.is_empty(),
        "no rule may run on a bad option: {}",
        text(&out.stdout)
    );
    (out.status.code(), text(&out.stderr))
}

#[test]
fn an_unknown_rule_table_is_an_error_with_a_suggestion() {
    let (code, err) = lint_with_config("fail-on = \"error\"\n\n[rules.NGX222]\nx = 1\n");
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("unknown rule `NGX222`"), "{err}");
    assert!(err.contains("lemplint.toml:3:8"), "{err}");
    assert!(err.contains("did you mean [rules.NGX022]"), "{err}");
    let (code, err) = lint_with_config("[rules.NGX999]\n");
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("unknown rule `NGX999`") && err.contains("lemplint.toml:1:8"),
        "{err}"
    );
    // A rule's name instead of its code: say how options are keyed.
    let (code, err) = lint_with_config("[rules.server-tokens-on]\n");
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("keyed by the rule's code: [rules.NGX022]"),
        "{err}"
    );
}

#[test]
fn an_unknown_option_key_is_an_error_with_a_suggestion() {
    let (code, err) =
        lint_with_config("[rules.FPM004]\nworker-rss = \"96MiB\"\nreserv = \"1GiB\"\n");
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("unknown option `reserv` in [rules.FPM004]"),
        "{err}"
    );
    assert!(err.contains("lemplint.toml:3:1"), "{err}");
    assert!(err.contains("did you mean `reserve`?"), "{err}");
    // Nothing near: the accepted keys are listed.
    let (code, err) = lint_with_config("[rules.SYS003]\nallowed = []\n");
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("SYS003 accepts: `known-keys`"), "{err}");
    // A rule without options accepts no key.
    let (code, err) = lint_with_config("[rules.NGX022]\nlevel = 1\n");
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("NGX022 (server-tokens-on) takes no options"),
        "{err}"
    );
}

#[test]
fn an_option_of_the_wrong_type_is_an_error_at_its_value() {
    let (code, err) = lint_with_config("[rules.SYS003]\nknown-keys = \"vm.x\"\n");
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("[rules.SYS003] known-keys: invalid type"),
        "{err}"
    );
    assert!(err.contains("lemplint.toml:2:14"), "{err}");
    let (code, err) = lint_with_config("[rules.FPM004]\nworker-rss = true\n");
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains(
            "[rules.FPM004] worker-rss: invalid type: boolean `true`, expected a number of bytes"
        ),
        "{err}"
    );
    assert!(err.contains("lemplint.toml:2:14"), "{err}");
    // Well-typed options load, and the rules run with them.
    let d = tree();
    write(
        d.path(),
        "lemplint.toml",
        "[rules.SYS003]\nknown-keys = [\"vm.x\"]\n[rules.FPM002]\nphp = 7.4\n",
    );
    let out = run(d.path(), &["lint", "."], None);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("NGX022"),
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn fix_writes_through_the_symlink_and_keeps_mode_and_comments() {
    let d = tree();
    let out = run(d.path(), &["fix", "."], None);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    let link = d.path().join("etc/nginx/sites-enabled/site");
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink(),
        "the link stays a link"
    );
    let target = d.path().join("etc/nginx/sites-available/site");
    assert_eq!(
        std::fs::metadata(&target).unwrap().permissions().mode() & 0o777,
        0o640
    );
    assert_eq!(
        std::fs::read_to_string(&target).unwrap(),
        SITE.replace("server_tokens on;", "server_tokens off;")
    );
    // Nothing left to fix.
    let out = run(d.path(), &["fix", "--diff", "."], None);
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stdout.is_empty());
}

#[test]
fn fix_diff_applies_with_git() {
    let d = tree();
    let git = |args: &[&str]| {
        Command::new("git")
            .args(args)
            .current_dir(d.path())
            .output()
            .unwrap()
    };
    if git(&["init", "-q"]).status.code() != Some(0) {
        return;
    }
    let out = run(d.path(), &["fix", "--diff", "."], None);
    assert_eq!(out.status.code(), Some(1), "exit 1 when there are changes");
    std::fs::write(d.path().join("fix.patch"), &out.stdout).unwrap();
    let applied = git(&["apply", "fix.patch"]);
    assert!(
        applied.status.success(),
        "git apply: {}\n{}",
        text(&applied.stderr),
        text(&out.stdout)
    );
    let site = std::fs::read_to_string(d.path().join("etc/nginx/sites-available/site")).unwrap();
    assert!(
        site.contains("server_tokens off;  # and this one"),
        "{site}"
    );
}

#[test]
fn stdin_lint_and_fix() {
    let d = tempfile::tempdir().unwrap();
    let input = b"events {}\r\nhttp { server_tokens on; }";
    let out = run(d.path(), &["lint", "--format", "concise", "-"], Some(input));
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stdout).starts_with("<stdin>:2:22: warning[NGX022]"),
        "{}",
        text(&out.stdout)
    );
    let out = run(d.path(), &["fix", "-"], Some(input));
    assert_eq!(
        out.stdout, b"events {}\r\nhttp { server_tokens off; }",
        "CRLF and the missing final newline stay"
    );
}

#[test]
fn one_file_of_a_stack_reports_what_concerns_it() {
    let d = tree();
    write(
        d.path(),
        "etc/nginx/conf.d/other.conf",
        "server {\n    server_tokens on;\n}\n",
    );
    write(d.path(), "etc/nginx/nginx.conf", "events {}\nhttp {\n    include /etc/nginx/conf.d/*.conf;\n    include /etc/nginx/sites-enabled/*;\n}\n");
    let out = run(
        d.path(),
        &["lint", "--format", "concise", "etc/nginx/conf.d/other.conf"],
        None,
    );
    let stdout = text(&out.stdout);
    assert!(stdout.contains("other.conf:2"), "{stdout}");
    assert!(
        !stdout.contains("sites-enabled/site"),
        "findings in other files are not shown: {stdout}"
    );
}

/// A rule may skip findings a named-files run does not show, but not one whose label lies
/// in a named file: NGX116's finding sits in the site, its labels in nginx.conf's
/// `add_header`s. Named either way, the finding is there; naming a third file hides it.
#[test]
fn a_finding_shown_by_its_label_is_still_built_when_files_are_named() {
    let d = tree();
    write(
        d.path(),
        "etc/nginx/nginx.conf",
        "events {}\nhttp {\n    add_header X-Frame-Options DENY;\n    include /etc/nginx/conf.d/*.conf;\n}\n",
    );
    write(
        d.path(),
        "etc/nginx/conf.d/site.conf",
        "server {\n    listen 80;\n    location / {\n        add_header Cache-Control no-store;\n    }\n}\n",
    );
    write(d.path(), "etc/nginx/conf.d/empty.conf", "# nothing\n");
    for (named, shown) in [
        ("etc/nginx/nginx.conf", true),
        ("etc/nginx/conf.d/site.conf", true),
        ("etc/nginx/conf.d/empty.conf", false),
    ] {
        let out = run(
            d.path(),
            &["lint", "--select", "NGX116", "--format", "concise", named],
            None,
        );
        let stdout = text(&out.stdout);
        assert_eq!(stdout.contains("NGX116"), shown, "{named}: {stdout}");
    }
}

/// Naming a file shows the findings of every path that resolves to it: the include reads
/// `sites-enabled/site`, a link to `sites-available/site`, and either name shows the finding.
/// A hard link is another path to the same inode, which `realpath` does not turn into the
/// named one: the findings read through the include stay hidden (the focus check skips
/// resolving paths only for files of another inode, and must agree with `realpath` here).
#[test]
fn a_named_file_is_in_focus_through_a_symlink_not_a_hard_link() {
    let d = tree();
    let lint = |named: &str| {
        let out = run(
            d.path(),
            &["lint", "--select", "NGX022", "--format", "concise", named],
            None,
        );
        text(&out.stdout)
    };
    for named in [
        "etc/nginx/sites-available/site",
        "etc/nginx/sites-enabled/site",
    ] {
        let stdout = lint(named);
        assert!(
            stdout.contains("etc/nginx/sites-enabled/site:4:16: warning[NGX022]"),
            "{named}: {stdout}"
        );
    }
    std::fs::hard_link(
        d.path().join("etc/nginx/sites-available/site"),
        d.path().join("etc/nginx/site-copy"),
    )
    .unwrap();
    let stdout = lint("etc/nginx/site-copy");
    assert!(!stdout.contains("sites-enabled/site:"), "{stdout}");
    assert!(!stdout.contains("sites-available/site:"), "{stdout}");
}

/// A site in `sites-available/` and its link in `sites-enabled/`, with no main configuration
/// that includes either: one file, one configuration, each finding once (at the file's own
/// name), not once per name.
#[test]
fn a_site_and_its_link_are_one_configuration() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "etc/nginx/sites-available/site.conf",
        "server {\n    listen 80;\n    server_tokens on;\n}\n",
    );
    std::fs::create_dir_all(d.path().join("etc/nginx/sites-enabled")).unwrap();
    std::os::unix::fs::symlink(
        "../sites-available/site.conf",
        d.path().join("etc/nginx/sites-enabled/site.conf"),
    )
    .unwrap();
    let out = run(
        d.path(),
        &[
            "lint",
            "--isolated",
            "--select",
            "NGX022",
            "--format",
            "concise",
            ".",
        ],
        None,
    );
    let stdout = text(&out.stdout);
    assert_eq!(stdout.matches("NGX022").count(), 1, "{stdout}");
    assert!(stdout.contains("sites-available/site.conf:3"), "{stdout}");
}

#[test]
fn an_unreadable_file_fails_the_run() {
    let d = tree();
    std::os::unix::fs::symlink(
        "../sites-available/gone",
        d.path().join("etc/nginx/sites-enabled/gone"),
    )
    .unwrap();
    std::fs::create_dir_all(d.path().join("etc/sysctl.d/99-oops.conf")).unwrap();
    let out = run(d.path(), &["lint", "--format", "concise", "."], None);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(2), "{stdout}");
    assert!(
        stdout.contains("error[NGX020] cannot read"),
        "the glob reaches the dangling link: {stdout}"
    );
    assert!(
        !stdout.contains("LINT003"),
        "reported once, by the include: {stdout}"
    );
    // With nothing including it, the dangling link is reported on its own.
    std::fs::remove_file(d.path().join("etc/nginx/nginx.conf")).unwrap();
    let out = run(d.path(), &["lint", "--format", "concise", "."], None);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(2), "{stdout}");
    assert!(
        stdout.contains("sites-enabled/gone:1:1: error[LINT003] cannot read"),
        "{stdout}"
    );
}

#[test]
fn a_repository_whose_root_is_the_server_root() {
    // pre-commit runs at the repository root and passes `etc/nginx/conf.d/a.conf`.
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "etc/nginx/nginx.conf",
        "events {}\nhttp {\n    include /etc/nginx/conf.d/*.conf;\n}\n",
    );
    write(
        d.path(),
        "etc/nginx/conf.d/a.conf",
        "server { server_tokens on; }\n",
    );
    let out = run(
        d.path(),
        &["lint", "--format", "concise", "etc/nginx/conf.d/a.conf"],
        None,
    );
    let stdout = text(&out.stdout);
    assert!(
        stdout.starts_with("etc/nginx/conf.d/a.conf:1:24: warning[NGX022]"),
        "{stdout}"
    );
    assert!(stdout.contains("in 2 files (1 stack)"), "{stdout}");
}

#[test]
fn per_file_ignores_silence_a_rule_only_where_their_pattern_matches() {
    // Two servers of one repository, each with the same finding; the legacy one is ignored.
    let d = tempfile::tempdir().unwrap();
    for host in ["legacy", "new"] {
        write(
            d.path(),
            &format!("hosts/{host}/etc/nginx/nginx.conf"),
            "events {}\nhttp {\n    server_tokens on;\n}\n",
        );
    }
    write(
        d.path(),
        "lemplint.toml",
        "[per-file-ignores]\n\"hosts/legacy/**\" = [\"NGX022\"]\n",
    );
    let out = run(d.path(), &["lint", "--format", "concise", "."], None);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("hosts/new/etc/nginx/nginx.conf:3:19: warning[NGX022]"),
        "{stdout}"
    );
    assert!(!stdout.contains("hosts/legacy"), "{stdout}");
    // Without the configuration both are reported.
    let out = run(
        d.path(),
        &["lint", "--isolated", "--format", "concise", "."],
        None,
    );
    assert!(text(&out.stdout).contains("hosts/legacy/etc/nginx/nginx.conf:3:19"));
}

/// "N fixable with `lemplint fix`" is what `lemplint fix` then fixes: fixes in a file that
/// does not parse (which fix never writes) are not counted.
#[test]
fn the_fixable_count_is_what_fix_applies() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "nginx.conf",
        "events {}\nhttp {\n    include conf.d/*.conf;\n}\n",
    );
    write(
        d.path(),
        "conf.d/a.conf",
        "server {\n    server_tokens on;\n}\n",
    );
    write(
        d.path(),
        "conf.d/b.conf",
        "server {\n    server_tokens on;\n",
    );
    let lint = run(
        d.path(),
        &["lint", "--isolated", "--format", "concise", "."],
        None,
    );
    assert!(
        text(&lint.stdout).contains("[*] 1 fixable with `lemplint fix`."),
        "{}",
        text(&lint.stdout)
    );
    let fix = run(d.path(), &["fix", "--isolated", "--diff", "."], None);
    assert!(
        text(&fix.stderr).contains("Would fix 1 problem in 1 file."),
        "{}",
        text(&fix.stderr)
    );
}

/// Pre-commit given only the pool whose `listen` changed: the nginx line that now reaches no
/// pool is reported, since the finding names the pool's `listen` too.
#[test]
fn a_changed_pool_reports_the_nginx_line_it_stopped_serving() {
    let d = tempfile::tempdir().unwrap();
    let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/stack/STK003/php-upgrade");
    common::copy_tree(&from, d.path());
    let out = run(
        d.path(),
        &[
            "lint",
            "--isolated",
            "--format",
            "concise",
            "etc/php/8.2/fpm/pool.d/www.conf",
        ],
        None,
    );
    let shown = text(&out.stdout);
    assert!(
        shown
            .lines()
            .any(|l| l.starts_with("etc/nginx/sites-enabled/shop") && l.contains("STK003")),
        "{shown}"
    );
}

/// Code-scanning formats place a finding of a symlinked site in the real file (a link cannot
/// be annotated) and name the link beside it; the human formats keep the path as reached.
#[test]
fn findings_through_a_symlink_are_placed_in_the_real_file_for_ci() {
    let d = tree();
    let github = run(d.path(), &["lint", "--format", "github", "."], None);
    let line = text(&github.stdout);
    assert!(
        line.contains("file=etc/nginx/sites-available/site,")
            && line.contains("(read through etc/nginx/sites-enabled/site)"),
        "{line}"
    );
    let sarif = run(d.path(), &["lint", "--format", "sarif", "."], None);
    let v: serde_json::Value = serde_json::from_slice(&sarif.stdout).unwrap();
    let r = &v["runs"][0]["results"][0];
    assert_eq!(
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
        "etc/nginx/sites-available/site"
    );
    assert_eq!(
        r["relatedLocations"][0]["physicalLocation"]["artifactLocation"]["uri"],
        "etc/nginx/sites-enabled/site"
    );
    for format in ["gitlab", "checkstyle"] {
        let out = text(&run(d.path(), &["lint", "--format", format, "."], None).stdout);
        assert!(
            out.contains("etc/nginx/sites-available/site"),
            "{format}: {out}"
        );
        assert!(!out.contains("sites-enabled"), "{format}: {out}");
    }
}

/// A tree with a default-group finding (NGX022, `server_tokens on`) and a hardening one
/// (NGX115: two servers on one port, neither `default_server`).
fn grouped_tree(config: &str) -> tempfile::TempDir {
    let d = tree();
    write(
        d.path(),
        "etc/nginx/sites-enabled/other",
        "server {\n\tlisten 80;\n\tserver_name b.example;\n}\n",
    );
    write(d.path(), "lemplint.toml", config);
    d
}

fn codes_of(out: &Output) -> Vec<String> {
    let mut codes: Vec<String> = text(&out.stdout)
        .lines()
        .filter(|l| l.contains(": ") && !l.starts_with("Skipped"))
        .filter_map(|l| l.split('[').nth(1)?.split(']').next().map(String::from))
        .collect();
    codes.dedup();
    codes
}

#[test]
fn the_default_group_runs_unless_more_is_selected() {
    let args = ["lint", "--format", "concise", "."];
    let out = run(grouped_tree("").path(), &args, None);
    assert_eq!(codes_of(&out), ["NGX022"], "{}", text(&out.stdout));
    let out = run(
        grouped_tree("extend-select = [\"hardening\"]\n").path(),
        &args,
        None,
    );
    let codes = codes_of(&out);
    assert!(
        codes.contains(&"NGX022".into()) && codes.contains(&"NGX115".into()),
        "{}",
        text(&out.stdout)
    );
    let out = run(
        grouped_tree("select = [\"hardening\"]\n").path(),
        &args,
        None,
    );
    assert!(
        !codes_of(&out).contains(&"NGX022".into()),
        "{}",
        text(&out.stdout)
    );
    // The command line replaces `select`; `extend-select` still adds to it.
    let out = run(
        grouped_tree("select = [\"hardening\"]\n").path(),
        &["lint", "--format", "concise", "--select", "NGX022", "."],
        None,
    );
    assert_eq!(codes_of(&out), ["NGX022"], "{}", text(&out.stdout));
}

#[test]
fn a_rules_severity_is_overridden_in_the_config() {
    let d = grouped_tree("[rules.NGX022]\nseverity = \"info\"\n");
    let out = run(d.path(), &["lint", "--format", "concise", "."], None);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    assert!(
        text(&out.stdout).contains("info[NGX022]"),
        "{}",
        text(&out.stdout)
    );
    let d = grouped_tree("[rules.NGX022]\nseverity = \"error\"\n");
    let out = run(
        d.path(),
        &["lint", "--format", "concise", "--fail-on", "error", "."],
        None,
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
    // An input error keeps its severity; a wrong value names the place and the way out.
    let (code, err) = lint_with_config("[rules.NGX000]\nseverity = \"info\"\n");
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("cannot be changed"), "{err}");
    let (code, err) = lint_with_config("[rules.NGX022]\nseverity = \"off\"\n");
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("lemplint.toml:2:12") && err.contains("add it to `ignore`"),
        "{err}"
    );
}

/// A file named in a tree that is no git work tree, below the directory holding its stack's
/// `nginx.conf` (`config/conf.d/default.conf` beside `config/nginx.conf`): the linted tree
/// is the stack's directory, as when the directory is named, so the include of
/// `config/fastcgi_params` is read, not refused as outside the tree (two false LINT004
/// errors and a second stack). The tree never widens above the current directory: run from
/// `config/conf.d`, the same file keeps its directory and `fastcgi_params` is not read.
#[test]
fn a_named_file_outside_a_work_tree_is_linted_with_its_stack() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "config/nginx.conf",
        "events {}\nhttp {\n    include conf.d/*.conf;\n}\n",
    );
    write(
        d.path(),
        "config/conf.d/default.conf",
        "server {\n    listen 80;\n    server_tokens on;\n    location ~ \\.php$ {\n        include fastcgi_params;\n        fastcgi_pass 127.0.0.1:9000;\n    }\n}\n",
    );
    write(
        d.path(),
        "config/fastcgi_params",
        "fastcgi_param QUERY_STRING $query_string;\ndecoy_7f3a on;\n",
    );
    let lint = |cwd: &Path, named: &str| {
        let out = run(
            cwd,
            &["lint", "--isolated", "--format", "concise", named],
            None,
        );
        (text(&out.stdout) + &text(&out.stderr), out.status.code())
    };
    let (named, code) = lint(d.path(), "config/conf.d/default.conf");
    assert!(!named.contains("LINT004"), "{named}");
    assert!(named.contains("(1 stack)"), "{named}");
    assert_eq!(code, Some(1), "{named}");
    // The named file's findings are those the directory's run reports in it.
    let (whole, _) = lint(d.path(), ".");
    let in_file = |s: &str| -> Vec<String> {
        s.lines()
            .filter(|l| l.starts_with("config/conf.d/default.conf:"))
            .map(str::to_string)
            .collect()
    };
    assert!(!in_file(&named).is_empty(), "{named}");
    assert_eq!(in_file(&named), in_file(&whole), "{named}\n{whole}");
    // From inside conf.d, the stack's directory is above the current one: not read.
    let conf_d = d.path().join("config/conf.d");
    let (inside, _) = lint(&conf_d, "default.conf");
    assert!(!inside.contains("decoy_7f3a"), "{inside}");
    let out = run(&conf_d, &["stack", "--isolated", "default.conf"], None);
    let stack = text(&out.stdout);
    assert!(stack.contains("standalone"), "{stack}");
    assert!(
        stack.contains("open() \"fastcgi_params\" failed"),
        "{stack}"
    );
}

/// The stack directory a named file widens to is where the path is, never where a symlink
/// in it leads: `pr/s -> ../victim` makes `pr/s/nginx` a directory below the current one as
/// written, and the victim's `nginx` once resolved. Naming `s/nginx/sites-enabled/site`
/// from `pr` reads nothing of the victim's (the site's target is outside the tree), prints
/// no byte of it, and `fix` and `fmt` change nothing there.
#[test]
fn a_named_file_never_widens_its_tree_through_a_symlink() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "victim/nginx/nginx.conf",
        "events {}\nhttp {\n    include sites-enabled/*;\n}\n",
    );
    let site = "server {\n    listen 80;\n    server_tokens on; # DECOY_SECRET_1234\n}\n";
    write(d.path(), "victim/nginx/sites-available/site", site);
    std::fs::create_dir_all(d.path().join("victim/nginx/sites-enabled")).unwrap();
    std::fs::create_dir_all(d.path().join("pr")).unwrap();
    std::os::unix::fs::symlink(
        "../sites-available/site",
        d.path().join("victim/nginx/sites-enabled/site"),
    )
    .unwrap();
    std::os::unix::fs::symlink("../victim", d.path().join("pr/s")).unwrap();
    let pr = d.path().join("pr");
    for args in [
        &["lint", "--isolated", "s/nginx/sites-enabled/site"][..],
        &[
            "fix",
            "--isolated",
            "--unsafe-fixes",
            "s/nginx/sites-enabled/site",
        ],
        &["fmt", "--isolated", "s/nginx/sites-enabled/site"],
    ] {
        let out = run(&pr, args, None);
        let all = text(&out.stdout) + &text(&out.stderr);
        assert!(!all.contains("DECOY_SECRET_1234"), "{args:?}: {all}");
        let after =
            std::fs::read_to_string(d.path().join("victim/nginx/sites-available/site")).unwrap();
        assert_eq!(after, site, "{args:?}: {all}");
    }
}
