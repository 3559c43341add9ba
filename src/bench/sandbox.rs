//! The servers' sandbox: Linux namespaces around each run's nginx and PHP-FPM.
//!
//! The allowlist ([`super::allowlist`]) keeps what the files name from running; the sandbox
//! limits what the servers could do if something got through, and makes sure nothing of a
//! run outlives lemplint. Per run:
//!
//! ```text
//! lemplint ─ watchdog (lemplint __bench-sandbox init; lemplint's uid, own process group;
//!            │          maps the holder's user from outside)
//!            └─ holder (new user, mount, PID, IPC, UTS and network namespaces; makes
//!                 │      the mounts and brings up loopback as lemplint's user, then
//!                 │      becomes the sandbox's for good)
//!                 └─ init (PID 1 of the namespace: a fresh /proc, reaps, dies with the holder)
//! lemplint ─ joiner (lemplint __bench-sandbox join PID) ─ nginx / php-fpm (in the namespaces)
//! lemplint ─ socket maker (lemplint __bench-sandbox sockets; lemplint not root: see netns)
//! ```
//!
//! - **User**: the servers run as uid/gid 1000 of a user namespace that maps only that id,
//!   to `nobody` when lemplint is root and to lemplint's own user otherwise: no capability
//!   on the host, no supplementary groups (root's are dropped), `no_new_privs`, and an
//!   environment with nothing of lemplint's.
//! - **Mount**: every mount read-only and `nosuid`, except the private prefix (a bind mount
//!   of it, which the servers own); an empty tmpfs hides `/tmp` (and any directory the
//!   sandbox's user could not enter on the way to the prefix); `/proc` shows the
//!   namespace's own processes.
//! - **PID**: killing the init (or its holder, or the watchdog noticing lemplint gone) kills
//!   every process of the namespace. Each link has `PR_SET_PDEATHSIG`: SIGKILL of lemplint
//!   takes the joiners, the holder and so the whole namespace with it; the watchdog, which
//!   sees lemplint's end as end-of-file on its stdin, then removes the private prefix.
//! - **Network**: only a loopback interface, whoever runs lemplint (an unprivileged user
//!   may make a network namespace inside the user namespace it makes). lemplint as root
//!   enters it from its load threads with setns(2); any other user cannot (that needs
//!   CAP_SYS_ADMIN in lemplint's own user namespace), and reaches it through sockets made
//!   inside ([`super::netns`]). `openssl s_time` starts in it either way.

use std::ffi::CString;
use std::io::{BufRead, BufReader, Write};
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};

/// The hidden command the helpers run as (`lemplint __bench-sandbox init|join …`).
pub const HELPER: &str = "__bench-sandbox";
/// The uid and gid the servers have inside the namespace.
const INSIDE_ID: u32 = 1000;
/// `nobody`/`nogroup` on the host, for the servers when lemplint is root.
const NOBODY: u32 = 65534;

/// A running sandbox (one per run of the servers).
pub struct Sandbox {
    watchdog: Child,
    stdin: Option<ChildStdin>,
    /// The namespace's init, as the host numbers it.
    init: i32,
    /// Its network namespace.
    net: OwnedFd,
    /// Its user namespace (lemplint not root: entered before the network).
    user: Option<OwnedFd>,
    /// The socket maker (lemplint not root).
    maker: Option<std::sync::Arc<super::netns::Maker>>,
    /// The host uid the servers run as.
    pub uid: u32,
}

/// What the sandbox isolates, for the report.
pub fn describe(uid: u32) -> String {
    format!(
        "servers sandboxed: user, mount, PID and network (loopback only) namespaces, uid {uid} on the host, only the private prefix writable, killed with lemplint"
    )
}

/// The namespaces every sandbox makes.
const NAMESPACES: i32 = libc::CLONE_NEWUSER
    | libc::CLONE_NEWNS
    | libc::CLONE_NEWPID
    | libc::CLONE_NEWIPC
    | libc::CLONE_NEWUTS
    | libc::CLONE_NEWNET;

/// The refusal when the namespaces cannot be made (`why`: the system's error).
fn refusal(why: &str) -> String {
    format!(
        "cannot set up the sandbox (user, mount, PID and network namespaces): {}; run bench where namespaces are allowed, or pass --no-sandbox to run the servers without one",
        crate::escape::line(why.trim())
    )
}

/// Whether this process may make the sandbox's namespaces: asked of a helper (unshare(2)
/// with a user namespace needs a single-threaded process), before bench writes anything.
pub fn probe() -> Result<(), String> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot find lemplint: {e}"))?;
    let out = Command::new(exe)
        .arg(HELPER)
        .arg("probe")
        .env_clear()
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .map_err(|e| refusal(&e.to_string()))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(refusal(&String::from_utf8_lossy(&out.stderr)))
    }
}

fn errno() -> std::io::Error {
    std::io::Error::last_os_error()
}

fn cstr(p: &Path) -> CString {
    use std::os::unix::ffi::OsStrExt;
    CString::new(p.as_os_str().as_bytes()).unwrap_or_default()
}

impl Sandbox {
    /// Starts the watchdog, holder and init for `prefix` (which must belong to the
    /// sandbox's user already: see [`Sandbox::owner`]); `also` are removed with the prefix
    /// when lemplint dies (unless `keep`).
    pub fn start(prefix: &Path, also: &[PathBuf], keep: bool) -> Result<Sandbox, String> {
        let root = is_root();
        let uid = Self::owner().0;
        let keep_arg = if keep { "keep" } else { "remove" };
        let exe = std::env::current_exe().map_err(|e| format!("cannot find lemplint: {e}"))?;
        let mut cmd = Command::new(&exe);
        cmd.arg(HELPER)
            .arg("init")
            .arg(prefix)
            .arg(keep_arg)
            .args(also)
            .env_clear()
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0);
        let mut watchdog = cmd
            .spawn()
            .map_err(|e| format!("cannot start the sandbox: {e}"))?;
        let stdin = watchdog.stdin.take();
        let mut line = String::new();
        if let Some(out) = watchdog.stdout.take() {
            let _ = BufReader::new(out).read_line(&mut line);
        }
        let init = line
            .strip_prefix("ready ")
            .and_then(|p| p.trim().parse::<i32>().ok());
        let Some(init) = init else {
            let _ = watchdog.kill();
            let out = watchdog.wait_with_output().map_err(|e| e.to_string())?;
            return Err(refusal(&String::from_utf8_lossy(&out.stderr)));
        };
        let ns = |name: &str| -> Result<OwnedFd, String> {
            std::fs::File::open(format!("/proc/{init}/ns/{name}"))
                .map(OwnedFd::from)
                .map_err(|e| format!("cannot open the sandbox's {name} namespace: {e}"))
        };
        let mut sb = Sandbox {
            watchdog,
            stdin,
            init,
            net: ns("net")?,
            user: None,
            maker: None,
            uid,
        };
        if !root {
            let user = ns("user")?;
            let maker = super::netns::Maker::start(user.as_raw_fd(), sb.net.as_raw_fd())?;
            sb.user = Some(user);
            sb.maker = Some(std::sync::Arc::new(maker));
        }
        Ok(sb)
    }

    /// The host uid and gid the sandbox's processes run as (and own the prefix as).
    pub fn owner() -> (u32, u32) {
        if is_root() {
            (NOBODY, NOBODY)
        } else {
            // SAFETY: no preconditions.
            unsafe { (libc::geteuid(), libc::getegid()) }
        }
    }

    /// How lemplint's threads reach the servers' network.
    pub fn net(&self) -> super::netns::Net {
        match &self.maker {
            Some(m) => super::netns::Net::Made(m.clone()),
            None => super::netns::Net::Enter(self.net.as_raw_fd()),
        }
    }

    /// A command that runs `program` inside the sandbox.
    pub fn command(&self, program: &Path) -> Command {
        let exe = std::env::current_exe().unwrap_or_else(|_| "/proc/self/exe".into());
        let mut cmd = Command::new(exe);
        cmd.arg(HELPER)
            .arg("join")
            .arg(self.init.to_string())
            .arg(program)
            .env_clear();
        cmd
    }

    /// Runs `f` on a thread inside the sandbox's network when threads enter it (lemplint
    /// is root), here otherwise (where `f` connects with [`Sandbox::net`]'s sockets).
    pub fn in_net<T: Send>(&self, f: impl FnOnce() -> T + Send) -> T {
        if self.maker.is_some() {
            return f();
        }
        let fd = self.net.as_raw_fd();
        std::thread::scope(|s| {
            s.spawn(move || {
                enter_net(Some(fd));
                f()
            })
            .join()
            .expect("a thread in the sandbox's network")
        })
    }

    /// Lets a child process (`openssl s_time`) start inside the network namespace: after
    /// the fork it is single-threaded, so it may enter the user namespace first when
    /// lemplint is not root (and so gain the right to enter the network).
    pub fn child_in_net(&self, cmd: &mut Command) {
        let net = self.net.as_raw_fd();
        let user = self.user.as_ref().map(AsRawFd::as_raw_fd);
        // SAFETY: setns is async-signal-safe.
        unsafe {
            cmd.pre_exec(move || {
                if let Some(user) = user {
                    if libc::setns(user, libc::CLONE_NEWUSER) != 0 {
                        return Err(errno());
                    }
                }
                if libc::setns(net, libc::CLONE_NEWNET) != 0 {
                    return Err(errno());
                }
                Ok(())
            });
        }
    }

    /// Stops everything in it; the prefix stays for lemplint to read and remove.
    pub fn stop(&mut self) {
        // The maker first: it ends when its socket closes (threads still holding a `Net`
        // keep only a reference, and none runs after the load).
        self.maker = None;
        if let Some(mut s) = self.stdin.take() {
            let _ = s.write_all(b"stop\n");
        }
        let _ = self.watchdog.wait();
    }
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Moves the calling thread into a network namespace (`None`: stays). A thread that
/// cannot enter must not go on: it would measure the host's loopback.
pub fn enter_net(fd: Option<i32>) {
    if let Some(fd) = fd {
        // SAFETY: setns on a namespace descriptor affects only the calling thread.
        if unsafe { libc::setns(fd, libc::CLONE_NEWNET) } != 0 {
            panic!("cannot enter the sandbox's network: {}", errno());
        }
    }
}

pub fn is_root() -> bool {
    // SAFETY: no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// Gives the prefix to the sandbox's user (when lemplint is root), so that the servers can
/// write their pid, logs and sockets there and nowhere else.
pub fn hand_over(prefix: &Path) -> Result<(), String> {
    if !is_root() {
        return Ok(());
    }
    let (uid, gid) = Sandbox::owner();
    let mut todo = vec![prefix.to_path_buf()];
    while let Some(p) = todo.pop() {
        std::os::unix::fs::lchown(&p, Some(uid), Some(gid))
            .map_err(|e| format!("{}: {e}", crate::escape::path(&p)))?;
        if std::fs::symlink_metadata(&p).is_ok_and(|m| m.is_dir()) {
            for e in std::fs::read_dir(&p).map_err(|e| e.to_string())?.flatten() {
                todo.push(e.path());
            }
        }
    }
    Ok(())
}

// ---- The helpers (run as `lemplint __bench-sandbox …`, before any thread starts). ----

/// Runs the helper when lemplint was started as one; `None` otherwise.
pub fn helper_main() -> Option<i32> {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if args.get(1).is_none_or(|a| a != HELPER) {
        return None;
    }
    let code = match args.get(2).and_then(|a| a.to_str()) {
        Some("init") => watchdog(&args[3..]),
        Some("join") => join(&args[3..]),
        Some("sockets") => super::netns::sockets_main(),
        // SAFETY: this helper process is single-threaded and exits right after.
        Some("probe") => match unsafe { libc::unshare(NAMESPACES) } {
            0 => Ok(0),
            _ => Err(format!("unshare: {}", errno())),
        },
        _ => Err("usage: lemplint __bench-sandbox init|join|sockets|probe …".into()),
    };
    Some(code.unwrap_or_else(|e| {
        eprintln!("{e}");
        125
    }))
}

/// The watchdog: starts the holder, then waits for lemplint to say stop or to go away.
fn watchdog(args: &[std::ffi::OsString]) -> Result<i32, String> {
    let [prefix, keep, also @ ..] = args else {
        return Err("init PREFIX keep|remove [PATH…]".into());
    };
    let prefix = PathBuf::from(prefix);
    let keep = keep == "keep";
    // Two pipes: the holder says it has its namespaces, the watchdog that it has mapped
    // their user.
    let (mut unshared, mut mapped) = ([0; 2], [0; 2]);
    // SAFETY: arrays of two descriptors.
    if unsafe { libc::pipe(unshared.as_mut_ptr()) | libc::pipe(mapped.as_mut_ptr()) } != 0 {
        return Err(format!("pipe: {}", errno()));
    }
    // SAFETY: single-threaded (nothing started yet), so fork is sound.
    let holder = unsafe { libc::fork() };
    if holder < 0 {
        return Err(format!("fork: {}", errno()));
    }
    if holder == 0 {
        // SAFETY: the other ends are the watchdog's.
        unsafe {
            libc::close(unshared[0]);
            libc::close(mapped[1]);
        }
        let code = match hold(&prefix, unshared[1], mapped[0]) {
            Ok(()) => 0,
            Err(e) => {
                eprintln!("{e}");
                125
            }
        };
        // SAFETY: leaving the forked child without running the parent's exit handlers.
        unsafe { libc::_exit(code) }
    }
    // SAFETY: the holder's ends.
    unsafe {
        libc::close(unshared[1]);
        libc::close(mapped[0]);
    }
    if signalled(unshared[0]) {
        // The holder's user inside: uid 1000 is the sandbox's user on the host, and no
        // other id exists there. Written from here, the parent namespace: only a process
        // with CAP_SETUID there may map an id other than its own (lemplint as root maps
        // nobody; otherwise the user maps itself, and must give up setgroups for it).
        let (uid, gid) = Sandbox::owner();
        let maps = [
            ("setgroups", "deny".to_string()),
            ("uid_map", format!("{INSIDE_ID} {uid} 1")),
            ("gid_map", format!("{INSIDE_ID} {gid} 1")),
        ];
        for (file, text) in maps {
            if let Err(e) = std::fs::write(format!("/proc/{holder}/{file}"), text) {
                eprintln!("{file}: {e}");
                break;
            }
        }
        // SAFETY: our end of the pipe.
        unsafe { libc::write(mapped[1], b"1".as_ptr().cast(), 1) };
    }
    // SAFETY: ours.
    unsafe { libc::close(mapped[1]) };
    // Wait for "stop" (bench is done), end of file (lemplint is gone) or the holder's end.
    let mut stopped = false;
    let mut holder_status = None;
    let mut buf = [0u8; 64];
    loop {
        let mut pfd = libc::pollfd {
            fd: 0,
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one valid pollfd.
        let n = unsafe { libc::poll(&mut pfd, 1, 100) };
        if n > 0 {
            // SAFETY: reading into a local buffer.
            let got = unsafe { libc::read(0, buf.as_mut_ptr().cast(), buf.len()) };
            if got > 0 && buf[..got as usize].starts_with(b"stop") {
                stopped = true;
                break;
            }
            if got <= 0 {
                break;
            }
        }
        let mut status = 0;
        // SAFETY: our own child.
        if unsafe { libc::waitpid(holder, &mut status, libc::WNOHANG) } == holder {
            holder_status = Some(status);
            break;
        }
    }
    if holder_status.is_none() {
        // SAFETY: our own child; killing it kills the namespace's init, and so all of it.
        unsafe {
            libc::kill(holder, libc::SIGKILL);
            let mut status = 0;
            libc::waitpid(holder, &mut status, 0);
        }
    }
    if !stopped && holder_status.is_none() && !keep {
        // lemplint is gone: nobody else will remove what the run left.
        let _ = std::fs::remove_dir_all(&prefix);
        for p in also {
            let _ = std::fs::remove_dir_all(p);
        }
    }
    Ok(match holder_status {
        Some(s) if libc::WIFEXITED(s) => libc::WEXITSTATUS(s),
        _ => 0,
    })
}

/// The holder: becomes the sandbox's user, makes the namespaces, and stays while the
/// namespace's init runs. Prints `ready INIT-PID` when the sandbox can be joined.
fn hold(prefix: &Path, unshared: i32, mapped: i32) -> Result<(), String> {
    let blocked = blocked(prefix);
    // SAFETY: plain syscalls on this (single-threaded) process.
    unsafe {
        let watchdog = libc::getppid();
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
        if libc::getppid() != watchdog {
            return Err("the watchdog is gone".into());
        }
        if libc::unshare(NAMESPACES) != 0 {
            return Err(format!("unshare: {}", errno()));
        }
    }
    // SAFETY: our ends of the watchdog's pipes.
    unsafe {
        libc::write(unshared, b"1".as_ptr().cast(), 1);
        libc::close(unshared);
    }
    if !signalled(mapped) {
        return Err("the watchdog did not map the sandbox's user".into());
    }
    // Still lemplint's user on the host (root can enter the directories on the way to
    // the prefix, which the sandbox's user may not), with every capability inside: the
    // mounts and the loopback first, then the sandbox's user, for good.
    mounts(prefix, blocked.as_deref())?;
    loopback_up()?;
    // SAFETY: plain syscalls. The capabilities go with the change to a user other than the
    // namespace's root (and the servers' exec drops whatever is left).
    unsafe {
        if libc::setgroups(0, std::ptr::null()) != 0 && is_root() {
            return Err(format!("setgroups: {}", errno()));
        }
        if libc::setresgid(INSIDE_ID, INSIDE_ID, INSIDE_ID) != 0
            || libc::setresuid(INSIDE_ID, INSIDE_ID, INSIDE_ID) != 0
        {
            return Err(format!("cannot become the sandbox's user: {}", errno()));
        }
        libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
        // Cleared by the change of credentials.
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
    }
    let mut fds = [0; 2];
    // SAFETY: a pipe for the init to say it is set up.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(format!("pipe: {}", errno()));
    }
    let (ready_r, ready_w) = (fds[0], fds[1]);
    // SAFETY: single-threaded.
    let init = unsafe { libc::fork() };
    if init < 0 {
        return Err(format!("fork: {}", errno()));
    }
    if init == 0 {
        init_main(ready_w);
    }
    // SAFETY: our descriptors.
    unsafe {
        libc::close(ready_w);
        let mut b = 0u8;
        if libc::read(ready_r, (&mut b as *mut u8).cast(), 1) != 1 {
            return Err("the sandbox's init did not start".into());
        }
    }
    // The holder has nothing left to set up.
    drop_capabilities();
    println!("ready {init}");
    let _ = std::io::stdout().flush();
    let mut status = 0;
    // SAFETY: our own child.
    unsafe { libc::waitpid(init, &mut status, 0) };
    Ok(())
}

/// Gives up every capability (in the sandbox's user namespace: the holder and the init
/// keep theirs through the change of user, as the namespace's root is not mapped).
fn drop_capabilities() {
    #[repr(C)]
    struct Header {
        version: u32,
        pid: i32,
    }
    #[repr(C)]
    struct Data {
        effective: u32,
        permitted: u32,
        inheritable: u32,
    }
    let header = Header {
        // _LINUX_CAPABILITY_VERSION_3: two Data, 64 capability bits.
        version: 0x2008_0522,
        pid: 0,
    };
    let none = [
        Data {
            effective: 0,
            permitted: 0,
            inheritable: 0,
        },
        Data {
            effective: 0,
            permitted: 0,
            inheritable: 0,
        },
    ];
    // SAFETY: a valid header and two data blocks, as capset(2) version 3 reads them.
    unsafe {
        libc::syscall(libc::SYS_capset, &header as *const Header, none.as_ptr());
    }
}

/// Whether the other end of the pipe wrote its byte (not just closed it).
fn signalled(fd: i32) -> bool {
    let mut b = 0u8;
    // SAFETY: reading one byte into a local.
    let got = unsafe { libc::read(fd, (&mut b as *mut u8).cast(), 1) };
    // SAFETY: ours.
    unsafe { libc::close(fd) };
    got == 1
}

/// PID 1 of the namespace: a fresh /proc, then reaps orphans until its holder dies.
fn init_main(ready: i32) -> ! {
    // SAFETY: plain syscalls; this process never returns.
    unsafe {
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
        let proc_ = c"/proc";
        // The namespace's own processes only (best effort: a host that masks parts of its
        // /proc refuses a new one, and the host's stays, read-only).
        libc::mount(
            c"proc".as_ptr(),
            proc_.as_ptr(),
            c"proc".as_ptr(),
            libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
            std::ptr::null(),
        );
        drop_capabilities();
        libc::write(ready, b"1".as_ptr().cast(), 1);
        libc::close(ready);
        loop {
            let mut status = 0;
            if libc::waitpid(-1, &mut status, 0) < 0 {
                libc::pause();
            }
        }
    }
}

#[repr(C)]
struct MountAttr {
    attr_set: u64,
    attr_clr: u64,
    propagation: u64,
    userns_fd: u64,
}
const MOUNT_ATTR_RDONLY: u64 = 0x1;
const MOUNT_ATTR_NOSUID: u64 = 0x2;

fn mount_setattr(path: &Path, flags: i32, set: u64, clear: u64) -> Result<(), String> {
    let attr = MountAttr {
        attr_set: set,
        attr_clr: clear,
        propagation: 0,
        userns_fd: 0,
    };
    let p = cstr(path);
    // SAFETY: a valid path and attribute block of the size passed.
    let r = unsafe {
        libc::syscall(
            libc::SYS_mount_setattr,
            libc::AT_FDCWD,
            p.as_ptr(),
            flags as libc::c_uint,
            &attr as *const MountAttr,
            std::mem::size_of::<MountAttr>(),
        )
    };
    if r != 0 {
        return Err(format!(
            "mount_setattr {}: {}",
            crate::escape::path(path),
            errno()
        ));
    }
    Ok(())
}

fn mount(
    src: Option<&Path>,
    target: &Path,
    fstype: Option<&str>,
    flags: u64,
) -> Result<(), String> {
    let src_c = src.map(cstr);
    let target_c = cstr(target);
    let fstype_c = fstype.map(|f| CString::new(f).unwrap_or_default());
    let data = c"mode=0755,size=1m";
    // SAFETY: valid C strings or null.
    let r = unsafe {
        libc::mount(
            src_c.as_ref().map_or(c"none".as_ptr(), |s| s.as_ptr()),
            target_c.as_ptr(),
            fstype_c.as_ref().map_or(std::ptr::null(), |s| s.as_ptr()),
            flags as libc::c_ulong,
            if fstype == Some("tmpfs") {
                data.as_ptr().cast()
            } else {
                std::ptr::null()
            },
        )
    };
    if r != 0 {
        return Err(format!(
            "mount {}: {}",
            crate::escape::path(target),
            errno()
        ));
    }
    Ok(())
}

/// The first directory on the way to the prefix that the sandbox's user will not be able
/// to enter, if any: as the host sees it (inside, its owner may not exist).
fn blocked(prefix: &Path) -> Option<PathBuf> {
    use std::os::unix::fs::MetadataExt;
    let (uid, gid) = Sandbox::owner();
    let mut way: Vec<&Path> = prefix.ancestors().skip(1).collect();
    way.reverse();
    way.into_iter()
        .find(|a| {
            std::fs::metadata(a).is_ok_and(|m| {
                let bit = if m.uid() == uid {
                    0o100
                } else if m.gid() == gid {
                    0o010
                } else {
                    0o001
                };
                m.mode() & bit == 0
            })
        })
        .map(Path::to_path_buf)
}

/// Everything read-only and nosuid but the prefix; /tmp, and any directory on the way to
/// the prefix the sandbox's user could not enter, hidden under an empty tmpfs.
fn mounts(prefix: &Path, blocked: Option<&Path>) -> Result<(), String> {
    mount(None, Path::new("/"), None, libc::MS_REC | libc::MS_PRIVATE)?;
    // Opened here, in this mount namespace (a mount of another one cannot be bound), and
    // before the tmpfs hides it.
    let held =
        std::fs::File::open(prefix).map_err(|e| format!("{}: {e}", crate::escape::path(prefix)))?;
    // From here on files are made as the sandbox's user (the host's root, which this
    // process still is, does not exist inside).
    // SAFETY: plain syscalls.
    unsafe {
        libc::setfsgid(INSIDE_ID);
        libc::setfsuid(INSIDE_ID);
    }
    let tmpfs = |at: &Path| {
        mount(
            Some(Path::new("tmpfs")),
            at,
            Some("tmpfs"),
            libc::MS_NOSUID | libc::MS_NODEV,
        )
    };
    tmpfs(Path::new("/tmp"))?;
    if let Some(b) = blocked.filter(|b| !b.starts_with("/tmp")) {
        tmpfs(b)?;
    }
    std::fs::create_dir_all(prefix).map_err(|e| format!("{}: {e}", crate::escape::path(prefix)))?;
    mount(
        Some(Path::new(&format!("/proc/self/fd/{}", held.as_raw_fd()))),
        prefix,
        None,
        libc::MS_BIND,
    )?;
    drop(held);
    mount_setattr(
        Path::new("/"),
        libc::AT_RECURSIVE,
        MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID,
        0,
    )?;
    mount_setattr(prefix, 0, 0, MOUNT_ATTR_RDONLY)
}

/// Brings up `lo` in the new network namespace (it starts down).
fn loopback_up() -> Result<(), String> {
    // SAFETY: an ioctl on a fresh socket with a zeroed, named ifreq.
    unsafe {
        let s = libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0);
        if s < 0 {
            return Err(format!("socket: {}", errno()));
        }
        let mut req: libc::ifreq = std::mem::zeroed();
        for (i, b) in b"lo\0".iter().enumerate() {
            req.ifr_name[i] = *b as libc::c_char;
        }
        let ok = libc::ioctl(s, libc::SIOCGIFFLAGS, &mut req) == 0 && {
            req.ifr_ifru.ifru_flags |= (libc::IFF_UP | libc::IFF_RUNNING) as libc::c_short;
            libc::ioctl(s, libc::SIOCSIFFLAGS, &req) == 0
        };
        let e = errno();
        libc::close(s);
        if !ok {
            return Err(format!("cannot bring up loopback: {e}"));
        }
    }
    Ok(())
}

/// The server a joiner runs, for [`forward`].
static SERVER: std::sync::atomic::AtomicI32 = std::sync::atomic::AtomicI32::new(0);

extern "C" fn forward(sig: libc::c_int) {
    let pid = SERVER.load(std::sync::atomic::Ordering::SeqCst);
    if pid > 0 {
        // SAFETY: kill(2) is async-signal-safe.
        unsafe { libc::kill(pid, sig) };
    }
}

/// The joiner: enters the namespaces of init `PID`, becomes the sandbox's user, and runs
/// the program as a child (the PID namespace takes children only), passing on its status.
fn join(args: &[std::ffi::OsString]) -> Result<i32, String> {
    let [pid, program, rest @ ..] = args else {
        return Err("join PID PROGRAM [ARG…]".into());
    };
    let pid = pid.to_string_lossy().into_owned();
    let open = |ns: &str| -> Result<Option<OwnedFd>, String> {
        let there = std::fs::metadata(format!("/proc/{pid}/ns/{ns}"))
            .map_err(|e| format!("the sandbox is gone: {e}"))?;
        let here = std::fs::metadata(format!("/proc/self/ns/{ns}")).map_err(|e| e.to_string())?;
        use std::os::unix::fs::MetadataExt;
        if there.ino() == here.ino() && there.dev() == here.dev() {
            return Ok(None);
        }
        let f = std::fs::File::open(format!("/proc/{pid}/ns/{ns}")).map_err(|e| e.to_string())?;
        Ok(Some(OwnedFd::from(f)))
    };
    // All opened before entering any: the first setns changes what /proc shows.
    let spaces: Vec<(Option<OwnedFd>, i32)> = [
        ("user", libc::CLONE_NEWUSER),
        ("mnt", libc::CLONE_NEWNS),
        ("net", libc::CLONE_NEWNET),
        ("ipc", libc::CLONE_NEWIPC),
        ("uts", libc::CLONE_NEWUTS),
        ("pid", libc::CLONE_NEWPID),
    ]
    .into_iter()
    .map(|(n, f)| Ok((open(n)?, f)))
    .collect::<Result<_, String>>()?;
    let parent = std::os::unix::process::parent_id() as i32;
    // SAFETY: plain syscalls on this single-threaded process.
    unsafe {
        if is_root() && libc::setgroups(0, std::ptr::null()) != 0 {
            return Err(format!("setgroups: {}", errno()));
        }
        for (fd, flag) in &spaces {
            if let Some(fd) = fd {
                if libc::setns(fd.as_raw_fd(), *flag) != 0 {
                    return Err(format!("setns: {}", errno()));
                }
            }
        }
        if libc::setresgid(INSIDE_ID, INSIDE_ID, INSIDE_ID) != 0
            || libc::setresuid(INSIDE_ID, INSIDE_ID, INSIDE_ID) != 0
        {
            return Err(format!("cannot become the sandbox's user: {}", errno()));
        }
        libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
        if libc::getppid() != parent {
            return Err("lemplint is gone".into());
        }
    }
    drop(spaces);
    let mut cmd = Command::new(program);
    cmd.args(rest)
        .env_clear()
        .env(
            "PATH",
            "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
        )
        .current_dir("/");
    // SAFETY: prctl and signal are async-signal-safe.
    unsafe {
        cmd.pre_exec(|| {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
            libc::signal(libc::SIGTERM, libc::SIG_DFL);
            libc::signal(libc::SIGINT, libc::SIG_DFL);
            Ok(())
        });
        // Until the server runs, a stop signal waits.
        libc::signal(libc::SIGTERM, libc::SIG_IGN);
        libc::signal(libc::SIGINT, libc::SIG_IGN);
    }
    let mut child = cmd.spawn().map_err(|e| {
        format!(
            "cannot run {}: {e}",
            crate::escape::line(&program.to_string_lossy())
        )
    })?;
    // A SIGTERM or SIGINT to the joiner goes on to the server (which may have started its
    // own process group, as php-fpm does, out of reach of a signal to the joiner's): it
    // stops gracefully, and the joiner reports how.
    SERVER.store(child.id() as i32, std::sync::atomic::Ordering::SeqCst);
    // SAFETY: the handler only reads an atomic and calls kill(2).
    unsafe {
        libc::signal(libc::SIGTERM, forward as *const () as libc::sighandler_t);
        libc::signal(libc::SIGINT, forward as *const () as libc::sighandler_t);
    }
    let status = child.wait().map_err(|e| e.to_string())?;
    use std::os::unix::process::ExitStatusExt;
    Ok(status
        .code()
        .unwrap_or_else(|| 128 + status.signal().unwrap_or(0)))
}
