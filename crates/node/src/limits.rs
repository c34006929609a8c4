//! What the RPC may cost the node (issue 14, item 8: free calls never slow blocks).
//!
//! - **Worker pool** ([`WorkerPool`]): simulations (`cowboy_call`, `cowboy_estimateFee`) and
//!   heavy reads (blocks, receipts, events) run on the pool's own `workers` threads, never on
//!   the async runtime that drives consensus, and never under the chain's lock (they read a
//!   [`crate::reader::Reader`]). At most `workers` run at once; at most `queue` more wait;
//!   one client (IP address) has at most `per_client` admitted. Beyond that a request is
//!   refused at once with `-32005` rather than queued without bound. Each simulation is
//!   bounded by its own cycle limit (the block's cycle cap, what a transaction could use).
//!   The threads live as long as the pool, not as tokio's blocking threads do (those end
//!   after 10 s idle): the PVM compiles its embedded stdlib once per thread, uncharged (it is
//!   the same for every program, so it is not a program's work), so a client must not be
//!   able to buy fresh, cold threads by pausing between calls. With fixed threads that work
//!   happens at most `workers` times in the node's life.
//! - **Connections** ([`Connections`]): at most `total` TCP connections and `per_ip` per
//!   client address; of those at most `ws_total` / `ws_per_ip` may be WebSockets, so
//!   WebSockets can never take the slots HTTP needs. A refused upgrade gets HTTP 429 and the
//!   connection is closed.
//! - **Idle connections**: a connection from which nothing was read for `idle` and that holds
//!   no subscription is closed ([`Conn`], [`IdleStream`]); that covers idle keep-alive HTTP
//!   connections and idle WebSockets alike.
//!
//! Counters live in one `std::sync::Mutex` held for a few instructions; nothing here awaits
//! while holding it.

use std::collections::BTreeMap;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Mutex, OnceLock};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use futures::task::AtomicWaker;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::sync::Semaphore;

/// The RPC's limits (see the module docs); `Default` is what `cowboyd` uses unless told.
#[derive(Clone, Debug)]
pub struct RpcLimits {
    /// Simulations and heavy reads running at once.
    pub workers: usize,
    /// Admitted beyond those running (waiting for a worker).
    pub queue: usize,
    /// Admitted (running or waiting) per client address.
    pub per_client: usize,
    /// TCP connections in all.
    pub total: usize,
    /// TCP connections per client address.
    pub per_ip: usize,
    /// WebSocket connections in all.
    pub ws_total: usize,
    /// WebSocket connections per client address.
    pub ws_per_ip: usize,
    /// Close a connection with no subscription after this long without a byte from it.
    pub idle: Duration,
}

impl Default for RpcLimits {
    fn default() -> Self {
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        Self {
            // Leave at least half the cores to block production.
            workers: (cores / 2).max(1),
            queue: 64,
            per_client: 16,
            total: 1024,
            per_ip: 128,
            ws_total: 256,
            ws_per_ip: 32,
            idle: Duration::from_secs(60),
        }
    }
}

/// Why a request was not run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refused {
    /// The pool's queue is full.
    Busy,
    /// This client has `per_client` requests admitted already.
    ClientBusy,
    /// The work panicked or the runtime is shutting down.
    Failed,
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Refused::Busy => "the node's RPC workers are busy; retry later",
            Refused::ClientBusy => "too many requests of this client in progress; retry later",
            Refused::Failed => "the request's worker failed",
        })
    }
}

#[derive(Default)]
struct Counts {
    conns: usize,
    ws: usize,
    heavy: usize,
}

/// Per-client and total counters shared by the pool and the connection limits.
#[derive(Default)]
struct Table {
    by_ip: BTreeMap<IpAddr, Counts>,
    conns: usize,
    ws: usize,
}

impl Table {
    fn with<T>(table: &Mutex<Table>, f: impl FnOnce(&mut Table) -> T) -> T {
        let mut t = table.lock().unwrap_or_else(|p| p.into_inner());
        f(&mut t)
    }

    fn tidy(&mut self, ip: IpAddr) {
        if self
            .by_ip
            .get(&ip)
            .is_some_and(|c| c.conns == 0 && c.ws == 0 && c.heavy == 0)
        {
            self.by_ip.remove(&ip);
        }
    }
}

/// The bounded pool of blocking workers (see the module docs).
#[derive(Clone)]
pub struct WorkerPool {
    limits: RpcLimits,
    running: Arc<Semaphore>,
    admitted: Arc<Semaphore>,
    table: Arc<Mutex<Table>>,
    /// Where jobs go to the worker threads, which start at the first job (they need the
    /// runtime's handle: state reads use its blocking file I/O) and end with the last clone.
    jobs: Arc<OnceLock<mpsc::Sender<Job>>>,
}

/// Work for a worker thread; it sends its own result back.
type Job = Box<dyn FnOnce() + Send>;

/// Start `n` worker threads taking jobs from one queue, inside `runtime`. A thread the OS
/// refuses is one worker fewer; with none, every job is refused (`Failed`), not lost.
fn start_workers(n: usize, runtime: tokio::runtime::Handle) -> mpsc::Sender<Job> {
    let (send, recv) = mpsc::channel::<Job>();
    let recv = Arc::new(Mutex::new(recv));
    for i in 0..n {
        let recv = recv.clone();
        let runtime = runtime.clone();
        let _ = std::thread::Builder::new()
            .name(format!("rpc-worker-{i}"))
            .spawn(move || {
                let _entered = runtime.enter();
                loop {
                    // The lock is held only while waiting for the next job, not while it runs.
                    let job = match recv.lock().unwrap_or_else(|p| p.into_inner()).recv() {
                        Ok(job) => job,
                        Err(_) => return, // every sender is gone: the pool was dropped
                    };
                    // A panicking job loses its result (the caller sees `Failed`), not the thread.
                    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job));
                }
            });
    }
    send
}

/// A client's slot in the pool, released on drop.
struct ClientSlot {
    table: Arc<Mutex<Table>>,
    ip: Option<IpAddr>,
}

impl Drop for ClientSlot {
    fn drop(&mut self) {
        if let Some(ip) = self.ip {
            Table::with(&self.table, |t| {
                if let Some(c) = t.by_ip.get_mut(&ip) {
                    c.heavy = c.heavy.saturating_sub(1);
                }
                t.tidy(ip);
            });
        }
    }
}

impl WorkerPool {
    /// A pool with `limits`.
    pub fn new(limits: &RpcLimits) -> Self {
        Self {
            limits: limits.clone(),
            running: Arc::new(Semaphore::new(limits.workers.max(1))),
            admitted: Arc::new(Semaphore::new(limits.workers.max(1) + limits.queue)),
            table: Arc::new(Mutex::new(Table::default())),
            jobs: Arc::new(OnceLock::new()),
        }
    }

    /// Run `work` on a blocking worker for `client`, or refuse at once when the pool or the
    /// client's share is full. The worker keeps its slot until `work` returns, even if the
    /// caller has gone.
    pub async fn run<T: Send + 'static>(
        &self,
        client: Option<IpAddr>,
        work: impl FnOnce() -> T + Send + 'static,
    ) -> Result<T, Refused> {
        let per_client = self.limits.per_client;
        let admitted = Table::with(&self.table, |t| {
            let Some(ip) = client else { return true };
            let c = t.by_ip.entry(ip).or_default();
            if c.heavy >= per_client {
                t.tidy(ip);
                return false;
            }
            c.heavy += 1;
            true
        });
        if !admitted {
            return Err(Refused::ClientBusy);
        }
        let slot = ClientSlot {
            table: self.table.clone(),
            ip: client,
        };
        let queued = self
            .admitted
            .clone()
            .try_acquire_owned()
            .map_err(|_| Refused::Busy)?;
        let running = self
            .running
            .clone()
            .acquire_owned()
            .await
            .map_err(|_| Refused::Failed)?;
        let (done, result) = tokio::sync::oneshot::channel();
        let job: Job = Box::new(move || {
            let _held = (slot, queued, running);
            let _ = done.send(work());
        });
        let workers = self.limits.workers.max(1);
        let jobs = self
            .jobs
            .get_or_init(|| start_workers(workers, tokio::runtime::Handle::current()));
        jobs.send(job).map_err(|_| Refused::Failed)?;
        result.await.map_err(|_| Refused::Failed)
    }
}

/// A connection's state, shared by its stream, its watchdog and its request handlers (as a
/// request extension).
pub struct Conn {
    /// The client's address.
    pub ip: IpAddr,
    epoch: Instant,
    last_read_ms: AtomicU64,
    subscriptions: AtomicUsize,
    closed: AtomicBool,
    gone: AtomicBool,
    waker: AtomicWaker,
}

impl Conn {
    fn touch(&self) {
        let now = u64::try_from(self.epoch.elapsed().as_millis()).unwrap_or(u64::MAX);
        self.last_read_ms.store(now, Ordering::Relaxed);
    }

    fn idle_for(&self) -> Duration {
        let last = self.last_read_ms.load(Ordering::Relaxed);
        self.epoch
            .elapsed()
            .saturating_sub(Duration::from_millis(last))
    }

    /// Note a subscription for as long as the guard lives (a subscribed connection is never
    /// idle).
    pub fn subscribed(self: &Arc<Self>) -> SubscriptionGuard {
        self.subscriptions.fetch_add(1, Ordering::Relaxed);
        SubscriptionGuard(self.clone())
    }

    fn close(&self) {
        self.closed.store(true, Ordering::Release);
        self.waker.wake();
    }
}

/// See [`Conn::subscribed`].
pub struct SubscriptionGuard(Arc<Conn>);

impl Drop for SubscriptionGuard {
    fn drop(&mut self) {
        self.0.subscriptions.fetch_sub(1, Ordering::Relaxed);
        self.0.touch();
    }
}

/// Connection counters (see the module docs).
#[derive(Clone)]
pub struct Connections {
    limits: RpcLimits,
    table: Arc<Mutex<Table>>,
}

/// A TCP connection's slot, released when the connection's stream is dropped.
pub struct ConnSlot {
    table: Arc<Mutex<Table>>,
    conn: Arc<Conn>,
}

impl Drop for ConnSlot {
    fn drop(&mut self) {
        self.conn.gone.store(true, Ordering::Release);
        let ip = self.conn.ip;
        Table::with(&self.table, |t| {
            t.conns = t.conns.saturating_sub(1);
            if let Some(c) = t.by_ip.get_mut(&ip) {
                c.conns = c.conns.saturating_sub(1);
            }
            t.tidy(ip);
        });
    }
}

/// A WebSocket's slot, released when the session ends.
pub struct WsSlot {
    table: Arc<Mutex<Table>>,
    ip: IpAddr,
}

impl Drop for WsSlot {
    fn drop(&mut self) {
        let ip = self.ip;
        Table::with(&self.table, |t| {
            t.ws = t.ws.saturating_sub(1);
            if let Some(c) = t.by_ip.get_mut(&ip) {
                c.ws = c.ws.saturating_sub(1);
            }
            t.tidy(ip);
        });
    }
}

impl Connections {
    /// Counters for `limits`.
    pub fn new(limits: &RpcLimits) -> Self {
        Self {
            limits: limits.clone(),
            table: Arc::new(Mutex::new(Table::default())),
        }
    }

    /// Admit a TCP connection from `ip`, or `None` when the total or the address's share is
    /// full.
    pub fn accept(&self, ip: IpAddr) -> Option<ConnSlot> {
        let (total, per_ip) = (self.limits.total, self.limits.per_ip);
        let ok = Table::with(&self.table, |t| {
            let c = t.by_ip.entry(ip).or_default();
            if t.conns >= total || c.conns >= per_ip {
                t.tidy(ip);
                return false;
            }
            c.conns += 1;
            t.conns += 1;
            true
        });
        ok.then(|| {
            let conn = Arc::new(Conn {
                ip,
                epoch: Instant::now(),
                last_read_ms: AtomicU64::new(0),
                subscriptions: AtomicUsize::new(0),
                closed: AtomicBool::new(false),
                gone: AtomicBool::new(false),
                waker: AtomicWaker::new(),
            });
            ConnSlot {
                table: self.table.clone(),
                conn,
            }
        })
    }

    /// Admit a WebSocket upgrade from `ip`, or `None` when the WebSocket total or the
    /// address's share is full.
    pub fn upgrade(&self, ip: IpAddr) -> Option<WsSlot> {
        let (total, per_ip) = (self.limits.ws_total, self.limits.ws_per_ip);
        let ok = Table::with(&self.table, |t| {
            let c = t.by_ip.entry(ip).or_default();
            if t.ws >= total || c.ws >= per_ip {
                t.tidy(ip);
                return false;
            }
            c.ws += 1;
            t.ws += 1;
            true
        });
        ok.then(|| WsSlot {
            table: self.table.clone(),
            ip,
        })
    }

    /// Close the connection once it has been idle (nothing read, no subscription) for the
    /// idle limit; returns when the connection is gone.
    pub async fn watch_idle(&self, conn: Arc<Conn>) {
        let idle = self.limits.idle;
        let tick = (idle / 4).max(Duration::from_millis(50));
        loop {
            tokio::time::sleep(tick).await;
            if conn.gone.load(Ordering::Acquire) {
                return;
            }
            if conn.subscriptions.load(Ordering::Relaxed) == 0 && conn.idle_for() >= idle {
                conn.close();
                return;
            }
        }
    }
}

/// A TCP stream that records when the client last sent something and that the watchdog can
/// close (reads then see end of stream, writes fail), even after the connection was handed
/// to a WebSocket task.
pub struct IdleStream<S> {
    inner: S,
    slot: ConnSlot,
}

impl<S> IdleStream<S> {
    /// Wrap `inner`, holding `slot` for the connection's life.
    pub fn new(inner: S, slot: ConnSlot) -> Self {
        slot.conn.touch();
        Self { inner, slot }
    }

    /// The connection's shared state.
    pub fn conn(&self) -> Arc<Conn> {
        self.slot.conn.clone()
    }
}

fn closed_error() -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::TimedOut, "idle connection closed")
}

impl<S: AsyncRead + Unpin> AsyncRead for IdleStream<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let conn = self.slot.conn.clone();
        conn.waker.register(cx.waker());
        if conn.closed.load(Ordering::Acquire) {
            return Poll::Ready(Ok(()));
        }
        let before = buf.filled().len();
        let r = Pin::new(&mut self.inner).poll_read(cx, buf);
        if matches!(r, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            conn.touch();
        }
        r
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for IdleStream<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        data: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        if self.slot.conn.closed.load(Ordering::Acquire) {
            return Poll::Ready(Err(closed_error()));
        }
        Pin::new(&mut self.inner).poll_write(cx, data)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits() -> RpcLimits {
        RpcLimits {
            workers: 1,
            queue: 1,
            per_client: 2,
            total: 3,
            per_ip: 2,
            ws_total: 2,
            ws_per_ip: 1,
            idle: Duration::from_secs(60),
        }
    }

    #[test]
    fn connection_and_websocket_shares_are_bounded_and_released() {
        let c = Connections::new(&limits());
        let (a, b) = (IpAddr::from([10, 0, 0, 1]), IpAddr::from([10, 0, 0, 2]));
        let a1 = c.accept(a).unwrap();
        let _a2 = c.accept(a).unwrap();
        assert!(c.accept(a).is_none(), "per address");
        let _b1 = c.accept(b).unwrap();
        assert!(c.accept(b).is_none(), "in all");
        drop(a1);
        assert!(c.accept(b).is_some());
        let w = c.upgrade(a).unwrap();
        assert!(c.upgrade(a).is_none(), "websockets per address");
        let _wb = c.upgrade(b).unwrap();
        drop(w);
        assert!(c.upgrade(a).is_some());
    }

    #[tokio::test]
    async fn the_pool_refuses_beyond_its_queue_and_a_clients_share() {
        let pool = WorkerPool::new(&limits());
        let ip = Some(IpAddr::from([10, 0, 0, 3]));
        let (tx, rx) = std::sync::mpsc::channel::<()>();
        let rx = Arc::new(Mutex::new(rx));
        let block = |rx: Arc<Mutex<std::sync::mpsc::Receiver<()>>>| {
            move || {
                let _ = rx.lock().unwrap().recv();
            }
        };
        let p = pool.clone();
        let r1 = rx.clone();
        let first = tokio::spawn(async move { p.run(ip, block(r1)).await });
        let p = pool.clone();
        let r2 = rx.clone();
        let second = tokio::spawn(async move { p.run(ip, block(r2)).await });
        tokio::time::sleep(Duration::from_millis(100)).await;
        assert_eq!(pool.run(ip, || ()).await, Err(Refused::ClientBusy));
        let other = Some(IpAddr::from([10, 0, 0, 4]));
        assert_eq!(pool.run(other, || ()).await, Err(Refused::Busy));
        tx.send(()).unwrap();
        tx.send(()).unwrap();
        first.await.unwrap().unwrap();
        second.await.unwrap().unwrap();
        assert_eq!(pool.run(other, || 7).await, Ok(7));
    }

    /// Work runs on the pool's own threads, so what a thread caches (the PVM's compiled
    /// stdlib) is paid once per worker, not once per request; a panic loses one result only.
    #[tokio::test]
    async fn work_runs_on_the_pools_fixed_threads_and_survives_a_panic() {
        let mut l = limits();
        l.workers = 2;
        let pool = WorkerPool::new(&l);
        let mut threads = std::collections::BTreeSet::new();
        for i in 0..20 {
            let name = pool.run(None, || std::thread::current().name().map(String::from));
            threads.insert(name.await.unwrap().unwrap_or_default());
            if i == 10 {
                let panicked = pool.run(None, || panic!("a job that panics")).await;
                assert_eq!(panicked, Err::<(), _>(Refused::Failed));
            }
        }
        // Named pool threads, not tokio's blocking threads (which end after 10 s idle).
        let ours = ["rpc-worker-0", "rpc-worker-1"].map(String::from);
        assert!(threads.iter().all(|t| ours.contains(t)), "{threads:?}");
        assert_eq!(pool.run(None, || 7).await, Ok(7));
    }
}
