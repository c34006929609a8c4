//! Voting power by stake: a member's vote counts its *seats*, a whole number in proportion to
//! its stake (issue 17, "voting power by stake").
//!
//! simplex counts a quorum as `2f + 1` of its participants. The node gives each member of an
//! epoch's set as many participant seats as its stake buys (`crates/node/src/seats.rs`), all
//! voting with the member's one signature, so a quorum is `2F + 1` of the *seats*: more than
//! two thirds of the stake, to within the rounding below. This module is the apportionment
//! every node and exec compute alike (integers only, from the committed set's powers).
//!
//! **The seat unit** is the smallest member's power, so a member with `k` times the smallest
//! stake holds `⌊k⌋` seats (at least one). A set whose total would pass [`MAX_SEATS`] seats
//! (its stakes spread over more than 4,096 smallest stakes) uses the unit `⌈total / MAX_SEATS⌉`
//! instead; a member below one unit then still holds one seat, so the seats of the very
//! smallest members round up by less than one seat each. Rounding is per member and never
//! more than one seat: each member's weight is within one seat of its exact share.
//!
//! **Why a cap.** Each seat is a participant the engine tracks votes for in every view, so the
//! total bounds the engine's work per view whatever the stakes (at most `MAX_SEATS + n`).
//! Certificates do not grow with seats: they carry one signature per member.

use commonware_utils::{Faults, N3f1};

/// The most seats a set is apportioned from its stakes (each member still holds at least one).
pub const MAX_SEATS: u128 = 4_096;

/// Each member's seats, in the order of `powers` (one power per member): `⌊power / unit⌋`,
/// at least one, with the unit of the module docs. Zero powers (never in a stored set) hold
/// one seat.
pub fn seats(powers: &[u128]) -> Vec<u32> {
    let total = powers.iter().fold(0u128, |t, p| t.saturating_add(*p));
    let smallest = powers.iter().copied().filter(|p| *p > 0).min().unwrap_or(1);
    let unit = smallest.max(total.div_ceil(MAX_SEATS)).max(1);
    powers
        .iter()
        .map(|p| u32::try_from(p / unit).unwrap_or(u32::MAX).max(1))
        .collect()
}

/// The seats a certificate needs among `total` seats: simplex's `2F + 1` of them (`N3f1`).
pub fn seat_quorum(total: u64) -> u64 {
    let total = u32::try_from(total).unwrap_or(u32::MAX);
    u64::from(N3f1::quorum(total))
}

/// The total of `seats`.
pub fn total_seats(seats: &[u32]) -> u64 {
    seats.iter().map(|s| u64::from(*s)).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_stakes_hold_one_seat_each() {
        assert_eq!(seats(&[7, 7, 7, 7]), vec![1, 1, 1, 1]);
        assert_eq!(seat_quorum(4), 3);
    }

    #[test]
    fn seats_are_multiples_of_the_smallest_stake() {
        let s = seats(&[10, 30, 25, 10]);
        assert_eq!(s, vec![1, 3, 2, 1]);
        // 7 seats: a quorum of 5 needs the member with 3, whatever the others do.
        assert_eq!(seat_quorum(total_seats(&s)), 5);
    }

    #[test]
    fn a_large_set_is_capped_and_every_member_keeps_a_seat() {
        // One member with a million times the smallest stake beside 100 minimum stakes.
        let mut powers = vec![1_000_000u128; 1];
        powers.extend(std::iter::repeat_n(1u128, 100));
        let s = seats(&powers);
        let total = total_seats(&s);
        assert!(total <= MAX_SEATS as u64 + powers.len() as u64, "{total}");
        assert!(s.iter().all(|x| *x >= 1));
        // The large member's share of the seats is its share of the stake to within a seat
        // per member.
        let exact = 1_000_000f64 / 1_000_100f64;
        let got = f64::from(s[0]) / total as f64;
        assert!(
            (exact - got).abs() < 101.0 / total as f64,
            "{got} vs {exact}"
        );
    }

    #[test]
    fn extreme_powers_neither_overflow_nor_panic() {
        let s = seats(&[u128::MAX, u128::MAX, 1]);
        assert!(s.iter().all(|x| *x >= 1));
        assert_eq!(seats(&[0, 0]), vec![1, 1]);
        assert_eq!(seats(&[]), Vec::<u32>::new());
        assert_eq!(seat_quorum(u64::MAX), u64::from(N3f1::quorum(u32::MAX)));
    }
}
