//! TLS to PostgreSQL: `sslmode` and `sslrootcert` in the store's
//! URL, on the rustls the rest of the binary uses (no OpenSSL, no second TLS
//! stack). The postgres crate knows only `disable`, `prefer` and `require`
//! and has no TLS of its own: this module reads the two keys, hands it the
//! rest, and is the `MakeTlsConnect` it connects with.
//!
//! The modes mean what they mean to libpq:
//! - `disable`: never TLS;
//! - `prefer` (the default): TLS when the server offers it, not verified;
//! - `require`: TLS or no connection, not verified (it stops a passive
//!   listener, not a machine in the middle);
//! - `verify-ca`: TLS, the certificate chains to a trusted root;
//! - `verify-full`: that, and the certificate names the host.
//!
//! The trusted roots are the PEM file `sslrootcert` names, else the
//! system's (which honour `SSL_CERT_FILE` and `SSL_CERT_DIR`).

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use postgres::tls::{ChannelBinding, MakeTlsConnect, TlsConnect, TlsStream};
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{DigitallySignedStruct, SignatureScheme};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// What `sslmode` asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SslMode {
    Disable,
    Prefer,
    Require,
    VerifyCa,
    VerifyFull,
}

impl SslMode {
    fn parse(text: &str) -> Result<SslMode, String> {
        Ok(match text {
            "disable" => SslMode::Disable,
            "prefer" => SslMode::Prefer,
            "require" => SslMode::Require,
            "verify-ca" => SslMode::VerifyCa,
            "verify-full" => SslMode::VerifyFull,
            other => {
                return Err(format!(
                    "sslmode={other} is not one of disable, prefer, require, verify-ca, verify-full"
                ));
            }
        })
    }

    /// The postgres crate's own setting for it.
    fn negotiation(self) -> postgres::config::SslMode {
        match self {
            SslMode::Disable => postgres::config::SslMode::Disable,
            SslMode::Prefer => postgres::config::SslMode::Prefer,
            _ => postgres::config::SslMode::Require,
        }
    }
}

/// The TLS part of a store URL, and the URL without it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Split {
    pub rest: String,
    pub mode: SslMode,
    pub root_cert: Option<String>,
}

/// Takes `sslmode` and `sslrootcert` out of `url`: a URL's query
/// (`postgres://…?sslmode=verify-full&sslrootcert=/etc/ca.pem`) or a
/// key=value string (`host=db sslmode=require`).
pub fn split(url: &str) -> Result<Split, String> {
    let mut mode = SslMode::Prefer;
    let mut root_cert = None;
    let mut take = |key: &str, value: &str| -> Result<bool, String> {
        match key {
            "sslmode" => mode = SslMode::parse(&percent_decoded(value))?,
            "sslrootcert" => root_cert = Some(percent_decoded(value)),
            _ => return Ok(false),
        }
        Ok(true)
    };
    let rest = if url.contains("://") {
        let (base, query) = url.split_once('?').unwrap_or((url, ""));
        let mut kept = Vec::new();
        for pair in query.split('&').filter(|p| !p.is_empty()) {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            if !take(key, value)? {
                kept.push(pair);
            }
        }
        if kept.is_empty() {
            base.to_string()
        } else {
            format!("{base}?{}", kept.join("&"))
        }
    } else {
        let mut kept = Vec::new();
        for word in url.split_whitespace() {
            let (key, value) = word.split_once('=').unwrap_or((word, ""));
            if !take(key.trim(), value.trim())? {
                kept.push(word);
            }
        }
        kept.join(" ")
    };
    Ok(Split {
        rest,
        mode,
        root_cert,
    })
}

/// `url` without its `sslmode` and `sslrootcert`, whatever their values
/// (for messages, which name the store even when its sslmode is wrong).
pub fn without_tls_keys(url: &str) -> String {
    let keep = |pair: &str| {
        let key = pair.split('=').next().unwrap_or("").trim();
        key != "sslmode" && key != "sslrootcert"
    };
    if url.contains("://") {
        let (base, query) = url.split_once('?').unwrap_or((url, ""));
        let kept: Vec<&str> = query
            .split('&')
            .filter(|p| !p.is_empty() && keep(p))
            .collect();
        if kept.is_empty() {
            base.to_string()
        } else {
            format!("{base}?{}", kept.join("&"))
        }
    } else {
        url.split_whitespace()
            .filter(|w| keep(w))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

fn percent_decoded(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| char::from(b).to_digit(16);
        match (bytes[i], bytes.get(i + 1), bytes.get(i + 2)) {
            (b'%', Some(&h), Some(&l)) if hex(h).is_some() && hex(l).is_some() => {
                out.push((hex(h).unwrap_or(0) * 16 + hex(l).unwrap_or(0)) as u8);
                i += 3;
            }
            (b, _, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Applies the mode to `config` and builds the connector for it.
pub fn connector(split: &Split, config: &mut postgres::Config) -> Result<MakeRustls, String> {
    config.ssl_mode(split.mode.negotiation());
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let verifier: Arc<dyn ServerCertVerifier> = match split.mode {
        SslMode::Disable | SslMode::Prefer | SslMode::Require => {
            Arc::new(Unverified(Arc::clone(&provider)))
        }
        SslMode::VerifyCa | SslMode::VerifyFull => {
            let roots = Arc::new(roots(split.root_cert.as_deref())?);
            let webpki = rustls::client::WebPkiServerVerifier::builder_with_provider(
                roots,
                Arc::clone(&provider),
            )
            .build()
            .map_err(|e| format!("TLS to PostgreSQL cannot start ({e})"))?;
            if split.mode == SslMode::VerifyCa {
                Arc::new(AnyName(webpki))
            } else {
                webpki
            }
        }
    };
    let tls = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("TLS to PostgreSQL cannot start ({e})"))?
        .dangerous()
        .with_custom_certificate_verifier(verifier)
        .with_no_client_auth();
    Ok(MakeRustls(tokio_rustls::TlsConnector::from(Arc::new(tls))))
}

/// `sslrootcert`'s certificates, else the system's roots.
fn roots(file: Option<&str>) -> Result<rustls::RootCertStore, String> {
    let mut roots = rustls::RootCertStore::empty();
    let certs: Vec<CertificateDer<'static>> = match file {
        Some(path) => CertificateDer::pem_file_iter(path)
            .and_then(|certs| certs.collect::<Result<_, _>>())
            .map_err(|e| {
                format!("sslrootcert={path} cannot be read as PEM certificates ({e:?})")
            })?,
        None => rustls_native_certs::load_native_certs().certs,
    };
    let (added, _) = roots.add_parsable_certificates(certs);
    if added == 0 {
        return Err(match file {
            Some(path) => format!("sslrootcert={path} holds no CA certificate"),
            None => "no trusted root certificate found on this system; give the CA's PEM file as sslrootcert=FILE in the store URL".into(),
        });
    }
    Ok(roots)
}

/// The connector the postgres crate calls for each connection.
#[derive(Clone)]
pub struct MakeRustls(tokio_rustls::TlsConnector);

impl<S> MakeTlsConnect<S> for MakeRustls
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    type Stream = RustlsStream<S>;
    type TlsConnect = RustlsConnect;
    type Error = io::Error;

    /// Called for every host of the URL before connecting, a Unix socket's
    /// too (its domain is empty, and no TLS is ever tried on it): a host
    /// that is no TLS name fails only if a handshake is asked of it.
    fn make_tls_connect(&mut self, domain: &str) -> io::Result<RustlsConnect> {
        let name = ask_user_server::tls::server_name(domain);
        Ok(RustlsConnect(self.0.clone(), name))
    }
}

pub struct RustlsConnect(
    tokio_rustls::TlsConnector,
    Result<ServerName<'static>, String>,
);

impl<S> TlsConnect<S> for RustlsConnect
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    type Stream = RustlsStream<S>;
    type Error = io::Error;
    type Future = Pin<Box<dyn Future<Output = io::Result<RustlsStream<S>>> + Send>>;

    fn connect(self, stream: S) -> Self::Future {
        let RustlsConnect(connector, name) = self;
        Box::pin(async move {
            let name = name.map_err(|why| io::Error::new(io::ErrorKind::InvalidInput, why))?;
            connector
                .connect(name, stream)
                .await
                .map(|s| RustlsStream(Box::new(s)))
                .map_err(|e| {
                    io::Error::new(
                        e.kind(),
                        format!("the TLS handshake with PostgreSQL failed: {e}"),
                    )
                })
        })
    }
}

pub struct RustlsStream<S>(Box<tokio_rustls::client::TlsStream<S>>);

impl<S: AsyncRead + AsyncWrite + Unpin> AsyncRead for RustlsStream<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut *self.0).poll_read(cx, buf)
    }
}

impl<S: AsyncRead + AsyncWrite + Unpin> AsyncWrite for RustlsStream<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut *self.0).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut *self.0).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut *self.0).poll_shutdown(cx)
    }
}

impl<S: AsyncRead + AsyncWrite + Unpin> TlsStream for RustlsStream<S> {
    /// No channel binding: SCRAM goes without it (as libpq's
    /// `channel_binding=prefer` does with a server that has none to offer).
    fn channel_binding(&self) -> ChannelBinding {
        ChannelBinding::none()
    }
}

/// `prefer` and `require`: any certificate (libpq's meaning); the
/// handshake's signatures are still checked.
#[derive(Debug)]
struct Unverified(Arc<rustls::crypto::CryptoProvider>);

impl ServerCertVerifier for Unverified {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}

/// `verify-ca`: the chain must verify; the name need not match.
#[derive(Debug)]
struct AnyName(Arc<rustls::client::WebPkiServerVerifier>);

impl ServerCertVerifier for AnyName {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        use rustls::{CertificateError, Error};
        match self
            .0
            .verify_server_cert(end_entity, intermediates, server_name, ocsp_response, now)
        {
            Err(Error::InvalidCertificate(
                CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. },
            )) => Ok(ServerCertVerified::assertion()),
            other => other,
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.supported_verify_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tls_keys_are_taken_out_of_a_url_and_a_key_value_string() {
        let split_url =
            split("postgres://u@db/inbox?sslmode=verify-full&connect_timeout=2&sslrootcert=%2Fetc%2Fca.pem")
                .unwrap();
        assert_eq!(
            split_url,
            Split {
                rest: "postgres://u@db/inbox?connect_timeout=2".into(),
                mode: SslMode::VerifyFull,
                root_cert: Some("/etc/ca.pem".into()),
            }
        );
        let plain = split("postgres://u@db/inbox").unwrap();
        assert_eq!(
            (plain.rest.as_str(), plain.mode),
            ("postgres://u@db/inbox", SslMode::Prefer)
        );
        let only = split("postgres://u@db/inbox?sslmode=require").unwrap();
        assert_eq!(
            (only.rest.as_str(), only.mode),
            ("postgres://u@db/inbox", SslMode::Require)
        );
        let words = split("host=db dbname=inbox sslmode=verify-ca sslrootcert=/ca.pem").unwrap();
        assert_eq!(
            (words.rest.as_str(), words.mode, words.root_cert.as_deref()),
            ("host=db dbname=inbox", SslMode::VerifyCa, Some("/ca.pem"))
        );
        assert_eq!(
            without_tls_keys("postgres://db/x?sslmode=nonsense&a=1&sslrootcert=/c"),
            "postgres://db/x?a=1"
        );
        assert_eq!(without_tls_keys("host=db sslmode=what"), "host=db");
        for mode in ["disable", "prefer"] {
            let url = format!("postgres://db/x?sslmode={mode}");
            assert!(split(&url).is_ok(), "{mode}");
        }
    }

    /// A Unix socket's host is no TLS name: its connector is made (the
    /// postgres crate makes one per host) and fails only if used.
    #[test]
    fn a_host_that_is_no_tls_name_fails_only_at_a_handshake() {
        let split = split("postgres://u@%2Ftmp/x").unwrap();
        let mut config = postgres::Config::new();
        let mut make = connector(&split, &mut config).unwrap();
        let connect = MakeTlsConnect::<tokio::net::TcpStream>::make_tls_connect(&mut make, "");
        assert!(connect.is_ok());
        let connect = connect.unwrap();
        assert!(connect.1.is_err());
    }

    #[test]
    fn an_unknown_sslmode_names_the_ones_there_are() {
        let err = split("postgres://db/x?sslmode=allow-all").unwrap_err();
        assert_eq!(
            err,
            "sslmode=allow-all is not one of disable, prefer, require, verify-ca, verify-full"
        );
    }

    #[test]
    fn a_root_file_that_is_not_there_or_holds_no_certificate_is_named() {
        let split = Split {
            rest: String::new(),
            mode: SslMode::VerifyFull,
            root_cert: Some("/nonexistent/ca.pem".into()),
        };
        let mut config = postgres::Config::new();
        let err = connector(&split, &mut config).err().unwrap();
        assert!(
            err.starts_with("sslrootcert=/nonexistent/ca.pem cannot be read"),
            "{err}"
        );
        let dir = tempfile::tempdir().unwrap();
        let empty = dir.path().join("empty.pem");
        std::fs::write(&empty, "not a certificate\n").unwrap();
        let split = Split {
            root_cert: Some(empty.display().to_string()),
            ..split
        };
        let err = connector(&split, &mut config).err().unwrap();
        assert!(err.contains("empty.pem"), "{err}");
    }
}
