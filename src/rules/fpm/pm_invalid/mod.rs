//! FPM001 pm-invalid: a setting php-fpm refuses at startup. php-fpm 8.2 checks every pool
//! after loading its files (`fpm_conf_process_all_pools`) and stops at the first failure
//! with `ERROR: failed to post process the configuration`; the service does not start.
//!
//! Covered, each with php-fpm's own message text (checked against `php-fpm8.2 -t`):
//! values its parsers refuse (`unable to parse value for entry 'pm': …`, from
//! [`FpmFile::load_errors`](crate::syntax::fpm::FpmFile::load_errors); unknown names are
//! FPM002's), the global checks (`log_limit`, `process.max`, `process.priority`,
//! `events.mechanism`), and per pool: `user` (see below), `listen`, `process.priority`, `pm`,
//! `pm.max_children`, the dynamic spare-server bounds (with php-fpm's default
//! `start_servers = min + (max − min) / 2`), `pm.max_spawn_rate`, ondemand's event mechanism
//! and `pm.process_idle_timeout`, the status and ping paths, `ping.response`,
//! `request_slowlog_timeout` / `request_slowlog_trace_depth` against `slowlog` and
//! `request_terminate_timeout`, and two pools on the same `listen` address.
//!
//! Not covered: checks of the target machine's file system and accounts (`prefix`, `chroot`
//! and `chdir` must exist; `user`/`group`/`listen.owner` must exist), and `access.format`.
//!
//! What can be known from files. Pools are merged by name across the files php-fpm reads
//! (a master and its includes; pool files no master reads are grouped by directory, as
//! `include = pool.d/*.conf` would read them). A value written in the files is always
//! judged; a check that relies on a setting being *absent* (php-fpm's default) runs only when
//! every file php-fpm reads is known: a master whose includes were all read, without syntax
//! or load errors (which stop php-fpm earlier anyway). A lone pool file may be completed by a
//! file we do not see, so its missing settings are not reported. Values with `${VAR}` or a
//! template placeholder (`{{ … }}`, `{% … %}`, `<% … %>`) are unknown and never judged.
//!
//! `user`: php-fpm refuses a pool without `user` only when its master runs as root without
//! `--allow-to-run-as-root`. Masters are started as root in production (Debian's systemd
//! unit, the official Docker images), so a pool of a complete master configuration without
//! `user` is reported; lone pool files are not (their master may run unprivileged, as in
//! rootless containers).

mod pool;

use crate::diagnostic::Diagnostic;
use crate::rules::{Context, Rule};
use crate::source::Span;
use crate::stack::instances::{is_unknown_name, value_span, Instance, PoolView, Val};
use crate::syntax::fpm;
use pool::PoolCheck;
use std::collections::HashMap;

declare_rule! {
    pub struct PmInvalid;
    code: FPM001,
    name: "pm-invalid",
    lang: fpm,
    category: Correctness,
    severity: Error,
    fix: None,
    group: Default,
}

impl Rule for PmInvalid {
    fn check(&self, cx: &mut Context<'_>) {
        for inst in cx.fpm_instances() {
            report_load_errors(cx, inst);
            check_globals(cx, inst);
            check_has_pool(cx, inst);
            for pool in &inst.pools {
                PoolCheck { inst, pool }.run(cx);
            }
            check_duplicate_listen(cx, inst);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Load errors (values php-fpm's parsers refuse)
// ---------------------------------------------------------------------------------------------

fn report_load_errors(cx: &mut Context<'_>, inst: &Instance<'_>) {
    for err in &inst.load_errors {
        if is_unknown_name(&err.error.message) {
            continue;
        }
        let file = err.file();
        let about_value = [
            "unable to parse value",
            "error while parsing",
            "empty value",
            "Values provided",
        ]
        .iter()
        .any(|p| err.error.message.starts_with(p));
        let span = err
            .entry()
            .filter(|_| about_value)
            .map_or(err.error.span, value_span);
        let help = load_error_help(&err.error.message);
        let d = cx.report(file, span, err.error.message.clone());
        d.help = help;
    }
}

fn load_error_help(message: &str) -> Option<String> {
    let text = if message.ends_with(fpm::INVALID_BOOLEAN) {
        "php-fpm accepts yes/no, on/off, true/false or 1/0 (in quotes only in lower case)"
    } else if message.ends_with(fpm::INVALID_NUMBER) {
        "php-fpm takes plain digits here: no unit, no sign but a leading `-`, no blanks"
    } else if message.ends_with(fpm::UNKNOWN_TIME_SUFFIX) || message.ends_with(fpm::INVALID_TIME) {
        "a time is a number with an optional suffix s (default), m, h or d: `30s`, `5m`"
    } else if message.ends_with("are not allowed in the global section") {
        "`php_value[…]`, `env[…]` and the other arrays belong in a pool section such as `[www]`"
    } else if message.ends_with(fpm::POOL_NOT_DEFINED) {
        "`$pool` is the pool's name: it can only be used inside a pool section"
    } else if message.ends_with(fpm::INVALID_PM) {
        "`static` keeps pm.max_children workers, `dynamic` keeps spare workers between the pm.*_spare_servers bounds, `ondemand` starts workers per request"
    } else if message.ends_with(fpm::INVALID_LOG_LEVEL) {
        "log_level is one of alert, error, warning, notice (the default) or debug"
    } else if message.ends_with(fpm::INVALID_RLIMIT_CORE) {
        "rlimit_core is a size in bytes (0 disables core dumps) or `unlimited`"
    } else if message.ends_with(fpm::INVALID_FACILITY) {
        "syslog.facility is a syslog facility name: daemon (the default), local0 … local7, user, …"
    } else if message.starts_with("You must provide a key") {
        "an array setting names what it sets: `php_admin_value[memory_limit] = 256M`"
    } else if message == "empty value" {
        "php-fpm refuses `env[NAME] =` without a value: remove the line, or give it one"
    } else if message.contains("access.suppress_path") {
        "write `access.suppress_path[] = /ping`: no key, and a path starting with `/`"
    } else {
        return None;
    };
    Some(text.into())
}

// ---------------------------------------------------------------------------------------------
// Global checks (`fpm_conf_post_process`)
// ---------------------------------------------------------------------------------------------

/// php-fpm's `ZLOG_MIN_LIMIT`.
const LOG_LIMIT_MIN: i32 = 512;
/// `process.priority` 64 means "not set" to php-fpm.
const PRIORITY_UNSET: i32 = 64;
const PRIORITY_HELP: &str = "a nice(2) value: -19 is the highest priority, 20 the lowest";
/// The event mechanisms php-fpm offers on Linux (`kqueue`, `/dev/poll` and `port` are BSD's and
/// Solaris'); only `epoll` can drive `pm = ondemand`.
const LINUX_EVENTS: [&str; 3] = ["epoll", "poll", "select"];

fn check_globals(cx: &mut Context<'_>, inst: &Instance<'_>) {
    if let Some((n, v)) = inst.global("log_limit").and_then(|v| Some((v.int()?, v))) {
        if n < LOG_LIMIT_MIN {
            report_at(cx, &v, format!("log_limit must be greater than {LOG_LIMIT_MIN}"))
                .help = Some(format!(
                    "php-fpm needs room for at least {LOG_LIMIT_MIN} bytes per log line; its default is 1024"
                ));
        }
    }
    if let Some((n, v)) = inst.global("process.max").and_then(|v| Some((v.int()?, v))) {
        if n < 0 {
            report_at(cx, &v, "process_max can't be negative").help =
                Some("0 (the default) means no limit".into());
        }
    }
    if let Some((n, v)) = inst
        .global("process.priority")
        .and_then(|v| Some((v.int()?, v)))
    {
        if n != PRIORITY_UNSET && !(-19..=20).contains(&n) {
            report_at(cx, &v, "process.priority must be included into [-19,20]").help =
                Some(PRIORITY_HELP.into());
        }
    }
    if let Some(v) = inst.global("events.mechanism").filter(|v| v.known) {
        if !LINUX_EVENTS.iter().any(|m| v.text.eq_ignore_ascii_case(m)) {
            report_at(
                cx,
                &v,
                format!(
                    "event mechanism '{}' is not available on this system",
                    v.text
                ),
            )
            .help =
                Some("on Linux php-fpm offers epoll (chosen by default), poll and select".into());
        }
    }
}

fn check_has_pool(cx: &mut Context<'_>, inst: &Instance<'_>) {
    if !(inst.master && inst.complete && inst.pools.is_empty()) {
        return;
    }
    let Some(cfg) = inst.configs.first() else {
        return;
    };
    let Some(file) = cfg.files.first() else {
        return;
    };
    let span = file.parsed.file.lines.first().map_or(Span::new(0, 0), |l| {
        Span::new(l.span.start, l.span.end - l.eol.len())
    });
    cx.report(
        &file.source,
        span,
        "No pool defined. at least one pool section must be specified in config file",
    )
    .help = Some(
        "php-fpm refuses to start without a pool: add a `[www]` section or an `include` of the pool files".into(),
    );
}

/// Two pools listening on the same address (php-fpm compares the strings exactly).
fn check_duplicate_listen(cx: &mut Context<'_>, inst: &Instance<'_>) {
    // The first pool on each address, by address (thousands of pools: a lookup, not a scan).
    let mut seen: HashMap<String, (&PoolView<'_>, Val<'_>)> = HashMap::new();
    for pool in &inst.pools {
        let Some(v) = pool.get("listen").filter(|v| v.known && !v.text.is_empty()) else {
            continue;
        };
        // A relative socket path is resolved against each pool's own prefix.
        let relative_socket = !v.text.starts_with('/')
            && !v.text.contains(':')
            && !v.text.bytes().all(|b| b.is_ascii_digit());
        if relative_socket && pool.get("prefix").is_some() {
            continue;
        }
        if let Some((first, fv)) = seen.get(&v.text) {
            let text = format!(
                "[pool {}] unable to set listen address as it's already used in another pool '{}'",
                pool.name, first.name
            );
            report_at(cx, &v, text)
                .label(
                    fv.at.file().clone(),
                    fv.span(),
                    format!("pool {} listens here", first.name),
                )
                .help = Some(
                "give each pool its own socket or port, e.g. `listen = /run/php/$pool.sock`".into(),
            );
            continue;
        }
        seen.insert(v.text.clone(), (pool, v));
    }
}

fn report_at<'c>(
    cx: &'c mut Context<'_>,
    v: &Val<'_>,
    msg: impl Into<String>,
) -> &'c mut Diagnostic {
    cx.report(v.at.file(), v.span(), msg)
}
