#!/usr/bin/env python3
"""Generate src/analysis/nginx_advisories/table.rs from nginx.org's security advisories.

Reads xml/en/security_advisories.xml from the bare mirror of nginx/nginx.org (under
/work/.mirror or $LEMPLINT_MIRRORS): each advisory's name, CVE, severity, advisory URL and
its `vulnerable` / `good` version lists come from that file. What configuration can trigger
each one is not in the XML: TRIGGERS below says it, per CVE, from the advisory's entry in
nginx's changes.xml (quoted beside each line). An advisory without an entry there is a
generator error, so a new advisory cannot slip in untriaged. nginx/Windows-only advisories
and the "all versions, no fix" one are left out (SKIP).

  scripts/gen-nginx-advisories.py           rewrite the table
  scripts/gen-nginx-advisories.py --check   exit 1 when the checked-in table is out of date

Deterministic: same mirror, same output.
"""

import os
import re
import subprocess
import sys

MIRRORS = os.environ.get("LEMPLINT_MIRRORS", "/work/.mirror")
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src", "analysis",
                   "nginx_advisories", "table.rs")

# What configuration reaches each advisory: alternatives, each a list of conditions that
# must all hold. Conditions (Rust `Cond`):
#   ("dir", name)            the directive is used (and not set to `off`)
#   ("arg", name, value)     the directive is used with that argument (any position)
#   ("in", name, block)      the directive is used inside a `block` (stream, mail)
#   ("http2",) ("http3",)    HTTP/2 / HTTP/3 is enabled (listen parameter or http2/http3 on)
#   ("listen", param)        a listen with that parameter (ssl, spdy)
#   ("tls_upstream",)        proxy_pass https:// or grpc_pass grpcs://
#   ("any",)                 every configuration serving HTTP (request parsing, core)
#   ("nested_rewrite",)      a `rewrite` whose regex has a capture inside another capture
TRIGGERS = {
    # "when using the map directive with regex matching …"
    "2026-42533": [[("dir", "map")]],
    # "using unnamed regex captures with the "slice" directive or background cache update"
    "2026-60005": [[("dir", "slice")], [("dir", "proxy_cache_background_update")],
                   [("dir", "fastcgi_cache_background_update")]],
    # "proxied backend response with the ngx_http_ssi_filter_module"
    "2026-56434": [[("dir", "ssi")]],
    # "when using HTTP/3 …"
    "2026-42530": [[("http3",)]],
    # "ignore_invalid_headers off; … proxying … to HTTP/2 or gRPC backend"
    "2026-42055": [[("arg", "ignore_invalid_headers", "off"), ("dir", "grpc_pass")],
                   [("arg", "ignore_invalid_headers", "off"), ("arg", "proxy_http_version", "2")]],
    # "decoding from UTF-8 via the "charset_map" directive"
    # (a map is only used when `charset` converts with it)
    "2026-48142": [[("dir", "charset_map"), ("dir", "charset")]],
    "2026-42934": [[("dir", "charset_map"), ("dir", "charset")]],
    # "overlapping captures in ngx_http_rewrite_module"
    "2026-9256": [[("nested_rewrite",)]],
    # "when using the "proxy_set_body" directive … to an HTTP/2 backend"
    "2026-42926": [[("dir", "proxy_set_body"), ("arg", "proxy_http_version", "2")]],
    # "a specially crafted request by ngx_http_rewrite_module"
    "2026-42945": [[("dir", "rewrite")]],
    # "a specially crafted response by ngx_http_scgi_module or ngx_http_uwsgi_module"
    "2026-42946": [[("dir", "scgi_pass")], [("dir", "uwsgi_pass")]],
    # "when using HTTP/3, processing of connection migration …"
    "2026-40460": [[("http3",)]],
    # "DNS server response processing if the "ssl_ocsp" directive was used"
    "2026-40701": [[("dir", "ssl_ocsp"), ("dir", "resolver")]],
    # "a COPY or MOVE request in a location with "alias""
    "2026-27654": [[("arg", "dav_methods", "COPY"), ("dir", "alias")],
                   [("arg", "dav_methods", "MOVE"), ("dir", "alias")]],
    # "a specially crafted mp4 file by the ngx_http_mp4_module"
    "2026-27784": [[("dir", "mp4")]],
    "2026-32647": [[("dir", "mp4")]],
    # "if the CRAM-MD5 or APOP authentication methods were used"
    "2026-27651": [[("arg", "smtp_auth", "cram-md5")], [("arg", "pop3_auth", "cram-md5")],
                   [("arg", "pop3_auth", "apop")], [("arg", "imap_auth", "cram-md5")]],
    # "inject data in auth_http requests, as well as in the XCLIENT command"
    "2026-28753": [[("dir", "auth_http")]],
    # "OCSP rejecting a client certificate in the stream module"
    "2026-28755": [[("in", "ssl_ocsp", "stream")]],
    # "inject plain text data in the response from an SSL backend"
    "2026-1642": [[("tls_upstream",)]],
    # "the "none" authentication method in the ngx_mail_smtp_module"
    "2025-53859": [[("arg", "smtp_auth", "none")]],
    # "TLSv1.3 SNI … to bypass client SSL certificates verification"
    "2025-23419": [[("dir", "ssl_verify_client")]],
    # mp4 module
    "2024-7347": [[("dir", "mp4")]],
    # "when using HTTP/3 …"
    "2024-32760": [[("http3",)]],
    "2024-31079": [[("http3",)]],
    "2024-35200": [[("http3",)]],
    "2024-34161": [[("http3",)]],
    "2024-24989": [[("http3",)]],
    "2024-24990": [[("http3",)]],
    # mp4 module
    "2022-41741": [[("dir", "mp4")]],
    "2022-41742": [[("dir", "mp4")]],
    # "if the "resolver" directive was used"
    "2021-23017": [[("dir", "resolver")]],
    # "when using HTTP/2 a client might cause …"
    "2019-9511": [[("http2",)]],
    "2019-9513": [[("http2",)]],
    "2019-9516": [[("http2",)]],
    "2018-16843": [[("http2",)]],
    "2018-16844": [[("http2",)]],
    # mp4 module
    "2018-16845": [[("dir", "mp4")]],
    # "a specially crafted request … in the range filter"
    "2017-7529": [[("any",)]],
    # "writing a specially crafted request body to a temporary file"
    "2016-4450": [[("any",)]],
    # "if the "resolver" directive was used"
    "2016-0742": [[("dir", "resolver")]],
    "2016-0746": [[("dir", "resolver")]],
    "2016-0747": [[("dir", "resolver")]],
    # "a shared SSL session cache or the same TLS session ticket key … multiple servers"
    "2014-3616": [[("dir", "ssl_session_cache")], [("dir", "ssl_session_ticket_key")]],
    # "pipelined commands were not discarded after STARTTLS command in SMTP proxy"
    "2014-3556": [[("dir", "starttls")]],
    # "ngx_http_spdy_module"
    "2014-0133": [[("listen", "spdy")]],
    "2014-0088": [[("listen", "spdy")]],
    # "a character following an unescaped space in a request line"
    "2013-4547": [[("any",)]],
    # "specially crafted HTTP backend responses"
    "2013-2070": [[("dir", "proxy_pass")]],
    # "a stack-based buffer overflow … a specially crafted request"
    "2013-2028": [[("any",)]],
    # mp4 module
    "2012-2089": [[("dir", "mp4")]],
    # "specially crafted backend responses"
    "2012-1180": [[("dir", "proxy_pass")], [("dir", "fastcgi_pass")], [("dir", "uwsgi_pass")],
                  [("dir", "scgi_pass")]],
    # resolver
    "2011-4315": [[("dir", "resolver")]],
    # "The renegotiation vulnerability in SSL protocol"
    "2009-3555": [[("listen", "ssl")]],
    # "Directory traversal vulnerability" (WebDAV COPY/MOVE destinations)
    "2009-3898": [[("dir", "dav_methods")]],
    # request parsing
    "2009-2629": [[("any",)]],
    "2009-3896": [[("any",)]],
}

# nginx/Windows only, or every version with no fix.
SKIP_VULNERABLE = ("nginx/Windows", "all")


def version(text):
    parts = text.strip().split(".")
    if len(parts) != 3 or not all(p.isdigit() for p in parts):
        raise SystemExit(f"gen-nginx-advisories: not a version: {text!r}")
    return tuple(int(p) for p in parts)


def ranges(text):
    out = []
    for r in text.split(","):
        r = r.strip()
        lo, _, hi = r.partition("-")
        hi = hi or lo
        out.append((version(lo), version(hi)))
    return out


def main():
    xml = subprocess.run(
        ["git", "--git-dir", os.path.join(MIRRORS, "nginx+nginx.org", "repo"), "show",
         "HEAD:xml/en/security_advisories.xml"],
        check=True, capture_output=True, text=True).stdout
    items = re.findall(r"<item\s([^>]*?)/?>", xml, re.S)
    rows = []
    for attrs in items:
        a = dict(re.findall(r'(\w+)="([^"]*)"', attrs))
        vulnerable = a.get("vulnerable", "")
        if vulnerable.startswith(SKIP_VULNERABLE) or "cve" not in a:
            continue
        cve = a["cve"]
        if cve not in TRIGGERS:
            raise SystemExit(f"gen-nginx-advisories: CVE-{cve} has no trigger in TRIGGERS")
        good = [version(g.strip().rstrip("+")) for g in a["good"].split(",")]
        rows.append((cve, a["name"], a.get("severity", ""), a.get("advisory", ""),
                     ranges(vulnerable), good, TRIGGERS[cve]))

    def v(t):
        return f"V({t[0]}, {t[1]}, {t[2]})"

    def cond(c):
        kind = c[0]
        if kind == "dir":
            return f'Cond::Directive("{c[1]}")'
        if kind == "arg":
            return f'Cond::Argument("{c[1]}", "{c[2]}")'
        if kind == "in":
            return f'Cond::Inside("{c[1]}", "{c[2]}")'
        if kind == "listen":
            return f'Cond::Listen("{c[1]}")'
        return {"http2": "Cond::Http2", "http3": "Cond::Http3",
                "tls_upstream": "Cond::TlsUpstream", "any": "Cond::Any",
                "nested_rewrite": "Cond::NestedRewriteCaptures"}[kind]

    out = ["// Generated by scripts/gen-nginx-advisories.py from nginx.org's",
           "// xml/en/security_advisories.xml (and the triggers in the script). Do not edit.",
           "",
           "use super::{Advisory, Cond, V};",
           "",
           "pub const ADVISORIES: &[Advisory] = &["]
    for cve, name, sev, url, vuln, good, trig in rows:
        out.append("    Advisory {")
        out.append(f'        cve: "CVE-{cve}",')
        out.append(f'        name: "{name}",')
        out.append(f'        severity: "{sev}",')
        out.append(f'        url: "{url}",')
        out.append("        vulnerable: &[" + ", ".join(f"({v(lo)}, {v(hi)})" for lo, hi in vuln) + "],")
        out.append("        good: &[" + ", ".join(v(g) for g in good) + "],")
        out.append("        triggers: &[" + ", ".join(
            "&[" + ", ".join(cond(c) for c in alt) + "]" for alt in trig) + "],")
        out.append("    },")
    out.append("];")
    text = "\n".join(out) + "\n"
    if "--check" in sys.argv:
        with open(OUT) as f:
            sys.exit(0 if f.read() == text else 1)
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as f:
        f.write(text)


main()
