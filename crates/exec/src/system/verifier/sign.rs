//! What a runner signs and commits to (exec README, Formulas "commitment"):
//!
//! ```text
//! digest     = keccak256("cowboy-runner-result-v1:" ‖ chain_id_le8 ‖ job_id ‖ keccak256(result)
//!                        ‖ tokens_le8 ‖ wall_ms_le8)
//! sig        = Ed25519 (commonware, namespace "cowboy-runner-result-v1") over digest
//! commitment = keccak256(result ‖ sig)
//! ```
//!
//! The chain id and job id make a signature useless in any other job or chain; the usage the
//! runner reports (tokens, wall-clock milliseconds) is signed with the result, so the
//! aggregator who carries the reveal cannot change what the runner is paid. The signature is
//! commonware's namespaced Ed25519 (the signed bytes are `varint(len(ns)) ‖ ns ‖ digest`),
//! verified under the ZIP-215 rules: every validator reaches the same verdict on every
//! signature, which plain RFC 8032 verification does not promise.

use commonware_codec::DecodeExt;
use commonware_cryptography::ed25519::{PublicKey, Signature};
use commonware_cryptography::Verifier as _;
use cowboy_types::hash::{keccak256, keccak256_concat};
use cowboy_types::Hash32;

/// The digest's domain prefix.
pub const DOMAIN: &[u8] = b"cowboy-runner-result-v1:";
/// The Ed25519 namespace.
pub const NAMESPACE: &[u8] = b"cowboy-runner-result-v1";

/// What a runner reports it used: paid at its rate card, capped per runner.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Usage {
    /// Tokens (input and output).
    pub tokens: u64,
    /// Wall-clock milliseconds.
    pub wall_ms: u64,
}

/// The digest a runner signs for `result` of job `job_id` on chain `chain_id`.
pub fn digest(chain_id: u64, job_id: &Hash32, result: &[u8], usage: Usage) -> Hash32 {
    keccak256_concat(&[
        DOMAIN,
        &chain_id.to_le_bytes(),
        &job_id.0,
        &keccak256(result).0,
        &usage.tokens.to_le_bytes(),
        &usage.wall_ms.to_le_bytes(),
    ])
}

/// `keccak256(result ‖ sig)`.
pub fn commitment(result: &[u8], sig: &[u8; 64]) -> Hash32 {
    keccak256_concat(&[result, sig])
}

/// Whether `sig` is `key`'s signature of `digest`. A key that is not a valid point fails.
pub fn verify(key: &[u8; 32], digest: &Hash32, sig: &[u8; 64]) -> bool {
    let Ok(pk) = PublicKey::decode(key.to_vec()) else {
        return false;
    };
    let Ok(sig) = Signature::decode(sig.to_vec()) else {
        return false;
    };
    pk.verify(NAMESPACE, &digest.0, &sig)
}

#[cfg(test)]
mod tests {
    use super::*;
    use commonware_cryptography::ed25519::PrivateKey;
    use commonware_cryptography::Signer as _;

    fn key(seed: u8) -> PrivateKey {
        PrivateKey::decode(vec![seed; 32]).expect("a 32-byte seed")
    }

    #[test]
    fn a_signature_verifies_for_its_job_chain_result_and_usage_only() {
        let sk = key(1);
        let pk: [u8; 32] = sk.public_key().as_ref().try_into().expect("32 bytes");
        let u = Usage {
            tokens: 10,
            wall_ms: 20,
        };
        let d = digest(7, &Hash32([1; 32]), b"result", u);
        let sig: [u8; 64] = sk.sign(NAMESPACE, &d.0).as_ref().try_into().expect("64");
        assert!(verify(&pk, &d, &sig));
        for other in [
            digest(8, &Hash32([1; 32]), b"result", u),
            digest(7, &Hash32([2; 32]), b"result", u),
            digest(7, &Hash32([1; 32]), b"resulu", u),
            digest(7, &Hash32([1; 32]), b"result", Usage { tokens: 11, ..u }),
        ] {
            assert!(!verify(&pk, &other, &sig));
        }
        let other_pk: [u8; 32] = key(2).public_key().as_ref().try_into().expect("32");
        assert!(!verify(&other_pk, &d, &sig));
        let mut bad = sig;
        bad[0] ^= 1;
        assert!(!verify(&pk, &d, &bad));
        assert!(!verify(&[0xff; 32], &d, &sig), "not a point");
        assert_ne!(commitment(b"a", &sig), commitment(b"b", &sig));
    }
}
