//! Facts about the machine the stack runs on, and where each fact came from.
//!
//! Precedence: command-line flags > `lemplint.toml` (`[[host.profile]]` matching the stack's
//! path, then `[host]`) > detection with `sysinfo`. Detection happens only when the files
//! are the live system's (`/etc`) or the user asked for it (`--host local`): a CI runner's
//! CPU count says nothing about the production server its configuration is for.
//! Rules and the tuner receive a `HostFacts` value; they never detect anything themselves.

use crate::size::format_size;
use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Provenance {
    /// `--cpus`, `--memory`, … on the command line.
    Flag,
    /// `[host]` in a config file.
    Config { file: String },
    /// A `[[host.profile]]` whose `paths` glob matched the stack.
    Profile { file: String, pattern: String },
    /// Read from this machine.
    Detected,
    /// Read from a file of the stack (`LimitNOFILE=` of nginx's systemd unit).
    File {
        file: String,
        line: u32,
        text: String,
    },
}

impl fmt::Display for Provenance {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Provenance::Flag => write!(f, "command line"),
            Provenance::Config { file } => write!(f, "{file} [host]"),
            Provenance::Profile { file, pattern } => write!(f, "{file} [[host.profile]] {pattern}"),
            Provenance::Detected => write!(f, "detected on this machine"),
            Provenance::File { file, line, text } => write!(f, "{text}, {file}:{line}"),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Fact<T> {
    pub value: T,
    pub source: Provenance,
}

/// A kernel version, `major.minor` (enough for every default we look up).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
pub struct KernelVersion {
    pub major: u32,
    pub minor: u32,
}

impl KernelVersion {
    /// Parses `6.1`, `6.1.0-18-amd64`, `5.4.0`.
    pub fn parse(text: &str) -> Option<Self> {
        let mut parts = text.trim().split(|c: char| !c.is_ascii_digit());
        let major = parts.next()?.parse().ok()?;
        let minor = parts.next().and_then(|m| m.parse().ok()).unwrap_or(0);
        Some(KernelVersion { major, minor })
    }
}

impl fmt::Display for KernelVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

/// Everything lemplint may know about the host. Every field is optional: rules that need a
/// missing fact are skipped and the summary says how to provide it.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct HostFacts {
    pub cpus: Option<Fact<u32>>,
    /// Bytes of RAM.
    pub memory: Option<Fact<u64>>,
    pub kernel: Option<Fact<KernelVersion>>,
    /// The soft open-files limit nginx starts with (`ulimit -n`).
    pub nofile: Option<Fact<u64>>,
    pub nginx: Option<Fact<String>>,
    pub openssl: Option<Fact<String>>,
    pub php: Option<Fact<String>>,
    /// Memory kept for everything but PHP, as written: a size or a percentage of memory.
    pub reserve: Option<Fact<String>>,
    /// The optional modules nginx has, built in or loadable, as `[host] nginx-modules`
    /// lists them (see `analysis::catalogue::Modules`).
    pub nginx_modules: Option<Fact<Vec<String>>>,
}

/// Facts as written by the user (flags or one config table), before precedence.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct HostSpec {
    pub cpus: Option<u32>,
    /// A size: `613MiB`, `2GiB`, bytes.
    pub memory: Option<SizeValue>,
    pub kernel: Option<String>,
    pub nofile: Option<u64>,
    pub nginx: Option<String>,
    pub openssl: Option<String>,
    pub php: Option<String>,
    /// Memory kept free for everything but PHP (`[host] reserve`): a size or a percentage.
    pub reserve: Option<String>,
    /// The optional nginx modules the binary has: the `--with-…_module` and
    /// `--add-dynamic-module=…` words of `nginx -V`, module names, or Debian package names.
    pub nginx_modules: Option<Vec<String>>,
    /// In a `[[host.profile]]`: globs of the stack paths the profile describes.
    pub paths: Option<Vec<String>>,
    /// `[[host.profile]]` tables: facts for the stacks whose path matches `paths`, for a
    /// repository that describes machines of several sizes.
    #[serde(default)]
    pub profile: Vec<HostSpec>,
}

/// A size in a config file: a number of bytes or a string with a unit.
#[derive(Clone, Debug, PartialEq, Eq, serde::Deserialize)]
#[serde(untagged)]
pub enum SizeValue {
    Bytes(u64),
    Text(String),
}

impl SizeValue {
    pub fn bytes(&self) -> Result<u64, String> {
        match self {
            SizeValue::Bytes(b) => Ok(*b),
            SizeValue::Text(t) => crate::size::parse_size(t),
        }
    }

    /// A server's memory: at least 16 MiB, so that a unit left out (`2`) is refused.
    pub fn memory(&self) -> Result<u64, String> {
        match self {
            SizeValue::Bytes(b) => crate::size::check_memory(*b, &b.to_string()).map(|()| *b),
            SizeValue::Text(t) => crate::size::parse_memory(t),
        }
    }
}

impl HostFacts {
    /// Fills every fact still missing from `spec`, recording `source`.
    pub fn fill_from(&mut self, spec: &HostSpec, source: &Provenance) -> Result<(), String> {
        fn fill<T>(slot: &mut Option<Fact<T>>, value: Option<T>, source: &Provenance) {
            if slot.is_none() {
                if let Some(value) = value {
                    *slot = Some(Fact {
                        value,
                        source: source.clone(),
                    });
                }
            }
        }
        if spec.cpus == Some(0) {
            return Err("cpus must be at least 1".into());
        }
        let memory = spec.memory.as_ref().map(SizeValue::memory).transpose()?;
        let kernel = match &spec.kernel {
            Some(k) => Some(
                KernelVersion::parse(k)
                    .ok_or_else(|| format!("invalid kernel version {k:?} (use e.g. 6.1)"))?,
            ),
            None => None,
        };
        fill(&mut self.cpus, spec.cpus, source);
        fill(&mut self.memory, memory, source);
        fill(&mut self.kernel, kernel, source);
        fill(&mut self.nofile, spec.nofile, source);
        fill(&mut self.nginx, spec.nginx.clone(), source);
        fill(&mut self.openssl, spec.openssl.clone(), source);
        fill(&mut self.php, spec.php.clone(), source);
        if let Some(r) = &spec.reserve {
            crate::size::Reserve::parse(r).map_err(|e| format!("reserve: {e}"))?;
        }
        fill(&mut self.reserve, spec.reserve.clone(), source);
        fill(&mut self.nginx_modules, spec.nginx_modules.clone(), source);
        Ok(())
    }

    /// Fills missing CPU, memory and kernel facts from this machine.
    pub fn fill_detected(&mut self) {
        use sysinfo::{MemoryRefreshKind, RefreshKind, System};
        if self.cpus.is_none() {
            let n = std::thread::available_parallelism().map_or(1, |n| n.get() as u32);
            self.cpus = Some(Fact {
                value: n,
                source: Provenance::Detected,
            });
        }
        if self.memory.is_none() {
            let sys = System::new_with_specifics(
                RefreshKind::nothing().with_memory(MemoryRefreshKind::nothing().with_ram()),
            );
            self.memory = Some(Fact {
                value: sys.total_memory(),
                source: Provenance::Detected,
            });
        }
        if self.kernel.is_none() {
            if let Some(k) = System::kernel_version()
                .as_deref()
                .and_then(KernelVersion::parse)
            {
                self.kernel = Some(Fact {
                    value: k,
                    source: Provenance::Detected,
                });
            }
        }
    }

    /// No fact about the machine's size was given (CPUs, memory, kernel, versions, reserve):
    /// the rules that need one are skipped. An open-files limit read from the stack's own
    /// systemd unit is a fact of the configuration, not of the machine, and does not count.
    pub fn is_empty(&self) -> bool {
        let mut sized = self.clone();
        if matches!(
            sized.nofile,
            Some(Fact {
                source: Provenance::File { .. },
                ..
            })
        ) {
            sized.nofile = None;
        }
        sized == HostFacts::default()
    }

    /// One line per known fact, for `lemplint stack` and the lint summary.
    pub fn describe(&self) -> Vec<String> {
        let mut out = Vec::new();
        if let Some(f) = &self.cpus {
            out.push(format!("cpus: {} ({})", f.value, f.source));
        }
        if let Some(f) = &self.memory {
            out.push(format!("memory: {} ({})", format_size(f.value), f.source));
        }
        if let Some(f) = &self.kernel {
            out.push(format!("kernel: {} ({})", f.value, f.source));
        }
        if let Some(f) = &self.nofile {
            out.push(format!("nofile: {} ({})", f.value, f.source));
        }
        for (name, f) in [
            ("nginx", &self.nginx),
            ("openssl", &self.openssl),
            ("php", &self.php),
            ("reserve", &self.reserve),
        ] {
            if let Some(f) = f {
                out.push(format!("{name}: {} ({})", f.value, f.source));
            }
        }
        if let Some(f) = &self.nginx_modules {
            out.push(format!(
                "nginx-modules: {} ({})",
                f.value.join(" "),
                f.source
            ));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_win_over_config() {
        let mut facts = HostFacts::default();
        let flags = HostSpec {
            cpus: Some(2),
            ..Default::default()
        };
        let config = HostSpec {
            cpus: Some(8),
            memory: Some(SizeValue::Text("613MiB".into())),
            ..Default::default()
        };
        facts.fill_from(&flags, &Provenance::Flag).unwrap();
        facts
            .fill_from(
                &config,
                &Provenance::Config {
                    file: "lemplint.toml".into(),
                },
            )
            .unwrap();
        assert_eq!(facts.cpus.as_ref().unwrap().value, 2);
        assert_eq!(facts.cpus.as_ref().unwrap().source, Provenance::Flag);
        assert_eq!(facts.memory.as_ref().unwrap().value, 613 << 20);
        assert!(matches!(
            facts.memory.as_ref().unwrap().source,
            Provenance::Config { .. }
        ));
    }

    #[test]
    fn kernel_versions() {
        assert_eq!(
            KernelVersion::parse("6.1.0-18-amd64"),
            Some(KernelVersion { major: 6, minor: 1 })
        );
        assert_eq!(
            KernelVersion::parse("5"),
            Some(KernelVersion { major: 5, minor: 0 })
        );
        assert!(KernelVersion::parse("x").is_none());
    }
}
