//! Rules about PHP-FPM configuration alone.

pub mod hash_comment;
pub mod syntax_error;
