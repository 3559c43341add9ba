//! A rule's lifecycle: `preview` until its measured precision earns it a group, `stable`,
//! `deprecated` (still runs, says what replaces it), `removed` (gone; naming it is an error
//! that says why), and redirects for renamed or merged codes, so `select`, `ignore`,
//! `per-file-ignores`, `[rules.CODE]` and suppression comments written for an old code keep
//! working (ruff's redirects, clippy's renamed lints).
//!
//! A live rule's group is declared in its file ([`super::meta::Group`]); what happened to
//! codes that no rule carries any more can only be written here.

use super::meta::Group;
use super::RuleEntry;

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Stable,
    Preview,
    Deprecated,
    Removed,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Stable => "stable",
            Status::Preview => "preview",
            Status::Deprecated => "deprecated",
            Status::Removed => "removed",
        }
    }
}

/// A code or name that now means another rule.
#[derive(Clone, Copy, Debug)]
pub struct Redirect {
    pub from: &'static str,
    pub to: &'static str,
    /// The lemplint version that renamed it.
    pub version: &'static str,
}

/// A rule that is deprecated (still registered) or removed (no longer registered).
#[derive(Clone, Copy, Debug)]
pub struct Retired {
    pub code: &'static str,
    pub status: Status,
    pub version: &'static str,
    /// Why, and what to use instead.
    pub reason: &'static str,
}

/// Renamed codes and names. None yet: lemplint has not renamed a rule since 0.1.0.
pub static REDIRECTS: &[Redirect] = &[];

/// Deprecated and removed rules. None yet.
pub static RETIRED: &[Retired] = &[];

/// The lifecycle tables a lookup consults (the shipped ones, or a test's).
#[derive(Clone, Copy, Debug)]
pub struct Tables {
    pub redirects: &'static [Redirect],
    pub retired: &'static [Retired],
}

pub const SHIPPED: Tables = Tables {
    redirects: REDIRECTS,
    retired: RETIRED,
};

impl Tables {
    /// The code or name `key` stands for today: the target of its redirect (followed to
    /// the end of a chain, at most as many steps as there are redirects), else `key`.
    pub fn canonical<'a>(&self, key: &'a str) -> &'a str
    where
        'static: 'a,
    {
        let mut key = key;
        for _ in 0..self.redirects.len() {
            match self
                .redirects
                .iter()
                .find(|r| r.from.eq_ignore_ascii_case(key))
            {
                Some(r) => key = r.to,
                None => break,
            }
        }
        key
    }

    /// The removed rule `key` names, if it names one.
    pub fn removed(&self, key: &str) -> Option<&'static Retired> {
        self.retired
            .iter()
            .find(|r| r.status == Status::Removed && r.code.eq_ignore_ascii_case(key))
    }

    /// A live rule's status.
    pub fn status(&self, rule: &RuleEntry) -> Status {
        if let Some(r) = self.retired.iter().find(|r| r.code == rule.code) {
            return r.status;
        }
        match rule.group {
            Group::Preview => Status::Preview,
            Group::Default | Group::Hardening => Status::Stable,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    static TEST_REDIRECTS: &[Redirect] = &[
        Redirect {
            from: "NGX999",
            to: "NGX998",
            version: "0.2.0",
        },
        Redirect {
            from: "NGX998",
            to: "NGX116",
            version: "0.3.0",
        },
        Redirect {
            from: "old-header-rule",
            to: "header-lost-by-inheritance",
            version: "0.2.0",
        },
    ];
    static TEST_RETIRED: &[Retired] = &[Retired {
        code: "NGX997",
        status: Status::Removed,
        version: "0.2.0",
        reason: "merged into NGX116",
    }];
    const T: Tables = Tables {
        redirects: TEST_REDIRECTS,
        retired: TEST_RETIRED,
    };

    #[test]
    fn redirects_are_followed_to_the_end_of_a_chain() {
        assert_eq!(T.canonical("ngx999"), "NGX116");
        assert_eq!(T.canonical("old-header-rule"), "header-lost-by-inheritance");
        assert_eq!(T.canonical("NGX022"), "NGX022");
    }

    #[test]
    fn a_cycle_of_redirects_ends() {
        static CYCLE: &[Redirect] = &[
            Redirect {
                from: "A",
                to: "B",
                version: "0",
            },
            Redirect {
                from: "B",
                to: "A",
                version: "0",
            },
        ];
        let t = Tables {
            redirects: CYCLE,
            retired: &[],
        };
        assert!(["A", "B"].contains(&t.canonical("A")));
    }

    #[test]
    fn removed_rules_are_found_and_live_ones_have_a_status() {
        assert_eq!(T.removed("ngx997").map(|r| r.version), Some("0.2.0"));
        assert!(T.removed("NGX116").is_none());
        for r in super::super::RULES.iter() {
            let want = if r.group == Group::Preview {
                Status::Preview
            } else {
                Status::Stable
            };
            assert_eq!(SHIPPED.status(r), want, "{}", r.code);
        }
    }

    /// The shipped tables stay consistent: a redirect leads to a registered rule, and a
    /// removed code is no longer registered.
    #[test]
    fn shipped_tables_point_at_live_rules() {
        for r in REDIRECTS {
            assert!(
                super::super::lookup_exact(SHIPPED.canonical(r.from)).is_some(),
                "{} redirects to no rule",
                r.from
            );
        }
        for r in RETIRED {
            let live = super::super::lookup_exact(r.code).is_some();
            assert_eq!(live, r.status != Status::Removed, "{}", r.code);
        }
    }
}
