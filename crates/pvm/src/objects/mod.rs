//! Builtin types' methods and subscripting, one file per type.
//!
//! [`has_method`] and [`call_method`] dispatch on the receiver's type. The methods of every
//! builtin value type (`str`, `bytes`, `bytearray`, `list`, `tuple`, `dict`, `set`,
//! `frozenset`, `int`, `float`) are registered once, each a line of its type's `methods!` table
//! (name, CPython calling convention, handler): to add one, add the line and write the handler.
//! The table makes the type's [`Method`] list, which [`call_method`] searches once per call
//! (the convention is checked with CPython's messages, then the handler runs), and its
//! `METHODS` name list, which `dir()`, the class's attributes and [`has_method`] read.

/// Declares a builtin type's methods, one line each: name, CPython calling convention
/// (`Option<`[`arity::Arity`]`>`; `None` for a method that words its own argument errors) and
/// body. It makes the type's [`Method`] table and, from the same lines, its name list; the
/// `unlisted` methods (`__init__`) are in the table but not in the list, which is what
/// `dir()`, the class's attributes and [`has_method`] show.
macro_rules! methods {
    (
        $(#[$doc:meta])*
        $table:ident, $names:ident: $recv:ty;
        listed { $($name:literal => $arity:expr, $body:expr;)* }
        unlisted { $($uname:literal => $uarity:expr, $ubody:expr;)* }
    ) => {
        $(#[$doc])*
        pub const $table: &[super::Method<$recv>] = &[
            $(super::Method { name: $name, arity: $arity, body: $body },)*
            $(super::Method { name: $uname, arity: $uarity, body: $ubody },)*
        ];

        #[doc = concat!("The public names of [`", stringify!($table), "`], in its order.")]
        pub const $names: &[&str] = &[$($name),*];
    };
}

pub mod arity;
pub mod asyncgen;
pub mod complex;
pub mod dict;
pub mod excgroup;
pub mod file;
pub mod genericalias;
pub mod int;
pub mod iter;
pub mod list;
pub mod native_type;
pub mod numdunder;
pub mod search;
pub mod seqdunder;
pub mod set;
pub mod split;
pub mod str;
pub mod traceback;
pub mod types;

use crate::value::*;
use crate::vm::{Args, Vm, R};
use std::rc::Rc;

/// One method of a builtin type, registered once in its type's table (made by `methods!`):
/// [`call_method`] finds it by name, checks the arguments against `arity` (CPython's calling
/// convention and messages), then runs `body` on the receiver (its payload's `Rc`, or the
/// value itself for `int` and `float`).
pub struct Method<T: 'static> {
    /// The method's name.
    pub name: &'static str,
    /// Its CPython calling convention; `None` when the body checks its own arguments.
    pub arity: Option<arity::Arity>,
    /// What it does.
    pub body: fn(&mut Vm, &T, Args) -> R<Value>,
}

impl<T> Method<T> {
    /// The method of `table` named `name`. A row is compared in full only when its length
    /// and first byte match (what the name tables in `arity.rs` jumped on), so a lookup in
    /// `str`'s 47 rows makes one or two text comparisons.
    #[inline]
    pub fn find(table: &'static [Method<T>], name: &str) -> Option<&'static Method<T>> {
        let first = *name.as_bytes().first()?;
        table
            .iter()
            .find(|m| m.name.len() == name.len() && m.name.as_bytes()[0] == first && m.name == name)
    }

    /// The convention of the method of `table` named `name`, at compile time: a type that
    /// has another's methods takes their conventions from its table (`bytearray` from `bytes`).
    pub const fn arity_in(table: &[Method<T>], name: &str) -> Option<arity::Arity> {
        let mut i = 0;
        while i < table.len() {
            let (a, b) = (table[i].name.as_bytes(), name.as_bytes());
            let mut same = a.len() == b.len();
            let mut k = 0;
            while same && k < a.len() {
                same = a[k] == b[k];
                k += 1;
            }
            if same {
                return table[i].arity;
            }
            i += 1;
        }
        None
    }

    /// Check `args` against the method's convention (`ty` is CPython's name of the receiver's
    /// type, for the messages), then run it on `recv`.
    #[inline]
    pub fn call(&self, vm: &mut Vm, ty: &str, recv: &T, args: Args) -> R<Value> {
        if let Some(a) = self.arity {
            arity::check_arity(vm, ty, self.name, a, &args)?;
        }
        (self.body)(vm, recv, args)
    }
}

/// Special methods every builtin value answers through the generic protocols, so
/// `dict.__getitem__(d, k)` and `super().__setitem__(k, v)` in subclasses work.
pub const GENERIC_DUNDERS: &[&str] = &[
    "__getitem__",
    "__setitem__",
    "__delitem__",
    "__len__",
    "__contains__",
    "__iter__",
    "__repr__",
    "__str__",
    "__eq__",
    "__ne__",
    "__lt__",
    "__le__",
    "__gt__",
    "__ge__",
    "__hash__",
    "__add__",
    "__mul__",
    "__format__",
    "__bool__",
];

/// A type's name as CPython's Argument Clinic words a bad argument: `None` itself, else the
/// type name (`must be str, not None`, but `not int`).
pub fn clinic_type_name(vm: &Vm, v: &Value) -> String {
    match v {
        Value::None => "None".to_string(),
        v => vm.type_name(v),
    }
}

/// Public names of a builtin value type for `dir()` and the class `__dict__`: its methods and
/// data attributes, then its alternate constructors and static methods.
pub fn methods_of(bt: BuiltinType) -> Vec<&'static str> {
    let mut names = own_names_of(bt).to_vec();
    names.extend(BuiltinFn::names_on_type(bt));
    names
}

/// The methods and data attributes of a builtin value type (not those registered as
/// `BuiltinFn`s).
fn own_names_of(bt: BuiltinType) -> &'static [&'static str] {
    use BuiltinType as B;
    const INT: &[&str] = &[
        "as_integer_ratio",
        "bit_count",
        "bit_length",
        "conjugate",
        "denominator",
        "imag",
        "numerator",
        "real",
        "to_bytes",
    ];
    const FLOAT: &[&str] = &[
        "as_integer_ratio",
        "conjugate",
        "hex",
        "imag",
        "is_integer",
        "real",
    ];
    match bt {
        B::Str => str::METHODS,
        B::Bytes => str::BYTES_METHODS,
        B::ByteArray => str::BYTEARRAY_METHODS,
        B::List => list::METHODS,
        B::Tuple => list::TUPLE_METHODS,
        B::Dict => dict::METHODS,
        B::Set => set::METHODS,
        B::FrozenSet => set::FROZEN_METHODS,
        B::Int | B::Bool => INT,
        B::Float => FLOAT,
        B::Range => &["count", "index", "start", "step", "stop"],
        B::Slice => &["indices", "start", "step", "stop"],
        _ => &[],
    }
}

fn builtin_type_of(v: &Value) -> Option<BuiltinType> {
    use BuiltinType as B;
    Some(match v {
        Value::Int(_) | Value::BigInt(_) => B::Int,
        Value::Bool(_) => B::Bool,
        Value::Float(_) => B::Float,
        Value::Str(_) => B::Str,
        Value::Bytes(_) => B::Bytes,
        Value::ByteArray(_) => B::ByteArray,
        Value::Tuple(_) => B::Tuple,
        Value::List(_) => B::List,
        Value::Dict(_) => B::Dict,
        Value::Set(s) => {
            if s.frozen {
                B::FrozenSet
            } else {
                B::Set
            }
        }
        Value::Range(_) => B::Range,
        _ => return None,
    })
}

fn generic_dunder(vm: &mut Vm, v: &Value, name: &str, args: &Args) -> R<Value> {
    use crate::bytecode::{BinOp, CmpOp};
    let a0 = args.pos.first().cloned().unwrap_or_default();
    let a1 = args.pos.get(1).cloned().unwrap_or_default();
    Ok(match name {
        "__getitem__" => vm.getitem(v, &a0)?,
        "__setitem__" => {
            vm.setitem(v, a0, a1)?;
            Value::None
        }
        "__delitem__" => {
            vm.delitem(v, a0)?;
            Value::None
        }
        "__len__" => Value::Int(crate::objects::types::len_of(vm, v)? as i64),
        "__contains__" => Value::Bool(vm.contains(v, &a0)?),
        "__iter__" => vm.iter(v)?,
        "__repr__" => Value::str(&vm.repr(v)?),
        "__str__" => Value::str(&vm.str(v)?),
        "__eq__" => Value::Bool(vm.eq(v, &a0)?),
        "__ne__" => Value::Bool(!vm.eq(v, &a0)?),
        "__lt__" => vm.compare(v, &a0, CmpOp::Lt)?,
        "__le__" => vm.compare(v, &a0, CmpOp::Le)?,
        "__gt__" => vm.compare(v, &a0, CmpOp::Gt)?,
        "__ge__" => vm.compare(v, &a0, CmpOp::Ge)?,
        "__hash__" => Value::Int(vm.hash(v)? as i64),
        "__add__" => vm.binary_op(v, &a0, BinOp::Add, false)?,
        "__mul__" => vm.binary_op(v, &a0, BinOp::Mul, false)?,
        "__format__" => {
            let spec = match &a0 {
                Value::Str(s) => s.s.to_string(),
                _ => String::new(),
            };
            Value::str(&vm.format(v, &spec)?)
        }
        "__bool__" => Value::Bool(vm.truthy(v)?),
        _ => Value::None,
    })
}

/// `name` is one of [`GENERIC_DUNDERS`]; ordinary method names (no leading `__`) are rejected
/// without scanning the list, which keeps `d.get(…)`/`s.append(…)` dispatch cheap.
fn is_generic_dunder(name: &str) -> bool {
    name.starts_with("__") && GENERIC_DUNDERS.contains(&name)
}

/// Does the builtin type of `v` have method `name`.
pub fn has_method(vm: &Vm, v: &Value, name: &str) -> bool {
    if numdunder::has(v, name) || seqdunder::has(v, name) || is_type_method(v, name) {
        return true;
    }
    if is_generic_dunder(name) {
        return match builtin_type_of(v) {
            Some(bt) => crate::value::type_has_dunder(bt, name),
            None => {
                matches!(
                    name,
                    "__repr__" | "__str__" | "__eq__" | "__ne__" | "__hash__" | "__format__"
                ) && !matches!(v, Value::Instance(_) | Value::Class(_))
            }
        };
    }
    has_own_method(vm, v, name)
}

fn has_own_method(_vm: &Vm, v: &Value, name: &str) -> bool {
    let list: &[&str] = match v {
        Value::Str(_) => str::METHODS,
        Value::List(_) => list::METHODS,
        Value::Tuple(_) => list::TUPLE_METHODS,
        Value::Dict(_) => dict::METHODS,
        Value::Set(s) if s.frozen => set::FROZEN_METHODS,
        Value::Set(_) => set::METHODS,
        Value::Int(_) | Value::BigInt(_) | Value::Bool(_) => int::METHODS,
        Value::Float(_) => int::FLOAT_METHODS,
        Value::Generator(g) if g.async_gen => asyncgen::METHODS,
        Value::Generator(_) => iter::GENERATOR_METHODS,
        Value::Bytes(_) => str::BYTES_METHODS,
        Value::Property(_) => &["getter", "setter", "deleter"],
        Value::Iter(it) => {
            return matches!(name, "__next__" | "__iter__")
                || (name == "__length_hint__" && iter::has_length_hint(it))
                || (asyncgen::is_step(it) && asyncgen::step_has_method(name))
        }
        Value::ByteArray(_) => str::BYTEARRAY_METHODS,
        Value::Slice(_) => &["indices"],
        Value::Range(_) => &["count", "index"],
        _ => &[],
    };
    list.contains(&name)
}

/// `name` is an alternate constructor (a class method) or a static method of `v`'s builtin
/// type, reachable through an instance too (`{}.fromkeys`, `(1).from_bytes`, `b''.fromhex`,
/// `''.maketrans`): what `objects::types::class_attr` finds on its class (bound to the
/// class, or unbound). Derived from the one registration of each, its `BuiltinFn` line.
pub fn is_type_method(v: &Value, name: &str) -> bool {
    builtin_type_of(v).is_some_and(|t| BuiltinFn::of_type(t, name).is_some())
}

/// Call builtin method `name` on `v`.
/// No row of a method table (see [`method_row`]).
pub const NO_ROW: u16 = u16::MAX;

/// The row of `v`'s type's method table where [`call_method`] finds `name`, when it gets
/// that far (none of the numeric or sequence dunders or alternate constructors it tries
/// first is `name`). The interpreter remembers it per call site and receiver kind, so a
/// call skips the name searches ([`call_method_at`]).
pub fn method_row(v: &Value, name: &str) -> Option<u16> {
    fn row<T>(table: &'static [Method<T>], name: &str) -> Option<u16> {
        let m = Method::find(table, name)?;
        let i = table.iter().position(|r| std::ptr::eq(r, m))?;
        u16::try_from(i).ok().filter(|&i| i != NO_ROW)
    }
    if numdunder::has(v, name) || seqdunder::has(v, name) || is_type_method(v, name) {
        return None;
    }
    match v {
        Value::List(_) => row(list::LIST, name),
        Value::Tuple(_) => row(list::TUPLE, name),
        Value::Dict(_) => row(dict::DICT, name),
        Value::Str(_) => row(str::STR, name),
        Value::Bytes(_) => row(str::BYTES, name),
        Value::Int(_) | Value::BigInt(_) | Value::Bool(_) => row(int::INT, name),
        Value::Float(_) => row(int::FLOAT, name),
        Value::Generator(g) if !g.async_gen => row(iter::GENERATOR, name),
        _ => None,
    }
}

/// `v.name(args)`, given the row [`method_row`] found for `name` on a value of `v`'s kind
/// (or [`NO_ROW`]): that row's method, called as [`call_method`] would call it.
pub fn call_method_at(vm: &mut Vm, v: &Value, name: &str, row: u16, args: Args) -> R<Value> {
    let at = usize::from(row);
    match v {
        Value::List(l) => {
            if let Some(m) = list::LIST.get(at) {
                return m.call(vm, "list", l, args);
            }
        }
        Value::Tuple(t) => {
            if let Some(m) = list::TUPLE.get(at) {
                return m.call(vm, "tuple", t, args);
            }
        }
        Value::Dict(d) => {
            if let Some(m) = dict::DICT.get(at) {
                return m.call(vm, "dict", d, args);
            }
        }
        Value::Str(s) => {
            if let Some(m) = str::STR.get(at) {
                return m.call(vm, "str", s, args);
            }
        }
        Value::Bytes(b) => {
            if let Some(m) = str::BYTES.get(at) {
                return m.call(vm, "bytes", b, args);
            }
        }
        Value::Int(_) | Value::BigInt(_) | Value::Bool(_) => {
            if let Some(m) = int::INT.get(at) {
                return m.call(vm, "int", v, args);
            }
        }
        Value::Float(_) => {
            if let Some(m) = int::FLOAT.get(at) {
                return m.call(vm, "float", v, args);
            }
        }
        Value::Generator(g) if !g.async_gen => {
            if let Some(m) = iter::GENERATOR.get(at) {
                return m.call(vm, iter::gen_type_name(g), g, args);
            }
        }
        _ => {}
    }
    call_method(vm, v, name, args)
}

pub fn call_method(vm: &mut Vm, v: &Value, name: &str, args: Args) -> R<Value> {
    if numdunder::has(v, name) {
        return numdunder::call(vm, v, name, &args);
    }
    if seqdunder::has(v, name) {
        return seqdunder::call(vm, v, name, &args);
    }
    if is_type_method(v, name) {
        let c = vm.type_of(v);
        if let Some(f) = crate::objects::types::class_attr(vm, &c, name) {
            return vm.call(&f, args);
        }
    }
    // The types whose methods are registered in tables (`methods!`): one lookup finds the
    // convention and the body. Names not in the table go on to the generic dunders below.
    match v {
        Value::List(l) => {
            if let Some(m) = Method::find(list::LIST, name) {
                return m.call(vm, "list", l, args);
            }
        }
        Value::Tuple(t) => {
            if let Some(m) = Method::find(list::TUPLE, name) {
                return m.call(vm, "tuple", t, args);
            }
        }
        Value::Dict(d) => {
            if let Some(m) = Method::find(dict::DICT, name) {
                return m.call(vm, "dict", d, args);
            }
        }
        Value::Set(s) if s.frozen => {
            if let Some(m) = Method::find(set::FROZENSET, name) {
                return m.call(vm, "frozenset", s, args);
            }
        }
        Value::Set(s) => {
            if let Some(m) = Method::find(set::SET, name) {
                return m.call(vm, "set", s, args);
            }
        }
        Value::Str(s) => {
            if let Some(m) = Method::find(str::STR, name) {
                return m.call(vm, "str", s, args);
            }
        }
        Value::Bytes(b) => {
            if let Some(m) = Method::find(str::BYTES, name) {
                return m.call(vm, "bytes", b, args);
            }
        }
        Value::ByteArray(b) => {
            if let Some(m) = Method::find(str::BYTEARRAY, name) {
                return m.call(vm, "bytearray", b, args);
            }
        }
        Value::Int(_) | Value::BigInt(_) | Value::Bool(_) => {
            if let Some(m) = Method::find(int::INT, name) {
                return m.call(vm, "int", v, args);
            }
        }
        Value::Float(_) => {
            if let Some(m) = Method::find(int::FLOAT, name) {
                return m.call(vm, "float", v, args);
            }
        }
        Value::Generator(g) if !g.async_gen => {
            if let Some(m) = Method::find(iter::GENERATOR, name) {
                return m.call(vm, iter::gen_type_name(g), g, args);
            }
        }
        _ => {}
    }
    if let Some((kind, _)) = vm.dict_view(v) {
        if name == "isdisjoint" && kind != 1 {
            let ty = ["dict_keys", "dict_values", "dict_items"][usize::from(kind)];
            arity::check_type(vm, ty, name, &args)?;
            // No element of the other iterable is in the view (each `in` is charged).
            let other = vm.collect(&args.pos[0])?;
            for x in &other {
                if vm.contains(v, x)? {
                    return Ok(Value::Bool(false));
                }
            }
            return Ok(Value::Bool(true));
        }
    }
    if is_generic_dunder(name) && !matches!(v, Value::Instance(_)) && !has_own_method(vm, v, name) {
        return generic_dunder(vm, v, name, &args);
    }
    match v {
        Value::Str(s) => {
            // As before the table: a str method that is not one is paid like one first.
            vm.charge(crate::cost::per_char(s.s.len()))?;
            Err(vm.attr_error(v, name))
        }
        Value::Int(_) | Value::BigInt(_) | Value::Bool(_) | Value::Float(_) => {
            Err(int::no_method(vm, v, name))
        }
        Value::Generator(g) if g.async_gen => asyncgen::call(vm, g, name, args),
        Value::Generator(_) => Err(vm.attr_error(v, name)),
        Value::Bytes(b) => {
            // As before the table: a bytes method that is not one is paid like one first.
            vm.charge(crate::cost::per_char(b.b.len()))?;
            Err(vm.attr_error(v, name))
        }
        // As before the table: paid, then the bytes method's AttributeError.
        Value::ByteArray(b) => str::via_bytes(vm, b, args, name),
        Value::Range(r) if matches!(name, "count" | "index") => {
            let [x] = args.pos.as_slice() else {
                return Err(vm.type_err(format!(
                    "range.{name}() takes exactly one argument ({} given)",
                    args.pos.len()
                )));
            };
            // Ints are found arithmetically; anything else (2.0, True …) by equality.
            let pos = match x {
                Value::Int(i) => {
                    let off = i - r.start;
                    let inside = if r.step > 0 {
                        *i >= r.start && *i < r.stop
                    } else {
                        *i <= r.start && *i > r.stop
                    };
                    (inside && off % r.step == 0).then(|| off / r.step)
                }
                _ => {
                    let n = r.len();
                    vm.charge(crate::cost::per_elem(n as usize))?;
                    let mut found = None;
                    for k in 0..n {
                        if vm.eq(&Value::Int(r.start + k * r.step), x)? {
                            found = Some(k);
                            break;
                        }
                    }
                    found
                }
            };
            match (name, pos) {
                ("count", p) => Ok(Value::Int(i64::from(p.is_some()))),
                (_, Some(k)) => Ok(Value::Int(k)),
                (_, None) => {
                    let xs = vm.repr(x)?;
                    Err(vm.value_err(format!("{xs} is not in range")))
                }
            }
        }
        Value::Slice(sl) => {
            let n = match args.pos.as_slice() {
                [n] => vm.index_of(n)?,
                _ => {
                    let msg = format!(
                        "slice.indices() takes exactly one argument ({} given)",
                        args.pos.len()
                    );
                    return Err(vm.type_err(msg));
                }
            };
            if n < 0 {
                return Err(vm.value_err("length should not be negative"));
            }
            let (start, stop, step, _) = slice_indices(vm, sl, n as usize)?;
            Ok(Value::tuple(vec![
                Value::Int(start),
                Value::Int(stop),
                Value::Int(step),
            ]))
        }
        Value::Iter(it) if asyncgen::is_step(it) => asyncgen::step_call(vm, v, it, name, args),
        Value::Iter(it) => match name {
            "__next__" => match vm.next(v)? {
                Some(x) => Ok(x),
                None => Err(vm.new_exc_noargs("StopIteration")),
            },
            "__length_hint__" => iter::length_hint(vm, it),
            _ => Ok(v.clone()),
        },
        Value::Function(_)
        | Value::ClassMethod(_)
        | Value::StaticMethod(_)
        | Value::Property(_)
            if name.starts_with("__") =>
        {
            descriptor_call(vm, v, name, args)
        }
        Value::Property(p) => {
            let f = args.pos.first().cloned().unwrap_or_default();
            let mut np = Property {
                fget: p.fget.clone(),
                fset: p.fset.clone(),
                fdel: p.fdel.clone(),
                doc: p.doc.clone(),
            };
            match name {
                "getter" => np.fget = f,
                "setter" => np.fset = f,
                _ => np.fdel = f,
            }
            Ok(Value::Property(Rc::new(np)))
        }
        Value::Instance(i) => {
            let b = i.base.borrow().clone();
            let sealed = vm.sealed_methods(v);
            if sealed.is_some_and(|ok| ok.contains(&name)) && name.starts_with("__") {
                return generic_dunder(vm, v, name, &args);
            }
            match b {
                Some(b) if sealed.is_none_or(|ok| ok.contains(&name)) => {
                    call_method(vm, &b, name, args)
                }
                _ => Err(vm.attr_error(v, name)),
            }
        }
        _ => Err(vm.attr_error(v, name)),
    }
}

/// Data attributes of builtin values (not methods).
pub fn get_attr(vm: &mut Vm, v: &Value, name: &str) -> R<Option<Value>> {
    Ok(match (v, name) {
        (Value::Range(r), "start") => Some(Value::Int(r.start)),
        (Value::Range(r), "stop") => Some(Value::Int(r.stop)),
        (Value::Range(r), "step") => Some(Value::Int(r.step)),
        (Value::Slice(s), "start") => Some(s.start.clone()),
        (Value::Slice(s), "stop") => Some(s.stop.clone()),
        (Value::Slice(s), "step") => Some(s.step.clone()),
        (Value::Int(_) | Value::BigInt(_) | Value::Bool(_), "real" | "numerator") => {
            Some(v.clone())
        }
        (Value::Int(_) | Value::BigInt(_) | Value::Bool(_), "imag") => Some(Value::Int(0)),
        (Value::Int(_) | Value::BigInt(_) | Value::Bool(_), "denominator") => Some(Value::Int(1)),
        (Value::Float(_), "real") => Some(v.clone()),
        (Value::Float(_), "imag") => Some(Value::Float(0.0)),
        (Value::Generator(g), "__name__") => Some(Value::str(&g.name)),
        _ => {
            let _ = vm;
            None
        }
    })
}

/// Normalise a (possibly negative) index for a sequence of length `n`.
pub fn norm_index(vm: &mut Vm, k: &Value, n: usize, what: &str) -> R<usize> {
    let i = match vm.index_of(k) {
        Ok(i) => i,
        Err(e)
            if vm.exc_is(&e, "TypeError")
                && !matches!(k, Value::Instance(_))
                && !matches!(what, "pop" | "index") =>
        {
            let tn = vm.type_name(k);
            let owner = match what {
                "string" => {
                    return Err(vm.type_err(format!("string indices must be integers, not '{tn}'")))
                }
                "list assignment" => "list",
                "range object" => "range",
                other => other,
            };
            return Err(vm.type_err(format!(
                "{owner} indices must be integers or slices, not {tn}"
            )));
        }
        Err(e) => return Err(e),
    };
    let j = if i < 0 { i + n as i64 } else { i };
    if j < 0 || j >= n as i64 {
        return Err(vm.new_exc("IndexError", &format!("{what} index out of range")));
    }
    Ok(j as usize)
}

/// An index object's `__index__` applied before the sequence's length is read (it may run
/// code that resizes the sequence).
fn index_first(vm: &mut Vm, k: Value) -> R<Value> {
    Ok(match &k {
        Value::Instance(_) if vm.lookup_dunder(&k, "__index__").is_some() => {
            Value::Int(vm.index_of(&k)?)
        }
        _ => k,
    })
}

/// `s` with `__index__` already applied to its parts (CPython's `PySlice_Unpack`), so that
/// resolving it afterwards against a length (`slice_indices`) runs no Python code: a mutating
/// `__index__` cannot change the length between the two.
fn unpacked_slice(vm: &mut Vm, s: &PySlice) -> R<PySlice> {
    let mut part = |v: &Value| -> R<Value> {
        Ok(match v {
            Value::Instance(_) => Value::Int(vm.index_of(v)?),
            other => other.clone(),
        })
    };
    Ok(PySlice {
        start: part(&s.start)?,
        stop: part(&s.stop)?,
        step: part(&s.step)?,
    })
}

/// Resolve a slice against length `n`: (start, stop, step, count).
pub fn slice_indices(vm: &mut Vm, s: &PySlice, n: usize) -> R<(i64, i64, i64, usize)> {
    let n = n as i64;
    let step = if s.step.is_none() {
        1
    } else {
        vm.index_of(&s.step)?
    };
    if step == 0 {
        return Err(vm.value_err("slice step cannot be zero"));
    }
    let conv = |vm: &mut Vm, v: &Value, dflt: i64| -> R<i64> {
        if v.is_none() {
            return Ok(dflt);
        }
        let i = match v {
            Value::BigInt(b) => {
                if num_traits::Signed::is_negative(&**b) {
                    i64::MIN / 2
                } else {
                    i64::MAX / 2
                }
            }
            _ => vm.index_of(v)?,
        };
        Ok(i)
    };
    let (lo, hi) = if step < 0 { (-1, n - 1) } else { (0, n) };
    let clamp = |i: i64| -> i64 {
        if i < 0 {
            (i + n).max(lo)
        } else {
            i.min(hi)
        }
    };
    let start = clamp(conv(vm, &s.start, if step < 0 { hi } else { lo })?);
    let start = if s.start.is_none() {
        if step < 0 {
            hi
        } else {
            lo
        }
    } else {
        start
    };
    let stop = if s.stop.is_none() {
        if step < 0 {
            lo
        } else {
            hi
        }
    } else {
        clamp(conv(vm, &s.stop, 0)?)
    };
    let count = if step > 0 {
        if stop > start {
            ((stop - start - 1) / step + 1) as usize
        } else {
            0
        }
    } else if start > stop {
        ((start - stop - 1) / (-step) + 1) as usize
    } else {
        0
    };
    Ok((start, stop, step, count))
}

fn slice_vec<T: Clone>(items: &[T], start: i64, step: i64, count: usize) -> Vec<T> {
    let mut out = Vec::with_capacity(count);
    let mut i = start;
    for _ in 0..count {
        if let Some(x) = items.get(i as usize) {
            out.push(x.clone());
        }
        i += step;
    }
    out
}

/// `o[k]`.
pub fn getitem(vm: &mut Vm, o: &Value, k: &Value) -> R<Value> {
    match (o, k) {
        (Value::List(l), Value::Int(i)) => {
            let items = l.items.borrow();
            let n = items.len() as i64;
            let j = if *i < 0 { i + n } else { *i };
            if j < 0 || j >= n {
                drop(items);
                return Err(vm.new_exc("IndexError", "list index out of range"));
            }
            Ok(items[j as usize].clone())
        }
        (Value::List(l), Value::Slice(s)) => {
            let n = l.items.borrow().len();
            let (start, _, step, count) = slice_indices(vm, s, n)?;
            vm.charge(crate::cost::per_elem(count))?;
            let v = slice_vec(&l.items.borrow(), start, step, count);
            Ok(Value::list(v))
        }
        (Value::Tuple(t), Value::Slice(s)) => {
            let (start, _, step, count) = slice_indices(vm, s, t.items.len())?;
            vm.charge(crate::cost::per_elem(count))?;
            Ok(Value::tuple(slice_vec(&t.items, start, step, count)))
        }
        (Value::Tuple(t), Value::Int(i))
            if (-(t.items.len() as i64)..t.items.len() as i64).contains(i) =>
        {
            let n = t.items.len() as i64;
            Ok(t.items[(if *i < 0 { i + n } else { *i }) as usize].clone())
        }
        (Value::Tuple(t), _) => {
            let i = norm_index(vm, k, t.items.len(), "tuple")?;
            Ok(t.items[i].clone())
        }
        (Value::List(l), _) => {
            let n = l.items.borrow().len();
            let i = norm_index(vm, k, n, "list")?;
            Ok(l.items.borrow()[i].clone())
        }
        (Value::Str(s), Value::Slice(sl)) => {
            let (start, _, step, count) = slice_indices(vm, sl, s.len)?;
            vm.charge(crate::cost::per_char(count))?;
            if step == 1 {
                // Through the offset marks: no walk from the start of a non-ASCII string.
                let st = start as usize;
                let (b0, b1) = (s.byte_offset(st), s.byte_offset(st + count));
                return Ok(Value::str(&s.s[b0..b1]));
            }
            if s.ascii {
                let b = s.s.as_bytes();
                let v: String = slice_vec(b, start, step, count)
                    .into_iter()
                    .map(char::from)
                    .collect();
                return Ok(Value::str(&v));
            }
            if count == 0 {
                return Ok(Value::str(""));
            }
            // Non-ASCII with a step: decode only the chars between the first and the last
            // index taken (found through the offset marks), and pay for them.
            let last = start + step * (count as i64 - 1);
            let (lo, hi) = (start.min(last) as usize, start.max(last) as usize + 1);
            vm.charge(crate::cost::per_char((hi - lo).saturating_sub(count)))?;
            let chars: Vec<char> = s.s[s.byte_offset(lo)..s.byte_offset(hi)].chars().collect();
            let v: String = slice_vec(&chars, start - lo as i64, step, count)
                .into_iter()
                .collect();
            Ok(Value::str(&v))
        }
        (Value::Str(s), _) => {
            let i = norm_index(vm, k, s.len, "string")?;
            let c = s.char_at(i).unwrap_or(' ');
            Ok(Value::str(c.encode_utf8(&mut [0; 4])))
        }
        (Value::Bytes(b), Value::Slice(sl)) => {
            let (start, _, step, count) = slice_indices(vm, sl, b.b.len())?;
            Ok(Value::bytes(slice_vec(&b.b, start, step, count)))
        }
        (Value::Bytes(b), _) => {
            let i = norm_index(vm, k, b.b.len(), "index")?;
            Ok(Value::Int(b.b[i] as i64))
        }
        (Value::ByteArray(b), Value::Slice(sl)) => {
            let n = b.b.borrow().len();
            let (start, _, step, count) = slice_indices(vm, sl, n)?;
            vm.charge(crate::cost::per_char(count))?;
            let v = slice_vec(&b.b.borrow(), start, step, count);
            Ok(Value::ByteArray(Rc::new(PyByteArray::new(v))))
        }
        (Value::ByteArray(b), _) => {
            let n = b.b.borrow().len();
            let i = norm_index(vm, k, n, "bytearray")?;
            Ok(Value::Int(b.b.borrow()[i] as i64))
        }
        (Value::Range(r), Value::Slice(sl)) => {
            let n = r.len() as usize;
            let (start, _, step, count) = slice_indices(vm, sl, n)?;
            let st = r.start + start * r.step;
            let sp = r.step * step;
            Ok(Value::Range(Rc::new(PyRange {
                start: st,
                stop: st + sp * count as i64,
                step: sp,
            })))
        }
        (Value::Range(r), _) => {
            let i = norm_index(vm, k, r.len() as usize, "range object")?;
            Ok(Value::Int(r.start + r.step * i as i64))
        }
        (Value::Dict(d), _) => match vm.dict_get(d, k)? {
            Some(v) => Ok(v),
            None => Err(key_error(vm, k)),
        },
        (Value::Instance(i), _) => {
            if let Some(r) = vm.call_dunder(o, "__getitem__", vec![k.clone()])? {
                return Ok(r);
            }
            let b = if vm.dict_view(o).is_some() {
                None
            } else {
                i.base.borrow().clone()
            };
            if let Some(b) = b {
                if let Value::Dict(d) = &b {
                    if let Some(v) = vm.dict_get(d, k)? {
                        return Ok(v);
                    }
                    if let Some(r) = vm.call_dunder(o, "__missing__", vec![k.clone()])? {
                        return Ok(r);
                    }
                    return Err(key_error(vm, k));
                }
                return getitem(vm, &b, k);
            }
            Err(vm.type_err(format!("'{}' object is not subscriptable", vm.type_name(o))))
        }
        (Value::Class(_), _) if vm.lookup_dunder(o, "__getitem__").is_some() => Ok(vm
            .call_dunder(o, "__getitem__", vec![k.clone()])?
            .unwrap_or_default()),
        (Value::Class(c), _) => {
            // Generic aliases like list[int] in annotations evaluate to the class itself.
            if let Some(m) = c.lookup_static("__class_getitem__") {
                let f = match m {
                    Value::ClassMethod(w) => w.0.clone(),
                    other => other,
                };
                return vm.call(&f, Args::new(vec![o.clone(), k.clone()]));
            }
            if genericalias::is_generic_builtin(vm, c) {
                return Ok(genericalias::new(vm, o.clone(), k));
            }
            Ok(o.clone())
        }
        _ => Err(vm.type_err(format!("'{}' object is not subscriptable", vm.type_name(o)))),
    }
}

/// `KeyError(k)`.
pub(crate) fn key_error(vm: &mut Vm, k: &Value) -> crate::vm::Exc {
    let cls = vm.types.exc["KeyError"].clone();
    crate::vm::Exc::Py(vm.make_exc(&cls, vec![k.clone()]))
}

/// `o[k] = v`.
pub fn setitem(vm: &mut Vm, o: &Value, k: Value, v: Value) -> R<()> {
    match o {
        Value::List(l) => {
            if let Value::Slice(s) = &k {
                let s = unpacked_slice(vm, s)?;
                let n = l.items.borrow().len();
                let (start, stop, step, count) = slice_indices(vm, &s, n)?;
                let new = match vm.collect(&v) {
                    Ok(new) => new,
                    Err(e) if vm.exc_is(&e, "TypeError") && vm.not_iterable(&v) => {
                        return Err(vm.type_err("can only assign an iterable"))
                    }
                    Err(e) => return Err(e),
                };
                // Iterating the value may have run code that resized the list: clamp the
                // slice to the list as it is now, as CPython's list_ass_slice does.
                let now = l.items.borrow().len();
                if step != 1 && now != n {
                    return Err(vm.value_err("list changed size during extended slice assignment"));
                }
                let start = (start.max(0) as usize).min(now);
                let stop = (stop.max(0) as usize).clamp(start, now);
                let count = if step == 1 { stop - start } else { count };
                // A resize also moves every element after the slice.
                let moved = if step == 1 && new.len() != count {
                    now - stop
                } else {
                    0
                };
                vm.charge(crate::cost::per_elem(new.len() + count + moved))?;
                if step == 1 {
                    l.items.borrow_mut().splice(start..stop, new);
                } else {
                    let start = start as i64;
                    if new.len() != count {
                        return Err(vm.value_err(format!(
                            "attempt to assign sequence of size {} to extended slice of size {}",
                            new.len(),
                            count
                        )));
                    }
                    let mut i = start;
                    for x in new {
                        l.items.borrow_mut()[i as usize] = x;
                        i += step;
                    }
                }
                l.touch();
                return Ok(());
            }
            let k = index_first(vm, k)?;
            let n = l.items.borrow().len();
            let i = norm_index(vm, &k, n, "list assignment")?;
            l.items.borrow_mut()[i] = v;
            Ok(())
        }
        Value::Dict(d) => vm.dict_set(d, k, v),
        Value::ByteArray(b) => {
            let k = index_first(vm, k)?;
            let k = match &k {
                Value::Slice(s) => Value::Slice(Rc::new(unpacked_slice(vm, s)?)),
                _ => k,
            };
            let n = b.b.borrow().len();
            if let Value::Slice(s) = &k {
                let (start, stop, step, count) = slice_indices(vm, s, n)?;
                let new: Vec<u8> = match &v {
                    Value::Bytes(x) => x.b.to_vec(),
                    Value::ByteArray(x) => x.b.borrow().clone(),
                    Value::Str(_) | Value::Int(_) | Value::Bool(_) | Value::BigInt(_) => {
                        return Err(vm.type_err(
                            "can assign only bytes, buffers, or iterables of ints in range(0, 256)",
                        ))
                    }
                    other => {
                        let items = vm.collect(other)?;
                        let mut out = Vec::with_capacity(items.len());
                        for x in &items {
                            out.push(byte_value(vm, x)?);
                        }
                        out
                    }
                };
                // Iterating the value may have resized the bytearray (see the list case).
                let now = b.b.borrow().len();
                if step != 1 && now != n {
                    return Err(
                        vm.value_err("bytearray changed size during extended slice assignment")
                    );
                }
                let start = (start.max(0) as usize).min(now);
                let stop = (stop.max(0) as usize).clamp(start, now);
                let count = if step == 1 { stop - start } else { count };
                let moved = if step == 1 && new.len() != count {
                    now - stop
                } else {
                    0
                };
                vm.charge(crate::cost::per_char(new.len() + count + moved))?;
                if step == 1 {
                    b.b.borrow_mut().splice(start..stop, new);
                } else {
                    let start = start as i64;
                    if new.len() != count {
                        return Err(vm.value_err(format!(
                            "attempt to assign bytes of size {} to extended slice of size {}",
                            new.len(),
                            count
                        )));
                    }
                    let mut i = start;
                    for x in new {
                        b.b.borrow_mut()[i as usize] = x;
                        i += step;
                    }
                }
                b.touch();
                return Ok(());
            }
            let i = norm_index(vm, &k, n, "bytearray")?;
            let x = byte_value(vm, &v)?;
            // The value's `__index__` may have shrunk the bytearray.
            match b.b.borrow_mut().get_mut(i) {
                Some(slot) => *slot = x,
                None => return Err(vm.new_exc("IndexError", "bytearray index out of range")),
            }
            Ok(())
        }
        Value::Instance(i) => {
            if vm
                .call_dunder(o, "__setitem__", vec![k.clone(), v.clone()])?
                .is_some()
            {
                return Ok(());
            }
            let b = i.base.borrow().clone();
            match b {
                Some(b) if vm.sealed_methods(o).is_none() => setitem(vm, &b, k, v),
                _ => Err(vm.type_err(format!(
                    "'{}' object does not support item assignment",
                    vm.type_name(o)
                ))),
            }
        }
        _ => Err(vm.type_err(format!(
            "'{}' object does not support item assignment",
            vm.type_name(o)
        ))),
    }
}

/// `del o[k]`.
pub fn delitem(vm: &mut Vm, o: &Value, k: Value) -> R<()> {
    match o {
        Value::List(l) => {
            if let Value::Slice(s) = &k {
                let s = unpacked_slice(vm, s)?;
                let n = l.items.borrow().len();
                let (start, _, step, count) = slice_indices(vm, &s, n)?;
                if count == 0 {
                    return Ok(());
                }
                // The deleted indexes as lo, lo + st, …, hi (st > 0). Everything from lo on is
                // moved or dropped once, in one pass; that is charged first.
                let (lo, st) = if step > 0 {
                    (start as usize, step as usize)
                } else {
                    (
                        (start + (count as i64 - 1) * step) as usize,
                        step.unsigned_abs() as usize,
                    )
                };
                vm.charge(crate::cost::per_elem(n - lo))?;
                let hi = lo + (count - 1) * st;
                let mut items = l.items.borrow_mut();
                if st == 1 {
                    items.drain(lo..=hi);
                } else {
                    let mut w = lo;
                    for r in lo..n {
                        if r <= hi && (r - lo) % st == 0 {
                            continue;
                        }
                        items.swap(w, r);
                        w += 1;
                    }
                    items.truncate(w);
                }
                drop(items);
                l.touch();
                return Ok(());
            }
            let k = index_first(vm, k)?;
            let n = l.items.borrow().len();
            let i = norm_index(vm, &k, n, "list assignment")?;
            // The items after `i` shift down one: paid, as `pop(i)` pays.
            vm.charge(crate::cost::per_elem(n - i))?;
            l.items.borrow_mut().remove(i);
            l.touch();
            Ok(())
        }
        Value::ByteArray(b) => {
            if let Value::Slice(s) = &k {
                let s = unpacked_slice(vm, s)?;
                let n = b.b.borrow().len();
                let (start, _, step, count) = slice_indices(vm, &s, n)?;
                vm.charge(crate::cost::per_char(n))?;
                let mut gone = vec![false; n];
                for j in 0..count {
                    gone[(start + j as i64 * step) as usize] = true;
                }
                let mut i = 0;
                b.b.borrow_mut().retain(|_| {
                    i += 1;
                    !gone[i - 1]
                });
            } else {
                let k = index_first(vm, k)?;
                let n = b.b.borrow().len();
                let i = norm_index(vm, &k, n, "bytearray")?;
                // The bytes after `i` shift down one: paid (unpaid, `del ba[0]` on 1 MB ran at
                // 75x the plain loop per cycle).
                vm.charge(crate::cost::per_char(n - i))?;
                b.b.borrow_mut().remove(i);
            }
            b.touch();
            Ok(())
        }
        Value::Dict(d) => match vm.dict_del(d, &k)? {
            Some(_) => Ok(()),
            None => Err(key_error(vm, &k)),
        },
        Value::Instance(i) => {
            if vm.call_dunder(o, "__delitem__", vec![k.clone()])?.is_some() {
                return Ok(());
            }
            let b = i.base.borrow().clone();
            match b {
                Some(b) if vm.sealed_methods(o).is_none() => delitem(vm, &b, k),
                _ => Err(vm.type_err(format!(
                    "'{}' object doesn't support item deletion",
                    vm.type_name(o)
                ))),
            }
        }
        _ => Err(vm.type_err(format!(
            "'{}' object doesn't support item deletion",
            vm.type_name(o)
        ))),
    }
}

/// `__get__`/`__set__`/`__delete__` of the builtin descriptor types.
fn descriptor_call(vm: &mut Vm, v: &Value, name: &str, args: Args) -> R<Value> {
    let obj = args.pos.first().cloned().unwrap_or_default();
    let owner = args.pos.get(1).cloned().unwrap_or_default();
    match (v, name) {
        (Value::Function(_), "__get__") => Ok(if obj.is_none() {
            v.clone()
        } else {
            Value::BoundMethod(Rc::new(BoundMethod {
                receiver: obj,
                func: v.clone(),
            }))
        }),
        (Value::StaticMethod(w), "__get__") => Ok(w.0.clone()),
        (Value::ClassMethod(w), "__get__") => {
            let cls = if owner.is_none() {
                Value::Class(vm.type_of(&obj))
            } else {
                owner
            };
            Ok(Value::BoundMethod(Rc::new(BoundMethod {
                receiver: cls,
                func: w.0.clone(),
            })))
        }
        (Value::Property(p), "__get__") => {
            if obj.is_none() {
                return Ok(v.clone());
            }
            let g = p.fget.clone();
            vm.call(&g, Args::new(vec![obj]))
        }
        (Value::Property(p), "__set__") => {
            let val = args.pos.get(1).cloned().unwrap_or_default();
            let s = p.fset.clone();
            if s.is_none() {
                return Err(vm.new_exc("AttributeError", "can't set attribute"));
            }
            vm.call(&s, Args::new(vec![obj, val]))
        }
        (Value::Property(p), "__delete__") => {
            let d = p.fdel.clone();
            if d.is_none() {
                return Err(vm.new_exc("AttributeError", "can't delete attribute"));
            }
            vm.call(&d, Args::new(vec![obj]))
        }
        _ => Err(vm.attr_error(v, name)),
    }
}

/// An int stored into a bytearray: `ValueError` outside `range(0, 256)`, as CPython.
fn byte_value(vm: &mut Vm, v: &Value) -> R<u8> {
    match vm.index_of(v) {
        Ok(x) => u8::try_from(x).map_err(|_| vm.value_err("byte must be in range(0, 256)")),
        Err(e) if matches!(v, Value::BigInt(_)) && vm.exc_is(&e, "IndexError") => {
            Err(vm.value_err("byte must be in range(0, 256)"))
        }
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The names of `table`, each once (a second row of one name would never be found).
    fn distinct<T>(what: &str, table: &[Method<T>]) {
        let mut seen = std::collections::BTreeSet::new();
        for m in table {
            assert!(seen.insert(m.name), "{what} has two rows named {}", m.name);
        }
    }

    #[test]
    fn every_method_is_registered_once() {
        distinct("str", str::STR);
        distinct("bytes", str::BYTES);
        distinct("bytearray", str::BYTEARRAY);
        distinct("list", list::LIST);
        distinct("tuple", list::TUPLE);
        distinct("dict", dict::DICT);
        distinct("set", set::SET);
        distinct("frozenset", set::FROZENSET);
        distinct("int", int::INT);
        distinct("float", int::FLOAT);
    }

    #[test]
    fn bytearray_has_every_bytes_method_with_its_convention() {
        for m in str::BYTES {
            let Some(b) = Method::find(str::BYTEARRAY, m.name) else {
                panic!("bytearray lacks bytes.{}", m.name);
            };
            assert_eq!(
                b.arity, m.arity,
                "bytearray.{} and bytes.{}",
                m.name, m.name
            );
        }
    }
}
