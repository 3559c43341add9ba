//! The `fastcgi_param`s a block sends, as the FastCGI module merges them: a block's own
//! list, else the one it inherits (nginx takes the parent's array only when the block sets
//! none). php-fpm needs two of them before it answers anything, its status page included:
//! `SCRIPT_FILENAME` (without it: 404 "Primary script unknown") and, for the status and
//! ping pages, `SCRIPT_NAME` equal to the path (checked with php-fpm 8.2 behind nginx,
//! `tests/fpm_status_binary.rs`).

use crate::analysis::cursor::Directive;
use crate::analysis::header_lists::{has_unread_include, unread_includes};

/// The value of the `fastcgi_param NAME` in force in the block, the last one written.
pub fn param(block: Directive<'_>, name: &str) -> Option<String> {
    let own: Vec<Directive<'_>> = block.children("fastcgi_param").collect();
    let params = if own.is_empty() {
        block.inherited("fastcgi_param").collect()
    } else {
        own
    };
    params
        .iter()
        .rev()
        .find(|p| p.arg(0).is_some_and(|a| a.is(name)))
        .and_then(|p| p.arg(1))
        .map(|v| v.value().into_owned())
}

/// Whether every `include` that could add a `fastcgi_param` to the block was read: none in
/// the block or the blocks around it is missing, a template, or outside the tree.
pub fn params_known(block: Directive<'_>) -> bool {
    let unread = unread_includes(block.instance());
    let mut at = Some(block);
    while let Some(b) = at {
        if has_unread_include(b, &unread) {
            return false;
        }
        at = b.parent();
    }
    true
}

/// Whether php-fpm would take a request passed from `block` for its status or ping page at
/// the request's URI: `SCRIPT_NAME` is the URI (`$fastcgi_script_name`, which is the URI when
/// `fastcgi_split_path_info` does not match it, and these paths have no `.php`; `$uri`;
/// `$document_uri`), and some `SCRIPT_FILENAME` is sent (whether the file exists does not
/// matter).
pub fn reaches_status_handler(block: Directive<'_>) -> bool {
    let uri = param(block, "SCRIPT_NAME").is_some_and(|v| {
        matches!(
            v.as_str(),
            "$fastcgi_script_name" | "$uri" | "$document_uri"
        )
    });
    uri && param(block, "SCRIPT_FILENAME").is_some_and(|v| !v.is_empty())
}
