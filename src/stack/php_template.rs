//! Whether a php.ini is a copy of the distribution's template (`php.ini-production` or
//! `php.ini-development`, with or without its comments) or a file someone wrote.
//!
//! The templates write values PHP's authors chose for compatibility, some of them weak
//! (`session.use_strict_mode = 0`, `disable_functions =`): a copied template says nothing about
//! what its owner decided, while the same line in a twenty-line override is a decision. Rules
//! that judge hardening (FPM110, STK014) report a weak value in a template copy as information
//! and the same value written anywhere else as a warning.
//!
//! A copy keeps most of the template's settings: on the stacks read so far, copies (with their
//! comments, or stripped to the directives, of PHP 5.6 to 8.4) write 89 to 98 of the 99
//! directives below, written overrides 30 at most. Half of them is the line.

use crate::syntax::phpini::Parsed;

/// The directives `php.ini-production` of PHP 8.2 writes (uncommented), sorted
/// (`grep -oE '^[a-z][a-zA-Z0-9_.]*' php.ini-production | sort -u`).
const TEMPLATE_KEYS: &[&str] = &[
    "allow_url_fopen",
    "allow_url_include",
    "auto_append_file",
    "auto_globals_jit",
    "auto_prepend_file",
    "bcmath.scale",
    "cli_server.color",
    "default_charset",
    "default_mimetype",
    "default_socket_timeout",
    "disable_classes",
    "disable_functions",
    "display_errors",
    "display_startup_errors",
    "doc_root",
    "enable_dl",
    "engine",
    "error_reporting",
    "expose_php",
    "file_uploads",
    "ignore_repeated_errors",
    "ignore_repeated_source",
    "implicit_flush",
    "ldap.max_links",
    "log_errors",
    "mail.add_x_header",
    "mail.mixed_lf_and_crlf",
    "max_execution_time",
    "max_file_uploads",
    "max_input_time",
    "memory_limit",
    "mysqli.allow_persistent",
    "mysqli.default_host",
    "mysqli.default_port",
    "mysqli.default_pw",
    "mysqli.default_socket",
    "mysqli.default_user",
    "mysqli.max_links",
    "mysqli.max_persistent",
    "mysqlnd.collect_memory_statistics",
    "mysqlnd.collect_statistics",
    "odbc.allow_persistent",
    "odbc.check_persistent",
    "odbc.defaultbinmode",
    "odbc.defaultlrl",
    "odbc.max_links",
    "odbc.max_persistent",
    "output_buffering",
    "pdo_mysql.default_socket",
    "pgsql.allow_persistent",
    "pgsql.auto_reset_persistent",
    "pgsql.ignore_notice",
    "pgsql.log_notice",
    "pgsql.max_links",
    "pgsql.max_persistent",
    "post_max_size",
    "precision",
    "register_argc_argv",
    "report_memleaks",
    "request_order",
    "serialize_precision",
    "session.auto_start",
    "session.cache_expire",
    "session.cache_limiter",
    "session.cookie_domain",
    "session.cookie_httponly",
    "session.cookie_lifetime",
    "session.cookie_path",
    "session.cookie_samesite",
    "session.gc_divisor",
    "session.gc_maxlifetime",
    "session.gc_probability",
    "session.name",
    "session.referer_check",
    "session.save_handler",
    "session.serialize_handler",
    "session.sid_bits_per_character",
    "session.sid_length",
    "session.trans_sid_tags",
    "session.use_cookies",
    "session.use_only_cookies",
    "session.use_strict_mode",
    "session.use_trans_sid",
    "short_open_tag",
    "smtp_port",
    "soap.wsdl_cache_dir",
    "soap.wsdl_cache_enabled",
    "soap.wsdl_cache_limit",
    "soap.wsdl_cache_ttl",
    "tidy.clean_output",
    "unserialize_callback_func",
    "upload_max_filesize",
    "user_dir",
    "variables_order",
    "zend.assertions",
    "zend.enable_gc",
    "zend.exception_ignore_args",
    "zend.exception_string_param_max_len",
    "zlib.output_compression",
];

/// Whether the parsed php.ini `parsed` (source `text`) writes at least half of the template's
/// directives: a copy of it, edited or not.
pub fn copies_template(parsed: &Parsed, text: &[u8]) -> bool {
    let mut seen = vec![false; TEMPLATE_KEYS.len()];
    for (_, e) in parsed.file.entries() {
        if let Ok(i) = TEMPLATE_KEYS.binary_search(&e.key_text(text).as_ref()) {
            seen[i] = true;
        }
    }
    2 * seen.iter().filter(|&&s| s).count() >= TEMPLATE_KEYS.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> bool {
        copies_template(
            &crate::syntax::phpini::parse(text.as_bytes()),
            text.as_bytes(),
        )
    }

    #[test]
    fn keys_are_sorted_for_the_search() {
        assert!(TEMPLATE_KEYS.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn a_short_override_is_written_not_copied() {
        assert!(!parse(
            "[PHP]\nexpose_php = Off\ndisable_functions =\n[Session]\nsession.use_strict_mode = 0\n"
        ));
    }

    #[test]
    fn the_template_stripped_of_comments_is_a_copy() {
        let text: String = TEMPLATE_KEYS[..50]
            .iter()
            .map(|k| format!("{k} = 1\n"))
            .collect();
        assert!(parse(&format!("[PHP]\n{text}")));
        let short: String = TEMPLATE_KEYS[..49]
            .iter()
            .map(|k| format!("{k} = 1\n"))
            .collect();
        assert!(!parse(&format!("[PHP]\n{short}")));
    }

    /// The installed template, where the machine has one (the test set-up installs php8.2).
    #[test]
    fn php_ini_production_is_a_copy_of_itself() {
        let path = std::path::Path::new("/usr/lib/php/8.2/php.ini-production");
        match std::fs::read(path) {
            Ok(bytes) => assert!(copies_template(
                &crate::syntax::phpini::parse(&bytes),
                &bytes
            )),
            Err(_) => assert!(
                std::env::var_os("CI").is_none(),
                "{} is missing: scripts/test installs php8.2",
                path.display()
            ),
        }
    }
}
