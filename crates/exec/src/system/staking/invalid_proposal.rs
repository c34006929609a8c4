//! Invalid block proposals (whitepaper "Slashing": an invalid block proposal jails, without
//! slashing; issue 17 item 5), proven by the proposal's own signature.
//!
//! A validator that notarizes a proposal signs `(epoch, view, parent_view, payload)`, and the
//! payload is the block's header hash; the leader's notarize is its proposal. The evidence
//! comes in three forms, each one such vote in commonware's encoding first:
//! - *the header* (tag [`INVALID_HEADER`] of `submit_evidence`, then `[notarize, header,
//!   parent, votes]`): the header's bytes and, where the fault needs them, the parent's header
//!   bytes and the vote record's (else null): a fault of the header or the record, shown
//!   without the transactions;
//! - *one transaction* (tag [`INVALID_TRANSACTION`], then `[notarize, header, index, count,
//!   [sibling…], transaction]`): the header's bytes and one transaction's, with its Merkle path
//!   under the header's `tx_root` (`cowboy_proof_verifier::inclusion`): a bad transaction,
//!   or more transactions than a block holds (the root seals the list's length);
//! - *the block* (tag [`INVALID_PROPOSAL`], then `[notarize, block, parent]`): the block's
//!   canonical bytes and the parent's header bytes if needed, any fault at once, for a block
//!   that fits in a transaction.
//!
//! With the first two, every fault below is provable in a block of any size at the cost of
//! a header and at most one transaction: a leader cannot escape by padding an invalid block
//! past what one transaction carries (what the node's evidence uses: `ProposedBlock::exhibit`).
//!
//! The chain accepts any of them when the vote verifies for its signer in that epoch's set (as
//! double-sign evidence does) and the block is invalid *without state* ([`ProposalFault`]): its header
//! does not decode; it is not of the round's epoch; it breaks the header rule against its
//! parent (height, timestamp, randomness, basefees); it holds more transactions than a block
//! can; a transaction does not decode or fails the stateless transaction checks (chain id,
//! signature, payload, access list, limits); its vote record does not decode. Any signer of
//! such a vote is at fault, the leader first: an honest validator verifies before it votes,
//! so the chain need not know who led the view. The offender is jailed (the downtime path's
//! jail) once per (validator, epoch, view), under a key of its own so the same round's
//! equivocation is still slashed.
//!
//! **Only what the signature binds is evidence.** The vote signs the header hash alone, and
//! the header binds the body only through `tx_root` and `votes_root`. So every part shown
//! must be one the header commits to: the whole body exactly, a transaction by its path, a
//! vote record by `votes_root`, a parent by `parent_hash` (else the evidence is refused:
//! anyone can pair a valid header with another body), and a header whose roots commit to no
//! body the evidence can show is *not* punishable: it cannot be told from a forged pairing. Nor is the outer
//! framing (a re-encoding of a valid block): the block is parsed as strict canonical CBOR
//! and each part re-encoded, so only committed bytes are judged.
//!
//! **Cost.** Everything is linear in the evidence's bytes, which the submitter pays for as
//! calldata: one CBOR decode, a keccak of each part, at most one signature recovery per
//! transaction (charged `verify_signature_cycles` each, with the vote's, as soon as the
//! block is split into its parts and before any per-transaction work). The header form
//! costs the vote's check; the one-transaction form the vote's check and one recovery,
//! charged up front, and at most [`MAX_SIBLINGS`] hashes for the path.
//!
//! **Not evidence** (state-dependent, or beyond one transaction): a wrong state root, a
//! transaction that fails at its position (nonce, balance, lane room), an out-of-order block
//! (the order needs every sender recovered; left for now), a vote record that does not verify
//! against its set; and a transaction larger than `max_tx_size_bytes`, which no transaction
//! can carry (the node refuses such a block on arrival all the same).

use commonware_codec::{Copying, DecodeExt, Encode};
use commonware_consensus::simplex::scheme::ed25519::Scheme as VoteScheme;
use commonware_consensus::simplex::types::{Attributable, Notarize};
use commonware_consensus::{Epochable, Viewable};
use commonware_cryptography::sha256;
use cowboy_proof_verifier::inclusion::{prove, verify_inclusion, Inclusion, MAX_SIBLINGS};
use cowboy_types::block::{BlockHeader, DecodeError};
use cowboy_types::cbor::{self, Value};
use cowboy_types::genesis::GenesisParams;
use cowboy_types::{keccak256, Hash32, Transaction, TxError, Vote, VoteRecord};

use super::downtime::notarize;
use super::epoch::epoch_of;
use super::error::StakingError;
use super::record::invalid_proposal_key;
use super::slashing::{accepted, fixed_rng, voter};
use crate::apply::{check_stateless, TxInvalid};
use crate::header::{check_header_against_parent, BlockError, ChainRules, Parent};
use crate::system::{Call, CallError};

/// `submit_evidence`'s tag for a notarize vote of an invalid block, shown whole (see the
/// module docs).
pub const INVALID_PROPOSAL: u8 = 3;

/// `submit_evidence`'s tag for a notarize vote of an invalid block, shown by its header and
/// one transaction with its path under the header's `tx_root` (see the module docs).
pub const INVALID_TRANSACTION: u8 = 4;

/// `submit_evidence`'s tag for a notarize vote of an invalid block, shown by its header and,
/// where the fault needs them, its parent's header and its vote record (see the module docs).
pub const INVALID_HEADER: u8 = 5;

/// Why a proposed block is invalid, as far as the chain can check without state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProposalFault {
    /// The signed hash is of bytes that are not a block header.
    Header(DecodeError),
    /// The block's height is not in the epoch of the round it was proposed in.
    Epoch {
        /// The block's height.
        height: u64,
        /// Its epoch (`epoch_of(height)`).
        block_epoch: u64,
        /// The round's.
        round_epoch: u64,
    },
    /// The header breaks the rule against its parent (height, timestamp, randomness,
    /// basefees).
    Parent(BlockError),
    /// More transactions than any block can hold.
    TooManyTransactions {
        /// The block's count.
        got: u64,
        /// [`GenesisParams::max_txs_per_block`].
        max: u64,
    },
    /// A transaction does not decode.
    TransactionDecode {
        /// Its position.
        index: u64,
        /// Why.
        error: TxError,
    },
    /// A transaction fails the stateless checks.
    Transaction {
        /// Its position.
        index: u64,
        /// Why.
        reason: TxInvalid,
    },
    /// The vote record does not decode.
    Votes(DecodeError),
}

impl std::fmt::Display for ProposalFault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ProposalFault::Header(e) => write!(f, "the header does not decode: {e}"),
            ProposalFault::Epoch {
                height,
                block_epoch,
                round_epoch,
            } => write!(
                f,
                "height {height} is in epoch {block_epoch}, proposed in epoch {round_epoch}"
            ),
            ProposalFault::Parent(e) => write!(f, "against its parent: {e}"),
            ProposalFault::TooManyTransactions { got, max } => {
                write!(
                    f,
                    "{got} transactions, more than the {max} a block can hold"
                )
            }
            ProposalFault::TransactionDecode { index, error } => {
                write!(f, "transaction {index} does not decode: {error}")
            }
            ProposalFault::Transaction { index, reason } => {
                write!(f, "transaction {index} is invalid: {reason}")
            }
            ProposalFault::Votes(e) => write!(f, "the vote record does not decode: {e}"),
        }
    }
}

fn refused(why: &str) -> StakingError {
    StakingError::BadEvidence(why.into())
}

/// A proposed block split into its parts, its header checked against the signed payload
/// but not yet its body (only [`SplitBlock::split`] makes one): [`SplitBlock::transactions`]
/// says what checking the rest may cost before any of that per-transaction work is done.
#[derive(Debug, Clone)]
pub struct SplitBlock<'p> {
    header: Vec<u8>,
    transactions: Vec<Value>,
    votes: Option<Value>,
    parent: Option<&'p [u8]>,
}

impl<'p> SplitBlock<'p> {
    /// The block `block` (canonical bytes) proposed under `payload`, with its parent's header
    /// `parent` if given. Refused unless the header hashes to `payload`.
    pub fn split(
        payload: &Hash32,
        block: &[u8],
        parent: Option<&'p [u8]>,
    ) -> Result<SplitBlock<'p>, StakingError> {
        let value = cbor::decode(block).map_err(|e| {
            StakingError::BadEvidence(format!("the block is not canonical CBOR: {e}"))
        })?;
        let Value::Array(items) = value else {
            return Err(refused("the block is not an array"));
        };
        // The block's own shapes (`Block::encode`): `[header, txs]`, `[header, txs, votes]`,
        // `[header, txs, votes | null, beacon]`, `[header, txs, votes | null, beacon | null,
        // dealer logs]`. The beacon signature and the dealer logs are no stateless fault's
        // business (a block above the beacon's lag always carries the one, and a resharing
        // epoch's blocks the other), so they are taken as the shape allows and set aside.
        let shape = || {
            refused(
                "a block is [header, [transaction…]] followed by the vote record, beacon \
                 signature and dealer logs it carries",
            )
        };
        let mut items = items.into_iter();
        let (Some(header), Some(Value::Array(transactions))) = (items.next(), items.next()) else {
            return Err(shape());
        };
        let rest: Vec<Value> = items.collect();
        let votes = match rest.as_slice() {
            [] => None,
            [Value::Null] => return Err(shape()),
            [votes] => Some(votes.clone()),
            [votes, Value::Bytes(_)] | [votes, Value::Bytes(_) | Value::Null, Value::Array(_)] => {
                (*votes != Value::Null).then(|| votes.clone())
            }
            _ => return Err(shape()),
        };
        let header = cbor::encode(&header);
        if keccak256(&header) != *payload {
            return Err(refused("the block's header hash is not the signed payload"));
        }
        Ok(SplitBlock {
            header,
            transactions,
            votes,
            parent,
        })
    }

    /// How many transactions the block holds (each may cost a signature recovery).
    pub fn transactions(&self) -> usize {
        self.transactions.len()
    }

    /// The block as its signer committed to it: refused unless the body is exactly what the
    /// header commits to and the parent is the one it names.
    pub fn committed(self) -> Result<ProposedBlock, StakingError> {
        let transactions: Vec<Vec<u8>> = self.transactions.iter().map(cbor::encode).collect();
        let votes = self.votes.as_ref().map(cbor::encode);
        let header = BlockHeader::decode(&self.header);
        if let Ok(h) = &header {
            let hashes: Vec<Hash32> = transactions.iter().map(|t| keccak256(t)).collect();
            if cowboy_types::list_root(&hashes) != h.tx_root {
                return Err(refused(
                    "the transactions are not the ones the header's tx_root commits to",
                ));
            }
            // The whole body is shown, so a record the header commits to must be in it.
            if h.votes_root.is_some() && votes.is_none() {
                return Err(refused(
                    "the vote record is not the one the header's votes_root commits to",
                ));
            }
        }
        ProposedBlock::with_parts(self.header, header, transactions, votes, self.parent)
    }
}

/// A proposed block, split into the parts its header hash commits to (only
/// [`SplitBlock::committed`] and [`ProposedBlock::header_shown`] make one, so every part is
/// the proposer's).
#[derive(Debug, Clone)]
pub struct ProposedBlock {
    header: Result<BlockHeader, DecodeError>,
    /// The header's canonical bytes (their hash is the signed payload).
    header_bytes: Vec<u8>,
    /// Each transaction's canonical bytes (none when only the header is shown).
    transactions: Vec<Vec<u8>>,
    /// The vote record's canonical bytes.
    votes: Option<Vec<u8>>,
    /// The parent's header and hash.
    parent: Option<(BlockHeader, Hash32)>,
}

impl ProposedBlock {
    /// The header `header_bytes`, signed under `payload`, with the vote record and parent
    /// header shown beside it if the fault needs them; its transactions are not shown (no
    /// fault is found in them). Refused unless the header hashes to `payload`, the record is
    /// the one `votes_root` commits to and the parent is the one `parent_hash` names.
    pub fn header_shown(
        payload: &Hash32,
        header_bytes: Vec<u8>,
        votes: Option<Vec<u8>>,
        parent: Option<&[u8]>,
    ) -> Result<ProposedBlock, StakingError> {
        if keccak256(&header_bytes) != *payload {
            return Err(refused("the header hash is not the signed payload"));
        }
        let header = BlockHeader::decode(&header_bytes);
        ProposedBlock::with_parts(header_bytes, header, Vec::new(), votes, parent)
    }

    /// The block of `header` (decoded from `header_bytes`), `transactions`, and the vote
    /// record and parent header if shown: refused unless the record is the one `votes_root`
    /// commits to and the parent is the one `parent_hash` names (neither can be shown for a
    /// header that does not decode: it names neither).
    fn with_parts(
        header_bytes: Vec<u8>,
        header: Result<BlockHeader, DecodeError>,
        transactions: Vec<Vec<u8>>,
        votes: Option<Vec<u8>>,
        parent: Option<&[u8]>,
    ) -> Result<ProposedBlock, StakingError> {
        let h = match header {
            Ok(h) => h,
            Err(e) => {
                if parent.is_some() {
                    return Err(refused(
                        "a parent is given for a header that names none (it does not decode)",
                    ));
                }
                return Ok(ProposedBlock {
                    header: Err(e),
                    header_bytes,
                    transactions,
                    votes,
                    parent: None,
                });
            }
        };
        if let Some(v) = &votes {
            if h.votes_root != Some(keccak256(v)) {
                return Err(refused(
                    "the vote record is not the one the header's votes_root commits to",
                ));
            }
        }
        let parent = match parent {
            None => None,
            Some(bytes) => {
                let hash = keccak256(bytes);
                if hash != h.parent_hash {
                    return Err(refused("the parent header is not the block's parent_hash"));
                }
                let p = BlockHeader::decode(bytes)
                    .map_err(|e| StakingError::BadEvidence(format!("the parent header: {e}")))?;
                Some((p, hash))
            }
        };
        Ok(ProposedBlock {
            header: Ok(h),
            header_bytes,
            transactions,
            votes,
            parent,
        })
    }

    /// The first stateless fault of the block, proposed in a round of `round_epoch` on chain
    /// `chain_id` whose beacon is `beacon` (read from the parent's state or any later one:
    /// `crate::beacon::schedule`); `None` if it is valid as far as that can tell. On a dev
    /// chain the epoch is not checked: its one engine stays in epoch 0 for ever (node README,
    /// "Epochs").
    pub fn fault(
        &self,
        params: &GenesisParams,
        chain_id: u64,
        round_epoch: u64,
        beacon: Option<&crate::beacon::Schedule>,
    ) -> Option<ProposalFault> {
        let header = match &self.header {
            Ok(h) => h,
            Err(e) => return Some(ProposalFault::Header(e.clone())),
        };
        if let Some(fault) = epoch_fault(params, header, round_epoch) {
            return Some(fault);
        }
        if let Some((parent, hash)) = &self.parent {
            let rules = ChainRules { chain_id, params };
            let at = Parent {
                header: parent,
                hash: *hash,
            };
            if let Err(e) = check_header_against_parent(rules, at, header, beacon) {
                return Some(ProposalFault::Parent(e));
            }
        }
        if let Some(fault) = count_fault(params, self.transactions.len() as u64) {
            return Some(fault);
        }
        for (index, bytes) in self.transactions.iter().enumerate() {
            if let Some(fault) = transaction_fault(params, chain_id, index as u64, bytes) {
                return Some(fault);
            }
        }
        if let Some(votes) = &self.votes {
            if let Err(e) = VoteRecord::decode(votes) {
                return Some(ProposalFault::Votes(e));
            }
        }
        None
    }

    /// What evidence of `fault` (found by [`ProposedBlock::fault`]) shows of this block, with
    /// `parent` (the parent header's bytes) when the fault is against it: one transaction and
    /// its path for a fault of the transactions (the smallest, for too many of them), else
    /// the header with what the fault needs beside it. Either is small whatever the block's
    /// size.
    pub fn exhibit(&self, fault: &ProposalFault, parent: Option<&[u8]>) -> Exhibit {
        let index = match fault {
            ProposalFault::TransactionDecode { index, .. }
            | ProposalFault::Transaction { index, .. } => usize::try_from(*index).ok(),
            ProposalFault::TooManyTransactions { .. } => {
                (0..self.transactions.len()).min_by_key(|&i| self.transactions[i].len())
            }
            _ => None,
        };
        // Only a fault of the transactions needs their hashes (for the one path).
        let path = |i: usize| {
            let hashes: Vec<[u8; 32]> = self.transactions.iter().map(|t| keccak256(t).0).collect();
            Some((i, prove(&hashes, i)?))
        };
        match index.and_then(path) {
            Some((i, path)) => Exhibit::Transaction {
                header: self.header_bytes.clone(),
                transaction: self.transactions[i].clone(),
                path,
            },
            None => Exhibit::Header {
                header: self.header_bytes.clone(),
                parent: parent
                    .filter(|_| matches!(fault, ProposalFault::Parent(_)))
                    .map(<[u8]>::to_vec),
                votes: self
                    .votes
                    .clone()
                    .filter(|_| matches!(fault, ProposalFault::Votes(_))),
            },
        }
    }
}

/// The block is not of the round's epoch (never on a dev chain: its one engine stays in epoch
/// 0 for ever).
fn epoch_fault(
    params: &GenesisParams,
    header: &BlockHeader,
    round_epoch: u64,
) -> Option<ProposalFault> {
    let block_epoch = epoch_of(params, header.height);
    (!params.is_dev_chain() && block_epoch != round_epoch).then_some(ProposalFault::Epoch {
        height: header.height,
        block_epoch,
        round_epoch,
    })
}

/// A block of `count` transactions holds more than a block can.
fn count_fault(params: &GenesisParams, count: u64) -> Option<ProposalFault> {
    (count > params.max_txs_per_block()).then(|| ProposalFault::TooManyTransactions {
        got: count,
        max: params.max_txs_per_block(),
    })
}

/// Transaction `index` of a block, `bytes`, does not decode or fails the stateless checks.
fn transaction_fault(
    params: &GenesisParams,
    chain_id: u64,
    index: u64,
    bytes: &[u8],
) -> Option<ProposalFault> {
    let max_tx_bytes = usize::try_from(params.max_tx_size_bytes).unwrap_or(usize::MAX);
    match Transaction::decode_with_limit(bytes, max_tx_bytes) {
        Err(error) => Some(ProposalFault::TransactionDecode { index, error }),
        Ok(tx) => check_stateless(&tx, params, chain_id)
            .err()
            .map(|reason| ProposalFault::Transaction { index, reason }),
    }
}

/// What an invalid-proposal evidence shows of the block (see the module docs for the two
/// forms): made by [`ProposedBlock::exhibit`], turned into evidence by
/// [`invalid_proposal_evidence`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Exhibit {
    /// The block whole, and the parent's header if the fault is against it.
    Block {
        /// The block's canonical bytes.
        block: Vec<u8>,
        /// The parent's header bytes.
        parent: Option<Vec<u8>>,
    },
    /// The header, and the parent's header and the vote record where the fault needs them.
    Header {
        /// The header's canonical bytes.
        header: Vec<u8>,
        /// The parent's header bytes.
        parent: Option<Vec<u8>>,
        /// The vote record's bytes, as the header commits to them.
        votes: Option<Vec<u8>>,
    },
    /// The header and one transaction, with its path under the header's `tx_root`.
    Transaction {
        /// The header's canonical bytes.
        header: Vec<u8>,
        /// The transaction's bytes, as the header commits to them.
        transaction: Vec<u8>,
        /// Its position, the list's length and its siblings.
        path: Inclusion,
    },
}

impl Exhibit {
    /// The bytes it adds to the evidence (the vote and framing aside): what decides whether
    /// it fits in a transaction.
    pub fn size(&self) -> usize {
        match self {
            Exhibit::Block { block, parent } => block.len() + parent.as_ref().map_or(0, Vec::len),
            Exhibit::Header {
                header,
                parent,
                votes,
            } => {
                header.len()
                    + parent.as_ref().map_or(0, Vec::len)
                    + votes.as_ref().map_or(0, Vec::len)
            }
            Exhibit::Transaction {
                header,
                transaction,
                path,
            } => header.len() + transaction.len() + 32 * path.siblings.len(),
        }
    }
}

/// The evidence `submit_evidence` takes for participant `vote.signer`'s notarize of the block
/// whose header hash is `payload`, proposed in `round`'s epoch and views, showing `exhibit`.
/// `None` if the signature bytes cannot be a signature.
pub fn invalid_proposal_evidence(
    round: &VoteRecord,
    payload: &Hash32,
    vote: &Vote,
    exhibit: &Exhibit,
) -> Option<Vec<u8>> {
    let notarize = Value::Bytes(
        notarize(round, payload, vote.signer, &vote.signature)?
            .encode()
            .to_vec(),
    );
    let (tag, body) = match exhibit {
        Exhibit::Block { block, parent } => (
            INVALID_PROPOSAL,
            vec![
                notarize,
                Value::Bytes(block.clone()),
                parent.clone().map_or(Value::Null, Value::Bytes),
            ],
        ),
        Exhibit::Header {
            header,
            parent,
            votes,
        } => (
            INVALID_HEADER,
            vec![
                notarize,
                Value::Bytes(header.clone()),
                parent.clone().map_or(Value::Null, Value::Bytes),
                votes.clone().map_or(Value::Null, Value::Bytes),
            ],
        ),
        Exhibit::Transaction {
            header,
            transaction,
            path,
        } => (
            INVALID_TRANSACTION,
            vec![
                notarize,
                Value::Bytes(header.clone()),
                Value::Uint(path.index),
                Value::Uint(path.count),
                Value::Array(
                    path.siblings
                        .iter()
                        .map(|s| Value::Bytes(s.to_vec()))
                        .collect(),
                ),
                Value::Bytes(transaction.clone()),
            ],
        ),
    };
    Some([vec![tag], cbor::encode(&Value::Array(body))].concat())
}

/// The evidence's vote, and what it shows (after its tag).
struct Envelope {
    vote: Notarize<VoteScheme, sha256::Digest>,
    exhibit: Exhibit,
}

impl Envelope {
    fn decode(tag: u8, body: &[u8]) -> Result<Envelope, StakingError> {
        let shape = || {
            refused(match tag {
                INVALID_PROPOSAL => "expected [notarize, block, parent header or null]",
                INVALID_HEADER => {
                    "expected [notarize, header, parent header or null, vote record or null]"
                }
                _ => "expected [notarize, header, index, count, [sibling…], transaction]",
            })
        };
        let Value::Array(items) = cbor::decode(body).map_err(|_| shape())? else {
            return Err(shape());
        };
        let optional = |v: Value| match v {
            Value::Null => Ok(None),
            Value::Bytes(b) => Ok(Some(b)),
            _ => Err(shape()),
        };
        let mut items = items.into_iter();
        let Some(Value::Bytes(vote)) = items.next() else {
            return Err(shape());
        };
        let exhibit = match (tag, items.as_slice()) {
            (INVALID_PROPOSAL, [Value::Bytes(_), _]) => {
                let (Some(Value::Bytes(block)), Some(parent)) = (items.next(), items.next()) else {
                    return Err(shape());
                };
                let parent = optional(parent)?;
                Exhibit::Block { block, parent }
            }
            (INVALID_HEADER, [Value::Bytes(_), _, _]) => {
                let (Some(Value::Bytes(header)), Some(parent), Some(votes)) =
                    (items.next(), items.next(), items.next())
                else {
                    return Err(shape());
                };
                let (parent, votes) = (optional(parent)?, optional(votes)?);
                Exhibit::Header {
                    header,
                    parent,
                    votes,
                }
            }
            (
                INVALID_TRANSACTION,
                [Value::Bytes(_), Value::Uint(index), Value::Uint(count), Value::Array(siblings), Value::Bytes(_)],
            ) => {
                if siblings.len() > MAX_SIBLINGS {
                    return Err(refused("a path has at most 64 siblings"));
                }
                let siblings = siblings
                    .iter()
                    .map(|s| match s {
                        Value::Bytes(b) => <[u8; 32]>::try_from(&b[..]).map_err(|_| shape()),
                        _ => Err(shape()),
                    })
                    .collect::<Result<_, _>>()?;
                let path = Inclusion {
                    index: *index,
                    count: *count,
                    siblings,
                };
                let (Some(Value::Bytes(header)), Some(Value::Bytes(transaction))) =
                    (items.next(), items.nth(3))
                else {
                    return Err(shape());
                };
                Exhibit::Transaction {
                    header,
                    transaction,
                    path,
                }
            }
            _ => return Err(shape()),
        };
        let vote = Notarize::decode(Copying(&vote[..])).map_err(|e| {
            StakingError::BadEvidence(format!("the notarize vote does not decode: {e}"))
        })?;
        Ok(Envelope { vote, exhibit })
    }
}

/// The first stateless fault a one-transaction exhibit shows of the block under `payload`,
/// proposed in `round_epoch`: refused unless the header is the signed one and the transaction
/// is at its place in the list the header's `tx_root` commits to.
fn transaction_exhibit_fault(
    params: &GenesisParams,
    chain_id: u64,
    round_epoch: u64,
    payload: &Hash32,
    (header, transaction, path): (&[u8], &[u8], &Inclusion),
) -> Result<Option<ProposalFault>, StakingError> {
    if keccak256(header) != *payload {
        return Err(refused("the header hash is not the signed payload"));
    }
    let header = BlockHeader::decode(header).map_err(|e| {
        StakingError::BadEvidence(format!(
            "the header does not decode ({e}): show the block whole"
        ))
    })?;
    if verify_inclusion(&header.tx_root.0, &keccak256(transaction).0, path).is_err() {
        return Err(refused(
            "the transaction is not at that index of the list the header's tx_root commits to",
        ));
    }
    Ok(epoch_fault(params, &header, round_epoch)
        .or_else(|| count_fault(params, path.count))
        .or_else(|| transaction_fault(params, chain_id, path.index, transaction)))
}

/// `submit_evidence` of an invalid proposal, tag `tag` ([`INVALID_PROPOSAL`],
/// [`INVALID_TRANSACTION`] or [`INVALID_HEADER`]) then `body`: verify it (see the module docs), then jail the signer
/// without slashing. Charged `validator_call_cycles` and one signature check before any work,
/// then one more per transaction shown before any of them is checked, plus the set read.
pub fn submit(call: &mut Call<'_>, tag: u8, body: &[u8]) -> Result<Value, CallError> {
    let p = call.params;
    call.charge(
        p.validator_call_cycles
            .saturating_add(p.verify_signature_cycles),
    )?;
    let evidence = Envelope::decode(tag, body)?;
    let proposal = &evidence.vote.proposal;
    let payload = Hash32(proposal.payload.0);
    let (epoch, view) = (evidence.vote.epoch().get(), evidence.vote.view().get());
    // The beacon's schedule, which header rules need (a transaction's faults do not): it never
    // changes once recorded, so this block's state answers for the proposed block as its
    // parent's would.
    let beacon =
        |call: &mut Call<'_>| crate::beacon::schedule(&mut *call.state, p, call.env.height);
    let fault = match &evidence.exhibit {
        Exhibit::Block { block, parent } => {
            let block = SplitBlock::split(&payload, block, parent.as_deref())?;
            call.charge(
                p.verify_signature_cycles
                    .saturating_mul(block.transactions() as u64),
            )?;
            let beacon = beacon(call)?;
            block
                .committed()?
                .fault(p, call.env.chain_id, epoch, beacon.as_ref())
        }
        Exhibit::Header {
            header,
            parent,
            votes,
        } => {
            let beacon = beacon(call)?;
            ProposedBlock::header_shown(&payload, header.clone(), votes.clone(), parent.as_deref())?
                .fault(p, call.env.chain_id, epoch, beacon.as_ref())
        }
        Exhibit::Transaction {
            header,
            transaction,
            path,
        } => {
            call.charge(p.verify_signature_cycles)?;
            let shown = (&header[..], &transaction[..], path);
            transaction_exhibit_fault(p, call.env.chain_id, epoch, &payload, shown)?
        }
    };
    let signer = usize::from(evidence.vote.signer());
    let (offender, scheme) = voter(call, epoch, signer)?;
    if !evidence
        .vote
        .verify(&mut fixed_rng(), &scheme, &commonware_parallel::Sequential)
    {
        return Err(refused(
            "the notarize signature does not verify for its signer in that epoch's set",
        )
        .into());
    }
    if call
        .read(&invalid_proposal_key(&offender, epoch, view))?
        .is_some()
    {
        return Err(StakingError::AlreadyPunished.into());
    }
    let fault = fault.ok_or(StakingError::ValidProposal)?;
    call.write(&invalid_proposal_key(&offender, epoch, view), &[1])?;
    let fault = fault.to_string();
    let named = vec![(Value::Text("fault".into()), Value::Text(fault.clone()))];
    accepted(
        call,
        &offender,
        "invalid proposal",
        (epoch, view, signer),
        0,
        named,
    )?;
    Ok(Value::Text(fault))
}
