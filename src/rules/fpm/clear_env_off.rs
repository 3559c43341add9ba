//! FPM104 clear-env-off: `clear_env = no` hands the whole environment of php-fpm's master to
//! every PHP script.
//!
//! php-fpm clears the workers' environment by default and passes only the `env[NAME]` entries
//! (`fpm_env_init_child`). With `clear_env = no` a script sees everything the master was
//! started with: in a container that is every secret given to it (database passwords, API
//! keys, cloud credentials), readable with `getenv()` or `$_SERVER` by any code that runs —
//! a `phpinfo()` page, a debug endpoint, an injected script.
//!
//! An info: many container images turn it off on purpose so that applications read their
//! settings from the environment. The help names the narrower way, `env[NAME] = $NAME`.

use crate::rules::{Context, Rule};
use crate::stack::instances::{php_bool, PoolView};

declare_rule! {
    pub struct ClearEnvOff;
    code: FPM104,
    name: "clear-env-off",
    lang: fpm,
    category: Security,
    severity: Info,
    fix: None,
    group: Hardening,
}

impl Rule for ClearEnvOff {
    fn check(&self, cx: &mut Context<'_>) {
        for inst in cx.fpm_instances() {
            for pool in &inst.pools {
                check_pool(cx, pool);
            }
        }
    }
}

fn check_pool(cx: &mut Context<'_>, pool: &PoolView<'_>) {
    let Some(v) = pool.get("clear_env").filter(|v| v.known) else {
        return;
    };
    // php-fpm reads it as a boolean (`fpm_conf_set_boolean`): yes/on/true/1, no/off/false/0.
    let t = v.text.trim();
    let off = ["no", "off", "false", "0", ""]
        .iter()
        .any(|w| t.eq_ignore_ascii_case(w));
    if !off || php_bool(t) {
        return;
    }
    let Some(entry) = v.entry() else { return };
    let message = format!(
        "[pool {}] clear_env = {}: every PHP script sees the whole environment php-fpm was \
         started with, secrets included",
        pool.name,
        v.at.file().str(entry.raw_value).trim()
    );
    let d = cx.report(v.at.file(), v.span(), message);
    d.help = Some(
        "Keep `clear_env = yes` (the default) and pass what the application needs by name: \
         `env[DATABASE_URL] = $DATABASE_URL`. Then `phpinfo()`, a debug page or injected code \
         cannot read the rest (cloud credentials, other services' passwords)."
            .into(),
    );
}
