//! Which socket errors mean the process or the system ran out of handles
//! for new connections (the server then says so on stderr, DESIGN §10).

/// Whether `accept` failed for want of file descriptors (the process's or
/// the system's): `EMFILE` or `ENFILE` on Unix.
#[cfg(unix)]
pub fn out_of_descriptors(error: &std::io::Error) -> bool {
    matches!(error.raw_os_error(), Some(libc::EMFILE | libc::ENFILE))
}

/// Winsock's `WSAEMFILE` (10024, too many open sockets) and `WSAENOBUFS`
/// (10055, no buffer space: Winsock's word for the system's limit), the
/// errors `accept` gives where Unix gives `EMFILE` and `ENFILE`.
#[cfg(windows)]
pub fn out_of_descriptors(error: &std::io::Error) -> bool {
    const WSAEMFILE: i32 = 10024;
    const WSAENOBUFS: i32 = 10055;
    matches!(error.raw_os_error(), Some(WSAEMFILE | WSAENOBUFS))
}

/// A descriptor to hold in reserve: closing it makes room for one more
/// socket when the process is at its limit (the null device: no file).
pub fn spare_descriptor() -> Option<std::fs::File> {
    let null = if cfg!(windows) { "NUL" } else { "/dev/null" };
    std::fs::File::open(null).ok()
}

/// Codes the OS gives for "out of descriptors" (for the tests).
#[cfg(all(any(test, feature = "test-support"), unix))]
pub const OUT_OF_DESCRIPTORS: [i32; 2] = [libc::EMFILE, libc::ENFILE];
#[cfg(all(any(test, feature = "test-support"), windows))]
pub const OUT_OF_DESCRIPTORS: [i32; 2] = [10024, 10055];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_descriptor_limits_count() {
        for code in OUT_OF_DESCRIPTORS {
            assert!(out_of_descriptors(&std::io::Error::from_raw_os_error(code)));
        }
        // ECONNABORTED on Linux, WSAECONNRESET on Windows: not a limit.
        for code in [103, 10054] {
            assert!(!out_of_descriptors(&std::io::Error::from_raw_os_error(
                code
            )));
        }
        assert!(!out_of_descriptors(&std::io::Error::other("not the OS's")));
    }

    #[test]
    fn a_spare_descriptor_opens() {
        assert!(spare_descriptor().is_some());
    }
}
