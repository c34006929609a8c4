//! Transactions (whitepaper §2): the typed, dual-metered transaction and its wire format.
//!
//! Wire format (§2.5, normative): the canonical CBOR array, in this order,
//! `[chain_id, nonce, to, value, cycles_limit, cells_limit, max_fee_per_cycle, max_fee_per_cell,
//!   tip_per_cycle, tip_per_cell, access_list, payload, signature]`
//! where `to` is a 20-byte string or null (actor creation), `access_list` is null or an array of
//! `[address, [storage_key, …]]`, `payload` is a byte string, and `signature` is null or
//! `[y_parity, r, s]` with 32-byte `r`, `s`.
//!
//! **Dev authorizations** (ours; the spec has none). On a development chain (genesis
//! `dev_chain = 1`, which only `cowboyd --dev` sets) the signature slot may instead hold
//! `["impersonated", from]` (run as `from` without a signature: anvil's impersonation) or
//! `["set_balance"]` (set `to`'s balance to `value`; sent by [`dev_balance_authority`]). They
//! decode everywhere, so a block or pool can name what it refuses, but only exec on a dev chain
//! accepts them (`cowboy_exec::check_stateless`); every other chain refuses them there. Being
//! in blocks, they replay like any transaction: a restart, a sync or a dev revert sees them.
//!
//! Hashes: the signing hash is `keccak256(CBOR(tx with signature = null))`; the transaction hash
//! is `keccak256(CBOR(signed tx))`.
//!
//! The payload is opaque bytes at this layer; [`Payload`] gives its Cowboy interpretation
//! (the spec leaves it open): with `to = null` it is `CBOR([source, salt, init_args])`, a deploy;
//! with `to` set, empty bytes are a plain transfer and `CBOR([handler, args])` is an actor call,
//! where `args` is an array (positional) or a text-keyed map (keyword arguments).

use crate::address::Address;
use crate::cbor::{self, CborError, Value};
use crate::genesis::DEFAULT_MAX_TX_SIZE_BYTES;
use crate::hash::{keccak256, Hash32};
use crate::keys::{PrivateKey, Signature, SignatureError};
use std::fmt;

/// One access-list entry: an address and the storage keys the transaction may touch there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AccessListEntry {
    /// The account or actor.
    pub address: Address,
    /// Storage keys (raw bytes).
    pub storage_keys: Vec<Vec<u8>>,
}

/// A transaction (§2.1).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Transaction {
    /// Chain id; signed, so a transaction is valid on one chain only.
    pub chain_id: u64,
    /// The sender's nonce.
    pub nonce: u64,
    /// Recipient; `None` deploys an actor.
    pub to: Option<Address>,
    /// Value transferred, in the smallest unit of CBY.
    pub value: u128,
    /// Maximum cycles this transaction may consume.
    pub cycles_limit: u64,
    /// Maximum cells (bytes) this transaction may consume.
    pub cells_limit: u64,
    /// Maximum total price per cycle (basefee + tip).
    pub max_fee_per_cycle: u128,
    /// Maximum total price per cell.
    pub max_fee_per_cell: u128,
    /// Priority tip per cycle.
    pub tip_per_cycle: u128,
    /// Priority tip per cell.
    pub tip_per_cell: u128,
    /// Optional access list.
    pub access_list: Option<Vec<AccessListEntry>>,
    /// Opaque payload; see [`Payload`].
    pub payload: Vec<u8>,
    /// What authorises it (the wire's signature slot); `None` while unsigned.
    pub signature: Option<Authorization>,
}

/// What fills a transaction's signature slot (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Authorization {
    /// A secp256k1 signature over the signing hash: the sender is recovered from it.
    Signed(Signature),
    /// Dev chains only: the transaction runs as this sender, unsigned, and is otherwise
    /// executed like any other (nonce, limits and fees included).
    Impersonated(Address),
    /// Dev chains only: set the balance of `to` to `value`. Its sender is
    /// [`dev_balance_authority`], whose nonce orders and deduplicates these; it carries no
    /// payload, limits or fees and costs nothing.
    SetBalance,
}

impl Authorization {
    /// Whether only a dev chain accepts it.
    pub fn is_dev(&self) -> bool {
        !matches!(self, Authorization::Signed(_))
    }
}

/// The sender of every set-balance transaction ([`Authorization::SetBalance`]): an address
/// nobody holds a key for, the last 20 bytes of `keccak256("cowboy-dev-set-balance")`.
pub fn dev_balance_authority() -> Address {
    Address::from_hash(&keccak256(b"cowboy-dev-set-balance"))
}

/// The transaction fields, by position, for error messages.
pub const FIELD_NAMES: [&str; 13] = [
    "chain_id",
    "nonce",
    "to",
    "value",
    "cycles_limit",
    "cells_limit",
    "max_fee_per_cycle",
    "max_fee_per_cell",
    "tip_per_cycle",
    "tip_per_cell",
    "access_list",
    "payload",
    "signature",
];

/// Why bytes are not a valid transaction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TxError {
    /// Larger than the maximum transaction size.
    TooLarge {
        /// The input size.
        size: usize,
        /// The limit.
        max: usize,
    },
    /// Not canonical CBOR.
    Cbor(CborError),
    /// The top-level item is not an array.
    NotAnArray,
    /// The array does not have 13 elements.
    WrongArity(usize),
    /// A field has the wrong CBOR type or is out of its range.
    FieldType {
        /// Field name.
        field: &'static str,
        /// What was expected.
        expected: &'static str,
    },
    /// An address field does not have 20 bytes.
    AddressLength {
        /// Field name.
        field: &'static str,
        /// The length found.
        len: usize,
    },
    /// The signature is malformed or does not verify.
    Signature(SignatureError),
    /// An operation needs a signature and there is none.
    Unsigned,
}

impl fmt::Display for TxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TxError::TooLarge { size, max } => {
                write!(
                    f,
                    "transaction is {size} bytes, larger than the {max}-byte limit"
                )
            }
            TxError::Cbor(e) => write!(f, "transaction is not canonical CBOR: {e}"),
            TxError::NotAnArray => f.write_str("transaction must be a CBOR array"),
            TxError::WrongArity(n) => write!(f, "transaction must have 13 fields, got {n}"),
            TxError::FieldType { field, expected } => {
                write!(f, "field {field}: expected {expected}")
            }
            TxError::AddressLength { field, len } => {
                write!(f, "field {field}: address must be 20 bytes, got {len}")
            }
            TxError::Signature(e) => write!(f, "field signature: {e}"),
            TxError::Unsigned => f.write_str("transaction is not signed"),
        }
    }
}

impl std::error::Error for TxError {}

impl From<CborError> for TxError {
    fn from(e: CborError) -> TxError {
        TxError::Cbor(e)
    }
}

fn address_value(a: &Address) -> Value {
    Value::Bytes(a.0.to_vec())
}

impl Transaction {
    /// The CBOR array, with the signature as stored or forced to null.
    pub(crate) fn to_value(&self, with_signature: bool) -> Value {
        let access_list = match &self.access_list {
            None => Value::Null,
            Some(entries) => Value::Array(
                entries
                    .iter()
                    .map(|e| {
                        Value::Array(vec![
                            address_value(&e.address),
                            Value::Array(
                                e.storage_keys
                                    .iter()
                                    .map(|k| Value::Bytes(k.clone()))
                                    .collect(),
                            ),
                        ])
                    })
                    .collect(),
            ),
        };
        let signature = match (&self.signature, with_signature) {
            (Some(Authorization::Signed(sig)), true) => Value::Array(vec![
                Value::Uint(u64::from(sig.y_parity)),
                Value::Bytes(sig.r.to_vec()),
                Value::Bytes(sig.s.to_vec()),
            ]),
            (Some(Authorization::Impersonated(from)), true) => {
                Value::Array(vec![Value::Text(IMPERSONATED.into()), address_value(from)])
            }
            (Some(Authorization::SetBalance), true) => {
                Value::Array(vec![Value::Text(SET_BALANCE.into())])
            }
            _ => Value::Null,
        };
        Value::Array(vec![
            Value::Uint(self.chain_id),
            Value::Uint(self.nonce),
            self.to.as_ref().map_or(Value::Null, address_value),
            Value::from_u128(self.value),
            Value::Uint(self.cycles_limit),
            Value::Uint(self.cells_limit),
            Value::from_u128(self.max_fee_per_cycle),
            Value::from_u128(self.max_fee_per_cell),
            Value::from_u128(self.tip_per_cycle),
            Value::from_u128(self.tip_per_cell),
            access_list,
            Value::Bytes(self.payload.clone()),
            signature,
        ])
    }

    /// A dev chain's set-balance transaction ([`Authorization::SetBalance`]): `account`'s
    /// balance becomes `amount`; `nonce` is [`dev_balance_authority`]'s next; no payload,
    /// access list, limits or fees (all the block rule allows one to carry).
    pub fn set_balance(chain_id: u64, nonce: u64, account: Address, amount: u128) -> Transaction {
        Transaction {
            chain_id,
            nonce,
            to: Some(account),
            value: amount,
            cycles_limit: 0,
            cells_limit: 0,
            max_fee_per_cycle: 0,
            max_fee_per_cell: 0,
            tip_per_cycle: 0,
            tip_per_cell: 0,
            access_list: None,
            payload: Vec::new(),
            signature: Some(Authorization::SetBalance),
        }
    }

    /// Canonical encoding (with the signature if present).
    pub fn encode(&self) -> Vec<u8> {
        cbor::encode(&self.to_value(true))
    }

    /// Canonical encoding with `signature = null`.
    pub fn encode_unsigned(&self) -> Vec<u8> {
        cbor::encode(&self.to_value(false))
    }

    /// `keccak256(CBOR(tx with signature = null))`.
    pub fn signing_hash(&self) -> Hash32 {
        keccak256(&self.encode_unsigned())
    }

    /// `keccak256` of the full encoding: the transaction's identity.
    pub fn hash(&self) -> Hash32 {
        keccak256(&self.encode())
    }

    /// Signs in place with `key`.
    pub fn sign(&mut self, key: &PrivateKey) -> Result<(), TxError> {
        self.signature = Some(Authorization::Signed(
            key.sign_hash(&self.signing_hash())
                .map_err(TxError::Signature)?,
        ));
        Ok(())
    }

    /// The sender: recovered from a signature, or the one a dev authorization names. A dev
    /// authorization proves nothing; only exec on a dev chain accepts one, so whatever
    /// trusts a sender must take it from exec's checked transaction, not from here.
    pub fn sender(&self) -> Result<Address, TxError> {
        match self.signature.as_ref().ok_or(TxError::Unsigned)? {
            Authorization::Signed(sig) => sig
                .recover(&self.signing_hash())
                .map_err(TxError::Signature),
            Authorization::Impersonated(from) => Ok(*from),
            Authorization::SetBalance => Ok(dev_balance_authority()),
        }
    }

    /// Decodes with the genesis default size limit (128 KiB).
    pub fn decode(bytes: &[u8]) -> Result<Transaction, TxError> {
        Transaction::decode_with_limit(bytes, DEFAULT_MAX_TX_SIZE_BYTES as usize)
    }

    /// Decodes canonical bytes, rejecting anything else with a typed error. The size is checked
    /// before any parsing.
    pub fn decode_with_limit(bytes: &[u8], max_size: usize) -> Result<Transaction, TxError> {
        if bytes.len() > max_size {
            return Err(TxError::TooLarge {
                size: bytes.len(),
                max: max_size,
            });
        }
        let fields = match cbor::decode(bytes)? {
            Value::Array(fields) => fields,
            _ => return Err(TxError::NotAnArray),
        };
        let f: [Value; 13] = fields
            .try_into()
            .map_err(|v: Vec<Value>| TxError::WrongArity(v.len()))?;
        let [chain_id, nonce, to, value, cycles_limit, cells_limit, mfc, mfb, tc, tb, al, payload, sig] =
            f;
        let tx = Transaction {
            chain_id: uint64(&chain_id, "chain_id")?,
            nonce: uint64(&nonce, "nonce")?,
            to: match to {
                Value::Null => None,
                other => Some(address(&other, "to")?),
            },
            value: uint128(&value, "value")?,
            cycles_limit: uint64(&cycles_limit, "cycles_limit")?,
            cells_limit: uint64(&cells_limit, "cells_limit")?,
            max_fee_per_cycle: uint128(&mfc, "max_fee_per_cycle")?,
            max_fee_per_cell: uint128(&mfb, "max_fee_per_cell")?,
            tip_per_cycle: uint128(&tc, "tip_per_cycle")?,
            tip_per_cell: uint128(&tb, "tip_per_cell")?,
            access_list: access_list(al)?,
            payload: match payload {
                Value::Bytes(b) => b,
                _ => return Err(field_type("payload", "byte string")),
            },
            signature: signature(sig)?,
        };
        Ok(tx)
    }
}

fn field_type(field: &'static str, expected: &'static str) -> TxError {
    TxError::FieldType { field, expected }
}

fn uint64(v: &Value, field: &'static str) -> Result<u64, TxError> {
    v.as_u64()
        .ok_or(field_type(field, "unsigned integer below 2^64"))
}

fn uint128(v: &Value, field: &'static str) -> Result<u128, TxError> {
    v.as_u128()
        .ok_or(field_type(field, "unsigned integer below 2^128"))
}

fn address(v: &Value, field: &'static str) -> Result<Address, TxError> {
    match v {
        Value::Bytes(b) => {
            let arr: [u8; 20] = b
                .as_slice()
                .try_into()
                .map_err(|_| TxError::AddressLength {
                    field,
                    len: b.len(),
                })?;
            Ok(Address(arr))
        }
        _ => Err(field_type(field, "20-byte address")),
    }
}

fn access_list(v: Value) -> Result<Option<Vec<AccessListEntry>>, TxError> {
    const EXPECTED: &str = "null or array of [address, [storage key bytes, ...]]";
    let entries = match v {
        Value::Null => return Ok(None),
        Value::Array(entries) => entries,
        _ => return Err(field_type("access_list", EXPECTED)),
    };
    let mut out = Vec::with_capacity(entries.len());
    for entry in entries {
        let Value::Array(pair) = entry else {
            return Err(field_type("access_list", EXPECTED));
        };
        let [addr, keys]: [Value; 2] = pair
            .try_into()
            .map_err(|_| field_type("access_list", EXPECTED))?;
        let Value::Array(keys) = keys else {
            return Err(field_type("access_list", EXPECTED));
        };
        let storage_keys = keys
            .into_iter()
            .map(|k| match k {
                Value::Bytes(b) => Ok(b),
                _ => Err(field_type("access_list", EXPECTED)),
            })
            .collect::<Result<_, _>>()?;
        out.push(AccessListEntry {
            address: address(&addr, "access_list")?,
            storage_keys,
        });
    }
    Ok(Some(out))
}

/// The dev authorizations' tags in the signature slot.
const IMPERSONATED: &str = "impersonated";
const SET_BALANCE: &str = "set_balance";

fn signature(v: Value) -> Result<Option<Authorization>, TxError> {
    const EXPECTED: &str = "null, [y_parity, r (32 bytes), s (32 bytes)], \
                            [\"impersonated\", address] or [\"set_balance\"]";
    let parts = match v {
        Value::Null => return Ok(None),
        Value::Array(parts) => parts,
        _ => return Err(field_type("signature", EXPECTED)),
    };
    match parts.as_slice() {
        [Value::Text(tag), from] if tag == IMPERSONATED => {
            return Ok(Some(Authorization::Impersonated(address(
                from,
                "signature",
            )?)))
        }
        [Value::Text(tag)] if tag == SET_BALANCE => return Ok(Some(Authorization::SetBalance)),
        _ => {}
    }
    let [parity, r, s]: [Value; 3] = parts
        .try_into()
        .map_err(|_| field_type("signature", EXPECTED))?;
    let y_parity = match parity.as_u64() {
        Some(p @ (0 | 1)) => p as u8,
        Some(p) => {
            return Err(TxError::Signature(SignatureError::BadParity(
                p.min(255) as u8
            )))
        }
        None => return Err(field_type("signature", EXPECTED)),
    };
    let word = |v: Value| -> Result<[u8; 32], TxError> {
        match v {
            Value::Bytes(b) => b
                .as_slice()
                .try_into()
                .map_err(|_| field_type("signature", "r and s of exactly 32 bytes")),
            _ => Err(field_type("signature", EXPECTED)),
        }
    };
    Ok(Some(Authorization::Signed(Signature {
        y_parity,
        r: word(r)?,
        s: word(s)?,
    })))
}

/// The Cowboy interpretation of a transaction's payload.
#[derive(Clone, Debug, PartialEq)]
pub enum Payload {
    /// Move value between accounts (empty payload with `to` set).
    Transfer,
    /// Deploy an actor (`to = null`).
    Deploy {
        /// Python source (canonicalised by the state transition before hashing).
        source: String,
        /// CREATE2-style salt.
        salt: Hash32,
        /// Arguments for the actor's init handler: array (positional) or map (keyword).
        init_args: Value,
    },
    /// Call a handler of an actor.
    Call {
        /// Handler name.
        handler: String,
        /// Arguments: array (positional) or map (keyword).
        args: Value,
    },
}

/// Why a payload cannot be interpreted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PayloadError {
    /// Not canonical CBOR.
    Cbor(CborError),
    /// Valid CBOR of the wrong shape; the message says which.
    Shape(&'static str),
}

impl fmt::Display for PayloadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PayloadError::Cbor(e) => write!(f, "payload is not canonical CBOR: {e}"),
            PayloadError::Shape(s) => write!(f, "payload: {s}"),
        }
    }
}

impl std::error::Error for PayloadError {}

impl Payload {
    /// Encodes the payload bytes for a transaction.
    pub fn encode(&self) -> Vec<u8> {
        match self {
            Payload::Transfer => Vec::new(),
            Payload::Deploy {
                source,
                salt,
                init_args,
            } => cbor::encode(&Value::Array(vec![
                Value::Text(source.clone()),
                Value::Bytes(salt.0.to_vec()),
                init_args.clone(),
            ])),
            Payload::Call { handler, args } => cbor::encode(&Value::Array(vec![
                Value::Text(handler.clone()),
                args.clone(),
            ])),
        }
    }

    /// Interprets a transaction's payload given whether it has a recipient.
    pub fn decode(has_recipient: bool, bytes: &[u8]) -> Result<Payload, PayloadError> {
        if has_recipient && bytes.is_empty() {
            return Ok(Payload::Transfer);
        }
        let v = cbor::decode(bytes).map_err(PayloadError::Cbor)?;
        let Value::Array(items) = v else {
            return Err(PayloadError::Shape("expected a CBOR array"));
        };
        let check_args = |a: &Value| match a {
            Value::Array(_) => Ok(()),
            Value::Map(entries) if entries.iter().all(|(k, _)| matches!(k, Value::Text(_))) => {
                Ok(())
            }
            _ => Err(PayloadError::Shape(
                "arguments must be an array or a map with text keys",
            )),
        };
        if has_recipient {
            let [handler, args]: [Value; 2] = items
                .try_into()
                .map_err(|_| PayloadError::Shape("a call is [handler, args]"))?;
            let Value::Text(handler) = handler else {
                return Err(PayloadError::Shape("handler name must be text"));
            };
            check_args(&args)?;
            Ok(Payload::Call { handler, args })
        } else {
            let [source, salt, init_args]: [Value; 3] = items
                .try_into()
                .map_err(|_| PayloadError::Shape("a deploy is [source, salt, init_args]"))?;
            let Value::Text(source) = source else {
                return Err(PayloadError::Shape("source must be text"));
            };
            let salt = match salt {
                Value::Bytes(b) if b.len() == 32 => {
                    let mut s = [0u8; 32];
                    s.copy_from_slice(&b);
                    Hash32(s)
                }
                _ => return Err(PayloadError::Shape("salt must be 32 bytes")),
            };
            check_args(&init_args)?;
            Ok(Payload::Deploy {
                source,
                salt,
                init_args,
            })
        }
    }
}
