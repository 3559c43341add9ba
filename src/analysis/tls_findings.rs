//! How the TLS rules word and place their findings: which suites count (the ones nginx can
//! negotiate through the cipher string), lists of suites and names, and labels on the servers
//! that rely on a setting.

use crate::analysis::cursor::Directive;
use crate::diagnostic::Diagnostic;
use crate::tls::{Kx, Suite};

/// Whether nginx can negotiate `suite` with an ordinary certificate through the cipher
/// string: a TLS ≤ 1.2 suite with RSA, ephemeral DH or ephemeral ECDH key exchange
/// (anonymous ones included: they need no certificate). PSK and SRP need callbacks nginx
/// never sets, fixed-DH/ECDH need DH/ECDH certificates, Kerberos needs a keytab.
pub fn negotiable(suite: &Suite) -> bool {
    !suite.is_tls13() && matches!(suite.kx, Kx::Rsa | Kx::Dhe | Kx::Ecdhe)
}

/// `a`, `a and b`, `a, b and c`.
pub fn join_and(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// `N suite(s): A, B, …` with at most `shown` names.
pub fn suite_list(names: &[&str], shown: usize) -> String {
    let n = names.len();
    let plural = if n == 1 { "suite" } else { "suites" };
    let mut list = names
        .iter()
        .take(shown)
        .copied()
        .collect::<Vec<_>>()
        .join(", ");
    if n > shown {
        list.push_str(", …");
    }
    format!("{n} {plural}: {list}")
}

/// Points at the first three `servers` relying on a default, with `text` on each: enough
/// to find them without burying the diagnostic in labels.
pub fn label_users(d: &mut Diagnostic, servers: &[Directive<'_>], text: &str) {
    for s in servers.iter().take(3) {
        d.label(s.file().clone(), s.span(), text);
    }
}
