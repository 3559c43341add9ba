//! Rules about nginx's TLS settings (`ssl_ciphers`, `ssl_protocols`, `ssl_dhparam`, the
//! session cache), built on the offline OpenSSL model in [`crate::tls`].
//!
//! What a cipher string or a protocol list means depends on two versions nobody writes in
//! the configuration: nginx's (its defaults changed over time) and the OpenSSL it is linked
//! with (which suites exist, which keywords it knows, its default security level). Both come
//! from `[host] nginx` and `[host] openssl`; without them the rules assume the current nginx
//! stable (1.30) and OpenSSL 3.0 and say so where it matters ([`crate::analysis::tls_settings::Versions`]).
//!
//! A directive is judged where it is written (that is where its fix goes), in the light of
//! the TLS servers that use it; a TLS server relying on nginx's defaults is judged on those,
//! once per `http` block ([`crate::analysis::tls_settings::settings`]).

pub mod http2_misdirected_request;
pub mod quic_bpf_reuseport;
pub mod ssl_ciphers_invalid;
pub mod ssl_dhe_key_exchange;
pub mod ssl_dhparam_weak;
pub mod ssl_early_data_replayable;
pub mod ssl_ecdh_curve_unknown;
pub mod ssl_insecure_ciphers;
pub mod ssl_legacy_protocols;
pub mod ssl_seclevel_lowered;
pub mod ssl_session_cache_missing;
pub mod ssl_stapling_letsencrypt;
pub mod ssl_stapling_without_resolver;
pub mod ssl_weak_cipher_preferred;
