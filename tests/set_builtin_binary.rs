//! NGX186's premise against the real nginx: `set` on a variable nginx's core or upstream
//! module defines makes `nginx -t` fail with "the duplicate "…" variable", which lemplint
//! reports in the same words; the variables nginx lets `set` change and the prefix families
//! pass `nginx -t`, and lemplint is silent on them.
//!
//! Without nginx the test is skipped with a note, or fails when `CI=true`.

mod common;
use common::{nginx_head, nginx_test, required_nginx, run_lemplint};

#[test]
fn set_on_nginxs_own_variables_is_refused_as_lemplint_says() {
    let Some(nginx) = required_nginx("tests/set_builtin_binary.rs") else {
        return;
    };
    let cases = [
        ("scheme", true),
        ("host", true),
        ("uri", true),
        ("request_uri", true),
        ("document_root", true),
        ("upstream_addr", true),
        ("args", false),
        ("limit_rate", false),
        ("http_x_forwarded_proto", false),
        ("arg_page", false),
        ("cookie_session", false),
        ("my_scheme", false),
    ];
    for (var, refused) in cases {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path();
        std::fs::create_dir_all(p.join("tmp")).unwrap();
        let conf = format!(
            "{}    server {{\n        listen 127.0.0.1:8;\n        set ${var} x;\n        \
             return 200;\n    }}\n}}\n",
            nginx_head(p)
        );
        std::fs::write(p.join("nginx.conf"), conf).unwrap();
        let t = nginx_test(&nginx, p);
        let said = String::from_utf8_lossy(&t.stderr).into_owned();
        let words = format!("the duplicate \"{var}\" variable");
        assert_eq!(t.status.success(), !refused, "{var}: {said}");
        assert_eq!(said.contains(&words), refused, "{var}: {said}");
        let out = run_lemplint(
            p,
            &[
                "lint",
                "nginx.conf",
                "--select",
                "NGX186",
                "--format",
                "concise",
            ],
            None,
        );
        let report = String::from_utf8_lossy(&out.stdout);
        assert_eq!(
            report.contains(&format!("error[NGX186] {words}")),
            refused,
            "{var}: {report}"
        );
    }
}
