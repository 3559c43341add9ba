//! NGX186 set-builtin-variable: `set $scheme …;` (or `$host`, `$uri`, `$remote_addr`, any
//! variable nginx's core or upstream module defines) stops nginx from starting. `set` adds
//! its variable with `NGX_HTTP_VAR_CHANGEABLE` (`ngx_http_rewrite_set`), and
//! `ngx_http_add_variable` refuses a name that exists without that flag: `nginx -t` ends with
//! `[emerg] the duplicate "scheme" variable`. Only `$args` and `$limit_rate` are changeable
//! among them, and the prefix families (`$http_*`, `$arg_*`, `$cookie_*`, `$sent_http_*`) are
//! not variables until looked up, so `set $http_x_foo` works.
//!
//! Limited to the core module's variables (`ngx_http_variables.c`) and the upstream module's,
//! which every nginx build has: a module's variable (`$geoip_*`, `$ssl_*`) is a duplicate only
//! where that module is built in, which the configuration does not show.

use crate::analysis::variables::builtin;
use crate::rules::{Context, Rule};

declare_rule! {
    pub struct SetBuiltinVariable;
    code: NGX186,
    name: "set-builtin-variable",
    lang: nginx,
    category: Correctness,
    severity: Error,
    fix: None,
    group: Default,
}

/// The built-in variables `set` may change (`NGX_HTTP_VAR_CHANGEABLE` in
/// `ngx_http_core_variables`).
const CHANGEABLE: [&str; 2] = ["args", "limit_rate"];

impl Rule for SetBuiltinVariable {
    fn check(&self, cx: &mut Context<'_>) {
        for d in cx.nginx_directives("set") {
            let Some(word) = d.arg(0) else { continue };
            let value = word.value();
            let Some(name) = value.strip_prefix('$') else {
                continue;
            };
            let Some(b) = builtin::lookup(name) else {
                continue;
            };
            let always_built = matches!(
                b.module,
                "ngx_http_core_module" | "ngx_http_upstream_module"
            );
            if b.prefix || !always_built || CHANGEABLE.contains(&b.name) {
                continue;
            }
            // nginx names the variable as written, lowercased (`ngx_strlow` in
            // `ngx_http_add_variable`).
            let shown = crate::escape::excerpt(&name.to_ascii_lowercase(), 64);
            let diag = cx.report(
                d.file(),
                word.raw(),
                format!(
                    "the duplicate \"{shown}\" variable: `${shown}` is nginx's own ({}), which \
                     `set` cannot change, so nginx refuses to start",
                    b.module
                ),
            );
            diag.help = Some(
                "use a variable of your own (`set $my_scheme …;`) and read it where the value \
                 is needed; nginx lets `set` change only `$args` and `$limit_rate` among its \
                 variables"
                    .to_string(),
            );
        }
    }
}
