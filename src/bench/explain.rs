//! What a person reading bench's report needs beside the numbers: what "tuned" changed,
//! where the errors start on a ramp, and the command to run next.

use super::{BenchArgs, Measured};

/// A tuning recommendation `tuned` applied, as the report names it. The kernel's settings
/// are the machine's during the bench (the header shows somaxconn): said so, lest a reader
/// credit them for the tuned column.
pub fn change(r: &crate::tune::Recommendation) -> String {
    let kernel = r
        .file
        .path
        .components()
        .any(|c| c.as_os_str().to_string_lossy().starts_with("sysctl"));
    format!(
        "{} {} → {} ({}:{}){}",
        r.setting,
        r.current.as_deref().unwrap_or("unset"),
        r.recommended,
        crate::escape::path(&r.file.path),
        r.line,
        if kernel {
            "; kernel: tune writes it, bench runs on this machine's"
        } else {
            ""
        }
    )
}

/// The first second of the first run with a failed request, and the connections open then.
pub fn errors_start(m: &Measured) -> Option<(usize, usize)> {
    let run = m.runs.first()?;
    run.series
        .iter()
        .enumerate()
        .find(|(_, s)| s.failed > 0)
        .map(|(i, s)| (i + 1, s.connections))
}

/// "at second 12 (46 connections)", "none", or for a run without a series, how many failed.
fn errors_text(m: &Measured) -> String {
    match errors_start(m) {
        Some((second, connections)) => format!(
            "from second {second} ({connections} connection{})",
            if connections == 1 { "" } else { "s" }
        ),
        None if m.runs.iter().any(|r| r.failed() > 0) => "some (no second-by-second series)".into(),
        None => "none".into(),
    }
}

/// A path as a shell word.
fn shell_word(p: &std::path::Path) -> String {
    let s = crate::escape::path(p).to_string();
    if !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"/._-+:@%,=".contains(&b))
    {
        s
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// `lemplint tune` on the same paths and host facts, showing the edits.
pub fn tune_command(args: &BenchArgs) -> String {
    let mut cmd = String::from("lemplint tune");
    for p in &args.stack.paths {
        cmd.push(' ');
        cmd.push_str(&shell_word(p));
    }
    if let Some(c) = args.stack.cpus {
        cmd.push_str(&format!(" --cpus {c}"));
    }
    if let Some(m) = &args.stack.memory {
        cmd.push_str(&format!(
            " --memory {}",
            shell_word(std::path::Path::new(m))
        ));
    }
    if let Some(k) = &args.stack.kernel {
        cmd.push_str(&format!(
            " --kernel {}",
            shell_word(std::path::Path::new(k))
        ));
    }
    if args.stack.host.is_some() && args.stack.cpus.is_none() && args.stack.memory.is_none() {
        cmd.push_str(" --host local");
    }
    cmd.push_str(" --diff");
    cmd
}

/// The lines after the table: what tuned changed, where errors start, what to run next.
pub fn print(args: &BenchArgs, results: &[Measured]) {
    let tuned = results.iter().find(|m| m.label == "tuned");
    if let Some(t) = tuned {
        println!();
        if t.changes.is_empty() {
            println!("tuned: lemplint tune changes nothing in this stack (both columns ran the same settings)");
        } else {
            println!("tuned = the stack with the settings lemplint tune writes:");
            for c in &t.changes {
                println!("  {c}");
            }
        }
    }
    if results
        .iter()
        .any(|m| m.runs.iter().any(|r| r.failed() > 0))
    {
        let parts: Vec<String> = results
            .iter()
            .map(|m| format!("{} {}", m.label, errors_text(m)))
            .collect();
        println!("errors: {}", parts.join("; "));
    }
    if let Some(t) = tuned {
        if !t.changes.is_empty() {
            println!(
                "next: {}   (the edits behind \"tuned\"; --write applies them)",
                tune_command(args)
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn paths_are_quoted_for_the_shell_only_when_needed() {
        assert_eq!(
            shell_word(Path::new("fixtures/tune/field-report")),
            "fixtures/tune/field-report"
        );
        assert_eq!(shell_word(Path::new("my conf's")), r"'my conf'\''s'");
        assert_eq!(shell_word(Path::new("")), "''");
    }
}
