//! Cowboy state proofs, verifiable with nothing but a state root (whitepaper "Storage and State
//! Persistence": "`cowboy-proof-verifier` crate (Rust + WASM) enables verification with only the
//! proof data and state root"; ARCHITECTURE.md D6).
//!
//! This crate is `#![no_std]` (with `alloc`) and builds for `wasm32-unknown-unknown`. It is also
//! the single home of the state *layout*: the key namespaces ([keys]) and the account record
//! encoding ([account]) are defined here and used by `cowboy-state`, so the prover and the
//! verifier cannot drift apart.
//!
//! Start reading at [verify_account] / [verify_storage]; the proof wire format is in [proof],
//! and the Merkle reconstruction that mirrors commonware-storage's QMDB `current` database in
//! [merkle]. It does not talk to a node or fetch anything; it answers two questions — does this
//! proof bind this key to this value (or to nothing) under this state root, and ([inclusion])
//! is this transaction, receipt or timer execution at this position of the list a block
//! header's `tx_root` or `receipts_root` commits to (the same code builds those roots in
//! `cowboy-types`)?
#![no_std]

extern crate alloc;

pub mod account;
pub mod inclusion;
pub mod keys;
pub mod merkle;
pub mod proof;

pub use account::{Account, AccountError};
pub use inclusion::{list_root, verify_inclusion, Inclusion};
pub use keys::{account_key, code_key, storage_key, Address, Digest};
pub use proof::{Claim, ProofError, StateProof};

/// Why a proof was rejected. Every rejection is a typed value; nothing here panics on input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VerifyError {
    /// The proof bytes are malformed (see [ProofError]).
    Malformed(ProofError),
    /// The proof is well formed but proves something other than what was claimed: an inclusion
    /// proof offered for an absence claim, a value that differs from the proven one, a span that
    /// does not cover the key, and so on.
    ClaimMismatch,
    /// The operation proven is not active (its bit in the activity chunk is clear).
    Inactive,
    /// The Merkle path, chunk or root components do not reconstruct the given root.
    RootMismatch,
}

impl From<ProofError> for VerifyError {
    fn from(e: ProofError) -> Self {
        Self::Malformed(e)
    }
}

/// Verify a proof about the account at `address` against `root`.
///
/// `claimed` is the account the caller believes is stored (`None` claims there is no account).
/// Returns `Ok(())` only if `proof` shows exactly that under `root`.
pub fn verify_account(
    root: &Digest,
    address: &Address,
    claimed: Option<&Account>,
    proof: &[u8],
) -> Result<(), VerifyError> {
    let encoded = claimed.map(Account::encode);
    verify_key(root, &account_key(address), encoded.as_deref(), proof)
}

/// Verify a proof about the storage entry `key` of the actor at `address` against `root`.
///
/// `claimed` is the value the caller believes is stored (`None` claims the entry is absent).
pub fn verify_storage(
    root: &Digest,
    address: &Address,
    key: &[u8],
    claimed: Option<&[u8]>,
    proof: &[u8],
) -> Result<(), VerifyError> {
    verify_key(root, &storage_key(address, key), claimed, proof)
}

/// Verify a proof about the actor code with hash `code_hash` against `root`.
pub fn verify_code(
    root: &Digest,
    code_hash: &Digest,
    claimed: Option<&[u8]>,
    proof: &[u8],
) -> Result<(), VerifyError> {
    if let Some(code) = claimed {
        // The code namespace is content-addressed: a claimed code must hash to its key.
        if keys::code_hash(code) != *code_hash {
            return Err(VerifyError::ClaimMismatch);
        }
    }
    verify_key(root, &code_key(code_hash), claimed, proof)
}

/// Verify a proof about a raw state key (see [keys] for the namespaces) against `root`.
///
/// `claimed = Some(value)` requires an inclusion proof of exactly `value`; `claimed = None`
/// requires an exclusion proof of `state_key`.
pub fn verify_key(
    root: &Digest,
    state_key: &[u8],
    claimed: Option<&[u8]>,
    proof: &[u8],
) -> Result<(), VerifyError> {
    let proof = StateProof::decode(proof)?;
    let element = proof.element_for(state_key, claimed)?;
    merkle::verify_active_operation(&proof.op, &element, root)
}
