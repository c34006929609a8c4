//! Shared test fixtures: deterministic keys, signed transactions and a chain driver that
//! executes blocks with `cowboy-exec` over a real `cowboy-state` QMDB and commits them.

pub mod arbitrary_block;

use commonware_runtime::deterministic;
use cowboy_exec::block::{apply_genesis, execute_block, BlockOutcome};
use cowboy_exec::fees::Basefees;
use cowboy_exec::lanes::order_key;
use cowboy_exec::{BlockEnv, BlockError, BlockState};
use cowboy_state::verifier::Account;
use cowboy_state::{StateConfig, StateDb};
use cowboy_types::cbor::Value;
use cowboy_types::genesis::GenesisParams;
use cowboy_types::tx::Payload;
use cowboy_types::{keccak256, Address, Hash32, PrivateKey, Transaction};

/// Chain id of the test chain.
pub const CHAIN_ID: u64 = 7;
/// Each test account's genesis balance: 1,000 CBY.
pub const FUNDS: u128 = 1_000 * 10u128.pow(18);

/// Test key `i` (keccak of a label, so the set is fixed).
pub fn key(i: u32) -> PrivateKey {
    let seed = keccak256(format!("cowboy-exec-test-key-{i}").as_bytes());
    PrivateKey::from_bytes(&seed.0).expect("valid key")
}

/// Parameters with small basefees so numbers stay readable.
pub fn params() -> GenesisParams {
    GenesisParams {
        initial_cycle_basefee_wei: 10,
        initial_cell_basefee_wei: 5,
        ..GenesisParams::default()
    }
}

/// A signed transaction with generous limits and fee caps.
pub fn signed(
    key: &PrivateKey,
    nonce: u64,
    to: Option<Address>,
    value: u128,
    payload: Payload,
) -> Transaction {
    let mut tx = Transaction {
        chain_id: CHAIN_ID,
        nonce,
        to,
        value,
        cycles_limit: 2_000_000,
        cells_limit: 200_000,
        max_fee_per_cycle: 100,
        max_fee_per_cell: 100,
        tip_per_cycle: 2,
        tip_per_cell: 1,
        access_list: None,
        payload: payload.encode(),
        signature: None,
    };
    tx.sign(key).expect("sign");
    tx
}

/// A deploy payload.
pub fn deploy(source: &str, salt: u8, init_args: Value) -> Payload {
    Payload::Deploy {
        source: source.to_string(),
        salt: Hash32([salt; 32]),
        init_args,
    }
}

/// A call payload with positional arguments.
pub fn call(handler: &str, args: Vec<Value>) -> Payload {
    Payload::Call {
        handler: handler.to_string(),
        args: Value::Array(args),
    }
}

/// A chain over a real QMDB on the deterministic runtime's storage.
pub struct Chain {
    pub state: StateDb<deterministic::Context>,
    pub params: GenesisParams,
    pub height: u64,
    pub basefees: Basefees,
    pub proposer: Address,
    /// Cycles the last block used (the next block's `parent_cycles_used`).
    pub last_cycles: u64,
}

impl Chain {
    /// Genesis with accounts `key(0..n)` funded with [`FUNDS`].
    pub async fn new(context: deterministic::Context, n: u32) -> Chain {
        let mut state = StateDb::open(context, &StateConfig::new("exec"))
            .await
            .expect("open state");
        let allocations: Vec<(Address, u128)> = (0..n).map(|i| (key(i).address(), FUNDS)).collect();
        let mut batch = BlockState::new(state.batch());
        apply_genesis(&mut batch, &allocations).expect("genesis");
        let changes = batch.finish();
        state.commit(0, changes).await.expect("commit genesis");
        let params = params();
        Chain {
            state,
            basefees: Basefees {
                cycle: params.initial_cycle_basefee_wei,
                cell: params.initial_cell_basefee_wei,
            },
            params,
            height: 0,
            proposer: Address([0xEE; 20]),
            last_cycles: 0,
        }
    }

    /// The environment of the next block.
    pub fn env(&self) -> BlockEnv {
        BlockEnv {
            chain_id: CHAIN_ID,
            height: self.height + 1,
            timestamp_ms: 1_700_000_000_000 + (self.height + 1) * 1000,
            proposer: self.proposer,
            randomness: keccak256(&(self.height + 1).to_be_bytes()),
            basefees: self.basefees,
            parent_cycles_used: self.last_cycles,
        }
    }

    /// Execute `txs`, put in block order (by `keccak256(R ‖ sender)`, then nonce; every test
    /// transaction is in the user lane), as the next block and commit it; an invalid block is
    /// returned unapplied.
    pub async fn block(&mut self, txs: &[Transaction]) -> Result<BlockOutcome, BlockError> {
        let r = self.env().randomness;
        let mut ordered = txs.to_vec();
        ordered.sort_by_cached_key(|t| {
            let sender = t.sender().unwrap_or(Address([0; 20]));
            (order_key(&r, &sender), t.nonce)
        });
        self.block_as_is(&ordered).await
    }

    /// Execute `txs` in the order given as the next block and commit it; an invalid block is
    /// returned unapplied.
    pub async fn block_as_is(&mut self, txs: &[Transaction]) -> Result<BlockOutcome, BlockError> {
        let env = self.env();
        let mut batch = BlockState::new(self.state.batch());
        let outcome = execute_block(
            &mut batch,
            &self.params,
            env,
            &cowboy_exec::system::staking::CheckedVotes::none(),
            txs,
        )
        .expect("state")?;
        let changes = batch.finish();
        self.height += 1;
        self.state
            .commit(self.height, changes)
            .await
            .expect("commit");
        self.basefees = outcome.next_basefees;
        self.last_cycles = outcome.usage.cycles;
        Ok(outcome)
    }

    /// Apply `f` to the state as a height of its own (no transactions, no block hooks) and
    /// commit it: for driving crate-internal hooks a later slice's handlers will call. `f`
    /// gets the state, the parameters and that height.
    pub async fn poke(
        &mut self,
        f: impl FnOnce(&mut dyn cowboy_exec::system::SystemState, &GenesisParams, u64),
    ) {
        let params = self.params.clone();
        let mut batch = BlockState::new(self.state.batch());
        f(&mut batch, &params, self.height + 1);
        let changes = batch.finish();
        self.height += 1;
        self.state
            .commit(self.height, changes)
            .await
            .expect("commit");
    }

    /// The committed account at `a` (empty if absent).
    pub async fn account(&self, a: &Address) -> Account {
        self.state
            .account(&a.0)
            .await
            .expect("read")
            .unwrap_or_default()
    }

    /// The committed storage entry of actor `a` under the CBOR-encoded `key`.
    pub async fn storage(&self, a: &Address, key: &Value) -> Option<Value> {
        let k = cowboy_types::cbor::encode(key);
        let v = self.state.storage(&a.0, &k).await.expect("read")?;
        Some(cowboy_types::cbor::decode(&v).expect("stored values are canonical CBOR"))
    }

    /// The state root of the last commit.
    pub fn root(&self) -> [u8; 32] {
        self.state.root().expect("root")
    }
}
