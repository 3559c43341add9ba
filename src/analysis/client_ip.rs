//! Which clients nginx takes the client address from: the realip module's trusted ranges
//! (`set_real_ip_from`) read as address ranges, so rules can ask whether a list trusts every
//! address on the internet.
//!
//! The ranges are parsed as `ngx_http_realip_from` does (src/http/modules/
//! ngx_http_realip_module.c): `unix:` trusts connections on unix sockets; otherwise
//! `ngx_ptocidr` reads `addr` or `addr/bits` (bits beyond the mask are dropped, with the
//! warning "low address bits of … are meaningless"); anything else is a host name nginx
//! resolves once at start, which we cannot know and treat as covering nothing.

use std::net::IpAddr;

/// One trusted range: its family and the first and last address, as integers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Range {
    pub v6: bool,
    pub first: u128,
    pub last: u128,
}

/// Parses `addr` or `addr/bits` as `ngx_ptocidr` does; `None` for `unix:`, a host name or
/// anything nginx would refuse.
pub fn range(value: &str) -> Option<Range> {
    let (addr, bits) = match value.split_once('/') {
        Some((a, b)) => (a, Some(b)),
        None => (value, None),
    };
    let ip: IpAddr = addr.parse().ok()?;
    let (v6, width, n) = match ip {
        IpAddr::V4(a) => (false, 32u32, u128::from(u32::from(a))),
        IpAddr::V6(a) => (true, 128u32, u128::from(a)),
    };
    let bits: u32 = match bits {
        Some(b) if !b.is_empty() && b.bytes().all(|c| c.is_ascii_digit()) => b.parse().ok()?,
        Some(_) => return None,
        None => width,
    };
    if bits > width {
        return None;
    }
    let host_bits = width - bits;
    // The addresses a prefix of `bits` bits covers: the low `host_bits` bits free.
    let span: u128 = if host_bits == 128 {
        u128::MAX
    } else {
        (1u128 << host_bits) - 1
    };
    let first = n & !span;
    Some(Range {
        v6,
        first,
        last: first | span,
    })
}

/// The largest address of a family.
fn family_last(v6: bool) -> u128 {
    if v6 {
        u128::MAX
    } else {
        u128::from(u32::MAX)
    }
}

/// Whether `ranges` together cover every address of the family (`v6`): `0.0.0.0/0`, or
/// pieces that add up to it (`0.0.0.0/1` and `128.0.0.0/1`).
pub fn covers_family(ranges: &[Range], v6: bool) -> bool {
    let mut own: Vec<(u128, u128)> = ranges
        .iter()
        .filter(|r| r.v6 == v6)
        .map(|r| (r.first, r.last))
        .collect();
    own.sort_unstable();
    let mut next: u128 = 0;
    for (first, last) in own {
        if first > next {
            return false;
        }
        if last == family_last(v6) {
            return true;
        }
        next = next.max(last + 1);
    }
    false
}

/// The families (`"IPv4"`, `"IPv6"`) whose every address `values` (the arguments of a
/// `set_real_ip_from` list) trusts.
pub fn families_covered<'s>(values: impl IntoIterator<Item = &'s str>) -> Vec<&'static str> {
    let ranges: Vec<Range> = values.into_iter().filter_map(range).collect();
    let mut out = Vec::new();
    if covers_family(&ranges, false) {
        out.push("IPv4");
    }
    if covers_family(&ranges, true) {
        out.push("IPv6");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_ranges_as_ngx_ptocidr_does() {
        let r = range("10.1.2.3/8").unwrap();
        assert_eq!((r.first, r.last), (0x0a00_0000, 0x0aff_ffff));
        let r = range("192.0.2.7").unwrap();
        assert_eq!((r.first, r.last), (0xc000_0207, 0xc000_0207));
        assert_eq!(range("::/0").unwrap().last, u128::MAX);
        assert!(range("unix:").is_none());
        assert!(range("lb.example.com").is_none());
        assert!(range("10.0.0.0/33").is_none());
        assert!(range("10.0.0.0/").is_none());
    }

    #[test]
    fn a_list_covers_a_family_only_without_gaps() {
        assert_eq!(families_covered(["0.0.0.0/0"]), ["IPv4"]);
        assert_eq!(families_covered(["::/0"]), ["IPv6"]);
        assert_eq!(families_covered(["128.0.0.0/1", "0.0.0.0/1"]), ["IPv4"]);
        assert_eq!(families_covered(["0.0.0.0/1"]), Vec::<&str>::new());
        assert_eq!(
            families_covered(["0.0.0.0/2", "128.0.0.0/1"]),
            Vec::<&str>::new()
        );
        assert_eq!(
            families_covered(["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16"]),
            Vec::<&str>::new()
        );
        // Low bits beyond the mask are dropped, as nginx does.
        assert_eq!(families_covered(["1.2.3.4/0"]), ["IPv4"]);
    }
}
