//! nginx parser: round-trip, tree structure, crossplane payload (see ../checks.rs).
#![no_main]

#[allow(dead_code)]
#[path = "../checks.rs"]
mod checks;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(e) = checks::nginx(data).and_then(|()| checks::nginx_crossplane(data)) {
        panic!("{e}");
    }
});
