//! Argument counts and keywords of the builtin types' methods, checked before any method runs
//! (by `call_method`) with CPython 3.11's messages.
//!
//! CPython's methods are C functions of a few calling conventions, and each convention words
//! its errors its own way; [`Arity`] names the convention. A type whose methods are registered
//! in a table (`methods!` in `objects/mod.rs`: every builtin value type's) gives each method
//! its convention on its own line there, checked by [`check_arity`]; an alternate constructor
//! or static method (`dict.fromkeys`, `str.maketrans`) gives it on its `BuiltinFn` line
//! (`value.rs`), and [`spec`] finds one by the type's name for the dict views, which are
//! instances and whose one checked method is kept here. [`Arity`] itself is plain data and
//! lives in the data model (`crate::value`), below both registrations. The conventions were derived by calling every method
//! of CPython 3.11 with 0..6 arguments and with an unknown keyword; the conformance programs
//! `tests/conformance/methods_*/arity_*.py` pin the messages. A method whose row says `None`
//! (`str.format`) checks its own arguments.
//!
//! A method whose keyword is rejected names itself the way CPython's method-descriptor call
//! does (`str.find() takes no keyword arguments`): CPython words a few of these without the
//! type when the method is first bound to a variable and called through it.

use crate::vm::{Args, Vm, R};

pub use crate::value::Arity;
use Arity::*;

/// The CPython types whose conventions are kept here by name: the dict views, which are
/// instances (`Vm::dict_view`), not builtin values with a method table.
const TYPES: &[&str] = &["dict_keys", "dict_items"];

/// The convention of method `name` of CPython type `ty`: from the type's method table, or,
/// for the dict views, here.
pub fn spec(ty: &str, name: &str) -> Option<Arity> {
    use super::Method;
    let tabled = match ty {
        "str" => Method::find(super::str::STR, name).map(|m| m.arity),
        "bytes" => Method::find(super::str::BYTES, name).map(|m| m.arity),
        "bytearray" => Method::find(super::str::BYTEARRAY, name).map(|m| m.arity),
        "dict" => Method::find(super::dict::DICT, name).map(|m| m.arity),
        "int" => Method::find(super::int::INT, name).map(|m| m.arity),
        "float" => Method::find(super::int::FLOAT, name).map(|m| m.arity),
        _ => None,
    };
    if let Some(a) = tabled {
        return a;
    }
    // Both views have one checked method.
    (TYPES.contains(&ty) && name == "isdisjoint").then_some(One)
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// Check `args` of method `name` of CPython type `ty` against convention `a`.
#[inline]
pub fn check_arity(vm: &mut Vm, ty: &str, name: &str, a: Arity, args: &Args) -> R<()> {
    if fits(a, args.pos.len(), args.kw.len()) {
        return Ok(());
    }
    check_spec(vm, ty, name, a, args)
}

/// The common case, decided without building anything: `n` positional and `nkw` keyword
/// arguments certainly suit `a` (when false, [`check_spec`] decides and words the error).
#[inline]
fn fits(a: Arity, n: usize, nkw: usize) -> bool {
    let within = |lo: u8, hi: u8| (lo as usize..=hi as usize).contains(&n);
    match a {
        NoArgs => n == 0 && nkw == 0,
        One => n == 1 && nkw == 0,
        Clinic(lo, hi) | Tuple(lo, hi) => nkw == 0 && within(lo, hi),
        ClinicKw(lo, hi) => within(lo, hi),
        VarNoKw => nkw == 0,
        Kw { minpos, maxpos, .. } => nkw == 0 && within(minpos, maxpos),
    }
}

/// [`check`] for a receiver of CPython type `ty` (also the dict views, which are instances).
pub fn check_type(vm: &mut Vm, ty: &str, name: &str, args: &Args) -> R<()> {
    match spec(ty, name) {
        Some(a) => check_spec(vm, ty, name, a, args),
        None => Ok(()),
    }
}

#[cold]
fn check_spec(vm: &mut Vm, ty: &str, name: &str, a: Arity, args: &Args) -> R<()> {
    let n = args.pos.len();
    let nkw = args.kw.len();
    let msg = match a {
        NoArgs | One | Clinic(..) | Tuple(..) | VarNoKw if nkw > 0 => {
            format!("{ty}.{name}() takes no keyword arguments")
        }
        NoArgs if n > 0 => format!("{ty}.{name}() takes no arguments ({n} given)"),
        One if n != 1 => format!("{ty}.{name}() takes exactly one argument ({n} given)"),
        Clinic(lo, hi) | ClinicKw(lo, hi) if n < lo as usize || n > hi as usize => {
            let (how, k) = if lo == hi {
                ("", lo)
            } else if n < lo as usize {
                ("at least ", lo)
            } else {
                ("at most ", hi)
            };
            format!(
                "{name} expected {how}{k} argument{}, got {n}",
                plural(k as usize)
            )
        }
        Tuple(lo, hi) if n < lo as usize || n > hi as usize => {
            let (how, k) = if lo == hi {
                ("exactly", lo)
            } else if n < lo as usize {
                ("at least", lo)
            } else {
                ("at most", hi)
            };
            format!(
                "{name}() takes {how} {k} argument{} ({n} given)",
                plural(k as usize)
            )
        }
        Kw {
            posonly,
            minpos,
            maxpos,
            names,
        } => match kw_error(
            name,
            args,
            posonly as usize,
            minpos as usize,
            maxpos as usize,
            names,
        ) {
            Some(m) => m,
            None => return Ok(()),
        },
        _ => return Ok(()),
    };
    Err(vm.type_err(msg))
}

/// CPython's `_PyArg_UnpackKeywords` checks, in its order.
fn kw_error(
    name: &str,
    args: &Args,
    posonly: usize,
    minpos: usize,
    maxpos: usize,
    names: &[&str],
) -> Option<String> {
    let n = args.pos.len();
    let nkw = args.kw.len();
    let maxargs = posonly + names.len();
    if n + nkw > maxargs {
        return Some(format!(
            "{name}() takes at most {maxargs} {}argument{} ({} given)",
            if n == 0 { "keyword " } else { "" },
            plural(maxargs),
            n + nkw
        ));
    }
    if n > maxpos {
        return Some(if maxpos == 0 {
            format!("{name}() takes no positional arguments")
        } else {
            format!(
                "{name}() takes {} {maxpos} positional argument{} ({n} given)",
                if minpos < maxpos {
                    "at most"
                } else {
                    "exactly"
                },
                plural(maxpos)
            )
        });
    }
    if n < posonly.min(minpos) {
        let k = posonly.min(minpos);
        return Some(format!(
            "{name}() takes {} {k} positional argument{} ({n} given)",
            if minpos < maxargs {
                "at least"
            } else {
                "exactly"
            },
            plural(k)
        ));
    }
    let given = |k: &str| args.kw.iter().any(|(x, _)| &**x == k);
    for (i, p) in names.iter().enumerate() {
        let at = posonly + i;
        if at >= n && at < minpos && !given(p) {
            return Some(format!(
                "{name}() missing required argument '{p}' (pos {})",
                at + 1
            ));
        }
    }
    for (i, p) in names.iter().enumerate() {
        let at = posonly + i;
        if at < n && given(p) {
            return Some(format!(
                "argument for {name}() given by name ('{p}') and position ({})",
                at + 1
            ));
        }
    }
    args.kw
        .iter()
        .find(|(k, _)| !names.contains(&&**k))
        .map(|(k, _)| format!("'{k}' is an invalid keyword argument for {name}()"))
}
