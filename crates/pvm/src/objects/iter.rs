//! Builtin iterators (list/str/range/dict/set iterators, enumerate, zip, map, filter,
//! reversed) and generator methods.

use super::arity::Arity::*;
use crate::cost;
use crate::value::*;
use crate::vm::{Args, Exc, Vm, R};
use std::rc::Rc;

/// Advance a builtin iterator.
pub fn next(vm: &mut Vm, it: &Rc<PyIter>) -> R<Option<Value>> {
    let mut st = it.state.borrow_mut();
    match &mut *st {
        IterState::Seq { seq, i } => {
            let r = match seq {
                Value::List(l) => l.items.borrow().get(*i).cloned(),
                Value::Tuple(t) => t.items.get(*i).cloned(),
                Value::Bytes(b) => b.b.get(*i).map(|x| Value::Int(*x as i64)),
                Value::ByteArray(b) => b.b.borrow().get(*i).map(|x| Value::Int(*x as i64)),
                Value::Instance(_) => {
                    let s = seq.clone();
                    let k = Value::Int(*i as i64);
                    *i += 1;
                    drop(st);
                    return match vm.getitem(&s, &k) {
                        Ok(v) => Ok(Some(v)),
                        Err(e) if vm.exc_is(&e, "IndexError") || vm.exc_is(&e, "StopIteration") => {
                            Ok(None)
                        }
                        Err(e) => Err(e),
                    };
                }
                _ => None,
            };
            if r.is_some() {
                *i += 1;
            } else {
                *st = IterState::Empty;
            }
            Ok(r)
        }
        IterState::Str { s, byte } => {
            let rest = &s.s[*byte..];
            match rest.chars().next() {
                Some(c) => {
                    *byte += c.len_utf8();
                    Ok(Some(Value::str(c.encode_utf8(&mut [0; 4]))))
                }
                None => Ok(None),
            }
        }
        IterState::Range { next, step, left } => {
            if *left <= 0 {
                return Ok(None);
            }
            let v = *next;
            *left -= 1;
            *next = next.wrapping_add(*step);
            Ok(Some(Value::Int(v)))
        }
        IterState::Dict { d, i, kind, len } => {
            let t = d.table.borrow();
            if t.len != *len {
                drop(t);
                *len = usize::MAX;
                drop(st);
                return Err(vm.new_exc("RuntimeError", "dictionary changed size during iteration"));
            }
            let Some(e) = dict_advance(vm, &t, i)? else {
                return Ok(None);
            };
            Ok(Some(match kind {
                0 => e.key.clone(),
                1 => e.value.clone(),
                _ => Value::tuple(vec![e.key.clone(), e.value.clone()]),
            }))
        }
        IterState::Set { s, i, len } => {
            let t = s.table.borrow();
            if t.len != *len {
                drop(t);
                drop(st);
                return Err(vm.new_exc("RuntimeError", "Set changed size during iteration"));
            }
            *i = (*i).max(t.first_live());
            let mut skipped = 0;
            while *i < t.live_end() {
                let j = *i;
                *i += 1;
                if let Some(e) = &t.entries[j] {
                    vm.charge(cost::per_elem(skipped))?;
                    return Ok(Some(e.key.clone()));
                }
                skipped += 1;
            }
            vm.charge(cost::per_elem(skipped))?;
            Ok(None)
        }
        IterState::Reversed { seq, i } => {
            if *i == 0 {
                return Ok(None);
            }
            *i -= 1;
            // Lists and tuples are read in place, as CPython's list_reverseiterator does (a
            // list that shrank below the position ends the iteration); other sequences go
            // through `__getitem__`.
            match seq {
                Value::List(l) => {
                    let item = l.items.borrow().get(*i).cloned();
                    if item.is_none() {
                        *i = 0; // exhausted for good
                    }
                    return Ok(item);
                }
                Value::Tuple(t) => return Ok(t.items.get(*i).cloned()),
                _ => {}
            }
            let k = Value::Int(*i as i64);
            let s = seq.clone();
            drop(st);
            vm.getitem(&s, &k).map(Some)
        }
        IterState::Enumerate { it: inner_it, n } => {
            let (inner, cur) = (inner_it.clone(), n.clone());
            drop(st);
            match vm.next(&inner)? {
                Some(v) => {
                    let nn =
                        vm.binary_op(&cur, &Value::Int(1), crate::bytecode::BinOp::Add, false)?;
                    if let IterState::Enumerate { n, .. } = &mut *it_state(it) {
                        *n = nn;
                    }
                    Ok(Some(Value::tuple(vec![cur, v])))
                }
                None => Ok(None),
            }
        }
        IterState::Zip { its, strict } => {
            let its = its.clone();
            let strict = *strict;
            drop(st);
            let mut out = Vec::with_capacity(its.len());
            for (k, x) in its.iter().enumerate() {
                match vm.next(x)? {
                    Some(v) => out.push(v),
                    None => {
                        // CPython names the earlier arguments as "argument 1" or "arguments 1-N".
                        let before = |n: usize| {
                            if n == 1 {
                                "argument 1".to_string()
                            } else {
                                format!("arguments 1-{n}")
                            }
                        };
                        if strict && k > 0 {
                            return Err(vm.value_err(format!(
                                "zip() argument {} is shorter than {}",
                                k + 1,
                                before(k)
                            )));
                        }
                        if strict && k == 0 {
                            for (m, y) in its.iter().enumerate().skip(1) {
                                if vm.next(y)?.is_some() {
                                    return Err(vm.value_err(format!(
                                        "zip() argument {} is longer than {}",
                                        m + 1,
                                        before(m)
                                    )));
                                }
                            }
                        }
                        return Ok(None);
                    }
                }
            }
            if its.is_empty() {
                return Ok(None);
            }
            Ok(Some(Value::tuple(out)))
        }
        IterState::Map { f, its } => {
            let (f, its) = (f.clone(), its.clone());
            drop(st);
            let mut args = Vec::with_capacity(its.len());
            for x in its.iter() {
                match vm.next(x)? {
                    Some(v) => args.push(v),
                    None => return Ok(None),
                }
            }
            vm.charge(cost::CALL)?;
            if args.len() == 1 {
                return vm.call1(&f, args.swap_remove(0)).map(Some);
            }
            vm.call(&f, Args::new(args)).map(Some)
        }
        IterState::Filter { f, it } => {
            let (f, inner) = (f.clone(), it.clone());
            drop(st);
            while let Some(v) = vm.next(&inner)? {
                let keep = if f.is_none() {
                    vm.truthy(&v)?
                } else {
                    vm.charge(cost::CALL)?;
                    let r = vm.call1(&f, v.clone())?;
                    vm.truthy(&r)?
                };
                if keep {
                    return Ok(Some(v));
                }
            }
            Ok(None)
        }
        IterState::Callable { f, sentinel } => {
            let (f, s) = (f.clone(), sentinel.clone());
            drop(st);
            vm.charge(cost::CALL)?;
            let v = vm.call(&f, Args::default())?;
            if vm.eq(&v, &s)? {
                *it.state.borrow_mut() = IterState::Empty;
                return Ok(None);
            }
            Ok(Some(v))
        }
        IterState::AsyncGenStep { .. } | IterState::AnextDefault { .. } => {
            drop(st);
            Ok(super::asyncgen::step_send(vm, it, Value::None)?.ok())
        }
        IterState::Empty => Ok(None),
    }
}

/// Move a dict iterator's position `i` past its next live entry and give that entry, or
/// `None` at the end; the tombstones walked on the way are charged per entry. The caller has
/// checked that the dict kept its size.
fn dict_advance<'t>(vm: &mut Vm, t: &'t Table, i: &mut usize) -> R<Option<&'t Entry>> {
    *i = (*i).max(t.first_live());
    let mut skipped = 0;
    while *i < t.live_end() {
        let j = *i;
        *i += 1;
        if let Some(e) = &t.entries[j] {
            vm.charge(cost::per_elem(skipped))?;
            return Ok(Some(e));
        }
        skipped += 1;
    }
    vm.charge(cost::per_elem(skipped))?;
    Ok(None)
}

/// What [`next_pair`] found.
pub enum PairStep {
    /// The two items of the pair `next` would have built, with every state change and
    /// charge of that step made.
    Pair(Value, Value),
    /// The iterator ended, with every state change and charge of the step that found it.
    End,
    /// Nothing was done: the step is the general path's ([`next`]).
    Other,
}

/// One step of `for a, b in it` without the pair: the interpreter unpacks a 2-tuple as soon as
/// the iterator makes it (`Vm::op_for_iter`), so for the iterators whose step runs no Python
/// code (a zip of two list, tuple, bytes, str or range iterators, an enumerate of one, a
/// dict's items) it takes the items directly and accounts the tuple as if made (a list or
/// tuple iterator's pairs are taken where they lie by the loop itself, `Vm::for_iter`, with
/// [`pair_items`]). Every other
/// case, and every step that would end or raise, is left to [`next`] untouched
/// ([`PairStep::Other`]), so the answers, errors and charges are the general path's.
pub fn next_pair(vm: &mut Vm, it: &Rc<PyIter>) -> R<PairStep> {
    let mut st = it.state.borrow_mut();
    match &mut *st {
        IterState::Zip { its, .. } => {
            let [Value::Iter(a), Value::Iter(b)] = &its[..] else {
                return Ok(PairStep::Other);
            };
            // The same iterator twice takes two items of one sequence per step.
            if Rc::ptr_eq(a, b) || !has_plain_item(a) || !has_plain_item(b) {
                return Ok(PairStep::Other);
            }
            let (a, b) = (a.clone(), b.clone());
            drop(st);
            match (next(vm, &a)?, next(vm, &b)?) {
                (Some(x), Some(y)) => Ok(PairStep::Pair(x, y)),
                // `has_plain_item` said both have one, and stepping them runs no code.
                _ => unreachable!("a plain sequence step that had an item ended"),
            }
        }
        IterState::Enumerate {
            it: Value::Iter(inner),
            n,
        } => {
            // `n + 1` stays an int, with no charge (`Vm::binary_op` on two small ints).
            let k = match n {
                Value::Int(k) if *k < i64::MAX => *k,
                _ => return Ok(PairStep::Other),
            };
            if Rc::ptr_eq(inner, it) || !has_plain_item(inner) {
                return Ok(PairStep::Other);
            }
            let inner = inner.clone();
            *n = Value::Int(k + 1);
            drop(st);
            match next(vm, &inner)? {
                Some(v) => Ok(PairStep::Pair(Value::Int(k), v)),
                None => unreachable!("a plain sequence step that had an item ended"),
            }
        }
        IterState::Dict { d, i, kind: 2, len } => {
            let t = d.table.borrow();
            if t.len != *len {
                return Ok(PairStep::Other);
            }
            Ok(match dict_advance(vm, &t, i)? {
                Some(e) => PairStep::Pair(e.key.clone(), e.value.clone()),
                None => PairStep::End,
            })
        }
        _ => Ok(PairStep::Other),
    }
}

/// The two items of an exact tuple or list of length 2, which `UNPACK_SEQUENCE 2` takes
/// without any other work (`Vm::op_unpack_sequence`).
pub fn pair_items(v: &Value) -> Option<(Value, Value)> {
    match v {
        Value::Tuple(t) => match &t.items[..] {
            [a, b] => Some((a.clone(), b.clone())),
            _ => None,
        },
        Value::List(l) => match &l.items.borrow()[..] {
            [a, b] => Some((a.clone(), b.clone())),
            _ => None,
        },
        _ => None,
    }
}

/// A list, tuple, bytes, str or range iterator with an item left: its step ([`next`]) gives
/// that item, charges nothing and runs no code.
fn has_plain_item(it: &PyIter) -> bool {
    match &*it.state.borrow() {
        IterState::Seq {
            seq: Value::List(l),
            i,
        } => *i < l.items.borrow().len(),
        IterState::Seq {
            seq: Value::Tuple(t),
            i,
        } => *i < t.items.len(),
        IterState::Seq {
            seq: Value::Bytes(b),
            i,
        } => *i < b.b.len(),
        IterState::Seq {
            seq: Value::ByteArray(b),
            i,
        } => *i < b.b.borrow().len(),
        IterState::Str { s, byte } => *byte < s.s.len(),
        IterState::Range { left, .. } => *left > 0,
        _ => false,
    }
}

fn it_state(it: &Rc<PyIter>) -> std::cell::RefMut<'_, IterState> {
    it.state.borrow_mut()
}

/// Do CPython's counterparts of this iterator have `__length_hint__` (sequence, str, range,
/// dict, set and reversed iterators do; enumerate, zip, map, filter and callable ones do not).
pub fn has_length_hint(it: &PyIter) -> bool {
    !matches!(
        &*it.state.borrow(),
        IterState::Enumerate { .. }
            | IterState::Zip { .. }
            | IterState::Map { .. }
            | IterState::Filter { .. }
            | IterState::Callable { .. }
            | IterState::AsyncGenStep { .. }
            | IterState::AnextDefault { .. }
    )
}

/// `it.__length_hint__()`: how many items are left.
pub fn length_hint(vm: &mut Vm, it: &PyIter) -> R<Value> {
    if !has_length_hint(it) {
        return Err(vm.new_exc(
            "AttributeError",
            "'iterator' object has no attribute '__length_hint__'",
        ));
    }
    let st = it.state.borrow();
    let n = match &*st {
        IterState::Seq { seq, i } => {
            let n = match seq {
                Value::List(l) => l.items.borrow().len(),
                Value::Tuple(t) => t.items.len(),
                Value::Bytes(b) => b.b.len(),
                Value::ByteArray(b) => b.b.borrow().len(),
                // Old-style `__getitem__` sequences: CPython asks their `__len__`.
                other => {
                    let other = other.clone();
                    let i = *i;
                    drop(st);
                    return match vm.call_dunder(&other, "__len__", vec![])? {
                        Some(v) => Ok(Value::Int((vm.index_of(&v)? - i as i64).max(0))),
                        None => Ok(Value::NotImplemented),
                    };
                }
            };
            n.saturating_sub(*i)
        }
        IterState::Str { s, byte } => {
            let rest = &s.s[*byte..];
            vm.charge(cost::per_char(rest.len()))?;
            rest.chars().count()
        }
        IterState::Range { left, .. } => (*left).max(0) as usize,
        IterState::Dict { d, i, len, .. } => {
            let t = d.table.borrow();
            if t.len != *len {
                0
            } else {
                let rest = t.entries.get(*i..).unwrap_or(&[]);
                vm.charge(cost::per_elem(rest.len()))?;
                rest.iter().filter(|e| e.is_some()).count()
            }
        }
        IterState::Set { s, i, len } => {
            let t = s.table.borrow();
            if t.len != *len {
                0
            } else {
                let rest = t.entries.get(*i..).unwrap_or(&[]);
                vm.charge(cost::per_elem(rest.len()))?;
                rest.iter().filter(|e| e.is_some()).count()
            }
        }
        IterState::Reversed { i, .. } => *i,
        _ => 0,
    };
    Ok(Value::Int(n as i64))
}

/// The exception `throw(typ[, val[, tb]])` (of generators, coroutines and async generator
/// steps) throws: the legacy form with a value uses an exception instance as is and makes
/// any other value the argument of `typ`.
pub fn throw_arg(vm: &mut Vm, args: &Args) -> R<Value> {
    let mut e = args.pos.first().cloned().unwrap_or_default();
    let base = vm.types.exc["BaseException"].clone();
    let ok = match &e {
        Value::Class(c) => c.is_subclass(&base),
        Value::Instance(i) => i.exc.borrow().is_some(),
        _ => false,
    };
    if !ok {
        let tn = vm.type_name(&e);
        return Err(vm.type_err(format!(
            "exceptions must be classes or instances deriving from BaseException, not {tn}"
        )));
    }
    if let Some(v) = args.pos.get(1).filter(|v| !v.is_none()) {
        let is_exc = matches!(v, Value::Instance(i) if i.exc.borrow().is_some());
        e = if is_exc {
            v.clone()
        } else {
            vm.call(&e, Args::new(vec![v.clone()]))?
        };
    }
    Ok(e)
}

/// The data attributes of generators, coroutines and async generators: `__name__`,
/// `__qualname__`, `gi_running`/`cr_running`/`ag_running`, the object a suspended frame is
/// delegating to (`gi_yieldfrom`/`cr_await`/`ag_await`) and `gi_suspended`/`cr_suspended`.
/// Frames and code objects are not reachable (`gi_frame`, `gi_code` … do not exist).
pub fn gen_attr(g: &Generator, name: &str) -> Option<Value> {
    let (running, delegate, suspended) = if g.coroutine {
        ("cr_running", "cr_await", "cr_suspended")
    } else if g.async_gen {
        ("ag_running", "ag_await", "")
    } else {
        ("gi_running", "gi_yieldfrom", "gi_suspended")
    };
    Some(match name {
        "__qualname__" => Value::str(&g.name),
        "__name__" => Value::str(g.name.rsplit('.').next().unwrap_or(&g.name)),
        n if n == running => Value::Bool(if g.async_gen {
            g.running_async.get()
        } else {
            g.running.get()
        }),
        n if n == delegate => {
            let f = g.frame.borrow();
            let at = f.as_ref().filter(|f| {
                f.started && matches!(f.code.ops.get(f.pc), Some(crate::bytecode::Op::YieldFrom))
            });
            at.and_then(|f| f.stack.last().cloned()).unwrap_or_default()
        }
        n if n == suspended && !n.is_empty() => {
            let f = g.frame.borrow();
            Value::Bool(f.as_ref().is_some_and(|f| f.started) && !g.running.get())
        }
        "cr_origin" if g.coroutine => Value::None,
        _ => return None,
    })
}

methods! {
    /// The methods of generators and coroutines (`async def` generators have their own:
    /// `asyncgen`). `generator.send` is `METH_O` and `close` `METH_NOARGS`, as in CPython;
    /// `__next__` is a slot wrapper, with its own message, and `throw` parses its own.
    GENERATOR, GENERATOR_METHODS: Rc<Generator>;
    listed {
        "send" => Some(One), send;
        "throw" => None, throw;
        "close" => Some(NoArgs), close;
        "__next__" => None, next_method;
    }
    unlisted {}
}

/// CPython's name of `g`'s type, for messages.
pub fn gen_type_name(g: &Generator) -> &'static str {
    if g.coroutine {
        "coroutine"
    } else {
        "generator"
    }
}

/// `g.send(v)`: what the generator yields next, or the StopIteration carrying what it
/// returned.
pub fn gen_send(vm: &mut Vm, g: &Rc<Generator>, v: Value) -> R<Value> {
    match vm.gen_send(g, v)? {
        Ok(y) => Ok(y),
        Err(r) => Err(stop_iteration(vm, r)),
    }
}

/// The `StopIteration` a generator's `return r` raises to a `send`/`throw` caller.
fn stop_iteration(vm: &mut Vm, r: Value) -> Exc {
    let cls = vm.types.exc["StopIteration"].clone();
    let a = if r.is_none() { vec![] } else { vec![r] };
    Exc::Py(vm.make_exc(&cls, a))
}

fn send(vm: &mut Vm, g: &Rc<Generator>, mut args: Args) -> R<Value> {
    // Exactly one (`METH_O`, checked by the table).
    let v = args.pos.pop().unwrap_or_default();
    gen_send(vm, g, v)
}

fn next_method(vm: &mut Vm, g: &Rc<Generator>, args: Args) -> R<Value> {
    let n = args.pos.len();
    if n != 0 || !args.kw.is_empty() {
        return Err(vm.type_err(format!("expected 0 arguments, got {n}")));
    }
    gen_send(vm, g, Value::None)
}

fn throw(vm: &mut Vm, g: &Rc<Generator>, args: Args) -> R<Value> {
    match args.pos.len() {
        0 => return Err(vm.type_err("throw expected at least 1 argument, got 0")),
        n @ 4.. => return Err(vm.type_err(format!("throw expected at most 3 arguments, got {n}"))),
        _ => {}
    }
    let e = throw_arg(vm, &args)?;
    let exc = vm.raise_value(e, None);
    match vm.gen_resume(g, None, Some(exc))? {
        Ok(y) => Ok(y),
        Err(r) => Err(stop_iteration(vm, r)),
    }
}

/// `g.close()`: `GeneratorExit` thrown in at the suspended `yield`, if it started.
pub fn close(vm: &mut Vm, g: &Rc<Generator>, _args: Args) -> R<Value> {
    let started = g
        .frame
        .borrow()
        .as_ref()
        .map(|f| f.started)
        .unwrap_or(false);
    if !started {
        *g.frame.borrow_mut() = None;
        return Ok(Value::None);
    }
    let cls = vm.types.exc["GeneratorExit"].clone();
    let e = vm.make_exc(&cls, vec![]);
    match vm.gen_resume(g, None, Some(Exc::Py(e))) {
        Ok(Ok(_)) => {
            let kind = gen_type_name(g);
            Err(vm.new_exc("RuntimeError", &format!("{kind} ignored GeneratorExit")))
        }
        Ok(Err(_)) => Ok(Value::None),
        Err(e) if vm.exc_is(&e, "GeneratorExit") || vm.exc_is(&e, "StopIteration") => {
            Ok(Value::None)
        }
        Err(e) => Err(e),
    }
}
