//! Property: settling a transaction changes total supply by exactly the burned basefees, and
//! every wei of the reservation is accounted for (fee + refund = reserved, fee = burned + tip).

use cowboy_exec::fees::{next_basefee, reservation, settle, Basefees};
use cowboy_types::{Address, Transaction};
use proptest::prelude::*;

proptest! {
    #[test]
    fn supply_changes_by_exactly_the_burn(
        bc in 1u128..1_000_000_000_000, bb in 1u128..1_000_000_000_000,
        extra_c in 0u128..1_000_000_000_000, extra_b in 0u128..1_000_000_000_000,
        tip_c in 0u128..2_000_000_000_000, tip_b in 0u128..2_000_000_000_000,
        cycles_limit in 0u64..20_000_000, cells_limit in 0u64..1_000_000,
        used_c_frac in 0u64..=1000, used_b_frac in 0u64..=1000,
    ) {
        let tx = Transaction {
            chain_id: 1, nonce: 0, to: Some(Address::system(0x300)), value: 0,
            cycles_limit, cells_limit,
            max_fee_per_cycle: bc + extra_c, max_fee_per_cell: bb + extra_b,
            tip_per_cycle: tip_c, tip_per_cell: tip_b,
            access_list: None, payload: vec![], signature: None,
        };
        let basefees = Basefees { cycle: bc, cell: bb };
        let used_c = cycles_limit / 1000 * used_c_frac;
        let used_b = cells_limit / 1000 * used_b_frac;
        let reserved = reservation(&tx, basefees).expect("maxima cover basefees");
        let s = settle(&tx, basefees, used_c, used_b).expect("valid usage");
        prop_assert_eq!(s.fee + s.refund, reserved);
        prop_assert_eq!(s.burned + s.tip, s.fee);

        // Balances: sender starts with exactly the reservation, proposer with nothing.
        let (sender0, proposer0) = (reserved, 0u128);
        let sender1 = sender0 - reserved + s.refund;
        let proposer1 = proposer0 + s.tip;
        prop_assert_eq!((sender0 + proposer0) - (sender1 + proposer1), s.burned);
        // The proposer's tip never exceeds what the sender's tip caps allow.
        prop_assert!(s.tip <= u128::from(used_c) * tip_c + u128::from(used_b) * tip_b);
    }

    #[test]
    fn basefee_moves_at_most_delta_and_never_below_one(
        b in 1u128..1_000_000_000_000_000, used in 0u64..=20_000_000,
    ) {
        let n = next_basefee(b, used, 10_000_000, 8, 1250, 1);
        prop_assert!(n >= 1);
        let cap = b / 8 + 1;
        prop_assert!(n <= b + cap && n + cap >= b);
        if used > 10_000_000 { prop_assert!(n > b); }
        if used < 10_000_000 { prop_assert!(n <= b); }
    }
}
