//! Comments in PHP INI files (php-fpm, php.ini) that php does not take for comments: a line
//! starting with `#` is a key with no value (FPM010 reports it; FPM000 explains the syntax
//! error php-fpm gives for it).

use crate::source::Span;

/// The `#` that starts a line item, if the item starts with one (after blanks).
pub fn hash_at(text: &[u8], line: Span) -> Option<u32> {
    let bytes = &text[line.range()];
    let p = bytes.iter().position(|&b| b != b' ' && b != b'\t')?;
    (bytes[p] == b'#').then_some(line.start + p as u32)
}
