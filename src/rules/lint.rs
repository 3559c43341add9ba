//! lemplint's own rules about suppression comments (LINT001, LINT002). Their findings are
//! produced while suppressions are applied (`crate::suppress`), after every other rule has
//! run, because only then is it known which suppressions silenced something.

use super::{Context, Rule};

pub struct ReportedBySuppressions;

impl Rule for ReportedBySuppressions {
    fn check(&self, _cx: &mut Context<'_>) {}
}

/// LINT003 unreadable-file: a configuration file that was found but could not be read
/// (permissions, a directory where a file was expected, larger than the size cap).
pub struct UnreadableFile;

impl Rule for UnreadableFile {
    fn check(&self, cx: &mut Context<'_>) {
        for (path, why) in &cx.stack.unreadable {
            let file = crate::source::Shared::new(crate::source::SourceFile::new(
                path.clone(),
                Vec::new(),
            ));
            cx.report(
                &file,
                crate::source::Span::empty(0),
                format!("cannot read {} ({why})", path.display()),
            );
        }
    }
}
