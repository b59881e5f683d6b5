//! Where the inbox listens and how it is reached (DESIGN §14): loopback by
//! default; past loopback only over TLS (`--tls-cert`, `--tls-key`) or
//! behind a reverse proxy that terminates TLS (`--behind-proxy
//! --public-url https://…`), never plain HTTP, which would carry the token
//! in clear.
//!
//! The server answers to a fixed list of sites (Host and Origin, against
//! DNS rebinding): 127.0.0.1 and localhost on its port, the address it
//! listens on when that is an IP address (an address cannot be rebound),
//! and the public URL.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::PathBuf;

use ask_user_server::Site;

/// `--public-url`: `https://HOST[:PORT]`, where people and askers reach the
/// inbox through a proxy (or a name for this machine).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PublicUrl {
    /// `https://HOST[:PORT]`, lower case, no path.
    pub base: String,
    /// `HOST[:PORT]`, as browsers send it in Host (no `:443`).
    pub authority: String,
}

impl PublicUrl {
    /// The sites it stands for: as written, and with the default port
    /// spelt out when it was left out (some clients send `HOST:443`).
    fn sites(&self) -> Vec<Site> {
        let mut sites = vec![Site::new("https", &self.authority)];
        if !has_port(&self.authority) {
            sites.push(Site {
                authority: format!("{}:443", self.authority),
                origin: self.base.clone(),
            });
        }
        sites
    }
}

fn has_port(authority: &str) -> bool {
    authority
        .rsplit_once(':')
        .is_some_and(|(host, port)| !host.is_empty() && !port.contains(']'))
}

/// `inbox --public-url`'s parser.
pub fn parse_public_url(text: &str) -> Result<PublicUrl, String> {
    let explain = "give https://HOST or https://HOST:PORT, the address people open";
    let rest = text.strip_prefix("https://").ok_or_else(|| {
        format!("{text:?} is not an https:// URL (the proxy terminates TLS): {explain}")
    })?;
    let rest = rest.strip_suffix('/').unwrap_or(rest);
    let valid_host = |host: &str| {
        !host.is_empty()
            && (host.starts_with('[') && host.ends_with(']') && host.len() > 2
                || host
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '-'))
    };
    let ok = match rest.rsplit_once(':').filter(|_| has_port(rest)) {
        Some((host, port)) => {
            valid_host(host) && port.parse::<u16>().is_ok_and(|p| p != 0) && !port.starts_with('0')
        }
        None => valid_host(rest),
    };
    if !ok {
        return Err(format!(
            "{text:?} is not a URL of a host (no path, query or user): {explain}"
        ));
    }
    let authority = rest.to_ascii_lowercase();
    let authority = authority
        .strip_suffix(":443")
        .map(str::to_string)
        .unwrap_or(authority);
    Ok(PublicUrl {
        base: format!("https://{authority}"),
        authority,
    })
}

/// `inbox --listen`'s parser: an IP address and a port.
pub fn parse_listen(text: &str) -> Result<SocketAddr, String> {
    text.parse().map_err(|_| {
        format!(
            "{text:?} is not ADDRESS:PORT: give an IP address and a port (10.0.0.5:8443, [::1]:8443, 0.0.0.0:8443 for every address)"
        )
    })
}

/// How the inbox is reached, once its flags agree.
#[derive(Debug, Clone)]
pub struct Exposure {
    pub address: SocketAddr,
    /// `--tls-cert` and `--tls-key`.
    pub tls: Option<(PathBuf, PathBuf)>,
    pub public_url: Option<PublicUrl>,
}

impl Exposure {
    /// 127.0.0.1:`port`, as the inbox listened before `--listen`.
    pub fn loopback(port: u16) -> Exposure {
        Exposure {
            address: SocketAddr::from((Ipv4Addr::LOCALHOST, port)),
            tls: None,
            public_url: None,
        }
    }

    /// Checks the flags together; the error is a usage error's message.
    pub fn new(
        address: SocketAddr,
        tls: Option<(PathBuf, PathBuf)>,
        behind_proxy: bool,
        public_url: Option<PublicUrl>,
    ) -> Result<Exposure, String> {
        let ip = address.ip();
        if !ip.is_loopback() && tls.is_none() && !behind_proxy {
            return Err(format!(
                "--listen {address} is past loopback, where plain HTTP would carry the token in clear: \
                 pass --tls-cert and --tls-key, or --behind-proxy --public-url https://… for a reverse proxy that terminates TLS"
            ));
        }
        if ip.is_unspecified() && public_url.is_none() {
            return Err(format!(
                "--listen {address} takes every address of this machine, and the inbox answers only to the address it is opened at: \
                 pass --public-url with that address (https://HOST[:PORT]), or --listen one address"
            ));
        }
        Ok(Exposure {
            address,
            tls,
            public_url,
        })
    }

    fn scheme(&self) -> &'static str {
        if self.tls.is_some() { "https" } else { "http" }
    }

    /// The listener's own address as a URL authority; loopback's for an
    /// unspecified address.
    fn own_authority(&self, port: u16) -> String {
        match self.address.ip() {
            IpAddr::V4(ip) if ip.is_unspecified() => format!("127.0.0.1:{port}"),
            IpAddr::V6(ip) if ip.is_unspecified() => format!("127.0.0.1:{port}"),
            ip => SocketAddr::new(ip, port).to_string(),
        }
    }

    /// The sites the server answers to, once bound to `port`.
    pub fn sites(&self, port: u16) -> Vec<Site> {
        let scheme = self.scheme();
        let mut sites = Site::loopback(scheme, port);
        let own = Site::new(scheme, &self.own_authority(port));
        if !sites.contains(&own) {
            sites.push(own);
        }
        if let Some(public) = &self.public_url {
            sites.extend(public.sites());
        }
        sites
    }

    /// The URL the CLI verbs and local askers find in `inbox.json`: the
    /// listener's, or the public one for TLS on every address (whose
    /// certificate names that, not 127.0.0.1).
    pub fn local_base(&self, port: u16) -> String {
        match &self.public_url {
            Some(public) if self.tls.is_some() && self.address.ip().is_unspecified() => {
                public.base.clone()
            }
            _ => format!("{}://{}", self.scheme(), self.own_authority(port)),
        }
    }

    /// The URL printed for people: the public one when given.
    pub fn page_base(&self, port: u16) -> String {
        match &self.public_url {
            Some(public) => public.base.clone(),
            None => format!("{}://{}", self.scheme(), self.own_authority(port)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tls() -> Option<(PathBuf, PathBuf)> {
        Some(("cert.pem".into(), "key.pem".into()))
    }

    fn at(text: &str) -> SocketAddr {
        parse_listen(text).unwrap()
    }

    #[test]
    fn public_urls() {
        let url = parse_public_url("https://Inbox.Example.com/").unwrap();
        assert_eq!(url.base, "https://inbox.example.com");
        assert_eq!(url.authority, "inbox.example.com");
        let url = parse_public_url("https://inbox.example.com:443").unwrap();
        assert_eq!(url.authority, "inbox.example.com");
        let url = parse_public_url("https://10.0.0.5:8443").unwrap();
        assert_eq!(url.base, "https://10.0.0.5:8443");
        let url = parse_public_url("https://[fd00::5]:8443").unwrap();
        assert_eq!(url.authority, "[fd00::5]:8443");
        for bad in [
            "http://inbox.example.com",
            "inbox.example.com",
            "https://",
            "https://inbox.example.com/path",
            "https://user@inbox.example.com",
            "https://inbox.example.com:0",
            "https://inbox.example.com:08443",
            "https://inbox.example.com:99999",
            "https://inbox.example.com?x=1",
            "https://[]:8443",
        ] {
            let error = parse_public_url(bad).unwrap_err();
            assert!(error.contains("https://HOST"), "{bad}: {error}");
        }
    }

    #[test]
    fn listen_addresses() {
        assert_eq!(at("10.0.0.5:8443").port(), 8443);
        assert_eq!(at("[::1]:0").port(), 0);
        for bad in ["localhost:8443", "10.0.0.5", "10.0.0.5:x", ""] {
            assert!(
                parse_listen(bad).unwrap_err().contains("ADDRESS:PORT"),
                "{bad}"
            );
        }
    }

    #[test]
    fn plain_http_past_loopback_is_refused() {
        let error = Exposure::new(at("10.0.0.5:8443"), None, false, None).unwrap_err();
        assert!(error.contains("plain HTTP"), "{error}");
        assert!(Exposure::new(at("10.0.0.5:8443"), tls(), false, None).is_ok());
        let public = parse_public_url("https://inbox.example.com").ok();
        assert!(Exposure::new(at("10.0.0.5:8080"), None, true, public).is_ok());
        assert!(Exposure::new(at("127.0.0.1:8080"), None, false, None).is_ok());
        assert!(Exposure::new(at("[::1]:8080"), None, false, None).is_ok());
        assert!(Exposure::new(at("127.0.0.2:8080"), None, false, None).is_ok());
    }

    #[test]
    fn every_address_needs_the_public_url() {
        let error = Exposure::new(at("0.0.0.0:8443"), tls(), false, None).unwrap_err();
        assert!(error.contains("--public-url"), "{error}");
        let error = Exposure::new(at("[::]:8443"), tls(), false, None).unwrap_err();
        assert!(error.contains("--public-url"), "{error}");
        let public = parse_public_url("https://inbox.example.com").ok();
        let every = Exposure::new(at("0.0.0.0:8443"), tls(), false, public).unwrap();
        assert_eq!(every.local_base(8443), "https://inbox.example.com");
        assert_eq!(every.page_base(8443), "https://inbox.example.com");
    }

    #[test]
    fn sites_and_urls() {
        let plain = Exposure::loopback(27587);
        assert_eq!(plain.sites(27587), Site::loopback("http", 27587));
        assert_eq!(plain.local_base(27587), "http://127.0.0.1:27587");

        let direct = Exposure::new(at("10.0.0.5:0"), tls(), false, None).unwrap();
        let sites = direct.sites(8443);
        assert!(sites.contains(&Site::new("https", "10.0.0.5:8443")));
        assert!(sites.contains(&Site::new("https", "127.0.0.1:8443")));
        assert_eq!(sites.len(), 3);
        assert_eq!(direct.local_base(8443), "https://10.0.0.5:8443");
        assert_eq!(direct.page_base(8443), "https://10.0.0.5:8443");

        let v6 = Exposure::new(at("[fd00::5]:8443"), tls(), false, None).unwrap();
        assert_eq!(v6.local_base(8443), "https://[fd00::5]:8443");

        let public = parse_public_url("https://inbox.example.com").ok();
        let proxied = Exposure::new(at("127.0.0.1:8080"), None, true, public).unwrap();
        let sites = proxied.sites(8080);
        assert!(sites.contains(&Site::new("http", "127.0.0.1:8080")));
        assert!(sites.contains(&Site::new("https", "inbox.example.com")));
        assert!(sites.contains(&Site {
            authority: "inbox.example.com:443".into(),
            origin: "https://inbox.example.com".into()
        }));
        assert_eq!(sites.len(), 4);
        assert_eq!(proxied.local_base(8080), "http://127.0.0.1:8080");
        assert_eq!(proxied.page_base(8080), "https://inbox.example.com");
    }

    #[test]
    fn every_address_is_reached_at_loopback_and_a_v6_public_url_on_443() {
        let public = parse_public_url("https://inbox.example.com").ok();
        for every in ["0.0.0.0:8080", "[::]:8080"] {
            let proxied = Exposure::new(at(every), None, true, public.clone()).unwrap();
            assert_eq!(proxied.local_base(8080), "http://127.0.0.1:8080", "{every}");
            let sites = proxied.sites(8080);
            assert!(
                sites.contains(&Site::new("http", "127.0.0.1:8080")),
                "{every}"
            );
            assert_eq!(sites.len(), 4, "{every}: {sites:?}");
        }
        let v6 = parse_public_url("https://[fd00::5]").unwrap();
        assert_eq!(v6.base, "https://[fd00::5]");
        assert!(v6.sites().contains(&Site {
            authority: "[fd00::5]:443".into(),
            origin: "https://[fd00::5]".into()
        }));
    }
}
