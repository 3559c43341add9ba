//! sysctl parser: round-trip, line and assignment spans (see ../checks.rs).
#![no_main]

#[allow(dead_code)]
#[path = "../checks.rs"]
mod checks;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(e) = checks::sysctl(data) {
        panic!("{e}");
    }
});
