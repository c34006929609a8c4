//! The instructions' handlers that live outside the dispatch loop (`dispatch.rs`): the slow
//! paths of the common instructions and every rare instruction, one method each.
//!
//! They are `#[inline(never)]` so that the loop stays small (its module docs say why). Each
//! charges exactly what it charged as an arm of the former one `match`, at the same point of
//! its work: the common instructions' handlers are entered after the loop has charged the
//! instruction's cost; every other handler charges its own, first unless its doc says
//! otherwise. A handler returns `Ok(())` to go on with the next instruction; leaving the frame
//! (`return`, `yield`) is the loop's, so the few handlers that can yield say so in their type,
//! and so do the call handlers, which hand the loop a [`Callee`] to run in place of a call.

use super::{Args, Callee, Exc, Vm, R};
use crate::bytecode::{BinOp, CmpOp, Op};
use crate::cost;
use crate::objects::asyncgen;
use crate::objects::iter::PairStep;
use crate::value::frame::{push, Block, BlockKind, Frame};
use crate::value::Code;
use crate::value::*;
use std::rc::Rc;

impl<'h> Vm<'h> {
    /// The rare instructions (async, `except*`, `with`, imports, pattern matching, deletes,
    /// class and name-space ops), which the loop sends here through its `_` arm: a second
    /// `match` costs them little and keeps their code out of the loop.
    #[inline(never)]
    pub(super) fn exec_cold(&mut self, f: &mut Frame, code: &Code, op: Op) -> R<()> {
        match op {
            Op::Rot4 => {
                self.charge(cost::BASIC)?;
                let v = Self::pop(f);
                let n = f.stack.len();
                f.stack.insert(n.saturating_sub(3), v);
                Ok(())
            }
            Op::DeleteFast(i) => {
                self.charge(cost::BASIC)?;
                if f.locals[i as usize].take().is_none() {
                    let n = code.varnames[i as usize].clone();
                    return Err(self.new_exc(
                        "UnboundLocalError",
                        &format!("cannot access local variable '{n}' where it is not associated with a value"),
                    ));
                }
                Ok(())
            }
            Op::DeleteDeref(i) => {
                self.charge(cost::BASIC)?;
                *f.cells[i as usize].v.borrow_mut() = None;
                Ok(())
            }
            Op::StoreGlobal(i) => {
                self.charge(cost::GLOBAL)?;
                self.check_writable(&f.globals)?;
                let v = Self::pop(f);
                f.globals.set_name(&code.names[i as usize], v);
                Ok(())
            }
            Op::DeleteGlobal(i) => {
                self.charge(cost::GLOBAL)?;
                let g = f.globals.clone();
                let name = code.names[i as usize].clone();
                if self.dict_del(&g, &Value::Str(name.clone()))?.is_none() {
                    return Err(self.name_error(&name.s));
                }
                Ok(())
            }
            Op::LoadName(i) => self.op_load_name(f, code, i),
            Op::LoadClassDeref(i, c) => self.op_load_class_deref(f, code, i, c),
            Op::StoreName(i) => {
                self.charge(cost::GLOBAL)?;
                let v = Self::pop(f);
                f.ns.as_ref()
                    .unwrap_or(&f.globals)
                    .set_name(&code.names[i as usize], v);
                Ok(())
            }
            Op::DeleteName(i) => {
                self.charge(cost::GLOBAL)?;
                let ns = f.ns.clone().unwrap_or_else(|| f.globals.clone());
                let name = code.names[i as usize].clone();
                if self.dict_del(&ns, &Value::Str(name.clone()))?.is_none() {
                    return Err(self.name_error(&name.s));
                }
                Ok(())
            }
            Op::DeleteAttr(i) => {
                self.charge(cost::ATTR)?;
                let o = Self::pop(f);
                self.delattr(&o, &code.names[i as usize].s)?;
                Ok(())
            }
            Op::BuildSlice(n) => {
                self.charge(cost::BUILD)?;
                let step = if n == 3 { Self::pop(f) } else { Value::None };
                let stop = Self::pop(f);
                let start = Self::pop(f);
                f.stack
                    .push(Value::Slice(Rc::new(PySlice { start, stop, step })));
                Ok(())
            }
            Op::ListToTuple => {
                self.charge(cost::BUILD)?;
                if let Value::List(l) = Self::pop(f) {
                    let items = l.items.borrow().clone();
                    f.stack.push(Value::tuple(items));
                }
                Ok(())
            }
            Op::UnpackEx(before, after) => {
                let v = Self::pop(f);
                let items = self.unpack(&v, before as usize, Some(after as usize))?;
                self.charge(cost::BASIC + cost::per_elem(items.len()))?;
                f.stack.extend(items.into_iter().rev());
                Ok(())
            }
            Op::BuildClass(flag) => {
                // The body runs as a call; making the class is `type_new`'s charge.
                self.charge(cost::CALL)?;
                let kw = if flag == 1 { Some(Self::pop(f)) } else { None };
                let bases = Self::pop(f);
                let name = Self::pop(f);
                let body = Self::pop(f);
                let cls = self.build_class(body, name, bases, kw)?;
                f.stack.push(cls);
                Ok(())
            }
            Op::Imaginary => {
                self.charge(cost::BUILD)?;
                let v = Self::pop(f);
                let im = crate::vm::ops::as_f64(&v).unwrap_or(0.0);
                f.stack.push(crate::objects::complex::new(self, 0.0, im));
                Ok(())
            }
            Op::GetAwaitable(k) => {
                self.charge(cost::BASIC)?;
                let v = Self::pop(f);
                let a = self.awaitable(v, k)?;
                f.stack.push(a);
                Ok(())
            }
            Op::BeforeAsyncWith => {
                self.charge(cost::CALL)?;
                let mgr = Self::pop(f);
                let (exit, r) = asyncgen::async_with_enter(self, &mgr)?;
                f.stack.push(exit);
                f.stack.push(r);
                Ok(())
            }
            Op::AsyncWithExcept => self.op_async_with_except(f),
            Op::AsyncWithExceptEnd => self.op_async_with_except_end(f),
            Op::ExcStarBegin => self.op_exc_star_begin(f),
            Op::ExcStarMatch(t) => self.op_exc_star_match(f, t),
            Op::ExcStarEnd => self.op_exc_star_end(f),
            Op::GetAIter => {
                self.charge(cost::CALL)?;
                let v = Self::pop(f);
                let it = asyncgen::get_aiter(self, &v)?;
                f.stack.push(it);
                Ok(())
            }
            Op::GetANext => {
                self.charge(cost::CALL)?;
                let it = Self::top(f).clone();
                let a = asyncgen::get_anext(self, &it)?;
                f.stack.push(a);
                Ok(())
            }
            Op::EndAsyncFor => self.op_end_async_for(f),
            Op::WithEnter => self.op_with_enter(f),
            Op::WithExit => {
                self.charge(cost::CALL)?;
                let exit = Self::pop(f);
                self.call(
                    &exit,
                    Args::new(vec![Value::None, Value::None, Value::None]),
                )?;
                Ok(())
            }
            Op::WithExcept => self.op_with_except(f),
            Op::ImportName(i) => {
                let m = self.import(&code.names[i as usize].s)?;
                f.stack.push(m);
                Ok(())
            }
            Op::ImportFrom(i) => self.op_import_from(f, code, i),
            Op::ImportStar => self.op_import_star(f),
            Op::LoadAssertionError => {
                self.charge(cost::BASIC)?;
                f.stack
                    .push(Value::Class(self.types.exc["AssertionError"].clone()));
                Ok(())
            }
            Op::MatchSequence | Op::MatchMapping => {
                self.charge(cost::BASIC)?;
                let v = Self::base_of(&Self::pop(f));
                let r = if matches!(op, Op::MatchSequence) {
                    matches!(v, Value::List(_) | Value::Tuple(_) | Value::Range(_))
                } else {
                    matches!(v, Value::Dict(_))
                };
                f.stack.push(Value::Bool(r));
                Ok(())
            }
            Op::GetLen => {
                self.charge(cost::BASIC)?;
                let n = crate::objects::types::len_of(self, &Self::pop(f))?;
                f.stack.push(Value::Int(n as i64));
                Ok(())
            }
            Op::MatchClass(k) => self.op_match_class(f, k),
            Op::MatchAttr(i) => {
                self.charge(cost::ATTR)?;
                let subj = Self::pop(f);
                let got = self.match_attr(&subj, &code.names[i as usize].s)?;
                Self::push_match(f, got);
                Ok(())
            }
            Op::CopyDictWithoutKeys => self.op_copy_dict_without_keys(f),
            // The loop runs these itself or calls their handlers (`dispatch.rs`): never reached.
            Op::Pop
            | Op::Dup
            | Op::Rot2
            | Op::LoadConst(_)
            | Op::LoadNone
            | Op::LoadFast(_)
            | Op::StoreFast(_)
            | Op::LoadGlobal(_)
            | Op::LoadAttr(_)
            | Op::StoreAttr(_)
            | Op::CallMethod(..)
            | Op::Call(_)
            | Op::Subscr
            | Op::StoreSubscr
            | Op::Binary(_)
            | Op::Inplace(_)
            | Op::Compare(_)
            | Op::Jump(_)
            | Op::JumpIfFalse(_)
            | Op::JumpIfTrue(_)
            | Op::ForIter(_)
            | Op::ReturnValue
            | Op::YieldValue
            | Op::YieldFrom
            | Op::SetupExcept(_)
            | Op::SetupFinally(_)
            | Op::PopBlock
            | Op::Dup2
            | Op::Rot3
            | Op::StoreDeref(_)
            | Op::DeleteSubscr
            | Op::Is(_)
            | Op::In(_)
            | Op::Not
            | Op::Neg
            | Op::Pos
            | Op::Invert
            | Op::BuildTuple(_)
            | Op::BuildList(_)
            | Op::BuildSet(_)
            | Op::MapAdd(_)
            | Op::GetIter
            | Op::ExcMatch
            | Op::Nop
            | Op::LoadDeref(_)
            | Op::LoadClosure(_)
            | Op::BuildMap(_)
            | Op::BuildString(_)
            | Op::ListExtend
            | Op::SetUpdate
            | Op::ArgsExtend
            | Op::DictUpdate
            | Op::DictMerge
            | Op::ListAppend(_)
            | Op::SetAdd(_)
            | Op::FormatValue(_)
            | Op::JumpIfFalseOrPop(_)
            | Op::JumpIfTrueOrPop(_)
            | Op::UnpackSequence(_)
            | Op::CallKw(..)
            | Op::CallEx(_)
            | Op::MakeFunction(..)
            | Op::Raise(_)
            | Op::PopExcept
            | Op::Reraise
            | Op::LoadFastLoadFast(..)
            | Op::LoadFastLoadConst(..)
            | Op::StoreFastLoadFast(..)
            | Op::StoreFastStoreFast(..)
            | Op::LoadGlobalLoadFast(..)
            | Op::LoadFastLoadAttr(..)
            | Op::LoadFastBinary(..)
            | Op::LoadConstBinary(..)
            | Op::CompareJumpIfFalse(..)
            | Op::ForIterStoreFast(..)
            | Op::JumpForIter(_)
            | Op::LoadFastReturn(_)
            | Op::LoadConstReturn(_)
            | Op::LoadNoneReturn => unreachable!("{op:?} is dispatched by the loop"),
        }
    }

    /// `UnboundLocalError` for reading fast local `i` before it is bound.
    #[inline(never)]
    pub(super) fn unbound_local(&mut self, code: &Code, i: u32) -> Exc {
        let n = code.varnames[i as usize].clone();
        self.new_exc(
            "UnboundLocalError",
            &format!("cannot access local variable '{n}' where it is not associated with a value"),
        )
    }

    /// `obj.name(args…)` (the loop has charged `CALL`). A plain Python method comes back as
    /// the [`Callee`] the loop runs next; every other call is made here.
    #[inline(never)]
    pub(super) fn op_call_method(
        &mut self,
        f: &mut Frame,
        code: &Code,
        i: u32,
        argc: u32,
    ) -> R<Option<Box<Callee>>> {
        let n = f.stack.len() - argc as usize;
        // `obj.method(args…)` on an instance whose class defines a plain function `method`
        // (and whose own dict does not shadow it): the same lookup as `call_method`, then a
        // direct call with `obj` as the first argument.
        let (name, c) = (&code.names[i as usize], &code.name_caches[i as usize]);
        // The receiver's kind picks the paths that can apply (each answers `None` otherwise).
        let recv = n.checked_sub(1).map(|r| &f.stack[r]);
        if let Some(obj @ Value::Instance(_)) = recv {
            let direct = self.method_cached(obj, name, c);
            if let Some(func) = direct.filter(|func| func.takes_positional(argc + 1)) {
                return self
                    .enter_positional(&func, &mut f.stack, n, true)
                    .map(Some);
            }
            // A native class's method (`d.quantize(CENT)`): called with the receiver and the
            // arguments as they lie on the stack, as `call_method` would call it once bound.
            if let Some((recv, m)) = self.native_method_at(&f.stack, n, name, c) {
                let v = self.call(&m, Args::new(f.stack.split_off(recv)))?;
                push(&mut f.stack, v);
                return Ok(None);
            }
        }
        // A builtin method of a builtin value (`xs.append(x)`, `d.get(k)`): the lookup
        // `call_method` makes first is remembered per receiver kind.
        let row = n
            .checked_sub(1)
            .and_then(|recv| self.builtin_method_cached(&f.stack[recv], name, c));
        if let Some(row) = row {
            let args: Vec<Value> = f.stack.split_off(n);
            let o = Self::pop(f);
            let v = crate::objects::call_method_at(self, &o, &name.s, row, Args::new(args))?;
            push(&mut f.stack, v);
            return Ok(None);
        }
        let args: Vec<Value> = f.stack.split_off(n);
        let o = Self::pop(f);
        let v = self.call_method(&o, &code.names[i as usize].s, Args::new(args))?;
        push(&mut f.stack, v);
        Ok(None)
    }

    /// A positional call with `argc` arguments (the loop has charged `CALL`). A plain Python
    /// function, or the `__init__` of a plain class, comes back as the [`Callee`] the loop runs
    /// next; every other call is made here.
    #[inline(never)]
    pub(super) fn op_call(&mut self, f: &mut Frame, argc: u32) -> R<Option<Box<Callee>>> {
        let n = f.stack.len() - argc as usize;
        match n.checked_sub(1).map(|i| &f.stack[i]) {
            Some(Value::Function(func)) if func.takes_positional(argc) => {
                let func = func.clone();
                return self
                    .enter_positional(&func, &mut f.stack, n, false)
                    .map(Some);
            }
            Some(Value::Class(c)) => {
                let c = c.clone();
                if let Some(callee) = self.call_plain_class(f, c, n, argc)? {
                    return Ok(Some(callee));
                }
            }
            // `len(x)`, `min(a, b)`…: a builtin that takes a slice is given the arguments
            // where they lie, and they and the builtin leave the stack after it returns (as
            // the argument vector and the callee would have been dropped then).
            Some(Value::Builtin(b)) => {
                if let BuiltinKind::Func(id) = b.kind {
                    if let Some(call) = (self.library.builtins.positional)(id) {
                        let r = call(self, &f.stack[n..]);
                        f.stack.truncate(n - 1);
                        push(&mut f.stack, r?);
                        return Ok(None);
                    }
                }
            }
            _ => {}
        }
        let args: Vec<Value> = f.stack.split_off(n);
        let func = Self::pop(f);
        let v = self.call(&func, Args::new(args))?;
        push(&mut f.stack, v);
        Ok(None)
    }

    /// `C(args…)` of a plain class (`object.__new__`, a plain `__init__` taking the `argc`
    /// arguments at `n`…): the new instance takes the class's stack slot and becomes
    /// `__init__`'s receiver (as `call_class`), and `__init__` comes back as the [`Callee`] the
    /// loop runs next, which gives the instance in place of its `None`. `None`, with nothing
    /// done, for any other class.
    fn call_plain_class(
        &mut self,
        f: &mut Frame,
        c: Rc<Class>,
        n: usize,
        argc: u32,
    ) -> R<Option<Box<Callee>>> {
        let Some(init) = self
            .plain_init(&c)
            .filter(|init| init.takes_positional(argc + 1))
        else {
            return Ok(None);
        };
        let inst = Value::Instance(rc_inst(Instance::new(c)));
        f.stack[n - 1] = inst.clone();
        let mut callee = self.enter_positional(&init, &mut f.stack, n, true)?;
        callee.init = Some(inst);
        Ok(Some(callee))
    }

    /// Pop the top and say whether it is true (`JUMP_IF_*` on anything but a bool; the loop
    /// has charged the instruction, and `truthy` charges any `__bool__`/`__len__` it calls).
    #[inline(never)]
    pub(super) fn pop_truthy(&mut self, f: &mut Frame) -> R<bool> {
        let v = Self::pop(f);
        self.truthy(&v)
    }

    /// `o[k]` past the list/tuple fast path (the loop has charged `LIST_OP`).
    #[inline(never)]
    pub(super) fn op_subscr(&mut self, f: &mut Frame) -> R<()> {
        let k = Self::pop(f);
        let o = Self::pop(f);
        // A dict and a str key, the commonest lookup: `getitem`'s dict arm, entered directly.
        let v = match (&o, &k) {
            (Value::Dict(d), Value::Str(s)) => match self.dict_get_pystr(d, s, &k)? {
                Some(v) => v,
                None => return Err(crate::objects::key_error(self, &k)),
            },
            _ => self.getitem(&o, &k)?,
        };
        f.stack.push(v);
        Ok(())
    }

    /// `o[k] = v` past the list fast path (the loop has charged `LIST_OP`).
    #[inline(never)]
    pub(super) fn op_store_subscr(&mut self, f: &mut Frame) -> R<()> {
        let k = Self::pop(f);
        let o = Self::pop(f);
        let v = Self::pop(f);
        self.setitem(&o, k, v)
    }

    /// A binary or in-place operator past the int/float fast path (the loop has charged
    /// `ARITH`): `s += t` on a string it may append to in place, else the full protocol.
    #[inline(never)]
    pub(super) fn op_binary(&mut self, f: &mut Frame, op: Op, b: BinOp) -> R<()> {
        if op == Op::Inplace(BinOp::Add) && self.str_append_in_place(f)? {
            return Ok(());
        }
        let r = Self::pop(f);
        let l = Self::pop(f);
        let v = self.binary_op(&l, &r, b, matches!(op, Op::Inplace(_)))?;
        f.stack.push(v);
        Ok(())
    }

    /// A comparison past the int/float fast path (the loop has charged `ARITH`).
    #[inline(never)]
    pub(super) fn op_compare(&mut self, f: &mut Frame, c: CmpOp) -> R<()> {
        let r = Self::pop(f);
        let l = Self::pop(f);
        let v = self.compare(&l, &r, c)?;
        f.stack.push(v);
        Ok(())
    }

    /// `FOR_ITER` on an iterator the loop does not step itself (the loop has charged `ITER`).
    #[inline(never)]
    pub(super) fn op_for_iter(&mut self, f: &mut Frame, t: u32) -> R<()> {
        let it = Self::top(f).clone();
        let step = match &it {
            Value::Iter(i) if self.unpacks_pair_next(f) => {
                crate::objects::iter::next_pair(self, i)?
            }
            _ => PairStep::Other,
        };
        let next = match step {
            PairStep::Pair(a, b) => return self.unpack_pair(f, a, b, true),
            PairStep::End => None,
            PairStep::Other => self.next(&it)?,
        };
        match next {
            Some(v) => f.stack.push(v),
            None => {
                f.stack.pop();
                f.pc = t as usize;
            }
        }
        Ok(())
    }

    /// The instruction after this `FOR_ITER` unpacks what it gives into two names (`for a, b
    /// in …`), and the invocation is not profiled (a profile sees every instruction start).
    pub(super) fn unpacks_pair_next(&self, f: &Frame) -> bool {
        self.profile.is_none() && matches!(f.code.ops.get(f.pc), Some(Op::UnpackSequence(2)))
    }

    /// Finish `FOR_ITER` + `UNPACK_SEQUENCE 2` for a pair [`next_pair`] gave as its items: a
    /// pair the step would have `made` is accounted as if `FOR_ITER` made it (one that exists
    /// already, an item of a list of pairs, costs nothing to pass), then the unpack runs as
    /// the loop would run it (counted, the attention flag settled, `charge_unpack`), then the
    /// pair is dropped. Cycles, memory figures, instruction counts and where a limit stops
    /// the run are those of the two instructions run one after the other.
    ///
    /// [`next_pair`]: crate::objects::iter::next_pair
    pub(super) fn unpack_pair(&mut self, f: &mut Frame, a: Value, b: Value, made: bool) -> R<()> {
        let made = made.then(|| crate::memory::Acct::new(PyTuple::bytes(2)));
        f.pc += 1;
        self.instructions += 1;
        if crate::memory::attention() {
            self.settle()?;
        }
        self.charge_unpack(2)?;
        f.stack.push(b);
        f.stack.push(a);
        drop(made);
        Ok(())
    }

    /// `yield from` / `await` (the loop has charged `YIELD`): `Some(value)` when the
    /// sub-iterator yields, and the frame yields it and will run this instruction again with
    /// the next sent value; `None` when it returned, its result replacing it on the stack.
    #[inline(never)]
    pub(super) fn op_yield_from(&mut self, f: &mut Frame) -> R<Option<Value>> {
        let sent = Self::pop(f);
        let sub = Self::top(f).clone();
        match self.send(&sub, sent)? {
            Ok(y) => {
                // Resume at this instruction again with the next sent value.
                f.pc -= 1;
                Ok(Some(y))
            }
            Err(ret) => {
                f.stack.pop();
                f.stack.push(ret);
                Ok(None)
            }
        }
    }

    /// `LOAD_CLOSURE`: the cell itself, for a closure being made (`LOAD_DEREF`, the cell's
    /// value, is read in the loop).
    #[inline(never)]
    pub(super) fn op_load_closure(&mut self, f: &mut Frame, i: u32) -> R<()> {
        self.charge(cost::BASIC)?;
        f.stack.push(Value::Cell(f.cells[i as usize].clone()));
        Ok(())
    }

    /// The `NameError` of a `LOAD_DEREF` whose cell is empty.
    #[cold]
    #[inline(never)]
    pub(super) fn unbound_free_var(&mut self, code: &Code, i: u32) -> Exc {
        let n = self.cell_name(code, i);
        self.new_exc(
            "NameError",
            &format!("cannot access free variable '{n}' where it is not associated with a value in enclosing scope"),
        )
    }

    /// `LOAD_NAME` (class bodies, module level): the namespace, then globals and builtins.
    #[inline(never)]
    fn op_load_name(&mut self, f: &mut Frame, code: &Code, i: u32) -> R<()> {
        self.charge(cost::GLOBAL)?;
        let name = &code.names[i as usize];
        if let Some(v) = f.ns.as_ref().and_then(|ns| ns.get_name(name)) {
            f.stack.push(v);
            return Ok(());
        }
        self.load_global_push(
            &mut f.stack,
            &f.globals,
            name,
            &code.name_caches[i as usize],
        )
    }

    /// `LOAD_CLASSDEREF`: a class body's namespace first, then the cell.
    #[inline(never)]
    fn op_load_class_deref(&mut self, f: &mut Frame, code: &Code, i: u32, c: u32) -> R<()> {
        self.charge(cost::GLOBAL)?;
        let name = &code.names[i as usize];
        if let Some(v) = f.ns.as_ref().and_then(|ns| ns.get_name(name)) {
            f.stack.push(v);
            return Ok(());
        }
        let v = f.cells[c as usize].v.borrow().clone();
        match v {
            Some(v) => f.stack.push(v),
            None => return Err(self.name_error(&name.s)),
        }
        Ok(())
    }

    /// `BUILD_MAP` of `n` key-value pairs.
    #[inline(never)]
    pub(super) fn op_build_map(&mut self, f: &mut Frame, n: u32) -> R<()> {
        self.charge(cost::BUILD + cost::per_elem(n as usize))?;
        let k = f.stack.len() - 2 * n as usize;
        let items: Vec<Value> = f.stack.split_off(k);
        let d = crate::value::rc_dict(PyDict::new());
        for kv in items.chunks(2) {
            self.dict_set(&d, kv[0].clone(), kv[1].clone())?;
        }
        f.stack.push(Value::Dict(d));
        Ok(())
    }

    /// `BUILD_STRING` (f-strings): joins the parts, charged by the length of the result.
    #[inline(never)]
    pub(super) fn op_build_string(&mut self, f: &mut Frame, n: u32) -> R<()> {
        let k = f.stack.len() - n as usize;
        let parts: Vec<Value> = f.stack.split_off(k);
        let mut s = String::new();
        for p in &parts {
            if let Value::Str(x) = p {
                s.push_str(&x.s);
            }
        }
        self.charge(cost::BUILD + cost::per_char(s.len()))?;
        f.stack.push(Value::str(&s));
        Ok(())
    }

    /// `LIST_EXTEND` / `SET_UPDATE` (starred displays and `*args`): charged after collecting, by the items.
    #[inline(never)]
    pub(super) fn op_list_extend(&mut self, f: &mut Frame, op: Op) -> R<()> {
        let it = Self::pop(f);
        let items = match self.collect(&it) {
            Ok(items) => items,
            Err(e)
                if matches!(op, Op::ArgsExtend)
                    && self.exc_is(&e, "TypeError")
                    && self.not_iterable(&it) =>
            {
                let callee = f.stack[f.stack.len().saturating_sub(2)].clone();
                let fs = self.func_str(&callee)?;
                let tn = self.type_name(&it);
                return Err(self.type_err(format!(
                    "{fs} argument after * must be an iterable, not {tn}"
                )));
            }
            Err(e) => return Err(e),
        };
        self.charge(cost::BUILD + cost::per_elem(items.len()))?;
        match Self::top(f).clone() {
            Value::List(l) => {
                l.items.borrow_mut().extend(items);
                l.touch();
            }
            Value::Set(s) => {
                for x in items {
                    self.set_add(&s, x)?;
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// `DICT_UPDATE` / `DICT_MERGE` (`**` in displays and calls): charged after reading the pairs, by their number.
    #[inline(never)]
    pub(super) fn op_dict_update(&mut self, f: &mut Frame, op: Op) -> R<()> {
        let src = Self::pop(f);
        let Value::Dict(dst) = Self::top(f).clone() else {
            return Ok(());
        };
        // DictMerge builds a call's keywords; the callee sits below the
        // positional tuple and this dict, and names it in errors as CPython does.
        let callee = |f: &Frame| f.stack[f.stack.len().saturating_sub(3)].clone();
        let pairs = match self.mapping_items(&src) {
            Ok(p) => p,
            Err(e) if matches!(op, Op::DictMerge) && self.exc_is(&e, "TypeError") => {
                let fs = self.func_str(&callee(f))?;
                let tn = self.type_name(&src);
                return Err(self.type_err(format!(
                    "{fs} argument after ** must be a mapping, not {tn}"
                )));
            }
            Err(e) => return Err(e),
        };
        self.charge(cost::BUILD + cost::per_elem(pairs.len()))?;
        for (k, v) in pairs {
            if matches!(op, Op::DictMerge) && !matches!(k, Value::Str(_)) {
                return Err(self.type_err("keywords must be strings"));
            }
            if matches!(op, Op::DictMerge) && self.dict_get(&dst, &k)?.is_some() {
                let ks = self.str(&k)?;
                let fs = self.func_str(&callee(f))?;
                return Err(self.type_err(format!(
                    "{fs} got multiple values for keyword argument '{ks}'"
                )));
            }
            self.dict_set(&dst, k, v)?;
        }
        Ok(())
    }

    /// `LIST_APPEND` / `SET_ADD` of a comprehension: the container is `n` below the top.
    #[inline(never)]
    pub(super) fn op_list_append(&mut self, f: &mut Frame, n: u32) -> R<()> {
        self.charge(cost::LIST_OP)?;
        let v = Self::pop(f);
        let idx = f.stack.len() - n as usize;
        match f.stack[idx].clone() {
            Value::List(l) => {
                l.items.borrow_mut().push(v);
                l.touch();
            }
            Value::Set(s) => self.set_add(&s, v)?,
            _ => {}
        }
        Ok(())
    }

    /// `FORMAT_VALUE` (f-string fields): conversion, then `format(value, spec)`.
    #[inline(never)]
    pub(super) fn op_format_value(&mut self, f: &mut Frame, flags: u32) -> R<()> {
        self.charge(cost::BASIC)?;
        let spec = if flags & 1 == 1 {
            Some(Self::pop(f))
        } else {
            None
        };
        let mut v = Self::pop(f);
        match flags >> 1 {
            1 => v = Value::str(&self.str(&v)?),
            2 => v = Value::str(&self.repr(&v)?),
            3 => v = Value::str(&crate::format::ascii_escape(&self.repr(&v)?)),
            _ => {}
        }
        let spec = match &spec {
            Some(Value::Str(s)) => s.s.to_string(),
            _ => String::new(),
        };
        let s = self.format(&v, &spec)?;
        f.stack.push(Value::str(&s));
        Ok(())
    }

    /// `JUMP_IF_FALSE_OR_POP` / `JUMP_IF_TRUE_OR_POP` (`and`, `or`).
    #[inline(never)]
    pub(super) fn op_jump_or_pop(&mut self, f: &mut Frame, op: Op, t: u32) -> R<()> {
        self.charge(cost::BASIC)?;
        let v = Self::top(f).clone();
        let b = self.truthy(&v)?;
        if b == matches!(op, Op::JumpIfTrueOrPop(_)) {
            f.pc = t as usize;
        } else {
            f.stack.pop();
        }
        Ok(())
    }

    /// `UNPACK_SEQUENCE`: charged after the length check, by the items.
    #[inline(never)]
    pub(super) fn op_unpack_sequence(&mut self, f: &mut Frame, n: u32) -> R<()> {
        let v = Self::pop(f);
        let n = n as usize;
        // A tuple or list of the right length goes straight onto the stack, with
        // the general path's charges (`charge_unpack`) but without its copy:
        // `a, b = b, a + b` and `for x, y in pairs` allocated a vector per step.
        match &v {
            Value::Tuple(t) if t.items.len() == n => {
                self.charge_unpack(n)?;
                f.stack.reserve(n);
                for item in t.items.iter().rev() {
                    f.stack.push(item.clone());
                }
            }
            Value::List(l) if l.items.borrow().len() == n => {
                self.charge_unpack(n)?;
                f.stack.reserve(n);
                for item in l.items.borrow().iter().rev() {
                    f.stack.push(item.clone());
                }
            }
            _ => {
                let items = self.unpack(&v, n, None)?;
                self.charge(cost::BASIC + cost::per_elem(items.len()))?;
                f.stack.extend(items.into_iter().rev());
            }
        }
        Ok(())
    }

    /// `CALL` with keywords: the names are a tuple constant.
    #[inline(never)]
    pub(super) fn op_call_kw(
        &mut self,
        f: &mut Frame,
        code: &Code,
        argc: u32,
        names: u32,
    ) -> R<()> {
        self.charge(cost::CALL)?;
        let Value::Tuple(names) = &code.consts[names as usize] else {
            return Ok(());
        };
        let n = f.stack.len() - argc as usize;
        let mut args: Vec<Value> = f.stack.split_off(n);
        let kwv = args.split_off(args.len() - names.items.len());
        let kw = names
            .items
            .iter()
            .zip(kwv)
            .map(|(k, v)| {
                (
                    if let Value::Str(s) = k {
                        Rc::from(&*s.s)
                    } else {
                        Rc::from("")
                    },
                    v,
                )
            })
            .collect();
        let func = Self::pop(f);
        let v = self.call(&func, Args { pos: args, kw })?;
        f.stack.push(v);
        Ok(())
    }

    /// `CALL_FUNCTION_EX`: `f(*args)`, and `**kwargs` when `flag` is 1.
    #[inline(never)]
    pub(super) fn op_call_ex(&mut self, f: &mut Frame, flag: u32) -> R<()> {
        self.charge(cost::CALL)?;
        let kw = if flag == 1 { Some(Self::pop(f)) } else { None };
        let pos = Self::pop(f);
        let func = Self::pop(f);
        let mut args = Args::default();
        if let Value::Tuple(t) = pos {
            args.pos = t.items.to_vec();
        }
        if let Some(Value::Dict(d)) = kw {
            for e in d.table.borrow().iter() {
                let k = match &e.key {
                    Value::Str(s) => Rc::from(&*s.s),
                    _ => Rc::from(""),
                };
                args.kw.push((k, e.value.clone()));
            }
        }
        let v = self.call(&func, args)?;
        f.stack.push(v);
        Ok(())
    }

    /// `MAKE_FUNCTION`: pops the closure, annotations, keyword defaults and defaults its flags name.
    #[inline(never)]
    pub(super) fn op_make_function(
        &mut self,
        f: &mut Frame,
        code: &Code,
        ci: u32,
        flags: u32,
    ) -> R<()> {
        self.charge(cost::MAKE)?;
        let c = code.codes[ci as usize].clone();
        // Popped in the reverse of the order the compiler pushed them (its flag bits).
        let closure = if flags & 4 != 0 {
            closure_cells(Self::pop(f))
        } else {
            Vec::new()
        };
        let annotations = if flags & 8 != 0 {
            Some(Self::pop(f))
        } else {
            None
        };
        let kwdefaults = if flags & 2 != 0 {
            str_keyed_pairs(Self::pop(f))
        } else {
            Vec::new()
        };
        let defaults = if flags & 1 != 0 {
            match Self::pop(f) {
                Value::Tuple(t) => t.items.to_vec(),
                _ => Vec::new(),
            }
        } else {
            Vec::new()
        };
        let func = Function::new(c.clone(), f.globals.clone(), defaults, kwdefaults, closure);
        *func.meta.borrow_mut() = crate::value::FuncMeta {
            name: None,
            qualname: None,
            doc: c.consts.first().cloned().unwrap_or_default(),
            module: self
                .dict_get_str(&f.globals, "__name__")
                .unwrap_or_default(),
            annotations,
        };
        f.stack.push(Value::Function(crate::value::rc_func(func)));
        Ok(())
    }

    /// `async with` left by an exception: calls `__aexit__(type, exc, tb)`.
    #[inline(never)]
    fn op_async_with_except(&mut self, f: &mut Frame) -> R<()> {
        self.charge(cost::CALL)?;
        let e = Self::pop(f);
        let exit = Self::pop(f);
        let ty = self.type_of(&e);
        let tb = crate::objects::traceback::of(self, &e)?;
        let args = vec![Value::Class(ty), e.clone(), tb];
        let r = self.call(&exit, Args::new(args))?;
        f.stack.push(e);
        f.stack.push(r);
        Ok(())
    }

    /// After `__aexit__` was awaited: swallow the exception (truthy result) or re-raise it.
    #[inline(never)]
    fn op_async_with_except_end(&mut self, f: &mut Frame) -> R<()> {
        self.charge(cost::BASIC)?;
        let r = Self::pop(f);
        let e = Self::pop(f);
        if let Some(b) = f.blocks.pop() {
            if b.kind == BlockKind::Handler {
                self.handling.pop();
            }
        }
        if !self.truthy(&r)? {
            self.reraise = true;
            return Err(Exc::Py(e));
        }
        Ok(())
    }

    /// `except*` entry: the original, a list for what handlers raise, and the rest to match.
    #[inline(never)]
    fn op_exc_star_begin(&mut self, f: &mut Frame) -> R<()> {
        self.charge(cost::EXCEPT)?;
        let e = Self::pop(f);
        f.stack.push(e.clone());
        f.stack.push(Value::list(Vec::new()));
        f.stack.push(e);
        Ok(())
    }

    /// `except* T` (PEP 654): split off the matching part, or jump to the next clause.
    #[inline(never)]
    fn op_exc_star_match(&mut self, f: &mut Frame, t: u32) -> R<()> {
        self.charge(cost::EXCEPT)?;
        let ty = Self::pop(f);
        let rest = Self::pop(f);
        let (rest, m) = if rest.is_none() {
            (rest, Value::None)
        } else {
            crate::objects::excgroup::star_match(self, &rest, &ty)?
        };
        f.stack.push(rest);
        if m.is_none() {
            f.pc = t as usize;
        } else {
            f.blocks.push(Block {
                kind: BlockKind::Handler,
                handler: 0,
                depth: f.stack.len() as u32,
                exc: Some(m.clone()),
            });
            self.handling.push(m.clone());
            f.stack.push(m);
        }
        Ok(())
    }

    /// End of `except*`: re-raise what is left (`PREP_RERAISE_STAR`), if anything.
    #[inline(never)]
    fn op_exc_star_end(&mut self, f: &mut Frame) -> R<()> {
        self.charge(cost::EXCEPT)?;
        let rest = Self::pop(f);
        let list = Self::pop(f);
        let orig = Self::pop(f);
        let mut excs = match &list {
            Value::List(l) => l.items.borrow().clone(),
            _ => Vec::new(),
        };
        excs.push(rest);
        let r = crate::objects::excgroup::prep_reraise(self, &orig, excs);
        if let Some(b) = f.blocks.pop() {
            if b.kind == BlockKind::Handler {
                self.handling.pop();
            }
        }
        let r = r?;
        if !r.is_none() {
            self.reraise = true;
            return Err(Exc::Py(r));
        }
        Ok(())
    }

    /// End of `async for`: `StopAsyncIteration` ends the loop, anything else is re-raised.
    #[inline(never)]
    fn op_end_async_for(&mut self, f: &mut Frame) -> R<()> {
        self.charge(cost::EXCEPT)?;
        let e = Self::pop(f);
        if let Some(b) = f.blocks.pop() {
            if b.kind == BlockKind::Handler {
                self.handling.pop();
            }
        }
        let e = Exc::Py(e);
        if !self.exc_is(&e, "StopAsyncIteration") {
            self.reraise = true;
            return Err(e);
        }
        f.stack.pop();
        Ok(())
    }

    /// `raise`, `raise e`, `raise e from c`: always an `Err`.
    #[inline(never)]
    pub(super) fn op_raise(&mut self, f: &mut Frame, n: u32) -> R<()> {
        self.charge(cost::RAISE)?;
        match n {
            0 => match self.handling.last().cloned() {
                Some(e) => {
                    // A bare `raise` adds no traceback entry for this frame (CPython's
                    // RERAISE path skips PyTraceBack_Here).
                    self.reraise = true;
                    Err(Exc::Py(e))
                }
                None => Err(self.new_exc("RuntimeError", "No active exception to reraise")),
            },
            1 => {
                let e = Self::pop(f);
                Err(self.raise_value(e, None))
            }
            _ => {
                let cause = Self::pop(f);
                let e = Self::pop(f);
                let cause = match cause {
                    Value::Class(c) => self.call(&Value::Class(c), Args::default())?,
                    v => v,
                };
                Err(self.raise_value(e, Some(cause)))
            }
        }
    }

    /// End of an `except` handler: it is no longer being handled.
    #[inline(never)]
    pub(super) fn op_pop_except(&mut self, f: &mut Frame) -> R<()> {
        self.charge(cost::BASIC)?;
        if let Some(b) = f.blocks.pop() {
            if b.kind == BlockKind::Handler {
                self.handling.pop();
            }
        }
        Ok(())
    }

    /// End of a `finally` reached by an exception: re-raise it.
    #[inline(never)]
    pub(super) fn op_reraise(&mut self, f: &mut Frame) -> R<()> {
        self.charge(cost::RAISE)?;
        let e = Self::pop(f);
        if let Some(b) = f.blocks.pop() {
            if b.kind == BlockKind::Handler {
                self.handling.pop();
            }
        }
        self.reraise = true;
        Err(Exc::Py(e))
    }

    /// `with`: bound `__exit__` then the `__enter__()` result.
    #[inline(never)]
    fn op_with_enter(&mut self, f: &mut Frame) -> R<()> {
        self.charge(cost::CALL)?;
        let mgr = Self::pop(f);
        let exit = match self.getattr(&mgr, "__exit__") {
            Ok(x) => x,
            Err(e) if e.is_abort() => return Err(e),
            Err(_) => {
                let tn = self.type_name(&mgr);
                // CPython 3.11 says which half is missing when one is there.
                let detail = if self.getattr_opt(&mgr, "__enter__")?.is_some() {
                    " (missed __exit__ method)"
                } else {
                    ""
                };
                return Err(self.type_err(format!(
                    "'{tn}' object does not support the context manager protocol{detail}"
                )));
            }
        };
        let r = self.call_method(&mgr, "__enter__", Args::default())?;
        f.stack.push(exit);
        f.stack.push(r);
        Ok(())
    }

    /// `with` left by an exception: `__exit__(type, exc, tb)` swallows it or it is re-raised.
    #[inline(never)]
    fn op_with_except(&mut self, f: &mut Frame) -> R<()> {
        self.charge(cost::CALL)?;
        let e = Self::pop(f);
        let exit = Self::pop(f);
        let ty = self.type_of(&e);
        let tb = crate::objects::traceback::of(self, &e);
        let r =
            tb.and_then(|tb| self.call(&exit, Args::new(vec![Value::Class(ty), e.clone(), tb])));
        if let Some(b) = f.blocks.pop() {
            if b.kind == BlockKind::Handler {
                self.handling.pop();
            }
        }
        let r = r?;
        if !self.truthy(&r)? {
            self.reraise = true;
            return Err(Exc::Py(e));
        }
        Ok(())
    }

    /// `from m import name`: CPython's `ImportError` when `name` is missing.
    #[inline(never)]
    fn op_import_from(&mut self, f: &mut Frame, code: &Code, i: u32) -> R<()> {
        self.charge(cost::ATTR)?;
        let m = Self::top(f).clone();
        let name = &code.names[i as usize];
        let name = &name.s;
        let v = match self.getattr(&m, name) {
            Ok(v) => v,
            Err(e) if self.exc_is(&e, "AttributeError") => {
                let mn = match &m {
                    Value::Module(m) => m.name.to_string(),
                    _ => String::new(),
                };
                // PVM modules have no file: CPython words a module without
                // `__file__` "(unknown location)" (LIMITATIONS 6).
                let e = self.new_exc(
                    "ImportError",
                    &format!("cannot import name '{name}' from '{mn}' (unknown location)"),
                );
                if let Exc::Py(Value::Instance(i)) = &e {
                    i.dict.set_str("name", Value::str(&mn));
                }
                return Err(e);
            }
            Err(e) => return Err(e),
        };
        f.stack.push(v);
        Ok(())
    }

    /// `from m import *`: every public name, charged per name.
    #[inline(never)]
    fn op_import_star(&mut self, f: &mut Frame) -> R<()> {
        self.charge(cost::IMPORT_CACHED)?;
        if let Value::Module(m) = Self::pop(f) {
            let items: Vec<Entry> = m.dict().table.borrow().iter().cloned().collect();
            self.charge(cost::per_elem(items.len()))?;
            for e in items {
                if let Value::Str(s) = &e.key {
                    if !s.s.starts_with('_') {
                        let g = f.globals.clone();
                        self.dict_set(&g, e.key.clone(), e.value.clone())?;
                    }
                }
            }
        }
        Ok(())
    }

    /// Class patterns: an `isinstance` check (`k` 0) or the `k`-th positional sub-pattern's attribute.
    #[inline(never)]
    fn op_match_class(&mut self, f: &mut Frame, k: u32) -> R<()> {
        self.charge(cost::ATTR)?;
        let cls = Self::pop(f);
        let subj = Self::pop(f);
        let Value::Class(c) = &cls else {
            return Err(self.type_err("called match pattern must be a type"));
        };
        if k == 0 {
            let sc = self.type_of(&subj);
            f.stack.push(Value::Bool(sc.is_subclass(c)));
            return Ok(());
        }
        let match_args = c.lookup_static("__match_args__");
        // CPython's builtin types that match their subject itself for one positional
        // sub-pattern (`case int(x)`), unless they define `__match_args__`.
        let self_match = matches!(
            c.builtin,
            BuiltinType::Bool
                | BuiltinType::ByteArray
                | BuiltinType::Bytes
                | BuiltinType::Dict
                | BuiltinType::Float
                | BuiltinType::FrozenSet
                | BuiltinType::Int
                | BuiltinType::List
                | BuiltinType::Set
                | BuiltinType::Str
                | BuiltinType::Tuple
        ) && match_args.is_none();
        if self_match && k == 1 {
            f.stack.push(subj);
            f.stack.push(Value::Bool(true));
            return Ok(());
        }
        let name = self.match_arg_name(c, match_args, k, self_match)?;
        let got = self.match_attr(&subj, &name.s)?;
        Self::push_match(f, got);
        Ok(())
    }

    /// The attribute name `__match_args__` gives the `k`-th positional sub-pattern (from 1),
    /// with CPython's errors for a bad `__match_args__` or too many sub-patterns.
    fn match_arg_name(
        &mut self,
        c: &Class,
        match_args: Option<Value>,
        k: u32,
        self_match: bool,
    ) -> R<Rc<PyStr>> {
        let args = match match_args {
            Some(Value::Tuple(t)) => t.items.to_vec(),
            None => Vec::new(),
            Some(other) => {
                return Err(self.type_err(format!(
                    "{}.__match_args__ must be a tuple (got {})",
                    c.name,
                    self.type_name(&other)
                )))
            }
        };
        match args.get(k as usize - 1) {
            Some(Value::Str(name)) => Ok(name.clone()),
            Some(other) => Err(self.type_err(format!(
                "__match_args__ elements must be strings (got {})",
                self.type_name(other)
            ))),
            None => {
                let n = args.len().max(usize::from(self_match));
                Err(self.type_err(format!(
                    "{}() accepts {} positional sub-pattern{} ({} given)",
                    c.name,
                    n,
                    if n == 1 { "" } else { "s" },
                    k
                )))
            }
        }
    }

    /// Mapping patterns' `**rest`: the subject's pairs minus the matched keys.
    #[inline(never)]
    fn op_copy_dict_without_keys(&mut self, f: &mut Frame) -> R<()> {
        let keys = Self::pop(f);
        let subj = Self::base_of(&Self::pop(f));
        let d = crate::value::rc_dict(PyDict::new());
        let pairs = self.mapping_items(&subj)?;
        self.charge(cost::BUILD + cost::per_elem(pairs.len()))?;
        let ks = self.seq_items(&keys);
        for (k, v) in pairs {
            let mut skip = false;
            for x in &ks {
                if self.eq(&k, x)? {
                    skip = true;
                    break;
                }
            }
            if !skip {
                self.dict_set(&d, k, v)?;
            }
        }
        f.stack.push(Value::Dict(d));
        Ok(())
    }

    /// `SETUP_EXCEPT`/`SETUP_FINALLY`: push the block that sends an exception (or the way out
    /// of a `try`) to `handler`.
    #[inline(never)]
    pub(super) fn op_setup_block(&mut self, f: &mut Frame, op: Op, handler: u32) -> R<()> {
        self.charge(cost::TRY)?;
        let kind = if matches!(op, Op::SetupExcept(_)) {
            BlockKind::Except
        } else {
            BlockKind::Finally
        };
        f.blocks.push(Block {
            kind,
            handler,
            depth: f.stack.len() as u32,
            exc: None,
        });
        Ok(())
    }

    /// `DUP_TOP_TWO`.
    #[inline(never)]
    pub(super) fn op_dup2(&mut self, f: &mut Frame) -> R<()> {
        self.charge(cost::BASIC)?;
        let n = f.stack.len();
        if n >= 2 {
            let a = f.stack[n - 2].clone();
            let b = f.stack[n - 1].clone();
            f.stack.push(a);
            f.stack.push(b);
        }
        Ok(())
    }

    /// `ROT_THREE`: the top moves under the next two.
    #[inline(never)]
    pub(super) fn op_rot3(&mut self, f: &mut Frame) -> R<()> {
        self.charge(cost::BASIC)?;
        let v = Self::pop(f);
        let n = f.stack.len();
        f.stack.insert(n.saturating_sub(2), v);
        Ok(())
    }

    /// `STORE_DEREF`: into cell `i`.
    #[inline(never)]
    pub(super) fn op_store_deref(&mut self, f: &mut Frame, i: u32) -> R<()> {
        self.charge(cost::BASIC)?;
        let v = Self::pop(f);
        *f.cells[i as usize].v.borrow_mut() = Some(v);
        Ok(())
    }

    /// `del o[k]`.
    #[inline(never)]
    pub(super) fn op_delete_subscr(&mut self, f: &mut Frame) -> R<()> {
        self.charge(cost::LIST_OP)?;
        let k = Self::pop(f);
        let o = Self::pop(f);
        self.delitem(&o, k)?;
        Ok(())
    }

    /// `is` / `is not` when the right operand is not `None` (the loop has charged `ARITH`).
    #[inline(never)]
    pub(super) fn op_is(&mut self, f: &mut Frame, neg: bool) -> R<()> {
        let r = Self::pop(f);
        let l = Self::pop(f);
        let same = self.is_op(&l, &r)?;
        f.stack.push(Value::Bool(same != neg));
        Ok(())
    }

    /// `in` / `not in`.
    #[inline(never)]
    pub(super) fn op_in(&mut self, f: &mut Frame, neg: bool) -> R<()> {
        self.charge(cost::ARITH)?;
        let r = Self::pop(f);
        let l = Self::pop(f);
        let b = self.contains(&r, &l)?;
        f.stack.push(Value::Bool(b != neg));
        Ok(())
    }

    /// `not v` of anything but a bool (the loop has charged `ARITH`).
    #[inline(never)]
    pub(super) fn op_not(&mut self, f: &mut Frame) -> R<()> {
        let v = Self::pop(f);
        let b = self.truthy(&v)?;
        f.stack.push(Value::Bool(!b));
        Ok(())
    }

    /// Unary `-`, `+`, `~`.
    #[inline(never)]
    pub(super) fn op_unary(&mut self, f: &mut Frame, op: Op) -> R<()> {
        self.charge(cost::ARITH)?;
        let v = Self::pop(f);
        let r = self.unary_op(&v, op)?;
        f.stack.push(r);
        Ok(())
    }

    /// `BUILD_TUPLE` / `BUILD_LIST` of the top `n` values.
    #[inline(never)]
    pub(super) fn op_build_seq(&mut self, f: &mut Frame, op: Op, n: u32) -> R<()> {
        self.charge(cost::BUILD + cost::per_elem(n as usize))?;
        let k = f.stack.len() - n as usize;
        let items: Vec<Value> = f.stack.split_off(k);
        f.stack.push(if matches!(op, Op::BuildTuple(_)) {
            Value::tuple(items)
        } else {
            Value::list(items)
        });
        Ok(())
    }

    /// `BUILD_SET` of the top `n` values.
    #[inline(never)]
    pub(super) fn op_build_set(&mut self, f: &mut Frame, n: u32) -> R<()> {
        self.charge(cost::BUILD + cost::per_elem(n as usize))?;
        let k = f.stack.len() - n as usize;
        let items: Vec<Value> = f.stack.split_off(k);
        let s = self.new_set(items, false)?;
        f.stack.push(s);
        Ok(())
    }

    /// `MAP_ADD` of a dict comprehension: the dict is below the key and value.
    #[inline(never)]
    pub(super) fn op_map_add(&mut self, f: &mut Frame, n: u32) -> R<()> {
        self.charge(cost::DICT_OP)?;
        let v = Self::pop(f);
        let k = Self::pop(f);
        let idx = f.stack.len() + 1 - n as usize;
        if let Value::Dict(d) = f.stack[idx].clone() {
            self.dict_set(&d, k, v)?;
        }
        Ok(())
    }

    /// `GET_ITER`.
    #[inline(never)]
    pub(super) fn op_get_iter(&mut self, f: &mut Frame) -> R<()> {
        self.charge(cost::BASIC)?;
        let v = Self::pop(f);
        let it = self.iter(&v)?;
        f.stack.push(it);
        Ok(())
    }

    /// `except T`: pops `T`, peeks the exception, pushes whether it matches.
    #[inline(never)]
    pub(super) fn op_exc_match(&mut self, f: &mut Frame) -> R<()> {
        self.charge(cost::EXCEPT)?;
        let ty = Self::pop(f);
        let e = Self::top(f).clone();
        let m = self.exc_matches(&e, &ty)?;
        f.stack.push(Value::Bool(m));
        Ok(())
    }
}

/// The cells of a closure tuple (`MAKE_FUNCTION` flag 4); anything else holds none.
fn closure_cells(v: Value) -> Vec<Rc<PyCell>> {
    match v {
        Value::Tuple(t) => t
            .items
            .iter()
            .filter_map(|x| match x {
                Value::Cell(c) => Some(c.clone()),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// The pairs of a keyword-defaults dict (`MAKE_FUNCTION` flag 2), in order; the compiler
/// keys it by parameter name, so a non-str key (never made) would read as "".
fn str_keyed_pairs(v: Value) -> Vec<(Rc<str>, Value)> {
    match v {
        Value::Dict(d) => d
            .table
            .borrow()
            .iter()
            .map(|e| {
                let k = match &e.key {
                    Value::Str(s) => Rc::from(&*s.s),
                    _ => Rc::from(""),
                };
                (k, e.value.clone())
            })
            .collect(),
        _ => Vec::new(),
    }
}
