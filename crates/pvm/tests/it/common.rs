//! Shared helpers for the PVM integration tests: run a program on a big-stack thread, and an
//! in-memory host for actor invocations.

use cowboy_pvm::{Limits, RunOutcome};

/// Run `src` with `limits` on a thread with a generous stack.
pub fn run_with(src: &str, limits: Limits) -> RunOutcome {
    let src = src.to_string();
    std::thread::Builder::new()
        .stack_size(64 * 1024 * 1024)
        .spawn(move || cowboy_pvm::run(&src, "test.py", limits))
        .expect("spawn")
        .join()
        .expect("VM thread panicked")
}

/// Run with default (on-chain) limits and the given cycle budget.
pub fn run_cycles(src: &str, cycles: u64) -> RunOutcome {
    run_with(
        src,
        Limits {
            cycles: Some(cycles),
            ..Limits::default()
        },
    )
}

/// Last traceback line, or "" on success.
pub fn err_line(o: &RunOutcome) -> String {
    o.error.as_ref().map(|e| e.last_line()).unwrap_or_default()
}

/// An in-memory host for actor invocations: storage in a map, trivial answers elsewhere, and
/// `/tmp` bytes counted as cells against `cell_limit` (`u64::MAX`: unlimited).
pub struct MemHost {
    /// The call context every invocation sees.
    pub ctx: cowboy_pvm::host::CallContext,
    /// Actor storage.
    pub store: std::collections::BTreeMap<Vec<u8>, Vec<u8>>,
    /// Cells charged for `/tmp` so far.
    pub tmp_cells: u64,
    /// The cell budget for `/tmp`.
    pub cell_limit: u64,
    /// Messages sent so far: target, handler, encoded arguments, value.
    pub sent: Vec<(cowboy_pvm::host::Addr, String, Vec<u8>, u128)>,
}

impl MemHost {
    /// Empty storage, a fixed call context, `/tmp` capped at `cell_limit` cells.
    pub fn new(cell_limit: u64) -> MemHost {
        use cowboy_pvm::host::{BlockInfo, CallContext};
        MemHost {
            ctx: CallContext {
                self_address: [1; 20],
                sender: [2; 20],
                value: 0,
                block: BlockInfo {
                    height: 1,
                    timestamp_ms: 0,
                    chain_id: 1,
                    proposer: [3; 20],
                },
            },
            store: std::collections::BTreeMap::new(),
            tmp_cells: 0,
            cell_limit,
            sent: Vec::new(),
        }
    }
}

impl cowboy_pvm::host::Host for MemHost {
    fn context(&self) -> &cowboy_pvm::host::CallContext {
        &self.ctx
    }
    fn cells_used(&self) -> u64 {
        self.tmp_cells
    }
    fn storage_get(&mut self, key: &[u8]) -> Result<Option<Vec<u8>>, cowboy_pvm::host::HostError> {
        Ok(self.store.get(key).cloned())
    }
    fn storage_set(&mut self, key: &[u8], value: &[u8]) -> Result<(), cowboy_pvm::host::HostError> {
        self.store.insert(key.to_vec(), value.to_vec());
        Ok(())
    }
    fn storage_delete(&mut self, key: &[u8]) -> Result<(), cowboy_pvm::host::HostError> {
        self.store.remove(key);
        Ok(())
    }
    fn send_message(
        &mut self,
        to: cowboy_pvm::host::Addr,
        handler: &str,
        args: &[u8],
        value: u128,
    ) -> Result<[u8; 32], cowboy_pvm::host::HostError> {
        self.sent.push((to, handler.into(), args.to_vec(), value));
        Ok([0; 32])
    }
    fn emit_event(&mut self, _: &str, _: &[u8]) -> Result<(), cowboy_pvm::host::HostError> {
        Ok(())
    }
    fn transfer(
        &mut self,
        _: cowboy_pvm::host::Addr,
        _: u128,
    ) -> Result<(), cowboy_pvm::host::HostError> {
        Ok(())
    }
    fn balance(&mut self, _: cowboy_pvm::host::Addr) -> Result<u128, cowboy_pvm::host::HostError> {
        Ok(0)
    }
    fn randomness(&mut self, _: &[u8]) -> Result<[u8; 32], cowboy_pvm::host::HostError> {
        Ok([7; 32])
    }
    fn tmp_write(&mut self, bytes: u64) -> Result<(), cowboy_pvm::host::HostError> {
        if self.tmp_cells.saturating_add(bytes) > self.cell_limit {
            return Err(cowboy_pvm::host::HostError::OutOfCells);
        }
        self.tmp_cells += bytes;
        Ok(())
    }
}
