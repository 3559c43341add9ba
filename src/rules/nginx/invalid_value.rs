//! NGX029 invalid-value: a number nginx refuses when it reads the configuration: a count
//! past its integer range (`worker_processes 99999999999999999999`), a size that overflows
//! once its unit is applied (`client_max_body_size 99999999999999999999G`), a port outside
//! 1–65535 (`listen 65536`), a `return` code over 999. nginx does not start, with the message
//! given here (see `analysis::catalogue::values`).

use crate::analysis::catalogue::check::{findings, Kind};
use crate::rules::{Context, Rule};

declare_rule! {
    pub struct InvalidValue;
    code: NGX029,
    name: "invalid-value",
    lang: nginx,
    category: Correctness,
    severity: Error,
    fix: None,
    group: Default,
}

impl Rule for InvalidValue {
    fn check(&self, cx: &mut Context<'_>) {
        let found = findings(cx.stack, Kind::Value, cx.host);
        for f in found.iter() {
            cx.report(&f.file, f.span, f.message.clone());
        }
    }
}
