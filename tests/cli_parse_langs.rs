//! `lemplint parse` on PHP-FPM and sysctl files: the language decided as `lint` decides it
//! (or forced with `--lang`), the lossless line tree, and that its lines account for every
//! byte of every corpus file.

mod common;
use common::{corpus_dir, files_under};

use serde_json::Value;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

fn lemplint(args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_lemplint"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run lemplint");
    if let Some(input) = stdin {
        child.stdin.take().unwrap().write_all(input).unwrap();
    }
    drop(child.stdin.take());
    child.wait_with_output().unwrap()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The JSON on stdout, checked to be compact JSON exactly as serde_json prints it.
fn json(out: &Output) -> Value {
    let text = std::str::from_utf8(&out.stdout).expect("UTF-8 on stdout");
    let v: Value = serde_json::from_str(text)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {text}\nstderr: {}", stderr(out)));
    assert_eq!(text, format!("{}\n", serde_json::to_string(&v).unwrap()));
    v
}

/// What a snapshot shows: the exit code, each file's head and then its nodes one per line,
/// and what was printed on stderr.
fn shown(out: &Output) -> String {
    let v = json(out);
    let mut s = format!("exit code: {:?}\n", out.status.code());
    for file in v["files"].as_array().unwrap() {
        let mut head = file.clone();
        let nodes = head.as_object_mut().unwrap().remove("nodes").unwrap();
        s.push_str(&format!("{head}\n"));
        for node in nodes.as_array().unwrap() {
            s.push_str(&format!("  {node}\n"));
        }
    }
    s.push_str("--- stderr\n");
    s.push_str(&stderr(out));
    s
}

fn lang(out: &Output) -> Value {
    json(out)["files"][0]["lang"].clone()
}

#[test]
fn a_pool_file_is_read_as_php_fpm() {
    let out = lemplint(
        &["parse", "fixtures/parse/etc/php/8.2/fpm/pool.d/www.conf"],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    insta::assert_snapshot!(shown(&out));
}

#[test]
fn a_sysctl_file_is_read_as_sysctl_and_its_errors_exit_2() {
    let out = lemplint(&["parse", "fixtures/parse/etc/sysctl.d/60-web.conf"], None);
    assert_eq!(out.status.code(), Some(2));
    insta::assert_snapshot!(shown(&out));
}

#[test]
fn a_pool_whose_name_says_nothing_is_known_by_its_content() {
    // `deploy/app.ini`: neither the name nor a directory names a kind; `[app]` does. Its
    // `#` line is a syntax error in php-fpm (FPM000, exit 2).
    let out = lemplint(&["parse", "fixtures/parse/deploy/app.ini"], None);
    assert_eq!(out.status.code(), Some(2));
    insta::assert_snapshot!(shown(&out));
    // Standard input is known by its content alone.
    let text =
        std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/parse/deploy/app.ini"))
            .unwrap();
    assert_eq!(lang(&lemplint(&["parse", "-"], Some(&text))), "fpm");
    let sysctl = b"# kernel\nvm.swappiness = 10\n";
    assert_eq!(lang(&lemplint(&["parse", "-"], Some(sysctl))), "sysctl");
}

#[test]
fn lang_forces_the_language() {
    // Only `-key` lines, no `key = value`: the content says nothing, so without `--lang`
    // standard input would be read as nginx.
    let excludes = b"-net.ipv4.conf.all.rp_filter\n-net.ipv4.conf.lo.rp_filter\n";
    let out = lemplint(&["parse", "-"], Some(excludes));
    assert_eq!(
        out.status.code(),
        Some(2),
        "read as nginx: {}",
        stderr(&out)
    );
    assert_eq!(lang(&out), Value::Null, "nginx files have no lang");
    let out = lemplint(&["parse", "--lang", "sysctl", "-"], Some(excludes));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    insta::assert_snapshot!(shown(&out));

    // An nginx snippet in a `php-fpm/` directory: the directory says pool, the content says
    // nginx, and the content wins (as for `lint`); `--lang fpm` says otherwise.
    let snippet = "fixtures/parse/php-fpm/default.conf";
    let out = lemplint(&["parse", snippet], None);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let v = json(&out);
    assert_eq!(v["files"][0].get("lang"), None);
    assert_eq!(v["files"][0]["nodes"][1]["name"], "location");
    let out = lemplint(&["parse", "--lang", "fpm", snippet], None);
    assert_eq!(lang(&out), "fpm");
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn crossplane_is_refused_for_other_languages() {
    let pool = "fixtures/parse/etc/php/8.2/fpm/pool.d/www.conf";
    for args in [
        &["parse", "--format", "crossplane", pool][..],
        &["parse", "--format", "crossplane", "--lang", "sysctl", pool],
    ] {
        let out = lemplint(args, None);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
        assert!(
            stderr(&out).starts_with("error: crossplane's format describes nginx only"),
            "{args:?}: {}",
            stderr(&out)
        );
    }
    insta::assert_snapshot!(stderr(&lemplint(
        &["parse", "--format", "crossplane", pool],
        None
    )));
    // Forced to nginx, the same file has crossplane's payload (and nginx's errors).
    let out = lemplint(
        &["parse", "--format", "crossplane", "--lang", "nginx", pool],
        None,
    );
    let payload: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(payload["status"], "failed");
}

fn corpus_present(kind: &str) -> bool {
    common::corpus(kind).is_some()
}

#[test]
#[cfg_attr(
    lemplint_no_corpus,
    ignore = "../shared/corpus is missing (a fresh clone: see the README's corpus note; after adding it, touch build.rs)"
)]
fn corpus_lines_account_for_every_byte() {
    for (kind, lang) in [("php-fpm", "fpm"), ("sysctl", "sysctl")] {
        if !corpus_present(kind) {
            continue;
        }
        let files = files_under(&corpus_dir(kind));
        assert!(files.len() > 30, "{kind}: only {} files", files.len());
        let mut failed = Vec::new();
        for f in &files {
            let bytes = std::fs::read(f).unwrap();
            let out = lemplint(&["parse", "--lang", lang, f.to_str().unwrap()], None);
            let v = json(&out);
            let file = &v["files"][0];
            let errors = file["errors"].as_array().unwrap();
            let result = check_lines(&bytes, file).and_then(|()| {
                // Exit 2 exactly when there are syntax errors.
                match (out.status.code(), errors.is_empty()) {
                    (Some(0), true) | (Some(2), false) => Ok(()),
                    (code, _) => Err(format!("exit {code:?} with {} errors", errors.len())),
                }
            });
            if let Err(why) = result {
                failed.push(format!("{}: {why}", f.display()));
            }
        }
        assert!(failed.is_empty(), "{kind}: {failed:#?}");
    }
}

/// The nodes' spans tile `bytes` (each starts where the last ended, from 0 to the end, so
/// their bytes concatenated are the file); each node's line and column are where its span
/// starts; its `eol` ends it; and every part lies inside it, its `raw` being its bytes.
fn check_lines(bytes: &[u8], file: &Value) -> Result<(), String> {
    let mut rebuilt = Vec::with_capacity(bytes.len());
    for (i, node) in file["nodes"].as_array().unwrap().iter().enumerate() {
        let (start, end) = span(&node["span"]).ok_or(format!("node {i}: no span"))?;
        if start != rebuilt.len() || end < start || end > bytes.len() {
            return Err(format!(
                "node {i}: span {start}..{end} after {}",
                rebuilt.len()
            ));
        }
        rebuilt.extend_from_slice(&bytes[start..end]);
        let before = &bytes[..start];
        let line_start = before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |p| p + 1);
        let prefix = &before[line_start..];
        let column = std::str::from_utf8(prefix).map_or(prefix.len(), |s| s.chars().count()) + 1;
        let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
        if node["line"] != line || node["column"] != column {
            return Err(format!("node {i}: at {line}:{column}, says {node}"));
        }
        let eol = span(&node["eol"]).ok_or(format!("node {i}: no eol"))?;
        if eol.1 != end || eol.0 < start {
            return Err(format!("node {i}: eol {eol:?} does not end {start}..{end}"));
        }
        for (key, part) in node.as_object().unwrap() {
            if key == "span" || key == "eol" {
                continue;
            }
            let Some((s, e)) = span(part).or_else(|| span(&part["span"])) else {
                continue;
            };
            if s < start || e > end || e < s {
                return Err(format!("node {i}: {key} {s}..{e} outside {start}..{end}"));
            }
            if let Some(raw) = part.get("raw") {
                if raw != String::from_utf8_lossy(&bytes[s..e]).as_ref() {
                    return Err(format!("node {i}: {key} raw {raw} is not its bytes"));
                }
            }
        }
    }
    if rebuilt != bytes {
        return Err(format!(
            "lines cover {} of {} bytes",
            rebuilt.len(),
            bytes.len()
        ));
    }
    Ok(())
}

/// `[start,end]` as a pair.
fn span(v: &Value) -> Option<(usize, usize)> {
    match v.as_array()?.as_slice() {
        [s, e] => Some((s.as_u64()? as usize, e.as_u64()? as usize)),
        _ => None,
    }
}
