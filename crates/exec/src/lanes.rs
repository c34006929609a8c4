//! Lanes: reserved block capacity per kind of work, and the order of transactions in a block
//! (whitepaper §6.3, §6.4, §17.9).
//!
//! A block's cycle capacity is split into four lanes, in priority order: **system** (validator
//! updates, governance, slashing), **timer** (scheduled executions, delivered by `begin_block`),
//! **runner** (job results and attestations) and **user** (everything else). Each lane's
//! budget is its genesis share (`*_lane_bps`) of the block's cycle **cap**; what the system,
//! timer and runner lanes leave unused spills to the user lane, and the user lane never
//! borrows beyond that. A transaction fits its lane when its `cycles_limit` fits in what the
//! lane has left after what the lane's earlier transactions *used*, exactly as EIP-1559 checks
//! a gas limit against the block (and as [`crate::apply`] checks the block cap); it then
//! counts by the cycles it used. The check needs nothing but figures known before the
//! transaction runs, so an invalid position changes no state.
//!
//! **Why shares of the cap, not of the target.** §17.9's table lists the budgets against the
//! 10,000,000-cycle target (2M timer, 2.5M runner, 0.5M system, 5M user). Budgets summing to
//! the target would keep every block at or under target, and the basefee, which rises only
//! when usage exceeds the target (§4.2), could never rise: the fee market would be dead. The
//! percentages are the spec's; we apply them to the cap so the elasticity of §17.8 survives.
//!
//! **Lane of a transaction.** Only system-kind transactions use the system and runner lanes: a
//! call to a system actor whose handler the actor declares to be of that lane
//! ([`crate::system::SystemActor::lane`]). Everything else, including plain calls to system
//! actors, is a user transaction. The timer lane holds no transactions; timer deliveries in
//! `begin_block` draw on it.
//!
//! **Order.** A block's transactions run lane by lane in priority order; within a lane, by
//! `keccak256(R ‖ sender)` with `R` the block's randomness, then by nonce (§6.4's VRF
//! ordering). The proposer picks *which* transactions (by fee, within budgets) but not *where*
//! they go: [`order_key`] fixes the position, and a validator rejects a block out of order.

use cowboy_types::genesis::GenesisParams;
use cowboy_types::hash::keccak256_concat;
use cowboy_types::{Address, Hash32};

/// A block lane (§6.3), in priority order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Lane {
    /// Validator updates, governance, slashing.
    System,
    /// Scheduled timer executions.
    Timer,
    /// Runner job results and attestations.
    Runner,
    /// User transactions: their share plus what the others leave.
    User,
}

impl Lane {
    /// All lanes in priority (and block) order.
    pub const ALL: [Lane; 4] = [Lane::System, Lane::Timer, Lane::Runner, Lane::User];

    /// The lane's share of the block's cycle cap, in basis points.
    pub fn share_bps(self, params: &GenesisParams) -> u64 {
        match self {
            Lane::System => params.system_lane_bps,
            Lane::Timer => params.timer_lane_bps,
            Lane::Runner => params.runner_lane_bps,
            Lane::User => params.user_lane_bps,
        }
    }

    /// Lower-case name, for errors and the RPC.
    pub fn name(self) -> &'static str {
        match self {
            Lane::System => "system",
            Lane::Timer => "timer",
            Lane::Runner => "runner",
            Lane::User => "user",
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

impl std::fmt::Display for Lane {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Each lane's reserved budget for one block, in cycles of transaction limits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaneBudgets {
    reserved: [u64; 4],
}

impl LaneBudgets {
    /// The budgets the genesis parameters give.
    pub fn new(params: &GenesisParams) -> Self {
        let share = |lane: Lane| {
            let cap = u128::from(params.block_cycles_cap);
            u64::try_from(cap * u128::from(lane.share_bps(params)) / 10_000).unwrap_or(u64::MAX)
        };
        LaneBudgets {
            reserved: Lane::ALL.map(share),
        }
    }

    /// The lane's own reserve (the user lane's, before spill-over).
    pub fn reserved(&self, lane: Lane) -> u64 {
        self.reserved[lane.index()]
    }

    /// The most the lane can ever have in a block: its reserve, and for the user lane every
    /// other lane's too (all of it spilled). A cycles limit above this fits in no block.
    pub fn most(&self, lane: Lane) -> u64 {
        match lane {
            Lane::User => self
                .reserved
                .iter()
                .fold(0u64, |sum, r| sum.saturating_add(*r)),
            other => self.reserved(other),
        }
    }
}

/// A lane's budget does not have room for a transaction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaneFull {
    /// The lane.
    pub lane: Lane,
    /// Its budget in this block (with spill-over, for the user lane).
    pub budget: u64,
    /// Already used by earlier transactions of the lane.
    pub used: u64,
    /// The transaction's `cycles_limit`.
    pub limit: u64,
}

impl std::fmt::Display for LaneFull {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the {} lane has {} of its {} cycles left, less than the cycles limit {}",
            self.lane,
            self.budget.saturating_sub(self.used),
            self.budget,
            self.limit
        )
    }
}

/// What each lane has used so far in a block being built or verified.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaneMeter {
    budgets: LaneBudgets,
    used: [u64; 4],
}

impl LaneMeter {
    /// Nothing used yet.
    pub fn new(params: &GenesisParams) -> Self {
        LaneMeter {
            budgets: LaneBudgets::new(params),
            used: [0; 4],
        }
    }

    /// The lane's budget in this block. The user lane's includes what the other lanes have
    /// left unused; since the user lane runs last, their usage is final by then.
    pub fn budget(&self, lane: Lane) -> u64 {
        let own = self.budgets.reserved(lane);
        if lane != Lane::User {
            return own;
        }
        let spill: u64 = [Lane::System, Lane::Timer, Lane::Runner]
            .iter()
            .map(|l| {
                self.budgets
                    .reserved(*l)
                    .saturating_sub(self.used[l.index()])
            })
            .sum();
        own.saturating_add(spill)
    }

    /// What the lane has used.
    pub fn used(&self, lane: Lane) -> u64 {
        self.used[lane.index()]
    }

    /// Whether a transaction with cycles limit `limit` fits in what the lane has left.
    pub fn fits(&self, lane: Lane, limit: u64) -> Result<(), LaneFull> {
        let budget = self.budget(lane);
        let used = self.used(lane);
        match used.checked_add(limit) {
            Some(total) if total <= budget => Ok(()),
            _ => Err(LaneFull {
                lane,
                budget,
                used,
                limit,
            }),
        }
    }

    /// Count `cycles` used in the lane.
    pub fn record(&mut self, lane: Lane, cycles: u64) {
        let used = &mut self.used[lane.index()];
        *used = used.saturating_add(cycles);
    }
}

/// The position key of a sender's transactions within a lane: `keccak256(R ‖ sender)` (§6.4).
pub fn order_key(randomness: &Hash32, sender: &Address) -> Hash32 {
    keccak256_concat(&[&randomness.0, &sender.0])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budgets_are_shares_of_the_cap_and_spill_to_user_only() {
        let p = GenesisParams::default();
        let mut m = LaneMeter::new(&p);
        assert_eq!(m.budget(Lane::System), 1_000_000);
        assert_eq!(m.budget(Lane::Timer), 4_000_000);
        assert_eq!(m.budget(Lane::Runner), 5_000_000);
        // Nothing used elsewhere: the user lane may fill the whole block.
        assert_eq!(m.budget(Lane::User), 20_000_000);
        m.record(Lane::Timer, 3_000_000);
        m.fits(Lane::System, 1_000_000).unwrap();
        m.record(Lane::System, 1_000_000);
        assert_eq!(m.budget(Lane::User), 10_000_000 + 1_000_000 + 5_000_000);
        // A reserved lane never borrows.
        let full = m.fits(Lane::System, 1).unwrap_err();
        assert_eq!(
            (full.budget, full.used, full.limit),
            (1_000_000, 1_000_000, 1)
        );
        m.fits(Lane::User, 16_000_000).unwrap();
        m.record(Lane::User, 15_000_000);
        assert!(m.fits(Lane::User, 1_000_001).is_err());
        m.fits(Lane::User, 1_000_000).unwrap();
    }

    #[test]
    fn order_key_depends_on_randomness_and_sender() {
        let (a, b) = (Address([1; 20]), Address([2; 20]));
        let r = Hash32([9; 32]);
        assert_ne!(order_key(&r, &a), order_key(&r, &b));
        assert_ne!(order_key(&r, &a), order_key(&Hash32([8; 32]), &a));
    }
}
