//! The builtin namespace and builtin functions (Python 3.11 semantics): [`BUILTINS`], which
//! the embedder hands the interpreter in its `vm::Library` (the interpreter names no builtin
//! function; the builtin classes themselves are `objects::types`).
//!
//! Deliberately absent (sandbox): `id`, `eval`, `exec`, `compile`, `__import__`, `globals`,
//! `locals`, `vars`, `input`, `breakpoint`, `memoryview`. Calls to them are compile errors when
//! visible; reaching them any other way finds nothing to call. `open` exists but reaches only
//! the invocation's in-memory `/tmp` (`crate::objects::file`).

use crate::bytecode::BinOp;
use crate::cost;
use crate::objects::types::{check_byteorder, construct, len_of, set_exc_args, type_new};
use crate::value::*;
use crate::vm::{Args, Builtins, Exc, PositionalFn, Types, Vm, R};
use std::rc::Rc;

/// The value of builtin function `f`.
fn builtin_fn(f: BuiltinFn) -> Value {
    Value::Builtin(Rc::new(Builtin {
        name: f.name().into(),
        kind: BuiltinKind::Func(f),
    }))
}

/// Complete the builtin classes (their native methods) and return the builtin namespace.
pub fn install(t: &Types) -> NameMap {
    let mut b = NameMap::default();
    for &f in BuiltinFn::ALL {
        if f.home() == BuiltinHome::Builtins {
            b.insert(f.name().into(), builtin_fn(f));
        }
    }
    for c in [
        &t.object,
        &t.type_,
        &t.int,
        &t.bool_,
        &t.float,
        &t.str_,
        &t.bytes,
        &t.bytearray,
        &t.tuple,
        &t.list,
        &t.dict,
        &t.set,
        &t.frozenset,
        &t.range,
        &t.slice,
        &t.property,
        &t.classmethod,
        &t.staticmethod,
        &t.super_,
        &t.complex,
    ] {
        b.insert(c.name.clone(), Value::Class(c.clone()));
    }
    for (n, c) in &t.exc {
        b.insert((*n).into(), Value::Class(c.clone()));
    }
    // Python 3's aliases of OSError.
    for n in ["IOError", "EnvironmentError"] {
        b.insert(n.into(), Value::Class(t.exc["OSError"].clone()));
    }
    crate::objects::complex::install(t);
    crate::objects::traceback::install(t);
    crate::objects::excgroup::install(t);
    crate::objects::genericalias::install(t);
    b.insert("NotImplemented".into(), Value::NotImplemented);
    // Assertions always run (there is no -O), so `__debug__` is True.
    b.insert("__debug__".into(), Value::Bool(true));
    b.insert("Ellipsis".into(), Value::Ellipsis);
    b.insert("__name__".into(), Value::str("builtins"));
    // The builtin classes' methods that are builtin functions, so user code can call them
    // explicitly (`object.__init__(self)`, `type.mro(C)`).
    for &f in BuiltinFn::ALL {
        let BuiltinHome::Slot(owner) = f.home() else {
            continue;
        };
        let c = match owner {
            BuiltinType::Object => &t.object,
            BuiltinType::Type => &t.type_,
            BuiltinType::BaseException => &t.exc["BaseException"],
            BuiltinType::Dict => &t.dict,
            BuiltinType::List => &t.list,
            BuiltinType::Set => &t.set,
            BuiltinType::ByteArray => &t.bytearray,
            other => unreachable!("no builtin function is installed on {other:?}"),
        };
        c.dict_mut().insert(f.name().into(), builtin_fn(f));
    }
    b
}

/// The attribute-name argument of getattr/setattr/delattr/hasattr.
fn attr_name(vm: &mut Vm, a: &[Value], fname: &str) -> R<Rc<PyStr>> {
    match arg(vm, a, 1, fname)?.clone() {
        Value::Str(s) => Ok(s),
        other => {
            let tn = vm.type_name(&other);
            Err(vm.type_err(format!("attribute name must be string, not '{tn}'")))
        }
    }
}

fn arg<'a>(vm: &mut Vm, a: &'a [Value], i: usize, fname: &str) -> R<&'a Value> {
    // A reference, not a clone: a value built in the result's memory and read back whole
    // is a store-forwarding stall on every builtin call (abs() spent a third of its time
    // there); the callers that keep the argument clone it themselves.
    match a.get(i) {
        Some(v) => Ok(v),
        None => Err(vm.type_err(format!("{fname}() missing required argument"))),
    }
}

fn is_instance(vm: &mut Vm, v: &Value, t: &Value) -> R<bool> {
    if crate::objects::genericalias::is_alias(t) {
        return Err(vm.type_err("isinstance() argument 2 cannot be a parameterized generic"));
    }
    if matches!(t, Value::Instance(_)) && vm.lookup_dunder(t, "__instancecheck__").is_some() {
        let r = vm
            .call_dunder(t, "__instancecheck__", vec![v.clone()])?
            .unwrap_or_default();
        return vm.truthy(&r);
    }
    if let Value::Instance(i) = t {
        if Rc::ptr_eq(&i.cls(), &vm.types.union) {
            if let Some(a) = i.dict.get_str("__args__") {
                return is_instance(vm, v, &a);
            }
        }
    }
    match t {
        Value::Class(_) if vm.lookup_dunder(t, "__instancecheck__").is_some() => {
            let r = vm
                .call_dunder(t, "__instancecheck__", vec![v.clone()])?
                .unwrap_or_default();
            vm.truthy(&r)
        }
        Value::Class(c) => {
            let vc = vm.type_of(v);
            Ok(vc.is_subclass(c))
        }
        Value::Tuple(ts) => {
            for x in ts.items.iter() {
                if is_instance(vm, v, x)? {
                    return Ok(true);
                }
            }
            Ok(false)
        }
        _ => Err(vm.type_err("isinstance() arg 2 must be a type, a tuple of types, or a union")),
    }
}

fn minmax(vm: &mut Vm, mut a: Args, is_max: bool) -> R<Value> {
    let key = a.take_kw("key").unwrap_or_default();
    let default = a.take_kw("default");
    minmax_of(vm, &a.pos, is_max, &key, default)
}

/// `min(…)`/`max(…)` of positional arguments, `key` (`None`: the items themselves) and
/// `default` given.
fn minmax_of(
    vm: &mut Vm,
    a: &[Value],
    is_max: bool,
    key: &Value,
    default: Option<Value>,
) -> R<Value> {
    let name = if is_max { "max" } else { "min" };
    let mut best: Option<(Value, Value)> = None;
    match a {
        [] => return Err(vm.type_err(format!("{name} expected at least 1 argument, got 0"))),
        // One iterable is streamed (constant memory, as CPython).
        [iterable] => {
            let it = vm.iter(iterable)?;
            while let Some(x) = vm.next(&it)? {
                minmax_step(vm, &mut best, x, is_max, key)?;
            }
        }
        // Several arguments are the items, read where they lie. The tuple of them and its
        // iterator, which the streamed loop would walk, are accounted as if made (as `sum`
        // does), so memory figures and growth do not depend on which path ran.
        items => {
            if default.is_some() {
                return Err(vm.type_err(format!(
                    "Cannot specify a default for {name}() with multiple positional arguments"
                )));
            }
            let _tuple = crate::memory::Acct::new(PyTuple::bytes(items.len()));
            let _iter = crate::memory::Acct::new(PyIter::SIZE);
            for x in items {
                minmax_step(vm, &mut best, x.clone(), is_max, key)?;
            }
        }
    }
    match best {
        Some((_, x)) => Ok(x),
        None => match default {
            Some(d) => Ok(d),
            None => Err(vm.value_err(format!("{name}() arg is an empty sequence"))),
        },
    }
}

/// One item of `min`/`max`: its key compared with the best so far, paid per element.
fn minmax_step(
    vm: &mut Vm,
    best: &mut Option<(Value, Value)>,
    x: Value,
    is_max: bool,
    key: &Value,
) -> R<()> {
    vm.charge(cost::PER_ELEM_CMP)?;
    let k = if key.is_none() {
        x.clone()
    } else {
        vm.call1(key, x.clone())?
    };
    match best {
        None => *best = Some((k, x)),
        Some((bk, _)) => {
            let op = if is_max {
                crate::bytecode::CmpOp::Gt
            } else {
                crate::bytecode::CmpOp::Lt
            };
            let better = match crate::vm::ops::fast_compare_pair(&k, bk, op) {
                Some(b) => b,
                None => {
                    let r = vm.compare(&k, bk, op)?;
                    vm.truthy(&r)?
                }
            };
            if better {
                *best = Some((k, x));
            }
        }
    }
    Ok(())
}

fn print(vm: &mut Vm, mut a: Args) -> R<Value> {
    let sep = match a.take_kw("sep") {
        Some(Value::Str(s)) => s.s.to_string(),
        Some(Value::None) | None => " ".into(),
        Some(o) => {
            return Err(vm.type_err(format!(
                "sep must be None or a string, not {}",
                vm.type_name(&o)
            )))
        }
    };
    let end = match a.take_kw("end") {
        Some(Value::Str(s)) => s.s.to_string(),
        Some(Value::None) | None => "\n".into(),
        Some(o) => {
            return Err(vm.type_err(format!(
                "end must be None or a string, not {}",
                vm.type_name(&o)
            )))
        }
    };
    a.take_kw("flush");
    if let Some(f) = a.take_kw("file") {
        if !f.is_none() {
            return Err(vm.new_exc(
                "DeterminismError",
                "print(file=...) is not available in the PVM",
            ));
        }
    }
    let mut out = String::new();
    for (i, x) in a.pos.iter().enumerate() {
        if i > 0 {
            out.push_str(&sep);
        }
        out.push_str(&vm.str(x)?);
    }
    out.push_str(&end);
    vm.charge(cost::per_char(out.len()))?;
    vm.reserve(out.len() as u64)?;
    vm.stdout.push_str(&out);
    Ok(Value::None)
}

fn round(vm: &mut Vm, a: Args) -> R<Value> {
    let x = arg(vm, &a.pos, 0, "round")?.clone();
    let nd = a.pos.get(1).cloned().filter(|v| !v.is_none());
    match (&x, nd) {
        (Value::Int(_) | Value::BigInt(_) | Value::Bool(_), None) => Ok(match x {
            Value::Bool(b) => Value::Int(b as i64),
            o => o,
        }),
        (Value::Int(i), Some(n)) => {
            let n = vm.index_of(&n)?;
            if n >= 0 {
                return Ok(Value::Int(*i));
            }
            let p = 10i128.checked_pow((-n) as u32).unwrap_or(i128::MAX);
            let v = *i as i128;
            let q = v.div_euclid(p);
            let r = v.rem_euclid(p);
            let q = if r * 2 > p || (r * 2 == p && q % 2 != 0) {
                q + 1
            } else {
                q
            };
            Ok(Value::Int((q * p) as i64))
        }
        (Value::Float(f), None) => {
            let r = libm::rint(*f);
            crate::objects::int::float_to_int(vm, r)
        }
        (Value::Float(f), Some(n)) => {
            let n = vm.index_of(&n)?;
            if !f.is_finite() {
                return Ok(Value::Float(*f));
            }
            // Correct rounding via the shortest decimal representation at n digits.
            if n > 300 {
                return Ok(Value::Float(*f));
            }
            if n >= 0 {
                let s = format!("{:.*}", n as usize, f);
                Ok(Value::Float(s.parse().unwrap_or(*f)))
            } else {
                let p = libm::pow(10.0, (-n) as f64);
                let y = libm::rint(f / p) * p;
                Ok(Value::Float(y))
            }
        }
        (Value::Instance(_), nd) => {
            let args: Vec<Value> = nd.clone().into_iter().collect();
            match vm.call_dunder(&x, "__round__", args)? {
                Some(v) => Ok(v),
                None => {
                    let b = Vm::base_of(&x);
                    if !b.is(&x) {
                        let mut pos = vec![b];
                        pos.extend(nd);
                        return round(vm, Args::new(pos));
                    }
                    Err(vm.type_err(format!(
                        "type {} doesn't define __round__ method",
                        vm.type_name(&x)
                    )))
                }
            }
        }
        _ => Err(vm.type_err(format!(
            "type {} doesn't define __round__ method",
            vm.type_name(&x)
        ))),
    }
}

/// The chain's builtins, for `vm::Library::builtins`.
pub const BUILTINS: Builtins = Builtins {
    install,
    call: call_builtin,
    positional,
};

/// The builtins that take their arguments as a slice when called without keywords: every
/// positional-only builtin, and `min`, `max` and `sum` without their keywords. The
/// interpreter calls these with its value stack's top (`f(a, b)` makes no argument vector);
/// [`call_builtin`] calls the same functions with `Args::pos`, so both paths answer and
/// charge alike.
pub fn positional(f: BuiltinFn) -> Option<PositionalFn> {
    use BuiltinFn as F;
    Some(match f {
        F::Len => len,
        F::Abs => abs,
        F::IsInstance => isinstance,
        F::Repr => repr,
        F::Iter => iter,
        F::Next => next,
        F::Any => |vm, a| any_all(vm, true, a),
        F::All => |vm, a| any_all(vm, false, a),
        F::Divmod => divmod,
        F::Chr => chr,
        F::Ord => ord,
        F::Callable => callable,
        F::Hash => hash,
        F::Min => |vm, a| minmax_of(vm, a, false, &Value::None, None),
        F::Max => |vm, a| minmax_of(vm, a, true, &Value::None, None),
        F::Sum => |vm, a| sum_of(vm, a, None),
        _ => return None,
    })
}

/// Call builtin function `f`: one arm per function, each a call or a line.
pub fn call_builtin(vm: &mut Vm, f: BuiltinFn, a: Args) -> R<Value> {
    use BuiltinFn as F;
    if a.kw.is_empty() {
        if let Some(call) = positional(f) {
            return call(vm, &a.pos);
        }
    }
    match f {
        // Positional-only builtins (`positional`) given keywords, as CPython refuses them.
        F::Len
        | F::Abs
        | F::IsInstance
        | F::Repr
        | F::Iter
        | F::Next
        | F::Any
        | F::All
        | F::Divmod
        | F::Chr
        | F::Ord
        | F::Callable
        | F::Hash => Err(vm.type_err(format!("{}() takes no keyword arguments", f.name()))),
        F::Print => print(vm, a),
        F::Min => minmax(vm, a, false),
        F::Max => minmax(vm, a, true),
        F::Sum => sum(vm, a),
        F::Sorted => sorted(vm, a),
        F::Reversed => reversed(vm, a),
        F::Enumerate => enumerate(vm, a),
        F::Zip => zip(vm, a),
        F::Map => map(vm, a),
        F::Filter => filter(vm, a),
        F::IsSubclass => issubclass(vm, a),
        F::HasAttr => hasattr(vm, a),
        F::GetAttr => getattr(vm, a),
        F::SetAttr => setattr(vm, a),
        F::DelAttr => delattr(vm, a),
        F::AIter => aiter(vm, a),
        F::ANext => anext(vm, a),
        F::Pow => pow(vm, a),
        F::Round => round(vm, a),
        F::Hex | F::Oct | F::Bin => radix(vm, f, a),
        F::Format => format(vm, a),
        F::Ascii => ascii(vm, a),
        F::Vars => vars(vm, a),
        F::Dir => dir_(vm, a),
        F::Open => crate::objects::file::open(vm, a),
        F::BaseExceptionInit => {
            if let Some(Value::Instance(i)) = a.pos.first() {
                set_exc_args(vm, i, a.pos[1..].to_vec());
            }
            Ok(Value::None)
        }
        F::BaseExceptionAddNote => exc_add_note(vm, a),
        F::BaseExceptionWithTraceback => exc_with_traceback(vm, a),
        F::TypeNew => type_new(vm, a),
        F::TypeCall => type_call(vm, a),
        F::TypeInit | F::ObjectInit | F::ObjectInitSubclass => Ok(Value::None),
        F::TypeSetattr => type_setattr(vm, a),
        F::TypeDelattr => type_delattr(vm, a),
        F::TypeRepr => type_repr(vm, a),
        F::TypeInstancecheck => type_instancecheck(vm, a),
        F::TypeSubclasscheck => type_subclasscheck(a),
        F::TypeMro => type_mro(vm, a),
        F::DictInit | F::ListInit | F::SetInit | F::ByteArrayInit => unbound_init(vm, f, a),
        F::ObjectSetattr => object_setattr(vm, a),
        F::ObjectGetattribute => object_getattribute(vm, a),
        F::ObjectDelattr => object_delattr(vm, a),
        F::ObjectNew => object_new(vm, a),
        F::ObjectEq => object_eq(a),
        F::ObjectNe => object_ne(vm, a),
        F::ObjectHash => object_hash(a),
        F::ObjectRepr | F::ObjectStr => object_repr(vm, a),
        F::ObjectFormat => object_format(vm, a),
        F::DictFromkeys => alt_ctor(vm, f, a, dict_fromkeys),
        F::IntFromBytes => alt_ctor(vm, f, a, int_from_bytes),
        F::FloatFromhex => alt_ctor(vm, f, a, float_fromhex),
        F::BytesFromhex | F::ByteArrayFromhex => alt_ctor(vm, f, a, bytes_fromhex),
        F::StrMaketrans => alt_ctor(vm, f, a, |vm, a| crate::objects::str::maketrans(vm, &a)),
        F::BytesMaketrans | F::ByteArrayMaketrans => alt_ctor(vm, f, a, |vm, a| {
            crate::objects::str::bytes_maketrans(vm, &a)
        }),
    }
}

/// `dict.__init__(d, …)`, `list.__init__(l, …)` or `set.__init__(s, …)` called unbound: the
/// first argument is the receiver.
fn unbound_init(vm: &mut Vm, f: BuiltinFn, mut a: Args) -> R<Value> {
    if a.pos.is_empty() {
        let q = f.qualname();
        return Err(vm.type_err(format!("unbound method {q}() needs an argument")));
    }
    let recv = a.pos.remove(0);
    crate::objects::call_method(vm, &Vm::base_of(&recv), f.name(), a)
}

/// An alternate constructor (`dict.fromkeys`, bound to its class, which is not counted) or a
/// static method (`str.maketrans`) of a builtin type: CPython's argument check, by the
/// convention on its `BuiltinFn` line, then `body`.
fn alt_ctor(vm: &mut Vm, f: BuiltinFn, a: Args, body: fn(&mut Vm, Args) -> R<Value>) -> R<Value> {
    let (ty, m) = f.qualname().split_once('.').unwrap_or(("", f.qualname()));
    let skip = usize::from(matches!(f.home(), BuiltinHome::ClassMethod(_)));
    let rest = Args {
        pos: a.pos.get(skip..).unwrap_or_default().to_vec(),
        kw: a.kw.clone(),
    };
    if let Some(arity) = f.arity() {
        crate::objects::arity::check_arity(vm, ty, m, arity, &rest)?;
    }
    body(vm, a)
}

/// `bytes.fromhex(s)` and `bytearray.fromhex(s)` (the class first).
fn bytes_fromhex(vm: &mut Vm, a: Args) -> R<Value> {
    let is_ba =
        matches!(a.pos.first(), Some(Value::Class(c)) if c.builtin == BuiltinType::ByteArray);
    let s = match a.pos.get(1) {
        Some(Value::Str(s)) => s.clone(),
        other => {
            let tn = crate::objects::clinic_type_name(vm, other.unwrap_or(&Value::None));
            return Err(vm.type_err(format!("fromhex() argument must be str, not {tn}")));
        }
    };
    vm.charge(cost::per_char(s.s.len()))?;
    let mut out = Vec::new();
    let cs: Vec<char> = s.s.chars().collect();
    let mut i = 0;
    while i < cs.len() {
        // bytes.fromhex skips ASCII whitespace only (Py_ISSPACE).
        if matches!(cs[i], ' ' | '\t'..='\r') {
            i += 1;
            continue;
        }
        let hi = cs[i].to_digit(16);
        let lo = cs.get(i + 1).and_then(|c| c.to_digit(16));
        match (hi, lo) {
            (Some(h), Some(l)) => out.push((h * 16 + l) as u8),
            _ => {
                let pos = if hi.is_none() { i } else { i + 1 };
                return Err(vm.value_err(format!(
                    "non-hexadecimal number found in fromhex() arg at position {pos}"
                )));
            }
        }
        i += 2;
    }
    let made = if is_ba {
        Value::ByteArray(Rc::new(PyByteArray::new(out)))
    } else {
        Value::bytes(out)
    };
    // A subclass gets `cls(value)`, as CPython's classmethod does.
    match a.pos.first() {
        Some(cls @ Value::Class(c))
            if !Rc::ptr_eq(c, &vm.types.bytes) && !Rc::ptr_eq(c, &vm.types.bytearray) =>
        {
            vm.call(cls, Args::new(vec![made]))
        }
        _ => Ok(made),
    }
}

/// `float.fromhex(s)` (the class first).
fn float_fromhex(vm: &mut Vm, a: Args) -> R<Value> {
    let cls = arg(vm, &a.pos, 0, "fromhex")?;
    let s = match a.pos.get(1) {
        Some(Value::Str(s)) => s.clone(),
        Some(_) => return Err(vm.type_err("bad argument type for built-in operation")),
        None => return Err(vm.type_err("float.fromhex() takes exactly one argument (0 given)")),
    };
    vm.charge(crate::cost::per_char(s.s.len()))?;
    let f = Value::Float(crate::objects::int::float_fromhex(vm, &s.s)?);
    // A subclass gets `cls(value)`, as CPython's classmethod does.
    match &cls {
        Value::Class(c) if !Rc::ptr_eq(c, &vm.types.float) => vm.call(cls, Args::new(vec![f])),
        _ => Ok(f),
    }
}

/// `dict.fromkeys(iterable, value=None)` (the class first).
fn dict_fromkeys(vm: &mut Vm, a: Args) -> R<Value> {
    let cls = arg(vm, &a.pos, 0, "fromkeys")?;
    let keys = {
        let x_ = arg(vm, &a.pos, 1, "fromkeys")?;
        vm.collect(x_)
    }?;
    let v = a.pos.get(2).cloned().unwrap_or_default();
    if matches!(&cls, Value::Class(c) if Rc::ptr_eq(c, &vm.types.dict)) {
        let d = crate::value::rc_dict(PyDict::new());
        for k in keys {
            vm.dict_set(&d, k, v.clone())?;
        }
        return Ok(Value::Dict(d));
    }
    let d = vm.call(cls, Args::default())?;
    for k in keys {
        vm.setitem(&d, k, v.clone())?;
    }
    Ok(d)
}

/// `BaseException.add_note(e, note)`.
fn exc_add_note(vm: &mut Vm, a: Args) -> R<Value> {
    let (Some(Value::Instance(e)), Some(note), 2) = (a.pos.first(), a.pos.get(1), a.pos.len())
    else {
        let n = a.pos.len().saturating_sub(1);
        return Err(vm.type_err(format!(
            "BaseException.add_note() takes exactly one argument ({n} given)"
        )));
    };
    if !matches!(note, Value::Str(_)) {
        let tn = vm.type_name(note);
        return Err(vm.type_err(format!("note must be a str, not '{tn}'")));
    }
    match e.dict.get_str("__notes__") {
        None => e.dict.set_str("__notes__", Value::list(vec![note.clone()])),
        Some(Value::List(l)) => {
            l.items.borrow_mut().push(note.clone());
            l.touch();
        }
        Some(_) => return Err(vm.type_err("Cannot add note: __notes__ is not a list")),
    }
    Ok(Value::None)
}

/// `BaseException.with_traceback(e, tb)`.
fn exc_with_traceback(vm: &mut Vm, a: Args) -> R<Value> {
    let (Some(e), Some(tb), 2) = (a.pos.first(), a.pos.get(1), a.pos.len()) else {
        let n = a.pos.len().saturating_sub(1);
        return Err(vm.type_err(format!(
            "BaseException.with_traceback() takes exactly one argument ({n} given)"
        )));
    };
    crate::objects::traceback::set(vm, e, tb)?;
    Ok(e.clone())
}

/// `len(…)`.
fn len(vm: &mut Vm, a: &[Value]) -> R<Value> {
    if a.len() != 1 {
        return Err(vm.type_err(format!(
            "len() takes exactly one argument ({} given)",
            a.len()
        )));
    }
    let v = arg(vm, a, 0, "len")?;
    let n = len_of(vm, v)?;
    Ok(Value::Int(n as i64))
}

/// `abs(…)`.
fn abs(vm: &mut Vm, a: &[Value]) -> R<Value> {
    let v = arg(vm, a, 0, "abs")?;
    match &v {
        Value::Int(i) => match i.checked_abs() {
            Some(x) => Ok(Value::Int(x)),
            None => vm.int_result(num_bigint::BigInt::from(*i).magnitude().clone().into()),
        },
        Value::Bool(b) => Ok(Value::Int(*b as i64)),
        Value::BigInt(b) => vm.int_result(num_traits::Signed::abs(&**b)),
        Value::Float(f) => Ok(Value::Float(f.abs())),
        _ => match vm.call_dunder(v, "__abs__", vec![])? {
            Some(r) => Ok(r),
            // A subclass of int/float without __abs__ takes its value's.
            None if !Vm::base_of(v).is(v) => {
                let b = Vm::base_of(v);
                abs(vm, &[b])
            }
            None => Err(vm.type_err(format!("bad operand type for abs(): '{}'", vm.type_name(v)))),
        },
    }
}

/// `sum(…)`.
fn sum(vm: &mut Vm, mut a: Args) -> R<Value> {
    let start = a.take_kw("start");
    sum_of(vm, &a.pos, start)
}

/// `sum(…)` of positional arguments, the `start` keyword given.
fn sum_of(vm: &mut Vm, a: &[Value], start: Option<Value>) -> R<Value> {
    let start = start.or_else(|| a.get(1).cloned()).unwrap_or(Value::Int(0));
    match start {
        Value::Str(_) => {
            return Err(vm.type_err("sum() can't sum strings [use ''.join(seq) instead]"))
        }
        Value::Bytes(_) => {
            return Err(vm.type_err("sum() can't sum bytes [use b''.join(seq) instead]"))
        }
        Value::ByteArray(_) => {
            return Err(vm.type_err("sum() can't sum bytearray [use b''.join(seq) instead]"))
        }
        _ => {}
    }
    // Streamed, as CPython: a generator of any length sums in constant memory.
    let it = {
        let x_ = arg(vm, a, 0, "sum")?;
        if let Value::List(_) | Value::Tuple(_) = x_ {
            return sum_seq(vm, x_, start);
        }
        vm.iter(x_)
    }?;
    let mut acc = start;
    while let Some(x) = vm.next(&it)? {
        sum_add(vm, &mut acc, &x)?;
    }
    Ok(acc)
}

/// `sum` of a list or tuple, read in place: each item as its iterator would give it (a list
/// is read again at each step, so an `__add__` that changes it is seen), and the iterator
/// object the streamed loop makes is accounted as if made, so memory figures do not move.
fn sum_seq(vm: &mut Vm, seq: &Value, mut acc: Value) -> R<Value> {
    let _iter = crate::memory::Acct::new(PyIter::SIZE);
    match seq {
        // Immutable, and held by `seq`: its items are read by reference.
        Value::Tuple(t) => {
            for x in t.items.iter() {
                sum_add(vm, &mut acc, x)?;
            }
        }
        Value::List(l) => {
            for i in 0.. {
                let x = l.items.borrow().get(i).cloned();
                let Some(x) = x else { break };
                sum_add(vm, &mut acc, &x)?;
            }
        }
        _ => {}
    }
    Ok(acc)
}

/// One step of `sum`: `acc = acc + x`, paid per element.
///
/// The sum is written into `acc` in place rather than returned: a value returned through
/// memory is stored in halves and then copied whole, a store-forwarding stall on every
/// element (half of `sum()`'s time over a list of ints).
#[inline(always)]
fn sum_add(vm: &mut Vm, acc: &mut Value, x: &Value) -> R<()> {
    vm.charge(cost::PER_ELEM_CMP)?;
    match crate::vm::ops::fast_binary_values(acc, x, BinOp::Add) {
        // The fast path took an int or a float, which owns nothing: no drop to call.
        Some(v) => std::mem::forget(std::mem::replace(acc, v)),
        None => *acc = vm.binary_op(acc, x, BinOp::Add, false)?,
    }
    Ok(())
}

/// `sorted(…)`.
fn sorted(vm: &mut Vm, mut a: Args) -> R<Value> {
    let key = a.take_kw("key").unwrap_or_default();
    let rev = match a.take_kw("reverse") {
        Some(v) => vm.truthy(&v)?,
        None => false,
    };
    let items = {
        let x_ = arg(vm, &a.pos, 0, "sorted")?;
        vm.collect(x_)
    }?;
    let v = crate::objects::list::sort_values(vm, items, &key, rev)?;
    Ok(Value::list(v))
}

/// `reversed(…)`.
fn reversed(vm: &mut Vm, a: Args) -> R<Value> {
    let v = arg(vm, &a.pos, 0, "reversed")?.clone();
    if let Value::Instance(_) | Value::Class(_) = &v {
        // `__reversed__ = None` opts out (collections.abc.Mapping does).
        if vm
            .lookup_dunder(&v, "__reversed__")
            .is_some_and(|m| m.is_none())
        {
            let tn = vm.type_name(&v);
            return Err(vm.type_err(format!("'{tn}' object is not reversible")));
        }
        if let Some(r) = vm.call_dunder(&v, "__reversed__", vec![])? {
            return Ok(r);
        }
    }
    if vm.dict_view(&v).is_some() {
        let mut items = vm.collect(&v)?;
        items.reverse();
        return vm.iter(&Value::list(items));
    }
    // A builtin subclass without its own item access reverses its payload.
    let v = if matches!(v, Value::Instance(_)) && vm.lookup_dunder(&v, "__getitem__").is_none() {
        Vm::base_of(&v)
    } else {
        v
    };
    match &v {
        Value::Dict(_) => {
            let mut items = vm.collect(&v)?;
            items.reverse();
            vm.iter(&Value::list(items))
        }
        Value::Range(_)
        | Value::List(_)
        | Value::Tuple(_)
        | Value::Str(_)
        | Value::Instance(_)
        | Value::Bytes(_) => {
            let n = len_of(vm, &v)?;
            Ok(Value::Iter(Rc::new(PyIter::new(IterState::Reversed {
                seq: v,
                i: n,
            }))))
        }
        _ => Err(vm.type_err(format!("'{}' object is not reversible", vm.type_name(&v)))),
    }
}

/// `enumerate(…)`.
fn enumerate(vm: &mut Vm, mut a: Args) -> R<Value> {
    let start = a
        .take_kw("start")
        .or_else(|| a.pos.get(1).cloned())
        .unwrap_or(Value::Int(0));
    if !matches!(start, Value::Int(_) | Value::BigInt(_) | Value::Bool(_)) {
        vm.index_of(&start)?;
    }
    let it = {
        let x_ = arg(vm, &a.pos, 0, "enumerate")?;
        vm.iter(x_)
    }?;
    Ok(Value::Iter(Rc::new(PyIter::new(IterState::Enumerate {
        it,
        n: start,
    }))))
}

/// `zip(…)`.
fn zip(vm: &mut Vm, mut a: Args) -> R<Value> {
    let strict = match a.take_kw("strict") {
        Some(v) => vm.truthy(&v)?,
        None => false,
    };
    let mut its = Vec::new();
    for x in &a.pos {
        its.push(vm.iter(x)?);
    }
    Ok(Value::Iter(Rc::new(PyIter::new(IterState::Zip {
        its: its.into(),
        strict,
    }))))
}

/// `map(…)`.
fn map(vm: &mut Vm, a: Args) -> R<Value> {
    if a.pos.len() < 2 {
        return Err(vm.type_err("map() must have at least two arguments."));
    }
    let f = arg(vm, &a.pos, 0, "map")?.clone();
    let mut its = Vec::new();
    for x in &a.pos[1..] {
        its.push(vm.iter(x)?);
    }
    Ok(Value::Iter(Rc::new(PyIter::new(IterState::Map {
        f,
        its: its.into(),
    }))))
}

/// `filter(…)`.
fn filter(vm: &mut Vm, a: Args) -> R<Value> {
    let f = arg(vm, &a.pos, 0, "filter")?.clone();
    let it = {
        let x_ = arg(vm, &a.pos, 1, "filter")?;
        vm.iter(x_)
    }?;
    Ok(Value::Iter(Rc::new(PyIter::new(IterState::Filter {
        f,
        it,
    }))))
}

/// `isinstance(…)`.
fn isinstance(vm: &mut Vm, a: &[Value]) -> R<Value> {
    let v = arg(vm, a, 0, "isinstance")?;
    let t = arg(vm, a, 1, "isinstance")?;
    Ok(Value::Bool(is_instance(vm, v, t)?))
}

/// `issubclass(…)`.
fn issubclass(vm: &mut Vm, a: Args) -> R<Value> {
    let c = arg(vm, &a.pos, 0, "issubclass")?;
    let t = arg(vm, &a.pos, 1, "issubclass")?.clone();
    let Value::Class(c) = c else {
        return Err(vm.type_err("issubclass() arg 1 must be a class"));
    };
    let ts = match &t {
        Value::Tuple(x) => x.items.to_vec(),
        o => vec![o.clone()],
    };
    if ts.iter().any(crate::objects::genericalias::is_alias) {
        return Err(vm.type_err("issubclass() argument 2 cannot be a parameterized generic"));
    }
    for x in ts {
        // Any object whose type defines __subclasscheck__ decides (ABCs, typing's
        // aliases), not only classes.
        if matches!(x, Value::Class(_) | Value::Instance(_))
            && vm.lookup_dunder(&x, "__subclasscheck__").is_some()
        {
            let r = vm
                .call_dunder(&x, "__subclasscheck__", vec![Value::Class(c.clone())])?
                .unwrap_or_default();
            if vm.truthy(&r)? {
                return Ok(Value::Bool(true));
            }
            continue;
        }
        match x {
            Value::Class(tc) => {
                if c.is_subclass(&tc) {
                    return Ok(Value::Bool(true));
                }
            }
            // `X | Y` unions check each member.
            Value::Instance(ref i) if Rc::ptr_eq(&i.cls(), &vm.types.union) => {
                let members = i.dict.get_str("__args__").unwrap_or(Value::tuple(vec![]));
                let r = issubclass(vm, Args::new(vec![Value::Class(c.clone()), members]))?;
                if vm.truthy(&r)? {
                    return Ok(Value::Bool(true));
                }
            }
            _ => {
                return Err(vm.type_err(
                    "issubclass() arg 2 must be a class, a tuple of classes, or a union",
                ))
            }
        }
    }
    Ok(Value::Bool(false))
}

/// `hasattr(…)`.
fn hasattr(vm: &mut Vm, a: Args) -> R<Value> {
    let o = arg(vm, &a.pos, 0, "hasattr")?;
    let n = attr_name(vm, &a.pos, "hasattr")?;
    match vm.getattr(o, &n.s) {
        Ok(_) => Ok(Value::Bool(true)),
        Err(e) if vm.exc_is(&e, "AttributeError") => Ok(Value::Bool(false)),
        Err(e) => Err(e),
    }
}

/// `vars(…)`.
fn vars(vm: &mut Vm, a: Args) -> R<Value> {
    match a.pos.as_slice() {
        // Reached only indirectly (`f = vars; f()`): a direct bare `vars()` does not compile.
        [] if a.kw.is_empty() => Err(vm.type_err(
            "vars() without an argument is not allowed in the PVM (it reads the caller's locals)",
        )),
        [o] if a.kw.is_empty() => match vm.getattr_opt(o, "__dict__")? {
            Some(d) => Ok(d),
            None => Err(vm.type_err("vars() argument must have __dict__ attribute")),
        },
        _ if !a.kw.is_empty() => Err(vm.type_err("vars() takes no keyword arguments")),
        _ => Err(vm.type_err(format!(
            "vars expected at most 1 argument, got {}",
            a.pos.len()
        ))),
    }
}

/// `dir(…)`.
fn dir_(vm: &mut Vm, a: Args) -> R<Value> {
    match a.pos.as_slice() {
        [] => Err(vm.type_err(
            "dir() without an argument is not allowed in the PVM (it reads the caller's locals)",
        )),
        [o] => dir(vm, o),
        _ => Err(vm.type_err(format!(
            "dir expected at most 1 argument, got {}",
            a.pos.len()
        ))),
    }
}

/// `getattr(…)`.
fn getattr(vm: &mut Vm, a: Args) -> R<Value> {
    let o = arg(vm, &a.pos, 0, "getattr")?;
    let n = attr_name(vm, &a.pos, "getattr")?;
    match vm.getattr_str(o, &n) {
        Ok(v) => Ok(v),
        Err(e) if vm.exc_is(&e, "AttributeError") && a.pos.len() > 2 => Ok(a.pos[2].clone()),
        Err(e) => Err(e),
    }
}

/// `setattr(…)`.
fn setattr(vm: &mut Vm, a: Args) -> R<Value> {
    let o = arg(vm, &a.pos, 0, "setattr")?;
    let n = attr_name(vm, &a.pos, "setattr")?;
    let v = arg(vm, &a.pos, 2, "setattr")?.clone();
    // A new attribute is keyed by the str object given, as CPython's dict holds it, not by
    // a fresh copy of its text.
    vm.setattr_in(o, &n.s, Some(&n), v)?;
    Ok(Value::None)
}

/// `delattr(…)`.
fn delattr(vm: &mut Vm, a: Args) -> R<Value> {
    let o = arg(vm, &a.pos, 0, "delattr")?;
    let n = attr_name(vm, &a.pos, "delattr")?;
    vm.delattr(o, &n.s)?;
    Ok(Value::None)
}

/// `repr(…)`.
fn repr(vm: &mut Vm, a: &[Value]) -> R<Value> {
    let v = arg(vm, a, 0, "repr")?;
    Ok(Value::str(&vm.repr(v)?))
}

/// `ascii(…)`.
fn ascii(vm: &mut Vm, a: Args) -> R<Value> {
    let v = arg(vm, &a.pos, 0, "ascii")?;
    Ok(Value::str(&crate::format::ascii_escape(&vm.repr(v)?)))
}

/// `iter(…)`.
fn iter(vm: &mut Vm, a: &[Value]) -> R<Value> {
    let v = arg(vm, a, 0, "iter")?.clone();
    if let Some(s) = a.get(1) {
        if !vm.is_callable(&v) {
            return Err(vm.type_err("iter(v, w): v must be callable"));
        }
        return Ok(Value::Iter(Rc::new(PyIter::new(IterState::Callable {
            f: v,
            sentinel: s.clone(),
        }))));
    }
    vm.iter(&v)
}

/// `aiter(…)`.
fn aiter(vm: &mut Vm, a: Args) -> R<Value> {
    if a.pos.len() != 1 {
        let n = a.pos.len();
        return Err(vm.type_err(format!("aiter() takes exactly one argument ({n} given)")));
    }
    crate::objects::asyncgen::aiter(vm, &a.pos[0])
}

/// `anext(…)`.
fn anext(vm: &mut Vm, a: Args) -> R<Value> {
    match a.pos.as_slice() {
        [it] => crate::objects::asyncgen::anext(vm, it, None),
        [it, default] => crate::objects::asyncgen::anext(vm, it, Some(default.clone())),
        [] => Err(vm.type_err("anext expected at least 1 argument, got 0")),
        more => Err(vm.type_err(format!(
            "anext expected at most 2 arguments, got {}",
            more.len()
        ))),
    }
}

/// `next(…)`.
fn next(vm: &mut Vm, a: &[Value]) -> R<Value> {
    let it = arg(vm, a, 0, "next")?;
    // Coroutines and async generators are not iterators.
    if let Value::Generator(g) = &it {
        if g.coroutine || g.async_gen {
            let tn = vm.type_name(it);
            return Err(vm.type_err(format!("'{tn}' object is not an iterator")));
        }
        return match vm.gen_send(g, Value::None)? {
            Ok(v) => Ok(v),
            Err(r) => match a.get(1) {
                Some(d) => Ok(d.clone()),
                None => {
                    let c = vm.types.exc["StopIteration"].clone();
                    Err(Exc::Py(
                        vm.make_exc(&c, if r.is_none() { vec![] } else { vec![r] }),
                    ))
                }
            },
        };
    }
    if !matches!(it, Value::Iter(_) | Value::Instance(_)) {
        return Err(vm.type_err(format!("'{}' object is not an iterator", vm.type_name(it))));
    }
    match vm.next(it)? {
        Some(v) => Ok(v),
        None => match a.get(1) {
            Some(d) => Ok(d.clone()),
            None => Err(vm.new_exc_noargs("StopIteration")),
        },
    }
}

/// `any(…)`, or `all(…)` when `any` is false.
fn any_all(vm: &mut Vm, any: bool, a: &[Value]) -> R<Value> {
    let it = {
        let x_ = arg(vm, a, 0, if any { "any" } else { "all" })?;
        vm.iter(x_)
    }?;
    while let Some(x) = vm.next(&it)? {
        vm.charge(cost::PER_ELEM)?;
        // The first true item decides `any`, the first false one `all`.
        if vm.truthy(&x)? == any {
            return Ok(Value::Bool(any));
        }
    }
    Ok(Value::Bool(!any))
}

/// `divmod(…)`.
fn divmod(vm: &mut Vm, a: &[Value]) -> R<Value> {
    let x = arg(vm, a, 0, "divmod")?.clone();
    let y = arg(vm, a, 1, "divmod")?.clone();
    let numeric = |v: &Value| {
        matches!(
            v,
            Value::Int(_) | Value::Bool(_) | Value::BigInt(_) | Value::Float(_)
        )
    };
    let (x, y) = if numeric(&x) && numeric(&y) {
        (x, y)
    } else {
        // CPython's nb_divmod: __divmod__, then the reflected __rdivmod__.
        if let Some(r) = vm.call_dunder(&x, "__divmod__", vec![y.clone()])? {
            if !matches!(r, Value::NotImplemented) {
                return Ok(r);
            }
        }
        if !Rc::ptr_eq(&vm.type_of(&x), &vm.type_of(&y)) {
            if let Some(r) = vm.call_dunder(&y, "__rdivmod__", vec![x.clone()])? {
                if !matches!(r, Value::NotImplemented) {
                    return Ok(r);
                }
            }
        }
        // Subclasses of int and float divide their values.
        let (bx, by) = (Vm::base_of(&x), Vm::base_of(&y));
        if !(numeric(&bx) && numeric(&by)) {
            let (tx, ty) = (vm.type_name(&x), vm.type_name(&y));
            return Err(vm.type_err(format!(
                "unsupported operand type(s) for divmod(): '{tx}' and '{ty}'"
            )));
        }
        (bx, by)
    };
    let q = vm.binary_op(&x, &y, BinOp::FloorDiv, false).map_err(|e| {
        let float = matches!(x, Value::Float(_)) || matches!(y, Value::Float(_));
        if float && vm.exc_is(&e, "ZeroDivisionError") {
            vm.new_exc("ZeroDivisionError", "float divmod()")
        } else {
            e
        }
    })?;
    let r = vm.binary_op(&x, &y, BinOp::Mod, false)?;
    Ok(Value::tuple(vec![q, r]))
}

/// `pow(…)`.
fn pow(vm: &mut Vm, mut a: Args) -> R<Value> {
    let x = arg(vm, &a.pos, 0, "pow")?.clone();
    let y = arg(vm, &a.pos, 1, "pow")?.clone();
    match a.pos.get(2).cloned().or_else(|| a.take_kw("mod")) {
        // Three-argument pow on an instance (e.g. decimal.Decimal) is its
        // `__pow__(y, mod)`, as CPython's ternary slot; ints keep the fast path.
        Some(m) if !m.is_none() => match vm.lookup_dunder(&x, "__pow__") {
            Some(f) => vm.call(&f, Args::new(vec![x, y, m])),
            None => modpow(vm, &x, &y, &m),
        },
        _ => vm.binary_op(&x, &y, BinOp::Pow, false),
    }
}

/// `hex(…)`, `oct(…)` or `bin(…)`.
fn radix(vm: &mut Vm, f: BuiltinFn, a: Args) -> R<Value> {
    let v = arg(vm, &a.pos, 0, f.name())?;
    if !matches!(v, Value::Int(_) | Value::BigInt(_) | Value::Bool(_)) {
        let idx = vm.index_of(v)?;
        return radix(vm, f, Args::new(vec![Value::Int(idx)]));
    }
    let spec = match f {
        BuiltinFn::Hex => "#x",
        BuiltinFn::Oct => "#o",
        _ => "#b",
    };
    Ok(Value::str(&crate::format::format_value(vm, v, spec)?))
}

/// `chr(…)`.
fn chr(vm: &mut Vm, a: &[Value]) -> R<Value> {
    let i = {
        let x_ = arg(vm, a, 0, "chr")?;
        vm.index_of(x_)
    }?;
    match u32::try_from(i).ok().and_then(char::from_u32) {
        Some(c) => Ok(Value::str(c.encode_utf8(&mut [0; 4]))),
        // CPython returns a lone surrogate; the PVM's str cannot hold one.
        None if (0xD800..=0xDFFF).contains(&i) => Err(vm.value_err(
            "chr() arg is a lone surrogate (0xd800..0xdfff), which the PVM's str cannot hold",
        )),
        None => Err(vm.value_err("chr() arg not in range(0x110000)")),
    }
}

/// `ord(…)`.
fn ord(vm: &mut Vm, a: &[Value]) -> R<Value> {
    match arg(vm, a, 0, "ord")? {
        Value::Str(s) if s.len == 1 => Ok(Value::Int(
            s.s.chars().next().map(|c| c as i64).unwrap_or(0),
        )),
        Value::Str(s) => Err(vm.type_err(format!(
            "ord() expected a character, but string of length {} found",
            s.len
        ))),
        Value::Bytes(b) if b.b.len() == 1 => Ok(Value::Int(b.b[0] as i64)),
        Value::ByteArray(b) if b.b.borrow().len() == 1 => Ok(Value::Int(b.b.borrow()[0] as i64)),
        Value::Bytes(b) => Err(vm.type_err(format!(
            "ord() expected a character, but string of length {} found",
            b.b.len()
        ))),
        o => Err(vm.type_err(format!(
            "ord() expected string of length 1, but {} found",
            vm.type_name(o)
        ))),
    }
}

/// `callable(…)`.
fn callable(vm: &mut Vm, a: &[Value]) -> R<Value> {
    let v = arg(vm, a, 0, "callable")?;
    Ok(Value::Bool(vm.is_callable(v)))
}

/// `hash(…)`.
fn hash(vm: &mut Vm, a: &[Value]) -> R<Value> {
    let v = arg(vm, a, 0, "hash")?;
    let h = vm.hash(v)?;
    Ok(Value::Int(h as i64))
}

/// `format(…)`.
fn format(vm: &mut Vm, a: Args) -> R<Value> {
    let v = arg(vm, &a.pos, 0, "format")?;
    let spec = match a.pos.get(1) {
        Some(Value::Str(s)) => s.s.to_string(),
        _ => String::new(),
    };
    Ok(Value::str(&vm.format(v, &spec)?))
}

fn modpow(vm: &mut Vm, x: &Value, y: &Value, m: &Value) -> R<Value> {
    let to = |v: &Value| -> Option<num_bigint::BigInt> {
        match v {
            Value::Int(i) => Some((*i).into()),
            Value::Bool(b) => Some((*b as i64).into()),
            Value::BigInt(b) => Some((**b).clone()),
            _ => None,
        }
    };
    let (Some(b), Some(e), Some(m)) = (to(x), to(y), to(m)) else {
        return Err(vm.type_err("pow() 3rd argument not allowed unless all arguments are integers"));
    };
    use num_traits::{Signed, Zero};
    if m.is_zero() {
        return Err(vm.value_err("pow() 3rd argument cannot be 0"));
    }
    let bits = m.bits();
    vm.charge(cost::modpow_per_bit(bits).saturating_mul(e.bits().max(1)))?;
    let r = if e.is_negative() {
        vm.charge(cost::bigint_gcd(b.bits(), bits).saturating_mul(2))?;
        let inv = b
            .modinv(&m)
            .ok_or_else(|| vm.value_err("base is not invertible for the given modulus"))?;
        inv.modpow(&(-e), &m)
    } else {
        b.modpow(&e, &m)
    };
    let r = if !r.is_zero() && (r.is_negative() != m.is_negative()) {
        r + &m
    } else {
        r
    };
    vm.int_result(r)
}

fn int_from_bytes(vm: &mut Vm, mut a: Args) -> R<Value> {
    let mut cls = None;
    if let Some(Value::Class(c)) = a.pos.first() {
        cls = Some(c.clone());
        a.pos.remove(0);
    }
    let v = int_from_bytes_value(vm, a)?;
    // A subclass's from_bytes returns an instance of it: cls(value), as CPython does.
    match cls {
        Some(c) if !Rc::ptr_eq(&c, &vm.types.int) => vm.call(&Value::Class(c), Args::new(vec![v])),
        _ => Ok(v),
    }
}

fn int_from_bytes_value(vm: &mut Vm, mut a: Args) -> R<Value> {
    let b = arg(vm, &a.pos, 0, "from_bytes")?.clone();
    let order = a
        .pos
        .get(1)
        .cloned()
        .or_else(|| a.take_kw("byteorder"))
        .unwrap_or(Value::str("big"));
    let signed = match a.take_kw("signed") {
        Some(v) => vm.truthy(&v)?,
        None => false,
    };
    check_byteorder(vm, &order, "from_bytes")?;
    let mut bytes = match &b {
        Value::Bytes(x) => x.b.to_vec(),
        Value::ByteArray(x) => x.b.borrow().clone(),
        Value::Str(_) => return Err(vm.type_err("cannot convert 'str' object to bytes")),
        // Anything else converts as bytes(other) would (iterables of ints in range(256)).
        other => {
            let bytes_cls = vm.types.bytes.clone();
            match construct(vm, &bytes_cls, Args::new(vec![other.clone()]))? {
                Value::Bytes(b) => b.b.to_vec(),
                _ => Vec::new(),
            }
        }
    };
    vm.int_bound(bytes.len() as u64 * 8)?;
    vm.charge(cost::per_char(bytes.len()))?;
    if matches!(&order, Value::Str(s) if &*s.s == "little") {
        bytes.reverse();
    }
    let v = if signed {
        num_bigint::BigInt::from_signed_bytes_be(&bytes)
    } else {
        num_bigint::BigInt::from_bytes_be(num_bigint::Sign::Plus, &bytes)
    };
    vm.int_result(v)
}

// The methods of `type` itself (reached from metaclasses via `super()` or `type.__x__(...)`)
// and of `object`, one function each.

/// `type.__call__(cls, …)`: make an instance.
fn type_call(vm: &mut Vm, mut a: Args) -> R<Value> {
    let this = a.pos.first().cloned().unwrap_or_default();
    let Value::Class(c) = this else {
        return Err(vm.type_err("descriptor '__call__' requires a 'type' object"));
    };
    a.pos.remove(0);
    vm.call_class(&c, a)
}

/// `type.__setattr__(cls, name, value)`.
fn type_setattr(vm: &mut Vm, a: Args) -> R<Value> {
    let this = a.pos.first().cloned().unwrap_or_default();
    let (Value::Class(c), Some(Value::Str(n))) = (&this, a.pos.get(1)) else {
        return Err(vm.type_err("type.__setattr__ expects a class and a name"));
    };
    let v = a.pos.get(2).cloned().unwrap_or_default();
    vm.class_store(c, &n.s, v)?;
    Ok(Value::None)
}

/// `type.__delattr__(cls, name)`.
fn type_delattr(vm: &mut Vm, a: Args) -> R<Value> {
    let this = a.pos.first().cloned().unwrap_or_default();
    let (Value::Class(c), Some(Value::Str(n))) = (&this, a.pos.get(1)) else {
        return Err(vm.type_err("type.__delattr__ expects a class and a name"));
    };
    if !vm.class_delete(c, &n.s)? {
        return Err(vm.attr_error(&this, &n.s));
    }
    Ok(Value::None)
}

/// `type.__repr__(cls)`.
fn type_repr(vm: &mut Vm, a: Args) -> R<Value> {
    let this = a.pos.first().cloned().unwrap_or_default();
    let Value::Class(c) = &this else {
        return Err(vm.type_err("type.__repr__ expects a class"));
    };
    let module = match c.dict.borrow().get("__module__") {
        Some(Value::Str(s)) => Some(s.s.to_string()),
        _ => None,
    };
    Ok(Value::str(&match module {
        Some(m) if m != "builtins" => format!("<class '{}.{}'>", m, c.qualname.borrow()),
        _ => format!("<class '{}'>", c.name),
    }))
}

/// `type.__instancecheck__(cls, obj)`.
fn type_instancecheck(vm: &mut Vm, a: Args) -> R<Value> {
    let this = a.pos.first().cloned().unwrap_or_default();
    let Value::Class(c) = &this else {
        return Ok(Value::Bool(false));
    };
    let v = a.pos.get(1).cloned().unwrap_or_default();
    Ok(Value::Bool(vm.type_of(&v).is_subclass(c)))
}

/// `type.__subclasscheck__(cls, sub)`.
fn type_subclasscheck(a: Args) -> R<Value> {
    let this = a.pos.first().cloned().unwrap_or_default();
    let (Value::Class(c), Some(Value::Class(s))) = (&this, a.pos.get(1)) else {
        return Ok(Value::Bool(false));
    };
    Ok(Value::Bool(s.is_subclass(c)))
}

/// `type.mro(cls)`.
fn type_mro(vm: &mut Vm, a: Args) -> R<Value> {
    let this = a.pos.first().cloned().unwrap_or_default();
    if a.pos.is_empty() {
        return Err(vm.type_err("unbound method type.mro() needs an argument"));
    }
    let Value::Class(c) = &this else {
        let tn = vm.type_name(&this);
        return Err(vm.type_err(format!(
            "descriptor 'mro' for 'type' objects doesn't apply to a '{tn}' object"
        )));
    };
    if a.pos.len() > 1 {
        let n = a.pos.len() - 1;
        return Err(vm.type_err(format!("type.mro() takes no arguments ({n} given)")));
    }
    vm.charge(cost::per_elem(c.mro.len() + 1))?;
    let mut v = vec![this.clone()];
    v.extend(c.mro.iter().map(|x| Value::Class(x.clone())));
    Ok(Value::list(v))
}

/// `object.__new__(cls)`.
fn object_new(vm: &mut Vm, a: Args) -> R<Value> {
    let this = a.pos.first().cloned().unwrap_or_default();
    match &this {
        Value::Class(c) => vm.new_instance(c, &Args::new(a.pos[1..].to_vec())),
        _ => Err(vm.type_err("object.__new__(X): X is not a type object")),
    }
}

/// `object.__setattr__(obj, name, value)`.
fn object_setattr(vm: &mut Vm, a: Args) -> R<Value> {
    let this = a.pos.first().cloned().unwrap_or_default();
    let Value::Instance(i) = &this else {
        let on = if matches!(this, Value::Class(_)) {
            " to type object"
        } else {
            ""
        };
        return Err(vm.type_err(format!("can't apply this __setattr__{on}")));
    };
    let Some(Value::Str(n)) = a.pos.get(1) else {
        return Err(vm.type_err("attribute name must be string"));
    };
    let v = a.pos.get(2).cloned().unwrap_or_default();
    let c = i.cls();
    // Keyed by the str object given (see `setattr`): a frozen dataclass's `__init__` stores
    // each field through here.
    vm.generic_setattr_in(i, &c, &this, &n.s, Some(n), v)?;
    Ok(Value::None)
}

/// `object.__getattribute__(obj, name)`.
fn object_getattribute(vm: &mut Vm, a: Args) -> R<Value> {
    let this = a.pos.first().cloned().unwrap_or_default();
    let Some(Value::Str(n)) = a.pos.get(1) else {
        return Err(vm.type_err("attribute name must be string"));
    };
    match vm.getattr_opt(&this, &n.s)? {
        Some(v) => Ok(v),
        None => Err(vm.attr_error(&this, &n.s)),
    }
}

/// `object.__delattr__(obj, name)`.
fn object_delattr(vm: &mut Vm, a: Args) -> R<Value> {
    let this = a.pos.first().cloned().unwrap_or_default();
    let Some(Value::Str(n)) = a.pos.get(1) else {
        return Err(vm.type_err("attribute name must be string"));
    };
    if let Value::Instance(i) = &this {
        if i.dict.del_str(&n.s).is_some() {
            return Ok(Value::None);
        }
    }
    Err(vm.attr_error(&this, &n.s))
}

/// `object.__eq__(obj, other)`: identity, else NotImplemented.
fn object_eq(a: Args) -> R<Value> {
    let this = a.pos.first().cloned().unwrap_or_default();
    let o = a.pos.get(1).cloned().unwrap_or_default();
    Ok(if this.is(&o) {
        Value::Bool(true)
    } else {
        Value::NotImplemented
    })
}

/// `object.__ne__(obj, other)`.
fn object_ne(vm: &mut Vm, a: Args) -> R<Value> {
    let this = a.pos.first().cloned().unwrap_or_default();
    let o = a.pos.get(1).cloned().unwrap_or_default();
    let r = vm.eq(&this, &o)?;
    Ok(Value::Bool(!r))
}

/// `object.__hash__(obj)`: the identity hash of ANY object. copy's memo keys on it, so it must
/// differ between any two live objects: the whole identity (heap serials even, inline values
/// odd), never shifted (that once made `None` collide with the object of serial 16).
fn object_hash(a: Args) -> R<Value> {
    let this = a.pos.first().cloned().unwrap_or_default();
    Ok(Value::Int(match this.identity() as i64 {
        -1 => -2,
        h => h,
    }))
}

/// `object.__repr__(obj)` and `object.__str__(obj)`.
fn object_repr(vm: &mut Vm, a: Args) -> R<Value> {
    let this = a.pos.first().cloned().unwrap_or_default();
    let c = vm.type_of(&this);
    Ok(Value::str(&format!("<{} object>", c.qualname.borrow())))
}

/// `object.__format__(obj, spec)`.
fn object_format(vm: &mut Vm, a: Args) -> R<Value> {
    let this = a.pos.first().cloned().unwrap_or_default();
    let s = vm.str(&this)?;
    Ok(Value::str(&s))
}

/// The attributes every function answers (`Vm::getattr_opt_in`), listed by `dir(f)`.
const FUNCTION_ATTRS: &[&str] = &[
    "__annotations__",
    "__closure__",
    "__defaults__",
    "__dict__",
    "__doc__",
    "__get__",
    "__kwdefaults__",
    "__module__",
    "__name__",
    "__qualname__",
];

/// `dir(obj)`: the sorted names of the object's `__dict__` and of every class in its type's
/// MRO (for a class, its own MRO), plus a builtin value's methods.
fn dir(vm: &mut Vm, o: &Value) -> R<Value> {
    // A class's own `__dir__` (its metaclass's, for a class) decides, sorted, as in CPython.
    if matches!(o, Value::Instance(_) | Value::Class(_)) {
        if let Some(r) = vm.call_dunder(o, "__dir__", vec![])? {
            let items = vm.collect(&r)?;
            let sorted = crate::objects::list::sort_values(vm, items, &Value::None, false)?;
            return Ok(Value::list(sorted));
        }
    }
    let mut names: std::collections::BTreeSet<String> = std::collections::BTreeSet::new();
    let mut add_dict = |d: &PyDict| {
        for e in d.table.borrow().iter() {
            if let Value::Str(s) = &e.key {
                names.insert(s.s.to_string());
            }
        }
    };
    match o {
        Value::Module(m) => add_dict(&m.dict()),
        Value::Instance(i) => {
            add_dict(&i.dict);
        }
        // A function's own attributes and the function type's, as far as the PVM has them
        // (`__code__`, `__globals__` and `__builtins__` do not exist here: item 5 of
        // LIMITATIONS.md).
        Value::Function(f) => {
            add_dict(&f.attrs);
            names.extend(FUNCTION_ATTRS.iter().map(|n| n.to_string()));
        }
        _ => {}
    }
    if let Some((kind, _)) = vm.dict_view(o) {
        names.insert("mapping".to_string());
        if kind != 1 {
            names.insert("isdisjoint".to_string());
        }
    }
    for m in vm.sealed_methods(o).unwrap_or(&[]) {
        names.insert(m.to_string());
    }
    let cls = match o {
        Value::Class(c) => c.clone(),
        other => vm.type_of(other),
    };
    let mut classes = vec![cls.clone()];
    classes.extend(cls.mro.iter().filter(|c| !Rc::ptr_eq(c, &cls)).cloned());
    for c in &classes {
        for k in c.dict.borrow().keys() {
            names.insert(k.to_string());
        }
        for m in crate::objects::methods_of(c.builtin) {
            names.insert(m.to_string());
        }
        if c.is_builtin_value_type() {
            for m in crate::objects::GENERIC_DUNDERS {
                if crate::value::type_has_dunder(c.builtin, m) {
                    names.insert(m.to_string());
                }
            }
            let numeric: &[&str] = match c.builtin {
                BuiltinType::Int | BuiltinType::Bool => crate::objects::numdunder::INT,
                BuiltinType::Float => crate::objects::numdunder::FLOAT,
                _ => &[],
            };
            names.extend(numeric.iter().map(|m| m.to_string()));
            let seq = crate::objects::seqdunder::names(c.builtin);
            names.extend(seq.iter().map(|m| m.to_string()));
        }
    }
    vm.charge(cost::per_elem(names.len()))?;
    Ok(Value::list(names.iter().map(|n| Value::str(n)).collect()))
}
