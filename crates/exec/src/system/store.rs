//! The storage interface system actors work through: [`Store`], metered when a handler runs
//! ([`Call`]) and raw when protocol code drives an actor ([`Raw`]), with typed CBOR reads.

use cowboy_types::cbor::{self, Value};
use cowboy_types::genesis::GenesisParams;
use cowboy_types::{Address, Event};

use crate::state::StateFailure;
use crate::system::{move_out, Call, CallError, SystemState};

/// Storage, value and events of a system actor, as one interface for its handlers (metered
/// through [`Call`]) and for protocol code that drives it unmetered ([`Raw`]: another system
/// actor's call, which meters it, or a block hook).
pub trait Store {
    /// Read an entry.
    fn get(&mut self, key: &[u8]) -> Result<Option<Vec<u8>>, CallError>;
    /// Write an entry.
    fn put(&mut self, key: &[u8], value: &[u8]) -> Result<(), CallError>;
    /// Delete an entry.
    fn del(&mut self, key: &[u8]) -> Result<(), CallError>;
    /// Pay `amount` of the actor's balance to `to`, or burn it (`None`).
    fn pay(&mut self, to: Option<&Address>, amount: u128) -> Result<(), CallError>;
    /// Emit an event.
    fn emit(&mut self, topic: &str, data: Value) -> Result<(), CallError>;
    /// The block height.
    fn height(&self) -> u64;
    /// The genesis parameters.
    fn params(&self) -> &GenesisParams;
}

impl Store for Call<'_> {
    fn get(&mut self, key: &[u8]) -> Result<Option<Vec<u8>>, CallError> {
        self.read(key)
    }
    fn put(&mut self, key: &[u8], value: &[u8]) -> Result<(), CallError> {
        self.write(key, value)
    }
    fn del(&mut self, key: &[u8]) -> Result<(), CallError> {
        self.delete(key)
    }
    fn pay(&mut self, to: Option<&Address>, amount: u128) -> Result<(), CallError> {
        match to {
            Some(to) => Call::pay(self, to, amount),
            None => {
                self.charge(self.params.storage_write_cycles)?;
                move_out(&mut *self.state, &self.me, None, amount)?;
                *self.burned = self.burned.saturating_add(amount);
                Ok(())
            }
        }
    }
    fn emit(&mut self, topic: &str, data: Value) -> Result<(), CallError> {
        Call::emit(self, topic, &data)
    }
    fn height(&self) -> u64 {
        self.env.height
    }
    fn params(&self) -> &GenesisParams {
        self.params
    }
}

/// Unmetered access to system actor `me` for protocol code that pays for it otherwise
/// (another system actor's call: the dispatcher's penalties, the verifier's slashing) or is
/// bounded by what the block paid (a block hook); its events are collected for the caller.
pub struct Raw<'s> {
    /// The system actor whose storage and balance this is.
    pub me: Address,
    /// The block's state.
    pub state: &'s mut dyn SystemState,
    /// Genesis parameters.
    pub params: &'s GenesisParams,
    /// The block height.
    pub height: u64,
    /// Events raised, in order.
    pub events: Vec<Event>,
}

impl Store for Raw<'_> {
    fn get(&mut self, key: &[u8]) -> Result<Option<Vec<u8>>, CallError> {
        Ok(self.state.storage(&self.me, key)?)
    }
    fn put(&mut self, key: &[u8], value: &[u8]) -> Result<(), CallError> {
        Ok(self.state.set_storage(&self.me, key, value)?)
    }
    fn del(&mut self, key: &[u8]) -> Result<(), CallError> {
        Ok(self.state.delete_storage(&self.me, key)?)
    }
    fn pay(&mut self, to: Option<&Address>, amount: u128) -> Result<(), CallError> {
        Ok(move_out(&mut *self.state, &self.me, to, amount)?)
    }
    fn emit(&mut self, topic: &str, data: Value) -> Result<(), CallError> {
        self.events.push(Event {
            emitter: self.me,
            topic: topic.to_string(),
            data: cbor::encode(&data),
        });
        Ok(())
    }
    fn height(&self) -> u64 {
        self.height
    }
    fn params(&self) -> &GenesisParams {
        self.params
    }
}

/// Read and decode a CBOR entry.
pub fn get_value<S: Store + ?Sized>(s: &mut S, key: &[u8]) -> Result<Option<Value>, CallError> {
    match s.get(key)? {
        None => Ok(None),
        Some(bytes) => cbor::decode(&bytes).map(Some).map_err(|_| {
            CallError::State(StateFailure::Invariant(
                "corrupt system-actor record: not canonical CBOR".into(),
            ))
        }),
    }
}

/// Encode and write a CBOR entry.
pub fn put_value<S: Store + ?Sized>(s: &mut S, key: &[u8], v: &Value) -> Result<(), CallError> {
    s.put(key, &cbor::encode(v))
}

/// A storage key: the canonical CBOR array of `parts` (the system actors' key layouts).
pub(crate) fn key(parts: Vec<Value>) -> Vec<u8> {
    cbor::encode(&Value::Array(parts))
}

/// A text key part.
pub(crate) fn text(s: &str) -> Value {
    Value::Text(s.into())
}

/// An address key part (its 20 bytes).
pub(crate) fn addr(a: &Address) -> Value {
    Value::Bytes(a.0.to_vec())
}
