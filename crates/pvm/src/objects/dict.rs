//! `dict` methods (insertion-ordered).

use super::arity::Arity::*;
use crate::cost;
use crate::value::*;
use crate::vm::{Args, Exc, Vm, R};
use std::rc::Rc;

methods! {
    /// `dict`'s methods.
    DICT, METHODS: Rc<PyDict>;
    listed {
        "get" => Some(Clinic(1, 2)), get;
        "keys" => Some(NoArgs), |vm, d, _| Ok(view(d, vm.types.dict_keys.clone()));
        "values" => Some(NoArgs), |vm, d, _| Ok(view(d, vm.types.dict_values.clone()));
        "items" => Some(NoArgs), |vm, d, _| Ok(view(d, vm.types.dict_items.clone()));
        "pop" => Some(Clinic(1, 2)), pop;
        "popitem" => Some(NoArgs), popitem;
        "setdefault" => Some(Clinic(1, 2)), setdefault;
        "update" => Some(ClinicKw(0, 1)), update;
        "clear" => Some(NoArgs), clear;
        "copy" => Some(NoArgs), copy;
        // An alternate constructor: `call_method` binds it to the class before this table is
        // read (`objects::types::class_attr`); the row gives its convention.
    }
    // `dict.__init__(d, …)`, reached by name (a subclass's `super().__init__`).
    unlisted {
        "__init__" => None, init;
    }
}

/// `dict.__init__(d, mapping_or_pairs=(), **kw)`.
fn init(vm: &mut Vm, d: &Rc<PyDict>, args: Args) -> R<Value> {
    d.table.borrow_mut().clear();
    update(vm, d, args)?;
    Ok(Value::None)
}

/// `dict.get(k, default=None)`.
fn get(vm: &mut Vm, d: &Rc<PyDict>, args: Args) -> R<Value> {
    let k = args.pos.first().cloned().unwrap_or_default();
    Ok(vm
        .dict_get(d, &k)?
        .unwrap_or_else(|| args.pos.get(1).cloned().unwrap_or_default()))
}

/// `d.keys()`, `d.values()`, `d.items()`: a live view, an instance of `cls` (dict_keys,
/// dict_values or dict_items) over the dict.
fn view(d: &Rc<PyDict>, cls: Rc<Class>) -> Value {
    let inst = Instance::new(cls);
    *inst.base.borrow_mut() = Some(Value::Dict(d.clone()));
    Value::Instance(crate::value::rc_inst(inst))
}

/// `dict.pop(k[, default])`.
fn pop(vm: &mut Vm, d: &Rc<PyDict>, args: Args) -> R<Value> {
    let k = args.pos.first().cloned().unwrap_or_default();
    match vm.dict_del(d, &k)? {
        Some(v) => Ok(v),
        None => match args.pos.get(1) {
            Some(dflt) => Ok(dflt.clone()),
            None => {
                let cls = vm.types.exc["KeyError"].clone();
                Err(Exc::Py(vm.make_exc(&cls, vec![k])))
            }
        },
    }
}

/// `dict.popitem()`: the last entry.
fn popitem(vm: &mut Vm, d: &Rc<PyDict>, _: Args) -> R<Value> {
    let last = {
        let t = d.table.borrow();
        t.entries[..t.live_end()].iter().rposition(|e| e.is_some())
    };
    match last {
        Some(i) => {
            let e = d.table.borrow_mut().remove_at(i);
            d.touch();
            Ok(e.map(|e| Value::tuple(vec![e.key, e.value]))
                .unwrap_or_default())
        }
        None => Err(vm.new_exc("KeyError", "popitem(): dictionary is empty")),
    }
}

/// `dict.setdefault(k, default=None)`.
fn setdefault(vm: &mut Vm, d: &Rc<PyDict>, args: Args) -> R<Value> {
    let k = args.pos.first().cloned().unwrap_or_default();
    match vm.dict_get(d, &k)? {
        Some(v) => Ok(v),
        None => {
            let v = args.pos.get(1).cloned().unwrap_or_default();
            vm.dict_set(d, k, v.clone())?;
            Ok(v)
        }
    }
}

/// `dict.update(mapping_or_pairs=(), **kw)`; also what `dict(…)` and `d |= x` do.
pub fn update(vm: &mut Vm, d: &Rc<PyDict>, mut args: Args) -> R<Value> {
    if let Some(src) = args.pos.first().cloned() {
        let pairs = match &src {
            Value::Dict(_) | Value::Instance(_) => match vm.mapping_items(&src) {
                Ok(p) => p,
                Err(e) if e.is_abort() => return Err(e),
                Err(_) => pairs_of(vm, &src)?,
            },
            _ => pairs_of(vm, &src)?,
        };
        for (k, v) in pairs {
            vm.dict_set(d, k, v)?;
        }
    }
    for (k, v) in std::mem::take(&mut args.kw) {
        vm.dict_set(d, Value::str(&k), v)?;
    }
    Ok(Value::None)
}

/// `dict.clear()`.
fn clear(_: &mut Vm, d: &Rc<PyDict>, _: Args) -> R<Value> {
    d.table.borrow_mut().clear();
    d.touch();
    Ok(Value::None)
}

/// `dict.copy()`.
fn copy(vm: &mut Vm, d: &Rc<PyDict>, _: Args) -> R<Value> {
    vm.charge(cost::table_copy(d.table.borrow().entries.len()))?;
    let t = d.table.borrow().clone();
    Ok(Value::Dict(crate::value::rc_dict(PyDict::from_table(t))))
}

/// Pairs from an iterable of 2-sequences.
pub fn pairs_of(vm: &mut Vm, src: &Value) -> R<Vec<(Value, Value)>> {
    let items = vm.collect(src)?;
    let mut out = Vec::with_capacity(items.len());
    for (i, it) in items.iter().enumerate() {
        let kv = match vm.collect(it) {
            Ok(kv) => kv,
            // CPython replaces only a TypeError (the element is not iterable); anything else
            // raised while iterating it, aborts included, goes through.
            Err(e) if !vm.exc_is(&e, "TypeError") => return Err(e),
            Err(_) => {
                return Err(vm.type_err(format!(
                    "cannot convert dictionary update sequence element #{i} to a sequence"
                )))
            }
        };
        if kv.len() != 2 {
            return Err(vm.value_err(format!(
                "dictionary update sequence element #{i} has length {}; 2 is required",
                kv.len()
            )));
        }
        out.push((kv[0].clone(), kv[1].clone()));
    }
    Ok(out)
}
