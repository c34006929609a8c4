//! When the leader builds its next block, and with what timestamp.
//!
//! The simplex engine asks the application for a proposal as soon as a view starts; the
//! application decides when to answer. [`Mining`] is that decision:
//!
//! - **Interval** (`--block-time MS`, the default 1,000): build once the parent's timestamp plus
//!   the block time has passed.
//! - **On demand** (`--block-time 0`, `--dev` only): build as soon as a transaction enters the
//!   pool ("instant" sealing) and otherwise not at all. The engine's leader timeout is set long
//!   ([`ON_DEMAND_LEADER_TIMEOUT`]) so an idle chain is a proposal the engine keeps waiting for,
//!   not a stream of empty blocks or of timed-out views.
//!
//! In both modes `dev_mine` asks for blocks now ([`Production::request`]): each block built
//! while a request is outstanding consumes one, so `dev_mine(n)` is satisfied by exactly `n`
//! blocks built after it. Empty blocks in on-demand mode are bounded by the transactions that
//! arrive: a block is built for an arrival, and again only while the previous block took
//! transactions and the pool (pruned of them at finalization) still holds some, i.e. more than
//! one block's worth arrived. Transactions that can never be selected (a nonce gap) cost at
//! most one empty block per arrival.
//!
//! **Clock.** A block's timestamp is the wall clock plus the dev clock's offset
//! (`dev_increaseTime`), or the one `dev_setNextBlockTimestamp` fixed, and always at least the
//! parent's plus one millisecond (the block rule wants it strictly later). Execution reads only
//! the header's timestamp, so the offset is a proposer's choice like the wall clock is; a
//! validator compares proposals to the same clock ([`Production::now_ms`]).
//!
//! The clock is the runtime's ([`RuntimeClock`]): the wall clock under `cowboyd`'s tokio
//! runtime, virtual time under commonware's deterministic runtime (the simulations in
//! `tests/devnet/sim.rs`), so what a block is stamped with and when a leader builds follow
//! the runtime a node runs on, never the machine's clock directly.
//!
//! **Build budget.** A leader tries pool transactions for at most a quarter of the leader
//! timeout ([`Production::build_budget`]: 750 ms at the default block time), then seals what
//! it has; the rest stay pooled ([`cowboy_exec::block::build_block`]'s cutoff). A view's
//! proposal must be built, sent, executed again by every verifier and voted on before
//! consensus gives up on it (the leader timeout plus a second), and verifying costs about what
//! building did: a block that takes longer than that to execute would be built again by every
//! leader, each timing out, and the chain would stall on its own pool. Release builds execute
//! hundreds of transfers in a tenth of a second, so the budget binds only on a machine far
//! slower than the pool's load (or a debug build); it never changes which blocks are valid.
//! Under the deterministic runtime the clock does not move while a block builds, so the
//! simulations never cut a build short.
//!
//! Arrivals are signalled and blocks built under the chain's lock, so a transaction is either
//! seen by the builder's selection or counted as a new arrival, never lost between the two.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use tokio::sync::Notify;

/// How long consensus waits for an on-demand leader's proposal before it moves to the next
/// view. An idle chain times out once per this period, which costs one nullified view.
pub const ON_DEMAND_LEADER_TIMEOUT: Duration = Duration::from_secs(3600);

/// The latest timestamp (ms) the dev clock may reach: the end of year 9999. Far enough for any
/// test, and far enough from `u64::MAX` that "the parent's plus one" never overflows.
pub const MAX_TIMESTAMP_MS: u64 = 253_402_300_799_999;

/// When blocks are built (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mining {
    /// Once the parent's timestamp plus this interval has passed.
    Interval(Duration),
    /// When a transaction arrives or `dev_mine` asks.
    OnDemand,
}

/// A refused clock setting.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClockError {
    /// The timestamp is not after the head's.
    NotAfterHead {
        /// The timestamp asked for.
        got: u64,
        /// The head's timestamp.
        head: u64,
    },
    /// The clock would pass [`MAX_TIMESTAMP_MS`].
    TooLate {
        /// The timestamp it would reach.
        got: u128,
        /// The limit.
        limit: u64,
    },
}

impl std::fmt::Display for ClockError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ClockError::NotAfterHead { got, head } => write!(
                f,
                "timestamp {got} ms is not after the head's {head} ms (a block's timestamp must be later than its parent's)"
            ),
            ClockError::TooLate { got, limit } => {
                write!(f, "the clock would reach {got} ms, past the limit {limit} ms")
            }
        }
    }
}

#[derive(Debug, Default)]
struct Plan {
    /// Blocks `dev_mine` asked for that are not built yet.
    requested: u64,
    /// A transaction arrived since the last block was built (on-demand mode builds for it).
    arrived: bool,
    /// The last block built took transactions (on-demand mode builds again while the pool
    /// holds more).
    took_txs: bool,
    /// Added to the wall clock (`dev_increaseTime`).
    offset_ms: u64,
    /// The next block's timestamp (`dev_setNextBlockTimestamp`).
    next_timestamp_ms: Option<u64>,
}

/// The time source of a node: its runtime's clock (see the module docs).
pub trait RuntimeClock: Send + Sync {
    /// The current time.
    fn now(&self) -> SystemTime;
    /// Resolves after `duration`.
    fn sleep(&self, duration: Duration) -> Pin<Box<dyn Future<Output = ()> + Send>>;
}

impl<E: commonware_runtime::Clock + Send + Sync> RuntimeClock for E {
    fn now(&self) -> SystemTime {
        self.current()
    }

    fn sleep(&self, duration: Duration) -> Pin<Box<dyn Future<Output = ()> + Send>> {
        Box::pin(commonware_runtime::Clock::sleep(self, duration))
    }
}

/// The block production plan the application and the RPC share (see the module docs).
pub struct Production {
    mining: Mining,
    plan: Mutex<Plan>,
    wake: Notify,
    clock: Arc<dyn RuntimeClock>,
}

impl std::fmt::Debug for Production {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Production")
            .field("mining", &self.mining)
            .field("plan", &self.plan)
            .finish_non_exhaustive()
    }
}

/// Milliseconds since the Unix epoch of `time`.
pub fn unix_ms(time: SystemTime) -> u64 {
    time.duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

impl Production {
    /// A plan for `mining` on `clock`, with the dev clock at `clock`'s time.
    pub fn new(mining: Mining, clock: Arc<dyn RuntimeClock>) -> Self {
        Self {
            mining,
            plan: Mutex::new(Plan::default()),
            wake: Notify::new(),
            clock,
        }
    }

    /// Milliseconds since the Unix epoch by the runtime's clock (without the dev offset).
    fn wall_ms(&self) -> u64 {
        unix_ms(self.clock.now())
    }

    /// Resolves after `duration` of the runtime's clock.
    pub fn sleep(&self, duration: Duration) -> Pin<Box<dyn Future<Output = ()> + Send>> {
        self.clock.sleep(duration)
    }

    /// The mode.
    pub fn mining(&self) -> Mining {
        self.mining
    }

    fn plan(&self) -> std::sync::MutexGuard<'_, Plan> {
        // The plan holds plain numbers: a panic elsewhere cannot leave it half-updated.
        self.plan.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// How long consensus waits for a leader's proposal.
    pub fn leader_timeout(&self) -> Duration {
        match self.mining {
            Mining::Interval(t) => t + Duration::from_secs(2),
            Mining::OnDemand => ON_DEMAND_LEADER_TIMEOUT,
        }
    }

    /// How long a leader tries pool transactions for one block (see the module docs): a
    /// quarter of the leader timeout, so that building and every verifier's execution of the
    /// same transactions fit in the time consensus waits.
    pub fn build_budget(&self) -> Duration {
        self.leader_timeout() / 4
    }

    /// The cutoff of a build starting now ([`crate::chain::Chain::build`]): true once
    /// [`Self::build_budget`] of the runtime's clock has passed.
    pub fn build_cutoff(&self) -> impl Fn() -> bool + Sync + '_ {
        let deadline = self.clock.now() + self.build_budget();
        move || self.clock.now() >= deadline
    }

    /// The node's clock (ms): the runtime's clock plus the dev offset.
    pub fn now_ms(&self) -> u64 {
        self.wall_ms().saturating_add(self.plan().offset_ms)
    }

    /// The dev clock's offset from the wall clock (ms).
    pub fn offset_ms(&self) -> u64 {
        self.plan().offset_ms
    }

    /// A transaction entered the pool (call under the chain's lock).
    pub fn on_transaction(&self) {
        self.plan().arrived = true;
        self.wake.notify_one();
    }

    /// Ask for `n` more blocks now.
    pub fn request(&self, n: u64) {
        let mut plan = self.plan();
        plan.requested = plan.requested.saturating_add(n);
        drop(plan);
        self.wake.notify_one();
    }

    /// Blocks `dev_mine` asked for that are not built yet.
    pub fn requested(&self) -> u64 {
        self.plan().requested
    }

    /// Move the clock `ms` forward; returns the new offset.
    pub fn increase_time(&self, ms: u64) -> Result<u64, ClockError> {
        let mut plan = self.plan();
        let offset = plan.offset_ms.saturating_add(ms);
        let reaches = u128::from(self.wall_ms()) + u128::from(offset);
        if reaches > u128::from(MAX_TIMESTAMP_MS) {
            return Err(ClockError::TooLate {
                got: reaches,
                limit: MAX_TIMESTAMP_MS,
            });
        }
        plan.offset_ms = offset;
        drop(plan);
        // An interval leader may now be due.
        self.wake.notify_one();
        Ok(offset)
    }

    /// Put the clock's offset back (a revert restores the snapshot's clock).
    pub fn set_offset(&self, ms: u64) {
        let mut plan = self.plan();
        plan.offset_ms = ms;
        plan.next_timestamp_ms = None;
    }

    /// Fix the next block's timestamp; it must be after the head's (`head_ms`).
    pub fn set_next_timestamp(&self, ms: u64, head_ms: u64) -> Result<(), ClockError> {
        if ms <= head_ms {
            return Err(ClockError::NotAfterHead {
                got: ms,
                head: head_ms,
            });
        }
        if ms > MAX_TIMESTAMP_MS {
            return Err(ClockError::TooLate {
                got: u128::from(ms),
                limit: MAX_TIMESTAMP_MS,
            });
        }
        self.plan().next_timestamp_ms = Some(ms);
        Ok(())
    }

    /// Wait until a child of a parent stamped `parent_ms` is due; `pool_holds_txs` says
    /// whether the mempool held transactions when the parent became the head.
    pub async fn wait_turn(&self, parent_ms: u64, pool_holds_txs: bool) {
        loop {
            // A notification between this check and the wait below leaves a permit: no
            // wake-up is lost.
            let wait = {
                let plan = self.plan();
                if plan.requested > 0 {
                    return;
                }
                match self.mining {
                    Mining::OnDemand if plan.arrived || plan.took_txs && pool_holds_txs => return,
                    Mining::OnDemand => None,
                    Mining::Interval(t) => {
                        let due = parent_ms.saturating_add(t.as_millis() as u64);
                        let now = self.wall_ms().saturating_add(plan.offset_ms);
                        if now >= due {
                            return;
                        }
                        Some(Duration::from_millis(due - now))
                    }
                }
            };
            match wait {
                Some(d) => {
                    tokio::select! {
                        biased;
                        _ = self.clock.sleep(d) => {}
                        _ = self.wake.notified() => {}
                    }
                }
                None => self.wake.notified().await,
            }
        }
    }

    /// The timestamp of the child of a parent stamped `parent_ms` (consumes a fixed one).
    pub fn timestamp(&self, parent_ms: u64) -> u64 {
        let mut plan = self.plan();
        let clock = self.wall_ms().saturating_add(plan.offset_ms);
        match plan.next_timestamp_ms.take() {
            Some(t) if t > parent_ms => t,
            _ => clock.max(parent_ms.saturating_add(1)),
        }
    }

    /// A block was built with `txs` transactions (call under the chain's lock).
    pub fn on_built(&self, txs: usize) {
        let mut plan = self.plan();
        plan.requested = plan.requested.saturating_sub(1);
        plan.arrived = false;
        plan.took_txs = txs > 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The machine's clock, for plans outside a commonware runtime.
    struct Wall;

    impl RuntimeClock for Wall {
        fn now(&self) -> SystemTime {
            SystemTime::now()
        }

        fn sleep(&self, duration: Duration) -> Pin<Box<dyn Future<Output = ()> + Send>> {
            Box::pin(tokio::time::sleep(duration))
        }
    }

    fn plan(mining: Mining) -> Production {
        Production::new(mining, Arc::new(Wall))
    }

    #[test]
    fn timestamps_are_strictly_after_the_parent_and_a_fixed_one_is_used_once() {
        let p = plan(Mining::OnDemand);
        let far = MAX_TIMESTAMP_MS - 10;
        assert_eq!(p.timestamp(far), far + 1, "the clock is behind the parent");
        p.set_next_timestamp(far, far - 1).unwrap();
        assert_eq!(p.timestamp(far - 1), far);
        assert_eq!(p.timestamp(far), far + 1, "the fixed timestamp is consumed");
        assert_eq!(
            p.set_next_timestamp(5, 5),
            Err(ClockError::NotAfterHead { got: 5, head: 5 })
        );
        assert!(matches!(
            p.set_next_timestamp(MAX_TIMESTAMP_MS + 1, 5),
            Err(ClockError::TooLate { .. })
        ));
    }

    #[test]
    fn increase_time_moves_the_clock_and_is_bounded() {
        let p = plan(Mining::Interval(Duration::from_secs(1)));
        let before = p.now_ms();
        assert_eq!(p.increase_time(86_400_000), Ok(86_400_000));
        assert!(p.now_ms() >= before + 86_400_000);
        assert!(matches!(
            p.increase_time(u64::MAX),
            Err(ClockError::TooLate { .. })
        ));
        assert_eq!(
            p.offset_ms(),
            86_400_000,
            "a refused change changes nothing"
        );
    }

    /// Whether `wait_turn` returns at once.
    fn due(p: &Production, pool_holds_txs: bool) -> bool {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap();
        rt.block_on(async {
            tokio::select! {
                biased;
                _ = p.wait_turn(0, pool_holds_txs) => true,
                _ = std::future::ready(()) => false,
            }
        })
    }

    #[test]
    fn on_demand_builds_for_arrivals_and_requests_only() {
        let p = plan(Mining::OnDemand);
        assert!(!due(&p, false) && !due(&p, true), "idle: no block");
        p.on_transaction();
        assert!(due(&p, true));
        p.on_built(0);
        assert!(
            !due(&p, true),
            "nothing was selectable: no empty-block loop"
        );
        p.on_transaction();
        p.on_built(5);
        assert!(
            due(&p, true),
            "the block took some: build again for the rest"
        );
        assert!(!due(&p, false), "...unless the pool is empty");
        p.on_built(0);
        p.request(2);
        assert!(due(&p, false));
        p.on_built(0);
        assert!(due(&p, false), "one of two asked for is still to build");
        p.on_built(0);
        assert!(!due(&p, false));
    }
}
