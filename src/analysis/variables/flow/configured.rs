//! Built-in variables whose value the configuration decides (`$uri` after a `rewrite`,
//! `$host` in a server only exact names reach, `$document_root` from `root`, `$remote_addr`
//! under realip, `$fastcgi_path_info` from the split regex, `$proxy_host`).

use super::{Provenance, Site, Walk};
use crate::analysis::variables::answer::{Answer, Step};
use crate::analysis::variables::danger::{Danger, Dangers};
use crate::analysis::variables::parse::{PartKind, Script};
use crate::fxhash::FxHashMap;
use crate::stack::expanded::{OccId, NO_PARENT};
use std::rc::Rc;

impl Provenance<'_> {
    /// Built-in variables whose value the configuration decides.
    pub(super) fn configured(
        &self,
        place: OccId,
        name: &str,
        fallback: Dangers,
        step: &Step,
        walk: &mut Walk,
        depth: usize,
    ) -> Answer {
        let block = self.block_of(place);
        let effective_arg = |directive: &str| -> Option<OccId> {
            self.view.effective(block, directive).first().copied()
        };
        match name {
            "remote_addr" | "binary_remote_addr" => match effective_arg("real_ip_header") {
                // ngx_http_realip_set_addr takes the header's value only when it parses as
                // an address (ngx_parse_addr): an address of the sender's choosing.
                Some(o) => {
                    let (f, span) = self.view.location(o);
                    let why = Step {
                        file: f,
                        span,
                        note: "realip replaces it with a request header's address".into(),
                    };
                    let d = if name == "remote_addr" {
                        Dangers::of(&[Danger::Host])
                    } else {
                        Dangers::NONE
                    };
                    Answer::leaf(d, why).through(step)
                }
                None => Answer::default(),
            },
            "document_root" | "realpath_root" | "request_filename" => {
                let mut a = match effective_arg("alias").or_else(|| effective_arg("root")) {
                    Some(o) => {
                        let mut a = self.argument_inner(o, 0, walk, depth);
                        if name == "realpath_root" {
                            // realpath() resolves every `..`.
                            a = a.narrow(Dangers::ALL.without(Danger::DotDot));
                        }
                        a
                    }
                    None => Answer::default(),
                };
                if name == "request_filename" {
                    let (f, s) = (step.file.clone(), step.span);
                    a.merge(self.var_at(place, "uri", &f, s, walk, depth));
                }
                a.through(step)
            }
            "fastcgi_script_name" | "fastcgi_path_info" => {
                let k = if name == "fastcgi_script_name" { 1 } else { 2 };
                match effective_arg("fastcgi_split_path_info") {
                    Some(o) => {
                        let site = Site::SplitPath(o);
                        match self.site_regex(site) {
                            Some(re) if re.capture_table().count() >= k => {
                                self.site_capture(site, &re, k, walk, depth).through(step)
                            }
                            _ => self.uri_like(place, step, walk, depth, k == 1),
                        }
                    }
                    None => self.uri_like(place, step, walk, depth, k == 1),
                }
            }
            "uri" | "document_uri" => {
                let before = self.rewrite_phase_before(place);
                // After a rewrite every request takes, `$uri` is what the rewrites made
                // of it (`rewrite ^ $request_uri;` keeps the client's encoding), not the
                // decoded path.
                let total = before.iter().rposition(|&r| self.rewrites_every_uri(r));
                let mut a = Answer::default();
                if let Some(t) = total {
                    for &r in &before[t..] {
                        if self.view.name(r) == "rewrite" {
                            a.merge(self.rewritten_uri(r, walk, depth).through(step));
                        }
                    }
                    return a;
                }
                a.merge(Answer::leaf(fallback, step.clone()));
                if let Some(o) = effective_arg("merge_slashes") {
                    if self
                        .view
                        .arg(o, 0)
                        .is_some_and(|v| v.eq_ignore_ascii_case("off"))
                    {
                        // ngx_http_parse_complex_uri keeps `//x` unmerged: a path that
                        // reads as a protocol-relative URL to a host of the client's choice.
                        let (f, span) = self.view.location(o);
                        let why = Step {
                            file: f,
                            span,
                            note: "`merge_slashes off` lets it start with `//`".into(),
                        };
                        a.merge(Answer::leaf(Dangers::of(&[Danger::Host]), why).through(step));
                    }
                }
                for r in before {
                    if self.view.name(r) == "rewrite" {
                        a.merge(self.rewritten_uri(r, walk, depth).through(step));
                    }
                }
                a
            }
            "host" => {
                // Worked out once per server: every `$host` of a server asks it.
                let server = self.enclosing(place, "server");
                let cached = server.and_then(|s| self.host_fixed.borrow().get(&s).copied());
                let fixed = cached.unwrap_or_else(|| {
                    let f = self.fixed_host(place).is_some();
                    if let Some(s) = server {
                        self.host_fixed.borrow_mut().insert(s, f);
                    }
                    f
                });
                if fixed {
                    Answer::default()
                } else {
                    Answer::leaf(fallback, step.clone())
                }
            }
            "proxy_host" | "proxy_port" => match effective_arg("proxy_pass") {
                Some(o) => self
                    .argument_inner(o, 0, walk, depth)
                    .narrow(Dangers::of(&[Danger::Host]))
                    .through(step),
                None => Answer::default(),
            },
            _ => Answer::leaf(fallback, step.clone()),
        }
    }

    /// Whether `rewrite` `r` changes the URI of every request that reaches it: not under an
    /// `if`, not a redirect, not `last` (which searches the locations again), and a regex
    /// that matches any subject — `^`, `.*`, `(.*)`. Not `^(.*)$`: `.` does not match a
    /// line feed, so a URI with a decoded `%0A` fails it and keeps its decoded form.
    fn rewrites_every_uri(&self, r: OccId) -> bool {
        let ex = self.view.expanded;
        if self.view.name(r) != "rewrite" || self.is_redirect(r) {
            return false;
        }
        let parent = ex.get(r).parent;
        if parent == NO_PARENT || !matches!(self.view.name(parent), "server" | "location") {
            return false;
        }
        let args = self.view.args(r);
        if args.get(2).is_some_and(|f| f == "last") {
            return false;
        }
        args.first()
            .is_some_and(|re| matches!(re.as_ref(), "^" | "" | ".*" | "^.*" | "(.*)" | "^(.*)"))
    }

    /// What `rewrite` `r` puts into `$uri`: its replacement up to a literal `?` (the rest
    /// is the arguments), unless the replacement is a redirect (`http://`, `https://`,
    /// `$scheme`: ngx_http_rewrite). nginx copies captures and variables there unescaped
    /// and does not normalise the result (ngx_http_script_regex_end_code), so a rewritten
    /// `$uri` can hold anything its parts can, `..` included.
    fn rewritten_uri(&self, r: OccId, walk: &mut Walk, depth: usize) -> Answer {
        let Some((file, word)) = self.word(r, 1) else {
            return Answer::default();
        };
        if self.is_redirect(r) {
            return Answer::default();
        }
        let value = word.value(&file.text);
        let mut script = Script::parse_word(&word, &file.text);
        if let Some(cut) = script
            .parts
            .iter()
            .position(|p| p.kind == PartKind::Literal && value[p.value.range()].contains(&b'?'))
        {
            script.parts.truncate(cut);
        }
        let step = Step {
            file: file.clone(),
            span: word.raw(),
            note: "`rewrite` sets `$uri` to this".into(),
        };
        self.script_at(r, &file, &script, None, walk, depth)
            .through(&step)
    }

    /// The names `$host` can be in the server serving `place`, when the server is reached
    /// only by them: it is not a default server (`default_server`, or the first server of
    /// a `listen` address) and its names are exact or `*.`/`.` suffix wildcards (a client
    /// picks at most a subdomain). In a fragment (a server outside `http`), the first-server
    /// rule is not applied, since the servers before it are not shown; `server_name _` is
    /// taken as the catch-all there. `None`: any host the client sends.
    fn fixed_host(&self, place: OccId) -> Option<Vec<String>> {
        let ex = self.view.expanded;
        let server = self.enclosing(place, "server")?;
        let http = ex.get(server).parent;
        let mut names = Vec::new();
        for &sn in ex.children_named(server, "server_name") {
            for a in self.view.args(sn) {
                let open = a.starts_with('~') || a.ends_with('*') || a.is_empty();
                if open {
                    return None;
                }
                names.push(a.to_ascii_lowercase());
            }
        }
        if names.is_empty() {
            return None;
        }
        let own = self.listens(server);
        if own.iter().any(|(_, default)| *default) {
            return None;
        }
        // A server outside any `http` block is a fragment another file includes among
        // servers this configuration does not show: which one is first on its address is
        // unknown, so only what the server says of itself counts — `_` or an empty name
        // is the usual catch-all's, anything else an exact list.
        if http == NO_PARENT || self.view.name(http) != "http" {
            let catch_all = names
                .iter()
                .any(|n| n == "_" || n.is_empty() || n == "\"\"");
            return (!catch_all).then_some(names);
        }
        let defaults = self.defaults_of(http);
        if own
            .iter()
            .any(|(key, _)| defaults.get(key) == Some(&server))
        {
            return None;
        }
        Some(names)
    }

    /// Each listen address's default server in `http`: the one that says
    /// `default_server`, else the first (ngx_http_add_addresses). Worked out once.
    fn defaults_of(&self, http: OccId) -> Rc<FxHashMap<String, OccId>> {
        if let Some(d) = self.defaults.borrow().get(&http) {
            return d.clone();
        }
        let mut first: FxHashMap<String, OccId> = FxHashMap::default();
        let mut explicit: FxHashMap<String, OccId> = FxHashMap::default();
        for &s in self.view.expanded.children_named(http, "server") {
            for (key, default) in self.listens(s) {
                if default {
                    explicit.entry(key.clone()).or_insert(s);
                }
                first.entry(key).or_insert(s);
            }
        }
        first.extend(explicit);
        let d = Rc::new(first);
        self.defaults.borrow_mut().insert(http, d.clone());
        d
    }

    /// A server's listen addresses, normalised (`80`, `*:80`, `0.0.0.0:80` alike; none
    /// written: `*:80`), and whether each is marked `default_server` (or `default`).
    fn listens(&self, server: OccId) -> Vec<(String, bool)> {
        let listens = self.view.expanded.children_named(server, "listen");
        if listens.is_empty() {
            return vec![("*:80".into(), false)];
        }
        let mut out = Vec::new();
        for &l in listens {
            let args = self.view.args(l);
            let default = args.iter().any(|a| a == "default_server" || a == "default");
            let Some(addr) = args.first() else { continue };
            let addr = addr.strip_prefix("0.0.0.0:").unwrap_or(addr);
            let addr = addr.strip_prefix("*:").unwrap_or(addr);
            let key = if addr.parse::<u16>().is_ok() {
                format!("*:{addr}")
            } else {
                addr.to_string()
            };
            out.push((key, default));
        }
        out
    }

    /// `$fastcgi_script_name` without a split: `$uri`; `$fastcgi_path_info`: empty.
    fn uri_like(
        &self,
        place: OccId,
        step: &Step,
        walk: &mut Walk,
        depth: usize,
        is: bool,
    ) -> Answer {
        if !is {
            return Answer::default();
        }
        let (f, s) = (step.file.clone(), step.span);
        self.var_at(place, "uri", &f, s, walk, depth).through(step)
    }
}
