//! Shared knowledge rules ask for (DESIGN.md, "Layers"): it reads the syntax and the model,
//! never rules, the CLI or the renderers.

pub mod pcre;
pub mod variables;
