//! nginx's built-in variables and what a client controls in each, read from nginx's source
//! (src/http/ngx_http_variables.c, the modules' `*_vars[]` tables; nginx 1.27, checked
//! against Debian's 1.22 by tests/variables_binary.rs).
//!
//! Each claim names the nginx function it rests on. The facts that decide most entries:
//! - the request line and header lines are split at CR and LF (`ngx_http_parse_request_line`,
//!   `ngx_http_parse_header_line` end the URI or value at `CR`/`LF`), so nothing taken raw from
//!   them holds a CR or LF — but `%0d%0a` stays encoded in the raw forms (`$request_uri`,
//!   `$args`, `$arg_*`);
//! - `$uri` is the path percent-DECODED and normalised (`ngx_http_parse_complex_uri`): a
//!   decoded byte is fed back into the state machine, so `%2e%2e` and `%2f` are dots and
//!   slashes that the `/../` folding sees — `$uri` never holds a `..` segment — while
//!   `%0d%0a` becomes CR LF (only a decoded NUL is refused);
//! - a `Host` header, the host of an absolute request line and the TLS SNI name all pass
//!   `ngx_http_validate_host` (called from `ngx_http_process_host`,
//!   `ngx_http_process_request_line` and `ngx_http_ssl_servername`), else 400: no `/`, no
//!   CR/LF, no two dots in a row in every version (recent ones also keep to letters,
//!   digits, `-._~`, sub-delims, `%`, an IP literal and a port; 1.22 still takes a `\`).
//!   It is still a host the client picked.

use super::danger::{Danger, Dangers};

/// Where a variable's value comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// Bytes the client sent, kept as sent (within what the HTTP parser lets through).
    Client,
    /// Bytes the client sent, decoded and normalised by nginx.
    Normalised,
    /// Bytes the client sent that nginx validated (a host name).
    Validated,
    /// Chosen by nginx, the machine or the configuration, whatever the client sends.
    Server,
    /// Sent by an upstream server (response headers): not the client's.
    Upstream,
    /// Built from the configuration (`root`, `realip`, …): [`super::flow`] works it out;
    /// [`Builtin::dangers`] is the answer when it cannot.
    Config,
}

/// A built-in variable (or a family of them: `$http_*`).
#[derive(Clone, Copy, Debug)]
pub struct Builtin {
    /// The name without `$`, or the prefix (`http_`) when [`Builtin::prefix`].
    pub name: &'static str,
    pub prefix: bool,
    /// The nginx module that defines it.
    pub module: &'static str,
    pub origin: Origin,
    /// What a client can put into it.
    pub dangers: Dangers,
    /// Why, in a few words (with nginx's function where it decides).
    pub why: &'static str,
}

const NONE: Dangers = Dangers::NONE;
/// Raw bytes of the request line or a header line: no CR/LF (they end the line), anything
/// else, `/` and `..` included, and so any host name.
const RAW: Dangers = Dangers::of(&[Danger::Slash, Danger::DotDot, Danger::Host]);
/// Arbitrary bytes (a body, base64-decoded text).
const ANY: Dangers = Dangers::ALL;
/// The decoded, normalised path: CR/LF and `/`; no `..` segment; starts with one `/`.
const PATH: Dangers = Dangers::of(&[Danger::CrLf, Danger::Slash]);
/// A validated host name.
const HOST: Dangers = Dangers::of(&[Danger::Host]);

const fn v(
    name: &'static str,
    module: &'static str,
    origin: Origin,
    dangers: Dangers,
    why: &'static str,
) -> Builtin {
    Builtin {
        name,
        prefix: false,
        module,
        origin,
        dangers,
        why,
    }
}

const fn p(
    name: &'static str,
    module: &'static str,
    origin: Origin,
    dangers: Dangers,
    why: &'static str,
) -> Builtin {
    Builtin {
        name,
        prefix: true,
        module,
        origin,
        dangers,
        why,
    }
}

use Origin::*;

const CORE: &str = "ngx_http_core_module";
const HEADER: &str = "a request header line, ended at CR/LF by ngx_http_parse_header_line";
const ARGS: &str = "the raw query string, undecoded (`%0d%0a` stays encoded; ngx_http_parse_request_line ends the line at CR/LF)";

/// The catalogue, exact names then prefixes. Lookups go through [`lookup`].
pub static BUILTINS: &[Builtin] = &[
    // Request line and URI (ngx_http_variables.c).
    v("request_uri", CORE, Client, RAW, "the URI as sent, undecoded: `%0d%0a` stays encoded, `/../` stays (ngx_http_parse_request_line ends it at CR/LF); `//host` is possible"),
    v("request", CORE, Client, RAW, "the request line as sent (ngx_http_parse_request_line ends it at CR/LF)"),
    v("args", CORE, Client, RAW, ARGS),
    v("query_string", CORE, Client, RAW, ARGS),
    v("uri", CORE, Config, PATH, "the path percent-decoded and normalised by ngx_http_parse_complex_uri: `%0d%0a` becomes CR LF, `/../` is folded"),
    v("document_uri", CORE, Config, PATH, "the same as `$uri` (ngx_http_parse_complex_uri)"),
    v("is_args", CORE, Server, NONE, "`?` or nothing"),
    v("request_method", CORE, Server, NONE, "a method token of A-Z, `_`, `-` (ngx_http_parse_request_line)"),
    v("server_protocol", CORE, Server, NONE, "`HTTP/d.d` (ngx_http_parse_request_line)"),
    v("scheme", CORE, Server, NONE, "`http` or `https`"),
    v("https", CORE, Server, NONE, "`on` or nothing"),
    // Host.
    v("host", CORE, Config, HOST, "the Host header or request-line host after ngx_http_validate_host (no `/`, CR/LF or `..`), else the server name"),
    v("http_host", CORE, Validated, HOST, "the Host header as sent, which ngx_http_process_host validated (ngx_http_validate_host) or refused with 400"),
    // Headers the client sends.
    v("http_user_agent", CORE, Client, RAW, HEADER),
    v("http_referer", CORE, Client, RAW, HEADER),
    v("http_via", CORE, Client, RAW, HEADER),
    v("http_x_forwarded_for", CORE, Client, RAW, "the X-Forwarded-For header lines, joined (ngx_http_variable_headers)"),
    v("http_cookie", CORE, Client, RAW, "the Cookie header lines, joined (ngx_http_variable_cookies)"),
    v("content_type", CORE, Client, RAW, HEADER),
    v("content_length", CORE, Server, NONE, "digits: ngx_http_process_request_header refuses another Content-Length with 400"),
    v("remote_user", "ngx_http_auth_basic_module", Client, ANY, "the user name base64-decoded from Authorization (ngx_http_auth_basic_user, ngx_decode_base64): any byte but `:`"),
    v("request_body", CORE, Client, ANY, "the request body: any bytes"),
    v("request_body_file", CORE, Server, NONE, "a temporary file name nginx chose"),
    // Addresses.
    v("remote_addr", CORE, Config, NONE, "the peer's address, unless realip replaces it with a header's value"),
    v("binary_remote_addr", CORE, Config, NONE, "the peer's address in binary, unless realip replaces it"),
    v("remote_port", CORE, Config, NONE, "the peer's port"),
    v("realip_remote_addr", "ngx_http_realip_module", Server, NONE, "the peer's address before realip"),
    v("realip_remote_port", "ngx_http_realip_module", Server, NONE, "the peer's port before realip"),
    v("proxy_protocol_addr", CORE, Client, HOST, "the PROXY protocol source address, hex digits, `.` and `:` only (ngx_proxy_protocol_read_addr)"),
    v("proxy_protocol_port", CORE, Client, NONE, "digits (ngx_proxy_protocol_read_port)"),
    v("proxy_protocol_server_addr", CORE, Client, HOST, "the PROXY protocol destination address (ngx_proxy_protocol_read_addr)"),
    v("proxy_protocol_server_port", CORE, Client, NONE, "digits (ngx_proxy_protocol_read_port)"),
    v("server_addr", CORE, Server, NONE, "the local address"),
    v("server_port", CORE, Server, NONE, "the local port"),
    v("server_name", CORE, Server, NONE, "the server's first name"),
    v("hostname", CORE, Server, NONE, "the machine's host name"),
    // Files.
    v("document_root", CORE, Config, NONE, "`root` or `alias`, with its variables evaluated"),
    v("realpath_root", CORE, Config, NONE, "`root` or `alias` with its variables, through realpath(): no `..` left"),
    v("request_filename", CORE, Config, PATH, "`root`/`alias` followed by `$uri` (ngx_http_map_uri_to_path)"),
    v("fastcgi_script_name", "ngx_http_fastcgi_module", Config, PATH, "`$uri`, or the first capture of fastcgi_split_path_info"),
    v("fastcgi_path_info", "ngx_http_fastcgi_module", Config, PATH, "the second capture of fastcgi_split_path_info on `$uri`"),
    // Chosen by nginx.
    v("status", CORE, Server, NONE, "the response status"),
    v("body_bytes_sent", CORE, Server, NONE, "a number"),
    v("bytes_sent", CORE, Server, NONE, "a number"),
    v("request_length", CORE, Server, NONE, "a number"),
    v("request_time", CORE, Server, NONE, "a number"),
    v("request_id", CORE, Server, NONE, "random hex digits"),
    v("request_completion", CORE, Server, NONE, "`OK` or nothing"),
    v("connection", CORE, Server, NONE, "a number"),
    v("connection_requests", CORE, Server, NONE, "a number"),
    v("connection_time", CORE, Server, NONE, "a number"),
    v("msec", CORE, Server, NONE, "a time"),
    v("time_iso8601", CORE, Server, NONE, "a time"),
    v("time_local", CORE, Server, NONE, "a time"),
    v("pid", CORE, Server, NONE, "a number"),
    v("nginx_version", CORE, Server, NONE, "a version"),
    v("limit_rate", CORE, Server, NONE, "a number"),
    v("tcpinfo_rtt", CORE, Server, NONE, "a number"),
    v("tcpinfo_rttvar", CORE, Server, NONE, "a number"),
    v("tcpinfo_snd_cwnd", CORE, Server, NONE, "a number"),
    v("tcpinfo_rcv_space", CORE, Server, NONE, "a number"),
    v("http2", "ngx_http_v2_module", Server, NONE, "`h2`, `h2c` or nothing"),
    v("http3", "ngx_http_v3_module", Server, NONE, "`h3` or nothing"),
    v("connections_active", "ngx_http_stub_status_module", Server, NONE, "a number"),
    v("connections_reading", "ngx_http_stub_status_module", Server, NONE, "a number"),
    v("connections_writing", "ngx_http_stub_status_module", Server, NONE, "a number"),
    v("connections_waiting", "ngx_http_stub_status_module", Server, NONE, "a number"),
    v("limit_conn_status", "ngx_http_limit_conn_module", Server, NONE, "a status word"),
    v("limit_req_status", "ngx_http_limit_req_module", Server, NONE, "a status word"),
    v("date_local", "ngx_http_ssi_filter_module", Server, NONE, "a time"),
    v("date_gmt", "ngx_http_ssi_filter_module", Server, NONE, "a time"),
    v("msie", "ngx_http_browser_module", Server, NONE, "`1` or nothing"),
    v("modern_browser", "ngx_http_browser_module", Server, NONE, "a configured value"),
    v("ancient_browser", "ngx_http_browser_module", Server, NONE, "a configured value"),
    v("secure_link", "ngx_http_secure_link_module", Server, NONE, "`1`, `0` or nothing"),
    v("secure_link_expires", "ngx_http_secure_link_module", Client, NONE, "digits from the link"),
    v("uid_got", "ngx_http_userid_filter_module", Client, NONE, "`uid=` and hex digits decoded from the cookie"),
    v("uid_set", "ngx_http_userid_filter_module", Server, NONE, "`uid=` and hex digits"),
    v("uid_reset", "ngx_http_userid_filter_module", Server, NONE, "a configured value"),
    v("gzip_ratio", "ngx_http_gzip_filter_module", Server, NONE, "a number"),
    v("invalid_referer", "ngx_http_referer_module", Server, NONE, "`1` or nothing"),
    v("proxy_host", "ngx_http_proxy_module", Config, NONE, "the host of `proxy_pass`"),
    v("proxy_port", "ngx_http_proxy_module", Config, NONE, "the port of `proxy_pass`"),
    v("proxy_add_x_forwarded_for", "ngx_http_proxy_module", Client, RAW, "the client's X-Forwarded-For header, then `$remote_addr`"),
    // Upstreams (ngx_http_upstream.c).
    v("upstream_addr", "ngx_http_upstream_module", Server, NONE, "addresses"),
    v("upstream_status", "ngx_http_upstream_module", Upstream, NONE, "status codes"),
    v("upstream_bytes_received", "ngx_http_upstream_module", Server, NONE, "numbers"),
    v("upstream_bytes_sent", "ngx_http_upstream_module", Server, NONE, "numbers"),
    v("upstream_connect_time", "ngx_http_upstream_module", Server, NONE, "numbers"),
    v("upstream_header_time", "ngx_http_upstream_module", Server, NONE, "numbers"),
    v("upstream_response_time", "ngx_http_upstream_module", Server, NONE, "numbers"),
    v("upstream_response_length", "ngx_http_upstream_module", Server, NONE, "numbers"),
    v("upstream_cache_status", "ngx_http_upstream_module", Server, NONE, "a status word"),
    v("upstream_cache_last_modified", "ngx_http_upstream_module", Upstream, NONE, "an upstream header"),
    v("upstream_cache_etag", "ngx_http_upstream_module", Upstream, NONE, "an upstream header"),
    // TLS (ngx_http_ssl_module.c).
    v("ssl_server_name", "ngx_http_ssl_module", Validated, HOST, "the SNI name, validated by ngx_http_ssl_servername (ngx_http_validate_host)"),
    v("ssl_client_cert", "ngx_http_ssl_module", Client, ANY, "the client's certificate in PEM, its lines joined by LF and a tab (ngx_ssl_get_certificate)"),
    v("ssl_client_raw_cert", "ngx_http_ssl_module", Client, ANY, "the client's certificate in PEM, with its line breaks (ngx_ssl_get_raw_certificate)"),
    v("ssl_client_escaped_cert", "ngx_http_ssl_module", Client, RAW, "the client's certificate in PEM, URL-escaped (ngx_ssl_get_escaped_certificate)"),
    v("ssl_client_s_dn", "ngx_http_ssl_module", Client, RAW, "the client certificate's subject, RFC 2253 with control characters escaped (ngx_ssl_get_subject_dn)"),
    v("ssl_client_i_dn", "ngx_http_ssl_module", Client, RAW, "the client certificate's issuer (ngx_ssl_get_issuer_dn)"),
    v("ssl_client_s_dn_legacy", "ngx_http_ssl_module", Client, RAW, "the client certificate's subject, `/`-separated (ngx_ssl_get_subject_dn_legacy)"),
    v("ssl_client_i_dn_legacy", "ngx_http_ssl_module", Client, RAW, "the client certificate's issuer, `/`-separated"),
    v("ssl_client_serial", "ngx_http_ssl_module", Client, NONE, "hex digits"),
    v("ssl_client_fingerprint", "ngx_http_ssl_module", Server, NONE, "hex digits"),
    v("ssl_client_verify", "ngx_http_ssl_module", Server, NONE, "`SUCCESS`, `FAILED:reason`, `NONE`"),
    v("ssl_client_v_start", "ngx_http_ssl_module", Client, NONE, "a date"),
    v("ssl_client_v_end", "ngx_http_ssl_module", Client, NONE, "a date"),
    v("ssl_client_v_remain", "ngx_http_ssl_module", Server, NONE, "a number"),
    v("ssl_client_sigalg", "ngx_http_ssl_module", Server, NONE, "an algorithm name"),
    v("ssl_protocol", "ngx_http_ssl_module", Server, NONE, "a protocol name"),
    v("ssl_cipher", "ngx_http_ssl_module", Server, NONE, "a cipher name"),
    v("ssl_ciphers", "ngx_http_ssl_module", Server, NONE, "cipher names or hex"),
    v("ssl_curve", "ngx_http_ssl_module", Server, NONE, "a curve name"),
    v("ssl_curves", "ngx_http_ssl_module", Server, NONE, "curve names or hex"),
    v("ssl_sigalg", "ngx_http_ssl_module", Server, NONE, "an algorithm name"),
    v("ssl_sigalgs", "ngx_http_ssl_module", Server, NONE, "algorithm names"),
    v("ssl_session_id", "ngx_http_ssl_module", Server, NONE, "hex digits"),
    v("ssl_session_reused", "ngx_http_ssl_module", Server, NONE, "`r` or `.`"),
    v("ssl_early_data", "ngx_http_ssl_module", Server, NONE, "`1` or nothing"),
    v("ssl_alpn_protocol", "ngx_http_ssl_module", Server, NONE, "a protocol the server offered"),
    // Families.
    p("http_", CORE, Client, RAW, HEADER),
    p("cookie_", CORE, Client, RAW, "a cookie's value from the Cookie header, undecoded (ngx_http_variable_cookie)"),
    p("arg_", CORE, Client, RAW, "an argument's value from the query string, undecoded (ngx_http_variable_argument)"),
    p("sent_http_", CORE, Upstream, NONE, "a response header: what nginx or the upstream set"),
    p("sent_trailer_", CORE, Upstream, NONE, "a response trailer: what nginx or the upstream set"),
    p("upstream_http_", "ngx_http_upstream_module", Upstream, NONE, "an upstream response header"),
    p("upstream_cookie_", "ngx_http_upstream_module", Upstream, NONE, "a cookie an upstream set"),
    p("upstream_trailer_", "ngx_http_upstream_module", Upstream, NONE, "an upstream response trailer"),
    p("proxy_protocol_tlv_", CORE, Client, ANY, "a PROXY protocol TLV's bytes as sent (ngx_proxy_protocol_get_tlv)"),
];

/// The built-in variable called `name` (any case, without `$`): an exact entry, else the
/// family with the longest matching prefix — which is how nginx resolves them
/// (`ngx_http_variables_init_vars` tries the exact name, then each prefix). A bare prefix
/// (`$http_`) is nothing.
pub fn lookup(name: &str) -> Option<&'static Builtin> {
    static EXACT: std::sync::OnceLock<crate::fxhash::FxHashMap<&'static str, usize>> =
        std::sync::OnceLock::new();
    let exact = EXACT.get_or_init(|| {
        BUILTINS
            .iter()
            .enumerate()
            .filter(|(_, b)| !b.prefix)
            .map(|(i, b)| (b.name, i))
            .collect()
    });
    let lower;
    let name = if name.bytes().any(|c| c.is_ascii_uppercase()) {
        lower = name.to_ascii_lowercase();
        lower.as_str()
    } else {
        name
    };
    if let Some(&i) = exact.get(name) {
        return Some(&BUILTINS[i]);
    }
    BUILTINS
        .iter()
        .filter(|b| b.prefix && name.len() > b.name.len() && name.starts_with(b.name))
        .max_by_key(|b| b.name.len())
}

/// The header a `$http_*` variable reads, as it is usually written: `x_forwarded_host`
/// (the name after `http_`) is `X-Forwarded-Host`.
pub fn header_name(var: &str) -> String {
    var.split('_')
        .map(|w| {
            let mut c = w.chars();
            match c.next() {
                Some(f) => f.to_ascii_uppercase().to_string() + c.as_str(),
                None => String::new(),
            }
        })
        .collect::<Vec<_>>()
        .join("-")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_names_win_over_families_and_case_does_not_matter() {
        assert_eq!(lookup("http_host").unwrap().origin, Origin::Validated);
        assert_eq!(lookup("HTTP_X_Api_Key").unwrap().name, "http_");
        assert!(lookup("http_").is_none(), "a bare prefix names no header");
        assert_eq!(
            lookup("upstream_http_location").unwrap().name,
            "upstream_http_"
        );
        assert!(lookup("no_such_variable").is_none());
    }

    #[test]
    fn the_raw_uri_holds_no_crlf_but_the_decoded_one_does() {
        let raw = lookup("request_uri").unwrap().dangers;
        let decoded = lookup("uri").unwrap().dangers;
        assert!(!raw.has(Danger::CrLf) && raw.has(Danger::DotDot));
        assert!(decoded.has(Danger::CrLf) && !decoded.has(Danger::DotDot));
        assert!(lookup("request_body").unwrap().dangers.has(Danger::CrLf));
    }

    #[test]
    fn a_validated_host_is_only_a_host() {
        for name in ["host", "http_host", "ssl_server_name"] {
            assert_eq!(lookup(name).unwrap().dangers, HOST, "{name}");
        }
    }

    /// Every exact name and prefix here is one nginx defines: its source lists it as
    /// `ngx_string("name")` in a variables table. Read from the fetched source mirror
    /// (`/work/.mirror`, or `$LEMPLINT_MIRRORS`) when present; like the catalogue's check
    /// (tests/catalogue_data.rs), it says it was skipped elsewhere: the sources are not
    /// part of the repository and no registry CI installs from ships them.
    #[test]
    fn every_entry_is_defined_by_nginx_source() {
        let Some(text) = nginx_sources() else {
            eprintln!("skipped: no nginx source mirror (set LEMPLINT_MIRRORS)");
            return;
        };
        let missing: Vec<&str> = BUILTINS
            .iter()
            .map(|b| b.name)
            .filter(|n| !text.contains(&format!("ngx_string(\"{n}\")")))
            .collect();
        assert!(missing.is_empty(), "not defined by nginx: {missing:?}");
    }

    fn nginx_sources() -> Option<String> {
        let mirrors = std::env::var("LEMPLINT_MIRRORS").unwrap_or_else(|_| "/work/.mirror".into());
        let git = format!("{mirrors}/nginx+nginx/repo");
        let out = std::process::Command::new("git")
            .args([
                "--git-dir",
                &git,
                "grep",
                "-h",
                "ngx_string(\"",
                "HEAD",
                "--",
                "src/http",
                "src/event",
            ])
            .output()
            .ok()?;
        out.status
            .success()
            .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
    }

    #[test]
    fn the_template_layer_knows_every_builtin() {
        for b in super::BUILTINS {
            assert!(
                crate::syntax::template::nginx_builtin(b.name.to_ascii_uppercase().as_bytes()),
                "${} is nginx's own: `${}` must not be read as a placeholder",
                b.name,
                b.name.to_ascii_uppercase()
            );
        }
    }
}
