//! NGX119 multiline-header-value: a header name or value written with a line break inside
//! its quotes (or a `\n`/`\r` escape). nginx copies the bytes verbatim into the response
//! (or the upstream request), so the header goes out folded across lines — obsolete line
//! folding, which RFC 9112 §5.2 lets recipients reject — or split into a second header.

use crate::fix::{Edit, Fix};
use crate::rules::{Context, Rule};
use crate::source::Span;

declare_rule! {
    pub struct MultilineHeaderValue;
    code: NGX119,
    name: "multiline-header-value",
    lang: nginx,
    category: Reliability,
    severity: Warning,
    fix: Sometimes,
    group: Default,
}

/// The directives that write a header, and which of their arguments become header bytes.
/// `more_set_headers`/`more_set_input_headers` take `Name: value` words after their options.
const HEADER_DIRECTIVES: &[(&str, Args)] = &[
    ("add_header", Args::NameValue),
    ("add_trailer", Args::NameValue),
    ("proxy_set_header", Args::NameValue),
    ("grpc_set_header", Args::NameValue),
    ("more_set_headers", Args::HeadersMore),
    ("more_set_input_headers", Args::HeadersMore),
];

#[derive(Clone, Copy)]
enum Args {
    NameValue,
    HeadersMore,
}

impl Rule for MultilineHeaderValue {
    fn check(&self, cx: &mut Context<'_>) {
        for &(name, args) in HEADER_DIRECTIVES {
            for d in cx.nginx_directives(name) {
                // Most values are one line: nothing is collected for them.
                if !d.args().any(|w| first_break(w.raw_bytes()).is_some()) {
                    continue;
                }
                let words: Vec<_> = match args {
                    Args::NameValue => d.args().take(2).collect(),
                    // `-s 200`, `-t text/html`: an option and its argument are not headers.
                    Args::HeadersMore => {
                        let mut out = Vec::new();
                        let mut skip = false;
                        for w in d.args() {
                            if skip {
                                skip = false;
                            } else if w.is("-s") || w.is("-t") {
                                skip = true;
                            } else if !w.bytes().starts_with(b"-") {
                                out.push(w);
                            }
                        }
                        out
                    }
                };
                for w in words {
                    let Some(brk) = first_break(w.raw_bytes()) else {
                        continue;
                    };
                    let start = w.raw().start + brk.at as u32;
                    let at = Span::new(start, start + brk.len as u32);
                    let header = header_name(d.name(), &d, &w);
                    let diag = cx.report(
                        w.file(),
                        w.raw(),
                        format!(
                            "the `{header}` header set by `{name}` spans several lines: nginx sends the line break as it is, so clients get an obsolete folded header (RFC 9112 §5.2) that many reject"
                        ),
                    );
                    diag.label(w.file().clone(), at, brk.what);
                    diag.help = Some(
                        "write the value on one line (nginx concatenates nothing: keep it in one quoted string)"
                            .to_string(),
                    );
                    if let Some(edits) = join_lines(w) {
                        diag.with_fix(Fix::safe("Join the value onto one line", edits));
                    }
                }
            }
        }
    }
}

/// A line break in a token as written: a raw CR/LF or a `\n`/`\r` escape (which nginx
/// turns into the byte).
struct Break {
    at: usize,
    len: usize,
    what: &'static str,
}

fn first_break(raw: &[u8]) -> Option<Break> {
    // Only a line break or a backslash can start one: jump between them.
    let mut i = 0;
    while let Some(p) = memchr::memchr3(b'\n', b'\r', b'\\', &raw[i..]) {
        i += p;
        if raw[i] != b'\\' {
            return Some(Break {
                at: i,
                len: 1,
                what: "line break inside the quotes",
            });
        }
        match raw.get(i + 1) {
            Some(b'n' | b'r') => {
                return Some(Break {
                    at: i,
                    len: 2,
                    what: "this escape becomes a line break",
                })
            }
            // An escaped byte (`\\`, `\"`) is skipped with its backslash.
            Some(_) => i += 2,
            None => return None,
        }
    }
    None
}

/// The header the word belongs to, for the message.
fn header_name(
    directive: &str,
    d: &crate::analysis::cursor::Directive<'_>,
    w: &crate::analysis::cursor::Word<'_>,
) -> String {
    let name = if directive.starts_with("more_") {
        let v = w.value();
        v.split(':').next().unwrap_or("").trim().to_string()
    } else {
        d.arg(0)
            .map(|a| a.value().trim().to_string())
            .unwrap_or_default()
    };
    let name: String = name.split_whitespace().collect::<Vec<_>>().join(" ");
    if name.is_empty() {
        "(unnamed)".to_string()
    } else {
        name
    }
}

/// The edits replacing each raw line break (and the indentation around it) inside a quoted
/// word with one space: what the author meant when they wrapped a long value. Only raw
/// breaks; an escape is written on purpose and its meaning is left to the author.
fn join_lines(w: crate::analysis::cursor::Word<'_>) -> Option<Vec<Edit>> {
    if !w.is_quoted() {
        return None;
    }
    let inner = w.inner();
    let text = &w.file().text[inner.range()];
    if text
        .windows(2)
        .any(|p| p[0] == b'\\' && (p[1] == b'n' || p[1] == b'r'))
    {
        return None;
    }
    let mut edits = Vec::new();
    let mut i = 0;
    while i < text.len() {
        if text[i] == b'\n' || text[i] == b'\r' {
            let mut s = i;
            while s > 0 && (text[s - 1] == b' ' || text[s - 1] == b'\t') {
                s -= 1;
            }
            let mut e = i;
            while e < text.len() && matches!(text[e], b' ' | b'\t' | b'\n' | b'\r') {
                e += 1;
            }
            // No space before a closing quote or after an opening one.
            let sep = if s == 0 || e == text.len() { "" } else { " " };
            edits.push(Edit::replace(
                w.file(),
                Span::new(inner.start + s as u32, inner.start + e as u32),
                sep,
            ));
            i = e;
        } else {
            i += 1;
        }
    }
    (!edits.is_empty()).then_some(edits)
}
