//! STK007 upload-limit-chain: the request-body limits of nginx and PHP disagree, so uploads
//! fail at the weakest link.
//!
//! An upload passes three limits in turn: nginx's `client_max_body_size` (default 1m,
//! inherited http → server → location) refuses a larger body with 413 before PHP sees it;
//! PHP's `post_max_size` (default 8M; 0 lifts it) drops the whole body, so `$_POST` and
//! `$_FILES` are empty; `upload_max_filesize` (default 2M) refuses each larger file
//! (`UPLOAD_ERR_INI_SIZE`). Two findings:
//!
//! * at the nginx side, for each `fastcgi_pass`: `client_max_body_size` in force there is
//!   below PHP's upload limit (the smaller of the two PHP values) *and* PHP's limit was raised
//!   on purpose: set in php.ini or the pool, above PHP's default upload limit (2M). A stack
//!   that keeps PHP's defaults (the distributions' php.ini writes them out) is never judged:
//!   nginx's 1m under PHP's 2M is how every stock install ships.
//! * at the PHP side: `post_max_size` below `upload_max_filesize`, one of them set, for each
//!   php.ini set and each pool.
//!
//! PHP's values come from the pool nginx reaches (its effective settings: pool, scan
//! directory, php.ini, PHP's default), or, in a stack with php.ini but no pool files (an
//! official docker image keeps its own `www.conf`), from the stack's only php.ini set.

use crate::analysis::cursor::Directive;
use crate::analysis::stack_links::{active_nginx, pool_links, pool_view};
use crate::fix::{edits, Fix};
use crate::rules::{Context, Rule};
use crate::source::{Shared, Span};
use crate::stack::instances::PoolView;
use crate::stack::php_ini::IniSet;
use crate::stack::php_settings::{from_ini, php_quantity, Effective, Origin};

declare_rule! {
    pub struct UploadLimitChain;
    code: STK007,
    name: "upload-limit-chain",
    lang: stack,
    category: Reliability,
    severity: Warning,
    fix: Sometimes,
    group: Default,
}

/// nginx's default `client_max_body_size`.
const NGINX_DEFAULT: u64 = 1 << 20;
/// PHP's default `upload_max_filesize`: PHP limits above it were raised on purpose.
const PHP_DEFAULT_UPLOAD: u64 = 2 << 20;

/// `ngx_parse_size`: digits with an optional `k`/`m`/`g` (any case). `None`: not a size.
fn nginx_size(text: &str) -> Option<u64> {
    let t = text.trim();
    let (num, mult) = match t.as_bytes().last()? {
        b'k' | b'K' => (&t[..t.len() - 1], 1u64 << 10),
        b'm' | b'M' => (&t[..t.len() - 1], 1 << 20),
        b'g' | b'G' => (&t[..t.len() - 1], 1 << 30),
        _ => (t, 1),
    };
    if num.is_empty() || !num.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    num.parse::<u64>().ok()?.checked_mul(mult)
}

/// One PHP limit as the pool runs with it.
struct PhpLimit<'a> {
    name: &'static str,
    /// `None`: no limit (`post_max_size = 0`).
    bytes: Option<u64>,
    value: Effective<'a>,
}

impl PhpLimit<'_> {
    fn of<'a>(name: &'static str, value: Effective<'a>) -> Option<PhpLimit<'a>> {
        if !value.known {
            return None;
        }
        let n = php_quantity(&value.text)?;
        let bytes = (n > 0).then_some(n);
        Some(PhpLimit { name, bytes, value })
    }

    /// `upload_max_filesize = 64M (php.ini:855)`.
    fn describe(&self) -> String {
        format!(
            "{} = {} ({})",
            self.name,
            self.value.shown(),
            self.value.describe()
        )
    }

    /// Where it is written, when it is.
    fn place(&self) -> Option<(Shared, Span)> {
        match &self.value.origin {
            Origin::Default => None,
            Origin::Ini(v) => Some((v.file.source.clone(), v.span())),
            Origin::Pool { val, .. } => Some((val.at.file().clone(), val.span())),
        }
    }

    fn edit_to(&self, value: &str) -> Option<crate::fix::Edit> {
        match &self.value.origin {
            Origin::Default => None,
            Origin::Ini(v) => Some(edits::replace_fpm_value(&v.file.source, v.entry()?, value)),
            Origin::Pool { val, .. } => {
                Some(edits::replace_fpm_value(val.at.file(), val.entry()?, value))
            }
        }
    }
}

/// A pool's (or php.ini's) two limits.
struct PhpLimits<'a> {
    post: PhpLimit<'a>,
    upload: PhpLimit<'a>,
}

impl<'a> PhpLimits<'a> {
    fn of(get: impl Fn(&str) -> Option<Effective<'a>>) -> Option<PhpLimits<'a>> {
        Some(PhpLimits {
            post: PhpLimit::of("post_max_size", get("post_max_size")?)?,
            upload: PhpLimit::of("upload_max_filesize", get("upload_max_filesize")?)?,
        })
    }

    fn of_pool(pool: &PoolView<'a>) -> Option<PhpLimits<'a>> {
        Self::of(|n| pool.php(n))
    }

    /// A php.ini set on its own: its values, else PHP's defaults.
    fn of_set(set: &'a IniSet) -> Option<PhpLimits<'a>> {
        Self::of(|n| from_ini(Some(set), n))
    }

    /// The largest body PHP accepts for an upload, and the limit that sets it (`None`: none).
    fn upload_limit(&self) -> Option<(u64, &PhpLimit<'a>)> {
        [&self.upload, &self.post]
            .into_iter()
            .filter_map(|l| l.bytes.map(|b| (b, l)))
            .min_by_key(|(b, _)| *b)
    }
}

impl Rule for UploadLimitChain {
    fn check(&self, cx: &mut Context<'_>) {
        let instances = cx.fpm_instances();
        let links = pool_links(cx.stack);
        let no_pools = cx.stack.pools().next().is_none();
        let mut live_sets = cx.stack.php_ini.sets.iter().filter(|s| !s.template);
        let sole_set = match (live_sets.next(), live_sets.next()) {
            (Some(s), None) if no_pools => Some(s),
            _ => None,
        };
        for inst in active_nginx(cx.stack) {
            for t in crate::stack::net::fastcgi_targets(inst).iter() {
                let pass = Directive::new(inst, t.pass);
                let mut php: Vec<PhpLimits<'_>> = links
                    .iter()
                    .filter(|l| l.pass == pass)
                    .filter_map(|l| PhpLimits::of_pool(pool_view(instances, l)?))
                    .collect();
                if php.is_empty() {
                    php.extend(sole_set.and_then(PhpLimits::of_set));
                }
                // The pool that accepts the largest uploads is the one to match.
                let best = php
                    .iter()
                    .filter_map(|l| l.upload_limit().map(|(b, lim)| (b, lim, l)))
                    .max_by_key(|(b, _, _)| *b);
                if let Some((limit, lim, _)) = best {
                    check_nginx(cx, pass, limit, lim);
                }
            }
        }
        for inst in instances.iter() {
            for pool in &inst.pools {
                if let Some(l) = PhpLimits::of_pool(pool) {
                    check_php(cx, &l);
                }
            }
        }
        for set in &cx.stack.php_ini.sets {
            // A php.ini whose limits every pool reading it replaces with its own never
            // limits an upload (the CLI takes none): the pools' values were judged above.
            let readers: Vec<&PoolView<'_>> = instances
                .iter()
                .flat_map(|i| i.pools.iter())
                .filter(|p| p.ini.is_some_and(|s| std::ptr::eq(s, set)))
                .collect();
            let overridden = |p: &PoolView<'_>| {
                ["post_max_size", "upload_max_filesize"].iter().all(|n| {
                    p.php(n)
                        .is_some_and(|e| matches!(e.origin, Origin::Pool { .. }))
                })
            };
            if !readers.is_empty() && readers.iter().all(|p| overridden(p)) {
                continue;
            }
            if let Some(l) = PhpLimits::of_set(set) {
                check_php(cx, &l);
            }
        }
    }
}

/// nginx's limit where `pass` stands, below PHP's raised one.
fn check_nginx(cx: &mut Context<'_>, pass: Directive<'_>, php: u64, lim: &PhpLimit<'_>) {
    if php <= PHP_DEFAULT_UPLOAD || !lim.value.is_set() {
        return;
    }
    let explicit = pass.inherited("client_max_body_size").last();
    let nginx = match explicit {
        Some(d) => match d.arg(0).and_then(|a| nginx_size(&a.value())) {
            Some(0) => return, // no limit
            Some(n) => n,
            None => return,
        },
        None => NGINX_DEFAULT,
    };
    if nginx >= php {
        return;
    }
    let at = explicit.unwrap_or(pass);
    let (file, span) = (at.file().clone(), at.span());
    if !cx.claim(&file, span) {
        return;
    }
    let nginx_text = match explicit {
        Some(d) => format!(
            "client_max_body_size {}",
            d.arg(0).map(|a| a.value()).unwrap_or_default()
        ),
        None => "client_max_body_size (nginx's default, 1m)".into(),
    };
    let want = mebibytes(php);
    let d = cx.report(
        &file,
        span,
        format!(
            "{nginx_text} is below PHP's upload limit {}: a request body between the two is \
             refused by nginx with 413 Request Entity Too Large before PHP sees it",
            lim.describe()
        ),
    );
    if let Some((f, s)) = lim.place() {
        d.label(f, s, "PHP accepts uploads this large");
    }
    d.help = Some(format!(
        "raise client_max_body_size to {want} where these requests pass (or lower PHP's \
         limit to nginx's)"
    ));
    let edit = match explicit {
        Some(e) => e
            .arg(0)
            .map(|w| edits::replace_arg(e.file(), &w.tree_word(), &want)),
        None if pass.parent().is_some_and(|b| b.same_file(pass)) => {
            Some(pass.insert_after(&format!("client_max_body_size {want};")))
        }
        None => None,
    };
    if let Some(e) = edit {
        d.with_fix(Fix::unsafe_(
            format!("Set client_max_body_size {want}"),
            vec![e],
        ));
    }
}

/// `post_max_size` below `upload_max_filesize`.
fn check_php(cx: &mut Context<'_>, l: &PhpLimits<'_>) {
    let (Some(post), Some(upload)) = (l.post.bytes, l.upload.bytes) else {
        return;
    };
    if post >= upload || !(l.post.value.is_set() || l.upload.value.is_set()) {
        return;
    }
    // At the value that was written: post_max_size when it is, else upload_max_filesize.
    let (at, other) = if l.post.value.is_set() {
        (&l.post, &l.upload)
    } else {
        (&l.upload, &l.post)
    };
    let Some((file, span)) = at.place() else {
        return;
    };
    if !cx.claim(&file, span) {
        return;
    }
    let d = cx.report(
        &file,
        span,
        format!(
            "{} is below {}: an upload larger than post_max_size makes PHP drop the whole \
             request body, so the script sees empty $_POST and $_FILES instead of a file \
             error",
            l.post.describe(),
            l.upload.describe()
        ),
    );
    if let Some((f, s)) = other.place() {
        d.label(f, s, "the larger limit");
    }
    d.help = Some(format!(
        "set post_max_size to at least upload_max_filesize ({}), with room for the form's \
         other fields",
        l.upload.value.shown()
    ));
    if let Some(e) = l.post.edit_to(&l.upload.value.shown()) {
        d.with_fix(Fix::unsafe_(
            format!("Set post_max_size = {}", l.upload.value.shown()),
            vec![e],
        ));
    }
}

/// A byte count in nginx's units, rounded up to whole mebibytes (`64m`).
fn mebibytes(bytes: u64) -> String {
    format!("{}m", bytes.div_ceil(1 << 20))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(nginx_size("1m"), Some(1 << 20));
        assert_eq!(nginx_size("64M"), Some(64 << 20));
        assert_eq!(nginx_size("512k"), Some(512 << 10));
        assert_eq!(nginx_size("0"), Some(0));
        assert_eq!(nginx_size("1.5m"), None);
        assert_eq!(php_quantity("8M"), Some(8 << 20));
        assert_eq!(php_quantity(" 2g"), Some(2 << 30));
        assert_eq!(php_quantity("100"), Some(100));
        assert_eq!(php_quantity("0"), Some(0));
        assert_eq!(php_quantity("big"), None);
        assert_eq!(mebibytes(64 << 20), "64m");
        assert_eq!(mebibytes((64 << 20) + 1), "65m");
    }
}
