//! Rules about nginx configuration alone.

pub mod directive_not_allowed;
pub mod duplicate_directive;
pub mod fastcgi_over_loopback_tcp;
pub mod gzip_types_duplicate_html;
pub mod header_crlf_injection;
pub mod header_lost_by_inheritance;
pub mod hsts_missing_or_weak;
pub mod http_not_redirected_to_https;
pub mod include_cycle;
pub mod include_not_found;
pub mod invalid_argument_count;
pub mod invalid_flag_value;
pub mod php_location_regex_unanchored;
pub mod removed_directive;
pub mod server_tokens_on;
pub mod syntax_error;
pub mod unknown_directive;
pub mod worker_connections_exceed_nofile;
pub mod worker_cpu_affinity_mismatch;
pub mod worker_processes_mismatch;
