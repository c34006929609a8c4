//! The JSON-RPC 2.0 server (HTTP and WebSocket on one port) implementing `RPC.md`.
//!
//! Every method reads the chain under its lock, so it sees one finalized state; long work
//! (executing a `cowboy_call`) holds the lock like a block's execution does. Limits: 5 MiB per
//! request, 256 connections, 64 subscriptions per connection, 10,000 blocks per event query.
//! Subscriptions follow the chain's stream of finalized blocks; a subscriber that falls more
//! than 1,024 blocks behind is dropped with an error rather than buffered without bound.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Instant;

use cowboy_exec::TxInvalid;
use cowboy_types::block::{Block, Event, Receipt};
use cowboy_types::cbor::{self, Value};
use cowboy_types::json::to_json;
use cowboy_types::tx::Payload;
use cowboy_types::{Address, Hash32, Transaction};
use jsonrpsee::server::{
    PendingSubscriptionSink, RpcModule, Server, ServerConfig, ServerHandle, SubscriptionMessage,
};
use jsonrpsee::types::{ErrorObjectOwned, Params};
use serde_json::{json, Value as Json};
use tokio::sync::{broadcast, Mutex};

use crate::chain::{Chain, ChainError, Finalized};
use crate::consensus::Ctx;
use crate::genesis::{parse_address, parse_amount};
use crate::metrics::Metrics;

/// Largest request body.
pub const MAX_REQUEST_BYTES: u32 = 5 << 20;
/// Most blocks one `cowboy_getEvents` scans.
pub const MAX_EVENT_BLOCKS: u64 = 10_000;

/// What the methods share.
pub struct RpcState {
    /// The chain.
    pub chain: Arc<Mutex<Chain<Ctx>>>,
    /// Metrics.
    pub metrics: Metrics,
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

fn internal(e: ChainError) -> ErrorObjectOwned {
    error(-32603, e.to_string(), None)
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
    let hash = tx.hash();
    let contract = match (tx.to, r.success, cbor::decode(&r.return_data)) {
        (None, true, Ok(Value::Bytes(b))) if b.len() == 20 => Json::String(hex0x(&b)),
        _ => Json::Null,
    };
    json!({
        "transactionHash": hash_json(&hash),
        "blockHeight": block.header.height,
        "blockHash": hash_json(block_hash),
        "index": index,
        "from": tx.sender().map(|a| addr_json(&a)).unwrap_or(Json::Null),
        "to": tx.to.as_ref().map(addr_json),
        "success": r.success,
        "cyclesUsed": r.cycles_used,
        "cellsUsed": r.cells_used,
        "feePaid": r.fee_paid.to_string(),
        "returnData": hex0x(&r.return_data),
        "returnValue": if r.return_data.is_empty() { Json::Null } else { cbor_json(&r.return_data) },
        "events": r.events.iter().enumerate()
            .map(|(i, e)| event_json(e, block.header.height, &hash, i)).collect::<Vec<_>>(),
        "error": error_json(r),
        "contractAddress": contract,
    })
}

/// A block as JSON (`RPC.md`, "Objects").
pub fn block_json(block: &Block, hash: &Hash32, full: bool) -> Json {
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
        "transactions": txs,
    })
}

fn rejection_error(e: &crate::mempool::Rejection) -> ErrorObjectOwned {
    error(
        -32000,
        format!("transaction rejected: {e}"),
        Some(json!({"reason": e.kind(), "message": e.to_string()})),
    )
}

/// An unsigned transaction for simulation, from a `cowboy_call`/`cowboy_estimateFee` object.
fn sim_tx(
    chain: &Chain<Ctx>,
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
    let params = &chain.genesis().params;
    let tx = Transaction {
        chain_id: chain.genesis().chain_id,
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
    invalid("transaction", e)
}

/// Build the module of every method.
pub fn module(
    state: RpcState,
) -> Result<RpcModule<RpcState>, jsonrpsee::core::RegisterMethodError> {
    let mut m = RpcModule::new(state);

    macro_rules! method {
        ($name:literal, |$a:ident, $s:ident| $body:expr) => {
            m.register_async_method($name, |params, st, _| async move {
                let started = Instant::now();
                st.metrics.rpc_requests.inc();
                let result: RpcResult = async {
                    let $a = args(&params)?;
                    let $s = &st;
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

    method!("cowboy_chainId", |_a, s| Ok(json!(
        s.chain.lock().await.genesis().chain_id
    )));
    method!("cowboy_blockNumber", |_a, s| Ok(json!(
        s.chain.lock().await.head().header.height
    )));
    method!("cowboy_basefees", |_a, s| {
        let b = s.chain.lock().await.next_basefees();
        Ok(json!({"cycleBasefee": b.cycle.to_string(), "cellBasefee": b.cell.to_string()}))
    });
    method!("cowboy_sendRawTransaction", |a, s| {
        let bytes = bytes_arg(arg(&a, 0, "params[0]")?, "params[0]")?;
        let mut chain = s.chain.lock().await;
        let result = chain.submit(&bytes).await.map_err(internal)?;
        s.metrics.mempool.set(chain.mempool.len() as i64);
        match result {
            Ok(hash) => Ok(hash_json(&hash)),
            Err(e) => Err(rejection_error(&e)),
        }
    });
    method!("cowboy_getTransaction", |a, s| {
        let hash = hash_arg(arg(&a, 0, "params[0]")?, "params[0]")?;
        let chain = s.chain.lock().await;
        if let Some((tx, _)) = chain.mempool.get(&hash) {
            return Ok(tx_json(tx, None));
        }
        let Some((height, index)) = chain.tx_location(&hash).await.map_err(internal)? else {
            return Ok(Json::Null);
        };
        let block = chain.block(height).await.map_err(internal)?;
        Ok(block
            .and_then(|b| {
                b.transactions
                    .get(index as usize)
                    .map(|t| tx_json(t, Some((height, index))))
            })
            .unwrap_or(Json::Null))
    });
    method!("cowboy_getReceipt", |a, s| {
        let hash = hash_arg(arg(&a, 0, "params[0]")?, "params[0]")?;
        let chain = s.chain.lock().await;
        receipt_of(&chain, &hash).await
    });
    method!("cowboy_getBlockByNumber", |a, s| {
        let full = a.get(1).and_then(Json::as_bool).unwrap_or(false);
        let chain = s.chain.lock().await;
        let height = match arg(&a, 0, "params[0]")? {
            Json::String(t) if t == "latest" => chain.head().header.height,
            v => v
                .as_u64()
                .ok_or_else(|| invalid("params[0]", "expected a height or \"latest\""))?,
        };
        Ok(match chain.block(height).await.map_err(internal)? {
            Some(b) => block_json(&b, &b.header.hash(), full),
            None => Json::Null,
        })
    });
    method!("cowboy_getBlockByHash", |a, s| {
        let hash = hash_arg(arg(&a, 0, "params[0]")?, "params[0]")?;
        let full = a.get(1).and_then(Json::as_bool).unwrap_or(false);
        let chain = s.chain.lock().await;
        Ok(match chain.block_by_hash(&hash).await.map_err(internal)? {
            Some(b) => block_json(&b, &hash, full),
            None => Json::Null,
        })
    });
    method!("cowboy_getAccount", |a, s| {
        let address = address_arg(arg(&a, 0, "params[0]")?, "params[0]")?;
        let chain = s.chain.lock().await;
        let acct = chain.account(&address).await.map_err(internal)?;
        Ok(json!({
            "address": addr_json(&address),
            "balance": acct.balance.to_string(),
            "nonce": acct.nonce,
            "pendingNonce": chain.mempool.next_nonce(&address, acct.nonce),
            "codeHash": acct.code_hash.map(|h| hex0x(&h)),
            "isActor": acct.code_hash.is_some(),
            "height": chain.head().header.height,
        }))
    });
    method!("cowboy_getActorSource", |a, s| {
        let address = address_arg(arg(&a, 0, "params[0]")?, "params[0]")?;
        let chain = s.chain.lock().await;
        let acct = chain.account(&address).await.map_err(internal)?;
        let Some(code_hash) = acct.code_hash else {
            return Ok(Json::Null);
        };
        let source = chain.code(&code_hash).await.map_err(internal)?;
        Ok(json!({"address": addr_json(&address), "codeHash": hex0x(&code_hash), "source": source}))
    });
    method!("cowboy_getStorage", |a, s| {
        let address = address_arg(arg(&a, 0, "params[0]")?, "params[0]")?;
        let key = bytes_arg(arg(&a, 1, "params[1]")?, "params[1]")?;
        let chain = s.chain.lock().await;
        let (value, proof) = chain
            .prove_storage(&address, &key)
            .await
            .map_err(internal)?;
        Ok(json!({
            "value": value.as_deref().map(hex0x),
            "valueValue": value.as_deref().map(cbor_json),
            "proof": hex0x(&proof),
            "stateRoot": hash_json(&chain.head().header.state_root),
            "height": chain.head().header.height,
        }))
    });
    method!("cowboy_call", |a, s| {
        let chain = s.chain.lock().await;
        let (from, tx) = sim_tx(&chain, arg(&a, 0, "params[0]")?, true)?;
        let sim = chain
            .simulate(from, &tx)
            .map_err(internal)?
            .map_err(simulation_error)?;
        let r = &sim.receipt;
        let height = chain.head().header.height;
        let zero = Hash32([0; 32]);
        Ok(json!({
            "success": r.success,
            "returnData": hex0x(&r.return_data),
            "returnValue": if r.return_data.is_empty() { Json::Null } else { cbor_json(&r.return_data) },
            "cyclesUsed": r.cycles_used,
            "cellsUsed": r.cells_used,
            "events": r.events.iter().enumerate().map(|(i, e)| event_json(e, height + 1, &zero, i)).collect::<Vec<_>>(),
            "error": error_json(r),
            "height": height,
        }))
    });
    method!("cowboy_estimateFee", |a, s| {
        let chain = s.chain.lock().await;
        let (from, tx) = sim_tx(&chain, arg(&a, 0, "params[0]")?, false)?;
        let sim = chain
            .simulate(from, &tx)
            .map_err(internal)?
            .map_err(simulation_error)?;
        let r = &sim.receipt;
        let b = chain.next_basefees();
        let p = &chain.genesis().params;
        let headroom = |x: u64| x.saturating_add(x / 4);
        let tip_cycle = (b.cycle / 20).max(1);
        let tip_cell = (b.cell / 20).max(1);
        Ok(json!({
            "cycles": r.cycles_used,
            "cells": r.cells_used,
            "success": r.success,
            "error": error_json(r),
            "cycleBasefee": b.cycle.to_string(),
            "cellBasefee": b.cell.to_string(),
            "tipPerCycle": tip_cycle.to_string(),
            "tipPerCell": tip_cell.to_string(),
            "maxFeePerCycle": (2 * b.cycle + tip_cycle).to_string(),
            "maxFeePerCell": (2 * b.cell + tip_cell).to_string(),
            "cyclesLimit": headroom(r.cycles_used).min(p.block_cycles_cap),
            "cellsLimit": headroom(r.cells_used).min(p.block_cells_cap),
        }))
    });
    method!("cowboy_getEvents", |a, s| {
        let filter = EventFilter::parse(a.first())?;
        let chain = s.chain.lock().await;
        let tip = chain.head().header.height;
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
            let Some(block) = chain.block(height).await.map_err(internal)? else {
                break;
            };
            let receipts = chain.receipts(height).await.map_err(internal)?;
            out.extend(filter.matches(&block, &receipts));
        }
        Ok(Json::Array(out))
    });

    m.register_subscription(
        "cowboy_subscribe",
        "cowboy_subscription",
        "cowboy_unsubscribe",
        |params, pending, st, _| async move { subscribe(params, pending, st).await },
    )?;
    Ok(m)
}

async fn receipt_of(chain: &Chain<Ctx>, hash: &Hash32) -> RpcResult {
    let Some((height, index)) = chain.tx_location(hash).await.map_err(internal)? else {
        return Ok(Json::Null);
    };
    let Some(block) = chain.block(height).await.map_err(internal)? else {
        return Ok(Json::Null);
    };
    let receipts = chain.receipts(height).await.map_err(internal)?;
    let Some(r) = receipts.get(index as usize) else {
        return Ok(Json::Null);
    };
    Ok(receipt_json(
        &block,
        &block.header.hash(),
        index as usize,
        r,
    ))
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
        let o = match v {
            None | Some(Json::Null) => &empty,
            Some(Json::Object(o)) => o,
            Some(_) => return Err(invalid("filter", "expected an object")),
        };
        let address = match o.get("address") {
            None | Some(Json::Null) => None,
            Some(v) => Some(address_arg(v, "address")?),
        };
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

    fn matches(&self, block: &Block, receipts: &[Receipt]) -> Vec<Json> {
        let mut out = Vec::new();
        for (tx, r) in block.transactions.iter().zip(receipts) {
            let hash = tx.hash();
            for (i, e) in r.events.iter().enumerate() {
                if self.address.is_some_and(|a| a != e.emitter)
                    || self.topic.as_ref().is_some_and(|t| *t != e.topic)
                {
                    continue;
                }
                out.push(event_json(e, block.header.height, &hash, i));
            }
        }
        out
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
    let mut finalized = st.chain.lock().await.subscribe_finalized();
    match kind.as_str() {
        "newHeads" => {
            let sink = pending.accept().await.map_err(SubError::from)?;
            loop {
                let f = next_block(&mut finalized).await?;
                send(&sink, &block_json(&f.block, &f.hash, false)).await?;
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
                for ev in filter.matches(&f.block, &f.receipts) {
                    send(&sink, &ev).await?;
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
            let existing = {
                let chain = st.chain.lock().await;
                receipt_of(&chain, &hash)
                    .await
                    .map_err(|e| SubError::from(e.message()))?
            };
            if !existing.is_null() {
                send(&sink, &existing).await?;
                return Ok(());
            }
            loop {
                let f = next_block(&mut finalized).await?;
                if let Some(i) = f.block.transactions.iter().position(|t| t.hash() == hash) {
                    send(&sink, &receipt_json(&f.block, &f.hash, i, &f.receipts[i])).await?;
                    return Ok(());
                }
            }
        }
        other => {
            pending
                .reject(invalid(
                    "params[0]",
                    format!("unknown subscription {other:?}; expected newHeads, events or receipt"),
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

/// Start serving on `addr`; returns the bound address and the handle that stops the server.
pub async fn serve(
    addr: SocketAddr,
    state: RpcState,
) -> std::io::Result<(SocketAddr, ServerHandle)> {
    let config = ServerConfig::builder()
        .max_request_body_size(MAX_REQUEST_BYTES)
        .max_connections(256)
        .max_subscriptions_per_connection(64)
        .build();
    let server = Server::builder().set_config(config).build(addr).await?;
    let bound = server.local_addr()?;
    let module = module(state).map_err(std::io::Error::other)?;
    Ok((bound, server.start(module)))
}
