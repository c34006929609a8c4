//! An in-process chain for `cowboy actor test`: the real block rule (`cowboy-exec`) over a real
//! QMDB (`cowboy-state`) in a temporary directory, on the commonware tokio runtime the node
//! uses. Nothing is mocked: a deploy or call is a signed transaction that
//! [`cowboy_exec::block::propose`] puts into a block of its own, exactly as a `cowboyd --dev`
//! proposer with instant sealing would, and the block's changes are committed to the QMDB
//! before the next step.
//!
//! The genesis is the devnet's (`crates/node/src/genesis.rs`): chain id 1337, the ten public
//! dev accounts with 1,000,000 CBY each, the default genesis parameters and the devnet's
//! coinbase, so an actor, its addresses and its fees behave as on `cowboyd --dev`. What the
//! spec leaves to the node is fixed here so that every run prints the same thing: block 0 is at
//! time 0 and each block follows its parent by one second. One difference: the parameters name
//! no beacon group, so every block's randomness is its parent's hash (CIP-2 phase L1), where
//! `cowboyd --dev` carries its dealt-to-itself beacon's signature from block 4 on; an actor sees
//! 32 unpredictable-looking bytes either way.
//!
//! Limits and fees are chosen as the CLI chooses them against a node (`cowboy_estimateFee`):
//! the transaction is simulated first, then signed with a quarter of headroom on the simulated
//! cycles and cells, a tip of 5% of the basefee and a fee cap of twice the basefee plus the
//! tip. Unlike `cowboy call`, a transaction whose simulation fails is still mined: a test wants
//! to see the failure's receipt and the fee it costs.

use cowboy_exec::block::{apply_genesis, check_all, propose};
use cowboy_exec::header::{basefees_after, env_after, genesis_header};
use cowboy_exec::{simulate, BlockEnv, BlockState, ChainRules, Parent};
use cowboy_state::{Context, StateConfig, StateDb};
use cowboy_types::block::BlockHeader;
use cowboy_types::genesis::GenesisParams;
use cowboy_types::tx::Payload;
use cowboy_types::{keccak256, Address, Hash32, PrivateKey, Receipt, TimerExecution, Transaction};

/// Chain id of the in-process chain: the devnet's.
pub const CHAIN_ID: u64 = 1337;
/// Number of funded dev accounts: the devnet's.
pub const DEV_ACCOUNTS: u32 = 10;
/// Each dev account's genesis balance: 1,000,000 CBY, the devnet's.
pub const DEV_FUNDS: u128 = 1_000_000 * 10u128.pow(18);
/// Milliseconds between blocks.
const BLOCK_TIME_MS: u64 = 1_000;

/// Where the tips go: the devnet's coinbase, an address nobody holds a key for.
fn coinbase() -> Address {
    Address::from_hash(&keccak256(b"cowboy-dev-coinbase"))
}

/// A transaction mined into a block of its own.
pub struct Mined {
    /// The block's height.
    pub height: u64,
    /// The transaction's hash.
    pub hash: Hash32,
    /// Its receipt.
    pub receipt: Receipt,
    /// The timers the block ran before it (`begin_block`).
    pub timers: Vec<TimerExecution>,
}

/// The chain: its state and the header of its last block.
pub struct DevChain<E: Context> {
    state: StateDb<E>,
    params: GenesisParams,
    parent: BlockHeader,
}

fn failure(what: &str, e: impl std::fmt::Display) -> String {
    format!("the in-process chain failed ({what}): {e}")
}

impl<E: Context> DevChain<E> {
    /// Open a fresh QMDB on `context`'s storage and commit the devnet's genesis to it.
    pub async fn genesis(context: E) -> Result<Self, String> {
        let params = GenesisParams::default();
        let mut state = StateDb::open(context, &StateConfig::new("actor-test"))
            .await
            .map_err(|e| failure("open state", format!("{e:?}")))?;
        let alloc: Vec<(Address, u128)> = (0..DEV_ACCOUNTS)
            .map(|i| (cowboy_types::dev_key(i).address(), DEV_FUNDS))
            .collect();
        let mut batch = BlockState::new(state.batch());
        apply_genesis(&mut batch, &alloc).map_err(|e| failure("genesis", e))?;
        state
            .commit(0, batch.finish())
            .await
            .map_err(|e| failure("commit genesis", format!("{e:?}")))?;
        let root = state
            .root()
            .map_err(|e| failure("root", format!("{e:?}")))?;
        let parent = genesis_header(&params, 0, Hash32(root));
        Ok(DevChain {
            state,
            params,
            parent,
        })
    }

    fn rules(&self) -> ChainRules<'_> {
        ChainRules {
            chain_id: CHAIN_ID,
            params: &self.params,
        }
    }

    /// The environment of the next block.
    fn next_env(&self) -> BlockEnv {
        let parent = Parent {
            header: &self.parent,
            hash: self.parent.hash(),
        };
        env_after(self.rules(), parent, self.next_timestamp(), coinbase())
    }

    fn next_timestamp(&self) -> u64 {
        self.parent.timestamp_ms.saturating_add(BLOCK_TIME_MS)
    }

    /// Height of the last block.
    pub fn height(&self) -> u64 {
        self.parent.height
    }

    /// The committed balance and nonce of `a`.
    pub async fn account(&self, a: &Address) -> Result<(u128, u64), String> {
        let acct = self
            .state
            .account(&a.0)
            .await
            .map_err(|e| failure("read account", format!("{e:?}")))?
            .unwrap_or_default();
        Ok((acct.balance, acct.nonce))
    }

    /// Run `payload` as `sender` on the latest state as the next block would, without signing,
    /// paying or committing anything (what `cowboy_call` and `cowboy_estimateFee` do on a
    /// node). `Err`: the transaction could not even be part of a block (e.g. the sender cannot
    /// pay `value`).
    pub fn simulate(
        &self,
        sender: Address,
        to: Option<Address>,
        value: u128,
        payload: &Payload,
    ) -> Result<Receipt, String> {
        let tx = Transaction {
            chain_id: CHAIN_ID,
            nonce: 0,
            to,
            value,
            cycles_limit: self.params.block_cycles_cap,
            cells_limit: self.params.block_cells_cap,
            max_fee_per_cycle: 0,
            max_fee_per_cell: 0,
            tip_per_cycle: 0,
            tip_per_cell: 0,
            access_list: None,
            payload: payload.encode(),
            signature: None,
        };
        let env = self.next_env();
        let mut bs = BlockState::new(self.state.batch());
        let sim =
            cowboy_pvm::actor::with_vm_stack(|| simulate(&mut bs, &self.params, &env, sender, &tx))
                .map_err(|e| failure("simulate", e))?;
        sim.map(|s| s.receipt)
            .map_err(|e| format!("the transaction cannot be sent: {e}"))
    }

    /// Sign `payload` with `key` and mine it as the only transaction of the next block.
    pub async fn send(
        &mut self,
        key: &PrivateKey,
        to: Option<Address>,
        value: u128,
        payload: &Payload,
    ) -> Result<Mined, String> {
        let sender = key.address();
        // Limits from a simulation, as `cowboy_estimateFee` gives them to `cowboy call`.
        let sim = self.simulate(sender, to, value, payload)?;
        let headroom = |x: u64| x.saturating_add(x / 4);
        let basefees = basefees_after(&self.parent, &self.params);
        let tip_cycle = (basefees.cycle / 20).max(1);
        let tip_cell = (basefees.cell / 20).max(1);
        let (_, nonce) = self.account(&sender).await?;
        let mut tx = Transaction {
            chain_id: CHAIN_ID,
            nonce,
            to,
            value,
            cycles_limit: headroom(sim.cycles_used).min(self.params.block_cycles_cap),
            cells_limit: headroom(sim.cells_used).min(self.params.block_cells_cap),
            max_fee_per_cycle: 2 * basefees.cycle + tip_cycle,
            max_fee_per_cell: 2 * basefees.cell + tip_cell,
            tip_per_cycle: tip_cycle,
            tip_per_cell: tip_cell,
            access_list: None,
            payload: payload.encode(),
            signature: None,
        };
        tx.sign(key).map_err(|e| format!("cannot sign: {e}"))?;
        let hash = tx.hash();
        let checked = check_all(std::slice::from_ref(&tx), &self.params, CHAIN_ID);
        let candidates = checked
            .into_iter()
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| format!("the transaction is invalid: {e}"))?;
        let mut proposal = self.propose(candidates).await?;
        if let Some((_, reason)) = proposal.skipped.first() {
            return Err(format!("the block left the transaction out: {reason}"));
        }
        let receipt = proposal
            .executed
            .receipts
            .pop()
            .ok_or_else(|| failure("propose", "no receipt for the transaction"))?;
        let timers = std::mem::take(&mut proposal.executed.timers);
        self.commit(proposal).await?;
        Ok(Mined {
            height: self.parent.height,
            hash,
            receipt,
            timers,
        })
    }

    /// Mine `n` empty blocks; returns the timers each ran, with its height.
    pub async fn mine(&mut self, n: u64) -> Result<Vec<(u64, TimerExecution)>, String> {
        let mut ran = Vec::new();
        for _ in 0..n {
            let mut proposal = self.propose(Vec::new()).await?;
            let timers = std::mem::take(&mut proposal.executed.timers);
            self.commit(proposal).await?;
            ran.extend(timers.into_iter().map(|t| (self.parent.height, t)));
        }
        Ok(ran)
    }

    async fn propose(
        &self,
        candidates: Vec<cowboy_exec::CheckedTx>,
    ) -> Result<cowboy_exec::block::Proposal, String> {
        let parent = Parent {
            header: &self.parent,
            hash: self.parent.hash(),
        };
        propose(
            &self.state,
            None,
            self.rules(),
            parent,
            self.next_timestamp(),
            coinbase(),
            candidates,
            None,
            // The default parameters name no beacon group: phase L1 randomness, and no
            // reshare rounds (so no dealer logs).
            None,
            Vec::new(),
            &cowboy_exec::block::no_cutoff,
        )
        .await
        .map_err(|e| failure("propose", e))
    }

    async fn commit(&mut self, proposal: cowboy_exec::block::Proposal) -> Result<(), String> {
        let header = proposal.block.header;
        self.state
            .commit_staged(&proposal.executed.state)
            .await
            .map_err(|e| failure("commit", format!("{e:?}")))?;
        self.parent = header;
        Ok(())
    }
}
