//! `_dataclasses`: the per-instance work of the methods `dataclasses` generates
//! (`src/stdlib/python/dataclasses.py`). CPython's `dataclasses` compiles a method per class
//! with `exec` (`return (self.a, self.b) == (other.a, other.b)`); the PVM has no `exec`, so its
//! methods are closures over the field names, and these two functions do their loops over
//! the names in Rust instead of a Python generator or loop (about three times the
//! instructions, and most of a dataclass program's time):
//!
//! - `attrs(obj, names)` → `tuple(getattr(obj, n) for n in names)`, what `__eq__`, the
//!   ordering methods and `__hash__` compare and hash;
//! - `assign(obj, names, values, frozen)` → `setattr(obj, n, v)` for each pair (with
//!   `object.__setattr__` when `frozen`, as a frozen class's `__init__` must bypass its own
//!   `__setattr__`), what `__init__` does with its arguments.
//!
//! Each attribute read or store is the VM's own (`Vm::getattr`, `Vm::setattr`,
//! `Vm::generic_setattr`): descriptors, `__getattr__` and user `__setattr__` behave exactly as
//! from Python. Metering: each pays for copying its arguments (`Vm::collect`, per element) and
//! `cost::CALL` per name, what the `getattr`/`setattr` call it replaces pays, before its
//! lookups, which charge as they always do.
//!
//! `attrs` remembers, per names tuple (a method's closure passes the same tuple on every
//! call) and per name, what `getattr` found for the last class it read (`Reads`): whether a
//! value in the instance dict wins, the price of the class lookup's walk, and the position
//! the name was last found at in an instance dict. A read whose class, class epoch and dict
//! entry (checked by key identity) match is answered from that entry and owes what `getattr`
//! owes for the same answer (the walk's price and the probes of the walk to the entry); any
//! other read takes `getattr` and refreshes the memory without owing anything more. So the
//! answers and the charges are `getattr`'s; only the instructions spent finding them differ.

use super::builtin;
use crate::cost;
use crate::value::*;
use crate::vm::{Args, Vm, R};
use std::cell::Cell;
use std::rc::{Rc, Weak};

/// The items of an argument: the field names a generated method passes, or the values
/// `__init__` received (its `*args` tuple, or a list it built). `Vm::collect` pays for the copy
/// per element, after a memory check, before making it.
fn items(vm: &mut Vm, v: Option<&Value>) -> R<Vec<Value>> {
    vm.collect(v.unwrap_or(&Value::None))
}

/// `attrs(obj, names)`: the tuple of `obj`'s attributes `names`, in order.
fn f_attrs(vm: &mut Vm, a: Args) -> R<Value> {
    let obj = a.pos.first().cloned().unwrap_or_default();
    if let (Value::Instance(inst), Some(Value::Tuple(names))) = (&obj, a.pos.get(1)) {
        if names.items.len() <= READ_NAMES {
            return attrs_of_instance(vm, &obj, inst, names);
        }
    }
    let names = items(vm, a.pos.get(1))?;
    vm.charge(cost::CALL.saturating_mul(names.len() as u64))?;
    let mut out = Vec::with_capacity(names.len());
    for n in &names {
        let Value::Str(n) = n else {
            return Err(vm.type_err("attribute name must be string"));
        };
        out.push(vm.getattr_str(&obj, n)?);
    }
    Ok(Value::tuple(out))
}

/// What `attrs` remembers about one name of a names tuple, for the last class it read the
/// name from (see the module doc).
#[derive(Default)]
struct Read {
    /// That class, held so that no other class can be allocated at the address `seen` names.
    class: std::cell::RefCell<Weak<Class>>,
    /// The class's address and the class epoch the facts below are for (0: none yet).
    seen: Cell<(usize, u64)>,
    /// A value in the instance dict is the answer (the class holds no data descriptor of the
    /// name, and the name is not one `getattr` answers before the dict).
    dict_load: Cell<bool>,
    /// What the class lookup owes for its walk (`value::mro_walk_cycles`).
    walk: Cell<u64>,
    /// Where the name was last found in an instance dict.
    hint: Cell<u32>,
}

/// The [`Read`]s of each names tuple `attrs` has read with, the tuple held weakly so that its
/// address names it alone while remembered. Few: one or two tuples per dataclass.
#[derive(Default)]
struct Reads(std::cell::RefCell<Vec<TupleReads>>);

/// A names tuple (held weakly) and the [`Read`] of each of its names.
type TupleReads = (Weak<PyTuple>, Rc<[Read]>);

/// Names tuples remembered before starting over.
const READS: usize = 64;

/// The longest names tuple remembered (a longer one takes the general path): the memory is
/// outside the program's accounting, so it is bounded by these two, at most `READS *
/// READ_NAMES` [`Read`]s (about 200 KB), whatever tuples a program passes.
const READ_NAMES: usize = 64;

/// The [`Read`]s for `names`, made empty at its first use.
fn reads_for(vm: &mut Vm, names: &Rc<PyTuple>) -> Rc<[Read]> {
    let state = vm
        .dataclass_reads
        .get_or_insert_with(|| Rc::new(Reads::default()))
        .clone();
    let Some(reads) = state.downcast_ref::<Reads>() else {
        unreachable!("dataclass_reads holds only Reads");
    };
    let mut all = reads.0.borrow_mut();
    if let Some((_, r)) = all
        .iter()
        .find(|(t, _)| std::ptr::eq(t.as_ptr(), Rc::as_ptr(names)))
    {
        return r.clone();
    }
    if all.len() == READS {
        all.clear();
    }
    let r: Rc<[Read]> = names.items.iter().map(|_| Read::default()).collect();
    all.push((Rc::downgrade(names), r.clone()));
    r
}

impl Read {
    /// `inst`'s attribute `name` from the remembered dict entry, owing what `getattr` owes
    /// for it; `None` when the memory does not answer for this instance.
    #[inline]
    fn answer(&self, inst: &Instance, name: &Rc<PyStr>) -> Option<Value> {
        let cls = Rc::as_ptr(&inst.class.borrow()) as usize;
        if self.seen.get() != (cls, class_epoch()) || !self.dict_load.get() {
            return None;
        }
        let t = inst.dict.table.borrow();
        let Some(Some(e)) = t.entries.get(self.hint.get() as usize) else {
            return None;
        };
        if !matches!(&e.key, Value::Str(k) if k.same_text(name)) {
            return None;
        }
        crate::memory::owe(self.walk.get());
        owe_probes(u64::from(e.probes()));
        Some(e.value.clone())
    }

    /// Remember what a `getattr` of `name` on `inst` just did, owing nothing: the facts of
    /// its class (if not already those) and where `name` sits in its dict.
    #[cold]
    fn learn(&self, inst: &Instance, name: &Rc<PyStr>) {
        crate::memory::unaccounted(|| {
            let cls = inst.cls();
            let seen = (Rc::as_ptr(&cls) as usize, class_epoch());
            if self.seen.get() != seen {
                let (found, walk) = cls.lookup_walk(&name.s);
                let data = matches!(found, Some(Value::Property(_) | Value::Instance(_)));
                let special = name.s.starts_with("__") || &*name.s == "isdisjoint";
                self.dict_load.set(!data && !special);
                self.walk.set(mro_walk_cycles(walk, name.s.len()));
                *self.class.borrow_mut() = Rc::downgrade(&cls);
                self.seen.set(seen);
            }
            if let Some(i) = PyDict::find_name(&inst.dict.table.borrow(), name) {
                self.hint.set(i as u32);
            }
        })
    }
}

/// [`f_attrs`] of an instance by a names tuple: each read answered from its [`Read`] where
/// that holds, else by `getattr`. Charged as the general path: the copy of the names and
/// `cost::CALL` per name, then each lookup's own charges.
fn attrs_of_instance(vm: &mut Vm, obj: &Value, inst: &Instance, names: &Rc<PyTuple>) -> R<Value> {
    let n = names.items.len();
    vm.charge(cost::per_elem(n))?;
    vm.reserve((n as u64).saturating_mul(crate::memory::SLOT as u64))?;
    vm.charge(cost::CALL.saturating_mul(n as u64))?;
    let reads = reads_for(vm, names);
    let mut out = Vec::with_capacity(n);
    for (name, read) in names.items.iter().zip(reads.iter()) {
        let Value::Str(name) = name else {
            return Err(vm.type_err("attribute name must be string"));
        };
        match read.answer(inst, name) {
            Some(v) => out.push(v),
            None => {
                out.push(vm.getattr_str(obj, name)?);
                read.learn(inst, name);
            }
        }
    }
    Ok(Value::tuple(out))
}

/// `assign(obj, names, values, frozen)`: store each value under its name.
fn f_assign(vm: &mut Vm, a: Args) -> R<Value> {
    let obj = a.pos.first().cloned().unwrap_or_default();
    let names = items(vm, a.pos.get(1))?;
    let values = items(vm, a.pos.get(2))?;
    if names.len() != values.len() {
        return Err(vm.value_err("_dataclasses.assign: as many values as names"));
    }
    let frozen = matches!(a.pos.get(3), Some(Value::Bool(true)));
    vm.charge(cost::CALL.saturating_mul(names.len() as u64))?;
    for (n, v) in names.iter().zip(values) {
        let Value::Str(key) = n else {
            return Err(vm.type_err("attribute name must be string"));
        };
        // Keyed by the field's name object itself, which `attrs` (eq, order, repr, hash) and
        // the class's own code then find by identity, not by comparing text.
        match &obj {
            // `object.__setattr__(obj, n, v)`: past the class's own `__setattr__`.
            Value::Instance(i) if frozen => {
                let cls = i.cls();
                vm.generic_setattr_in(i, &cls, &obj, &key.s, Some(key), v)?;
            }
            _ => vm.setattr_in(&obj, &key.s, Some(key), v)?,
        }
    }
    Ok(Value::None)
}

/// `method(kind, names, qualname)`: the method `kind` (`"__eq__"`, `"__hash__"`, `"__lt__"`,
/// `"__le__"`, `"__gt__"`, `"__ge__"`) of a dataclass comparing or hashing the fields
/// `names`, compiled from the source CPython's `dataclasses` writes for it (`return
/// (self.a,self.b,)==(other.a,other.b,)`), so that its attribute reads are the interpreter's
/// own, with their inline caches. `None` when a name is not a plain ASCII identifier (the
/// caller then builds the method from `attrs`): the source is made here from the names alone,
/// so no text a program chooses is ever compiled but identifiers.
///
/// Charged as any compilation (`code_cache::load`: by the source's size and tokens, the same
/// on a cache hit) plus the instructions of the module body that defines the function.
fn f_method(vm: &mut Vm, a: Args) -> R<Value> {
    let (Some(Value::Str(kind)), Some(Value::Tuple(names)), Some(qualname)) =
        (a.pos.first(), a.pos.get(1), a.pos.get(2))
    else {
        return Err(vm.type_err("_dataclasses.method(kind, names, qualname)"));
    };
    let mut fields = Vec::with_capacity(names.items.len());
    for n in names.items.iter() {
        match n {
            Value::Str(s) if is_plain_identifier(&s.s) => fields.push(s.s.clone()),
            _ => return Ok(Value::None),
        }
    }
    // Each name is written twice with at most 8 bytes around it.
    if !fits(fields.iter().map(|f| 2 * (f.len() + 8))) {
        return Ok(Value::None);
    }
    let tuple = |of: &str| -> String { fields.iter().map(|f| format!("{of}.{f},")).collect() };
    let (mine, theirs) = (tuple("self"), tuple("other"));
    let op = match &*kind.s {
        "__eq__" => "==",
        "__lt__" => "<",
        "__le__" => "<=",
        "__gt__" => ">",
        "__ge__" => ">=",
        "__hash__" => {
            let src = format!("\ndef __hash__(self):\n    return hash(({mine}))\n");
            return define(vm, &src, "__hash__", qualname);
        }
        _ => return Err(vm.value_err("_dataclasses.method: unknown kind")),
    };
    let src = format!(
        "\ndef {kind}(self, other):\n    if other.__class__ is self.__class__:\n        \
         return ({mine})!OP!({theirs})\n    return NotImplemented\n",
        kind = kind.s
    )
    .replace("!OP!", op);
    define(vm, &src, &kind.s, qualname)
}

/// `init(qualname, params, kwonly, body, frozen, post, namespace)`: a dataclass's `__init__`,
/// compiled from the source CPython's `dataclasses` writes for it, so that a call binds its
/// arguments (positional or by keyword) as any function call does and stores the fields with
/// `STORE_ATTR` (inline caches) instead of through `*args, **kwargs` and `assign`.
///
/// - `params`, `kwonly`: `(name, default)` pairs, `default` 0 (none), 1 (`=_dflt_<name>`) or
///   2 (`=_HAS_DEFAULT_FACTORY`), the keyword-only ones after `*`;
/// - `body`: `(name, value)` pairs in field order, `value` 0 (the parameter), 1 (the factory's
///   result when the parameter was not given) or 2 (the factory's result: an `init=False`
///   field), each stored with `self.name=value`, or with `object.__setattr__` when `frozen`;
/// - `post`: the `InitVar` names passed to `__post_init__`, or `None` for no call;
/// - `namespace`: the function's globals, holding the `_dflt_<name>` values and factories.
///
/// `None` when a name is not a plain identifier or the source does not compile (a keyword);
/// the caller then builds the general `__init__`. Charged as [`f_method`] is.
fn f_init(vm: &mut Vm, a: Args) -> R<Value> {
    let (Some(qualname), Some(params), Some(kwonly), Some(body), Some(frozen), Some(post)) = (
        a.pos.first(),
        a.pos.get(1),
        a.pos.get(2),
        a.pos.get(3),
        a.pos.get(4),
        a.pos.get(5),
    ) else {
        return Err(vm.type_err("_dataclasses.init: seven arguments"));
    };
    let Some(Value::Dict(namespace)) = a.pos.get(6) else {
        return Err(vm.type_err("_dataclasses.init: the namespace must be a dict"));
    };
    let (Some(params), Some(kwonly), Some(body)) = (pairs(params), pairs(kwonly), pairs(body))
    else {
        return Ok(Value::None);
    };
    // A parameter writes its name at most three times (with `__post_init__`'s call), a body
    // line four times, each with at most 160 bytes around them.
    let sizes = params.iter().chain(&kwonly).map(|(n, _)| 3 * n.len() + 160);
    if !fits(sizes.chain(body.iter().map(|(n, _)| 4 * n.len() + 160))) {
        return Ok(Value::None);
    }
    let post = match post {
        Value::None => None,
        Value::Tuple(t) => match t.items.iter().map(plain_name).collect::<Option<Vec<_>>>() {
            Some(names) => Some(names),
            None => return Ok(Value::None),
        },
        _ => return Err(vm.type_err("_dataclasses.init: post must be a tuple or None")),
    };
    // CPython's name for the instance when a field is called `self`.
    let me = if params
        .iter()
        .chain(&kwonly)
        .chain(&body)
        .any(|(n, _)| &**n == "self")
    {
        "__dataclass_self__"
    } else {
        "self"
    };
    let param = |(name, default): &(String, i64)| match default {
        1 => format!("{name}=_dflt_{name}"),
        2 => format!("{name}=_HAS_DEFAULT_FACTORY"),
        _ => name.to_string(),
    };
    let mut sig = vec![me.to_string()];
    sig.extend(params.iter().map(param));
    if !kwonly.is_empty() {
        sig.push("*".into());
        sig.extend(kwonly.iter().map(param));
    }
    let mut src = format!("\ndef __init__({}):\n", sig.join(","));
    for (name, how) in &body {
        let value = match how {
            1 => format!("_dflt_{name}() if {name} is _HAS_DEFAULT_FACTORY else {name}"),
            2 => format!("_dflt_{name}()"),
            _ => name.to_string(),
        };
        if matches!(frozen, Value::Bool(true)) {
            src +=
                &format!("    __dataclass_builtins_object__.__setattr__({me},'{name}',{value})\n");
        } else {
            src += &format!("    {me}.{name}={value}\n");
        }
    }
    if let Some(names) = &post {
        src += &format!("    {me}.__post_init__({})\n", names.join(","));
    }
    if body.is_empty() && post.is_none() {
        src += "    pass\n";
    }
    define_in(vm, &src, "__init__", qualname, namespace.clone())
}

/// Whether a source of pieces at most `sizes` long is within what the compiler accepts
/// (`compiler::MAX_SOURCE_BYTES`): checked before the text is built, which is work and memory
/// outside the program's accounting until the loader charges for the source (the names are
/// the program's own strings, so a larger source would only be refused after being made).
fn fits(sizes: impl Iterator<Item = usize>) -> bool {
    sizes.fold(256usize, usize::saturating_add) <= crate::compiler::MAX_SOURCE_BYTES
}

/// The `(name, code)` pairs of a tuple, each name a plain identifier; `None` otherwise.
fn pairs(v: &Value) -> Option<Vec<(String, i64)>> {
    let Value::Tuple(t) = v else { return None };
    t.items
        .iter()
        .map(|p| match p {
            Value::Tuple(p) if p.items.len() == 2 => match (&p.items[0], &p.items[1]) {
                (n, Value::Int(k)) => Some((plain_name(n)?, *k)),
                _ => None,
            },
            _ => None,
        })
        .collect()
}

/// A str that is a plain identifier, as text.
fn plain_name(v: &Value) -> Option<String> {
    match v {
        Value::Str(s) if is_plain_identifier(&s.s) => Some(s.s.clone()),
        _ => None,
    }
}

/// A name `method` may write into source: ASCII letters, digits and `_`, not starting with
/// a digit. A keyword passes here and fails to compile, which `define` answers with `None`.
fn is_plain_identifier(s: &str) -> bool {
    !s.is_empty()
        && !s.as_bytes()[0].is_ascii_digit()
        && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// Compile `src` (one `def name`) as the module `<string>` (CPython's file name for the
/// methods `dataclasses` generates), run it in a fresh namespace, and return the function
/// with its `__qualname__` set; `None` if it does not compile. The sources start with an
/// empty line so that a traceback names the lines CPython's do (its `def` is the second line
/// of the text it compiles, inside a wrapper function).
fn define(vm: &mut Vm, src: &str, name: &str, qualname: &Value) -> R<Value> {
    define_in(vm, src, name, qualname, rc_dict(PyDict::new()))
}

/// [`define`] with the namespace `d` as the function's globals.
fn define_in(vm: &mut Vm, src: &str, name: &str, qualname: &Value, d: Rc<PyDict>) -> R<Value> {
    let Ok(code) = crate::code_cache::load(vm, src, "<string>", true, None)? else {
        return Ok(Value::None);
    };
    let mut frame = vm.new_frame(code, d.clone(), None, &[]);
    vm.run_frame(&mut frame)?;
    let f = d.get_str(name).unwrap_or_default();
    vm.setattr(&f, "__qualname__", qualname.clone())?;
    Ok(f)
}

/// The module object.
pub fn load(vm: &mut Vm, name: &str) -> R<Value> {
    let d = rc_dict(PyDict::new());
    vm.dict_set_str(&d, "__name__", Value::str(name))?;
    vm.dict_set_str(&d, "attrs", builtin("attrs", f_attrs))?;
    vm.dict_set_str(&d, "assign", builtin("assign", f_assign))?;
    vm.dict_set_str(&d, "method", builtin("method", f_method))?;
    vm.dict_set_str(&d, "init", builtin("init", f_init))?;
    Ok(super::module(name, d))
}
