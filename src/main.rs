// mimalloc instead of glibc's allocator: the rules make many short-lived strings and
// vectors on two threads, and glibc returns freed pages to the kernel only to fault them
// in again. On the 10 MB generated tree (scripts/bench.sh) the lint went from 0.85 s to
// 0.63 s with nothing else changed (2-core VM, median of 7).
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    std::process::exit(lemplint::cli::run());
}
