//! The premises of the PHP security rules (issue #39), against the real nginx and php-fpm8.2
//! in private prefixes on 127.0.0.1:
//!
//! * STK012: a `%0a` after `.php/` leaves `$fastcgi_path_info` empty when the split regex
//!   uses `.`, and `analysis::php_guard::split_loses_path_info` says so for each regex
//!   (nginx with the echo module);
//! * FPM110: without `session.use_strict_mode` php-fpm adopts a session id the client chose;
//!   with it (from a `.user.ini`, a per-directory setting) it issues its own; without
//!   `session.cookie_httponly` the session cookie has no `HttpOnly`;
//! * what a pool's `php_value` can set: a `PHP_INI_SYSTEM` directive (`enable_dl`,
//!   `allow_url_fopen`) takes the pool's value, a `.user.ini` cannot change it back, and
//!   `dl()` does not exist under FPM at all (so `enable_dl` is not judged);
//! * STK013: PHP's `error_log` under nginx's `root` is downloadable, and lemplint reports
//!   that very configuration.
//!
//! Without nginx, php-fpm8.2 or the echo module the tests say they were skipped, or fail
//! under `CI=true`.

mod common;

use common::{free_port, http_get, http_parts, http_raw};
use std::path::Path;
use std::process::Command;

/// The split regexes compared, from the vulnerable guides' form to the ones that keep the
/// newline.
const SPLITS: &[&str] = &[
    r"^(.+?\.php)(/.*)$",
    r"^(.+\.php)(/.+)$",
    r"^(.+?\.php)(.*)$",
    r"^(.+?\.php)(/[\s\S]*)$",
    r"(?s)^(.+?\.php)(/.*)$",
    r"^(.+?\.php)(/[^\n]*)?$",
];

#[test]
fn a_newline_empties_fastcgi_path_info_as_lemplint_predicts() {
    let Some(nginx) = common::required_nginx("tests/security_php_binary.rs") else {
        return;
    };
    let Some(echo) = common::required_echo_module(&nginx, "tests/security_php_binary.rs") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let prefix = tmp.path();
    let ports: Vec<u16> = SPLITS.iter().map(|_| free_port()).collect();
    let mut conf = format!(
        "load_module {};\nerror_log {}/error.log;\npid {}/nginx.pid;\nevents {{}}\nhttp {{\n  access_log off;\n",
        echo.display(),
        prefix.display(),
        prefix.display()
    );
    for (split, port) in SPLITS.iter().zip(&ports) {
        conf.push_str(&format!(
            "  server {{\n    listen 127.0.0.1:{port};\n    location ~ [^/]\\.php(/|$) {{\n      \
             fastcgi_split_path_info \"{split}\";\n      \
             echo \"[$fastcgi_script_name][$fastcgi_path_info]\";\n    }}\n  }}\n"
        ));
    }
    conf.push_str("}\n");
    let path = prefix.join("nginx.conf");
    std::fs::write(&path, &conf).unwrap();
    let t = common::nginx_test(&nginx, prefix);
    assert!(
        t.status.success(),
        "nginx -t: {}",
        String::from_utf8_lossy(&t.stderr)
    );
    let _running = common::start_nginx_on(&nginx, prefix, &path, &ports);
    let mut lost = 0;
    for (split, port) in SPLITS.iter().zip(&ports) {
        // A path without a newline splits in every form.
        let (status, _, body) = http_parts(&http_get(*port, "/index.php/ab"));
        assert_eq!(
            (status.as_str(), body.trim_end()),
            ("200", "[/index.php][/ab]"),
            "{split}"
        );
        let (status, _, body) = http_parts(&http_get(*port, "/index.php/a%0ab.php"));
        assert_eq!(status, "200", "{split}: {body}");
        let body = body.trim_end();
        let (script, info) = body
            .strip_prefix('[')
            .and_then(|b| b.strip_suffix(']'))
            .and_then(|b| b.split_once("]["))
            .unwrap_or_else(|| panic!("{split}: {body:?}"));
        let nginx_loses = info.is_empty() && script.len() > "/index.php".len();
        let ours = lemplint::analysis::php_guard::split_loses_path_info(split);
        assert_eq!(
            ours,
            Some(nginx_loses),
            "{split}: nginx gives script {script:?}, path info {info:?}"
        );
        lost += usize::from(nginx_loses);
    }
    // Both kinds were seen: the comparison can fail either way.
    assert!(
        lost > 0 && lost < SPLITS.len(),
        "{lost} of {}",
        SPLITS.len()
    );
}

const PROBE: &str = r#"<?php
if (isset($_GET['sess'])) { session_start(); echo session_id(); exit; }
if (isset($_GET['err'])) { trigger_error('db password hunter2 in an error', E_USER_WARNING); exit; }
echo json_encode([
    'enable_dl' => ini_get('enable_dl'),
    'allow_url_fopen' => ini_get('allow_url_fopen'),
    'dl' => function_exists('dl'),
]);
"#;

#[test]
fn php_fpm_applies_and_exposes_as_the_rules_say() {
    if !common::have_nginx_and_php_fpm("PHP security premises") {
        return;
    }
    let Some(nginx) = common::required_nginx("tests/security_php_binary.rs") else {
        return;
    };
    let _serial = common::serial();
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let www = d.join("www");
    for sub in ["www/logs", "www/strict", "www/bare", "sessions"] {
        std::fs::create_dir_all(d.join(sub)).unwrap();
    }
    std::fs::write(www.join("p.php"), PROBE).unwrap();
    std::fs::write(www.join("strict/p.php"), PROBE).unwrap();
    std::fs::write(www.join("bare/p.php"), PROBE).unwrap();
    // Per-directory settings: strict mode may be set here, allow_url_fopen may not.
    std::fs::write(
        www.join("strict/.user.ini"),
        "session.use_strict_mode = 1\nsession.cookie_httponly = 1\nallow_url_fopen = 1\n",
    )
    .unwrap();
    let (fpm_port, bare_port, port) = (free_port(), free_port(), free_port());
    let fpm_conf = d.join("php-fpm.conf");
    std::fs::write(
        &fpm_conf,
        format!(
            "[global]\npid = {d}/php-fpm.pid\nerror_log = {d}/php-fpm.log\ndaemonize = no\n\
             [www]\nlisten = 127.0.0.1:{fpm_port}\npm = static\npm.max_children = 1\n\
             php_value[enable_dl] = 0\nphp_value[allow_url_fopen] = 0\n\
             php_value[session.save_path] = {d}/sessions\n\
             php_admin_flag[log_errors] = on\nphp_admin_flag[display_errors] = off\n\
             php_admin_value[error_log] = {d}/www/logs/php_errors.log\n\
             [bare]\nlisten = 127.0.0.1:{bare_port}\npm = static\npm.max_children = 1\n\
             php_value[session.save_path] = {d}/sessions\n",
            d = d.display()
        ),
    )
    .unwrap();
    let nginx_conf = d.join("nginx.conf");
    std::fs::write(
        &nginx_conf,
        format!(
            "error_log {d}/error.log;\npid {d}/nginx.pid;\nevents {{}}\nhttp {{\n  access_log off;\n  \
             server {{\n    listen 127.0.0.1:{port};\n    root {d}/www;\n    \
             location ^~ /bare/ {{\n      \
             fastcgi_param SCRIPT_FILENAME $document_root$fastcgi_script_name;\n      \
             fastcgi_param QUERY_STRING $query_string;\n      \
             fastcgi_param REQUEST_METHOD $request_method;\n      \
             fastcgi_pass 127.0.0.1:{bare_port};\n    }}\n    \
             location ~ \\.php$ {{\n      \
             fastcgi_param SCRIPT_FILENAME $document_root$fastcgi_script_name;\n      \
             fastcgi_param DOCUMENT_ROOT $document_root;\n      \
             fastcgi_param QUERY_STRING $query_string;\n      \
             fastcgi_param REQUEST_METHOD $request_method;\n      \
             fastcgi_param HTTP_COOKIE $http_cookie;\n      \
             fastcgi_pass 127.0.0.1:{fpm_port};\n    }}\n  }}\n}}\n",
            d = d.display()
        ),
    )
    .unwrap();
    let _fpm = common::start_php_fpm_on(&fpm_conf, &[fpm_port, bare_port]);
    let _nginx = common::start_nginx(&nginx, d, &nginx_conf, port);

    // A PHP_INI_SYSTEM directive takes the pool's php_value; a .user.ini cannot undo it;
    // dl() is not there under FPM whatever enable_dl says.
    for dir in ["", "/strict"] {
        let (status, _, body) = http_parts(&http_get(port, &format!("{dir}/p.php")));
        assert_eq!(status, "200", "{body}");
        assert_eq!(
            body, r#"{"enable_dl":"0","allow_url_fopen":"0","dl":false}"#,
            "{dir}"
        );
    }

    // Strict mode off: the client's id is adopted. On (from the .user.ini): a new one.
    let chosen = "attackerchosen0123456789abcdef";
    let ask = |path: &str| {
        let r = http_raw(
            port,
            &format!("GET {path}?sess=1 HTTP/1.0\r\nHost: t\r\nCookie: PHPSESSID={chosen}\r\n\r\n"),
        );
        http_parts(&r).2
    };
    assert_eq!(
        ask("/strict/p.php").len(),
        32,
        "strict mode issues its own id"
    );
    assert_ne!(ask("/strict/p.php"), chosen);
    assert_eq!(
        ask("/p.php"),
        chosen,
        "without strict mode the chosen id is adopted"
    );

    // HttpOnly: PHP's default (and php.ini-production's blank) sends the session cookie
    // without it, so scripts can read it; `session.cookie_httponly = 1` adds it.
    let cookie = |path: &str| {
        let (_, head, _) = http_parts(&http_get(port, &format!("{path}?sess=1")));
        head.lines()
            .find(|l| l.to_ascii_lowercase().starts_with("set-cookie: phpsessid="))
            .unwrap_or_else(|| panic!("a session cookie from {path}: {head}"))
            .to_string()
    };
    assert!(
        !cookie("/p.php").contains("HttpOnly"),
        "{}",
        cookie("/p.php")
    );
    assert!(cookie("/strict/p.php").contains("HttpOnly"));

    // The error log under the root is one GET away.
    http_get(port, "/p.php?err=1");
    let (status, _, body) = http_parts(&http_get(port, "/logs/php_errors.log"));
    assert_eq!(status, "200");
    assert!(body.contains("db password hunter2"), "{body}");

    // FPM112: with no php.ini (`-n`) and nothing set by the pool, PHP's compiled-in
    // defaults put the error, with the script's path, into the response, and announce PHP.
    let (status, head, body) = http_parts(&http_get(port, "/bare/p.php?err=1"));
    assert_eq!(status, "200");
    assert!(
        body.contains("db password hunter2") && body.contains("/bare/p.php"),
        "{body}"
    );
    assert!(head.contains("X-Powered-By: PHP/"), "{head}");

    // lemplint reports that configuration, at the pool's error_log.
    let out = common::run_lemplint(
        d,
        &["lint", ".", "--select", "STK013", "--format", "concise"],
        None,
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("php-fpm.conf:") && text.contains("STK013") && text.contains("error_log"),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The php CLI, or `None` with a note (a failure under `CI=true`, where the set-up installs it).
fn php_cli() -> Option<&'static str> {
    let php = ["/usr/bin/php8.2", "/usr/bin/php"]
        .into_iter()
        .find(|p| Path::new(p).is_file());
    if php.is_none() {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "php8.2 (the CLI) is required on CI (CI=true) for tests/security_php_binary.rs"
        );
        eprintln!("note: php not found; skipping");
    }
    php
}

/// The compiled-in defaults FPM112 names are PHP's own: `php -n` (no php.ini) reports the
/// values lemplint's directive table holds.
#[test]
fn php_defaults_match_the_directive_table() {
    let Some(php) = php_cli() else {
        return;
    };
    let names = [
        "display_errors",
        "log_errors",
        "expose_php",
        "allow_url_fopen",
        "mail.add_x_header",
        "open_basedir",
        "disable_functions",
        "session.use_strict_mode",
        "session.use_only_cookies",
        "session.use_trans_sid",
        "session.cookie_httponly",
        "session.cookie_samesite",
        "session.sid_length",
        "session.sid_bits_per_character",
    ];
    let code = format!(
        "foreach ([{}] as $n) {{ echo $n, '=', ini_get($n), \"\\n\"; }}",
        names.map(|n| format!("'{n}'")).join(",")
    );
    let out = Command::new(php)
        .args(["-n", "-r", &code])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    for line in text.lines() {
        let (name, value) = line.split_once('=').unwrap();
        let ours = lemplint::syntax::phpini::directive(name)
            .unwrap_or_else(|| panic!("{name} in the table"))
            .default;
        assert_eq!(ours, value, "{name}");
    }
    assert_eq!(text.lines().count(), names.len(), "{text}");
}

/// STK014's premise, with the php CLI reading the rule's fixture php.ini: `open_basedir =` and
/// `disable_functions =` written empty leave a script every file and `system()`; the same
/// lines filled in take both away. And lemplint reports the empty lines at warning there, where
/// someone wrote them, but PHP's own template (which writes `disable_functions =` and leaves
/// `open_basedir` out) only at information.
#[test]
fn an_empty_sandbox_leaves_files_and_commands_to_scripts() {
    let Some(php) = php_cli() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let secret = dir.path().join("elsewhere/secret.txt");
    let site = dir.path().join("site");
    std::fs::create_dir_all(secret.parent().unwrap()).unwrap();
    std::fs::create_dir_all(&site).unwrap();
    std::fs::write(&secret, "the other site's password").unwrap();
    let probe = format!(
        "echo @file_get_contents('{}') === false ? 'closed' : 'read', ' ', \
         function_exists('system') ? 'system' : 'no-system';",
        secret.display()
    );
    let run = |ini: &Path| {
        let out = Command::new(php)
            .args(["-n", "-c"])
            .arg(ini)
            .args(["-r", &probe])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let fixture = Path::new("fixtures/stack/STK014/written-empty");
    let written = fixture.join("etc/php/8.2/fpm/php.ini");
    assert_eq!(run(&written), "read system");
    let sandboxed = dir.path().join("sandboxed.ini");
    std::fs::write(
        &sandboxed,
        format!(
            "[PHP]\nopen_basedir = {}\ndisable_functions = exec,system,passthru\n",
            site.display()
        ),
    )
    .unwrap();
    assert_eq!(run(&sandboxed), "closed no-system");

    let lint = |tree: &Path| {
        let out = Command::new(env!("CARGO_BIN_EXE_lemplint"))
            .args(["lint", "--select", "STK014", "--format", "concise"])
            .arg(tree)
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let text = lint(fixture);
    assert!(
        text.contains("php.ini:4:1: warning[STK014]")
            && text.contains("php.ini:5:1: warning[STK014]"),
        "{text}"
    );
    // PHP's own template, copied as a server would: information at the pool.
    let production = Path::new("/usr/lib/php/8.2/php.ini-production");
    if production.is_file() {
        let tree = dir.path().join("tree");
        std::fs::create_dir_all(tree.join("etc/php/8.2/fpm/pool.d")).unwrap();
        std::fs::create_dir_all(tree.join("etc/nginx")).unwrap();
        for f in [
            "etc/php/8.2/fpm/php-fpm.conf",
            "etc/php/8.2/fpm/pool.d/www.conf",
            "etc/nginx/nginx.conf",
        ] {
            std::fs::copy(fixture.join(f), tree.join(f)).unwrap();
        }
        std::fs::copy(production, tree.join("etc/php/8.2/fpm/php.ini")).unwrap();
        let text = lint(&tree);
        assert!(text.contains("www.conf:1:1: info[STK014]"), "{text}");
        assert!(!text.contains("warning["), "{text}");
    }
}
