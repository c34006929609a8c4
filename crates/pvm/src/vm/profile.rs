//! Per-source-line costs of one invocation, for transaction traces (issue 19, item 6).
//!
//! Off unless the embedder asks ([`crate::actor::invoke_profiled`]): a node re-executing a
//! finalized transaction for `cowboy_traceTransaction` does, block production never does.
//! Profiling only *reads* the meters: the dispatch loop tells the profile which instruction
//! starts next, and every cycle charged from then until the running line changes (the
//! instruction's own charge, the host calls it makes, the builtins and library Python it
//! runs) is added to that line. Nothing is charged differently, so a profiled run uses
//! exactly the cycles of an unprofiled one, and the lines' sum is the invocation's total.
//!
//! Lines are the actor's own (its file's). Code from elsewhere (the SDK's and the standard
//! library's Python) is counted at the actor line that called it, so a line's cost is
//! "what running this line cost", library calls included. Line 0 holds what ran before the
//! first actor instruction: loading (and compiling) the code and decoding the arguments.
//! Work after the last instruction (encoding the return value, persisting attributes) stays
//! with the last line run. The table has at most one entry per line of the source.

use std::collections::BTreeMap;
use std::rc::Rc;

use crate::value::Code;

/// What one source line cost.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LineCost {
    /// Cycles charged while the line ran.
    pub cycles: u64,
    /// Cells the host charged while the line ran (storage, events, messages, `/tmp`).
    pub cells: u64,
}

/// The running attribution (see the module docs).
#[derive(Debug)]
pub struct LineProfile {
    /// The actor's file name: only its code moves the running line.
    file: Rc<str>,
    /// The line being charged now (0: outside the actor's lines).
    line: u32,
    /// The meters when `line` started being charged.
    cycles_at: u64,
    cells_at: u64,
    lines: BTreeMap<u32, LineCost>,
}

impl LineProfile {
    /// A profile of the actor in `file`, starting from the meters now.
    pub fn new(file: &str, cycles: u64, cells: u64) -> LineProfile {
        LineProfile {
            file: file.into(),
            line: 0,
            cycles_at: cycles,
            cells_at: cells,
            lines: BTreeMap::new(),
        }
    }

    /// The instruction at `pc` of `code` starts, with the meters at `cycles` and `cells`.
    #[inline]
    pub(crate) fn at(&mut self, code: &Code, pc: usize, cycles: u64, cells: u64) {
        if !(Rc::ptr_eq(&code.filename, &self.file) || *code.filename == *self.file) {
            return;
        }
        let line = code.lines.get(pc).copied().unwrap_or(code.firstline);
        if line != self.line {
            self.flush(cycles, cells);
            self.line = line;
        }
    }

    /// Add what the meters moved since the last flush to the running line.
    fn flush(&mut self, cycles: u64, cells: u64) {
        let cost = self.lines.entry(self.line).or_default();
        cost.cycles = cost
            .cycles
            .saturating_add(cycles.saturating_sub(self.cycles_at));
        cost.cells = cost
            .cells
            .saturating_add(cells.saturating_sub(self.cells_at));
        self.cycles_at = cycles;
        self.cells_at = cells;
    }

    /// The costs by line, once the invocation has ended with the meters at `cycles`, `cells`.
    pub fn finish(mut self, cycles: u64, cells: u64) -> BTreeMap<u32, LineCost> {
        self.flush(cycles, cells);
        self.lines.retain(|_, c| *c != LineCost::default());
        self.lines
    }
}
