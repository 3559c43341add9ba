//! The open-files limit nginx really starts with, where the repository shows it: systemd's
//! `LimitNOFILE=` in nginx's unit and its drop-ins, else `DefaultLimitNOFILE=` of the
//! manager.
//!
//! systemd reads the unit from the first of `/etc/systemd/system`, `/run/systemd/system`,
//! `/lib/systemd/system` (`/usr/lib/systemd/system`) that has it, then the drop-ins
//! `nginx.service.d/*.conf` of all those directories in name order (a name in an earlier
//! directory hides the same name in a later one); a later assignment wins. `LimitNOFILE=N`
//! sets the soft and hard limits, `LimitNOFILE=S:H` each, `infinity` the kernel's maximum.
//! An empty `LimitNOFILE=` resets to the default.

use super::fs::Fs;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Unit directories, in precedence order.
const UNIT_DIRS: [&str; 4] = [
    "etc/systemd/system",
    "run/systemd/system",
    "usr/lib/systemd/system",
    "lib/systemd/system",
];

/// The names nginx's unit goes by.
const UNITS: [&str; 2] = ["nginx.service", "openresty.service"];

/// Where a limit was read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NofileSetting {
    /// The soft limit a process started by the unit gets.
    pub soft: u64,
    pub file: PathBuf,
    pub line: u32,
    /// The line as written (`LimitNOFILE=65535`).
    pub text: String,
}

/// The `LimitNOFILE` assignments of one file that apply, in order (the last wins).
fn assignments(text: &[u8], key: &str) -> Vec<(u32, Option<u64>, String)> {
    let mut out = Vec::new();
    let mut in_section = false;
    for (i, line) in text.split(|&b| b == b'\n').enumerate() {
        let line = String::from_utf8_lossy(line);
        let t = line.trim();
        if t.starts_with('[') {
            in_section = t == "[Service]" || t == "[Manager]";
            continue;
        }
        if !in_section || t.starts_with('#') || t.starts_with(';') {
            continue;
        }
        let Some((k, v)) = t.split_once('=') else {
            continue;
        };
        if k.trim() != key {
            continue;
        }
        let soft = v.split(':').next().unwrap_or("").trim();
        let value = match soft {
            "" => None,
            "infinity" => Some(super::sizing::DEFAULT_NR_OPEN),
            n => match n.parse::<u64>() {
                Ok(n) => Some(n),
                Err(_) => continue,
            },
        };
        out.push((i as u32 + 1, value, t.to_string()));
    }
    out
}

/// The soft open-files limit nginx's unit gives it, from the files under `root` (read through
/// `fs`, so inside the linted tree only). `None` when no file of the tree sets one.
pub fn nginx_nofile(fs: &dyn Fs, root: &Path) -> Option<NofileSetting> {
    let under = |rel: &str| super::paths::under_root(root, Path::new(rel));
    // The manager's default first, then the unit, then the drop-ins: later wins.
    let mut files: Vec<PathBuf> = vec![under("etc/systemd/system.conf")];
    for unit in UNITS {
        if let Some(main) = UNIT_DIRS
            .iter()
            .map(|d| under(&format!("{d}/{unit}")))
            .find(|p| fs.read(p).is_ok())
        {
            files.push(main);
        }
        let mut dropins: BTreeMap<std::ffi::OsString, PathBuf> = BTreeMap::new();
        for d in UNIT_DIRS {
            let pattern = under(&format!("{d}/{unit}.d/*.conf"));
            for p in fs.glob(&pattern).unwrap_or_default() {
                if let Some(name) = p.file_name() {
                    dropins.entry(name.to_os_string()).or_insert(p);
                }
            }
        }
        files.extend(dropins.into_values());
    }
    let mut found: Option<NofileSetting> = None;
    for f in files {
        let Ok(text) = fs.read(&f) else { continue };
        let key = if f.ends_with("system.conf") {
            "DefaultLimitNOFILE"
        } else {
            "LimitNOFILE"
        };
        for (line, value, written) in assignments(&text, key) {
            found = value.map(|soft| NofileSetting {
                soft,
                file: f.clone(),
                line,
                text: written,
            });
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unit_then_dropins_in_order() {
        let mut fs = super::super::fs::DumpFs::default();
        let mut put = |p: &str, t: &str| {
            fs.files.insert(PathBuf::from(p), t.as_bytes().to_vec());
        };
        put(
            "/lib/systemd/system/nginx.service",
            "[Unit]\nDescription=nginx\n[Service]\nLimitNOFILE=4096\n",
        );
        put(
            "/etc/systemd/system/nginx.service.d/10-limits.conf",
            "[Service]\n# more\nLimitNOFILE=65535:65535\n",
        );
        put(
            "/lib/systemd/system/nginx.service.d/10-limits.conf",
            "[Service]\nLimitNOFILE=100\n",
        );
        let n = nginx_nofile(&fs, Path::new("/")).unwrap();
        assert_eq!(n.soft, 65535);
        assert_eq!(n.line, 3);
        assert!(n
            .file
            .ends_with("etc/systemd/system/nginx.service.d/10-limits.conf"));
        let none = super::super::fs::DumpFs::default();
        assert_eq!(nginx_nofile(&none, Path::new("/")), None);
    }
}
