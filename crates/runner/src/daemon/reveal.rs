//! A runner's signed result (exec `verifier/sign.rs`, the README's "commitment" formula): the
//! Ed25519 signature over the digest of (chain, job, result, usage), the commitment
//! `keccak256(result ‖ sig)` made on chain, and the reveal entry
//! `[runner, result, [tokens, wall_ms], sig]` that the aggregator submits and that runners push
//! to it. Signing and checking go through exec's own `sign` functions, so what the daemon signs
//! is by construction what the verifier checks.

use commonware_codec::DecodeExt;
use commonware_cryptography::ed25519::PrivateKey as EdKey;
use commonware_cryptography::Signer as _;
use cowboy_exec::system::verifier::sign::{self, Usage};
use cowboy_types::cbor::Value;
use cowboy_types::{Address, Hash32};

use super::chain::{address_value, bytes};

/// The runner's Ed25519 result key (its public half is the `key` of its registration).
pub struct ResultKey(EdKey);

impl ResultKey {
    /// The key of a 32-byte seed.
    pub fn from_seed(seed: [u8; 32]) -> Option<ResultKey> {
        EdKey::decode(seed.to_vec()).ok().map(ResultKey)
    }

    /// The public key.
    pub fn public(&self) -> [u8; 32] {
        let pk = self.0.public_key();
        let mut out = [0u8; 32];
        out.copy_from_slice(pk.as_ref());
        out
    }

    /// Signs `result` of `job` with its usage.
    pub fn sign(
        &self,
        chain_id: u64,
        runner: Address,
        job: &Hash32,
        result: Vec<u8>,
        usage: Usage,
    ) -> Reveal {
        let digest = sign::digest(chain_id, job, &result, usage);
        let mut sig = [0u8; 64];
        sig.copy_from_slice(self.0.sign(sign::NAMESPACE, &digest.0).as_ref());
        Reveal {
            runner,
            result,
            usage,
            sig,
        }
    }
}

/// One runner's signed result for a job.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reveal {
    /// The runner's address.
    pub runner: Address,
    /// The result bytes (or a fault report).
    pub result: Vec<u8>,
    /// The usage signed with it.
    pub usage: Usage,
    /// The Ed25519 signature.
    pub sig: [u8; 64],
}

impl Reveal {
    /// What the runner commits to.
    pub fn commitment(&self) -> Hash32 {
        sign::commitment(&self.result, &self.sig)
    }

    /// Whether the signature is `key`'s, for `job` on chain `chain_id`.
    pub fn verifies(&self, chain_id: u64, job: &Hash32, key: &[u8; 32]) -> bool {
        sign::verify(
            key,
            &sign::digest(chain_id, job, &self.result, self.usage),
            &self.sig,
        )
    }

    /// The usage as the verifier's `[tokens, wall_ms]`.
    pub fn usage_value(&self) -> Value {
        Value::Array(vec![
            Value::Uint(self.usage.tokens),
            Value::Uint(self.usage.wall_ms),
        ])
    }

    /// The reveal entry `[runner, result, [tokens, wall_ms], sig]`.
    pub fn entry(&self) -> Value {
        Value::Array(vec![
            bytes(&self.runner.0),
            bytes(&self.result),
            self.usage_value(),
            bytes(&self.sig),
        ])
    }

    /// Parses a reveal entry.
    pub fn from_entry(v: &Value) -> Option<Reveal> {
        let Value::Array(a) = v else { return None };
        let [runner, Value::Bytes(result), Value::Array(usage), Value::Bytes(sig)] = a.as_slice()
        else {
            return None;
        };
        let [tokens, wall_ms] = usage.as_slice() else {
            return None;
        };
        Some(Reveal {
            runner: address_value(runner)?,
            result: result.clone(),
            usage: Usage {
                tokens: tokens.as_u64()?,
                wall_ms: wall_ms.as_u64()?,
            },
            sig: sig.as_slice().try_into().ok()?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_signed_reveal_round_trips_and_verifies_only_for_its_job_and_key() {
        let key = ResultKey::from_seed([3; 32]).expect("a seed");
        let job = Hash32([9; 32]);
        let usage = Usage {
            tokens: 0,
            wall_ms: 12,
        };
        let r = key.sign(7, Address([1; 20]), &job, b"{\"a\":1}".to_vec(), usage);
        assert!(r.verifies(7, &job, &key.public()));
        assert!(!r.verifies(8, &job, &key.public()), "another chain");
        assert!(
            !r.verifies(7, &Hash32([8; 32]), &key.public()),
            "another job"
        );
        let other = ResultKey::from_seed([4; 32]).expect("a seed");
        assert!(!r.verifies(7, &job, &other.public()), "another key");
        assert_eq!(Reveal::from_entry(&r.entry()), Some(r.clone()));
        assert_eq!(Reveal::from_entry(&Value::Array(vec![])), None);
        assert_eq!(r.commitment(), sign::commitment(&r.result, &r.sig));
    }
}
