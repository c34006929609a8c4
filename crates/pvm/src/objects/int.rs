//! `int`, `bool` and `float` methods and numeric helpers.

use crate::value::*;
use crate::vm::{Args, Vm, R};
use num_bigint::BigInt;
use num_traits::{Signed, ToPrimitive, Zero};

/// Method names.
pub const METHODS: &[&str] = &[
    "bit_length",
    "bit_count",
    "to_bytes",
    "conjugate",
    "is_integer",
    "as_integer_ratio",
];

/// Exact int/int true division rounded like CPython (via f64 when exact enough).
pub fn big_truediv(vm: &mut Vm, x: &BigInt, y: &BigInt) -> R<f64> {
    let (fx, fy) = (x.to_f64(), y.to_f64());
    match (fx, fy) {
        (Some(a), Some(b)) if a.is_finite() && b.is_finite() => Ok(a / b),
        _ => Err(vm.new_exc(
            "OverflowError",
            "integer division result too large for a float",
        )),
    }
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

/// Call a numeric method.
pub fn call(vm: &mut Vm, v: &Value, name: &str, args: Args) -> R<Value> {
    match (v, name) {
        (Value::Int(i), "bit_length") => {
            Ok(Value::Int(64 - i.unsigned_abs().leading_zeros() as i64))
        }
        (Value::Bool(b), "bit_length") => Ok(Value::Int(*b as i64)),
        (Value::BigInt(b), "bit_length") => Ok(Value::Int(b.bits() as i64)),
        (Value::Int(i), "bit_count") => Ok(Value::Int(i.unsigned_abs().count_ones() as i64)),
        (Value::BigInt(b), "bit_count") => Ok(Value::Int(
            b.abs().to_biguint().map(|u| u.count_ones()).unwrap_or(0) as i64,
        )),
        (Value::Int(_) | Value::BigInt(_) | Value::Bool(_), "conjugate") => Ok(v.clone()),
        (Value::Int(_) | Value::BigInt(_) | Value::Bool(_), "as_integer_ratio") => {
            Ok(Value::tuple(vec![v.clone(), Value::Int(1)]))
        }
        (Value::Int(_) | Value::BigInt(_) | Value::Bool(_), "to_bytes") => {
            let mut a = args;
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
            if b.is_negative() && !signed {
                return Err(vm.new_exc("OverflowError", "can't convert negative int to unsigned"));
            }
            if !(0..=4096).contains(&len) {
                return Err(vm.value_err("length argument out of range"));
            }
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
        (Value::Float(f), "is_integer") => Ok(Value::Bool(f.is_finite() && f.fract() == 0.0)),
        (Value::Float(f), "conjugate") => Ok(Value::Float(*f)),
        (Value::Float(f), "as_integer_ratio") => {
            if f.is_nan() {
                return Err(vm.value_err("cannot convert NaN to integer ratio"));
            }
            if !f.is_finite() {
                return Err(vm.value_err("cannot convert Infinity to integer ratio"));
            }
            let mut m = *f;
            let mut d = BigInt::from(1);
            let mut n = 0;
            while m.fract() != 0.0 && n < 1100 {
                m *= 2.0;
                d *= 2;
                n += 1;
            }
            let num = float_to_big(m).unwrap_or_default();
            let g = num_integer::Integer::gcd(&num, &d);
            let a = vm.int_result(&num / &g)?;
            let b = vm.int_result(&d / &g)?;
            Ok(Value::tuple(vec![a, b]))
        }
        _ => Err(vm.attr_error(v, name)),
    }
}
