//! Edit helpers that keep the file's own style: rules say *what* to change (an argument, a
//! directive, a key) and these decide the bytes (quotes, indentation, line endings), so that
//! every fix reads as if the file's author had written it.

use super::Edit;
use crate::source::{Shared, Span};
use crate::syntax::nginx::{NodeId, Tree, Word, ROOT};

/// The file's line ending: CRLF when its first line break is CRLF.
pub fn line_ending(text: &[u8]) -> &'static str {
    match text.iter().position(|&b| b == b'\n') {
        Some(i) if i > 0 && text[i - 1] == b'\r' => "\r\n",
        _ => "\n",
    }
}

/// Whether a value must be quoted to stay one nginx token.
pub fn needs_quotes(value: &str) -> bool {
    value.is_empty()
        || value
            .bytes()
            .any(|b| matches!(b, b' ' | b'\t' | b'\r' | b'\n' | b';' | b'{' | b'"' | b'\''))
        || value.starts_with('#')
        || value.starts_with('}')
}

/// Quotes a value for nginx with `q` (escaping that quote and backslashes before it).
fn quote(value: &str, q: char) -> String {
    let mut out = String::with_capacity(value.len() + 2);
    out.push(q);
    for c in value.chars() {
        if c == q || c == '\\' {
            out.push('\\');
        }
        out.push(c);
    }
    out.push(q);
    out
}

/// Replaces an argument's value, keeping the author's quotes (or adding double quotes when
/// the new value needs them).
pub fn replace_arg(file: &Shared, word: &Word, value: &str) -> Edit {
    let raw = &file.text[word.raw().range()];
    let content = match raw.first() {
        Some(b'"') if word.raw() != word.inner() => quote(value, '"'),
        Some(b'\'') if word.raw() != word.inner() => quote(value, '\''),
        _ if needs_quotes(value) => quote(value, '"'),
        _ => value.to_string(),
    };
    Edit::replace(file, word.raw(), content)
}

/// Start of the line holding `offset`.
fn line_start(text: &[u8], offset: usize) -> usize {
    text[..offset]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1)
}

/// End of the line holding `offset`, after its line break (or the end of the text).
fn line_end(text: &[u8], offset: usize) -> usize {
    text[offset..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(text.len(), |i| offset + i + 1)
}

/// Deletes a directive (block included). When it stands alone on its lines, the whole lines
/// go: indentation, a same-line comment after it (that comment is about it), and the line
/// break. Comments on the lines above stay. When it shares its line with other statements
/// (`events { worker_connections 1024; use epoll; }`), only the directive and the spaces after
/// it go, so the rest stays valid and readable.
pub fn delete_directive(file: &Shared, tree: &Tree, node: NodeId) -> Edit {
    let text = &file.text;
    let span = tree.node(node).span;
    let (s, e) = (span.start as usize, span.end as usize);
    let blank = |b: u8| b == b' ' || b == b'\t';
    // Only as far as the blanks around it reach: a line of 80,000 statements must not be
    // scanned once per statement.
    let mut ls = s;
    while ls > 0 && blank(text[ls - 1]) {
        ls -= 1;
    }
    let own_line = ls == 0 || text[ls - 1] == b'\n';
    let mut after = e;
    while after < text.len() && blank(text[after]) {
        after += 1;
    }
    // A statement left open at end of file can end with the LF itself (an unclosed block,
    // an unterminated quote): then nothing follows it on its line.
    let ends_line = e > s && text[e - 1] == b'\n';
    let rest_of_line = if ends_line {
        Some(e)
    } else {
        match text.get(after) {
            None => Some(text.len()),
            Some(b'\n') => Some(after + 1),
            Some(b'\r') if text.get(after + 1) == Some(&b'\n') => Some(after + 2),
            // A comment after it on its line is about it.
            Some(b'#') => {
                Some(memchr::memchr(b'\n', &text[after..]).map_or(text.len(), |i| after + i + 1))
            }
            _ => None,
        }
    };
    match rest_of_line {
        Some(le) if own_line => Edit::delete(file, Span::new(ls as u32, le as u32)),
        // Shared line: the directive and the blanks that follow it.
        _ => Edit::delete(file, Span::new(s as u32, after as u32)),
    }
}

/// The indentation of the line holding `offset`.
fn indentation(text: &[u8], offset: usize) -> String {
    let ls = line_start(text, offset);
    text[ls..]
        .iter()
        .take_while(|&&b| b == b' ' || b == b'\t')
        .map(|&b| b as char)
        .collect()
}

/// One level of indentation as the file uses it: a tab if it indents with tabs, else the
/// smallest space run seen (4 when nothing is indented yet).
pub fn indent_unit(text: &[u8]) -> String {
    let mut min_spaces = usize::MAX;
    for line in text.split(|&b| b == b'\n') {
        match line.first() {
            Some(b'\t') => return "\t".into(),
            Some(b' ') => {
                let n = line.iter().take_while(|&&b| b == b' ').count();
                if n < line.len() {
                    min_spaces = min_spaces.min(n);
                }
            }
            _ => {}
        }
    }
    " ".repeat(if min_spaces == usize::MAX {
        4
    } else {
        min_spaces
    })
}

/// Inserts `statement` (e.g. `worker_processes auto;`) on its own line after the directive
/// `sibling`, with the sibling's indentation and the file's line ending. A same-line comment
/// after the sibling stays with it.
pub fn insert_after(file: &Shared, tree: &Tree, sibling: NodeId, statement: &str) -> Edit {
    let text = &file.text;
    let end = tree.node(sibling).span.end as usize;
    let nl = line_ending(text);
    let indent = indentation(text, tree.node(sibling).span.start as usize);
    let le = line_end(text, end.saturating_sub(1));
    let mut line = String::with_capacity(nl.len() + indent.len() + statement.len());
    if le == text.len() && !text.ends_with(b"\n") {
        for part in [nl, indent.as_str(), statement] {
            line.push_str(part);
        }
    } else {
        for part in [indent.as_str(), statement, nl] {
            line.push_str(part);
        }
    }
    Edit::insert(file, le as u32, line)
}

/// Inserts `statement` as the first line inside a block (or at the top of the file for
/// `ROOT`), indented one level deeper than the block's directive.
pub fn insert_at_block_start(file: &Shared, tree: &Tree, block: NodeId, statement: &str) -> Edit {
    let text = &file.text;
    let nl = line_ending(text);
    if block == ROOT {
        return Edit::insert(file, 0, format!("{statement}{nl}"));
    }
    let node = tree.node(block);
    let Some(b) = tree.directive(block).and_then(|d| d.block()) else {
        return Edit::insert(file, node.span.end, format!("{nl}{statement}"));
    };
    let open_end = b.open().end as usize;
    let inner = format!(
        "{}{}",
        indentation(text, node.span.start as usize),
        indent_unit(text)
    );
    // `events { … }` on one line: insert right after `{` on that line.
    let same_line = b
        .close()
        .is_some_and(|c| !text[open_end..c.start as usize].contains(&b'\n'));
    if same_line {
        return Edit::insert(file, open_end as u32, format!(" {statement}"));
    }
    let le = line_end(text, open_end.saturating_sub(1));
    Edit::insert(file, le as u32, format!("{inner}{statement}{nl}"))
}

/// Appends a line at the end of a file (sysctl, PHP-FPM), adding the missing line break of
/// the last line first when the file does not end with one. Works on an empty (new) file.
pub fn append_line(file: &Shared, line: &str) -> Edit {
    let text = &file.text;
    let nl = line_ending(text);
    let sep = if text.is_empty() || text.ends_with(b"\n") {
        ""
    } else {
        nl
    };
    Edit::insert(file, file.len(), format!("{sep}{line}{nl}"))
}

/// Replaces a PHP-FPM entry's value, keeping its quotes.
pub fn replace_fpm_value(file: &Shared, entry: &crate::syntax::fpm::Entry, value: &str) -> Edit {
    let raw = &file.text[entry.raw_value.range()];
    let quoted = entry.raw_value != entry.value && matches!(raw.first(), Some(b'"' | b'\''));
    let content = if quoted {
        let q = raw[0] as char;
        format!("{q}{value}{q}")
    } else {
        value.to_string()
    };
    // An empty value right after `=` (`key =`) gets the space `key = value` has.
    let at = entry.raw_value.start as usize;
    let content = if entry.raw_value.is_empty() && at > 0 && file.text[at - 1] == b'=' {
        format!(" {content}")
    } else {
        content
    };
    Edit::replace(file, entry.raw_value, content)
}

/// Inserts `key = value` into a PHP-FPM section: after the section's last entry (with that
/// entry's indentation and the file's line ending), or right after the header when the
/// section is empty. `lines` are the file's items, `header` the section's header item.
pub fn insert_fpm_entry(
    file: &Shared,
    lines: &[crate::syntax::fpm::Line],
    header: usize,
    key: &str,
    value: &str,
) -> Edit {
    insert_fpm_entries(file, lines, header, &[(key.to_string(), value.to_string())])
}

/// [`insert_fpm_entry`] for several keys at once (one edit, so they cannot conflict).
pub fn insert_fpm_entries(
    file: &Shared,
    lines: &[crate::syntax::fpm::Line],
    header: usize,
    entries: &[(String, String)],
) -> Edit {
    use crate::syntax::fpm::LineKind;
    let text = &file.text;
    let nl = line_ending(text);
    let mut anchor = header;
    for (i, l) in lines.iter().enumerate().skip(header + 1) {
        match &l.kind {
            LineKind::Section(_) => break,
            LineKind::Entry(_) => anchor = i,
            _ => {}
        }
    }
    let line = &lines[anchor];
    let indent = if anchor == header {
        String::new()
    } else {
        indentation(text, line.span.start as usize)
    };
    let body: Vec<String> = entries
        .iter()
        .map(|(k, v)| format!("{indent}{k} = {v}"))
        .collect();
    let body = body.join(nl);
    if line.eol.is_empty() {
        return Edit::insert(file, line.span.end, format!("{nl}{body}"));
    }
    Edit::insert(file, line.span.end, format!("{body}{nl}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fix::apply::splice;
    use crate::source::SourceFile;
    use crate::syntax::nginx::parse;

    fn apply(text: &str, edit: impl Fn(&Shared, &Tree) -> Edit) -> String {
        let f = Shared::new(SourceFile::new("t.conf", text.as_bytes().to_vec()));
        let parsed = parse(&f.text);
        let e = edit(&f, &parsed.tree);
        let out = String::from_utf8(splice(&f.text, &[&e])).unwrap();
        assert!(
            parse(out.as_bytes()).errors.is_empty(),
            "fix broke the file:\n{out}"
        );
        out
    }

    fn find(tree: &Tree, src: &[u8], name: &str) -> NodeId {
        tree.directives_named(src, name).next().unwrap().0
    }

    #[test]
    fn replace_keeps_quote_style() {
        let out = apply("a 'x';\nb \"y\";\nc z;\n", |f, t| {
            let d = t.directive(find(t, &f.text, "a")).unwrap();
            replace_arg(f, &t.args(d)[0], "it's")
        });
        assert_eq!(out, "a 'it\\'s';\nb \"y\";\nc z;\n");
        let out = apply("c z;\n", |f, t| {
            let d = t.directive(find(t, &f.text, "c")).unwrap();
            replace_arg(f, &t.args(d)[0], "two words")
        });
        assert_eq!(out, "c \"two words\";\n");
    }

    #[test]
    fn delete_whole_line_with_its_comment_but_not_the_comment_above() {
        let text = "http {\n    # about gzip\n    gzip on;  # trailing\n    sendfile on;\n}\n";
        let out = apply(text, |f, t| {
            delete_directive(f, t, find(t, &f.text, "gzip"))
        });
        assert_eq!(out, "http {\n    # about gzip\n    sendfile on;\n}\n");
    }

    #[test]
    fn delete_in_one_line_block_stays_valid() {
        let text = "events { worker_connections 1024; use epoll; }\n";
        let out = apply(text, |f, t| delete_directive(f, t, find(t, &f.text, "use")));
        assert_eq!(out, "events { worker_connections 1024; }\n");
    }

    #[test]
    fn delete_keeps_crlf_of_other_lines() {
        let text = "a 1;\r\nb 2;\r\nc 3;\r\n";
        let out = apply(text, |f, t| delete_directive(f, t, find(t, &f.text, "b")));
        assert_eq!(out, "a 1;\r\nc 3;\r\n");
    }

    #[test]
    fn insert_after_copies_indentation_and_crlf() {
        let text = "http {\r\n\tsendfile on;\r\n}\r\n";
        let out = apply(text, |f, t| {
            insert_after(f, t, find(t, &f.text, "sendfile"), "tcp_nopush on;")
        });
        assert_eq!(out, "http {\r\n\tsendfile on;\r\n\ttcp_nopush on;\r\n}\r\n");
    }

    #[test]
    fn insert_after_last_line_without_newline() {
        let out = apply("user www-data;", |f, t| {
            insert_after(f, t, find(t, &f.text, "user"), "worker_processes auto;")
        });
        assert_eq!(out, "user www-data;\nworker_processes auto;");
    }

    #[test]
    fn append_to_files_with_and_without_final_newline() {
        let f = |t: &str| Shared::new(SourceFile::new("s.conf", t.as_bytes().to_vec()));
        let a = f("a = 1");
        assert_eq!(
            splice(&a.text, &[&append_line(&a, "b = 2")]),
            b"a = 1\nb = 2\n"
        );
        let b = f("a = 1\r\n");
        assert_eq!(
            splice(&b.text, &[&append_line(&b, "b = 2")]),
            b"a = 1\r\nb = 2\r\n"
        );
        let c = f("");
        assert_eq!(splice(&c.text, &[&append_line(&c, "b = 2")]), b"b = 2\n");
    }

    #[test]
    fn fpm_entries_go_at_the_end_of_their_section() {
        let text = "[global]\npid = x\n\n[www]\n  user = a\n  ; note\n\n[other]\nuser = b\n";
        let f = Shared::new(SourceFile::new("p.conf", text.as_bytes().to_vec()));
        let parsed = crate::syntax::fpm::parse(&f.text);
        let lines = &parsed.file.lines;
        let header = lines
            .iter()
            .position(|l| matches!(&l.kind, crate::syntax::fpm::LineKind::Section(s) if &f.text[s.name.range()] == b"www"))
            .unwrap();
        let e = insert_fpm_entry(&f, lines, header, "pm.max_requests", "500");
        let out = String::from_utf8(splice(&f.text, &[&e])).unwrap();
        assert_eq!(out, "[global]\npid = x\n\n[www]\n  user = a\n  pm.max_requests = 500\n  ; note\n\n[other]\nuser = b\n");
    }

    #[test]
    fn insert_at_the_start_of_a_block() {
        let out = apply("http {\n  server {\n    listen 80;\n  }\n}\n", |f, t| {
            insert_at_block_start(f, t, find(t, &f.text, "server"), "server_tokens off;")
        });
        assert_eq!(
            out,
            "http {\n  server {\n    server_tokens off;\n    listen 80;\n  }\n}\n"
        );
        let out = apply("events { use epoll; }\n", |f, t| {
            insert_at_block_start(f, t, find(t, &f.text, "events"), "worker_connections 1024;")
        });
        assert_eq!(out, "events { worker_connections 1024; use epoll; }\n");
    }
}
