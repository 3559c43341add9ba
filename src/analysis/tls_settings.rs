//! The effective TLS settings of an nginx configuration, shared by the TLS rules.
//!
//! nginx merges `ssl_*` directives from `http` into each `server` and fills what is still
//! unset with defaults that depend on its version (domain notes §2.3). A rule judges a
//! directive where it is written (that is where the fix goes), but it needs to know who uses
//! it: the TLS servers that inherit it. This module answers both questions:
//!
//! * [`Versions`]: the nginx and OpenSSL versions from `[host]`, with documented defaults.
//! * [`tls_servers`]: the http `server` blocks that accept TLS (`listen … ssl`, or `ssl on`).
//! * [`source`]: where a block's value of a directive comes from: a directive, nginx's
//!   default, or unknown (a snippet read without the `http` block that includes it).
//! * [`CipherCache`]: cipher strings expanded once per run.
//! * [`dhe_enabler`]: whether a block offers the DHE suites of its list (`ssl_dhparam`, or
//!   nginx before 1.11.0).
//! * [`insert_ssl_directives`]: adding directives next to a block's other `ssl_*` ones.

use crate::analysis::cursor::{self, Block, Directive, Word};
use crate::fix::{Edit, Fix};
use crate::fxhash::{FxHashMap as HashMap, FxHashSet as HashSet};
use crate::host::HostFacts;
use crate::stack::expanded::{OccId, NO_PARENT};
use crate::stack::model::NginxInstance;
use crate::tls::{self, CipherError, Expansion, OpenSslVersion};
use std::fmt;

/// An nginx release, `major.minor.patch`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct NginxVersion(pub u32, pub u32, pub u32);

impl NginxVersion {
    /// Assumed when `[host] nginx` is not given: the current stable series (1.30, released
    /// April 2026; `git tag` of nginx/nginx lists release-1.30.0 … 1.30.4 next to the 1.31
    /// mainline).
    pub const DEFAULT: NginxVersion = NginxVersion(1, 30, 0);

    /// Reads `1.24.0`, `1.22`, `nginx/1.22.1`, `1.22.1-9+deb12u11`.
    pub fn parse(text: &str) -> Option<Self> {
        let t = text.trim_start_matches(|c: char| !c.is_ascii_digit());
        let mut parts = t.split(|c: char| !c.is_ascii_digit());
        let major = parts.next()?.parse().ok()?;
        let minor = parts.next()?.parse().ok()?;
        let patch = parts.next().and_then(|p| p.parse().ok()).unwrap_or(0);
        Some(NginxVersion(major, minor, patch))
    }

    pub const fn at_least(self, major: u32, minor: u32, patch: u32) -> bool {
        self.0 > major
            || (self.0 == major && (self.1 > minor || (self.1 == minor && self.2 >= patch)))
    }
}

impl fmt::Display for NginxVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.0, self.1, self.2)
    }
}

/// Reads an OpenSSL version leniently: the modelled series (`1.0.2`, `1.1.1w`, `3.0.13`),
/// and the nearest modelled series for the others (`3.2` → 3.0, `1.1.0` → 1.1.1, `1.0.1` →
/// 1.0.2), also with an `OpenSSL ` prefix as `openssl version` prints it.
pub fn parse_openssl(text: &str) -> Option<OpenSslVersion> {
    if let Ok(v) = text.parse() {
        return Some(v);
    }
    let t = text.trim_start_matches(|c: char| !c.is_ascii_digit());
    let mut parts = t.split(|c: char| !c.is_ascii_digit());
    let major: u32 = parts.next()?.parse().ok()?;
    let minor: u32 = parts.next().and_then(|m| m.parse().ok()).unwrap_or(0);
    match (major, minor) {
        (0, _) | (1, 0) => Some(OpenSslVersion::V1_0_2),
        (1, _) => Some(OpenSslVersion::V1_1_1),
        (m, _) if m >= 3 => Some(OpenSslVersion::V3_0),
        _ => None,
    }
}

/// The versions the TLS rules reason about.
#[derive(Clone, Copy, Debug)]
pub struct Versions {
    pub nginx: NginxVersion,
    /// False when [`NginxVersion::DEFAULT`] was assumed.
    pub nginx_given: bool,
    pub openssl: OpenSslVersion,
    /// False when OpenSSL 3.0 was assumed.
    pub openssl_given: bool,
}

impl Versions {
    /// From `[host] nginx` / `[host] openssl`; an unreadable value counts as not given.
    pub fn of(host: &HostFacts) -> Versions {
        let nginx = host
            .nginx
            .as_ref()
            .and_then(|f| NginxVersion::parse(&f.value));
        let openssl = host.openssl.as_ref().and_then(|f| parse_openssl(&f.value));
        Versions {
            nginx: nginx.unwrap_or(NginxVersion::DEFAULT),
            nginx_given: nginx.is_some(),
            openssl: openssl.unwrap_or(OpenSslVersion::V3_0),
            openssl_given: openssl.is_some(),
        }
    }

    /// `nginx 1.22.1`, or `nginx 1.30.0 (assumed; set [host] nginx)`.
    pub fn nginx_label(&self) -> String {
        if self.nginx_given {
            format!("nginx {}", self.nginx)
        } else {
            format!("nginx {} (assumed; set `[host] nginx`)", self.nginx)
        }
    }

    /// `OpenSSL 3.0`, with the same note when assumed.
    pub fn openssl_label(&self) -> String {
        if self.openssl_given {
            format!("OpenSSL {}", self.openssl)
        } else {
            format!("OpenSSL {} (assumed; set `[host] openssl`)", self.openssl)
        }
    }

    /// The security level OpenSSL applies when the cipher string sets none: 1.0.2 has no
    /// levels (everything listed is usable, i.e. level 0); 1.1.0+ defaults to 1 (Debian
    /// builds 3.0 with 2, which only refuses more).
    pub fn default_seclevel(&self) -> u8 {
        if self.openssl.modern() {
            1
        } else {
            0
        }
    }
}

/// nginx's `ssl_ciphers` default by version (nginx.org `configuring_https_servers.xml`).
pub fn default_ciphers(nginx: NginxVersion) -> &'static str {
    if nginx.at_least(1, 0, 5) {
        "HIGH:!aNULL:!MD5"
    } else if nginx.at_least(0, 8, 20) {
        "HIGH:!ADH:!MD5"
    } else if nginx.at_least(0, 8, 19) {
        "ALL:!ADH:RC4+RSA:+HIGH:+MEDIUM"
    } else {
        "ALL:!ADH:RC4+RSA:+HIGH:+MEDIUM:+LOW:+SSLv2:+EXP"
    }
}

/// nginx's `ssl_protocols` default by version (changes.xml: SSLv3 off in 1.9.1, TLSv1.3 on
/// in 1.23.4, TLSv1 and TLSv1.1 off in 1.27.3).
pub fn default_protocols(nginx: NginxVersion) -> &'static [&'static str] {
    if nginx.at_least(1, 27, 3) {
        &["TLSv1.2", "TLSv1.3"]
    } else if nginx.at_least(1, 23, 4) {
        &["TLSv1", "TLSv1.1", "TLSv1.2", "TLSv1.3"]
    } else if nginx.at_least(1, 9, 1) {
        &["TLSv1", "TLSv1.1", "TLSv1.2"]
    } else if nginx.at_least(0, 8, 19) {
        &["SSLv3", "TLSv1", "TLSv1.1", "TLSv1.2"]
    } else {
        &["SSLv2", "SSLv3", "TLSv1"]
    }
}

/// The modern protocol list for a fix: `TLSv1.2 TLSv1.3`, or `TLSv1.2` for nginx before
/// 1.13.0, which rejects the `TLSv1.3` keyword.
pub fn modern_protocols(nginx: NginxVersion) -> &'static str {
    if nginx.at_least(1, 13, 0) {
        "TLSv1.2 TLSv1.3"
    } else {
        "TLSv1.2"
    }
}

/// Mozilla's "intermediate" cipher list (guidelines 5.8 and 6.0, unchanged between them):
/// ECDHE with AES-GCM or ChaCha20-Poly1305, ECDSA and RSA certificates.
pub const MOZILLA_INTERMEDIATE: &str = "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305";

/// An http `server` block that accepts TLS.
#[derive(Clone, Copy, Debug)]
pub struct TlsServer<'a> {
    pub server: Directive<'a>,
    /// The `listen … ssl` (or the `ssl on`) that makes it a TLS server.
    pub marker: Directive<'a>,
    /// The enclosing `http` block, when the configuration has one.
    pub http: Option<Directive<'a>>,
}

/// Whether `d` is a `server { }` of the http module (or a server at the top of a snippet,
/// which is included into `http`).
pub fn is_http_server(d: Directive<'_>) -> bool {
    d.name() == "server" && d.has_block() && d.parent().is_none_or(|p| p.name() == "http")
}

/// Every TLS server of a configuration, in configuration order (found once per
/// configuration and shared by the TLS rules).
pub fn tls_servers(inst: &NginxInstance) -> Vec<TlsServer<'_>> {
    let found = inst.memo.get(|| FoundServers(find_tls_servers(inst)));
    found
        .0
        .iter()
        .map(|&(server, marker)| {
            let server = Directive::new(inst, server);
            TlsServer {
                server,
                marker: Directive::new(inst, marker),
                http: server.enclosing("http"),
            }
        })
        .collect()
}

/// The TLS servers of one configuration, as (server, marker) occurrences: the memo outlives
/// any one borrow of the configuration, so it keeps ids, and [`tls_servers`] hands out
/// directives.
struct FoundServers(Vec<(OccId, OccId)>);

fn find_tls_servers(inst: &NginxInstance) -> Vec<(OccId, OccId)> {
    cursor::named(inst, "server")
        .filter(|&s| is_http_server(s))
        .filter_map(|s| {
            let marker = ssl_listen(s).or_else(|| ssl_on(s))?;
            Some((s.occ(), marker.occ()))
        })
        .collect()
}

/// Servers that make nginx build an SSL context (and so call `SSL_CTX_set_cipher_list`):
/// those with an `ssl_certificate` (own or inherited) and TLS servers.
pub fn ssl_context_servers(inst: &NginxInstance) -> Vec<Directive<'_>> {
    cursor::named(inst, "server")
        .filter(|&s| is_http_server(s))
        .filter(|&s| {
            ssl_listen(s).is_some()
                || ssl_on(s).is_some()
                || s.effective("ssl_certificate").next().is_some()
        })
        .collect()
}

fn ssl_listen(server: Directive<'_>) -> Option<Directive<'_>> {
    server
        .children("listen")
        .find(|l| l.args().skip(1).any(|a| a.value() == "ssl"))
}

fn ssl_on(server: Directive<'_>) -> Option<Directive<'_>> {
    let d = server.effective("ssl").last()?;
    (d.args().len() == 1 && d.arg(0).is_some_and(|a| a.is("on"))).then_some(d)
}

/// The nearest enclosing `http` block (or the block itself when it is one).
pub fn http_of(block: Block<'_>) -> Option<Directive<'_>> {
    block.enclosing_or_self("http")
}

/// Where a block's value of a directive comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Source<'a> {
    /// This directive (the block's own, or inherited).
    Set(Directive<'a>),
    /// nginx's default: nothing sets it up to the `http` block.
    Default,
    /// Not set in what was read, and the enclosing `http` block was not read (a snippet
    /// linted on its own): its value is not known.
    Unknown,
}

/// Where `block`'s value of `name` comes from (the last occurrence of the nearest level
/// that has one, as nginx keeps the last value of a repeated directive).
pub fn source<'a>(block: Block<'a>, name: &str) -> Source<'a> {
    if let Some(d) = block.effective(name).last() {
        return Source::Set(d);
    }
    if http_of(block).is_some() {
        Source::Default
    } else {
        Source::Unknown
    }
}

/// The block a directive is written in, when it is a place where `ssl_*` directives are
/// valid (`http`, `server`, `stream`, `mail`, or the top of a snippet); `None` for a
/// misplaced one, which nginx itself rejects.
pub fn written_in(d: Directive<'_>) -> Option<Block<'_>> {
    match d.parent() {
        None => d.instance().standalone.then_some(d.level()),
        Some(p) => matches!(p.name(), "http" | "server" | "stream" | "mail").then_some(p.into()),
    }
}

/// Whether `ssl_conf_command KEY …` (which nginx applies after `ssl_ciphers` and
/// `ssl_protocols`, overriding them) is in effect for `block`.
pub fn conf_command(block: Block<'_>, keys: &[&str]) -> bool {
    block.effective("ssl_conf_command").any(|c| {
        c.arg(0)
            .is_some_and(|k| keys.iter().any(|key| k.value().eq_ignore_ascii_case(key)))
    })
}

/// The single argument of a directive (e.g. `ssl_ciphers`' string), with its value.
pub fn single_arg(d: Directive<'_>) -> Option<(Word<'_>, String)> {
    if d.args().len() != 1 {
        return None;
    }
    let word = d.arg(0)?;
    Some((word, word.value().into_owned()))
}

/// The arguments' values.
pub fn arg_values(d: Directive<'_>) -> Vec<String> {
    d.args().map(|a| a.value().into_owned()).collect()
}

/// Cipher strings expanded once per rule run.
#[derive(Default)]
pub struct CipherCache {
    map: HashMap<String, Result<Expansion, CipherError>>,
}

impl CipherCache {
    pub fn expand(
        &mut self,
        spec: &str,
        version: OpenSslVersion,
    ) -> &Result<Expansion, CipherError> {
        self.map
            .entry(spec.to_string())
            .or_insert_with(|| tls::expand(spec, version))
    }
}

/// The cipher string in effect for `block`: its text and the directive (`None`: nginx's
/// default for the version). `None` when unknown.
pub fn ciphers_of<'a>(
    block: Block<'a>,
    nginx: NginxVersion,
) -> Option<(String, Option<Directive<'a>>)> {
    match source(block, "ssl_ciphers") {
        Source::Set(d) => single_arg(d).map(|(_, spec)| (spec, Some(d))),
        Source::Default => Some((default_ciphers(nginx).to_string(), None)),
        Source::Unknown => None,
    }
}

/// The protocols in effect for `block`; `None` when unknown.
pub fn protocols_of(block: Block<'_>, nginx: NginxVersion) -> Option<Vec<String>> {
    match source(block, "ssl_protocols") {
        Source::Set(d) => Some(arg_values(d)),
        Source::Default => Some(
            default_protocols(nginx)
                .iter()
                .map(|p| p.to_string())
                .collect(),
        ),
        Source::Unknown => None,
    }
}

/// Whether a protocol list (unknown: assume so) allows TLS 1.2 or older, i.e. whether the
/// cipher string matters at all (TLS 1.3 suites are configured separately).
pub fn uses_cipher_string(protocols: Option<&[String]>) -> bool {
    protocols.is_none_or(|p| {
        p.iter().any(|p| {
            ["SSLv2", "SSLv3", "TLSv1", "TLSv1.1", "TLSv1.2"]
                .iter()
                .any(|q| q.eq_ignore_ascii_case(p))
        })
    })
}

/// nginx 1.11.0 stopped using its built-in DH group: no `ssl_dhparam`, no DHE.
pub const BUILTIN_DH_UNTIL: NginxVersion = NginxVersion(1, 11, 0);

/// What makes nginx offer the DHE suites of its cipher list in a block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DheEnabler<'a> {
    /// An `ssl_dhparam` naming a file.
    Dhparam(Directive<'a>),
    /// nginx before 1.11.0, which used a built-in 1024-bit group without `ssl_dhparam`.
    BuiltinGroup,
}

/// Why `block` offers DHE suites, or `None` when it offers none: since nginx 1.11.0 only an
/// `ssl_dhparam` naming a file does; TLS-1.3-only blocks negotiate no cipher-string suite.
pub fn dhe_enabler(block: Block<'_>, v: Versions) -> Option<DheEnabler<'_>> {
    if !uses_cipher_string(protocols_of(block, v.nginx).as_deref()) {
        return None;
    }
    match source(block, "ssl_dhparam") {
        Source::Set(p) => {
            // An empty file name loads nothing (`ngx_ssl_dhparam` returns early).
            let named = p.args().len() == 1 && p.arg(0).is_some_and(|a| !a.value().is_empty());
            named.then_some(DheEnabler::Dhparam(p))
        }
        _ if v.nginx < BUILTIN_DH_UNTIL => Some(DheEnabler::BuiltinGroup),
        _ => None,
    }
}

/// One value of a directive as the servers see it: a directive, or nginx's default for the
/// servers of one `http` block.
#[derive(Clone, Debug)]
pub struct Setting<'a> {
    /// The directive; `None` for nginx's default.
    pub occ: Option<Directive<'a>>,
    /// For a default: the `http` block whose servers rely on it.
    pub http: Option<Directive<'a>>,
    /// The servers (of those given) that use it.
    pub users: Vec<Directive<'a>>,
    /// Where to judge it: its users or, when no server uses it (yet), the block it is
    /// written in, since it applies as soon as one does.
    pub contexts: Vec<Block<'a>>,
}

/// [`settings`] of `name` for the configuration's TLS servers.
pub fn tls_settings<'a>(
    inst: &'a NginxInstance,
    name: &str,
    overridden_by: &[&str],
) -> Vec<Setting<'a>> {
    let servers: Vec<Directive<'a>> = tls_servers(inst).iter().map(|s| s.server).collect();
    settings(inst, &servers, name, overridden_by)
}

/// The `ssl_ciphers` values of the TLS servers (where `ssl_conf_command CipherString` does
/// not override them): judged by both NGX001 and NGX002, so found once per configuration.
pub fn cipher_settings(inst: &NginxInstance) -> Vec<Setting<'_>> {
    let found = inst.memo.get(|| {
        let settings = tls_settings(inst, "ssl_ciphers", &["CipherString"]);
        FoundSettings(settings.iter().map(OwnedSetting::of).collect())
    });
    found.0.iter().map(|s| s.setting(inst)).collect()
}

/// A [`Setting`] as occurrence ids, for the memo (see [`FoundServers`]).
struct OwnedSetting {
    occ: Option<OccId>,
    http: Option<OccId>,
    users: Vec<OccId>,
    contexts: Vec<OccId>,
}

struct FoundSettings(Vec<OwnedSetting>);

impl OwnedSetting {
    fn of(s: &Setting<'_>) -> OwnedSetting {
        let id = |b: &Block<'_>| b.directive().map_or(NO_PARENT, Directive::occ);
        OwnedSetting {
            occ: s.occ.map(Directive::occ),
            http: s.http.map(Directive::occ),
            users: s.users.iter().map(|d| d.occ()).collect(),
            contexts: s.contexts.iter().map(id).collect(),
        }
    }

    fn setting<'a>(&self, inst: &'a NginxInstance) -> Setting<'a> {
        let d = |o: OccId| Directive::new(inst, o);
        let b = |o: OccId| {
            if o == NO_PARENT {
                Block::main(inst)
            } else {
                Directive::new(inst, o).into()
            }
        };
        Setting {
            occ: self.occ.map(d),
            http: self.http.map(d),
            users: self.users.iter().map(|&o| d(o)).collect(),
            contexts: self.contexts.iter().map(|&o| b(o)).collect(),
        }
    }
}

/// Every value of `name` that matters for `servers`: each directive written in a valid
/// place (with the servers that inherit it), then nginx's default per `http` block for the
/// servers that set nothing. Servers where `ssl_conf_command` overrides the directive
/// (`overridden_by`: its `ssl_conf_command` keys) do not count as users, and a directive
/// only such servers use is left out. Servers whose value is unknown are left out too.
pub fn settings<'a>(
    inst: &'a NginxInstance,
    servers: &[Directive<'a>],
    name: &str,
    overridden_by: &[&str],
) -> Vec<Setting<'a>> {
    // Keyed by occurrence: every directive here is of `inst`.
    let mut by_occ: HashMap<OccId, Vec<Directive<'a>>> = HashMap::default();
    let mut overridden: HashSet<OccId> = HashSet::default();
    let mut defaults: Vec<(Directive<'a>, Vec<Directive<'a>>)> = Vec::new();
    for &s in servers {
        let ov = conf_command(s.into(), overridden_by);
        match source(s.into(), name) {
            Source::Set(o) if ov => {
                overridden.insert(o.occ());
            }
            Source::Set(o) => by_occ.entry(o.occ()).or_default().push(s),
            Source::Default if !ov => {
                let Some(h) = http_of(s.into()) else { continue };
                match defaults.iter_mut().find(|(b, _)| *b == h) {
                    Some((_, list)) => list.push(s),
                    None => defaults.push((h, vec![s])),
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    for d in cursor::named(inst, name) {
        let Some(block) = written_in(d) else {
            continue;
        };
        let users = by_occ.remove(&d.occ()).unwrap_or_default();
        if users.is_empty() && (overridden.contains(&d.occ()) || conf_command(block, overridden_by))
        {
            continue;
        }
        let contexts = if users.is_empty() {
            vec![block]
        } else {
            users.iter().map(|&u| u.into()).collect()
        };
        out.push(Setting {
            occ: Some(d),
            http: None,
            users,
            contexts,
        });
    }
    for (h, users) in defaults {
        out.push(Setting {
            occ: None,
            http: Some(h),
            contexts: users.iter().map(|&u| u.into()).collect(),
            users,
        });
    }
    out
}

/// Adds `statements` (`ssl_session_cache shared:SSL:10m;` …) to `block`: after the last
/// `ssl_*` directive written in the block's own file, else as the block's first lines. One
/// edit, so several statements land together in order.
pub fn insert_ssl_directives(block: Directive<'_>, statements: &[String]) -> Option<Edit> {
    let anchor = block
        .all_children()
        .filter(|c| {
            c.same_file(block)
                && c.is_written_in(block)
                && c.name().starts_with("ssl_")
                && c.has_semicolon()
        })
        .last();
    let make = |s: &str| match anchor {
        Some(a) => a.insert_after(s),
        None => block.insert_at_block_start(s),
    };
    let mut out: Option<Edit> = None;
    for s in statements {
        let e = make(s);
        out = Some(match out {
            Some(mut acc) if acc.range == e.range => {
                acc.content.push_str(&e.content);
                acc
            }
            Some(acc) => acc,
            None => e,
        });
    }
    out
}

/// The fix for servers on nginx's default: write `statement` (`ssl_ciphers …;`) into their
/// `http` block. `None` when there is no place to write it.
pub fn fix_in_http(
    http: Directive<'_>,
    statement: String,
    title: impl Into<String>,
) -> Option<Fix> {
    let edit = insert_ssl_directives(http, &[statement])?;
    Some(Fix::unsafe_(title, vec![edit]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nginx_versions_parse_leniently() {
        for (text, v) in [
            ("1.24.0", NginxVersion(1, 24, 0)),
            ("1.22", NginxVersion(1, 22, 0)),
            ("nginx/1.22.1", NginxVersion(1, 22, 1)),
            ("1.22.1-9+deb12u11", NginxVersion(1, 22, 1)),
            ("v1.10.3", NginxVersion(1, 10, 3)),
        ] {
            assert_eq!(NginxVersion::parse(text), Some(v), "{text}");
        }
        for bad in ["", "1", "stable", "x.y"] {
            assert_eq!(NginxVersion::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn openssl_versions_parse_leniently() {
        use OpenSslVersion::*;
        for (text, v) in [
            ("3.0", V3_0),
            ("3.0.13", V3_0),
            ("3.2.1", V3_0),
            ("OpenSSL 3.0.22 25 Aug 2026", V3_0),
            ("1.1.1w", V1_1_1),
            ("1.1.0l", V1_1_1),
            ("1.0.2u", V1_0_2),
            ("1.0.1f", V1_0_2),
        ] {
            assert_eq!(parse_openssl(text), Some(v), "{text}");
        }
        assert_eq!(parse_openssl("libressl"), None);
    }

    #[test]
    fn defaults_follow_the_nginx_version() {
        assert_eq!(
            default_protocols(NginxVersion(1, 22, 1)),
            ["TLSv1", "TLSv1.1", "TLSv1.2"]
        );
        assert_eq!(
            default_protocols(NginxVersion(1, 27, 3)),
            ["TLSv1.2", "TLSv1.3"]
        );
        assert_eq!(default_protocols(NginxVersion(1, 8, 0))[0], "SSLv3");
        assert_eq!(default_ciphers(NginxVersion(1, 30, 0)), "HIGH:!aNULL:!MD5");
        assert_eq!(modern_protocols(NginxVersion(1, 12, 2)), "TLSv1.2");
    }
}
