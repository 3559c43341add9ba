//! The cipher suite table: every TLS ≤ 1.2 suite that OpenSSL 1.0.2, 1.1.1 or 3.0 compiles
//! in (default build or `enable-weak-ssl-ciphers`), plus the five TLS 1.3 suites.
//!
//! The data was transcribed from OpenSSL's own tables (`ssl/s3_lib.c` `ssl3_ciphers[]` of
//! 1.0.2n, 1.1.1l and 3.0.8; algorithm masks and strength classes from `ssl_locl.h` /
//! `ssl_local.h`; IANA names from the 1.1.1 `stdname` column or, for suites 1.1.0 dropped,
//! from the IANA registry). It is data, not code: the evaluator in [`super::eval`] gives it
//! meaning. Two facts drive the layout:
//!
//! * OpenSSL 1.1.0 rewrote the table. Names, protocol labels and strength classes changed
//!   (`EDH-RSA-DES-CBC3-SHA` became `DHE-RSA-DES-CBC3-SHA`, 3DES went from `HIGH` to
//!   `MEDIUM` and `NOT_DEFAULT`, fixed-DH/ECDH and Kerberos suites were dropped), so a
//!   suite carries a [`Profile`] for the 1.1.0+ table and a [`Legacy`] one for 1.0.2.
//! * The starting order of OpenSSL's list depends on the table order: 1.1.0+ sorts its
//!   table by suite id, 1.0.2 keeps the declaration order ([`Legacy::decl`]).
//!
//! GOST suites are left out: they need an engine or provider that no default build loads,
//! so no default `openssl ciphers` lists them.

/// Key exchange. The discriminant is a bit position: rules match by mask intersection.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kx {
    Rsa,
    Dhe,
    Ecdhe,
    Psk,
    RsaPsk,
    DhePsk,
    EcdhePsk,
    Srp,
    /// Fixed DH with an RSA-signed certificate (1.0.2 only).
    DhRsa,
    /// Fixed DH with a DSA-signed certificate (1.0.2 only).
    DhDss,
    /// Fixed ECDH with an RSA-signed certificate (1.0.2 only).
    EcdhRsa,
    /// Fixed ECDH with an ECDSA-signed certificate (1.0.2 only).
    EcdhEcdsa,
    /// Kerberos 5 (1.0.2 only, and only when built with Kerberos).
    Krb5,
    /// TLS 1.3: negotiated separately from the suite.
    Any,
}

/// Server authentication.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Au {
    Rsa,
    Dss,
    /// Anonymous: no authentication at all.
    Null,
    Ecdsa,
    Psk,
    Srp,
    /// Fixed DH: the DH key is in the certificate (1.0.2 only).
    Dh,
    /// Fixed ECDH: the ECDH key is in the certificate (1.0.2 only).
    Ecdh,
    Krb5,
    /// TLS 1.3: negotiated separately from the suite.
    Any,
}

/// Bulk encryption.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Enc {
    Null,
    Des,
    TripleDes,
    Rc4,
    Rc2,
    Idea,
    Seed,
    Aes128,
    Aes256,
    Aes128Gcm,
    Aes256Gcm,
    Aes128Ccm,
    Aes256Ccm,
    Aes128Ccm8,
    Aes256Ccm8,
    Camellia128,
    Camellia256,
    Aria128Gcm,
    Aria256Gcm,
    Chacha20Poly1305,
}

/// Record MAC (`Aead` when the cipher authenticates itself).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Mac {
    Md5,
    Sha1,
    Sha256,
    Sha384,
    Aead,
}

/// The protocol version a suite was introduced with, as `openssl ciphers -v` prints it.
/// 1.0.2 has no `TLSv1` class (its `TLSv1` keyword is an alias of `SSLv3`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Proto {
    Ssl3,
    Tls1,
    Tls12,
    Tls13,
}

macro_rules! bits {
    ($($t:ty),*) => {$(
        impl $t {
            /// This value's bit in an OpenSSL-style algorithm mask.
            pub const fn bit(self) -> u32 {
                1 << (self as u32)
            }
        }
    )*};
}
bits!(Kx, Au, Enc, Mac, Proto);

impl Kx {
    /// `Kx=` as OpenSSL 1.1.0+ prints it.
    pub fn label(self) -> &'static str {
        match self {
            Kx::Rsa => "RSA",
            Kx::Dhe => "DH",
            Kx::Ecdhe => "ECDH",
            Kx::Psk => "PSK",
            Kx::RsaPsk => "RSAPSK",
            Kx::DhePsk => "DHEPSK",
            Kx::EcdhePsk => "ECDHEPSK",
            Kx::Srp => "SRP",
            Kx::DhRsa => "DH/RSA",
            Kx::DhDss => "DH/DSS",
            Kx::EcdhRsa => "ECDH/RSA",
            Kx::EcdhEcdsa => "ECDH/ECDSA",
            Kx::Krb5 => "KRB5",
            Kx::Any => "any",
        }
    }

    /// Whether the key exchange is ephemeral (forward secret).
    pub fn forward_secret(self) -> bool {
        matches!(
            self,
            Kx::Dhe | Kx::Ecdhe | Kx::DhePsk | Kx::EcdhePsk | Kx::Any
        )
    }
}

impl Au {
    /// `Au=` as OpenSSL prints it.
    pub fn label(self) -> &'static str {
        match self {
            Au::Rsa => "RSA",
            Au::Dss => "DSS",
            Au::Null => "None",
            Au::Ecdsa => "ECDSA",
            Au::Psk => "PSK",
            Au::Srp => "SRP",
            Au::Dh => "DH",
            Au::Ecdh => "ECDH",
            Au::Krb5 => "KRB5",
            Au::Any => "any",
        }
    }
}

impl Enc {
    /// `Enc=` as OpenSSL prints it for a non-export suite.
    pub fn label(self) -> &'static str {
        match self {
            Enc::Null => "None",
            Enc::Des => "DES(56)",
            Enc::TripleDes => "3DES(168)",
            Enc::Rc4 => "RC4(128)",
            Enc::Rc2 => "RC2(128)",
            Enc::Idea => "IDEA(128)",
            Enc::Seed => "SEED(128)",
            Enc::Aes128 => "AES(128)",
            Enc::Aes256 => "AES(256)",
            Enc::Aes128Gcm => "AESGCM(128)",
            Enc::Aes256Gcm => "AESGCM(256)",
            Enc::Aes128Ccm => "AESCCM(128)",
            Enc::Aes256Ccm => "AESCCM(256)",
            Enc::Aes128Ccm8 => "AESCCM8(128)",
            Enc::Aes256Ccm8 => "AESCCM8(256)",
            Enc::Camellia128 => "Camellia(128)",
            Enc::Camellia256 => "Camellia(256)",
            Enc::Aria128Gcm => "ARIAGCM(128)",
            Enc::Aria256Gcm => "ARIAGCM(256)",
            Enc::Chacha20Poly1305 => "CHACHA20/POLY1305(256)",
        }
    }

    /// Whether the cipher is a block cipher in CBC mode (the Lucky13/BEAST/POODLE family
    /// of padding-oracle problems applies).
    pub fn is_cbc(self) -> bool {
        matches!(
            self,
            Enc::Des
                | Enc::TripleDes
                | Enc::Rc2
                | Enc::Idea
                | Enc::Seed
                | Enc::Aes128
                | Enc::Aes256
                | Enc::Camellia128
                | Enc::Camellia256
        )
    }
}

impl Mac {
    /// `Mac=` as OpenSSL prints it.
    pub fn label(self) -> &'static str {
        match self {
            Mac::Md5 => "MD5",
            Mac::Sha1 => "SHA1",
            Mac::Sha256 => "SHA256",
            Mac::Sha384 => "SHA384",
            Mac::Aead => "AEAD",
        }
    }
}

impl Proto {
    /// The protocol column of `openssl ciphers -v`.
    pub fn label(self) -> &'static str {
        match self {
            Proto::Ssl3 => "SSLv3",
            Proto::Tls1 => "TLSv1",
            Proto::Tls12 => "TLSv1.2",
            Proto::Tls13 => "TLSv1.3",
        }
    }
}

/// OpenSSL's `algo_strength` bits, in one namespace for all versions. 1.1.0+ uses
/// `STRONG_NONE`..`NOT_DEFAULT`; 1.0.2 also has the export bits, and its implicit
/// `SSL_NOT_EXP` is [`class::NOT_EXP`] (set for every legacy suite without `EXPORT`).
pub mod class {
    pub const STRONG_NONE: u16 = 1 << 0;
    pub const LOW: u16 = 1 << 1;
    pub const MEDIUM: u16 = 1 << 2;
    pub const HIGH: u16 = 1 << 3;
    /// FIPS 140-2 approved algorithms.
    pub const FIPS: u16 = 1 << 4;
    /// Not in `DEFAULT` (it is in `COMPLEMENTOFDEFAULT`).
    pub const NOT_DEFAULT: u16 = 1 << 5;
    /// Export-grade (1.0.2 `EXP`/`EXPORT`).
    pub const EXPORT: u16 = 1 << 6;
    /// 40-bit export (`EXPORT40`).
    pub const EXP40: u16 = 1 << 7;
    /// 56-bit export (`EXPORT56`).
    pub const EXP56: u16 = 1 << 8;
    /// 1.0.2's `SSL_NOT_EXP`: derived, never written in the table.
    pub const NOT_EXP: u16 = 1 << 9;
}

/// What a build needs before a suite exists in it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Avail {
    /// Present in a default build.
    Default,
    /// Compiled only with `enable-weak-ssl-ciphers` (1.1.0+: RC4 and 3DES; 1.0.2g+: EXPORT
    /// and LOW). No distribution enables it; releases before 1.0.2g/1.0.1s had them always.
    WeakBuild,
    /// In the default build of 1.1.1, but 3.0 needs the legacy provider loaded
    /// (SEED, IDEA), which `openssl ciphers` and nginx do not do by default.
    LegacyProvider,
}

/// How the 1.1.0+ table (1.1.1, 3.0) describes a suite.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Profile {
    /// `min_tls`: printed as the protocol, and what `SSLv3`/`TLSv1`/`TLSv1.2` select.
    pub proto: Proto,
    /// [`class`] bits.
    pub flags: u16,
    pub avail: Avail,
}

/// How the 1.0.2 table describes a suite.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Legacy {
    /// The 1.0.2 name (differs for `EDH-*-DES-CBC3-SHA`).
    pub name: &'static str,
    pub proto: Proto,
    /// [`class`] bits, without the derived [`class::NOT_EXP`].
    pub flags: u16,
    pub avail: Avail,
    /// Position in 1.0.2's `ssl3_ciphers[]`; OpenSSL starts from the reverse of it.
    pub decl: u16,
}

/// One cipher suite.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Suite {
    /// The IANA code point (`0x13xx` for TLS 1.3).
    pub id: u16,
    /// The OpenSSL name (1.1.0+ spelling; TLS 1.3 suites use the IANA name).
    pub name: &'static str,
    /// The IANA (RFC) name.
    pub iana: &'static str,
    pub kx: Kx,
    pub au: Au,
    pub enc: Enc,
    pub mac: Mac,
    /// Effective symmetric strength (3DES: 112). `@STRENGTH` sorts on this.
    pub strength_bits: u16,
    /// Key size of the cipher as printed in `Enc=…(n)` (3DES: 168).
    pub alg_bits: u16,
    /// The entry in the 1.1.0+ table, if any.
    pub modern: Option<Profile>,
    /// The entry in the 1.0.2 table, if any.
    pub legacy: Option<Legacy>,
}

const SAME: &str = "";

const fn m(proto: Proto, flags: u16, avail: Avail) -> Option<Profile> {
    Some(Profile {
        proto,
        flags,
        avail,
    })
}

const fn l(
    name: &'static str,
    proto: Proto,
    flags: u16,
    avail: Avail,
    decl: u16,
) -> Option<Legacy> {
    Some(Legacy {
        name,
        proto,
        flags,
        avail,
        decl,
    })
}

#[allow(clippy::too_many_arguments)]
const fn s(
    id: u16,
    name: &'static str,
    iana: &'static str,
    kx: Kx,
    au: Au,
    enc: Enc,
    mac: Mac,
    strength_bits: u16,
    alg_bits: u16,
    modern: Option<Profile>,
    legacy: Option<Legacy>,
) -> Suite {
    // `SAME` keeps the rows short: the 1.0.2 name is the 1.1.0+ name.
    let legacy = match legacy {
        Some(mut lg) => {
            if lg.name.is_empty() {
                lg.name = name;
            }
            Some(lg)
        }
        None => None,
    };
    Suite {
        id,
        name,
        iana,
        kx,
        au,
        enc,
        mac,
        strength_bits,
        alg_bits,
        modern,
        legacy,
    }
}

use class::{EXP40, EXPORT, FIPS, HIGH, LOW, MEDIUM, NOT_DEFAULT, STRONG_NONE as NONE};
use Avail::{Default, LegacyProvider, WeakBuild};
use Proto::{Ssl3, Tls1, Tls12, Tls13};

/// Every suite, sorted by IANA code point.
#[rustfmt::skip]
pub static SUITES: &[Suite] = &[
    s(0x0001, "NULL-MD5", "TLS_RSA_WITH_NULL_MD5", Kx::Rsa, Au::Rsa, Enc::Null, Mac::Md5, 0, 0, m(Ssl3, NONE, Default), l(SAME, Ssl3, NONE, Default, 0)),
    s(0x0002, "NULL-SHA", "TLS_RSA_WITH_NULL_SHA", Kx::Rsa, Au::Rsa, Enc::Null, Mac::Sha1, 0, 0, m(Ssl3, NONE | FIPS, Default), l(SAME, Ssl3, NONE | FIPS, Default, 1)),
    s(0x0003, "EXP-RC4-MD5", "TLS_RSA_EXPORT_WITH_RC4_40_MD5", Kx::Rsa, Au::Rsa, Enc::Rc4, Mac::Md5, 40, 128, None, l(SAME, Ssl3, NOT_DEFAULT | EXPORT | EXP40, WeakBuild, 2)),
    s(0x0004, "RC4-MD5", "TLS_RSA_WITH_RC4_128_MD5", Kx::Rsa, Au::Rsa, Enc::Rc4, Mac::Md5, 128, 128, m(Ssl3, NOT_DEFAULT | MEDIUM, WeakBuild), l(SAME, Ssl3, MEDIUM, Default, 3)),
    s(0x0005, "RC4-SHA", "TLS_RSA_WITH_RC4_128_SHA", Kx::Rsa, Au::Rsa, Enc::Rc4, Mac::Sha1, 128, 128, m(Ssl3, NOT_DEFAULT | MEDIUM, WeakBuild), l(SAME, Ssl3, MEDIUM, Default, 4)),
    s(0x0006, "EXP-RC2-CBC-MD5", "TLS_RSA_EXPORT_WITH_RC2_CBC_40_MD5", Kx::Rsa, Au::Rsa, Enc::Rc2, Mac::Md5, 40, 128, None, l(SAME, Ssl3, NOT_DEFAULT | EXPORT | EXP40, WeakBuild, 5)),
    s(0x0007, "IDEA-CBC-SHA", "TLS_RSA_WITH_IDEA_CBC_SHA", Kx::Rsa, Au::Rsa, Enc::Idea, Mac::Sha1, 128, 128, m(Ssl3, NOT_DEFAULT | MEDIUM, LegacyProvider), l(SAME, Ssl3, MEDIUM, Default, 6)),
    s(0x0008, "EXP-DES-CBC-SHA", "TLS_RSA_EXPORT_WITH_DES40_CBC_SHA", Kx::Rsa, Au::Rsa, Enc::Des, Mac::Sha1, 40, 56, None, l(SAME, Ssl3, NOT_DEFAULT | EXPORT | EXP40, WeakBuild, 7)),
    s(0x0009, "DES-CBC-SHA", "TLS_RSA_WITH_DES_CBC_SHA", Kx::Rsa, Au::Rsa, Enc::Des, Mac::Sha1, 56, 56, None, l(SAME, Ssl3, NOT_DEFAULT | LOW, WeakBuild, 8)),
    s(0x000A, "DES-CBC3-SHA", "TLS_RSA_WITH_3DES_EDE_CBC_SHA", Kx::Rsa, Au::Rsa, Enc::TripleDes, Mac::Sha1, 112, 168, m(Ssl3, NOT_DEFAULT | MEDIUM | FIPS, WeakBuild), l(SAME, Ssl3, MEDIUM | FIPS, Default, 9)),
    s(0x000C, "DH-DSS-DES-CBC-SHA", "TLS_DH_DSS_WITH_DES_CBC_SHA", Kx::DhDss, Au::Dh, Enc::Des, Mac::Sha1, 56, 56, None, l(SAME, Ssl3, NOT_DEFAULT | LOW, WeakBuild, 11)),
    s(0x000D, "DH-DSS-DES-CBC3-SHA", "TLS_DH_DSS_WITH_3DES_EDE_CBC_SHA", Kx::DhDss, Au::Dh, Enc::TripleDes, Mac::Sha1, 112, 168, None, l(SAME, Ssl3, MEDIUM | FIPS, Default, 12)),
    s(0x000F, "DH-RSA-DES-CBC-SHA", "TLS_DH_RSA_WITH_DES_CBC_SHA", Kx::DhRsa, Au::Dh, Enc::Des, Mac::Sha1, 56, 56, None, l(SAME, Ssl3, NOT_DEFAULT | LOW, WeakBuild, 14)),
    s(0x0010, "DH-RSA-DES-CBC3-SHA", "TLS_DH_RSA_WITH_3DES_EDE_CBC_SHA", Kx::DhRsa, Au::Dh, Enc::TripleDes, Mac::Sha1, 112, 168, None, l(SAME, Ssl3, MEDIUM | FIPS, Default, 15)),
    s(0x0011, "EXP-EDH-DSS-DES-CBC-SHA", "TLS_DHE_DSS_EXPORT_WITH_DES40_CBC_SHA", Kx::Dhe, Au::Dss, Enc::Des, Mac::Sha1, 40, 56, None, l(SAME, Ssl3, NOT_DEFAULT | EXPORT | EXP40, WeakBuild, 16)),
    s(0x0012, "EDH-DSS-DES-CBC-SHA", "TLS_DHE_DSS_WITH_DES_CBC_SHA", Kx::Dhe, Au::Dss, Enc::Des, Mac::Sha1, 56, 56, None, l(SAME, Ssl3, NOT_DEFAULT | LOW, WeakBuild, 17)),
    s(0x0013, "DHE-DSS-DES-CBC3-SHA", "TLS_DHE_DSS_WITH_3DES_EDE_CBC_SHA", Kx::Dhe, Au::Dss, Enc::TripleDes, Mac::Sha1, 112, 168, m(Ssl3, NOT_DEFAULT | MEDIUM | FIPS, WeakBuild), l("EDH-DSS-DES-CBC3-SHA", Ssl3, MEDIUM | FIPS, Default, 18)),
    s(0x0014, "EXP-EDH-RSA-DES-CBC-SHA", "TLS_DHE_RSA_EXPORT_WITH_DES40_CBC_SHA", Kx::Dhe, Au::Rsa, Enc::Des, Mac::Sha1, 40, 56, None, l(SAME, Ssl3, NOT_DEFAULT | EXPORT | EXP40, WeakBuild, 19)),
    s(0x0015, "EDH-RSA-DES-CBC-SHA", "TLS_DHE_RSA_WITH_DES_CBC_SHA", Kx::Dhe, Au::Rsa, Enc::Des, Mac::Sha1, 56, 56, None, l(SAME, Ssl3, NOT_DEFAULT | LOW, WeakBuild, 20)),
    s(0x0016, "DHE-RSA-DES-CBC3-SHA", "TLS_DHE_RSA_WITH_3DES_EDE_CBC_SHA", Kx::Dhe, Au::Rsa, Enc::TripleDes, Mac::Sha1, 112, 168, m(Ssl3, NOT_DEFAULT | MEDIUM | FIPS, WeakBuild), l("EDH-RSA-DES-CBC3-SHA", Ssl3, MEDIUM | FIPS, Default, 21)),
    s(0x0017, "EXP-ADH-RC4-MD5", "TLS_DH_anon_EXPORT_WITH_RC4_40_MD5", Kx::Dhe, Au::Null, Enc::Rc4, Mac::Md5, 40, 128, None, l(SAME, Ssl3, NOT_DEFAULT | EXPORT | EXP40, WeakBuild, 22)),
    s(0x0018, "ADH-RC4-MD5", "TLS_DH_anon_WITH_RC4_128_MD5", Kx::Dhe, Au::Null, Enc::Rc4, Mac::Md5, 128, 128, m(Ssl3, NOT_DEFAULT | MEDIUM, WeakBuild), l(SAME, Ssl3, NOT_DEFAULT | MEDIUM, Default, 23)),
    s(0x0019, "EXP-ADH-DES-CBC-SHA", "TLS_DH_anon_EXPORT_WITH_DES40_CBC_SHA", Kx::Dhe, Au::Null, Enc::Des, Mac::Sha1, 40, 128, None, l(SAME, Ssl3, NOT_DEFAULT | EXPORT | EXP40, WeakBuild, 24)),
    s(0x001A, "ADH-DES-CBC-SHA", "TLS_DH_anon_WITH_DES_CBC_SHA", Kx::Dhe, Au::Null, Enc::Des, Mac::Sha1, 56, 56, None, l(SAME, Ssl3, NOT_DEFAULT | LOW, WeakBuild, 25)),
    s(0x001B, "ADH-DES-CBC3-SHA", "TLS_DH_anon_WITH_3DES_EDE_CBC_SHA", Kx::Dhe, Au::Null, Enc::TripleDes, Mac::Sha1, 112, 168, m(Ssl3, NOT_DEFAULT | MEDIUM | FIPS, WeakBuild), l(SAME, Ssl3, NOT_DEFAULT | MEDIUM | FIPS, Default, 26)),
    s(0x001E, "KRB5-DES-CBC-SHA", "TLS_KRB5_WITH_DES_CBC_SHA", Kx::Krb5, Au::Krb5, Enc::Des, Mac::Sha1, 56, 56, None, l(SAME, Ssl3, NOT_DEFAULT | LOW, WeakBuild, 27)),
    s(0x001F, "KRB5-DES-CBC3-SHA", "TLS_KRB5_WITH_3DES_EDE_CBC_SHA", Kx::Krb5, Au::Krb5, Enc::TripleDes, Mac::Sha1, 112, 168, None, l(SAME, Ssl3, MEDIUM | FIPS, Default, 28)),
    s(0x0020, "KRB5-RC4-SHA", "TLS_KRB5_WITH_RC4_128_SHA", Kx::Krb5, Au::Krb5, Enc::Rc4, Mac::Sha1, 128, 128, None, l(SAME, Ssl3, MEDIUM, Default, 29)),
    s(0x0021, "KRB5-IDEA-CBC-SHA", "TLS_KRB5_WITH_IDEA_CBC_SHA", Kx::Krb5, Au::Krb5, Enc::Idea, Mac::Sha1, 128, 128, None, l(SAME, Ssl3, MEDIUM, Default, 30)),
    s(0x0022, "KRB5-DES-CBC-MD5", "TLS_KRB5_WITH_DES_CBC_MD5", Kx::Krb5, Au::Krb5, Enc::Des, Mac::Md5, 56, 56, None, l(SAME, Ssl3, NOT_DEFAULT | LOW, WeakBuild, 31)),
    s(0x0023, "KRB5-DES-CBC3-MD5", "TLS_KRB5_WITH_3DES_EDE_CBC_MD5", Kx::Krb5, Au::Krb5, Enc::TripleDes, Mac::Md5, 112, 168, None, l(SAME, Ssl3, MEDIUM, Default, 32)),
    s(0x0024, "KRB5-RC4-MD5", "TLS_KRB5_WITH_RC4_128_MD5", Kx::Krb5, Au::Krb5, Enc::Rc4, Mac::Md5, 128, 128, None, l(SAME, Ssl3, MEDIUM, Default, 33)),
    s(0x0025, "KRB5-IDEA-CBC-MD5", "TLS_KRB5_WITH_IDEA_CBC_MD5", Kx::Krb5, Au::Krb5, Enc::Idea, Mac::Md5, 128, 128, None, l(SAME, Ssl3, MEDIUM, Default, 34)),
    s(0x0026, "EXP-KRB5-DES-CBC-SHA", "TLS_KRB5_EXPORT_WITH_DES_CBC_40_SHA", Kx::Krb5, Au::Krb5, Enc::Des, Mac::Sha1, 40, 56, None, l(SAME, Ssl3, NOT_DEFAULT | EXPORT | EXP40, WeakBuild, 35)),
    s(0x0027, "EXP-KRB5-RC2-CBC-SHA", "TLS_KRB5_EXPORT_WITH_RC2_CBC_40_SHA", Kx::Krb5, Au::Krb5, Enc::Rc2, Mac::Sha1, 40, 128, None, l(SAME, Ssl3, NOT_DEFAULT | EXPORT | EXP40, WeakBuild, 36)),
    s(0x0028, "EXP-KRB5-RC4-SHA", "TLS_KRB5_EXPORT_WITH_RC4_40_SHA", Kx::Krb5, Au::Krb5, Enc::Rc4, Mac::Sha1, 40, 128, None, l(SAME, Ssl3, NOT_DEFAULT | EXPORT | EXP40, WeakBuild, 37)),
    s(0x0029, "EXP-KRB5-DES-CBC-MD5", "TLS_KRB5_EXPORT_WITH_DES_CBC_40_MD5", Kx::Krb5, Au::Krb5, Enc::Des, Mac::Md5, 40, 56, None, l(SAME, Ssl3, NOT_DEFAULT | EXPORT | EXP40, WeakBuild, 38)),
    s(0x002A, "EXP-KRB5-RC2-CBC-MD5", "TLS_KRB5_EXPORT_WITH_RC2_CBC_40_MD5", Kx::Krb5, Au::Krb5, Enc::Rc2, Mac::Md5, 40, 128, None, l(SAME, Ssl3, NOT_DEFAULT | EXPORT | EXP40, WeakBuild, 39)),
    s(0x002B, "EXP-KRB5-RC4-MD5", "TLS_KRB5_EXPORT_WITH_RC4_40_MD5", Kx::Krb5, Au::Krb5, Enc::Rc4, Mac::Md5, 40, 128, None, l(SAME, Ssl3, NOT_DEFAULT | EXPORT | EXP40, WeakBuild, 40)),
    s(0x002C, "PSK-NULL-SHA", "TLS_PSK_WITH_NULL_SHA", Kx::Psk, Au::Psk, Enc::Null, Mac::Sha1, 0, 0, m(Ssl3, NONE | FIPS, Default), None),
    s(0x002D, "DHE-PSK-NULL-SHA", "TLS_DHE_PSK_WITH_NULL_SHA", Kx::DhePsk, Au::Psk, Enc::Null, Mac::Sha1, 0, 0, m(Ssl3, NONE | FIPS, Default), None),
    s(0x002E, "RSA-PSK-NULL-SHA", "TLS_RSA_PSK_WITH_NULL_SHA", Kx::RsaPsk, Au::Rsa, Enc::Null, Mac::Sha1, 0, 0, m(Ssl3, NONE | FIPS, Default), None),
    s(0x002F, "AES128-SHA", "TLS_RSA_WITH_AES_128_CBC_SHA", Kx::Rsa, Au::Rsa, Enc::Aes128, Mac::Sha1, 128, 128, m(Ssl3, HIGH | FIPS, Default), l(SAME, Ssl3, HIGH | FIPS, Default, 41)),
    s(0x0030, "DH-DSS-AES128-SHA", "TLS_DH_DSS_WITH_AES_128_CBC_SHA", Kx::DhDss, Au::Dh, Enc::Aes128, Mac::Sha1, 128, 128, None, l(SAME, Ssl3, HIGH | FIPS, Default, 42)),
    s(0x0031, "DH-RSA-AES128-SHA", "TLS_DH_RSA_WITH_AES_128_CBC_SHA", Kx::DhRsa, Au::Dh, Enc::Aes128, Mac::Sha1, 128, 128, None, l(SAME, Ssl3, HIGH | FIPS, Default, 43)),
    s(0x0032, "DHE-DSS-AES128-SHA", "TLS_DHE_DSS_WITH_AES_128_CBC_SHA", Kx::Dhe, Au::Dss, Enc::Aes128, Mac::Sha1, 128, 128, m(Ssl3, NOT_DEFAULT | HIGH | FIPS, Default), l(SAME, Ssl3, HIGH | FIPS, Default, 44)),
    s(0x0033, "DHE-RSA-AES128-SHA", "TLS_DHE_RSA_WITH_AES_128_CBC_SHA", Kx::Dhe, Au::Rsa, Enc::Aes128, Mac::Sha1, 128, 128, m(Ssl3, HIGH | FIPS, Default), l(SAME, Ssl3, HIGH | FIPS, Default, 45)),
    s(0x0034, "ADH-AES128-SHA", "TLS_DH_anon_WITH_AES_128_CBC_SHA", Kx::Dhe, Au::Null, Enc::Aes128, Mac::Sha1, 128, 128, m(Ssl3, NOT_DEFAULT | HIGH | FIPS, Default), l(SAME, Ssl3, NOT_DEFAULT | HIGH | FIPS, Default, 46)),
    s(0x0035, "AES256-SHA", "TLS_RSA_WITH_AES_256_CBC_SHA", Kx::Rsa, Au::Rsa, Enc::Aes256, Mac::Sha1, 256, 256, m(Ssl3, HIGH | FIPS, Default), l(SAME, Ssl3, HIGH | FIPS, Default, 47)),
    s(0x0036, "DH-DSS-AES256-SHA", "TLS_DH_DSS_WITH_AES_256_CBC_SHA", Kx::DhDss, Au::Dh, Enc::Aes256, Mac::Sha1, 256, 256, None, l(SAME, Ssl3, HIGH | FIPS, Default, 48)),
    s(0x0037, "DH-RSA-AES256-SHA", "TLS_DH_RSA_WITH_AES_256_CBC_SHA", Kx::DhRsa, Au::Dh, Enc::Aes256, Mac::Sha1, 256, 256, None, l(SAME, Ssl3, HIGH | FIPS, Default, 49)),
    s(0x0038, "DHE-DSS-AES256-SHA", "TLS_DHE_DSS_WITH_AES_256_CBC_SHA", Kx::Dhe, Au::Dss, Enc::Aes256, Mac::Sha1, 256, 256, m(Ssl3, NOT_DEFAULT | HIGH | FIPS, Default), l(SAME, Ssl3, HIGH | FIPS, Default, 50)),
    s(0x0039, "DHE-RSA-AES256-SHA", "TLS_DHE_RSA_WITH_AES_256_CBC_SHA", Kx::Dhe, Au::Rsa, Enc::Aes256, Mac::Sha1, 256, 256, m(Ssl3, HIGH | FIPS, Default), l(SAME, Ssl3, HIGH | FIPS, Default, 51)),
    s(0x003A, "ADH-AES256-SHA", "TLS_DH_anon_WITH_AES_256_CBC_SHA", Kx::Dhe, Au::Null, Enc::Aes256, Mac::Sha1, 256, 256, m(Ssl3, NOT_DEFAULT | HIGH | FIPS, Default), l(SAME, Ssl3, NOT_DEFAULT | HIGH | FIPS, Default, 52)),
    s(0x003B, "NULL-SHA256", "TLS_RSA_WITH_NULL_SHA256", Kx::Rsa, Au::Rsa, Enc::Null, Mac::Sha256, 0, 0, m(Tls12, NONE | FIPS, Default), l(SAME, Tls12, NONE | FIPS, Default, 53)),
    s(0x003C, "AES128-SHA256", "TLS_RSA_WITH_AES_128_CBC_SHA256", Kx::Rsa, Au::Rsa, Enc::Aes128, Mac::Sha256, 128, 128, m(Tls12, HIGH | FIPS, Default), l(SAME, Tls12, HIGH | FIPS, Default, 54)),
    s(0x003D, "AES256-SHA256", "TLS_RSA_WITH_AES_256_CBC_SHA256", Kx::Rsa, Au::Rsa, Enc::Aes256, Mac::Sha256, 256, 256, m(Tls12, HIGH | FIPS, Default), l(SAME, Tls12, HIGH | FIPS, Default, 55)),
    s(0x003E, "DH-DSS-AES128-SHA256", "TLS_DH_DSS_WITH_AES_128_CBC_SHA256", Kx::DhDss, Au::Dh, Enc::Aes128, Mac::Sha256, 128, 128, None, l(SAME, Tls12, HIGH | FIPS, Default, 56)),
    s(0x003F, "DH-RSA-AES128-SHA256", "TLS_DH_RSA_WITH_AES_128_CBC_SHA256", Kx::DhRsa, Au::Dh, Enc::Aes128, Mac::Sha256, 128, 128, None, l(SAME, Tls12, HIGH | FIPS, Default, 57)),
    s(0x0040, "DHE-DSS-AES128-SHA256", "TLS_DHE_DSS_WITH_AES_128_CBC_SHA256", Kx::Dhe, Au::Dss, Enc::Aes128, Mac::Sha256, 128, 128, m(Tls12, NOT_DEFAULT | HIGH | FIPS, Default), l(SAME, Tls12, HIGH | FIPS, Default, 58)),
    s(0x0041, "CAMELLIA128-SHA", "TLS_RSA_WITH_CAMELLIA_128_CBC_SHA", Kx::Rsa, Au::Rsa, Enc::Camellia128, Mac::Sha1, 128, 128, m(Ssl3, NOT_DEFAULT | HIGH, Default), l(SAME, Ssl3, HIGH, Default, 59)),
    s(0x0042, "DH-DSS-CAMELLIA128-SHA", "TLS_DH_DSS_WITH_CAMELLIA_128_CBC_SHA", Kx::DhDss, Au::Dh, Enc::Camellia128, Mac::Sha1, 128, 128, None, l(SAME, Ssl3, HIGH, Default, 60)),
    s(0x0043, "DH-RSA-CAMELLIA128-SHA", "TLS_DH_RSA_WITH_CAMELLIA_128_CBC_SHA", Kx::DhRsa, Au::Dh, Enc::Camellia128, Mac::Sha1, 128, 128, None, l(SAME, Ssl3, HIGH, Default, 61)),
    s(0x0044, "DHE-DSS-CAMELLIA128-SHA", "TLS_DHE_DSS_WITH_CAMELLIA_128_CBC_SHA", Kx::Dhe, Au::Dss, Enc::Camellia128, Mac::Sha1, 128, 128, m(Ssl3, NOT_DEFAULT | HIGH, Default), l(SAME, Ssl3, HIGH, Default, 62)),
    s(0x0045, "DHE-RSA-CAMELLIA128-SHA", "TLS_DHE_RSA_WITH_CAMELLIA_128_CBC_SHA", Kx::Dhe, Au::Rsa, Enc::Camellia128, Mac::Sha1, 128, 128, m(Ssl3, NOT_DEFAULT | HIGH, Default), l(SAME, Ssl3, HIGH, Default, 63)),
    s(0x0046, "ADH-CAMELLIA128-SHA", "TLS_DH_anon_WITH_CAMELLIA_128_CBC_SHA", Kx::Dhe, Au::Null, Enc::Camellia128, Mac::Sha1, 128, 128, m(Ssl3, NOT_DEFAULT | HIGH, Default), l(SAME, Ssl3, NOT_DEFAULT | HIGH, Default, 64)),
    s(0x0067, "DHE-RSA-AES128-SHA256", "TLS_DHE_RSA_WITH_AES_128_CBC_SHA256", Kx::Dhe, Au::Rsa, Enc::Aes128, Mac::Sha256, 128, 128, m(Tls12, HIGH | FIPS, Default), l(SAME, Tls12, HIGH | FIPS, Default, 65)),
    s(0x0068, "DH-DSS-AES256-SHA256", "TLS_DH_DSS_WITH_AES_256_CBC_SHA256", Kx::DhDss, Au::Dh, Enc::Aes256, Mac::Sha256, 256, 256, None, l(SAME, Tls12, HIGH | FIPS, Default, 66)),
    s(0x0069, "DH-RSA-AES256-SHA256", "TLS_DH_RSA_WITH_AES_256_CBC_SHA256", Kx::DhRsa, Au::Dh, Enc::Aes256, Mac::Sha256, 256, 256, None, l(SAME, Tls12, HIGH | FIPS, Default, 67)),
    s(0x006A, "DHE-DSS-AES256-SHA256", "TLS_DHE_DSS_WITH_AES_256_CBC_SHA256", Kx::Dhe, Au::Dss, Enc::Aes256, Mac::Sha256, 256, 256, m(Tls12, NOT_DEFAULT | HIGH | FIPS, Default), l(SAME, Tls12, HIGH | FIPS, Default, 68)),
    s(0x006B, "DHE-RSA-AES256-SHA256", "TLS_DHE_RSA_WITH_AES_256_CBC_SHA256", Kx::Dhe, Au::Rsa, Enc::Aes256, Mac::Sha256, 256, 256, m(Tls12, HIGH | FIPS, Default), l(SAME, Tls12, HIGH | FIPS, Default, 69)),
    s(0x006C, "ADH-AES128-SHA256", "TLS_DH_anon_WITH_AES_128_CBC_SHA256", Kx::Dhe, Au::Null, Enc::Aes128, Mac::Sha256, 128, 128, m(Tls12, NOT_DEFAULT | HIGH | FIPS, Default), l(SAME, Tls12, NOT_DEFAULT | HIGH | FIPS, Default, 70)),
    s(0x006D, "ADH-AES256-SHA256", "TLS_DH_anon_WITH_AES_256_CBC_SHA256", Kx::Dhe, Au::Null, Enc::Aes256, Mac::Sha256, 256, 256, m(Tls12, NOT_DEFAULT | HIGH | FIPS, Default), l(SAME, Tls12, NOT_DEFAULT | HIGH | FIPS, Default, 71)),
    s(0x0084, "CAMELLIA256-SHA", "TLS_RSA_WITH_CAMELLIA_256_CBC_SHA", Kx::Rsa, Au::Rsa, Enc::Camellia256, Mac::Sha1, 256, 256, m(Ssl3, NOT_DEFAULT | HIGH, Default), l(SAME, Ssl3, HIGH, Default, 76)),
    s(0x0085, "DH-DSS-CAMELLIA256-SHA", "TLS_DH_DSS_WITH_CAMELLIA_256_CBC_SHA", Kx::DhDss, Au::Dh, Enc::Camellia256, Mac::Sha1, 256, 256, None, l(SAME, Ssl3, HIGH, Default, 77)),
    s(0x0086, "DH-RSA-CAMELLIA256-SHA", "TLS_DH_RSA_WITH_CAMELLIA_256_CBC_SHA", Kx::DhRsa, Au::Dh, Enc::Camellia256, Mac::Sha1, 256, 256, None, l(SAME, Ssl3, HIGH, Default, 78)),
    s(0x0087, "DHE-DSS-CAMELLIA256-SHA", "TLS_DHE_DSS_WITH_CAMELLIA_256_CBC_SHA", Kx::Dhe, Au::Dss, Enc::Camellia256, Mac::Sha1, 256, 256, m(Ssl3, NOT_DEFAULT | HIGH, Default), l(SAME, Ssl3, HIGH, Default, 79)),
    s(0x0088, "DHE-RSA-CAMELLIA256-SHA", "TLS_DHE_RSA_WITH_CAMELLIA_256_CBC_SHA", Kx::Dhe, Au::Rsa, Enc::Camellia256, Mac::Sha1, 256, 256, m(Ssl3, NOT_DEFAULT | HIGH, Default), l(SAME, Ssl3, HIGH, Default, 80)),
    s(0x0089, "ADH-CAMELLIA256-SHA", "TLS_DH_anon_WITH_CAMELLIA_256_CBC_SHA", Kx::Dhe, Au::Null, Enc::Camellia256, Mac::Sha1, 256, 256, m(Ssl3, NOT_DEFAULT | HIGH, Default), l(SAME, Ssl3, NOT_DEFAULT | HIGH, Default, 81)),
    s(0x008A, "PSK-RC4-SHA", "TLS_PSK_WITH_RC4_128_SHA", Kx::Psk, Au::Psk, Enc::Rc4, Mac::Sha1, 128, 128, m(Ssl3, NOT_DEFAULT | MEDIUM, WeakBuild), l(SAME, Ssl3, MEDIUM, Default, 82)),
    s(0x008B, "PSK-3DES-EDE-CBC-SHA", "TLS_PSK_WITH_3DES_EDE_CBC_SHA", Kx::Psk, Au::Psk, Enc::TripleDes, Mac::Sha1, 112, 168, m(Ssl3, NOT_DEFAULT | MEDIUM | FIPS, WeakBuild), l(SAME, Ssl3, MEDIUM | FIPS, Default, 83)),
    s(0x008C, "PSK-AES128-CBC-SHA", "TLS_PSK_WITH_AES_128_CBC_SHA", Kx::Psk, Au::Psk, Enc::Aes128, Mac::Sha1, 128, 128, m(Ssl3, HIGH | FIPS, Default), l(SAME, Ssl3, HIGH | FIPS, Default, 84)),
    s(0x008D, "PSK-AES256-CBC-SHA", "TLS_PSK_WITH_AES_256_CBC_SHA", Kx::Psk, Au::Psk, Enc::Aes256, Mac::Sha1, 256, 256, m(Ssl3, HIGH | FIPS, Default), l(SAME, Ssl3, HIGH | FIPS, Default, 85)),
    s(0x008E, "DHE-PSK-RC4-SHA", "TLS_DHE_PSK_WITH_RC4_128_SHA", Kx::DhePsk, Au::Psk, Enc::Rc4, Mac::Sha1, 128, 128, m(Ssl3, NOT_DEFAULT | MEDIUM, WeakBuild), None),
    s(0x008F, "DHE-PSK-3DES-EDE-CBC-SHA", "TLS_DHE_PSK_WITH_3DES_EDE_CBC_SHA", Kx::DhePsk, Au::Psk, Enc::TripleDes, Mac::Sha1, 112, 168, m(Ssl3, NOT_DEFAULT | MEDIUM | FIPS, WeakBuild), None),
    s(0x0090, "DHE-PSK-AES128-CBC-SHA", "TLS_DHE_PSK_WITH_AES_128_CBC_SHA", Kx::DhePsk, Au::Psk, Enc::Aes128, Mac::Sha1, 128, 128, m(Ssl3, HIGH | FIPS, Default), None),
    s(0x0091, "DHE-PSK-AES256-CBC-SHA", "TLS_DHE_PSK_WITH_AES_256_CBC_SHA", Kx::DhePsk, Au::Psk, Enc::Aes256, Mac::Sha1, 256, 256, m(Ssl3, HIGH | FIPS, Default), None),
    s(0x0092, "RSA-PSK-RC4-SHA", "TLS_RSA_PSK_WITH_RC4_128_SHA", Kx::RsaPsk, Au::Rsa, Enc::Rc4, Mac::Sha1, 128, 128, m(Ssl3, NOT_DEFAULT | MEDIUM, WeakBuild), None),
    s(0x0093, "RSA-PSK-3DES-EDE-CBC-SHA", "TLS_RSA_PSK_WITH_3DES_EDE_CBC_SHA", Kx::RsaPsk, Au::Rsa, Enc::TripleDes, Mac::Sha1, 112, 168, m(Ssl3, NOT_DEFAULT | MEDIUM | FIPS, WeakBuild), None),
    s(0x0094, "RSA-PSK-AES128-CBC-SHA", "TLS_RSA_PSK_WITH_AES_128_CBC_SHA", Kx::RsaPsk, Au::Rsa, Enc::Aes128, Mac::Sha1, 128, 128, m(Ssl3, HIGH | FIPS, Default), None),
    s(0x0095, "RSA-PSK-AES256-CBC-SHA", "TLS_RSA_PSK_WITH_AES_256_CBC_SHA", Kx::RsaPsk, Au::Rsa, Enc::Aes256, Mac::Sha1, 256, 256, m(Ssl3, HIGH | FIPS, Default), None),
    s(0x0096, "SEED-SHA", "TLS_RSA_WITH_SEED_CBC_SHA", Kx::Rsa, Au::Rsa, Enc::Seed, Mac::Sha1, 128, 128, m(Ssl3, NOT_DEFAULT | MEDIUM, LegacyProvider), l(SAME, Ssl3, MEDIUM, Default, 86)),
    s(0x0097, "DH-DSS-SEED-SHA", "TLS_DH_DSS_WITH_SEED_CBC_SHA", Kx::DhDss, Au::Dh, Enc::Seed, Mac::Sha1, 128, 128, None, l(SAME, Ssl3, MEDIUM, Default, 87)),
    s(0x0098, "DH-RSA-SEED-SHA", "TLS_DH_RSA_WITH_SEED_CBC_SHA", Kx::DhRsa, Au::Dh, Enc::Seed, Mac::Sha1, 128, 128, None, l(SAME, Ssl3, MEDIUM, Default, 88)),
    s(0x0099, "DHE-DSS-SEED-SHA", "TLS_DHE_DSS_WITH_SEED_CBC_SHA", Kx::Dhe, Au::Dss, Enc::Seed, Mac::Sha1, 128, 128, m(Ssl3, NOT_DEFAULT | MEDIUM, LegacyProvider), l(SAME, Ssl3, MEDIUM, Default, 89)),
    s(0x009A, "DHE-RSA-SEED-SHA", "TLS_DHE_RSA_WITH_SEED_CBC_SHA", Kx::Dhe, Au::Rsa, Enc::Seed, Mac::Sha1, 128, 128, m(Ssl3, NOT_DEFAULT | MEDIUM, LegacyProvider), l(SAME, Ssl3, MEDIUM, Default, 90)),
    s(0x009B, "ADH-SEED-SHA", "TLS_DH_anon_WITH_SEED_CBC_SHA", Kx::Dhe, Au::Null, Enc::Seed, Mac::Sha1, 128, 128, m(Ssl3, NOT_DEFAULT | MEDIUM, LegacyProvider), l(SAME, Ssl3, NOT_DEFAULT | MEDIUM, Default, 91)),
    s(0x009C, "AES128-GCM-SHA256", "TLS_RSA_WITH_AES_128_GCM_SHA256", Kx::Rsa, Au::Rsa, Enc::Aes128Gcm, Mac::Aead, 128, 128, m(Tls12, HIGH | FIPS, Default), l(SAME, Tls12, HIGH | FIPS, Default, 92)),
    s(0x009D, "AES256-GCM-SHA384", "TLS_RSA_WITH_AES_256_GCM_SHA384", Kx::Rsa, Au::Rsa, Enc::Aes256Gcm, Mac::Aead, 256, 256, m(Tls12, HIGH | FIPS, Default), l(SAME, Tls12, HIGH | FIPS, Default, 93)),
    s(0x009E, "DHE-RSA-AES128-GCM-SHA256", "TLS_DHE_RSA_WITH_AES_128_GCM_SHA256", Kx::Dhe, Au::Rsa, Enc::Aes128Gcm, Mac::Aead, 128, 128, m(Tls12, HIGH | FIPS, Default), l(SAME, Tls12, HIGH | FIPS, Default, 94)),
    s(0x009F, "DHE-RSA-AES256-GCM-SHA384", "TLS_DHE_RSA_WITH_AES_256_GCM_SHA384", Kx::Dhe, Au::Rsa, Enc::Aes256Gcm, Mac::Aead, 256, 256, m(Tls12, HIGH | FIPS, Default), l(SAME, Tls12, HIGH | FIPS, Default, 95)),
    s(0x00A0, "DH-RSA-AES128-GCM-SHA256", "TLS_DH_RSA_WITH_AES_128_GCM_SHA256", Kx::DhRsa, Au::Dh, Enc::Aes128Gcm, Mac::Aead, 128, 128, None, l(SAME, Tls12, HIGH | FIPS, Default, 96)),
    s(0x00A1, "DH-RSA-AES256-GCM-SHA384", "TLS_DH_RSA_WITH_AES_256_GCM_SHA384", Kx::DhRsa, Au::Dh, Enc::Aes256Gcm, Mac::Aead, 256, 256, None, l(SAME, Tls12, HIGH | FIPS, Default, 97)),
    s(0x00A2, "DHE-DSS-AES128-GCM-SHA256", "TLS_DHE_DSS_WITH_AES_128_GCM_SHA256", Kx::Dhe, Au::Dss, Enc::Aes128Gcm, Mac::Aead, 128, 128, m(Tls12, NOT_DEFAULT | HIGH | FIPS, Default), l(SAME, Tls12, HIGH | FIPS, Default, 98)),
    s(0x00A3, "DHE-DSS-AES256-GCM-SHA384", "TLS_DHE_DSS_WITH_AES_256_GCM_SHA384", Kx::Dhe, Au::Dss, Enc::Aes256Gcm, Mac::Aead, 256, 256, m(Tls12, NOT_DEFAULT | HIGH | FIPS, Default), l(SAME, Tls12, HIGH | FIPS, Default, 99)),
    s(0x00A4, "DH-DSS-AES128-GCM-SHA256", "TLS_DH_DSS_WITH_AES_128_GCM_SHA256", Kx::DhDss, Au::Dh, Enc::Aes128Gcm, Mac::Aead, 128, 128, None, l(SAME, Tls12, HIGH | FIPS, Default, 100)),
    s(0x00A5, "DH-DSS-AES256-GCM-SHA384", "TLS_DH_DSS_WITH_AES_256_GCM_SHA384", Kx::DhDss, Au::Dh, Enc::Aes256Gcm, Mac::Aead, 256, 256, None, l(SAME, Tls12, HIGH | FIPS, Default, 101)),
    s(0x00A6, "ADH-AES128-GCM-SHA256", "TLS_DH_anon_WITH_AES_128_GCM_SHA256", Kx::Dhe, Au::Null, Enc::Aes128Gcm, Mac::Aead, 128, 128, m(Tls12, NOT_DEFAULT | HIGH | FIPS, Default), l(SAME, Tls12, NOT_DEFAULT | HIGH | FIPS, Default, 102)),
    s(0x00A7, "ADH-AES256-GCM-SHA384", "TLS_DH_anon_WITH_AES_256_GCM_SHA384", Kx::Dhe, Au::Null, Enc::Aes256Gcm, Mac::Aead, 256, 256, m(Tls12, NOT_DEFAULT | HIGH | FIPS, Default), l(SAME, Tls12, NOT_DEFAULT | HIGH | FIPS, Default, 103)),
    s(0x00A8, "PSK-AES128-GCM-SHA256", "TLS_PSK_WITH_AES_128_GCM_SHA256", Kx::Psk, Au::Psk, Enc::Aes128Gcm, Mac::Aead, 128, 128, m(Tls12, HIGH | FIPS, Default), None),
    s(0x00A9, "PSK-AES256-GCM-SHA384", "TLS_PSK_WITH_AES_256_GCM_SHA384", Kx::Psk, Au::Psk, Enc::Aes256Gcm, Mac::Aead, 256, 256, m(Tls12, HIGH | FIPS, Default), None),
    s(0x00AA, "DHE-PSK-AES128-GCM-SHA256", "TLS_DHE_PSK_WITH_AES_128_GCM_SHA256", Kx::DhePsk, Au::Psk, Enc::Aes128Gcm, Mac::Aead, 128, 128, m(Tls12, HIGH | FIPS, Default), None),
    s(0x00AB, "DHE-PSK-AES256-GCM-SHA384", "TLS_DHE_PSK_WITH_AES_256_GCM_SHA384", Kx::DhePsk, Au::Psk, Enc::Aes256Gcm, Mac::Aead, 256, 256, m(Tls12, HIGH | FIPS, Default), None),
    s(0x00AC, "RSA-PSK-AES128-GCM-SHA256", "TLS_RSA_PSK_WITH_AES_128_GCM_SHA256", Kx::RsaPsk, Au::Rsa, Enc::Aes128Gcm, Mac::Aead, 128, 128, m(Tls12, HIGH | FIPS, Default), None),
    s(0x00AD, "RSA-PSK-AES256-GCM-SHA384", "TLS_RSA_PSK_WITH_AES_256_GCM_SHA384", Kx::RsaPsk, Au::Rsa, Enc::Aes256Gcm, Mac::Aead, 256, 256, m(Tls12, HIGH | FIPS, Default), None),
    s(0x00AE, "PSK-AES128-CBC-SHA256", "TLS_PSK_WITH_AES_128_CBC_SHA256", Kx::Psk, Au::Psk, Enc::Aes128, Mac::Sha256, 128, 128, m(Tls1, HIGH | FIPS, Default), None),
    s(0x00AF, "PSK-AES256-CBC-SHA384", "TLS_PSK_WITH_AES_256_CBC_SHA384", Kx::Psk, Au::Psk, Enc::Aes256, Mac::Sha384, 256, 256, m(Tls1, HIGH | FIPS, Default), None),
    s(0x00B0, "PSK-NULL-SHA256", "TLS_PSK_WITH_NULL_SHA256", Kx::Psk, Au::Psk, Enc::Null, Mac::Sha256, 0, 0, m(Tls1, NONE | FIPS, Default), None),
    s(0x00B1, "PSK-NULL-SHA384", "TLS_PSK_WITH_NULL_SHA384", Kx::Psk, Au::Psk, Enc::Null, Mac::Sha384, 0, 0, m(Tls1, NONE | FIPS, Default), None),
    s(0x00B2, "DHE-PSK-AES128-CBC-SHA256", "TLS_DHE_PSK_WITH_AES_128_CBC_SHA256", Kx::DhePsk, Au::Psk, Enc::Aes128, Mac::Sha256, 128, 128, m(Tls1, HIGH | FIPS, Default), None),
    s(0x00B3, "DHE-PSK-AES256-CBC-SHA384", "TLS_DHE_PSK_WITH_AES_256_CBC_SHA384", Kx::DhePsk, Au::Psk, Enc::Aes256, Mac::Sha384, 256, 256, m(Tls1, HIGH | FIPS, Default), None),
    s(0x00B4, "DHE-PSK-NULL-SHA256", "TLS_DHE_PSK_WITH_NULL_SHA256", Kx::DhePsk, Au::Psk, Enc::Null, Mac::Sha256, 0, 0, m(Tls1, NONE | FIPS, Default), None),
    s(0x00B5, "DHE-PSK-NULL-SHA384", "TLS_DHE_PSK_WITH_NULL_SHA384", Kx::DhePsk, Au::Psk, Enc::Null, Mac::Sha384, 0, 0, m(Tls1, NONE | FIPS, Default), None),
    s(0x00B6, "RSA-PSK-AES128-CBC-SHA256", "TLS_RSA_PSK_WITH_AES_128_CBC_SHA256", Kx::RsaPsk, Au::Rsa, Enc::Aes128, Mac::Sha256, 128, 128, m(Tls1, HIGH | FIPS, Default), None),
    s(0x00B7, "RSA-PSK-AES256-CBC-SHA384", "TLS_RSA_PSK_WITH_AES_256_CBC_SHA384", Kx::RsaPsk, Au::Rsa, Enc::Aes256, Mac::Sha384, 256, 256, m(Tls1, HIGH | FIPS, Default), None),
    s(0x00B8, "RSA-PSK-NULL-SHA256", "TLS_RSA_PSK_WITH_NULL_SHA256", Kx::RsaPsk, Au::Rsa, Enc::Null, Mac::Sha256, 0, 0, m(Tls1, NONE | FIPS, Default), None),
    s(0x00B9, "RSA-PSK-NULL-SHA384", "TLS_RSA_PSK_WITH_NULL_SHA384", Kx::RsaPsk, Au::Rsa, Enc::Null, Mac::Sha384, 0, 0, m(Tls1, NONE | FIPS, Default), None),
    s(0x00BA, "CAMELLIA128-SHA256", "TLS_RSA_WITH_CAMELLIA_128_CBC_SHA256", Kx::Rsa, Au::Rsa, Enc::Camellia128, Mac::Sha256, 128, 128, m(Tls12, NOT_DEFAULT | HIGH, Default), None),
    s(0x00BD, "DHE-DSS-CAMELLIA128-SHA256", "TLS_DHE_DSS_WITH_CAMELLIA_128_CBC_SHA256", Kx::Dhe, Au::Dss, Enc::Camellia128, Mac::Sha256, 128, 128, m(Tls12, NOT_DEFAULT | HIGH, Default), None),
    s(0x00BE, "DHE-RSA-CAMELLIA128-SHA256", "TLS_DHE_RSA_WITH_CAMELLIA_128_CBC_SHA256", Kx::Dhe, Au::Rsa, Enc::Camellia128, Mac::Sha256, 128, 128, m(Tls12, NOT_DEFAULT | HIGH, Default), None),
    s(0x00BF, "ADH-CAMELLIA128-SHA256", "TLS_DH_anon_WITH_CAMELLIA_128_CBC_SHA256", Kx::Dhe, Au::Null, Enc::Camellia128, Mac::Sha256, 128, 128, m(Tls12, NOT_DEFAULT | HIGH, Default), None),
    s(0x00C0, "CAMELLIA256-SHA256", "TLS_RSA_WITH_CAMELLIA_256_CBC_SHA256", Kx::Rsa, Au::Rsa, Enc::Camellia256, Mac::Sha256, 256, 256, m(Tls12, NOT_DEFAULT | HIGH, Default), None),
    s(0x00C3, "DHE-DSS-CAMELLIA256-SHA256", "TLS_DHE_DSS_WITH_CAMELLIA_256_CBC_SHA256", Kx::Dhe, Au::Dss, Enc::Camellia256, Mac::Sha256, 256, 256, m(Tls12, NOT_DEFAULT | HIGH, Default), None),
    s(0x00C4, "DHE-RSA-CAMELLIA256-SHA256", "TLS_DHE_RSA_WITH_CAMELLIA_256_CBC_SHA256", Kx::Dhe, Au::Rsa, Enc::Camellia256, Mac::Sha256, 256, 256, m(Tls12, NOT_DEFAULT | HIGH, Default), None),
    s(0x00C5, "ADH-CAMELLIA256-SHA256", "TLS_DH_anon_WITH_CAMELLIA_256_CBC_SHA256", Kx::Dhe, Au::Null, Enc::Camellia256, Mac::Sha256, 256, 256, m(Tls12, NOT_DEFAULT | HIGH, Default), None),
    s(0x1301, "TLS_AES_128_GCM_SHA256", "TLS_AES_128_GCM_SHA256", Kx::Any, Au::Any, Enc::Aes128Gcm, Mac::Aead, 128, 128, m(Tls13, HIGH, Default), None),
    s(0x1302, "TLS_AES_256_GCM_SHA384", "TLS_AES_256_GCM_SHA384", Kx::Any, Au::Any, Enc::Aes256Gcm, Mac::Aead, 256, 256, m(Tls13, HIGH, Default), None),
    s(0x1303, "TLS_CHACHA20_POLY1305_SHA256", "TLS_CHACHA20_POLY1305_SHA256", Kx::Any, Au::Any, Enc::Chacha20Poly1305, Mac::Aead, 256, 256, m(Tls13, HIGH, Default), None),
    s(0x1304, "TLS_AES_128_CCM_SHA256", "TLS_AES_128_CCM_SHA256", Kx::Any, Au::Any, Enc::Aes128Ccm, Mac::Aead, 128, 128, m(Tls13, NOT_DEFAULT | HIGH, Default), None),
    s(0x1305, "TLS_AES_128_CCM_8_SHA256", "TLS_AES_128_CCM_8_SHA256", Kx::Any, Au::Any, Enc::Aes128Ccm8, Mac::Aead, 128, 128, m(Tls13, NOT_DEFAULT | HIGH, Default), None),
    s(0xC001, "ECDH-ECDSA-NULL-SHA", "TLS_ECDH_ECDSA_WITH_NULL_SHA", Kx::EcdhEcdsa, Au::Ecdh, Enc::Null, Mac::Sha1, 0, 0, None, l(SAME, Ssl3, NONE | FIPS, Default, 104)),
    s(0xC002, "ECDH-ECDSA-RC4-SHA", "TLS_ECDH_ECDSA_WITH_RC4_128_SHA", Kx::EcdhEcdsa, Au::Ecdh, Enc::Rc4, Mac::Sha1, 128, 128, None, l(SAME, Ssl3, MEDIUM, Default, 105)),
    s(0xC003, "ECDH-ECDSA-DES-CBC3-SHA", "TLS_ECDH_ECDSA_WITH_3DES_EDE_CBC_SHA", Kx::EcdhEcdsa, Au::Ecdh, Enc::TripleDes, Mac::Sha1, 112, 168, None, l(SAME, Ssl3, MEDIUM | FIPS, Default, 106)),
    s(0xC004, "ECDH-ECDSA-AES128-SHA", "TLS_ECDH_ECDSA_WITH_AES_128_CBC_SHA", Kx::EcdhEcdsa, Au::Ecdh, Enc::Aes128, Mac::Sha1, 128, 128, None, l(SAME, Ssl3, HIGH | FIPS, Default, 107)),
    s(0xC005, "ECDH-ECDSA-AES256-SHA", "TLS_ECDH_ECDSA_WITH_AES_256_CBC_SHA", Kx::EcdhEcdsa, Au::Ecdh, Enc::Aes256, Mac::Sha1, 256, 256, None, l(SAME, Ssl3, HIGH | FIPS, Default, 108)),
    s(0xC006, "ECDHE-ECDSA-NULL-SHA", "TLS_ECDHE_ECDSA_WITH_NULL_SHA", Kx::Ecdhe, Au::Ecdsa, Enc::Null, Mac::Sha1, 0, 0, m(Tls1, NONE | FIPS, Default), l(SAME, Ssl3, NONE | FIPS, Default, 109)),
    s(0xC007, "ECDHE-ECDSA-RC4-SHA", "TLS_ECDHE_ECDSA_WITH_RC4_128_SHA", Kx::Ecdhe, Au::Ecdsa, Enc::Rc4, Mac::Sha1, 128, 128, m(Tls1, NOT_DEFAULT | MEDIUM, WeakBuild), l(SAME, Ssl3, MEDIUM, Default, 110)),
    s(0xC008, "ECDHE-ECDSA-DES-CBC3-SHA", "TLS_ECDHE_ECDSA_WITH_3DES_EDE_CBC_SHA", Kx::Ecdhe, Au::Ecdsa, Enc::TripleDes, Mac::Sha1, 112, 168, m(Tls1, NOT_DEFAULT | MEDIUM | FIPS, WeakBuild), l(SAME, Ssl3, MEDIUM | FIPS, Default, 111)),
    s(0xC009, "ECDHE-ECDSA-AES128-SHA", "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA", Kx::Ecdhe, Au::Ecdsa, Enc::Aes128, Mac::Sha1, 128, 128, m(Tls1, HIGH | FIPS, Default), l(SAME, Ssl3, HIGH | FIPS, Default, 112)),
    s(0xC00A, "ECDHE-ECDSA-AES256-SHA", "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA", Kx::Ecdhe, Au::Ecdsa, Enc::Aes256, Mac::Sha1, 256, 256, m(Tls1, HIGH | FIPS, Default), l(SAME, Ssl3, HIGH | FIPS, Default, 113)),
    s(0xC00B, "ECDH-RSA-NULL-SHA", "TLS_ECDH_RSA_WITH_NULL_SHA", Kx::EcdhRsa, Au::Ecdh, Enc::Null, Mac::Sha1, 0, 0, None, l(SAME, Ssl3, NONE | FIPS, Default, 114)),
    s(0xC00C, "ECDH-RSA-RC4-SHA", "TLS_ECDH_RSA_WITH_RC4_128_SHA", Kx::EcdhRsa, Au::Ecdh, Enc::Rc4, Mac::Sha1, 128, 128, None, l(SAME, Ssl3, MEDIUM, Default, 115)),
    s(0xC00D, "ECDH-RSA-DES-CBC3-SHA", "TLS_ECDH_RSA_WITH_3DES_EDE_CBC_SHA", Kx::EcdhRsa, Au::Ecdh, Enc::TripleDes, Mac::Sha1, 112, 168, None, l(SAME, Ssl3, MEDIUM | FIPS, Default, 116)),
    s(0xC00E, "ECDH-RSA-AES128-SHA", "TLS_ECDH_RSA_WITH_AES_128_CBC_SHA", Kx::EcdhRsa, Au::Ecdh, Enc::Aes128, Mac::Sha1, 128, 128, None, l(SAME, Ssl3, HIGH | FIPS, Default, 117)),
    s(0xC00F, "ECDH-RSA-AES256-SHA", "TLS_ECDH_RSA_WITH_AES_256_CBC_SHA", Kx::EcdhRsa, Au::Ecdh, Enc::Aes256, Mac::Sha1, 256, 256, None, l(SAME, Ssl3, HIGH | FIPS, Default, 118)),
    s(0xC010, "ECDHE-RSA-NULL-SHA", "TLS_ECDHE_RSA_WITH_NULL_SHA", Kx::Ecdhe, Au::Rsa, Enc::Null, Mac::Sha1, 0, 0, m(Tls1, NONE | FIPS, Default), l(SAME, Ssl3, NONE | FIPS, Default, 119)),
    s(0xC011, "ECDHE-RSA-RC4-SHA", "TLS_ECDHE_RSA_WITH_RC4_128_SHA", Kx::Ecdhe, Au::Rsa, Enc::Rc4, Mac::Sha1, 128, 128, m(Tls1, NOT_DEFAULT | MEDIUM, WeakBuild), l(SAME, Ssl3, MEDIUM, Default, 120)),
    s(0xC012, "ECDHE-RSA-DES-CBC3-SHA", "TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA", Kx::Ecdhe, Au::Rsa, Enc::TripleDes, Mac::Sha1, 112, 168, m(Tls1, NOT_DEFAULT | MEDIUM | FIPS, WeakBuild), l(SAME, Ssl3, MEDIUM | FIPS, Default, 121)),
    s(0xC013, "ECDHE-RSA-AES128-SHA", "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA", Kx::Ecdhe, Au::Rsa, Enc::Aes128, Mac::Sha1, 128, 128, m(Tls1, HIGH | FIPS, Default), l(SAME, Ssl3, HIGH | FIPS, Default, 122)),
    s(0xC014, "ECDHE-RSA-AES256-SHA", "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA", Kx::Ecdhe, Au::Rsa, Enc::Aes256, Mac::Sha1, 256, 256, m(Tls1, HIGH | FIPS, Default), l(SAME, Ssl3, HIGH | FIPS, Default, 123)),
    s(0xC015, "AECDH-NULL-SHA", "TLS_ECDH_anon_WITH_NULL_SHA", Kx::Ecdhe, Au::Null, Enc::Null, Mac::Sha1, 0, 0, m(Tls1, NONE | FIPS, Default), l(SAME, Ssl3, NONE | FIPS, Default, 124)),
    s(0xC016, "AECDH-RC4-SHA", "TLS_ECDH_anon_WITH_RC4_128_SHA", Kx::Ecdhe, Au::Null, Enc::Rc4, Mac::Sha1, 128, 128, m(Tls1, NOT_DEFAULT | MEDIUM, WeakBuild), l(SAME, Ssl3, NOT_DEFAULT | MEDIUM, Default, 125)),
    s(0xC017, "AECDH-DES-CBC3-SHA", "TLS_ECDH_anon_WITH_3DES_EDE_CBC_SHA", Kx::Ecdhe, Au::Null, Enc::TripleDes, Mac::Sha1, 112, 168, m(Tls1, NOT_DEFAULT | MEDIUM | FIPS, WeakBuild), l(SAME, Ssl3, NOT_DEFAULT | MEDIUM | FIPS, Default, 126)),
    s(0xC018, "AECDH-AES128-SHA", "TLS_ECDH_anon_WITH_AES_128_CBC_SHA", Kx::Ecdhe, Au::Null, Enc::Aes128, Mac::Sha1, 128, 128, m(Tls1, NOT_DEFAULT | HIGH | FIPS, Default), l(SAME, Ssl3, NOT_DEFAULT | HIGH | FIPS, Default, 127)),
    s(0xC019, "AECDH-AES256-SHA", "TLS_ECDH_anon_WITH_AES_256_CBC_SHA", Kx::Ecdhe, Au::Null, Enc::Aes256, Mac::Sha1, 256, 256, m(Tls1, NOT_DEFAULT | HIGH | FIPS, Default), l(SAME, Ssl3, NOT_DEFAULT | HIGH | FIPS, Default, 128)),
    s(0xC01A, "SRP-3DES-EDE-CBC-SHA", "TLS_SRP_SHA_WITH_3DES_EDE_CBC_SHA", Kx::Srp, Au::Srp, Enc::TripleDes, Mac::Sha1, 112, 168, m(Ssl3, NOT_DEFAULT | MEDIUM, WeakBuild), l(SAME, Ssl3, MEDIUM, Default, 129)),
    s(0xC01B, "SRP-RSA-3DES-EDE-CBC-SHA", "TLS_SRP_SHA_RSA_WITH_3DES_EDE_CBC_SHA", Kx::Srp, Au::Rsa, Enc::TripleDes, Mac::Sha1, 112, 168, m(Ssl3, NOT_DEFAULT | MEDIUM, WeakBuild), l(SAME, Ssl3, MEDIUM, Default, 130)),
    s(0xC01C, "SRP-DSS-3DES-EDE-CBC-SHA", "TLS_SRP_SHA_DSS_WITH_3DES_EDE_CBC_SHA", Kx::Srp, Au::Dss, Enc::TripleDes, Mac::Sha1, 112, 168, m(Ssl3, NOT_DEFAULT | MEDIUM, WeakBuild), l(SAME, Ssl3, MEDIUM, Default, 131)),
    s(0xC01D, "SRP-AES-128-CBC-SHA", "TLS_SRP_SHA_WITH_AES_128_CBC_SHA", Kx::Srp, Au::Srp, Enc::Aes128, Mac::Sha1, 128, 128, m(Ssl3, HIGH, Default), l(SAME, Ssl3, HIGH, Default, 132)),
    s(0xC01E, "SRP-RSA-AES-128-CBC-SHA", "TLS_SRP_SHA_RSA_WITH_AES_128_CBC_SHA", Kx::Srp, Au::Rsa, Enc::Aes128, Mac::Sha1, 128, 128, m(Ssl3, HIGH, Default), l(SAME, Ssl3, HIGH, Default, 133)),
    s(0xC01F, "SRP-DSS-AES-128-CBC-SHA", "TLS_SRP_SHA_DSS_WITH_AES_128_CBC_SHA", Kx::Srp, Au::Dss, Enc::Aes128, Mac::Sha1, 128, 128, m(Ssl3, NOT_DEFAULT | HIGH, Default), l(SAME, Ssl3, HIGH, Default, 134)),
    s(0xC020, "SRP-AES-256-CBC-SHA", "TLS_SRP_SHA_WITH_AES_256_CBC_SHA", Kx::Srp, Au::Srp, Enc::Aes256, Mac::Sha1, 256, 256, m(Ssl3, HIGH, Default), l(SAME, Ssl3, HIGH, Default, 135)),
    s(0xC021, "SRP-RSA-AES-256-CBC-SHA", "TLS_SRP_SHA_RSA_WITH_AES_256_CBC_SHA", Kx::Srp, Au::Rsa, Enc::Aes256, Mac::Sha1, 256, 256, m(Ssl3, HIGH, Default), l(SAME, Ssl3, HIGH, Default, 136)),
    s(0xC022, "SRP-DSS-AES-256-CBC-SHA", "TLS_SRP_SHA_DSS_WITH_AES_256_CBC_SHA", Kx::Srp, Au::Dss, Enc::Aes256, Mac::Sha1, 256, 256, m(Ssl3, NOT_DEFAULT | HIGH, Default), l(SAME, Ssl3, HIGH, Default, 137)),
    s(0xC023, "ECDHE-ECDSA-AES128-SHA256", "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256", Kx::Ecdhe, Au::Ecdsa, Enc::Aes128, Mac::Sha256, 128, 128, m(Tls12, HIGH | FIPS, Default), l(SAME, Tls12, HIGH | FIPS, Default, 138)),
    s(0xC024, "ECDHE-ECDSA-AES256-SHA384", "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA384", Kx::Ecdhe, Au::Ecdsa, Enc::Aes256, Mac::Sha384, 256, 256, m(Tls12, HIGH | FIPS, Default), l(SAME, Tls12, HIGH | FIPS, Default, 139)),
    s(0xC025, "ECDH-ECDSA-AES128-SHA256", "TLS_ECDH_ECDSA_WITH_AES_128_CBC_SHA256", Kx::EcdhEcdsa, Au::Ecdh, Enc::Aes128, Mac::Sha256, 128, 128, None, l(SAME, Tls12, HIGH | FIPS, Default, 140)),
    s(0xC026, "ECDH-ECDSA-AES256-SHA384", "TLS_ECDH_ECDSA_WITH_AES_256_CBC_SHA384", Kx::EcdhEcdsa, Au::Ecdh, Enc::Aes256, Mac::Sha384, 256, 256, None, l(SAME, Tls12, HIGH | FIPS, Default, 141)),
    s(0xC027, "ECDHE-RSA-AES128-SHA256", "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256", Kx::Ecdhe, Au::Rsa, Enc::Aes128, Mac::Sha256, 128, 128, m(Tls12, HIGH | FIPS, Default), l(SAME, Tls12, HIGH | FIPS, Default, 142)),
    s(0xC028, "ECDHE-RSA-AES256-SHA384", "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA384", Kx::Ecdhe, Au::Rsa, Enc::Aes256, Mac::Sha384, 256, 256, m(Tls12, HIGH | FIPS, Default), l(SAME, Tls12, HIGH | FIPS, Default, 143)),
    s(0xC029, "ECDH-RSA-AES128-SHA256", "TLS_ECDH_RSA_WITH_AES_128_CBC_SHA256", Kx::EcdhRsa, Au::Ecdh, Enc::Aes128, Mac::Sha256, 128, 128, None, l(SAME, Tls12, HIGH | FIPS, Default, 144)),
    s(0xC02A, "ECDH-RSA-AES256-SHA384", "TLS_ECDH_RSA_WITH_AES_256_CBC_SHA384", Kx::EcdhRsa, Au::Ecdh, Enc::Aes256, Mac::Sha384, 256, 256, None, l(SAME, Tls12, HIGH | FIPS, Default, 145)),
    s(0xC02B, "ECDHE-ECDSA-AES128-GCM-SHA256", "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", Kx::Ecdhe, Au::Ecdsa, Enc::Aes128Gcm, Mac::Aead, 128, 128, m(Tls12, HIGH | FIPS, Default), l(SAME, Tls12, HIGH | FIPS, Default, 146)),
    s(0xC02C, "ECDHE-ECDSA-AES256-GCM-SHA384", "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384", Kx::Ecdhe, Au::Ecdsa, Enc::Aes256Gcm, Mac::Aead, 256, 256, m(Tls12, HIGH | FIPS, Default), l(SAME, Tls12, HIGH | FIPS, Default, 147)),
    s(0xC02D, "ECDH-ECDSA-AES128-GCM-SHA256", "TLS_ECDH_ECDSA_WITH_AES_128_GCM_SHA256", Kx::EcdhEcdsa, Au::Ecdh, Enc::Aes128Gcm, Mac::Aead, 128, 128, None, l(SAME, Tls12, HIGH | FIPS, Default, 148)),
    s(0xC02E, "ECDH-ECDSA-AES256-GCM-SHA384", "TLS_ECDH_ECDSA_WITH_AES_256_GCM_SHA384", Kx::EcdhEcdsa, Au::Ecdh, Enc::Aes256Gcm, Mac::Aead, 256, 256, None, l(SAME, Tls12, HIGH | FIPS, Default, 149)),
    s(0xC02F, "ECDHE-RSA-AES128-GCM-SHA256", "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", Kx::Ecdhe, Au::Rsa, Enc::Aes128Gcm, Mac::Aead, 128, 128, m(Tls12, HIGH | FIPS, Default), l(SAME, Tls12, HIGH | FIPS, Default, 150)),
    s(0xC030, "ECDHE-RSA-AES256-GCM-SHA384", "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384", Kx::Ecdhe, Au::Rsa, Enc::Aes256Gcm, Mac::Aead, 256, 256, m(Tls12, HIGH | FIPS, Default), l(SAME, Tls12, HIGH | FIPS, Default, 151)),
    s(0xC031, "ECDH-RSA-AES128-GCM-SHA256", "TLS_ECDH_RSA_WITH_AES_128_GCM_SHA256", Kx::EcdhRsa, Au::Ecdh, Enc::Aes128Gcm, Mac::Aead, 128, 128, None, l(SAME, Tls12, HIGH | FIPS, Default, 152)),
    s(0xC032, "ECDH-RSA-AES256-GCM-SHA384", "TLS_ECDH_RSA_WITH_AES_256_GCM_SHA384", Kx::EcdhRsa, Au::Ecdh, Enc::Aes256Gcm, Mac::Aead, 256, 256, None, l(SAME, Tls12, HIGH | FIPS, Default, 153)),
    s(0xC033, "ECDHE-PSK-RC4-SHA", "TLS_ECDHE_PSK_WITH_RC4_128_SHA", Kx::EcdhePsk, Au::Psk, Enc::Rc4, Mac::Sha1, 128, 128, m(Tls1, NOT_DEFAULT | MEDIUM, WeakBuild), None),
    s(0xC034, "ECDHE-PSK-3DES-EDE-CBC-SHA", "TLS_ECDHE_PSK_WITH_3DES_EDE_CBC_SHA", Kx::EcdhePsk, Au::Psk, Enc::TripleDes, Mac::Sha1, 112, 168, m(Tls1, NOT_DEFAULT | MEDIUM | FIPS, WeakBuild), None),
    s(0xC035, "ECDHE-PSK-AES128-CBC-SHA", "TLS_ECDHE_PSK_WITH_AES_128_CBC_SHA", Kx::EcdhePsk, Au::Psk, Enc::Aes128, Mac::Sha1, 128, 128, m(Tls1, HIGH | FIPS, Default), None),
    s(0xC036, "ECDHE-PSK-AES256-CBC-SHA", "TLS_ECDHE_PSK_WITH_AES_256_CBC_SHA", Kx::EcdhePsk, Au::Psk, Enc::Aes256, Mac::Sha1, 256, 256, m(Tls1, HIGH | FIPS, Default), None),
    s(0xC037, "ECDHE-PSK-AES128-CBC-SHA256", "TLS_ECDHE_PSK_WITH_AES_128_CBC_SHA256", Kx::EcdhePsk, Au::Psk, Enc::Aes128, Mac::Sha256, 128, 128, m(Tls1, HIGH | FIPS, Default), None),
    s(0xC038, "ECDHE-PSK-AES256-CBC-SHA384", "TLS_ECDHE_PSK_WITH_AES_256_CBC_SHA384", Kx::EcdhePsk, Au::Psk, Enc::Aes256, Mac::Sha384, 256, 256, m(Tls1, HIGH | FIPS, Default), None),
    s(0xC039, "ECDHE-PSK-NULL-SHA", "TLS_ECDHE_PSK_WITH_NULL_SHA", Kx::EcdhePsk, Au::Psk, Enc::Null, Mac::Sha1, 0, 0, m(Tls1, NONE | FIPS, Default), None),
    s(0xC03A, "ECDHE-PSK-NULL-SHA256", "TLS_ECDHE_PSK_WITH_NULL_SHA256", Kx::EcdhePsk, Au::Psk, Enc::Null, Mac::Sha256, 0, 0, m(Tls1, NONE | FIPS, Default), None),
    s(0xC03B, "ECDHE-PSK-NULL-SHA384", "TLS_ECDHE_PSK_WITH_NULL_SHA384", Kx::EcdhePsk, Au::Psk, Enc::Null, Mac::Sha384, 0, 0, m(Tls1, NONE | FIPS, Default), None),
    s(0xC050, "ARIA128-GCM-SHA256", "TLS_RSA_WITH_ARIA_128_GCM_SHA256", Kx::Rsa, Au::Rsa, Enc::Aria128Gcm, Mac::Aead, 128, 128, m(Tls12, NOT_DEFAULT | HIGH, Default), None),
    s(0xC051, "ARIA256-GCM-SHA384", "TLS_RSA_WITH_ARIA_256_GCM_SHA384", Kx::Rsa, Au::Rsa, Enc::Aria256Gcm, Mac::Aead, 256, 256, m(Tls12, NOT_DEFAULT | HIGH, Default), None),
    s(0xC052, "DHE-RSA-ARIA128-GCM-SHA256", "TLS_DHE_RSA_WITH_ARIA_128_GCM_SHA256", Kx::Dhe, Au::Rsa, Enc::Aria128Gcm, Mac::Aead, 128, 128, m(Tls12, NOT_DEFAULT | HIGH, Default), None),
    s(0xC053, "DHE-RSA-ARIA256-GCM-SHA384", "TLS_DHE_RSA_WITH_ARIA_256_GCM_SHA384", Kx::Dhe, Au::Rsa, Enc::Aria256Gcm, Mac::Aead, 256, 256, m(Tls12, NOT_DEFAULT | HIGH, Default), None),
    s(0xC056, "DHE-DSS-ARIA128-GCM-SHA256", "TLS_DHE_DSS_WITH_ARIA_128_GCM_SHA256", Kx::Dhe, Au::Dss, Enc::Aria128Gcm, Mac::Aead, 128, 128, m(Tls12, NOT_DEFAULT | HIGH, Default), None),
    s(0xC057, "DHE-DSS-ARIA256-GCM-SHA384", "TLS_DHE_DSS_WITH_ARIA_256_GCM_SHA384", Kx::Dhe, Au::Dss, Enc::Aria256Gcm, Mac::Aead, 256, 256, m(Tls12, NOT_DEFAULT | HIGH, Default), None),
    s(0xC05C, "ECDHE-ECDSA-ARIA128-GCM-SHA256", "TLS_ECDHE_ECDSA_WITH_ARIA_128_GCM_SHA256", Kx::Ecdhe, Au::Ecdsa, Enc::Aria128Gcm, Mac::Aead, 128, 128, m(Tls12, NOT_DEFAULT | HIGH, Default), None),
    s(0xC05D, "ECDHE-ECDSA-ARIA256-GCM-SHA384", "TLS_ECDHE_ECDSA_WITH_ARIA_256_GCM_SHA384", Kx::Ecdhe, Au::Ecdsa, Enc::Aria256Gcm, Mac::Aead, 256, 256, m(Tls12, NOT_DEFAULT | HIGH, Default), None),
    s(0xC060, "ECDHE-ARIA128-GCM-SHA256", "TLS_ECDHE_RSA_WITH_ARIA_128_GCM_SHA256", Kx::Ecdhe, Au::Rsa, Enc::Aria128Gcm, Mac::Aead, 128, 128, m(Tls12, NOT_DEFAULT | HIGH, Default), None),
    s(0xC061, "ECDHE-ARIA256-GCM-SHA384", "TLS_ECDHE_RSA_WITH_ARIA_256_GCM_SHA384", Kx::Ecdhe, Au::Rsa, Enc::Aria256Gcm, Mac::Aead, 256, 256, m(Tls12, NOT_DEFAULT | HIGH, Default), None),
    s(0xC06A, "PSK-ARIA128-GCM-SHA256", "TLS_PSK_WITH_ARIA_128_GCM_SHA256", Kx::Psk, Au::Psk, Enc::Aria128Gcm, Mac::Aead, 128, 128, m(Tls12, NOT_DEFAULT | HIGH, Default), None),
    s(0xC06B, "PSK-ARIA256-GCM-SHA384", "TLS_PSK_WITH_ARIA_256_GCM_SHA384", Kx::Psk, Au::Psk, Enc::Aria256Gcm, Mac::Aead, 256, 256, m(Tls12, NOT_DEFAULT | HIGH, Default), None),
    s(0xC06C, "DHE-PSK-ARIA128-GCM-SHA256", "TLS_DHE_PSK_WITH_ARIA_128_GCM_SHA256", Kx::DhePsk, Au::Psk, Enc::Aria128Gcm, Mac::Aead, 128, 128, m(Tls12, NOT_DEFAULT | HIGH, Default), None),
    s(0xC06D, "DHE-PSK-ARIA256-GCM-SHA384", "TLS_DHE_PSK_WITH_ARIA_256_GCM_SHA384", Kx::DhePsk, Au::Psk, Enc::Aria256Gcm, Mac::Aead, 256, 256, m(Tls12, NOT_DEFAULT | HIGH, Default), None),
    s(0xC06E, "RSA-PSK-ARIA128-GCM-SHA256", "TLS_RSA_PSK_WITH_ARIA_128_GCM_SHA256", Kx::RsaPsk, Au::Rsa, Enc::Aria128Gcm, Mac::Aead, 128, 128, m(Tls12, NOT_DEFAULT | HIGH, Default), None),
    s(0xC06F, "RSA-PSK-ARIA256-GCM-SHA384", "TLS_RSA_PSK_WITH_ARIA_256_GCM_SHA384", Kx::RsaPsk, Au::Rsa, Enc::Aria256Gcm, Mac::Aead, 256, 256, m(Tls12, NOT_DEFAULT | HIGH, Default), None),
    s(0xC072, "ECDHE-ECDSA-CAMELLIA128-SHA256", "TLS_ECDHE_ECDSA_WITH_CAMELLIA_128_CBC_SHA256", Kx::Ecdhe, Au::Ecdsa, Enc::Camellia128, Mac::Sha256, 128, 128, m(Tls12, NOT_DEFAULT | HIGH, Default), None),
    s(0xC073, "ECDHE-ECDSA-CAMELLIA256-SHA384", "TLS_ECDHE_ECDSA_WITH_CAMELLIA_256_CBC_SHA384", Kx::Ecdhe, Au::Ecdsa, Enc::Camellia256, Mac::Sha384, 256, 256, m(Tls12, NOT_DEFAULT | HIGH, Default), None),
    s(0xC076, "ECDHE-RSA-CAMELLIA128-SHA256", "TLS_ECDHE_RSA_WITH_CAMELLIA_128_CBC_SHA256", Kx::Ecdhe, Au::Rsa, Enc::Camellia128, Mac::Sha256, 128, 128, m(Tls12, NOT_DEFAULT | HIGH, Default), None),
    s(0xC077, "ECDHE-RSA-CAMELLIA256-SHA384", "TLS_ECDHE_RSA_WITH_CAMELLIA_256_CBC_SHA384", Kx::Ecdhe, Au::Rsa, Enc::Camellia256, Mac::Sha384, 256, 256, m(Tls12, NOT_DEFAULT | HIGH, Default), None),
    s(0xC094, "PSK-CAMELLIA128-SHA256", "TLS_PSK_WITH_CAMELLIA_128_CBC_SHA256", Kx::Psk, Au::Psk, Enc::Camellia128, Mac::Sha256, 128, 128, m(Tls1, NOT_DEFAULT | HIGH, Default), None),
    s(0xC095, "PSK-CAMELLIA256-SHA384", "TLS_PSK_WITH_CAMELLIA_256_CBC_SHA384", Kx::Psk, Au::Psk, Enc::Camellia256, Mac::Sha384, 256, 256, m(Tls1, NOT_DEFAULT | HIGH, Default), None),
    s(0xC096, "DHE-PSK-CAMELLIA128-SHA256", "TLS_DHE_PSK_WITH_CAMELLIA_128_CBC_SHA256", Kx::DhePsk, Au::Psk, Enc::Camellia128, Mac::Sha256, 128, 128, m(Tls1, NOT_DEFAULT | HIGH, Default), None),
    s(0xC097, "DHE-PSK-CAMELLIA256-SHA384", "TLS_DHE_PSK_WITH_CAMELLIA_256_CBC_SHA384", Kx::DhePsk, Au::Psk, Enc::Camellia256, Mac::Sha384, 256, 256, m(Tls1, NOT_DEFAULT | HIGH, Default), None),
    s(0xC098, "RSA-PSK-CAMELLIA128-SHA256", "TLS_RSA_PSK_WITH_CAMELLIA_128_CBC_SHA256", Kx::RsaPsk, Au::Rsa, Enc::Camellia128, Mac::Sha256, 128, 128, m(Tls1, NOT_DEFAULT | HIGH, Default), None),
    s(0xC099, "RSA-PSK-CAMELLIA256-SHA384", "TLS_RSA_PSK_WITH_CAMELLIA_256_CBC_SHA384", Kx::RsaPsk, Au::Rsa, Enc::Camellia256, Mac::Sha384, 256, 256, m(Tls1, NOT_DEFAULT | HIGH, Default), None),
    s(0xC09A, "ECDHE-PSK-CAMELLIA128-SHA256", "TLS_ECDHE_PSK_WITH_CAMELLIA_128_CBC_SHA256", Kx::EcdhePsk, Au::Psk, Enc::Camellia128, Mac::Sha256, 128, 128, m(Tls1, NOT_DEFAULT | HIGH, Default), None),
    s(0xC09B, "ECDHE-PSK-CAMELLIA256-SHA384", "TLS_ECDHE_PSK_WITH_CAMELLIA_256_CBC_SHA384", Kx::EcdhePsk, Au::Psk, Enc::Camellia256, Mac::Sha384, 256, 256, m(Tls1, NOT_DEFAULT | HIGH, Default), None),
    s(0xC09C, "AES128-CCM", "TLS_RSA_WITH_AES_128_CCM", Kx::Rsa, Au::Rsa, Enc::Aes128Ccm, Mac::Aead, 128, 128, m(Tls12, NOT_DEFAULT | HIGH, Default), None),
    s(0xC09D, "AES256-CCM", "TLS_RSA_WITH_AES_256_CCM", Kx::Rsa, Au::Rsa, Enc::Aes256Ccm, Mac::Aead, 256, 256, m(Tls12, NOT_DEFAULT | HIGH, Default), None),
    s(0xC09E, "DHE-RSA-AES128-CCM", "TLS_DHE_RSA_WITH_AES_128_CCM", Kx::Dhe, Au::Rsa, Enc::Aes128Ccm, Mac::Aead, 128, 128, m(Tls12, NOT_DEFAULT | HIGH, Default), None),
    s(0xC09F, "DHE-RSA-AES256-CCM", "TLS_DHE_RSA_WITH_AES_256_CCM", Kx::Dhe, Au::Rsa, Enc::Aes256Ccm, Mac::Aead, 256, 256, m(Tls12, NOT_DEFAULT | HIGH, Default), None),
    s(0xC0A0, "AES128-CCM8", "TLS_RSA_WITH_AES_128_CCM_8", Kx::Rsa, Au::Rsa, Enc::Aes128Ccm8, Mac::Aead, 128, 128, m(Tls12, NOT_DEFAULT | HIGH, Default), None),
    s(0xC0A1, "AES256-CCM8", "TLS_RSA_WITH_AES_256_CCM_8", Kx::Rsa, Au::Rsa, Enc::Aes256Ccm8, Mac::Aead, 256, 256, m(Tls12, NOT_DEFAULT | HIGH, Default), None),
    s(0xC0A2, "DHE-RSA-AES128-CCM8", "TLS_DHE_RSA_WITH_AES_128_CCM_8", Kx::Dhe, Au::Rsa, Enc::Aes128Ccm8, Mac::Aead, 128, 128, m(Tls12, NOT_DEFAULT | HIGH, Default), None),
    s(0xC0A3, "DHE-RSA-AES256-CCM8", "TLS_DHE_RSA_WITH_AES_256_CCM_8", Kx::Dhe, Au::Rsa, Enc::Aes256Ccm8, Mac::Aead, 256, 256, m(Tls12, NOT_DEFAULT | HIGH, Default), None),
    s(0xC0A4, "PSK-AES128-CCM", "TLS_PSK_WITH_AES_128_CCM", Kx::Psk, Au::Psk, Enc::Aes128Ccm, Mac::Aead, 128, 128, m(Tls12, NOT_DEFAULT | HIGH, Default), None),
    s(0xC0A5, "PSK-AES256-CCM", "TLS_PSK_WITH_AES_256_CCM", Kx::Psk, Au::Psk, Enc::Aes256Ccm, Mac::Aead, 256, 256, m(Tls12, NOT_DEFAULT | HIGH, Default), None),
    s(0xC0A6, "DHE-PSK-AES128-CCM", "TLS_DHE_PSK_WITH_AES_128_CCM", Kx::DhePsk, Au::Psk, Enc::Aes128Ccm, Mac::Aead, 128, 128, m(Tls12, NOT_DEFAULT | HIGH, Default), None),
    s(0xC0A7, "DHE-PSK-AES256-CCM", "TLS_DHE_PSK_WITH_AES_256_CCM", Kx::DhePsk, Au::Psk, Enc::Aes256Ccm, Mac::Aead, 256, 256, m(Tls12, NOT_DEFAULT | HIGH, Default), None),
    s(0xC0A8, "PSK-AES128-CCM8", "TLS_PSK_WITH_AES_128_CCM_8", Kx::Psk, Au::Psk, Enc::Aes128Ccm8, Mac::Aead, 128, 128, m(Tls12, NOT_DEFAULT | HIGH, Default), None),
    s(0xC0A9, "PSK-AES256-CCM8", "TLS_PSK_WITH_AES_256_CCM_8", Kx::Psk, Au::Psk, Enc::Aes256Ccm8, Mac::Aead, 256, 256, m(Tls12, NOT_DEFAULT | HIGH, Default), None),
    s(0xC0AA, "DHE-PSK-AES128-CCM8", "TLS_PSK_DHE_WITH_AES_128_CCM_8", Kx::DhePsk, Au::Psk, Enc::Aes128Ccm8, Mac::Aead, 128, 128, m(Tls12, NOT_DEFAULT | HIGH, Default), None),
    s(0xC0AB, "DHE-PSK-AES256-CCM8", "TLS_PSK_DHE_WITH_AES_256_CCM_8", Kx::DhePsk, Au::Psk, Enc::Aes256Ccm8, Mac::Aead, 256, 256, m(Tls12, NOT_DEFAULT | HIGH, Default), None),
    s(0xC0AC, "ECDHE-ECDSA-AES128-CCM", "TLS_ECDHE_ECDSA_WITH_AES_128_CCM", Kx::Ecdhe, Au::Ecdsa, Enc::Aes128Ccm, Mac::Aead, 128, 128, m(Tls12, NOT_DEFAULT | HIGH, Default), None),
    s(0xC0AD, "ECDHE-ECDSA-AES256-CCM", "TLS_ECDHE_ECDSA_WITH_AES_256_CCM", Kx::Ecdhe, Au::Ecdsa, Enc::Aes256Ccm, Mac::Aead, 256, 256, m(Tls12, NOT_DEFAULT | HIGH, Default), None),
    s(0xC0AE, "ECDHE-ECDSA-AES128-CCM8", "TLS_ECDHE_ECDSA_WITH_AES_128_CCM_8", Kx::Ecdhe, Au::Ecdsa, Enc::Aes128Ccm8, Mac::Aead, 128, 128, m(Tls12, NOT_DEFAULT | HIGH, Default), None),
    s(0xC0AF, "ECDHE-ECDSA-AES256-CCM8", "TLS_ECDHE_ECDSA_WITH_AES_256_CCM_8", Kx::Ecdhe, Au::Ecdsa, Enc::Aes256Ccm8, Mac::Aead, 256, 256, m(Tls12, NOT_DEFAULT | HIGH, Default), None),
    s(0xCCA8, "ECDHE-RSA-CHACHA20-POLY1305", "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256", Kx::Ecdhe, Au::Rsa, Enc::Chacha20Poly1305, Mac::Aead, 256, 256, m(Tls12, HIGH, Default), None),
    s(0xCCA9, "ECDHE-ECDSA-CHACHA20-POLY1305", "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256", Kx::Ecdhe, Au::Ecdsa, Enc::Chacha20Poly1305, Mac::Aead, 256, 256, m(Tls12, HIGH, Default), None),
    s(0xCCAA, "DHE-RSA-CHACHA20-POLY1305", "TLS_DHE_RSA_WITH_CHACHA20_POLY1305_SHA256", Kx::Dhe, Au::Rsa, Enc::Chacha20Poly1305, Mac::Aead, 256, 256, m(Tls12, HIGH, Default), None),
    s(0xCCAB, "PSK-CHACHA20-POLY1305", "TLS_PSK_WITH_CHACHA20_POLY1305_SHA256", Kx::Psk, Au::Psk, Enc::Chacha20Poly1305, Mac::Aead, 256, 256, m(Tls12, HIGH, Default), None),
    s(0xCCAC, "ECDHE-PSK-CHACHA20-POLY1305", "TLS_ECDHE_PSK_WITH_CHACHA20_POLY1305_SHA256", Kx::EcdhePsk, Au::Psk, Enc::Chacha20Poly1305, Mac::Aead, 256, 256, m(Tls12, HIGH, Default), None),
    s(0xCCAD, "DHE-PSK-CHACHA20-POLY1305", "TLS_DHE_PSK_WITH_CHACHA20_POLY1305_SHA256", Kx::DhePsk, Au::Psk, Enc::Chacha20Poly1305, Mac::Aead, 256, 256, m(Tls12, HIGH, Default), None),
    s(0xCCAE, "RSA-PSK-CHACHA20-POLY1305", "TLS_RSA_PSK_WITH_CHACHA20_POLY1305_SHA256", Kx::RsaPsk, Au::Rsa, Enc::Chacha20Poly1305, Mac::Aead, 256, 256, m(Tls12, HIGH, Default), None),
];

/// The suite with this OpenSSL name, in any version's spelling (`EDH-RSA-DES-CBC3-SHA`
/// finds the suite 1.1.0 renamed `DHE-RSA-DES-CBC3-SHA`). Case-sensitive, like OpenSSL.
pub fn by_name(name: &str) -> Option<&'static Suite> {
    SUITES
        .iter()
        .find(|s| s.name == name || s.legacy.is_some_and(|l| l.name == name))
}

/// The suite with this IANA name (`TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256`).
pub fn by_iana(iana: &str) -> Option<&'static Suite> {
    SUITES.iter().find(|s| s.iana == iana)
}

/// The suite with this IANA code point.
pub fn by_id(id: u16) -> Option<&'static Suite> {
    SUITES
        .binary_search_by_key(&id, |s| s.id)
        .ok()
        .map(|i| &SUITES[i])
}

impl Suite {
    /// Whether this is a TLS 1.3 suite (set with `Ciphersuites`, never by a cipher string).
    pub fn is_tls13(&self) -> bool {
        self.kx == Kx::Any
    }

    /// Whether the suite gives forward secrecy.
    pub fn forward_secret(&self) -> bool {
        self.kx.forward_secret()
    }

    /// Whether the suite is anonymous (no server authentication).
    pub fn anonymous(&self) -> bool {
        self.au == Au::Null
    }

    /// Whether the suite is export-grade in the 1.0.2 table.
    pub fn export(&self) -> bool {
        self.legacy.is_some_and(|l| l.flags & class::EXPORT != 0)
    }
}
