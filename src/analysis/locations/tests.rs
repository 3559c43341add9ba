use super::*;
use crate::stack::expanded::Expanded;
use crate::stack::fs::DumpFs;
use crate::stack::nginx::{load, LoadOptions, NginxConfig};
use std::path::{Path, PathBuf};

/// A configuration whose `http { }` holds `http` (servers), with `snippet.conf` available
/// for includes.
fn config(http: &str, snippet: &str) -> NginxConfig {
    let mut fs = DumpFs::default();
    fs.files.insert(
        PathBuf::from("/t/nginx.conf"),
        format!("events {{ }}\nhttp {{\n{http}\n}}\n").into_bytes(),
    );
    fs.files.insert(
        PathBuf::from("/t/snippet.conf"),
        snippet.as_bytes().to_vec(),
    );
    let config = load(&fs, Path::new("/t/nginx.conf"), &LoadOptions::default()).unwrap();
    assert!(config.problems.is_empty(), "{:?}", config.problems);
    config
}

/// The locations of every server of `http`.
fn servers(http: &str) -> Locations {
    servers_with(http, "")
}

fn servers_with(http: &str, snippet: &str) -> Locations {
    let config = config(http, snippet);
    let expanded = Expanded::build(&config);
    let view = View {
        config: &config,
        expanded: &expanded,
    };
    Locations::build(&view)
}

/// The locations of the one server `body` is the inside of.
fn server(body: &str) -> ServerLocations {
    let mut all = servers(&format!("server {{\n{body}\n}}"));
    assert_eq!(all.servers.len(), 1);
    all.servers.pop().unwrap()
}

/// What serves `uri` (already normalised), by the text of a `return 200 "id"` in it
/// (falling back to the location's label), or `-` for the server level, `301 <label>` for
/// a redirect and `?` for unknown.
fn who(locs: &ServerLocations, uri: &str) -> String {
    let sel = locs.select(uri.as_bytes());
    match sel.outcome {
        Outcome::Unknown { .. } => "?".into(),
        Outcome::Redirect(l) => format!("301 {}", locs.get(l).label()),
        Outcome::Served => match sel.location() {
            None => "-".into(),
            Some(l) => locs.get(l).label(),
        },
    }
}

/// The nginx documentation's example (ngx_http_core_module, `location`), A to E.
const DOCS: &str = r"
    location = / { }                      # A
    location / { }                        # B
    location /documents/ { }              # C
    location ^~ /images/ { }              # D
    location ~* \.(gif|jpg|jpeg)$ { }     # E
";

#[test]
fn the_documentation_example_selects_as_documented() {
    let locs = server(DOCS);
    assert!(locs.problems.is_empty(), "{:?}", locs.problems);
    assert_eq!(who(&locs, "/"), "= /", "A");
    assert_eq!(who(&locs, "/index.html"), "/", "B");
    assert_eq!(who(&locs, "/documents/document.html"), "/documents/", "C");
    assert_eq!(who(&locs, "/images/1.gif"), "^~ /images/", "D");
    assert_eq!(who(&locs, "/documents/1.jpg"), r"~* \.(gif|jpg|jpeg)$", "E");
    // And the reasons given, in order.
    let sel = locs.select(b"/documents/1.jpg");
    assert_eq!(sel.chain.len(), 1);
    assert_eq!(sel.chain[0].why, Why::Regex { nth: 1 });
    assert_eq!(
        locs.select(b"/images/1.gif").chain[0].why,
        Why::NoRegexPrefix
    );
    assert_eq!(
        sel.explain(&locs),
        r"regex #1 ~* \.(gif|jpg|jpeg)$",
        "the trace names the regex"
    );
}

#[test]
fn an_exact_match_stops_the_search_even_before_regexes() {
    let locs = server("location = /a.php { }\nlocation ~ \\.php$ { }\nlocation / { }");
    assert_eq!(who(&locs, "/a.php"), "= /a.php");
    assert_eq!(who(&locs, "/b.php"), "~ \\.php$");
    // An exact location is not a prefix: what continues past its name is not its.
    assert_eq!(who(&locs, "/a.phpx"), "/");
    assert_eq!(who(&locs, "/a.ph"), "/");
}

#[test]
fn the_longest_prefix_wins_whatever_the_order() {
    let locs = server("location /a/b/c/ { }\nlocation / { }\nlocation /a/ { }\nlocation /a/b/ { }");
    assert_eq!(who(&locs, "/a/b/c/d"), "/a/b/c/");
    assert_eq!(who(&locs, "/a/b/c"), "/a/b/");
    assert_eq!(who(&locs, "/a/x"), "/a/");
    assert_eq!(who(&locs, "/ab"), "/");
    assert_eq!(who(&locs, "/"), "/");
}

#[test]
fn a_prefix_location_matches_bytes_not_path_segments() {
    // `location /static` serves `/static../etc/passwd` and `/staticfoo`: nginx compares
    // bytes, so a prefix without a final `/` takes every name that starts the same.
    let locs = server("location /static { }\nlocation / { }");
    assert_eq!(who(&locs, "/static../etc/passwd"), "/static");
    assert_eq!(who(&locs, "/staticfoo"), "/static");
    assert_eq!(who(&locs, "/stati"), "/");
}

#[test]
fn caret_tilde_stops_regexes_only_when_it_is_the_longest_prefix() {
    let locs = server("location ^~ /a/ { }\nlocation /a/b/ { }\nlocation ~ \\.php$ { }");
    assert_eq!(who(&locs, "/a/x.php"), "^~ /a/");
    // The longest prefix is `/a/b/`, not a `^~` one: the regex is tried and wins.
    assert_eq!(who(&locs, "/a/b/x.php"), "~ \\.php$");
    assert_eq!(who(&locs, "/a/b/x.html"), "/a/b/");
}

#[test]
fn caret_tilde_does_not_stop_the_regexes_nested_in_it() {
    // `^~` skips the regexes beside it; its own nested regexes are still tried.
    let locs = server(
        "location ^~ /up/ {\n  location ~ \\.php$ { return 403; }\n}\nlocation ~ \\.(php|gif)$ { }",
    );
    let sel = locs.select(b"/up/x.php");
    assert_eq!(sel.chain.len(), 2, "{}", sel.explain(&locs));
    assert_eq!(sel.chain[0].why, Why::NoRegexPrefix);
    assert_eq!(sel.chain[1].why, Why::Regex { nth: 1 });
    assert_eq!(who(&locs, "/up/x.gif"), "^~ /up/");
    assert_eq!(who(&locs, "/x.gif"), "~ \\.(php|gif)$");
}

#[test]
fn regexes_are_tried_in_configuration_order_and_the_first_match_wins() {
    let locs = server("location ~ ^/a { }\nlocation ~ \\.php$ { }\nlocation / { }");
    assert_eq!(who(&locs, "/a.php"), "~ ^/a");
    assert_eq!(who(&locs, "/b.php"), "~ \\.php$");
    assert_eq!(locs.select(b"/b.php").chain[0].why, Why::Regex { nth: 2 });
    let swapped = server("location ~ \\.php$ { }\nlocation ~ ^/a { }\nlocation / { }");
    assert_eq!(who(&swapped, "/a.php"), "~ \\.php$");
}

#[test]
fn tilde_star_is_caseless_and_tilde_and_prefixes_are_not() {
    let locs = server("location ~* \\.PHP$ { }\nlocation ~ \\.txt$ { }\nlocation /Up/ { }");
    assert_eq!(who(&locs, "/x.php"), "~* \\.PHP$");
    assert_eq!(who(&locs, "/x.Php"), "~* \\.PHP$");
    assert_eq!(
        who(&locs, "/x.TXT"),
        "-",
        "`~` is case-sensitive; no location /"
    );
    assert_eq!(who(&locs, "/Up/a"), "/Up/");
    assert_eq!(
        who(&locs, "/up/a"),
        "-",
        "prefixes are case-sensitive on Linux"
    );
}

#[test]
fn without_location_slash_a_uri_no_location_takes_is_served_by_the_server() {
    let locs = server("location /a/ { }\nlocation = /b { }");
    let sel = locs.select(b"/c");
    assert_eq!(sel.location(), None);
    assert!(sel.chain.is_empty());
    assert_eq!(sel.outcome, Outcome::Served);
    assert_eq!(sel.explain(&locs), "no location: server level");
    let empty = server("listen 80;");
    assert_eq!(who(&empty, "/"), "-");
}

#[test]
fn nested_locations_are_searched_inside_the_chosen_prefix() {
    let locs = server(
        "location /a/ {\n  location /a/b/ { }\n  location ~ \\.php$ { }\n}\n\
         location ~ \\.(php|html)$ { }\nlocation / { }",
    );
    // The nested regex comes before the regexes beside `/a/`.
    assert_eq!(who(&locs, "/a/x.php"), "~ \\.php$");
    let sel = locs.select(b"/a/x.php");
    assert_eq!(sel.chain.len(), 2, "{}", sel.explain(&locs));
    assert_eq!(locs.get(sel.chain[0].location).label(), "/a/");
    assert_eq!(
        locs.get(sel.chain[1].location).parent,
        Some(sel.chain[0].location)
    );
    // Nothing nested matches `.html`: the outer regex beats the nested prefix.
    assert_eq!(who(&locs, "/a/b/x.html"), "~ \\.(php|html)$");
    assert_eq!(locs.select(b"/a/b/x.html").chain.len(), 1);
    assert_eq!(who(&locs, "/a/b/x"), "/a/b/");
    assert_eq!(who(&locs, "/a/x"), "/a/");
    assert_eq!(
        locs.path(locs.select(b"/a/b/x").location().unwrap()).len(),
        2
    );
}

#[test]
fn a_nested_caret_tilde_stops_only_the_regexes_of_its_own_level() {
    let locs = server(
        "location /a/ {\n  location ^~ /a/b/ { }\n  location ~ \\.php$ { return 200 inner; }\n}\n\
         location ~ \\.php$ { }",
    );
    let sel = locs.select(b"/a/b/x.php");
    let served = sel.location().unwrap();
    assert_eq!(locs.get(served).parent, None, "{}", sel.explain(&locs));
    assert_eq!(locs.get(served).label(), "~ \\.php$");
}

#[test]
fn inside_a_regex_location_only_nested_regexes_are_searched() {
    // A nested prefix or exact location must start with its parent's name, even when the
    // parent's name is a regex: `/x/exact` is refused inside `~ ^/x/`. One that does
    // (`= /y/e` in `~ /y/`) is accepted but never searched: nginx builds no static tree
    // below a regex location.
    let locs = server(
        "location ~ ^/x/ {\n  location ~ \\.php$ { }\n  location = /x/exact { }\n}\n\
         location ~ /y/ {\n  location = /y/e { }\n  location /y/p/ { location ~ q { } }\n}\n\
         location / { }",
    );
    assert_eq!(
        locs.problems
            .iter()
            .map(|p| p.message.as_str())
            .collect::<Vec<_>>(),
        ["location \"/x/exact\" is outside location \"^/x/\""]
    );
    let sel = locs.select(b"/x/a.php");
    assert_eq!(sel.chain.len(), 2, "{}", sel.explain(&locs));
    assert_eq!(who(&locs, "/x/a.php"), "~ \\.php$");
    assert_eq!(who(&locs, "/x/exact"), "~ ^/x/");
    assert_eq!(who(&locs, "/y/e"), "~ /y/");
    assert_eq!(who(&locs, "/y/p/q"), "~ /y/");
    assert_eq!(who(&locs, "/y"), "/");
    let selectable: Vec<(String, bool)> = locs
        .locations()
        .iter()
        .map(|l| (l.label(), l.selectable))
        .collect();
    let expected = [
        ("~ ^/x/", true),
        ("~ \\.php$", true),
        ("~ /y/", true),
        ("= /y/e", false),
        ("/y/p/", false),
        ("~ q", false),
        ("/", true),
    ];
    let expected: Vec<(String, bool)> = expected.iter().map(|(l, s)| (l.to_string(), *s)).collect();
    assert_eq!(selectable, expected);
}

#[test]
fn named_locations_are_never_selected_by_a_uri_and_are_found_by_name() {
    let locs = server("location @fallback { }\nlocation @a { }\nlocation / { }");
    assert_eq!(who(&locs, "/@fallback"), "/");
    // Not even a URI spelled like one (after a rewrite): it starts no prefix either.
    assert_eq!(who(&locs, "@fallback"), "-");
    let id = locs.named(b"@fallback").unwrap();
    assert_eq!(locs.get(id).kind, Kind::Named);
    assert!(locs.named(b"@a").is_some());
    assert!(locs.named(b"@b").is_none());
    assert!(locs.named(b"fallback").is_none());
    let no_slash = server("location @x { }");
    assert_eq!(who(&no_slash, "/x"), "-");
}

#[test]
fn internal_is_reported_with_the_selection() {
    let locs = server("location /private/ { internal; }\nlocation / { }");
    let sel = locs.select(b"/private/a");
    assert!(sel.internal);
    assert!(locs.get(sel.location().unwrap()).internal);
    assert!(!locs.select(b"/public").internal);
    // Inherited by nested locations, and checked before the redirect of a name without
    // its final `/`.
    let nested = server(
        "location /p/ {\n  internal;\n  location /p/q/ { proxy_pass http://127.0.0.1:9; }\n}",
    );
    assert!(nested.select(b"/p/q/x").internal);
    let sel = nested.select(b"/p/q");
    assert!(matches!(sel.outcome, Outcome::Redirect(_)) && sel.internal);
}

#[test]
fn regex_captures_are_those_of_the_matching_location() {
    let locs = server(r"location ~ ^/u/(?<user>[^/]+)/(.*)$ { }");
    let sel = locs.select(b"/u/bob/a/b");
    let caps = sel.captures.expect("captures");
    assert_eq!(caps.get(1), Some((3, 6)));
    assert_eq!(caps.get(2), Some((7, 10)));
    assert!(locs.select(b"/x").captures.is_none());
}

#[test]
fn a_prefix_one_slash_short_of_a_proxied_location_is_redirected() {
    let locs = server(
        "location /api/ { proxy_pass http://127.0.0.1:9; }\nlocation /files/ { }\nlocation / { }",
    );
    let sel = locs.select(b"/api");
    assert!(matches!(sel.outcome, Outcome::Redirect(_)), "{sel:?}");
    assert_eq!(who(&locs, "/api"), "301 /api/");
    // No `*_pass`: no redirect, the shorter prefix serves.
    assert_eq!(who(&locs, "/files"), "/");
    assert_eq!(who(&locs, "/api/x"), "/api/");
    // The `Location:` of the redirect is the name, escaped as nginx escapes it.
    let odd = server(r#"location "/a b\\x\"%?#{}/" { proxy_pass http://127.0.0.1:9; }"#);
    let sel = odd.select(br#"/a b\x"%?#{}"#);
    let Outcome::Redirect(l) = sel.outcome else {
        panic!("{sel:?}")
    };
    assert_eq!(odd.get(l).escaped_name(), b"/a%20b%5Cx%22%25%3F%23%7B%7D/");
    // A nested one redirects too, and ends the search (no regex is tried).
    let nested = server(
        "location /r {\n  location /r/s/ { proxy_pass http://127.0.0.1:9; }\n}\n\
         location ~ s$ { }",
    );
    let sel = nested.select(b"/r/s");
    assert_eq!(
        who(&nested, "/r/s"),
        "301 /r/s/",
        "{}",
        sel.explain(&nested)
    );
    assert_eq!(sel.chain.len(), 2);
    assert_eq!(who(&nested, "/r/xs"), "~ s$");
}

#[test]
fn an_exact_and_a_prefix_location_of_the_same_name_share_it() {
    let locs = server("location /a { }\nlocation = /a { }\nlocation / { }");
    assert!(locs.problems.is_empty(), "{:?}", locs.problems);
    assert_eq!(who(&locs, "/a"), "= /a");
    assert_eq!(who(&locs, "/ab"), "/a");
}

#[test]
fn the_single_argument_spellings_are_read_as_nginx_reads_them() {
    let locs = server(
        "location =/x { }\nlocation ^~/i/ { }\nlocation ~*\\.GIF$ { }\n\
         location ~\\.c$ { }\nlocation ^x { }",
    );
    let kinds: Vec<(Kind, String)> = locs
        .locations()
        .iter()
        .map(|l| (l.kind, String::from_utf8_lossy(&l.name).into_owned()))
        .collect();
    assert_eq!(
        kinds,
        vec![
            (Kind::Exact, "/x".into()),
            (Kind::NoRegexPrefix, "/i/".into()),
            (Kind::Regex { caseless: true }, "\\.GIF$".into()),
            (Kind::Regex { caseless: false }, "\\.c$".into()),
            (Kind::Prefix, "^x".into()),
        ]
    );
    assert_eq!(who(&locs, "/i/a.gif"), "^~ /i/");
    assert_eq!(who(&locs, "/a.gif"), "~* \\.GIF$");
}

#[test]
fn what_nginx_refuses_is_a_problem_with_its_message() {
    let locs = server(
        "location = /e { location /e/x { } }\n\
         location @n { location /n { } }\n\
         location /p/ { location @inner { } location /q/ { } }\n\
         location /d { }\nlocation /d { }\n\
         if ($x) { location /in-if { } }\n\
         location ~ ( { }\n\
         location a b c { }\n\
         location !! /x { }",
    );
    let messages: Vec<&str> = locs.problems.iter().map(|p| p.message.as_str()).collect();
    for expected in [
        "location \"/e/x\" cannot be inside the exact location \"/e\"",
        "location \"/n\" cannot be inside the named location \"@n\"",
        "named location \"@inner\" can be on the server level only",
        "location \"/q/\" is outside location \"/p/\"",
        "duplicate location \"/d\"",
        "\"location\" directive is not allowed here",
        "invalid number of arguments in \"location\" directive",
        "invalid location modifier \"!!\"",
    ] {
        assert!(
            messages.contains(&expected),
            "{expected:?} in {messages:#?}"
        );
    }
    assert!(
        messages
            .iter()
            .any(|m| m.starts_with("pcre2_compile() failed")),
        "{messages:#?}"
    );
    // A refused location is not matched.
    assert_eq!(who(&locs, "/in-if"), "-");
    assert_eq!(who(&locs, "/dx"), "/d");
    assert_eq!(who(&locs, "/p/q/x"), "/p/");
    assert_eq!(who(&locs, "/q/x"), "-");
}

#[test]
fn a_regex_that_cannot_be_decided_makes_the_answer_unknown() {
    // Recursion is valid PCRE2 the matcher does not model.
    let locs = server("location ~ ^/(a(?1)?b)$ { }\nlocation / { }");
    let sel = locs.select(b"/aabb");
    assert!(!sel.is_decided());
    assert_eq!(sel.location(), None);
    assert!(matches!(
        sel.outcome,
        Outcome::Unknown {
            why: Unknown::Unsupported(_),
            ..
        }
    ));
    assert!(sel.explain(&locs).starts_with("unknown"));
    // A URI an earlier location settles is still known.
    let exact = server("location = /x { }\nlocation ~ ^/(a(?1)?b)$ { }");
    assert_eq!(who(&exact, "/x"), "= /x");
    // A Unicode script above U+007F is known only approximately.
    // (Quoted: an unquoted `{` would open the block.)
    let script = server("location ~ \"\\p{Greek}\" { }\nlocation / { }");
    assert_eq!(who(&script, "/\u{3b1}"), "?");
    assert_eq!(who(&script, "/a"), "/");
}

#[test]
fn includes_are_followed_and_each_server_has_its_own_tree() {
    let all = servers_with(
        "server { include /t/snippet.conf; location / { } }\nserver { location /b/ { } }\n\
         upstream u { server 127.0.0.1:9; }",
        "location ~ /\\.git { deny all; }\n",
    );
    assert_eq!(
        all.servers().len(),
        2,
        "an upstream's server is not a server block"
    );
    let first = &all.servers()[0];
    assert_eq!(who(first, "/.git/config"), "~ /\\.git");
    assert_eq!(who(&all.servers()[1], "/.git/config"), "-");
    assert_eq!(
        all.server(first.server).map(|s| s.server),
        Some(first.server)
    );
}

#[test]
fn the_locations_of_a_configuration_are_built_once_and_shared() {
    let config = config(
        "server { location /a/ { } }\nserver { location /b/ { } }",
        "",
    );
    let inst = crate::stack::model::config_instance(config, false);
    let first = Locations::of(&inst);
    let again = Locations::of(&inst);
    assert!(Arc::ptr_eq(&first, &again));
    assert_eq!(first.servers().len(), 2);
    assert_eq!(who(&first.servers()[1], "/b/x"), "/b/");
}

#[test]
fn select_request_normalises_with_the_servers_merge_slashes() {
    let on = server("location /a/b { }\nlocation / { }");
    assert!(on.merge_slashes);
    assert_eq!(
        on.select_request(b"//a///b?x")
            .map(|s| s.location().map(|l| on.get(l).label())),
        Ok(Some("/a/b".into()))
    );
    let off = server("merge_slashes off;\nlocation /a/b { }\nlocation / { }");
    assert!(!off.merge_slashes);
    assert_eq!(
        off.select_request(b"//a///b")
            .map(|s| s.location().map(|l| off.get(l).label())),
        Ok(Some("/".into()))
    );
    assert!(on.select_request(b"/../x").is_err());
}

#[test]
fn many_locations_build_and_select_without_quadratic_cost() {
    // 20,000 prefixes nested ten deep by name, and a regex at the end.
    let mut body = String::new();
    for i in 0..2000 {
        for d in 1..=10 {
            body.push_str(&format!("location /p{i}/{} {{ }}\n", "x/".repeat(d)));
        }
    }
    body.push_str("location ~ \\.php$ { }\n");
    let t = std::time::Instant::now();
    let locs = server(&body);
    assert_eq!(locs.locations().len(), 20_001);
    for i in (0..2000).step_by(7) {
        let uri = format!("/p{i}/{}y", "x/".repeat(10));
        assert_eq!(who(&locs, &uri), format!("/p{i}/{}", "x/".repeat(10)));
    }
    assert_eq!(who(&locs, "/p5/x/a.php"), "~ \\.php$");
    assert!(t.elapsed().as_secs() < 20, "took {:?}", t.elapsed());
}

#[test]
fn deep_nesting_is_searched_level_by_level() {
    // 200 prefixes, each inside the one before, each level with a regex for its depth.
    let depth = 200;
    let mut body = String::new();
    for d in 1..=depth {
        body.push_str(&format!("location /{} {{\n", "a/".repeat(d)));
        body.push_str(&format!("location ~ \"^/(a/){{{d}}}x{d}$\" {{ }}\n"));
    }
    body.push_str(&"}\n".repeat(depth));
    let locs = server(&body);
    assert!(locs.problems.is_empty(), "{:?}", locs.problems);
    let deepest = format!("/{}", "a/".repeat(depth));
    let sel = locs.select(format!("{deepest}z").as_bytes());
    assert_eq!(sel.chain.len(), depth);
    assert_eq!(who(&locs, &format!("{deepest}z")), deepest);
    // The regex inside the 50th prefix: tried once the levels under it found nothing.
    let uri = format!("/{}x50", "a/".repeat(50));
    let sel = locs.select(uri.as_bytes());
    assert_eq!(sel.chain.len(), 51);
    assert_eq!(sel.chain[50].why, Why::Regex { nth: 1 });
    assert_eq!(
        locs.get(sel.chain[50].location).parent,
        Some(sel.chain[49].location)
    );
}

#[test]
fn merge_slashes_is_the_default_servers_of_the_address() {
    let all = servers(
        "server { listen 80; merge_slashes off; location /a/ { } }\n\
         server { listen *:80; server_name b; location /a/ { } }\n\
         server { listen 127.0.0.1:81; location /a/ { } }\n\
         server { listen 127.0.0.1:81 default_server; merge_slashes off; location /a/ { } }\n\
         server { listen 127.0.0.1:81; listen 82; location /a/ { } }\n\
         server { location /a/ { } }",
    );
    let got: Vec<(bool, bool)> = all
        .servers()
        .iter()
        .map(|s| (s.merge_slashes, s.merge_slashes_varies))
        .collect();
    assert_eq!(
        got,
        [
            (false, false),
            // `*:80` is `80`: the first server is the default, its `off` applies.
            (false, false),
            // `default_server` beats the first listed.
            (false, false),
            (false, false),
            // 127.0.0.1:81 says off, 82 (this server is its default) says on.
            (true, true),
            // No `listen` is `*:80`.
            (false, false),
        ]
    );
    assert_eq!(
        all.servers()[1]
            .select_request(b"//a/x")
            .map(|s| s.location().is_some()),
        Ok(false)
    );
}

mod normalisation {
    use super::super::uri::{normalise, Reason};

    fn n(target: &str) -> Result<String, Reason> {
        normalise(target.as_bytes(), true)
            .map(|u| String::from_utf8_lossy(&u.path).into_owned())
            .map_err(|r| r.reason)
    }

    fn off(target: &str) -> Result<String, Reason> {
        normalise(target.as_bytes(), false)
            .map(|u| String::from_utf8_lossy(&u.path).into_owned())
            .map_err(|r| r.reason)
    }

    #[test]
    fn percent_escapes_are_decoded_and_read_as_sent() {
        assert_eq!(n("/a%20b"), Ok("/a b".into()));
        assert_eq!(n("/%41%62"), Ok("/Ab".into()));
        // An encoded `..` segment is a `..` segment; an encoded slash is a slash.
        assert_eq!(n("/a/%2e%2e/b"), Ok("/b".into()));
        assert_eq!(n("/a/.%2E/b"), Ok("/b".into()));
        assert_eq!(n("/a%2fb"), Ok("/a/b".into()));
        assert_eq!(n("/a%2f%2fb"), Ok("/a/b".into()));
        // `%3F`, `%23` and `%25` are plain bytes: no arguments, no fragment.
        assert_eq!(n("/a%3Fb"), Ok("/a?b".into()));
        assert_eq!(n("/a%23b"), Ok("/a#b".into()));
        assert_eq!(
            n("/a%25%32%65"),
            Ok("/a%2e".into()),
            "a decoded % is not decoded again"
        );
        assert_eq!(n("/static%2e%2e/etc"), Ok("/static../etc".into()));
    }

    #[test]
    fn bad_escapes_and_nul_are_refused() {
        assert_eq!(n("/a%"), Err(Reason::BadEscape));
        assert_eq!(n("/a%4"), Err(Reason::BadEscape));
        assert_eq!(n("/a%zz"), Err(Reason::BadEscape));
        assert_eq!(n("/a%00b"), Err(Reason::EncodedNul));
        assert_eq!(n("/a\x01"), Err(Reason::ControlByte));
        assert_eq!(n("/a b"), Err(Reason::Space));
        assert_eq!(n("a"), Err(Reason::NotOriginForm));
    }

    #[test]
    fn slashes_are_merged_unless_merge_slashes_is_off() {
        assert_eq!(n("//a///b//"), Ok("/a/b/".into()));
        assert_eq!(off("//a///b//"), Ok("//a///b//".into()));
    }

    #[test]
    fn dot_segments_are_resolved_and_dot_dot_above_the_root_is_refused() {
        assert_eq!(n("/a/./b"), Ok("/a/b".into()));
        assert_eq!(n("/a/."), Ok("/a/".into()));
        assert_eq!(n("/a/b/.."), Ok("/a/".into()));
        assert_eq!(n("/a/b/../../c"), Ok("/c".into()));
        assert_eq!(n("/a/../.."), Err(Reason::AboveRoot));
        assert_eq!(n("/.."), Err(Reason::AboveRoot));
        assert_eq!(n("/../a"), Err(Reason::AboveRoot));
        assert_eq!(n("/..a"), Ok("/..a".into()));
        assert_eq!(n("/a.."), Ok("/a..".into()));
        assert_eq!(n("/..."), Ok("/...".into()));
        assert_eq!(n("/a/..?x"), Ok("/".into()));
        assert_eq!(n("/a/.#x"), Ok("/a/".into()));
        // With merging off, each empty segment is a segment `..` removes.
        assert_eq!(off("/a//../b"), Ok("/a/b".into()));
        assert_eq!(off("//.."), Ok("/".into()));
    }

    #[test]
    fn the_query_and_the_fragment_end_the_path() {
        let u = normalise(b"/a/b?x=1&y=%2F#frag", true).unwrap();
        assert_eq!(u.path, b"/a/b");
        assert_eq!(u.args.as_deref(), Some(&b"x=1&y=%2F"[..]));
        let u = normalise(b"/a#b?c", true).unwrap();
        assert_eq!(u.path, b"/a");
        assert_eq!(u.args, None);
        assert_eq!(
            n("/a?/../.."),
            Ok("/a".into()),
            "the query is not normalised"
        );
        assert_eq!(normalise(b"/a?", true).unwrap().args, None);
    }
}
