//! NGX179 user-root: `user root;` in the main context makes nginx's worker processes — the
//! ones that parse every request — run as root. nginx starts its master as root to bind
//! ports 80 and 443 and to read the keys, then switches the workers to the `user` named
//! here (`ngx_worker_process_init` calls `setgid`/`setuid` when the master runs as root);
//! with `root` no switch happens, so a bug in nginx or in a module, or a path the
//! configuration exposes by mistake (an `alias` traversal, a writable `dav_methods`
//! location), acts with every privilege of the machine.
//!
//! Reported wherever it is written in the main context. When the master is not root (a
//! container started as another user), nginx ignores `user` with a warning ("the \"user\"
//! directive makes sense only if the master process runs with super-user privileges"): the
//! line then does nothing, and the finding says that is the only case in which it is
//! harmless — the configuration cannot tell how nginx is started.

use crate::rules::{Context, Rule};
use crate::syntax::nginx::known;

declare_rule! {
    pub struct UserRoot;
    code: NGX179,
    name: "user-root",
    lang: nginx,
    category: Security,
    severity: Warning,
    fix: None,
    group: Preview,
}

impl Rule for UserRoot {
    fn check(&self, cx: &mut Context<'_>) {
        for d in cx.nginx_directives("user") {
            if d.contexts() & known::MAIN == 0 || d.parent().is_some() {
                continue;
            }
            let Some(user) = d.arg(0) else { continue };
            // `ngx_set_user` looks the name up with getpwnam: `root` is the account with
            // uid 0 on every Linux distribution.
            if user.value() != "root" {
                continue;
            }
            let diag = cx.report(
                d.file(),
                user.raw(),
                "`user root` runs nginx's worker processes, which handle every request, as \
                 root: any bug in nginx or a module, or a file path the configuration exposes, \
                 then acts with all the machine's privileges",
            );
            diag.help = Some(
                "name an unprivileged account (`user www-data;`, `user nginx;`, or leave it out \
                 for `nobody`) and give it read access to the site's files; `user root` only \
                 does nothing when the master itself does not run as root"
                    .to_string(),
            );
        }
    }
}
