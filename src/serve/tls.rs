//! HTTPS for the relay: a rustls server configuration from a PEM certificate chain and key.
//!
//! Only HTTP/1.1 is offered (ALPN `http/1.1`), as the server speaks nothing else. The crypto
//! provider is the one reqwest already links (aws-lc-rs), so no second one is compiled in.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, PrivateKeyDer};
use tokio_rustls::TlsAcceptor;
use tokio_rustls::rustls;

/// Why the certificate or key cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum TlsError {
    /// A file could not be read or held no PEM object of the kind needed.
    #[error("cannot use {what} {}: {reason}", path.display())]
    File {
        /// "the TLS certificate" or "the TLS key".
        what: &'static str,
        /// The file.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// rustls refused the pair (e.g. the key does not match the certificate).
    #[error("the TLS certificate and key do not work together: {0}")]
    Config(String),
}

/// Builds the acceptor from `--tls-cert` and `--tls-key`.
pub fn acceptor(cert: &Path, key: &Path) -> Result<TlsAcceptor, TlsError> {
    let chain = CertificateDer::pem_file_iter(cert)
        .and_then(|certs| certs.collect::<Result<Vec<_>, _>>())
        .map_err(|e| TlsError::File {
            what: "the TLS certificate",
            path: cert.to_owned(),
            reason: e.to_string(),
        })?;
    if chain.is_empty() {
        return Err(TlsError::File {
            what: "the TLS certificate",
            path: cert.to_owned(),
            reason: "no CERTIFICATE in it".to_owned(),
        });
    }
    let private_key = PrivateKeyDer::from_pem_file(key).map_err(|e| TlsError::File {
        what: "the TLS key",
        path: key.to_owned(),
        reason: e.to_string(),
    })?;
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let mut config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| TlsError::Config(e.to_string()))?
        .with_no_client_auth()
        .with_single_cert(chain, private_key)
        .map_err(|e| TlsError::Config(e.to_string()))?;
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(TlsAcceptor::from(Arc::new(config)))
}
