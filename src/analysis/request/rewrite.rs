//! The rewrite phases (ngx_http_rewrite_module, ngx_http_script.c, nginx 1.22): `rewrite`,
//! `if`, `set`, `return` and `break`, run on a [`Req`] in configuration order.
//!
//! - A `rewrite` matches its regex against `$uri` (`r->uri`). A failed match clears the
//!   captures (`r->ncaptures = 0`); a match sets them, and named captures as variables.
//! - Its replacement up to the first literal `?` becomes the URI, copied as evaluated: no
//!   decoding, no escaping. `$request_uri` is the target as the client sent it, still
//!   percent-encoded and with its query; `$uri` and captures of `$uri` are decoded. After
//!   the `?`: the arguments (captures escaped there when the URI had a `%`).
//! - Any URI rewrite marks the request internal and the unparsed URI invalid. `break`
//!   stops the rewrite phase and clears `valid_location`; `last`, or no flag once the
//!   phase ends, makes nginx search the locations again with the new URI (the server's
//!   rewrites do not run again).
//! - Conditions nginx evaluates from what is known (the URI, the arguments, `set`
//!   variables, captures) are evaluated; others (`$arg_x`, `$http_*`, `-f`) are followed
//!   both ways, and each way remembers its choice for the next round.

use super::sim::Walk;
use super::state::{Flow, Gone, Req, Vars};
use super::value::{escape, split_args, Caps, Val, MAX_TEXT};
use super::MAX_PATHS;
use crate::analysis::cursor::Directive;
use crate::analysis::pcre::Captures;
use crate::analysis::rewrite_redirect::redirects;
use crate::analysis::variables::{PartKind, Script};
use crate::stack::expanded::OccId;

/// The rewrite-phase directives of a block, in order.
pub fn phase(block: Directive<'_>) -> Vec<Directive<'_>> {
    block
        .all_children()
        .filter(|c| matches!(c.name(), "rewrite" | "if" | "set" | "return" | "break"))
        .collect()
}

/// Whether a block (or an `if` in it) has a rewrite-phase directive satisfying `f`.
pub fn block_has(block: Directive<'_>, f: &dyn Fn(Directive<'_>) -> bool) -> bool {
    phase(block)
        .into_iter()
        .any(|c| f(c) || (c.name() == "if" && phase(c).into_iter().any(f)))
}

/// A URI `rewrite` whose new URI holds `$request_uri`.
pub fn raw_rewrite(r: Directive<'_>) -> bool {
    if r.name() != "rewrite" || redirects(r) {
        return false;
    }
    let Some(repl) = r.arg(1) else {
        return false;
    };
    let bytes = repl.bytes();
    let (uri, _) = split_args(&bytes);
    Script::parse_value(&uri)
        .parts
        .iter()
        .any(|p| p.kind.key().as_deref() == Some("request_uri"))
}

/// A directive as written, without its `;` (for messages).
pub fn text_of(d: Directive<'_>) -> String {
    let mut s = d.name().to_string();
    for a in d.args() {
        s.push(' ');
        s.push_str(&a.raw_text());
    }
    s
}

/// Bytes for a message: control characters and backquotes escaped.
pub fn show(b: &[u8]) -> String {
    let mut out = String::new();
    for c in String::from_utf8_lossy(b).chars() {
        if c.is_control() || c == '`' {
            out.push_str(&format!("\\x{:02x}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    out
}

/// Sets the captures of a regex that matched `subject`, and its named captures.
pub(super) fn set_caps(
    r: &mut Req,
    names: &[(String, u32)],
    c: &Captures,
    subject: Vec<u8>,
    raw: Option<OccId>,
    by: Option<OccId>,
) {
    for (name, k) in names {
        let mut v = Val::default();
        if let Some((a, b)) = c.get(*k as usize) {
            v.push_uri_text(&subject[a..b], raw, &format!("${name}"), by);
        }
        r.set_var(name.to_ascii_lowercase(), Some(v));
    }
    r.caps = Caps::of(c, subject, raw, by);
}

impl<'a> Walk<'a, '_> {
    /// Runs rewrite-phase directives for each request; `None` when the ways multiply
    /// past [`MAX_PATHS`].
    pub(super) fn run(&mut self, dirs: &[Directive<'a>], reqs: Vec<Req>) -> Option<Vec<Flow>> {
        let mut live = reqs;
        let mut done = Vec::new();
        for &o in dirs {
            if live.is_empty() {
                break;
            }
            let mut next = Vec::new();
            for mut r in std::mem::take(&mut live) {
                match o.name() {
                    "rewrite" => match self.rewrite(o, r) {
                        Flow::Go(r) => next.push(r),
                        other => done.push(other),
                    },
                    "if" => self.if_block(o, r, &mut next, &mut done)?,
                    "return" => done.push(Flow::Gone(Gone::Answered(o.occ()))),
                    "break" => {
                        if r.uri_changed {
                            r.valid_location = false;
                            r.uri_changed = false;
                        }
                        done.push(Flow::Stop(r));
                    }
                    "set" => {
                        if let (Some(name), Some(v)) = (o.arg(0), o.arg(1)) {
                            let name = name.value().trim_start_matches('$').to_ascii_lowercase();
                            let v = self.eval(&v.bytes(), &r, o.occ(), false);
                            r.set_var(name, v);
                        }
                        next.push(r);
                    }
                    _ => next.push(r),
                }
            }
            live = next;
            if live.len() + done.len() > MAX_PATHS {
                return None;
            }
        }
        done.extend(live.into_iter().map(Flow::Go));
        Some(done)
    }

    fn rewrite(&mut self, o: Directive<'a>, mut r: Req) -> Flow {
        let unknown = Flow::Gone(Gone::Unknown(o.occ()));
        let (Some(re), Some(repl)) = (o.arg(0), o.arg(1)) else {
            return unknown;
        };
        let Some(regex) = self.model.regex(o, &re.bytes(), false) else {
            return unknown;
        };
        let Ok(m) = regex.captures(&r.uri) else {
            return unknown;
        };
        let Some(c) = m else {
            r.caps = Caps::None;
            if raw_rewrite(o) && r.skipped.is_none() {
                r.skipped = Some((
                    format!("`{}` does not match `{}`", text_of(o), show(&r.uri)),
                    o.occ(),
                ));
            }
            return Flow::Go(r);
        };
        let subject = r.uri.clone();
        let raw = r.uri_raw;
        set_caps(
            &mut r,
            regex.capture_table().names(),
            &c,
            subject,
            raw,
            Some(o.occ()),
        );
        if redirects(o) {
            return Flow::Gone(Gone::Answered(o.occ()));
        }
        let repl = repl.bytes().into_owned();
        let (body, add_args) = match repl.strip_suffix(b"?") {
            Some(b) => (b.to_vec(), false),
            None => (repl, true),
        };
        let (uri, args) = split_args(&body);
        let Some(uri) = self.eval(&uri, &r, o.occ(), false) else {
            return unknown;
        };
        let new_args = match args {
            Some(a) => {
                let Some(mut v) = self.eval(&a, &r, o.occ(), true) else {
                    return unknown;
                };
                if add_args && !r.args.is_empty() {
                    v.bytes.push(b'&');
                    v.bytes.extend_from_slice(&r.args);
                }
                if v.bytes.len() > MAX_TEXT {
                    return unknown;
                }
                Some(v.bytes)
            }
            None => (!add_args).then(Vec::new),
        };
        if uri.bytes.is_empty() {
            // "the rewritten URI has a zero length": 500.
            return Flow::Gone(Gone::Answered(o.occ()));
        }
        r.internal = true;
        r.valid_unparsed = false;
        r.uri = uri.bytes;
        r.uri_raw = uri.raw;
        r.rewrites.push(o.occ());
        if uri.raw.is_some() {
            r.skipped = None;
        }
        if let Some(a) = new_args {
            r.args = a;
        }
        match o.arg(2).map(|f| f.value().into_owned()).as_deref() {
            Some("break") => {
                r.valid_location = false;
                r.uri_changed = false;
                Flow::Stop(r)
            }
            Some("last") => {
                r.uri_changed = true;
                Flow::Again(r)
            }
            _ => {
                r.uri_changed = true;
                Flow::Go(r)
            }
        }
    }

    fn if_block(
        &mut self,
        o: Directive<'a>,
        r: Req,
        next: &mut Vec<Req>,
        done: &mut Vec<Flow>,
    ) -> Option<()> {
        for (taken, mut r) in self.condition(o, r) {
            if !taken {
                if r.skipped.is_none() && phase(o).into_iter().any(raw_rewrite) {
                    let rw = phase(o).into_iter().find(|&c| raw_rewrite(c))?;
                    r.skipped = Some((
                        format!(
                            "`{}` does not run when `{}` is false",
                            text_of(rw),
                            text_of(o)
                        ),
                        rw.occ(),
                    ));
                }
                next.push(r);
                continue;
            }
            // An `if` block with its own content handler answers the request itself.
            if o.all_children()
                .any(|c| crate::analysis::serving::is_content(c.name()))
            {
                done.push(Flow::Gone(Gone::Answered(o.occ())));
                continue;
            }
            for f in self.run(&phase(o), vec![r])? {
                match f {
                    Flow::Go(r) => next.push(r),
                    other => done.push(other),
                }
            }
        }
        Some(())
    }

    /// The ways an `if` can go for this request: one when nginx's answer follows from
    /// what is known, both otherwise.
    fn condition(&mut self, o: Directive<'a>, r: Req) -> Vec<(bool, Req)> {
        let mut words: Vec<Vec<u8>> = o.args().map(|a| a.bytes().into_owned()).collect();
        if let Some(first) = words.first_mut() {
            if first.first() == Some(&b'(') {
                first.remove(0);
            }
        }
        if let Some(last) = words.last_mut() {
            if last.last() == Some(&b')') {
                last.pop();
            }
        }
        words.retain(|w| !w.is_empty());
        // Whether the test is a positive (`Some(true)`) or negative regex match.
        let mut regex_test: Option<bool> = None;
        let known: Option<(bool, Caps, Vars)> = match words.as_slice() {
            [v] if v.first() == Some(&b'$') => self.eval(v, &r, o.occ(), false).map(|v| {
                (
                    !(v.bytes.is_empty() || v.bytes == b"0"),
                    r.caps.clone(),
                    Vec::new(),
                )
            }),
            [v, op, rhs] if op == b"=" || op == b"!=" => {
                match (
                    self.eval(v, &r, o.occ(), false),
                    self.eval(rhs, &r, o.occ(), false),
                ) {
                    (Some(a), Some(b)) => Some((
                        (a.bytes == b.bytes) == (op == b"="),
                        r.caps.clone(),
                        Vec::new(),
                    )),
                    _ => None,
                }
            }
            [v, op, re] if matches!(op.as_slice(), b"~" | b"~*" | b"!~" | b"!~*") => {
                let positive = op[0] == b'~';
                regex_test = Some(positive);
                let caseless = op.ends_with(b"*");
                let subject = self.eval(v, &r, o.occ(), false);
                let regex = self.model.regex(o, re, caseless);
                match (subject, regex) {
                    (Some(s), Some(regex)) => match regex.captures(&s.bytes) {
                        Ok(Some(c)) => {
                            let mut t = r.clone();
                            set_caps(
                                &mut t,
                                regex.capture_table().names(),
                                &c,
                                s.bytes.clone(),
                                s.raw,
                                Some(o.occ()),
                            );
                            Some((positive, t.caps, t.vars))
                        }
                        Ok(None) => Some((!positive, Caps::None, Vec::new())),
                        Err(_) => None,
                    },
                    _ => None,
                }
            }
            _ => None,
        };
        if let Some((taken, caps, vars)) = known {
            let mut r = r;
            r.caps = caps;
            for (n, v) in vars {
                r.set_var(n, v);
            }
            return vec![(taken, r)];
        }
        let remembered = r
            .decisions
            .iter()
            .find(|(x, _)| *x == o.occ())
            .map(|&(_, t)| t);
        let ways: Vec<bool> = match remembered {
            Some(t) => vec![t],
            None => vec![true, false],
        };
        ways.into_iter()
            .map(|taken| {
                let mut r = r.clone();
                if remembered.is_none() {
                    r.decisions.push((o.occ(), taken));
                }
                if let Some(positive) = regex_test {
                    // A match sets captures this model does not know; a failure clears them.
                    r.caps = if taken == positive {
                        Caps::Unknown
                    } else {
                        Caps::None
                    };
                }
                (taken, r)
            })
            .collect()
    }

    /// A script's value for this request (`None`: a variable this model does not know).
    pub(super) fn eval(&self, text: &[u8], r: &Req, site: OccId, in_args: bool) -> Option<Val> {
        let script = Script::parse_value(text);
        if script.error.is_some() {
            return None;
        }
        let mut out = Val::default();
        for p in &script.parts {
            let t = &text[p.value.range()];
            match &p.kind {
                PartKind::Literal => out.bytes.extend_from_slice(t),
                PartKind::Capture(n) => match &r.caps {
                    Caps::None => {}
                    Caps::Unknown => return None,
                    Caps::Known(c) => {
                        if let Some(&Some((a, b))) = c.spans.get(usize::from(*n)) {
                            let piece = &c.subject[a..b];
                            if in_args && r.quoted {
                                let mut esc = Vec::new();
                                escape(piece, true, &mut esc);
                                out.push_uri_text(&esc, c.raw, &format!("${n}"), c.by);
                            } else {
                                out.push_uri_text(piece, c.raw, &format!("${n}"), c.by);
                            }
                        }
                    }
                },
                PartKind::Variable { .. } => {
                    let key = p.kind.key().unwrap_or_default();
                    match key.as_str() {
                        "request_uri" => {
                            out.bytes.extend_from_slice(self.target);
                            out.raw = out.raw.or(Some(site));
                        }
                        "uri" | "document_uri" => {
                            out.push_uri_text(&r.uri, r.uri_raw, &format!("${key}"), None)
                        }
                        "args" | "query_string" => out.bytes.extend_from_slice(&r.args),
                        "is_args" => {
                            if !r.args.is_empty() {
                                out.bytes.push(b'?');
                            }
                        }
                        _ => match r.var(&key) {
                            Some(Some(v)) => out.push(v.clone()),
                            _ => return None,
                        },
                    }
                }
            }
            // Each part adds at most one bounded text, so checking after each one keeps
            // every value within twice the bound.
            if out.bytes.len() > MAX_TEXT {
                return None;
            }
        }
        Some(out)
    }
}
