// mimalloc instead of glibc's allocator: the rules make many short-lived strings and
// vectors on two threads, and glibc returns freed pages to the kernel only to fault them
// in again. On the 10 MB generated tree (scripts/bench.sh) the lint went from 0.85 s to
// 0.63 s with nothing else changed (2-core VM, median of 7).
//
// Its 2.x line (the crate's `v2` feature), not 3.x: 3.x spread this workload over more
// transparent huge pages, each zeroed on first touch, which on the VM costs milliseconds a
// page (10 MB tree: peak RSS 147 → 110 MiB, lint 245-283 → 232-244 ms, interleaved medians
// of 21, and a third of the run-to-run spread).
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

// mimalloc's options (`mimalloc.h` of the mimalloc 2.3 that libmimalloc-sys 0.1.49 builds;
// the crate declares these only behind a feature that needs another crate).
const MI_OPTION_PURGE_DELAY: libc::c_int = 15;
/// `mi_option_purge_delay`'s default (milliseconds), which tells that entry 15 is still it.
const MI_DEFAULT_PURGE_DELAY: libc::c_long = 10;
extern "C" {
    fn mi_option_get(option: libc::c_int) -> libc::c_long;
    fn mi_option_set(option: libc::c_int, value: libc::c_long);
}

/// Freed memory goes back to the kernel a second after it is freed, not 10 ms after
/// (mimalloc's default; its arenas wait ten times as long). With the default, the memory
/// of a phase's temporaries was returned and faulted in again by the next phase, more so
/// the larger the input: `scripts/bench-hostile.sh`'s pool shape took 14,600 page faults at
/// 1x and 214,000 at 10x (15 times as many), the regex-location shape 31,000 and 336,000;
/// with a second, 13,000 and 123,000, and 27,000 and 252,000 (linear), and the 10x
/// runs' system time fell by a fifth to a half, peak RSS rising 3-10 %. A long-running
/// `lemplint server` still gives memory back, a second later.
fn delay_purges() {
    // SAFETY: both take and return plain integers; mimalloc reads its options at any time.
    // An option table that changed shape (another mimalloc) shows in the default, and is
    // left alone; so is a delay other than the default set in the environment
    // (MIMALLOC_PURGE_DELAY).
    unsafe {
        if mi_option_get(MI_OPTION_PURGE_DELAY) == MI_DEFAULT_PURGE_DELAY {
            mi_option_set(MI_OPTION_PURGE_DELAY, 1000);
        }
    }
}

fn main() {
    delay_purges();
    // `lemplint bench`'s sandbox helpers: before any thread starts (namespaces are entered
    // by single-threaded processes only).
    if let Some(code) = lemplint::bench::sandbox::helper_main() {
        std::process::exit(code);
    }
    // A reader that stops early (`lemplint rules | head`) ends the run quietly, as it ends
    // `ls` or `grep`: the Rust runtime ignores SIGPIPE, so every print after the reader left
    // would fail, and `println!` panics on the failure (exit 101), while code that returns
    // the error would report it as an I/O error (exit 2). Restoring the default action once,
    // here, covers every command: the kernel ends the process at the first write to the
    // closed pipe (the shell shows 141). Sockets are unaffected: std sends with
    // MSG_NOSIGNAL, so `bench`'s connections still see EPIPE as an error.
    //
    // SAFETY: called before any other thread exists; `signal` with `SIG_DFL` installs no
    // handler code.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    // The command line is read first: `--version`, `--help` and usage errors answer
    // without starting the pool's threads (a third of `--version`'s instructions).
    let cli = match lemplint::cli::parse_args() {
        Ok(cli) => cli,
        Err(code) => std::process::exit(code),
    };
    // No transparent huge pages for lemplint's own heap: with THP allowed, the kernel
    // backs mimalloc's segments with 2 MiB pages, so a heap of scattered small objects
    // keeps whole huge pages resident. Measured on the 10 MB generated tree (2-core VM,
    // interleaved medians of 9): peak RSS 89 -> 79 MiB for the file and 113 -> 100 MiB
    // for the directory, CPU time unchanged within the noise. Not for `bench`: nginx and
    // php-fpm inherit the setting, and they are what it measures.
    if !cli.starts_servers() {
        // SAFETY: PR_SET_THP_DISABLE takes integer arguments only and touches no memory
        // of this process; on a kernel without it the call fails and nothing changes.
        unsafe {
            libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0);
        }
    }
    // Everything runs on a worker of the thread pool, not beside it: the thread that loads
    // the stack then also runs rules, and mimalloc's heaps are per thread, so the memory the
    // load freed is what its rules reuse. With the main thread outside the pool, each of
    // three heaps faulted in its own pages (10 MB tree: peak RSS 156-170 → 147 MiB; the
    // time moved less than the 2-core VM's noise).
    let code = match rayon::ThreadPoolBuilder::new().build() {
        Ok(pool) => pool.install(|| lemplint::cli::run_parsed(cli)),
        Err(_) => lemplint::cli::run_parsed(cli),
    };
    std::process::exit(code);
}
