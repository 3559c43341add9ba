//! The statement parser (`Zend/zend_ini_parser.y`), with bison's default reductions, so each
//! syntax error has PHP's own text.

use super::scanner::{Lexer, Tk, Tok};
use super::statements::{LineBuf, Stmt};
use super::{Entry, LineKind, Section};
use crate::source::Span;

/// A piece of a string value (`var_string_list` / `encapsed_list`), by span.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Part {
    /// Literal bytes (bare words, numbers, blanks, `'raw'` contents).
    Text(Span),
    /// Double-quoted contents: `\"`, `\\`, `\$` are unescaped.
    Escaped(Span),
    /// `${NAME}`: the name.
    Var(Span),
    /// A bare identifier PHP looks up with `zend_get_constant()`.
    Constant(Span),
}

/// The parts of a string value. Nearly every value is one part (`pm = static`, `listen =
/// /run/php/www.sock`), held here without a heap allocation: as a vector, the values of a
/// pool file of 24,000 pools were 96,000 allocations of 48 bytes, 5.8 MB of a 52 MB peak
/// (heaptrack), kept as long as the file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Parts {
    One(Part),
    /// None, or more than one.
    Many(Vec<Part>),
}

impl Parts {
    pub(super) fn new() -> Parts {
        Parts::Many(Vec::new())
    }

    pub(super) fn push(&mut self, part: Part) {
        match self {
            Parts::Many(v) if v.is_empty() => *self = Parts::One(part),
            Parts::Many(v) => v.push(part),
            Parts::One(first) => *self = Parts::Many(vec![*first, part]),
        }
    }
}

impl std::ops::Deref for Parts {
    type Target = [Part];

    fn deref(&self) -> &[Part] {
        match self {
            Parts::One(p) => std::slice::from_ref(p),
            Parts::Many(v) => v,
        }
    }
}

/// The value of an entry as `string_or_value` / `expr` build it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Expr {
    Empty,
    Bool(bool),
    Null,
    Concat(Parts),
    Unary(u8, Box<Expr>),
    Binary(u8, Box<Expr>, Box<Expr>),
}

pub(super) struct SynErr {
    pub(super) message: String,
    pub(super) span: Span,
}

/// The expected tokens bison lists in the states where it does (four or fewer; elsewhere PHP's
/// message is just `syntax error, unexpected X`).
pub(super) const EXPECT_CLOSE_BRACKET: &str = "']'";
pub(super) const EXPECT_EQ: &str = "'='";
pub(super) const EXPECT_VARNAME: &str = "TC_VARNAME";
pub(super) const EXPECT_CLOSE_BRACE: &str = "'}'";
pub(super) const EXPECT_ENCAPSED: &str = "TC_DOLLAR_CURLY or TC_QUOTED_STRING or '\"'";
pub(super) const EXPECT_CLOSE_PAREN: &str = "'^' or '|' or '&' or ')'";

/// What follows a key: `=`, the value and a trailing comment (see [`Entry`] for each span).
pub(super) struct Assigned {
    pub(super) eq: Span,
    pub(super) raw: Span,
    pub(super) unquoted: Span,
    pub(super) comment: Option<Span>,
    pub(super) expr: Expr,
}

/// A string value being collected, and whether it is exactly one quoted string.
pub(super) struct StringList {
    pub(super) parts: Parts,
    pub(super) items: usize,
    pub(super) quoted_inner: Option<Span>,
}

pub(super) struct Parser<'a> {
    pub(super) buf: &'a LineBuf<'a>,
    pub(super) lx: Lexer<'a>,
    pub(super) tok: Tok,
    /// Absolute end of the last token consumed.
    pub(super) last_end: usize,
    /// Buffer index of the closing quote of the last double-quoted string.
    pub(super) last_close_quote: usize,
}

impl<'a> Parser<'a> {
    pub(super) fn new(buf: &'a LineBuf<'a>) -> Self {
        let mut lx = Lexer::new(&buf.bytes);
        let tok = lx.next();
        Parser {
            buf,
            lx,
            tok,
            last_end: buf.base,
            last_close_quote: 0,
        }
    }

    pub(super) fn bump(&mut self) -> Tok {
        let t = self.tok;
        self.last_end = self.buf.abs(t.end);
        self.tok = self.lx.next();
        t
    }

    pub(super) fn span(&self, t: &Tok) -> Span {
        self.buf.span(t.start, t.end)
    }

    pub(super) fn text(&self, t: &Tok) -> Span {
        self.buf.span(t.text.0, t.text.1)
    }

    pub(super) fn unexpected(&self, expecting: Option<&str>) -> SynErr {
        let mut message = format!("syntax error, unexpected {}", self.tok.kind.name());
        if let Some(e) = expecting {
            message.push_str(", expecting ");
            message.push_str(e);
        }
        SynErr {
            message,
            span: self.span(&self.tok),
        }
    }

    pub(super) fn expect(&mut self, kind: Tk, expecting: &str) -> Result<Tok, SynErr> {
        if self.tok.kind == kind {
            Ok(self.bump())
        } else {
            Err(self.unexpected(Some(expecting)))
        }
    }

    /// `statement`. `Ok(None)` at the end of the line.
    pub(super) fn statement(&mut self, section: Option<usize>) -> Result<Option<Stmt>, SynErr> {
        match self.tok.kind {
            Tk::End => Ok(None),
            Tk::Eol => {
                let t = self.bump();
                Ok(Some(Stmt {
                    kind: self.eol_kind(&t),
                    end: self.last_end,
                }))
            }
            Tk::Section => self.section().map(Some),
            Tk::Label | Tk::Offset => self.entry(section).map(Some),
            _ => Err(self.unexpected(None)),
        }
    }

    /// A blank line or a `;` comment (both are an `END_OF_LINE` token).
    pub(super) fn eol_kind(&self, t: &Tok) -> LineKind {
        let bytes = &self.buf.bytes[t.start..t.end];
        match bytes.iter().position(|&b| b == b';') {
            Some(i) => {
                let stop = t.start
                    + bytes
                        .iter()
                        .rposition(|&b| b != b'\n' && b != b'\r')
                        .map_or(i, |j| j + 1);
                LineKind::Comment {
                    text: self.buf.span(t.start + i, stop),
                    own_line: true,
                }
            }
            None => LineKind::Blank,
        }
    }

    /// `TC_SECTION section_string_or_value ']'`.
    pub(super) fn section(&mut self) -> Result<Stmt, SynErr> {
        let open = self.bump();
        let first = self.tok.start;
        let list = self.string_list(true)?;
        let name = self.covered(&list, first, open.end);
        let close = self.expect(Tk::Ch(b']'), EXPECT_CLOSE_BRACKET)?;
        Ok(Stmt {
            kind: LineKind::Section(Section {
                open: self.span(&open),
                name,
                close: self.buf.span(close.start, close.start + 1),
                parts: list.parts,
            }),
            end: self.last_end,
        })
    }

    /// The bytes a string list consumed (from buffer index `first` to the last token), or an empty
    /// span at buffer index `empty_at` when it is empty.
    pub(super) fn covered(&self, list: &StringList, first: usize, empty_at: usize) -> Span {
        if list.items == 0 {
            self.buf.span(empty_at, empty_at)
        } else {
            Span::new(self.buf.abs(first) as u32, self.last_end as u32)
        }
    }

    /// `TC_LABEL '=' string_or_value`, `TC_OFFSET option_offset ']' '=' string_or_value`, or a
    /// bare `TC_LABEL`, which php-fpm's callback rejects (`value is NULL …`).
    pub(super) fn entry(&mut self, section: Option<usize>) -> Result<Stmt, SynErr> {
        let head = self.bump();
        let name = self.text(&head);
        let (key, subkey, subkey_parts) = if head.kind == Tk::Offset {
            let (key, sub, parts) = self.array_key(&head, name)?;
            (key, Some(sub), Some(Box::new(parts)))
        } else {
            (name, None, None)
        };
        if self.tok.kind != Tk::Ch(b'=') {
            if head.kind == Tk::Offset {
                return Err(self.unexpected(Some(EXPECT_EQ)));
            }
            return Err(SynErr {
                message: "value is NULL for a ZEND_INI_PARSER_ENTRY".into(),
                span: name,
            });
        }
        let value = self.assignment()?;
        Ok(Stmt {
            kind: LineKind::Entry(Entry {
                key,
                name,
                subkey,
                eq: value.eq,
                raw_value: value.raw,
                value: value.unquoted,
                comment: value.comment,
                // Spans are u32 (files are at most 64 MiB), and so are item indexes.
                section: section.map(|s| s as u32),
                expr: value.expr,
                subkey_parts,
            }),
            end: self.last_end,
        })
    }

    /// `option_offset ']'` after `name[`: the whole key's span, the subkey's, and its parts.
    pub(super) fn array_key(
        &mut self,
        head: &Tok,
        name: Span,
    ) -> Result<(Span, Span, Parts), SynErr> {
        let first = self.tok.start;
        let list = self.string_list(false)?;
        let sub = self.covered(&list, first, head.end);
        let close = self.expect(Tk::Ch(b']'), EXPECT_CLOSE_BRACKET)?;
        let key = Span::new(name.start, self.buf.abs(close.end) as u32);
        Ok((key, sub, list.parts))
    }

    /// `'=' string_or_value`, and the comment that ends the line, if any.
    pub(super) fn assignment(&mut self) -> Result<Assigned, SynErr> {
        let eq_tok = self.bump();
        // The `=` token includes the blanks around the sign.
        let eq_at = eq_tok.start
            + self.buf.bytes[eq_tok.start..eq_tok.end]
                .iter()
                .position(|&b| b == b'=')
                .unwrap_or(0);
        let value_start = self.buf.abs(eq_tok.end);
        let first = self.tok.start;
        let (expr, quoted_inner) = self.string_or_value()?;
        let raw = if matches!(expr, Expr::Empty) {
            Span::empty(value_start as u32)
        } else {
            self.trim_value(self.buf.abs(first).max(value_start), self.last_end)
        };
        let mut comment = None;
        if self.tok.kind == Tk::Eol {
            let t = self.bump();
            if let LineKind::Comment { text, .. } = self.eol_kind(&t) {
                comment = Some(text);
            }
        }
        Ok(Assigned {
            eq: self.buf.span(eq_at, eq_at + 1),
            raw,
            unquoted: quoted_inner.unwrap_or(raw),
            comment,
            expr,
        })
    }

    /// The value's bytes without the blanks (and any newline) that tokens like `"…"  ` include.
    pub(super) fn trim_value(&self, s: usize, e: usize) -> Span {
        let mut e = e.max(s);
        while e > s {
            let i = e - 1 - self.buf.base;
            match self.buf.bytes.get(i) {
                Some(b' ' | b'\t' | b'\r' | b'\n') => e -= 1,
                _ => break,
            }
        }
        Span::new(s as u32, e as u32)
    }

    /// `string_or_value: expr | BOOL_TRUE | BOOL_FALSE | NULL_NULL | END_OF_LINE`.
    pub(super) fn string_or_value(&mut self) -> Result<(Expr, Option<Span>), SynErr> {
        match self.tok.kind {
            Tk::True => {
                self.bump();
                Ok((Expr::Bool(true), None))
            }
            Tk::False => {
                self.bump();
                Ok((Expr::Bool(false), None))
            }
            Tk::Null => {
                self.bump();
                Ok((Expr::Null, None))
            }
            Tk::Eol => Ok((Expr::Empty, None)),
            _ => {
                let mut quoted = None;
                let e = self.expr(&mut quoted)?;
                Ok((e, quoted))
            }
        }
    }

    /// `expr` with `%left '|' '&' '^'` and the unary `~`, `!` binding tighter.
    pub(super) fn expr(&mut self, quoted: &mut Option<Span>) -> Result<Expr, SynErr> {
        let mut lhs = self.unary(quoted)?;
        while let Tk::Ch(op @ (b'|' | b'&' | b'^')) = self.tok.kind {
            self.bump();
            *quoted = None;
            let rhs = self.unary(quoted)?;
            *quoted = None;
            lhs = Expr::Binary(op, Box::new(lhs), Box::new(rhs));
        }
        Ok(lhs)
    }

    pub(super) fn unary(&mut self, quoted: &mut Option<Span>) -> Result<Expr, SynErr> {
        match self.tok.kind {
            Tk::Ch(op @ (b'~' | b'!')) => {
                self.bump();
                *quoted = None;
                let inner = self.unary(quoted)?;
                *quoted = None;
                Ok(Expr::Unary(op, Box::new(inner)))
            }
            Tk::Ch(b'(') => {
                self.bump();
                let inner = self.expr(quoted)?;
                *quoted = None;
                self.expect(Tk::Ch(b')'), EXPECT_CLOSE_PAREN)?;
                Ok(inner)
            }
            _ => {
                let list = self.string_list(false)?;
                if list.items == 0 {
                    return Err(self.unexpected(None));
                }
                *quoted = if list.items == 1 {
                    list.quoted_inner
                } else {
                    None
                };
                Ok(Expr::Concat(list.parts))
            }
        }
    }

    /// `var_string_list` (values, array keys; constants resolved) or `var_string_list_section`
    /// (section names; constants kept as written). Stops at the first token that cannot continue it.
    pub(super) fn string_list(&mut self, section: bool) -> Result<StringList, SynErr> {
        let mut list = StringList {
            parts: Parts::new(),
            items: 0,
            quoted_inner: None,
        };
        loop {
            let t = self.tok;
            match t.kind {
                Tk::DollarCurly => {
                    let var = self.var_ref()?;
                    list.parts.push(var);
                    list.quoted_inner = None;
                }
                Tk::Constant if !section => {
                    self.bump();
                    list.parts.push(Part::Constant(self.span(&t)));
                }
                Tk::Raw => {
                    self.bump();
                    let inner = self.text(&t);
                    list.parts.push(Part::Text(inner));
                    list.quoted_inner = Some(inner);
                }
                Tk::Constant | Tk::Number | Tk::Str | Tk::Whitespace => {
                    self.bump();
                    list.parts.push(Part::Text(self.span(&t)));
                }
                Tk::Ch(b'"') => {
                    self.bump();
                    let open_end = self.buf.abs(t.end);
                    self.encapsed(&mut list.parts)?;
                    let close_start = self.buf.abs(self.last_close_quote);
                    list.quoted_inner = Some(Span::new(open_end as u32, close_start as u32));
                }
                _ => break,
            }
            list.items += 1;
        }
        if list.items != 1 {
            list.quoted_inner = None;
        }
        Ok(list)
    }

    /// `encapsed_list '"'`: double-quoted contents up to the closing quote, added to `parts`.
    pub(super) fn encapsed(&mut self, parts: &mut Parts) -> Result<(), SynErr> {
        loop {
            let t = self.tok;
            match t.kind {
                Tk::DollarCurly => parts.push(self.var_ref()?),
                Tk::Quoted => {
                    self.bump();
                    parts.push(Part::Escaped(self.span(&t)));
                }
                Tk::Ch(b'"') => {
                    self.last_close_quote = t.start;
                    self.bump();
                    return Ok(());
                }
                _ => return Err(self.unexpected(Some(EXPECT_ENCAPSED))),
            }
        }
    }

    /// `TC_DOLLAR_CURLY TC_VARNAME '}'`.
    pub(super) fn var_ref(&mut self) -> Result<Part, SynErr> {
        self.bump();
        let name = self.expect(Tk::VarName, EXPECT_VARNAME)?;
        self.expect(Tk::Ch(b'}'), EXPECT_CLOSE_BRACE)?;
        Ok(Part::Var(self.text(&name)))
    }
}
