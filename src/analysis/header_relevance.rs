//! Whether a response header matters for the responses a block answers with: NGX116 says
//! a header is lost *where it matters*, not wherever nginx drops it.
//!
//! - Framing and content headers (`X-Frame-Options`, `Content-Security-Policy`,
//!   `Referrer-Policy`, `Permissions-Policy`, `Cross-Origin-Opener-Policy`, …) act on a
//!   document the browser renders; an image, a font, a stylesheet or a script is not one.
//! - `Strict-Transport-Security` is remembered per host: the host's documents set it, so a
//!   static asset without it is not a hole (RFC 6797 §8.1: the policy is noted from any
//!   response of the host).
//! - `X-Content-Type-Options: nosniff` makes a browser refuse a script or style whose type is
//!   wrong (fetch.spec.whatwg.org, "should response to request be blocked due to nosniff");
//!   the static module types a file by its extension (`types`), so a location that serves
//!   only `.js`/`.css`/images by extension sends the type the file is.
//! - CORS: `Access-Control-Allow-Methods`, `-Allow-Headers` and `-Max-Age` are read on a
//!   preflight (`OPTIONS`) response only; `Access-Control-Expose-Headers` on the actual
//!   response only (fetch.spec.whatwg.org, "CORS protocol").
//!
//! A block serves static assets when it has no content handler (no `*_pass`, …, in it or in
//! a location nested in it) and either its regex only matches URIs ending in asset
//! extensions (`\.(?:css|js)$`, `favicon\.ico$`, `= /robots.txt`), or it caches its files
//! for good (`expires max`, `Cache-Control: … immutable`): a page cached forever could
//! never change, so such a location holds versioned assets.

use crate::analysis::cursor::{Directive, Word};
use crate::analysis::pcre::ast::{GroupKind, Kind, Node};
use crate::analysis::pcre::Regex;
use crate::analysis::serving::is_content;

/// What a block answers with, as far as response headers go.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Serves {
    /// Documents (or anything lemplint cannot rule out as one).
    Documents,
    /// Static files of these extensions only (lower case, as the regex spells them).
    Assets(Vec<String>),
    /// Static files cached for good (`expires max`, `immutable`): versioned assets.
    CachedForever,
    /// The preflight branch of a CORS setup: `if ($request_method = OPTIONS)`.
    Preflight,
    /// A branch only requests from a trusted `Origin` enter
    /// ([`super::trusted_origin`]): answers to the trusted sites' own CORS requests.
    TrustedOrigin,
}

/// Why a lost header does not matter where it is lost (or that it does).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Relevance {
    Matters,
    /// It acts on documents; the block serves none.
    DocumentOnly,
    /// HSTS: noted per host from the host's documents.
    PerHost,
    /// nosniff on files the static module types by extension.
    TypedByExtension,
    /// A CSP that allows every source, inline script and eval, and sets nothing else.
    ProtectsNothing,
    /// A CORS header of preflight responses lost where no preflight is answered, or one of
    /// actual responses lost on the preflight branch.
    OtherCorsResponse,
}

/// Extensions of files a browser never renders as a page: images, fonts, styles, scripts,
/// media, downloads, data. SVG counts as an image (the way pages embed it); an `.html`,
/// `.php` or unknown extension does not.
#[rustfmt::skip]
const ASSET_EXTENSIONS: &[&str] = &[
    // images
    "gif", "jpg", "jpeg", "jpe", "png", "apng", "webp", "avif", "heic", "heif", "jxl", "ico",
    "cur", "bmp", "tif", "tiff", "svg", "svgz",
    // fonts
    "eot", "otf", "ttf", "ttc", "woff", "woff2",
    // styles and scripts
    "css", "js", "mjs", "cjs", "map", "less", "scss", "sass", "htc", "jsx", "ts", "tsx", "wasm",
    // media
    "mp3", "mp4", "m4a", "m4v", "aac", "ogg", "oga", "ogv", "opus", "wav", "webm", "flac",
    "mid", "midi", "mpg", "mpeg", "mpe", "mov", "avi", "wmv", "asf", "asx", "flv", "3gp",
    "pls", "swf",
    // downloads
    "zip", "tar", "gz", "tgz", "bz2", "xz", "zst", "rar", "7z", "uha", "iso", "dmg", "pkg",
    "exe", "msi", "deb", "rpm", "apk", "bin", "doc", "docx", "xls", "xlsx", "ppt", "pptx",
    "odt", "ods", "odp", "rtf", "rtx", "pdf", "txt", "csv",
    // data
    "json", "xml", "atom", "rss", "feed", "manifest", "webmanifest", "appcache", "ics",
];

/// Whether the arguments of `block` (a location's pattern) hold a template placeholder.
pub fn pattern_has_hole(block: Directive<'_>) -> bool {
    let file = block.file();
    block
        .args()
        .any(|a| crate::syntax::template::touches(&file.holes, &file.text, a.raw()))
}

/// What `block` (a `server`, `location` or `if`) answers with.
pub fn serves(block: Directive<'_>) -> Serves {
    match block.name() {
        "if" => {
            if is_options_test(block) {
                return Serves::Preflight;
            }
            if super::trusted_origin::entered_only_from_trusted_origin(block) {
                return Serves::TrustedOrigin;
            }
            // An `if` in a location answers that location's requests.
            match block.parent().filter(|p| p.name() == "location") {
                Some(loc) => serves(loc),
                None => Serves::Documents,
            }
        }
        "location" => location_serves(block),
        _ => Serves::Documents,
    }
}

fn location_serves(loc: Directive<'_>) -> Serves {
    if has_content_handler(loc, 0) {
        return Serves::Documents;
    }
    if let Some(exts) = location_extensions(loc) {
        if !exts.is_empty() && exts.iter().all(|e| ASSET_EXTENSIONS.contains(&e.as_str())) {
            return Serves::Assets(exts);
        }
        return Serves::Documents;
    }
    if cached_forever(loc) {
        return Serves::CachedForever;
    }
    Serves::Documents
}

/// A `*_pass` or module content handler in the block or in a block nested in it (nested
/// locations without their own `add_header` answer with this level's list).
fn has_content_handler(block: Directive<'_>, depth: usize) -> bool {
    if depth > 64 {
        return true;
    }
    block.all_children().any(|c| {
        is_content(c.name())
            || (matches!(c.name(), "location" | "if") && has_content_handler(c, depth + 1))
    })
}

/// `expires max`, or an own `Cache-Control` that says `immutable`.
fn cached_forever(loc: Directive<'_>) -> bool {
    let expires_max = loc
        .effective("expires")
        .last()
        .and_then(|d| d.args().last())
        .is_some_and(|a| a.value().eq_ignore_ascii_case("max"));
    expires_max
        || loc.children("add_header").any(|d| {
            d.arg(0)
                .is_some_and(|n| n.value().eq_ignore_ascii_case("cache-control"))
                && d.arg(1)
                    .is_some_and(|v| v.value().to_ascii_lowercase().contains("immutable"))
        })
}

/// `if ($request_method = OPTIONS)` (or `~ ^OPTIONS$`): the preflight branch.
fn is_options_test(block: Directive<'_>) -> bool {
    let args: Vec<String> = block.args().map(|a| a.value().into_owned()).collect();
    let joined = args.join(" ");
    let inner = joined
        .trim()
        .trim_start_matches('(')
        .trim_end_matches(')')
        .trim();
    let mut parts = inner.split_whitespace();
    let (Some(var), Some(op), Some(value)) = (parts.next(), parts.next(), parts.next()) else {
        return false;
    };
    if var != "$request_method" || parts.next().is_some() {
        return false;
    }
    let value = value.trim_matches(|c| c == '"' || c == '\'');
    match op {
        "=" => value == "OPTIONS",
        "~" | "~*" => {
            let v = value.trim_start_matches('^').trim_end_matches('$');
            v.eq_ignore_ascii_case("options")
        }
        _ => false,
    }
}

/// The extensions every URI a location matches ends with: from an exact name, or from a
/// regex anchored at the end whose tail is a finite set of `.ext` (`\.(?:css|js)$`,
/// `\.svgz?$`, `favicon\.ico$`). `None` when the location does not pin them.
pub fn location_extensions(loc: Directive<'_>) -> Option<Vec<String>> {
    use crate::analysis::locations::{location_line, Kind as LocKind};
    let (kind, name) = location_line(loc)?;
    let name = String::from_utf8_lossy(&name);
    match kind {
        LocKind::Exact => {
            let last = name.rsplit('/').next()?;
            let (_, ext) = last.rsplit_once('.')?;
            (!ext.is_empty()).then(|| vec![ext.to_ascii_lowercase()])
        }
        LocKind::Regex { caseless } => regex_extensions_cached(&name, caseless),
        _ => None,
    }
}

/// [`regex_extensions`] of a location's pattern, parsed once per pattern and thread: a
/// generated tree has thousands of locations sharing a few patterns, and every block that
/// loses a header asks (parsing each time made NGX116 15× slower on the 10 MB tree).
fn regex_extensions_cached(pattern: &str, caseless: bool) -> Option<Vec<String>> {
    use std::cell::RefCell;
    use std::collections::HashMap;
    /// Pattern and caselessness → its extensions.
    type Extensions = HashMap<(String, bool), Option<Vec<String>>>;
    thread_local! {
        static CACHE: RefCell<Extensions> = RefCell::new(HashMap::new());
    }
    let key = (pattern.to_string(), caseless);
    if let Some(hit) = CACHE.with(|c| c.borrow().get(&key).cloned()) {
        return hit;
    }
    let found = Regex::parse(pattern, caseless)
        .ok()
        .and_then(|re| regex_extensions(&re));
    CACHE.with(|c| c.borrow_mut().insert(key, found.clone()));
    found
}

/// A suffix being read backwards from the regex's end: its bytes (reversed) and whether the
/// `.` before the extension was reached.
#[derive(Clone)]
struct Tail {
    rev: Vec<u8>,
    done: bool,
}

/// Past this many alternatives the tail is not worth spelling out.
const MAX_TAILS: usize = 256;

/// The extensions every match of `re` ends with, when each alternative ends with `$` (or
/// `\z`, `\Z`) right after a finite `.ext`.
pub fn regex_extensions(re: &Regex) -> Option<Vec<String>> {
    let mut out: Vec<String> = Vec::new();
    for branch in re.ast().branches() {
        let items = branch.items();
        let (last, rest) = items.split_last()?;
        if !is_end_anchor(last) {
            return None;
        }
        let tails = back(
            rest,
            vec![Tail {
                rev: Vec::new(),
                done: false,
            }],
            0,
        )?;
        for t in tails {
            if !t.done || t.rev.is_empty() {
                return None;
            }
            let ext: Vec<u8> = t.rev.iter().rev().copied().collect();
            let ext = String::from_utf8(ext).ok()?;
            if !out.contains(&ext) {
                out.push(ext);
            }
        }
    }
    Some(out)
}

fn is_end_anchor(n: &Node) -> bool {
    use crate::analysis::pcre::ast::Assertion;
    match &n.kind {
        Kind::Assert(Assertion::EndLine { multiline: false })
        | Kind::Assert(Assertion::EndSubject)
        | Kind::Assert(Assertion::EndSubjectOrNewline) => true,
        Kind::Group(g) if matches!(g.kind, GroupKind::NonCapture | GroupKind::Capture { .. }) => {
            let items = g.body.items();
            g.body.branches().len() == 1 && items.len() == 1 && is_end_anchor(&items[0])
        }
        _ => false,
    }
}

/// Reads `items` from the end into every tail not yet done.
fn back(items: &[Node], mut tails: Vec<Tail>, depth: usize) -> Option<Vec<Tail>> {
    for item in items.iter().rev() {
        if tails.iter().all(|t| t.done) {
            break;
        }
        tails = step(item, tails, depth + 1)?;
        if tails.len() > MAX_TAILS {
            return None;
        }
    }
    Some(tails)
}

fn step(node: &Node, tails: Vec<Tail>, depth: usize) -> Option<Vec<Tail>> {
    if depth > 64 {
        return None;
    }
    let (done, open): (Vec<Tail>, Vec<Tail>) = tails.into_iter().partition(|t| t.done);
    let mut out = done;
    if open.is_empty() {
        return Some(out);
    }
    match &node.kind {
        Kind::Empty => out.extend(open),
        Kind::Literal { byte, .. } => {
            for mut t in open {
                if *byte == b'.' {
                    t.done = true;
                } else {
                    t.rev.push(byte.to_ascii_lowercase());
                }
                out.push(t);
            }
        }
        Kind::Set(cs) => {
            if !cs.unsure.is_empty() {
                return None;
            }
            // A small class (`[gG]`, `[2]`): one tail per byte, letters folded.
            let mut bytes: Vec<u8> = (0u8..=127)
                .filter(|&b| cs.set.contains(b))
                .map(|b| b.to_ascii_lowercase())
                .collect();
            bytes.dedup();
            bytes.sort_unstable();
            bytes.dedup();
            if bytes.is_empty() || bytes.len() > 4 || cs.set.len() > 8 || bytes.contains(&b'.') {
                return None;
            }
            for t in open {
                for &b in &bytes {
                    let mut t = t.clone();
                    t.rev.push(b);
                    out.push(t);
                }
            }
        }
        Kind::Group(g) => match g.kind {
            GroupKind::Capture { .. } | GroupKind::NonCapture | GroupKind::Atomic => {
                out.extend(alternatives(&g.body, open, depth)?)
            }
            _ => return None,
        },
        Kind::Concat(_) | Kind::Alternation(_) => out.extend(alternatives(node, open, depth)?),
        Kind::Repeat(r) => {
            let max = r.max?;
            if max > 4 {
                return None;
            }
            // Each count from min to max is one way the tail may read.
            let mut current = open;
            for _ in 0..r.min {
                current = step(&r.node, current, depth + 1)?;
            }
            let mut all = current.clone();
            for _ in r.min..max {
                current = step(&r.node, current, depth + 1)?;
                all.extend(current.iter().cloned());
            }
            out.extend(all);
        }
        Kind::Assert(_) | Kind::Backref { .. } => return None,
    }
    (out.len() <= MAX_TAILS).then_some(out)
}

/// Every branch of `node` read backwards into `tails`.
fn alternatives(node: &Node, tails: Vec<Tail>, depth: usize) -> Option<Vec<Tail>> {
    let mut out = Vec::new();
    for b in node.branches() {
        out.extend(back(b.items(), tails.clone(), depth + 1)?);
        if out.len() > MAX_TAILS {
            return None;
        }
    }
    Some(out)
}

/// Headers that act on a rendered document only.
const DOCUMENT_ONLY: &[&str] = &[
    "x-frame-options",
    "content-security-policy",
    "referrer-policy",
    "permissions-policy",
    "feature-policy",
    "cross-origin-opener-policy",
    "cross-origin-embedder-policy",
    "x-xss-protection",
    "origin-agent-cluster",
    "document-policy",
];

/// CORS headers a browser reads on a preflight response only.
const PREFLIGHT_ONLY: &[&str] = &[
    "access-control-allow-methods",
    "access-control-allow-headers",
    "access-control-max-age",
];

/// Whether `header` (with `value`, when known) lost at a block that [`serves`] `serves`
/// matters there.
pub fn relevance(header: &str, value: Option<&str>, serves: &Serves) -> Relevance {
    let h = header.to_ascii_lowercase();
    let cors_preflight = PREFLIGHT_ONLY.contains(&h.as_str());
    match serves {
        Serves::Preflight => {
            if h == "access-control-expose-headers" {
                return Relevance::OtherCorsResponse;
            }
            if !h.starts_with("access-control-") && h != "vary" {
                // A preflight is answered with no body: nothing renders, and the host's
                // documents carry its HSTS.
                if h == "strict-transport-security" {
                    return Relevance::PerHost;
                }
                if DOCUMENT_ONLY.contains(&h.as_str()) || h == "x-content-type-options" {
                    return Relevance::DocumentOnly;
                }
            }
        }
        Serves::Assets(_) | Serves::CachedForever => {
            // The static module answers OPTIONS with 405: no preflight is answered here.
            if cors_preflight {
                return Relevance::OtherCorsResponse;
            }
            if DOCUMENT_ONLY.contains(&h.as_str()) {
                return Relevance::DocumentOnly;
            }
            if h == "strict-transport-security" {
                return Relevance::PerHost;
            }
            if h == "x-content-type-options" && matches!(serves, Serves::Assets(_)) {
                return Relevance::TypedByExtension;
            }
        }
        Serves::TrustedOrigin => {
            // A page a third party frames or opens sends no trusted Origin: framing and
            // content policies are not lost where they defend anything, and the host's
            // other responses carry its HSTS.
            if DOCUMENT_ONLY.contains(&h.as_str()) {
                return Relevance::DocumentOnly;
            }
            if h == "strict-transport-security" {
                return Relevance::PerHost;
            }
        }
        Serves::Documents => {}
    }
    if h == "content-security-policy" && value.is_some_and(csp_protects_nothing) {
        return Relevance::ProtectsNothing;
    }
    Relevance::Matters
}

/// The `frame-ancestors` sources of a `Content-Security-Policy` value, if it has the
/// directive.
pub fn frame_ancestors(csp: &str) -> Option<Vec<String>> {
    csp.split(';').find_map(|d| {
        let mut words = d.split_ascii_whitespace();
        words
            .next()
            .filter(|w| w.eq_ignore_ascii_case("frame-ancestors"))
            .map(|_| words.map(|w| w.to_ascii_lowercase()).collect())
    })
}

/// A Content-Security-Policy that blocks nothing a page would do: only fetch directives
/// (`*-src`), each allowing any host (`*`, `https:`), and, for scripts and styles, inline
/// code (and `eval` for scripts) without a nonce or hash that would switch that off; no
/// `frame-ancestors`, `form-action`, `base-uri`, `sandbox`, …. A value holding a variable is
/// not judged.
pub fn csp_protects_nothing(value: &str) -> bool {
    if value.contains('$') {
        return false;
    }
    let mut any = false;
    for directive in value.split(';') {
        let mut words = directive.split_ascii_whitespace();
        let Some(name) = words.next() else {
            continue;
        };
        let name = name.to_ascii_lowercase();
        if name == "report-uri" || name == "report-to" {
            continue;
        }
        if !name.ends_with("-src") && name != "default-src" {
            return false;
        }
        any = true;
        let sources: Vec<String> = words.map(|w| w.to_ascii_lowercase()).collect();
        let has = |s: &str| sources.iter().any(|x| x == s);
        if !(has("*") || has("https:")) {
            return false;
        }
        if sources
            .iter()
            .any(|s| s.starts_with("'nonce-") || s.starts_with("'sha") || s == "'strict-dynamic'")
        {
            return false;
        }
        let script = matches!(
            name.as_str(),
            "default-src" | "script-src" | "script-src-elem" | "script-src-attr"
        );
        let style = name.starts_with("style-src");
        if (script || style) && !has("'unsafe-inline'") {
            return false;
        }
        if matches!(name.as_str(), "default-src" | "script-src") && !has("'unsafe-eval'") {
            return false;
        }
    }
    any
}

/// Why the lost security headers of a finding protect nothing where they are lost, as a
/// clause for its message: `lost` pairs each lost security header with its [`relevance`].
/// `None` when one of them matters.
pub fn explain(lost: &[(&str, Relevance)], serves: &Serves) -> Option<String> {
    if lost.iter().any(|(_, r)| *r == Relevance::Matters) || lost.is_empty() {
        return None;
    }
    let names = |want: Relevance| -> Vec<&str> {
        lost.iter()
            .filter(|(_, r)| *r == want)
            .map(|(n, _)| *n)
            .collect()
    };
    let mut parts: Vec<String> = Vec::new();
    let docs = names(Relevance::DocumentOnly);
    if !docs.is_empty() {
        let what = match serves {
            Serves::Assets(exts) => {
                let mut shown: Vec<String> = exts.iter().take(6).map(|e| format!(".{e}")).collect();
                if exts.len() > 6 {
                    shown.push("…".into());
                }
                format!(
                    "this location serves only static {} files",
                    shown.join(", ")
                )
            }
            Serves::CachedForever => {
                "this location serves static files cached for good (versioned assets)".into()
            }
            Serves::Preflight => "this `if` answers CORS preflights, which render nothing".into(),
            Serves::TrustedOrigin => "this `if` is entered only by requests whose `Origin` its \
                                      test trusts, which a third-party page cannot make a \
                                      browser send (a framed page's request carries none)"
                .into(),
            Serves::Documents => "these responses are not documents".into(),
        };
        let verb = if docs.len() == 1 { "acts" } else { "act" };
        parts.push(format!(
            "{} {verb} on documents and {what}",
            docs.join(", ")
        ));
    }
    let hsts = names(Relevance::PerHost);
    if !hsts.is_empty() {
        parts.push(format!(
            "{} is noted per host from the host's documents",
            hsts.join(", ")
        ));
    }
    let typed = names(Relevance::TypedByExtension);
    if !typed.is_empty() {
        parts.push(format!(
            "{} changes nothing on files nginx types by their extension",
            typed.join(", ")
        ));
    }
    let nothing = names(Relevance::ProtectsNothing);
    if !nothing.is_empty() {
        parts.push(format!(
            "the lost {} allows every source, inline script and eval, and sets no frame-ancestors: it blocks nothing",
            nothing.join(", ")
        ));
    }
    Some(parts.join("; "))
}

/// Headers the security headers module (GetPageSpeed's ngx_security_headers) sends by
/// itself under `security_headers on`, at every level that setting reaches (it merges like
/// any flag), each with the directive whose `omit` stops it: one of them dropped from the
/// `add_header` list is still sent. (HSTS and Referrer-Policy come with its later releases.)
const MODULE_SENDS: &[(&str, Option<&str>)] = &[
    ("x-frame-options", Some("security_headers_frame")),
    ("x-content-type-options", None),
    ("x-xss-protection", Some("security_headers_xss")),
    ("referrer-policy", Some("security_headers_referrer_policy")),
    ("strict-transport-security", None),
];

pub fn module_sends(block: Directive<'_>, header: &str) -> bool {
    let last_arg = |name: &str, value: &str| {
        block
            .effective(name)
            .last()
            .and_then(|d| d.arg(0))
            .is_some_and(|a| a.value().eq_ignore_ascii_case(value))
    };
    MODULE_SENDS.iter().any(|(h, omit)| {
        h.eq_ignore_ascii_case(header) && !omit.is_some_and(|o| last_arg(o, "omit"))
    }) && last_arg("security_headers", "on")
}

/// `proxy_set_header Host $proxy_host` and `Connection close` are what nginx sends when the
/// configuration says nothing (ngx_http_proxy_headers): dropping them loses nothing.
pub fn is_proxy_default(name: &str, value: Option<Word<'_>>) -> bool {
    let Some(v) = value else {
        return false;
    };
    let v = v.value();
    (name.eq_ignore_ascii_case("host") && v == "$proxy_host")
        || (name.eq_ignore_ascii_case("connection") && v.eq_ignore_ascii_case("close"))
}

/// Where a location's `try_files` hands a request no file matches: its last argument (a URI,
/// without its arguments, or a `@name`), unless that is a status code (`=404`). nginx
/// redirects internally there, and the location that answers sends its own `add_header`
/// list, not this one's (ngx_http_core_try_files_phase, ngx_http_internal_redirect).
pub fn try_files_fallback(block: Directive<'_>) -> Option<String> {
    if block.name() != "location" {
        return None;
    }
    let tf = block.children("try_files").last()?;
    let last = tf.args().last()?.value().into_owned();
    if last.starts_with('=') || tf.args().len() < 2 {
        return None;
    }
    Some(last.split('?').next().unwrap_or(&last).to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exts(pattern: &str, caseless: bool) -> Option<Vec<String>> {
        let mut v = regex_extensions(&Regex::parse(pattern, caseless).unwrap())?;
        v.sort();
        Some(v)
    }

    #[test]
    fn extensions_of_the_usual_asset_regexes() {
        assert_eq!(exts(r"\.(?:css|js)$", true).unwrap(), ["css", "js"]);
        assert_eq!(exts(r"\.svgz?$", true).unwrap(), ["svg", "svgz"]);
        assert_eq!(exts(r"favicon\.ico$", true).unwrap(), ["ico"]);
        assert_eq!(
            exts(r"\.(?:css(\.map)?|jpe?g)$", true).unwrap(),
            ["css", "jpeg", "jpg", "map"]
        );
        assert_eq!(
            exts(r"^/w/(skins|extensions)/.+\.(css|js|woff2)$", false).unwrap(),
            ["css", "js", "woff2"]
        );
        assert_eq!(
            exts(r"js/container_.*_preview\.js$", false).unwrap(),
            ["js"]
        );
        assert_eq!(
            exts(r"\.woff2?$|\.ttf$", true).unwrap(),
            ["ttf", "woff", "woff2"]
        );
    }

    #[test]
    fn regexes_that_do_not_pin_an_extension() {
        // Not anchored at the end: `/a.css/x.php` matches too.
        assert_eq!(exts(r"\.(css|js)", true), None);
        assert_eq!(exts(r"^/(favicon|static)", false), None);
        // Anything may precede `$`.
        assert_eq!(exts(r"^/static/.*$", false), None);
        assert_eq!(exts(r"\.[a-z]+$", false), None);
        // `(?m)$` ends a line, not the URI.
        assert_eq!(exts(r"(?m)\.css$", false), None);
    }

    #[test]
    fn document_headers_do_not_matter_on_assets() {
        let fonts = Serves::Assets(vec!["woff2".into()]);
        assert_eq!(
            relevance("X-Frame-Options", None, &fonts),
            Relevance::DocumentOnly
        );
        assert_eq!(
            relevance("Strict-Transport-Security", None, &fonts),
            Relevance::PerHost
        );
        assert_eq!(
            relevance("X-Content-Type-Options", None, &fonts),
            Relevance::TypedByExtension
        );
        assert_eq!(
            relevance("Cross-Origin-Resource-Policy", None, &fonts),
            Relevance::Matters
        );
        assert_eq!(
            relevance("X-Content-Type-Options", None, &Serves::CachedForever),
            Relevance::Matters
        );
        assert_eq!(
            relevance("X-Frame-Options", None, &Serves::Documents),
            Relevance::Matters
        );
        assert_eq!(
            relevance("Access-Control-Expose-Headers", None, &Serves::Preflight),
            Relevance::OtherCorsResponse
        );
        assert_eq!(
            relevance("Access-Control-Allow-Origin", None, &Serves::Preflight),
            Relevance::Matters
        );
    }

    #[test]
    fn frame_ancestors_sources() {
        assert_eq!(
            frame_ancestors("default-src 'self'; frame-ancestors 'self' https://a.example"),
            Some(vec!["'self'".to_string(), "https://a.example".to_string()])
        );
        assert_eq!(frame_ancestors("default-src 'self'"), None);
    }

    #[test]
    fn csp_that_allows_everything() {
        assert!(csp_protects_nothing(
            "default-src 'self' 'unsafe-inline' 'unsafe-eval' blob: data: https: wss: *"
        ));
        assert!(!csp_protects_nothing(
            "default-src * 'unsafe-inline' 'unsafe-eval'; frame-ancestors 'self'"
        ));
        assert!(!csp_protects_nothing("default-src * 'unsafe-inline'"));
        assert!(!csp_protects_nothing("default-src 'self'"));
        assert!(!csp_protects_nothing(
            "default-src * 'unsafe-inline' 'unsafe-eval' 'nonce-abc'"
        ));
        assert!(!csp_protects_nothing("default-src $csp"));
        assert!(!csp_protects_nothing("upgrade-insecure-requests"));
        assert!(!csp_protects_nothing(""));
    }
}
