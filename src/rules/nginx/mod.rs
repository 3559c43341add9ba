//! Rules about nginx configuration alone.

pub mod directive_not_allowed;
pub mod duplicate_directive;
pub mod error_log_off;
pub mod fastcgi_over_loopback_tcp;
pub mod gzip_types_duplicate_html;
pub mod header_crlf_injection;
pub mod hostname_resolved_once;
pub mod include_cycle;
pub mod include_not_found;
pub mod invalid_argument_count;
pub mod invalid_flag_value;
pub mod keepalive_requests_low;
pub mod nginx_version_cve;
pub mod php_location_regex_unanchored;
pub mod proxy_pass_uri_mismatch;
pub mod removed_directive;
pub mod resolver_public_dns;
pub mod scheme_less_redirect;
pub mod server_tokens_on;
pub mod syntax_error;
pub mod try_files_with_proxy_pass;
pub mod unknown_directive;
pub mod upstream_keepalive_not_effective;
pub mod worker_connections_exceed_nofile;
pub mod worker_cpu_affinity_mismatch;
pub mod worker_processes_mismatch;
