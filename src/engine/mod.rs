//! The engine: everything between the command line and the output. It loads the files a
//! run names into stacks (`workspace`, through the confined file system), runs the rules and
//! filters their findings (`lint`: suppressions, focus, per-file ignores, order), and runs
//! the fix loop to a fixpoint (`fix_loop`). `cli`, `tune`, the tests and the fuzz targets call
//! it; it never prints, and never writes a file.
//!
//! Layers (a test keeps them, `tests/layers.rs`): syntax → model → analysis → rules → engine
//! → report / fix writing / tune → cli, each importing only from its own layer and below.

pub mod dump_files;
pub mod fix_loop;
pub mod holes;
pub mod lint;
pub mod rendered;
pub mod summary;
pub mod suppress;
pub mod workspace;

pub use lint::{
    collect, collect_cancellable, collect_with, input_errors, stack_input_errors, Cancelled,
    Findings,
};
pub use summary::Summary;
pub use workspace::{
    confinement, real_fs, stdin_overlay, StackArgs, Workspace, NOTHING_FOUND, STDIN,
};
