//! Rules about PHP-FPM configuration alone.

pub mod clear_env_off;
pub mod fastcgi_open_to_network;
pub mod fpm_socket_world_writable;
pub mod hash_comment;
pub mod hash_comment_in_value;
pub mod insecure_php_setting;
pub mod invalid_php_ini_value;
pub mod limit_extensions_too_broad;
pub mod ondemand_idle_timeout_short;
pub mod opcache_defeated;
pub mod php_defaults_in_image;
pub mod php_hardening_off;
pub mod pm_invalid;
pub mod pm_max_children_exceeds_memory;
pub mod pm_max_requests_unset;
pub mod request_terminate_timeout_unset;
pub mod session_hardening_weakened;
pub mod single_worker_pool;
pub mod syntax_error;
pub mod unknown_directive;
