//! HTTPS for the relay: a rustls server configuration whose certificate can be replaced while
//! it serves.
//!
//! The acceptor is built once; its certificate comes from a [`LiveCertificate`], a
//! [`ResolvesServerCert`] that hands out whatever certified key it holds at the moment of each
//! handshake. A reload ([`super::reload`]) swaps a new one in: connections already open keep
//! the session they negotiated, every handshake after the swap presents the new certificate.
//!
//! Only HTTP/1.1 is offered (ALPN `http/1.1`), as the server speaks nothing else. The crypto
//! provider is the one reqwest already links (aws-lc-rs), so no second one is compiled in.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use arc_swap::ArcSwap;
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, PrivateKeyDer};
use tokio_rustls::TlsAcceptor;
use tokio_rustls::rustls;
use tokio_rustls::rustls::server::{ClientHello, ResolvesServerCert};
use tokio_rustls::rustls::sign::CertifiedKey;

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

/// The certificate chain and key every new handshake presents; replaced whole by a reload.
pub struct LiveCertificate {
    current: ArcSwap<CertifiedKey>,
}

impl std::fmt::Debug for LiveCertificate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The certified key holds the private key: say only what it is.
        f.write_str("LiveCertificate")
    }
}

impl ResolvesServerCert for LiveCertificate {
    fn resolve(&self, _client_hello: ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        Some(self.current.load_full())
    }
}

impl LiveCertificate {
    /// Presents `certified` from the next handshake on.
    pub fn replace(&self, certified: CertifiedKey) {
        self.current.store(Arc::new(certified));
    }

    /// The DER of the end-entity certificate presented now.
    pub fn end_entity_der(&self) -> Vec<u8> {
        self.current
            .load()
            .end_entity_cert()
            .map(|der| der.as_ref().to_vec())
            .unwrap_or_default()
    }
}

/// The relay's HTTPS: the acceptor, and the certificate a reload may replace. (No `Debug`:
/// both hold the private key.)
#[derive(Clone)]
pub struct ServerTls {
    /// Hand this every accepted connection.
    pub acceptor: TlsAcceptor,
    /// The certificate the acceptor presents.
    pub certificate: Arc<LiveCertificate>,
}

fn provider() -> Arc<rustls::crypto::CryptoProvider> {
    Arc::new(rustls::crypto::aws_lc_rs::default_provider())
}

/// What is wrong with a PEM file, in words (the parser's own text shows markers as lists of
/// bytes), and never a piece of its content: the file may be the private key.
fn pem_reason(error: rustls_pki_types::pem::Error) -> String {
    use rustls_pki_types::pem::Error;
    match error {
        Error::MissingSectionEnd { end_marker } => format!(
            "a PEM section has no \"-----END {}-----\" line",
            String::from_utf8_lossy(&end_marker)
        ),
        Error::IllegalSectionStart { .. } => "a \"-----BEGIN\" line is malformed".to_owned(),
        Error::Base64Decode(_) => "a PEM section is not valid base64".to_owned(),
        Error::NoItemsFound => "no PEM section of the kind needed in it".to_owned(),
        other => other.to_string(),
    }
}

/// Reads and checks `--tls-cert` and `--tls-key`: a chain of at least one certificate, a key
/// the provider can use, and the key matching the first certificate.
pub fn load(cert: &Path, key: &Path) -> Result<CertifiedKey, TlsError> {
    let cert_error = |reason| TlsError::File {
        what: "the TLS certificate",
        path: cert.to_owned(),
        reason,
    };
    let chain = CertificateDer::pem_file_iter(cert)
        .and_then(|certs| certs.collect::<Result<Vec<_>, _>>())
        .map_err(|e| cert_error(pem_reason(e)))?;
    if chain.is_empty() {
        return Err(cert_error("no CERTIFICATE in it".to_owned()));
    }
    let private_key = PrivateKeyDer::from_pem_file(key).map_err(|e| TlsError::File {
        what: "the TLS key",
        path: key.to_owned(),
        reason: pem_reason(e),
    })?;
    let certified = CertifiedKey::from_der(chain, private_key, &provider())
        .map_err(|e| TlsError::Config(e.to_string()))?;
    // from_der lets a pair pass when it cannot tell whether they match; a reload must not.
    certified
        .keys_match()
        .map_err(|e| TlsError::Config(e.to_string()))?;
    Ok(certified)
}

/// Builds the relay's HTTPS from `--tls-cert` and `--tls-key`.
pub fn server_tls(cert: &Path, key: &Path) -> Result<ServerTls, TlsError> {
    let certificate = Arc::new(LiveCertificate {
        current: ArcSwap::from_pointee(load(cert, key)?),
    });
    let resolver: Arc<dyn ResolvesServerCert> = certificate.clone();
    let mut config = rustls::ServerConfig::builder_with_provider(provider())
        .with_safe_default_protocol_versions()
        .map_err(|e| TlsError::Config(e.to_string()))?
        .with_no_client_auth()
        .with_cert_resolver(resolver);
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(ServerTls {
        acceptor: TlsAcceptor::from(Arc::new(config)),
        certificate,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair(dir: &Path, name: &str) -> (PathBuf, PathBuf, Vec<u8>) {
        let made = rcgen::generate_simple_self_signed(vec!["localhost".to_owned()]).unwrap();
        let cert = dir.join(format!("{name}.crt"));
        let key = dir.join(format!("{name}.key"));
        std::fs::write(&cert, made.cert.pem()).unwrap();
        std::fs::write(&key, made.signing_key.serialize_pem()).unwrap();
        (cert, key, made.cert.der().to_vec())
    }

    #[test]
    fn a_replaced_certificate_is_presented_and_a_mismatched_pair_refused() {
        let dir = tempfile::tempdir().unwrap();
        let (cert_a, key_a, der_a) = pair(dir.path(), "a");
        let (cert_b, key_b, der_b) = pair(dir.path(), "b");
        let tls = server_tls(&cert_a, &key_a).unwrap();
        assert_eq!(tls.certificate.end_entity_der(), der_a);
        tls.certificate.replace(load(&cert_b, &key_b).unwrap());
        assert_eq!(tls.certificate.end_entity_der(), der_b);
        let err = load(&cert_a, &key_b).unwrap_err();
        assert!(matches!(err, TlsError::Config(_)), "{err}");
        std::fs::write(&cert_a, "not a certificate\n").unwrap();
        let err = load(&cert_a, &key_a).unwrap_err();
        assert!(err.to_string().contains("no CERTIFICATE"), "{err}");
        std::fs::write(&cert_a, "-----BEGIN CERTIFICATE-----\nAAAA\n").unwrap();
        let err = load(&cert_a, &key_a).unwrap_err().to_string();
        assert!(
            err.ends_with("no \"-----END CERTIFICATE-----\" line"),
            "{err}"
        );
    }
}
