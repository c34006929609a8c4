//! `list` and `tuple` methods, including the metered stable sort.

use super::arity::Arity::*;
use crate::bytecode::CmpOp;
use crate::cost;
use crate::value::*;
use crate::vm::{Args, Vm, R};
use std::rc::Rc;

methods! {
    /// `list`'s methods.
    LIST, METHODS: Rc<PyList>;
    listed {
        "append" => Some(One), append;
        "extend" => Some(One), extend;
        "pop" => Some(Clinic(0, 1)), pop;
        "insert" => Some(Clinic(2, 2)), insert;
        "remove" => Some(One), remove;
        "index" => Some(Clinic(1, 3)), list_index;
        "count" => Some(One), list_count;
        "sort" => Some(Kw { posonly: 0, minpos: 0, maxpos: 0, names: &["key", "reverse"] }),
            sort;
        "reverse" => Some(NoArgs), reverse;
        "clear" => Some(NoArgs), clear;
        "copy" => Some(NoArgs), copy;
    }
    // `list.__init__(l, iterable)`, reached by name (a subclass's `super().__init__`).
    unlisted {
        "__init__" => None, init;
    }
}

methods! {
    /// `tuple`'s methods.
    TUPLE, TUPLE_METHODS: Rc<PyTuple>;
    listed {
        "count" => Some(One), tuple_count;
        "index" => Some(Clinic(1, 3)), tuple_index;
    }
    unlisted {}
}

/// Stable sort of `items` by `key`, charging per comparison. Errors from comparisons propagate.
pub fn sort_values(vm: &mut Vm, items: Vec<Value>, key: &Value, reverse: bool) -> R<Vec<Value>> {
    let keys = if key.is_none() {
        items.clone()
    } else {
        let mut k = Vec::with_capacity(items.len());
        for x in &items {
            vm.charge(cost::CALL)?;
            k.push(vm.call1(key, x.clone())?);
        }
        k
    };
    let n = items.len();
    // Merge sort over indexes so every comparison can fail and is charged.
    let mut idx: Vec<usize> = (0..n).collect();
    let mut buf = idx.clone();
    let mut width = 1;
    while width < n {
        let mut i = 0;
        while i < n {
            let mid = (i + width).min(n);
            let hi = (i + 2 * width).min(n);
            let (mut a, mut b, mut o) = (i, mid, i);
            while a < mid && b < hi {
                vm.charge(cost::PER_ELEM)?;
                let (x, y) = (&keys[idx[b]], &keys[idx[a]]);
                // Take from the right only if strictly less (stability); reversed sorts use >.
                let take_right = if reverse {
                    less(vm, y, x)?
                } else {
                    less(vm, x, y)?
                };
                if take_right {
                    buf[o] = idx[b];
                    b += 1;
                } else {
                    buf[o] = idx[a];
                    a += 1;
                }
                o += 1;
            }
            while a < mid {
                buf[o] = idx[a];
                a += 1;
                o += 1;
            }
            while b < hi {
                buf[o] = idx[b];
                b += 1;
                o += 1;
            }
            i += 2 * width;
        }
        std::mem::swap(&mut idx, &mut buf);
        width *= 2;
    }
    Ok(idx.into_iter().map(|i| items[i].clone()).collect())
}

/// `a < b` as a bool, the comparison `sort` and `heapq` order by (charged as `<` is).
pub(crate) fn less(vm: &mut Vm, a: &Value, b: &Value) -> R<bool> {
    match (a, b) {
        (Value::Int(x), Value::Int(y)) => return Ok(x < y),
        // `compare(.., Lt)` of two strs, tuples or lists is their native ordering (same charges);
        // skipping the generic dispatch and the bool round trip matters in a sort.
        (Value::Str(_), Value::Str(_))
        | (Value::Tuple(_), Value::Tuple(_))
        | (Value::List(_), Value::List(_)) => {
            if let Some(o) = vm.native_cmp(a, b)? {
                return Ok(o == std::cmp::Ordering::Less);
            }
        }
        _ => {}
    }
    let r = vm.compare(a, b, CmpOp::Lt)?;
    vm.truthy(&r)
}

fn sort_kw(vm: &mut Vm, args: &mut Args) -> R<(Value, bool)> {
    let key = args.take_kw("key").unwrap_or_default();
    let rev = match args.take_kw("reverse") {
        Some(v) => vm.truthy(&v)?,
        None => false,
    };
    if !args.pos.is_empty() {
        return Err(vm.type_err("sort() takes no positional arguments"));
    }
    Ok((key, rev))
}

/// `index`/`count` of a list or tuple. Items are read one at a time, as CPython does (an
/// `__eq__` may shrink the list under the scan): copying the list first was O(n) work for a
/// scan that can stop, paid, at its first item.
fn index_count(vm: &mut Vm, seq: &Value, index: bool, args: &Args) -> R<Value> {
    let item = |i: usize| match seq {
        Value::List(l) => l.items.borrow().get(i).cloned(),
        Value::Tuple(t) => t.items.get(i).cloned(),
        _ => None,
    };
    let len = || match seq {
        Value::List(l) => l.items.borrow().len(),
        Value::Tuple(t) => t.items.len(),
        _ => 0,
    };
    let x = args.pos.first().cloned().unwrap_or_default();
    let mut n = 0;
    // Only `index` takes a window; only the window is scanned (and charged).
    let (start, stop) = if index {
        const MSG: &str = "slice indices must be integers or have an __index__ method";
        let s = super::search::slice_index_or(vm, args.pos.get(1), MSG)?;
        let e = super::search::slice_index_or(vm, args.pos.get(2), MSG)?;
        super::search::window(len(), s, e)
    } else {
        (0, len())
    };
    for i in start..stop {
        let Some(y) = item(i) else { break };
        let y = &y;
        vm.charge(cost::PER_ELEM)?;
        if y.is(&x) || vm.eq(y, &x)? {
            if index {
                return Ok(Value::Int(i as i64));
            }
            n += 1;
        }
    }
    if index {
        let msg = if matches!(seq, Value::List(_)) {
            format!("{} is not in list", vm.repr(&x)?)
        } else {
            "tuple.index(x): x not in tuple".into()
        };
        return Err(vm.value_err(msg));
    }
    Ok(Value::Int(n))
}

/// `list.index(x, start=0, stop=len)`.
fn list_index(vm: &mut Vm, l: &Rc<PyList>, args: Args) -> R<Value> {
    index_count(vm, &Value::List(l.clone()), true, &args)
}

/// `list.count(x)`.
fn list_count(vm: &mut Vm, l: &Rc<PyList>, args: Args) -> R<Value> {
    index_count(vm, &Value::List(l.clone()), false, &args)
}

/// `tuple.index(x, start=0, stop=len)`.
fn tuple_index(vm: &mut Vm, t: &Rc<PyTuple>, args: Args) -> R<Value> {
    index_count(vm, &Value::Tuple(t.clone()), true, &args)
}

/// `tuple.count(x)`.
fn tuple_count(vm: &mut Vm, t: &Rc<PyTuple>, args: Args) -> R<Value> {
    index_count(vm, &Value::Tuple(t.clone()), false, &args)
}

/// The first argument (`None` if there is none: the arity check has made sure there is).
fn first(args: Args) -> Value {
    args.pos.into_iter().next().unwrap_or_default()
}

/// `list.__init__(l, iterable=())`.
fn init(vm: &mut Vm, l: &Rc<PyList>, args: Args) -> R<Value> {
    let items = match args.pos.first() {
        Some(v) => vm.collect(v)?,
        None => Vec::new(),
    };
    *l.items.borrow_mut() = items;
    l.touch();
    Ok(Value::None)
}

/// `list.append(x)`.
fn append(vm: &mut Vm, l: &Rc<PyList>, args: Args) -> R<Value> {
    vm.charge(cost::LIST_OP)?;
    l.items.borrow_mut().push(first(args));
    l.touch();
    Ok(Value::None)
}

/// `list.extend(iterable)`.
fn extend(vm: &mut Vm, l: &Rc<PyList>, args: Args) -> R<Value> {
    let items = vm.collect(&first(args))?;
    vm.charge(cost::per_elem(items.len()))?;
    l.items.borrow_mut().extend(items);
    l.touch();
    Ok(Value::None)
}

/// `list.pop(i=-1)`.
fn pop(vm: &mut Vm, l: &Rc<PyList>, args: Args) -> R<Value> {
    let n = l.items.borrow().len();
    if n == 0 {
        return Err(vm.new_exc("IndexError", "pop from empty list"));
    }
    let i = match args.pos.first() {
        Some(k) => super::norm_index(vm, k, n, "pop")?,
        None => n - 1,
    };
    vm.charge(cost::per_elem(n - i))?;
    let v = l.items.borrow_mut().remove(i);
    l.touch();
    Ok(v)
}

/// `list.insert(i, x)`.
fn insert(vm: &mut Vm, l: &Rc<PyList>, args: Args) -> R<Value> {
    let n = l.items.borrow().len() as i64;
    let i = vm.index_of(args.pos.first().unwrap_or(&Value::Int(0)))?;
    let i = if i < 0 { (i + n).max(0) } else { i.min(n) } as usize;
    vm.charge(cost::per_elem(n as usize - i + 1))?;
    let v = args.pos.get(1).cloned().unwrap_or_default();
    l.items.borrow_mut().insert(i, v);
    l.touch();
    Ok(Value::None)
}

/// `list.remove(x)`: one item at a time (see `index_count`); the removal pays for the items it
/// shifts.
fn remove(vm: &mut Vm, l: &Rc<PyList>, args: Args) -> R<Value> {
    let x = &first(args);
    let mut i = 0;
    loop {
        let Some(y) = l.items.borrow().get(i).cloned() else {
            break;
        };
        vm.charge(cost::PER_ELEM)?;
        if y.is(x) || vm.eq(&y, x)? {
            let n = l.items.borrow().len();
            if i < n {
                vm.charge(cost::per_elem(n - i))?;
                l.items.borrow_mut().remove(i);
                l.touch();
            }
            return Ok(Value::None);
        }
        i += 1;
    }
    Err(vm.value_err("list.remove(x): x not in list"))
}

/// `list.sort(*, key=None, reverse=False)`.
pub fn sort(vm: &mut Vm, l: &Rc<PyList>, mut args: Args) -> R<Value> {
    let (key, rev) = sort_kw(vm, &mut args)?;
    let items = std::mem::take(&mut *l.items.borrow_mut());
    let r = sort_values(vm, items.clone(), &key, rev);
    // The list is empty while it is sorted; a key function that fills it is a
    // "modification during sort", as in CPython (the sorted items are kept).
    let modified = !l.items.borrow().is_empty();
    match r {
        Ok(v) => {
            *l.items.borrow_mut() = v;
            l.touch();
            if modified {
                return Err(vm.value_err("list modified during sort"));
            }
        }
        Err(e) => {
            *l.items.borrow_mut() = items;
            return Err(e);
        }
    }
    Ok(Value::None)
}

/// `list.reverse()`.
fn reverse(vm: &mut Vm, l: &Rc<PyList>, _: Args) -> R<Value> {
    let n = l.items.borrow().len();
    vm.charge(cost::per_elem(n))?;
    l.items.borrow_mut().reverse();
    Ok(Value::None)
}

/// `list.clear()`.
fn clear(_: &mut Vm, l: &Rc<PyList>, _: Args) -> R<Value> {
    l.items.borrow_mut().clear();
    l.touch();
    Ok(Value::None)
}

/// `list.copy()`.
fn copy(vm: &mut Vm, l: &Rc<PyList>, _: Args) -> R<Value> {
    vm.charge(cost::per_elem(l.items.borrow().len()))?;
    Ok(Value::list(l.items.borrow().clone()))
}
