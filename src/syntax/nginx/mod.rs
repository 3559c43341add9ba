//! The nginx configuration language: tokenizer, lossless tree and parser.

pub mod crossplane;
pub mod json;
pub mod known;
pub mod lexer;
pub mod lua;
mod names;
pub mod parser;
pub mod tree;

pub use super::error::SyntaxError;
pub use parser::{parse, Parsed};
pub use tree::{Block, BlockKind, Directive, Node, NodeId, NodeKind, Quote, Tree, Word, ROOT};
