//! The Zend INI scanner (`Zend/zend_ini_scanner.l`, NORMAL mode), one line at a time, with
//! re2c's longest-match, first-rule tie-breaking.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Mode {
    Initial,
    Value,
    SectionValue,
    Offset,
    DoubleQuotes,
    VarName,
}

/// Token kinds; the names in [`Tk::name`] are bison's, as they appear in PHP's messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Tk {
    End,
    Section,
    Raw,
    Constant,
    Number,
    Str,
    Whitespace,
    Label,
    Offset,
    DollarCurly,
    VarName,
    Quoted,
    True,
    False,
    Null,
    Eol,
    Ch(u8),
}

impl Tk {
    pub(super) fn name(self) -> String {
        match self {
            Tk::End => "end of file".into(),
            Tk::Section => "TC_SECTION".into(),
            Tk::Raw => "TC_RAW".into(),
            Tk::Constant => "TC_CONSTANT".into(),
            Tk::Number => "TC_NUMBER".into(),
            Tk::Str => "TC_STRING".into(),
            Tk::Whitespace => "TC_WHITESPACE".into(),
            Tk::Label => "TC_LABEL".into(),
            Tk::Offset => "TC_OFFSET".into(),
            Tk::DollarCurly => "TC_DOLLAR_CURLY".into(),
            Tk::VarName => "TC_VARNAME".into(),
            Tk::Quoted => "TC_QUOTED_STRING".into(),
            Tk::True => "BOOL_TRUE".into(),
            Tk::False => "BOOL_FALSE".into(),
            Tk::Null => "NULL_NULL".into(),
            Tk::Eol => "END_OF_LINE".into(),
            Tk::Ch(c) => format!("'{}'", c as char),
        }
    }
}

/// A token: the bytes it consumed (`start..end`) and its semantic text (`text`, e.g. a label
/// without blanks, a raw string without quotes), as indices into the line buffer.
#[derive(Clone, Copy, Debug)]
pub(super) struct Tok {
    pub(super) kind: Tk,
    pub(super) start: usize,
    pub(super) end: usize,
    pub(super) text: (usize, usize),
}

/// What a matched rule does (one variant per rule of zend_ini_scanner.l that NORMAL mode uses).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Act {
    SectionOpen,
    Raw,
    SectionClose,
    Offset,
    OffsetClose,
    DollarCurly,
    VarName,
    VarClose,
    True,
    False,
    Null,
    Label,
    Eq,
    ValueEol,
    Constant,
    Number,
    Token,
    Operator,
    EqInValue,
    Str,
    DqOpen,
    DqClose,
    DqContent,
    Whitespace,
    Skip,
    InitialEol,
    Comment,
    ValueAny,
    Any,
}

/// `LABEL` (8.2: `[^=\n\r\t;&|^$~(){}!"\[]+`; `]` is allowed, so `foo] = 1` is the entry `foo]`).
pub(super) fn is_label_char(c: u8) -> bool {
    !matches!(
        c,
        b'=' | b'\n'
            | b'\r'
            | b'\t'
            | b';'
            | b'&'
            | b'|'
            | b'^'
            | b'$'
            | b'~'
            | b'('
            | b')'
            | b'{'
            | b'}'
            | b'!'
            | b'"'
            | b'['
            | 0
    )
}

/// `TOKENS`: characters returned as themselves outside values.
pub(super) fn is_token_char(c: u8) -> bool {
    b":,.[]\"'()&|^+-/*=%$!~<>?@{}".contains(&c)
}

pub(super) fn is_operator(c: u8) -> bool {
    b"&|^~()!".contains(&c)
}

pub(super) const TRUE_WORDS: &[&[u8]] = &[b"true", b"on", b"yes"];
pub(super) const FALSE_WORDS: &[&[u8]] = &[b"false", b"off", b"none", b"no"];
pub(super) const NULL_WORDS: &[&[u8]] = &[b"null"];

/// Keeps the longest candidate; on a tie the earlier rule (offered first) wins, as in re2c.
pub(super) fn offer(best: &mut Option<(usize, Act)>, len: usize, act: Act) {
    if len > 0 && !matches!(best, Some((l, _)) if len <= *l) {
        *best = Some((len, act));
    }
}

pub(super) struct Lexer<'b> {
    pub(super) buf: &'b [u8],
    pub(super) pos: usize,
    pub(super) mode: Mode,
    pub(super) stack: Vec<Mode>,
}

impl<'b> Lexer<'b> {
    pub(super) fn new(buf: &'b [u8]) -> Self {
        Lexer {
            buf,
            pos: 0,
            mode: Mode::Initial,
            stack: Vec::new(),
        }
    }

    /// The byte at `i`, or 0 past the end (the C string's terminator, which no rule accepts).
    pub(super) fn at(&self, i: usize) -> u8 {
        self.buf.get(i).copied().unwrap_or(0)
    }

    pub(super) fn ts(&self, i: usize) -> usize {
        self.buf.get(i..).map_or(0, |r| {
            r.iter().take_while(|&&c| c == b' ' || c == b'\t').count()
        })
    }

    pub(super) fn newline(&self, i: usize) -> usize {
        match (self.at(i), self.at(i + 1)) {
            (b'\r', b'\n') => 2,
            (b'\r', _) | (b'\n', _) => 1,
            _ => 0,
        }
    }

    pub(super) fn run(&self, i: usize, f: impl Fn(u8) -> bool) -> usize {
        self.buf
            .get(i..)
            .map_or(0, |r| r.iter().take_while(|&&c| f(c)).count())
    }

    pub(super) fn label(&self, i: usize) -> usize {
        self.run(i, is_label_char)
    }

    /// `("true"|"on"|"yes"){TABS_AND_SPACES}*` and friends; PHP builds the scanner with
    /// `re2c --case-inverted`, so these words match in any case (`YES`, `Off`).
    pub(super) fn word(&self, i: usize, words: &[&[u8]]) -> usize {
        let rest = self.buf.get(i..).unwrap_or_default();
        words
            .iter()
            .filter(|w| rest.len() >= w.len() && rest[..w.len()].eq_ignore_ascii_case(w))
            .map(|w| w.len() + self.ts(i + w.len()))
            .max()
            .unwrap_or(0)
    }

    pub(super) fn constant(&self, i: usize) -> usize {
        let c = self.at(i);
        if c.is_ascii_alphabetic() || c == b'_' {
            1 + self.run(i + 1, |c| c.is_ascii_alphanumeric() || c == b'_')
        } else {
            0
        }
    }

    /// `NUMBER ([-]?{LNUM})|([-]?{DNUM})`.
    pub(super) fn number(&self, i: usize) -> usize {
        let sign = usize::from(self.at(i) == b'-');
        let j = i + sign;
        let int = self.run(j, |c| c.is_ascii_digit());
        let dnum = if self.at(j + int) == b'.' {
            let frac = self.run(j + int + 1, |c| c.is_ascii_digit());
            if int + frac > 0 {
                int + 1 + frac
            } else {
                0
            }
        } else {
            0
        };
        let len = int.max(dnum);
        if len == 0 {
            0
        } else {
            sign + len
        }
    }

    /// `LITERAL_DOLLAR ("$"([^{\000]|("\\"{ANY_CHAR})))`: a `$` not starting `${`.
    pub(super) fn literal_dollar(&self, i: usize) -> usize {
        let next = self.at(i + 1);
        if next == b'\\' && i + 2 < self.buf.len() {
            3
        } else if next != b'{' && next != 0 {
            2
        } else {
            0
        }
    }

    /// `{VALUE_CHARS}+`.
    pub(super) fn value_chars(&self, i: usize) -> usize {
        let mut j = i;
        loop {
            let c = self.at(j);
            let n = match c {
                b'$' => self.literal_dollar(j),
                b'=' | b' ' | b'\t' | b'\n' | b'\r' | b';' | b'&' | b'|' | b'^' | b'~' | b'('
                | b')' | b'!' | b'"' | b'\'' | 0 => 0,
                _ => 1,
            };
            if n == 0 {
                return j - i;
            }
            j += n;
        }
    }

    /// `{SECTION_VALUE_CHARS}+`: section names and array keys (backslash escapes any byte).
    pub(super) fn section_chars(&self, i: usize) -> usize {
        let mut j = i;
        loop {
            let c = self.at(j);
            let n = match c {
                b'$' => self.literal_dollar(j),
                b'\\' if j + 1 < self.buf.len() => 2,
                b'\n' | b'\r' | b';' | b'"' | b'\'' | b']' | b'\\' | 0 => 0,
                _ => 1,
            };
            if n == 0 {
                return j - i;
            }
            j += n;
        }
    }

    /// `"'"{SINGLE_QUOTED_CHARS}+"'"`: its length, or `Some(None)` for an unterminated `'`, which
    /// reads past the end (see [`Lexer::reads_past_end`]): php then reports `unexpected end of
    /// file` (verified: `a = 'abc` fails, `a = ab'c` silently keeps `ab`).
    pub(super) fn raw(&self, i: usize) -> Option<Option<usize>> {
        if self.at(i) != b'\'' || self.at(i + 1) == b'\'' {
            return None;
        }
        let close = self.buf.get(i + 1..)?.iter().position(|&c| c == b'\'');
        Some(close.map(|k| k + 2))
    }

    /// `{TABS_AND_SPACES}*[;][^\r\n]*{NEWLINE}` (the newline is required).
    pub(super) fn comment(&self, i: usize) -> usize {
        let t = self.ts(i);
        if self.at(i + t) != b';' {
            return 0;
        }
        let body = self.run(i + t + 1, |c| c != b'\r' && c != b'\n' && c != 0);
        let nl = self.newline(i + t + 1 + body);
        if nl == 0 {
            0
        } else {
            t + 1 + body + nl
        }
    }

    /// A `;` comment cut by a NUL byte: its body class `[^\r\n]` takes the terminator too.
    pub(super) fn comment_runs_off(&self, i: usize) -> bool {
        let t = self.ts(i);
        self.at(i + t) == b';'
            && i + t + 1 + self.run(i + t + 1, |c| c != b'\r' && c != b'\n') >= self.buf.len()
    }

    pub(super) fn tok(&self, kind: Tk, start: usize, end: usize) -> Tok {
        Tok {
            kind,
            start,
            end,
            text: (start, end),
        }
    }

    /// `EAT_LEADING_WHITESPACE` / `EAT_TRAILING_WHITESPACE`: the text of labels and var names.
    pub(super) fn trimmed(&self, mut s: usize, mut e: usize, also: u8) -> (usize, usize) {
        while s < e && matches!(self.at(s), b' ' | b'\t') {
            s += 1;
        }
        while e > s
            && (matches!(self.at(e - 1), b'\n' | b'\r' | b'\t' | b' ') || self.at(e - 1) == also)
        {
            e -= 1;
        }
        (s, e)
    }

    pub(super) fn next(&mut self) -> Tok {
        loop {
            let p = self.pos;
            if p >= self.buf.len() {
                if self.mode == Mode::Value {
                    self.mode = Mode::Initial;
                    return self.tok(Tk::Eol, p, p);
                }
                return self.tok(Tk::End, p, p);
            }
            // "Eat any UTF-8 BOM we find in the first 3 bytes" (of each line buffer).
            if p == 0 && self.buf.len() > 3 && self.buf.starts_with(b"\xEF\xBB\xBF") {
                self.pos = 3;
                continue;
            }
            if self.reads_past_end(p) {
                self.pos = self.buf.len();
                return self.tok(Tk::End, p, self.buf.len());
            }
            let best = match self.mode {
                Mode::Initial => self.match_initial(p),
                Mode::Value => self.match_value(p),
                Mode::SectionValue | Mode::Offset => self.match_section(p),
                Mode::DoubleQuotes => self.match_dq(p),
                Mode::VarName => self.match_varname(p),
            };
            let (len, act) = best.unwrap_or((1, Act::Any));
            if let Some(t) = self.act(p, len, act) {
                return t;
            }
        }
    }

    /// PHP's `YYFILL` makes the scanner return 0 ("end of file") when a rule reads past the end
    /// of the C string. With the `\n` php-fpm appends, that happens to an unterminated `'…`
    /// (`[^']` takes the newline and the terminator); on a line cut by a NUL byte, also to a label
    /// or a `;` comment running into it (`x\0` is ignored, not an entry: verified).
    pub(super) fn reads_past_end(&self, p: usize) -> bool {
        match self.mode {
            Mode::Initial => p + self.label(p) >= self.buf.len() || self.comment_runs_off(p),
            Mode::VarName => p + self.label(p) >= self.buf.len(),
            Mode::Value => self.raw(p) == Some(None) || self.comment_runs_off(p),
            Mode::SectionValue | Mode::Offset => self.raw(p) == Some(None),
            Mode::DoubleQuotes => false,
        }
    }

    pub(super) fn match_initial(&self, p: usize) -> Option<(usize, Act)> {
        let c = self.at(p);
        let mut best = None;
        if c == b'[' {
            offer(&mut best, 1, Act::SectionOpen);
        }
        let l = self.label(p);
        if l > 0 && self.at(p + l) == b'[' {
            offer(&mut best, l + 1 + self.ts(p + l + 1), Act::Offset);
        }
        offer(&mut best, self.word(p, TRUE_WORDS), Act::True);
        offer(&mut best, self.word(p, FALSE_WORDS), Act::False);
        offer(&mut best, self.word(p, NULL_WORDS), Act::Null);
        offer(&mut best, l, Act::Label);
        let t = self.ts(p);
        if self.at(p + t) == b'=' {
            offer(&mut best, t + 1 + self.ts(p + t + 1), Act::Eq);
        }
        if is_token_char(c) {
            offer(&mut best, 1, Act::Token);
        }
        offer(&mut best, t, Act::Skip);
        let nl = self.newline(p + t);
        if nl > 0 {
            offer(&mut best, t + nl, Act::InitialEol);
        }
        offer(&mut best, self.comment(p), Act::Comment);
        best
    }

    pub(super) fn match_value(&self, p: usize) -> Option<(usize, Act)> {
        let c = self.at(p);
        let mut best = None;
        offer(&mut best, self.raw(p).flatten().unwrap_or(0), Act::Raw);
        if c == b'$' && self.at(p + 1) == b'{' {
            offer(&mut best, 2, Act::DollarCurly);
        }
        offer(&mut best, self.word(p, TRUE_WORDS), Act::True);
        offer(&mut best, self.word(p, FALSE_WORDS), Act::False);
        offer(&mut best, self.word(p, NULL_WORDS), Act::Null);
        let t = self.ts(p);
        let nl = self.newline(p + t);
        if nl > 0 {
            offer(&mut best, t + nl, Act::ValueEol);
        }
        offer(&mut best, self.constant(p), Act::Constant);
        offer(&mut best, self.number(p), Act::Number);
        if is_operator(c) {
            offer(&mut best, 1 + self.ts(p + 1), Act::Operator);
        }
        if c == b'=' {
            offer(&mut best, 1, Act::EqInValue);
        }
        offer(&mut best, self.value_chars(p), Act::Str);
        if self.at(p + t) == b'"' {
            offer(&mut best, t + 1, Act::DqOpen);
        }
        offer(&mut best, t, Act::Whitespace);
        offer(&mut best, self.comment(p), Act::Comment);
        offer(&mut best, 1, Act::ValueAny);
        best
    }

    /// Section names (`[…]`) and array keys (`name[…]`) share most rules.
    pub(super) fn match_section(&self, p: usize) -> Option<(usize, Act)> {
        let c = self.at(p);
        let t = self.ts(p);
        let mut best = None;
        offer(&mut best, self.raw(p).flatten().unwrap_or(0), Act::Raw);
        if self.mode == Mode::SectionValue && c == b']' {
            let t2 = self.ts(p + 1);
            offer(
                &mut best,
                1 + t2 + self.newline(p + 1 + t2),
                Act::SectionClose,
            );
        }
        if self.mode == Mode::Offset && self.at(p + t) == b']' {
            offer(&mut best, t + 1, Act::OffsetClose);
        }
        if c == b'$' && self.at(p + 1) == b'{' {
            offer(&mut best, 2, Act::DollarCurly);
        }
        offer(&mut best, self.constant(p), Act::Constant);
        offer(&mut best, self.number(p), Act::Number);
        offer(&mut best, self.section_chars(p), Act::Str);
        if self.at(p + t) == b'"' {
            offer(&mut best, t + 1, Act::DqOpen);
        }
        offer(&mut best, t, Act::Whitespace);
        best
    }

    pub(super) fn match_dq(&self, p: usize) -> Option<(usize, Act)> {
        let mut best = None;
        if self.at(p) == b'$' && self.at(p + 1) == b'{' {
            offer(&mut best, 2, Act::DollarCurly);
        }
        if self.at(p) == b'"' {
            offer(&mut best, 1 + self.ts(p + 1), Act::DqClose);
        }
        offer(&mut best, 1, Act::DqContent);
        best
    }

    pub(super) fn match_varname(&self, p: usize) -> Option<(usize, Act)> {
        let mut best = None;
        offer(&mut best, self.label(p), Act::VarName);
        if self.at(p) == b'}' {
            offer(&mut best, 1, Act::VarClose);
        }
        best
    }

    /// The body of the double-quoted-string rule (PHP 8.2): up to the closing `"` or `${`; `\x`
    /// skips one byte, except that `\"` right before the end of the line closes the string
    /// (`"C:\path\"`).
    pub(super) fn dq_content_end(&self, p: usize) -> usize {
        let lim = self.buf.len();
        let mut s = p;
        while s < lim {
            let c = self.buf[s];
            s += 1;
            match c {
                b'"' => return s - 1,
                b'$' if self.at(s) == b'{' && s < lim => return s - 1,
                b'\\' if s < lim => {
                    let escaped = self.buf[s];
                    s += 1;
                    if escaped == b'"' && (s >= lim || matches!(self.buf[s], b'\n' | b'\r')) {
                        return s - 1;
                    }
                }
                _ => {}
            }
        }
        lim
    }

    pub(super) fn push(&mut self, m: Mode) {
        self.stack.push(self.mode);
        self.mode = m;
    }

    pub(super) fn pop(&mut self) {
        self.mode = self.stack.pop().unwrap_or(Mode::Initial);
    }

    /// Runs a rule's action; `None` means "restart" (whitespace skipped in INITIAL).
    pub(super) fn act(&mut self, p: usize, len: usize, act: Act) -> Option<Tok> {
        let e = p + len;
        self.pos = e;
        let t = match act {
            Act::SectionOpen => {
                self.mode = Mode::SectionValue;
                self.tok(Tk::Section, p, e)
            }
            Act::Raw => Tok {
                text: (p + 1, e - 1),
                ..self.tok(Tk::Raw, p, e)
            },
            Act::SectionClose | Act::OffsetClose => {
                self.mode = Mode::Initial;
                self.tok(Tk::Ch(b']'), p, e)
            }
            Act::Offset => {
                self.mode = Mode::Offset;
                Tok {
                    text: self.trimmed(p, e, b'['),
                    ..self.tok(Tk::Offset, p, e)
                }
            }
            Act::DollarCurly => {
                self.push(Mode::VarName);
                self.tok(Tk::DollarCurly, p, e)
            }
            Act::VarName => Tok {
                text: self.trimmed(p, e, b' '),
                ..self.tok(Tk::VarName, p, e)
            },
            Act::VarClose => {
                self.pop();
                self.tok(Tk::Ch(b'}'), p, e)
            }
            Act::True => self.tok(Tk::True, p, e),
            Act::False => self.tok(Tk::False, p, e),
            Act::Null => self.tok(Tk::Null, p, e),
            Act::Label => Tok {
                text: self.trimmed(p, e, b' '),
                ..self.tok(Tk::Label, p, e)
            },
            Act::Eq => {
                self.mode = Mode::Value;
                self.tok(Tk::Ch(b'='), p, e)
            }
            Act::ValueEol | Act::InitialEol | Act::Comment | Act::ValueAny => {
                self.mode = Mode::Initial;
                self.tok(Tk::Eol, p, e)
            }
            Act::Constant => self.tok(Tk::Constant, p, e),
            Act::Number => self.tok(Tk::Number, p, e),
            Act::Token | Act::Operator => self.tok(Tk::Ch(self.at(p)), p, e),
            Act::EqInValue => {
                // `yyless(0)`: the `=` is scanned again in INITIAL, where it is a syntax error.
                self.pos = p;
                self.mode = Mode::Initial;
                self.tok(Tk::Eol, p, p)
            }
            Act::Str => self.tok(Tk::Str, p, e),
            Act::DqOpen => {
                self.push(Mode::DoubleQuotes);
                self.tok(Tk::Ch(b'"'), p, e)
            }
            Act::DqClose => {
                self.pop();
                self.tok(Tk::Ch(b'"'), p, e)
            }
            Act::DqContent => {
                let end = self.dq_content_end(p);
                self.pos = end;
                self.tok(Tk::Quoted, p, end)
            }
            Act::Whitespace => self.tok(Tk::Whitespace, p, e),
            Act::Skip => return None,
            Act::Any => {
                // `<*>[^] { return 0; }`: the parser sees the end of input.
                self.pos = self.buf.len();
                self.tok(Tk::End, p, self.buf.len())
            }
        };
        Some(t)
    }
}
