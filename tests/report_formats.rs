//! The machine and CI output formats (`--format concise|json|sarif|github|gitlab|checkstyle|
//! junit`), rendered from one fixed set of in-memory findings: an insta snapshot of each,
//! plus checks of what the snapshots alone would not catch (the JSON contract's exact keys,
//! GitHub's escaping, well-formed XML, SARIF's structure).
//!
//! The SARIF log is also validated against the official SARIF 2.1.0 JSON schema (OASIS,
//! errata 01) with Python's `jsonschema`: Python is `$LEMPLINT_SARIF_PYTHON`, else
//! `target/sarif-venv/bin/python`, and the schema `$LEMPLINT_SARIF_SCHEMA`, else
//! `target/sarif-venv/sarif-schema-2.1.0.json` (`scripts/sarif-venv.sh` creates both).
//! Without them that test is skipped with a note, except under `CI=true`, where it fails.

use lemplint::diagnostic::{Diagnostic, Severity};
use lemplint::fix::{Edit, Fix};
use lemplint::report::{self, Format, Summary};
use lemplint::source::{Shared, SourceFile, Span};
use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;

const NGINX_CONF: &str = "http {
    root /a;
    server_tokens on;
    add_header X \"é\"; root /b;
}
";

const SITE_CONF: &str = "server {
    include \"snippets/*.conf\";
    listen 80
}
";

/// The second file's path needs escaping in GitHub properties (`,` `:`) and in URIs (space).
const SITE_PATH: &str = "sites/a b,c:d.conf";

/// A message with everything some format must escape.
const NASTY: &str = "\"root\" directive is duplicate; <root> & 100% sure, see: a,b\nsecond line";

fn span_of(file: &SourceFile, needle: &str, nth: usize) -> Span {
    let text = std::str::from_utf8(&file.text).unwrap();
    let start = text.match_indices(needle).nth(nth).expect("needle").0 as u32;
    Span::new(start, start + needle.len() as u32)
}

struct Fixture {
    nginx: Shared,
    diagnostics: Vec<Diagnostic>,
    summary: Summary,
}

fn fixture() -> Fixture {
    let nginx: Shared = Arc::new(SourceFile::new(
        "conf/nginx.conf",
        NGINX_CONF.as_bytes().to_vec(),
    ));
    let site: Shared = Arc::new(SourceFile::new(SITE_PATH, SITE_CONF.as_bytes().to_vec()));

    let mut tokens = Diagnostic::new(
        lemplint::diagnostic::rule_ids::NGX022,
        Severity::Warning,
        nginx.clone(),
        span_of(&nginx, "server_tokens on;", 0),
        "`server_tokens on` discloses the nginx version",
    )
    .with_help("set `server_tokens off;`");
    let on = span_of(&nginx, "on;", 0);
    tokens.with_fix(Fix::safe(
        "Set `server_tokens off`",
        vec![Edit::replace(
            &nginx,
            Span::new(on.start, on.start + 2),
            "off",
        )],
    ));

    let duplicate = Diagnostic::new(
        lemplint::diagnostic::rule_ids::NGX023,
        Severity::Error,
        nginx.clone(),
        span_of(&nginx, "root /b;", 0),
        NASTY,
    )
    .with_label(
        nginx.clone(),
        span_of(&nginx, "root /a;", 0),
        "first set here",
    )
    .with_help("remove one of the two");

    let include = Diagnostic::new(
        lemplint::diagnostic::rule_ids::NGX020,
        Severity::Info,
        site.clone(),
        span_of(&site, "include \"snippets/*.conf\";", 0),
        "include pattern \"snippets/*.conf\" matches no file",
    );

    let listen = span_of(&site, "listen", 0);
    let syntax = Diagnostic::new(
        lemplint::diagnostic::rule_ids::NGX000,
        Severity::Error,
        site.clone(),
        Span::new(listen.start, site.len() - 1),
        "directive \"listen\" is not terminated by \";\"",
    );

    let diagnostics = vec![tokens, duplicate, include, syntax];
    let mut summary = Summary {
        files: 2,
        stacks: 1,
        ..Summary::default()
    };
    summary.count(&diagnostics);
    Fixture {
        nginx,
        diagnostics,
        summary,
    }
}

fn render(format: Format, diagnostics: &[Diagnostic], summary: &Summary) -> String {
    let mut out = Vec::new();
    report::write(format, &mut out, diagnostics, summary, false).expect("render");
    String::from_utf8(out).expect("UTF-8 output")
}

fn rendered(format: Format) -> String {
    let f = fixture();
    render(format, &f.diagnostics, &f.summary)
}

fn empty(format: Format) -> String {
    let summary = Summary {
        files: 3,
        stacks: 1,
        ..Summary::default()
    };
    render(format, &[], &summary)
}

// ---------------------------------------------------------------------------------------
// Snapshots

#[test]
fn concise_snapshot() {
    insta::assert_snapshot!("concise", rendered(Format::Concise));
}

#[test]
fn json_snapshot() {
    insta::assert_snapshot!("json", rendered(Format::Json));
}

/// The SARIF log with the tool version and the rules' documentation (owned by
/// `rules/*/*.toml`, checked in `sarif_structure`) replaced by placeholders, so the snapshot
/// shows the format and does not churn with releases or doc edits.
#[test]
fn sarif_snapshot() {
    let mut log: Value = serde_json::from_str(&rendered(Format::Sarif)).unwrap();
    // `%SRCROOT%` is the directory the test runs in (no repository root was set).
    let base = &mut log["runs"][0]["originalUriBaseIds"]["%SRCROOT%"]["uri"];
    assert!(base.as_str().unwrap().starts_with("file:///"));
    *base = "[file URI of the current directory]/".into();
    let driver = &mut log["runs"][0]["tool"]["driver"];
    driver["version"] = "[version]".into();
    driver["semanticVersion"] = "[version]".into();
    for rule in driver["rules"].as_array_mut().unwrap() {
        let id = rule["id"].as_str().unwrap().to_string();
        rule["shortDescription"]["text"] = format!("[summary of {id}]").into();
        rule["fullDescription"]["text"] = format!("[what-it-does of {id}]").into();
        rule["help"]["text"] = format!("[docs of {id}]").into();
        rule["help"]["markdown"] = format!("[docs of {id} as Markdown]").into();
    }
    insta::assert_snapshot!("sarif", serde_json::to_string_pretty(&log).unwrap());
}

#[test]
fn github_snapshot() {
    insta::assert_snapshot!("github", rendered(Format::Github));
}

#[test]
fn gitlab_snapshot() {
    insta::assert_snapshot!("gitlab", rendered(Format::Gitlab));
}

#[test]
fn checkstyle_snapshot() {
    insta::assert_snapshot!("checkstyle", rendered(Format::Checkstyle));
}

#[test]
fn junit_snapshot() {
    insta::assert_snapshot!("junit", rendered(Format::Junit));
}

#[test]
fn junit_without_findings_is_one_passing_test() {
    insta::assert_snapshot!("junit_empty", empty(Format::Junit));
}

#[test]
fn every_format_handles_a_run_without_findings() {
    assert!(empty(Format::Concise).starts_with("No problems found in 3 files"));
    assert_eq!(empty(Format::Github), "");
    let json: Value = serde_json::from_str(&empty(Format::Json)).unwrap();
    assert_eq!(json["diagnostics"], serde_json::json!([]));
    assert_eq!(json["summary"]["files"], 3);
    let sarif: Value = serde_json::from_str(&empty(Format::Sarif)).unwrap();
    assert_eq!(sarif["runs"][0]["results"], serde_json::json!([]));
    assert_eq!(
        sarif["runs"][0]["tool"]["driver"]["rules"],
        serde_json::json!([])
    );
    let gitlab: Value = serde_json::from_str(&empty(Format::Gitlab)).unwrap();
    assert_eq!(gitlab, serde_json::json!([]));
    let checkstyle = empty(Format::Checkstyle);
    check_xml(&checkstyle);
    assert!(!checkstyle.contains("<file"));
    check_xml(&empty(Format::Junit));
}

// ---------------------------------------------------------------------------------------
// concise

#[test]
fn concise_lines_are_gcc_style_and_one_per_finding() {
    let out = rendered(Format::Concise);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[0],
        "conf/nginx.conf:3:5: warning[NGX022] `server_tokens on` discloses the nginx version"
    );
    // Column 23 counts `é` as one character (it is two bytes).
    assert!(lines[1].starts_with("conf/nginx.conf:4:23: error[NGX023] \"root\" directive"));
    assert!(lines[1].ends_with("see: a,b second line"), "{}", lines[1]);
    assert!(lines[2].starts_with("sites/a b,c:d.conf:2:5: info[NGX020] "));
    assert!(lines[3].starts_with("sites/a b,c:d.conf:3:5: error[NGX000] "));
    assert_eq!(
        lines[4],
        "Found 4 problems (2 errors, 1 warning, 1 info) in 2 files (1 stack)."
    );
}

// ---------------------------------------------------------------------------------------
// json

fn keys(v: &Value) -> Vec<&str> {
    v.as_object()
        .expect("object")
        .keys()
        .map(String::as_str)
        .collect()
}

#[test]
fn json_has_exactly_the_contract_keys() {
    let out = rendered(Format::Json);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(keys(&v), ["version", "diagnostics", "summary"]);
    assert_eq!(v["version"], 1);
    let ds = v["diagnostics"].as_array().unwrap();
    assert_eq!(ds.len(), 4);
    for d in ds {
        assert_eq!(
            keys(d),
            [
                "code",
                "name",
                "severity",
                "category",
                "message",
                "file",
                "line",
                "column",
                "end_line",
                "end_column",
                "help",
                "labels",
                "fix",
                "loaded"
            ]
        );
        for key in ["line", "column", "end_line", "end_column"] {
            assert!(d[key].as_u64().unwrap() >= 1, "{key} is 1-based");
        }
        for l in d["labels"].as_array().unwrap() {
            assert_eq!(keys(l), ["file", "line", "column", "message"]);
        }
        if !d["fix"].is_null() {
            assert_eq!(keys(&d["fix"]), ["applicability", "title", "edits"]);
            for e in d["fix"]["edits"].as_array().unwrap() {
                assert_eq!(keys(e), ["file", "start", "end", "content"]);
            }
        }
    }
    assert_eq!(
        keys(&v["summary"]),
        [
            "files",
            "stacks",
            "errors",
            "warnings",
            "infos",
            "fixable",
            "unsafe_fixable",
            "host",
            "skipped_for_host"
        ]
    );
}

/// A JSON diagnostic's `line`, `column`, `end_line` and `end_column`.
fn position(d: &Value) -> [u64; 4] {
    ["line", "column", "end_line", "end_column"].map(|k| d[k].as_u64().unwrap())
}

#[test]
fn json_positions_are_one_based_and_ends_exclusive() {
    let f = fixture();
    let v: Value = serde_json::from_str(&render(Format::Json, &f.diagnostics, &f.summary)).unwrap();
    let d = &v["diagnostics"];
    // `server_tokens on;` on line 3, columns 5..22.
    assert_eq!(d[0]["code"], "NGX022");
    assert_eq!(d[0]["name"], "server-tokens-on");
    assert_eq!(d[0]["category"], "security");
    assert_eq!(d[0]["severity"], "warning");
    assert_eq!(d[0]["help"], "set `server_tokens off;`");
    assert_eq!(position(&d[0]), [3, 5, 3, 22]);
    // Edits are byte offsets into the original file.
    let edit = &d[0]["fix"]["edits"][0];
    assert_eq!(d[0]["fix"]["applicability"], "safe");
    let (start, end) = (
        edit["start"].as_u64().unwrap() as usize,
        edit["end"].as_u64().unwrap() as usize,
    );
    assert_eq!(&f.nginx.text[start..end], b"on");
    assert_eq!(edit["content"], "off");
    assert_eq!(edit["file"], "conf/nginx.conf");
    // `root /b;` after `"é"`: columns count characters, 23..31.
    assert_eq!(position(&d[1]), [4, 23, 4, 31]);
    assert_eq!(d[1]["message"], NASTY, "the message survives JSON escaping");
    assert_eq!(d[1]["labels"][0]["line"], 2);
    assert_eq!(d[1]["labels"][0]["column"], 5);
    assert_eq!(d[1]["labels"][0]["message"], "first set here");
    assert!(d[1]["fix"].is_null());
    assert!(d[2]["help"].is_null());
    // A span over two lines ends on the second.
    assert_eq!(d[3]["file"], SITE_PATH);
    assert_eq!(position(&d[3]), [3, 5, 4, 2]);
    assert_eq!(v["summary"]["errors"], 2);
    assert_eq!(v["summary"]["fixable"], 1);
}

// ---------------------------------------------------------------------------------------
// github

/// Undoes GitHub's workflow-command escaping.
fn unescape_github(s: &str) -> String {
    s.replace("%0D", "\r")
        .replace("%0A", "\n")
        .replace("%3A", ":")
        .replace("%2C", ",")
        .replace("%25", "%")
}

#[test]
fn github_commands_escape_properties_and_data() {
    let out = rendered(Format::Github);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 4, "one command per finding, nothing else");
    assert_eq!(
        lines[0],
        "::warning file=conf/nginx.conf,line=3,col=5,endLine=3,endColumn=22,\
         title=NGX022 server-tokens-on::`server_tokens on` discloses the nginx version"
    );
    assert_eq!(
        lines[1],
        "::error file=conf/nginx.conf,line=4,col=23,endLine=4,endColumn=31,\
         title=NGX023 duplicate-directive::\"root\" directive is duplicate; <root> & 100%25 \
         sure, see: a,b%0Asecond line"
    );
    assert!(lines[2].starts_with("::notice file=sites/a b%2Cc%3Ad.conf,line=2,col=5,"));
    // Two lines: no columns (GitHub rejects them on a multi-line annotation).
    assert!(lines[3].starts_with("::error file=sites/a b%2Cc%3Ad.conf,line=3,endLine=4,title="));
    let f = fixture();
    for (line, d) in lines.iter().zip(&f.diagnostics) {
        let (head, data) = line[2..].split_once("::").expect("::command props::data");
        let (_, props) = head.split_once(' ').expect("command and properties");
        assert_eq!(unescape_github(data), d.message);
        for prop in props.split(',') {
            let (name, value) = prop.split_once('=').expect("name=value");
            assert!(!value.contains([':', ',', '\n', '\r']), "{name}={value}");
            if name == "file" {
                assert_eq!(unescape_github(value), d.file.path.display().to_string());
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// gitlab

#[test]
fn gitlab_issues_have_the_code_quality_fields() {
    let v: Value = serde_json::from_str(&rendered(Format::Gitlab)).unwrap();
    let issues = v.as_array().unwrap();
    assert_eq!(issues.len(), 4);
    let severities: Vec<&str> = issues
        .iter()
        .map(|i| i["severity"].as_str().unwrap())
        .collect();
    assert_eq!(severities, ["minor", "major", "info", "major"]);
    let mut fingerprints: Vec<&str> = issues
        .iter()
        .map(|i| i["fingerprint"].as_str().unwrap())
        .collect();
    for (i, issue) in issues.iter().enumerate() {
        assert_eq!(
            keys(issue),
            [
                "description",
                "check_name",
                "fingerprint",
                "severity",
                "location"
            ]
        );
        assert_eq!(keys(&issue["location"]), ["path", "lines"]);
        assert!(issue["location"]["lines"]["begin"].as_u64().unwrap() >= 1);
        let fp = fingerprints[i];
        assert!(fp.len() == 16 && fp.bytes().all(|b| b.is_ascii_hexdigit()));
    }
    fingerprints.sort_unstable();
    fingerprints.dedup();
    assert_eq!(fingerprints.len(), 4, "fingerprints are distinct");
}

#[test]
fn fingerprints_are_fnv1a_of_content_not_line() {
    use lemplint::report::fingerprint::{fingerprint, fnv1a64};
    assert_eq!(
        fingerprint("NGX022", "a.conf", "server_tokens on;", "m", 1),
        format!(
            "{:016x}",
            fnv1a64(b"NGX022\x00a.conf\x00server_tokens on;\x00m\x00")
        )
    );
    assert_eq!(
        fingerprint("NGX022", "a.conf", "x;", "m", 2),
        format!("{:016x}", fnv1a64(b"NGX022\x00a.conf\x00x;\x00m\x00#2\x00"))
    );
    // A message naming another line hashes the same whatever that line's number.
    assert_eq!(
        fingerprint("SYS010", "a.conf", "x;", "shadowed by line 3", 1),
        fingerprint("SYS010", "a.conf", "x;", "shadowed by line 30", 1)
    );
}

/// The gitlab fingerprints and SARIF `partialFingerprints` of one finding in `text`.
fn fingerprints_of(text: &str, needle: &str) -> (String, String) {
    let file: Shared = Arc::new(SourceFile::new("conf/nginx.conf", text.as_bytes().to_vec()));
    let d = Diagnostic::new(
        lemplint::diagnostic::rule_ids::NGX022,
        Severity::Warning,
        file.clone(),
        span_of(&file, needle, 0),
        "`server_tokens on` discloses the nginx version",
    );
    let gitlab: Value = serde_json::from_str(&render(
        Format::Gitlab,
        std::slice::from_ref(&d),
        &Summary::default(),
    ))
    .unwrap();
    let sarif: Value =
        serde_json::from_str(&render(Format::Sarif, &[d], &Summary::default())).unwrap();
    (
        gitlab[0]["fingerprint"].as_str().unwrap().to_string(),
        sarif["runs"][0]["results"][0]["partialFingerprints"]["lemplint/v1"]
            .as_str()
            .unwrap()
            .to_string(),
    )
}

#[test]
fn fingerprints_survive_lines_added_above_and_change_with_the_line() {
    let before = fingerprints_of("http {\n    server_tokens on;\n}\n", "server_tokens");
    assert_eq!(before.0, before.1, "gitlab and SARIF share the fingerprint");
    // Comment lines (and re-indentation) above and on the line: the same fingerprint.
    let shifted = fingerprints_of(
        "# a comment\n# another\n\nhttp {\n  server_tokens   on;\n}\n",
        "server_tokens",
    );
    assert_eq!(before, shifted);
    // The flagged line itself changed: a new fingerprint.
    let changed = fingerprints_of("http {\n    server_tokens on; # x\n}\n", "server_tokens");
    assert_ne!(before.0, changed.0);
    assert_ne!(before.1, changed.1);
}

#[test]
fn gitlab_fingerprints_of_identical_findings_differ() {
    let f = fixture();
    let twice = vec![f.diagnostics[0].clone(), f.diagnostics[0].clone()];
    let v: Value = serde_json::from_str(&render(Format::Gitlab, &twice, &f.summary)).unwrap();
    assert_ne!(v[0]["fingerprint"], v[1]["fingerprint"]);
    let once: Value =
        serde_json::from_str(&render(Format::Gitlab, &twice[..1], &f.summary)).unwrap();
    assert_eq!(v[0]["fingerprint"], once[0]["fingerprint"]);
}

// ---------------------------------------------------------------------------------------
// XML (checkstyle, junit)

/// A small well-formedness check: one root element, balanced tags, attribute values in
/// quotes without a raw `<`, and every `&` starting a known entity or character reference.
fn check_xml(xml: &str) {
    fn check_amp(s: &str) {
        for (i, _) in s.match_indices('&') {
            let rest = &s[i..];
            let end = rest
                .find(';')
                .unwrap_or_else(|| panic!("unterminated & in {s:?}"));
            let entity = &rest[1..end];
            let ok = ["amp", "lt", "gt", "quot", "apos"].contains(&entity)
                || entity
                    .strip_prefix('#')
                    .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
            assert!(ok, "bad entity &{entity}; in {s:?}");
        }
    }
    let body = xml
        .strip_prefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
        .expect("XML declaration");
    let mut stack: Vec<String> = Vec::new();
    let mut roots = 0;
    let mut rest = body;
    while let Some(lt) = rest.find('<') {
        let text = &rest[..lt];
        assert!(!text.contains('>'), "raw > in text {text:?}");
        check_amp(text);
        if stack.is_empty() {
            assert!(text.trim().is_empty(), "text outside the root: {text:?}");
        }
        rest = &rest[lt + 1..];
        // Find the tag's end, skipping quoted attribute values.
        let mut in_quote = false;
        let mut end = None;
        for (i, c) in rest.char_indices() {
            match c {
                '"' => in_quote = !in_quote,
                '<' => panic!("raw < inside a tag: {rest:?}"),
                '>' if !in_quote => {
                    end = Some(i);
                    break;
                }
                _ => {}
            }
        }
        let end = end.expect("unterminated tag");
        let tag = &rest[..end];
        rest = &rest[end + 1..];
        if let Some(name) = tag.strip_prefix('/') {
            assert_eq!(
                stack.pop().as_deref(),
                Some(name.trim()),
                "mismatched </{name}>"
            );
            continue;
        }
        let self_closing = tag.ends_with('/');
        let tag = tag.trim_end_matches('/');
        let (name, attrs) = tag.split_once(' ').unwrap_or((tag, ""));
        assert!(
            !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric()),
            "tag name {name:?}"
        );
        // Attributes: name="value" pairs.
        let mut a = attrs.trim();
        while !a.is_empty() {
            let (attr, after) = a.split_once("=\"").expect("attr=\"value\"");
            assert!(attr.chars().all(|c| c.is_ascii_alphanumeric()), "{attr:?}");
            let close = after.find('"').expect("closing quote");
            let value = &after[..close];
            assert!(!value.contains(['<', '\n', '\r']), "{attr}={value:?}");
            check_amp(value);
            a = after[close + 1..].trim_start();
        }
        if stack.is_empty() {
            roots += 1;
        }
        if !self_closing {
            stack.push(name.to_string());
        }
    }
    assert!(rest.trim().is_empty(), "text after the root: {rest:?}");
    assert!(stack.is_empty(), "unclosed {stack:?}");
    assert_eq!(roots, 1, "one root element");
}

/// With Python available, parses the XML with a real parser and returns the given
/// attribute (`#text`: the text) of every element with that tag, unescaped; `None` without
/// Python.
fn python_attributes(xml: &str, tag: &str, attr: &str) -> Option<Vec<String>> {
    let get = if attr == "#text" {
        "''.join(n.data for n in e.childNodes if n.nodeType == n.TEXT_NODE)".to_string()
    } else {
        format!("e.getAttribute('{attr}')")
    };
    let script = format!(
        "import sys, json, xml.dom.minidom as m\n\
         doc = m.parseString(sys.stdin.buffer.read())\n\
         print(json.dumps([{get} for e in doc.getElementsByTagName('{tag}')]))"
    );
    let mut child = Command::new("python3")
        .args(["-c", &script])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .ok()?;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(xml.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "python's XML parser rejected:\n{xml}");
    Some(serde_json::from_slice(&out.stdout).unwrap())
}

/// The `message` attributes of the `tag` elements of `xml`, read back by a real XML parser,
/// are the fixture's messages unchanged (checked only where Python is available).
fn assert_messages_survive_xml_parsing(xml: &str, tag: &str) {
    if let Some(messages) = python_attributes(xml, tag, "message") {
        let f = fixture();
        let expected: Vec<&str> = f.diagnostics.iter().map(|d| d.message.as_str()).collect();
        assert_eq!(
            messages, expected,
            "messages survive an XML parser unchanged"
        );
    }
}

#[test]
fn checkstyle_is_well_formed_and_grouped_by_file() {
    let out = rendered(Format::Checkstyle);
    check_xml(&out);
    assert_eq!(out.matches("<file ").count(), 2);
    assert!(out.contains("<file name=\"sites/a b,c:d.conf\">"));
    assert!(out.contains(
        "message=\"&quot;root&quot; directive is duplicate; &lt;root&gt; &amp; 100% sure, see: \
         a,b&#10;second line\""
    ));
    assert!(out.contains("source=\"lemplint.NGX023\""));
    assert_messages_survive_xml_parsing(&out, "error");
}

#[test]
fn junit_is_well_formed_and_counts_right() {
    let out = rendered(Format::Junit);
    check_xml(&out);
    // Two files with findings: two failed test cases holding four failures.
    assert!(out.contains("<testsuites name=\"lemplint\" tests=\"2\" failures=\"2\" errors=\"0\">"));
    assert!(out.contains(
        "<testsuite name=\"lemplint\" tests=\"2\" failures=\"2\" errors=\"0\" skipped=\"0\">"
    ));
    assert_eq!(out.matches("<testcase ").count(), 2);
    assert_eq!(out.matches("<failure ").count(), 4);
    assert!(out.contains("type=\"NGX020\""));
    assert!(out.contains(">sites/a b,c:d.conf:2:5: info[NGX020] "));
    assert_messages_survive_xml_parsing(&out, "failure");
    if let Some(texts) = python_attributes(&out, "failure", "#text") {
        assert_eq!(
            texts[1],
            format!("conf/nginx.conf:4:23: error[NGX023] {NASTY}\nhelp: remove one of the two")
        );
    }
    if let Some(names) = python_attributes(&out, "testcase", "name") {
        assert_eq!(names, ["conf/nginx.conf", SITE_PATH]);
    }
    let passing = empty(Format::Junit);
    assert!(passing.contains("tests=\"1\" failures=\"0\""));
    assert_eq!(passing.matches("<testcase ").count(), 1);
    assert!(!passing.contains("<failure"));
}

// ---------------------------------------------------------------------------------------
// sarif

#[test]
fn sarif_structure() {
    let f = fixture();
    let log: Value =
        serde_json::from_str(&render(Format::Sarif, &f.diagnostics, &f.summary)).unwrap();
    assert_eq!(log["version"], "2.1.0");
    assert!(log["$schema"]
        .as_str()
        .unwrap()
        .ends_with("sarif-schema-2.1.0.json"));
    let runs = log["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 1);
    let run = &runs[0];
    let driver = &run["tool"]["driver"];
    assert_eq!(driver["name"], "lemplint");
    assert_eq!(driver["version"], env!("CARGO_PKG_VERSION"));
    assert!(driver["informationUri"]
        .as_str()
        .unwrap()
        .starts_with("https://"));
    assert_eq!(run["columnKind"], "unicodeCodePoints");

    // Rules: those that appear, in code order, documented from their metadata.
    let rules = driver["rules"].as_array().unwrap();
    let ids: Vec<&str> = rules.iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["NGX000", "NGX020", "NGX022", "NGX023"]);
    for rule in rules {
        let entry = lemplint::rules::by_code(rule["id"].as_str().unwrap()).unwrap();
        let meta = entry.meta();
        assert_eq!(rule["name"], entry.name);
        assert_eq!(rule["shortDescription"]["text"], meta.summary.trim());
        assert_eq!(
            rule["fullDescription"]["text"],
            meta.docs.what_it_does.trim()
        );
        let md = rule["help"]["markdown"].as_str().unwrap();
        assert!(md.contains("### Why it matters") && md.contains(meta.docs.why_it_matters.trim()));
        assert!(md.contains("```nginx\n"));
        assert!(rule["help"]["text"]
            .as_str()
            .unwrap()
            .contains(meta.docs.fix_safety.trim()));
        let level = match entry.severity() {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "note",
        };
        assert_eq!(rule["defaultConfiguration"]["level"], level);
        assert_eq!(
            rule["properties"]["tags"],
            serde_json::json!([entry.category.as_str()])
        );
        // GitHub code scanning: the rule's page, and a security severity for security rules.
        assert_eq!(
            rule["helpUri"],
            format!(
                "https://github.com/lemplint/lemplint/blob/main/docs/rules/{}.md",
                entry.code
            )
        );
        let score = &rule["properties"]["security-severity"];
        if entry.category.as_str() == "security" {
            let n: f64 = score.as_str().unwrap().parse().unwrap();
            assert!((0.1..=10.0).contains(&n), "{n}");
        } else {
            assert!(score.is_null(), "{}: {score}", entry.code);
        }
    }
    // NGX022 only discloses a version: Low on GitHub's scale, from its rules/*.toml.
    assert_eq!(rules[2]["properties"]["security-severity"], "3.1");

    let results = run["results"].as_array().unwrap();
    assert_eq!(results.len(), 4);
    let levels: Vec<&str> = results
        .iter()
        .map(|r| r["level"].as_str().unwrap())
        .collect();
    assert_eq!(levels, ["warning", "error", "note", "error"]);
    for (r, d) in results.iter().zip(&f.diagnostics) {
        assert_eq!(r["ruleId"], d.code.as_str());
        let index = r["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(
            rules[index]["id"],
            d.code.as_str(),
            "ruleIndex points at the rule"
        );
        assert_eq!(r["message"]["text"], d.message.as_str());
        let locations = r["locations"].as_array().unwrap();
        assert_eq!(locations.len(), 1);
        let physical = &locations[0]["physicalLocation"];
        let uri = physical["artifactLocation"]["uri"].as_str().unwrap();
        assert!(!uri.contains(['\\', ' ', ',', ':']), "{uri}");
        assert_eq!(physical["artifactLocation"]["uriBaseId"], "%SRCROOT%");
        let fp = r["partialFingerprints"]["lemplint/v1"].as_str().unwrap();
        assert!(fp.len() == 16 && fp.bytes().all(|b| b.is_ascii_hexdigit()));
        let region = &physical["region"];
        for key in ["startLine", "startColumn", "endLine", "endColumn"] {
            assert!(region[key].as_u64().unwrap() >= 1, "{key}");
        }
    }
    let site = &results[2]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"];
    assert_eq!(site, "sites/a%20b%2Cc%3Ad.conf");
    let region = &results[1]["locations"][0]["physicalLocation"]["region"];
    assert_eq!(
        (
            &region["startLine"],
            &region["startColumn"],
            &region["endColumn"]
        ),
        (&4.into(), &23.into(), &31.into())
    );
    // The label is a related location with its message.
    let related = &results[1]["relatedLocations"][0];
    assert_eq!(related["message"]["text"], "first set here");
    assert_eq!(related["physicalLocation"]["region"]["startLine"], 2);
    // The fix replaces the bytes of `on`.
    let fixes = results[0]["fixes"].as_array().unwrap();
    assert_eq!(fixes.len(), 1);
    assert_eq!(fixes[0]["description"]["text"], "Set `server_tokens off`");
    let change = &fixes[0]["artifactChanges"][0];
    assert_eq!(change["artifactLocation"]["uri"], "conf/nginx.conf");
    let replacement = &change["replacements"][0];
    let offset = replacement["deletedRegion"]["charOffset"].as_u64().unwrap() as usize;
    let length = replacement["deletedRegion"]["charLength"].as_u64().unwrap() as usize;
    assert_eq!(&f.nginx.text[offset..offset + length], b"on");
    assert_eq!(replacement["insertedContent"]["text"], "off");
    assert!(results[1].get("fixes").is_none());
}

/// The SARIF `artifactLocation` of a finding in a file at `path`.
fn sarif_artifact_location(path: &str) -> Value {
    let file: Shared = Arc::new(SourceFile::new(path, b"x;\n".to_vec()));
    let d = Diagnostic::new(
        lemplint::diagnostic::rule_ids::NGX000,
        Severity::Error,
        file,
        Span::new(0, 1),
        "m",
    );
    let log: Value =
        serde_json::from_str(&render(Format::Sarif, &[d], &Summary::default())).unwrap();
    log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"].clone()
}

#[test]
fn sarif_uris_for_absolute_and_dotted_paths() {
    assert_eq!(
        sarif_artifact_location("/etc/nginx/my site.conf"),
        serde_json::json!({"uri": "file:///etc/nginx/my%20site.conf"})
    );
    assert_eq!(
        sarif_artifact_location("./nginx.conf"),
        serde_json::json!({"uri": "nginx.conf", "uriBaseId": "%SRCROOT%"})
    );
}

#[test]
fn sarif_fix_offsets_count_characters_like_columns() {
    // The edit is after a two-byte `é`: byte offset 5, character offset 4.
    let file: Shared = Arc::new(SourceFile::new("a.conf", "é x on;\n".as_bytes().to_vec()));
    let mut d = Diagnostic::new(
        lemplint::diagnostic::rule_ids::NGX022,
        Severity::Warning,
        file.clone(),
        Span::new(3, 8),
        "m",
    );
    d.with_fix(Fix::safe(
        "t",
        vec![Edit::replace(&file, Span::new(5, 7), "off")],
    ));
    let log: Value =
        serde_json::from_str(&render(Format::Sarif, &[d], &Summary::default())).unwrap();
    let result = &log["runs"][0]["results"][0];
    assert_eq!(
        result["locations"][0]["physicalLocation"]["region"]["startColumn"],
        3
    );
    let deleted = &result["fixes"][0]["artifactChanges"][0]["replacements"][0]["deletedRegion"];
    assert_eq!(
        deleted,
        &serde_json::json!({
            "startLine": 1, "startColumn": 5, "endLine": 1, "endColumn": 7,
            "charOffset": 4, "charLength": 2
        })
    );
}

/// SHA-256 of the OASIS SARIF 2.1.0 (errata 01) schema, `sarif-schema-2.1.0.json`.
const SCHEMA_SHA256: &str = "c3b4bb2d6093897483348925aaa73af03b3e3f4bd4ca38cef26dcb4212a2682e";

/// Validates each JSON document of a list read on stdin; prints one JSON list of error
/// messages per document.
const VALIDATOR: &str = r#"
import hashlib, json, sys
import jsonschema
schema_path, want = sys.argv[1], sys.argv[2]
raw = open(schema_path, "rb").read()
got = hashlib.sha256(raw).hexdigest()
if got != want:
    sys.exit(f"{schema_path}: sha256 {got}, expected {want}")
schema = json.loads(raw)
validator = jsonschema.Draft4Validator(schema)
for doc in json.load(sys.stdin):
    errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))
    print(json.dumps(["/".join(map(str, e.absolute_path)) + ": " + e.message for e in errors]))
"#;

fn sarif_validator() -> Option<(PathBuf, PathBuf)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let env_or = |var: &str, default: &str| {
        std::env::var_os(var)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .unwrap_or_else(|| root.join(default))
    };
    let python = env_or("LEMPLINT_SARIF_PYTHON", "target/sarif-venv/bin/python");
    let schema = env_or(
        "LEMPLINT_SARIF_SCHEMA",
        "target/sarif-venv/sarif-schema-2.1.0.json",
    );
    let has_jsonschema = Command::new(&python)
        .args(["-c", "import jsonschema"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if has_jsonschema && schema.is_file() {
        return Some((python, schema));
    }
    let msg = format!(
        "SARIF schema validation needs Python with jsonschema ({}) and the SARIF 2.1.0 schema \
         ({}): run scripts/sarif-venv.sh, or set LEMPLINT_SARIF_PYTHON and LEMPLINT_SARIF_SCHEMA",
        python.display(),
        schema.display()
    );
    if std::env::var("CI").as_deref() == Ok("true") {
        panic!("{msg}");
    }
    eprintln!("note: skipping SARIF schema validation: {msg}");
    None
}

fn validate(python: &Path, schema: &Path, docs: &[Value]) -> Vec<Vec<String>> {
    let mut child = Command::new(python)
        .args(["-c", VALIDATOR])
        .arg(schema)
        .arg(SCHEMA_SHA256)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start python");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(serde_json::to_string(docs).unwrap().as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "validator failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn sarif_validates_against_the_official_schema() {
    let Some((python, schema)) = sarif_validator() else {
        return;
    };
    let f = fixture();
    let log: Value =
        serde_json::from_str(&render(Format::Sarif, &f.diagnostics, &f.summary)).unwrap();
    let empty: Value = serde_json::from_str(&empty(Format::Sarif)).unwrap();
    // A broken copy proves the validator is not vacuous.
    let mut broken = log.clone();
    broken["runs"][0]["results"][0]["level"] = "info".into();
    let errors = validate(&python, &schema, &[log, empty, broken]);
    assert_eq!(errors.len(), 3);
    assert_eq!(errors[0], Vec::<String>::new(), "the SARIF log is invalid");
    assert_eq!(
        errors[1],
        Vec::<String>::new(),
        "the empty SARIF log is invalid"
    );
    assert!(
        errors[2]
            .iter()
            .any(|e| e.contains("runs/0/results/0/level")),
        "the validator accepted an invalid level: {:?}",
        errors[2]
    );
}

/// A real run, from a subdirectory of a git repository with an absolute path: the log
/// GitHub code scanning gets (repository-relative URIs, `originalUriBaseIds`, `helpUri`,
/// `security-severity`, `partialFingerprints`) is valid SARIF 2.1.0.
#[test]
fn sarif_of_a_run_in_a_subdirectory_validates() {
    let Some((python, schema)) = sarif_validator() else {
        return;
    };
    let d = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(d.path()).unwrap();
    std::fs::create_dir_all(root.join(".git")).unwrap();
    std::fs::create_dir_all(root.join("deploy/etc/nginx")).unwrap();
    std::fs::write(
        root.join("deploy/etc/nginx/nginx.conf"),
        "events {}\nhttp {\n    server_tokens on;\n    server {\n        listen 80;\n        root /srv/www;\n        autoindex on;\n    }\n}\n",
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_lemplint"))
        .args(["lint", "--format", "sarif"])
        .arg(root.join("deploy/etc"))
        .current_dir(root.join("deploy"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let log: Value = serde_json::from_slice(&out.stdout).unwrap();
    let run = &log["runs"][0];
    assert_eq!(
        run["originalUriBaseIds"]["%SRCROOT%"]["uri"],
        format!("file://{}/", root.display())
    );
    let results = run["results"].as_array().unwrap();
    assert_eq!(results.len(), 2);
    for r in results {
        let loc = &r["locations"][0]["physicalLocation"]["artifactLocation"];
        assert_eq!(loc["uri"], "deploy/etc/nginx/nginx.conf");
        assert!(r["partialFingerprints"]["lemplint/v1"].is_string());
    }
    for rule in run["tool"]["driver"]["rules"].as_array().unwrap() {
        assert!(rule["helpUri"].as_str().unwrap().ends_with(".md"));
        assert!(rule["properties"]["security-severity"].is_string());
    }
    let errors = validate(&python, &schema, &[log]);
    assert_eq!(errors, [Vec::<String>::new()], "the SARIF log is invalid");
}
