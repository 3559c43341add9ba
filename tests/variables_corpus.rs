//! Provenance over the corpus: every argument of the directives rules will ask about, in
//! every nginx file of `../shared/corpus/nginx`, gets an answer — no panic, bounded time —
//! and every danger it reports comes with a reason whose steps point inside their files at
//! text that is there (a `$` reference, a directive, a map entry).

mod common;

use lemplint::analysis::variables::{Danger, Provenance};
use lemplint::stack::expanded::{Expanded, View};
use lemplint::stack::fs::DumpFs;
use lemplint::stack::nginx::{load, LoadOptions};
use std::time::{Duration, Instant};

const ASKED: &[&str] = &[
    "add_header",
    "return",
    "rewrite",
    "proxy_pass",
    "fastcgi_param",
    "proxy_set_header",
    "root",
    "alias",
    "try_files",
    "set",
    "access_log",
    "more_set_headers",
];

#[test]
#[cfg_attr(
    lemplint_no_corpus,
    ignore = "../shared/corpus is missing (a fresh clone: see the README's corpus note; after adding it, touch build.rs)"
)]
fn every_corpus_argument_gets_an_explained_answer_quickly() {
    let Some(dir) = common::corpus("nginx") else {
        return;
    };
    let opts = LoadOptions {
        single_file: true,
        ..LoadOptions::default()
    };
    let (mut files, mut asked, mut truncated) = (0usize, 0usize, 0usize);
    let mut found = [0usize; 4];
    let mut slowest = (Duration::ZERO, String::new());
    let t = Instant::now();
    for path in common::files_under(&dir) {
        let Ok(text) = std::fs::read(&path) else {
            continue;
        };
        if !text.windows(1).any(|w| w == b"$") {
            continue;
        }
        let mut fs = DumpFs::default();
        fs.files.insert(path.clone(), text);
        let Ok(config) = load(&fs, &path, &opts) else {
            continue;
        };
        files += 1;
        let expanded = Expanded::build(&config);
        let view = View {
            config: &config,
            expanded: &expanded,
        };
        let p = Provenance::new(View {
            config: &config,
            expanded: &expanded,
        });
        let started = Instant::now();
        for name in ASKED {
            for occ in view.named(name) {
                for i in 0..view.args(occ).len() {
                    let a = p.argument(occ, i);
                    asked += 1;
                    truncated += a.truncated as usize;
                    for d in Danger::ALL {
                        let Some(chain) = a.why(d) else { continue };
                        found[d.index()] += 1;
                        assert!(!chain.is_empty());
                        for s in chain {
                            assert!(
                                s.span.end as usize <= s.file.text.len(),
                                "{}",
                                path.display()
                            );
                            assert!(!s.note.is_empty());
                        }
                    }
                }
            }
        }
        let took = started.elapsed();
        if took > slowest.0 {
            slowest = (took, path.display().to_string());
        }
    }
    eprintln!(
        "{files} files, {asked} arguments in {:?} (slowest file {:?}: {}); CR/LF {}, `/` {}, \
         `..` {}, host {}; truncated {truncated}",
        t.elapsed(),
        slowest.0,
        slowest.1,
        found[0],
        found[1],
        found[2],
        found[3]
    );
    assert!(files > 0);
    assert!(slowest.0 < Duration::from_secs(5), "{slowest:?}");
}
