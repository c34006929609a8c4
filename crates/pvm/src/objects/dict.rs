//! `dict` methods (insertion-ordered).

use crate::cost;
use crate::value::*;
use crate::vm::{Args, Exc, Vm, R};
use std::rc::Rc;

/// Method names.
pub const METHODS: &[&str] = &[
    "get",
    "keys",
    "values",
    "items",
    "pop",
    "popitem",
    "setdefault",
    "update",
    "clear",
    "copy",
    "fromkeys",
];

/// Call a dict method.
pub fn call(vm: &mut Vm, d: &Rc<PyDict>, name: &str, mut args: Args) -> R<Value> {
    let a0 = args.pos.first().cloned();
    match name {
        "__init__" => {
            d.table.borrow_mut().clear();
            call(vm, d, "update", args)?;
            Ok(Value::None)
        }
        "get" => Ok(vm
            .dict_get(d, &a0.unwrap_or(Value::None))?
            .unwrap_or_else(|| args.pos.get(1).cloned().unwrap_or(Value::None))),
        "keys" | "values" | "items" => {
            // A live view: an instance of dict_keys/dict_values/dict_items over the dict.
            let cls = match name {
                "keys" => vm.types.dict_keys.clone(),
                "values" => vm.types.dict_values.clone(),
                _ => vm.types.dict_items.clone(),
            };
            let inst = Instance::new(cls);
            *inst.base.borrow_mut() = Some(Value::Dict(d.clone()));
            Ok(Value::Instance(crate::value::rc_inst(inst)))
        }
        "pop" => {
            let k = a0.unwrap_or(Value::None);
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
        "popitem" => {
            let last = {
                let t = d.table.borrow();
                t.entries[..t.live_end()].iter().rposition(|e| e.is_some())
            };
            match last {
                Some(i) => {
                    let e = d.table.borrow_mut().remove_at(i);
                    d.touch();
                    Ok(e.map(|e| Value::tuple(vec![e.key, e.value]))
                        .unwrap_or(Value::None))
                }
                None => Err(vm.new_exc("KeyError", "popitem(): dictionary is empty")),
            }
        }
        "setdefault" => {
            let k = a0.unwrap_or(Value::None);
            match vm.dict_get(d, &k)? {
                Some(v) => Ok(v),
                None => {
                    let v = args.pos.get(1).cloned().unwrap_or(Value::None);
                    vm.dict_set(d, k, v.clone())?;
                    Ok(v)
                }
            }
        }
        "update" => {
            if let Some(src) = a0 {
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
        "clear" => {
            d.table.borrow_mut().clear();
            d.touch();
            Ok(Value::None)
        }
        "copy" => {
            vm.charge(cost::table_copy(d.table.borrow().entries.len()))?;
            let t = d.table.borrow().clone();
            Ok(Value::Dict(crate::value::rc_dict(PyDict::from_table(t))))
        }
        _ => Err(vm.attr_error(&Value::Dict(d.clone()), name)),
    }
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
