//! FPM101 fpm-socket-world-writable: a pool's unix socket that every local user may connect
//! to, and so run PHP code as the pool's user.
//!
//! Connecting to a unix socket needs write permission on it. php-fpm gives the socket
//! `listen.mode` (default 0660, `fpm_unix_resolve_socket_permissions`), so a mode with the
//! "other" write bit (0666, 0777) lets any account on the host — another site's pool, a
//! compromised service, a shell user — send FastCGI requests with its own `SCRIPT_FILENAME`
//! and `PHP_VALUE`, running code as this pool's user with its files and secrets.
//!
//! Reported at the `listen.mode` value of pools that listen on a unix socket. Pools with
//! `listen.acl_users` / `listen.acl_groups` are left alone: there php-fpm grants access with
//! ACL entries. The fix (unsafe: nginx's user must then be the socket's owner or in its
//! group, which STK004 checks) sets 0660.

use crate::fix::{edits, Fix};
use crate::rules::{Context, Rule};
use crate::stack::fpm::Listen;
use crate::stack::instances::PoolView;

declare_rule! {
    pub struct FpmSocketWorldWritable;
    code: FPM101,
    name: "fpm-socket-world-writable",
    lang: fpm,
    category: Security,
    severity: Warning,
    fix: Always,
    group: Default,
}

impl Rule for FpmSocketWorldWritable {
    fn check(&self, cx: &mut Context<'_>) {
        for inst in cx.fpm_instances() {
            for pool in &inst.pools {
                check_pool(cx, pool);
            }
        }
    }
}

/// `listen.mode` as php-fpm reads it: octal (`strtoul(…, 8)`), optional leading zeros.
fn parse_mode(text: &str) -> Option<u32> {
    let t = text.trim();
    if t.is_empty() || !t.bytes().all(|b| (b'0'..=b'7').contains(&b)) {
        return None;
    }
    u32::from_str_radix(t, 8).ok()
}

fn check_pool(cx: &mut Context<'_>, pool: &PoolView<'_>) {
    let unix = pool
        .get("listen")
        .filter(|v| v.known)
        .and_then(|v| Listen::parse(&v.text))
        .is_some_and(|l| matches!(l, Listen::Unix { .. }));
    if !unix || pool.get("listen.acl_users").is_some() || pool.get("listen.acl_groups").is_some() {
        return;
    }
    let Some(mode) = pool.get("listen.mode").filter(|v| v.known) else {
        return;
    };
    let Some(bits) = parse_mode(&mode.text) else {
        return;
    };
    if bits & 0o002 == 0 {
        return;
    }
    let message = format!(
        "[pool {}] listen.mode = {} lets every local user connect to the socket and run PHP \
         code as the pool's user",
        pool.name,
        mode.text.trim()
    );
    let Some(entry) = mode.entry() else { return };
    let fix = Fix::unsafe_(
        "Set listen.mode = 0660",
        vec![edits::replace_fpm_value(mode.at.file(), entry, "0660")],
    );
    let d = cx.report(mode.at.file(), mode.span(), message);
    d.help = Some(
        "Connecting to a unix socket needs write permission on it, and a FastCGI request \
         chooses the script and its PHP settings. Use 0660 with `listen.owner`/`listen.group` \
         set to nginx's user or group (php-fpm's default), or `listen.acl_users`."
            .into(),
    );
    d.with_fix(fix);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_read_as_octal() {
        assert_eq!(parse_mode("0666"), Some(0o666));
        assert_eq!(parse_mode("666"), Some(0o666));
        assert_eq!(parse_mode(" 0660 "), Some(0o660));
        assert_eq!(parse_mode("0o666"), None);
        assert_eq!(parse_mode("rw"), None);
    }
}
