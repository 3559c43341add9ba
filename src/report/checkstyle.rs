//! The `checkstyle` format: Checkstyle 4.3 XML, which Jenkins (warnings-ng), reviewdog and
//! many code-review tools import.
//!
//! One `<file name="PATH">` per file with findings (in order), one
//! `<error line column severity message source="lemplint.CODE"/>` per finding. Checkstyle's
//! severities `error`, `warning` and `info` are lemplint's own.

use super::xml::{by_file, escape, DECLARATION};
use super::Summary;
use crate::diagnostic::Diagnostic;

pub fn write(
    out: &mut dyn std::io::Write,
    diagnostics: &[Diagnostic],
    _summary: &Summary,
) -> std::io::Result<()> {
    let mut xml = String::from(DECLARATION);
    xml.push_str("<checkstyle version=\"4.3\">\n");
    for (path, ds) in by_file(diagnostics) {
        xml.push_str(&format!("  <file name=\"{}\">\n", escape(&path)));
        for d in ds {
            let at = d.file.line_col(d.span.start);
            xml.push_str(&format!(
                "    <error line=\"{}\" column=\"{}\" severity=\"{}\" message=\"{}\" source=\"lemplint.{}\"/>\n",
                at.line,
                at.column,
                d.severity.as_str(),
                escape(&d.message),
                escape(d.code.as_str()),
            ));
        }
        xml.push_str("  </file>\n");
    }
    xml.push_str("</checkstyle>\n");
    out.write_all(xml.as_bytes())
}
