//! Prometheus metrics of the node and the HTTP endpoint that serves them (`--metrics-addr`).
//!
//! The node's own metrics are registered in the commonware runtime's registry, so one scrape
//! returns them together with the consensus engine's, the p2p network's and the storage's.
//!
//! | metric | kind | meaning |
//! |---|---|---|
//! | `cowboy_block_height` | gauge | height of the last finalized block |
//! | `cowboy_finalization_latency_seconds` | histogram | block timestamp → finalized locally |
//! | `cowboy_block_execution_seconds` | histogram | time to store and commit a finalized block |
//! | `cowboy_transactions_total` | counter | transactions finalized (rate = txs/s) |
//! | `cowboy_mempool_size` | gauge | queued transactions |
//! | `cowboy_rpc_requests_total` | counter | JSON-RPC calls served |
//! | `cowboy_rpc_latency_seconds` | histogram | JSON-RPC call latency |
//! | `cowboy_gossip_admitted_total` | counter | transactions from peers admitted to the mempool |
//! | `cowboy_gossip_dropped_total` | counter | transactions from peers dropped (seen, invalid, refused) |
//! | `cowboy_sync_dropped_total` | counter | sync messages from peers dropped (malformed, unasked for, refused) |
//! | `cowboy_snapshot_bad_sources_total` | counter | times a peer was marked a bad state-snapshot source (operations that do not verify, or misbehaviour while one was fetched) |

use std::net::SocketAddr;
use std::time::Duration;

use commonware_runtime::telemetry::metrics::raw;
use commonware_runtime::telemetry::metrics::{Counter, Gauge, Histogram};
use commonware_runtime::Metrics as _;
use prometheus_client::metrics::histogram::exponential_buckets;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::chain::Finalized;
use crate::consensus::Ctx;

/// The node's metrics (cheap to clone: handles to shared counters).
#[derive(Clone)]
pub struct Metrics {
    height: Gauge,
    finalization_latency: Histogram,
    execution: Histogram,
    transactions: Counter,
    /// Mempool size, set by whoever changes it.
    pub mempool: Gauge,
    /// RPC calls.
    pub rpc_requests: Counter,
    /// RPC latency.
    pub rpc_latency: Histogram,
    /// Transactions from peers admitted to the mempool.
    pub gossip_admitted: Counter,
    /// Transactions from peers dropped: seen before, invalid, or refused by the pool.
    pub gossip_dropped: Counter,
    /// Sync messages from peers dropped: malformed, unasked for, or refused once checked.
    pub sync_dropped: Counter,
    /// Times a peer was marked a bad state-snapshot source (`snapshot_sync::BadSources`).
    pub snapshot_bad_sources: Counter,
}

impl Metrics {
    /// Register the metrics under `context`'s label.
    pub fn new(context: &impl commonware_runtime::Metrics) -> Self {
        let seconds = || raw::Histogram::new(exponential_buckets(0.0005, 2.0, 16));
        Self {
            height: context.register(
                "block_height",
                "last finalized height",
                raw::Gauge::default(),
            ),
            finalization_latency: context.register(
                "finalization_latency_seconds",
                "block timestamp to local finalization",
                seconds(),
            ),
            execution: context.register(
                "block_execution_seconds",
                "time to store and commit a finalized block",
                seconds(),
            ),
            transactions: context.register(
                "transactions",
                "transactions finalized",
                raw::Counter::default(),
            ),
            mempool: context.register("mempool_size", "queued transactions", raw::Gauge::default()),
            rpc_requests: context.register(
                "rpc_requests",
                "JSON-RPC calls",
                raw::Counter::default(),
            ),
            rpc_latency: context.register(
                "rpc_latency_seconds",
                "JSON-RPC call latency",
                seconds(),
            ),
            gossip_admitted: context.register(
                "gossip_admitted",
                "transactions from peers admitted to the mempool",
                raw::Counter::default(),
            ),
            gossip_dropped: context.register(
                "gossip_dropped",
                "transactions from peers dropped (seen before, invalid, refused by the pool)",
                raw::Counter::default(),
            ),
            sync_dropped: context.register(
                "sync_dropped",
                "sync messages from peers dropped (malformed, unasked for, refused once checked)",
                raw::Counter::default(),
            ),
            snapshot_bad_sources: context.register(
                "snapshot_bad_sources",
                "times a peer was marked a bad state-snapshot source (operations that do not \
                 verify, or misbehaviour while a snapshot was fetched)",
                raw::Counter::default(),
            ),
        }
    }

    /// Record a finalized block, finalized at `now_ms` (the runtime's clock) after `took`.
    pub fn on_finalized(&self, f: &Finalized, took: Duration, now_ms: u64) {
        self.height
            .set(i64::try_from(f.block.header.height).unwrap_or(i64::MAX));
        self.transactions.inc_by(f.block.transactions.len() as u64);
        self.execution.observe(took.as_secs_f64());
        let latency = now_ms.saturating_sub(f.block.header.timestamp_ms);
        self.finalization_latency.observe(latency as f64 / 1000.0);
    }
}

/// Serve `GET /metrics` (any path, in fact) on `addr` until the process ends.
pub async fn serve(context: Ctx, addr: SocketAddr) -> std::io::Result<SocketAddr> {
    let listener = tokio::net::TcpListener::bind(addr).await?;
    let bound = listener.local_addr()?;
    tokio::spawn(async move {
        loop {
            let Ok((mut socket, _)) = listener.accept().await else {
                continue;
            };
            let body = context.encode();
            tokio::spawn(async move {
                // Read (and ignore) the request head; answer with the exposition.
                let mut buf = [0u8; 4096];
                let _ = tokio::time::timeout(Duration::from_secs(5), socket.read(&mut buf)).await;
                let head = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: text/plain; version=0.0.4\r\n\
                     content-length: {}\r\nconnection: close\r\n\r\n",
                    body.len()
                );
                let _ = socket.write_all(head.as_bytes()).await;
                let _ = socket.write_all(body.as_bytes()).await;
                let _ = socket.shutdown().await;
            });
        }
    });
    Ok(bound)
}
