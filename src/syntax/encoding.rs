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

/// How much of a file's start [`is_binary`] looks at (git looks at 8,000 bytes).
const BINARY_HEAD: usize = 8000;

/// Whether `text` is binary data rather than text (UTF-16 text is not binary: see
/// [`is_utf16`]). In its first 8,000 bytes, control characters (NUL and the others but tab,
/// line breaks, form feed and escape) make up more than 30%, or there is a NUL among at
/// least 5% of them (a program, an image, an archive: their headers hold NULs, and
/// compressed data is about 10% control bytes). A few NULs in text are not enough: php-fpm
/// and procps read one as the end of its line, and the parsers model that.
/// A compiled program, an image or an archive put where a configuration is expected gets
/// one message instead of a syntax error framed in its bytes.
pub fn is_binary(text: &[u8]) -> bool {
    let head = &text[..text.len().min(BINARY_HEAD)];
    if head.len() < 64 || is_utf16(text) {
        return false;
    }
    // Byte comparisons only, so that it vectorises (it runs on every file read): tab, the
    // line breaks and form feed are 9..=13, escape is 0x1b.
    let controls: usize = head
        .chunks(255)
        .map(|chunk| {
            let n: u8 = chunk
                .iter()
                .map(|&b| {
                    u8::from(b < 0x20 && b.wrapping_sub(9) > 4 && b != 0x1b) | u8::from(b == 0x7f)
                })
                .fold(0u8, u8::wrapping_add);
            usize::from(n)
        })
        .sum();
    let nul = memchr::memchr(0, head).is_some();
    controls * 10 > head.len() * 3 || nul && controls * 20 >= head.len()
}

/// The message a binary file gets.
pub const BINARY: &str = "binary file, not a configuration";

/// The one error a file gets that no program of the stack reads as text (UTF-16 or binary
/// data), at its start, or none.
pub fn not_text_error(text: &[u8]) -> Option<SyntaxError> {
    if is_utf16(text) {
        Some(utf16_error(text))
    } else if is_binary(text) {
        Some(SyntaxError::new(BINARY, Span::empty(0)))
    } else {
        None
    }
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
    fn control_bytes_are_those_text_does_not_hold() {
        // Each byte value alone in a 64-byte file: binary exactly when it is a control byte
        // other than tab, the line breaks, form feed and escape.
        for b in 0..=255u8 {
            let text = [b; 64];
            let control = (b < 0x20 && !b"\t\n\x0b\x0c\r\x1b".contains(&b)) || b == 0x7f;
            assert_eq!(is_binary(&text), control && !is_utf16(&text), "byte {b:#x}");
        }
    }

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

    #[test]
    fn binary_data_is_recognised_and_text_with_a_few_controls_is_not() {
        // A program's start, an image's header, and compressed data after them.
        let noise = |head: &[u8]| {
            let mut b = head.to_vec();
            b.extend((0..2000u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8));
            b
        };
        assert!(is_binary(&noise(b"\x7fELF\x02\x01\x01\0\0\0\0\0\0\0\0\0")));
        assert!(is_binary(&noise(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR")));
        // Mostly control characters, no NUL.
        assert!(is_binary(
            &[1u8, 2, 3, 4, 5, 6, 7, 8, 14, 15, 16, 17, b'a', 18, 19, 20].repeat(5)
        ));
        // UTF-16 text has its own message.
        let utf16: Vec<u8> = "events {}\n"
            .repeat(10)
            .encode_utf16()
            .flat_map(u16::to_le_bytes)
            .collect();
        assert!(!is_binary(&utf16) && not_text_error(&utf16).is_some());
        // Stray NULs in text: php-fpm and procps end the line there.
        let stray = "[www]\nuser = a\0 = b\npm = static\npm.max_children = 5\n".repeat(3);
        assert!(!is_binary(stray.as_bytes()));
        assert!(!is_binary(b"[www]\nuser = a\0 = b\nx\0\non \0\n"));
        // Text, UTF-8, CRLF, tabs, form feeds, a stray control or escape sequence.
        for text in [
            &b"events {}\r\nhttp {\n\tserver_tokens off;\x0c\n}\n"[..],
            "xx \"\u{e9}\u{e9}\u{e9}\" }\n".as_bytes(),
            b"http {\nxx \"\x01\x02\" }\n",
            b"log_format x \"\x1b[31m$remote_addr\x1b[0m\";\n",
            b"",
            b"\x01",
        ] {
            assert!(!is_binary(text), "{:?}", String::from_utf8_lossy(text));
            assert!(not_text_error(text).is_none());
        }
        assert_eq!(
            not_text_error(&noise(b"\x7fELF\0\0")).map(|e| e.message.to_string()),
            Some(BINARY.to_string())
        );
    }
}
