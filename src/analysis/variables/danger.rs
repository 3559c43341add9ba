//! What a client may smuggle into a value, one flag per kind of harm a rule reports.

/// One kind of client-chosen content.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Danger {
    /// A line break — an LF, alone or after a CR: header splitting when the value lands in
    /// a header. A bare CR splits nothing: RFC 9112 (section 2.2) has a recipient refuse it
    /// or read it as a space, and nginx's own `ngx_http_parse_header_line` refuses it, so
    /// a value that can hold CR but not LF (a `(.*)` capture) is not counted.
    CrLf,
    /// A `/`: a path separator where a file name or one path segment was meant.
    Slash,
    /// A `..` path segment: leaving the directory a path was meant to stay in.
    DotDot,
    /// A host name (or address) of the client's choosing: open redirects, SSRF.
    Host,
}

impl Danger {
    pub const ALL: [Danger; 4] = [Danger::CrLf, Danger::Slash, Danger::DotDot, Danger::Host];

    fn bit(self) -> u8 {
        match self {
            Danger::CrLf => 1,
            Danger::Slash => 2,
            Danger::DotDot => 4,
            Danger::Host => 8,
        }
    }

    pub fn index(self) -> usize {
        self.bit().trailing_zeros() as usize
    }

    /// How a message names it.
    pub fn describe(self) -> &'static str {
        match self {
            Danger::CrLf => "CR/LF",
            Danger::Slash => "`/`",
            Danger::DotDot => "a `..` segment",
            Danger::Host => "an arbitrary host",
        }
    }
}

/// A set of [`Danger`]s.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Dangers(u8);

impl Dangers {
    pub const NONE: Dangers = Dangers(0);
    pub const ALL: Dangers = Dangers(15);

    pub const fn of(bits: &[Danger]) -> Dangers {
        let mut out = 0u8;
        let mut i = 0;
        while i < bits.len() {
            out |= match bits[i] {
                Danger::CrLf => 1,
                Danger::Slash => 2,
                Danger::DotDot => 4,
                Danger::Host => 8,
            };
            i += 1;
        }
        Dangers(out)
    }

    pub fn has(self, d: Danger) -> bool {
        self.0 & d.bit() != 0
    }

    pub fn with(self, d: Danger) -> Dangers {
        Dangers(self.0 | d.bit())
    }

    pub fn without(self, d: Danger) -> Dangers {
        Dangers(self.0 & !d.bit())
    }

    pub fn union(self, o: Dangers) -> Dangers {
        Dangers(self.0 | o.0)
    }

    pub fn intersect(self, o: Dangers) -> Dangers {
        Dangers(self.0 & o.0)
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    pub fn iter(self) -> impl Iterator<Item = Danger> {
        Danger::ALL.into_iter().filter(move |d| self.has(*d))
    }
}
