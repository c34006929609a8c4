//! The import whitelist and native module registry (whitepaper "Standard Library Whitelist").
//!
//! `import` compiles to the IMPORT op, which calls [`crate::vm::Vm::import`], which asks
//! [`lookup`] here: the only path by which a program reaches another module. There is no
//! `__import__`, no importlib, no file system. A name not in the registry is ImportError and
//! still costs cycles (CIP-3). Native modules plug in by adding a row to [`REGISTRY`].

use crate::value::*;
use crate::vm::{Args, Vm, R};
use std::rc::Rc;

/// A native function exposed by a module.
#[derive(Clone, Copy)]
pub struct NativeFn(pub fn(&mut Vm, Args) -> R<Value>);

impl std::fmt::Debug for NativeFn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("NativeFn")
    }
}

/// Builds a module object on first import.
pub type Loader = fn(&mut Vm, &str) -> R<Value>;

/// Whitelisted native modules.
const REGISTRY: &[(&str, Loader)] = &[("math", load_math)];

/// Whitelisted modules written in Python (`src/stdlib/python/`, embedded at build time).
const PY_MODULES: &[(&str, &str)] = &[
    ("abc", include_str!("stdlib/python/abc.py")),
    ("base64", include_str!("stdlib/python/base64.py")),
    ("bisect", include_str!("stdlib/python/bisect.py")),
    ("collections", include_str!("stdlib/python/collections.py")),
    ("copy", include_str!("stdlib/python/copy.py")),
    ("dataclasses", include_str!("stdlib/python/dataclasses.py")),
    ("enum", include_str!("stdlib/python/enum.py")),
    ("fractions", include_str!("stdlib/python/fractions.py")),
    ("functools", include_str!("stdlib/python/functools.py")),
    ("heapq", include_str!("stdlib/python/heapq.py")),
    ("itertools", include_str!("stdlib/python/itertools.py")),
    ("json", include_str!("stdlib/python/json.py")),
    ("operator", include_str!("stdlib/python/operator.py")),
    ("string", include_str!("stdlib/python/string.py")),
    ("typing", include_str!("stdlib/python/typing.py")),
];

/// Find the loader of a whitelisted module.
pub fn lookup(name: &str) -> Option<Loader> {
    if PY_MODULES.iter().any(|(n, _)| *n == name) {
        return Some(load_python);
    }
    REGISTRY.iter().find(|(n, _)| *n == name).map(|(_, l)| *l)
}

/// Run an embedded Python module in a fresh namespace. It is compiled per invocation (so
/// memory accounting and cycle counts do not depend on what ran earlier on the thread); its
/// instructions are metered like user code.
fn load_python(vm: &mut Vm, name: &str) -> R<Value> {
    let Some((_, src)) = PY_MODULES.iter().find(|(n, _)| *n == name) else {
        return Err(vm.new_exc("ImportError", &format!("No module named '{name}'")));
    };
    let filename = format!("{name}.py");
    let code = match crate::compiler::compile_module(src, &filename) {
        Ok(c) => c,
        Err(e) => {
            return Err(vm.new_exc(
                "ImportError",
                &format!("module {name} failed to compile: {e}"),
            ))
        }
    };
    vm.sources.insert(filename.as_str().into(), (*src).into());
    let d = crate::value::rc_dict(PyDict::new());
    vm.dict_set_str(&d, "__name__", Value::str(name))?;
    let m = Value::Module(Rc::new(Module {
        name: name.into(),
        dict: d.clone(),
    }));
    // Registered before running so circular imports see the partial module, as in CPython.
    vm.modules.insert(name.into(), m.clone());
    let mut f = vm.new_frame(code, d, None, Vec::new());
    if let Err(e) = vm.run_frame(&mut f) {
        vm.modules.shift_remove(name);
        return Err(e);
    }
    Ok(m)
}

fn native(vm: &mut Vm, d: &Rc<PyDict>, name: &str, f: fn(&mut Vm, Args) -> R<Value>) -> R<()> {
    vm.dict_set_str(
        d,
        name,
        Value::Builtin(Rc::new(Builtin {
            name: name.into(),
            kind: BuiltinKind::Native(NativeFn(f)),
        })),
    )
}

fn farg(vm: &mut Vm, a: &Args) -> R<f64> {
    match a.pos.first() {
        Some(v) => vm.to_float(v),
        None => Err(vm.type_err("expected one argument")),
    }
}

fn load_math(vm: &mut Vm, name: &str) -> R<Value> {
    let d = crate::value::rc_dict(PyDict::new());
    vm.dict_set_str(&d, "pi", Value::Float(std::f64::consts::PI))?;
    vm.dict_set_str(&d, "e", Value::Float(std::f64::consts::E))?;
    vm.dict_set_str(&d, "inf", Value::Float(f64::INFINITY))?;
    vm.dict_set_str(&d, "nan", Value::Float(f64::NAN))?;
    vm.dict_set_str(&d, "tau", Value::Float(std::f64::consts::TAU))?;
    native(vm, &d, "sqrt", |vm, a| {
        let x = farg(vm, &a)?;
        if x < 0.0 {
            return Err(vm.value_err("math domain error"));
        }
        Ok(Value::Float(libm::sqrt(x)))
    })?;
    native(vm, &d, "floor", |vm, a| {
        let x = a.pos.first().cloned().unwrap_or(Value::None);
        if let Value::Int(_) | Value::BigInt(_) = x {
            return Ok(x);
        }
        let f = vm.to_float(&x)?;
        float_to_int(vm, libm::floor(f))
    })?;
    native(vm, &d, "ceil", |vm, a| {
        let x = a.pos.first().cloned().unwrap_or(Value::None);
        if let Value::Int(_) | Value::BigInt(_) = x {
            return Ok(x);
        }
        let f = vm.to_float(&x)?;
        float_to_int(vm, libm::ceil(f))
    })?;
    native(vm, &d, "exp", |vm, a| {
        Ok(Value::Float(libm::exp(farg(vm, &a)?)))
    })?;
    native(vm, &d, "sin", |vm, a| {
        Ok(Value::Float(libm::sin(farg(vm, &a)?)))
    })?;
    native(vm, &d, "cos", |vm, a| {
        Ok(Value::Float(libm::cos(farg(vm, &a)?)))
    })?;
    native(vm, &d, "tan", |vm, a| {
        Ok(Value::Float(libm::tan(farg(vm, &a)?)))
    })?;
    native(vm, &d, "fabs", |vm, a| {
        Ok(Value::Float(farg(vm, &a)?.abs()))
    })?;
    native(vm, &d, "log", |vm, a| {
        let x = farg(vm, &a)?;
        if x <= 0.0 {
            return Err(vm.value_err("math domain error"));
        }
        let r = libm::log(x);
        match a.pos.get(1) {
            Some(b) => {
                let b = vm.to_float(b)?;
                Ok(Value::Float(r / libm::log(b)))
            }
            None => Ok(Value::Float(r)),
        }
    })?;
    native(vm, &d, "gcd", |vm, a| {
        let mut g = num_bigint::BigInt::from(0);
        for x in &a.pos {
            let b = match x {
                Value::Int(i) => num_bigint::BigInt::from(*i),
                Value::BigInt(b) => (**b).clone(),
                Value::Bool(b) => num_bigint::BigInt::from(*b as i64),
                _ => return Err(vm.type_err("gcd() arguments must be integers")),
            };
            g = num_integer::Integer::gcd(&g, &b);
        }
        vm.int_result(g)
    })?;
    Ok(Value::Module(Rc::new(Module {
        name: name.into(),
        dict: d,
    })))
}

/// Integral float → int value.
pub fn float_to_int(vm: &mut Vm, f: f64) -> R<Value> {
    if f.is_nan() {
        return Err(vm.value_err("cannot convert float NaN to integer"));
    }
    if f.is_infinite() {
        return Err(vm.new_exc("OverflowError", "cannot convert float infinity to integer"));
    }
    match crate::objects::int::float_to_big(f) {
        Some(b) => vm.int_result(b),
        None => Err(vm.value_err("cannot convert float")),
    }
}
