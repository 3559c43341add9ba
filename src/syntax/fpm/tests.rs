use super::*;

fn parsed(src: &[u8]) -> Parsed {
    let p = parse(src);
    assert_eq!(p.file.print(src).as_deref(), Some(src), "round-trip");
    p
}

fn entry(src: &[u8]) -> Entry {
    let p = parsed(src);
    assert!(p.errors.is_empty(), "{:?}", p.errors);
    let first = p.file.entries().next().map(|(_, e)| e.clone());
    first.expect("an entry")
}

fn text(src: &[u8], s: Span) -> &str {
    std::str::from_utf8(&src[s.range()]).unwrap()
}

fn value(src: &[u8]) -> String {
    String::from_utf8(entry(src).value_text_no_env(src)).unwrap()
}

fn error(src: &[u8]) -> (String, u32) {
    let p = parsed(src);
    let e = p.errors.first().expect("an error");
    let line = src[..e.span.start as usize]
        .iter()
        .filter(|&&b| b == b'\n')
        .count() as u32;
    (e.message.clone(), line + 1)
}

#[test]
fn entry_spans() {
    let src = b"  pm.max_children   =  \"5\"  ; five\n";
    let e = entry(src);
    assert_eq!(text(src, e.key), "pm.max_children");
    assert_eq!(text(src, e.name), "pm.max_children");
    assert_eq!(text(src, e.eq), "=");
    assert_eq!(text(src, e.raw_value), "\"5\"");
    assert_eq!(text(src, e.value), "5");
    assert_eq!(text(src, e.comment.unwrap()), "; five");
    assert!(e.subkey.is_none());
}

#[test]
fn array_keys_expose_name_and_subkey() {
    let src = b"php_admin_value[memory_limit] = 128M\n";
    let e = entry(src);
    assert_eq!(text(src, e.key), "php_admin_value[memory_limit]");
    assert_eq!(text(src, e.name), "php_admin_value");
    assert_eq!(text(src, e.subkey.unwrap()), "memory_limit");
    assert_eq!(e.subkey_text(src, &no_env).unwrap(), b"memory_limit");
    // php-fpm keeps blanks before `]` (verified: `php_value[ x ]` sets `x `).
    let src = b"php_value [ x ] = 1\n";
    let e = entry(src);
    assert_eq!(text(src, e.name), "php_value");
    assert_eq!(e.subkey_text(src, &no_env).unwrap(), b"x ");
    let src = b"env[PATH] = /usr/bin:/bin\n";
    assert_eq!(value(src), "/usr/bin:/bin");
    let src = b"access.suppress_path[] = /ping\n";
    let e = entry(src);
    assert!(e.subkey.unwrap().is_empty());
}

#[test]
fn semicolon_starts_a_comment_outside_quotes_only() {
    assert_eq!(value(b"a = x;y\n"), "x");
    assert_eq!(value(b"a = x ; y\n"), "x");
    assert_eq!(value(b"a = \"x;y\" ; z\n"), "x;y");
    assert_eq!(value(b"a = 'x;y\"z'\n"), "x;y\"z");
    let src = b"; own line\n[www] ; after a header\n";
    let p = parsed(src);
    assert!(matches!(
        p.file.lines[0].kind,
        LineKind::Comment { own_line: true, .. }
    ));
    assert!(matches!(p.file.lines[1].kind, LineKind::Section(_)));
    match &p.file.lines[2].kind {
        LineKind::Comment { text: t, own_line } => {
            assert!(!own_line);
            assert_eq!(text(src, *t), "; after a header");
        }
        k => panic!("{k:?}"),
    }
}

#[test]
fn hash_is_not_a_comment() {
    assert_eq!(value(b"user = x # trailing\n"), "x # trailing");
    assert_eq!(
        error(b"[www]\n# comment\n"),
        ("value is NULL for a ZEND_INI_PARSER_ENTRY".into(), 2)
    );
    // `#key = value` is an entry named `#key` (php-fpm: unknown entry '#key').
    let src = b"[www]\n#listen = 1\n";
    let p = parsed(src);
    assert!(p.errors.is_empty());
    let errs = p.file.load_errors(src, &no_env, StartIn::Global);
    assert_eq!(errs[0].message, "unknown entry '#listen'");
}

#[test]
fn quotes_escapes_and_concatenation() {
    assert_eq!(value(b"a = \"a\\\\\"\n"), "a\\");
    assert_eq!(value(b"a = \"a\\\"b\"\n"), "a\"b");
    assert_eq!(value(b"a = \"a\\$b\\n\"\n"), "a$b\\n");
    assert_eq!(value(b"a = \"C:\\path\\\"\n"), "C:\\path\\");
    assert_eq!(value(b"a = abc'de'f \"gh\" i\n"), "abcdefghi");
    assert_eq!(value(b"a = a  b\t c   \n"), "a  b\t c");
    assert_eq!(value(b"a = \"a\"  \"b\"  \n"), "ab");
    assert_eq!(value(b"a = \"\" x\n"), "x");
    assert_eq!(value(b"a = $${HOME}\n"), "$${HOME}");
    assert_eq!(value(b"a = {a}\n"), "{a}");
    // An unterminated `'` after some text silently ends the value (verified).
    assert_eq!(value(b"a = ab'c\n"), "ab");
}

#[test]
fn bool_words_null_constants_and_operators() {
    assert_eq!(value(b"a = YES\n"), "1");
    assert_eq!(value(b"a = Off\n"), "");
    assert_eq!(value(b"a = none\n"), "");
    assert_eq!(value(b"a = NULL\n"), "");
    assert_eq!(value(b"a = \"yes\"\n"), "yes");
    assert_eq!(value(b"a = yesno\n"), "yesno");
    assert_eq!(value(b"a = E_ALL & ~E_DEPRECATED\n"), "24575");
    assert_eq!(value(b"a = 1 | 2\n"), "3");
    assert_eq!(value(b"a = !1\n"), "0");
    assert_eq!(value(b"a = (4)\n"), "4");
    assert_eq!(value(b"a = E_ALL x\n"), "32767 x");
    assert_eq!(value(b"a = \"E_ALL\"\n"), "E_ALL");
    let src = b"a = PHP_VERSION\n";
    assert_eq!(entry(src).unresolved_constants(src).len(), 1);
}

#[test]
fn env_expansion_unset_is_empty() {
    let env = |k: &str| (k == "HOME").then(|| "/root".to_string());
    let v = |src: &[u8]| String::from_utf8(entry(src).value_text(src, &env)).unwrap();
    assert_eq!(v(b"a = ${HOME}x\n"), "/rootx");
    assert_eq!(v(b"a = \"${HOME}x\"\n"), "/rootx");
    assert_eq!(v(b"a = ${ HOME }\n"), "/root");
    assert_eq!(v(b"a = '${HOME}x'\n"), "${HOME}x");
    assert_eq!(v(b"a = \"\\${HOME}x\"\n"), "${HOME}x");
    assert_eq!(v(b"a = ${NOPE}x\n"), "x");
    // 8.2 has no `:-default`: the variable is named `HOME:-5` and unset.
    assert_eq!(v(b"a = ${HOME:-5}\n"), "");
    assert_eq!(expand_env(b"x${HOME}y${NOPE}z${", &env), b"x/rootyz${");
}

#[test]
fn pool_substitution() {
    assert_eq!(expand_pool(b"/run/$pool.sock", b"www"), b"/run/www.sock");
    assert_eq!(expand_pool(b"$pool-$pool", b"a"), b"a-a");
    assert_eq!(expand_pool(b"none", b"a"), b"none");
    // A pool named `$pool` would loop forever in php-fpm; we stop.
    assert_eq!(expand_pool(b"$pool", b"$pool"), b"$pool");
}

#[test]
fn sections_keep_spaces_and_compare_case_insensitively() {
    let src = b"[ spaced pool ]\n[GLOBAL]\n[\"q p\"]\n[]\n";
    let p = parsed(src);
    assert!(p.errors.is_empty(), "{:?}", p.errors);
    let names: Vec<Vec<u8>> = p.file.sections(src).into_iter().map(|s| s.name).collect();
    assert_eq!(
        names,
        [&b" spaced pool "[..], b"GLOBAL", b"q p", b""].map(|n| n.to_vec())
    );
    let views = p.file.sections(src);
    assert!(views[1].is_global && !views[0].is_global);
    match &p.file.lines[0].kind {
        LineKind::Section(s) => {
            assert_eq!(text(src, s.open), "[");
            assert_eq!(text(src, s.name), " spaced pool ");
            assert_eq!(text(src, s.close), "]");
        }
        k => panic!("{k:?}"),
    }
}

#[test]
fn a_space_before_a_section_header_is_a_syntax_error() {
    // ` [www]` scans as an array key with an empty name (verified with php-fpm 8.2).
    assert_eq!(
        error(b" [www]\n"),
        (
            "syntax error, unexpected END_OF_LINE, expecting '='".into(),
            1
        )
    );
    assert!(parsed(b"\t[www]\n").errors.is_empty());
}

#[test]
fn several_statements_on_one_line() {
    let src = b"[www] listen = /run/x.sock\na = 1\rb = 2\n";
    let p = parsed(src);
    assert!(p.errors.is_empty(), "{:?}", p.errors);
    let kinds: Vec<&str> = p
        .file
        .lines
        .iter()
        .map(|l| match l.kind {
            LineKind::Section(_) => "section",
            LineKind::Entry(_) => "entry",
            _ => "other",
        })
        .collect();
    assert_eq!(kinds, ["section", "entry", "entry", "entry"]);
    assert_eq!(p.file.lines[2].eol, Span::new(32, 33));
    let www = p.file.get(src, Some("WWW"), "b").unwrap();
    assert_eq!(www.value_text_no_env(src), b"2");
}

#[test]
fn syntax_errors_match_php() {
    let cases: &[(&[u8], &str)] = &[
        (b"a = \"abc\n", "syntax error, unexpected end of file, expecting TC_DOLLAR_CURLY or TC_QUOTED_STRING or '\"'"),
        (b"[www\n", "syntax error, unexpected end of file, expecting ']'"),
        (b"[a;b]\n", "syntax error, unexpected end of file, expecting ']'"),
        (b"a = b = c\n", "syntax error, unexpected '='"),
        (b"a = (b\n", "syntax error, unexpected END_OF_LINE, expecting '^' or '|' or '&' or ')'"),
        (b"a = b)\n", "syntax error, unexpected ')'"),
        (b"\"a\" = b\n", "syntax error, unexpected '\"'"),
        (b"a = 'abc\n", "syntax error, unexpected end of file"),
        (b"on = 1\n", "syntax error, unexpected BOOL_TRUE"),
        (b"a = yes please\n", "syntax error, unexpected TC_CONSTANT"),
        (b"a = 1 yes\n", "syntax error, unexpected BOOL_TRUE"),
        (b"a = pong!\n", "syntax error, unexpected '!'"),
        (b"a = ${b\n", "syntax error, unexpected end of file, expecting '}'"),
        (b"a = ${}\n", "syntax error, unexpected '}', expecting TC_VARNAME"),
        (b"php_value[a = b\n", "syntax error, unexpected end of file, expecting ']'"),
        (b"php_value[a]\n", "syntax error, unexpected END_OF_LINE, expecting '='"),
        (b"php_value[a] foo = 1\n", "syntax error, unexpected TC_LABEL, expecting '='"),
        (b"a = ~\n", "syntax error, unexpected END_OF_LINE"),
        (b"foo\n", "value is NULL for a ZEND_INI_PARSER_ENTRY"),
        (b"us$er = a\n", "value is NULL for a ZEND_INI_PARSER_ENTRY"),
        (b"a = ''\n", "value is NULL for a ZEND_INI_PARSER_ENTRY"),
        (b"[a] x\n", "value is NULL for a ZEND_INI_PARSER_ENTRY"),
    ];
    for (src, want) in cases {
        let (msg, line) = error(src);
        assert_eq!(
            (msg.as_str(), line),
            (*want, 1),
            "{}",
            String::from_utf8_lossy(src)
        );
    }
}

#[test]
fn recovers_to_report_every_bad_line() {
    let src = b"[www]\n# one\nlisten = /x\n# two\r\n\"bad\" = 1\n";
    let p = parsed(src);
    let lines: Vec<u32> = p
        .errors
        .iter()
        .map(|e| {
            1 + src[..e.span.start as usize]
                .iter()
                .filter(|&&b| b == b'\n')
                .count() as u32
        })
        .collect();
    assert_eq!(lines, [2, 4, 5]);
    assert_eq!(p.file.entries().count(), 1);
}

#[test]
fn crlf_tabs_no_final_newline_and_non_utf8_round_trip() {
    let src: &[u8] =
        b"\xEF\xBB\xBF[www]\r\n\tuser\t= www-data\r\n;caf\xe9\r\n\r\nphp_value[x] = \xff\xfe\nlast = 1";
    let p = parsed(src);
    assert!(p.errors.is_empty(), "{:?}", p.errors);
    let user = p.file.get(src, Some("www"), "USER").unwrap();
    assert_eq!(text(src, user.raw_value), "www-data");
    assert_eq!(p.file.lines[1].eol, Span::new(26, 28));
    let x = p.file.get(src, Some("www"), "php_value[x]").unwrap();
    assert_eq!(x.value_text_no_env(src), b"\xff\xfe");
    let last = p.file.lines.last().unwrap();
    assert!(last.eol.is_empty());
    assert_eq!(
        p.file
            .get(src, Some("www"), "last")
            .unwrap()
            .value_text_no_env(src),
        b"1"
    );
}

#[test]
fn nul_hides_the_rest_of_the_line() {
    let src = b"[www]\nuser = a\0 = b\nx\0\non \0\n";
    let p = parsed(src);
    assert!(p.errors.is_empty(), "{:?}", p.errors);
    let user = p.file.get(src, Some("www"), "user").unwrap();
    assert_eq!(user.value_text_no_env(src), b"a");
    // A key cut by a NUL is still a key without a value.
    assert_eq!(
        error(b"x;c\0\n").0,
        "value is NULL for a ZEND_INI_PARSER_ENTRY"
    );
}

#[test]
fn duplicates_last_wins_but_all_are_kept() {
    let src = b"[www]\npm.max_children = 5\n[global]\n[Www]\nPM.MAX_CHILDREN = 7\n";
    let p = parsed(src);
    assert_eq!(p.file.get_all(src, Some("www"), "pm.max_children").len(), 2);
    let e = p.file.get(src, Some("www"), "pm.max_children").unwrap();
    assert_eq!(e.value_text_no_env(src), b"7");
    assert!(p.file.get(src, Some("global"), "pm.max_children").is_none());
    // `include` and array keys compare case-sensitively, like php-fpm.
    let src = b"Include = a\ninclude = b\nphp_value[X] = 1\n";
    let p = parsed(src);
    assert_eq!(
        p.file
            .get(src, None, "include")
            .unwrap()
            .value_text_no_env(src),
        b"b"
    );
    assert_eq!(p.file.includes(src).count(), 1);
    assert!(p.file.get(src, None, "php_value[x]").is_none());
    assert!(p.file.get(src, None, "php_value[X]").is_some());
}

#[test]
fn headerless_entries_belong_to_no_section() {
    let src = b"user = a\n[www]\nuser = b\n";
    let p = parsed(src);
    let views = p.file.sections(src);
    assert_eq!(views.len(), 2);
    assert_eq!(views[0].header, None);
    assert_eq!(
        p.file
            .get(src, None, "user")
            .unwrap()
            .value_text_no_env(src),
        b"a"
    );
    // php-fpm reads them in the section current at that point: [global] for a main file.
    let errs = p.file.load_errors(src, &no_env, StartIn::Global);
    assert_eq!(errs.len(), 1);
    assert_eq!(errs[0].message, "unknown entry 'user'");
    assert!(p.file.load_errors(src, &no_env, StartIn::Pool).is_empty());
}

#[test]
fn xml_gives_one_diagnostic() {
    let src = b"<?xml version=\"1.0\" ?>\n<configuration>\n\t<value name=\"x\">1</value>\n</configuration>\n";
    let p = parsed(src);
    assert!(p.file.xml);
    assert_eq!(p.errors.len(), 1);
    assert_eq!(
        p.errors[0].message,
        "XML configuration of PHP 5.2 is not supported"
    );
    assert_eq!(p.errors[0].span, Span::new(0, 22));
    assert!(p.file.lines.iter().all(|l| l.kind == LineKind::Xml));
    assert!(p.file.load_errors(src, &no_env, StartIn::Global).is_empty());
}

#[test]
fn empty_and_blank_files() {
    for src in [&b""[..], b"\n", b"\n\n", b"   \n\t\r\n", b"\r"] {
        let p = parsed(src);
        assert!(p.errors.is_empty());
        assert!(p.file.lines.iter().all(|l| l.kind == LineKind::Blank));
    }
}

#[test]
fn integers() {
    assert_eq!(parse_int(b"10"), Ok(10));
    assert_eq!(parse_int(b"-3"), Ok(-3));
    assert_eq!(parse_int(b""), Ok(0));
    assert_eq!(parse_int(b"-"), Ok(0));
    assert_eq!(parse_int(b"99999999999"), Ok(1215752191));
    for bad in [&b"10a"[..], b"+1", b"--1", b" 1", b"1.0", b"0x10"] {
        assert_eq!(parse_int(bad), Err(INVALID_NUMBER), "{bad:?}");
    }
}

#[test]
fn booleans_as_php_fpm_8_2() {
    for t in [&b"1"[..], b"yes", b"true", b"on"] {
        assert_eq!(parse_bool(t), Ok(true));
    }
    for f in [&b""[..], b"0", b"no", b"none", b"false", b"off"] {
        assert_eq!(parse_bool(f), Ok(false));
    }
    for bad in [&b"Yes"[..], b"TRUE", b"null", b"2", b"1 ", b"maybe"] {
        assert_eq!(parse_bool(bad), Err(INVALID_BOOLEAN), "{bad:?}");
    }
}

#[test]
fn time_values() {
    assert_eq!(parse_time(b"10"), Ok(10));
    assert_eq!(parse_time(b"10s"), Ok(10));
    assert_eq!(parse_time(b"5m"), Ok(300));
    assert_eq!(parse_time(b"1h"), Ok(3600));
    assert_eq!(parse_time(b"1d"), Ok(86400));
    assert_eq!(parse_time(b"1.5m"), Ok(60));
    assert_eq!(parse_time(b"5ms"), Ok(5));
    assert_eq!(parse_time(b"m"), Ok(0));
    assert_eq!(parse_time(b"a5"), Ok(0));
    assert_eq!(parse_time(b"-5"), Ok(-5));
    assert_eq!(parse_time(b""), Err(INVALID_TIME));
    assert_eq!(parse_time(b"10S"), Err(UNKNOWN_TIME_SUFFIX));
    assert_eq!(parse_time(b"5x"), Err(UNKNOWN_TIME_SUFFIX));
}

#[test]
fn other_value_parsers() {
    assert_eq!(parse_pm(b"Static"), Ok(Pm::Static));
    assert_eq!(parse_pm(b"apache-like"), Err(INVALID_PM));
    assert_eq!(parse_log_level(b"WARN"), Ok("warning"));
    assert_eq!(parse_log_level(b"x"), Err(INVALID_LOG_LEVEL));
    assert_eq!(parse_rlimit_core(b"Unlimited"), Ok(-1));
    assert_eq!(parse_rlimit_core(b"-1"), Err(INVALID_RLIMIT_CORE));
    assert_eq!(parse_rlimit_core(b"x"), Err(INVALID_NUMBER));
    assert_eq!(parse_syslog_facility(b"LOCAL0"), Ok(128));
    assert_eq!(parse_syslog_facility(b"daemon"), Ok(24));
}

#[test]
fn php_ini_quantities() {
    let q = |s: &[u8]| parse_quantity(s);
    assert_eq!(
        q(b"128M"),
        Quantity {
            value: 134217728,
            warning: None
        }
    );
    assert_eq!(q(b"128m").value, 134217728);
    assert_eq!(q(b"1G").value, 1 << 30);
    assert_eq!(q(b"512K").value, 512 << 10);
    assert_eq!(q(b" 64M ").value, 64 << 20);
    assert_eq!(q(b"64 M").value, 64 << 20);
    assert_eq!(
        q(b"-1"),
        Quantity {
            value: -1,
            warning: None
        }
    );
    assert_eq!(q(b"").value, 0);
    assert_eq!(q(b"012").value, 10);
    assert_eq!(q(b"0x10M").value, 16 << 20);
    assert_eq!(q(b"0b101").value, 5);
    assert_eq!(q(b"+5M").value, 5 << 20);
    // The messages below are PHP 8.2's, verified with php8.2 -r 'ini_parse_quantity(…)'.
    assert_eq!(
        q(b"128MB"),
        Quantity {
            value: 128,
            warning: Some("Invalid quantity \"128MB\": unknown multiplier \"B\", interpreting as \"128\" for backwards compatibility".into()),
        }
    );
    let w = |s: &[u8]| q(s).warning.unwrap();
    assert_eq!(
        w(b"1.5M"),
        "Invalid quantity \"1.5M\", interpreting as \"1M\" for backwards compatibility"
    );
    assert_eq!(q(b"1.5M").value, 1 << 20);
    assert_eq!(
        w(b"12kk"),
        "Invalid quantity \"12kk\", interpreting as \"12k\" for backwards compatibility"
    );
    assert_eq!(w(b"abc"), "Invalid quantity \"abc\": no valid leading digits, interpreting as \"0\" for backwards compatibility");
    assert_eq!(w(b"0x"), "Invalid quantity \"0x\": no digits after base prefix, interpreting as \"0\" for backwards compatibility");
    assert_eq!(w(b"0x 5"), "Invalid quantity \"0x 5\": no digits after base prefix, interpreting as \"0\" for backwards compatibility");
    assert_eq!(
        w(b"0y5"),
        "Invalid prefix \"0y\", interpreting as \"0\" for backwards compatibility"
    );
    assert_eq!(w(b"1\x01\xe9\\q\t"), "Invalid quantity \"1\\x01\\xE9\\\\q\\t\": unknown multiplier \"q\", interpreting as \"1\" for backwards compatibility");
    assert_eq!(
        q(b"-9223372036854775808"),
        Quantity {
            value: i64::MIN,
            warning: None
        }
    );
    assert_eq!(q(b"9223372036854775808").value, i64::MIN);
    assert!(w(b"9223372036854775808").contains("value is out of range"));
    assert_eq!(q(b"8589934592G").value, i64::MIN);
    assert_eq!(q(b"9999999999999999999999M").value, -(1 << 20));
    assert_eq!(q(b"1\x0bK").value, 1024);
}

#[test]
fn load_errors_as_php_fpm_words_them() {
    let src = b"[global]\nlog_level = loud\nenv[X] = 1\nerror_log = /var/log/$pool.log\n\
[www]\npm = apache-like\npm.max_children = 10a\nrequest_terminate_timeout = 5x\n\
catch_workers_output = maybe\nrlimit_core = -1\nenv[Y] =\nphp_flag[display_errors] = maybe\n\
php_value[] = 1\nfoo[x] = 1\naccess.suppress_path[x] = /a\naccess.suppress_path[] = a\n\
pm.max_childs = 5\nlisten.setfib = 1\nInclude = x\ninclude = /etc/x/*.conf\n\
PM.Max_Children = 5\nphp_admin_value[error_reporting] = E_ALL\nlisten = /run/$pool.sock\n";
    let p = parsed(src);
    assert!(p.errors.is_empty(), "{:?}", p.errors);
    let got: Vec<String> = p
        .file
        .load_errors(src, &no_env, StartIn::Global)
        .into_iter()
        .map(|e| e.message)
        .collect();
    assert_eq!(
        got,
        [
            "unable to parse value for entry 'log_level': invalid value for 'log_level'",
            "Array are not allowed in the global section",
            "unable to parse value for entry 'error_log': Can't use '$pool' when the pool is not defined",
            "unable to parse value for entry 'pm': invalid process manager (static, dynamic or ondemand)",
            "unable to parse value for entry 'pm.max_children': is not a valid number (greater or equal than zero)",
            "unable to parse value for entry 'request_terminate_timeout': unknown suffix used in time value",
            "unable to parse value for entry 'catch_workers_output': invalid boolean value",
            "unable to parse value for entry 'rlimit_core': must be greater than zero or 'unlimited'",
            "empty value",
            "error while parsing 'php_flag[display_errors]' : invalid boolean value",
            "You must provide a key for field 'php_value'",
            "unknown directive 'foo'",
            "Keys provided to field 'access.suppress_path' are ignored",
            "Values provided to field 'access.suppress_path' must begin with '/'",
            "unknown entry 'pm.max_childs'",
            "unknown entry 'listen.setfib'",
            "unknown entry 'Include'",
        ]
    );
}

#[test]
fn never_panics_on_odd_bytes() {
    let mut src = Vec::new();
    for b in 0u8..=255 {
        src.extend_from_slice(&[b, b'=', b'"', b, b'\'', b'$', b'{', b, b'[', b'\n']);
        src.extend_from_slice(&[b'[', b, b'\r', b'(', b'~', b]);
    }
    let p = parse(&src);
    assert_eq!(p.file.print(&src).as_deref(), Some(&src[..]));
    let _ = p.file.load_errors(&src, &no_env, StartIn::Global);
    for (_, e) in p.file.entries() {
        let _ = e.value_text_no_env(&src);
    }
}

#[test]
fn php_ini_double_quotes_run_over_lines() {
    let src = b"[PHP]\na = \"x\ny\"\nb = 2\nc = \"open\nd = 4\n";
    let p = super::parse_php_ini(src);
    let entries: Vec<&Entry> = p.file.entries().map(|(_, e)| e).collect();
    // a, b, and d after c's error (the model stops at the first error, as PHP does).
    assert_eq!(entries.len(), 3);
    assert_eq!(entries[0].value_text_no_env(src), b"x\ny");
    assert_eq!(text(src, entries[1].key), "b");
    // The never-closed quote is reported where PHP does: at the end of the file.
    assert_eq!(p.errors.len(), 1);
    assert_eq!(p.errors[0].span.start as usize, src.len());
    // Every byte is kept, and php-fpm's own parser still reads one line at a time.
    assert_eq!(p.file.print(src), Some(src.to_vec()));
    assert!(!super::parse(src).errors.is_empty());
}
