//! Agreement with gixy's HTTP-splitting cases (`../shared/corpus/nginx/gixy/tests/plugins/
//! simply/http_splitting`): a file is gixy's positive unless its name ends in `_fp`; lemplint
//! calls it positive when an argument of a directive that writes a header or a request line
//! (`add_header`, `proxy_set_header`, `proxy_pass`, `rewrite`'s replacement, `return`'s
//! text) can hold a client-chosen line break. The one disagreement is listed with the reason,
//! which tests/variables_binary.rs shows against nginx.

mod common;

use lemplint::analysis::variables::{Danger, Provenance};
use lemplint::stack::expanded::{Expanded, View};
use lemplint::stack::fs::DumpFs;
use lemplint::stack::nginx::{load, LoadOptions};

/// Where lemplint and gixy differ, and why lemplint is right.
const DISAGREE: &[(&str, &str)] = &[
    (
        "rewrite_extract_fp",
        "a named capture is a variable, which nginx copies into a redirect unescaped (only \
         $1…$9 are escaped): nginx 1.22 answers `/n/a%0d%0ab` with a split Location header",
    ),
    (
        "proxy_from_location_var_var",
        "`set $p $2` before any rewrite: the rewrite module URL-escapes the capture (its \
         quote flag is on), nginx 1.22 answers `/s/a%0d%0ab` with `a%0D%0Ab`",
    ),
];

#[test]
fn http_splitting_cases_agree_with_gixy_but_for_the_listed_ones() {
    let Some(dir) = common::corpus("nginx") else {
        return;
    };
    let cases = dir.join("gixy/tests/plugins/simply/http_splitting");
    let opts = LoadOptions {
        single_file: true,
        ..LoadOptions::default()
    };
    let (mut agree, mut total) = (0, 0);
    for path in common::files_under(&cases) {
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let gixy = !name.ends_with("_fp");
        let mut fs = DumpFs::default();
        fs.files.insert(path.clone(), std::fs::read(&path).unwrap());
        let config = load(&fs, &path, &opts).unwrap();
        let expanded = Expanded::build(&config);
        let p = Provenance::new(View {
            config: &config,
            expanded: &expanded,
        });
        let view = p.view();
        let mut ours = false;
        for (directive, from) in [
            ("add_header", 1),
            ("proxy_set_header", 1),
            ("proxy_pass", 0),
            ("rewrite", 1),
            ("return", 0),
        ] {
            for occ in view.named(directive) {
                for i in from..view.args(occ).len() {
                    ours |= p.argument(occ, i).can(Danger::CrLf);
                }
            }
        }
        total += 1;
        let listed = DISAGREE.iter().any(|(n, _)| *n == name);
        if ours == gixy {
            agree += 1;
            assert!(!listed, "{name} agrees now: take it off the list");
        } else {
            assert!(listed, "{name}: gixy says {gixy}, lemplint {ours}");
        }
    }
    eprintln!("agree with gixy on {agree} of {total} http_splitting cases");
    assert!(total >= 10, "{total} cases");
}
