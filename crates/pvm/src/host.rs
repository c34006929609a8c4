//! The host interface (whitepaper §3 "host functions", §17.3 costs): how an embedding (the
//! node's actor runtime) provides storage, messages, events, timers, block info and randomness.
//!
//! Every host call is charged by the VM before the host does any work. Values crossing the
//! boundary are canonical CBOR (cowboy-types). The value conversion is not wired yet: this
//! session defines the trait only (see README "does not").

/// Errors a host reports back into Python (surfaced as exceptions).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HostError {
    /// The key/value or message was rejected (message for the Python exception).
    Rejected(String),
}

/// What the embedding provides to a running actor.
pub trait Host {
    /// Read a storage key (canonical CBOR value bytes), `None` if absent.
    fn storage_get(&mut self, key: &[u8]) -> Result<Option<Vec<u8>>, HostError>;
    /// Write a storage key.
    fn storage_set(&mut self, key: &[u8], value: &[u8]) -> Result<(), HostError>;
    /// Delete a storage key.
    fn storage_delete(&mut self, key: &[u8]) -> Result<(), HostError>;
    /// Send a message to another actor (CBOR payload).
    fn send_message(&mut self, to: &[u8], payload: &[u8]) -> Result<(), HostError>;
    /// Emit an event.
    fn emit_event(&mut self, topic: &str, payload: &[u8]) -> Result<(), HostError>;
    /// Schedule a timer at a block height.
    fn set_timer(&mut self, height: u64, payload: &[u8]) -> Result<(), HostError>;
    /// Current block height.
    fn block_height(&self) -> u64;
    /// Deterministic randomness for this invocation.
    fn random_bytes(&mut self, n: usize) -> Result<Vec<u8>, HostError>;
}
