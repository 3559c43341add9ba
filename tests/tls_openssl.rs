//! Differential test: `lemplint::tls::expand(s, 3.0)` against the machine's
//! `openssl ciphers -v s`, line for line (names, order and the description columns), and
//! the error class when OpenSSL refuses the string.
//!
//! Inputs: a fixed-seed random set of cipher strings built from every keyword, suite name,
//! operator and separator OpenSSL knows (plus ones it does not); every `ssl_ciphers` value
//! in the shared nginx corpus (commented-out ones too: they are real strings); and the
//! strings the domain notes discuss (the mod_ssl-era default, nginx's default, Mozilla's
//! profiles).
//!
//! Without `/usr/bin/openssl` (or with an OpenSSL other than 3.0) the test prints a note and
//! passes, except under CI (`CI=true`), where that is a failure.

mod common;

use lemplint::tls::{self, CipherError, OpenSslVersion};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

const OPENSSL: &str = "/usr/bin/openssl";

/// Strings where a disagreement with OpenSSL is known and accepted, with the reason.
/// Empty: every disagreement is a bug.
const KNOWN_DIFFERENCES: &[(&str, &str)] = &[];

/// How many random strings to generate.
const RANDOM_STRINGS: usize = 2500;

/// The strings the domain notes (§2.3, §6.2, §6.4) discuss.
const NOTED: &[&str] = &[
    // The mod_ssl-era default with `!kEDH` (§6.2; Appendix B).
    "ALL:!kEDH!ADH:RC4+RSA:+HIGH:+MEDIUM:+LOW:+SSLv2:+EXP",
    // nginx defaults, current and historic (§2.3).
    "HIGH:!aNULL:!MD5",
    "HIGH:!ADH:!MD5",
    "ALL:!ADH:RC4+RSA:+HIGH:+MEDIUM",
    "ALL:!ADH:RC4+RSA:+HIGH:+MEDIUM:+LOW:+SSLv2:+EXP",
    // Mozilla 6.0/5.8 intermediate.
    "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:\
     ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305",
    // Mozilla 5.8 old (DES-CBC3-SHA is not in 3.0, so 20 of 21 remain).
    "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:\
     ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305:\
     ECDHE-ECDSA-AES128-SHA256:ECDHE-RSA-AES128-SHA256:ECDHE-ECDSA-AES128-SHA:ECDHE-RSA-AES128-SHA:\
     ECDHE-ECDSA-AES256-SHA384:ECDHE-RSA-AES256-SHA384:ECDHE-ECDSA-AES256-SHA:ECDHE-RSA-AES256-SHA:\
     AES128-GCM-SHA256:AES256-GCM-SHA384:AES128-SHA256:AES256-SHA256:AES128-SHA:AES256-SHA:\
     DES-CBC3-SHA",
    // The generator prepends @SECLEVEL=0 for "old" on OpenSSL 3.
    "@SECLEVEL=0:ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:AES128-SHA:DES-CBC3-SHA",
    // Mozilla 5.7 intermediate and old (with DHE).
    "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:\
     ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305:\
     DHE-RSA-AES128-GCM-SHA256:DHE-RSA-AES256-GCM-SHA384:DHE-RSA-CHACHA20-POLY1305",
    "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:\
     ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305:\
     DHE-RSA-AES128-GCM-SHA256:DHE-RSA-AES256-GCM-SHA384:DHE-RSA-CHACHA20-POLY1305:\
     DHE-RSA-AES128-SHA256:DHE-RSA-AES256-SHA256",
    // Mozilla modern sets no ssl_ciphers at all: an empty list is refused.
    "",
    // The plain keywords and DEFAULT forms.
    "DEFAULT",
    "ALL",
    "ALL:COMPLEMENTOFALL",
    "COMPLEMENTOFDEFAULT",
    "DEFAULT:!aNULL:@STRENGTH",
];

#[test]
fn expand_agrees_with_openssl_ciphers() {
    let Some(()) = openssl_3_0_present() else {
        return;
    };

    let corpus = corpus_strings();
    let mut strings: Vec<(String, &str)> = Vec::new();
    strings.extend(NOTED.iter().map(|s| (s.to_string(), "noted")));
    strings.extend(corpus.iter().map(|s| (s.clone(), "corpus")));
    strings.extend(
        random_strings(RANDOM_STRINGS)
            .into_iter()
            .map(|s| (s, "random")),
    );
    let mut seen = BTreeSet::new();
    strings.retain(|(s, _)| seen.insert(s.clone()));

    let started = Instant::now();
    let outputs = run_openssl_all(&strings.iter().map(|(s, _)| s.as_str()).collect::<Vec<_>>());
    let elapsed = started.elapsed();

    let mut identical = 0;
    let mut failures = Vec::new();
    let mut allowed = 0;
    let mut accepted = 0;
    for ((spec, origin), out) in strings.iter().zip(&outputs) {
        // The other versions must at least not panic on anything.
        for v in [OpenSslVersion::V1_0_2, OpenSslVersion::V1_1_1] {
            let _ = tls::expand(spec, v);
        }
        let ours = render(tls::expand(spec, OpenSslVersion::V3_0));
        if matches!(out, Outcome::Listed(_)) {
            accepted += 1;
        }
        if ours == *out {
            identical += 1;
        } else if let Some((_, why)) = KNOWN_DIFFERENCES.iter().find(|(s, _)| s == spec) {
            allowed += 1;
            eprintln!("allowed difference for {spec:?}: {why}");
        } else {
            failures.push(format!(
                "[{origin}] {spec:?}\n  openssl: {}\n  lemplint: {}",
                out.summary(),
                ours.summary()
            ));
        }
    }
    let from = |o: &str| strings.iter().filter(|(_, origin)| *origin == o).count();
    eprintln!(
        "tls_openssl: {} distinct strings ({} noted, {} from the corpus, {} random; {accepted} \
         accepted by OpenSSL): {identical} identical, {allowed} allowed differences, {} \
         differ; openssl took {:.1?}",
        strings.len(),
        from("noted"),
        from("corpus"),
        from("random"),
        failures.len(),
        elapsed
    );
    // Without the corpus (a fresh clone; `common::corpus` said so) only the noted and
    // random strings are compared.
    assert!(
        from("corpus") >= 10 || common::corpus("nginx").is_none(),
        "only {} ssl_ciphers values found in the corpus",
        from("corpus")
    );
    assert!(
        accepted * 3 > strings.len(),
        "too few accepted strings ({accepted}): the generator tests mostly errors"
    );
    assert!(
        failures.is_empty(),
        "{} disagreements:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// What `openssl ciphers -v` printed, or the error class it reported.
#[derive(Debug, PartialEq, Eq)]
enum Outcome {
    Listed(Vec<String>),
    NoCipherMatch,
    InvalidCommand,
    Other(String),
}

impl Outcome {
    fn summary(&self) -> String {
        match self {
            Outcome::Listed(lines) => {
                let names: Vec<&str> = lines
                    .iter()
                    .map(|l| l.split(' ').next().unwrap_or(""))
                    .collect();
                format!("{} suites: {}", lines.len(), names.join(":"))
            }
            other => format!("{other:?}"),
        }
    }
}

fn render(r: Result<tls::Expansion, CipherError>) -> Outcome {
    match r {
        Ok(e) => Outcome::Listed(
            e.suites
                .iter()
                .map(|s| s.describe(OpenSslVersion::V3_0))
                .collect(),
        ),
        Err(CipherError::NoCipherMatch { .. }) => Outcome::NoCipherMatch,
        Err(CipherError::InvalidCommand { .. }) => Outcome::InvalidCommand,
    }
}

/// `Some` when the local OpenSSL is a 3.0 release; otherwise a note (or a panic in CI).
fn openssl_3_0_present() -> Option<()> {
    let ci = std::env::var("CI").is_ok_and(|v| v == "true");
    let skip = |why: String| {
        if ci {
            panic!("tls_openssl cannot run under CI: {why}");
        }
        eprintln!("note: tls_openssl skipped: {why}");
        None
    };
    let out = match Command::new(OPENSSL).arg("version").output() {
        Ok(out) => out,
        Err(e) => return skip(format!("{OPENSSL} cannot be run ({e})")),
    };
    let version = String::from_utf8_lossy(&out.stdout).trim().to_string();
    if !version.starts_with("OpenSSL 3.0.") {
        return skip(format!("{OPENSSL} is {version:?}, not OpenSSL 3.0"));
    }
    Some(())
}

/// Runs `openssl ciphers -v -- s` for every string, on a few threads (one process each).
fn run_openssl_all(strings: &[&str]) -> Vec<Outcome> {
    let next = AtomicUsize::new(0);
    let workers = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .clamp(2, 4);
    let mut results: Vec<(usize, Outcome)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                scope.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(spec) = strings.get(i) else {
                            break done;
                        };
                        done.push((i, run_openssl(spec)));
                    }
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("worker panicked"))
            .collect()
    });
    results.sort_by_key(|(i, _)| *i);
    results.into_iter().map(|(_, o)| o).collect()
}

fn run_openssl(spec: &str) -> Outcome {
    let out = match Command::new(OPENSSL)
        .args(["ciphers", "-v", "--", spec])
        .output()
    {
        Ok(out) => out,
        Err(e) => return Outcome::Other(format!("spawn failed: {e}")),
    };
    if out.status.success() {
        let text = String::from_utf8_lossy(&out.stdout);
        return Outcome::Listed(text.lines().map(str::to_string).collect());
    }
    let err = String::from_utf8_lossy(&out.stderr);
    if err.contains(":no cipher match:") {
        Outcome::NoCipherMatch
    } else if err.contains(":invalid command:") {
        Outcome::InvalidCommand
    } else {
        Outcome::Other(err.trim().to_string())
    }
}

/// Every `ssl_ciphers` value in the nginx corpus, read in place, deduplicated, in path
/// order. Commented-out directives count: they are real-world strings.
fn corpus_strings() -> Vec<String> {
    let Some(root) = common::corpus("nginx") else {
        return Vec::new();
    };
    let mut files = Vec::new();
    collect_files(&root, &mut files);
    files.sort();
    let mut out: Vec<String> = Vec::new();
    for f in files {
        let Ok(bytes) = std::fs::read(&f) else {
            continue;
        };
        let text = String::from_utf8_lossy(&bytes);
        for value in ssl_ciphers_values(&text) {
            if !out.contains(&value) {
                out.push(value);
            }
        }
    }
    out
}

fn collect_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        match entry.file_type() {
            Ok(t) if t.is_dir() => collect_files(&path, out),
            Ok(t) if t.is_file() => out.push(path),
            _ => {}
        }
    }
}

/// The argument of each `ssl_ciphers` directive: the word must start a token (not
/// `$ssl_ciphers`, not `proxy_ssl_ciphers`), and the value is a quoted string (with nginx's
/// backslash escapes) or a bare word up to whitespace or `;`.
fn ssl_ciphers_values(text: &str) -> Vec<String> {
    const KEY: &str = "ssl_ciphers";
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(pos) = text[from..].find(KEY) {
        let start = from + pos;
        from = start + KEY.len();
        let before_ok = start == 0
            || matches!(
                bytes[start - 1],
                b' ' | b'\t' | b'\n' | b'\r' | b';' | b'{' | b'}' | b'#'
            );
        let after_ok = bytes.get(from).is_some_and(|c| matches!(c, b' ' | b'\t'));
        if !before_ok || !after_ok {
            continue;
        }
        let mut i = from;
        while i < bytes.len() && matches!(bytes[i], b' ' | b'\t') {
            i += 1;
        }
        let Some(&first) = bytes.get(i) else {
            continue;
        };
        let mut value = String::new();
        if first == b'"' || first == b'\'' {
            let mut chars = text[i + 1..].chars();
            let mut closed = false;
            while let Some(c) = chars.next() {
                match c {
                    '\\' => match chars.next() {
                        Some(e @ ('"' | '\'' | '\\')) => value.push(e),
                        Some('t') => value.push('\t'),
                        Some('n') => value.push('\n'),
                        Some('r') => value.push('\r'),
                        Some(e) => {
                            value.push('\\');
                            value.push(e);
                        }
                        None => break,
                    },
                    c if c as u32 == u32::from(first) => {
                        closed = true;
                        break;
                    }
                    c => value.push(c),
                }
            }
            if !closed {
                continue;
            }
        } else {
            value = text[i..]
                .chars()
                .take_while(|c| !c.is_whitespace() && *c != ';' && *c != '{')
                .collect();
        }
        if !value.is_empty() && !value.contains('$') {
            out.push(value);
        }
    }
    out
}

/// splitmix64: a fixed-seed generator, so the random set is the same on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }

    /// True with probability `pct` percent.
    fn chance(&mut self, pct: usize) -> bool {
        self.below(100) < pct
    }
}

/// Every keyword of 1.0.2, 1.1.1 and 3.0 (GOST ones included), and words OpenSSL does not
/// know but configs use.
const KEYWORDS: &[&str] = &[
    "ALL",
    "COMPLEMENTOFALL",
    "COMPLEMENTOFDEFAULT",
    "DEFAULT",
    "HIGH",
    "MEDIUM",
    "LOW",
    "EXP",
    "EXPORT",
    "EXPORT40",
    "EXPORT56",
    "eNULL",
    "NULL",
    "aNULL",
    "kRSA",
    "aRSA",
    "RSA",
    "kEDH",
    "kDHE",
    "EDH",
    "DHE",
    "DH",
    "ADH",
    "kEECDH",
    "kECDHE",
    "EECDH",
    "ECDHE",
    "ECDH",
    "AECDH",
    "kDHr",
    "kDHd",
    "kDH",
    "kECDHr",
    "kECDHe",
    "kECDH",
    "aDH",
    "aECDH",
    "aDSS",
    "DSS",
    "aECDSA",
    "ECDSA",
    "kPSK",
    "kRSAPSK",
    "kECDHEPSK",
    "kDHEPSK",
    "aPSK",
    "PSK",
    "kSRP",
    "aSRP",
    "SRP",
    "kKRB5",
    "aKRB5",
    "KRB5",
    "kGOST",
    "kGOST18",
    "aGOST",
    "aGOST01",
    "aGOST12",
    "aGOST94",
    "GOST89",
    "GOST94",
    "GOST89MAC",
    "GOST12",
    "GOST2012-GOST8912-GOST8912",
    "AES",
    "AES128",
    "AES256",
    "AESGCM",
    "AESCCM",
    "AESCCM8",
    "CHACHA20",
    "CAMELLIA",
    "CAMELLIA128",
    "CAMELLIA256",
    "ARIA",
    "ARIAGCM",
    "ARIA128",
    "ARIA256",
    "3DES",
    "DES",
    "RC4",
    "RC2",
    "IDEA",
    "SEED",
    "CBC",
    "MD5",
    "SHA1",
    "SHA",
    "SHA256",
    "SHA384",
    "SSLv2",
    "SSLv3",
    "TLSv1",
    "TLSv1.0",
    "TLSv1.1",
    "TLSv1.2",
    "TLSv1.3",
    "FIPS",
    "SUITEB128",
    "SUITEB128ONLY",
    "SUITEB192",
    "EDH-RSA-DES-CBC3-SHA",
    "EDH-DSS-DES-CBC3-SHA",
    "DHE-RSA-DES-CBC3-SHA",
    "ECCdraft",
    "FOO",
    "high",
    "Aes",
    "!",
    "kEDH-",
    "TLS_AES_128_GCM_SHA256",
];

const COMMANDS: &[&str] = &[
    "STRENGTH",
    "STRENGTH",
    "STRENGTH",
    "SECLEVEL=0",
    "SECLEVEL=1",
    "SECLEVEL=2",
    "SECLEVEL=5",
    "SECLEVEL=6",
    "SECLEVEL=",
    "SECLEVEL=12",
    "strength",
    "FOO",
];

const SEPARATORS: &[&str] = &[
    ":", ":", ":", ":", ":", ":", ",", " ", ";", "", "", "::", ": ",
];

fn random_strings(n: usize) -> Vec<String> {
    let mut rng = Rng(0x1e3f_2024_c1f3_0001);
    let suites: Vec<&str> = tls::SUITES
        .iter()
        .flat_map(|s| [s.name, s.legacy.map_or(s.name, |l| l.name)])
        .collect();
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let mut s = String::new();
        if rng.chance(8) {
            s.push_str(if rng.chance(50) {
                "DEFAULT:"
            } else {
                "DEFAULT"
            });
        }
        let elements = 1 + rng.below(7);
        for e in 0..elements {
            if e > 0 {
                s.push_str(rng.pick(SEPARATORS));
            }
            if rng.chance(1) {
                // Something OpenSSL cannot parse.
                s.push_str(rng.pick(&["/", "~", "_", "+", "@", "-", "é"]));
            }
            let op = rng.below(100);
            if op < 5 {
                s.push('@');
                s.push_str(rng.pick(COMMANDS));
                continue;
            }
            s.push_str(match op {
                5..=24 => "!",
                25..=34 => "-",
                35..=49 => "+",
                _ => "",
            });
            let words = match rng.below(100) {
                0..=69 => 1,
                70..=91 => 2,
                _ => 3,
            };
            for w in 0..words {
                if w > 0 {
                    s.push('+');
                }
                if rng.chance(30) {
                    s.push_str(rng.pick(&suites));
                } else {
                    s.push_str(rng.pick(KEYWORDS));
                }
            }
        }
        out.push(s);
    }
    out
}

#[test]
fn corpus_scanner_reads_quoted_and_bare_values() {
    let text = "server {\n  ssl_ciphers  HIGH:!aNULL:!MD5;\n  #ssl_ciphers 'A:B' ;\n  \
                proxy_ssl_ciphers X;\n  return 200 \"$ssl_ciphers\";\n  \
                ssl_ciphers \"C:\\\"D\";\n}\n";
    assert_eq!(
        ssl_ciphers_values(text),
        ["HIGH:!aNULL:!MD5", "A:B", "C:\"D"]
    );
}
