//! Verifiable runner selection (CIP-2 §5): the seed, the stake weights, the stake-weighted
//! Fisher-Yates draw, the aggregator and the candidate list's Merkle root. Pure functions of
//! public data, so the dispatcher, a CLI and any third party compute the same committee from
//! a job's stored candidate snapshot and seed. The exact formulas are the exec README's
//! "Formulas" table; the unit tests pin them with fixed vectors.

use cowboy_types::hash::keccak256_concat;
use cowboy_types::{keccak256, Address, Hash32};

/// The domain separator of the selection seed (CIP-2 §5).
pub const SEED_DOMAIN: &[u8] = b"cowboy-runner-select-v2:";

/// `keccak256(block_hash ‖ "cowboy-runner-select-v2:" ‖ job_id ‖ submitted_at_le8)`.
/// `block_hash` is the submission block's header randomness: its parent hash, or on a chain with
/// a beacon the hash of the beacon signature it carries (`crate::beacon`; README).
pub fn seed(block_hash: &Hash32, job_id: &Hash32, submitted_at: u64) -> Hash32 {
    keccak256_concat(&[
        &block_hash.0,
        SEED_DOMAIN,
        &job_id.0,
        &submitted_at.to_le_bytes(),
    ])
}

/// The seed of retry `retry` (1, 2, …): `keccak256(seed ‖ "retry:" ‖ retry_le4)` (CIP-2 §6).
pub fn retry_seed(seed: &Hash32, retry: u32) -> Hash32 {
    keccak256_concat(&[&seed.0, b"retry:", &retry.to_le_bytes()])
}

/// `floor(log2(effective_stake / min_stake + 1)) + 1`, on integers (a zero `min_stake` is
/// read as 1 wei). 1,024× the minimum stake gives 11× the weight; the largest is 129.
pub fn weight(effective_stake: u128, min_stake: u128) -> u64 {
    let q = effective_stake / min_stake.max(1);
    // q + 1 ≥ 1; at q = u128::MAX the sum wraps to 2^128, whose log2 is 128.
    let log = q.checked_add(1).map_or(128, |x| u64::from(x.ilog2()));
    log + 1
}

/// Select `m` of `candidates` (`(address, weight)`, in snapshot order) with the stake-weighted
/// Fisher-Yates draw of CIP-2 §5: for `i` in `0..m`, `h = keccak256(cur ‖ i_le8)`, `r =
/// u64_le(h[0..8]) mod Σ w[i..]`, pick the first `j ≥ i` whose cumulative weight from `i`
/// exceeds `r`, swap it into place `i`, `cur = h`. Returns the picked addresses in pick
/// order; `min(m, len)` of them. Zero weights are never picked while others remain.
pub fn select(candidates: &[(Address, u64)], seed: &Hash32, m: usize) -> Vec<Address> {
    let mut list: Vec<(Address, u64)> = candidates.to_vec();
    let n = list.len();
    let m = m.min(n);
    let mut cur = *seed;
    for i in 0..m {
        let total: u128 = list[i..].iter().map(|c| u128::from(c.1)).sum();
        let mut preimage = [0u8; 40];
        preimage[..32].copy_from_slice(&cur.0);
        preimage[32..].copy_from_slice(&(i as u64).to_le_bytes());
        let h = keccak256(&preimage);
        let mut low = [0u8; 8];
        low.copy_from_slice(&h.0[..8]);
        let draw = u128::from(u64::from_le_bytes(low));
        let pick = if total == 0 {
            // Every weight left is zero: weights are ≥ 1 by construction, so this is only a
            // guard; take the draw modulo the count.
            i + (draw % (n - i) as u128) as usize
        } else {
            let r = draw % total;
            let mut acc = 0u128;
            let mut j = i;
            for (k, c) in list[i..].iter().enumerate() {
                acc += u128::from(c.1);
                if acc > r {
                    j = i + k;
                    break;
                }
            }
            j
        };
        list.swap(i, pick);
        cur = h;
    }
    list.truncate(m);
    list.into_iter().map(|c| c.0).collect()
}

/// The aggregator of a committee (`(address, reputation)`): the highest reputation, ties to
/// the lowest address (CIP-2 §8). `None` for an empty committee.
pub fn aggregator(committee: &[(Address, u64)]) -> Option<Address> {
    committee
        .iter()
        .max_by(|a, b| a.1.cmp(&b.1).then(b.0 .0.cmp(&a.0 .0)))
        .map(|c| c.0)
}

/// A candidate list's leaf: `keccak256(address ‖ weight_le8)`.
pub fn leaf(address: &Address, weight: u64) -> Hash32 {
    keccak256_concat(&[&address.0, &weight.to_le_bytes()])
}

/// The Merkle root of a candidate list (`(address, weight)` in list order): a binary tree of
/// [`leaf`]s, each parent `keccak256(left ‖ right)`, an odd last node promoted unchanged to
/// the next level. The empty list's root is 32 zero bytes.
pub fn candidates_root(candidates: &[(Address, u64)]) -> Hash32 {
    let mut level: Vec<Hash32> = candidates.iter().map(|(a, w)| leaf(a, *w)).collect();
    if level.is_empty() {
        return Hash32([0; 32]);
    }
    while level.len() > 1 {
        level = level
            .chunks(2)
            .map(|pair| match pair {
                [l, r] => keccak256_concat(&[&l.0, &r.0]),
                [one] => *one,
                _ => unreachable!("chunks(2) yields one or two"),
            })
            .collect();
    }
    level[0]
}

/// How many hashes [`candidates_root`] computes for `n` leaves (for charging before the work):
/// `n` leaves and at most `n − 1` parents.
pub fn root_hashes(n: u64) -> u64 {
    n.saturating_mul(2)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn a(i: u8) -> Address {
        Address([i; 20])
    }

    #[test]
    fn weights_are_logarithmic() {
        let min = 10_000u128;
        assert_eq!(weight(0, min), 1);
        assert_eq!(weight(min - 1, min), 1);
        assert_eq!(weight(min, min), 2); // log2(2) + 1
        assert_eq!(weight(3 * min, min), 3); // log2(4) + 1
        assert_eq!(weight(1024 * min, min), 11); // log2(1025) = 10
        assert_eq!(weight(1023 * min, min), 11); // log2(1024) = 10
        assert_eq!(weight(1022 * min, min), 10);
        assert_eq!(weight(u128::MAX, 1), 129);
        assert_eq!(weight(5, 0), 3); // min 0 read as 1: log2(6) + 1
    }

    #[test]
    fn seed_layout_is_pinned() {
        let bh = Hash32([1; 32]);
        let job = Hash32([2; 32]);
        let mut pre = Vec::new();
        pre.extend_from_slice(&[1; 32]);
        pre.extend_from_slice(b"cowboy-runner-select-v2:");
        pre.extend_from_slice(&[2; 32]);
        pre.extend_from_slice(&7u64.to_le_bytes());
        assert_eq!(seed(&bh, &job, 7), keccak256(&pre));
        let mut pre = Vec::new();
        pre.extend_from_slice(&[9; 32]);
        pre.extend_from_slice(b"retry:");
        pre.extend_from_slice(&[2, 0, 0, 0]);
        assert_eq!(retry_seed(&Hash32([9; 32]), 2), keccak256(&pre));
    }

    /// The draw written out longhand for a fixed list: the function must agree step by step.
    #[test]
    fn select_follows_the_formula() {
        let list = vec![(a(1), 1), (a(2), 3), (a(3), 1), (a(4), 5), (a(5), 2)];
        let s = Hash32([0x42; 32]);
        let got = select(&list, &s, 3);
        let mut l = list.clone();
        let mut cur = s;
        let mut want = Vec::new();
        for i in 0..3usize {
            let total: u64 = l[i..].iter().map(|c| c.1).sum();
            let mut pre = cur.0.to_vec();
            pre.extend_from_slice(&(i as u64).to_le_bytes());
            let h = keccak256(&pre);
            let r = u64::from_le_bytes(h.0[..8].try_into().unwrap()) % total;
            let mut acc = 0;
            let mut j = i;
            while acc + l[j].1 <= r {
                acc += l[j].1;
                j += 1;
            }
            l.swap(i, j);
            want.push(l[i].0);
            cur = h;
        }
        assert_eq!(got, want);
        // Pinned: a change to the algorithm is a consensus change.
        assert_eq!(got, vec![a(2), a(4), a(3)]);
        // Deterministic, distinct, at most the list.
        assert_eq!(select(&list, &s, 3), got);
        let all = select(&list, &s, 9);
        assert_eq!(all.len(), 5);
        let mut sorted = all.clone();
        sorted.sort_by_key(|x| x.0);
        sorted.dedup();
        assert_eq!(sorted.len(), 5);
        assert!(select(&[], &s, 3).is_empty());
    }

    /// Over many seeds, a weight-4 candidate is picked first about 4× as often as a weight-1.
    #[test]
    fn selection_follows_the_weights() {
        let list = vec![(a(1), 1), (a(2), 4), (a(3), 1), (a(4), 2)];
        let mut first = [0u32; 4];
        for k in 0u32..8_000 {
            let s = keccak256(&k.to_le_bytes());
            let p = select(&list, &s, 1)[0];
            first[(p.0[0] - 1) as usize] += 1;
        }
        // Expected 1000 / 4000 / 1000 / 2000 of 8000; allow ±12%.
        for (got, want) in first.iter().zip([1000u32, 4000, 1000, 2000]) {
            assert!(got.abs_diff(want) * 100 <= want * 12, "{first:?}");
        }
    }

    #[test]
    fn aggregator_is_highest_reputation_then_lowest_address() {
        assert_eq!(
            aggregator(&[(a(3), 70), (a(1), 90), (a(2), 90)]),
            Some(a(1))
        );
        assert_eq!(aggregator(&[(a(3), 71), (a(1), 70)]), Some(a(3)));
        assert_eq!(aggregator(&[]), None);
    }

    #[test]
    fn root_is_the_promoting_binary_tree() {
        let l: Vec<(Address, u64)> = (1..=3).map(|i| (a(i), u64::from(i))).collect();
        let h = |x: &Hash32, y: &Hash32| keccak256_concat(&[&x.0, &y.0]);
        let (l1, l2, l3) = (leaf(&a(1), 1), leaf(&a(2), 2), leaf(&a(3), 3));
        assert_eq!(candidates_root(&l), h(&h(&l1, &l2), &l3));
        assert_eq!(candidates_root(&l[..1]), l1);
        assert_eq!(candidates_root(&[]), Hash32([0; 32]));
        let mut pre = a(1).0.to_vec();
        pre.extend_from_slice(&1u64.to_le_bytes());
        assert_eq!(l1, keccak256(&pre));
    }
}
