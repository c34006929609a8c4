//! The scheduler system actor at `0x…0D` (ours; whitepaper "Native Timers"): the address
//! that owns the timer queue's storage, holds the timers' deposits, and is the `sender()` of
//! every handler a timer calls. Timers are set and cancelled through `cowboy_sdk` (host calls,
//! `crate::timers`), not through messages here: the host knows the calling actor for certain.
//!
//! Read handlers (no value; each charged `storage_read_cycles` per record read):
//! * `get(timer_id)` → the timer as a map (`id`, `owner`, `handler`, `data`, `due`, `every`,
//!   `gba`, `deposit`, `deferrals`), or `None` if it is not pending;
//! * `timers_of(owner)` → the owner's pending timers, as such maps;
//! * `stats()` → `{"pending", "basefee_cycles", "next_id"}`.

use cowboy_types::cbor::Value;
use cowboy_types::system::SCHEDULER;
use cowboy_types::Address;

use super::{Args, Call, CallError, SystemActor};
use crate::timers;

/// The scheduler system actor.
pub struct Scheduler;

fn uint(args: &Args<'_>, i: usize, name: &str) -> Result<u64, CallError> {
    match args.get(i, name)? {
        Value::Uint(n) => Ok(*n),
        _ => Err(CallError::fail(
            "TypeError",
            format!("argument {name:?} must be a non-negative int"),
        )),
    }
}

fn read_timer(call: &mut Call<'_>, id: u64) -> Result<Option<timers::Timer>, CallError> {
    call.charge(call.params.storage_read_cycles)?;
    Ok(timers::get(&*call.state, id)?)
}

impl SystemActor for Scheduler {
    fn address(&self) -> Address {
        SCHEDULER
    }

    fn name(&self) -> &'static str {
        "scheduler"
    }

    fn call(
        &self,
        call: &mut Call<'_>,
        handler: &str,
        args: &Args<'_>,
    ) -> Result<Value, CallError> {
        call.no_value()?;
        match handler {
            "get" => {
                args.expect_count(1)?;
                let id = uint(args, 0, "timer_id")?;
                Ok(read_timer(call, id)?.map_or(Value::Null, |t| t.to_public_value()))
            }
            "timers_of" => {
                args.expect_count(1)?;
                let owner = args.address(0, "owner")?;
                call.charge(call.params.storage_read_cycles)?;
                let ids = timers::owned(&*call.state, &owner)?;
                call.charge(
                    call.params
                        .storage_read_cycles
                        .saturating_mul(ids.len() as u64),
                )?;
                let mut out = Vec::with_capacity(ids.len());
                for id in ids {
                    if let Some(t) = read_timer(call, id)? {
                        out.push(t.to_public_value());
                    }
                }
                Ok(Value::Array(out))
            }
            "stats" => {
                args.expect_count(0)?;
                call.charge(call.params.storage_read_cycles)?;
                let m = timers::Meta::load(&*call.state, call.params)?;
                let text = |s: &str| Value::Text(s.into());
                Ok(Value::Map(vec![
                    (text("pending"), Value::Uint(m.pending)),
                    (text("basefee_cycles"), Value::Uint(m.basefee_cycles)),
                    (text("next_id"), Value::Uint(m.next_id)),
                ]))
            }
            other => Err(CallError::fail(
                "NoSuchHandler",
                format!("the scheduler has no handler {other:?} (it has: get, timers_of, stats)"),
            )),
        }
    }
}
