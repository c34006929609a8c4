//! When a block height will come: the daemon's estimate of the chain's block time, so that an
//! execution is cut short in time to commit a fault report before the job's deadline rather
//! than finishing after it (README, "Deadlines").
//!
//! A job's commit deadline is a height and its wall bound milliseconds; which one binds
//! depends on the block time, which the runner cannot read from the chain (a node's
//! `--block-time` may differ from the genesis `block_time_ms`). So it is measured: the mean
//! block time over the last [`WINDOW`] finalized heads' timestamps, and a height's time is
//! counted from the moment this process saw the latest head (the local clock, never the
//! block timestamps, measures the time already gone). Until two heads are seen, or on a dev
//! node that makes blocks on demand (its deadlines never come by themselves), there is no
//! estimate and no cap: the job's own wall bound applies alone.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

/// Heads the mean block time is taken over.
pub const WINDOW: usize = 32;

/// The block-time estimate.
#[derive(Debug, Default)]
pub struct BlockClock {
    /// The latest heads, `(height, timestamp ms)`, oldest first, heights increasing.
    heads: VecDeque<(u64, u64)>,
    /// The latest head and when this process saw it.
    seen: Option<(u64, Instant)>,
    /// Blocks come only when transactions do (a dev node's `--block-time 0`).
    on_demand: bool,
}

impl BlockClock {
    /// A head (height and block timestamp) seen at `now`. A height not above the latest is
    /// ignored (a notification repeated after a reconnection).
    pub fn observe(&mut self, height: u64, timestamp_ms: u64, now: Instant) {
        if self.heads.back().is_some_and(|&(h, _)| height <= h) {
            return;
        }
        self.heads.push_back((height, timestamp_ms));
        if self.heads.len() > WINDOW {
            self.heads.pop_front();
        }
        self.seen = Some((height, now));
    }

    /// An older head, read at start to seed the estimate (it does not move "now"); ignored
    /// once the window is full or if it is not older than every head seen.
    pub fn seed(&mut self, height: u64, timestamp_ms: u64) {
        let older = self.heads.front().is_none_or(|&(h, _)| height < h);
        if older && self.heads.len() < WINDOW {
            self.heads.push_front((height, timestamp_ms));
        }
    }

    /// Marks the chain as making blocks on demand (no estimate, no cap).
    pub fn set_on_demand(&mut self, on_demand: bool) {
        self.on_demand = on_demand;
    }

    /// Milliseconds per block over the window (at least 1), if there is an estimate.
    pub fn block_ms(&self) -> Option<u64> {
        if self.on_demand {
            return None;
        }
        let (&(h0, t0), &(h1, t1)) = (self.heads.front()?, self.heads.back()?);
        let blocks = h1.checked_sub(h0).filter(|&b| b > 0)?;
        Some((t1.saturating_sub(t0) / blocks).max(1))
    }

    /// The time an execution may take for its commit to count. The deadline's timer runs at
    /// the start of block `deadline`, before its transactions, so the commit must be in block
    /// `deadline - 1`, whose leader takes it from its pool about when `deadline - 2` is
    /// final: the budget runs until then, less one block for the commit to be prepared, sent
    /// and gossiped, counted from the latest head: the one seen, or `known` (a height the
    /// caller knows is final, e.g. the job's assignment, whose event can arrive before its
    /// head) taken as final `now`. `None` when there is no estimate; zero when that time is
    /// gone.
    pub fn budget(&self, deadline: u64, known: u64, now: Instant) -> Option<Duration> {
        let ms = self.block_ms()?;
        let (head, seen_at) = match self.seen? {
            (head, _) if known > head => (known, now),
            seen => seen,
        };
        let until = deadline
            .saturating_sub(3)
            .saturating_sub(head)
            .saturating_mul(ms);
        Some(Duration::from_millis(until).saturating_sub(now.saturating_duration_since(seen_at)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clock(heads: &[(u64, u64)], at: Instant) -> BlockClock {
        let mut c = BlockClock::default();
        for &(h, t) in heads {
            c.observe(h, t, at);
        }
        c
    }

    #[test]
    fn the_block_time_is_the_mean_over_the_window_and_needs_two_heads() {
        let now = Instant::now();
        assert_eq!(clock(&[], now).block_ms(), None);
        assert_eq!(clock(&[(5, 1_000)], now).block_ms(), None);
        // Heights may skip (a missed notification): the mean is per block, not per head.
        assert_eq!(
            clock(&[(5, 1_000), (6, 1_100), (9, 1_400)], now).block_ms(),
            Some(100)
        );
        // Repeated or older heads are ignored.
        let c = clock(&[(5, 1_000), (6, 1_100), (6, 9_999), (4, 0)], now);
        assert_eq!(c.block_ms(), Some(100));
        // Equal timestamps still give a positive block time.
        assert_eq!(clock(&[(1, 7), (2, 7)], now).block_ms(), Some(1));
        // Only the last WINDOW heads count.
        let heads: Vec<(u64, u64)> = (0..100)
            .map(|h| {
                (
                    h,
                    if h < 50 {
                        h * 1_000
                    } else {
                        49_000 + (h - 49) * 100
                    },
                )
            })
            .collect();
        assert_eq!(clock(&heads, now).block_ms(), Some(100));
    }

    #[test]
    fn a_seed_extends_the_window_backwards() {
        let now = Instant::now();
        let mut c = clock(&[(40, 5_000)], now);
        c.seed(8, 1_800);
        assert_eq!(c.block_ms(), Some(100));
        c.seed(40, 0); // not older: ignored
        assert_eq!(c.block_ms(), Some(100));
    }

    #[test]
    fn the_budget_runs_until_two_blocks_before_the_deadline_less_a_block_and_the_time_gone() {
        let seen = Instant::now();
        let c = clock(&[(10, 1_000), (11, 1_100)], seen);
        // Deadline 21: block 19 is eight blocks away, less one block.
        assert_eq!(c.budget(21, 0, seen), Some(Duration::from_millis(700)));
        let later = seen + Duration::from_millis(300);
        assert_eq!(c.budget(21, 11, later), Some(Duration::from_millis(400)));
        // A known final height past the seen head counts from now.
        assert_eq!(c.budget(21, 12, later), Some(Duration::from_millis(600)));
        // Gone: zero, not negative; a deadline too close or behind the head likewise.
        assert_eq!(
            c.budget(21, 0, seen + Duration::from_secs(5)),
            Some(Duration::ZERO)
        );
        assert_eq!(c.budget(15, 0, seen), Some(Duration::from_millis(100)));
        assert_eq!(c.budget(14, 0, seen), Some(Duration::ZERO));
        assert_eq!(c.budget(11, 0, seen), Some(Duration::ZERO));
        assert_eq!(c.budget(0, 0, seen), Some(Duration::ZERO));
    }

    #[test]
    fn on_demand_blocks_or_no_estimate_mean_no_cap() {
        let seen = Instant::now();
        let mut c = clock(&[(10, 1_000), (11, 1_100)], seen);
        c.set_on_demand(true);
        assert_eq!(c.budget(21, 0, seen), None);
        assert_eq!(clock(&[(10, 1_000)], seen).budget(21, 0, seen), None);
    }
}
