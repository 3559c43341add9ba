//! Shared knowledge rules ask for (ARCHITECTURE.md, "Code map"): it reads the syntax and the
//! model, never rules, the engine, the CLI or the renderers.

pub mod access;
pub mod advisory_report;
pub mod catalogue;
pub mod cursor;
pub mod fastcgi_params;
pub mod fpm_status;
pub mod header_lists;
pub mod header_relevance;
pub mod https_servers;
pub mod if_condition;
pub mod ini_comments;
pub mod locations;
pub mod nginx_advisories;
pub mod nginx_main;
pub mod ocsp_stapling;
pub mod openssl_groups;
pub mod origin_flow;
pub mod origin_regex;
pub mod pass_target;
pub mod pcre;
pub mod php_guard;
pub mod php_writes;
pub mod regex_args;
pub mod regex_cover;
pub mod request;
pub mod rewrite_redirect;
pub mod serving;
pub mod stack_links;
pub mod sysctl_hardening;
pub mod sysctl_keys;
pub mod sysctl_known;
pub mod tls_findings;
pub mod tls_settings;
pub mod upstream_host;
pub mod variables;
