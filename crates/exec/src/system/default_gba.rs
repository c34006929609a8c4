//! The network default Gas Bidding Agent at `0x…0E` (ours; CIP-1): the agent of every timer
//! that names none. The scheduler computes its bid natively (`timers::deliver::default_bid`),
//! without a call; this actor exposes the same bid at the CIP-1 interface, so tools can ask it
//! and a Python agent can fall back to it with a message-free read.
//!
//! Handler: `get_gas_bid(context)` → `{"cycles_limit", "cells_limit", "max_fee_per_cycle",
//! "max_fee_per_cell", "tip_per_cycle", "tip_per_cell"}`: twice the context's basefees as
//! maxima, no tip, the genesis default limits. Reads only the context's `basefee_cycle` and
//! `basefee_cell`.

use cowboy_types::cbor::Value;
use cowboy_types::system::DEFAULT_GBA;
use cowboy_types::Address;

use super::{Args, Call, CallError, SystemActor};
use crate::fees::Basefees;
use crate::timers::deliver::default_bid;

/// The default agent.
pub struct DefaultGba;

fn field(ctx: &Value, name: &str) -> Result<u128, CallError> {
    let Value::Map(entries) = ctx else {
        return Err(CallError::fail("TypeError", "the context must be a map"));
    };
    entries
        .iter()
        .find(|(k, _)| matches!(k, Value::Text(t) if t == name))
        .and_then(|(_, v)| v.as_u128())
        .ok_or_else(|| CallError::fail("ValueError", format!("the context has no int {name:?}")))
}

impl SystemActor for DefaultGba {
    fn address(&self) -> Address {
        DEFAULT_GBA
    }

    fn name(&self) -> &'static str {
        "default gas bidding agent"
    }

    fn call(
        &self,
        call: &mut Call<'_>,
        handler: &str,
        args: &Args<'_>,
    ) -> Result<Value, CallError> {
        call.no_value()?;
        match handler {
            "get_gas_bid" => {
                args.expect_count(1)?;
                let ctx = args.get(0, "context")?;
                let basefees = Basefees {
                    cycle: field(ctx, "basefee_cycle")?,
                    cell: field(ctx, "basefee_cell")?,
                };
                let b = default_bid(call.params, basefees);
                let text = |s: &str| Value::Text(s.into());
                Ok(Value::Map(vec![
                    (text("cycles_limit"), Value::Uint(b.cycles_limit)),
                    (text("cells_limit"), Value::Uint(b.cells_limit)),
                    (
                        text("max_fee_per_cycle"),
                        Value::from_u128(b.max_fee_per_cycle),
                    ),
                    (
                        text("max_fee_per_cell"),
                        Value::from_u128(b.max_fee_per_cell),
                    ),
                    (text("tip_per_cycle"), Value::from_u128(b.tip_per_cycle)),
                    (text("tip_per_cell"), Value::from_u128(b.tip_per_cell)),
                ]))
            }
            other => Err(CallError::fail(
                "NoSuchHandler",
                format!("the default agent has no handler {other:?} (it has: get_gas_bid)"),
            )),
        }
    }
}
