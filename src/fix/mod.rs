//! Fixes: byte-range edits on the original text, graded by how safe they are.
//!
//! A fix never re-prints a tree. It replaces exact byte ranges, so everything outside them
//! (comments, CRLF, tabs, a missing final newline) stays as it was by construction.

pub mod apply;
pub mod diff;
pub mod edits;
pub mod write;

use crate::source::{Shared, Span, Stamp};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// One file's change: the bytes as read, with the stamp of the file they were read from (the
/// writer checks the file is still that), and the new bytes.
#[derive(Clone, Debug)]
pub struct Change {
    pub original: Vec<u8>,
    pub stamp: Option<Stamp>,
    pub new: Vec<u8>,
}

/// The changes of a run, by the path each file was read under.
pub type Changes = BTreeMap<PathBuf, Change>;

/// One replacement: `range` of the original bytes becomes `content`. An empty content
/// deletes; an empty range inserts.
#[derive(Clone, Debug)]
pub struct Edit {
    pub file: Shared,
    pub range: Span,
    pub content: String,
}

impl Edit {
    pub fn replace(file: &Shared, range: Span, content: impl Into<String>) -> Self {
        Edit {
            file: file.clone(),
            range,
            content: content.into(),
        }
    }

    pub fn insert(file: &Shared, at: u32, content: impl Into<String>) -> Self {
        Edit::replace(file, Span::empty(at), content)
    }

    pub fn delete(file: &Shared, range: Span) -> Self {
        Edit::replace(file, range, "")
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Applicability {
    /// Shown, never applied (the right change needs a human decision).
    DisplayOnly,
    /// Applied with `--unsafe-fixes`: correct, but may change behaviour.
    Unsafe,
    /// Applied by `lemplint fix`: keeps meaning and comments.
    Safe,
}

impl Applicability {
    /// The name the JSON contract writes (serde's kebab-case of the variant).
    pub fn as_str(self) -> &'static str {
        match self {
            Applicability::DisplayOnly => "display-only",
            Applicability::Unsafe => "unsafe",
            Applicability::Safe => "safe",
        }
    }
}

#[derive(Clone, Debug)]
pub struct Fix {
    pub title: String,
    pub edits: Vec<Edit>,
    pub applicability: Applicability,
}

impl Fix {
    pub fn safe(title: impl Into<String>, edits: Vec<Edit>) -> Self {
        Fix {
            title: title.into(),
            edits,
            applicability: Applicability::Safe,
        }
    }

    pub fn unsafe_(title: impl Into<String>, edits: Vec<Edit>) -> Self {
        Fix {
            title: title.into(),
            edits,
            applicability: Applicability::Unsafe,
        }
    }

    pub fn display_only(title: impl Into<String>, edits: Vec<Edit>) -> Self {
        Fix {
            title: title.into(),
            edits,
            applicability: Applicability::DisplayOnly,
        }
    }
}
