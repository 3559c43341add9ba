//! The registry: every rule, one line each, in code order, and the lookups by code and
//! name. A rule's facts live in its own file ([`declare_rule!`]); this list only names it.

use super::meta::RuleMeta;
use super::{fpm, lifecycle, lint, nginx, options, stack, sysctl, tls, Decl, Declared, Rule};
use crate::diagnostic::{RuleId, Severity};
use std::sync::OnceLock;

/// A registered rule: its declaration as its file wrote it, its docs (parsed on first use)
/// and its options' parser. The declaration's facts read as the entry's own
/// (`entry.code`, `entry.needs_host`): an entry is its declaration plus what the registry
/// adds, so it derefs to the [`Decl`].
pub struct RuleEntry {
    pub decl: Decl,
    meta: OnceLock<RuleMeta>,
    pub rule: &'static dyn Rule,
    pub(crate) options: options::OptionsFns,
}

impl RuleEntry {
    /// The entry of a declared rule (what [`registry!`] builds each line into).
    pub const fn of<R: Declared>(rule: &'static R) -> RuleEntry {
        RuleEntry {
            decl: R::DECL,
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
        self.decl.severity
    }

    /// The option keys `[rules.CODE]` accepts, as written there (kebab-case).
    pub fn option_names(&self) -> &'static [&'static str] {
        self.options.names()
    }
}

impl std::ops::Deref for RuleEntry {
    type Target = Decl;

    fn deref(&self) -> &Decl {
        &self.decl
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
    nginx::credentials_over_plain_http::CredentialsOverPlainHttp,
    nginx::cache_ignores_private::CacheIgnoresPrivate,
    nginx::resolver_missing::ResolverMissing,
    nginx::protected_prefix_overtaken::ProtectedPrefixOvertaken,
    nginx::auth_endpoint_reachable::AuthEndpointReachable,
    nginx::open_redirect::OpenRedirect,
    nginx::php_catch_all_server::PhpCatchAllServer,
    nginx::realip_trusts_everyone::RealipTrustsEveryone,
    nginx::remote_addr_from_header::RemoteAddrFromHeader,
    nginx::upstream_tls_unverified::UpstreamTlsUnverified,
    nginx::user_root::UserRoot,
    nginx::try_files_relative_fallback::TryFilesRelativeFallback,
    nginx::server_name_suspicious::ServerNameSuspicious,
    tls::ssl_early_data_replayable::SslEarlyDataReplayable,
    tls::ssl_dhparam_weak::SslDhparamWeak,
    tls::ssl_seclevel_lowered::SslSeclevelLowered,
    nginx::private_location_reachable::PrivateLocationReachable,
    nginx::set_builtin_variable::SetBuiltinVariable,
    nginx::raw_uri_access_check::RawUriAccessCheck,
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
    fpm::session_hardening_weakened::SessionHardeningWeakened,
    fpm::php_hardening_off::PhpHardeningOff,
    fpm::php_defaults_in_image::PhpDefaultsInImage,
    sysctl::syntax_error::SyntaxError,
    sysctl::tcp_tw_recycle::TcpTwRecycle,
    sysctl::shadowed_setting::ShadowedSetting,
    sysctl::unknown_key::UnknownKey,
    sysctl::hardening_weakened::HardeningWeakened,
    sysctl::hardening_profile::HardeningProfile,
    sysctl::distro_limit_lowered::DistroLimitLowered,
    sysctl::socket_memory_in_pages::SocketMemoryInPages,
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
    stack::path_info_underflow::PathInfoUnderflow,
    stack::php_files_served::PhpFilesServed,
    stack::php_sandbox_absent::PhpSandboxAbsent,
    lint::UnusedSuppression,
    lint::InvalidSuppression,
    lint::UnreadableFile,
    lint::PathOutsideTree,
}

/// The entry of a rule id (findings carry the id): the registry is in id order
/// (`tests/registry.rs` keeps it so).
pub fn entry(id: RuleId) -> &'static RuleEntry {
    &RULES[id.index()]
}

/// Whether findings of rule `id` mean the input could not be read as a whole (exit code 2):
/// the rule's declared `input_error`.
pub fn is_input_error(id: RuleId) -> bool {
    entry(id).input_error
}

/// Whether a finding of rule `id` means its file is never written by `fix` (its tree may be
/// wrong): the rule's declared `blocks_fixes` (the input errors, but a missing include,
/// NGX020, which is the includer's problem, not its file's).
pub fn blocks_fixes(id: RuleId) -> bool {
    entry(id).blocks_fixes
}

/// The rule of a code as written (upper case).
pub fn by_code(code: &str) -> Option<&'static RuleEntry> {
    RuleId::of_code(code).map(entry)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Selection;

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
        use crate::diagnostic::rule_ids::{NGX020, NGX022};
        assert!(is_input_error(NGX020) && !blocks_fixes(NGX020));
        assert!(!is_input_error(NGX022));
        assert!(by_code("NGX999").is_none());
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

    /// The registry is in the order of the generated ids, so that a finding's id indexes
    /// it: a line out of code order, or a rule without its docs file, fails here.
    #[test]
    fn the_registry_is_indexed_by_rule_id() {
        use crate::diagnostic::rule_ids::CODES;
        assert_eq!(RULES.len(), CODES.len());
        for (i, r) in RULES.iter().enumerate() {
            assert_eq!((r.id.index(), r.id.as_str()), (i, r.code), "{}", r.code);
            assert!(std::ptr::eq(entry(r.id), r));
        }
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
