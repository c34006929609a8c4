//! `types.GenericAlias` (PEP 585): what `list[int]`, `dict[str, int]`, `tuple[int, ...]`,
//! `type[C]` … evaluate to. An instance of `vm.types.generic_alias` carrying its `__origin__`
//! and `__args__` ([`Ga`]); it prints as CPython's, compares and hashes by origin and args,
//! calls its origin, is a base class through `__mro_entries__`, joins `X | Y` unions, forwards
//! other attributes to the origin, and cannot be the second argument of `isinstance`.

use super::native_type::{builtin, getter, state};
use crate::value::{Class, Value};
use crate::vm::{Args, Vm, R};
use std::rc::Rc;

/// The state of a generic alias.
#[derive(Debug)]
pub struct Ga {
    /// The subscripted class.
    pub origin: Value,
    /// The subscript, always a tuple.
    pub args: Value,
}

/// The classes whose subscription makes a generic alias: `type` and the builtin containers
/// with their subclasses (their `__class_getitem__` is inherited in CPython).
pub fn is_generic_builtin(vm: &Vm, c: &Rc<Class>) -> bool {
    let t = &vm.types;
    Rc::ptr_eq(c, &t.type_)
        || [&t.list, &t.dict, &t.tuple, &t.set, &t.frozenset]
            .iter()
            .any(|x| c.is_subclass(x))
}

/// Is `v` a generic alias?
pub fn is_alias(v: &Value) -> bool {
    state::<Ga>(v).is_some()
}

/// `origin[args]`.
pub fn new(vm: &Vm, origin: Value, args: &Value) -> Value {
    let args = match args {
        Value::Tuple(_) => args.clone(),
        other => Value::tuple(vec![other.clone()]),
    };
    super::native_type::new_obj(&vm.types.generic_alias, Ga { origin, args })
}

/// Fill the `GenericAlias` class (once per VM, from `builtins::install`).
pub fn install(types: &crate::vm::Types) {
    // `X | Y` unions are `types.UnionType`, equal and hashed as the set of their members.
    {
        let u = types.union.clone();
        let mut d = u.dict_mut();
        d.insert("__module__".into(), Value::str("types"));
        d.insert("__eq__".into(), builtin("__eq__", union_eq));
        d.insert("__hash__".into(), builtin("__hash__", union_hash));
    }
    let c = types.generic_alias.clone();
    let mut d = c.dict_mut();
    d.insert("__module__".into(), Value::str("types"));
    d.insert("__origin__".into(), getter(ga_origin));
    d.insert("__args__".into(), getter(ga_args));
    d.insert("__parameters__".into(), getter(ga_parameters));
    d.insert(
        "__new__".into(),
        Value::StaticMethod(Rc::new(crate::value::Wrapped(builtin("__new__", ga_new)))),
    );
    for (n, f) in [
        ("__repr__", ga_repr as super::native_type::Body),
        ("__eq__", ga_eq),
        ("__hash__", ga_hash),
        ("__call__", ga_call),
        ("__mro_entries__", ga_mro_entries),
        ("__or__", ga_or),
        ("__ror__", ga_ror),
        ("__getattr__", ga_getattr),
    ] {
        d.insert(n.into(), builtin(n, f));
    }
}

/// `GenericAlias(origin, args)` (what `__class_getitem__ = classmethod(GenericAlias)` calls).
fn ga_new(vm: &mut Vm, a: Args) -> R<Value> {
    if !a.kw.is_empty() {
        return Err(vm.type_err("GenericAlias() takes no keyword arguments"));
    }
    let [_, origin, args] = a.pos.as_slice() else {
        let n = a.pos.len().saturating_sub(1);
        return Err(vm.type_err(format!("GenericAlias expected 2 arguments, got {n}")));
    };
    Ok(new(vm, origin.clone(), args))
}

fn parts(vm: &mut Vm, a: &Args, what: &str) -> R<(Value, Value)> {
    let v = a.pos.first().cloned().unwrap_or_default();
    let p = state::<Ga>(&v).map(|g| (g.origin.clone(), g.args.clone()));
    match p {
        Some(p) => Ok(p),
        None => Err(super::native_type::wrong_self(vm, &v, "GenericAlias", what)),
    }
}

fn ga_origin(vm: &mut Vm, a: Args) -> R<Value> {
    Ok(parts(vm, &a, "__origin__")?.0)
}

fn ga_args(vm: &mut Vm, a: Args) -> R<Value> {
    Ok(parts(vm, &a, "__args__")?.1)
}

fn ga_parameters(vm: &mut Vm, a: Args) -> R<Value> {
    parts(vm, &a, "__parameters__")?;
    Ok(Value::tuple(Vec::new()))
}

/// A type as `GenericAlias.__repr__` shows it: `int`, `mod.C`, `...`, nested aliases.
fn type_repr(vm: &mut Vm, v: &Value) -> R<String> {
    match v {
        Value::Ellipsis => Ok("...".into()),
        Value::Class(c) => {
            let module = match c.dict.borrow().get("__module__") {
                Some(Value::Str(s)) => s.s.to_string(),
                _ => "builtins".into(),
            };
            let q = c.qualname.borrow().to_string();
            Ok(if module == "builtins" {
                q
            } else {
                format!("{module}.{q}")
            })
        }
        other => vm.repr(other),
    }
}

fn ga_repr(vm: &mut Vm, a: Args) -> R<Value> {
    let (origin, args) = parts(vm, &a, "__repr__")?;
    let items = match &args {
        Value::Tuple(t) => t.items.to_vec(),
        _ => Vec::new(),
    };
    vm.charge(crate::cost::per_elem(items.len()))?;
    vm.enter()?;
    let mut out = Vec::with_capacity(items.len());
    for x in &items {
        match type_repr(vm, x) {
            Ok(s) => out.push(s),
            Err(e) => {
                vm.leave();
                return Err(e);
            }
        }
    }
    vm.leave();
    let inner = if items.is_empty() {
        "()".to_string()
    } else {
        out.join(", ")
    };
    let o = type_repr(vm, &origin)?;
    Ok(Value::str(&format!("{o}[{inner}]")))
}

fn ga_eq(vm: &mut Vm, a: Args) -> R<Value> {
    let (origin, args) = parts(vm, &a, "__eq__")?;
    let other = a.pos.get(1).cloned().unwrap_or_default();
    let Some((o2, a2)) = state::<Ga>(&other).map(|g| (g.origin.clone(), g.args.clone())) else {
        return Ok(Value::NotImplemented);
    };
    Ok(Value::Bool(vm.eq(&origin, &o2)? && vm.eq(&args, &a2)?))
}

fn ga_hash(vm: &mut Vm, a: Args) -> R<Value> {
    let (origin, args) = parts(vm, &a, "__hash__")?;
    let h = vm.hash(&origin)? ^ vm.hash(&args)?;
    Ok(Value::Int(h as i64))
}

fn ga_call(vm: &mut Vm, mut a: Args) -> R<Value> {
    let (origin, _) = parts(vm, &a, "__call__")?;
    a.pos.remove(0);
    vm.call(&origin, a)
}

fn ga_mro_entries(vm: &mut Vm, a: Args) -> R<Value> {
    let (origin, _) = parts(vm, &a, "__mro_entries__")?;
    Ok(Value::tuple(vec![origin]))
}

fn ga_or(vm: &mut Vm, a: Args) -> R<Value> {
    let this = a.pos.first().cloned().unwrap_or_default();
    let other = a.pos.get(1).cloned().unwrap_or_default();
    union(vm, &this, &other)
}

fn ga_ror(vm: &mut Vm, a: Args) -> R<Value> {
    let this = a.pos.first().cloned().unwrap_or_default();
    let other = a.pos.get(1).cloned().unwrap_or_default();
    union(vm, &other, &this)
}

fn union(vm: &mut Vm, l: &Value, r: &Value) -> R<Value> {
    let ok = |vm: &Vm, v: &Value| {
        matches!(v, Value::Class(_) | Value::None) || is_alias(v) || vm.is_union(v)
    };
    if !ok(vm, l) || !ok(vm, r) {
        return Ok(Value::NotImplemented);
    }
    vm.make_union(l, r)
}

/// Other attributes are the origin's (`list[int].__name__` is `'list'`).
fn ga_getattr(vm: &mut Vm, a: Args) -> R<Value> {
    let (origin, _) = parts(vm, &a, "__getattr__")?;
    let name = match a.pos.get(1) {
        Some(Value::Str(s)) => s.s.to_string(),
        _ => return Err(vm.type_err("attribute name must be string")),
    };
    // CPython's `attr_exceptions`: these are never the origin's.
    if matches!(
        name.as_str(),
        "__class__"
            | "__origin__"
            | "__args__"
            | "__parameters__"
            | "__mro_entries__"
            | "__reduce_ex__"
            | "__reduce__"
            | "__copy__"
            | "__deepcopy__"
    ) {
        let this = a.pos[0].clone();
        return Err(vm.attr_error(&this, &name));
    }
    vm.getattr(&origin, &name)
}

fn union_args(vm: &mut Vm, v: &Value) -> R<Option<Vec<Value>>> {
    if !vm.is_union(v) {
        return Ok(None);
    }
    Ok(match vm.getattr(v, "__args__")? {
        Value::Tuple(t) => Some(t.items.to_vec()),
        _ => Some(Vec::new()),
    })
}

fn union_eq(vm: &mut Vm, a: Args) -> R<Value> {
    let this = a.pos.first().cloned().unwrap_or_default();
    let other = a.pos.get(1).cloned().unwrap_or_default();
    let (Some(x), Some(y)) = (union_args(vm, &this)?, union_args(vm, &other)?) else {
        return Ok(Value::NotImplemented);
    };
    let (sx, sy) = (vm.new_set(x, true)?, vm.new_set(y, true)?);
    Ok(Value::Bool(vm.eq(&sx, &sy)?))
}

fn union_hash(vm: &mut Vm, a: Args) -> R<Value> {
    let this = a.pos.first().cloned().unwrap_or_default();
    let x = union_args(vm, &this)?.unwrap_or_default();
    let s = vm.new_set(x, true)?;
    Ok(Value::Int(vm.hash(&s)? as i64))
}
