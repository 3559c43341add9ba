//! What php-fpm 8.2's loader checks per entry: the directives of `[global]` and of a pool, the
//! kind of each value, and the loader's per-entry errors.

use super::values::{
    parse_bool, parse_int, parse_log_level, parse_pm, parse_rlimit_core, parse_syslog_facility,
    parse_time, POOL_NOT_DEFINED,
};
use super::{Entry, FpmFile, LineKind};
use crate::syntax::error::SyntaxError;

/// How php-fpm parses a directive's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueKind {
    /// Any string; `$pool` is substituted (and refused outside a pool).
    String,
    Integer,
    Boolean,
    Time,
    Pm,
    LogLevel,
    RlimitCore,
    SyslogFacility,
}

impl ValueKind {
    /// Runs php-fpm's parser for this kind; `Err` is php-fpm's message.
    pub fn check(self, v: &[u8], in_pool: bool) -> Result<(), &'static str> {
        match self {
            ValueKind::String if !in_pool && v.windows(5).any(|w| w == b"$pool") => {
                Err(POOL_NOT_DEFINED)
            }
            ValueKind::String => Ok(()),
            ValueKind::Integer => parse_int(v).map(drop),
            ValueKind::Boolean => parse_bool(v).map(drop),
            ValueKind::Time => parse_time(v).map(drop),
            ValueKind::Pm => parse_pm(v).map(drop),
            ValueKind::LogLevel => parse_log_level(v).map(drop),
            ValueKind::RlimitCore => parse_rlimit_core(v).map(drop),
            ValueKind::SyslogFacility => parse_syslog_facility(v).map(drop),
        }
    }
}

/// `ini_fpm_global_options` of php-fpm 8.2 as Debian builds it (syslog, systemd; every name
/// checked against `php-fpm8.2 -t`).
pub const GLOBAL_DIRECTIVES: &[(&str, ValueKind)] = &[
    ("pid", ValueKind::String),
    ("error_log", ValueKind::String),
    ("syslog.ident", ValueKind::String),
    ("syslog.facility", ValueKind::SyslogFacility),
    ("log_buffering", ValueKind::Boolean),
    ("log_level", ValueKind::LogLevel),
    ("log_limit", ValueKind::Integer),
    ("emergency_restart_threshold", ValueKind::Integer),
    ("emergency_restart_interval", ValueKind::Time),
    ("process_control_timeout", ValueKind::Time),
    ("process.max", ValueKind::Integer),
    ("process.priority", ValueKind::Integer),
    ("daemonize", ValueKind::Boolean),
    ("rlimit_files", ValueKind::Integer),
    ("rlimit_core", ValueKind::RlimitCore),
    ("events.mechanism", ValueKind::String),
    ("systemd_interval", ValueKind::Time),
];

/// `ini_fpm_pool_options` of php-fpm 8.2 on Linux (ACL and AppArmor built in; `listen.setfib` is
/// FreeBSD-only and unknown here).
pub const POOL_DIRECTIVES: &[(&str, ValueKind)] = &[
    ("prefix", ValueKind::String),
    ("user", ValueKind::String),
    ("group", ValueKind::String),
    ("listen", ValueKind::String),
    ("listen.backlog", ValueKind::Integer),
    ("listen.acl_users", ValueKind::String),
    ("listen.acl_groups", ValueKind::String),
    ("listen.owner", ValueKind::String),
    ("listen.group", ValueKind::String),
    ("listen.mode", ValueKind::String),
    ("listen.allowed_clients", ValueKind::String),
    ("process.priority", ValueKind::Integer),
    ("process.dumpable", ValueKind::Boolean),
    ("pm", ValueKind::Pm),
    ("pm.max_children", ValueKind::Integer),
    ("pm.start_servers", ValueKind::Integer),
    ("pm.min_spare_servers", ValueKind::Integer),
    ("pm.max_spare_servers", ValueKind::Integer),
    ("pm.max_spawn_rate", ValueKind::Integer),
    ("pm.process_idle_timeout", ValueKind::Time),
    ("pm.max_requests", ValueKind::Integer),
    ("pm.status_path", ValueKind::String),
    ("pm.status_listen", ValueKind::String),
    ("ping.path", ValueKind::String),
    ("ping.response", ValueKind::String),
    ("access.log", ValueKind::String),
    ("access.format", ValueKind::String),
    ("slowlog", ValueKind::String),
    ("request_slowlog_timeout", ValueKind::Time),
    ("request_slowlog_trace_depth", ValueKind::Integer),
    ("request_terminate_timeout", ValueKind::Time),
    (
        "request_terminate_timeout_track_finished",
        ValueKind::Boolean,
    ),
    ("rlimit_files", ValueKind::Integer),
    ("rlimit_core", ValueKind::RlimitCore),
    ("chroot", ValueKind::String),
    ("chdir", ValueKind::String),
    ("catch_workers_output", ValueKind::Boolean),
    ("decorate_workers_output", ValueKind::Boolean),
    ("clear_env", ValueKind::Boolean),
    ("security.limit_extensions", ValueKind::String),
    ("apparmor_hat", ValueKind::String),
];

/// The array directives (`name[key] = value`), matched case-sensitively.
pub const ARRAY_DIRECTIVES: &[&str] = &[
    "env",
    "php_value",
    "php_admin_value",
    "php_flag",
    "php_admin_flag",
    "access.suppress_path",
];

/// Looks a scalar directive up as php-fpm does (`strcasecmp`); returns its canonical name.
pub fn directive(in_pool: bool, name: &[u8]) -> Option<(&'static str, ValueKind)> {
    let table = if in_pool {
        POOL_DIRECTIVES
    } else {
        GLOBAL_DIRECTIVES
    };
    table
        .iter()
        .find(|(n, _)| name.eq_ignore_ascii_case(n.as_bytes()))
        .copied()
}

/// Which section the first lines of a file belong to. php-fpm keeps its current section across
/// `include`: the main file starts in `[global]`, an included file in the includer's section.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StartIn {
    Global,
    Pool,
}

/// The section php-fpm is in after an `include` line (see
/// [`FpmFile::load_errors_after_includes`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AfterInclude {
    /// The include read nothing: the section before it continues.
    Same,
    /// The last file it read ended in this section.
    In(StartIn),
    /// It was not read (a path of the server, outside the tree): unknown.
    Unknown,
}

impl FpmFile {
    /// The errors php-fpm 8.2's loader reports for individual entries, with its wording
    /// (`unknown entry 'x'`, `unable to parse value for entry 'pm': invalid process manager
    /// (static, dynamic or ondemand)`, `Array are not allowed in the global section`, …), one per
    /// entry, in file order. Syntax errors are [`parse`]'s; `include` targets are not resolved here.
    pub fn load_errors(
        &self,
        src: &[u8],
        env: &dyn Fn(&str) -> Option<String>,
        start: StartIn,
    ) -> Vec<SyntaxError> {
        self.load_errors_after_includes(src, env, start, &|_| AfterInclude::Same)
    }

    /// [`FpmFile::load_errors`], where `after_include(line)` says which section php-fpm is
    /// in after the `include` on that line: php-fpm keeps the section the last included file
    /// ended in (`fpm_conf.c`'s `current_wp`), so an entry after `include=…/*.conf` belongs
    /// to the last included pool, not to `[global]`. Until the next header after an include
    /// whose end is unknown (not read), an entry is refused only if php-fpm would refuse it
    /// in `[global]` and in a pool alike.
    pub fn load_errors_after_includes(
        &self,
        src: &[u8],
        env: &dyn Fn(&str) -> Option<String>,
        start: StartIn,
        after_include: &dyn Fn(usize) -> AfterInclude,
    ) -> Vec<SyntaxError> {
        let mut in_pool = Some(start == StartIn::Pool);
        let mut out = Vec::new();
        if self.xml {
            return out;
        }
        for (i, line) in self.lines.iter().enumerate() {
            match &line.kind {
                LineKind::Section(s) => in_pool = Some(!s.is_global(src)),
                LineKind::Entry(e) if e.is_include(src) => match after_include(i) {
                    AfterInclude::Same => {}
                    AfterInclude::In(s) => in_pool = Some(s == StartIn::Pool),
                    AfterInclude::Unknown => in_pool = None,
                },
                LineKind::Entry(e) => {
                    let msg = match in_pool {
                        Some(p) => entry_error(e, src, env, p),
                        None => entry_error(e, src, env, false).and(entry_error(e, src, env, true)),
                    };
                    if let Some(msg) = msg {
                        out.push(SyntaxError::new(msg, e.key));
                    }
                }
                _ => {}
            }
        }
        out
    }
}

/// `fpm_conf_ini_parser_entry` / `fpm_conf_ini_parser_array`, in their order of checks.
pub(super) fn entry_error(
    e: &Entry,
    src: &[u8],
    env: &dyn Fn(&str) -> Option<String>,
    in_pool: bool,
) -> Option<String> {
    let name = e.name_bytes(src);
    let value = e.value_text(src, env);
    let Some(subkey) = e.subkey_text(src, env) else {
        if name == b"include" {
            return None;
        }
        let Some((canonical, kind)) = directive(in_pool, name) else {
            return Some(format!("unknown entry '{}'", e.key_text(src)));
        };
        return kind
            .check(&value, in_pool)
            .err()
            .map(|m| format!("unable to parse value for entry '{canonical}': {m}"));
    };
    let name_text = String::from_utf8_lossy(name);
    if name == b"access.suppress_path" {
        if !subkey.is_empty() {
            return Some("Keys provided to field 'access.suppress_path' are ignored".into());
        }
        if !value.starts_with(b"/") {
            return Some(
                "Values provided to field 'access.suppress_path' must begin with '/'".into(),
            );
        }
    } else if subkey.is_empty() {
        return Some(format!("You must provide a key for field '{name_text}'"));
    }
    if !in_pool {
        return Some("Array are not allowed in the global section".into());
    }
    match name {
        b"env" if value.is_empty() => Some("empty value".into()),
        b"php_flag" | b"php_admin_flag" => parse_bool(&value).err().map(|m| {
            format!(
                "error while parsing '{name_text}[{}]' : {m}",
                String::from_utf8_lossy(&subkey)
            )
        }),
        n if ARRAY_DIRECTIVES.iter().any(|a| a.as_bytes() == n) => None,
        _ => Some(format!("unknown directive '{name_text}'")),
    }
}
