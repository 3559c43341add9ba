//! Rules about nginx configuration alone.

pub mod duplicate_directive;
pub mod include_cycle;
pub mod include_not_found;
pub mod server_tokens_on;
pub mod syntax_error;
