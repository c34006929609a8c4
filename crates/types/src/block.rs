//! Blocks, receipts, events and message ids: the consensus objects beside transactions.
//!
//! Each encodes as a fixed-order canonical CBOR array (like the transaction, §2.5) and is named
//! by keccak256 of its encoding. Field orders are documented on each type and in the README;
//! they are consensus-critical and pinned by golden tests.
//!
//! A block may carry a [`VoteRecord`]: the consensus votes its proposer saw for the block's
//! grandparent, from which the block rule counts missed votes (exec's staking actor,
//! downtime). Its header commits to it (`votes_root`), so no relay can strip or alter it
//! without changing the block's hash. Both are encoded only when present, so a block without
//! a record (genesis, every block of a chain before the record existed) keeps its encoding.
//!
//! A block above the beacon's lag on a chain with a beacon carries the threshold group's
//! signature over an earlier finalized block (exec's `beacon` rule) as a fourth item; its
//! header's `randomness` is the signature's keccak256, so the header commits to it as well.
//! Encoded only when present, like the vote record.
//!
//! A block may also carry signed dealer logs of the beacon's resharing (exec's `reshare`
//! rule judges them) as a fifth item, `[log, …]` (each commonware's `SignedDealerLog`
//! encoding, opaque here), committed by the header's optional `dealings_root`. Encoded only
//! when there is at least one log, so every block without one keeps its encoding.
//!
//! Message ids follow §3.3: `keccak256(sender ‖ nonce ‖ msg_hash)`, with the 20-byte sender,
//! the nonce as 8 big-endian bytes, and the 32-byte hash of the message's canonical encoding.

use crate::address::Address;
use crate::cbor::{self, CborError, Value};
use crate::hash::{keccak256, keccak256_concat, Hash32};
use crate::tx::{Transaction, TxError};
use std::fmt;

/// Why bytes are not a valid block, header, receipt or event.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DecodeError {
    /// Not canonical CBOR.
    Cbor(CborError),
    /// Wrong top-level shape or arity for the named object.
    Shape {
        /// Which object.
        object: &'static str,
        /// Expected number of fields.
        fields: usize,
    },
    /// A field of the wrong type.
    Field {
        /// Which object.
        object: &'static str,
        /// Which field.
        field: &'static str,
        /// What was expected.
        expected: &'static str,
    },
    /// The encoded block is larger than the parameters allow.
    TooLarge {
        /// Its size in bytes.
        size: usize,
        /// The limit ([`crate::GenesisParams::max_block_bytes`]).
        max: usize,
    },
    /// A transaction inside a block is invalid.
    Tx {
        /// Its index in the block.
        index: usize,
        /// Why.
        error: TxError,
    },
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecodeError::Cbor(e) => e.fmt(f),
            DecodeError::Shape { object, fields } => {
                write!(f, "{object} must be a CBOR array of {fields} fields")
            }
            DecodeError::Field {
                object,
                field,
                expected,
            } => write!(f, "{object}.{field}: expected {expected}"),
            DecodeError::TooLarge { size, max } => {
                write!(f, "block is {size} bytes, larger than the {max}-byte limit")
            }
            DecodeError::Tx { index, error } => write!(f, "transaction {index}: {error}"),
        }
    }
}

impl std::error::Error for DecodeError {}

/// Reads the fields of a fixed-arity array.
fn fields<const N: usize>(bytes: &[u8], object: &'static str) -> Result<[Value; N], DecodeError> {
    match cbor::decode(bytes).map_err(DecodeError::Cbor)? {
        Value::Array(items) => items
            .try_into()
            .map_err(|_| DecodeError::Shape { object, fields: N }),
        _ => Err(DecodeError::Shape { object, fields: N }),
    }
}

fn fields_of<const N: usize>(v: Value, object: &'static str) -> Result<[Value; N], DecodeError> {
    match v {
        Value::Array(items) => items
            .try_into()
            .map_err(|_| DecodeError::Shape { object, fields: N }),
        _ => Err(DecodeError::Shape { object, fields: N }),
    }
}

struct Reader {
    object: &'static str,
}

impl Reader {
    fn err(&self, field: &'static str, expected: &'static str) -> DecodeError {
        DecodeError::Field {
            object: self.object,
            field,
            expected,
        }
    }
    fn u64(&self, v: &Value, field: &'static str) -> Result<u64, DecodeError> {
        v.as_u64().ok_or(self.err(field, "unsigned 64-bit integer"))
    }
    fn u128(&self, v: &Value, field: &'static str) -> Result<u128, DecodeError> {
        v.as_u128()
            .ok_or(self.err(field, "unsigned 128-bit integer"))
    }
    fn hash(&self, v: &Value, field: &'static str) -> Result<Hash32, DecodeError> {
        match v {
            Value::Bytes(b) => b
                .as_slice()
                .try_into()
                .map(Hash32)
                .map_err(|_| self.err(field, "32 bytes")),
            _ => Err(self.err(field, "32 bytes")),
        }
    }
    fn address(&self, v: &Value, field: &'static str) -> Result<Address, DecodeError> {
        match v {
            Value::Bytes(b) => b
                .as_slice()
                .try_into()
                .map(Address)
                .map_err(|_| self.err(field, "20-byte address")),
            _ => Err(self.err(field, "20-byte address")),
        }
    }
    fn bytes(&self, v: Value, field: &'static str) -> Result<Vec<u8>, DecodeError> {
        match v {
            Value::Bytes(b) => Ok(b),
            _ => Err(self.err(field, "byte string")),
        }
    }
    fn text(&self, v: Value, field: &'static str) -> Result<String, DecodeError> {
        match v {
            Value::Text(t) => Ok(t),
            _ => Err(self.err(field, "text")),
        }
    }
}

fn hash_value(h: &Hash32) -> Value {
    Value::Bytes(h.0.to_vec())
}

fn address_value(a: &Address) -> Value {
    Value::Bytes(a.0.to_vec())
}

/// A block header. Encoding order: `[parent_hash, height, timestamp_ms, proposer, state_root,
/// tx_root, receipts_root, cycle_basefee, cell_basefee, cycles_used, cells_used, randomness]`,
/// then `votes_root` as a thirteenth field only when the block carries a vote record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockHeader {
    /// Hash of the parent header (zero for genesis).
    pub parent_hash: Hash32,
    /// Height; genesis is 0.
    pub height: u64,
    /// Proposer's timestamp in milliseconds since the Unix epoch (consensus-agreed, not a clock
    /// read during execution).
    pub timestamp_ms: u64,
    /// The proposer's account, which receives tips.
    pub proposer: Address,
    /// State root after this block's transactions.
    pub state_root: Hash32,
    /// Commitment to the block's transactions.
    pub tx_root: Hash32,
    /// Commitment to the block's receipts.
    pub receipts_root: Hash32,
    /// Basefee per cycle in force for this block (wei).
    pub cycle_basefee: u128,
    /// Basefee per cell in force for this block (wei).
    pub cell_basefee: u128,
    /// Cycles used by the block.
    pub cycles_used: u64,
    /// Cells used by the block.
    pub cells_used: u64,
    /// Per-block randomness R_n (§3.4), filled by consensus.
    pub randomness: Hash32,
    /// The hash of the block's [`VoteRecord`], if it carries one.
    pub votes_root: Option<Hash32>,
    /// The commitment to the block's dealer logs ([`Block::dealings_root`]), if it carries
    /// any.
    pub dealings_root: Option<Hash32>,
}

impl BlockHeader {
    fn to_value(&self) -> Value {
        let mut fields = vec![
            hash_value(&self.parent_hash),
            Value::Uint(self.height),
            Value::Uint(self.timestamp_ms),
            address_value(&self.proposer),
            hash_value(&self.state_root),
            hash_value(&self.tx_root),
            hash_value(&self.receipts_root),
            Value::from_u128(self.cycle_basefee),
            Value::from_u128(self.cell_basefee),
            Value::Uint(self.cycles_used),
            Value::Uint(self.cells_used),
            hash_value(&self.randomness),
        ];
        match (&self.votes_root, &self.dealings_root) {
            (None, None) => {}
            (Some(root), None) => fields.push(hash_value(root)),
            (votes, Some(dealings)) => {
                fields.push(votes.as_ref().map_or(Value::Null, hash_value));
                fields.push(hash_value(dealings));
            }
        }
        Value::Array(fields)
    }

    fn from_value(v: Value) -> Result<BlockHeader, DecodeError> {
        let r = Reader { object: "header" };
        let shape = DecodeError::Shape {
            object: "header",
            fields: 12,
        };
        let Value::Array(mut items) = v else {
            return Err(shape);
        };
        // The optional thirteenth and fourteenth fields: a header has one encoding either
        // way (`votes_root` is null only when `dealings_root` follows it).
        let dealings_root = match items.len() {
            14 => Some(r.hash(&items.remove(13), "dealings_root")?),
            _ => None,
        };
        let votes_root = match (items.len(), dealings_root.is_some()) {
            (12, false) => None,
            (13, true) if items[12] == Value::Null => {
                items.truncate(12);
                None
            }
            (13, _) => Some(r.hash(&items.remove(12), "votes_root")?),
            _ => return Err(shape),
        };
        let [parent, height, ts, proposer, state, txr, rcr, cb, bb, cu, bu, rand] =
            fields_of::<12>(Value::Array(items), "header")?;
        Ok(BlockHeader {
            parent_hash: r.hash(&parent, "parent_hash")?,
            height: r.u64(&height, "height")?,
            timestamp_ms: r.u64(&ts, "timestamp_ms")?,
            proposer: r.address(&proposer, "proposer")?,
            state_root: r.hash(&state, "state_root")?,
            tx_root: r.hash(&txr, "tx_root")?,
            receipts_root: r.hash(&rcr, "receipts_root")?,
            cycle_basefee: r.u128(&cb, "cycle_basefee")?,
            cell_basefee: r.u128(&bb, "cell_basefee")?,
            cycles_used: r.u64(&cu, "cycles_used")?,
            cells_used: r.u64(&bu, "cells_used")?,
            randomness: r.hash(&rand, "randomness")?,
            votes_root,
            dealings_root,
        })
    }

    /// Canonical encoding.
    pub fn encode(&self) -> Vec<u8> {
        cbor::encode(&self.to_value())
    }

    /// Strict decoding.
    pub fn decode(bytes: &[u8]) -> Result<BlockHeader, DecodeError> {
        BlockHeader::from_value(cbor::decode(bytes).map_err(DecodeError::Cbor)?)
    }

    /// The block hash: keccak256 of the header's encoding.
    pub fn hash(&self) -> Hash32 {
        keccak256(&self.encode())
    }
}

/// Size limits of block decoding, from the genesis parameters
/// ([`crate::GenesisParams::block_limits`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockLimits {
    /// The largest encoded block.
    pub max_block_bytes: usize,
    /// The largest encoded transaction inside it (`max_tx_size_bytes`, §12.1).
    pub max_tx_bytes: usize,
}

/// One consensus vote in a [`VoteRecord`]: the voter's index in its epoch's participant set
/// (the validators' Ed25519 keys in ascending order, as commonware numbers them) and its
/// Ed25519 signature. Encoding: `[signer, signature(64)]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Vote {
    /// The voter's index in the epoch's participant set.
    pub signer: u32,
    /// Its signature over the notarized proposal.
    pub signature: [u8; 64],
}

/// The notarize votes a block's proposer saw for one proposal of the block's grandparent:
/// the consensus round that proposal was made in and the votes, signers strictly
/// increasing. Encoding: `[epoch, view, parent_view, [vote, …]]`. What makes a record valid
/// (signers, signatures, quorum) is the block rule's (exec); the decoder checks the shape.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VoteRecord {
    /// The consensus epoch of the round.
    pub epoch: u64,
    /// The view of the round.
    pub view: u64,
    /// The view of the proposal's parent, as the proposal names it.
    pub parent_view: u64,
    /// The votes, by signer index.
    pub votes: Vec<Vote>,
}

/// The most bytes one [`Vote`] encodes to: an array head, a signer (at most 5 bytes) and a
/// 64-byte string with its 2-byte head.
pub const MAX_VOTE_BYTES: u64 = 1 + 5 + 2 + 64;

impl VoteRecord {
    fn to_value(&self) -> Value {
        Value::Array(vec![
            Value::Uint(self.epoch),
            Value::Uint(self.view),
            Value::Uint(self.parent_view),
            Value::Array(
                self.votes
                    .iter()
                    .map(|v| {
                        Value::Array(vec![
                            Value::Uint(u64::from(v.signer)),
                            Value::Bytes(v.signature.to_vec()),
                        ])
                    })
                    .collect(),
            ),
        ])
    }

    fn from_value(v: Value) -> Result<VoteRecord, DecodeError> {
        let r = Reader {
            object: "vote record",
        };
        let [epoch, view, parent_view, votes] = fields_of::<4>(v, "vote record")?;
        let Value::Array(votes) = votes else {
            return Err(r.err("votes", "array"));
        };
        let votes = votes
            .into_iter()
            .map(|v| {
                let [signer, signature] = fields_of::<2>(v, "vote")?;
                let signer = r
                    .u64(&signer, "signer")?
                    .try_into()
                    .map_err(|_| r.err("signer", "unsigned 32-bit integer"))?;
                let signature = r
                    .bytes(signature, "signature")?
                    .try_into()
                    .map_err(|_| r.err("signature", "64 bytes"))?;
                Ok(Vote { signer, signature })
            })
            .collect::<Result<_, DecodeError>>()?;
        Ok(VoteRecord {
            epoch: r.u64(&epoch, "epoch")?,
            view: r.u64(&view, "view")?,
            parent_view: r.u64(&parent_view, "parent_view")?,
            votes,
        })
    }

    /// Canonical encoding.
    pub fn encode(&self) -> Vec<u8> {
        cbor::encode(&self.to_value())
    }

    /// Strict decoding of [`VoteRecord::encode`]'s output (the shape only; see the type).
    pub fn decode(bytes: &[u8]) -> Result<VoteRecord, DecodeError> {
        VoteRecord::from_value(cbor::decode(bytes).map_err(DecodeError::Cbor)?)
    }

    /// The header's `votes_root`: keccak256 of the encoding.
    pub fn hash(&self) -> Hash32 {
        keccak256(&self.encode())
    }
}

/// Bytes of a beacon signature: a compressed BLS12-381 G1 point (commonware's `MinSig`).
pub const BEACON_SIGNATURE_BYTES: usize = 48;

/// Most dealer logs one block carries (exec's `reshare` rule refuses more): each costs a
/// signature check, so a block's share of that work is bounded.
pub const MAX_DEALER_LOGS: u64 = 16;

/// Most bytes of dealer logs one block carries, summed over its logs (exec's `reshare` rule
/// refuses more): a log is `O(n)` (a commitment of `t` points and one ack or reveal per
/// player), about 8.3 KiB for 64 validators, so 15 such logs fit in one block and a round's
/// quorum of them in a few. Sized to the room `GenesisParams::max_block_bytes` leaves under
/// the node's 8 MiB message limit at a 10,000 CBY minimum stake (a full vote record of
/// 100,000 validators): 256 KiB would have made such a genesis unusable.
pub const MAX_DEALER_LOG_BYTES: u64 = 128 * 1024;

/// A block: `[header, [tx, …]]`, each transaction as its canonical encoding nested in place,
/// then the [`VoteRecord`] as a third item only when the block carries one, or
/// `[header, [tx, …], record or null, beacon]` when it carries a beacon signature, or
/// `[header, [tx, …], record or null, beacon or null, [log, …]]` when it carries dealer logs
/// (so each block has exactly one encoding).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Block {
    /// The header.
    pub header: BlockHeader,
    /// Transactions in execution order.
    pub transactions: Vec<Transaction>,
    /// The votes seen for the grandparent, if the proposer recorded them.
    pub votes: Option<VoteRecord>,
    /// The beacon signature the block carries (exec's `beacon` rule says which blocks must).
    pub beacon: Option<[u8; BEACON_SIGNATURE_BYTES]>,
    /// Signed dealer logs of the beacon's resharing (exec's `reshare` rule), each as
    /// commonware's encoding; empty when the block carries none.
    pub dealer_logs: Vec<Vec<u8>>,
}

impl Block {
    /// Canonical encoding.
    pub fn encode(&self) -> Vec<u8> {
        let mut items = vec![
            self.header.to_value(),
            Value::Array(self.transactions.iter().map(|t| t.to_value(true)).collect()),
        ];
        let votes = || {
            self.votes
                .as_ref()
                .map_or(Value::Null, VoteRecord::to_value)
        };
        let beacon = || {
            self.beacon
                .map_or(Value::Null, |b| Value::Bytes(b.to_vec()))
        };
        match (&self.votes, &self.beacon, self.dealer_logs.is_empty()) {
            (None, None, true) => {}
            (Some(votes), None, true) => items.push(votes.to_value()),
            (_, Some(_), true) => {
                items.push(votes());
                items.push(beacon());
            }
            (_, _, false) => {
                items.push(votes());
                items.push(beacon());
                items.push(Block::dealings_value(&self.dealer_logs));
            }
        }
        cbor::encode(&Value::Array(items))
    }

    /// Strict decoding under `limits`: the block's size is checked before any parsing, and
    /// every transaction is decoded as by [`Transaction::decode_with_limit`] with the
    /// transaction size limit, so no block can carry a transaction that admission refuses.
    pub fn decode(bytes: &[u8], limits: BlockLimits) -> Result<Block, DecodeError> {
        if bytes.len() > limits.max_block_bytes {
            return Err(DecodeError::TooLarge {
                size: bytes.len(),
                max: limits.max_block_bytes,
            });
        }
        let shape = DecodeError::Shape {
            object: "block",
            fields: 2,
        };
        let Value::Array(mut items) = cbor::decode(bytes).map_err(DecodeError::Cbor)? else {
            return Err(shape);
        };
        let logs_field = DecodeError::Field {
            object: "block",
            field: "dealer_logs",
            expected: "a non-empty array of byte strings",
        };
        let dealer_logs = match items.len() {
            5 => match items.remove(4) {
                Value::Array(logs) if !logs.is_empty() => logs
                    .into_iter()
                    .map(|l| match l {
                        Value::Bytes(b) => Ok(b),
                        _ => Err(logs_field.clone()),
                    })
                    .collect::<Result<Vec<_>, _>>()?,
                _ => return Err(logs_field),
            },
            _ => Vec::new(),
        };
        // With logs, the fourth item is the beacon or null; without, it is the beacon.
        let beacon = match items.len() {
            4 if !dealer_logs.is_empty() && items[3] == Value::Null => {
                items.truncate(3);
                None
            }
            4 => match items.remove(3) {
                Value::Bytes(b) => Some(
                    <[u8; BEACON_SIGNATURE_BYTES]>::try_from(b.as_slice()).map_err(|_| {
                        DecodeError::Field {
                            object: "block",
                            field: "beacon",
                            expected: "48 bytes",
                        }
                    })?,
                ),
                _ => {
                    return Err(DecodeError::Field {
                        object: "block",
                        field: "beacon",
                        expected: "48 bytes",
                    })
                }
            },
            _ => None,
        };
        let votes = match (items.len(), beacon.is_some() || !dealer_logs.is_empty()) {
            (2, false) => None,
            (3, true) if items[2] == Value::Null => {
                items.truncate(2);
                None
            }
            (3, _) => Some(VoteRecord::from_value(items.remove(2))?),
            _ => return Err(shape),
        };
        let [header, txs] = fields_of::<2>(Value::Array(items), "block")?;
        let header = BlockHeader::from_value(header)?;
        let Value::Array(txs) = txs else {
            return Err(DecodeError::Field {
                object: "block",
                field: "transactions",
                expected: "array",
            });
        };
        let transactions = txs
            .iter()
            .enumerate()
            .map(|(index, v)| {
                Transaction::decode_with_limit(&cbor::encode(v), limits.max_tx_bytes)
                    .map_err(|error| DecodeError::Tx { index, error })
            })
            .collect::<Result<_, _>>()?;
        Ok(Block {
            header,
            transactions,
            votes,
            beacon,
            dealer_logs,
        })
    }

    /// Whether the body is the one the header commits to (`tx_root`, `votes_root`, and the
    /// beacon signature through `randomness`, its keccak256): a block whose body does not
    /// match is not the block its hash names, only a header with someone else's body.
    pub fn body_matches_header(&self) -> bool {
        Block::tx_root(&self.transactions) == self.header.tx_root
            && self.votes.as_ref().map(VoteRecord::hash) == self.header.votes_root
            && self
                .beacon
                .is_none_or(|sig| keccak256(&sig) == self.header.randomness)
            && Block::dealings_root(&self.dealer_logs) == self.header.dealings_root
    }

    fn dealings_value(logs: &[Vec<u8>]) -> Value {
        Value::Array(logs.iter().map(|l| Value::Bytes(l.clone())).collect())
    }

    /// The header's `dealings_root` for a block carrying `logs`: keccak256 of the CBOR array
    /// of the logs (the block's fifth item), `None` for none.
    pub fn dealings_root(logs: &[Vec<u8>]) -> Option<Hash32> {
        (!logs.is_empty()).then(|| keccak256(&cbor::encode(&Block::dealings_value(logs))))
    }

    /// The commitment to a list of transactions: the Merkle root of their hashes, in block
    /// order (`cowboy_proof_verifier::inclusion`: one transaction is proven in the header by
    /// its path alone).
    pub fn tx_root(transactions: &[Transaction]) -> Hash32 {
        let hashes: Vec<Hash32> = transactions.iter().map(Transaction::hash).collect();
        list_root(&hashes)
    }
}

/// An event emitted by an actor: `[emitter, topic, data]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Event {
    /// The actor that emitted it.
    pub emitter: Address,
    /// Topic string.
    pub topic: String,
    /// Payload (canonical CBOR of the emitted value).
    pub data: Vec<u8>,
}

impl Event {
    fn to_value(&self) -> Value {
        Value::Array(vec![
            address_value(&self.emitter),
            Value::Text(self.topic.clone()),
            Value::Bytes(self.data.clone()),
        ])
    }

    fn from_value(v: Value) -> Result<Event, DecodeError> {
        let r = Reader { object: "event" };
        let [emitter, topic, data] = fields_of::<3>(v, "event")?;
        Ok(Event {
            emitter: r.address(&emitter, "emitter")?,
            topic: r.text(topic, "topic")?,
            data: r.bytes(data, "data")?,
        })
    }

    /// Canonical encoding.
    pub fn encode(&self) -> Vec<u8> {
        cbor::encode(&self.to_value())
    }

    /// Strict decoding.
    pub fn decode(bytes: &[u8]) -> Result<Event, DecodeError> {
        Event::from_value(cbor::decode(bytes).map_err(DecodeError::Cbor)?)
    }

    /// keccak256 of the encoding.
    pub fn hash(&self) -> Hash32 {
        keccak256(&self.encode())
    }
}

/// Why a transaction failed, as the receipt records it: `[class, message, line]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExecError {
    /// Python exception class (`ValueError`, `OutOfCycles`, …) or a protocol error name.
    pub class: String,
    /// The message.
    pub message: String,
    /// Line in the actor source, 0 if none.
    pub line: u64,
}

/// A transaction's outcome. Encoding: `[status, cycles_used, cells_used, fee_paid, return_data,
/// [event, …], error]` with `status` 1 for success and 0 for failure, `error` null on success.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Receipt {
    /// True when the transaction's effects were applied.
    pub success: bool,
    /// Cycles consumed.
    pub cycles_used: u64,
    /// Cells consumed.
    pub cells_used: u64,
    /// Total fee charged to the sender (wei).
    pub fee_paid: u128,
    /// Handler return value (canonical CBOR) or empty.
    pub return_data: Vec<u8>,
    /// Events emitted (empty on failure: a failed handler's events are reverted).
    pub events: Vec<Event>,
    /// Failure details.
    pub error: Option<ExecError>,
}

impl Receipt {
    fn to_value(&self) -> Value {
        Value::Array(vec![
            Value::Uint(u64::from(self.success)),
            Value::Uint(self.cycles_used),
            Value::Uint(self.cells_used),
            Value::from_u128(self.fee_paid),
            Value::Bytes(self.return_data.clone()),
            Value::Array(self.events.iter().map(Event::to_value).collect()),
            match &self.error {
                None => Value::Null,
                Some(e) => Value::Array(vec![
                    Value::Text(e.class.clone()),
                    Value::Text(e.message.clone()),
                    Value::Uint(e.line),
                ]),
            },
        ])
    }

    /// Canonical encoding.
    pub fn encode(&self) -> Vec<u8> {
        cbor::encode(&self.to_value())
    }

    /// Strict decoding.
    pub fn decode(bytes: &[u8]) -> Result<Receipt, DecodeError> {
        let r = Reader { object: "receipt" };
        let [status, cu, bu, fee, ret, events, error] = fields::<7>(bytes, "receipt")?;
        let success = match status.as_u64() {
            Some(1) => true,
            Some(0) => false,
            _ => return Err(r.err("status", "0 or 1")),
        };
        let Value::Array(events) = events else {
            return Err(r.err("events", "array"));
        };
        let error = match error {
            Value::Null => None,
            other => {
                let [class, message, line] = fields_of::<3>(other, "receipt.error")?;
                Some(ExecError {
                    class: r.text(class, "error.class")?,
                    message: r.text(message, "error.message")?,
                    line: r.u64(&line, "error.line")?,
                })
            }
        };
        if success == error.is_some() {
            return Err(r.err("error", "null exactly when status is 1"));
        }
        Ok(Receipt {
            success,
            cycles_used: r.u64(&cu, "cycles_used")?,
            cells_used: r.u64(&bu, "cells_used")?,
            fee_paid: r.u128(&fee, "fee_paid")?,
            return_data: r.bytes(ret, "return_data")?,
            events: events
                .into_iter()
                .map(Event::from_value)
                .collect::<Result<_, _>>()?,
            error,
        })
    }

    /// keccak256 of the encoding.
    pub fn hash(&self) -> Hash32 {
        keccak256(&self.encode())
    }

    /// The commitment to a list of receipts: the Merkle root of their hashes, in order (a
    /// block without timers or hook events commits to its receipts so).
    pub fn receipts_root(receipts: &[Receipt]) -> Hash32 {
        let hashes: Vec<Hash32> = receipts.iter().map(Receipt::hash).collect();
        list_root(&hashes)
    }
}

/// A timer's delivery in `begin_block` (exec `timers`): which timer, and the receipt of its
/// handler's run (or of its drop, with error class `TimerDropped`). Encoding: `[timer_id,
/// owner, handler, due, receipt]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimerExecution {
    /// The timer.
    pub timer_id: u64,
    /// The actor whose handler ran and whose balance paid.
    pub owner: Address,
    /// The handler.
    pub handler: String,
    /// The height it was scheduled for (it may run later: deferred by the auction).
    pub due: u64,
    /// What the run did; `fee_paid` includes the agent's bid query.
    pub receipt: Receipt,
}

impl TimerExecution {
    /// Canonical encoding.
    pub fn encode(&self) -> Vec<u8> {
        cbor::encode(&Value::Array(vec![
            Value::Uint(self.timer_id),
            address_value(&self.owner),
            Value::Text(self.handler.clone()),
            Value::Uint(self.due),
            Value::Bytes(self.receipt.encode()),
        ]))
    }

    /// Strict decoding.
    pub fn decode(bytes: &[u8]) -> Result<TimerExecution, DecodeError> {
        let r = Reader {
            object: "timer execution",
        };
        let [id, owner, handler, due, receipt] = fields::<5>(bytes, "timer execution")?;
        Ok(TimerExecution {
            timer_id: r.u64(&id, "timer_id")?,
            owner: r.address(&owner, "owner")?,
            handler: r.text(handler, "handler")?,
            due: r.u64(&due, "due")?,
            receipt: Receipt::decode(&r.bytes(receipt, "receipt")?)?,
        })
    }

    /// keccak256 of the encoding.
    pub fn hash(&self) -> Hash32 {
        keccak256(&self.encode())
    }
}

/// The events a block's system hooks emitted, which no transaction or timer receipt carries:
/// `begin` in `begin_block` before its timers (a downtime jailing), `end` in `end_block`
/// after its transactions (an epoch boundary's set changes and rewards, the beacon's key
/// generation). Encoding: `[[event, …], [event, …]]`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HookEvents {
    /// Emitted in `begin_block`, in order.
    pub begin: Vec<Event>,
    /// Emitted in `end_block`, in order.
    pub end: Vec<Event>,
}

impl HookEvents {
    /// Whether the hooks emitted nothing (the block's receipts root then leaves them out).
    pub fn is_empty(&self) -> bool {
        self.begin.is_empty() && self.end.is_empty()
    }

    /// Canonical encoding.
    pub fn encode(&self) -> Vec<u8> {
        let list = |events: &[Event]| Value::Array(events.iter().map(Event::to_value).collect());
        cbor::encode(&Value::Array(vec![list(&self.begin), list(&self.end)]))
    }

    /// Strict decoding.
    pub fn decode(bytes: &[u8]) -> Result<HookEvents, DecodeError> {
        let r = Reader {
            object: "hook events",
        };
        let [begin, end] = fields::<2>(bytes, "hook events")?;
        let list = |v: Value, field: &'static str| match v {
            Value::Array(items) => items.into_iter().map(Event::from_value).collect(),
            _ => Err(r.err(field, "array")),
        };
        Ok(HookEvents {
            begin: list(begin, "begin")?,
            end: list(end, "end")?,
        })
    }

    /// keccak256 of the encoding.
    pub fn hash(&self) -> Hash32 {
        keccak256(&self.encode())
    }
}

/// The items a header's `receipts_root` commits to, in order: the hashes of the block's timer
/// executions (in delivery order, they run first), its transactions' receipts and, if its
/// hooks emitted any, its [`HookEvents`] last. The receipt of the block's `i`-th transaction
/// is item `timers.len() + i`.
pub fn block_receipt_items(
    timers: &[TimerExecution],
    receipts: &[Receipt],
    hooks: &HookEvents,
) -> Vec<Hash32> {
    timers
        .iter()
        .map(TimerExecution::hash)
        .chain(receipts.iter().map(Receipt::hash))
        .chain((!hooks.is_empty()).then(|| hooks.hash()))
        .collect()
}

/// A header's `receipts_root`: the Merkle root of [`block_receipt_items`]. A block without
/// timers or hook events commits exactly as [`Receipt::receipts_root`].
pub fn block_receipts_root(
    timers: &[TimerExecution],
    receipts: &[Receipt],
    hooks: &HookEvents,
) -> Hash32 {
    list_root(&block_receipt_items(timers, receipts, hooks))
}

/// The Merkle root of a list of item hashes (`cowboy_proof_verifier::inclusion`, where a
/// light client checks one item's path to it).
pub fn list_root(items: &[Hash32]) -> Hash32 {
    let digests: Vec<[u8; 32]> = items.iter().map(|h| h.0).collect();
    Hash32(cowboy_proof_verifier::list_root(&digests))
}

/// A message id (§3.3): `keccak256(sender ‖ nonce_be8 ‖ msg_hash)`.
pub fn message_id(sender: &Address, nonce: u64, msg_hash: &Hash32) -> Hash32 {
    keccak256_concat(&[&sender.0, &nonce.to_be_bytes(), &msg_hash.0])
}
