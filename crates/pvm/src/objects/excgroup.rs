//! Exception groups (PEP 654): `BaseExceptionGroup` / `ExceptionGroup` and the runtime side of
//! `except*`, as CPython 3.11's `Objects/exceptions.c` and `ceval.c` (`CHECK_EG_MATCH`,
//! `PREP_RERAISE_STAR`).
//!
//! A group is an exception instance whose `message` and `exceptions` live in
//! [`Instance::native`] ([`Eg`]); `split`, `subgroup` and `derive` work as CPython's (derived
//! groups are made with the overridable `derive()` and get the original's `__traceback__`,
//! `__cause__`, `__context__` and `__notes__`). Walking nested groups counts as native
//! recursion (`Vm::enter`) and is charged per exception visited; the members are held in a
//! tuple, so their memory is accounted and a deep nesting is dropped iteratively.

use super::native_type::{builtin, getter, state};
use crate::value::{Instance, Value, Wrapped};
use crate::vm::{Args, Vm, R};
use std::rc::Rc;

/// The state of an exception group.
#[derive(Debug)]
pub struct Eg {
    /// `message` (a str).
    pub message: Value,
    /// `exceptions`: a tuple (so its memory is accounted like any tuple's).
    pub exceptions: Value,
}

/// Fill the `BaseExceptionGroup` class (once per VM, from `builtins::install`).
pub fn install(types: &crate::vm::Types) {
    let c = types.exc["BaseExceptionGroup"].clone();
    let mut d = c.dict_mut();
    d.insert(
        "__new__".into(),
        Value::StaticMethod(Rc::new(Wrapped(builtin("__new__", eg_new)))),
    );
    d.insert("__str__".into(), builtin("__str__", eg_str));
    d.insert("derive".into(), builtin("derive", eg_derive));
    d.insert("split".into(), builtin("split", eg_split));
    d.insert("subgroup".into(), builtin("subgroup", eg_subgroup));
    d.insert("message".into(), getter(eg_message));
    d.insert("exceptions".into(), getter(eg_exceptions));
}

fn is_exc(v: &Value) -> bool {
    matches!(v, Value::Instance(i) if i.exc.borrow().is_some())
}

/// The sub-exceptions of `v` if it is a group.
fn members(v: &Value) -> Option<Vec<Value>> {
    state::<Eg>(v).map(|g| match &g.exceptions {
        Value::Tuple(t) => t.items.to_vec(),
        _ => Vec::new(),
    })
}

/// `BaseExceptionGroup(message, exceptions)`: CPython's checks, and `BaseExceptionGroup`
/// becomes `ExceptionGroup` when every member is an `Exception`.
fn eg_new(vm: &mut Vm, a: Args) -> R<Value> {
    let Some(Value::Class(mut cls)) = a.pos.first().cloned() else {
        return Err(vm.type_err("BaseExceptionGroup.__new__(X): X is not a type object"));
    };
    if !a.kw.is_empty() {
        return Err(vm.type_err(format!("{}() takes no keyword arguments", cls.name)));
    }
    let [message, excs] = &a.pos[1..] else {
        let n = a.pos.len() - 1;
        return Err(vm.type_err(format!(
            "BaseExceptionGroup.__new__() takes exactly 2 arguments ({n} given)"
        )));
    };
    if !matches!(message, Value::Str(_)) {
        let tn = vm.type_name(message);
        return Err(vm.type_err(format!(
            "BaseExceptionGroup.__new__() argument 1 must be str, not {tn}"
        )));
    }
    let is_seq = match excs {
        Value::List(_) | Value::Tuple(_) => true,
        Value::Instance(_) => {
            vm.lookup_dunder(excs, "__getitem__").is_some() && vm.dict_view(excs).is_none()
        }
        _ => false,
    };
    if !is_seq {
        return Err(vm.type_err("second argument (exceptions) must be a sequence"));
    }
    let items = vm.collect(excs)?;
    if items.is_empty() {
        return Err(vm.value_err("second argument (exceptions) must be a non-empty sequence"));
    }
    let exception = vm.types.exc["Exception"].clone();
    let mut nested_base = false;
    for (k, e) in items.iter().enumerate() {
        if !is_exc(e) {
            return Err(vm.value_err(format!(
                "Item {k} of second argument (exceptions) is not an exception"
            )));
        }
        nested_base |= !vm.type_of(e).is_subclass(&exception);
    }
    let base_group = vm.types.exc["BaseExceptionGroup"].clone();
    let group = vm.types.exc["ExceptionGroup"].clone();
    if Rc::ptr_eq(&cls, &base_group) {
        if !nested_base {
            cls = group;
        }
    } else if Rc::ptr_eq(&cls, &group) {
        if nested_base {
            return Err(vm.type_err("Cannot nest BaseExceptions in an ExceptionGroup"));
        }
    } else if nested_base && cls.is_subclass(&exception) {
        return Err(vm.type_err(format!("Cannot nest BaseExceptions in '{}'", cls.name)));
    }
    let inst = Instance::new(cls);
    crate::objects::types::set_exc_args(vm, &inst, vec![message.clone(), excs.clone()]);
    *inst.exc.borrow_mut() = Some(Box::default());
    *inst.native.borrow_mut() = Some(Box::new(Eg {
        message: message.clone(),
        exceptions: Value::tuple(items),
    }));
    Ok(Value::Instance(crate::value::rc_inst(inst)))
}

fn this(vm: &mut Vm, a: &Args, what: &str) -> R<Value> {
    let v = a.pos.first().cloned().unwrap_or_default();
    if state::<Eg>(&v).is_none() {
        return Err(super::native_type::wrong_self(
            vm,
            &v,
            "BaseExceptionGroup",
            what,
        ));
    }
    Ok(v)
}

fn eg_message(vm: &mut Vm, a: Args) -> R<Value> {
    let v = this(vm, &a, "message")?;
    Ok(state::<Eg>(&v)
        .map(|g| g.message.clone())
        .unwrap_or_default())
}

fn eg_exceptions(vm: &mut Vm, a: Args) -> R<Value> {
    let v = this(vm, &a, "exceptions")?;
    Ok(state::<Eg>(&v)
        .map(|g| g.exceptions.clone())
        .unwrap_or_default())
}

fn eg_str(vm: &mut Vm, a: Args) -> R<Value> {
    let v = this(vm, &a, "__str__")?;
    let (msg, n) = match state::<Eg>(&v) {
        Some(g) => (
            g.message.clone(),
            match &g.exceptions {
                Value::Tuple(t) => t.items.len(),
                _ => 0,
            },
        ),
        None => (Value::None, 0),
    };
    let m = vm.str(&msg)?;
    let s = if n > 1 { "s" } else { "" };
    Ok(Value::str(&format!("{m} ({n} sub-exception{s})")))
}

fn eg_derive(vm: &mut Vm, a: Args) -> R<Value> {
    let v = this(vm, &a, "derive")?;
    let [_, excs] = a.pos.as_slice() else {
        let n = a.pos.len() - 1;
        return Err(vm.type_err(format!(
            "BaseExceptionGroup.derive() takes exactly one argument ({n} given)"
        )));
    };
    let msg = state::<Eg>(&v)
        .map(|g| g.message.clone())
        .unwrap_or_default();
    let cls = Value::Class(vm.types.exc["BaseExceptionGroup"].clone());
    vm.call(&cls, Args::new(vec![msg, excs.clone()]))
}

/// What `split`/`subgroup` (and `except*`) match leaves and groups against.
pub enum Cond {
    /// An exception class or a tuple of them.
    Types(Value),
    /// A predicate called with each exception.
    Pred(Value),
    /// Exceptions identical to one of these (the re-raised leaves of `except*`).
    Same(Vec<Value>),
}

fn cond_of(vm: &mut Vm, v: &Value) -> R<Cond> {
    let base = vm.types.exc["BaseException"].clone();
    let is_type = |x: &Value| matches!(x, Value::Class(c) if c.is_subclass(&base));
    let ok = match v {
        Value::Tuple(t) => t.items.iter().all(is_type),
        x => is_type(x),
    };
    if ok {
        return Ok(Cond::Types(v.clone()));
    }
    if vm.is_callable(v) {
        return Ok(Cond::Pred(v.clone()));
    }
    Err(vm.type_err("expected a function, exception type or tuple of exception types"))
}

fn matches(vm: &mut Vm, cond: &Cond, e: &Value) -> R<bool> {
    match cond {
        Cond::Types(t) => vm.exc_matches(e, t),
        Cond::Pred(f) => {
            let r = vm.call(f, Args::new(vec![e.clone()]))?;
            vm.truthy(&r)
        }
        Cond::Same(xs) => Ok(xs.iter().any(|x| x.is(e))),
    }
}

/// A group derived from `orig` with `excs`, carrying `orig`'s metadata.
fn derive_from(vm: &mut Vm, orig: &Value, excs: Vec<Value>) -> R<Value> {
    let d = vm.call_method(orig, "derive", Args::new(vec![Value::list(excs)]))?;
    if state::<Eg>(&d).is_none() {
        return Err(vm.type_err("derive must return an instance of BaseExceptionGroup"));
    }
    let tb = super::traceback::of(vm, orig)?;
    super::traceback::set(vm, &d, &tb)?;
    if let (Value::Instance(o), Value::Instance(n)) = (orig, &d) {
        let (cause, context, suppress) = match o.exc.borrow().as_ref() {
            Some(st) => (st.cause.clone(), st.context.clone(), st.suppress),
            None => (None, None, false),
        };
        if let Some(st) = n.exc.borrow_mut().as_mut() {
            st.cause = cause;
            st.context = context;
            st.suppress = suppress;
        }
        // A copy of the notes (CPython: `list(orig.__notes__)`).
        if let Some(notes) = o.dict.get_str("__notes__") {
            let copy = vm.collect(&notes)?;
            n.dict.set_str("__notes__", Value::list(copy));
        }
    }
    Ok(d)
}

/// `(match, rest)` of `e` split by `cond` (either may be None).
pub fn split(vm: &mut Vm, e: &Value, cond: &Cond) -> R<(Value, Value)> {
    vm.charge(crate::cost::PER_ELEM)?;
    if matches(vm, cond, e)? {
        return Ok((e.clone(), Value::None));
    }
    let Some(excs) = members(e) else {
        return Ok((Value::None, e.clone()));
    };
    vm.enter()?;
    let mut m = Vec::new();
    let mut r = Vec::new();
    for x in &excs {
        let parts = split(vm, x, cond);
        let (a, b) = match parts {
            Ok(p) => p,
            Err(err) => {
                vm.leave();
                return Err(err);
            }
        };
        if !a.is_none() {
            m.push(a);
        }
        if !b.is_none() {
            r.push(b);
        }
    }
    vm.leave();
    let m = if m.is_empty() {
        Value::None
    } else {
        derive_from(vm, e, m)?
    };
    let r = if r.is_empty() {
        Value::None
    } else {
        derive_from(vm, e, r)?
    };
    Ok((m, r))
}

fn eg_split(vm: &mut Vm, a: Args) -> R<Value> {
    let v = this(vm, &a, "split")?;
    let Some(c) = a.pos.get(1) else {
        return Err(vm.type_err("BaseExceptionGroup.split() takes exactly one argument (0 given)"));
    };
    let cond = cond_of(vm, c)?;
    let (m, r) = split(vm, &v, &cond)?;
    Ok(Value::tuple(vec![m, r]))
}

fn eg_subgroup(vm: &mut Vm, a: Args) -> R<Value> {
    let v = this(vm, &a, "subgroup")?;
    let Some(c) = a.pos.get(1) else {
        return Err(
            vm.type_err("BaseExceptionGroup.subgroup() takes exactly one argument (0 given)")
        );
    };
    let cond = cond_of(vm, c)?;
    Ok(split(vm, &v, &cond)?.0)
}

/// `CHECK_EG_MATCH`: `(rest, match)` of the exception `exc` against the `except*` type `ty`
/// (`match` None when nothing matched). A naked exception that matches is wrapped in
/// `ExceptionGroup('', [exc])` with its traceback.
pub fn star_match(vm: &mut Vm, exc: &Value, ty: &Value) -> R<(Value, Value)> {
    let group = vm.types.exc["BaseExceptionGroup"].clone();
    let is_group_type = |x: &Value| matches!(x, Value::Class(c) if c.is_subclass(&group));
    let bad = match ty {
        Value::Tuple(t) => t.items.iter().any(is_group_type),
        x => is_group_type(x),
    };
    if bad {
        return Err(
            vm.type_err("catching ExceptionGroup with except* is not allowed. Use except instead.")
        );
    }
    if vm.exc_matches(exc, ty)? {
        if members(exc).is_some() {
            return Ok((Value::None, exc.clone()));
        }
        let cls = Value::Class(group);
        let wrapped = vm.call(
            &cls,
            Args::new(vec![Value::str(""), Value::tuple(vec![exc.clone()])]),
        )?;
        let tb = super::traceback::of(vm, exc)?;
        super::traceback::set(vm, &wrapped, &tb)?;
        return Ok((Value::None, wrapped));
    }
    if members(exc).is_some() {
        let pair = vm.call_method(exc, "split", Args::new(vec![ty.clone()]))?;
        if let Value::Tuple(t) = &pair {
            if let [m, r] = &t.items[..] {
                return Ok((r.clone(), m.clone()));
            }
        }
        return Err(vm.type_err("ExceptionGroup.split must return a 2-tuple"));
    }
    Ok((exc.clone(), Value::None))
}

/// The leaves (non-group exceptions) of `e`.
fn leaves(vm: &mut Vm, e: &Value, out: &mut Vec<Value>) -> R<()> {
    vm.charge(crate::cost::PER_ELEM)?;
    match members(e) {
        None => out.push(e.clone()),
        Some(xs) => {
            vm.enter()?;
            for x in &xs {
                if let Err(err) = leaves(vm, x, out) {
                    vm.leave();
                    return Err(err);
                }
            }
            vm.leave();
        }
    }
    Ok(())
}

/// Do `a` and `b` carry the same metadata (so `a` is `b` or a part of it re-raised)?
fn same_metadata(vm: &mut Vm, a: &Value, b: &Value) -> R<bool> {
    let (Value::Instance(x), Value::Instance(y)) = (a, b) else {
        return Ok(false);
    };
    let ta = super::traceback::of(vm, a)?;
    let tb = super::traceback::of(vm, b)?;
    let same = |p: &Option<Value>, q: &Option<Value>| match (p, q) {
        (None, None) => true,
        (Some(p), Some(q)) => p.is(q),
        _ => false,
    };
    let (sx, sy) = (x.exc.borrow(), y.exc.borrow());
    let (Some(sx), Some(sy)) = (sx.as_ref(), sy.as_ref()) else {
        return Ok(false);
    };
    Ok(ta.is(&tb)
        && same(&sx.cause, &sy.cause)
        && same(&sx.context, &sy.context)
        && same(&x.dict.get_str("__notes__"), &y.dict.get_str("__notes__")))
}

/// `PREP_RERAISE_STAR`: what an `except*` statement raises once its clauses ran, from the
/// original exception and the exceptions its handlers raised plus the unhandled rest (None
/// entries are skipped). None: everything was handled.
pub fn prep_reraise(vm: &mut Vm, orig: &Value, excs: Vec<Value>) -> R<Value> {
    let excs: Vec<Value> = excs.into_iter().filter(|e| !e.is_none()).collect();
    if excs.is_empty() {
        return Ok(Value::None);
    }
    if members(orig).is_none() {
        // A naked exception was wrapped: at most one clause ran.
        return Ok(excs[0].clone());
    }
    let mut raised = Vec::new();
    let mut reraised = Vec::new();
    for e in excs {
        if same_metadata(vm, &e, orig)? {
            reraised.push(e);
        } else {
            raised.push(e);
        }
    }
    let mut keep = Vec::new();
    for e in &reraised {
        leaves(vm, e, &mut keep)?;
    }
    let reraised_eg = if keep.is_empty() {
        Value::None
    } else {
        split(vm, orig, &Cond::Same(keep))?.0
    };
    if raised.is_empty() {
        return Ok(reraised_eg);
    }
    if !reraised_eg.is_none() {
        raised.push(reraised_eg);
    }
    if raised.len() == 1 {
        return Ok(raised.remove(0));
    }
    let cls = Value::Class(vm.types.exc["BaseExceptionGroup"].clone());
    vm.call(&cls, Args::new(vec![Value::str(""), Value::list(raised)]))
}
