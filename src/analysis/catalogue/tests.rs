use super::ctx::*;
use super::*;
use crate::syntax::nginx::known;

fn one<'a>(name: &str, module: &str) -> &'a Entry {
    lookup(name)
        .iter()
        .find(|e| e.module == module && e.removed.is_empty())
        .unwrap_or_else(|| panic!("{name} of {module} is in the catalogue"))
}

#[test]
fn sorted_and_looked_up_by_name() {
    assert!(all().windows(2).all(|w| w[0].name <= w[1].name));
    assert!(all().len() > 1000, "{}", all().len());
    let servers = lookup("server");
    assert!(servers.len() >= 4 && servers.iter().all(|e| e.name == "server"));
    assert!(lookup("no_such_directive").is_empty());
    assert!(lookup("").is_empty());
    assert!(lookup("zzzz").is_empty());
}

#[test]
fn facts_read_from_nginx_sources() {
    let sendfile = one("sendfile", "ngx_http_core_module");
    assert_eq!(
        sendfile.contexts,
        HTTP | HTTP_SRV | HTTP_LOC | HTTP_LIF,
        "{sendfile:?}"
    );
    assert!(sendfile.is_flag() && sendfile.is_duplicate_checked());
    assert_eq!(sendfile.merge, Merge::Inherited);
    assert_eq!(sendfile.merge_how, "merge:ngx_conf_merge_value");

    let add_header = one("add_header", "ngx_http_headers_filter_module");
    assert_eq!(add_header.merge, Merge::Array, "{add_header:?}");
    assert!(!add_header.is_duplicate_checked());
    assert_eq!(
        one("proxy_set_header", "ngx_http_proxy_module").merge,
        Merge::Array
    );
    assert_eq!(
        one("fastcgi_param", "ngx_http_fastcgi_module").merge,
        Merge::Array
    );
    assert_eq!(
        one("error_page", "ngx_http_core_module").merge,
        Merge::Array
    );
    let listen = one("listen", "ngx_http_core_module");
    assert_eq!(listen.merge, Merge::NotInherited, "{listen:?}");
    assert!(!listen.is_duplicate_checked());
    assert_eq!(listen.contexts, HTTP_SRV);

    // A handler that rejects only some second values (after `off`) is not "once per block".
    let redirect = one("proxy_redirect", "ngx_http_proxy_module");
    assert!(redirect.duplicate.starts_with("dup-if:"), "{redirect:?}");
    assert!(!redirect.is_duplicate_checked());
    // Custom handlers with a plain "already set" test are.
    assert!(one("root", "ngx_http_core_module").is_duplicate_checked());
    assert!(one("try_files", "ngx_http_try_files_module").is_duplicate_checked());

    let http = one("http", "ngx_http_module");
    assert!(http.block && http.contexts == MAIN && http.arity.accepts(0));
    assert!(!http.arity.accepts(1));
    assert_eq!(
        one("absolute_redirect", "ngx_http_core_module").since,
        "1.11.8"
    );
}

#[test]
fn removed_and_third_party_directives_are_known() {
    let ssl = lookup("ssl");
    assert!(!ssl.is_empty() && ssl.iter().all(|e| !e.removed.is_empty()));
    assert!(ssl.iter().any(|e| e.allowed_in(HTTP_SRV) && e.is_flag()));
    let more = lookup("more_set_headers");
    assert!(!more.is_empty() && more.iter().all(|e| e.dynamic));
    assert!(is_known("content_by_lua_block"));
    assert!(is_known("brotli"));
    assert!(is_known("geoip2"));
    assert!(is_known("js_import"));
}

#[test]
fn arity_follows_ngx_conf_handler() {
    let take12 = Arity(Arity::A1 | Arity::A2);
    assert!(!take12.accepts(0) && take12.accepts(1) && take12.accepts(2));
    assert!(!take12.accepts(3));
    let flag = Arity(Arity::FLAG);
    assert!(flag.accepts(1) && !flag.accepts(0) && !flag.accepts(2));
    let more1 = Arity(Arity::MORE1);
    assert!(!more1.accepts(0) && more1.accepts(1) && more1.accepts(100));
    let more2 = Arity(Arity::MORE2);
    assert!(!more2.accepts(1) && more2.accepts(2));
    assert!(Arity(Arity::ANYARGS).accepts(0) && Arity(Arity::ANYARGS).accepts(9));
    // Beyond NGX_CONF_MAX_ARGS nothing but 1MORE/2MORE/ANY passes.
    assert!(!Arity(0xff).accepts(8));
}

#[test]
fn suggestions_are_typos_allowed_in_the_context() {
    assert_eq!(suggest("sendfille", HTTP), Some("sendfile"));
    assert_eq!(suggest("proxy_pas", HTTP_LOC), Some("proxy_pass"));
    assert_eq!(suggest("worker_proceses", MAIN), Some("worker_processes"));
    // Not allowed there: no suggestion of it.
    assert_eq!(suggest("worker_proceses", HTTP_LOC), None);
    // Far from everything, or too short to guess.
    assert_eq!(suggest("pagespeed_enabled_filters", ANY), None);
    assert_eq!(suggest("ssx", ANY), None);
}

/// The parser's block table (layer 0, hand-written) and the generated catalogue agree on
/// every block directive of nginx's own source.
#[test]
fn parser_block_table_agrees_with_catalogue() {
    let core = |name: &str| -> Vec<&'static Entry> {
        lookup(name)
            .iter()
            .filter(|e| !e.dynamic && e.removed.is_empty())
            .collect()
    };
    let mut mismatches = Vec::new();
    for k in known::all() {
        let entries = core(k.name);
        assert!(!entries.is_empty(), "{} is not in the catalogue", k.name);
        let blocks = entries
            .iter()
            .filter(|e| e.block)
            .fold(0, |c, e| c | e.contexts);
        let simple = entries
            .iter()
            .filter(|e| !e.block)
            .fold(0, |c, e| c | e.contexts);
        // `include` is NGX_ANY_CONF.
        let simple = if simple == ANY { known::ANY } else { simple };
        if blocks != k.block_contexts() || simple != k.simple_contexts() {
            mismatches.push(format!(
                "{}: parser simple {:?} blocks {:?}, catalogue simple {:?} blocks {:?}",
                k.name,
                names(k.simple_contexts()),
                names(k.block_contexts()),
                names(simple),
                names(blocks)
            ));
        }
    }
    // Every block directive nginx has is in the parser's table.
    for e in all()
        .iter()
        .filter(|e| e.block && !e.dynamic && e.removed.is_empty())
    {
        if known::get(known::lookup(e.name.as_bytes())).is_none() {
            mismatches.push(format!(
                "{} ({}) is missing from known.rs",
                e.name, e.module
            ));
        }
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}

/// Defaults and syntax come from nginx.org's documentation, per module.
#[test]
fn documented_defaults_are_the_documentations() {
    let doc = |name: &str, module: &str| {
        lookup(name)
            .iter()
            .find(|e| e.module == module)
            .and_then(|e| e.documented())
    };
    let body = doc("client_max_body_size", "ngx_http_core_module").unwrap();
    assert_eq!(body.default, Some("1m"));
    assert_eq!(body.syntax, ["size"]);
    assert_eq!(
        doc("keepalive_timeout", "ngx_http_core_module")
            .unwrap()
            .default,
        Some("75s")
    );
    // `server_tokens` is documented in the core module only.
    assert_eq!(
        doc("server_tokens", "ngx_http_core_module")
            .unwrap()
            .default,
        Some("on")
    );
    // No default: `<default/>`.
    assert_eq!(
        doc("fastcgi_pass", "ngx_http_fastcgi_module")
            .unwrap()
            .default,
        None
    );
    // A block's syntax and its multi-line default.
    let types = doc("types", "ngx_http_core_module").unwrap();
    assert_eq!(types.syntax, ["{ ... }"]);
    assert!(types.default.unwrap().lines().count() > 1);
    // Third-party modules are not on nginx.org.
    assert!(doc("more_set_headers", "ngx_http_headers_more_filter_module").is_none());
    // Most of the catalogue's own entries are documented (the rest: third-party modules).
    let own: Vec<&Entry> = all()
        .iter()
        .filter(|e| !e.dynamic && e.removed.is_empty())
        .collect();
    let documented = own.iter().filter(|e| e.documented().is_some()).count();
    assert!(
        documented * 10 > own.len() * 9,
        "{documented} of {}",
        own.len()
    );
}
