//! NGX011 ssl-ciphers-invalid: a cipher string OpenSSL rejects, or a word in it that
//! OpenSSL silently skips.
//!
//! nginx hands `ssl_ciphers` to `SSL_CTX_set_cipher_list` for every server with a
//! certificate. When the string selects no TLS ≤ 1.2 suite at all, or has a character
//! OpenSSL cannot read, that call fails and nginx refuses to start:
//! `SSL_CTX_set_cipher_list("RC4") failed (SSL: error:0A0000B9:SSL routines::no cipher
//! match)` (verified with nginx 1.22.1 / OpenSSL 3.0). Which strings fail depends on the
//! OpenSSL version: `RC4` alone is fine on 1.0.2 and fatal on 3.0.
//!
//! A word OpenSSL does not know is otherwise skipped without a message, with everything glued
//! to it up to the next `:`. `!aNUL` excludes nothing; `FOO!ADH` loses the `!ADH`. Such a
//! typo is a warning (with a fix when one keyword is the obvious intent); a TLS 1.3 suite
//! name (set with `ssl_conf_command Ciphersuites`, never with `ssl_ciphers`) and a keyword
//! retired long ago are infos. Words of other OpenSSL versions (`RC4` on 3.0) are not
//! reported: they mean what they say on the versions that have them.
//!
//! Severity: error when a server with a certificate uses the string (or it sits in a snippet
//! linted on its own, which exists to be included); a warning for a string in an `http`
//! block no TLS server uses yet (nginx only fails once one does).

use crate::analysis::cursor::Word;
use crate::analysis::tls_settings::{
    http_of, settings, single_arg, ssl_context_servers, CipherCache, Setting, Versions,
};
use crate::diagnostic::Severity;
use crate::fix::Fix;
use crate::rules::{Context, Rule};
use crate::source::Span;
use crate::tls::{self, CipherError, Expansion, OpenSslVersion, SUITES};

declare_rule! {
    pub struct SslCiphersInvalid;
    code: NGX011,
    name: "ssl-ciphers-invalid",
    lang: nginx,
    category: Correctness,
    severity: Error,
    fix: Sometimes,
    group: Default,
}

impl Rule for SslCiphersInvalid {
    fn check(&self, cx: &mut Context<'_>) {
        let v = Versions::of(cx.host);
        let mut cache = CipherCache::default();
        for inst in &cx.stack.nginx {
            let servers = ssl_context_servers(inst);
            for setting in settings(inst, &servers, "ssl_ciphers", &[]) {
                let Some(occ) = setting.occ else { continue };
                let Some((word, spec)) = single_arg(occ) else {
                    continue;
                };
                if !cx.claim(word.file(), word.raw()) {
                    continue;
                }
                match cache.expand(&spec, v.openssl) {
                    Err(err) => {
                        let err = err.clone();
                        rejected(cx, &setting, word, &spec, &err, v);
                    }
                    Ok(e) => {
                        let e = e.clone();
                        skipped_words(cx, word, &spec, &e, v);
                    }
                }
            }
        }
    }
}

/// The OpenSSL error nginx prints, per version.
fn openssl_error(version: OpenSslVersion, err: &CipherError) -> &'static str {
    let no_match = matches!(err, CipherError::NoCipherMatch { .. });
    match (version, no_match) {
        (OpenSslVersion::V3_0, true) => "error:0A0000B9:SSL routines::no cipher match",
        (OpenSslVersion::V3_0, false) => "error:0A000118:SSL routines::invalid command",
        (_, true) => "error:1410D0B9:SSL routines:SSL_CTX_set_cipher_list:no cipher match",
        (_, false) => "error:1410D118:SSL routines:SSL_CTX_set_cipher_list:invalid command",
    }
}

/// The span of `len` bytes at `offset` in the string value of `word`, when the raw token
/// maps byte for byte onto the value (no escapes); else the whole argument.
fn span_in(word: Word<'_>, offset: usize, len: usize) -> Span {
    let inner = &word.file().text[word.inner().range()];
    if inner.contains(&b'\\') || offset + len > inner.len() {
        return word.raw();
    }
    let start = word.inner().start + offset as u32;
    Span::new(start, start + len.max(1) as u32)
}

fn rejected(
    cx: &mut Context<'_>,
    setting: &Setting<'_>,
    word: Word<'_>,
    spec: &str,
    err: &CipherError,
    v: Versions,
) {
    let failure = format!(
        "`SSL_CTX_set_cipher_list(\"{spec}\") failed (SSL: {})`",
        openssl_error(v.openssl, err)
    );
    // Unused in a known `http` block: nginx only fails once a TLS server uses it.
    let unused_in_http =
        setting.users.is_empty() && setting.contexts.iter().all(|&c| http_of(c).is_some());
    let consequence = if unused_in_http {
        format!("nginx will refuse to start as soon as a TLS server uses it: {failure}")
    } else {
        format!("nginx refuses to start: {failure}")
    };
    let (message, span, help) = match err {
        CipherError::NoCipherMatch { unknown } => {
            let message = format!(
                "`ssl_ciphers` selects no cipher suite in {}; {consequence}",
                v.openssl_label()
            );
            let mut help: Vec<String> = unknown
                .iter()
                .map(|w| format!("`{w}`: {}.", unknown_word_note(w, v.openssl)))
                .collect();
            help.push(
                "OpenSSL needs at least one TLS 1.2-or-older suite in the list; Mozilla's \
                 intermediate list works on every version."
                    .into(),
            );
            (message, word.raw(), help.join(" "))
        }
        CipherError::InvalidCommand { offset, found } => {
            let rest: String = spec
                .get(*offset..)
                .unwrap_or("")
                .chars()
                .take_while(|&c| !is_sep(c))
                .collect();
            let at = match found {
                Some(_) => format!("`{rest}` (character {} of the string)", offset + 1),
                None => "the end of the string".to_string(),
            };
            let message = format!("OpenSSL cannot read `ssl_ciphers` at {at}; {consequence}");
            let span = span_in(word, *offset, rest.len());
            let help = "Cipher-string words are letters, digits, `-`, `.` and `=`, joined by \
                        `+` and separated by `:`; `!`, `-`, `+` and `@` only start an element, \
                        and `@` takes `STRENGTH` or `SECLEVEL=n`."
                .to_string();
            (message, span, help)
        }
    };
    let d = cx.report(word.file(), span, message);
    if unused_in_http {
        d.severity = Severity::Warning;
    }
    d.help = Some(help);
}

/// What to say about a word `version` does not know.
fn unknown_word_note(word: &str, version: OpenSslVersion) -> String {
    let elsewhere: Vec<&str> = tls::recognised_in(word).iter().map(|v| v.label()).collect();
    if !elsewhere.is_empty() {
        return format!(
            "not in OpenSSL {version}, only in {}",
            elsewhere.join(" and ")
        );
    }
    if let Some(note) = retired(word) {
        return note.to_string();
    }
    if tls::by_name(word).is_some_and(|s| s.is_tls13()) {
        return "a TLS 1.3 suite, which a cipher string cannot set".into();
    }
    match suggestion(word) {
        Some(s) => format!("not an OpenSSL keyword or suite (did you mean `{s}`?)"),
        None => "not an OpenSSL keyword or suite".into(),
    }
}

/// Keywords of OpenSSL releases before 1.0.2, or of algorithms no default build has.
fn retired(word: &str) -> Option<&'static str> {
    match word {
        "ECCdraft" => Some("an OpenSSL 0.9.8 keyword, unknown since 1.0.0 (ECDHE suites are in `DEFAULT` and `HIGH` now)"),
        "kGOST" | "kGOST18" | "aGOST" | "aGOST01" | "aGOST12" | "GOST94" | "GOST89MAC"
        | "GOST89MAC12" | "GOST12" | "GOST89" | "kKRB5" | "aKRB5" | "KRB5" | "FZA" | "kFZA"
        | "aFZA" | "eFZA" => Some("a keyword for algorithms no default OpenSSL build provides"),
        _ => None,
    }
}

/// Cipher-string keywords of any OpenSSL version (filtered by [`tls::recognised_in`]
/// before use, so a slip here cannot suggest a word OpenSSL does not know).
const KEYWORDS: &[&str] = &[
    "ALL",
    "COMPLEMENTOFALL",
    "COMPLEMENTOFDEFAULT",
    "DEFAULT",
    "HIGH",
    "MEDIUM",
    "LOW",
    "EXPORT",
    "EXP",
    "EXPORT40",
    "EXPORT56",
    "eNULL",
    "NULL",
    "aNULL",
    "kRSA",
    "aRSA",
    "RSA",
    "kDHr",
    "kDHd",
    "kDH",
    "kEDH",
    "kDHE",
    "DH",
    "DHE",
    "EDH",
    "ADH",
    "kEECDH",
    "kECDHE",
    "ECDH",
    "ECDHE",
    "EECDH",
    "AECDH",
    "aDSS",
    "DSS",
    "aDH",
    "aECDSA",
    "ECDSA",
    "aECDH",
    "kECDHr",
    "kECDHe",
    "kECDH",
    "TLSv1.2",
    "TLSv1.0",
    "TLSv1",
    "SSLv3",
    "SSLv2",
    "AES128",
    "AES256",
    "AES",
    "AESGCM",
    "AESCCM",
    "AESCCM8",
    "ARIA128",
    "ARIA256",
    "ARIA",
    "ARIAGCM",
    "CAMELLIA128",
    "CAMELLIA256",
    "CAMELLIA",
    "CHACHA20",
    "3DES",
    "DES",
    "RC4",
    "RC2",
    "IDEA",
    "SEED",
    "MD5",
    "SHA1",
    "SHA",
    "SHA256",
    "SHA384",
    "PSK",
    "kPSK",
    "kECDHEPSK",
    "kDHEPSK",
    "kRSAPSK",
    "aPSK",
    "kSRP",
    "SRP",
    "aSRP",
    "SUITEB128",
    "SUITEB128ONLY",
    "SUITEB192",
    "SUITEB128C2",
    "CBC",
    "FIPS",
];

/// The one keyword or suite name `word` most likely meant, when that is another word: a
/// suite of another OpenSSL version (`EXP-RC4-MD5` on 3.0) is its own nearest name, and
/// "did you mean `EXP-RC4-MD5`" for `EXP-RC4-MD5` would say nothing.
fn suggestion(word: &str) -> Option<String> {
    nearest(word).filter(|s| s != word)
}

/// A case-insensitive match, else the only name at the smallest edit distance (at most 1,
/// or 2 for words of 8+ letters).
fn nearest(word: &str) -> Option<String> {
    let vocabulary: Vec<&str> = KEYWORDS
        .iter()
        .copied()
        .filter(|k| !tls::recognised_in(k).is_empty())
        .chain(SUITES.iter().filter(|s| !s.is_tls13()).map(|s| s.name))
        .collect();
    let ci: Vec<&str> = vocabulary
        .iter()
        .copied()
        .filter(|k| k.eq_ignore_ascii_case(word))
        .collect();
    if let [one] = ci.as_slice() {
        return Some(one.to_string());
    }
    let limit = if word.len() >= 8 { 2 } else { 1 };
    let mut best: Vec<(usize, &str)> = vocabulary
        .iter()
        .map(|k| {
            (
                crate::edit_distance::levenshtein(word.as_bytes(), k.as_bytes()),
                *k,
            )
        })
        .filter(|(d, _)| *d <= limit)
        .collect();
    best.sort();
    best.dedup();
    match best.as_slice() {
        [(d, k), rest @ ..] if rest.first().is_none_or(|(d2, _)| d2 > d) => Some(k.to_string()),
        _ => None,
    }
}

/// OpenSSL's word characters (3.x; `=` only after `@`, which does not matter here).
fn is_word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '=')
}

fn is_sep(c: char) -> bool {
    matches!(c, ':' | ',' | ' ' | ';')
}

/// The byte offset of the element `el` in `spec` (at an element boundary).
fn find_element(spec: &str, el: &str) -> Option<usize> {
    spec.match_indices(el).map(|(i, _)| i).find(|&i| {
        let before = spec[..i].chars().next_back();
        let after = spec[i + el.len()..].chars().next();
        before.is_none_or(is_sep) && after.is_none_or(is_sep)
    })
}

/// An unknown word in a skipped element: its offset in the element, and the token it starts
/// (the word extended over `_`, so that `TLS_AES_128_GCM_SHA256` is one name, where OpenSSL
/// stops reading at `TLS`).
fn unknown_in(el: &str, e: &Expansion) -> Option<(usize, String, String)> {
    let mut i = 0;
    let chars: Vec<(usize, char)> = el.char_indices().collect();
    while i < chars.len() {
        let (start, c) = chars[i];
        if !is_word_char(c) {
            i += 1;
            continue;
        }
        let mut j = i;
        while j < chars.len() && is_word_char(chars[j].1) {
            j += 1;
        }
        let end = chars.get(j).map_or(el.len(), |&(o, _)| o);
        let word = &el[start..end];
        if e.unknown.iter().any(|u| u == word) {
            let token_end = el[start..]
                .find(|c: char| !(is_word_char(c) || c == '_'))
                .map_or(el.len(), |n| start + n);
            return Some((start, word.to_string(), el[start..token_end].to_string()));
        }
        // A known word: the next one starts after `+` (an AND) or an operator.
        i = j;
    }
    None
}

/// Warnings for the words OpenSSL skips in an accepted string.
fn skipped_words(cx: &mut Context<'_>, word: Word<'_>, spec: &str, e: &Expansion, v: Versions) {
    let mut seen: Vec<&str> = Vec::new();
    for el in &e.ignored {
        if seen.contains(&el.as_str()) {
            continue;
        }
        seen.push(el);
        let Some((in_el, w, token)) = unknown_in(el, e) else {
            continue; // e.g. `kRSA+kDHE`: known words that can match nothing together
        };
        if !tls::recognised_in(&w).is_empty() {
            continue; // a word of another version: it means what it says there
        }
        let Some(at_el) = find_element(spec, el) else {
            continue;
        };
        let at = at_el + in_el;
        let op = el.chars().next().filter(|c| matches!(c, '!' | '-'));
        let span = span_in(word, at, token.len());
        let mut help = Vec::new();
        let rest = &el[in_el + token.len()..];
        if rest.starts_with(['!', '-', '@']) {
            help.push(format!(
                "OpenSSL skips everything glued to an unknown word up to the next `:`; write \
                 `{rest}` as its own element if it is meant."
            ));
        }
        let (message, severity, fix) = if let Some(note) = retired(&token) {
            (
                format!("`{token}` in `ssl_ciphers` is {note}: OpenSSL ignores it"),
                Severity::Info,
                None,
            )
        } else if tls::by_name(&token).is_some_and(|s| s.is_tls13()) {
            help.push(
                "TLS 1.3 suites are configured with `ssl_conf_command Ciphersuites …`; \
                 OpenSSL's TLS 1.3 defaults are all strong."
                    .into(),
            );
            (
                format!("`{token}` is a TLS 1.3 suite, which `ssl_ciphers` cannot set: OpenSSL ignores it"),
                Severity::Info,
                None,
            )
        } else if let Some(suite) = tls::by_iana(&token).filter(|s| s.available_in(v.openssl)) {
            let name = suite.name_in(v.openssl).to_string();
            let message = format!(
                "`{token}` is an IANA name, which OpenSSL cipher strings do not accept: OpenSSL \
                 ignores it, so {name} is not enabled by it"
            );
            (message, Severity::Warning, Some(name))
        } else {
            let guess = suggestion(&token);
            let glued = el.len() > in_el + token.len() || in_el > usize::from(op.is_some());
            let effect = match op {
                _ if glued => format!("the whole element `{el}` does nothing"),
                Some(o) if in_el == 1 => format!("`{o}{token}` excludes nothing"),
                _ => "it selects nothing".to_string(),
            };
            let mut message = format!(
                "`{token}` is not an OpenSSL cipher keyword or suite name; OpenSSL silently \
                 ignores it, so {effect}"
            );
            if let Some(g) = &guess {
                message.push_str(&format!(" (did you mean `{g}`?)"));
            }
            (message, Severity::Warning, guess)
        };
        let d = cx.report(word.file(), span, message);
        d.severity = severity;
        if let Some(replacement) = fix {
            let mut value = spec.to_string();
            value.replace_range(at..at + token.len(), &replacement);
            d.with_fix(Fix::unsafe_(
                format!("Replace `{token}` with `{replacement}`"),
                vec![word.replace(&value)],
            ));
        }
        if !help.is_empty() {
            d.help = Some(help.join(" "));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggestions() {
        assert_eq!(suggestion("aNUL").as_deref(), Some("aNULL"));
        assert_eq!(suggestion("anull").as_deref(), Some("aNULL"));
        assert_eq!(
            suggestion("ECDHE-RSA-AES128-GCM-SHA265").as_deref(),
            Some("ECDHE-RSA-AES128-GCM-SHA256")
        );
        assert_eq!(suggestion("FOOBAR"), None);
        assert_eq!(suggestion("EXP-RC4-MD5"), None);
    }

    #[test]
    fn elements_are_found_whole() {
        assert_eq!(find_element("HIGH:!aNUL:!MD5", "!aNUL"), Some(5));
        assert_eq!(find_element("ECDHE-RSA:RSA", "RSA"), Some(10));
        assert_eq!(find_element("HIGH", "IG"), None);
    }
}
