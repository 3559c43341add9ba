//! NGX179 user-root: see the crate comment in main.rs.

use super::*;

/// nginx with its master process (workers only exist with one), in a process group of its
/// own, killed with its workers when dropped.
struct MasterNginx(std::process::Child);

impl Drop for MasterNginx {
    fn drop(&mut self) {
        // SAFETY: kill(2) on the process group this test started; no memory is involved.
        unsafe {
            libc::kill(-(self.0.id() as i32), libc::SIGKILL);
        }
        let _ = self.0.wait();
    }
}

/// The processes whose parent is `parent`, with the four uids of their `Uid:` line.
fn children_uids(parent: u32) -> Vec<(u32, [u32; 4])> {
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(status) = std::fs::read_to_string(e.path().join("status")) else {
            continue;
        };
        let field = |name: &str| {
            status
                .lines()
                .find_map(|l| l.strip_prefix(name))
                .map(|v| v.split_whitespace().map(|n| n.parse().unwrap()).collect())
                .unwrap_or_else(Vec::new)
        };
        let ppid: Vec<u32> = field("PPid:");
        if ppid.first() != Some(&parent) {
            continue;
        }
        let uid: Vec<u32> = field("Uid:");
        out.push((pid, [uid[0], uid[1], uid[2], uid[3]]));
    }
    out
}

/// The uid of account `name` (getpwnam), if it exists.
fn uid_of(name: &str) -> Option<u32> {
    let c = std::ffi::CString::new(name).unwrap();
    // SAFETY: getpwnam reads a NUL-terminated name; the result is read at once, before any
    // other call could reuse its static buffer.
    let pw = unsafe { libc::getpwnam(c.as_ptr()) };
    // SAFETY: a non-null result points at a valid passwd record.
    (!pw.is_null()).then(|| unsafe { (*pw).pw_uid })
}

/// Whether group `name` exists (getgrnam).
fn group_exists(name: &str) -> bool {
    let c = std::ffi::CString::new(name).unwrap();
    // SAFETY: getgrnam reads a NUL-terminated name; only the pointer is looked at.
    !unsafe { libc::getgrnam(c.as_ptr()) }.is_null()
}

/// `user root;` (nginx.org, core module, `user`: "Defines user and group credentials used by
/// worker processes") keeps the workers at uid 0: they serve a mode-0600 file owned by root.
/// An unprivileged `user` makes the same file answer 403, while a world-readable one next to
/// it is still served (the 403 is the file's mode, not the directory).
#[test]
fn user_root_workers_run_as_root_and_serve_root_only_files() {
    let Some(nginx) = common::required_nginx("tests/hardening_binary/") else {
        return;
    };
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        skip("NGX179's test starts nginx's master as root, and this test is not root");
        return;
    }
    let Some(nobody) = uid_of("nobody") else {
        skip("no account `nobody`");
        return;
    };
    let group = ["nogroup", "nobody"]
        .into_iter()
        .find(|g| group_exists(g))
        .expect("a group nogroup or nobody");

    let tmp = prefix();
    let p = tmp.path();
    // The workers must be able to walk to the files whichever account they run as (a
    // tempdir is 0700).
    use std::os::unix::fs::PermissionsExt;
    let html = p.join("html");
    std::fs::create_dir(&html).unwrap();
    for dir in [p, html.as_path()] {
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    std::fs::write(html.join("secret.txt"), "root only").unwrap();
    std::fs::set_permissions(
        html.join("secret.txt"),
        std::fs::Permissions::from_mode(0o600),
    )
    .unwrap();
    std::fs::write(html.join("public.txt"), "anyone").unwrap();
    std::fs::set_permissions(
        html.join("public.txt"),
        std::fs::Permissions::from_mode(0o644),
    )
    .unwrap();

    for (user, uid, secret) in [
        ("root".to_string(), 0, "200"),
        (format!("nobody {group}"), nobody, "403"),
    ] {
        let port = free_port();
        let text = format!(
            "user {user};\nworker_processes 1;\n{head}    server {{\n        \
             listen 127.0.0.1:{port};\n        root {html};\n    }}\n}}\n",
            head = head(p),
            html = html.display()
        );
        let conf = p.join("nginx.conf");
        std::fs::write(&conf, &text).unwrap();
        use std::os::unix::process::CommandExt;
        let master = MasterNginx(
            Command::new(&nginx)
                .process_group(0)
                .arg("-p")
                .arg(p)
                .arg("-c")
                .arg(&conf)
                .args(["-g", "daemon off;"])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("start nginx"),
        );
        let started = Instant::now();
        let workers = loop {
            let w = children_uids(master.0.id());
            if !w.is_empty() && TcpStream::connect(("127.0.0.1", port)).is_ok() {
                break w;
            }
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "nginx did not start: {}",
                std::fs::read_to_string(p.join("error.log")).unwrap_or_default()
            );
            std::thread::sleep(Duration::from_millis(20));
        };
        // Real, effective, saved and filesystem uid of every worker.
        for (pid, uids) in &workers {
            assert_eq!(uids, &[uid; 4], "user {user}: worker {pid}");
        }
        let (status, _, body) = common::http_parts(&common::http_get(port, "/secret.txt"));
        assert_eq!(status, secret, "user {user}: {body}");
        if secret == "200" {
            assert_eq!(body, "root only");
        }
        let (status, _, _) = common::http_parts(&common::http_get(port, "/public.txt"));
        assert_eq!(status, "200", "user {user}");
        drop(master);

        let found = lint(&conf, "NGX179", "NGX179");
        let want = if uid == 0 {
            vec![(
                line_of(&text, "user root"),
                "warning".to_string(),
                "NGX179".to_string(),
            )]
        } else {
            vec![]
        };
        assert_eq!(found, want, "user {user}");
    }
}
