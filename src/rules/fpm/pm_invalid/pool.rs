//! FPM001's per-pool checks (`fpm_conf_process_all_pools`), in php-fpm's order: the rule's
//! own file holds the load errors, the global checks and the checks across pools.

use super::{report_at, PRIORITY_HELP, PRIORITY_UNSET};
use crate::diagnostic::Diagnostic;
use crate::rules::Context;
use crate::stack::instances::{At, Instance, PoolView, Val};
use crate::syntax::fpm::{self, Pm};

// ---------------------------------------------------------------------------------------------
// Per-pool checks (`fpm_conf_process_all_pools`), in php-fpm's order
// ---------------------------------------------------------------------------------------------

/// A setting's value as the checks see it.
enum Got<'a, T> {
    /// Written in the files (the last occurrence).
    Set(T, Val<'a>),
    /// Not written anywhere, and every file is known: php-fpm's default applies.
    Default(T),
    /// Written with `${VAR}`, refused by php-fpm's parser (reported on its own), or absent from
    /// a configuration we only see part of.
    Unknown,
}

impl<'a, T: Copy> Got<'a, T> {
    fn value(&self) -> Option<T> {
        match self {
            Got::Set(v, _) | Got::Default(v) => Some(*v),
            Got::Unknown => None,
        }
    }

    fn val(&self) -> Option<&Val<'a>> {
        match self {
            Got::Set(_, v) => Some(v),
            _ => None,
        }
    }
}

pub(super) struct PoolCheck<'i, 'a> {
    pub(super) inst: &'i Instance<'a>,
    pub(super) pool: &'i PoolView<'a>,
}

impl<'a> PoolCheck<'_, 'a> {
    pub(super) fn run(&self, cx: &mut Context<'_>) {
        self.user(cx);
        self.listen(cx);
        self.priority(cx);
        let pm = self.pm(cx);
        // pm.max_children applies to every process manager.
        let children = self.max_children(cx);
        match pm {
            Some(Pm::Dynamic) => self.dynamic(cx, children),
            Some(Pm::Ondemand) => self.ondemand(cx),
            Some(Pm::Static) | None => {}
        }
        self.status_path(cx);
        self.ping(cx);
        self.slowlog(cx);
    }

    fn priority(&self, cx: &mut Context<'_>) {
        if let Got::Set(n, v) = self.int("process.priority", PRIORITY_UNSET) {
            if n != PRIORITY_UNSET && !(-19..=20).contains(&n) {
                let msg = self.msg("process.priority must be included into [-19,20]");
                report_at(cx, &v, msg).help = Some(PRIORITY_HELP.into());
            }
        }
    }

    /// `[pool www] text`, as php-fpm prefixes its pool messages.
    fn msg(&self, text: &str) -> String {
        format!("[pool {}] {text}", self.pool.name)
    }

    fn header(&self) -> At<'a> {
        self.pool.headers[0]
    }

    fn report_missing<'c>(&self, cx: &'c mut Context<'_>, text: &str) -> &'c mut Diagnostic {
        let at = self.header();
        let span = at.header_span().unwrap_or_default();
        cx.report(at.file(), span, self.msg(text))
    }

    fn int(&self, key: &str, default: i32) -> Got<'a, i32> {
        self.parsed(key, default, |t| fpm::parse_int(t.as_bytes()).ok())
    }

    fn time(&self, key: &str, default: i32) -> Got<'a, i32> {
        self.parsed(key, default, |t| fpm::parse_time(t.as_bytes()).ok())
    }

    fn parsed<T>(&self, key: &str, default: T, parse: impl Fn(&str) -> Option<T>) -> Got<'a, T> {
        match self.pool.get(key) {
            Some(v) if v.known => match parse(&v.text) {
                Some(n) => Got::Set(n, v),
                None => Got::Unknown,
            },
            Some(_) => Got::Unknown,
            None if self.inst.complete => Got::Default(default),
            None => Got::Unknown,
        }
    }

    /// Only for a master php-fpm runs as root: one that is not kept in the foreground
    /// (`daemonize = no` is how containers and supervisors run php-fpm, often unprivileged),
    /// and one installed where a service or an image starts it as root (a server's `etc/`,
    /// the PHP images' `usr/local/etc/`). A master kept in a repository's own layout
    /// (`install/assets/php-fpm/`) is started by whatever the repository's scripts say,
    /// often `s6-setuidgid` or `-F` as an unprivileged user: php-fpm then needs no `user`;
    /// so does a master in a tree whose every image runs as an unprivileged `USER`.
    fn user(&self, cx: &mut Context<'_>) {
        let foreground = match self.inst.global("daemonize") {
            None => false,
            Some(v) => !(v.known && fpm::parse_bool(v.text.as_bytes()) == Ok(true)),
        };
        let as_root = self.inst.configs.first().is_some_and(|c| {
            c.files[0]
                .source
                .path
                .components()
                .any(|c| c.as_os_str() == "etc")
        });
        if self.inst.master
            && self.inst.complete
            && as_root
            && !foreground
            && !cx.stack.images_unprivileged
            && self.pool.get("user").is_none()
        {
            self.report_missing(cx, "user has not been defined").help = Some(
                "php-fpm's master runs as root (systemd and the Docker images start it so) and \
                 refuses to run a pool's PHP code as root: set `user` (and `group`), e.g. \
                 `user = www-data`"
                    .into(),
            );
        }
    }

    fn listen(&self, cx: &mut Context<'_>) {
        const TEXT: &str = "no listen address have been defined!";
        match self.pool.get("listen") {
            Some(v) if v.known && v.text.is_empty() => {
                report_at(cx, &v, self.msg(TEXT)).help = Some(LISTEN_HELP.into());
            }
            None if self.inst.complete => {
                self.report_missing(cx, TEXT).help = Some(LISTEN_HELP.into());
            }
            _ => {}
        }
    }

    fn pm(&self, cx: &mut Context<'_>) -> Option<Pm> {
        match self.pool.get("pm") {
            Some(v) if v.known => fpm::parse_pm(v.text.as_bytes()).ok(),
            Some(_) => None,
            None if self.inst.complete => {
                self.report_missing(
                    cx,
                    "the process manager is missing (static, dynamic or ondemand)",
                )
                .help = Some(
                    "add `pm = dynamic` (or static/ondemand) and its pm.* settings to the pool"
                        .into(),
                );
                None
            }
            None => None,
        }
    }

    /// Reports a `pm.max_children` below 1; returns the value when it is valid.
    fn max_children(&self, cx: &mut Context<'_>) -> Option<(i32, Option<Val<'a>>)> {
        const TEXT: &str = "pm.max_children must be a positive value";
        const HELP: &str =
            "pm.max_children is the most requests the pool serves at once; it has no default";
        match self.int("pm.max_children", 0) {
            Got::Set(n, v) if n < 1 => {
                report_at(cx, &v, self.msg(TEXT)).help = Some(HELP.into());
                None
            }
            Got::Default(_) => {
                self.report_missing(cx, TEXT).help =
                    Some(format!("{HELP}: set it, e.g. `pm.max_children = 5`"));
                None
            }
            Got::Set(n, v) => Some((n, Some(v))),
            Got::Unknown => None,
        }
    }

    fn dynamic(&self, cx: &mut Context<'_>, children: Option<(i32, Option<Val<'a>>)>) {
        let min = self.int("pm.min_spare_servers", 0);
        let max = self.int("pm.max_spare_servers", 0);
        let positive = self.spare_positive(cx, "pm.min_spare_servers", &min)
            & self.spare_positive(cx, "pm.max_spare_servers", &max);
        if let (true, Some(lo), Some(hi)) = (positive, min.value(), max.value()) {
            if let Some(children) = &children {
                self.spares_within(cx, (lo, &min), (hi, &max), children);
            }
            if hi < lo {
                self.max_below_min(cx, (lo, &min), (hi, &max));
            } else {
                self.start_servers(cx, lo, hi);
            }
        }
        self.spawn_rate(cx);
    }

    /// A spare-server bound must be at least 1 (unset is 0). False when it is not, or unknown.
    fn spare_positive(&self, cx: &mut Context<'_>, key: &str, got: &Got<'a, i32>) -> bool {
        let Some(n) = got.value() else { return false };
        if n > 0 {
            return true;
        }
        let text = format!("{key}({n}) must be a positive value");
        let d = match got.val() {
            Some(v) => report_at(cx, v, self.msg(&text)),
            None => self.report_missing(cx, &text),
        };
        d.help = Some(format!("`pm = dynamic` needs {key} ≥ 1; it has no default"));
        false
    }

    /// Both bounds at most `pm.max_children` (equal is fine): one finding per bound above it.
    fn spares_within(
        &self,
        cx: &mut Context<'_>,
        (lo, min): (i32, &Got<'a, i32>),
        (hi, max): (i32, &Got<'a, i32>),
        (n, children): &(i32, Option<Val<'a>>),
    ) {
        let text = format!(
            "pm.min_spare_servers({lo}) and pm.max_spare_servers({hi}) cannot be greater than pm.max_children({n})"
        );
        for (key, value, got) in [
            ("pm.min_spare_servers", lo, min),
            ("pm.max_spare_servers", hi, max),
        ] {
            if value <= *n {
                continue;
            }
            let d = match got.val() {
                Some(v) => report_at(cx, v, self.msg(&text)),
                None => self.report_missing(cx, &text),
            };
            d.help = Some(format!(
                "{key} is {value}, more idle workers than the {n} the pool may run: raise pm.max_children or lower {key}"
            ));
            if let Some(c) = children {
                d.label(
                    c.at.file().clone(),
                    c.span(),
                    format!("pm.max_children is {n}"),
                );
            }
        }
    }

    fn max_below_min(
        &self,
        cx: &mut Context<'_>,
        (lo, min): (i32, &Got<'a, i32>),
        (hi, max): (i32, &Got<'a, i32>),
    ) {
        let text =
            format!("pm.max_spare_servers({hi}) must not be less than pm.min_spare_servers({lo})");
        let d = match max.val() {
            Some(v) => report_at(cx, v, self.msg(&text)),
            None => self.report_missing(cx, &text),
        };
        if let Some(v) = min.val() {
            d.label(v.at.file().clone(), v.span(), "the minimum");
        }
        d.help = Some(
            "pm.max_spare_servers is the most idle workers kept, pm.min_spare_servers the fewest: swap them or raise the maximum".into(),
        );
    }

    /// php-fpm replaces a `pm.start_servers` ≤ 0 (or unset) by min + (max − min) / 2, which is
    /// always in range; a set value must lie between the bounds.
    fn start_servers(&self, cx: &mut Context<'_>, lo: i32, hi: i32) {
        let Got::Set(start, v) = self.int("pm.start_servers", 0) else {
            return;
        };
        if start > 0 && (start < lo || start > hi) {
            let text = format!(
                "pm.start_servers({start}) must not be less than pm.min_spare_servers({lo}) and not greater than pm.max_spare_servers({hi})"
            );
            report_at(cx, &v, self.msg(&text)).help = Some(format!(
                "start between {lo} and {hi}, or leave pm.start_servers unset: php-fpm then starts {}",
                lo + (hi - lo) / 2
            ));
        }
    }

    fn spawn_rate(&self, cx: &mut Context<'_>) {
        if let Got::Set(n, v) = self.int("pm.max_spawn_rate", 32) {
            if n < 1 {
                report_at(
                    cx,
                    &v,
                    self.msg("pm.max_spawn_rate must be a positive value"),
                )
                .help = Some("the default is 32 children spawned at once".into());
            }
        }
    }

    fn ondemand(&self, cx: &mut Context<'_>) {
        let events = self.inst.global("events.mechanism").filter(|v| v.known);
        if let Some(ev) = events.filter(|v| {
            v.text.eq_ignore_ascii_case("poll") || v.text.eq_ignore_ascii_case("select")
        }) {
            if let Some(pm) = self.pool.get("pm") {
                let text = "ondemand process manager can ONLY be used when events.mechanism is either epoll (Linux) or kqueue (*BSD).";
                report_at(cx, &pm, self.msg(text)).label(
                    ev.at.file().clone(),
                    ev.span(),
                    format!("events.mechanism is {}", ev.text),
                );
            }
        }
        if let Got::Set(n, v) = self.time("pm.process_idle_timeout", 10) {
            if n < 1 {
                let text = format!("pm.process_idle_timeout({n}s) must be greater than 0s");
                report_at(cx, &v, self.msg(&text)).help =
                    Some("the default is 10s: an idle child is stopped after that".into());
            }
        }
    }

    fn status_path(&self, cx: &mut Context<'_>) {
        let Some(v) = self.pool.get("pm.status_path").filter(|v| v.known) else {
            return;
        };
        let own_listener = self.pool.get("pm.status_listen").is_some();
        if let Some(problem) = path_problem(&v.text, !own_listener) {
            let text = format!("the status path '{}' {problem}", v.text);
            report_at(cx, &v, self.msg(&text)).help = Some(PATH_HELP.into());
        }
    }

    fn ping(&self, cx: &mut Context<'_>) {
        let Some(v) = self.pool.get("ping.path").filter(|v| v.known) else {
            return;
        };
        if let Some(problem) = path_problem(&v.text, true) {
            let text = format!("the ping path '{}' {problem}", v.text);
            report_at(cx, &v, self.msg(&text)).help = Some(PATH_HELP.into());
            return;
        }
        if v.text.is_empty() {
            return;
        }
        if let Some(r) = self
            .pool
            .get("ping.response")
            .filter(|r| r.known && r.text.is_empty())
        {
            report_at(
                cx,
                &r,
                self.msg("the ping response page '' is not long enough"),
            )
            .help = Some("remove the line for php-fpm's default response, `pong`".into());
        }
    }

    fn slowlog(&self, cx: &mut Context<'_>) {
        // `None`: unknown; `Some(false)`: php-fpm has no slowlog file.
        let has_slowlog = match self.pool.get("slowlog") {
            Some(v) if v.known => Some(!v.text.is_empty()),
            Some(_) => None,
            None => self.inst.complete.then_some(false),
        };
        let help = "set `slowlog` to a file, e.g. `slowlog = /var/log/php-fpm/$pool.slow.log`";
        if let Got::Set(t, v) = self.time("request_slowlog_timeout", 0) {
            if t != 0 && has_slowlog == Some(false) {
                let text = "'slowlog' must be specified for use with 'request_slowlog_timeout'";
                report_at(cx, &v, self.msg(text)).help = Some(help.into());
            } else if let Got::Set(limit, lv) = self.time("request_terminate_timeout", 0) {
                if t != 0 && limit != 0 && t > limit {
                    let text = format!("'request_slowlog_timeout' ({t}) can't be greater than 'request_terminate_timeout' ({limit})");
                    report_at(cx, &v, self.msg(&text))
                        .label(lv.at.file().clone(), lv.span(), "requests are killed after this")
                        .help = Some("a request is logged as slow before it is killed: make request_slowlog_timeout the smaller".into());
                }
            }
        }
        if let Got::Set(depth, v) = self.int("request_slowlog_trace_depth", 0) {
            if depth != 0 && has_slowlog == Some(false) {
                let text = "'slowlog' must be specified for use with 'request_slowlog_trace_depth'";
                report_at(cx, &v, self.msg(text)).help = Some(help.into());
            } else if depth < 0 && has_slowlog == Some(true) {
                let text =
                    format!("'request_slowlog_trace_depth' ({depth}) must be a positive value");
                report_at(cx, &v, self.msg(&text)).help = Some(
                    "the number of stack frames written to the slow log; the default is 20".into(),
                );
            }
        }
    }
}

const PATH_HELP: &str =
    "the URI nginx passes for it (its SCRIPT_NAME), e.g. `/fpm-status` or `/ping`: \
     a `/`, then letters, digits and `/_-.~`";

const LISTEN_HELP: &str = "every pool needs its own address: `listen = /run/php/php8.2-fpm.sock` \
     (a unix socket) or `listen = 127.0.0.1:9000`";

/// php-fpm's checks of `pm.status_path` and `ping.path` (an empty value disables them).
/// `min_len`: the status path may be `/` when the pool has its own status listener.
fn path_problem(path: &str, min_len: bool) -> Option<&'static str> {
    if path.is_empty() {
        return None;
    }
    if !path.starts_with('/') {
        return Some("must start with a '/'");
    }
    if min_len && path.len() < 2 {
        return Some("is not long enough");
    }
    let ok = |c: u8| c.is_ascii_alphanumeric() || matches!(c, b'/' | b'-' | b'_' | b'.' | b'~');
    (!path.bytes().all(ok))
        .then_some("must contain only the following characters '[alphanum]/_-.~'")
}
