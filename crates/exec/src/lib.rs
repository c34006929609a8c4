//! The Cowboy state transition (`cowboy-exec`): executing blocks of transactions into state.
//!
//! What it is: the rules that turn a block into a new state (whitepaper "The State Transition
//! Function", §2–§4, §17). What it is not: storage (`cowboy-state`), the VM (`cowboy-pvm`),
//! consensus or networking.
//!
//! It owns the block rule (ARCHITECTURE D9): the node asks [`block::propose`] for a block and
//! [`block::verify`] for a verdict, and holds no rule of its own.
//!
//! Reading order: [`block`] (the lifecycle shared by building and verifying) → [`header`]
//! (environment, header checks, [`BlockError`]) → [`beacon`] (the threshold randomness rule) →
//! [`reshare`] (dealer logs and the beacon's current sharing) → [`lanes`] (budgets and order) → [`apply`]
//! (transaction validity, the per-transaction steps, settlement) → [`actors`] (deploy, calls,
//! messages, the PVM host) → [`system`] (native system actors: the runner registry, the
//! mailbox, the scheduler) → [`fees`] (the dual EIP-1559 arithmetic) → [`intrinsic`] (base
//! costs, meters) → [`state`] (the synchronous view of the block's write batch) →
//! [`randomness`].

pub mod actors;
pub mod apply;
pub mod beacon;
pub mod block;
pub mod fees;
pub mod header;
pub mod intrinsic;
pub mod lanes;
pub mod randomness;
pub mod reshare;
pub mod state;
pub mod system;
pub mod timers;
pub mod trace;

pub use apply::{check_stateless, simulate, BlockExecutor, CheckedTx, Simulation, TxInvalid};
pub use header::{BlockEnv, BlockError, ChainRules, Parent};
pub use state::{BlockState, StateFailure};
