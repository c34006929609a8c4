//! `_heapq`: the heap operations under the Python `heapq` module (`heappush`, `heappop`,
//! `heapreplace`, `heappushpop`, `heapify`), in Rust as CPython's `_heapq` is in C. The Python
//! versions ran a bytecode loop per level of the heap (a dozen instructions and a call per
//! sift step), most of an event-queue program's time.
//!
//! The sifts are CPython's: push moves the new item toward the root; pop and replace walk the
//! smaller child up to a leaf, then sift the displaced item back. Only `<` is used, so list
//! layouts after each operation are CPython's (and the Python version's). As in CPython, an
//! item's `__lt__` may run Python code that changes the list: the length is checked after
//! every comparison (RuntimeError "list changed size during iteration"), items are read anew
//! after it, and no borrow of the list is held across it, so a hostile `__lt__` cannot make the
//! VM panic or index out of bounds.
//!
//! Metering: the call pays `cost::CALL` at its call site; each sift step pays `cost::LIST_OP`
//! (the swap of two slots) before it works, and each comparison pays what `<` pays
//! (`objects::list::less`: per element for tuples, per char for strings, the call for
//! `__lt__`). A sift is at most 2·log2(len) steps. `heapify` is at most `len` sifts down
//! (linear in all, as in CPython). Growth of the list on a push is accounted memory, paid as
//! any list growth.

use super::{builtin, positional};
use crate::cost;
use crate::objects::list::less;
use crate::value::*;
use crate::vm::{Args, Vm, R};
use std::rc::Rc;

/// The heap argument: a list, else CPython's TypeError (`heappush() argument 1 must be list,
/// not int`; Argument Clinic names `None` itself rather than its type).
fn heap_arg(vm: &mut Vm, v: &Value, what: &str) -> R<Rc<PyList>> {
    match v {
        Value::List(l) => Ok(l.clone()),
        Value::None => Err(vm.type_err(format!("{what} must be list, not None"))),
        _ => {
            let tn = vm.type_name(v);
            Err(vm.type_err(format!("{what} must be list, not {tn}")))
        }
    }
}

/// The one argument of `heappop`/`heapify`, with CPython's message for any other count.
fn one_arg(vm: &mut Vm, a: Args, f: &str) -> R<Value> {
    if !a.kw.is_empty() {
        return Err(vm.type_err(format!("_heapq.{f}() takes no keyword arguments")));
    }
    let n = a.pos.len();
    match <[Value; 1]>::try_from(a.pos) {
        Ok([v]) => Ok(v),
        Err(_) => Err(vm.type_err(format!(
            "_heapq.{f}() takes exactly one argument ({n} given)"
        ))),
    }
}

/// The two arguments of `heappush`, `heapreplace`, `heappushpop`.
fn two_args(vm: &mut Vm, a: Args, f: &str) -> R<(Value, Value)> {
    let mut pos = positional(vm, a, f, 2, 2)?.into_iter();
    Ok((
        pos.next().unwrap_or_default(),
        pos.next().unwrap_or_default(),
    ))
}

/// The item at `i`, read anew (a comparison may have replaced it).
fn item(vm: &mut Vm, heap: &PyList, i: usize) -> R<Value> {
    match heap.items.borrow().get(i) {
        Some(v) => Ok(v.clone()),
        None => Err(vm.new_exc("IndexError", "list index out of range")),
    }
}

/// `heap[i] < heap[j]`, then a check that the comparison left the list's length `size`.
fn lt_at(vm: &mut Vm, heap: &PyList, i: usize, j: usize, size: usize) -> R<bool> {
    let (a, b) = (item(vm, heap, i)?, item(vm, heap, j)?);
    let r = less(vm, &a, &b)?;
    if heap.items.borrow().len() != size {
        return Err(vm.new_exc("RuntimeError", "list changed size during iteration"));
    }
    Ok(r)
}

/// Move the item at `pos` toward `start` while it is smaller than its parent.
fn sift_down(vm: &mut Vm, heap: &PyList, start: usize, mut pos: usize) -> R<()> {
    let size = heap.items.borrow().len();
    while pos > start {
        vm.charge(cost::LIST_OP)?;
        let parent = (pos - 1) >> 1;
        if !lt_at(vm, heap, pos, parent, size)? {
            break;
        }
        heap.items.borrow_mut().swap(pos, parent);
        pos = parent;
    }
    Ok(())
}

/// Walk the smaller child of `pos` up to a leaf, then sift the item that was at `pos` back
/// down from there (CPython's bottom-up `_siftup`: fewer comparisons than a top-down sift).
fn sift_up(vm: &mut Vm, heap: &PyList, mut pos: usize) -> R<()> {
    let size = heap.items.borrow().len();
    let start = pos;
    while pos < size >> 1 {
        vm.charge(cost::LIST_OP)?;
        let mut child = 2 * pos + 1;
        if child + 1 < size && !lt_at(vm, heap, child, child + 1, size)? {
            child += 1;
        }
        heap.items.borrow_mut().swap(pos, child);
        pos = child;
    }
    sift_down(vm, heap, start, pos)
}

/// `heappush(heap, item)`.
fn f_heappush(vm: &mut Vm, a: Args) -> R<Value> {
    let (h, x) = two_args(vm, a, "heappush")?;
    let heap = heap_arg(vm, &h, "heappush() argument 1")?;
    let last = {
        let mut items = heap.items.borrow_mut();
        items.push(x);
        items.len() - 1
    };
    heap.touch();
    sift_down(vm, &heap, 0, last)?;
    Ok(Value::None)
}

/// `heappop(heap)`.
fn f_heappop(vm: &mut Vm, a: Args) -> R<Value> {
    let h = one_arg(vm, a, "heappop")?;
    let heap = heap_arg(vm, &h, "heappop() argument")?;
    // The last item takes the root's place (when there is a root left); the root is the answer.
    let popped = {
        let mut items = heap.items.borrow_mut();
        items.pop().map(|last| match items.first_mut() {
            Some(root) => (std::mem::replace(root, last), true),
            None => (last, false),
        })
    };
    let Some((smallest, sift)) = popped else {
        return Err(vm.new_exc("IndexError", "index out of range"));
    };
    heap.touch();
    if sift {
        sift_up(vm, &heap, 0)?;
    }
    Ok(smallest)
}

/// `heapreplace(heap, item)`: pop the smallest, then push `item`, the size unchanged.
fn f_heapreplace(vm: &mut Vm, a: Args) -> R<Value> {
    let (h, x) = two_args(vm, a, "heapreplace")?;
    let heap = heap_arg(vm, &h, "heapreplace() argument 1")?;
    replace_root(vm, &heap, x)
}

/// Put `x` at the root, sift it into place and return the old root; IndexError if the heap
/// is empty.
fn replace_root(vm: &mut Vm, heap: &PyList, x: Value) -> R<Value> {
    let root = match heap.items.borrow_mut().first_mut() {
        Some(root) => std::mem::replace(root, x),
        None => return Err(vm.new_exc("IndexError", "index out of range")),
    };
    sift_up(vm, heap, 0)?;
    Ok(root)
}

/// `heappushpop(heap, item)`: push `item`, then pop the smallest (`item` itself if it is).
fn f_heappushpop(vm: &mut Vm, a: Args) -> R<Value> {
    let (h, x) = two_args(vm, a, "heappushpop")?;
    let heap = heap_arg(vm, &h, "heappushpop() argument 1")?;
    let Some(root) = heap.items.borrow().first().cloned() else {
        return Ok(x);
    };
    if !less(vm, &root, &x)? {
        return Ok(x);
    }
    // The comparison may have emptied the list (CPython checks the same).
    replace_root(vm, &heap, x)
}

/// `heapify(x)`: make the list a heap in place, in linear time.
fn f_heapify(vm: &mut Vm, a: Args) -> R<Value> {
    let h = one_arg(vm, a, "heapify")?;
    let heap = heap_arg(vm, &h, "heapify() argument")?;
    let n = heap.items.borrow().len();
    for i in (0..n / 2).rev() {
        sift_up(vm, &heap, i)?;
    }
    Ok(Value::None)
}

/// The module object.
pub fn load(vm: &mut Vm, name: &str) -> R<Value> {
    let d = rc_dict(PyDict::new());
    vm.dict_set_str(&d, "__name__", Value::str(name))?;
    let fns: [(&str, super::Body); 5] = [
        ("heappush", f_heappush),
        ("heappop", f_heappop),
        ("heapreplace", f_heapreplace),
        ("heappushpop", f_heappushpop),
        ("heapify", f_heapify),
    ];
    for (n, f) in fns {
        vm.dict_set_str(&d, n, builtin(n, f))?;
    }
    Ok(super::module(name, d))
}
