//! NGX024 unknown-nginx-directive: a name no module in the catalogue defines, one or two edits
//! away from a directive allowed where it is written: nginx refuses to start with `unknown
//! directive "x"`. Other unknown names are not reported: they are most likely directives of
//! modules the catalogue does not have. With `[host] nginx-modules`, a directive of a module
//! the list does not name (and no `load_module` loads) is reported too, as nginx would.

use crate::analysis::catalogue::check::{findings, Kind};
use crate::fix::{Edit, Fix};
use crate::rules::{Context, Rule};

declare_rule! {
    pub struct UnknownDirective;
    code: NGX024,
    name: "unknown-nginx-directive",
    lang: nginx,
    category: Correctness,
    severity: Error,
    fix: Sometimes,
    group: Default,
}

impl Rule for UnknownDirective {
    fn check(&self, cx: &mut Context<'_>) {
        let found = findings(cx.stack, Kind::Unknown, cx.host);
        for f in found.iter() {
            let d = cx.report(&f.file, f.span, f.message.clone());
            d.help = f.help.clone();
            if let Some(name) = f.suggestion {
                // Unsafe: the name is only the closest one; the user may have meant another.
                d.with_fix(Fix::unsafe_(
                    format!("Rename to `{name}`"),
                    vec![Edit::replace(&f.file, f.span, name)],
                ));
            }
        }
    }
}
