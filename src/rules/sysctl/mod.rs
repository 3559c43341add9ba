//! Rules about sysctl files alone.

pub mod distro_limit_lowered;
pub mod hardening_profile;
pub mod hardening_weakened;
pub mod inline_comment;
pub mod shadowed_setting;
pub mod socket_memory_in_pages;
pub mod syntax_error;
pub mod tcp_syncookies_disabled;
pub mod tcp_tw_recycle;
pub mod unknown_key;
