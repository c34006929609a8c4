//! Argument counts and keywords of the builtin types' methods, checked in one place
//! ([`check`], called by `call_method` before any method runs) with CPython 3.11's messages.
//!
//! CPython's methods are C functions of a few calling conventions, and each convention words
//! its errors its own way; [`Arity`] names the convention, and [`spec`] gives each method of
//! `str`, `bytes`, `bytearray`, `int`, `float`, `list`, `tuple`, `dict`, `set`, `frozenset`
//! and the dict views its CPython convention (the table was derived by calling every method of
//! CPython 3.11 with 0..6 arguments and with an unknown keyword; the conformance programs
//! `tests/conformance/methods_*/arity_*.py` pin the messages). Methods that are not listed
//! (`str.format`, and names the PVM does not know) are not checked here.
//!
//! A method whose keyword is rejected names itself the way CPython's method-descriptor call
//! does (`str.find() takes no keyword arguments`): CPython words a few of these without the
//! type when the method is first bound to a variable and called through it.

use crate::value::*;
use crate::vm::{Args, Vm, R};

/// A CPython calling convention, with its argument bounds.
#[derive(Clone, Copy)]
pub enum Arity {
    /// `METH_NOARGS`: `list.clear() takes no arguments (1 given)`.
    NoArgs,
    /// `METH_O`: `list.append() takes exactly one argument (2 given)`.
    One,
    /// Argument Clinic, positional only (min, max): `pop expected at most 1 argument, got 2`.
    Clinic(u8, u8),
    /// As [`Arity::Clinic`], but keywords are the method's own business (`dict.update`).
    ClinicKw(u8, u8),
    /// `PyArg_ParseTuple` (min, max): `find() takes at most 3 arguments (4 given)`.
    Tuple(u8, u8),
    /// Any number of positional arguments, no keywords (`set.union`).
    VarNoKw,
    /// Argument Clinic with keywords: `posonly` positional-only parameters, then `names`
    /// (positional-or-keyword up to `maxpos`, keyword-only after); the first `minpos` are
    /// required. `'x' is an invalid keyword argument for split()`.
    Kw {
        /// Leading positional-only parameters.
        posonly: u8,
        /// Required positional parameters.
        minpos: u8,
        /// Parameters that can be given by position.
        maxpos: u8,
        /// Parameters that can be given by keyword, in order.
        names: &'static [&'static str],
    },
}
use Arity::*;

/// The CPython type name whose method a builtin value's method is.
fn type_key(v: &Value) -> Option<&'static str> {
    Some(match v {
        Value::Str(_) => "str",
        Value::Bytes(_) => "bytes",
        Value::ByteArray(_) => "bytearray",
        Value::Int(_) | Value::BigInt(_) | Value::Bool(_) => "int",
        Value::Float(_) => "float",
        Value::List(_) => "list",
        Value::Tuple(_) => "tuple",
        Value::Dict(_) => "dict",
        Value::Set(s) if s.frozen => "frozenset",
        Value::Set(_) => "set",
        _ => return None,
    })
}

/// The convention of method `name` of CPython type `ty`, if the PVM checks it.
pub fn spec(ty: &str, name: &str) -> Option<Arity> {
    Some(match ty {
        "str" => match name {
            "capitalize" | "casefold" | "isalnum" | "isalpha" | "isascii" | "isdecimal" | "isdigit" | "isidentifier" | "islower" | "isnumeric" | "isprintable" | "isspace" | "istitle" | "isupper" | "lower" | "swapcase" | "title" | "upper" => NoArgs,
            "center" | "ljust" | "rjust" => Clinic(1, 2),
            "count" | "endswith" | "find" | "index" | "rfind" | "rindex" | "startswith" => Tuple(1, 3),
            "encode" => Kw { posonly: 0, minpos: 0, maxpos: 2, names: &["encoding", "errors"] },
            "expandtabs" => Kw { posonly: 0, minpos: 0, maxpos: 1, names: &["tabsize"] },
            "format_map" | "join" | "partition" | "removeprefix" | "removesuffix" | "rpartition" | "translate" | "zfill" => One,
            "lstrip" | "rstrip" | "strip" => Clinic(0, 1),
            "maketrans" => Clinic(1, 3),
            "replace" => Clinic(2, 3),
            "rsplit" | "split" => Kw { posonly: 0, minpos: 0, maxpos: 2, names: &["sep", "maxsplit"] },
            "splitlines" => Kw { posonly: 0, minpos: 0, maxpos: 1, names: &["keepends"] },
            _ => return None,
        },
        "bytes" => match name {
            "capitalize" | "isalnum" | "isalpha" | "isascii" | "isdigit" | "islower" | "isspace" | "istitle" | "isupper" | "lower" | "swapcase" | "title" | "upper" => NoArgs,
            "center" | "ljust" | "rjust" => Clinic(1, 2),
            "count" | "endswith" | "find" | "index" | "rfind" | "rindex" | "startswith" => Tuple(1, 3),
            "decode" => Kw { posonly: 0, minpos: 0, maxpos: 2, names: &["encoding", "errors"] },
            "expandtabs" => Kw { posonly: 0, minpos: 0, maxpos: 1, names: &["tabsize"] },
            "fromhex" | "join" | "partition" | "removeprefix" | "removesuffix" | "rpartition" | "zfill" => One,
            "hex" => Kw { posonly: 0, minpos: 0, maxpos: 2, names: &["sep", "bytes_per_sep"] },
            "lstrip" | "rstrip" | "strip" => Clinic(0, 1),
            "maketrans" => Clinic(2, 2),
            "replace" => Clinic(2, 3),
            "rsplit" | "split" => Kw { posonly: 0, minpos: 0, maxpos: 2, names: &["sep", "maxsplit"] },
            "splitlines" => Kw { posonly: 0, minpos: 0, maxpos: 1, names: &["keepends"] },
            "translate" => Kw { posonly: 1, minpos: 1, maxpos: 2, names: &["delete"] },
            _ => return None,
        },
        "bytearray" => match name {
            "append" | "extend" | "fromhex" | "join" | "partition" | "remove" | "removeprefix" | "removesuffix" | "rpartition" | "zfill" => One,
            "capitalize" | "clear" | "copy" | "isalnum" | "isalpha" | "isascii" | "isdigit" | "islower" | "isspace" | "istitle" | "isupper" | "lower" | "reverse" | "swapcase" | "title" | "upper" => NoArgs,
            "center" | "ljust" | "rjust" => Clinic(1, 2),
            "count" | "endswith" | "find" | "index" | "rfind" | "rindex" | "startswith" => Tuple(1, 3),
            "decode" => Kw { posonly: 0, minpos: 0, maxpos: 2, names: &["encoding", "errors"] },
            "expandtabs" => Kw { posonly: 0, minpos: 0, maxpos: 1, names: &["tabsize"] },
            "hex" => Kw { posonly: 0, minpos: 0, maxpos: 2, names: &["sep", "bytes_per_sep"] },
            "insert" | "maketrans" => Clinic(2, 2),
            "lstrip" | "pop" | "rstrip" | "strip" => Clinic(0, 1),
            "replace" => Clinic(2, 3),
            "rsplit" | "split" => Kw { posonly: 0, minpos: 0, maxpos: 2, names: &["sep", "maxsplit"] },
            "splitlines" => Kw { posonly: 0, minpos: 0, maxpos: 1, names: &["keepends"] },
            "translate" => Kw { posonly: 1, minpos: 1, maxpos: 2, names: &["delete"] },
            _ => return None,
        },
        "int" => match name {
            "as_integer_ratio" | "bit_count" | "bit_length" | "conjugate" => NoArgs,
            "from_bytes" => Kw { posonly: 0, minpos: 1, maxpos: 2, names: &["bytes", "byteorder", "signed"] },
            "to_bytes" => Kw { posonly: 0, minpos: 0, maxpos: 2, names: &["length", "byteorder", "signed"] },
            _ => return None,
        },
        "float" => match name {
            "as_integer_ratio" | "conjugate" | "hex" | "is_integer" => NoArgs,
            "fromhex" => One,
            _ => return None,
        },
        "list" => match name {
            "append" | "count" | "extend" | "remove" => One,
            "clear" | "copy" | "reverse" => NoArgs,
            "index" => Clinic(1, 3),
            "insert" => Clinic(2, 2),
            "pop" => Clinic(0, 1),
            "sort" => Kw { posonly: 0, minpos: 0, maxpos: 0, names: &["key", "reverse"] },
            _ => return None,
        },
        "tuple" => match name {
            "count" => One,
            "index" => Clinic(1, 3),
            _ => return None,
        },
        "dict" => match name {
            "clear" | "copy" | "items" | "keys" | "popitem" | "values" => NoArgs,
            "fromkeys" | "get" | "pop" | "setdefault" => Clinic(1, 2),
            "update" => ClinicKw(0, 1),
            _ => return None,
        },
        "set" => match name {
            "add" | "discard" | "isdisjoint" | "issubset" | "issuperset" | "remove" | "symmetric_difference" | "symmetric_difference_update" => One,
            "clear" | "copy" | "pop" => NoArgs,
            "difference" | "difference_update" | "intersection" | "intersection_update" | "union" | "update" => VarNoKw,
            _ => return None,
        },
        "frozenset" => match name {
            "copy" => NoArgs,
            "difference" | "intersection" | "union" => VarNoKw,
            "isdisjoint" | "issubset" | "issuperset" | "symmetric_difference" => One,
            _ => return None,
        },
        "dict_keys" => match name {
            "isdisjoint" => One,
            _ => return None,
        },
        "dict_items" => match name {
            "isdisjoint" => One,
            _ => return None,
        },
        _ => return None,
    })
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// Check the arguments of builtin method `name` of `v` against its CPython convention.
pub fn check(vm: &mut Vm, v: &Value, name: &str, args: &Args) -> R<()> {
    let Some(ty) = type_key(v) else { return Ok(()) };
    check_type(vm, ty, name, args)
}

/// [`check`] for a receiver of CPython type `ty` (also the dict views, which are instances).
pub fn check_type(vm: &mut Vm, ty: &str, name: &str, args: &Args) -> R<()> {
    let Some(a) = spec(ty, name) else { return Ok(()) };
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
            format!("{name} expected {how}{k} argument{}, got {n}", plural(k as usize))
        }
        Tuple(lo, hi) if n < lo as usize || n > hi as usize => {
            let (how, k) = if lo == hi {
                ("exactly", lo)
            } else if n < lo as usize {
                ("at least", lo)
            } else {
                ("at most", hi)
            };
            format!("{name}() takes {how} {k} argument{} ({n} given)", plural(k as usize))
        }
        Kw {
            posonly,
            minpos,
            maxpos,
            names,
        } => match kw_error(name, args, posonly as usize, minpos as usize, maxpos as usize, names) {
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
                if minpos < maxpos { "at most" } else { "exactly" },
                plural(maxpos)
            )
        });
    }
    if n < posonly.min(minpos) {
        let k = posonly.min(minpos);
        return Some(format!(
            "{name}() takes {} {k} positional argument{} ({n} given)",
            if minpos < maxargs { "at least" } else { "exactly" },
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
