//! Rules about sysctl files alone.

pub mod inline_comment;
pub mod syntax_error;
