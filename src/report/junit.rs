//! The `junit` format: JUnit XML, which CI systems (GitLab, Jenkins, Azure Pipelines, …)
//! show as test results.
//!
//! One `<testsuite name="lemplint">`; one `<testcase classname="lemplint" name="PATH">` per
//! file with findings, holding one `<failure message type="CODE">` per finding whose text is
//! `path:line:col: severity[CODE] message` (and the help, when there is one). A run without
//! findings is a single passing test case, so the report is never empty. `tests` counts
//! test cases and `failures` failed test cases (files with findings), which JUnit readers
//! expect to be at most `tests`; the number of findings is in each file's failures.

use super::xml::{by_file, escape, escape_text, DECLARATION};
use super::Summary;
use crate::diagnostic::Diagnostic;

pub fn write(
    out: &mut dyn std::io::Write,
    diagnostics: &[Diagnostic],
    summary: &Summary,
) -> std::io::Result<()> {
    let files = by_file(diagnostics);
    let (tests, failures) = if files.is_empty() {
        (1, 0)
    } else {
        (files.len(), files.len())
    };
    let mut xml = String::from(DECLARATION);
    let counts = format!("tests=\"{tests}\" failures=\"{failures}\" errors=\"0\"");
    xml.push_str(&format!("<testsuites name=\"lemplint\" {counts}>\n"));
    xml.push_str(&format!(
        "  <testsuite name=\"lemplint\" {counts} skipped=\"0\">\n"
    ));
    if files.is_empty() {
        xml.push_str(&format!(
            "    <testcase classname=\"lemplint\" name=\"{}\"/>\n",
            escape(&format!("no problems in {} files", summary.files))
        ));
    }
    for (path, ds) in files {
        xml.push_str(&format!(
            "    <testcase classname=\"lemplint\" name=\"{}\">\n",
            escape(&path)
        ));
        for d in ds {
            let at = d.file.line_col(d.span.start);
            let mut text = format!(
                "{path}:{}:{}: {}[{}] {}",
                at.line,
                at.column,
                d.severity.as_str(),
                d.code,
                d.message
            );
            if let Some(h) = &d.help {
                text.push_str("\nhelp: ");
                text.push_str(h);
            }
            xml.push_str(&format!(
                "      <failure message=\"{}\" type=\"{}\">{}</failure>\n",
                escape(&d.message),
                escape(d.code.as_str()),
                escape_text(&text),
            ));
        }
        xml.push_str("    </testcase>\n");
    }
    xml.push_str("  </testsuite>\n</testsuites>\n");
    out.write_all(xml.as_bytes())
}
