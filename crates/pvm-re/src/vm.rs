//! The backtracking VM: runs a compiled program over a subject with an
//! explicit backtrack stack (never the Rust stack), charging the caller's
//! meter one step per instruction executed, per character a single-character
//! repeat examines, and per backtrack entry popped (CIP-3 §2.2: every
//! computational step is metered). The stack and capture state count
//! against the caller's memory limit.
//!
//! Every state change (capture slot, loop counter, `lastindex`) is logged on
//! the same stack as choice points, so backtracking restores state exactly
//! and a failed attempt leaves the state pristine for the next start
//! position. Atomic groups and lookarounds push a barrier; leaving one
//! removes the choice points above it but keeps the undo entries.

use crate::compile::{AtOp, Fold, Inst, Program};
use crate::error::MatchError;
use crate::unicode;
use crate::{Limits, Meter};

/// Steps are charged to the meter in batches of this size (and the remainder
/// when a run ends), so the total charged equals the steps executed and a
/// budget is overrun by at most `BATCH - 1` steps.
pub const BATCH: u64 = 64;
/// Accounted bytes per backtrack-stack entry (a fixed figure, not
/// `size_of`, so the limit is the same on every platform).
pub const ENTRY_BYTES: u64 = 32;
/// Accounted bytes per capture slot or loop register word.
pub const WORD_BYTES: u64 = 8;

const NONE: usize = usize::MAX;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Barrier {
    Atomic,
    Look,
    NegLook,
}

#[derive(Clone, Copy, Debug)]
enum Entry {
    Choice {
        pc: usize,
        pos: usize,
    },
    /// Greedy single-character repeat: may give back characters down to `min`.
    RepOne {
        pc: usize,
        start: usize,
        count: usize,
        min: usize,
    },
    /// Lazy single-character repeat: may take more characters up to `max`.
    RepOneLazy {
        pc: usize,
        start: usize,
        count: usize,
        max: usize,
    },
    Slot {
        slot: usize,
        old: usize,
    },
    Reg {
        reg: usize,
        count: u32,
        last: usize,
    },
    LastIndex(usize),
    Barrier {
        kind: Barrier,
        pos: usize,
        after: usize,
    },
}

/// Per-run options.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RunOpts {
    /// Only try the first start position (`match`, `fullmatch`).
    pub(crate) anchored: bool,
    /// Only succeed when the match ends at the end of the subject.
    pub(crate) full: bool,
    /// Reject an empty match at `must_advance_at` (finditer/sub/split rule).
    pub(crate) must_advance_at: Option<usize>,
}

/// Outcome of one successful attempt.
pub(crate) struct Found {
    pub(crate) end: usize,
    pub(crate) slots: Vec<usize>,
    pub(crate) lastindex: usize,
}

/// The VM state for a run over one subject.
pub(crate) struct Vm<'a, M: Meter + ?Sized> {
    prog: &'a Program,
    text: &'a [u32],
    meter: &'a mut M,
    limits: Limits,
    slots: Vec<usize>,
    regs: Vec<(u32, usize)>,
    lastindex: usize,
    stack: Vec<Entry>,
    pending: u64,
    fixed_bytes: u64,
}

impl<'a, M: Meter + ?Sized> Vm<'a, M> {
    /// `text` must already be cut at `endpos`.
    pub(crate) fn new(
        prog: &'a Program,
        text: &'a [u32],
        meter: &'a mut M,
        limits: Limits,
    ) -> Result<Self, MatchError> {
        let fixed_words = (prog.slots + 2 * prog.regs) as u64;
        let fixed_bytes = fixed_words.saturating_mul(WORD_BYTES);
        if fixed_bytes > limits.max_memory {
            return Err(MatchError::MemoryLimit);
        }
        Ok(Vm {
            prog,
            text,
            meter,
            limits,
            slots: vec![NONE; prog.slots],
            regs: vec![(0, NONE); prog.regs],
            lastindex: 0,
            stack: Vec::new(),
            pending: 0,
            fixed_bytes,
        })
    }

    #[inline]
    fn step(&mut self, n: u64) -> Result<(), MatchError> {
        self.pending += n;
        if self.pending >= BATCH {
            let charge = self.pending - self.pending % BATCH;
            self.pending -= charge;
            self.meter.charge(charge)?;
        }
        Ok(())
    }

    /// Charges the steps not yet charged.
    pub(crate) fn flush(&mut self) -> Result<(), MatchError> {
        let p = self.pending;
        self.pending = 0;
        if p > 0 {
            self.meter.charge(p)?;
        }
        Ok(())
    }

    fn push(&mut self, e: Entry) -> Result<(), MatchError> {
        let bytes = (self.stack.len() as u64 + 1)
            .saturating_mul(ENTRY_BYTES)
            .saturating_add(self.fixed_bytes);
        if bytes > self.limits.max_memory {
            return Err(MatchError::MemoryLimit);
        }
        self.stack.push(e);
        Ok(())
    }

    fn set_slot(&mut self, slot: usize, v: usize) -> Result<(), MatchError> {
        let old = self.slots.get(slot).copied().unwrap_or(NONE);
        self.push(Entry::Slot { slot, old })?;
        if let Some(s) = self.slots.get_mut(slot) {
            *s = v;
        }
        if slot % 2 == 1 {
            let old = self.lastindex;
            self.push(Entry::LastIndex(old))?;
            self.lastindex = slot / 2;
        }
        Ok(())
    }

    fn set_reg(&mut self, reg: usize, v: (u32, usize)) -> Result<(), MatchError> {
        let (count, last) = self.regs.get(reg).copied().unwrap_or((0, NONE));
        self.push(Entry::Reg { reg, count, last })?;
        if let Some(r) = self.regs.get_mut(reg) {
            *r = v;
        }
        Ok(())
    }

    fn at(&self, op: AtOp, pos: usize) -> bool {
        let end = self.text.len();
        let nl = u32::from(b'\n');
        let before = if pos > 0 {
            self.text.get(pos - 1).copied()
        } else {
            None
        };
        let here = self.text.get(pos).copied();
        match op {
            AtOp::Beginning => pos == 0,
            AtOp::BeginLine => pos == 0 || before == Some(nl),
            AtOp::End => pos == end || (pos + 1 == end && here == Some(nl)),
            AtOp::EndLine => pos == end || here == Some(nl),
            AtOp::EndString => pos == end,
            AtOp::Boundary { ascii } | AtOp::NonBoundary { ascii } => {
                if end == 0 {
                    return false;
                }
                let word = |c: u32| {
                    if ascii {
                        unicode::ascii_word(c)
                    } else {
                        unicode::uni_word(c)
                    }
                };
                let that = before.is_some_and(word);
                let this = here.is_some_and(word);
                matches!(op, AtOp::Boundary { .. }) == (this != that)
            }
        }
    }

    fn group_span(&self, g: usize) -> Option<(usize, usize)> {
        let s = self.slots.get(2 * g).copied().unwrap_or(NONE);
        let e = self.slots.get(2 * g + 1).copied().unwrap_or(NONE);
        if s == NONE || e == NONE || e < s {
            None
        } else {
            Some((s, e))
        }
    }

    /// Removes the choice points above the innermost barrier, keeping the
    /// undo entries, and returns the barrier.
    fn cut_to_barrier(&mut self) -> Result<Option<Entry>, MatchError> {
        let Some(b) = self
            .stack
            .iter()
            .rposition(|e| matches!(e, Entry::Barrier { .. }))
        else {
            return Ok(None);
        };
        self.step((self.stack.len() - b) as u64)?;
        let barrier = self.stack.get(b).copied();
        let kept: Vec<Entry> = self
            .stack
            .drain(b..)
            .filter(|e| {
                matches!(
                    e,
                    Entry::Slot { .. } | Entry::Reg { .. } | Entry::LastIndex(_)
                )
            })
            .collect();
        self.stack.extend(kept);
        Ok(barrier)
    }

    /// Undoes everything above the innermost barrier, removing it too.
    fn unwind_to_barrier(&mut self) -> Result<(), MatchError> {
        while let Some(e) = self.stack.pop() {
            self.step(1)?;
            match e {
                Entry::Barrier { .. } => return Ok(()),
                other => self.undo(other),
            }
        }
        Ok(())
    }

    fn undo(&mut self, e: Entry) {
        match e {
            Entry::Slot { slot, old } => {
                if let Some(s) = self.slots.get_mut(slot) {
                    *s = old;
                }
            }
            Entry::Reg { reg, count, last } => {
                if let Some(r) = self.regs.get_mut(reg) {
                    *r = (count, last);
                }
            }
            Entry::LastIndex(old) => self.lastindex = old,
            _ => {}
        }
    }

    /// Pops entries until one gives a place to resume; `None` when the
    /// attempt has failed for good (the state is then pristine again).
    fn backtrack(&mut self) -> Result<Option<(usize, usize)>, MatchError> {
        while let Some(e) = self.stack.pop() {
            self.step(1)?;
            match e {
                Entry::Choice { pc, pos } => return Ok(Some((pc, pos))),
                Entry::RepOne {
                    pc,
                    start,
                    count,
                    min,
                } => {
                    let c = count - 1;
                    if c > min {
                        self.push(Entry::RepOne {
                            pc,
                            start,
                            count: c,
                            min,
                        })?;
                    }
                    return Ok(Some((pc, start + c)));
                }
                Entry::RepOneLazy {
                    pc,
                    start,
                    count,
                    max,
                } => {
                    let p = start + count;
                    let Some(Inst::RepOne { unit, .. }) = self.prog.insts.get(pc.wrapping_sub(1))
                    else {
                        continue;
                    };
                    if count >= max {
                        continue;
                    }
                    self.step(unit.cost())?;
                    if self.text.get(p).is_some_and(|&c| unit.test(c)) {
                        if count + 1 < max {
                            self.push(Entry::RepOneLazy {
                                pc,
                                start,
                                count: count + 1,
                                max,
                            })?;
                        }
                        return Ok(Some((pc, p + 1)));
                    }
                }
                Entry::Barrier {
                    kind: Barrier::NegLook,
                    pos,
                    after,
                } => return Ok(Some((after, pos))),
                Entry::Barrier { .. } => {}
                other => self.undo(other),
            }
        }
        Ok(None)
    }

    /// Runs one attempt starting at `start`.
    #[expect(
        clippy::too_many_lines,
        reason = "the interpreter loop is one match over the instruction set"
    )]
    pub(crate) fn run(&mut self, start: usize, opts: RunOpts) -> Result<Option<Found>, MatchError> {
        let mut pc = 0usize;
        let mut pos = start;
        loop {
            self.step(1)?;
            let ok = match self.prog.insts.get(pc) {
                None => false,
                Some(Inst::Unit(u)) => {
                    // One step is already charged; large classes cost more.
                    self.step(u.cost() - 1)?;
                    let hit = self.text.get(pos).is_some_and(|&c| u.test(c));
                    if hit {
                        pos += 1;
                        pc += 1;
                    }
                    hit
                }
                Some(Inst::At(op)) => {
                    let ok = self.at(*op, pos);
                    pc += 1;
                    ok
                }
                Some(Inst::Backref { group, fold }) => match self.group_span(*group) {
                    None => false,
                    Some((s, e)) => {
                        let n = e - s;
                        let fold = *fold;
                        self.step(n as u64)?;
                        let a = self.text.get(s..e);
                        let b = self.text.get(pos..pos.saturating_add(n));
                        let eq = match (a, b) {
                            (Some(a), Some(b)) => a.iter().zip(b).all(|(&x, &y)| match fold {
                                Fold::None => x == y,
                                Fold::Ascii => unicode::ascii_lower(x) == unicode::ascii_lower(y),
                                Fold::Uni => unicode::uni_lower(x) == unicode::uni_lower(y),
                            }),
                            _ => false,
                        };
                        if eq {
                            pos += n;
                            pc += 1;
                        }
                        eq
                    }
                },
                Some(Inst::Save(slot)) => {
                    let slot = *slot;
                    self.set_slot(slot, pos)?;
                    pc += 1;
                    true
                }
                Some(Inst::Split(a, b)) => {
                    let (a, b) = (*a, *b);
                    self.push(Entry::Choice { pc: b, pos })?;
                    pc = a;
                    true
                }
                Some(Inst::Jmp(t)) => {
                    pc = *t;
                    true
                }
                Some(Inst::RepInit(reg)) => {
                    let reg = *reg;
                    self.set_reg(reg, (0, NONE))?;
                    pc += 1;
                    true
                }
                Some(Inst::RepHead {
                    reg,
                    min,
                    max,
                    lazy,
                    exit,
                }) => {
                    let (reg, min, max, lazy, exit) = (*reg, *min, *max, *lazy, *exit);
                    let (count, last) = self.regs.get(reg).copied().unwrap_or((0, NONE));
                    if count < min {
                        pc += 1;
                    } else if count < max && pos != last {
                        // sre's MAX_UNTIL / MIN_UNTIL: another iteration only
                        // if the previous one consumed something.
                        if lazy {
                            self.push(Entry::Choice { pc: pc + 1, pos })?;
                            pc = exit;
                        } else {
                            self.push(Entry::Choice { pc: exit, pos })?;
                            pc += 1;
                        }
                    } else {
                        pc = exit;
                    }
                    true
                }
                Some(Inst::RepStep(reg)) => {
                    let reg = *reg;
                    let (count, _) = self.regs.get(reg).copied().unwrap_or((0, NONE));
                    self.set_reg(reg, (count.saturating_add(1), pos))?;
                    pc += 1;
                    true
                }
                Some(Inst::RepOne {
                    unit,
                    min,
                    max,
                    lazy,
                }) => {
                    let (min, max) = (*min as usize, *max as usize);
                    if *lazy {
                        let mut n = 0;
                        // Charge per character before examining it.
                        while n < min {
                            self.step(unit.cost())?;
                            if !self.text.get(pos + n).is_some_and(|&c| unit.test(c)) {
                                break;
                            }
                            n += 1;
                        }
                        if n < min {
                            false
                        } else {
                            if min < max {
                                self.push(Entry::RepOneLazy {
                                    pc: pc + 1,
                                    start: pos,
                                    count: min,
                                    max,
                                })?;
                            }
                            pos += min;
                            pc += 1;
                            true
                        }
                    } else {
                        let mut n = 0;
                        while n < max {
                            self.step(unit.cost())?;
                            if !self.text.get(pos + n).is_some_and(|&c| unit.test(c)) {
                                break;
                            }
                            n += 1;
                        }
                        if n < min {
                            false
                        } else {
                            if n > min {
                                self.push(Entry::RepOne {
                                    pc: pc + 1,
                                    start: pos,
                                    count: n,
                                    min,
                                })?;
                            }
                            pos += n;
                            pc += 1;
                            true
                        }
                    }
                }
                Some(Inst::AtomicStart) => {
                    self.push(Entry::Barrier {
                        kind: Barrier::Atomic,
                        pos,
                        after: 0,
                    })?;
                    pc += 1;
                    true
                }
                Some(Inst::AtomicEnd) => {
                    self.cut_to_barrier()?;
                    pc += 1;
                    true
                }
                Some(Inst::LookStart {
                    behind,
                    negate,
                    after,
                }) => {
                    let (behind, negate, after) = (*behind, *negate, *after);
                    if pos < behind {
                        if negate {
                            pc = after;
                            true
                        } else {
                            false
                        }
                    } else {
                        let kind = if negate {
                            Barrier::NegLook
                        } else {
                            Barrier::Look
                        };
                        self.push(Entry::Barrier { kind, pos, after })?;
                        pos -= behind;
                        pc += 1;
                        true
                    }
                }
                Some(Inst::LookEnd { negate }) => {
                    if *negate {
                        // The body matched, so the negative assertion fails.
                        self.unwind_to_barrier()?;
                        false
                    } else {
                        match self.cut_to_barrier()? {
                            Some(Entry::Barrier { pos: p, .. }) => {
                                pos = p;
                                pc += 1;
                                true
                            }
                            _ => false,
                        }
                    }
                }
                Some(Inst::GroupExists { group, no }) => {
                    if self.group_span(*group).is_some() {
                        pc += 1;
                    } else {
                        pc = *no;
                    }
                    true
                }
                Some(Inst::Match) => {
                    let reject = (opts.full && pos != self.text.len())
                        || opts.must_advance_at == Some(pos) && pos == start;
                    if !reject {
                        let found = Found {
                            end: pos,
                            slots: self.slots.clone(),
                            lastindex: self.lastindex,
                        };
                        // Restore the pristine state for the next run; this
                        // costs one step per entry, like backtracking would.
                        self.step(self.stack.len() as u64)?;
                        while let Some(e) = self.stack.pop() {
                            self.undo(e);
                        }
                        return Ok(Some(found));
                    }
                    false
                }
            };
            if !ok {
                match self.backtrack()? {
                    Some((p, q)) => {
                        pc = p;
                        pos = q;
                    }
                    None => return Ok(None),
                }
            }
        }
    }
}
