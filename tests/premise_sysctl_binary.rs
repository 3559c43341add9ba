//! The kernel and systemd behaviour three sysctl rules rest on (issue #39), shown without
//! changing the machine: inside a new user, network (and mount) namespace (`unshare -Urn`,
//! `-Urnm`) only keys of that network namespace are written, and the machine's own values
//! are only read.
//!
//! * SYS005: the profile's settings belong to the machine, not to a network namespace (a
//!   container): from inside one, each key of lemplint's recommended set that the kernel has
//!   reads the machine's value (`user.max_user_namespaces` is a new user namespace's own,
//!   unlimited, count under the machine's), and `net.core.bpf_jit_harden` is not there at
//!   all, while a per-namespace key such as `net.core.somaxconn` starts at the kernel's
//!   default and is written for the namespace alone (kernel docs, admin-guide/sysctl/net.rst and
//!   kernel.rst; `net/core/sysctl_net_core.c` registers `bpf_jit_harden` for the initial
//!   namespace only);
//! * SYS006: `systemd-sysctl` applies the `sysctl.d` files sorted by file name across
//!   `/etc`, `/run` and `/usr/lib`, and the last write wins: an `/etc/sysctl.d/99-…` line
//!   lowers the value a distribution's `/usr/lib/sysctl.d/50-…` file raised, while an
//!   `/etc/sysctl.d/10-…` line is overwritten by it (sysctl.d(5)); shown with private
//!   directories bound over the machine's in a mount namespace, and `--prefix` so that only
//!   the one network key is written. lemplint reports the first tree and not the second;
//! * SYS007: `net.ipv4.tcp_mem` counts pages: the running kernel's own value, read as pages
//!   of `getconf PAGESIZE`, puts the pressure threshold at a few percent of the machine's
//!   memory (the kernel sizes it at boot from the free buffer pages), where read as bytes it
//!   would be a fraction of a megabyte (kernel docs, networking/ip-sysctl.rst, `tcp_mem`).
//!   lemplint, told the machine's memory, leaves that value alone and reports the same
//!   numbers written as bytes.
//!
//! Without `unshare` or `systemd-sysctl` the tests say they were skipped, and fail under
//! `CI=true`.

mod common;

use std::path::Path;

const FILE: &str = "premise_sysctl_binary";
const SYSTEMD_SYSCTL: &str = "/lib/systemd/systemd-sysctl";

/// `/proc/sys` path of a dotted key.
fn proc_path(key: &str) -> String {
    format!("/proc/sys/{}", key.replace('.', "/"))
}

/// Whether the test runs in the machine's first network namespace, where the kernel keeps
/// the machine-wide network keys (`tcp_mem`, `bpf_jit_harden`); a container usually has a
/// namespace of its own, without them. Elsewhere the test is skipped, and fails under
/// `CI=true`.
fn in_first_netns(test: &str) -> bool {
    if Path::new("/proc/sys/net/ipv4/tcp_mem").exists() {
        return true;
    }
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "{test}: /proc/sys/net/ipv4/tcp_mem is missing (not the first network namespace); \
         CI=true requires it"
    );
    eprintln!("skipped {test}: not in the machine's first network namespace");
    false
}

#[test]
fn the_hardening_profile_is_the_machines_not_a_namespaces() {
    if !common::have_programs(&["/usr/bin/unshare"], FILE) || !in_first_netns(FILE) {
        return;
    }
    let keys: Vec<&str> = lemplint::analysis::sysctl_hardening::RECOMMENDED
        .iter()
        .map(|r| r.key)
        .filter(|k| Path::new(&proc_path(k)).exists())
        .collect();
    assert!(keys.contains(&"net.core.bpf_jit_harden"), "{keys:?}");
    let outside: Vec<String> = keys
        .iter()
        .map(|k| {
            std::fs::read_to_string(proc_path(k))
                .unwrap()
                .trim()
                .to_string()
        })
        .collect();
    let host_somaxconn = std::fs::read_to_string("/proc/sys/net/core/somaxconn").unwrap();
    let script: String = keys
        .iter()
        .map(|k| {
            let p = proc_path(k);
            format!("if [ -e {p} ]; then echo \"$(cat {p})\"; else echo absent; fi\n")
        })
        .chain([
            "echo $(cat /proc/sys/net/core/somaxconn)\n".to_string(),
            "echo 1234 > /proc/sys/net/core/somaxconn\n".to_string(),
            "echo $(cat /proc/sys/net/core/somaxconn)\n".to_string(),
        ])
        .collect();
    let out = common::in_new_netns("-Urn", &script);
    let inside: Vec<&str> = out.lines().collect();
    assert_eq!(inside.len(), keys.len() + 2, "{out}");
    for ((key, outer), inner) in keys.iter().zip(&outside).zip(&inside) {
        let expected = match *key {
            "net.core.bpf_jit_harden" => "absent",
            // Counted per user namespace: a new one's own limit starts at INT_MAX, and the
            // machine's (its parent's) still bounds it (`inc_ucount` checks every ancestor).
            "user.max_user_namespaces" => "2147483647",
            _ => outer.as_str(),
        };
        assert_eq!(*inner, expected, "{key}");
    }
    // A per-namespace key: the kernel's default in a new namespace, written there alone.
    assert_eq!(inside[keys.len()..], ["4096", "1234"]);
    assert_eq!(
        std::fs::read_to_string("/proc/sys/net/core/somaxconn").unwrap(),
        host_somaxconn
    );
}

/// A tree with `usr/lib/sysctl.d/50-somaxconn.conf` raising `net.core.somaxconn` to 8192 and
/// `etc/sysctl.d/<name>` writing 1024.
fn somaxconn_tree(root: &Path, name: &str) {
    for (dir, file, value) in [
        ("usr/lib/sysctl.d", "50-somaxconn.conf", 8192),
        ("etc/sysctl.d", name, 1024),
    ] {
        std::fs::create_dir_all(root.join(dir)).unwrap();
        std::fs::write(
            root.join(dir).join(file),
            format!("net.core.somaxconn = {value}\n"),
        )
        .unwrap();
    }
}

#[test]
fn sysctl_d_files_apply_in_name_order_across_directories() {
    if !common::have_programs(&["/usr/bin/unshare", SYSTEMD_SYSCTL], FILE) {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    for (name, kernel_ends_at, reported) in [
        ("99-tuning.conf", "1024", true),
        ("10-tuning.conf", "8192", false),
    ] {
        let root = tmp.path().join(name);
        somaxconn_tree(&root, name);
        // The machine's own directories hidden behind the tree's, in this mount namespace
        // only; `--prefix` writes the one key even if another directory had files.
        let out = common::in_new_netns(
            "-Urnm",
            &format!(
                "mount --bind {r}/etc/sysctl.d /etc/sysctl.d
                 mount --bind {r}/usr/lib/sysctl.d /usr/lib/sysctl.d
                 {SYSTEMD_SYSCTL} --cat-config --no-pager | grep '^# /'
                 {SYSTEMD_SYSCTL} --prefix=net.core.somaxconn
                 echo $(cat /proc/sys/net/core/somaxconn)",
                r = root.display()
            ),
        );
        let files: Vec<&str> = out.lines().filter(|l| l.starts_with("# /")).collect();
        let mut expected = vec![
            format!("# /etc/sysctl.d/{name}"),
            "# /usr/lib/sysctl.d/50-somaxconn.conf".to_string(),
        ];
        if name.starts_with("99") {
            expected.reverse();
        }
        assert_eq!(files, expected, "{out}");
        assert_eq!(out.lines().last(), Some(kernel_ends_at), "{name}: {out}");

        let lint = common::run_lemplint(
            &root,
            &["lint", ".", "--select", "SYS006", "--format", "concise"],
            None,
        );
        let text = String::from_utf8_lossy(&lint.stdout);
        assert_eq!(
            text.contains(&format!("{name}:1:")) && text.contains("SYS006"),
            reported,
            "{name}: {text}"
        );
    }
}

#[test]
fn tcp_mem_is_counted_in_pages() {
    if !in_first_netns(FILE) {
        return;
    }
    let read = |p: &str| std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{p}: {e}"));
    let triple: Vec<u64> = read("/proc/sys/net/ipv4/tcp_mem")
        .split_whitespace()
        .map(|n| n.parse().unwrap())
        .collect();
    let [min, pressure, max] = triple[..] else {
        panic!("{triple:?}")
    };
    let page = std::process::Command::new("getconf")
        .arg("PAGESIZE")
        .output()
        .expect("getconf runs");
    let page: u64 = String::from_utf8_lossy(&page.stdout)
        .trim()
        .parse()
        .unwrap();
    let mem_kib: u64 = read("/proc/meminfo")
        .lines()
        .find_map(|l| l.strip_prefix("MemTotal:"))
        .and_then(|l| l.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .expect("MemTotal");
    let mem = mem_kib * 1024;
    assert!(min <= pressure && pressure <= max, "{triple:?}");
    // As pages: the threshold is between 1/32 and 1/8 of memory, as the kernel computes it
    // (1/16 of the free buffer pages at boot). As bytes it would be under 1/1000.
    let as_pages = pressure * page;
    assert!(
        as_pages >= mem / 32 && as_pages <= mem / 8,
        "pressure {pressure} pages of {page} = {as_pages} bytes, memory {mem}"
    );
    assert!(pressure < mem / 1000, "as bytes, {pressure} of {mem}");

    // lemplint, told the machine's memory, accepts the kernel's own value, and reports the
    // same numbers written as bytes (a page setting copied from a byte one).
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    std::fs::write(
        dir.join("lemplint.toml"),
        format!("[host]\nmemory = \"{mem_kib}KiB\"\n"),
    )
    .unwrap();
    let sysctl_d = dir.join("etc/sysctl.d");
    std::fs::create_dir_all(&sysctl_d).unwrap();
    let lint = |values: [u64; 3]| {
        std::fs::write(
            sysctl_d.join("99-tcp.conf"),
            format!(
                "net.ipv4.tcp_mem = {} {} {}\n",
                values[0], values[1], values[2]
            ),
        )
        .unwrap();
        let out = common::run_lemplint(
            dir,
            &["lint", ".", "--select", "SYS007", "--format", "concise"],
            None,
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let text = lint([min, pressure, max]);
    assert!(!text.contains("SYS007"), "{text}");
    let text = lint([min * page, pressure * page, max * page]);
    assert!(text.contains("99-tcp.conf:1:1: warning[SYS007]"), "{text}");
}
