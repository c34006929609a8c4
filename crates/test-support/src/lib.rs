//! Helpers shared by the test suites that start real processes (`cowboyd`, `cowboy`,
//! `cowboy-runner`) on loopback: the node, CLI and runner crates take this as a dev-dependency.
//!
//! **Ports.** Asking the OS for a free port (bind port 0, read it, release it) races: the port
//! is free when asked, but until the child process binds it the OS may hand the same port to
//! another test's "free port" request (tests run in parallel threads) or to an outgoing
//! connection, which take ports from the ephemeral range. A child that then fails to bind
//! exits, and its test talks to whichever process did bind the port until that one goes away
//! ("Connection refused" mid-test). So [`free_port`] hands out each port at most once per test
//! process, from a range below Linux's ephemeral range (32768–60999) that outgoing connections
//! never use, starting at an offset drawn from the process id so that test binaries run side by
//! side start apart, and still checks each port by binding it.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

/// The ports [`free_port`] hands out: below the ephemeral range of Linux (and of the IANA
/// recommendation, 49152–65535), above the well-known and the common registered ones.
const PORTS: std::ops::Range<u32> = 20_000..32_000;

/// The next candidate, as an offset into [`PORTS`]; `u32::MAX` until first use.
static NEXT: AtomicU32 = AtomicU32::new(u32::MAX);

/// Take `n` consecutive ports from the allocator (never handed out before by this process).
fn take(n: u32) -> u32 {
    let span = PORTS.end - PORTS.start;
    let start = std::process::id().wrapping_mul(7_919) % span;
    let _ = NEXT.compare_exchange(u32::MAX, start, Ordering::SeqCst, Ordering::SeqCst);
    let offset = NEXT.fetch_add(n, Ordering::SeqCst) % span;
    let offset = if offset + n > span { 0 } else { offset };
    PORTS.start + offset
}

fn bindable(port: u32) -> bool {
    u16::try_from(port).is_ok_and(|p| TcpListener::bind(("127.0.0.1", p)).is_ok())
}

/// A loopback TCP port that nothing listens on and that no other caller in this process has
/// been given (see the crate docs for why not port 0).
pub fn free_port() -> u16 {
    free_ports(1)
}

/// The first of `n` consecutive loopback ports, each as [`free_port`] promises (for a command
/// that serves its i-th process on `base + i`).
pub fn free_ports(n: u16) -> u16 {
    assert!(
        n >= 1 && u32::from(n) <= (PORTS.end - PORTS.start) / 4,
        "{n} ports"
    );
    for _ in 0..(PORTS.end - PORTS.start) {
        let base = take(u32::from(n));
        if (base..base + u32::from(n)).all(bindable) {
            return u16::try_from(base).expect("ports are u16");
        }
    }
    panic!("no {n} free consecutive loopback ports in {PORTS:?}")
}

/// The `cowboyd` under test: `$COWBOYD` if set, else the one `cargo test --workspace` builds
/// beside the running test binary (`target/<profile>/cowboyd`); `cargo build -p cowboy-node
/// --bin cowboyd` makes it when a crate's tests run alone. The node's own tests use
/// `env!("CARGO_BIN_EXE_cowboyd")` instead.
pub fn cowboyd() -> PathBuf {
    if let Some(p) = std::env::var_os("COWBOYD") {
        return PathBuf::from(p);
    }
    // target/debug/deps/it-… → target/debug/cowboyd
    let exe = std::env::current_exe().expect("test binary path");
    let p = exe
        .parent()
        .and_then(Path::parent)
        .map(|d| d.join("cowboyd"))
        .expect("target dir");
    assert!(
        p.exists(),
        "no cowboyd at {}: run `cargo build -p cowboy-node --bin cowboyd` or set COWBOYD",
        p.display()
    );
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ports_are_never_handed_out_twice_and_stay_out_of_the_ephemeral_range() {
        let mut seen = std::collections::BTreeSet::new();
        for _ in 0..200 {
            let p = free_port();
            assert!(PORTS.contains(&u32::from(p)), "{p}");
            assert!(seen.insert(p), "port {p} handed out twice");
        }
        let base = free_ports(5);
        for p in base..base + 5 {
            assert!(seen.insert(p), "port {p} handed out twice");
        }
    }

    #[test]
    fn a_port_in_use_is_not_bindable() {
        let held = TcpListener::bind("127.0.0.1:0").unwrap();
        assert!(!bindable(u32::from(held.local_addr().unwrap().port())));
    }
}
