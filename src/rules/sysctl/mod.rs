//! Rules about sysctl files alone.

pub mod hardening_profile;
pub mod hardening_weakened;
pub mod inline_comment;
pub mod shadowed_setting;
pub mod syntax_error;
pub mod tcp_syncookies_disabled;
pub mod tcp_tw_recycle;
pub mod unknown_key;
