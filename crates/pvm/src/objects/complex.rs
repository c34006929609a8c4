//! The builtin `complex` type, as CPython 3.11's `Objects/complexobject.c`.
//!
//! A complex number is an [`Instance`] of `vm.types.complex` (or of a subclass) carrying a
//! [`Complex`] in [`Instance::native`]; its methods are native builtins in the class dict, so
//! operators, `hash`, `repr`, `format`, `abs` and `bool` reach them like any class's dunders,
//! and `int`/`float` operands on the left fall back to the reflected methods. Arithmetic is
//! CPython's, operation for operation (an int or float operand is first made a complex with
//! a zero imaginary part, as 3.11 does): Smith's division (`_Py_c_quot`), `c_powi` (repeated
//! squaring) for integer exponents up to 100, `_Py_c_pow` otherwise with `hypot`, `pow`,
//! `atan2`, `exp`, `log`, `cos`, `sin` from the pure-software `libm` (never the platform's).
//! Every operation does a fixed amount of work and is charged a fixed price before it;
//! parsing and formatting are charged per character.

use super::native_type::{builtin, getter, state, Body};
use crate::cost;
use crate::format;
use crate::value::{Instance, Value, Wrapped};
use crate::vm::{Args, Exc, Vm, R};
use std::rc::Rc;

/// A complex value as `(real, imag)`.
type C64 = (f64, f64);

/// The state of a complex instance.
#[derive(Debug, Clone, Copy)]
pub struct Complex {
    /// Real part.
    pub re: f64,
    /// Imaginary part.
    pub im: f64,
}

/// `(re, im)` of a complex instance (including instances of subclasses).
pub fn value_of(v: &Value) -> Option<(f64, f64)> {
    state::<Complex>(v).map(|c| (c.re, c.im))
}

/// A new `complex`.
pub fn new(vm: &Vm, re: f64, im: f64) -> Value {
    super::native_type::new_obj(&vm.types.complex, Complex { re, im })
}

/// Fill the builtin `complex` class (called once per VM by `builtins::install`).
pub fn install(types: &crate::vm::Types) {
    const METHODS: &[(&str, Body)] = &[
        ("__repr__", c_repr),
        ("__hash__", c_hash),
        ("__eq__", c_eq),
        ("__ne__", c_ne),
        ("__bool__", c_bool),
        ("__abs__", c_abs),
        ("__neg__", c_neg),
        ("__pos__", c_pos),
        ("__add__", c_add),
        ("__radd__", c_radd),
        ("__sub__", c_sub),
        ("__rsub__", c_rsub),
        ("__mul__", c_mul),
        ("__rmul__", c_rmul),
        ("__truediv__", c_truediv),
        ("__rtruediv__", c_rtruediv),
        ("__pow__", c_pow),
        ("__rpow__", c_rpow),
        ("__format__", c_format),
        ("__complex__", c_complex),
        ("__getnewargs__", c_getnewargs),
        ("conjugate", c_conjugate),
    ];
    let c = types.complex.clone();
    let mut d = c.dict_mut();
    for (n, f) in METHODS {
        d.insert((*n).into(), builtin(n, *f));
    }
    d.insert("real".into(), getter(c_real));
    d.insert("imag".into(), getter(c_imag));
    d.insert(
        "__new__".into(),
        Value::StaticMethod(Rc::new(Wrapped(builtin("__new__", c_new)))),
    );
}

/// The receiver of a complex method.
fn this(vm: &mut Vm, a: &Args, method: &str) -> R<C64> {
    match a.pos.first() {
        Some(v) => match value_of(v) {
            Some(c) => Ok(c),
            None => Err(super::native_type::wrong_self(vm, v, "complex", method)),
        },
        None => Err(vm.type_err(format!(
            "descriptor '{method}' of 'complex' object needs an argument"
        ))),
    }
}

/// The other operand of a binary method, made complex; `None` (NotImplemented) if it is
/// not an int, float or complex.
fn operand(vm: &mut Vm, v: &Value) -> R<Option<C64>> {
    Ok(match v {
        Value::Int(_) | Value::Bool(_) | Value::BigInt(_) | Value::Float(_) => {
            Some((vm.to_float(v)?, 0.0))
        }
        Value::Instance(i) => match value_of(v) {
            Some(c) => Some(c),
            None => {
                let b = i.base.borrow().clone();
                match b {
                    Some(
                        b @ (Value::Int(_) | Value::BigInt(_) | Value::Bool(_) | Value::Float(_)),
                    ) => Some((vm.to_float(&b)?, 0.0)),
                    _ => None,
                }
            }
        },
        _ => None,
    })
}

/// `(self, other)` of a binary method, or `None` for NotImplemented.
fn pair(vm: &mut Vm, a: &Args, method: &str) -> R<Option<(C64, C64)>> {
    let x = this(vm, a, method)?;
    let Some(o) = a.pos.get(1) else {
        return Err(vm.type_err(format!("expected 1 argument, got {}", a.pos.len() - 1)));
    };
    vm.charge(cost::ARITH)?;
    Ok(operand(vm, o)?.map(|y| (x, y)))
}

fn binary(
    vm: &mut Vm,
    a: Args,
    method: &str,
    reflected: bool,
    f: fn(&mut Vm, C64, C64) -> R<C64>,
) -> R<Value> {
    match pair(vm, &a, method)? {
        None => Ok(Value::NotImplemented),
        Some((x, y)) => {
            let (l, r) = if reflected { (y, x) } else { (x, y) };
            let (re, im) = f(vm, l, r)?;
            Ok(new(vm, re, im))
        }
    }
}

fn add(_: &mut Vm, a: C64, b: C64) -> R<C64> {
    Ok((a.0 + b.0, a.1 + b.1))
}

fn sub(_: &mut Vm, a: C64, b: C64) -> R<C64> {
    Ok((a.0 - b.0, a.1 - b.1))
}

/// `_Py_c_prod`.
fn prod(a: C64, b: C64) -> C64 {
    (a.0 * b.0 - a.1 * b.1, a.0 * b.1 + a.1 * b.0)
}

fn mul(_: &mut Vm, a: C64, b: C64) -> R<C64> {
    Ok(prod(a, b))
}

/// `_Py_c_quot` (Smith's algorithm); `None` for a zero divisor.
fn quot(a: C64, b: C64) -> Option<C64> {
    let abs_br = b.0.abs();
    let abs_bi = b.1.abs();
    if abs_br >= abs_bi {
        if abs_br == 0.0 {
            return None;
        }
        let ratio = b.1 / b.0;
        let denom = b.0 + b.1 * ratio;
        Some(((a.0 + a.1 * ratio) / denom, (a.1 - a.0 * ratio) / denom))
    } else if abs_bi >= abs_br {
        let ratio = b.0 / b.1;
        let denom = b.0 * ratio + b.1;
        Some(((a.0 * ratio + a.1) / denom, (a.1 * ratio - a.0) / denom))
    } else {
        // At least one part of the divisor is a NaN.
        Some((f64::NAN, f64::NAN))
    }
}

fn div(vm: &mut Vm, a: C64, b: C64) -> R<C64> {
    quot(a, b).ok_or_else(|| vm.new_exc("ZeroDivisionError", "complex division by zero"))
}

/// `c_powu`: `x ** n` for `n >= 1` by repeated squaring.
fn powu(x: C64, n: i64) -> C64 {
    let mut r = (1.0, 0.0);
    let mut p = x;
    let mut mask: i64 = 1;
    while mask > 0 && n >= mask {
        if n & mask != 0 {
            r = prod(r, p);
        }
        mask <<= 1;
        p = prod(p, p);
    }
    r
}

/// `_Py_c_pow`; `Err(())` is CPython's EDOM (zero to a negative or complex power).
fn c_pow_general(a: C64, b: C64) -> Result<C64, ()> {
    if b.0 == 0.0 && b.1 == 0.0 {
        return Ok((1.0, 0.0));
    }
    if a.0 == 0.0 && a.1 == 0.0 {
        if b.1 != 0.0 || b.0 < 0.0 {
            return Err(());
        }
        return Ok((0.0, 0.0));
    }
    let vabs = libm::hypot(a.0, a.1);
    let mut len = libm::pow(vabs, b.0);
    let at = libm::atan2(a.1, a.0);
    let mut phase = at * b.0;
    if b.1 != 0.0 {
        len /= libm::exp(at * b.1);
        phase += b.1 * libm::log(vabs);
    }
    Ok((len * libm::cos(phase), len * libm::sin(phase)))
}

/// `complex_pow` of CPython 3.11: `c_powi` for integral exponents within ±100, else
/// `_Py_c_pow`; an infinite part is an OverflowError.
pub fn pow(vm: &mut Vm, a: C64, b: C64) -> R<C64> {
    let zero_div =
        |vm: &mut Vm| vm.new_exc("ZeroDivisionError", "0.0 to a negative or complex power");
    let int_exp = b.0 as i64;
    let r = if b.1 == 0.0 && b.0 == int_exp as f64 {
        if !(-100..=100).contains(&int_exp) {
            c_pow_general(a, (int_exp as f64, 0.0))
        } else if int_exp > 0 {
            Ok(powu(a, int_exp))
        } else {
            // `_Py_c_quot(c_1, c_powu(x, -n))`: a zero divisor is EDOM here.
            quot((1.0, 0.0), powu(a, -int_exp)).ok_or(())
        }
    } else {
        c_pow_general(a, b)
    };
    let (re, im) = r.map_err(|_| zero_div(vm))?;
    if re.is_infinite() || im.is_infinite() {
        return Err(vm.new_exc("OverflowError", "complex exponentiation"));
    }
    Ok((re, im))
}

fn c_add(vm: &mut Vm, a: Args) -> R<Value> {
    binary(vm, a, "__add__", false, add)
}
fn c_radd(vm: &mut Vm, a: Args) -> R<Value> {
    binary(vm, a, "__radd__", true, add)
}
fn c_sub(vm: &mut Vm, a: Args) -> R<Value> {
    binary(vm, a, "__sub__", false, sub)
}
fn c_rsub(vm: &mut Vm, a: Args) -> R<Value> {
    binary(vm, a, "__rsub__", true, sub)
}
fn c_mul(vm: &mut Vm, a: Args) -> R<Value> {
    binary(vm, a, "__mul__", false, mul)
}
fn c_rmul(vm: &mut Vm, a: Args) -> R<Value> {
    binary(vm, a, "__rmul__", true, mul)
}
fn c_truediv(vm: &mut Vm, a: Args) -> R<Value> {
    binary(vm, a, "__truediv__", false, div)
}
fn c_rtruediv(vm: &mut Vm, a: Args) -> R<Value> {
    binary(vm, a, "__rtruediv__", true, div)
}

fn pow_method(vm: &mut Vm, a: Args, method: &str, reflected: bool) -> R<Value> {
    if a.pos.len() > 3 {
        return Err(vm.type_err(format!(
            "expected at most 2 arguments, got {}",
            a.pos.len() - 1
        )));
    }
    let modulo = a.pos.get(2).cloned().unwrap_or_default();
    let Some((x, y)) = pair(vm, &a, method)? else {
        return Ok(Value::NotImplemented);
    };
    if !modulo.is_none() {
        return Err(vm.value_err("complex modulo"));
    }
    vm.charge(cost::CALL)?;
    let (l, r) = if reflected { (y, x) } else { (x, y) };
    let (re, im) = pow(vm, l, r)?;
    Ok(new(vm, re, im))
}
fn c_pow(vm: &mut Vm, a: Args) -> R<Value> {
    pow_method(vm, a, "__pow__", false)
}
fn c_rpow(vm: &mut Vm, a: Args) -> R<Value> {
    pow_method(vm, a, "__rpow__", true)
}

fn c_neg(vm: &mut Vm, a: Args) -> R<Value> {
    let (re, im) = this(vm, &a, "__neg__")?;
    Ok(new(vm, -re, -im))
}
fn c_pos(vm: &mut Vm, a: Args) -> R<Value> {
    let (re, im) = this(vm, &a, "__pos__")?;
    Ok(new(vm, re, im))
}
fn c_conjugate(vm: &mut Vm, a: Args) -> R<Value> {
    let (re, im) = this(vm, &a, "conjugate")?;
    Ok(new(vm, re, -im))
}
fn c_complex(vm: &mut Vm, a: Args) -> R<Value> {
    let (re, im) = this(vm, &a, "__complex__")?;
    Ok(new(vm, re, im))
}
fn c_getnewargs(vm: &mut Vm, a: Args) -> R<Value> {
    let (re, im) = this(vm, &a, "__getnewargs__")?;
    Ok(Value::tuple(vec![Value::Float(re), Value::Float(im)]))
}
fn c_real(vm: &mut Vm, a: Args) -> R<Value> {
    Ok(Value::Float(this(vm, &a, "real")?.0))
}
fn c_imag(vm: &mut Vm, a: Args) -> R<Value> {
    Ok(Value::Float(this(vm, &a, "imag")?.1))
}
fn c_bool(vm: &mut Vm, a: Args) -> R<Value> {
    let (re, im) = this(vm, &a, "__bool__")?;
    Ok(Value::Bool(re != 0.0 || im != 0.0))
}

fn c_abs(vm: &mut Vm, a: Args) -> R<Value> {
    let (re, im) = this(vm, &a, "__abs__")?;
    vm.charge(cost::ARITH)?;
    Ok(Value::Float(abs(vm, re, im)?))
}

/// `_Py_c_abs`: infinite if either part is, else NaN if either is, else `hypot`, which must
/// not overflow.
pub fn abs(vm: &mut Vm, re: f64, im: f64) -> R<f64> {
    if re.is_infinite() || im.is_infinite() {
        return Ok(f64::INFINITY);
    }
    if re.is_nan() || im.is_nan() {
        return Ok(f64::NAN);
    }
    let r = libm::hypot(re, im);
    if r.is_infinite() {
        return Err(vm.new_exc("OverflowError", "absolute value too large"));
    }
    Ok(r)
}

/// `complex_hash`: `hash(re) + 1000003 * hash(im)` in unsigned machine arithmetic.
fn c_hash(vm: &mut Vm, a: Args) -> R<Value> {
    let (re, im) = this(vm, &a, "__hash__")?;
    // CPython hashes a NaN part by the complex object's identity (a per-invocation serial
    // here, LIMITATIONS 14).
    let h = |f: f64| -> u64 {
        if f.is_nan() {
            a.pos[0].identity().wrapping_mul(0x9E37_79B9_7F4A_7C15)
        } else {
            crate::vm::ops::float_hash(f) as u64
        }
    };
    let (hr, hi) = (h(re), h(im));
    let mut r = hr.wrapping_add(hi.wrapping_mul(1_000_003)) as i64;
    if r == -1 {
        r = -2;
    }
    Ok(Value::Int(r))
}

fn equal(vm: &mut Vm, a: &Args, method: &str) -> R<Option<bool>> {
    let x = this(vm, a, method)?;
    let Some(o) = a.pos.get(1) else {
        return Err(vm.type_err(format!("expected 1 argument, got {}", a.pos.len() - 1)));
    };
    vm.charge(cost::ARITH)?;
    Ok(match o {
        // Exact against ints (no rounding of the int to a float), as CPython.
        Value::Int(_) | Value::Bool(_) | Value::BigInt(_) => {
            if x.1 != 0.0 {
                Some(false)
            } else {
                Some(vm.eq(&Value::Float(x.0), o)?)
            }
        }
        _ => operand(vm, o)?.map(|y| x.0 == y.0 && x.1 == y.1),
    })
}

fn c_eq(vm: &mut Vm, a: Args) -> R<Value> {
    Ok(match equal(vm, &a, "__eq__")? {
        Some(b) => Value::Bool(b),
        None => Value::NotImplemented,
    })
}
fn c_ne(vm: &mut Vm, a: Args) -> R<Value> {
    Ok(match equal(vm, &a, "__ne__")? {
        Some(b) => Value::Bool(!b),
        None => Value::NotImplemented,
    })
}

/// A part in `repr` style (`PyOS_double_to_string(x, 'r', 0, flags)`): the shortest repr
/// without the `.0` a float's repr adds; `sign` forces a `+` on non-negative values.
fn repr_part(x: f64, sign: bool) -> String {
    let mut s = format::float_repr(x);
    if let Some(t) = s.strip_suffix(".0") {
        s = t.to_string();
    }
    if sign && !s.starts_with('-') {
        s.insert(0, '+');
    }
    s
}

/// `repr(complex)`.
pub fn repr(re: f64, im: f64) -> String {
    if re == 0.0 && re.is_sign_positive() {
        format!("{}j", repr_part(im, false))
    } else {
        format!("({}{}j)", repr_part(re, false), repr_part(im, true))
    }
}

fn c_repr(vm: &mut Vm, a: Args) -> R<Value> {
    let (re, im) = this(vm, &a, "__repr__")?;
    Ok(Value::str(&repr(re, im)))
}

/// `format(complex, spec)`: each part formatted as a float with the spec's sign, `#`,
/// grouping, precision and type (the imaginary part always signed unless the real part is
/// omitted), then `j`, parentheses for an empty type, and padding of the whole.
fn c_format(vm: &mut Vm, a: Args) -> R<Value> {
    let (re, im) = this(vm, &a, "__format__")?;
    let spec = match a.pos.get(1) {
        Some(Value::Str(s)) => s.s.to_string(),
        Some(v) => {
            let tn = vm.type_name(v);
            return Err(vm.type_err(format!("format() argument 2 must be str, not {tn}")));
        }
        None => return Err(vm.type_err("format() takes exactly one argument (0 given)")),
    };
    if spec.is_empty() {
        return Ok(Value::str(&repr(re, im)));
    }
    vm.charge(cost::per_char(spec.len()))?;
    let p = crate::format::parse_spec(vm, &spec, "complex")?;
    if p.zero || p.fill == Some('0') {
        return Err(vm.value_err("Zero padding is not allowed in complex format specifier"));
    }
    if p.align == Some('=') {
        return Err(vm.value_err("'=' alignment flag is not allowed in complex format specifier"));
    }
    let ty = match p.ty {
        None => None,
        Some(t @ ('e' | 'E' | 'f' | 'F' | 'g' | 'G')) => Some(t),
        Some('n') => Some('g'),
        Some(t) => {
            return Err(vm.value_err(format!(
                "Unknown format code '{t}' for object of type 'complex'"
            )))
        }
    };
    let (skip_re, parens) = match ty {
        None => {
            let skip = re == 0.0 && re.is_sign_positive();
            (skip, !skip)
        }
        Some(_) => (false, false),
    };
    // Empty type: repr style without a precision, 'g' with one.
    let ty = ty.or(p.precision.map(|_| 'g'));
    let part = |vm: &mut Vm, x: f64, sign: Option<char>| -> R<String> {
        match ty {
            None => {
                let mut s = repr_part(x, sign == Some('+'));
                if let Some(g) = p.grouping {
                    s = group_int_part(&s, g);
                }
                Ok(match sign {
                    Some(' ') if !s.starts_with('-') => format!(" {s}"),
                    _ => s,
                })
            }
            Some(t) => {
                let mut sub = String::new();
                if let Some(s) = sign {
                    sub.push(s);
                }
                if p.alt {
                    sub.push('#');
                }
                if let Some(g) = p.grouping {
                    sub.push(g);
                }
                if let Some(pr) = p.precision {
                    sub.push_str(&format!(".{pr}"));
                }
                sub.push(t);
                format::format_value(vm, &Value::Float(x), &sub)
            }
        }
    };
    let re_s = if skip_re {
        String::new()
    } else {
        part(vm, re, p.sign)?
    };
    let im_s = part(vm, im, if skip_re { p.sign } else { Some('+') })?;
    let body = if parens {
        format!("({re_s}{im_s}j)")
    } else {
        format!("{re_s}{im_s}j")
    };
    let len = body.chars().count();
    if p.width <= len {
        return Ok(Value::str(&body));
    }
    vm.charge(cost::per_char(p.width))?;
    vm.reserve(p.width as u64 * 4)?;
    let n = p.width - len;
    let fill = p.fill.unwrap_or(' ');
    let f = |k: usize| std::iter::repeat_n(fill, k).collect::<String>();
    Ok(Value::str(&match p.align.unwrap_or('>') {
        '<' => body + &f(n),
        '^' => f(n / 2) + &body + &f(n - n / 2),
        _ => f(n) + &body,
    }))
}

/// Insert the thousands separator `sep` into the integer digits of a formatted number.
fn group_int_part(s: &str, sep: char) -> String {
    let start = s.find(|c: char| c.is_ascii_digit()).unwrap_or(s.len());
    let end = s[start..]
        .find(|c: char| !c.is_ascii_digit())
        .map_or(s.len(), |k| start + k);
    let digits = &s[start..end];
    let mut out = String::from(&s[..start]);
    for (k, c) in digits.chars().enumerate() {
        if k > 0 && (digits.len() - k).is_multiple_of(3) {
            out.push(sep);
        }
        out.push(c);
    }
    out.push_str(&s[end..]);
    out
}

/// `complex(real=0, imag=0)` and `complex(string)`.
fn c_new(vm: &mut Vm, mut a: Args) -> R<Value> {
    let cls = match a.pos.first() {
        Some(Value::Class(c)) => c.clone(),
        _ => return Err(vm.type_err("complex.__new__(X): X is not a type object")),
    };
    a.pos.remove(0);
    let mut real = a.pos.first().cloned();
    let mut imag = a.pos.get(1).cloned();
    let given = a.pos.len() + a.kw.len();
    if given > 2 {
        return Err(vm.type_err(format!(
            "complex() takes at most 2 arguments ({given} given)"
        )));
    }
    for (k, v) in std::mem::take(&mut a.kw) {
        let slot = match &*k {
            "real" => &mut real,
            "imag" => &mut imag,
            _ => {
                return Err(vm.type_err(format!(
                    "'{k}' is an invalid keyword argument for complex()"
                )))
            }
        };
        if slot.is_some() {
            let pos = if &*k == "real" { 1 } else { 2 };
            return Err(vm.type_err(format!(
                "argument for complex() given by name ('{k}') and position ({pos})"
            )));
        }
        *slot = Some(v);
    }
    let (re, im) = construct(vm, real, imag)?;
    if Rc::ptr_eq(&cls, &vm.types.complex) {
        return Ok(new(vm, re, im));
    }
    let inst = Instance::new(cls);
    *inst.native.borrow_mut() = Some(Box::new(Complex { re, im }));
    Ok(Value::Instance(crate::value::rc_inst(inst)))
}

fn construct(vm: &mut Vm, r: Option<Value>, i: Option<Value>) -> R<C64> {
    let Some(r) = r else {
        return match i {
            None => Ok((0.0, 0.0)),
            Some(i) => construct(vm, Some(Value::Int(0)), Some(i)),
        };
    };
    if let Value::Str(s) = &r {
        if i.is_some() {
            return Err(vm.type_err("complex() can't take second arg if first is a string"));
        }
        vm.charge(cost::per_char(s.s.len()))?;
        let Some(t) = remove_underscores(&s.s) else {
            let r = crate::unicode::str_repr(&s.s);
            return Err(vm.value_err(format!("could not convert string to complex: {r}")));
        };
        return parse_str(&t).ok_or_else(|| vm.value_err("complex() arg is a malformed string"));
    }
    if let Some(Value::Str(_)) = &i {
        return Err(vm.type_err("complex() second arg can't be a string"));
    }
    let (cr, cr_is_complex) = part(vm, &r, true)?;
    let (ci, ci_is_complex) = match &i {
        None => ((if cr_is_complex { cr.1 } else { 0.0 }, 0.0), false),
        Some(i) => part(vm, i, false)?,
    };
    let mut re = cr.0;
    let mut im = ci.0;
    if ci_is_complex {
        re -= ci.1;
    }
    if cr_is_complex && i.is_some() {
        im += cr.1;
    }
    Ok((re, im))
}

/// A constructor argument as `((re, im), is_complex)`.
fn part(vm: &mut Vm, v: &Value, first: bool) -> R<(C64, bool)> {
    if let Some(c) = value_of(v) {
        // A subclass may convert itself with `__complex__`.
        if let Some(r) = complex_dunder(vm, v)? {
            return Ok((r, true));
        }
        return Ok((c, true));
    }
    match v {
        Value::Int(_) | Value::Bool(_) | Value::BigInt(_) | Value::Float(_) => {
            Ok(((vm.to_float(v)?, 0.0), false))
        }
        Value::Instance(_) => {
            if first {
                if let Some(r) = complex_dunder(vm, v)? {
                    return Ok((r, true));
                }
            }
            let has = vm.lookup_dunder(v, "__float__").is_some()
                || vm.lookup_dunder(v, "__index__").is_some();
            if has || crate::vm::ops::as_f64(&base(v)).is_some() {
                return Ok(((vm.to_float(v)?, 0.0), false));
            }
            Err(not_a_number(vm, v, first))
        }
        _ => Err(not_a_number(vm, v, first)),
    }
}

fn base(v: &Value) -> Value {
    match v {
        Value::Instance(i) => i.base.borrow().clone().unwrap_or_default(),
        _ => Value::None,
    }
}

fn complex_dunder(vm: &mut Vm, v: &Value) -> R<Option<C64>> {
    let Some(m) = vm.lookup_dunder(v, "__complex__") else {
        return Ok(None);
    };
    let r = vm.call(&m, Args::new(vec![v.clone()]))?;
    match value_of(&r) {
        Some(c) => Ok(Some(c)),
        None => {
            let tn = vm.type_name(&r);
            Err(vm.type_err(format!("__complex__ returned non-complex (type {tn})")))
        }
    }
}

fn not_a_number(vm: &mut Vm, v: &Value, first: bool) -> Exc {
    let tn = vm.type_name(v);
    vm.type_err(if first {
        format!("complex() first argument must be a string or a number, not '{tn}'")
    } else {
        format!("complex() second argument must be a number, not '{tn}'")
    })
}

/// `complex(str)` once underscores are removed: CPython's `complex_from_string_inner`:
/// `<float>`, `<float>j`, `<float><signed-float>j`, `<float><sign>j`, `<sign>j`
/// and `j`, optionally in parentheses, with surrounding whitespace.
pub fn parse_str(s: &str) -> Option<C64> {
    let s: String = s
        .chars()
        .map(|c| if crate::unicode::is_space(c) { ' ' } else { c })
        .collect();
    let b = s.as_bytes();
    let mut i = 0;
    let skip_ws = |i: &mut usize| {
        while *i < b.len() && b[*i] == b' ' {
            *i += 1;
        }
    };
    skip_ws(&mut i);
    let bracket = b.get(i) == Some(&b'(');
    if bracket {
        i += 1;
        skip_ws(&mut i);
    }
    let is_j = |c: Option<&u8>| matches!(c, Some(b'j' | b'J'));
    let (mut x, mut y) = (0.0, 0.0);
    if let Some((z, end)) = float_prefix(&s[i..]) {
        i += end;
        match b.get(i) {
            Some(b'+' | b'-') => {
                x = z;
                if let Some((w, end)) = float_prefix(&s[i..]) {
                    y = w;
                    i += end;
                } else {
                    y = if b[i] == b'+' { 1.0 } else { -1.0 };
                    i += 1;
                }
                if !is_j(b.get(i)) {
                    return None;
                }
                i += 1;
            }
            Some(b'j' | b'J') => {
                y = z;
                i += 1;
            }
            _ => x = z,
        }
    } else {
        if let Some(c @ (b'+' | b'-')) = b.get(i) {
            y = if *c == b'+' { 1.0 } else { -1.0 };
            i += 1;
        } else {
            y = 1.0;
        }
        if !is_j(b.get(i)) {
            return None;
        }
        i += 1;
    }
    skip_ws(&mut i);
    if bracket {
        if b.get(i) != Some(&b')') {
            return None;
        }
        i += 1;
        skip_ws(&mut i);
    }
    (i == b.len()).then_some((x, y))
}

/// Underscores are allowed only between two digits.
fn remove_underscores(s: &str) -> Option<String> {
    if !s.contains('_') {
        return Some(s.to_string());
    }
    let cs: Vec<char> = s.chars().collect();
    let mut out = String::new();
    for (k, &c) in cs.iter().enumerate() {
        if c == '_' {
            let prev = k > 0 && cs[k - 1].is_ascii_digit();
            let next = cs.get(k + 1).is_some_and(|n| n.is_ascii_digit());
            if !(prev && next) {
                return None;
            }
        } else {
            out.push(c);
        }
    }
    Some(out)
}

/// The longest prefix of `s` that is a float (`_Py_dg_strtod` / `PyOS_string_to_double`):
/// an optional sign, then `inf`, `infinity`, `nan` (any case) or decimal digits with an
/// optional fraction and exponent. Returns the value and the length used.
fn float_prefix(s: &str) -> Option<(f64, usize)> {
    let b = s.as_bytes();
    let mut i = 0;
    let neg = match b.first() {
        Some(b'-') => {
            i = 1;
            true
        }
        Some(b'+') => {
            i = 1;
            false
        }
        _ => false,
    };
    let rest = s[i..].to_ascii_lowercase();
    let signed = |v: f64| if neg { -v } else { v };
    if rest.starts_with("infinity") {
        return Some((signed(f64::INFINITY), i + 8));
    }
    if rest.starts_with("inf") {
        return Some((signed(f64::INFINITY), i + 3));
    }
    if rest.starts_with("nan") {
        return Some((signed(f64::NAN), i + 3));
    }
    let start = i;
    let mut digits = 0;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
        digits += 1;
    }
    if i < b.len() && b[i] == b'.' {
        i += 1;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
            digits += 1;
        }
    }
    if digits == 0 {
        return None;
    }
    if i < b.len() && matches!(b[i], b'e' | b'E') {
        let mut k = i + 1;
        if k < b.len() && matches!(b[k], b'+' | b'-') {
            k += 1;
        }
        if k < b.len() && b[k].is_ascii_digit() {
            while k < b.len() && b[k].is_ascii_digit() {
                k += 1;
            }
            i = k;
        }
    }
    let v: f64 = s[start..i].parse().ok()?;
    Some((signed(v), i))
}
