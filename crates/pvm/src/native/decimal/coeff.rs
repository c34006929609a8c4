//! A decimal coefficient: a `u128` while it fits, a `BigUint` beyond.
//!
//! Every coefficient a context of up to 38 digits makes fits a `u128` (the default context
//! has 28), and so do most of the scalings and products on the way to one, so the common
//! operations run in machine words and allocate nothing; a value that does not fit (a
//! product of two 28-digit coefficients, a 250-digit context) is a `BigUint` and takes
//! num-bigint's arithmetic, as every value did before. The form is canonical (`Big` only
//! above `u128::MAX`), so equality and order are those of the numbers, and nothing outside
//! this file can tell the two apart: sizes, digit counts and prices are the number's.

use std::borrow::Cow;
use std::cmp::Ordering;

use num_bigint::{BigInt, BigUint};
use num_integer::Integer;
use num_traits::ToPrimitive;

use crate::value::Value;

/// A non-negative integer, in its canonical form.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Coeff {
    Small(u128),
    Big(BigUint),
}

use Coeff::{Big, Small};

/// 10**k for k below 39: every power of ten a `u128` holds.
const POW10: [u128; 39] = {
    let mut t = [1u128; 39];
    let mut k = 1;
    while k < 39 {
        t[k] = t[k - 1] * 10;
        k += 1;
    }
    t
};

fn pow10_small(k: u64) -> Option<u128> {
    POW10.get(k as usize).copied()
}

/// 10**k as a `BigUint`.
pub(super) fn pow10_big(k: u64) -> BigUint {
    match pow10_small(k) {
        Some(p) => BigUint::from(p),
        None => BigUint::from(10u32).pow(k as u32),
    }
}

/// Digits of a coefficient beyond a `u128`: it has n bits, so it lies in [2**(n-1), 2**n),
/// and its digit count is this lower bound (log10 2 rounded down) or one more.
#[inline(never)]
fn big_ndigits(b: &BigUint) -> u64 {
    let est = (b.bits() - 1) * 30_102_999 / 100_000_000 + 1;
    if *b >= pow10_big(est) {
        est + 1
    } else {
        est
    }
}

impl Coeff {
    pub(super) fn zero() -> Coeff {
        Small(0)
    }
    pub(super) fn one() -> Coeff {
        Small(1)
    }
    /// The canonical form of `b`.
    pub(super) fn from_big(b: BigUint) -> Coeff {
        match b.to_u128() {
            Some(v) => Small(v),
            None => Big(b),
        }
    }
    /// 10**k.
    pub(super) fn pow10(k: u64) -> Coeff {
        match pow10_small(k) {
            Some(p) => Small(p),
            None => Big(pow10_big(k)),
        }
    }
    /// The value as a `BigUint` (the general path of every operation).
    fn big(&self) -> Cow<'_, BigUint> {
        match self {
            Small(v) => Cow::Owned(BigUint::from(*v)),
            Big(b) => Cow::Borrowed(b),
        }
    }
    pub(super) fn is_zero(&self) -> bool {
        matches!(self, Small(0))
    }
    /// Significant bits (0 for zero), as `BigUint::bits`.
    pub(super) fn bits(&self) -> u64 {
        match self {
            Small(v) => u64::from(128 - v.leading_zeros()),
            Big(b) => b.bits(),
        }
    }
    /// Number of decimal digits (1 for zero, as decimal.py's `len(str(c))`).
    #[inline]
    pub(super) fn ndigits(&self) -> u64 {
        match self {
            Small(0) => 1,
            Small(v) => {
                // v has n bits, so its digit count is n * log10(2) rounded down (1233/4096
                // is log10 2 rounded down) or one more: a table lookup, where `ilog10`
                // loops or divides.
                let n = 128 - v.leading_zeros();
                let est = (n * 1233) >> 12;
                u64::from(est) + u64::from(*v >= POW10[est as usize])
            }
            Big(b) => big_ndigits(b),
        }
    }
    /// self * 10**k.
    pub(super) fn scale(&self, k: u64) -> Coeff {
        if let (Small(v), Some(p)) = (self, pow10_small(k)) {
            if let Some(r) = v.checked_mul(p) {
                return Small(r);
            }
        }
        Coeff::from_big(self.big().into_owned() * pow10_big(k))
    }
    pub(super) fn mul(&self, o: &Coeff) -> Coeff {
        if let (Small(a), Small(b)) = (self, o) {
            if let Some(r) = a.checked_mul(*b) {
                return Small(r);
            }
        }
        Coeff::from_big(&*self.big() * &*o.big())
    }
    pub(super) fn add(&self, o: &Coeff) -> Coeff {
        if let (Small(a), Small(b)) = (self, o) {
            if let Some(r) = a.checked_add(*b) {
                return Small(r);
            }
        }
        Coeff::from_big(&*self.big() + &*o.big())
    }
    /// self - o, for o <= self.
    pub(super) fn sub(&self, o: &Coeff) -> Coeff {
        match (self, o) {
            (Small(a), Small(b)) => Small(a - b),
            _ => Coeff::from_big(&*self.big() - &*o.big()),
        }
    }
    /// Quotient and remainder (o nonzero).
    pub(super) fn div_rem(&self, o: &Coeff) -> (Coeff, Coeff) {
        match (self, o) {
            (Small(a), Small(b)) => match (u64::try_from(*a), u64::try_from(*b)) {
                // One machine division where the `u128` one is a call into software.
                (Ok(a), Ok(b)) => (Small(u128::from(a / b)), Small(u128::from(a % b))),
                _ => (Small(a / b), Small(a % b)),
            },
            // A u128 below a larger divisor.
            (Small(_), Big(_)) => (Small(0), self.clone()),
            _ => {
                let (q, r) = self.big().div_rem(&o.big());
                (Coeff::from_big(q), Coeff::from_big(r))
            }
        }
    }
    /// self % m.
    #[inline]
    pub(super) fn rem_u64(&self, m: u64) -> u64 {
        match self {
            Small(v) => match u64::try_from(*v) {
                Ok(w) => w % m,
                Err(_) => (v % u128::from(m)) as u64,
            },
            Big(b) => (b % m).to_u64().unwrap_or(0),
        }
    }
    pub(super) fn is_odd(&self) -> bool {
        self.rem_u64(2) == 1
    }
    pub(super) fn plus_one(&self) -> Coeff {
        self.add(&Small(1))
    }
    pub(super) fn div10(&self) -> Coeff {
        match self {
            Small(v) => Small(v / 10),
            Big(b) => Coeff::from_big(b / 10u32),
        }
    }
    pub(super) fn to_u64(&self) -> Option<u64> {
        match self {
            Small(v) => u64::try_from(*v).ok(),
            Big(_) => None,
        }
    }
    /// The value as a Python int.
    pub(super) fn to_value(&self) -> Value {
        match self {
            Small(v) => match i64::try_from(*v) {
                Ok(i) => Value::Int(i),
                Err(_) => Value::from_bigint(BigInt::from(*v)),
            },
            Big(b) => Value::from_bigint(BigInt::from(b.clone())),
        }
    }
    /// Decimal digits.
    pub(super) fn to_decimal(&self) -> String {
        match self {
            Small(v) => v.to_string(),
            Big(b) => b.to_str_radix(10),
        }
    }
    /// The value of ASCII digits (at most 1233 of them, so below the int cap).
    pub(super) fn parse(digits: &[u8]) -> Option<Coeff> {
        if digits.len() <= 38 {
            let mut v: u128 = 0;
            for &c in digits {
                v = v * 10 + u128::from(c - b'0');
            }
            return Some(Small(v));
        }
        BigUint::parse_bytes(digits, 10).map(Coeff::from_big)
    }
}

impl PartialOrd for Coeff {
    fn partial_cmp(&self, o: &Coeff) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}

impl Ord for Coeff {
    fn cmp(&self, o: &Coeff) -> Ordering {
        match (self, o) {
            (Small(a), Small(b)) => a.cmp(b),
            // Canonical: a `Big` is above every `u128`.
            (Small(_), Big(_)) => Ordering::Less,
            (Big(_), Small(_)) => Ordering::Greater,
            (Big(a), Big(b)) => a.cmp(b),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Numbers around every power of ten and of two either form can hold.
    fn edges() -> Vec<BigUint> {
        let mut v = Vec::new();
        for k in 0..45u32 {
            let p = BigUint::from(10u32).pow(k);
            v.push(&p - 1u32);
            v.push(p.clone());
            v.push(p + 1u32);
        }
        for n in 0..135u32 {
            let p = BigUint::from(1u32) << n;
            v.push(&p - 1u32);
            v.push(p);
        }
        v
    }

    #[test]
    fn digit_counts_and_bits_are_the_numbers() {
        for b in edges() {
            let c = Coeff::from_big(b.clone());
            assert_eq!(matches!(c, Big(_)), b > BigUint::from(u128::MAX), "{b}");
            assert_eq!(c.ndigits(), b.to_string().len() as u64, "{b}");
            assert_eq!(c.bits(), b.bits(), "{b}");
            assert_eq!(c.to_decimal(), b.to_string());
        }
    }

    #[test]
    fn arithmetic_matches_biguint_across_the_boundary() {
        let edges = edges();
        for a in edges.iter().step_by(3) {
            for b in edges.iter().step_by(5) {
                let (ca, cb) = (Coeff::from_big(a.clone()), Coeff::from_big(b.clone()));
                assert_eq!(ca.mul(&cb), Coeff::from_big(a * b));
                assert_eq!(ca.add(&cb), Coeff::from_big(a + b));
                assert_eq!(ca.cmp(&cb), a.cmp(b));
                if a >= b {
                    assert_eq!(ca.sub(&cb), Coeff::from_big(a - b));
                }
                if *b > BigUint::from(0u32) {
                    let (q, r) = a.div_rem(b);
                    assert_eq!(ca.div_rem(&cb), (Coeff::from_big(q), Coeff::from_big(r)));
                }
                assert_eq!(ca.rem_u64(10), (a % 10u32).to_u64().unwrap());
                assert_eq!(ca.scale(3), Coeff::from_big(a * 1000u32));
            }
        }
    }
}
