//! Which arguments of a directive nginx compiles as a regex rather than as a script, so
//! that a `$` in them is an anchor and `$1` is not a capture reference.

use crate::analysis::cursor::Directive;

/// Whether argument `i` of `d` is a regex: `location`'s and `server_name`'s names,
/// `rewrite`'s pattern, and the operand after a regex operator in `if`.
pub fn is_regex_argument(d: Directive<'_>, i: usize) -> bool {
    match d.name() {
        "location" | "server_name" => true,
        "rewrite" => i == 0,
        "if" => {
            i > 0
                && d.arg(i - 1).is_some_and(|op| {
                    let v = op.value();
                    matches!(v.as_ref(), "~" | "~*" | "!~" | "!~*")
                })
        }
        _ => false,
    }
}
