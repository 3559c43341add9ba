//! Differential test: location matching against the real nginx.
//!
//! Seeded random servers mix every kind of location (exact, prefix, `^~`, `~`, `~*`,
//! nested prefixes and regexes, named, `internal`, overlapping prefixes and case variants,
//! names ending in `/` with a `proxy_pass` for nginx's redirect of the name without it).
//! Each location answers `return 200 "<id>"` and sets `add_header X-Loc <id> always`, so
//! even its 404 (an `internal` one) and its 301 (the redirect) say which location nginx
//! chose; the server level has neither and a `root` that does not exist, so a request no
//! location takes is a 404 without `X-Loc`. Half the servers listen on a second port whose
//! default server has `merge_slashes off`, which nginx applies to every request there; some
//! other servers set `merge_slashes` the other way, which nginx ignores.
//!
//! Real nginx serves the configuration (`-g 'daemon off; master_process off;'`, everything
//! it writes inside a temporary prefix, 127.0.0.1 on free ports), and generated request
//! targets (from the locations' names: percent-encoding, `//`, `/./`, `/../` and `..` above
//! the root, case changes, trailing slashes, suffixes, query strings, fragments, `%00`, bad
//! escapes, bytes above 0x7F, names longer than 255 bytes) go to it as raw HTTP/1.0
//! requests over a `TcpStream`. Each answer (status, `X-Loc`, and for a 301 the `Location`
//! path) is compared with `ServerLocations::select_request`. Any disagreement fails the
//! test; a regex the PCRE module cannot decide would be counted, and none is expected.
//!
//! A second test, [`corpus_location_sets_agree_with_nginx`], does the same with the
//! location sets of the corpus's real servers (kinds, names, nesting and regexes as
//! written; the bodies replaced by the id answers), asked about common paths (`/.git/config`,
//! `/uploads/x.php`, `/static../etc/passwd`…) and variants of each location's name.
//!
//! Without nginx the tests are skipped with a note, or fail when `CI=true` (so does the
//! corpus test without `../shared/corpus`). Verified with nginx 1.22.1 (Debian).

mod common;
use common::{free_port, Rng};

use lemplint::analysis::locations::{normalise, Kind, Locations, Outcome, ServerLocations};
use lemplint::stack::expanded::{Expanded, View};
use lemplint::stack::fs::DumpFs;
use lemplint::stack::nginx::{load, LoadOptions, NginxConfig};
use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// How many servers, and how many request targets each.
const SERVERS: usize = 40;
const TARGETS_PER_SERVER: usize = 200;

/// Path segments, overlapping and in several cases, so prefixes nest and collide.
const SEGMENTS: &[&str] = &[
    "a", "b", "ab", "A", "img", "Img", "static", "x", "api", "b.php", "1.gif", "x.PHP", "c", "a.b",
    "..a", "static..",
];

/// Location regexes: anchored and not, alternation, classes, counted repeats, lookahead,
/// captures, inline options, bytes above 0x7F. Quoted in the configuration, so none holds
/// `\t`, `\n`, `\r`, `\\`, `\"` or `\'` (which the quoted-string reader would change).
const REGEXES: &[&str] = &[
    r"\.php$",
    r"\.PHP$",
    r"\.(gif|jpg|jpeg)$",
    r"^/a",
    r"^/a/",
    r"^/A/",
    r"/b",
    r"^/img/.*\.gif$",
    r"(?i)^/Img",
    r"^/ab?/",
    r"^/(a|b)/x",
    r"/$",
    r"^/x/(.*)$",
    r"^/[a-c]+$",
    r"\d{2}",
    r"^/static\.\.",
    r"^/a/b/c",
    r"/\.",
    r"^/$",
    r"\.ph(p|tml)",
    r"^/a(?=/b)",
    r"(?<n>x)\.php$",
    r"[^/]\.gif$",
    r"^/.{3}$",
    r"\?",
    r"%",
    r"\xC3\xA9",
    r"^/api/v[0-9]+/",
    r"^(?!/static)/s",
    r"\.(?:PHP|Gif)$",
];

struct Gen {
    rng: Rng,
    next_id: usize,
}

#[derive(Clone)]
enum Parent {
    Server,
    Static(String),
    Regex(String),
}

impl Gen {
    fn id(&mut self) -> String {
        self.next_id += 1;
        format!("L{}", self.next_id)
    }

    fn path(&mut self, parts: usize) -> String {
        let mut p = String::new();
        for _ in 0..parts {
            p.push('/');
            if self.rng.chance(3) {
                // Past 255 bytes: nginx 1.22 keeps a tree node's length in one byte.
                let n = 240 + self.rng.below(40);
                p.push_str(&"l".repeat(n));
            } else {
                let segment = self.rng.pick(SEGMENTS);
                p.push_str(segment);
            }
        }
        if p.is_empty() || self.rng.chance(40) {
            p.push('/');
        }
        p
    }

    /// The locations of one level, appended to `out`; static names go to `names`.
    fn level(&mut self, parent: &Parent, depth: usize, out: &mut String, names: &mut Vec<String>) {
        let count = match (parent, depth) {
            (Parent::Server, _) => 4 + self.rng.below(12),
            _ => self.rng.below(4),
        };
        let mut taken: HashSet<(bool, String)> = HashSet::new();
        let indent = "  ".repeat(depth + 1);
        for _ in 0..count {
            let roll = self.rng.below(100);
            // The static name this parent allows, if any.
            let static_name = match parent {
                Parent::Server => Some(if self.rng.chance(15) {
                    "/".to_string()
                } else {
                    let n = 1 + self.rng.below(3);
                    self.path(n)
                }),
                Parent::Static(p) => Some(if self.rng.chance(10) {
                    p.clone()
                } else {
                    let n = self.rng.below(2);
                    let extra = self.path(n);
                    let extra = if p.ends_with('/') {
                        &extra[1..]
                    } else {
                        &extra
                    };
                    format!("{p}{extra}")
                }),
                // Inside a regex location a static name must start with the regex's text:
                // only the regexes that are a plain path can have such children.
                Parent::Regex(re) if re.starts_with('/') && !re.contains(['\\', '$', '.']) => {
                    let n = self.rng.below(2);
                    let extra = self.path(n);
                    Some(format!("{re}{}", &extra[1..]))
                }
                Parent::Regex(_) => None,
            };
            let (modifier, name) = match (roll, static_name) {
                (0..=39, Some(n)) => ("", n),
                (40..=49, Some(n)) => ("^~", n),
                (50..=62, Some(n)) => ("=", n),
                (63..=66, _) if matches!(parent, Parent::Server) => {
                    ("", format!("@n{}", self.rng.below(5)))
                }
                _ => {
                    let re = (*self.rng.pick(REGEXES)).to_string();
                    (if self.rng.chance(50) { "~" } else { "~*" }, re)
                }
            };
            let is_regex = modifier.starts_with('~');
            let key = (modifier == "=", name.clone());
            if !is_regex && !taken.insert(key) {
                continue;
            }
            if !is_regex && !name.starts_with('@') {
                names.push(name.clone());
            }
            let id = self.id();
            let quoted = if is_regex {
                format!("\"{name}\"")
            } else {
                name.clone()
            };
            let _ = writeln!(out, "{indent}location {modifier} {quoted} {{");
            let _ = writeln!(out, "{indent}  add_header X-Loc {id} always;");
            if self.rng.chance(10) {
                let _ = writeln!(out, "{indent}  internal;");
            }
            if !is_regex && name.ends_with('/') && self.rng.chance(35) {
                let _ = writeln!(out, "{indent}  proxy_pass http://127.0.0.1:9;");
            }
            let _ = writeln!(out, "{indent}  return 200 \"{id}\";");
            let nests = modifier != "=" && !name.starts_with('@') && depth < 2;
            if nests && self.rng.chance(30) {
                let p = if is_regex {
                    Parent::Regex(name.clone())
                } else {
                    Parent::Static(name.clone())
                };
                self.level(&p, depth + 1, out, names);
            }
            let _ = writeln!(out, "{indent}}}");
        }
    }

    /// A request target near one of `names`.
    fn target(&mut self, names: &[String]) -> Vec<u8> {
        let mut t: Vec<u8> = if !names.is_empty() && self.rng.chance(75) {
            self.rng.pick(names).as_bytes().to_vec()
        } else {
            let n = 1 + self.rng.below(3);
            self.path(n).into_bytes()
        };
        for _ in 0..self.rng.below(4) {
            match self.rng.below(17) {
                0 => {
                    let s = self.rng.pick(SEGMENTS).to_string();
                    t.extend_from_slice(format!("/{s}").as_bytes());
                }
                1 => t.extend_from_slice(
                    self.rng
                        .pick(&[".php", ".gif", ".PHP", ".Gif", "x", "12"])
                        .as_bytes(),
                ),
                2 => {
                    if t.len() > 1 {
                        t.pop();
                    }
                }
                3 => t.push(b'/'),
                4 => {
                    // Toggle the case of one letter.
                    let i = self.rng.below(t.len());
                    if t[i].is_ascii_alphabetic() {
                        t[i] ^= 0x20;
                    }
                }
                5 => self.insert_at_slash(&mut t, b"/"),
                6 => self.insert_at_slash(&mut t, b"/."),
                7 => self.insert_at_slash(&mut t, b"/zz/.."),
                8 => {
                    let ups: [&[u8]; 4] = [b"/..", b"/%2e%2e", b"/.%2E", b"/a/../.."];
                    let up = *self.rng.pick(&ups);
                    t.splice(0..0, up.iter().copied());
                }
                9 | 10 => {
                    // Percent-encode one byte (a slash or a dot too), in either case.
                    let i = 1 + self.rng.below(t.len().max(2) - 1);
                    if i < t.len() && t[i] != b'%' {
                        let enc = if self.rng.chance(50) {
                            format!("%{:02X}", t[i])
                        } else {
                            format!("%{:02x}", t[i])
                        };
                        t.splice(i..i + 1, enc.bytes());
                    }
                }
                11 => t.extend_from_slice(
                    self.rng
                        .pick(&["?q=1", "?a=/../b", "?", "?x#y", "%3Fq"])
                        .as_bytes(),
                ),
                12 => t.extend_from_slice(self.rng.pick(&["#f", "#/../x", "%23f"]).as_bytes()),
                13 => t.extend_from_slice(
                    self.rng
                        .pick(&["%00", "%zz", "%4", "%25", "%2F"])
                        .as_bytes(),
                ),
                14 => {
                    t.extend_from_slice(self.rng.pick(&["%C3%A9", "%c3%a9", "\u{e9}"]).as_bytes())
                }
                15 => t.extend_from_slice(b"/."),
                _ => t.extend_from_slice(b"/.."),
            }
        }
        if t.first() != Some(&b'/') {
            t.insert(0, b'/');
        }
        t
    }

    fn insert_at_slash(&mut self, t: &mut Vec<u8>, what: &[u8]) {
        let slashes: Vec<usize> = (0..t.len()).filter(|&i| t[i] == b'/').collect();
        if slashes.is_empty() {
            return;
        }
        let at = *self.rng.pick(&slashes);
        t.splice(at..at, what.iter().copied());
    }
}

fn nginx_binary() -> Option<PathBuf> {
    common::required_nginx("tests/locations_binary.rs")
}

/// One raw HTTP/1.0 request; the answer as `status x-loc [location-path]`.
fn ask(port: u16, host: &str, target: &[u8]) -> String {
    let mut s = TcpStream::connect(("127.0.0.1", port)).expect("connect to nginx");
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut req = b"GET ".to_vec();
    req.extend_from_slice(target);
    req.extend_from_slice(format!(" HTTP/1.0\r\nHost: {host}\r\n\r\n").as_bytes());
    s.write_all(&req).unwrap();
    let mut resp = Vec::new();
    s.read_to_end(&mut resp).expect("read the answer");
    let end = resp
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .unwrap_or(resp.len());
    let head = String::from_utf8_lossy(&resp[..end]);
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .unwrap_or("?")
        .to_string();
    let mut xloc = "-".to_string();
    let mut location = None;
    for l in lines {
        let (k, v) = l.split_once(": ").unwrap_or((l, ""));
        if k.eq_ignore_ascii_case("x-loc") {
            xloc = v.to_string();
        } else if k.eq_ignore_ascii_case("location") {
            // `http://host:port/path?args`: the path and arguments.
            let after = v.split_once("://").map_or(v, |(_, r)| r);
            location = Some(after.find('/').map_or("", |i| &after[i..]).to_string());
        }
    }
    if status == "400" {
        return "400".into();
    }
    match location {
        Some(l) => format!("{status} {xloc} {l}"),
        None => format!("{status} {xloc}"),
    }
}

/// What lemplint says nginx answers, in [`ask`]'s form; `None` when it cannot know.
fn expect(locs: &ServerLocations, ids: &HashMap<u32, String>, target: &[u8]) -> Option<String> {
    let uri = match normalise(target, locs.merge_slashes) {
        Ok(u) => u,
        Err(r) if r.is_bad_request() => return Some("400".into()),
        Err(_) => return None,
    };
    let sel = locs.select(&uri.path);
    let id = |l: u32| ids.get(&l).cloned().unwrap_or_else(|| "?".into());
    match sel.outcome {
        Outcome::Unknown { .. } => None,
        Outcome::Redirect(l) if sel.internal => Some(format!("404 {}", id(l))),
        Outcome::Redirect(l) => {
            let mut to = String::from_utf8_lossy(&locs.get(l).escaped_name()).into_owned();
            if let Some(args) = &uri.args {
                to.push('?');
                to.push_str(&String::from_utf8_lossy(args));
            }
            Some(format!("301 {} {to}", id(l)))
        }
        Outcome::Served => Some(match sel.location() {
            None => "404 -".into(),
            Some(l) if sel.internal => format!("404 {}", id(l)),
            Some(l) => format!("200 {}", id(l)),
        }),
    }
}

/// The start of a configuration whose files all stay inside `prefix`: one process, no
/// access log, a `root` that does not exist (a request no location takes is a 404).
fn http_head(prefix: &Path) -> String {
    let dir = |d: &str| prefix.join(d).display().to_string();
    format!(
        "worker_processes 1;\npid {pid};\nerror_log {log};\nevents {{ worker_connections 64; }}\n\
         http {{\n  access_log off;\n  root {root};\n  client_body_temp_path {b};\n  \
         proxy_temp_path {p};\n  fastcgi_temp_path {f};\n  uwsgi_temp_path {u};\n  \
         scgi_temp_path {s};\n",
        pid = dir("nginx.pid"),
        log = dir("error.log"),
        root = dir("no-such-root"),
        b = dir("body"),
        p = dir("proxy"),
        f = dir("fastcgi"),
        u = dir("uwsgi"),
        s = dir("scgi"),
    )
}

/// lemplint's reading of a configuration.
fn read(conf: &str) -> (NginxConfig, Expanded) {
    let mut fs = DumpFs::default();
    fs.files
        .insert(PathBuf::from("/t/nginx.conf"), conf.as_bytes().to_vec());
    let config = load(&fs, Path::new("/t/nginx.conf"), &LoadOptions::default()).unwrap();
    let expanded = Expanded::build(&config);
    (config, expanded)
}

/// Each location's id, from its `return 200 "<id>"`, per server.
fn ids(view: &View<'_>, all: &Locations) -> Vec<HashMap<u32, String>> {
    all.servers()
        .iter()
        .map(|s| {
            (0..s.locations().len() as u32)
                .filter_map(|l| {
                    let occ = s.get(l).occ;
                    let ret = *view.expanded.children_named(occ, "return").first()?;
                    Some((l, view.arg(ret, 1)?.into_owned()))
                })
                .collect()
        })
        .collect()
}

/// `nginx -t` on `conf` (written to `prefix/nginx.conf`); its messages when it refuses.
fn check(nginx: &Path, prefix: &Path, conf: &str) -> Result<(), String> {
    let path = prefix.join("nginx.conf");
    std::fs::write(&path, conf).unwrap();
    let out = Command::new(nginx)
        .arg("-p")
        .arg(prefix)
        .arg("-c")
        .arg(&path)
        .arg("-t")
        .output()
        .unwrap();
    if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

#[test]
fn location_selection_agrees_with_nginx() {
    let Some(nginx) = nginx_binary() else {
        return;
    };
    let started = Instant::now();
    let tmp = tempfile::tempdir().unwrap();
    let prefix = tmp.path();
    let (port_on, port_off) = (free_port(), free_port());
    let mut gen = Gen {
        // Another seed explores other cases: LEMPLINT_LOCATIONS_SEED=<n>.
        rng: Rng(std::env::var("LEMPLINT_LOCATIONS_SEED")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(0x9e37_79b9_7f4a_7c15)),
        next_id: 0,
    };
    let mut conf = http_head(prefix);
    let mut names_of = Vec::new();
    for i in 0..SERVERS {
        let off = i % 2 == 1;
        let port = if off { port_off } else { port_on };
        let _ = writeln!(
            conf,
            "server {{\n  listen 127.0.0.1:{port};\n  server_name s{i};"
        );
        // The default server of the second port (s1) sets `merge_slashes off`, which
        // applies to every request on that port; the others' settings change nothing.
        if i == 1 {
            conf.push_str("  merge_slashes off;\n");
        } else if i > 1 && gen.rng.chance(30) {
            conf.push_str(if off {
                "  merge_slashes on;\n"
            } else {
                "  merge_slashes off;\n"
            });
        }
        let mut names = Vec::new();
        gen.level(&Parent::Server, 0, &mut conf, &mut names);
        conf.push_str("}\n");
        names_of.push(names);
    }
    conf.push_str("}\n");

    let (config, expanded) = read(&conf);
    let view = View {
        config: &config,
        expanded: &expanded,
    };
    let all = Locations::build(&view);
    assert_eq!(all.servers().len(), SERVERS);
    for (i, s) in all.servers().iter().enumerate() {
        assert!(s.problems.is_empty(), "{:?}", s.problems);
        assert_eq!(
            s.merge_slashes,
            i % 2 == 0,
            "the default server's merge_slashes"
        );
        assert!(!s.merge_slashes_varies);
    }
    let ids = ids(&view, &all);
    if let Err(e) = check(&nginx, prefix, &conf) {
        panic!("nginx -t refuses the generated configuration:\n{e}\n{conf}");
    }
    let _nginx = common::start_nginx_on(
        &nginx,
        prefix,
        &prefix.join("nginx.conf"),
        &[port_on, port_off],
    );

    let (mut total, mut agree, mut unknown) = (0usize, 0usize, 0usize);
    let mut kinds: HashMap<&'static str, usize> = HashMap::new();
    let mut disagreements = Vec::new();
    for (i, s) in all.servers().iter().enumerate() {
        let port = if i % 2 == 1 { port_off } else { port_on };
        for _ in 0..TARGETS_PER_SERVER {
            let target = gen.target(&names_of[i]);
            let got = ask(port, &format!("s{i}"), &target);
            let Some(want) = expect(s, &ids[i], &target) else {
                unknown += 1;
                continue;
            };
            total += 1;
            *kinds
                .entry(match got.as_bytes()[0] {
                    b'2' => "200",
                    b'3' => "301",
                    _ if got == "400" => "400",
                    _ if got == "404 -" => "404 server level",
                    _ => "404 internal",
                })
                .or_default() += 1;
            if got == want {
                agree += 1;
            } else {
                let sel = s.select_request(&target);
                disagreements.push(format!(
                    "server s{i} {:?}: nginx {got:?}, lemplint {want:?} ({})",
                    String::from_utf8_lossy(&target),
                    sel.map_or_else(|r| r.to_string(), |sel| sel.explain(s)),
                ));
            }
        }
    }
    let locations: usize = all.servers().iter().map(|s| s.locations().len()).sum();
    let mut kinds: Vec<_> = kinds.into_iter().collect();
    kinds.sort();
    eprintln!(
        "locations: {agree}/{total} answers agree with nginx ({:.2}%), {unknown} undecided; \
         {SERVERS} servers, {locations} locations; answers {kinds:?}; {:.1} s",
        100.0 * agree as f64 / total.max(1) as f64,
        started.elapsed().as_secs_f64()
    );
    assert!(
        disagreements.is_empty(),
        "{} disagreements, first ones:\n{}\n\nconfiguration:\n{conf}",
        disagreements.len(),
        disagreements
            .iter()
            .take(25)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
    assert_eq!(unknown, 0, "the generated regexes are all decidable");
    assert!(total >= 3000, "{total} answers compared");
}

/// A location name as a quoted token nginx reads back as exactly `name`: inside quotes
/// `\\` is a backslash and `\"` a quote (and `\t`, `\r`, `\n` would be control bytes).
fn quote(name: &[u8]) -> String {
    let mut out = String::from("\"");
    for &b in name {
        match b {
            b'\\' => out.push_str("\\\\"),
            b'"' => out.push_str("\\\""),
            _ => out.push(b as char),
        }
    }
    out.push('"');
    out
}

/// A request target whose normalised path is `path`: the bytes a request line cannot hold
/// as they are, and those normalisation would read (`%`, `?`, `#`), percent-encoded.
fn target_for(path: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    for &b in path {
        if b <= b' ' || b == 0x7f || b >= 0x80 || matches!(b, b'%' | b'?' | b'#') {
            out.extend_from_slice(format!("%{b:02X}").as_bytes());
        } else {
            out.push(b);
        }
    }
    if out.first() != Some(&b'/') {
        out.insert(0, b'/');
    }
    out
}

/// One corpus server's locations, rewritten as the generated ones are: same kinds, names
/// and nesting, `internal` and a `proxy_pass` where the original has them.
fn emit(s: &ServerLocations, id: u32, depth: usize, next: &mut usize, out: &mut String) {
    let l = s.get(id);
    *next += 1;
    let indent = "  ".repeat(depth + 1);
    let name = if l.kind == Kind::Named {
        String::from_utf8_lossy(&l.name).into_owned()
    } else {
        quote(&l.name)
    };
    let _ = writeln!(out, "{indent}location {} {name} {{", l.kind.modifier());
    let _ = writeln!(out, "{indent}  add_header X-Loc C{next} always;");
    // `internal` is inherited: set it where the original sets it.
    let own_internal = l.internal && l.parent.is_none_or(|p| !s.get(p).internal);
    if own_internal {
        let _ = writeln!(out, "{indent}  internal;");
    }
    if l.auto_redirect {
        let _ = writeln!(out, "{indent}  proxy_pass http://127.0.0.1:9;");
    }
    let _ = writeln!(out, "{indent}  return 200 \"C{next}\";");
    for &c in &l.children {
        emit(s, c, depth + 1, next, out);
    }
    let _ = writeln!(out, "{indent}}}");
}

/// Paths worth asking a real server about, then variants of each location's name.
const PROBES: &[&str] = &[
    "/",
    "/index.php",
    "/index.html",
    "/.git/config",
    "/.env",
    "/.htaccess",
    "/uploads/x.php",
    "/wp-content/uploads/a.php",
    "/wp-admin/",
    "/wp-login.php",
    "/static../etc/passwd",
    "/favicon.ico",
    "/robots.txt",
    "/a.jpg",
    "/x.PHP",
    "/api/v1/x",
    "/images/1.GIF",
    "/assets/app.css",
    "/phpmyadmin/",
    "/status",
];

/// Real servers' locations against nginx: the location sets of the corpus servers (kinds,
/// names, nesting, regexes as written), each location answering with its id as in the
/// generated test, asked about common paths and about each location's name and variants
/// of it. A regex the PCRE module cannot decide is counted, not compared.
#[test]
#[cfg_attr(
    lemplint_no_corpus,
    ignore = "../shared/corpus is missing (a fresh clone: see the README's corpus note; after adding it, touch build.rs)"
)]
fn corpus_location_sets_agree_with_nginx() {
    let Some(dir) = common::corpus("nginx") else {
        return;
    };
    let Some(nginx) = nginx_binary() else {
        return;
    };
    let started = Instant::now();
    // Every corpus file on its own: its servers and their locations.
    let mut servers: Vec<String> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let files = common::files_under(&dir);
    for file in &files {
        let Ok(text) = std::fs::read(file) else {
            continue;
        };
        if !text.windows(8).any(|w| w == b"location") {
            continue;
        }
        let mut fs = DumpFs::default();
        fs.files.insert(PathBuf::from("/c/nginx.conf"), text);
        let opts = LoadOptions {
            single_file: true,
            ..LoadOptions::default()
        };
        let Ok(config) = load(&fs, Path::new("/c/nginx.conf"), &opts) else {
            continue;
        };
        let expanded = Expanded::build(&config);
        let view = View {
            config: &config,
            expanded: &expanded,
        };
        for s in Locations::build(&view).servers() {
            let long = s.locations().iter().any(|l| l.name.len() > 200);
            if s.locations().is_empty() || !s.problems.is_empty() || long {
                continue;
            }
            let mut body = String::new();
            let mut next = 0;
            for top in s.top().collect::<Vec<_>>() {
                emit(s, top, 0, &mut next, &mut body);
            }
            // The same location set in several vhosts is asked about once.
            if seen.insert(body.clone()) {
                servers.push(body);
            }
        }
    }
    assert!(servers.len() >= 50, "{} corpus servers", servers.len());

    let tmp = tempfile::tempdir().unwrap();
    let prefix = tmp.path();
    let port = free_port();
    // nginx refuses a few sets lemplint accepts (a regex PCRE2 refuses that the PCRE module
    // does not): drop the server nginx names, and say which.
    let mut refused = Vec::new();
    let conf = loop {
        let mut conf = http_head(prefix);
        let mut lines = Vec::new();
        for (i, body) in servers.iter().enumerate() {
            lines.push(conf.lines().count() + 1);
            let _ = write!(
                conf,
                "server {{\n  listen 127.0.0.1:{port};\n  server_name c{i};\n{body}}}\n"
            );
        }
        conf.push_str("}\n");
        let Err(e) = check(&nginx, prefix, &conf) else {
            break conf;
        };
        let line: Option<usize> = e
            .split("nginx.conf:")
            .nth(1)
            .and_then(|r| r.split(|c: char| !c.is_ascii_digit()).next())
            .and_then(|n| n.parse().ok());
        let Some(line) = line else {
            panic!("nginx -t: {e}");
        };
        let i = lines.partition_point(|&start| start <= line) - 1;
        refused.push(e.trim().to_string());
        servers.remove(i);
        assert!(refused.len() < 20, "nginx refuses too many: {refused:#?}");
    };
    let (config, expanded) = read(&conf);
    let view = View {
        config: &config,
        expanded: &expanded,
    };
    let all = Locations::build(&view);
    assert_eq!(all.servers().len(), servers.len());
    let ids = ids(&view, &all);
    let _running = common::start_nginx_on(&nginx, prefix, &prefix.join("nginx.conf"), &[port]);

    let (mut total, mut agree, mut unknown) = (0usize, 0usize, 0usize);
    let mut disagreements = Vec::new();
    for (i, s) in all.servers().iter().enumerate() {
        let mut targets: Vec<Vec<u8>> = PROBES.iter().map(|p| p.as_bytes().to_vec()).collect();
        for l in s.locations() {
            let base: Vec<u8> = match (l.kind, l.regex()) {
                (Kind::Named, _) => continue,
                (Kind::Regex { .. }, Some(Ok(re))) => re.literal_prefix(),
                (Kind::Regex { .. }, _) => continue,
                _ => l.name.to_vec(),
            };
            for suffix in [&b""[..], b"x", b"/", b"/a.php", b".php", b"/x.JPG"] {
                let mut t = base.clone();
                t.extend_from_slice(suffix);
                targets.push(target_for(&t));
            }
            if base.len() > 1 {
                targets.push(target_for(&base[..base.len() - 1]));
                targets.push(target_for(&base.to_ascii_uppercase()));
            }
        }
        targets.sort();
        targets.dedup();
        for target in targets {
            let got = ask(port, &format!("c{i}"), &target);
            let Some(want) = expect(s, &ids[i], &target) else {
                unknown += 1;
                continue;
            };
            total += 1;
            if got == want {
                agree += 1;
            } else {
                let sel = s.select_request(&target);
                disagreements.push(format!(
                    "server c{i} {:?}: nginx {got:?}, lemplint {want:?} ({})",
                    String::from_utf8_lossy(&target),
                    sel.map_or_else(|r| r.to_string(), |sel| sel.explain(s)),
                ));
            }
        }
    }
    let locations: usize = all.servers().iter().map(|s| s.locations().len()).sum();
    eprintln!(
        "corpus locations: {agree}/{total} answers agree with nginx ({:.2}%), {unknown} \
         undecided; {} distinct servers, {locations} locations; nginx refused {}: {refused:?}; \
         {:.1} s",
        100.0 * agree as f64 / total.max(1) as f64,
        servers.len(),
        refused.len(),
        started.elapsed().as_secs_f64()
    );
    assert!(
        disagreements.is_empty(),
        "{} disagreements, first ones:\n{}",
        disagreements.len(),
        disagreements
            .iter()
            .take(25)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}
