//! `lemplint server` driven as an editor drives it, over stdio: initialize, open a file,
//! receive its diagnostics, fix a cross-file problem in another file of the stack (the first
//! file's diagnostic is cleared), take a code action and apply its edit, hover, go to
//! definition, the outline, shutdown.

#[path = "common/lsp_client.rs"]
mod lsp_client;

use lsp_client::{codes, uri, Client};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

fn write(root: &Path, rel: &str, text: &str) -> PathBuf {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(&p, text).unwrap();
    p
}

const NGINX: &str =
    "events {}\nhttp {\n    server_tokens on;\n    include /etc/nginx/sites-enabled/*;\n}\n";
const SITE: &str = "server {\n    listen 80;\n    root /srv/www;\n    set $backend php;\n    location ~ \\.php$ {\n        fastcgi_pass unix:/run/php/php8.2-fpm.sock;\n        add_header X-Backend $backend;\n    }\n}\n";
const POOL: &str = "[www]\nuser = www-data\ngroup = www-data\nlisten = /run/php/other.sock\nlisten.owner = www-data\nlisten.group = www-data\npm = dynamic\npm.max_children = 5\npm.start_servers = 2\npm.min_spare_servers = 1\npm.max_spare_servers = 3\npm.max_requests = 500\n";

/// Applies LSP text edits (non-overlapping, positions in the original) to a text.
fn apply(text: &str, edits: &[Value]) -> String {
    let offset = |pos: &Value| {
        let (line, ch) = (
            pos["line"].as_u64().unwrap() as usize,
            pos["character"].as_u64().unwrap() as usize,
        );
        let start: usize = text.split_inclusive('\n').take(line).map(str::len).sum();
        start + ch
    };
    let mut edits: Vec<(usize, usize, String)> = edits
        .iter()
        .map(|e| {
            (
                offset(&e["range"]["start"]),
                offset(&e["range"]["end"]),
                e["newText"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    edits.sort_by_key(|e| std::cmp::Reverse(e.0));
    let mut out = text.to_string();
    for (from, to, new) in edits {
        out.replace_range(from..to, &new);
    }
    out
}

#[test]
fn an_editor_session() {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    let nginx = write(&root, "etc/nginx/nginx.conf", NGINX);
    let site = write(&root, "etc/nginx/sites-enabled/site", SITE);
    write(
        &root,
        "etc/php/8.2/fpm/php-fpm.conf",
        "[global]\ninclude=/etc/php/8.2/fpm/pool.d/*.conf\n",
    );
    let pool = write(&root, "etc/php/8.2/fpm/pool.d/www.conf", POOL);
    // NGX102 is a hardening rule: selected here, as a team that wants it would.
    write(&root, "lemplint.toml", "extend-select = [\"hardening\"]\n");
    let (nginx_uri, site_uri, pool_uri) = (uri(&nginx), uri(&site), uri(&pool));

    let mut c = Client::start(Path::new(env!("CARGO_BIN_EXE_lemplint")), &root);
    let init = c.request(
        "initialize",
        json!({"processId": null, "rootUri": uri(&root),
               "capabilities": {"workspace": {"didChangeWatchedFiles": {"dynamicRegistration": true}}},
               "workspaceFolders": [{"uri": uri(&root), "name": "stack"}]}),
    );
    assert!(
        init["capabilities"]["codeActionProvider"].is_object(),
        "{init}"
    );
    c.notify("initialized", json!({}));
    let register = c.wait(
        |m| m["method"] == "client/registerCapability",
        "the config watcher",
    );
    assert_eq!(
        register["params"]["registrations"][0]["method"],
        "workspace/didChangeWatchedFiles"
    );
    c.send(json!({"jsonrpc": "2.0", "id": register["id"], "result": null}));

    // Open the site: its diagnostics, from the whole stack.
    c.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": site_uri, "languageId": "nginx", "version": 1, "text": SITE}}),
    );
    let has = |code: &'static str| move |c: &[String]| c.iter().any(|x| x == code);
    let lacks = |code: &'static str| move |c: &[String]| !c.iter().any(|x| x == code);
    let diags = c.diagnostics_until(&site_uri, has("STK003"));
    let stk003 = diags.iter().find(|d| d["code"] == "STK003").unwrap();
    assert_eq!(
        stk003["range"]["start"],
        json!({"line": 5, "character": 21})
    );
    // The other files of the stack get theirs too.
    c.diagnostics_until(&nginx_uri, has("NGX022"));

    // Fix the pool's socket in the pool file, unsaved: the site's STK003 goes.
    c.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": pool_uri, "languageId": "ini", "version": 1, "text": POOL}}),
    );
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": pool_uri, "version": 2},
               "contentChanges": [{"range": {"start": {"line": 3, "character": 9},
                                             "end": {"line": 3, "character": 28}},
                                   "text": "/run/php/php8.2-fpm.sock"}]}),
    );
    c.diagnostics_until(&site_uri, lacks("STK003"));
    assert_eq!(
        std::fs::read_to_string(&pool).unwrap(),
        POOL,
        "the server wrote a file"
    );

    // A code action fixes NGX022 in nginx.conf; its edit, applied, clears it.
    c.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": nginx_uri, "languageId": "nginx", "version": 1, "text": NGINX}}),
    );
    let main = c.diagnostics_until(&nginx_uri, has("NGX022"));
    let ngx022 = main.iter().find(|d| d["code"] == "NGX022").unwrap().clone();
    let actions = c.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": nginx_uri}, "range": ngx022["range"],
               "context": {"diagnostics": [ngx022]}}),
    );
    let titles: Vec<&str> = actions
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["title"].as_str().unwrap())
        .collect();
    assert!(
        titles.contains(&"Suppress NGX022 here (with a reason)"),
        "{titles:?}"
    );
    assert!(
        titles.contains(&"Fix all safe problems in this file (lemplint)"),
        "{titles:?}"
    );
    let fix = actions
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["isPreferred"] == true)
        .unwrap_or_else(|| panic!("no preferred fix in {titles:?}"));
    let edits = fix["edit"]["changes"][&nginx_uri].as_array().unwrap();
    let fixed = apply(NGINX, edits);
    assert!(fixed.contains("server_tokens off;"), "{fixed}");
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": nginx_uri, "version": 2},
               "contentChanges": [{"text": fixed}]}),
    );
    c.diagnostics_until(&nginx_uri, lacks("NGX022"));

    // The suppression action writes a comment that silences the finding.
    let suppressed = {
        let a = actions.as_array().unwrap();
        let s = a
            .iter()
            .find(|a| a["title"] == "Suppress NGX022 here (with a reason)")
            .unwrap();
        apply(NGINX, s["edit"]["changes"][&nginx_uri].as_array().unwrap())
    };
    assert!(
        suppressed.contains(
            "    # lemplint: ignore NGX022 -- <why this is fine here>\n    server_tokens on;"
        ),
        "{suppressed}"
    );

    // Hover: a directive's documentation, a variable's provenance.
    let hover = c.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": site_uri}, "position": {"line": 5, "character": 10}}),
    );
    let text = hover["contents"]["value"].as_str().unwrap();
    assert!(
        text.contains("**fastcgi_pass** — `ngx_http_fastcgi_module`"),
        "{text}"
    );
    assert!(
        text.contains("contexts: location, if in location"),
        "{text}"
    );
    // nginx.org's syntax line and default (none for fastcgi_pass).
    assert!(text.contains("- syntax: `fastcgi_pass address;`"), "{text}");
    assert!(text.contains("- default: none"), "{text}");
    let hover = c.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": site_uri}, "position": {"line": 2, "character": 1}}),
    );
    assert!(hover.is_null() || hover["contents"]["value"].as_str().is_some());

    // Go to definition: include → the file, fastcgi_pass → the pool's listen, $var → set.
    let def = c.request(
        "textDocument/definition",
        json!({"textDocument": {"uri": nginx_uri}, "position": {"line": 3, "character": 6}}),
    );
    assert_eq!(def[0]["uri"], site_uri, "{def}");
    let def = c.request(
        "textDocument/definition",
        json!({"textDocument": {"uri": site_uri}, "position": {"line": 5, "character": 30}}),
    );
    assert_eq!(def[0]["uri"], pool_uri, "{def}");
    assert_eq!(def[0]["range"]["start"], json!({"line": 3, "character": 0}));
    let def = c.request(
        "textDocument/definition",
        json!({"textDocument": {"uri": site_uri}, "position": {"line": 6, "character": 32}}),
    );
    assert_eq!(
        def[0]["range"]["start"],
        json!({"line": 3, "character": 8}),
        "{def}"
    );

    // The outline.
    let symbols = c.request(
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": site_uri}}),
    );
    assert_eq!(symbols[0]["name"], "server");
    assert_eq!(symbols[0]["children"][0]["name"], "location ~ \\.php$");

    // lemplint.toml changes on disk: the settings apply at once.
    let site_diags = c.diagnostics_until(&site_uri, |_| true);
    assert!(
        codes(&site_diags).contains(&"NGX102".to_string()),
        "{site_diags:#?}"
    );
    let config = write(
        &root,
        "lemplint.toml",
        "extend-select = [\"hardening\"]\nignore = [\"NGX102\"]\n",
    );
    c.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": uri(&config), "type": 1}]}),
    );
    c.diagnostics_until(&site_uri, lacks("NGX102"));
    // A broken one is said once, as a message.
    write(&root, "lemplint.toml", "ignore = [\n");
    c.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": uri(&config), "type": 2}]}),
    );
    let shown = c.wait(|m| m["method"] == "window/showMessage", "the config error");
    assert!(
        shown["params"]["message"]
            .as_str()
            .unwrap()
            .contains("lemplint.toml"),
        "{shown}"
    );

    c.request("shutdown", Value::Null);
    c.notify("exit", Value::Null);
    let status = c.child.wait().unwrap();
    assert!(status.success(), "{status}");
}

/// A burst of keystrokes, then a request at once: the lint of each keystroke starts at the
/// keystroke and is cancelled by the next, only the last text's findings are published (no
/// keystroke of the burst is shown half typed), and the request is answered from that text.
#[test]
fn a_burst_of_keystrokes_then_a_request() {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    let clean = "events {}\nhttp {\n    server_tokens off;\n}\n";
    let nginx = write(&root, "etc/nginx/nginx.conf", clean);
    let nginx_uri = uri(&nginx);
    let mut c = Client::start(Path::new(env!("CARGO_BIN_EXE_lemplint")), &root);
    c.request(
        "initialize",
        json!({"processId": null, "capabilities": {},
               "workspaceFolders": [{"uri": uri(&root), "name": "stack"}]}),
    );
    c.notify("initialized", json!({}));
    c.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": nginx_uri, "languageId": "nginx", "version": 1, "text": clean}}),
    );
    let first = c.wait(
        |m| lsp_client::is_diagnostics_for(m, &nginx_uri),
        "the first diagnostics",
    );
    assert_eq!(first["params"]["version"], 1);
    assert!(codes(first["params"]["diagnostics"].as_array().unwrap()).is_empty());

    // `off` becomes `on` a character at a time (`of`, `o`, `o`+`n`), then back and forth:
    // 20 versions, each sent at once.
    let texts = ["of", "o", "on", "onn", "on"];
    let mut version = 1;
    for _ in 0..4 {
        for t in texts {
            version += 1;
            let text = format!("events {{}}\nhttp {{\n    server_tokens {t};\n}}\n");
            c.notify(
                "textDocument/didChange",
                json!({"textDocument": {"uri": nginx_uri, "version": version},
                       "contentChanges": [{"text": text}]}),
            );
        }
    }
    // The last text has `server_tokens on`: its fix is offered at once.
    let range = json!({"start": {"line": 2, "character": 4}, "end": {"line": 2, "character": 21}});
    let actions = c.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": nginx_uri}, "range": range,
               "context": {"diagnostics": []}}),
    );
    let titles: Vec<&str> = actions
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|a| a["title"].as_str())
        .collect();
    assert!(
        titles.iter().any(|t| t.contains("server_tokens")),
        "{titles:?}"
    );
    // What was published before the answer is the last version's, and no earlier one.
    let shown = c.wait(
        |m| lsp_client::is_diagnostics_for(m, &nginx_uri),
        "the last version's diagnostics",
    );
    assert_eq!(shown["params"]["version"], version);
    assert!(codes(shown["params"]["diagnostics"].as_array().unwrap()).contains(&"NGX022".into()));
    c.request("shutdown", Value::Null);
    c.notify("exit", Value::Null);
    let _ = c.child.wait();
}

/// A file opened from outside the workspace folders is linted alone, as `lemplint lint
/// FILE` lints it: a file opened from `/tmp` once made the editor lint every file beside it
/// (#36 item 7).
#[test]
fn a_file_outside_the_workspace_is_linted_alone() {
    let dir = tempfile::tempdir().unwrap();
    let base = std::fs::canonicalize(dir.path()).unwrap();
    let root = base.join("workspace");
    std::fs::create_dir_all(&root).unwrap();
    let conf = "events {}\nhttp {\n    server_tokens on;\n}\n";
    let opened = write(&base, "elsewhere/opened.conf", conf);
    let beside = write(&base, "elsewhere/beside.conf", conf);
    let mut c = Client::start(Path::new(env!("CARGO_BIN_EXE_lemplint")), &root);
    c.request(
        "initialize",
        json!({"processId": null, "rootUri": uri(&root), "capabilities": {},
               "workspaceFolders": [{"uri": uri(&root), "name": "ws"}]}),
    );
    c.notify("initialized", json!({}));
    c.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri(&opened), "languageId": "nginx", "version": 1,
                                "text": conf}}),
    );
    let diags = c.diagnostics_until(&uri(&opened), |codes| !codes.is_empty());
    assert!(codes(&diags).contains(&"NGX022".to_string()), "{diags:?}");
    // Everything that lint published has arrived before the reply to a later request.
    c.request("shutdown", json!(null));
    let beside_uri = uri(&beside);
    assert!(
        !c.seen()
            .iter()
            .any(|m| lsp_client::is_diagnostics_for(m, &beside_uri)),
        "the file beside it was linted: {:#?}",
        c.seen()
    );
    c.notify("exit", json!(null));
}
