//! Differential test: the nginx parser against the real nginx.
//!
//! Every case of `fixtures/parser/nginx/*.conf`, plus generated ones (long tokens around the
//! 4096-byte buffer limit, and Lua blocks whose fate depends on where that buffer ends), is
//! run through `nginx -t`. The case is the file `case.conf`, included from a main
//! `nginx.conf` that only sets `pid` and `error_log` inside the temporary prefix (and loads
//! lua-nginx-module for cases with a `*_by_lua_block`). An included file is read with its
//! own buffer and line count, exactly as a main file, so nginx's line numbers are the case's.
//! (Temp paths are left at their defaults: they are `http{}` directives, and `-t` creates
//! them only after the whole file has been read, so they cannot change a verdict here.)
//!
//! [`TABLE`] says what nginx does with each case; the test first checks that nginx still
//! does that, then that the parser agrees:
//!
//! * nginx stops at a syntax error (`unexpected "…"`, `unexpected end of file, …`,
//!   `too long parameter …`, lua-nginx-module's own, and `directive "…" is not terminated
//!   by ";"` / `has no opening "{"`): our first error has the same message, on the same line;
//! * nginx reads the whole file (accepted, or failed with an error that has no file:line such
//!   as `no "events" section`): we report no syntax error;
//! * nginx stops at another error (`unknown directive`, `invalid number of arguments`, …) on
//!   line L: we report no syntax error before line L.
//!
//! "Line" is the line nginx prints: our true line minus `Parsed::nginx_line_shift` (non-zero
//! only after a Lua block that made nginx lose count, see `lua_line_drift`). Messages are
//! compared as text (see [`same_message`] for the one place where nginx prints a partial
//! UTF-8 character).
//!
//! A second test, [`random_cases_agree_with_nginx`], applies the same rules to seeded random
//! cases built from the tokenizer's special bytes.
//!
//! Without nginx the tests are skipped with a note, or fail when `CI=true`; the same for the
//! Lua cases without lua-nginx-module (Debian: `libnginx-mod-http-lua`). nginx runs as the
//! current user: verdicts were taken as root (as non-root, `-t` may fail at the end opening
//! default log files, which only shows as a TABLE mismatch). Verified with nginx 1.22.1
//! (Debian nginx-light 1.22.1-9+deb12u11) and lua-nginx-module 0.10.23.

mod common;
use common::Rng;

use lemplint::source::SourceFile;
use lemplint::syntax::nginx::parse;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::Command;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Expect {
    /// `nginx -t` succeeds.
    Accepted,
    /// nginx reads the whole file, then fails with an error that has no file:line.
    Global(&'static str),
    /// nginx stops at this syntax error, on this line.
    Syntax(&'static str, u32),
    /// nginx stops at this other (not syntax) error, on this line.
    Other(&'static str, u32),
}
use Expect::*;

const EOF_SEMI: &str = "unexpected end of file, expecting \";\" or \"}\"";
const EOF_BRACE: &str = "unexpected end of file, expecting \"}\"";
const NO_EVENTS: &str = "no \"events\" section in configuration";
const TOO_LONG_A: &str = "too long parameter \"aaaaaaaaaa...\" started";
const TOO_LONG_DQ: &str = "too long parameter, probably missing terminating \"\"\" character";
const LUA_EOF: &str = "unexpected end of file, expecting terminating characters for lua code block";
const LUA_TOO_LONG: &str = "too long lua code block, probably missing terminating characters";
const LUA_NO_BRACKET: &str =
    "Lua code block missing the closing long bracket \"]]\", the inlined Lua code may be too long";

/// What nginx 1.22.1 does with each case (fixture file stem, or generated name).
#[rustfmt::skip]
const TABLE: &[(&str, Expect)] = &[
    ("backslash_at_eof",               Syntax(EOF_SEMI, 2)),
    ("block_directive_semicolon",      Syntax("directive \"if\" has no opening \"{\"", 6)),
    ("bom_at_file_start",              Other("unknown directive \"\u{feff}#\"", 1)),
    ("charset_map_block",              Accepted),
    ("charset_map_nested_brace",       Syntax("unexpected \"{\"", 5)),
    ("close_brace_mid_word",           Global(NO_EVENTS)),
    ("comment_after_semicolon",        Accepted),
    ("comment_at_eof_in_directive",    Syntax(EOF_SEMI, 3)),
    ("crlf",                           Accepted),
    ("empty_quotes",                   Global(NO_EVENTS)),
    ("escape_at_token_start",          Global(NO_EVENTS)),
    ("escaped_space_semicolon",        Global(NO_EVENTS)),
    ("escapes_quoted",                 Global(NO_EVENTS)),
    ("escapes_single_quoted",          Global(NO_EVENTS)),
    ("escapes_tab_newline",            Global(NO_EVENTS)),
    ("geo_block",                      Accepted),
    ("geo_nested_brace",               Syntax("unexpected \"{\"", 5)),
    ("hash_mid_word",                  Global(NO_EVENTS)),
    ("if_paren_after_quote",           Accepted),
    ("line_numbers_in_quotes",         Syntax("unexpected \"x\"", 4)),
    ("lone_semicolon",                 Syntax("unexpected \";\"", 2)),
    ("lua_block_braces",               Accepted),
    ("lua_block_eof",                  Syntax(LUA_EOF, 9)),
    ("lua_block_unbalanced",           Syntax(EOF_BRACE, 13)),
    ("lua_long_bracket_unclosed",      Syntax("Lua code block missing the closing long bracket \"]==]\", the inlined Lua code may be too long", 8)),
    ("lua_set_by_lua_block",           Accepted),
    ("lua_string_backslash_newline",   Syntax(EOF_SEMI, 14)),
    ("map_block",                      Accepted),
    ("map_nested_brace",               Syntax("unexpected \"{\"", 5)),
    ("missing_close_brace",            Syntax(EOF_BRACE, 4)),
    ("missing_semicolon_before_brace", Syntax("unexpected \"}\"", 4)),
    ("multiline_arguments",            Accepted),
    ("nested_missing_close",           Syntax(EOF_BRACE, 7)),
    ("no_final_newline",               Accepted),
    ("no_final_newline_unterminated",  Syntax(EOF_SEMI, 3)),
    ("no_space_blocks",                Accepted),
    ("no_space_close_in_word",         Syntax(EOF_SEMI, 3)),
    // nginx prints one byte, 0xC3 (shown here as U+FFFD); we print the whole "é".
    ("non_ascii_after_quote",          Syntax("unexpected \"\u{FFFD}\"", 2)),
    ("open_brace_without_name",        Syntax("unexpected \"{\"", 2)),
    ("quote_at_eof",                   Syntax(EOF_SEMI, 2)),
    ("quote_mid_word",                 Global(NO_EVENTS)),
    ("quote_then_hash",                Syntax("unexpected \"#\"", 2)),
    ("quote_then_letters",             Syntax("unexpected \"d\"", 2)),
    ("quote_then_paren_word",          Other("invalid number of arguments in \"env\" directive", 2)),
    ("regex_brace_quoted",             Accepted),
    ("regex_brace_unquoted",           Other("unknown directive \"2}$\"", 6)),
    ("return_quote_brace",             Syntax("unexpected \"}\"", 7)),
    ("server_semicolon_main",          Other("\"server\" directive is not allowed here", 2)),
    ("several_errors",                 Syntax("unexpected \"b\"", 2)),
    ("simple_directive_brace_regex",   Syntax("directive \"rewrite\" is not terminated by \";\"", 6)),
    ("simple_directive_brace_template", Syntax("directive \"server_name\" is not terminated by \";\"", 6)),
    ("simple_directive_missing_semicolon", Syntax("directive \"root\" is not terminated by \";\"", 7)),
    ("specials_in_quotes",             Global(NO_EVENTS)),
    ("split_clients_block",            Accepted),
    ("split_clients_nested_brace",     Syntax("unexpected \"{\"", 5)),
    ("stray_close_brace",              Syntax("unexpected \"}\"", 3)),
    ("types_block",                    Accepted),
    ("types_nested_brace",             Syntax("unexpected \"{\"", 5)),
    ("unterminated_quote_eof",         Syntax(EOF_SEMI, 3)),
    ("upstream_server_brace",          Syntax("directive \"server\" is not terminated by \";\"", 5)),
    ("unterminated_single_quote_eof",  Syntax(EOF_SEMI, 4)),
    ("variable_brace",                 Other("unknown directive \"${foo}\"", 2)),
    ("variable_brace_semicolon",       Global(NO_EVENTS)),
    ("vertical_tab_form_feed",         Other("unknown directive \"\u{b}worker_processes\u{c}\"", 2)),
    // Generated (see `generated()`): the same as in tests/nginx_tokenizer.rs ...
    ("empty_file",                     Global(NO_EVENTS)),
    ("long_quoted_5000",               Syntax(TOO_LONG_DQ, 2)),
    ("long_single_quoted_5000",        Syntax("too long parameter, probably missing terminating \"'\" character", 2)),
    ("long_unquoted_5000",             Syntax(TOO_LONG_A, 2)),
    ("long_comment_5000",              Syntax("too long parameter \"#ccccccccc...\" started", 2)),
    // ... and at the limit. A token is too long when nginx must read the byte 4096 bytes
    // after its start while still holding it: through the whitespace that ends a word,
    // through the byte after a closing quote (and the next, if that is whitespace), through
    // the LF that ends a comment.
    ("word_4095_then_space",           Syntax(TOO_LONG_A, 2)),
    ("word_4095_then_semicolon",       Global(NO_EVENTS)),
    ("word_4096_then_semicolon",       Syntax(TOO_LONG_A, 2)),
    ("quoted_4093_then_space",         Global(NO_EVENTS)),
    ("quoted_4094_then_space",         Syntax(TOO_LONG_A, 2)),
    ("quoted_4094_then_semicolon",     Global(NO_EVENTS)),
    ("quoted_4095_then_semicolon",     Syntax(TOO_LONG_A, 2)),
    ("quoted_4096_then_semicolon",     Syntax(TOO_LONG_DQ, 2)),
    ("comment_4095",                   Global(NO_EVENTS)),
    ("comment_4096",                   Syntax("too long parameter \"#ccccccccc...\" started", 2)),
    ("word_4096_at_eof",               Syntax(EOF_SEMI, 2)),
    ("word_4096_then_space_at_eof",    Syntax(TOO_LONG_A, 2)),
    // Whitespace after the word's first one moves `start` byte by byte: runs across the
    // buffer's end are not too long (the lexer reads a run within a buffer at once).
    ("word_4090_then_spaces",          Global(NO_EVENTS)),
    ("spaces_5000",                    Global(NO_EVENTS)),
    ("word_4094_then_blanks",          Global(NO_EVENTS)),
];

/// `lua_string_N_B_I`: a `[[…]]` string of N bytes in a `content_by_lua_block`, after an
/// nginx comment of B bytes and a Lua comment of I bytes. lua-nginx-module looks for the
/// closing bracket only in the current 4096-byte buffer, so the same string passes or fails
/// depending on where it starts. `None`: accepted; `Some(line)`: [`LUA_NO_BRACKET`] there.
#[rustfmt::skip]
const LUA_LONG_STRINGS: &[(usize, usize, usize, Option<u32>)] = &[
    (1500, 0, 0, None), (1500, 0, 1500, None), (1500, 1000, 0, None),
    (1500, 1000, 1500, None), (1500, 3000, 0, None), (1500, 3000, 1500, None),
    (2500, 0, 0, None), (2500, 0, 1500, Some(9)), (2500, 1000, 0, None),
    (2500, 1000, 1500, None), (2500, 3000, 0, None), (2500, 3000, 1500, None),
    (3000, 0, 0, None), (3000, 0, 1500, Some(9)), (3000, 1000, 0, Some(9)),
    (3000, 1000, 1500, None), (3000, 3000, 0, None), (3000, 3000, 1500, Some(10)),
    (4000, 0, 0, Some(8)), (4000, 0, 1500, Some(9)), (4000, 1000, 0, Some(9)),
    (4000, 1000, 1500, None), (4000, 3000, 0, None), (4000, 3000, 1500, Some(10)),
    (5000, 0, 0, Some(8)), (5000, 0, 1500, Some(9)), (5000, 1000, 0, Some(9)),
    (5000, 1000, 1500, Some(10)), (5000, 3000, 0, Some(9)), (5000, 3000, 1500, Some(10)),
];

/// `lua_plain_N_B`: N bytes of Lua without a single token of the Lua lexer (no brace, quote,
/// comment or bracket) after an nginx comment of B bytes, then 3000 more bytes of file.
/// `None`: accepted; `Some(line)`: [`LUA_TOO_LONG`] there.
#[rustfmt::skip]
const LUA_PLAIN: &[(usize, usize, Option<u32>)] = &[
    (2100, 0, None), (2100, 1000, None), (2100, 3000, None),
    (3000, 0, None), (3000, 1000, Some(8)), (3000, 3000, None),
    (3500, 0, None), (3500, 1000, Some(8)), (3500, 3000, None),
    (4000, 0, Some(7)), (4000, 1000, Some(8)), (4000, 3000, None),
    (6000, 0, Some(7)), (6000, 1000, Some(8)), (6000, 3000, Some(8)),
];

fn rep(b: u8, n: usize) -> Vec<u8> {
    vec![b; n]
}

fn cat(parts: &[&[u8]]) -> Vec<u8> {
    parts.concat()
}

fn with_header(what: &str, body: Vec<u8>) -> Vec<u8> {
    cat(&[format!("# generated: {what}\n").as_bytes(), &body])
}

/// A case around the 4096-byte word buffer: (name, text before, filler byte, how many of it,
/// text after).
type BufferEdge = (&'static str, &'static [u8], u8, usize, &'static [u8]);

/// The generated cases (the first five are also snapshotted by tests/nginx_tokenizer.rs).
fn generated() -> Vec<(String, Vec<u8>)> {
    let a = |n| rep(b'a', n);
    let mut out: Vec<(String, Vec<u8>)> = vec![
        ("empty_file".into(), Vec::new()),
        (
            "long_quoted_5000".into(),
            with_header(
                "a 5000-byte double-quoted word",
                cat(&[b"env \"", &a(5000), b"\";\n"]),
            ),
        ),
        (
            "long_single_quoted_5000".into(),
            with_header(
                "a 5000-byte single-quoted word",
                cat(&[b"env '", &a(5000), b"';\n"]),
            ),
        ),
        (
            "long_unquoted_5000".into(),
            with_header(
                "a 5000-byte unquoted word",
                cat(&[b"env ", &a(5000), b";\n"]),
            ),
        ),
        (
            "long_comment_5000".into(),
            with_header(
                "a 5000-byte comment",
                cat(&[b"#", &rep(b'c', 4999), b"\nenv a;\n"]),
            ),
        ),
    ];
    #[rustfmt::skip]
    let edges: &[BufferEdge] = &[
        ("word_4095_then_space", b"env ", b'a', 4095, b" ;\n"),
        ("word_4095_then_semicolon", b"env ", b'a', 4095, b";\n"),
        ("word_4096_then_semicolon", b"env ", b'a', 4096, b";\n"),
        ("quoted_4093_then_space", b"env \"", b'a', 4093, b"\" ;\n"),
        ("quoted_4094_then_space", b"env \"", b'a', 4094, b"\" ;\n"),
        ("quoted_4094_then_semicolon", b"env \"", b'a', 4094, b"\";\n"),
        ("quoted_4095_then_semicolon", b"env \"", b'a', 4095, b"\";\n"),
        ("quoted_4096_then_semicolon", b"env \"", b'a', 4096, b"\";\n"),
        ("comment_4095", b"#", b'c', 4094, b"\nenv a;\n"),
        ("comment_4096", b"#", b'c', 4095, b"\nenv a;\n"),
        ("word_4096_at_eof", b"env ", b'a', 4096, b""),
        ("word_4096_then_space_at_eof", b"env ", b'a', 4096, b" "),
        ("word_4090_then_spaces", b"env ", b'a', 4090, b"          ;\n"),
        ("spaces_5000", b"env", b' ', 5000, b"a;\n"),
        ("word_4094_then_blanks", b"env ", b'a', 4094, b"    \t  \n  ;\n"),
    ];
    for &(name, before, fill, n, after) in edges {
        let body = cat(&[before, &rep(fill, n), after]);
        out.push((name.to_string(), with_header(name, body)));
    }
    out
}

/// A `content_by_lua_block` after an nginx comment of `pad_before` bytes, starting with a
/// Lua comment of `pad_in` bytes, holding `lua`, followed by `tail`.
fn lua_case(pad_before: usize, pad_in: usize, lua: &[u8], tail: &[u8]) -> Vec<u8> {
    let mut s = b"# generated\n".to_vec();
    if pad_before > 0 {
        s.extend(cat(&[b"#", &rep(b'p', pad_before - 1), b"\n"]));
    }
    s.extend_from_slice(
        b"events {}\nhttp {\n    server {\n        listen 127.0.0.1:18080;\n        location / {\n            content_by_lua_block {\n",
    );
    if pad_in > 0 {
        s.extend(cat(&[b"                --", &rep(b'p', pad_in - 2), b"\n"]));
    }
    s.extend_from_slice(lua);
    s.extend_from_slice(b"            }\n        }\n    }\n}\n");
    s.extend_from_slice(tail);
    s
}

/// The Lua buffer cases, with what nginx does with them.
fn lua_generated() -> Vec<(String, Vec<u8>, Expect)> {
    let mut out = Vec::new();
    for &(n, before, inside, line) in LUA_LONG_STRINGS {
        let lua = cat(&[
            b"                local s = [[",
            &rep(b'x', n),
            b"]]\n                ngx.say(s)\n",
        ]);
        let expect = line.map_or(Accepted, |l| Syntax(LUA_NO_BRACKET, l));
        out.push((
            format!("lua_string_{n}_{before}_{inside}"),
            lua_case(before, inside, &lua, b""),
            expect,
        ));
    }
    for &(n, before, line) in LUA_PLAIN {
        let stmt: &[u8] = b"                local x = 1 + 2 * 3\n";
        let lua = stmt.repeat(n / stmt.len() + 1);
        let tail = cat(&[b"#", &rep(b'q', 3000), b"\n"]);
        let expect = line.map_or(Accepted, |l| Syntax(LUA_TOO_LONG, l));
        out.push((
            format!("lua_plain_{n}_{before}"),
            lua_case(before, 0, &lua, &tail),
            expect,
        ));
    }
    // The Lua reader skips a stretch without counting its LFs (the buffer held no token, and
    // the file ends within the next buffer, so it is not "too long"): nginx reports the
    // missing `}` at the end of the file, line 149, as line 15.
    let stmt: &[u8] = b"                x = 1\n";
    let mut src = lua_case(1024, 0, &stmt.repeat(3000 / stmt.len() + 1), b"");
    src.truncate(src.len() - 2);
    out.push(("lua_line_drift".into(), src, Syntax(EOF_BRACE, 15)));
    out
}

/// What nginx said: its first `[emerg]`, or success.
#[derive(Debug, PartialEq, Eq)]
enum Verdict {
    Accepted,
    /// The raw message, and the line when it is in the case file.
    Failed(Vec<u8>, Option<u32>),
}

struct Nginx {
    bin: PathBuf,
}

impl Nginx {
    fn find() -> Option<Nginx> {
        let bin = common::nginx_binary()?;
        Some(Nginx { bin })
    }

    /// From the tests' own copy (`scripts/nginx-modules.sh`), else the machine's.
    fn lua_modules(&self) -> Option<[PathBuf; 2]> {
        Some([
            common::nginx_module(&self.bin, "ndk_http_module.so")?,
            common::nginx_module(&self.bin, "ngx_http_lua_module.so")?,
        ])
    }

    fn run(&self, case: &[u8], lua: bool) -> Verdict {
        let dir = tempfile::tempdir().unwrap();
        let prefix = dir.path();
        let case_path = prefix.join("case.conf");
        std::fs::write(&case_path, case).unwrap();
        let mut main = String::new();
        if lua {
            for m in self.lua_modules().unwrap() {
                writeln!(main, "load_module {};", m.display()).unwrap();
            }
        }
        writeln!(main, "pid {}/nginx.pid;", prefix.display()).unwrap();
        writeln!(main, "error_log {}/error.log;", prefix.display()).unwrap();
        writeln!(main, "include {};", case_path.display()).unwrap();
        std::fs::write(prefix.join("nginx.conf"), main).unwrap();
        let out = common::lua_env(&mut Command::new(&self.bin))
            .arg("-t")
            .arg("-p")
            .arg(format!("{}/", prefix.display()))
            .args(["-c", "nginx.conf", "-e", "stderr"])
            .output()
            .unwrap();
        if out.status.success() {
            return Verdict::Accepted;
        }
        // The first error: `2026/01/01 00:00:00 [emerg] PID#TID: MESSAGE[ in FILE:LINE]`. The
        // message quotes a token, which may hold an LF: it ends where nginx's summary starts.
        let stderr = out.stderr;
        let at = ["[emerg] ", "[crit] ", "[error] "]
            .iter()
            .filter_map(|tag| find(&stderr, tag.as_bytes()).map(|p| p + tag.len()))
            .min()
            .unwrap_or_else(|| panic!("nginx failed without an error: {}", lossy(&stderr)));
        let rest = &stderr[at..];
        let rest = &rest[find(rest, b": ").unwrap() + 2..];
        let end = find(rest, b"\nnginx: configuration file").unwrap_or(rest.len());
        let msg = rest[..end].strip_suffix(b"\n").unwrap_or(&rest[..end]);
        let suffix = format!(" in {}:", case_path.display()).into_bytes();
        if let Some(p) = msg.windows(suffix.len()).rposition(|w| w == suffix) {
            let n = std::str::from_utf8(&msg[p + suffix.len()..]).unwrap();
            return Verdict::Failed(msg[..p].to_vec(), Some(n.trim().parse().unwrap()));
        }
        let main_conf = format!("{}/nginx.conf:", prefix.display());
        assert!(
            find(msg, main_conf.as_bytes()).is_none(),
            "the test harness's own nginx.conf failed: {}",
            lossy(&stderr)
        );
        Verdict::Failed(msg.to_vec(), None)
    }
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

fn lossy(b: &[u8]) -> std::borrow::Cow<'_, str> {
    String::from_utf8_lossy(b)
}

/// Whether `expect` describes `got`.
fn matches(expect: Expect, got: &Verdict) -> bool {
    let same = |m: &str, raw: &[u8]| String::from_utf8_lossy(raw) == m;
    match (expect, got) {
        (Accepted, Verdict::Accepted) => true,
        (Global(m), Verdict::Failed(raw, None)) => same(m, raw),
        (Syntax(m, l), Verdict::Failed(raw, Some(g)))
        | (Other(m, l), Verdict::Failed(raw, Some(g))) => same(m, raw) && l == *g,
        _ => false,
    }
}

/// Errors the parser reports itself, and must report as nginx does: the tokenizer's and the
/// block structure's, and (from `ngx_conf_handler`) a directive ended by the wrong one of
/// `;` and `{` (the parser's table in `known.rs` must cover every name that can come up
/// here, in the fixtures and in [`random_case`]'s words).
fn is_syntax_message(msg: &[u8]) -> bool {
    let terminator = msg.starts_with(b"directive \"")
        && (msg.ends_with(b"\" is not terminated by \";\"")
            || msg.ends_with(b"\" has no opening \"{\""));
    terminator
        || [
            &b"unexpected \""[..],
            b"unexpected end of file, expecting ",
            b"too long parameter",
            b"too long lua code block",
            b"Lua code block missing the closing long bracket",
        ]
        .iter()
        .any(|p| msg.starts_with(p))
}

/// Our message against nginx's bytes. Messages are text, so where nginx prints part of a UTF-8
/// character we differ: in `too long parameter "%*s..."` (10 bytes, which may cut a
/// character) we print U+FFFD for the cut character; for `unexpected "%c"` (one byte) we print
/// the whole character that starts with that byte.
fn same_message(ours: &str, nginx: &[u8]) -> bool {
    if ours.as_bytes() == nginx || ours == lossy(nginx) {
        return true;
    }
    let strip = |s: &[u8]| -> Option<Vec<u8>> {
        s.strip_prefix(b"unexpected \"")?
            .strip_suffix(b"\"")
            .map(<[u8]>::to_vec)
    };
    match (strip(ours.as_bytes()), strip(nginx)) {
        (Some(o), Some(n)) => n.len() == 1 && n[0] >= 0x80 && o.first() == n.first(),
        _ => false,
    }
}

/// Compares our parse of `src` with nginx's verdict; `Err` explains a disagreement.
fn compare(src: &[u8], nginx: &Verdict) -> Result<(), String> {
    let file = SourceFile::new("case.conf", src.to_vec());
    let parsed = parse(src);
    // The line nginx would print (see `Parsed::nginx_line_shift`).
    let ours = parsed.errors.first().map(|e| {
        let at = e.span.start;
        (
            e.message.clone(),
            file.line_of(at) - parsed.nginx_line_shift(at),
        )
    });
    let show = |o: &Option<(String, u32)>| match o {
        Some((m, l)) => format!("{m} (line {l})"),
        None => "no error".to_string(),
    };
    match nginx {
        Verdict::Failed(msg, Some(line)) if is_syntax_message(msg) => match &ours {
            Some((m, l)) if same_message(m, msg) && l == line => Ok(()),
            _ => Err(format!(
                "nginx: {} (line {line}); we: {}",
                String::from_utf8_lossy(msg),
                show(&ours)
            )),
        },
        Verdict::Failed(msg, Some(line)) => match &ours {
            Some((_, l)) if l < line => Err(format!(
                "nginx got to line {line} ({}); we: {}",
                String::from_utf8_lossy(msg),
                show(&ours)
            )),
            _ => Ok(()),
        },
        Verdict::Accepted | Verdict::Failed(_, None) => match &ours {
            Some(_) => Err(format!("nginx read the whole file; we: {}", show(&ours))),
            None => Ok(()),
        },
    }
}

/// Cases where nginx stopped at an error on a line of the case, and how many of those our
/// first error names exactly (same message, same line): a measure of agreement beyond what
/// [`compare`] requires, printed by the tests.
#[derive(Default)]
struct Exact {
    located: usize,
    same: usize,
}

impl Exact {
    fn add(&mut self, src: &[u8], nginx: &Verdict) {
        let Verdict::Failed(msg, Some(line)) = nginx else {
            return;
        };
        self.located += 1;
        let file = SourceFile::new("case.conf", src.to_vec());
        let parsed = parse(src);
        if let Some(e) = parsed.errors.first() {
            let at = e.span.start;
            let l = file.line_of(at) - parsed.nginx_line_shift(at);
            if l == *line && same_message(&e.message, msg) {
                self.same += 1;
            }
        }
    }
}

impl std::fmt::Display for Exact {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} of the {} where nginx stops at an error on a line of the case have our first \
             error on that line, in nginx's words",
            self.same, self.located
        )
    }
}

fn missing(what: &str) -> bool {
    if std::env::var("CI").as_deref() == Ok("true") {
        panic!("{what} is required on CI (CI=true) for tests/nginx_binary.rs");
    }
    eprintln!("note: {what} not found; skipping (set CI=true to make this an error)");
    false
}

#[test]
fn parser_agrees_with_nginx() {
    let Some(nginx) = Nginx::find() else {
        missing("nginx (/usr/sbin/nginx, PATH, or $LEMPLINT_NGINX)");
        return;
    };
    let has_lua = nginx.lua_modules().is_some()
        || missing("lua-nginx-module (ndk_http_module.so + ngx_http_lua_module.so: scripts/nginx-modules.sh)");

    // Every fixture and generated case has a row in TABLE, and every row a case.
    let mut cases: Vec<(String, Vec<u8>, Expect)> = Vec::new();
    let mut unlisted = Vec::new();
    let plain = common::parser_fixtures("nginx")
        .into_iter()
        .chain(generated());
    for (name, src) in plain {
        match TABLE.iter().find(|(n, _)| *n == name) {
            Some(&(_, e)) => cases.push((name, src, e)),
            None => unlisted.push(name),
        }
    }
    let stale: Vec<_> = TABLE
        .iter()
        .filter(|(n, _)| !cases.iter().any(|(c, _, _)| c == n))
        .map(|(n, _)| *n)
        .collect();
    assert!(
        unlisted.is_empty() && stale.is_empty(),
        "TABLE is out of date: no row for {unlisted:?}; no case for {stale:?}"
    );
    cases.extend(lua_generated());

    let mut report = String::new();
    let mut run = 0;
    let mut exact = Exact::default();
    for (name, src, expect) in &cases {
        let lua = src.windows(13).any(|w| w == b"_by_lua_block");
        if lua && !has_lua {
            continue;
        }
        run += 1;
        let verdict = nginx.run(src, lua);
        if !matches(*expect, &verdict) {
            writeln!(
                report,
                "{name}: TABLE says {expect:?}, nginx now says {}",
                match &verdict {
                    Verdict::Accepted => "accepted".to_string(),
                    Verdict::Failed(m, l) => format!("{:?} at {l:?}", String::from_utf8_lossy(m)),
                }
            )
            .unwrap();
        }
        if let Err(why) = compare(src, &verdict) {
            writeln!(report, "{name}: parser disagrees with nginx: {why}").unwrap();
        }
        exact.add(src, &verdict);
    }
    assert!(report.is_empty(), "{report}");
    eprintln!("{run} cases agree with {}; {exact}", nginx.bin.display());
}

#[derive(Clone, Copy, Debug)]
enum Mode {
    /// Random bytes at the top level (after an optional `events {}`).
    Main,
    /// Random bytes inside `types {}`, where any line of words is accepted: the tokenizer and
    /// the block structure are all that nginx checks.
    Types,
    /// Random Lua-ish bytes in a `content_by_lua_block`.
    Lua,
}

/// A random case: fragments chosen for the tokenizer's special bytes, sometimes a run of
/// bytes long enough to reach the 4096-byte buffer, after a comment that moves where the
/// buffer ends.
fn random_case(rng: &mut Rng, mode: Mode) -> Vec<u8> {
    const NGINX: &[&str] = &[
        " ", " ", "\n", "\t", "\r", ";", ";", "{", "}", "\"", "'", "\\", "$", "#", ")", "(", "a",
        "bc", "x", "${", "\\\"", "\x0b", "é", "\\\n",
    ];
    const MAIN: &[&str] = &["events", "http", "env ", "env", "server", "types"];
    const LUA: &[&str] = &[
        " ", "\n", "{", "}", "\"", "'", "[", "]", "=", "-", "--", "[[", "]]", "[=[", "]=]", "\\",
        "x", "y ", "--[[", "\\\n",
    ];
    const LONG: &[usize] = &[
        2040, 2047, 2048, 2049, 4090, 4093, 4094, 4095, 4096, 4097, 4100,
    ];
    let body = |rng: &mut Rng, atoms: &[&[&str]], n: usize| {
        let mut s = String::new();
        for _ in 0..n {
            if rng.below(100) == 0 {
                let run = rng.pick(&["a", "c", "x ", "a\n"]);
                s.push_str(&run.repeat(*rng.pick(LONG)));
            } else {
                let set = atoms[rng.below(atoms.len())];
                let word: &str = rng.pick::<&str>(set);
                s.push_str(word);
            }
        }
        s
    };
    let pad = |rng: &mut Rng, sizes: &[usize]| format!("#{}\n", "p".repeat(*rng.pick(sizes)));
    let s = match mode {
        Mode::Main => {
            let pad = pad(rng, &[0, 100, 2000, 3000, 4000]);
            let events = rng.pick(&["", "events {}\n"]);
            let n = 1 + rng.below(30);
            format!("{pad}{events}{}", body(rng, &[NGINX, MAIN], n))
        }
        Mode::Types => {
            let pad = pad(rng, &[0, 100, 2000, 3000, 4000]);
            let n = 1 + rng.below(40);
            format!(
                "{pad}events {{}}\nhttp {{\n types {{\n{}\n}}\n}}\n",
                body(rng, &[NGINX], n)
            )
        }
        Mode::Lua => {
            let pad = pad(rng, &[0, 1000, 2000, 3000, 3500, 4000]);
            let n = 1 + rng.below(60);
            let lua = body(rng, &[LUA], n);
            let tail = rng
                .pick(&["", "#tail\n"])
                .replace("tail", &"q".repeat(3000));
            format!(
                "{pad}events {{}}\nhttp {{\n server {{\n  location / {{\n   \
                 content_by_lua_block {{{lua}\n}}\n}}\n}}\n}}\n{tail}"
            )
        }
    };
    let mut b = s.into_bytes();
    if rng.below(5) == 0 && b.last() == Some(&b'\n') {
        b.pop();
    }
    b
}

/// Random cases (see [`random_case`]) must agree with nginx as the fixtures do. 200 per mode by
/// default; `LEMPLINT_NGINX_RANDOM=COUNT[:SEED]` runs more or others (seeds 7, 8 and 20 to 27
/// with 2500 to 3000 per mode, about 90,000 cases, passed when this test was written).
#[test]
fn random_cases_agree_with_nginx() {
    let Some(nginx) = Nginx::find() else {
        missing("nginx (/usr/sbin/nginx, PATH, or $LEMPLINT_NGINX)");
        return;
    };
    let has_lua = nginx.lua_modules().is_some()
        || missing("lua-nginx-module (ndk_http_module.so + ngx_http_lua_module.so: scripts/nginx-modules.sh)");
    let setting = std::env::var("LEMPLINT_NGINX_RANDOM").unwrap_or_default();
    let mut parts = setting.split(':');
    let count: usize = parts.next().and_then(|c| c.parse().ok()).unwrap_or(200);
    let seed: u64 = parts.next().and_then(|s| s.parse().ok()).unwrap_or(1);
    let mut report = String::new();
    let mut exact = Exact::default();
    let mut run = 0;
    for mode in [Mode::Main, Mode::Types, Mode::Lua] {
        if matches!(mode, Mode::Lua) && !has_lua {
            continue;
        }
        let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
        for i in 0..count {
            let src = random_case(&mut rng, mode);
            let verdict = nginx.run(&src, matches!(mode, Mode::Lua));
            if let Err(why) = compare(&src, &verdict) {
                writeln!(report, "{mode:?} #{i}: {why}\n    case: {:?}", lossy(&src)).unwrap();
            }
            exact.add(&src, &verdict);
            run += 1;
        }
    }
    assert!(report.is_empty(), "seed {seed}:\n{report}");
    eprintln!("{run} random cases (seed {seed}) agree with nginx; {exact}");
}
