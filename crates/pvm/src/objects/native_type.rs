//! Classes and functions implemented in Rust: the toolkit the native modules
//! (`crate::native`), the builtin types defined this way (`complex`, `GenericAlias`,
//! `traceback`, `ExceptionGroup`, file objects) and the chain SDK build on.
//!
//! A native function is a [`Builtin`] holding a [`NativeFn`] (opaque to the data model, which
//! cannot name the interpreter). A native class's objects are ordinary [`Instance`]s carrying
//! Rust state in [`Instance::native`] ([`new_obj`], [`state`]); its methods are native
//! builtins in the class dict (bound like any function), its attributes read-only properties
//! with a native getter ([`class`]). It sits in the runtime beside the interpreter, below the
//! module library, so that a builtin type can be native without the interpreter knowing any
//! module.

use std::cell::{Ref, RefMut};
use std::rc::Rc;

use crate::value::*;
use crate::vm::{Args, Vm, R};

/// Arguments of a positional-only native function: between `min` and `max` of them, no
/// keywords, with CPython's messages (`f expected N arguments, got M`).
pub fn positional(vm: &mut Vm, a: Args, f: &str, min: usize, max: usize) -> R<Vec<Value>> {
    if !a.kw.is_empty() {
        return Err(vm.type_err(format!("{f}() takes no keyword arguments")));
    }
    let n = a.pos.len();
    let plural = |k: usize| if k == 1 { "argument" } else { "arguments" };
    if min == max && n != min {
        return Err(vm.type_err(format!("{f} expected {min} {}, got {n}", plural(min))));
    }
    if n < min {
        return Err(vm.type_err(format!(
            "{f} expected at least {min} {}, got {n}",
            plural(min)
        )));
    }
    if n > max {
        return Err(vm.type_err(format!(
            "{f} expected at most {max} {}, got {n}",
            plural(max)
        )));
    }
    Ok(a.pos)
}

/// The body of a native function (a builtin function, a native class's method or getter).
pub type Body = fn(&mut Vm, Args) -> R<Value>;

/// A native iterator's `__next__` taking its receiver by reference: what the body answers
/// for `(receiver,)`, reached by iteration (`Vm::next`) without an argument vector.
pub type NativeNext = fn(&mut Vm, &Value) -> R<Value>;

/// A native function exposed by a module, and for a native iterator's `__next__`, the same
/// function taking its receiver directly.
#[derive(Clone, Copy)]
pub struct NativeFn(pub Body, pub Option<NativeNext>);

impl NativeFn {
    /// What a builtin value running `body` holds.
    pub fn kind(body: Body) -> BuiltinKind {
        BuiltinKind::Native(NativeHandle::new(NativeFn(body, None)))
    }

    /// What a native iterator's `__next__` holds: `body`, and `next`, which answers the same.
    pub fn next_kind(body: Body, next: NativeNext) -> BuiltinKind {
        BuiltinKind::Native(NativeHandle::new(NativeFn(body, Some(next))))
    }
}

/// The receiver-taking form of `m` if it is a native iterator's `__next__`.
pub fn native_next(m: &Value) -> Option<NativeNext> {
    match m {
        Value::Builtin(b) => match &b.kind {
            BuiltinKind::Native(h) => h.get::<NativeFn>()?.1,
            _ => None,
        },
        _ => None,
    }
}

/// A native builtin function object named `name`.
pub fn builtin(name: &str, f: Body) -> Value {
    Value::Builtin(Rc::new(Builtin {
        name: name.into(),
        kind: NativeFn::kind(f),
    }))
}

/// A read-only property whose getter is `f` (called with the instance).
pub fn getter(f: Body) -> Value {
    Value::Property(Rc::new(Property {
        fget: builtin("__get__", f),
        fset: Value::None,
        fdel: Value::None,
        doc: Value::None,
    }))
}

/// A class `module.name` (base `object`, or `bases`) with native methods, read-only
/// properties and an optional native `__new__`.
pub fn class(
    vm: &mut Vm,
    module: &str,
    name: &str,
    bases: Vec<Rc<Class>>,
    methods: &[(&str, Body)],
    props: &[(&str, Body)],
    new: Option<Body>,
) -> R<Rc<Class>> {
    let d = class_dict(module, methods, props, new);
    finish_class(vm, name, bases, d)
}

/// A native iterator class: [`class`] (base `object`, no properties) whose `__next__` (one of
/// `methods`) also holds `next`, the same step taking its receiver directly, which iteration
/// calls without building an argument vector ([`native_next`]).
pub fn iter_class(
    vm: &mut Vm,
    module: &str,
    name: &str,
    methods: &[(&str, Body)],
    new: Option<Body>,
    next: NativeNext,
) -> R<Rc<Class>> {
    let mut d = class_dict(module, methods, &[], new);
    if let Some(&(_, body)) = methods.iter().find(|(n, _)| *n == "__next__") {
        let f = Builtin {
            name: "__next__".into(),
            kind: NativeFn::next_kind(body, next),
        };
        d.insert("__next__".into(), Value::Builtin(Rc::new(f)));
    }
    finish_class(vm, name, vec![], d)
}

/// The namespace of a native class (see [`class`]).
fn class_dict(
    module: &str,
    methods: &[(&str, Body)],
    props: &[(&str, Body)],
    new: Option<Body>,
) -> NameMap {
    let mut d = NameMap::default();
    d.insert("__module__".into(), Value::str(module));
    d.insert("__doc__".into(), Value::None);
    // No instance `__dict__`: like C types, attributes cannot be added (subclasses get one).
    d.insert("__slots__".into(), Value::tuple(Vec::new()));
    for (n, f) in methods {
        d.insert((*n).into(), builtin(n, *f));
    }
    for (n, f) in props {
        d.insert((*n).into(), getter(*f));
    }
    if let Some(f) = new {
        d.insert(
            "__new__".into(),
            Value::StaticMethod(Rc::new(Wrapped(builtin("__new__", f)))),
        );
    }
    d
}

/// The class `name` made from its namespace `d`.
fn finish_class(vm: &mut Vm, name: &str, bases: Vec<Rc<Class>>, d: NameMap) -> R<Rc<Class>> {
    let c = vm.new_class(name, bases, d)?;
    *c.qualname.borrow_mut() = name.into();
    Ok(c)
}

/// An exception class `module.name` deriving from builtin exception `base`.
pub fn exc_class(vm: &mut Vm, module: &str, name: &str, base: &str) -> R<Rc<Class>> {
    let b = vm.types.exc[base].clone();
    let mut d = NameMap::default();
    d.insert("__module__".into(), Value::str(module));
    d.insert("__doc__".into(), Value::None);
    vm.new_class(name, vec![b], d)
}

/// A new instance of `cls` carrying `state`.
pub fn new_obj<T: 'static>(cls: &Rc<Class>, state: T) -> Value {
    Value::Instance(rc_inst(Instance::with_native(
        cls.clone(),
        Some(Box::new(state)),
    )))
}

/// Put `state` into an existing instance (`__init__` of a subclassable native class).
pub fn set_state<T: 'static>(v: &Value, state: T) {
    if let Value::Instance(i) = v {
        *i.native.borrow_mut() = Some(Box::new(state));
    }
}

/// The native state of `v` if it is a `T`.
pub fn state<T: 'static>(v: &Value) -> Option<Ref<'_, T>> {
    let Value::Instance(i) = v else { return None };
    Ref::filter_map(i.native.borrow(), |n| {
        n.as_ref().and_then(|b| b.downcast_ref::<T>())
    })
    .ok()
}

/// The native state of `v`, mutably, if it is a `T`.
pub fn state_mut<T: 'static>(v: &Value) -> Option<RefMut<'_, T>> {
    let Value::Instance(i) = v else { return None };
    RefMut::filter_map(i.native.borrow_mut(), |n| {
        n.as_mut().and_then(|b| b.downcast_mut::<T>())
    })
    .ok()
}

/// The receiver (first positional argument) of a native method, or the CPython
/// "descriptor … doesn't apply" TypeError.
pub fn receiver(vm: &mut Vm, a: &mut Args, owner: &str, method: &str) -> R<Value> {
    if a.pos.is_empty() {
        return Err(vm.type_err(format!(
            "descriptor '{method}' of '{owner}' object needs an argument"
        )));
    }
    Ok(a.pos.remove(0))
}

/// TypeError for a receiver of the wrong type.
pub fn wrong_self(vm: &mut Vm, v: &Value, owner: &str, method: &str) -> crate::vm::Exc {
    let t = vm.type_name(v);
    vm.type_err(format!(
        "descriptor '{method}' for '{owner}' objects doesn't apply to a '{t}' object"
    ))
}

/// A module object from a dict.
pub fn module(name: &str, d: Rc<PyDict>) -> Value {
    Value::Module(Rc::new(Module::new(name, d)))
}

/// Bytes of a bytes-like argument (`bytes`, `bytearray`, or a subclass of bytes), if it is one.
pub fn bytes_like(v: &Value) -> Option<Vec<u8>> {
    match v {
        Value::Bytes(b) => Some(b.b.to_vec()),
        Value::ByteArray(b) => Some(b.b.borrow().clone()),
        Value::Instance(i) => {
            let base = i.base.borrow().clone();
            match base {
                Some(b @ (Value::Bytes(_) | Value::ByteArray(_))) => bytes_like(&b),
                _ => None,
            }
        }
        _ => None,
    }
}
