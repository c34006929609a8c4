//! `_decimal`: the native core under `decimal` (`src/stdlib/python/decimal.py`), as CPython's
//! `decimal` is its C `_decimal` (libmpdec). General Decimal Arithmetic, in CPython 3.11's
//! results, flags and errors.
//!
//! A `Decimal` is an instance of decimal.py's `Decimal` class whose value lives here, in
//! [`Dec`] (sign, kind, coefficient, exponent), not in Python attributes. decimal.py reads it
//! through the properties `_sign`, `_int`, `_exp`, `_is_special` (the names and meanings its
//! Python code always used) and builds values with [`f_make`], so its rarer operations (exp,
//! ln, sqrt, format, the logical and total-order operations, contexts) run unchanged over the
//! native value.
//!
//! The hot operations are native methods of the class: construction from str, int and
//! Decimal; `+ - * / // %` and their reflections; `**` with an integral exponent; the six
//! comparisons; `hash` (CPython's decimal hash, so `hash(Decimal(1)) == hash(1)`); `str` and
//! `repr`; `quantize`. Each one takes the common case, finite operands and a plain `Context`
//! (passed, or the current one), and rounds to that context exactly as decimal.py's `_fix`
//! does; any other case (NaN and infinity operands, floats, other types, an explicit context
//! that is not a `Context`) is handed to the Python implementation it replaced, kept in
//! decimal.py and registered by [`f_init`]. The split is invisible: the same inputs give the
//! same results through either path (the conformance programs compare both with CPython).
//!
//! Conditions are raised as decimal.py's `Context._signal` does: every condition sets its
//! signal's flag; if any is trapped, `_signal` itself is called to raise (so the exception
//! and its condition list are worded in one place).
//!
//! Metering: every operation pays [`cost::CALL`] plus the quadratic big-int bound of its
//! operands widened by the context's precision (the scaling by powers of ten, the division
//! and the rounding division), before working; parsing pays per character and for the
//! digit conversion. Coefficients hold at most 1233 digits (LIMITATIONS 23: the PVM's int
//! cap), and every result is rounded to at most `prec` digits, so every intermediate is
//! bounded.

use std::any::Any;
use std::cell::{Ref, RefCell};
use std::rc::Rc;

mod coeff;
use coeff::{pow10_big, Coeff};

use super::builtin;
use crate::cost;
use crate::memory::Acct;
use crate::value::*;
use crate::vm::{Args, Vm, R};

/// Most significant digits a coefficient may hold: every number of 1233 digits is below
/// 2**4096, the PVM's int cap (decimal.py raises the cap's OverflowError beyond it).
const MAX_DIGITS: usize = 1233;

/// decimal.py's `MAX_PREC` and `MAX_EMAX` (its `_MAXCTX`, used by `**`'s bounds test).
const MAX_PREC: i64 = 250;
const MAX_EMAX: i64 = 999_999_999_999_999_999;

/// Kind of a decimal value.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Finite,
    Inf,
    QNaN,
    SNaN,
}

/// A decimal value: `(-1)**neg * coeff * 10**exp`, or a special (`coeff` is a NaN's payload).
#[derive(Debug)]
pub struct Dec {
    neg: bool,
    kind: Kind,
    coeff: Coeff,
    exp: i64,
    _acct: Acct,
}

/// Bytes accounted for a value: its share of the instance plus the coefficient's limbs.
fn dec_bytes(coeff: &Coeff) -> usize {
    24 + 8 * coeff.bits().div_ceil(64) as usize
}

impl Dec {
    fn new(neg: bool, kind: Kind, coeff: Coeff, exp: i64) -> Dec {
        let _acct = Acct::new(dec_bytes(&coeff));
        Dec {
            neg,
            kind,
            coeff,
            exp,
            _acct,
        }
    }
    fn finite(neg: bool, coeff: Coeff, exp: i64) -> Dec {
        Dec::new(neg, Kind::Finite, coeff, exp)
    }
    fn special(neg: bool, kind: Kind) -> Dec {
        Dec::new(neg, kind, Coeff::zero(), 0)
    }
    fn nan() -> Dec {
        Dec::special(false, Kind::QNaN)
    }
    fn is_zero(&self) -> bool {
        self.coeff.is_zero()
    }
    /// Exponent of the most significant digit (finite values).
    fn adjusted(&self) -> i64 {
        self.exp + self.coeff.ndigits() as i64 - 1
    }
}

// ------------------------------------------------------------------------------ conditions

/// Condition bits, in the order of the signal tuple decimal.py passes to [`f_init`]
/// (`_SIGNALS` then the conditions that signal InvalidOperation).
const INVALID: u32 = 1 << 0;
const DIV_BY_ZERO: u32 = 1 << 2;
const OVERFLOW: u32 = 1 << 3;
const UNDERFLOW: u32 = 1 << 4;
const SUBNORMAL: u32 = 1 << 5;
const INEXACT: u32 = 1 << 6;
const ROUNDED: u32 = 1 << 7;
const CLAMPED: u32 = 1 << 8;
const DIV_IMPOSSIBLE: u32 = 1 << 10;
const DIV_UNDEFINED: u32 = 1 << 11;
/// Number of classes in the signal tuple.
const N_CONDS: usize = 13;
/// Bits from here on are conditions whose signal is InvalidOperation (bit 0).
const FIRST_CONDITION: usize = 9;

/// Rounding modes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Rounding {
    Down,
    HalfUp,
    HalfEven,
    Ceiling,
    Floor,
    Up,
    HalfDown,
    Up05,
}

fn rounding_of(v: &Value) -> Option<Rounding> {
    let Value::Str(s) = v else { return None };
    Some(match s.s.as_str() {
        "ROUND_DOWN" => Rounding::Down,
        "ROUND_HALF_UP" => Rounding::HalfUp,
        "ROUND_HALF_EVEN" => Rounding::HalfEven,
        "ROUND_CEILING" => Rounding::Ceiling,
        "ROUND_FLOOR" => Rounding::Floor,
        "ROUND_UP" => Rounding::Up,
        "ROUND_HALF_DOWN" => Rounding::HalfDown,
        "ROUND_05UP" => Rounding::Up05,
        _ => return None,
    })
}

/// What decimal.py registered: its classes, the current-context holder, the signal classes
/// and the Python implementations the native methods fall back to.
pub struct Registry {
    dec: Rc<Class>,
    ctx: Rc<Class>,
    current: Rc<PyList>,
    getcontext: Value,
    signals: Vec<Value>,
    fallback: Rc<PyDict>,
    /// The key strings last found in a context's layout ([`read_in_place`]), by position
    /// (`CTX_FIELDS`, then `_SignalDict`'s `_d`), and the last rounding string with its mode.
    seen: RefCell<Seen>,
}

/// Strings an operation has already checked by their text: a key or rounding value that is
/// the same object (pointer-equal, and held here so its address cannot be reused by another
/// string) needs no comparison of text. Every context `Context.__init__` makes has the same
/// key objects (the names of its code), so after the first operation a context is read with
/// pointer comparisons only.
#[derive(Default)]
struct Seen {
    keys: [Option<Rc<PyStr>>; CTX_FIELDS.len() + 1],
    rounding: Option<(Rc<PyStr>, Rounding)>,
}

/// A context dict's keys, in `Context.__init__`'s order.
const CTX_FIELDS: [&str; 8] = [
    "prec", "rounding", "Emin", "Emax", "capitals", "clamp", "flags", "traps",
];

impl Seen {
    /// Whether key `k` at memo position `pos` is `name`.
    #[inline(always)]
    fn key(&mut self, pos: usize, k: &Rc<PyStr>, name: &str) -> bool {
        match &self.keys[pos] {
            Some(m) if Rc::ptr_eq(m, k) => true,
            _ if k.s == name => {
                self.keys[pos] = Some(k.clone());
                true
            }
            _ => false,
        }
    }
    /// The rounding mode a context's `rounding` value names.
    #[inline(always)]
    fn rounding(&mut self, v: &Value) -> Option<Rounding> {
        let Value::Str(s) = v else { return None };
        match &self.rounding {
            Some((m, r)) if Rc::ptr_eq(m, s) => Some(*r),
            _ => {
                let r = rounding_of(v)?;
                self.rounding = Some((s.clone(), r));
                Some(r)
            }
        }
    }
}

#[inline(always)]
fn registry(vm: &mut Vm) -> R<Rc<Registry>> {
    match vm
        .decimal_core
        .clone()
        .and_then(|r| r.downcast::<Registry>().ok())
    {
        Some(r) => Ok(r),
        None => Err(vm.new_exc("RuntimeError", "the decimal core is not initialised")),
    }
}

/// A context's numeric fields, read from a plain `Context` instance.
#[derive(Clone, Copy)]
struct Ctx {
    prec: i64,
    rounding: Rounding,
    emin: i64,
    emax: i64,
    clamp: bool,
    capitals: bool,
}

impl Ctx {
    fn etiny(&self) -> i64 {
        self.emin - self.prec + 1
    }
    fn etop(&self) -> i64 {
        self.emax - self.prec + 1
    }
}

/// Field `name` of an instance dict, looked for first at `pos`: decimal.py's `Context.__init__`
/// stores the fields in one order, so a context's dict holds each at a known position and
/// reading it needs no hashing (the key is checked; any other layout takes the lookup).
fn field(vm: &Vm, d: &PyDict, pos: usize, name: &str) -> Option<Value> {
    if let Some(Some(e)) = d.table.borrow().entries.get(pos) {
        if matches!(&e.key, Value::Str(k) if k.s == name) {
            return Some(e.value.clone());
        }
    }
    vm.dict_get_str(d, name)
}

fn int_field(vm: &Vm, d: &PyDict, pos: usize, name: &str) -> Option<i64> {
    match field(vm, d, pos, name)? {
        Value::Int(i) => Some(i),
        Value::Bool(b) => Some(i64::from(b)),
        _ => None,
    }
}

/// The dict behind a context's `flags` or `traps` (`_SignalDict._d`, its only slot).
fn signal_dict(vm: &Vm, d: &PyDict, pos: usize, name: &str) -> Option<Rc<PyDict>> {
    let Value::Instance(i) = field(vm, d, pos, name)? else {
        return None;
    };
    match field(vm, &i.dict, 0, "_d")? {
        Value::Dict(d) => Some(d),
        _ => None,
    }
}

/// A context as an operation reads it: its numeric fields, the object itself (for
/// `Context._signal`) and the dicts behind its `flags` and `traps` when its dict has
/// `Context.__init__`'s layout (`None`: [`signal`] finds them by name).
struct CtxRead {
    ctx: Ctx,
    obj: Value,
    signals: Option<SignalDicts>,
}

/// The dicts behind a context's `flags` and `traps`.
type SignalDicts = (Rc<PyDict>, Rc<PyDict>);

/// The context an operation uses: `explicit` if given (None: the current one), when it is a
/// plain `Context` with well-formed fields; otherwise `None` and the Python path decides.
#[inline(always)]
fn context(vm: &mut Vm, reg: &Registry, explicit: Option<&Value>) -> R<Option<CtxRead>> {
    let value = match explicit {
        Some(Value::None) | None => {
            let current = reg.current.items.borrow().first().cloned();
            match current {
                // The first operation of a program makes the current context, as decimal.py's
                // `getcontext()` does.
                Some(Value::None) => vm.call(&reg.getcontext, Args::new(Vec::new()))?,
                Some(v) => v,
                None => return Ok(None),
            }
        }
        Some(v) => v.clone(),
    };
    Ok(read_context(vm, reg, value))
}

/// The fields of `value` if it is a plain `Context` with well-formed fields.
#[inline(always)]
fn read_context(vm: &mut Vm, reg: &Registry, value: Value) -> Option<CtxRead> {
    let Value::Instance(i) = &value else {
        return None;
    };
    if !Rc::ptr_eq(&*i.class.borrow(), &reg.ctx) {
        return None;
    }
    let (ctx, signals) = match read_in_place(reg, &i.dict) {
        Some((ctx, signals)) => (ctx, Some(signals)),
        None => (read_by_name(vm, &i.dict)?, None),
    };
    Some(CtxRead {
        ctx,
        obj: value,
        signals,
    })
}

/// The fields of a context dict laid out as `Context.__init__` stores them (eight entries in
/// its order), read under one borrow with each key checked where it should be: what every
/// operation does first, so it must not hash or copy. `None` for any other layout, or a
/// field that is not well formed (then [`read_by_name`] decides, exactly as before).
#[inline(always)]
fn read_in_place(reg: &Registry, d: &PyDict) -> Option<(Ctx, SignalDicts)> {
    let t = d.table.borrow();
    let e = t.entries.get(..CTX_FIELDS.len())?;
    let mut seen = reg.seen.borrow_mut();
    // The keys first, each where `Context.__init__` put it; then the values by position.
    for (pos, name) in CTX_FIELDS.iter().enumerate() {
        match &e[pos] {
            Some(Entry {
                key: Value::Str(k), ..
            }) if seen.key(pos, k, name) => {}
            _ => return None,
        }
    }
    #[inline(always)]
    fn at(e: &[Option<Entry>], pos: usize) -> Option<&Value> {
        e[pos].as_ref().map(|e| &e.value)
    }
    let int = |v: &Value| match v {
        Value::Int(i) => Some(*i),
        Value::Bool(b) => Some(i64::from(*b)),
        _ => None,
    };
    let prec = int(at(e, 0)?)?;
    let rounding = at(e, 1)?;
    let emin = int(at(e, 2)?)?;
    let emax = int(at(e, 3)?)?;
    let capitals = int(at(e, 4)?)? != 0;
    let clamp = int(at(e, 5)?)? != 0;
    let (flags, traps) = (at(e, 6)?, at(e, 7)?);
    let ctx = Ctx {
        prec,
        rounding: seen.rounding(rounding)?,
        emin,
        emax,
        capitals,
        clamp,
    };
    let signals = (
        signal_dict_of(&mut seen, flags)?,
        signal_dict_of(&mut seen, traps)?,
    );
    Some((ctx, signals))
}

/// The dict of a `_SignalDict` (its `_d`, the only slot, first in its dict).
#[inline(always)]
fn signal_dict_of(seen: &mut Seen, v: &Value) -> Option<Rc<PyDict>> {
    let Value::Instance(i) = v else {
        return None;
    };
    let t = i.dict.table.borrow();
    match t.entries.first() {
        Some(Some(Entry {
            key: Value::Str(k),
            value: Value::Dict(d),
            ..
        })) if seen.key(CTX_FIELDS.len(), k, "_d") => Some(d.clone()),
        _ => None,
    }
}

/// The fields of a context dict of any other layout, each found by its name.
fn read_by_name(vm: &Vm, d: &PyDict) -> Option<Ctx> {
    Some(Ctx {
        prec: int_field(vm, d, 0, "prec")?,
        rounding: rounding_of(&field(vm, d, 1, "rounding")?)?,
        emin: int_field(vm, d, 2, "Emin")?,
        emax: int_field(vm, d, 3, "Emax")?,
        capitals: int_field(vm, d, 4, "capitals")? != 0,
        clamp: int_field(vm, d, 5, "clamp")? != 0,
    })
}

/// Record `conds` in the context's flags; if any is trapped, let `Context._signal` raise.
/// Most additions and multiplications are exact and record nothing; a context whose flags or
/// traps are not decimal.py's `_SignalDict`s gets `_signal` itself.
fn signal(vm: &mut Vm, reg: &Registry, ctx: &CtxRead, conds: u32) -> R<()> {
    if conds == 0 {
        return Ok(());
    }
    let listed = || -> Vec<Value> {
        (0..N_CONDS)
            .filter(|bit| conds & (1 << bit) != 0)
            .map(|bit| reg.signals[bit].clone())
            .collect()
    };
    let by_name = match (&ctx.signals, &ctx.obj) {
        (None, Value::Instance(i)) => {
            signal_dict(vm, &i.dict, 6, "flags").zip(signal_dict(vm, &i.dict, 7, "traps"))
        }
        _ => None,
    };
    let Some((flags, traps)) = ctx.signals.as_ref().or(by_name.as_ref()) else {
        vm.call_method(&ctx.obj, "_signal", Args::new(vec![Value::list(listed())]))?;
        return Ok(());
    };
    let mut trapped = false;
    let mut left = conds;
    while left != 0 {
        let bit = left.trailing_zeros() as usize;
        left &= left - 1;
        let sig = if bit >= FIRST_CONDITION { 0 } else { bit };
        set_flag(vm, flags, sig, &reg.signals[sig])?;
        trapped |= is_trapped(vm, traps, sig, &reg.signals[sig])?;
    }
    if trapped {
        vm.call_method(&ctx.obj, "_signal", Args::new(vec![Value::list(listed())]))?;
    }
    Ok(())
}

/// Whether entry `e` of a signal dict is signal `sig`: `Context._signal_dict` builds every
/// one in `_SIGNALS` order, the order of the condition bits, so a signal is looked for first
/// at its bit's position.
fn is_signal(e: Option<&Option<Entry>>, sig: &Value) -> bool {
    matches!(
        (e, sig),
        (Some(Some(e)), Value::Class(s)) if matches!(&e.key, Value::Class(k) if Rc::ptr_eq(k, s))
    )
}

/// Set flag `sig` (at `pos`, or wherever it is).
fn set_flag(vm: &mut Vm, d: &PyDict, pos: usize, sig: &Value) -> R<()> {
    {
        let mut t = d.table.borrow_mut();
        if is_signal(t.entries.get(pos), sig) {
            if let Some(Some(e)) = t.entries.get_mut(pos) {
                e.value = Value::Bool(true);
            }
            return Ok(());
        }
    }
    vm.dict_set(d, sig.clone(), Value::Bool(true))
}

/// Whether trap `sig` (at `pos`, or wherever it is) is on.
fn is_trapped(vm: &mut Vm, d: &PyDict, pos: usize, sig: &Value) -> R<bool> {
    {
        let t = d.table.borrow();
        if let (true, Some(Some(e))) = (is_signal(t.entries.get(pos), sig), t.entries.get(pos)) {
            return Ok(matches!(e.value, Value::Bool(true)));
        }
    }
    Ok(matches!(vm.dict_get(d, sig)?, Some(Value::Bool(true))))
}

// ------------------------------------------------------------------------------ values

/// The value of a Decimal instance.
#[inline(always)]
fn dec_of(v: &Value) -> Option<Ref<'_, Dec>> {
    super::state::<Dec>(v)
}

/// Where an operand's value is held while an operation reads it: a Decimal's, borrowed from
/// its instance, or an int's (exactly `int`, as decimal.py's `_convert` takes
/// `isinstance(x, int)`; bools and int subclasses take the Python path), converted here. The
/// operation reads it through a reference, so the value is never moved on the way.
#[derive(Default)]
struct Slot<'a> {
    dec: Option<Ref<'a, Dec>>,
    int: Option<Dec>,
}

impl<'a> Slot<'a> {
    /// `v`'s value if it is a finite Decimal.
    #[inline(always)]
    fn finite_dec(&mut self, v: &'a Value) -> Option<&Dec> {
        let d = &**self.dec.insert(dec_of(v)?);
        (d.kind == Kind::Finite).then_some(d)
    }
    /// `v`'s value if it is a finite Decimal or an int.
    #[inline(always)]
    fn finite(&mut self, v: &'a Value) -> Option<&Dec> {
        let d = match dec_of(v) {
            Some(d) => &**self.dec.insert(d),
            None => self.int.insert(int_dec(v)?),
        };
        (d.kind == Kind::Finite).then_some(d)
    }
}

fn int_dec(v: &Value) -> Option<Dec> {
    match v {
        Value::Int(i) => Some(Dec::finite(
            *i < 0,
            Coeff::Small(u128::from(i.unsigned_abs())),
            0,
        )),
        Value::BigInt(b) => Some(Dec::finite(
            b.sign() == num_bigint::Sign::Minus,
            Coeff::from_big(b.magnitude().clone()),
            0,
        )),
        _ => None,
    }
}

/// A new instance of `cls` holding `d`. Inlined: returned through memory, the value was read
/// back in one load its two stores could not forward to, a stall on every operation.
#[inline(always)]
fn wrap(cls: &Rc<Class>, d: Dec) -> Value {
    super::new_obj(cls, d)
}

// ------------------------------------------------------------------------------ digits

/// Bits of a number of `digits` decimal digits, rounded up (for pricing).
fn digit_bits(digits: i64) -> u64 {
    (digits.max(0) as u64).saturating_mul(10) / 3 + 1
}

/// Charge an operation on coefficients `a` and `b` before doing it. Aligning exponents can
/// scale the smaller operand up to the larger one's size plus the precision (and a few
/// digits), so both are priced at that width: the quadratic big-int bound, paid for each of
/// the passes an operation makes (scale, multiply or divide, round, count digits).
fn charge_op(vm: &mut Vm, a: &Coeff, b: &Coeff, prec: i64) -> R<()> {
    let w = a.bits().max(b.bits()) + digit_bits(prec + 2);
    vm.charge(cost::CALL + 4 * cost::bigint_quadratic(w, w))
}

// ------------------------------------------------------------------------------ rounding

/// Drop `k` trailing digits of `coeff` rounding by `rounding`: (new coefficient, -1 truncated
/// inexact, 0 exact, 1 incremented). decimal.py's `_round_digits`.
fn round_digits(coeff: &Coeff, k: i64, neg: bool, rounding: Rounding) -> (Coeff, i8) {
    if k <= 0 {
        return (coeff.clone(), 0);
    }
    let p = Coeff::pow10(k as u64);
    let (q, r) = coeff.div_rem(&p);
    if r.is_zero() {
        return (q, 0);
    }
    let half = r.add(&r).cmp(&p);
    let up = round_up(rounding, half, q.is_odd(), q.rem_u64(10) as u32, neg);
    if up {
        (q.plus_one(), 1)
    } else {
        (q, -1)
    }
}

/// Whether dropping a nonzero remainder rounds the kept part `q` up: `half` compares twice
/// the remainder with the power of ten dropped, `odd` and `last` describe `q`.
fn round_up(rounding: Rounding, half: std::cmp::Ordering, odd: bool, last: u32, neg: bool) -> bool {
    use std::cmp::Ordering::*;
    match rounding {
        Rounding::Down => false,
        Rounding::Up => true,
        Rounding::HalfUp => half != Less,
        Rounding::HalfDown => half == Greater,
        Rounding::HalfEven => half == Greater || (half == Equal && odd),
        Rounding::Ceiling => !neg,
        Rounding::Floor => neg,
        Rounding::Up05 => last == 0 || last == 5,
    }
}

fn overflow_result(neg: bool, ctx: &Ctx) -> Dec {
    let inf = Dec::special(neg, Kind::Inf);
    let big = || {
        let c = Coeff::from_big(pow10_big(ctx.prec as u64) - 1u32);
        Dec::finite(neg, c, ctx.emax - ctx.prec + 1)
    };
    match ctx.rounding {
        Rounding::HalfUp | Rounding::HalfEven | Rounding::HalfDown | Rounding::Up => inf,
        Rounding::Ceiling if !neg => inf,
        Rounding::Floor if neg => inf,
        _ => big(),
    }
}

/// Round `(neg, coeff, exp)` to the context, adding the conditions raised: decimal.py's
/// `_fix` (libmpdec's finalize).
fn fix(neg: bool, coeff: Coeff, exp: i64, ctx: &Ctx, conds: &mut u32) -> Dec {
    let prec = ctx.prec;
    let etiny = ctx.etiny();
    let etop = ctx.etop();
    if coeff.is_zero() {
        let exp_max = if ctx.clamp { etop } else { ctx.emax };
        let new_exp = exp.max(etiny).min(exp_max);
        if new_exp != exp {
            *conds |= CLAMPED;
        }
        return Dec::finite(neg, coeff, new_exp);
    }
    let nd = coeff.ndigits() as i64;
    let mut exp_min = nd + exp - prec;
    if exp_min > etop {
        *conds |= OVERFLOW | INEXACT | ROUNDED;
        return overflow_result(neg, ctx);
    }
    let is_sub = exp_min < etiny;
    if is_sub {
        exp_min = etiny;
    }
    if exp < exp_min {
        let (c, e) = if nd + exp - exp_min < 0 {
            // Far below: only its sign matters for rounding.
            (Coeff::one(), exp_min - 1)
        } else {
            (coeff, exp)
        };
        let (mut q, changed) = round_digits(&c, exp_min - e, neg, ctx.rounding);
        if changed == 1 && q.ndigits() as i64 > prec {
            q = q.div10();
            exp_min += 1;
        }
        let ans = if exp_min > etop {
            *conds |= OVERFLOW | INEXACT | ROUNDED;
            overflow_result(neg, ctx)
        } else {
            Dec::finite(neg, q, exp_min)
        };
        if changed != 0 && is_sub {
            *conds |= UNDERFLOW;
        }
        if is_sub {
            *conds |= SUBNORMAL;
        }
        if changed != 0 {
            *conds |= INEXACT;
        }
        *conds |= ROUNDED;
        if ans.kind == Kind::Finite && ans.is_zero() {
            *conds |= CLAMPED;
        }
        return ans;
    }
    if is_sub {
        *conds |= SUBNORMAL;
    }
    if ctx.clamp && exp > etop {
        *conds |= CLAMPED;
        return Dec::finite(neg, coeff.scale((exp - etop) as u64), etop);
    }
    Dec::finite(neg, coeff, exp)
}

// ------------------------------------------------------------------------------ arithmetic

/// a + b (a - b when `negate_b`), finite operands: decimal.py's `_add`.
fn add(a: &Dec, b: &Dec, negate_b: bool, ctx: &Ctx, conds: &mut u32) -> Dec {
    let bneg = b.neg ^ negate_b;
    let exp = a.exp.min(b.exp);
    let prec = ctx.prec;
    if a.is_zero() && b.is_zero() {
        let neg = (a.neg && bneg) || (a.neg != bneg && ctx.rounding == Rounding::Floor);
        return fix(neg, Coeff::zero(), exp, ctx, conds);
    }
    if a.is_zero() || b.is_zero() {
        let (x, xneg) = if a.is_zero() { (b, bneg) } else { (a, a.neg) };
        let e = exp.max(x.exp - prec - 1);
        return fix(xneg, x.coeff.scale((x.exp - e) as u64), e, ctx, conds);
    }
    let (hi, hineg, lo, loneg) = if a.exp >= b.exp {
        (a, a.neg, b, bneg)
    } else {
        (b, bneg, a, a.neg)
    };
    // An operand far below the other's precision becomes a tiny sticky value, so that
    // 1E+999999 + 1 does not build a million-digit integer (rounding is unchanged).
    let limit = hi.exp + (-1i64).min(hi.coeff.ndigits() as i64 - prec - 2);
    let sticky;
    let (lo_coeff, lo_exp) = if lo.coeff.ndigits() as i64 + lo.exp - 1 < limit {
        sticky = Coeff::one();
        (&sticky, limit)
    } else {
        (&lo.coeff, lo.exp)
    };
    let va = hi.coeff.scale((hi.exp - lo_exp) as u64);
    // The signed sum of (hineg, va) and (loneg, lo_coeff).
    let (neg, total) = if hineg == loneg {
        (hineg, va.add(lo_coeff))
    } else {
        match va.cmp(lo_coeff) {
            std::cmp::Ordering::Greater => (hineg, va.sub(lo_coeff)),
            std::cmp::Ordering::Less => (loneg, lo_coeff.sub(&va)),
            std::cmp::Ordering::Equal => (false, Coeff::zero()),
        }
    };
    if total.is_zero() {
        return fix(
            ctx.rounding == Rounding::Floor,
            Coeff::zero(),
            lo_exp,
            ctx,
            conds,
        );
    }
    fix(neg, total, lo_exp, ctx, conds)
}

fn mul(a: &Dec, b: &Dec, ctx: &Ctx, conds: &mut u32) -> Dec {
    fix(
        a.neg ^ b.neg,
        a.coeff.mul(&b.coeff),
        a.exp + b.exp,
        ctx,
        conds,
    )
}

/// a / b, finite operands: decimal.py's `_div`.
fn div(a: &Dec, b: &Dec, ctx: &Ctx, conds: &mut u32) -> Dec {
    let neg = a.neg ^ b.neg;
    if b.is_zero() {
        if a.is_zero() {
            *conds |= DIV_UNDEFINED;
            return Dec::nan();
        }
        *conds |= DIV_BY_ZERO;
        return Dec::special(neg, Kind::Inf);
    }
    let ideal = a.exp - b.exp;
    if a.is_zero() {
        return fix(neg, Coeff::zero(), ideal, ctx, conds);
    }
    let shift = b.coeff.ndigits() as i64 - a.coeff.ndigits() as i64 + ctx.prec + 1;
    let mut exp = ideal - shift;
    let (mut q, r) = if shift >= 0 {
        a.coeff.scale(shift as u64).div_rem(&b.coeff)
    } else {
        a.coeff.div_rem(&b.coeff.scale((-shift) as u64))
    };
    if !r.is_zero() {
        if q.rem_u64(5) == 0 {
            q = q.plus_one(); // sticky digit: the true quotient is above q
        }
    } else {
        while exp < ideal && q.rem_u64(10) == 0 {
            q = q.div10();
            exp += 1;
        }
    }
    fix(neg, q, exp, ctx, conds)
}

/// a // b (`rem` false) or a % b (`rem` true), finite operands: decimal.py's `_divmod`.
fn divmod(a: &Dec, b: &Dec, rem: bool, ctx: &Ctx, conds: &mut u32) -> Dec {
    let neg = a.neg ^ b.neg;
    if b.is_zero() {
        if a.is_zero() {
            *conds |= DIV_UNDEFINED;
            return Dec::nan();
        }
        if rem {
            *conds |= INVALID;
            return Dec::nan();
        }
        *conds |= DIV_BY_ZERO;
        return Dec::special(neg, Kind::Inf);
    }
    let ideal = a.exp.min(b.exp);
    let expdiff = a.adjusted() - b.adjusted();
    let (q, r) = if a.is_zero() || expdiff <= -2 {
        (Coeff::zero(), a.coeff.scale((a.exp - ideal) as u64))
    } else if expdiff <= ctx.prec {
        let (x, y) = if a.exp >= b.exp {
            (a.coeff.scale((a.exp - b.exp) as u64), b.coeff.clone())
        } else {
            (a.coeff.clone(), b.coeff.scale((b.exp - a.exp) as u64))
        };
        let (q, r) = x.div_rem(&y);
        if q >= Coeff::pow10(ctx.prec as u64) {
            *conds |= DIV_IMPOSSIBLE;
            return Dec::nan();
        }
        (q, r)
    } else {
        *conds |= DIV_IMPOSSIBLE;
        return Dec::nan();
    };
    if rem {
        fix(a.neg, r, ideal, ctx, conds)
    } else {
        fix(neg, q, 0, ctx, conds)
    }
}

/// The value of `d` at exponent `exp`, rounding dropped digits: decimal.py's `_rescale`
/// (callers bound `d.exp - exp` by the precision).
fn rescale(d: &Dec, exp: i64, rounding: Rounding) -> (Dec, i8) {
    if d.is_zero() {
        return (Dec::finite(d.neg, Coeff::zero(), exp), 0);
    }
    if d.exp >= exp {
        let c = d.coeff.scale((d.exp - exp) as u64);
        return (Dec::finite(d.neg, c, exp), 0);
    }
    let (c, cur) = if d.coeff.ndigits() as i64 + d.exp - exp < 0 {
        (Coeff::one(), exp - 1)
    } else {
        (d.coeff.clone(), d.exp)
    };
    let (q, changed) = round_digits(&c, exp - cur, d.neg, rounding);
    (Dec::finite(d.neg, q, exp), changed)
}

/// `d.quantize(e)`, finite operands: decimal.py's `_quantize`.
fn quantize(d: &Dec, e: &Dec, rounding: Rounding, ctx: &Ctx, conds: &mut u32) -> Dec {
    if !(ctx.etiny() <= e.exp && e.exp <= ctx.emax) {
        *conds |= INVALID;
        return Dec::nan();
    }
    if d.is_zero() {
        return fix(d.neg, Coeff::zero(), e.exp, ctx, conds);
    }
    if d.adjusted() > ctx.emax || d.adjusted() - e.exp + 1 > ctx.prec {
        *conds |= INVALID;
        return Dec::nan();
    }
    let (ans, changed) = rescale(d, e.exp, rounding);
    if ans.adjusted() > ctx.emax || ans.coeff.ndigits() as i64 > ctx.prec {
        *conds |= INVALID;
        return Dec::nan();
    }
    if !ans.is_zero() && ans.adjusted() < ctx.emin {
        *conds |= SUBNORMAL;
    }
    if ans.exp > d.exp {
        if changed != 0 {
            *conds |= INEXACT;
        }
        *conds |= ROUNDED;
    }
    fix(ans.neg, ans.coeff, ans.exp, ctx, conds)
}

/// An exponent above every context's Emax: `fix` of a coefficient 1 there overflows
/// (decimal.py's `_EXP_INF` does the same).
fn exp_inf(ctx: &Ctx) -> i64 {
    ctx.emax + 1
}

/// Whether a finite value is an integer.
fn is_integral(d: &Dec) -> bool {
    if d.exp >= 0 || d.is_zero() {
        return true;
    }
    let k = d.exp.unsigned_abs();
    k <= d.coeff.ndigits() && d.coeff.div_rem(&Coeff::pow10(k)).1.is_zero()
}

/// The value of an integral `d` if it fits an i64.
fn small_int(d: &Dec) -> Option<i64> {
    if d.is_zero() {
        return Some(0);
    }
    let v = if d.exp >= 0 {
        if d.exp > 18 {
            return None;
        }
        d.coeff.scale(d.exp as u64)
    } else {
        d.coeff.div_rem(&Coeff::pow10(d.exp.unsigned_abs())).0
    };
    let v = i64::try_from(v.to_u64()?).ok()?;
    Some(if d.neg { -v } else { v })
}

/// libmpdec's early overflow/underflow test for x**y (|x| != 1, y != 0): decimal.py's
/// `_pow_bounds`.
fn pow_bounds(x: &Dec, y: &Dec, rsign: bool, ctx: &Ctx, conds: &mut u32) -> Option<Dec> {
    let exp_digits = |n: i64| Coeff::Small(u128::from(n.unsigned_abs())).ndigits() as i64;
    let lb_theta = y.adjusted();
    let t = x.adjusted();
    let lb_zeta = if t > 0 {
        exp_digits(t) - 1
    } else if t < -1 {
        exp_digits(t + 1) - 1
    } else {
        // |x| - 1 at the largest context decimal.py has (`_MAXCTX`).
        let maxctx = Ctx {
            prec: MAX_PREC,
            rounding: Rounding::HalfEven,
            emin: -MAX_EMAX,
            emax: MAX_EMAX,
            clamp: false,
            capitals: true,
        };
        let one = Dec::finite(false, Coeff::one(), 0);
        let abs = Dec::finite(false, x.coeff.clone(), x.exp);
        let u = add(&abs, &one, true, &maxctx, &mut 0).adjusted();
        if t == 0 {
            u - 2
        } else {
            u - 1
        }
    };
    if (t < 0) == y.neg {
        if exp_digits(ctx.emax) < lb_zeta + lb_theta {
            return Some(fix(rsign, Coeff::one(), exp_inf(ctx), ctx, conds));
        }
    } else if exp_digits(ctx.etiny()) < lb_zeta + lb_theta {
        return Some(fix(rsign, Coeff::one(), ctx.etiny() - 1, ctx, conds));
    }
    None
}

/// x**y for finite x and an integral y of value `n`: decimal.py's `_pow` (its finite,
/// integral-exponent cases) and `_pow_int` (libmpdec's binary powering at prec + digits of
/// y + 2 digits, half-even, every step rounded; then rounded to the context).
fn pow_int(x: &Dec, y: &Dec, n: i64, ctx: &Ctx, conds: &mut u32) -> Dec {
    let rsign = x.neg && n % 2 != 0;
    if x.is_zero() {
        if y.is_zero() {
            *conds |= INVALID;
            return Dec::nan();
        }
        if y.neg {
            return Dec::special(rsign, Kind::Inf);
        }
        return Dec::finite(rsign, Coeff::zero(), 0);
    }
    if y.is_zero() {
        return Dec::finite(rsign, Coeff::one(), 0);
    }
    if x.adjusted() == 0
        && x.coeff.ndigits() as i64 == 1 - x.exp
        && x.coeff == Coeff::pow10((-x.exp) as u64)
    {
        // A power of one: exact (1.0**3 == 1.000), at most prec digits.
        if y.neg {
            return Dec::finite(rsign, Coeff::one(), 0);
        }
        let mut shift = n.saturating_mul(-x.exp);
        if shift > ctx.prec - 1 {
            shift = ctx.prec - 1;
            *conds |= ROUNDED;
        }
        return Dec::finite(rsign, Coeff::pow10(shift as u64), -shift);
    }
    if let Some(r) = pow_bounds(x, y, rsign, ctx, conds) {
        return r;
    }
    let work = Ctx {
        prec: ctx.prec + y.adjusted() + 1 + 2 + i64::from(y.neg),
        rounding: Rounding::HalfEven,
        clamp: false,
        ..*ctx
    };
    let base = if y.neg {
        div(&Dec::finite(false, Coeff::one(), 0), x, &work, conds)
    } else {
        Dec::finite(x.neg, x.coeff.clone(), x.exp)
    };
    let mut wconds = 0;
    let mut result = Dec::finite(base.neg, base.coeff.clone(), base.exp);
    if base.kind == Kind::Finite {
        let m = n.unsigned_abs();
        for bit in (0..63 - m.leading_zeros()).rev() {
            result = mul(&result, &result, &work, &mut wconds);
            if m >> bit & 1 == 1 && result.kind == Kind::Finite {
                result = mul(&result, &base, &work, &mut wconds);
            }
            if result.kind != Kind::Finite || (result.is_zero() && wconds & CLAMPED != 0) {
                break;
            }
        }
    } else {
        result = base;
    }
    *conds |= wconds;
    if result.kind != Kind::Finite {
        return fix(rsign, Coeff::one(), exp_inf(ctx), ctx, conds);
    }
    fix(rsign, result.coeff, result.exp, ctx, conds)
}

/// -1, 0, 1 comparing finite values: decimal.py's `_cmp`.
fn cmp(a: &Dec, b: &Dec) -> i32 {
    if a.is_zero() {
        if b.is_zero() {
            return 0;
        }
        return if b.neg { 1 } else { -1 };
    }
    if b.is_zero() {
        return if a.neg { -1 } else { 1 };
    }
    if a.neg != b.neg {
        return if a.neg { -1 } else { 1 };
    }
    let (sa, sb) = (a.adjusted(), b.adjusted());
    let r = if sa == sb {
        let e = a.exp.min(b.exp);
        let x = a.coeff.scale((a.exp - e) as u64);
        let y = b.coeff.scale((b.exp - e) as u64);
        x.cmp(&y) as i32
    } else if sa > sb {
        1
    } else {
        -1
    };
    if a.neg {
        -r
    } else {
        r
    }
}

// ------------------------------------------------------------------------------ hash, str

const HASH_MODULUS: u64 = (1 << 61) - 1;

/// a * b modulo the Mersenne prime 2**61 - 1 (a, b below it).
fn mulmod(a: u64, b: u64) -> u64 {
    let p = u128::from(a) * u128::from(b);
    let r = (p as u64 & HASH_MODULUS) + (p >> 61) as u64;
    let r = (r & HASH_MODULUS) + (r >> 61);
    if r >= HASH_MODULUS {
        r - HASH_MODULUS
    } else {
        r
    }
}

fn powmod(mut base: u64, mut e: u64) -> u64 {
    let mut r = 1;
    while e > 0 {
        if e & 1 == 1 {
            r = mulmod(r, base);
        }
        base = mulmod(base, base);
        e >>= 1;
    }
    r
}

/// The inverse of 10 modulo 2**61 - 1 (`pow(10, 2**61 - 3, 2**61 - 1)`).
const INV10: u64 = 2_075_258_708_292_324_556;

/// CPython's hash of a finite decimal: the coefficient times 10**exp modulo 2**61 - 1, so
/// it equals the hash of an equal int, float or Fraction.
fn hash(d: &Dec) -> i64 {
    let exp_hash = if d.exp >= 0 {
        powmod(10, d.exp as u64)
    } else {
        powmod(INV10, d.exp.unsigned_abs())
    };
    let c = d.coeff.rem_u64(HASH_MODULUS);
    let h = mulmod(c, exp_hash) as i64;
    let ans = if d.neg { -h } else { h };
    if ans == -1 {
        -2
    } else {
        ans
    }
}

/// `str()` of a finite value (scientific notation): decimal.py's `__str__`.
fn to_str(d: &Dec, capitals: bool) -> String {
    let digits = d.coeff.to_decimal();
    let n = digits.len() as i64;
    let leftdigits = d.exp + n;
    let dotplace = if d.exp <= 0 && leftdigits > -6 {
        leftdigits
    } else {
        1
    };
    let mut out = String::with_capacity(digits.len() + 16);
    if d.neg {
        out.push('-');
    }
    if dotplace <= 0 {
        out.push_str("0.");
        out.extend(std::iter::repeat_n('0', (-dotplace) as usize));
        out.push_str(&digits);
    } else if dotplace >= n {
        out.push_str(&digits);
        out.extend(std::iter::repeat_n('0', (dotplace - n) as usize));
    } else {
        out.push_str(&digits[..dotplace as usize]);
        out.push('.');
        out.push_str(&digits[dotplace as usize..]);
    }
    if leftdigits != dotplace {
        out.push(if capitals { 'E' } else { 'e' });
        let e = leftdigits - dotplace;
        out.push_str(&format!(
            "{}{}",
            if e < 0 { '-' } else { '+' },
            e.unsigned_abs()
        ));
    }
    out
}

// ------------------------------------------------------------------------------ parsing

/// Parse the common literal forms (`[sign]digits[.digits][e[sign]digits]`, ASCII, no
/// whitespace or underscores, at most [`MAX_DIGITS`] significant digits, an exponent of at
/// most 18 digits and an adjusted exponent within MAX_EMAX). `None` for anything else:
/// decimal.py's `_parse` decides it (specials, whitespace, underscores, syntax errors,
/// exponents out of range, the int cap's OverflowError).
fn parse(s: &str) -> Option<Dec> {
    let b = s.as_bytes();
    let mut i = 0;
    let mut neg = false;
    if let Some(&c @ (b'+' | b'-')) = b.first() {
        neg = c == b'-';
        i = 1;
    }
    let int_start = i;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    let int_part = &b[int_start..i];
    let mut frac: &[u8] = &[];
    if i < b.len() && b[i] == b'.' {
        let f = i + 1;
        i = f;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        frac = &b[f..i];
    }
    if int_part.is_empty() && frac.is_empty() {
        return None;
    }
    let mut exp: i64 = 0;
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        i += 1;
        let mut eneg = false;
        if let Some(&c @ (b'+' | b'-')) = b.get(i) {
            eneg = c == b'-';
            i += 1;
        }
        let e = &b[i..];
        if e.is_empty() || e.len() > 18 || !e.iter().all(u8::is_ascii_digit) {
            return None;
        }
        exp = std::str::from_utf8(e).ok()?.parse::<i64>().ok()?;
        if eneg {
            exp = -exp;
        }
        i = b.len();
    }
    if i != b.len() {
        return None;
    }
    let mut digits = Vec::with_capacity(int_part.len() + frac.len());
    digits.extend_from_slice(int_part);
    digits.extend_from_slice(frac);
    let first = digits
        .iter()
        .position(|&c| c != b'0')
        .unwrap_or(digits.len());
    let sig = &digits[first..];
    if sig.len() > MAX_DIGITS {
        return None;
    }
    let coeff = Coeff::parse(sig)?;
    let exp = exp - frac.len() as i64;
    if exp + sig.len().max(1) as i64 - 1 > MAX_EMAX {
        return None; // beyond CPython's exponent range: decimal.py signals it
    }
    Some(Dec::finite(neg, coeff, exp))
}

// ------------------------------------------------------------------------------ methods

fn arg(a: &Args, i: usize) -> Value {
    a.pos.get(i).cloned().unwrap_or_default()
}

/// Run the Python implementation of `name` (decimal.py's, registered by [`f_init`]).
fn fallback(vm: &mut Vm, name: &str, a: Args) -> R<Value> {
    let reg = registry(vm)?;
    match vm.dict_get_str(&reg.fallback, name) {
        Some(f) => vm.call(&f, a),
        None => Err(vm.new_exc("RuntimeError", &format!("decimal has no Python {name}"))),
    }
}

/// `_decimal.init(Decimal, Context, current, getcontext, signals, fallbacks)`: decimal.py
/// registers its classes, its current-context holder (a one-item list) and `getcontext`, the
/// signal classes in bit order and the Python methods the native ones fall back to.
fn f_init(vm: &mut Vm, a: Args) -> R<Value> {
    let bad = |vm: &mut Vm| vm.type_err("_decimal.init: bad arguments");
    let (Value::Class(dec), Value::Class(ctx), Value::List(current)) =
        (arg(&a, 0), arg(&a, 1), arg(&a, 2))
    else {
        return Err(bad(vm));
    };
    let getcontext = arg(&a, 3);
    let Value::Tuple(signals) = arg(&a, 4) else {
        return Err(bad(vm));
    };
    let Value::Dict(fallback) = arg(&a, 5) else {
        return Err(bad(vm));
    };
    if signals.items.len() != N_CONDS {
        return Err(bad(vm));
    }
    let reg: Rc<dyn Any> = Rc::new(Registry {
        dec,
        ctx,
        current,
        getcontext,
        signals: signals.items.to_vec(),
        fallback,
        seen: RefCell::default(),
    });
    vm.decimal_core = Some(reg);
    Ok(Value::None)
}

/// `_decimal.make(cls, sign, coeff, exp, is_special)`: a value from its parts, as decimal.py
/// holds them (`exp` is 'F', 'n' or 'N' for infinity, quiet and signalling NaN).
fn f_make(vm: &mut Vm, a: Args) -> R<Value> {
    let reg = registry(vm)?;
    let cls = match arg(&a, 0) {
        Value::Class(c) if c.is_subclass(&reg.dec) => c,
        other => {
            let t = match &other {
                Value::Class(c) => c.name.to_string(),
                v => vm.type_name(v),
            };
            return Err(vm.type_err(format!(
                "decimal.Decimal.__new__({t}): {t} is not a subtype of decimal.Decimal"
            )));
        }
    };
    let neg = matches!(arg(&a, 1), Value::Int(1) | Value::Bool(true));
    let coeff = match int_dec(&arg(&a, 2)) {
        Some(d) if !d.neg => d.coeff,
        _ => return Err(vm.type_err("_decimal.make: coeff must be a non-negative int")),
    };
    vm.charge(cost::CALL + cost::bigint_linear(coeff.bits()))?;
    let (kind, exp) = match arg(&a, 3) {
        Value::Str(s) => match s.s.as_str() {
            "F" => (Kind::Inf, 0),
            "n" => (Kind::QNaN, 0),
            "N" => (Kind::SNaN, 0),
            _ => return Err(vm.value_err("_decimal.make: bad special kind")),
        },
        Value::Int(e) => (Kind::Finite, e),
        Value::BigInt(_) => {
            return Err(vm.new_exc(
                "OverflowError",
                "Python int too large to convert to C ssize_t",
            ))
        }
        _ => return Err(vm.type_err("_decimal.make: exp must be an int")),
    };
    Ok(wrap(&cls, Dec::new(neg, kind, coeff, exp)))
}

fn self_dec(vm: &mut Vm, a: &Args) -> R<Rc<Instance>> {
    match a.pos.first() {
        Some(Value::Instance(i)) if dec_of(&a.pos[0]).is_some() => Ok(i.clone()),
        _ => Err(vm.type_err("descriptor requires a 'decimal.Decimal' object")),
    }
}

fn get_sign(vm: &mut Vm, a: Args) -> R<Value> {
    self_dec(vm, &a)?;
    Ok(Value::Int(i64::from(
        dec_of(&a.pos[0]).map(|d| d.neg) == Some(true),
    )))
}

fn get_int(vm: &mut Vm, a: Args) -> R<Value> {
    self_dec(vm, &a)?;
    let d = dec_of(&a.pos[0]).expect("checked");
    vm.charge(cost::bigint_linear(d.coeff.bits()))?;
    Ok(d.coeff.to_value())
}

fn get_exp(vm: &mut Vm, a: Args) -> R<Value> {
    self_dec(vm, &a)?;
    let d = dec_of(&a.pos[0]).expect("checked");
    Ok(match d.kind {
        Kind::Finite => Value::Int(d.exp),
        Kind::Inf => Value::str("F"),
        Kind::QNaN => Value::str("n"),
        Kind::SNaN => Value::str("N"),
    })
}

fn get_is_special(vm: &mut Vm, a: Args) -> R<Value> {
    self_dec(vm, &a)?;
    Ok(Value::Bool(
        dec_of(&a.pos[0]).map(|d| d.kind) != Some(Kind::Finite),
    ))
}

/// `Decimal.__new__(cls, value='0', context=None)`: str, int and Decimal values natively.
fn f_new(vm: &mut Vm, a: Args) -> R<Value> {
    if let Some(v) = try_new(vm, &a)? {
        return Ok(v);
    }
    fallback(vm, "__new__", a)
}

fn try_new(vm: &mut Vm, a: &Args) -> R<Option<Value>> {
    if !a.kw.is_empty() || a.pos.len() > 3 {
        return Ok(None);
    }
    let reg = registry(vm)?;
    let cls = match a.pos.first() {
        Some(Value::Class(c)) if c.is_subclass(&reg.dec) => c,
        _ => return Ok(None),
    };
    let value = a.pos.get(1).cloned().unwrap_or_else(|| Value::str("0"));
    let d = match &value {
        Value::Str(s) => {
            vm.charge(cost::CALL + cost::per_char(s.s.len()))?;
            if s.s.len() > MAX_DIGITS + 24 {
                return Ok(None);
            }
            let Some(d) = parse(&s.s) else {
                return Ok(None);
            };
            vm.charge(cost::int_to_text(d.coeff.bits(), 10))?;
            d
        }
        Value::Int(_) | Value::BigInt(_) => {
            let d = int_dec(&value).expect("an int");
            vm.charge(cost::CALL + cost::bigint_linear(d.coeff.bits()))?;
            d
        }
        v => match dec_of(v) {
            Some(src) => {
                vm.charge(cost::CALL + cost::bigint_linear(src.coeff.bits()))?;
                Dec::new(src.neg, src.kind, src.coeff.clone(), src.exp)
            }
            None => return Ok(None),
        },
    };
    Ok(Some(wrap(cls, d)))
}

/// The `context` argument of a method whose positional arguments before it are `before`:
/// `Some(None)` when absent, `None` when the call has other arguments (the Python path
/// reports them).
fn context_arg(a: &Args, before: usize) -> Option<Option<Value>> {
    match (a.pos.len(), a.kw.as_slice()) {
        (n, []) if n == before => Some(None),
        (n, []) if n == before + 1 => Some(Some(a.pos[before].clone())),
        (n, [(k, v)]) if n == before && &**k == "context" => Some(Some(v.clone())),
        _ => None,
    }
}

/// What a native operation's common case needs: its registry, a Decimal receiver `x` and a
/// second operand `y` (a Decimal or an int), both finite, held in the slots the caller gives,
/// and a plain context (`explicit`, or the current one). `None` sends the call to the Python
/// path.
struct Common<'s> {
    reg: Rc<Registry>,
    x: &'s Dec,
    y: &'s Dec,
    ctx: Ctx,
    read: CtxRead,
}

#[inline(always)]
fn common<'s, 'a: 's>(
    vm: &mut Vm,
    a: &'a Args,
    explicit: Option<&Value>,
    (xs, ys): (&'s mut Slot<'a>, &'s mut Slot<'a>),
) -> R<Option<Common<'s>>> {
    let reg = registry(vm)?;
    let (Some(x), Some(y)) = (
        a.pos.first().and_then(|v| xs.finite_dec(v)),
        a.pos.get(1).and_then(|v| ys.finite(v)),
    ) else {
        return Ok(None);
    };
    let Some(read) = context(vm, &reg, explicit)? else {
        return Ok(None);
    };
    Ok(Some(Common {
        reg,
        x,
        y,
        ctx: read.ctx,
        read,
    }))
}

/// Binary operations.
#[derive(Clone, Copy)]
enum Op {
    Add,
    Sub,
    Mul,
    Div,
    FloorDiv,
    Mod,
}

/// The common case of a binary operation (finite operands, a plain context), or `None`.
fn try_binary(vm: &mut Vm, a: &Args, op: Op, reflected: bool) -> R<Option<Value>> {
    let Some(context_arg) = context_arg(a, 2) else {
        return Ok(None);
    };
    let mut slots = (Slot::default(), Slot::default());
    let Some(Common {
        reg,
        x,
        y,
        ctx,
        read,
    }) = common(vm, a, context_arg.as_ref(), (&mut slots.0, &mut slots.1))?
    else {
        return Ok(None);
    };
    let (l, r) = if reflected { (y, x) } else { (x, y) };
    charge_op(vm, &l.coeff, &r.coeff, ctx.prec)?;
    let mut conds = 0;
    let res = match op {
        Op::Add => add(l, r, false, &ctx, &mut conds),
        Op::Sub => add(l, r, true, &ctx, &mut conds),
        Op::Mul => mul(l, r, &ctx, &mut conds),
        Op::Div => div(l, r, &ctx, &mut conds),
        Op::FloorDiv => divmod(l, r, false, &ctx, &mut conds),
        Op::Mod => divmod(l, r, true, &ctx, &mut conds),
    };
    // Python runs next (`_signal` may raise): the operands' borrows end here.
    drop(slots);
    signal(vm, &reg, &read, conds)?;
    Ok(Some(wrap(&reg.dec, res)))
}

macro_rules! binary_methods {
    ($($f:ident, $name:literal, $op:ident, $refl:literal;)*) => {
        $(
            fn $f(vm: &mut Vm, a: Args) -> R<Value> {
                if let Some(v) = try_binary(vm, &a, Op::$op, $refl)? {
                    return Ok(v);
                }
                fallback(vm, $name, a)
            }
        )*
        /// The native binary methods, by Python name.
        const BINARY: &[(&str, super::Body)] = &[$(($name, $f)),*];
    };
}

binary_methods! {
    f_add, "__add__", Add, false;
    f_radd, "__radd__", Add, true;
    f_sub, "__sub__", Sub, false;
    f_rsub, "__rsub__", Sub, true;
    f_mul, "__mul__", Mul, false;
    f_rmul, "__rmul__", Mul, true;
    f_truediv, "__truediv__", Div, false;
    f_rtruediv, "__rtruediv__", Div, true;
    f_floordiv, "__floordiv__", FloorDiv, false;
    f_rfloordiv, "__rfloordiv__", FloorDiv, true;
    f_mod, "__mod__", Mod, false;
    f_rmod, "__rmod__", Mod, true;
}

/// The common case of a comparison (finite operands), or `None`.
fn try_compare(vm: &mut Vm, a: &Args) -> R<Option<i32>> {
    if a.pos.len() != 2 || !a.kw.is_empty() {
        return Ok(None);
    }
    let (mut xs, mut ys) = (Slot::default(), Slot::default());
    let (Some(x), Some(y)) = (xs.finite_dec(&a.pos[0]), ys.finite(&a.pos[1])) else {
        return Ok(None);
    };
    charge_op(vm, &x.coeff, &y.coeff, 0)?;
    Ok(Some(cmp(x, y)))
}

macro_rules! compare_methods {
    ($($f:ident, $name:literal, $test:expr;)*) => {
        $(
            fn $f(vm: &mut Vm, a: Args) -> R<Value> {
                if let Some(c) = try_compare(vm, &a)? {
                    let test: fn(i32) -> bool = $test;
                    return Ok(Value::Bool(test(c)));
                }
                fallback(vm, $name, a)
            }
        )*
        /// The native comparisons, by Python name.
        const COMPARE: &[(&str, super::Body)] = &[$(($name, $f)),*];
    };
}

compare_methods! {
    f_eq, "__eq__", |c| c == 0;
    f_ne, "__ne__", |c| c != 0;
    f_lt, "__lt__", |c| c < 0;
    f_le, "__le__", |c| c <= 0;
    f_gt, "__gt__", |c| c > 0;
    f_ge, "__ge__", |c| c >= 0;
}

fn f_hash(vm: &mut Vm, a: Args) -> R<Value> {
    if a.pos.len() == 1 {
        if let Some(d) = dec_of(&a.pos[0]).filter(|d| d.kind == Kind::Finite) {
            let bits = d.coeff.bits();
            drop(d);
            vm.charge(cost::CALL + cost::bigint_linear(bits) + 2 * 64)?;
            let d = dec_of(&a.pos[0]).expect("checked");
            return Ok(Value::Int(hash(&d)));
        }
    }
    fallback(vm, "__hash__", a)
}

/// `str()` of a finite value: the context's `capitals` is read only when an exponent shows.
fn try_str(vm: &mut Vm, a: &Args) -> R<Option<String>> {
    if a.pos.len() != 1 || !a.kw.is_empty() {
        return Ok(None);
    }
    let reg = registry(vm)?;
    let Some(d) = dec_of(&a.pos[0]).filter(|d| d.kind == Kind::Finite) else {
        return Ok(None);
    };
    let bits = d.coeff.bits();
    let needs_exp = d.exp > 0 || d.exp + (d.coeff.ndigits() as i64) <= -6;
    drop(d);
    let capitals = if needs_exp {
        match context(vm, &reg, None)? {
            Some(read) => read.ctx.capitals,
            None => return Ok(None),
        }
    } else {
        true
    };
    vm.charge(cost::CALL + cost::int_to_text(bits, 10) + 32)?;
    let d = dec_of(&a.pos[0]).expect("checked");
    Ok(Some(to_str(&d, capitals)))
}

fn f_str(vm: &mut Vm, a: Args) -> R<Value> {
    match try_str(vm, &a)? {
        Some(s) => Ok(Value::str(&s)),
        None => fallback(vm, "__str__", a),
    }
}

fn f_repr(vm: &mut Vm, a: Args) -> R<Value> {
    match try_str(vm, &a)? {
        Some(s) => Ok(Value::str(&format!("Decimal('{s}')"))),
        None => fallback(vm, "__repr__", a),
    }
}

/// `quantize(exp, rounding=None, context=None)` of finite operands.
fn f_quantize(vm: &mut Vm, a: Args) -> R<Value> {
    if let Some(v) = try_quantize(vm, &a)? {
        return Ok(v);
    }
    fallback(vm, "quantize", a)
}

fn try_quantize(vm: &mut Vm, a: &Args) -> R<Option<Value>> {
    let mut rounding = a.pos.get(2).cloned();
    let mut context_arg = a.pos.get(3).cloned();
    for (k, v) in &a.kw {
        match &**k {
            "rounding" if rounding.is_none() => rounding = Some(v.clone()),
            "context" if context_arg.is_none() => context_arg = Some(v.clone()),
            _ => return Ok(None),
        }
    }
    if a.pos.len() < 2 || a.pos.len() > 4 {
        return Ok(None);
    }
    let mut slots = (Slot::default(), Slot::default());
    let Some(Common {
        reg,
        x,
        y: e,
        ctx,
        read,
    }) = common(vm, a, context_arg.as_ref(), (&mut slots.0, &mut slots.1))?
    else {
        return Ok(None);
    };
    let rounding = match rounding {
        None | Some(Value::None) => ctx.rounding,
        Some(r) => match rounding_of(&r) {
            Some(r) => r,
            None => return Ok(None),
        },
    };
    charge_op(vm, &x.coeff, &e.coeff, ctx.prec)?;
    let mut conds = 0;
    let res = quantize(x, e, rounding, &ctx, &mut conds);
    drop(slots);
    signal(vm, &reg, &read, conds)?;
    Ok(Some(wrap(&reg.dec, res)))
}

/// `x ** y` with an integral exponent of at most 18 digits, finite operands and no modulo.
fn f_pow(vm: &mut Vm, a: Args) -> R<Value> {
    if let Some(v) = try_pow(vm, &a)? {
        return Ok(v);
    }
    fallback(vm, "__pow__", a)
}

fn try_pow(vm: &mut Vm, a: &Args) -> R<Option<Value>> {
    if a.pos.len() != 2 || !a.kw.is_empty() {
        return Ok(None);
    }
    let mut slots = (Slot::default(), Slot::default());
    let Some(Common {
        reg,
        x,
        y,
        ctx,
        read,
    }) = common(vm, a, None, (&mut slots.0, &mut slots.1))?
    else {
        return Ok(None);
    };
    if y.adjusted() > 18 || !is_integral(y) {
        return Ok(None);
    }
    let Some(n) = small_int(y) else {
        return Ok(None);
    };
    // Up to two multiplications per bit of n (and a division for a negative n), each at
    // the working precision.
    let steps = 2 * u64::from(64 - n.unsigned_abs().leading_zeros()) + 2;
    let w = x.coeff.bits() + digit_bits(ctx.prec + 24);
    vm.charge(cost::CALL + steps * 4 * cost::bigint_quadratic(w, w))?;
    let mut conds = 0;
    let res = pow_int(x, y, n, &ctx, &mut conds);
    drop(slots);
    signal(vm, &reg, &read, conds)?;
    Ok(Some(wrap(&reg.dec, res)))
}

/// The `_decimal` module.
pub fn load(vm: &mut Vm, name: &str) -> R<Value> {
    let d = rc_dict(PyDict::new());
    vm.dict_set_str(&d, "__name__", Value::str(name))?;
    let funcs: &[(&str, super::Body)] = &[
        ("init", f_init),
        ("make", f_make),
        ("__new__", f_new),
        ("__hash__", f_hash),
        ("__str__", f_str),
        ("__repr__", f_repr),
        ("quantize", f_quantize),
        ("__pow__", f_pow),
    ];
    for (n, f) in funcs.iter().chain(BINARY).chain(COMPARE) {
        vm.dict_set_str(&d, n, builtin(n, *f))?;
    }
    let props: &[(&str, super::Body)] = &[
        ("_sign", get_sign),
        ("_int", get_int),
        ("_exp", get_exp),
        ("_is_special", get_is_special),
    ];
    for (n, f) in props {
        vm.dict_set_str(&d, n, super::getter(*f))?;
    }
    Ok(super::module(name, d))
}
