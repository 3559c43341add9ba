//! Every PHP-FPM and sysctl file in ../shared/corpus comes back byte-for-byte from its parse,
//! and the parsers report errors exactly where the real programs do.
//!
//! Checked by hand with the real binaries (php-fpm 8.2.36 `-n -R -t -y FILE`, procps-ng 4.0.2
//! `sysctl --dry-run -p FILE`):
//! * every sysctl file: no `invalid syntax` warning from procps, so no error from us;
//! * php-fpm loads every non-XML file except the ones in [`FPM_LOAD_FAILURES`], which fail for
//!   reasons that are not in the file's syntax; the others fail, if at all, only after loading
//!   (`no listen address have been defined!`, `cannot get uid for user 'flarum'`: semantic or
//!   host checks, not parse errors).

mod common;
use common::{corpus_dir, files_under};

use lemplint::syntax::fpm::{self, LineKind, StartIn};
use lemplint::syntax::sysctl;
use std::path::{Path, PathBuf};

fn rel(path: &Path, kind: &str) -> String {
    path.strip_prefix(corpus_dir(kind))
        .unwrap_or(path)
        .display()
        .to_string()
}

/// The PHP 5.2 XML configurations in the corpus.
const FPM_XML: &[&str] = &[
    "devilbox/cfg/php-fpm-5.2/php-fpm.xml-example",
    "docker-php-fpm/Dockerfiles/base/data/php-fpm.conf/php-fpm-5.2.conf",
    "docker-php-fpm/Dockerfiles/slim/data/php-fpm.conf/php-fpm-5.2.conf",
];

/// Non-XML corpus files php-fpm 8.2 refuses to load as main files, and why.
const FPM_LOAD_FAILURES: &[(&str, &str)] = &[
    (
        "docker-php-fpm/Dockerfiles/base/data/php-fpm.conf/php-fpm-5.3.conf",
        "include = /usr/local/etc/php-fpm.d/*.conf: the directory does not exist here (Unable to globalize)",
    ),
    (
        "docker-php-fpm/Dockerfiles/base/data/php-fpm.conf/php-fpm-5.4.conf",
        "include = /usr/local/etc/php-fpm.d/*.conf: the directory does not exist here (Unable to globalize)",
    ),
    (
        "webdevops-Dockerfile/provisioning/php/alpine/etc/php/fpm/php-fpm.conf",
        "include = /opt/docker/etc/php/fpm/pool.d/*.conf: the directory does not exist here (Unable to globalize)",
    ),
    (
        "laradock/php-fpm/xlaravel.pool.conf",
        "a pool fragment without a [section]: as a main file its `user` lands in [global] \
         (unknown entry 'user' at line 4); it is valid when included from inside a pool",
    ),
];

#[test]
#[cfg_attr(
    lemplint_no_corpus,
    ignore = "../shared/corpus is missing (a fresh clone: see the README's corpus note; after adding it, touch build.rs)"
)]
fn fpm_corpus_round_trips() {
    if common::corpus("php-fpm").is_none() {
        return;
    }
    let files = files_under(&corpus_dir("php-fpm"));
    assert!(files.len() > 50, "corpus missing? found {}", files.len());
    let mut failed = Vec::new();
    for f in &files {
        let src = std::fs::read(f).unwrap();
        let parsed = fpm::parse(&src);
        if parsed.file.print(&src).as_deref() != Some(&src[..]) {
            failed.push(rel(f, "php-fpm"));
        }
    }
    assert!(failed.is_empty(), "did not round-trip: {failed:#?}");
}

#[test]
#[cfg_attr(
    lemplint_no_corpus,
    ignore = "../shared/corpus is missing (a fresh clone: see the README's corpus note; after adding it, touch build.rs)"
)]
fn fpm_corpus_xml_files_get_one_diagnostic() {
    if common::corpus("php-fpm").is_none() {
        return;
    }
    let mut xml = Vec::new();
    for f in files_under(&corpus_dir("php-fpm")) {
        let src = std::fs::read(&f).unwrap();
        let parsed = fpm::parse(&src);
        if parsed.file.xml {
            let name = rel(&f, "php-fpm");
            assert_eq!(parsed.errors.len(), 1, "{name}: {:?}", parsed.errors);
            assert_eq!(
                parsed.errors[0].message,
                "XML configuration of PHP 5.2 is not supported"
            );
            assert_eq!(parsed.errors[0].span.start, 0, "{name}");
            assert!(!src[..parsed.errors[0].span.end as usize].contains(&b'\n'));
            xml.push(name);
        }
    }
    assert_eq!(xml, FPM_XML);
}

#[test]
#[cfg_attr(
    lemplint_no_corpus,
    ignore = "../shared/corpus is missing (a fresh clone: see the README's corpus note; after adding it, touch build.rs)"
)]
fn fpm_corpus_has_no_errors_where_php_fpm_has_none() {
    if common::corpus("php-fpm").is_none() {
        return;
    }
    let mut failed = Vec::new();
    for f in files_under(&corpus_dir("php-fpm")) {
        let name = rel(&f, "php-fpm");
        if FPM_XML.contains(&name.as_str()) {
            continue;
        }
        let src = std::fs::read(&f).unwrap();
        let parsed = fpm::parse(&src);
        let start = if name.ends_with("xlaravel.pool.conf") {
            // See FPM_LOAD_FAILURES: checked as the included pool fragment it is.
            StartIn::Pool
        } else {
            StartIn::Global
        };
        let load = parsed.file.load_errors(&src, &fpm::no_env, start);
        if !parsed.errors.is_empty() || !load.is_empty() {
            failed.push(format!("{name}: {:?} {:?}", parsed.errors, load));
        }
    }
    assert!(failed.is_empty(), "{failed:#?}");
    // The fragment really is refused as a main file, on the line php-fpm names.
    let src = std::fs::read(corpus_dir("php-fpm").join(FPM_LOAD_FAILURES[3].0)).unwrap();
    let parsed = fpm::parse(&src);
    let load = parsed.file.load_errors(&src, &fpm::no_env, StartIn::Global);
    let first = load.first().expect("unknown entry 'user'");
    assert_eq!(first.message, "unknown entry 'user'");
    let line = 1 + src[..first.span.start as usize]
        .iter()
        .filter(|&&b| b == b'\n')
        .count();
    assert_eq!(line, 4);
}

#[test]
#[cfg_attr(
    lemplint_no_corpus,
    ignore = "../shared/corpus is missing (a fresh clone: see the README's corpus note; after adding it, touch build.rs)"
)]
fn fpm_corpus_spans_are_sane() {
    if common::corpus("php-fpm").is_none() {
        return;
    }
    for f in files_under(&corpus_dir("php-fpm")) {
        let src = std::fs::read(&f).unwrap();
        let parsed = fpm::parse(&src);
        for line in &parsed.file.lines {
            assert!(line.span.start <= line.eol.start && line.eol.end == line.span.end);
            if let LineKind::Entry(e) = &line.kind {
                for s in [e.key, e.name, e.eq, e.raw_value, e.value] {
                    assert!(line.span.start <= s.start && s.end <= line.span.end);
                }
                assert_eq!(&src[e.eq.range()], b"=");
                assert!(e.raw_value.start <= e.value.start && e.value.end <= e.raw_value.end);
            }
        }
        // Every include entry is an ordinary entry named exactly `include`.
        for (_, e) in parsed.file.includes(&src) {
            assert_eq!(e.name_bytes(&src), b"include");
        }
    }
}

#[test]
#[cfg_attr(
    lemplint_no_corpus,
    ignore = "../shared/corpus is missing (a fresh clone: see the README's corpus note; after adding it, touch build.rs)"
)]
fn sysctl_corpus_round_trips_without_errors() {
    if common::corpus("sysctl").is_none() {
        return;
    }
    let files = files_under(&corpus_dir("sysctl"));
    assert!(files.len() > 30, "corpus missing? found {}", files.len());
    let mut failed = Vec::new();
    let mut assignments = 0;
    for f in &files {
        let src = std::fs::read(f).unwrap();
        let parsed = sysctl::parse(&src);
        if parsed.file.print(&src).as_deref() != Some(&src[..]) {
            failed.push(format!("{}: did not round-trip", rel(f, "sysctl")));
        }
        if !parsed.errors.is_empty() {
            failed.push(format!("{}: {:?}", rel(f, "sysctl"), parsed.errors));
        }
        assignments += parsed.file.assignments().count();
    }
    assert!(failed.is_empty(), "{failed:#?}");
    assert!(assignments > 200, "only {assignments} assignments parsed");
}

#[test]
#[cfg_attr(
    lemplint_no_corpus,
    ignore = "../shared/corpus is missing (a fresh clone: see the README's corpus note; after adding it, touch build.rs)"
)]
fn sysctl_corpus_features() {
    if common::corpus("sysctl").is_none() {
        return;
    }
    // Globs, `-` prefixes and values with blanks, as they occur in the corpus.
    let src = std::fs::read(
        corpus_dir("sysctl").join("GrapheneOS-infrastructure/etc/sysctl.d/60-container.conf"),
    )
    .unwrap();
    let parsed = sysctl::parse(&src);
    let glob = parsed.file.get(&src, "net/*/conf/*/forwarding").unwrap();
    assert!(glob.is_glob(&src));
    assert_eq!(glob.normalized_key(&src), "net.*.conf.*.forwarding");

    let src = std::fs::read(corpus_dir("sysctl").join(
        "gardenlinux/features/server/file.include/etc/sysctl.d/90-allow-ping-for-non-root-user.conf",
    ))
    .unwrap();
    let parsed = sysctl::parse(&src);
    let a = parsed.file.get(&src, "net.ipv4.ping_group_range").unwrap();
    assert!(a.ignore_failure());
    assert_eq!(a.value_text(&src), "0 2147483647");
}

fn fixture_files(kind: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/parser")
        .join(kind);
    files_under(&dir)
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "conf"))
        .collect()
}

#[test]
fn parser_fixtures_round_trip() {
    for f in fixture_files("fpm") {
        let src = std::fs::read(&f).unwrap();
        let printed = fpm::parse(&src).file.print(&src);
        assert_eq!(printed.as_deref(), Some(&src[..]), "{}", f.display());
    }
    for f in fixture_files("sysctl") {
        let src = std::fs::read(&f).unwrap();
        let printed = sysctl::parse(&src).file.print(&src);
        assert_eq!(printed.as_deref(), Some(&src[..]), "{}", f.display());
    }
}

/// The lines of each sysctl fixture that we report, and procps' verdict on them: `x\n` and a
/// line without `=` get `invalid syntax, continuing...`; ` = 1` (empty key) fails later with
/// `Path is not under /proc/sys/: /proc/sys/`; a lone byte at the end of the file is skipped by
/// procps without a word (systemd-sysctl warns).
#[rustfmt::skip]
const SYSCTL_FIXTURES: &[(&str, &[u32])] = &[
    ("crlf_no_final_newline", &[]),
    ("dash_prefix",           &[]),
    ("globs",                 &[]),
    ("inline_comment",        &[]),
    ("invalid_lines",         &[2, 3, 4, 6]),
    ("slash_keys",            &[]),
    ("valid",                 &[]),
];

fn error_lines(
    src: &[u8],
    errors: &[lemplint::syntax::SyntaxError],
    only: Option<&str>,
) -> Vec<u32> {
    errors
        .iter()
        .filter(|e| only.is_none() || only == Some(e.message.as_str()))
        .map(|e| {
            1 + src[..e.span.start as usize]
                .iter()
                .filter(|&&b| b == b'\n')
                .count() as u32
        })
        .collect()
}

#[test]
fn sysctl_fixtures_report_the_expected_lines() {
    let files = fixture_files("sysctl");
    let names: Vec<String> = files
        .iter()
        .map(|f| f.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    let listed: Vec<&str> = SYSCTL_FIXTURES.iter().map(|(n, _)| *n).collect();
    assert_eq!(names, listed);
    for (f, (name, lines)) in files.iter().zip(SYSCTL_FIXTURES) {
        let src = std::fs::read(f).unwrap();
        let parsed = sysctl::parse(&src);
        assert_eq!(error_lines(&src, &parsed.errors, None), *lines, "{name}");
    }
}

/// procps agrees on the lines it calls `invalid syntax` (only those: `--dry-run` still stats every
/// key, and which keys exist depends on the kernel). Skipped when `sysctl` is not installed.
#[test]
fn sysctl_fixtures_match_procps_invalid_syntax() {
    let Some(bin) = ["/usr/sbin/sysctl", "/sbin/sysctl", "/usr/bin/sysctl"]
        .iter()
        .map(PathBuf::from)
        .find(|p| p.is_file())
    else {
        eprintln!("note: sysctl (procps) not found; skipping the procps cross-check");
        return;
    };
    for f in fixture_files("sysctl") {
        let src = std::fs::read(&f).unwrap();
        let out = std::process::Command::new(&bin)
            .arg("--dry-run")
            .arg("-p")
            .arg(&f)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        let procps: Vec<u32> = stderr
            .lines()
            .filter(|l| l.ends_with("): invalid syntax, continuing..."))
            .filter_map(|l| l.rsplit_once('(')?.1.split_once(')')?.0.parse().ok())
            .collect();
        let parsed = sysctl::parse(&src);
        let ours = error_lines(&src, &parsed.errors, Some(sysctl::INVALID_SYNTAX));
        assert_eq!(ours, procps, "{}", f.display());
    }
}
