//! Templates rendered with the values known for them (`fixtures/rendering/`): an Ansible
//! role's vars and defaults, a Helm chart's values.yaml, a Dockerfile's ENV for envsubst, a
//! placeholder's own default, and `--var`/`--vars`. Findings about a rendered value are shown
//! at the template's line and column with the value and where it came from; a placeholder
//! nothing gives a value stays unknown; fixes and tuning never write a value into the template.

mod common;

use common::run_lemplint;
use serde_json::Value;
use std::path::Path;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// `lemplint lint` as JSON: the findings and the run's summary.
fn lint(args: &[&str]) -> (Vec<Value>, Value) {
    let mut all = vec![
        "lint", "--format", "json", "--cpus", "2", "--memory", "2GiB",
    ];
    all.extend(args);
    let out = run_lemplint(root(), &all, None);
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (
        doc["diagnostics"].as_array().unwrap().clone(),
        doc["summary"].clone(),
    )
}

/// (code, line, column) of each finding.
fn places(found: &[Value]) -> Vec<(String, u64, u64)> {
    found
        .iter()
        .map(|d| {
            (
                d["code"].as_str().unwrap().to_string(),
                d["line"].as_u64().unwrap(),
                d["column"].as_u64().unwrap(),
            )
        })
        .collect()
}

fn labels(d: &Value) -> Vec<String> {
    d["labels"]
        .as_array()
        .map(|l| {
            l.iter()
                .map(|x| x["message"].as_str().unwrap_or("").to_string())
                .collect()
        })
        .unwrap_or_default()
}

fn has(found: &[Value], code: &str) -> bool {
    found.iter().any(|d| d["code"] == code)
}

#[test]
fn an_ansible_role_renders_with_its_vars_then_its_defaults() {
    let (found, summary) = lint(&["fixtures/rendering/role"]);
    let p = places(&found);
    // `server_tokens {{ nginx_server_tokens }};` with the default "on", at the template's
    // own column (the placeholder), and `autoindex {{ … | default('on') }}`.
    assert!(p.contains(&("NGX022".into(), 7, 19)), "{p:?}");
    assert!(p.contains(&("NGX104".into(), 13, 23)), "{p:?}");
    let tokens = found.iter().find(|d| d["code"] == "NGX022").unwrap();
    let l = labels(tokens);
    assert!(
        l.iter()
            .any(|m| m.contains("`{{ nginx_server_tokens }}` is `on`")
                && m.contains("roles/web/defaults/main.yml")),
        "{l:?}"
    );
    let autoindex = found.iter().find(|d| d["code"] == "NGX104").unwrap();
    assert!(labels(autoindex)
        .iter()
        .any(|m| m.contains("the placeholder's default")));
    // vars/main.yml (1024) outranks defaults/main.yml (512); `nginx_cpus` is itself a
    // template and `inventory_hostname` has no value: both stay unknown.
    let rendered = summary["rendered"].as_array().unwrap();
    assert_eq!(rendered.len(), 1);
    let r = rendered[0].as_str().unwrap();
    assert!(r.contains("4 values"), "{r}");
    assert!(
        r.contains("vars/main.yml") && r.contains("defaults/main.yml"),
        "{r}"
    );
    // The file as written is what findings point into.
    let file = found[0]["file"].as_str().unwrap();
    assert!(file.ends_with("templates/nginx.conf.j2"), "{file}");
}

#[test]
fn a_value_given_on_the_command_line_wins() {
    let (found, _) = lint(&[
        "fixtures/rendering/role",
        "--var",
        "nginx_server_tokens=off",
        "--var",
        "nginx_autoindex=off",
    ]);
    assert!(!has(&found, "NGX022"), "{:?}", places(&found));
    assert!(!has(&found, "NGX104"), "{:?}", places(&found));
}

#[test]
fn envsubst_templates_take_the_dockerfiles_env_then_their_defaults() {
    let (found, summary) = lint(&["fixtures/rendering/envsubst"]);
    assert_eq!(places(&found), vec![("NGX104".to_string(), 7, 19)]);
    let r = summary["rendered"][0].as_str().unwrap();
    assert!(r.contains("3 values") && r.contains("Dockerfile"), "{r}");
    // `ENV AUTOINDEX=off` outranks `${AUTOINDEX:-on}`.
    let (found, _) = lint(&["fixtures/rendering/envsubst-env"]);
    assert!(found.is_empty(), "{:?}", places(&found));
}

#[test]
fn a_helm_chart_renders_with_its_values() {
    let (found, _) = lint(&["fixtures/rendering/helm"]);
    let tokens = found
        .iter()
        .find(|d| d["code"] == "NGX022")
        .expect("NGX022");
    assert_eq!(
        (tokens["line"].as_u64(), tokens["column"].as_u64()),
        (Some(3), Some(19))
    );
    assert!(labels(tokens).iter().any(|m| m.contains("values.yaml")));
}

#[test]
fn an_installers_placeholder_gets_a_value_only_from_the_user() {
    let www = "fixtures/rendering/installer/www.conf";
    // No value: the placeholder is unknown, not an invalid number.
    let (found, _) = lint(&[www]);
    assert!(!has(&found, "FPM001"), "{:?}", places(&found));
    // A value php-fpm would refuse is reported at the placeholder.
    let (found, _) = lint(&[www, "--vars", "fixtures/rendering/installer/vars.env"]);
    assert!(
        places(&found).contains(&("FPM001".into(), 7, 19)),
        "{:?}",
        places(&found)
    );
    let (found, _) = lint(&[www, "--vars", "fixtures/rendering/installer/vars.toml"]);
    assert!(!has(&found, "FPM001"), "{:?}", places(&found));
    // A value given with its sigils names the same placeholder.
    let (found, _) = lint(&[www, "--var", "@PHP_MAX_CHILDREN@=-1"]);
    assert!(has(&found, "FPM001"), "{:?}", places(&found));
}

#[test]
fn a_bad_var_is_refused() {
    let out = run_lemplint(
        root(),
        &["lint", "fixtures/rendering/role", "--var", "novalue"],
        None,
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("NAME=VALUE"));
    let out = run_lemplint(
        root(),
        &[
            "lint",
            "fixtures/rendering/role",
            "--vars",
            "fixtures/rendering/missing.toml",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn fixes_go_to_the_template_and_never_write_a_value() {
    // NGX005's fix inserts `worker_processes` above the rendered line; NGX022's would replace
    // the rendered `on`, which is the chart's value, so it is withheld.
    let out = run_lemplint(
        root(),
        &[
            "fix",
            "fixtures/rendering/helm",
            "--diff",
            "--unsafe-fixes",
            "--select",
            "ALL",
            "--cpus",
            "2",
            "--memory",
            "2GiB",
        ],
        None,
    );
    let diff = String::from_utf8_lossy(&out.stdout);
    assert!(diff.contains("+worker_processes auto;"), "{diff}");
    assert!(diff.contains(" events {}"), "{diff}");
    assert!(diff.contains("{{ .Values.nginx.serverTokens }}"), "{diff}");
    assert!(!diff.contains("server_tokens off"), "{diff}");
}

#[test]
fn tune_leaves_a_rendered_value_to_where_it_is_declared() {
    let out = run_lemplint(
        root(),
        &[
            "tune",
            "fixtures/rendering/installer",
            "--vars",
            "fixtures/rendering/installer/vars.toml",
            "--cpus",
            "1",
            "--memory",
            "613MiB",
        ],
        None,
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("pm.max_children comes from `@PHP_MAX_CHILDREN@` = 8")
            && text.contains("vars.toml"),
        "{text}"
    );
    let diff = run_lemplint(
        root(),
        &[
            "tune",
            "fixtures/rendering/installer",
            "--vars",
            "fixtures/rendering/installer/vars.toml",
            "--cpus",
            "1",
            "--memory",
            "613MiB",
            "--diff",
        ],
        None,
    );
    let diff = String::from_utf8_lossy(&diff.stdout);
    assert!(!diff.contains("-pm.max_children"), "{diff}");
}
