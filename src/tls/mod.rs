//! TLS: an offline model of OpenSSL's cipher-string language.
//!
//! `ssl_ciphers` takes an OpenSSL cipher string, and what it means depends on the OpenSSL
//! that nginx is linked against: the same `ALL:!kEDH!ADH:RC4+RSA:+HIGH:+MEDIUM:+LOW:+SSLv2:+EXP`
//! gives 88 suites (with RC4 and anonymous ECDH) on 1.0.2 and 101 on 3.0. A linter that
//! wants to say "this enables anonymous suites" must expand the string exactly as OpenSSL
//! does, in content and order, and without an `openssl` binary at hand (the config may be
//! linted far from the server). [`expand`] does that for 1.0.2, 1.1.1 and 3.0; the
//! differential test `tests/tls_openssl.rs` holds it to the local `openssl ciphers -v`.
//!
//! * [`table`]: every suite with its algorithms, strength and per-version entries.
//! * [`eval`]: the rule-string evaluator ([`expand`]).
//! * [`weak`]: why a suite is weak ([`weaknesses`]).
//! * [`dhparam`]: the prime size of an `ssl_dhparam` file, and the published groups.

pub mod dhparam;
pub mod eval;
pub mod table;
pub mod weak;

pub use eval::{expand, permitted_at_seclevel, recognised_in, CipherError, Expansion};
pub use table::{by_iana, by_id, by_name, Au, Enc, Kx, Mac, Proto, Suite, SUITES};
pub use weak::{weaknesses, Level, Weakness};

use std::fmt;
use std::str::FromStr;

/// The OpenSSL release series whose cipher-string semantics are modelled, each as its
/// default build (no `enable-weak-ssl-ciphers`, no legacy provider).
///
/// * 1.0.2: the last series with fixed-DH/ECDH, Kerberos, `EXP`/`SSLv2` keywords and the
///   pre-1.1.0 ordering; as built for Appendix A of the domain notes (1.0.2n, with
///   Kerberos compiled in).
/// * 1.1.1: the 1.1.0+ table and ordering, TLS 1.3, SEED/IDEA still built in.
/// * 3.0: like 1.1.1, but SEED/IDEA/RC4/RC2/DES live in the legacy provider and the
///   `CBC` keyword exists.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum OpenSslVersion {
    V1_0_2,
    V1_1_1,
    V3_0,
}

impl OpenSslVersion {
    /// Every modelled version, oldest first.
    pub const ALL: [OpenSslVersion; 3] = [Self::V1_0_2, Self::V1_1_1, Self::V3_0];

    /// `1.0.2`, `1.1.1` or `3.0`.
    pub fn label(self) -> &'static str {
        match self {
            Self::V1_0_2 => "1.0.2",
            Self::V1_1_1 => "1.1.1",
            Self::V3_0 => "3.0",
        }
    }

    /// Whether this version uses the 1.1.0+ table (TLS 1.3, `min_tls` protocol classes).
    pub fn modern(self) -> bool {
        self != Self::V1_0_2
    }
}

impl fmt::Display for OpenSslVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}

impl FromStr for OpenSslVersion {
    type Err = String;

    /// Accepts the series (`1.0.2`, `1.1.1`, `3.0`) or a release of it (`1.0.2n`,
    /// `1.1.1w`, `3.0.19`). Other series are refused rather than guessed.
    fn from_str(s: &str) -> Result<Self, String> {
        let t = s.trim();
        let series = |prefix: &str| {
            t.strip_prefix(prefix).is_some_and(|rest| {
                rest.is_empty()
                    || rest.chars().all(|c| c.is_ascii_lowercase())
                    || rest
                        .strip_prefix('.')
                        .is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
            })
        };
        if series("1.0.2") {
            Ok(Self::V1_0_2)
        } else if series("1.1.1") {
            Ok(Self::V1_1_1)
        } else if series("3.0") {
            Ok(Self::V3_0)
        } else {
            Err(format!(
                "unsupported OpenSSL version {s:?} (use 1.0.2, 1.1.1 or 3.0)"
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_parse() {
        for (text, v) in [
            ("1.0.2", OpenSslVersion::V1_0_2),
            ("1.0.2n", OpenSslVersion::V1_0_2),
            ("1.1.1w", OpenSslVersion::V1_1_1),
            ("3.0", OpenSslVersion::V3_0),
            ("3.0.19", OpenSslVersion::V3_0),
        ] {
            assert_eq!(text.parse::<OpenSslVersion>(), Ok(v), "{text}");
        }
        for bad in ["", "3", "3.1", "1.1.0", "1.0.2.", "3.0.x"] {
            assert!(bad.parse::<OpenSslVersion>().is_err(), "{bad}");
        }
    }
}
