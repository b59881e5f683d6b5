//! A network namespace joined by a veth pair, and a test CA made by openssl:
//! shared by tests/past_loopback.rs and tests/phone.rs (included by path, as
//! only those two need root and iproute2).

#![allow(dead_code)]

use std::net::{Ipv4Addr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};

/// A CA and a server certificate for one IP address, made by openssl.
pub struct TestCa {
    pub ca: PathBuf,
    pub cert: PathBuf,
    pub key: PathBuf,
}

impl TestCa {
    pub fn make(dir: &Path, ip: &str) -> Option<TestCa> {
        std::fs::create_dir_all(dir).unwrap();
        let openssl = |args: &[&str]| {
            let out = Command::new("openssl")
                .args(args)
                .current_dir(dir)
                .stdin(Stdio::null())
                .output()
                .ok()?;
            assert!(out.status.success(), "openssl {args:?}: {out:?}");
            Some(())
        };
        openssl(&[
            "req",
            "-x509",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:P-256",
            "-nodes",
            "-keyout",
            "ca.key",
            "-out",
            "ca.pem",
            "-days",
            "2",
            "-subj",
            "/CN=ask_user test CA",
        ])?;
        openssl(&[
            "req",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:P-256",
            "-nodes",
            "-keyout",
            "server.key",
            "-out",
            "server.csr",
            "-subj",
            "/CN=ask_user inbox",
        ])?;
        std::fs::write(
            dir.join("san.ext"),
            format!("subjectAltName=IP:{ip}\nextendedKeyUsage=serverAuth\n"),
        )
        .unwrap();
        openssl(&[
            "x509",
            "-req",
            "-in",
            "server.csr",
            "-CA",
            "ca.pem",
            "-CAkey",
            "ca.key",
            "-CAcreateserial",
            "-out",
            "server.pem",
            "-days",
            "2",
            "-extfile",
            "san.ext",
        ])?;
        Some(TestCa {
            ca: dir.join("ca.pem"),
            cert: dir.join("server.pem"),
            key: dir.join("server.key"),
        })
    }
}

/// A network namespace joined to this one by a veth pair: this side has
/// `.1`, the namespace `.2`, on a /24 of its own. Removed when dropped.
pub struct Namespace {
    pub name: String,
    link: String,
    pub host_ip: String,
}

impl Namespace {
    pub fn make() -> Option<Namespace> {
        // SAFETY: geteuid has no preconditions.
        if unsafe { libc::geteuid() } != 0 || !works("ip", &["-V"]) {
            return None;
        }
        static NEXT: AtomicU32 = AtomicU32::new(0);
        // One namespace made at a time in this process, so that two never
        // take the same free subnet.
        static MAKING: std::sync::Mutex<()> = std::sync::Mutex::new(());
        let _making = MAKING.lock().unwrap_or_else(|e| e.into_inner());
        let n = NEXT.fetch_add(1, Ordering::SeqCst);
        let tag = format!("{}{n}", std::process::id() % 100_000);
        // A subnet no link of this machine has: a namespace left by a killed
        // run keeps its link and address, and a second link in the same
        // subnet sends the replies to the wrong one (a phone's load then
        // timed out in a CI rehearsal).
        let start = (std::process::id() * 4 + n) % 150;
        let subnet = (0..150)
            .map(|i| 100 + (start + i) % 150)
            .find(|subnet| !subnet_in_use(*subnet))?;
        let namespace = Namespace {
            name: format!("au{tag}"),
            link: format!("au{tag}h"),
            host_ip: format!("10.233.{subnet}.1"),
        };
        let peer = format!("au{tag}n");
        let guest_ip = format!("10.233.{subnet}.2/24");
        let host_cidr = format!("{}/24", namespace.host_ip);
        let ns = namespace.name.as_str();
        let steps: Vec<Vec<&str>> = vec![
            vec!["netns", "add", ns],
            // No IPv6 in the namespace: its link-local address, added a moment
            // after the link comes up, made Chromium there fail a load with
            // net::ERR_NETWORK_CHANGED (seen once in a CI rehearsal).
            vec![
                "netns",
                "exec",
                ns,
                "sysctl",
                "-qw",
                "net.ipv6.conf.all.disable_ipv6=1",
            ],
            vec![
                "netns",
                "exec",
                ns,
                "sysctl",
                "-qw",
                "net.ipv6.conf.default.disable_ipv6=1",
            ],
            vec![
                "link",
                "add",
                &namespace.link,
                "type",
                "veth",
                "peer",
                "name",
                &peer,
            ],
            vec!["link", "set", &peer, "netns", ns],
            vec!["addr", "add", &host_cidr, "dev", &namespace.link],
            vec!["link", "set", &namespace.link, "up"],
            vec!["-n", ns, "addr", "add", &guest_ip, "dev", &peer],
            vec!["-n", ns, "link", "set", &peer, "up"],
            vec!["-n", ns, "link", "set", "lo", "up"],
        ];
        for step in steps {
            if !works("ip", &step) {
                return None;
            }
        }
        Some(namespace)
    }

    /// A port free on this side's address.
    pub fn free_port(&self) -> u16 {
        let ip: Ipv4Addr = self.host_ip.parse().unwrap();
        TcpListener::bind((ip, 0))
            .unwrap()
            .local_addr()
            .unwrap()
            .port()
    }
}

impl Drop for Namespace {
    fn drop(&mut self) {
        let _ = Command::new("ip")
            .args(["link", "del", &self.link])
            .status();
        let _ = Command::new("ip")
            .args(["netns", "del", &self.name])
            .status();
    }
}

/// Whether an address of 10.233.`subnet`.0/24 is on a link of this machine.
fn subnet_in_use(subnet: u32) -> bool {
    Command::new("ip")
        .args(["-o", "addr", "show", "to", &format!("10.233.{subnet}.0/24")])
        .stderr(Stdio::null())
        .output()
        .map_or(true, |out| !out.stdout.is_empty())
}

fn works(program: &str, args: &[&str]) -> bool {
    Command::new(program)
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|status| status.success())
}

pub const NO_NAMESPACE: &str =
    "network namespaces (root and iproute2's ip; run .ci/setup-deploy.sh)";
