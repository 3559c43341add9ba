//! The key-exchange group names OpenSSL's `SSL_CTX_set1_curves_list` accepts (what nginx
//! passes `ssl_ecdh_curve` to), and since which release. One unknown name fails the whole
//! list, and nginx then refuses to start (`SSL_CTX_set1_curves_list(…) failed`).
//!
//! The 1.1.1/3.0 names are the TLS group table of OpenSSL 3.0 (providers/common/
//! capabilities.c: each group's name and alias; the NIST `P-*` / `K-*` / `B-*` names),
//! checked name by name against the installed `openssl` 3.0 in this module's test; names are
//! compared case-sensitively there (`p-256` is refused). Later additions, from OpenSSL's
//! CHANGES.md: the TLS 1.3 brainpool groups (3.2), the ML-KEM and hybrid groups and the
//! `?name` / `*name` / `a/b` list syntax (3.5).

/// An OpenSSL release, `major.minor`.
pub type Release = (u32, u32);

const BASE: &[&str] = &[
    "secp160k1",
    "secp160r1",
    "secp160r2",
    "secp192k1",
    "secp192r1",
    "prime192v1",
    "P-192",
    "secp224k1",
    "secp224r1",
    "P-224",
    "secp256k1",
    "secp256r1",
    "prime256v1",
    "P-256",
    "secp384r1",
    "P-384",
    "secp521r1",
    "P-521",
    "sect163k1",
    "K-163",
    "sect163r1",
    "sect163r2",
    "B-163",
    "sect193r1",
    "sect193r2",
    "sect233k1",
    "K-233",
    "sect233r1",
    "B-233",
    "sect239k1",
    "sect283k1",
    "K-283",
    "sect283r1",
    "B-283",
    "sect409k1",
    "K-409",
    "sect409r1",
    "B-409",
    "sect571k1",
    "K-571",
    "sect571r1",
    "B-571",
    "brainpoolP256r1",
    "brainpoolP384r1",
    "brainpoolP512r1",
    "x25519",
    "X25519",
    "x448",
    "X448",
];

/// Names added after 3.0, with the release that added them.
const LATER: &[(&str, Release)] = &[
    ("ffdhe2048", (3, 0)),
    ("ffdhe3072", (3, 0)),
    ("ffdhe4096", (3, 0)),
    ("ffdhe6144", (3, 0)),
    ("ffdhe8192", (3, 0)),
    ("brainpoolP256r1tls13", (3, 2)),
    ("brainpoolP384r1tls13", (3, 2)),
    ("brainpoolP512r1tls13", (3, 2)),
    ("MLKEM512", (3, 5)),
    ("MLKEM768", (3, 5)),
    ("MLKEM1024", (3, 5)),
    ("X25519MLKEM768", (3, 5)),
    ("SecP256r1MLKEM768", (3, 5)),
    ("SecP384r1MLKEM1024", (3, 5)),
    ("X448MLKEM1024", (3, 5)),
];

/// Names other TLS libraries nginx can be built with know, but no OpenSSL does.
const ELSEWHERE: &[(&str, &str)] = &[
    ("X25519Kyber768Draft00", "BoringSSL and AWS-LC"),
    ("X25519Kyber768", "BoringSSL"),
    ("P256Kyber768Draft00", "AWS-LC"),
    ("x25519_kyber768", "the oqs-provider"),
    ("p256_kyber768", "the oqs-provider"),
    ("x25519_mlkem768", "the oqs-provider"),
];

/// What OpenSSL makes of one name of a list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Known {
    /// Every release nginx supports today (1.1.1 and later) knows it.
    Always,
    /// Known since this release.
    Since(Release),
    /// No OpenSSL knows it; the library that does.
    Elsewhere(&'static str),
    /// Known in another case (`p-256` for `P-256`): OpenSSL 3.0 compares names
    /// case-sensitively and refuses it.
    OtherCase(&'static str),
    /// No library knows it.
    Unknown,
}

/// The names of an `ssl_ecdh_curve` value, each with the text OpenSSL looks up: split on
/// `:` (and `/`, 3.5's group tuples), `?`/`*` prefixes removed. The bool says the name used
/// 3.5's list syntax (a prefix or a tuple), which older releases refuse.
pub fn names(list: &str) -> Vec<(String, bool)> {
    let tuples = list.contains('/');
    list.split([':', '/'])
        .filter(|n| !n.is_empty())
        .map(|n| {
            let bare = n.trim_start_matches(['?', '*', '-']);
            (bare.to_string(), tuples || bare.len() != n.len())
        })
        .collect()
}

/// Whether the name starts with `?` (3.5: ignore it when unknown).
pub fn tolerated(raw: &str) -> bool {
    raw.starts_with('?')
}

pub fn known(name: &str) -> Known {
    if BASE.contains(&name) {
        return Known::Always;
    }
    if let Some((_, since)) = LATER.iter().find(|(n, _)| *n == name) {
        return Known::Since(*since);
    }
    if let Some((_, lib)) = ELSEWHERE.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)) {
        return Known::Elsewhere(lib);
    }
    let other = BASE
        .iter()
        .copied()
        .chain(LATER.iter().map(|(n, _)| *n))
        .find(|n| n.eq_ignore_ascii_case(name));
    match other {
        Some(n) => Known::OtherCase(n),
        None => Known::Unknown,
    }
}

/// The known name closest to `name` (a typo's likely intent).
pub fn nearest(name: &str) -> Option<&'static str> {
    BASE.iter()
        .copied()
        .chain(LATER.iter().map(|(n, _)| *n))
        .map(|n| {
            let d = crate::edit_distance::levenshtein(
                name.to_ascii_lowercase().as_bytes(),
                n.to_ascii_lowercase().as_bytes(),
            );
            (d, n)
        })
        .filter(|(d, _)| *d <= 3)
        .min()
        .map(|(_, n)| n)
}

/// `[host] openssl` as a release: `3.5.1`, `OpenSSL 3.0.13 30 Jan 2024`, `1.1.1w`.
pub fn release(text: &str) -> Option<Release> {
    let t = text.trim_start_matches(|c: char| !c.is_ascii_digit());
    let mut parts = t.split(|c: char| !c.is_ascii_digit());
    let major = parts.next()?.parse().ok()?;
    let minor = parts.next().and_then(|m| m.parse().ok()).unwrap_or(0);
    Some((major, minor))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether the installed `openssl` accepts `groups` as a group list: `s_client` sets it
    /// (SSL_CONF_cmd → SSL_CTX_set1_groups_list, what nginx's call becomes) before it
    /// connects, and says `Call to SSL_CONF_cmd(-groups, …) failed` when it refuses.
    fn accepts(groups: &str) -> Option<bool> {
        let out = std::process::Command::new("openssl")
            .args(["s_client", "-groups", groups, "-connect", "127.0.0.1:9"])
            .stdin(std::process::Stdio::null())
            .output()
            .ok()?;
        let text = String::from_utf8_lossy(&out.stderr).into_owned()
            + &String::from_utf8_lossy(&out.stdout);
        Some(!text.contains("SSL_CONF_cmd"))
    }

    fn local_release() -> Option<Release> {
        let out = std::process::Command::new("openssl")
            .arg("version")
            .output()
            .ok()?;
        release(&String::from_utf8_lossy(&out.stdout))
    }

    #[test]
    fn the_table_agrees_with_the_installed_openssl() {
        let Some(local) = local_release() else {
            assert!(
                std::env::var("CI").as_deref() != Ok("true"),
                "openssl is missing: it is required when CI=true"
            );
            eprintln!("skipped: no openssl binary");
            return;
        };
        for name in BASE {
            assert_eq!(accepts(name), Some(true), "{name} is in the base table");
        }
        for (name, since) in LATER {
            assert_eq!(
                accepts(name),
                Some(*since <= local),
                "{name} since {since:?} on {local:?}"
            );
        }
        for (name, _) in ELSEWHERE {
            assert_eq!(accepts(name), Some(false), "{name} is no OpenSSL group");
        }
        for typo in ["prime256v", "secp384", "X25519MLKEM"] {
            assert_eq!(known(typo), Known::Unknown);
            assert_eq!(accepts(typo), Some(false), "{typo}");
        }
        for case in ["p-256", "PRIME256V1"] {
            assert!(matches!(known(case), Known::OtherCase(_)));
            assert_eq!(accepts(case), Some(false), "{case}");
        }
        // The 3.5 list syntax.
        if local < (3, 5) {
            assert_eq!(accepts("?X25519:P-256"), Some(false));
            assert_eq!(accepts("X25519/P-256"), Some(false));
        }
    }

    #[test]
    fn lists_split_into_names() {
        assert_eq!(
            names("X25519MLKEM768:X25519:prime256v1"),
            [
                ("X25519MLKEM768".into(), false),
                ("X25519".into(), false),
                ("prime256v1".into(), false)
            ]
        );
        assert_eq!(
            names("?X25519MLKEM768:*X25519")[0],
            ("X25519MLKEM768".into(), true)
        );
        assert_eq!(nearest("prime256v"), Some("prime256v1"));
        assert_eq!(release("OpenSSL 3.5.1 1 Jul 2025"), Some((3, 5)));
    }
}
