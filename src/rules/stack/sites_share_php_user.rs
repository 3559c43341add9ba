//! STK010 sites-share-php-user: two pools of one host serve different sites (nginx reaches
//! them from servers with no name in common) but run as the same `user`, and one of them
//! sets no `open_basedir` or shares the other's `session.save_path`.
//!
//! A pool per site is how hosts separate sites, but the separation is the user: pools of one
//! user read each other's files whatever php-fpm's pool names say. Without `open_basedir`,
//! a script of one site (an upload bug, a vulnerable plugin) reads the other site's code,
//! its `.env` and `wp-config.php`. With the same `session.save_path`, it also reads the
//! other site's session files, which `open_basedir` does not prevent (the directory must lie
//! inside it for sessions to work), and with them its visitors' logins. Pools of different
//! users are not reported: php-fpm's session files are created with mode 0600, and the file
//! system already separates them.
//!
//! Only pools nginx reaches count, so that a site is known by its `server_name`s; a pool
//! reached only from servers without names (`_`) is not a site of its own here.

use crate::analysis::https_servers::names;
use crate::analysis::stack_links::{pool_links, pool_view};
use crate::rules::{Context, Rule};
use crate::stack::ids::PoolId;
use crate::stack::instances::PoolView;
use std::collections::{BTreeSet, HashMap};

declare_rule! {
    pub struct SitesSharePhpUser;
    code: STK010,
    name: "sites-share-php-user",
    lang: stack,
    category: Security,
    severity: Info,
    fix: None,
    group: Hardening,
}

/// One pool as this rule sees it.
struct Site<'v, 'a> {
    pool: &'v PoolView<'a>,
    user: String,
    names: BTreeSet<String>,
}

/// The pool's own `session.save_path` (its `php_value`/`php_admin_value`), shown in a
/// message; `None` when it sets none. Two pools of one php-fpm read the same php.ini, so
/// without a value of their own they share whatever it (or PHP's default) says.
fn own_save_path(pool: &PoolView<'_>) -> Option<String> {
    let (v, _admin) = pool.php_setting("session.save_path")?;
    let text = v.text.trim();
    // `N;MODE;/path`: the directory is the last part.
    Some(text.rsplit(';').next().unwrap_or(text).to_string())
}

/// The pool sets an `open_basedir` of its own (non-empty, or unknown). One in php.ini does not
/// count: both pools read it, so it cannot keep one site from the other.
fn confined(pool: &PoolView<'_>) -> bool {
    pool.php_setting("open_basedir")
        .is_some_and(|(v, _)| !v.known || !v.text.trim().is_empty())
}

/// Which site each pool serves: pools reached from servers with a name in common serve one
/// site (also through a third pool), found with a union-find over the names, so the cost
/// grows with the names, not with pairs of pools.
fn site_groups(sites: &[Site<'_, '_>]) -> Vec<usize> {
    fn root(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }
    let mut parent: Vec<usize> = (0..sites.len()).collect();
    let mut first: HashMap<&str, usize> = HashMap::new();
    for (i, s) in sites.iter().enumerate() {
        for n in &s.names {
            let j = *first.entry(n.as_str()).or_insert(i);
            let (a, b) = (root(&mut parent, i), root(&mut parent, j));
            parent[a] = b;
        }
    }
    (0..sites.len()).map(|i| root(&mut parent, i)).collect()
}

impl Rule for SitesSharePhpUser {
    fn check(&self, cx: &mut Context<'_>) {
        let links = pool_links(cx.stack);
        let instances = cx.fpm_instances();
        // The names of the servers that reach each pool, in one pass over the links.
        let mut names_of: HashMap<PoolId, BTreeSet<String>> = HashMap::new();
        for l in &links {
            let (Some(pool), Some(server)) = (pool_view(instances, l), l.pass.enclosing("server"))
            else {
                continue;
            };
            names_of.entry(pool.id).or_default().extend(
                names(server)
                    .into_iter()
                    .map(|(_, n)| n)
                    .filter(|n| n != "localhost"),
            );
        }
        let lone = cx.stack.lone_pools_run();
        for inst in instances.iter().filter(|i| i.master || lone) {
            let mut sites: Vec<Site<'_, '_>> = Vec::new();
            for pool in &inst.pools {
                let Some(user) = pool.get("user").filter(|u| u.known) else {
                    continue;
                };
                let names = names_of.get(&pool.id).cloned().unwrap_or_default();
                if names.is_empty() {
                    continue;
                }
                sites.push(Site {
                    pool,
                    user: user.text.trim().to_string(),
                    names,
                });
            }
            let site_of = site_groups(&sites);
            // Per user, one pool of each of (up to) two sites: enough to name "another site"
            // for every pool, in one pass.
            let mut by_user: HashMap<&str, Vec<(usize, usize)>> = HashMap::new();
            for (i, s) in sites.iter().enumerate() {
                let seen = by_user.entry(s.user.as_str()).or_default();
                if seen.len() < 2 && seen.iter().all(|&(g, _)| g != site_of[i]) {
                    seen.push((site_of[i], i));
                }
            }
            for (i, site) in sites.iter().enumerate() {
                let Some(other) = by_user[site.user.as_str()]
                    .iter()
                    .find(|&&(g, _)| g != site_of[i])
                    .map(|&(_, j)| &sites[j])
                else {
                    continue;
                };
                let open = !confined(site.pool);
                let own = own_save_path(site.pool);
                let sessions = (own == own_save_path(other.pool)).then(|| match &own {
                    Some(dir) => format!("`{dir}`"),
                    None => "the session.save_path of their php.ini".to_string(),
                });
                if !open && sessions.is_none() {
                    continue;
                }
                let Some(user) = site.pool.get("user") else {
                    continue;
                };
                let first = |s: &Site<'_, '_>| s.names.iter().next().cloned().unwrap_or_default();
                let mut reads = Vec::new();
                if open {
                    reads.push("files (the pool sets no open_basedir)".to_string());
                }
                if let Some(p) = &sessions {
                    reads.push(format!("visitors' sessions (both keep them in {p})"));
                }
                let d = cx.report(
                    user.at.file(),
                    user.span(),
                    format!(
                        "[pool {}] runs as `{}` like pool `{}`: a script of {} can read {}'s {}",
                        site.pool.name,
                        site.user,
                        other.pool.name,
                        first(site),
                        first(other),
                        reads.join(" and ")
                    ),
                );
                if let Some(u) = other.pool.get("user") {
                    d.label(
                        u.at.file().clone(),
                        u.span(),
                        format!("pool `{}`", other.pool.name),
                    );
                }
                d.help = Some(
                    "give each site's pool its own user (and group), with its files and \
                     session.save_path owned by it; at least set php_admin_value[open_basedir] \
                     to the site's directory and a session directory of its own"
                        .into(),
                );
            }
        }
    }
}
