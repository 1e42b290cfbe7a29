//! The API key and everything about where it comes from: the key type, the sources captop
//! looks in, and the OS keyrings `captop auth login` stores it in.
//!
//! ```text
//!   config::Settings ──key_request()──▶ KeyRequest ──find()──▶ FoundKey { key, source }
//!                                           │
//!            first that yields wins:        ├─ --api-key-file        (sources)
//!                                           ├─ CAPTOP_API_KEY        (sources)
//!                                           ├─ api_key_command       (command)
//!                                           └─ the OS keyring        (keyring)
//!
//!   api_key ◀── keyring ◀── error ◀── command ◀── sources     (each file imports only those
//!                  ▲                                  │        to its left)
//!                  └──────────────────────────────────┘
//! ```
//!
//! Dependencies run one way: [`ApiKey`] depends on nothing, the keyrings on the key type
//! alone, the errors on both, the sources on all of them. Nothing here knows about the config
//! file; the settings hand over a [`KeyRequest`] and this module does the I/O (files,
//! commands, D-Bus).
//!
//! [`ApiKey`] zeroizes its memory on drop, prints as `***` in `Debug` and `Display`, and gives
//! its text out only through [`ApiKey::expose`], so every place that touches the secret itself
//! is easy to find with grep.

mod api_key;
mod command;
mod error;
pub mod keyring;
mod sources;

pub use api_key::ApiKey;
pub use command::run_key_command;
pub use error::KeyError;
pub use keyring::{Keyring, KeyringError, StoreChoice, StoreKind, Stored};
pub use sources::{FoundKey, KeyRequest, KeySource, KeyringHandle};
