//! php-fpm 8.2's value parsers (`fpm_conf.c`) with their exact messages: integers, booleans,
//! times, `pm`, log levels, quantities.

pub const INVALID_NUMBER: &str = "is not a valid number (greater or equal than zero)";
pub const INVALID_BOOLEAN: &str = "invalid boolean value";
pub const INVALID_TIME: &str = "invalid time value";
pub const UNKNOWN_TIME_SUFFIX: &str = "unknown suffix used in time value";
pub const INVALID_PM: &str = "invalid process manager (static, dynamic or ondemand)";
pub const INVALID_LOG_LEVEL: &str = "invalid value for 'log_level'";
pub const INVALID_RLIMIT_CORE: &str = "must be greater than zero or 'unlimited'";
pub const INVALID_FACILITY: &str = "invalid value";
pub const POOL_NOT_DEFINED: &str = "Can't use '$pool' when the pool is not defined";

/// glibc `atoi`: `(int) strtol(s, NULL, 10)` — leading blanks, a sign, digits; the first other
/// byte ends it; the 64-bit result saturates and is then truncated to `int` (so `99999999999`
/// becomes `1215752191`, as `php-fpm -tt` shows).
pub fn atoi(s: &[u8]) -> i32 {
    let mut i = s
        .iter()
        .take_while(|c| matches!(c, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c))
        .count();
    let negative = match s.get(i) {
        Some(b'-') => {
            i += 1;
            true
        }
        Some(b'+') => {
            i += 1;
            false
        }
        _ => false,
    };
    let mut v: i64 = 0;
    for &c in s.get(i..).unwrap_or_default() {
        if !c.is_ascii_digit() {
            break;
        }
        let d = i64::from(c - b'0');
        v = if negative {
            v.saturating_mul(10).saturating_sub(d)
        } else {
            v.saturating_mul(10).saturating_add(d)
        };
    }
    v as i32
}

/// `fpm_conf_set_integer`: only digits, with one optional leading `-` (so negatives pass here and
/// are refused later by the pool checks, despite the message). An empty value is 0.
pub fn parse_int(v: &[u8]) -> Result<i32, &'static str> {
    let ok = v
        .iter()
        .enumerate()
        .all(|(i, &c)| c.is_ascii_digit() || (i == 0 && c == b'-'));
    if ok {
        Ok(atoi(v))
    } else {
        Err(INVALID_NUMBER)
    }
}

/// `fpm_conf_set_boolean` (8.2): exactly `1 yes true on` or `"" 0 no none false off`, compared
/// case-sensitively on the value *after* INI parsing (bare `Yes`/`OFF` are already `1`/`""` then;
/// a quoted `"Yes"` is refused — verified with php-fpm 8.2).
pub fn parse_bool(v: &[u8]) -> Result<bool, &'static str> {
    match v {
        b"1" | b"yes" | b"true" | b"on" => Ok(true),
        b"" | b"0" | b"no" | b"none" | b"false" | b"off" => Ok(false),
        _ => Err(INVALID_BOOLEAN),
    }
}

/// `fpm_conf_set_time`, in seconds: the *last* byte picks the unit (`s` default, `m`, `h`, `d`);
/// the rest goes through `atoi`, so `1.5m` is 60 s, `5ms` is 5 s and `abc5` is 0 s.
pub fn parse_time(v: &[u8]) -> Result<i32, &'static str> {
    let Some((&suffix, rest)) = v.split_last() else {
        return Err(INVALID_TIME);
    };
    match suffix {
        b'm' => Ok(60i32.wrapping_mul(atoi(rest))),
        b'h' => Ok(3600i32.wrapping_mul(atoi(rest))),
        b'd' => Ok(86400i32.wrapping_mul(atoi(rest))),
        b's' => Ok(atoi(rest)),
        b'0'..=b'9' => Ok(atoi(v)),
        _ => Err(UNKNOWN_TIME_SUFFIX),
    }
}

/// The `pm` setting.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pm {
    Static,
    Dynamic,
    Ondemand,
}

/// `fpm_conf_set_pm`: case-insensitive.
pub fn parse_pm(v: &[u8]) -> Result<Pm, &'static str> {
    if v.eq_ignore_ascii_case(b"static") {
        Ok(Pm::Static)
    } else if v.eq_ignore_ascii_case(b"dynamic") {
        Ok(Pm::Dynamic)
    } else if v.eq_ignore_ascii_case(b"ondemand") {
        Ok(Pm::Ondemand)
    } else {
        Err(INVALID_PM)
    }
}

/// `fpm_conf_set_log_level`: `debug notice warning|warn error alert`, case-insensitive.
pub fn parse_log_level(v: &[u8]) -> Result<&'static str, &'static str> {
    ["debug", "notice", "warning", "warn", "error", "alert"]
        .into_iter()
        .find(|l| v.eq_ignore_ascii_case(l.as_bytes()))
        .map(|l| if l == "warn" { "warning" } else { l })
        .ok_or(INVALID_LOG_LEVEL)
}

/// `fpm_conf_set_rlimit_core`: `unlimited` (any case) is -1; otherwise an integer ≥ 0.
pub fn parse_rlimit_core(v: &[u8]) -> Result<i32, &'static str> {
    if v.eq_ignore_ascii_case(b"unlimited") {
        return Ok(-1);
    }
    match parse_int(v)? {
        n if n < 0 => Err(INVALID_RLIMIT_CORE),
        n => Ok(n),
    }
}

/// `fpm_conf_set_syslog_facility`: a syslog facility name, case-insensitive; returns the Linux
/// `LOG_*` value (`daemon` → 24, `local0` → 128, as `-tt` prints).
pub fn parse_syslog_facility(v: &[u8]) -> Result<i32, &'static str> {
    const FACILITIES: &[(&str, i32)] = &[
        ("auth", 4 << 3),
        ("authpriv", 10 << 3),
        ("cron", 9 << 3),
        ("daemon", 3 << 3),
        ("ftp", 11 << 3),
        ("kern", 0),
        ("lpr", 6 << 3),
        ("mail", 2 << 3),
        ("news", 7 << 3),
        ("syslog", 5 << 3),
        ("user", 1 << 3),
        ("uucp", 8 << 3),
        ("local0", 16 << 3),
        ("local1", 17 << 3),
        ("local2", 18 << 3),
        ("local3", 19 << 3),
        ("local4", 20 << 3),
        ("local5", 21 << 3),
        ("local6", 22 << 3),
        ("local7", 23 << 3),
    ];
    FACILITIES
        .iter()
        .find(|(n, _)| v.eq_ignore_ascii_case(n.as_bytes()))
        .map(|&(_, f)| f)
        .ok_or(INVALID_FACILITY)
}

/// A PHP ini quantity (`memory_limit`, `upload_max_filesize`, … set with `php_value[…]`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Quantity {
    /// The value PHP uses (bytes), even when it warns.
    pub value: i64,
    /// PHP's warning, worded as `zend_ini_parse_quantity` words it, e.g. `Invalid quantity
    /// "128MB": unknown multiplier "B", interpreting as "128" for backwards compatibility`.
    pub warning: Option<String>,
}

/// `zend_ini_parse_quantity` (PHP 8.2, signed): blanks trimmed; optional sign; `0x`/`0o`/`0b`
/// prefixes, and a leading `0` means octal (`012` is 10); then an optional multiplier in the
/// **last** byte: `k`/`K` 1024, `m`/`M` 1024², `g`/`G` 1024³.
///
/// So `128M` is 134217728 and `128MB` is **128 bytes** with a warning (`unknown multiplier "B"`):
/// PHP never refuses the value; for `memory_limit` PHP then fails with `Failed to set memory
/// limit to 128 bytes` and keeps the previous limit (verified with `php8.2 -d memory_limit=128MB`).
/// `1.5M` is 1 MiB (`interpreting as "1M"`). `-1` is -1 (unlimited for `memory_limit`).
pub fn parse_quantity(raw: &[u8]) -> Quantity {
    let quoted = escape_for_message(raw);
    let is_ws = |c: &u8| matches!(c, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c);
    let start = raw.iter().take_while(|c| is_ws(c)).count();
    let end = raw.len() - raw[start..].iter().rev().take_while(|c| is_ws(c)).count();
    let s = &raw[start..end];
    if s.is_empty() {
        return Quantity {
            value: 0,
            warning: None,
        };
    }
    let no_digits = |quoted: &str| {
        Quantity {
        value: 0,
        warning: Some(format!("Invalid quantity \"{quoted}\": no valid leading digits, interpreting as \"0\" for backwards compatibility")),
    }
    };
    let (negative, mut d) = match s[0] {
        b'+' => (false, 1),
        b'-' => (true, 1),
        _ => (false, 0),
    };
    if !s.get(d).is_some_and(u8::is_ascii_digit) {
        return no_digits(&quoted);
    }
    let mut base = 0u32;
    let next = s.get(d + 1).copied();
    if s[d] == b'0' && !next.is_some_and(|c| c.is_ascii_digit()) {
        let Some(prefix) = next else {
            return Quantity {
                value: 0,
                warning: None,
            };
        };
        match prefix {
            b'g' | b'G' | b'm' | b'M' | b'k' | b'K' => {}
            b'x' | b'X' => base = 16,
            b'o' | b'O' => base = 8,
            b'b' | b'B' => base = 2,
            other => {
                return Quantity {
                    value: 0,
                    warning: Some(format!(
                        "Invalid prefix \"0{}\", interpreting as \"0\" for backwards compatibility",
                        other as char
                    )),
                }
            }
        }
        if base != 0 {
            d += 2;
            let bad = match s.get(d) {
                None => true,
                Some(c) => {
                    is_ws(c)
                        || *c == b'+'
                        || *c == b'-'
                        || (*c == b'0' && s.get(d + 1).is_some_and(|c| b"xXoObB".contains(c)))
                }
            };
            if bad {
                return Quantity {
                    value: 0,
                    warning: Some(format!("Invalid quantity \"{quoted}\": no digits after base prefix, interpreting as \"0\" for backwards compatibility")),
                };
            }
        }
    }
    // strtoul(digits, &end, base): base 0 means 0x → 16, leading 0 → 8, else 10.
    let digits = &s[d..];
    let (radix, skip) = match base {
        0 if digits.len() > 1 && digits[0] == b'0' && matches!(digits[1], b'x' | b'X') => (16, 2),
        0 if digits.first() == Some(&b'0') => (8, 0),
        0 => (10, 0),
        b => (b, 0),
    };
    let body = &digits[skip..];
    let n = body
        .iter()
        .take_while(|c| (**c as char).is_digit(radix))
        .count();
    if n == 0 {
        return no_digits(&quoted);
    }
    let mut overflow = false;
    let mut value: u64 = 0;
    for &c in &body[..n] {
        let digit = u64::from((c as char).to_digit(radix).unwrap_or(0));
        match value
            .checked_mul(u64::from(radix))
            .and_then(|v| v.checked_add(digit))
        {
            Some(v) => value = v,
            None => {
                overflow = true;
                value = u64::MAX;
            }
        }
    }
    if !overflow {
        if negative && value == 1u64 << 63 {
            value = value.wrapping_neg();
        } else if (value as i64) < 0 {
            overflow = true;
        } else if negative {
            value = value.wrapping_neg();
        }
    }
    let mut digits_end = d + skip + n;
    while digits_end < s.len() && is_ws(&s[digits_end]) {
        digits_end += 1;
    }
    // PHP quotes the input up to the suffix, blanks after the digits included.
    let interpreted = escape_for_message(&raw[..start + digits_end]);
    let mut result = value as i64;
    if digits_end < s.len() {
        let last = s[s.len() - 1];
        let factor: i64 = match last {
            b'g' | b'G' => 1 << 30,
            b'm' | b'M' => 1 << 20,
            b'k' | b'K' => 1 << 10,
            _ => {
                let chr = escape_for_message(&[last]);
                return Quantity {
                    value: result,
                    warning: Some(format!("Invalid quantity \"{quoted}\": unknown multiplier \"{chr}\", interpreting as \"{interpreted}\" for backwards compatibility")),
                };
            }
        };
        if !overflow {
            overflow = if result > 0 {
                result > i64::MAX / factor
            } else {
                result < i64::MIN / factor
            };
        }
        result = result.wrapping_mul(factor);
        if digits_end != s.len() - 1 {
            let chr = escape_for_message(&[last]);
            return Quantity {
                value: result,
                warning: Some(format!("Invalid quantity \"{quoted}\", interpreting as \"{interpreted}{chr}\" for backwards compatibility")),
            };
        }
    }
    let warning = overflow.then(|| format!("Invalid quantity \"{quoted}\": value is out of range, using overflow result for backwards compatibility"));
    Quantity {
        value: result,
        warning,
    }
}

/// `smart_str_append_escaped`, as PHP quotes a value in its messages (`\t`, `\\`, `\xE9`).
pub(super) fn escape_for_message(raw: &[u8]) -> String {
    let mut out = String::new();
    for &c in raw {
        match c {
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            0x0c => out.push_str("\\f"),
            0x0b => out.push_str("\\v"),
            b'\\' => out.push_str("\\\\"),
            0x1b => out.push_str("\\e"),
            0x20..=0x7e => out.push(c as char),
            _ => out.push_str(&format!("\\x{c:02X}")),
        }
    }
    out
}
