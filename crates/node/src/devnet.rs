//! `cowboyd devnet`: a local network of `N` validators (and `M` full nodes) as real
//! `cowboyd` processes on loopback, launched and supervised by one command.
//!
//! Under the data directory it writes, once, `genesis.json` (chain 1337, the ten dev accounts
//! of `--dev` funded) and `validator-<i>.key` for each validator, then runs validator `i` with
//! data directory `validator-<i>/`, log `validator-<i>.log`, RPC on the given port plus `i` and
//! p2p on the p2p port plus `i`. The keys are derived like the `--dev` validator's
//! (`keccak256("cowboy-devnet-validator-" ‖ i)`), public and for local use only. Started again
//! on the same directory it reuses the genesis and keys, so every validator resumes its chain.
//!
//! **Full nodes** (`--full-nodes M`): full node `j` runs `cowboyd --full-node` with key
//! `full-node-<j>.key` (`keccak256("cowboy-devnet-full-node-" ‖ j)`), data directory
//! `full-node-<j>/`, log `full-node-<j>.log`, and the ports after the validators' (`N + j`
//! above the given ones); every validator is started with `--follower` of each full node's key,
//! so they let it connect. Full nodes are not in the genesis: their number may change between
//! starts.
//!
//! **The beacon group** is dealt once, when the genesis is first written: a fresh group from
//! the system's randomness with `t = 2f + 1` of `N` (commonware's quorum), its public
//! polynomial in the genesis and validator `i`'s share in `validator-<i>/beacon.share`
//! (mode 0600; `crate::beacon`). The dealer (this command) saw every share: a rehearsal's
//! trust model, like its public keys. A real network's group comes from a DKG (the README).
//!
//! **Children never outlive the supervisor.** Each child's stdin is a pipe whose only writer is
//! the supervisor, and each child runs with `--exit-on-stdin-close`: when the pipe closes it
//! shuts down as on SIGTERM. The supervisor closes the pipes on SIGINT/SIGTERM and waits for
//! its children; if it dies instead (even by SIGKILL), the kernel closes them. A child that
//! exits on its own (a crash, `kill -9`) is started again after a second.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use commonware_codec::DecodeExt;
use commonware_cryptography::{ed25519, Signer};
use cowboy_types::{keccak256, Address, GenesisParams, Hash32};

use crate::genesis::{
    beacon_group_key, deal_beacon, validator_bls_key, Genesis, Validator, DEV_CHAIN_ID, DEV_FUNDS,
};

/// Most validators one command starts.
pub const MAX_VALIDATORS: usize = 64;

/// Most full nodes one command starts.
pub const MAX_FULL_NODES: usize = 16;

/// Validator `i`'s key seed (the content of its key file).
pub fn validator_seed(i: usize) -> Hash32 {
    keccak256(format!("cowboy-devnet-validator-{i}").as_bytes())
}

/// Validator `i`'s consensus key.
pub fn validator_key(i: usize) -> ed25519::PrivateKey {
    ed25519::PrivateKey::decode(validator_seed(i).0.to_vec()).expect("32 bytes are an ed25519 seed")
}

/// Full node `j`'s key seed (the content of its key file).
pub fn full_node_seed(j: usize) -> Hash32 {
    keccak256(format!("cowboy-devnet-full-node-{j}").as_bytes())
}

/// Full node `j`'s p2p key.
pub fn full_node_key(j: usize) -> ed25519::PrivateKey {
    ed25519::PrivateKey::decode(full_node_seed(j).0.to_vec()).expect("32 bytes are an ed25519 seed")
}

/// The genesis of an `n`-validator devnet whose validator `i` listens on `p2p` + `i`, each
/// staking the minimum.
pub fn genesis(n: usize, p2p: SocketAddr) -> Genesis {
    staked_genesis(&vec![1; n], p2p)
}

/// The genesis of a devnet whose validator `i` stakes `stakes[i]` times the minimum stake and
/// listens on `p2p` + `i`.
pub fn staked_genesis(stakes: &[u64], p2p: SocketAddr) -> Genesis {
    let minimum = GenesisParams::default().minimum_validator_stake_wei;
    Genesis::dev_accounts_with(
        stakes
            .iter()
            .enumerate()
            .map(|(i, &times)| Validator {
                public_key: validator_key(i).public_key(),
                p2p: offset(p2p, i),
                coinbase: Address::from_hash(&keccak256(
                    format!("cowboy-devnet-coinbase-{i}").as_bytes(),
                )),
                bls_public_key: validator_bls_key(&validator_seed(i).0),
                stake: minimum.saturating_mul(u128::from(times)),
            })
            .collect(),
    )
}

/// `addr` with its port moved up by `i`.
pub fn offset(addr: SocketAddr, i: usize) -> SocketAddr {
    let mut a = addr;
    a.set_port(addr.port().saturating_add(i as u16));
    a
}

/// What `cowboyd devnet` was asked for.
pub struct DevnetConfig {
    /// Validators.
    pub validators: usize,
    /// Full nodes (`cowboyd --full-node`), after the validators.
    pub full_nodes: usize,
    /// Where the genesis, keys, data directories and logs live.
    pub dir: PathBuf,
    /// Validator 0's RPC address (validator `i`: port + `i`).
    pub rpc: SocketAddr,
    /// Validator 0's p2p address (validator `i`: port + `i`).
    pub p2p: SocketAddr,
    /// `--block-time` for every validator, if given.
    pub block_time_ms: Option<u64>,
    /// Each validator's stake in multiples of the minimum (`--stakes`; empty: the minimum
    /// each). Unequal stakes give unequal voting power (seats, node README).
    pub stakes: Vec<u64>,
}

/// The largest multiple of the minimum stake `--stakes` takes: 1,000 validators' worth, far
/// inside the dev supply, and enough to give one validator most of the seats.
pub const MAX_STAKE_MULTIPLE: u64 = 1_000;

/// The genesis file under `dir`.
fn genesis_path(dir: &Path) -> PathBuf {
    dir.join("genesis.json")
}

/// One process of the devnet.
#[derive(Clone, Copy)]
enum Member {
    /// Validator `i`.
    Validator(usize),
    /// Full node `j`.
    FullNode(usize),
}

impl Member {
    /// Its name in file names (`validator-<i>`, `full-node-<j>`).
    fn file_name(self) -> String {
        match self {
            Member::Validator(i) => format!("validator-{i}"),
            Member::FullNode(j) => format!("full-node-{j}"),
        }
    }

    /// Its name in what the supervisor prints.
    fn label(self) -> String {
        match self {
            Member::Validator(i) => format!("validator {i}"),
            Member::FullNode(j) => format!("full node {j}"),
        }
    }

    /// How far its ports are above the given ones: validators first, then full nodes.
    fn port_offset(self, cfg: &DevnetConfig) -> usize {
        match self {
            Member::Validator(i) => i,
            Member::FullNode(j) => cfg.validators + j,
        }
    }

    /// Its key seed.
    fn seed(self) -> Hash32 {
        match self {
            Member::Validator(i) => validator_seed(i),
            Member::FullNode(j) => full_node_seed(j),
        }
    }
}

/// Every process of the devnet, validators first.
fn members(cfg: &DevnetConfig) -> Vec<Member> {
    (0..cfg.validators)
        .map(Member::Validator)
        .chain((0..cfg.full_nodes).map(Member::FullNode))
        .collect()
}

fn key_path(dir: &Path, who: Member) -> PathBuf {
    dir.join(format!("{}.key", who.file_name()))
}

/// Write the genesis and keys under `cfg.dir`, or check those already there (a restart).
pub fn prepare(cfg: &DevnetConfig) -> Result<(), String> {
    if cfg.validators == 0 || cfg.validators > MAX_VALIDATORS {
        return Err(format!("--validators must be 1 to {MAX_VALIDATORS}"));
    }
    if cfg.full_nodes > MAX_FULL_NODES {
        return Err(format!("--full-nodes must be 0 to {MAX_FULL_NODES}"));
    }
    let last = u16::try_from(cfg.validators + cfg.full_nodes - 1).unwrap_or(u16::MAX);
    if cfg.rpc.port().checked_add(last).is_none() || cfg.p2p.port().checked_add(last).is_none() {
        return Err("the RPC or p2p ports of the last process would pass 65535".into());
    }
    std::fs::create_dir_all(&cfg.dir)
        .map_err(|e| format!("cannot create {}: {e}", cfg.dir.display()))?;
    let path = genesis_path(&cfg.dir);
    let stakes = if cfg.stakes.is_empty() {
        vec![1; cfg.validators]
    } else {
        cfg.stakes.clone()
    };
    if stakes.len() != cfg.validators || stakes.iter().any(|&t| t == 0 || t > MAX_STAKE_MULTIPLE) {
        return Err(format!(
            "--stakes must name {} multiples of the minimum stake, each 1 to {MAX_STAKE_MULTIPLE} \
             (one per validator)",
            cfg.validators
        ));
    }
    let mut wanted = staked_genesis(&stakes, cfg.p2p);
    if path.exists() {
        let text = std::fs::read_to_string(&path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let found = Genesis::from_json(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        // The group dealt when this genesis was first written: its shares are in the
        // validators' directories.
        wanted.beacon = found.beacon.clone();
        wanted.params.beacon_group_key = found.params.beacon_group_key;
        if found.identity() != wanted.identity() {
            return Err(format!(
                "{} holds another network (not {} devnet validators staking {stakes:?} times \
                 the minimum); give another --data-dir",
                path.display(),
                cfg.validators
            ));
        }
    }
    if wanted.beacon.is_none() {
        deal(cfg, &mut wanted)?;
    }
    // Written every time: the p2p ports may have moved (they are not part of the identity).
    write(&path, &wanted.to_json())?;
    for who in members(cfg) {
        write(&key_path(&cfg.dir, who), &hex::encode(who.seed().0))?;
    }
    Ok(())
}

/// Deal a fresh beacon group to `genesis`'s validators from the system's randomness, write
/// validator `i`'s share into `validator-<i>/` (0600) and put the public polynomial and group
/// key into `genesis`. The shares are written before the genesis: if this is interrupted, the
/// next start finds no genesis and deals again.
fn deal(cfg: &DevnetConfig, genesis: &mut Genesis) -> Result<(), String> {
    let members: Vec<ed25519::PublicKey> = genesis
        .validators
        .iter()
        .map(|v| v.public_key.clone())
        .collect();
    let (sharing, shares) = deal_beacon(rand::rng(), &members)?;
    for (key, share) in &shares {
        let i = members
            .iter()
            .position(|m| m == key)
            .ok_or("the beacon was dealt to a key that is not a validator's")?;
        let dir = cfg.dir.join(format!("validator-{i}"));
        std::fs::create_dir_all(&dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        crate::beacon::write_share(&dir, share)?;
    }
    genesis.params.beacon_group_key = Some(beacon_group_key(&sharing));
    genesis.beacon = Some(sharing);
    Ok(())
}

fn write(path: &Path, text: &str) -> Result<(), String> {
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// One supervised process.
struct Supervised {
    who: Member,
    child: Child,
}

/// Start `who` as a child of `cowboyd` (`exe`).
fn spawn(exe: &Path, cfg: &DevnetConfig, who: Member) -> Result<Supervised, String> {
    let name = who.file_name();
    let at = who.port_offset(cfg);
    let log_path = cfg.dir.join(format!("{name}.log"));
    let log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&log_path)
        .map_err(|e| format!("cannot open {}: {e}", log_path.display()))?;
    let out = log
        .try_clone()
        .map_err(|e| format!("cannot open {}: {e}", log_path.display()))?;
    let mut cmd = Command::new(exe);
    cmd.arg("--genesis")
        .arg(genesis_path(&cfg.dir))
        .arg("--validator-key")
        .arg(key_path(&cfg.dir, who))
        .arg("--data-dir")
        .arg(cfg.dir.join(&name))
        .arg("--rpc-addr")
        .arg(offset(cfg.rpc, at).to_string())
        .arg("--p2p-addr")
        .arg(offset(cfg.p2p, at).to_string())
        .arg("--exit-on-stdin-close")
        .stdin(Stdio::piped())
        .stdout(out)
        .stderr(log);
    if let Some(ms) = cfg.block_time_ms {
        cmd.arg("--block-time").arg(ms.to_string());
    }
    match who {
        Member::FullNode(_) => {
            cmd.arg("--full-node");
        }
        Member::Validator(_) => {
            for j in 0..cfg.full_nodes {
                let key = full_node_key(j).public_key();
                cmd.arg("--follower")
                    .arg(hex::encode(commonware_codec::Encode::encode(&key)));
            }
        }
    }
    let child = cmd
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", who.label()))?;
    println!("{}  pid {}", who.label(), child.id());
    Ok(Supervised { who, child })
}

/// Run the devnet until `shutdown` resolves: start every validator, print where they are,
/// restart any that exits, then close their pipes and wait for them.
pub async fn run(
    exe: &Path,
    cfg: &DevnetConfig,
    shutdown: impl std::future::Future<Output = ()>,
) -> Result<(), String> {
    prepare(cfg)?;
    println!();
    println!(
        "Cowboy devnet: {} validators, {} full nodes, chain id {DEV_CHAIN_ID}",
        cfg.validators, cfg.full_nodes
    );
    println!("  data dir   {}", cfg.dir.display());
    println!("  genesis    {}", genesis_path(&cfg.dir).display());
    for who in members(cfg) {
        let at = who.port_offset(cfg);
        println!(
            "  {}  RPC http://{}  p2p {}  log {}",
            who.label(),
            offset(cfg.rpc, at),
            offset(cfg.p2p, at),
            cfg.dir.join(format!("{}.log", who.file_name())).display()
        );
    }
    println!(
        "Dev accounts: those of `cowboyd --dev` ({} CBY each).",
        DEV_FUNDS / 10u128.pow(18)
    );
    println!();
    let mut children = Vec::new();
    for who in members(cfg) {
        children.push(spawn(exe, cfg, who)?);
    }
    tokio::pin!(shutdown);
    loop {
        tokio::select! {
            _ = &mut shutdown => break,
            _ = tokio::time::sleep(Duration::from_millis(200)) => {}
        }
        for s in &mut children {
            if let Ok(Some(status)) = s.child.try_wait() {
                println!("{} exited ({status}); restarting it", s.who.label());
                tokio::time::sleep(Duration::from_secs(1)).await;
                *s = spawn(exe, cfg, s.who)?;
            }
        }
    }
    println!("stopping the validators and full nodes");
    for s in &mut children {
        drop(s.child.stdin.take()); // the child shuts down on EOF
    }
    for s in &mut children {
        let _ = s.child.wait();
    }
    Ok(())
}

/// Resolves when stdin reaches its end (the supervisor closed the pipe or died).
pub async fn stdin_closed() {
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    std::thread::spawn(move || {
        let mut sink = [0u8; 256];
        let mut stdin = std::io::stdin();
        // Anything written is ignored; only the end matters.
        while std::io::Read::read(&mut stdin, &mut sink).is_ok_and(|n| n > 0) {}
        let _ = tx.send(());
    });
    let _ = rx.await;
}

#[cfg(test)]
mod tests {
    use super::*;
    use cowboy_exec::beacon::Variant;

    fn config(dir: &Path) -> DevnetConfig {
        DevnetConfig {
            validators: 4,
            full_nodes: 0,
            dir: dir.to_path_buf(),
            rpc: "127.0.0.1:18545".parse().unwrap(),
            p2p: "127.0.0.1:30333".parse().unwrap(),
            block_time_ms: None,
            stakes: Vec::new(),
        }
    }

    fn written(dir: &Path) -> Genesis {
        Genesis::from_json(&std::fs::read_to_string(genesis_path(dir)).unwrap()).unwrap()
    }

    #[test]
    fn a_devnet_deals_its_beacon_once_and_each_validator_holds_its_share() {
        let dir = tempfile::tempdir().unwrap();
        let cfg = config(dir.path());
        prepare(&cfg).unwrap();
        let first = written(dir.path());
        let sharing = first.beacon.clone().expect("the devnet has a beacon");
        assert_eq!(sharing.required(), 3, "t = 2f + 1 of 4");
        let mut indexes = Vec::new();
        for i in 0..4 {
            let vdir = dir.path().join(format!("validator-{i}"));
            let share = crate::beacon::read_share(&vdir).unwrap().expect("a share");
            // The share is the one the polynomial commits to at its index.
            assert_eq!(
                share.public::<Variant>(),
                sharing.partial_public(share.index).unwrap()
            );
            indexes.push(share.index);
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                let mode = std::fs::metadata(vdir.join(crate::beacon::SHARE_FILE))
                    .unwrap()
                    .permissions()
                    .mode();
                assert_eq!(mode & 0o777, 0o600);
            }
        }
        indexes.sort();
        indexes.dedup();
        assert_eq!(indexes.len(), 4, "one share per validator");
        // A restart keeps the group (the shares on disk are its).
        prepare(&cfg).unwrap();
        assert_eq!(written(dir.path()).beacon, Some(sharing));
        assert_eq!(written(dir.path()).identity(), first.identity());
    }

    #[test]
    fn stakes_are_multiples_of_the_minimum_one_per_validator() {
        let dir = tempfile::tempdir().unwrap();
        let minimum = GenesisParams::default().minimum_validator_stake_wei;
        let mut cfg = config(dir.path());
        for bad in [
            vec![3, 1, 1],
            vec![3, 1, 1, 0],
            vec![1, 1, 1, MAX_STAKE_MULTIPLE + 1],
        ] {
            cfg.stakes = bad;
            let e = prepare(&cfg).unwrap_err();
            assert!(e.contains("--stakes must name 4 multiples"), "{e}");
        }
        cfg.stakes = vec![3, 1, 1, 1];
        prepare(&cfg).unwrap();
        let stakes: Vec<u128> = written(dir.path())
            .validators
            .iter()
            .map(|v| v.stake)
            .collect();
        assert_eq!(stakes, vec![3 * minimum, minimum, minimum, minimum]);
        // Restarted with other stakes, it is another network.
        cfg.stakes = Vec::new();
        let e = prepare(&cfg).unwrap_err();
        assert!(e.contains("holds another network"), "{e}");
    }
}
