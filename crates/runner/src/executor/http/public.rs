//! Public addresses only: the HTTP executor's defence against server-side request forgery.
//!
//! A job's URL is chosen by whoever submits the job, and its host only has to be in the job's
//! own `domains` (and the runner's allow-list, when the operator keeps one). Without this
//! guard a job could make every runner fetch from the runner's own network: `https://10.0.0.5/`,
//! `https://[::1]:8443/`, the cloud metadata service at `169.254.169.254`, or a public name
//! whose DNS answer points inside (including one that changes its answer between two lookups).
//! So, unless the operator allows private addresses:
//! * a URL (or redirect) whose host is an IP literal outside the public address space is
//!   refused before any connection (an `actor` fault: the job named it);
//! * names are resolved by [`PublicResolver`], which drops every non-public address of the
//!   answer, so the connection is made to an address that was checked, never to a second
//!   lookup's; a name with no public address fails as [`NotPublic`] (also `actor`).
//!
//! The operator's own fixed addresses (`resolve`, as curl's `--resolve`) are trusted: reqwest
//! answers them before asking this resolver.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

use reqwest::dns::{Addrs, Name, Resolve, Resolving};

/// Whether `ip` is in the public unicast address space: not loopback, private (RFC 1918,
/// IPv6 unique-local), link-local, shared (RFC 6598), unspecified, broadcast, multicast,
/// documentation, benchmarking or reserved; an IPv4-mapped or -compatible IPv6 address is
/// judged as its IPv4 address.
pub fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_public_v4(v4),
        // `to_ipv4` also maps `::` and `::1`, which are IPv6's own (and not public).
        IpAddr::V6(v6) => match v6.to_ipv4() {
            Some(v4) if !(v6.is_unspecified() || v6.is_loopback()) => is_public_v4(v4),
            _ => is_public_v6(v6),
        },
    }
}

fn is_public_v4(ip: Ipv4Addr) -> bool {
    let [a, b, c, _] = ip.octets();
    !(a == 0                                    // "this network"
        || a == 10                              // private
        || a == 127                             // loopback
        || (a == 100 && (64..128).contains(&b)) // shared address space (carrier NAT)
        || (a == 169 && b == 254)               // link-local (cloud metadata services)
        || (a == 172 && (16..32).contains(&b))  // private
        || (a == 192 && b == 0 && c == 0)       // IETF protocol assignments
        || (a == 192 && b == 0 && c == 2)       // documentation
        || (a == 192 && b == 168)               // private
        || (a == 198 && (18..20).contains(&b))  // benchmarking
        || (a == 198 && b == 51 && c == 100)    // documentation
        || (a == 203 && b == 0 && c == 113)     // documentation
        || a >= 224) // multicast, reserved, broadcast
}

fn is_public_v6(ip: Ipv6Addr) -> bool {
    let s = ip.segments();
    !(ip.is_unspecified()
        || ip.is_loopback()
        || (s[0] & 0xfe00) == 0xfc00              // unique local
        || (s[0] & 0xffc0) == 0xfe80              // link-local
        || (s[0] & 0xff00) == 0xff00              // multicast
        || (s[0] == 0x2001 && s[1] == 0x0db8)     // documentation
        || (s[0] == 0x0064 && s[1] == 0xff9b)     // NAT64, which reaches IPv4 addresses
        || (s[0] == 0x2002)) // 6to4, which embeds an IPv4 address
}

/// A name whose every address is outside the public address space.
#[derive(Debug)]
pub struct NotPublic(pub String);

impl std::fmt::Display for NotPublic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} resolves to no public address", self.0)
    }
}

impl std::error::Error for NotPublic {}

/// The system resolver (`getaddrinfo`, on tokio's blocking pool), with the non-public
/// addresses of each answer removed.
pub struct PublicResolver;

impl Resolve for PublicResolver {
    fn resolve(&self, name: Name) -> Resolving {
        Box::pin(async move {
            let host = name.as_str().to_string();
            let all: Vec<SocketAddr> = tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
            let public: Vec<SocketAddr> = all.into_iter().filter(|a| is_public(a.ip())).collect();
            if public.is_empty() {
                return Err(Box::new(NotPublic(host)) as Box<dyn std::error::Error + Send + Sync>);
            }
            Ok(Box::new(public.into_iter()) as Addrs)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn public(s: &str) -> bool {
        is_public(s.parse().unwrap())
    }

    #[test]
    fn private_loopback_link_local_and_reserved_addresses_are_not_public() {
        for s in [
            "0.0.0.0",
            "10.1.2.3",
            "127.0.0.1",
            "100.64.0.1",
            "169.254.169.254",
            "172.16.0.1",
            "172.31.255.255",
            "192.168.1.1",
            "192.0.2.1",
            "198.18.0.1",
            "224.0.0.1",
            "255.255.255.255",
            "::",
            "::1",
            "fc00::1",
            "fd12:3456::1",
            "fe80::1",
            "ff02::1",
            "2001:db8::1",
            "::ffff:127.0.0.1",
            "::ffff:10.0.0.1",
            "64:ff9b::a00:1",
            "2002:a00:1::",
        ] {
            assert!(!public(s), "{s} passed as public");
        }
    }

    #[test]
    fn public_addresses_pass() {
        for s in [
            "1.1.1.1",
            "8.8.8.8",
            "172.15.0.1",
            "172.32.0.1",
            "100.128.0.1",
            "2606:4700:4700::1111",
            "::ffff:8.8.8.8",
        ] {
            assert!(public(s), "{s} refused");
        }
    }
}
