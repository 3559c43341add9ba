//! FPM108 opcache-defeated: a production configuration that turns OPcache off for php-fpm
//! (`opcache.enable = 0`), or keeps it checking every script's timestamp on every request
//! (`opcache.validate_timestamps` on with `opcache.revalidate_freq = 0`).
//!
//! Without OPcache every request compiles every script it includes again, which for a
//! framework application is most of its CPU time. With `revalidate_freq = 0` the cache stays,
//! but each included file costs a `stat()` per request, and a deploy that swaps files while
//! requests run can mix versions. Both are right for development, where a changed file must
//! show at once: a development configuration (`php_ini::development`) is not judged. Only
//! values written in a pool or php.ini count ([`crate::analysis::php_writes`]).

use crate::analysis::php_writes::{php_writes, PhpWrite};
use crate::fix::{edits, Fix};
use crate::rules::{Context, Rule};
use crate::stack::instances::php_bool;

declare_rule! {
    pub struct OpcacheDefeated;
    code: FPM108,
    name: "opcache-defeated",
    lang: fpm,
    category: Performance,
    severity: Info,
    fix: Sometimes,
    group: Default,
}

impl Rule for OpcacheDefeated {
    fn check(&self, cx: &mut Context<'_>) {
        let instances = cx.fpm_instances();
        for w in php_writes(cx.stack, instances, "opcache.enable") {
            if w.development || php_bool(&w.text) {
                continue;
            }
            let message = format!(
                "{}`{}` turns OPcache off for php-fpm: every request compiles every script it \
                 includes again, often most of its CPU time",
                w.prefix(),
                w.written
            );
            let d = cx.report(w.file, w.span, message);
            d.help = Some(
                "remove the line (OPcache is on by default once the extension is loaded), or keep \
                 it off only in development configurations"
                    .into(),
            );
            d.with_fix(Fix::unsafe_(
                "Turn OPcache on",
                vec![edits::replace_fpm_value(w.file, w.entry, "1")],
            ));
        }
        for w in php_writes(cx.stack, instances, "opcache.revalidate_freq") {
            if w.development || w.text.trim() != "0" || !validates(&w) {
                continue;
            }
            let message = format!(
                "{}`{}` makes OPcache check the timestamp of every included script on every \
                 request: a `stat()` per file per request, and files swapped by a deploy are \
                 picked up while requests run",
                w.prefix(),
                w.written
            );
            cx.report(w.file, w.span, message).help = Some(
                "in production set `opcache.validate_timestamps = 0` and reset the cache when \
                 deploying (reload php-fpm), or check at most every few seconds \
                 (`opcache.revalidate_freq = 2`, PHP's default)"
                    .into(),
            );
        }
    }
}

/// Whether `opcache.validate_timestamps` is on where this `revalidate_freq` applies (PHP's
/// default is on).
fn validates(w: &PhpWrite<'_>) -> bool {
    w.scope
        .php("opcache.validate_timestamps")
        .is_none_or(|v| !v.known || php_bool(&v.text))
}
