//! The stack model: which files form a configuration and how they are connected.

pub mod ahead;
pub mod confine;
pub mod discover;
pub mod expanded;
pub mod fanout;
pub mod fpm;
pub mod fs;
pub mod glob;
pub mod ids;
pub mod instances;
pub mod memo;
pub mod model;
pub mod net;
pub mod nginx;
pub mod paths;
pub mod php_image;
pub mod php_ini;
pub mod php_settings;
pub mod php_template;
pub mod platform;
pub mod side_files;
pub mod sizing;
pub mod sysctl;
pub mod systemd;
pub mod values;
