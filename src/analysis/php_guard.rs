//! What the upload-execution checks ask of a PHP location: does it match a script that does
//! not exist after an uploaded file (`/uploads/evil.jpg/x.php`), does it check that the
//! script exists, and does an earlier regex location catch that URI first. Shared by NGX008
//! (nginx alone) and STK008 (nginx with the pool's `cgi.fix_pathinfo` and
//! `security.limit_extensions`).

use crate::analysis::cursor::{Directive, Word};
use crate::analysis::pcre::Regex;
use crate::fxhash::FxHashMap;
use std::borrow::Cow;

/// A script that does not exist, after an uploaded file.
pub const UPLOAD_URI: &str = "/uploads/evil.jpg/x.php";

/// A regex location's regex word, whether it is caseless (`~*`), and how many bytes of
/// the word the modifier takes (`~\.php$` written as one word).
pub fn regex_word(location: Directive<'_>) -> Option<(Word<'_>, bool, usize)> {
    match location.args().len() {
        2 => {
            let caseless = match location.arg(0)?.value().as_ref() {
                "~" => false,
                "~*" => true,
                _ => return None,
            };
            Some((location.arg(1)?, caseless, 0))
        }
        1 => {
            let word = location.arg(0)?;
            let value = word.value();
            if value.starts_with("~*") {
                Some((word, true, 2))
            } else if value.starts_with('~') {
                Some((word, false, 1))
            } else {
                None
            }
        }
        _ => None,
    }
}

/// Whether the block passes to FastCGI itself.
pub fn passes_to_fastcgi(location: Directive<'_>) -> bool {
    location.children("fastcgi_pass").next().is_some()
}

/// `try_files`, `internal`, or an `if` testing a file (`-f`, `-e`) in the location. Debian
/// and Ubuntu's stock `snippets/fastcgi-php.conf`, included but not in the tree, holds
/// `try_files $fastcgi_script_name =404;` (after `fastcgi_split_path_info`).
pub fn has_file_check(location: Directive<'_>) -> bool {
    location.all_children().any(|c| match c.name() {
        "try_files" | "internal" => true,
        "include" => {
            c.arg(0).is_some_and(|a| {
                let v = a.value();
                v.rsplit('/').next() == Some("fastcgi-php.conf")
            }) && c.read_nothing()
        }
        "if" => c.args().any(|a| {
            matches!(
                a.value().trim_start_matches('('),
                "-f" | "!-f" | "-e" | "!-e"
            )
        }),
        _ => false,
    })
}

/// Which regex location of each block first catches the upload URI without passing it to
/// FastCGI (a `deny` for upload directories): nginx uses the first matching regex, so a PHP
/// location after it never sees the URI. Found once per block, each distinct regex run once,
/// so a server of thousands of locations costs a walk over them, not one per pair.
#[derive(Default)]
pub struct Catchers<'a> {
    /// Per block (keyed by its first `location`), the first location that catches.
    first: FxHashMap<Directive<'a>, Option<Directive<'a>>>,
    /// Each distinct regex's answer, keyed by its text borrowed from the configuration
    /// (copied only when unescaping changed it): a copy per regex location was kept for
    /// the whole rule.
    runs: FxHashMap<(Cow<'a, str>, bool), bool>,
}

impl<'a> Catchers<'a> {
    /// Whether a regex location before `location` in its block catches [`UPLOAD_URI`].
    pub fn earlier_sibling_catches(&mut self, location: Directive<'a>) -> bool {
        let Some(key) = location.siblings("location").next() else {
            return false;
        };
        let first = match self.first.get(&key) {
            Some(&f) => f,
            None => {
                let f = self.first_catcher(key);
                self.first.insert(key, f);
                f
            }
        };
        first.is_some_and(|c| c.is_before(location))
    }

    fn first_catcher(&mut self, first: Directive<'a>) -> Option<Directive<'a>> {
        first.siblings("location").find(|&c| {
            let Some((word, caseless, prefix)) = regex_word(c) else {
                return false;
            };
            if passes_to_fastcgi(c) {
                return false;
            }
            let re = match word.value() {
                Cow::Borrowed(v) => v.get(prefix..).map(Cow::Borrowed),
                Cow::Owned(v) => v.get(prefix..).map(|r| Cow::Owned(r.to_string())),
            };
            let Some(re) = re else {
                return false;
            };
            *self
                .runs
                .entry((re, caseless))
                .or_insert_with_key(|(re, caseless)| {
                    Regex::parse(re, *caseless)
                        .ok()
                        .and_then(|r| r.is_match(UPLOAD_URI.as_bytes()).ok())
                        == Some(true)
                })
        })
    }
}

/// Extensions of files that are PHP code by convention: `.php`, versioned ones (`.php5`,
/// `.php74`), `.phtml`, `.phar`, `.inc`.
pub fn is_php_extension(ext: &str) -> bool {
    let e = ext.trim_start_matches('.').to_ascii_lowercase();
    let versioned = e
        .strip_prefix("php")
        .is_some_and(|v| v.bytes().all(|b| b.is_ascii_digit()));
    versioned || matches!(e.as_str(), "phtml" | "phar" | "inc")
}

/// A pool's `security.limit_extensions` as php-fpm splits it (`strtok(…, " \t")`): every
/// extension, and those that are not PHP's. An empty list means php-fpm allows every file.
pub fn limit_extensions(value: &str) -> (Vec<&str>, Vec<&str>) {
    let exts: Vec<&str> = value.split([' ', '\t']).filter(|e| !e.is_empty()).collect();
    let others = exts
        .iter()
        .copied()
        .filter(|e| !is_php_extension(e))
        .collect();
    (exts, others)
}

/// The URI of the CVE-2019-11043 exploit, decoded as nginx matches it: a newline after
/// `.php/`, and `.php` again at the end so that `\.php$` locations take it too.
pub const NEWLINE_PROBE: &[u8] = b"/index.php/a\nb.php";

/// Whether a `fastcgi_split_path_info` regex leaves `$fastcgi_path_info` empty for
/// [`NEWLINE_PROBE`] while the script name keeps more than `/index.php`: no match (nginx
/// then takes the whole URI as the script name), or a match whose second group is empty.
/// PCRE's `.` does not match a newline, so `^(.+?\.php)(/.*)$` fails on it.
/// `tests/security_php_binary.rs` compares this with the real nginx. `None`: a regex this
/// engine does not read.
pub fn split_loses_path_info(split: &str) -> Option<bool> {
    let re = Regex::parse(split, false).ok()?;
    match re.captures(NEWLINE_PROBE).ok()? {
        None => Some(true),
        Some(c) => {
            let group = |k| c.get(k).map(|(s, e)| &NEWLINE_PROBE[s..e]);
            let script = group(1).unwrap_or(b"");
            let info = group(2).unwrap_or(b"");
            Some(info.is_empty() && script.len() > b"/index.php".len())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{is_php_extension, split_loses_path_info};

    #[test]
    fn php_extensions() {
        for e in [".php", ".PHP", ".php5", ".php74", ".phtml", ".phar", ".inc"] {
            assert!(is_php_extension(e), "{e}");
        }
        for e in [".jpg", ".html", ".phps", ".txt", ".php.bak"] {
            assert!(!is_php_extension(e), "{e}");
        }
    }

    #[test]
    fn splits() {
        // `.` stops at the newline: no match.
        assert_eq!(split_loses_path_info(r"^(.+?\.php)(/.*)$"), Some(true));
        assert_eq!(split_loses_path_info(r"^(.+\.php)(/.+)$"), Some(true));
        // A class that takes the newline keeps the path info.
        assert_eq!(
            split_loses_path_info(r"^(.+?\.php)(/[\s\S]*)$"),
            Some(false)
        );
        assert_eq!(split_loses_path_info(r"(?s)^(.+?\.php)(/.*)$"), Some(false));
    }
}
