//! NGX115 missing-default-server: several servers on one address and port, none marked
//! `default_server`. nginx then answers every request whose Host matches no
//! `server_name` — scanners connecting by IP address, stale DNS names, typos — with the
//! first of them in configuration order (includes expanded), which is easy to change by
//! accident (renaming a file in `sites-enabled/`). Info; Warning when that first server is
//! a named site serving content, which those requests then get.

use crate::analysis::cursor::{self, Directive};
use crate::analysis::locations::default_server::{marked, unmarked};
use crate::diagnostic::Severity;
use crate::rules::{Context, Rule};
use crate::stack::expanded::NO_PARENT;
use std::collections::{HashMap, HashSet};

declare_rule! {
    pub struct MissingDefaultServer;
    code: NGX115,
    name: "missing-default-server",
    lang: nginx,
    category: Security,
    severity: Info,
    fix: None,
    group: Hardening,
}

impl Rule for MissingDefaultServer {
    fn check(&self, cx: &mut Context<'_>) {
        // The addresses a server of a configuration read from its main file marks
        // `default_server` on.
        let marked_elsewhere: HashSet<String> = cx
            .stack
            .nginx
            .iter()
            .filter(|i| !i.standalone)
            .flat_map(|i| {
                let servers: Vec<_> = cursor::named(i, "server")
                    .filter(|s| s.has_block() && s.parent().is_some_and(|p| p.name() == "http"))
                    .map(|s| s.occ())
                    .collect();
                marked(&i.view(), &servers)
            })
            .collect();
        for inst in &cx.stack.nginx {
            // The http servers of each `http` block (or of a fragment's top level), in
            // order: those are the ones that share listening sockets.
            let mut groups: HashMap<u32, Vec<_>> = HashMap::new();
            let mut order = Vec::new();
            for s in cursor::named(inst, "server") {
                if !s.has_block() {
                    continue;
                }
                let parent = match s.parent() {
                    Some(p) if p.name() == "http" => p.occ(),
                    None if inst.standalone => NO_PARENT,
                    _ => continue,
                };
                let list = groups.entry(parent).or_insert_with(|| {
                    order.push(parent);
                    Vec::new()
                });
                list.push(s.occ());
            }
            for parent in order {
                let servers = &groups[&parent];
                if servers.len() < 2 {
                    continue;
                }
                let fragment = parent == NO_PARENT;
                // An include of `http` that read nothing (a `sites-enabled/*` this tree
                // does not hold) may bring the server marked `default_server`.
                if !fragment && Directive::new(inst, parent).has_unread_include() {
                    continue;
                }
                for shared in unmarked(&inst.view(), servers) {
                    // A file of servers nothing loads (`sites-available/x`) would join the
                    // `http` of the stack's own configuration, where a server marked
                    // `default_server` on the address stays the default whatever order the
                    // files come in.
                    if fragment && marked_elsewhere.contains(&shared.address) {
                        continue;
                    }
                    let list: Vec<(Directive<'_>, Option<Directive<'_>>)> = shared
                        .servers
                        .iter()
                        .map(|&(s, l)| {
                            (Directive::new(inst, s), l.map(|l| Directive::new(inst, l)))
                        })
                        .collect();
                    report(cx, &shared.address, &list, fragment);
                }
            }
        }
    }
}

fn report(
    cx: &mut Context<'_>,
    address: &str,
    servers: &[(Directive<'_>, Option<Directive<'_>>)],
    fragment: bool,
) {
    let (first, first_listen) = servers[0];
    let at = first_listen.unwrap_or(first);
    let names = first_names(first);
    let shown = if names.is_empty() {
        "(no server_name)".to_string()
    } else {
        names.join(" ")
    };
    let leaks = names.iter().any(|n| is_site_name(n)) && first.children("return").next().is_none();
    // A file of servers is included into an `http` we cannot see, where another file's
    // server may be the marked default: say so, and keep it at Info.
    let leaks = leaks && !fragment;
    let mut message = if fragment {
        format!(
            "{} servers in this file listen on {address} and none is marked `default_server`: unless a server in another file is, nginx answers requests for any other Host (and by bare IP address) with the first, `{shown}`",
            servers.len()
        )
    } else {
        format!(
            "{} servers listen on {address} and none is marked `default_server`: nginx answers requests for any other Host (and by bare IP address) with the first, `{shown}`",
            servers.len()
        )
    };
    if leaks {
        message.push_str(", so that site is served to every unknown Host, scanners included");
    }
    let diag = cx.report(at.file(), at.span(), message);
    if leaks {
        diag.severity = Severity::Warning;
    }
    // The next few servers on the address are labelled; a fleet of thousands is counted.
    const LABELLED: usize = 3;
    for &(s, l) in servers[1..].iter().take(LABELLED) {
        let place = l.unwrap_or(s);
        let n = first_names(s);
        let label = if n.is_empty() {
            format!("also on {address}")
        } else {
            format!("also on {address} (`{}`)", n.join(" "))
        };
        diag.label(place.file().clone(), place.span(), label);
    }
    let more = servers.len().saturating_sub(1 + LABELLED);
    if more > 0 {
        let (s, l) = servers[1 + LABELLED];
        let place = l.unwrap_or(s);
        diag.label(
            place.file().clone(),
            place.span(),
            format!("and {more} more servers on {address}, from here on"),
        );
    }
    diag.help = Some(format!(
        "mark the catch-all explicitly: `listen {address} default_server;` on a server that refuses unknown hosts (`server_name _; return 444;`)"
    ));
}

fn first_names(server: Directive<'_>) -> Vec<String> {
    server
        .children("server_name")
        .flat_map(|d| d.args().map(|a| a.value().into_owned()).collect::<Vec<_>>())
        .collect()
}

/// A name that belongs to a real site (`example.com`, `*.example.org`, an address), not a
/// catch-all placeholder (`_`, `""`, `localhost`, a regex).
fn is_site_name(name: &str) -> bool {
    !name.starts_with('~') && name.contains('.') && name != "localhost"
}
