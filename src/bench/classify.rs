//! What nginx and PHP-FPM say about a private copy, told without repeating them.
//!
//! A server's error output can hold bytes from anywhere it read: nginx quotes the bad line of
//! an included file (`invalid network "…"`), a module's error can hold a file or an
//! environment variable, PHP's warnings name paths. Bench never prints that output. Each
//! error line is matched against the messages bench knows (templates whose literal text is
//! the servers' own); a matched message is shown with each variable part kept only when it
//! is safe — a number or address, an errno text, or words the private copy itself holds
//! (which came from the tree or from bench) — and `…` otherwise. A line that matches no
//! template is counted, not shown. Everything shown is escaped.

/// What a message concerns, for its location.
pub struct Copy<'a> {
    /// The private prefix (paths under it are bench's own).
    pub dir: &'a std::path::Path,
    /// The configuration files bench wrote, concatenated: a variable part that occurs in
    /// them came from the tree or from bench.
    pub text: String,
    /// The copy's nginx.conf and, for each of its lines, the tree's file:line it came from.
    pub nginx_conf: &'a std::path::Path,
    pub origin: &'a [Option<String>],
}

/// nginx's messages (after the level, without the trailing ` in FILE:LINE`); `*` is a
/// variable part.
const NGINX: &[&str] = &[
    "unknown directive \"*\"",
    "\"*\" directive is not allowed here",
    "\"*\" directive is duplicate",
    "\"*\" directive is not terminated by \";\"",
    "\"*\" directive has no opening \"{\"",
    "invalid number of arguments in \"*\" directive",
    "\"*\" directive invalid value",
    "value must be between * and *",
    "unexpected end of file, expecting *",
    "invalid number \"*\"",
    "invalid value \"*\"",
    "invalid value \"*\" in \"*\" directive, it must be \"*\"",
    "invalid parameter \"*\"",
    "invalid port in \"*\" of the \"listen\" directive",
    "invalid host in \"*\" of the \"listen\" directive",
    "unexpected \"*\"",
    "unexpected end of file, expecting \"*\"",
    "no \"events\" section in configuration",
    "duplicate location \"*\"",
    "duplicate listen options for *",
    "a duplicate listen *",
    "duplicate MIME type \"*\"",
    "host not found in upstream \"*\"",
    "no port in upstream \"*\"",
    "zero size shared memory zone \"*\"",
    "unknown \"*\" variable",
    "could not build *",
    "\"*\" must be *",
    "bind() to * failed (*)",
    "listen() to * failed (*)",
    "open() \"*\" failed (*)",
    "mkdir() \"*\" failed (*)",
    "pcre2_compile() failed: *",
    "cannot load certificate \"*\": *",
    "cannot load certificate key \"*\": *",
    "SSL_CTX_set_cipher_list(\"*\") failed *",
    "worker_connections are not enough*",
    "* worker_connections are not enough",
    "connect() to * failed (*) while connecting to upstream, *",
    "connect() to * failed (*)*",
    "upstream timed out (*) while *",
    "recv() failed (*) while *",
    "writev() failed (*) while *",
    "upstream prematurely closed *",
    "FastCGI sent in stderr: \"*\" while *",
    "* while reading response header from upstream, *",
    "accept4() failed (*)",
    "setrlimit(RLIMIT_NOFILE, *) failed (*)",
    "getrlimit(RLIMIT_NOFILE) failed (*)",
    // Last: any other message about a directive (its wording masked unless the copy's).
    "\"*\" directive *",
];

/// PHP-FPM's messages (after the level).
const FPM: &[&str] = &[
    "unable to bind listening socket for address '*': * (*)",
    "FPM initialization failed",
    "failed to post process the configuration",
    "failed to load configuration file '*'",
    "failed to open configuration file '*': * (*)",
    "[pool *] pm.max_children must be a positive value",
    "[pool *] pm.start_servers(*) must not be less than pm.min_spare_servers(*) and not greater than pm.max_spare_servers(*)",
    "[pool *] pm.min_spare_servers(*) must be a positive value",
    "[pool *] pm.max_spare_servers(*) must be a positive value",
    "[pool *] pm.max_spare_servers(*) can't be greater than pm.max_children(*)",
    "[pool *] pm.min_spare_servers(*) must be lower than pm.max_spare_servers(*)",
    "[pool *] unknown value for directive 'pm' (*)",
    "[pool *] server reached pm.max_children setting (*), consider raising it",
    "[pool *] server reached max_children setting (*), consider raising it",
    "[pool *] child * exited on signal * (*) after * seconds from start",
    "[pool *] child * exited with code * after * seconds from start",
    "[pool *] seems busy (you may need to increase pm.start_servers, or pm.min/max_spare_servers), spawning * children, there are * idle, and * total children",
    "[*:*] unknown entry '*'",
    "[*:*] value is NULL for a ZEND_INI_PARSER_ENTRY",
    "Unable to include * from * at line *",
    "Invalid pool name '*'",
    "There is no pool defined*",
    "No pool defined*",
    "[pool *] listening queue is full*",
    "[pool *] the process manager is missing (static, dynamic or ondemand)",
    "* server reached pm.max_children *",
    "[pool *] 'user' directive is ignored when FPM is not running as root",
    "[pool *] 'group' directive is ignored when FPM is not running as root",
];

/// strerror texts the servers quote.
const ERRNO: &[&str] = &[
    "Address already in use",
    "Cannot assign requested address",
    "Permission denied",
    "No such file or directory",
    "Read-only file system",
    "Connection refused",
    "Connection reset by peer",
    "Too many open files",
    "Resource temporarily unavailable",
    "Operation not permitted",
    "Invalid argument",
    "Connection timed out",
    "No space left on device",
    "Is a directory",
    "Not a directory",
];

/// What the servers said, as bench shows it: one line per known error (a variable part the
/// copy cannot vouch for as `…`), and how many lines it left unshown.
pub fn summarize(server: &str, output: &str, copy: &Copy) -> String {
    let mut shown = Vec::new();
    let mut unknown = 0usize;
    for raw in output.lines() {
        let Some((level, message)) = split_level(raw) else {
            continue;
        };
        if !matches!(
            level,
            "emerg" | "alert" | "crit" | "error" | "ALERT" | "ERROR"
        ) {
            continue;
        }
        let (message, place) = location(message, copy);
        let templates = if server == "nginx" { NGINX } else { FPM };
        match templates
            .iter()
            .find_map(|t| fill(t, message, copy).map(|m| (t, m)))
        {
            Some((_, m)) => {
                let line = format!("{server}: [{}] {m}{place}", level.to_ascii_lowercase());
                let line = crate::escape::line(&line).into_owned();
                if !shown.contains(&line) {
                    shown.push(line);
                }
            }
            None => unknown += 1,
        }
    }
    if unknown > 0 {
        shown.push(format!(
            "{server}: {unknown} error line{} lemplint does not recognise (not shown: a server's output can hold bytes from outside the tree; --keep keeps the logs)",
            if unknown == 1 { "" } else { "s" }
        ));
    }
    if shown.is_empty() {
        shown.push(format!("{server}: no error message"));
    }
    shown.join("\n")
}

/// `nginx: [emerg] msg`, `2026/01/01 00:00:00 [error] 12#12: *3 msg`, `[01-Jan-2026
/// 00:00:00] ERROR: msg`, `ERROR: msg` → (level, msg).
fn split_level(line: &str) -> Option<(&str, &str)> {
    for level in ["emerg", "alert", "crit", "error", "warn", "notice", "info"] {
        let tag = format!("[{level}] ");
        if let Some(at) = line.find(&tag) {
            let rest = &line[at + tag.len()..];
            // error.log: `PID#TID: *CONN ` before the message.
            let rest = match rest.split_once(": ") {
                Some((head, tail)) if head.bytes().all(|b| b.is_ascii_digit() || b == b'#') => tail,
                _ => rest,
            };
            let rest = match rest.strip_prefix('*') {
                Some(r) => r.split_once(' ').map_or(r, |(_, m)| m),
                None => rest,
            };
            return Some((level, rest));
        }
    }
    for level in ["ALERT", "ERROR", "WARNING", "NOTICE"] {
        let tag = format!("{level}: ");
        if let Some(at) = line.find(&tag) {
            let rest = &line[at + tag.len()..];
            // php-fpm's `pid N, fn(), line N: ` before the message.
            let rest = match rest.strip_prefix("pid ") {
                Some(r) => r.split_once(": ").map_or(r, |(_, m)| m),
                None => rest,
            };
            return Some((level, rest));
        }
    }
    None
}

/// Takes nginx's ` in FILE:LINE` off the message, naming the place as the tree's file:line
/// when FILE is the copy's nginx.conf.
fn location<'m>(message: &'m str, copy: &Copy) -> (&'m str, String) {
    let Some(at) = message.rfind(" in ") else {
        return (message, String::new());
    };
    let Some((file, line)) = message[at + 4..].rsplit_once(':') else {
        return (message, String::new());
    };
    let Ok(line) = line.trim().parse::<usize>() else {
        return (message, String::new());
    };
    let place = if std::path::Path::new(file) == copy.nginx_conf {
        match copy
            .origin
            .get(line.saturating_sub(1))
            .and_then(|o| o.as_ref())
        {
            Some(origin) => format!(" (at {origin})"),
            None => format!(" (line {line} of the private copy)"),
        }
    } else if std::path::Path::new(file).starts_with(copy.dir) {
        format!(" (in the private copy, line {line})")
    } else {
        " (in a file outside the private copy)".to_string()
    };
    (&message[..at], place)
}

/// The message as `template` with each variable part kept when [`safe`], or `None` when the
/// message is not this template.
fn fill(template: &str, message: &str, copy: &Copy) -> Option<String> {
    let parts: Vec<&str> = template.split('*').collect();
    let mut rest = message.strip_prefix(parts[0])?;
    let mut out = parts[0].to_string();
    for (i, lit) in parts.iter().enumerate().skip(1) {
        let last = i == parts.len() - 1;
        let at = if last {
            if lit.is_empty() {
                rest.len()
            } else {
                rest.strip_suffix(lit)?.len()
            }
        } else if lit.is_empty() {
            rest.len()
        } else {
            rest.find(lit)?
        };
        let var = &rest[..at];
        out.push_str(if safe(var, copy) { var } else { "…" });
        out.push_str(lit);
        rest = &rest[at + lit.len()..];
    }
    rest.is_empty().then_some(out)
}

/// Whether a variable part may be shown: nothing from outside the tree.
fn safe(v: &str, copy: &Copy) -> bool {
    if v.is_empty() {
        return true;
    }
    if v.len() > 200 || v.chars().any(|c| c.is_control()) {
        return false;
    }
    // Numbers, addresses, ports.
    if v.chars().all(|c| c.is_ascii_digit() || ".:[]".contains(c)) {
        return true;
    }
    // An errno's text, with or without its number: `98: Address already in use`.
    let text = match v.split_once(": ") {
        Some((n, text)) if n.bytes().all(|b| b.is_ascii_digit()) => text,
        _ => v,
    };
    if ERRNO.contains(&text) {
        return true;
    }
    // Words of the copy itself (the tree's, or bench's own paths and names).
    copy.text.contains(v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn copy<'a>(text: &str, origin: &'a [Option<String>]) -> Copy<'a> {
        Copy {
            dir: Path::new("/p"),
            text: text.to_string(),
            nginx_conf: Path::new("/p/nginx.conf"),
            origin,
        }
    }

    #[test]
    fn a_known_message_keeps_only_what_the_copy_holds() {
        let origin = [None, Some("etc/nginx/nginx.conf:7".to_string())];
        let c = copy("events {}\n    frobnicate on;\n", &origin);
        let out = summarize(
            "nginx",
            "nginx: [emerg] unknown directive \"frobnicate\" in /p/nginx.conf:2\nnginx: configuration file /p/nginx.conf test failed\n",
            &c,
        );
        assert_eq!(
            out,
            "nginx: [emerg] unknown directive \"frobnicate\" (at etc/nginx/nginx.conf:7)"
        );
        // nginx quoting a line of a file outside the tree: the value is not the copy's.
        let out = summarize(
            "nginx",
            "nginx: [emerg] invalid value \"SECRET-LINE\" in /outside/file:1\n",
            &c,
        );
        assert_eq!(
            out,
            "nginx: [emerg] invalid value \"…\" (in a file outside the private copy)"
        );
    }

    #[test]
    fn an_unknown_message_is_counted_not_shown() {
        let c = copy("", &[]);
        let out = summarize(
            "nginx",
            "2026/01/01 00:00:00 [error] 1#1: init_by_lua error: SECRET\nstack traceback: SECRET\n",
            &c,
        );
        assert!(!out.contains("SECRET"), "{out}");
        assert!(
            out.contains("1 error line lemplint does not recognise"),
            "{out}"
        );
        let out = summarize(
            "php-fpm",
            "[07-Dec-2026 00:49:12] ERROR: unable to bind listening socket for address '/p/a.sock': Address already in use (98)\n[07-Dec-2026 00:49:12] ERROR: FPM initialization failed\n",
            &copy("listen = /p/a.sock", &[]),
        );
        assert_eq!(out, "php-fpm: [error] unable to bind listening socket for address '/p/a.sock': Address already in use (98)\nphp-fpm: [error] FPM initialization failed");
    }

    #[test]
    fn error_log_lines_and_errno_texts() {
        let c = copy("", &[]);
        let out = summarize(
            "nginx",
            "2026/12/07 00:00:00 [emerg] 12#12: bind() to 127.0.0.1:8080 failed (98: Address already in use)\n",
            &c,
        );
        assert_eq!(
            out,
            "nginx: [emerg] bind() to 127.0.0.1:8080 failed (98: Address already in use)"
        );
    }
}
