//! Lossless parsers for the three configuration languages of the stack.

pub mod encoding;
pub mod error;
pub mod fpm;
pub mod lines;
pub mod nginx;
pub mod sysctl;

pub use error::SyntaxError;
