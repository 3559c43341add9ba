//! Rules across files: nginx against PHP-FPM against the kernel's sysctl settings. What
//! several of them ask is answered in [`crate::analysis::stack_links`].

pub mod backlog_chain_order;
pub mod backlog_exceeds_somaxconn;
pub mod fastcgi_target_without_pool;
pub mod fastcgi_timeout_shorter_than_terminate;
pub mod fpm_socket_permissions;
pub mod fpm_status_page_exposed;
pub mod open_files_exceed_kernel;
pub mod path_info_underflow;
pub mod php_files_served;
pub mod php_sandbox_absent;
pub mod session_cookie_not_secure;
pub mod sites_share_php_user;
pub mod upload_limit_chain;
pub mod uploaded_file_executed_as_php;
