//! Configuration templates: files a deployment renders (Jinja, Go templates, ERB, Twig,
//! Mustache) before any server reads them. Discovery and the include loader leave them out
//! and list them, rather than lint placeholders as configuration.

/// Whether a file holds placeholders of the template engines that render configuration at
/// deployment, outside comments (`#`, or a line starting with `;` in php-fpm's INI): `{{ name }}` / `{{.Name}}` (Go, Jinja, Twig, Mustache), `{% tag … %}`
/// (Jinja, Twig), `<%= … %>` (ERB), `%%NAME%%` (nginx's own test suite), `{name}` outside
/// quotes (VVV). Such a file is not configuration until rendered: linting
/// it would report the placeholders, and judging its values would judge the template's.
pub fn is_template(text: &[u8]) -> bool {
    fn placeholder(code: &[u8], open: &[u8], close: &[u8], first: fn(u8) -> bool) -> bool {
        let mut at = 0;
        while let Some(i) = code[at..].windows(open.len()).position(|w| w == open) {
            let start = at + i + open.len();
            let inner = &code[start..];
            let name = inner.iter().position(|&b| b != b' ' && b != b'-');
            if let Some(n) = name {
                if first(inner[n]) && inner.windows(close.len()).any(|w| w == close) {
                    return true;
                }
            }
            at = start;
        }
        false
    }
    /// `{name}` outside quotes (VVV's `server_name {vvv_hosts};`): nginx has no such syntax
    /// (an unquoted `{` opens a block), unlike `${name}`, a regex's `\p{L}` or `x{2}`.
    fn single_brace(code: &[u8]) -> bool {
        let mut quote = None;
        let mut i = 0;
        while i < code.len() {
            let b = code[i];
            match quote {
                Some(q) if b == q => quote = None,
                Some(_) if b == b'\\' => i += 1,
                Some(_) => {}
                None if b == b'"' || b == b'\'' => quote = Some(b),
                None if b == b'\\' => i += 1,
                None if b == b'{' => {
                    let after_escape = i >= 2 && code[i - 2] == b'\\';
                    let after_dollar = i >= 1 && code[i - 1] == b'$';
                    let rest = &code[i + 1..];
                    let name = rest
                        .iter()
                        .take_while(|c| c.is_ascii_alphanumeric() || **c == b'_')
                        .count();
                    if !after_escape
                        && !after_dollar
                        && name > 0
                        && (rest[0].is_ascii_alphabetic() || rest[0] == b'_')
                        && rest.get(name) == Some(&b'}')
                    {
                        return true;
                    }
                }
                None => {}
            }
            i += 1;
        }
        false
    }
    fn ident(b: u8) -> bool {
        b.is_ascii_alphabetic() || b == b'_' || b == b'.' || b == b'$'
    }
    // Every placeholder starts with one of these; most files have none, and are done in a
    // few vectorised passes instead of a scan of every line (this runs on every file read).
    let word_after_brace = memchr::memchr_iter(b'{', text).any(|i| {
        text.get(i + 1)
            .is_some_and(|&c| c.is_ascii_alphabetic() || c == b'_')
    });
    let opener = |pat: &[u8]| memchr::memmem::find(text, pat).is_some();
    if !word_after_brace && !opener(b"{{") && !opener(b"{%") && !opener(b"%%") && !opener(b"<%") {
        return false;
    }
    text.split(|&b| b == b'\n').any(|line| {
        if line.trim_ascii_start().starts_with(b";") {
            return false;
        }
        let code = line
            .iter()
            .position(|&b| b == b'#')
            .map_or(line, |i| &line[..i]);
        placeholder(code, b"{{", b"}}", ident)
            || single_brace(code)
            || placeholder(code, b"%%", b"%%", |b| b.is_ascii_uppercase())
            || placeholder(code, b"{%", b"%}", |b| b.is_ascii_lowercase())
            || placeholder(code, b"<%", b"%>", |b| b == b'=' || b.is_ascii_alphabetic())
    })
}

#[cfg(test)]
mod tests {
    use super::is_template;

    #[test]
    fn placeholders_of_each_engine() {
        for t in [
            "listen {{ port }};",
            "fastcgi_read_timeout {{PHP_TIMEOUT}};",
            "root {{.Root}};",
            "{% if tls %}",
            "server_name <%= @name %>;",
            "pm.max_children = {{PHP_FPM_MAX_CHILDREN}}",
            "    server_name  {vvv_hosts};",
            "%%TEST_GLOBALS%%",
            "include %%TESTDIR%%/inc.conf;",
        ] {
            assert!(is_template(t.as_bytes()), "{t}");
        }
    }

    #[test]
    fn nginx_braces_are_not_placeholders() {
        for t in [
            "location ~ \"^/(\\d{2}){3}$\" { }",
            "# listen {{ port }};",
            "; pm = {{PM}}",
            "map $a $b { default 0; }",
            "return 200 '{{';",
            "root \"{site}/public\";",
            "set $x ${name};",
            "location ~ ^/\\p{Lu} { }",
            "location ~ ^/a{2} { }",
            "if ($a) {return 403;}",
            "location / {}",
            "log_format x '%%';",
        ] {
            assert!(!is_template(t.as_bytes()), "{t}");
        }
    }
}
