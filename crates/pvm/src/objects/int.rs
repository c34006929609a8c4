//! `int`, `bool` and `float` methods and numeric helpers.

use super::arity::Arity::*;
use crate::value::*;
use crate::vm::{Args, Exc, Vm, R};
use num_bigint::BigInt;
use num_integer::Integer;
use num_traits::{Signed, ToPrimitive, Zero};

methods! {
    /// `int`'s methods (and `bool`'s, which act on its value: `True.conjugate()` is `1`).
    INT, METHODS: Value;
    listed {
        "bit_length" => Some(NoArgs), bit_length;
        "bit_count" => Some(NoArgs), bit_count;
        "to_bytes" => Some(Kw {
            posonly: 0,
            minpos: 0,
            maxpos: 2,
            names: &["length", "byteorder", "signed"],
        }), to_bytes;
        "conjugate" => Some(NoArgs), |_, v, _| Ok(int_value(v));
        "as_integer_ratio" => Some(NoArgs), int_as_integer_ratio;
    }
    unlisted {}
}

methods! {
    /// `float`'s methods.
    FLOAT, FLOAT_METHODS: Value;
    listed {
        "is_integer" => Some(NoArgs), is_integer;
        "hex" => Some(NoArgs), |_, v, _| Ok(Value::str(&float_hex(float_value(v))));
        "as_integer_ratio" => Some(NoArgs), float_as_integer_ratio;
        "conjugate" => Some(NoArgs), |_, v, _| Ok(Value::Float(float_value(v)));
    }
    unlisted {}
}

/// Exact int/int true division rounded like CPython (via f64 when exact enough).
pub fn big_truediv(vm: &mut Vm, x: &BigInt, y: &BigInt) -> R<f64> {
    let (fx, fy) = (x.to_f64(), y.to_f64());
    // Both exact in a double: one correctly rounded IEEE division.
    if let (Some(a), Some(b)) = (fx, fy) {
        if a.is_finite()
            && b.is_finite()
            && a.abs() < 9.007_199_254_740_992e15
            && b.abs() < 9.007_199_254_740_992e15
        {
            return Ok(a / b);
        }
    }
    // Otherwise divide the integers scaled so that the quotient keeps 64+ significant bits,
    // fold the remainder into a sticky bit, and let the u128 -> f64 conversion round once.
    let (a, b) = (x.magnitude(), y.magnitude());
    let shift = 66 + b.bits() as i64 - a.bits() as i64;
    let (n, d) = if shift >= 0 {
        (a << shift as usize, b.clone())
    } else {
        (a.clone(), b << (-shift) as usize)
    };
    let (q, r) = n.div_rem(&d);
    let mut q: u128 = q.try_into().unwrap_or(u128::MAX);
    if !r.is_zero() {
        q |= 1;
    }
    let mag = libm::ldexp(q as f64, -(shift as i32));
    if mag.is_infinite() {
        return Err(vm.new_exc(
            "OverflowError",
            "integer division result too large for a float",
        ));
    }
    Ok(if x.is_negative() != y.is_negative() {
        -mag
    } else {
        mag
    })
}

/// An integral float as a BigInt.
pub fn float_to_big(f: f64) -> Option<BigInt> {
    if !f.is_finite() {
        return None;
    }
    let t = f.trunc();
    if t.abs() < 9.0e18 {
        return Some(BigInt::from(t as i64));
    }
    let bits = t.to_bits();
    let exp = ((bits >> 52) & 0x7ff) as i64 - 1075;
    let mant = (bits & ((1u64 << 52) - 1)) | (1u64 << 52);
    let m = BigInt::from(mant);
    let v = if exp >= 0 {
        m << exp as usize
    } else {
        m >> (-exp) as usize
    };
    Some(if t < 0.0 { -v } else { v })
}

/// An int method's receiver as an int: a bool's value (bit_count, as_integer_ratio … give
/// ints).
fn int_value(v: &Value) -> Value {
    match v {
        Value::Bool(b) => Value::Int(i64::from(*b)),
        _ => v.clone(),
    }
}

/// A float method's receiver (always a float: the table is `float`'s).
fn float_value(v: &Value) -> f64 {
    match v {
        Value::Float(f) => *f,
        _ => 0.0,
    }
}

/// `int.as_integer_ratio()`.
fn int_as_integer_ratio(_: &mut Vm, v: &Value, _: Args) -> R<Value> {
    Ok(Value::tuple(vec![int_value(v), Value::Int(1)]))
}

/// `float.is_integer()`.
fn is_integer(_: &mut Vm, v: &Value, _: Args) -> R<Value> {
    let f = float_value(v);
    Ok(Value::Bool(f.is_finite() && f.fract() == 0.0))
}

/// `int.bit_length()`.
fn bit_length(_: &mut Vm, v: &Value, _: Args) -> R<Value> {
    Ok(Value::Int(match v {
        Value::Int(i) => 64 - i.unsigned_abs().leading_zeros() as i64,
        Value::Bool(b) => *b as i64,
        Value::BigInt(b) => b.bits() as i64,
        _ => 0,
    }))
}

/// `int.bit_count()`.
fn bit_count(_: &mut Vm, v: &Value, _: Args) -> R<Value> {
    Ok(Value::Int(match v {
        Value::Int(i) => i.unsigned_abs().count_ones() as i64,
        Value::Bool(b) => *b as i64,
        Value::BigInt(b) => b.abs().to_biguint().map(|u| u.count_ones()).unwrap_or(0) as i64,
        _ => 0,
    }))
}

/// `int.to_bytes(length=1, byteorder='big', *, signed=False)`.
fn to_bytes(vm: &mut Vm, v: &Value, mut a: Args) -> R<Value> {
    let len = match a.pos.first() {
        Some(x) => vm.index_of(x)?,
        None => a
            .take_kw("length")
            .map(|x| vm.index_of(&x))
            .transpose()?
            .unwrap_or(1),
    };
    let order = a
        .pos
        .get(1)
        .cloned()
        .or_else(|| a.take_kw("byteorder"))
        .unwrap_or(Value::str("big"));
    let signed = a
        .take_kw("signed")
        .map(|x| vm.truthy(&x))
        .transpose()?
        .unwrap_or(false);
    let b = match v {
        Value::Int(i) => BigInt::from(*i),
        Value::Bool(x) => BigInt::from(*x as i64),
        Value::BigInt(b) => (**b).clone(),
        _ => BigInt::zero(),
    };
    crate::objects::types::check_byteorder(vm, &order, "to_bytes")?;
    if b.is_negative() && !signed {
        return Err(vm.new_exc("OverflowError", "can't convert negative int to unsigned"));
    }
    if len < 0 {
        return Err(vm.value_err("length argument must be non-negative"));
    }
    if len > 4096 {
        return Err(vm.value_err("length argument out of range"));
    }
    vm.charge(
        crate::cost::per_char(len as usize).saturating_add(crate::cost::bigint_linear(b.bits())),
    )?;
    let mut bytes = b.to_signed_bytes_be();
    if !signed && bytes.len() > 1 && bytes[0] == 0 {
        bytes.remove(0);
    }
    if b.is_zero() {
        bytes = vec![];
    }
    if bytes.len() > len as usize {
        return Err(vm.new_exc("OverflowError", "int too big to convert"));
    }
    let fill = if b.is_negative() { 0xff } else { 0 };
    let mut out = vec![fill; len as usize - bytes.len()];
    out.extend(bytes);
    if matches!(&order, Value::Str(s) if &*s.s == "little") {
        out.reverse();
    }
    Ok(Value::bytes(out))
}

/// `float.as_integer_ratio()`.
fn float_as_integer_ratio(vm: &mut Vm, v: &Value, _: Args) -> R<Value> {
    let f = float_value(v);
    if f.is_nan() {
        return Err(vm.value_err("cannot convert NaN to integer ratio"));
    }
    if !f.is_finite() {
        return Err(vm.new_exc("OverflowError", "cannot convert Infinity to integer ratio"));
    }
    // `m` is odd (or 0), so the ratio is already in lowest terms.
    let (m, e) = float_parts(f);
    let (num, den) = if e >= 0 {
        (BigInt::from(m) << e as usize, BigInt::from(1))
    } else {
        (BigInt::from(m), BigInt::from(1) << (-e) as usize)
    };
    let a = vm.int_result(num)?;
    let b = vm.int_result(den)?;
    Ok(Value::tuple(vec![a, b]))
}

/// A name neither table has, on an int, bool or float: AttributeError, naming a bool's type
/// as `int` (as before the tables; `has_method` keeps such calls from getting here).
pub fn no_method(vm: &mut Vm, v: &Value, name: &str) -> Exc {
    vm.attr_error(&int_value(v), name)
}

/// `(m, e)` with `f == m * 2**e` exactly and `m` odd (or zero); `f` must be finite.
pub fn float_parts(f: f64) -> (i64, i64) {
    let bits = f.to_bits();
    let biased = ((bits >> 52) & 0x7ff) as i64;
    let frac = (bits & ((1u64 << 52) - 1)) as i64;
    let (mut m, mut e) = if biased == 0 {
        (frac, -1074)
    } else {
        (frac | (1 << 52), biased - 1075)
    };
    if m == 0 {
        return (0, 0);
    }
    let tz = m.trailing_zeros();
    m >>= tz;
    e += tz as i64;
    (if f < 0.0 { -m } else { m }, e)
}

/// `float.hex()` in CPython's format: `[-]0x1.<13 hex digits>p<±exp>`, subnormals as
/// `0x0.<13 hex digits>p-1022`, zero as `0x0.0p+0`.
pub fn float_hex(f: f64) -> String {
    if f.is_nan() {
        return "nan".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "inf" } else { "-inf" }.into();
    }
    let sign = if f.is_sign_negative() { "-" } else { "" };
    if f == 0.0 {
        return format!("{sign}0x0.0p+0");
    }
    let bits = f.to_bits();
    let biased = ((bits >> 52) & 0x7ff) as i64;
    let frac = bits & ((1u64 << 52) - 1);
    let (lead, exp) = if biased == 0 {
        (0, -1022)
    } else {
        (1, biased - 1023)
    };
    format!("{sign}0x{lead}.{frac:013x}p{exp:+}")
}

/// `float.fromhex(s)`: CPython's grammar (`[sign] ['0x'] hexdigits ['.' hexdigits]
/// ['p' [sign] digits]`, or inf/infinity/nan, surrounding whitespace), correctly rounded
/// (half to even) including subnormals. The caller charges per character.
pub fn float_fromhex(vm: &mut Vm, text: &str) -> R<f64> {
    const INVALID: &str = "invalid hexadecimal floating-point string";
    const TOO_LARGE: &str = "hexadecimal value too large to represent as a float";
    // CPython parses the UTF-8 text and skips ASCII whitespace only (Py_ISSPACE).
    let t = text.trim_matches(|c: char| matches!(c, ' ' | '\t'..='\r'));
    let (neg, body) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let lower = body.to_ascii_lowercase();
    if matches!(lower.as_str(), "inf" | "infinity" | "nan") {
        let v = if lower == "nan" {
            f64::NAN
        } else {
            f64::INFINITY
        };
        return Ok(if neg { -v } else { v });
    }
    let b = lower.as_bytes();
    let mut i = if b.starts_with(b"0x") { 2 } else { 0 };
    let mut digits: Vec<u8> = Vec::new();
    let mut frac_digits: i64 = 0;
    let mut seen_dot = false;
    while i < b.len() {
        match b[i] {
            c @ (b'0'..=b'9' | b'a'..=b'f') => {
                digits.push((c as char).to_digit(16).unwrap_or(0) as u8);
                if seen_dot {
                    frac_digits += 1;
                }
            }
            b'.' if !seen_dot => seen_dot = true,
            _ => break,
        }
        i += 1;
    }
    if digits.is_empty() {
        return Err(vm.value_err(INVALID));
    }
    // Only the first 16 significant digits (at least 61 bits) can reach the 53-bit result;
    // the rest only matter as a sticky nibble below them (so ties round correctly). This keeps
    // the work linear in the length of the string.
    let sig = match digits.iter().position(|&d| d != 0) {
        Some(p) => &digits[p..],
        None => &digits[digits.len()..],
    };
    let keep = sig.len().min(16);
    let mut m: u128 = 0;
    for &d in &sig[..keep] {
        m = (m << 4) | d as u128;
    }
    let sticky = sig[keep..].iter().any(|&d| d != 0);
    let mant = BigInt::from((m << 4) | sticky as u128);
    let dropped = (sig.len() - keep) as i64;
    // The exponent saturates (like C's strtol) far beyond any float's range.
    const EXP_CAP: i64 = 1 << 50;
    let mut exp: i64 = 0;
    if i < b.len() && b[i] == b'p' {
        i += 1;
        let eneg = match b.get(i) {
            Some(b'-') => {
                i += 1;
                true
            }
            Some(b'+') => {
                i += 1;
                false
            }
            _ => false,
        };
        let start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            exp = (exp * 10 + (b[i] - b'0') as i64).min(EXP_CAP);
            i += 1;
        }
        if i == start {
            return Err(vm.value_err(INVALID));
        }
        if eneg {
            exp = -exp;
        }
    }
    if i != b.len() {
        return Err(vm.value_err(INVALID));
    }
    let sign = if neg { -1.0 } else { 1.0 };
    if mant.is_zero() {
        return Ok(sign * 0.0);
    }
    // value = mant * 2**e; its leading bit has weight 2**top.
    let e = exp - 4 * frac_digits + 4 * dropped - 4;
    let top = mant.bits() as i64 - 1 + e;
    if top >= 1024 {
        return Err(vm.new_exc("OverflowError", TOO_LARGE));
    }
    if top < -1075 {
        return Ok(sign * 0.0);
    }
    // Keep 53 significant bits, or fewer for subnormals (lowest bit weight 2**-1074).
    let lsb = (top - 52).max(-1074);
    let shift = lsb - e;
    let q: u64 = if shift <= 0 {
        (mant << (-shift) as usize).to_u64().unwrap_or(0)
    } else {
        let s = shift as usize;
        let half = BigInt::from(1) << (s - 1);
        let rem = &mant & ((BigInt::from(1) << s) - 1);
        let q = (mant >> s).to_u64().unwrap_or(0);
        if rem > half || (rem == half && q & 1 == 1) {
            q + 1
        } else {
            q
        }
    };
    // q < 2**54 and q * 2**lsb is representable (or rounds up to 2**1024 = overflow), so
    // this product is exact; 2**lsb itself is a normal or subnormal power of two.
    let scale = if lsb >= -1022 {
        f64::from_bits(((lsb + 1023) as u64) << 52)
    } else {
        f64::from_bits(1u64 << (lsb + 1074))
    };
    let v = q as f64 * scale;
    if v.is_infinite() {
        return Err(vm.new_exc("OverflowError", TOO_LARGE));
    }
    Ok(sign * v)
}

/// Integral float → int value.
pub fn float_to_int(vm: &mut Vm, f: f64) -> R<Value> {
    if f.is_nan() {
        return Err(vm.value_err("cannot convert float NaN to integer"));
    }
    if f.is_infinite() {
        return Err(vm.new_exc("OverflowError", "cannot convert float infinity to integer"));
    }
    match float_to_big(f) {
        Some(b) => vm.int_result(b),
        None => Err(vm.value_err("cannot convert float")),
    }
}
