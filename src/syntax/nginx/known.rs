//! Which directives take a block, and where: a small, explicit table until the directive
//! catalogue (generated from nginx's `ngx_command_t` tables) replaces it.
//!
//! The tokenizer alone cannot tell `rewrite ^/(\d{6})$ /x.php?id=$1 last;` from a block: the
//! `{` ends the word `^/(\d` and opens one. nginx decides in `ngx_conf_handler`
//! (src/core/ngx_conf_file.c, 1.22.1 l.395-410), once it has found the directive's command
//! *for the current context*: a command without `NGX_CONF_BLOCK` ended by `{` is
//! `directive "%s" is not terminated by ";"`, one with it ended by `;` is `directive "%s"
//! has no opening "{"`, both on the line of that `{` or `;`. A name known only in other
//! contexts is `"%s" directive is not allowed here`, an unknown one `unknown directive
//! "%s"`: neither is the parser's to say, and for names not in this table (third-party
//! modules, the rest of the catalogue) the parser goes on as it did: a `{` opens a block.
//!
//! Contexts are nginx's (`NGX_MAIN_CONF`, `NGX_EVENT_CONF`, `NGX_HTTP_{MAIN,SRV,LOC,UPS,SIF,
//! LIF,LMT}_CONF`, `NGX_STREAM_{MAIN,SRV,UPS}_CONF`, `NGX_MAIL_{MAIN,SRV}_CONF`), one bit
//! each. Where the parser is is a set of them: the top of a file may be any (a file is
//! included anywhere), and a block narrows it (`server` at the top is http's, stream's or
//! mail's; inside, `listen` is simple in all three). A verdict is given only when it holds
//! in every context the statement may be in where nginx knows the name: then nginx rejects
//! the statement in each (with this message where the name is allowed, with "not allowed
//! here" elsewhere).
//!
//! Where the entries come from: every command of that name in nginx's source (release-1.22.1
//! and HEAD 3f6f7824, `src/**/*.c`; the files are named beside each entry; where HEAD added a
//! context, it is noted), so a name's every context is here, in every module that defines
//! it. Verified with `nginx -t` (nginx 1.22.1, Debian nginx-light, with Debian's
//! libnginx-mod-stream and libnginx-mod-mail loaded): each name was written in each of the
//! 14 contexts, ended by `{` if it is simple there, by `;` if it is a block, and nginx gave
//! exactly the message this table predicts (or "not allowed here" where it is not allowed),
//! on that line — except the three contexts only later versions have (noted).
//!
//! The block directives are all of nginx's open-source ones (every command with
//! `NGX_CONF_BLOCK` in `src/`: 20 commands, 14 names). NGINX Plus's `match` is not in that
//! code (nginx 1.22.1: `unknown directive "match"`), nor here; OpenResty's
//! `*_by_lua_block` are read by the parser on their own.

/// A set of nginx's configuration contexts.
pub type Ctx = u16;

pub const MAIN: Ctx = 1 << 0;
pub const EVENTS: Ctx = 1 << 1;
pub const HTTP: Ctx = 1 << 2;
pub const HTTP_SRV: Ctx = 1 << 3;
pub const HTTP_LOC: Ctx = 1 << 4;
pub const HTTP_UPS: Ctx = 1 << 5;
/// `if` in a `server`.
pub const HTTP_SIF: Ctx = 1 << 6;
/// `if` in a `location`.
pub const HTTP_LIF: Ctx = 1 << 7;
/// `limit_except`.
pub const HTTP_LMT: Ctx = 1 << 8;
pub const STREAM: Ctx = 1 << 9;
pub const STREAM_SRV: Ctx = 1 << 10;
pub const STREAM_UPS: Ctx = 1 << 11;
pub const MAIL: Ctx = 1 << 12;
pub const MAIL_SRV: Ctx = 1 << 13;
/// Every context (`NGX_ANY_CONF`; and where nothing is known, as at the top of a file).
pub const ANY: Ctx = (1 << 14) - 1;
/// The inside of a word-list block (`types`, `map`, …): the module's own handler reads it
/// and no directive is looked up there.
const WORDS: Ctx = 0;

/// A directive name nginx knows, with the contexts where it is a simple directive and those
/// where it takes a block.
pub struct Known {
    pub name: &'static str,
    /// Where a `;` ends it.
    simple: Ctx,
    /// Where it takes a block, each with the context inside the block.
    blocks: &'static [(Ctx, Ctx)],
}

/// What nginx says of a statement ended the wrong way.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// `directive "%s" is not terminated by ";"`: a simple directive ended by `{`.
    NotTerminated,
    /// `directive "%s" has no opening "{"`: a block directive ended by `;`.
    NoOpening,
}

impl Verdict {
    pub fn message(self, name: &str) -> String {
        match self {
            Verdict::NotTerminated => format!("directive \"{name}\" is not terminated by \";\""),
            Verdict::NoOpening => format!("directive \"{name}\" has no opening \"{{\""),
        }
    }
}

impl Known {
    /// Where a `;` ends it.
    pub fn simple_contexts(&self) -> Ctx {
        self.simple
    }

    /// Where it takes a block.
    pub fn block_contexts(&self) -> Ctx {
        self.blocks.iter().fold(0, |all, &(at, _)| all | at)
    }

    /// nginx's verdict on this directive ended by `{` (`block`) or `;`, in one of the
    /// contexts `ctx`: `None` unless it is wrong in every one of them where the name is
    /// allowed (and it is allowed in one).
    pub fn verdict(&self, ctx: Ctx, block: bool) -> Option<Verdict> {
        let simple = self.simple & ctx != 0;
        let blocks = self.block_contexts() & ctx != 0;
        match (block, simple, blocks) {
            (true, true, false) => Some(Verdict::NotTerminated),
            (false, false, true) => Some(Verdict::NoOpening),
            _ => None,
        }
    }

    /// The contexts inside its block, opened in one of the contexts `ctx`; [`ANY`] when it
    /// takes no block there.
    pub fn inner(&self, ctx: Ctx) -> Ctx {
        let mut inner = 0;
        let mut found = false;
        for &(at, inside) in self.blocks {
            if at & ctx != 0 {
                inner |= inside;
                found = true;
            }
        }
        if found {
            inner
        } else {
            ANY
        }
    }
}

const fn known(name: &'static str, simple: Ctx, blocks: &'static [(Ctx, Ctx)]) -> Known {
    Known {
        name,
        simple,
        blocks,
    }
}

/// Sorted by name (a test checks).
#[rustfmt::skip]
const TABLE: &[Known] = &[
    // http/modules/ngx_http_log_module.c, stream/ngx_stream_log_module.c
    known("access_log", HTTP | HTTP_SRV | HTTP_LOC | HTTP_LIF | HTTP_LMT | STREAM | STREAM_SRV, &[]),
    // http/modules/ngx_http_headers_filter_module.c
    known("add_header", HTTP | HTTP_SRV | HTTP_LOC | HTTP_LIF, &[]),
    // http/ngx_http_core_module.c
    known("alias", HTTP_LOC, &[]),
    // http/modules/ngx_http_access_module.c, stream/ngx_stream_access_module.c
    known("allow", HTTP | HTTP_SRV | HTTP_LOC | HTTP_LMT | STREAM | STREAM_SRV, &[]),
    // http/modules/ngx_http_auth_basic_module.c
    known("auth_basic", HTTP | HTTP_SRV | HTTP_LOC | HTTP_LMT, &[]),
    // http/modules/ngx_http_auth_basic_module.c
    known("auth_basic_user_file", HTTP | HTTP_SRV | HTTP_LOC | HTTP_LMT, &[]),
    // http/modules/ngx_http_autoindex_module.c
    known("autoindex", HTTP | HTTP_SRV | HTTP_LOC, &[]),
    // http/modules/ngx_http_charset_filter_module.c
    known("charset", HTTP | HTTP_SRV | HTTP_LOC | HTTP_LIF, &[]),
    // http/modules/ngx_http_charset_filter_module.c
    known("charset_map", 0, &[(HTTP, WORDS)]),
    // http/ngx_http_core_module.c
    known("client_max_body_size", HTTP | HTTP_SRV | HTTP_LOC, &[]),
    // core/nginx.c
    known("daemon", MAIN, &[]),
    // http/ngx_http_core_module.c
    known("default_type", HTTP | HTTP_SRV | HTTP_LOC, &[]),
    // http/modules/ngx_http_access_module.c, stream/ngx_stream_access_module.c
    known("deny", HTTP | HTTP_SRV | HTTP_LOC | HTTP_LMT | STREAM | STREAM_SRV, &[]),
    // core/nginx.c
    known("env", MAIN, &[]),
    // core/ngx_log.c, http/ngx_http_core_module.c, mail/ngx_mail_core_module.c,
    // stream/ngx_stream_core_module.c
    known("error_log", MAIN | HTTP | HTTP_SRV | HTTP_LOC | STREAM | STREAM_SRV | MAIL | MAIL_SRV, &[]),
    // http/ngx_http_core_module.c
    known("error_page", HTTP | HTTP_SRV | HTTP_LOC | HTTP_LIF, &[]),
    // event/ngx_event.c
    known("events", 0, &[(MAIN, EVENTS)]),
    // http/modules/ngx_http_headers_filter_module.c
    known("expires", HTTP | HTTP_SRV | HTTP_LOC | HTTP_LIF, &[]),
    // http/modules/ngx_http_fastcgi_module.c
    known("fastcgi_index", HTTP | HTTP_SRV | HTTP_LOC, &[]),
    // http/modules/ngx_http_fastcgi_module.c
    known("fastcgi_param", HTTP | HTTP_SRV | HTTP_LOC, &[]),
    // http/modules/ngx_http_fastcgi_module.c
    known("fastcgi_pass", HTTP_LOC | HTTP_LIF, &[]),
    // http/modules/ngx_http_fastcgi_module.c
    known("fastcgi_read_timeout", HTTP | HTTP_SRV | HTTP_LOC, &[]),
    // http/modules/ngx_http_geo_module.c, stream/ngx_stream_geo_module.c
    known("geo", 0, &[(HTTP, WORDS), (STREAM, WORDS)]),
    // http/modules/ngx_http_grpc_module.c
    known("grpc_pass", HTTP_LOC | HTTP_LIF, &[]),
    // http/modules/ngx_http_gzip_filter_module.c
    known("gzip", HTTP | HTTP_SRV | HTTP_LOC | HTTP_LIF, &[]),
    // http/modules/ngx_http_gzip_filter_module.c
    known("gzip_types", HTTP | HTTP_SRV | HTTP_LOC, &[]),
    // http/ngx_http.c
    known("http", 0, &[(MAIN, HTTP)]),
    // http/modules/ngx_http_rewrite_module.c
    known("if", 0, &[(HTTP_SRV, HTTP_SIF), (HTTP_LOC, HTTP_LIF)]),
    // core/ngx_conf_file.c
    known("include", ANY, &[]),
    // http/modules/ngx_http_index_module.c
    known("index", HTTP | HTTP_SRV | HTTP_LOC, &[]),
    // http/ngx_http_core_module.c
    known("internal", HTTP_LOC, &[]),
    // http/modules/ngx_http_upstream_keepalive_module.c
    known("keepalive", HTTP_UPS, &[]),
    // http/modules/ngx_http_upstream_keepalive_module.c, http/ngx_http_core_module.c
    known("keepalive_timeout", HTTP | HTTP_SRV | HTTP_LOC | HTTP_UPS, &[]),
    // http/modules/ngx_http_limit_conn_module.c, stream/ngx_stream_limit_conn_module.c
    known("limit_conn", HTTP | HTTP_SRV | HTTP_LOC | STREAM | STREAM_SRV, &[]),
    // http/modules/ngx_http_limit_conn_module.c, stream/ngx_stream_limit_conn_module.c
    known("limit_conn_zone", HTTP | STREAM, &[]),
    // http/ngx_http_core_module.c
    known("limit_except", 0, &[(HTTP_LOC, HTTP_LMT)]),
    // http/modules/ngx_http_limit_req_module.c
    known("limit_req", HTTP | HTTP_SRV | HTTP_LOC, &[]),
    // http/modules/ngx_http_limit_req_module.c
    known("limit_req_zone", HTTP, &[]),
    // http/ngx_http_core_module.c, mail/ngx_mail_core_module.c, stream/ngx_stream_core_module.c
    known("listen", HTTP_SRV | STREAM_SRV | MAIL_SRV, &[]),
    // core/nginx.c
    known("load_module", MAIN, &[]),
    // http/ngx_http_core_module.c
    known("location", 0, &[(HTTP_SRV | HTTP_LOC, HTTP_LOC)]),
    // http/modules/ngx_http_log_module.c, stream/ngx_stream_log_module.c
    known("log_format", HTTP | STREAM, &[]),
    // mail/ngx_mail.c
    known("mail", 0, &[(MAIN, MAIL)]),
    // http/modules/ngx_http_map_module.c, stream/ngx_stream_map_module.c
    known("map", 0, &[(HTTP, WORDS), (STREAM, WORDS)]),
    // event/ngx_event.c
    known("multi_accept", EVENTS, &[]),
    // core/nginx.c
    known("pid", MAIN, &[]),
    // http/modules/ngx_http_proxy_module.c
    known("proxy_buffering", HTTP | HTTP_SRV | HTTP_LOC, &[]),
    // http/modules/ngx_http_proxy_module.c
    known("proxy_cache", HTTP | HTTP_SRV | HTTP_LOC, &[]),
    // http/modules/ngx_http_proxy_module.c
    known("proxy_cache_path", HTTP, &[]),
    // http/modules/ngx_http_proxy_module.c
    known("proxy_http_version", HTTP | HTTP_SRV | HTTP_LOC, &[]),
    // http/modules/ngx_http_proxy_module.c, stream/ngx_stream_proxy_module.c
    known("proxy_pass", HTTP_LOC | HTTP_LIF | HTTP_LMT | STREAM_SRV, &[]),
    // http/modules/ngx_http_proxy_module.c
    known("proxy_read_timeout", HTTP | HTTP_SRV | HTTP_LOC, &[]),
    // http/modules/ngx_http_proxy_module.c
    known("proxy_redirect", HTTP | HTTP_SRV | HTTP_LOC, &[]),
    // http/modules/ngx_http_proxy_module.c
    known("proxy_set_header", HTTP | HTTP_SRV | HTTP_LOC, &[]),
    // http/modules/ngx_http_realip_module.c
    known("real_ip_header", HTTP | HTTP_SRV | HTTP_LOC, &[]),
    // http/ngx_http_core_module.c, http/ngx_http_upstream.c, mail/ngx_mail_core_module.c,
    // stream/ngx_stream_core_module.c, stream/ngx_stream_upstream.c
    // (HTTP_UPS, STREAM_UPS: since 1.27.3; 1.22.1 says "not allowed here" there)
    known("resolver", HTTP | HTTP_SRV | HTTP_LOC | HTTP_UPS | STREAM | STREAM_SRV | STREAM_UPS | MAIL | MAIL_SRV, &[]),
    // http/modules/ngx_http_rewrite_module.c, stream/ngx_stream_return_module.c
    known("return", HTTP_SRV | HTTP_LOC | HTTP_SIF | HTTP_LIF | STREAM_SRV, &[]),
    // http/modules/ngx_http_rewrite_module.c
    known("rewrite", HTTP_SRV | HTTP_LOC | HTTP_SIF | HTTP_LIF, &[]),
    // http/ngx_http_core_module.c
    known("root", HTTP | HTTP_SRV | HTTP_LOC | HTTP_LIF, &[]),
    // http/ngx_http_core_module.c
    known("sendfile", HTTP | HTTP_SRV | HTTP_LOC | HTTP_LIF, &[]),
    // http/ngx_http_core_module.c, http/ngx_http_upstream.c, mail/ngx_mail_core_module.c,
    // stream/ngx_stream_core_module.c, stream/ngx_stream_upstream.c
    known("server", HTTP_UPS | STREAM_UPS, &[(HTTP, HTTP_SRV), (STREAM, STREAM_SRV), (MAIL, MAIL_SRV)]),
    // http/ngx_http_core_module.c, mail/ngx_mail_core_module.c, stream/ngx_stream_core_module.c
    // (STREAM_SRV: since 1.25.5; 1.22.1 says "not allowed here" there)
    known("server_name", HTTP_SRV | STREAM_SRV | MAIL | MAIL_SRV, &[]),
    // http/ngx_http_core_module.c
    known("server_tokens", HTTP | HTTP_SRV | HTTP_LOC, &[]),
    // http/modules/ngx_http_rewrite_module.c, stream/ngx_stream_set_module.c
    known("set", HTTP_SRV | HTTP_LOC | HTTP_SIF | HTTP_LIF | STREAM_SRV, &[]),
    // http/modules/ngx_http_realip_module.c, mail/ngx_mail_realip_module.c,
    // stream/ngx_stream_realip_module.c
    known("set_real_ip_from", HTTP | HTTP_SRV | HTTP_LOC | STREAM | STREAM_SRV | MAIL | MAIL_SRV, &[]),
    // http/modules/ngx_http_split_clients_module.c, stream/ngx_stream_split_clients_module.c
    known("split_clients", 0, &[(HTTP, WORDS), (STREAM, WORDS)]),
    // http/modules/ngx_http_ssl_module.c, mail/ngx_mail_ssl_module.c,
    // stream/ngx_stream_ssl_module.c
    known("ssl_certificate", HTTP | HTTP_SRV | STREAM | STREAM_SRV | MAIL | MAIL_SRV, &[]),
    // http/modules/ngx_http_ssl_module.c, mail/ngx_mail_ssl_module.c,
    // stream/ngx_stream_ssl_module.c
    known("ssl_certificate_key", HTTP | HTTP_SRV | STREAM | STREAM_SRV | MAIL | MAIL_SRV, &[]),
    // http/modules/ngx_http_ssl_module.c, mail/ngx_mail_ssl_module.c,
    // stream/ngx_stream_ssl_module.c
    known("ssl_ciphers", HTTP | HTTP_SRV | STREAM | STREAM_SRV | MAIL | MAIL_SRV, &[]),
    // http/modules/ngx_http_ssl_module.c, mail/ngx_mail_ssl_module.c,
    // stream/ngx_stream_ssl_module.c
    known("ssl_prefer_server_ciphers", HTTP | HTTP_SRV | STREAM | STREAM_SRV | MAIL | MAIL_SRV, &[]),
    // http/modules/ngx_http_ssl_module.c, mail/ngx_mail_ssl_module.c,
    // stream/ngx_stream_ssl_module.c
    known("ssl_protocols", HTTP | HTTP_SRV | STREAM | STREAM_SRV | MAIL | MAIL_SRV, &[]),
    // http/modules/ngx_http_ssl_module.c, mail/ngx_mail_ssl_module.c,
    // stream/ngx_stream_ssl_module.c
    known("ssl_session_cache", HTTP | HTTP_SRV | STREAM | STREAM_SRV | MAIL | MAIL_SRV, &[]),
    // http/modules/ngx_http_ssl_module.c, mail/ngx_mail_ssl_module.c,
    // stream/ngx_stream_ssl_module.c
    known("ssl_session_timeout", HTTP | HTTP_SRV | STREAM | STREAM_SRV | MAIL | MAIL_SRV, &[]),
    // stream/ngx_stream.c
    known("stream", 0, &[(MAIN, STREAM)]),
    // http/ngx_http_core_module.c
    known("tcp_nopush", HTTP | HTTP_SRV | HTTP_LOC, &[]),
    // http/modules/ngx_http_try_files_module.c
    known("try_files", HTTP_SRV | HTTP_LOC, &[]),
    // http/ngx_http_core_module.c
    known("types", 0, &[(HTTP | HTTP_SRV | HTTP_LOC, WORDS)]),
    // http/ngx_http_upstream.c, stream/ngx_stream_upstream.c
    known("upstream", 0, &[(HTTP, HTTP_UPS), (STREAM, STREAM_UPS)]),
    // event/ngx_event.c
    known("use", EVENTS, &[]),
    // core/nginx.c
    known("user", MAIN, &[]),
    // http/modules/ngx_http_uwsgi_module.c
    known("uwsgi_pass", HTTP_LOC | HTTP_LIF, &[]),
    // event/ngx_event.c
    known("worker_connections", EVENTS, &[]),
    // core/nginx.c
    known("worker_cpu_affinity", MAIN, &[]),
    // core/nginx.c
    known("worker_processes", MAIN, &[]),
    // core/nginx.c
    known("worker_rlimit_nofile", MAIN, &[]),
];

/// What the parser keeps for a directive name (its value: quotes and escapes resolved): the
/// table's entry for it, for [`get`], and [`TAKES_BLOCK`] when it takes a block somewhere;
/// [`NONE`] when the table has no entry. The parser asks once per distinct name of every
/// file (a 10 MB tree of vhosts: a million times), so this is a hash probe and one
/// comparison.
pub fn lookup(name: &[u8]) -> u8 {
    let mut slot = slot_of(name);
    loop {
        let i = INDEX[slot];
        if i == EMPTY {
            return NONE;
        }
        let k = &TABLE[i as usize];
        if k.name.as_bytes() == name {
            return if k.blocks.is_empty() {
                i
            } else {
                i | TAKES_BLOCK
            };
        }
        slot = (slot + 1) % SLOTS;
    }
}

/// Every entry, sorted by name (for the directive catalogue's consistency test).
pub fn all() -> &'static [Known] {
    TABLE
}

/// In a [`lookup`] result: the name is a block directive in some context.
pub const TAKES_BLOCK: u8 = 0x80;

/// What [`lookup`] returns for a name not in the table.
pub const NONE: u8 = 0x7f;

/// The entry behind a [`lookup`] result.
pub fn get(info: u8) -> Option<&'static Known> {
    TABLE.get((info & !TAKES_BLOCK) as usize)
}

/// Open addressing over the table's names, built at compile time (a third full).
const SLOTS: usize = 256;
const EMPTY: u8 = u8::MAX;
static INDEX: [u8; SLOTS] = index();

/// A name's first slot: its length and three of its bytes, mixed.
const fn slot_of(name: &[u8]) -> usize {
    let n = name.len();
    if n == 0 {
        return 0;
    }
    let mix = (n as u32).wrapping_mul(0x9E37_79B9)
        ^ (name[0] as u32).wrapping_mul(0x85EB_CA6B)
        ^ (name[n / 2] as u32).wrapping_mul(0xC2B2_AE35)
        ^ (name[n - 1] as u32).wrapping_mul(0x27D4_EB2F);
    (mix.wrapping_mul(0x9E37_79B9) >> 24) as usize
}

const fn index() -> [u8; SLOTS] {
    let mut index = [EMPTY; SLOTS];
    let mut i = 0;
    while i < TABLE.len() {
        let mut slot = slot_of(TABLE[i].name.as_bytes());
        while index[slot] != EMPTY {
            slot = (slot + 1) % SLOTS;
        }
        index[slot] = i as u8;
        i += 1;
    }
    index
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_sorted_and_small() {
        assert!(TABLE.windows(2).all(|w| w[0].name < w[1].name));
        assert!(TABLE.len() < SLOTS / 2 && TABLE.len() < NONE as usize);
        for k in TABLE {
            let info = lookup(k.name.as_bytes());
            assert_eq!(get(info).map(|g| g.name), Some(k.name));
            assert_eq!(info & TAKES_BLOCK != 0, !k.blocks.is_empty(), "{}", k.name);
        }
        for miss in [
            &b"no_such_directive"[..],
            b"",
            b"x",
            b"serve",
            b"servers",
            b"Server",
        ] {
            assert_eq!(lookup(miss), NONE);
        }
    }

    #[test]
    fn verdicts_hold_only_where_every_context_agrees() {
        let get = |n: &str| get(lookup(n.as_bytes())).unwrap();
        // A simple directive ended by `{` where it is allowed; not where it is not.
        assert_eq!(
            get("rewrite").verdict(HTTP_LOC, true),
            Some(Verdict::NotTerminated)
        );
        assert_eq!(
            get("rewrite").verdict(ANY, true),
            Some(Verdict::NotTerminated)
        );
        assert_eq!(get("rewrite").verdict(HTTP, true), None);
        assert_eq!(get("rewrite").verdict(HTTP_LOC, false), None);
        // `server` is a block in http, stream and mail, simple in an upstream.
        let server = get("server");
        assert_eq!(server.verdict(ANY, true), None);
        assert_eq!(server.verdict(ANY, false), None);
        assert_eq!(server.verdict(HTTP, false), Some(Verdict::NoOpening));
        assert_eq!(
            server.verdict(HTTP_UPS | STREAM_UPS, true),
            Some(Verdict::NotTerminated)
        );
        assert_eq!(server.inner(ANY), HTTP_SRV | STREAM_SRV | MAIL_SRV);
        assert_eq!(server.inner(STREAM), STREAM_SRV);
        assert_eq!(get("if").inner(HTTP_SRV | HTTP_LOC), HTTP_SIF | HTTP_LIF);
        assert_eq!(get("map").inner(HTTP), WORDS);
        assert_eq!(
            get("include").verdict(EVENTS, true),
            Some(Verdict::NotTerminated)
        );
    }
}
