//! Transaction traces: the call tree of one transaction as it ran (issue 19, item 6).
//!
//! A [Trace] is recorded by [`crate::actors::TxRun`] when it is given one (a node re-executing
//! a finalized transaction for `cowboy_traceTransaction`); block production never records one,
//! and an untraced run only tests one `Option` per handler and per storage access. Each handler
//! invocation is a [Frame]: who called what with which value, the cycles and cells it used
//! (its own, not its messages'), the events it emitted, the storage it read and wrote (keys and
//! value sizes), and its outcome. A message's frame names the frame that sent it as its parent,
//! so the frames form the tree of the transaction's calls, delivered breadth-first as the
//! protocol delivers messages.
//!
//! A Python handler's frame also splits its cycles and cells by source line
//! ([`Frame::lines`], from the PVM's attribution, `cowboy_pvm::vm::profile`, which charges
//! nothing differently). Line 0 holds what ran outside the actor's lines: loading its code,
//! decoding arguments, and what exec charged around the VM (the return value's cells). The
//! lines always sum to the frame's totals. A frame keeps its [`MAX_FRAME_LINES`] costliest
//! lines; the rest are summed in [`Frame::other_lines`], so a trace's size is bounded by its
//! frames, not by its actors' source sizes.

use std::collections::BTreeMap;

use cowboy_pvm::vm::profile::LineCost;
use cowboy_types::{Address, Event};

use crate::actors::Failure;

/// What started a frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrameKind {
    /// The transaction's call of a handler.
    Call,
    /// The transaction's deploy: the new actor's `__init__`.
    Deploy,
    /// A message an earlier frame sent.
    Message,
}

impl FrameKind {
    /// Its name in a trace's JSON.
    pub fn name(self) -> &'static str {
        match self {
            FrameKind::Call => "call",
            FrameKind::Deploy => "deploy",
            FrameKind::Message => "message",
        }
    }
}

/// What a handler did to its actor's storage.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StorageOp {
    /// A read; the size is the value's, `None` if the key was absent.
    Read(Option<u64>),
    /// A write of a value of this size.
    Write(u64),
    /// A delete.
    Delete,
}

/// One storage access of a frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StorageAccess {
    /// The actor's storage key.
    pub key: Vec<u8>,
    /// What was done.
    pub op: StorageOp,
}

/// Most source lines a frame reports one by one (see the module docs).
pub const MAX_FRAME_LINES: usize = 100;

/// The costs of the lines a frame does not list one by one.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct OtherLines {
    /// How many lines.
    pub count: u64,
    /// Their cycles and cells together.
    pub cost: LineCost,
}

/// One handler invocation (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    /// The frame that sent this one's message; `None` for the transaction's own call.
    pub parent: Option<usize>,
    /// What started it.
    pub kind: FrameKind,
    /// The caller (the transaction's sender, or the actor that sent the message).
    pub from: Address,
    /// The actor run.
    pub to: Address,
    /// The handler (`__init__` for a deploy).
    pub handler: String,
    /// Value carried.
    pub value: u128,
    /// Message depth (0 for the transaction's own call).
    pub depth: u64,
    /// Cycles this handler used.
    pub cycles: u64,
    /// Cells this handler used.
    pub cells: u64,
    /// Events it emitted.
    pub events: Vec<Event>,
    /// Its storage reads and writes, in order.
    pub storage: Vec<StorageAccess>,
    /// Its costliest source lines (ascending; 0: outside the actor's lines) with what each
    /// cost; empty for a system actor.
    pub lines: Vec<(u32, LineCost)>,
    /// The lines beyond [`MAX_FRAME_LINES`], summed.
    pub other_lines: OtherLines,
    /// Its return value (canonical CBOR) or failure; `None` while it runs.
    pub outcome: Option<Result<Vec<u8>, Failure>>,
}

/// The frames of one transaction (see the module docs).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Trace {
    /// Every frame, in the order they started.
    pub frames: Vec<Frame>,
    /// The frames running now, innermost last (only the last is ever running: a handler's
    /// messages run after it returns).
    running: Vec<usize>,
}

impl Trace {
    /// The frame running now.
    pub(crate) fn current(&self) -> Option<usize> {
        self.running.last().copied()
    }

    /// Start a frame; returns its index.
    pub(crate) fn enter(&mut self, frame: Frame) -> usize {
        self.frames.push(frame);
        let index = self.frames.len() - 1;
        self.running.push(index);
        index
    }

    /// End the running frame with what it used, emitted and returned.
    pub(crate) fn exit(
        &mut self,
        cycles: u64,
        cells: u64,
        events: Vec<Event>,
        outcome: Result<Vec<u8>, Failure>,
    ) {
        if let Some(frame) = self.running.pop().and_then(|i| self.frames.get_mut(i)) {
            frame.cycles = cycles;
            frame.cells = cells;
            frame.events = events;
            frame.outcome = Some(outcome);
            frame.settle_lines();
        }
    }

    /// The running frame's costs by source line, as the PVM attributed them.
    pub(crate) fn lines(&mut self, lines: BTreeMap<u32, LineCost>) {
        if let Some(frame) = self.current().and_then(|i| self.frames.get_mut(i)) {
            frame.lines = lines.into_iter().collect();
        }
    }

    /// Record a storage access of the running frame.
    pub(crate) fn storage(&mut self, key: &[u8], op: StorageOp) {
        if let Some(frame) = self.current().and_then(|i| self.frames.get_mut(i)) {
            frame.storage.push(StorageAccess {
                key: key.to_vec(),
                op,
            });
        }
    }
}

impl Frame {
    /// Once the frame's totals are known: put what no line was charged with on line 0 (so
    /// the lines sum to the totals), then keep the costliest [`MAX_FRAME_LINES`] lines and
    /// sum the rest. A Python handler has lines; a frame without any (a system actor) stays
    /// without.
    fn settle_lines(&mut self) {
        if self.lines.is_empty() {
            return;
        }
        let (cycles, cells) = self.lines.iter().fold((0u64, 0u64), |(y, c), (_, l)| {
            (y.saturating_add(l.cycles), c.saturating_add(l.cells))
        });
        let outside = LineCost {
            cycles: self.cycles.saturating_sub(cycles),
            cells: self.cells.saturating_sub(cells),
        };
        if outside != LineCost::default() {
            match self.lines.first_mut() {
                Some((0, cost)) => {
                    cost.cycles += outside.cycles;
                    cost.cells += outside.cells;
                }
                _ => self.lines.insert(0, (0, outside)),
            }
        }
        if self.lines.len() > MAX_FRAME_LINES {
            // Costliest first (ties by line, so the choice is deterministic), then back in
            // line order.
            self.lines
                .sort_by_key(|(line, c)| (std::cmp::Reverse((c.cycles, c.cells)), *line));
            for (_, c) in self.lines.drain(MAX_FRAME_LINES..) {
                self.other_lines.count += 1;
                self.other_lines.cost.cycles += c.cycles;
                self.other_lines.cost.cells += c.cells;
            }
            self.lines.sort_by_key(|(line, _)| *line);
        }
    }
}
