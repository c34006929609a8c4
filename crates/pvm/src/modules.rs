//! The import whitelist and native module registry (whitepaper "Standard Library Whitelist").
//!
//! `import` compiles to the IMPORT op, which calls [`crate::vm::Vm::import`], which asks
//! [`lookup`] here: the only path by which a program reaches another module. There is no
//! `__import__`, no importlib, no file system. A name not in the registry is ImportError and
//! still costs cycles (CIP-3). Native modules plug in by adding a row to [`REGISTRY`].

use crate::objects::int::float_to_int;
use crate::objects::native_type::{Body, NativeFn};
use crate::value::*;
use crate::vm::{Args, Library, Loader, SharedModule, Vm, R};
use std::rc::Rc;

/// The chain's import whitelist, which every VM of the process imports from.
pub const LIBRARY: Library = Library {
    find: lookup,
    is_package,
    builtins: &crate::builtins::BUILTINS,
};

/// Whitelisted native modules.
const REGISTRY: &[(&str, Loader)] = &[
    ("_bisect", crate::native::bisect::load),
    ("_dataclasses", crate::native::dataclasses::load),
    ("_decimal", crate::native::decimal::load),
    ("_heapq", crate::native::heapq::load),
    ("_json", crate::native::json::load),
    ("hashlib", crate::native::hashlib::load),
    ("itertools", crate::native::itertools::load),
    ("cowboy_sdk", load_cowboy_sdk),
    ("math", load_math),
    ("pvm_host", crate::sdk::load),
    ("re", crate::native::re::load),
    ("struct", crate::native::pystruct::load),
];

/// Whitelisted modules written in Python (`src/stdlib/python/`, embedded at build time).
const PY_MODULES: &[(&str, &str)] = &[
    ("__future__", include_str!("stdlib/python/__future__.py")),
    ("abc", include_str!("stdlib/python/abc.py")),
    ("base64", include_str!("stdlib/python/base64.py")),
    ("bisect", include_str!("stdlib/python/bisect.py")),
    ("collections", include_str!("stdlib/python/collections.py")),
    // A submodule's file is named after its full dotted name.
    (
        "collections.abc",
        include_str!("stdlib/python/collections.abc.py"),
    ),
    ("copy", include_str!("stdlib/python/copy.py")),
    ("dataclasses", include_str!("stdlib/python/dataclasses.py")),
    ("decimal", include_str!("stdlib/python/decimal.py")),
    ("enum", include_str!("stdlib/python/enum.py")),
    ("fractions", include_str!("stdlib/python/fractions.py")),
    ("functools", include_str!("stdlib/python/functools.py")),
    ("heapq", include_str!("stdlib/python/heapq.py")),
    ("json", include_str!("stdlib/python/json.py")),
    ("operator", include_str!("stdlib/python/operator.py")),
    ("string", include_str!("stdlib/python/string.py")),
    ("typing", include_str!("stdlib/python/typing.py")),
];

/// Whether `name` is a package in CPython: `json` and `re`, and every module with whitelisted
/// submodules (`collections`).
pub fn is_package(name: &str) -> bool {
    // Packages in CPython whose submodules are not on the whitelist.
    matches!(name, "json" | "re")
        || PY_MODULES
            .iter()
            .map(|(n, _)| *n)
            .chain(REGISTRY.iter().map(|(n, _)| *n))
            .any(|n| {
                n.strip_prefix(name)
                    .is_some_and(|rest| rest.starts_with('.'))
            })
}

/// Find the loader of a whitelisted module.
pub fn lookup(name: &str) -> Option<Loader> {
    if PY_MODULES.iter().any(|(n, _)| *n == name) {
        return Some(load_python);
    }
    REGISTRY.iter().find(|(n, _)| *n == name).map(|(_, l)| *l)
}

/// The source of `cowboy_sdk`, the actor developer surface.
const COWBOY_SDK: &str = include_str!("stdlib/python/cowboy_sdk.py");

/// `import cowboy_sdk`. The module's body runs once per thread, when the VM base is built
/// (`vm::Base`, under `value::permanent`): its classes are immutable like the builtin ones,
/// its functions and its namespace refuse writes (`memory::is_frozen`), and it refers to no
/// module or object an invocation could change. Each import gets a module object of its own
/// over a copy of that namespace ([`copy_shared`]); a test walks every object the module
/// reaches to keep it read-only.
fn load_cowboy_sdk(vm: &mut Vm, name: &str) -> R<Value> {
    let filename = "cowboy_sdk.py";
    if vm.building_base {
        return run_python(vm, "cowboy_sdk", COWBOY_SDK, filename);
    }
    let m = copy_shared(vm, name, SharedModule::CowboySdk)?;
    vm.sources
        .insert(filename.into(), std::borrow::Cow::Borrowed(COWBOY_SDK));
    Ok(m)
}

/// The import of a module of the VM base (`pvm_host`, `cowboy_sdk`): a module object of its
/// own over a copy of the shared namespace, made at its first write (`Module::copy_on_write`),
/// so an actor may rebind `cowboy_sdk.x` for itself and nothing it does reaches the next
/// invocation. Both need a host (ImportError for a plain script). The import costs the copy
/// of the namespace on top of `IMPORT_FIRST` (what it stands for), not the work of building
/// the module (which it no longer does).
pub(crate) fn copy_shared(vm: &mut Vm, name: &str, which: SharedModule) -> R<Value> {
    if vm.host.is_none() {
        return Err(crate::sdk::no_host(vm, name));
    }
    let shared = vm.shared_module(which)?.dict();
    let n = shared.table.borrow().entries.len();
    // Charged as the copy it is to the program; made only if the program writes to it.
    vm.charge(crate::cost::table_copy(n))?;
    Ok(Value::Module(Rc::new(Module::copy_on_write(name, shared))))
}

/// Run an embedded Python module in a fresh namespace. Its compiled code comes from the
/// thread's cache (`code_cache`, invisible to programs); its instructions are metered like
/// user code.
fn load_python(vm: &mut Vm, name: &str) -> R<Value> {
    let Some(&(name, src)) = PY_MODULES.iter().find(|(n, _)| *n == name) else {
        return Err(vm.new_exc("ImportError", &format!("No module named '{name}'")));
    };
    run_python(vm, name, src, &format!("{name}.py"))
}

/// Run the embedded module `name` (source `src`, file name `filename`) in a fresh namespace.
fn run_python(vm: &mut Vm, name: &'static str, src: &'static str, filename: &str) -> R<Value> {
    let code = match crate::code_cache::compile_builtin(name, src, filename) {
        Ok(c) => c,
        Err(e) => {
            return Err(vm.new_exc(
                "ImportError",
                &format!("module {name} failed to compile: {e}"),
            ))
        }
    };
    vm.sources
        .insert(filename.into(), std::borrow::Cow::Borrowed(src));
    let d = crate::value::rc_dict(PyDict::new());
    vm.dict_set_str(&d, "__name__", Value::str(name))?;
    let m = Value::Module(Rc::new(Module::new(name, d.clone())));
    // Registered before running so circular imports see the partial module, as in CPython.
    vm.modules.insert(name.into(), m.clone());
    let mut f = vm.new_frame(code, d, None, &[]);
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
            kind: NativeFn::kind(f),
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
        let x = a.pos.first().cloned().unwrap_or_default();
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
        let x = a.pos.first().cloned().unwrap_or_default();
        if let Some(r) = vm.call_dunder(&x, "__ceil__", vec![])? {
            return Ok(r);
        }
        if let Value::Int(_) | Value::BigInt(_) = x {
            return Ok(x);
        }
        let f = vm.to_float(&x)?;
        float_to_int(vm, libm::ceil(f))
    })?;
    native(vm, &d, "fabs", |vm, a| {
        Ok(Value::Float(farg(vm, &a)?.abs()))
    })?;
    // CPython's math_1 functions: a NaN from a non-NaN argument is a domain error, an infinite
    // result from a finite one is a range error (OverflowError) where the function can
    // overflow and a domain error (a pole, e.g. atanh(1)) where it cannot.
    macro_rules! m1 {
        ($f:path, $ovf:expr) => {
            |vm: &mut Vm, a: Args| math_1(vm, &a, $f, $ovf)
        };
    }
    let math1: &[(&str, Body)] = &[
        ("acos", m1!(libm::acos, false)),
        ("acosh", m1!(libm::acosh, false)),
        ("asin", m1!(libm::asin, false)),
        ("asinh", m1!(libm::asinh, false)),
        ("atan", m1!(libm::atan, false)),
        ("atanh", m1!(libm::atanh, false)),
        ("cbrt", m1!(libm::cbrt, false)),
        ("cos", m1!(libm::cos, false)),
        ("cosh", m1!(libm::cosh, true)),
        ("erf", m1!(libm::erf, false)),
        ("erfc", m1!(libm::erfc, false)),
        ("exp", m1!(libm::exp, true)),
        ("exp2", m1!(libm::exp2, true)),
        ("expm1", m1!(libm::expm1, true)),
        ("log1p", m1!(libm::log1p, false)),
        ("sin", m1!(libm::sin, false)),
        ("sinh", m1!(libm::sinh, true)),
        ("tan", m1!(libm::tan, false)),
        ("tanh", m1!(libm::tanh, false)),
    ];
    for (n, f) in math1 {
        native(vm, &d, n, *f)?;
    }
    native(vm, &d, "log", |vm, a| {
        let Some(x) = a.pos.first().filter(|_| a.pos.len() <= 2) else {
            return Err(vm.type_err("math.log requires 1 to 2 arguments"));
        };
        let r = log_helper(vm, x, libm::log)?;
        match a.pos.get(1) {
            Some(b) => {
                let den = log_helper(vm, b, libm::log)?;
                if den == 0.0 {
                    return Err(vm.new_exc("ZeroDivisionError", "float division by zero"));
                }
                Ok(Value::Float(r / den))
            }
            None => Ok(Value::Float(r)),
        }
    })?;
    native(vm, &d, "log2", |vm, a| {
        let x = a.pos.first().cloned().unwrap_or_default();
        Ok(Value::Float(log_helper(vm, &x, libm::log2)?))
    })?;
    native(vm, &d, "log10", |vm, a| {
        let x = a.pos.first().cloned().unwrap_or_default();
        Ok(Value::Float(log_helper(vm, &x, libm::log10)?))
    })?;
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
        let (x, y) = two_floats(vm, &a, "pow")?;
        let r = math_pow(x, y);
        if x.is_finite() && y.is_finite() && !r.is_finite() {
            // NaN: negative base with a non-integral exponent; inf: 0 ** negative (domain) or
            // overflow (range), as CPython's math_pow.
            if r.is_nan() || x == 0.0 {
                return Err(vm.value_err("math domain error"));
            }
            return Err(vm.new_exc("OverflowError", "math range error"));
        }
        Ok(Value::Float(r))
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
        let x = a.pos.first().cloned().unwrap_or_default();
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
        let items = vm.collect(&a.pos.first().cloned().unwrap_or_default())?;
        let mut xs = Vec::with_capacity(items.len());
        for v in &items {
            xs.push(vm.to_float(v)?);
        }
        fsum(vm, &xs)
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
        vm.charge(crate::cost::bigint_isqrt(n.bits()))?;
        vm.int_result(n.sqrt())
    })?;
    native(vm, &d, "factorial", |vm, a| {
        let n = vm.index_of(&a.pos.first().cloned().unwrap_or_default())?;
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
        let items = vm.collect(&a.pos.first().cloned().unwrap_or_default())?;
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
            // gcd, then a division and a product of the operands' sizes.
            let g = big_gcd(vm, &l, &b)?;
            vm.charge(crate::cost::bigint_quadratic(l.bits(), b.bits()) * 2)?;
            l = if num_traits::Zero::is_zero(&g) {
                g
            } else {
                num_traits::Signed::abs(&(&l / &g * &b))
            };
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
            g = big_gcd(vm, &g, &b)?;
        }
        vm.int_result(g)
    })?;
    native(vm, &d, "gamma", |vm, a| {
        let x = farg(vm, &a)?;
        // CPython's domain: poles at 0 and the negative integers, and -inf.
        if x == 0.0 || x == f64::NEG_INFINITY || x < 0.0 && x == libm::floor(x) {
            return Err(vm.value_err("math domain error"));
        }
        let r = libm::tgamma(x);
        if r.is_infinite() && x.is_finite() {
            return Err(vm.new_exc("OverflowError", "math range error"));
        }
        Ok(Value::Float(r))
    })?;
    native(vm, &d, "lgamma", |vm, a| {
        let x = farg(vm, &a)?;
        if x.is_infinite() {
            return Ok(Value::Float(f64::INFINITY));
        }
        if x <= 0.0 && x == libm::floor(x) {
            return Err(vm.value_err("math domain error"));
        }
        let r = libm::lgamma_r(x).0;
        if r.is_infinite() && x.is_finite() {
            return Err(vm.new_exc("OverflowError", "math range error"));
        }
        Ok(Value::Float(r))
    })?;
    native(vm, &d, "fmod", |vm, a| {
        let (x, y) = two_floats(vm, &a, "fmod")?;
        // CPython: fmod(x, ±inf) is x for finite x; a NaN from non-NaN inputs is a domain error.
        if y.is_infinite() && x.is_finite() {
            return Ok(Value::Float(x));
        }
        let r = libm::fmod(x, y);
        if r.is_nan() && !x.is_nan() && !y.is_nan() {
            return Err(vm.value_err("math domain error"));
        }
        Ok(Value::Float(r))
    })?;
    native(vm, &d, "remainder", |vm, a| {
        let (x, y) = two_floats(vm, &a, "remainder")?;
        let r = ieee_remainder(x, y);
        if r.is_nan() && !x.is_nan() && !y.is_nan() {
            return Err(vm.value_err("math domain error"));
        }
        Ok(Value::Float(r))
    })?;
    native(vm, &d, "modf", |vm, a| {
        let x = farg(vm, &a)?;
        let (frac, int) = if x.is_infinite() {
            (libm::copysign(0.0, x), x)
        } else {
            libm::modf(x)
        };
        Ok(Value::tuple(vec![Value::Float(frac), Value::Float(int)]))
    })?;
    native(vm, &d, "frexp", |vm, a| {
        let x = farg(vm, &a)?;
        let (m, e) = if x.is_nan() || x.is_infinite() || x == 0.0 {
            (x, 0)
        } else {
            libm::frexp(x)
        };
        Ok(Value::tuple(vec![Value::Float(m), Value::Int(e as i64)]))
    })?;
    native(vm, &d, "ldexp", |vm, a| {
        if a.pos.len() != 2 {
            return Err(vm.type_err(format!("ldexp expected 2 arguments, got {}", a.pos.len())));
        }
        let x = vm.to_float(&a.pos[0])?;
        // The exponent must be an int; out-of-range exponents saturate (only the sign matters).
        let e: i64 = match &a.pos[1] {
            Value::Int(i) => *i,
            Value::Bool(b) => *b as i64,
            Value::BigInt(b) if num_traits::Signed::is_negative(&**b) => i64::MIN,
            Value::BigInt(_) => i64::MAX,
            _ => return Err(vm.type_err("Expected an int as second argument to ldexp.")),
        };
        let r = if x == 0.0 || !x.is_finite() {
            x
        } else if e > i32::MAX as i64 {
            f64::INFINITY
        } else if e < i32::MIN as i64 {
            libm::copysign(0.0, x)
        } else {
            libm::ldexp(x, e as i32)
        };
        if r.is_infinite() && x.is_finite() {
            return Err(vm.new_exc("OverflowError", "math range error"));
        }
        Ok(Value::Float(r))
    })?;
    native(vm, &d, "nextafter", |vm, a| {
        let (x, y) = two_floats(vm, &a, "nextafter")?;
        Ok(Value::Float(libm::nextafter(x, y)))
    })?;
    native(vm, &d, "ulp", |vm, a| {
        let x = farg(vm, &a)?.abs();
        if x.is_nan() || x.is_infinite() {
            return Ok(Value::Float(x));
        }
        let up = libm::nextafter(x, f64::INFINITY);
        if up.is_infinite() {
            // x is the largest finite float: measure the gap below it.
            return Ok(Value::Float(x - libm::nextafter(x, f64::NEG_INFINITY)));
        }
        Ok(Value::Float(up - x))
    })?;
    native(vm, &d, "dist", |vm, a| {
        if a.pos.len() != 2 {
            return Err(vm.type_err(format!("dist expected 2 arguments, got {}", a.pos.len())));
        }
        let p = vm.collect(&a.pos[0])?;
        let q = vm.collect(&a.pos[1])?;
        if p.len() != q.len() {
            return Err(vm.value_err("both points must have the same number of dimensions"));
        }
        vm.charge(crate::cost::per_elem(p.len()))?;
        let mut acc = 0.0f64;
        for (x, y) in p.iter().zip(&q) {
            let (x, y) = (vm.to_float(x)?, vm.to_float(y)?);
            acc = libm::hypot(acc, x - y);
        }
        Ok(Value::Float(acc))
    })?;
    Ok(Value::Module(Rc::new(Module::new(name, d))))
}

/// One float argument through `f` with CPython's `math_1` error rules.
fn math_1(vm: &mut Vm, a: &Args, f: fn(f64) -> f64, can_overflow: bool) -> R<Value> {
    let x = farg(vm, a)?;
    let r = f(x);
    if r.is_nan() && !x.is_nan() {
        return Err(vm.value_err("math domain error"));
    }
    if r.is_infinite() && x.is_finite() {
        return Err(if can_overflow {
            vm.new_exc("OverflowError", "math range error")
        } else {
            vm.value_err("math domain error")
        });
    }
    Ok(Value::Float(r))
}

/// CPython's `loghelper`: ints of any size (a huge int is split into a mantissa in [0.5, 1)
/// and a power of two, so `log(10**400)` works); other arguments as floats with the
/// `math_1` rules (no overflow possible).
fn log_helper(vm: &mut Vm, v: &Value, f: fn(f64) -> f64) -> R<f64> {
    let big = match v {
        Value::Int(i) => Some(num_bigint::BigInt::from(*i)),
        Value::Bool(b) => Some(num_bigint::BigInt::from(*b as i64)),
        Value::BigInt(b) => Some((**b).clone()),
        _ => None,
    };
    let Some(n) = big else {
        let x = vm.to_float(v)?;
        let r = f(x);
        if r.is_nan() && !x.is_nan() || r.is_infinite() && x.is_finite() {
            return Err(vm.value_err("math domain error"));
        }
        return Ok(r);
    };
    if !num_traits::Signed::is_positive(&n) {
        return Err(vm.value_err("math domain error"));
    }
    if let Some(x) = num_traits::ToPrimitive::to_f64(&n).filter(|x| x.is_finite()) {
        return Ok(f(x));
    }
    // n ≥ 2**1024: keep its top 1000 bits with a sticky bit for what was dropped, so the
    // conversion below rounds like a conversion of n itself (CPython's _PyLong_Frexp).
    let bits = n.bits();
    let shift = bits - 1000;
    let mut top: num_bigint::BigInt = &n >> shift;
    if (&top << shift) != n {
        top |= num_bigint::BigInt::from(1);
    }
    let m = num_traits::ToPrimitive::to_f64(&top).unwrap_or(f64::INFINITY);
    let (mut x, mut e) = (libm::ldexp(m, -1000), bits as f64);
    if x == 1.0 {
        x = 0.5;
        e += 1.0;
    }
    Ok(f(x) + f(2.0) * e)
}

/// `x ** y` with CPython's special cases for non-finite operands (`math_pow`); finite
/// operands go to libm, and the caller turns a non-finite result into the right error.
fn math_pow(x: f64, y: f64) -> f64 {
    if x.is_finite() && y.is_finite() {
        return libm::pow(x, y);
    }
    if x.is_nan() {
        return if y == 0.0 { 1.0 } else { x };
    }
    if y.is_nan() {
        return if x == 1.0 { 1.0 } else { y };
    }
    if x.is_infinite() {
        let odd_y = y.is_finite() && libm::fmod(y.abs(), 2.0) == 1.0;
        return if y > 0.0 {
            if odd_y {
                x
            } else {
                x.abs()
            }
        } else if y == 0.0 {
            1.0
        } else if odd_y {
            libm::copysign(0.0, x)
        } else {
            0.0
        };
    }
    // y is infinite, x finite.
    if x.abs() == 1.0 {
        1.0
    } else if y > 0.0 && x.abs() > 1.0 || y < 0.0 && x.abs() < 1.0 {
        f64::INFINITY
    } else {
        0.0
    }
}

/// Exactly two float arguments (CPython's message on a wrong count).
fn two_floats(vm: &mut Vm, a: &Args, name: &str) -> R<(f64, f64)> {
    if a.pos.len() != 2 {
        return Err(vm.type_err(format!("{name} expected 2 arguments, got {}", a.pos.len())));
    }
    Ok((vm.to_float(&a.pos[0])?, vm.to_float(&a.pos[1])?))
}

/// IEEE 754 remainder, as CPython's `m_remainder` computes it (exact: fmod and the
/// subtractions below are exact operations). NaN where the result is undefined.
fn ieee_remainder(x: f64, y: f64) -> f64 {
    if x.is_finite() && y.is_finite() {
        if y == 0.0 {
            return f64::NAN;
        }
        let (ax, ay) = (x.abs(), y.abs());
        let m = libm::fmod(ax, ay);
        let c = ay - m;
        let r = if m < c {
            m
        } else if m > c {
            -c
        } else {
            // Half-way: choose the even multiple.
            m - 2.0 * libm::fmod(0.5 * (ax - m), ay)
        };
        return libm::copysign(1.0, x) * r;
    }
    if x.is_nan() {
        return x;
    }
    if y.is_nan() {
        return y;
    }
    if x.is_infinite() {
        return f64::NAN;
    }
    x
}

/// Exactly rounded sum of floats: Shewchuk's partials with CPython's final half-even
/// correction (`math_fsum` in CPython's mathmodule.c), so the result is CPython's bit for bit.
/// Each item costs one cycle per partial it is added to (at most ~40 partials exist).
fn fsum(vm: &mut Vm, xs: &[f64]) -> R<Value> {
    let mut p: Vec<f64> = Vec::new();
    let (mut special, mut inf_sum) = (0.0f64, 0.0f64);
    for &xsave in xs {
        vm.charge(crate::cost::per_elem(p.len() + 1))?;
        let mut x = xsave;
        let mut i = 0;
        for j in 0..p.len() {
            let mut y = p[j];
            if x.abs() < y.abs() {
                std::mem::swap(&mut x, &mut y);
            }
            let hi = x + y;
            let lo = y - (hi - x);
            if lo != 0.0 {
                p[i] = lo;
                i += 1;
            }
            x = hi;
        }
        p.truncate(i);
        if x != 0.0 {
            if !x.is_finite() {
                // A non-finite partial: an inf or nan item, or overflow of finite items.
                if xsave.is_finite() {
                    return Err(vm.new_exc("OverflowError", "intermediate overflow in fsum"));
                }
                if xsave.is_infinite() {
                    inf_sum += xsave;
                }
                special += xsave;
                p.clear();
            } else {
                p.push(x);
            }
        }
    }
    if special != 0.0 {
        if inf_sum.is_nan() {
            return Err(vm.value_err("-inf + inf in fsum"));
        }
        return Ok(Value::Float(special));
    }
    let mut n = p.len();
    let mut hi = 0.0f64;
    if n > 0 {
        n -= 1;
        hi = p[n];
        let mut lo = 0.0f64;
        while n > 0 {
            let x = hi;
            n -= 1;
            let y = p[n];
            hi = x + y;
            lo = y - (hi - x);
            if lo != 0.0 {
                break;
            }
        }
        // Round half-even correctly when the rest of the partials push past the half-way point.
        if n > 0 && ((lo < 0.0 && p[n - 1] < 0.0) || (lo > 0.0 && p[n - 1] > 0.0)) {
            let y = lo * 2.0;
            let x = hi + y;
            if y == x - hi {
                hi = x;
            }
        }
    }
    Ok(Value::Float(hi))
}

/// `gcd(a, b)` charged by its work. num-integer's gcd is binary (Stein's): one shift and
/// subtraction over the larger operand per bit it removes, so a 4,096-bit number against a
/// small one costs as much as two 4,096-bit ones. One Euclid step first (the larger modulo the
/// smaller, a long division) brings both down to the smaller size, then the binary gcd runs on
/// that; each part is charged before it runs.
fn big_gcd(vm: &mut Vm, a: &num_bigint::BigInt, b: &num_bigint::BigInt) -> R<num_bigint::BigInt> {
    use num_traits::{Signed, Zero};
    let (mut x, mut y) = (a.abs(), b.abs());
    if x < y {
        std::mem::swap(&mut x, &mut y);
    }
    if y.is_zero() {
        return Ok(x);
    }
    if x.bits() > y.bits() + 64 {
        vm.charge(crate::cost::bigint_quadratic(x.bits(), y.bits()))?;
        x %= &y;
        if x.is_zero() {
            return Ok(y);
        }
    }
    vm.charge(crate::cost::bigint_gcd(x.bits(), y.bits()))?;
    Ok(num_integer::Integer::gcd(&x, &y))
}

fn comb_perm(vm: &mut Vm, a: Args, comb: bool) -> R<Value> {
    let n = vm.index_of(&a.pos.first().cloned().unwrap_or_default())?;
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

#[cfg(test)]
mod tests {
    //! The shared `cowboy_sdk` reaches nothing an invocation could change.

    use super::*;
    use crate::vm::Vm;

    /// Every object reachable from `v`, checked: immutable values, immutable classes,
    /// frozen namespaces; anything else is a way for one invocation to reach the next.
    fn walk(v: &Value, seen: &mut std::collections::BTreeSet<usize>, path: &str) {
        let frozen = |d: &PyDict| crate::memory::is_frozen(&d.acct);
        macro_rules! once {
            ($rc:expr) => {
                if !seen.insert(Rc::as_ptr($rc) as *const u8 as usize) {
                    return;
                }
            };
        }
        match v {
            Value::None
            | Value::NotImplemented
            | Value::Ellipsis
            | Value::Bool(_)
            | Value::Int(_)
            | Value::Float(_)
            | Value::BigInt(_)
            | Value::Str(_)
            | Value::Bytes(_)
            | Value::Range(_)
            | Value::Slice(_) => {}
            Value::Tuple(t) => {
                for (i, x) in t.items.iter().enumerate() {
                    walk(x, seen, &format!("{path}[{i}]"));
                }
            }
            Value::Set(s) if s.frozen => {
                for e in s.table.borrow().iter() {
                    walk(&e.key, seen, &format!("{path}{{}}"));
                }
            }
            Value::Function(f) => {
                once!(f);
                assert!(frozen(&f.attrs), "{path}: writable function attributes");
                assert!(frozen(&f.globals), "{path}: writable function globals");
                for e in f.attrs.table.borrow().iter() {
                    walk(&e.value, seen, &format!("{path}.{:?}", e.key));
                }
                let meta = f.meta.borrow();
                walk(&meta.doc, seen, &format!("{path}.__doc__"));
                walk(&meta.module, seen, &format!("{path}.__module__"));
                for v in [&meta.annotations, &meta.name, &meta.qualname]
                    .into_iter()
                    .flatten()
                {
                    walk(v, seen, &format!("{path} (a field)"));
                }
                for d in &f.defaults {
                    walk(d, seen, &format!("{path}.__defaults__"));
                }
                for (k, d) in &f.kwdefaults {
                    walk(d, seen, &format!("{path}.__kwdefaults__[{k}]"));
                }
                for c in &f.closure {
                    if let Some(x) = c.v.borrow().as_ref() {
                        walk(x, seen, &format!("{path}.__closure__"));
                    }
                }
            }
            Value::Builtin(b) => {
                if let BuiltinKind::Method(r) = &b.kind {
                    walk(r, seen, &format!("{path}.__self__"));
                }
            }
            Value::BoundMethod(m) => {
                walk(&m.receiver, seen, &format!("{path}.__self__"));
                walk(&m.func, seen, &format!("{path}.__func__"));
            }
            Value::Class(c) => {
                once!(c);
                assert!(c.immutable.get(), "{path}: mutable class {}", c.name);
                let entries: Vec<(Rc<str>, Value)> = c
                    .dict
                    .borrow()
                    .iter()
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect();
                for (k, x) in entries {
                    walk(&x, seen, &format!("{}.{k}", c.name));
                }
                for b in c.mro.iter().chain(c.bases.iter()) {
                    walk(&Value::Class(b.clone()), seen, &format!("{path}.__mro__"));
                }
            }
            Value::Instance(i) => {
                let cls = i.cls();
                assert!(
                    cls.name.as_ref() == "object"
                        && cls.builtin == BuiltinType::Object
                        && i.dict.table.borrow().entries.is_empty()
                        && i.base.borrow().is_none(),
                    "{path}: an instance of {} (only bare object() sentinels may be shared)",
                    cls.name
                );
            }
            Value::Module(m) => {
                once!(m);
                let d = m.dict();
                assert!(frozen(&d), "{path}: writable module namespace");
                for e in d.table.borrow().iter() {
                    walk(&e.value, seen, &format!("{}.{:?}", m.name, e.key));
                }
            }
            Value::Property(p) => {
                for (n, x) in [("fget", &p.fget), ("fset", &p.fset), ("fdel", &p.fdel)] {
                    walk(x, seen, &format!("{path}.{n}"));
                }
                walk(&p.doc, seen, &format!("{path}.__doc__"));
            }
            Value::ClassMethod(w) | Value::StaticMethod(w) => {
                walk(&w.0, seen, &format!("{path}.__func__"))
            }
            other => panic!("{path}: a mutable or stateful object is shared: {other:?}"),
        }
    }

    #[test]
    fn the_shared_sdk_reaches_only_read_only_objects() {
        let mut vm = Vm::new(crate::limits::Limits::default(), &crate::modules::LIBRARY);
        let sdk = vm
            .shared_module(SharedModule::CowboySdk)
            .expect("the embedded SDK builds");
        let mut seen = std::collections::BTreeSet::new();
        walk(&Value::Module(sdk.clone()), &mut seen, "cowboy_sdk");
        assert!(seen.len() > 50, "walked only {} objects", seen.len());
        // And the SDK's own code never rebinds one of its globals (which would raise now).
        assert!(!COWBOY_SDK
            .lines()
            .any(|l| l.trim_start().starts_with("global ")));
    }
}
