//! `set` and `frozenset` methods (insertion-ordered sets, whitepaper "determinism").

use crate::bytecode::BinOp;
use crate::cost;
use crate::value::*;
use crate::vm::{Args, Vm, R};
use std::rc::Rc;

/// `frozenset` method names: the non-mutating ones.
pub const FROZEN_METHODS: &[&str] = &[
    "copy",
    "difference",
    "intersection",
    "isdisjoint",
    "issubset",
    "issuperset",
    "symmetric_difference",
    "union",
];

/// Method names.
pub const METHODS: &[&str] = &[
    "add",
    "discard",
    "remove",
    "pop",
    "clear",
    "copy",
    "union",
    "intersection",
    "difference",
    "symmetric_difference",
    "issubset",
    "issuperset",
    "isdisjoint",
    "update",
    "intersection_update",
    "difference_update",
    "symmetric_difference_update",
];

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
        Value::Set(x) if !x.frozen => {
            vm.charge(cost::per_elem(x.table.borrow().len))?;
            Ok(Value::Set(crate::value::rc_set(PySet::from_table(
                x.table.borrow().clone(),
                true,
            ))))
        }
        _ => Ok(k.clone()),
    }
}

/// a ⊆ b.
pub fn is_subset(vm: &mut Vm, a: &PySet, b: &PySet) -> R<bool> {
    let items: Vec<Value> = a.table.borrow().iter().map(|e| e.key.clone()).collect();
    for x in items {
        if !contains(vm, b, &x)? {
            return Ok(false);
        }
    }
    Ok(true)
}

/// |, &, -, ^ producing a new set of a's kind.
pub fn set_op(vm: &mut Vm, a: &PySet, b: &PySet, op: BinOp) -> R<Value> {
    let xa: Vec<Value> = a.table.borrow().iter().map(|e| e.key.clone()).collect();
    let xb: Vec<Value> = b.table.borrow().iter().map(|e| e.key.clone()).collect();
    vm.charge(cost::per_elem(xa.len() + xb.len()))?;
    let mut out = Vec::new();
    match op {
        BinOp::Or => {
            out.extend(xa);
            out.extend(xb);
        }
        BinOp::And => {
            for x in xa {
                if contains(vm, b, &x)? {
                    out.push(x);
                }
            }
        }
        BinOp::Sub => {
            for x in xa {
                if !contains(vm, b, &x)? {
                    out.push(x);
                }
            }
        }
        _ => {
            for x in xa {
                if !contains(vm, b, &x)? {
                    out.push(x);
                }
            }
            for x in xb {
                if !contains(vm, a, &x)? {
                    out.push(x);
                }
            }
        }
    }
    vm.new_set(out, a.frozen)
}

fn as_set(vm: &mut Vm, v: &Value) -> R<Rc<PySet>> {
    match v {
        Value::Set(s) => Ok(s.clone()),
        other => vm.set_from_iter(other, false),
    }
}

/// Call a set method.
pub fn call(vm: &mut Vm, s: &Rc<PySet>, name: &str, args: Args) -> R<Value> {
    let a0 = args.pos.first().cloned().unwrap_or(Value::None);
    let mutating = matches!(
        name,
        "add"
            | "discard"
            | "remove"
            | "pop"
            | "clear"
            | "update"
            | "intersection_update"
            | "difference_update"
            | "symmetric_difference_update"
    );
    if mutating && s.frozen {
        return Err(vm.attr_error(&Value::Set(s.clone()), name));
    }
    match name {
        "__init__" => {
            s.table.borrow_mut().clear();
            if let Some(v) = args.pos.first() {
                let items = vm.collect(v)?;
                for x in items {
                    vm.set_add(s, x)?;
                }
            }
            Ok(Value::None)
        }
        "add" => {
            vm.set_add(s, a0)?;
            Ok(Value::None)
        }
        "discard" | "remove" => {
            let a0 = as_key(vm, &a0)?;
            let h = vm.hash(&a0)?;
            match vm.table_find(&s.table, &a0, h)? {
                Some(i) => {
                    s.table.borrow_mut().remove_at(i);
                    Ok(Value::None)
                }
                None if name == "discard" => Ok(Value::None),
                None => {
                    let cls = vm.types.exc["KeyError"].clone();
                    Err(crate::vm::Exc::Py(vm.make_exc(&cls, vec![a0])))
                }
            }
        }
        "pop" => {
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
                    .unwrap_or(Value::None)),
                None => Err(vm.new_exc("KeyError", "pop from an empty set")),
            }
        }
        "clear" => {
            s.table.borrow_mut().clear();
            s.touch();
            Ok(Value::None)
        }
        // A frozenset is immutable, so its copy is itself.
        "copy" if s.frozen => Ok(Value::Set(s.clone())),
        "copy" => Ok(Value::Set(crate::value::rc_set(PySet::from_table(
            s.table.borrow().clone(),
            s.frozen,
        )))),
        "union" | "intersection" | "difference" | "symmetric_difference" => {
            let op = match name {
                "union" => BinOp::Or,
                "intersection" => BinOp::And,
                "difference" => BinOp::Sub,
                _ => BinOp::Xor,
            };
            let mut cur = Value::Set(crate::value::rc_set(PySet::from_table(
                s.table.borrow().clone(),
                s.frozen,
            )));
            for o in &args.pos {
                let os = as_set(vm, o)?;
                if let Value::Set(c) = &cur {
                    cur = set_op(vm, c, &os, op)?;
                }
            }
            Ok(cur)
        }
        "update" | "intersection_update" | "difference_update" | "symmetric_difference_update" => {
            let op = match name {
                "update" => BinOp::Or,
                "intersection_update" => BinOp::And,
                "difference_update" => BinOp::Sub,
                _ => BinOp::Xor,
            };
            for o in &args.pos {
                let os = as_set(vm, o)?;
                if let Value::Set(r) = set_op(vm, s, &os, op)? {
                    let t = r.table.borrow().clone();
                    *s.table.borrow_mut() = t;
                }
            }
            s.touch();
            Ok(Value::None)
        }
        "issubset" => {
            let o = as_set(vm, &a0)?;
            Ok(Value::Bool(is_subset(vm, s, &o)?))
        }
        "issuperset" => {
            let o = as_set(vm, &a0)?;
            Ok(Value::Bool(is_subset(vm, &o, s)?))
        }
        "isdisjoint" => {
            let o = as_set(vm, &a0)?;
            let r = set_op(vm, s, &o, BinOp::And)?;
            Ok(Value::Bool(
                matches!(r, Value::Set(x) if x.table.borrow().len == 0),
            ))
        }
        _ => Err(vm.attr_error(&Value::Set(s.clone()), name)),
    }
}
