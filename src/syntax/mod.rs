//! Lossless parsers for the three configuration languages of the stack.

pub mod error;
pub mod nginx;

pub use error::SyntaxError;
