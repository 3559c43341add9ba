//! Writes the rule ids (see `rule_ids` below), and tells the integration tests whether the configuration corpus (and the judged stacks of
//! `../shared/field`) are there.
//!
//! The corpus tests read `../shared/corpus` (see `tests/common/mod.rs`), which a fresh clone
//! does not have. Without it they are marked ignored, so that the summary line of
//! `cargo test` counts them as ignored (with the reason) instead of as passed; under
//! `CI=true` they run and fail, since CI must check the corpus. `LEMPLINT_CORPUS` names
//! another corpus directory.

use std::path::PathBuf;

fn main() {
    rule_ids();
    // The executable stays position-independent. Linking it with `-no-pie` was measured
    // (stop 49): `--version` 2.98 -> 1.84 ms and 275 -> 118 page faults, the loader's
    // 32,700 relocations of the pointer tables gone; but the image would lose address-space
    // randomisation in a tool that reads untrusted pull requests (and links mimalloc, in C),
    // and distributions' hardening checks flag it. Start-up is paid once per run.
    println!("cargo:rustc-check-cfg=cfg(lemplint_no_corpus)");
    println!("cargo:rustc-check-cfg=cfg(lemplint_no_field)");
    println!("cargo:rerun-if-env-changed=CI");
    println!("cargo:rerun-if-env-changed=LEMPLINT_CORPUS");
    println!("cargo:rerun-if-changed=build.rs");
    let corpus = std::env::var_os("LEMPLINT_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("../shared/corpus"));
    // Its going away is noticed through a file it always has. Its coming is not (cargo would
    // run this script on every build to watch a path that does not exist, and watching a
    // directory scans all of it): after adding the corpus, `touch build.rs`, as the ignore
    // reason says.
    let sources = corpus.join("SOURCES.md");
    if sources.is_file() {
        println!("cargo:rerun-if-changed={}", sources.display());
    }
    let ci = std::env::var("CI").as_deref() == Ok("true");
    if !corpus.is_dir() && !ci {
        println!("cargo:rustc-cfg=lemplint_no_corpus");
    }
    // The judged stacks `tests/precision.rs` measures against, alike.
    let expected = std::path::Path::new("../shared/field/EXPECTED.tsv");
    if expected.is_file() {
        println!("cargo:rerun-if-changed={}", expected.display());
    } else if !ci {
        println!("cargo:rustc-cfg=lemplint_no_field");
    }
}

/// The languages' code prefixes and folders under `rules/`, in registry order.
const LANGS: [(&str, &str); 5] = [
    ("NGX", "nginx"),
    ("FPM", "fpm"),
    ("SYS", "sysctl"),
    ("STK", "stack"),
    ("LINT", "lint"),
];

/// `$OUT_DIR/rule_ids.rs`: every rule's code in registry order (`NGX`, `FPM`, `SYS`, `STK`,
/// `LINT`, each by number), from the docs files `rules/<lang>/<CODE>.toml` that every rule
/// has, and a [`RuleId`] constant per code, its position in that order. Findings carry the
/// id, a `u16`, instead of the code string, and the registry is indexed by it
/// (`tests/registry.rs` checks that the registry lists the rules in this order).
fn rule_ids() {
    println!("cargo:rerun-if-changed=rules");
    let mut codes: Vec<(usize, u32, String)> = Vec::new();
    for (rank, (prefix, dir)) in LANGS.iter().enumerate() {
        let dir = std::path::Path::new("rules").join(dir);
        let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        for entry in entries {
            let path = entry.expect("a readable rules/ folder").path();
            if path.extension().is_none_or(|x| x != "toml") {
                continue;
            }
            let code = path.file_stem().unwrap().to_string_lossy().into_owned();
            let number: u32 = code
                .strip_prefix(prefix)
                .and_then(|n| n.parse().ok())
                .unwrap_or_else(|| panic!("{}: not a {prefix} code", path.display()));
            codes.push((rank, number, code));
        }
    }
    codes.sort();
    let mut out = String::from("/// Every rule's code, in registry order.\n");
    out.push_str(&format!("pub const CODES: [&str; {}] = [\n", codes.len()));
    for (_, _, code) in &codes {
        out.push_str(&format!("    \"{code}\",\n"));
    }
    out.push_str("];\n");
    for (i, (_, _, code)) in codes.iter().enumerate() {
        out.push_str(&format!("pub const {code}: RuleId = RuleId({i});\n"));
    }
    let dest = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    std::fs::write(dest.join("rule_ids.rs"), out).expect("OUT_DIR is writable");
}
