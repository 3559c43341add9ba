//! The process exit codes, a contract (see README): 0 nothing at or above `--fail-on`;
//! 1 findings; 2 usage, configuration, I/O or parse errors. Every command returns one of
//! these, `bench` and `server` included, so they live below the command line rather than in
//! it (`cli` re-exports them).

pub const EXIT_OK: i32 = 0;
pub const EXIT_FINDINGS: i32 = 1;
pub const EXIT_ERROR: i32 = 2;
