//! The beacon's resharing rule: dealer logs on chain and the sharing they produce (issue 17
//! item 3, phase 2; the node README, "Resharing").
//!
//! The beacon's group key ([`crate::beacon`]) never changes once the chain has one; which
//! validators hold shares of it does. This module keeps the *current sharing* in state,
//! commonware's `feldman_desmedt::Output` (public polynomial and players), written at genesis
//! from a dealt genesis polynomial ([`apply_genesis`]) or by the chain's own key generation,
//! and replaces it when a reshare round succeeds.
//!
//! **A round per change of players.** An epoch's players are its active set's (the staking
//! actor's, taken at the previous boundary) `beacon_players_max` members with the most stake
//! ([`players_of`]; all of them in a set no larger): a round's logs and its check grow as
//! the square of its players, and a flood of minimum-stake validators stays out. Epoch
//! `e ≥ 1` runs round `e` when its players differ from the current ones: dealers = the
//! current players, players = the new ones' ed25519 keys (commonware's `Set` order),
//! previous = the current `Output` ([`round`]). The window is the epoch's blocks at offsets
//! `0..=E/2` (`E` = `epoch_blocks`; no round when `E < 2`).
//!
//! **The genesis key generation.** On a chain whose group is generated on chain
//! (`beacon_dkg = 1`), every epoch, from epoch 0 on, runs a round while there is no sharing
//! yet: dealers = players = the epoch's players, previous = none (commonware's DKG, each dealer's
//! secret its own random polynomial's constant, the group secret their sum that nobody
//! learns). Its outcome block records the group key and the beacon's first height
//! ([`crate::beacon::record_generated`]); from then on the chain reshares as above.
//!
//! **Logs in blocks.** A block in the window may carry signed dealer logs (the block's fifth
//! item, committed by the header's `dealings_root`). [`check_logs`] accepts a list only if
//! every log decodes, verifies for the round (`SignedDealerLog::check`: one ed25519
//! signature over a transcript that binds the round, its dealers and players and the
//! previous output), is signed by one of the round's dealers, and comes from a dealer with no
//! log recorded yet in this block or before; otherwise the block is invalid with a typed
//! [`ReshareError`]. [`record`] stores the logs. Bounded per block: at most
//! [`MAX_DEALER_LOGS`] logs of [`MAX_DEALER_LOG_BYTES`] in all, so at most 16 signature
//! checks and the decoding of at most 128 KiB of curve points (each G2 point a subgroup
//! check: ~1,360 at most) per block.
//!
//! **The outcome.** The `end_block` of the window's last block ([`end_block`]) runs
//! commonware's `observe` over the recorded logs. Its randomness (batch-verification
//! coefficients only: the outcome does not depend on it but with negligible probability) is
//! drawn from a transcript of the round and the logs, never a clock or the OS, so every
//! validator computes the same result. On success the new `Output` replaces the current one
//! (its group key checked against `beacon_group_key`); on failure the current one stays and
//! the next epoch whose set differs retries with a new round. Either way the outcome is
//! recorded ([`outcome`]). Cost, once per round: `observe` batch-verifies the `n` acks of
//! each log it selects (a quorum of dealers, all `n` when some are faulty: `n²` ed25519
//! signatures at worst) and one multi-scalar multiplication per log's reveals.
//!
//! State (the staking actor's storage, keys beside its own): `["reshare", "output"]` =
//! `[round, output]`, `["reshare", "logs"]` = `[round, [dealer, …]]` (the dealers whose log
//! the newest round with logs recorded, in arrival order), `["reshare", "log", dealer]` =
//! the log's bytes, `["reshare", "outcome"]` = `[round, 1 or 0]`. Only the newest round's
//! logs are kept: the first log of a new round deletes the previous round's.
//!
//! Deviation from the design: a log that verifies but that `observe` finds faulty proves its
//! dealer faulty (commonware's `FaultReason`); it is kept on chain but is not yet slashing
//! evidence.

use std::num::NonZeroU32;

use commonware_codec::{Copying, Decode, DecodeExt, Encode};
use commonware_cryptography::bls12381::dkg::feldman_desmedt as dkg;
use commonware_cryptography::bls12381::primitives::sharing::{Mode, ModeVersion, Sharing};
use commonware_cryptography::ed25519;
use commonware_cryptography::transcript::{Transcript, Version};
use commonware_utils::ordered::Set;
use commonware_utils::N3f1;
use cowboy_state::{Context, StateDb};
use cowboy_types::cbor::{self, Value};
use cowboy_types::genesis::{GenesisParams, BEACON_KEY_BYTES};
use cowboy_types::hash::keccak256_concat;
use cowboy_types::system::STAKING;
use cowboy_types::Event;

pub use cowboy_types::block::{MAX_DEALER_LOGS, MAX_DEALER_LOG_BYTES};

use crate::beacon::Variant;
use crate::state::{SResult, StateFailure};
use crate::system::staking::{raw, SetMember};
use crate::system::store::{get_value, put_value, Raw, Store};
use crate::system::{CallError, SystemState};

/// The namespace of every round's transcript (fixed for the chain's life, as commonware
/// requires).
pub const NAMESPACE: &[u8] = b"cowboy-beacon-reshare-v1";

/// Most members a sharing may have: a bound on decoding a stored output.
pub const MAX_MEMBERS: u32 = 1024;

/// A round's result: the public polynomial and its players.
pub type Output = dkg::Output<Variant, ed25519::PublicKey>;
/// A round's parameters, which every dealer, player and log check is bound to.
pub type Info = dkg::Info<Variant, ed25519::PublicKey>;
/// A dealer's signed log.
pub type SignedLog = dkg::SignedDealerLog<Variant, ed25519::PublicKey>;
/// The fault model: `t = 2f + 1` of `n = 3f + 1`, as the genesis group was dealt.
pub type Faults = N3f1;

/// Why a block's dealer logs are refused (the block is invalid).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReshareError {
    /// The block carries logs but its epoch runs no round (no beacon, epoch 0, or a set that
    /// did not change).
    NoRound {
        /// The block's epoch.
        epoch: u64,
    },
    /// The block is past the round's window.
    OutOfWindow {
        /// The block's height.
        height: u64,
        /// The window's last height.
        last: u64,
    },
    /// More logs than a block may carry.
    TooMany {
        /// The block's count.
        got: usize,
        /// [`MAX_DEALER_LOGS`].
        max: u64,
    },
    /// More bytes of logs than a block may carry.
    TooLarge {
        /// The block's sum.
        got: u64,
        /// [`MAX_DEALER_LOG_BYTES`].
        max: u64,
    },
    /// Log `index` is not a signed dealer log for the round's sizes.
    Decode {
        /// Its position in the block.
        index: usize,
    },
    /// Log `index`'s signature does not verify for round `round` (a forged log, or one of
    /// another round).
    BadSignature {
        /// Its position in the block.
        index: usize,
        /// The round it was checked for.
        round: u64,
    },
    /// Log `index` is signed by a key that is not one of the round's dealers.
    NotDealer {
        /// Its position in the block.
        index: usize,
    },
    /// Log `index` comes from a dealer whose log is recorded already (before or earlier in
    /// the block).
    Duplicate {
        /// Its position in the block.
        index: usize,
    },
}

impl std::fmt::Display for ReshareError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReshareError::NoRound { epoch } => {
                write!(
                    f,
                    "dealer logs in epoch {epoch}, which runs no reshare round"
                )
            }
            ReshareError::OutOfWindow { height, last } => write!(
                f,
                "dealer logs at height {height}, after the round's last height {last}"
            ),
            ReshareError::TooMany { got, max } => {
                write!(
                    f,
                    "{got} dealer logs, more than the {max} a block may carry"
                )
            }
            ReshareError::TooLarge { got, max } => write!(
                f,
                "{got} bytes of dealer logs, more than the {max} a block may carry"
            ),
            ReshareError::Decode { index } => {
                write!(f, "dealer log {index} does not decode")
            }
            ReshareError::BadSignature { index, round } => write!(
                f,
                "dealer log {index} is not signed for reshare round {round}"
            ),
            ReshareError::NotDealer { index } => {
                write!(
                    f,
                    "dealer log {index} is not signed by a dealer of the round"
                )
            }
            ReshareError::Duplicate { index } => write!(
                f,
                "dealer log {index} comes from a dealer whose log is recorded already"
            ),
        }
    }
}

/// A reshare round as the chain runs it (see the module docs).
#[derive(Clone)]
pub struct Round {
    /// The round number: the epoch it runs in.
    pub round: u64,
    /// Its parameters.
    pub info: Info,
    /// Its dealers: the current players (the epoch's players, for the genesis key
    /// generation).
    pub dealers: Set<ed25519::PublicKey>,
    /// Its players: the epoch's ([`players_of`]).
    pub players: Set<ed25519::PublicKey>,
    /// Whether it is the genesis key generation (no previous sharing: each dealer deals a
    /// fresh secret) rather than a reshare (each deals its share of the current sharing).
    pub generation: bool,
    /// The height whose `end_block` decides it (the window's last).
    pub last: u64,
    /// The sharing it reshares (`None` for the genesis key generation): kept so that the
    /// round can be written down and rebuilt ([`Round::encode`], [`Round::decode`]) once the
    /// chain has replaced it.
    pub previous: Option<Output>,
}

impl Round {
    /// The round's inputs (its number, the sharing it reshares, its players' keys) as
    /// canonical CBOR, for a node to keep beside its dealing journal: after the outcome block
    /// the chain's current sharing is the round's own, so the round can no longer be read
    /// from state, and a player restarted then rebuilds it from these ([`Round::decode`]).
    pub fn encode(&self) -> Vec<u8> {
        cbor::encode(&Value::Array(vec![
            Value::Uint(self.round),
            self.previous
                .as_ref()
                .map_or(Value::Null, |o| Value::Bytes(o.encode().to_vec())),
            Value::Array(
                self.players
                    .iter()
                    .map(|k| Value::Bytes(k.encode().to_vec()))
                    .collect(),
            ),
        ]))
    }

    /// Rebuild a round from [`Round::encode`]'s bytes by the rule that made it ([`round`]'s),
    /// so it is the same round; `None` for bytes that are not such a record.
    pub fn decode(params: &GenesisParams, bytes: &[u8]) -> Option<Round> {
        let Value::Array(items) = cbor::decode(bytes).ok()? else {
            return None;
        };
        let [Value::Uint(round), previous, Value::Array(players)] = &items[..] else {
            return None;
        };
        let previous = match previous {
            Value::Null => None,
            Value::Bytes(b) => Some(decode_output(b)?),
            _ => return None,
        };
        let keys = players
            .iter()
            .map(|k| match k {
                Value::Bytes(b) => <[u8; 32]>::try_from(&b[..]).ok(),
                _ => None,
            })
            .collect::<Option<Vec<_>>>()?;
        round_of(params, *round, previous, keys).ok().flatten()
    }

    /// The decoding bound of the round's messages and logs.
    pub fn max_participants(&self) -> NonZeroU32 {
        let n = self.dealers.len().max(self.players.len());
        NonZeroU32::new(u32::try_from(n).unwrap_or(u32::MAX)).unwrap_or(NonZeroU32::MIN)
    }
}

fn key(parts: &[&str]) -> Vec<u8> {
    cbor::encode(&Value::Array(
        parts
            .iter()
            .map(|p| Value::Text((*p).to_string()))
            .collect(),
    ))
}

fn log_key(dealer: &ed25519::PublicKey) -> Vec<u8> {
    cbor::encode(&Value::Array(vec![
        Value::Text("reshare".into()),
        Value::Text("log".into()),
        Value::Bytes(dealer.encode().to_vec()),
    ]))
}

fn corrupt(what: &str) -> StateFailure {
    StateFailure::Invariant(format!("corrupt reshare record: {what}"))
}

fn state_err(e: CallError) -> StateFailure {
    match e {
        CallError::State(s) => s,
        CallError::Fail(f) => StateFailure::Invariant(format!("reshare storage: {f:?}")),
    }
}

fn decode_output(bytes: &[u8]) -> Option<Output> {
    let max = NonZeroU32::new(MAX_MEMBERS)?;
    Output::decode_cfg(Copying(bytes), &(max, ModeVersion::v0())).ok()
}

fn decode_round_value(v: &Value) -> Option<(u64, &Value)> {
    match v {
        Value::Array(items) if items.len() == 2 => match &items[0] {
            Value::Uint(r) => Some((*r, &items[1])),
            _ => None,
        },
        _ => None,
    }
}

/// The `Output` standing for the genesis dealing of `sharing` to `members` (ed25519 keys;
/// share `i` is the `i`-th in ascending order, commonware's `Set` order): its players and
/// dealers are the members, none revealed, and its transcript summary, which binds the
/// first round to it, is `keccak256("cowboy-beacon-genesis" ‖ polynomial)` (a genesis
/// dealing has no transcript; this digest is one nobody chose). `None` if `sharing` does
/// not have one share per member or is not a quorum sharing (then no reshare could start
/// from it).
pub fn genesis_output(
    sharing: &Sharing<Variant>,
    members: &[ed25519::PublicKey],
) -> Option<Output> {
    let players = Set::from_iter_dedup(members.iter().cloned());
    let polynomial = sharing.encode();
    let summary = keccak256_concat(&[b"cowboy-beacon-genesis", &polynomial]);
    // `Output`'s fields are private: it is built through its own canonical decoding.
    let mut bytes = summary.0.to_vec();
    bytes.extend_from_slice(&polynomial);
    bytes.extend_from_slice(&players.encode());
    bytes.extend_from_slice(&players.encode());
    bytes.extend_from_slice(&Set::<ed25519::PublicKey>::from_iter_dedup([]).encode());
    let output = decode_output(&bytes)?;
    let n = u32::try_from(players.len()).ok()?;
    (sharing.total().get() == n && sharing.required() == output.quorum::<Faults>())
        .then_some(output)
}

/// Write the genesis sharing (round 0) into the state of block 0. A chain without a beacon
/// writes nothing.
pub fn apply_genesis(
    state: &mut dyn SystemState,
    params: &GenesisParams,
    output: &Output,
) -> SResult<()> {
    let mut s = raw(state, params, 0);
    store_output(&mut s, 0, output)
}

fn store_output(s: &mut Raw<'_>, round: u64, output: &Output) -> SResult<()> {
    let v = Value::Array(vec![
        Value::Uint(round),
        Value::Bytes(output.encode().to_vec()),
    ]);
    put_value(s, &key(&["reshare", "output"]), &v).map_err(state_err)
}

fn parse_output(v: &Value) -> SResult<(u64, Output)> {
    let (round, bytes) = decode_round_value(v).ok_or_else(|| corrupt("output"))?;
    let Value::Bytes(bytes) = bytes else {
        return Err(corrupt("output"));
    };
    Ok((
        round,
        decode_output(bytes).ok_or_else(|| corrupt("output"))?,
    ))
}

/// The current sharing in the block's state and the round it came from (0: genesis).
pub fn current(
    state: &mut dyn SystemState,
    params: &GenesisParams,
    height: u64,
) -> SResult<Option<(u64, Output)>> {
    let mut s = raw(state, params, height);
    get_value(&mut s, &key(&["reshare", "output"]))
        .map_err(state_err)?
        .map(|v| parse_output(&v))
        .transpose()
}

/// The round block `height` belongs to, if its epoch runs one (see the module docs).
pub fn round(
    state: &mut dyn SystemState,
    params: &GenesisParams,
    height: u64,
) -> SResult<Option<Round>> {
    let e = params.epoch_blocks;
    if !params.has_beacon() || e < 2 {
        return Ok(None);
    }
    let epoch = height / e;
    let previous = current(state, params, height)?.map(|(_, o)| o);
    if !runs_round(params, epoch, previous.as_ref()) {
        return Ok(None);
    }
    let Some(set) = crate::system::staking::set_at(state, params, height, epoch)? else {
        return Ok(None);
    };
    round_of(params, epoch, previous, players_of(params, &set))
}

/// The beacon's players among an epoch's `set`: the `beacon_players_max` members with the
/// most stake (ties to the lower ed25519 key), their ed25519 keys. The whole set when it is
/// no larger.
pub fn players_of(params: &GenesisParams, set: &[SetMember]) -> Vec<[u8; 32]> {
    let mut ranked: Vec<&SetMember> = set.iter().collect();
    ranked.sort_by(|a, b| {
        b.power
            .cmp(&a.power)
            .then_with(|| a.keys.ed25519.cmp(&b.keys.ed25519))
    });
    let max = usize::try_from(params.beacon_players_max.max(1)).unwrap_or(usize::MAX);
    ranked
        .into_iter()
        .take(max)
        .map(|m| m.keys.ed25519)
        .collect()
}

/// The round epoch `epoch` runs, read from the committed state of `db` (a node's view once
/// epoch `epoch − 1`'s last block is final there, before the epoch's outcome block is):
/// [`round`]'s rule over the same two records, the current sharing and the epoch's set, so
/// a node's session and the chain's checks agree on the round. Read after the outcome
/// block, the current sharing is the round's own and there is no round.
pub async fn committed_round<E: Context>(
    db: &StateDb<E>,
    params: &GenesisParams,
    epoch: u64,
) -> SResult<Option<Round>> {
    if !params.has_beacon() || params.epoch_blocks < 2 {
        return Ok(None);
    }
    let previous = committed_output(db).await?.map(|(_, o)| o);
    if !runs_round(params, epoch, previous.as_ref()) {
        return Ok(None);
    }
    let Some(set) = crate::system::staking::active_set(db, epoch).await? else {
        return Ok(None);
    };
    round_of(params, epoch, previous, players_of(params, &set))
}

/// Whether epoch `epoch` may run a round given the current sharing `previous`, before its
/// set is looked at: with a sharing, from epoch 1 on (a reshare); without one, only on a chain
/// that generates its group (the genesis key generation, from epoch 0 on).
fn runs_round(params: &GenesisParams, epoch: u64, previous: Option<&Output>) -> bool {
    match previous {
        Some(_) => epoch >= 1,
        None => params.beacon_by_dkg(),
    }
}

/// The rule of [`round`] and [`committed_round`], from the current sharing `previous` (none
/// before a generated group exists) and epoch `epoch`'s players (`keys`, their ed25519 keys,
/// [`players_of`]).
fn round_of(
    params: &GenesisParams,
    epoch: u64,
    previous: Option<Output>,
    keys: Vec<[u8; 32]>,
) -> SResult<Option<Round>> {
    let e = params.epoch_blocks;
    let mut players = Vec::with_capacity(keys.len());
    for k in keys {
        // The staking actor checks every key it registers; a set it kept decodes.
        let key = ed25519::PublicKey::decode(Copying(&k[..]))
            .map_err(|_| corrupt("a set member's key"))?;
        players.push(key);
    }
    let players = Set::from_iter_dedup(players);
    if players.is_empty() || previous.as_ref().is_some_and(|p| players == *p.players()) {
        return Ok(None);
    }
    let generation = previous.is_none();
    let dealers = previous
        .as_ref()
        .map_or_else(|| players.clone(), |p| p.players().clone());
    // Fails only for an inconsistent stored output (genesis_output refuses one): then no
    // round can run, the same on every node.
    let Ok(info) = Info::new::<Faults>(
        NAMESPACE,
        epoch,
        previous.clone(),
        Mode::NonZeroCounter,
        dkg::Reveal::V1,
        dealers.clone(),
        players.clone(),
    ) else {
        return Ok(None);
    };
    Ok(Some(Round {
        round: epoch,
        info,
        dealers,
        players,
        generation,
        last: epoch * e + e / 2,
        previous,
    }))
}

/// The logs recorded for the newest round that has any: `(round, [(dealer, log bytes)])`
/// in arrival order.
fn recorded(s: &mut Raw<'_>) -> SResult<Option<(u64, Vec<ed25519::PublicKey>)>> {
    let Some(v) = get_value(s, &key(&["reshare", "logs"])).map_err(state_err)? else {
        return Ok(None);
    };
    let (round, list) = decode_round_value(&v).ok_or_else(|| corrupt("logs"))?;
    let Value::Array(list) = list else {
        return Err(corrupt("logs"));
    };
    let mut dealers = Vec::with_capacity(list.len());
    for d in list {
        let Value::Bytes(b) = d else {
            return Err(corrupt("logs"));
        };
        dealers.push(ed25519::PublicKey::decode(Copying(&b[..])).map_err(|_| corrupt("logs"))?);
    }
    Ok(Some((round, dealers)))
}

/// A log that passed [`check_logs`]: its dealer and bytes.
#[derive(Clone, Debug)]
pub struct CheckedLog {
    /// The dealer that signed it.
    pub dealer: ed25519::PublicKey,
    /// Its encoding, as carried.
    pub bytes: Vec<u8>,
}

/// Logs that passed [`check_logs`] for round `round` (built only there).
#[derive(Clone, Debug, Default)]
pub struct CheckedLogs {
    round: u64,
    logs: Vec<CheckedLog>,
}

impl CheckedLogs {
    /// The logs, in block order.
    pub fn logs(&self) -> &[CheckedLog] {
        &self.logs
    }
}

/// Check one log against `round`, given the dealers whose logs count already (`seen`).
fn check_one(
    round: &Round,
    seen: &[ed25519::PublicKey],
    index: usize,
    bytes: &[u8],
) -> Result<CheckedLog, ReshareError> {
    let log = SignedLog::decode_cfg(Copying(bytes), &round.max_participants())
        .map_err(|_| ReshareError::Decode { index })?;
    let (dealer, _) = log.check(&round.info).ok_or(ReshareError::BadSignature {
        index,
        round: round.round,
    })?;
    if round.dealers.position(&dealer).is_none() {
        return Err(ReshareError::NotDealer { index });
    }
    if seen.contains(&dealer) {
        return Err(ReshareError::Duplicate { index });
    }
    Ok(CheckedLog {
        dealer,
        bytes: bytes.to_vec(),
    })
}

/// The dealers of `round` whose logs are recorded in the block's state.
fn recorded_for(s: &mut Raw<'_>, round: u64) -> SResult<Vec<ed25519::PublicKey>> {
    Ok(recorded(s)?
        .filter(|(r, _)| *r == round)
        .map(|(_, d)| d)
        .unwrap_or_default())
}

/// The rule for the dealer logs `logs` carried by block `height` (see the module docs):
/// reads the block's state only. `Ok(Err(_))`: the block is invalid.
pub fn check_logs(
    state: &mut dyn SystemState,
    params: &GenesisParams,
    height: u64,
    logs: &[Vec<u8>],
) -> SResult<Result<CheckedLogs, ReshareError>> {
    if logs.is_empty() {
        return Ok(Ok(CheckedLogs::default()));
    }
    if logs.len() as u64 > MAX_DEALER_LOGS {
        return Ok(Err(ReshareError::TooMany {
            got: logs.len(),
            max: MAX_DEALER_LOGS,
        }));
    }
    let bytes: u64 = logs.iter().map(|l| l.len() as u64).sum();
    if bytes > MAX_DEALER_LOG_BYTES {
        return Ok(Err(ReshareError::TooLarge {
            got: bytes,
            max: MAX_DEALER_LOG_BYTES,
        }));
    }
    let Some(round) = round(state, params, height)? else {
        let epoch = height / params.epoch_blocks.max(1);
        return Ok(Err(ReshareError::NoRound { epoch }));
    };
    if height > round.last {
        return Ok(Err(ReshareError::OutOfWindow {
            height,
            last: round.last,
        }));
    }
    let mut seen = recorded_for(&mut raw(state, params, height), round.round)?;
    let mut checked = Vec::with_capacity(logs.len());
    for (index, bytes) in logs.iter().enumerate() {
        match check_one(&round, &seen, index, bytes) {
            Ok(c) => {
                seen.push(c.dealer.clone());
                checked.push(c);
            }
            Err(e) => return Ok(Err(e)),
        }
    }
    Ok(Ok(CheckedLogs {
        round: round.round,
        logs: checked,
    }))
}

/// What a proposer of block `height` may carry of `candidates` (logs its node received, in
/// any order): the valid ones whose dealer has no log recorded, within the block's bounds,
/// the first per dealer. So a leader never makes its block invalid with a bad log.
pub fn select_logs(
    state: &mut dyn SystemState,
    params: &GenesisParams,
    height: u64,
    candidates: Vec<Vec<u8>>,
) -> SResult<Vec<Vec<u8>>> {
    if candidates.is_empty() {
        return Ok(Vec::new());
    }
    let Some(round) = round(state, params, height)?.filter(|r| height <= r.last) else {
        return Ok(Vec::new());
    };
    let mut seen = recorded_for(&mut raw(state, params, height), round.round)?;
    let mut out = Vec::new();
    let mut bytes = 0u64;
    for candidate in candidates {
        if out.len() as u64 >= MAX_DEALER_LOGS {
            break;
        }
        let size = candidate.len() as u64;
        if bytes + size > MAX_DEALER_LOG_BYTES {
            continue;
        }
        if let Ok(c) = check_one(&round, &seen, 0, &candidate) {
            seen.push(c.dealer);
            bytes += size;
            out.push(candidate);
        }
    }
    Ok(out)
}

/// Record checked logs in the block's state (the first log of a new round deletes the
/// previous round's).
pub fn record(
    state: &mut dyn SystemState,
    params: &GenesisParams,
    height: u64,
    checked: &CheckedLogs,
) -> SResult<()> {
    if checked.logs.is_empty() {
        return Ok(());
    }
    let mut s = raw(state, params, height);
    let mut dealers = match recorded(&mut s)? {
        Some((r, d)) if r == checked.round => d,
        Some((_, old)) => {
            for d in &old {
                s.del(&log_key(d)).map_err(state_err)?;
            }
            Vec::new()
        }
        None => Vec::new(),
    };
    for log in &checked.logs {
        s.put(&log_key(&log.dealer), &log.bytes)
            .map_err(state_err)?;
        dealers.push(log.dealer.clone());
    }
    let list = dealers
        .iter()
        .map(|d| Value::Bytes(d.encode().to_vec()))
        .collect();
    put_value(
        &mut s,
        &key(&["reshare", "logs"]),
        &Value::Array(vec![Value::Uint(checked.round), Value::Array(list)]),
    )
    .map_err(state_err)
}

/// The logs of the newest round with logs, in arrival order, with their dealers.
fn load_logs(s: &mut Raw<'_>) -> SResult<Option<(u64, Vec<Vec<u8>>)>> {
    let Some((round, dealers)) = recorded(s)? else {
        return Ok(None);
    };
    let mut logs = Vec::with_capacity(dealers.len());
    for d in &dealers {
        logs.push(
            s.get(&log_key(d))
                .map_err(state_err)?
                .ok_or_else(|| corrupt("a listed log is missing"))?,
        );
    }
    Ok(Some((round, logs)))
}

/// commonware's `Logs` of `round` from recorded log bytes (each checked again: the log
/// bytes are what the chain keeps, the checked form is not stored).
pub fn round_logs(
    round: &Round,
    logs: &[Vec<u8>],
) -> dkg::Logs<Variant, ed25519::PublicKey, Faults> {
    let mut out = dkg::Logs::new(round.info.clone());
    for bytes in logs {
        let Ok(log) = SignedLog::decode_cfg(Copying(&bytes[..]), &round.max_participants()) else {
            continue;
        };
        if let Some((dealer, log)) = log.check(&round.info) {
            out.record(dealer, log);
        }
    }
    out
}

/// The label of [`round_transcript`]'s noise.
pub const RNG_LABEL: &[u8] = b"observe";

/// The transcript whose noise (`.noise(RNG_LABEL)`) is the randomness `observe` and
/// `Player::finalize` use for round `round` over `logs`: a transcript of both, so every
/// node draws the same.
pub fn round_transcript(round: u64, logs: &[Vec<u8>]) -> Transcript {
    let mut t = Transcript::new(b"cowboy-beacon-reshare-observe", Version::V1);
    t.commit(&round.to_be_bytes()[..]);
    for l in logs {
        t.commit(&l[..]);
    }
    t
}

/// The `end_block` of block `height`: at the round's last height, decide it (see the module
/// docs).
pub fn end_block(
    state: &mut dyn SystemState,
    params: &GenesisParams,
    height: u64,
) -> SResult<Vec<Event>> {
    // Most blocks decide nothing: told from the height alone, before any state is read (the
    // stored output's decoding checks every point of its polynomial).
    let e = params.epoch_blocks;
    if !params.has_beacon() || e < 2 || height % e != e / 2 {
        return Ok(Vec::new());
    }
    let Some(round) = round(state, params, height)? else {
        return Ok(Vec::new());
    };
    if height != round.last {
        return Ok(Vec::new());
    }
    let mut s = raw(state, params, height);
    let logs = match load_logs(&mut s)? {
        Some((r, logs)) if r == round.round => logs,
        _ => Vec::new(),
    };
    let mut rng = round_transcript(round.round, &logs).noise(RNG_LABEL);
    let observed = dkg::observe::<Variant, ed25519::PublicKey, Faults>(
        &mut rng,
        round_logs(&round, &logs),
        &commonware_parallel::Sequential,
    );
    // Resharing keeps the secret (commonware checks it); checked against the chain's group
    // key anyway, since a different key would make every later beacon signature invalid. The
    // genesis key generation has no key to keep: its outcome is the chain's key.
    let existing = crate::beacon::schedule(state, params, height)?.map(|b| b.group_key);
    let output = observed.ok().and_then(|o| {
        let key: [u8; BEACON_KEY_BYTES] = o.public().public().encode().as_ref().try_into().ok()?;
        existing.is_none_or(|k| k == key).then_some((o, key))
    });
    let ok = output.is_some();
    let group_key = output.as_ref().map(|(_, key)| key.to_vec());
    let mut s = raw(state, params, height);
    if let Some((output, key)) = output {
        store_output(&mut s, round.round, &output)?;
        if existing.is_none() {
            crate::beacon::record_generated(state, params, height, key)?;
        }
    }
    let mut s = raw(state, params, height);
    put_value(
        &mut s,
        &key(&["reshare", "outcome"]),
        &Value::Array(vec![Value::Uint(round.round), Value::Uint(u64::from(ok))]),
    )
    .map_err(state_err)?;
    // Which round decided what: a generation (no group before it) or a reshare, and the
    // group key in force after it (unchanged by a reshare; none after a failed generation).
    let text = |t: &str| Value::Text(t.into());
    s.emit(
        "BeaconRoundDecided",
        Value::Map(vec![
            (text("round"), Value::Uint(round.round)),
            (text("generation"), Value::Bool(existing.is_none())),
            (text("success"), Value::Bool(ok)),
            (
                text("group_key"),
                group_key
                    .or(existing.map(|k| k.to_vec()))
                    .map_or(Value::Null, Value::Bytes),
            ),
        ]),
    )
    .map_err(state_err)?;
    Ok(s.events)
}

/// The newest decided round in the block's state and whether it succeeded.
pub fn outcome(
    state: &mut dyn SystemState,
    params: &GenesisParams,
    height: u64,
) -> SResult<Option<(u64, bool)>> {
    let mut s = raw(state, params, height);
    let Some(v) = get_value(&mut s, &key(&["reshare", "outcome"])).map_err(state_err)? else {
        return Ok(None);
    };
    match decode_round_value(&v) {
        Some((r, Value::Uint(ok))) => Ok(Some((r, *ok == 1))),
        _ => Err(corrupt("outcome")),
    }
}

/// The current sharing in the committed state of `db` (what a node verifies partials
/// against and finalizes from) and its round.
pub async fn committed_output<E: Context>(db: &StateDb<E>) -> SResult<Option<(u64, Output)>> {
    let Some(bytes) = db
        .storage(&STAKING.0, &key(&["reshare", "output"]))
        .await
        .map_err(StateFailure::State)?
    else {
        return Ok(None);
    };
    let v = cbor::decode(&bytes).map_err(|_| corrupt("output"))?;
    parse_output(&v).map(Some)
}

/// The recorded logs of the newest round with logs in the committed state of `db`.
pub async fn committed_logs<E: Context>(db: &StateDb<E>) -> SResult<Option<(u64, Vec<Vec<u8>>)>> {
    let read = |k: Vec<u8>| async move {
        db.storage(&STAKING.0, &k)
            .await
            .map_err(StateFailure::State)
    };
    let Some(bytes) = read(key(&["reshare", "logs"])).await? else {
        return Ok(None);
    };
    let v = cbor::decode(&bytes).map_err(|_| corrupt("logs"))?;
    let (round, list) = decode_round_value(&v).ok_or_else(|| corrupt("logs"))?;
    let Value::Array(list) = list else {
        return Err(corrupt("logs"));
    };
    let mut logs = Vec::with_capacity(list.len());
    for d in list {
        let Value::Bytes(d) = d else {
            return Err(corrupt("logs"));
        };
        let dealer = ed25519::PublicKey::decode(Copying(&d[..])).map_err(|_| corrupt("logs"))?;
        logs.push(
            read(log_key(&dealer))
                .await?
                .ok_or_else(|| corrupt("a listed log is missing"))?,
        );
    }
    Ok(Some((round, logs)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::system::staking::Keys;
    use cowboy_types::Address;

    fn member(i: u8, power: u128) -> SetMember {
        SetMember {
            address: Address([i; 20]),
            power,
            keys: Keys {
                bls: [i; 48],
                ed25519: [i; 32],
            },
        }
    }

    #[test]
    fn the_players_are_the_most_staked_members() {
        let set = vec![
            member(1, 10),
            member(2, 50),
            member(3, 10),
            member(4, 30),
            member(5, 10),
        ];
        let params = |max| GenesisParams {
            beacon_players_max: max,
            ..GenesisParams::default()
        };
        // The whole set when it fits, by stake, then the lower key among equal stakes.
        assert_eq!(players_of(&params(128), &set).len(), 5);
        assert_eq!(
            players_of(&params(3), &set),
            vec![[2; 32], [4; 32], [1; 32]]
        );
        assert_eq!(players_of(&params(1), &set), vec![[2; 32]]);
        // A zero cap (refused at genesis) still names a player.
        assert_eq!(players_of(&params(0), &set), vec![[2; 32]]);
    }

    /// The cap keeps a round finishable: a dealer's log for the most players the default
    /// allows fits well inside what one block carries (commonware's bound, which counts a
    /// commitment of `n` coefficients where a round's has `t`), and an uncapped set would
    /// not.
    #[test]
    fn a_log_for_the_most_players_fits_a_block() {
        let size = |n: u64| {
            let n = NonZeroU32::new(u32::try_from(n).expect("small")).expect("non-zero");
            dkg::SignedDealerLog::<Variant, ed25519::PublicKey>::max_encode_size(n) as u64
        };
        let most = GenesisParams::default().beacon_players_max;
        assert_eq!(size(most), 24_816);
        assert!(size(most) * 5 <= MAX_DEALER_LOG_BYTES);
        assert!(size(1_000) > MAX_DEALER_LOG_BYTES);
    }
}
