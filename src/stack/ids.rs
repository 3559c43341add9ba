//! Small opaque ids for the parts of a stack that rules keep facts about: an nginx
//! configuration, a server block of one, a php-fpm pool. In rust-analyzer's manner: a
//! `u32` newtype, `Copy`, ordered and hashable, with no way to reach what it names except
//! through the stack that gave it out.
//!
//! Rules used to key their maps by the address of what they had (`*const NginxInstance`):
//! an address says nothing about order (so a map keyed by it was sorted by searching for
//! each pointer), could dangle, and kept a rule's caches from being shared. An id is the
//! position of the thing in the stack's own order, so sorting by id is reading order.

use std::fmt;

macro_rules! id {
    ($(#[$attr:meta])* $name:ident) => {
        $(#[$attr])*
        #[derive(Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(u32);

        impl $name {
            /// The id of the `index`th of its kind, in the stack's order.
            pub fn new(index: usize) -> $name {
                $name(u32::try_from(index).expect("fewer than 2^32 of them"))
            }

            /// Its position in the stack's order (an index into the list it came from).
            pub fn index(self) -> usize {
                self.0 as usize
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{}({})", stringify!($name), self.0)
            }
        }
    };
}

id! {
    /// An nginx configuration of the stack: its position in [`super::model::Stack::nginx`].
    NginxId
}

id! {
    /// A php-fpm pool, merged by name within its php-fpm (see
    /// [`super::instances::PoolView`]): numbered across the stack's instances in order.
    PoolId
}

/// A `server` block of one nginx configuration: the configuration and the block's
/// occurrence in it (a file included by two servers is two occurrences).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct ServerId {
    pub config: NginxId,
    pub occ: super::expanded::OccId,
}
