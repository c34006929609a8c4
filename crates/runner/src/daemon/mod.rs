//! The runner daemon: one loop per runner that follows the chain and moves every job it is
//! assigned through CIP-2 §8 — execute, sign, commit, push the result to the aggregator (or,
//! as the aggregator, collect, pick the verified result and submit it), and reveal its own
//! when the aggregator stays silent. The Python SDK's `cowboy.runner.serve` is the same
//! protocol in a few hundred lines; this is its production form (README, "Design").
//!
//! * **Following.** A WebSocket subscription to `newHeads` drives the loop (each finalized
//!   block is a tick) and one to the dispatcher's `JobAssigned` events starts work at once. On
//!   every tick, and on every (re)connection, the `JobAssigned` events from the journal's
//!   cursor to the head are read by range, so nothing is missed across disconnects and
//!   restarts; the cursor moves only after they are recorded.
//! * **Deciding.** Every step of a job is decided afresh from the job's record on chain
//!   (`get_job`) and the journal ([`journal`]): what the chain already has is never sent
//!   again, what the journal says was started is never started again.
//! * **Bounds.** At most `max_concurrent_jobs` executions at once (a semaphore: the profile's
//!   own declaration); each within the job's wall time ([`work`]) and within the time left
//!   to commit before the job's deadline ([`clock`]); the inbox bounded as its module says.

pub mod chain;
pub mod clock;
pub mod config;
pub mod inbox;
pub mod journal;
pub mod metrics;
pub mod reveal;
pub mod simulate;
pub mod work;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use cowboy_exec::system::dispatcher::job::{Job, Status};
use cowboy_exec::system::runners::records::{Fields, Profile};
use cowboy_types::cbor::Value;
use cowboy_types::system::{JOB_DISPATCHER, RESULT_VERIFIER, RUNNER_REGISTRY};
use cowboy_types::Hash32;
use jsonrpsee_core::client::{Subscription, SubscriptionClientT};
use jsonrpsee_core::params::ArrayParams;
use jsonrpsee_ws_client::WsClientBuilder;
use serde_json::{json, Value as Json};
use tokio::net::TcpListener;
use tokio::sync::{mpsc, Semaphore};
use tracing::{info, warn};

use self::chain::{assigned, bytes, hex0x, unhex, Assigned, Chain, ChainError, SignedTx};
use self::clock::BlockClock;
use self::config::{Config, ConfigError, Keys};
use self::inbox::{registered_key, Inbox, PushError};
use self::journal::{Entry, Journal, JournalError};
use self::metrics::Metrics;
use self::reveal::{ResultKey, Reveal};
use self::simulate::Behaviour;
use self::work::{job_of, revealed, Executors};

/// Most blocks one `cowboy_getEvents` query may span (the node's cap).
const EVENT_RANGE: u64 = 10_000;
/// The aggregator's window when the chain no longer shows it (genesis
/// `aggregator_timeout_blocks`).
const DEFAULT_WINDOW: u64 = 20;
/// Longest wait between reconnections.
const MAX_BACKOFF: Duration = Duration::from_secs(5);
/// Jobs stepped at once (each step is a few RPC reads; the node admits 16 requests per client
/// at a time).
const CONCURRENT_STEPS: usize = 4;

/// Why the daemon stopped.
#[derive(Debug)]
pub enum DaemonError {
    /// The configuration or key file.
    Config(ConfigError),
    /// The journal.
    Journal(JournalError),
    /// The chain, at start.
    Chain(ChainError),
    /// The inbox could not listen (address and reason).
    Listen(String),
    /// The registration on chain cannot serve this configuration (why).
    Registration(String),
}

impl std::fmt::Display for DaemonError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DaemonError::Config(e) => write!(f, "config: {e}"),
            DaemonError::Journal(e) => write!(f, "{e}"),
            DaemonError::Chain(e) => write!(f, "chain: {e}"),
            DaemonError::Listen(e) => write!(f, "listen: {e}"),
            DaemonError::Registration(e) => write!(f, "registration: {e}"),
        }
    }
}

impl std::error::Error for DaemonError {}

impl From<ConfigError> for DaemonError {
    fn from(e: ConfigError) -> Self {
        DaemonError::Config(e)
    }
}
impl From<JournalError> for DaemonError {
    fn from(e: JournalError) -> Self {
        DaemonError::Journal(e)
    }
}
impl From<ChainError> for DaemonError {
    fn from(e: ChainError) -> Self {
        DaemonError::Chain(e)
    }
}

/// Why one step of one job could not be taken (it is tried again at the next tick).
#[derive(Debug)]
enum StepError {
    Chain(ChainError),
    Journal(JournalError),
}

impl From<ChainError> for StepError {
    fn from(e: ChainError) -> Self {
        StepError::Chain(e)
    }
}
impl From<JournalError> for StepError {
    fn from(e: JournalError) -> Self {
        StepError::Journal(e)
    }
}

impl std::fmt::Display for StepError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StepError::Chain(e) => write!(f, "{e}"),
            StepError::Journal(e) => write!(f, "{e}"),
        }
    }
}

/// Where a journaled transaction stands.
enum TxState {
    /// In a finalized block, successful.
    Included,
    /// In a finalized block, failed (the error).
    Failed(String),
    /// Not yet in a block (sent again, in case the node lost it).
    Pending,
    /// Its nonce went to another transaction: it will never be included.
    Lost,
}

/// A running daemon.
pub struct Daemon {
    cfg: Config,
    chain: Arc<Chain>,
    key: ResultKey,
    journal: Mutex<Journal>,
    inbox: Arc<Inbox>,
    metrics: Arc<Metrics>,
    executors: Executors,
    slots: Arc<Semaphore>,
    push: reqwest::Client,
    executing: Mutex<BTreeSet<Hash32>>,
    /// Jobs with a step under way (one step per job at a time), and whether another was
    /// asked for meanwhile.
    stepping: Mutex<BTreeMap<Hash32, bool>>,
    step_slots: Arc<Semaphore>,
    windows: Mutex<BTreeMap<Hash32, u64>>,
    clock: Mutex<BlockClock>,
    head: AtomicU64,
    last_beat: AtomicU64,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// A field of a CBOR map (exec's own accessor).
fn field<'a>(v: &'a Value, name: &str) -> Option<&'a Value> {
    Fields::of(v)?.get(name)
}

/// Runs the daemon until the process ends: starts the inbox, checks the registration, then
/// follows the chain, reconnecting after any failure.
pub async fn run(cfg: Config, keys: Keys, executors: Executors) -> Result<(), DaemonError> {
    let chain = Arc::new(Chain::connect(&cfg.node, keys.account).await?);
    cfg.simulate
        .behaviour
        .allowed_on(chain.chain_id)
        .map_err(|e| ConfigError::Field("simulate.behaviour".into(), e))?;
    // Every model the runner serves must be in the model registry, and not retired.
    if let Some(llm) = &executors.llm {
        for model in llm.models() {
            let args = Value::Array(vec![bytes(&model.0)]);
            let record = chain.call(RUNNER_REGISTRY, "model", args).await?;
            llm.check_registered(model, &record)
                .map_err(|e| DaemonError::Registration(e.to_string()))?;
        }
    }
    let journal = Journal::open(&cfg.data_dir)?;
    let listener = TcpListener::bind(cfg.listen)
        .await
        .map_err(|e| DaemonError::Listen(format!("{}: {e}", cfg.listen)))?;
    // A push is one small POST: an aggregator that cannot take it within a second is treated
    // as silent for this step (the member retries, and self-reveals once the window passes).
    let push = reqwest::Client::builder()
        .timeout(Duration::from_secs(1))
        .no_proxy()
        .build()
        .map_err(|e| DaemonError::Listen(format!("HTTP client: {e}")))?;
    let slots = Arc::new(Semaphore::new(
        usize::try_from(cfg.profile.max_concurrent_jobs.max(1)).unwrap_or(usize::MAX),
    ));
    // Finished executions and accepted deliveries: each wakes its job's next step.
    let (done_tx, mut done_rx) = mpsc::unbounded_channel();
    let d = Arc::new(Daemon {
        chain,
        key: keys.result,
        journal: Mutex::new(journal),
        inbox: Arc::new(Inbox::new(done_tx.clone())),
        metrics: Arc::new(Metrics::default()),
        executors,
        slots,
        push,
        executing: Mutex::new(BTreeSet::new()),
        stepping: Mutex::new(BTreeMap::new()),
        step_slots: Arc::new(Semaphore::new(CONCURRENT_STEPS)),
        windows: Mutex::new(BTreeMap::new()),
        clock: Mutex::new(BlockClock::default()),
        head: AtomicU64::new(0),
        last_beat: AtomicU64::new(0),
        cfg,
    });
    tokio::spawn(inbox::serve(
        listener,
        d.inbox.clone(),
        d.chain.clone(),
        d.metrics.clone(),
    ));
    d.ensure_registered().await?;
    info!(runner = %hex0x(&d.chain.address.0), endpoint = %d.cfg.endpoint(),
          behaviour = %d.cfg.simulate.behaviour, "started");
    let mut backoff = Duration::from_millis(100);
    loop {
        match d.follow(&done_tx, &mut done_rx).await {
            Ok(()) => backoff = Duration::from_millis(100),
            Err(e) => {
                warn!(error = %e, "following the chain failed; reconnecting");
                backoff = (backoff * 2).min(MAX_BACKOFF);
            }
        }
        tokio::time::sleep(backoff).await;
    }
}

impl Daemon {
    fn me(&self) -> cowboy_types::Address {
        self.chain.address
    }

    fn entry(&self, job: &Hash32) -> Option<Entry> {
        lock(&self.journal).get(job).cloned()
    }

    fn put(&self, job: Hash32, e: Entry) -> Result<(), JournalError> {
        lock(&self.journal).put(job, e)
    }

    /// Registers, or checks the registration against the configuration and updates it.
    async fn ensure_registered(&self) -> Result<(), DaemonError> {
        let (caps, rates) = self.cfg.checked_profile()?;
        let me = self.me();
        let record = self.chain.runner(&me).await?;
        let status = record.as_ref().and_then(|r| match field(r, "status") {
            Some(Value::Text(s)) => Some(s.clone()),
            _ => None,
        });
        match (record, status.as_deref()) {
            (None, _) | (Some(_), Some("exited")) => {
                if !self.cfg.register {
                    return Err(DaemonError::Registration(format!(
                        "{} is not a registered runner (set register = true and a stake)",
                        hex0x(&me.0)
                    )));
                }
                let mut args = vec![bytes(&self.key.public())];
                args.extend(self.cfg.profile_args()?);
                let tx = self
                    .chain
                    .send(
                        RUNNER_REGISTRY,
                        "register",
                        Value::Array(args),
                        self.cfg.stake.0,
                    )
                    .await?;
                self.wait_receipt(&tx, "register").await?;
                Metrics::count(&self.metrics.transactions, "register");
                info!(tx = %tx.hash, stake = %self.cfg.stake.0, "registered");
            }
            (Some(record), Some("active")) => {
                if registered_key(&record) != Some(self.key.public()) {
                    return Err(DaemonError::Registration(
                        "the result key is not the one registered (a key is fixed for a \
                         registration)"
                            .into(),
                    ));
                }
                let chain = Profile::from_value(&record).map_err(|e| {
                    DaemonError::Registration(format!("get_runner's profile: {e:?}"))
                })?;
                let p = &self.cfg.profile;
                let same = chain.job_types == caps.job_types
                    && chain.models == caps.models
                    && chain.domains == caps.domains
                    && chain.tee == caps.tee
                    && chain.endpoint == caps.endpoint
                    && chain.rates == rates
                    && chain.max_concurrent_jobs == p.max_concurrent_jobs
                    && chain.max_job_value == p.max_job_value.0
                    && chain.commission_bps == p.commission_bps;
                if !same {
                    let tx = self
                        .chain
                        .send(
                            RUNNER_REGISTRY,
                            "update",
                            Value::Array(self.cfg.profile_args()?),
                            0,
                        )
                        .await?;
                    self.wait_receipt(&tx, "update").await?;
                    Metrics::count(&self.metrics.transactions, "update");
                    info!(tx = %tx.hash, "profile updated to the configuration");
                }
                let beat = field(&record, "last_heartbeat")
                    .and_then(Value::as_u64)
                    .unwrap_or(0);
                self.last_beat.store(beat, Ordering::Relaxed);
            }
            (Some(_), other) => {
                return Err(DaemonError::Registration(format!(
                    "the runner is {}, not active",
                    other.unwrap_or("in an unknown state")
                )))
            }
        }
        Ok(())
    }

    /// Waits for a start-up transaction's receipt (a minute at most); a failed one is an
    /// error naming it.
    async fn wait_receipt(&self, tx: &SignedTx, what: &str) -> Result<(), DaemonError> {
        for _ in 0..600 {
            if let Some(r) = self.chain.receipt(&tx.hash).await? {
                return if r.success {
                    Ok(())
                } else {
                    Err(DaemonError::Registration(format!(
                        "{what} failed: {}",
                        r.error
                    )))
                };
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        Err(DaemonError::Registration(format!(
            "{what}: no receipt for {} after a minute",
            tx.hash
        )))
    }

    /// One connection's life: subscribe, catch up, then react to blocks, assignments and
    /// finished executions until the connection fails.
    async fn follow(
        self: &Arc<Self>,
        done_tx: &mpsc::UnboundedSender<Hash32>,
        done_rx: &mut mpsc::UnboundedReceiver<Hash32>,
    ) -> Result<(), ChainError> {
        let ws_err = |e: jsonrpsee_core::client::Error| ChainError::Transport {
            method: "cowboy_subscribe",
            reason: e.to_string(),
        };
        let ws = WsClientBuilder::default()
            .build(self.chain.ws_url())
            .await
            .map_err(ws_err)?;
        let mut heads: Subscription<Json> = ws
            .subscribe(
                "cowboy_subscribe",
                params(vec![json!("newHeads")])?,
                "cowboy_unsubscribe",
            )
            .await
            .map_err(ws_err)?;
        let filter = json!({"address": hex0x(&JOB_DISPATCHER.0), "topic": "JobAssigned"});
        let mut assignments: Subscription<Json> = ws
            .subscribe(
                "cowboy_subscribe",
                params(vec![json!("events"), filter])?,
                "cowboy_unsubscribe",
            )
            .await
            .map_err(ws_err)?;
        let head = self.chain.height().await?;
        self.time_blocks(head).await?;
        self.tick(head, done_tx).await;
        let closed = |what: &str| ChainError::Transport {
            method: "cowboy_subscribe",
            reason: format!("the {what} subscription ended"),
        };
        loop {
            tokio::select! {
                block = heads.next() => match block {
                    Some(Ok(b)) => match b["height"].as_u64() {
                        Some(h) => {
                            if let Some(t) = b["timestamp"].as_u64() {
                                lock(&self.clock).observe(h, t, Instant::now());
                            }
                            self.tick(h, done_tx).await
                        }
                        None => warn!("a newHeads notification without a height"),
                    },
                    _ => return Err(closed("newHeads")),
                },
                event = assignments.next() => match event {
                    Some(Ok(ev)) => self.on_assignment(&ev, done_tx).await,
                    _ => return Err(closed("events")),
                },
                Some(job) = done_rx.recv() => self.spawn_step(job, done_tx),
            }
        }
    }

    /// Seeds the block-time estimate from the head and the block [`clock::WINDOW`] before it
    /// (never the genesis, whose timestamp is the chain's configured start, not a block's),
    /// and, on a dev chain, asks whether blocks come on demand (then deadlines cap nothing).
    async fn time_blocks(&self, head: u64) -> Result<(), ChainError> {
        if self.chain.chain_id == simulate::DEV_CHAIN_ID {
            let mining = self.chain.request("dev_mining", json!([])).await?;
            lock(&self.clock).set_on_demand(mining["mode"] == "onDemand");
        }
        let from = head.saturating_sub(clock::WINDOW as u64 - 1).max(1);
        if from >= head {
            return Ok(());
        }
        let (Some(then), Some(now)) = (
            self.chain.timestamp(from).await?,
            self.chain.timestamp(head).await?,
        ) else {
            return Ok(());
        };
        let mut clock = lock(&self.clock);
        clock.observe(head, now, Instant::now());
        clock.seed(from, then);
        Ok(())
    }

    /// A `JobAssigned` notification: start at once if it names this runner (the tick's range
    /// read would find it too, a block later).
    async fn on_assignment(self: &Arc<Self>, ev: &Json, done_tx: &mpsc::UnboundedSender<Hash32>) {
        let height = ev["blockHeight"].as_u64().unwrap_or(0);
        let Some(a) = ev["data"]
            .as_str()
            .and_then(unhex)
            .and_then(|d| cowboy_types::cbor::decode(&d).ok())
            .and_then(|v| assigned(&v))
        else {
            warn!("a JobAssigned event that does not decode");
            return;
        };
        if a.runners.contains(&self.me()) {
            if let Err(e) = self.track(&a, height) {
                warn!(error = %e, "journal");
                return;
            }
            self.spawn_step(a.job, done_tx);
        }
    }

    /// Starts tracking an assignment (once: a job already in the journal keeps its record).
    fn track(&self, a: &Assigned, height: u64) -> Result<(), JournalError> {
        if a.aggregator == self.me() {
            self.inbox.expect(a.job, &a.runners);
        }
        let mut j = lock(&self.journal);
        if j.get(&a.job).is_none() {
            info!(job = %a.job, aggregator = a.aggregator == self.me(), "assigned");
            j.put(
                a.job,
                Entry {
                    seen_at: height,
                    ..Entry::default()
                },
            )?;
        }
        Ok(())
    }

    /// One finalized block: read the assignments since the cursor, heartbeat when due, and
    /// step every job in flight.
    async fn tick(self: &Arc<Self>, head: u64, done_tx: &mpsc::UnboundedSender<Hash32>) {
        self.head.fetch_max(head, Ordering::Relaxed);
        if let Err(e) = self.catch_up(head).await {
            warn!(error = %e, "reading assignments");
        }
        self.heartbeat(head).await;
        let open: Vec<Hash32> = lock(&self.journal)
            .entries()
            .iter()
            .filter(|(_, e)| !e.done)
            .map(|(id, _)| *id)
            .collect();
        self.metrics
            .in_flight
            .set(i64::try_from(open.len()).unwrap_or(i64::MAX));
        for job in open {
            self.spawn_step(job, done_tx);
        }
        let keep = self.cfg.keep_finished_blocks;
        if let Err(e) = lock(&self.journal).prune(keep) {
            warn!(error = %e, "pruning the journal");
        }
    }

    /// Reads the `JobAssigned` events from the cursor to `head`, records this runner's, and
    /// moves the cursor.
    async fn catch_up(&self, head: u64) -> Result<(), StepError> {
        let mut from = lock(&self.journal).cursor() + 1;
        while from <= head {
            let to = head.min(from + EVENT_RANGE - 1);
            for a in self.chain.assignments(from, to).await? {
                if a.runners.contains(&self.me()) {
                    self.track(&a, to)?;
                }
            }
            lock(&self.journal).set_cursor(to)?;
            from = to + 1;
        }
        Ok(())
    }

    async fn heartbeat(&self, head: u64) {
        let last = self.last_beat.load(Ordering::Relaxed);
        if head < last + self.cfg.heartbeat_every_blocks {
            return;
        }
        match self
            .chain
            .send(RUNNER_REGISTRY, "heartbeat", Value::Array(vec![]), 0)
            .await
        {
            Ok(tx) => {
                self.last_beat.store(head, Ordering::Relaxed);
                Metrics::count(&self.metrics.transactions, "heartbeat");
                info!(tx = %tx.hash, action = "heartbeat", "sent");
            }
            Err(e) => warn!(error = %e, "heartbeat"),
        }
    }

    /// Steps `job` in its own task, so a slow job (an aggregator's reads, a push to a slow
    /// inbox) never holds up the others or the loop. One step per job at a time: asked for
    /// while one runs, the job is stepped once more when it ends.
    fn spawn_step(self: &Arc<Self>, job: Hash32, done_tx: &mpsc::UnboundedSender<Hash32>) {
        {
            let mut stepping = lock(&self.stepping);
            if let Some(again) = stepping.get_mut(&job) {
                *again = true;
                return;
            }
            stepping.insert(job, false);
        }
        let (d, done_tx) = (self.clone(), done_tx.clone());
        tokio::spawn(async move {
            loop {
                let permit = d.step_slots.clone().acquire_owned().await;
                if let Err(e) = d.step(job, &done_tx).await {
                    warn!(job = %job, error = %e, "step");
                }
                drop(permit);
                let mut stepping = lock(&d.stepping);
                if stepping.get(&job) == Some(&true) {
                    stepping.insert(job, false);
                    continue;
                }
                stepping.remove(&job);
                return;
            }
        });
    }

    /// The job's next move, from its record on chain and the journal.
    async fn step(
        self: &Arc<Self>,
        id: Hash32,
        done_tx: &mpsc::UnboundedSender<Hash32>,
    ) -> Result<(), StepError> {
        if self.entry(&id).is_none_or(|e| e.done) {
            return Ok(());
        }
        let Some(job) = self.chain.job(&id).await? else {
            return Ok(());
        };
        // Read after the chain: an execution finishing meanwhile has journaled its result.
        let Some(mut e) = self.entry(&id) else {
            return Ok(());
        };
        let me = self.me();
        if job.aggregator == me && matches!(job.status, Status::Assigned | Status::Committed) {
            self.inbox.expect(id, &job.selected);
        }
        match job.status {
            Status::Verified | Status::Failed => self.finish(id, e, job.status.name()),
            Status::Assigned => {
                if job.committed.contains(&me) {
                    return Ok(()); // the rest waits for the job to be committed
                }
                if !job.selected.contains(&me) {
                    return self.finish(id, e, "excluded");
                }
                let Some(reveal) = e.reveal.clone() else {
                    if e.started {
                        // An execution journals its result before it leaves `executing`, so
                        // one that is not running and left no result was cut off by a crash.
                        // It is never run twice: the runner stays silent for this job.
                        let running = lock(&self.executing).contains(&id);
                        let finished = self.entry(&id).is_some_and(|e| e.reveal.is_some());
                        if running || finished {
                            return Ok(()); // its completion steps the job again
                        }
                        warn!(job = %id, "execution was interrupted by a restart; staying silent");
                        return self.finish(id, e, "silent");
                    }
                    if self.cfg.simulate.behaviour == Behaviour::Silent {
                        return self.finish(id, e, "silent");
                    }
                    e.started = true;
                    self.put(id, e)?;
                    self.execute(id, &job, done_tx.clone());
                    return Ok(());
                };
                self.send_journaled(id, &mut e, Slot::Commit, || {
                    Value::Array(vec![bytes(&id.0), bytes(&reveal.commitment().0)])
                })
                .await
            }
            Status::Committed => {
                let Some(mine) = e.reveal.clone() else {
                    return self.finish(id, e, "silent");
                };
                if !job.committed.contains(&me) {
                    return self.finish(id, e, "silent");
                }
                if e.final_tx.is_some() {
                    return self
                        .send_journaled(id, &mut e, Slot::Final("resend"), || Value::Null)
                        .await;
                }
                let window = self.window(&id, &job).await?;
                let head = self.head.load(Ordering::Relaxed);
                if job.aggregator == me {
                    if self.cfg.simulate.behaviour == Behaviour::Withhold {
                        return Ok(()); // collects, never submits: the members self-reveal
                    }
                    self.aggregate(id, &mut e, &job, mine, head, window).await
                } else if head > job.committed_at + window {
                    let args = Value::Array(vec![
                        bytes(&id.0),
                        bytes(&mine.result),
                        mine.usage_value(),
                        bytes(&mine.sig),
                    ]);
                    self.send_journaled(id, &mut e, Slot::Final("reveal"), || args.clone())
                        .await
                } else if !e.delivered {
                    self.deliver(id, e, &job, &mine).await
                } else {
                    Ok(())
                }
            }
        }
    }

    /// Marks a job done (label: how it ended, for the metrics).
    fn finish(&self, id: Hash32, mut e: Entry, label: &'static str) -> Result<(), StepError> {
        e.done = true;
        self.put(id, e)?;
        self.inbox.forget(&id);
        lock(&self.windows).remove(&id);
        Metrics::count(&self.metrics.jobs, label);
        info!(job = %id, outcome = label, "finished");
        Ok(())
    }

    /// Runs the executor in the background, within the concurrency bound and the time left
    /// before the job's commit deadline, then journals the signed result and wakes the job's
    /// next step.
    fn execute(self: &Arc<Self>, id: Hash32, job: &Job, done: mpsc::UnboundedSender<Hash32>) {
        lock(&self.executing).insert(id);
        let d = self.clone();
        let (spec, deadline, assigned_at) = (job.spec.clone(), job.deadline, job.assigned_at);
        tokio::spawn(async move {
            let behaviour = d.cfg.simulate.behaviour;
            let permit = d.slots.clone().acquire_owned().await;
            // Measured once the slot is ours: waiting for it spends the same time.
            let budget = lock(&d.clock).budget(deadline, assigned_at, Instant::now());
            info!(job = %id, action = "execute", budget_ms = budget.map(|b| b.as_millis() as u64),
                  "executing");
            let (outcome, took) = d.executors.run(id, &spec, budget).await;
            drop(permit);
            if let Some(delay) = behaviour.delay() {
                tokio::time::sleep(delay).await;
            }
            // A simulated runner alters what it sends, never what the executor did.
            let job = job_of(id, &spec).map(|(_, job)| job);
            let outcome = behaviour.apply(job.as_ref(), outcome);
            let (result, usage, label) = revealed(outcome);
            Metrics::count(&d.metrics.executions, label);
            d.metrics.execution_seconds.observe(took.as_secs_f64());
            let reveal = d.key.sign(d.chain.chain_id, d.me(), &id, result, usage);
            info!(job = %id, outcome = label, wall_ms = usage.wall_ms, "executed");
            let stored = {
                let mut journal = lock(&d.journal);
                match journal.get(&id).cloned() {
                    Some(mut e) => {
                        e.reveal = Some(reveal);
                        journal.put(id, e)
                    }
                    None => Ok(()),
                }
            };
            if let Err(e) = stored {
                warn!(job = %id, error = %e, "journal: the result is lost; staying silent");
            }
            lock(&d.executing).remove(&id);
            // The loop may have stopped; the next tick steps the job anyway.
            let _ = done.send(id);
        });
    }

    /// The aggregator's window T of a committed job: its finalization timer is due at
    /// `committed_at + 2T + 1` (read once per job).
    async fn window(&self, id: &Hash32, job: &Job) -> Result<u64, ChainError> {
        if let Some(w) = lock(&self.windows).get(id) {
            return Ok(*w);
        }
        let w = match self.chain.timer_due(job.timer_id).await? {
            Some(due) if due > job.committed_at => (due - job.committed_at - 1) / 2,
            _ => DEFAULT_WINDOW,
        };
        lock(&self.windows).insert(*id, w);
        Ok(w)
    }

    /// As the aggregator: once every committed member's result is in (or half the window has
    /// passed), submit them all with the verified result. Which result the mode picks is the
    /// chain's rule, so it is asked rather than re-implemented: each distinct result is
    /// simulated in committee order and the first the verifier does not refuse as
    /// `ResultMismatch` is sent.
    async fn aggregate(
        &self,
        id: Hash32,
        e: &mut Entry,
        job: &Job,
        mine: Reveal,
        head: u64,
        window: u64,
    ) -> Result<(), StepError> {
        let me = self.me();
        let mut commitments = BTreeMap::new();
        for a in job.committed.iter().filter(|a| **a != me) {
            if let Some(c) = self.chain.commitment(&id, a).await? {
                commitments.insert(*a, c);
            }
        }
        let mut have = self.inbox.matching(&id, &commitments);
        have.insert(me, mine);
        let everyone = job.committed.iter().all(|a| have.contains_key(a));
        if !everyone && head <= job.committed_at + window / 2 {
            return Ok(());
        }
        // A result over the job's `max_return_bytes` makes the verifier refuse the whole
        // aggregate (`ResultTooLarge`), so one oversized member would hold up everyone's pay
        // until the self-reveal window. It is left out instead: that member is missing.
        if let Some((_, spec)) = job_of(id, &job.spec) {
            have.retain(|_, r| r.result.len() as u64 <= spec.max_return_bytes);
        }
        let reveals: Vec<Reveal> = job
            .committed
            .iter()
            .filter_map(|a| have.get(a).cloned())
            .collect();
        let entries = Value::Array(reveals.iter().map(Reveal::entry).collect());
        let mut tried: Vec<&[u8]> = Vec::new();
        for r in &reveals {
            if tried.contains(&r.result.as_slice()) {
                continue;
            }
            tried.push(&r.result);
            let args = Value::Array(vec![bytes(&id.0), bytes(&r.result), entries.clone()]);
            match self
                .chain
                .prepare(RESULT_VERIFIER, "submit_verified_result", args, 0)
                .await
            {
                Ok(tx) => {
                    info!(job = %id, reveals = reveals.len(), "aggregating");
                    return self
                        .journal_and_send(id, e, Slot::Final("aggregate"), tx)
                        .await;
                }
                Err(ChainError::Refused { class, .. }) if class == "ResultMismatch" => continue,
                Err(err) => return Err(err.into()),
            }
        }
        warn!(job = %id, "no result among the reveals is the verified one");
        Ok(())
    }

    /// Pushes this runner's result to the aggregator's inbox (its `endpoint` on chain).
    async fn deliver(
        &self,
        id: Hash32,
        mut e: Entry,
        job: &Job,
        mine: &Reveal,
    ) -> Result<(), StepError> {
        let endpoint = match self.chain.runner(&job.aggregator).await? {
            Some(r) => match field(&r, "endpoint") {
                Some(Value::Text(url)) => url.clone(),
                _ => {
                    warn!(job = %id, "the aggregator publishes no endpoint; will self-reveal");
                    e.delivered = true;
                    self.put(id, e)?;
                    return Ok(());
                }
            },
            None => return Ok(()),
        };
        match inbox::push(&self.push, &endpoint, &id, mine).await {
            Ok(()) => {
                self.metrics.delivered.inc();
                info!(job = %id, to = %endpoint, "delivered");
                e.delivered = true;
                self.put(id, e)?;
            }
            // The aggregator may not know the job yet (it restarted): try at the next step.
            Err(PushError::Transient(why)) => warn!(job = %id, error = %why, "delivery"),
            Err(PushError::Refused(404)) => {
                warn!(job = %id, "delivery: aggregator does not know the job yet")
            }
            Err(err @ PushError::Refused(_)) => {
                warn!(job = %id, error = %err, "delivery refused; will self-reveal");
                e.delivered = true;
                self.put(id, e)?;
            }
        }
        Ok(())
    }

    /// Where a journaled transaction stands; a pending one is broadcast again.
    async fn tx_state(&self, tx: &SignedTx) -> Result<TxState, ChainError> {
        match self.chain.receipt(&tx.hash).await? {
            Some(r) if r.success => Ok(TxState::Included),
            Some(r) => Ok(TxState::Failed(r.error)),
            None => match self.chain.broadcast(tx).await {
                Ok(()) => Ok(TxState::Pending),
                Err(ChainError::Node {
                    reason: Some(r), ..
                }) if r == "nonceTooLow" => Ok(TxState::Lost),
                Err(e) => Err(e),
            },
        }
    }

    /// Sends the transaction of `slot` at most once: one already journaled is followed up
    /// (included: wait for the chain to move; failed: the job is done for this runner; lost:
    /// signed again next step); otherwise `args` is signed, journaled, then broadcast.
    async fn send_journaled(
        &self,
        id: Hash32,
        e: &mut Entry,
        slot: Slot,
        args: impl FnOnce() -> Value,
    ) -> Result<(), StepError> {
        if let Some(tx) = slot.get(e).clone() {
            match self.tx_state(&tx).await? {
                TxState::Included | TxState::Pending => {}
                TxState::Failed(why) => {
                    warn!(job = %id, tx = %tx.hash, error = %why, "transaction failed");
                    return self.finish(id, e.clone(), "refused");
                }
                TxState::Lost => {
                    *slot.get_mut(e) = None;
                    self.put(id, e.clone())?;
                }
            }
            return Ok(());
        }
        let (handler, _) = slot.handler();
        let tx = match self
            .chain
            .prepare(RESULT_VERIFIER, handler, args(), 0)
            .await
        {
            Ok(tx) => tx,
            Err(ChainError::Refused { class, message, .. }) => {
                // The chain would refuse it now (too late, already done…): the job's record
                // decides what happens next.
                warn!(job = %id, handler, class = %class, message = %message, "not sent");
                return Ok(());
            }
            Err(err) => return Err(err.into()),
        };
        self.journal_and_send(id, e, slot, tx).await
    }

    async fn journal_and_send(
        &self,
        id: Hash32,
        e: &mut Entry,
        slot: Slot,
        tx: SignedTx,
    ) -> Result<(), StepError> {
        *slot.get_mut(e) = Some(tx.clone());
        self.put(id, e.clone())?;
        self.chain.broadcast(&tx).await?;
        Metrics::count(&self.metrics.transactions, slot.handler().1);
        info!(job = %id, tx = %tx.hash, action = slot.handler().1, "sent");
        Ok(())
    }
}

/// Which journaled transaction of a job.
#[derive(Clone, Copy)]
enum Slot {
    Commit,
    /// The aggregate or the self-reveal (the label says which).
    Final(&'static str),
}

impl Slot {
    fn get(self, e: &Entry) -> &Option<SignedTx> {
        match self {
            Slot::Commit => &e.commit_tx,
            Slot::Final(_) => &e.final_tx,
        }
    }
    fn get_mut(self, e: &mut Entry) -> &mut Option<SignedTx> {
        match self {
            Slot::Commit => &mut e.commit_tx,
            Slot::Final(_) => &mut e.final_tx,
        }
    }
    /// The verifier handler and the metrics label.
    fn handler(self) -> (&'static str, &'static str) {
        match self {
            Slot::Commit => ("commit", "commit"),
            Slot::Final("aggregate") => ("submit_verified_result", "aggregate"),
            Slot::Final(_) => ("reveal", "reveal"),
        }
    }
}

fn params(values: Vec<Json>) -> Result<ArrayParams, ChainError> {
    let mut p = ArrayParams::new();
    for v in values {
        p.insert(v).map_err(|e| ChainError::Reply {
            what: "params".into(),
            reason: e.to_string(),
        })?;
    }
    Ok(p)
}

/// `cowboy-runner status`: the registration on chain and the jobs the journal holds, as JSON.
pub async fn status(cfg: &Config, keys: Keys) -> Result<Json, DaemonError> {
    let chain = Chain::connect(&cfg.node, keys.account).await?;
    let journal = Journal::open(&cfg.data_dir)?;
    let record = chain.runner(&chain.address).await?;
    let head = chain.height().await?;
    let registration = record.as_ref().map(|r| {
        let get = |name: &str| {
            field(r, name)
                .map(cowboy_types::json::to_json)
                .unwrap_or(Json::Null)
        };
        json!({
            "status": get("status"), "self_bond": get("self_bond"),
            "effective_stake": get("effective_stake"), "reputation": get("reputation"),
            "healthy": get("healthy"), "last_heartbeat": get("last_heartbeat"),
            "active_jobs": get("active_jobs"), "endpoint": get("endpoint"),
            "key_matches": registered_key(r) == Some(keys.result.public()),
        })
    });
    let in_flight: Vec<Json> = journal
        .entries()
        .iter()
        .filter(|(_, e)| !e.done)
        .map(|(id, e)| {
            let stage = if e.final_tx.is_some() {
                "revealing"
            } else if e.delivered {
                "delivered"
            } else if e.commit_tx.is_some() {
                "committed"
            } else if e.reveal.is_some() {
                "executed"
            } else if e.started {
                "executing"
            } else {
                "assigned"
            };
            json!({"job": id.to_hex(), "stage": stage, "seen_at": e.seen_at})
        })
        .collect();
    Ok(json!({
        "runner": hex0x(&chain.address.0),
        "head": head,
        "registration": registration,
        "journal": {"cursor": journal.cursor(), "jobs": journal.entries().len(), "in_flight": in_flight},
    }))
}
