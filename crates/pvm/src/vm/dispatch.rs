//! The dispatch loop, [`Vm::exec_loop`] (issue 18: its fixed cost per instruction, and a loop
//! that can be read), and [`Vm::drive`], which runs it over a stack of frames so that a Python
//! call made by `CALL` or `CALL_METHOD` switches frames instead of recursing.
//!
//! Every instruction takes the same steps, in this order, and metering depends on the order:
//!
//! 1. fetch `ops[pc]` and advance `f.pc` (a frame that runs off its end returns `None`);
//! 2. count it in [`super::Stats::instructions`] (reported, and pinned by the golden tests);
//! 3. when the invocation is profiled, tell the profile which instruction starts
//!    ([`super::profile`]);
//! 4. if the attention flag is up ([`crate::memory::attention`]: memory over its limit or
//!    cycles owed from below the VM), settle it ([`Vm::settle`]). This comes before the
//!    instruction's own charge, so a run that stops stops at the same instruction, with the
//!    same cycle count and the same error, as it always has;
//! 5. run the instruction, which charges its cost first ([`Vm::charge`]) unless its handler
//!    says otherwise (a few charge by a size they learn only by doing the work).
//!
//! Why it is shaped this way. A `match` over all ~90 instructions in one function (the loop
//! was ~1,200 lines) made the function too large for the register allocator: the loop's
//! state (`self`, the frame, the instruction slice) was spilled and reloaded around every
//! instruction, about 25 machine instructions of fixed cost per bytecode. Here the loop body
//! holds only the common instructions' fast paths, a few lines each; every slow path and
//! every rare instruction is an `#[inline(never)]` method in `handlers.rs`, one screen each,
//! reached through [`Vm::exec_cold`]. The profile test is hoisted out of the loop: `run_frame`
//! runs one of two instantiations (`PROFILE`, a const generic), so an unprofiled run does
//! not test it per instruction. Profiling is switched on before an invocation's first
//! instruction and never in the middle of one (`crate::actor`), so choosing per frame entry
//! is the same as testing per instruction.
//!
//! Nothing here changes a charge: every instruction charges what it charged when it was an
//! arm of the one `match`, at the same point of its work (`tests/it/golden_cycles.rs`, and the
//! `--stats` of the 28 suite programs, identical before and after).

use super::{Callee, Exc, Outcome, Vm, R};
use crate::bytecode::{BinOp, CmpOp, Op};
use crate::cost;
use crate::value::frame::{push, Frame};
use crate::value::Code;
use crate::value::*;

/// How [`Vm::exec_loop`] stopped running a frame.
pub(super) enum Step {
    /// `return`, or the end of the code.
    Return(Value),
    /// `yield` (a generator's own frame: a [`Callee`] is never a generator).
    Yield(Value),
    /// A call of a plain Python function: run its frame next.
    Call(Box<Callee>),
}

impl<'h> Vm<'h> {
    /// Run a frame until it returns or yields, handling exceptions with its block stack, with
    /// every Python-to-Python call it makes by `CALL` or `CALL_METHOD` run here too, on a stack
    /// of frames, instead of recursing through the Rust stack (see [`Vm::drive`]).
    pub fn run_frame(&mut self, base: &mut Frame) -> R<Outcome> {
        if self.profile.is_some() {
            self.drive::<true>(base)
        } else {
            self.drive::<false>(base)
        }
    }

    /// Run the frame on top (a [`Callee`], else `base`) with the loop until it stops:
    ///
    /// - a call pushes the callee (its arguments bound and the call depth entered, as
    ///   [`Vm::call_positional`] does before it runs the frame);
    /// - a callee's `return` leaves it ([`Vm::leave_callee`]) and pushes its value on its
    ///   caller's stack, where `call_positional` would have returned it (for `C(args…)`, the
    ///   new instance, once `__init__` gave `None`); `base`'s return or yield ends the run;
    /// - an exception is unwound as [`Vm::run_frame`] always did, frame by frame: a traceback
    ///   entry, then the frame's handler, else the frame is left and its caller has the
    ///   exception as if its call had raised it;
    /// - anything else (out of cycles or memory) leaves every callee and ends the run.
    ///
    /// So each frame sees the same events in the same order as when calls recursed: the same
    /// charges, the same depth limit, the same tracebacks (tests/it/golden_cycles.rs).
    fn drive<const PROFILE: bool>(&mut self, base: &mut Frame) -> R<Outcome> {
        let mut callees: Vec<Box<Callee>> = Vec::new();
        loop {
            let top = callees.last_mut().map_or(&mut *base, |c| &mut c.frame);
            let mut err = match self.exec_loop::<PROFILE>(top) {
                Ok(Step::Call(callee)) => {
                    callees.push(callee);
                    continue;
                }
                Ok(Step::Return(v)) => match callees.pop() {
                    None => return Ok(Outcome::Return(v)),
                    Some(mut done) => {
                        let init = done.init.take();
                        self.leave_callee(done);
                        let caller = callees.last_mut().map_or(&mut *base, |c| &mut c.frame);
                        match self.returned(caller, v, init) {
                            Ok(()) => continue,
                            Err(e) => e,
                        }
                    }
                },
                Ok(Step::Yield(v)) => return Ok(Outcome::Yield(v)),
                Err(e) => e,
            };
            loop {
                let Exc::Py(e) = err else {
                    while let Some(c) = callees.pop() {
                        self.leave_callee(c);
                    }
                    return Err(err);
                };
                let top = callees.last_mut().map_or(&mut *base, |c| &mut c.frame);
                if !std::mem::take(&mut self.reraise) {
                    self.add_traceback(&e, top);
                }
                if self.unwind(top, e.clone()) {
                    break;
                }
                match callees.pop() {
                    Some(c) => self.leave_callee(c),
                    None => return Err(Exc::Py(e)),
                }
                err = Exc::Py(e);
            }
        }
    }

    /// A callee returned `v` to `caller`: push it, or for `C(args…)` the new instance
    /// (`init`), which needs `__init__` to have returned `None`.
    #[inline(always)]
    fn returned(&mut self, caller: &mut Frame, v: Value, init: Option<Value>) -> R<()> {
        match init {
            None => push(&mut caller.stack, v),
            Some(_) if !v.is_none() => return Err(self.init_not_none(&v)),
            Some(inst) => push(&mut caller.stack, inst),
        }
        Ok(())
    }

    /// The loop itself; `PROFILE` is whether the invocation is profiled (module docs). It
    /// runs `f` until it returns, yields or calls a plain Python function ([`Step`]), or an
    /// exception leaves it.
    #[inline(always)]
    fn exec_loop<const PROFILE: bool>(&mut self, f: &mut Frame) -> R<Step> {
        let code_rc = f.code.clone();
        // The code object and its instruction slice stay in registers across the loop (the
        // `Rc<Code>` above keeps them alive whatever the frame's fields do).
        let code: &Code = &code_rc;
        let ops: &[Op] = &code.ops;
        loop {
            let pc = f.pc;
            let Some(&op) = ops.get(pc) else {
                return Ok(Step::Return(Value::None));
            };
            f.pc = pc + 1;
            self.instructions += 1;
            if PROFILE {
                self.profile_step(code, pc);
            }
            if crate::memory::attention() {
                self.settle()?;
            }
            match op {
                Op::Pop => {
                    self.charge(cost::BASIC)?;
                    if let Some(v) = f.stack.pop() {
                        release(v);
                    }
                }
                Op::Dup => {
                    self.charge(cost::BASIC)?;
                    let v = Self::top(f).clone();
                    push(&mut f.stack, v);
                }
                Op::Rot2 => {
                    self.charge(cost::BASIC)?;
                    let n = f.stack.len();
                    if n >= 2 {
                        f.stack.swap(n - 1, n - 2);
                    }
                }
                Op::LoadConst(i) => {
                    self.charge(cost::BASIC)?;
                    push(&mut f.stack, code.consts[i as usize].clone());
                }
                Op::LoadNone => {
                    self.charge(cost::BASIC)?;
                    push(&mut f.stack, Value::None);
                }
                Op::LoadFast(i) => self.load_fast(f, code, i)?,
                Op::StoreFast(i) => self.store_fast(f, i)?,
                Op::LoadGlobal(i) => self.load_global(f, code, i)?,
                Op::LoadAttr(i) => {
                    self.charge(cost::ATTR)?;
                    let o = Self::pop(f);
                    let (name, c) = (&code.names[i as usize], &code.name_caches[i as usize]);
                    if !Self::load_attr_hit(&mut f.stack, &o, name, c) {
                        self.load_attr_push(&mut f.stack, &o, name, c)?;
                    }
                }
                Op::StoreAttr(i) => {
                    self.charge(cost::ATTR)?;
                    let o = Self::pop(f);
                    let v = Self::pop(f);
                    let (name, c) = (&code.names[i as usize], &code.name_caches[i as usize]);
                    if let Some(v) = Self::store_attr_hit(&o, name, c, v) {
                        self.store_attr_cached(&o, name, c, v)?;
                    }
                }
                Op::CallMethod(i, argc) => {
                    self.charge(cost::CALL)?;
                    if let Some(callee) = self.op_call_method(f, code, i, argc)? {
                        return Ok(Step::Call(callee));
                    }
                }
                Op::Call(argc) => {
                    self.charge(cost::CALL)?;
                    if let Some(callee) = self.op_call(f, argc)? {
                        return Ok(Step::Call(callee));
                    }
                }
                Op::Subscr => {
                    self.charge(cost::LIST_OP)?;
                    match super::ops::fast_subscr(&f.stack) {
                        Some(v) => {
                            // The index is an int (nothing to drop); the container's
                            // reference goes.
                            std::mem::forget(f.stack.pop());
                            if let Some(top) = f.stack.last_mut() {
                                *top = v;
                            }
                        }
                        None => self.op_subscr(f)?,
                    }
                }
                Op::StoreSubscr => {
                    self.charge(cost::LIST_OP)?;
                    if !super::ops::fast_store_subscr(&mut f.stack) {
                        self.op_store_subscr(f)?;
                    }
                }
                Op::Binary(b) | Op::Inplace(b) => {
                    self.charge(cost::ARITH)?;
                    match super::ops::fast_binary(&f.stack, b) {
                        Some(z) => Self::replace_top2(f, z),
                        None => self.op_binary(f, op, b)?,
                    }
                }
                Op::Compare(c) => {
                    self.charge(cost::ARITH)?;
                    match super::ops::fast_compare(&f.stack, c) {
                        Some(z) => Self::replace_top2(f, z),
                        None => self.op_compare(f, c)?,
                    }
                }
                Op::Jump(t) => {
                    self.charge(cost::BASIC)?;
                    f.pc = t as usize;
                }
                Op::JumpIfFalse(t) | Op::JumpIfTrue(t) => {
                    self.charge(cost::BASIC)?;
                    let b = match f.stack.last().and_then(inline_truth) {
                        Some(b) => {
                            // An inline value owns nothing: forgetting it skips a call to drop it.
                            std::mem::forget(f.stack.pop());
                            b
                        }
                        None => self.pop_truthy(f)?,
                    };
                    if b == matches!(op, Op::JumpIfTrue(_)) {
                        f.pc = t as usize;
                    }
                }
                Op::JumpIfFalseOrPop(t) | Op::JumpIfTrueOrPop(t) => {
                    match f.stack.last().and_then(inline_truth) {
                        Some(b) => {
                            self.charge(cost::BASIC)?;
                            if b == matches!(op, Op::JumpIfTrueOrPop(_)) {
                                f.pc = t as usize;
                            } else {
                                std::mem::forget(f.stack.pop());
                            }
                        }
                        None => self.op_jump_or_pop(f, op, t)?,
                    }
                }
                Op::Not => {
                    self.charge(cost::ARITH)?;
                    match f.stack.last_mut() {
                        Some(top) => match inline_truth(top) {
                            Some(b) => std::mem::forget(std::mem::replace(top, Value::Bool(!b))),
                            None => self.op_not(f)?,
                        },
                        None => self.op_not(f)?,
                    }
                }
                Op::ForIter(t) => {
                    self.charge(cost::ITER)?;
                    self.for_iter(f, t)?;
                }
                // Superinstructions (`bytecode::quicken`), section below.
                Op::LoadFastLoadFast(a, b) => self.load_fast_load_fast::<PROFILE>(f, code, a, b)?,
                Op::LoadFastLoadConst(a, c) => {
                    self.load_fast_load_const::<PROFILE>(f, code, a, c)?
                }
                Op::StoreFastLoadFast(a, b) => self.store_fast_load_fast::<PROFILE>(f, a, b)?,
                Op::StoreFastStoreFast(a, b) => self.store_fast_store_fast::<PROFILE>(f, a, b)?,
                Op::LoadGlobalLoadFast(i, a) => {
                    self.load_global_load_fast::<PROFILE>(f, code, i, a)?
                }
                Op::LoadFastLoadAttr(a, i) => self.load_fast_load_attr::<PROFILE>(f, code, a, i)?,
                Op::LoadFastBinary(a, b) => self.load_fast_binary::<PROFILE>(f, code, a, b)?,
                Op::LoadConstBinary(c, b) => self.load_const_binary::<PROFILE>(f, code, c, b)?,
                Op::CompareJumpIfFalse(c, t) => self.compare_jump_if_false::<PROFILE>(f, c, t)?,
                Op::ForIterStoreFast(end, a) => self.for_iter_store_fast::<PROFILE>(f, end, a)?,
                Op::JumpForIter(t) => self.jump_for_iter::<PROFILE>(f, code, t)?,
                Op::LoadFastReturn(a) => {
                    if let Some(v) = self.load_fast_return::<PROFILE>(f, code, a)? {
                        return Ok(Step::Return(v));
                    }
                }
                Op::LoadConstReturn(_) | Op::LoadNoneReturn => {
                    if let Some(v) = self.load_value_return::<PROFILE>(f, code, op)? {
                        return Ok(Step::Return(v));
                    }
                }
                Op::ReturnValue => {
                    self.charge(cost::BASIC)?;
                    return Ok(Step::Return(Self::pop(f)));
                }
                Op::YieldValue => {
                    self.charge(cost::YIELD)?;
                    return Ok(Step::Yield(Self::pop(f)));
                }
                Op::YieldFrom => {
                    self.charge(cost::YIELD)?;
                    if let Some(y) = self.op_yield_from(f)? {
                        return Ok(Step::Yield(y));
                    }
                }
                Op::SetupExcept(t) | Op::SetupFinally(t) => self.op_setup_block(f, op, t)?,
                Op::PopBlock => {
                    self.charge(cost::BASIC)?;
                    f.blocks.pop();
                }
                // Calls of their handlers straight from the loop: common enough in real
                // programs that the second dispatch through `exec_cold` would show.
                Op::Nop => self.charge(cost::BASIC)?,
                Op::Dup2 => self.op_dup2(f)?,
                Op::Rot3 => self.op_rot3(f)?,
                Op::LoadDeref(i) => {
                    self.charge(cost::BASIC)?;
                    let v = f.cells[i as usize].v.borrow().clone();
                    match v {
                        Some(v) => push(&mut f.stack, v),
                        None => return Err(self.unbound_free_var(code, i)),
                    }
                }
                Op::LoadClosure(i) => self.op_load_closure(f, i)?,
                Op::StoreDeref(i) => self.op_store_deref(f, i)?,
                Op::DeleteSubscr => self.op_delete_subscr(f)?,
                Op::Is(neg) => {
                    self.charge(cost::ARITH)?;
                    if !is_none_in_place(f, neg) {
                        self.op_is(f, neg)?;
                    }
                }
                Op::In(neg) => self.op_in(f, neg)?,
                Op::Neg | Op::Pos | Op::Invert => self.op_unary(f, op)?,
                Op::BuildTuple(n) | Op::BuildList(n) => self.op_build_seq(f, op, n)?,
                Op::BuildSet(n) => self.op_build_set(f, n)?,
                Op::BuildMap(n) => self.op_build_map(f, n)?,
                Op::BuildString(n) => self.op_build_string(f, n)?,
                Op::ListExtend | Op::SetUpdate | Op::ArgsExtend => self.op_list_extend(f, op)?,
                Op::DictUpdate | Op::DictMerge => self.op_dict_update(f, op)?,
                Op::ListAppend(n) | Op::SetAdd(n) => self.op_list_append(f, n)?,
                Op::MapAdd(n) => self.op_map_add(f, n)?,
                Op::FormatValue(flags) => self.op_format_value(f, flags)?,
                Op::GetIter => self.op_get_iter(f)?,
                Op::UnpackSequence(n) => self.op_unpack_sequence(f, n)?,
                Op::CallKw(argc, names) => self.op_call_kw(f, code, argc, names)?,
                Op::CallEx(flag) => self.op_call_ex(f, flag)?,
                Op::MakeFunction(ci, flags) => self.op_make_function(f, code, ci, flags)?,
                Op::Raise(n) => self.op_raise(f, n)?,
                Op::PopExcept => self.op_pop_except(f)?,
                Op::Reraise => self.op_reraise(f)?,
                Op::ExcMatch => self.op_exc_match(f)?,
                _ => self.exec_cold(f, code, op)?,
            }
        }
    }
}

/// Drop `v`, without the out-of-line call to `Value`'s drop glue when it is inline (an int,
/// float, bool or `None` owns nothing): most values the hot instructions overwrite or pop are.
#[inline(always)]
fn release(v: Value) {
    if v.is_heap() {
        drop(v);
    } else {
        std::mem::forget(v);
    }
}

/// `x is None` / `x is not None` done in place (only `None` is `None`, `Value::is`): the two
/// operands replaced by the answer; false, with nothing done, when the right one is not `None`.
#[inline(always)]
fn is_none_in_place(f: &mut Frame, neg: bool) -> bool {
    let [.., l, Value::None] = &f.stack[..] else {
        return false;
    };
    let same = matches!(l, Value::None);
    f.stack.pop();
    if let Some(top) = f.stack.last_mut() {
        *top = Value::Bool(same != neg);
    }
    true
}

/// The truth of an inline value (`None`, bool, int, float) as [`Vm::truthy`] gives it (which
/// charges nothing for these), or `None` for a value `truthy` must look at.
#[inline(always)]
fn inline_truth(v: &Value) -> Option<bool> {
    match *v {
        Value::None => Some(false),
        Value::Bool(b) => Some(b),
        Value::Int(i) => Some(i != 0),
        Value::Float(x) => Some(x != 0.0),
        _ => None,
    }
}

/// Superinstructions (`bytecode::quicken`): each runs the first instruction's work, then the
/// second's, started as the loop starts an instruction ([`Vm::second_starts`]), so charges,
/// counts and where a limit stops the run are those of the two instructions one after the
/// other. A profiled run (`PROFILE`: a profile sees every instruction start), or a second half
/// off its fast path, leaves the second instruction to run from its own slot.
///
/// The bodies that end in a `LoadFast` are written out rather than sharing a helper: folding
/// them into one made the loop's code worse (ten `LOAD_FAST`/`STORE_FAST` 949 → 1,009
/// instructions per iteration under callgrind), as the register allocation of `drive` is
/// sensitive to how its inlined pieces are shaped.
impl<'h> Vm<'h> {
    #[inline(always)]
    fn load_fast(&mut self, f: &mut Frame, code: &Code, a: u32) -> R<()> {
        self.charge(cost::BASIC)?;
        match &f.locals[a as usize] {
            Some(v) => push(&mut f.stack, v.clone()),
            None => return Err(self.unbound_local(code, a)),
        }
        Ok(())
    }

    #[inline(always)]
    fn store_fast(&mut self, f: &mut Frame, a: u32) -> R<()> {
        self.charge(cost::BASIC)?;
        let v = Self::pop(f);
        if let Some(old) = f.locals[a as usize].replace(v) {
            release(old);
        }
        Ok(())
    }

    #[inline(always)]
    fn load_global(&mut self, f: &mut Frame, code: &Code, i: u32) -> R<()> {
        self.charge(cost::GLOBAL)?;
        let (name, c) = (&code.names[i as usize], &code.name_caches[i as usize]);
        self.load_global_push(&mut f.stack, &f.globals, name, c)
    }

    /// `LoadGlobal(i)` then `LoadFast(a)` (`len(x)`, `abs(x)`…); an unbound `a` raises from
    /// its own slot.
    #[inline(always)]
    fn load_global_load_fast<const PROFILE: bool>(
        &mut self,
        f: &mut Frame,
        code: &Code,
        i: u32,
        a: u32,
    ) -> R<()> {
        self.load_global(f, code, i)?;
        if !PROFILE && f.locals[a as usize].is_some() {
            self.second_starts(f, f.pc)?;
            self.load_fast(f, code, a)?;
        }
        Ok(())
    }

    /// `LoadFast(a)` then `LoadFast(b)`; an unbound `b` raises from its own slot.
    #[inline(always)]
    fn load_fast_load_fast<const PROFILE: bool>(
        &mut self,
        f: &mut Frame,
        code: &Code,
        a: u32,
        b: u32,
    ) -> R<()> {
        self.load_fast(f, code, a)?;
        if !PROFILE && f.locals[b as usize].is_some() {
            self.second_starts(f, f.pc)?;
            self.load_fast(f, code, b)?;
        }
        Ok(())
    }

    /// `LoadFast(a)` then `LoadConst(c)`.
    #[inline(always)]
    fn load_fast_load_const<const PROFILE: bool>(
        &mut self,
        f: &mut Frame,
        code: &Code,
        a: u32,
        c: u32,
    ) -> R<()> {
        self.load_fast(f, code, a)?;
        if !PROFILE {
            self.second_starts(f, f.pc)?;
            self.charge(cost::BASIC)?;
            push(&mut f.stack, code.consts[c as usize].clone());
        }
        Ok(())
    }

    /// `StoreFast(a)` then `LoadFast(b)`; an unbound `b` raises from its own slot.
    #[inline(always)]
    fn store_fast_load_fast<const PROFILE: bool>(
        &mut self,
        f: &mut Frame,
        a: u32,
        b: u32,
    ) -> R<()> {
        self.store_fast(f, a)?;
        if !PROFILE {
            if let Some(v) = &f.locals[b as usize] {
                let v = v.clone();
                self.second_starts(f, f.pc)?;
                self.charge(cost::BASIC)?;
                push(&mut f.stack, v);
            }
        }
        Ok(())
    }

    /// `StoreFast(a)` then `StoreFast(b)`.
    #[inline(always)]
    fn store_fast_store_fast<const PROFILE: bool>(
        &mut self,
        f: &mut Frame,
        a: u32,
        b: u32,
    ) -> R<()> {
        self.store_fast(f, a)?;
        if !PROFILE {
            self.second_starts(f, f.pc)?;
            self.store_fast(f, b)?;
        }
        Ok(())
    }

    /// `Compare(c)` then `JumpIfFalse(t)`, when both operands are small ints or both floats:
    /// the bool `Compare` would push is the one `JumpIfFalse` pops, so it is never made.
    #[inline(always)]
    fn compare_jump_if_false<const PROFILE: bool>(
        &mut self,
        f: &mut Frame,
        c: CmpOp,
        t: u32,
    ) -> R<()> {
        self.charge(cost::ARITH)?;
        let fast = match &f.stack[..] {
            [.., l, r] => super::ops::fast_compare_pair(l, r, c),
            _ => None,
        };
        match fast {
            Some(b) if !PROFILE => {
                self.second_starts(f, f.pc)?;
                self.charge(cost::BASIC)?;
                // Both operands are inline: nothing to drop.
                std::mem::forget(f.stack.pop());
                std::mem::forget(f.stack.pop());
                if !b {
                    f.pc = t as usize;
                }
            }
            Some(b) => Self::replace_top2(f, Value::Bool(b)),
            None => self.op_compare(f, c)?,
        }
        Ok(())
    }

    /// `LoadFast(a)` then `LoadAttr(i)`: the attribute is looked up on the local where it
    /// lies, never pushed and popped.
    #[inline(always)]
    fn load_fast_load_attr<const PROFILE: bool>(
        &mut self,
        f: &mut Frame,
        code: &Code,
        a: u32,
        i: u32,
    ) -> R<()> {
        if PROFILE {
            return self.load_fast(f, code, a);
        }
        self.charge(cost::BASIC)?;
        if f.locals[a as usize].is_none() {
            return Err(self.unbound_local(code, a));
        }
        self.second_starts(f, f.pc)?;
        self.charge(cost::ATTR)?;
        if let Some(o) = &f.locals[a as usize] {
            let (name, c) = (&code.names[i as usize], &code.name_caches[i as usize]);
            if !Self::load_attr_hit(&mut f.stack, o, name, c) {
                self.load_attr_push(&mut f.stack, o, name, c)?;
            }
        }
        Ok(())
    }

    /// `LoadFast(a)` then `ReturnValue`: the value to return, never pushed, or `None` when
    /// only the load ran (a profiled run: the return runs from its own slot). An unbound `a`
    /// raises from the load, as it would alone.
    #[inline(always)]
    fn load_fast_return<const PROFILE: bool>(
        &mut self,
        f: &mut Frame,
        code: &Code,
        a: u32,
    ) -> R<Option<Value>> {
        self.charge(cost::BASIC)?;
        let Some(v) = &f.locals[a as usize] else {
            return Err(self.unbound_local(code, a));
        };
        let v = v.clone();
        self.then_return::<PROFILE>(f, v)
    }

    /// `LoadConst(c)` or `LoadNone` (`op` says which), then `ReturnValue`, as
    /// [`Vm::load_fast_return`] (neither load can fail).
    #[inline(always)]
    fn load_value_return<const PROFILE: bool>(
        &mut self,
        f: &mut Frame,
        code: &Code,
        op: Op,
    ) -> R<Option<Value>> {
        self.charge(cost::BASIC)?;
        let v = match op {
            Op::LoadConstReturn(c) => code.consts[c as usize].clone(),
            _ => Value::None,
        };
        self.then_return::<PROFILE>(f, v)
    }

    /// The second half of a load-and-return pair, once `v` is loaded (the first half's charge
    /// paid): the return starts, counts and charges as its own instruction and `v` is handed
    /// back; a profiled run pushes `v`, as the load alone does, and the return runs from its
    /// own slot.
    #[inline(always)]
    fn then_return<const PROFILE: bool>(&mut self, f: &mut Frame, v: Value) -> R<Option<Value>> {
        if PROFILE {
            push(&mut f.stack, v);
            return Ok(None);
        }
        self.second_starts(f, f.pc)?;
        self.charge(cost::BASIC)?;
        Ok(Some(v))
    }

    /// `LoadFast(a)` then `Binary(b)` or `Inplace(b)`.
    #[inline(always)]
    fn load_fast_binary<const PROFILE: bool>(
        &mut self,
        f: &mut Frame,
        code: &Code,
        a: u32,
        b: BinOp,
    ) -> R<()> {
        self.charge(cost::BASIC)?;
        let Some(r) = &f.locals[a as usize] else {
            return Err(self.unbound_local(code, a));
        };
        let fast = f
            .stack
            .last()
            .and_then(|l| super::ops::fast_binary_values(l, r, b));
        self.binary_second::<PROFILE>(f, fast, |f| f.locals[a as usize].clone())
    }

    /// `LoadConst(c)` then `Binary(b)` or `Inplace(b)`.
    #[inline(always)]
    fn load_const_binary<const PROFILE: bool>(
        &mut self,
        f: &mut Frame,
        code: &Code,
        c: u32,
        b: BinOp,
    ) -> R<()> {
        self.charge(cost::BASIC)?;
        let r = &code.consts[c as usize];
        let fast = f
            .stack
            .last()
            .and_then(|l| super::ops::fast_binary_values(l, r, b));
        self.binary_second::<PROFILE>(f, fast, |_| Some(r.clone()))
    }

    /// The `Binary`/`Inplace` half of `LoadFastBinary`/`LoadConstBinary`, the first half
    /// charged: `fast` is the result [`super::ops::fast_binary_values`] gave for the top of the
    /// stack and the loaded operand; without one, the operand (`load`) is pushed and the
    /// arithmetic instruction runs from its own slot.
    #[inline(always)]
    fn binary_second<const PROFILE: bool>(
        &mut self,
        f: &mut Frame,
        fast: Option<Value>,
        load: impl FnOnce(&Frame) -> Option<Value>,
    ) -> R<()> {
        match fast {
            Some(z) if !PROFILE => {
                self.second_starts(f, f.pc)?;
                self.charge(cost::ARITH)?;
                // The left operand is an inline int or float (the fast path's condition):
                // nothing to drop.
                if let Some(top) = f.stack.last_mut() {
                    std::mem::forget(std::mem::replace(top, z));
                }
            }
            _ => {
                if let Some(v) = load(f) {
                    push(&mut f.stack, v);
                }
            }
        }
        Ok(())
    }

    /// `ForIter(end)` then `StoreFast(a)`: the item goes to the local, never pushed.
    #[inline(always)]
    fn for_iter_store_fast<const PROFILE: bool>(
        &mut self,
        f: &mut Frame,
        end: u32,
        a: u32,
    ) -> R<()> {
        self.charge(cost::ITER)?;
        if PROFILE {
            return self.for_iter(f, end);
        }
        match Self::for_iter_step(f) {
            Some(Some(v)) => {
                self.second_starts(f, f.pc)?;
                self.charge(cost::BASIC)?;
                if let Some(old) = f.locals[a as usize].replace(v) {
                    release(old);
                }
            }
            Some(None) => {
                f.stack.pop();
                f.pc = end as usize;
            }
            None => self.op_for_iter(f, end)?,
        }
        Ok(())
    }

    /// `Jump(t)` to the `ForIter` (or `ForIterStoreFast`) at `t`: a loop's back edge and its
    /// next step.
    #[inline(always)]
    fn jump_for_iter<const PROFILE: bool>(&mut self, f: &mut Frame, code: &Code, t: u32) -> R<()> {
        self.charge(cost::BASIC)?;
        f.pc = t as usize;
        if PROFILE {
            return Ok(());
        }
        match code.ops[t as usize] {
            Op::ForIter(end) => {
                self.second_starts(f, f.pc)?;
                self.charge(cost::ITER)?;
                self.for_iter(f, end)
            }
            Op::ForIterStoreFast(end, a) => {
                self.second_starts(f, f.pc)?;
                self.for_iter_store_fast::<false>(f, end, a)
            }
            _ => Ok(()),
        }
    }
}

impl<'h> Vm<'h> {
    /// The second instruction of a superinstruction, at `at`, starts as the loop starts
    /// every instruction: the program counter moves past it, it is counted, and work owed
    /// from below is settled when the attention flag is up.
    #[inline(always)]
    fn second_starts(&mut self, f: &mut Frame, at: usize) -> R<()> {
        f.pc = at + 1;
        self.instructions += 1;
        if crate::memory::attention() {
            self.settle()?;
        }
        Ok(())
    }

    /// `ForIter(t)` once charged: the next item pushed, or the exhausted iterator popped and
    /// a jump to `t`. An item that is an exact tuple or list of two, about to be unpacked
    /// into two names (`for k, v in pairs`), is unpacked here, as the `UNPACK_SEQUENCE 2`
    /// after it would (`Vm::unpack_pair`: counted, settled and charged as that instruction);
    /// the pair exists already, so nothing is accounted for it.
    #[inline(always)]
    fn for_iter(&mut self, f: &mut Frame, t: u32) -> R<()> {
        match Self::for_iter_step(f) {
            Some(Some(v)) => {
                if matches!(v, Value::Tuple(_) | Value::List(_)) && self.unpacks_pair_next(f) {
                    if let Some((a, b)) = crate::objects::iter::pair_items(&v) {
                        drop(v);
                        return self.unpack_pair(f, a, b, false);
                    }
                }
                push(&mut f.stack, v)
            }
            Some(None) => {
                f.stack.pop();
                f.pc = t as usize;
            }
            None => self.op_for_iter(f, t)?,
        }
        Ok(())
    }

    /// `for` over a range or a list, tuple, bytes or bytearray iterator, stepped in place as
    /// `iter::next` would, without cloning the iterator or dispatching: `Some(Some(item))`,
    /// `Some(None)` when it is exhausted, `None` for any other iterator (the general path,
    /// [`Vm::op_for_iter`]).
    #[inline(always)]
    fn for_iter_step(f: &Frame) -> Option<Option<Value>> {
        let Some(Value::Iter(it)) = f.stack.last() else {
            return None;
        };
        let mut st = it.state.borrow_mut();
        let (step, exhausted) = match &mut *st {
            IterState::Range { next, step, left } => {
                if *left > 0 {
                    let v = *next;
                    *left -= 1;
                    *next = next.wrapping_add(*step);
                    (Some(Some(Value::Int(v))), false)
                } else {
                    (Some(None), false)
                }
            }
            IterState::Seq { seq, i } => {
                let item = match seq {
                    Value::List(l) => Some(l.items.borrow().get(*i).cloned()),
                    Value::Tuple(t) => Some(t.items.get(*i).cloned()),
                    Value::Bytes(b) => Some(b.b.get(*i).map(|x| Value::Int(i64::from(*x)))),
                    Value::ByteArray(b) => {
                        Some(b.b.borrow().get(*i).map(|x| Value::Int(i64::from(*x))))
                    }
                    _ => None,
                };
                if let Some(Some(_)) = item {
                    *i += 1;
                }
                let done = matches!(item, Some(None));
                (item, done)
            }
            _ => (None, false),
        };
        if exhausted {
            *st = IterState::Empty;
        }
        step
    }

    /// Step 3 of the loop (module docs): the instruction at `pc` of `code` starts.
    #[inline(never)]
    fn profile_step(&mut self, code: &Code, pc: usize) {
        let (cycles, cells) = (
            self.cycles(),
            self.host.as_ref().map_or(0, |h| h.cells_used()),
        );
        if let Some(profile) = self.profile.as_mut() {
            profile.at(code, pc, cycles, cells);
        }
    }
}
