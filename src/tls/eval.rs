//! The cipher-string evaluator: what `SSL_CTX_set_cipher_list` (and so `ssl_ciphers` and
//! `openssl ciphers -v`) makes of a string.
//!
//! This follows OpenSSL's `ssl/ssl_ciph.c` step by step, because the quirks are the point:
//!
//! 1. The available suites start in table order reversed (1.1.0+ sorts its table by id, so
//!    that is descending id), then a fixed sequence of rules sorts them by preference
//!    (ECDHE first, AEAD first, MD5/anonymous/RSA-kx/PSK/RC4 last, by strength …) and
//!    disables them all, keeping that order.
//! 2. The string is read element by element. An element is an optional operator (`!` kill,
//!    `-` delete, `+` move to the end, `@` command, none = add) and words joined by `+`
//!    (AND). A word that names neither a suite nor a keyword makes OpenSSL skip the rest of
//!    the element up to the next separator (`:`, `,`, `;` or space) — silently, which is
//!    why `FOO!ADH` does *not* kill ADH. After a known word, the next character starts a new
//!    element, which is why `!kEDH!ADH` is two rules.
//! 3. Adding appends suites not yet active at the end; deleting moves them to the front,
//!    inactive, so a later add brings them back in their old order; killing removes them
//!    for good; `+` moves active ones to the end; `@STRENGTH` sorts the active ones by
//!    strength, stably.
//! 4. The string fails ("no cipher match") only when no TLS ≤ 1.2 suite is left; unknown
//!    words are otherwise ignored. A character that can start no word where one is needed,
//!    or an unknown `@` command, fails with "invalid command".
//! 5. 1.1.1+ put the default TLS 1.3 suites in front; the cipher string cannot change them.
//!
//! Nothing here filters by security level: `openssl ciphers -v` does not either (only `-s`
//! does); [`Expansion::seclevel`] reports an `@SECLEVEL=n` and [`permitted_at_seclevel`]
//! answers what a server at that level would actually negotiate.

use super::table::{class, Au, Avail, Enc, Kx, Mac, Proto, Suite, SUITES};
use super::OpenSslVersion;
use std::fmt;
use std::sync::OnceLock;

/// What a cipher string expands to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expansion {
    /// The suites in preference order, as `openssl ciphers -v` lists them (TLS 1.3 first on
    /// 1.1.1+).
    pub suites: Vec<&'static Suite>,
    /// Words OpenSSL did not recognise and ignored, in order of first appearance. Includes
    /// names valid in other versions (`RC4` on 3.0, `CBC` on 1.1.1).
    pub unknown: Vec<String>,
    /// Elements OpenSSL discarded whole: those with an unknown word, and `A+B` combinations
    /// that can match nothing (`kRSA+kDHE`). Anything glued to them without a separator is
    /// discarded too (`FOO!ADH` drops the `!ADH`).
    pub ignored: Vec<String>,
    /// The last `@SECLEVEL=n`, if any. It does not change the list (see the module docs).
    pub seclevel: Option<u8>,
}

/// Why OpenSSL refuses a cipher string.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CipherError {
    /// `no cipher match`: nothing usable for TLS ≤ 1.2 is selected. Carries the ignored
    /// words, which usually explain why.
    NoCipherMatch { unknown: Vec<String> },
    /// `invalid command`: at byte `offset` OpenSSL needed a word and found `found` (`None`:
    /// the end of the string), or `@` named no command it knows.
    InvalidCommand { offset: usize, found: Option<char> },
}

impl fmt::Display for CipherError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CipherError::NoCipherMatch { unknown } if unknown.is_empty() => {
                f.write_str("no cipher match")
            }
            CipherError::NoCipherMatch { unknown } => {
                write!(f, "no cipher match (ignored: {})", unknown.join(", "))
            }
            CipherError::InvalidCommand {
                offset,
                found: Some(c),
            } => write!(f, "invalid command: unexpected {c:?} at byte {offset}"),
            CipherError::InvalidCommand {
                offset,
                found: None,
            } => {
                write!(f, "invalid command: unexpected end at byte {offset}")
            }
        }
    }
}

impl std::error::Error for CipherError {}

/// Expands `spec` the way `version`'s `openssl ciphers -v 'spec'` lists it.
pub fn expand(spec: &str, version: OpenSslVersion) -> Result<Expansion, CipherError> {
    let dialect = Dialect::of(version);
    let mut ev = Evaluator::new(dialect);

    // SUITEB* replace the whole string (check_suiteb_cipher_list), before DEFAULT.
    let mut rule = spec;
    for (prefix, replacement) in SUITEB {
        if spec.starts_with(prefix) {
            rule = replacement;
            ev.record = false;
            break;
        }
    }
    let mut base = 0;
    if let Some(rest) = rule.strip_prefix("DEFAULT") {
        let record = ev.record;
        ev.record = false;
        ev.process(dialect.default_list, 0)?;
        ev.record = record;
        base = 7;
        rule = rest;
        if let Some(rest) = rule.strip_prefix(':') {
            rule = rest;
            base += 1;
        }
    }
    if !rule.is_empty() {
        ev.process(rule, base)?;
    }

    let tls12: Vec<&'static Suite> = ev
        .list
        .iter()
        .filter(|e| e.active)
        .map(|e| e.suite)
        .collect();
    if tls12.is_empty() {
        return Err(CipherError::NoCipherMatch {
            unknown: ev.unknown,
        });
    }
    let mut suites: Vec<&'static Suite> = Vec::with_capacity(tls12.len() + 3);
    if version.modern() {
        suites.extend(TLS13_DEFAULT.iter().filter_map(|n| super::by_name(n)));
    }
    suites.extend(tls12);
    Ok(Expansion {
        suites,
        unknown: ev.unknown,
        ignored: ev.ignored,
        seclevel: ev.seclevel,
    })
}

/// The versions whose OpenSSL recognises `word` in a cipher string (as a keyword or as
/// the name of a suite its default build has). Empty for a typo or a GOST keyword.
pub fn recognised_in(word: &str) -> Vec<OpenSslVersion> {
    OpenSslVersion::ALL
        .into_iter()
        .filter(|&v| {
            let d = Dialect::of(v);
            let suite = SUITES
                .iter()
                .any(|s| !s.is_tls13() && s.available_in(v) && s.name_in(v) == word);
            suite
                || d.aliases
                    .iter()
                    .any(|a| a.name == word && d.has_alias(a) && d.alias_enabled(a))
        })
        .collect()
}

/// The TLS 1.3 suites 1.1.1+ enable by default (`TLS_DEFAULT_CIPHERSUITES`), in order.
pub const TLS13_DEFAULT: [&str; 3] = [
    "TLS_AES_256_GCM_SHA384",
    "TLS_CHACHA20_POLY1305_SHA256",
    "TLS_AES_128_GCM_SHA256",
];

/// `check_suiteb_cipher_list`: a string starting with one of these is replaced whole.
const SUITEB: [(&str, &str); 4] = [
    ("SUITEB128ONLY", "ECDHE-ECDSA-AES128-GCM-SHA256"),
    ("SUITEB128C2", "ECDHE-ECDSA-AES256-GCM-SHA384"),
    (
        "SUITEB128",
        "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384",
    ),
    ("SUITEB192", "ECDHE-ECDSA-AES256-GCM-SHA384"),
];

/// Whether a server at security level `level` (0-5) may use `suite`: OpenSSL's
/// `ssl_security_default_callback` for `SSL_SECOP_CIPHER_SUPPORTED` (1.1.0+), which is what
/// `openssl ciphers -s` and a handshake apply, and `openssl ciphers -v` does not.
/// Debian's OpenSSL 3.0 defaults to level 2. PSK and SRP suites additionally need a
/// callback that nginx never sets, so a server cannot use them at any level.
pub fn permitted_at_seclevel(suite: &Suite, level: u8) -> bool {
    const MINBITS: [u16; 6] = [0, 80, 112, 128, 192, 256];
    let Some(&minbits) = MINBITS.get(usize::from(level)) else {
        return false;
    };
    if level == 0 {
        return true;
    }
    if suite.strength_bits < minbits || suite.au == Au::Null || suite.mac == Mac::Md5 {
        return false;
    }
    if minbits > 160 && suite.mac == Mac::Sha1 {
        return false;
    }
    if level >= 2 && suite.enc == Enc::Rc4 {
        return false;
    }
    let pfs = matches!(suite.kx, Kx::Dhe | Kx::Ecdhe | Kx::DhePsk | Kx::EcdhePsk);
    !(level >= 3 && !suite.is_tls13() && !pfs)
}

impl Suite {
    /// Whether `version`'s default build has this suite.
    pub fn available_in(&self, version: OpenSslVersion) -> bool {
        if self.is_tls13() {
            return version.modern();
        }
        match version {
            OpenSslVersion::V1_0_2 => self.legacy.is_some_and(|l| l.avail == Avail::Default),
            OpenSslVersion::V1_1_1 => self.modern.is_some_and(|p| p.avail != Avail::WeakBuild),
            OpenSslVersion::V3_0 => self.modern.is_some_and(|p| p.avail == Avail::Default),
        }
    }

    /// The name `version` uses (1.0.2 spells two suites `EDH-…`).
    pub fn name_in(&self, version: OpenSslVersion) -> &'static str {
        match (version, self.legacy) {
            (OpenSslVersion::V1_0_2, Some(l)) => l.name,
            _ => self.name,
        }
    }

    /// The protocol column `version` prints (`None` if its table lacks the suite).
    pub fn protocol_in(&self, version: OpenSslVersion) -> Option<Proto> {
        if version.modern() {
            self.modern.map(|p| p.proto)
        } else {
            self.legacy.map(|l| l.proto)
        }
    }

    /// The [`class`] bits `version`'s table gives the suite (1.0.2 with the derived
    /// `NOT_EXP`), or 0 if it lacks the suite.
    pub fn class_in(&self, version: OpenSslVersion) -> u16 {
        if version.modern() {
            self.modern.map_or(0, |p| p.flags)
        } else {
            self.legacy.map_or(0, |l| {
                if l.flags & class::EXPORT == 0 {
                    l.flags | class::NOT_EXP
                } else {
                    l.flags
                }
            })
        }
    }

    /// The suite's line in `version`'s `openssl ciphers -v` (`SSL_CIPHER_description`),
    /// without the newline, padding included.
    pub fn describe(&self, version: OpenSslVersion) -> String {
        let proto = self.protocol_in(version).unwrap_or(Proto::Tls12).label();
        let (kx, au, enc, mac) = (
            self.kx.label(),
            self.au.label(),
            self.enc.label(),
            self.mac.label(),
        );
        match version {
            OpenSslVersion::V3_0 => format!(
                "{:<30} {proto:<7} Kx={kx:<8} Au={au:<5} Enc={enc:<22} Mac={mac:<4}",
                self.name
            ),
            OpenSslVersion::V1_1_1 => format!(
                "{:<23} {proto} Kx={kx:<8} Au={au:<4} Enc={enc:<9} Mac={mac:<4}",
                self.name
            ),
            OpenSslVersion::V1_0_2 => {
                let flags = self.legacy.map_or(0, |l| l.flags);
                let (kx, enc, export) = if flags & class::EXPORT != 0 {
                    let forty = flags & class::EXP40 != 0;
                    let kx = match (self.kx, forty) {
                        (Kx::Rsa, true) => "RSA(512)",
                        (Kx::Rsa, false) => "RSA(1024)",
                        (Kx::Dhe, true) => "DH(512)",
                        (Kx::Dhe, false) => "DH(1024)",
                        _ => kx,
                    };
                    let enc = match (self.enc, forty) {
                        (Enc::Des, true) => "DES(40)",
                        (Enc::Rc4, true) => "RC4(40)",
                        (Enc::Rc4, false) => "RC4(56)",
                        (Enc::Rc2, true) => "RC2(40)",
                        (Enc::Rc2, false) => "RC2(56)",
                        _ => enc,
                    };
                    (kx, enc, " export")
                } else {
                    (kx, enc, "")
                };
                format!(
                    "{:<23} {proto} Kx={kx:<8} Au={au:<4} Enc={enc:<9} Mac={mac:<4}{export}",
                    self.name_in(version)
                )
            }
        }
    }
}

/// One version's vocabulary and defaults.
#[derive(Clone, Copy)]
struct Dialect {
    version: OpenSslVersion,
    aliases: &'static [Alias],
    /// Ciphers whose EVP implementation the build cannot fetch (`disabled_enc_mask`):
    /// keywords naming only these are unknown words, not empty selections.
    disabled_enc: u32,
    /// What a leading `DEFAULT` expands to.
    default_list: &'static str,
}

impl Dialect {
    fn of(version: OpenSslVersion) -> Dialect {
        match version {
            OpenSslVersion::V1_0_2 => Dialect {
                version,
                aliases: LEGACY_ALIASES,
                disabled_enc: 0,
                default_list: "ALL:!EXPORT:!LOW:!aNULL:!eNULL:!SSLv2",
            },
            OpenSslVersion::V1_1_1 => Dialect {
                version,
                aliases: MODERN_ALIASES,
                disabled_enc: 0,
                default_list: "ALL:!COMPLEMENTOFDEFAULT:!eNULL",
            },
            OpenSslVersion::V3_0 => Dialect {
                version,
                aliases: MODERN_ALIASES,
                // Only the legacy provider has these.
                disabled_enc: Enc::Des.bit()
                    | Enc::Rc4.bit()
                    | Enc::Rc2.bit()
                    | Enc::Idea.bit()
                    | Enc::Seed.bit(),
                default_list: "ALL:!COMPLEMENTOFDEFAULT:!eNULL",
            },
        }
    }

    fn legacy(self) -> bool {
        self.version == OpenSslVersion::V1_0_2
    }

    /// `SSL_STRONG_MASK`.
    fn strong_mask(self) -> u16 {
        use class::*;
        if self.legacy() {
            STRONG_NONE | EXP40 | EXP56 | LOW | MEDIUM | HIGH | FIPS
        } else {
            STRONG_NONE | LOW | MEDIUM | HIGH | FIPS
        }
    }

    /// 1.0.2's `SSL_EXP_MASK` (`NOT_EXP | EXPORT`); 1.1.0+ has none.
    fn exp_mask(self) -> u16 {
        if self.legacy() {
            class::NOT_EXP | class::EXPORT
        } else {
            0
        }
    }

    /// `ssl_cipher_collect_aliases`: a keyword exists only if every algorithm field it
    /// names has something enabled.
    fn alias_enabled(self, a: &Alias) -> bool {
        a.enc == 0 || a.enc & !self.disabled_enc != 0
    }

    /// `alias.version`: whether the keyword is in this version's table at all.
    fn has_alias(self, a: &Alias) -> bool {
        match a.since {
            Since::Always => true,
            Since::V3_0 => self.version == OpenSslVersion::V3_0,
        }
    }
}

/// The rule actions of `ssl_cipher_apply_rule`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    Add,
    Kill,
    Del,
    Ord,
    /// Only in the built-in ordering: move to the front, staying active.
    Bump,
}

/// A selection: the AND of the words of one element, as OpenSSL accumulates it into the
/// arguments of `ssl_cipher_apply_rule`. Zero means "any".
#[derive(Clone, Copy, Debug, Default)]
struct Pattern {
    id: Option<u16>,
    kx: u32,
    au: u32,
    enc: u32,
    mac: u32,
    proto: u32,
    strength: u16,
}

/// One node of OpenSSL's `CIPHER_ORDER` list.
#[derive(Clone, Copy)]
struct Node {
    suite: &'static Suite,
    proto: u32,
    class: u16,
    active: bool,
}

struct Evaluator {
    dialect: Dialect,
    list: Vec<Node>,
    /// Every suite of the build, for name lookup: OpenSSL resolves names against the
    /// list as it was before the string, so a killed suite's name is still known.
    avail: Vec<Node>,
    unknown: Vec<String>,
    ignored: Vec<String>,
    seclevel: Option<u8>,
    /// Whether unknown words are recorded (not while expanding `DEFAULT` or `SUITEB*`).
    record: bool,
}

impl Evaluator {
    fn new(dialect: Dialect) -> Evaluator {
        // The starting list only depends on the version: build it once.
        static START: [OnceLock<Vec<Node>>; 3] = [const { OnceLock::new() }; 3];
        let slot = match dialect.version {
            OpenSslVersion::V1_0_2 => 0,
            OpenSslVersion::V1_1_1 => 1,
            OpenSslVersion::V3_0 => 2,
        };
        let list = START[slot].get_or_init(|| Self::start(dialect)).clone();
        Evaluator {
            dialect,
            avail: list.clone(),
            list,
            unknown: Vec::new(),
            ignored: Vec::new(),
            seclevel: None,
            record: true,
        }
    }

    /// The build's suites in OpenSSL's preference order, all inactive.
    fn start(dialect: Dialect) -> Vec<Node> {
        let version = dialect.version;
        let mut avail: Vec<&'static Suite> = SUITES
            .iter()
            .filter(|s| !s.is_tls13() && s.available_in(version))
            .collect();
        // The initial list is the method's cipher table read backwards: 1.1.0+ sorted the
        // table by id at start-up, 1.0.2 uses the declaration order.
        if dialect.legacy() {
            avail.sort_by_key(|s| std::cmp::Reverse(s.legacy.map_or(0, |l| l.decl)));
        } else {
            avail.sort_by_key(|s| std::cmp::Reverse(s.id));
        }
        let list: Vec<Node> = avail
            .into_iter()
            .map(|suite| Node {
                suite,
                proto: suite.protocol_in(version).map_or(0, Proto::bit),
                class: suite.class_in(version),
                active: false,
            })
            .collect();
        let mut ev = Evaluator {
            dialect,
            avail: Vec::new(),
            list,
            unknown: Vec::new(),
            ignored: Vec::new(),
            seclevel: None,
            record: false,
        };
        ev.initial_order();
        ev.list
    }

    /// The preference order `ssl_create_cipher_list` builds before reading the string.
    fn initial_order(&mut self) {
        let kx = |k: u32| Pattern {
            kx: k,
            ..Pattern::default()
        };
        let enc = |e: u32| Pattern {
            enc: e,
            ..Pattern::default()
        };
        let mac = |m: u32| Pattern {
            mac: m,
            ..Pattern::default()
        };
        let au = |a: u32| Pattern {
            au: a,
            ..Pattern::default()
        };
        let any = Pattern::default();
        let legacy = self.dialect.legacy();
        // Prefer ECDHE (1.1.0+: and ECDSA over RSA within it).
        if !legacy {
            let ecdhe_ecdsa = Pattern {
                kx: Kx::Ecdhe.bit(),
                au: Au::Ecdsa.bit(),
                ..Pattern::default()
            };
            self.apply(&ecdhe_ecdsa, Op::Add);
        }
        self.apply(&kx(Kx::Ecdhe.bit()), Op::Add);
        self.apply(&kx(Kx::Ecdhe.bit()), Op::Del);
        if legacy {
            self.apply(&enc(AES), Op::Add);
        } else {
            // GCM before ChaCha20 before other AES before the rest.
            self.apply(&enc(AESGCM), Op::Add);
            self.apply(&enc(Enc::Chacha20Poly1305.bit()), Op::Add);
            self.apply(&enc(AES & !AESGCM), Op::Add);
        }
        self.apply(&any, Op::Add);
        // Weak or unauthenticated suites to the end, the same in every version but for
        // the algorithms only 1.0.2 has.
        self.apply(&mac(Mac::Md5.bit()), Op::Ord);
        self.apply(&au(Au::Null.bit()), Op::Ord);
        if legacy {
            // "Move ciphers without forward secrecy to the end" (fixed ECDH only).
            self.apply(&au(Au::Ecdh.bit()), Op::Ord);
        }
        self.apply(&kx(Kx::Rsa.bit()), Op::Ord);
        self.apply(&kx(Kx::Psk.bit()), Op::Ord);
        if legacy {
            self.apply(&kx(Kx::Krb5.bit()), Op::Ord);
        }
        self.apply(&enc(Enc::Rc4.bit()), Op::Ord);
        self.strength_sort();
        if !legacy {
            // Then, regardless of strength: (EC)DHE+AEAD > (EC)DHE > AEAD > TLS 1.2 > rest.
            let tls12 = Pattern {
                proto: Proto::Tls12.bit(),
                ..Pattern::default()
            };
            self.apply(&tls12, Op::Bump);
            self.apply(&mac(Mac::Aead.bit()), Op::Bump);
            let fs = Kx::Dhe.bit() | Kx::Ecdhe.bit();
            self.apply(&kx(fs), Op::Bump);
            let fs_aead = Pattern {
                kx: fs,
                mac: Mac::Aead.bit(),
                ..Pattern::default()
            };
            self.apply(&fs_aead, Op::Bump);
        }
        self.apply(&any, Op::Del);
    }

    fn matches(&self, p: &Pattern, n: &Node) -> bool {
        let s = n.suite;
        if let Some(id) = p.id {
            if id != s.id {
                return false;
            }
        }
        if (p.kx != 0 && p.kx & s.kx.bit() == 0)
            || (p.au != 0 && p.au & s.au.bit() == 0)
            || (p.enc != 0 && p.enc & s.enc.bit() == 0)
            || (p.mac != 0 && p.mac & s.mac.bit() == 0)
            || (p.proto != 0 && p.proto & n.proto == 0)
        {
            return false;
        }
        let d = self.dialect;
        for mask in [d.exp_mask(), d.strong_mask(), class::NOT_DEFAULT] {
            if p.strength & mask != 0 && p.strength & mask & n.class == 0 {
                return false;
            }
        }
        true
    }

    /// `ssl_cipher_apply_rule`. Each action is a stable partition of the list, which is
    /// what OpenSSL's linked-list walk amounts to.
    fn apply(&mut self, p: &Pattern, op: Op) {
        let hits: Vec<bool> = self.list.iter().map(|n| self.matches(p, n)).collect();
        self.partition(&hits, op);
    }

    fn partition(&mut self, hits: &[bool], op: Op) {
        let old = std::mem::take(&mut self.list);
        let mut stay = Vec::with_capacity(old.len());
        let mut moved = Vec::new();
        for (mut n, &hit) in old.into_iter().zip(hits) {
            match op {
                Op::Add if hit && !n.active => {
                    n.active = true;
                    moved.push(n);
                }
                Op::Ord | Op::Bump if hit && n.active => moved.push(n),
                Op::Del if hit && n.active => {
                    n.active = false;
                    moved.push(n);
                }
                Op::Kill if hit => {}
                _ => stay.push(n),
            }
        }
        self.list = match op {
            // Appended at the tail.
            Op::Add | Op::Ord => stay.into_iter().chain(moved).collect(),
            // Prepended at the head (walking backwards keeps their order).
            Op::Del | Op::Bump => moved.into_iter().chain(stay).collect(),
            Op::Kill => stay,
        };
    }

    /// `ssl_cipher_strength_sort`: for each strength present, strongest first, move the
    /// active suites with it to the end.
    fn strength_sort(&mut self) {
        let mut strengths: Vec<u16> = self
            .list
            .iter()
            .filter(|n| n.active)
            .map(|n| n.suite.strength_bits)
            .collect();
        strengths.sort_unstable_by(|a, b| b.cmp(a));
        strengths.dedup();
        for bits in strengths {
            let hits: Vec<bool> = self
                .list
                .iter()
                .map(|n| n.suite.strength_bits == bits)
                .collect();
            self.partition(&hits, Op::Ord);
        }
    }

    /// `ssl_cipher_process_rulestr`. `base` is where `rule` starts in the user's string, for
    /// error offsets.
    fn process(&mut self, rule: &str, base: usize) -> Result<(), CipherError> {
        let bytes = rule.as_bytes();
        let legacy = self.dialect.legacy();
        let is_word =
            |c: u8| c.is_ascii_alphanumeric() || c == b'-' || c == b'.' || (c == b'=' && !legacy);
        let invalid = |at: usize| CipherError::InvalidCommand {
            offset: base + at,
            found: rule.get(at..).and_then(|r| r.chars().next()),
        };
        let mut i = 0;
        while i < bytes.len() {
            let start = i;
            let ch = bytes[i];
            // `None` is an `@` command.
            let op = match ch {
                b'-' => Some(Op::Del),
                b'+' => Some(Op::Ord),
                b'!' => Some(Op::Kill),
                b'@' => None,
                _ => Some(Op::Add),
            };
            if matches!(ch, b'-' | b'+' | b'!' | b'@') {
                i += 1;
            } else if is_sep(ch) {
                i += 1;
                continue;
            }

            let mut pat = Pattern::default();
            let mut found = false;
            let mut word;
            loop {
                let w0 = i;
                while i < bytes.len() && is_word(bytes[i]) {
                    i += 1;
                }
                if i == w0 {
                    return Err(invalid(i));
                }
                word = (w0, i);
                if op.is_none() {
                    break;
                }
                let multi = bytes.get(i) == Some(&b'+');
                if multi {
                    i += 1;
                }
                let name = &rule[w0..word.1];
                found = match self.lookup(name) {
                    Some(selector) => self.combine(&mut pat, &selector),
                    None => {
                        if self.record && !self.unknown.iter().any(|u| u == name) {
                            self.unknown.push(name.to_string());
                        }
                        false
                    }
                };
                if !found || !multi {
                    break;
                }
            }

            match op {
                None => {
                    let cmd = &rule[word.0..word.1];
                    if cmd == "STRENGTH" {
                        self.strength_sort();
                    } else if let Some(level) = cmd
                        .strip_prefix("SECLEVEL=")
                        .filter(|_| !legacy)
                        .and_then(|l| l.parse::<u8>().ok())
                        .filter(|l| *l <= 5 && cmd.len() == 10)
                    {
                        self.seclevel = Some(level);
                    } else {
                        return Err(invalid(word.0));
                    }
                    // "@" takes no `+` parts: the rest of the element is thrown away.
                    i = skip_to_sep(bytes, i);
                }
                Some(op) if found => self.apply(&pat, op),
                Some(_) => {
                    i = skip_to_sep(bytes, i);
                    if self.record {
                        self.ignored.push(rule[start..i].to_string());
                    }
                }
            }
        }
        Ok(())
    }

    /// What a word names: a suite available in this build, or a keyword.
    fn lookup(&self, name: &str) -> Option<Selector> {
        let version = self.dialect.version;
        if let Some(n) = self.avail.iter().find(|n| n.suite.name_in(version) == name) {
            return Some(Selector::Suite(*n));
        }
        self.dialect
            .aliases
            .iter()
            .find(|a| a.name == name && self.dialect.has_alias(a) && self.dialect.alias_enabled(a))
            .map(Selector::Alias)
    }

    /// Folds one word into the element's pattern like `ssl_cipher_process_rulestr`: each
    /// algorithm field is ANDed; an empty result makes the whole element match nothing,
    /// which OpenSSL treats as "not found". Returns whether the element is still alive.
    fn combine(&self, pat: &mut Pattern, sel: &Selector) -> bool {
        let legacy = self.dialect.legacy();
        let (kx, au, enc, mac, strength) = match sel {
            Selector::Suite(n) => (
                n.suite.kx.bit(),
                n.suite.au.bit(),
                n.suite.enc.bit(),
                n.suite.mac.bit(),
                n.class,
            ),
            Selector::Alias(a) => (a.kx, a.au, a.enc, a.mac, a.strength),
        };
        for (acc, m) in [
            (&mut pat.kx, kx),
            (&mut pat.au, au),
            (&mut pat.enc, enc),
            (&mut pat.mac, mac),
        ] {
            if m != 0 {
                *acc = if *acc != 0 { *acc & m } else { m };
                if *acc == 0 {
                    return false;
                }
            }
        }
        let exp = self.dialect.exp_mask();
        if strength & exp != 0 {
            if pat.strength & exp != 0 {
                pat.strength &= (strength & exp) | !exp;
                if pat.strength & exp == 0 {
                    return false;
                }
            } else {
                pat.strength |= strength & exp;
            }
        }
        let strong = self.dialect.strong_mask();
        if strength & strong != 0 {
            if pat.strength & strong != 0 {
                pat.strength &= (strength & strong) | !strong;
                if pat.strength & strong == 0 {
                    return false;
                }
            } else if legacy {
                pat.strength |= strength & strong;
            } else {
                // 1.1.0+ assigns here, dropping a NOT_DEFAULT from an earlier word:
                // `COMPLEMENTOFDEFAULT+HIGH` is just `HIGH`.
                pat.strength = strength & strong;
            }
        }
        if strength & class::NOT_DEFAULT != 0 {
            pat.strength |= class::NOT_DEFAULT;
        }
        match sel {
            Selector::Suite(n) => {
                // 1.1.0+ select the suite itself (the id of the last word only, if that
                // word is a suite); 1.0.2 only compiles the id check in debug builds.
                pat.id = (!legacy).then_some(n.suite.id);
            }
            Selector::Alias(a) => {
                pat.id = None;
                if a.proto != 0 {
                    pat.proto = if pat.proto != 0 {
                        pat.proto & a.proto
                    } else {
                        a.proto
                    };
                    if pat.proto == 0 {
                        return false;
                    }
                }
            }
        }
        true
    }
}

fn is_sep(c: u8) -> bool {
    matches!(c, b':' | b' ' | b';' | b',')
}

fn skip_to_sep(bytes: &[u8], mut i: usize) -> usize {
    while i < bytes.len() && !is_sep(bytes[i]) {
        i += 1;
    }
    i
}

enum Selector {
    Suite(Node),
    Alias(&'static Alias),
}

/// Which versions' `cipher_aliases[]` have a keyword.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Since {
    Always,
    V3_0,
}

/// A keyword (`cipher_aliases[]` entry): masks as in [`Pattern`].
#[derive(Clone, Copy, Debug)]
struct Alias {
    name: &'static str,
    kx: u32,
    au: u32,
    enc: u32,
    mac: u32,
    proto: u32,
    strength: u16,
    since: Since,
}

const fn a(name: &'static str) -> Alias {
    Alias {
        name,
        kx: 0,
        au: 0,
        enc: 0,
        mac: 0,
        proto: 0,
        strength: 0,
        since: Since::Always,
    }
}

impl Alias {
    const fn kx(mut self, m: u32) -> Self {
        self.kx = m;
        self
    }
    const fn au(mut self, m: u32) -> Self {
        self.au = m;
        self
    }
    const fn enc(mut self, m: u32) -> Self {
        self.enc = m;
        self
    }
    const fn mac(mut self, m: u32) -> Self {
        self.mac = m;
        self
    }
    const fn proto(mut self, m: u32) -> Self {
        self.proto = m;
        self
    }
    const fn class(mut self, m: u16) -> Self {
        self.strength = m;
        self
    }
    const fn since_3_0(mut self) -> Self {
        self.since = Since::V3_0;
        self
    }
}

const NOT_NULL_ENC: u32 = !Enc::Null.bit();
const NOT_NULL_AU: u32 = !Au::Null.bit();
const AES128: u32 =
    Enc::Aes128.bit() | Enc::Aes128Gcm.bit() | Enc::Aes128Ccm.bit() | Enc::Aes128Ccm8.bit();
const AES256: u32 =
    Enc::Aes256.bit() | Enc::Aes256Gcm.bit() | Enc::Aes256Ccm.bit() | Enc::Aes256Ccm8.bit();
const AES: u32 = AES128 | AES256;
const AESGCM: u32 = Enc::Aes128Gcm.bit() | Enc::Aes256Gcm.bit();
const AESCCM: u32 =
    Enc::Aes128Ccm.bit() | Enc::Aes256Ccm.bit() | Enc::Aes128Ccm8.bit() | Enc::Aes256Ccm8.bit();
const CAMELLIA: u32 = Enc::Camellia128.bit() | Enc::Camellia256.bit();
const ARIA: u32 = Enc::Aria128Gcm.bit() | Enc::Aria256Gcm.bit();
const CBC: u32 = Enc::Des.bit()
    | Enc::TripleDes.bit()
    | Enc::Rc2.bit()
    | Enc::Idea.bit()
    | Enc::Aes128.bit()
    | Enc::Aes256.bit()
    | Enc::Camellia128.bit()
    | Enc::Camellia256.bit()
    | Enc::Seed.bit();
const ALL_PSK: u32 = Kx::Psk.bit() | Kx::RsaPsk.bit() | Kx::EcdhePsk.bit() | Kx::DhePsk.bit();

/// 1.1.1 and 3.0 `cipher_aliases[]`, in table order (lookup takes the first match). GOST
/// keywords are missing: no default build enables their algorithms, so OpenSSL drops them
/// from its list too and they act as unknown words.
static MODERN_ALIASES: &[Alias] = &[
    a("ALL").enc(NOT_NULL_ENC),
    a("COMPLEMENTOFALL").enc(Enc::Null.bit()),
    a("COMPLEMENTOFDEFAULT").class(class::NOT_DEFAULT),
    a("kRSA").kx(Kx::Rsa.bit()),
    a("kEDH").kx(Kx::Dhe.bit()),
    a("kDHE").kx(Kx::Dhe.bit()),
    a("DH").kx(Kx::Dhe.bit()),
    a("kEECDH").kx(Kx::Ecdhe.bit()),
    a("kECDHE").kx(Kx::Ecdhe.bit()),
    a("ECDH").kx(Kx::Ecdhe.bit()),
    a("kPSK").kx(Kx::Psk.bit()),
    a("kRSAPSK").kx(Kx::RsaPsk.bit()),
    a("kECDHEPSK").kx(Kx::EcdhePsk.bit()),
    a("kDHEPSK").kx(Kx::DhePsk.bit()),
    a("kSRP").kx(Kx::Srp.bit()),
    a("aRSA").au(Au::Rsa.bit()),
    a("aDSS").au(Au::Dss.bit()),
    a("DSS").au(Au::Dss.bit()),
    a("aNULL").au(Au::Null.bit()),
    a("aECDSA").au(Au::Ecdsa.bit()),
    a("ECDSA").au(Au::Ecdsa.bit()),
    a("aPSK").au(Au::Psk.bit()),
    a("aSRP").au(Au::Srp.bit()),
    a("EDH").kx(Kx::Dhe.bit()).au(NOT_NULL_AU),
    a("DHE").kx(Kx::Dhe.bit()).au(NOT_NULL_AU),
    a("EECDH").kx(Kx::Ecdhe.bit()).au(NOT_NULL_AU),
    a("ECDHE").kx(Kx::Ecdhe.bit()).au(NOT_NULL_AU),
    a("NULL").enc(Enc::Null.bit()),
    a("RSA").kx(Kx::Rsa.bit()).au(Au::Rsa.bit()),
    a("ADH").kx(Kx::Dhe.bit()).au(Au::Null.bit()),
    a("AECDH").kx(Kx::Ecdhe.bit()).au(Au::Null.bit()),
    a("PSK").kx(ALL_PSK),
    a("SRP").kx(Kx::Srp.bit()),
    a("3DES").enc(Enc::TripleDes.bit()),
    a("RC4").enc(Enc::Rc4.bit()),
    a("RC2").enc(Enc::Rc2.bit()),
    a("IDEA").enc(Enc::Idea.bit()),
    a("SEED").enc(Enc::Seed.bit()),
    a("eNULL").enc(Enc::Null.bit()),
    a("AES128").enc(AES128),
    a("AES256").enc(AES256),
    a("AES").enc(AES),
    a("AESGCM").enc(AESGCM),
    a("AESCCM").enc(AESCCM),
    a("AESCCM8").enc(Enc::Aes128Ccm8.bit() | Enc::Aes256Ccm8.bit()),
    a("CAMELLIA128").enc(Enc::Camellia128.bit()),
    a("CAMELLIA256").enc(Enc::Camellia256.bit()),
    a("CAMELLIA").enc(CAMELLIA),
    a("CHACHA20").enc(Enc::Chacha20Poly1305.bit()),
    a("ARIA").enc(ARIA),
    a("ARIAGCM").enc(ARIA),
    a("ARIA128").enc(Enc::Aria128Gcm.bit()),
    a("ARIA256").enc(Enc::Aria256Gcm.bit()),
    a("CBC").enc(CBC).since_3_0(),
    a("MD5").mac(Mac::Md5.bit()),
    a("SHA1").mac(Mac::Sha1.bit()),
    a("SHA").mac(Mac::Sha1.bit()),
    a("SHA256").mac(Mac::Sha256.bit()),
    a("SHA384").mac(Mac::Sha384.bit()),
    a("SSLv3").proto(Proto::Ssl3.bit()),
    a("TLSv1").proto(Proto::Tls1.bit()),
    a("TLSv1.0").proto(Proto::Tls1.bit()),
    a("TLSv1.2").proto(Proto::Tls12.bit()),
    a("LOW").class(class::LOW),
    a("MEDIUM").class(class::MEDIUM),
    a("HIGH").class(class::HIGH),
    a("FIPS").enc(NOT_NULL_ENC).class(class::FIPS),
    // Old names of the 3DES DHE suites; the masks claim HIGH, which 3DES no longer is.
    a("EDH-DSS-DES-CBC3-SHA")
        .kx(Kx::Dhe.bit())
        .au(Au::Dss.bit())
        .enc(Enc::TripleDes.bit())
        .mac(Mac::Sha1.bit())
        .class(class::HIGH | class::FIPS),
    a("EDH-RSA-DES-CBC3-SHA")
        .kx(Kx::Dhe.bit())
        .au(Au::Rsa.bit())
        .enc(Enc::TripleDes.bit())
        .mac(Mac::Sha1.bit())
        .class(class::HIGH | class::FIPS),
];

/// 1.0.2 `cipher_aliases[]` (GOST keywords left out, as above). `TLSv1` is the `SSLv3`
/// class there.
static LEGACY_ALIASES: &[Alias] = &{
    use class::{EXP40, EXP56, EXPORT, FIPS, HIGH, LOW, MEDIUM, NOT_DEFAULT, NOT_EXP};
    const DH_FIXED: u32 = Kx::DhRsa.bit() | Kx::DhDss.bit();
    const ECDH_FIXED: u32 = Kx::EcdhRsa.bit() | Kx::EcdhEcdsa.bit();
    const AES_102: u32 =
        Enc::Aes128.bit() | Enc::Aes256.bit() | Enc::Aes128Gcm.bit() | Enc::Aes256Gcm.bit();
    const fn dhe(name: &'static str, au: Au, enc: Enc, class: u16) -> Alias {
        a(name)
            .kx(Kx::Dhe.bit())
            .au(au.bit())
            .enc(enc.bit())
            .mac(Mac::Sha1.bit())
            .proto(Proto::Ssl3.bit())
            .class(class)
    }
    [
        a("ALL").enc(NOT_NULL_ENC),
        a("COMPLEMENTOFALL").enc(Enc::Null.bit()),
        a("COMPLEMENTOFDEFAULT").class(NOT_DEFAULT),
        a("kRSA").kx(Kx::Rsa.bit()),
        a("kDHr").kx(Kx::DhRsa.bit()),
        a("kDHd").kx(Kx::DhDss.bit()),
        a("kDH").kx(DH_FIXED),
        a("kEDH").kx(Kx::Dhe.bit()),
        a("kDHE").kx(Kx::Dhe.bit()),
        a("DH").kx(DH_FIXED | Kx::Dhe.bit()),
        a("kKRB5").kx(Kx::Krb5.bit()),
        a("kECDHr").kx(Kx::EcdhRsa.bit()),
        a("kECDHe").kx(Kx::EcdhEcdsa.bit()),
        a("kECDH").kx(ECDH_FIXED),
        a("kEECDH").kx(Kx::Ecdhe.bit()),
        a("kECDHE").kx(Kx::Ecdhe.bit()),
        a("ECDH").kx(ECDH_FIXED | Kx::Ecdhe.bit()),
        a("kPSK").kx(Kx::Psk.bit()),
        a("kSRP").kx(Kx::Srp.bit()),
        a("aRSA").au(Au::Rsa.bit()),
        a("aDSS").au(Au::Dss.bit()),
        a("DSS").au(Au::Dss.bit()),
        a("aKRB5").au(Au::Krb5.bit()),
        a("aNULL").au(Au::Null.bit()),
        a("aDH").au(Au::Dh.bit()),
        a("aECDH").au(Au::Ecdh.bit()),
        a("aECDSA").au(Au::Ecdsa.bit()),
        a("ECDSA").au(Au::Ecdsa.bit()),
        a("aPSK").au(Au::Psk.bit()),
        a("aSRP").au(Au::Srp.bit()),
        a("EDH").kx(Kx::Dhe.bit()).au(NOT_NULL_AU),
        a("DHE").kx(Kx::Dhe.bit()).au(NOT_NULL_AU),
        a("EECDH").kx(Kx::Ecdhe.bit()).au(NOT_NULL_AU),
        a("ECDHE").kx(Kx::Ecdhe.bit()).au(NOT_NULL_AU),
        a("NULL").enc(Enc::Null.bit()),
        a("KRB5").kx(Kx::Krb5.bit()).au(Au::Krb5.bit()),
        a("RSA").kx(Kx::Rsa.bit()).au(Au::Rsa.bit()),
        a("ADH").kx(Kx::Dhe.bit()).au(Au::Null.bit()),
        a("AECDH").kx(Kx::Ecdhe.bit()).au(Au::Null.bit()),
        a("PSK").kx(Kx::Psk.bit()).au(Au::Psk.bit()),
        a("SRP").kx(Kx::Srp.bit()),
        a("DES").enc(Enc::Des.bit()),
        a("3DES").enc(Enc::TripleDes.bit()),
        a("RC4").enc(Enc::Rc4.bit()),
        a("RC2").enc(Enc::Rc2.bit()),
        a("IDEA").enc(Enc::Idea.bit()),
        a("SEED").enc(Enc::Seed.bit()),
        a("eNULL").enc(Enc::Null.bit()),
        a("AES128").enc(Enc::Aes128.bit() | Enc::Aes128Gcm.bit()),
        a("AES256").enc(Enc::Aes256.bit() | Enc::Aes256Gcm.bit()),
        a("AES").enc(AES_102),
        a("AESGCM").enc(AESGCM),
        a("CAMELLIA128").enc(Enc::Camellia128.bit()),
        a("CAMELLIA256").enc(Enc::Camellia256.bit()),
        a("CAMELLIA").enc(CAMELLIA),
        a("MD5").mac(Mac::Md5.bit()),
        a("SHA1").mac(Mac::Sha1.bit()),
        a("SHA").mac(Mac::Sha1.bit()),
        a("SHA256").mac(Mac::Sha256.bit()),
        a("SHA384").mac(Mac::Sha384.bit()),
        // No SSLv2 suites are built (1.0.2g+), but the keyword stays.
        a("SSLv2").proto(SSLV2),
        a("SSLv3").proto(Proto::Ssl3.bit()),
        a("TLSv1").proto(Proto::Ssl3.bit()),
        a("TLSv1.2").proto(Proto::Tls12.bit()),
        a("EXP").class(EXPORT),
        a("EXPORT").class(EXPORT),
        a("EXPORT40").class(EXP40),
        a("EXPORT56").class(EXP56),
        a("LOW").class(LOW),
        a("MEDIUM").class(MEDIUM),
        a("HIGH").class(HIGH),
        a("FIPS").enc(NOT_NULL_ENC).class(FIPS),
        // New names of the DHE DES suites, "for forward compatibility".
        dhe("EXP-DHE-DSS-DES-CBC-SHA", Au::Dss, Enc::Des, EXPORT | EXP40),
        dhe("DHE-DSS-DES-CBC-SHA", Au::Dss, Enc::Des, NOT_EXP | LOW),
        dhe(
            "DHE-DSS-DES-CBC3-SHA",
            Au::Dss,
            Enc::TripleDes,
            NOT_EXP | HIGH | FIPS,
        ),
        dhe("EXP-DHE-RSA-DES-CBC-SHA", Au::Rsa, Enc::Des, EXPORT | EXP40),
        dhe("DHE-RSA-DES-CBC-SHA", Au::Rsa, Enc::Des, NOT_EXP | LOW),
        dhe(
            "DHE-RSA-DES-CBC3-SHA",
            Au::Rsa,
            Enc::TripleDes,
            NOT_EXP | HIGH | FIPS,
        ),
    ]
};

/// 1.0.2's `SSL_SSLV2` protocol bit: no [`Proto`] value (no SSLv2 suite is modelled).
const SSLV2: u32 = 1 << 31;

#[cfg(test)]
mod tests {
    use super::*;
    use OpenSslVersion::{V1_0_2, V1_1_1, V3_0};

    const SEED: &str = "ALL:!kEDH!ADH:RC4+RSA:+HIGH:+MEDIUM:+LOW:+SSLv2:+EXP";

    /// Appendix A of the domain notes: OpenSSL 1.0.2n, `openssl ciphers -v SEED`.
    const APPENDIX_A: &str = "\
ECDHE-RSA-AES256-GCM-SHA384 TLSv1.2 Kx=ECDH     Au=RSA  Enc=AESGCM(256) Mac=AEAD\n\
ECDHE-ECDSA-AES256-GCM-SHA384 TLSv1.2 Kx=ECDH     Au=ECDSA Enc=AESGCM(256) Mac=AEAD\n\
ECDHE-RSA-AES256-SHA384 TLSv1.2 Kx=ECDH     Au=RSA  Enc=AES(256)  Mac=SHA384\n\
ECDHE-ECDSA-AES256-SHA384 TLSv1.2 Kx=ECDH     Au=ECDSA Enc=AES(256)  Mac=SHA384\n\
ECDHE-RSA-AES256-SHA    SSLv3 Kx=ECDH     Au=RSA  Enc=AES(256)  Mac=SHA1\n\
ECDHE-ECDSA-AES256-SHA  SSLv3 Kx=ECDH     Au=ECDSA Enc=AES(256)  Mac=SHA1\n\
SRP-DSS-AES-256-CBC-SHA SSLv3 Kx=SRP      Au=DSS  Enc=AES(256)  Mac=SHA1\n\
SRP-RSA-AES-256-CBC-SHA SSLv3 Kx=SRP      Au=RSA  Enc=AES(256)  Mac=SHA1\n\
SRP-AES-256-CBC-SHA     SSLv3 Kx=SRP      Au=SRP  Enc=AES(256)  Mac=SHA1\n\
DH-DSS-AES256-GCM-SHA384 TLSv1.2 Kx=DH/DSS   Au=DH   Enc=AESGCM(256) Mac=AEAD\n\
DH-RSA-AES256-GCM-SHA384 TLSv1.2 Kx=DH/RSA   Au=DH   Enc=AESGCM(256) Mac=AEAD\n\
DH-RSA-AES256-SHA256    TLSv1.2 Kx=DH/RSA   Au=DH   Enc=AES(256)  Mac=SHA256\n\
DH-DSS-AES256-SHA256    TLSv1.2 Kx=DH/DSS   Au=DH   Enc=AES(256)  Mac=SHA256\n\
DH-RSA-AES256-SHA       SSLv3 Kx=DH/RSA   Au=DH   Enc=AES(256)  Mac=SHA1\n\
DH-DSS-AES256-SHA       SSLv3 Kx=DH/DSS   Au=DH   Enc=AES(256)  Mac=SHA1\n\
DH-RSA-CAMELLIA256-SHA  SSLv3 Kx=DH/RSA   Au=DH   Enc=Camellia(256) Mac=SHA1\n\
DH-DSS-CAMELLIA256-SHA  SSLv3 Kx=DH/DSS   Au=DH   Enc=Camellia(256) Mac=SHA1\n\
AECDH-AES256-SHA        SSLv3 Kx=ECDH     Au=None Enc=AES(256)  Mac=SHA1\n\
ECDH-RSA-AES256-GCM-SHA384 TLSv1.2 Kx=ECDH/RSA Au=ECDH Enc=AESGCM(256) Mac=AEAD\n\
ECDH-ECDSA-AES256-GCM-SHA384 TLSv1.2 Kx=ECDH/ECDSA Au=ECDH Enc=AESGCM(256) Mac=AEAD\n\
ECDH-RSA-AES256-SHA384  TLSv1.2 Kx=ECDH/RSA Au=ECDH Enc=AES(256)  Mac=SHA384\n\
ECDH-ECDSA-AES256-SHA384 TLSv1.2 Kx=ECDH/ECDSA Au=ECDH Enc=AES(256)  Mac=SHA384\n\
ECDH-RSA-AES256-SHA     SSLv3 Kx=ECDH/RSA Au=ECDH Enc=AES(256)  Mac=SHA1\n\
ECDH-ECDSA-AES256-SHA   SSLv3 Kx=ECDH/ECDSA Au=ECDH Enc=AES(256)  Mac=SHA1\n\
AES256-GCM-SHA384       TLSv1.2 Kx=RSA      Au=RSA  Enc=AESGCM(256) Mac=AEAD\n\
AES256-SHA256           TLSv1.2 Kx=RSA      Au=RSA  Enc=AES(256)  Mac=SHA256\n\
AES256-SHA              SSLv3 Kx=RSA      Au=RSA  Enc=AES(256)  Mac=SHA1\n\
CAMELLIA256-SHA         SSLv3 Kx=RSA      Au=RSA  Enc=Camellia(256) Mac=SHA1\n\
PSK-AES256-CBC-SHA      SSLv3 Kx=PSK      Au=PSK  Enc=AES(256)  Mac=SHA1\n\
ECDHE-RSA-AES128-GCM-SHA256 TLSv1.2 Kx=ECDH     Au=RSA  Enc=AESGCM(128) Mac=AEAD\n\
ECDHE-ECDSA-AES128-GCM-SHA256 TLSv1.2 Kx=ECDH     Au=ECDSA Enc=AESGCM(128) Mac=AEAD\n\
ECDHE-RSA-AES128-SHA256 TLSv1.2 Kx=ECDH     Au=RSA  Enc=AES(128)  Mac=SHA256\n\
ECDHE-ECDSA-AES128-SHA256 TLSv1.2 Kx=ECDH     Au=ECDSA Enc=AES(128)  Mac=SHA256\n\
ECDHE-RSA-AES128-SHA    SSLv3 Kx=ECDH     Au=RSA  Enc=AES(128)  Mac=SHA1\n\
ECDHE-ECDSA-AES128-SHA  SSLv3 Kx=ECDH     Au=ECDSA Enc=AES(128)  Mac=SHA1\n\
SRP-DSS-AES-128-CBC-SHA SSLv3 Kx=SRP      Au=DSS  Enc=AES(128)  Mac=SHA1\n\
SRP-RSA-AES-128-CBC-SHA SSLv3 Kx=SRP      Au=RSA  Enc=AES(128)  Mac=SHA1\n\
SRP-AES-128-CBC-SHA     SSLv3 Kx=SRP      Au=SRP  Enc=AES(128)  Mac=SHA1\n\
DH-DSS-AES128-GCM-SHA256 TLSv1.2 Kx=DH/DSS   Au=DH   Enc=AESGCM(128) Mac=AEAD\n\
DH-RSA-AES128-GCM-SHA256 TLSv1.2 Kx=DH/RSA   Au=DH   Enc=AESGCM(128) Mac=AEAD\n\
DH-RSA-AES128-SHA256    TLSv1.2 Kx=DH/RSA   Au=DH   Enc=AES(128)  Mac=SHA256\n\
DH-DSS-AES128-SHA256    TLSv1.2 Kx=DH/DSS   Au=DH   Enc=AES(128)  Mac=SHA256\n\
DH-RSA-AES128-SHA       SSLv3 Kx=DH/RSA   Au=DH   Enc=AES(128)  Mac=SHA1\n\
DH-DSS-AES128-SHA       SSLv3 Kx=DH/DSS   Au=DH   Enc=AES(128)  Mac=SHA1\n\
DH-RSA-CAMELLIA128-SHA  SSLv3 Kx=DH/RSA   Au=DH   Enc=Camellia(128) Mac=SHA1\n\
DH-DSS-CAMELLIA128-SHA  SSLv3 Kx=DH/DSS   Au=DH   Enc=Camellia(128) Mac=SHA1\n\
AECDH-AES128-SHA        SSLv3 Kx=ECDH     Au=None Enc=AES(128)  Mac=SHA1\n\
ECDH-RSA-AES128-GCM-SHA256 TLSv1.2 Kx=ECDH/RSA Au=ECDH Enc=AESGCM(128) Mac=AEAD\n\
ECDH-ECDSA-AES128-GCM-SHA256 TLSv1.2 Kx=ECDH/ECDSA Au=ECDH Enc=AESGCM(128) Mac=AEAD\n\
ECDH-RSA-AES128-SHA256  TLSv1.2 Kx=ECDH/RSA Au=ECDH Enc=AES(128)  Mac=SHA256\n\
ECDH-ECDSA-AES128-SHA256 TLSv1.2 Kx=ECDH/ECDSA Au=ECDH Enc=AES(128)  Mac=SHA256\n\
ECDH-RSA-AES128-SHA     SSLv3 Kx=ECDH/RSA Au=ECDH Enc=AES(128)  Mac=SHA1\n\
ECDH-ECDSA-AES128-SHA   SSLv3 Kx=ECDH/ECDSA Au=ECDH Enc=AES(128)  Mac=SHA1\n\
AES128-GCM-SHA256       TLSv1.2 Kx=RSA      Au=RSA  Enc=AESGCM(128) Mac=AEAD\n\
AES128-SHA256           TLSv1.2 Kx=RSA      Au=RSA  Enc=AES(128)  Mac=SHA256\n\
AES128-SHA              SSLv3 Kx=RSA      Au=RSA  Enc=AES(128)  Mac=SHA1\n\
CAMELLIA128-SHA         SSLv3 Kx=RSA      Au=RSA  Enc=Camellia(128) Mac=SHA1\n\
PSK-AES128-CBC-SHA      SSLv3 Kx=PSK      Au=PSK  Enc=AES(128)  Mac=SHA1\n\
DH-RSA-SEED-SHA         SSLv3 Kx=DH/RSA   Au=DH   Enc=SEED(128) Mac=SHA1\n\
DH-DSS-SEED-SHA         SSLv3 Kx=DH/DSS   Au=DH   Enc=SEED(128) Mac=SHA1\n\
SEED-SHA                SSLv3 Kx=RSA      Au=RSA  Enc=SEED(128) Mac=SHA1\n\
IDEA-CBC-SHA            SSLv3 Kx=RSA      Au=RSA  Enc=IDEA(128) Mac=SHA1\n\
KRB5-IDEA-CBC-SHA       SSLv3 Kx=KRB5     Au=KRB5 Enc=IDEA(128) Mac=SHA1\n\
KRB5-IDEA-CBC-MD5       SSLv3 Kx=KRB5     Au=KRB5 Enc=IDEA(128) Mac=MD5\n\
ECDHE-RSA-RC4-SHA       SSLv3 Kx=ECDH     Au=RSA  Enc=RC4(128)  Mac=SHA1\n\
ECDHE-ECDSA-RC4-SHA     SSLv3 Kx=ECDH     Au=ECDSA Enc=RC4(128)  Mac=SHA1\n\
AECDH-RC4-SHA           SSLv3 Kx=ECDH     Au=None Enc=RC4(128)  Mac=SHA1\n\
ECDH-RSA-RC4-SHA        SSLv3 Kx=ECDH/RSA Au=ECDH Enc=RC4(128)  Mac=SHA1\n\
ECDH-ECDSA-RC4-SHA      SSLv3 Kx=ECDH/ECDSA Au=ECDH Enc=RC4(128)  Mac=SHA1\n\
RC4-SHA                 SSLv3 Kx=RSA      Au=RSA  Enc=RC4(128)  Mac=SHA1\n\
RC4-MD5                 SSLv3 Kx=RSA      Au=RSA  Enc=RC4(128)  Mac=MD5\n\
PSK-RC4-SHA             SSLv3 Kx=PSK      Au=PSK  Enc=RC4(128)  Mac=SHA1\n\
KRB5-RC4-SHA            SSLv3 Kx=KRB5     Au=KRB5 Enc=RC4(128)  Mac=SHA1\n\
KRB5-RC4-MD5            SSLv3 Kx=KRB5     Au=KRB5 Enc=RC4(128)  Mac=MD5\n\
ECDHE-RSA-DES-CBC3-SHA  SSLv3 Kx=ECDH     Au=RSA  Enc=3DES(168) Mac=SHA1\n\
ECDHE-ECDSA-DES-CBC3-SHA SSLv3 Kx=ECDH     Au=ECDSA Enc=3DES(168) Mac=SHA1\n\
SRP-DSS-3DES-EDE-CBC-SHA SSLv3 Kx=SRP      Au=DSS  Enc=3DES(168) Mac=SHA1\n\
SRP-RSA-3DES-EDE-CBC-SHA SSLv3 Kx=SRP      Au=RSA  Enc=3DES(168) Mac=SHA1\n\
SRP-3DES-EDE-CBC-SHA    SSLv3 Kx=SRP      Au=SRP  Enc=3DES(168) Mac=SHA1\n\
DH-RSA-DES-CBC3-SHA     SSLv3 Kx=DH/RSA   Au=DH   Enc=3DES(168) Mac=SHA1\n\
DH-DSS-DES-CBC3-SHA     SSLv3 Kx=DH/DSS   Au=DH   Enc=3DES(168) Mac=SHA1\n\
AECDH-DES-CBC3-SHA      SSLv3 Kx=ECDH     Au=None Enc=3DES(168) Mac=SHA1\n\
ECDH-RSA-DES-CBC3-SHA   SSLv3 Kx=ECDH/RSA Au=ECDH Enc=3DES(168) Mac=SHA1\n\
ECDH-ECDSA-DES-CBC3-SHA SSLv3 Kx=ECDH/ECDSA Au=ECDH Enc=3DES(168) Mac=SHA1\n\
DES-CBC3-SHA            SSLv3 Kx=RSA      Au=RSA  Enc=3DES(168) Mac=SHA1\n\
PSK-3DES-EDE-CBC-SHA    SSLv3 Kx=PSK      Au=PSK  Enc=3DES(168) Mac=SHA1\n\
KRB5-DES-CBC3-SHA       SSLv3 Kx=KRB5     Au=KRB5 Enc=3DES(168) Mac=SHA1\n\
KRB5-DES-CBC3-MD5       SSLv3 Kx=KRB5     Au=KRB5 Enc=3DES(168) Mac=MD5";

    /// Appendix B: OpenSSL 3.0.22, the same string (names only).
    const APPENDIX_B: &str = "\
        TLS_AES_256_GCM_SHA384 TLS_CHACHA20_POLY1305_SHA256 TLS_AES_128_GCM_SHA256 \
        ECDHE-ECDSA-AES256-GCM-SHA384 ECDHE-RSA-AES256-GCM-SHA384 \
        ECDHE-ECDSA-CHACHA20-POLY1305 ECDHE-RSA-CHACHA20-POLY1305 ECDHE-ECDSA-AES256-CCM8 \
        ECDHE-ECDSA-AES256-CCM ECDHE-ECDSA-ARIA256-GCM-SHA384 ECDHE-ARIA256-GCM-SHA384 \
        ECDHE-ECDSA-AES128-GCM-SHA256 ECDHE-RSA-AES128-GCM-SHA256 ECDHE-ECDSA-AES128-CCM8 \
        ECDHE-ECDSA-AES128-CCM ECDHE-ECDSA-ARIA128-GCM-SHA256 ECDHE-ARIA128-GCM-SHA256 \
        ECDHE-ECDSA-AES256-SHA384 ECDHE-RSA-AES256-SHA384 ECDHE-ECDSA-CAMELLIA256-SHA384 \
        ECDHE-RSA-CAMELLIA256-SHA384 ECDHE-ECDSA-AES128-SHA256 ECDHE-RSA-AES128-SHA256 \
        ECDHE-ECDSA-CAMELLIA128-SHA256 ECDHE-RSA-CAMELLIA128-SHA256 ECDHE-ECDSA-AES256-SHA \
        ECDHE-RSA-AES256-SHA AECDH-AES256-SHA ECDHE-ECDSA-AES128-SHA ECDHE-RSA-AES128-SHA \
        AECDH-AES128-SHA RSA-PSK-AES256-GCM-SHA384 DHE-PSK-AES256-GCM-SHA384 \
        RSA-PSK-CHACHA20-POLY1305 DHE-PSK-CHACHA20-POLY1305 ECDHE-PSK-CHACHA20-POLY1305 \
        DHE-PSK-AES256-CCM8 DHE-PSK-AES256-CCM RSA-PSK-ARIA256-GCM-SHA384 \
        DHE-PSK-ARIA256-GCM-SHA384 AES256-GCM-SHA384 AES256-CCM8 AES256-CCM \
        ARIA256-GCM-SHA384 PSK-AES256-GCM-SHA384 PSK-CHACHA20-POLY1305 PSK-AES256-CCM8 \
        PSK-AES256-CCM PSK-ARIA256-GCM-SHA384 RSA-PSK-AES128-GCM-SHA256 \
        DHE-PSK-AES128-GCM-SHA256 DHE-PSK-AES128-CCM8 DHE-PSK-AES128-CCM \
        RSA-PSK-ARIA128-GCM-SHA256 DHE-PSK-ARIA128-GCM-SHA256 AES128-GCM-SHA256 AES128-CCM8 \
        AES128-CCM ARIA128-GCM-SHA256 PSK-AES128-GCM-SHA256 PSK-AES128-CCM8 PSK-AES128-CCM \
        PSK-ARIA128-GCM-SHA256 AES256-SHA256 CAMELLIA256-SHA256 AES128-SHA256 \
        CAMELLIA128-SHA256 ECDHE-PSK-AES256-CBC-SHA384 ECDHE-PSK-AES256-CBC-SHA \
        SRP-DSS-AES-256-CBC-SHA SRP-RSA-AES-256-CBC-SHA SRP-AES-256-CBC-SHA \
        RSA-PSK-AES256-CBC-SHA384 DHE-PSK-AES256-CBC-SHA384 RSA-PSK-AES256-CBC-SHA \
        DHE-PSK-AES256-CBC-SHA ECDHE-PSK-CAMELLIA256-SHA384 RSA-PSK-CAMELLIA256-SHA384 \
        DHE-PSK-CAMELLIA256-SHA384 AES256-SHA CAMELLIA256-SHA PSK-AES256-CBC-SHA384 \
        PSK-AES256-CBC-SHA PSK-CAMELLIA256-SHA384 ECDHE-PSK-AES128-CBC-SHA256 \
        ECDHE-PSK-AES128-CBC-SHA SRP-DSS-AES-128-CBC-SHA SRP-RSA-AES-128-CBC-SHA \
        SRP-AES-128-CBC-SHA RSA-PSK-AES128-CBC-SHA256 DHE-PSK-AES128-CBC-SHA256 \
        RSA-PSK-AES128-CBC-SHA DHE-PSK-AES128-CBC-SHA ECDHE-PSK-CAMELLIA128-SHA256 \
        RSA-PSK-CAMELLIA128-SHA256 DHE-PSK-CAMELLIA128-SHA256 AES128-SHA CAMELLIA128-SHA \
        PSK-AES128-CBC-SHA256 PSK-AES128-CBC-SHA PSK-CAMELLIA128-SHA256";

    fn names(spec: &str, v: OpenSslVersion) -> Vec<&'static str> {
        match expand(spec, v) {
            Ok(e) => e.suites.iter().map(|s| s.name_in(v)).collect(),
            Err(e) => panic!("{spec:?} on {v}: {e}"),
        }
    }

    /// The TLS ≤ 1.2 part only.
    fn tls12(spec: &str, v: OpenSslVersion) -> Vec<&'static str> {
        let mut n = names(spec, v);
        if v.modern() {
            n.drain(..3);
        }
        n
    }

    #[test]
    fn appendix_a_1_0_2_in_content_order_and_format() {
        let got: Vec<String> = expand(SEED, V1_0_2)
            .unwrap()
            .suites
            .iter()
            .map(|s| s.describe(V1_0_2).trim_end().to_string())
            .collect();
        let want: Vec<&str> = APPENDIX_A.lines().map(str::trim_end).collect();
        assert_eq!(got, want);
    }

    #[test]
    fn appendix_b_3_0() {
        let want: Vec<&str> = APPENDIX_B.split_whitespace().collect();
        assert_eq!(names(SEED, V3_0), want);
    }

    #[test]
    fn tls13_suites_lead_on_1_1_1_and_3_0_only() {
        for v in [V1_1_1, V3_0] {
            assert_eq!(names("HIGH", v)[..3], TLS13_DEFAULT);
        }
        assert!(names("HIGH", V1_0_2).iter().all(|n| !n.starts_with("TLS_")));
        // A cipher string cannot name them, and they do not rescue an empty list.
        assert!(matches!(
            expand("TLS_AES_128_GCM_SHA256", V3_0),
            Err(CipherError::NoCipherMatch { .. })
        ));
    }

    #[test]
    fn operators() {
        let v = V3_0;
        // Kill is permanent, delete is not.
        assert!(tls12("aRSA:!kRSA:kRSA", v)
            .iter()
            .all(|n| !by(n).kx.eq(&Kx::Rsa)));
        assert!(tls12("aRSA:-kRSA:kRSA", v)
            .iter()
            .any(|n| by(n).kx == Kx::Rsa));
        // Adding what is already there does not move it; `+` does.
        let base = tls12("ECDHE-RSA-AES128-SHA:AES128-SHA", v);
        assert_eq!(base, ["ECDHE-RSA-AES128-SHA", "AES128-SHA"]);
        assert_eq!(
            tls12("ECDHE-RSA-AES128-SHA:AES128-SHA:ECDHE-RSA-AES128-SHA", v),
            base
        );
        assert_eq!(
            tls12("ECDHE-RSA-AES128-SHA:AES128-SHA:+ECDHE-RSA-AES128-SHA", v),
            ["AES128-SHA", "ECDHE-RSA-AES128-SHA"]
        );
        // Deleted suites come back in their old place in the preference order.
        assert_eq!(
            tls12(
                "AES128-SHA:ECDHE-RSA-AES128-SHA:-ALL:kRSA+AES128+SHA1:ECDHE+AES128+SHA1+aRSA",
                v
            ),
            ["AES128-SHA", "ECDHE-RSA-AES128-SHA"]
        );
        // Explicit names keep the order given.
        assert_eq!(
            tls12("AES256-SHA:AES128-SHA", v),
            ["AES256-SHA", "AES128-SHA"]
        );
    }

    fn by(name: &str) -> &'static Suite {
        super::super::by_name(name).unwrap()
    }

    #[test]
    fn elements_need_no_separator_after_a_known_word() {
        for v in OpenSslVersion::ALL {
            assert_eq!(names("ALL:!kEDH!ADH", v), names("ALL:!kEDH:!ADH", v));
            assert_eq!(names("ALL!aNULL", v), names("ALL:!aNULL", v));
        }
    }

    #[test]
    fn unknown_words_are_ignored_with_the_rest_of_their_element() {
        let e = expand("ALL:FOO!aNULL:BAR+RSA", V3_0).unwrap();
        assert_eq!(e.unknown, ["FOO", "BAR"]);
        assert_eq!(e.ignored, ["FOO!aNULL", "BAR+RSA"]);
        assert!(e.suites.iter().any(|s| s.anonymous()), "!aNULL was skipped");
        // An impossible combination is discarded the same way, without unknown words.
        let e = expand("HIGH:kRSA+kDHE!aNULL", V3_0).unwrap();
        assert!(e.unknown.is_empty());
        assert_eq!(e.ignored, ["kRSA+kDHE!aNULL"]);
        // Keywords of other versions are unknown.
        assert_eq!(
            expand("HIGH:RC4:SEED", V3_0).unwrap().unknown,
            ["RC4", "SEED"]
        );
        assert_eq!(expand("HIGH:CBC", V1_1_1).unwrap().unknown, ["CBC"]);
        assert_eq!(recognised_in("RC4"), [V1_0_2, V1_1_1]);
        assert_eq!(recognised_in("EXPORT"), [V1_0_2]);
        assert_eq!(recognised_in("CBC"), [V3_0]);
        assert_eq!(
            recognised_in("EDH-RSA-DES-CBC3-SHA"),
            [V1_0_2, V1_1_1, V3_0]
        );
        assert!(recognised_in("ECCdraft").is_empty());
        assert!(expand("HIGH:CBC", V3_0).unwrap().unknown.is_empty());
    }

    #[test]
    fn errors() {
        let no_match = |s: &str| matches!(expand(s, V3_0), Err(CipherError::NoCipherMatch { .. }));
        let invalid = |s: &str, at: usize| matches!(expand(s, V3_0), Err(CipherError::InvalidCommand { offset, .. }) if offset == at);
        assert!(no_match(""));
        assert!(no_match("FOOBAR"));
        assert!(no_match("RC4:3DES:LOW:EXP:MEDIUM"));
        assert!(no_match("ALL:!ALL:!COMPLEMENTOFALL:eNULL:!eNULL"));
        assert_eq!(
            expand("EXP:LOW", V3_0),
            Err(CipherError::NoCipherMatch {
                unknown: vec!["EXP".into()]
            })
        );
        assert!(invalid("ALL+", 4));
        assert!(invalid("ALL:!", 5));
        assert!(invalid("HIGH:-:", 6));
        assert!(invalid("HIGH/MEDIUM", 4));
        assert!(invalid("HIGH:@FOO", 6));
        assert!(invalid("HIGH:@SECLEVEL=6", 6));
        assert!(invalid("HIGH:@SECLEVEL=10", 6));
        assert!(invalid("DEFAULT:@X", 9));
        // An unknown word swallows what would otherwise be invalid.
        assert!(expand("HIGH:FOO/bar", V3_0).is_ok());
        // 1.0.2 knows neither `=` in words nor @SECLEVEL.
        assert!(matches!(
            expand("HIGH:@SECLEVEL=1", V1_0_2),
            Err(CipherError::InvalidCommand { offset: 6, .. })
        ));
    }

    #[test]
    fn commands() {
        let e = expand("HIGH:@SECLEVEL=0", V3_0).unwrap();
        assert_eq!(e.seclevel, Some(0));
        assert_eq!(e.suites, expand("HIGH", V3_0).unwrap().suites);
        // @STRENGTH sorts by strength, keeping the order within one strength.
        let sorted = expand("AES128-SHA:CAMELLIA256-SHA:AES256-SHA:@STRENGTH", V3_0).unwrap();
        let n: Vec<_> = sorted.suites[3..].iter().map(|s| s.name).collect();
        assert_eq!(n, ["CAMELLIA256-SHA", "AES256-SHA", "AES128-SHA"]);
        // Anything glued to a command is dropped.
        assert_eq!(
            names("AES128-SHA:AES256-SHA:@STRENGTH!AES256-SHA", V3_0),
            names("AES128-SHA:AES256-SHA:@STRENGTH", V3_0)
        );
    }

    #[test]
    fn separators_and_default() {
        for v in OpenSslVersion::ALL {
            assert_eq!(
                names("HIGH;!aNULL,!MD5 !kRSA", v),
                names("HIGH:!aNULL:!MD5:!kRSA", v)
            );
            assert_eq!(names("::HIGH::", v), names("HIGH", v));
        }
        assert_eq!(
            names("DEFAULT", V3_0),
            names("ALL:!COMPLEMENTOFDEFAULT:!eNULL", V3_0)
        );
        assert_eq!(
            names("DEFAULT", V1_0_2),
            names("ALL:!EXPORT:!LOW:!aNULL:!eNULL:!SSLv2", V1_0_2)
        );
        assert_eq!(names("DEFAULT:!kRSA", V3_0), names("DEFAULT!kRSA", V3_0));
        // Only as a prefix: elsewhere DEFAULT is an unknown word.
        assert_eq!(expand("HIGH:DEFAULT", V3_0).unwrap().unknown, ["DEFAULT"]);
        assert_eq!(
            tls12("SUITEB128:RC4", V3_0),
            [
                "ECDHE-ECDSA-AES128-GCM-SHA256",
                "ECDHE-ECDSA-AES256-GCM-SHA384"
            ]
        );
    }

    #[test]
    fn combination_quirks() {
        // 1.1.0+ lets the strength class of a later word replace NOT_DEFAULT.
        assert_eq!(names("COMPLEMENTOFDEFAULT+HIGH", V3_0), names("HIGH", V3_0));
        // HIGH and FIPS share a mask: ANDed they select nothing, so the element is ignored.
        let e = expand("AES:HIGH+FIPS", V3_0).unwrap();
        assert_eq!(e.ignored, ["HIGH+FIPS"]);
        // A suite name followed by a keyword matches by algorithms, not by id.
        assert_eq!(
            tls12("ECDHE-RSA-AES128-SHA+HIGH", V3_0),
            ["ECDHE-RSA-AES128-SHA"]
        );
        assert_eq!(tls12("RC4+RSA", V1_0_2), ["RC4-SHA", "RC4-MD5"]);
    }

    #[test]
    fn version_differences() {
        // SEED and IDEA: built into 1.1.1, legacy provider in 3.0, present in 1.0.2.
        // (Anonymous before RSA key exchange: the initial order moves aNULL to the end
        // first, then kRSA.)
        assert_eq!(
            tls12("SEED:IDEA", V1_1_1),
            [
                "DHE-RSA-SEED-SHA",
                "DHE-DSS-SEED-SHA",
                "ADH-SEED-SHA",
                "SEED-SHA",
                "IDEA-CBC-SHA"
            ]
        );
        assert!(expand("SEED:IDEA", V3_0).is_err());
        // 3DES: HIGH→MEDIUM and NOT_DEFAULT in 1.1.0, compiled out unless weak ciphers.
        assert!(tls12("MEDIUM", V1_0_2).contains(&"DES-CBC3-SHA"));
        assert!(expand("3DES", V1_1_1).is_err());
        // The renamed 3DES DHE suite answers to its 1.0.2 name there.
        assert_eq!(
            tls12("EDH-RSA-DES-CBC3-SHA", V1_0_2),
            ["EDH-RSA-DES-CBC3-SHA"]
        );
        // Protocol classes: 1.0.2 calls TLS 1.0 suites SSLv3, and TLSv1 is SSLv3 there.
        let s = by("ECDHE-RSA-AES128-SHA");
        assert_eq!(s.protocol_in(V1_0_2), Some(Proto::Ssl3));
        assert_eq!(s.protocol_in(V3_0), Some(Proto::Tls1));
        assert_eq!(names("TLSv1", V1_0_2), names("SSLv3", V1_0_2));
        assert_ne!(names("TLSv1", V3_0), names("SSLv3", V3_0));
        // DH means fixed DH as well in 1.0.2.
        assert!(tls12("DH", V1_0_2).contains(&"DH-RSA-AES128-SHA"));
        assert!(tls12("DH", V3_0)
            .iter()
            .all(|n| n.starts_with("DHE-") || n.starts_with("ADH-")));
        // The description formats.
        assert_eq!(
            s.describe(V3_0),
            "ECDHE-RSA-AES128-SHA           TLSv1   Kx=ECDH     Au=RSA   Enc=AES(128)               Mac=SHA1"
        );
        assert_eq!(
            s.describe(V1_1_1),
            "ECDHE-RSA-AES128-SHA    TLSv1 Kx=ECDH     Au=RSA  Enc=AES(128)  Mac=SHA1"
        );
        assert_eq!(
            by("EXP-RC4-MD5").describe(V1_0_2),
            "EXP-RC4-MD5             SSLv3 Kx=RSA(512) Au=RSA  Enc=RC4(40)   Mac=MD5  export"
        );
    }

    #[test]
    fn seclevel_filter_matches_openssl_ciphers_s() {
        // `openssl ciphers -s -v ALL` on Debian's 3.0 (level 2) keeps no anonymous, MD5 or
        // RC4 suite; level 3 wants forward secrecy; level 4 drops SHA-1.
        let at = |name: &str, level: u8| permitted_at_seclevel(by(name), level);
        assert!(!at("AECDH-AES128-SHA", 1));
        assert!(at("AECDH-AES128-SHA", 0));
        assert!(at("DES-CBC3-SHA", 2) && !at("DES-CBC3-SHA", 3));
        assert!(!at("RC4-SHA", 2) && at("RC4-SHA", 1));
        assert!(at("ECDHE-RSA-AES128-SHA", 3) && !at("ECDHE-RSA-AES128-SHA", 4));
        assert!(at("TLS_AES_256_GCM_SHA384", 5) && !at("TLS_AES_128_GCM_SHA256", 5));
        assert!(!at("AES256-GCM-SHA384", 3));
        assert!(!at("AES256-GCM-SHA384", 6));
    }

    #[test]
    fn table_is_sorted_and_consistent() {
        assert!(SUITES.windows(2).all(|w| w[0].id < w[1].id));
        for s in SUITES {
            assert!(s.modern.is_some() || s.legacy.is_some(), "{}", s.name);
            assert!(s.strength_bits <= s.alg_bits, "{}", s.name);
            assert_eq!(super::super::by_id(s.id), Some(s));
        }
        // What `openssl ciphers -v ALL:COMPLEMENTOFALL` lists on 3.0 (155 + 3 TLS 1.3).
        let n = |v| {
            SUITES
                .iter()
                .filter(|s| !s.is_tls13() && s.available_in(v))
                .count()
        };
        assert_eq!(n(V3_0), 155);
        assert_eq!(names("ALL:COMPLEMENTOFALL", V3_0).len(), 158);
        assert!(n(V1_1_1) > n(V3_0));
    }
}
