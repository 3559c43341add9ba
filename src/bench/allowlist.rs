//! What `lemplint bench` lets through from the files into its private copy: an allowlist.
//!
//! The files being measured may come from someone else (a pull request, a customer's
//! tarball), and bench runs the real servers on them. A blocklist of dangerous directives
//! misses whatever it did not think of (a module's directive, a PHP setting that loads code),
//! so the copy keeps only directives whose effect bench understands — the ones that shape how
//! the stack serves and queues requests — and names every other one as dropped. Settings the
//! prefix decides (pid, logs, temporary paths, users) are replaced silently: they are the
//! copy's, not the stack's.

/// What the copy does with one directive or setting.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Copied as written (or rewritten where [`super::prefix`] says so: listen, root, …).
    Keep,
    /// The prefix sets its own: left out without a note.
    Prefix,
    /// Left out and named in the report: bench does not run what it does not understand.
    Drop,
}

/// nginx directives the copy keeps, in any context nginx accepts them. Everything not here
/// is dropped: modules (`load_module`), embedded languages (Lua, Perl, njs), anything that
/// reads or writes files outside the prefix or reaches the network. `include` is expanded
/// before the copy is written; `*_cache_path` is rewritten into the prefix.
const NGINX_KEEP: &[&str] = &[
    // Structure and serving.
    "events",
    "http",
    "server",
    "location",
    "if",
    "limit_except",
    "upstream",
    "listen",
    "server_name",
    "root",
    "alias",
    "index",
    "try_files",
    "return",
    "rewrite",
    "set",
    "break",
    "error_page",
    "internal",
    "default_type",
    "types",
    "map",
    "geo",
    "split_clients",
    "autoindex",
    "autoindex_exact_size",
    "autoindex_format",
    "autoindex_localtime",
    "add_header",
    "add_trailer",
    "expires",
    "etag",
    "charset",
    "source_charset",
    "override_charset",
    "charset_types",
    "allow",
    "deny",
    "satisfy",
    "stub_status",
    "rewrite_log",
    "uninitialized_variable_warn",
    "recursive_error_pages",
    "absolute_redirect",
    "port_in_redirect",
    "server_name_in_redirect",
    "merge_slashes",
    "ignore_invalid_headers",
    "underscores_in_headers",
    "log_not_found",
    "log_subrequest",
    "msie_padding",
    "msie_refresh",
    "chunked_transfer_encoding",
    "server_tokens",
    "if_modified_since",
    "max_ranges",
    "disable_symlinks",
    "http2",
    "http2_max_concurrent_streams",
    "http2_chunk_size",
    "http2_body_preread_size",
    "http2_recv_buffer_size",
    "http2_idle_timeout",
    "http2_max_requests",
    // Processes and connections.
    "worker_processes",
    "worker_connections",
    "worker_rlimit_nofile",
    "worker_cpu_affinity",
    "worker_priority",
    "worker_shutdown_timeout",
    "worker_aio_requests",
    "use",
    "multi_accept",
    "accept_mutex",
    "accept_mutex_delay",
    "timer_resolution",
    "pcre_jit",
    "thread_pool",
    // Buffers, timeouts, keep-alive, I/O.
    "sendfile",
    "sendfile_max_chunk",
    "tcp_nopush",
    "tcp_nodelay",
    "aio",
    "aio_write",
    "directio",
    "directio_alignment",
    "read_ahead",
    "output_buffers",
    "postpone_output",
    "send_lowat",
    "send_timeout",
    "keepalive_timeout",
    "keepalive_requests",
    "keepalive_time",
    "keepalive_disable",
    "keepalive",
    "lingering_close",
    "lingering_time",
    "lingering_timeout",
    "reset_timedout_connection",
    "client_header_timeout",
    "client_body_timeout",
    "client_max_body_size",
    "client_body_buffer_size",
    "client_header_buffer_size",
    "client_body_in_file_only",
    "client_body_in_single_buffer",
    "large_client_header_buffers",
    "connection_pool_size",
    "request_pool_size",
    "subrequest_output_buffer_size",
    "open_file_cache",
    "open_file_cache_valid",
    "open_file_cache_min_uses",
    "open_file_cache_errors",
    "open_file_cache_events",
    "limit_rate",
    "limit_rate_after",
    "server_names_hash_max_size",
    "server_names_hash_bucket_size",
    "types_hash_max_size",
    "types_hash_bucket_size",
    "variables_hash_max_size",
    "variables_hash_bucket_size",
    "map_hash_max_size",
    "map_hash_bucket_size",
    // Rate and connection limits (shared-memory zones, in the prefix's processes).
    "limit_req_zone",
    "limit_req",
    "limit_req_status",
    "limit_req_log_level",
    "limit_req_dry_run",
    "limit_conn_zone",
    "limit_conn",
    "limit_conn_status",
    "limit_conn_log_level",
    "limit_conn_dry_run",
    "limit_zone",
    // Compression.
    "gzip",
    "gzip_comp_level",
    "gzip_types",
    "gzip_min_length",
    "gzip_buffers",
    "gzip_http_version",
    "gzip_proxied",
    "gzip_vary",
    "gzip_disable",
    // Upstream groups (only groups of the stack's pools are copied).
    "least_conn",
    "ip_hash",
    "hash",
    "random",
    "zone",
    // TLS settings that shape handshakes (certificates and keys are the server's: dropped).
    "ssl_protocols",
    "ssl_ciphers",
    "ssl_prefer_server_ciphers",
    "ssl_session_cache",
    "ssl_session_timeout",
    "ssl_session_tickets",
    "ssl_ecdh_curve",
    "ssl_buffer_size",
    "ssl_early_data",
    "ssl_reject_handshake",
    // Caches: their path is rewritten into the prefix (see `prefix::Writer::cache_path`).
    "fastcgi_cache_path",
    "proxy_cache_path",
];

/// Directives the prefix decides: its own pid, logs and temporary paths, no user switch.
const NGINX_PREFIX: &[&str] = &[
    "user",
    "pid",
    "daemon",
    "master_process",
    "error_log",
    "access_log",
    "log_format",
    "include",
    "client_body_temp_path",
    "proxy_temp_path",
    "fastcgi_temp_path",
    "uwsgi_temp_path",
    "scgi_temp_path",
    "lock_file",
    "working_directory",
    "open_log_file_cache",
];

/// The `fastcgi_*`/`proxy_*` settings bench understands: buffers, timeouts, keep-alive,
/// headers, retries and the cache's behaviour. Not: `*_store` (writes files), `*_ssl_*`
/// (reads certificate files), `*_bind` (chooses the source address), `proxy_pass` (refused
/// apart: traffic stays on loopback).
fn upstream_setting(name: &str) -> bool {
    let Some(rest) = name
        .strip_prefix("fastcgi_")
        .or_else(|| name.strip_prefix("proxy_"))
    else {
        return false;
    };
    const OK: &[&str] = &[
        "pass",
        "param",
        "index",
        "split_path_info",
        "keep_conn",
        "intercept_errors",
        "buffering",
        "request_buffering",
        "buffer_size",
        "buffers",
        "busy_buffers_size",
        "max_temp_file_size",
        "temp_file_write_size",
        "connect_timeout",
        "send_timeout",
        "read_timeout",
        "next_upstream",
        "next_upstream_tries",
        "next_upstream_timeout",
        "hide_header",
        "pass_header",
        "ignore_headers",
        "pass_request_body",
        "pass_request_headers",
        "ignore_client_abort",
        "limit_rate",
        "socket_keepalive",
        "force_ranges",
        "catch_stderr",
        "http_version",
        "set_header",
        "redirect",
        "cache",
        "cache_key",
        "cache_valid",
        "cache_methods",
        "cache_min_uses",
        "cache_bypass",
        "no_cache",
        "cache_lock",
        "cache_lock_timeout",
        "cache_lock_age",
        "cache_use_stale",
        "cache_background_update",
        "cache_revalidate",
        "cache_max_range_offset",
        "cache_convert_head",
    ];
    OK.contains(&rest)
}

/// What the copy does with the nginx directive `name`.
pub fn nginx(name: &str) -> Verdict {
    if NGINX_PREFIX.contains(&name) {
        Verdict::Prefix
    } else if NGINX_KEEP.contains(&name) || upstream_setting(name) {
        Verdict::Keep
    } else {
        Verdict::Drop
    }
}

/// `fastcgi_param`s the copy drops: PHP-FPM applies `PHP_VALUE`/`PHP_ADMIN_VALUE` as php.ini
/// settings for the request (an `extension`, an `auto_prepend_file`), bypassing the pool
/// allowlist below.
pub fn dropped_fastcgi_param(param: &str) -> bool {
    let p = param.to_ascii_uppercase();
    p == "PHP_VALUE" || p == "PHP_ADMIN_VALUE"
}

/// Pool settings the copy keeps: the process manager, the listen queue, request limits.
const POOL_KEEP: &[&str] = &[
    "pm",
    "pm.max_children",
    "pm.start_servers",
    "pm.min_spare_servers",
    "pm.max_spare_servers",
    "pm.max_spawn_rate",
    "pm.process_idle_timeout",
    "pm.max_requests",
    "listen.backlog",
    "request_terminate_timeout",
    "request_terminate_timeout_track_finished",
    "rlimit_files",
    "process.priority",
    "catch_workers_output",
    "decorate_workers_output",
];

/// Pool settings the prefix decides (where it listens, who runs it, its logs).
const POOL_PREFIX: &[&str] = &[
    "user",
    "group",
    "listen",
    "listen.owner",
    "listen.group",
    "listen.mode",
    "listen.acl_users",
    "listen.acl_groups",
    "listen.allowed_clients",
    "access.log",
    "access.format",
    "slowlog",
    "request_slowlog_timeout",
    "request_slowlog_trace_depth",
    "prefix",
    "include",
    "pm.status_path",
    "pm.status_listen",
    "ping.path",
    "ping.response",
    "clear_env",
    "security.limit_extensions",
    "chdir",
];

/// PHP settings (`php_value[…]`, `php_admin_value[…]`, `php_flag[…]`, `php_admin_flag[…]`)
/// the copy keeps: the ones that shape load. Not `extension`, `zend_extension` (load
/// code), `auto_prepend_file`/`auto_append_file`/`allow_url_include`/`include_path` (run
/// other PHP), paths (`error_log`, `session.save_path`, `opcache.preload`, …).
const PHP_KEEP: &[&str] = &[
    "memory_limit",
    "max_execution_time",
    "max_input_time",
    "max_input_vars",
    "max_input_nesting_level",
    "post_max_size",
    "upload_max_filesize",
    "max_file_uploads",
    "output_buffering",
    "implicit_flush",
    "realpath_cache_size",
    "realpath_cache_ttl",
    "zend.enable_gc",
    "pcre.jit",
    "pcre.backtrack_limit",
    "pcre.recursion_limit",
    "precision",
    "serialize_precision",
    "default_charset",
    "date.timezone",
    "short_open_tag",
    "display_errors",
    "display_startup_errors",
    "error_reporting",
    "log_errors",
    "html_errors",
    "expose_php",
    "zend.assertions",
    "disable_functions",
    "disable_classes",
    "opcache.enable",
    "opcache.memory_consumption",
    "opcache.interned_strings_buffer",
    "opcache.max_accelerated_files",
    "opcache.max_wasted_percentage",
    "opcache.use_cwd",
    "opcache.validate_timestamps",
    "opcache.revalidate_freq",
    "opcache.revalidate_path",
    "opcache.save_comments",
    "opcache.enable_file_override",
    "opcache.optimization_level",
    "opcache.file_update_protection",
    "opcache.huge_code_pages",
    "opcache.jit",
    "opcache.jit_buffer_size",
    "opcache.validate_permission",
    "opcache.validate_root",
    "opcache.consistency_checks",
    "opcache.force_restart_timeout",
    "opcache.max_file_size",
    "opcache.record_warnings",
];

/// The PHP setting a pool key sets (`php_admin_value[memory_limit]` → `memory_limit`).
pub fn php_setting(key: &str) -> Option<&str> {
    let (head, rest) = key.split_once('[')?;
    matches!(
        head.to_ascii_lowercase().as_str(),
        "php_value" | "php_admin_value" | "php_flag" | "php_admin_flag"
    )
    .then_some(())?;
    rest.strip_suffix(']')
}

/// What the copy does with the pool key `key` (as the stack model keys it: lower case, but
/// `php_value[…]` and `env[…]` as written).
pub fn pool(key: &str) -> Verdict {
    if let Some(setting) = php_setting(key) {
        return if PHP_KEEP.contains(&setting.trim()) {
            Verdict::Keep
        } else {
            Verdict::Drop
        };
    }
    if POOL_PREFIX.contains(&key) {
        Verdict::Prefix
    } else if POOL_KEEP.contains(&key) {
        Verdict::Keep
    } else {
        Verdict::Drop
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_loads_or_runs_code_is_dropped() {
        for name in [
            "load_module",
            "init_by_lua_block",
            "content_by_lua_block",
            "perl_modules",
            "js_import",
            "env",
            "ssl_certificate",
            "ssl_dhparam",
            "ssl_conf_command",
            "fastcgi_store",
            "proxy_ssl_certificate",
            "auth_basic_user_file",
            "mirror",
            "frobnicate",
        ] {
            assert_eq!(nginx(name), Verdict::Drop, "{name}");
        }
        for key in [
            "php_admin_value[extension]",
            "php_value[zend_extension]",
            "php_value[auto_prepend_file]",
            "php_admin_value[auto_append_file]",
            "php_admin_flag[allow_url_include]",
            "php_value[include_path]",
            "php_value[opcache.preload]",
            "env[path]",
            "chroot",
        ] {
            assert_eq!(pool(key), Verdict::Drop, "{key}");
        }
        assert!(dropped_fastcgi_param("php_admin_value"));
    }

    #[test]
    fn what_shapes_load_is_kept() {
        for name in [
            "worker_processes",
            "worker_connections",
            "keepalive_timeout",
            "fastcgi_buffers",
            "fastcgi_read_timeout",
            "proxy_buffering",
            "try_files",
            "ssl_ciphers",
        ] {
            assert_eq!(nginx(name), Verdict::Keep, "{name}");
        }
        for key in [
            "pm.max_children",
            "listen.backlog",
            "php_admin_value[memory_limit]",
            "php_value[opcache.memory_consumption]",
        ] {
            assert_eq!(pool(key), Verdict::Keep, "{key}");
        }
        assert_eq!(pool("user"), Verdict::Prefix);
        assert_eq!(nginx("pid"), Verdict::Prefix);
    }
}
