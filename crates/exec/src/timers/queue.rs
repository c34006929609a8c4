//! The tiered calendar queue (whitepaper "Tiered Calendar Queue"; key-innovations.md §1), in
//! the scheduler's storage, so it is in the state root and survives restarts.
//!
//! Every pending timer sits in exactly one **bucket**, a counted list in storage
//! (`["q", tier, bucket]` → count, `["q", tier, bucket, i]` → timer id), and its record names
//! that place ([`Loc`]), so cancelling swap-removes it in O(1) and no tombstones are left.
//!
//! | tier | bucket covers | a timer due at `d` goes here, at height `H`, when |
//! |------|---------------|---------------------------------------------------|
//! | 1 ring     | one height `d`                   | `d < H + R` (R = `timer_ring_blocks`) |
//! | 2 epoch    | `L = R/2` heights, bucket `d / L` | otherwise, if tier 3's bucket of `d` is already migrating |
//! | 3 overflow | `S = L·B` heights, bucket `d / S` (B = `timer_epoch_buckets`) | otherwise: the long horizon, unbounded |
//!
//! **Migration, spread evenly.** Epoch bucket `e` moves into the ring during the `L` blocks
//! `[eL − L, eL)`, a share of what is left each block (`ceil(left / blocks left)`), so it is
//! empty before its first timer is due; overflow bucket `s` moves into epoch buckets during
//! `[sS − S, sS − L)`, before any of those epoch buckets starts migrating. The placement rule
//! guarantees no timer enters a bucket once its window has begun, so a bucket's count only
//! falls during its window. Per-block migration work is proportional to how densely timers
//! are due, not to how many are pending: with timers spread over the horizon it is flat.
//!
//! **Why buckets addressed by number, not a tree.** The spec's tier 3 is a Merkleized binary
//! search tree, O(log n), because an in-memory calendar needs one to find the next timers.
//! Our state is already an authenticated map, so the overflow is a sorted set of buckets
//! addressed by `d / S`: finding the next ones is a lookup, O(1), and a light client proves a
//! timer's record and its bucket entry like any storage entry.
//!
//! **Due timers.** The ring slot of height `d` is taken at block `d` or later: the delivery
//! cursor (the oldest height whose slot may hold timers) pops entries from the end of the
//! oldest slots first, a bounded number per block (`crate::timers::deliver`); a slot left
//! non-empty is taken up again the next block. A deferred timer is re-enqueued in the slot of
//! the next height — it rolls over, never lost.

use cowboy_types::cbor::{self, Value};
use cowboy_types::genesis::GenesisParams;
use cowboy_types::system::SCHEDULER;

use crate::state::{SResult, StateFailure};
use crate::system::SystemState;

/// Where a pending timer is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Loc {
    /// Entry `index` of bucket `bucket` of tier `tier` (1 ring, 2 epoch, 3 overflow).
    Queued {
        /// 1, 2 or 3.
        tier: u8,
        /// Height (tier 1), epoch bucket (2) or overflow bucket (3).
        bucket: u64,
        /// Position in the bucket.
        index: u64,
    },
    /// Taken out of the ring by the block being executed (never persists past a block).
    InFlight,
}

impl Loc {
    pub(crate) fn to_value(self) -> Value {
        match self {
            Loc::Queued {
                tier,
                bucket,
                index,
            } => Value::Array(vec![
                Value::Uint(u64::from(tier)),
                Value::Uint(bucket),
                Value::Uint(index),
            ]),
            Loc::InFlight => Value::Null,
        }
    }

    pub(crate) fn from_value(v: &Value) -> Option<Loc> {
        match v {
            Value::Null => Some(Loc::InFlight),
            Value::Array(items) => match items.as_slice() {
                [Value::Uint(t), Value::Uint(b), Value::Uint(i)] if (1..=3).contains(t) => {
                    Some(Loc::Queued {
                        tier: *t as u8,
                        bucket: *b,
                        index: *i,
                    })
                }
                _ => None,
            },
            _ => None,
        }
    }
}

/// Tier geometry from the genesis parameters.
#[derive(Debug, Clone, Copy)]
pub struct Geometry {
    /// R: heights in the ring.
    pub ring: u64,
    /// L = R / 2: heights per epoch bucket.
    pub epoch: u64,
    /// S = L · B: heights per overflow bucket.
    pub overflow: u64,
}

impl Geometry {
    /// From the parameters (ring at least 2 blocks, one epoch bucket).
    pub fn new(p: &GenesisParams) -> Self {
        let ring = p.timer_ring_blocks.max(2) & !1;
        let epoch = ring / 2;
        let overflow = epoch.saturating_mul(p.timer_epoch_buckets.max(2));
        Geometry {
            ring,
            epoch,
            overflow,
        }
    }

    /// The tier and bucket of a timer due at `due`, placed at height `now` (`due > now`).
    pub fn place(&self, now: u64, due: u64) -> (u8, u64) {
        if due < now.saturating_add(self.ring) {
            return (1, due);
        }
        let s = due / self.overflow;
        // Overflow bucket s migrates from sS − S: before that, it takes the timer.
        if now < (s * self.overflow).saturating_sub(self.overflow) {
            return (3, s);
        }
        (2, due / self.epoch)
    }
}

pub(crate) fn key(parts: &[Value]) -> Vec<u8> {
    cbor::encode(&Value::Array(parts.to_vec()))
}

fn count_key(tier: u8, bucket: u64) -> Vec<u8> {
    key(&[
        Value::Text("q".into()),
        Value::Uint(u64::from(tier)),
        Value::Uint(bucket),
    ])
}

fn entry_key(tier: u8, bucket: u64, i: u64) -> Vec<u8> {
    key(&[
        Value::Text("q".into()),
        Value::Uint(u64::from(tier)),
        Value::Uint(bucket),
        Value::Uint(i),
    ])
}

pub(crate) fn corrupt(what: &str) -> StateFailure {
    StateFailure::Invariant(format!("corrupt scheduler state: {what}"))
}

pub(crate) fn read_uint(state: &dyn SystemState, k: &[u8]) -> SResult<u64> {
    match state.storage(&SCHEDULER, k)? {
        None => Ok(0),
        Some(b) => match cbor::decode(&b) {
            Ok(Value::Uint(n)) => Ok(n),
            _ => Err(corrupt("counter")),
        },
    }
}

/// Write a counter (deleting it at zero); returns the bytes written.
pub(crate) fn write_uint(state: &mut dyn SystemState, k: &[u8], n: u64) -> SResult<u64> {
    if n == 0 {
        state.delete_storage(&SCHEDULER, k)?;
        return Ok(0);
    }
    let v = cbor::encode(&Value::Uint(n));
    state.set_storage(&SCHEDULER, k, &v)?;
    Ok((k.len() + v.len()) as u64)
}

/// Entries in a bucket.
pub fn len(state: &dyn SystemState, tier: u8, bucket: u64) -> SResult<u64> {
    read_uint(state, &count_key(tier, bucket))
}

/// Append timer `id`; returns its place and the bytes written.
pub fn push(state: &mut dyn SystemState, tier: u8, bucket: u64, id: u64) -> SResult<(Loc, u64)> {
    let ck = count_key(tier, bucket);
    let n = read_uint(state, &ck)?;
    let ek = entry_key(tier, bucket, n);
    let v = cbor::encode(&Value::Uint(id));
    state.set_storage(&SCHEDULER, &ek, &v)?;
    let written = (ek.len() + v.len()) as u64 + write_uint(state, &ck, n + 1)?;
    let loc = Loc::Queued {
        tier,
        bucket,
        index: n,
    };
    Ok((loc, written))
}

/// Remove and return the last entry of a bucket.
pub fn pop(state: &mut dyn SystemState, tier: u8, bucket: u64) -> SResult<Option<u64>> {
    let ck = count_key(tier, bucket);
    let n = read_uint(state, &ck)?;
    if n == 0 {
        return Ok(None);
    }
    let ek = entry_key(tier, bucket, n - 1);
    let id = read_uint(state, &ek)?;
    state.delete_storage(&SCHEDULER, &ek)?;
    write_uint(state, &ck, n - 1)?;
    Ok(Some(id))
}

/// Remove entry `index` by moving the bucket's last entry into its place. Returns the id of
/// the entry moved (whose record must be told its new index), if one was.
pub fn swap_remove(
    state: &mut dyn SystemState,
    tier: u8,
    bucket: u64,
    index: u64,
) -> SResult<Option<u64>> {
    let ck = count_key(tier, bucket);
    let n = read_uint(state, &ck)?;
    if index >= n {
        return Err(corrupt("a timer's bucket index is past the bucket's end"));
    }
    let last_key = entry_key(tier, bucket, n - 1);
    let last = read_uint(state, &last_key)?;
    state.delete_storage(&SCHEDULER, &last_key)?;
    write_uint(state, &ck, n - 1)?;
    if index == n - 1 {
        return Ok(None);
    }
    let v = cbor::encode(&Value::Uint(last));
    state.set_storage(&SCHEDULER, &entry_key(tier, bucket, index), &v)?;
    Ok(Some(last))
}

/// The migrations due at height `h`: `(tier, bucket, entries to move)` for the epoch bucket
/// and the overflow bucket whose windows contain `h`.
pub fn migrations(state: &dyn SystemState, g: &Geometry, h: u64) -> SResult<Vec<(u8, u64, u64)>> {
    let mut out = Vec::new();
    // Epoch bucket e = h / L + 1 migrates during [eL − L, eL): offset h mod L.
    let e = h / g.epoch + 1;
    let left_blocks = g.epoch - h % g.epoch;
    let n = len(state, 2, e)?;
    if n > 0 {
        out.push((2, e, n.div_ceil(left_blocks)));
    }
    // Overflow bucket s = h / S + 1 migrates during [sS − S, sS − L).
    let offset = h % g.overflow;
    let window = g.overflow - g.epoch;
    if offset < window {
        let s = h / g.overflow + 1;
        let n = len(state, 3, s)?;
        if n > 0 {
            out.push((3, s, n.div_ceil(window - offset)));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn geometry() -> Geometry {
        let p = GenesisParams {
            timer_ring_blocks: 8,
            timer_epoch_buckets: 4,
            ..GenesisParams::default()
        };
        Geometry::new(&p)
    }

    #[test]
    fn placement_never_enters_a_bucket_whose_window_has_begun() {
        let g = geometry();
        assert_eq!((g.ring, g.epoch, g.overflow), (8, 4, 16));
        for now in 0..200u64 {
            for due in now + 1..now + 100 {
                match g.place(now, due) {
                    (1, b) => assert_eq!(b, due),
                    (2, e) => {
                        assert_eq!(e, due / g.epoch);
                        // Epoch window [eL − L, eL) has not begun.
                        assert!(now < e * g.epoch - g.epoch, "now {now} due {due}");
                    }
                    (3, s) => {
                        assert_eq!(s, due / g.overflow);
                        assert!(now < s * g.overflow - g.overflow);
                    }
                    other => panic!("{other:?}"),
                }
            }
        }
    }

    #[test]
    fn overflow_migrates_before_its_epoch_buckets_start() {
        let g = geometry();
        // The overflow window of s ends at sS − L, where its first epoch bucket sS/L starts.
        for s in 2..10u64 {
            let end = s * g.overflow - g.epoch;
            let first_epoch = s * g.overflow / g.epoch;
            assert_eq!(end, first_epoch * g.epoch - g.epoch);
        }
    }
}
