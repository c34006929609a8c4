//! Operators and protocols: arithmetic, comparison, hashing, truthiness, repr/str, iteration,
//! subscripting, and the dict/set table operations that need Python equality.
//!
//! Ints: `i64` fast path with checked arithmetic, promoting to `BigInt`; every BigInt result
//! passes [`crate::limits::check_int_bits`] (predicted before computing for `*`, `**`, `<<`).

use super::{Args, Exc, Vm, R};
use crate::bytecode::{BinOp, CmpOp, Op};
use crate::cost;
use crate::limits::check_int_bits;
use crate::value::*;
use num_bigint::BigInt;
use num_integer::Integer;
use num_traits::{Signed, ToPrimitive, Zero};
use std::cmp::Ordering;
use std::hash::Hasher;
use std::rc::Rc;

/// Ordering → comparison result.
pub fn cmp_ord(o: Ordering, c: CmpOp) -> bool {
    match c {
        CmpOp::Lt => o == Ordering::Less,
        CmpOp::Le => o != Ordering::Greater,
        CmpOp::Eq => o == Ordering::Equal,
        CmpOp::Ne => o != Ordering::Equal,
        CmpOp::Gt => o == Ordering::Greater,
        CmpOp::Ge => o != Ordering::Less,
    }
}

/// The result of `l op r` for the two values on top of `stack` when both are small ints or
/// floats and the operation cannot raise or overflow: exactly what `binary_op` computes for
/// them, without its dispatch. `None`: take `binary_op`.
#[inline(always)]
pub fn fast_binary(stack: &[Value], op: BinOp) -> Option<Value> {
    let [.., l, r] = stack else {
        return None;
    };
    fast_binary_values(l, r, op)
}

/// [`fast_binary`] on two values.
#[inline(always)]
pub fn fast_binary_values(l: &Value, r: &Value, op: BinOp) -> Option<Value> {
    match (l, r) {
        (Value::Int(x), Value::Int(y)) => match op {
            BinOp::Add => x.checked_add(*y).map(Value::Int),
            BinOp::Sub => x.checked_sub(*y).map(Value::Int),
            BinOp::Mul => x.checked_mul(*y).map(Value::Int),
            // Python's floor modulo and division for a positive divisor are the Euclidean
            // ones (and cannot overflow); other signs take `int_op`.
            BinOp::Mod if *y > 0 => Some(Value::Int(x.rem_euclid(*y))),
            BinOp::FloorDiv if *y > 0 => Some(Value::Int(x.div_euclid(*y))),
            BinOp::And => Some(Value::Int(x & y)),
            BinOp::Or => Some(Value::Int(x | y)),
            BinOp::Xor => Some(Value::Int(x ^ y)),
            // The shifts `int_op` answers in an `i64` (a negative count raises there; a left
            // shift that could overflow promotes there).
            BinOp::RShift if *y >= 0 => Some(Value::Int(x >> (*y).min(63))),
            BinOp::LShift
                if (0..63).contains(y)
                    && (*x == 0 || i64::from(x.unsigned_abs().leading_zeros()) > y + 1) =>
            {
                Some(Value::Int(x << y))
            }
            _ => None,
        },
        (Value::Float(x), Value::Float(y)) => fast_float(*x, *y, op),
        // Mixed: the int converts as `to_float` converts it (`as_f64`).
        (Value::Int(x), Value::Float(y)) => fast_float(*x as f64, *y, op),
        (Value::Float(x), Value::Int(y)) => fast_float(*x, *y as f64, op),
        _ => None,
    }
}

/// `o[i]` for a list, tuple, bytes or bytearray and an in-range small int on top of `stack`
/// (what `getitem` answers for them, charging nothing more; anything else, including an index
/// error, is `None`: take `getitem`).
#[inline(always)]
pub fn fast_subscr(stack: &[Value]) -> Option<Value> {
    let [.., o, Value::Int(i)] = stack else {
        return None;
    };
    let at = |n: usize| -> Option<usize> {
        let j = if *i < 0 { *i + n as i64 } else { *i };
        (0..n as i64).contains(&j).then_some(j as usize)
    };
    match o {
        Value::List(l) => {
            let items = l.items.borrow();
            at(items.len()).map(|j| items[j].clone())
        }
        Value::Tuple(t) => at(t.items.len()).map(|j| t.items[j].clone()),
        Value::Bytes(b) => at(b.b.len()).map(|j| Value::Int(i64::from(b.b[j]))),
        Value::ByteArray(b) => {
            let b = b.b.borrow();
            at(b.len()).map(|j| Value::Int(i64::from(b[j])))
        }
        _ => None,
    }
}

/// `o[i] = v` for a list and an in-range small int, or a bytearray, an in-range small int and
/// a byte value (stack: `v`, `o`, `i` on top), done in place as `setitem` does it (which
/// charges nothing more for them). False: nothing was touched, take `setitem`.
#[inline(always)]
pub fn fast_store_subscr(stack: &mut Vec<Value>) -> bool {
    let n = stack.len();
    let index = |i: i64, len: usize| {
        let j = if i < 0 { i + len as i64 } else { i };
        (0..len as i64).contains(&j).then_some(j as usize)
    };
    match &stack[..] {
        [.., _, Value::List(l), Value::Int(i)] => {
            let Some(j) = index(*i, l.items.borrow().len()) else {
                return false;
            };
            let v = std::mem::replace(&mut stack[n - 3], Value::None);
            if let Value::List(l) = &stack[n - 2] {
                l.items.borrow_mut()[j] = v;
            }
        }
        [.., Value::Int(v), Value::ByteArray(b), Value::Int(i)] => {
            let (Ok(v), Some(j)) = (u8::try_from(*v), index(*i, b.b.borrow().len())) else {
                return false;
            };
            b.b.borrow_mut()[j] = v;
        }
        _ => return false,
    }
    stack.truncate(n - 3);
    true
}

/// IEEE-754 `+ - * /` as `float_op` (division only by a non-zero divisor).
#[inline(always)]
fn fast_float(x: f64, y: f64, op: BinOp) -> Option<Value> {
    match op {
        BinOp::Add => Some(Value::Float(x + y)),
        BinOp::Sub => Some(Value::Float(x - y)),
        BinOp::Mul => Some(Value::Float(x * y)),
        BinOp::TrueDiv if y != 0.0 => Some(Value::Float(x / y)),
        _ => None,
    }
}

/// `l op r` for two small ints or two floats on top of `stack` (as `compare` answers them).
#[inline(always)]
pub fn fast_compare(stack: &[Value], c: CmpOp) -> Option<Value> {
    let [.., l, r] = stack else {
        return None;
    };
    fast_compare_pair(l, r, c).map(Value::Bool)
}

/// `l op r` when both are small ints or both floats: what [`Vm::compare`] answers for them,
/// which charges nothing and cannot raise; `None` for any other pair.
#[inline(always)]
pub fn fast_compare_pair(l: &Value, r: &Value, c: CmpOp) -> Option<bool> {
    match (l, r) {
        (Value::Int(x), Value::Int(y)) => Some(cmp_ord(x.cmp(y), c)),
        // IEEE comparisons: a NaN compares unequal and unordered, as in CPython.
        (Value::Float(x), Value::Float(y)) => Some(match c {
            CmpOp::Lt => x < y,
            CmpOp::Le => x <= y,
            CmpOp::Eq => x == y,
            CmpOp::Ne => x != y,
            CmpOp::Gt => x > y,
            CmpOp::Ge => x >= y,
        }),
        _ => None,
    }
}

/// `x.cmp(y)`, without calling `memcmp` when either side is empty: an empty slice's pointer
/// is dangling, and the C library's AVX-512 `memcmp` reads it under an all-zero mask, which
/// this machine's CPU serves by a microcode assist of ~80 ns (`bytearray(10**6) < b""` was
/// the calibration's worst row, 3.35x the median, all of it that assist). The order is the
/// same: an empty sequence sorts first. (UTF-8 byte order is code point order, so `str` uses
/// it too.)
#[inline]
fn cmp_bytes(x: &[u8], y: &[u8]) -> Ordering {
    if x.is_empty() || y.is_empty() {
        x.len().cmp(&y.len())
    } else {
        x.cmp(y)
    }
}

fn op_symbol(b: BinOp) -> &'static str {
    match b {
        BinOp::Add => "+",
        BinOp::Sub => "-",
        BinOp::Mul => "*",
        BinOp::MatMul => "@",
        BinOp::TrueDiv => "/",
        BinOp::FloorDiv => "//",
        BinOp::Mod => "%",
        BinOp::Pow => "** or pow()",
        BinOp::LShift => "<<",
        BinOp::RShift => ">>",
        BinOp::And => "&",
        BinOp::Or => "|",
        BinOp::Xor => "^",
    }
}

fn dunder(b: BinOp) -> (&'static str, &'static str, &'static str) {
    match b {
        BinOp::Add => ("__add__", "__radd__", "__iadd__"),
        BinOp::Sub => ("__sub__", "__rsub__", "__isub__"),
        BinOp::Mul => ("__mul__", "__rmul__", "__imul__"),
        BinOp::MatMul => ("__matmul__", "__rmatmul__", "__imatmul__"),
        BinOp::TrueDiv => ("__truediv__", "__rtruediv__", "__itruediv__"),
        BinOp::FloorDiv => ("__floordiv__", "__rfloordiv__", "__ifloordiv__"),
        BinOp::Mod => ("__mod__", "__rmod__", "__imod__"),
        BinOp::Pow => ("__pow__", "__rpow__", "__ipow__"),
        BinOp::LShift => ("__lshift__", "__rlshift__", "__ilshift__"),
        BinOp::RShift => ("__rshift__", "__rrshift__", "__irshift__"),
        BinOp::And => ("__and__", "__rand__", "__iand__"),
        BinOp::Or => ("__or__", "__ror__", "__ior__"),
        BinOp::Xor => ("__xor__", "__rxor__", "__ixor__"),
    }
}

fn to_big(v: &Value) -> Option<BigInt> {
    match v {
        Value::Int(i) => Some(BigInt::from(*i)),
        Value::Bool(b) => Some(BigInt::from(*b as i64)),
        Value::BigInt(b) => Some((**b).clone()),
        _ => None,
    }
}

/// Float value of an int-like or float (None if neither).
pub fn as_f64(v: &Value) -> Option<f64> {
    match v {
        Value::Int(i) => Some(*i as f64),
        Value::Bool(b) => Some(*b as i64 as f64),
        Value::Float(f) => Some(*f),
        Value::BigInt(b) => b.to_f64(),
        _ => None,
    }
}

/// Ordering of two numbers at least one of which is a float, exact as in CPython (an int is
/// never rounded to a float first, so `2**53 + 1 != float(2**53 + 1)`). `Some(None)` when a
/// NaN is involved; `None` when the operands are not such a pair.
fn float_mixed_cmp(a: &Value, b: &Value) -> Option<Option<Ordering>> {
    match (a, b) {
        (Value::Float(x), Value::Float(y)) => Some(x.partial_cmp(y)),
        (Value::Float(x), _) => int_float_cmp(b, *x).map(|o| o.map(Ordering::reverse)),
        (_, Value::Float(y)) => int_float_cmp(a, *y),
        _ => None,
    }
}

/// Int `n` compared exactly with float `f`; `None` if `n` is not an int.
fn int_float_cmp(n: &Value, f: f64) -> Option<Option<Ordering>> {
    let small = match n {
        Value::Int(i) => Some(*i),
        Value::Bool(b) => Some(*b as i64),
        Value::BigInt(_) => None,
        _ => return None,
    };
    if f.is_nan() {
        return Some(None);
    }
    // Ints up to 2**53 convert to f64 exactly.
    if let Some(i) = small.filter(|i| i.unsigned_abs() <= 1 << 53) {
        return Some((i as f64).partial_cmp(&f));
    }
    if f.is_infinite() {
        return Some(Some(if f > 0.0 {
            Ordering::Less
        } else {
            Ordering::Greater
        }));
    }
    let t = f.trunc();
    let whole = crate::objects::int::float_to_big(t)?;
    Some(Some(match to_big(n)?.cmp(&whole) {
        // Same integer part: the fraction `f - t` (exact) decides.
        Ordering::Equal => 0.0f64.partial_cmp(&(f - t)).unwrap_or(Ordering::Equal),
        o => o,
    }))
}

impl Vm<'_> {
    /// Checked BigInt → value: the one int-size check on results.
    pub fn int_result(&mut self, b: BigInt) -> R<Value> {
        if check_int_bits(b.bits()).is_err() {
            return Err(self.new_exc("OverflowError", "integer exceeds the PVM's 4096-bit limit"));
        }
        Ok(Value::from_bigint(b))
    }

    /// Check a predicted result size.
    pub fn int_bound(&mut self, bits: u64) -> R<()> {
        if check_int_bits(bits).is_err() {
            return Err(self.new_exc("OverflowError", "integer exceeds the PVM's 4096-bit limit"));
        }
        Ok(())
    }

    /// Class of a value.
    pub fn type_of(&self, v: &Value) -> Rc<Class> {
        let t = &self.types;
        match v {
            Value::None => t.none.clone(),
            Value::NotImplemented => t.notimpl.clone(),
            Value::Ellipsis => t.ellipsis.clone(),
            Value::Bool(_) => t.bool_.clone(),
            Value::Int(_) | Value::BigInt(_) => t.int.clone(),
            Value::Float(_) => t.float.clone(),
            Value::Str(_) => t.str_.clone(),
            Value::Bytes(_) => t.bytes.clone(),
            Value::ByteArray(_) => t.bytearray.clone(),
            Value::Tuple(_) => t.tuple.clone(),
            Value::List(_) => t.list.clone(),
            Value::Dict(_) => t.dict.clone(),
            Value::Set(s) => {
                if s.frozen {
                    t.frozenset.clone()
                } else {
                    t.set.clone()
                }
            }
            Value::Range(_) => t.range.clone(),
            Value::Slice(_) => t.slice.clone(),
            Value::Function(_) => t.function.clone(),
            Value::Builtin(_) => t.builtin_function.clone(),
            Value::BoundMethod(_) => t.method.clone(),
            Value::Class(c) => c.meta.borrow().clone().unwrap_or_else(|| t.type_.clone()),
            Value::Instance(i) => i.cls(),
            Value::Generator(g) => {
                if g.async_gen {
                    t.async_generator.clone()
                } else if g.coroutine {
                    t.coroutine.clone()
                } else {
                    t.generator.clone()
                }
            }
            Value::Iter(it) => match &*it.state.borrow() {
                IterState::AnextDefault { .. } => t.anext_awaitable.clone(),
                IterState::AsyncGenStep { op, .. } => match op {
                    crate::value::AsyncGenOp::Send(_) => t.async_generator_asend.clone(),
                    _ => t.async_generator_athrow.clone(),
                },
                _ => t.iterator.clone(),
            },
            Value::Module(_) => t.module.clone(),
            Value::Property(_) => t.property.clone(),
            Value::ClassMethod(_) => t.classmethod.clone(),
            Value::StaticMethod(_) => t.staticmethod.clone(),
            Value::Super(_) => t.super_.clone(),
            Value::Cell(_) => t.cell.clone(),
        }
    }

    /// `type(v).__name__`.
    pub fn type_name(&self, v: &Value) -> String {
        self.type_of(v).name.to_string()
    }

    /// Payload of an instance of a builtin subclass, or the value itself.
    pub fn base_of(v: &Value) -> Value {
        if let Value::Instance(i) = v {
            if let Some(b) = i.base.borrow().as_ref() {
                return b.clone();
            }
        }
        v.clone()
    }

    /// `bool(v)`.
    pub fn truthy(&mut self, v: &Value) -> R<bool> {
        Ok(match v {
            Value::None => false,
            Value::Bool(b) => *b,
            Value::Int(i) => *i != 0,
            Value::Float(f) => *f != 0.0,
            Value::BigInt(_) => true,
            Value::Str(s) => s.len > 0,
            Value::Bytes(b) => !b.b.is_empty(),
            Value::ByteArray(b) => !b.b.borrow().is_empty(),
            Value::Tuple(t) => !t.items.is_empty(),
            Value::List(l) => !l.items.borrow().is_empty(),
            Value::Dict(d) => d.table.borrow().len > 0,
            Value::Set(s) => s.table.borrow().len > 0,
            Value::Range(r) => !r.is_empty(),
            Value::Class(_) => {
                if let Some(r) = self.call_dunder(v, "__bool__", vec![])? {
                    return self.truthy(&r);
                }
                if let Some(r) = self.call_dunder(v, "__len__", vec![])? {
                    return Ok(self.index_of(&r)? != 0);
                }
                true
            }
            Value::Instance(i) => {
                if let Some(r) = self.call_dunder(v, "__bool__", vec![])? {
                    return match r {
                        Value::Bool(b) => Ok(b),
                        _ => Err(self.type_err(format!(
                            "__bool__ should return bool, returned {}",
                            self.type_name(&r)
                        ))),
                    };
                }
                if let Some(r) = self.call_dunder(v, "__len__", vec![])? {
                    return Ok(self.index_of(&r)? != 0);
                }
                let b = i.base.borrow().clone();
                match b {
                    Some(b) => return self.truthy(&b),
                    None => true,
                }
            }
            _ => true,
        })
    }

    /// Unary -, +, ~.
    pub fn unary_op(&mut self, v: &Value, op: Op) -> R<Value> {
        match (v, op) {
            (Value::Int(i), Op::Neg) => match i.checked_neg() {
                Some(x) => Ok(Value::Int(x)),
                None => self.int_result(-BigInt::from(*i)),
            },
            (Value::Int(i), Op::Pos) => Ok(Value::Int(*i)),
            (Value::Int(i), Op::Invert) => Ok(Value::Int(!i)),
            (Value::Bool(b), _) => self.unary_op(&Value::Int(*b as i64), op),
            (Value::BigInt(b), Op::Neg) => self.int_result(-(**b).clone()),
            (Value::BigInt(b), Op::Pos) => Ok(Value::BigInt(b.clone())),
            (Value::BigInt(b), Op::Invert) => self.int_result(-(**b).clone() - 1),
            (Value::Float(f), Op::Neg) => Ok(Value::Float(-f)),
            (Value::Float(f), Op::Pos) => Ok(Value::Float(*f)),
            (Value::Instance(_), _) => {
                let name = match op {
                    Op::Neg => "__neg__",
                    Op::Pos => "__pos__",
                    _ => "__invert__",
                };
                if let Some(r) = self.call_dunder(v, name, vec![])? {
                    return Ok(r);
                }
                let b = Self::base_of(v);
                if !matches!(b, Value::Instance(_)) {
                    return self.unary_op(&b, op);
                }
                let sym = match op {
                    Op::Neg => "-",
                    Op::Pos => "+",
                    _ => "~",
                };
                Err(self.type_err(format!(
                    "bad operand type for unary {}: '{}'",
                    sym,
                    self.type_name(v)
                )))
            }
            _ => {
                let sym = match op {
                    Op::Neg => "-",
                    Op::Pos => "+",
                    _ => "~",
                };
                Err(self.type_err(format!(
                    "bad operand type for unary {}: '{}'",
                    sym,
                    self.type_name(v)
                )))
            }
        }
    }

    /// Binary operator with reflected fallback.
    pub fn binary_op(&mut self, a: &Value, b: &Value, op: BinOp, inplace: bool) -> R<Value> {
        if let Some(v) = self.native_binop(a, b, op, inplace)? {
            return Ok(v);
        }
        let (fwd, rev, ip) = dunder(op);
        if inplace {
            if let Some(r) = self.call_dunder1(a, ip, b)? {
                if !matches!(r, Value::NotImplemented) {
                    return Ok(r);
                }
            }
        }
        // A subclass's reflected method goes first.
        let ta = self.type_of(a);
        let tb = self.type_of(b);
        let b_first =
            !Rc::ptr_eq(&ta, &tb) && tb.is_subclass(&ta) && self.lookup_dunder(b, rev).is_some();
        if b_first {
            if let Some(r) = self.call_dunder1(b, rev, a)? {
                if !matches!(r, Value::NotImplemented) {
                    return Ok(r);
                }
            }
        }
        if let Some(r) = self.call_dunder1(a, fwd, b)? {
            if !matches!(r, Value::NotImplemented) {
                return Ok(r);
            }
        }
        if !b_first && !Rc::ptr_eq(&ta, &tb) {
            if let Some(r) = self.call_dunder1(b, rev, a)? {
                if !matches!(r, Value::NotImplemented) {
                    return Ok(r);
                }
            }
        }
        // Builtin-subclass payloads.
        let ba = Self::base_of(a);
        let bb = Self::base_of(b);
        if !ba.is(a) || !bb.is(b) {
            if let Some(v) = self.native_binop(&ba, &bb, op, false)? {
                return Ok(v);
            }
        }
        // A sequence times an object with `__index__` (CPython's sq_repeat takes any index).
        if op == BinOp::Mul {
            let seq = |v: &Value| {
                matches!(
                    v,
                    Value::Str(_) | Value::List(_) | Value::Tuple(_) | Value::Bytes(_)
                )
            };
            let has_index = |vm: &Self, v: &Value| {
                matches!(v, Value::Instance(_)) && vm.lookup_dunder(v, "__index__").is_some()
            };
            let (s, n) = if seq(&ba) && has_index(self, &bb) {
                (&ba, &bb)
            } else if seq(&bb) && has_index(self, &ba) {
                (&bb, &ba)
            } else {
                (&ba, &ba)
            };
            if !s.is(n) {
                let k = Value::Int(self.index_of(n)?);
                if let Some(v) = self.native_binop(s, &k, op, false)? {
                    return Ok(v);
                }
            }
        }
        // `None | None` is a TypeError: a union needs a type on one side (`type.__or__`).
        if op == BinOp::Or
            && self.is_type_like(a)
            && self.is_type_like(b)
            && !(a.is_none() && b.is_none())
        {
            return self.make_union(a, b);
        }
        if matches!(op, BinOp::Or | BinOp::And | BinOp::Sub | BinOp::Xor)
            && (self.dict_view(a).is_some_and(|(k, _)| k != 1)
                || self.dict_view(b).is_some_and(|(k, _)| k != 1))
        {
            // Keys and items views behave like sets in set algebra.
            let xa = self.collect(a)?;
            let xb = self.collect(b)?;
            let (Value::Set(sa), Value::Set(sb)) =
                (self.new_set(xa, false)?, self.new_set(xb, false)?)
            else {
                return Err(self.type_err("set expected"));
            };
            return crate::objects::set::set_op(self, &sa, &sb, op);
        }
        let (ta, tb) = (self.type_name(a), self.type_name(b));
        match (op, &ba) {
            (BinOp::Add, Value::Bytes(_) | Value::ByteArray(_))
                if !matches!(bb, Value::Bytes(_) | Value::ByteArray(_)) =>
            {
                return Err(self.type_err(format!("can't concat {tb} to {ta}")));
            }
            (BinOp::Add, Value::Str(_) | Value::List(_) | Value::Tuple(_)) => {
                return Err(
                    self.type_err(format!("can only concatenate {ta} (not \"{tb}\") to {ta}"))
                );
            }
            (BinOp::Mul, Value::Str(_) | Value::List(_) | Value::Tuple(_) | Value::Bytes(_))
                if !matches!(bb, Value::Int(_) | Value::Bool(_) | Value::BigInt(_)) =>
            {
                return Err(
                    self.type_err(format!("can't multiply sequence by non-int of type '{tb}'"))
                );
            }
            _ => {}
        }
        // CPython names the augmented operator (`-=`, `**=`) when the in-place form failed.
        let symbol = match (inplace, op) {
            (true, BinOp::Pow) => "**=".to_string(),
            (true, _) => format!("{}=", op_symbol(op)),
            (false, _) => op_symbol(op).to_string(),
        };
        Err(self.type_err(format!(
            "unsupported operand type(s) for {symbol}: '{}' and '{}'",
            self.type_name(a),
            self.type_name(b)
        )))
    }

    /// `s += t` on two strs where `s` is a fast local about to be rebound to the result (the
    /// next instruction stores to the local the left operand was loaded from) and nothing else
    /// holds the left string: append `t` to it in place, as CPython 3.11 does
    /// (`BINARY_OP_INPLACE_ADD_UNICODE`), so a loop of `+=` is linear instead of quadratic.
    /// Whether it applies is decided by reference counts, which are deterministic, so every
    /// validator takes the same path. `false`: not applicable, nothing changed.
    ///
    /// The price is the appended text three times over, `per_char(3 * len(t))`, and what the
    /// growth adds to the accounted size: one copy of `t`, and `String`'s doubling, which
    /// copies at most the bytes appended since the last doubling twice more (the string's
    /// initial text was paid for when it was made). The worst case for the attacker is one
    /// character at a time, where the instruction's own `ARITH` dominates.
    pub(super) fn str_append_in_place(&mut self, f: &mut super::Frame) -> R<bool> {
        let Some(slot) = f.code.ops.get(f.pc).and_then(|op| op.stores_fast()) else {
            return Ok(false);
        };
        let [.., Value::Str(l), Value::Str(r)] = &f.stack[..] else {
            return Ok(false);
        };
        let Some(Some(Value::Str(local))) = f.locals.get(slot as usize) else {
            return Ok(false);
        };
        // The local and the stack hold the only references.
        if !Rc::ptr_eq(l, local) || Rc::strong_count(l) != 2 || Rc::weak_count(l) != 0 {
            return Ok(false);
        }
        let add = r.s.len();
        self.charge(cost::per_char(add.saturating_mul(3)))?;
        self.reserve(add as u64)?;
        // Dropping the local's reference leaves the stack's the only one, so `make_mut`
        // appends to the string itself (it would copy it first were it shared).
        f.locals[slot as usize] = None;
        let r = Self::pop(f);
        if let (Some(Value::Str(l)), Value::Str(r)) = (f.stack.last_mut(), &r) {
            Rc::make_mut(l).append(r);
        }
        Ok(true)
    }

    fn native_binop(&mut self, a: &Value, b: &Value, op: BinOp, inplace: bool) -> R<Option<Value>> {
        use Value::*;
        match (a, b) {
            (Int(_) | Bool(_) | BigInt(_), Int(_) | Bool(_) | BigInt(_)) => {
                self.int_op(a, b, op).map(Some)
            }
            (Float(_), Int(_) | Bool(_) | BigInt(_) | Float(_))
            | (Int(_) | Bool(_) | BigInt(_), Float(_)) => {
                let x = self.to_float(a)?;
                let y = self.to_float(b)?;
                self.float_op(x, y, op).map(Some)
            }
            (Str(x), Str(y)) if op == BinOp::Add => {
                self.charge(cost::per_char(x.s.len() + y.s.len()))?;
                self.reserve((x.s.len() + y.s.len()) as u64)?;
                let mut s = String::with_capacity(x.s.len() + y.s.len());
                s.push_str(&x.s);
                s.push_str(&y.s);
                Ok(Some(Value::str(&s)))
            }
            (Str(x), Int(_) | Bool(_)) | (Int(_) | Bool(_), Str(x)) if op == BinOp::Mul => {
                let n = if let Str(_) = a {
                    self.index_of(b)?
                } else {
                    self.index_of(a)?
                };
                let n = n.max(0) as u64;
                let total = (x.s.len() as u64).saturating_mul(n);
                self.charge(total)?;
                self.reserve(total)?;
                Ok(Some(Value::str(&x.s.repeat(n as usize))))
            }
            (Str(x), _) if op == BinOp::Mod => {
                crate::format::percent_format(self, &x.s, b).map(|s| Some(Value::str(&s)))
            }
            (Bytes(x), _) if op == BinOp::Mod => {
                crate::format::bytes_percent_format(self, &x.b, b).map(|v| Some(Value::bytes(v)))
            }
            (ByteArray(x), _) if op == BinOp::Mod => {
                let fmt = x.b.borrow().clone();
                let v = crate::format::bytes_percent_format(self, &fmt, b)?;
                Ok(Some(Value::ByteArray(Rc::new(PyByteArray::new(v)))))
            }
            (Bytes(x), Bytes(y)) if op == BinOp::Add => {
                self.charge(cost::per_char(x.b.len() + y.b.len()))?;
                let mut v = x.b.to_vec();
                v.extend_from_slice(&y.b);
                Ok(Some(Value::bytes(v)))
            }
            // Repetition of bytes or a bytearray, either side (`*=` on a bytearray in place).
            (Bytes(_) | ByteArray(_), Int(_) | Bool(_))
            | (Int(_) | Bool(_), Bytes(_) | ByteArray(_))
                if op == BinOp::Mul =>
            {
                let (seq, count) = if matches!(a, Bytes(_) | ByteArray(_)) {
                    (a, b)
                } else {
                    (b, a)
                };
                let n = self.index_of(count)?.max(0) as u64;
                let len = match seq {
                    Bytes(x) => x.b.len(),
                    ByteArray(x) => x.b.borrow().len(),
                    _ => 0,
                } as u64;
                let total = len.saturating_mul(n);
                self.charge(total)?;
                self.reserve(total)?;
                match seq {
                    ByteArray(x) => {
                        let v = x.b.borrow().repeat(n as usize);
                        if inplace {
                            *x.b.borrow_mut() = v;
                            x.touch();
                            return Ok(Some(seq.clone()));
                        }
                        Ok(Some(ByteArray(Rc::new(PyByteArray::new(v)))))
                    }
                    Bytes(x) => Ok(Some(Value::bytes(x.b.repeat(n as usize)))),
                    _ => Ok(Option::None),
                }
            }
            (List(x), List(y)) if op == BinOp::Add => {
                if inplace {
                    self.charge(cost::per_elem(y.items.borrow().len()))?;
                    let add = y.items.borrow().clone();
                    x.items.borrow_mut().extend(add);
                    x.touch();
                    return Ok(Some(a.clone()));
                }
                self.charge(cost::per_elem(
                    x.items.borrow().len() + y.items.borrow().len(),
                ))?;
                let mut v = x.items.borrow().clone();
                v.extend(y.items.borrow().iter().cloned());
                Ok(Some(Value::list(v)))
            }
            (List(x), _) if op == BinOp::Add && inplace => {
                let add = self.collect(b)?;
                self.charge(cost::per_elem(add.len()))?;
                x.items.borrow_mut().extend(add);
                x.touch();
                Ok(Some(a.clone()))
            }
            (Tuple(x), Tuple(y)) if op == BinOp::Add => {
                self.charge(cost::per_elem(x.items.len() + y.items.len()))?;
                // One allocation of the final size (a tuple keeps its vector's exact length).
                let mut v = Vec::with_capacity(x.items.len() + y.items.len());
                v.extend(x.items.iter().chain(y.items.iter()).map(Value::clone));
                Ok(Some(Value::tuple(v)))
            }
            (List(_) | Tuple(_), Int(_) | Bool(_)) | (Int(_) | Bool(_), List(_) | Tuple(_))
                if op == BinOp::Mul =>
            {
                let (seq, n) = if matches!(a, List(_) | Tuple(_)) {
                    (a, b)
                } else {
                    (b, a)
                };
                let n = self.index_of(n)?.max(0) as u64;
                let len = match seq {
                    List(l) => l.items.borrow().len(),
                    Tuple(t) => t.items.len(),
                    _ => 0,
                };
                let total = (len as u64).saturating_mul(n);
                // Paid and reserved before the items are read: `big * 0` copied the whole
                // sequence for nothing (a 200,000-item list did not finish 2M cycles in 2 min).
                self.charge(cost::per_elem(total as usize))?;
                self.reserve(total.saturating_mul(crate::memory::SLOT as u64))?;
                let items = match seq {
                    List(l) if n > 0 => l.items.borrow().clone(),
                    Tuple(t) if n > 0 => t.items.to_vec(),
                    _ => Vec::new(),
                };
                let mut v = Vec::with_capacity(total as usize);
                // An empty sequence repeats to nothing whatever the count: no loop over `n`
                // (`[] * 10**18` is free in CPython, and must not spin here uncharged).
                if !items.is_empty() {
                    for _ in 0..n {
                        v.extend(items.iter().cloned());
                    }
                }
                if inplace {
                    if let List(l) = seq {
                        *l.items.borrow_mut() = v;
                        l.touch();
                        return Ok(Some(seq.clone()));
                    }
                }
                Ok(Some(if let List(_) = seq {
                    Value::list(v)
                } else {
                    Value::tuple(v)
                }))
            }
            (Set(x), Set(y)) if matches!(op, BinOp::Or | BinOp::And | BinOp::Sub | BinOp::Xor) => {
                if inplace && !x.frozen {
                    crate::objects::set::set_op_inplace(self, x, y, op)?;
                    return Ok(Some(a.clone()));
                }
                Ok(Some(crate::objects::set::set_op(self, x, y, op)?))
            }
            (Dict(x), Dict(y)) if op == BinOp::Or => {
                let target = if inplace {
                    x.clone()
                } else {
                    // The copy is paid before it is made (`big | {}` copied for nothing).
                    self.charge(cost::table_copy(x.table.borrow().entries.len()))?;
                    crate::value::rc_dict(PyDict::from_table(x.table.borrow().clone()))
                };
                let items: Vec<Entry> = y.table.borrow().iter().cloned().collect();
                for e in items {
                    self.dict_set(&target, e.key, e.value)?;
                }
                Ok(Some(Dict(target)))
            }
            // `d |= other` is `d.update(other)`: a mapping or an iterable of pairs.
            (Dict(x), _) if op == BinOp::Or && inplace => {
                crate::objects::dict::update(self, x, Args::new(vec![b.clone()]))?;
                Ok(Some(a.clone()))
            }
            // `ba += b`: extended in place, paying for the added bytes only (CPython's
            // bytearray concat is amortised O(1) per byte; a copy here made a loop of `+=`
            // quadratic in time and in cycles).
            (ByteArray(x), Bytes(_) | ByteArray(_)) if op == BinOp::Add && inplace => {
                let w = match b {
                    Bytes(y) => y.b.to_vec(),
                    ByteArray(y) => y.b.borrow().clone(),
                    _ => Vec::new(),
                };
                self.charge(cost::per_char(w.len()))?;
                self.reserve(w.len() as u64)?;
                x.b.borrow_mut().extend(w);
                x.touch();
                Ok(Some(a.clone()))
            }
            (Bytes(_) | ByteArray(_), Bytes(_) | ByteArray(_)) if op == BinOp::Add => {
                let bytes_of = |v: &Value| match v {
                    Bytes(b) => b.b.to_vec(),
                    ByteArray(b) => b.b.borrow().clone(),
                    _ => Vec::new(),
                };
                let mut v = bytes_of(a);
                let w = bytes_of(b);
                self.charge(cost::per_char(v.len() + w.len()))?;
                self.reserve((v.len() + w.len()) as u64)?;
                v.extend(w);
                if let ByteArray(_) = a {
                    return Ok(Some(ByteArray(Rc::new(PyByteArray::new(v)))));
                }
                Ok(Some(Value::bytes(v)))
            }
            _ => Ok(Option::None),
        }
    }

    /// The dict behind `v` when `v` is a `mappingproxy`.
    pub fn mapping_proxy(&self, v: &Value) -> Option<Rc<PyDict>> {
        let Value::Instance(i) = v else { return None };
        if !Rc::ptr_eq(&i.cls(), &self.types.mappingproxy) {
            return None;
        }
        match i.base.borrow().as_ref() {
            Some(Value::Dict(d)) => Some(d.clone()),
            _ => None,
        }
    }

    /// A read-only proxy of dict `d` (`mappingproxy`), as a dict view's `.mapping`.
    pub fn new_mapping_proxy(&self, d: Rc<PyDict>) -> Value {
        let inst = Instance::new(self.types.mappingproxy.clone());
        *inst.base.borrow_mut() = Some(Value::Dict(d));
        Value::Instance(crate::value::rc_inst(inst))
    }

    /// The methods `v` has when it wraps a dict without being one (a dict view or a
    /// mappingproxy; `None` otherwise), so that the dict's item assignment, deletion and other
    /// methods do not leak through it. The dunders answer for `v` itself (`len`, `iter`, `in`
    /// and, for a proxy, `[]` of the view or proxy); the others are the dict's own.
    pub fn sealed_methods(&self, v: &Value) -> Option<&'static [&'static str]> {
        if let Some((kind, _)) = self.dict_view(v) {
            // dict_values has no __contains__ of its own (`in` iterates it).
            Some(if kind == 1 {
                &["__iter__", "__len__"]
            } else {
                &["__contains__", "__iter__", "__len__"]
            })
        } else if self.mapping_proxy(v).is_some() {
            Some(&[
                "__contains__",
                "__getitem__",
                "__iter__",
                "__len__",
                "copy",
                "get",
                "items",
                "keys",
                "values",
            ])
        } else {
            None
        }
    }

    /// `v` is a dict view: its dict, and which view (0 keys, 1 values, 2 items).
    pub fn dict_view(&self, v: &Value) -> Option<(u8, Rc<PyDict>)> {
        let Value::Instance(i) = v else { return None };
        let c = i.cls();
        let kind = if Rc::ptr_eq(&c, &self.types.dict_keys) {
            0
        } else if Rc::ptr_eq(&c, &self.types.dict_values) {
            1
        } else if Rc::ptr_eq(&c, &self.types.dict_items) {
            2
        } else {
            return None;
        };
        match i.base.borrow().as_ref() {
            Some(Value::Dict(d)) => Some((kind, d.clone())),
            _ => None,
        }
    }

    /// Items of a dict view as values (keys, values or (key, value) tuples).
    pub fn view_items(&mut self, kind: u8, d: &PyDict) -> R<Vec<Value>> {
        let t = d.table.borrow();
        self.charge(cost::per_elem(t.len))?;
        Ok(t.iter()
            .map(|e| match kind {
                0 => e.key.clone(),
                1 => e.value.clone(),
                _ => Value::tuple(vec![e.key.clone(), e.value.clone()]),
            })
            .collect())
    }

    pub(crate) fn is_union(&self, v: &Value) -> bool {
        matches!(v, Value::Instance(i) if Rc::ptr_eq(&i.cls(), &self.types.union))
    }

    fn is_type_like(&self, v: &Value) -> bool {
        matches!(v, Value::Class(_) | Value::None) || self.is_union(v)
    }

    /// `X | Y` on types: a `types.UnionType` with flattened, de-duplicated `__args__`.
    pub(crate) fn make_union(&mut self, a: &Value, b: &Value) -> R<Value> {
        let mut args: Vec<Value> = Vec::new();
        for v in [a, b] {
            let parts = if self.is_union(v) {
                match self.getattr(v, "__args__")? {
                    Value::Tuple(t) => t.items.to_vec(),
                    _ => Vec::new(),
                }
            } else if v.is_none() {
                vec![Value::Class(self.types.none.clone())]
            } else {
                vec![v.clone()]
            };
            for p in parts {
                if !args.iter().any(|x| x.is(&p)) {
                    args.push(p);
                }
            }
        }
        let inst = Instance::new(self.types.union.clone());
        inst.dict.set_str("__args__", Value::tuple(args));
        Ok(Value::Instance(crate::value::rc_inst(inst)))
    }

    /// float(v) for numbers.
    pub fn to_float(&mut self, v: &Value) -> R<f64> {
        match v {
            Value::Instance(_) => {
                if let Some(r) = self.call_dunder(v, "__float__", vec![])? {
                    return match r {
                        Value::Float(f) => Ok(f),
                        _ => Err(self.type_err("__float__ returned non-float")),
                    };
                }
                if let Some(r) = self.call_dunder(v, "__index__", vec![])? {
                    return self.to_float(&r);
                }
                let b = Self::base_of(v);
                if b.is(v) {
                    return Err(
                        self.type_err(format!("must be real number, not {}", self.type_name(v)))
                    );
                }
                self.to_float(&b)
            }
            Value::BigInt(b) => {
                self.charge(cost::bigint_linear(b.bits()))?;
                match b.to_f64() {
                    Some(f) if f.is_finite() => Ok(f),
                    _ => Err(self.new_exc("OverflowError", "int too large to convert to float")),
                }
            }
            _ => match as_f64(v) {
                Some(f) => Ok(f),
                None => {
                    let msg = format!("must be real number, not {}", self.type_name(v));
                    Err(self.type_err(msg))
                }
            },
        }
    }

    fn float_op(&mut self, x: f64, y: f64, op: BinOp) -> R<Value> {
        Ok(Value::Float(match op {
            BinOp::Add => x + y,
            BinOp::Sub => x - y,
            BinOp::Mul => x * y,
            BinOp::TrueDiv => {
                if y == 0.0 {
                    return Err(self.new_exc("ZeroDivisionError", "float division by zero"));
                }
                x / y
            }
            BinOp::FloorDiv => {
                if y == 0.0 {
                    return Err(self.new_exc("ZeroDivisionError", "float floor division by zero"));
                }
                float_divmod(x, y).0
            }
            BinOp::Mod => {
                if y == 0.0 {
                    return Err(self.new_exc("ZeroDivisionError", "float modulo"));
                }
                float_mod(x, y)
            }
            BinOp::Pow => {
                if x == 0.0 && y < 0.0 {
                    return Err(self.new_exc(
                        "ZeroDivisionError",
                        "0.0 cannot be raised to a negative power",
                    ));
                }
                if x < 0.0 && y.fract() != 0.0 {
                    // CPython 3.11 hands a negative base with a fractional exponent to complex.
                    let (re, im) = crate::objects::complex::pow(self, (x, 0.0), (y, 0.0))?;
                    return Ok(crate::objects::complex::new(self, re, im));
                }
                let r = libm::pow(x, y);
                if r.is_infinite() && x.is_finite() && y.is_finite() {
                    // CPython reports the C library's ERANGE: args (34, strerror).
                    let cls = self.types.exc["OverflowError"].clone();
                    let args = vec![Value::Int(34), Value::str("Numerical result out of range")];
                    return Err(Exc::Py(self.make_exc(&cls, args)));
                }
                r
            }
            _ => {
                return Err(self.type_err(format!(
                    "unsupported operand type(s) for {}: 'float' and 'float'",
                    op_symbol(op)
                )))
            }
        }))
    }

    fn int_op(&mut self, a: &Value, b: &Value, op: BinOp) -> R<Value> {
        let (x, y) = match (a, b) {
            (Value::Int(x), Value::Int(y)) => (*x, *y),
            (Value::Bool(x), Value::Int(y)) => (*x as i64, *y),
            (Value::Int(x), Value::Bool(y)) => (*x, *y as i64),
            (Value::Bool(x), Value::Bool(y)) => {
                match op {
                    BinOp::And => return Ok(Value::Bool(*x & *y)),
                    BinOp::Or => return Ok(Value::Bool(*x | *y)),
                    BinOp::Xor => return Ok(Value::Bool(*x ^ *y)),
                    _ => {}
                }
                (*x as i64, *y as i64)
            }
            _ => return self.big_op(a, b, op),
        };
        let r = match op {
            BinOp::Add => x.checked_add(y),
            BinOp::Sub => x.checked_sub(y),
            BinOp::Mul => x.checked_mul(y),
            BinOp::FloorDiv | BinOp::Mod => {
                if y == 0 {
                    let m = if op == BinOp::Mod {
                        "integer modulo by zero"
                    } else {
                        "integer division or modulo by zero"
                    };
                    return Err(self.new_exc("ZeroDivisionError", m));
                }
                if op == BinOp::Mod {
                    x.checked_rem(y).map(|r| {
                        if r != 0 && ((r < 0) != (y < 0)) {
                            r + y
                        } else {
                            r
                        }
                    })
                } else {
                    x.checked_div(y).map(|q| {
                        if (x % y != 0) && ((x < 0) != (y < 0)) {
                            q - 1
                        } else {
                            q
                        }
                    })
                }
            }
            BinOp::TrueDiv => {
                if y == 0 {
                    return Err(self.new_exc("ZeroDivisionError", "division by zero"));
                }
                if x.unsigned_abs() < (1 << 53) && y.unsigned_abs() < (1 << 53) {
                    return Ok(Value::Float(x as f64 / y as f64));
                }
                return self.big_op(a, b, op);
            }
            BinOp::Pow => {
                if y < 0 {
                    let fx = x as f64;
                    return self.float_op(fx, y as f64, BinOp::Pow);
                }
                if y <= u32::MAX as i64 {
                    x.checked_pow(y as u32)
                } else {
                    None
                }
            }
            BinOp::LShift => {
                if y < 0 {
                    return Err(self.value_err("negative shift count"));
                }
                if y < 63 && (x == 0 || (x.unsigned_abs().leading_zeros() as i64) > y + 1) {
                    Some(x << y)
                } else {
                    None
                }
            }
            BinOp::RShift => {
                if y < 0 {
                    return Err(self.value_err("negative shift count"));
                }
                Some(if y >= 64 {
                    if x < 0 {
                        -1
                    } else {
                        0
                    }
                } else {
                    x >> y
                })
            }
            BinOp::And => Some(x & y),
            BinOp::Or => Some(x | y),
            BinOp::Xor => Some(x ^ y),
            BinOp::MatMul => {
                return Err(self.type_err("unsupported operand type(s) for @: 'int' and 'int'"));
            }
        };
        match r {
            Some(v) => Ok(Value::Int(v)),
            None => self.big_op(a, b, op),
        }
    }

    fn big_op(&mut self, a: &Value, b: &Value, op: BinOp) -> R<Value> {
        let (Some(x), Some(y)) = (to_big(a), to_big(b)) else {
            return Err(self.type_err("bad int operands"));
        };
        let (bx, by) = (x.bits(), y.bits());
        match op {
            BinOp::Mul | BinOp::FloorDiv | BinOp::Mod | BinOp::TrueDiv => {
                self.charge(cost::bigint_quadratic(bx, by))?
            }
            _ => self.charge(cost::bigint_linear(bx.max(by)))?,
        }
        let r = match op {
            BinOp::Add => x + y,
            BinOp::Sub => x - y,
            BinOp::Mul => {
                self.int_bound((bx + by).saturating_sub(1))?;
                x * y
            }
            BinOp::FloorDiv | BinOp::Mod => {
                if y.is_zero() {
                    let m = if op == BinOp::Mod {
                        "integer modulo by zero"
                    } else {
                        "integer division or modulo by zero"
                    };
                    return Err(self.new_exc("ZeroDivisionError", m));
                }
                if op == BinOp::Mod {
                    x.mod_floor(&y)
                } else {
                    x.div_floor(&y)
                }
            }
            BinOp::TrueDiv => {
                if y.is_zero() {
                    return Err(self.new_exc("ZeroDivisionError", "division by zero"));
                }
                return Ok(Value::Float(crate::objects::int::big_truediv(
                    self, &x, &y,
                )?));
            }
            BinOp::Pow => {
                if y.is_negative() {
                    let fx = self.to_float(a)?;
                    let fy = self.to_float(b)?;
                    return self.float_op(fx, fy, BinOp::Pow);
                }
                let e = y.to_u64().unwrap_or(u64::MAX);
                if bx > 1 {
                    // Predict the result size before computing it.
                    self.int_bound((bx - 1).saturating_mul(e))?;
                }
                self.charge(cost::bigint_pow(bx, e))?;
                if x.is_zero() || x == BigInt::from(1) {
                    return Ok(Value::from_bigint(if e == 0 { BigInt::from(1) } else { x }));
                }
                if x == BigInt::from(-1) {
                    return Ok(Value::Int(if e % 2 == 0 { 1 } else { -1 }));
                }
                num_traits::pow(x, e as usize)
            }
            BinOp::LShift => {
                if y.is_negative() {
                    return Err(self.value_err("negative shift count"));
                }
                if x.is_zero() {
                    return Ok(Value::Int(0));
                }
                let s = y.to_u64().unwrap_or(u64::MAX);
                self.int_bound(bx.saturating_add(s))?;
                x << s
            }
            BinOp::RShift => {
                if y.is_negative() {
                    return Err(self.value_err("negative shift count"));
                }
                let s = y.to_u64().unwrap_or(u64::MAX).min(1 << 20);
                x >> s
            }
            BinOp::And => x & y,
            BinOp::Or => x | y,
            BinOp::Xor => x ^ y,
            BinOp::MatMul => {
                return Err(self.type_err("unsupported operand type(s) for @: 'int' and 'int'"))
            }
        };
        self.int_result(r)
    }

    /// Rich comparison.
    pub fn compare(&mut self, a: &Value, b: &Value, op: CmpOp) -> R<Value> {
        match op {
            CmpOp::Eq | CmpOp::Ne => {
                // Rich comparison: a user __eq__/__ne__ result is returned as is.
                if matches!(a, Value::Instance(_)) || matches!(b, Value::Instance(_)) {
                    let (m, other) = if op == CmpOp::Eq {
                        ("__eq__", "__eq__")
                    } else {
                        ("__ne__", "__ne__")
                    };
                    let mut declined = 0;
                    if let Some(v) = self.call_dunder1(a, m, b)? {
                        if !matches!(v, Value::NotImplemented) {
                            return Ok(v);
                        }
                        declined += 1;
                    }
                    if let Some(v) = self.call_dunder1(b, other, a)? {
                        if !matches!(v, Value::NotImplemented) {
                            return Ok(v);
                        }
                        declined += 1;
                    }
                    // Both sides' own __eq__ said NotImplemented: == falls back to identity
                    // without asking them again.
                    if op == CmpOp::Eq && declined == 2 {
                        return Ok(Value::Bool(a.is(b)));
                    }
                    if op == CmpOp::Ne {
                        // Default __ne__ inverts __eq__.
                        if let Some(v) = self.call_dunder1(a, "__eq__", b)? {
                            if !matches!(v, Value::NotImplemented) {
                                return Ok(Value::Bool(!self.truthy(&v)?));
                            }
                        }
                    }
                }
                let r = self.eq(a, b)?;
                return Ok(Value::Bool(if op == CmpOp::Eq { r } else { !r }));
            }
            _ => {}
        }
        if let Some(o) = float_mixed_cmp(a, b) {
            return Ok(Value::Bool(o.is_some_and(|o| cmp_ord(o, op))));
        }
        // Keys and items views order like sets (against sets and other such views).
        let set_like = |vm: &Self, v: &Value| {
            matches!(v, Value::Set(_)) || vm.dict_view(v).is_some_and(|(k, _)| k != 1)
        };
        if (self.dict_view(a).is_some() || self.dict_view(b).is_some())
            && set_like(self, a)
            && set_like(self, b)
        {
            let (xa, xb) = (self.collect(a)?, self.collect(b)?);
            let (sa, sb) = (self.new_set(xa, false)?, self.new_set(xb, false)?);
            return self.compare(&sa, &sb, op);
        }
        if let (Value::Set(x), Value::Set(y)) = (a, b) {
            let sub = crate::objects::set::is_subset(self, x, y)?;
            let sup = crate::objects::set::is_subset(self, y, x)?;
            return Ok(Value::Bool(match op {
                CmpOp::Le => sub,
                CmpOp::Lt => sub && !sup,
                CmpOp::Ge => sup,
                _ => sup && !sub,
            }));
        }
        if let Some(o) = self.native_cmp(a, b)? {
            return Ok(Value::Bool(cmp_ord(o, op)));
        }
        let (f, r) = match op {
            CmpOp::Lt => ("__lt__", "__gt__"),
            CmpOp::Le => ("__le__", "__ge__"),
            CmpOp::Gt => ("__gt__", "__lt__"),
            _ => ("__ge__", "__le__"),
        };
        if let Some(v) = self.call_dunder1(a, f, b)? {
            if !matches!(v, Value::NotImplemented) {
                return Ok(v);
            }
        }
        if let Some(v) = self.call_dunder1(b, r, a)? {
            if !matches!(v, Value::NotImplemented) {
                return Ok(v);
            }
        }
        let (ba, bb) = (Self::base_of(a), Self::base_of(b));
        if !ba.is(a) || !bb.is(b) {
            if let Some(o) = self.native_cmp(&ba, &bb)? {
                return Ok(Value::Bool(cmp_ord(o, op)));
            }
        }
        let sym = match op {
            CmpOp::Lt => "<",
            CmpOp::Le => "<=",
            CmpOp::Gt => ">",
            _ => ">=",
        };
        Err(self.type_err(format!(
            "'{}' not supported between instances of '{}' and '{}'",
            sym,
            self.type_name(a),
            self.type_name(b)
        )))
    }

    /// Ordering of natively comparable values (None if not natively ordered).
    pub fn native_cmp(&mut self, a: &Value, b: &Value) -> R<Option<Ordering>> {
        use Value::*;
        Ok(match (a, b) {
            (Int(x), Int(y)) => Some(x.cmp(y)),
            (Int(_) | Bool(_) | BigInt(_), Int(_) | Bool(_) | BigInt(_)) => {
                let (Some(x), Some(y)) = (to_big(a), to_big(b)) else {
                    return Ok(Option::None);
                };
                Some(x.cmp(&y))
            }
            (Float(_), Int(_) | Bool(_) | BigInt(_) | Float(_))
            | (Int(_) | Bool(_) | BigInt(_), Float(_)) => float_mixed_cmp(a, b).flatten(),
            (Str(x), Str(y)) => {
                self.charge(cost::per_char(x.s.len().min(y.s.len())))?;
                Some(cmp_bytes(x.s.as_bytes(), y.s.as_bytes()))
            }
            (Bytes(x), Bytes(y)) => {
                self.charge(cost::per_char(x.b.len().min(y.b.len())))?;
                Some(cmp_bytes(&x.b, &y.b))
            }
            (Bytes(_) | ByteArray(_), Bytes(_) | ByteArray(_)) => {
                // Compared in place (no copies): a copy of the longer operand would be paid
                // only for the shorter one's length.
                let xa = match a {
                    ByteArray(x) => Some(x.b.borrow()),
                    _ => Option::None,
                };
                let ya = match b {
                    ByteArray(y) => Some(y.b.borrow()),
                    _ => Option::None,
                };
                let x: &[u8] = match (a, &xa) {
                    (Bytes(x), _) => &x.b,
                    (_, Some(v)) => v,
                    _ => &[],
                };
                let y: &[u8] = match (b, &ya) {
                    (Bytes(y), _) => &y.b,
                    (_, Some(v)) => v,
                    _ => &[],
                };
                self.charge(cost::per_char(x.len().min(y.len())))?;
                Some(cmp_bytes(x, y))
            }
            (Tuple(_), Tuple(_)) | (List(_), List(_)) => {
                self.charge(cost::per_elem(seq_len(a).min(seq_len(b))))?;
                self.enter()?;
                let r = self.lex_cmp(a, b);
                self.leave();
                Some(r?)
            }
            (Set(x), Set(y)) => {
                // Subset ordering: only meaningful for <=, <, >=, >; encode via lengths.
                let sub = crate::objects::set::is_subset(self, x, y)?;
                let sup = crate::objects::set::is_subset(self, y, x)?;
                Some(match (sub, sup) {
                    (true, true) => Ordering::Equal,
                    (true, false) => Ordering::Less,
                    (false, true) => Ordering::Greater,
                    // Incomparable sets: `compare` handles sets itself, this arm is for sorting.
                    (false, false) => Ordering::Equal,
                })
            }
            _ => Option::None,
        })
    }

    /// Lexicographic order of two lists/tuples. Walks by index and re-reads the lengths at every
    /// step, as CPython does, so an `__eq__` that mutates a list sees no stale snapshot (and
    /// nothing is copied).
    fn lex_cmp(&mut self, a: &Value, b: &Value) -> R<Ordering> {
        // Tuples are immutable, so their items are compared in place (no per-item clones);
        // the comparisons, and so the charges, are the ones of the general walk below.
        if let (Value::Tuple(ta), Value::Tuple(tb)) = (a, b) {
            for (x, y) in ta.items.iter().zip(tb.items.iter()) {
                if let Some(o) = self.item_order(x, y)? {
                    return Ok(o);
                }
            }
            return Ok(ta.items.len().cmp(&tb.items.len()));
        }
        let mut i = 0;
        while let (Some(x), Some(y)) = (seq_item(a, i), seq_item(b, i)) {
            i += 1;
            if let Some(o) = self.item_order(&x, &y)? {
                return Ok(o);
            }
        }
        Ok(seq_len(a).cmp(&seq_len(b)))
    }

    /// One step of a lexicographic comparison: `None` when the items are equal (go on), else
    /// the order they decide (native ordering, or their `<`).
    fn item_order(&mut self, x: &Value, y: &Value) -> R<Option<Ordering>> {
        if x.is(y) || self.eq(x, y)? {
            return Ok(None);
        }
        if let Some(o) = self.native_cmp(x, y)? {
            return Ok(Some(o));
        }
        let lt = self.compare(x, y, CmpOp::Lt)?;
        Ok(Some(if self.truthy(&lt)? {
            Ordering::Less
        } else {
            Ordering::Greater
        }))
    }

    /// Items of a list/tuple (cloned).
    pub fn seq_items(&self, v: &Value) -> Vec<Value> {
        match v {
            Value::List(l) => l.items.borrow().clone(),
            Value::Tuple(t) => t.items.to_vec(),
            _ => Vec::new(),
        }
    }

    /// `a == b`.
    pub fn eq(&mut self, a: &Value, b: &Value) -> R<bool> {
        use Value::*;
        match (a, b) {
            (Int(x), Int(y)) => return Ok(x == y),
            (Str(x), Str(y)) => {
                if Rc::ptr_eq(x, y) {
                    return Ok(true);
                }
                self.charge(cost::per_char(x.s.len().min(y.s.len())))?;
                return Ok(x.s == y.s);
            }
            (None, None) => return Ok(true),
            (Int(_) | Bool(_) | BigInt(_), Int(_) | Bool(_) | BigInt(_)) => {
                return Ok(to_big(a) == to_big(b))
            }
            (Float(_), Int(_) | Bool(_) | Float(_) | BigInt(_))
            | (Int(_) | Bool(_) | BigInt(_), Float(_)) => {
                return Ok(float_mixed_cmp(a, b).flatten() == Some(Ordering::Equal))
            }
            // Equal lengths compare byte by byte: paid per byte, as `str` is, before the compare.
            (Bytes(x), Bytes(y)) => {
                if x.b.len() == y.b.len() {
                    self.charge(cost::per_char(x.b.len()))?;
                }
                return Ok(x.b == y.b);
            }
            (Bytes(x), ByteArray(y)) | (ByteArray(y), Bytes(x)) => {
                let n = y.b.borrow().len();
                if x.b.len() == n {
                    self.charge(cost::per_char(n))?;
                }
                return Ok(*x.b == *y.b.borrow());
            }
            (ByteArray(x), ByteArray(y)) => {
                let (n, m) = (x.b.borrow().len(), y.b.borrow().len());
                if n == m {
                    self.charge(cost::per_char(n))?;
                }
                return Ok(*x.b.borrow() == *y.b.borrow());
            }
            (Tuple(_), Tuple(_)) | (List(_), List(_)) => {
                if a.is(b) {
                    return Ok(true);
                }
                let n = seq_len(a);
                if n != seq_len(b) {
                    return Ok(false);
                }
                // The container's own visit (a level of nested data) and each item.
                self.charge(cost::per_elem(n) + cost::NEST_VISIT)?;
                self.enter()?;
                let mut r = Ok(true);
                let mut i = 0;
                // By index, as `lex_cmp`: an `__eq__` that shrinks a list ends the walk.
                while let (Some(x), Some(y)) = (seq_item(a, i), seq_item(b, i)) {
                    i += 1;
                    match if x.is(&y) { Ok(true) } else { self.eq(&x, &y) } {
                        Ok(true) => {}
                        other => {
                            r = other;
                            break;
                        }
                    }
                }
                self.leave();
                return r;
            }
            (Dict(x), Dict(y)) => {
                if Rc::ptr_eq(x, y) {
                    return Ok(true);
                }
                if x.table.borrow().len != y.table.borrow().len {
                    return Ok(false);
                }
                let items: Vec<Entry> = x.table.borrow().iter().cloned().collect();
                self.charge(cost::per_elem(items.len()))?;
                self.enter()?;
                let mut res = Ok(true);
                for e in items {
                    match self.dict_get(y, &e.key) {
                        Ok(Some(v)) => match if v.is(&e.value) {
                            Ok(true)
                        } else {
                            self.eq(&v, &e.value)
                        } {
                            Ok(true) => {}
                            other => {
                                res = other;
                                break;
                            }
                        },
                        Ok(Option::None) => {
                            res = Ok(false);
                            break;
                        }
                        Err(e) => {
                            res = Err(e);
                            break;
                        }
                    }
                }
                self.leave();
                return res;
            }
            (Set(x), Set(y)) => {
                if x.table.borrow().len != y.table.borrow().len {
                    return Ok(false);
                }
                return crate::objects::set::is_subset(self, x, y);
            }
            (Slice(x), Slice(y)) => {
                // Slices compare as the tuples (start, stop, step).
                let tx = Value::tuple(vec![x.start.clone(), x.stop.clone(), x.step.clone()]);
                let ty = Value::tuple(vec![y.start.clone(), y.stop.clone(), y.step.clone()]);
                return self.eq(&tx, &ty);
            }
            (Range(x), Range(y)) => {
                return Ok((x.is_empty() && y.is_empty())
                    || (x.start == y.start
                        && x.len() == y.len()
                        && (x.len() == 1 || x.step == y.step)))
            }
            (Instance(_), _) | (_, Instance(_)) => {
                let (va, vb) = (self.dict_view(a), self.dict_view(b));
                if va.is_some() || vb.is_some() {
                    if va.as_ref().is_some_and(|(k, _)| *k == 1)
                        || vb.as_ref().is_some_and(|(k, _)| *k == 1)
                    {
                        return Ok(a.is(b));
                    }
                    if !(va.is_some() || matches!(a, Set(_)))
                        || !(vb.is_some() || matches!(b, Set(_)))
                    {
                        return Ok(false);
                    }
                    let xa = self.collect(a)?;
                    let xb = self.collect(b)?;
                    let (Set(sa), Set(sb)) = (self.new_set(xa, false)?, self.new_set(xb, false)?)
                    else {
                        return Ok(false);
                    };
                    return self.eq(&Set(sa), &Set(sb));
                }
            }
            _ => return Ok(a.is(b)),
        }
        if let Some(v) = self.call_dunder1(a, "__eq__", b)? {
            if !matches!(v, Value::NotImplemented) {
                return self.truthy(&v);
            }
        }
        if let Some(v) = self.call_dunder1(b, "__eq__", a)? {
            if !matches!(v, Value::NotImplemented) {
                return self.truthy(&v);
            }
        }
        let (ba, bb) = (Self::base_of(a), Self::base_of(b));
        if !ba.is(a) || !bb.is(b) {
            if matches!(ba, Value::Instance(_)) || matches!(bb, Value::Instance(_)) {
                return Ok(ba.is(&bb));
            }
            return self.eq(&ba, &bb);
        }
        Ok(a.is(b))
    }

    /// Python `hash(v)` (deterministic; CPython-compatible for ints).
    pub fn hash(&mut self, v: &Value) -> R<u64> {
        Ok(match v {
            Value::Int(i) => int_hash(*i) as u64,
            Value::Bool(b) => *b as u64,
            Value::BigInt(b) => {
                self.charge(cost::bigint_linear(b.bits()))?;
                big_hash(b) as u64
            }
            // CPython hashes a NaN by identity; a PVM float has none, so its bits decide.
            Value::Float(f) if f.is_nan() => f.to_bits().wrapping_mul(0x9E37_79B9_7F4A_7C15),
            Value::Float(f) => float_hash(*f) as u64,
            Value::Str(s) => {
                self.charge(cost::per_char(s.s.len()))?;
                s.hash()
            }
            Value::Bytes(b) => {
                self.charge(cost::per_char(b.b.len()))?;
                let mut h = FixedHasher::default();
                h.write(&b.b);
                h.finish() ^ 0xb5
            }
            Value::None => 0xFC_A8_6B,
            // CPython 3.11's tuple hash (an xxHash64 round per element over the element
            // hashes), so tuples of ints, floats and bools hash exactly as in CPython.
            Value::Tuple(t) => {
                const P1: u64 = 11_400_714_785_074_694_791;
                const P2: u64 = 14_029_467_366_897_019_727;
                const P5: u64 = 2_870_177_450_012_600_261;
                self.charge(cost::per_elem(t.items.len()))?;
                self.enter()?;
                let mut acc: u64 = P5;
                let mut r = Ok(());
                for x in t.items.iter() {
                    match self.hash(x) {
                        Ok(lane) => {
                            acc = acc.wrapping_add(lane.wrapping_mul(P2));
                            acc = acc.rotate_left(31);
                            acc = acc.wrapping_mul(P1);
                        }
                        Err(e) => {
                            r = Err(e);
                            break;
                        }
                    }
                }
                self.leave();
                r?;
                acc = acc.wrapping_add((t.items.len() as u64) ^ (P5 ^ 3_527_539));
                if acc == u64::MAX {
                    1_546_275_796
                } else {
                    acc
                }
            }
            // CPython 3.11's frozenset hash: element hashes shuffled and xor-ed (so the order
            // does not matter), then mixed with the size.
            Value::Set(s) if s.frozen => {
                let shuffle = |h: u64| ((h ^ 89_869_747) ^ (h << 16)).wrapping_mul(3_644_798_167);
                // A walk over every entry (the element hashes are stored, not recomputed): paid
                // per entry. Unpaid, `hash(frozenset(range(100_000)))` in a loop ran at 7,000x
                // the plain loop per cycle.
                self.charge(cost::per_elem(s.table.borrow().entries.len()))?;
                let tb = s.table.borrow();
                let mut n = 0u64;
                let mut h: u64 = 0;
                for e in tb.iter() {
                    h ^= shuffle(e.hash);
                    n += 1;
                }
                h ^= (n + 1).wrapping_mul(1_927_868_237);
                h ^= (h >> 11) ^ (h >> 25);
                h = h.wrapping_mul(69_069).wrapping_add(907_133_923);
                if h == u64::MAX {
                    590_923_713
                } else {
                    h
                }
            }
            Value::List(_) | Value::Dict(_) | Value::Set(_) | Value::ByteArray(_) => {
                return Err(self.type_err(format!("unhashable type: '{}'", self.type_name(v))));
            }
            Value::Instance(i) => {
                let cls = i.cls();
                // `__hash__ = object.__hash__` next to an `__eq__` keeps identity hashing.
                let object_hash = matches!(cls.lookup_static("__hash__"), Some(Value::Builtin(_)));
                if let Some(h) = cls.lookup_static("__hash__") {
                    if h.is_none() {
                        return Err(self.type_err(format!("unhashable type: '{}'", cls.name)));
                    }
                    // A subclass of a builtin value type that does not define __hash__
                    // hashes its value (`hash(S("a")) == hash("a")`).
                    let base = i.base.borrow().clone();
                    if let (Value::Builtin(_), Some(b)) = (&h, base) {
                        let value_type = match &b {
                            Value::Set(s) => s.frozen,
                            _ => matches!(
                                b,
                                Value::Int(_)
                                    | Value::BigInt(_)
                                    | Value::Bool(_)
                                    | Value::Float(_)
                                    | Value::Str(_)
                                    | Value::Bytes(_)
                                    | Value::Tuple(_)
                            ),
                        };
                        if value_type {
                            return self.hash(&b);
                        }
                    }
                }
                if let Some(r) = self.call_dunder(v, "__hash__", vec![])? {
                    // As CPython's slot: an int that fits a machine word is used as is
                    // (except -1, which becomes -2); a bigger one is hashed like an int.
                    return match r {
                        Value::Int(-1) => Ok(-2i64 as u64),
                        Value::Int(i) => Ok(i as u64),
                        Value::BigInt(b) => Ok(big_hash(&b) as u64),
                        Value::Bool(b) => Ok(b as u64),
                        _ => Err(self.type_err("__hash__ method should return an integer")),
                    };
                }
                if !object_hash && self.lookup_dunder(v, "__eq__").is_some() {
                    return Err(self.type_err(format!("unhashable type: '{}'", cls.name)));
                }
                // A dict_values view carries its dict as payload but is hashed by identity.
                let b = i.base.borrow().clone();
                if let Some(b) = b.filter(|_| !Rc::ptr_eq(&cls, &self.types.dict_values)) {
                    return self.hash(&b);
                }
                identity_hash(v)
            }
            other => identity_hash(other),
        })
    }

    /// Convert to an index (int or __index__).
    pub fn index_of(&mut self, v: &Value) -> R<i64> {
        match v {
            Value::Int(i) => Ok(*i),
            Value::Bool(b) => Ok(*b as i64),
            Value::BigInt(_) => {
                Err(self.new_exc("IndexError", "cannot fit 'int' into an index-sized integer"))
            }
            Value::Instance(_) => {
                if let Some(r) = self.call_dunder(v, "__index__", vec![])? {
                    return self.index_of(&r);
                }
                let b = Self::base_of(v);
                if !b.is(v) {
                    return self.index_of(&b);
                }
                Err(self.type_err(format!(
                    "'{}' object cannot be interpreted as an integer",
                    self.type_name(v)
                )))
            }
            _ => Err(self.type_err(format!(
                "'{}' object cannot be interpreted as an integer",
                self.type_name(v)
            ))),
        }
    }

    /// `repr(v)`.
    pub fn repr(&mut self, v: &Value) -> R<String> {
        crate::format::repr(self, v)
    }

    /// `str(v)`.
    pub fn str(&mut self, v: &Value) -> R<String> {
        match v {
            Value::Str(s) => Ok(s.s.to_string()),
            Value::Instance(_) if self.dict_view(v).is_some() => self.repr(v),
            Value::Instance(i) => {
                if let Some(r) = self.call_dunder(v, "__str__", vec![])? {
                    return match r {
                        Value::Str(s) => Ok(s.s.to_string()),
                        _ => Err(self.type_err(format!(
                            "__str__ returned non-string (type {})",
                            self.type_name(&r)
                        ))),
                    };
                }
                // BaseException.__str__ (shows the args) applies even with a custom __repr__.
                if i.exc.borrow().is_some() {
                    return crate::format::exc_str(self, i);
                }
                let b = i.base.borrow().clone();
                if let Some(b) = b {
                    if self.lookup_dunder(v, "__repr__").is_none() {
                        // Their str is their repr, which names the subclass (`format::repr`).
                        if matches!(b, Value::ByteArray(_) | Value::Set(_)) {
                            return self.repr(v);
                        }
                        return self.str(&b);
                    }
                }
                // object.__str__ is repr(), but CPython reports a bad result as __str__'s.
                if let Some(r) = self.call_dunder(v, "__repr__", vec![])? {
                    return match r {
                        Value::Str(s) => Ok(s.s.to_string()),
                        _ => Err(self.type_err(format!(
                            "__str__ returned non-string (type {})",
                            self.type_name(&r)
                        ))),
                    };
                }
                self.repr(v)
            }
            _ => self.repr(v),
        }
    }

    /// `format(v, spec)`.
    pub fn format(&mut self, v: &Value, spec: &str) -> R<String> {
        if let Value::Instance(_) = v {
            if let Some(r) = self.call_dunder(v, "__format__", vec![Value::str(spec)])? {
                return match r {
                    Value::Str(s) => Ok(s.s.to_string()),
                    other => {
                        let tn = self.type_name(&other);
                        Err(self.type_err(format!("__format__ must return a str, not {tn}")))
                    }
                };
            }
            let b = Self::base_of(v);
            if !b.is(v)
                && self.lookup_dunder(v, "__str__").is_none()
                && self.lookup_dunder(v, "__repr__").is_none()
            {
                return self.format(&b, spec);
            }
            if spec.is_empty() {
                return self.str(v);
            }
            return Err(self.type_err(format!(
                "unsupported format string passed to {}.__format__",
                self.type_name(v)
            )));
        }
        crate::format::format_value(self, v, spec)
    }

    /// `iter(v)`.
    pub fn iter(&mut self, v: &Value) -> R<Value> {
        let st = match v {
            Value::List(_) | Value::Tuple(_) | Value::Bytes(_) | Value::ByteArray(_) => {
                IterState::Seq {
                    seq: v.clone(),
                    i: 0,
                }
            }
            Value::Str(s) => IterState::Str {
                s: s.clone(),
                byte: 0,
            },
            Value::Range(r) => IterState::Range {
                next: r.start,
                step: r.step,
                left: r.len(),
            },
            Value::Dict(d) => {
                let len = d.table.borrow().len;
                IterState::Dict {
                    d: d.clone(),
                    i: 0,
                    kind: 0,
                    len,
                }
            }
            Value::Set(s) => {
                let len = s.table.borrow().len;
                IterState::Set {
                    s: s.clone(),
                    i: 0,
                    len,
                }
            }
            Value::Generator(g) if g.async_gen || g.coroutine => {
                let tn = self.type_name(v);
                return Err(self.type_err(format!("'{tn}' object is not iterable")));
            }
            Value::Iter(_) | Value::Generator(_) => return Ok(v.clone()),
            Value::Class(_) if self.lookup_dunder(v, "__iter__").is_some() => {
                return Ok(self.call_dunder(v, "__iter__", vec![])?.unwrap_or_default());
            }
            Value::Instance(i) => {
                if let Some((kind, d)) = self.dict_view(v) {
                    let len = d.table.borrow().len;
                    return Ok(Value::Iter(Rc::new(PyIter::new(IterState::Dict {
                        d,
                        i: 0,
                        kind,
                        len,
                    }))));
                }
                if let Some(r) = self.call_dunder(v, "__iter__", vec![])? {
                    let iterator = match &r {
                        Value::Iter(_) | Value::Generator(_) => true,
                        Value::Instance(_) => self.lookup_dunder(&r, "__next__").is_some(),
                        _ => false,
                    };
                    if !iterator {
                        let tn = self.type_name(&r);
                        return Err(
                            self.type_err(format!("iter() returned non-iterator of type '{tn}'"))
                        );
                    }
                    return Ok(r);
                }
                // An iterable builtin base (list, str, dict … subclasses) iterates as the base
                // does, as its inherited `__iter__` would, even when the class overrides
                // `__getitem__`; the sequence protocol is for everything else.
                let b = i.base.borrow().clone();
                if let Some(b) = b.filter(|b| {
                    !matches!(
                        b,
                        Value::Int(_) | Value::BigInt(_) | Value::Float(_) | Value::Bool(_)
                    )
                }) {
                    return self.iter(&b);
                }
                if self.lookup_dunder(v, "__getitem__").is_some() {
                    return Ok(Value::Iter(Rc::new(PyIter::new(IterState::Seq {
                        seq: v.clone(),
                        i: 0,
                    }))));
                }
                return Err(
                    self.type_err(format!("'{}' object is not iterable", self.type_name(v)))
                );
            }
            _ => {
                return Err(self.type_err(format!("'{}' object is not iterable", self.type_name(v))))
            }
        };
        Ok(Value::Iter(Rc::new(PyIter::new(st))))
    }

    /// Advance an iterator: `None` when exhausted.
    pub fn next(&mut self, it: &Value) -> R<Option<Value>> {
        match it {
            Value::Iter(i) => crate::objects::iter::next(self, i),
            Value::Generator(g) => match self.gen_send(g, Value::None)? {
                Ok(v) => Ok(Some(v)),
                Err(_) => Ok(None),
            },
            Value::Instance(_) => match self.next_dunder(it) {
                Ok(Some(v)) => Ok(Some(v)),
                Ok(None) => Err(self.type_err(format!(
                    "'{}' object is not an iterator",
                    self.type_name(it)
                ))),
                Err(e) if self.exc_is(&e, "StopIteration") => Ok(None),
                Err(e) => Err(e),
            },
            _ => Err(self.type_err(format!(
                "'{}' object is not an iterator",
                self.type_name(it)
            ))),
        }
    }

    /// `it.__next__()` if its type has one, as [`Vm::call_dunder`] calls it; a native
    /// iterator's own `__next__` is called with its receiver directly (same charge, same
    /// answer, no argument vector).
    fn next_dunder(&mut self, it: &Value) -> R<Option<Value>> {
        let Some(m) = self.lookup_dunder(it, "__next__") else {
            return Ok(None);
        };
        match crate::objects::native_type::native_next(&m) {
            Some(next) => {
                self.charge(cost::CALL)?;
                next(self, it).map(Some)
            }
            None => self.call_special(it, m, vec![]).map(Some),
        }
    }

    /// All items of an iterable.
    pub fn collect(&mut self, v: &Value) -> R<Vec<Value>> {
        // A list or tuple is copied whole: the copy is paid for per element and must fit in
        // memory before it is made (`list(l)`, `tuple(l)`, `f(*l)` were free copies).
        let n = match v {
            Value::List(l) => Some(l.items.borrow().len()),
            Value::Tuple(t) => Some(t.items.len()),
            _ => None,
        };
        if let Some(n) = n {
            self.charge(cost::per_elem(n))?;
            self.reserve((n as u64).saturating_mul(crate::memory::SLOT as u64))?;
            match v {
                Value::List(l) => return Ok(l.items.borrow().clone()),
                Value::Tuple(t) => return Ok(t.items.to_vec()),
                _ => {}
            }
        }
        // A range knows its length: all of it must fit before any of it is made (CPython's
        // `list(range(10**11))` fails at once too), then it is written without the iterator.
        if let Value::Range(r) = v {
            let n = r.len().max(0) as u64;
            self.reserve(n.saturating_mul(crate::memory::SLOT as u64))?;
            self.charge(cost::per_elem(n as usize))?;
            return Ok((0..n as i64)
                .map(|i| Value::Int(r.start + i * r.step))
                .collect());
        }
        let it = self.iter(v)?;
        let mut out = Vec::new();
        while let Some(x) = self.next(&it)? {
            self.charge(cost::PER_ELEM)?;
            out.push(x);
            if out.len() % 1024 == 0 {
                self.reserve((out.len() * crate::memory::SLOT) as u64)?;
            }
        }
        Ok(out)
    }

    /// Sequence unpacking: exact count, or `before` + starred + `after`.
    pub fn unpack(&mut self, v: &Value, before: usize, after: Option<usize>) -> R<Vec<Value>> {
        let not_iterable = |vm: &mut Self, e: Exc| {
            if vm.exc_is(&e, "TypeError") && vm.not_iterable(v) {
                let tn = vm.type_name(v);
                vm.type_err(format!("cannot unpack non-iterable {tn} object"))
            } else {
                e
            }
        };
        match after {
            None => {
                // Like CPython, take at most one item more than needed, so an over-long (or
                // endless) iterator is reported without being drained.
                let items = match v {
                    // A whole copy, charged per element by collect().
                    Value::List(_) | Value::Tuple(_) => self.collect(v)?,
                    _ => {
                        let it = self.iter(v).map_err(|e| not_iterable(self, e))?;
                        let mut out = Vec::with_capacity(before + 1);
                        while out.len() <= before {
                            match self.next(&it)? {
                                Some(x) => out.push(x),
                                None => break,
                            }
                        }
                        out
                    }
                };
                if items.len() != before {
                    if items.len() > before {
                        return Err(self
                            .value_err(format!("too many values to unpack (expected {before})")));
                    }
                    return Err(self.value_err(format!(
                        "not enough values to unpack (expected {}, got {})",
                        before,
                        items.len()
                    )));
                }
                Ok(items)
            }
            Some(after) => {
                let items = self.collect(v).map_err(|e| not_iterable(self, e))?;
                if items.len() < before + after {
                    return Err(self.value_err(format!(
                        "not enough values to unpack (expected at least {}, got {})",
                        before + after,
                        items.len()
                    )));
                }
                let mut out: Vec<Value> = items[..before].to_vec();
                out.push(Value::list(items[before..items.len() - after].to_vec()));
                out.extend(items[items.len() - after..].iter().cloned());
                Ok(out)
            }
        }
    }

    /// True when `v` has no way to be iterated (so a TypeError from `iter` is about `v`
    /// itself, not raised inside a user `__iter__`).
    pub(crate) fn not_iterable(&self, v: &Value) -> bool {
        match v {
            Value::Instance(i) => {
                self.lookup_dunder(v, "__iter__").is_none()
                    && self.lookup_dunder(v, "__getitem__").is_none()
                    && i.base.borrow().is_none()
            }
            Value::Int(_)
            | Value::BigInt(_)
            | Value::Bool(_)
            | Value::Float(_)
            | Value::None
            | Value::Function(_)
            | Value::Builtin(_)
            | Value::Class(_) => true,
            _ => false,
        }
    }

    /// `k in container`.
    pub fn contains(&mut self, c: &Value, k: &Value) -> R<bool> {
        match c {
            Value::Str(s) => match k {
                Value::Str(x) => {
                    self.charge(cost::per_char(s.s.len()))?;
                    Ok(s.s.contains(&*x.s))
                }
                _ => Err(self.type_err(format!(
                    "'in <string>' requires string as left operand, not {}",
                    self.type_name(k)
                ))),
            },
            Value::Dict(d) => Ok(self.dict_get(d, k)?.is_some()),
            Value::Set(s) => crate::objects::set::contains(self, s, k),
            Value::Class(_) if self.lookup_dunder(c, "__contains__").is_some() => {
                let r = self
                    .call_dunder(c, "__contains__", vec![k.clone()])?
                    .unwrap_or_default();
                self.truthy(&r)
            }
            Value::Range(r) => match k {
                Value::Int(i) => {
                    let i = *i;
                    Ok(if r.step > 0 {
                        i >= r.start && i < r.stop && (i - r.start) % r.step == 0
                    } else {
                        i <= r.start && i > r.stop && (r.start - i) % (-r.step) == 0
                    })
                }
                _ => self.contains_iter(c, k),
            },
            Value::Bytes(_) | Value::ByteArray(_) => {
                let hay = match c {
                    Value::Bytes(b) => b.b.to_vec(),
                    Value::ByteArray(b) => b.b.borrow().clone(),
                    _ => Vec::new(),
                };
                self.charge(cost::per_char(hay.len()))?;
                let needle = match k {
                    Value::Bytes(x) => x.b.to_vec(),
                    Value::ByteArray(x) => x.b.borrow().clone(),
                    Value::Int(_) | Value::Bool(_) | Value::BigInt(_) | Value::Instance(_) => {
                        let byte = match self.index_of(k) {
                            Ok(i) => u8::try_from(i).ok(),
                            Err(e) if e.is_abort() => return Err(e),
                            Err(_) if matches!(k, Value::BigInt(_)) => None,
                            Err(_) => {
                                let tn = self.type_name(k);
                                return Err(self.type_err(format!(
                                    "a bytes-like object is required, not '{tn}'"
                                )));
                            }
                        };
                        let Some(byte) = byte else {
                            return Err(self.value_err("byte must be in range(0, 256)"));
                        };
                        return Ok(hay.contains(&byte));
                    }
                    other => {
                        let tn = self.type_name(other);
                        return Err(
                            self.type_err(format!("a bytes-like object is required, not '{tn}'"))
                        );
                    }
                };
                Ok(needle.is_empty() || hay.windows(needle.len()).any(|w| w == needle))
            }
            Value::Instance(i) => {
                if let Some((kind, _)) = self.dict_view(c) {
                    if kind != 0 {
                        return self.contains_iter(c, k);
                    }
                }
                if let Some(r) = self.call_dunder1(c, "__contains__", k)? {
                    return self.truthy(&r);
                }
                let b = i.base.borrow().clone();
                if let Some(b) = b {
                    return self.contains(&b, k);
                }
                self.contains_iter(c, k)
            }
            _ => self.contains_iter(c, k),
        }
    }

    fn contains_iter(&mut self, c: &Value, k: &Value) -> R<bool> {
        let it = match self.iter(c) {
            Ok(it) => it,
            Err(e) if self.exc_is(&e, "TypeError") => {
                let tn = self.type_name(c);
                return Err(self.type_err(format!("argument of type '{tn}' is not iterable")));
            }
            Err(e) => return Err(e),
        };
        while let Some(x) = self.next(&it)? {
            self.charge(cost::PER_ELEM_CMP)?;
            if x.is(k) || self.eq(&x, k)? {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// `o[k]`.
    pub fn getitem(&mut self, o: &Value, k: &Value) -> R<Value> {
        crate::objects::getitem(self, o, k)
    }
    /// `o[k] = v`.
    pub fn setitem(&mut self, o: &Value, k: Value, v: Value) -> R<()> {
        crate::objects::setitem(self, o, k, v)
    }
    /// `del o[k]`.
    pub fn delitem(&mut self, o: &Value, k: Value) -> R<()> {
        crate::objects::delitem(self, o, k)
    }

    /// Python's `is` operator. For ints, floats, strs, bytes and big ints CPython's answer
    /// depends on what its caches happen to share (small ints, interned strings, constants the
    /// compiler folded), which actors may not rely on (whitepaper, "Forbidden operations:
    /// Identity"). Here it is a function of the values, whatever any cache holds: equal
    /// values of one of these types are the same object (floats by their bits). Two distinct
    /// strs or bytes of one length are compared, paid per byte first. Everything else is
    /// object identity.
    pub fn is_op(&mut self, l: &Value, r: &Value) -> R<bool> {
        match (l, r) {
            (Value::Str(a), Value::Str(b)) if !Rc::ptr_eq(a, b) => {
                if a.s.len() != b.s.len() {
                    return Ok(false);
                }
                self.charge(cost::per_char(a.s.len()))?;
                Ok(a.s == b.s)
            }
            (Value::Bytes(a), Value::Bytes(b)) if !Rc::ptr_eq(a, b) => {
                if a.b.len() != b.b.len() {
                    return Ok(false);
                }
                self.charge(cost::per_char(a.b.len()))?;
                Ok(a.b == b.b)
            }
            (Value::BigInt(a), Value::BigInt(b)) => Ok(a == b),
            _ => Ok(l.is(r)),
        }
    }

    /// Find `key` in a table: index of its entry.
    ///
    /// Every slot read beyond the first few is charged ([`cost::PROBE`], owed by the probe walk
    /// and settled here, after each lookup), so keys colliding on purpose pay one probe per
    /// entry they are compared with, and a native loop of lookups pays as it goes. A lookup in
    /// a table larger than the caches pays for its misses first ([`cost::table_reach`]).
    pub fn table_find(
        &mut self,
        t: &std::cell::RefCell<Table>,
        key: &Value,
        h: u64,
    ) -> R<Option<usize>> {
        let reach = cost::table_reach(t.borrow().slot_count());
        if reach > 0 {
            self.charge(reach)?;
        }
        let r = self.table_find_walk(t, key, h);
        self.settle()?;
        r
    }

    fn table_find_walk(
        &mut self,
        t: &std::cell::RefCell<Table>,
        key: &Value,
        h: u64,
    ) -> R<Option<usize>> {
        // Candidates are compared in probe order. While the key and the candidate are plain
        // values (whose `eq` runs no Python code and cannot touch this table) they are compared
        // under the borrow, without copies; from the first other candidate on, the rest are
        // copied out first (`table_find_from`), since their `__eq__` may change the table.
        // Same comparisons, same order, same cycles either way. A str key meets a str
        // candidate in place, as `Value::is` and then `Vm::eq` decide and charge for two strs
        // (two calls per candidate, on the commonest lookup).
        let plain_key = is_plain_key(key);
        let str_key = match key {
            Value::Str(s) => Some(s),
            _ => None,
        };
        let mut skip = 0;
        {
            let tb = t.borrow();
            let mut general = false;
            for i in tb.candidates(h) {
                let e = match tb.entries.get(i as usize) {
                    Some(Some(e)) if plain_key && is_plain_key(&e.key) => e,
                    Some(Some(_)) => {
                        general = true;
                        break;
                    }
                    _ => {
                        skip += 1;
                        continue;
                    }
                };
                let same = match (&e.key, str_key) {
                    (Value::Str(k), Some(s)) => {
                        if Rc::ptr_eq(k, s) || (k.len <= 1 && k.s == s.s) {
                            true
                        } else {
                            self.charge(cost::per_char(k.s.len().min(s.s.len())))?;
                            k.s == s.s
                        }
                    }
                    (k, _) => k.is(key) || self.eq(k, key)?,
                };
                if same {
                    return Ok(Some(i as usize));
                }
                skip += 1;
            }
            if !general {
                return Ok(None);
            }
        }
        // The borrow is released: the remaining comparisons may run Python code.
        self.table_find_from(t, key, h, skip)
    }

    /// The general lookup: candidates after the first `skip` are copied, then compared (an
    /// `__eq__` may mutate the table).
    fn table_find_from(
        &mut self,
        t: &std::cell::RefCell<Table>,
        key: &Value,
        h: u64,
        skip: usize,
    ) -> R<Option<usize>> {
        let cands: Vec<(u32, Value)> = {
            let tb = t.borrow();
            tb.candidates(h)
                .skip(skip)
                .filter_map(|i| {
                    tb.entries
                        .get(i as usize)
                        .and_then(|e| e.as_ref())
                        .map(|e| (i, e.key.clone()))
                })
                .collect()
        };
        for (i, k) in cands {
            if k.is(key) || self.eq(&k, key)? {
                return Ok(Some(i as usize));
            }
        }
        Ok(None)
    }

    /// `d[key]` lookup.
    pub fn dict_get(&mut self, d: &PyDict, key: &Value) -> R<Option<Value>> {
        if let Value::Str(s) = key {
            return self.dict_get_pystr(d, s, key);
        }
        let h = self.hash(key)?;
        self.charge(cost::DICT_OP)?;
        Ok(match self.table_find(&d.table, key, h)? {
            Some(i) => d
                .table
                .borrow()
                .entries
                .get(i)
                .and_then(|e| e.as_ref())
                .map(|e| e.value.clone()),
            None => None,
        })
    }

    /// `d[key]` for a str `key` (`s`, the same value as `key`): [`Vm::dict_get`]'s hash and
    /// charges without its dispatch on the key's type. The commonest lookup (attribute-like
    /// keys, JSON objects, storage maps); the interpreter's `o[k]` calls it directly.
    pub fn dict_get_pystr(&mut self, d: &PyDict, s: &Rc<PyStr>, key: &Value) -> R<Option<Value>> {
        self.charge(cost::per_char(s.s.len()))?;
        let h = s.hash();
        self.charge(cost::DICT_OP)?;
        let found = self.table_find(&d.table, key, h)?;
        Ok(found.and_then(|i| {
            let t = d.table.borrow();
            t.entries.get(i)?.as_ref().map(|e| e.value.clone())
        }))
    }

    /// Refuse to change a namespace of the thread's shared base (`memory::is_frozen`): the
    /// globals, functions and host module of the shared `cowboy_sdk`.
    #[inline]
    pub fn check_writable(&mut self, d: &PyDict) -> R<()> {
        if crate::memory::is_frozen(&d.acct) {
            return Err(self.type_err(
                "cannot change cowboy_sdk's functions or namespaces: they are shared by every \
                 invocation (bind a name of your own instead)",
            ));
        }
        Ok(())
    }

    /// `d[key] = v`.
    pub fn dict_set(&mut self, d: &PyDict, key: Value, v: Value) -> R<()> {
        self.check_writable(d)?;
        let h = self.hash(&key)?;
        self.charge(cost::DICT_OP)?;
        match self.table_find(&d.table, &key, h)? {
            Some(i) => {
                if let Some(Some(e)) = d.table.borrow_mut().entries.get_mut(i) {
                    e.value = v;
                }
            }
            None => {
                d.table.borrow_mut().push(h, key, v);
                d.touch();
            }
        }
        Ok(())
    }

    /// Remove `key`; returns its value.
    pub fn dict_del(&mut self, d: &PyDict, key: &Value) -> R<Option<Value>> {
        self.check_writable(d)?;
        let h = self.hash(key)?;
        self.charge(cost::DICT_OP)?;
        let r = match self.table_find(&d.table, key, h)? {
            Some(i) => d.table.borrow_mut().remove_at(i).map(|e| e.value),
            None => None,
        };
        d.touch();
        Ok(r)
    }

    /// Lookup with a str key without charging (name resolution; charged by the op).
    pub fn dict_get_str(&self, d: &PyDict, key: &str) -> Option<Value> {
        let h = crate::value::str_hash(key);
        let t = d.table.borrow();
        for i in t.candidates(h) {
            if let Some(Some(e)) = t.entries.get(i as usize) {
                if let Value::Str(s) = &e.key {
                    if &*s.s == key {
                        return Some(e.value.clone());
                    }
                }
            }
        }
        None
    }

    /// Store with a str key.
    pub fn dict_set_str(&mut self, d: &PyDict, key: &str, v: Value) -> R<()> {
        self.check_writable(d)?;
        let h = crate::value::str_hash(key);
        {
            let mut t = d.table.borrow_mut();
            let found = t.candidates(h).find(|&i| {
                matches!(t.entries.get(i as usize), Some(Some(Entry { key: Value::Str(s), .. })) if &*s.s == key)
            });
            if let Some(i) = found {
                if let Some(Some(e)) = t.entries.get_mut(i as usize) {
                    e.value = v;
                }
                return Ok(());
            }
            t.push(h, Value::str(key), v);
        }
        d.touch();
        Ok(())
    }

    /// New set from items.
    pub fn new_set(&mut self, items: Vec<Value>, frozen: bool) -> R<Value> {
        let s = crate::value::rc_set(PySet::from_table(Table::default(), frozen));
        for x in items {
            self.set_add(&s, x)?;
        }
        Ok(Value::Set(s))
    }

    /// A set of the items of iterable `v`, streamed (a generator with few distinct items
    /// builds a small set in small memory); charged per item as `collect` charges.
    pub fn set_from_iter(&mut self, v: &Value, frozen: bool) -> R<Rc<PySet>> {
        let s = crate::value::rc_set(PySet::from_table(Table::default(), frozen));
        let it = self.iter(v)?;
        while let Some(x) = self.next(&it)? {
            self.charge(cost::PER_ELEM)?;
            self.set_add(&s, x)?;
        }
        Ok(s)
    }

    /// Add to a set.
    pub fn set_add(&mut self, s: &PySet, v: Value) -> R<()> {
        let h = self.hash(&v)?;
        self.charge(cost::DICT_OP)?;
        if self.table_find(&s.table, &v, h)?.is_none() {
            s.table.borrow_mut().push(h, v, Value::None);
            s.touch();
        }
        Ok(())
    }

    /// (key, value) pairs of a mapping (dict or object with keys()/__getitem__).
    pub fn mapping_items(&mut self, m: &Value) -> R<Vec<(Value, Value)>> {
        match m {
            Value::Dict(d) => Ok(d
                .table
                .borrow()
                .iter()
                .map(|e| (e.key.clone(), e.value.clone()))
                .collect()),
            Value::Instance(i) => {
                let b = i.base.borrow().clone();
                if let (Some(b), None) = (&b, self.lookup_dunder(m, "keys")) {
                    return self.mapping_items(b);
                }
                let keys = self.call_method(m, "keys", Args::default())?;
                let keys = self.collect(&keys)?;
                let mut out = Vec::new();
                for k in keys {
                    let v = self.getitem(m, &k)?;
                    out.push((k, v));
                }
                Ok(out)
            }
            _ => Err(self.type_err(format!("'{}' object is not a mapping", self.type_name(m)))),
        }
    }
}

/// CPython's `float_divmod` (`y` non-zero): the floor quotient from the unadjusted `fmod`
/// remainder, so signed zeros and infinite divisors come out as in CPython (`-0.0 // 2` is
/// `-0.0`, `-2.25 // inf` is `-1.0`).
pub fn float_divmod(x: f64, y: f64) -> (f64, f64) {
    let mut m = libm::fmod(x, y);
    let mut div = (x - m) / y;
    if m != 0.0 {
        if (y < 0.0) != (m < 0.0) {
            m += y;
            div -= 1.0;
        }
    } else {
        m = libm::copysign(0.0, y);
    }
    let q = if div != 0.0 {
        let f = libm::floor(div);
        if div - f > 0.5 {
            f + 1.0
        } else {
            f
        }
    } else {
        libm::copysign(0.0, x / y)
    };
    (q, m)
}

/// Python's float modulo (result has the sign of the divisor).
pub fn float_mod(x: f64, y: f64) -> f64 {
    let m = libm::fmod(x, y);
    if m != 0.0 {
        if (y < 0.0) != (m < 0.0) {
            m + y
        } else {
            m
        }
    } else {
        libm::copysign(0.0, y)
    }
}

/// A dict key whose equality with another plain key is decided without running Python code.
fn is_plain_key(v: &Value) -> bool {
    matches!(
        v,
        Value::Str(_)
            | Value::Int(_)
            | Value::BigInt(_)
            | Value::Float(_)
            | Value::Bool(_)
            | Value::None
            | Value::Bytes(_)
    )
}

/// Length of a list/tuple (0 for anything else).
fn seq_len(v: &Value) -> usize {
    match v {
        Value::List(l) => l.items.borrow().len(),
        Value::Tuple(t) => t.items.len(),
        _ => 0,
    }
}

/// Item `i` of a list/tuple, if in range.
fn seq_item(v: &Value, i: usize) -> Option<Value> {
    match v {
        Value::List(l) => l.items.borrow().get(i).cloned(),
        Value::Tuple(t) => t.items.get(i).cloned(),
        _ => None,
    }
}

const MODULUS: i128 = (1 << 61) - 1;

/// CPython's int hash for i64.
pub fn int_hash(i: i64) -> i64 {
    // Below the modulus an int is its own hash (no 128-bit division).
    if i.unsigned_abs() < MODULUS as u64 {
        return if i == -1 { -2 } else { i };
    }
    let m = (i as i128).abs() % MODULUS;
    let r = if i < 0 { -m } else { m } as i64;
    if r == -1 {
        -2
    } else {
        r
    }
}

/// CPython's hash of a non-NaN float (`_Py_HashDouble`): the exact value reduced modulo
/// 2**61 - 1, so equal ints, floats, Fractions and Decimals hash alike; ±inf give ±314159.
pub fn float_hash(f: f64) -> i64 {
    if f.is_infinite() {
        return if f > 0.0 { 314159 } else { -314159 };
    }
    let (m, e) = crate::objects::int::float_parts(f);
    // |m| < 2**53 < 2**61 - 1, and 2**61 ≡ 1, so scaling by 2**e is a 61-bit rotation.
    let x = m.unsigned_abs() as u128;
    let r = e.rem_euclid(61) as u32;
    let p = MODULUS as u128;
    let x = ((x << r) & p) | (x >> (61 - r));
    let h = if m < 0 { -(x as i64) } else { x as i64 };
    if h == -1 {
        -2
    } else {
        h
    }
}

/// CPython's int hash for big ints.
pub fn big_hash(b: &BigInt) -> i64 {
    let m = BigInt::from(MODULUS);
    let r = (b.abs() % &m).to_i64().unwrap_or(0);
    let r = if b.is_negative() { -r } else { r };
    if r == -1 {
        -2
    } else {
        r
    }
}

fn identity_hash(v: &Value) -> u64 {
    v.identity().wrapping_mul(0x9E37_79B9_7F4A_7C15)
}
