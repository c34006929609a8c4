//! Cowboy protocol types: the crate every other crate stands on.
//!
//! What it is: addresses and keys (§1), canonical CBOR (RFC 8949 §4.2, ARCHITECTURE D3),
//! transactions and their signing (§2), blocks, receipts, events and message ids, and the
//! genesis parameters of §13/§17. What it is not: execution, storage or networking — it has no
//! I/O and depends on nothing of ours. Start reading at [`tx`] (the wire format) and
//! [`cbor`] (the canonical codec everything is encoded with); `README.md` describes the bytes.

pub mod address;
pub mod block;
pub mod cbor;
pub mod entitlement;
pub mod genesis;
pub mod hash;
pub mod json;
pub mod keys;
pub mod tx;

pub use address::{actor_address, canonicalize_source, code_hash, system, Address};
pub use block::{
    block_receipt_items, block_receipts_root, list_root, message_id, Block, BlockHeader, Event,
    ExecError, HookEvents, Receipt, TimerExecution, Vote, VoteRecord,
};
pub use genesis::GenesisParams;
pub use hash::{keccak256, Hash32};
pub use keys::{dev_key, PrivateKey, Signature, DEV_CHAIN_ID};
pub use tx::{
    dev_balance_authority, AccessListEntry, Authorization, Payload, Transaction, TxError,
};
