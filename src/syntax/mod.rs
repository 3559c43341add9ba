//! Lossless parsers for the three configuration languages of the stack.

pub mod nginx;
