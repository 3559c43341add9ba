//! How lemplint reaches the servers' loopback, which is the sandbox's network namespace.
//!
//! setns(2) into a network namespace needs CAP_SYS_ADMIN both in the namespace's user
//! namespace and in the caller's own. lemplint as root has both, and each load thread
//! enters the namespace. Any other user has the first (it owns the sandbox's user
//! namespace) but not the second, and a thread cannot change user namespace (only a
//! single-threaded process may). So a helper process enters the sandbox's user and network
//! namespaces before it starts (in `pre_exec`, single-threaded after the fork) and makes
//! sockets there for lemplint, passed over a Unix socket (SCM_RIGHTS): a socket belongs to
//! the namespace it was made in, whoever connects it, so lemplint's threads connect to
//! the servers' loopback without ever entering it.

use std::io;
use std::net::{SocketAddr, TcpStream};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The servers' network, as lemplint's threads reach it.
#[derive(Clone, Debug)]
pub enum Net {
    /// This process's own (no sandbox).
    Here,
    /// A namespace each thread enters (lemplint is root).
    Enter(i32),
    /// Sockets made inside by a helper (lemplint is not root).
    Made(Arc<Maker>),
}

impl Net {
    /// Moves the calling thread into the namespace where that is how it is reached.
    pub fn enter_thread(&self) {
        if let Net::Enter(fd) = self {
            super::sandbox::enter_net(Some(*fd));
        }
    }

    /// A TCP connection to `addr` in the servers' network (from a thread that called
    /// [`Net::enter_thread`]).
    pub fn connect(&self, addr: SocketAddr, timeout: Duration) -> io::Result<TcpStream> {
        match self {
            Net::Here | Net::Enter(_) => TcpStream::connect_timeout(&addr, timeout),
            Net::Made(maker) => connect_timeout(maker.socket()?, addr, timeout),
        }
    }
}

/// The helper making sockets inside the sandbox's network, and lemplint's end of the
/// socket they come over.
pub struct Maker {
    child: Mutex<Child>,
    /// One request and one answer at a time (answers are alike: any socket will do, but a
    /// request must get its own).
    end: Mutex<OwnedFd>,
}

impl std::fmt::Debug for Maker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Maker")
    }
}

impl Maker {
    /// Starts the helper in the namespaces `user` and `net` (descriptors of the sandbox's).
    pub fn start(user: i32, net: i32) -> Result<Maker, String> {
        let mut pair = [0; 2];
        // SAFETY: an array of two descriptors.
        if unsafe {
            libc::socketpair(
                libc::AF_UNIX,
                libc::SOCK_SEQPACKET | libc::SOCK_CLOEXEC,
                0,
                pair.as_mut_ptr(),
            )
        } != 0
        {
            return Err(format!("socketpair: {}", io::Error::last_os_error()));
        }
        // SAFETY: both just made, owned here.
        let (ours, theirs) =
            unsafe { (OwnedFd::from_raw_fd(pair[0]), OwnedFd::from_raw_fd(pair[1])) };
        let exe = std::env::current_exe().map_err(|e| format!("cannot find lemplint: {e}"))?;
        let mut cmd = Command::new(exe);
        cmd.arg(super::sandbox::HELPER)
            .arg("sockets")
            .env_clear()
            .stdin(Stdio::from(theirs))
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        // SAFETY: prctl and setns are async-signal-safe; the forked child is single-threaded,
        // so it may change user namespace.
        unsafe {
            cmd.pre_exec(move || {
                if libc::setns(user, libc::CLONE_NEWUSER) != 0
                    || libc::setns(net, libc::CLONE_NEWNET) != 0
                {
                    return Err(io::Error::last_os_error());
                }
                // After the setns: gaining the namespace's capabilities clears it.
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                Ok(())
            });
        }
        let child = cmd
            .spawn()
            .map_err(|e| format!("cannot reach the sandbox's network: {e}"))?;
        Ok(Maker {
            child: Mutex::new(child),
            end: Mutex::new(ours),
        })
    }

    /// A fresh, unconnected TCP socket of the sandbox's network.
    fn socket(&self) -> io::Result<OwnedFd> {
        let end = self.end.lock().unwrap_or_else(|e| e.into_inner());
        // SAFETY: a one-byte request on our end.
        if unsafe { libc::send(end.as_raw_fd(), b"s".as_ptr().cast(), 1, libc::MSG_NOSIGNAL) } != 1
        {
            return Err(io::Error::last_os_error());
        }
        receive_fd(end.as_raw_fd())
    }
}

impl Drop for Maker {
    fn drop(&mut self) {
        // Closing our end is the helper's end of file; it exits.
        let mut child = self.child.lock().unwrap_or_else(|e| e.into_inner());
        // SAFETY: shutting down our own socket.
        unsafe {
            let end = self.end.lock().unwrap_or_else(|e| e.into_inner());
            libc::shutdown(end.as_raw_fd(), libc::SHUT_RDWR);
        }
        let _ = child.wait();
    }
}

/// One descriptor passed with SCM_RIGHTS on `fd`.
fn receive_fd(fd: i32) -> io::Result<OwnedFd> {
    let mut byte = 0u8;
    let mut iov = libc::iovec {
        iov_base: (&mut byte as *mut u8).cast(),
        iov_len: 1,
    };
    // Room for one control message holding one descriptor (u64s: aligned for cmsghdr).
    let mut control = [0u64; 8];
    // SAFETY: a zeroed msghdr pointing at locals that outlive the call.
    unsafe {
        let mut msg: libc::msghdr = std::mem::zeroed();
        msg.msg_iov = &mut iov;
        msg.msg_iovlen = 1;
        msg.msg_control = control.as_mut_ptr().cast();
        msg.msg_controllen = libc::CMSG_SPACE(std::mem::size_of::<i32>() as u32) as usize;
        let got = libc::recvmsg(fd, &mut msg, libc::MSG_CMSG_CLOEXEC);
        if got < 0 {
            return Err(io::Error::last_os_error());
        }
        let cmsg = libc::CMSG_FIRSTHDR(&msg);
        if got == 0 || cmsg.is_null() || (*cmsg).cmsg_type != libc::SCM_RIGHTS {
            // The answer when the helper could not make a socket: its errno.
            return Err(io::Error::other(
                "the sandbox's network gave no socket (its helper is gone or failed)",
            ));
        }
        let passed = std::ptr::read_unaligned(libc::CMSG_DATA(cmsg).cast::<i32>());
        Ok(OwnedFd::from_raw_fd(passed))
    }
}

/// Connects `sock` to `addr` within `timeout`, as `TcpStream::connect_timeout` does.
fn connect_timeout(sock: OwnedFd, addr: SocketAddr, timeout: Duration) -> io::Result<TcpStream> {
    let SocketAddr::V4(v4) = addr else {
        return Err(io::Error::other("the sandbox's sockets are IPv4"));
    };
    let sa = libc::sockaddr_in {
        sin_family: libc::AF_INET as libc::sa_family_t,
        sin_port: v4.port().to_be(),
        sin_addr: libc::in_addr {
            s_addr: u32::from_ne_bytes(v4.ip().octets()),
        },
        sin_zero: [0; 8],
    };
    let fd = sock.as_raw_fd();
    // SAFETY: fcntl, connect, poll and getsockopt on a socket we own, with local buffers.
    unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFL);
        libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK);
        let r = libc::connect(
            fd,
            (&sa as *const libc::sockaddr_in).cast(),
            std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t,
        );
        if r != 0 {
            let e = io::Error::last_os_error();
            if e.raw_os_error() != Some(libc::EINPROGRESS) {
                return Err(e);
            }
            let mut pfd = libc::pollfd {
                fd,
                events: libc::POLLOUT,
                revents: 0,
            };
            let ms = timeout.as_millis().clamp(1, i32::MAX as u128) as i32;
            let n = loop {
                let n = libc::poll(&mut pfd, 1, ms);
                if n < 0 && io::Error::last_os_error().kind() == io::ErrorKind::Interrupted {
                    continue;
                }
                break n;
            };
            if n < 0 {
                return Err(io::Error::last_os_error());
            }
            if n == 0 {
                return Err(io::Error::from(io::ErrorKind::TimedOut));
            }
            let mut err: i32 = 0;
            let mut len = std::mem::size_of::<i32>() as libc::socklen_t;
            libc::getsockopt(
                fd,
                libc::SOL_SOCKET,
                libc::SO_ERROR,
                (&mut err as *mut i32).cast(),
                &mut len,
            );
            if err != 0 {
                return Err(io::Error::from_raw_os_error(err));
            }
        }
        libc::fcntl(fd, libc::F_SETFL, flags);
    }
    Ok(TcpStream::from(sock))
}

/// The helper (`lemplint __bench-sandbox sockets`, already in the sandbox's network): a
/// socket for each byte read on its stdin, sent back over it; ends at end of file.
pub fn sockets_main() -> Result<i32, String> {
    let mut byte = 0u8;
    loop {
        // SAFETY: reading one byte into a local.
        let got = unsafe { libc::recv(0, (&mut byte as *mut u8).cast(), 1, 0) };
        if got <= 0 {
            return Ok(0);
        }
        // SAFETY: a new socket, passed and closed below.
        let s = unsafe { libc::socket(libc::AF_INET, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, 0) };
        if s < 0 {
            // Nothing attached: lemplint reports that no socket came.
            // SAFETY: a one-byte answer.
            unsafe { libc::send(0, b"e".as_ptr().cast(), 1, libc::MSG_NOSIGNAL) };
            continue;
        }
        send_fd(0, s)?;
        // SAFETY: ours; the receiver holds its own copy now.
        unsafe { libc::close(s) };
    }
}

fn send_fd(to: i32, fd: i32) -> Result<(), String> {
    let mut byte = b's';
    let mut iov = libc::iovec {
        iov_base: (&mut byte as *mut u8).cast(),
        iov_len: 1,
    };
    let mut control = [0u64; 8];
    // SAFETY: a zeroed msghdr with one SCM_RIGHTS control message built in local buffers.
    unsafe {
        let mut msg: libc::msghdr = std::mem::zeroed();
        msg.msg_iov = &mut iov;
        msg.msg_iovlen = 1;
        msg.msg_control = control.as_mut_ptr().cast();
        msg.msg_controllen = libc::CMSG_SPACE(std::mem::size_of::<i32>() as u32) as usize;
        let cmsg = libc::CMSG_FIRSTHDR(&msg);
        (*cmsg).cmsg_level = libc::SOL_SOCKET;
        (*cmsg).cmsg_type = libc::SCM_RIGHTS;
        (*cmsg).cmsg_len = libc::CMSG_LEN(std::mem::size_of::<i32>() as u32) as usize;
        std::ptr::write_unaligned(libc::CMSG_DATA(cmsg).cast::<i32>(), fd);
        if libc::sendmsg(to, &msg, libc::MSG_NOSIGNAL) < 0 {
            return Err(format!("sendmsg: {}", io::Error::last_os_error()));
        }
    }
    Ok(())
}
