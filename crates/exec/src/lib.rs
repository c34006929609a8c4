//! The Cowboy state transition (`cowboy-exec`): executing blocks of transactions into state.
//!
//! What it is: the rules that turn a block into a new state (whitepaper "The State Transition
//! Function", §2–§4, §17). What it is not: storage (`cowboy-state`), the VM (`cowboy-pvm`),
//! consensus or networking.
//!
//! Reading order: [`apply`] (validity, the per-transaction steps, settlement) →
//! [`actors`] (deploy, calls, messages, the PVM host) → [`fees`] (the dual EIP-1559
//! arithmetic) → [`intrinsic`] (base costs, meters) → [`state`] (the synchronous view of the
//! block's write batch) → [`mailbox`] (the dedup set) → [`randomness`] → [`block`] (whole
//! blocks, genesis).

pub mod actors;
pub mod apply;
pub mod block;
pub mod fees;
pub mod intrinsic;
pub mod mailbox;
pub mod randomness;
pub mod state;

pub use apply::{
    check_stateless, simulate, BlockEnv, BlockExecutor, CheckedTx, Simulation, TxInvalid,
};
pub use state::{BlockState, StateFailure};
