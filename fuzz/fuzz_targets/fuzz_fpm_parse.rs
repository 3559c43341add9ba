//! PHP-FPM parser: round-trip, item and entry spans, accessors (see ../checks.rs).
#![no_main]

#[allow(dead_code)]
#[path = "../checks.rs"]
mod checks;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(e) = checks::fpm(data) {
        panic!("{e}");
    }
});
