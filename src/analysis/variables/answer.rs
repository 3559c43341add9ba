//! An answer to "what can a client put here?": for each danger, one chain of steps from the
//! value to where the client's bytes come from, which a rule prints as its reason.

use super::danger::{Danger, Dangers};
use crate::source::{Shared, Span};

/// One link of a reason: where, and what happens there.
#[derive(Clone, Debug)]
pub struct Step {
    pub file: Shared,
    pub span: Span,
    pub note: String,
}

/// What a client can put into a value, with for each danger one chain of steps from the
/// value to where the client's bytes come from.
#[derive(Clone, Debug, Default)]
pub struct Answer {
    pub(super) chains: [Option<Vec<Step>>; 4],
    /// A bound was hit: there may be more.
    pub truncated: bool,
}

impl Answer {
    pub fn dangers(&self) -> Dangers {
        Danger::ALL
            .into_iter()
            .filter(|d| self.chains[d.index()].is_some())
            .fold(Dangers::NONE, Dangers::with)
    }

    pub fn can(&self, d: Danger) -> bool {
        self.chains[d.index()].is_some()
    }

    /// Why the value can hold `d`: from the value to the client.
    pub fn why(&self, d: Danger) -> Option<&[Step]> {
        self.chains[d.index()].as_deref()
    }

    /// The reason as lines a message can carry (`file:line: note`).
    pub fn explain(&self, d: Danger) -> Vec<String> {
        self.why(d)
            .unwrap_or_default()
            .iter()
            .map(|s| {
                let lc = s.file.line_col(s.span.start);
                format!("{}:{}: {}", s.file.path.display(), lc.line, s.note)
            })
            .collect()
    }

    pub(super) fn leaf(dangers: Dangers, step: Step) -> Answer {
        let mut a = Answer::default();
        for d in dangers.iter() {
            a.chains[d.index()] = Some(vec![step.clone()]);
        }
        a
    }

    /// Adds what `o` can hold (the first chain found for a danger stays).
    pub(super) fn merge(&mut self, o: Answer) {
        self.truncated |= o.truncated;
        for (mine, theirs) in self.chains.iter_mut().zip(o.chains) {
            if mine.is_none() {
                *mine = theirs;
            }
        }
    }

    /// Keeps only `keep`.
    pub(super) fn narrow(mut self, keep: Dangers) -> Answer {
        for d in Danger::ALL {
            if !keep.has(d) {
                self.chains[d.index()] = None;
            }
        }
        self
    }

    /// Puts `step` in front of every chain.
    pub(super) fn through(mut self, step: &Step) -> Answer {
        for c in self.chains.iter_mut().flatten() {
            c.insert(0, step.clone());
        }
        self
    }
}
