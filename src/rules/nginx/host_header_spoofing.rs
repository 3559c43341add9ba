//! NGX131 host-header-spoofing: `proxy_set_header Host $http_host` forwards the `Host`
//! header exactly as the client wrote it — any value nginx's syntax check lets through,
//! with any port, and nothing at all from an HTTP/1.0 client — where `$host` (the
//! validated, lowercased name, else the server's name) is what the backend should build
//! its links, redirects and password-reset mails from. `$http_x_forwarded_host` sent as
//! `Host` or `X-Forwarded-Host` passes a header the client invents outright.
//!
//! The directive's header name and value are read as nginx reads them (quotes, escapes,
//! `${name}`, variable names without case).

use crate::analysis::variables::PartKind;
use crate::fix::{Edit, Fix};
use crate::rules::{Context, Rule};

declare_rule! {
    pub struct HostHeaderSpoofing;
    code: NGX131,
    name: "host-header-spoofing",
    lang: nginx,
    category: Security,
    severity: Warning,
    fix: Sometimes,
}

/// The directives that set a request header toward the upstream.
const SETTERS: [&str; 2] = ["proxy_set_header", "grpc_set_header"];

impl Rule for HostHeaderSpoofing {
    fn check(&self, cx: &mut Context<'_>) {
        for name in SETTERS {
            for d in cx.nginx_directives(name) {
                let (Some(header), Some(value)) = (d.arg(0), d.arg(1)) else {
                    continue;
                };
                let header_name = header.value().to_ascii_lowercase();
                let is_host = header_name == "host";
                if !is_host && header_name != "x-forwarded-host" {
                    continue;
                }
                let script = value.variables();
                for part in &script.parts {
                    let Some(key) = part.kind.key() else {
                        continue;
                    };
                    let shown = header.value();
                    let (message, help, fix) = match key.as_str() {
                        "http_host" if is_host => (
                            format!(
                                "`{shown}` is sent as the client wrote it: `$http_host` is the raw \
                                 `Host` header (any port, empty from HTTP/1.0 clients)"
                            ),
                            "use `$host`: the validated host name, or the server's name when the \
                             request has none (it drops the port; write `$host:$server_port` if \
                             the backend needs it)",
                            true,
                        ),
                        "http_x_forwarded_host" => (
                            format!(
                                "`{shown}` is taken from the client's own `X-Forwarded-Host` \
                                 header, which any client can send with any value"
                            ),
                            "use `$host`; forward a client's `X-Forwarded-Host` only from a \
                             trusted proxy (check `$remote_addr`, or map it from a list)",
                            is_host,
                        ),
                        _ => continue,
                    };
                    let file = d.file().clone();
                    // `${http_host}x` keeps its meaning only with the braces kept.
                    let braced = matches!(part.kind, PartKind::Variable { braced: true, .. });
                    let with = if braced { "${host}" } else { "$host" };
                    let diag = cx.report(&file, part.span, message);
                    diag.help = Some(help.into());
                    if fix {
                        // Unsafe: `$host` has no port and is lowercased, which a backend
                        // building absolute URLs may notice.
                        diag.fix = Some(Fix::unsafe_(
                            "Send `$host` instead",
                            vec![Edit::replace(&file, part.span, with)],
                        ));
                    }
                }
            }
        }
    }
}
