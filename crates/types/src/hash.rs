//! Hashing: keccak256 (Ethereum's Keccak-256, not NIST SHA3-256) and the 32-byte hash type.
//!
//! keccak256 names transactions, messages (§3.3), actor code and addresses (§1.2), so that one
//! secp256k1 key controls the same address on Cowboy and on Ethereum (§16.1).

use sha3::{Digest, Keccak256};
use std::fmt;

/// A 32-byte hash.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Hash32(pub [u8; 32]);

impl Hash32 {
    /// The all-zero hash (e.g. the parent of the genesis block).
    pub const ZERO: Hash32 = Hash32([0u8; 32]);

    /// The bytes.
    pub fn as_bytes(&self) -> &[u8; 32] {
        &self.0
    }

    /// Lowercase hex with a `0x` prefix.
    pub fn to_hex(&self) -> String {
        format!("0x{}", hex_lower(&self.0))
    }

    /// Parses 64 hex digits, with or without a `0x` prefix.
    pub fn from_hex(s: &str) -> Option<Hash32> {
        let digits = s.strip_prefix("0x").unwrap_or(s);
        let bytes = parse_hex(digits)?;
        Some(Hash32(bytes.try_into().ok()?))
    }
}

impl fmt::Debug for Hash32 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_hex())
    }
}

impl fmt::Display for Hash32 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_hex())
    }
}

/// keccak256 of the concatenation of `parts`.
pub fn keccak256_concat(parts: &[&[u8]]) -> Hash32 {
    let mut h = Keccak256::new();
    for p in parts {
        h.update(p);
    }
    Hash32(h.finalize().into())
}

/// keccak256 of `data`.
pub fn keccak256(data: &[u8]) -> Hash32 {
    keccak256_concat(&[data])
}

/// Lowercase hex of `bytes`, no prefix.
pub fn hex_lower(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push(DIGITS[usize::from(b >> 4)] as char);
        s.push(DIGITS[usize::from(b & 0xf)] as char);
    }
    s
}

/// Parses an even-length string of hex digits (either case); `None` on any other input.
pub fn parse_hex(s: &str) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) {
        return None;
    }
    s.as_bytes()
        .chunks(2)
        .map(|pair| {
            let hi = (pair[0] as char).to_digit(16)?;
            let lo = (pair[1] as char).to_digit(16)?;
            Some((hi * 16 + lo) as u8)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keccak_is_not_sha3() {
        // keccak256("") as used by Ethereum; NIST SHA3-256("") is a7ffc6f8….
        assert_eq!(
            keccak256(b"").to_hex(),
            "0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470"
        );
    }

    #[test]
    fn hex_round_trip_and_rejects_garbage() {
        let h = keccak256(b"cowboy");
        assert_eq!(Hash32::from_hex(&h.to_hex()), Some(h));
        assert_eq!(Hash32::from_hex("0x12"), None);
        assert_eq!(Hash32::from_hex(&"zz".repeat(32)), None);
        assert_eq!(parse_hex("abc"), None);
    }
}
