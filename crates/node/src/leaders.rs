//! Leader election by stake (whitepaper, "Consensus and Networking": the proposer is
//! "selected by VRF, weighted by stake"; issue 17): each epoch's simplex engine takes its
//! leaders from a schedule in which every member leads in proportion to its stake, not once
//! per rotation whatever it staked.
//!
//! **The schedule.** Built once per epoch from the active set the staking actor took (each
//! member's `power`, its stake at the boundary) and the epoch's seed (derived from the
//! boundary block's beacon randomness), by *smooth weighted round robin* (the proposer
//! priority CometBFT uses, nginx's upstream balancing): every step, each member's priority
//! grows by its power, the highest leads and falls by the total. Each member leads its share
//! of the views to within a view or two, spread out rather than in runs (with powers
//! 2 : 1 : 1 a member leads every other view). Equal stakes give a plain rotation. Ties go to the member first in an order
//! shuffled by the seed (`keccak256(seed ‖ index)`), so who leads first, and the order among
//! equals, is unknown before the boundary's beacon signature, as it was with commonware's
//! `RoundRobin::shuffled`, which this replaces.
//!
//! **Bounds.** The schedule is `max(MAX_SCHEDULE, n)` views long and repeats after that;
//! building it costs that many steps of `n` additions (a set of 1,000 members: ~8 M, once an
//! epoch). Each member's count over the schedule is within a view or two of its share, so
//! a member whose share is below one view in 8,192 (more than two 3,600-block epochs) may
//! not lead in the epoch, as it would expect to lead less than once in one anyway. Powers
//! are in wei; they are scaled down by a common shift only if their total passes 2^90 (about
//! a billion CBY).
//!
//! **Rotation is mandatory** (whitepaper §6.1, for MEV resistance): no member leads two views
//! in a row while another can lead, so a member with more than half the stake leads every
//! other view, not its full share (3 : 1 gives A B A B, where the bare priority order gives
//! A A B A). The schedule is cut by one view where it would otherwise end with the leader it
//! starts with, so rotation holds across its repetition too.
//!
//! **Where it differs from the whitepaper.** The schedule is drawn once an epoch from the
//! epoch's seed, not per view by a VRF: simplex's per-view random elector needs its
//! threshold-signature vote scheme, and our votes are attributable Ed25519 (node README,
//! "Leader election"). Rotation is by view: a view that times out without a block can leave
//! one member proposing two consecutive blocks.
//!
//! **Seats.** Votes weigh by stake through seats (`crate::seats`): a member's derived seats
//! are participants with no power here, and never lead; each member leads at its own seat.
//! Leading in proportion to stake gives a member the share of proposals, and so of tips,
//! that its stake pays for.
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

/// Views in a schedule before it repeats (a set larger than this gets one view per member).
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
        // The members lead, at their own seats; a member's derived seats (`crate::seats`)
        // have no power here and never lead. A set with no powers at all (never built) would
        // lead at its first participant rather than stop the engine.
        let members: Vec<(usize, u128)> = participants
            .iter()
            .enumerate()
            .filter_map(|(i, key)| Some((i, *self.power.get(key)?)))
            .collect();
        let powers: Vec<u128> = members.iter().map(|(_, p)| *p).collect();
        let order = shuffled(&self.seed, members.len());
        let leaders: Vec<Participant> = schedule(&powers, &order)
            .into_iter()
            .filter_map(|m| members.get(m).map(|(i, _)| Participant::from_usize(*i)))
            .collect();
        let leaders = if leaders.is_empty() {
            vec![Participant::new(0)]
        } else {
            leaders
        };
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
    // Scale down until the total fits in 2^90, keeping every positive power positive. A
    // priority moves by at most the total a view (rotation can hold a leader back), so over
    // a schedule of at most 2^36 views it stays far inside i128.
    while powers
        .iter()
        .try_fold(0u128, |t, &p| t.checked_add(p))
        .is_none_or(|t| t > 1 << 90)
    {
        for p in &mut powers {
            *p = if *p == 0 { 0 } else { (*p >> 1).max(1) };
        }
    }
    let divisor = powers.iter().fold(0u128, |g, &p| gcd(g, p)).max(1);
    let weights: Vec<i128> = powers.iter().map(|&p| (p / divisor) as i128).collect();
    let total: i128 = weights.iter().sum();
    let len = MAX_SCHEDULE.max(n);
    // Rotation is mandatory (whitepaper §6.1) once two members can lead: the last leader
    // waits a view even when its priority is still the highest.
    let rotate = weights.iter().filter(|&&w| w > 0).count() > 1;
    let mut priority = vec![0i128; n];
    let mut leaders: Vec<usize> = Vec::with_capacity(len);
    for _ in 0..len {
        for (p, w) in priority.iter_mut().zip(&weights) {
            *p += w;
        }
        let last = leaders.last().copied().filter(|_| rotate);
        // The highest priority, the first in `order` among equals.
        let mut best: Option<usize> = None;
        for &i in order {
            if Some(i) != last && best.is_none_or(|b| priority[i] > priority[b]) {
                best = Some(i);
            }
        }
        // Always found: a set that rotates has a member besides the last leader.
        let best = best.unwrap_or(order[0]);
        priority[best] -= total;
        leaders.push(best);
    }
    // The schedule repeats: it must not end with the leader it starts with. The last is not
    // the one before it, so dropping it leaves a schedule that rotates across the wrap too.
    if rotate && leaders.len() > 2 && leaders.first() == leaders.last() {
        leaders.pop();
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

    /// Each member's count over `s` is within `slack` views of its share of `powers`.
    fn in_proportion(s: &[usize], powers: &[u128], slack: f64) {
        let total: f64 = powers.iter().map(|&p| p as f64).sum();
        for (i, &c) in counts(s, powers.len()).iter().enumerate() {
            let want = s.len() as f64 * powers[i] as f64 / total;
            assert!(
                (c as f64 - want).abs() <= slack,
                "member {i}: {c} against {want}"
            );
        }
    }

    /// No member leads two views in a row, the last view and the first included (the
    /// schedule repeats).
    fn rotates(s: &[usize]) {
        for i in 0..s.len() {
            assert_ne!(s[i], s[(i + 1) % s.len()], "views {i} and the next");
        }
    }

    /// Equal stakes: a plain rotation in the shuffled order.
    #[test]
    fn equal_stakes_rotate_in_the_seeds_order() {
        let order = shuffled(b"seed", 4);
        let s = schedule(&[7; 4], &order);
        assert_eq!(s.len(), MAX_SCHEDULE);
        assert!(
            s.iter().enumerate().all(|(i, &l)| l == order[i % 4]),
            "{:?}",
            &s[..8]
        );
        let other = shuffled(b"another seed", 4);
        assert_ne!(order, other, "the seed decides the order");
        assert_eq!(schedule(&[5; 4], &other)[..4], other[..]);
    }

    /// Each member leads in proportion to its stake, spread out: no one twice in a row.
    #[test]
    fn each_member_leads_in_proportion_to_its_stake() {
        let cby = 10u128.pow(18);
        let powers = [200 * cby, 100 * cby, 100 * cby, 400 * cby];
        let s = schedule(&powers, &shuffled(b"s", 4));
        assert_eq!(counts(&s[..8], 4), [2, 1, 1, 4], "{:?}", &s[..8]);
        in_proportion(&s, &powers, 1.0);
        rotates(&s);
        let powers = [1_000_003u128, 2_000_029, 3_000_017];
        let s = schedule(&powers, &shuffled(b"s", 3));
        in_proportion(&s, &powers, 2.0);
        rotates(&s);
    }

    /// A whale and many minimum stakes: every member leads, the whale in proportion while
    /// its share is under half; above half, every other view (rotation is mandatory).
    #[test]
    fn a_large_set_gives_every_member_its_views() {
        let mut powers = vec![1u128; 100];
        powers[17] = 80;
        let s = schedule(&powers, &shuffled(b"w", 100));
        in_proportion(&s, &powers, 2.0);
        assert!(
            counts(&s, 100).iter().all(|&k| k >= 40),
            "{:?}",
            counts(&s, 100)
        );
        rotates(&s);
        powers[17] = 900;
        let s = schedule(&powers, &shuffled(b"w", 100));
        let c = counts(&s, 100);
        assert!(
            c[17] * 2 <= s.len() && c[17] * 2 + 1 >= s.len(),
            "{} of {}",
            c[17],
            s.len()
        );
        assert!(c.iter().all(|&k| k >= 40), "{c:?}");
        rotates(&s);
        assert_eq!(
            schedule(&[3, 1], &[0, 1])[..4],
            [0, 1, 0, 1],
            "3 : 1 rotates"
        );
        // More members than views in a schedule: one view each.
        let n = MAX_SCHEDULE + 5;
        let s = schedule(&vec![3; n], &(0..n).collect::<Vec<_>>());
        assert_eq!(s.len(), n);
        assert!(counts(&s, n).iter().all(|&k| k == 1));
    }

    /// Extreme inputs neither panic nor overflow: powers near `u128::MAX`, zeros, one member.
    #[test]
    fn extreme_powers_are_scaled_not_overflowed() {
        let s = schedule(&[u128::MAX, u128::MAX / 3, u128::MAX / 3], &[0, 1, 2]);
        let c = counts(&s, 3);
        assert!(c[0] * 2 <= s.len() && c[0] * 2 + 1 >= s.len(), "{c:?}");
        assert!(c[1].abs_diff(c[2]) <= 1, "{c:?}");
        rotates(&s);
        let s = schedule(&[u128::MAX, 1], &[0, 1]);
        rotates(&s);
        assert!(
            schedule(&[0, 5, 0], &[2, 1, 0]).iter().all(|&l| l == 1),
            "only 1 has power"
        );
        assert_eq!(
            schedule(&[0, 0], &[1, 0])[..4],
            [1, 0, 1, 0],
            "all zero: all alike"
        );
        assert!(schedule(&[42], &[0]).iter().all(|&l| l == 0));
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

    #[test]
    fn only_members_lead_among_their_seats() {
        use crate::seats::{Members, Seats};
        use commonware_consensus::types::{Epoch, View};
        use commonware_cryptography::certificate::Scheme as _;
        use commonware_cryptography::Signer as _;
        use commonware_utils::ordered::Quorum as _;
        use commonware_utils::TryFromIterator as _;
        let keys: Vec<ed25519::PublicKey> = (0..3u64)
            .map(|i| ed25519::PrivateKey::from_seed(i).public_key())
            .collect();
        let powers = [
            (keys[0].clone(), 300u128),
            (keys[1].clone(), 100),
            (keys[2].clone(), 200),
        ];
        let seats = Seats::verifier(b"e", Members::new(powers.clone()).unwrap());
        // Six seats: three members and three derived seats.
        assert_eq!(seats.participants().len(), 6);
        let elector: Leaders<Seats> = <StakeWeighted as Config<Seats>>::build(
            StakeWeighted::new(b"e", powers.clone()),
            seats.participants(),
        );
        // The same leaders as over the members alone, at their own seats.
        let members = Set::try_from_iter(keys.clone()).unwrap();
        let plain: Leaders<Seats> =
            <StakeWeighted as Config<Seats>>::build(StakeWeighted::new(b"e", powers), &members);
        for view in 0..40u64 {
            let round = Round::new(Epoch::new(4), View::new(view));
            let at_seat = Elector::<Seats>::elect(&elector, round, ());
            let key = seats.participants().key(at_seat).unwrap();
            let member = Elector::<Seats>::elect(&plain, round, ());
            assert_eq!(Some(key), members.key(member), "view {view}");
        }
    }
}
