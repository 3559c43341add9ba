//! Small files the nginx configuration names whose content a rule judges (an
//! `ssl_dhparam` group): read once when the stack is built, through the same confined file
//! system and path resolution as includes, so rules stay pure functions of the stack.
//!
//! A file is read whole up to [`MAX_SIDE_FILE`] bytes: a DH parameters file is well under a
//! kilobyte; a larger one is unknown rather than read in part. A path with variables, a path of a
//! server the tree does not hold (no root to map it), or a file that cannot be read is kept
//! as such, so a rule can stay silent about what it cannot see.

use super::expanded::OccId;
use super::fs::Fs;
use super::model::NginxInstance;
use super::paths::{from_bytes, Resolved, Resolver};
use crate::fxhash::FxHashMap;
use std::path::PathBuf;

/// The most bytes of a side file kept.
pub const MAX_SIDE_FILE: usize = 64 << 10;

/// The directives whose file is read.
pub const READ: [&str; 1] = ["ssl_dhparam"];

/// What a side file's directive names.
#[derive(Clone, Debug)]
pub enum SideFile {
    /// The file, as it is in the tree (at most [`MAX_SIDE_FILE`] bytes).
    Read { path: PathBuf, bytes: Vec<u8> },
    /// Not known here: a variable, a server path the tree does not map, or a read error.
    Unknown,
}

/// The side files of every nginx configuration, by (configuration index, directive).
#[derive(Default, Debug)]
pub struct SideFiles(FxHashMap<(usize, OccId), SideFile>);

impl SideFiles {
    pub fn load(fs: &dyn Fs, nginx: &[NginxInstance]) -> SideFiles {
        let mut out = FxHashMap::default();
        for (i, inst) in nginx.iter().enumerate() {
            let resolver = Resolver {
                prefix: Some(inst.config.prefix.clone()),
                root: inst.config.root.clone(),
            };
            let view = inst.view();
            for name in READ {
                for occ in view.named(name) {
                    let Some(value) = view.arg(occ, 0) else {
                        continue;
                    };
                    let file = if value.contains('$') || value.is_empty() {
                        SideFile::Unknown
                    } else {
                        match resolver.resolve(&from_bytes(value.as_bytes()), fs) {
                            // A file past the limit is not read in part: what is past
                            // it could change the answer (nginx takes the first DH block
                            // anywhere in the file), so it is unknown.
                            Resolved::Path(path) => match fs.head(&path, MAX_SIDE_FILE + 1) {
                                Ok(bytes) if bytes.len() <= MAX_SIDE_FILE => {
                                    SideFile::Read { path, bytes }
                                }
                                _ => SideFile::Unknown,
                            },
                            Resolved::Unmapped(_) => SideFile::Unknown,
                        }
                    };
                    out.insert((i, occ), file);
                }
            }
        }
        SideFiles(out)
    }

    /// The file the directive `occ` of configuration `inst` names.
    pub fn get(&self, inst: usize, occ: OccId) -> Option<&SideFile> {
        self.0.get(&(inst, occ))
    }
}
