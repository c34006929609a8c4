//! Consensus follows the staked set: one simplex engine per epoch.
//!
//! Epoch `e` is the blocks at heights `[e·E, (e+1)·E)` (`E` = the genesis `epoch_blocks`;
//! exec's `staking::epoch_of`). Its voters are the active set the staking actor took in the
//! `end_block` of the previous epoch's last block (`staking::active_set`): once that block is
//! final, every node reads the same set from its committed state.
//!
//! - **An engine per epoch.** Epoch `e`'s simplex engine has the set's ed25519 keys as its
//!   participants, starts from the previous epoch's last block (`Floor::Genesis` of its hash;
//!   the genesis block for epoch 0), keeps its journal in the partition `consensus` (epoch 0,
//!   the name it had before epochs) or `consensus-<e>`, and talks on subchannel `e` of the
//!   three consensus channels (votes, certificates, certificate requests), split by commonware's
//!   `Muxer`. A node outside the set runs it as an observer (a verifier scheme): it follows
//!   certificates and finalizes blocks, and never votes.
//! - **An epoch cannot overrun.** The application proposes and accepts only blocks of the
//!   round's epoch (`crate::consensus`), so an epoch's engine finalizes nothing past the
//!   epoch's last block; its later views are nullified.
//! - **The hand-over.** When the epoch's last block is finalized here, the orchestrator reads
//!   the next set from the committed state, has the p2p network track it (peer set id = the
//!   epoch; the registered validators that are not in it are tracked as secondary peers, so
//!   one about to join can connect and sync first), starts the next engine, and stops the
//!   engine of the epoch before the one that just ended. The engine of the epoch that just
//!   ended lingers for one epoch: a validator that missed the last block's finalization still
//!   finds peers that answer its engine's certificate requests for that epoch, finalizes the
//!   block and moves on.
//! - **A restart** opens the epoch after the finalized head's (and the one before it, for the
//!   same lingering), each engine replaying its own journal.
//! - **A node that caught up** over several epochs ([`crate::catchup`], from the certificates
//!   of the epochs' last blocks, which peers keep on disk rather than running old engines)
//!   goes straight to the engine of the epoch its head is in, stopping every older one.
//! - **A dev chain** (`--dev`, one validator) runs epoch 0's engine for ever: its one
//!   validator is the set, and `dev_revert` may move the head back across a boundary, which
//!   an engine cannot follow.
//!
//! - **Leaders** lead in proportion to their stake, in a schedule built from the set's powers
//!   and the epoch's seed ([`crate::leaders`]: smooth weighted round robin, ties in an order
//!   shuffled by the seed). The seed is the staking actor's, taken at the boundary from that
//!   block's randomness (the threshold beacon's signature where the chain runs one), so the
//!   schedule is fixed for every node by the committed state, and nobody can choose it or
//!   know it before that signature is recovered, a few blocks before the boundary (a chain
//!   without a beacon group falls back to the parent hash, which the previous proposer can
//!   grind). Within the epoch it is public, as any schedule is; simplex's per-view random
//!   elector needs its threshold-signature scheme for votes, and ours are attributable
//!   ed25519.
//!
//! - **Votes weigh by stake**: the engine's participants are the set's *seats*
//!   ([`crate::seats`]), each member holding as many as its stake buys, and its channels,
//!   blocker and reporter are wrapped to match ([`crate::seat_net`], `SeatReporter`).

use std::collections::BTreeMap;
use std::num::NonZeroUsize;
use std::sync::Arc;
use std::time::Duration;

use commonware_consensus::simplex::{self, Engine, Floor, ForwardPolicy, SkipBudget, SkipPolicy};
use commonware_consensus::types::{Epoch, ViewDelta};
use commonware_cryptography::{ed25519, Signer};
use commonware_p2p::utils::mux::MuxHandle;
use commonware_p2p::{Blocker, Sender, TrackedPeers};
use commonware_parallel::Sequential;
use commonware_runtime::buffer::paged::CacheRef;
use commonware_runtime::Handle;
use commonware_utils::ordered::Set;
use commonware_utils::NonZeroDuration;
use cowboy_exec::system::staking;
use tokio::sync::Mutex;

use crate::chain::Chain;
use crate::consensus::{digest, Application, Runtime, Scheme, SeatReporter};
use crate::leaders::StakeWeighted;
use crate::reader::Reader;
use crate::seat_net::{self, SeatBlocker};
use crate::seats::Members;

/// The three consensus channels, split by epoch.
pub struct Channels<S: Sender> {
    /// Votes.
    pub votes: MuxHandle<S>,
    /// Certificates.
    pub certificates: MuxHandle<S>,
    /// Certificate requests (the engine's resolver).
    pub resolver: MuxHandle<S>,
}

/// The most peers the p2p network may be sized to track for one epoch.
pub const MAX_PEERS: usize = 64;

/// How many peers the p2p network tracks for one epoch, this node included (the set first,
/// then the other registered validators; [`Orchestrator::track`] keeps within it): twice the
/// validators known at start (`known`: the genesis set or the registered ones, whichever is
/// larger), at least 4, at most [`MAX_PEERS`]. The network reserves inbound buffers for a
/// quota burst per peer it may track, so the bound is sized to the network, not set high; a
/// network that outgrows it connects the first members only (logged), until restarted.
pub fn peer_bound(known: usize) -> usize {
    known.saturating_mul(2).clamp(4, MAX_PEERS)
}

/// Tells the p2p network which peers to connect to for an epoch (`Manager::track` on
/// `cowboyd`'s network; the simulations connect everyone and ignore it).
pub type Track = Box<dyn FnMut(u64, TrackedPeers<ed25519::PublicKey>) + Send>;

/// What every epoch's engine shares.
pub struct Settings<B> {
    /// This validator's key.
    pub key: ed25519::PrivateKey,
    /// The consensus namespace (`staking::consensus_namespace`).
    pub namespace: Vec<u8>,
    /// How long a leader has to propose.
    pub leader_timeout: Duration,
    /// Prefix of the engines' journal partitions.
    pub partition_prefix: String,
    /// A dev chain: epoch 0's engine only (see the module docs).
    pub dev: bool,
    /// Blocks peers that misbehave.
    pub blocker: B,
    /// Tells the p2p network whom to connect to.
    pub track: Track,
    /// Most peers tracked per epoch ([`peer_bound`]).
    pub peer_bound: usize,
    /// A full node: every engine runs as an observer, whatever the set (`cowboyd
    /// --full-node`).
    pub full_node: bool,
    /// The full nodes this node lets connect and follow (`--follower KEY`): tracked as
    /// secondary peers in every epoch, after the registered validators.
    pub followers: Vec<ed25519::PublicKey>,
}

/// The running engines of a validator, and the task that starts them epoch after epoch.
#[derive(Clone)]
pub struct Engines {
    running: Running,
    task: Arc<std::sync::Mutex<Option<Handle<()>>>>,
}

/// Engines by epoch.
type Running = Arc<std::sync::Mutex<BTreeMap<u64, Handle<()>>>>;

impl Engines {
    /// Stop consensus here: no engine runs and none starts (a crash, in the simulations).
    pub fn stop(&self) {
        if let Some(task) = self.task.lock().ok().and_then(|mut t| t.take()) {
            task.abort();
        }
        if let Ok(mut running) = self.running.lock() {
            for (_, engine) in std::mem::take(&mut *running) {
                engine.abort();
            }
        }
    }

    /// The epochs whose engines run (the current one and the lingering one before it).
    pub fn epochs(&self) -> Vec<u64> {
        self.running
            .lock()
            .map(|r| r.keys().copied().collect())
            .unwrap_or_default()
    }
}

/// Run the engines, epoch after epoch, until the chain's readers close. Returns once the first
/// engine has started (so a node serves RPC with consensus running), leaving a task behind.
pub async fn start<E, S, B>(
    context: &E,
    chain: Arc<Mutex<Chain<E>>>,
    application: Application<E>,
    channels: Channels<S>,
    settings: Settings<B>,
) -> Result<Engines, String>
where
    E: Runtime,
    S: Sender<PublicKey = ed25519::PublicKey>,
    B: Blocker<PublicKey = ed25519::PublicKey>,
{
    let mut readers = chain.lock().await.readers();
    let reader = readers.borrow().clone().ok_or("no reader published")?;
    let params = reader.genesis.params.clone();
    let mut orchestrator = Orchestrator {
        context: context.child("epochs"),
        application,
        channels,
        settings,
        running: Running::default(),
    };
    let engines = Engines {
        running: orchestrator.running.clone(),
        task: Default::default(),
    };
    let current = if orchestrator.settings.dev {
        0
    } else {
        staking::epoch_of(&params, reader.head.header.height + 1)
    };
    if let Some(previous) = current.checked_sub(1) {
        // Lingering (see the module docs); its set may be pruned already, then it is skipped.
        if let Err(e) = orchestrator.enter(&reader, previous).await {
            tracing::info!(epoch = previous, error = %e, "previous epoch's engine not started");
        }
    }
    orchestrator.enter(&reader, current).await?;
    if orchestrator.settings.dev {
        return Ok(engines);
    }
    let task = context.child("epochs").spawn(move |_| async move {
        let mut epoch = current;
        loop {
            // Wait for the epoch's last block to be final here.
            let last = (epoch + 1) * params.epoch_blocks.max(1) - 1;
            let reader = loop {
                let r = readers.borrow_and_update().clone();
                if let Some(r) = r.filter(|r| r.head.header.height >= last) {
                    break r;
                }
                if readers.changed().await.is_err() {
                    return;
                }
            };
            // The next epoch, or, for a node that caught up over several (`crate::catchup`),
            // the head's: the epochs in between are over, and their engines would only
            // replay what the node already has.
            let head_epoch = staking::epoch_of(&params, reader.head.header.height + 1);
            let jumped = head_epoch > epoch + 1;
            epoch = head_epoch.max(epoch + 1);
            if jumped {
                orchestrator.retire(epoch - 1);
            }
            match orchestrator.enter(&reader, epoch).await {
                Ok(()) => tracing::info!(epoch, jumped, "entered epoch"),
                Err(e) => {
                    tracing::error!(epoch, error = %e, "cannot start the epoch's engine");
                    return;
                }
            }
            if let Some(old) = epoch.checked_sub(2) {
                orchestrator.retire(old);
            }
        }
    });
    if let Ok(mut t) = engines.task.lock() {
        *t = Some(task);
    }
    Ok(engines)
}

/// The engines running and how to start more (see the module docs).
struct Orchestrator<E: Runtime, S: Sender, B> {
    context: E,
    application: Application<E>,
    channels: Channels<S>,
    settings: Settings<B>,
    running: Running,
}

impl<E, S, B> Orchestrator<E, S, B>
where
    E: Runtime,
    S: Sender<PublicKey = ed25519::PublicKey>,
    B: Blocker<PublicKey = ed25519::PublicKey>,
{
    /// Start epoch `epoch`'s engine on the set and floor `reader`'s committed state names.
    async fn enter(&mut self, reader: &Reader<E>, epoch: u64) -> Result<(), String> {
        let params = &reader.genesis.params;
        let members = participants(reader, epoch).await?;
        let seed = staking::stored_epoch_seed(&reader.state, epoch)
            .await
            .map_err(|e| e.to_string())?
            .ok_or_else(|| format!("no seed is kept for epoch {epoch}"))?;
        let floor_height = (epoch * params.epoch_blocks.max(1)).saturating_sub(1);
        let floor = reader
            .block(floor_height)
            .await
            .map_err(|e| e.to_string())?
            .ok_or_else(|| format!("block {floor_height} (epoch {epoch}'s floor) is missing"))?
            .header
            .hash();
        let participants = members.keys().clone();
        self.track(reader, epoch, &participants).await;

        let me = self.settings.key.public_key();
        let member = !self.settings.full_node && participants.position(&me).is_some();
        let powers: Vec<_> = members.powers().map(|(k, p)| (k.clone(), p)).collect();
        let scheme = if member {
            Scheme::signer(
                &self.settings.namespace,
                members.clone(),
                self.settings.key.clone(),
            )
            .ok_or("validator key is not a participant")?
        } else {
            Scheme::verifier(&self.settings.namespace, members.clone())
        };
        let subchannel = |e: commonware_p2p::utils::mux::Error| e.to_string();
        let (vote_sender, vote_receiver) = self
            .channels
            .votes
            .register(epoch)
            .await
            .map_err(subchannel)?;
        let votes = seat_net::votes(scheme.clone(), vote_sender, vote_receiver);
        let certificates = self
            .channels
            .certificates
            .register(epoch)
            .await
            .map_err(subchannel)?;
        let (request_sender, request_receiver) = self
            .channels
            .resolver
            .register(epoch)
            .await
            .map_err(subchannel)?;
        let resolver = seat_net::requests(scheme.clone(), request_sender, request_receiver);
        let leader_timeout = self.settings.leader_timeout;
        let partition = match epoch {
            0 => format!("{}consensus", self.settings.partition_prefix),
            e => format!("{}consensus-{e}", self.settings.partition_prefix),
        };
        let cfg = simplex::Config {
            scheme: scheme.clone(),
            elector: StakeWeighted::new(&seed.0, powers),
            blocker: SeatBlocker::new(self.settings.blocker.clone(), scheme.clone()),
            automaton: self.application.clone(),
            relay: self.application.clone(),
            reporter: SeatReporter::new(self.application.clone(), scheme.clone()),
            track_historical_votes: false,
            strategy: Sequential,
            partition,
            mailbox_size: NonZeroUsize::new(1024).unwrap_or(NonZeroUsize::MIN),
            epoch: Epoch::new(epoch),
            floor: Floor::Genesis(digest(&floor)),
            replay_buffer: NonZeroUsize::new(1 << 20).unwrap_or(NonZeroUsize::MIN),
            write_buffer: NonZeroUsize::new(1 << 20).unwrap_or(NonZeroUsize::MIN),
            page_cache: CacheRef::new(
                std::num::NonZeroU16::new(4096).unwrap_or(std::num::NonZeroU16::MIN),
                NonZeroUsize::new(1024).unwrap_or(NonZeroUsize::MIN),
            ),
            leader_timeout,
            certification_timeout: leader_timeout + Duration::from_secs(1),
            timeout_retry: Duration::from_secs(5),
            view_retention: ViewDelta::new(256),
            skip: SkipPolicy::Enabled {
                timeout: leader_timeout + Duration::from_secs(10),
                budget: SkipBudget::Participants,
            },
            fetch_timeout: NonZeroDuration::new(Duration::from_secs(2)).ok_or("fetch timeout")?,
            fetch_retry_delay: Duration::from_millis(200),
            forward: ForwardPolicy::Disabled,
        };
        let engine =
            Engine::new(self.context.child("engine"), cfg).start(votes, certificates, resolver);
        tracing::info!(
            epoch,
            members = participants.len(),
            seats = commonware_cryptography::certificate::Scheme::participants(&scheme).len(),
            member,
            floor = %floor.to_hex(),
            "consensus engine started"
        );
        if let Ok(mut running) = self.running.lock() {
            running.insert(epoch, engine);
        }
        Ok(())
    }

    /// Have the network track epoch `epoch`'s set (primary), every other registered
    /// validator and then the configured followers (secondary), within the settings'
    /// `peer_bound` with this node counted.
    async fn track(&mut self, reader: &Reader<E>, epoch: u64, set: &Set<ed25519::PublicKey>) {
        let me = self.settings.key.public_key();
        let bound = self.settings.peer_bound;
        let mut room = bound.saturating_sub(usize::from(set.position(&me).is_none()));
        let primary: Vec<_> = set.iter().take(room).cloned().collect();
        if primary.len() < set.len() {
            tracing::error!(
                epoch,
                members = set.len(),
                bound,
                "the set is larger than the p2p network tracks: some members are not connected"
            );
        }
        room -= primary.len();
        let registered = staking::registered_keys(&reader.state)
            .await
            .unwrap_or_default();
        let secondary: Vec<_> = registered
            .iter()
            .filter_map(|k| ed25519_key(&k.ed25519))
            .chain(self.settings.followers.iter().cloned())
            .filter(|k| set.position(k).is_none() && *k != me)
            .filter({
                // A follower that also registered is counted once.
                let mut seen = std::collections::BTreeSet::new();
                move |k| seen.insert(k.clone())
            })
            .take(room)
            .collect();
        (self.settings.track)(
            epoch,
            TrackedPeers {
                primary: Set::from_iter_dedup(primary),
                secondary: Set::from_iter_dedup(secondary),
            },
        );
    }

    /// Stop the engines of epoch `epoch` and earlier.
    fn retire(&mut self, epoch: u64) {
        let Ok(mut running) = self.running.lock() else {
            return;
        };
        let later = running.split_off(&(epoch + 1));
        for (e, engine) in std::mem::replace(&mut *running, later) {
            engine.abort();
            tracing::info!(epoch = e, "consensus engine stopped");
        }
    }
}

/// Epoch `epoch`'s voters (the active set's ed25519 keys, in simplex's order, and powers) as
/// kept in `reader`'s committed state: what its engine runs with and its certificates are
/// checked against.
pub async fn participants<E: Runtime>(reader: &Reader<E>, epoch: u64) -> Result<Members, String> {
    let set = staking::active_set(&reader.state, epoch)
        .await
        .map_err(|e| e.to_string())?
        .ok_or_else(|| format!("no active set is kept for epoch {epoch}"))?;
    participants_of(epoch, set)
}

/// Epoch `epoch`'s voters from its active set (as [`participants`] reads it from the state,
/// or as a peer proved it: `crate::snapshot_sync`): the members' ed25519 keys, in simplex's
/// order, with their powers. An empty set, a key that does not decode or one named twice is
/// refused.
pub fn participants_of(epoch: u64, set: Vec<staking::SetMember>) -> Result<Members, String> {
    if set.is_empty() {
        return Err(format!("no active set is kept for epoch {epoch}"));
    }
    let members = set
        .iter()
        .map(|m| Some((ed25519_key(&m.keys.ed25519)?, m.power)))
        .collect::<Option<Vec<_>>>()
        .ok_or(
            "an active set member's ed25519 key does not decode (the staking actor checks it)",
        )?;
    Members::new(members).ok_or_else(|| format!("epoch {epoch}'s set names a key twice"))
}

/// An ed25519 public key from its 32 bytes.
fn ed25519_key(bytes: &[u8; 32]) -> Option<ed25519::PublicKey> {
    use commonware_codec::DecodeExt;
    ed25519::PublicKey::decode(commonware_codec::Copying(&bytes[..])).ok()
}
