//! Why a suite is weak, in words an operator can act on.
//!
//! The verdicts are about the suite itself, whatever OpenSSL version offers it: a linter
//! combines them with [`super::expand`] to say which weak suites a `ssl_ciphers` enables.

use super::table::{Au, Enc, Kx, Mac, Suite};
use std::fmt;

/// How bad a [`Weakness`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Level {
    /// Broken: a practical attack exists or there is no protection at all.
    Insecure,
    /// Deprecated: no current recommendation (Mozilla intermediate, RFC 9325) keeps it.
    Weak,
    /// Works and is sound, but has a cost worth knowing.
    Note,
}

impl Level {
    pub fn label(self) -> &'static str {
        match self {
            Level::Insecure => "insecure",
            Level::Weak => "weak",
            Level::Note => "note",
        }
    }
}

/// One reason a suite should not be offered.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Weakness {
    NullCipher,
    Anonymous,
    Export,
    Rc4,
    Des,
    Rc2,
    TripleDes,
    Idea,
    Seed,
    Md5Mac,
    NoForwardSecrecy,
    CbcSha1,
    DheCost,
}

impl Weakness {
    /// A short stable identifier (for JSON and suppressions).
    pub fn code(self) -> &'static str {
        match self {
            Weakness::NullCipher => "null-cipher",
            Weakness::Anonymous => "anonymous",
            Weakness::Export => "export",
            Weakness::Rc4 => "rc4",
            Weakness::Des => "des",
            Weakness::Rc2 => "rc2",
            Weakness::TripleDes => "3des",
            Weakness::Idea => "idea",
            Weakness::Seed => "seed",
            Weakness::Md5Mac => "md5-mac",
            Weakness::NoForwardSecrecy => "no-forward-secrecy",
            Weakness::CbcSha1 => "cbc-sha1",
            Weakness::DheCost => "dhe-cost",
        }
    }

    /// A few words naming it in a message (`3DES`, `CBC with SHA-1`).
    pub fn short(self) -> &'static str {
        match self {
            Weakness::NullCipher => "NULL encryption",
            Weakness::Anonymous => "anonymous DH/ECDH",
            Weakness::Export => "EXPORT",
            Weakness::Rc4 => "RC4",
            Weakness::Des => "single DES",
            Weakness::Rc2 => "RC2",
            Weakness::TripleDes => "3DES",
            Weakness::Idea => "IDEA",
            Weakness::Seed => "SEED",
            Weakness::Md5Mac => "MD5 MAC",
            Weakness::NoForwardSecrecy => "no forward secrecy",
            Weakness::CbcSha1 => "CBC with SHA-1",
            Weakness::DheCost => "DHE",
        }
    }

    pub fn level(self) -> Level {
        match self {
            Weakness::NullCipher
            | Weakness::Anonymous
            | Weakness::Export
            | Weakness::Rc4
            | Weakness::Des
            | Weakness::Rc2 => Level::Insecure,
            Weakness::TripleDes
            | Weakness::Idea
            | Weakness::Seed
            | Weakness::Md5Mac
            | Weakness::NoForwardSecrecy
            | Weakness::CbcSha1 => Level::Weak,
            Weakness::DheCost => Level::Note,
        }
    }

    /// One sentence: what is wrong and what it allows.
    pub fn reason(self) -> &'static str {
        match self {
            Weakness::NullCipher => "no encryption: the traffic is readable by anyone on the path",
            Weakness::Anonymous => {
                "no server authentication: any man in the middle can impersonate the server"
            }
            Weakness::Export => {
                "export-grade 40/56-bit keys, breakable in hours (FREAK, Logjam)"
            }
            Weakness::Rc4 => "RC4 keystream biases reveal plaintext; RFC 7465 forbids RC4 in TLS",
            Weakness::Des => "single DES has a 56-bit key, brute-forced in under a day",
            Weakness::Rc2 => "RC2 is an obsolete export-era cipher",
            Weakness::TripleDes => {
                "3DES has a 64-bit block: SWEET32 (CVE-2016-2183) recovers data from long sessions"
            }
            Weakness::Idea => {
                "IDEA has a 64-bit block (SWEET32) and was dropped from TLS 1.2 (RFC 5246)"
            }
            Weakness::Seed => {
                "SEED is an obsolete national cipher no current client needs; OpenSSL 3.0 moved it to the legacy provider"
            }
            Weakness::Md5Mac => {
                "HMAC-MD5 record MAC; OpenSSL refuses MD5 suites from security level 1"
            }
            Weakness::NoForwardSecrecy => {
                "static key exchange: whoever gets the server key later can decrypt recorded traffic"
            }
            Weakness::CbcSha1 => {
                "CBC with HMAC-SHA1 (MAC-then-encrypt) is open to padding-oracle attacks (Lucky13); prefer AEAD suites"
            }
            Weakness::DheCost => {
                "finite-field DHE costs the server about 10x an X25519 key exchange, and nginx only enables it with ssl_dhparam"
            }
        }
    }
}

impl fmt::Display for Weakness {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code(), self.reason())
    }
}

/// Everything wrong with `suite`, most severe first. Empty for a suite Mozilla's
/// intermediate profile would keep (ECDHE or TLS 1.3 with an AEAD cipher).
pub fn weaknesses(suite: &Suite) -> Vec<Weakness> {
    let mut out = Vec::new();
    if suite.enc == Enc::Null {
        out.push(Weakness::NullCipher);
    }
    if suite.au == Au::Null {
        out.push(Weakness::Anonymous);
    }
    if suite.export() {
        out.push(Weakness::Export);
    }
    match suite.enc {
        Enc::Rc4 => out.push(Weakness::Rc4),
        Enc::Des => out.push(Weakness::Des),
        Enc::Rc2 => out.push(Weakness::Rc2),
        Enc::TripleDes => out.push(Weakness::TripleDes),
        Enc::Idea => out.push(Weakness::Idea),
        Enc::Seed => out.push(Weakness::Seed),
        _ => {}
    }
    if suite.mac == Mac::Md5 {
        out.push(Weakness::Md5Mac);
    }
    // SRP derives a fresh secret per session, so only the static exchanges count.
    if !suite.forward_secret() && suite.kx != Kx::Srp {
        out.push(Weakness::NoForwardSecrecy);
    }
    if suite.enc.is_cbc() && suite.mac == Mac::Sha1 {
        out.push(Weakness::CbcSha1);
    }
    if matches!(suite.kx, Kx::Dhe | Kx::DhePsk) {
        out.push(Weakness::DheCost);
    }
    out.sort_by_key(|w| w.level());
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tls::by_name;

    fn codes(name: &str) -> Vec<&'static str> {
        let suite = by_name(name).unwrap_or_else(|| panic!("{name} not in the table"));
        weaknesses(suite).into_iter().map(Weakness::code).collect()
    }

    #[test]
    fn verdicts() {
        assert!(codes("ECDHE-RSA-AES128-GCM-SHA256").is_empty());
        assert!(codes("TLS_AES_256_GCM_SHA384").is_empty());
        assert_eq!(codes("RC4-MD5"), ["rc4", "md5-mac", "no-forward-secrecy"]);
        assert_eq!(codes("AECDH-AES128-SHA"), ["anonymous", "cbc-sha1"]);
        assert_eq!(
            codes("ADH-AES128-SHA"),
            ["anonymous", "cbc-sha1", "dhe-cost"]
        );
        assert_eq!(
            codes("EXP-RC4-MD5"),
            ["export", "rc4", "md5-mac", "no-forward-secrecy"]
        );
        assert_eq!(codes("NULL-SHA256"), ["null-cipher", "no-forward-secrecy"]);
        assert_eq!(
            codes("DES-CBC3-SHA"),
            ["3des", "no-forward-secrecy", "cbc-sha1"]
        );
        assert_eq!(codes("DHE-RSA-AES128-GCM-SHA256"), ["dhe-cost"]);
        assert_eq!(codes("SRP-AES-128-CBC-SHA"), ["cbc-sha1"]);
        assert_eq!(codes("AES128-GCM-SHA256"), ["no-forward-secrecy"]);
    }

    #[test]
    fn every_suite_has_a_sorted_verdict() {
        for s in crate::tls::SUITES {
            let w = weaknesses(s);
            assert!(
                w.windows(2).all(|p| p[0].level() <= p[1].level()),
                "{}",
                s.name
            );
        }
    }
}
