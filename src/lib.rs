//! lemplint: lint, fix and tune the configuration of a PHP web stack (nginx, PHP-FPM and
//! the kernel's sysctl settings) as one system.

pub mod analysis;
pub mod bench;
pub mod cli;
pub mod config;
pub mod diagnostic;
pub mod edit_distance;
pub mod engine;
pub mod escape;
pub mod exit;
pub mod fix;
pub mod format;
pub mod fxhash;
pub mod host;
pub mod report;
pub mod rules;
pub mod server;
pub mod size;
pub mod source;
pub mod stack;
pub mod syntax;
pub mod timings;
pub mod tls;
pub mod tune;
