//! nginx variables: how an argument splits into literal text, variables and captures
//! ([`parse`]), what a client controls in each built-in variable ([`builtin`]), and where a
//! configuration's own variables get their values from ([`flow`]), so a rule can ask "can
//! this argument, at this place, hold a client-chosen CR/LF, `/`, `..` segment or host?"
//! and print why.

pub mod answer;
pub mod builtin;
pub mod capture;
pub mod danger;
pub mod flow;
pub mod parse;
pub mod quick;

pub use builtin::{Builtin, Origin};
pub use danger::{Danger, Dangers};
pub use flow::{Answer, Index as ProvenanceIndex, Provenance, Step};

pub use parse::{Part, PartKind, Script, ScriptError};
