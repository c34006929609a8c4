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
const REGISTRY: &[(&str, Loader)] = &[
    ("hashlib", crate::native::hashlib::load),
    ("math", load_math),
    ("pvm_host", crate::sdk::load),
    ("re", crate::native::re::load),
    ("struct", crate::native::pystruct::load),
];

/// Whitelisted modules written in Python (`src/stdlib/python/`, embedded at build time).
const PY_MODULES: &[(&str, &str)] = &[
    ("abc", include_str!("stdlib/python/abc.py")),
    ("base64", include_str!("stdlib/python/base64.py")),
    ("bisect", include_str!("stdlib/python/bisect.py")),
    ("collections", include_str!("stdlib/python/collections.py")),
    ("copy", include_str!("stdlib/python/copy.py")),
    ("cowboy_sdk", include_str!("stdlib/python/cowboy_sdk.py")),
    ("dataclasses", include_str!("stdlib/python/dataclasses.py")),
    ("decimal", include_str!("stdlib/python/decimal.py")),
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

/// Run an embedded Python module in a fresh namespace. Its compiled code comes from the
/// thread's cache (`code_cache`, invisible to programs); its instructions are metered like
/// user code.
fn load_python(vm: &mut Vm, name: &str) -> R<Value> {
    let Some(&(name, src)) = PY_MODULES.iter().find(|(n, _)| *n == name) else {
        return Err(vm.new_exc("ImportError", &format!("No module named '{name}'")));
    };
    let filename = format!("{name}.py");
    let code = match crate::code_cache::compile_builtin(name, src, &filename) {
        Ok(c) => c,
        Err(e) => {
            return Err(vm.new_exc(
                "ImportError",
                &format!("module {name} failed to compile: {e}"),
            ))
        }
    };
    vm.sources.insert(filename.as_str().into(), src.into());
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
        if let Some(r) = vm.call_dunder(&x, "__floor__", vec![])? {
            return Ok(r);
        }
        if let Value::Int(_) | Value::BigInt(_) = x {
            return Ok(x);
        }
        let f = vm.to_float(&x)?;
        float_to_int(vm, libm::floor(f))
    })?;
    native(vm, &d, "ceil", |vm, a| {
        let x = a.pos.first().cloned().unwrap_or(Value::None);
        if let Some(r) = vm.call_dunder(&x, "__ceil__", vec![])? {
            return Ok(r);
        }
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
    for n in [
        "asin", "acos", "atan", "sinh", "cosh", "tanh", "log2", "log10", "log1p", "expm1",
    ] {
        native(
            vm,
            &d,
            n,
            match n {
                "asin" => |vm, a| unary(vm, &a, libm::asin, |x| (-1.0..=1.0).contains(&x)),
                "acos" => |vm, a| unary(vm, &a, libm::acos, |x| (-1.0..=1.0).contains(&x)),
                "atan" => |vm, a| unary(vm, &a, libm::atan, |_| true),
                "sinh" => |vm, a| unary(vm, &a, libm::sinh, |_| true),
                "cosh" => |vm, a| unary(vm, &a, libm::cosh, |_| true),
                "tanh" => |vm, a| unary(vm, &a, libm::tanh, |_| true),
                "log2" => |vm, a| unary(vm, &a, libm::log2, |x| x > 0.0),
                "log10" => |vm, a| unary(vm, &a, libm::log10, |x| x > 0.0),
                "log1p" => |vm, a| unary(vm, &a, libm::log1p, |x| x > -1.0),
                _ => |vm, a| unary(vm, &a, libm::expm1, |_| true),
            },
        )?;
    }
    native(vm, &d, "atan2", |vm, a| {
        let y = farg(vm, &a)?;
        let x = a
            .pos
            .get(1)
            .map(|v| vm.to_float(v))
            .transpose()?
            .unwrap_or(0.0);
        Ok(Value::Float(libm::atan2(y, x)))
    })?;
    native(vm, &d, "hypot", |vm, a| {
        let mut acc = 0.0f64;
        for v in &a.pos {
            let x = vm.to_float(v)?;
            acc = libm::hypot(acc, x);
        }
        Ok(Value::Float(acc))
    })?;
    native(vm, &d, "pow", |vm, a| {
        let x = farg(vm, &a)?;
        let y = a
            .pos
            .get(1)
            .map(|v| vm.to_float(v))
            .transpose()?
            .unwrap_or(1.0);
        if x == 0.0 && y < 0.0 || x < 0.0 && y.fract() != 0.0 {
            return Err(vm.value_err("math domain error"));
        }
        Ok(Value::Float(libm::pow(x, y)))
    })?;
    native(vm, &d, "degrees", |vm, a| {
        Ok(Value::Float(farg(vm, &a)? * (180.0 / std::f64::consts::PI)))
    })?;
    native(vm, &d, "radians", |vm, a| {
        Ok(Value::Float(farg(vm, &a)? * (std::f64::consts::PI / 180.0)))
    })?;
    native(vm, &d, "isnan", |vm, a| {
        Ok(Value::Bool(farg(vm, &a)?.is_nan()))
    })?;
    native(vm, &d, "isinf", |vm, a| {
        Ok(Value::Bool(farg(vm, &a)?.is_infinite()))
    })?;
    native(vm, &d, "isfinite", |vm, a| {
        Ok(Value::Bool(farg(vm, &a)?.is_finite()))
    })?;
    native(vm, &d, "copysign", |vm, a| {
        let x = farg(vm, &a)?;
        let y = a
            .pos
            .get(1)
            .map(|v| vm.to_float(v))
            .transpose()?
            .unwrap_or(1.0);
        Ok(Value::Float(libm::copysign(x, y)))
    })?;
    native(vm, &d, "trunc", |vm, a| {
        let x = a.pos.first().cloned().unwrap_or(Value::None);
        if let Some(r) = vm.call_dunder(&x, "__trunc__", vec![])? {
            return Ok(r);
        }
        if let Value::Int(_) | Value::BigInt(_) = x {
            return Ok(x);
        }
        let f = vm.to_float(&x)?;
        float_to_int(vm, libm::trunc(f))
    })?;
    native(vm, &d, "isclose", |vm, mut a| {
        let rel = a
            .take_kw("rel_tol")
            .map(|v| vm.to_float(&v))
            .transpose()?
            .unwrap_or(1e-9);
        let abs = a
            .take_kw("abs_tol")
            .map(|v| vm.to_float(&v))
            .transpose()?
            .unwrap_or(0.0);
        let x = farg(vm, &a)?;
        let y = a
            .pos
            .get(1)
            .map(|v| vm.to_float(v))
            .transpose()?
            .unwrap_or(0.0);
        if x == y {
            return Ok(Value::Bool(true));
        }
        if x.is_infinite() || y.is_infinite() {
            return Ok(Value::Bool(false));
        }
        let diff = (x - y).abs();
        Ok(Value::Bool(
            diff <= (rel * y.abs()).max(rel * x.abs()) || diff <= abs,
        ))
    })?;
    native(vm, &d, "fsum", |vm, a| {
        // Neumaier compensated summation (exactly rounded for common inputs).
        let items = vm.collect(&a.pos.first().cloned().unwrap_or(Value::None))?;
        let (mut sum, mut c) = (0.0f64, 0.0f64);
        for v in &items {
            let x = vm.to_float(v)?;
            let t = sum + x;
            if sum.abs() >= x.abs() {
                c += (sum - t) + x;
            } else {
                c += (x - t) + sum;
            }
            sum = t;
        }
        Ok(Value::Float(sum + c))
    })?;
    native(vm, &d, "isqrt", |vm, a| {
        let n = match a.pos.first() {
            Some(Value::Int(i)) => num_bigint::BigInt::from(*i),
            Some(Value::BigInt(b)) => (**b).clone(),
            Some(Value::Bool(b)) => num_bigint::BigInt::from(*b as i64),
            _ => return Err(vm.type_err("isqrt() argument must be an integer")),
        };
        if num_traits::Signed::is_negative(&n) {
            return Err(vm.value_err("isqrt() argument must be nonnegative"));
        }
        vm.charge(crate::cost::bigint_quadratic(n.bits(), n.bits()))?;
        vm.int_result(n.sqrt())
    })?;
    native(vm, &d, "factorial", |vm, a| {
        let n = vm.index_of(&a.pos.first().cloned().unwrap_or(Value::None))?;
        if n < 0 {
            return Err(vm.value_err("factorial() not defined for negative values"));
        }
        let mut acc = num_bigint::BigInt::from(1);
        for k in 2..=n {
            vm.charge(crate::cost::bigint_linear(acc.bits()))?;
            acc *= k;
            vm.int_bound(acc.bits())?;
        }
        vm.int_result(acc)
    })?;
    native(vm, &d, "comb", |vm, a| comb_perm(vm, a, true))?;
    native(vm, &d, "perm", |vm, a| comb_perm(vm, a, false))?;
    native(vm, &d, "prod", |vm, mut a| {
        let mut acc = a.take_kw("start").unwrap_or(Value::Int(1));
        let items = vm.collect(&a.pos.first().cloned().unwrap_or(Value::None))?;
        for x in items {
            acc = vm.binary_op(&acc, &x, crate::bytecode::BinOp::Mul, false)?;
        }
        Ok(acc)
    })?;
    native(vm, &d, "lcm", |vm, a| {
        let mut l = num_bigint::BigInt::from(1);
        for x in &a.pos {
            let b = match x {
                Value::Int(i) => num_bigint::BigInt::from(*i),
                Value::BigInt(b) => (**b).clone(),
                Value::Bool(b) => num_bigint::BigInt::from(*b as i64),
                _ => return Err(vm.type_err("lcm() arguments must be integers")),
            };
            l = num_integer::Integer::lcm(&l, &b);
            vm.int_bound(l.bits())?;
        }
        vm.int_result(l)
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

fn unary(vm: &mut Vm, a: &Args, f: fn(f64) -> f64, domain: fn(f64) -> bool) -> R<Value> {
    let x = farg(vm, a)?;
    if !domain(x) {
        return Err(vm.value_err("math domain error"));
    }
    Ok(Value::Float(f(x)))
}

fn comb_perm(vm: &mut Vm, a: Args, comb: bool) -> R<Value> {
    let n = vm.index_of(&a.pos.first().cloned().unwrap_or(Value::None))?;
    let k = match a.pos.get(1) {
        Some(v) => vm.index_of(v)?,
        None if !comb => n,
        None => return Err(vm.type_err("comb expected 2 arguments, got 1")),
    };
    if n < 0 || k < 0 {
        let what = if n < 0 { "n" } else { "k" };
        return Err(vm.value_err(format!("{what} must be a non-negative integer")));
    }
    if k > n {
        return Ok(Value::Int(0));
    }
    let k = if comb { k.min(n - k) } else { k };
    let mut acc = num_bigint::BigInt::from(1);
    for i in 0..k {
        vm.charge(crate::cost::bigint_linear(acc.bits()))?;
        acc *= n - i;
        if comb {
            acc /= i + 1;
        }
        vm.int_bound(acc.bits())?;
    }
    vm.int_result(acc)
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
