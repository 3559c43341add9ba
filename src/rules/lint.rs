//! lemplint's own rules about suppression comments (LINT001, LINT002). Their findings are
//! produced while suppressions are applied (`crate::suppress`), after every other rule has
//! run, because only then is it known which suppressions silenced something.

use super::{Context, Rule};

pub struct ReportedBySuppressions;

impl Rule for ReportedBySuppressions {
    fn check(&self, _cx: &mut Context<'_>) {}
}
