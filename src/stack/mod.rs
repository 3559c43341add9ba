//! The stack model: which files form a configuration and how they are connected.

pub mod fs;
pub mod nginx;
