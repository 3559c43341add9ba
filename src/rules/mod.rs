//! The rule engine: one registry of every rule, selection, and running rules on a stack.
//!
//! A rule is a pure function of the [`Stack`] (with its host facts) and its options. Each
//! rule file declares everything that is known about its rule once, with [`declare_rule!`]:
//! code, name, language, category, default severity, fix availability, whether it needs host
//! facts, whether its findings are input errors (and block fixes of their file), and its typed
//! options. `rules/<lang>/<CODE>.toml` holds only prose: the summary, the docs and the option
//! descriptions. Adding a rule (`scripts/new-rule CODE name lang` writes the files): the rule
//! file, its TOML, fixtures under `fixtures/<lang>/<CODE>/`, its `pub mod` line, and one line
//! in [`registry!`] below. Helpers several rules share live in [`crate::analysis`]. A missing TOML is a compile error; `tests/registry.rs` keeps the rest in step.

/// Declares a rule: the unit struct and every fact about it, in the rule's own file.
///
/// ```ignore
/// declare_rule! {
///     /// NGX022: `server_tokens on` discloses the nginx version.
///     pub struct ServerTokensOn;
///     code: NGX022,
///     name: "server-tokens-on",
///     lang: nginx,              // rules/nginx/NGX022.toml, fixtures/nginx/NGX022/
///     category: Security,       // meta::Category
///     severity: Warning,        // the default; a finding may set its own
///     fix: Always,              // meta::FixAvailability, checked against the fixtures
///     group: Default,           // meta::Group: Default, Hardening or Preview
///     // optional, in this order:
///     needs_host: true,         // skipped unless host facts are given
///     uses_locations: true,     // asks location matching (built before the rules run)
///     input_error: true,        // the input could not be read as a whole (exit 2)
///     blocks_fixes: false,      // default: input_error; `fix` never writes such a file
///     options: Options,         // typed `[rules.CODE]` options (default: none accepted)
/// }
/// ```
///
/// `Options` is a `serde::Deserialize + Default` struct with `#[serde(deny_unknown_fields,
/// rename_all = "kebab-case")]`; lemplint.toml's `[rules.CODE]` is read into it when the file
/// loads, and the rule reads it with `cx.options(self)`.
macro_rules! declare_rule {
    (
        $(#[$attr:meta])*
        $vis:vis struct $rule:ident;
        code: $code:ident,
        name: $name:literal,
        lang: $lang:ident,
        category: $category:ident,
        severity: $severity:ident,
        fix: $fix:ident,
        group: $group:ident,
        $(needs_host: $needs_host:literal,)?
        $(uses_locations: $uses_locations:literal,)?
        $(input_error: $input_error:literal,)?
        $(blocks_fixes: $blocks_fixes:literal,)?
        $(options: $options:ty,)?
    ) => {
        $(#[$attr])*
        $vis struct $rule;

        impl $crate::rules::Declared for $rule {
            const DECL: $crate::rules::Decl = $crate::rules::Decl {
                code: stringify!($code),
                name: $name,
                lang: stringify!($lang),
                category: $crate::rules::meta::Category::$category,
                severity: $crate::diagnostic::Severity::$severity,
                fix: $crate::rules::meta::FixAvailability::$fix,
                group: $crate::rules::meta::Group::$group,
                needs_host: false $(|| $needs_host)?,
                uses_locations: false $(|| $uses_locations)?,
                input_error: false $(|| $input_error)?,
                blocks_fixes: declare_rule!(@or [false $(|| $input_error)?] $($blocks_fixes)?),
                toml: include_str!(concat!(
                    env!("CARGO_MANIFEST_DIR"),
                    "/rules/",
                    stringify!($lang),
                    "/",
                    stringify!($code),
                    ".toml"
                )),
            };
            type Options = declare_rule!(@options $($options)?);
        }
    };
    (@or [$($default:tt)*]) => { $($default)* };
    (@or [$($default:tt)*] $value:literal) => { $value };
    (@options) => { $crate::rules::NoOptions };
    (@options $options:ty) => { $options };
}

pub mod fpm;
pub mod lifecycle;
pub mod lint;
pub mod meta;
pub mod nginx;
pub mod options;
pub mod stack;
pub mod sysctl;
pub mod tls;

use crate::analysis::cursor::Directive;
use crate::diagnostic::{Diagnostic, Severity};
use crate::host::HostFacts;
use crate::source::{Shared, Span};
use crate::stack::instances::{instances, Instance};
use crate::stack::model::Stack;
use meta::{Category, FixAvailability, Group, RuleMeta};
pub use options::{NoOptions, RuleOptions};
use std::sync::OnceLock;

/// What a rule does: looks at the stack and reports through the [`Context`].
pub trait Rule: Sync {
    fn check(&self, cx: &mut Context<'_>);
}

/// The facts of a rule, written once in its file by [`declare_rule!`].
pub trait Declared: Rule + Sized + 'static {
    const DECL: Decl;
    /// `[rules.CODE]` in lemplint.toml, checked when the file loads. A rule reads its own
    /// with [`Context::options`].
    type Options: options::Options;
}

/// What [`declare_rule!`] records about a rule.
#[derive(Clone, Copy, Debug)]
pub struct Decl {
    pub code: &'static str,
    pub name: &'static str,
    /// `nginx`, `fpm`, `sysctl`, `stack` or `lint`: the folder of its docs and fixtures.
    pub lang: &'static str,
    pub category: Category,
    /// The default severity of its findings.
    pub severity: Severity,
    pub fix: FixAvailability,
    /// Which selection runs it when the user names no rule: see [`Group`].
    pub group: Group,
    /// Judges the configuration against host facts: skipped when none are given.
    pub needs_host: bool,
    /// Asks [`crate::analysis::locations::Locations`] (directly or through
    /// [`crate::analysis::serving`]): the trees are built, in parallel, before the rules run,
    /// rather than by the first rule that asks while the other threads wait for it.
    pub uses_locations: bool,
    /// Its findings mean the input could not be read as a whole (exit code 2); the rule
    /// always runs, and no suppression or selection hides it.
    pub input_error: bool,
    /// Its findings mean their file is never written by `fix` (its tree may be wrong).
    pub blocks_fixes: bool,
    /// `rules/<lang>/<CODE>.toml`: summary and docs.
    pub toml: &'static str,
}

/// A registered rule: its declaration, its docs (parsed on first use) and its options'
/// parser.
pub struct RuleEntry {
    pub code: &'static str,
    pub name: &'static str,
    pub lang: &'static str,
    pub category: Category,
    pub fix: FixAvailability,
    pub group: Group,
    pub needs_host: bool,
    pub uses_locations: bool,
    pub input_error: bool,
    pub blocks_fixes: bool,
    pub toml: &'static str,
    severity: Severity,
    meta: OnceLock<RuleMeta>,
    pub rule: &'static dyn Rule,
    pub(crate) options: options::OptionsFns,
}

impl RuleEntry {
    /// The entry of a declared rule (what [`registry!`] builds each line into).
    pub const fn of<R: Declared>(rule: &'static R) -> RuleEntry {
        let d = R::DECL;
        RuleEntry {
            code: d.code,
            name: d.name,
            lang: d.lang,
            category: d.category,
            fix: d.fix,
            group: d.group,
            needs_host: d.needs_host,
            uses_locations: d.uses_locations,
            input_error: d.input_error,
            blocks_fixes: d.blocks_fixes,
            toml: d.toml,
            severity: d.severity,
            meta: OnceLock::new(),
            rule,
            options: options::OptionsFns::of::<R::Options>(),
        }
    }

    /// The rule's docs. The TOML is embedded and checked by `tests/registry.rs`, so a parse
    /// failure here is a build defect, reported loudly.
    pub fn meta(&self) -> &RuleMeta {
        self.meta.get_or_init(|| {
            RuleMeta::parse(self.toml).unwrap_or_else(|e| {
                panic!("rules/{}/{}.toml is invalid: {e}", self.lang, self.code)
            })
        })
    }

    /// The default severity of its findings.
    pub fn severity(&self) -> Severity {
        self.severity
    }

    /// The option keys `[rules.CODE]` accepts, as written there (kebab-case).
    pub fn option_names(&self) -> &'static [&'static str] {
        self.options.names()
    }
}

/// Every rule, one line each, in code order (`NGX`, `FPM`, `SYS`, `STK`, `LINT`; a test
/// keeps the order). The line names the rule's struct; its file declares the rest.
macro_rules! registry {
    ($($rule:path,)*) => {
        const COUNT: usize = [$(stringify!($rule)),*].len();
        /// Every rule, in code order.
        pub static RULES: [RuleEntry; COUNT] = [$(RuleEntry::of(&$rule)),*];
    };
}

registry! {
    nginx::syntax_error::SyntaxError,
    tls::ssl_dhe_key_exchange::SslDheKeyExchange,
    tls::ssl_insecure_ciphers::SslInsecureCiphers,
    tls::ssl_legacy_protocols::SslLegacyProtocols,
    tls::ssl_session_cache_missing::SslSessionCacheMissing,
    nginx::worker_processes_mismatch::WorkerProcessesMismatch,
    nginx::worker_cpu_affinity_mismatch::WorkerCpuAffinityMismatch,
    nginx::worker_connections_exceed_nofile::WorkerConnectionsExceedNofile,
    nginx::php_location_regex_unanchored::PhpLocationRegexUnanchored,
    nginx::fastcgi_over_loopback_tcp::FastcgiOverLoopbackTcp,
    nginx::gzip_types_duplicate_html::GzipTypesDuplicateHtml,
    tls::ssl_ciphers_invalid::SslCiphersInvalid,
    nginx::include_not_found::IncludeNotFound,
    nginx::include_cycle::IncludeCycle,
    nginx::server_tokens_on::ServerTokensOn,
    nginx::duplicate_directive::DuplicateDirective,
    nginx::unknown_directive::UnknownDirective,
    nginx::directive_not_allowed::DirectiveNotAllowed,
    nginx::invalid_argument_count::InvalidArgumentCount,
    nginx::invalid_flag_value::InvalidFlagValue,
    nginx::removed_directive::RemovedDirective,
    nginx::invalid_value::InvalidValue,
    nginx::header_crlf_injection::HeaderCrlfInjection,
    nginx::alias_path_traversal::AliasPathTraversal,
    nginx::filesystem_root_exposed::FilesystemRootExposed,
    nginx::secret_file_exposed::SecretFileExposed,
    nginx::source_backup_exposed::SourceBackupExposed,
    nginx::autoindex_on::AutoindexOn,
    nginx::location_unreachable::LocationUnreachable,
    nginx::allow_without_deny::AllowWithoutDeny,
    nginx::return_bypasses_access_control::ReturnBypassesAccessControl,
    nginx::status_page_exposed::StatusPageExposed,
    nginx::if_in_location_misbehaves::IfInLocationMisbehaves,
    nginx::map_without_default::MapWithoutDefault,
    nginx::missing_default_server::MissingDefaultServer,
    nginx::header_lost_by_inheritance::HeaderLostByInheritance,
    nginx::hsts_missing_or_weak::HstsMissingOrWeak,
    nginx::http_not_redirected_to_https::HttpNotRedirectedToHttps,
    nginx::multiline_header_value::MultilineHeaderValue,
    nginx::content_type_via_add_header::ContentTypeViaAddHeader,
    nginx::mixed_case_variable::MixedCaseVariable,
    nginx::ssrf_proxy_target::SsrfProxyTarget,
    nginx::host_header_spoofing::HostHeaderSpoofing,
    nginx::origin_validation_bypass::OriginValidationBypass,
    nginx::valid_referers_none_or_blocked::ValidReferersNoneOrBlocked,
    nginx::rewrite_args_capture_overflow::RewriteArgsCaptureOverflow,
    nginx::overlapping_captures_overflow::OverlappingCapturesOverflow,
    nginx::map_unnamed_capture::MapUnnamedCapture,
    nginx::regex_redos::RegexRedos,
    nginx::nginx_version_cve::NginxVersionCve,
    nginx::capture_reference_missing::CaptureReferenceMissing,
    nginx::proxy_pass_uri_mismatch::ProxyPassUriMismatch,
    nginx::hostname_resolved_once::HostnameResolvedOnce,
    nginx::resolver_public_dns::ResolverPublicDns,
    nginx::keepalive_requests_low::KeepaliveRequestsLow,
    nginx::proxy_buffering_off::ProxyBufferingOff,
    nginx::upstream_keepalive_not_effective::UpstreamKeepaliveNotEffective,
    nginx::h2c_smuggling::H2cSmuggling,
    nginx::scheme_less_redirect::SchemeLessRedirect,
    nginx::error_log_off::ErrorLogOff,
    nginx::try_files_with_proxy_pass::TryFilesWithProxyPass,
    tls::ssl_stapling_without_resolver::SslStaplingWithoutResolver,
    tls::ssl_stapling_letsencrypt::SslStaplingLetsencrypt,
    tls::ssl_ecdh_curve_unknown::SslEcdhCurveUnknown,
    tls::http2_misdirected_request::Http2MisdirectedRequest,
    tls::quic_bpf_reuseport::QuicBpfReuseport,
    tls::ssl_weak_cipher_preferred::SslWeakCipherPreferred,
    nginx::resolver_missing::ResolverMissing,
    fpm::syntax_error::SyntaxError,
    fpm::pm_invalid::PmInvalid,
    fpm::unknown_directive::UnknownDirective,
    fpm::invalid_php_ini_value::InvalidPhpIniValue,
    fpm::pm_max_children_exceeds_memory::PmMaxChildrenExceedsMemory,
    fpm::pm_max_requests_unset::PmMaxRequestsUnset,
    fpm::hash_comment::HashComment,
    fpm::fastcgi_open_to_network::FastcgiOpenToNetwork,
    fpm::fpm_socket_world_writable::FpmSocketWorldWritable,
    fpm::limit_extensions_too_broad::LimitExtensionsTooBroad,
    fpm::insecure_php_setting::InsecurePhpSetting,
    fpm::clear_env_off::ClearEnvOff,
    fpm::single_worker_pool::SingleWorkerPool,
    fpm::hash_comment_in_value::HashCommentInValue,
    fpm::request_terminate_timeout_unset::RequestTerminateTimeoutUnset,
    fpm::opcache_defeated::OpcacheDefeated,
    fpm::ondemand_idle_timeout_short::OndemandIdleTimeoutShort,
    sysctl::syntax_error::SyntaxError,
    sysctl::tcp_tw_recycle::TcpTwRecycle,
    sysctl::shadowed_setting::ShadowedSetting,
    sysctl::unknown_key::UnknownKey,
    sysctl::inline_comment::InlineComment,
    sysctl::tcp_syncookies_disabled::TcpSyncookiesDisabled,
    stack::backlog_exceeds_somaxconn::BacklogExceedsSomaxconn,
    stack::backlog_chain_order::BacklogChainOrder,
    stack::fastcgi_target_without_pool::FastcgiTargetWithoutPool,
    stack::fpm_socket_permissions::FpmSocketPermissions,
    stack::open_files_exceed_kernel::OpenFilesExceedKernel,
    stack::fastcgi_timeout_shorter_than_terminate::FastcgiTimeoutShorterThanTerminate,
    stack::upload_limit_chain::UploadLimitChain,
    stack::uploaded_file_executed_as_php::UploadedFileExecutedAsPhp,
    stack::fpm_status_page_exposed::FpmStatusPageExposed,
    stack::sites_share_php_user::SitesSharePhpUser,
    stack::session_cookie_not_secure::SessionCookieNotSecure,
    lint::UnusedSuppression,
    lint::InvalidSuppression,
    lint::UnreadableFile,
    lint::PathOutsideTree,
}

/// Whether findings of `code` mean the input could not be read as a whole (exit code 2):
/// the rule's declared `input_error`.
pub fn is_input_error(code: &str) -> bool {
    by_code(code).is_some_and(|r| r.input_error)
}

/// Whether a finding of `code` means its file is never written by `fix` (its tree may be
/// wrong): the rule's declared `blocks_fixes` (the input errors, but a missing include,
/// NGX020, which is the includer's problem, not its file's).
pub fn blocks_fixes(code: &str) -> bool {
    by_code(code).is_some_and(|r| r.blocks_fixes)
}

/// The position of each code in [`RULES`], built on first use (findings are looked up by
/// code once or twice each).
fn index() -> &'static crate::fxhash::FxHashMap<&'static str, usize> {
    static INDEX: OnceLock<crate::fxhash::FxHashMap<&'static str, usize>> = OnceLock::new();
    INDEX.get_or_init(|| RULES.iter().enumerate().map(|(i, r)| (r.code, i)).collect())
}

pub fn by_code(code: &str) -> Option<&'static RuleEntry> {
    index().get(code).map(|&i| &RULES[i])
}

/// Finds a rule by code (case-insensitive) or name.
pub fn lookup(key: &str) -> Option<&'static RuleEntry> {
    lookup_exact(lifecycle::SHIPPED.canonical(key))
}

/// [`lookup`] without following redirects.
pub fn lookup_exact(key: &str) -> Option<&'static RuleEntry> {
    RULES
        .iter()
        .find(|r| r.code.eq_ignore_ascii_case(key) || r.name == key)
}

/// How specifically a selector names a rule: 0 = not at all; a name or full code beats a
/// prefix, a longer prefix beats a shorter one (`ignore = ["NGX"]` with
/// `select = ["NGX022"]` keeps NGX022), and any of them beats a group or `ALL`.
///
/// A group's name (`default`, `hardening`, `preview`) names the rules declared in it. `ALL`
/// and prefixes name every rule of theirs except the preview ones, which only their code,
/// their name or `preview` selects (ruff's rule: a broad selector never turns on a rule
/// that has not earned its place). Ignoring is not so guarded: `ignore = ["NGX1"]` also
/// ignores a preview NGX1xx rule.
pub fn specificity(selector: &str, rule: &RuleEntry) -> usize {
    reach(selector, rule, true)
}

/// [`specificity`] for `ignore` and per-file ignores.
pub fn ignore_specificity(selector: &str, rule: &RuleEntry) -> usize {
    reach(selector, rule, false)
}

fn reach(selector: &str, rule: &RuleEntry, selecting: bool) -> usize {
    let selector = lifecycle::SHIPPED.canonical(selector);
    if selector == rule.name || selector.eq_ignore_ascii_case(rule.code) {
        return usize::MAX;
    }
    if let Some(group) = Group::named(selector) {
        return usize::from(group == rule.group);
    }
    if selecting && rule.group == Group::Preview {
        return 0;
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
    /// Empty: the `default` group.
    pub select: Vec<String>,
    pub ignore: Vec<String>,
}

impl Selection {
    /// Whether `rule` runs. The input errors always do (a file that cannot be parsed, an
    /// include that cannot be read, a path out of the tree): no selection can make a broken
    /// configuration look clean.
    pub fn enabled(&self, rule: &RuleEntry) -> bool {
        if rule.input_error {
            return true;
        }
        let sel = if self.select.is_empty() {
            usize::from(rule.group == Group::Default)
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
            .map(|s| ignore_specificity(s, rule))
            .max()
            .unwrap_or(0);
        sel > 0 && sel > ign
    }

    /// Selectors that name no rule (a typo must not silently select nothing).
    pub fn unknown(&self) -> Vec<String> {
        self.select
            .iter()
            .chain(&self.ignore)
            .filter(|s| {
                Group::named(s).is_none()
                    && !s.eq_ignore_ascii_case("ALL")
                    && !RULES.iter().any(|r| ignore_specificity(s, r) > 0)
            })
            .cloned()
            .collect()
    }
}

/// At most this many findings of one rule are kept per file; the rest are counted and
/// reported as one finding. No real file comes close, but a generated one can hold millions
/// (a 63 MB file of `gzip on;`), and keeping a finding each would take gigabytes. `fix`
/// still fixes them all: it repeats until nothing changes.
pub const MAX_FINDINGS_PER_FILE: u32 = 1000;

/// The message under which [`Context::claim`] records a place: not a message any rule writes.
const CLAIMED: &str = "\0claimed";

/// What a rule sees while it runs.
pub struct Context<'a> {
    pub stack: &'a Stack,
    pub host: &'a HostFacts,
    /// The rule's `[rules.CODE]` options, parsed when lemplint.toml was loaded.
    options: &'a (dyn std::any::Any + Send + Sync),
    entry: &'static RuleEntry,
    out: Vec<Diagnostic>,
    /// Findings per file so far (by the source's address), and the first one past the cap.
    per_file: crate::fxhash::FxHashMap<*const crate::source::SourceFile, u32>,
    /// Where findings past the cap, and repeated ones, go: overwritten by each, never kept.
    discard: Option<Diagnostic>,
    /// Every (file, span, message) reported so far. A directive reached through two
    /// configurations, or a snippet included in two places, is reported once, without each
    /// rule keeping its own set; different problems at one place (a pool header missing
    /// several settings) are each kept. Files are told apart by path: one file read by two
    /// configurations is one. Messages are kept as hashes.
    reported: crate::fxhash::FxHashSet<(u32, Span, u64)>,
    /// Ids of the files that are not nginx files of the stack ([`FileIds`] numbers those
    /// once for every rule): by source, then by the path's bytes.
    file_ids: crate::fxhash::FxHashMap<*const crate::source::SourceFile, u32>,
    path_ids: crate::fxhash::FxHashMap<Box<[u8]>, u32>,
    cache: &'a RunCache<'a>,
}

/// What the rules of one run share, built on first use by whichever rule asks first.
#[derive(Default)]
struct RunCache<'a> {
    fpm: OnceLock<Vec<Instance<'a>>>,
    files: OnceLock<FileIds>,
}

/// An id per path for every nginx file of the stack, by source (a file two configurations
/// read is two sources, one path, one id). Numbered once per run: each rule that reports
/// in thousands of vhosts numbering them again was a copy of every path per rule.
struct FileIds {
    /// By the source's address (as an integer, so the map may be shared between threads).
    by_source: crate::fxhash::FxHashMap<usize, u32>,
    /// By the path's bytes (hashing a `Path` walks its components, several times slower).
    by_path: crate::fxhash::FxHashMap<Box<[u8]>, u32>,
}

impl FileIds {
    fn of(stack: &Stack) -> FileIds {
        let mut ids = FileIds {
            by_source: Default::default(),
            by_path: Default::default(),
        };
        for inst in &stack.nginx {
            for file in &inst.config.files {
                let next = ids.by_path.len() as u32;
                let id = *ids
                    .by_path
                    .entry(path_bytes(&file.source).into())
                    .or_insert(next);
                ids.by_source
                    .insert(std::sync::Arc::as_ptr(&file.source) as usize, id);
            }
        }
        ids
    }
}

fn path_bytes(file: &Shared) -> &[u8] {
    use std::os::unix::ffi::OsStrExt;
    file.path.as_os_str().as_bytes()
}

impl<'a> Context<'a> {
    /// Every directive named `name` in every nginx configuration of the stack, in order: a
    /// lookup by name, never a tree walk. A file read by two configurations yields its
    /// directives twice; `report` keeps each finding once.
    pub fn nginx_directives(&self, name: &'a str) -> impl Iterator<Item = Directive<'a>> + 'a {
        self.stack
            .nginx
            .iter()
            .flat_map(move |inst| crate::analysis::cursor::named(inst, name))
    }

    /// The stack's php-fpm instances (pools merged per master), built once per run.
    pub fn fpm_instances(&self) -> &'a [Instance<'a>] {
        let stack = self.stack;
        self.cache.fpm.get_or_init(|| instances(stack))
    }

    /// The nginx release `[host] nginx` names, when it gives one that parses.
    pub fn nginx_version(&self) -> Option<crate::analysis::tls_settings::NginxVersion> {
        let fact = self.host.nginx.as_ref()?;
        crate::analysis::tls_settings::NginxVersion::parse(&fact.value)
    }
}

impl<'a> Context<'a> {
    /// The running rule's options, as its [`declare_rule!`] typed them: a rule passes
    /// itself (`cx.options(self)`). Asking for another rule's is a defect, reported loudly.
    pub fn options<R: Declared>(&self, _rule: &R) -> &'a R::Options {
        assert_eq!(
            R::DECL.code,
            self.entry.code,
            "a rule reads only its own options"
        );
        self.options
            .downcast_ref()
            .expect("the registry parsed these options with the rule's declared type")
    }

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
        if !self.first_report(file, span, &d.message) {
            return self.discard.insert(d);
        }
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

    /// Whether `message` was not reported at `span` of `file` yet (and records it).
    fn first_report(&mut self, file: &Shared, span: Span, message: &str) -> bool {
        let stack = self.stack;
        let shared = self.cache.files.get_or_init(|| FileIds::of(stack));
        let id = match shared
            .by_source
            .get(&(std::sync::Arc::as_ptr(file) as usize))
        {
            Some(&id) => id,
            None => self.other_file_id(file, shared),
        };
        let hash = std::hash::BuildHasher::hash_one(
            &std::hash::BuildHasherDefault::<crate::fxhash::FxHasher>::default(),
            message,
        );
        self.reported.insert((id, span, hash))
    }

    /// The id of a file that is not one of the stack's nginx files (a pool, a sysctl file):
    /// numbered after those, and theirs when the path is one of theirs.
    fn other_file_id(&mut self, file: &Shared, shared: &FileIds) -> u32 {
        let next = (shared.by_path.len() + self.path_ids.len()) as u32;
        *self
            .file_ids
            .entry(std::sync::Arc::as_ptr(file))
            .or_insert_with(|| {
                let bytes = path_bytes(file);
                if let Some(&id) = shared
                    .by_path
                    .get(bytes)
                    .or_else(|| self.path_ids.get(bytes))
                {
                    return id;
                }
                self.path_ids.insert(bytes.into(), next);
                next
            })
    }

    /// Claims a place for the rule's one finding there, whatever its message: false when it
    /// was claimed before. For a rule whose message at one directive depends on the
    /// configuration it was reached through (the pools it was compared with), so that the
    /// first configuration's finding is the one kept.
    pub fn claim(&mut self, file: &Shared, span: Span) -> bool {
        self.first_report(file, span, CLAIMED)
    }

    /// Whether `file` has reached the cap: what is reported now is only counted, so a rule
    /// may skip work it would spend on the finding (a suggestion, a fix).
    pub fn is_full(&self, file: &Shared) -> bool {
        self.per_file
            .get(&std::sync::Arc::as_ptr(file))
            .is_some_and(|&n| n >= MAX_FINDINGS_PER_FILE)
    }

    /// One finding per file whose findings passed the cap, saying how many were not shown.
    fn finish(mut self) -> Vec<Diagnostic> {
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
        self.out
    }
}

/// Outcome of running the rules on one stack.
#[derive(Default)]
pub struct RunResult {
    pub diagnostics: Vec<Diagnostic>,
    /// Rules that need host facts and were skipped because none were given.
    pub skipped_for_host: Vec<&'static str>,
}

/// Runs every selected rule on a stack, each with its options.
pub fn run(stack: &Stack, selection: &Selection, options: &RuleOptions) -> RunResult {
    run_cancellable(stack, selection, options, &|| false)
}

/// [`run`], skipping the rules not started yet once `cancelled` says so (the result is then
/// incomplete, and the caller drops it).
pub fn run_cancellable(
    stack: &Stack,
    selection: &Selection,
    options: &RuleOptions,
    cancelled: &(dyn Fn() -> bool + Sync),
) -> RunResult {
    use rayon::prelude::*;
    let mut result = RunResult::default();
    let cache = RunCache::default();
    let mut enabled = Vec::new();
    for entry in RULES.iter().filter(|r| selection.enabled(r)) {
        if entry.needs_host && stack.host.is_empty() {
            result.skipped_for_host.push(entry.code);
        } else {
            enabled.push(entry);
        }
    }
    // Location trees are shared by several rules: built first, with every thread, instead of
    // by whichever rule asks first while the others block on it.
    if enabled.iter().any(|e| e.uses_locations) {
        stack.nginx.par_iter().for_each(|inst| {
            crate::analysis::locations::Locations::of(inst);
        });
    }
    // Rules are independent pure functions of the stack: run them in parallel, one job each
    // (so a thread that is done takes the next rule, whichever half of the list it is in),
    // and keep their findings in registry order so output does not depend on scheduling.
    let found: Vec<Vec<Diagnostic>> = enabled
        .par_iter()
        .with_max_len(1)
        .map(|&entry| {
            if cancelled() {
                return Vec::new();
            }
            let mut cx = Context {
                stack,
                host: &stack.host,
                options: options.of(entry),
                entry,
                out: Vec::new(),
                per_file: Default::default(),
                discard: None,
                reported: Default::default(),
                file_ids: Default::default(),
                path_ids: Default::default(),
                cache: &cache,
            };
            let started = std::time::Instant::now();
            entry.rule.check(&mut cx);
            let mut out = cx.finish();
            if let Some(severity) = options.severity(entry) {
                for d in &mut out {
                    d.severity = severity;
                }
            }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn in_group(group: Group) -> RuleEntry {
        RuleEntry {
            group,
            ..RuleEntry::of(&nginx::autoindex_on::AutoindexOn)
        }
    }

    fn selection(select: &[&str], ignore: &[&str]) -> Selection {
        Selection {
            select: select.iter().map(|s| s.to_string()).collect(),
            ignore: ignore.iter().map(|s| s.to_string()).collect(),
        }
    }

    /// Nothing selected runs the default group; `ALL` and prefixes add hardening but never
    /// a preview rule, which only its code, its name or `preview` turns on; ignoring by
    /// prefix reaches preview rules too; the most specific selector wins.
    #[test]
    fn groups_select_as_documented() {
        let (default, hardening, preview) = (
            in_group(Group::Default),
            in_group(Group::Hardening),
            in_group(Group::Preview),
        );
        let runs = |s: &Selection| [&default, &hardening, &preview].map(|r| s.enabled(r));
        assert_eq!(runs(&selection(&[], &[])), [true, false, false]);
        assert_eq!(runs(&selection(&["ALL"], &[])), [true, true, false]);
        assert_eq!(runs(&selection(&["NGX1"], &[])), [true, true, false]);
        assert_eq!(runs(&selection(&["hardening"], &[])), [false, true, false]);
        assert_eq!(runs(&selection(&["preview"], &[])), [false, false, true]);
        assert_eq!(runs(&selection(&["NGX104"], &[])), [true, true, true]);
        assert_eq!(runs(&selection(&["autoindex-on"], &[])), [true, true, true]);
        assert_eq!(
            runs(&selection(&["NGX104"], &["preview", "hardening"])),
            [true, true, true]
        );
        assert_eq!(
            runs(&selection(&["preview", "hardening"], &["NGX1"])),
            [false, false, false]
        );
        assert_eq!(
            runs(&selection(&["NGX"], &["hardening"])),
            [true, true, false],
            "a prefix is more specific than a group"
        );
        assert!(selection(&["Hardening", "ALL", "preview"], &["default"])
            .unknown()
            .is_empty());
        assert_eq!(selection(&["hardned"], &[]).unknown(), ["hardned"]);
    }

    /// The input errors and the files `fix` refuses come from the declarations: the codes
    /// that mean "the input could not be read as a whole", and all of them but a missing
    /// include (the includer's problem, not its own file's) block fixes.
    #[test]
    fn input_errors_and_fix_blockers_come_from_the_declarations() {
        let input: Vec<&str> = RULES
            .iter()
            .filter(|r| r.input_error)
            .map(|r| r.code)
            .collect();
        assert_eq!(
            input,
            ["NGX000", "NGX020", "NGX021", "FPM000", "SYS000", "LINT003", "LINT004"]
        );
        let blocking: Vec<&str> = RULES
            .iter()
            .filter(|r| r.blocks_fixes)
            .map(|r| r.code)
            .collect();
        assert_eq!(
            blocking,
            ["NGX000", "NGX021", "FPM000", "SYS000", "LINT003", "LINT004"]
        );
        assert!(is_input_error("NGX020") && !blocks_fixes("NGX020"));
        assert!(!is_input_error("NGX022") && !is_input_error("NGX999"));
        // Input errors always run, whatever the selection.
        let none = Selection {
            select: vec!["SYS001".into()],
            ignore: vec!["ALL".into()],
        };
        assert!(none.enabled(by_code("NGX000").unwrap()));
        assert!(!none.enabled(by_code("NGX022").unwrap()));
    }

    /// A rule that asks for location trees says so, so they are built before it runs (and
    /// a rule that says so asks).
    #[test]
    fn location_users_are_declared_so() {
        fn walk(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
            for e in std::fs::read_dir(dir).unwrap().flatten() {
                let p = e.path();
                if p.is_dir() {
                    walk(&p, out);
                } else if p.extension().is_some_and(|x| x == "rs") {
                    out.push(p);
                }
            }
        }
        let mut files = Vec::new();
        walk(
            &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/rules"),
            &mut files,
        );
        let mut asking = Vec::new();
        for f in files {
            let text = std::fs::read_to_string(&f).unwrap();
            // A rule's file: its declaration names its code (`code: NGX103,`).
            let Some(code) = text
                .lines()
                .find_map(|l| l.trim().strip_prefix("code: "))
                .map(|c| c.trim_end_matches(',').to_string())
                .filter(|c| c.bytes().all(|b| b.is_ascii_alphanumeric()))
            else {
                continue;
            };
            // The request model (and the redirects into a location it follows) searches
            // the locations for the rule.
            let model = ["Model::new", "request::redirects"];
            if text.contains("Locations::of") || model.iter().any(|m| text.contains(m)) {
                asking.push(code);
            }
        }
        asking.sort();
        let mut declared: Vec<String> = RULES
            .iter()
            .filter(|r| r.uses_locations)
            .map(|r| r.code.to_string())
            .collect();
        declared.sort();
        assert_eq!(declared, asking);
    }

    #[test]
    fn host_rules_are_declared_so() {
        let host: Vec<&str> = RULES
            .iter()
            .filter(|r| r.needs_host)
            .map(|r| r.code)
            .collect();
        assert_eq!(host, ["NGX005", "FPM004"]);
    }
}
