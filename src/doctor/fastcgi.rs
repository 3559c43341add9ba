//! A minimal FastCGI client: one GET of a pool's `pm.status_path` straight on the pool's
//! socket, as nginx would send it, without going through nginx (which may be the thing
//! failing). Only what the status page needs: BEGIN_REQUEST (responder, no keep-alive), the
//! PARAMS, an empty STDIN, then STDOUT records until END_REQUEST. The answer is bounded in
//! size and time.

use std::io::{Read, Write};
use std::time::Duration;

const VERSION: u8 = 1;
const BEGIN_REQUEST: u8 = 1;
const END_REQUEST: u8 = 3;
const PARAMS: u8 = 4;
const STDIN: u8 = 5;
const STDOUT: u8 = 6;
const RESPONDER: u16 = 1;
const REQUEST_ID: u16 = 1;
/// The status page is a few hundred bytes; anything much larger is not one.
const MAX_ANSWER: usize = 1 << 20;

/// Where a pool listens, as a connection target.
pub enum Target<'a> {
    Unix(&'a std::path::Path),
    Tcp(std::net::SocketAddr),
}

fn record(kind: u8, content: &[u8], out: &mut Vec<u8>) {
    // Content is at most 64 KiB - 1 per record; the params here are far below it.
    let len = content.len().min(u16::MAX as usize);
    out.extend_from_slice(&[VERSION, kind]);
    out.extend_from_slice(&REQUEST_ID.to_be_bytes());
    out.extend_from_slice(&(len as u16).to_be_bytes());
    out.extend_from_slice(&[0, 0]); // no padding, reserved
    out.extend_from_slice(&content[..len]);
}

fn param_len(n: usize, out: &mut Vec<u8>) {
    if n < 128 {
        out.push(n as u8);
    } else {
        out.extend_from_slice(&((n as u32) | 0x8000_0000).to_be_bytes());
    }
}

/// The bytes of a GET request for `path` (FastCGI's name-value pairs, as nginx's
/// `fastcgi_params` set them for a status page).
pub fn request(path: &str, query: &str) -> Vec<u8> {
    let mut out = Vec::new();
    let mut begin = RESPONDER.to_be_bytes().to_vec();
    begin.extend_from_slice(&[0, 0, 0, 0, 0, 0]); // flags 0: close after the request
    record(BEGIN_REQUEST, &begin, &mut out);
    let mut params = Vec::new();
    for (k, v) in [
        ("GATEWAY_INTERFACE", "CGI/1.1"),
        ("REQUEST_METHOD", "GET"),
        ("SCRIPT_NAME", path),
        ("SCRIPT_FILENAME", path),
        ("REQUEST_URI", path),
        ("QUERY_STRING", query),
        ("SERVER_PROTOCOL", "HTTP/1.1"),
        ("SERVER_SOFTWARE", "lemplint-doctor"),
        ("REMOTE_ADDR", "127.0.0.1"),
    ] {
        param_len(k.len(), &mut params);
        param_len(v.len(), &mut params);
        params.extend_from_slice(k.as_bytes());
        params.extend_from_slice(v.as_bytes());
    }
    record(PARAMS, &params, &mut out);
    record(PARAMS, &[], &mut out);
    record(STDIN, &[], &mut out);
    out
}

/// Reads records until END_REQUEST and returns the STDOUT content (CGI headers and body).
pub fn read_answer(r: &mut dyn Read) -> Result<Vec<u8>, String> {
    let mut stdout = Vec::new();
    loop {
        let mut head = [0u8; 8];
        r.read_exact(&mut head)
            .map_err(|e| format!("the FastCGI answer ended early: {e}"))?;
        if head[0] != VERSION {
            return Err("not a FastCGI answer".into());
        }
        let len = u16::from_be_bytes([head[4], head[5]]) as usize;
        let pad = head[6] as usize;
        let mut body = vec![0u8; len + pad];
        r.read_exact(&mut body)
            .map_err(|e| format!("the FastCGI answer ended early: {e}"))?;
        body.truncate(len);
        match head[1] {
            STDOUT => {
                if stdout.len() + body.len() > MAX_ANSWER {
                    return Err("the status answer is larger than a status page".into());
                }
                stdout.extend_from_slice(&body);
            }
            END_REQUEST => return Ok(stdout),
            _ => {} // STDERR and others: not needed (and not shown)
        }
    }
}

/// GETs `path` from the pool at `target`. Returns the body (after the CGI headers), or an
/// error when the pool answers with a status other than 200.
pub fn get(target: &Target<'_>, path: &str, query: &str) -> Result<String, String> {
    let timeout = Duration::from_secs(3);
    let req = request(path, query);
    let answer = match target {
        Target::Unix(p) => {
            let mut s = std::os::unix::net::UnixStream::connect(p)
                .map_err(|e| format!("cannot connect: {e}"))?;
            s.set_read_timeout(Some(timeout)).ok();
            s.set_write_timeout(Some(timeout)).ok();
            s.write_all(&req).map_err(|e| e.to_string())?;
            read_answer(&mut s)?
        }
        Target::Tcp(a) => {
            let mut s = std::net::TcpStream::connect_timeout(a, timeout)
                .map_err(|e| format!("cannot connect: {e}"))?;
            s.set_read_timeout(Some(timeout)).ok();
            s.set_write_timeout(Some(timeout)).ok();
            s.write_all(&req).map_err(|e| e.to_string())?;
            read_answer(&mut s)?
        }
    };
    let text = String::from_utf8_lossy(&answer).into_owned();
    let (head, body) = text
        .split_once("\r\n\r\n")
        .or_else(|| text.split_once("\n\n"))
        .unwrap_or(("", &text));
    if let Some(status) = head
        .lines()
        .find_map(|l| l.strip_prefix("Status:").map(str::trim))
    {
        if !status.starts_with("200") {
            return Err(format!("the pool answered {}", crate::escape::text(status)));
        }
    }
    Ok(body.to_string())
}

/// PHP-FPM's plain-text status page: `name: value` lines.
pub fn parse_status(body: &str) -> Vec<(String, String)> {
    body.lines()
        .filter_map(|l| {
            let (k, v) = l.split_once(':')?;
            Some((k.trim().to_string(), v.trim().to_string()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_is_records_php_fpm_reads() {
        let r = request("/status", "");
        // BEGIN_REQUEST: version 1, type 1, id 1, 8 bytes of content, role 1.
        assert_eq!(&r[..8], &[1, 1, 0, 1, 0, 8, 0, 0]);
        assert_eq!(&r[8..10], &[0, 1]);
        // It ends with an empty PARAMS and an empty STDIN.
        assert_eq!(
            &r[r.len() - 16..],
            &[1, 4, 0, 1, 0, 0, 0, 0, 1, 5, 0, 1, 0, 0, 0, 0]
        );
    }

    #[test]
    fn an_answer_is_its_stdout_until_the_end() {
        let mut a = Vec::new();
        record(
            STDOUT,
            b"Content-type: text/plain\r\n\r\npool: www\n",
            &mut a,
        );
        record(7, b"a warning", &mut a);
        record(STDOUT, b"listen queue: 3\n", &mut a);
        record(END_REQUEST, &[0; 8], &mut a);
        record(STDOUT, b"after the end", &mut a);
        let out = read_answer(&mut a.as_slice()).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.ends_with("pool: www\nlisten queue: 3\n"), "{text}");
        let body = text.split_once("\r\n\r\n").unwrap().1;
        assert_eq!(
            parse_status(body),
            vec![
                ("pool".to_string(), "www".to_string()),
                ("listen queue".to_string(), "3".to_string())
            ]
        );
        assert!(read_answer(&mut &a[..10]).is_err());
    }
}
