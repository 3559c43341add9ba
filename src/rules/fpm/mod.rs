//! Rules about PHP-FPM configuration alone.

pub mod hash_comment;
pub mod invalid_php_ini_value;
pub mod pm_invalid;
pub mod pm_max_children_exceeds_memory;
pub mod pm_max_requests_unset;
pub mod syntax_error;
pub mod unknown_directive;
