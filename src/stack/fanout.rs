//! The expansion budget: how many directive occurrences a configuration may expand to,
//! measured before expanding it.
//!
//! A file included from many places expands once per place, as nginx parses it once per
//! `include`, so the expansion can be far larger than the files: ten files a level, each
//! including the next level by glob, over eight levels, are 81 files but 10⁸ copies of the
//! last level. The budget is a multiple of the directives the files hold (with a floor for
//! small configurations, whose snippets may be included from every location), so the
//! expansion costs at most a constant factor more than reading the files; past it the
//! configuration is an input error naming the include chain that multiplies, never a
//! silently shortened expansion whose findings would be wrong.
//!
//! Counting is exact and cheap: a file expands to the same number of occurrences wherever
//! it is included (an occurrence per directive, plus the expansions of the files its
//! includes read), and includes form no cycle (the loader refuses them), so each file is
//! counted once.

use super::nginx::NginxConfig;
use crate::source::FileId;
use crate::syntax::nginx::{NodeId, NodeKind};

/// Occurrences allowed per directive the configuration's files hold. Real fan-out is a
/// snippet included from every server or location: 50,000 vhosts of four directives, each
/// including a 200-directive snippet, expand 51 times over.
pub const FACTOR: u64 = 64;
/// Occurrences always allowed: a small configuration may include its snippets from every
/// location (1,000 locations × a 200-directive snippet), and this expands in well under a
/// second.
pub const FLOOR: u64 = 1_000_000;
/// Where the factor stops (ten times the directives of a 100 MB configuration; each
/// occurrence costs about 30 bytes in the indexes): past it a configuration may still expand
/// to twice its own directives, so that the budget stays proportional to the input and a
/// configuration larger than that, included once, is never refused.
pub const CEILING: u64 = 25_000_000;
/// Occurrences per directive always allowed, past the ceiling too.
pub const ALWAYS: u64 = 2;

/// A configuration that expands past its budget.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Overflow {
    /// Occurrences the whole expansion would have.
    pub total: u64,
    /// The budget it exceeds.
    pub budget: u64,
    /// Directives the configuration's files hold (what the budget is proportional to).
    pub directives: u64,
    /// The include chain that multiplies the most: each include directive (its file and
    /// node), from the main file down, each into the target that expands the most.
    pub chain: Vec<(FileId, NodeId)>,
    /// The file the chain ends in (the last include's largest target).
    pub last: FileId,
}

/// The budget for a configuration holding `directives` directives.
pub fn budget(directives: u64) -> u64 {
    directives
        .saturating_mul(FACTOR)
        .clamp(FLOOR, CEILING)
        .max(directives.saturating_mul(ALWAYS))
}

/// Per file: the directives it holds, and the occurrences it expands to.
struct Sizes {
    own: Vec<u64>,
    total: Vec<Option<u64>>,
}

/// Whether `config` fits its budget; the overflow when it does not.
pub fn check(config: &NginxConfig) -> Result<u64, Overflow> {
    let mut sizes = Sizes {
        own: config
            .files
            .iter()
            .map(|f| {
                let nodes = &f.parsed.tree.nodes;
                nodes
                    .iter()
                    .filter(|n| matches!(n.kind, NodeKind::Directive(_)))
                    .count() as u64
            })
            .collect(),
        total: vec![None; config.files.len()],
    };
    let directives: u64 = sizes.own.iter().sum();
    let budget = budget(directives);
    let total = expands_to(config, &mut sizes, FileId(0), 0);
    if total <= budget {
        return Ok(total);
    }
    // Down the include whose targets expand the most, into its largest target, until a
    // file includes nothing.
    let mut chain = Vec::new();
    let mut file = FileId(0);
    while let Some((node, target)) = followed(config, file)
        .filter_map(|(node, targets)| {
            // The first of the largest (`max_by_key` keeps the last).
            let largest = targets
                .iter()
                .rev()
                .copied()
                .max_by_key(|t| sizes.total[t.0 as usize].unwrap_or(0))?;
            let sum: u64 = targets
                .iter()
                .map(|t| sizes.total[t.0 as usize].unwrap_or(0))
                .fold(0, u64::saturating_add);
            Some((sum, node, largest))
        })
        .max_by_key(|&(sum, node, _)| (sum, std::cmp::Reverse(node)))
        .map(|(_, node, largest)| (node, largest))
    {
        chain.push((file, node));
        file = target;
        // The loader refuses cycles; this only guards against a bug looping forever.
        if chain.len() > config.files.len() {
            break;
        }
    }
    Err(Overflow {
        total,
        budget,
        directives,
        chain,
        last: file,
    })
}

/// The includes of `file` that were followed, with the files each read. Only directives:
/// an include inside a word list (`map`, `types`) is read, but what it reads is the
/// module's entries, which the expansion does not walk.
fn followed(config: &NginxConfig, file: FileId) -> impl Iterator<Item = (NodeId, &[FileId])> + '_ {
    let tree = &config.file(file).parsed.tree;
    tree.includes.iter().filter_map(move |&id| {
        let node = tree.nodes.get(id as usize)?;
        matches!(node.kind, NodeKind::Directive(_)).then_some(())?;
        Some((id, config.includes.get(file, id)?))
    })
}

/// The occurrences `file` expands to (saturating). `depth` guards the recursion, which
/// the loader's include depth limit already bounds.
fn expands_to(config: &NginxConfig, sizes: &mut Sizes, file: FileId, depth: usize) -> u64 {
    let i = file.0 as usize;
    if let Some(t) = sizes.total[i] {
        return t;
    }
    let mut total = sizes.own[i];
    if depth <= super::nginx::MAX_INCLUDE_DEPTH {
        let includes: Vec<FileId> = followed(config, file)
            .flat_map(|(_, targets)| targets.iter().copied())
            .collect();
        for t in includes {
            total = total.saturating_add(expands_to(config, sizes, t, depth + 1));
        }
    }
    sizes.total[i] = Some(total);
    total
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stack::fs::DumpFs;
    use crate::stack::nginx::{load, LoadOptions};
    use std::path::{Path, PathBuf};

    /// Ten files a level over `levels` levels, each including the next level by glob.
    fn fan(levels: usize, per_file: usize) -> NginxConfig {
        let mut fs = DumpFs::default();
        let body: String = (0..per_file).map(|i| format!("set $v{i} {i};\n")).collect();
        fs.files.insert(
            PathBuf::from("/n/nginx.conf"),
            b"http { server { include /n/l1/*.conf; } }\n".to_vec(),
        );
        for level in 1..=levels {
            for i in 0..10 {
                let next = if level < levels {
                    format!("include /n/l{}/*.conf;\n", level + 1)
                } else {
                    String::new()
                };
                fs.files.insert(
                    PathBuf::from(format!("/n/l{level}/f{i}.conf")),
                    format!("{body}{next}").into_bytes(),
                );
            }
        }
        load(&fs, Path::new("/n/nginx.conf"), &LoadOptions::default()).unwrap()
    }

    #[test]
    fn counts_each_include_place() {
        // 3 in nginx.conf; ten level-1 files, each 2 of its own and ten level-2 files of 1.
        let config = fan(2, 1);
        assert_eq!(check(&config), Ok(3 + 10 * (2 + 10)));
    }

    #[test]
    fn a_fan_out_past_the_budget_names_its_chain() {
        let config = fan(8, 20);
        let over = check(&config).unwrap_err();
        assert_eq!(over.directives, 3 + 70 * 21 + 10 * 20);
        assert_eq!(over.budget, FLOOR);
        assert!(over.total > 10u64.pow(8));
        // nginx.conf → l1/f0 → … → l7/f0, ending in l8/f0.
        assert_eq!(over.chain.len(), 8);
        let path = |f: FileId| config.file(f).source.path.clone();
        assert_eq!(path(over.chain[1].0), PathBuf::from("/n/l1/f0.conf"));
        assert_eq!(path(over.last), PathBuf::from("/n/l8/f0.conf"));
    }

    #[test]
    fn the_budget_grows_with_the_input() {
        assert_eq!(budget(10), FLOOR);
        assert_eq!(budget(100_000), 6_400_000);
        assert_eq!(budget(1_000_000), CEILING);
        // Never below twice the input: proportional at any size.
        assert_eq!(budget(20_000_000), 40_000_000);
        assert_eq!(budget(u64::MAX), u64::MAX);
    }
}
