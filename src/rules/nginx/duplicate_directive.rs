//! NGX023 duplicate-directive: a directive nginx accepts only once per block, written twice
//! in the same block (directly or through an `include`). nginx refuses to start:
//! `"root" directive is duplicate`.

use crate::fix::{edits, Fix};
use crate::rules::{Context, Rule};
use crate::stack::expanded::{NameId, OccId, NO_PARENT};
use crate::syntax::nginx::BlockKind;

declare_rule! {
    pub struct DuplicateDirective;
    code: NGX023,
    name: "duplicate-directive",
    lang: nginx,
    category: Correctness,
    severity: Error,
    fix: Sometimes,
}

/// Directives whose setters reject a second value in one block. Each entry was checked by
/// writing it twice in its context and running `nginx -t` (nginx 1.22.1): all of them fail
/// with `"…" directive is duplicate`. Directives that may repeat (`listen`, `server_name`,
/// `index`, `add_header`, `error_page`, `access_log`, `ssl_protocols`, `gzip_types`,
/// `ssl_session_cache`, `ssl_certificate`, `proxy_redirect`, …) are deliberately absent.
const ONCE_PER_BLOCK: &[&str] = &[
    "absolute_redirect",
    "accept_mutex",
    "aio",
    "alias",
    "autoindex",
    "charset",
    "client_body_buffer_size",
    "client_body_timeout",
    "client_header_buffer_size",
    "client_header_timeout",
    "client_max_body_size",
    "daemon",
    "default_type",
    "directio",
    "etag",
    "expires",
    "fastcgi_buffer_size",
    "fastcgi_buffers",
    "fastcgi_connect_timeout",
    "fastcgi_index",
    "fastcgi_intercept_errors",
    "fastcgi_pass",
    "fastcgi_read_timeout",
    "fastcgi_send_timeout",
    "gzip",
    "gzip_comp_level",
    "gzip_min_length",
    "gzip_vary",
    "ignore_invalid_headers",
    "internal",
    "keepalive",
    "keepalive_requests",
    "keepalive_timeout",
    "large_client_header_buffers",
    "lingering_close",
    "master_process",
    "multi_accept",
    "open_file_cache",
    "output_buffers",
    "pcre_jit",
    "pid",
    "port_in_redirect",
    "postpone_output",
    "proxy_buffer_size",
    "proxy_buffering",
    "proxy_buffers",
    "proxy_cache",
    "proxy_connect_timeout",
    "proxy_http_version",
    "proxy_pass",
    "proxy_read_timeout",
    "proxy_send_timeout",
    "real_ip_header",
    "reset_timedout_connection",
    "resolver",
    "resolver_timeout",
    "root",
    "satisfy",
    "send_timeout",
    "sendfile",
    "sendfile_max_chunk",
    "server_name_in_redirect",
    "server_names_hash_bucket_size",
    "server_names_hash_max_size",
    "server_tokens",
    "ssl_buffer_size",
    "ssl_ciphers",
    "ssl_dhparam",
    "ssl_ecdh_curve",
    "ssl_prefer_server_ciphers",
    "ssl_session_tickets",
    "ssl_session_timeout",
    "ssl_stapling",
    "ssl_trusted_certificate",
    "ssl_verify_client",
    "tcp_nodelay",
    "tcp_nopush",
    "timer_resolution",
    "try_files",
    "types_hash_max_size",
    "underscores_in_headers",
    "use",
    "user",
    "worker_connections",
    "worker_cpu_affinity",
    "worker_processes",
    "worker_rlimit_nofile",
];

impl Rule for DuplicateDirective {
    fn check(&self, cx: &mut Context<'_>) {
        for inst in &cx.stack.nginx {
            let view = inst.view();
            let ex = &inst.expanded;
            // The names of this configuration nginx takes once per block, by id.
            let mut once = vec![false; ex.name_count()];
            for id in ONCE_PER_BLOCK.iter().filter_map(|n| ex.name_id(n)) {
                once[id as usize] = true;
            }
            if !once.contains(&true) {
                continue;
            }
            // Every block occurrence with directive children, plus the top level.
            let blocks =
                std::iter::once(NO_PARENT).chain((0..ex.occurrences.len() as OccId).filter(|&o| {
                    ex.has_children(o)
                        && matches!(
                            view.directive(o).block().map(|b| b.kind),
                            Some(BlockKind::Directives)
                        )
                }));
            for block in blocks {
                // Children sorted by name: each run of one name starts with the first set.
                let mut first: Option<(NameId, OccId)> = None;
                for &child in ex.children_by_name(block) {
                    let id = ex.get(child).name;
                    if !once[id as usize] {
                        continue;
                    }
                    let name = view.name(child);
                    match first {
                        Some((n, _)) if n != id => first = Some((id, child)),
                        None => first = Some((id, child)),
                        Some((_, earlier)) => {
                            let (file, span) = view.location(child);
                            let (efile, espan) = view.location(earlier);
                            let occ = ex.get(child);
                            let tree = &inst.config.file(occ.file).parsed.tree;
                            let fix = Fix::unsafe_(
                                format!("Delete the second `{name}`"),
                                vec![edits::delete_directive(&file, tree, occ.node)],
                            );
                            let d = cx.report(
                                &file,
                                span,
                                format!("\"{name}\" directive is duplicate"),
                            );
                            d.label(efile, espan, "first set here").with_fix(fix);
                            d.help = Some(format!("nginx refuses to start; keep one `{name}`"));
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn table_is_sorted_for_binary_search() {
        let mut sorted = super::ONCE_PER_BLOCK.to_vec();
        sorted.sort_unstable();
        assert_eq!(sorted, super::ONCE_PER_BLOCK);
    }
}
