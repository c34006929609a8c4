//! Deterministic simulations of the real node (issue 17, "Tested as the best consensus teams
//! test"): `n` = 4 and 7 validators, each the node's own consensus side
//! ([`cowboy_node::node::start_validator`]: the application, block relay, range sync,
//! transaction gossip and the simplex engine) over a real [`Chain`] (exec's block rule, QMDB),
//! all on commonware's deterministic runtime (virtual time, seeded scheduling, in-memory
//! storage) and its simulated network (links with latency, jitter and loss, cut and restored
//! to partition and heal). One seed fixes everything that happens, so a failure reproduces
//! from the seed its message prints: `SIM_SEED=<seed> cargo test -p cowboy-node --test devnet
//! sim_<scenario>` runs that seed alone (add `SIM_LOG=info` for the logs); `SIM_SEEDS=<k>`
//! runs seeds `0..k` (default 5).
//!
//! Each scenario submits real transfers (one per dev account, to honest validators at
//! seeded times) and asserts, for every seed:
//! - *safety*: no two honest validators finalized different blocks at one height, and each
//!   one's committed state root is the one its head's header names (so state roots agree at
//!   every common height);
//! - *liveness* (fewer than a third faulty, the network healed): within [`DEADLINE`] of
//!   virtual time every live honest validator finalizes up to [`TARGET_HEIGHT`] and holds
//!   every submitted transfer in its finalized chain;
//! - *the beacon*: every run's genesis deals a threshold group (`t` = 2f + 1 of the genesis
//!   validators, seeded), and every finalized block above exec's `BEACON_LAG` carries the
//!   group's signature over the block `BEACON_LAG` below it on the same chain, checked by
//!   exec's rule against that node's own ancestor, and its randomness is that signature's
//!   hash ([`sim_beacon_withheld`]: `f` validators never send their partials);
//! - for an equivocator: some honest validator's reporter recorded attributable evidence
//!   naming it ([`cowboy_node::consensus::Evidence`]), and that evidence, submitted in a
//!   transaction to the staking actor, is final everywhere and jails and slashes it; for an
//!   invalid proposer, likewise, the evidence of its proposal jails it without a slash; for
//!   conflicting voters, evidence in at least one seed of those run (see [`scenario`]), and in
//!   each such seed that evidence submitted jails and slashes every one of them; never
//!   against an honest validator.
//!
//! The faults: crashed validators (`f` of them stop mid-run), a partition cutting `f`
//! validators off that heals, one into two halves without a quorum that heals, lossy and slow links, an equivocating leader (a validator
//! run twice with one key, each twin seeing half the network, so when it leads the two
//! build different valid blocks: the "twins" model), a validator voting for conflicting
//! blocks (commonware's `conflicter`), one that never votes, one that sends random
//! bytes on every channel, and a leader whose proposals break the block rule. A run of its own ([`sim_epochs_follow_the_staked_set`]) crosses
//! epoch boundaries with short epochs while a fifth node stakes and joins the set.

use std::sync::Arc;
use std::time::Duration;

use commonware_consensus::simplex::mocks::conflicter;
use commonware_cryptography::bls12381::primitives::group::Share;
use commonware_cryptography::{ed25519, Sha256, Signer as _};
use commonware_p2p::simulated::{self, Link, Oracle, SplitOrigin, SplitTarget};
use commonware_p2p::{Receiver as _, Recipients, Sender as _};
use commonware_runtime::{deterministic, Clock, IoBuf, Runner as _, Spawner as _, Supervisor as _};
use commonware_utils::ordered::{Quorum as _, Set};
use commonware_utils::{probability, TryFromIterator};
use cowboy_exec::beacon;
use cowboy_node::beacon::BEACON_CHANNEL;
use cowboy_node::chain::{Chain, SnapshotBase};
use cowboy_node::consensus::{Evidence, FaultKind, ProposalTamper, Scheme, VOTES_CHANNEL};
use cowboy_node::devnet::{genesis, staked_genesis, validator_key};
use cowboy_node::genesis::{beacon_group_key, deal_beacon};
use cowboy_node::genesis::{dev_account, Genesis};
use cowboy_node::mempool::Mempool;
use cowboy_node::node::{
    channel_quotas, start_validator, Validator, ValidatorConfig, MAX_P2P_MESSAGE_BYTES,
};
use cowboy_node::production::{Mining, Production};
use cowboy_types::block::Block;
use cowboy_types::{keccak256, Address};
use rand::rngs::ChaCha20Rng;
use rand::SeedableRng as _;
use rand_core::Rng as _;
use tokio::sync::Mutex;

use super::transfer;

type Ctx = deterministic::Context;
type Key = ed25519::PublicKey;

/// Height every live honest validator must finalize.
const TARGET_HEIGHT: u64 = 8;
/// Virtual time a run may take before liveness is declared lost.
const DEADLINE: Duration = Duration::from_secs(180);
/// The leader's block interval.
const BLOCK_TIME: Duration = Duration::from_millis(200);
/// When faults start (crash, partition) and when a partition heals.
const FAULT_AT: Duration = Duration::from_secs(1);
const HEAL_AT: Duration = Duration::from_secs(8);

/// What goes wrong in a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fault {
    /// `f` validators stop at [`FAULT_AT`] and never come back.
    Crash,
    /// From [`FAULT_AT`] to [`HEAL_AT`] validators `0..f` are cut off from the others (the
    /// others keep a quorum; the cut-off ones catch up after).
    Partition,
    /// From [`FAULT_AT`] to [`HEAL_AT`] the network is cut in two halves, neither a quorum.
    Split,
    /// Every link is slow, jittery and drops messages.
    Lossy,
    /// Validator 0 runs as twins (one key, two nodes, each seeing half the network).
    Equivocator,
    /// `f` validators sign a second, random proposal for every vote they see.
    Conflicter,
    /// `f` validators run the real node but never send a vote.
    Mute,
    /// `f` validators send random bytes on every channel.
    Garbage,
    /// Validator 0 proposes blocks invalid without state, so its notarize is evidence that
    /// jails it: on even seeds they break the header rule against their parent (a basefee off
    /// by one; the evidence carries the header and the parent's), on odd seeds they end with
    /// an unsigned transaction (the evidence carries it and its path under `tx_root`).
    InvalidProposer,
    /// `f` validators run the real node but never send a beacon partial signature.
    NoPartials,
}

/// The seeds to run: `SIM_SEED` alone, or `0..SIM_SEEDS` (default 5).
fn seeds() -> Vec<u64> {
    let var = |name: &str| std::env::var(name).ok().and_then(|v| v.parse::<u64>().ok());
    match var("SIM_SEED") {
        Some(seed) => vec![seed],
        None => (0..var("SIM_SEEDS").unwrap_or(5)).collect(),
    }
}

/// Run `fault` for n = 4 and n = 7 over every seed.
fn scenario(fault: Fault) {
    for n in [4, 7] {
        let mut accused_in = Vec::new();
        for seed in seeds() {
            if run(fault, n, seed) {
                accused_in.push(seed);
            }
        }
        // A conflicting vote that reaches a validator after the leader's proposal is dropped
        // (and its sender blocked) without evidence, since only one of the two signed votes
        // is held; whether the other came first depends on the seed (commonware's own
        // tests say the same). Over the seeds run, some must have produced it.
        if fault == Fault::Conflicter {
            assert!(
                !accused_in.is_empty(),
                "n {n}, {fault:?}: no seed of {:?} recorded evidence against every conflicting voter",
                seeds()
            );
        }
    }
}

#[test]
fn sim_crash() {
    scenario(Fault::Crash);
}

#[test]
fn sim_partition_heals() {
    scenario(Fault::Partition);
}

/// Two halves without a quorum, healed. Seed 0, n = 7 notarizes a block before the split whose
/// finalize votes are lost: the next leader must build on it while it is only notarized. This
/// halted the chain for good while the node built and verified only on finalized parents
/// (every later view was nullified); it passes since blocks execute on a notarized parent's
/// staged state (`cowboy_node::chain`, "Execution model").
#[test]
fn sim_split_without_quorum_heals() {
    scenario(Fault::Split);
}

#[test]
fn sim_lossy_links() {
    scenario(Fault::Lossy);
}

#[test]
fn sim_equivocating_leader() {
    scenario(Fault::Equivocator);
}

/// An equivocating leader that holds a derived seat (n = 7, validator 0 staking twice the
/// others: two of eight seats, `F` = 2, a quorum six): each twin's votes are copied to its
/// derived seat, and the evidence the engine reports at its own seat is re-indexed to the
/// member, final on chain, and jails and slashes it, as with one seat. For every seed.
#[test]
fn sim_equivocating_leader_holding_two_seats() {
    for seed in seeds() {
        assert!(
            run_staked(Fault::Equivocator, &[2, 1, 1, 1, 1, 1, 1], seed),
            "seed {seed}: no evidence against the equivocator"
        );
    }
}

#[test]
fn sim_conflicting_voter() {
    scenario(Fault::Conflicter);
}

#[test]
fn sim_never_votes() {
    scenario(Fault::Mute);
}

#[test]
fn sim_invalid_proposer_is_jailed() {
    scenario(Fault::InvalidProposer);
}

#[test]
fn sim_beacon_withheld() {
    scenario(Fault::NoPartials);
}

#[test]
fn sim_garbage_sender() {
    scenario(Fault::Garbage);
}

/// A validator run on the real node code.
struct SimNode {
    /// Its index in the genesis validator list.
    index: usize,
    chain: Arc<Mutex<Chain<Ctx>>>,
    validator: Validator<Ctx>,
    /// Holds the chain's data directory (genesis file, pending blocks) for the run.
    _dir: tempfile::TempDir,
}

impl SimNode {
    /// The reader of its last committed state (published once its chain opened).
    async fn reader(&self) -> Arc<cowboy_node::reader::Reader<Ctx>> {
        let readers = self.chain.lock().await.readers();
        let reader = readers.borrow().clone();
        reader.expect("a published reader")
    }
}

/// Everything a validator is started with besides its channels and runtime context, owned,
/// so that it can be started inside a task of its own ([`World::start_crashable`]).
struct Launch {
    i: usize,
    name: String,
    coinbase: Address,
    tamper: Option<ProposalTamper>,
    dir: tempfile::TempDir,
    genesis: Genesis,
    share: Option<Share>,
    blocker: simulated::Control<Key, Ctx>,
    seed: u64,
}

impl Launch {
    /// Open its chain in its directory (resuming what is there) and start the node's
    /// consensus side on `channels`, in `context`.
    async fn start(
        self,
        context: Ctx,
        channels: Vec<(
            impl commonware_p2p::Sender<PublicKey = Key>,
            impl commonware_p2p::Receiver<PublicKey = Key>,
        )>,
    ) -> SimNode {
        let Launch {
            i,
            name,
            coinbase,
            tamper,
            dir,
            genesis,
            share,
            blocker,
            seed,
        } = self;
        let chain = Chain::open(
            context.child("chain"),
            dir.path(),
            &format!("{name}-"),
            genesis.clone(),
            Mempool::new(10_000, 64 << 20),
            1_000,
        )
        .await
        .unwrap_or_else(|e| panic!("seed {seed}: open chain {name}: {e}"));
        let chain = Arc::new(Mutex::new(chain));
        let production = Arc::new(Production::new(
            Mining::Interval(BLOCK_TIME),
            Arc::new(context.child("clock")),
        ));
        let channels: [_; 8] = channels
            .try_into()
            .unwrap_or_else(|_| panic!("eight channels"));
        let validator = start_validator(
            &context,
            chain.clone(),
            ValidatorConfig {
                genesis,
                key: validator_key(i),
                coinbase,
                production,
                dev: false,
                tamper,
                partition_prefix: format!("{name}-"),
                peer_bound: cowboy_node::epochs::MAX_PEERS,
                full_node: false,
                followers: Vec::new(),
                beacon_share: share,
                share_round: 0,
                share_dir: Some(dir.path().to_path_buf()),
            },
            channels,
            blocker,
            // The simulated network connects every validator for the whole run.
            Box::new(|_, _| {}),
        )
        .await
        .unwrap_or_else(|e| panic!("seed {seed}: start {name}: {e}"));
        SimNode {
            index: i,
            chain,
            validator,
            _dir: dir,
        }
    }
}

/// Which twin half hears a peer.
type Hears = Arc<dyn Fn(&Key) -> SplitTarget + Send + Sync>;

/// Which peers a twin half talks to (`None`: every peer).
type Route = Option<Arc<dyn Fn(SplitOrigin, &Key) -> bool + Send + Sync>>;

/// A sender filter: a message goes to the recipients `route` allows for its sender's half.
/// Every simulated node sends through one, so all have the same channel types.
fn forwarder(
    route: Route,
    peers: Arc<Vec<Key>>,
) -> impl Fn(SplitOrigin, &Recipients<Key>, &IoBuf) -> Option<Recipients<Key>>
       + Send
       + Sync
       + Clone
       + 'static {
    move |origin, recipients, _| {
        let Some(route) = &route else {
            return Some(recipients.clone());
        };
        let allowed: Vec<Key> = match recipients {
            Recipients::All => peers.iter().filter(|p| route(origin, p)).cloned().collect(),
            Recipients::Some(list) => list.iter().filter(|p| route(origin, p)).cloned().collect(),
            Recipients::One(p) => [p.clone()]
                .into_iter()
                .filter(|p| route(origin, p))
                .collect(),
        };
        (!allowed.is_empty()).then_some(Recipients::Some(allowed))
    }
}

/// Everything one run shares.
struct World {
    context: Ctx,
    oracle: Oracle<Key, Ctx>,
    genesis: Genesis,
    keys: Vec<Key>,
    seed: u64,
    /// Each validator's beacon share, by validator index (none for one outside the genesis).
    shares: Vec<Option<Share>>,
}

impl World {
    /// The simulated network of the first `nodes` validator keys (the genesis may name fewer:
    /// the others stake later) under `seed`, every node a peer of every other.
    async fn with_genesis(context: Ctx, mut genesis: Genesis, nodes: usize, seed: u64) -> World {
        let keys: Vec<Key> = (0..nodes).map(|i| validator_key(i).public_key()).collect();
        // The beacon group, dealt to the genesis validators from the run's seed, unless the
        // genesis has them generate it on chain.
        let members: Vec<Key> = genesis
            .validators
            .iter()
            .map(|v| v.public_key.clone())
            .collect();
        let mut dealt = Vec::new();
        if !genesis.params.beacon_by_dkg() {
            let (sharing, shares) =
                deal_beacon(ChaCha20Rng::seed_from_u64(seed), &members).expect("deal");
            genesis.params.beacon_group_key = Some(beacon_group_key(&sharing));
            genesis.beacon = Some(sharing);
            dealt = shares;
        }
        let shares = keys
            .iter()
            .map(|k| dealt.iter().find(|(m, _)| m == k).map(|(_, s)| s.clone()))
            .collect();
        let (network, oracle) = simulated::Network::new_with_peers(
            context.child("network"),
            simulated::Config {
                max_size: MAX_P2P_MESSAGE_BYTES,
                max_peers_per_set: std::num::NonZeroUsize::new(nodes).expect("nodes > 0"),
                disconnect_on_block: true,
                tracked_peer_sets: std::num::NonZeroUsize::MIN,
            },
            keys.clone(),
        )
        .await;
        network.start();
        World {
            context,
            oracle,
            genesis,
            keys,
            seed,
            shares,
        }
    }

    /// Start validator `i` as `v{i}` on its own channels (no routing, no twin), tips to its
    /// coinbase.
    async fn start_plain(&self, i: usize) -> SimNode {
        let channels = self.channels(i, |_| None, None).await;
        let channels = channels.into_iter().map(|(primary, _)| primary).collect();
        self.start(i, &format!("v{i}"), self.coinbase(i), channels)
            .await
    }

    /// Where validator `i`'s tips go (a validator outside the genesis: `[0xC0 + i; 20]`).
    fn coinbase(&self, i: usize) -> Address {
        self.genesis
            .validators
            .get(i)
            .map_or(Address([0xC0 + i as u8; 20]), |v| v.coinbase)
    }

    /// Register validator `i`'s channels, each split into two halves that send as
    /// `route(channel)` allows (the second half is used only by twins; `receive` picks which
    /// half hears a peer).
    async fn channels(
        &self,
        i: usize,
        route: impl Fn(u64) -> Route,
        receive: Option<Hears>,
    ) -> Vec<(
        (
            simulated::SplitSender<Key, Ctx, impl simulated::SplitForwarder<Key>>,
            simulated::Receiver<Key>,
        ),
        (
            simulated::SplitSender<Key, Ctx, impl simulated::SplitForwarder<Key>>,
            simulated::Receiver<Key>,
        ),
    )> {
        let peers: Arc<Vec<Key>> = Arc::new(
            self.keys
                .iter()
                .filter(|k| **k != self.keys[i])
                .cloned()
                .collect(),
        );
        let control = self.oracle.control(self.keys[i].clone());
        let mut out = Vec::new();
        for (channel, quota) in channel_quotas() {
            let (sender, receiver) = control
                .register(channel, quota)
                .await
                .expect("register a channel");
            let (primary, secondary) = sender.split_with(forwarder(route(channel), peers.clone()));
            let (rx_primary, rx_secondary) = match &receive {
                Some(pick) => {
                    let pick = pick.clone();
                    receiver.split_with(self.context.child("split"), move |(from, _)| pick(from))
                }
                None => {
                    // The second half is never read: route nothing to it.
                    receiver.split_with(self.context.child("split"), |_| SplitTarget::Primary)
                }
            };
            out.push(((primary, rx_primary), (secondary, rx_secondary)));
        }
        out
    }

    /// Start validator `i` on the node's code with `channels`; `name` tells twins apart, and
    /// `coinbase` gives each twin blocks of its own.
    async fn start(
        &self,
        i: usize,
        name: &str,
        coinbase: Address,
        channels: Vec<(
            impl commonware_p2p::Sender<PublicKey = Key>,
            impl commonware_p2p::Receiver<PublicKey = Key>,
        )>,
    ) -> SimNode {
        self.start_with(i, name, coinbase, channels, None).await
    }

    /// [`World::start`], rewriting each block it proposes with `tamper` if given.
    async fn start_with(
        &self,
        i: usize,
        name: &str,
        coinbase: Address,
        channels: Vec<(
            impl commonware_p2p::Sender<PublicKey = Key>,
            impl commonware_p2p::Receiver<PublicKey = Key>,
        )>,
        tamper: Option<ProposalTamper>,
    ) -> SimNode {
        let dir = tempfile::tempdir().expect("temp dir");
        let context = self.context.child("validator").with_attribute("name", name);
        let launch = self.launch(i, name, coinbase, tamper, dir);
        launch.start(context, channels).await
    }

    /// What validator `i` is started with besides its channels and runtime context, owned
    /// (see [`Launch`]); its data directory is `dir`.
    fn launch(
        &self,
        i: usize,
        name: &str,
        coinbase: Address,
        tamper: Option<ProposalTamper>,
        dir: tempfile::TempDir,
    ) -> Launch {
        Launch {
            i,
            name: name.to_string(),
            coinbase,
            tamper,
            dir,
            genesis: self.genesis.clone(),
            share: self.shares.get(i).cloned().flatten(),
            blocker: self.oracle.control(self.keys[i].clone()),
            seed: self.seed,
        }
    }

    /// Start validator `i` (a genesis validator, on its own coinbase) in data directory `dir`
    /// (its chain's files; its storage partitions are named after `v<i>` in the runtime's
    /// storage, so a directory a crashed run of it left is reopened with them) inside a task
    /// of its own: every task the node spawns descends from that task, so aborting the
    /// returned handle stops the whole node at once, as `kill -9` does a process
    /// ([`World::crash`]); a restart's stores see only what the crashed run synced (the
    /// runtime's storage reopens a blob with its synced contents). Its channels are
    /// registered anew (replacing a crashed run's).
    async fn start_crashable(
        &self,
        i: usize,
        dir: tempfile::TempDir,
    ) -> (SimNode, commonware_runtime::Handle<()>) {
        let channels = self.channels(i, |_| None, None).await;
        let channels: Vec<_> = channels.into_iter().map(|(primary, _)| primary).collect();
        let name = format!("v{i}");
        let launch = self.launch(i, &name, self.coinbase(i), None, dir);
        let (started, node) = tokio::sync::oneshot::channel();
        let host = self.context.child("host").spawn(move |context| async move {
            let context = context.child("validator").with_attribute("name", name);
            let node = launch.start(context, channels).await;
            let _ = started.send(node);
            // The node's tasks live as long as this one.
            std::future::pending::<()>().await
        });
        let node = node.await.expect("the node started");
        (node, host)
    }

    /// Crash `node` (started by [`World::start_crashable`] as `host`): abort its task and so
    /// every task of the node, and wait until nothing holds its chain any more (its stores
    /// closed, as in a process that died). Returns its data directory, to restart it in.
    async fn crash(
        &self,
        node: SimNode,
        host: commonware_runtime::Handle<()>,
    ) -> tempfile::TempDir {
        let SimNode {
            index,
            chain,
            validator,
            _dir: dir,
        } = node;
        host.abort();
        drop(validator);
        let held = Arc::downgrade(&chain);
        drop(chain);
        let since = self.context.current();
        while held.strong_count() > 0 {
            let waited = self
                .context
                .current()
                .duration_since(since)
                .unwrap_or_default();
            assert!(
                waited < Duration::from_secs(10),
                "seed {}: validator {index}'s chain is still held {waited:?} after its crash",
                self.seed
            );
            self.context.sleep(Duration::from_millis(1)).await;
        }
        dir
    }

    /// Connect every pair of validators (both directions) with `link`.
    async fn link_all(&self, link: &Link, between: impl Fn(usize, usize) -> bool) {
        for (a, ka) in self.keys.iter().enumerate() {
            for (b, kb) in self.keys.iter().enumerate() {
                if a != b && between(a, b) {
                    self.oracle
                        .add_link(ka.clone(), kb.clone(), link.clone())
                        .await
                        .expect("add link");
                }
            }
        }
    }

    /// Cut every link between `a` and `b` for which `between` holds.
    async fn unlink(&self, between: impl Fn(usize, usize) -> bool) {
        for (a, ka) in self.keys.iter().enumerate() {
            for (b, kb) in self.keys.iter().enumerate() {
                if a != b && between(a, b) {
                    // A link already cut (a crashed peer) is fine.
                    let _ = self.oracle.remove_link(ka.clone(), kb.clone()).await;
                }
            }
        }
    }
}

fn good_link() -> Link {
    Link {
        latency: Duration::from_millis(20),
        jitter: Duration::from_millis(5),
        success_rate: probability!(1.0),
    }
}

/// Start a Byzantine validator `i` that sends random bytes on every channel to every peer.
async fn start_garbage(world: &World, i: usize) {
    let control = world.oracle.control(world.keys[i].clone());
    for (channel, quota) in channel_quotas() {
        let (mut sender, mut receiver) = control.register(channel, quota).await.expect("register");
        world
            .context
            .child("garbage")
            .spawn(move |mut context| async move {
                loop {
                    let len = (context.next_u32() % 2048) as usize;
                    let mut bytes = vec![0u8; len];
                    context.fill_bytes(&mut bytes);
                    let _ = sender.send(Recipients::All, bytes, false);
                    context.sleep(Duration::from_millis(20)).await;
                }
            });
        // Drain what it is sent, as a node would.
        world
            .context
            .child("garbage_drain")
            .spawn(move |_| async move { while receiver.recv().await.is_ok() {} });
    }
}

/// Start a Byzantine validator `i` running commonware's conflicter: for every vote it sees
/// it signs the same proposal and a random one, and sends both to everyone.
async fn start_conflicter(world: &World, i: usize) {
    let control = world.oracle.control(world.keys[i].clone());
    let (votes, quota) = channel_quotas()[0];
    let (sender, receiver) = control.register(votes, quota).await.expect("register");
    // Votes travel on the epoch's subchannel (`cowboy_node::epochs`); the runs stay in epoch 0.
    let (muxer, mut handle) = commonware_p2p::utils::mux::Muxer::new(
        world.context.child("conflicter_mux"),
        sender,
        receiver,
    );
    muxer.start();
    let network = handle.register(0).await.expect("epoch 0's subchannel");
    let namespace = cowboy_exec::system::staking::consensus_namespace(world.genesis.chain_id);
    let participants = Set::try_from_iter(world.keys.iter().cloned()).expect("distinct keys");
    let scheme =
        Scheme::signer(&namespace, participants.into(), validator_key(i)).expect("a participant");
    conflicter::Conflicter::<_, _, Sha256>::new(
        world.context.child("conflicter"),
        conflicter::Config { scheme },
    )
    .start(network);
}

/// The finalized chain of `node`: (hash, state root, transactions) per height, after
/// checking that its committed state is the one its head names.
async fn finalized(node: &SimNode, seed: u64) -> Vec<([u8; 32], [u8; 32], usize)> {
    let reader = node.reader().await;
    let root = reader.state.root().expect("state root");
    assert_eq!(
        root, reader.head.header.state_root.0,
        "seed {seed}: validator {}'s committed state root differs from its head's header",
        node.index
    );
    let mut out = Vec::new();
    for h in 0..=reader.head.header.height {
        let block = reader
            .block(h)
            .await
            .expect("read a block")
            .unwrap_or_else(|| panic!("seed {seed}: validator {} lacks block {h}", node.index));
        out.push((
            block.header.hash().0,
            block.header.state_root.0,
            block.transactions.len(),
        ));
    }
    out
}

/// How many of the transactions `sent` are not in `node`'s finalized chain.
async fn unfinalized(node: &SimNode, sent: &[cowboy_types::Hash32]) -> usize {
    let reader = node.reader().await;
    let mut missing = 0;
    for hash in sent {
        let found = reader
            .blocks
            .tx_location(&hash.0)
            .await
            .expect("read the tx index");
        missing += usize::from(found.is_none());
    }
    missing
}

/// Submit `tx` to `node` as the RPC does: admit it, wake the producer, gossip it.
async fn submit(node: &SimNode, bytes: Vec<u8>) -> bool {
    let mut chain = node.chain.lock().await;
    match chain.submit(&bytes).await {
        Ok(Ok(hash)) => {
            drop(chain);
            node.validator.gossip.admitted(hash, &bytes);
            true
        }
        _ => false,
    }
}

/// The deterministic runtime of one run under `seed` (with logs if `SIM_LOG` asks), which
/// fails the run a minute past [`DEADLINE`].
fn runner(seed: u64) -> deterministic::Runner {
    init_logs();
    let config = deterministic::Config::new()
        .with_seed(seed)
        .with_timeout(Some(DEADLINE + Duration::from_secs(60)));
    deterministic::Runner::new(config)
}

/// Logs of a run being reproduced (`SIM_LOG=info SIM_SEED=…`).
fn init_logs() {
    if let Ok(filter) = std::env::var("SIM_LOG") {
        let _ = tracing_subscriber::fmt()
            .with_env_filter(tracing_subscriber::EnvFilter::new(filter))
            .with_test_writer()
            .try_init();
    }
}

/// One run of `fault` with `n` validators under `seed` (see the module docs).
/// Returns whether evidence was recorded against every faulty validator.
fn run(fault: Fault, n: usize, seed: u64) -> bool {
    run_staked(fault, &vec![1; n], seed)
}

/// [`run`] with validator `i` staking `stakes[i]` times the minimum (unequal seats).
fn run_staked(fault: Fault, stakes: &[u64], seed: u64) -> bool {
    let n = stakes.len();
    let genesis = staked_genesis(stakes, "127.0.0.1:30333".parse().expect("address"));
    runner(seed).start(|context| async move {
        let world = World::with_genesis(context, genesis, n, seed).await;
        let f = (n - 1) / 3;
        let link = match fault {
            Fault::Lossy => Link {
                latency: Duration::from_millis(150),
                jitter: Duration::from_millis(100),
                success_rate: probability!(0.85),
            },
            _ => good_link(),
        };
        world.link_all(&link, |_, _| true).await;

        // Validators 0..f (0 alone for twins) are the faulty ones.
        let faulty: Vec<usize> = match fault {
            Fault::Equivocator | Fault::InvalidProposer => vec![0],
            Fault::Split | Fault::Lossy => Vec::new(),
            Fault::Crash | Fault::Partition | Fault::Conflicter | Fault::Mute | Fault::Garbage | Fault::NoPartials => (0..f).collect(),
        };
        let mut honest = Vec::new();
        for i in 0..n {
            let byzantine =
                faulty.contains(&i) && !matches!(fault, Fault::Crash | Fault::Partition);
            if byzantine {
                continue;
            }
            honest.push(world.start_plain(i).await);
        }
        // Twins and mute validators run the node's code too; they are kept to the end of
        // the run but take no part in the assertions.
        let mut byzantine_nodes = Vec::new();
        for &i in &faulty {
            match fault {
                Fault::Garbage => start_garbage(&world, i).await,
                Fault::Conflicter => start_conflicter(&world, i).await,
                Fault::Mute | Fault::NoPartials => {
                    let silenced = if fault == Fault::Mute { VOTES_CHANNEL } else { BEACON_CHANNEL };
                    let route = move |channel| -> Route {
                        (channel == silenced).then(|| Arc::new(|_: SplitOrigin, _: &Key| false) as _)
                    };
                    let channels = world.channels(i, route, None).await;
                    let channels = channels.into_iter().map(|(primary, _)| primary).collect();
                    byzantine_nodes.push(world.start(i, &format!("v{i}"), world.coinbase(i), channels).await);
                }
                Fault::Equivocator => byzantine_nodes.extend(start_twins(&world, i).await),
                Fault::InvalidProposer => {
                    let channels = world.channels(i, |_| None, None).await;
                    let channels = channels.into_iter().map(|(primary, _)| primary).collect();
                    let tamper: ProposalTamper = if world.seed.is_multiple_of(2) {
                        Arc::new(|mut block: Block| {
                            block.header.cycle_basefee += 1;
                            block
                        })
                    } else {
                        Arc::new(|mut block: Block| {
                            let mut unsigned = transfer(&dev_account(3), 0, Address([9; 20]), 1, 100_000, 0);
                            unsigned.signature = None;
                            block.transactions.push(unsigned);
                            block.header.tx_root = Block::tx_root(&block.transactions);
                            block
                        })
                    };
                    let name = format!("v{i}");
                    byzantine_nodes.push(world.start_with(i, &name, world.coinbase(i), channels, Some(tamper)).await);
                }
                Fault::Crash | Fault::Partition | Fault::Split | Fault::Lossy => {}
            }
        }

        // Transfers, one per dev account, to honest validators at seeded times.
        let mut rng = world.context.child("transfers");
        let live: Vec<usize> = (0..honest.len())
            .filter(|k| !(fault == Fault::Crash && faulty.contains(&honest[*k].index)))
            .collect();
        let mut sent = Vec::new();
        let mut schedule = Vec::new();
        for account in 0..cowboy_node::genesis::DEV_ACCOUNTS {
            let at = Duration::from_millis(200 + u64::from(rng.next_u32() % 1_500));
            let to = live[rng.next_u32() as usize % live.len()];
            schedule.push((at, account, to));
        }
        schedule.sort();

        let mut faults_started = false;
        let mut healed = false;
        let mut pending = schedule.into_iter().peekable();
        let start = world.context.current();
        loop {
            let elapsed = world.context.current().duration_since(start).unwrap_or_default();
            while let Some((at, account, to)) = pending.peek().copied() {
                if at > elapsed {
                    break;
                }
                pending.next();
                let key = dev_account(account);
                let tx = transfer(&key, 0, Address([account as u8 + 1; 20]), 1_000 + u128::from(account), 100_000, 1);
                if submit(&honest[to], tx.encode()).await {
                    sent.push(tx.hash());
                }
            }
            if !faults_started && elapsed >= FAULT_AT {
                faults_started = true;
                match fault {
                    Fault::Crash => {
                        for node in honest.iter().filter(|n| faulty.contains(&n.index)) {
                            node.validator.consensus.stop();
                        }
                        world.unlink(|a, b| faulty.contains(&a) || faulty.contains(&b)).await;
                    }
                    Fault::Partition => {
                        world.unlink(|a, b| faulty.contains(&a) != faulty.contains(&b)).await
                    }
                    Fault::Split => world.unlink(|a, b| (a < n / 2) != (b < n / 2)).await,
                    _ => {}
                }
            }
            if !healed && elapsed >= HEAL_AT {
                healed = true;
                match fault {
                    Fault::Partition => {
                        world.link_all(&link, |a, b| faulty.contains(&a) != faulty.contains(&b)).await
                    }
                    Fault::Split => world.link_all(&link, |a, b| (a < n / 2) != (b < n / 2)).await,
                    _ => {}
                }
            }
            let mut heights = Vec::new();
            let mut missing = 0;
            for k in &live {
                let node = &honest[*k];
                heights.push(node.chain.lock().await.head().header.height);
                missing += unfinalized(node, &sent).await;
            }
            let lowest = heights.iter().copied().min().unwrap_or(0);
            // Evidence is reported only when one validator holds both conflicting votes; the
            // twins' witness hears both, so an equivocator's run lasts until it is.
            let accused = accused(&world, &honest, &faulty);
            let evidence_due = matches!(fault, Fault::Equivocator | Fault::InvalidProposer)
                && accused.len() < faulty.len();
            if lowest >= TARGET_HEIGHT && pending.peek().is_none() && missing == 0 && !evidence_due {
                break;
            }
            assert!(
                elapsed < DEADLINE,
                "seed {seed}, n {n}, {fault:?}: no liveness after {elapsed:?}: the live honest validators are at heights {heights:?} (target {TARGET_HEIGHT}), {missing} submitted transfers are not final at every live validator, evidence against {accused:?} of {faulty:?}"
            );
            world.context.sleep(Duration::from_millis(50)).await;
        }

        check(&world, fault, n, &honest, &faulty, &sent).await;
        match fault {
            Fault::Equivocator => punish_with_reported_evidence(&world, n, &honest, faulty[0], true).await,
            Fault::InvalidProposer => punish_with_reported_evidence(&world, n, &honest, faulty[0], false).await,
            // Where the seed produced evidence against every conflicting voter, it slashes
            // each of them on chain too.
            Fault::Conflicter if accused(&world, &honest, &faulty) == faulty => {
                for offender in &faulty {
                    punish_with_reported_evidence(&world, n, &honest, *offender, true).await;
                }
            }
            _ => {}
        }
        drop(byzantine_nodes);
        accused(&world, &honest, &faulty) == faulty
    })
}

/// The evidence an honest validator's consensus reported against validator `offender`,
/// submitted by a dev account in a transaction to the staking actor as anyone may
/// (`cowboy validator submit-evidence`), must be final at every honest validator with a
/// successful receipt that jails `offender` and slashes it if `slashed` (double signing; an
/// invalid proposal jails only): the report, the node's encoding and the chain's
/// verification agree.
async fn punish_with_reported_evidence(
    world: &World,
    n: usize,
    honest: &[SimNode],
    offender: usize,
    slashed: bool,
) {
    let seed = world.seed;
    let participants = Set::try_from_iter(world.keys.iter().cloned()).expect("distinct keys");
    let signer = participants.index(&world.keys[offender]).map(|p| p.get());
    let kind_wanted = |e: &Evidence| (e.kind == FaultKind::InvalidProposal) != slashed;
    let evidence = honest
        .iter()
        .flat_map(|node| node.validator.application.evidence())
        .find(|e| Some(e.signer) == signer && kind_wanted(e))
        .unwrap_or_else(|| panic!("seed {seed}, n {n}: no evidence against {offender}"));
    if !slashed {
        // The invalid proposer's fault follows the seed's parity (`Fault::InvalidProposer`),
        // and with it what the evidence shows: the header and its parent's, or one transaction
        // and its path.
        use cowboy_exec::system::staking::{INVALID_HEADER, INVALID_TRANSACTION};
        let form = if seed.is_multiple_of(2) {
            INVALID_HEADER
        } else {
            INVALID_TRANSACTION
        };
        assert_eq!(
            evidence.bytes[0], form,
            "seed {seed}, n {n}: the evidence's form"
        );
    }
    let key = dev_account(0);
    let node = &honest[0];
    let nonce = {
        let reader = node.reader().await;
        reader.account(&key.address()).await.expect("account").nonce
    };
    let tx = staking_call(
        &key,
        nonce,
        "submit_evidence",
        vec![cowboy_types::cbor::Value::Bytes(evidence.bytes.clone())],
        0,
    );
    let hash = tx.hash();
    assert!(
        submit(node, tx.encode()).await,
        "seed {seed}, n {n}: evidence tx refused"
    );
    let start = world.context.current();
    loop {
        let mut missing = 0;
        for node in honest {
            missing += unfinalized(node, &[hash]).await;
        }
        if missing == 0 {
            break;
        }
        let waited = world
            .context
            .current()
            .duration_since(start)
            .unwrap_or_default();
        assert!(waited < DEADLINE, "seed {seed}, n {n}: the evidence transaction is not final at every honest validator after {waited:?}");
        world.context.sleep(Duration::from_millis(50)).await;
    }
    for node in honest {
        let reader = node.reader().await;
        let (height, index) = reader
            .tx_location(&hash)
            .await
            .expect("index")
            .expect("final");
        let receipts = reader.receipts(height).await.expect("receipts");
        let receipt = &receipts[index as usize];
        assert!(
            receipt.success,
            "seed {seed}, n {n}: validator {}: submit_evidence failed: {:?}",
            node.index, receipt.error
        );
        let topics: Vec<&str> = receipt.events.iter().map(|e| e.topic.as_str()).collect();
        assert!(
            topics.contains(&"ValidatorSlashed") == slashed
                && topics.contains(&"ValidatorJailed")
                && topics.contains(&"EvidenceAccepted"),
            "seed {seed}, n {n}: validator {}: events {topics:?}",
            node.index
        );
    }
}

/// The faulty validators some honest validator recorded evidence against.
fn accused(world: &World, honest: &[SimNode], faulty: &[usize]) -> Vec<usize> {
    let participants = Set::try_from_iter(world.keys.iter().cloned()).expect("distinct keys");
    let evidence: Vec<Evidence> = honest
        .iter()
        .flat_map(|node| node.validator.application.evidence())
        .collect();
    faulty
        .iter()
        .copied()
        .filter(|i| {
            let signer = participants.index(&world.keys[*i]).map(|p| p.get());
            evidence.iter().any(|e| Some(e.signer) == signer)
        })
        .collect()
}

/// A call of the staking actor's `handler` signed by `key`, carrying `value`.
fn staking_call(
    key: &cowboy_types::PrivateKey,
    nonce: u64,
    handler: &str,
    args: Vec<cowboy_types::cbor::Value>,
    value: u128,
) -> cowboy_types::Transaction {
    let mut tx = cowboy_types::Transaction {
        chain_id: 1337,
        nonce,
        to: Some(cowboy_types::system::STAKING),
        value,
        // Within the system lane's budget (5 % of the block cap), which the staking actor's
        // writes run in.
        cycles_limit: 500_000,
        cells_limit: 100_000,
        max_fee_per_cycle: 10_000_000_000,
        max_fee_per_cell: 10_000_000_000,
        tip_per_cycle: 1,
        tip_per_cell: 1,
        access_list: None,
        payload: cowboy_types::tx::Payload::Call {
            handler: handler.into(),
            args: cowboy_types::cbor::Value::Array(args),
        }
        .encode(),
        signature: None,
    };
    tx.sign(key).expect("sign");
    tx
}

/// The assertions of a finished run (see the module docs).
async fn check(
    world: &World,
    fault: Fault,
    n: usize,
    honest: &[SimNode],
    faulty: &[usize],
    sent: &[cowboy_types::Hash32],
) {
    let seed = world.seed;
    let chains = {
        let mut chains = Vec::new();
        for node in honest {
            chains.push(finalized(node, seed).await);
        }
        chains
    };
    // Safety: one block per height across every honest validator (crashed ones included).
    let tallest = chains.iter().map(Vec::len).max().unwrap_or(0);
    for h in 0..tallest {
        let mut seen: Option<(usize, [u8; 32], [u8; 32])> = None;
        for (node, chain) in honest.iter().zip(&chains) {
            let Some((hash, root, _)) = chain.get(h) else {
                continue;
            };
            match seen {
                None => seen = Some((node.index, *hash, *root)),
                Some((first, h0, r0)) => {
                    assert_eq!(
                        (*hash, *root),
                        (h0, r0),
                        "seed {seed}, n {n}, {fault:?}: validators {first} and {} finalized different blocks (or state roots) at height {h}",
                        node.index
                    );
                }
            }
        }
    }
    assert!(
        !sent.is_empty(),
        "seed {seed}, n {n}, {fault:?}: no transfer was admitted"
    );
    // Crashed validators stop early; the live ones reach TARGET_HEIGHT, past the lag.
    for node in honest {
        check_beacon(world, node, &format!("seed {seed}, n {n}, {fault:?}")).await;
    }
    assert!(
        tallest as u64 > beacon::BEACON_LAG + 1,
        "seed {seed}, n {n}, {fault:?}: too short to show the beacon"
    );
    // Evidence: someone recorded each equivocator or invalid proposer, and no one an honest
    // validator.
    if matches!(fault, Fault::Equivocator | Fault::InvalidProposer) {
        assert_eq!(
            accused(world, honest, faulty),
            faulty,
            "seed {seed}, n {n}, {fault:?}: evidence missing against a faulty validator"
        );
    }
    {
        let innocent = (0..n).filter(|i| !faulty.contains(i)).collect::<Vec<_>>();
        assert!(
            accused(world, honest, &innocent).is_empty(),
            "seed {seed}, n {n}, {fault:?}: evidence against an honest validator"
        );
    }
}

/// Every finalized block of `node` above the lag carries the group's signature over its own
/// ancestor `BEACON_LAG` below (exec's rule, run here on the node's stored chain) and its
/// randomness is that signature's hash; the blocks up to the lag carry none.
async fn check_beacon(world: &World, node: &SimNode, what: &str) {
    let reader = node.reader().await;
    let params = &world.genesis.params;
    // The schedule never changes once recorded: the head's state answers for every block.
    let schedule = beacon::committed_schedule(&reader.state, params)
        .await
        .expect("state");
    let mut hashes = Vec::new();
    for h in 0..=reader.head.header.height {
        let block = reader.block(h).await.expect("read").expect("block");
        hashes.push(block.header.hash());
        let target = beacon::target_height(schedule.as_ref(), h).map(|t| hashes[t as usize]);
        let checked = beacon::check(
            schedule.as_ref(),
            world.genesis.chain_id,
            h,
            block.beacon.as_ref(),
            target,
        );
        match checked {
            Ok(Some(r)) => assert_eq!(r, block.header.randomness, "{what}: block {h}'s randomness"),
            Ok(None) => assert!(
                h <= beacon::BEACON_LAG + schedule.map_or(0, |s| s.from.max(1) - 1),
                "{what}: block {h} has no beacon"
            ),
            Err(e) => panic!("{what}: validator {}'s block {h}: {e}", node.index),
        }
    }
}

/// Start validator `i` as twins: one key, two nodes with their own chains, the first talking
/// to one half of the other validators and the second to the other half; the halves share one
/// validator (the witness), which therefore hears both twins.
async fn start_twins(world: &World, i: usize) -> Vec<SimNode> {
    let n = world.keys.len();
    let others: Vec<usize> = (0..n).filter(|j| *j != i).collect();
    let mid = others.len() / 2;
    let first: Vec<Key> = others[..=mid]
        .iter()
        .map(|j| world.keys[*j].clone())
        .collect();
    let second: Vec<Key> = others[mid..]
        .iter()
        .map(|j| world.keys[*j].clone())
        .collect();
    let (a, b) = (first.clone(), second.clone());
    let route = move |_| -> Route {
        let (a, b) = (a.clone(), b.clone());
        Some(Arc::new(move |origin, peer| match origin {
            SplitOrigin::Primary => a.contains(peer),
            SplitOrigin::Secondary => b.contains(peer),
        }))
    };
    let receive: Hears =
        Arc::new(
            move |from| match (first.contains(from), second.contains(from)) {
                (true, true) => SplitTarget::Both,
                (true, false) => SplitTarget::Primary,
                (false, true) => SplitTarget::Secondary,
                (false, false) => SplitTarget::None,
            },
        );
    let channels = world.channels(i, route, Some(receive)).await;
    let (primary, secondary): (Vec<_>, Vec<_>) = channels.into_iter().unzip();
    let other = Address::from_hash(&keccak256(b"cowboy-sim-twin-coinbase"));
    vec![
        world
            .start(i, &format!("v{i}a"), world.coinbase(i), primary)
            .await,
        world.start(i, &format!("v{i}b"), other, secondary).await,
    ]
}

/// Blocks per epoch in [`sim_epochs_follow_the_staked_set`].
const SIM_EPOCH_BLOCKS: u64 = 20;

/// Consensus follows the staked set ([`cowboy_node::epochs`]): four genesis validators and a
/// fifth node that runs from the start outside the set (an observer) and stakes in epoch 0,
/// so from epoch 1 it is a member: it leads rounds (blocks it proposed are final everywhere)
/// and the chain stays live with it. Validator 2 is cut off across the first boundary and
/// catches up through it after the partition heals, from the previous epoch's engine its
/// peers keep running. Safety as in every run: one block per height, one state root, at all
/// five. For every seed.
#[test]
fn sim_epochs_follow_the_staked_set() {
    for seed in seeds() {
        epochs_run(seed);
    }
}

fn epochs_run(seed: u64) {
    runner(seed).start(|context| async move {
        let (n, joiner, cut) = (4, 4, 2);
        let mut genesis = genesis(n, "127.0.0.1:30333".parse().expect("address"));
        genesis.params.epoch_blocks = SIM_EPOCH_BLOCKS;
        let world = World::with_genesis(context, genesis, n + 1, seed).await;
        world.link_all(&good_link(), |_, _| true).await;
        let mut nodes = Vec::new();
        for i in 0..=n {
            nodes.push(world.start_plain(i).await);
        }

        // The fifth node's owner stakes from a dev account, with the node's keys.
        let register = register_call(&world, joiner, &dev_account(9));
        assert!(submit(&nodes[0], register.encode()).await, "seed {seed}: register refused");

        // Validator 2 is cut off from a little before the first boundary (height 19) to a
        // little after, so it must finalize the boundary from certificates it fetches later.
        let away = transfer(&dev_account(5), 1, Address([0xee; 20]), 1, 100_000, 1);
        let start = world.context.current();
        let target = 3 * SIM_EPOCH_BLOCKS + 5;
        let (mut cut_at, mut healed_at) = (None, None);
        loop {
            let elapsed = world.context.current().duration_since(start).unwrap_or_default();
            let mut heights = Vec::new();
            for node in &nodes {
                heights.push(node.chain.lock().await.head().header.height);
            }
            let leader = heights[0];
            if cut_at.is_none() && leader >= SIM_EPOCH_BLOCKS - 6 {
                world.unlink(|a, b| (a == cut) != (b == cut)).await;
                cut_at = Some(leader);
                // Sent while validator 2 is away; behind a nonce gap it stays in every pool.
                assert!(submit(&nodes[0], away.encode()).await, "seed {seed}: gapped transfer refused");
            }
            if cut_at.is_some() && healed_at.is_none() && leader >= SIM_EPOCH_BLOCKS + 6 {
                world.link_all(&good_link(), |a, b| (a == cut) != (b == cut)).await;
                healed_at = Some(leader);
            }
            if heights.iter().all(|h| *h >= target) {
                break;
            }
            assert!(
                elapsed < DEADLINE,
                "seed {seed}: no liveness across epochs after {elapsed:?}: heights {heights:?} (target {target}), cut at {cut_at:?}, healed at {healed_at:?}"
            );
            world.context.sleep(Duration::from_millis(50)).await;
        }

        // Safety at all five, the observer-turned-member and the cut-off one included.
        assert_agree(&nodes, target, seed, &format!("seed {seed}")).await;
        // The transaction sent while it was away reached it by a re-send after the heal.
        assert!(
            nodes[cut].validator.gossip.has_seen(&away.hash()),
            "seed {seed}: the validator cut off never got the transaction sent meanwhile"
        );
        // The fifth node is in the sets from epoch 1 on, and leads rounds there.
        let reader = nodes[0].reader().await;
        for epoch in 0..=3 {
            let set = cowboy_exec::system::staking::active_set(&reader.state, epoch)
                .await
                .expect("read the set")
                .expect("a set");
            let keys: Vec<[u8; 32]> = set.iter().map(|m| m.keys.ed25519).collect();
            let joined = keys.iter().any(|k| k[..] == commonware_codec::Encode::encode(&world.keys[joiner])[..]);
            assert_eq!(joined, epoch >= 1, "seed {seed}: epoch {epoch}'s set is {} members", set.len());
        }
        let mut led = Vec::new();
        for h in SIM_EPOCH_BLOCKS..=target {
            let block = reader.block(h).await.expect("read").expect("final");
            if block.header.proposer == world.coinbase(joiner) {
                led.push(h);
            }
        }
        assert!(!led.is_empty(), "seed {seed}: the staked validator led no final block after joining");
        assert!(
            nodes[joiner].validator.consensus.epochs().contains(&3),
            "seed {seed}: the staked validator runs engines {:?}",
            nodes[joiner].validator.consensus.epochs()
        );

        // Gossip follows the set: a transaction sent to a genesis validator now reaches the
        // newcomer, which leads rounds and must be able to include it (before, gossip went to
        // the genesis validators only).
        let tx = transfer(&dev_account(3), 0, Address([0xee; 20]), 1, 100_000, 1);
        assert!(submit(&nodes[0], tx.encode()).await, "seed {seed}: transfer refused");
        let sent_at = world.context.current();
        while !nodes[joiner].validator.gossip.has_seen(&tx.hash()) {
            let waited = world.context.current().duration_since(sent_at).unwrap_or_default();
            assert!(waited < Duration::from_secs(10), "seed {seed}: the newcomer never got the transaction");
            world.context.sleep(Duration::from_millis(10)).await;
        }
    })
}

/// The staking call by which `owner` (a dev account) registers validator `joiner` with its
/// keys and the minimum stake.
fn register_call(
    world: &World,
    joiner: usize,
    owner: &cowboy_types::PrivateKey,
) -> cowboy_types::Transaction {
    let bls = cowboy_exec::system::staking::validator_bls_key(
        &cowboy_node::devnet::validator_seed(joiner).0,
    )
    .expect("bls key");
    staking_call(
        owner,
        0,
        "register",
        vec![
            cowboy_types::cbor::Value::Bytes(
                cowboy_exec::system::staking::bls_public_key(&bls).to_vec(),
            ),
            cowboy_types::cbor::Value::Bytes(
                cowboy_exec::system::staking::sign_pop(&bls, &owner.address()).to_vec(),
            ),
            cowboy_types::cbor::Value::Bytes(
                commonware_codec::Encode::encode(&world.keys[joiner]).to_vec(),
            ),
        ],
        world.genesis.params.minimum_validator_stake_wei,
    )
}

/// Resharing moves the beacon to the new set (issue 17 item 3; `cowboy_node::reshare_task`,
/// p2p channel 7): four genesis validators hold the genesis sharing (`t` = 3); in epoch 0
/// validator 3 signals its exit and a fifth node (4, an observer from the start) stakes, so
/// epoch 1's set {0, 1, 2, 4} differs from the holders and epoch 1 runs reshare round 1
/// (dealings and acks on the channel, dealer logs carried in blocks, the outcome at offset
/// `E/2`). Once every player's share file names round 1 (each replaced its share and
/// switched), the leaver and genesis holder 0 go silent: with `f + 1` = 2 genesis holders
/// gone the genesis sharing can no longer sign, so every `σ` over a later height comes from
/// 1, 2 and the joiner under the new sharing. The chain keeps finalizing, every block's `σ`
/// checked by exec's rule; safety among the three live nodes. For every seed.
#[test]
fn sim_reshare_moves_the_beacon_to_a_joiner() {
    for seed in seeds() {
        reshare_run(seed);
    }
}

fn reshare_run(seed: u64) {
    runner(seed).start(|context| async move {
        let (n, joiner, leaver, silent) = (4, 4, 3, 0);
        let e = SIM_EPOCH_BLOCKS;
        let leaver_owner = dev_account(8);
        let mut genesis = genesis(n, "127.0.0.1:30333".parse().expect("address"));
        genesis.params.epoch_blocks = e;
        // The leaver's owner is its coinbase (a funded dev account), which signs its exit.
        genesis.validators[leaver].coinbase = leaver_owner.address();
        let world = World::with_genesis(context, genesis, n + 1, seed).await;
        world.link_all(&good_link(), |_, _| true).await;
        let mut nodes = Vec::new();
        for i in 0..=n {
            nodes.push(world.start_plain(i).await);
        }
        let register = register_call(&world, joiner, &dev_account(9));
        assert!(submit(&nodes[1], register.encode()).await, "seed {seed}: register refused");
        let exit = staking_call(&leaver_owner, 0, "signal_exit", vec![], 0);
        assert!(submit(&nodes[1], exit.encode()).await, "seed {seed}: exit refused");

        // Round 1: until every node finalized the outcome block and every player replaced
        // its share with round 1's.
        let players = [0, 1, 2, joiner];
        let start = world.context.current();
        loop {
            let elapsed = world.context.current().duration_since(start).unwrap_or_default();
            let mut heights = Vec::new();
            for node in &nodes {
                heights.push(node.chain.lock().await.head().header.height);
            }
            let rounds: Vec<Option<u64>> = nodes
                .iter()
                .map(|node| {
                    cowboy_node::beacon::read_share_round(node._dir.path())
                        .expect("a readable share file")
                        .map(|(r, _)| r)
                })
                .collect();
            let switched = players.iter().all(|p| rounds[*p] == Some(1));
            if switched && heights.iter().all(|h| *h >= e + e / 2) {
                // The run hands genesis shares in memory: a file exists only once replaced.
                assert_eq!(rounds[leaver], None, "seed {seed}: the leaver is no player of round 1");
                break;
            }
            assert!(
                elapsed < DEADLINE,
                "seed {seed}: no reshare after {elapsed:?}: heights {heights:?}, share rounds {rounds:?}"
            );
            world.context.sleep(Duration::from_millis(50)).await;
        }
        let reader = nodes[1].reader().await;
        let (round, output) = cowboy_exec::reshare::committed_output(&reader.state)
            .await
            .expect("read the sharing")
            .expect("a sharing");
        assert_eq!(round, 1, "seed {seed}: the chain's sharing");
        let expected = Set::from_iter_dedup(players.iter().map(|p| world.keys[*p].clone()));
        assert_eq!(output.players(), &expected, "seed {seed}: round 1's players");

        // The leaver and genesis holder 0 go silent; 1, 2 and the joiner are a consensus
        // quorum of epoch 1's set, and the new sharing's `t` with the joiner only.
        // No node finalized past `silenced_at` before, so no genesis partial from the silent
        // ones exists for a later height.
        world.unlink(|a, b| [leaver, silent].contains(&a) || [leaver, silent].contains(&b)).await;
        let mut silenced_at = 0;
        for node in &nodes {
            silenced_at = silenced_at.max(node.chain.lock().await.head().header.height);
        }
        // The silent ones keep running (their data directories with them) to the end.
        let (live, silenced): (Vec<SimNode>, Vec<SimNode>) = nodes
            .into_iter()
            .partition(|node| ![leaver, silent].contains(&node.index));
        let target = silenced_at + beacon::BEACON_LAG + 8;
        let what = format!("seed {seed}, on the new sharing (silenced at {silenced_at})");
        wait_for_height(&world, &live, target, &what).await;
        // Safety among the live, and every block's σ valid (exec's rule), those over heights
        // above `silenced_at` recoverable only from the new sharing with the joiner's partial.
        assert_agree(&live, target, seed, &format!("seed {seed}, reshare")).await;
        for node in &live {
            check_beacon(&world, node, &format!("seed {seed}, reshare")).await;
        }
        drop(silenced);
    })
}

/// The genesis validators generate the beacon's group on chain (`beacon_dkg = 1`; n = 4,
/// 40-block epochs): nothing is dealt, epoch 0 runs the key generation (round 0) over p2p
/// channel 7 with its dealer logs in blocks, and its outcome block (height `E/2`) records the
/// group. Every validator writes a share file naming round 0; blocks up to `E/2 + k` keep the
/// parent-hash rule and every later one carries `σ` of the generated group (exec's rule, run
/// over each node's stored chain); all four agree on every block. For every seed.
#[test]
fn sim_genesis_validators_generate_the_beacon_group() {
    for seed in seeds() {
        genesis_generation_run(seed, Restart::None);
    }
}

/// As above, but validator 3 crashes (its whole task tree aborted, its stores left as synced)
/// once it has acked a dealing, stays down for a few blocks and is restarted on its data
/// directory before the logs are signed: its session of round 0 starts again, replays the
/// dealings journaled before the acks left, and the round ends with all four holding shares.
#[test]
fn sim_a_player_restarted_during_the_genesis_generation_keeps_its_share() {
    for seed in seeds() {
        genesis_generation_run(seed, Restart::DuringRound);
    }
}

/// As above, but validator 3 crashes after the outcome block is final on it and before its
/// new share is written (the data directory is put back as it was then: the outcome in its
/// stores, no share file, the round's journal and record beside them), and is restarted: the
/// chain no longer says what the round was, so it rebuilds the round from its record, replays
/// its journal and writes its share (`Session::resume`). Without that it would hold no share.
#[test]
fn sim_a_player_restarted_after_the_outcome_before_keeping_its_share_resumes_the_round() {
    for seed in seeds() {
        genesis_generation_run(seed, Restart::AfterOutcome);
    }
}

/// When [`genesis_generation_run`] crashes and restarts validator 3.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Restart {
    None,
    /// Once it has acked a dealing, before the logs are signed.
    DuringRound,
    /// Between the outcome block and the share's replacement.
    AfterOutcome,
}

fn genesis_generation_run(seed: u64, restart: Restart) {
    let restart_player = restart != Restart::None;
    runner(seed).start(move |context| async move {
        let n = 4;
        // Nodes start one after another, so a dealer's first dealings to the later ones are
        // lost and re-sent a second later (ten 200 ms blocks before the logs are signed at
        // `E/4`; a network's `E/4` is 900 blocks). At 20-block epochs the logs would be
        // signed first and round 0 fail, to be retried in epoch 1.
        let e = 40;
        let mut genesis = genesis(n, "127.0.0.1:30333".parse().expect("address"));
        genesis.params.epoch_blocks = e;
        genesis.params.beacon_dkg = 1;
        let world = World::with_genesis(context, genesis, n, seed).await;
        assert!(world.genesis.beacon.is_none() && world.shares.iter().all(Option::is_none));
        world.link_all(&good_link(), |_, _| true).await;
        let mut nodes = Vec::new();
        let mut host = None;
        for i in 0..n {
            if restart_player && i == n - 1 {
                let (node, h) = world
                    .start_crashable(i, tempfile::tempdir().expect("temp dir"))
                    .await;
                nodes.push(node);
                host = Some(h);
            } else {
                nodes.push(world.start_plain(i).await);
            }
        }
        let start = world.context.current();
        // The restarted validator's task, held for the rest of the run.
        let mut restarted = None;
        if let Some(h) = host {
            // Fails the run once the waits have taken `DEADLINE`, naming what never happened.
            let within_deadline = |what: &str| {
                let elapsed = world
                    .context
                    .current()
                    .duration_since(start)
                    .unwrap_or_default();
                assert!(elapsed < DEADLINE, "seed {seed}: {what}");
            };
            let journal = nodes[n - 1]._dir.path().join("reshare-0.dealings");
            while std::fs::metadata(&journal).map_or(0, |m| m.len()) == 0 {
                within_deadline("validator 3 acked no dealing");
                world.context.sleep(Duration::from_millis(10)).await;
            }
            let head = |node: &SimNode| {
                let chain = node.chain.clone();
                async move { chain.lock().await.head().header.height }
            };
            let at = head(&nodes[n - 1]).await;
            assert!(at < e / 4, "seed {seed}: acked only at height {at}");
            let mut kept = Vec::new();
            if restart == Restart::AfterOutcome {
                // The journal and the round's record once the logs are signed (no dealing is
                // acked after), then the round's end as validator 3 saw it.
                while head(&nodes[n - 1]).await < e / 4 + 2 {
                    within_deadline("validator 3 never saw the logs signed");
                    world.context.sleep(Duration::from_millis(10)).await;
                }
                let record = nodes[n - 1]._dir.path().join("reshare-0.round");
                for file in [&journal, &record] {
                    let bytes = std::fs::read(file).expect("the journal and the round's record");
                    kept.push((file.file_name().expect("a name").to_owned(), bytes));
                }
                let at = head(&nodes[n - 1]).await;
                assert!(at < e / 2, "seed {seed}: kept only at height {at}");
                let share = nodes[n - 1]
                    ._dir
                    .path()
                    .join(cowboy_node::beacon::SHARE_FILE);
                while !share.exists() {
                    within_deadline("validator 3 kept no share");
                    world.context.sleep(Duration::from_millis(10)).await;
                }
            }
            let dir = world.crash(nodes.pop().expect("validator 3"), h).await;
            if restart == Restart::AfterOutcome {
                // As a crash before `replace_share` would have left it.
                std::fs::remove_file(dir.path().join(cowboy_node::beacon::SHARE_FILE))
                    .expect("the share");
                for (name, bytes) in &kept {
                    std::fs::write(dir.path().join(name), bytes).expect("put back");
                }
            }
            let down = head(&nodes[0]).await;
            while head(&nodes[0]).await < down + 3 {
                within_deadline("three validators stall");
                world.context.sleep(Duration::from_millis(50)).await;
            }
            let (node, h) = world.start_crashable(n - 1, dir).await;
            nodes.push(node);
            restarted = Some(h);
        }
        loop {
            let elapsed = world
                .context
                .current()
                .duration_since(start)
                .unwrap_or_default();
            let rounds: Vec<Option<u64>> = nodes
                .iter()
                .map(|node| {
                    cowboy_node::beacon::read_share_round(node._dir.path())
                        .expect("a readable share file")
                        .map(|(r, _)| r)
                })
                .collect();
            if rounds.iter().all(|r| *r == Some(0)) {
                break;
            }
            assert!(
                elapsed < DEADLINE,
                "seed {seed}: no generated group after {elapsed:?}: share rounds {rounds:?}"
            );
            world.context.sleep(Duration::from_millis(50)).await;
        }
        let target = e / 2 + 1 + beacon::BEACON_LAG + 8;
        let what = match restart {
            Restart::None => format!("seed {seed}, genesis key generation"),
            Restart::DuringRound => {
                format!("seed {seed}, genesis key generation with a restarted player")
            }
            Restart::AfterOutcome => format!(
                "seed {seed}, genesis key generation with a player restarted after the outcome"
            ),
        };
        wait_for_height(&world, &nodes, target, &what).await;
        assert_agree(&nodes, target, seed, &what).await;
        let reader = nodes[0].reader().await;
        let schedule = beacon::committed_schedule(&reader.state, &world.genesis.params)
            .await
            .expect("state")
            .expect("a generated group");
        assert_eq!(
            schedule.from,
            e / 2 + 1,
            "{what}: the beacon starts after the outcome"
        );
        let (round, output) = cowboy_exec::reshare::committed_output(&reader.state)
            .await
            .expect("read the sharing")
            .expect("a sharing");
        assert_eq!(round, 0, "{what}");
        assert_eq!(
            output.players().len(),
            n,
            "{what}: every genesis validator holds a share"
        );
        assert_eq!(
            commonware_codec::Encode::encode(output.public().public()).as_ref(),
            &schedule.group_key[..],
            "{what}: the recorded key is the generated sharing's"
        );
        for node in &nodes {
            check_beacon(&world, node, &what).await;
        }
        let first = reader.block(target).await.expect("read").expect("block");
        assert!(first.beacon.is_some(), "{what}: block {target} carries σ");
        drop(restarted);
    })
}

/// Safety among `nodes` up to height `upto`: every one finalized the same block with the same
/// state root at every height (`what` names the run in a failure).
/// Run the world until every one of `nodes` has a head at `target` or above; fails after
/// [`DEADLINE`] of virtual time, naming `what` and the heights reached.
async fn wait_for_height(world: &World, nodes: &[SimNode], target: u64, what: &str) {
    let start = world.context.current();
    loop {
        let elapsed = world
            .context
            .current()
            .duration_since(start)
            .unwrap_or_default();
        let mut heights = Vec::new();
        for node in nodes {
            heights.push(node.chain.lock().await.head().header.height);
        }
        if heights.iter().all(|h| *h >= target) {
            return;
        }
        assert!(
            elapsed < DEADLINE,
            "{what}: no liveness after {elapsed:?}: heights {heights:?} (target {target})"
        );
        world.context.sleep(Duration::from_millis(50)).await;
    }
}

async fn assert_agree(nodes: &[SimNode], upto: u64, seed: u64, what: &str) {
    let mut chains = Vec::new();
    for node in nodes {
        chains.push(finalized(node, seed).await);
    }
    for h in 0..=upto as usize {
        for (i, chain) in chains.iter().enumerate().skip(1) {
            assert_eq!(
                chain[h], chains[0][h],
                "{what}: validators {} and {} differ at height {h}",
                nodes[0].index, nodes[i].index
            );
        }
    }
}

/// Leaders follow stake (`cowboy_node::leaders`): validator 0 stakes three times what each
/// of the other three does, so of every six views it leads three and each other one (round
/// robin gave each a quarter). Over the first 36 finalized blocks at every validator (views
/// a timeout nullified shift the count a little, so the bound has room): validator 0
/// proposed at least 40% of them and each other at most 22% (8 of 36, where round robin
/// gives 9). Safety as in every run. For every seed.
#[test]
fn sim_leaders_follow_stake() {
    for seed in seeds() {
        runner(seed).start(|context| async move {
            let (n, blocks) = (4, 36u64);
            let mut genesis = genesis(n, "127.0.0.1:30333".parse().expect("address"));
            genesis.validators[0].stake *= 3;
            let world = World::with_genesis(context, genesis, n, seed).await;
            world.link_all(&good_link(), |_, _| true).await;
            let mut nodes = Vec::new();
            for i in 0..n {
                nodes.push(world.start_plain(i).await);
            }
            wait_for_height(&world, &nodes, blocks, &format!("seed {seed}")).await;
            assert_agree(&nodes, blocks, seed, &format!("seed {seed}")).await;
            let reader = nodes[0].reader().await;
            let mut led = vec![0u64; n];
            for h in 1..=blocks {
                let block = reader
                    .block(h)
                    .await
                    .expect("read a block")
                    .expect("finalized");
                let i = (0..n)
                    .find(|&i| world.coinbase(i) == block.header.proposer)
                    .unwrap_or_else(|| panic!("seed {seed}: block {h} by no validator"));
                led[i] += 1;
            }
            assert!(led[0] * 10 >= blocks * 4, "seed {seed}: proposers {led:?}");
            assert!(
                led[1..].iter().all(|&k| k <= 8),
                "seed {seed}: proposers {led:?}"
            );
        });
    }
}

/// Votes weigh by stake (`cowboy_node::seats`): validator 0 stakes three times what each of
/// the other three does, so it holds three of six seats and a quorum is five. Cut off from the
/// others, the three small validators, three of four members (a quorum when votes counted one
/// per member), finalize nothing: over ten seconds their heads do not move. Healed, all four
/// finalize on and agree. For every seed.
#[test]
fn sim_votes_weigh_by_stake() {
    for seed in seeds() {
        runner(seed).start(|context| async move {
            let n = 4;
            let mut genesis = genesis(n, "127.0.0.1:30333".parse().expect("address"));
            genesis.validators[0].stake *= 3;
            let world = World::with_genesis(context, genesis, n, seed).await;
            let link = good_link();
            world.link_all(&link, |_, _| true).await;
            let mut nodes = Vec::new();
            for i in 0..n {
                nodes.push(world.start_plain(i).await);
            }
            let what = format!("seed {seed}");
            wait_for_height(&world, &nodes, 5, &what).await;
            let alone = |a: usize, b: usize| (a == 0) != (b == 0);
            world.unlink(alone).await;
            // What was certified before the cut may still land; then nothing.
            world.context.sleep(Duration::from_secs(3)).await;
            let mut before = Vec::new();
            for node in &nodes[1..] {
                before.push(node.chain.lock().await.head().header.height);
            }
            world.context.sleep(Duration::from_secs(10)).await;
            let mut after = Vec::new();
            for node in &nodes[1..] {
                after.push(node.chain.lock().await.head().header.height);
            }
            assert_eq!(
                before, after,
                "{what}: three validators holding half the stake finalized without the fourth"
            );
            world.link_all(&link, alone).await;
            let target = after.iter().copied().max().unwrap_or(0) + 5;
            wait_for_height(&world, &nodes, target, &what).await;
            assert_agree(&nodes, target, seed, &what).await;
        });
    }
}

/// Blocks per downtime window in [`sim_never_voter_is_jailed`] (a miss past half of one jails).
const SIM_DOWNTIME_WINDOW: u64 = 10;

/// Downtime reaches the chain: `f` validators run the node but never send a vote (n = 4 and
/// 7, 20-block epochs, 10-block downtime windows). The vote records honest proposers put in
/// their blocks show them absent, so the block rule jails them within epoch 0 (never
/// slashed), they are left out of epoch 1's set, and the honest validators, never jailed,
/// finalize on through epoch 1 as its whole set. Safety as in every run. For every seed.
#[test]
fn sim_never_voter_is_jailed() {
    for n in [4, 7] {
        for seed in seeds() {
            downtime_run(n, seed);
        }
    }
}

fn downtime_run(n: usize, seed: u64) {
    runner(seed).start(|context| async move {
        let mut genesis = genesis(n, "127.0.0.1:30333".parse().expect("address"));
        genesis.params.epoch_blocks = SIM_EPOCH_BLOCKS;
        genesis.params.downtime_window_blocks = SIM_DOWNTIME_WINDOW;
        let world = World::with_genesis(context, genesis, n, seed).await;
        world.link_all(&good_link(), |_, _| true).await;
        let mute: Vec<usize> = (0..(n - 1) / 3).collect();
        let mut honest = Vec::new();
        let mut muted = Vec::new();
        for i in 0..n {
            let silent = mute.contains(&i);
            let route = |channel| -> Route {
                (silent && channel == VOTES_CHANNEL)
                    .then(|| Arc::new(|_: SplitOrigin, _: &Key| false) as _)
            };
            let channels = world.channels(i, route, None).await;
            let channels = channels.into_iter().map(|(primary, _)| primary).collect();
            let node = world
                .start(i, &format!("v{i}"), world.coinbase(i), channels)
                .await;
            if silent {
                muted.push(node);
            } else {
                honest.push(node);
            }
        }

        let target = SIM_EPOCH_BLOCKS + 8;
        wait_for_height(&world, &honest, target, &format!("seed {seed}, n {n}")).await;

        // Safety among the honest.
        assert_agree(&honest, target, seed, &format!("seed {seed}, n {n}")).await;
        let reader = honest[0].reader().await;
        let stake = world.genesis.params.minimum_validator_stake_wei;
        for i in 0..n {
            let record = cowboy_exec::system::staking::validator(&reader.state, &world.coinbase(i))
                .await
                .expect("read")
                .unwrap_or_else(|| panic!("seed {seed}, n {n}: validator {i} has no record"));
            let jailed_at = record
                .jailed_until
                .map(|until| until - world.genesis.params.jail_blocks());
            if mute.contains(&i) {
                let at = jailed_at.unwrap_or_else(|| {
                    panic!("seed {seed}, n {n}: never-voter {i} was not jailed")
                });
                assert!(
                    at < SIM_EPOCH_BLOCKS,
                    "seed {seed}, n {n}: validator {i} jailed at {at}, after epoch 0"
                );
                assert_eq!(
                    record.stake, stake,
                    "seed {seed}, n {n}: downtime must not slash"
                );
            } else {
                assert_eq!(
                    jailed_at, None,
                    "seed {seed}, n {n}: honest validator {i} was jailed"
                );
            }
        }
        // Epoch 1's set is the honest validators alone.
        let set = cowboy_exec::system::staking::active_set(&reader.state, 1)
            .await
            .expect("read the set")
            .expect("a set");
        let mut members: Vec<Address> = set.iter().map(|m| m.address).collect();
        members.sort();
        let mut expected: Vec<Address> = honest
            .iter()
            .map(|node| world.coinbase(node.index))
            .collect();
        expected.sort();
        assert_eq!(members, expected, "seed {seed}, n {n}: epoch 1's set");
        // Blocks of epoch 1 carry records of the honest set (n − f votes), finalized by it.
        let block = reader.block(target).await.expect("read").expect("final");
        let record = block
            .votes
            .unwrap_or_else(|| panic!("seed {seed}, n {n}: block {target} has no vote record"));
        assert_eq!(
            record.votes.len(),
            honest.len(),
            "seed {seed}, n {n}: votes in block {target}'s record"
        );
        drop(muted);
    })
}

/// Blocks per epoch in [`sim_catch_up_across_epochs`].
const CATCH_UP_EPOCH_BLOCKS: u64 = 100;
/// How many blocks the others finalize while the validator is away: beyond the 256 the
/// pending set (and so range sync alone) holds.
const CATCH_UP_AWAY_BLOCKS: u64 = 270;

/// The seeds of the catch-up runs: `SIM_SEED` alone, or `0..SIM_SEEDS` (default 1: a run
/// finalizes ~300 blocks at four validators, each with its beacon signature, 7-11 s of test
/// time on the shared 2-core machine).
fn catch_up_seeds() -> Vec<u64> {
    let var = |name: &str| std::env::var(name).ok().and_then(|v| v.parse::<u64>().ok());
    match var("SIM_SEED") {
        Some(seed) => vec![seed],
        None => (0..var("SIM_SEEDS").unwrap_or(1)).collect(),
    }
}

/// Catch-up of a validator far behind (`cowboy_node::catchup`), within one epoch: four
/// validators; validator 3 is cut off from everyone at height ~20 while the other three (a
/// quorum, and `t` of the beacon) finalize 270 blocks more. When the links come back its
/// engine reports a finalization far above its head, which the finalizer hands to catch-up:
/// the header chain down to its head, the bodies forwards; then it votes again (a later
/// block's vote record holds its signature). All the while a fifth peer, no validator,
/// answers every sync request with lies (certificates signed by strangers, over made-up
/// headers; for blocks, well-formed ones of no chain and garbage), and nothing of it is
/// accepted. Same hashes and state roots
/// at all four.
#[test]
fn sim_catch_up_far_behind() {
    for seed in catch_up_seeds() {
        catch_up_run(seed, false);
    }
}

/// The same across epochs: 100-block epochs, so while validator 3 is away the others cross
/// the boundaries at 99 and 199 and stop those epochs' engines. When the links come back its
/// engine runs an epoch nobody else does: it catches up by the certificates of the epochs'
/// last blocks (which every node keeps on disk), each checked against that epoch's set from
/// its own state, epoch after epoch, then runs the head's epoch's engine and votes again.
/// Every node keeps the certificates of epochs 0 and 1.
#[test]
fn sim_catch_up_across_epochs() {
    for seed in catch_up_seeds() {
        catch_up_run(seed, true);
    }
}

/// A header of no chain at `height`.
fn fake_header(height: u64) -> cowboy_types::block::BlockHeader {
    let h = |b| cowboy_types::Hash32([b; 32]);
    cowboy_types::block::BlockHeader {
        parent_hash: h(1),
        height,
        timestamp_ms: 1,
        proposer: Address([2; 20]),
        state_root: h(3),
        tx_root: h(4),
        receipts_root: h(5),
        cycle_basefee: 1,
        cell_basefee: 1,
        cycles_used: 0,
        cells_used: 0,
        randomness: h(6),
        votes_root: None,
        dealings_root: None,
    }
}

/// A finalization certificate of `header` in `epoch`, signed by `strangers` (who are no set of
/// the chain's): what a liar sends as proof that a made-up block is final.
fn forge(
    strangers: &[ed25519::PrivateKey],
    namespace: &[u8],
    epoch: u64,
    header: &cowboy_types::block::BlockHeader,
) -> Vec<u8> {
    use commonware_consensus::simplex::types::{Finalization, Finalize, Proposal};
    use commonware_consensus::types::{Epoch, Round, View};
    let set = Set::try_from_iter(strangers.iter().map(|k| k.public_key())).expect("distinct");
    let proposal = Proposal::new(
        Round::new(Epoch::new(epoch), View::new(1_000)),
        View::new(999),
        cowboy_node::consensus::digest(&header.hash()),
    );
    let votes: Vec<Finalize<Scheme, _>> = strangers
        .iter()
        .map(|k| {
            let s = Scheme::signer(namespace, set.clone().into(), k.clone()).expect("member");
            Finalize::sign(&s, proposal.clone()).expect("sign")
        })
        .collect();
    let verifier = Scheme::verifier(namespace, set.into());
    let votes = commonware_utils::iter::NonEmpty::try_new(votes.iter()).expect("four votes");
    let forged = Finalization::from_finalizes(&verifier, votes, &commonware_parallel::Sequential)
        .expect("assemble");
    commonware_codec::Encode::encode(&forged).to_vec()
}

/// Start a peer that answers every sync request with lies (see [`sim_catch_up_far_behind`]).
async fn start_liar(world: &World, i: usize) {
    use cowboy_node::sync::{Message, SYNC_CHANNEL};
    let control = world.oracle.control(world.keys[i].clone());
    for (channel, quota) in channel_quotas() {
        let (mut sender, mut receiver) = control.register(channel, quota).await.expect("register");
        if channel != SYNC_CHANNEL {
            world
                .context
                .child("liar_drain")
                .spawn(move |_| async move { while receiver.recv().await.is_ok() {} });
            continue;
        }
        let namespace = cowboy_exec::system::staking::consensus_namespace(world.genesis.chain_id);
        let world_epoch_blocks = world.genesis.params.epoch_blocks.max(1);
        let strangers: Vec<_> = (100..104).map(validator_key).collect();
        world
            .context
            .child("liar")
            .spawn(move |mut context| async move {
                while let Ok((peer, bytes)) = receiver.recv().await {
                    let answer = match Message::decode(bytes.as_ref()) {
                        Ok(Message::WantTip { epoch, head }) => {
                            // A made-up block above the head, "certified" by four strangers.
                            let mut header = fake_header(head + 50);
                            header.randomness =
                                cowboy_types::Hash32([context.next_u32() as u8; 32]);
                            let certificate = forge(&strangers, &namespace, epoch, &header);
                            let header = header.encode();
                            Message::Tip {
                                certificate: &certificate,
                                header: &header,
                            }
                            .encode()
                        }
                        Ok(Message::WantHeaders { above, .. }) => {
                            let fake = fake_header(above + 1).encode();
                            Message::Headers(vec![&fake]).encode()
                        }
                        Ok(Message::WantEpoch { epoch }) => {
                            // A made-up last block of the epoch with a made-up next set,
                            // "certified" by strangers and claiming far more epochs; and,
                            // unasked, snapshot operations of nothing.
                            let blocks = world_epoch_blocks;
                            let mut header = fake_header((epoch + 1) * blocks - 1);
                            header.randomness =
                                cowboy_types::Hash32([context.next_u32() as u8; 32]);
                            let certificate = forge(&strangers, &namespace, epoch, &header);
                            let record = cowboy_node::snapshot_sync::Boundary {
                                target: cowboy_state::SnapshotTarget {
                                    height: header.height,
                                    root: header.state_root.0,
                                    ops_root: [1; 32],
                                    lower: 0,
                                    size: 1_000,
                                    grafted_root: [2; 32],
                                    partial_chunk: None,
                                },
                                header,
                                set: vec![0x80],
                                proof: vec![0; 64],
                            }
                            .encode();
                            let request = cowboy_state::SnapshotRequest::Operations {
                                size: 1_000,
                                start: 0,
                                max_ops: 8,
                            };
                            let mut junk = vec![0u8; 512];
                            context.fill_bytes(&mut junk);
                            let unasked = Message::Ops {
                                request,
                                response: &junk,
                            }
                            .encode();
                            let _ = sender.send(Recipients::One(peer.clone()), unasked, false);
                            Message::Epoch {
                                newest: epoch + 1_000,
                                certificate: &certificate,
                                boundary: &record,
                            }
                            .encode()
                        }
                        Ok(Message::WantOps(request)) => {
                            let mut junk = vec![0u8; 512];
                            context.fill_bytes(&mut junk);
                            Message::Ops {
                                request,
                                response: &junk,
                            }
                            .encode()
                        }
                        Ok(Message::Want { above, .. }) => {
                            // Three well-formed blocks of no chain just above the asker's
                            // head (they join its pending set), then garbage.
                            let mut blocks = Vec::new();
                            let mut parent = cowboy_types::Hash32([9; 32]);
                            for height in above + 1..=above + 3 {
                                let mut header = fake_header(height);
                                header.parent_hash = parent;
                                header.tx_root = Block::tx_root(&[]);
                                parent = header.hash();
                                let block = Block {
                                    header,
                                    transactions: Vec::new(),
                                    votes: None,
                                    beacon: None,
                                    dealer_logs: Vec::new(),
                                };
                                blocks.insert(0, block.encode());
                            }
                            let mut junk = vec![0u8; 256];
                            context.fill_bytes(&mut junk);
                            blocks.push(junk);
                            Message::Blocks(blocks.iter().map(Vec::as_slice).collect()).encode()
                        }
                        _ => continue,
                    };
                    let _ = sender.send(Recipients::One(peer), answer, false);
                }
            });
    }
}

/// One catch-up run (see [`sim_catch_up_far_behind`]); `across`: with 100-block epochs.
fn catch_up_run(seed: u64, across: bool) {
    runner(seed).start(|context| async move {
        let (n, away, liar) = (4, 3, 4);
        let mut genesis = genesis(n, "127.0.0.1:30333".parse().expect("address"));
        if across {
            genesis.params.epoch_blocks = CATCH_UP_EPOCH_BLOCKS;
        }
        // Away for 270 blocks of a 10,000-block window: not jailed, so still in the set.
        genesis.params.downtime_window_blocks = 10_000;
        let world = World::with_genesis(context, genesis, n + 1, seed).await;
        world.link_all(&good_link(), |_, _| true).await;
        let mut nodes = Vec::new();
        for i in 0..n {
            nodes.push(world.start_plain(i).await);
        }
        start_liar(&world, liar).await;
        // Re-execution is what these runs test (`sim_catch_up_from_a_snapshot` the other way).
        for node in &nodes {
            node.chain.lock().await.set_snapshot_sync(false);
        }

        let started = world.context.current();
        let waited = |what: &str| {
            let elapsed = world
                .context
                .current()
                .duration_since(started)
                .unwrap_or_default();
            assert!(
                elapsed < DEADLINE * 3,
                "seed {seed}: {what} after {elapsed:?}"
            );
        };
        let height = |i: usize| {
            let chain = nodes[i].chain.clone();
            async move { chain.lock().await.head().header.height }
        };
        while height(0).await < 20 {
            waited("no block 20");
            world.context.sleep(Duration::from_millis(50)).await;
        }
        world.unlink(|a, b| a == away || b == away).await;
        let cut_at = height(away).await;
        let heal_at = match across {
            true => (cut_at + CATCH_UP_AWAY_BLOCKS).max(2 * CATCH_UP_EPOCH_BLOCKS + 30),
            false => cut_at + CATCH_UP_AWAY_BLOCKS,
        };
        while height(0).await < heal_at {
            waited("the three do not reach the heal height");
            world.context.sleep(Duration::from_millis(100)).await;
        }
        assert!(
            height(away).await <= cut_at + 3,
            "seed {seed}: the cut-off validator moved"
        );
        assert!(
            !across || !nodes[0].validator.consensus.epochs().contains(&0),
            "seed {seed}: epoch 0's engine still runs at the others"
        );
        world
            .link_all(&good_link(), |a, b| a == away || b == away)
            .await;
        let healed = height(0).await;

        // It catches up, then votes again: a block finalized after the heal records its vote.
        let participants = Set::try_from_iter(world.keys[..n].iter().cloned()).expect("distinct");
        let signer = participants.position(&world.keys[away]).expect("a member") as u32;
        let voted = loop {
            waited("the validator away never caught up and voted");
            world.context.sleep(Duration::from_millis(100)).await;
            let head = height(away).await;
            if head < healed {
                continue;
            }
            let reader = nodes[away].reader().await;
            let block = reader.block(head).await.expect("read").expect("final");
            let votes = block.votes.map(|r| r.votes).unwrap_or_default();
            if votes.iter().any(|v| v.signer == signer) {
                break head;
            }
        };
        assert!(
            !across
                || nodes[away]
                    .validator
                    .consensus
                    .epochs()
                    .iter()
                    .all(|e| *e >= 2),
            "seed {seed}: the validator back runs engines {:?}",
            nodes[away].validator.consensus.epochs()
        );
        // Every node has a certificate of each past epoch's last block to serve.
        for node in nodes.iter().filter(|_| across) {
            let chain = node.chain.lock().await;
            for epoch in 0..2 {
                assert!(
                    chain.certificate(epoch).is_some(),
                    "seed {seed}: validator {} keeps no certificate of epoch {epoch}",
                    node.index
                );
            }
        }
        let common = {
            let mut h = u64::MAX;
            for i in 0..n {
                h = h.min(height(i).await);
            }
            h
        };
        assert!(
            common >= voted.min(healed),
            "seed {seed}: heights {common} < {voted}"
        );
        assert_agree(&nodes, common, seed, &format!("seed {seed}, catch-up")).await;
    })
}

/// Blocks per epoch in [`sim_catch_up_from_a_snapshot`].
const SNAPSHOT_EPOCH_BLOCKS: u64 = 20;
/// The height the others reach before the late validator starts: past the boundaries at
/// 19, 39 and 59, so it is more than two epochs behind.
const SNAPSHOT_LATE_AT: u64 = 70;

/// Catch-up from a state snapshot (`cowboy_node::snapshot_sync`): 20-block epochs; validator
/// 3, a genesis validator, starts with an empty data directory only once the other three
/// (a quorum, and `t` of the beacon) have finalized 70 blocks, three epoch boundaries. It
/// walks the epochs from genesis (each boundary's certificate checked against the set the
/// previous boundary proved), builds the state of the newest boundary from a peer's
/// operations, verified against that block's certified state root, catches up the rest by
/// re-execution and votes again (its signature in a later block's vote record). It holds no
/// block below the snapshot (the reads are `BeforeSnapshot`), and every node has the same
/// hash and state root at every height from the snapshot up. All the while a fifth peer
/// answers every request with lies: boundaries of made-up blocks "certified" by strangers
/// and claiming a thousand epochs more, garbage snapshot operations, some sent unasked.
#[test]
fn sim_catch_up_from_a_snapshot() {
    for seed in catch_up_seeds() {
        snapshot_run(seed, SnapshotRun::Snapshot);
    }
}

/// The same with a peer that relays genuine boundaries (copied from validator 0, so they
/// check out) faster than anyone, then answers the snapshot's requests with tampered
/// operations: the build from it is refused and leaves nothing, the liar is remembered as a
/// bad source (`snapshot_sync::BadSources`), and the late validator at once asks the peers
/// for the same boundary again, takes it from an honest one and installs that snapshot:
/// nothing below it (`BeforeSnapshot`), a vote, the same hashes and roots at all four from
/// the snapshot up.
#[test]
fn sim_snapshot_from_a_lying_peer_is_taken_from_an_honest_one() {
    for seed in catch_up_seeds() {
        snapshot_run(seed, SnapshotRun::LyingRelayer);
    }
}

/// The same lying peer, but no honest source: the late validator hears boundaries from the
/// liar alone (the honest validators' `Epoch` answers are dropped on its way in, as from
/// peers whose data directories predate boundary records). The build from the liar is
/// refused, no other peer holds the boundary, so the late validator catches up by
/// re-execution instead (every block from genesis, the same as the others'), and votes; the
/// liar is asked for operations in one stall only.
#[test]
fn sim_snapshot_from_a_lying_peer_falls_back_to_re_execution() {
    for seed in catch_up_seeds() {
        snapshot_run(seed, SnapshotRun::LyingRelayerOnly);
    }
}

/// A validator that began at a snapshot survives crashes (issue 17): as in
/// [`sim_catch_up_from_a_snapshot`], but validator 3 is killed three times, every task of
/// it at once ([`World::crash`]), and restarted from its data directory (its files and
/// storage partitions) each time:
/// 1. in the middle of its first install, after the snapshot's state, block store and
///    `base` line are written and before the `generation` file switches to them (a write
///    fault stops it there: [`interrupt_install`]): it restarts on its old generation (the
///    chain from genesis it had, no snapshot), then catches up by a snapshot again and votes;
/// 2. after it voted on that snapshot, for a few blocks: it reopens the snapshot's
///    generation and base, resumes at or above its head (no re-sync from genesis), holds
///    nothing below the snapshot (`BeforeSnapshot`), catches up by re-execution and votes;
/// 3. for more than an epoch, then in the middle of the install of a second snapshot: it
///    restarts on the first snapshot's generation with that one's base (the install had
///    replaced the `base` file, so a restart found no base for the generation it opened:
///    fixed, the file keeps both lines until the switch), then installs the second and votes.
///
/// All four have the same hashes and state roots from the last snapshot up.
#[test]
fn sim_snapshot_node_survives_crashes_during_and_after_the_install() {
    for seed in catch_up_seeds() {
        snapshot_run(seed, SnapshotRun::Crashes);
    }
}

/// Start a peer that answers `WantEpoch` with `source`'s genuine boundaries and `WantOps`
/// with `source`'s answer tampered (see
/// [`sim_snapshot_from_a_lying_peer_is_taken_from_an_honest_one`]); it answers nothing else.
/// Returns the virtual time (whole seconds) of each tampered answer it sent.
async fn start_relayer(
    world: &World,
    i: usize,
    source: Arc<Mutex<Chain<Ctx>>>,
) -> Arc<std::sync::Mutex<Vec<u64>>> {
    use cowboy_node::sync::{Message, SYNC_CHANNEL};
    let tampered: Arc<std::sync::Mutex<Vec<u64>>> = Default::default();
    let control = world.oracle.control(world.keys[i].clone());
    for (channel, quota) in channel_quotas() {
        let (mut sender, mut receiver) = control.register(channel, quota).await.expect("register");
        if channel != SYNC_CHANNEL {
            world
                .context
                .child("relayer_drain")
                .spawn(move |_| async move { while receiver.recv().await.is_ok() {} });
            continue;
        }
        let source = source.clone();
        let tampered = tampered.clone();
        world
            .context
            .child("relayer")
            .spawn(move |context| async move {
                while let Ok((peer, bytes)) = receiver.recv().await {
                    let answer = match Message::decode(bytes.as_ref()) {
                        Ok(Message::WantEpoch { epoch }) => {
                            let (certificate, record, head) = {
                                let c = source.lock().await;
                                (
                                    c.certificate(epoch),
                                    c.boundary(epoch),
                                    c.head().header.height,
                                )
                            };
                            let (Some(certificate), Some(record)) = (certificate, record) else {
                                continue;
                            };
                            Message::Epoch {
                                newest: (head + 1) / SNAPSHOT_EPOCH_BLOCKS - 1,
                                certificate: &certificate,
                                boundary: &record,
                            }
                            .encode()
                        }
                        Ok(Message::WantOps(request)) => {
                            let reader = source.lock().await.readers().borrow().clone();
                            let Some(reader) = reader else { continue };
                            let Ok(mut response) = reader.state.serve_snapshot(&request).await
                            else {
                                continue;
                            };
                            let middle = response.len() / 2;
                            if let Some(b) = response.get_mut(middle) {
                                *b ^= 0x5a;
                            }
                            let at = context
                                .current()
                                .duration_since(std::time::UNIX_EPOCH)
                                .unwrap_or_default()
                                .as_secs();
                            if let Ok(mut t) = tampered.lock() {
                                t.push(at);
                            }
                            Message::Ops {
                                request,
                                response: &response,
                            }
                            .encode()
                        }
                        _ => continue,
                    };
                    let _ = sender.send(Recipients::One(peer), answer, false);
                }
            });
    }
    tampered
}

/// A receiver that, on the sync channel (`keep` given), drops boundary answers (`Epoch`)
/// from every peer but `keep` (see
/// [`sim_snapshot_from_a_lying_peer_falls_back_to_re_execution`]).
#[derive(Debug)]
struct EpochsOnlyFrom<R> {
    inner: R,
    keep: Option<Key>,
}

impl<R: commonware_p2p::Receiver<PublicKey = Key>> commonware_p2p::Receiver for EpochsOnlyFrom<R> {
    type Error = R::Error;
    type PublicKey = Key;

    async fn recv(&mut self) -> Result<commonware_p2p::Message<Key>, R::Error> {
        use cowboy_node::sync::Message;
        loop {
            let (peer, bytes) = self.inner.recv().await?;
            if self.keep.as_ref().is_some_and(|k| *k != peer)
                && matches!(Message::decode(bytes.as_ref()), Ok(Message::Epoch { .. }))
            {
                continue;
            }
            return Ok((peer, bytes));
        }
    }

    fn capacity(&self) -> std::num::NonZeroUsize {
        self.inner.capacity()
    }
}

/// Block hash and state root at each height `from..=upto` of `node`'s finalized chain.
async fn chain_from(node: &SimNode, from: u64, upto: u64) -> Vec<([u8; 32], [u8; 32])> {
    let reader = node.reader().await;
    let mut out = Vec::new();
    for h in from..=upto {
        let block = reader
            .block(h)
            .await
            .expect("read a block")
            .unwrap_or_else(|| panic!("validator {} lacks block {h}", node.index));
        out.push((block.header.hash().0, block.header.state_root.0));
    }
    out
}

/// How a snapshot run goes (see its tests).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SnapshotRun {
    /// [`sim_catch_up_from_a_snapshot`].
    Snapshot,
    /// [`sim_snapshot_from_a_lying_peer_is_taken_from_an_honest_one`].
    LyingRelayer,
    /// [`sim_snapshot_from_a_lying_peer_falls_back_to_re_execution`].
    LyingRelayerOnly,
    /// [`sim_snapshot_node_survives_crashes_during_and_after_the_install`].
    Crashes,
}

/// Wait until a block of `node`'s finalized chain above `above` records the vote of
/// `signer` (its position in the set), and return that block's height.
async fn wait_for_vote(world: &World, node: &SimNode, signer: u32, above: u64, what: &str) -> u64 {
    let started = world.context.current();
    loop {
        let elapsed = world
            .context
            .current()
            .duration_since(started)
            .unwrap_or_default();
        assert!(elapsed < DEADLINE, "{what} after {elapsed:?}");
        world.context.sleep(Duration::from_millis(100)).await;
        let head = node.chain.lock().await.head().header.height;
        if head <= above {
            continue;
        }
        let reader = node.reader().await;
        let block = reader.block(head).await.expect("read").expect("final");
        let votes = block.votes.map(|r| r.votes).unwrap_or_default();
        if votes.iter().any(|v| v.signer == signer) {
            return head;
        }
    }
}

/// What a node that began at a snapshot at `base` must answer below it: no block under the
/// snapshot's, no receipts of that block, no state at an older height (`BeforeSnapshot`).
async fn assert_holds_nothing_below(node: &SimNode, base: u64, what: &str) {
    use cowboy_node::chain::ChainError;
    let reader = node.reader().await;
    assert_eq!(reader.base, base, "{what}: the reader's snapshot base");
    match reader.block(base - 1).await {
        Err(ChainError::BeforeSnapshot { height, base: b }) => {
            assert_eq!((height, b), (base - 1, base), "{what}")
        }
        other => panic!("{what}: a block below the snapshot read as {other:?}"),
    }
    assert!(
        matches!(
            reader.receipts(base).await,
            Err(ChainError::BeforeSnapshot { .. })
        ),
        "{what}: the snapshot block's receipts are not held"
    );
    assert!(
        matches!(reader.at(5).await, Err(ChainError::BeforeSnapshot { .. })),
        "{what}: no state below the snapshot"
    );
    let block = reader.block(base).await.expect("read the snapshot's block");
    assert!(block.is_some(), "{what}: the snapshot's block is held");
}

/// The height of the snapshot the `base` file in `dir` names for `generation`, if it names one.
fn base_file_names(dir: &std::path::Path, generation: u64) -> Option<u64> {
    let text = std::fs::read_to_string(dir.join("base")).ok()?;
    text.lines().find_map(|line| {
        let mut words = line.split_whitespace();
        let of: u64 = words.next()?.parse().ok()?;
        (of == generation).then(|| words.next()?.parse().ok())?
    })
}

/// Start validator `i` in `dir` (a directory a crash of it left, or a new one) so that its
/// next install of a state snapshot, into generation `generation`, is interrupted between
/// writing everything of the new generation (its state, its block store, its line of the
/// `base` file) and the `generation` file's switch to it: a directory where the switch
/// writes its temporary file (`chain::write_atomic`'s `generation.tmp`) fails that write,
/// so the install stops exactly there, and the node is crashed as soon as it has. Returns
/// the directory with the fault lifted and the height of the snapshot that was installed.
async fn interrupt_install(
    world: &World,
    i: usize,
    dir: tempfile::TempDir,
    generation: u64,
) -> (tempfile::TempDir, u64) {
    let seed = world.seed;
    let fault = dir.path().join("generation.tmp");
    std::fs::create_dir(&fault).expect("the fault");
    let (node, host) = world.start_crashable(i, dir).await;
    let started = world.context.current();
    let failed = loop {
        if let Some(height) = base_file_names(node._dir.path(), generation) {
            break height;
        }
        let elapsed = world
            .context
            .current()
            .duration_since(started)
            .unwrap_or_default();
        assert!(
            elapsed < DEADLINE,
            "seed {seed}: validator {i} began no install of generation {generation} in {elapsed:?}"
        );
        world.context.sleep(Duration::from_millis(10)).await;
    };
    let dir = world.crash(node, host).await;
    let switched = std::fs::read_to_string(dir.path().join("generation")).ok();
    assert_eq!(
        switched
            .and_then(|g| g.trim().parse::<u64>().ok())
            .unwrap_or(0),
        generation - 1,
        "seed {seed}: the interrupted install switched the generation"
    );
    std::fs::remove_dir(&fault).expect("lift the fault");
    (dir, failed)
}

/// A node restarted after a crash resumed where it was: at or above `before`, its head,
/// on the snapshot `base` it had, holding nothing below it.
async fn assert_resumed(node: &SimNode, before: u64, base: &SnapshotBase, what: &str) {
    {
        let chain = node.chain.lock().await;
        assert!(
            chain.head().header.height >= before,
            "{what}: at {}, below its head {before} before the crash",
            chain.head().header.height
        );
        assert_eq!(
            chain.snapshot_base(),
            Some(base),
            "{what}: not on the snapshot it had"
        );
    }
    assert_holds_nothing_below(node, base.height, what).await;
}

fn snapshot_run(seed: u64, run: SnapshotRun) {
    runner(seed).start(|context| async move {
        let (n, late, liar) = (4, 3, 4);
        let mut genesis = genesis(n, "127.0.0.1:30333".parse().expect("address"));
        genesis.params.epoch_blocks = SNAPSHOT_EPOCH_BLOCKS;
        // Absent for ~80 blocks of a 10,000-block window: not jailed, so still in the set.
        genesis.params.downtime_window_blocks = 10_000;
        let world = World::with_genesis(context, genesis, n + 1, seed).await;
        world.link_all(&good_link(), |_, _| true).await;
        let mut nodes = Vec::new();
        for i in 0..late {
            nodes.push(world.start_plain(i).await);
        }
        let lying = matches!(
            run,
            SnapshotRun::LyingRelayer | SnapshotRun::LyingRelayerOnly
        );
        let mut tampered = None;
        if lying {
            tampered = Some(start_relayer(&world, liar, nodes[0].chain.clone()).await);
            // Its answers reach the late validator first.
            let (from, to) = (world.keys[liar].clone(), world.keys[late].clone());
            world
                .oracle
                .remove_link(from.clone(), to.clone())
                .await
                .expect("cut");
            let fast = Link {
                latency: Duration::from_millis(1),
                jitter: Duration::ZERO,
                success_rate: probability!(1.0),
            };
            world.oracle.add_link(from, to, fast).await.expect("link");
        } else {
            start_liar(&world, liar).await;
        }
        let started = world.context.current();
        let waited = |what: &str| {
            let elapsed = world
                .context
                .current()
                .duration_since(started)
                .unwrap_or_default();
            assert!(
                elapsed < DEADLINE * 3,
                "seed {seed}: {what} after {elapsed:?}"
            );
        };
        let height = |node: &SimNode| {
            let chain = node.chain.clone();
            async move { chain.lock().await.head().header.height }
        };
        while height(&nodes[0]).await < SNAPSHOT_LATE_AT {
            waited("the three do not reach the late start");
            world.context.sleep(Duration::from_millis(100)).await;
        }
        let mut host = None;
        if run == SnapshotRun::Crashes {
            // The late validator crashes in the middle of its first install; restarted, it
            // opens its old generation: the chain from genesis it had, no snapshot.
            let dir = tempfile::tempdir().expect("temp dir");
            let (dir, failed) = interrupt_install(&world, late, dir, 1).await;
            let (node, h) = world.start_crashable(late, dir).await;
            {
                let chain = node.chain.lock().await;
                assert_eq!(
                    chain.snapshot_base(),
                    None,
                    "seed {seed}: the restart after an interrupted install found a snapshot"
                );
                assert!(
                    chain.head().header.height < failed,
                    "seed {seed}: the restart after an interrupted install is at {}, the \
                     snapshot's height {failed}",
                    chain.head().header.height
                );
                let reader = chain.readers().borrow().clone().expect("reader");
                assert!(
                    matches!(reader.block(0).await, Ok(Some(_))),
                    "seed {seed}: the old generation's genesis block is gone"
                );
            }
            nodes.push(node);
            host = Some(h);
        } else {
            // With no honest source, it hears boundaries from the liar alone.
            let keep = (run == SnapshotRun::LyingRelayerOnly).then(|| world.keys[liar].clone());
            let channels = world.channels(late, |_| None, None).await;
            let channels = channels
                .into_iter()
                .zip(channel_quotas())
                .map(|(((sender, inner), _), (channel, _))| {
                    let keep = keep
                        .clone()
                        .filter(|_| channel == cowboy_node::sync::SYNC_CHANNEL);
                    (sender, EpochsOnlyFrom { inner, keep })
                })
                .collect();
            nodes.push(
                world
                    .start(late, &format!("v{late}"), world.coinbase(late), channels)
                    .await,
            );
        }
        let joined = height(&nodes[0]).await;

        // It installs a snapshot, catches up, then votes: a later block records its vote.
        let participants = Set::try_from_iter(world.keys[..n].iter().cloned()).expect("distinct");
        let signer = participants.position(&world.keys[late]).expect("a member") as u32;
        let what = format!("seed {seed}: the late validator never caught up and voted");
        let voted = wait_for_vote(&world, &nodes[late], signer, joined - 1, &what).await;

        // What the lying peer sent was dropped and counted (unasked operations; a snapshot
        // refused).
        assert!(
            nodes[late].validator.metrics.sync_dropped.get() > 0,
            "seed {seed}: nothing the lying peer sent was counted"
        );
        let base = nodes[late].chain.lock().await.snapshot_base().cloned();
        if let Some(tampered) = &tampered {
            // The liar answered first and was asked for the snapshot's operations.
            let times = tampered.lock().expect("times").clone();
            assert!(
                !times.is_empty(),
                "seed {seed}: the lying peer was never asked for operations"
            );
            assert!(
                nodes[late].validator.metrics.snapshot_bad_sources.get() >= 1,
                "seed {seed}: the lying source was not counted"
            );
            // Once refused, it is not asked again (in a later stall).
            let (first, last) = (times[0], times[times.len() - 1]);
            assert!(
                last - first < 5,
                "seed {seed}: the lying peer was asked for operations at {times:?}"
            );
        }
        if run == SnapshotRun::LyingRelayerOnly {
            assert_eq!(
                base, None,
                "seed {seed}: a snapshot built from tampered operations"
            );
            let mut common = u64::MAX;
            for node in &nodes {
                common = common.min(height(node).await);
            }
            assert!(common >= voted.min(joined), "seed {seed}: heights {common}");
            assert_agree(&nodes, common, seed, &format!("seed {seed}, re-executed")).await;
            return;
        }
        let base =
            base.unwrap_or_else(|| panic!("seed {seed}: the late validator took no snapshot"));
        assert!(
            base.height >= 3 * SNAPSHOT_EPOCH_BLOCKS - 1
                && (base.height + 1).is_multiple_of(SNAPSHOT_EPOCH_BLOCKS),
            "seed {seed}: snapshot at {}, not the newest boundary",
            base.height
        );
        assert_holds_nothing_below(&nodes[late], base.height, &format!("seed {seed}")).await;
        // It serves the walk in turn: the boundaries it verified are kept.
        {
            let chain = nodes[late].chain.lock().await;
            for epoch in 0..3 {
                assert!(
                    chain.certificate(epoch).is_some() && chain.boundary(epoch).is_some(),
                    "seed {seed}: the late validator keeps no boundary of epoch {epoch}"
                );
            }
        }
        let (mut voted, mut base) = (voted, base);
        if let Some(h) = host {
            // Killed after it voted on its snapshot, and restarted from its data directory:
            // it reopens the snapshot's generation and base and resumes from its head (no
            // re-sync from genesis, nothing asked of the blocks below the base), catches up
            // the blocks finalized meanwhile and votes.
            let before = height(&nodes[late]).await;
            let dir = world.crash(nodes.pop().expect("late"), h).await;
            let down = height(&nodes[0]).await;
            // Down for a few blocks, less than an epoch: it catches up by re-execution.
            while height(&nodes[0]).await < down + 5 {
                waited("the three stall while the late validator is down");
                world.context.sleep(Duration::from_millis(50)).await;
            }
            let (node, h) = world.start_crashable(late, dir).await;
            assert_resumed(&node, before, &base, &format!("seed {seed}, restarted")).await;
            nodes.push(node);
            let what = format!("seed {seed}: the restarted validator never voted again");
            wait_for_vote(&world, &nodes[late], signer, down + 5, &what).await;

            // Killed again and down for more than an epoch, so that it catches up by a second
            // snapshot, and that install is interrupted before its switch: restarted, it
            // must still run on the first snapshot's generation with that one's base.
            let before = height(&nodes[late]).await;
            let dir = world.crash(nodes.pop().expect("late"), h).await;
            let epochs_ahead = (before + 1) / SNAPSHOT_EPOCH_BLOCKS + 2;
            while height(&nodes[0]).await < epochs_ahead * SNAPSHOT_EPOCH_BLOCKS + 2 {
                waited("the three stall while the late validator is down for long");
                world.context.sleep(Duration::from_millis(100)).await;
            }
            let (dir, failed) = interrupt_install(&world, late, dir, 2).await;
            assert!(
                failed > base.height,
                "seed {seed}: a second snapshot at {failed}, not above the first"
            );
            let (node, _host) = world.start_crashable(late, dir).await;
            let what = format!("seed {seed}, restarted after an interrupted second install");
            assert_resumed(&node, before, &base, &what).await;
            nodes.push(node);
            // Then it installs the second snapshot and votes on it.
            let what = format!("seed {seed}: the validator never voted on a second snapshot");
            let above = height(&nodes[0]).await;
            voted = wait_for_vote(&world, &nodes[late], signer, above, &what).await;
            let second = nodes[late].chain.lock().await.snapshot_base().cloned();
            base = second.unwrap_or_else(|| panic!("seed {seed}: no snapshot after the restarts"));
            assert!(
                base.height >= failed,
                "seed {seed}: the second snapshot at {}, below the interrupted one at {failed}",
                base.height
            );
            let what = format!("seed {seed}, on the second snapshot");
            assert_holds_nothing_below(&nodes[late], base.height, &what).await;
        }
        let mut common = u64::MAX;
        for node in &nodes {
            common = common.min(height(node).await);
        }
        assert!(common >= voted.min(joined), "seed {seed}: heights {common}");
        let reference = chain_from(&nodes[0], base.height, common).await;
        for node in &nodes[1..] {
            assert_eq!(
                chain_from(node, base.height, common).await,
                reference,
                "seed {seed}: validator {} differs from validator 0 above the snapshot",
                node.index
            );
        }
        // The others kept every block from genesis.
        assert_agree(
            &nodes[..late],
            common,
            seed,
            &format!("seed {seed}, snapshot"),
        )
        .await;
    })
}
