//! `lemplint lint -` and `lemplint fix --unsafe-fixes -` on one standard-input file: spans in bounds, reports render, no new syntax errors, fixing is idempotent (see ../checks.rs).
#![no_main]

#[allow(dead_code)]
#[path = "../checks.rs"]
mod checks;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // Real inputs are capped (64 MiB); keep executions fast.
    if data.len() > 64 << 10 {
        return;
    }
    if let Err(e) = checks::lint_fix(data) {
        panic!("{e}");
    }
});
