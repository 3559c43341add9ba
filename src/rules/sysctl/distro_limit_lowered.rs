//! SYS006 distro-limit-lowered: an administrator's file sets a capacity limit lower than the
//! distribution's own file in the tree raised it (`kernel.pid_max = 65535` applied after
//! systemd's `50-pid-max.conf`, which gives 4194304).
//!
//! Distributions and systemd ship files in `/usr/lib/sysctl.d` that raise limits the kernel's
//! defaults make too small for today's machines: the PID space (systemd 243's
//! `50-pid-max.conf`), memory maps (`vm.max_map_count`), open files. A file in `/etc/sysctl.d`
//! or `/etc/sysctl.conf` is applied after them (`sysctl --system` sorts by file name, and
//! `/etc/sysctl.conf` comes last), so an old tuning line cuts the limit back: the value
//! written was meant as a raise on kernels that had the small default. Only the limits of
//! [`LIMITS`] are judged, only when the tree itself has the distribution's file (what a host
//! without one ships is not known here), and only the value the kernel ends up with.

use crate::analysis::sysctl_hardening::value_at;
use crate::rules::{Context, Rule};

declare_rule! {
    pub struct DistroLimitLowered;
    code: SYS006,
    name: "distro-limit-lowered",
    lang: sysctl,
    category: Reliability,
    severity: Warning,
    fix: None,
    group: Preview,
}

/// The limits where a lower value refuses work, and what fails when it is reached.
const LIMITS: &[(&str, &str)] = &[
    (
        "kernel.pid_max",
        "once that many processes and threads exist, fork() and pthread_create() fail with \
         EAGAIN (`Resource temporarily unavailable`)",
    ),
    (
        "kernel.threads-max",
        "fork() and pthread_create() fail with EAGAIN past it",
    ),
    (
        "vm.max_map_count",
        "a process with more memory mappings fails mmap() with ENOMEM (JVMs, Elasticsearch, \
         games under Proton)",
    ),
    (
        "fs.file-max",
        "open() and socket() fail with ENFILE for every process once the system holds that \
         many files",
    ),
    (
        "fs.nr_open",
        "no process can raise its open-files limit above it (`ulimit -n`, LimitNOFILE)",
    ),
    (
        "fs.inotify.max_user_watches",
        "file watchers stop seeing changes past it",
    ),
    (
        "fs.inotify.max_user_instances",
        "inotify_init() fails with EMFILE past it",
    ),
    ("fs.aio-max-nr", "io_setup() fails with EAGAIN past it"),
    (
        "net.core.somaxconn",
        "listen() backlogs are cut to it: connections queue less under bursts",
    ),
];

impl Rule for DistroLimitLowered {
    fn check(&self, cx: &mut Context<'_>) {
        let set = &cx.stack.sysctl;
        let root = cx.stack.root.as_path();
        for &(key, consequence) in LIMITS {
            let applied = set.applied(key);
            let Some((&last, earlier)) = applied.split_last() else {
                continue;
            };
            if set.files[last.file].vendor {
                continue;
            }
            let Some(value) = value_at(set, last) else {
                continue;
            };
            // The distribution's own value: the last vendor line before the administrator's.
            let Some((vendor, raised)) = earlier
                .iter()
                .rev()
                .filter(|s| set.files[s.file].vendor)
                .find_map(|&s| Some((s, value_at(set, s)?)))
            else {
                continue;
            };
            if value >= raised {
                continue;
            }
            let (Some(a), Some(va)) = (set.assignment(last), set.assignment(vendor)) else {
                continue;
            };
            let vf = &set.files[vendor.file].source;
            let vpath = vf.path.strip_prefix(root).unwrap_or(&vf.path);
            let src = set.files[last.file].source.clone();
            let d = cx.report(
                &src,
                a.key.cover(a.value),
                format!(
                    "`{key} = {value}` lowers the {raised} the distribution's {}:{} sets: {}",
                    vpath.display(),
                    vf.line_of(va.key.start),
                    consequence.replace("that many", &value.to_string())
                ),
            );
            d.label(
                vf.clone(),
                va.key.cover(va.value),
                "the distribution's value",
            );
            d.help = Some(format!(
                "remove the line (the distribution's {raised} applies), or raise it to at \
                 least {raised}"
            ));
        }
    }
}
