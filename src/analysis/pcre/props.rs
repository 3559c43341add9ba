//! Unicode properties (`\p{..}`, `\P{..}`) over the 256 characters an 8-bit non-UTF
//! pattern can meet.
//!
//! Without `PCRE2_UTF`, PCRE2 reads each subject byte as the code point U+0000..U+00FF
//! (Latin-1) and looks its properties up in its Unicode tables. General categories (`L`,
//! `Lu`, `Nd`, …) and PCRE2's specials (`Any`, `L&`, `Xan`, `Xps`, `Xsp`, `Xwd`, `Xuc`) are
//! known exactly here for those 256 code points. Scripts are approximate: their ASCII part
//! is exact (only Latin and Common have ASCII characters), but U+0080..U+00FF are *unsure*
//! (Script_Extensions, which PCRE2 10.40+ uses for `\p{script}`, gives some of them several
//! scripts), and a match that depends on one is undecided. Other property kinds (binary
//! properties, `Bidi_Class`, `sc:`/`scx:` prefixes, 4-letter script abbreviations) are not
//! modelled: the parser calls them unsupported.

use super::set::ByteSet;

/// The two-letter general category of each Latin-1 code point, as ranges.
const CATEGORIES: &[(u8, u8, &str)] = &[
    (0x00, 0x1f, "Cc"),
    (0x20, 0x20, "Zs"),
    (0x21, 0x23, "Po"),
    (0x24, 0x24, "Sc"),
    (0x25, 0x27, "Po"),
    (0x28, 0x28, "Ps"),
    (0x29, 0x29, "Pe"),
    (0x2a, 0x2a, "Po"),
    (0x2b, 0x2b, "Sm"),
    (0x2c, 0x2c, "Po"),
    (0x2d, 0x2d, "Pd"),
    (0x2e, 0x2f, "Po"),
    (0x30, 0x39, "Nd"),
    (0x3a, 0x3b, "Po"),
    (0x3c, 0x3e, "Sm"),
    (0x3f, 0x40, "Po"),
    (0x41, 0x5a, "Lu"),
    (0x5b, 0x5b, "Ps"),
    (0x5c, 0x5c, "Po"),
    (0x5d, 0x5d, "Pe"),
    (0x5e, 0x5e, "Sk"),
    (0x5f, 0x5f, "Pc"),
    (0x60, 0x60, "Sk"),
    (0x61, 0x7a, "Ll"),
    (0x7b, 0x7b, "Ps"),
    (0x7c, 0x7c, "Sm"),
    (0x7d, 0x7d, "Pe"),
    (0x7e, 0x7e, "Sm"),
    (0x7f, 0x9f, "Cc"),
    (0xa0, 0xa0, "Zs"),
    (0xa1, 0xa1, "Po"),
    (0xa2, 0xa5, "Sc"),
    (0xa6, 0xa6, "So"),
    (0xa7, 0xa7, "Po"),
    (0xa8, 0xa8, "Sk"),
    (0xa9, 0xa9, "So"),
    (0xaa, 0xaa, "Lo"),
    (0xab, 0xab, "Pi"),
    (0xac, 0xac, "Sm"),
    (0xad, 0xad, "Cf"),
    (0xae, 0xae, "So"),
    (0xaf, 0xaf, "Sk"),
    (0xb0, 0xb0, "So"),
    (0xb1, 0xb1, "Sm"),
    (0xb2, 0xb3, "No"),
    (0xb4, 0xb4, "Sk"),
    (0xb5, 0xb5, "Ll"),
    (0xb6, 0xb7, "Po"),
    (0xb8, 0xb8, "Sk"),
    (0xb9, 0xb9, "No"),
    (0xba, 0xba, "Lo"),
    (0xbb, 0xbb, "Pf"),
    (0xbc, 0xbe, "No"),
    (0xbf, 0xbf, "Po"),
    (0xc0, 0xd6, "Lu"),
    (0xd7, 0xd7, "Sm"),
    (0xd8, 0xde, "Lu"),
    (0xdf, 0xf6, "Ll"),
    (0xf7, 0xf7, "Sm"),
    (0xf8, 0xff, "Ll"),
];

/// Unicode script names PCRE2 10.42 knows (Unicode 14), normalised as [`normalise`] does.
const SCRIPTS: &[&str] = &[
    "adlam",
    "ahom",
    "anatolianhieroglyphs",
    "arabic",
    "armenian",
    "avestan",
    "balinese",
    "bamum",
    "bassavah",
    "batak",
    "bengali",
    "bhaiksuki",
    "bopomofo",
    "brahmi",
    "braille",
    "buginese",
    "buhid",
    "canadianaboriginal",
    "carian",
    "caucasianalbanian",
    "chakma",
    "cham",
    "cherokee",
    "chorasmian",
    "common",
    "coptic",
    "cuneiform",
    "cypriot",
    "cyprominoan",
    "cyrillic",
    "deseret",
    "devanagari",
    "divesakuru",
    "dogra",
    "duployan",
    "egyptianhieroglyphs",
    "elbasan",
    "elymaic",
    "ethiopic",
    "georgian",
    "glagolitic",
    "gothic",
    "grantha",
    "greek",
    "gujarati",
    "gunjalagondi",
    "gurmukhi",
    "han",
    "hangul",
    "hanifirohingya",
    "hanunoo",
    "hatran",
    "hebrew",
    "hiragana",
    "imperialaramaic",
    "inherited",
    "inscriptionalpahlavi",
    "inscriptionalparthian",
    "javanese",
    "kaithi",
    "kannada",
    "katakana",
    "kayahli",
    "kharoshthi",
    "khitansmallscript",
    "khmer",
    "khojki",
    "khudawadi",
    "lao",
    "latin",
    "lepcha",
    "limbu",
    "lineara",
    "linearb",
    "lisu",
    "lycian",
    "lydian",
    "mahajani",
    "makasar",
    "malayalam",
    "mandaic",
    "manichaean",
    "marchen",
    "masaramgondi",
    "medefaidrin",
    "meeteimayek",
    "mendekikakui",
    "meroiticcursive",
    "meroitichieroglyphs",
    "miao",
    "modi",
    "mongolian",
    "mro",
    "multani",
    "myanmar",
    "nabataean",
    "nandinagari",
    "newtailue",
    "newa",
    "nko",
    "nushu",
    "nyiakengpuachuehmong",
    "ogham",
    "olchiki",
    "oldhungarian",
    "olditalic",
    "oldnortharabian",
    "oldpermic",
    "oldpersian",
    "oldsogdian",
    "oldsoutharabian",
    "oldturkic",
    "olduyghur",
    "oriya",
    "osage",
    "osmanya",
    "pahawhhmong",
    "palmyrene",
    "paucinhau",
    "phagspa",
    "phoenician",
    "psalterpahlavi",
    "rejang",
    "runic",
    "samaritan",
    "saurashtra",
    "sharada",
    "shavian",
    "siddham",
    "signwriting",
    "sinhala",
    "sogdian",
    "sorasompeng",
    "soyombo",
    "sundanese",
    "sylotinagri",
    "syriac",
    "tagalog",
    "tagbanwa",
    "taile",
    "taitham",
    "taiviet",
    "takri",
    "tamil",
    "tangsa",
    "tangut",
    "telugu",
    "thaana",
    "thai",
    "tibetan",
    "tifinagh",
    "tirhuta",
    "toto",
    "ugaritic",
    "unknown",
    "vai",
    "vithkuqi",
    "wancho",
    "warangciti",
    "yezidi",
    "yi",
    "zanabazarsquare",
];

/// A property's set of Latin-1 characters; bytes in `unsure` may or may not belong.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Property {
    pub set: ByteSet,
    pub unsure: ByteSet,
}

/// How a property name is compared since PCRE2 10.40: case, spaces, `_` and `-` ignored.
pub fn normalise(name: &[u8]) -> Vec<u8> {
    name.iter()
        .filter(|b| !matches!(b, b' ' | b'_' | b'-'))
        .map(|b| b.to_ascii_lowercase())
        .collect()
}

fn category(pred: impl Fn(&str) -> bool) -> ByteSet {
    let mut s = ByteSet::EMPTY;
    for &(lo, hi, c) in CATEGORIES {
        if pred(c) {
            s.insert_range(lo, hi);
        }
    }
    s
}

/// The property with this (normalised) name; `None` when it is not one modelled here.
pub fn lookup(name: &[u8]) -> Option<Property> {
    let exact = |set| {
        Some(Property {
            set,
            unsure: ByteSet::EMPTY,
        })
    };
    let cat = |want: &str| {
        let want = want.to_string();
        category(move |c| {
            c.eq_ignore_ascii_case(&want)
                || (want.len() == 1 && c.starts_with(&want.to_ascii_uppercase()))
        })
    };
    let spaces = ByteSet::range(0x09, 0x0d);
    match name {
        b"any" => return exact(ByteSet::ALL),
        b"l&" | b"lc" => return exact(cat("lu").union(cat("ll")).union(cat("lt"))),
        b"xan" => return exact(cat("l").union(cat("n"))),
        b"xps" | b"xsp" => return exact(cat("z").union(spaces)),
        b"xwd" => return exact(cat("l").union(cat("n")).union(ByteSet::of(b"_"))),
        b"xuc" => return exact(ByteSet::of(b"$@`").union(ByteSet::range(0xa0, 0xff))),
        _ => {}
    }
    let general = [
        "c", "cc", "cf", "cn", "co", "cs", "l", "ll", "lm", "lo", "lt", "lu", "m", "mc", "me",
        "mn", "n", "nd", "nl", "no", "p", "pc", "pd", "pe", "pf", "pi", "po", "ps", "s", "sc",
        "sk", "sm", "so", "z", "zl", "zp", "zs",
    ];
    if let Some(g) = general.iter().find(|g| g.as_bytes() == name) {
        return exact(cat(g));
    }
    let s = std::str::from_utf8(name).ok()?;
    if !SCRIPTS.contains(&s) {
        return None;
    }
    let letters = ByteSet::range(b'a', b'z').union(ByteSet::range(b'A', b'Z'));
    let ascii = match s {
        "latin" => letters,
        "common" => ByteSet::range(0, 127).minus(letters),
        _ => ByteSet::EMPTY,
    };
    Some(Property {
        set: ascii,
        unsure: ByteSet::range(0x80, 0xff),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn categories_cover_latin1_once() {
        let mut n = 0u32;
        for &(lo, hi, _) in CATEGORIES {
            n += hi as u32 - lo as u32 + 1;
        }
        assert_eq!(n, 256);
        let l = lookup(b"l").unwrap().set;
        assert!(l.contains(b'a') && l.contains(0xe9) && !l.contains(b'1'));
        assert_eq!(lookup(b"lu").unwrap().set.len(), 26 + 23 + 7);
        assert!(lookup(b"greek").unwrap().unsure.contains(0xb5));
        assert!(lookup(b"alphabetic").is_none());
    }
}
