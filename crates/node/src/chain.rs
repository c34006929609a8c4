//! The node's chain: finalized state and blocks on disk, blocks proposed or verified but not yet
//! finalized, and the mempool.
//!
//! **Execution model.** A block's header commits to the state root *after its own
//! transactions*. The proposer executes the block it builds; every validator re-executes a
//! proposal and compares roots before voting for it. Both execute on top of the last finalized
//! state, so a proposal whose parent is not yet finalized waits until it is (with one validator,
//! a block is finalized within the same round trip as its notarization, so this costs nothing;
//! with many it serialises proposals behind finality, which simplex's 2-hop finality keeps
//! short). The result of executing a pending block (its state changes) is kept with it, so
//! finalizing it only writes.
//!
//! **Durability.** Finalizing block `h` appends it (with receipts and the transaction index) to
//! the block store, durably, and then commits its state changes. A crash between the two leaves
//! the state one block behind the store; [`Chain::open`] re-executes that block. Pending blocks
//! are written to `pending/` before the node votes for them, so after a restart the consensus
//! engine's replayed votes still refer to blocks the node has.
//!
//! **Randomness.** The header's randomness `R_n` is the parent block's hash (CIP-2 §10 phase L1):
//! the ed25519 signing scheme wired in [`crate::consensus`] has no threshold seed to offer.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use cowboy_exec::block::{apply_genesis, build_block, execute_block};
use cowboy_exec::fees::{next_basefees, Basefees};
use cowboy_exec::{simulate, BlockEnv, BlockState, Simulation, TxInvalid};
use cowboy_state::verifier::Account;
use cowboy_state::{BlockStore, Changes, Context, StateConfig, StateDb};
use cowboy_types::block::{Block, BlockHeader};
use cowboy_types::{Address, Hash32, Receipt, Transaction};
use tokio::sync::{broadcast, watch};

use crate::genesis::Genesis;
use crate::mempool::{Mempool, Rejection, SenderState};

/// Something went wrong below the chain logic (storage, invariants). Fatal for the operation.
#[derive(Debug)]
pub struct ChainError(pub String);

impl std::fmt::Display for ChainError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ChainError {}

macro_rules! from_error {
    ($($t:ty),*) => {$(
        impl From<$t> for ChainError {
            fn from(e: $t) -> Self {
                ChainError(e.to_string())
            }
        }
    )*};
}
from_error!(
    cowboy_state::StateError,
    cowboy_exec::StateFailure,
    std::io::Error,
    cowboy_types::block::DecodeError
);

/// Result of the chain's operations.
pub type CResult<T> = Result<T, ChainError>;

/// The last finalized block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Head {
    /// Its header.
    pub header: BlockHeader,
    /// Its hash.
    pub hash: Hash32,
}

/// A finalized block with its receipts, as announced to subscribers.
#[derive(Debug)]
pub struct Finalized {
    /// The block.
    pub block: Block,
    /// Its hash.
    pub hash: Hash32,
    /// One receipt per transaction.
    pub receipts: Vec<Receipt>,
}

struct Pending {
    block: Block,
    /// The block's executed state changes and receipts, once executed on the current head.
    executed: Option<(Changes, Vec<Receipt>)>,
}

/// Verdict on a proposal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Valid: vote for it.
    Valid,
    /// Invalid, with the reason.
    Invalid(String),
}

/// The chain (see the module docs).
pub struct Chain<E: Context> {
    genesis: Genesis,
    state: StateDb<E>,
    blocks: BlockStore<E>,
    head: Head,
    pending: BTreeMap<Hash32, Pending>,
    pending_dir: PathBuf,
    /// Transactions waiting for a block.
    pub mempool: Mempool,
    head_tx: watch::Sender<Head>,
    finalized_tx: broadcast::Sender<Arc<Finalized>>,
    since_prune: u64,
}

/// Unverified blocks received from peers kept at most.
const MAX_RECEIVED: usize = 256;
/// Prune the state's history every this many blocks.
const PRUNE_EVERY: u64 = 256;

impl<E: Context> Chain<E> {
    /// Open the chain in `dir` (the runtime's storage directory is `dir/db`), initialising it from
    /// `genesis` on first use and recovering after a crash.
    pub async fn open(context: E, dir: &Path, genesis: Genesis, mempool: Mempool) -> CResult<Self> {
        std::fs::create_dir_all(dir)?;
        let genesis_file = dir.join("genesis.json");
        match std::fs::read_to_string(&genesis_file) {
            Ok(existing)
                if Genesis::from_json(&existing).map(|g| g.identity()).ok()
                    != Some(genesis.identity()) =>
            {
                return Err(ChainError(format!(
                    "{} holds a chain with a different genesis; start with --reset to wipe it, \
                     or use another --data-dir",
                    dir.display()
                )))
            }
            Ok(_) => {}
            Err(_) => write_atomic(&genesis_file, genesis.to_json().as_bytes())?,
        }
        let pending_dir = dir.join("pending");
        std::fs::create_dir_all(&pending_dir)?;

        let mut state = StateDb::open(context.child("state"), &StateConfig::new("state")).await?;
        let mut blocks = BlockStore::open(context.child("blocks"), "blocks").await?;

        if state.last_committed().is_none() {
            if blocks.last_height()?.is_some() {
                return Err(ChainError(
                    "block store has blocks but the state is empty".into(),
                ));
            }
            let mut bs = BlockState::new(state.batch());
            apply_genesis(&mut bs, &genesis.allocations)?;
            let changes = bs.finish();
            state.commit(0, changes).await?;
        }
        if blocks.last_height()?.is_none() {
            let root = state.root()?;
            let header = BlockHeader {
                parent_hash: Hash32([0; 32]),
                height: 0,
                timestamp_ms: genesis.timestamp_ms,
                proposer: Address([0; 20]),
                state_root: Hash32(root),
                tx_root: Block::tx_root(&[]),
                receipts_root: Receipt::receipts_root(&[]),
                cycle_basefee: genesis.params.initial_cycle_basefee_wei,
                cell_basefee: genesis.params.initial_cell_basefee_wei,
                cycles_used: 0,
                cells_used: 0,
                randomness: Hash32([0; 32]),
            };
            let block = Block {
                header,
                transactions: Vec::new(),
            };
            blocks
                .append(0, block.header.hash().0, &block.encode(), &[], &[])
                .await?;
        }

        let tip = blocks.last_height()?.unwrap_or(0);
        let head = read_head(&blocks, tip).await?;
        let committed = state.last_committed().map_or(0, |c| c.height);
        let (head_tx, _) = watch::channel(head.clone());
        let (finalized_tx, _) = broadcast::channel(1024);
        let mut chain = Chain {
            genesis,
            state,
            blocks,
            head,
            pending: BTreeMap::new(),
            pending_dir,
            mempool,
            head_tx,
            finalized_tx,
            since_prune: 0,
        };
        if committed + 1 == tip {
            // Crashed after storing block `tip` but before committing its state.
            tracing::info!(height = tip, "re-executing the last stored block");
            let block = Block::decode(&chain.blocks.block(tip).await?.unwrap_or_default())?;
            let parent = read_head(&chain.blocks, committed).await?;
            let (changes, _) = chain.execute(&parent, &block).await?.map_err(ChainError)?;
            let root = chain.state.commit(tip, changes).await?;
            if root != block.header.state_root.0 {
                return Err(ChainError(format!(
                    "re-executed block {tip} to a different state root"
                )));
            }
        } else if committed != tip {
            return Err(ChainError(format!(
                "state is at block {committed} but the block store at {tip}"
            )));
        }
        chain.load_pending()?;
        Ok(chain)
    }

    /// The genesis.
    pub fn genesis(&self) -> &Genesis {
        &self.genesis
    }

    /// The last finalized block.
    pub fn head(&self) -> &Head {
        &self.head
    }

    /// Watch the head (changes on every finalization).
    pub fn watch_head(&self) -> watch::Receiver<Head> {
        self.head_tx.subscribe()
    }

    /// Finalized blocks as they come.
    pub fn subscribe_finalized(&self) -> broadcast::Receiver<Arc<Finalized>> {
        self.finalized_tx.subscribe()
    }

    /// Basefees in force for the child of `parent`.
    fn basefees_after(&self, parent: &BlockHeader) -> Basefees {
        if parent.height == 0 {
            return Basefees {
                cycle: self.genesis.params.initial_cycle_basefee_wei,
                cell: self.genesis.params.initial_cell_basefee_wei,
            };
        }
        next_basefees(
            Basefees {
                cycle: parent.cycle_basefee,
                cell: parent.cell_basefee,
            },
            parent.cycles_used,
            parent.cells_used,
            &self.genesis.params,
        )
    }

    /// Basefees of the next block.
    pub fn next_basefees(&self) -> Basefees {
        self.basefees_after(&self.head.header)
    }

    /// The environment of the child of `parent`.
    fn env_after(&self, parent: &Head, timestamp_ms: u64, proposer: Address) -> BlockEnv {
        BlockEnv {
            chain_id: self.genesis.chain_id,
            height: parent.header.height + 1,
            timestamp_ms,
            proposer,
            randomness: parent.hash,
            basefees: self.basefees_after(&parent.header),
        }
    }

    /// Execute `block` on the committed state (which must be its parent's). `Ok(Err(_))`: the
    /// block is invalid.
    async fn execute(
        &self,
        parent: &Head,
        block: &Block,
    ) -> CResult<Result<(Changes, Vec<Receipt>), String>> {
        let h = &block.header;
        if h.parent_hash != parent.hash {
            return Ok(Err("parent hash is not the parent's".into()));
        }
        if h.height != parent.header.height + 1 {
            return Ok(Err(format!(
                "height {} does not follow {}",
                h.height, parent.header.height
            )));
        }
        if h.timestamp_ms <= parent.header.timestamp_ms {
            return Ok(Err("timestamp does not increase".into()));
        }
        let env = self.env_after(parent, h.timestamp_ms, h.proposer);
        if h.randomness != env.randomness {
            return Ok(Err("randomness is not the parent hash".into()));
        }
        if (h.cycle_basefee, h.cell_basefee) != (env.basefees.cycle, env.basefees.cell) {
            return Ok(Err("basefees do not follow the parent's".into()));
        }
        if h.tx_root != Block::tx_root(&block.transactions) {
            return Ok(Err("tx_root does not commit to the transactions".into()));
        }
        let mut bs = BlockState::new(self.state.batch());
        let outcome = match execute_block(&mut bs, &self.genesis.params, env, &block.transactions)?
        {
            Ok(o) => o,
            Err(invalid) => return Ok(Err(invalid.to_string())),
        };
        let changes = bs.finish();
        if h.receipts_root != Receipt::receipts_root(&outcome.receipts) {
            return Ok(Err("receipts_root does not match execution".into()));
        }
        if (h.cycles_used, h.cells_used) != (outcome.usage.cycles, outcome.usage.cells) {
            return Ok(Err("cycles_used/cells_used do not match execution".into()));
        }
        let root = self.state.root_after(h.height, &changes).await?;
        if h.state_root.0 != root {
            return Ok(Err("state_root does not match execution".into()));
        }
        Ok(Ok((changes, outcome.receipts)))
    }

    /// Next nonces at the committed state of every sender with queued transactions.
    async fn queued_nonces(&self) -> CResult<BTreeMap<Address, u64>> {
        let mut out = BTreeMap::new();
        for sender in self.mempool.senders() {
            out.insert(sender, self.account(&sender).await?.nonce);
        }
        Ok(out)
    }

    /// Build the child of the head: select from the mempool, execute, seal the header. The
    /// block is kept (and persisted) as pending; its hash is the consensus payload.
    pub async fn build(&mut self, timestamp_ms: u64, proposer: Address) -> CResult<Block> {
        let parent = self.head.clone();
        let timestamp_ms = timestamp_ms.max(parent.header.timestamp_ms + 1);
        let env = self.env_after(&parent, timestamp_ms, proposer);
        let nonces = self.queued_nonces().await?;
        let candidates =
            self.mempool
                .select(&self.genesis.params, env.basefees, &env.randomness, |a| {
                    nonces.get(a).copied().unwrap_or(0)
                });
        let mut bs = BlockState::new(self.state.batch());
        let built = build_block(&mut bs, &self.genesis.params, env, candidates)?;
        let changes = bs.finish();
        let height = env.height;
        let root = self.state.root_after(height, &changes).await?;
        let outcome = built.outcome;
        let header = BlockHeader {
            parent_hash: parent.hash,
            height,
            timestamp_ms,
            proposer,
            state_root: Hash32(root),
            tx_root: Block::tx_root(&built.included),
            receipts_root: Receipt::receipts_root(&outcome.receipts),
            cycle_basefee: env.basefees.cycle,
            cell_basefee: env.basefees.cell,
            cycles_used: outcome.usage.cycles,
            cells_used: outcome.usage.cells,
            randomness: env.randomness,
        };
        let block = Block {
            header,
            transactions: built.included,
        };
        self.keep_pending(block.clone(), Some((changes, outcome.receipts)))?;
        Ok(block)
    }

    /// A pending (built, verified or received) block by hash.
    pub fn pending_block(&self, hash: &Hash32) -> Option<&Block> {
        self.pending.get(hash).map(|p| &p.block)
    }

    /// Keep a block received from a peer until consensus asks about it. Returns its hash, or
    /// `None` if it cannot matter (at or below the finalized height).
    pub fn receive(&mut self, block: Block) -> Option<Hash32> {
        if block.header.height <= self.head.header.height {
            return None;
        }
        let hash = block.header.hash();
        if !self.pending.contains_key(&hash) {
            if self.pending.len() >= MAX_RECEIVED {
                // Drop the highest unexecuted block: the furthest from being useful.
                let victim = self
                    .pending
                    .iter()
                    .filter(|(_, p)| p.executed.is_none())
                    .max_by_key(|(h, p)| (p.block.header.height, **h))
                    .map(|(h, _)| *h);
                if let Some(v) = victim {
                    self.pending.remove(&v);
                }
            }
            self.pending.insert(
                hash,
                Pending {
                    block,
                    executed: None,
                },
            );
        }
        self.head_tx.send_modify(|_| {});
        Some(hash)
    }

    /// Verify pending block `hash`, whose parent must be the head. Persists it when valid.
    pub async fn verify(&mut self, hash: &Hash32) -> CResult<Verdict> {
        let Some(p) = self.pending.get(hash) else {
            return Err(ChainError("verify: block not available".into()));
        };
        if p.executed.is_some() {
            return Ok(Verdict::Valid);
        }
        let block = p.block.clone();
        let head = self.head.clone();
        match self.execute(&head, &block).await? {
            Ok(executed) => {
                self.keep_pending(block, Some(executed))?;
                Ok(Verdict::Valid)
            }
            Err(reason) => {
                self.pending.remove(hash);
                Ok(Verdict::Invalid(reason))
            }
        }
    }

    fn keep_pending(
        &mut self,
        block: Block,
        executed: Option<(Changes, Vec<Receipt>)>,
    ) -> CResult<()> {
        let hash = block.header.hash();
        let path = self
            .pending_dir
            .join(format!("{}.block", hex::encode(hash.0)));
        if !path.exists() {
            write_atomic(&path, &block.encode())?;
        }
        self.pending.insert(hash, Pending { block, executed });
        Ok(())
    }

    fn load_pending(&mut self) -> CResult<()> {
        for entry in std::fs::read_dir(&self.pending_dir)? {
            let path = entry?.path();
            let keep = std::fs::read(&path)
                .ok()
                .and_then(|b| Block::decode(&b).ok())
                .filter(|b| b.header.height > self.head.header.height);
            match keep {
                Some(block) => {
                    let hash = block.header.hash();
                    self.pending.insert(
                        hash,
                        Pending {
                            block,
                            executed: None,
                        },
                    );
                }
                None => {
                    let _ = std::fs::remove_file(&path);
                }
            }
        }
        Ok(())
    }

    /// Finalize pending block `hash` (a child of the head): store it, commit its state, announce
    /// it. Already finalized blocks are ignored (consensus replays finalizations after a
    /// restart).
    pub async fn finalize(&mut self, hash: &Hash32) -> CResult<Option<Arc<Finalized>>> {
        if self.blocks.block_by_hash(&hash.0).await?.is_some() {
            return Ok(None);
        }
        let Some(p) = self.pending.remove(hash) else {
            return Err(ChainError(format!(
                "finalized block {} is not available locally (block sync is not implemented)",
                hash.to_hex()
            )));
        };
        let head = self.head.clone();
        let (changes, receipts) = match p.executed {
            Some(e) => e,
            None => self.execute(&head, &p.block).await?.map_err(|reason| {
                ChainError(format!(
                    "finalized block {} is invalid: {reason}",
                    hash.to_hex()
                ))
            })?,
        };
        let block = p.block;
        let height = block.header.height;
        let tx_hashes: Vec<[u8; 32]> = block.transactions.iter().map(|t| t.hash().0).collect();
        let encoded: Vec<Vec<u8>> = receipts.iter().map(Receipt::encode).collect();
        self.blocks
            .append(height, hash.0, &block.encode(), &tx_hashes, &encoded)
            .await?;
        let root = self.state.commit(height, changes).await?;
        if root != block.header.state_root.0 {
            return Err(ChainError(format!(
                "block {height} committed to a different state root"
            )));
        }
        self.head = Head {
            header: block.header.clone(),
            hash: *hash,
        };
        // Siblings and stale blocks can never be finalized now; their children were executed
        // on a state that no longer is the head, so drop their results.
        self.pending.retain(|_, p| p.block.header.height > height);
        for p in self.pending.values_mut() {
            p.executed = None;
        }
        if let Ok(dir) = std::fs::read_dir(&self.pending_dir) {
            for entry in dir.flatten() {
                let stale = std::fs::read(entry.path())
                    .ok()
                    .and_then(|b| Block::decode(&b).ok())
                    .is_none_or(|b| b.header.height <= height);
                if stale {
                    let _ = std::fs::remove_file(entry.path());
                }
            }
        }
        let nonces = self.queued_nonces().await?;
        self.mempool.prune(|a| nonces.get(a).copied().unwrap_or(0));
        self.since_prune += 1;
        if self.since_prune >= PRUNE_EVERY {
            self.since_prune = 0;
            self.state.prune().await?;
        }
        let finalized = Arc::new(Finalized {
            block,
            hash: *hash,
            receipts,
        });
        let _ = self.finalized_tx.send(finalized.clone());
        let head = self.head.clone();
        self.head_tx.send_replace(head);
        Ok(Some(finalized))
    }

    /// Finalize `hash` and every unfinalized ancestor of it, oldest first. `Ok(Err(missing))`
    /// names the first block on the way back to the head that is not here (to be fetched from
    /// a peer); what could be finalized before it is not, since the path is walked first.
    pub async fn finalize_through(
        &mut self,
        hash: &Hash32,
    ) -> CResult<Result<Vec<Arc<Finalized>>, Hash32>> {
        if self.blocks.block_by_hash(&hash.0).await?.is_some() {
            return Ok(Ok(Vec::new()));
        }
        let mut path = Vec::new();
        let mut cur = *hash;
        while cur != self.head.hash {
            let Some(p) = self.pending.get(&cur) else {
                return Ok(Err(cur));
            };
            if p.block.header.height <= self.head.header.height {
                return Err(ChainError(format!(
                    "finalized block {} does not descend from the finalized head",
                    hash.to_hex()
                )));
            }
            path.push(cur);
            cur = p.block.header.parent_hash;
        }
        let mut done = Vec::new();
        for h in path.into_iter().rev() {
            if let Some(f) = self.finalize(&h).await? {
                done.push(f);
            }
        }
        Ok(Ok(done))
    }

    /// A block's canonical bytes, pending or finalized (to answer a peer's request).
    pub async fn block_bytes(&self, hash: &Hash32) -> CResult<Option<Vec<u8>>> {
        if let Some(p) = self.pending.get(hash) {
            return Ok(Some(p.block.encode()));
        }
        Ok(self.blocks.block_by_hash(&hash.0).await?.map(|(_, b)| b))
    }

    /// Submit a signed transaction to the mempool.
    pub async fn submit(&mut self, bytes: &[u8]) -> CResult<Result<Hash32, Rejection>> {
        // The sender is only known after decoding; look it up for the pool's checks.
        let sender = Transaction::decode(bytes)
            .ok()
            .and_then(|t| t.sender().ok());
        let account = match sender {
            Some(s) => self.account(&s).await?,
            None => Account::default(),
        };
        let basefees = self.next_basefees();
        let chain_id = self.genesis.chain_id;
        let params = self.genesis.params.clone();
        Ok(self
            .mempool
            .insert(bytes, &params, chain_id, basefees, |_| SenderState {
                nonce: account.nonce,
                balance: account.balance,
            }))
    }

    /// An account at the last finalized state (the default, empty account if absent).
    pub async fn account(&self, address: &Address) -> CResult<Account> {
        Ok(self.state.account(&address.0).await?.unwrap_or_default())
    }

    /// An actor's canonical source.
    pub async fn code(&self, code_hash: &[u8; 32]) -> CResult<Option<String>> {
        Ok(self
            .state
            .code(code_hash)
            .await?
            .map(|b| String::from_utf8_lossy(&b).into_owned()))
    }

    /// A storage entry with its proof against the head's state root.
    pub async fn prove_storage(
        &self,
        address: &Address,
        key: &[u8],
    ) -> CResult<(Option<Vec<u8>>, Vec<u8>)> {
        Ok(self.state.prove_storage(&address.0, key).await?)
    }

    /// A finalized block by height.
    pub async fn block(&self, height: u64) -> CResult<Option<Block>> {
        match self.blocks.block(height).await? {
            Some(b) => Ok(Some(Block::decode(&b)?)),
            None => Ok(None),
        }
    }

    /// A finalized block by hash.
    pub async fn block_by_hash(&self, hash: &Hash32) -> CResult<Option<Block>> {
        match self.blocks.block_by_hash(&hash.0).await? {
            Some((_, b)) => Ok(Some(Block::decode(&b)?)),
            None => Ok(None),
        }
    }

    /// Where a finalized transaction is: `(height, index)`.
    pub async fn tx_location(&self, hash: &Hash32) -> CResult<Option<(u64, u32)>> {
        Ok(self
            .blocks
            .tx_location(&hash.0)
            .await?
            .map(|l| (l.height, l.index)))
    }

    /// The receipts of a finalized block.
    pub async fn receipts(&self, height: u64) -> CResult<Vec<Receipt>> {
        let mut out = Vec::new();
        for r in self.blocks.receipts(height).await? {
            out.push(Receipt::decode(&r)?);
        }
        Ok(out)
    }

    /// Run `tx` as `sender` read-only on the head state, as the next block would.
    pub fn simulate(
        &self,
        sender: Address,
        tx: &Transaction,
    ) -> CResult<Result<Simulation, TxInvalid>> {
        let env = self.env_after(
            &self.head,
            self.head.header.timestamp_ms + 1,
            Address([0; 20]),
        );
        let mut bs = BlockState::new(self.state.batch());
        Ok(simulate(&mut bs, &self.genesis.params, &env, sender, tx)?)
    }
}

async fn read_head<E: Context>(blocks: &BlockStore<E>, height: u64) -> CResult<Head> {
    let bytes = blocks
        .block(height)
        .await?
        .ok_or_else(|| ChainError(format!("block {height} missing from the block store")))?;
    let block = Block::decode(&bytes)?;
    Ok(Head {
        hash: block.header.hash(),
        header: block.header,
    })
}

/// Write a file so that a crash leaves either the old or the new content.
fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let tmp = path.with_extension("tmp");
    let mut f = std::fs::File::create(&tmp)?;
    f.write_all(bytes)?;
    f.sync_all()?;
    std::fs::rename(&tmp, path)?;
    if let Some(dir) = path.parent() {
        std::fs::File::open(dir)?.sync_all()?;
    }
    Ok(())
}
