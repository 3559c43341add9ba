//! Differential test: the PHP-FPM parser against the real `php-fpm8.2 -t`.
//!
//! Every `fixtures/parser/fpm/*.conf` is a complete configuration (`[global]` and a pool). [`TABLE`]
//! records what php-fpm 8.2 does with it; one test checks that the parser agrees with the table
//! (it runs everywhere), the other that php-fpm still does what the table says (it needs the
//! binary). Together: where php-fpm refuses a file while *loading* it — a syntax error of the Zend
//! INI parser, or one of php-fpm's per-entry checks (unknown entry, a value its parsers refuse,
//! arrays in `[global]`, …) — our first error (from [`fpm::parse`] plus
//! [`fpm::FpmFile::load_errors`]) has the same message on the same line; where php-fpm loads the
//! file, we report nothing. Errors php-fpm finds *after* loading (pool checks such as
//! `pm.max_children must be a positive value`) are semantic: they belong to the rule engine, and
//! the parser must stay silent on them ([`Expect::Semantic`]).
//!
//! Line numbers: php-fpm prints `[file:line]` for its own errors, but a Zend syntax error says
//! `in Unknown on line N` with a meaningless N (each line is parsed as its own string). php-fpm
//! stops at the first bad line, so the test finds that line by running php-fpm on growing prefixes
//! of the file (bisection).
//!
//! php-fpm runs with `-n` (no php.ini), `-R` (allowed as root), `-p` a temporary prefix (its
//! default `error_log` lives there) and a fixed environment ([`ENV`]), so `${VAR}` expands the same
//! for php-fpm and for us. Without the binary the differential half is skipped with a note, or
//! fails when `CI=true`. Verified with PHP 8.2.36 (Debian php8.2-fpm 8.2.36-1~deb12u1).

mod common;

use lemplint::source::SourceFile;
use lemplint::syntax::fpm::{self, StartIn};
use std::path::PathBuf;
use std::process::Command;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Expect {
    /// `php-fpm -t` succeeds.
    Accepted,
    /// php-fpm's loader stops with `ERROR: [file:line] message`.
    Load(&'static str, u32),
    /// The Zend INI parser stops with `PHP:  message in Unknown on line …` at this line.
    Syntax(&'static str, u32),
    /// php-fpm loads the file and then refuses it in `fpm_conf_post_process`: not a parse error.
    Semantic(&'static str),
    /// PHP 5.2's XML format: php-fpm says `unknown entry '<?xml version'` on line 1; we give one
    /// dedicated diagnostic there instead.
    Xml,
}
use Expect::*;

const NULL_VALUE: &str = "value is NULL for a ZEND_INI_PARSER_ENTRY";

/// What php-fpm 8.2 does with each fixture.
#[rustfmt::skip]
const TABLE: &[(&str, Expect)] = &[
    ("array_in_global",           Load("Array are not allowed in the global section", 3)),
    ("bad_boolean",               Load("unable to parse value for entry 'catch_workers_output': invalid boolean value", 7)),
    ("bad_integer",               Load("unable to parse value for entry 'pm.max_requests': is not a valid number (greater or equal than zero)", 7)),
    ("bad_php_flag",              Load("error while parsing 'php_flag[display_errors]' : invalid boolean value", 7)),
    ("bad_section_header",        Syntax("syntax error, unexpected end of file, expecting ']'", 7)),
    ("bad_time",                  Load("unable to parse value for entry 'request_terminate_timeout': unknown suffix used in time value", 7)),
    ("bool_word_in_value",        Syntax("syntax error, unexpected TC_CONSTANT", 7)),
    ("hash_comment",              Load(NULL_VALUE, 7)),
    ("indented_section_header",   Syntax("syntax error, unexpected END_OF_LINE, expecting '='", 7)),
    ("missing_equals",            Load(NULL_VALUE, 7)),
    ("pool_var_in_global",        Load("unable to parse value for entry 'error_log': Can't use '$pool' when the pool is not defined", 3)),
    ("second_equals",             Syntax("syntax error, unexpected '='", 7)),
    ("semantic_max_children",     Semantic("ALERT: [pool www] pm.max_children must be a positive value")),
    ("unknown_entry",             Load("unknown entry 'pm.max_childs'", 7)),
    ("unterminated_double_quote", Syntax("syntax error, unexpected end of file, expecting TC_DOLLAR_CURLY or TC_QUOTED_STRING or '\"'", 7)),
    ("unterminated_single_quote", Syntax("syntax error, unexpected end of file", 7)),
    ("valid_crlf",                Accepted),
    ("valid_pool",                Accepted),
    ("valid_quotes_env",          Accepted),
    ("xml_php52",                 Xml),
];

/// The environment php-fpm runs with, and that `${VAR}` sees on our side.
const ENV: &[(&str, &str)] = &[("LEMPLINT_PORT", "19123")];

fn env_lookup(name: &str) -> Option<String> {
    ENV.iter()
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v.to_string())
}

fn expected(name: &str) -> Expect {
    TABLE
        .iter()
        .find(|(n, _)| *n == name)
        .map(|&(_, e)| e)
        .unwrap_or_else(|| panic!("fixture {name} is not in TABLE"))
}

/// Our errors for a main file, in file order: syntax errors and php-fpm's per-entry checks.
fn our_errors(src: &[u8]) -> Vec<(String, u32)> {
    let parsed = fpm::parse(src);
    let mut errors = parsed.errors.clone();
    errors.extend(parsed.file.load_errors(src, &env_lookup, StartIn::Global));
    errors.sort_by_key(|e| e.span.start);
    let file = SourceFile::new("case.conf", src.to_vec());
    errors
        .into_iter()
        .map(|e| (e.message, file.line_of(e.span.start)))
        .collect()
}

#[test]
fn table_lists_every_fixture() {
    let names: Vec<String> = common::parser_fixtures("fpm")
        .into_iter()
        .map(|(n, _)| n)
        .collect();
    let listed: Vec<String> = TABLE.iter().map(|(n, _)| n.to_string()).collect();
    assert_eq!(names, listed, "fixtures/parser/fpm and TABLE differ");
}

#[test]
fn parser_agrees_with_recorded_php_fpm_verdicts() {
    let mut failures = Vec::new();
    for (name, src) in common::parser_fixtures("fpm") {
        let ours = our_errors(&src);
        let ok = match expected(&name) {
            Accepted | Semantic(_) => ours.is_empty(),
            Load(msg, line) | Syntax(msg, line) => ours.first() == Some(&(msg.to_string(), line)),
            Xml => {
                ours == [(
                    "XML configuration of PHP 5.2 is not supported".to_string(),
                    1,
                )]
            }
        };
        if !ok {
            failures.push(format!(
                "{name}: expected {:?}, we said {ours:?}",
                expected(&name)
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// What `php-fpm -t` said.
#[derive(Debug, PartialEq, Eq)]
enum Verdict {
    Accepted,
    /// `ERROR: [file:line] message` while loading.
    Load(String, u32),
    /// `PHP:  message in Unknown on line …` (the line is found separately).
    Syntax(String),
    /// Loaded, then refused after loading; the first ALERT/ERROR line.
    Semantic(String),
    Other(String),
}

struct PhpFpm {
    bin: PathBuf,
}

impl PhpFpm {
    fn find() -> Option<PhpFpm> {
        if let Some(bin) = std::env::var_os("LEMPLINT_PHP_FPM") {
            return Some(PhpFpm { bin: bin.into() });
        }
        let mut dirs = vec![PathBuf::from("/usr/sbin"), PathBuf::from("/usr/local/sbin")];
        if let Some(path) = std::env::var_os("PATH") {
            dirs.extend(std::env::split_paths(&path));
        }
        dirs.into_iter()
            .map(|d| d.join("php-fpm8.2"))
            .find(|p| p.is_file())
            .map(|bin| PhpFpm { bin })
    }

    /// Runs `php-fpm -t` on `src` and classifies its output.
    fn run(&self, src: &[u8]) -> Verdict {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("log")).unwrap();
        let case = dir.path().join("case.conf");
        std::fs::write(&case, src).unwrap();
        let out = Command::new(&self.bin)
            .args(["-n", "-R", "-t", "-p"])
            .arg(dir.path())
            .arg("-y")
            .arg(&case)
            .env_clear()
            .env("PATH", "/usr/sbin:/usr/bin:/sbin:/bin")
            .envs(ENV.iter().copied())
            .output()
            .unwrap_or_else(|e| panic!("{}: {e}", self.bin.display()));
        let mut text = String::from_utf8_lossy(&out.stderr).into_owned();
        text.push_str(&String::from_utf8_lossy(&out.stdout));
        classify(&text, &case.display().to_string())
    }

    /// The first line php-fpm refuses to load: the smallest prefix of the file that fails to load.
    fn first_bad_line(&self, src: &[u8]) -> u32 {
        let lines: Vec<&[u8]> = src.split_inclusive(|&b| b == b'\n').collect();
        let fails = |n: usize| {
            let prefix = lines[..n].concat();
            matches!(self.run(&prefix), Verdict::Load(..) | Verdict::Syntax(_))
        };
        let (mut lo, mut hi) = (1, lines.len());
        while lo < hi {
            let mid = (lo + hi) / 2;
            if fails(mid) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        lo as u32
    }
}

/// Classifies php-fpm's log (`[date] LEVEL: message` lines).
fn classify(log: &str, case: &str) -> Verdict {
    let lines: Vec<&str> = log
        .lines()
        .map(|l| match l.strip_prefix('[') {
            Some(rest) if l.contains("] ") => rest.split_once("] ").map_or(l, |(_, m)| m),
            _ => l,
        })
        .collect();
    if lines.iter().any(|l| l.ends_with("test is successful")) {
        return Verdict::Accepted;
    }
    let own = format!("ERROR: [{case}:");
    for l in &lines {
        if let Some(rest) = l.strip_prefix(&own) {
            if let Some((n, msg)) = rest.split_once("] ") {
                return Verdict::Load(msg.to_string(), n.parse().unwrap_or(0));
            }
        }
        if let Some(msg) = l.strip_prefix("PHP:  ") {
            let msg = msg.split(" in Unknown on line").next().unwrap_or(msg);
            return Verdict::Syntax(msg.to_string());
        }
    }
    if log.contains("failed to post process the configuration") {
        let first = lines
            .iter()
            .find(|l| l.starts_with("ALERT: ") || l.starts_with("ERROR: "))
            .unwrap_or(&"");
        return Verdict::Semantic(first.to_string());
    }
    Verdict::Other(log.to_string())
}

#[test]
fn php_fpm_agrees_with_table() {
    let Some(fpm) = PhpFpm::find() else {
        let msg = "php-fpm8.2 not found (install php8.2-fpm, or set LEMPLINT_PHP_FPM)";
        if std::env::var("CI").as_deref() == Ok("true") {
            panic!("{msg}: the differential test cannot run on CI without it");
        }
        eprintln!("note: {msg}; skipping the differential test against php-fpm");
        return;
    };
    let mut failures = Vec::new();
    for (name, src) in common::parser_fixtures("fpm") {
        let verdict = fpm.run(&src);
        let ok = match (expected(&name), &verdict) {
            (Accepted, Verdict::Accepted) => true,
            (Load(msg, line), Verdict::Load(m, l)) => m == msg && *l == line,
            (Xml, Verdict::Load(m, l)) => m == "unknown entry '<?xml version'" && *l == 1,
            (Syntax(msg, line), Verdict::Syntax(m)) => m == msg && fpm.first_bad_line(&src) == line,
            (Semantic(msg), Verdict::Semantic(m)) => m == msg,
            _ => false,
        };
        if !ok {
            failures.push(format!(
                "{name}: TABLE says {:?}, php-fpm said {verdict:?}",
                expected(&name)
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
