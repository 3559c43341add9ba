//! Values nginx's handlers refuse when they read a number: a count past `ngx_atoi`'s range,
//! a size or offset that overflows once its unit is applied, a port outside 1–65535, a
//! `return` code over 999. Each message is nginx's own (checked with `nginx -t`).
//!
//! Only values written as numbers are judged (a digit or `-` first): a word there may be a
//! placeholder the deployment fills in, and the handlers' other errors are left to nginx.

use super::Entry;

/// `NGX_MAX_INT_T_VALUE` (and `NGX_MAX_OFF_T_VALUE`, `NGX_MAX_SIZE_T_VALUE`) on 64-bit.
const MAX: u64 = i64::MAX as u64;

/// `ngx_atoi`: decimal digits only, at most [`MAX`].
fn atoi(v: &[u8]) -> Option<u64> {
    if v.is_empty() || !v.iter().all(u8::is_ascii_digit) {
        return None;
    }
    v.iter().try_fold(0u64, |n, &d| {
        n.checked_mul(10)
            .and_then(|n| n.checked_add(u64::from(d - b'0')))
            .filter(|&n| n <= MAX)
    })
}

/// `ngx_parse_size` (`units` "kKmM") or `ngx_parse_offset` ("kKmMgG"): digits and one
/// unit letter, the product at most [`MAX`].
fn parse_size(v: &[u8], giga: bool) -> Option<u64> {
    let (digits, scale) = match v.last() {
        Some(b'k' | b'K') => (&v[..v.len() - 1], 1u64 << 10),
        Some(b'm' | b'M') => (&v[..v.len() - 1], 1 << 20),
        Some(b'g' | b'G') if giga => (&v[..v.len() - 1], 1 << 30),
        _ => (v, 1),
    };
    atoi(digits)
        .filter(|&n| n <= MAX / scale)
        .map(|n| n * scale)
}

/// The handlers whose values are judged here.
const JUDGED: [&str; 7] = [
    "ngx_conf_set_num_slot",
    "ngx_conf_set_size_slot",
    "ngx_conf_set_off_slot",
    "ngx_set_worker_processes",
    "ngx_http_rewrite_return",
    "ngx_http_core_listen",
    "ngx_stream_core_listen",
];

/// Whether [`invalid`] can say anything of a directive with these entries (so the values
/// of every other directive are never copied).
pub fn judged(entry: &Entry) -> bool {
    JUDGED.contains(&entry.handler) || entry.handler == "ngx_mail_core_listen"
}

/// Whether a value is written as a number (what is judged here).
fn numeric(v: &[u8]) -> bool {
    matches!(v.first(), Some(b'0'..=b'9' | b'-'))
}

/// nginx's message for a value its handler refuses, or `None`. `handlers` are those of the
/// entries that apply; `count` the number of arguments and `first` the first's value (the
/// only one judged: the others are not copied out).
pub fn invalid(
    name: &str,
    handlers: &[&Entry],
    count: usize,
    first: &[u8],
) -> Option<(usize, String)> {
    let all = |h: &str| !handlers.is_empty() && handlers.iter().all(|e| e.handler == h);
    let shown = |v: &[u8]| crate::escape::excerpt(&String::from_utf8_lossy(v), 60);
    if !numeric(first) {
        return None;
    }
    if count == 1 {
        if all("ngx_conf_set_num_slot") && atoi(first).is_none() {
            return Some((0, format!("\"{name}\" directive invalid number")));
        }
        let bad = (all("ngx_conf_set_size_slot") && parse_size(first, false).is_none())
            || (all("ngx_conf_set_off_slot") && parse_size(first, true).is_none())
            || (all("ngx_set_worker_processes") && atoi(first).is_none());
        if bad {
            return Some((0, format!("\"{name}\" directive invalid value")));
        }
    }
    if all("ngx_http_rewrite_return") && atoi(first).is_none_or(|c| c > 999) {
        return Some((0, format!("invalid return code \"{}\"", shown(first))));
    }
    let listen = [
        "ngx_http_core_listen",
        "ngx_stream_core_listen",
        "ngx_mail_core_listen",
    ];
    if !handlers.is_empty() && handlers.iter().all(|e| listen.contains(&e.handler)) {
        // A port alone (`listen 65536`) or after an IPv4 address; after a host name (which
        // nginx looks up first) it is left to nginx.
        let port = match first.iter().rposition(|&b| b == b':') {
            None => first,
            Some(i) if first[..i].iter().all(|&b| b.is_ascii_digit() || b == b'.') => {
                &first[i + 1..]
            }
            Some(_) => return None,
        };
        let digits = port.iter().all(u8::is_ascii_digit);
        if digits && atoi(port).is_none_or(|p| !(1..=65535).contains(&p)) {
            return Some((
                0,
                format!(
                    "invalid port in \"{}\" of the \"listen\" directive",
                    shown(first)
                ),
            ));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_as_nginx_reads_them() {
        assert_eq!(atoi(b"9223372036854775807"), Some(i64::MAX as u64));
        assert_eq!(atoi(b"9223372036854775808"), None);
        assert_eq!(atoi(b"99999999999999999999"), None);
        assert_eq!(atoi(b"-1"), None);
        assert_eq!(parse_size(b"8m", false), Some(8 << 20));
        assert_eq!(parse_size(b"8g", false), None);
        assert_eq!(parse_size(b"8g", true), Some(8 << 30));
        assert_eq!(parse_size(b"8589934591G", true), Some(8_589_934_591 << 30));
        assert_eq!(parse_size(b"8589934592G", true), None);
        assert_eq!(parse_size(b"1x", true), None);
    }
}
