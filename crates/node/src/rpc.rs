//! The JSON-RPC 2.0 server (HTTP and WebSocket on one port) implementing `RPC.md`.
//!
//! **Reads never take the chain's lock.** Every read and every simulation is served from the
//! [`Reader`] the chain publishes after each finalized block (a snapshot of the state and a
//! handle on the block store), so it sees one finalized state and neither waits for nor
//! delays block production. Simulations (`cowboy_call`, `cowboy_estimateFee`) and heavy reads
//! (blocks, receipts, transactions, events, proofs, timers) run on the bounded [`WorkerPool`],
//! off the async runtime that drives consensus. Only what touches the mempool
//! (`cowboy_sendRawTransaction`, a pending transaction, `pendingNonce`) takes the lock.
//!
//! Limits ([`crate::limits`]): 5 MiB per request, 64 subscriptions per connection, 10,000
//! blocks per event query, the worker pool's concurrency and per-client shares, connection and
//! WebSocket caps in all and per client address, and an idle timeout. Subscriptions follow the
//! chain's stream of finalized blocks; a subscriber that falls more than 1,024 blocks behind
//! is dropped with an error rather than buffered without bound, and a `receipt` subscription
//! ends after [`MAX_RECEIPT_WAIT_BLOCKS`] blocks without its transaction.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Instant;

use cowboy_exec::system::dispatcher::candidates_page_max;
use cowboy_exec::timers::Timer;
use cowboy_exec::{Simulation, TxInvalid};
use cowboy_types::block::{Block, Event, HookEvents, Receipt, TimerExecution};
use cowboy_types::cbor::{self, Value};
use cowboy_types::json::to_json;
use cowboy_types::system::{
    ENTITLEMENT_REGISTRY, JOB_DISPATCHER, RESULT_VERIFIER, RUNNER_REGISTRY, STAKING,
};
use cowboy_types::tx::{Authorization, Payload};
use cowboy_types::{dev_balance_authority, Address, Hash32, Transaction};
use jsonrpsee::server::{
    PendingSubscriptionSink, RpcModule, Server, ServerConfig, ServerHandle, SubscriptionMessage,
};
use jsonrpsee::types::{ErrorObjectOwned, Params};
use jsonrpsee::Extensions;
use serde_json::{json, Value as Json};
use tokio::sync::{broadcast, watch, Mutex};

use crate::chain::{Chain, ChainError, Finalized};
use crate::consensus::Ctx;
use crate::dev::{DevError, Devnet};
use crate::genesis::{parse_address, parse_amount};
use crate::limits::{Conn, Connections, IdleStream, Refused, RpcLimits, WorkerPool};
use crate::mempool::{max_tx_bytes, Rejection};
use crate::metrics::Metrics;
use crate::production::{Mining, Production};
use crate::reader::{is_stale, Reader};

/// Largest request body.
pub const MAX_REQUEST_BYTES: u32 = 5 << 20;
/// Most blocks one `cowboy_getEvents` scans.
pub const MAX_EVENT_BLOCKS: u64 = 10_000;
/// Finalized blocks a `receipt` subscription waits for its transaction.
pub const MAX_RECEIPT_WAIT_BLOCKS: u64 = 1_000;
/// Attempts of a simulation whose snapshot a finalized block overtook.
const STALE_RETRIES: usize = 3;

/// A published reader of the node's chain.
type SharedReader = Arc<Reader<Ctx>>;

/// What the methods share.
pub struct RpcState {
    /// The chain (for the mempool only: reads go through `readers`).
    pub chain: Arc<Mutex<Chain<Ctx>>>,
    /// The chain's readers, one per finalized block.
    pub readers: watch::Receiver<Option<SharedReader>>,
    /// Finalized blocks as they come (resubscribed per subscription).
    pub finalized: broadcast::Receiver<Arc<Finalized>>,
    /// Workers for simulations and heavy reads.
    pub pool: WorkerPool,
    /// Metrics.
    pub metrics: Metrics,
    /// When blocks are built (told of each admitted transaction).
    pub production: Arc<Production>,
    /// Forwards each admitted transaction to the other validators.
    pub gossip: crate::gossip::Gossip,
    /// The devnet controls, on a `--dev` node only.
    pub dev: Option<Arc<Devnet>>,
    /// One permit: transaction traces run one at a time (`crate::trace`).
    pub traces: Arc<tokio::sync::Semaphore>,
    /// The attributable faults this validator's consensus reported.
    pub evidence: crate::consensus::EvidenceLog,
}

impl RpcState {
    /// The devnet controls, or the error a node without `--dev` answers `method` with.
    fn dev(&self, method: &str) -> Result<&Devnet, ErrorObjectOwned> {
        self.dev.as_deref().ok_or_else(|| {
            error(
                -32601,
                format!("{method} is a devnet control: only a node started with --dev serves it"),
                None,
            )
        })
    }

    /// The newest reader.
    async fn reader(&self) -> Result<SharedReader, ErrorObjectOwned> {
        let mut rx = self.readers.clone();
        let r = rx
            .wait_for(Option::is_some)
            .await
            .map_err(|_| error(-32603, "the node is shutting down", None))?;
        r.clone().ok_or_else(|| error(-32603, "no reader", None))
    }

    /// `read` of the finalized block at height `tag` (the head's for `None`) on a worker;
    /// `null` above the finalized tip.
    async fn at_block(
        &self,
        client: Option<IpAddr>,
        tag: Option<u64>,
        read: impl Fn(&SharedReader, u64) -> RpcResult + Send + Sync + 'static,
    ) -> RpcResult {
        self.on_worker(client, move |r: SharedReader| {
            let tip = r.head.header.height;
            let height = tag.unwrap_or(tip);
            Some(if height > tip {
                Ok(Json::Null)
            } else {
                read(&r, height)
            })
        })
        .await?
    }

    /// Run `work` on a worker with the newest reader. `work` returns `None` when its snapshot
    /// was overtaken by a finalized block; it is then run again on the next reader.
    async fn on_worker<T: Send + 'static>(
        &self,
        client: Option<IpAddr>,
        work: impl Fn(SharedReader) -> Option<T> + Send + Sync + 'static,
    ) -> Result<T, ErrorObjectOwned> {
        let work = Arc::new(work);
        for _ in 0..STALE_RETRIES {
            let reader = self.reader().await?;
            let w = work.clone();
            let height = reader.head.header.height;
            match self.pool.run(client, move || w(reader)).await {
                Ok(Some(t)) => return Ok(t),
                Ok(None) => {
                    let mut rx = self.readers.clone();
                    let _ = rx
                        .wait_for(|r| r.as_ref().is_some_and(|r| r.head.header.height > height))
                        .await;
                }
                Err(refused) => return Err(refused_error(refused)),
            }
        }
        Err(error(
            -32005,
            "the chain moved on during the request three times; retry",
            None,
        ))
    }
}

/// The client address a request came from (`None` outside the server, e.g. in tests).
fn client_of(ext: &Extensions) -> Option<IpAddr> {
    ext.get::<Arc<Conn>>().map(|c| c.ip)
}

fn refused_error(r: Refused) -> ErrorObjectOwned {
    let reason = match r {
        Refused::Busy => "workersBusy",
        Refused::ClientBusy => "clientBusy",
        Refused::Failed => "workerFailed",
    };
    error(-32005, r.to_string(), Some(json!({"reason": reason})))
}

/// Run an async read on the current worker thread (inside [`WorkerPool::run`]).
fn block_on<F: std::future::Future>(f: F) -> F::Output {
    tokio::runtime::Handle::current().block_on(f)
}

type RpcResult = Result<Json, ErrorObjectOwned>;
/// Why a subscription ended (sent to the subscriber as its close reason).
type SubError = jsonrpsee::core::SubscriptionError;

fn error(code: i32, message: impl Into<String>, data: Option<Json>) -> ErrorObjectOwned {
    ErrorObjectOwned::owned(code, message.into(), data)
}

fn invalid(param: &str, reason: impl std::fmt::Display) -> ErrorObjectOwned {
    let reason = reason.to_string();
    error(
        -32602,
        format!("invalid {param}: {reason}"),
        Some(json!({"param": param, "reason": reason})),
    )
}

/// A failure of the node's own reads: a block, receipt or state before the node's state
/// snapshot is `-32001` with `data.reason` `beforeSnapshot` (`height`, `snapshotHeight`); a
/// state outside the history window is `-32001` with the window in the message and in `data`
/// (`oldest`, `latest`); a read at a block whose
/// history is over the fold cap is `-32005` (a limit; the message says to read a more recent
/// block); anything else is `-32603`.
fn internal(e: ChainError) -> ErrorObjectOwned {
    use cowboy_state::StateError;
    if let ChainError::BeforeSnapshot { height, base } = e {
        return error(
            -32001,
            e.to_string(),
            Some(json!({"reason": "beforeSnapshot", "height": height, "snapshotHeight": base})),
        );
    }
    let state = match &e {
        ChainError::State(s) | ChainError::Exec(cowboy_exec::StateFailure::State(s)) => Some(s),
        _ => None,
    };
    match state {
        Some(s @ StateError::HistoryUnavailable { oldest, latest, .. }) => error(
            -32001,
            s.to_string(),
            Some(json!({"oldest": oldest, "latest": latest})),
        ),
        Some(s @ StateError::HistoryTooLarge { cap, .. }) => error(
            -32005,
            s.to_string(),
            Some(json!({"reason": "historyTooLarge", "capBytes": cap})),
        ),
        _ => error(-32603, e.to_string(), None),
    }
}

/// A devnet control's error: bad arguments are `-32602` (with the parameter), an unknown
/// snapshot `-32001` (not found), too many snapshots `-32005` (limit), a storage failure
/// `-32603`.
fn dev_error(e: DevError) -> ErrorObjectOwned {
    match e {
        DevError::BlockCount { .. } | DevError::Clock(_) => invalid("params[0]", e),
        DevError::UnknownSnapshot(_) => error(-32001, e.to_string(), None),
        DevError::TooManySnapshots(_) => error(-32005, e.to_string(), None),
        DevError::Chain(e) => internal(e),
    }
}

/// A count (`u64`) parameter.
fn count_arg(v: &Json, name: &str) -> Result<u64, ErrorObjectOwned> {
    v.as_u64()
        .ok_or_else(|| invalid(name, "expected a non-negative integer"))
}

/// Positional parameters (absent = none).
fn args(p: &Params<'_>) -> Result<Vec<Json>, ErrorObjectOwned> {
    if p.as_str().is_none() {
        return Ok(Vec::new());
    }
    p.parse::<Vec<Json>>()
        .map_err(|_| invalid("params", "must be a JSON array"))
}

fn arg<'a>(a: &'a [Json], i: usize, name: &str) -> Result<&'a Json, ErrorObjectOwned> {
    a.get(i).ok_or_else(|| invalid(name, "missing"))
}

fn address_arg(v: &Json, name: &str) -> Result<Address, ErrorObjectOwned> {
    v.as_str()
        .and_then(parse_address)
        .ok_or_else(|| invalid(name, "expected a 0x-prefixed 20-byte hex address"))
}

fn hash_arg(v: &Json, name: &str) -> Result<Hash32, ErrorObjectOwned> {
    v.as_str()
        .and_then(|s| Hash32::from_hex(s.strip_prefix("0x").unwrap_or(s)))
        .ok_or_else(|| invalid(name, "expected a 0x-prefixed 32-byte hex hash"))
}

fn bytes_arg(v: &Json, name: &str) -> Result<Vec<u8>, ErrorObjectOwned> {
    v.as_str()
        .and_then(|s| s.strip_prefix("0x"))
        .and_then(|s| hex::decode(s).ok())
        .ok_or_else(|| invalid(name, "expected 0x-prefixed hex bytes"))
}

fn amount_arg(v: Option<&Json>, name: &str) -> Result<u128, ErrorObjectOwned> {
    match v {
        None | Some(Json::Null) => Ok(0),
        Some(v) => parse_amount(v).ok_or_else(|| invalid(name, "expected a decimal amount")),
    }
}

fn hex0x(b: &[u8]) -> String {
    format!("0x{}", hex::encode(b))
}

fn addr_json(a: &Address) -> Json {
    Json::String(hex0x(&a.0))
}

fn hash_json(h: &Hash32) -> Json {
    Json::String(hex0x(&h.0))
}

fn cbor_json(bytes: &[u8]) -> Json {
    match cbor::decode(bytes) {
        Ok(v) => to_json(&v),
        Err(_) => Json::Null,
    }
}

/// A transaction as JSON (`RPC.md`, "Objects").
pub fn tx_json(tx: &Transaction, location: Option<(u64, u32)>) -> Json {
    let (kind, handler) = match Payload::decode(tx.to.is_some(), &tx.payload) {
        Ok(Payload::Transfer) => ("transfer", None),
        Ok(Payload::Deploy { .. }) => ("deploy", None),
        Ok(Payload::Call { handler, .. }) => ("call", Some(handler)),
        Err(_) => ("invalid", None),
    };
    json!({
        "hash": hash_json(&tx.hash()),
        "from": tx.sender().map(|a| addr_json(&a)).unwrap_or(Json::Null),
        "chainId": tx.chain_id,
        "nonce": tx.nonce,
        "to": tx.to.as_ref().map(addr_json),
        "value": tx.value.to_string(),
        "cyclesLimit": tx.cycles_limit,
        "cellsLimit": tx.cells_limit,
        "maxFeePerCycle": tx.max_fee_per_cycle.to_string(),
        "maxFeePerCell": tx.max_fee_per_cell.to_string(),
        "tipPerCycle": tx.tip_per_cycle.to_string(),
        "tipPerCell": tx.tip_per_cell.to_string(),
        "kind": kind,
        "handler": handler,
        "payload": hex0x(&tx.payload),
        "blockHeight": location.map(|l| l.0),
        "index": location.map(|l| l.1),
    })
}

fn event_json(e: &Event, height: u64, tx: &Hash32, index: usize) -> Json {
    json!({
        "emitter": addr_json(&e.emitter),
        "topic": e.topic,
        "data": hex0x(&e.data),
        "dataValue": cbor_json(&e.data),
        "blockHeight": height,
        "transactionHash": hash_json(tx),
        "index": index,
    })
}

fn error_json(r: &Receipt) -> Json {
    match &r.error {
        None => Json::Null,
        Some(e) => json!({
            "class": e.class,
            "message": e.message,
            "line": if e.line == 0 { Json::Null } else { json!(e.line) },
        }),
    }
}

/// A receipt as JSON (`RPC.md`, "Objects").
pub fn receipt_json(block: &Block, block_hash: &Hash32, index: usize, r: &Receipt) -> Json {
    let tx = &block.transactions[index];
    let from = tx.sender().unwrap_or(Address([0; 20]));
    receipt_fields(
        &tx.hash(),
        block.header.height,
        block_hash,
        index,
        &from,
        tx.to.as_ref(),
        r,
    )
}

/// A receipt as JSON from its parts.
fn receipt_fields(
    hash: &Hash32,
    height: u64,
    block_hash: &Hash32,
    index: usize,
    from: &Address,
    to: Option<&Address>,
    r: &Receipt,
) -> Json {
    let contract = match (to, r.success, cbor::decode(&r.return_data)) {
        (None, true, Ok(Value::Bytes(b))) if b.len() == 20 => Json::String(hex0x(&b)),
        _ => Json::Null,
    };
    json!({
        "transactionHash": hash_json(hash),
        "blockHeight": height,
        "blockHash": hash_json(block_hash),
        "index": index,
        "from": addr_json(from),
        "to": to.map(addr_json),
        "success": r.success,
        "cyclesUsed": r.cycles_used,
        "cellsUsed": r.cells_used,
        "feePaid": r.fee_paid.to_string(),
        "returnData": hex0x(&r.return_data),
        "returnValue": if r.return_data.is_empty() { Json::Null } else { cbor_json(&r.return_data) },
        "events": r.events.iter().enumerate()
            .map(|(i, e)| event_json(e, height, hash, i)).collect::<Vec<_>>(),
        "error": error_json(r),
        "contractAddress": contract,
    })
}

/// A block as JSON (`RPC.md`, "Objects"), with the timer executions of its `begin_block`.
pub fn block_json(block: &Block, hash: &Hash32, full: bool, timers: &[TimerExecution]) -> Json {
    let h = &block.header;
    let txs: Vec<Json> = block
        .transactions
        .iter()
        .enumerate()
        .map(|(i, t)| {
            if full {
                tx_json(t, Some((h.height, i as u32)))
            } else {
                hash_json(&t.hash())
            }
        })
        .collect();
    json!({
        "hash": hash_json(hash),
        "height": h.height,
        "parentHash": hash_json(&h.parent_hash),
        "timestamp": h.timestamp_ms,
        "proposer": addr_json(&h.proposer),
        "stateRoot": hash_json(&h.state_root),
        "txRoot": hash_json(&h.tx_root),
        "receiptsRoot": hash_json(&h.receipts_root),
        "cycleBasefee": h.cycle_basefee.to_string(),
        "cellBasefee": h.cell_basefee.to_string(),
        "cyclesUsed": h.cycles_used,
        "cellsUsed": h.cells_used,
        "randomness": hash_json(&h.randomness),
        // The threshold signature over block `height − BEACON_LAG` the block carries (exec
        // `beacon`); its keccak256 is `randomness`. `null` on a chain without a beacon and in
        // the first blocks of one.
        "beacon": block.beacon.as_ref().map(|s| json!({
            "height": h.height.saturating_sub(cowboy_exec::beacon::BEACON_LAG),
            "signature": hex0x(s),
        })),
        "votesRoot": h.votes_root.as_ref().map(hash_json),
        "votes": block.votes.as_ref().map(|r| json!({
            "epoch": r.epoch,
            "view": r.view,
            "parentView": r.parent_view,
            "signers": r.votes.iter().map(|v| v.signer).collect::<Vec<_>>(),
        })),
        "transactions": txs,
        "timerExecutions": timers.iter().enumerate().map(|(i, t)| {
            if full {
                timer_execution_json(h.height, hash, i, t)
            } else {
                hash_json(&t.hash())
            }
        }).collect::<Vec<_>>(),
    })
}

/// A pending timer as JSON (`RPC.md`, "Objects").
fn timer_json(t: &Timer) -> Json {
    json!({
        "id": t.id,
        "owner": addr_json(&t.owner),
        "handler": t.handler,
        "data": hex0x(&t.data),
        "dataValue": cbor_json(&t.data),
        "due": t.due,
        "every": t.every,
        "gba": addr_json(&t.agent()),
        "deposit": t.deposit.to_string(),
        "deferrals": t.deferrals,
    })
}

/// An event a timer's handler emitted: an event object whose `transactionHash` is null and
/// which names the timer execution instead.
fn timer_event_json(e: &Event, height: u64, x: &TimerExecution, index: usize) -> Json {
    let mut v = event_json(e, height, &Hash32([0; 32]), index);
    v["transactionHash"] = Json::Null;
    v["timerId"] = json!(x.timer_id);
    v["timerExecutionHash"] = hash_json(&x.hash());
    v
}

/// An event of a block's system hooks as JSON: an event object with no transaction, and
/// `hook` naming the phase (`begin` or `end`) whose `index`-th event it is.
fn hook_event_json(e: &Event, height: u64, phase: &str, index: usize) -> Json {
    let mut v = event_json(e, height, &Hash32([0; 32]), index);
    v["transactionHash"] = Json::Null;
    v["hook"] = json!(phase);
    v
}

/// A timer execution with its receipt as JSON (`RPC.md`, "Objects"): the receipt fields of a
/// transaction's receipt, with the timer's instead of the transaction's.
fn timer_execution_json(
    height: u64,
    block_hash: &Hash32,
    index: usize,
    x: &TimerExecution,
) -> Json {
    let r = &x.receipt;
    json!({
        "hash": hash_json(&x.hash()),
        "timerId": x.timer_id,
        "owner": addr_json(&x.owner),
        "handler": x.handler,
        "due": x.due,
        "blockHeight": height,
        "blockHash": hash_json(block_hash),
        "index": index,
        "success": r.success,
        "cyclesUsed": r.cycles_used,
        "cellsUsed": r.cells_used,
        "feePaid": r.fee_paid.to_string(),
        "returnData": hex0x(&r.return_data),
        "returnValue": if r.return_data.is_empty() { Json::Null } else { cbor_json(&r.return_data) },
        "events": r.events.iter().enumerate()
            .map(|(i, e)| timer_event_json(e, height, x, i)).collect::<Vec<_>>(),
        "error": error_json(r),
    })
}

fn rejection_error(e: &Rejection) -> ErrorObjectOwned {
    let mut data = json!({"reason": e.kind(), "message": e.to_string()});
    match e {
        Rejection::TooLarge { size, limit } => {
            data["size"] = json!(size);
            data["limit"] = json!(limit);
        }
        Rejection::InsufficientBalance { needed, balance } => {
            data["needed"] = json!(needed.to_string());
            data["balance"] = json!(balance.to_string());
        }
        _ => {}
    }
    error(-32000, format!("transaction rejected: {e}"), Some(data))
}

/// An unsigned transaction for simulation, from a `cowboy_call`/`cowboy_estimateFee` object.
fn sim_tx(
    chain: &Reader<Ctx>,
    obj: &Json,
    call: bool,
) -> Result<(Address, Transaction), ErrorObjectOwned> {
    let o = obj
        .as_object()
        .ok_or_else(|| invalid("params[0]", "expected an object"))?;
    let from = match o.get("from") {
        None | Some(Json::Null) => Address([0; 20]),
        Some(v) => address_arg(v, "from")?,
    };
    let to = match o.get("to") {
        None | Some(Json::Null) => None,
        Some(v) => Some(address_arg(v, "to")?),
    };
    let payload = if call {
        let to_ok = to.ok_or_else(|| invalid("to", "missing"))?;
        let _ = to_ok;
        let handler = o
            .get("handler")
            .and_then(Json::as_str)
            .ok_or_else(|| invalid("handler", "expected a string"))?;
        let args = match o.get("args") {
            None | Some(Json::Null) => Value::Array(Vec::new()),
            Some(v) => cbor::decode(&bytes_arg(v, "args")?)
                .map_err(|e| invalid("args", format!("not canonical CBOR: {e}")))?,
        };
        Payload::Call {
            handler: handler.to_string(),
            args,
        }
        .encode()
    } else {
        match o.get("payload") {
            None | Some(Json::Null) => Vec::new(),
            Some(v) => bytes_arg(v, "payload")?,
        }
    };
    let params = &chain.genesis.params;
    let tx = Transaction {
        chain_id: chain.genesis.chain_id,
        nonce: 0,
        to,
        value: amount_arg(o.get("value"), "value")?,
        cycles_limit: params.block_cycles_cap,
        cells_limit: params.block_cells_cap,
        max_fee_per_cycle: 0,
        max_fee_per_cell: 0,
        tip_per_cycle: 0,
        tip_per_cell: 0,
        access_list: None,
        payload,
        signature: None,
    };
    Ok((from, tx))
}

fn simulation_error(e: TxInvalid) -> ErrorObjectOwned {
    // What the node would refuse as a transaction is refused as one (RPC.md, -32000).
    let rejection = match e {
        TxInvalid::TooLarge { size, max } => Rejection::TooLarge {
            size: usize::try_from(size).unwrap_or(usize::MAX),
            limit: usize::try_from(max).unwrap_or(usize::MAX),
        },
        TxInvalid::InsufficientBalance { needed, balance } => {
            Rejection::InsufficientBalance { needed, balance }
        }
        other => Rejection::Invalid(other),
    };
    rejection_error(&rejection)
}

/// Simulate `tx` from `from` on a worker, on the newest snapshot or, with `at`, on the state
/// as of the end of that block (as the block after it would run it).
async fn simulate_on_worker(
    st: &RpcState,
    ext: &Extensions,
    obj: Json,
    call: bool,
    at: Option<u64>,
) -> Result<(SharedReader, Simulation), ErrorObjectOwned> {
    // Size and balance are checked by the simulation itself (`cowboy_exec::simulate`), on the
    // worker's snapshot, so a read that meets a newer block is retried like the rest.
    let reader = st.reader().await?;
    let (from, tx) = sim_tx(&reader, &obj, call)?;
    st.on_worker(client_of(ext), move |r: SharedReader| {
        let r = match reader_at(r, at) {
            Ok((r, _)) => r,
            Err(e) => return Some(Err(e)),
        };
        match r.simulate(from, &tx) {
            Err(e) if is_stale(&e) => None,
            Err(e) => Some(Err(internal(e.into()))),
            Ok(Err(invalid)) => Some(Err(simulation_error(invalid))),
            Ok(Ok(sim)) => Some(Ok((r, sim))),
        }
    })
    .await?
}

/// A read of a system actor's state through its read handler (the runner registry, the job
/// dispatcher and the result verifier of CIP-2 keep their records behind them): `handler(args)`
/// simulated on the newest snapshot exactly as `cowboy_call` would, so it is metered and
/// budgeted the same. A refusal (a bad argument, a page over the limit) is -32602 with the
/// handler's error class and message.
async fn system_read(
    st: &RpcState,
    ext: &Extensions,
    to: Address,
    handler: &str,
    args: Vec<Value>,
) -> RpcResult {
    let obj = json!({
        "to": addr_json(&to),
        "handler": handler,
        "args": hex0x(&cbor::encode(&Value::Array(args))),
    });
    let (_, sim) = simulate_on_worker(st, ext, obj, true, None).await?;
    let rc = &sim.receipt;
    match &rc.error {
        Some(e) => Err(invalid("params", format!("{}: {}", e.class, e.message))),
        None => Ok(cbor_json(&rc.return_data)),
    }
}

/// An optional block parameter of a read: absent, null or `"latest"` is the newest finalized
/// block, a number that block's height.
fn block_param(a: &[Json], i: usize) -> Result<Option<u64>, ErrorObjectOwned> {
    match a.get(i) {
        None | Some(Json::Null) => Ok(None),
        Some(Json::String(s)) if s == "latest" => Ok(None),
        Some(v) => v.as_u64().map(Some).ok_or_else(|| {
            invalid(
                &format!("params[{i}]"),
                "expected a block height (a non-negative integer) or \"latest\"",
            )
        }),
    }
}

/// `r` as of the end of block `at` ([`Reader::at`]; `r` itself for the latest), and whether
/// that is an older block than `r`'s. A block outside the node's history window is `-32001`
/// with the window in the message and in `data` (`oldest`, `latest`). Blocking: call it on a
/// worker.
fn reader_at(r: SharedReader, at: Option<u64>) -> Result<(SharedReader, bool), ErrorObjectOwned> {
    match at {
        Some(h) if h != r.head.header.height => match block_on(r.at(h)) {
            Ok(old) => Ok((Arc::new(old), true)),
            Err(e) => Err(internal(e)),
        },
        _ => Ok((r, false)),
    }
}

/// A transaction's trace as JSON (`RPC.md`, `cowboy_traceTransaction`).
fn trace_json(t: &crate::trace::Traced) -> Json {
    let rc = &t.receipt;
    let frame = |f: &cowboy_exec::trace::Frame| {
        let (success, ret, err) = match &f.outcome {
            Some(Ok(ret)) => (true, cbor_json(ret), Json::Null),
            Some(Err(e)) => (
                false,
                Json::Null,
                json!({"class": e.class, "message": e.message, "line": e.line}),
            ),
            None => (false, Json::Null, Json::Null),
        };
        json!({
            "kind": f.kind.name(),
            "from": addr_json(&f.from),
            "to": addr_json(&f.to),
            "handler": f.handler,
            "value": f.value.to_string(),
            "depth": f.depth,
            "cycles": f.cycles,
            "cells": f.cells,
            "success": success,
            "returnValue": ret,
            "error": err,
            "events": f.events.iter().map(|e| json!({
                "emitter": addr_json(&e.emitter),
                "topic": e.topic,
                "data": hex0x(&e.data),
                "dataValue": cbor_json(&e.data),
            })).collect::<Vec<_>>(),
            "storage": f.storage.iter().map(|s| {
                let (op, size) = crate::trace::storage_op(s.op);
                json!({"op": op, "key": hex0x(&s.key), "size": size})
            }).collect::<Vec<_>>(),
            "lines": f.lines.iter().map(|(line, c)| json!({
                "line": if *line == 0 { Json::Null } else { json!(line) },
                "cycles": c.cycles,
                "cells": c.cells,
            })).collect::<Vec<_>>(),
            "otherLines": (f.other_lines.count > 0).then(|| json!({
                "count": f.other_lines.count,
                "cycles": f.other_lines.cost.cycles,
                "cells": f.other_lines.cost.cells,
            })),
        })
    };
    json!({
        "transactionHash": hash_json(&t.hash),
        "blockHeight": t.height,
        "index": t.index,
        "success": rc.success,
        "cyclesUsed": rc.cycles_used,
        "cellsUsed": rc.cells_used,
        "error": error_json(rc),
        "calls": crate::trace::frames_json(&t.trace, None, &frame),
    })
}

/// An optional page argument: absent or null is `default`.
fn page_arg(a: &[Json], i: usize, name: &str, default: u64) -> Result<u64, ErrorObjectOwned> {
    match a.get(i) {
        None | Some(Json::Null) => Ok(default),
        Some(v) => v
            .as_u64()
            .ok_or_else(|| invalid(name, "expected a non-negative integer")),
    }
}

/// Build the module of every method.
pub fn module(
    state: RpcState,
) -> Result<RpcModule<RpcState>, jsonrpsee::core::RegisterMethodError> {
    let mut m = RpcModule::new(state);

    macro_rules! method {
        ($name:literal, |$a:ident, $s:ident, $e:ident| $body:expr) => {
            m.register_async_method($name, |params, st, ext| async move {
                let started = Instant::now();
                st.metrics.rpc_requests.inc();
                let result: RpcResult = async {
                    let $a = args(&params)?;
                    let $s = &st;
                    let $e = &ext;
                    $body
                }
                .await;
                st.metrics
                    .rpc_latency
                    .observe(started.elapsed().as_secs_f64());
                result
            })?;
        };
    }

    method!("cowboy_chainId", |_a, s, _e| Ok(json!(
        s.reader().await?.genesis.chain_id
    )));
    method!("cowboy_blockNumber", |_a, s, _e| Ok(json!(
        s.reader().await?.head.header.height
    )));
    method!("cowboy_basefees", |_a, s, _e| {
        let b = s.reader().await?.basefees;
        Ok(json!({"cycleBasefee": b.cycle.to_string(), "cellBasefee": b.cell.to_string()}))
    });
    method!("cowboy_sendRawTransaction", |a, s, _e| {
        let raw = arg(&a, 0, "params[0]")?;
        // Refuse an oversized transaction before decoding its hex.
        let limit = max_tx_bytes(&s.reader().await?.genesis.params);
        let size = raw.as_str().map_or(0, |h| h.len().saturating_sub(2) / 2);
        if size > limit {
            return Err(rejection_error(&Rejection::TooLarge { size, limit }));
        }
        let bytes = bytes_arg(raw, "params[0]")?;
        submit(s, s.chain.lock().await, &bytes).await
    });
    method!("cowboy_getTransaction", |a, s, e| {
        let hash = hash_arg(arg(&a, 0, "params[0]")?, "params[0]")?;
        {
            let chain = s.chain.lock().await;
            if let Some((tx, _)) = chain.mempool.get(&hash) {
                return Ok(tx_json(tx, None));
            }
        }
        s.on_worker(client_of(e), move |r: SharedReader| {
            Some(block_on(async {
                let Some((height, index)) = r.tx_location(&hash).await.map_err(internal)? else {
                    return Ok(Json::Null);
                };
                let block = r.block(height).await.map_err(internal)?;
                Ok(block
                    .and_then(|b| {
                        b.transactions
                            .get(index as usize)
                            .map(|t| tx_json(t, Some((height, index))))
                    })
                    .unwrap_or(Json::Null))
            }))
        })
        .await?
    });
    method!("cowboy_getReceipt", |a, s, e| {
        let hash = hash_arg(arg(&a, 0, "params[0]")?, "params[0]")?;
        s.on_worker(client_of(e), move |r: SharedReader| {
            Some(block_on(receipt_of(&r, &hash)))
        })
        .await?
    });
    method!("cowboy_getTransactionProof", |a, s, e| {
        let hash = hash_arg(arg(&a, 0, "params[0]")?, "params[0]")?;
        s.on_worker(client_of(e), move |r: SharedReader| {
            Some(block_on(transaction_proof(&r, &hash)))
        })
        .await?
    });
    method!("cowboy_getBlockByNumber", |a, s, e| {
        let full = a.get(1).and_then(Json::as_bool).unwrap_or(false);
        let tag = arg(&a, 0, "params[0]")?.clone();
        let height = match &tag {
            Json::String(t) if t == "latest" => None,
            v => Some(
                v.as_u64()
                    .ok_or_else(|| invalid("params[0]", "expected a height or \"latest\""))?,
            ),
        };
        s.on_worker(client_of(e), move |r: SharedReader| {
            let height = height.unwrap_or(r.head.header.height);
            Some(block_on(async {
                Ok(match r.block(height).await.map_err(internal)? {
                    Some(b) => {
                        let timers = executions(&r, height).await?;
                        block_json(&b, &b.header.hash(), full, &timers)
                    }
                    None => Json::Null,
                })
            }))
        })
        .await?
    });
    method!("cowboy_getBlockByHash", |a, s, e| {
        let hash = hash_arg(arg(&a, 0, "params[0]")?, "params[0]")?;
        let full = a.get(1).and_then(Json::as_bool).unwrap_or(false);
        s.on_worker(client_of(e), move |r: SharedReader| {
            Some(block_on(async {
                Ok(match r.block_by_hash(&hash).await.map_err(internal)? {
                    Some(b) => {
                        let timers = executions(&r, b.header.height).await?;
                        block_json(&b, &hash, full, &timers)
                    }
                    None => Json::Null,
                })
            }))
        })
        .await?
    });
    method!("cowboy_getAccount", |a, s, e| {
        let address = address_arg(arg(&a, 0, "params[0]")?, "params[0]")?;
        let at = block_param(&a, 1)?;
        let (acct, height) = s
            .on_worker(client_of(e), move |r: SharedReader| {
                let r = match reader_at(r, at) {
                    Ok((r, _)) => r,
                    Err(e) => return Some(Err(e)),
                };
                match block_on(r.account(&address)) {
                    Err(cowboy_state::StateError::SnapshotStale { .. }) => None,
                    read => Some(
                        read.map(|acct| (acct, r.head.header.height))
                            .map_err(|e| internal(e.into())),
                    ),
                }
            })
            .await??;
        // Pending transactions are of the head: an older block has no pending nonce.
        let pending = if at.is_some() {
            None
        } else {
            // The pool is at the chain's head, which can be a block ahead of the reader that
            // served `acct`; counted from the reader's nonce, a transaction mined in between
            // would be neither in the state nor in the pool, and `pendingNonce` would point at
            // a nonce already used. So the count starts from the head's nonce, read under the
            // same lock (one account read).
            let chain = s.chain.lock().await;
            let nonce = chain.account(&address).await.map_err(internal)?.nonce;
            Some(chain.mempool.next_nonce(&address, nonce))
        };
        Ok(json!({
            "address": addr_json(&address),
            "balance": acct.balance.to_string(),
            "nonce": acct.nonce,
            "pendingNonce": pending,
            "codeHash": acct.code_hash.map(|h| hex0x(&h)),
            "isActor": acct.code_hash.is_some(),
            "height": height,
        }))
    });
    method!("cowboy_getActorSource", |a, s, e| {
        let address = address_arg(arg(&a, 0, "params[0]")?, "params[0]")?;
        let at = block_param(&a, 1)?;
        s.on_worker(client_of(e), move |r: SharedReader| {
            let r = match reader_at(r, at) {
                Ok((r, _)) => r,
                Err(e) => return Some(Err(e)),
            };
            let read: Result<Json, cowboy_state::StateError> = block_on(async {
                let acct = r.account(&address).await?;
                let Some(code_hash) = acct.code_hash else {
                    return Ok(Json::Null);
                };
                let source = r.code(&code_hash).await?;
                Ok(json!({"address": addr_json(&address), "codeHash": hex0x(&code_hash), "source": source}))
            });
            stale_or(read)
        })
        .await?
    });
    method!("cowboy_getStorage", |a, s, e| {
        let address = address_arg(arg(&a, 0, "params[0]")?, "params[0]")?;
        let key = bytes_arg(arg(&a, 1, "params[1]")?, "params[1]")?;
        let at = block_param(&a, 2)?;
        s.on_worker(client_of(e), move |r: SharedReader| {
            let (r, old) = match reader_at(r, at) {
                Ok(r) => r,
                Err(e) => return Some(Err(e)),
            };
            // Proofs are of the current state only (QMDB proves current activity).
            let read = if old {
                block_on(r.state.storage(&address.0, &key)).map(|v| (v, None))
            } else {
                block_on(r.prove_storage(&address, &key)).map(|(v, p)| (v, Some(p)))
            };
            let read = read.map(|(value, proof)| {
                json!({
                    "value": value.as_deref().map(hex0x),
                    "valueValue": value.as_deref().map(cbor_json),
                    "proof": proof.as_deref().map(hex0x),
                    "stateRoot": hash_json(&r.head.header.state_root),
                    "height": r.head.header.height,
                })
            });
            stale_or(read)
        })
        .await?
    });
    method!("cowboy_traceTransaction", |a, s, e| {
        let hash = hash_arg(arg(&a, 0, "params[0]")?, "params[0]")?;
        let _permit = s.traces.clone().try_acquire_owned().map_err(|_| {
            error(
                -32005,
                "this node is running another trace; retry when it finishes",
                Some(json!({"reason": "traceBusy"})),
            )
        })?;
        s.on_worker(
            client_of(e),
            move |r: SharedReader| match crate::trace::trace(&*r, &hash) {
                Err(ChainError::Exec(e)) if is_stale(&e) => None,
                Err(e) => Some(Err(internal(e))),
                Ok(None) => Some(Err(error(
                    -32001,
                    format!("transaction {} is not in a finalized block", hash.to_hex()),
                    None,
                ))),
                Ok(Some(t)) => Some(Ok(trace_json(&t))),
            },
        )
        .await?
    });
    method!("cowboy_call", |a, s, e| {
        let obj = arg(&a, 0, "params[0]")?.clone();
        let at = block_param(&a, 1)?;
        let (r, sim) = simulate_on_worker(s, e, obj, true, at).await?;
        let rc = &sim.receipt;
        let height = r.head.header.height;
        let zero = Hash32([0; 32]);
        Ok(json!({
            "success": rc.success,
            "returnData": hex0x(&rc.return_data),
            "returnValue": if rc.return_data.is_empty() { Json::Null } else { cbor_json(&rc.return_data) },
            "cyclesUsed": rc.cycles_used,
            "cellsUsed": rc.cells_used,
            "events": rc.events.iter().enumerate().map(|(i, e)| event_json(e, height + 1, &zero, i)).collect::<Vec<_>>(),
            "error": error_json(rc),
            "height": height,
        }))
    });
    method!("cowboy_estimateFee", |a, s, e| {
        let obj = arg(&a, 0, "params[0]")?.clone();
        let at = block_param(&a, 1)?;
        let (r, sim) = simulate_on_worker(s, e, obj, false, at).await?;
        let rc = &sim.receipt;
        let b = r.basefees;
        let p = &r.genesis.params;
        let headroom = |x: u64| x.saturating_add(x / 4);
        let tip_cycle = (b.cycle / 20).max(1);
        let tip_cell = (b.cell / 20).max(1);
        Ok(json!({
            "cycles": rc.cycles_used,
            "cells": rc.cells_used,
            "success": rc.success,
            "error": error_json(rc),
            "cycleBasefee": b.cycle.to_string(),
            "cellBasefee": b.cell.to_string(),
            "tipPerCycle": tip_cycle.to_string(),
            "tipPerCell": tip_cell.to_string(),
            "maxFeePerCycle": (2 * b.cycle + tip_cycle).to_string(),
            "maxFeePerCell": (2 * b.cell + tip_cell).to_string(),
            "cyclesLimit": headroom(rc.cycles_used).min(p.block_cycles_cap),
            "cellsLimit": headroom(rc.cells_used).min(p.block_cells_cap),
            "height": r.head.header.height,
        }))
    });
    method!("cowboy_getTimer", |a, s, e| {
        let id = arg(&a, 0, "params[0]")?
            .as_u64()
            .ok_or_else(|| invalid("params[0]", "expected a timer id (a non-negative integer)"))?;
        s.on_worker(client_of(e), move |r: SharedReader| match r.timer(id) {
            Err(e) if is_stale(&e) => None,
            Err(e) => Some(Err(internal(e.into()))),
            Ok(t) => Some(Ok(t.as_ref().map_or(Json::Null, timer_json))),
        })
        .await?
    });
    method!("cowboy_getTimers", |a, s, e| {
        let owner = address_arg(arg(&a, 0, "params[0]")?, "params[0]")?;
        s.on_worker(client_of(e), move |r: SharedReader| {
            match r.timers_of(&owner) {
                Err(e) if is_stale(&e) => None,
                Err(e) => Some(Err(internal(e.into()))),
                Ok(ts) => Some(Ok(Json::Array(ts.iter().map(timer_json).collect()))),
            }
        })
        .await?
    });
    method!("cowboy_getTimerExecutions", |a, s, e| {
        s.at_block(client_of(e), tag_height(&a)?, |r, height| {
            let records = block_on(r.timer_executions(height)).map_err(internal)?;
            Ok(Json::Array(
                records
                    .iter()
                    .enumerate()
                    .map(|(i, t)| timer_execution_json(height, &t.block_hash, i, &t.execution))
                    .collect(),
            ))
        })
        .await
    });
    method!("cowboy_getHookEvents", |a, s, e| {
        s.at_block(client_of(e), tag_height(&a)?, |r, height| {
            let hooks = block_on(r.hook_events(height)).map_err(internal)?;
            let list = |phase: &'static str, events: &[Event]| -> Json {
                (events.iter().enumerate())
                    .map(|(i, e)| hook_event_json(e, height, phase, i))
                    .collect()
            };
            Ok(json!({
                "begin": list("begin", &hooks.begin),
                "end": list("end", &hooks.end),
            }))
        })
        .await
    });
    method!("cowboy_getRunners", |a, s, e| {
        let max = s.reader().await?.genesis.params.runner_page_max;
        let start = page_arg(&a, 0, "params[0]", 0)?;
        let limit = page_arg(&a, 1, "params[1]", max)?;
        let args = vec![Value::Uint(start), Value::Uint(limit)];
        system_read(s, e, RUNNER_REGISTRY, "runners", args).await
    });
    method!("cowboy_getRunner", |a, s, e| {
        let runner = address_arg(arg(&a, 0, "params[0]")?, "params[0]")?;
        let args = vec![Value::Bytes(runner.0.to_vec())];
        system_read(s, e, RUNNER_REGISTRY, "get_runner", args).await
    });
    method!("cowboy_getJob", |a, s, e| {
        let id = hash_arg(arg(&a, 0, "params[0]")?, "params[0]")?;
        let args = vec![Value::Bytes(id.0.to_vec())];
        let mut job = system_read(s, e, JOB_DISPATCHER, "get_job", args.clone()).await?;
        if let Json::Object(fields) = &mut job {
            let outcome = system_read(s, e, RESULT_VERIFIER, "get_outcome", args).await?;
            fields.insert("outcome".into(), outcome);
        }
        Ok(job)
    });
    method!("cowboy_getJobCandidates", |a, s, e| {
        let id = hash_arg(arg(&a, 0, "params[0]")?, "params[0]")?;
        let max = candidates_page_max(&s.reader().await?.genesis.params);
        let start = page_arg(&a, 1, "params[1]", 0)?;
        let limit = page_arg(&a, 2, "params[2]", max)?;
        let args = vec![
            Value::Bytes(id.0.to_vec()),
            Value::Uint(start),
            Value::Uint(limit),
        ];
        system_read(s, e, JOB_DISPATCHER, "get_candidates", args).await
    });
    method!("cowboy_getJobsOf", |a, s, e| {
        let submitter = address_arg(arg(&a, 0, "params[0]")?, "params[0]")?;
        let max = s.reader().await?.genesis.params.runner_page_max;
        let start = page_arg(&a, 1, "params[1]", 0)?;
        let limit = page_arg(&a, 2, "params[2]", max)?;
        let args = vec![
            Value::Bytes(submitter.0.to_vec()),
            Value::Uint(start),
            Value::Uint(limit),
        ];
        system_read(s, e, JOB_DISPATCHER, "jobs_of", args).await
    });
    method!("cowboy_getEntitlements", |a, s, e| {
        let holder = address_arg(arg(&a, 0, "params[0]")?, "params[0]")?;
        let max = s.reader().await?.genesis.params.runner_page_max;
        let start = page_arg(&a, 1, "params[1]", 0)?;
        let limit = page_arg(&a, 2, "params[2]", max)?;
        let args = vec![
            Value::Bytes(holder.0.to_vec()),
            Value::Uint(start),
            Value::Uint(limit),
        ];
        system_read(s, e, ENTITLEMENT_REGISTRY, "entitlements_of", args).await
    });
    method!("cowboy_getValidator", |a, s, e| {
        let validator = address_arg(arg(&a, 0, "params[0]")?, "params[0]")?;
        let args = vec![Value::Bytes(validator.0.to_vec())];
        system_read(s, e, STAKING, "validator", args).await
    });
    method!("cowboy_getEvidence", |_a, s, _e| {
        let kept: Vec<Json> = s
            .evidence
            .list()
            .into_iter()
            .map(|ev| {
                json!({
                    "kind": format!("{:?}", ev.kind),
                    "view": ev.view,
                    "signer": ev.signer,
                    "evidence": hex0x(&ev.bytes),
                })
            })
            .collect();
        Ok(Json::Array(kept))
    });
    method!("cowboy_getEpoch", |_a, s, e| {
        system_read(s, e, STAKING, "epoch", Vec::new()).await
    });
    method!("cowboy_getValidatorSet", |a, s, e| {
        let epoch = match a.first() {
            None | Some(Json::Null) => {
                let now = system_read(s, e, STAKING, "epoch", Vec::new()).await?;
                now["epoch"].as_u64().unwrap_or(0)
            }
            Some(_) => page_arg(&a, 0, "params[0]", 0)?,
        };
        let args = vec![Value::Uint(epoch)];
        let members = system_read(s, e, STAKING, "active_set", args).await?;
        Ok(json!({ "epoch": epoch, "members": members }))
    });
    method!("cowboy_getEvents", |a, s, e| {
        let filter = EventFilter::parse(a.first())?;
        s.on_worker(client_of(e), move |r: SharedReader| {
            Some(block_on(async {
                let tip = r.head.header.height;
                let from = filter
                    .from
                    .unwrap_or(tip.saturating_sub(MAX_EVENT_BLOCKS - 1));
                let to = filter.to.unwrap_or(tip).min(tip);
                if to >= from && to - from >= MAX_EVENT_BLOCKS {
                    return Err(error(
                        -32005,
                        format!("at most {MAX_EVENT_BLOCKS} blocks per query"),
                        None,
                    ));
                }
                let mut out = Vec::new();
                for height in from..=to {
                    let Some(block) = r.block(height).await.map_err(internal)? else {
                        break;
                    };
                    let receipts = r.receipts(height).await.map_err(internal)?;
                    let timers = executions(&r, height).await?;
                    let hooks = r.hook_events(height).await.map_err(internal)?;
                    out.extend(filter.matches(&block, &timers, &receipts, &hooks));
                }
                Ok(Json::Array(out))
            }))
        })
        .await?
    });

    // Devnet controls (`crate::dev`): refused by a node without `--dev`.
    method!("dev_mining", |_a, s, _e| {
        let dev = s.dev("dev_mining")?;
        let (mode, block_time) = match s.production.mining() {
            Mining::Interval(t) => ("interval", json!(t.as_millis() as u64)),
            Mining::OnDemand => ("onDemand", Json::Null),
        };
        Ok(json!({
            "mode": mode,
            "blockTimeMs": block_time,
            "timeOffsetMs": dev.production().offset_ms(),
        }))
    });
    method!("dev_mine", |a, s, _e| {
        let dev = s.dev("dev_mine")?;
        let n = match a.first() {
            None => 1,
            Some(v) => count_arg(v, "params[0]")?,
        };
        Ok(json!(dev.mine(n).await.map_err(dev_error)?))
    });
    method!("dev_increaseTime", |a, s, _e| {
        let dev = s.dev("dev_increaseTime")?;
        let ms = count_arg(arg(&a, 0, "params[0]")?, "params[0]")?;
        let offset = dev
            .production()
            .increase_time(ms)
            .map_err(|e| dev_error(DevError::Clock(e)))?;
        Ok(json!(offset))
    });
    method!("dev_setNextBlockTimestamp", |a, s, _e| {
        let dev = s.dev("dev_setNextBlockTimestamp")?;
        let ms = count_arg(arg(&a, 0, "params[0]")?, "params[0]")?;
        let head = dev.head_timestamp().await;
        dev.production()
            .set_next_timestamp(ms, head)
            .map_err(|e| dev_error(DevError::Clock(e)))?;
        Ok(json!(ms))
    });
    method!("dev_snapshot", |_a, s, _e| {
        let dev = s.dev("dev_snapshot")?;
        Ok(json!(dev.snapshot().await.map_err(dev_error)?))
    });
    method!("dev_revert", |a, s, _e| {
        let dev = s.dev("dev_revert")?;
        let id = count_arg(arg(&a, 0, "params[0]")?, "params[0]")?;
        Ok(json!(dev.revert(id).await.map_err(dev_error)?))
    });
    method!("dev_setBalance", |a, s, _e| {
        s.dev("dev_setBalance")?;
        let account = address_arg(arg(&a, 0, "params[0]")?, "params[0]")?;
        let amount = match arg(&a, 1, "params[1]")? {
            Json::Null => return Err(invalid("params[1]", "expected a decimal amount")),
            v => amount_arg(Some(v), "params[1]")?,
        };
        let chain = s.chain.lock().await;
        let authority = dev_balance_authority();
        let nonce = chain.mempool.next_nonce(
            &authority,
            chain.account(&authority).await.map_err(internal)?.nonce,
        );
        let tx = Transaction::set_balance(chain.genesis().chain_id, nonce, account, amount);
        submit(s, chain, &tx.encode()).await
    });
    method!("dev_impersonate", |a, s, _e| {
        s.dev("dev_impersonate")?;
        let from = address_arg(arg(&a, 0, "params[0]")?, "params[0]")?;
        let raw = arg(&a, 1, "params[1]")?;
        let limit = max_tx_bytes(&s.reader().await?.genesis.params);
        let size = raw.as_str().map_or(0, |h| h.len().saturating_sub(2) / 2);
        if size > limit {
            return Err(rejection_error(&Rejection::TooLarge { size, limit }));
        }
        let mut tx = Transaction::decode_with_limit(&bytes_arg(raw, "params[1]")?, limit)
            .map_err(|e| invalid("params[1]", e))?;
        if tx.signature.is_some() {
            return Err(invalid(
                "params[1]",
                "send the transaction unsigned: dev_impersonate authorizes it as params[0]",
            ));
        }
        tx.signature = Some(Authorization::Impersonated(from));
        submit(s, s.chain.lock().await, &tx.encode()).await
    });

    m.register_subscription(
        "cowboy_subscribe",
        "cowboy_subscription",
        "cowboy_unsubscribe",
        |params, pending, st, ext| async move {
            // A subscribed connection is not idle (see `crate::limits`).
            let _subscribed = ext.get::<Arc<Conn>>().map(Conn::subscribed);
            subscribe(params, pending, st).await
        },
    )?;
    Ok(m)
}

/// Admit a transaction's bytes to the pool (holding the chain's lock), as
/// `cowboy_sendRawTransaction` and the dev methods that send one do; then wake block
/// production and gossip it. Answers its hash or the pool's rejection.
async fn submit(
    s: &RpcState,
    mut chain: tokio::sync::MutexGuard<'_, Chain<Ctx>>,
    bytes: &[u8],
) -> RpcResult {
    let result = chain.submit(bytes).await.map_err(internal)?;
    s.metrics.mempool.set(chain.mempool.len() as i64);
    match result {
        Ok(hash) => {
            s.production.on_transaction();
            drop(chain);
            s.gossip.admitted(hash, bytes);
            Ok(hash_json(&hash))
        }
        Err(e) => Err(rejection_error(&e)),
    }
}

/// A block tag in `params[0]`: a height, or `"latest"` (`None`).
fn tag_height(a: &[Json]) -> Result<Option<u64>, ErrorObjectOwned> {
    match arg(a, 0, "params[0]")? {
        Json::String(t) if t == "latest" => Ok(None),
        v => v
            .as_u64()
            .map(Some)
            .ok_or_else(|| invalid("params[0]", "expected a height or \"latest\"")),
    }
}

/// The timer executions of finalized block `height`, in the order they ran.
async fn executions(r: &Reader<Ctx>, height: u64) -> Result<Vec<TimerExecution>, ErrorObjectOwned> {
    Ok(r.timer_executions(height)
        .await
        .map_err(internal)?
        .into_iter()
        .map(|t| t.execution)
        .collect())
}

/// A state read that may meet a snapshot overtaken by a commit: `None` retries it.
fn stale_or(read: Result<Json, cowboy_state::StateError>) -> Option<RpcResult> {
    match read {
        Err(cowboy_state::StateError::SnapshotStale { .. }) => None,
        other => Some(other.map_err(|e| internal(e.into()))),
    }
}

/// A receipt by transaction hash: the index and the receipt's own record (see
/// [`crate::reader::ReceiptRecord`]), never its block's other receipts.
async fn receipt_of(r: &Reader<Ctx>, hash: &Hash32) -> RpcResult {
    let Some((height, index, rec)) = r.located_receipt(hash).await.map_err(internal)? else {
        return Ok(Json::Null);
    };
    let ctx = rec.context;
    Ok(receipt_fields(
        hash,
        height,
        &ctx.block_hash,
        index as usize,
        &ctx.from,
        ctx.to.as_ref(),
        &rec.receipt,
    ))
}

/// A finalized transaction with the proofs that put it and its receipt in its block: the
/// header (whose hash a light client trusts), the transaction and its path to the header's
/// `tx_root`, the receipt and its path to `receipts_root` (item `timers + index`: a block's
/// timer executions come first), each checked with `cowboy_proof_verifier::verify_inclusion`.
/// The work is hashing the block's item lists once, bounded by the block limits.
async fn transaction_proof(r: &Reader<Ctx>, hash: &Hash32) -> RpcResult {
    let Some((height, index)) = r.tx_location(hash).await.map_err(internal)? else {
        return Ok(Json::Null);
    };
    let Some(block) = r.block(height).await.map_err(internal)? else {
        return Ok(Json::Null);
    };
    let index = index as usize;
    let receipts = r.receipts(height).await.map_err(internal)?;
    let timers = executions(r, height).await?;
    let hooks = r.hook_events(height).await.map_err(internal)?;
    let digests = |hashes: Vec<Hash32>| -> Vec<[u8; 32]> { hashes.iter().map(|h| h.0).collect() };
    let txs = digests(block.transactions.iter().map(Transaction::hash).collect());
    let items = digests(cowboy_types::block_receipt_items(
        &timers, &receipts, &hooks,
    ));
    let (Some(tx), Some(receipt), Some(tx_proof), Some(receipt_proof)) = (
        block.transactions.get(index),
        receipts.get(index),
        cowboy_proof_verifier::inclusion::prove(&txs, index),
        cowboy_proof_verifier::inclusion::prove(&items, timers.len() + index),
    ) else {
        return Err(internal(ChainError::Inconsistent(format!(
            "block {height} holds no transaction or receipt {index}"
        ))));
    };
    let proof = |p: &cowboy_proof_verifier::Inclusion| {
        json!({
            "index": p.index,
            "count": p.count,
            "siblings": p.siblings.iter().map(|d| hex0x(d)).collect::<Vec<_>>(),
        })
    };
    Ok(json!({
        "transactionHash": hash_json(hash),
        "blockHeight": height,
        "blockHash": hash_json(&block.header.hash()),
        "header": hex0x(&block.header.encode()),
        "transaction": hex0x(&tx.encode()),
        "transactionProof": proof(&tx_proof),
        "receipt": hex0x(&receipt.encode()),
        "receiptProof": proof(&receipt_proof),
    }))
}

/// A subscription's filter object: absent or null is the empty filter.
fn filter_object<'a>(
    v: Option<&'a Json>,
    empty: &'a serde_json::Map<String, Json>,
) -> Result<&'a serde_json::Map<String, Json>, ErrorObjectOwned> {
    match v {
        None | Some(Json::Null) => Ok(empty),
        Some(Json::Object(o)) => Ok(o),
        Some(_) => Err(invalid("filter", "expected an object")),
    }
}

/// An optional address field of a filter object.
fn optional_address(
    o: &serde_json::Map<String, Json>,
    name: &str,
) -> Result<Option<Address>, ErrorObjectOwned> {
    match o.get(name) {
        None | Some(Json::Null) => Ok(None),
        Some(v) => address_arg(v, name).map(Some),
    }
}

struct EventFilter {
    address: Option<Address>,
    topic: Option<String>,
    from: Option<u64>,
    to: Option<u64>,
}

impl EventFilter {
    fn parse(v: Option<&Json>) -> Result<EventFilter, ErrorObjectOwned> {
        let empty = serde_json::Map::new();
        let o = filter_object(v, &empty)?;
        let address = optional_address(o, "address")?;
        let topic = match o.get("topic") {
            None | Some(Json::Null) => None,
            Some(Json::String(t)) => Some(t.clone()),
            Some(_) => return Err(invalid("topic", "expected a string")),
        };
        let height = |name: &str| match o.get(name) {
            None | Some(Json::Null) => Ok(None),
            Some(v) => v
                .as_u64()
                .map(Some)
                .ok_or_else(|| invalid(name, "expected a height")),
        };
        Ok(EventFilter {
            address,
            topic,
            from: height("fromBlock")?,
            to: height("toBlock")?,
        })
    }

    fn keeps(&self, e: &Event) -> bool {
        self.address.is_none_or(|a| a == e.emitter)
            && self.topic.as_ref().is_none_or(|t| *t == e.topic)
    }

    /// The matching events of a block in the order they were emitted: its `begin_block`
    /// hooks', its timers' (they run in `begin_block` too), its transactions', then its
    /// `end_block` hooks'.
    fn matches(
        &self,
        block: &Block,
        timers: &[TimerExecution],
        receipts: &[Receipt],
        hooks: &HookEvents,
    ) -> Vec<Json> {
        let height = block.header.height;
        let hook_events = |phase: &'static str, events: &[Event]| -> Vec<Json> {
            (events.iter().enumerate())
                .filter(|(_, e)| self.keeps(e))
                .map(|(i, e)| hook_event_json(e, height, phase, i))
                .collect()
        };
        let mut out = hook_events("begin", &hooks.begin);
        for x in timers {
            for (i, e) in x.receipt.events.iter().enumerate() {
                if self.keeps(e) {
                    out.push(timer_event_json(e, block.header.height, x, i));
                }
            }
        }
        for (tx, r) in block.transactions.iter().zip(receipts) {
            let hash = tx.hash();
            for (i, e) in r.events.iter().enumerate() {
                if !self.keeps(e) {
                    continue;
                }
                out.push(event_json(e, block.header.height, &hash, i));
            }
        }
        out.extend(hook_events("end", &hooks.end));
        out
    }
}

/// Which timer executions a `timers` subscription sends: `{owner?, timerId?}`.
struct TimerFilter {
    owner: Option<Address>,
    timer_id: Option<u64>,
}

impl TimerFilter {
    fn parse(v: Option<&Json>) -> Result<TimerFilter, ErrorObjectOwned> {
        let empty = serde_json::Map::new();
        let o = filter_object(v, &empty)?;
        let owner = optional_address(o, "owner")?;
        let timer_id = match o.get("timerId") {
            None | Some(Json::Null) => None,
            Some(v) => Some(
                v.as_u64()
                    .ok_or_else(|| invalid("timerId", "expected a non-negative integer"))?,
            ),
        };
        Ok(TimerFilter { owner, timer_id })
    }

    fn keeps(&self, x: &TimerExecution) -> bool {
        self.owner.is_none_or(|o| o == x.owner) && self.timer_id.is_none_or(|id| id == x.timer_id)
    }
}

async fn subscribe(
    params: Params<'static>,
    pending: PendingSubscriptionSink,
    st: Arc<RpcState>,
) -> Result<(), SubError> {
    let a = match args(&params) {
        Ok(a) => a,
        Err(e) => {
            pending.reject(e).await;
            return Ok(());
        }
    };
    let kind = a
        .first()
        .and_then(Json::as_str)
        .unwrap_or_default()
        .to_string();
    let mut finalized = st.finalized.resubscribe();
    match kind.as_str() {
        "newHeads" => {
            let sink = pending.accept().await.map_err(SubError::from)?;
            loop {
                let f = next_block(&mut finalized).await?;
                send(&sink, &block_json(&f.block, &f.hash, false, &f.timers)).await?;
            }
        }
        "events" => {
            let filter = match EventFilter::parse(a.get(1)) {
                Ok(f) => f,
                Err(e) => {
                    pending.reject(e).await;
                    return Ok(());
                }
            };
            let sink = pending.accept().await.map_err(SubError::from)?;
            loop {
                let f = next_block(&mut finalized).await?;
                for ev in filter.matches(&f.block, &f.timers, &f.receipts, &f.hooks) {
                    send(&sink, &ev).await?;
                }
            }
        }
        "timers" => {
            let filter = match TimerFilter::parse(a.get(1)) {
                Ok(f) => f,
                Err(e) => {
                    pending.reject(e).await;
                    return Ok(());
                }
            };
            let sink = pending.accept().await.map_err(SubError::from)?;
            loop {
                let f = next_block(&mut finalized).await?;
                for (i, x) in f.timers.iter().enumerate() {
                    if filter.keeps(x) {
                        let v = timer_execution_json(f.block.header.height, &f.hash, i, x);
                        send(&sink, &v).await?;
                    }
                }
            }
        }
        "receipt" => {
            let hash = match a.get(1).map(|v| hash_arg(v, "params[1]")) {
                Some(Ok(h)) => h,
                Some(Err(e)) => {
                    pending.reject(e).await;
                    return Ok(());
                }
                None => {
                    pending.reject(invalid("params[1]", "missing")).await;
                    return Ok(());
                }
            };
            let sink = pending.accept().await.map_err(SubError::from)?;
            let reader = st.reader().await.map_err(|e| SubError::from(e.message()))?;
            let existing = receipt_of(&reader, &hash)
                .await
                .map_err(|e| SubError::from(e.message()))?;
            if !existing.is_null() {
                send(&sink, &existing).await?;
                return Ok(());
            }
            for _ in 0..MAX_RECEIPT_WAIT_BLOCKS {
                let f = next_block(&mut finalized).await?;
                if let Some(i) = f.block.transactions.iter().position(|t| t.hash() == hash) {
                    send(&sink, &receipt_json(&f.block, &f.hash, i, &f.receipts[i])).await?;
                    return Ok(());
                }
            }
            Err(SubError::from(format!(
                "transaction not included within {MAX_RECEIPT_WAIT_BLOCKS} blocks"
            )))
        }
        other => {
            pending
                .reject(invalid(
                    "params[0]",
                    format!(
                        "unknown subscription {other:?}; expected newHeads, events, timers or receipt"
                    ),
                ))
                .await;
            Ok(())
        }
    }
}

async fn next_block(
    rx: &mut broadcast::Receiver<Arc<Finalized>>,
) -> Result<Arc<Finalized>, SubError> {
    match rx.recv().await {
        Ok(f) => Ok(f),
        Err(broadcast::error::RecvError::Lagged(n)) => Err(SubError::from(format!(
            "subscriber fell {n} blocks behind; resubscribe and catch up by query"
        ))),
        Err(broadcast::error::RecvError::Closed) => Err(SubError::from("node is shutting down")),
    }
}

async fn send(sink: &jsonrpsee::server::SubscriptionSink, v: &Json) -> Result<(), SubError> {
    let raw = serde_json::value::to_raw_value(v).map_err(SubError::from)?;
    sink.send(SubscriptionMessage::from(raw))
        .await
        .map_err(|_| SubError::from("subscriber disconnected"))
}

/// Start serving on `addr` with `limits`; returns the bound address and the handle that
/// stops the server.
///
/// The accept loop is ours rather than jsonrpsee's so that connections are counted per client
/// address and WebSockets separately from HTTP (jsonrpsee counts both against one cap, so
/// idle WebSockets could lock HTTP out), and so that idle connections are closed (see
/// [`crate::limits`]).
pub async fn serve(
    addr: SocketAddr,
    state: RpcState,
    limits: RpcLimits,
) -> std::io::Result<(SocketAddr, ServerHandle)> {
    let config = ServerConfig::builder()
        .max_request_body_size(MAX_REQUEST_BYTES)
        // Our own limits below are the binding ones.
        .max_connections(u32::try_from(limits.total + limits.ws_total).unwrap_or(u32::MAX))
        .max_subscriptions_per_connection(64)
        .build();
    let listener = tokio::net::TcpListener::bind(addr).await?;
    let bound = listener.local_addr()?;
    let methods: jsonrpsee::server::Methods = module(state).map_err(std::io::Error::other)?.into();
    let (stop, handle) = jsonrpsee::server::stop_channel();
    let builder = Server::builder().set_config(config).to_service_builder();
    let connections = Connections::new(&limits);
    tokio::spawn(async move {
        loop {
            let accepted = tokio::select! {
                a = listener.accept() => a,
                _ = stop.clone().shutdown() => return,
            };
            let Ok((socket, peer)) = accepted else {
                continue;
            };
            let ip = peer.ip();
            let Some(slot) = connections.accept(ip) else {
                tracing::debug!(%peer, "RPC connection refused: connection limit");
                drop(socket);
                continue;
            };
            let _ = socket.set_nodelay(true);
            let stream = IdleStream::new(socket, slot);
            let conn = stream.conn();
            let watchdog = connections.clone();
            let watched = conn.clone();
            tokio::spawn(async move { watchdog.watch_idle(watched).await });
            let (methods, stop, builder, connections) = (
                methods.clone(),
                stop.clone(),
                builder.clone(),
                connections.clone(),
            );
            let shutdown = stop.clone();
            let service =
                tower::service_fn(move |mut req: http::Request<hyper::body::Incoming>| {
                    req.extensions_mut().insert(conn.clone());
                    let mut svc = builder.clone().build(methods.clone(), stop.clone());
                    let upgrade = jsonrpsee::server::ws::is_upgrade_request(&req);
                    if !upgrade && crate::explorer::serves(req.method()) {
                        // The explorer's static assets: answered from memory, no RPC work.
                        let page = crate::explorer::response(req.method(), req.uri().path());
                        return futures::future::Either::Left(futures::future::ready(Ok(page)));
                    }
                    let ws_slot = if upgrade {
                        match connections.upgrade(conn.ip) {
                            Some(slot) => Some(slot),
                            None => {
                                let mut resp =
                                    jsonrpsee::server::http::response::too_many_requests();
                                resp.headers_mut().insert(
                                    http::header::CONNECTION,
                                    http::HeaderValue::from_static("close"),
                                );
                                return futures::future::Either::Left(futures::future::ready(
                                    Ok::<_, std::io::Error>(resp),
                                ));
                            }
                        }
                    } else {
                        None
                    };
                    if let Some(slot) = ws_slot {
                        let closed = svc.on_session_closed();
                        tokio::spawn(async move {
                            closed.await;
                            drop(slot);
                        });
                    }
                    futures::future::Either::Right(async move {
                        // A concrete error type: `BoxError` here trips a higher-ranked
                        // lifetime inference in `tokio::spawn` below.
                        tower::Service::call(&mut svc, req)
                            .await
                            .map_err(std::io::Error::other)
                    })
                });
            tokio::spawn(async move {
                let _ = jsonrpsee::server::serve_with_graceful_shutdown(
                    stream,
                    service,
                    shutdown.shutdown(),
                )
                .await;
            });
        }
    });
    Ok((bound, handle))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_read_before_the_snapshot_is_a_typed_error_naming_it() {
        let e = internal(ChainError::BeforeSnapshot {
            height: 3,
            base: 79,
        });
        assert_eq!(e.code(), -32001);
        let data: Json = serde_json::from_str(e.data().expect("data").get()).expect("json");
        assert_eq!(
            data,
            json!({"reason": "beforeSnapshot", "height": 3, "snapshotHeight": 79})
        );
        assert!(
            e.message().contains("snapshot at block 79"),
            "{}",
            e.message()
        );
    }
}
