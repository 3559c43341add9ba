//! The kernel facts SYS003 and SYS004 rest on, shown by the real kernel and systemd-sysctl
//! inside a new user and network namespace (`unshare -Urn`).
//!
//! Only `net.ipv4.conf.*` keys are written: they belong to the network namespace, so the
//! machine's own values never change. Other keys (`kernel.*`, `fs.*`) are NOT namespaced: a
//! process whose uid maps to the machine's root may write them from inside a user namespace,
//! and they would change the host. Every script first checks that it runs in another network
//! namespace than the test, and stops otherwise. Without `unshare` (or `systemd-sysctl`) the
//! tests are skipped, and fail under `CI=true`.

mod common;

use std::path::Path;

/// SYS004's model of `conf.all` and interfaces: a new network namespace starts with
/// `conf.all.accept_source_route = 0` and `conf.default` at 1 (so `default = 1` alone accepts
/// nothing: both must be on), redirects accepted everywhere, and no reverse-path filter. A
/// new interface takes `conf.default`'s values; writing `conf.all` leaves the interface's own
/// value as it was, which is why the kernel has to combine the two when it decides (the
/// larger for `rp_filter`, both for `accept_source_route`, as ip-sysctl.rst says).
#[test]
fn interfaces_start_from_conf_default_and_keep_their_own_value() {
    if !common::have_programs(&["/usr/bin/unshare", "/usr/sbin/ip"], "sysctl_binary") {
        return;
    }
    let out = common::in_new_netns("-Urn", 
        "c=/proc/sys/net/ipv4/conf
         echo fresh $(cat $c/all/accept_source_route $c/default/accept_source_route \
             $c/all/accept_redirects $c/default/accept_redirects $c/all/rp_filter $c/default/rp_filter)
         echo 2 > $c/default/rp_filter
         ip link add b0 type bridge
         echo b0 $(cat $c/b0/rp_filter $c/b0/accept_source_route)
         echo 0 > $c/all/rp_filter
         echo after-all $(cat $c/b0/rp_filter)",
    );
    assert_eq!(
        out, "fresh 0 1 1 1 0 0\nb0 2 1\nafter-all 2\n",
        "kernel defaults"
    );
}

/// SYS004's reading of a glob: systemd-sysctl applies `net.ipv4.conf.*.rp_filter = 0` to
/// `conf.all` and every existing interface but not to `conf.default`, which a line names
/// explicitly, even an earlier line. lemplint reads the same file the same way: new
/// interfaces keep 2, so nothing is weakened for them.
#[test]
fn systemd_sysctl_never_applies_a_glob_to_an_explicit_key() {
    if !common::have_programs(
        &[
            "/usr/bin/unshare",
            "/usr/sbin/ip",
            "/lib/systemd/systemd-sysctl",
        ],
        "sysctl_binary",
    ) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let conf_dir = dir.path().join("etc/sysctl.d");
    std::fs::create_dir_all(&conf_dir).unwrap();
    let conf = conf_dir.join("60-base.conf");
    std::fs::write(
        &conf,
        "net.ipv4.conf.default.rp_filter = 2\nnet.ipv4.conf.*.rp_filter = 0\n",
    )
    .unwrap();
    let out = common::in_new_netns(
        "-Urn",
        &format!(
            "ip link add b0 type bridge
         /lib/systemd/systemd-sysctl {}
         c=/proc/sys/net/ipv4/conf
         echo $(cat $c/all/rp_filter $c/default/rp_filter $c/b0/rp_filter)",
            conf.display()
        ),
    );
    assert_eq!(out, "0 2 0\n", "all, default, existing interface");
    let lint = common::run_lemplint(
        dir.path(),
        &["lint", ".", "--select", "SYS004", "--format", "concise"],
        None,
    );
    let text = String::from_utf8_lossy(&lint.stdout);
    assert!(!text.contains("SYS004"), "{text}");

    // With the explicit line at 0 the kernel ends at 0 for new interfaces: reported there.
    std::fs::write(
        &conf,
        "net.ipv4.conf.default.rp_filter = 0\nnet.ipv4.conf.*.rp_filter = 0\n",
    )
    .unwrap();
    let out = common::in_new_netns(
        "-Urn",
        &format!(
            "/lib/systemd/systemd-sysctl {}
         echo $(cat /proc/sys/net/ipv4/conf/default/rp_filter)",
            conf.display()
        ),
    );
    assert_eq!(out, "0\n");
    let lint = common::run_lemplint(
        dir.path(),
        &["lint", ".", "--select", "SYS004", "--format", "concise"],
        None,
    );
    let text = String::from_utf8_lossy(&lint.stdout);
    assert!(text.contains("60-base.conf:1:1: warning[SYS004]"), "{text}");
}

/// SYS003's whole-key check: IPv6 has no reverse-path filter and no TCP settings of its own
/// (TCP's are all under `net.ipv4`, for both families). Only read, never written.
#[test]
fn ipv6_has_no_rp_filter_and_no_tcp_keys() {
    if !common::have_programs(&["/usr/bin/unshare"], "sysctl_binary") {
        return;
    }
    let out = common::in_new_netns(
        "-Urn",
        "for k in ipv6/conf/all/rp_filter ipv6/conf/all/accept_source_route \
             ipv4/conf/all/rp_filter; do
             [ -e /proc/sys/net/$k ] && echo $k yes || echo $k no
         done",
    );
    assert_eq!(
        out,
        "ipv6/conf/all/rp_filter no\nipv6/conf/all/accept_source_route yes\n\
         ipv4/conf/all/rp_filter yes\n"
    );
    // The TCP settings live in the first network namespace only: read them there.
    assert!(Path::new("/proc/sys/net/ipv4/tcp_rmem").exists());
    assert!(!Path::new("/proc/sys/net/ipv6/tcp_rmem").exists());
    let lint = common::run_lemplint(
        Path::new(env!("CARGO_MANIFEST_DIR")),
        &[
            "lint",
            "fixtures/sysctl/SYS003/whole_key.conf",
            "--select",
            "SYS003",
            "--format",
            "concise",
        ],
        None,
    );
    let text = String::from_utf8_lossy(&lint.stdout);
    assert!(
        text.contains("`net.ipv6.conf.all.rp_filter` is not a known kernel setting"),
        "{text}"
    );
}
