//! `_dataclasses`: the per-instance work of the methods `dataclasses` generates
//! (`src/stdlib/python/dataclasses.py`). CPython's `dataclasses` compiles a method per class
//! with `exec` (`return (self.a, self.b) == (other.a, other.b)`); the PVM has no `exec`, so its
//! methods are closures over the field names, and these two functions do their loops over
//! the names in Rust instead of a Python generator or loop (about three times the
//! instructions, and most of a dataclass program's time):
//!
//! - `attrs(obj, names)` → `tuple(getattr(obj, n) for n in names)`, what `__eq__`, the
//!   ordering methods and `__hash__` compare and hash;
//! - `assign(obj, names, values, frozen)` → `setattr(obj, n, v)` for each pair (with
//!   `object.__setattr__` when `frozen`, as a frozen class's `__init__` must bypass its own
//!   `__setattr__`), what `__init__` does with its arguments.
//!
//! Each attribute read or store is the VM's own (`Vm::getattr`, `Vm::setattr`,
//! `Vm::generic_setattr`): descriptors, `__getattr__` and user `__setattr__` behave exactly as
//! from Python. Metering: each pays for copying its arguments (`Vm::collect`, per element) and
//! `cost::CALL` per name, what the `getattr`/`setattr` call it replaces pays, before its
//! lookups, which charge as they always do.

use super::builtin;
use crate::cost;
use crate::value::*;
use crate::vm::{Args, Vm, R};

/// The items of an argument: the field names a generated method passes, or the values
/// `__init__` received (its `*args` tuple, or a list it built). `Vm::collect` pays for the copy
/// per element, after a memory check, before making it.
fn items(vm: &mut Vm, v: Option<&Value>) -> R<Vec<Value>> {
    vm.collect(v.unwrap_or(&Value::None))
}

/// `attrs(obj, names)`: the tuple of `obj`'s attributes `names`, in order.
fn f_attrs(vm: &mut Vm, a: Args) -> R<Value> {
    let obj = a.pos.first().cloned().unwrap_or_default();
    let names = items(vm, a.pos.get(1))?;
    vm.charge(cost::CALL.saturating_mul(names.len() as u64))?;
    let mut out = Vec::with_capacity(names.len());
    for n in &names {
        let Value::Str(n) = n else {
            return Err(vm.type_err("attribute name must be string"));
        };
        out.push(vm.getattr_str(&obj, n)?);
    }
    Ok(Value::tuple(out))
}

/// `assign(obj, names, values, frozen)`: store each value under its name.
fn f_assign(vm: &mut Vm, a: Args) -> R<Value> {
    let obj = a.pos.first().cloned().unwrap_or_default();
    let names = items(vm, a.pos.get(1))?;
    let values = items(vm, a.pos.get(2))?;
    if names.len() != values.len() {
        return Err(vm.value_err("_dataclasses.assign: as many values as names"));
    }
    let frozen = matches!(a.pos.get(3), Some(Value::Bool(true)));
    vm.charge(cost::CALL.saturating_mul(names.len() as u64))?;
    for (n, v) in names.iter().zip(values) {
        let Value::Str(key) = n else {
            return Err(vm.type_err("attribute name must be string"));
        };
        // Keyed by the field's name object itself, which `attrs` (eq, order, repr, hash) and
        // the class's own code then find by identity, not by comparing text.
        match &obj {
            // `object.__setattr__(obj, n, v)`: past the class's own `__setattr__`.
            Value::Instance(i) if frozen => {
                let cls = i.cls();
                vm.generic_setattr_in(i, &cls, &obj, &key.s, Some(key), v)?;
            }
            _ => vm.setattr_in(&obj, &key.s, Some(key), v)?,
        }
    }
    Ok(Value::None)
}

/// The module object.
pub fn load(vm: &mut Vm, name: &str) -> R<Value> {
    let d = rc_dict(PyDict::new());
    vm.dict_set_str(&d, "__name__", Value::str(name))?;
    vm.dict_set_str(&d, "attrs", builtin("attrs", f_attrs))?;
    vm.dict_set_str(&d, "assign", builtin("assign", f_assign))?;
    Ok(super::module(name, d))
}
