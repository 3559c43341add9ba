//! Property tests (issue 10): the parsers, the fix engine and the cipher-string evaluator
//! hold their invariants on generated inputs, not only on the corpus.
//!
//! * Parsers (nginx, PHP-FPM, sysctl): `print(parse(x)) == x` for any bytes, including the
//!   error-recovered trees; no panic; every span in bounds, ordered, without overlap, nodes
//!   properly nested. Inputs are random bytes, token soups biased to each grammar's special
//!   bytes, and splices of real corpus files (`../shared/corpus`).
//! * Edit application (`fix::apply`): `choose` never takes conflicting edits; `splice` changes
//!   only the chosen ranges; splicing nothing is the identity.
//! * The fixer, on files built from realistic directives: fixing twice equals fixing once, a
//!   file without syntax errors keeps none, a file with syntax errors is left alone.
//! * `tls::expand` never panics and lists a suite at most once.
//!
//! The checks themselves live in `fuzz/checks.rs`, shared with the fuzz targets
//! (`scripts/fuzz.sh`); `tests/regressions/*.bin` are fuzzer findings run through the same
//! checks by the target named in the file name.
//!
//! The runs are deterministic (a fixed seed) so the suite does not fail at random in CI. To
//! explore: `PROPTEST_RNG_SEED=random PROPTEST_CASES=5000 cargo test --release --test
//! properties`. A failure prints the shrunk input: keep it as a regression file.

#[allow(dead_code)]
#[path = "../fuzz/checks.rs"]
mod checks;

use lemplint::fix::apply::{choose, conflicts, splice};
use lemplint::fix::{Edit, Fix};
use lemplint::source::{Shared, SourceFile, Span};
use proptest::prelude::*;
use proptest::sample::{select, Index};
use proptest::strategy::ValueTree;
use proptest::test_runner::RngSeed;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

// ---------------------------------------------------------------------------------------------
// Configuration
// ---------------------------------------------------------------------------------------------

/// `cases` cases (or `PROPTEST_CASES`), a fixed seed unless `PROPTEST_RNG_SEED` is set
/// (`random` for a fresh one), and no failure files written into the repository.
fn config(cases: u32) -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(cases);
    let rng_seed = match std::env::var("PROPTEST_RNG_SEED").ok().as_deref() {
        Some("random") => RngSeed::Random,
        Some(n) => n
            .parse()
            .map_or(RngSeed::Fixed(0x1e3b_0010), RngSeed::Fixed),
        None => RngSeed::Fixed(0x1e3b_0010),
    };
    ProptestConfig {
        cases,
        rng_seed,
        failure_persistence: None,
        max_shrink_iters: 4096,
        ..ProptestConfig::default()
    }
}

fn ok(check: Result<(), String>) -> Result<(), TestCaseError> {
    check.map_err(TestCaseError::fail)
}

// ---------------------------------------------------------------------------------------------
// Corpus samples
// ---------------------------------------------------------------------------------------------

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus")
}

fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        match e.file_type() {
            Ok(t) if t.is_dir() => files_under(&p, out),
            Ok(t) if t.is_file() => out.push(p),
            _ => {}
        }
    }
}

/// A few real files of one kind (`nginx`, `php-fpm`, `sysctl`): the crossplane fixtures
/// (Lua blocks, odd quoting, latin-1) and an even sample of the rest, at most 16 KiB each.
/// Falls back to a built-in file when the corpus is not there.
fn corpus(kind: &str) -> &'static [Vec<u8>] {
    static NGINX: OnceLock<Vec<Vec<u8>>> = OnceLock::new();
    static FPM: OnceLock<Vec<Vec<u8>>> = OnceLock::new();
    static SYSCTL: OnceLock<Vec<Vec<u8>>> = OnceLock::new();
    let (cell, fallback): (_, &[u8]) = match kind {
        "nginx" => (
            &NGINX,
            b"http {\n  server { listen 80; location / { root \"/a b\"; } }\n}\n",
        ),
        "php-fpm" => (
            &FPM,
            b"[www]\nuser = www-data\npm = dynamic\nphp_value[x] = \"1\" ; c\n",
        ),
        _ => (
            &SYSCTL,
            b"# c\nnet.core.somaxconn = 1024\n-net.ipv4.tcp_tw_recycle = 0\n",
        ),
    };
    cell.get_or_init(|| {
        let mut all = Vec::new();
        files_under(&corpus_dir().join(kind), &mut all);
        all.retain(|p| std::fs::metadata(p).is_ok_and(|m| m.len() <= 16 << 10));
        all.sort();
        let stride = (all.len() / 16).max(1);
        let mut out: Vec<Vec<u8>> = all
            .iter()
            .enumerate()
            .filter(|(i, p)| i % stride == 0 || p.to_string_lossy().contains("crossplane/tests"))
            .filter_map(|(_, p)| std::fs::read(p).ok())
            .collect();
        if out.is_empty() {
            out.push(fallback.to_vec());
        }
        out
    })
}

/// Fragments of corpus files of `kind` (any start, up to 400 bytes each) glued together with
/// a few of the grammar's special pieces.
fn corpus_splice(
    kind: &'static str,
    glue: &'static [&'static str],
) -> impl Strategy<Value = Vec<u8>> {
    (
        prop::collection::vec((any::<Index>(), any::<Index>(), 0usize..400), 1..6),
        prop::collection::vec(select(glue), 0..6),
    )
        .prop_map(move |(frags, glue)| {
            let files = corpus(kind);
            let mut out = Vec::new();
            for (k, (file, start, len)) in frags.into_iter().enumerate() {
                let f = file.get(files);
                let s = start.index(f.len() + 1);
                out.extend_from_slice(&f[s..(s + len).min(f.len())]);
                if let Some(g) = glue.get(k) {
                    out.extend_from_slice(g.as_bytes());
                }
            }
            out
        })
}

// ---------------------------------------------------------------------------------------------
// Byte-level generators
// ---------------------------------------------------------------------------------------------

const NGINX_SPECIAL: &[&str] = &[
    "{", "}", ";", "#", "\"", "'", "\\", "$", "(", ")", "\n", "\r", "\t", " ", "\r\n", "${", "$x",
    "\\\n", "\\\"", "\\'", "\"}", "\";", "\"x\"", "'x'", "#c\n", " {", "}\n", ";\n",
];
const NGINX_WORDS: &[&str] = &[
    "server",
    "location",
    "http",
    "events",
    "map",
    "types",
    "geo",
    "split_clients",
    "charset_map",
    "if",
    "listen",
    "server_tokens",
    "include",
    "content_by_lua_block",
    "init_by_lua_block",
    "--[[",
    "]]",
    "[==[",
    "]=]",
    "--",
    "a",
    "x",
    "\u{feff}",
    "\u{e9}",
    "\u{0}",
    "\u{b}",
    "\u{c}",
    "~",
    "=",
    "/",
    "*",
    ":",
    "@",
    "!",
];
const FPM_SPECIAL: &[&str] = &[
    "[", "]", "=", ";", "#", "\"", "'", "\\", "$", "{", "}", "(", ")", "|", "&", "^", "~", "!",
    "\n", "\r", "\t", " ", "\r\n", "\0", "${", "${X}", "\\\"", "\"x\"", "'x'", "[]",
];
const FPM_WORDS: &[&str] = &[
    "www",
    "global",
    "pm",
    "pm.max_children",
    "listen",
    "include",
    "php_value",
    "php_admin_value[memory_limit]",
    "env[PATH]",
    "yes",
    "no",
    "null",
    "none",
    "true",
    "E_ALL",
    "E_ALL & ~E_NOTICE",
    "PHP_VERSION",
    "5",
    "128M",
    "1.5G",
    "<?xml",
    "<configuration>",
    "\u{feff}",
    "\u{e9}",
    "$pool",
    "extends",
    "0x1F",
    "-1",
];
const SYSCTL_SPECIAL: &[&str] = &[
    "=", ".", "/", "-", "#", ";", "*", "?", "[", "]", "\n", "\r", "\t", " ", "\r\n", "\0", "\u{b}",
    "\u{c}", "..", "//", "./", "= ", " = ",
];
const SYSCTL_WORDS: &[&str] = &[
    "net",
    "core",
    "somaxconn",
    "ipv4",
    "tcp_tw_recycle",
    "conf",
    "eth0",
    "all",
    "rp_filter",
    "vm",
    "swappiness",
    "kernel",
    "1024",
    "0",
    "1",
    "1024 65535",
    "# note",
    "\u{e9}",
];

/// One piece of a token soup: mostly the grammar's special bytes and words, some any byte.
fn piece(
    special: &'static [&'static str],
    words: &'static [&'static str],
) -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        5 => select(special).prop_map(|s| s.as_bytes().to_vec()),
        3 => select(words).prop_map(|s| s.as_bytes().to_vec()),
        2 => "[a-z_0-9.]{1,6}".prop_map(String::into_bytes),
        1 => any::<u8>().prop_map(|b| vec![b]),
    ]
}

fn soup(
    special: &'static [&'static str],
    words: &'static [&'static str],
    max: usize,
) -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(piece(special, words), 0..max).prop_map(|v| v.concat())
}

fn random_bytes() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(any::<u8>(), 0..512)
}

/// nginx reads through a 4096-byte buffer and errors on a token that fills it; OpenResty's
/// Lua reader shares that buffer. Words and Lua bodies around those sizes.
fn nginx_long() -> impl Strategy<Value = Vec<u8>> {
    let lua_piece = select(
        &[
            "\"s\"",
            "'s'",
            "\"\\\"\"",
            "-- c\n",
            "--[[ c ]]",
            "[[ s ]]",
            "[=[ s ]=]",
            "{",
            "}",
            "\n",
            "x = 1 ",
            "\\",
            "'",
            "\"",
        ][..],
    );
    prop_oneof![
        (
            select(&["", "\"", "'", "#", "a "][..]),
            4080usize..4110,
            select(NGINX_SPECIAL)
        )
            .prop_map(|(pre, n, post)| {
                let mut v = pre.as_bytes().to_vec();
                v.resize(pre.len() + n, b'a');
                v.extend_from_slice(post.as_bytes());
                v
            }),
        (
            select(
                &[
                    "content_by_lua_block",
                    "access_by_lua_block",
                    "x_by_lua_block"
                ][..]
            ),
            0usize..4200,
            prop::collection::vec(lua_piece, 0..12),
            select(&["}", "}}", "", "\n}\n"][..]),
        )
            .prop_map(|(name, pad, body, close)| {
                let mut v = format!("{name} {{").into_bytes();
                v.resize(v.len() + pad, b' ');
                v.extend(body.concat().bytes());
                v.extend_from_slice(close.as_bytes());
                v
            }),
    ]
}

fn nginx_input() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        2 => random_bytes(),
        4 => soup(NGINX_SPECIAL, NGINX_WORDS, 96),
        3 => corpus_splice("nginx", NGINX_SPECIAL),
        1 => nginx_long(),
    ]
}

fn fpm_input() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        2 => random_bytes(),
        4 => soup(FPM_SPECIAL, FPM_WORDS, 96),
        3 => corpus_splice("php-fpm", FPM_SPECIAL),
    ]
}

fn sysctl_input() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        2 => random_bytes(),
        4 => soup(SYSCTL_SPECIAL, SYSCTL_WORDS, 96),
        3 => corpus_splice("sysctl", SYSCTL_SPECIAL),
    ]
}

// ---------------------------------------------------------------------------------------------
// Parsers
// ---------------------------------------------------------------------------------------------

proptest! {
    #![proptest_config(config(512))]

    #[test]
    fn nginx_round_trips_with_well_formed_tree(src in nginx_input()) {
        ok(checks::nginx(&src))?;
    }

    #[test]
    fn nginx_crossplane_payload_builds(src in nginx_input()) {
        ok(checks::nginx_crossplane(&src))?;
    }

    #[test]
    fn fpm_round_trips_with_ordered_spans(src in fpm_input()) {
        ok(checks::fpm(&src))?;
    }

    #[test]
    fn sysctl_round_trips_with_ordered_spans(src in sysctl_input()) {
        ok(checks::sysctl(&src))?;
    }

    /// Each parser on the others' inputs (a file is not always what its name says).
    #[test]
    fn every_parser_round_trips_every_input(
        src in prop_oneof![nginx_input(), fpm_input(), sysctl_input()]
    ) {
        ok(checks::nginx(&src))?;
        ok(checks::fpm(&src))?;
        ok(checks::sysctl(&src))?;
    }
}

// ---------------------------------------------------------------------------------------------
// Edit application
// ---------------------------------------------------------------------------------------------

/// Two files and fixes over them: 0-7 fixes of 1-3 edits each, replacements and inserts
/// anywhere in a short text, so overlaps, shared insertion points and adjacency are common.
#[derive(Debug, Clone)]
struct EditCase {
    texts: [Vec<u8>; 2],
    /// Per fix, its edits.
    fixes: Vec<Vec<RawEdit>>,
}

/// (file 0/1, start index, end index, is an insert, content).
type RawEdit = (usize, Index, Index, bool, String);

fn edit_case() -> impl Strategy<Value = EditCase> {
    let edit = (
        0usize..2,
        any::<Index>(),
        any::<Index>(),
        prop::bool::weighted(0.3),
        "[A-Z]{0,3}",
    );
    (
        prop::collection::vec(any::<u8>(), 0..24),
        prop::collection::vec(any::<u8>(), 0..24),
        prop::collection::vec(prop::collection::vec(edit, 1..4), 0..8),
    )
        .prop_map(|(a, b, fixes)| EditCase {
            texts: [a, b],
            fixes,
        })
}

impl EditCase {
    fn build(&self) -> ([Shared; 2], Vec<Fix>) {
        let files = [
            Shared::new(SourceFile::new("/a.conf", self.texts[0].clone())),
            Shared::new(SourceFile::new("/b.conf", self.texts[1].clone())),
        ];
        let fixes = self
            .fixes
            .iter()
            .map(|edits| {
                let edits = edits
                    .iter()
                    .map(|(f, s, e, insert, content)| {
                        let n = files[*f].text.len() + 1;
                        let (s, e) = (s.index(n) as u32, e.index(n) as u32);
                        let range = if *insert {
                            Span::empty(s)
                        } else {
                            Span::new(s.min(e), s.max(e))
                        };
                        Edit::replace(&files[*f], range, content.clone())
                    })
                    .collect();
                Fix::safe("t", edits)
            })
            .collect();
        (files, fixes)
    }
}

/// What applying non-conflicting in-range `edits` must give, computed byte by byte: at each
/// position, the contents of the edits starting there (inserts before replacements), then
/// the original byte unless an edit's range covers it.
fn reference_splice(text: &[u8], edits: &[&Edit]) -> Vec<u8> {
    let mut out = Vec::new();
    for pos in 0..=text.len() {
        let mut here: Vec<&&Edit> = edits
            .iter()
            .filter(|e| e.range.start as usize == pos)
            .collect();
        here.sort_by_key(|e| e.range.end);
        for e in here {
            out.extend_from_slice(e.content.as_bytes());
        }
        let covered = edits
            .iter()
            .any(|e| (e.range.start as usize..e.range.end as usize).contains(&pos));
        if pos < text.len() && !covered {
            out.push(text[pos]);
        }
    }
    out
}

proptest! {
    #![proptest_config(config(512))]

    #[test]
    fn conflicts_is_symmetric(a in (0u32..8, 0u32..8), b in (0u32..8, 0u32..8)) {
        let a = Span::new(a.0.min(a.1), a.0.max(a.1));
        let b = Span::new(b.0.min(b.1), b.0.max(b.1));
        prop_assert_eq!(conflicts(a, b), conflicts(b, a));
    }

    #[test]
    fn choose_never_selects_conflicting_edits(case in edit_case()) {
        let (_, fixes) = case.build();
        let refs: Vec<&Fix> = fixes.iter().collect();
        let chosen = choose(&refs);
        let mut sorted = chosen.clone();
        sorted.sort_unstable();
        sorted.dedup();
        prop_assert_eq!(sorted.len(), chosen.len(), "a fix chosen twice: {:?}", chosen);
        let edits: Vec<(usize, &Edit)> = chosen
            .iter()
            .flat_map(|&i| fixes[i].edits.iter().map(move |e| (i, e)))
            .collect();
        for (k, (i, a)) in edits.iter().enumerate() {
            for (j, b) in &edits[k + 1..] {
                prop_assert!(
                    a.file.path != b.file.path || !conflicts(a.range, b.range),
                    "chosen fixes {} and {} conflict: {:?} / {:?} in {}",
                    i, j, a.range, b.range, a.file.path.display()
                );
            }
        }
        // A fix left out conflicts with itself or with a chosen one (choose is greedy, not lazy).
        for (i, fix) in fixes.iter().enumerate().filter(|(i, _)| !chosen.contains(i)) {
            let clash = |a: &Edit, b: &Edit| a.file.path == b.file.path && conflicts(a.range, b.range);
            let itself = fix.edits.iter().enumerate().any(|(k, a)| fix.edits[..k].iter().any(|b| clash(a, b)));
            let other = fix.edits.iter().any(|a| edits.iter().any(|(_, b)| clash(a, b)));
            prop_assert!(itself || other, "fix {} was left out without a conflict", i);
        }
    }

    #[test]
    fn splice_changes_only_the_chosen_ranges(case in edit_case()) {
        let (files, fixes) = case.build();
        let refs: Vec<&Fix> = fixes.iter().collect();
        let chosen = choose(&refs);
        for f in &files {
            let edits: Vec<&Edit> = chosen
                .iter()
                .flat_map(|&i| fixes[i].edits.iter())
                .filter(|e| e.file.path == f.path)
                .collect();
            let out = splice(&f.text, &edits);
            let expected = reference_splice(&f.text, &edits);
            prop_assert_eq!(&out, &expected, "{} with edits {:?}", f.path.display(),
                edits.iter().map(|e| (e.range, &e.content)).collect::<Vec<_>>());
            // Untouched prefix and suffix, and splicing nothing is the identity.
            let first = edits.iter().map(|e| e.range.start as usize).min().unwrap_or(f.text.len());
            let last = edits.iter().map(|e| e.range.end as usize).max().unwrap_or(f.text.len());
            prop_assert_eq!(&out[..first], &f.text[..first]);
            prop_assert!(out.ends_with(&f.text[last..]));
            prop_assert_eq!(splice(&out, &[]), out.clone());
            prop_assert_eq!(splice(&f.text, &[]), f.text.clone());
        }
    }

    /// Any edits at all, overlapping or past the end: `splice` skips what it cannot apply
    /// and never panics; with every edit past the end it returns the text unchanged.
    #[test]
    fn splice_survives_arbitrary_edits(
        text in prop::collection::vec(any::<u8>(), 0..16),
        raw in prop::collection::vec((0u32..24, 0u32..24, "[a-z]{0,2}"), 0..8),
    ) {
        let file = Shared::new(SourceFile::new("/a.conf", text.clone()));
        let edits: Vec<Edit> = raw
            .iter()
            .map(|(s, e, c)| Edit { file: file.clone(), range: Span { start: *s, end: *e }, content: c.clone() })
            .collect();
        let refs: Vec<&Edit> = edits.iter().collect();
        let _ = splice(&text, &refs);
        let past: Vec<&Edit> = edits.iter().filter(|e| e.range.start as usize > text.len()).collect();
        prop_assert_eq!(splice(&text, &past), text);
    }
}

// ---------------------------------------------------------------------------------------------
// The fixer on realistic files
// ---------------------------------------------------------------------------------------------

const NGX_SIMPLE: &[&str] = &[
    "server_tokens on;",
    "server_tokens off;",
    "server_tokens build;",
    "worker_processes 4;",
    "worker_processes auto;",
    "worker_processes 1;",
    "worker_connections 1024;",
    "worker_connections 65536;",
    "worker_rlimit_nofile 2048;",
    "worker_cpu_affinity 0001 0010;",
    "worker_cpu_affinity auto;",
    "gzip on;",
    "gzip_types text/html;",
    "gzip_types text/css text/html application/json;",
    "gzip_types text/html  text/html;",
    "root /var/www/html;",
    "index index.php index.html;",
    "listen 80;",
    "listen 443 ssl backlog=1024;",
    "listen [::]:80 backlog=70000;",
    "server_name example.com www.example.com;",
    "client_max_body_size 10m;",
    "keepalive_timeout 65;",
    "fastcgi_pass 127.0.0.1:9000;",
    "fastcgi_pass unix:/run/php/php8.2-fpm.sock;",
    "fastcgi_read_timeout 30s;",
    "fastcgi_split_path_info ^(.+\\.php)(/.+)$;",
    "ssl_ciphers HIGH:!aNULL:!MD5;",
    "ssl_protocols TLSv1.2 TLSv1.3;",
    "pid /run/nginx.pid;",
    "sendfile on;",
    "expires 30d;",
    "try_files $uri $uri/ =404;",
    "return 301 https://$host$request_uri;",
    "set $a \"b c\";",
    "add_header X-Frame-Options SAMEORIGIN always;",
    "default_type application/octet-stream;",
    "error_log /var/log/nginx/error.log warn;",
    "# comment",
    "# lemplint: ignore NGX022 reason",
];
const NGX_BLOCKS: &[&str] = &[
    "http",
    "server",
    "events",
    "location /",
    "location ~ \\.php$",
    "location ~ .php",
    "location ~* \\.php",
    "location ~ ^(.+\\.php)(.*)$",
    "location ~ \\.php(/|$)",
    "if ($request_method = POST)",
    "upstream php",
];

#[derive(Debug, Clone)]
enum NgxItem {
    Simple(&'static str, bool),
    Open(&'static str, bool),
    Close,
    /// A directive without its `;`: the file no longer parses.
    Broken,
}

fn nginx_file() -> impl Strategy<Value = Vec<u8>> {
    let item = prop_oneof![
        6 => (select(NGX_SIMPLE), prop::bool::weighted(0.2)).prop_map(|(s, c)| NgxItem::Simple(s, c)),
        2 => (select(NGX_BLOCKS), prop::bool::weighted(0.2)).prop_map(|(s, c)| NgxItem::Open(s, c)),
        2 => Just(NgxItem::Close),
        1 => prop::bool::weighted(0.15).prop_map(|b| if b { NgxItem::Broken } else { NgxItem::Close }),
    ];
    (
        prop::collection::vec(item, 0..40),
        prop::bool::ANY,
        select(&["  ", "\t", "    "][..]),
        // A file being edited: its open blocks are not closed yet.
        prop::bool::weighted(0.1),
    )
        .prop_map(|(items, crlf, indent, unclosed)| {
            let eol = if crlf { "\r\n" } else { "\n" };
            let mut out = format!("user www-data;{eol}");
            let mut depth = 0usize;
            let note = |c: bool| if c { " # note" } else { "" };
            for it in items {
                let pad = indent.repeat(depth);
                match it {
                    NgxItem::Simple(s, c) => out += &format!("{pad}{s}{}{eol}", note(c)),
                    NgxItem::Open(s, c) => {
                        out += &format!("{pad}{s} {{{}{eol}", note(c));
                        depth += 1;
                    }
                    NgxItem::Close if depth > 0 => {
                        depth -= 1;
                        out += &format!("{}}}{eol}", indent.repeat(depth));
                    }
                    NgxItem::Close => {}
                    NgxItem::Broken => out += &format!("{pad}listen 8080{eol}"),
                }
            }
            while depth > 0 && !unclosed {
                depth -= 1;
                out += &format!("{}}}{eol}", indent.repeat(depth));
            }
            out.into_bytes()
        })
}

const SYS_LINES: &[&str] = &[
    "net.core.somaxconn = 1024",
    "net.core.somaxconn = 1024 # note",
    "net.core.somaxconn=65535",
    "net/core/somaxconn = 4096",
    "net.ipv4.tcp_tw_recycle = 1",
    "net.ipv4.tcp_tw_recycle = 0",
    "-net.ipv4.tcp_tw_recycle = 1",
    "net.ipv4.tcp_tw_recycle=1 # old",
    "vm.swappiness = 10",
    "vm.swappiness = 10 ; note",
    "vm.swapiness = 10",
    "net.core.somaxcon = 1024",
    "fs.file-max = 100000",
    "fs.nr_open = 1048576",
    "net.ipv4.ip_local_port_range = 1024 65535",
    "net.ipv4.ip_local_port_range = 1024 65535 # wide",
    "net.ipv4.tcp_syncookies = 1 #on",
    "net.ipv4.conf.all.rp_filter = 1",
    "net.ipv4.conf.*.rp_filter = 2",
    "-net.ipv4.conf.eth0.rp_filter",
    "kernel.domainname = example.com # x",
    "net.core.netdev_max_backlog = 5000",
    "# comment",
    "; comment",
    "",
    "   ",
];

fn sysctl_file() -> impl Strategy<Value = Vec<u8>> {
    let line = prop_oneof![
        12 => select(SYS_LINES).prop_map(str::to_string),
        1 => Just("net.core.rmem_max".to_string()),
    ];
    (
        prop::collection::vec((line, select(&["", " ", "\t"][..])), 0..24),
        prop::bool::ANY,
        prop::bool::weighted(0.8),
    )
        .prop_map(|(lines, crlf, final_eol)| {
            let eol = if crlf { "\r\n" } else { "\n" };
            let mut out = format!("kernel.pid_max = 65536{eol}");
            for (l, pad) in lines {
                out += &format!("{pad}{l}{eol}");
            }
            if !final_eol {
                out.truncate(out.len() - eol.len());
            }
            out.into_bytes()
        })
}

const FPM_LINES: &[&str] = &[
    "pm = dynamic",
    "pm = static",
    "pm = ondemand",
    "pm.max_children = 5",
    "pm.max_children = 50 ; note",
    "pm.start_servers = 2",
    "pm.min_spare_servers = 1",
    "pm.max_spare_servers = 3",
    "pm.max_requests = 0",
    "pm.max_requests = 500",
    "pm.max_request = 500",
    "Pm.Max_Children = 5",
    "pm.max_childern = 5",
    "listen = /run/php/php8.2-fpm.sock",
    "listen = 127.0.0.1:9000",
    "listen.owner = www-data",
    "listen.mode = 0660",
    "user = www-data",
    "group = www-data",
    "php_value[memory_limit] = 128MB",
    "php_admin_value[upload_max_filesize] = 1.5G",
    "php_value[post_max_size] = \"64MB\" ; quoted",
    "php_flag[display_errors] = off",
    "request_terminate_timeout = 60",
    "request_terminate_timeout = 30s",
    "env[PATH] = /usr/bin",
    "# hash comment",
    "#comment",
    "  # indented hash",
    "; comment",
    "",
    "slowlog = /var/log/$pool.slow.log",
    "catch_workers_output = yes",
    "clear_env = no",
    "[global]",
    "[app]",
    "[www]",
    "error_log = /var/log/php-fpm.log",
];

fn fpm_file() -> impl Strategy<Value = Vec<u8>> {
    let line = prop_oneof![
        12 => select(FPM_LINES).prop_map(str::to_string),
        1 => Just("pm.max_children".to_string()),
    ];
    (
        prop::collection::vec((line, select(&["", " ", "\t"][..])), 0..24),
        prop::bool::ANY,
    )
        .prop_map(|(lines, crlf)| {
            let eol = if crlf { "\r\n" } else { "\n" };
            let mut out = format!("[www]{eol}");
            for (l, pad) in lines {
                out += &format!("{pad}{l}{eol}");
            }
            out.into_bytes()
        })
}

// Each case lints the file and fixes it twice (a few passes each): 2-4 ms in a debug
// build for nginx and PHP-FPM, about 25 ms for sysctl.
proptest! {
    #![proptest_config(config(128))]

    #[test]
    fn fixing_nginx_is_idempotent_and_keeps_it_parsable(src in nginx_file()) {
        prop_assume!(checks::stdin_kind(&src) == lemplint::stack::discover::FileKind::Nginx);
        ok(checks::lint_fix(&src))?;
    }

    #[test]
    fn fixing_fpm_is_idempotent_and_keeps_it_parsable(src in fpm_file()) {
        ok(checks::lint_fix(&src))?;
    }
}

proptest! {
    #![proptest_config(config(64))]

    #[test]
    fn fixing_sysctl_is_idempotent_and_keeps_it_parsable(src in sysctl_file()) {
        ok(checks::lint_fix(&src))?;
    }
}

/// The generators make files of the kind they are meant to (else the fixer tests above
/// would test another kind of file than they say).
#[test]
fn fix_generators_make_the_intended_kinds() {
    use lemplint::stack::discover::FileKind;
    let mut runner = proptest::test_runner::TestRunner::new(config(32));
    for _ in 0..32 {
        let n = nginx_file().new_tree(&mut runner).unwrap().current();
        let s = sysctl_file().new_tree(&mut runner).unwrap().current();
        let f = fpm_file().new_tree(&mut runner).unwrap().current();
        assert_eq!(
            checks::stdin_kind(&n),
            FileKind::Nginx,
            "{}",
            String::from_utf8_lossy(&n)
        );
        assert_eq!(
            checks::stdin_kind(&s),
            FileKind::Sysctl,
            "{}",
            String::from_utf8_lossy(&s)
        );
        assert_eq!(
            checks::stdin_kind(&f),
            FileKind::FpmPool,
            "{}",
            String::from_utf8_lossy(&f)
        );
    }
}

// ---------------------------------------------------------------------------------------------
// TLS cipher strings
// ---------------------------------------------------------------------------------------------

const CIPHER_WORDS: &[&str] = &[
    "ALL",
    "DEFAULT",
    "COMPLEMENTOFDEFAULT",
    "COMPLEMENTOFALL",
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
    "RSA",
    "kEDH",
    "kDHE",
    "EDH",
    "DHE",
    "ADH",
    "kEECDH",
    "kECDHE",
    "ECDH",
    "EECDH",
    "ECDHE",
    "AECDH",
    "aRSA",
    "aDSS",
    "DSS",
    "aECDSA",
    "ECDSA",
    "AES",
    "AES128",
    "AES256",
    "AESGCM",
    "AESCCM",
    "AESCCM8",
    "CHACHA20",
    "3DES",
    "DES",
    "RC4",
    "RC2",
    "IDEA",
    "SEED",
    "CAMELLIA",
    "ARIA",
    "MD5",
    "SHA1",
    "SHA",
    "SHA256",
    "SHA384",
    "PSK",
    "SRP",
    "CBC",
    "TLSv1",
    "TLSv1.2",
    "TLSv1.0",
    "SSLv3",
    "SSLv2",
    "SUITEB128",
    "SUITEB128ONLY",
    "SUITEB128C2",
    "SUITEB192",
    "@STRENGTH",
    "@SECLEVEL=",
    "@SECLEVEL=0",
    "@SECLEVEL=5",
    "kGOST",
    "FIPS",
    "KRB5",
    "kSRP",
    "aPSK",
];
const CIPHER_SEPARATORS: &[&str] = &[":", ",", " ", "+", "!", "-", "@", "=", ";", "\t", "0", "9"];

fn cipher_spec() -> impl Strategy<Value = String> {
    let names: Vec<&'static str> = lemplint::tls::SUITES.iter().map(|s| s.name).collect();
    let word = prop_oneof![
        4 => select(CIPHER_WORDS),
        3 => select(CIPHER_SEPARATORS),
        2 => select(names),
    ];
    prop_oneof![
        4 => prop::collection::vec(word, 0..24).prop_map(|v| v.concat()),
        1 => any::<String>(),
        1 => "[A-Za-z0-9:+!@=,. -]{0,40}",
    ]
}

proptest! {
    #![proptest_config(config(512))]

    #[test]
    fn cipher_expansion_never_panics(spec in cipher_spec()) {
        ok(checks::cipher(&spec))?;
    }
}

// ---------------------------------------------------------------------------------------------
// Fuzzer findings
// ---------------------------------------------------------------------------------------------

fn regressions_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/regressions")
}

/// Runs one regression file through its target's checks; a panic counts as a failure.
fn run_regression(name: &str) -> Result<(), String> {
    let data = std::fs::read(regressions_dir().join(name)).map_err(|e| format!("{name}: {e}"))?;
    let name = name.strip_suffix(".bin").unwrap_or(name).to_string();
    std::panic::catch_unwind(|| checks::regression(&name, &data))
        .unwrap_or_else(|p| {
            let msg = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            Err(format!("panicked: {msg}"))
        })
        .map_err(|e| format!("{name}: {e}"))
}

/// Every file of `tests/regressions/` (`<fuzz target>-<hash>.bin`) passes the checks of the
/// fuzz target that found it.
#[test]
fn regression_files_pass_their_checks() {
    let Ok(entries) = std::fs::read_dir(regressions_dir()) else {
        return;
    };
    let mut names: Vec<String> = entries
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".bin"))
        .collect();
    names.sort();
    let failed: Vec<String> = names
        .iter()
        .filter_map(|n| run_regression(n).err())
        .collect();
    assert!(
        failed.is_empty(),
        "{} of {} regression files fail:\n{}",
        failed.len(),
        names.len(),
        failed.join("\n")
    );
}

/// Reported bug (fuzz_lint_fix_stdin): `fix::edits::delete_directive` panics (`slice index
/// starts at N but ends at N-1`) when the directive to delete runs to the end of the file
/// and ends with a LF: a block left open (`gzip_types text/html {\n`) or a quoted word left
/// open (`root ;root "\n`). NGX023 and NGX010 build that fix while linting, so `lemplint
/// lint` crashes on such a file instead of reporting its syntax error. Fails until fixed.
#[test]
fn regression_delete_directive_at_end_of_file() {
    for name in [
        "fuzz_lint_fix_stdin-467688de.bin",
        "fuzz_lint_fix_stdin-769cb8d9.bin",
    ] {
        if let Err(e) = run_regression(name) {
            panic!("{e}");
        }
    }
}

proptest! {
    #![proptest_config(config(512))]

    /// `doctor` reads logs and kernel answers it does not control: any bytes are read
    /// without a panic (a line is a symptom or not; an answer parses or is refused).
    #[test]
    fn doctor_readers_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        use lemplint::doctor::{fastcgi, sockdiag, templates};
        let text = String::from_utf8_lossy(&bytes);
        for server in [templates::Server::Nginx, templates::Server::PhpFpm, templates::Server::Slowlog] {
            let _ = templates::matching(server, &text);
            let _ = templates::subject(server, &text);
        }
        let _ = templates::timestamp(&text);
        let _ = fastcgi::read_answer(&mut bytes.as_slice());
        let _ = fastcgi::parse_status(&text);
        let _ = sockdiag::parse_unix(&bytes);
        let _ = sockdiag::parse_inet(&bytes);
    }
}
