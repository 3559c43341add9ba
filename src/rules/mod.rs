//! The rule engine: one registry of every rule, selection, and running rules on a stack.
//!
//! A rule is a pure function of the [`Stack`] (with its host facts) and its options. Adding a
//! rule means: `rules/<lang>/<CODE>.toml` (metadata and docs), one file under
//! `src/rules/<lang>/`, one line in [`registry!`] below, and fixtures under
//! `fixtures/<lang>/<CODE>/`. A missing TOML is a compile error; `tests/registry.rs` keeps
//! the rest in step.

pub mod fpm;
pub mod lint;
pub mod meta;
pub mod nginx;
pub mod stack;
pub mod sysctl;
pub mod tls;

use crate::diagnostic::{Diagnostic, Severity};
use crate::host::HostFacts;
use crate::source::{Shared, Span};
use crate::stack::model::Stack;
use meta::RuleMeta;
use std::sync::OnceLock;

pub trait Rule: Sync {
    fn check(&self, cx: &mut Context<'_>);
}

pub struct RuleEntry {
    pub code: &'static str,
    pub name: &'static str,
    /// `nginx`, `fpm`, `sysctl`, `stack` or `lint`: the folder of its docs and fixtures.
    pub lang: &'static str,
    pub toml: &'static str,
    meta: OnceLock<RuleMeta>,
    pub rule: &'static dyn Rule,
}

impl RuleEntry {
    /// The rule's metadata. The TOML is embedded and checked by `tests/registry.rs`, so a
    /// parse failure here is a build defect, reported loudly.
    pub fn meta(&self) -> &RuleMeta {
        self.meta.get_or_init(|| {
            RuleMeta::parse(self.toml).unwrap_or_else(|e| {
                panic!("rules/{}/{}.toml is invalid: {e}", self.lang, self.code)
            })
        })
    }

    pub fn severity(&self) -> Severity {
        self.meta().severity.into()
    }
}

macro_rules! registry {
    ($($lang:literal $code:ident $name:literal => $rule:expr;)*) => {
        const COUNT: usize = [$(stringify!($code)),*].len();
        /// Every rule, in code order.
        pub static RULES: [RuleEntry; COUNT] = [$(RuleEntry {
            code: stringify!($code),
            name: $name,
            lang: $lang,
            toml: include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/rules/", $lang, "/", stringify!($code), ".toml")),
            meta: OnceLock::new(),
            rule: &$rule,
        }),*];
    };
}

registry! {
    "nginx" NGX000 "syntax-error" => nginx::syntax_error::SyntaxError;
    "nginx" NGX001 "ssl-dhe-key-exchange" => tls::ssl_dhe_key_exchange::SslDheKeyExchange;
    "nginx" NGX002 "ssl-insecure-ciphers" => tls::ssl_insecure_ciphers::SslInsecureCiphers;
    "nginx" NGX003 "ssl-legacy-protocols" => tls::ssl_legacy_protocols::SslLegacyProtocols;
    "nginx" NGX004 "ssl-session-cache-missing" => tls::ssl_session_cache_missing::SslSessionCacheMissing;
    "nginx" NGX005 "worker-processes-mismatch" => nginx::worker_processes_mismatch::WorkerProcessesMismatch;
    "nginx" NGX006 "worker-cpu-affinity-mismatch" => nginx::worker_cpu_affinity_mismatch::WorkerCpuAffinityMismatch;
    "nginx" NGX007 "worker-connections-exceed-nofile" => nginx::worker_connections_exceed_nofile::WorkerConnectionsExceedNofile;
    "nginx" NGX008 "php-location-regex-unanchored" => nginx::php_location_regex_unanchored::PhpLocationRegexUnanchored;
    "nginx" NGX009 "fastcgi-over-loopback-tcp" => nginx::fastcgi_over_loopback_tcp::FastcgiOverLoopbackTcp;
    "nginx" NGX010 "gzip-types-duplicate-html" => nginx::gzip_types_duplicate_html::GzipTypesDuplicateHtml;
    "nginx" NGX011 "ssl-ciphers-invalid" => tls::ssl_ciphers_invalid::SslCiphersInvalid;
    "nginx" NGX020 "include-not-found" => nginx::include_not_found::IncludeNotFound;
    "nginx" NGX021 "include-cycle" => nginx::include_cycle::IncludeCycle;
    "nginx" NGX022 "server-tokens-on" => nginx::server_tokens_on::ServerTokensOn;
    "nginx" NGX023 "duplicate-directive" => nginx::duplicate_directive::DuplicateDirective;
    "nginx" NGX040 "header-crlf-injection" => nginx::header_crlf_injection::HeaderCrlfInjection;
    "fpm" FPM000 "fpm-syntax-error" => fpm::syntax_error::SyntaxError;
    "fpm" FPM001 "pm-invalid" => fpm::pm_invalid::PmInvalid;
    "fpm" FPM002 "unknown-directive" => fpm::unknown_directive::UnknownDirective;
    "fpm" FPM003 "invalid-php-ini-value" => fpm::invalid_php_ini_value::InvalidPhpIniValue;
    "fpm" FPM004 "pm-max-children-exceeds-memory" => fpm::pm_max_children_exceeds_memory::PmMaxChildrenExceedsMemory;
    "fpm" FPM005 "pm-max-requests-unset" => fpm::pm_max_requests_unset::PmMaxRequestsUnset;
    "fpm" FPM010 "hash-comment" => fpm::hash_comment::HashComment;
    "sysctl" SYS000 "sysctl-syntax-error" => sysctl::syntax_error::SyntaxError;
    "sysctl" SYS001 "tcp-tw-recycle" => sysctl::tcp_tw_recycle::TcpTwRecycle;
    "sysctl" SYS002 "shadowed-setting" => sysctl::shadowed_setting::ShadowedSetting;
    "sysctl" SYS003 "unknown-key" => sysctl::unknown_key::UnknownKey;
    "sysctl" SYS010 "inline-comment-in-value" => sysctl::inline_comment::InlineComment;
    "stack" STK001 "backlog-exceeds-somaxconn" => stack::backlog_exceeds_somaxconn::BacklogExceedsSomaxconn;
    "stack" STK002 "backlog-chain-order" => stack::backlog_chain_order::BacklogChainOrder;
    "stack" STK003 "fastcgi-target-without-pool" => stack::fastcgi_target_without_pool::FastcgiTargetWithoutPool;
    "stack" STK004 "fpm-socket-permissions" => stack::fpm_socket_permissions::FpmSocketPermissions;
    "stack" STK005 "open-files-exceed-kernel" => stack::open_files_exceed_kernel::OpenFilesExceedKernel;
    "stack" STK006 "fastcgi-timeout-shorter-than-terminate" => stack::fastcgi_timeout_shorter_than_terminate::FastcgiTimeoutShorterThanTerminate;
    "lint" LINT001 "unused-suppression" => lint::ReportedBySuppressions;
    "lint" LINT002 "invalid-suppression" => lint::ReportedBySuppressions;
    "lint" LINT003 "unreadable-file" => lint::UnreadableFile;
    "lint" LINT004 "path-outside-tree" => lint::PathOutsideTree;
}

/// Codes whose findings mean the input could not be read as a whole (exit code 2).
pub fn is_input_error(code: &str) -> bool {
    matches!(
        code,
        "NGX000" | "NGX020" | "NGX021" | "FPM000" | "SYS000" | "LINT003" | "LINT004"
    )
}

/// Codes whose finding means its file is never written by `fix` (its tree may be wrong): the
/// input errors, but a missing include (NGX020), which is the includer's problem, not its
/// file's.
pub fn blocks_fixes(code: &str) -> bool {
    is_input_error(code) && code != "NGX020"
}

pub fn by_code(code: &str) -> Option<&'static RuleEntry> {
    RULES.iter().find(|r| r.code == code)
}

/// Finds a rule by code (case-insensitive) or name.
pub fn lookup(key: &str) -> Option<&'static RuleEntry> {
    RULES
        .iter()
        .find(|r| r.code.eq_ignore_ascii_case(key) || r.name == key)
}

/// How specifically a selector names a rule: 0 = not at all; a name or full code beats a
/// prefix, a longer prefix beats a shorter one (`ignore = ["NGX"]` with
/// `select = ["NGX022"]` keeps NGX022).
pub fn specificity(selector: &str, rule: &RuleEntry) -> usize {
    if selector == rule.name || selector.eq_ignore_ascii_case(rule.code) {
        return usize::MAX;
    }
    if selector.eq_ignore_ascii_case("ALL") {
        return 1;
    }
    let upper = selector.to_ascii_uppercase();
    if !upper.is_empty() && rule.code.starts_with(&upper) {
        return 1 + upper.len();
    }
    0
}

/// Which rules run.
#[derive(Clone, Debug, Default)]
pub struct Selection {
    /// Empty: all rules.
    pub select: Vec<String>,
    pub ignore: Vec<String>,
}

impl Selection {
    /// Whether `rule` runs. The input errors always do (a file that cannot be parsed, an
    /// include that cannot be read, a path out of the tree): no selection can make a broken
    /// configuration look clean.
    pub fn enabled(&self, rule: &RuleEntry) -> bool {
        if is_input_error(rule.code) {
            return true;
        }
        let sel = if self.select.is_empty() {
            1
        } else {
            self.select
                .iter()
                .map(|s| specificity(s, rule))
                .max()
                .unwrap_or(0)
        };
        let ign = self
            .ignore
            .iter()
            .map(|s| specificity(s, rule))
            .max()
            .unwrap_or(0);
        sel > 0 && sel > ign
    }

    /// Selectors that name no rule (a typo must not silently select nothing).
    pub fn unknown(&self) -> Vec<String> {
        self.select
            .iter()
            .chain(&self.ignore)
            .filter(|s| !RULES.iter().any(|r| specificity(s, r) > 0))
            .cloned()
            .collect()
    }
}

/// At most this many findings of one rule are kept per file; the rest are counted and
/// reported as one finding. No real file comes close, but a generated one can hold millions
/// (a 63 MB file of `gzip on;`), and keeping a finding each would take gigabytes. `fix`
/// still fixes them all: it repeats until nothing changes.
pub const MAX_FINDINGS_PER_FILE: u32 = 1000;

/// What a rule sees while it runs.
pub struct Context<'a> {
    pub stack: &'a Stack,
    pub host: &'a HostFacts,
    pub options: &'a toml::Table,
    entry: &'static RuleEntry,
    out: &'a mut Vec<Diagnostic>,
    /// Findings per file so far (by the source's address), and the first one past the cap.
    per_file: crate::fxhash::FxHashMap<*const crate::source::SourceFile, u32>,
    /// Where findings past the cap go: overwritten by each, never kept.
    discard: Option<Diagnostic>,
}

impl Context<'_> {
    /// Reports a problem with the rule's code and default severity; returns it so the rule
    /// can add labels, help or a fix.
    pub fn report(
        &mut self,
        file: &Shared,
        span: Span,
        message: impl Into<String>,
    ) -> &mut Diagnostic {
        let d = Diagnostic::new(
            self.entry.code,
            self.entry.severity(),
            file.clone(),
            span,
            message,
        );
        let n = self
            .per_file
            .entry(std::sync::Arc::as_ptr(file))
            .or_insert(0);
        *n += 1;
        if *n > MAX_FINDINGS_PER_FILE {
            return self.discard.insert(d);
        }
        self.out.push(d);
        self.out.last_mut().expect("just pushed")
    }

    /// Whether `file` has reached the cap: what is reported now is only counted, so a rule
    /// may skip work it would spend on the finding (a suggestion, a fix).
    pub fn is_full(&self, file: &Shared) -> bool {
        self.per_file
            .get(&std::sync::Arc::as_ptr(file))
            .is_some_and(|&n| n >= MAX_FINDINGS_PER_FILE)
    }

    /// One finding per file whose findings passed the cap, saying how many were not shown.
    fn finish(mut self) {
        let mut over: Vec<_> = self
            .per_file
            .iter()
            .filter(|(_, &n)| n > MAX_FINDINGS_PER_FILE)
            .map(|(&f, &n)| (f, n - MAX_FINDINGS_PER_FILE))
            .collect();
        over.sort_by_key(|&(f, _)| f as usize);
        for (ptr, more) in over {
            let Some(file) = self
                .out
                .iter()
                .find(|d| std::sync::Arc::as_ptr(&d.file) == ptr)
                .map(|d| d.file.clone())
            else {
                continue;
            };
            let last = self
                .out
                .iter()
                .rev()
                .find(|d| std::sync::Arc::ptr_eq(&d.file, &file))
                .map_or(Span::empty(0), |d| d.span);
            let code = self.entry.code;
            let d = Diagnostic::new(
                code,
                self.entry.severity(),
                file,
                last,
                format!(
                    "{more} more {code} finding{} in this file are not shown (at most {MAX_FINDINGS_PER_FILE} per rule and file)",
                    if more == 1 { "" } else { "s" }
                ),
            );
            self.out.push(d);
        }
        self.discard = None;
    }
}

/// Outcome of running the rules on one stack.
#[derive(Default)]
pub struct RunResult {
    pub diagnostics: Vec<Diagnostic>,
    /// Rules that need host facts and were skipped because none were given.
    pub skipped_for_host: Vec<&'static str>,
}

/// Runs every selected rule on a stack.
pub fn run(
    stack: &Stack,
    selection: &Selection,
    options: &std::collections::BTreeMap<String, toml::Table>,
) -> RunResult {
    use rayon::prelude::*;
    let mut result = RunResult::default();
    let empty = toml::Table::new();
    let mut enabled = Vec::new();
    for entry in RULES.iter().filter(|r| selection.enabled(r)) {
        if entry.meta().needs_host && stack.host.is_empty() {
            result.skipped_for_host.push(entry.code);
        } else {
            enabled.push(entry);
        }
    }
    // Rules are independent pure functions of the stack: run them in parallel, and keep
    // their findings in registry order so output does not depend on scheduling.
    let found: Vec<Vec<Diagnostic>> = enabled
        .par_iter()
        .map(|&entry| {
            let mut out = Vec::new();
            let mut cx = Context {
                stack,
                host: &stack.host,
                options: options.get(entry.code).unwrap_or(&empty),
                entry,
                out: &mut out,
                per_file: Default::default(),
                discard: None,
            };
            let started = std::time::Instant::now();
            entry.rule.check(&mut cx);
            cx.finish();
            crate::timings::report(format_args!("{}", entry.code), started);
            out
        })
        .collect();
    // One exact allocation (collecting the flattened lists would grow by doubling, and a
    // finding in each of 50,000 vhosts makes that tens of megabytes).
    let mut all = Vec::with_capacity(found.iter().map(Vec::len).sum());
    for mut list in found {
        all.append(&mut list);
    }
    result.diagnostics = all;
    result
}
