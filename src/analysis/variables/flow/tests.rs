//! Provenance on small configurations read from memory, one per flow kind and scoping rule.

use super::*;
use crate::stack::expanded::Expanded;
use crate::stack::fs::DumpFs;
use crate::stack::nginx::{load, LoadOptions, NginxConfig};
use std::path::{Path, PathBuf};

struct Conf {
    config: NginxConfig,
    expanded: Expanded,
}

fn conf(server_body: &str) -> Conf {
    conf_http(&format!("server {{\n listen 80;\n{server_body}\n}}"))
}

fn conf_http(http_body: &str) -> Conf {
    let mut fs = DumpFs::default();
    let text = format!("events {{}}\nhttp {{\n{http_body}\n}}\n");
    fs.files
        .insert(PathBuf::from("/n/nginx.conf"), text.into_bytes());
    let config = load(&fs, Path::new("/n/nginx.conf"), &LoadOptions::default()).unwrap();
    assert!(config.problems.is_empty(), "{:?}", config.problems);
    let expanded = Expanded::build(&config);
    Conf { config, expanded }
}

impl Conf {
    fn view(&self) -> View<'_> {
        View {
            config: &self.config,
            expanded: &self.expanded,
        }
    }

    /// The answer for the last argument of the only `directive` whose first argument
    /// starts with `first`.
    fn ask(&self, directive: &str, first: &str) -> Answer {
        let p = Provenance::new(self.view());
        let view = p.view();
        let hits: Vec<OccId> = view
            .named(directive)
            .filter(|o| view.arg(*o, 0).is_some_and(|a| a.starts_with(first)))
            .collect();
        assert_eq!(hits.len(), 1, "{directive} {first}");
        let n = view.args(hits[0]).len();
        p.argument(hits[0], n - 1)
    }
}

fn d(list: &[Danger]) -> Dangers {
    Dangers::of(list)
}

use Danger::*;

#[test]
fn uri_is_decoded_so_it_carries_crlf_and_request_uri_is_raw() {
    let c = conf(
        "location / {\n return 302 https://example.com$uri;\n}\n\
         location /raw { add_header X $request_uri; }",
    );
    let a = c.ask("return", "302");
    assert_eq!(a.dangers(), d(&[CrLf, Slash]));
    let why = a.explain(CrLf);
    assert_eq!(why.len(), 1, "{why:?}");
    assert!(
        why[0].contains("`$uri` is the path percent-decoded"),
        "{why:?}"
    );
    assert!(why[0].starts_with("/n/nginx.conf:6:"), "{why:?}");
    let raw = c.ask("add_header", "X");
    assert_eq!(raw.dangers(), d(&[Slash, DotDot, Host]));
}

#[test]
fn set_chains_are_followed_with_every_link_in_the_reason() {
    let c = conf("location / {\n set $a $uri;\n set $b \"x${a}y\";\n add_header X $b;\n}");
    let a = c.ask("add_header", "X");
    assert!(a.can(CrLf));
    let why = a.explain(CrLf);
    assert_eq!(why.len(), 3, "{why:?}");
    assert!(why[0].contains("`$b` is set here"), "{why:?}");
    assert!(why[1].contains("`$a` is set here"), "{why:?}");
    assert!(why[2].contains("`$uri`"), "{why:?}");
    // A literal value carries nothing, whatever the variable's name.
    let c = conf("location / {\n set $uri_copy static;\n add_header X $uri_copy;\n}");
    assert!(c.ask("add_header", "X").dangers().is_empty());
}

#[test]
fn a_rewrite_phase_directive_sees_only_the_sets_before_it() {
    let before = conf("location / {\n set $v $uri;\n return 200 $v;\n}");
    assert!(before.ask("return", "200").can(CrLf));
    let after = conf("location / {\n return 200 $v;\n set $v $uri;\n}");
    assert!(after.ask("return", "200").dangers().is_empty());
    // A directive of a later phase sees every set of the location.
    let later = conf("location / {\n add_header X $v;\n set $v $uri;\n}");
    assert!(later.ask("add_header", "X").can(CrLf));
}

#[test]
fn server_level_sets_run_for_every_location() {
    let c = conf("set $v $http_x_token;\nlocation / { add_header X $v; }");
    let a = c.ask("add_header", "X");
    assert_eq!(a.dangers(), d(&[Slash, DotDot, Host]));
    assert!(a.explain(Host)[0].contains("`$v` is set here"));
    assert!(!a.explain(Host)[0].contains("internal redirect"));
}

#[test]
fn an_outer_locations_set_does_not_run_in_a_nested_one() {
    // ngx_http_rewrite_merge_loc_conf does not inherit the codes: only an internal
    // redirect through /a could have set it.
    let c = conf("location /a {\n set $v $uri;\n location /a/b { return 200 $v; }\n}");
    let a = c.ask("return", "200");
    assert!(a.can(CrLf));
    assert!(
        a.explain(CrLf)[0].contains("internal redirect"),
        "{:?}",
        a.explain(CrLf)
    );
    // Another server's set never reaches this one.
    let c = conf_http(
        "server { listen 80; location / { set $v $uri; } }\n\
         server { listen 81; location / { return 200 $v; } }",
    );
    assert!(c.ask("return", "200").dangers().is_empty());
}

#[test]
fn map_values_are_literals_or_carry_their_variables_and_key_captures() {
    let c = conf_http(
        "map $http_x $lit { default a; b c; }\n\
         map $uri $cap { default none; ~^/r/([^?]*)$ $1; }\n\
         map $uri $word { ~^/w/([a-z]+)$ $1; }\n\
         map $host $via { default $arg_next; }\n\
         server { listen 80;\n location / {\n add_header A $lit;\n add_header B $cap;\n \
         add_header C $word;\n add_header D $via;\n }\n}",
    );
    assert!(c.ask("add_header", "A").dangers().is_empty());
    let cap = c.ask("add_header", "B");
    // A piece of the path can be any host name (`/r/evil.com`).
    assert_eq!(cap.dangers(), d(&[CrLf, Slash, Host]));
    let why = cap.explain(CrLf).join("\n");
    assert!(why.contains("mapped to this for `~^/r/([^?]*)$`"), "{why}");
    assert!(why.contains("captured by the map key"), "{why}");
    // `[a-z]+` holds no CR, LF, `/` or `.`.
    assert!(c.ask("add_header", "C").dangers().is_empty());
    assert_eq!(
        c.ask("add_header", "D").dangers(),
        d(&[Slash, DotDot, Host])
    );
}

#[test]
fn geo_and_split_clients_values_are_the_configurations() {
    let c = conf_http(
        "geo $http_x_forwarded_for $g { default 0; 10.0.0.0/8 1; }\n\
         split_clients $request_uri $s { 50% a; * b; }\n\
         server { listen 80; location / { add_header X $g$s; } }",
    );
    assert!(c.ask("add_header", "X").dangers().is_empty());
}

#[test]
fn a_location_regex_capture_is_narrowed_by_its_group() {
    let c = conf(
        "location ~ ^/p/([^?]*)$ { return 302 https://x/$1; }\n\
         location ~ ^/q/([^/]+)$ { return 301 /$1; }\n\
         location ~ ^/d/(.*)$ { return 303 /$1; }",
    );
    // `.` takes no LF (without `(?s)`), and a bare CR splits no header.
    assert_eq!(c.ask("return", "303").dangers(), d(&[Slash, Host]));
    assert_eq!(c.ask("return", "302").dangers(), d(&[CrLf, Slash, Host]));
    // `[^/]` still holds CR and LF: the subject is the decoded `$uri`. Between `/` and the
    // end, the group is a whole segment of `$uri`, which is never `..`.
    assert_eq!(c.ask("return", "301").dangers(), d(&[CrLf, Host]));
    let why = c.ask("return", "301").explain(CrLf).join("\n");
    assert!(why.contains("`location` regex `^/q/([^/]+)$`"), "{why}");
}

#[test]
fn an_if_the_place_is_inside_hides_the_location_captures() {
    let c = conf("location ~ ^/([^?]*)$ {\n if ($http_x ~ ^([a-z]+)$) { return 302 /$1; }\n}");
    assert!(c.ask("return", "302").dangers().is_empty());
    // Outside the if, the location's capture may still be the last one that matched.
    let c = conf(
        "location ~ ^/([^?]*)$ {\n if ($http_x ~ ^([a-z]+)$) { set $z 1; }\n return 302 /$1;\n}",
    );
    assert!(c.ask("return", "302").can(CrLf));
}

#[test]
fn a_rewrite_replacement_uses_its_own_captures() {
    let c = conf("location ~ ^/([a-z]+)$ {\n rewrite ^/x/([^?]*)$ /y/$1;\n}");
    let p = Provenance::new(c.view());
    let r = p.view().named("rewrite").next().unwrap();
    assert!(
        p.argument(r, 1).can(CrLf),
        "its own ([^?]*), not the location's [a-z]+"
    );
}

#[test]
fn a_later_rewrite_regex_may_replace_the_captures() {
    let c = conf("location ~ ^/([a-z]+)$ {\n rewrite ^/([^?]*)$ /x;\n return 302 /$1;\n}");
    let a = c.ask("return", "302");
    assert!(a.can(CrLf), "the rewrite's ([^?]*) on $uri");
    let c = conf("location ~ ^/([a-z]+)$ {\n return 302 /$1;\n rewrite ^/([^?]*)$ /x;\n}");
    assert!(
        c.ask("return", "302").dangers().is_empty(),
        "the rewrite runs after"
    );
}

#[test]
fn named_captures_of_server_name_match_the_validated_host() {
    let c = conf(
        "server_name ~^(?<sub>[^.]+)\\.example\\.com$ ~^(?<whole>.+)$;\n\
         location / {\n proxy_pass http://$sub.internal;\n}\n\
         location /w {\n add_header X $whole;\n}",
    );
    assert!(c.ask("proxy_pass", "http").dangers().is_empty());
    assert_eq!(c.ask("add_header", "X").dangers(), d(&[Host]));
}

#[test]
fn hosts_addresses_and_realip() {
    let c = conf(
        "location / {\n add_header A $host;\n add_header B $http_x_forwarded_for;\n \
         add_header C $remote_addr;\n}\n\
         location /r {\n real_ip_header X-Forwarded-For;\n add_header D $remote_addr;\n}",
    );
    assert_eq!(c.ask("add_header", "A").dangers(), d(&[Host]));
    assert_eq!(
        c.ask("add_header", "B").dangers(),
        d(&[Slash, DotDot, Host])
    );
    assert!(c.ask("add_header", "C").dangers().is_empty());
    let real = c.ask("add_header", "D");
    assert_eq!(real.dangers(), d(&[Host]));
    assert!(real.explain(Host).join("\n").contains("realip"));
}

#[test]
fn file_names_follow_root_and_the_uri() {
    let c = conf(
        "root /srv/$host;\nlocation / {\n add_header A $request_filename;\n \
         add_header B $realpath_root;\n}\n\
         location /s {\n root /srv/static;\n add_header C $document_root;\n}",
    );
    assert_eq!(c.ask("add_header", "A").dangers(), d(&[CrLf, Slash, Host]));
    assert_eq!(c.ask("add_header", "B").dangers(), d(&[Host]));
    assert!(c.ask("add_header", "C").dangers().is_empty());
}

#[test]
fn fastcgi_path_info_comes_from_the_split_regex() {
    let c = conf(
        "location ~ \\.php {\n fastcgi_split_path_info ^([^?]+?\\.php)(/[a-z]*)$;\n \
         fastcgi_param PATH_INFO $fastcgi_path_info;\n fastcgi_param SCRIPT $fastcgi_script_name;\n}",
    );
    assert_eq!(c.ask("fastcgi_param", "PATH_INFO").dangers(), d(&[Slash]));
    assert_eq!(
        c.ask("fastcgi_param", "SCRIPT").dangers(),
        d(&[CrLf, Slash, Host])
    );
}

#[test]
fn cycles_end_and_long_chains_are_cut() {
    let c = conf("location / {\n set $a $b;\n set $b $a;\n return 200 $a;\n}");
    let a = c.ask("return", "200");
    assert!(a.dangers().is_empty() && !a.truncated);
    let mut body = String::from("location / {\n set $v0 $uri;\n");
    for i in 1..200 {
        body.push_str(&format!(" set $v{i} $v{};\n", i - 1));
    }
    body.push_str(" add_header X $v199;\n}");
    let a = conf(&body).ask("add_header", "X");
    assert!(a.truncated, "a chain of 200 sets is longer than MAX_DEPTH");
}

#[test]
fn a_huge_map_is_read_once_per_question() {
    let mut http = String::from("map $uri $m {\n default x;\n");
    for i in 0..50_000 {
        http.push_str(&format!(" /p{i} v{i};\n"));
    }
    http.push_str(
        " ~^/z/([^?]*)$ $1;\n}\nserver { listen 80; location / { add_header X $m$m$m; } }",
    );
    let c = conf_http(&http);
    let t = std::time::Instant::now();
    assert!(c.ask("add_header", "X").can(CrLf));
    assert!(t.elapsed().as_secs() < 5, "{:?}", t.elapsed());
}

#[test]
fn host_is_fixed_only_in_a_server_reached_by_exact_names() {
    let c = conf_http(
        "server { listen 80; server_name first.example; location / { add_header A $host; } }\n\
         server { listen 80; server_name b.example *.c.example; location / { add_header B $host; } }\n\
         server { listen 80; server_name d.example www.d.*; location / { add_header C $host; } }\n\
         server { listen 81 default_server; server_name e.example; location / { add_header D $host; } }\n\
         server { listen 81; server_name f.example; location / { add_header E $host; add_header F $http_host; } }",
    );
    // The first server of `*:80` is its default: any Host reaches it.
    assert_eq!(c.ask("add_header", "A").dangers(), d(&[Host]));
    assert!(c.ask("add_header", "B").dangers().is_empty());
    assert_eq!(
        c.ask("add_header", "C").dangers(),
        d(&[Host]),
        "a trailing wildcard"
    );
    assert_eq!(c.ask("add_header", "D").dangers(), d(&[Host]));
    assert!(
        c.ask("add_header", "E").dangers().is_empty(),
        "81's default is the other"
    );
    // The Host header need not be what chose the server (an absolute request line).
    assert_eq!(c.ask("add_header", "F").dangers(), d(&[Host]));
}

#[test]
fn a_rewrite_puts_its_replacement_into_uri() {
    let c = conf(
        "location /a {\n rewrite ^/a/(.*)$ /b/$arg_next?x=1;\n add_header X $uri;\n}\n\
         location /r {\n rewrite ^ https://example.com/$arg_next;\n add_header Y $uri;\n}\n\
         location /q {\n rewrite ^/q/ /b?$arg_next;\n add_header Z $uri;\n}\n\
         location /t {\n rewrite ^ /b/$arg_next?x=1;\n add_header T $uri;\n}\n\
         location /e {\n rewrite ^ $request_uri;\n rewrite ^/e(/.*) $1 break;\n add_header E $uri;\n}",
    );
    // A rewrite some URIs fail: its replacement, or the decoded path.
    let a = c.ask("add_header", "X");
    assert!(
        a.can(DotDot) && a.can(CrLf),
        "the argument, raw, and the decoded path"
    );
    assert!(a
        .explain(DotDot)
        .join("\n")
        .contains("`rewrite` sets `$uri`"));
    // A redirect leaves `$uri`; what follows `?` goes to the arguments.
    assert_eq!(c.ask("add_header", "Y").dangers(), d(&[CrLf, Slash]));
    assert_eq!(c.ask("add_header", "Z").dangers(), d(&[CrLf, Slash]));
    // `^` matches every URI: the decoded path is gone.
    let t = c.ask("add_header", "T");
    assert!(t.can(DotDot) && !t.can(CrLf), "only the argument");
    // The raw-URI idiom: what the client sent, still encoded, then a capture of it.
    assert!(!c.ask("add_header", "E").can(CrLf));
}

#[test]
fn merge_slashes_off_lets_uri_name_a_host() {
    let c = conf("merge_slashes off;\nlocation / { return 302 $uri; }");
    let a = c.ask("return", "302");
    assert!(a.can(Host));
    assert!(a.explain(Host).join("\n").contains("merge_slashes off"));
}

#[test]
fn captures_are_escaped_where_the_rewrite_module_quotes_them() {
    // Each case was checked against nginx 1.22 (tests/variables_binary.rs repeats it).
    let c = conf(
        "location ~ ^/s/([^/]*)$ { set $p $1; return 200 \"s$p\"; }\n\
         location ~ ^/t/([^/]*)$ { rewrite ^/t/([^/]*)$ /u/$1; set $p $1; return 200 \"t$p\"; }\n\
         location ~ ^/r/([^/]*)$ { rewrite ^/r/([^/]*)$ http://x/$1 redirect; }\n\
         location ~ ^/n/([^/]*)$ { rewrite ^/n/(?<q>[^/]*)$ http://x/$q redirect; }\n\
         location ~ ^/h/([^/]*)$ { add_header X-A \"$1\"; }\n\
         location ~ ^/v/(?<v>[^/]*)$ { set $p $v; return 200 \"v$p\"; }",
    );
    let p = Provenance::new(c.view());
    let view = p.view();
    let answer = |name: &str, last: &str| {
        let occ = view
            .named(name)
            .find(|o| view.args(*o).last().is_some_and(|a| a.starts_with(last)))
            .unwrap();
        let n = view.args(occ).len();
        p.argument(occ, n - 1).can(CrLf)
    };
    assert!(!answer("return", "s"), "set before any rewrite escapes $1");
    assert!(
        answer("return", "t"),
        "after a rewrite the quote flag is off"
    );
    let rewrite = |prefix: &str| {
        let occ = view
            .named("rewrite")
            .find(|o| view.arg(*o, 0).is_some_and(|a| a.starts_with(prefix)))
            .unwrap();
        p.argument(occ, 1).can(CrLf)
    };
    assert!(!rewrite("^/r/"), "a redirect escapes $1");
    assert!(
        rewrite("^/n/"),
        "a named capture is a variable, copied as it is"
    );
    assert!(answer("add_header", "$1"));
    assert!(answer("return", "v"));
}

#[test]
fn a_capture_cut_inside_a_segment_can_be_dot_dot() {
    // `/p..` is a path nginx keeps (`p..` is no `..` segment); `$1` is then `..`.
    let c = conf(
        "location ~ ^/p(.*)$ { alias /srv/$1; }\n\
         location ~ ^/files/([^/]+)$ { alias /srv/files/$1; }\n\
         location ~ ^/x/(.*)\\.php$ { alias /srv/x/$1; }",
    );
    let p = Provenance::new(c.view());
    let view = p.view();
    let alias = |prefix: &str| {
        let o = view
            .named("alias")
            .find(|o| view.arg(*o, 0).is_some_and(|a| a.starts_with(prefix)))
            .unwrap();
        p.argument(o, 0)
    };
    assert!(alias("/srv/$").can(DotDot));
    assert!(!alias("/srv/files/").can(DotDot), "a whole segment of $uri");
    // `/x/a/...php`: the greedy group stops at `/x/a/..`.
    assert!(alias("/srv/x/").can(DotDot));
}

#[test]
fn two_references_to_one_regex_both_count() {
    // `$1` and `$p` both come from the location regex on `$uri`, read once.
    let c = conf(
        "location ~ /proxy/(a|b)/(?<p>\\W*)$ {\n set $upstream \"http://$1/$p?\";\n \
         proxy_pass $upstream;\n}",
    );
    let a = c.ask("proxy_pass", "$");
    assert!(a.can(CrLf), "{:?}", a.dangers());
    assert!(a.explain(CrLf).join("\n").contains("`$p`"));
}

#[test]
fn map_entries_an_include_reads_count() {
    let mut fs = DumpFs::default();
    fs.files.insert(
        PathBuf::from("/n/nginx.conf"),
        b"events {}\nhttp {\n map $uri $m {\n  default a;\n  include /n/entries.map;\n }\n \
          server { listen 80; location / { add_header X $m; } }\n}\n"
            .to_vec(),
    );
    fs.files.insert(
        PathBuf::from("/n/entries.map"),
        b"/lit b;\n~^/r/(?<rest>[^?]*)$ $rest;\n".to_vec(),
    );
    let config = load(&fs, Path::new("/n/nginx.conf"), &LoadOptions::default()).unwrap();
    assert!(config.problems.is_empty(), "{:?}", config.problems);
    let expanded = Expanded::build(&config);
    let c = Conf { config, expanded };
    let a = c.ask("add_header", "X");
    assert!(a.can(CrLf), "{:?}", a.dangers());
    let why = a.explain(CrLf).join("\n");
    assert!(why.contains("/n/entries.map:2:"), "{why}");
}

#[test]
fn many_servers_cost_linear_time() {
    // Each server has its own named capture, set and $host: a question in one server
    // must not look at the others'.
    let n = 5_000;
    let mut http = String::new();
    for i in 0..n {
        http.push_str(&format!(
            "server {{ listen 80; server_name ~^(?<sub>[a-z]+)\\.s{i}\\.example$;\n \
             set $v $sub;\n location / {{ add_header X $v$host; }}\n location /o {{ set $w $uri; }}\n \
             location /p {{ add_header Y $w; }} }}\n"
        ));
    }
    let c = conf_http(&http);
    let p = Provenance::new(c.view());
    let view = p.view();
    let t = std::time::Instant::now();
    let mut hosts = 0;
    let mut crlf = 0;
    for occ in view.named("add_header") {
        let a = p.argument(occ, 1);
        hosts += a.can(Host) as usize;
        crlf += a.can(CrLf) as usize;
    }
    assert_eq!(
        hosts, n,
        "every X can hold a host: $host in servers open to any"
    );
    assert_eq!(
        crlf, n,
        "every Y: `$w` set in another location (an internal redirect)"
    );
    assert!(t.elapsed().as_secs() < 10, "{:?}", t.elapsed());
}

#[test]
fn random_configurations_never_panic() {
    // Directives of every flow kind, with variables, captures and regexes in random order
    // and nesting: every argument gets an answer.
    let pieces = [
        "set $a $b;",
        "set $b \"$1$a\";",
        "set $c $uri;",
        "rewrite ^/(?<n>[^/]*)(.*)$ /$n$2;",
        "rewrite ^ http://$host$c redirect;",
        "if ($a ~* (.+)) { set $d $1; }",
        "if ($n) { return 302 $d$2; }",
        "return 200 \"$n$a${b}\";",
        "add_header X $map$1$geo$d;",
        "location ~ ^/(x)(?'n'.*)$ { add_header Y $n$1; }",
        "location / { root /srv/$c; add_header Z $request_filename; }",
        "fastcgi_split_path_info ^(.+)(/.*)$;",
        "fastcgi_param P $fastcgi_path_info$fastcgi_script_name;",
    ];
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    for _ in 0..200 {
        let mut body = String::new();
        for _ in 0..8 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            body.push_str(pieces[(seed % pieces.len() as u64) as usize]);
            body.push('\n');
        }
        let http = format!(
            "map $uri$a $map {{ default $b; ~^/(?<m>.*)$ $1$m; include /nowhere; }}\n\
             geo $geo {{ default 1; }}\n\
             server {{ listen 80; server_name ~^(?<h>.+)$;\n{body}\n location /l {{\n{body}\n}} }}"
        );
        let mut fs = DumpFs::default();
        fs.files.insert(
            PathBuf::from("/n/nginx.conf"),
            format!("events {{}}\nhttp {{\n{http}\n}}\n").into_bytes(),
        );
        let config = load(&fs, Path::new("/n/nginx.conf"), &LoadOptions::default()).unwrap();
        let expanded = Expanded::build(&config);
        let c = Conf { config, expanded };
        let p = Provenance::new(c.view());
        let view = p.view();
        for occ in 0..c.expanded.occurrences.len() as OccId {
            for i in 0..view.args(occ).len() {
                let a = p.argument(occ, i);
                for d in a.dangers().iter() {
                    assert!(!a.explain(d).is_empty());
                }
            }
        }
    }
}

#[test]
fn a_map_of_many_regex_entries_asked_from_many_places_stays_linear() {
    let n = 2_000;
    let mut http = String::from("map $uri $m {\n default \"\";\n");
    for i in 0..n {
        http.push_str(&format!(
            " ~^/r{i}/([^?]*)$ /new{i}/$1;\n ~^/n{i}/(?<tail{i}>.*)$ x;\n"
        ));
    }
    http.push_str("}\nserver { listen 80;\n");
    for i in 0..n {
        http.push_str(&format!(
            " location /l{i} {{ return 301 $m; add_header T $tail{i}; }}\n"
        ));
    }
    http.push('}');
    let c = conf_http(&http);
    let p = Provenance::new(c.view());
    let view = p.view();
    let t = std::time::Instant::now();
    let mut crlf = 0;
    for occ in view.named("return").chain(view.named("add_header")) {
        crlf += p.argument(occ, 1).can(CrLf) as usize;
    }
    assert_eq!(crlf, n, "every return; no `(.*)` tail holds a LF");
    assert!(t.elapsed().as_secs() < 10, "{:?}", t.elapsed());
}
