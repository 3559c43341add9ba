//! Rendering diagnostics for people and machines.

pub mod full;
