//! How a rule declares itself: [`declare_rule!`], the [`Rule`] it implements, and the
//! [`Decl`] of facts the macro records. Loaded first (`#[macro_use]`), so that every rule
//! file below can use the macro.

use super::meta::{Category, FixAvailability, Group};
use super::{options, Context};
use crate::diagnostic::{RuleId, Severity};

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
                id: $crate::diagnostic::rule_ids::$code,
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
    /// What its findings carry (generated from its docs file's name: a code with no
    /// `rules/<lang>/<CODE>.toml` does not compile).
    pub id: RuleId,
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
