//! Whether a `rewrite` answers with a redirect, as ngx_http_rewrite reads it: a replacement
//! that starts with `http://`, `https://` or `$scheme` (compared case-sensitively), or the
//! `redirect` / `permanent` flag. Such a rewrite ends the rewrite phase with a 301/302, and
//! nginx URL-escapes the captures in its replacement.

use crate::analysis::cursor::Directive;

/// Whether `rewrite` directive `r` redirects the client.
pub fn redirects(r: Directive<'_>) -> bool {
    let absolute = r.arg(1).is_some_and(|w| {
        let v = w.bytes();
        [&b"http://"[..], b"https://", b"$scheme"]
            .iter()
            .any(|p| v.starts_with(p))
    });
    absolute
        || r.arg(2)
            .is_some_and(|f| f.is("redirect") || f.is("permanent"))
}
