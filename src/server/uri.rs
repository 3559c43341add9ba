//! `file://` URIs and paths. Editors send percent-encoded URIs; lemplint works with paths.

use std::path::{Path, PathBuf};

/// The path of a `file://` URI (`None` for another scheme, such as an unsaved buffer's).
pub fn to_path(uri: &str) -> Option<PathBuf> {
    let rest = uri.strip_prefix("file://")?;
    // `file://host/path`: only the local host is ours.
    let path = match rest.find('/') {
        Some(0) => rest,
        Some(i) if &rest[..i] == "localhost" => &rest[i..],
        _ => return None,
    };
    let bytes = path.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    use std::os::unix::ffi::OsStringExt;
    Some(PathBuf::from(std::ffi::OsString::from_vec(out)))
}

/// The `file://` URI of an absolute path, percent-encoding what RFC 3986 does not allow
/// in a path (VS Code's and Neovim's encoders agree on the unreserved set used here).
pub fn from_path(path: &Path) -> String {
    use std::os::unix::ffi::OsStrExt;
    let mut out = String::from("file://");
    for &b in path.as_os_str().as_bytes() {
        if b.is_ascii_alphanumeric() || b"/-._~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_and_uris_round_trip() {
        for p in ["/etc/nginx/nginx.conf", "/tmp/a b/caf\u{e9}#1%.conf"] {
            let uri = from_path(Path::new(p));
            assert_eq!(to_path(&uri).unwrap(), Path::new(p), "{uri}");
        }
        assert_eq!(to_path("file:///tmp/a%20b").unwrap(), Path::new("/tmp/a b"));
        assert_eq!(
            to_path("file://localhost/etc/x").unwrap(),
            Path::new("/etc/x")
        );
        assert_eq!(to_path("untitled:Untitled-1"), None);
        assert_eq!(to_path("file:///bad%zz"), None);
    }
}
