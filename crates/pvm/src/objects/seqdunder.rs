//! The operator special methods of `str`, `bytes`, `bytearray`, `list`, `tuple`, `dict`, `set`
//! and `frozenset` that the generic protocol dunders (`GENERIC_DUNDERS`) do not cover, called
//! explicitly: `'%d'.__mod__(3)`, `'ab'.__rmul__(2)`, `[1].__iadd__((2,))`, `{1: 2}.__or__(d)`,
//! `{1}.__ior__({2})`, `super().__or__(other)` in a subclass. Operators never come here.
//!
//! As in CPython, a binary method returns `NotImplemented` for an operand its type does not
//! handle (`{1}.__or__([2])`, `{}.__or__([(1, 2)])`, `'x'.__rmod__(1)`), the in-place ones
//! mutate and return the receiver, and dict's ordering comparisons are always
//! `NotImplemented`. The work is the operator's own, metered as it is.

use crate::bytecode::BinOp;
use crate::value::*;
use crate::vm::{Args, Vm, R};

const STR: &[&str] = &["__mod__", "__rmod__", "__rmul__"];
const BYTES: &[&str] = &["__bytes__", "__mod__", "__rmod__", "__rmul__"];
const BYTEARRAY: &[&str] = &["__iadd__", "__imul__", "__mod__", "__rmod__", "__rmul__"];
const LIST: &[&str] = &["__iadd__", "__imul__", "__reversed__", "__rmul__"];
const TUPLE: &[&str] = &["__rmul__"];
const DICT: &[&str] = &[
    "__ge__",
    "__gt__",
    "__ior__",
    "__le__",
    "__lt__",
    "__or__",
    "__reversed__",
    "__ror__",
];
const FROZENSET: &[&str] = &[
    "__and__", "__or__", "__rand__", "__ror__", "__rsub__", "__rxor__", "__sub__", "__xor__",
];
const SET: &[&str] = &[
    "__and__", "__iand__", "__ior__", "__isub__", "__ixor__", "__or__", "__rand__", "__ror__",
    "__rsub__", "__rxor__", "__sub__", "__xor__",
];

/// The special methods of builtin type `bt` this module answers.
pub fn names(bt: BuiltinType) -> &'static [&'static str] {
    use BuiltinType as B;
    match bt {
        B::Str => STR,
        B::Bytes => BYTES,
        B::ByteArray => BYTEARRAY,
        B::List => LIST,
        B::Tuple => TUPLE,
        B::Dict => DICT,
        B::Set => SET,
        B::FrozenSet => FROZENSET,
        _ => &[],
    }
}

/// The builtin type of a container value this module serves, with CPython's name for it.
fn type_of(v: &Value) -> Option<(BuiltinType, &'static str)> {
    use BuiltinType as B;
    Some(match v {
        Value::Str(_) => (B::Str, "str"),
        Value::Bytes(_) => (B::Bytes, "bytes"),
        Value::ByteArray(_) => (B::ByteArray, "bytearray"),
        Value::List(_) => (B::List, "list"),
        Value::Tuple(_) => (B::Tuple, "tuple"),
        Value::Dict(_) => (B::Dict, "dict"),
        Value::Set(s) if s.frozen => (B::FrozenSet, "frozenset"),
        Value::Set(_) => (B::Set, "set"),
        _ => return None,
    })
}

/// Is `name` one of this module's special methods of `v`.
pub fn has(v: &Value, name: &str) -> bool {
    name.starts_with("__") && type_of(v).is_some_and(|(bt, _)| names(bt).contains(&name))
}

fn binop(name: &str) -> Option<(BinOp, bool, bool)> {
    // (operator, reflected, in place)
    let (op, rest) = match name.trim_start_matches("__").trim_end_matches("__") {
        "mod" => (BinOp::Mod, ""),
        "rmod" => (BinOp::Mod, "r"),
        "rmul" => (BinOp::Mul, "r"),
        "imul" => (BinOp::Mul, "i"),
        "iadd" => (BinOp::Add, "i"),
        "or" => (BinOp::Or, ""),
        "ror" => (BinOp::Or, "r"),
        "ior" => (BinOp::Or, "i"),
        "and" => (BinOp::And, ""),
        "rand" => (BinOp::And, "r"),
        "iand" => (BinOp::And, "i"),
        "sub" => (BinOp::Sub, ""),
        "rsub" => (BinOp::Sub, "r"),
        "isub" => (BinOp::Sub, "i"),
        "xor" => (BinOp::Xor, ""),
        "rxor" => (BinOp::Xor, "r"),
        "ixor" => (BinOp::Xor, "i"),
        _ => return None,
    };
    Some((op, rest == "r", rest == "i"))
}

/// Does the other operand suit receiver type `bt` for `op` (else `NotImplemented`).
fn accepts(bt: BuiltinType, op: BinOp, reflected: bool, inplace: bool, other: &Value) -> bool {
    use BuiltinType as B;
    match (bt, op) {
        // `%` formats anything; the reflected form only for a format of the same kind.
        (_, BinOp::Mod) if !reflected => true,
        (B::Str, BinOp::Mod) => matches!(other, Value::Str(_)),
        (_, BinOp::Mod) => matches!(other, Value::Bytes(_) | Value::ByteArray(_)),
        // `d |= x` updates from any mapping or iterable of pairs; `|` needs a dict.
        (B::Dict, BinOp::Or) => inplace || matches!(other, Value::Dict(_)),
        (B::Set | B::FrozenSet, _) => matches!(other, Value::Set(_)),
        _ => true,
    }
}

/// Call special method `name` (one of [`names`] of `v`'s type) on `v`.
pub fn call(vm: &mut Vm, v: &Value, name: &str, args: &Args) -> R<Value> {
    let Some((bt, ty)) = type_of(v) else {
        return Err(vm.attr_error(v, name));
    };
    let n = args.pos.len();
    let noargs = matches!(name, "__reversed__" | "__bytes__");
    let err = if noargs && !args.kw.is_empty() {
        Some(format!("{ty}.{name}() takes no keyword arguments"))
    } else if noargs && n != 0 {
        Some(format!("{ty}.{name}() takes no arguments ({n} given)"))
    } else if !args.kw.is_empty() {
        Some(format!("wrapper {name}() takes no keyword arguments"))
    } else if !noargs && n != 1 {
        Some(format!("expected 1 argument, got {n}"))
    } else {
        None
    };
    if let Some(m) = err {
        return Err(vm.type_err(m));
    }
    match name {
        "__reversed__" => return vm.call_builtin(BuiltinFn::Reversed, Args::new(vec![v.clone()])),
        "__bytes__" => return Ok(v.clone()),
        "__lt__" | "__le__" | "__gt__" | "__ge__" => return Ok(Value::NotImplemented),
        _ => {}
    }
    let Some((op, reflected, inplace)) = binop(name) else {
        return Err(vm.attr_error(v, name));
    };
    let other = Vm::base_of(&args.pos[0]);
    if !accepts(bt, op, reflected, inplace, &other) {
        return Ok(Value::NotImplemented);
    }
    // A repeat count is an index, with CPython's error for anything else.
    let other = if op == BinOp::Mul {
        Value::Int(vm.index_of(&other)?)
    } else {
        other
    };
    if inplace {
        vm.binary_op(v, &other, op, true)
    } else if reflected && op != BinOp::Mul {
        vm.binary_op(&other, v, op, false)
    } else {
        vm.binary_op(v, &other, op, false)
    }
}
