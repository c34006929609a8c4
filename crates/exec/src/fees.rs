//! Dual-metered fees (whitepaper §2.3, §4.2, §4.3, §17.8 — §17 is authoritative).
//!
//! Two independent EIP-1559 markets, one for Cycles (compute) and one for Cells (bytes):
//!
//! ```text
//! fee = cycles_used · (bc + min(tip_c, max_c − bc)) + cells_used · (bb + min(tip_b, max_b − bb))
//! ```
//!
//! The sender reserves `cycles_limit · max_c + cells_limit · max_b` up front; after execution the
//! unused part is refunded (the spec's "refunded at the user's max_fee rates" is exactly
//! `reserved − fee`). Of the fee, the basefee part `cycles_used·bc + cells_used·bb` is burned
//! (`basefee_burn_bps` = 100%) and the rest, the tip, goes to the block's proposer. So a
//! transaction changes total supply by exactly `−burned`.
//!
//! Basefee update per block (§4.2), for each meter x with usage U, target T:
//! `b' = max(b_min, b · (1 + clamp((U − T) / (T · α), −δ, +δ)))`, computed in integers:
//! the change is `floor(b · |U − T| / (T · α))`, capped at `floor(b · δ_bps / 10_000)`.
//! **Deviation:** when `U > T` the increase is at least 1 wei (as EIP-1559 does), otherwise a
//! basefee of 1 could never rise — floor rounding would freeze it. Decreases round toward the
//! old value (floor of the change), so the floor `b_min` is reached only by real slack.

use cowboy_types::{GenesisParams, Transaction};
use std::fmt;

/// Why a transaction's fee parameters are unacceptable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FeeError {
    /// `max_fee_per_cycle` is below the block's cycle basefee.
    CycleFeeBelowBasefee {
        /// The transaction's maximum.
        max_fee: u128,
        /// The block's basefee.
        basefee: u128,
    },
    /// `max_fee_per_cell` is below the block's cell basefee.
    CellFeeBelowBasefee {
        /// The transaction's maximum.
        max_fee: u128,
        /// The block's basefee.
        basefee: u128,
    },
    /// `limit · max_fee` (plus value) does not fit 128 bits.
    Overflow,
    /// A limit above the protocol maximum (§2.2 (a), §13).
    LimitTooHigh {
        /// Which limit.
        meter: &'static str,
        /// The transaction's limit.
        limit: u64,
        /// The maximum.
        max: u64,
    },
    /// Usage above the transaction's own limit (an executor bug if it ever happens).
    UsageAboveLimit,
}

impl fmt::Display for FeeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FeeError::CycleFeeBelowBasefee { max_fee, basefee } => write!(
                f,
                "max_fee_per_cycle {max_fee} is below the cycle basefee {basefee}"
            ),
            FeeError::CellFeeBelowBasefee { max_fee, basefee } => write!(
                f,
                "max_fee_per_cell {max_fee} is below the cell basefee {basefee}"
            ),
            FeeError::Overflow => f.write_str("maximum fee overflows 128 bits"),
            FeeError::LimitTooHigh { meter, limit, max } => {
                write!(f, "{meter} limit {limit} exceeds the maximum {max}")
            }
            FeeError::UsageAboveLimit => f.write_str("usage exceeds the transaction's limit"),
        }
    }
}

impl std::error::Error for FeeError {}

/// The basefees in force for a block (wei per unit).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Basefees {
    /// Per cycle.
    pub cycle: u128,
    /// Per cell.
    pub cell: u128,
}

/// How a transaction's payment splits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FeeBreakdown {
    /// Total charged to the sender.
    pub fee: u128,
    /// Basefee part, destroyed.
    pub burned: u128,
    /// Tip part, credited to the proposer.
    pub tip: u128,
    /// Returned to the sender out of the reservation.
    pub refund: u128,
}

/// Price per unit actually paid: `basefee + min(tip, max_fee − basefee)`.
fn effective_price(basefee: u128, max_fee: u128, tip: u128) -> Option<u128> {
    let headroom = max_fee.checked_sub(basefee)?;
    Some(basefee + tip.min(headroom))
}

/// Checks the transaction's limits against the protocol maxima (§2.2 (a)): neither meter's limit
/// may exceed the block cap, since such a transaction could never be included.
pub fn check_limits(tx: &Transaction, params: &GenesisParams) -> Result<(), FeeError> {
    if tx.cycles_limit > params.block_cycles_cap {
        return Err(FeeError::LimitTooHigh {
            meter: "cycles",
            limit: tx.cycles_limit,
            max: params.block_cycles_cap,
        });
    }
    if tx.cells_limit > params.block_cells_cap {
        return Err(FeeError::LimitTooHigh {
            meter: "cells",
            limit: tx.cells_limit,
            max: params.block_cells_cap,
        });
    }
    Ok(())
}

/// What a payer offers for one execution: a transaction's limits and fee fields, or the bid a
/// timer's Gas Bidding Agent returns (`crate::timers`). One set of rules prices both.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FeeParams {
    /// Cycles limit.
    pub cycles_limit: u64,
    /// Cells limit.
    pub cells_limit: u64,
    /// Maximum price per cycle.
    pub max_fee_per_cycle: u128,
    /// Maximum price per cell.
    pub max_fee_per_cell: u128,
    /// Tip per cycle.
    pub tip_per_cycle: u128,
    /// Tip per cell.
    pub tip_per_cell: u128,
}

impl From<&Transaction> for FeeParams {
    fn from(tx: &Transaction) -> Self {
        FeeParams {
            cycles_limit: tx.cycles_limit,
            cells_limit: tx.cells_limit,
            max_fee_per_cycle: tx.max_fee_per_cycle,
            max_fee_per_cell: tx.max_fee_per_cell,
            tip_per_cycle: tx.tip_per_cycle,
            tip_per_cell: tx.tip_per_cell,
        }
    }
}

impl FeeParams {
    /// The tip per cycle actually paid at `basefees`: `min(tip, max_fee − basefee)` (0 when
    /// the maximum does not cover the basefee).
    pub fn effective_tip_per_cycle(&self, basefees: Basefees) -> u128 {
        self.tip_per_cycle
            .min(self.max_fee_per_cycle.saturating_sub(basefees.cycle))
    }
}

/// The amount reserved from the payer before execution: `cycles_limit · max_fee_per_cycle +
/// cells_limit · max_fee_per_cell`. Also checks both maximums cover the basefees.
pub fn reservation(fee: impl Into<FeeParams>, basefees: Basefees) -> Result<u128, FeeError> {
    let tx = fee.into();
    if tx.max_fee_per_cycle < basefees.cycle {
        return Err(FeeError::CycleFeeBelowBasefee {
            max_fee: tx.max_fee_per_cycle,
            basefee: basefees.cycle,
        });
    }
    if tx.max_fee_per_cell < basefees.cell {
        return Err(FeeError::CellFeeBelowBasefee {
            max_fee: tx.max_fee_per_cell,
            basefee: basefees.cell,
        });
    }
    let c = u128::from(tx.cycles_limit)
        .checked_mul(tx.max_fee_per_cycle)
        .ok_or(FeeError::Overflow)?;
    let b = u128::from(tx.cells_limit)
        .checked_mul(tx.max_fee_per_cell)
        .ok_or(FeeError::Overflow)?;
    c.checked_add(b).ok_or(FeeError::Overflow)
}

/// Splits the payment for `cycles_used`/`cells_used` (§2.3). Requires a successful
/// [`reservation`] for the same fee parameters and basefees.
pub fn settle(
    fee: impl Into<FeeParams>,
    basefees: Basefees,
    cycles_used: u64,
    cells_used: u64,
) -> Result<FeeBreakdown, FeeError> {
    let tx = fee.into();
    if cycles_used > tx.cycles_limit || cells_used > tx.cells_limit {
        return Err(FeeError::UsageAboveLimit);
    }
    let reserved = reservation(tx, basefees)?;
    let pc = effective_price(basefees.cycle, tx.max_fee_per_cycle, tx.tip_per_cycle)
        .ok_or(FeeError::Overflow)?;
    let pb = effective_price(basefees.cell, tx.max_fee_per_cell, tx.tip_per_cell)
        .ok_or(FeeError::Overflow)?;
    // Each product is bounded by the reservation (used ≤ limit, price ≤ max), so none overflows.
    let fee = u128::from(cycles_used) * pc + u128::from(cells_used) * pb;
    let burned = u128::from(cycles_used) * basefees.cycle + u128::from(cells_used) * basefees.cell;
    Ok(FeeBreakdown {
        fee,
        burned,
        tip: fee - burned,
        refund: reserved - fee,
    })
}

/// `floor(a · num / den)` without overflow for the magnitudes basefees take; saturates.
fn mul_div_floor(a: u128, num: u128, den: u128) -> u128 {
    let q = a / den;
    let r = a % den;
    q.saturating_mul(num)
        .saturating_add(r.saturating_mul(num) / den)
}

/// The next block's basefee for one meter (§4.2), given this block's usage.
pub fn next_basefee(
    basefee: u128,
    used: u64,
    target: u64,
    alpha: u64,
    max_change_bps: u64,
    min_basefee: u128,
) -> u128 {
    let target = target.max(1);
    let den = u128::from(target) * u128::from(alpha.max(1));
    let cap = mul_div_floor(basefee, u128::from(max_change_bps), 10_000);
    let next = if used > target {
        let change = mul_div_floor(basefee, u128::from(used - target), den)
            .min(cap)
            .max(1);
        basefee.saturating_add(change)
    } else {
        let change = mul_div_floor(basefee, u128::from(target - used), den).min(cap);
        basefee - change
    };
    next.max(min_basefee)
}

/// Both basefees for the next block.
pub fn next_basefees(
    current: Basefees,
    cycles_used: u64,
    cells_used: u64,
    params: &GenesisParams,
) -> Basefees {
    Basefees {
        cycle: next_basefee(
            current.cycle,
            cycles_used,
            params.block_cycles_target,
            params.basefee_alpha,
            params.basefee_max_change_bps,
            params.basefee_min_wei,
        ),
        cell: next_basefee(
            current.cell,
            cells_used,
            params.block_cells_target,
            params.basefee_alpha,
            params.basefee_max_change_bps,
            params.basefee_min_wei,
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cowboy_types::Address;

    fn tx(max_c: u128, tip_c: u128, max_b: u128, tip_b: u128) -> Transaction {
        Transaction {
            chain_id: 1,
            nonce: 0,
            to: Some(Address::system(0x200)),
            value: 0,
            cycles_limit: 100_000,
            cells_limit: 1_000,
            max_fee_per_cycle: max_c,
            max_fee_per_cell: max_b,
            tip_per_cycle: tip_c,
            tip_per_cell: tip_b,
            access_list: None,
            payload: vec![],
            signature: None,
        }
    }

    #[test]
    fn golden_fee_with_tips_below_headroom() {
        // bc = 10, bb = 4; tips 2 and 1 fit under the maxima 20 and 10.
        // fee = 60,000·(10+2) + 500·(4+1) = 720,000 + 2,500 = 722,500
        // burned = 60,000·10 + 500·4 = 602,000; tip = 120,500
        // reserved = 100,000·20 + 1,000·10 = 2,010,000; refund = 1,287,500
        let b = Basefees { cycle: 10, cell: 4 };
        let got = settle(&tx(20, 2, 10, 1), b, 60_000, 500).expect("valid");
        assert_eq!(
            got,
            FeeBreakdown {
                fee: 722_500,
                burned: 602_000,
                tip: 120_500,
                refund: 1_287_500
            }
        );
    }

    #[test]
    fn golden_fee_with_tips_capped_by_max_fee() {
        // Tip 50 per cycle but max 13 over basefee 10: effective 13. Cells: tip 9, max 5, bb 4 → 5.
        // fee = 1,000·13 + 10·5 = 13,050; burned = 1,000·10 + 10·4 = 10,040; tip = 3,010.
        let b = Basefees { cycle: 10, cell: 4 };
        let got = settle(&tx(13, 50, 5, 9), b, 1_000, 10).expect("valid");
        assert_eq!((got.fee, got.burned, got.tip), (13_050, 10_040, 3_010));
        assert_eq!(got.refund, 100_000 * 13 + 1_000 * 5 - 13_050);
    }

    #[test]
    fn max_fee_below_basefee_is_rejected() {
        let b = Basefees { cycle: 10, cell: 4 };
        assert_eq!(
            reservation(&tx(9, 0, 10, 0), b),
            Err(FeeError::CycleFeeBelowBasefee {
                max_fee: 9,
                basefee: 10
            })
        );
        assert_eq!(
            reservation(&tx(10, 0, 3, 0), b),
            Err(FeeError::CellFeeBelowBasefee {
                max_fee: 3,
                basefee: 4
            })
        );
        assert_eq!(
            reservation(&tx(u128::MAX, 0, 10, 0), b),
            Err(FeeError::Overflow)
        );
        assert_eq!(
            settle(&tx(20, 0, 10, 0), b, 100_001, 0),
            Err(FeeError::UsageAboveLimit)
        );
    }

    #[test]
    fn golden_basefee_updates() {
        let p = GenesisParams::default();
        let t = p.block_cycles_target; // 10,000,000; α = 8; δ = 12.5%
        let step = |b, u| next_basefee(b, u, t, p.basefee_alpha, p.basefee_max_change_bps, 1);
        // Full block (U = 2T): (U−T)/(Tα) = 1/8 = δ → +12.5%: 1,000,000,000 → 1,125,000,000.
        assert_eq!(step(1_000_000_000, 2 * t), 1_125_000_000);
        // Empty block: −1/8 → 875,000,000.
        assert_eq!(step(1_000_000_000, 0), 875_000_000);
        // At target: unchanged.
        assert_eq!(step(1_000_000_000, t), 1_000_000_000);
        // U = 1.5T: +0.5/8 = 6.25% → 1,062,500,000.
        assert_eq!(step(1_000_000_000, t + t / 2), 1_062_500_000);
        // U = 0.6T: −0.4/8 = −5% → 950,000,000.
        assert_eq!(step(1_000_000_000, t * 6 / 10), 950_000_000);
        // Floor: never below the minimum; a basefee of 1 can still rise.
        assert_eq!(step(1, 0), 1);
        assert_eq!(step(1, 2 * t), 2);
        // Cells market, target 500,000 bytes: 800 → 900 on a full block.
        let cells = next_basefees(
            Basefees {
                cycle: 8,
                cell: 800,
            },
            t,
            1_000_000,
            &p,
        );
        assert_eq!(
            cells,
            Basefees {
                cycle: 8,
                cell: 900
            }
        );
    }

    #[test]
    fn limits_above_the_block_cap_are_rejected() {
        let p = GenesisParams::default();
        let mut t = tx(1, 0, 1, 0);
        t.cycles_limit = p.block_cycles_cap + 1;
        assert_eq!(
            check_limits(&t, &p),
            Err(FeeError::LimitTooHigh {
                meter: "cycles",
                limit: p.block_cycles_cap + 1,
                max: p.block_cycles_cap
            })
        );
        t.cycles_limit = p.block_cycles_cap;
        assert_eq!(check_limits(&t, &p), Ok(()));
    }
}
