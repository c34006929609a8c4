//! `_bisect`: the search loop under the Python `bisect` module
//! (`src/stdlib/python/bisect.py`), in Rust as CPython's `_bisect` is in C. The Python module
//! keeps the argument handling (`lo`/`hi` bounds and their errors, `key=`, the `insort`s) and
//! calls `search(a, x, lo, hi, key, right)` for the binary search itself, which ran a dozen
//! bytecodes per halving.
//!
//! Each probe is read with the VM's own subscript (`a[mid]`, so any sequence works, and an
//! `hi` past the end is the IndexError of that read, as in CPython) and compared with `<`
//! only (`objects::list::less`), `x < probe` for `bisect_right`, `probe < x` for
//! `bisect_left`. Nothing is borrowed across a comparison or a key call, so Python code they
//! run may change the list freely.
//!
//! Metering: each halving pays `cost::LIST_OP` (the read) before it works, the key call
//! `cost::CALL` as `sort`'s keys do, and the comparison what `<` pays. A search is at most
//! 64 halvings (`hi - lo` is an index-sized int, checked by the Python caller).

use super::{builtin, positional};
use crate::cost;
use crate::objects::list::less;
use crate::value::*;
use crate::vm::{Args, Vm, R};

/// `search(a, x, lo, hi, key, right)`: the insertion point of `x` in sorted `a[lo:hi]`,
/// after equal entries when `right`, before them otherwise.
fn f_search(vm: &mut Vm, a: Args) -> R<Value> {
    let args = positional(vm, a, "search", 6, 6)?;
    let [seq, x, lo, hi, key, right] = &args[..] else {
        return Err(vm.type_err("search expected 6 arguments"));
    };
    // CPython reads both as index-sized ints (`__index__`), as `index_of` does.
    let (mut lo, mut hi) = (vm.index_of(lo)?, vm.index_of(hi)?);
    if lo < 0 {
        // `_bisect` is importable itself: the caller may be a program, not bisect.py.
        return Err(vm.value_err("lo must be non-negative"));
    }
    let right = vm.truthy(right)?;
    while lo < hi {
        vm.charge(cost::LIST_OP)?;
        // `(lo + hi) // 2` without overflow (0 <= lo < hi).
        let mid = lo + (hi - lo) / 2;
        let mut probe = vm.getitem(seq, &Value::Int(mid))?;
        if !key.is_none() {
            vm.charge(cost::CALL)?;
            probe = vm.call1(key, probe)?;
        }
        let before = if right {
            less(vm, x, &probe)?
        } else {
            !less(vm, &probe, x)?
        };
        if before {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    Ok(Value::Int(lo))
}

/// The module object.
pub fn load(vm: &mut Vm, name: &str) -> R<Value> {
    let d = rc_dict(PyDict::new());
    vm.dict_set_str(&d, "__name__", Value::str(name))?;
    vm.dict_set_str(&d, "search", builtin("search", f_search))?;
    Ok(super::module(name, d))
}
