//! Lossless parsers for the four configuration languages of the stack.

pub mod encoding;
pub mod error;
pub mod fpm;
pub mod lines;
pub mod nginx;
pub mod phpini;
pub mod render;
pub mod sysctl;
pub mod template;

pub use error::SyntaxError;
