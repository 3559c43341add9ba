//! Which optional modules an nginx has, so that a directive of a module it lacks is reported
//! as nginx reports it: `unknown directive "more_set_headers"`.
//!
//! Only positive evidence counts. A repository rarely says what its nginx was built with
//! (Debian loads modules from `/etc/nginx/modules-enabled/`, which packages install, and
//! OpenResty builds Lua in), so without `[host] nginx-modules` every module the catalogue
//! knows is assumed present and nothing is reported. With the list, a module counts as
//! present when the list names it or the configuration `load_module`s it.
//!
//! The list takes the words people have at hand, all compared after [`normalise`]:
//! - `nginx -V`'s configure arguments: `--with-http_ssl_module`, `--with-stream=dynamic`,
//!   `--add-dynamic-module=/build/headers-more-nginx-module` (the source directory's name);
//! - module names: `ngx_http_headers_more_filter_module`, or the `.so` file name;
//! - Debian package names: `libnginx-mod-http-headers-more-filter`.

use super::data::OPTIONAL_MODULES;
use super::Entry;
use std::collections::HashSet;

/// The optional modules one nginx has.
#[derive(Clone, Debug, Default)]
pub struct Modules {
    words: HashSet<String>,
}

/// The comparable form of a module word: lower case, `-` as `_`, without the path, the
/// `--with-`/`--add-module=` prefixes, `=dynamic`, `.so`, `libnginx-mod-`, `ngx_` and
/// `_module`. `--with-http_ssl_module`, `ngx_http_ssl_module` and `http-ssl` are all
/// `http_ssl`.
pub fn normalise(word: &str) -> String {
    let mut w = word.trim().to_ascii_lowercase().replace('-', "_");
    for prefix in ["__add_dynamic_module=", "__add_module="] {
        if let Some(rest) = w.strip_prefix(prefix) {
            w = rest.trim_end_matches('/').to_string();
        }
    }
    if let Some(i) = w.rfind('/') {
        w = w[i + 1..].to_string();
    }
    for prefix in ["__with_", "libnginx_mod_", "ngx_"] {
        if let Some(rest) = w.strip_prefix(prefix) {
            w = rest.to_string();
        }
    }
    for suffix in ["=dynamic", ".so", "_module"] {
        if let Some(rest) = w.strip_suffix(suffix) {
            w = rest.to_string();
        }
    }
    w
}

/// The configure switches an nginx-source module needs (`http_ssl`), when it is optional.
fn gates(module: &str) -> Option<&'static [&'static str]> {
    OPTIONAL_MODULES
        .binary_search_by(|(m, _)| m.cmp(&module))
        .ok()
        .map(|i| OPTIONAL_MODULES[i].1)
}

/// Whether an nginx built with nothing but `./configure` has the entry's module.
pub fn is_standard(e: &Entry) -> bool {
    !e.dynamic && gates(e.module).is_none()
}

/// The source repository a third-party entry was read from (`headers-more-nginx-module`).
fn repository(e: &Entry) -> &'static str {
    let repo = e.source.split(':').next().unwrap_or("");
    repo.rsplit('+').next().unwrap_or(repo)
}

impl Modules {
    /// From the `[host] nginx-modules` list; an item may hold several words (a pasted
    /// `nginx -V` line), and words that are not module switches (`--prefix=…`) are harmless.
    pub fn new<S: AsRef<str>>(list: &[S]) -> Modules {
        let mut m = Modules::default();
        for item in list {
            for word in item.as_ref().split_whitespace() {
                m.add(word);
            }
        }
        m
    }

    /// A module the configuration loads (`load_module modules/ngx_x_module.so;`).
    pub fn add(&mut self, word: &str) {
        let w = normalise(word);
        if !w.is_empty() {
            self.words.insert(w);
        }
    }

    /// Whether this nginx has the module that defines `e`.
    pub fn has(&self, e: &Entry) -> bool {
        if is_standard(e) || self.words.contains(&normalise(e.module)) {
            return true;
        }
        if e.dynamic {
            return self.words.contains(&normalise(repository(e)));
        }
        gates(e.module).is_some_and(|g| g.iter().all(|w| self.words.contains(*w)))
    }

    /// How a user gets the module of `e`, for the finding's help.
    pub fn how_to_get(e: &Entry) -> String {
        if e.dynamic {
            format!(
                "it is a directive of {} (from {}), a third-party module: install it and load \
                 it with `load_module modules/{}.so;` (built in? add it to `[host] \
                 nginx-modules`)",
                e.module,
                repository(e),
                e.module
            )
        } else {
            let switches: Vec<String> = gates(e.module)
                .unwrap_or(&[])
                .iter()
                .map(|g| match *g {
                    "stream" | "mail" => format!("`--with-{g}`"),
                    g => format!("`--with-{g}_module`"),
                })
                .collect();
            format!(
                "it is a directive of {}, which nginx builds only with {}; if this nginx has \
                 it, add it to `[host] nginx-modules`",
                e.module,
                switches.join(" and ")
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::catalogue::lookup;

    #[test]
    fn the_words_people_have_name_the_same_module() {
        for w in [
            "--with-http_ssl_module",
            "ngx_http_ssl_module",
            "http-ssl",
            "ngx_http_ssl_module.so",
            "modules/ngx_http_ssl_module.so",
        ] {
            assert_eq!(normalise(w), "http_ssl", "{w}");
        }
        assert_eq!(normalise("--with-stream=dynamic"), "stream");
        assert_eq!(
            normalise("--add-dynamic-module=/build/headers-more-nginx-module/"),
            "headers_more_nginx"
        );
        assert_eq!(
            normalise("libnginx-mod-http-headers-more-filter"),
            "http_headers_more_filter"
        );
    }

    #[test]
    fn a_module_is_present_when_listed_by_any_of_its_names() {
        let more = &lookup("more_set_headers")[0];
        assert!(!Modules::new(&["--with-http_ssl_module"]).has(more));
        assert!(Modules::new(&["libnginx-mod-http-headers-more-filter"]).has(more));
        assert!(Modules::new(&["--add-dynamic-module=../headers-more-nginx-module"]).has(more));
        let cert = lookup("ssl_certificate")
            .iter()
            .find(|e| e.module == "ngx_http_ssl_module")
            .unwrap();
        assert!(!Modules::new::<&str>(&[]).has(cert));
        assert!(Modules::new(&["--prefix=/etc/nginx --with-http_ssl_module"]).has(cert));
        // A standard module needs no mention.
        assert!(Modules::new::<&str>(&[]).has(&lookup("gzip")[0]));
    }

    #[test]
    fn stream_submodules_come_with_the_stream_switch() {
        let proxy_pass = lookup("proxy_pass")
            .iter()
            .find(|e| e.module.starts_with("ngx_stream_"))
            .unwrap();
        assert!(!Modules::new(&["--with-http_ssl_module"]).has(proxy_pass));
        assert!(Modules::new(&["--with-stream"]).has(proxy_pass));
        let preread = &lookup("ssl_preread")[0];
        assert!(!Modules::new(&["--with-stream"]).has(preread));
        assert!(Modules::new(&["--with-stream", "--with-stream_ssl_preread_module"]).has(preread));
    }
}
