//! Differential test: the catalogue rules (NGX023-NGX027) against the real `nginx -t`.
//!
//! Each case is a file `case.conf` in a temporary prefix, included from a harness
//! `nginx.conf` at the level its top-level directives belong to (main, `http`, `server` or
//! `location`, chosen from the catalogue), with Debian's standard include files beside it
//! (`mime.types`, `fastcgi_params`, `snippets/`, …) and the dynamic modules installed here
//! loaded (ndk, lua, echo). lemplint lints the same directory, so contexts come through the
//! include exactly as nginx sees them.
//!
//! Part A: every corpus nginx file that `nginx -t` reads to the end (accepted, or failed
//! with an error that has no line, such as `no "events" section`) gets no finding of these
//! rules.
//!
//! Part B: seeded mutations of those files (drop, duplicate, move into another block,
//! rename by one letter, add an argument, remove an argument, a flag set to `yes`). nginx
//! stops at its first error:
//!
//! * one of these classes (`unknown directive`, `is not allowed here`, `invalid number of
//!   arguments`, `it must be "on" or "off"`, `is duplicate`) on line L: our first finding
//!   has nginx's message (ours may add `; did you mean …`) on line L;
//! * nginx reads the whole case: we report nothing;
//! * another error on line L (a missing file, `host not found`, an invalid parameter): we
//!   report nothing before line L (what comes after, nginx never read).
//!
//! Cases where nginx says `unknown directive` for a name the catalogue knows are left out:
//! this nginx (1.22.1, nginx-light) lacks that module or that version (the catalogue is
//! read from nginx's HEAD and the modules Debian ships). The agreement rate is printed with
//! every disagreement; the test fails below [`MIN_AGREEMENT`].
//!
//! Without nginx the test is skipped with a note, or fails when `CI=true`.

mod common;
use common::Rng;

use lemplint::analysis::catalogue;
use lemplint::engine::{collect, StackArgs};
use lemplint::syntax::nginx::{parse, BlockKind, Tree};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The measured rate is printed by the test; this is the floor it must stay above.
const MIN_AGREEMENT: f64 = 0.97;
/// Mutations generated in all (spread over the accepted corpus files).
const MUTATIONS: usize = 1200;
const CODES: [&str; 5] = ["NGX023", "NGX024", "NGX025", "NGX026", "NGX027"];

struct Nginx {
    bin: PathBuf,
    modules: Vec<PathBuf>,
}

/// What nginx said of a case.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Verdict {
    /// Read to the end (accepted, or an error without a line).
    Read,
    /// Stopped at an error of our classes: (message, line in case.conf).
    Ours(String, u32),
    /// Stopped at another error, on this line of case.conf.
    Other(String, u32),
    /// An error in the harness, or a module this nginx lacks: says nothing.
    Unusable(String),
}

impl Nginx {
    fn find() -> Option<Nginx> {
        let bin = common::nginx_binary()?;
        // ndk before lua (lua needs it); the others in any order. From the tests' own copy
        // (`scripts/nginx-modules.sh`), else the machine's.
        let modules = [
            "ndk_http_module.so",
            "ngx_http_lua_module.so",
            "ngx_http_echo_module.so",
        ]
        .iter()
        .filter_map(|m| common::nginx_module(&bin, m))
        .collect();
        Some(Nginx { bin, modules })
    }

    fn run(&self, prefix: &Path) -> Verdict {
        let out = common::nginx_test(&self.bin, prefix);
        if out.status.success() {
            return Verdict::Read;
        }
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        let Some(at) = stderr.find("[emerg] ") else {
            return Verdict::Unusable(stderr);
        };
        let rest = &stderr[at + 8..];
        let rest = rest.split_once(": ").map_or(rest, |(_, r)| r);
        let msg = rest.lines().next().unwrap_or("");
        let case = format!(" in {}/case.conf:", prefix.display());
        if let Some(p) = msg.rfind(&case) {
            let line = msg[p + case.len()..].trim().parse().unwrap_or(0);
            let m = msg[..p].to_string();
            if let Some(name) = unknown_name(&m) {
                if catalogue::is_known(name) {
                    return Verdict::Unusable(format!("this nginx lacks {name}"));
                }
            }
            return if is_ours(&m) {
                Verdict::Ours(m, line)
            } else {
                Verdict::Other(m, line)
            };
        }
        if msg.contains(" in ") && msg.contains(".conf:") {
            return Verdict::Unusable(msg.to_string());
        }
        Verdict::Read
    }
}

fn unknown_name(msg: &str) -> Option<&str> {
    msg.strip_prefix("unknown directive \"")?.strip_suffix('"')
}

fn is_ours(msg: &str) -> bool {
    msg.starts_with("unknown directive \"")
        || msg.ends_with("\" directive is not allowed here")
        || msg.starts_with("invalid number of arguments in \"")
        || msg.ends_with("it must be \"on\" or \"off\"")
        || msg.contains("\" directive is duplicate")
}

/// Where the case sits in the harness.
#[derive(Clone, Copy, Debug)]
enum Level {
    Main,
    Http,
    Server,
    Location,
}

/// The level a file's top-level directives belong to, by the catalogue: the outermost
/// level one of them is allowed only at or above.
fn level(tree: &Tree, src: &[u8]) -> Level {
    use catalogue::ctx::*;
    let mut level = Level::Location;
    for (id, d) in tree.directives() {
        if tree.node(id).parent != lemplint::syntax::nginx::ROOT {
            continue;
        }
        let name = tree.name(d).text(src);
        let c = catalogue::contexts(&name);
        if c == 0 {
            continue;
        }
        if c & !(MAIN | EVENTS | OTHER) == 0 {
            return Level::Main;
        }
        if c & (HTTP_SRV | HTTP_LOC) == 0 {
            level = Level::Http;
        } else if c & HTTP_LOC == 0 && !matches!(level, Level::Http) {
            level = Level::Server;
        }
    }
    level
}

/// Writes the harness and the case into `prefix`.
fn write_case(nginx: &Nginx, prefix: &Path, case: &[u8], level: Level, has_events: bool) {
    let mut main = String::new();
    for m in &nginx.modules {
        writeln!(main, "load_module {};", m.display()).unwrap();
    }
    writeln!(main, "pid {}/nginx.pid;", prefix.display()).unwrap();
    writeln!(main, "error_log {}/error.log;", prefix.display()).unwrap();
    let (open, close) = match level {
        Level::Main => ("", ""),
        Level::Http => ("http {\n", "}\n"),
        Level::Server => ("http {\nserver {\n", "}\n}\n"),
        Level::Location => ("http {\nserver {\nlocation / {\n", "}\n}\n}\n"),
    };
    if !matches!(level, Level::Main) || !has_events {
        main.push_str("events {}\n");
    }
    write!(main, "{open}include case.conf;\n{close}").unwrap();
    std::fs::write(prefix.join("nginx.conf"), main).unwrap();
    std::fs::write(prefix.join("case.conf"), case).unwrap();
}

/// Debian's standard include files, so `include fastcgi_params;` reads what it would.
fn copy_standard_files(prefix: &Path) {
    let etc = Path::new("/etc/nginx");
    for f in [
        "mime.types",
        "fastcgi_params",
        "fastcgi.conf",
        "proxy_params",
        "scgi_params",
        "uwsgi_params",
        "snippets/fastcgi-php.conf",
    ] {
        let from = etc.join(f);
        if from.is_file() {
            let to = prefix.join(f);
            std::fs::create_dir_all(to.parent().unwrap()).unwrap();
            std::fs::copy(&from, &to).unwrap();
        }
    }
}

/// Our findings in case.conf: (line nginx would print, message), in order.
fn ours(prefix: &Path, case: &[u8]) -> Vec<(u32, String)> {
    let args = StackArgs {
        paths: vec![prefix.to_path_buf()],
        isolated: true,
        ..Default::default()
    };
    let select: Vec<String> = CODES.iter().map(|c| c.to_string()).collect();
    let Ok((_, found)) = collect(&args, &select, &[], None) else {
        return Vec::new();
    };
    let tree = &parse(case).tree;
    let mut out: Vec<(u32, String)> = found
        .diagnostics
        .iter()
        .filter(|d| CODES.contains(&d.code.as_str()) && d.file.path.ends_with("case.conf"))
        .map(|d| (terminator_line(tree, case, d.span.start), d.message.clone()))
        .collect();
    out.sort();
    out
}

/// nginx reports an error on the line of the statement's `;` or `{`.
fn terminator_line(tree: &Tree, src: &[u8], at: u32) -> u32 {
    let mut line_of = at;
    for (id, d) in tree.directives() {
        let span = tree.node(id).span;
        if span.start <= at && at < span.end {
            line_of = match (d.semicolon(), d.block()) {
                (Some(s), _) => s.start,
                (None, Some(b)) => b.open().start,
                _ => span.end,
            };
        }
    }
    1 + src[..line_of as usize]
        .iter()
        .filter(|&&b| b == b'\n')
        .count() as u32
}

/// The outcome of one case.
enum Outcome {
    Agree,
    Disagree(String, String),
    Skipped,
}

fn compare(verdict: &Verdict, ours: &[(u32, String)]) -> Outcome {
    let first = ours.first();
    match verdict {
        Verdict::Unusable(_) => Outcome::Skipped,
        Verdict::Read => match first {
            None => Outcome::Agree,
            Some((l, m)) => Outcome::Disagree(
                format!("we report {}", class(m)),
                format!("nginx reads it all; we say {m:?} at {l}"),
            ),
        },
        Verdict::Ours(msg, line) => match first {
            Some((l, m)) if l == line && same(m, msg) => Outcome::Agree,
            Some((l, m)) => Outcome::Disagree(
                format!("nginx {} / we {}", class(msg), class(m)),
                format!("nginx {msg:?} at {line}; we {m:?} at {l}"),
            ),
            None => Outcome::Disagree(
                format!("nginx {} / we nothing", class(msg)),
                format!("nginx {msg:?} at {line}; we nothing"),
            ),
        },
        Verdict::Other(msg, line) => match first {
            Some((l, m)) if l < line => Outcome::Disagree(
                format!("we report {} before nginx's other error", class(m)),
                format!("nginx {msg:?} at {line}; we {m:?} at {l}"),
            ),
            _ => Outcome::Agree,
        },
    }
}

fn same(ours: &str, nginx: &str) -> bool {
    ours == nginx
        || ours
            .split_once("; did you mean")
            .is_some_and(|(m, _)| m == nginx)
        || (ours.ends_with(" directive is duplicate") && nginx.starts_with(ours))
}

fn class(msg: &str) -> &'static str {
    if msg.starts_with("unknown directive") {
        "unknown"
    } else if msg.ends_with("is not allowed here") {
        "not-allowed"
    } else if msg.starts_with("invalid number of arguments") {
        "arg-count"
    } else if msg.ends_with("\"on\" or \"off\"") {
        "flag"
    } else if msg.contains("is duplicate") {
        "duplicate"
    } else {
        "other"
    }
}

const KINDS: [&str; 7] = [
    "drop",
    "duplicate",
    "move",
    "rename",
    "add-arg",
    "remove-arg",
    "flag-yes",
];

/// One mutation of `src`: (kind, new text), or None when the kind does not apply.
fn mutate(rng: &mut Rng, src: &[u8], kind: &str) -> Option<Vec<u8>> {
    let parsed = parse(src);
    let tree = &parsed.tree;
    // Directives outside word lists and Lua, with their spans.
    let dirs: Vec<_> = tree
        .directives()
        .filter(|(id, _)| {
            tree.ancestors(*id).all(|a| {
                tree.directive(a)
                    .and_then(|d| d.block())
                    .is_none_or(|b| b.kind == BlockKind::Directives)
            })
        })
        .collect();
    // A flag is set to `yes` only where the directive is an on/off one.
    let pool: Vec<_> = if kind == "flag-yes" {
        dirs.iter()
            .copied()
            .filter(|(_, d)| {
                let name = tree.name(d).text(src);
                tree.args(d).len() == 1 && catalogue::lookup(&name).iter().any(|e| e.is_flag())
            })
            .collect()
    } else {
        dirs.clone()
    };
    if pool.is_empty() {
        return None;
    }
    let (id, d) = pool[rng.below(pool.len())];
    let span = tree.node(id).span;
    let text = &src[span.start as usize..span.end as usize];
    let splice = |at: usize, del: usize, ins: &[u8]| {
        let mut out = src[..at].to_vec();
        out.extend_from_slice(ins);
        out.extend_from_slice(&src[at + del..]);
        out
    };
    let args = tree.args(d);
    let end_mark = d
        .semicolon()
        .map(|s| s.start)
        .or_else(|| d.block().map(|b| b.open().start))?;
    match kind {
        "drop" => Some(splice(span.start as usize, span.len() as usize, b"")),
        "duplicate" => {
            let mut ins = b"\n".to_vec();
            ins.extend_from_slice(text);
            Some(splice(span.end as usize, 0, &ins))
        }
        "move" => {
            if d.block().is_some() {
                return None;
            }
            // Into another block (or the top), right after its `{`.
            let blocks: Vec<u32> = dirs
                .iter()
                .filter_map(|(b, bd)| {
                    let blk = bd.block()?;
                    (blk.kind == BlockKind::Directives && *b != tree.node(id).parent)
                        .then(|| blk.open().end)
                })
                .chain(std::iter::once(0))
                .collect();
            let to = blocks[rng.below(blocks.len())] as usize;
            let mut ins = b"\n".to_vec();
            ins.extend_from_slice(text);
            ins.push(b'\n');
            let removed = splice(span.start as usize, span.len() as usize, b"");
            let at = if to > span.start as usize {
                to - span.len() as usize
            } else {
                to
            };
            let mut out = removed[..at].to_vec();
            out.extend_from_slice(&ins);
            out.extend_from_slice(&removed[at..]);
            Some(out)
        }
        "rename" => {
            let name = tree.name(d).raw();
            if name.len() < 2 {
                return None;
            }
            let at = name.start as usize + rng.below(name.len() as usize);
            let letters = b"abcdefghijklmnopqrstuvwxyz_";
            let mut c = letters[rng.below(letters.len())];
            if c == src[at] {
                c = if c == b'a' { b'e' } else { b'a' };
            }
            match rng.below(3) {
                0 => Some(splice(at, 1, &[c])),
                1 => Some(splice(at, 0, &[c])),
                _ => Some(splice(at, 1, b"")),
            }
        }
        "add-arg" => {
            let words: [&[u8]; 4] = [b" on", b" 1", b" x", b" /tmp"];
            Some(splice(end_mark as usize, 0, words[rng.below(words.len())]))
        }
        "remove-arg" => {
            let last = args.last()?;
            let from = if args.len() > 1 {
                args[args.len() - 2].raw().end
            } else {
                tree.name(d).raw().end
            };
            Some(splice(from as usize, (last.raw().end - from) as usize, b""))
        }
        "flag-yes" => {
            let [arg] = args else { return None };
            Some(splice(
                arg.raw().start as usize,
                arg.raw().len() as usize,
                b"yes",
            ))
        }
        _ => None,
    }
}

fn missing(what: &str) {
    if std::env::var("CI").as_deref() == Ok("true") {
        panic!("{what} is required on CI (CI=true) for tests/catalogue_binary.rs");
    }
    eprintln!("note: {what} not found; skipping (set CI=true to make this an error)");
}

/// The corpus's nginx files that parse and are small enough, with their level.
fn corpus_cases(dir: &Path) -> Vec<(String, Vec<u8>, Level, bool)> {
    let mut out = Vec::new();
    for path in common::files_under(dir) {
        let Ok(bytes) = std::fs::read(&path) else {
            continue;
        };
        if bytes.len() > 64 * 1024 {
            continue;
        }
        let parsed = parse(&bytes);
        if !parsed.errors.is_empty() || parsed.tree.directives().next().is_none() {
            continue;
        }
        let has_events = parsed.tree.directives().any(|(id, d)| {
            parsed.tree.node(id).parent == lemplint::syntax::nginx::ROOT
                && parsed.tree.name(d).is(&bytes, "events")
        });
        let level = level(&parsed.tree, &bytes);
        let name = path
            .strip_prefix(dir)
            .unwrap_or(&path)
            .display()
            .to_string();
        out.push((name, bytes, level, has_events));
    }
    out
}

struct Tally {
    agree: usize,
    total: usize,
    skipped: usize,
    classes: BTreeMap<String, Vec<String>>,
}

impl Tally {
    fn new() -> Tally {
        Tally {
            agree: 0,
            total: 0,
            skipped: 0,
            classes: BTreeMap::new(),
        }
    }

    fn add(&mut self, name: &str, outcome: Outcome) {
        match outcome {
            Outcome::Skipped => self.skipped += 1,
            Outcome::Agree => {
                self.agree += 1;
                self.total += 1;
            }
            Outcome::Disagree(class, detail) => {
                self.total += 1;
                self.classes
                    .entry(class)
                    .or_default()
                    .push(format!("{name}: {detail}"));
            }
        }
    }

    fn rate(&self) -> f64 {
        self.agree as f64 / self.total.max(1) as f64
    }

    fn report(&self, what: &str) -> String {
        let mut s = format!(
            "{what}: {}/{} agree ({:.1}%), {} left out\n",
            self.agree,
            self.total,
            100.0 * self.rate(),
            self.skipped
        );
        for (class, cases) in &self.classes {
            writeln!(s, "  {class}: {}", cases.len()).unwrap();
            for c in cases.iter().take(5) {
                writeln!(s, "    {c}").unwrap();
            }
        }
        s
    }
}

/// Runs `cases` (name, text, level, has events) through nginx and lemplint on two threads.
fn run_all(
    nginx: &Nginx,
    cases: &[(String, Vec<u8>, Level, bool)],
) -> Vec<(Verdict, Vec<(u32, String)>)> {
    let threads = 2;
    let chunk = cases.len().div_ceil(threads).max(1);
    std::thread::scope(|s| {
        let handles: Vec<_> = cases
            .chunks(chunk)
            .map(|part| {
                s.spawn(move || {
                    let dir = tempfile::tempdir().unwrap();
                    let prefix = dir.path();
                    copy_standard_files(prefix);
                    part.iter()
                        .map(|(_, text, level, events)| {
                            write_case(nginx, prefix, text, *level, *events);
                            (nginx.run(prefix), ours(prefix, text))
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    })
}

#[test]
#[cfg_attr(
    lemplint_no_corpus,
    ignore = "../shared/corpus is missing (a fresh clone: see the README's corpus note; after adding it, touch build.rs)"
)]
fn catalogue_rules_agree_with_nginx() {
    let Some(nginx) = Nginx::find() else {
        missing("nginx (/usr/sbin/nginx, PATH, or $LEMPLINT_NGINX)");
        return;
    };
    if nginx.modules.len() < 3 {
        missing("Debian's ndk, lua and echo modules (scripts/nginx-modules.sh unpacks them into target/nginx-modules)");
    }
    let Some(corpus) = common::corpus("nginx") else {
        return;
    };
    let started = std::time::Instant::now();
    let cases = corpus_cases(&corpus);

    // Part A: what nginx reads to the end, we leave alone.
    let results = run_all(&nginx, &cases);
    let mut part_a = Tally::new();
    let mut bases = Vec::new();
    for (case, (verdict, ours)) in cases.iter().zip(&results) {
        if *verdict == Verdict::Read {
            part_a.add(&case.0, compare(verdict, ours));
            if ours.is_empty() {
                bases.push(case.clone());
            }
        }
    }

    // Part B: seeded mutations of those files.
    let mut rng = Rng(0x5eed_ca7a_109e);
    let mut mutants = Vec::new();
    let mut kinds = Vec::new();
    let mut tries = 0;
    while mutants.len() < MUTATIONS && !bases.is_empty() && tries < MUTATIONS * 4 {
        tries += 1;
        let (name, text, level, events) = &bases[rng.below(bases.len())];
        let kind = KINDS[rng.below(KINDS.len())];
        if let Some(m) = mutate(&mut rng, text, kind) {
            kinds.push(kind);
            mutants.push((format!("{name} ({kind})"), m, *level, *events));
        }
    }
    let results = run_all(&nginx, &mutants);
    let mut part_b = Tally::new();
    let mut per_kind: BTreeMap<&str, Tally> = BTreeMap::new();
    let mut of_our_classes = 0;
    let mut exact = 0;
    for ((case, (verdict, ours)), kind) in mutants.iter().zip(&results).zip(&kinds) {
        if matches!(verdict, Verdict::Ours(..)) {
            of_our_classes += 1;
            if matches!(compare(verdict, ours), Outcome::Agree) {
                exact += 1;
            }
        }
        part_b.add(&case.0, compare(verdict, ours));
        per_kind
            .entry(kind)
            .or_insert_with(Tally::new)
            .add(&case.0, compare(verdict, ours));
    }
    let mut report = part_a.report(&format!(
        "Part A ({} corpus files, {} read to the end by nginx)",
        cases.len(),
        part_a.total + part_a.skipped
    ));
    report += &part_b.report(&format!(
        "Part B ({} mutations; nginx stopped at one of our classes in {of_our_classes}, \
         where our first finding is nginx's error on its line in {exact})",
        mutants.len()
    ));
    for (kind, t) in &per_kind {
        writeln!(
            report,
            "  {kind}: {}/{} ({:.1}%)",
            t.agree,
            t.total,
            100.0 * t.rate()
        )
        .unwrap();
    }
    eprintln!("{report}in {:.1?}", started.elapsed());
    assert!(
        part_a.classes.is_empty(),
        "findings on files nginx accepts:\n{report}"
    );
    assert!(
        mutants.len() >= MUTATIONS / 2 && part_b.total >= MUTATIONS / 3,
        "too few conclusive mutations:\n{report}"
    );
    assert!(
        part_b.rate() >= MIN_AGREEMENT,
        "agreement {:.3} < {MIN_AGREEMENT}:\n{report}",
        part_b.rate()
    );
}
