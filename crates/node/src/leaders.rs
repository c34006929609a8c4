//! Leader election by stake (issue 17: "voting power by stake"; whitepaper §6.1): each epoch's
//! simplex engine takes its leaders from a schedule in which every member leads in proportion
//! to its stake, not once per rotation whatever it staked.
//!
//! **The schedule.** Built once per epoch from the active set the staking actor took (each
//! member's `power`, its stake at the boundary) and the epoch's seed (derived from the
//! boundary block's beacon randomness), by *smooth weighted round robin* (the proposer
//! priority CometBFT uses, nginx's upstream balancing): every step, each member's priority
//! grows by its power, the highest leads and falls by the total. Over a period of
//! `total / gcd(powers)` views each member leads exactly `power / gcd` times, spread out
//! rather than in runs (with powers 2 : 1 : 1 a member leads every other view, never two in
//! a row). Equal stakes give a plain rotation. Ties go to the member first in an order
//! shuffled by the seed (`keccak256(seed ‖ index)`), so who leads first, and the order among
//! equals, is unknown before the boundary's beacon signature, as it was with commonware's
//! `RoundRobin::shuffled`, which this replaces.
//!
//! **Bounds.** The schedule is at most `max(MAX_SCHEDULE, n)` views long and repeats after
//! that; building it costs that many steps of `n` additions (a set of 1,000 members: ~8 M,
//! once an epoch). A period longer than the schedule (stakes in awkward ratios) is cut, so a
//! member whose share is below one view in the schedule's length may not lead in the epoch:
//! at 8,192 views, more than two 3,600-block epochs, that is a member expected to lead less
//! than once an epoch anyway. Powers are in wei; they are scaled down by a common shift only
//! if their total would not fit the arithmetic (it cannot at any real supply).
//!
//! **What it does not change.** Votes still count one per member: simplex's quorum is
//! `2f + 1` participants (see the node README, "Consensus follows the staked set"). Leading
//! in proportion to stake does give a member the share of proposals, and so of tips, that
//! its stake pays for.
//!
//! Every node builds the same schedule from its committed state (integer arithmetic, no
//! iteration over hashed collections), as simplex requires of an elector: a node that
//! disagreed would wait for another leader (a liveness fault, never a safety one).

use std::collections::BTreeMap;
use std::marker::PhantomData;

use commonware_consensus::simplex::elector::{Config, Elector, Scheduled, Terms};
use commonware_consensus::types::Round;
use commonware_cryptography::certificate::Scheme;
use commonware_cryptography::ed25519;
use commonware_utils::ordered::Set;
use commonware_utils::Participant;
use cowboy_types::keccak256;

/// Fewest views a schedule covers before it repeats (when the period of the stakes' ratios
/// is longer); a set larger than this gets one view per member.
pub const MAX_SCHEDULE: usize = 8_192;

/// The elector's configuration: the epoch's seed and each member's power, by consensus key.
#[derive(Clone, Debug)]
pub struct StakeWeighted {
    seed: Vec<u8>,
    power: BTreeMap<ed25519::PublicKey, u128>,
}

impl StakeWeighted {
    /// Leaders for an epoch with `seed`, each member (`(key, power)`) weighted by its power.
    pub fn new(seed: &[u8], members: impl IntoIterator<Item = (ed25519::PublicKey, u128)>) -> Self {
        StakeWeighted {
            seed: seed.to_vec(),
            power: members.into_iter().collect(),
        }
    }
}

impl<S: Scheme<PublicKey = ed25519::PublicKey>> Config<S> for StakeWeighted {
    type Elector = Leaders<S>;

    /// Panics on an empty set, as commonware's electors do (an engine is never started for
    /// one: `epochs::participants_of` refuses it).
    fn build(self, participants: &Set<ed25519::PublicKey>) -> Leaders<S> {
        assert!(!participants.is_empty(), "no participants");
        // A participant the set names without a power cannot be (both come from one active
        // set); it would lead never rather than stop the engine.
        let powers: Vec<u128> = participants
            .iter()
            .map(|key| self.power.get(key).copied().unwrap_or(0))
            .collect();
        let order = shuffled(&self.seed, participants.len());
        let leaders = schedule(&powers, &order)
            .into_iter()
            .map(Participant::from_usize)
            .collect();
        Leaders {
            leaders,
            _scheme: PhantomData,
        }
    }
}

/// The built elector: the epoch's schedule, indexed by view.
#[derive(Debug)]
pub struct Leaders<S> {
    leaders: Vec<Participant>,
    _scheme: PhantomData<S>,
}

impl<S> Clone for Leaders<S> {
    fn clone(&self) -> Self {
        Leaders {
            leaders: self.leaders.clone(),
            _scheme: PhantomData,
        }
    }
}

impl<S: Scheme> Elector<S> for Leaders<S> {
    type Mode = Scheduled;

    fn terms(&self) -> Terms {
        Terms::rotating()
    }

    fn elect(&self, round: Round, _: ()) -> Participant {
        let len = self.leaders.len() as u64;
        self.leaders[(round.view().get() % len) as usize]
    }
}

/// Member indices `0..n` ordered by `keccak256(seed ‖ index_be4)`: the tie-break order.
pub fn shuffled(seed: &[u8], n: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_cached_key(|&i| keccak256(&[seed, &(i as u32).to_be_bytes()].concat()));
    order
}

/// The leader of each view of a schedule (see the module docs) for members with `powers`,
/// ties broken by their place in `order` (a permutation of `0..powers.len()`). A member of
/// power 0 never leads unless every member has power 0 (then all count alike).
pub fn schedule(powers: &[u128], order: &[usize]) -> Vec<usize> {
    let n = powers.len();
    let mut powers: Vec<u128> = if powers.iter().all(|&p| p == 0) {
        vec![1; n]
    } else {
        powers.to_vec()
    };
    // Scale down until the total fits in 2^120, keeping every positive power positive: the
    // priorities below stay within ± total, far inside i128.
    while powers
        .iter()
        .try_fold(0u128, |t, &p| t.checked_add(p))
        .is_none_or(|t| t > 1 << 120)
    {
        for p in &mut powers {
            *p = if *p == 0 { 0 } else { (*p >> 1).max(1) };
        }
    }
    let divisor = powers.iter().fold(0u128, |g, &p| gcd(g, p)).max(1);
    let weights: Vec<i128> = powers.iter().map(|&p| (p / divisor) as i128).collect();
    let total: i128 = weights.iter().sum();
    let len = usize::try_from(total)
        .unwrap_or(usize::MAX)
        .min(MAX_SCHEDULE.max(n));
    let mut priority = vec![0i128; n];
    let mut leaders = Vec::with_capacity(len);
    for _ in 0..len {
        for (p, w) in priority.iter_mut().zip(&weights) {
            *p += w;
        }
        // The highest priority, the first in `order` among equals.
        let mut best = order[0];
        for &i in &order[1..] {
            if priority[i] > priority[best] {
                best = i;
            }
        }
        priority[best] -= total;
        leaders.push(best);
    }
    leaders
}

fn gcd(a: u128, b: u128) -> u128 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(leaders: &[usize], n: usize) -> Vec<usize> {
        let mut c = vec![0; n];
        for &l in leaders {
            c[l] += 1;
        }
        c
    }

    /// Equal stakes: a plain rotation in the shuffled order, each member once a period.
    #[test]
    fn equal_stakes_rotate_in_the_seeds_order() {
        let order = shuffled(b"seed", 4);
        let s = schedule(&[7; 4], &order);
        assert_eq!(s, order, "one period of four views, in the tie-break order");
        let other = shuffled(b"another seed", 4);
        assert_ne!(order, other, "the seed decides the order");
        assert_eq!(schedule(&[5; 4], &other), other);
    }

    /// Over a period each member leads exactly in proportion to its stake, and a member
    /// with half the total never leads twice in a row.
    #[test]
    fn each_member_leads_in_proportion_to_its_stake() {
        let cby = 10u128.pow(18);
        let powers = [200 * cby, 100 * cby, 100 * cby, 400 * cby];
        let s = schedule(&powers, &shuffled(b"s", 4));
        assert_eq!(s.len(), 8, "the period: total / gcd = 800 / 100");
        assert_eq!(counts(&s, 4), [2, 1, 1, 4]);
        for pair in s.windows(2) {
            assert_ne!(pair[0], pair[1], "smooth: {s:?}");
        }
        // A ratio whose period is longer than the schedule: proportions hold to within one.
        let powers = [1_000_003u128, 2_000_029, 3_000_017];
        let s = schedule(&powers, &shuffled(b"s", 3));
        assert_eq!(s.len(), MAX_SCHEDULE);
        let total: u128 = powers.iter().sum();
        for (i, &c) in counts(&s, 3).iter().enumerate() {
            let want = MAX_SCHEDULE as f64 * powers[i] as f64 / total as f64;
            assert!(
                (c as f64 - want).abs() <= 1.0,
                "member {i}: {c} against {want}"
            );
        }
    }

    /// A whale and many minimum stakes: every member leads once the schedule allows, the
    /// whale in proportion.
    #[test]
    fn a_large_set_gives_every_member_its_views() {
        let mut powers = vec![1u128; 100];
        powers[17] = 900;
        let s = schedule(&powers, &shuffled(b"w", 100));
        assert_eq!(s.len(), 999);
        let c = counts(&s, 100);
        assert_eq!(c[17], 900);
        assert!(
            c.iter().enumerate().all(|(i, &k)| i == 17 || k == 1),
            "{c:?}"
        );
        // More members than views in a schedule: one view each.
        let s = schedule(
            &vec![3; MAX_SCHEDULE + 5],
            &(0..MAX_SCHEDULE + 5).collect::<Vec<_>>(),
        );
        assert_eq!(s.len(), MAX_SCHEDULE + 5);
        assert!(counts(&s, MAX_SCHEDULE + 5).iter().all(|&k| k == 1));
    }

    /// Extreme inputs neither panic nor overflow: powers near `u128::MAX`, zeros, one member.
    #[test]
    fn extreme_powers_are_scaled_not_overflowed() {
        let s = schedule(&[u128::MAX, u128::MAX / 3, 1], &[0, 1, 2]);
        assert!(!s.is_empty() && s.len() <= MAX_SCHEDULE);
        let c = counts(&s, 3);
        assert!(c[0] > 2 * c[1], "{c:?}");
        assert_eq!(schedule(&[0, 5, 0], &[2, 1, 0]), [1]);
        assert_eq!(schedule(&[0, 0], &[1, 0]), [1, 0], "all zero: all alike");
        assert_eq!(schedule(&[42], &[0]), [0]);
    }

    /// The elector simplex runs: the same schedule by view, from the set's own order.
    #[test]
    fn the_elector_follows_the_schedule_by_view() {
        use commonware_consensus::simplex::scheme::ed25519::Scheme as Votes;
        use commonware_consensus::types::{Epoch, View};
        use commonware_cryptography::Signer as _;
        use commonware_utils::TryFromIterator as _;
        let keys: Vec<ed25519::PublicKey> = (0..3u64)
            .map(|i| ed25519::PrivateKey::from_seed(i).public_key())
            .collect();
        let set = Set::try_from_iter(keys.clone()).unwrap();
        let powers = [
            (keys[0].clone(), 300u128),
            (keys[1].clone(), 100),
            (keys[2].clone(), 200),
        ];
        let elector: Leaders<Votes> =
            <StakeWeighted as Config<Votes>>::build(StakeWeighted::new(b"e", powers.clone()), &set);
        let by_index: Vec<u128> = set
            .iter()
            .map(|k| powers.iter().find(|(p, _)| p == k).unwrap().1)
            .collect();
        let want = schedule(&by_index, &shuffled(b"e", 3));
        for view in 0..20u64 {
            let round = Round::new(Epoch::new(4), View::new(view));
            let got = Elector::<Votes>::elect(&elector, round, ());
            assert_eq!(
                got,
                Participant::from_usize(want[view as usize % want.len()])
            );
        }
    }
}
