//! Intrinsic costs (whitepaper §17.2) and the per-transaction meters (§4.1, §17.3, §17.4).
//!
//! Every transaction pays a base cost in both meters before anything runs:
//!
//! | kind     | cycles                         | cells, beyond the calldata cells below       |
//! |----------|--------------------------------|----------------------------------------------|
//! | transfer | `transfer_base_cycles`         | 0                                            |
//! | deploy   | `deploy_base_cycles`           | `deploy_base_cells + per_code_byte · len(canonical source)` |
//! | call     | `actor_message_base_cycles`    | 0                                            |
//!
//! and every kind pays `calldata_cells_per_byte` for each byte of the **whole encoded
//! transaction** (§17.4 "1 cell/byte of transaction data": access list, payload, signature and
//! framing alike). So no byte a block carries is free, and the block's cell cap bounds its size
//! (`GenesisParams::max_block_bytes`). A deploy pays for its code twice on purpose: once as
//! data carried by the block, once as code written to the state.
//!
//! Cells that the spec prices in fractions (reads at 0.01/byte, events at 0.5/byte) are kept
//! in millicells and rounded **up** to whole cells when checked against the limit and when
//! billed, so a fraction is never free.

use cowboy_types::genesis::GenesisParams;
use cowboy_types::tx::Payload;

/// What the transaction's kind costs before execution.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Intrinsic {
    /// Base cycles.
    pub cycles: u64,
    /// Base cells.
    pub cells: u64,
}

/// Intrinsic cost of a decoded payload. `tx_size` is the whole transaction's encoded size;
/// for a deploy, `code_len` is the length of the canonical source.
pub fn intrinsic(
    params: &GenesisParams,
    payload: &Payload,
    tx_size: u64,
    code_len: u64,
) -> Intrinsic {
    let calldata = params.calldata_cells_per_byte.saturating_mul(tx_size);
    let (cycles, kind_cells) = match payload {
        Payload::Transfer => (params.transfer_base_cycles, 0),
        Payload::Deploy { .. } => (
            params.deploy_base_cycles,
            params
                .deploy_base_cells
                .saturating_add(params.deploy_cells_per_code_byte.saturating_mul(code_len)),
        ),
        Payload::Call { .. } => (params.actor_message_base_cycles, 0),
    };
    Intrinsic {
        cycles,
        cells: kind_cells.saturating_add(calldata),
    }
}

/// A meter ran out: which one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exhausted {
    /// The cycle limit.
    Cycles,
    /// The cell limit.
    Cells,
}

/// The two meters of one transaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TxMeter {
    cycles_limit: u64,
    cells_limit: u64,
    cycles: u64,
    millicells: u128,
}

impl TxMeter {
    /// Meters with the transaction's limits, nothing used.
    pub fn new(cycles_limit: u64, cells_limit: u64) -> Self {
        Self {
            cycles_limit,
            cells_limit,
            cycles: 0,
            millicells: 0,
        }
    }

    /// Cycles used so far.
    pub fn cycles(&self) -> u64 {
        self.cycles
    }

    /// Cells used so far (fractions rounded up).
    pub fn cells(&self) -> u64 {
        let whole = self.millicells.div_ceil(1000);
        u64::try_from(whole).unwrap_or(u64::MAX)
    }

    /// Cycles still available.
    pub fn cycles_left(&self) -> u64 {
        self.cycles_limit.saturating_sub(self.cycles)
    }

    /// Charge cycles; on exhaustion the meter is pinned at the limit (the sender pays for all
    /// of it, as for any out-of-cycles failure).
    pub fn charge_cycles(&mut self, n: u64) -> Result<(), Exhausted> {
        match self.cycles.checked_add(n) {
            Some(total) if total <= self.cycles_limit => {
                self.cycles = total;
                Ok(())
            }
            _ => {
                self.cycles = self.cycles_limit;
                Err(Exhausted::Cycles)
            }
        }
    }

    /// Charge whole cells.
    pub fn charge_cells(&mut self, n: u64) -> Result<(), Exhausted> {
        self.charge_millicells(u128::from(n) * 1000)
    }

    /// Charge thousandths of a cell; on exhaustion the meter is pinned at the limit.
    pub fn charge_millicells(&mut self, n: u128) -> Result<(), Exhausted> {
        let total = self.millicells.saturating_add(n);
        if total.div_ceil(1000) > u128::from(self.cells_limit) {
            self.millicells = u128::from(self.cells_limit) * 1000;
            return Err(Exhausted::Cells);
        }
        self.millicells = total;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fractional_cells_round_up_and_limits_pin() {
        let mut m = TxMeter::new(100, 2);
        m.charge_millicells(10).unwrap();
        assert_eq!(m.cells(), 1);
        m.charge_millicells(990).unwrap();
        assert_eq!(m.cells(), 1);
        m.charge_millicells(1).unwrap();
        assert_eq!(m.cells(), 2);
        assert_eq!(m.charge_millicells(1000), Err(Exhausted::Cells));
        assert_eq!(m.cells(), 2);
        assert_eq!(m.charge_cycles(60), Ok(()));
        assert_eq!(m.charge_cycles(41), Err(Exhausted::Cycles));
        assert_eq!(m.cycles(), 100);
        assert_eq!(m.cycles_left(), 0);
    }

    #[test]
    fn intrinsic_costs_follow_the_table() {
        let p = GenesisParams::default();
        // Every kind pays a cell per byte of the whole transaction.
        let t = intrinsic(&p, &Payload::Transfer, 120, 0);
        assert_eq!((t.cycles, t.cells), (10_000, 120));
        let call = Payload::Call {
            handler: "f".into(),
            args: cowboy_types::cbor::Value::Null,
        };
        let c = intrinsic(&p, &call, 37, 0);
        assert_eq!((c.cycles, c.cells), (10_000, 37));
        let dep = Payload::Deploy {
            source: "x".into(),
            salt: cowboy_types::Hash32([0; 32]),
            init_args: cowboy_types::cbor::Value::Null,
        };
        let d = intrinsic(&p, &dep, 500, 400);
        assert_eq!((d.cycles, d.cells), (50_000, 100 + 400 + 500));
    }
}
