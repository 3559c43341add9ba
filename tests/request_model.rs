//! Differential test: the request model (`analysis::request`) against the real nginx.
//!
//! Seeded random servers share one port and are told apart by Host (exact, wildcard and
//! regex `server_name`s, one `default_server`). Their locations (prefix, exact, regex
//! with numbered and named captures, sometimes `internal`) run random rewrite-phase
//! directives — `rewrite` with `last`, `break`, no flag or a redirect, `if` on `$uri`,
//! `$args` and `$request_uri` (positive and negated, with captures), `set`, `return`,
//! `break` — and the server level has its own. Each location then either answers with the
//! echo module (`echo "L<id> $uri $args"`: which location, the final URI and arguments) or
//! proxies to a second server whose echo answers the request line it received (`up
//! $request_uri`): what `proxy_pass` sent upstream, with or without a URI part.
//!
//! Real nginx serves it (`-g 'daemon off; master_process off;'`, everything inside a
//! temporary prefix, 127.0.0.1 on free ports, the echo module from
//! `scripts/nginx-modules.sh`), and generated requests go to it as raw HTTP/1.0. The
//! model's answer for each — the server chosen for the Host, then [`Model::follow`]:
//! content of a location (`200` and the echo line, or what is sent upstream), a rewrite
//! cycle (`500`), `return` (`418`), a redirect (`302`), an external request to an
//! `internal` location (`404`), nothing matched (`404` at the server level) — must equal
//! nginx's. A request the model follows more than one way (a condition it cannot
//! evaluate) or calls unknown is not compared, and counted: the agreement rate printed is
//! over the requests the model answers, and the test requires it to answer most of them.
//!
//! A second test, [`corpus_servers_agree_with_nginx`], does the same with the servers of
//! `../shared/corpus` that have rewrite-phase directives: their server-level and
//! location-level `rewrite`, `if`, `set`, `return` and `break` as written, their locations'
//! kinds, names, nesting and `internal`, each location answering with the echo line
//! (everything else — `try_files`, `*_pass`, `error_page`, `root` — is left out, so the
//! content phase is the echo's). The servers nginx refuses alone (a variable a `map` or
//! module outside the server defines, a directive of a module it lacks) are left out
//! and counted. Requests: common paths and variants of each location's name.
//!
//! Without nginx or the echo module the tests are skipped with a note, or fail when
//! `CI=true` (so does the corpus test without `../shared/corpus`). Verified with nginx
//! 1.22.1 (Debian).

mod common;
use common::{free_port, Rng};

use lemplint::analysis::cursor::Directive;
use lemplint::analysis::locations::{Kind, Locations, ServerLocations};
use lemplint::analysis::request::server::select;
use lemplint::analysis::request::{phase, text_of};
use lemplint::analysis::request::{End, Gone, Model};
use lemplint::analysis::rewrite_redirect::redirects;
use lemplint::stack::fs::DumpFs;
use lemplint::stack::model::NginxInstance;
use lemplint::stack::nginx::{load, LoadOptions};
use std::collections::HashSet;
use std::fmt::Write as _;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::time::Duration;

const SERVERS: usize = 30;
const REQUESTS_PER_SERVER: usize = 40;

/// Location names: prefixes that nest and collide, an exact one, regexes with captures.
const LOCATIONS: &[&str] = &[
    "/a/",
    "/a",
    "/b/",
    "/c/",
    "/api/",
    "/",
    "= /e",
    r#"~ "^/r/(\w+)/(.*)$""#,
    r#"~* "\.php$""#,
    r#"~ "^/(?<first>\w+)/x$""#,
    "^~ /v2/",
];

/// Rewrite-phase directives a location or the server level may run.
const DIRECTIVES: &[&str] = &[
    r"rewrite ^/a/(.*)$ /b/$1 last;",
    r"rewrite ^/b/(.*)$ /c/$1 break;",
    r"rewrite ^/(\w+)/(.*)$ /$2/$1;",
    r"rewrite ^ /c/fixed?x=$1 break;",
    r"rewrite ^(.*)$ $1/ last;",
    r"rewrite ^ $request_uri? break;",
    r"rewrite ^/api/(.*)$ /v2/$1?via=api;",
    r"rewrite ^/old/(.*)$ /a/$1;",
    r"if ($uri ~ ^/a/z) { rewrite ^ /c/z break; }",
    r"if ($args ~ k=(\w+)) { rewrite ^ /c/$1? break; }",
    r"if ($uri !~ \.php$) { set $t yes; }",
    r"if ($request_uri ~ %2F) { return 418; }",
    r"set $v $1;",
    r"rewrite ^ /c/v[$v] break;",
    r"if ($t) { rewrite ^ /c/t break; }",
    r"if ($uri = /b/q) { rewrite ^ /c/eq break; }",
    r"return 418;",
    r"rewrite ^/b/r http://example.com/ redirect;",
    r"break;",
];

/// Request targets: the locations' names with suffixes, encoded bytes, slashes, queries.
const TARGETS: &[&str] = &[
    "/a/x",
    "/a/z",
    "/a/z?k=v",
    "/a",
    "/a/",
    "/b/y",
    "/b/q",
    "/b/r",
    "/c/q",
    "/api/x?k=1",
    "/api",
    "/e",
    "/e?k=v",
    "/r/foo/bar",
    "/r/a%2Fb/c",
    "/x.php",
    "/X.PHP?k=z",
    "//a//x",
    "/a/%3Fq",
    "/old/x",
    "/zzz",
    "/v2/x",
    "/a/x?k=abc",
    "/q/x",
    "/b/y%20z",
];

struct Gen {
    rng: Rng,
    next_id: usize,
}

impl Gen {
    /// One location: its name, `internal` sometimes, a few directives, then its content.
    fn location(&mut self, name: &str, up: u16, out: &mut String) {
        self.next_id += 1;
        let id = self.next_id;
        let _ = writeln!(out, "  location {name} {{");
        if self.rng.chance(8) {
            out.push_str("    internal;\n");
        }
        for _ in 0..self.rng.below(4) {
            let d = *self.rng.pick(DIRECTIVES);
            let _ = writeln!(out, "    {d}");
        }
        let regex = name.starts_with('~');
        if self.rng.chance(30) {
            // A URI part is refused in a regex location unless it has variables.
            let part = if regex {
                *self.rng.pick(&["", "/$1", "/p$uri"])
            } else {
                *self.rng.pick(&["", "/", "/v1/", "/v1"])
            };
            let _ = writeln!(out, "    proxy_pass http://127.0.0.1:{up}{part};");
        } else {
            let _ = writeln!(out, "    echo \"L{id} $uri $args\";");
        }
        out.push_str("  }\n");
    }

    fn server(&mut self, i: usize, port: u16, up: u16, out: &mut String) {
        let names = match i % 5 {
            0 => format!("s{i}.test"),
            1 => format!("*.w{i}.test"),
            2 => format!("www.t{i}.*"),
            3 => format!("\"~^(?<sub>\\w+)\\.r{i}\\.test$\""),
            _ => format!("s{i}.test alias{i}.test"),
        };
        let default = if i == SERVERS / 2 {
            " default_server"
        } else {
            ""
        };
        let _ = writeln!(
            out,
            "server {{\n  listen 127.0.0.1:{port}{default};\n  server_name {names};"
        );
        if self.rng.chance(40) {
            let d = *self.rng.pick(DIRECTIVES);
            let _ = writeln!(out, "  {d}");
        }
        let mut taken = Vec::new();
        for _ in 0..3 + self.rng.below(5) {
            let name = *self.rng.pick(LOCATIONS);
            if taken.contains(&name) {
                continue;
            }
            taken.push(name);
            self.location(name, up, out);
        }
        out.push_str("}\n");
    }
}

/// A Host that reaches server `i` by its name (or none of them).
fn host_for(i: usize, rng: &mut Rng) -> String {
    if rng.chance(5) {
        return "nobody.invalid".into();
    }
    match i % 5 {
        0 | 4 => format!("s{i}.test"),
        1 => format!("x.w{i}.test"),
        2 => format!("www.t{i}.org"),
        _ => format!("blog.r{i}.test"),
    }
}

fn head(prefix: &Path, echo: &Path) -> String {
    let dir = |d: &str| prefix.join(d).display().to_string();
    format!(
        "load_module {echo};\nworker_processes 1;\npid {pid};\nerror_log {log};\n\
         events {{ worker_connections 64; }}\nhttp {{\n  access_log off;\n  root {root};\n  \
         client_body_temp_path {b};\n  proxy_temp_path {p};\n  fastcgi_temp_path {f};\n  \
         uwsgi_temp_path {u};\n  scgi_temp_path {s};\n",
        echo = echo.display(),
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

fn instance(conf: &str) -> NginxInstance {
    let mut fs = DumpFs::default();
    fs.files
        .insert(PathBuf::from("/t/nginx.conf"), conf.as_bytes().to_vec());
    let config = load(&fs, Path::new("/t/nginx.conf"), &LoadOptions::default()).unwrap();
    lemplint::stack::model::config_instance(config, false)
}

/// One raw HTTP/1.0 request: `status` and, for a 200, the body's first line.
fn ask(port: u16, host: &str, target: &str) -> String {
    let mut s = TcpStream::connect(("127.0.0.1", port)).expect("connect to nginx");
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let req = format!("GET {target} HTTP/1.0\r\nHost: {host}\r\n\r\n");
    s.write_all(req.as_bytes()).unwrap();
    let mut resp = Vec::new();
    s.read_to_end(&mut resp).expect("read the answer");
    let resp = String::from_utf8_lossy(&resp);
    let (head, body) = resp.split_once("\r\n\r\n").unwrap_or((&resp, ""));
    let status = head.split(' ').nth(1).unwrap_or("?");
    if status == "200" {
        format!("200 {}", body.lines().next().unwrap_or("").trim_end())
    } else {
        status.to_string()
    }
}

/// Whether nginx's answer is the model's: the whole line, or only the status when the
/// model's answer is one (a `return`'s own text is not compared).
fn agrees(got: &str, want: &str) -> bool {
    got == want || (!want.contains(' ') && got.split(' ').next() == Some(want))
}

/// The model's answer in [`ask`]'s form; `None` when it follows more than one way or
/// says unknown.
fn expect<'a>(
    model: &mut Model<'a>,
    inst: &'a NginxInstance,
    port: u16,
    host: &str,
    target: &str,
) -> Option<String> {
    let chosen = select(inst, Some("127.0.0.1"), port, host.as_bytes())?;
    let ends = model.follow(
        Some(chosen.server),
        None,
        target.as_bytes(),
        Some(host.as_bytes()),
    )?;
    let [end] = ends.as_slice() else {
        return None;
    };
    Some(match end {
        End::Content { location: None, .. } => "404".into(),
        End::Content {
            location: Some(loc),
            req,
        } => {
            if end.redirects().is_some() {
                return None;
            }
            if let Some(pass) = loc.children("proxy_pass").next() {
                let sent = model.upstream(pass, *loc, req, target.as_bytes())?;
                format!("200 up {}", String::from_utf8_lossy(&sent.uri))
            } else {
                let echo = loc.children("echo").next()?;
                let text = echo.arg(0)?.value().into_owned();
                let id = text.split(' ').next()?;
                format!(
                    "200 {id} {} {}",
                    String::from_utf8_lossy(&req.uri),
                    String::from_utf8_lossy(&req.args)
                )
                .trim_end()
                .to_string()
            }
        }
        End::Cycle(_) => "500".into(),
        End::Left(_) | End::Gone(Gone::Unknown(_)) => return None,
        End::Gone(Gone::Answered(o)) => {
            let d = Directive::new(inst, *o);
            match d.name() {
                // `return URL` is a 302; 444 closes the connection without an answer.
                "return" => match d.arg(0).map(|a| a.value().into_owned()) {
                    Some(c) if c == "444" => return None,
                    // nginx's own codes for TLS and header errors go out as 400.
                    Some(c) if matches!(c.as_str(), "494" | "495" | "496" | "497") => "400".into(),
                    Some(c) if c.parse::<u16>().is_ok() => c,
                    _ => "302".into(),
                },
                "rewrite" if d.arg(2).is_some_and(|f| f.value() == "permanent") => "301".into(),
                "rewrite" if d.arg(2).is_some_and(|f| f.value() == "redirect") => "302".into(),
                // A replacement that starts with a scheme redirects without a flag.
                "rewrite" if redirects(d) => "302".into(),
                // A rewrite to an empty URI.
                "rewrite" => "500".into(),
                "location" if d.children("internal").next().is_some() => "404".into(),
                // nginx's 301 to a location's name with its `/`.
                "location" => "301".into(),
                _ => return None,
            }
        }
    })
}

#[test]
fn request_processing_agrees_with_nginx() {
    let Some(nginx) = common::required_nginx("tests/request_model.rs") else {
        return;
    };
    let Some(echo) = common::required_echo_module(&nginx, "tests/request_model.rs") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let prefix = tmp.path();
    let (port, up) = (free_port(), free_port());
    let mut gen = Gen {
        // Another seed explores other cases: LEMPLINT_REQUEST_SEED=<n>.
        rng: Rng(std::env::var("LEMPLINT_REQUEST_SEED")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(0x51_7cc1_b727_220a)),
        next_id: 0,
    };
    let mut conf = head(prefix, &echo);
    for i in 0..SERVERS {
        gen.server(i, port, up, &mut conf);
    }
    let _ = writeln!(
        conf,
        "server {{\n  listen 127.0.0.1:{up};\n  location / {{ set $v \"\"; set $t \"\"; echo \"up $request_uri\"; }}\n}}\n}}"
    );
    let path = prefix.join("nginx.conf");
    std::fs::write(&path, &conf).unwrap();
    let t = common::nginx_test(&nginx, prefix);
    assert!(
        t.status.success(),
        "nginx -t: {}",
        String::from_utf8_lossy(&t.stderr)
    );
    let _running = common::start_nginx_on(&nginx, prefix, &path, &[port, up]);

    let inst = instance(&conf);
    let mut model = Model::new(&inst);
    let (mut total, mut answered, mut agree) = (0usize, 0usize, 0usize);
    let mut disagreements = Vec::new();
    for i in 0..SERVERS {
        for _ in 0..REQUESTS_PER_SERVER {
            let host = host_for(i, &mut gen.rng);
            let target = *gen.rng.pick(TARGETS);
            total += 1;
            let Some(want) = expect(&mut model, &inst, port, &host, target) else {
                continue;
            };
            answered += 1;
            let got = ask(port, &host, target);
            if agrees(&got, &want) {
                agree += 1;
            } else {
                disagreements.push(format!(
                    "Host {host} GET {target}: nginx {got:?}, model {want:?}"
                ));
            }
        }
    }
    eprintln!(
        "request model vs nginx: {agree}/{answered} agree ({:.1}%); the model answered {answered} of {total} requests",
        100.0 * agree as f64 / answered.max(1) as f64
    );
    assert!(
        disagreements.is_empty(),
        "{} disagreements:\n{}\n(configuration: {conf})",
        disagreements.len(),
        disagreements.join("\n")
    );
    assert!(
        answered * 10 >= total * 6,
        "the model answered only {answered} of {total} requests"
    );
}

/// A location name as a quoted token nginx reads back as exactly `name`.
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

/// The rewrite-phase directives of `block` as written, `if` blocks with only theirs.
fn rewrite_phase(block: Directive<'_>, indent: &str, out: &mut String) {
    for d in phase(block) {
        if d.name() == "if" {
            let _ = writeln!(out, "{indent}{} {{", text_of(d));
            rewrite_phase(d, &format!("{indent}  "), out);
            let _ = writeln!(out, "{indent}}}");
        } else {
            let _ = writeln!(out, "{indent}{};", text_of(d));
        }
    }
}

/// One corpus location, rewritten: its kind, name, `internal`, rewrite-phase directives
/// and nested locations as written, and an echo of its id, the URI and the arguments.
fn emit(
    inst: &NginxInstance,
    s: &ServerLocations,
    id: u32,
    depth: usize,
    next: &mut usize,
    out: &mut String,
) {
    let l = s.get(id);
    *next += 1;
    let indent = "  ".repeat(depth + 1);
    let name = if l.kind == Kind::Named {
        String::from_utf8_lossy(&l.name).into_owned()
    } else {
        quote(&l.name)
    };
    let _ = writeln!(out, "{indent}location {} {name} {{", l.kind.modifier());
    // `internal` is inherited: set it where the original sets it.
    if l.internal && l.parent.is_none_or(|p| !s.get(p).internal) {
        let _ = writeln!(out, "{indent}  internal;");
    }
    rewrite_phase(Directive::new(inst, l.occ), &format!("{indent}  "), out);
    let _ = writeln!(out, "{indent}  echo \"C{next} $uri $args\";");
    for &c in &l.children {
        emit(inst, s, c, depth + 1, next, out);
    }
    let _ = writeln!(out, "{indent}}}");
}

/// Paths worth asking about, then variants of each location's name.
const PROBES: &[&str] = &[
    "/",
    "/index.php",
    "/index.php?q=1",
    "/wp-admin/",
    "/wp-login.php",
    "/sitemap.xml",
    "/robots.txt",
    "/favicon.ico",
    "/a.jpg",
    "/api/v1/x?k=v",
    "/blog/post-1",
    "/old/page.html",
    "/x/y/z",
    "/a%2Fb",
];

/// A request target whose normalised path is `path`.
fn target_for(path: &[u8]) -> String {
    let mut out = String::new();
    for &b in path {
        if b <= b' ' || b == 0x7f || b >= 0x80 || matches!(b, b'%' | b'?' | b'#') {
            let _ = write!(out, "%{b:02X}");
        } else {
            out.push(b as char);
        }
    }
    if !out.starts_with('/') {
        out.insert(0, '/');
    }
    out
}

#[test]
#[cfg_attr(
    lemplint_no_corpus,
    ignore = "../shared/corpus is missing (a fresh clone: see the README's corpus note; after adding it, touch build.rs)"
)]
fn corpus_servers_agree_with_nginx() {
    let Some(dir) = common::corpus("nginx") else {
        return;
    };
    let Some(nginx) = common::required_nginx("tests/request_model.rs") else {
        return;
    };
    let Some(echo) = common::nginx_module(&nginx, "ngx_http_echo_module.so") else {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "the echo module (scripts/nginx-modules.sh) is required on CI (CI=true)"
        );
        return;
    };
    // Every corpus server with rewrite-phase directives, rewritten as above.
    let mut servers: Vec<String> = Vec::new();
    let mut seen = HashSet::new();
    for file in common::files_under(&dir) {
        let Ok(text) = std::fs::read(&file) else {
            continue;
        };
        if !text.windows(7).any(|w| w == b"rewrite" || w == b"return ") {
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
        let inst = lemplint::stack::model::config_instance(config, false);
        for s in Locations::of(&inst).servers() {
            let server = Directive::new(&inst, s.server);
            let has_phase = !phase(server).is_empty()
                || s.locations()
                    .iter()
                    .any(|l| !phase(Directive::new(&inst, l.occ)).is_empty());
            let long = s.locations().iter().any(|l| l.name.len() > 200);
            if !has_phase || !s.problems.is_empty() || long || s.locations().len() > 60 {
                continue;
            }
            let mut body = String::new();
            rewrite_phase(server, "  ", &mut body);
            let mut next = 0;
            for top in s.top().collect::<Vec<_>>() {
                emit(&inst, s, top, 0, &mut next, &mut body);
            }
            if seen.insert(body.clone()) {
                servers.push(body);
            }
        }
    }
    assert!(servers.len() >= 30, "{} corpus servers", servers.len());

    let tmp = tempfile::tempdir().unwrap();
    let prefix = tmp.path();
    let port = free_port();
    // Each server alone first: nginx refuses some (a variable defined outside the server,
    // a module's directive); they are left out and counted.
    let mut kept = Vec::new();
    let mut refused = 0usize;
    let path = prefix.join("nginx.conf");
    for body in servers {
        let conf = format!(
            "{}server {{\n  listen 127.0.0.1:{port};\n  server_name c;\n{body}}}\n}}\n",
            head(prefix, &echo)
        );
        std::fs::write(&path, &conf).unwrap();
        if common::nginx_test(&nginx, prefix).status.success() {
            kept.push(body);
        } else {
            refused += 1;
        }
    }
    let mut conf = head(prefix, &echo);
    for (i, body) in kept.iter().enumerate() {
        let _ = write!(
            conf,
            "server {{\n  listen 127.0.0.1:{port};\n  server_name c{i};\n{body}}}\n"
        );
    }
    conf.push_str("}\n");
    std::fs::write(&path, &conf).unwrap();
    let t = common::nginx_test(&nginx, prefix);
    assert!(
        t.status.success(),
        "nginx -t: {}",
        String::from_utf8_lossy(&t.stderr)
    );
    let _running = common::start_nginx_on(&nginx, prefix, &path, &[port]);

    let inst = instance(&conf);
    let all = Locations::of(&inst);
    let mut model = Model::new(&inst);
    let (mut total, mut answered, mut agree) = (0usize, 0usize, 0usize);
    let mut disagreements = Vec::new();
    for (i, s) in all.servers().iter().enumerate() {
        let mut targets: Vec<String> = PROBES.iter().map(|p| p.to_string()).collect();
        for l in s.locations() {
            let base: Vec<u8> = match (l.kind, l.regex()) {
                (Kind::Named, _) => continue,
                (Kind::Regex { .. }, Some(Ok(re))) => re.sample().unwrap_or_default(),
                (Kind::Regex { .. }, _) => continue,
                _ => l.name.to_vec(),
            };
            for suffix in [&b""[..], b"x", b"/a.php", b"/x?k=v"] {
                let mut t = base.clone();
                t.extend_from_slice(suffix);
                let (path, query) = match t.iter().position(|&b| b == b'?') {
                    Some(q) => (t[..q].to_vec(), Some(t[q..].to_vec())),
                    None => (t, None),
                };
                let mut target = target_for(&path);
                if let Some(q) = query {
                    target.push_str(&String::from_utf8_lossy(&q));
                }
                targets.push(target);
            }
        }
        targets.sort();
        targets.dedup();
        let host = format!("c{i}");
        for target in targets {
            total += 1;
            let Some(want) = expect(&mut model, &inst, port, &host, &target) else {
                continue;
            };
            answered += 1;
            let got = ask(port, &host, &target);
            if agrees(&got, &want) {
                agree += 1;
            } else {
                disagreements.push(format!(
                    "server c{i} GET {target}: nginx {got:?}, model {want:?}"
                ));
            }
        }
    }
    eprintln!(
        "corpus servers: {agree}/{answered} answers agree with nginx ({:.2}%); the model \
         answered {answered} of {total} requests; {} servers, nginx refused {refused} alone",
        100.0 * agree as f64 / answered.max(1) as f64,
        kept.len()
    );
    assert!(
        disagreements.is_empty(),
        "{} disagreements, first ones:\n{}",
        disagreements.len(),
        disagreements
            .iter()
            .take(30)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
    assert!(answered >= 500, "only {answered} answers compared");
}
