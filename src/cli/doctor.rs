//! `lemplint doctor`: the running stack's symptoms (logs, live counters, running state),
//! tied to the configuration that causes them and to `tune`'s fix. Read-only.

use super::{EXIT_ERROR, EXIT_FINDINGS, EXIT_OK};
use crate::engine::StackArgs;
use clap::{Args, ValueEnum};
use std::path::PathBuf;

#[derive(Args, Debug)]
#[command(mut_arg("paths", |a| a.help("Files or directories (default: `/`, this machine)")))]
#[command(after_help = "\
Reads, never writes or executes: the logs the configuration names (error_log, php-fpm's \
error_log, slowlog; rotated and .gz copies beside them, nothing outside their directories), \
PHP-FPM's status page on the pool's own socket (when pm.status_path is set), /proc \
(processes, limits, /proc/sys, /proc/net/netstat), the kernel's socket table (sock_diag \
netlink) and cgroup limits. Without root it reads what it may and says what it could not.

The paths default to `/` (this machine). A directory standing for `/` (a copy of a server, \
--root) or a private prefix (`lemplint bench --keep`) is read the same way: its logs are \
read where its configuration names them; processes and the kernel are this machine's.

Exit codes: 0 no symptom and no drift; 1 symptoms or drift found; 2 errors.")]
pub struct DoctorArgs {
    #[command(flatten)]
    pub stack: StackArgs,
    /// Count only log lines newer than this (90s, 30m, 24h, 7d; default: what the logs hold)
    #[arg(long, value_name = "DURATION", value_parser = crate::doctor::parse_since)]
    pub since: Option<u64>,
    /// Also print up to five matching log lines per symptom (they hold clients' addresses
    /// and requests: off by default)
    #[arg(long)]
    pub show_lines: bool,
    #[arg(long, value_enum, default_value_t = DoctorFormat::Text)]
    pub format: DoctorFormat,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum DoctorFormat {
    Text,
    Json,
    /// Prometheus text exposition (for node_exporter's textfile collector)
    Prometheus,
}

pub fn run(mut args: DoctorArgs) -> i32 {
    if args.stack.paths.is_empty() {
        args.stack.paths.push(PathBuf::from("/"));
    }
    // The symptoms are this machine's: so is the host, unless the command line says
    // otherwise.
    let s = &mut args.stack;
    if s.cpus.is_none() && s.memory.is_none() && s.host.is_none() {
        s.host = Some(crate::engine::workspace::HostSource::Local);
    }
    let opts = crate::doctor::Options {
        since: args.since,
        show_lines: args.show_lines,
    };
    let reports = match crate::doctor::examine(&args.stack, &opts) {
        Ok(r) => r,
        Err(e) => return super::load_failed(&e, "examine"),
    };
    let out = match args.format {
        DoctorFormat::Text => crate::doctor::output::text(&reports),
        DoctorFormat::Json => {
            let v = crate::doctor::output::json(&reports);
            match serde_json::to_string_pretty(&v) {
                Ok(s) => s + "\n",
                Err(e) => {
                    eprintln!("error: {e}");
                    return EXIT_ERROR;
                }
            }
        }
        DoctorFormat::Prometheus => crate::doctor::output::prometheus(&reports),
    };
    print!("{out}");
    if reports.iter().any(crate::doctor::Report::unhealthy) {
        EXIT_FINDINGS
    } else {
        EXIT_OK
    }
}
