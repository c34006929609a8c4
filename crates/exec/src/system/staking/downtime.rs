//! Downtime (whitepaper "Slashing": extended downtime, more than half of the votes missed over
//! 1,000 blocks, jails without slashing), counted from the vote record blocks carry.
//!
//! **The record.** Block `n` (from height 3) may carry the notarize votes its proposer saw for
//! block `n − 2` ([`VOTE_RECORD_LAG`]), its grandparent: one proposal of that block (the
//! round's epoch, view and parent view, with the block's hash as the payload) and each vote's
//! signer index and Ed25519 signature. The grandparent rather than the parent because a
//! proposer builds as soon as the parent is notarized, when a quorum of its votes has arrived
//! but a slow member's may not have; one block later they have. The header commits to the
//! record (`votes_root`), so it is part of the block's hash.
//!
//! **Checked by every validator** ([`check_votes`], before anything runs): signers strictly
//! increasing (one vote per member: a duplicate is refused) and inside the set of the
//! grandparent's epoch (as simplex numbers it: keys in ascending order), holding at least a quorum
//! of its seats (what the notarization itself proved: votes weigh by stake, [`super::seats`]), then every signature, with commonware's own
//! `Notarize` verification under the chain's consensus namespace, so a record holds exactly
//! votes a validator's engine accepts. The structure is checked before any signature; the
//! signature work of a block is at most one check per member of the set. A failure makes the
//! block invalid, with the position or signer at fault.
//!
//! **Counted in `begin_block`**: every member of that set without a vote in the record missed
//! one ([`record_missed_votes`]). A block without a record counts nothing. Misses are counted
//! over a sliding window: the `W = downtime_window_blocks` heights up to the voted block's; a
//! member past `downtime_max_missed_bps` of `W` is jailed (no slash) and so left out of the
//! next epoch's set. Each absent member's record is `[last, count, bits]`: the height of its
//! last recorded miss, its misses in the window ending there, and a ring of `W` bits (bit `h
//! mod W` set when height `h` of the window was missed). A miss at height `v` clears the bits
//! of the heights after `last` and up to `v` (they held misses now outside the window; the
//! member did not miss those heights), sets `v`'s and counts it: exact, and work only for the
//! absent (at most `W` bits cleared per miss). `W` is at most [`MAX_DOWNTIME_WINDOW`], so a
//! record is at most 1,250 bytes of bits.
//!
//! **What a proposer can do.** It can leave out votes it saw, or the whole record (as in
//! Cosmos, where a proposer can omit precommits). Leaving out all is harmless to others; a
//! proposer cannot add a vote nobody signed. Proposers take turns, so a Byzantine minority of
//! the set (less than a third) proposes less than a third of the blocks and can make an honest
//! validator miss at most that share of a window: under the 50% threshold, with room for the
//! honest validator's own real misses. Jailing an honest validator takes proposers of more
//! than half of the blocks colluding; shielding a down one from jail, likewise, omitting
//! records in more than half of the blocks.

use commonware_codec::{Copying, DecodeExt};
use commonware_consensus::simplex::scheme::ed25519::Scheme as VoteScheme;
use commonware_consensus::simplex::types::{Notarize, Proposal};
use commonware_consensus::types::{Epoch, Round, View};
use commonware_cryptography::certificate::Attestation;
use commonware_cryptography::{ed25519, sha256};
use commonware_utils::ordered::Set;
use commonware_utils::{Participant, TryFromIterator};
use cowboy_types::cbor::Value;
use cowboy_types::genesis::GenesisParams;
use cowboy_types::system::STAKING;
use cowboy_types::{Address, Event, Hash32, VoteRecord};

use super::epoch::epoch_of;
use super::record::{corrupt, load, load_set, missed_key, SetMember};
use super::seats::{seat_quorum, seats, total_seats};
use super::slashing::{consensus_namespace, fixed_rng, jail};
use crate::state::{SResult, StateFailure};
use crate::system::store::{get_value, put_value, Raw};
use crate::system::{CallError, SystemState};

/// How many blocks back the record of a block looks: block `n` records votes for `n − 2`.
pub const VOTE_RECORD_LAG: u64 = 2;

/// The longest downtime window (`downtime_window_blocks`) a chain may set: a member's record
/// holds one bit per height of it (the node's genesis check refuses more).
pub const MAX_DOWNTIME_WINDOW: u64 = 10_000;

/// Why a block's vote record is invalid.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VotesError {
    /// A block below height 3 has no grandparent that was voted on.
    NoTarget {
        /// The block's height.
        height: u64,
    },
    /// The state holds no set for the voted block's epoch.
    NoSet {
        /// That epoch.
        epoch: u64,
    },
    /// The signer at this position is not above the one before it (a duplicate, or out of
    /// order).
    SignerOrder {
        /// Its position in the record.
        index: usize,
    },
    /// A signer index outside the set.
    UnknownSigner {
        /// The index.
        signer: u32,
        /// The set's size.
        members: usize,
    },
    /// Votes holding fewer seats than a quorum of the set's (`staking::seats`).
    BelowQuorum {
        /// Seats of the record's signers.
        got: u64,
        /// The quorum, in seats.
        need: u64,
    },
    /// A signature does not verify for its signer over the voted proposal.
    BadSignature {
        /// The signer.
        signer: u32,
    },
}

impl std::fmt::Display for VotesError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            VotesError::NoTarget { height } => write!(
                f,
                "block {height} carries a vote record, but only blocks from height 3 may"
            ),
            VotesError::NoSet { epoch } => write!(f, "no validator set for epoch {epoch}"),
            VotesError::SignerOrder { index } => write!(
                f,
                "vote {index}: signers must be strictly increasing (one vote per member)"
            ),
            VotesError::UnknownSigner { signer, members } => {
                write!(f, "signer {signer} is outside the set of {members}")
            }
            VotesError::BelowQuorum { got, need } => {
                write!(
                    f,
                    "votes holding {got} seats, fewer than the quorum of {need}"
                )
            }
            VotesError::BadSignature { signer } => write!(
                f,
                "the signature of signer {signer} does not verify over the voted proposal"
            ),
        }
    }
}

/// A vote record checked against its set (only [`check_votes`] and [`select_votes`] make one
/// with misses): the members it shows absent, for `begin_block` to count.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CheckedVotes {
    /// The height of the voted block.
    target_height: u64,
    /// Members of its set without a vote, in participant order.
    missed: Vec<Address>,
}

impl CheckedVotes {
    /// A block without a record: nothing to count.
    pub fn none() -> Self {
        Self::default()
    }

    /// The members the record shows absent.
    pub fn missed(&self) -> &[Address] {
        &self.missed
    }
}

/// An epoch's consensus participants as simplex numbers them: Ed25519 keys in ascending
/// order, with each one's validator address at the same index.
pub(super) struct Participants {
    pub keys: Set<ed25519::PublicKey>,
    pub addresses: Vec<Address>,
    /// Each participant's seats (its voting power, [`super::seats`]).
    pub seats: Vec<u32>,
}

impl Participants {
    /// The seats of `signers` (valid, distinct participant indexes) and the quorum of seats.
    fn seats_of(&self, signers: impl Iterator<Item = u32>) -> (u64, u64) {
        let got = signers
            .map(|s| u64::from(self.seats.get(s as usize).copied().unwrap_or(0)))
            .sum();
        (got, seat_quorum(total_seats(&self.seats)))
    }
}

/// The participants of a stored set (ordered by address) in simplex's order.
pub(super) fn participants(members: &[SetMember]) -> Result<Participants, CallError> {
    let mut keyed = members
        .iter()
        .map(|m| {
            ed25519::PublicKey::decode(Copying(&m.keys.ed25519[..]))
                .map(|k| (k, m.address, m.power))
                .map_err(|_| corrupt("set key"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    keyed.sort_by(|a, b| a.0.cmp(&b.0));
    let addresses = keyed.iter().map(|(_, a, _)| *a).collect();
    let powers: Vec<u128> = keyed.iter().map(|(_, _, p)| *p).collect();
    let keys =
        Set::try_from_iter(keyed.into_iter().map(|(k, _, _)| k)).map_err(|_| corrupt("set key"))?;
    Ok(Participants {
        keys,
        addresses,
        seats: seats(&powers),
    })
}

fn state_failure(e: CallError) -> StateFailure {
    match e {
        CallError::State(f) => f,
        CallError::Fail(f) => StateFailure::Invariant(format!("downtime tracking: {f:?}")),
    }
}

/// The notarize vote `signature` of participant `signer` over the proposal of block `target`
/// in `record`'s round, as commonware types it; `None` if the signature does not decode.
pub(super) fn notarize(
    record: &VoteRecord,
    target: &Hash32,
    signer: u32,
    signature: &[u8; 64],
) -> Option<Notarize<VoteScheme, sha256::Digest>> {
    let signature = ed25519::Signature::decode(Copying(&signature[..])).ok()?;
    Some(Notarize {
        proposal: Proposal::new(
            Round::new(Epoch::new(record.epoch), View::new(record.view)),
            View::new(record.parent_view),
            sha256::Digest(target.0),
        ),
        attestation: Attestation {
            signer: Participant::new(signer),
            signature: signature.into(),
        },
    })
}

/// Whether `vote` of `record` is a valid notarize of block `target` by its signer.
fn verifies(
    scheme: &VoteScheme,
    record: &VoteRecord,
    target: &Hash32,
    signer: u32,
    signature: &[u8; 64],
) -> bool {
    let Some(notarize) = notarize(record, target, signer, signature) else {
        return false;
    };
    notarize.verify(&mut fixed_rng(), scheme, &commonware_parallel::Sequential)
}

/// The voted block's set and its participants: `Ok(Err(_))` if the state holds none.
fn voted_set(
    state: &mut dyn SystemState,
    params: &GenesisParams,
    target_height: u64,
) -> SResult<Result<Participants, VotesError>> {
    let mut s = Raw {
        me: STAKING,
        state,
        params,
        height: target_height,
        events: Vec::new(),
    };
    let epoch = epoch_of(params, target_height);
    let Some(members) = load_set(&mut s, epoch).map_err(state_failure)? else {
        return Ok(Err(VotesError::NoSet { epoch }));
    };
    Ok(Ok(participants(&members).map_err(state_failure)?))
}

/// Check the vote record of the block at `height`, whose grandparent's hash is `target` (see
/// the module docs), on chain `chain_id`. `Ok(Err(_))`: the record, and so the block, is
/// invalid; nothing was written.
pub fn check_votes(
    state: &mut dyn SystemState,
    params: &GenesisParams,
    chain_id: u64,
    height: u64,
    target: &Hash32,
    record: &VoteRecord,
) -> SResult<Result<CheckedVotes, VotesError>> {
    let Some(target_height) = height.checked_sub(VOTE_RECORD_LAG).filter(|h| *h >= 1) else {
        return Ok(Err(VotesError::NoTarget { height }));
    };
    let set = match voted_set(state, params, target_height)? {
        Ok(set) => set,
        Err(e) => return Ok(Err(e)),
    };
    // The shape first: it costs nothing, and bounds the signature work by the set's size.
    let members = set.addresses.len();
    let mut previous: Option<u32> = None;
    for (index, vote) in record.votes.iter().enumerate() {
        if previous.is_some_and(|p| p >= vote.signer) {
            return Ok(Err(VotesError::SignerOrder { index }));
        }
        if vote.signer as usize >= members {
            return Ok(Err(VotesError::UnknownSigner {
                signer: vote.signer,
                members,
            }));
        }
        previous = Some(vote.signer);
    }
    let (got, need) = set.seats_of(record.votes.iter().map(|v| v.signer));
    if got < need {
        return Ok(Err(VotesError::BelowQuorum { got, need }));
    }
    let scheme = VoteScheme::verifier(&consensus_namespace(chain_id), set.keys);
    for vote in &record.votes {
        if !verifies(&scheme, record, target, vote.signer, &vote.signature) {
            return Ok(Err(VotesError::BadSignature {
                signer: vote.signer,
            }));
        }
    }
    Ok(Ok(absent(target_height, set.addresses, record)))
}

/// What a proposer puts in the block at `height` from the votes it collected (`candidate`,
/// in any order, possibly holding duplicates, strangers or bad signatures, as the engine
/// reports votes before checking them): the valid votes, one per signer, in signer order,
/// and what they count; `None` when they are not a quorum (the block then carries no record)
/// or the block has no grandparent to vote on. [`check_votes`] accepts the record returned.
pub fn select_votes(
    state: &mut dyn SystemState,
    params: &GenesisParams,
    chain_id: u64,
    height: u64,
    target: &Hash32,
    mut candidate: VoteRecord,
) -> SResult<Option<(VoteRecord, CheckedVotes)>> {
    let Some(target_height) = height.checked_sub(VOTE_RECORD_LAG).filter(|h| *h >= 1) else {
        return Ok(None);
    };
    let Ok(set) = voted_set(state, params, target_height)? else {
        return Ok(None);
    };
    let members = set.addresses.len();
    candidate.votes.sort_by_key(|v| v.signer);
    candidate.votes.dedup_by_key(|v| v.signer);
    candidate.votes.retain(|v| (v.signer as usize) < members);
    let quorate = |record: &VoteRecord| {
        let (got, need) = set.seats_of(record.votes.iter().map(|v| v.signer));
        got >= need
    };
    if !quorate(&candidate) {
        return Ok(None);
    }
    let scheme = VoteScheme::verifier(&consensus_namespace(chain_id), set.keys.clone());
    let votes = std::mem::take(&mut candidate.votes);
    candidate.votes = votes
        .into_iter()
        .filter(|v| verifies(&scheme, &candidate, target, v.signer, &v.signature))
        .collect();
    if !quorate(&candidate) {
        return Ok(None);
    }
    let checked = absent(target_height, set.addresses, &candidate);
    Ok(Some((candidate, checked)))
}

/// The members of a set (`addresses`, in participant order) without a vote in `record`,
/// whose signers are valid indexes.
fn absent(target_height: u64, addresses: Vec<Address>, record: &VoteRecord) -> CheckedVotes {
    let mut voted = vec![false; addresses.len()];
    for vote in &record.votes {
        voted[vote.signer as usize] = true;
    }
    let missed = addresses
        .into_iter()
        .zip(voted)
        .filter_map(|(a, v)| (!v).then_some(a))
        .collect();
    CheckedVotes {
        target_height,
        missed,
    }
}

/// Count one missed vote for each member `checked` shows absent, in `begin_block` of the
/// block at `height`.
pub fn count_missed(
    state: &mut dyn SystemState,
    params: &GenesisParams,
    height: u64,
    checked: &CheckedVotes,
) -> SResult<Vec<Event>> {
    if checked.missed.is_empty() {
        return Ok(Vec::new());
    }
    record_missed_votes(
        state,
        params,
        checked.target_height,
        height,
        &checked.missed,
    )
}

/// Count one missed vote on block `voted_height` for each validator of `missed` (members of
/// that block's epoch set that did not vote; others are ignored), in the block at `height`,
/// and jail any whose misses in the `downtime_window_blocks` window of `voted_height` pass
/// `downtime_max_missed_bps` of it. The work is one record per absent validator. Returns the
/// jail events.
pub fn record_missed_votes(
    state: &mut dyn SystemState,
    params: &GenesisParams,
    voted_height: u64,
    height: u64,
    missed: &[Address],
) -> SResult<Vec<Event>> {
    let mut s = Raw {
        me: STAKING,
        state,
        params,
        height,
        events: Vec::new(),
    };
    let r = (|| -> Result<(), CallError> {
        let set = load_set(&mut s, epoch_of(params, voted_height))?.unwrap_or_default();
        let window = params.downtime_window_blocks.clamp(1, MAX_DOWNTIME_WINDOW);
        let allowed = u128::from(window) * u128::from(params.downtime_max_missed_bps) / 10_000;
        for a in missed {
            if set.binary_search_by_key(&a.0, |m| m.address.0).is_err() {
                continue;
            }
            let mut misses = match get_value(&mut s, &missed_key(a))? {
                None => Misses::new(window),
                Some(v) => Misses::decode(&v, window).ok_or_else(|| corrupt("missed votes"))?,
            };
            // Each voted height is counted once: a later block never records an earlier one.
            if !misses.record(voted_height) {
                continue;
            }
            // A member of an earlier epoch's set may have withdrawn since: nothing to jail.
            let Some(v) = load(&mut s, a)? else {
                continue;
            };
            if u128::from(misses.count) > allowed && v.jailed_until.is_none() {
                jail(&mut s, a, "downtime")?;
            }
            put_value(&mut s, &missed_key(a), &misses.encode())?;
        }
        Ok(())
    })();
    r.map_err(state_failure)?;
    Ok(s.events)
}

/// A member's misses in the sliding window ending at its last recorded miss (module docs).
/// Stored as `[last, count, bits]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Misses {
    /// The window's length in heights (`downtime_window_blocks`; not stored).
    window: u64,
    /// The height of the last recorded miss (0 with `count` 0: none yet).
    pub last: u64,
    /// Misses among the window's heights up to `last`.
    pub count: u64,
    /// Bit `h mod window` set when height `h` of that window was missed.
    bits: Vec<u8>,
}

impl Misses {
    /// No miss yet, in a window of `window` heights (at least 1).
    pub fn new(window: u64) -> Misses {
        Misses {
            window,
            last: 0,
            count: 0,
            bits: vec![0; window.div_ceil(8) as usize],
        }
    }

    /// A stored record, if it is one of a window of `window` heights.
    pub fn decode(v: &Value, window: u64) -> Option<Misses> {
        let Value::Array(p) = v else { return None };
        let [Value::Uint(last), Value::Uint(count), Value::Bytes(bits)] = p.as_slice() else {
            return None;
        };
        let m = Misses {
            window,
            last: *last,
            count: *count,
            bits: bits.clone(),
        };
        let ones: u32 = m.bits.iter().map(|b| b.count_ones()).sum();
        (m.bits.len() as u64 == window.div_ceil(8) && u64::from(ones) == m.count).then_some(m)
    }

    /// The stored form.
    pub fn encode(&self) -> Value {
        Value::Array(vec![
            Value::Uint(self.last),
            Value::Uint(self.count),
            Value::Bytes(self.bits.clone()),
        ])
    }

    /// Set or clear height `h`'s bit; whether it was set.
    fn flip(&mut self, h: u64, on: bool) -> bool {
        let i = (h % self.window) as usize;
        let (byte, bit) = (i / 8, 1u8 << (i % 8));
        let was = self.bits[byte] & bit != 0;
        if on {
            self.bits[byte] |= bit;
        } else {
            self.bits[byte] &= !bit;
        }
        was
    }

    /// Count a miss at height `v`; false, and nothing changed, unless `v` is after the last
    /// recorded miss (heights are counted once, in order).
    pub fn record(&mut self, v: u64) -> bool {
        if self.count > 0 && v <= self.last {
            return false;
        }
        if self.count > 0 && v - self.last < self.window {
            // Heights last+1 ..= v were not missed: the misses their bits held, a window
            // earlier, leave it.
            for h in self.last + 1..=v {
                if self.flip(h, false) {
                    self.count -= 1;
                }
            }
        } else {
            self.bits.iter_mut().for_each(|b| *b = 0);
            self.count = 0;
        }
        self.flip(v, true);
        self.count += 1;
        self.last = v;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The misses of `heights` as the sliding count sees them after each, against a count
    /// of the window by brute force.
    #[test]
    fn the_window_slides_and_counts_exactly() {
        for window in [1u64, 3, 8, 10, 13] {
            let mut m = Misses::new(window);
            let mut seen: Vec<u64> = Vec::new();
            let mut h = 1u64;
            // A deterministic walk of gaps: runs of misses, short and long pauses.
            for step in 0..200u64 {
                h += [1, 1, 2, 1, 5, 1, 1, window, 3, 2 * window + 1][(step % 10) as usize];
                assert!(m.record(h));
                seen.push(h);
                let expected = seen.iter().filter(|&&x| x + window > h).count() as u64;
                assert_eq!(m.count, expected, "window {window}, miss at {h}");
                let back = Misses::decode(&m.encode(), window).expect("round trip");
                assert_eq!(back, m);
            }
            assert!(!m.record(h), "a height is counted once");
            assert!(!m.record(h - 1), "and never out of order");
        }
    }

    #[test]
    fn a_record_of_another_shape_is_refused() {
        let mut m = Misses::new(10);
        m.record(4);
        assert!(Misses::decode(&m.encode(), 20).is_none(), "another window");
        let mut bad = m.clone();
        bad.count = 2;
        assert!(
            Misses::decode(&bad.encode(), 10).is_none(),
            "a count its bits deny"
        );
        assert!(Misses::decode(&Value::Array(vec![Value::Uint(1), Value::Uint(1)]), 10).is_none());
    }
}
