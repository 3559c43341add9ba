//! The template layer below the parsers: placeholders that a deployment fills in before a
//! server reads the file, found as *holes* (byte spans whose value is unknown here).
//!
//! Repositories hold configuration as an installer or an image entrypoint will turn it into
//! the server's: `sed` replaces `@NAME`, `SEDNAME`, `<NAME>`, `%%NAME%%` or `__NAME__`;
//! envsubst and envplate fill `${NAME}` and `${NAME:-default}`; Jinja2, Go templates and ERB
//! render `{{ … }}`, `{% … %}` and `<%= … %>`. Read as configuration, a placeholder is a
//! value no server ever sees ("`@PHP_FPM_MAX_CHILDREN` is not a valid number"), and a
//! template's braces are not nginx's.
//!
//! So each file is scanned once for its holes, the parser reads a *masked* copy of the
//! same length (a value hole becomes a word of `_`, a control tag or a hole standing alone
//! on its line becomes a comment, so both branches of a conditional are kept), and the
//! spans of the tree point into the original text. Nothing downstream reports a hole's
//! text (`engine::holes` drops findings on a hole's line), and no fix or tuning edits one.
//!
//! Only shapes that the host language cannot mean are holes: nginx's own `${name}` and
//! `$name` stay variables unless the name is an environment-style ALL_CAPS one that the
//! file never defines, and `@name` stays a named location.

pub use crate::source::template::{Hole, HoleKind};
use crate::source::Span;
use std::borrow::Cow;

/// The language of the file the placeholders are in: it decides which shapes could be the
/// language's own syntax, and how a masked line is commented out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lang {
    Nginx,
    Fpm,
    PhpIni,
    Sysctl,
}

/// Holes longer than this are not placeholders (a runaway `{{` with a `}}` far away).
const MAX_HOLE: usize = 200;

/// The holes of `text`, in order, not overlapping.
pub fn find(text: &[u8], lang: Lang) -> Vec<Hole> {
    if !has_marker(text, lang) {
        return Vec::new();
    }
    let defined = if lang == Lang::Nginx {
        nginx_defined_names(text)
    } else {
        Vec::new()
    };
    let mut holes = Vec::new();
    let mut line_start = 0;
    for line in text.split_inclusive(|&b| b == b'\n') {
        scan_line(line, line_start, lang, &defined, &mut holes);
        line_start += line.len();
    }
    holes
}

/// Whether any byte that starts a placeholder is there: most files have none, and are done
/// in a few vectorised passes (this runs on every file read).
///
/// The passes run over one block of the text at a time, all of them while the block is in
/// the cache: thirteen passes over the whole of a 52 MB file read it from memory thirteen
/// times, which made loading such files cost more per byte than loading small ones (a map
/// of 2.5M keys spent 15% of its lint time here, a tenth as large 7%).
pub fn has_marker(text: &[u8], lang: Lang) -> bool {
    // A value or a line (php-fpm's values are asked one by one, each time a rule reads one)
    // is done in one pass: the searchers' set-up costs more than such a text.
    if text.len() <= SHORT {
        return short_has_marker(text, lang);
    }
    const BLOCK: usize = 64 * 1024;
    // The searchers are built once for the run, not once per file and pattern.
    static FINDERS: std::sync::LazyLock<[memchr::memmem::Finder<'static>; 7]> =
        std::sync::LazyLock::new(|| MARKERS.map(memchr::memmem::Finder::new));
    let find = |window: &[u8], m: usize| FINDERS[m].find(window).is_some();
    let mut start = 0;
    while start < text.len() {
        let end = (start + BLOCK).min(text.len());
        if block_has_marker(text, start, end, lang, &find) {
            return true;
        }
        start = end;
    }
    false
}

/// Texts up to this long are scanned byte by byte ([`short_has_marker`]).
const SHORT: usize = 256;

/// [`has_marker`] in one pass over a short text: the same [`MARKERS`] and the same byte
/// after each of [`LEADS`] as [`block_has_marker`] looks for.
fn short_has_marker(text: &[u8], lang: Lang) -> bool {
    (0..text.len()).any(|i| {
        let rest = &text[i..];
        // Most bytes start nothing: one table lookup each.
        if !STARTS[usize::from(rest[0])] {
            return false;
        }
        MARKERS.iter().any(|m| rest.starts_with(m))
            || rest
                .get(1)
                .is_some_and(|&c| LEADS.contains(&rest[0]) && leads_placeholder(lang, rest[0], c))
    })
}

/// The first bytes of [`MARKERS`] and [`LEADS`]: where a placeholder can start.
const STARTS: [bool; 256] = {
    let mut t = [false; 256];
    let mut i = 0;
    while i < MARKERS.len() {
        t[MARKERS[i][0] as usize] = true;
        i += 1;
    }
    let mut i = 0;
    while i < LEADS.len() {
        t[LEADS[i] as usize] = true;
        i += 1;
    }
    t
};

/// The bytes that start a placeholder when the next byte is right for them
/// ([`leads_placeholder`]): `@NAME@`, `%NAME%`, `<name>`, `{name}`, `$NAME`, `!NAME!`.
const LEADS: &[u8] = b"@%<{$!";

/// Whether `lead` (one of [`LEADS`]) followed by `c` may start a placeholder in `lang`.
fn leads_placeholder(lang: Lang, lead: u8, c: u8) -> bool {
    match lead {
        b'@' => c.is_ascii_uppercase(),
        b'%' => c.is_ascii_uppercase() || c == b'%',
        b'<' => c.is_ascii_alphabetic(),
        b'{' => c.is_ascii_alphabetic() || c == b'_' || c == b'#' || c == b'$',
        b'$' => dollar_marker(lang, c),
        b'!' => matches!(lang, Lang::Fpm | Lang::PhpIni) && c.is_ascii_uppercase(),
        _ => false,
    }
}

/// Whether `$` followed by `c` may start a placeholder in `lang`: nginx's own `$var`,
/// `${var}` and `@location` are lowercase nearly always, so only the shapes no nginx file
/// is made of send it to the line-by-line scan.
fn dollar_marker(lang: Lang, c: u8) -> bool {
    match lang {
        Lang::Nginx => c.is_ascii_uppercase() || c == b'{',
        Lang::Fpm | Lang::Sysctl => c.is_ascii_alphabetic() || c == b'{',
        Lang::PhpIni => false,
    }
}

/// The byte sequences that start a placeholder wherever they are.
const MARKERS: [&[u8]; 7] = [b"{{", b"{%", b"<%", b"%%", b"SED", b"__", b"PH_"];

/// [`has_marker`] for the markers that start in `text[start..end]`; `find(window, m)` says
/// whether `MARKERS[m]` is in `window`.
fn block_has_marker(
    text: &[u8],
    start: usize,
    end: usize,
    lang: Lang,
    find: &dyn Fn(&[u8], usize) -> bool,
) -> bool {
    // A marker that starts in the block may end in the next one (at most 2 bytes on).
    let window = &text[start..(end + 2).min(text.len())];
    if (0..MARKERS.len()).any(|m| find(window, m)) {
        return true;
    }
    // `!NAME!` is php-fpm's and php.ini's only: other texts are not scanned for `!`.
    let scanned = |&&lead: &&u8| lead != b'!' || matches!(lang, Lang::Fpm | Lang::PhpIni);
    LEADS.iter().filter(scanned).any(|&lead| {
        memchr::memchr_iter(lead, &text[start..end]).any(|i| {
            text.get(start + i + 1)
                .is_some_and(|&c| leads_placeholder(lang, lead, c))
        })
    })
}

fn ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// `port`, `domain`, `browser-cache-extensions`: a lowercase name an installer's `sed`
/// replaces, written between `<` and `>`; not an HTML tag nginx sends as text.
fn lower_placeholder(name: &[u8]) -> bool {
    const HTML: &[&str] = &[
        "a", "b", "i", "p", "br", "hr", "em", "li", "ul", "ol", "td", "tr", "th", "h1", "h2", "h3",
        "h4", "h5", "h6", "pre", "div", "span", "html", "head", "body", "title", "meta", "link",
        "style", "script", "center", "table", "img", "strong", "code", "small", "form", "input",
        "button", "label", "main", "nav", "footer", "header", "section", "noscript", "iframe",
        "svg", "path", "tbody", "thead", "font", "big", "address", "article",
    ];
    name.len() >= 2
        && name[0].is_ascii_lowercase()
        && name
            .iter()
            .all(|&b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-')
        && !HTML.iter().any(|t| t.as_bytes() == name)
}

fn upper_ident(name: &[u8]) -> bool {
    name.len() >= 2
        && name[0].is_ascii_uppercase()
        && name
            .iter()
            .all(|&b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
}

/// Variables an nginx file defines itself (`set $X`, a `map`/`geo`/`split_clients` result,
/// a named capture): an ALL_CAPS `$X` among them is nginx's, not envsubst's.
fn nginx_defined_names(text: &[u8]) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for i in memchr::memchr_iter(b'$', text) {
        let name: Vec<u8> = text[i + 1..]
            .iter()
            .copied()
            .take_while(|&b| ident(b))
            .collect();
        if !upper_ident(&name) {
            continue;
        }
        let before = text[..i].trim_ascii_end();
        let after = text[i + 1 + name.len()..].trim_ascii_start();
        let by_set = before.ends_with(b"set");
        if by_set || after.starts_with(b"{") {
            out.push(name);
        }
    }
    for pat in [&b"?<"[..], b"?P<", b"?'"] {
        for i in memchr::memmem::find_iter(text, pat) {
            let name: Vec<u8> = text[i + pat.len()..]
                .iter()
                .copied()
                .take_while(|&b| ident(b))
                .collect();
            out.push(name);
        }
    }
    out
}

fn scan_line(line: &[u8], base: usize, lang: Lang, defined: &[Vec<u8>], out: &mut Vec<Hole>) {
    let first = out.len();
    let mut i = 0;
    let mut quote: Option<u8> = None;
    // Where the language's own comment starts on this line: a placeholder after it is in a
    // comment the server never reads, so it neither hides a finding on the line nor makes
    // its block unsure (`autoindex on; # {{ note }}` is still reported).
    let mut comment_at: Option<usize> = None;
    while i < line.len() {
        // Only the bytes that may start a placeholder (see `at`), a comment or a quote, or
        // escape the next byte, change anything below: the rest are stepped over without
        // the checks (a blocklist's lines are long, and hold none of them).
        if !NOTABLE[line[i] as usize] {
            i += 1;
            continue;
        }
        let b = line[i];
        if comment_at.is_none() && quote.is_none() {
            let starts = match lang {
                Lang::Nginx => b == b'#' && token_start(line, i),
                Lang::Fpm | Lang::PhpIni => b == b';',
                Lang::Sysctl => {
                    (b == b'#' || b == b';') && line[..i].iter().all(|c| c.is_ascii_whitespace())
                }
            };
            if starts {
                comment_at = Some(i);
            }
        }
        if let Some(end) = at(line, i, lang, defined, quote) {
            out.push(Hole {
                span: Span::new((base + i) as u32, (base + end.0) as u32),
                kind: end.1,
            });
            i = end.0;
            continue;
        }
        // Quotes matter only for `{name}`, which nginx reads as a block outside them.
        if lang == Lang::Nginx {
            match quote {
                Some(q) if b == q => quote = None,
                Some(_) | None if b == b'\\' => i += 1,
                None if (b == b'"' || b == b'\'') && token_start(line, i) => quote = Some(b),
                _ => {}
            }
        }
        i += 1;
    }
    // A placeholder alone on its line may stand for any number of lines.
    if out.len() == first + 1 {
        let h = &mut out[first];
        let (s, e) = (h.span.start as usize - base, h.span.end as usize - base);
        let alone = line[..s].iter().all(|b| b.is_ascii_whitespace())
            && line[e..].iter().all(|b| b.is_ascii_whitespace());
        if alone && h.kind == HoleKind::Value {
            h.kind = HoleKind::Statements;
        }
    }
    if let Some(c) = comment_at {
        for h in &mut out[first..] {
            let in_comment = h.span.start as usize - base > c;
            if in_comment && matches!(h.kind, HoleKind::Value | HoleKind::Statements) {
                h.kind = HoleKind::Comment;
            }
        }
    }
}

/// The bytes [`scan_line`] looks at: those `at` starts a hole with, the comment starts of
/// every language, quotes and the backslash (`!` starts an INI placeholder, `!NAME!`).
const NOTABLE: [bool; 256] = {
    let mut t = [false; 256];
    let bytes = b"{<%@SP_$#;!\"'\\";
    let mut k = 0;
    while k < bytes.len() {
        t[bytes[k] as usize] = true;
        k += 1;
    }
    t
};

fn token_start(line: &[u8], i: usize) -> bool {
    i == 0 || matches!(line[i - 1], b' ' | b'\t' | b';' | b'{' | b'}' | b'(')
}

/// The hole starting at `line[i]`, if one does: where it ends and what it is.
fn at(
    line: &[u8],
    i: usize,
    lang: Lang,
    defined: &[Vec<u8>],
    quote: Option<u8>,
) -> Option<(usize, HoleKind)> {
    let rest = &line[i..];
    match rest[0] {
        b'{' if rest.starts_with(b"{{") => {
            let end = close(rest, b"}}")?;
            let inner = rest[2..end - 2].trim_ascii();
            let inner = inner.strip_prefix(b"-").unwrap_or(inner).trim_ascii_start();
            if inner.is_empty() {
                return None;
            }
            Some((i + end, go_kind(inner)))
        }
        b'{' if rest.starts_with(b"{%") => {
            let end = close(rest, b"%}")?;
            let inner = rest[2..end - 2].trim_ascii();
            let inner = inner
                .strip_prefix(b"-")
                .or_else(|| inner.strip_prefix(b"+"))
                .unwrap_or(inner)
                .trim_ascii_start();
            if !inner.first().is_some_and(|b| b.is_ascii_lowercase()) {
                return None;
            }
            let statements = [&b"include"[..], b"import", b"block", b"macro", b"call"];
            let kind = if statements.iter().any(|k| inner.starts_with(k)) {
                HoleKind::Statements
            } else {
                HoleKind::Control
            };
            Some((i + end, kind))
        }
        b'{' if rest.starts_with(b"{#") => close(rest, b"#}").map(|e| (i + e, HoleKind::Comment)),
        b'{' if rest.starts_with(b"{$") && quote.is_none() => {
            // `{$SERVER_PATH}`: the PHP-style placeholder hosting panels (mdserver-web, the
            // BT panel family) fill in. nginx reads an unquoted `{` as a block, and a `$`
            // never follows one in a regex (`x{2}`), so the shape is never nginx's own.
            let n = rest[2..].iter().take_while(|&&b| ident(b)).count();
            (n > 0 && rest[2].is_ascii_alphabetic() && rest.get(2 + n) == Some(&b'}'))
                .then_some((i + n + 3, HoleKind::Value))
        }
        b'{' if quote.is_none() && lang != Lang::PhpIni => {
            // `{name}` outside quotes (VVV's `server_name {vvv_hosts};`): nginx has no such
            // syntax (an unquoted `{` opens a block), unlike `${name}`, `\p{L}` or `x{2}`
            // (a regex's braces follow a letter or an escape).
            let prev = if i > 0 { line[i - 1] } else { b' ' };
            if matches!(prev, b'$' | b'%' | b'\\' | b'{') || prev.is_ascii_alphanumeric() {
                return None;
            }
            let n = rest[1..].iter().take_while(|&&b| ident(b)).count();
            let starts = rest
                .get(1)
                .is_some_and(|b| b.is_ascii_alphabetic() || *b == b'_');
            (starts && rest.get(1 + n) == Some(&b'}')).then_some((i + n + 2, HoleKind::Value))
        }
        b'<' if rest.starts_with(b"<%") => {
            let end = close(rest, b"%>")?;
            let kind = match rest.get(2) {
                Some(b'=') => HoleKind::Value,
                Some(b'#') => HoleKind::Comment,
                _ => HoleKind::Control,
            };
            Some((i + end, kind))
        }
        b'<' => {
            // `<DOMAIN>`, `<MEMORY_LIMIT>`, `<port>`, `<browser-cache-extensions>`: an
            // installer's placeholder. Not a regex's named group (`(?<name>`, `(?P<name>`)
            // nor an HTML tag in a `return` or `sub_filter` text.
            let n = rest[1..]
                .iter()
                .take_while(|&&b| ident(b) || b == b'-')
                .count();
            let name = &rest[1..1 + n];
            let group = i > 0 && matches!(line[i - 1], b'?' | b'P' | b'k');
            (rest.get(1 + n) == Some(&b'>')
                && !group
                && (upper_ident(name) || lower_placeholder(name)))
            .then_some((i + n + 2, HoleKind::Value))
        }
        b'%' if !rest.starts_with(b"%%") => {
            // `%PHP_MAX_MEMORY%`: an entrypoint's placeholder (three letters at least, so
            // php-fpm's `access.format` codes such as `%Q%q` stay its own).
            let n = rest[1..].iter().take_while(|&&b| ident(b)).count();
            (n >= 3 && rest.get(1 + n) == Some(&b'%') && upper_ident(&rest[1..1 + n]))
                .then_some((i + n + 2, HoleKind::Value))
        }
        b'%' if rest.starts_with(b"%%") => {
            let n = rest[2..].iter().take_while(|&&b| ident(b)).count();
            (n > 0 && rest[2..].get(n..n + 2) == Some(b"%%") && upper_ident(&rest[2..2 + n]))
                .then_some((i + n + 4, HoleKind::Value))
        }
        b'@' => {
            let n = rest[1..].iter().take_while(|&&b| ident(b)).count();
            let name = &rest[1..1 + n];
            if n == 0 || (i > 0 && ident(line[i - 1])) {
                return None;
            }
            // Autoconf's `@prefix@`, then a sed-style `@NAME` (not a named location).
            if rest.get(1 + n) == Some(&b'@') && name[0].is_ascii_alphabetic() {
                return Some((i + n + 2, HoleKind::Value));
            }
            let named_location = lang == Lang::Nginx && i > 0 && defines_location(line);
            // OpenSSL's own `@STRENGTH` and `@SECLEVEL=n` in a cipher string.
            let openssl = name == b"STRENGTH"
                || name == b"SECLEVEL"
                || line
                    .trim_ascii_start()
                    .split(|b| b.is_ascii_whitespace())
                    .next()
                    .is_some_and(|d| d.ends_with(b"ciphers"));
            (upper_ident(name) && !named_location && !openssl)
                .then_some((i + n + 1, HoleKind::Value))
        }
        b'S' if rest.starts_with(b"SED") && (i == 0 || !ident(line[i - 1])) => {
            let n = rest.iter().take_while(|&&b| ident(b)).count();
            (n > 3 && upper_ident(&rest[..n])).then_some((i + n, HoleKind::Value))
        }
        // `PH_SSL_CIPHERS`: iRedMail's installer replaces `PH_` names with `perl -pi -e`.
        b'P' if rest.starts_with(b"PH_") && (i == 0 || !ident(line[i - 1])) => {
            let n = rest.iter().take_while(|&&b| ident(b)).count();
            (n > 4 && upper_ident(&rest[..n])).then_some((i + n, HoleKind::Value))
        }
        b'_' if rest.starts_with(b"__") && (i == 0 || !ident(line[i - 1])) => {
            let n = rest[2..].iter().take_while(|&&b| ident(b)).count();
            let name = &rest[2..2 + n];
            (n > 2 && name.ends_with(b"__") && upper_ident(&name[..n - 2]))
                .then_some((i + n + 2, HoleKind::Value))
        }
        b'$' => dollar(line, i, lang, defined),
        b'!' if matches!(lang, Lang::Fpm | Lang::PhpIni) && (i == 0 || !ident(line[i - 1])) => {
            // `!MAGENTO_RUN_MODE!`: an entrypoint's `sed` placeholder. In an INI value `!`
            // is PHP's NOT operator, which never wraps an ALL_CAPS name.
            let n = rest[1..].iter().take_while(|&&b| ident(b)).count();
            (n >= 3 && rest.get(1 + n) == Some(&b'!') && upper_ident(&rest[1..1 + n]))
                .then_some((i + n + 2, HoleKind::Value))
        }
        _ => None,
    }
}

/// A `location @NAME` line names a location, not a placeholder.
fn defines_location(line: &[u8]) -> bool {
    line.trim_ascii_start().starts_with(b"location")
}

/// `${NAME}`, `${NAME:-default}` or `$NAME` where the language would not read it.
fn dollar(line: &[u8], i: usize, lang: Lang, defined: &[Vec<u8>]) -> Option<(usize, HoleKind)> {
    let rest = &line[i..];
    if rest.get(1) == Some(&b'{') {
        let end = close(rest, b"}")?;
        let inner = &rest[2..end - 1];
        let n = inner.iter().take_while(|&&b| ident(b)).count();
        let name = &inner[..n];
        let modifier = n > 0 && n < inner.len() && matches!(inner[n], b':' | b'-' | b'=' | b'?');
        let hole = match lang {
            // nginx's own `${name}`: a hole only when no nginx variable could be meant.
            Lang::Nginx => {
                modifier
                    || (upper_ident(name)
                        && !defined.iter().any(|d| d == name)
                        && !nginx_builtin(name))
            }
            // php-fpm and PHP expand `${VAR}` from the environment themselves, and PHP 8.3+
            // `${VAR:-default}` too (Zend/zend_ini_scanner.l).
            Lang::Fpm | Lang::PhpIni => false,
            Lang::Sysctl => n > 0,
        };
        return hole.then_some((i + end, HoleKind::Value));
    }
    let n = rest[1..].iter().take_while(|&&b| ident(b)).count();
    let name = &rest[1..1 + n];
    if n == 0 || !name[0].is_ascii_alphabetic() {
        return None;
    }
    let hole = match lang {
        Lang::Nginx => {
            upper_ident(name) && !defined.iter().any(|d| d == name) && !nginx_builtin(name)
        }
        // php-fpm expands only `$pool` (and `${VAR}`): any other `$name` is an installer's.
        Lang::Fpm => name != b"pool",
        Lang::Sysctl => true,
        Lang::PhpIni => false,
    };
    hole.then_some((i + n + 1, HoleKind::Value))
}

/// Whether `name` (any case: nginx lowercases variable names, so `$HTTP_HOST` is
/// `$http_host`) is one of nginx's built-in variables or variable families. Kept in step
/// with `analysis::variables::builtin` by a test there.
pub fn nginx_builtin(name: &[u8]) -> bool {
    const FAMILIES: [&str; 24] = [
        "http_",
        "arg_",
        "cookie_",
        "sent_http_",
        "sent_trailer_",
        "upstream_",
        "ssl_",
        "proxy_",
        "request",
        "remote_",
        "server_",
        "realip_",
        "connection",
        "content_",
        "document_",
        "fastcgi_",
        "time_",
        "tcpinfo_",
        "limit_",
        "uid_",
        "secure_link",
        "jwt_",
        "geoip",
        "date_",
    ];
    const NAMES: [&str; 23] = [
        "host",
        "hostname",
        "uri",
        "args",
        "scheme",
        "status",
        "https",
        "http2",
        "http3",
        "msec",
        "pid",
        "msie",
        "query_string",
        "is_args",
        "body_bytes_sent",
        "bytes_sent",
        "binary_remote_addr",
        "gzip_ratio",
        "invalid_referer",
        "modern_browser",
        "ancient_browser",
        "nginx_version",
        "realpath_root",
    ];
    let lower = name.to_ascii_lowercase();
    let lower = String::from_utf8_lossy(&lower);
    NAMES.contains(&lower.as_ref()) || FAMILIES.iter().any(|f| lower.starts_with(f))
}

/// The end of a tag opened at `rest[0]` and closed by `close` on the same line.
fn close(rest: &[u8], close: &[u8]) -> Option<usize> {
    let limit = rest.len().min(MAX_HOLE);
    let from = 2.min(limit);
    memchr::memmem::find(&rest[from..limit], close).map(|e| from + e + close.len())
}

/// What a `{{ … }}` holds: Go's actions (`if`, `range`, `end`…) are control, its comments
/// comments, anything else a value.
fn go_kind(inner: &[u8]) -> HoleKind {
    if inner.starts_with(b"/*") {
        return HoleKind::Comment;
    }
    let word: &[u8] = &inner[..inner.iter().take_while(|&&b| ident(b)).count()];
    match word {
        b"if" | b"else" | b"end" | b"range" | b"with" | b"define" | b"break" | b"continue" => {
            HoleKind::Control
        }
        b"template" | b"block" => HoleKind::Statements,
        _ if inner.starts_with(b"- end") => HoleKind::Control,
        _ => HoleKind::Value,
    }
}

/// The text a parser reads: `text` with each hole replaced, byte for byte, by something the
/// language reads as one plain word (a value) or as nothing (a comment to the line's end for
/// a hole alone on its line, spaces inside a line). Offsets are kept, so every span of the
/// tree points into the original text.
pub fn mask<'a>(text: &'a [u8], holes: &[Hole], lang: Lang) -> Cow<'a, [u8]> {
    if holes.is_empty() {
        return Cow::Borrowed(text);
    }
    let comment = match lang {
        Lang::Nginx | Lang::Sysctl => b'#',
        Lang::Fpm | Lang::PhpIni => b';',
    };
    let mut out = text.to_vec();
    for h in holes {
        let r = h.span.range();
        let line_start = text[..r.start]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |p| p + 1);
        let alone = text[line_start..r.start]
            .iter()
            .all(|b| b.is_ascii_whitespace());
        let bytes = &mut out[r.clone()];
        match h.kind {
            HoleKind::Value => bytes.fill(b'_'),
            HoleKind::Statements | HoleKind::Control | HoleKind::Comment if alone => {
                bytes.fill(b' ');
                bytes[0] = comment;
            }
            _ => bytes.fill(b' '),
        }
        // A hole spanning lines keeps its line ends, so lines and columns stay true.
        for (o, &b) in bytes.iter_mut().zip(&text[r]) {
            if b == b'\n' {
                *o = b'\n';
            }
        }
    }
    Cow::Owned(out)
}

/// What the template layer makes of a file: its holes, the regions whose findings depend
/// on the template (see [`unsure`]), and, when there are holes, the masked text its parser
/// reads.
pub struct Read {
    pub holes: Vec<Hole>,
    pub unsure: Vec<Span>,
    pub masked: Option<Vec<u8>>,
}

/// Finds the holes of `text` and masks them.
pub fn read(text: &[u8], lang: Lang) -> Read {
    read_found(text, find(text, lang), lang)
}

/// [`read`] with the holes [`find`] gave for `text`.
pub fn read_found(text: &[u8], holes: Vec<Hole>, lang: Lang) -> Read {
    if holes.is_empty() {
        return Read {
            holes,
            unsure: Vec::new(),
            masked: None,
        };
    }
    let masked = mask(text, &holes, lang).into_owned();
    let unsure = unsure(text, &masked, &holes, lang);
    Read {
        holes,
        unsure,
        masked: Some(masked),
    }
}

/// Reads the placeholders of `source` in `lang` into it ([`crate::source::SourceFile::holes`]
/// and `unsure`), and returns the masked text its parser reads when it has any.
pub fn prepare(source: &mut crate::source::SourceFile, lang: Lang) -> Option<Vec<u8>> {
    let holes = find(&source.text, lang);
    prepare_found(source, holes, lang)
}

/// [`prepare`] with the holes [`find`] gave for the source's text.
pub fn prepare_found(
    source: &mut crate::source::SourceFile,
    holes: Vec<Hole>,
    lang: Lang,
) -> Option<Vec<u8>> {
    let r = read_found(&source.text, holes, lang);
    source.holes = r.holes;
    source.unsure = r.unsure;
    r.masked
}

/// The regions whose findings depend on values the template decides, not on the text:
/// - the body of each conditional or loop (`{% if %}…{% endif %}`, `{{ range }}…{{ end }}`,
///   `<% if %>…<% end %>`): rendered once, never, or many times;
/// - where a placeholder stands alone on its line and may insert any statements: the block
///   it stands in (its opening line and the statements directly in it; in an INI file, its
///   section), so that "`x` is not set" there is not claimed.
pub fn unsure(text: &[u8], masked: &[u8], holes: &[Hole], lang: Lang) -> Vec<Span> {
    let mut out = Vec::new();
    let mut open: Vec<u32> = Vec::new();
    for h in holes.iter().filter(|h| h.kind == HoleKind::Control) {
        match control(&text[h.span.range()]) {
            Tag::Open => open.push(h.span.end),
            Tag::Close => {
                if let Some(start) = open.pop() {
                    out.push(Span::new(start, h.span.start));
                }
            }
            Tag::Other => {}
        }
    }
    // An unclosed conditional: the rest of the file depends on it.
    out.extend(open.iter().map(|&s| Span::new(s, text.len() as u32)));
    let inserts: Vec<u32> = holes
        .iter()
        .filter(|h| h.kind == HoleKind::Statements)
        .map(|h| h.span.start)
        .collect();
    if !inserts.is_empty() {
        match lang {
            Lang::Nginx => out.extend(nginx_blocks_of(masked, &inserts)),
            Lang::Fpm | Lang::PhpIni => out.extend(sections_of(masked, &inserts)),
            Lang::Sysctl => {}
        }
    }
    // Merged into disjoint spans, so [`unsure_at`] is a binary search.
    out.sort_by_key(|s| (s.start, s.end));
    let mut merged: Vec<Span> = Vec::with_capacity(out.len());
    for s in out.into_iter().filter(|s| !s.is_empty()) {
        match merged.last_mut() {
            Some(last) if s.start <= last.end => last.end = last.end.max(s.end),
            _ => merged.push(s),
        }
    }
    merged
}

enum Tag {
    Open,
    Close,
    Other,
}

/// Whether a control tag opens a body (`if`, `for`, `range`, `with`, `… do`), closes one
/// (`endif`, `end`), or neither (`else`, `set`).
fn control(tag: &[u8]) -> Tag {
    let inner = tag
        .strip_prefix(b"{%")
        .or_else(|| tag.strip_prefix(b"{{"))
        .or_else(|| tag.strip_prefix(b"<%"))
        .unwrap_or(tag);
    let inner = inner
        .strip_suffix(b"%}")
        .or_else(|| inner.strip_suffix(b"}}"))
        .or_else(|| inner.strip_suffix(b"%>"))
        .unwrap_or(inner);
    let inner = inner.trim_ascii_start();
    let inner = inner
        .strip_prefix(b"-")
        .or_else(|| inner.strip_prefix(b"+"))
        .unwrap_or(inner)
        .trim_ascii();
    let inner = inner.strip_suffix(b"-").unwrap_or(inner).trim_ascii_end();
    let word = &inner[..inner.iter().take_while(|&&b| ident(b)).count()];
    const OPENERS: [&[u8]; 13] = [
        b"if", b"for", b"macro", b"filter", b"with", b"call", b"raw", b"range", b"define",
        b"unless", b"case", b"while", b"until",
    ];
    if word.starts_with(b"end") {
        Tag::Close
    } else if OPENERS.contains(&word)
        || inner.ends_with(b" do")
        || (inner.contains(&b'|') && inner.windows(4).any(|w| w == b" do "))
    {
        Tag::Open
    } else {
        Tag::Other
    }
}

/// For each offset, the nginx block around it (in the masked text): its opening line and
/// the lines directly in it (a block nested in it is not). One pass over the text, whatever
/// the number of offsets: each line is tagged with the block it starts in.
fn nginx_blocks_of(masked: &[u8], offsets: &[u32]) -> Vec<Span> {
    const TOP: u32 = u32::MAX;
    // The innermost open block (by the offset of its `{`) at each line's start and at each
    // offset asked about.
    let mut stack: Vec<u32> = Vec::new();
    let mut lines: Vec<(u32, u32)> = vec![(0, TOP)];
    let mut wanted: std::collections::BTreeSet<u32> = Default::default();
    let mut next = offsets.iter().copied().peekable();
    let (mut i, mut quote, mut comment) = (0usize, None::<u8>, false);
    while i < masked.len() {
        while next.peek().is_some_and(|&o| o as usize <= i) {
            next.next();
            wanted.insert(stack.last().copied().unwrap_or(TOP));
        }
        let b = masked[i];
        match (quote, comment) {
            (_, true) if b == b'\n' => comment = false,
            (_, true) => {}
            (Some(q), _) if b == q => quote = None,
            (Some(_), _) if b == b'\\' => i += 1,
            (Some(_), _) => {}
            (None, _) => match b {
                b'#' => comment = true,
                b'"' | b'\'' => quote = Some(b),
                b'\\' => i += 1,
                b'{' => stack.push(i as u32),
                b'}' => {
                    stack.pop();
                }
                _ => {}
            },
        }
        if b == b'\n' {
            lines.push((i as u32 + 1, stack.last().copied().unwrap_or(TOP)));
        }
        i += 1;
    }
    for _ in next {
        wanted.insert(stack.last().copied().unwrap_or(TOP));
    }
    let end = masked.len() as u32;
    let mut out = Vec::new();
    for &open in wanted.iter().filter(|&&o| o != TOP) {
        // The line that opens the block (`server {`).
        let line = masked[..open as usize]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |p| p as u32 + 1);
        out.push(Span::new(line, open + 1));
    }
    for (k, &(start, block)) in lines.iter().enumerate() {
        if wanted.contains(&block) {
            let next = lines.get(k + 1).map_or(end, |&(s, _)| s);
            out.push(Span::new(start, next));
        }
    }
    out
}

/// For each offset, the INI section around it, its header included.
fn sections_of(masked: &[u8], offsets: &[u32]) -> Vec<Span> {
    let mut headers: Vec<u32> = vec![0];
    let mut start = 0usize;
    for line in masked.split_inclusive(|&b| b == b'\n') {
        if line.trim_ascii_start().starts_with(b"[") {
            headers.push(start as u32);
        }
        start += line.len();
    }
    let end = masked.len() as u32;
    offsets
        .iter()
        .map(|&at| {
            let k = headers.partition_point(|&h| h <= at);
            let from = headers[k.saturating_sub(1)];
            Span::new(from, headers.get(k).copied().unwrap_or(end))
        })
        .collect()
}

/// Whether a finding at `span` lies in a region whose findings depend on the template
/// (`unsure` as [`unsure`] returns it: merged, in order, so a binary search answers).
pub fn unsure_at(unsure: &[Span], span: Span) -> bool {
    let k = unsure.partition_point(|u| u.end <= span.start);
    unsure.get(k).is_some_and(|u| u.start <= span.start)
}

/// Whether a file's conditionals cannot be read both ways (keeping both branches leaves
/// its syntax broken): such a file is not configuration until rendered, and is listed as
/// not read rather than judged.
pub fn needs_rendering(holes: &[Hole], syntax_errors: usize) -> bool {
    syntax_errors > 0 && holes.iter().any(|h| h.kind == HoleKind::Control)
}

/// Whether `span` lies on a line that holds a hole (a finding there may be about the
/// placeholder, or depend on it).
pub fn touches(holes: &[Hole], text: &[u8], span: Span) -> bool {
    if holes.is_empty() {
        return false;
    }
    let start = text[..(span.start as usize).min(text.len())]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |p| p + 1) as u32;
    let end_at = (span.end as usize).min(text.len());
    let end = text[end_at..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(text.len(), |p| end_at + p) as u32;
    let first = holes.partition_point(|h| h.span.end <= start);
    holes[first..]
        .iter()
        .take_while(|h| h.span.start <= end)
        .any(|h| h.span.end > start && h.span.start <= end && h.kind != HoleKind::Comment)
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_short_scan_finds_what_the_block_scan_finds() {
        // Every text of up to four bytes over the bytes that matter, in every language.
        const BYTES: &[u8] = b"{%<SED_PH@$!aA#x ";
        let mut texts: Vec<Vec<u8>> = vec![Vec::new()];
        let mut last = texts.clone();
        for _ in 0..4 {
            last = last
                .iter()
                .flat_map(|t| {
                    BYTES.iter().map(move |&b| {
                        let mut t = t.clone();
                        t.push(b);
                        t
                    })
                })
                .collect();
            texts.extend(last.iter().cloned());
        }
        let find =
            |window: &[u8], m: usize| memchr::memmem::find(window, super::MARKERS[m]).is_some();
        for lang in [
            super::Lang::Nginx,
            super::Lang::Fpm,
            super::Lang::PhpIni,
            super::Lang::Sysctl,
        ] {
            for t in &texts {
                let block = super::block_has_marker(t, 0, t.len(), lang, &find);
                assert_eq!(
                    super::short_has_marker(t, lang),
                    block,
                    "{:?} {lang:?}",
                    String::from_utf8_lossy(t)
                );
            }
        }
    }

    use super::*;

    fn holes(t: &str, lang: Lang) -> Vec<(String, HoleKind)> {
        find(t.as_bytes(), lang)
            .iter()
            .map(|h| (t[h.span.range()].to_string(), h.kind))
            .collect()
    }

    fn values(t: &str, lang: Lang) -> Vec<String> {
        holes(t, lang).into_iter().map(|(s, _)| s).collect()
    }

    /// Markers are found wherever they start and end relative to the blocks the text is
    /// scanned in: inside one, across the boundary, at the very end; a text without one,
    /// whose bytes each start some marker, has none.
    #[test]
    fn markers_across_block_boundaries() {
        let block = 64 * 1024;
        for marker in ["{{", "PH_", "$A", "@X", "{$"] {
            for at in [0, 5, block - 2, block - 1, block, 2 * block - 1] {
                let mut text = vec![b' '; at];
                text.extend_from_slice(marker.as_bytes());
                text.extend(std::iter::repeat_n(b' ', 100));
                assert!(has_marker(&text, Lang::Nginx), "{marker} at {at}");
                text.truncate(at + marker.len());
                assert!(has_marker(&text, Lang::Nginx), "{marker} at {at}, last");
            }
        }
        let clean: Vec<u8> = b"{ $ @ % < PH SE _ ".repeat(2 * block / 17);
        assert!(!has_marker(&clean, Lang::Nginx));
    }

    #[test]
    fn placeholders_of_each_style() {
        use Lang::*;
        for (text, lang, want) in [
            ("listen {{ port }};", Nginx, "{{ port }}"),
            ("root {{.Values.root}}/public;", Nginx, "{{.Values.root}}"),
            ("server_name <%= @name %>;", Nginx, "<%= @name %>"),
            (
                "worker_connections @NGINX_WORKER_CONNECTIONS;",
                Nginx,
                "@NGINX_WORKER_CONNECTIONS",
            ),
            (
                "ssl_session_cache @SSL_SESSION_CACHE;",
                Nginx,
                "@SSL_SESSION_CACHE",
            ),
            ("server_name <DOMAIN>;", Nginx, "<DOMAIN>"),
            ("listen <port>;", Nginx, "<port>"),
            (
                "location ~* \\.(<browser-cache-extensions>)$ {",
                Nginx,
                "<browser-cache-extensions>",
            ),
            ("include %%TESTDIR%%/inc.conf;", Nginx, "%%TESTDIR%%"),
            ("    server_name  {vvv_hosts};", Nginx, "{vvv_hosts}"),
            ("listen ${NGINX_PORT};", Nginx, "${NGINX_PORT}"),
            (
                "php_admin_value[memory_limit] = %PHP_MAX_MEMORY%",
                Fpm,
                "%PHP_MAX_MEMORY%",
            ),
            ("listen ${PORT:-80};", Nginx, "${PORT:-80}"),
            ("fastcgi_pass $PHP_HOST:9000;", Nginx, "$PHP_HOST"),
            ("root /usr/share/@PACKAGE@;", Nginx, "@PACKAGE@"),
            ("server_name __SERVER_NAME__;", Nginx, "__SERVER_NAME__"),
            (
                "pm.max_children = @PHP_FPM_MAX_CHILDREN",
                Fpm,
                "@PHP_FPM_MAX_CHILDREN",
            ),
            (
                "include=/etc/php/SEDPHPVER/fpm/pool.d/*.conf",
                Fpm,
                "SEDPHPVER",
            ),
            ("clear_env = $clear_env", Fpm, "$clear_env"),
            (
                "php_admin_value[memory_limit] = <MEMORY_LIMIT>",
                Fpm,
                "<MEMORY_LIMIT>",
            ),
            (
                "pm.max_children = {{PHP_FPM_MAX_CHILDREN}}",
                Fpm,
                "{{PHP_FPM_MAX_CHILDREN}}",
            ),
            ("net.core.somaxconn = ${SOMAXCONN}", Sysctl, "${SOMAXCONN}"),
            ("pid {$SERVER_PATH}/nginx.pid;", Nginx, "{$SERVER_PATH}"),
            ("ssl_ciphers PH_SSL_CIPHERS;", Nginx, "PH_SSL_CIPHERS"),
            ("    use {$EVENT_MODEL};", Nginx, "{$EVENT_MODEL}"),
            (
                "env[MAGE_MODE] = !MAGENTO_RUN_MODE!",
                Fpm,
                "!MAGENTO_RUN_MODE!",
            ),
            (
                "memory_limit = {{ php_memory_limit }}",
                PhpIni,
                "{{ php_memory_limit }}",
            ),
        ] {
            assert_eq!(values(text, lang), vec![want.to_string()], "{text}");
        }
    }

    #[test]
    fn language_syntax_is_not_a_hole() {
        use Lang::*;
        for (text, lang) in [
            ("location ~ \"^/(\\d{2}){3}$\" { }", Nginx),
            ("map $a $b { default 0; }", Nginx),
            ("return 200 '{{';", Nginx),
            ("return 200 '{$json}';", Nginx),
            ("location ~ ^/a{2}$ { }", Nginx),
            ("ssl_ciphers HIGH:!aNULL:!PSK;", Nginx),
            ("set $GRAPH_ROOT /srv;", Nginx),
            ("display_errors = !E_ALL", PhpIni),
            ("error_reporting = E_ALL & ~E_NOTICE", PhpIni),
            ("root \"{site}/public\";", Nginx),
            ("set $x ${name};", Nginx),
            ("location ~ ^/\\p{Lu} { }", Nginx),
            ("if ($a) {return 403;}", Nginx),
            ("location / {}", Nginx),
            ("log_format x '%%';", Nginx),
            ("location @PHP { }", Nginx),
            ("try_files $uri @backend;", Nginx),
            ("add_header X-Frame-Options SAMEORIGIN;", Nginx),
            ("limit_except GET POST { deny all; }", Nginx),
            ("set $MODE on; return 200 $MODE;", Nginx),
            ("if ($http_X_Forwarded_Proto = https) { }", Nginx),
            ("proxy_set_header HOST $HTTP_X_FORWARDED_HOST;", Nginx),
            ("return 301 https://$HOST$REQUEST_URI;", Nginx),
            ("ssl_ciphers HIGH:!aNULL:@STRENGHT;", Nginx),
            ("ssl_ciphers \"ALL:@SECLEVEL=0\";", Nginx),
            ("listen = /run/php/$pool.sock", Fpm),
            ("access.format = \"%R - %u %t %Q%q %{mili}d\"", Fpm),
            ("env[HOME] = ${HOME}", Fpm),
            ("error_log = /var/log/$pool.log", Fpm),
            ("memory_limit = ${PHP_MEMORY_LIMIT}", PhpIni),
            ("pm.max_children = ${PHP_FPM_PM_MAX_CHILDREN:-50}", Fpm),
            ("server_name mail.example.com admin@example.com;", Nginx),
            ("proxy_set_header X-Accel __proxy_host;", Nginx),
            ("return 200 \"<html><body>ok</body></html>\";", Nginx),
            ("location ~ ^/(?<lang>[a-z]{2})/ { }", Nginx),
            ("location ~ ^/(?P<lang>[a-z]{2})/ { }", Nginx),
            ("if ($uri ~ \"(?<x>a)\\k<x>\") { }", Nginx),
        ] {
            assert_eq!(values(text, lang), Vec::<String>::new(), "{text}");
        }
    }

    #[test]
    fn control_tags_and_lines_alone() {
        let t = "{% if ssl %}\nlisten 443 ssl;\n{% else %}\nlisten 80;\n{% endif %}\n    {{ extra_options }}\n{{- range .Values.hosts }}\n";
        let kinds: Vec<HoleKind> = holes(t, Lang::Nginx).into_iter().map(|h| h.1).collect();
        use HoleKind::*;
        assert_eq!(kinds, [Control, Control, Control, Statements, Control]);
        let masked = mask(t.as_bytes(), &find(t.as_bytes(), Lang::Nginx), Lang::Nginx);
        let parsed = crate::syntax::nginx::parse(&masked);
        assert!(parsed.errors.is_empty(), "{:?}", parsed.errors);
        assert_eq!(masked.len(), t.len());
        let r = read(t.as_bytes(), Lang::Nginx);
        let at = |s: &str| Span::empty(t.find(s).unwrap() as u32);
        // Inside `{% if ssl %}`, and beside the line that may insert anything.
        assert!(unsure_at(&r.unsure, at("listen 443")));
        assert!(unsure_at(&r.unsure, at("listen 80")));
        let lines = |b: &[u8]| b.iter().filter(|&&c| c == b'\n').count();
        assert_eq!(lines(&masked), lines(t.as_bytes()));
    }

    #[test]
    fn masked_values_parse_as_words() {
        let t = "server {\n  listen {{ port }};\n  server_name {vvv_hosts} <DOMAIN>;\n  root \"{{ root | default('/srv') }}\";\n}\n";
        let masked = mask(t.as_bytes(), &find(t.as_bytes(), Lang::Nginx), Lang::Nginx);
        let parsed = crate::syntax::nginx::parse(&masked);
        assert!(parsed.errors.is_empty(), "{:?}", parsed.errors);
        assert_eq!(
            parsed.tree.print(t.as_bytes()).as_deref(),
            Some(t.as_bytes())
        );
    }

    #[test]
    fn inserts_make_their_block_unsure_not_the_nested_ones() {
        let t = "http {\n    {{ extra_http }}\n    sendfile on;\n    server {\n        listen 80;\n    }\n}\nevents {}\n";
        let r = read(t.as_bytes(), Lang::Nginx);
        let at = |s: &str| Span::empty(t.find(s).unwrap() as u32);
        assert!(unsure_at(&r.unsure, at("http {")));
        assert!(unsure_at(&r.unsure, at("sendfile")));
        assert!(unsure_at(&r.unsure, at("server {")));
        assert!(!unsure_at(&r.unsure, at("listen 80")));
        assert!(!unsure_at(&r.unsure, at("events")));
        let ini = "[global]\npid = x\n[www]\n{{ pool_extra }}\npm = static\n";
        let r = read(ini.as_bytes(), Lang::Fpm);
        let at = |s: &str| Span::empty(ini.find(s).unwrap() as u32);
        assert!(unsure_at(&r.unsure, at("[www]")));
        assert!(!unsure_at(&r.unsure, at("[global]")));
    }

    #[test]
    fn erb_and_go_bodies_are_unsure() {
        let t = "<% if @v < 1.15 -%>\n  ssl on;\n<% end -%>\nlisten 80;\n{{- if .Values.tls }}\nlisten 443 ssl;\n{{- end }}\n";
        let r = read(t.as_bytes(), Lang::Nginx);
        let at = |s: &str| Span::empty(t.find(s).unwrap() as u32);
        assert!(unsure_at(&r.unsure, at("ssl on")));
        assert!(!unsure_at(&r.unsure, at("listen 80")));
        assert!(unsure_at(&r.unsure, at("listen 443")));
    }

    #[test]
    fn a_placeholder_in_the_languages_comment_hides_nothing() {
        for (t, lang) in [
            ("autoindex on; # {{ note }}\n", Lang::Nginx),
            ("pm.max_children = 5 ; @MAX\n", Lang::Fpm),
            ("# {{ header }}\nnet.core.somaxconn = 5\n", Lang::Sysctl),
        ] {
            let h = find(t.as_bytes(), lang);
            assert!(!h.is_empty(), "{t}");
            assert!(h.iter().all(|h| h.kind == HoleKind::Comment), "{t}: {h:?}");
            assert!(!touches(&h, t.as_bytes(), Span::new(0, 3)), "{t}");
        }
        // Jinja still runs a tag written in an nginx comment.
        let h = find(b"# {% if x %}\n", Lang::Nginx);
        assert_eq!(h[0].kind, HoleKind::Control);
    }

    #[test]
    fn a_finding_on_a_holes_line_touches_it() {
        let t = b"worker_processes 2;\nworker_connections @WC;\n";
        let h = find(t, Lang::Nginx);
        assert!(touches(&h, t, Span::new(20, 38)));
        assert!(!touches(&h, t, Span::new(0, 16)));
    }
}
