//! Reading an `ssl_dhparam` file: the PEM block nginx hands to OpenSSL
//! (`PEM_read_bio_DHparams` in `ngx_ssl_dhparam`), its DER, and the prime's size — without
//! a crypto library: a DH group is a DER `SEQUENCE` whose first `INTEGER` is the prime `p`
//! (PKCS #3 `DHParameter ::= SEQUENCE { prime, base, privateValueLength OPTIONAL }`, and
//! X9.42 `DomainParameters ::= SEQUENCE { p, g, q, … }` alike).
//!
//! Also which well-known groups a prime is: published primes are the ones precomputation
//! attacks target first (weakdh.org, "Imperfect Forward Secrecy", 2015).

/// A DH group read from a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DhGroup {
    /// The prime's size in bits (what `openssl dhparam -text` prints as "DH Parameters:
    /// (N bit)").
    pub bits: u32,
    /// The prime's bytes, big-endian, without leading zeros.
    pub prime: Vec<u8>,
}

/// Why a file is not a DH group we can read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DhError {
    /// No `-----BEGIN DH PARAMETERS-----` (or X9.42) block.
    NoBlock,
    /// The block's base64 or DER is malformed.
    Malformed(&'static str),
}

const BEGIN: [&str; 2] = [
    "-----BEGIN DH PARAMETERS-----",
    "-----BEGIN X9.42 DH PARAMETERS-----",
];

/// The first DH parameters block of `text` (a PEM file may also hold a certificate or a
/// key; OpenSSL skips other blocks the same way).
pub fn read_pem(text: &[u8]) -> Result<DhGroup, DhError> {
    let text = String::from_utf8_lossy(text);
    let (start, begin) = BEGIN
        .iter()
        .filter_map(|b| text.find(b).map(|i| (i, *b)))
        .min()
        .ok_or(DhError::NoBlock)?;
    let body = &text[start + begin.len()..];
    let end = body
        .find("-----END")
        .ok_or(DhError::Malformed("the block has no END line"))?;
    let b64: Vec<u8> = body[..end]
        .bytes()
        .filter(|b| !b.is_ascii_whitespace())
        .collect();
    let der = base64(&b64).ok_or(DhError::Malformed("the block is not base64"))?;
    read_der(&der)
}

/// The prime of a DER-encoded DH group.
pub fn read_der(der: &[u8]) -> Result<DhGroup, DhError> {
    let (tag, seq, _) = tlv(der).ok_or(DhError::Malformed("truncated DER"))?;
    if tag != 0x30 {
        return Err(DhError::Malformed("not a DER SEQUENCE"));
    }
    let (tag, int, _) = tlv(seq).ok_or(DhError::Malformed("truncated DER"))?;
    if tag != 0x02 {
        return Err(DhError::Malformed("the first field is not an INTEGER"));
    }
    let prime: Vec<u8> = int.iter().copied().skip_while(|b| *b == 0).collect();
    let Some(&top) = prime.first() else {
        return Err(DhError::Malformed("the prime is zero"));
    };
    let bits = (prime.len() as u32 - 1) * 8 + (8 - top.leading_zeros());
    Ok(DhGroup { bits, prime })
}

/// One DER tag-length-value: (tag, contents, rest). Only definite lengths (DER has no
/// other).
fn tlv(der: &[u8]) -> Option<(u8, &[u8], &[u8])> {
    let (&tag, rest) = der.split_first()?;
    let (&first, mut rest) = rest.split_first()?;
    let len = if first & 0x80 == 0 {
        usize::from(first)
    } else {
        let n = usize::from(first & 0x7f);
        if n == 0 || n > 4 || rest.len() < n {
            return None;
        }
        let len = rest[..n]
            .iter()
            .fold(0usize, |acc, b| (acc << 8) | usize::from(*b));
        rest = &rest[n..];
        len
    };
    if rest.len() < len {
        return None;
    }
    Some((tag, &rest[..len], &rest[len..]))
}

/// Standard base64 (with `=` padding) as PEM uses it.
fn base64(input: &[u8]) -> Option<Vec<u8>> {
    let value = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        } as u32)
    };
    let trimmed: &[u8] = {
        let pad = input.iter().rev().take_while(|&&c| c == b'=').count();
        if pad > 2 {
            return None;
        }
        &input[..input.len() - pad]
    };
    let mut out = Vec::with_capacity(trimmed.len() * 3 / 4);
    for chunk in trimmed.chunks(4) {
        let mut acc = 0u32;
        for (i, &c) in chunk.iter().enumerate() {
            acc |= value(c)? << (18 - 6 * i);
        }
        let bytes = acc.to_be_bytes();
        match chunk.len() {
            4 => out.extend_from_slice(&bytes[1..4]),
            3 => out.extend_from_slice(&bytes[1..3]),
            2 => out.push(bytes[1]),
            _ => return None,
        }
    }
    Some(out)
}

/// A published group, by its prime.
pub struct KnownGroup {
    pub name: &'static str,
    /// Where it is published.
    pub source: &'static str,
    pub prime_hex: &'static str,
}

/// Published groups of 1024 bits or fewer. The Oakley primes are
/// `2^n - 2^(n-64) - 1 + 2^64 * (floor(2^(n-130) * pi) + k)` (RFC 2409 §6.1, §6.2;
/// recomputed from that formula when this table was written); the RFC 5114 prime is what
/// `openssl genpkey -genparam -algorithm DH -pkeyopt group:dh_1024_160` writes
/// (tests/trust_tls_binary.rs checks it).
pub const KNOWN_GROUPS: [KnownGroup; 3] = [
    KnownGroup {
        name: "the 768-bit Oakley group 1",
        source: "RFC 2409 §6.1",
        prime_hex: "ffffffffffffffffc90fdaa22168c234c4c6628b80dc1cd129024e088a67cc74020bbea63b139b22514a08798e3404ddef9519b3cd3a431b302b0a6df25f14374fe1356d6d51c245e485b576625e7ec6f44c42e9a63a3620ffffffffffffffff",
    },
    KnownGroup {
        name: "the 1024-bit Oakley group 2",
        source: "RFC 2409 §6.2",
        prime_hex: "ffffffffffffffffc90fdaa22168c234c4c6628b80dc1cd129024e088a67cc74020bbea63b139b22514a08798e3404ddef9519b3cd3a431b302b0a6df25f14374fe1356d6d51c245e485b576625e7ec6f44c42e9a637ed6b0bff5cb6f406b7edee386bfb5a899fa5ae9f24117c4b1fe649286651ece65381ffffffffffffffff",
    },
    KnownGroup {
        name: "the 1024-bit MODP group with a 160-bit prime order subgroup",
        source: "RFC 5114 §2.1",
        prime_hex: "b10b8f96a080e01dde92de5eae5d54ec52c99fbcfb06a3c69a6a9dca52d23b616073e28675a23d189838ef1e2ee652c013ecb4aea906112324975c3cd49b83bfaccbdd7d90c4bd7098488e9c219a73724effd6fae5644738faa31a4ff55bccc0a151af5f0dc8b4bd45bf37df365c1a65e68cfda76d4da708df1fb2bc2e4a4371",
    },
];

impl DhGroup {
    /// The published group this prime is, if any.
    pub fn known(&self) -> Option<&'static KnownGroup> {
        let hex: String = self.prime.iter().map(|b| format!("{b:02x}")).collect();
        KNOWN_GROUPS.iter().find(|g| g.prime_hex == hex)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_base64_as_pem_writes_it() {
        assert_eq!(base64(b"TWFu").unwrap(), b"Man");
        assert_eq!(base64(b"TWE=").unwrap(), b"Ma");
        assert_eq!(base64(b"TQ==").unwrap(), b"M");
        assert!(base64(b"T!==").is_none());
    }

    #[test]
    fn the_prime_is_the_first_integer_of_the_sequence() {
        // SEQUENCE { INTEGER 0x00ff01 (a sign byte, then 16 bits), INTEGER 2 }
        let der = [0x30, 0x08, 0x02, 0x03, 0x00, 0xff, 0x01, 0x02, 0x01, 0x02];
        let g = read_der(&der).unwrap();
        assert_eq!((g.bits, g.prime.clone()), (16, vec![0xff, 0x01]));
        assert!(read_der(&[0x02, 0x01, 0x05]).is_err());
        assert!(read_der(&[0x30, 0x05, 0x02]).is_err());
        assert_eq!(read_pem(b"no block here"), Err(DhError::NoBlock));
    }

    #[test]
    fn known_primes_have_the_size_their_name_says() {
        for g in &KNOWN_GROUPS {
            let bytes = g.prime_hex.len() / 2;
            assert!(g.name.contains(&(bytes * 8).to_string()), "{}", g.name);
        }
    }
}
