//! The nginx and PHP-FPM processes of a run: started in their own process group from the
//! private prefix, stopped (group and all) when dropped, on error, and on Ctrl-C.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::time::{Duration, Instant};

/// Set by SIGINT/SIGTERM: the run stops, its processes are stopped, lemplint exits.
pub static INTERRUPTED: AtomicBool = AtomicBool::new(false);
/// The process groups running now, for the signal handler (0: free slot).
static GROUPS: [AtomicI32; 8] = [const { AtomicI32::new(0) }; 8];

extern "C" fn on_signal(_: libc::c_int) {
    INTERRUPTED.store(true, Ordering::SeqCst);
    for g in &GROUPS {
        let pgid = g.load(Ordering::SeqCst);
        if pgid > 0 {
            // SAFETY: kill(2) is async-signal-safe.
            unsafe {
                libc::kill(-pgid, libc::SIGTERM);
            }
        }
    }
}

pub fn install_signal_handlers() {
    // SAFETY: the handler only touches atomics and calls kill(2).
    unsafe {
        libc::signal(libc::SIGINT, on_signal as *const () as libc::sighandler_t);
        libc::signal(libc::SIGTERM, on_signal as *const () as libc::sighandler_t);
    }
}

/// A binary found on PATH or in /usr/sbin.
pub fn find(names: &[&str]) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let dirs = std::env::split_paths(&path).chain([
        "/usr/sbin".into(),
        "/usr/local/sbin".into(),
        "/sbin".into(),
    ]);
    for dir in dirs {
        for n in names {
            let p = dir.join(n);
            if p.is_file() {
                return Some(p);
            }
        }
    }
    None
}

/// One started process (the leader of its own group).
pub struct Proc {
    pub name: &'static str,
    child: Child,
    slot: usize,
}

impl Proc {
    pub fn start(name: &'static str, mut cmd: Command, log: &Path) -> Result<Proc, String> {
        use std::os::unix::process::CommandExt;
        let err = std::fs::File::create(log).map_err(|e| e.to_string())?;
        cmd.stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(err)
            .process_group(0);
        let child = cmd
            .spawn()
            .map_err(|e| format!("cannot start {name}: {e}"))?;
        let pgid = child.id() as i32;
        let slot = GROUPS
            .iter()
            .position(|g| {
                g.compare_exchange(0, pgid, Ordering::SeqCst, Ordering::SeqCst)
                    .is_ok()
            })
            .unwrap_or(usize::MAX);
        Ok(Proc { name, child, slot })
    }

    /// The process group (its leader's pid).
    pub fn group(&self) -> i32 {
        self.child.id() as i32
    }

    /// Whether it has exited (and how).
    pub fn exited(&mut self) -> Option<std::process::ExitStatus> {
        self.child.try_wait().ok().flatten()
    }

    /// Stops the whole group: SIGTERM, then SIGKILL after 5 s.
    pub fn stop(&mut self) {
        let pgid = self.child.id() as i32;
        // SAFETY: signalling our own child's process group.
        unsafe {
            libc::kill(-pgid, libc::SIGTERM);
        }
        let deadline = Instant::now() + Duration::from_secs(5);
        while self.child.try_wait().ok().flatten().is_none() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        // SAFETY: as above; whatever is left of the group goes.
        unsafe {
            libc::kill(-pgid, libc::SIGKILL);
        }
        let _ = self.child.wait();
        if let Some(g) = GROUPS.get(self.slot) {
            g.store(0, Ordering::SeqCst);
        }
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        self.stop();
    }
}

/// A free loopback port (the kernel picks one; it is released for nginx to bind).
pub fn free_port() -> Result<u16, String> {
    let l = std::net::TcpListener::bind("127.0.0.1:0").map_err(|e| e.to_string())?;
    Ok(l.local_addr().map_err(|e| e.to_string())?.port())
}

/// Waits until `ready` holds, the process exits (its log says why: the caller tells it),
/// or 10 s pass.
pub fn wait_ready(p: &mut Proc, ready: impl Fn() -> bool) -> Result<(), String> {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        if ready() {
            return Ok(());
        }
        if let Some(status) = p.exited() {
            return Err(format!("{} exited ({status}) before it was ready:", p.name));
        }
        if Instant::now() > deadline || INTERRUPTED.load(Ordering::SeqCst) {
            return Err(format!("{} was not ready after 10 s", p.name));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Every process descended from one of `leaders` (them included): a server may start its
/// own process group or session (php-fpm does), so the group alone misses it.
fn descendants(leaders: &[i32]) -> Vec<u32> {
    let mut parent = std::collections::HashMap::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        // The fields after the command (which may hold spaces) end with `)`.
        if let Some(ppid) = stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().nth(1))
            .and_then(|g| g.parse::<u32>().ok())
        {
            parent.insert(pid, ppid);
        }
    }
    let mut out: Vec<u32> = leaders.iter().map(|&l| l as u32).collect();
    loop {
        let more: Vec<u32> = parent
            .iter()
            .filter(|(pid, ppid)| out.contains(ppid) && !out.contains(pid))
            .map(|(pid, _)| *pid)
            .collect();
        if more.is_empty() {
            return out;
        }
        out.extend(more);
    }
}

/// The TCP sockets listening in the processes started as `leaders` and their descendants,
/// as `address:port` (from /proc/PID/net/tcp{,6} of one of them — the tables of the network
/// namespace they run in — and each process's open files): what the copy really opened.
pub fn listening(leaders: &[i32]) -> Vec<String> {
    let mut inodes = std::collections::HashSet::new();
    let mut member = None;
    for pid in descendants(leaders) {
        // In the sandbox the leader is the joiner (in the host's network) and the servers
        // below it are in the sandbox's: the tables are the servers'.
        if std::fs::read_link(format!("/proc/{pid}/ns/net")).ok()
            != std::fs::read_link("/proc/self/ns/net").ok()
            || member.is_none()
        {
            member = Some(pid);
        }
        for fd in std::fs::read_dir(format!("/proc/{pid}/fd"))
            .into_iter()
            .flatten()
            .flatten()
        {
            if let Ok(target) = std::fs::read_link(fd.path()) {
                let t = target.to_string_lossy();
                if let Some(inode) = t.strip_prefix("socket:[").and_then(|r| r.strip_suffix(']')) {
                    inodes.insert(inode.to_string());
                }
            }
        }
    }
    let mut out = Vec::new();
    let Some(member) = member else {
        return Vec::new();
    };
    for (file, v6) in [
        (format!("/proc/{member}/net/tcp"), false),
        (format!("/proc/{member}/net/tcp6"), true),
    ] {
        let Ok(text) = std::fs::read_to_string(file) else {
            continue;
        };
        for line in text.lines().skip(1) {
            let f: Vec<&str> = line.split_whitespace().collect();
            // local_address, rem_address, st (0A: LISTEN), …, inode (field 9).
            if f.len() < 10 || f[3] != "0A" || !inodes.contains(f[9]) {
                continue;
            }
            if let Some(addr) = decode(f[1], v6) {
                out.push(addr);
            }
        }
    }
    out.sort();
    out
}

/// `0100007F:1F90` → `127.0.0.1:8080`: the kernel prints each 32-bit word of the address
/// (network byte order in memory) as a host-order integer.
fn decode(field: &str, v6: bool) -> Option<String> {
    let (ip, port) = field.split_once(':')?;
    let port = u16::from_str_radix(port, 16).ok()?;
    let words: Vec<u32> = (0..ip.len() / 8)
        .map(|i| u32::from_str_radix(&ip[i * 8..i * 8 + 8], 16))
        .collect::<Result<_, _>>()
        .ok()?;
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_ne_bytes()).collect();
    Some(if v6 {
        let a: [u8; 16] = bytes.try_into().ok()?;
        format!("[{}]:{port}", std::net::Ipv6Addr::from(a))
    } else {
        let a: [u8; 4] = bytes.try_into().ok()?;
        format!("{}:{port}", std::net::Ipv4Addr::from(a))
    })
}

/// Whether every address is on loopback.
pub fn all_loopback(addrs: &[String]) -> bool {
    addrs
        .iter()
        .all(|a| a.starts_with("127.") || a.starts_with("[::1]"))
}

#[cfg(test)]
mod tests {
    #[test]
    fn proc_net_addresses() {
        assert_eq!(
            super::decode("0100007F:1F90", false).unwrap(),
            "127.0.0.1:8080"
        );
        assert_eq!(super::decode("00000000:0050", false).unwrap(), "0.0.0.0:80");
        assert_eq!(
            super::decode("00000000000000000000000001000000:0050", true).unwrap(),
            "[::1]:80"
        );
    }
}
