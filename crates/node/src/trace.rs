//! `cowboy_traceTransaction`: re-execute a finalized transaction with a tracer and return its
//! call tree (issue 19, item 6).
//!
//! A transaction of block `h` is re-executed on the state as of the end of block `h - 1` (a
//! historical view, `cowboy_state::StateDb::at`, so the parent must be within the node's history
//! window), through exec's own rule ([`cowboy_exec::block::trace_transaction`]): `begin_block`,
//! the block's transactions before it, then it with the tracer on. The re-executed receipt must
//! equal the stored one, or the trace is refused as inconsistent rather than shown wrong.
//!
//! **Bounded, off the production path.** It runs on the RPC worker pool like a simulation,
//! reading through the view (never the chain's lock), and the RPC lets one trace run at a time
//! (another gets `-32005`). Its work is at most the execution of its block's prefix, which the
//! block's cycle and cell caps bound; the call tree it returns is bounded by what the
//! transaction could do within its own limits.

use cowboy_exec::block::{check_block_votes, trace_transaction};
use cowboy_exec::header::check_header_against_parent;
use cowboy_exec::trace::{Frame, StorageOp, Trace};
use cowboy_exec::{BlockState, ChainRules, Parent};
use cowboy_state::Context;
use cowboy_types::{Hash32, Receipt};

use crate::chain::{CResult, ChainError};
use crate::reader::Reader;

/// A re-executed transaction with its call tree.
#[derive(Debug)]
pub struct Traced {
    /// The transaction.
    pub hash: Hash32,
    /// Its block's height.
    pub height: u64,
    /// Its index in the block.
    pub index: u32,
    /// Its receipt (equal to the stored one).
    pub receipt: Receipt,
    /// Its call tree.
    pub trace: Trace,
}

/// Re-execute finalized transaction `hash` with a tracer (see the module docs); `None` if no
/// finalized block of `reader` holds it. Blocking: call it on a worker thread inside the
/// runtime.
pub fn trace<E: Context>(reader: &Reader<E>, hash: &Hash32) -> CResult<Option<Traced>> {
    let rt = tokio::runtime::Handle::current();
    let Some((height, index, record)) = rt.block_on(reader.located_receipt(hash))? else {
        return Ok(None);
    };
    let parent = rt.block_on(reader.at(height.saturating_sub(1)))?;
    let block = rt.block_on(reader.block(height))?.ok_or_else(|| {
        ChainError::Inconsistent(format!("block {height} missing from the block store"))
    })?;
    let params = &reader.genesis.params;
    let rules = ChainRules {
        chain_id: reader.genesis.chain_id,
        params,
    };
    let at = Parent {
        header: &parent.head.header,
        hash: parent.head.hash,
    };
    let inconsistent =
        |what: String| ChainError::Inconsistent(format!("tracing block {height}: {what}"));
    let mut state = BlockState::new(parent.state.batch());
    let beacon = cowboy_exec::beacon::schedule(&mut state, params, height)?;
    let env = check_header_against_parent(rules, at, &block.header, beacon.as_ref())
        .map_err(|e| inconsistent(e.to_string()))?;
    let votes = check_block_votes(&mut state, rules, at, &block)?
        .map_err(|e| inconsistent(e.to_string()))?;
    let (receipt, trace) = trace_transaction(
        &mut state,
        params,
        env,
        &votes,
        &block.transactions,
        index as usize,
    )?
    .map_err(|e| inconsistent(e.to_string()))?;
    if receipt != record.receipt {
        return Err(inconsistent(format!(
            "transaction {index} re-executed to a different receipt"
        )));
    }
    Ok(Some(Traced {
        hash: *hash,
        height,
        index,
        receipt,
        trace,
    }))
}

/// The frames of `trace` as a tree: the children of `parent`, each with its own.
pub fn frames_json(
    trace: &Trace,
    parent: Option<usize>,
    json: &impl Fn(&Frame) -> serde_json::Value,
) -> Vec<serde_json::Value> {
    trace
        .frames
        .iter()
        .enumerate()
        .filter(|(_, f)| f.parent == parent)
        .map(|(i, f)| {
            let mut node = json(f);
            node["calls"] = serde_json::Value::Array(frames_json(trace, Some(i), json));
            node
        })
        .collect()
}

/// A storage access's operation name and value size (`None`: absent or deleted).
pub fn storage_op(op: StorageOp) -> (&'static str, Option<u64>) {
    match op {
        StorageOp::Read(size) => ("read", size),
        StorageOp::Write(size) => ("write", Some(size)),
        StorageOp::Delete => ("delete", None),
    }
}
