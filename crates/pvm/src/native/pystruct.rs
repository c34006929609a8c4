//! `struct`: pack, unpack, calcsize, iter_unpack, pack_into, unpack_from, `Struct`, `error`.
//!
//! Standard sizes only: the format must start with `<`, `>`, `!` or `=` (`=` is
//! little-endian, the byte order of every supported validator platform). Native mode (no
//! prefix or `@`) depends on the platform's C types and alignment, so it is rejected with
//! `struct.error` (LIMITATIONS.md). Everything else follows CPython 3.11's `_struct` on a
//! little-endian 64-bit build, messages included (its `<`/`=` tables reuse the native
//! packers where sizes agree, hence messages like "short format requires …").
//!
//! Metering: parsing a format costs one cycle per format character; packing and unpacking
//! cost one cycle per item plus one per byte, charged before the work; output is reserved
//! against the memory limit before it is allocated.

use std::rc::Rc;

use num_bigint::BigInt;
use num_traits::ToPrimitive;

use super::{builtin, bytes_like, class, new_obj, state, state_mut, Body};
use crate::cost;
use crate::value::*;
use crate::vm::{Args, Exc, Vm, R};

/// Byte order of a format.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Order {
    Little,
    Big,
}

/// One format code with its repeat count.
#[derive(Clone, Copy, Debug)]
struct Code {
    ch: u8,
    count: usize,
    /// Size of one item in bytes.
    size: usize,
}

/// A parsed format.
#[derive(Clone, Debug)]
struct Fmt {
    order: Order,
    codes: Vec<Code>,
    /// Total packed size.
    size: usize,
    /// Number of Python values packed/unpacked.
    items: usize,
    /// The format as given, as text (`Struct.format`).
    text: String,
}

fn item_size(ch: u8) -> Option<usize> {
    Some(match ch {
        b'x' | b'c' | b'b' | b'B' | b'?' | b's' | b'p' => 1,
        b'h' | b'H' | b'e' => 2,
        b'i' | b'I' | b'l' | b'L' | b'f' => 4,
        b'q' | b'Q' | b'd' => 8,
        _ => return None,
    })
}

/// Message of the native-mode refusal.
const NATIVE: &str = "native size and alignment ('@' or no byte-order prefix) is not supported \
                      by the PVM: start the format with '<', '>', '!' or '='";

/// Parse a format (`Err` is a `struct.error` message).
fn parse(fmt: &[u8]) -> Result<Fmt, &'static str> {
    let order = match fmt.first() {
        Some(b'<') | Some(b'=') => Order::Little,
        Some(b'>') | Some(b'!') => Order::Big,
        _ => return Err(NATIVE),
    };
    const MAX: usize = isize::MAX as usize;
    let mut codes = Vec::new();
    let (mut size, mut items) = (0usize, 0usize);
    let mut i = 1;
    while i < fmt.len() {
        let c = fmt[i];
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        let mut count = 1usize;
        if c.is_ascii_digit() {
            let mut n = 0usize;
            while i < fmt.len() && fmt[i].is_ascii_digit() {
                if n > (MAX - 9) / 10 {
                    return Err("total struct size too long");
                }
                n = n * 10 + usize::from(fmt[i] - b'0');
                i += 1;
            }
            if i >= fmt.len() {
                return Err("repeat count given without format specifier");
            }
            count = n;
        }
        let ch = fmt[i];
        i += 1;
        let Some(sz) = item_size(ch) else {
            return Err("bad char in struct format");
        };
        if count > (MAX - size) / sz {
            return Err("total struct size too long");
        }
        size += count * sz;
        items += match ch {
            b'x' => 0,
            b's' | b'p' => 1,
            _ => count,
        };
        codes.push(Code {
            ch,
            count,
            size: sz,
        });
    }
    Ok(Fmt {
        order,
        codes,
        size,
        items,
        text: String::from_utf8_lossy(fmt).into_owned(),
    })
}

/// The `struct.error` class.
fn error_class(vm: &mut Vm) -> Rc<Class> {
    match vm.native_classes.get("struct.error") {
        Some(c) => c.clone(),
        None => vm.types.exc["Exception"].clone(),
    }
}

/// A `struct.error` with `msg`.
fn err(vm: &mut Vm, msg: impl AsRef<str>) -> Exc {
    let c = error_class(vm);
    Exc::Py(vm.make_exc(&c, vec![Value::str(msg.as_ref())]))
}

/// Parse a format argument (str or bytes), charging per character.
fn format_arg(vm: &mut Vm, v: &Value) -> R<Fmt> {
    let raw: Vec<u8> = match v {
        Value::Str(s) if !s.ascii => return Err(ascii_error(vm, &s.s)),
        Value::Str(s) => s.s.as_bytes().to_vec(),
        Value::Bytes(b) => b.b.to_vec(),
        other => {
            let t = vm.type_name(other);
            return Err(vm.type_err(format!(
                "Struct() argument 1 must be a str or bytes object, not {t}"
            )));
        }
    };
    vm.charge(cost::per_char(raw.len()))?;
    parse(&raw).map_err(|m| err(vm, m))
}

/// The UnicodeEncodeError of encoding a non-ASCII format to ASCII.
fn ascii_error(vm: &mut Vm, s: &str) -> Exc {
    let chars: Vec<char> = s.chars().collect();
    let start = chars.iter().position(|c| !c.is_ascii()).unwrap_or(0);
    let end = chars[start..]
        .iter()
        .position(|c| c.is_ascii())
        .map_or(chars.len(), |n| start + n);
    let msg = if end - start == 1 {
        let c = chars[start] as u32;
        let esc = if c < 0x100 {
            format!("\\x{c:02x}")
        } else if c < 0x10000 {
            format!("\\u{c:04x}")
        } else {
            format!("\\U{c:08x}")
        };
        format!("'ascii' codec can't encode character '{esc}' in position {start}: ordinal not in range(128)")
    } else {
        format!(
            "'ascii' codec can't encode characters in position {start}-{}: ordinal not in range(128)",
            end - 1
        )
    };
    vm.new_exc("UnicodeEncodeError", &msg)
}

/// An integer argument: its value when it fits `i128`, else `None` (out of every range).
fn int_arg(vm: &mut Vm, v: &Value) -> R<Option<i128>> {
    match v {
        Value::Int(i) => Ok(Some(i128::from(*i))),
        Value::Bool(b) => Ok(Some(i128::from(*b))),
        Value::BigInt(b) => Ok(b.to_i128()),
        Value::Instance(_) => {
            if let Some(r) = vm.call_dunder(v, "__index__", vec![])? {
                return int_arg(vm, &r);
            }
            let b = Vm::base_of(v);
            if !b.is(v) {
                return int_arg(vm, &b);
            }
            Err(err(vm, "required argument is not an integer"))
        }
        _ => Err(err(vm, "required argument is not an integer")),
    }
}

/// A float argument (`PyFloat_AsDouble`).
fn float_arg(vm: &mut Vm, v: &Value) -> R<f64> {
    match v {
        Value::Float(f) => Ok(*f),
        // As `_struct`: any failure of the conversion becomes this struct.error.
        Value::Int(_) | Value::Bool(_) | Value::BigInt(_) | Value::Instance(_) => {
            match vm.to_float(v) {
                Err(Exc::Py(_)) => Err(err(vm, "required argument is not a float")),
                r => r,
            }
        }
        _ => Err(err(vm, "required argument is not a float")),
    }
}

/// Pack one integer of format `ch` (CPython's range checks and messages, see module docs).
fn pack_int(vm: &mut Vm, v: &Value, ch: u8, order: Order, out: &mut Vec<u8>) -> R<()> {
    let n = int_arg(vm, v)?;
    let fits_long = n.filter(|n| i64::try_from(*n).is_ok());
    let fits_ulong = n.filter(|n| u64::try_from(*n).is_ok());
    let range = |vm: &mut Vm, lo: i128, hi: i128, name: String| -> R<()> {
        Err(err(
            vm,
            format!("{name} format requires {lo} <= number <= {hi}"),
        ))
    };
    let size = item_size(ch).unwrap_or(1);
    let value: i128 = match (ch, order) {
        (b'b' | b'B' | b'h' | b'H' | b'i' | b'l', _) | (b'q', Order::Little) => {
            let signed = matches!(ch, b'b' | b'h' | b'i' | b'l' | b'q');
            let unsigned_from_long = matches!(ch, b'B') || (ch == b'H' && order == Order::Little);
            let Some(x) = (if signed || unsigned_from_long {
                fits_long
            } else {
                fits_ulong
            }) else {
                return Err(err(vm, "argument out of range"));
            };
            let bits = 8 * size as u32;
            let (lo, hi) = if signed {
                (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
            } else {
                (0, (1i128 << bits) - 1)
            };
            if ch != b'q' && (x < lo || x > hi) {
                let name = match (ch, order) {
                    (b'b', _) => "byte".to_string(),
                    (b'B', _) => "ubyte".to_string(),
                    (b'h', Order::Little) => "short".to_string(),
                    (b'H', Order::Little) => "ushort".to_string(),
                    _ => format!("'{}'", ch as char),
                };
                return range(vm, lo, hi, name);
            }
            x
        }
        (b'I' | b'L', _) => {
            let Some(x) = fits_ulong else {
                return Err(err(vm, "argument out of range"));
            };
            if x > i128::from(u32::MAX) {
                return range(vm, 0, i128::from(u32::MAX), format!("'{}'", ch as char));
            }
            x
        }
        (b'Q', Order::Little) => match fits_ulong {
            Some(x) => x,
            None => return Err(err(vm, "argument out of range")),
        },
        (b'q', Order::Big) => match fits_long {
            Some(x) => x,
            None => return Err(err(vm, "int too large to convert")),
        },
        _ => match fits_ulong {
            Some(x) => x,
            None => return Err(err(vm, "int too large to convert")),
        },
    };
    let le = (value as u128).to_le_bytes();
    let bytes = &le[..size];
    match order {
        Order::Little => out.extend_from_slice(bytes),
        Order::Big => out.extend(bytes.iter().rev()),
    }
    Ok(())
}

/// IEEE 754 half precision of `x` (CPython's `PyFloat_Pack2`: round half to even).
fn pack_half(x: f64) -> Option<u16> {
    let sign: u16 = if x.is_sign_negative() { 1 } else { 0 };
    let mut e: i32;
    if x.is_nan() {
        return Some((sign << 15) | 0x7e00);
    }
    if x.is_infinite() {
        return Some((sign << 15) | 0x7c00);
    }
    let ax = x.abs();
    if ax == 0.0 {
        return Some(sign << 15);
    }
    let (mut f, ee) = libm::frexp(ax);
    e = ee;
    f *= 2.0;
    e -= 1;
    if e >= 16 {
        return None;
    } else if e < -25 {
        f = 0.0;
        e = 0;
    } else if e < -14 {
        f = libm::ldexp(f, 14 + e);
        e = 0;
    } else {
        e += 15;
        f -= 1.0;
    }
    f *= 1024.0;
    let mut b = f as u16;
    let rem = f - f64::from(b);
    if rem > 0.5 || (rem == 0.5 && b % 2 == 1) {
        b += 1;
        if b == 1024 {
            b = 0;
            e += 1;
            if e == 31 {
                return None;
            }
        }
    }
    Some(b | ((e as u16) << 10) | (sign << 15))
}

/// `PyFloat_Unpack2`.
fn unpack_half(h: u16) -> f64 {
    let sign = h >> 15 != 0;
    let mut e = i32::from((h >> 10) & 0x1f);
    let f = f64::from(h & 0x3ff);
    if e == 0x1f {
        let v = if f == 0.0 { f64::INFINITY } else { f64::NAN };
        return if sign { -v } else { v };
    }
    let mut x = f / 1024.0;
    if e == 0 {
        e = -14;
    } else {
        x += 1.0;
        e -= 15;
    }
    let x = libm::ldexp(x, e);
    if sign {
        -x
    } else {
        x
    }
}

fn put(out: &mut Vec<u8>, le: &[u8], order: Order) {
    match order {
        Order::Little => out.extend_from_slice(le),
        Order::Big => out.extend(le.iter().rev()),
    }
}

/// Pack `vals` (already counted) into a new buffer.
fn pack_values(vm: &mut Vm, f: &Fmt, vals: &[Value]) -> R<Vec<u8>> {
    vm.charge(cost::per_elem(f.items) + cost::per_char(f.size))?;
    vm.reserve(f.size as u64)?;
    let mut out = Vec::with_capacity(f.size);
    let mut it = vals.iter();
    for c in &f.codes {
        match c.ch {
            b'x' => out.resize(out.len() + c.count, 0),
            b's' | b'p' => {
                let v = it.next().cloned().unwrap_or_default();
                let data = match &v {
                    Value::Bytes(_) | Value::ByteArray(_) => bytes_like(&v).unwrap_or_default(),
                    Value::Instance(_) if bytes_like(&v).is_some() => {
                        bytes_like(&v).unwrap_or_default()
                    }
                    _ => {
                        return Err(err(
                            vm,
                            format!("argument for '{}' must be a bytes object", c.ch as char),
                        ))
                    }
                };
                if c.ch == b's' {
                    let n = data.len().min(c.count);
                    out.extend_from_slice(&data[..n]);
                    out.resize(out.len() + (c.count - n), 0);
                } else if c.count > 0 {
                    let n = data.len().min(c.count - 1).min(255);
                    out.push(n as u8);
                    out.extend_from_slice(&data[..n]);
                    out.resize(out.len() + (c.count - 1 - n), 0);
                }
            }
            _ => {
                for _ in 0..c.count {
                    let v = it.next().cloned().unwrap_or_default();
                    match c.ch {
                        b'c' => match &v {
                            Value::Bytes(b) if b.b.len() == 1 => out.push(b.b[0]),
                            _ => {
                                return Err(err(
                                    vm,
                                    "char format requires a bytes object of length 1",
                                ))
                            }
                        },
                        b'?' => {
                            let t = vm.truthy(&v)?;
                            out.push(u8::from(t));
                        }
                        b'e' => {
                            let x = float_arg(vm, &v)?;
                            let Some(h) = pack_half(x) else {
                                return Err(vm.new_exc(
                                    "OverflowError",
                                    "float too large to pack with e format",
                                ));
                            };
                            put(&mut out, &h.to_le_bytes(), f.order);
                        }
                        b'f' => {
                            let x = float_arg(vm, &v)?;
                            let y = if x.is_nan() {
                                f32::from_bits(if x.is_sign_negative() {
                                    0xffc0_0000
                                } else {
                                    0x7fc0_0000
                                })
                            } else {
                                x as f32
                            };
                            if y.is_infinite() && !x.is_infinite() {
                                return Err(vm.new_exc(
                                    "OverflowError",
                                    "float too large to pack with f format",
                                ));
                            }
                            put(&mut out, &y.to_bits().to_le_bytes(), f.order);
                        }
                        b'd' => {
                            let x = float_arg(vm, &v)?;
                            put(&mut out, &x.to_bits().to_le_bytes(), f.order);
                        }
                        ch => pack_int(vm, &v, ch, f.order, &mut out)?,
                    }
                }
            }
        }
    }
    Ok(out)
}

fn int_value(vm: &mut Vm, x: i128) -> R<Value> {
    match i64::try_from(x) {
        Ok(i) => Ok(Value::Int(i)),
        Err(_) => vm.int_result(BigInt::from(x)),
    }
}

/// Unpack `data` (exactly `f.size` bytes) into values.
fn unpack_values(vm: &mut Vm, f: &Fmt, data: &[u8]) -> R<Vec<Value>> {
    vm.charge(cost::per_elem(f.items) + cost::per_char(f.size))?;
    let mut out = Vec::with_capacity(f.items);
    let mut p = 0usize;
    let get = |p: usize, n: usize, order: Order| -> [u8; 8] {
        let mut le = [0u8; 8];
        let src = data.get(p..p + n).unwrap_or(&[]);
        for (k, b) in src.iter().enumerate() {
            match order {
                Order::Little => le[k] = *b,
                Order::Big => le[n - 1 - k] = *b,
            }
        }
        le
    };
    for c in &f.codes {
        match c.ch {
            b'x' => p += c.count,
            b's' => {
                out.push(Value::bytes(
                    data.get(p..p + c.count).unwrap_or(&[]).to_vec(),
                ));
                p += c.count;
            }
            b'p' => {
                let v = if c.count == 0 {
                    Vec::new()
                } else {
                    let n = usize::from(data.get(p).copied().unwrap_or(0)).min(c.count - 1);
                    data.get(p + 1..p + 1 + n).unwrap_or(&[]).to_vec()
                };
                out.push(Value::bytes(v));
                p += c.count;
            }
            ch => {
                for _ in 0..c.count {
                    let le = get(p, c.size, f.order);
                    let v = match ch {
                        b'c' => Value::bytes(vec![le[0]]),
                        b'?' => Value::Bool(le[0] != 0),
                        b'e' => Value::Float(unpack_half(u16::from_le_bytes([le[0], le[1]]))),
                        b'f' => Value::Float(f64::from(f32::from_bits(u32::from_le_bytes([
                            le[0], le[1], le[2], le[3],
                        ])))),
                        b'd' => Value::Float(f64::from_bits(u64::from_le_bytes(le))),
                        b'b' => Value::Int(i64::from(le[0] as i8)),
                        b'B' => Value::Int(i64::from(le[0])),
                        b'h' => Value::Int(i64::from(i16::from_le_bytes([le[0], le[1]]))),
                        b'H' => Value::Int(i64::from(u16::from_le_bytes([le[0], le[1]]))),
                        b'i' | b'l' => {
                            Value::Int(i64::from(i32::from_le_bytes([le[0], le[1], le[2], le[3]])))
                        }
                        b'I' | b'L' => {
                            Value::Int(i64::from(u32::from_le_bytes([le[0], le[1], le[2], le[3]])))
                        }
                        b'q' => Value::Int(i64::from_le_bytes(le)),
                        _ => int_value(vm, i128::from(u64::from_le_bytes(le)))?,
                    };
                    out.push(v);
                    p += c.size;
                }
            }
        }
    }
    Ok(out)
}

/// A readable buffer argument (bytes or bytearray).
fn buffer_arg(vm: &mut Vm, v: &Value) -> R<Vec<u8>> {
    match bytes_like(v) {
        Some(b) => Ok(b),
        None => {
            let t = vm.type_name(v);
            Err(vm.type_err(format!("a bytes-like object is required, not '{t}'")))
        }
    }
}

fn pack_checked(vm: &mut Vm, f: &Fmt, vals: &[Value], what: &str) -> R<Vec<u8>> {
    if vals.len() != f.items {
        return Err(err(
            vm,
            format!(
                "{what} expected {} items for packing (got {})",
                f.items,
                vals.len()
            ),
        ));
    }
    pack_values(vm, f, vals)
}

fn unpack_exact(vm: &mut Vm, f: &Fmt, buf: &Value) -> R<Value> {
    let data = buffer_arg(vm, buf)?;
    if data.len() != f.size {
        return Err(err(
            vm,
            format!("unpack requires a buffer of {} bytes", f.size),
        ));
    }
    let v = unpack_values(vm, f, &data)?;
    Ok(Value::tuple(v))
}

fn unpack_from_impl(vm: &mut Vm, f: &Fmt, buf: &Value, offset: Option<&Value>) -> R<Value> {
    let data = buffer_arg(vm, buf)?;
    let mut off = match offset {
        Some(o) => vm.index_of(o)?,
        None => 0,
    };
    let len = data.len() as i64;
    let size = f.size as i64;
    if off < 0 {
        if off + len < 0 {
            return Err(err(
                vm,
                format!("offset {off} out of range for {len}-byte buffer"),
            ));
        }
        if off + size > 0 {
            return Err(err(
                vm,
                format!("not enough data to unpack {size} bytes at offset {off}"),
            ));
        }
        off += len;
    }
    if len - off < size {
        return Err(err(
            vm,
            format!(
                "unpack_from requires a buffer of at least {} bytes for unpacking {size} bytes \
                 at offset {off} (actual buffer size is {len})",
                size.saturating_add(off)
            ),
        ));
    }
    let o = off as usize;
    let v = unpack_values(vm, f, &data[o..o + f.size])?;
    Ok(Value::tuple(v))
}

fn pack_into_impl(vm: &mut Vm, f: &Fmt, buf: &Value, offset: &Value, vals: &[Value]) -> R<()> {
    if vals.len() != f.items {
        return Err(err(
            vm,
            format!(
                "pack_into expected {} items for packing (got {})",
                f.items,
                vals.len()
            ),
        ));
    }
    let target = match buf {
        Value::ByteArray(b) => b.clone(),
        Value::Instance(i) => match i.base.borrow().clone() {
            Some(Value::ByteArray(b)) => b,
            _ => return Err(not_writable(vm, buf)),
        },
        _ => return Err(not_writable(vm, buf)),
    };
    let mut off = vm.index_of(offset)?;
    let len = target.b.borrow().len() as i64;
    let size = f.size as i64;
    if off < 0 {
        if off + len < 0 {
            return Err(err(
                vm,
                format!("offset {off} out of range for {len}-byte buffer"),
            ));
        }
        if off + size > 0 {
            return Err(err(
                vm,
                format!("no space to pack {size} bytes at offset {off}"),
            ));
        }
        off += len;
    }
    if len - off < size {
        return Err(err(
            vm,
            format!(
                "pack_into requires a buffer of at least {} bytes for packing {size} bytes at \
                 offset {off} (actual buffer size is {len})",
                size.saturating_add(off)
            ),
        ));
    }
    let bytes = pack_values(vm, f, vals)?;
    let o = off as usize;
    // Packing may have run Python code (`__index__`, `__bool__`) that resized the buffer.
    let mut b = target.b.borrow_mut();
    if let Some(dst) = b.get_mut(o..o + bytes.len()) {
        dst.copy_from_slice(&bytes);
    }
    Ok(())
}

fn not_writable(vm: &mut Vm, v: &Value) -> Exc {
    let t = vm.type_name(v);
    vm.type_err(format!(
        "argument must be read-write bytes-like object, not {t}"
    ))
}

/// State of an `unpack_iterator`.
struct UnpackIter {
    fmt: Rc<Fmt>,
    data: Vec<u8>,
    pos: usize,
}

fn iter_unpack_impl(vm: &mut Vm, f: Rc<Fmt>, buf: &Value) -> R<Value> {
    if f.size == 0 {
        return Err(err(
            vm,
            "cannot iteratively unpack with a struct of length 0",
        ));
    }
    let data = buffer_arg(vm, buf)?;
    if data.len() % f.size != 0 {
        return Err(err(
            vm,
            format!(
                "iterative unpacking requires a buffer of a multiple of {} bytes",
                f.size
            ),
        ));
    }
    vm.charge(cost::per_char(data.len()))?;
    let cls = native_class(vm, "_struct.unpack_iterator")?;
    Ok(new_obj(
        &cls,
        UnpackIter {
            fmt: f,
            data,
            pos: 0,
        },
    ))
}

fn native_class(vm: &mut Vm, name: &str) -> R<Rc<Class>> {
    match vm.native_classes.get(name) {
        Some(c) => Ok(c.clone()),
        None => Err(vm.new_exc("SystemError", "struct is not initialised")),
    }
}

// ---- module functions ----

fn f_calcsize(vm: &mut Vm, a: Args) -> R<Value> {
    if a.pos.len() != 1 || !a.kw.is_empty() {
        return Err(vm.type_err(format!(
            "_struct.calcsize() takes exactly one argument ({} given)",
            a.pos.len() + a.kw.len()
        )));
    }
    let f = format_arg(vm, &a.pos[0])?;
    Ok(Value::Int(f.size as i64))
}

fn no_kw(vm: &mut Vm, a: &Args, name: &str) -> R<()> {
    if a.kw.is_empty() {
        Ok(())
    } else {
        Err(vm.type_err(format!("{name}() takes no keyword arguments")))
    }
}

fn f_pack(vm: &mut Vm, a: Args) -> R<Value> {
    no_kw(vm, &a, "pack")?;
    let Some(fv) = a.pos.first() else {
        return Err(vm.type_err("missing format argument"));
    };
    let f = format_arg(vm, fv)?;
    let out = pack_checked(vm, &f, &a.pos[1..], "pack")?;
    Ok(Value::bytes(out))
}

fn f_unpack(vm: &mut Vm, a: Args) -> R<Value> {
    no_kw(vm, &a, "unpack")?;
    if a.pos.len() != 2 {
        return Err(vm.type_err(format!("unpack expected 2 arguments, got {}", a.pos.len())));
    }
    let f = format_arg(vm, &a.pos[0])?;
    unpack_exact(vm, &f, &a.pos[1])
}

fn f_iter_unpack(vm: &mut Vm, a: Args) -> R<Value> {
    no_kw(vm, &a, "iter_unpack")?;
    if a.pos.len() != 2 {
        return Err(vm.type_err(format!(
            "iter_unpack expected 2 arguments, got {}",
            a.pos.len()
        )));
    }
    let f = format_arg(vm, &a.pos[0])?;
    iter_unpack_impl(vm, Rc::new(f), &a.pos[1])
}

/// `(buffer, offset=0)` of `unpack_from`, positional or keyword, after `skip` leading args.
fn buffer_offset(vm: &mut Vm, mut a: Args, skip: usize, max: usize) -> R<(Value, Option<Value>)> {
    let given = a.pos.len() + a.kw.len();
    let kw_buffer = a.take_kw("buffer");
    let kw_offset = a.take_kw("offset");
    if let Some((k, _)) = a.kw.first() {
        return Err(vm.type_err(format!(
            "unpack_from() got an unexpected keyword argument '{k}'"
        )));
    }
    if given > max {
        return Err(vm.type_err(format!(
            "unpack_from() takes at most {max} arguments ({given} given)"
        )));
    }
    let mut pos = a.pos.split_off(skip.min(a.pos.len())).into_iter();
    let buffer = match (pos.next(), kw_buffer) {
        (Some(b), None) => b,
        (None, Some(b)) => b,
        (Some(_), Some(_)) => {
            return Err(
                vm.type_err("argument for unpack_from() given by name ('buffer') and position (2)")
            )
        }
        (None, None) => {
            return Err(vm.type_err(format!(
                "unpack_from() missing required argument 'buffer' (pos {})",
                skip + 1
            )))
        }
    };
    let offset = match (pos.next(), kw_offset) {
        (Some(_), Some(_)) => {
            return Err(
                vm.type_err("argument for unpack_from() given by name ('offset') and position (3)")
            )
        }
        (p, k) => p.or(k),
    };
    Ok((buffer, offset))
}

fn f_unpack_from(vm: &mut Vm, mut a: Args) -> R<Value> {
    if a.pos.is_empty() {
        if let Some(f) = a.take_kw("format") {
            a.pos.insert(0, f);
        } else {
            return Err(vm.type_err("unpack_from() missing required argument 'format' (pos 1)"));
        }
    }
    let fv = a.pos[0].clone();
    let (buffer, offset) = buffer_offset(vm, a, 1, 3)?;
    let f = format_arg(vm, &fv)?;
    unpack_from_impl(vm, &f, &buffer, offset.as_ref())
}

fn f_pack_into(vm: &mut Vm, a: Args) -> R<Value> {
    no_kw(vm, &a, "pack_into")?;
    match a.pos.len() {
        0 => return Err(vm.type_err("missing format argument")),
        1 => return Err(err(vm, "pack_into expected buffer argument")),
        2 => return Err(err(vm, "pack_into expected offset argument")),
        _ => {}
    }
    let f = format_arg(vm, &a.pos[0])?;
    pack_into_impl(vm, &f, &a.pos[1], &a.pos[2], &a.pos[3..])?;
    Ok(Value::None)
}

// ---- Struct ----

fn this(vm: &mut Vm, a: &mut Args, method: &str) -> R<(Value, Rc<Fmt>)> {
    let me = super::receiver(vm, a, "Struct", method)?;
    let f = state::<Rc<Fmt>>(&me).map(|f| f.clone());
    match f {
        Some(f) => Ok((me, f)),
        None => Err(super::wrong_self(vm, &me, "_struct.Struct", method)),
    }
}

fn s_init(vm: &mut Vm, mut a: Args) -> R<Value> {
    let me = super::receiver(vm, &mut a, "Struct", "__init__")?;
    let fv = match (a.pos.len(), a.take_kw("format")) {
        (0, Some(f)) => f,
        (1, None) => a.pos.remove(0),
        (0, None) => return Err(vm.type_err("Struct() missing required argument 'format' (pos 1)")),
        (n, k) => {
            return Err(vm.type_err(format!(
                "Struct() takes at most 1 argument ({} given)",
                n + usize::from(k.is_some())
            )))
        }
    };
    if let Some((k, _)) = a.kw.first() {
        return Err(vm.type_err(format!("Struct() got an unexpected keyword argument '{k}'")));
    }
    let f = format_arg(vm, &fv)?;
    super::set_state(&me, Rc::new(f));
    Ok(Value::None)
}

fn s_pack(vm: &mut Vm, mut a: Args) -> R<Value> {
    let (_, f) = this(vm, &mut a, "pack")?;
    no_kw(vm, &a, "pack")?;
    let out = pack_checked(vm, &f, &a.pos, "pack")?;
    Ok(Value::bytes(out))
}

fn s_unpack(vm: &mut Vm, mut a: Args) -> R<Value> {
    let (_, f) = this(vm, &mut a, "unpack")?;
    no_kw(vm, &a, "unpack")?;
    if a.pos.len() != 1 {
        return Err(vm.type_err(format!(
            "Struct.unpack() takes exactly one argument ({} given)",
            a.pos.len()
        )));
    }
    unpack_exact(vm, &f, &a.pos[0])
}

fn s_unpack_from(vm: &mut Vm, mut a: Args) -> R<Value> {
    let (_, f) = this(vm, &mut a, "unpack_from")?;
    let (buffer, offset) = buffer_offset(vm, a, 0, 2)?;
    unpack_from_impl(vm, &f, &buffer, offset.as_ref())
}

fn s_pack_into(vm: &mut Vm, mut a: Args) -> R<Value> {
    let (_, f) = this(vm, &mut a, "pack_into")?;
    no_kw(vm, &a, "pack_into")?;
    match a.pos.len() {
        0 => return Err(err(vm, "pack_into expected buffer argument")),
        1 => return Err(err(vm, "pack_into expected offset argument")),
        _ => {}
    }
    pack_into_impl(vm, &f, &a.pos[0], &a.pos[1], &a.pos[2..])?;
    Ok(Value::None)
}

fn s_iter_unpack(vm: &mut Vm, mut a: Args) -> R<Value> {
    let (_, f) = this(vm, &mut a, "iter_unpack")?;
    no_kw(vm, &a, "iter_unpack")?;
    if a.pos.len() != 1 {
        return Err(vm.type_err(format!(
            "Struct.iter_unpack() takes exactly one argument ({} given)",
            a.pos.len()
        )));
    }
    iter_unpack_impl(vm, f, &a.pos[0])
}

fn s_format(vm: &mut Vm, mut a: Args) -> R<Value> {
    let (_, f) = this(vm, &mut a, "format")?;
    Ok(Value::str(&f.text))
}

fn s_size(vm: &mut Vm, mut a: Args) -> R<Value> {
    let (_, f) = this(vm, &mut a, "size")?;
    Ok(Value::Int(f.size as i64))
}

// ---- unpack_iterator ----

fn it_self(vm: &mut Vm, a: &mut Args, method: &str) -> R<Value> {
    let me = super::receiver(vm, a, "unpack_iterator", method)?;
    if state::<UnpackIter>(&me).is_none() {
        return Err(super::wrong_self(
            vm,
            &me,
            "_struct.unpack_iterator",
            method,
        ));
    }
    Ok(me)
}

fn it_iter(vm: &mut Vm, mut a: Args) -> R<Value> {
    it_self(vm, &mut a, "__iter__")
}

fn it_next(vm: &mut Vm, mut a: Args) -> R<Value> {
    let me = it_self(vm, &mut a, "__next__")?;
    let step = state::<UnpackIter>(&me).and_then(|s| {
        let end = s.pos + s.fmt.size;
        (end <= s.data.len()).then(|| (s.fmt.clone(), s.data[s.pos..end].to_vec()))
    });
    let Some((f, chunk)) = step else {
        return Err(vm.new_exc_noargs("StopIteration"));
    };
    if let Some(mut s) = state_mut::<UnpackIter>(&me) {
        s.pos += f.size;
    }
    let v = unpack_values(vm, &f, &chunk)?;
    Ok(Value::tuple(v))
}

fn it_length_hint(vm: &mut Vm, mut a: Args) -> R<Value> {
    let me = it_self(vm, &mut a, "__length_hint__")?;
    let n = state::<UnpackIter>(&me)
        .map(|s| (s.data.len() - s.pos) / s.fmt.size.max(1))
        .unwrap_or(0);
    Ok(Value::Int(n as i64))
}

fn it_no_new(vm: &mut Vm, _a: Args) -> R<Value> {
    Err(vm.type_err("cannot create '_struct.unpack_iterator' instances"))
}

/// Load `struct`.
pub fn load(vm: &mut Vm, name: &str) -> R<Value> {
    let error = super::exc_class(vm, "struct", "error", "Exception")?;
    let methods: &[(&str, Body)] = &[
        ("__init__", s_init),
        ("pack", s_pack),
        ("unpack", s_unpack),
        ("unpack_from", s_unpack_from),
        ("pack_into", s_pack_into),
        ("iter_unpack", s_iter_unpack),
    ];
    let props: &[(&str, Body)] = &[("format", s_format), ("size", s_size)];
    let st = class(vm, "_struct", "Struct", vec![], methods, props, None)?;
    let it_methods: &[(&str, Body)] = &[
        ("__iter__", it_iter),
        ("__next__", it_next),
        ("__length_hint__", it_length_hint),
    ];
    let it = class(
        vm,
        "_struct",
        "unpack_iterator",
        vec![],
        it_methods,
        &[],
        Some(it_no_new),
    )?;
    vm.native_classes.insert("struct.error", error.clone());
    vm.native_classes.insert("_struct.Struct", st.clone());
    vm.native_classes.insert("_struct.unpack_iterator", it);
    let d = rc_dict(PyDict::new());
    vm.dict_set_str(&d, "__name__", Value::str(name))?;
    vm.dict_set_str(&d, "error", Value::Class(error))?;
    vm.dict_set_str(&d, "Struct", Value::Class(st))?;
    let fns: &[(&str, Body)] = &[
        ("calcsize", f_calcsize),
        ("pack", f_pack),
        ("unpack", f_unpack),
        ("iter_unpack", f_iter_unpack),
        ("unpack_from", f_unpack_from),
        ("pack_into", f_pack_into),
    ];
    for (n, f) in fns {
        vm.dict_set_str(&d, n, builtin(n, *f))?;
    }
    Ok(super::module(name, d))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn half_round_trip() {
        for (x, bits) in [
            (1.5, 0x3e00u16),
            (65504.0, 0x7bff),
            (65519.0, 0x7bff),
            (6e-8, 0x0001),
            (1e-8, 0x0000),
            (-2.0, 0xc000),
        ] {
            assert_eq!(pack_half(x), Some(bits), "{x}");
        }
        assert_eq!(pack_half(65520.0), None);
        assert_eq!(unpack_half(0x3e00), 1.5);
        assert_eq!(unpack_half(0x0001), 5.960464477539063e-08);
    }

    #[test]
    fn formats() {
        assert_eq!(parse(b"<10s 2i").map(|f| f.size), Ok(18));
        assert_eq!(parse(b"i").map(|f| f.size), Err(NATIVE));
        assert_eq!(parse(b"@i").map(|f| f.size), Err(NATIVE));
        assert_eq!(
            parse(b"<i3").map(|f| f.size),
            Err("repeat count given without format specifier")
        );
        assert_eq!(
            parse(b"<n").map(|f| f.size),
            Err("bad char in struct format")
        );
    }
}
