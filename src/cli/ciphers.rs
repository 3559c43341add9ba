//! `lemplint ciphers STRING`: what an OpenSSL cipher string (an `ssl_ciphers` value)
//! selects, offline, in `openssl ciphers -v` form, with the weak suites marked.
//!
//! Exit codes: 0 when OpenSSL would accept the string, 2 when it would refuse it (`no
//! cipher match`, `invalid command`); nginx then fails `nginx -t` the same way.

use super::{EXIT_ERROR, EXIT_OK};
use crate::tls::{self, weaknesses, CipherError, Expansion, Level, OpenSslVersion, Weakness};
use clap::{Args, ValueEnum};
use std::collections::BTreeSet;
use std::io::Write;

#[derive(Args, Debug)]
pub struct CiphersArgs {
    /// The cipher string, e.g. 'HIGH:!aNULL:!MD5' (quote it for the shell)
    #[arg(allow_hyphen_values = true)]
    pub string: String,
    /// The OpenSSL whose rules apply: 1.0.2, 1.1.1 or 3.0 (a release such as 3.0.19 or
    /// 1.1.1w also works)
    #[arg(long, value_name = "VERSION", default_value = "3.0", value_parser = parse_version)]
    pub openssl: OpenSslVersion,
    /// Output format
    #[arg(long, value_enum, default_value_t = CiphersFormat::Text)]
    pub format: CiphersFormat,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum CiphersFormat {
    /// `openssl ciphers -v` lines, weak suites marked, reasons below
    Text,
    /// `{"ciphers":[…],"unknown":[…]}`
    Json,
}

fn parse_version(s: &str) -> Result<OpenSslVersion, String> {
    s.parse()
}

pub fn run(args: CiphersArgs) -> i32 {
    let version = args.openssl;
    let result = tls::expand(&args.string, version);
    let (out, code) = match (&result, args.format) {
        (Ok(e), CiphersFormat::Text) => {
            warn_ignored(e, version);
            (render_text(e, version), EXIT_OK)
        }
        (Ok(e), CiphersFormat::Json) => (render_json(e, version), EXIT_OK),
        (Err(err), format) => {
            eprintln!(
                "error: OpenSSL {version} rejects the cipher string {:?}: {err}",
                args.string
            );
            let out = match format {
                CiphersFormat::Text => String::new(),
                CiphersFormat::Json => render_error_json(err, version),
            };
            (out, EXIT_ERROR)
        }
    };
    let mut stdout = std::io::stdout().lock();
    if let Err(e) = stdout
        .write_all(out.as_bytes())
        .and_then(|_| stdout.flush())
    {
        if e.kind() != std::io::ErrorKind::BrokenPipe {
            eprintln!("error: cannot write output: {e}");
        }
        return EXIT_ERROR;
    }
    code
}

/// Words and elements OpenSSL skips silently: worth a warning, since the
/// author meant something by them.
fn warn_ignored(e: &Expansion, version: OpenSslVersion) {
    for w in &e.unknown {
        let elsewhere: Vec<&str> = tls::recognised_in(w).iter().map(|v| v.label()).collect();
        let what = if tls::by_name(w).is_some() {
            "suite"
        } else {
            "keyword"
        };
        let hint = if elsewhere.is_empty() {
            format!("no OpenSSL 1.0.2-3.0 knows this {what}")
        } else {
            format!("a {what} of OpenSSL {} only", elsewhere.join(", "))
        };
        eprintln!("warning: OpenSSL {version} ignores `{w}`: {hint}");
    }
    for el in &e.ignored {
        // A lone unknown word was reported above; say more only when more is lost.
        let bare = el.trim_start_matches(['!', '-', '+']);
        if !e.unknown.iter().any(|w| w == bare) {
            eprintln!(
                "warning: OpenSSL {version} ignores all of `{el}` (up to the next separator)"
            );
        }
    }
}

/// The marker after a suite's line: the worst level, then the weakness codes.
fn marker(ws: &[Weakness]) -> String {
    let Some(worst) = ws.iter().map(|w| w.level()).min() else {
        return String::new();
    };
    let sign = match worst {
        Level::Insecure => "!!",
        Level::Weak => "!",
        Level::Note => "~",
    };
    let mut parts = Vec::new();
    for level in [Level::Insecure, Level::Weak, Level::Note] {
        let codes: Vec<&str> = ws
            .iter()
            .filter(|w| w.level() == level)
            .map(|w| w.code())
            .collect();
        if !codes.is_empty() {
            parts.push(format!("{}: {}", level.label(), codes.join(", ")));
        }
    }
    format!("  {sign} {}", parts.join("; "))
}

fn render_text(e: &Expansion, version: OpenSslVersion) -> String {
    let mut out = String::new();
    let mut seen: BTreeSet<Weakness> = BTreeSet::new();
    let mut counts = [0usize; 3];
    let lines: Vec<(String, Vec<Weakness>)> = e
        .suites
        .iter()
        .map(|s| (s.describe(version), weaknesses(s)))
        .collect();
    // OpenSSL's Mac column is narrower than SHA256/SHA384: pad so the markers line up.
    let width = lines
        .iter()
        .filter(|(_, ws)| !ws.is_empty())
        .map(|(l, _)| l.chars().count())
        .max()
        .unwrap_or(0);
    for (line, ws) in lines {
        out.push_str(&line);
        if !ws.is_empty() {
            let pad = width.saturating_sub(line.chars().count());
            out.push_str(&" ".repeat(pad));
            out.push_str(&marker(&ws));
        }
        out.push('\n');
        if let Some(worst) = ws.iter().map(|w| w.level()).min() {
            counts[worst as usize] += 1;
        }
        seen.extend(ws);
    }
    let tls13 = e.suites.iter().filter(|s| s.is_tls13()).count();
    out.push_str(&format!(
        "\n{} suites: {} insecure, {} weak, {} with notes only\n",
        e.suites.len(),
        counts[Level::Insecure as usize],
        counts[Level::Weak as usize],
        counts[Level::Note as usize],
    ));
    if tls13 > 0 {
        out.push_str(&format!(
            "(the {tls13} TLS 1.3 suites come from OpenSSL's Ciphersuites setting, not from this string)\n"
        ));
    }
    if !seen.is_empty() {
        let width = seen.iter().map(|w| w.code().len()).max().unwrap_or(0);
        for w in &seen {
            out.push_str(&format!(
                "  {:<width$}  {}\n",
                w.code(),
                w.reason(),
                width = width
            ));
        }
    }
    if let Some(level) = e.seclevel {
        out.push_str(&format!(
            "@SECLEVEL={level} does not change this list; it decides which of these a server may negotiate\n"
        ));
    }
    out
}

fn render_json(e: &Expansion, version: OpenSslVersion) -> String {
    let ciphers: Vec<serde_json::Value> = e
        .suites
        .iter()
        .map(|s| {
            let weak: Vec<serde_json::Value> = weaknesses(s)
                .into_iter()
                .map(|w| {
                    serde_json::json!({
                        "code": w.code(), "level": w.level().label(), "reason": w.reason()
                    })
                })
                .collect();
            serde_json::json!({
                "name": s.name_in(version),
                "iana": s.iana,
                "protocol": s.protocol_in(version).map(|p| p.label()),
                "kx": s.kx.label(),
                "au": s.au.label(),
                "enc": s.enc.label(),
                "mac": s.mac.label(),
                "bits": s.strength_bits,
                "weak": weak,
            })
        })
        .collect();
    let doc = serde_json::json!({
        "openssl": version.label(),
        "ciphers": ciphers,
        "unknown": e.unknown,
        "ignored": e.ignored,
        "seclevel": e.seclevel,
    });
    format!("{doc}\n")
}

fn render_error_json(err: &CipherError, version: OpenSslVersion) -> String {
    let (kind, unknown) = match err {
        CipherError::NoCipherMatch { unknown } => ("no cipher match", unknown.clone()),
        CipherError::InvalidCommand { .. } => ("invalid command", Vec::new()),
    };
    let doc = serde_json::json!({
        "openssl": version.label(),
        "error": kind,
        "message": err.to_string(),
        "ciphers": [],
        "unknown": unknown,
    });
    format!("{doc}\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_marks_weak_suites_and_explains_them() {
        let e = tls::expand(
            "ECDHE-RSA-AES128-GCM-SHA256:AECDH-AES128-SHA:DES-CBC3-SHA",
            OpenSslVersion::V1_1_1,
        )
        .unwrap_or_else(|err| panic!("{err}"));
        let text = render_text(&e, OpenSslVersion::V1_1_1);
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[3].starts_with("ECDHE-RSA-AES128-GCM-SHA256 TLSv1.2 Kx=ECDH"));
        assert!(!lines[3].contains('!'));
        assert!(
            lines[4].ends_with("Mac=SHA1  !! insecure: anonymous; weak: cbc-sha1"),
            "{}",
            lines[4]
        );
        assert!(text.contains("\n5 suites: 1 insecure, 0 weak, 0 with notes only\n"));
        assert!(text.contains("\n  anonymous  no server authentication"));
    }

    #[test]
    fn json_shape() {
        let e = tls::expand("HIGH:FOO", OpenSslVersion::V3_0).unwrap_or_else(|err| panic!("{err}"));
        let v: serde_json::Value =
            serde_json::from_str(&render_json(&e, OpenSslVersion::V3_0)).unwrap_or_default();
        assert_eq!(v["unknown"], serde_json::json!(["FOO"]));
        let first = &v["ciphers"][0];
        assert_eq!(first["name"], "TLS_AES_256_GCM_SHA384");
        assert_eq!(first["protocol"], "TLSv1.3");
        assert_eq!(first["bits"], 256);
        assert_eq!(first["weak"], serde_json::json!([]));
        let err = render_error_json(
            &tls::expand("RC4", OpenSslVersion::V3_0).unwrap_err(),
            OpenSslVersion::V3_0,
        );
        let v: serde_json::Value = serde_json::from_str(&err).unwrap_or_default();
        assert_eq!(v["error"], "no cipher match");
        assert_eq!(v["unknown"], serde_json::json!(["RC4"]));
    }
}
