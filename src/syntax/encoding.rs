//! What the three programs make of a file that is not plain UTF-8 or ASCII text.
//!
//! nginx, php-fpm and sysctl read bytes. A UTF-16 file (Windows editors save one with
//! "Unicode") has a NUL after or before every ASCII character: no program of the stack can
//! read it, and the parsers' own errors on it would be noise, so it gets one clear message.
//! A UTF-8 byte order mark is skipped by PHP's INI scanner, but nginx reads it as part of
//! the first word: `unknown directive "\xEF\xBB\xBFevents"`.

use super::SyntaxError;
use crate::source::Span;

pub const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Whether `text` is UTF-16: a UTF-16 byte order mark, or NUL bytes in every other position
/// of its start (ASCII text encoded as UTF-16).
pub fn is_utf16(text: &[u8]) -> bool {
    if text.starts_with(b"\xFF\xFE") || text.starts_with(b"\xFE\xFF") {
        return true;
    }
    let head = &text[..text.len().min(128)];
    if head.len() < 8 {
        return false;
    }
    let nul_at = |parity: usize| {
        head.iter()
            .enumerate()
            .filter(|(i, _)| i % 2 == parity)
            .filter(|(_, &b)| b == 0)
            .count()
    };
    let half = head.len() / 2;
    nul_at(0) * 10 >= half * 9 || nul_at(1) * 10 >= half * 9
}

/// The one error a UTF-16 file gets.
pub fn utf16_error(text: &[u8]) -> SyntaxError {
    SyntaxError::new(
        "this file is UTF-16 text, not UTF-8: the program reads bytes and sees a NUL beside every character (convert it: iconv -f UTF-16 -t UTF-8)",
        Span::new(0, text.len().min(2) as u32),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf16_is_recognised_with_or_without_a_mark() {
        let le: Vec<u8> = "events {}\n"
            .encode_utf16()
            .flat_map(u16::to_le_bytes)
            .collect();
        let be: Vec<u8> = "events {}\n"
            .encode_utf16()
            .flat_map(u16::to_be_bytes)
            .collect();
        assert!(is_utf16(&le) && is_utf16(&be));
        assert!(is_utf16(b"\xFF\xFEe\0v\0"));
        assert!(!is_utf16(b"events {}\n"));
        assert!(!is_utf16(b"caf\xc3\xa9 \x00 binary junk here"));
    }
}
