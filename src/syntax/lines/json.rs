//! What the JSON writers of the two line-based parsers ([`crate::syntax::fpm::json`],
//! [`crate::syntax::sysctl::json`]) share: a line's position, and its parts as
//! `{"raw":…,"span":[…]}` objects (with `"value"` where the program reads something else
//! than what is written).

use super::Line;
use crate::source::{SourceFile, Span};
use crate::syntax::nginx::json::{write_position, JsonOut};

/// `{"type":…,"line":…,"column":…,"span":[…],"eol":[…]` for one line; the object is left
/// open for its parts. The span covers every byte of the line, terminator included, so the
/// lines of a file tile it; `eol` is the terminator (empty at the end of a file without one).
pub fn open_line<K>(o: &mut JsonOut<'_>, src: &SourceFile, ty: &str, line: &Line<K>) {
    o.raw(b"{\"type\":");
    o.string(ty);
    write_position(o, src, line.span);
    o.raw(b",\"eol\":");
    o.span(line.eol);
}

/// `,"KEY":{"raw":…,"span":[…]}`: a part read as it is written.
pub fn part(o: &mut JsonOut<'_>, src: &SourceFile, key: &str, span: Span) {
    open_part(o, src, key, span);
    o.raw(b"}");
}

/// `,"KEY":{"raw":…,"value":…,"span":[…]}`: a part and what the program reads from it.
pub fn valued(o: &mut JsonOut<'_>, src: &SourceFile, key: &str, span: Span, value: &[u8]) {
    open_valued(o, src, key, span, value);
    o.raw(b"}");
}

/// [`part`] with the object left open for more keys.
pub fn open_part(o: &mut JsonOut<'_>, src: &SourceFile, key: &str, span: Span) {
    o.raw(b",");
    o.string(key);
    o.raw(b":{\"raw\":");
    o.lossy(src.bytes(span));
    o.raw(b",\"span\":");
    o.span(span);
}

/// [`valued`] with the object left open for more keys.
pub fn open_valued(o: &mut JsonOut<'_>, src: &SourceFile, key: &str, span: Span, value: &[u8]) {
    o.raw(b",");
    o.string(key);
    o.raw(b":{\"raw\":");
    o.lossy(src.bytes(span));
    o.raw(b",\"value\":");
    o.lossy(value);
    o.raw(b",\"span\":");
    o.span(span);
}

/// `,"KEY":[start,end]`: punctuation (`=`, `[`, `-`), whose text the key says.
pub fn mark(o: &mut JsonOut<'_>, key: &str, span: Span) {
    o.raw(b",");
    o.string(key);
    o.raw(b":");
    o.span(span);
}

/// `,"text":…`: a line's bytes without its terminator (error lines and the like, as the
/// nginx writer gives error nodes their text).
pub fn text<K>(o: &mut JsonOut<'_>, src: &SourceFile, line: &Line<K>) {
    o.raw(b",\"text\":");
    o.lossy(src.bytes(Span::new(line.span.start, line.eol.start)));
}

/// `{"message":…,"line":…,"column":…,"span":[…]}` for each syntax error, comma-separated,
/// as the nginx file objects list theirs.
pub fn errors(o: &mut JsonOut<'_>, src: &SourceFile, errors: &[crate::syntax::SyntaxError]) {
    for (n, e) in errors.iter().enumerate() {
        if n > 0 {
            o.raw(b",");
        }
        o.raw(b"{\"message\":");
        o.string(&e.message);
        write_position(o, src, e.span);
        o.raw(b"}");
    }
}
