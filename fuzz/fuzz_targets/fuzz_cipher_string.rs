//! OpenSSL cipher-string evaluator (`tls::expand`) for 1.0.2, 1.1.1 and 3.0 (see ../checks.rs).
#![no_main]

#[allow(dead_code)]
#[path = "../checks.rs"]
mod checks;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // nginx hands the `ssl_ciphers` argument over as text (invalid UTF-8 replaced).
    let spec = String::from_utf8_lossy(data);
    if let Err(e) = checks::cipher(&spec) {
        panic!("{e}");
    }
});
