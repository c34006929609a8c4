//! `set` and `frozenset` methods (insertion-ordered sets, whitepaper "determinism").

use super::arity::Arity::*;
use crate::bytecode::BinOp;
use crate::cost;
use crate::value::*;
use crate::vm::{Args, Vm, R};
use std::rc::Rc;

methods! {
    /// `set`'s methods.
    SET, METHODS: Rc<PySet>;
    listed {
        "add" => Some(One), add;
        "discard" => Some(One), |vm, s, a| discard(vm, s, a, false);
        "remove" => Some(One), |vm, s, a| discard(vm, s, a, true);
        "pop" => Some(NoArgs), pop;
        "clear" => Some(NoArgs), clear;
        "copy" => Some(NoArgs), copy;
        "union" => Some(VarNoKw), |vm, s, a| combine(vm, s, a, BinOp::Or);
        "intersection" => Some(VarNoKw), |vm, s, a| combine(vm, s, a, BinOp::And);
        "difference" => Some(VarNoKw), |vm, s, a| combine(vm, s, a, BinOp::Sub);
        "symmetric_difference" => Some(One), |vm, s, a| combine(vm, s, a, BinOp::Xor);
        "issubset" => Some(One), issubset;
        "issuperset" => Some(One), issuperset;
        "isdisjoint" => Some(One), isdisjoint;
        "update" => Some(VarNoKw), |vm, s, a| update(vm, s, a, BinOp::Or);
        "intersection_update" => Some(VarNoKw), |vm, s, a| update(vm, s, a, BinOp::And);
        "difference_update" => Some(VarNoKw), |vm, s, a| update(vm, s, a, BinOp::Sub);
        "symmetric_difference_update" => Some(One), |vm, s, a| update(vm, s, a, BinOp::Xor);
    }
    // `set.__init__(s, iterable=())`, reached by name (a subclass's `super().__init__`).
    unlisted {
        "__init__" => None, init;
    }
}

methods! {
    /// `frozenset`'s methods: the non-mutating ones (a mutating name is an AttributeError).
    FROZENSET, FROZEN_METHODS: Rc<PySet>;
    listed {
        "copy" => Some(NoArgs), copy;
        "difference" => Some(VarNoKw), |vm, s, a| combine(vm, s, a, BinOp::Sub);
        "intersection" => Some(VarNoKw), |vm, s, a| combine(vm, s, a, BinOp::And);
        "isdisjoint" => Some(One), isdisjoint;
        "issubset" => Some(One), issubset;
        "issuperset" => Some(One), issuperset;
        "symmetric_difference" => Some(One), |vm, s, a| combine(vm, s, a, BinOp::Xor);
        "union" => Some(VarNoKw), |vm, s, a| combine(vm, s, a, BinOp::Or);
    }
    // As `set`'s (`set.__init__(fs)` refills even a frozenset, as before the table: it is not
    // CPython's TypeError; kept so that nothing changes here).
    unlisted {
        "__init__" => None, init;
    }
}

/// Membership.
pub fn contains(vm: &mut Vm, s: &PySet, k: &Value) -> R<bool> {
    let k = &as_key(vm, k)?;
    let h = vm.hash(k)?;
    vm.charge(cost::DICT_OP)?;
    Ok(vm.table_find(&s.table, k, h)?.is_some())
}

/// A (mutable, unhashable) set used as the key of `in`, `remove` or `discard` stands for
/// the frozenset of its items, as in CPython.
fn as_key(vm: &mut Vm, k: &Value) -> R<Value> {
    match k {
        Value::Set(x) if !x.frozen => copy_of(vm, x, true),
        _ => Ok(k.clone()),
    }
}

/// The live keys of `s` with their stored hashes, paid per entry before they are copied.
fn entries(vm: &mut Vm, s: &PySet) -> R<Vec<(u64, Value)>> {
    vm.charge(cost::per_elem(s.table.borrow().len))?;
    Ok(s.table
        .borrow()
        .iter()
        .map(|e| (e.hash, e.key.clone()))
        .collect())
}

/// Whether `k` (whose hash `h` is already known: it is an entry of another set) is in `s`.
fn contains_hashed(vm: &mut Vm, s: &PySet, k: &Value, h: u64) -> R<bool> {
    vm.charge(cost::DICT_OP)?;
    Ok(vm.table_find(&s.table, k, h)?.is_some())
}

/// a ⊆ b, as CPython: false at once when a is larger, else a's members are looked up in b one
/// at a time, up to the first missing one. Members are read one by one, not copied up front:
/// a copy of a 100,000-member set for a test that stops at its first member was the cost of
/// one lookup (2,600x the plain loop per cycle).
pub fn is_subset(vm: &mut Vm, a: &PySet, b: &PySet) -> R<bool> {
    if a.table.borrow().len > b.table.borrow().len {
        return Ok(false);
    }
    let mut i = 0;
    loop {
        // The next live entry from position i; tombstones between live entries are paid per
        // entry walked, as iterators pay them.
        let (next, skipped) = {
            let t = a.table.borrow();
            i = i.max(t.first_live());
            let mut skipped = 0;
            let mut next = None;
            while i < t.live_end() {
                let j = i;
                i += 1;
                if let Some(e) = &t.entries[j] {
                    next = Some((e.hash, e.key.clone()));
                    break;
                }
                skipped += 1;
            }
            (next, skipped)
        };
        vm.charge(cost::per_elem(skipped))?;
        let Some((h, k)) = next else {
            return Ok(true);
        };
        if !contains_hashed(vm, b, &k, h)? {
            return Ok(false);
        }
    }
}

/// |, &, -, ^ producing a new set of a's kind. Both operands are paid per member before
/// they are read; members keep their stored hashes (no hash is computed again).
pub fn set_op(vm: &mut Vm, a: &PySet, b: &PySet, op: BinOp) -> R<Value> {
    let xa = entries(vm, a)?;
    let xb = entries(vm, b)?;
    let out = crate::value::rc_set(PySet::from_table(Table::default(), a.frozen));
    let add = |vm: &mut Vm, (h, k): (u64, Value)| -> R<()> {
        if !contains_hashed(vm, &out, &k, h)? {
            out.table.borrow_mut().push(h, k, Value::None);
            out.touch();
        }
        Ok(())
    };
    match op {
        BinOp::Or => {
            for x in xa.into_iter().chain(xb) {
                add(vm, x)?;
            }
        }
        BinOp::And | BinOp::Sub => {
            let keep = op == BinOp::And;
            for (h, k) in xa {
                if contains_hashed(vm, b, &k, h)? == keep {
                    add(vm, (h, k))?;
                }
            }
        }
        _ => {
            for (h, k) in xa {
                if !contains_hashed(vm, b, &k, h)? {
                    add(vm, (h, k))?;
                }
            }
            for (h, k) in xb {
                if !contains_hashed(vm, a, &k, h)? {
                    add(vm, (h, k))?;
                }
            }
        }
    }
    Ok(Value::Set(out))
}

/// `a |= b`, `a -= b` and the other in-place operators (and the `*_update` methods): union and
/// difference change `a` in place, paying for b's members only, as CPython does (a copy of `a`
/// made `s -= small` cost the size of `s`); intersection and symmetric difference build the
/// result and take its table.
pub fn set_op_inplace(vm: &mut Vm, a: &PySet, b: &PySet, op: BinOp) -> R<()> {
    match op {
        BinOp::Or | BinOp::Sub => {
            // Copied first: `b` may be `a` itself, and an `__eq__` may change either.
            for (h, k) in entries(vm, b)? {
                vm.charge(cost::DICT_OP)?;
                let found = vm.table_find(&a.table, &k, h)?;
                match (op, found) {
                    (BinOp::Or, None) => {
                        a.table.borrow_mut().push(h, k, Value::None);
                        a.touch();
                    }
                    (BinOp::Sub, Some(i)) => {
                        a.table.borrow_mut().remove_at(i);
                    }
                    _ => {}
                }
            }
        }
        _ => {
            if let Value::Set(r) = set_op(vm, a, b, op)? {
                let t = std::mem::take(&mut *r.table.borrow_mut());
                *a.table.borrow_mut() = t;
            }
        }
    }
    a.touch();
    Ok(())
}

/// A copy of `s` as a new set of kind `frozen`, paid per entry before it is made.
pub fn copy_of(vm: &mut Vm, s: &PySet, frozen: bool) -> R<Value> {
    vm.charge(cost::table_copy(s.table.borrow().entries.len()))?;
    Ok(Value::Set(crate::value::rc_set(PySet::from_table(
        s.table.borrow().clone(),
        frozen,
    ))))
}

fn as_set(vm: &mut Vm, v: &Value) -> R<Rc<PySet>> {
    match v {
        Value::Set(s) => Ok(s.clone()),
        other => vm.set_from_iter(other, false),
    }
}

/// The first argument (`None` if there is none: the arity check has made sure there is).
fn first(args: &Args) -> Value {
    args.pos.first().cloned().unwrap_or_default()
}

/// `set.__init__(s, iterable=())`.
fn init(vm: &mut Vm, s: &Rc<PySet>, args: Args) -> R<Value> {
    s.table.borrow_mut().clear();
    if let Some(v) = args.pos.first() {
        let items = vm.collect(v)?;
        for x in items {
            vm.set_add(s, x)?;
        }
    }
    Ok(Value::None)
}

/// `set.add(x)`.
fn add(vm: &mut Vm, s: &Rc<PySet>, args: Args) -> R<Value> {
    vm.set_add(s, first(&args))?;
    Ok(Value::None)
}

/// `set.discard(x)`, or `set.remove(x)` (KeyError when absent) when `remove`.
fn discard(vm: &mut Vm, s: &Rc<PySet>, args: Args, remove: bool) -> R<Value> {
    let a0 = as_key(vm, &first(&args))?;
    let h = vm.hash(&a0)?;
    match vm.table_find(&s.table, &a0, h)? {
        Some(i) => {
            s.table.borrow_mut().remove_at(i);
            Ok(Value::None)
        }
        None if !remove => Ok(Value::None),
        None => {
            let cls = vm.types.exc["KeyError"].clone();
            Err(crate::vm::Exc::Py(vm.make_exc(&cls, vec![a0])))
        }
    }
}

/// `set.pop()`: the first item.
fn pop(vm: &mut Vm, s: &Rc<PySet>, _: Args) -> R<Value> {
    let first = {
        let t = s.table.borrow();
        let from = t.first_live();
        t.entries[from..]
            .iter()
            .position(|e| e.is_some())
            .map(|i| i + from)
    };
    match first {
        Some(i) => Ok(s
            .table
            .borrow_mut()
            .remove_at(i)
            .map(|e| e.key)
            .unwrap_or_default()),
        None => Err(vm.new_exc("KeyError", "pop from an empty set")),
    }
}

/// `set.clear()`.
fn clear(_: &mut Vm, s: &Rc<PySet>, _: Args) -> R<Value> {
    s.table.borrow_mut().clear();
    s.touch();
    Ok(Value::None)
}

/// `set.copy()`; a frozenset is immutable, so its copy is itself.
fn copy(vm: &mut Vm, s: &Rc<PySet>, _: Args) -> R<Value> {
    if s.frozen {
        return Ok(Value::Set(s.clone()));
    }
    copy_of(vm, s, s.frozen)
}

/// `union`, `intersection`, `difference`, `symmetric_difference` (`op`): a new set of the
/// receiver's kind.
fn combine(vm: &mut Vm, s: &Rc<PySet>, args: Args, op: BinOp) -> R<Value> {
    let mut cur = copy_of(vm, s, s.frozen)?;
    for o in &args.pos {
        let os = as_set(vm, o)?;
        if let Value::Set(c) = &cur {
            cur = set_op(vm, c, &os, op)?;
        }
    }
    Ok(cur)
}

/// `update`, `intersection_update`, `difference_update`, `symmetric_difference_update` (`op`).
fn update(vm: &mut Vm, s: &Rc<PySet>, args: Args, op: BinOp) -> R<Value> {
    for o in &args.pos {
        let os = as_set(vm, o)?;
        set_op_inplace(vm, s, &os, op)?;
    }
    Ok(Value::None)
}

/// `set.issubset(other)`.
fn issubset(vm: &mut Vm, s: &Rc<PySet>, args: Args) -> R<Value> {
    let o = as_set(vm, &first(&args))?;
    Ok(Value::Bool(is_subset(vm, s, &o)?))
}

/// `set.issuperset(other)`.
fn issuperset(vm: &mut Vm, s: &Rc<PySet>, args: Args) -> R<Value> {
    let o = as_set(vm, &first(&args))?;
    Ok(Value::Bool(is_subset(vm, &o, s)?))
}

/// `set.isdisjoint(other)`.
fn isdisjoint(vm: &mut Vm, s: &Rc<PySet>, args: Args) -> R<Value> {
    let o = as_set(vm, &first(&args))?;
    let r = set_op(vm, s, &o, BinOp::And)?;
    Ok(Value::Bool(
        matches!(r, Value::Set(x) if x.table.borrow().len == 0),
    ))
}
