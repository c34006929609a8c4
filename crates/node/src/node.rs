//! Wiring: open the chain, start the p2p network, the simplex engine, the RPC server and the
//! metrics endpoint, then run until SIGINT/SIGTERM.

use std::future::Future;
use std::net::SocketAddr;
use std::num::NonZeroUsize;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use commonware_cryptography::{ed25519, Signer};
use commonware_p2p::authenticated::discovery;
use commonware_p2p::utils::mux::Muxer;
use commonware_p2p::{Blocker, Ingress, Manager, Receiver, Sender, TrackedPeers};
use commonware_runtime::{Quota, Supervisor as _};
use commonware_stream::{cups, sake, SakeCups};
use cowboy_types::Address;
use tokio::sync::Mutex;

use crate::chain::Chain;
use crate::consensus::{
    Application, Ctx, ProposalTamper, Runtime, BLOCKS_CHANNEL, CERTIFICATES_CHANNEL,
    RESOLVER_CHANNEL, VOTES_CHANNEL,
};
use crate::genesis::Genesis;
use crate::gossip::{Gossip, TXS_CHANNEL};
use crate::mempool::Mempool;
use crate::metrics::Metrics;
use crate::production::{Mining, Production};

/// The largest p2p message: a block of the largest size any genesis this node accepts allows
/// (`GenesisParams::max_block_bytes`, checked when the genesis is loaded) fits with room for
/// framing. With the default parameters a block is at most ~1.7 MiB (a full vote record of
/// 10,000 validators included).
pub const MAX_P2P_MESSAGE_BYTES: u32 = 8 << 20;

/// Everything `cowboyd` needs to run.
pub struct NodeConfig {
    /// Data directory (state, blocks, consensus journal, pending blocks).
    pub data_dir: PathBuf,
    /// The network's genesis.
    pub genesis: Genesis,
    /// This validator's consensus key (a full node's p2p identity).
    pub validator_key: ed25519::PrivateKey,
    /// A full node: it follows the chain, executes every block and serves RPC, and never
    /// votes or proposes (see the README's "Full nodes").
    pub full_node: bool,
    /// The full nodes this node lets connect (`--follower KEY`): validators track only the
    /// registered validators otherwise.
    pub followers: Vec<ed25519::PublicKey>,
    /// p2p listen address.
    pub p2p_addr: SocketAddr,
    /// The p2p address peers should dial, announced (signed) to them; `None`: `p2p_addr`.
    pub p2p_external_addr: Option<SocketAddr>,
    /// Where the tips of this validator's blocks go; `None`: its genesis entry's coinbase.
    pub coinbase: Option<Address>,
    /// Peers dialed at start besides the genesis validators (`--bootstrap KEY@HOST:PORT`).
    pub bootstrappers: Vec<(ed25519::PublicKey, SocketAddr)>,
    /// JSON-RPC address.
    pub rpc_addr: SocketAddr,
    /// Metrics address, if served.
    pub metrics_addr: Option<SocketAddr>,
    /// When blocks are built.
    pub mining: Mining,
    /// A dev chain (one validator): serve the `dev_*` controls (see `crate::dev`).
    pub dev: bool,
    /// Mempool bound (transactions).
    pub mempool_txs: usize,
    /// Blocks of state history kept for reads at a block and traces (`cowboy_state`'s
    /// `StateConfig::history_blocks`).
    pub history_blocks: u64,
    /// Whether catch-up may build the state from a snapshot when more than an epoch behind
    /// (`crate::snapshot_sync`; `--no-snapshot-sync` turns it off: the node then re-executes
    /// every block and keeps every receipt).
    pub snapshot_sync: bool,
    /// What the RPC may cost the node (workers, connections, idle timeout).
    pub rpc_limits: crate::limits::RpcLimits,
    /// Called once the node serves RPC, with the bound RPC address.
    pub on_ready: Box<dyn FnOnce(SocketAddr) + Send>,
    /// Rewrites this validator's proposals (tests of Byzantine proposers only; `None` in
    /// `cowboyd`).
    pub tamper_proposals: Option<crate::consensus::ProposalTamper>,
    /// Its share of the beacon group, if it holds one (`--dev`: the dev share; otherwise
    /// the data directory's `beacon.share`).
    pub beacon_share: Option<commonware_cryptography::bls12381::primitives::group::Share>,
    /// The node runs until this resolves (`cowboyd`: [`shutdown_signal`]).
    pub shutdown: Pin<Box<dyn Future<Output = ()> + Send>>,
}

/// Run the node until `cfg.shutdown` resolves.
pub async fn run(context: Ctx, cfg: NodeConfig) -> Result<(), String> {
    let genesis = cfg.genesis.clone();
    let me = cfg.validator_key.public_key();
    let listed = genesis.validators.iter().find(|v| v.public_key == me);
    let coinbase: Address = if cfg.full_node {
        if listed.is_some() {
            return Err(
                "--full-node: this key is a genesis validator's; a full node needs a \
                        key of its own (a validator that does not vote halts the chain)"
                    .into(),
            );
        }
        // Never proposes, so no tips reach it.
        Address::ZERO
    } else {
        cfg.coinbase.or(listed.map(|v| v.coinbase)).ok_or(
            "this node's validator key is not in the genesis validator set: give --coinbase \
             ADDRESS (where the tips of its blocks go) to run it as a validator that staked \
             later, or --full-node to follow the chain without voting",
        )?
    };

    let mut chain = Chain::open(
        context.child("chain"),
        &cfg.data_dir,
        "",
        genesis.clone(),
        Mempool::new(cfg.mempool_txs, 256 << 20),
        cfg.history_blocks,
    )
    .await
    .map_err(|e| e.to_string())?;
    chain.set_snapshot_sync(cfg.snapshot_sync);
    let head = chain.head().header.height;
    // The p2p network is sized to the validators known now (see `epochs::peer_bound`).
    let reader = chain.readers().borrow().clone();
    let registered = match reader {
        Some(r) => cowboy_exec::system::staking::registered_keys(&r.state)
            .await
            .map_err(|e| e.to_string())?
            .len(),
        None => 0,
    };
    let peer_bound =
        crate::epochs::peer_bound(registered.max(genesis.validators.len()) + cfg.followers.len());
    let chain = Arc::new(Mutex::new(chain));
    tracing::info!(height = head, "chain open");

    // p2p: authenticated, encrypted connections between the validators, found by discovery:
    // each peer announces its own dialable address, signed, and gossips the ones it knows.
    // One home for the namespace: the staking actor verifies slashing evidence under it.
    let namespace = cowboy_exec::system::staking::consensus_namespace(genesis.chain_id);
    let handshake: SakeCups<ed25519::PrivateKey, commonware_cryptography::ChaCha20Poly1305> =
        cups::Cups::new(
            sake::Sake {
                signer: cfg.validator_key.clone(),
                synchrony_bound: Duration::from_secs(5),
                max_handshake_age: Duration::from_secs(10),
                version: sake::Version::V1,
            },
            cups::Version::V1,
        );
    let p2p_cfg = discovery::Config::local(
        handshake,
        &namespace,
        cfg.p2p_addr,
        Ingress::Socket(cfg.p2p_external_addr.unwrap_or(cfg.p2p_addr)),
        bootstrappers(&genesis, &me, &cfg.bootstrappers),
        NonZeroUsize::new(peer_bound).unwrap_or(NonZeroUsize::MIN),
        MAX_P2P_MESSAGE_BYTES,
        NonZeroUsize::new(1024).unwrap_or(NonZeroUsize::MIN),
    );
    let (mut network, oracle) = discovery::Network::new(context.child("network"), p2p_cfg);
    let channels = channel_quotas().map(|(channel, quota)| network.register(channel, quota));
    network.start();

    let production = Arc::new(Production::new(
        cfg.mining,
        Arc::new(context.child("clock")),
    ));
    let validator = start_validator(
        &context,
        chain.clone(),
        ValidatorConfig {
            genesis: genesis.clone(),
            key: cfg.validator_key.clone(),
            coinbase,
            production: production.clone(),
            dev: cfg.dev,
            tamper: cfg.tamper_proposals,
            partition_prefix: String::new(),
            peer_bound,
            full_node: cfg.full_node,
            followers: cfg.followers.clone(),
            beacon_share: cfg.beacon_share,
            // A dev chain's share is the dev share, not a file (and its one validator never
            // reshares); otherwise the data directory's, whose file names its round.
            share_dir: (!cfg.dev).then(|| cfg.data_dir.clone()),
            share_round: if cfg.dev {
                0
            } else {
                crate::beacon::read_share_round(&cfg.data_dir)?.map_or(0, |(r, _)| r)
            },
        },
        channels,
        oracle.clone(),
        {
            let mut oracle = oracle.clone();
            Box::new(move |id, peers| {
                let _ = oracle.track(id, peers);
            })
        },
    )
    .await?;
    let Validator {
        gossip,
        metrics,
        application,
        beacon,
        consensus: _consensus,
    } = validator;

    // Interfaces.
    let (readers, finalized) = {
        let c = chain.lock().await;
        (c.readers(), c.subscribe_finalized())
    };
    let (rpc_addr, rpc_handle) = crate::rpc::serve(
        cfg.rpc_addr,
        crate::rpc::RpcState {
            chain: chain.clone(),
            readers,
            finalized,
            traces: Arc::new(tokio::sync::Semaphore::new(1)),
            evidence: application.evidence_log(),
            pool: crate::limits::WorkerPool::new(&cfg.rpc_limits),
            metrics: metrics.clone(),
            gossip,
            dev: cfg.dev.then(|| {
                Arc::new(crate::dev::Devnet::new(
                    chain.clone(),
                    production.clone(),
                    beacon,
                ))
            }),
            production,
        },
        cfg.rpc_limits.clone(),
    )
    .await
    .map_err(|e| format!("cannot serve RPC on {}: {e}", cfg.rpc_addr))?;
    if let Some(addr) = cfg.metrics_addr {
        let bound = crate::metrics::serve(context.child("metrics"), addr)
            .await
            .map_err(|e| format!("cannot serve metrics on {addr}: {e}"))?;
        tracing::info!(%bound, "metrics");
    }
    (cfg.on_ready)(rpc_addr);

    cfg.shutdown.await;
    tracing::info!("shutting down");
    let _ = rpc_handle.stop();
    // Finalized blocks are durable when announced; wait for an in-flight finalization.
    let _guard = chain.lock().await;
    Ok(())
}

/// The peers a node dials at start: the `--bootstrap` peers, then every genesis validator
/// but itself at the address the genesis lists. A genesis address is only where to start:
/// once connected, peers learn each other's current addresses from discovery's signed
/// announcements, so a validator that moves needs no new genesis.
fn bootstrappers(
    genesis: &Genesis,
    me: &ed25519::PublicKey,
    extra: &[(ed25519::PublicKey, SocketAddr)],
) -> Vec<(ed25519::PublicKey, Ingress)> {
    let mut out: Vec<(ed25519::PublicKey, Ingress)> = Vec::new();
    // The operator's entries first: they win over a stale genesis address.
    let listed = genesis.validators.iter().map(|v| (&v.public_key, v.p2p));
    for (key, addr) in extra.iter().map(|(k, a)| (k, *a)).chain(listed) {
        if key != me && !out.iter().any(|(k, _)| k == key) {
            out.push((key.clone(), Ingress::Socket(addr)));
        }
    }
    out
}

/// The p2p channels of a validator and their per-peer quotas, in the order
/// [`start_validator`] takes them: votes, certificates, certificate requests, blocks,
/// transaction gossip, range sync, beacon partial signatures, reshare messages.
pub fn channel_quotas() -> [(u64, Quota); 8] {
    let consensus =
        Quota::per_second(std::num::NonZeroU32::new(10_000).unwrap_or(std::num::NonZeroU32::MIN));
    [
        (VOTES_CHANNEL, consensus),
        (CERTIFICATES_CHANNEL, consensus),
        (RESOLVER_CHANNEL, consensus),
        (BLOCKS_CHANNEL, consensus),
        (TXS_CHANNEL, crate::gossip::quota()),
        (crate::sync::SYNC_CHANNEL, crate::sync::quota()),
        (crate::beacon::BEACON_CHANNEL, crate::beacon::quota()),
        (crate::reshare::RESHARE_CHANNEL, crate::reshare::quota()),
    ]
}

/// What [`start_validator`] needs besides the chain and the network.
pub struct ValidatorConfig {
    /// The network's genesis (the validator set).
    pub genesis: Genesis,
    /// This validator's consensus key.
    pub key: ed25519::PrivateKey,
    /// Where the tips of its blocks go.
    pub coinbase: Address,
    /// When it builds.
    pub production: Arc<Production>,
    /// The only validator of a dev chain (see `crate::consensus`).
    pub dev: bool,
    /// Rewrites its proposals (tests of Byzantine proposers only).
    pub tamper: Option<ProposalTamper>,
    /// Prefix of the consensus journal's storage partitions (as the chain's: see
    /// [`Chain::open`]).
    pub partition_prefix: String,
    /// Most peers the p2p network tracks per epoch (`crate::epochs::peer_bound`).
    pub peer_bound: usize,
    /// A full node: it never votes (`crate::epochs::Settings::full_node`).
    pub full_node: bool,
    /// The full nodes it lets connect (`crate::epochs::Settings::followers`).
    pub followers: Vec<ed25519::PublicKey>,
    /// Its share of the beacon group, if it holds one (`crate::beacon`).
    pub beacon_share: Option<commonware_cryptography::bls12381::primitives::group::Share>,
    /// The reshare round of the sharing `beacon_share` belongs to (0: the genesis dealing;
    /// `crate::beacon::read_share_round`).
    pub share_round: u64,
    /// Where the share file lives, replaced when a reshare round gives this validator a new
    /// share (`None`: the share is not kept on disk).
    pub share_dir: Option<PathBuf>,
}

/// A running validator's handles.
pub struct Validator<E: Runtime> {
    /// The application (its evidence of faults, among others).
    pub application: Application<E>,
    /// Transaction gossip (the RPC tells it of admitted transactions).
    pub gossip: Gossip,
    /// The node's metrics.
    pub metrics: Metrics,
    /// The threshold beacon service, on a chain with a beacon (a dev revert rewinds it).
    pub beacon: Option<crate::beacon::Beacon>,
    /// The consensus engines, one per epoch (`crate::epochs`).
    pub consensus: crate::epochs::Engines,
}

/// Start a validator's consensus side on any commonware runtime and network: the
/// application (block relay, range sync, finalizer), transaction gossip and the simplex
/// engine, on `channels` (registered with [`channel_quotas`], in that order), with `blocker`
/// the network's way to block a peer that misbehaves. `cowboyd` runs it on tokio and the
/// authenticated network; the simulations on the deterministic runtime and the simulated
/// network.
pub async fn start_validator<E, S, R, B>(
    context: &E,
    chain: Arc<Mutex<Chain<E>>>,
    cfg: ValidatorConfig,
    channels: [(S, R); 8],
    blocker: B,
    track: crate::epochs::Track,
) -> Result<Validator<E>, String>
where
    E: Runtime,
    S: Sender<PublicKey = ed25519::PublicKey>,
    R: Receiver<PublicKey = ed25519::PublicKey>,
    B: Blocker<PublicKey = ed25519::PublicKey>,
{
    let genesis = &cfg.genesis;
    let me = cfg.key.public_key();
    let namespace = cowboy_exec::system::staking::consensus_namespace(genesis.chain_id);
    let [votes, certificates, resolver, blocks, txs, sync, beacon_channel, reshare_channel] =
        channels;
    let metrics = Metrics::new(&context.child("cowboy"));
    let beacon = if genesis.params.has_beacon() {
        Some(match beacon_group(&chain, genesis, &cfg).await? {
            Some(group) => crate::beacon::Beacon::new(genesis.chain_id, group),
            // The genesis validators have not generated the group yet.
            None => crate::beacon::Beacon::awaiting(genesis.chain_id),
        })
    } else {
        None
    };
    if let Some(b) = &beacon {
        b.start(context, beacon_channel);
        crate::reshare_task::start(
            context,
            chain.clone(),
            b.clone(),
            crate::reshare_task::Config {
                key: cfg.key.clone(),
                share: cfg.beacon_share.clone().map(|s| (cfg.share_round, s)),
                share_dir: cfg.share_dir.clone(),
                params: genesis.params.clone(),
            },
            reshare_channel,
        );
    } else {
        // A chain without a beacon still registers its channels (the channel set is the same
        // on every node); keep both ends open and drop whatever arrives, rather than leave
        // the network a closed receiver.
        for (name, (sender, mut receiver)) in [
            ("beacon_drain", beacon_channel),
            ("reshare_drain", reshare_channel),
        ] {
            context.child(name).spawn(move |_| async move {
                let _sender = sender;
                while receiver.recv().await.is_ok() {}
            });
        }
    }
    let (application, tasks) = Application::new(
        context.child("application"),
        chain.clone(),
        cfg.coinbase,
        cfg.production.clone(),
        cfg.dev,
        cfg.tamper,
        beacon.clone(),
    );
    application.start(tasks, blocks, sync, metrics.clone());
    let (gossip, gossip_outbound) = Gossip::new();
    gossip.set_peers(
        genesis
            .validators
            .iter()
            .map(|v| v.public_key.clone())
            .filter(|k| *k != me)
            .collect(),
    );
    gossip.start(
        context.child("gossip"),
        gossip_outbound,
        chain.clone(),
        cfg.production.clone(),
        metrics.clone(),
        txs,
    );
    // Whatever set the network is told to track, gossip follows: its voters lead next.
    let track: crate::epochs::Track = {
        let (gossip, me, mut track) = (gossip.clone(), me.clone(), track);
        Box::new(move |epoch, peers: TrackedPeers<ed25519::PublicKey>| {
            gossip.set_peers(
                peers
                    .primary
                    .iter()
                    .filter(|k| **k != me)
                    .cloned()
                    .collect(),
            );
            track(epoch, peers)
        })
    };
    // The consensus channels carry one subchannel per epoch (`crate::epochs`).
    let mux = |name: &'static str, (sender, receiver): (S, R)| {
        let (muxer, handle) = Muxer::new(context.child(name), sender, receiver);
        muxer.start();
        handle
    };
    let channels = crate::epochs::Channels {
        votes: mux("votes", votes),
        certificates: mux("certificates", certificates),
        resolver: mux("resolver", resolver),
    };
    let consensus = crate::epochs::start(
        context,
        chain,
        application.clone(),
        channels,
        crate::epochs::Settings {
            key: cfg.key.clone(),
            namespace,
            leader_timeout: cfg.production.leader_timeout(),
            partition_prefix: cfg.partition_prefix,
            dev: cfg.dev,
            blocker,
            track,
            peer_bound: cfg.peer_bound,
            full_node: cfg.full_node,
            followers: cfg.followers,
        },
    )
    .await?;
    Ok(Validator {
        application,
        gossip,
        metrics,
        beacon,
        consensus,
    })
}

/// The beacon's sharing at start: the chain's current one (exec's `reshare`, committed
/// state), which is the genesis dealing until a reshare round succeeds (on a chain that
/// generates its group: none until the generation succeeds), with this node's share if the
/// share it was given belongs to that sharing's round (a share of an older sharing signs
/// nothing the others can recover with, so it is not used).
async fn beacon_group<E: Runtime>(
    chain: &Arc<Mutex<Chain<E>>>,
    genesis: &Genesis,
    cfg: &ValidatorConfig,
) -> Result<Option<crate::beacon::Group>, String> {
    let reader = chain.lock().await.readers().borrow().clone();
    let current = match &reader {
        Some(r) => cowboy_exec::reshare::committed_output(&r.state)
            .await
            .map_err(|e| format!("cannot read the beacon's current sharing: {e}"))?,
        None => None,
    };
    let group = match (current, &genesis.beacon) {
        (Some((round, output)), dealt) if round > 0 || dealt.is_none() => {
            let share = cfg
                .beacon_share
                .clone()
                .filter(|_| cfg.share_round == round);
            if share.is_none() && output.players().position(&cfg.key.public_key()).is_some() {
                tracing::error!(
                    round,
                    held = cfg.share_round,
                    "this validator holds no share of the beacon's current sharing"
                );
            }
            Some(crate::beacon::Group {
                round,
                sharing: output.public().clone(),
                members: output.players().iter().cloned().collect(),
                share,
            })
        }
        (_, None) => None,
        (_, Some(sharing)) => {
            let mut members: Vec<_> = genesis
                .validators
                .iter()
                .map(|v| v.public_key.clone())
                .collect();
            members.sort();
            Some(crate::beacon::Group {
                round: 0,
                sharing: sharing.clone(),
                members,
                share: cfg.beacon_share.clone().filter(|_| cfg.share_round == 0),
            })
        }
    };
    Ok(group)
}

/// The lock a node holds on its data directory while it runs (released when dropped).
#[derive(Debug)]
pub struct DataDirLock {
    _file: std::fs::File,
}

/// The file locked, in the data directory.
pub const LOCK_FILE: &str = "LOCK";

/// Take the exclusive lock on `dir` (created if absent), or say which node holds it: two
/// nodes on one data directory would corrupt each other's stores.
pub fn lock_data_dir(dir: &std::path::Path) -> Result<DataDirLock, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let path = dir.join(LOCK_FILE);
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(|e| format!("cannot open {}: {e}", path.display()))?;
    match file.try_lock() {
        Ok(()) => Ok(DataDirLock { _file: file }),
        Err(std::fs::TryLockError::WouldBlock) => Err(format!(
            "{} is in use by another cowboyd (it holds {}); stop that node or give another --data-dir",
            dir.display(),
            path.display()
        )),
        Err(std::fs::TryLockError::Error(e)) => {
            Err(format!("cannot lock {}: {e}", path.display()))
        }
    }
}

/// Resolves on SIGINT or SIGTERM.
pub async fn shutdown_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        let Ok(mut term) = signal(SignalKind::terminate()) else {
            let _ = tokio::signal::ctrl_c().await;
            return;
        };
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            _ = term.recv() => {}
        }
    }
    #[cfg(not(unix))]
    let _ = tokio::signal::ctrl_c().await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bootstrappers_skip_self_and_prefer_the_operators_address() {
        let genesis_addr: SocketAddr = "127.0.0.1:30333".parse().unwrap();
        let moved: SocketAddr = "127.0.0.1:40000".parse().unwrap();
        let genesis = Genesis::dev(genesis_addr);
        let validator = crate::genesis::dev_validator_key().public_key();
        let other = ed25519::PrivateKey::from_seed(7).public_key();

        // The only genesis validator does not dial itself.
        assert!(bootstrappers(&genesis, &validator, &[]).is_empty());
        // Another node dials it at its genesis address...
        assert_eq!(
            bootstrappers(&genesis, &other, &[]),
            vec![(validator.clone(), Ingress::Socket(genesis_addr))]
        );
        // ...unless the operator names a newer one, which wins, once.
        assert_eq!(
            bootstrappers(&genesis, &other, &[(validator.clone(), moved)]),
            vec![(validator, Ingress::Socket(moved))]
        );
    }
}
