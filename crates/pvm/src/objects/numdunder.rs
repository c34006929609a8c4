//! The special methods of `int`, `bool` and `float` called explicitly: `(3).__add__(4)`,
//! `int.__add__(3, 4)`, `(2.0).__rmul__(3)`, `(1).__lt__(2)`, `super().__sub__(x)` in a
//! subclass. Operators never come here (the VM dispatches them on builtin numbers directly).
//!
//! As in CPython, a binary or comparison method returns `NotImplemented` when the other
//! operand is not a number its type handles: `int`'s methods take ints and bools only (so
//! `(1).__add__(2.0)` and `(1).__eq__(1.0)` are `NotImplemented`), `float`'s take ints,
//! bools and floats. The work is the operator's (or builtin's) own, metered as it is; the
//! argument counts are checked here with the messages of CPython's slot wrappers and methods.

use crate::bytecode::{BinOp, CmpOp, Op};
use crate::value::*;
use crate::vm::{Args, Vm, R};

/// What a numeric special method does.
#[derive(Clone, Copy)]
enum Kind {
    /// A binary operator; `true`: reflected (`__radd__`: `other + self`).
    Bin(BinOp, bool),
    /// `__divmod__`/`__rdivmod__`.
    DivMod(bool),
    /// `__pow__`/`__rpow__`, with an optional modulus.
    Pow(bool),
    /// A rich comparison.
    Cmp(CmpOp),
    /// `__eq__`/`__ne__` (`true`: ne).
    Eq(bool),
    /// A slot wrapper without arguments (`__neg__`, `__int__`, …).
    Unary(&'static str),
    /// A `METH_NOARGS` method (`__trunc__`, `__floor__`, `__ceil__`).
    NoArgs(&'static str),
    /// `__round__(ndigits=None)`.
    Round,
}

/// Method names of `int` (and `bool`) this module answers.
pub const INT: &[&str] = &[
    "__abs__",
    "__add__",
    "__and__",
    "__ceil__",
    "__divmod__",
    "__eq__",
    "__float__",
    "__floor__",
    "__floordiv__",
    "__ge__",
    "__gt__",
    "__index__",
    "__int__",
    "__invert__",
    "__le__",
    "__lshift__",
    "__lt__",
    "__mod__",
    "__mul__",
    "__ne__",
    "__neg__",
    "__or__",
    "__pos__",
    "__pow__",
    "__radd__",
    "__rand__",
    "__rdivmod__",
    "__rfloordiv__",
    "__rlshift__",
    "__rmod__",
    "__rmul__",
    "__ror__",
    "__round__",
    "__rpow__",
    "__rrshift__",
    "__rshift__",
    "__rsub__",
    "__rtruediv__",
    "__rxor__",
    "__sub__",
    "__truediv__",
    "__trunc__",
    "__xor__",
];

/// Method names of `float` this module answers.
pub const FLOAT: &[&str] = &[
    "__abs__",
    "__add__",
    "__ceil__",
    "__divmod__",
    "__eq__",
    "__float__",
    "__floor__",
    "__floordiv__",
    "__ge__",
    "__gt__",
    "__int__",
    "__le__",
    "__lt__",
    "__mod__",
    "__mul__",
    "__ne__",
    "__neg__",
    "__pos__",
    "__pow__",
    "__radd__",
    "__rdivmod__",
    "__rfloordiv__",
    "__rmod__",
    "__rmul__",
    "__round__",
    "__rpow__",
    "__rsub__",
    "__rtruediv__",
    "__sub__",
    "__truediv__",
    "__trunc__",
];

fn kind(name: &str) -> Option<Kind> {
    use BinOp as B;
    use Kind::*;
    Some(match name {
        "__add__" => Bin(B::Add, false),
        "__sub__" => Bin(B::Sub, false),
        "__mul__" => Bin(B::Mul, false),
        "__truediv__" => Bin(B::TrueDiv, false),
        "__floordiv__" => Bin(B::FloorDiv, false),
        "__mod__" => Bin(B::Mod, false),
        "__lshift__" => Bin(B::LShift, false),
        "__rshift__" => Bin(B::RShift, false),
        "__and__" => Bin(B::And, false),
        "__or__" => Bin(B::Or, false),
        "__xor__" => Bin(B::Xor, false),
        "__radd__" => Bin(B::Add, true),
        "__rsub__" => Bin(B::Sub, true),
        "__rmul__" => Bin(B::Mul, true),
        "__rtruediv__" => Bin(B::TrueDiv, true),
        "__rfloordiv__" => Bin(B::FloorDiv, true),
        "__rmod__" => Bin(B::Mod, true),
        "__rlshift__" => Bin(B::LShift, true),
        "__rrshift__" => Bin(B::RShift, true),
        "__rand__" => Bin(B::And, true),
        "__ror__" => Bin(B::Or, true),
        "__rxor__" => Bin(B::Xor, true),
        "__divmod__" => DivMod(false),
        "__rdivmod__" => DivMod(true),
        "__pow__" => Pow(false),
        "__rpow__" => Pow(true),
        "__lt__" => Cmp(CmpOp::Lt),
        "__le__" => Cmp(CmpOp::Le),
        "__gt__" => Cmp(CmpOp::Gt),
        "__ge__" => Cmp(CmpOp::Ge),
        "__eq__" => Eq(false),
        "__ne__" => Eq(true),
        "__neg__" | "__pos__" | "__abs__" | "__invert__" | "__int__" | "__float__"
        | "__index__" => Unary(static_name(name)),
        "__trunc__" | "__floor__" | "__ceil__" => NoArgs(static_name(name)),
        "__round__" => Round,
        _ => return None,
    })
}

fn static_name(name: &str) -> &'static str {
    INT.iter()
        .chain(FLOAT)
        .find(|n| **n == name)
        .copied()
        .unwrap_or("")
}

/// `name` is a numeric slot wrapper (CPython words a wrong receiver of those `descriptor
/// '__neg__' requires a 'int' object but received a 'float'`); `__trunc__`, `__floor__`,
/// `__ceil__` and `__round__` are ordinary methods.
pub fn is_slot_wrapper(name: &str) -> bool {
    kind(name).is_some_and(|k| !matches!(k, Kind::NoArgs(_) | Kind::Round))
}

/// Is `name` a numeric special method of number `v` that this module answers.
pub fn has(v: &Value, name: &str) -> bool {
    match v {
        Value::Int(_) | Value::BigInt(_) | Value::Bool(_) => INT.contains(&name),
        Value::Float(_) => FLOAT.contains(&name),
        _ => false,
    }
}

/// The other operand as a number this receiver's type handles (the payload of an int or
/// float subclass instance), or None for `NotImplemented`.
fn operand(v: &Value, float_recv: bool) -> Option<Value> {
    match Vm::base_of(v) {
        x @ (Value::Int(_) | Value::BigInt(_) | Value::Bool(_)) => Some(x),
        x @ Value::Float(_) if float_recv => Some(x),
        _ => None,
    }
}

/// Call numeric special method `name` (one of [`INT`]/[`FLOAT`]) on number `v`.
pub fn call(vm: &mut Vm, v: &Value, name: &str, args: &Args) -> R<Value> {
    let float_recv = matches!(v, Value::Float(_));
    let ty = if float_recv { "float" } else { "int" };
    let Some(k) = kind(name) else {
        return Err(vm.attr_error(v, name));
    };
    let n = args.pos.len();
    // Argument checks, worded as CPython's wrappers (`expected 1 argument, got 0`), its
    // ternary `__pow__` wrapper (no name) and its METH_NOARGS/clinic methods.
    let err = match k {
        Kind::NoArgs(_) | Kind::Round if !args.kw.is_empty() => {
            Some(format!("{ty}.{name}() takes no keyword arguments"))
        }
        _ if !args.kw.is_empty() => Some(format!("wrapper {name}() takes no keyword arguments")),
        Kind::Unary(_) if n != 0 => Some(format!("expected 0 arguments, got {n}")),
        Kind::NoArgs(_) if n != 0 => Some(format!("{ty}.{name}() takes no arguments ({n} given)")),
        Kind::Round if n > 1 => Some(format!("{name} expected at most 1 argument, got {n}")),
        Kind::Pow(_) if n == 0 => Some(format!(" expected at least 1 argument, got {n}")),
        Kind::Pow(_) if n > 2 => Some(format!(" expected at most 2 arguments, got {n}")),
        Kind::Bin(..) | Kind::DivMod(_) | Kind::Cmp(_) | Kind::Eq(_) if n != 1 => {
            Some(format!("expected 1 argument, got {n}"))
        }
        _ => None,
    };
    if let Some(m) = err {
        return Err(vm.type_err(m));
    }
    let other = match k {
        Kind::Bin(..) | Kind::DivMod(_) | Kind::Pow(_) | Kind::Cmp(_) | Kind::Eq(_) => {
            match operand(&args.pos[0], float_recv) {
                Some(o) => o,
                None => return Ok(Value::NotImplemented),
            }
        }
        _ => Value::None,
    };
    let (a, b) = (v.clone(), other);
    let swap = |r: bool, a: Value, b: Value| if r { (b, a) } else { (a, b) };
    match k {
        Kind::Bin(op, r) => {
            let (x, y) = swap(r, a, b);
            vm.binary_op(&x, &y, op, false)
        }
        Kind::DivMod(r) => {
            let (x, y) = swap(r, a, b);
            vm.call_builtin(BuiltinFn::Divmod, Args::new(vec![x, y]))
        }
        Kind::Pow(r) => {
            let (x, y) = swap(r, a, b);
            let mut pos = vec![x, y];
            match args.pos.get(1) {
                None | Some(Value::None) => {}
                Some(m) => match operand(m, float_recv) {
                    Some(m) => pos.push(m),
                    None => return Ok(Value::NotImplemented),
                },
            }
            vm.call_builtin(BuiltinFn::Pow, Args::new(pos))
        }
        Kind::Cmp(op) => vm.compare(&a, &b, op),
        Kind::Eq(ne) => Ok(Value::Bool(vm.eq(&a, &b)? != ne)),
        Kind::Unary(u) => match u {
            "__neg__" => vm.unary_op(&a, Op::Neg),
            "__pos__" => vm.unary_op(&a, Op::Pos),
            "__invert__" => vm.unary_op(&a, Op::Invert),
            "__abs__" => vm.call_builtin(BuiltinFn::Abs, Args::new(vec![a])),
            "__float__" => to(vm, "float", a),
            // __int__ and __index__: the int itself (a bool's as an int); a float truncates.
            _ => to(vm, "int", a),
        },
        Kind::NoArgs(u) => {
            let a = match (u, &a) {
                ("__floor__", Value::Float(f)) => Value::Float(f.floor()),
                ("__ceil__", Value::Float(f)) => Value::Float(f.ceil()),
                _ => a,
            };
            to(vm, "int", a)
        }
        Kind::Round => {
            let mut pos = vec![a];
            pos.extend(args.pos.first().cloned());
            vm.call_builtin(BuiltinFn::Round, Args::new(pos))
        }
    }
}

/// `int(a)` or `float(a)` of a builtin number.
fn to(vm: &mut Vm, ty: &str, a: Value) -> R<Value> {
    let cls = if ty == "int" {
        vm.types.int.clone()
    } else {
        vm.types.float.clone()
    };
    vm.call(&Value::Class(cls), Args::new(vec![a]))
}
