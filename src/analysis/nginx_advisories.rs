//! nginx's own security advisories that a configuration can trigger, with the versions
//! nginx.org lists (xml/en/security_advisories.xml and CHANGES of nginx.org, 2026), and
//! whether a given nginx version has the fix.

/// One advisory: the first vulnerable version and the first fixed version of each branch
/// that got a fix (newest first: the mainline fix, then the stable one).
pub struct Advisory {
    pub cve: &'static str,
    pub vulnerable_from: &'static str,
    pub fixed_in: &'static [&'static str],
}

/// "Buffer overflow in the ngx_http_rewrite_module": a rewrite with arguments left the
/// escaping flag set for later `set`/`if` captures. Vulnerable 0.6.27–1.30.0.
pub const REWRITE_ARGS_ESCAPE: Advisory = Advisory {
    cve: "CVE-2026-42945",
    vulnerable_from: "0.6.27",
    fixed_in: &["1.31.0", "1.30.1"],
};

/// "Buffer overflow in the ngx_http_rewrite_module": overlapping captures in a redirect or
/// arguments. Vulnerable 0.1.17–1.31.0.
pub const OVERLAPPING_CAPTURES: Advisory = Advisory {
    cve: "CVE-2026-9256",
    vulnerable_from: "0.1.17",
    fixed_in: &["1.31.1", "1.30.2"],
};

/// "Buffer overflow when using map and regex": a map regex run while a string expression
/// is measured clobbers the captures it copies. Vulnerable 0.9.6–1.31.2.
pub const MAP_REGEX_CAPTURES: Advisory = Advisory {
    cve: "CVE-2026-42533",
    vulnerable_from: "0.9.6",
    fixed_in: &["1.31.3", "1.30.4"],
};

/// Whether a version has the problem.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    Vulnerable,
    Fixed,
    /// No version given, or one that does not parse.
    Unknown,
}

/// `1.30.1` as numbers; anything after the third number (`1.24.0-2ubuntu7`) ignored.
fn parse(v: &str) -> Option<(u32, u32, u32)> {
    let mut it = v
        .trim()
        .split(|c: char| !c.is_ascii_digit())
        .filter(|s| !s.is_empty())
        .map(|s| s.parse::<u32>().ok());
    Some((it.next()??, it.next()??, it.next().flatten().unwrap_or(0)))
}

impl Advisory {
    /// The status of nginx `version`: fixed when it is at least a branch's fix in that
    /// branch, or newer than the newest fix; vulnerable from `vulnerable_from` on.
    pub fn status(&self, version: Option<&str>) -> Status {
        let Some(v) = version.and_then(parse) else {
            return Status::Unknown;
        };
        let from = parse(self.vulnerable_from).expect("a version");
        if v < from {
            return Status::Fixed;
        }
        let fixes: Vec<_> = self.fixed_in.iter().filter_map(|f| parse(f)).collect();
        let newest = fixes.iter().max().copied().expect("a fix");
        let fixed = v >= newest || fixes.iter().any(|f| (f.0, f.1) == (v.0, v.1) && v >= *f);
        if fixed {
            Status::Fixed
        } else {
            Status::Vulnerable
        }
    }

    /// The fixed versions as a message says them: "1.31.0 or 1.30.1".
    pub fn fixes(&self) -> String {
        self.fixed_in.join(" or ")
    }

    /// The nginx.org list the versions come from.
    pub const SOURCE: &'static str = "https://nginx.org/en/security_advisories.html";
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_are_placed_by_branch() {
        let a = REWRITE_ARGS_ESCAPE;
        assert_eq!(a.status(Some("1.30.0")), Status::Vulnerable);
        assert_eq!(a.status(Some("1.30.1")), Status::Fixed);
        assert_eq!(a.status(Some("1.31.0")), Status::Fixed);
        assert_eq!(a.status(Some("1.32.2")), Status::Fixed);
        assert_eq!(a.status(Some("1.24.0-2ubuntu7")), Status::Vulnerable);
        assert_eq!(a.status(Some("0.6.26")), Status::Fixed);
        assert_eq!(a.status(None), Status::Unknown);
        assert_eq!(a.status(Some("latest")), Status::Unknown);
        assert_eq!(
            MAP_REGEX_CAPTURES.status(Some("1.31.2")),
            Status::Vulnerable
        );
        assert_eq!(MAP_REGEX_CAPTURES.status(Some("1.30.4")), Status::Fixed);
    }
}
