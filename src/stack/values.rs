//! The values a template's placeholders get when a file is read (see
//! [`crate::syntax::render`]), and where each comes from, strongest first:
//! 1. `--var NAME=VALUE` on the command line;
//! 2. `--vars FILE` (TOML, YAML, or `NAME=value` lines as in a `.env` file), in order;
//! 3. what the repository declares for the file: for a template under an Ansible role's
//!    `templates/`, the role's `vars/main.yml`, then a playbook's `group_vars/all`, then the
//!    role's `defaults/main.yml` (Ansible's own precedence among them); for a Helm chart's
//!    `templates/`, the chart's `values.yaml` (as `.Values.…`); for envsubst and `.Env`
//!    placeholders, the `ENV` lines of a Dockerfile beside the file or above it;
//! 4. the placeholder's own default (`${X:-d}`, `| default(d)`).
//!
//! Values that are themselves templates (`"{{ ansible_processor_vcpus }}"`), lists, block
//! scalars and anything this reader does not understand are left out: the placeholder stays
//! unknown.

use super::fs::Fs;
use crate::source::SourceFile;
use crate::syntax::render::{self, Engine, Expr, Value};
use crate::syntax::template::{self, Lang};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Values known for this run: the command line's, and the repository's read on demand.
#[derive(Debug, Default)]
pub struct Values {
    given: Vec<(String, Value)>,
    /// Per directory of a template: the repository's values that apply there.
    layers: Mutex<HashMap<PathBuf, Arc<Layers>>>,
}

#[derive(Debug, Default)]
struct Layers {
    /// For Jinja placeholders (role vars, group_vars/all, role defaults), strongest first.
    jinja: Vec<(String, Value)>,
    /// For `.Values.…` (a chart's values.yaml, keys prefixed `Values.`).
    helm: Vec<(String, Value)>,
    /// For envsubst-style and `.Env.…` placeholders (a Dockerfile's ENV).
    env: Vec<(String, Value)>,
}

/// How far above a template its role, chart or Dockerfile is looked for.
const LEVELS_UP: usize = 4;

/// A placeholder's name without its sigils (`@NAME@` → `NAME`), as `--var` keys are compared.
fn bare(name: &str) -> &str {
    let n = name
        .trim_start_matches(['@', '%', '<', '{', '$'])
        .trim_end_matches(['@', '%', '>', '}']);
    n.strip_prefix("__")
        .and_then(|x| x.strip_suffix("__"))
        .unwrap_or(n)
}

impl Values {
    /// The command line's values: each `--var NAME=VALUE`, then each `--vars FILE`.
    pub fn from_args(vars: &[String], files: &[PathBuf]) -> Result<Values, String> {
        let mut given = Vec::new();
        for v in vars {
            let Some((k, val)) = v.split_once('=') else {
                return Err(format!(
                    "--var {}: expected NAME=VALUE",
                    crate::escape::text(v)
                ));
            };
            given.push((
                bare(k.trim()).to_string(),
                Value {
                    text: val.to_string(),
                    origin: "--var".into(),
                    boolean: None,
                },
            ));
        }
        for f in files {
            let text = std::fs::read_to_string(f)
                .map_err(|e| format!("--vars {}: {e}", crate::escape::path(f)))?;
            let origin = f.display().to_string();
            let name = f.to_string_lossy().to_ascii_lowercase();
            let read = if name.ends_with(".toml") {
                toml_values(&text).map_err(|e| format!("--vars {}: {e}", crate::escape::path(f)))?
            } else if name.ends_with(".yml") || name.ends_with(".yaml") {
                yaml_values(&text)
            } else {
                env_values(&text)
            };
            given.extend(read.into_iter().map(|(k, text, boolean)| {
                (
                    bare(&k).to_string(),
                    Value {
                        text,
                        origin: origin.clone(),
                        boolean,
                    },
                )
            }));
        }
        Ok(Values {
            given,
            layers: Mutex::default(),
        })
    }

    /// The value of `e` in the file at `path`, if one is known.
    pub fn lookup(&self, fs: &dyn Fs, path: &Path, e: &Expr) -> Option<Value> {
        let names: Vec<&str> = match e
            .name
            .strip_prefix("Values.")
            .or(e.name.strip_prefix("Env."))
        {
            Some(rest) => vec![e.name.as_str(), rest],
            None => vec![e.name.as_str()],
        };
        let find = |list: &[(String, Value)], name: &str| {
            list.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone())
        };
        if let Some(v) = names.iter().find_map(|n| find(&self.given, n)) {
            return Some(v);
        }
        // Standard input (`engine::STDIN`) has no place in the tree: only the command line's
        // values apply.
        if path == Path::new("<stdin>") {
            return None;
        }
        let dir = path.parent()?;
        let layers = self.layers_for(fs, dir);
        match e.engine {
            Engine::Jinja => find(&layers.jinja, &e.name),
            Engine::Go if e.name.starts_with("Values.") => find(&layers.helm, &e.name),
            Engine::Go => find(&layers.env, names.last()?),
            Engine::Text => find(&layers.env, &e.name),
            Engine::Erb => None,
        }
    }

    fn layers_for(&self, fs: &dyn Fs, dir: &Path) -> Arc<Layers> {
        if let Some(l) = self.layers.lock().unwrap().get(dir) {
            return l.clone();
        }
        let l = Arc::new(read_layers(fs, dir));
        self.layers
            .lock()
            .unwrap()
            .insert(dir.to_path_buf(), l.clone());
        l
    }
}

/// The values of a YAML file already read.
fn yaml_layer(path: &Path, bytes: &[u8], prefix: &str) -> Vec<(String, Value)> {
    let origin = path.display().to_string();
    yaml_values(&String::from_utf8_lossy(bytes))
        .into_iter()
        .map(|(k, text, boolean)| {
            (
                format!("{prefix}{k}"),
                Value {
                    text,
                    origin: origin.clone(),
                    boolean,
                },
            )
        })
        .collect()
}

/// The first of `names` in `dir` that can be read, with its bytes (read once).
fn first_of(fs: &dyn Fs, dir: &Path, names: &[&str]) -> Option<(PathBuf, Vec<u8>)> {
    names.iter().find_map(|n| {
        let p = dir.join(n);
        fs.read(&p).ok().map(|b| (p, b))
    })
}

fn read_layers(fs: &dyn Fs, dir: &Path) -> Layers {
    let mut out = Layers::default();
    let mut up = Some(dir);
    for _ in 0..=LEVELS_UP {
        let Some(d) = up else { break };
        let is_templates = d.file_name().is_some_and(|n| n == "templates");
        if let (true, Some(home)) = (is_templates, d.parent()) {
            if out.jinja.is_empty() {
                let role_vars = first_of(fs, home, &["vars/main.yml", "vars/main.yaml"]);
                let defaults = first_of(fs, home, &["defaults/main.yml", "defaults/main.yaml"]);
                if role_vars.is_some() || defaults.is_some() {
                    if let Some((p, b)) = &role_vars {
                        out.jinja.extend(yaml_layer(p, b, ""));
                    }
                    // A playbook beside `roles/`: its group_vars/all applies to every host.
                    let playbook = home
                        .parent()
                        .filter(|r| r.file_name().is_some_and(|n| n == "roles"))
                        .and_then(Path::parent);
                    if let Some(p) = playbook.and_then(|pb| {
                        first_of(
                            fs,
                            pb,
                            &[
                                "group_vars/all.yml",
                                "group_vars/all.yaml",
                                "group_vars/all/main.yml",
                                "group_vars/all/vars.yml",
                            ],
                        )
                    }) {
                        out.jinja.extend(yaml_layer(&p.0, &p.1, ""));
                    }
                    if let Some((p, b)) = &defaults {
                        out.jinja.extend(yaml_layer(p, b, ""));
                    }
                }
            }
            if out.helm.is_empty() {
                if let Some((p, b)) = first_of(fs, home, &["values.yaml", "values.yml"]) {
                    out.helm.extend(yaml_layer(&p, &b, "Values."));
                }
            }
        }
        if out.env.is_empty() {
            if let Some((p, bytes)) = first_of(fs, d, &["Dockerfile"]) {
                let origin = p.display().to_string();
                out.env.extend(
                    dockerfile_env(&String::from_utf8_lossy(&bytes))
                        .into_iter()
                        .map(|(k, text)| {
                            (
                                k,
                                Value {
                                    text,
                                    origin: origin.clone(),
                                    boolean: None,
                                },
                            )
                        }),
                );
            }
        }
        up = d.parent();
    }
    out
}

/// Renders `source`'s known placeholders (when the run has values), then reads its
/// remaining placeholders as holes: the masked text its parser reads, as
/// [`template::prepare`].
pub fn prepare(fs: &dyn Fs, source: &mut SourceFile, lang: Lang) -> Option<Vec<u8>> {
    let holes = template::find(&source.text, lang);
    let Some(values) = fs.values().filter(|_| !holes.is_empty()) else {
        return template::prepare_found(source, holes, lang);
    };
    let path = source.path.clone();
    let lookup = |e: &Expr| values.lookup(fs, &path, e);
    let Some((text, subs)) = render::render(&source.text, &holes, &lookup) else {
        return template::prepare_found(source, holes, lang);
    };
    let template = std::sync::Arc::new(source.clone());
    source.text = text;
    source.rendered = Some(std::sync::Arc::new(render::Rendering { template, subs }));
    // The rendering's own holes: the placeholders no value was known for.
    template::prepare(source, lang)
}

/// A scalar as written in YAML: unquoted, with YAML 1.1's booleans (which Ansible and Helm
/// read) told apart. `None` for what this reader does not take as a known value.
fn yaml_scalar(raw: &str) -> Option<(String, Option<bool>)> {
    let raw = raw.trim();
    let quoted = |q: char| raw.strip_prefix(q).and_then(|t| t.strip_suffix(q));
    if let Some(s) = quoted('"') {
        return (!s.contains(['\\', '"'])).then(|| (s.to_string(), None));
    }
    if let Some(s) = quoted('\'') {
        return Some((s.replace("''", "'"), None));
    }
    if raw.is_empty()
        || raw.starts_with(['|', '>', '[', '{', '&', '*', '!', '"', '\'', '%', '@', '`'])
    {
        return None;
    }
    let b = match raw {
        "yes" | "Yes" | "YES" | "true" | "True" | "TRUE" | "on" | "On" | "ON" => Some(true),
        "no" | "No" | "NO" | "false" | "False" | "FALSE" | "off" | "Off" | "OFF" => Some(false),
        _ => None,
    };
    if b.is_some() {
        return Some((raw.to_string(), b));
    }
    let numeric = raw.bytes().all(|c| {
        c.is_ascii_digit() || matches!(c, b'.' | b'_' | b'x' | b'o' | b'e' | b'E' | b'+' | b'-')
    });
    let plain_int =
        raw.bytes().all(|c| c.is_ascii_digit()) && (raw == "0" || !raw.starts_with('0'));
    // Floats, octal, hexadecimal and `1_000` print differently from how they are written.
    if numeric && raw.bytes().any(|c| c.is_ascii_digit()) && !plain_int {
        return None;
    }
    if matches!(raw, "~" | "null" | "Null" | "NULL") {
        return None;
    }
    Some((raw.to_string(), None))
}

/// The `key: scalar` pairs of a YAML mapping, nested keys joined by dots. Lists, block
/// scalars, flow collections and templated values are skipped.
pub fn yaml_values(text: &str) -> Vec<(String, String, Option<bool>)> {
    let mut out = Vec::new();
    let mut path: Vec<(usize, String)> = Vec::new();
    // Lines more indented than this belong to something skipped (a list, a block scalar).
    let mut skip_deeper: Option<usize> = None;
    for line in text.lines() {
        let content = line.trim_start();
        let indent = line.len() - content.len();
        if content.is_empty()
            || content.starts_with('#')
            || content.starts_with("---")
            || content.starts_with("...")
        {
            continue;
        }
        if let Some(s) = skip_deeper {
            if indent > s {
                continue;
            }
            skip_deeper = None;
        }
        while path.last().is_some_and(|(i, _)| *i >= indent) {
            path.pop();
        }
        if content.starts_with("- ") || content == "-" {
            skip_deeper = Some(indent);
            continue;
        }
        let Some((key, rest)) = split_key(content) else {
            skip_deeper = Some(indent);
            continue;
        };
        let value = strip_comment(rest).trim();
        if value.is_empty() {
            path.push((indent, key));
            continue;
        }
        if value.starts_with(['|', '>']) {
            skip_deeper = Some(indent);
            continue;
        }
        if value.contains("{{") || value.contains("{%") {
            continue;
        }
        if let Some((v, b)) = yaml_scalar(value) {
            let full = path
                .iter()
                .map(|(_, k)| k.as_str())
                .chain(std::iter::once(key.as_str()))
                .collect::<Vec<_>>()
                .join(".");
            out.push((full, v, b));
        }
    }
    out
}

/// `key: rest` (the key possibly quoted), or `None` for a line that is not a mapping entry.
fn split_key(content: &str) -> Option<(String, &str)> {
    let (key, rest) = if let Some(q) = content
        .strip_prefix('"')
        .or_else(|| content.strip_prefix('\''))
    {
        let end = q.find(['"', '\''])?;
        (q[..end].to_string(), q[end + 1..].strip_prefix(':')?)
    } else {
        let at = content
            .find(": ")
            .or_else(|| content.strip_suffix(':').map(|c| c.len()))?;
        (content[..at].to_string(), &content[at + 1..])
    };
    let ok = !key.is_empty()
        && key
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'));
    ok.then_some((key, rest))
}

/// The value without a trailing ` # comment` (outside quotes).
fn strip_comment(s: &str) -> &str {
    let mut quote = None;
    let bytes = s.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        match (quote, b) {
            (Some(q), c) if c == q => quote = None,
            (None, b'"' | b'\'') => quote = Some(b),
            (None, b'#') if i == 0 || bytes[i - 1].is_ascii_whitespace() => return &s[..i],
            _ => {}
        }
    }
    s
}

/// `NAME=value` lines (a `.env` file; `export` and quotes allowed, `#` comments).
pub fn env_values(text: &str) -> Vec<(String, String, Option<bool>)> {
    text.lines()
        .filter_map(|l| {
            let l = l.trim();
            let l = l.strip_prefix("export ").unwrap_or(l);
            if l.starts_with('#') {
                return None;
            }
            let (k, v) = l.split_once('=')?;
            let k = k.trim();
            let v = v.trim();
            let v = v
                .strip_prefix('"')
                .and_then(|x| x.strip_suffix('"'))
                .or_else(|| v.strip_prefix('\'').and_then(|x| x.strip_suffix('\'')))
                .unwrap_or(v);
            let ok = !k.is_empty()
                && k.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.');
            ok.then(|| (k.to_string(), v.to_string(), None))
        })
        .collect()
}

/// A TOML file's scalars, nested tables joined by dots.
fn toml_values(text: &str) -> Result<Vec<(String, String, Option<bool>)>, String> {
    let table: toml::Table = text
        .parse()
        .map_err(|e: toml::de::Error| e.message().to_string())?;
    let mut out = Vec::new();
    fn walk(prefix: &str, t: &toml::Table, out: &mut Vec<(String, String, Option<bool>)>) {
        for (k, v) in t {
            let key = if prefix.is_empty() {
                k.clone()
            } else {
                format!("{prefix}.{k}")
            };
            match v {
                toml::Value::String(s) => out.push((key, s.clone(), None)),
                toml::Value::Integer(i) => out.push((key, i.to_string(), None)),
                toml::Value::Boolean(b) => out.push((key, b.to_string(), Some(*b))),
                toml::Value::Table(t) => walk(&key, t, out),
                _ => {}
            }
        }
    }
    walk("", &table, &mut out);
    Ok(out)
}

/// A Dockerfile's `ENV NAME=value …` and `ENV NAME value` (values that refer to other
/// variables are left out).
fn dockerfile_env(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for line in text.lines() {
        let l = line.trim_start();
        let Some(rest) = l.strip_prefix("ENV ").or_else(|| l.strip_prefix("env ")) else {
            continue;
        };
        let rest = rest.trim().trim_end_matches('\\').trim();
        if !rest.contains('=')
            || rest
                .split_whitespace()
                .next()
                .is_some_and(|w| !w.contains('='))
        {
            if let Some((k, v)) = rest.split_once(char::is_whitespace) {
                out.push((k.to_string(), v.trim().to_string()));
            }
            continue;
        }
        for pair in split_env_words(rest) {
            if let Some((k, v)) = pair.split_once('=') {
                out.push((k.to_string(), v.to_string()));
            }
        }
    }
    out.retain(|(k, v)| {
        !k.is_empty()
            && k.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
            && !v.contains('$')
    });
    out
}

/// `A=1 B="two words"` → `A=1`, `B=two words`.
fn split_env_words(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quote = None;
    for c in s.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (None, '"' | '\'') => quote = Some(c),
            (None, c) if c.is_whitespace() => {
                if !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
            }
            (_, c) => cur.push(c),
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yaml_scalars_are_read_and_the_rest_left_unknown() {
        let y = "---\n# c\nnginx_port: 8080 # comment\nphp:\n  max_children: \"12\"\n  pm: 'dynamic'\n\
                 gzip: on\ncpus: \"{{ ansible_processor_vcpus }}\"\nvhosts:\n  - name: a\n    port: 81\n\
                 text: |\n  a: b\nratio: 1.50\nmode: 0755\nafter: x\n";
        let got = yaml_values(y);
        let get = |k: &str| {
            got.iter()
                .find(|(n, _, _)| n == k)
                .map(|(_, v, b)| (v.as_str(), *b))
        };
        assert_eq!(get("nginx_port"), Some(("8080", None)));
        assert_eq!(get("php.max_children"), Some(("12", None)));
        assert_eq!(get("php.pm"), Some(("dynamic", None)));
        assert_eq!(get("gzip"), Some(("on", Some(true))));
        for unknown in ["cpus", "vhosts.port", "port", "text", "a", "ratio", "mode"] {
            assert_eq!(get(unknown), None, "{unknown}");
        }
        assert_eq!(get("after"), Some(("x", None)));
    }

    #[test]
    fn env_files_and_dockerfiles() {
        let e = env_values("# x\nexport A=1\nB=\"two words\"\n");
        assert_eq!(e[0], ("A".into(), "1".into(), None));
        assert_eq!(e[1].1, "two words");
        let d =
            dockerfile_env("FROM nginx\nENV PORT=8080 NAME=\"a b\"\nENV LEGACY 5\nENV REF=$PORT\n");
        assert_eq!(
            d,
            vec![
                ("PORT".into(), "8080".into()),
                ("NAME".into(), "a b".into()),
                ("LEGACY".into(), "5".into())
            ]
        );
    }

    #[test]
    fn command_line_values_and_their_errors() {
        let v = Values::from_args(&["@PHP_MAX@=7".into(), "x=a=b".into()], &[]).unwrap();
        assert_eq!(v.given[0].0, "PHP_MAX");
        assert_eq!(v.given[1].1.text, "a=b");
        assert!(Values::from_args(&["novalue".into()], &[])
            .unwrap_err()
            .contains("NAME=VALUE"));
    }
}
