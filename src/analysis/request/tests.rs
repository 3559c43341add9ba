//! Unit tests, one group per phase. Each builds a configuration, follows requests through
//! [`Model::follow`] and reads the answer as text: `@<location> <uri>?<args>` for the
//! content phase (`@-` at the server level), `cycle`, `answered <directive>`, `unknown
//! <directive>`, `left`. The same claims are checked against real nginx by
//! `tests/request_model.rs`.

use super::access::Access;
use super::server::{normalise_host, select};
use super::*;
use crate::analysis::cursor::{named, Directive};
use crate::analysis::locations::location_line;
use crate::stack::fs::DumpFs;
use crate::stack::nginx::{load, LoadOptions};
use std::path::{Path, PathBuf};

fn instance(http: &str) -> NginxInstance {
    let mut fs = DumpFs::default();
    fs.files.insert(
        PathBuf::from("/t/nginx.conf"),
        format!("events {{ }}\nhttp {{\n{http}\n}}\n").into_bytes(),
    );
    let config = load(&fs, Path::new("/t/nginx.conf"), &LoadOptions::default()).unwrap();
    assert!(config.problems.is_empty(), "{:?}", config.problems);
    crate::stack::model::config_instance(config, false)
}

fn label(d: Directive<'_>) -> String {
    match d.name() {
        "location" => {
            let (kind, name) = location_line(d).unwrap();
            let name = String::from_utf8_lossy(&name).into_owned();
            match kind.modifier() {
                "" => name,
                m => format!("{m}{name}"),
            }
        }
        _ => text_of(d),
    }
}

fn render(inst: &NginxInstance, end: &End<'_>) -> String {
    match end {
        End::Content { location, req } => {
            let at = location.map_or("-".to_string(), label);
            let q = if req.args.is_empty() { "" } else { "?" };
            format!(
                "@{at} {}{q}{}",
                String::from_utf8_lossy(&req.uri),
                String::from_utf8_lossy(&req.args)
            )
        }
        End::Cycle(_) => "cycle".into(),
        End::Left(_) => "left".into(),
        End::Gone(Gone::Answered(o)) => format!("answered {}", label(Directive::new(inst, *o))),
        End::Gone(Gone::Unknown(o)) => format!("unknown {}", label(Directive::new(inst, *o))),
    }
}

/// Every end of `target` with `host` at the first server of `http`.
fn follow_host(http: &str, target: &str, host: Option<&str>) -> Vec<String> {
    let inst = instance(http);
    let server = named(&inst, "server").next();
    let mut model = Model::new(&inst);
    let ends = model
        .follow(server, None, target.as_bytes(), host.map(str::as_bytes))
        .expect("within the bounds");
    ends.iter().map(|e| render(&inst, e)).collect()
}

fn follow(server_body: &str, target: &str) -> Vec<String> {
    follow_host(&format!("server {{\n{server_body}\n}}"), target, None)
}

// --- server selection -------------------------------------------------------------------

fn chosen(http: &str, port: u16, host: &str) -> String {
    let inst = instance(http);
    let c = select(&inst, None, port, host.as_bytes()).expect("a server");
    let names: Vec<String> = c
        .server
        .children("server_name")
        .flat_map(|n| n.args().map(|a| a.value().into_owned()).collect::<Vec<_>>())
        .collect();
    names.join(" ")
}

#[test]
fn server_selection_prefers_exact_then_wildcards_then_regex_then_default() {
    let http = r#"
        server { listen 80; server_name default.test; }
        server { listen 80; server_name ~^(?<sub>\w+)\.example\.com$; }
        server { listen 80; server_name *.example.com; }
        server { listen 80; server_name www.example.*; }
        server { listen 80; server_name www.example.com; }
        server { listen 80 default_server; server_name marked.test; }
        server { listen 8080; server_name other.test; }
    "#;
    assert_eq!(chosen(http, 80, "WWW.Example.com."), "www.example.com");
    assert_eq!(chosen(http, 80, "a.b.example.com"), "*.example.com");
    assert_eq!(chosen(http, 80, "www.example.org"), "www.example.*");
    assert_eq!(chosen(http, 80, "nomatch.test:80"), "marked.test");
    assert_eq!(chosen(http, 8080, "x"), "other.test");
    assert_eq!(normalise_host(b"Ex.COM.:8080"), b"ex.com");
}

#[test]
fn a_regex_server_name_sets_captures_for_the_rewrite_phase() {
    // `set` reads `$1` before any other regex runs; a `rewrite`'s own regex would replace
    // the captures with its own (none for `^`).
    let http = r#"server {
        server_name ~^(\w+)\.example\.com$ plain.test;
        set $site $1;
        rewrite ^ /sites/$site break;
    }"#;
    assert_eq!(
        follow_host(http, "/x", Some("blog.example.com")),
        ["@- /sites/blog"]
    );
    // Taken by its plain name: no regex ran, `$1` is empty.
    assert_eq!(follow_host(http, "/x", Some("plain.test")), ["@- /sites/"]);
    // Without a Host the captures are unknown, and so is the rewrite.
    assert_eq!(
        follow_host(http, "/x", None),
        ["unknown rewrite ^ /sites/$site break"]
    );
}

// --- server rewrite phase and location selection -----------------------------------------

#[test]
fn the_server_rewrite_phase_runs_before_the_location_search() {
    let body = r#"
        rewrite ^/old/(.*)$ /new/$1;
        location /new/ { }
        location /old/ { }
        location ~ \.php$ { }
    "#;
    assert_eq!(follow(body, "/old/a"), ["@/new/ /new/a"]);
    assert_eq!(follow(body, "/new/a.php"), ["@~\\.php$ /new/a.php"]);
    assert_eq!(follow(body, "/z"), ["@- /z"]);
}

// --- location rewrite phase ---------------------------------------------------------------

#[test]
fn last_searches_again_break_stays_and_redirects_answer() {
    let body = r#"
        location /a/ { rewrite ^/a/(.*)$ /b/$1 last; }
        location /b/ { rewrite ^/b/(.*)$ /c/$1 break; }
        location /r/ { rewrite ^ http://example.com/; }
        location /t/ { return 403; }
    "#;
    assert_eq!(follow(body, "/a/x?k=v"), ["@/b/ /c/x?k=v"]);
    assert_eq!(
        follow(body, "/r/x"),
        ["answered rewrite ^ http://example.com/"]
    );
    assert_eq!(follow(body, "/t/x"), ["answered return 403"]);
}

#[test]
fn a_rewrite_without_flag_searches_again_after_the_phase() {
    let body = r#"
        location /a/ { rewrite ^/a/(.*)$ /b/$1; set $x 1; }
        location /b/ { }
    "#;
    assert_eq!(follow(body, "/a/x"), ["@/b/ /b/x"]);
}

#[test]
fn a_rewrite_that_always_matches_cycles() {
    assert_eq!(
        follow("location / { rewrite ^(.*)$ /x$1; }", "/a"),
        ["cycle"]
    );
}

#[test]
fn if_is_evaluated_when_known_and_followed_both_ways_otherwise() {
    let body = r#"
        location / {
            if ($uri ~ ^/admin) { rewrite ^ /denied break; }
            if ($http_x_test) { rewrite ^ /header break; }
        }
    "#;
    assert_eq!(follow(body, "/admin/x"), ["@/ /denied"]);
    let mut both = follow(body, "/x");
    both.sort();
    assert_eq!(both, ["@/ /header", "@/ /x"]);
}

#[test]
fn set_variables_and_args_are_evaluated() {
    let body = r#"
        location / {
            set $p /v2;
            rewrite ^/(.*)$ $p/$1?from=$arg_from_unknown break;
        }
        location /q/ { rewrite ^ /got?$args break; }
    "#;
    assert_eq!(
        follow(body, "/x"),
        ["unknown rewrite ^/(.*)$ $p/$1?from=$arg_from_unknown break"]
    );
    // Arguments written after `?` are followed by the request's own unless the
    // replacement ends with `?`: nginx sends `a=1&a=1` here.
    assert_eq!(follow(body, "/q/x?a=1"), ["@/q/ /got?a=1&a=1"]);
}

// --- captures and their scope -------------------------------------------------------------

#[test]
fn captures_are_the_last_regex_evaluated_and_empty_when_none_ran() {
    let body = r#"
        location /n/ { set $c $1; rewrite ^ /got[$c] break; }
        location ~ ^/l/(\w+) {
            rewrite ^/nomatch(.*)$ /never;
            set $c $1;
            rewrite ^ /got[$c] break;
        }
        location ~ ^/k/(\w+) { set $c $1; rewrite ^ /got[$c][$1] break; }
    "#;
    assert_eq!(follow(body, "/n/x"), ["@/n/ /got[]"]);
    // A failed rewrite clears the location's captures.
    assert_eq!(follow(body, "/l/abc"), ["@~^/l/(\\w+) /got[]"]);
    // The location's `$1` until the rewrite's own regex (`^`, no group) replaces it.
    assert_eq!(follow(body, "/k/abc"), ["@~^/k/(\\w+) /got[abc][]"]);
}

#[test]
fn a_negated_if_that_passes_clears_the_captures() {
    let body = r#"
        location ~ ^/c/(\w+) {
            if ($uri !~ ^/zzz) { set $c $1; rewrite ^ /got[$c] break; }
        }
    "#;
    assert_eq!(follow(body, "/c/abc"), ["@~^/c/(\\w+) /got[]"]);
}

// --- normalisation, `$uri` and `$request_uri` ---------------------------------------------

#[test]
fn uri_is_decoded_and_request_uri_raw() {
    let body = r#"
        location /d/ { rewrite ^ $uri?via=uri break; }
        location /r/ { rewrite ^ $request_uri? break; }
    "#;
    assert_eq!(follow(body, "/d/a%3Fb"), ["@/d/ /d/a?b?via=uri"]);
    assert_eq!(follow(body, "/r/a%3Fb?q=1"), ["@/r/ /r/a%3Fb?q=1"]);
}

#[test]
fn merge_slashes_of_the_default_server_applies() {
    let on = "location /a/ { } location / { }";
    assert_eq!(follow(on, "//a//x"), ["@/a/ /a/x"]);
    let off = "merge_slashes off; location /a/ { } location / { }";
    assert_eq!(follow(off, "//a//x"), ["@/ //a//x"]);
}

// --- internal redirects -------------------------------------------------------------------

#[test]
fn an_internal_location_refuses_external_requests_but_not_rewrites() {
    let body = r#"
        location /i/ { internal; }
        location /go/ { rewrite ^/go/(.*)$ /i/$1 last; }
        location /t/ { try_files $uri /index.html; }
    "#;
    assert_eq!(follow(body, "/i/x"), ["answered /i/"]);
    assert_eq!(follow(body, "/go/x"), ["@/i/ /i/x"]);
    let inst = instance(&format!("server {{\n{body}\n}}"));
    let server = named(&inst, "server").next();
    let mut model = Model::new(&inst);
    let ends = model.follow(server, None, b"/t/x", None).unwrap();
    let fallback = ends[0].redirects().map(|d| d.name());
    assert_eq!(fallback, Some("try_files"), "a try_files end may redirect");
}

// --- access phase -------------------------------------------------------------------------

#[test]
fn access_checks_are_inherited_until_a_level_sets_its_own() {
    let inst = instance(
        r#"server {
            allow 10.0.0.0/8; deny all;
            auth_basic "x";
            location /open/ { allow all; auth_basic off; }
            location /in/ { satisfy any; }
        }"#,
    );
    let locs: Vec<_> = named(&inst, "location").collect();
    let open = Access::of(locs[0]);
    assert_eq!(open.rules.len(), 1);
    assert!(open.auth.is_none() && !open.restricts());
    let inner = Access::of(locs[1]);
    assert_eq!(inner.rules.len(), 2);
    assert!(inner.satisfy_any && inner.restricts());
}

// --- upstream -----------------------------------------------------------------------------

fn sent(server_body: &str, target: &str) -> String {
    let inst = instance(&format!("server {{\n{server_body}\n}}"));
    let server = named(&inst, "server").next();
    let pass = named(&inst, "proxy_pass").next().unwrap();
    let loc = pass.enclosing("location").unwrap();
    let mut model = Model::new(&inst);
    let ends = model.follow(server, None, target.as_bytes(), None).unwrap();
    let End::Content { req, .. } = &ends[0] else {
        panic!("{:?}", ends[0])
    };
    let s = model.upstream(pass, loc, req, target.as_bytes()).unwrap();
    String::from_utf8_lossy(&s.uri).into_owned()
}

#[test]
fn proxy_pass_replaces_the_prefix_or_sends_the_request_as_it_came() {
    assert_eq!(
        sent("location /api/ { proxy_pass http://b/v1/; }", "/api/x?q=1"),
        "/v1/x?q=1"
    );
    assert_eq!(
        sent("location /api/ { proxy_pass http://b; }", "/api/%2e/x"),
        "/api/%2e/x"
    );
    // After a rewrite the rest of the URI is escaped again.
    assert_eq!(
        sent(
            "location /api/ { rewrite ^ $request_uri break; proxy_pass http://b; }",
            "/api/a%2Fb"
        ),
        "/api/a%252Fb"
    );
    assert_eq!(
        sent(
            "location ~ ^/p/(.*)$ { proxy_pass http://b/$1; }",
            "/p/a%3Fb"
        ),
        "/a?b"
    );
}

// --- bounds -------------------------------------------------------------------------------

#[test]
fn ways_past_the_bound_give_no_answer() {
    let ifs: String = (0..7)
        .map(|i| format!("if ($http_x{i}) {{ set $v{i} 1; }}\n"))
        .collect();
    let inst = instance(&format!("server {{ location / {{ {ifs} }} }}"));
    let server = named(&inst, "server").next();
    let mut model = Model::new(&inst);
    assert!(model.follow(server, None, b"/x", None).is_none());
    // Six conditions make 64 ways: still answered.
    let ifs: String = (0..6)
        .map(|i| format!("if ($http_x{i}) {{ set $v{i} 1; }}\n"))
        .collect();
    let inst = instance(&format!("server {{ location / {{ {ifs} }} }}"));
    let server = named(&inst, "server").next();
    let mut model = Model::new(&inst);
    assert_eq!(model.follow(server, None, b"/x", None).unwrap().len(), 64);
}

#[test]
fn the_budget_counts_per_server() {
    let inst = instance("server { location / { } } server { location / { } }");
    let locs: Vec<_> = named(&inst, "location").collect();
    let mut b = Budget::default();
    for _ in 0..MAX_SIMULATED_PER_SERVER {
        assert!(b.take(locs[0]));
    }
    assert!(!b.take(locs[0]));
    assert!(b.take(locs[1]));
}

#[test]
fn examples_are_requests_the_location_serves() {
    let inst = instance(r#"server { location /api/ { } location ~ \.php$ { } }"#);
    let server = named(&inst, "server").next();
    let api = named(&inst, "location").next().unwrap();
    let mut model = Model::new(&inst);
    let ex: Vec<String> = model
        .examples(server, api)
        .into_iter()
        .map(|(t, _)| String::from_utf8_lossy(&t).into_owned())
        .collect();
    assert_eq!(ex, ["/api/x", "/api/a%2Fb", "/api/a%3Fb/c", "/api/a?x=1"]);
}
