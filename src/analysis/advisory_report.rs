//! How the rules for nginx's own advisories (analysis::nginx_advisories) word a finding
//! by what is known of the version: the configured `[host] nginx` is affected (warning),
//! has the fix (no finding), or is not known (information, naming the fixed versions).

use crate::analysis::nginx_advisories::{Advisory, Status};
use crate::diagnostic::Severity;
use crate::host::HostFacts;

/// The severity and the sentence about the version, or `None` when the version is fixed.
pub fn verdict(adv: &Advisory, host: &HostFacts) -> Option<(Severity, String)> {
    let version = host.nginx.as_ref().map(|f| f.value.as_str());
    match adv.status(version) {
        Status::Fixed => None,
        Status::Vulnerable => Some((
            Severity::Warning,
            format!(
                "nginx {} is affected by {} (fixed in {})",
                version.unwrap_or_default(),
                adv.cve,
                adv.fixes()
            ),
        )),
        Status::Unknown => Some((
            Severity::Info,
            format!(
                "if your nginx is older than {} it is affected by {} (set `[host] nginx` to know)",
                adv.fixes(),
                adv.cve
            ),
        )),
    }
}
