//! Catch-up from a state snapshot (issue 17, item 6): a validator more than an epoch behind
//! builds the state of a recent certified block from its peers (`cowboy_state`'s
//! [`StateDb::from_snapshot`](cowboy_state::StateDb::from_snapshot)) instead of re-executing
//! every block since its head, then catches up the rest (less than an epoch) as before
//! ([`crate::catchup`]).
//!
//! **What a node must trust, and how it gets there.** A node starts from genesis and knows
//! only epoch 0's set. A header's `state_root` is trusted once a finalization certificate of
//! its block verifies against the set of the block's epoch (ed25519, attributable: simplex
//! certificates need nothing else; the threshold BLS beacon is not part of finalization). So
//! the node needs the set of every epoch it walks through, and it executed none of them. Epoch
//! `e + 1`'s set is the staking actor's entry `["set", e + 1]`, written in the `end_block` of
//! `e`'s last block: it is *in the state that block's header commits to*. So each epoch's last
//! block (a *boundary*) yields, light-client style, the next epoch's set:
//!
//! 1. certificate of `e`'s last block, verified against set `e` (known) → its header is
//!    trusted, and so is its `state_root`;
//! 2. the entry `["set", e + 1]` with a proof against that `state_root` (the same QMDB
//!    key/value proof `cowboy_getStorage` serves, checked by `cowboy-proof-verifier`) → set
//!    `e + 1` is exactly what a node that executed `e` would read from its own state.
//!
//! **Why not a header field.** The brief's alternative (Tendermint's `NextValidatorsHash`: the
//! boundary header commits to the next set) is a consensus change to exec's header rule and
//! its pinned encodings. The state root already commits to the next set, so a proof against it
//! gives the same guarantee with no change to what a block means. The price: QMDB keeps no
//! history, so the proof can only be made while the boundary block's state is the latest
//! committed one. Every node therefore makes it *then*: when [`Chain::finalize`] commits an
//! epoch's last block it keeps a [`Boundary`] record beside the epoch's certificate
//! (`certificates/<e>.boundary`: the header, the set entry and its proof, and the state's
//! [`SnapshotTarget`](cowboy_state::SnapshotTarget) at that block). A node that walked epochs
//! keeps every record it verified, so it serves the walk in turn. A node whose data directory
//! predates this code has no records of older epochs; a walk that cannot get one falls back
//! to re-execution.
//!
//! **The walk** (`WantEpoch e` → `Epoch`, [`crate::sync`]). From the head's epoch `e₀` (its
//! set read from the node's own state, as catch-up does) the node asks for the boundary of
//! `e₀`, `e₀ + 1`, …, each answer checked by [`check_epoch`] against the set the previous
//! step proved, until no peer has the next one. It holds one set and one record at a time.
//! A peer's answer also names the newest boundary it has (a hint, unauthenticated: a lie
//! only costs a timeout).
//!
//! **When.** Only after a stall, once the certificate catch-up fetched for the head's epoch
//! (`WantTip`) is of that epoch's last block (the peers are past it: a node merely stalled
//! in its epoch pays nothing more), and only if the newest boundary a peer names is at least
//! one epoch past the head's, i.e. more than one epoch (`E` blocks, 3,600 at genesis
//! defaults: an hour at one block a second) of blocks to re-execute. Closer
//! than that, re-executing at most an epoch of blocks is cheap and keeps receipts and
//! indexes. The snapshot is always at a boundary `B`: the certificate and record of a
//! boundary are kept on disk by every node (a mid-epoch block's would not be), and epoch
//! `e + 1`'s engine starts from `B` as its floor, so the node has what its next engine needs.
//!
//! **The snapshot** (`WantOps` → `Ops`). The record's target is fetched against the trusted
//! `(B, state_root)` from the peer whose record verified, by commonware's sync engine through
//! [`PeerSource`]: every response is proven against the target's ops root and the built state
//! must have the header's root (the state crate's checks). Then the header of `B − 1` and block
//! `B` itself (`WantHeaders`, `Want`: authenticated by `B`'s hash), and
//! [`Chain::install_snapshot`] switches the chain to a new *generation* of stores (as
//! `dev_revert` does): the built state, a block store whose first block is `B`, and the hashes
//! of the blocks the beacon rule still needs below `B` ([`crate::chain::SnapshotBase`]). A
//! failed build leaves nothing (the state crate removes its partitions; the generation switch
//! is one atomic file write).
//!
//! **A source that lies is not asked again** ([`BadSources`]). A peer whose operations fail
//! verification ([`blames_source`]), or that sends a malformed sync message, an undecodable
//! header or block, or operations never asked of it while a snapshot is fetched
//! ([`Sync::watch`]), is remembered by its public key for [`BAD_SOURCE_AVOID`] (an hour) from
//! its last fault, at most [`MAX_BAD_SOURCES`] peers (the one whose time ends first is
//! forgotten), in the data directory's [`BAD_SOURCES_FILE`], so a restart does not go back to
//! a liar. It is not taken as a source while remembered, even if no other
//! peer holds the boundary (re-execution is always correct). After a failed build the same
//! catch-up asks every peer for the same boundary again and builds from the first other peer
//! whose record verifies and names the same block, at most [`MAX_SOURCE_TRIES`] sources; a
//! source that failed without lying (a timeout) is left out of that catch-up only. Without
//! another source, catch-up goes on by re-execution ([`SnapshotSyncError`]); the next stall
//! tries again.
//!
//! **After it.** The head is `B`; the next blocks execute on the snapshot state like any
//! other (`B` is their parent). Below `B` the node has no blocks, receipts, timer executions
//! or state history: RPC reads there are a typed error naming the snapshot height
//! (`ChainError::BeforeSnapshot`, `-32001` with `reason: "beforeSnapshot"`), and block `B`
//! itself is served without receipts (its receipts and timer executions are the same
//! error). Everything else the node derives from execution is in the state (timers, sets,
//! the beacon's sharing, downtime counts), so the orchestrator starts epoch `e_B + 1`'s
//! engine from `B` and the reshare task switches the beacon to the state's sharing.
//!
//! **Bounds and lies.** Requests share the sync channel's per-peer quota; `Ops` answers are
//! at most [`MAX_SNAPSHOT_RESPONSE_BYTES`](cowboy_state::snapshot::MAX_SNAPSHOT_RESPONSE_BYTES)
//! (inside the p2p message limit) and are taken only from the peer asked and only for a
//! request outstanding; anything else is dropped and counted ([`crate::sync::Sync::dropped`],
//! the `sync_dropped` metric).
//! A record that does not verify is refused with its reason ([`EpochError`]) and logged.
//! Serving costs a peer one file read per `WantEpoch` and one proven range per `WantOps`; to
//! keep the newest boundaries' targets servable, the chain prunes its state log no further
//! than the lower bound of the two newest boundary targets.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use commonware_codec::Encode;
use cowboy_exec::system::staking;
use cowboy_state::{
    Committed, FetchConfig, SnapshotError, SnapshotRequest, SnapshotSource, SnapshotTarget, StateDb,
};
use cowboy_types::block::{Block, BlockHeader};
use cowboy_types::genesis::GenesisParams;
use cowboy_types::system::STAKING;
use cowboy_types::Hash32;
use tokio::sync::{mpsc, Mutex, Notify};

use crate::catchup::{Target, TipError, ANSWER_TIMEOUT, TRIES};
use crate::chain::Chain;
use crate::consensus::{Runtime, Scheme};
use crate::sync::{Answer, Message, Peer, Sync};

/// How long a snapshot request waits for its answer before the source reports a failure
/// (the sync engine then gives up, and catch-up falls back to re-execution).
pub const OPS_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a peer that served a bad snapshot ([`BadSources`]) is not taken as a snapshot
/// source again: an hour, an epoch at genesis defaults, so the next stalls of a node far
/// behind go to other peers, and a peer that was only broken for a while serves again later.
pub const BAD_SOURCE_AVOID: Duration = Duration::from_secs(3_600);
/// Most peers remembered as bad snapshot sources; when full, the one whose time ends first
/// is forgotten.
pub const MAX_BAD_SOURCES: usize = 64;
/// Most sources one catch-up takes a snapshot from in turn: each that fails is left out of
/// the next try, so a peer answering first cannot keep a node on re-execution.
pub const MAX_SOURCE_TRIES: usize = 4;

/// The peers a node does not take a snapshot from (see the module docs): those whose
/// operations failed verification, or that sent malformed or unasked messages while a
/// snapshot was fetched, each for [`BAD_SOURCE_AVOID`] from its last fault, at most
/// [`MAX_BAD_SOURCES`] (keyed by the peer's public key). Kept in a file when given one
/// ([`Self::kept_in`]), rewritten whole on every marking, so a restarted node remembers; every
/// marking counts in the `snapshot_bad_sources` metric, which shows an operator that peers are
/// lying.
#[derive(Debug)]
pub struct BadSources {
    until: BTreeMap<Peer, SystemTime>,
    marked: commonware_runtime::telemetry::metrics::Counter,
    file: Option<PathBuf>,
}

/// The file in a node's data directory that keeps its [`BadSources`]: one line per peer, its
/// public key in hex and the Unix second its avoidance ends.
pub const BAD_SOURCES_FILE: &str = "bad-snapshot-sources";

impl BadSources {
    /// An empty memory whose markings count in `marked`, kept in memory only.
    pub fn counting(marked: commonware_runtime::telemetry::metrics::Counter) -> Self {
        BadSources {
            until: BTreeMap::new(),
            marked,
            file: None,
        }
    }

    /// The memory kept in `file`: what it holds now, and rewritten on every marking. It is
    /// advice, not state: a line that does not parse (a torn or edited file) is skipped with
    /// a warning, a missing file is an empty memory, and at most [`MAX_BAD_SOURCES`] peers
    /// are taken (those whose time ends last).
    pub fn kept_in(file: PathBuf, marked: commonware_runtime::telemetry::metrics::Counter) -> Self {
        let mut until = BTreeMap::new();
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            match parse_bad_source(line) {
                Some((peer, t)) => {
                    until.insert(peer, t);
                }
                None => {
                    tracing::warn!(file = %file.display(), line, "skipped a bad snapshot source line that does not parse")
                }
            }
        }
        while until.len() > MAX_BAD_SOURCES {
            let first = until
                .iter()
                .min_by_key(|(_, t)| **t)
                .map(|(p, _)| p.clone());
            if let Some(first) = first {
                until.remove(&first);
            }
        }
        BadSources {
            until,
            marked,
            file: Some(file),
        }
    }

    /// Write the memory to its file, if it has one: to a temporary file renamed over it, so
    /// a crash leaves the old list or the new one. A failure is logged, not fatal (the memory
    /// still holds).
    fn save(&self) {
        let Some(file) = &self.file else { return };
        let mut text = String::new();
        for (peer, until) in &self.until {
            let secs = until
                .duration_since(SystemTime::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs());
            text.push_str(&format!("{} {secs}\n", hex::encode(peer.encode())));
        }
        let tmp = file.with_extension("tmp");
        if let Err(e) = std::fs::write(&tmp, text).and_then(|()| std::fs::rename(&tmp, file)) {
            tracing::warn!(file = %file.display(), error = %e, "could not keep the bad snapshot sources");
        }
    }

    /// Remember `peer` as a bad source from `now` for [`BAD_SOURCE_AVOID`].
    pub fn mark(&mut self, peer: Peer, now: SystemTime) {
        self.marked.inc();
        self.until.retain(|_, until| *until > now);
        if !self.until.contains_key(&peer) && self.until.len() >= MAX_BAD_SOURCES {
            // Forget the one whose time ends first (the lowest key among equals).
            let first = self
                .until
                .iter()
                .min_by_key(|(_, until)| **until)
                .map(|(p, _)| p.clone());
            if let Some(first) = first {
                self.until.remove(&first);
            }
        }
        let until = now.checked_add(BAD_SOURCE_AVOID).unwrap_or(now);
        self.until.insert(peer, until);
        self.save();
    }

    /// Whether `peer` is not to be taken as a snapshot source at `now`.
    pub fn is_bad(&self, peer: &Peer, now: SystemTime) -> bool {
        self.until.get(peer).is_some_and(|until| *until > now)
    }

    /// How many peers are remembered (some may have served their time).
    pub fn len(&self) -> usize {
        self.until.len()
    }

    /// Whether no peer is remembered.
    pub fn is_empty(&self) -> bool {
        self.until.is_empty()
    }
}

/// One line of [`BAD_SOURCES_FILE`]: a public key in hex and a Unix second.
fn parse_bad_source(line: &str) -> Option<(Peer, SystemTime)> {
    use commonware_codec::DecodeExt;
    let (key, secs) = line.trim().split_once(' ')?;
    let bytes = hex::decode(key).ok()?;
    let peer = Peer::decode(commonware_codec::Copying(&bytes[..])).ok()?;
    let until = SystemTime::UNIX_EPOCH.checked_add(Duration::from_secs(secs.parse().ok()?))?;
    Some((peer, until))
}

/// Why a catch-up from a snapshot stopped after its walk (nothing was installed; catch-up
/// goes on by re-execution).
#[derive(Debug)]
pub enum SnapshotSyncError {
    /// The chain could not be read or written (its error).
    Chain(String),
    /// The sync task stopped.
    Closed,
    /// No peer sent the headers below the snapshot's block.
    NoHeaders {
        /// The snapshot's height.
        height: u64,
    },
    /// No peer sent the snapshot's block.
    NoBlock {
        /// Its height.
        height: u64,
    },
    /// No peer that is not a remembered bad source, nor already tried, sent a boundary of
    /// the snapshot's block that verifies.
    NoSource {
        /// The boundary's epoch.
        epoch: u64,
        /// Sources tried by this catch-up.
        tried: usize,
    },
    /// The state built from a source was refused, or the source failed; the last try's.
    Build(Box<SourceFailed>),
}

/// A source's snapshot that was refused, or that it failed to serve.
#[derive(Debug)]
pub struct SourceFailed {
    /// The source.
    pub peer: Peer,
    /// The state crate's reason.
    pub error: SnapshotError,
}

impl std::fmt::Display for SnapshotSyncError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Chain(e) => write!(f, "chain: {e}"),
            Self::Closed => write!(f, "sync stopped"),
            Self::NoHeaders { height } => {
                write!(f, "no peer sent the headers below block {height}")
            }
            Self::NoBlock { height } => write!(f, "no peer sent block {height}"),
            Self::NoSource { epoch, tried } => write!(
                f,
                "no other peer holds epoch {epoch}'s boundary ({tried} sources tried)"
            ),
            Self::Build(failed) => write!(
                f,
                "snapshot from {:?} refused: {}",
                failed.peer, failed.error
            ),
        }
    }
}

/// Whether a refused build is the source's fault: its operations or proofs did not verify,
/// or what it sent did not decode. A timeout, local storage or the (already verified) target
/// are not.
pub fn blames_source(error: &SnapshotError) -> bool {
    matches!(
        error,
        SnapshotError::InvalidResponse
            | SnapshotError::MalformedResponse(_)
            | SnapshotError::RootMismatch { .. }
            | SnapshotError::HeightMismatch { .. }
    )
}

/// What a node keeps of an epoch's last block when it commits it, beside the block's
/// certificate, so that a node that never executed the epoch can learn the next set and
/// fetch the state (see the module docs). Its encoding is four length-prefixed items (`u32`
/// big-endian length ‖ bytes): the header, the [`SnapshotTarget`], the staking entry
/// `["set", e + 1]`'s bytes, and their proof against the header's `state_root`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Boundary {
    /// The block's header.
    pub header: BlockHeader,
    /// The state after the block, as a snapshot target.
    pub target: SnapshotTarget,
    /// The next epoch's active set: the staking actor's entry, as stored.
    pub set: Vec<u8>,
    /// The entry's proof against `header.state_root` (`cowboy-proof-verifier`'s format).
    pub proof: Vec<u8>,
}

impl Boundary {
    /// The record's bytes (see the type's docs).
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        for item in [
            &self.header.encode()[..],
            &self.target.encode(),
            &self.set,
            &self.proof,
        ] {
            out.extend_from_slice(&(item.len() as u32).to_be_bytes());
            out.extend_from_slice(item);
        }
        out
    }

    /// Decode a record, refusing it whole if anything is off. Decoding checks nothing
    /// against anything trusted: [`check_epoch`] does.
    pub fn decode(bytes: &[u8]) -> Result<Boundary, EpochError> {
        let mut rest = bytes;
        let mut items = [&[][..]; 4];
        for item in &mut items {
            let (len, tail) = rest
                .split_first_chunk::<4>()
                .ok_or(EpochError::Malformed("truncated"))?;
            let len = u32::from_be_bytes(*len) as usize;
            if tail.len() < len {
                return Err(EpochError::Malformed("truncated"));
            }
            let (taken, tail) = tail.split_at(len);
            *item = taken;
            rest = tail;
        }
        if !rest.is_empty() {
            return Err(EpochError::Malformed("trailing bytes"));
        }
        let [header, target, set, proof] = items;
        Ok(Boundary {
            header: BlockHeader::decode(header).map_err(|_| EpochError::Malformed("header"))?,
            target: SnapshotTarget::decode(target)
                .map_err(|_| EpochError::Malformed("snapshot target"))?,
            set: set.to_vec(),
            proof: proof.to_vec(),
        })
    }
}

/// Why a peer's `Epoch` answer was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EpochError {
    /// The boundary record does not decode (what is wrong).
    Malformed(&'static str),
    /// The certificate does not decode for the epoch's set.
    Undecodable,
    /// The certificate is of another epoch.
    Epoch {
        /// The certificate's epoch.
        got: u64,
        /// The epoch asked for.
        expected: u64,
    },
    /// The certificate names another block than the record's header.
    Payload {
        /// The block it names.
        got: Hash32,
        /// The header's hash.
        expected: Hash32,
    },
    /// The header is not the epoch's last block.
    Height {
        /// The header's height.
        got: u64,
        /// The epoch's last height.
        expected: u64,
    },
    /// The certificate's signatures are not a quorum of the epoch's set.
    Signatures,
    /// The snapshot target is not of the header's block (height or root).
    Target,
    /// The set entry's proof does not verify against the header's state root (the
    /// verifier's reason).
    Proof(String),
    /// The proven entry is not an active set, is empty, or names a key twice.
    Set(String),
}

impl std::fmt::Display for EpochError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Malformed(what) => write!(f, "boundary record malformed: {what}"),
            Self::Undecodable => write!(f, "certificate does not decode for the epoch's set"),
            Self::Epoch { got, expected } => {
                write!(f, "certificate of epoch {got}, not {expected}")
            }
            Self::Payload { got, expected } => write!(
                f,
                "certificate names block {}, the header is {}",
                got.to_hex(),
                expected.to_hex()
            ),
            Self::Height { got, expected } => {
                write!(f, "header at height {got}, not the epoch's last {expected}")
            }
            Self::Signatures => write!(f, "certificate's signatures do not verify"),
            Self::Target => write!(f, "snapshot target is not of the certified block"),
            Self::Proof(e) => write!(f, "next set's proof does not verify: {e}"),
            Self::Set(e) => write!(f, "next set: {e}"),
        }
    }
}

/// An epoch's boundary whose certificate and record checked out: the block is final, its
/// header and state root are trusted, and `next` is the next epoch's set.
#[derive(Clone, Debug)]
pub struct Verified {
    /// The epoch.
    pub epoch: u64,
    /// The boundary record (its header is now trusted).
    pub boundary: Boundary,
    /// The certificate, as received (kept, to serve it on).
    pub certificate: Vec<u8>,
    /// Epoch `epoch + 1`'s participants.
    pub next: crate::seats::Members,
}

impl Verified {
    /// The boundary block as a catch-up target.
    pub fn target(&self) -> Target {
        Target {
            hash: self.boundary.header.hash(),
            height: Some(self.boundary.header.height),
            epoch: self.epoch,
            certificate: self.certificate.clone(),
        }
    }
}

/// The last height of epoch `epoch`.
pub fn last_height(params: &GenesisParams, epoch: u64) -> Option<u64> {
    epoch
        .checked_add(1)?
        .checked_mul(params.epoch_blocks.max(1))?
        .checked_sub(1)
}

/// Check a peer's `Epoch` answer for epoch `epoch`, whose set `scheme` verifies (see the
/// module docs): the certificate decodes for the set, is of `epoch`, names the record's
/// header, which is the epoch's last block, and its quorum of signatures verifies; the
/// record's snapshot target is of that block; the next epoch's set entry is proven against
/// the header's state root and decodes to a set of distinct keys.
pub fn check_epoch<R: rand_core::CryptoRng>(
    rng: &mut R,
    scheme: &Scheme,
    params: &GenesisParams,
    epoch: u64,
    certificate: &[u8],
    boundary: &[u8],
) -> Result<Verified, EpochError> {
    let boundary = Boundary::decode(boundary)?;
    let header = &boundary.header;
    // The boundary of another epoch: a peer's late answer to the walk's step before, not a
    // lie. Told by the (untrusted) header before the certificate is decoded, because a
    // certificate decodes only for its own epoch's set: when the set's size changed at the
    // boundary, an honest late answer would otherwise be refused as `Undecodable` (and
    // counted as dropped). Either way the answer is not taken.
    let header_epoch = staking::epoch_of(params, header.height);
    if header_epoch != epoch && staking::is_boundary(params, header.height) {
        return Err(EpochError::Epoch {
            got: header_epoch,
            expected: epoch,
        });
    }
    // The certificate checks catch-up makes of a tip, with "above the head and in the epoch"
    // narrowed to the epoch's last block: a head just below it leaves that one height.
    let last = last_height(params, epoch).unwrap_or(u64::MAX);
    let below = last.checked_sub(1).ok_or(EpochError::Height {
        got: header.height,
        expected: last,
    })?;
    crate::catchup::check_tip(rng, scheme, params, (epoch, below), certificate, header).map_err(
        |e| match e {
            TipError::Undecodable => EpochError::Undecodable,
            TipError::Epoch { got, expected } => EpochError::Epoch { got, expected },
            TipError::Payload { got, expected } => EpochError::Payload { got, expected },
            TipError::Height { got, .. } => EpochError::Height {
                got,
                expected: last,
            },
            TipError::Signatures => EpochError::Signatures,
        },
    )?;
    // Trusted from here: the header, and so its state root.
    if boundary.target.height != header.height || boundary.target.root != header.state_root.0 {
        return Err(EpochError::Target);
    }
    cowboy_state::verifier::verify_storage(
        &header.state_root.0,
        &STAKING.0,
        &staking::active_set_key(epoch + 1),
        Some(&boundary.set),
        &boundary.proof,
    )
    .map_err(|e| EpochError::Proof(format!("{e:?}")))?;
    let set = staking::decode_active_set(&boundary.set)
        .ok_or_else(|| EpochError::Set("not an active set".into()))?;
    let next = crate::epochs::participants_of(epoch + 1, set).map_err(EpochError::Set)?;
    Ok(Verified {
        epoch,
        boundary,
        certificate: certificate.to_vec(),
        next,
    })
}

/// A snapshot's operations from one peer over the sync channel (see the module docs): each
/// request goes to that peer alone, and its answer is taken only from it.
pub struct PeerSource<E: Runtime> {
    /// The runtime (for the answer timeout).
    pub context: E,
    /// The sync channel.
    pub sync: Sync,
    /// The peer whose boundary record checked out.
    pub peer: Peer,
    /// What it answered so far (shared with the caller, which logs it).
    pub fetched: Arc<Fetched>,
}

/// What a snapshot's source answered: requests answered and their bytes (the snapshot's
/// transfer, logged with the install).
#[derive(Debug, Default)]
pub struct Fetched {
    responses: std::sync::atomic::AtomicU64,
    bytes: std::sync::atomic::AtomicU64,
}

impl Fetched {
    /// Count one response of `len` bytes.
    fn add(&self, len: usize) {
        use std::sync::atomic::Ordering::Relaxed;
        self.responses.fetch_add(1, Relaxed);
        self.bytes
            .fetch_add(u64::try_from(len).unwrap_or(u64::MAX), Relaxed);
    }

    /// Responses answered.
    pub fn responses(&self) -> u64 {
        self.responses.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Their bytes.
    pub fn bytes(&self) -> u64 {
        self.bytes.load(std::sync::atomic::Ordering::Relaxed)
    }
}

/// Why a peer did not answer a snapshot request.
#[derive(Debug)]
pub enum SourceError {
    /// No answer within [`OPS_TIMEOUT`].
    Timeout,
    /// The sync task stopped.
    Closed,
}

impl std::fmt::Display for SourceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Timeout => write!(f, "no answer within {OPS_TIMEOUT:?}"),
            Self::Closed => write!(f, "sync stopped"),
        }
    }
}

impl<E: Runtime> SnapshotSource for PeerSource<E> {
    type Error = SourceError;

    async fn fetch(&self, request: SnapshotRequest) -> Result<Vec<u8>, SourceError> {
        let answer = self.sync.fetch_ops(self.peer.clone(), request);
        let bytes = tokio::select! {
            biased;
            a = answer => a.map_err(|_| SourceError::Closed)?,
            _ = self.context.sleep(OPS_TIMEOUT) => return Err(SourceError::Timeout),
        };
        self.fetched.add(bytes.len());
        Ok(bytes)
    }
}

/// What catch-up lends the snapshot path: its channel, its answer queue and the notification
/// of blocks arriving.
pub struct Catching<'a, E: Runtime> {
    /// The chain.
    pub chain: &'a Arc<Mutex<Chain<E>>>,
    /// The sync channel.
    pub sync: &'a Sync,
    /// Headers, certificates and boundary records from peers.
    pub answers: &'a mut mpsc::Receiver<(Peer, Answer)>,
    /// Notified when blocks joined the chain's pending set.
    pub arrived: &'a Notify,
    /// The peers not to take a snapshot from (kept by the caller across catch-ups).
    pub bad: &'a mut BadSources,
}

/// The snapshot installed: its block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Installed {
    /// The epoch whose last block it is.
    pub epoch: u64,
    /// Its height.
    pub height: u64,
    /// Its certificate.
    pub certificate: Vec<u8>,
}

/// Walk the epochs from the head's and, if the newest boundary peers prove is more than an
/// epoch ahead, build and install its state (see the module docs). `Ok(None)`: not that far
/// behind, or no peer proved a boundary. `Err`: a step failed after the walk (nothing
/// changed; catch-up goes on by re-execution).
pub async fn catch_up<E: Runtime>(
    context: &mut E,
    with: Catching<'_, E>,
) -> Result<Option<Installed>, SnapshotSyncError> {
    let Catching {
        chain,
        sync,
        answers,
        arrived,
        bad,
    } = with;
    let reader = {
        let c = chain.lock().await;
        if !c.snapshot_sync() {
            return Ok(None);
        }
        c.readers()
            .borrow()
            .clone()
            .ok_or_else(|| SnapshotSyncError::Chain("no reader published".into()))?
    };
    let params = reader.genesis.params.clone();
    let namespace = staking::consensus_namespace(reader.genesis.chain_id);
    let head = reader.head.header.height;
    let first = staking::epoch_of(&params, head + 1);
    let mut set = crate::epochs::participants(reader.as_ref(), first)
        .await
        .map_err(SnapshotSyncError::Chain)?;
    drop(reader);

    // The walk: one verified boundary per epoch, the newest kept, with the set that checks
    // it (to ask other peers for the same boundary).
    let mut newest: Option<(Verified, Peer, crate::seats::Members)> = None;
    let mut hint = first;
    let mut epoch = first;
    while epoch <= hint {
        let scheme = Scheme::verifier(&namespace, set.clone());
        // One try for the head's own epoch (most stalls are not far behind: a peer that
        // has the boundary answers at once), two for the next ones.
        let tries = if epoch == first { 1 } else { 2 };
        let Some((verified, peer, peer_newest)) = ask_epoch(
            context,
            sync,
            answers,
            &scheme,
            &params,
            epoch,
            tries,
            |_| true,
        )
        .await
        else {
            break;
        };
        if epoch == first && peer_newest <= first {
            // At most this epoch's boundary is ahead: re-executing is as cheap.
            return Ok(None);
        }
        hint = hint.max(peer_newest);
        {
            // Verified: keep it, so this node serves the walk in turn.
            let c = chain.lock().await;
            let kept = c
                .keep_certificate(epoch, &verified.certificate)
                .and_then(|()| c.keep_boundary_record(epoch, &verified.boundary.encode()));
            if let Err(e) = kept {
                tracing::warn!(epoch, error = %e, "cannot keep a verified boundary");
            }
        }
        let checks = std::mem::replace(&mut set, verified.next.clone());
        newest = Some((verified, peer, checks));
        epoch += 1;
    }
    let Some((verified, peer, checks)) = newest else {
        return Ok(None);
    };
    if verified.epoch <= first {
        return Ok(None);
    }
    let header = verified.boundary.header.clone();
    let (height, hash) = (header.height, header.hash());
    let began = context.current();
    tracing::info!(
        head,
        height,
        epoch = verified.epoch,
        "far behind: building the state of a certified block from a snapshot"
    );
    // Headers and the block are authenticated by the trusted hash: any peer may send them.
    let below = hashes_below(context, sync, answers, &header, &peer).await?;
    let block = fetch_block(context, chain, sync, arrived, hash, height, &peer).await?;

    // The state, from one source at a time: a peer remembered as bad is not taken, and each
    // failed source is left out of the next try, which asks every peer for the same
    // boundary again and takes the first other one that verifies.
    let scheme = Scheme::verifier(&namespace, checks);
    sync.watch();
    let built = build_from_sources(
        context,
        Sources {
            chain,
            sync,
            answers,
            bad,
            scheme: &scheme,
            params: &params,
        },
        (verified, peer),
    )
    .await;
    for offender in sync.unwatch() {
        bad.mark(offender, context.current());
    }
    let (state, verified, generation, transfer) = built?;
    chain
        .lock()
        .await
        .install_snapshot(
            generation,
            state,
            &block,
            below,
            (&verified.certificate, &verified.boundary.encode()),
        )
        .await
        .map_err(|e| SnapshotSyncError::Chain(e.to_string()))?;
    let ops = verified
        .boundary
        .target
        .size
        .saturating_sub(verified.boundary.target.lower);
    let millis = |d: Duration| u64::try_from(d.as_millis()).unwrap_or(u64::MAX);
    let since = |t: SystemTime| millis(context.current().duration_since(t).unwrap_or_default());
    tracing::info!(
        height,
        hash = %hash.to_hex(),
        ops,
        responses = transfer.fetched.responses(),
        bytes = transfer.fetched.bytes(),
        fetch_ms = transfer.took_ms,
        total_ms = since(began),
        "state snapshot installed"
    );
    Ok(Some(Installed {
        epoch: verified.epoch,
        height,
        certificate: verified.certificate,
    }))
}

/// What a successful build fetched from its source, and how long the build took.
struct Transfer {
    fetched: Arc<Fetched>,
    took_ms: u64,
}

/// What [`build_from_sources`] works with.
struct Sources<'a, E: Runtime> {
    chain: &'a Arc<Mutex<Chain<E>>>,
    sync: &'a Sync,
    answers: &'a mut mpsc::Receiver<(Peer, Answer)>,
    bad: &'a mut BadSources,
    /// The set that checks the boundary's certificate.
    scheme: &'a Scheme,
    params: &'a GenesisParams,
}

/// Build the state of `first`'s boundary from its peer, else from other peers that hold the
/// same boundary, at most [`MAX_SOURCE_TRIES`] in all (see [`catch_up`]): a source whose
/// operations do not verify is remembered as bad ([`BadSources`]); one that fails otherwise
/// (no answer in time) is only left out of this catch-up. Returns the state, the boundary as
/// its source sent it (the same block), the generation built into and what the build
/// fetched.
async fn build_from_sources<E: Runtime>(
    context: &mut E,
    with: Sources<'_, E>,
    first: (Verified, Peer),
) -> Result<(StateDb<E>, Verified, u64, Transfer), SnapshotSyncError> {
    let Sources {
        chain,
        sync,
        answers,
        bad,
        scheme,
        params,
    } = with;
    let epoch = first.0.epoch;
    let hash = first.0.boundary.header.hash();
    let mut candidate = Some(first);
    let mut tried: BTreeSet<Peer> = BTreeSet::new();
    let mut last = None;
    for _ in 0..MAX_SOURCE_TRIES {
        let now = context.current();
        for offender in sync.take_offenders() {
            tracing::warn!(peer = ?offender, "peer misbehaved during a snapshot fetch");
            bad.mark(offender, now);
        }
        let (verified, peer) = match candidate.take() {
            Some((v, p)) if !bad.is_bad(&p, now) => (v, p),
            _ => {
                let usable = |p: &Peer| !bad.is_bad(p, now) && !tried.contains(p);
                let found =
                    ask_epoch(context, sync, answers, scheme, params, epoch, 2, usable).await;
                match found {
                    // The same block: another certified block at that height would break
                    // the chain's safety, but a lie costs nothing to refuse.
                    Some((v, p, _)) if v.boundary.header.hash() == hash => (v, p),
                    _ => {
                        return Err(last.unwrap_or(SnapshotSyncError::NoSource {
                            epoch,
                            tried: tried.len(),
                        }))
                    }
                }
            }
        };
        tried.insert(peer.clone());
        tracing::info!(epoch, ?peer, "fetching a state snapshot");
        let slot = chain
            .lock()
            .await
            .snapshot_slot()
            .await
            .map_err(|e| SnapshotSyncError::Chain(e.to_string()))?;
        let trusted = Committed {
            height: verified.boundary.header.height,
            root: verified.boundary.header.state_root.0,
        };
        let fetched = Arc::new(Fetched::default());
        let began = context.current();
        let source = PeerSource {
            context: context.child("snapshot_source"),
            sync: sync.clone(),
            peer: peer.clone(),
            fetched: fetched.clone(),
        };
        match StateDb::from_snapshot(
            slot.context,
            &slot.config,
            trusted,
            &verified.boundary.target,
            source,
            FetchConfig::default(),
        )
        .await
        {
            Ok(state) => {
                let took = context.current().duration_since(began).unwrap_or_default();
                let transfer = Transfer {
                    fetched,
                    took_ms: u64::try_from(took.as_millis()).unwrap_or(u64::MAX),
                };
                return Ok((state, verified, slot.generation, transfer));
            }
            Err(error) => {
                if blames_source(&error) {
                    sync.drop_one();
                    bad.mark(peer.clone(), context.current());
                    tracing::warn!(
                        epoch, ?peer, %error,
                        "snapshot refused; its source is not asked again"
                    );
                } else {
                    tracing::warn!(epoch, ?peer, %error, "snapshot failed; trying another source");
                }
                last = Some(SnapshotSyncError::Build(Box::new(SourceFailed {
                    peer,
                    error,
                })));
            }
        }
    }
    Err(last.unwrap_or(SnapshotSyncError::NoSource {
        epoch,
        tried: tried.len(),
    }))
}

/// Ask every peer for epoch `epoch`'s boundary and return the first answer that verifies
/// from a peer `usable` accepts, with its sender and the newest epoch it says it has; `None`
/// after `tries` timeouts.
#[allow(clippy::too_many_arguments)]
async fn ask_epoch<E: Runtime>(
    context: &mut E,
    sync: &Sync,
    answers: &mut mpsc::Receiver<(Peer, Answer)>,
    scheme: &Scheme,
    params: &GenesisParams,
    epoch: u64,
    tries: usize,
    usable: impl Fn(&Peer) -> bool,
) -> Option<(Verified, Peer, u64)> {
    // Late answers to earlier requests would each cost a check.
    while answers.try_recv().is_ok() {}
    for _ in 0..tries {
        sync.ask(Message::WantEpoch { epoch });
        let deadline = context.current() + ANSWER_TIMEOUT;
        loop {
            let (peer, answer) = tokio::select! {
                biased;
                a = answers.recv() => a?,
                _ = context.sleep_until(deadline) => break,
            };
            let Answer::Epoch {
                newest,
                certificate,
                boundary,
            } = answer
            else {
                continue;
            };
            if !usable(&peer) {
                // Not checked: a peer left out costs no signature checks.
                continue;
            }
            match check_epoch(context, scheme, params, epoch, &certificate, &boundary) {
                Ok(verified) => return Some((verified, peer, newest)),
                // Another peer's late answer to the step before: not a lie.
                Err(e @ EpochError::Epoch { .. }) => {
                    tracing::debug!(epoch, ?peer, error = %e, "late boundary answer")
                }
                Err(e) => {
                    sync.drop_one();
                    tracing::warn!(epoch, ?peer, error = %e, "peer sent a boundary refused");
                }
            }
        }
    }
    None
}

/// The hashes of the blocks below `header` (trusted) that the beacon rule names for the
/// blocks after it, lowest first: its ancestors' headers, authenticated by parent hashes.
async fn hashes_below<E: Runtime>(
    context: &mut E,
    sync: &Sync,
    answers: &mut mpsc::Receiver<(Peer, Answer)>,
    header: &BlockHeader,
    peer: &Peer,
) -> Result<Vec<Hash32>, SnapshotSyncError> {
    // Blocks after `header` name signatures over blocks down to `height + 1 − LAG`, and
    // never over the genesis block.
    let lowest = (header.height + 1)
        .saturating_sub(cowboy_exec::beacon::BEACON_LAG)
        .max(1);
    if lowest >= header.height {
        return Ok(Vec::new());
    }
    // Headers `height` down to `lowest + 1`: each names its parent's hash.
    let above = lowest;
    let top = header.hash();
    while answers.try_recv().is_ok() {}
    for attempt in 0..TRIES {
        let to = Some(peer.clone()).filter(|_| attempt == 0);
        sync.ask_of(to, Message::WantHeaders { hash: top, above });
        let deadline = context.current() + ANSWER_TIMEOUT;
        loop {
            let (_, answer) = tokio::select! {
                biased;
                a = answers.recv() => a.ok_or(SnapshotSyncError::Closed)?,
                _ = context.sleep_until(deadline) => break,
            };
            let Answer::Headers(headers) = answer else {
                continue;
            };
            if headers.len() as u64 == header.height - lowest
                && crate::catchup::chains(&headers, &top, above)
            {
                let mut hashes: Vec<Hash32> = headers.iter().map(|h| h.parent_hash).collect();
                hashes.reverse();
                return Ok(hashes);
            }
            if headers.first().is_some_and(|h| h.hash() == top) {
                sync.drop_one();
            }
        }
    }
    Err(SnapshotSyncError::NoHeaders {
        height: header.height,
    })
}

/// Block `hash` (at `height`, trusted by its hash) from `peer`, then from every peer.
async fn fetch_block<E: Runtime>(
    context: &mut E,
    chain: &Arc<Mutex<Chain<E>>>,
    sync: &Sync,
    arrived: &Notify,
    hash: Hash32,
    height: u64,
    peer: &Peer,
) -> Result<Block, SnapshotSyncError> {
    for attempt in 0..TRIES {
        let to = Some(peer.clone()).filter(|_| attempt == 0);
        sync.ask_of(
            to,
            Message::Want {
                hash,
                above: height.saturating_sub(1),
            },
        );
        let deadline = context.current() + ANSWER_TIMEOUT;
        loop {
            // `Chain::receive` keeps only a block whose body its header commits to, under
            // the header's hash: one found under `hash` is the block.
            if let Some(block) = chain.lock().await.pending_block(&hash) {
                return Ok(block.clone());
            }
            tokio::select! {
                biased;
                _ = arrived.notified() => {}
                _ = context.sleep_until(deadline) => break,
            }
        }
    }
    Err(SnapshotSyncError::NoBlock { height })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::consensus::Digest;
    use commonware_consensus::simplex::types::{Finalization, Finalize, Proposal};
    use commonware_consensus::types::{Epoch, Round, View};
    use commonware_cryptography::ed25519;
    use commonware_cryptography::Signer as _;
    use commonware_parallel::Sequential;
    use commonware_runtime::{deterministic, Runner as _, Supervisor as _};
    use commonware_utils::ordered::Set;
    use commonware_utils::TryFromIterator as _;
    use cowboy_exec::BlockState;
    use cowboy_state::StateConfig;

    const NS: &[u8] = b"ns";

    fn keys(indexes: std::ops::Range<usize>) -> Vec<ed25519::PrivateKey> {
        indexes.map(crate::devnet::validator_key).collect()
    }

    fn set(keys: &[ed25519::PrivateKey]) -> Set<ed25519::PublicKey> {
        Set::try_from_iter(keys.iter().map(|k| k.public_key())).expect("distinct keys")
    }

    /// A finalization of `epoch` over `payload` signed by all of `keys`.
    fn certify(keys: &[ed25519::PrivateKey], epoch: u64, payload: Hash32) -> Vec<u8> {
        let participants = set(keys);
        let proposal = Proposal::new(
            Round::new(Epoch::new(epoch), View::new(7)),
            View::new(6),
            crate::consensus::digest(&payload),
        );
        let votes: Vec<Finalize<Scheme, Digest>> = keys
            .iter()
            .map(|k| {
                let scheme =
                    Scheme::signer(NS, participants.clone().into(), k.clone()).expect("member");
                Finalize::sign(&scheme, proposal.clone()).expect("signs")
            })
            .collect();
        let scheme = Scheme::verifier(NS, participants.into());
        let votes = commonware_utils::iter::NonEmpty::try_new(votes.iter()).expect("votes");
        Finalization::from_finalizes(&scheme, votes, &Sequential)
            .expect("assembles")
            .encode()
            .to_vec()
    }

    fn header(height: u64, state_root: Hash32) -> BlockHeader {
        BlockHeader {
            parent_hash: Hash32([1; 32]),
            height,
            timestamp_ms: 1_000 + height,
            proposer: cowboy_types::Address([3; 20]),
            state_root,
            tx_root: Hash32([5; 32]),
            receipts_root: Hash32([6; 32]),
            cycle_basefee: 1,
            cell_basefee: 1,
            cycles_used: 0,
            cells_used: 0,
            randomness: Hash32([7; 32]),
            votes_root: None,
            dealings_root: None,
        }
    }

    /// A state whose staking actor holds, at epoch 0's last block (1, with 2-block epochs),
    /// epoch 1's set: the four devnet validators. Its boundary record, made as
    /// `Chain::finalize` makes it.
    async fn boundary(context: deterministic::Context) -> (GenesisParams, Boundary) {
        let genesis = crate::devnet::genesis(4, "127.0.0.1:30333".parse().expect("addr"));
        let params = GenesisParams {
            epoch_blocks: 2,
            ..genesis.params.clone()
        };
        let mut state = StateDb::open(context.child("state"), &StateConfig::new("s"))
            .await
            .expect("open");
        let mut bs = BlockState::new(state.batch());
        staking::apply_genesis(&mut bs, &params, &genesis.staked_validators()).expect("genesis");
        let changes = bs.finish();
        state.commit(0, changes).await.expect("commit");
        let set0 = state
            .storage(&STAKING.0, &staking::active_set_key(0))
            .await
            .expect("read")
            .expect("epoch 0's set");
        let mut batch = state.batch();
        batch
            .set_storage(&STAKING.0, &staking::active_set_key(1), &set0)
            .await
            .expect("write");
        let changes = batch.finish();
        state.commit(1, changes).await.expect("commit");
        let target = state
            .snapshot_target()
            .await
            .expect("target")
            .expect("committed");
        let (set, proof) = state
            .prove_storage(&STAKING.0, &staking::active_set_key(1))
            .await
            .expect("prove");
        let root = Hash32(state.root().expect("root"));
        (
            params,
            Boundary {
                header: header(1, root),
                target,
                set: set.expect("present"),
                proof,
            },
        )
    }

    #[test]
    fn a_bad_source_is_avoided_for_its_time_and_the_memory_is_capped() {
        let peers: Vec<Peer> = keys(0..MAX_BAD_SOURCES + 1)
            .iter()
            .map(|k| k.public_key())
            .collect();
        let t0 = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000);
        let marked = commonware_runtime::telemetry::metrics::Counter::detached(
            commonware_runtime::telemetry::metrics::raw::Counter::default(),
        );
        let mut bad = BadSources::counting(marked.clone());
        assert!(bad.is_empty() && !bad.is_bad(&peers[0], t0));
        bad.mark(peers[0].clone(), t0);
        assert_eq!(marked.get(), 1, "each marking counts in the metric");
        assert!(bad.is_bad(&peers[0], t0));
        assert!(bad.is_bad(&peers[0], t0 + BAD_SOURCE_AVOID - Duration::from_secs(1)));
        assert!(
            !bad.is_bad(&peers[0], t0 + BAD_SOURCE_AVOID),
            "its time is served"
        );
        assert!(!bad.is_bad(&peers[1], t0));
        // Marked again later: the time runs from the last fault.
        bad.mark(peers[0].clone(), t0 + Duration::from_secs(10));
        assert!(bad.is_bad(&peers[0], t0 + BAD_SOURCE_AVOID));
        // Full: the one whose time ends first (peers[1], marked first now) is forgotten.
        for (i, p) in peers[1..MAX_BAD_SOURCES].iter().enumerate() {
            bad.mark(p.clone(), t0 + Duration::from_secs(i as u64));
        }
        assert_eq!(bad.len(), MAX_BAD_SOURCES);
        let later = t0 + Duration::from_secs(100);
        bad.mark(peers[MAX_BAD_SOURCES].clone(), later);
        assert_eq!(bad.len(), MAX_BAD_SOURCES);
        assert!(
            !bad.is_bad(&peers[1], later),
            "the earliest to end is forgotten"
        );
        assert!(bad.is_bad(&peers[0], later) && bad.is_bad(&peers[2], later));
        assert!(bad.is_bad(&peers[MAX_BAD_SOURCES], later));
        // Marking after every time has ended forgets them all.
        let much_later = later + BAD_SOURCE_AVOID * 2;
        bad.mark(peers[0].clone(), much_later);
        assert_eq!(bad.len(), 1);
    }

    /// The memory outlives a restart through its file; a torn or edited file costs only the
    /// lines that do not parse, and a missing one is an empty memory.
    #[test]
    fn bad_sources_kept_in_a_file_are_remembered_after_a_restart() {
        let peers: Vec<Peer> = keys(0..3).iter().map(|k| k.public_key()).collect();
        let t0 = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000);
        let counter = || {
            commonware_runtime::telemetry::metrics::Counter::detached(
                commonware_runtime::telemetry::metrics::raw::Counter::default(),
            )
        };
        let dir = tempfile::tempdir().expect("dir");
        let file = dir.path().join(BAD_SOURCES_FILE);
        let mut bad = BadSources::kept_in(file.clone(), counter());
        assert!(bad.is_empty(), "no file yet: nobody is remembered");
        bad.mark(peers[0].clone(), t0);
        bad.mark(peers[1].clone(), t0 + Duration::from_secs(5));
        drop(bad);

        let again = BadSources::kept_in(file.clone(), counter());
        assert_eq!(again.len(), 2);
        assert!(again.is_bad(&peers[0], t0) && again.is_bad(&peers[1], t0));
        assert!(!again.is_bad(&peers[2], t0));
        // The times kept are the ones marked (to the second).
        assert!(!again.is_bad(&peers[0], t0 + BAD_SOURCE_AVOID));
        assert!(again.is_bad(&peers[1], t0 + BAD_SOURCE_AVOID));

        // Garbage beside a good line: the good line is kept.
        let good = std::fs::read_to_string(&file).expect("kept");
        let first = good.lines().next().expect("a line").to_string();
        let torn = format!("zz 12\n{first}\n{} \nnot a line\n00 x\n", &first[..10]);
        std::fs::write(&file, torn).expect("write");
        let partial = BadSources::kept_in(file.clone(), counter());
        assert_eq!(partial.len(), 1);
        // An in-memory memory writes nothing.
        let mut loose = BadSources::counting(counter());
        loose.mark(peers[2].clone(), t0);
        assert_eq!(BadSources::kept_in(file, counter()).len(), 1);
    }

    #[test]
    fn only_a_source_s_own_faults_blame_it() {
        assert!(blames_source(&SnapshotError::InvalidResponse));
        assert!(blames_source(&SnapshotError::MalformedResponse("x".into())));
        assert!(!blames_source(&SnapshotError::Source("timeout".into())));
        assert!(!blames_source(&SnapshotError::BuildFailed("disk".into())));
    }

    #[test]
    fn a_boundary_record_round_trips_and_refuses_malformed_bytes() {
        deterministic::Runner::default().start(|context| async move {
            let (_, record) = boundary(context).await;
            let bytes = record.encode();
            assert_eq!(Boundary::decode(&bytes), Ok(record));
            for cut in 0..bytes.len() {
                assert!(Boundary::decode(&bytes[..cut]).is_err(), "cut at {cut}");
            }
            assert_eq!(
                Boundary::decode(&[&bytes[..], &[0]].concat()),
                Err(EpochError::Malformed("trailing bytes"))
            );
            let mut garbled = bytes.clone();
            garbled[4] ^= 0xff; // the header's first byte
            assert!(Boundary::decode(&garbled).is_err());
        })
    }

    #[test]
    fn an_epoch_boundary_is_accepted_only_if_certified_and_its_next_set_proven() {
        deterministic::Runner::default().start(|mut context| async move {
            let (params, record) = boundary(context.child("state")).await;
            let validators = keys(0..4);
            let scheme = Scheme::verifier(NS, set(&validators).into());
            let hash = record.header.hash();
            let good = certify(&validators, 0, hash);
            let bytes = record.encode();
            let verified = check_epoch(&mut context, &scheme, &params, 0, &good, &bytes)
                .expect("a genuine boundary");
            assert_eq!(
                verified.next.keys(),
                &set(&validators),
                "epoch 1's set, proven"
            );
            assert_eq!(verified.target().height, Some(1));

            let with = |f: &dyn Fn(&mut Boundary)| {
                let mut r = record.clone();
                f(&mut r);
                r
            };
            // The next set swapped for another value: its proof no longer matches.
            let other_set = with(&|r| r.set = b"\x80".to_vec());
            // A header of another root (certified as such): the proof is of another state.
            let other_root = with(&|r| {
                r.header.state_root = Hash32([9; 32]);
                r.target.root = [9; 32];
            });
            let other_root_certificate = certify(&validators, 0, other_root.header.hash());
            let mid_epoch = with(&|r| r.header.height = 0);
            let bad_target = with(&|r| r.target.height = 0);
            let cases: Vec<(Vec<u8>, Boundary, EpochError)> = vec![
                (
                    certify(&keys(10..14), 0, hash),
                    record.clone(),
                    EpochError::Signatures,
                ),
                (
                    certify(&validators, 1, hash),
                    record.clone(),
                    EpochError::Epoch {
                        got: 1,
                        expected: 0,
                    },
                ),
                (
                    good.clone(),
                    mid_epoch.clone(),
                    EpochError::Payload {
                        got: hash,
                        expected: mid_epoch.header.hash(),
                    },
                ),
                (
                    certify(&validators, 0, mid_epoch.header.hash()),
                    mid_epoch.clone(),
                    EpochError::Height {
                        got: 0,
                        expected: 1,
                    },
                ),
                (good.clone(), bad_target, EpochError::Target),
                (vec![0xff; 100], record.clone(), EpochError::Undecodable),
            ];
            for (certificate, r, error) in cases {
                assert_eq!(
                    check_epoch(&mut context, &scheme, &params, 0, &certificate, &r.encode())
                        .map(|v| v.epoch),
                    Err(error.clone()),
                    "{error}"
                );
            }
            for (certificate, r) in [
                (good.clone(), other_set),
                (other_root_certificate, other_root),
            ] {
                let refused =
                    check_epoch(&mut context, &scheme, &params, 0, &certificate, &r.encode());
                assert!(
                    matches!(refused, Err(EpochError::Proof(_))),
                    "{:?}",
                    refused.map(|v| v.epoch)
                );
            }
            assert_eq!(
                check_epoch(&mut context, &scheme, &params, 0, &good, &bytes[1..]).map(|v| v.epoch),
                Err(EpochError::Malformed("truncated"))
            );
        })
    }

    /// A genuine boundary of epoch 0 arriving while the walk checks epoch 1, whose set is
    /// smaller (a validator was jailed at the boundary): a late answer, not a refused one.
    /// (Over real processes the walk logged "peer sent a boundary refused … certificate does
    /// not decode for the epoch's set" for an honest peer's late answer.)
    #[test]
    fn a_late_boundary_is_late_even_when_the_next_set_is_smaller() {
        deterministic::Runner::default().start(|mut context| async move {
            let (params, record) = boundary(context.child("state")).await;
            let good = certify(&keys(0..4), 0, record.header.hash());
            let smaller = Scheme::verifier(NS, set(&keys(0..3)).into());
            assert_eq!(
                check_epoch(&mut context, &smaller, &params, 1, &good, &record.encode())
                    .map(|v| v.epoch),
                Err(EpochError::Epoch {
                    got: 0,
                    expected: 1
                })
            );
        })
    }
}
