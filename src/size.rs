//! Memory sizes as operators write them: `613MiB`, `2GiB`, `2G`, `512M`, `1048576`.

/// Parses a size in bytes. `K`/`M`/`G`/`T` and `KiB`/`MiB`/`GiB`/`TiB` are powers of 1024
/// (as in `free -h`, nginx and PHP); `KB`/`MB`/`GB`/`TB` are powers of 1000. Case is ignored,
/// and a space between number and unit is allowed. Fractions are allowed with a unit
/// (`1.5G`).
pub fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let unit = unit.trim().to_ascii_lowercase();
    let mult: u64 = match unit.as_str() {
        "" | "b" => 1,
        "k" | "kib" => 1 << 10,
        "m" | "mib" => 1 << 20,
        "g" | "gib" => 1 << 30,
        "t" | "tib" => 1 << 40,
        "kb" => 1_000,
        "mb" => 1_000_000,
        "gb" => 1_000_000_000,
        "tb" => 1_000_000_000_000,
        _ => {
            return Err(format!(
                "invalid size {text:?}: unknown unit {unit:?} (use e.g. 613MiB, 2GiB, 2G or bytes)"
            ))
        }
    };
    if num.is_empty() {
        return Err(format!("invalid size {text:?}: no number"));
    }
    let value: f64 = num.parse().map_err(|_| format!("invalid size {text:?}"))?;
    if mult == 1 && num.contains('.') {
        return Err(format!("invalid size {text:?}: a byte count must be whole"));
    }
    let bytes = value * mult as f64;
    if !bytes.is_finite() || bytes > u64::MAX as f64 {
        return Err(format!("invalid size {text:?}: too large"));
    }
    Ok(bytes.round() as u64)
}

/// The least memory a server is believed to have: below it, a size is a unit left out
/// (`--memory 2` is 2 bytes), not a machine.
pub const MIN_MEMORY: u64 = 16 << 20;

/// Parses a server's memory (`--memory`, `[host] memory`): a size of at least
/// [`MIN_MEMORY`]. `2` is refused with the sizes it probably meant, never read as 2 bytes.
pub fn parse_memory(text: &str) -> Result<u64, String> {
    let bytes = parse_size(text)?;
    check_memory(bytes, text)?;
    Ok(bytes)
}

/// Refuses a server memory below [`MIN_MEMORY`]; `text` is how it was written.
pub fn check_memory(bytes: u64, text: &str) -> Result<(), String> {
    if bytes >= MIN_MEMORY {
        return Ok(());
    }
    let t = text.trim();
    let hint = if t.bytes().all(|b| b.is_ascii_digit()) {
        format!(": a number without a unit counts bytes; write the unit, e.g. {t}GiB or {t}MiB")
    } else {
        " (use e.g. 2GiB or 613MiB)".to_string()
    };
    Err(format!(
        "memory {t:?} is {}, less than the {} any server has{hint}",
        human(bytes),
        human(MIN_MEMORY)
    ))
}

/// Parses a size given as a part of memory kept aside (`--reserve`, `[host] reserve`): `0`,
/// or a size with a unit, or a byte count of at least [`MIN_MEMORY`]. A small bare number
/// (`512`) is a unit left out and is refused with the size it probably meant.
pub fn parse_reserve_size(text: &str) -> Result<u64, String> {
    let bytes = parse_size(text)?;
    let t = text.trim();
    if bytes != 0 && bytes < MIN_MEMORY && t.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!(
            "invalid reserve {t:?}: a number without a unit counts bytes; write the unit (e.g. {t}MiB) or a percentage (25%)"
        ));
    }
    Ok(bytes)
}

/// Sizes for the message: `10.6 GiB`, `460 MiB`, `64 KiB`, `512 B` (MiB rounded to whole
/// numbers, GiB to one decimal).
pub fn human(bytes: u64) -> String {
    const GIB: f64 = (1u64 << 30) as f64;
    const MIB: f64 = (1u64 << 20) as f64;
    let b = bytes as f64;
    if b >= GIB {
        let text = format!("{:.1}", b / GIB);
        format!("{} GiB", text.strip_suffix(".0").unwrap_or(&text))
    } else if b >= MIB {
        format!("{} MiB", (b / MIB).round())
    } else if bytes >= 1024 {
        format!("{} KiB", (b / 1024.0).round())
    } else {
        format!("{bytes} B")
    }
}

/// Renders bytes the way operators write them back (`613MiB`, `2GiB`, `1536B`).
pub fn format_size(bytes: u64) -> String {
    const UNITS: [(&str, u64); 4] = [
        ("TiB", 1 << 40),
        ("GiB", 1 << 30),
        ("MiB", 1 << 20),
        ("KiB", 1 << 10),
    ];
    for (name, mult) in UNITS {
        if bytes >= mult {
            return if bytes % mult == 0 {
                format!("{}{name}", bytes / mult)
            } else {
                format!("{:.1}{name}", bytes as f64 / mult as f64)
            };
        }
    }
    format!("{bytes}B")
}

/// Memory kept for everything but PHP.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Reserve {
    Percent(f64),
    Bytes(u64),
}

impl Reserve {
    /// `25%` or a size (`512MiB`).
    pub fn parse(text: &str) -> Result<Reserve, String> {
        let t = text.trim();
        match t.strip_suffix('%') {
            Some(p) => match p.trim().parse::<f64>() {
                Ok(p) if (0.0..100.0).contains(&p) => Ok(Reserve::Percent(p)),
                _ => Err(format!(
                    "invalid reserve {text:?}: a percentage must be at least 0% and below 100%"
                )),
            },
            None => parse_reserve_size(t).map(Reserve::Bytes),
        }
    }

    /// The reserve of `memory`, in bytes.
    pub fn bytes(self, memory: u64) -> u64 {
        match self {
            Reserve::Percent(_) => memory - self.available(memory),
            Reserve::Bytes(b) => b.min(memory),
        }
    }

    /// What is left for PHP.
    pub fn available(self, memory: u64) -> u64 {
        match self {
            Reserve::Percent(p) => (memory as f64 * (100.0 - p) / 100.0) as u64,
            Reserve::Bytes(b) => memory.saturating_sub(b),
        }
    }

    /// `613 MiB − 25%`, `2 GiB − 512 MiB reserved`.
    pub fn describe(self, memory: u64) -> String {
        match self {
            Reserve::Percent(p) => format!("{} − {p}%", human(memory)),
            Reserve::Bytes(b) => format!("{} − {} reserved", human(memory), human(b)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("613MiB"), Ok(613 << 20));
        assert_eq!(parse_size("2GiB"), Ok(2 << 30));
        assert_eq!(parse_size("2G"), Ok(2 << 30));
        assert_eq!(parse_size("2 gb"), Ok(2_000_000_000));
        assert_eq!(parse_size("1.5G"), Ok(3 << 29));
        assert_eq!(parse_size("1048576"), Ok(1 << 20));
        assert!(parse_size("12 parsecs").is_err());
        assert!(parse_size("MiB").is_err());
        assert!(parse_size("1.5").is_err());
        assert_eq!(format_size(613 << 20), "613MiB");
        assert_eq!(format_size(1536), "1.5KiB");
    }

    /// `--memory 2` was read as 2 bytes ("1.2 GiB > 1 B available").
    #[test]
    fn a_memory_without_a_unit_or_below_a_server_is_refused() {
        let e = parse_memory("2").unwrap_err();
        assert!(e.contains("without a unit") && e.contains("2GiB"), "{e}");
        let e = parse_memory("1MiB").unwrap_err();
        assert!(e.contains("1 MiB") && e.contains("16 MiB"), "{e}");
        assert_eq!(parse_memory("2GiB"), Ok(2 << 30));
        assert_eq!(parse_memory("613MiB"), Ok(613 << 20));
        assert_eq!(parse_memory("2147483648"), Ok(2 << 30));
        assert!(check_memory(2, "2").is_err() && check_memory(16 << 20, "16777216").is_ok());
    }

    #[test]
    fn a_reserve_without_a_unit_is_refused_unless_zero_or_large() {
        let e = parse_reserve_size("512").unwrap_err();
        assert!(e.contains("512MiB") && e.contains("25%"), "{e}");
        assert_eq!(parse_reserve_size("0"), Ok(0));
        assert_eq!(parse_reserve_size("512MiB"), Ok(512 << 20));
        assert_eq!(parse_reserve_size("64K"), Ok(64 << 10));
        assert_eq!(parse_reserve_size("268435456"), Ok(256 << 20));
    }
}
