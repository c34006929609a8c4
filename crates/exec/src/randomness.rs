//! Actor randomness (whitepaper §3.4): `HKDF(R_n, label)`.
//!
//! `R_n` is the block header's `randomness` field (filled by consensus: the threshold-BLS seed
//! where the signing scheme provides one, else derived from the parent, as CIP-2 §10 phase L1
//! allows). Exactly as the spec writes it: HKDF-SHA256 with `R_n` as input key material, no
//! salt, and the label as the `info` string, expanded to 32 bytes. Two actors asking for the
//! same label in the same block get the same bytes, so an actor that wants its own stream puts
//! its own context (address, round, request id) in the label.

use cowboy_types::Hash32;
use hkdf::Hkdf;
use sha2::Sha256;

/// `HKDF-SHA256(ikm = r_n, salt = ∅, info = label)`, 32 bytes.
pub fn derive(r_n: &Hash32, label: &[u8]) -> [u8; 32] {
    let hk = Hkdf::<Sha256>::new(None, &r_n.0);
    let mut out = [0u8; 32];
    // 32 bytes is far below HKDF-SHA256's 8160-byte output bound, so expand cannot fail.
    if hk.expand(label, &mut out).is_err() {
        out = [0u8; 32];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pinned against an independent HKDF computed with Python's `hmac`:
    /// `prk = HMAC(0^32, ikm)`, `okm = HMAC(prk, label ‖ 0x01)`.
    #[test]
    fn is_plain_hkdf_sha256() {
        let r = Hash32([0x0b; 32]);
        let out = derive(&r, b"lottery");
        assert_eq!(
            cowboy_types::hash::hex_lower(&out),
            "d66c82ca46c0c0a715c65973ba3d00efe7601882b309d1604df9f900c3b71cf5"
        );
        assert_ne!(out, derive(&r, b"lottery2"));
    }
}
