//! `lemplint fmt`: laying configuration files out again without changing a token. nginx
//! only for now (see [`nginx`]); PHP-FPM, php.ini and sysctl files are left as they are.

pub mod nginx;

pub use nginx::{FormatError, Indent, Style};

/// `[format]` in lemplint.toml.
#[derive(Clone, Debug, Default, serde::Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct FormatConfig {
    /// Spaces per level (1 to 16), or `"tab"`. Default 4.
    #[serde(default)]
    pub indent: Indent,
    /// One space between the words of a line (default: spacing kept as written).
    #[serde(default)]
    pub collapse_spaces: bool,
    /// Re-indent the lines of `*_by_lua_block` bodies with their block (default: kept).
    #[serde(default)]
    pub indent_lua: bool,
}

impl FormatConfig {
    pub fn style(&self) -> Style {
        Style {
            indent: self.indent,
            collapse_spaces: self.collapse_spaces,
            indent_lua: self.indent_lua,
        }
    }
}

impl<'de> serde::Deserialize<'de> for Indent {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = Indent;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a number of spaces from 1 to 16, or \"tab\"")
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Indent, E> {
                match u8::try_from(v) {
                    Ok(n @ 1..=16) => Ok(Indent::Spaces(n)),
                    _ => Err(E::custom(format!(
                        "indent = {v}: expected a number of spaces from 1 to 16, or \"tab\""
                    ))),
                }
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Indent, E> {
                match v {
                    "tab" | "tabs" => Ok(Indent::Tab),
                    _ => Err(E::custom(format!(
                        "indent = {v:?}: expected a number of spaces from 1 to 16, or \"tab\""
                    ))),
                }
            }
        }
        d.deserialize_any(Visitor)
    }
}
