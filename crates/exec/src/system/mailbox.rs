//! The mailbox system actor at `0x…0C` (ours; whitepaper §3.3): the message dedup set that
//! makes delivery exactly-once within `dedup_window_blocks`. It is the first system actor and
//! the worked example of one (see [`super`]).
//!
//! Every delivered message id is recorded, per target actor, in the mailbox's own storage
//! rather than in the actor's, so other actors' traffic can never eat into an actor's quota.
//! Delivery code records it ([`record_delivery`], metered as state writes by the caller); a
//! delivery whose `(target, id)` is already recorded is skipped.
//!
//! Records expire after `dedup_window_blocks`: each block's records are also listed under a
//! per-height index (`["dedup", h]` → count, `["dedup", h, i]` → `[actor, id]`), and the
//! mailbox's `begin_block` hook deletes the records of block `h − window` ([`prune`]). The
//! state cannot enumerate keys (they are hashed), which is why the index exists.
//!
//! Handlers: `delivered(actor, id) -> bool`, whether message `id` was delivered to `actor`
//! within the window (a storage read, at the `storage_read()` price). It takes no value.
//!
//! Ids are `keccak256(sender ‖ nonce ‖ msg_hash)` with the sending actor's nonce, which only
//! grows, so two distinct sends never share an id; the set is what makes redelivery of the
//! *same* message (a replayed or re-injected one) a no-op.

use cowboy_types::cbor::{self, Value};
use cowboy_types::genesis::GenesisParams;
use cowboy_types::system::MAILBOX;
use cowboy_types::{Address, Hash32};

use super::{Args, Call, CallError, Hook, SystemActor, SystemState};
use crate::state::{SResult, StateFailure};

/// The mailbox system actor.
pub struct Mailbox;

impl SystemActor for Mailbox {
    fn address(&self) -> Address {
        MAILBOX
    }

    fn name(&self) -> &'static str {
        "mailbox"
    }

    fn call(
        &self,
        call: &mut Call<'_>,
        handler: &str,
        args: &Args<'_>,
    ) -> Result<Value, CallError> {
        call.no_value()?;
        match handler {
            "delivered" => {
                args.expect_count(2)?;
                let actor = args.address(0, "actor")?;
                let id = args.hash(1, "id")?;
                Ok(Value::Bool(call.read(&seen_key(&actor, &id))?.is_some()))
            }
            other => Err(CallError::fail(
                "NoSuchHandler",
                format!("the mailbox has no handler {other:?} (it has: delivered)"),
            )),
        }
    }

    fn begin_block(&self, hook: &mut Hook<'_>) -> SResult<()> {
        prune(hook.state, hook.params, hook.env.height)
    }
}

fn seen_key(actor: &Address, id: &Hash32) -> Vec<u8> {
    cbor::encode(&Value::Array(vec![
        Value::Text("seen".into()),
        Value::Bytes(actor.0.to_vec()),
        Value::Bytes(id.0.to_vec()),
    ]))
}

fn count_key(height: u64) -> Vec<u8> {
    cbor::encode(&Value::Array(vec![
        Value::Text("dedup".into()),
        Value::Uint(height),
    ]))
}

fn entry_key(height: u64, i: u64) -> Vec<u8> {
    cbor::encode(&Value::Array(vec![
        Value::Text("dedup".into()),
        Value::Uint(height),
        Value::Uint(i),
    ]))
}

fn read_uint(state: &dyn SystemState, key: &[u8]) -> SResult<u64> {
    match state.storage(&MAILBOX, key)? {
        None => Ok(0),
        Some(bytes) => match cbor::decode(&bytes) {
            Ok(Value::Uint(n)) => Ok(n),
            _ => Err(StateFailure::Invariant("corrupt dedup counter".into())),
        },
    }
}

/// Record the delivery of message `id` to `actor` in block `height`. Returns the bytes written
/// (for cell metering), or `None` (and changes nothing) if it was already delivered within
/// the window.
pub fn record_delivery(
    state: &mut dyn SystemState,
    height: u64,
    actor: &Address,
    id: &Hash32,
) -> SResult<Option<u64>> {
    let seen = seen_key(actor, id);
    if state.storage(&MAILBOX, &seen)?.is_some() {
        return Ok(None);
    }
    if !state.exists(&MAILBOX)? {
        state.set_account(&MAILBOX, &Default::default())?;
    }
    let stamp = cbor::encode(&Value::Uint(height));
    state.set_storage(&MAILBOX, &seen, &stamp)?;
    let n = read_uint(state, &count_key(height))?;
    let entry = cbor::encode(&Value::Array(vec![
        Value::Bytes(actor.0.to_vec()),
        Value::Bytes(id.0.to_vec()),
    ]));
    let (ekey, ckey) = (entry_key(height, n), count_key(height));
    let count = cbor::encode(&Value::Uint(n + 1));
    state.set_storage(&MAILBOX, &ekey, &entry)?;
    state.set_storage(&MAILBOX, &ckey, &count)?;
    let written = seen.len() + stamp.len() + ekey.len() + entry.len() + ckey.len() + count.len();
    Ok(Some(written as u64))
}

/// At the start of block `height`, forget the deliveries of block `height − window`.
pub fn prune(state: &mut dyn SystemState, params: &GenesisParams, height: u64) -> SResult<()> {
    let Some(old) = height.checked_sub(params.dedup_window_blocks) else {
        return Ok(());
    };
    let n = read_uint(state, &count_key(old))?;
    for i in 0..n {
        let key = entry_key(old, i);
        let Some(bytes) = state.storage(&MAILBOX, &key)? else {
            continue;
        };
        let (actor, id) = match cbor::decode(&bytes) {
            Ok(Value::Array(v)) => match v.as_slice() {
                [Value::Bytes(a), Value::Bytes(i)] if a.len() == 20 && i.len() == 32 => {
                    let mut actor = [0u8; 20];
                    actor.copy_from_slice(a);
                    let mut id = [0u8; 32];
                    id.copy_from_slice(i);
                    (Address(actor), Hash32(id))
                }
                _ => return Err(StateFailure::Invariant("corrupt dedup entry".into())),
            },
            _ => return Err(StateFailure::Invariant("corrupt dedup entry".into())),
        };
        state.delete_storage(&MAILBOX, &seen_key(&actor, &id))?;
        state.delete_storage(&MAILBOX, &key)?;
    }
    if n > 0 {
        state.delete_storage(&MAILBOX, &count_key(old))?;
    }
    Ok(())
}
