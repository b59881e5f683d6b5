//! TLS for the inbox past loopback (DESIGN §14): the server's side from a
//! PEM certificate chain and key (`inbox --tls-cert`, `--tls-key`), and the
//! askers' side, which trusts the system's roots (and `SSL_CERT_FILE` or
//! `SSL_CERT_DIR`, for a private CA). rustls on ring; TLS 1.3 and 1.2.

use std::path::Path;
use std::sync::{Arc, OnceLock};

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName};
use tokio_rustls::{TlsAcceptor, TlsConnector};

/// The server's TLS from `cert` (the chain, leaf first) and `key`; the error
/// names the file and what is wrong with it.
pub fn acceptor(cert: &Path, key: &Path) -> Result<TlsAcceptor, String> {
    let chain: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(cert)
        .and_then(|certs| certs.collect::<Result<_, _>>())
        .map_err(|e| format!("--tls-cert {}: {}", cert.display(), pem_error(&e)))?;
    if chain.is_empty() {
        return Err(format!(
            "--tls-cert {}: no CERTIFICATE in it (a PEM certificate chain, leaf first)",
            cert.display()
        ));
    }
    let private = PrivateKeyDer::from_pem_file(key)
        .map_err(|e| format!("--tls-key {}: {}", key.display(), pem_error(&e)))?;
    let config = rustls::ServerConfig::builder_with_provider(provider())
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("TLS cannot start ({e})"))?
        .with_no_client_auth()
        .with_single_cert(chain, private)
        .map_err(|e| {
            format!(
                "--tls-cert {} and --tls-key {} do not make a usable pair ({e})",
                cert.display(),
                key.display()
            )
        })?;
    let mut config = config;
    // HTTP/1.1 only, as the server speaks.
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(TlsAcceptor::from(Arc::new(config)))
}

fn pem_error(error: &rustls::pki_types::pem::Error) -> String {
    use rustls::pki_types::pem::Error;
    match error {
        Error::Io(e) => format!("cannot be read ({e})"),
        Error::NoItemsFound => "no PEM item of the right kind in it".to_string(),
        other => format!("not a PEM file ({other:?})"),
    }
}

fn provider() -> Arc<rustls::crypto::CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

/// The askers' TLS: the system's roots, read once per process. `None` when
/// no root could be read (the error says where it looked).
pub fn connector() -> Result<TlsConnector, String> {
    static CONNECTOR: OnceLock<Result<TlsConnector, String>> = OnceLock::new();
    CONNECTOR.get_or_init(build_connector).clone()
}

fn build_connector() -> Result<TlsConnector, String> {
    let found = rustls_native_certs::load_native_certs();
    let mut roots = rustls::RootCertStore::empty();
    let (added, _ignored) = roots.add_parsable_certificates(found.certs);
    if added == 0 {
        let why = found
            .errors
            .first()
            .map(|e| format!(" ({e})"))
            .unwrap_or_default();
        return Err(format!(
            "no trusted root certificate found{why}; set SSL_CERT_FILE to a PEM file of the CA that signed the inbox's certificate"
        ));
    }
    let config = rustls::ClientConfig::builder_with_provider(provider())
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("TLS cannot start ({e})"))?
        .with_root_certificates(roots)
        .with_no_client_auth();
    let mut config = config;
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(TlsConnector::from(Arc::new(config)))
}

/// The name a certificate must carry for `host` (a DNS name, or an IP
/// address with or without its IPv6 brackets).
pub fn server_name(host: &str) -> Result<ServerName<'static>, String> {
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    ServerName::try_from(bare.to_string()).map_err(|e| format!("{host} is not a TLS name ({e})"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_of_hosts_and_addresses() {
        assert!(matches!(
            server_name("inbox.example.com"),
            Ok(ServerName::DnsName(_))
        ));
        assert!(matches!(
            server_name("10.0.0.1"),
            Ok(ServerName::IpAddress(_))
        ));
        assert!(matches!(server_name("[::1]"), Ok(ServerName::IpAddress(_))));
        assert!(server_name("bad name").is_err());
    }

    #[test]
    fn missing_or_empty_files_are_named_in_the_error() {
        let dir = tempfile::tempdir().unwrap();
        let empty = dir.path().join("empty.pem");
        std::fs::write(&empty, "").unwrap();
        let missing = dir.path().join("missing.pem");
        let Err(e) = acceptor(&missing, &empty) else {
            panic!("a missing certificate was taken")
        };
        assert!(
            e.starts_with("--tls-cert ") && e.contains("cannot be read"),
            "{e}"
        );
        let Err(e) = acceptor(&empty, &empty) else {
            panic!("an empty certificate was taken")
        };
        assert!(e.contains("no CERTIFICATE"), "{e}");
    }
}
