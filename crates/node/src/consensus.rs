//! The chain's side of commonware simplex: [`Application`] is the engine's automaton (propose,
//! verify), relay (sending full blocks to peers) and reporter (finalizations).
//!
//! Consensus orders 32-byte digests; a digest is a block header's hash. The full block travels
//! on its own p2p channel ([`BLOCKS_CHANNEL`]): the proposer sends it to every validator when the
//! engine asks it to relay the proposal, and a validator keeps a verify request pending until
//! the block has arrived and its parent is executed here (finalized, or a pending block it
//! verified or built: [`Chain::extendable`]), then re-executes it on the parent's state
//! ([`Chain::verify`]). A leader likewise builds on a parent that is only notarized: simplex
//! extends the latest notarized block, and waiting for its finalization could wait forever. A finalization certificate makes [`Chain::finalize_through`] store and
//! commit the block and any ancestors not yet finalized here.
//!
//! **Block sync.** A validator that missed blocks (it started late, was offline, or lost the
//! relay) asks its peers for them ([`crate::sync`]): the finalizer keeps the newest
//! finalization it could not apply, asks for the first missing block on the way back to its
//! head together with up to [`crate::sync::MAX_RANGE_BLOCKS`] of its ancestors, and retries
//! whenever blocks arrive, so a lagging validator walks back to its head a range per round
//! trip and then finalizes forward. When the missing block is more than [`FAR_BLOCKS`] above
//! the head, walking back would overflow the pending set: the finalizer hands the
//! finalization to catch-up ([`crate::catchup`]: headers down, bodies up) instead. Each
//! finalization applied is recorded for peers catching up ([`crate::sync::Sync::certified`]),
//! and the one of an epoch's last block is kept on disk. A blocks-channel message is a tag
//! byte ([`MSG_BLOCK`]) and a block's canonical bytes.
//!
//! **When to propose** is [`Production`]'s decision (an interval, or on demand on a dev node).
//!
//! **A dev node** (`--dev`) is the only validator, so every block it finalizes is one it built
//! and persisted first. A block it does not have can then only be one a `dev_revert` removed
//! ([`Chain::revert_to`]): the engine's history still names it. On a dev node a proposal
//! whose parent is such a block builds on the chain's head instead, and a finalization of one
//! is ignored (there is no peer to fetch it from). Consensus orders the payloads as always;
//! the chain decides ancestry, as the block rule checks it. A network of several validators
//! keeps the strict rule: build on the engine's parent only, fetch what is missing.
//!
//! **Any commonware runtime.** The application, its tasks and the engine wiring
//! ([`crate::node::start_validator`]) are generic over the runtime ([`Runtime`]): they spawn
//! through its context and sleep and read time through its clock. `cowboyd` runs them on the
//! tokio runtime ([`Ctx`]); the simulations (`tests/devnet/sim.rs`) run the same code on
//! commonware's deterministic runtime and simulated network.
//!
//! **Evidence.** Commonware reports attributable faults (two notarizes or two finalizes for
//! different blocks in one view, a nullify and a finalize in one view) to the reporter; the
//! application logs them and keeps the last [`MAX_EVIDENCE`] (at most [`MAX_EVIDENCE_BYTES`]:
//! [`EvidenceLog`]), each in the bytes the staking actor's `submit_evidence` takes (its
//! kind's tag, then commonware's encoding). `cowboy_getEvidence` serves them, and anyone
//! can submit one in a transaction (`cowboy validator submit-evidence`), which the chain
//! verifies against the epoch's set.
//!
//! **Invalid proposals.** A proposal this validator refuses for a fault exec's rule can
//! show without state (`staking::ProposedBlock::fault`: not of the round's epoch, wrong
//! against its parent, a transaction with no valid signature or another chain's id, …) is
//! kept (`InvalidLog`) with its block's bytes, and the parent's header when the fault is
//! against it; each notarize of it the reporter sees, before or after the verdict (the
//! leader's, as a rule), becomes [`FaultKind::InvalidProposal`] evidence in the same log,
//! once per signer. A block whose evidence would not fit in a transaction is not kept:
//! nobody could submit it.
//!
//! **Votes for the downtime record.** The reporter also sees every notarize vote the engine
//! accepts from a peer or makes itself, before their signatures are checked (commonware
//! checks them lazily, in batches). [`VoteLog`] keeps them, one per signer per proposal, for
//! the last [`MAX_VOTE_ROUNDS`] proposals; a leader building block `n` hands the votes it holds
//! for block `n − 2` to exec's block rule, which keeps the valid ones if they are a quorum and
//! puts them in the block (exec's `staking::select_votes`; see the README, "Downtime").
//!
//! Signing scheme: ed25519 (attributable votes, no threshold setup), so there is no threshold
//! VRF seed. The randomness comes from the beacon beside consensus ([`crate::beacon`]): a
//! leader whose block must carry the group's signature over an earlier finalized block
//! waits until that block is finalized here and the signature recovered, then builds; it
//! never proposes without it (the block would be invalid), so if it cannot get it in time its
//! view times out and the next leader tries. Leader
//! election: round robin. With one validator (the devnet) the engine is exactly the one a
//! multi-validator network runs; only the participant set differs.
//!
//! **Epochs.** Each epoch has its own engine ([`crate::epochs`]); a round's context names its
//! epoch, and the application builds and accepts only blocks of that epoch (exec's
//! `staking::epoch_of`), so no engine finalizes past its epoch's last block.

use std::sync::Arc;
use std::time::Duration;

use commonware_actor::Feedback;
use commonware_codec::Encode;
use commonware_consensus::simplex::types::{Activity, Attributable, Context as RoundContext};
use commonware_consensus::simplex::Plan;
use commonware_consensus::{Automaton, CertifiableAutomaton, Epochable, Relay, Reporter, Viewable};
use commonware_cryptography::{ed25519, sha256};
use commonware_p2p::{Receiver, Recipients, Sender};
use cowboy_types::block::{Block, BlockHeader};
use cowboy_types::{Address, Hash32, Vote, VoteRecord};
use tokio::sync::{mpsc, oneshot, Mutex};

use crate::chain::{Chain, Verdict};
use crate::metrics::Metrics;
use crate::production::Production;

/// The signing scheme of votes and certificates: members hold seats by stake ([`crate::seats`]).
pub type Scheme = crate::seats::Seats;
/// Votes as the members sign them, one index per member: what evidence and vote records
/// carry and exec verifies.
pub type MemberScheme = commonware_consensus::simplex::scheme::ed25519::Scheme;
/// What consensus orders: a block header hash.
pub type Digest = sha256::Digest;
/// Runtime context of `cowboyd` (the tokio runtime).
pub type Ctx = commonware_runtime::tokio::Context;

/// What the node's consensus side needs of a commonware runtime: storage for the chain, a
/// clock, spawning, metrics, and randomness for the engine.
pub trait Runtime: cowboy_state::Context + rand_core::CryptoRng + Send + Sync + 'static {}

impl<T> Runtime for T where T: cowboy_state::Context + rand_core::CryptoRng + Send + Sync + 'static {}

/// Most pieces of evidence an [`Application`] keeps (the oldest go first).
pub const MAX_EVIDENCE: usize = 1024;
/// Most bytes of evidence it keeps (the oldest go first): evidence of an invalid proposal
/// carries the block, up to a transaction's size.
pub const MAX_EVIDENCE_BYTES: usize = 16 << 20;

/// Which attributable fault a piece of [`Evidence`] proves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FaultKind {
    /// Notarize votes for two different proposals in one view (an equivocating leader, or a
    /// validator voting for conflicting blocks).
    ConflictingNotarize,
    /// Finalize votes for two different proposals in one view.
    ConflictingFinalize,
    /// A nullify and a finalize vote in one view.
    NullifyFinalize,
    /// A notarize vote (the leader's proposal, or a vote for it) of a block that fails the
    /// block rule without state (exec's `staking::ProposalFault`).
    InvalidProposal,
}

/// Attributable misbehaviour commonware reported (see the module docs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Evidence {
    /// The fault.
    pub kind: FaultKind,
    /// The view it happened in.
    pub view: u64,
    /// The offender's index among the participants (the validators' keys in ascending
    /// order, as the engine numbers them).
    pub signer: u32,
    /// What the staking actor's `submit_evidence` takes: the kind's tag
    /// (`cowboy_exec::system::staking::CONFLICTING_NOTARIZE`, …), then commonware's encoding
    /// of the fault (both signed votes).
    pub bytes: Vec<u8>,
}

/// The evidence a validator's reporter kept (the last [`MAX_EVIDENCE`]), shared with the RPC.
#[derive(Clone, Default)]
pub struct EvidenceLog(Arc<std::sync::Mutex<std::collections::VecDeque<Evidence>>>);

impl EvidenceLog {
    /// Every piece kept, oldest first.
    pub fn list(&self) -> Vec<Evidence> {
        self.0
            .lock()
            .map(|e| e.iter().cloned().collect())
            .unwrap_or_default()
    }

    fn push(&self, evidence: Evidence) {
        if let Ok(mut kept) = self.0.lock() {
            kept.push_back(evidence);
            let mut total: usize = kept.iter().map(|e| e.bytes.len()).sum();
            while kept.len() > MAX_EVIDENCE || total > MAX_EVIDENCE_BYTES {
                total -= kept.pop_front().map_or(0, |e| e.bytes.len());
            }
        }
    }
}

/// Most proposals a [`VoteLog`] keeps votes for (the oldest rounds go first): far more than
/// the two blocks between a vote and the record that carries it.
pub const MAX_VOTE_ROUNDS: usize = 1024;

/// A proposal as a notarize vote signs it: epoch, view, payload (a block hash), parent view.
type ProposalKey = (u64, u64, Hash32, u64);

/// Ed25519 signatures by signer index.
type Signatures = std::collections::BTreeMap<u32, [u8; 64]>;

/// The notarize votes the reporter saw, by proposal and signer (see the module docs). At most
/// one vote per signer per proposal (the engine admits one notarize per signer per view), for
/// at most [`MAX_VOTE_ROUNDS`] proposals: bounded by the set's size.
#[derive(Clone, Default)]
pub struct VoteLog(Arc<std::sync::Mutex<std::collections::BTreeMap<ProposalKey, Signatures>>>);

impl VoteLog {
    fn push(&self, proposal: ProposalKey, signer: u32, signature: [u8; 64]) {
        if let Ok(mut kept) = self.0.lock() {
            kept.entry(proposal)
                .or_default()
                .entry(signer)
                .or_insert(signature);
            while kept.len() > MAX_VOTE_ROUNDS {
                kept.pop_first();
            }
        }
    }

    /// The votes kept for `proposal`, by signer.
    fn votes_for(&self, proposal: &ProposalKey) -> Vec<(u32, [u8; 64])> {
        self.0
            .lock()
            .ok()
            .and_then(|kept| kept.get(proposal).cloned())
            .map(|votes| votes.into_iter().collect())
            .unwrap_or_default()
    }

    /// The votes kept for block `hash`: those of its proposal with the most of them, if any.
    pub fn record_for(&self, hash: &Hash32) -> Option<VoteRecord> {
        let kept = self.0.lock().ok()?;
        let ((epoch, view, _, parent_view), votes) = kept
            .iter()
            .filter(|((_, _, payload, _), _)| payload == hash)
            .max_by_key(|(_, votes)| votes.len())?;
        Some(VoteRecord {
            epoch: *epoch,
            view: *view,
            parent_view: *parent_view,
            votes: votes
                .iter()
                .map(|(signer, signature)| Vote {
                    signer: *signer,
                    signature: *signature,
                })
                .collect(),
        })
    }
}

/// Most invalid proposals an [`InvalidLog`] keeps (the oldest go first). Each holds at most
/// a transaction's worth of bytes (evidence that fits no transaction is not kept).
const MAX_INVALID: usize = 64;

/// A proposal found invalid without state: the bytes its evidence carries, and the signers
/// already accused of it.
struct Invalid {
    /// What the evidence shows of the block: the block whole, or one transaction and its path.
    exhibit: cowboy_exec::system::staking::Exhibit,
    accused: std::collections::BTreeSet<u32>,
}

/// The proposals this validator refused for a stateless fault (the last [`MAX_INVALID`]), so
/// that every notarize of one, reported before or after the verdict, becomes evidence once.
#[derive(Clone, Default)]
struct InvalidLog(Arc<std::sync::Mutex<std::collections::BTreeMap<ProposalKey, Invalid>>>);

/// p2p channel of consensus votes.
pub const VOTES_CHANNEL: u64 = 0;
/// p2p channel of certificates.
pub const CERTIFICATES_CHANNEL: u64 = 1;
/// p2p channel of certificate requests.
pub const RESOLVER_CHANNEL: u64 = 2;
/// p2p channel carrying full blocks.
pub const BLOCKS_CHANNEL: u64 = 3;

/// Blocks-channel message: a block follows.
pub const MSG_BLOCK: u8 = 0;

/// Header hash as a consensus digest.
pub fn digest(hash: &Hash32) -> Digest {
    sha256::Digest(hash.0)
}

/// The epoch of block `height` on `chain` (exec's rule, from the genesis `epoch_blocks`).
fn epoch_of<E: Runtime>(chain: &Chain<E>, height: u64) -> u64 {
    cowboy_exec::system::staking::epoch_of(&chain.genesis().params, height)
}

/// Consensus digest as a header hash.
pub fn hash32(d: &Digest) -> Hash32 {
    Hash32(d.0)
}

/// How far above the head a missing block must be for the finalizer to hand its target to
/// catch-up ([`crate::catchup`]) rather than walk back by range sync: well inside the 256
/// blocks the pending set holds.
const FAR_BLOCKS: u64 = 2 * crate::sync::MAX_RANGE_BLOCKS as u64;

/// Reports finalized blocks to the beacon (which signs and recovers over them) and the
/// metrics, and logs them: the finalizer's and catch-up's common last step.
#[derive(Clone)]
pub struct Announce {
    beacon: Option<crate::beacon::Beacon>,
    metrics: Metrics,
}

impl Announce {
    /// The counter of peers marked bad snapshot sources (`snapshot_sync::BadSources`).
    pub fn bad_sources_metric(&self) -> commonware_runtime::telemetry::metrics::Counter {
        self.metrics.snapshot_bad_sources.clone()
    }

    /// `done` was finalized (oldest first), taking `took`, now `now`.
    pub fn finalized(
        &self,
        done: &[Arc<crate::chain::Finalized>],
        took: Duration,
        now: std::time::SystemTime,
    ) {
        for f in done {
            if let Some(b) = &self.beacon {
                b.on_finalized(f.block.header.height, f.hash);
            }
            self.metrics
                .on_finalized(f, took, crate::production::unix_ms(now));
            tracing::info!(
                height = f.block.header.height,
                hash = %f.hash.to_hex(),
                txs = f.block.transactions.len(),
                cycles = f.block.header.cycles_used,
                cells = f.block.header.cells_used,
                "finalized"
            );
        }
    }
}

/// The block `target`'s certificate names is final here (at `height`, if known): serve the
/// certificate to peers catching up (`crate::sync`, `WantTip`), and keep it on disk if the
/// block is its epoch's last.
async fn certified<E: Runtime>(
    chain: &Mutex<Chain<E>>,
    sync: &crate::sync::Sync,
    target: crate::catchup::Target,
    height: Option<u64>,
) {
    let chain = chain.lock().await;
    let height = match height {
        Some(h) => Some(h),
        None => chain.final_height(&target.hash).await.ok().flatten(),
    };
    let Some(height) = height else { return };
    if cowboy_exec::system::staking::is_boundary(&chain.genesis().params, height)
        && chain.certificate(target.epoch).is_none()
    {
        if let Err(e) = chain.keep_certificate(target.epoch, &target.certificate) {
            tracing::error!(epoch = target.epoch, error = %e, "cannot keep the epoch's last certificate");
        }
    }
    sync.certified(crate::sync::Certified {
        epoch: target.epoch,
        height,
        certificate: target.certificate,
    });
}

/// A block to relay: its hash and to whom.
struct Outbound(Hash32, Recipients<ed25519::PublicKey>);

/// Rewrites each block this validator proposes before it is relayed, making it a Byzantine
/// proposer: how `tests/devnet.rs` shows what honest validators do with blocks that break the
/// rule. `cowboyd` never sets one.
pub type ProposalTamper = Arc<dyn Fn(Block) -> Block + Send + Sync>;

/// The application handed to the simplex engine (see the module docs).
pub struct Application<E: Runtime> {
    /// Tasks are spawned as its children; its clock is the node's.
    context: Arc<E>,
    chain: Arc<Mutex<Chain<E>>>,
    coinbase: Address,
    production: Arc<Production>,
    /// The only validator of a dev chain (see the module docs).
    dev: bool,
    tamper: Option<ProposalTamper>,
    outbound: mpsc::UnboundedSender<Outbound>,
    finalized: mpsc::UnboundedSender<crate::catchup::Target>,
    evidence: EvidenceLog,
    votes: VoteLog,
    invalid: InvalidLog,
    /// The beacon, on a chain that has one.
    beacon: Option<crate::beacon::Beacon>,
}

// Not derived: a runtime context is not `Clone` (the application shares it behind an `Arc`).
impl<E: Runtime> Clone for Application<E> {
    fn clone(&self) -> Self {
        Self {
            context: self.context.clone(),
            chain: self.chain.clone(),
            coinbase: self.coinbase,
            production: self.production.clone(),
            dev: self.dev,
            tamper: self.tamper.clone(),
            outbound: self.outbound.clone(),
            finalized: self.finalized.clone(),
            evidence: self.evidence.clone(),
            votes: self.votes.clone(),
            invalid: self.invalid.clone(),
            beacon: self.beacon.clone(),
        }
    }
}

/// The tasks behind an [`Application`], started by [`Application::start`].
pub struct Tasks {
    outbound: mpsc::UnboundedReceiver<Outbound>,
    finalized: mpsc::UnboundedReceiver<crate::catchup::Target>,
}

impl<E: Runtime> Application<E> {
    /// An application spawning on `context`, proposing blocks when `production` says, with
    /// tips to `coinbase` (each rewritten by `tamper`, if given, before it is relayed); `dev`
    /// for the only validator of a dev chain; `beacon` on a chain with a beacon.
    pub fn new(
        context: E,
        chain: Arc<Mutex<Chain<E>>>,
        coinbase: Address,
        production: Arc<Production>,
        dev: bool,
        tamper: Option<ProposalTamper>,
        beacon: Option<crate::beacon::Beacon>,
    ) -> (Self, Tasks) {
        let (outbound_tx, outbound) = mpsc::unbounded_channel();
        let (finalized_tx, finalized) = mpsc::unbounded_channel();
        (
            Self {
                context: Arc::new(context),
                chain,
                coinbase,
                production,
                dev,
                tamper,
                outbound: outbound_tx,
                finalized: finalized_tx,
                evidence: EvidenceLog::default(),
                votes: VoteLog::default(),
                invalid: InvalidLog::default(),
                beacon,
            },
            Tasks {
                outbound,
                finalized,
            },
        )
    }

    /// Start the block relay (both directions), range sync (on `sync`) and the finalizer.
    pub fn start(
        &self,
        tasks: Tasks,
        blocks: (
            impl Sender<PublicKey = ed25519::PublicKey>,
            impl Receiver<PublicKey = ed25519::PublicKey>,
        ),
        sync: (
            impl Sender<PublicKey = ed25519::PublicKey>,
            impl Receiver<PublicKey = ed25519::PublicKey>,
        ),
        metrics: Metrics,
    ) {
        let Tasks {
            mut outbound,
            mut finalized,
        } = tasks;
        let (mut sender, mut receiver) = blocks;

        let chain = self.chain.clone();
        self.context.child("relay").spawn(move |_| async move {
            while let Some(Outbound(hash, recipients)) = outbound.recv().await {
                let bytes = chain.lock().await.block_bytes(&hash).await.ok().flatten();
                if let Some(bytes) = bytes {
                    let mut msg = Vec::with_capacity(1 + bytes.len());
                    msg.push(MSG_BLOCK);
                    msg.extend_from_slice(&bytes);
                    let _ = sender.send(recipients, msg, false);
                }
            }
        });

        let chain = self.chain.clone();
        let arrived = Arc::new(tokio::sync::Notify::new());
        let arrived_in = arrived.clone();
        let caught_up = Arc::new(tokio::sync::Notify::new());
        let (syncer, answers) = crate::sync::Sync::start(
            self.context.child("sync"),
            chain.clone(),
            vec![arrived.clone(), caught_up.clone()],
            sync,
            metrics.sync_dropped.clone(),
        );
        let announce = Announce {
            beacon: self.beacon.clone(),
            metrics,
        };
        let catchup = if self.dev {
            None // no peer to catch up from
        } else {
            Some(crate::catchup::CatchUp::start(
                self.context.child("catchup"),
                chain.clone(),
                syncer.clone(),
                answers,
                caught_up,
                announce.clone(),
            ))
        };
        self.context.child("blocks").spawn(move |_| async move {
            let limits = chain.lock().await.genesis().params.block_limits();
            while let Ok((peer, bytes)) = receiver.recv().await {
                let bytes = bytes.as_ref();
                match bytes.split_first() {
                    // The decoder applies max_tx_size_bytes: a block holding a larger
                    // transaction is refused here, never kept, so never voted for.
                    Some((&MSG_BLOCK, block)) => match Block::decode(block, limits) {
                        Ok(block) => {
                            chain.lock().await.receive(block);
                            arrived_in.notify_one();
                        }
                        Err(e) => {
                            tracing::warn!(?peer, error = %e, "peer sent an undecodable block")
                        }
                    },
                    _ => tracing::warn!(?peer, "peer sent a malformed blocks-channel message"),
                }
            }
        });

        let chain = self.chain.clone();
        let dev = self.dev;
        let clock = self.context.clone();
        self.context.child("finalizer").spawn(move |_| async move {
            // The newest finalization not yet applied (it implies all its ancestors).
            let mut target: Option<crate::catchup::Target> = None;
            // The target last handed to catch-up (logged once).
            let mut aimed: Option<Hash32> = None;
            loop {
                tokio::select! {
                    biased;
                    next = finalized.recv() => match next {
                        Some(t) => target = Some(t),
                        None => return,
                    },
                    _ = arrived.notified(), if target.is_some() => {}
                    _ = clock.sleep(Duration::from_secs(1)), if target.is_some() => {}
                }
                let Some(t) = &target else { continue };
                let hash = t.hash;
                let started = clock.current();
                let (result, head, missing_height) = {
                    let mut c = chain.lock().await;
                    let result = c.finalize_through(&hash).await;
                    let missing = match &result {
                        Ok(Err(missing)) => c.missing_height(missing),
                        _ => None,
                    };
                    (result, c.head().header.height, missing)
                };
                match result {
                    Ok(Ok(done)) => {
                        let took = clock.current().duration_since(started).unwrap_or_default();
                        announce.finalized(&done, took, clock.current());
                        if let Some(t) = target.take() {
                            let height = done.last().map(|f| f.block.header.height);
                            certified(&chain, &syncer, t, height).await;
                        }
                    }
                    Ok(Err(missing)) if dev => {
                        tracing::info!(block = %missing.to_hex(), "a finalized block was reverted away; ignored");
                        target = None;
                    }
                    Ok(Err(missing)) => match (&catchup, missing_height) {
                        // Beyond what range sync's walk back through the pending set holds:
                        // catch-up fetches the headers down to the head, then the bodies up.
                        (Some(catchup), Some(h)) if h > head + FAR_BLOCKS => {
                            if aimed != Some(hash) {
                                tracing::info!(missing = %missing.to_hex(), height = h, head, "far behind: catching up");
                                aimed = Some(hash);
                            }
                            catchup.aim(t.clone());
                        }
                        _ => {
                            tracing::info!(missing = %missing.to_hex(), head, "fetching finalized blocks from peers");
                            syncer.want(missing, head);
                        }
                    },
                    Err(e) => {
                        tracing::error!(error = %e, "cannot finalize block");
                        target = None;
                    }
                }
            }
        });
    }

    /// Whether a block at `height` belongs to `epoch` (always on a dev chain, whose one
    /// engine runs for ever: see `crate::epochs`).
    async fn in_epoch(&self, height: u64, epoch: u64) -> bool {
        self.dev || epoch_of(&*self.chain.lock().await, height) == epoch
    }

    /// Whether `parent` is a block a dev revert removed (see the module docs).
    async fn reverted_away(&self, parent: &Hash32) -> bool {
        self.dev && !self.chain.lock().await.knows(parent).await.unwrap_or(true)
    }

    /// Wait until `parent` can be extended here (it is the head or a pending block executed
    /// here; on a dev node, a block reverted away stands for the head), then build on it when
    /// [`Production`] says it is time.
    async fn build_on(&self, parent: Hash32, epoch: u64) -> Option<Hash32> {
        let mut watch = self.chain.lock().await.watch_head();
        loop {
            watch.borrow_and_update();
            let (base, base_header, pool_holds_txs) = {
                let mut chain = self.chain.lock().await;
                if chain.extendable(&parent).is_none() {
                    if let Err(e) = chain.execute_reloaded(&parent).await {
                        tracing::warn!(parent = %parent.to_hex(), error = %e, "could not execute a reloaded pending parent");
                    }
                }
                let found = chain.extendable(&parent).map(|h| (parent, h));
                // Only on-demand mining asks (a state read per pooled sender): interval
                // mining builds on its schedule whatever the pool holds.
                let holds = match self.production.mining() {
                    crate::production::Mining::OnDemand => {
                        let base = found.as_ref().map_or(chain.head().hash, |(b, _)| *b);
                        chain.holds_txs_for(&base).await.unwrap_or(true)
                    }
                    _ => !chain.mempool.is_empty(),
                };
                (found, chain.head().clone(), holds)
            };
            let head_height = base_header.header.height;
            let base = match base {
                Some(b) => Some(b),
                None if self.reverted_away(&parent).await => {
                    Some((base_header.hash, base_header.header))
                }
                None => None,
            };
            let Some((base, header)) = base else {
                tracing::debug!(parent = %parent.to_hex(), head = head_height, "proposal waits for its parent");
                watch.changed().await.ok()?;
                continue;
            };
            if !self.in_epoch(header.height + 1, epoch).await {
                // The parent ends the round's epoch: the next block is the next epoch's
                // engine's to propose (`crate::epochs`).
                return None;
            }
            self.production
                .wait_turn(header.timestamp_ms, pool_holds_txs)
                .await;
            let seed = self.beacon_for(&base).await?;
            let mut chain = self.chain.lock().await;
            if chain.extendable(&base).is_none() {
                // A dev revert moved the head while we waited: decide again. Elsewhere the
                // parent's fork lost to a finalized sibling: nothing to build.
                if self.dev {
                    continue;
                }
                return None;
            }
            let started = self.context.current();
            let timestamp = self.production.timestamp(header.timestamp_ms);
            // The new block records the votes seen for its grandparent (exec's lag).
            let votes = self.votes.record_for(&header.parent_hash);
            let cutoff = self.production.build_cutoff();
            return match chain
                .build(&base, timestamp, self.coinbase, votes, seed, &cutoff)
                .await
            {
                Ok(block) => {
                    self.production.on_built(block.transactions.len());
                    tracing::debug!(parent = %base.to_hex(), asked_parent = %parent.to_hex(), requested = self.production.requested(), "built on");
                    let block = match &self.tamper {
                        Some(tamper) => {
                            let bad = tamper(block);
                            chain.receive(bad.clone());
                            bad
                        }
                        None => block,
                    };
                    tracing::info!(
                        height = block.header.height,
                        txs = block.transactions.len(),
                        took_ms = self
                            .context
                            .current()
                            .duration_since(started)
                            .unwrap_or_default()
                            .as_millis() as u64,
                        "built"
                    );
                    Some(block.header.hash())
                }
                Err(e) => {
                    tracing::error!(error = %e, "cannot build a block");
                    None
                }
            };
        }
    }

    /// The beacon signature a child of `base` must carry, once this node has it (see the
    /// module docs): waits for the signed block's finalization here, then for the signature.
    /// `Some(None)`: the child carries none. `None`: it cannot be had (a chain with a beacon
    /// this node was not configured with, or a storage failure): no proposal.
    async fn beacon_for(&self, base: &Hash32) -> Option<Option<cowboy_exec::beacon::Signed>> {
        let mut head = self.chain.lock().await.watch_head();
        loop {
            head.borrow_and_update();
            let need = self.chain.lock().await.beacon_need(base).await;
            let (height, hash, finalized) = match need {
                Ok(None) => return Some(None),
                Ok(Some(n)) => n,
                Err(e) => {
                    tracing::error!(error = %e, "cannot tell which block the beacon signs");
                    return None;
                }
            };
            if finalized {
                let Some(beacon) = &self.beacon else {
                    tracing::error!("the chain has a beacon but this node has no beacon group");
                    return None;
                };
                return Some(Some(beacon.signature(height, hash).await));
            }
            head.changed().await.ok()?;
        }
    }

    /// Wait until block `hash`, proposed in `round` (epoch, view, payload, parent view), is
    /// here and its parent `parent` can be extended here, then re-execute it on the parent's
    /// state. A block refused for a stateless fault becomes evidence against its signers.
    async fn check(&self, parent: Hash32, round: ProposalKey) -> Option<bool> {
        let (epoch, _, hash, _) = round;
        let mut head = self.chain.lock().await.watch_head();
        loop {
            head.borrow_and_update();
            {
                let mut chain = self.chain.lock().await;
                if chain.head().hash == hash {
                    return Some(true); // already finalized (replay after restart)
                }
                let block = chain.pending_block(&hash).cloned();
                if let Some(block) = block {
                    if block.header.parent_hash != parent {
                        return Some(false);
                    }
                    if !self.dev && epoch_of(&chain, block.header.height) != epoch {
                        tracing::warn!(hash = %hash.to_hex(), height = block.header.height, epoch, "proposal outside the round's epoch");
                        self.keep_invalid(&chain, round, &block, None);
                        return Some(false);
                    }
                    if chain.extendable(&parent).is_none() {
                        if let Err(e) = chain.execute_reloaded(&parent).await {
                            tracing::warn!(parent = %parent.to_hex(), error = %e, "could not execute a reloaded pending parent");
                        }
                    }
                    if chain.extendable(&parent).is_some() {
                        // A timestamp ahead of our clock: wait for the clock, do not reject.
                        let now = self.production.now_ms();
                        if block.header.timestamp_ms > now + 1_000 {
                            drop(chain);
                            let wait = block.header.timestamp_ms - now;
                            self.context.sleep(Duration::from_millis(wait)).await;
                            continue;
                        }
                        return match chain.verify(&hash).await {
                            Ok(Verdict::Valid) => Some(true),
                            Ok(Verdict::Invalid {
                                reason,
                                block,
                                parent,
                            }) => {
                                tracing::warn!(hash = %hash.to_hex(), %reason, "invalid proposal");
                                self.keep_invalid(&chain, round, &block, Some(&*parent));
                                Some(false)
                            }
                            Err(e) => {
                                tracing::error!(error = %e, "cannot verify a proposal");
                                None
                            }
                        };
                    }
                }
            }
            head.changed().await.ok()?;
        }
    }
}

impl<E: Runtime> Automaton for Application<E> {
    type Context = RoundContext<Digest, ed25519::PublicKey>;
    type Digest = Digest;

    async fn propose(&mut self, context: Self::Context) -> oneshot::Receiver<Digest> {
        let (tx, rx) = oneshot::channel();
        let app = self.clone();
        let parent = hash32(&context.parent.1);
        let epoch = context.epoch().get();
        tracing::debug!(view = context.view().get(), parent = %parent.to_hex(), "asked to propose");
        self.context.child("propose").spawn(move |_| async move {
            let mut tx = tx;
            tokio::select! {
                biased;
                _ = tx.closed() => {}
                built = app.build_on(parent, epoch) => {
                    if let Some(hash) = built {
                        let _ = tx.send(digest(&hash));
                    }
                }
            }
        });
        rx
    }

    async fn verify(&mut self, context: Self::Context, payload: Digest) -> oneshot::Receiver<bool> {
        let (tx, rx) = oneshot::channel();
        let app = self.clone();
        let parent = hash32(&context.parent.1);
        let round = (
            context.epoch().get(),
            context.view().get(),
            hash32(&payload),
            context.parent.0.get(),
        );
        self.context.child("verify").spawn(move |_| async move {
            let mut tx = tx;
            tokio::select! {
                biased;
                _ = tx.closed() => {}
                verdict = app.check(parent, round) => {
                    if let Some(v) = verdict {
                        let _ = tx.send(v);
                    }
                }
            }
        });
        rx
    }
}

/// Certification: every verified block is certifiable (the defaults).
impl<E: Runtime> CertifiableAutomaton for Application<E> {}

impl<E: Runtime> Relay for Application<E> {
    type Digest = Digest;
    type PublicKey = ed25519::PublicKey;
    type Plan = Plan<ed25519::PublicKey>;

    fn broadcast(&mut self, payload: Digest, plan: Self::Plan) -> Feedback {
        let recipients = match plan {
            Plan::Propose { .. } => Recipients::All,
            Plan::Forward { recipients, .. } => recipients,
            // Candidates are never staged: `prepare` keeps its default (wait).
            Plan::Prepare { .. } => return Feedback::Ok,
        };
        match self.outbound.send(Outbound(hash32(&payload), recipients)) {
            Ok(()) => Feedback::Ok,
            Err(_) => Feedback::Closed,
        }
    }
}

impl<E: Runtime> Application<E> {
    /// The evidence of attributable faults reported so far (the last [`MAX_EVIDENCE`]).
    pub fn evidence(&self) -> Vec<Evidence> {
        self.evidence.list()
    }

    /// The log the reporter fills (for the RPC).
    pub fn evidence_log(&self) -> EvidenceLog {
        self.evidence.clone()
    }

    /// Keep `block`, proposed in `round`, as an invalid proposal if exec's rule finds it
    /// invalid without state (with `parent`'s header, when the fault needs it) and its
    /// evidence fits in a transaction; then accuse every signer of a notarize of it seen so
    /// far (the leader's, as a rule).
    fn keep_invalid(
        &self,
        chain: &Chain<E>,
        round: ProposalKey,
        block: &Block,
        parent: Option<&BlockHeader>,
    ) {
        use cowboy_exec::system::staking::SplitBlock;
        let (epoch, _, hash, _) = round;
        let genesis = chain.genesis();
        let bytes = block.encode();
        let parent = parent.map(BlockHeader::encode);
        let Ok(beacon) = chain.beacon_schedule(&block.header.parent_hash) else {
            return; // the state cannot be read: keep nothing rather than guess
        };
        let Some(block) = SplitBlock::split(&hash, &bytes, parent.as_deref())
            .and_then(SplitBlock::committed)
            .ok()
        else {
            return; // not the block its header commits to: not attributable to the signers
        };
        let Some(fault) = block.fault(&genesis.params, genesis.chain_id, epoch, beacon.as_ref())
        else {
            return; // state-dependent
        };
        // A fault of the transactions is shown by one of them and its path, any other by the
        // header (with the parent's header or the vote record if the fault needs it): small
        // whatever the block's size.
        let exhibit = block.exhibit(&fault, parent.as_deref());
        if exhibit.size() as u64 > genesis.params.max_tx_size_bytes {
            let size = exhibit.size();
            tracing::warn!(%fault, size, "invalid proposal too large to submit as evidence");
            return;
        }
        tracing::warn!(%fault, view = round.1, "invalid proposal kept as evidence");
        if let Ok(mut kept) = self.invalid.0.lock() {
            kept.entry(round).or_insert(Invalid {
                exhibit,
                accused: Default::default(),
            });
            while kept.len() > MAX_INVALID {
                kept.pop_first();
            }
        }
        for (signer, signature) in self.votes.votes_for(&round) {
            self.accuse(round, signer, signature);
        }
    }

    /// Record evidence against `signer`, whose notarize `signature` is over `round`, if that
    /// proposal is a kept invalid one and `signer` is not accused of it yet.
    fn accuse(&self, round: ProposalKey, signer: u32, signature: [u8; 64]) {
        let Ok(mut kept) = self.invalid.0.lock() else {
            return;
        };
        let Some(invalid) = kept.get_mut(&round) else {
            return;
        };
        if !invalid.accused.insert(signer) {
            return;
        }
        let (epoch, view, payload, parent_view) = round;
        let proposal = VoteRecord {
            epoch,
            view,
            parent_view,
            votes: Vec::new(),
        };
        let vote = Vote { signer, signature };
        let bytes = cowboy_exec::system::staking::invalid_proposal_evidence(
            &proposal,
            &payload,
            &vote,
            &invalid.exhibit,
        );
        drop(kept);
        if let Some(bytes) = bytes {
            self.record(FaultKind::InvalidProposal, view, signer, bytes);
        }
    }

    fn record(&self, kind: FaultKind, view: u64, signer: u32, bytes: Vec<u8>) {
        tracing::warn!(
            ?kind,
            view,
            signer,
            "attributable fault reported by consensus"
        );
        self.evidence.push(Evidence {
            kind,
            view,
            signer,
            bytes,
        });
    }
}

/// An epoch engine's reporter: its activity at seats, handed to the application as the
/// members' ([`Scheme::member_activity`]).
pub struct SeatReporter<E: Runtime> {
    application: Application<E>,
    seats: Scheme,
}

impl<E: Runtime> Clone for SeatReporter<E> {
    fn clone(&self) -> Self {
        SeatReporter {
            application: self.application.clone(),
            seats: self.seats.clone(),
        }
    }
}

impl<E: Runtime> SeatReporter<E> {
    /// Report the activity of an engine voting with `seats` to `application`.
    pub fn new(application: Application<E>, seats: Scheme) -> Self {
        SeatReporter { application, seats }
    }
}

impl<E: Runtime> Reporter for SeatReporter<E> {
    type Activity = Activity<Scheme, Digest>;

    fn report(&mut self, activity: Self::Activity) -> Feedback {
        match self.seats.member_activity(activity) {
            Some(activity) => self.application.report(activity),
            None => Feedback::Ok,
        }
    }
}

impl<E: Runtime> Reporter for Application<E> {
    type Activity = Activity<MemberScheme, Digest>;

    fn report(&mut self, activity: Self::Activity) -> Feedback {
        use cowboy_exec::system::staking::{
            CONFLICTING_FINALIZE, CONFLICTING_NOTARIZE, NULLIFY_FINALIZE,
        };
        let tagged = |tag: u8, body: &[u8]| [&[tag][..], body].concat();
        let (kind, signer, bytes) = match &activity {
            Activity::Notarize(n) => {
                // A signature that does not even decode can never verify: not kept.
                if let Some(signature) = n.attestation.signature.get() {
                    let p = &n.proposal;
                    let key = (
                        p.round.epoch().get(),
                        p.round.view().get(),
                        hash32(&p.payload),
                        p.parent.get(),
                    );
                    if let Ok(bytes) = signature.encode().as_ref().try_into() {
                        self.votes.push(key, n.signer().get(), bytes);
                        self.accuse(key, n.signer().get(), bytes);
                    }
                }
                return Feedback::Ok;
            }
            Activity::Finalization(f) => {
                let target = crate::catchup::Target {
                    hash: hash32(&f.proposal.payload),
                    height: None,
                    epoch: f.epoch().get(),
                    certificate: f.encode().to_vec(),
                };
                if self.finalized.send(target).is_err() {
                    return Feedback::Closed;
                }
                return Feedback::Ok;
            }
            Activity::ConflictingNotarize(c) => (
                FaultKind::ConflictingNotarize,
                c.signer(),
                tagged(CONFLICTING_NOTARIZE, &c.encode()),
            ),
            Activity::ConflictingFinalize(c) => (
                FaultKind::ConflictingFinalize,
                c.signer(),
                tagged(CONFLICTING_FINALIZE, &c.encode()),
            ),
            Activity::NullifyFinalize(c) => (
                FaultKind::NullifyFinalize,
                c.signer(),
                tagged(NULLIFY_FINALIZE, &c.encode()),
            ),
            _ => return Feedback::Ok,
        };
        self.record(kind, activity.view().get(), signer.get(), bytes);
        Feedback::Ok
    }
}
