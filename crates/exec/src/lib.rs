//! The Cowboy state transition (`cowboy-exec`): executing blocks of transactions into state.
//!
//! What it is: the rules that turn a block into a new state — fees, and (as the crate grows)
//! actors, messages, timers, system actors and rent. What it is not: storage (`cowboy-state`),
//! the VM (`cowboy-pvm`), or networking. Start at [`fees`]: the dual-metered fee arithmetic of
//! whitepaper §2.3/§4.2/§17, which every transaction's settlement goes through.

pub mod fees;
