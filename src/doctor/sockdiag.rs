//! Listening sockets' accept queues, asked of the kernel as `ss -l` asks it: a
//! `SOCK_DIAG_BY_FAMILY` dump over netlink (`sock_diag(7)`). For a listening socket the
//! kernel reports the connections waiting to be accepted (`rqueue`) and the backlog it
//! enforces (`wqueue`: the `listen()` backlog after the `somaxconn` cap), which
//! `/proc/net/tcp` and `/proc/net/unix` do not show. Nothing is executed. Only this network
//! namespace's sockets are seen (a server in another namespace is not).

use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

const NETLINK_SOCK_DIAG: i32 = 4;
const SOCK_DIAG_BY_FAMILY: u16 = 20;
const NLM_F_REQUEST: u16 = 1;
const NLM_F_DUMP: u16 = 0x300;
const NLMSG_ERROR: u16 = 2;
const NLMSG_DONE: u16 = 3;
const TCP_LISTEN: u32 = 10;
const UDIAG_SHOW_NAME: u32 = 1;
const UDIAG_SHOW_RQLEN: u32 = 0x10;
const UNIX_DIAG_NAME: u16 = 0;
const UNIX_DIAG_RQLEN: u16 = 4;

/// One listening socket.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Listener {
    /// `unix:/run/php/www.sock`, `127.0.0.1:80`, `[::]:443`.
    pub addr: String,
    /// Connections waiting to be accepted now.
    pub queued: u32,
    /// The accept queue's size (the backlog the kernel enforces).
    pub backlog: u32,
}

/// Every listening TCP (v4, v6) and unix stream socket of this network namespace.
pub fn listeners() -> Result<Vec<Listener>, String> {
    let mut out = Vec::new();
    out.extend(dump(unix_request(), parse_unix)?);
    for family in [libc::AF_INET as u8, libc::AF_INET6 as u8] {
        out.extend(dump(inet_request(family), parse_inet)?);
    }
    Ok(out)
}

fn header(len: usize) -> Vec<u8> {
    let mut m = Vec::with_capacity(len);
    m.extend_from_slice(&(len as u32).to_ne_bytes());
    m.extend_from_slice(&SOCK_DIAG_BY_FAMILY.to_ne_bytes());
    m.extend_from_slice(&(NLM_F_REQUEST | NLM_F_DUMP).to_ne_bytes());
    m.extend_from_slice(&1u32.to_ne_bytes()); // seq
    m.extend_from_slice(&0u32.to_ne_bytes()); // pid: the kernel
    m
}

/// `struct unix_diag_req`: listening sockets, with their names and queue lengths.
fn unix_request() -> Vec<u8> {
    let mut m = header(16 + 24);
    m.extend_from_slice(&[libc::AF_UNIX as u8, 0, 0, 0]);
    m.extend_from_slice(&(1u32 << TCP_LISTEN).to_ne_bytes());
    m.extend_from_slice(&0u32.to_ne_bytes()); // any inode
    m.extend_from_slice(&(UDIAG_SHOW_NAME | UDIAG_SHOW_RQLEN).to_ne_bytes());
    m.extend_from_slice(&[0xff; 8]); // no cookie
    m
}

/// `struct inet_diag_req_v2` for TCP listeners of one family.
fn inet_request(family: u8) -> Vec<u8> {
    let mut m = header(16 + 56);
    m.extend_from_slice(&[family, libc::IPPROTO_TCP as u8, 0, 0]);
    m.extend_from_slice(&(1u32 << TCP_LISTEN).to_ne_bytes());
    m.extend_from_slice(&[0u8; 40]); // inet_diag_sockid: ports and addresses, any
    m.extend_from_slice(&0u32.to_ne_bytes()); // interface
    m.extend_from_slice(&[0xff; 8]); // no cookie
    m
}

fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_ne_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

fn u16_at(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_ne_bytes(b.get(at..at + 2)?.try_into().ok()?))
}

/// `struct unix_diag_msg` (16 bytes) and its attributes.
pub fn parse_unix(msg: &[u8]) -> Option<Listener> {
    let mut name = None;
    let mut queue = None;
    let mut at = 16;
    while at + 4 <= msg.len() {
        let len = u16_at(msg, at)? as usize;
        let kind = u16_at(msg, at + 2)?;
        if len < 4 || at + len > msg.len() {
            break;
        }
        let data = &msg[at + 4..at + len];
        match kind {
            UNIX_DIAG_NAME => {
                // An abstract socket's name starts with a NUL byte (shown as `@`).
                let text = match data.split_first() {
                    Some((0, rest)) => format!("@{}", String::from_utf8_lossy(rest)),
                    _ => String::from_utf8_lossy(data)
                        .trim_end_matches('\0')
                        .to_string(),
                };
                name = Some(text);
            }
            UNIX_DIAG_RQLEN => queue = Some((u32_at(data, 0)?, u32_at(data, 4)?)),
            _ => {}
        }
        at += (len + 3) & !3;
    }
    let (queued, backlog) = queue?;
    Some(Listener {
        addr: format!("unix:{}", name?),
        queued,
        backlog,
    })
}

/// `struct inet_diag_msg`: family, state, timer, retrans, the socket id (48 bytes), then
/// expires, rqueue, wqueue.
pub fn parse_inet(msg: &[u8]) -> Option<Listener> {
    let family = *msg.first()?;
    let port = u16::from_be_bytes(msg.get(4..6)?.try_into().ok()?);
    let addr = if family == libc::AF_INET as u8 {
        let a: [u8; 4] = msg.get(8..12)?.try_into().ok()?;
        format!("{}:{port}", std::net::Ipv4Addr::from(a))
    } else {
        let a: [u8; 16] = msg.get(8..24)?.try_into().ok()?;
        format!("[{}]:{port}", std::net::Ipv6Addr::from(a))
    };
    Some(Listener {
        addr,
        queued: u32_at(msg, 56)?,
        backlog: u32_at(msg, 60)?,
    })
}

fn dump(req: Vec<u8>, parse: fn(&[u8]) -> Option<Listener>) -> Result<Vec<Listener>, String> {
    // SAFETY: plain socket(2) call; the descriptor is owned right after.
    let fd = unsafe {
        libc::socket(
            libc::AF_NETLINK,
            libc::SOCK_DGRAM | libc::SOCK_CLOEXEC,
            NETLINK_SOCK_DIAG,
        )
    };
    if fd < 0 {
        return Err(format!(
            "netlink sock_diag: {}",
            std::io::Error::last_os_error()
        ));
    }
    // SAFETY: `fd` is a new descriptor nothing else owns.
    let fd = unsafe { OwnedFd::from_raw_fd(fd) };
    // SAFETY: `req` is a valid buffer of its length.
    let sent = unsafe { libc::send(fd.as_raw_fd(), req.as_ptr().cast(), req.len(), 0) };
    if sent < 0 {
        return Err(format!(
            "netlink sock_diag: {}",
            std::io::Error::last_os_error()
        ));
    }
    let mut out = Vec::new();
    let mut buf = vec![0u8; 64 * 1024];
    // A dump of a busy machine's sockets is many datagrams; bounded all the same.
    for _ in 0..100_000 {
        // SAFETY: `buf` is a valid writable buffer of its length.
        let n = unsafe { libc::recv(fd.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len(), 0) };
        if n < 0 {
            return Err(format!(
                "netlink sock_diag: {}",
                std::io::Error::last_os_error()
            ));
        }
        let data = &buf[..n as usize];
        let mut at = 0;
        while at + 16 <= data.len() {
            let len = u32_at(data, at).unwrap_or(0) as usize;
            let kind = u16_at(data, at + 4).unwrap_or(0);
            if len < 16 || at + len > data.len() {
                break;
            }
            match kind {
                NLMSG_DONE => return Ok(out),
                NLMSG_ERROR => {
                    let errno = u32_at(data, at + 16).map_or(0, |e| -(e as i32));
                    if errno == 0 {
                        return Ok(out);
                    }
                    return Err(format!(
                        "netlink sock_diag: {}",
                        std::io::Error::from_raw_os_error(errno)
                    ));
                }
                _ => out.extend(parse(&data[at + 16..at + len])),
            }
            at += (len + 3) & !3;
        }
    }
    Err("netlink sock_diag: the dump did not end".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_listening_socket_of_ours_is_seen_with_its_backlog() {
        // listen() again on a listening socket sets its backlog: 7 and 9, below any
        // kernel's somaxconn.
        use std::os::fd::AsRawFd;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.sock");
        let u = std::os::unix::net::UnixListener::bind(&path).unwrap();
        let t = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        // SAFETY: both descriptors are open listening sockets owned above.
        unsafe {
            assert_eq!(libc::listen(u.as_raw_fd(), 7), 0);
            assert_eq!(libc::listen(t.as_raw_fd(), 9), 0);
        }
        let port = t.local_addr().unwrap().port();
        let all = listeners().unwrap();
        let unix = all
            .iter()
            .find(|l| l.addr == format!("unix:{}", path.display()))
            .unwrap_or_else(|| panic!("{all:?}"));
        assert_eq!((unix.queued, unix.backlog), (0, 7));
        let tcp = all
            .iter()
            .find(|l| l.addr == format!("127.0.0.1:{port}"))
            .unwrap_or_else(|| panic!("{all:?}"));
        assert_eq!((tcp.queued, tcp.backlog), (0, 9));
    }
}
