//! Python values ↔ canonical CBOR (cowboy-types), the one encoding of everything that crosses
//! the host boundary: storage keys and values, handler arguments and return values, message
//! arguments, event data (whitepaper §3, CIP-3 §2.2 "serialization").
//!
//! | Python                        | CBOR                                   |
//! |-------------------------------|----------------------------------------|
//! | `None`, `bool`, `float`       | null, true/false, binary64             |
//! | `int` (≤ 4096 bits)           | integer, or tag 2/3 bignum beyond 64 bits |
//! | `str`                         | text                                   |
//! | `bytes`, `bytearray`          | byte string (decodes as `bytes`)       |
//! | `list`, `tuple`               | array (decodes as `list`)              |
//! | `dict` (keys `str`/`int`/`bytes`) | map, canonically ordered (decodes in that order) |
//!
//! Anything else (sets, instances, functions, classes…) is `TypeError: cannot encode <type> as
//! CBOR`. Nesting deeper than [`MAX_NESTING`] is `RecursionError`. Both directions charge
//! [`cost::CODEC`] once plus one cycle per element and per byte, through `Vm::charge`, and the
//! decoder reserves memory before building containers.

use cowboy_types::cbor::{self, Value as Cbor};
use num_bigint::{BigInt, Sign};

use crate::cost;
use crate::value::{PyDict, PyList, Value};
use crate::vm::{Vm, R};

/// Deepest nesting of containers either direction accepts.
pub const MAX_NESTING: usize = 64;

/// Encode a Python value to canonical CBOR bytes.
pub fn to_cbor_bytes(vm: &mut Vm, v: &Value) -> R<Vec<u8>> {
    // Most encodings (keys, scalars, small records) fit: one allocation.
    let mut out = Vec::with_capacity(64);
    write_cbor(vm, v, &mut out)?;
    vm.charge(cost::per_char(out.len()))?;
    Ok(out)
}

/// Append the canonical CBOR encoding of a Python value to `out` (on an error, `out` may hold
/// part of it).
pub fn write_cbor(vm: &mut Vm, v: &Value, out: &mut Vec<u8>) -> R<()> {
    vm.charge(cost::CODEC)?;
    write(vm, v, 0, out)
}

/// Decode canonical CBOR bytes into a fresh Python value. Malformed bytes are `ValueError`.
pub fn from_cbor_bytes(vm: &mut Vm, bytes: &[u8]) -> R<Value> {
    vm.charge(cost::CODEC + cost::per_char(bytes.len()))?;
    match cowboy_types::cbor::decode(bytes) {
        Ok(item) => decode(vm, &item, 0),
        Err(e) => Err(vm.value_err(format!("invalid CBOR: {e}"))),
    }
}

/// Build a Python value from a CBOR item.
pub fn from_cbor(vm: &mut Vm, item: &Cbor) -> R<Value> {
    vm.charge(cost::CODEC)?;
    decode(vm, item, 0)
}

fn too_deep(vm: &mut Vm) -> crate::vm::Exc {
    vm.new_exc(
        "RecursionError",
        &format!("CBOR nesting deeper than {MAX_NESTING} levels"),
    )
}

fn bigint_to_cbor(b: &BigInt) -> Cbor {
    let (sign, mag) = b.to_bytes_be();
    if sign == Sign::Minus {
        // -1 - n = b  =>  n = -b - 1 = |b| - 1
        let n: BigInt = BigInt::from_bytes_be(Sign::Plus, &mag) - BigInt::from(1u8);
        let (_, bytes) = n.to_bytes_be();
        match u64::try_from(&n) {
            Ok(small) => Cbor::Nint(small),
            Err(_) => Cbor::BigNint(bytes),
        }
    } else {
        match u64::try_from(b) {
            Ok(small) => Cbor::Uint(small),
            Err(_) => Cbor::BigUint(mag),
        }
    }
}

/// Write `v` straight from the Python objects (no intermediate CBOR tree), charging one
/// element each, and per byte of strings and per item of containers before copying them.
fn write(vm: &mut Vm, v: &Value, depth: usize, out: &mut Vec<u8>) -> R<()> {
    vm.charge(cost::PER_ELEM)?;
    match v {
        Value::None => out.push(0xf6),
        Value::Bool(b) => out.push(if *b { 0xf5 } else { 0xf4 }),
        Value::Int(i) => cbor::encode_into(&Cbor::from_i128(i128::from(*i)), out),
        Value::BigInt(b) => {
            vm.charge(cost::bigint_linear(b.bits()))?;
            cbor::encode_into(&bigint_to_cbor(b), out);
        }
        Value::Float(f) => cbor::encode_into(&Cbor::Float(*f), out),
        Value::Str(s) => {
            vm.charge(cost::per_char(s.s.len()))?;
            cbor::write_text(out, &s.s);
        }
        Value::Bytes(b) => {
            vm.charge(cost::per_char(b.b.len()))?;
            cbor::write_bytes(out, &b.b);
        }
        Value::ByteArray(b) => {
            let bytes = b.b.borrow();
            vm.charge(cost::per_char(bytes.len()))?;
            cbor::write_bytes(out, &bytes);
        }
        Value::List(_) | Value::Tuple(_) => {
            if depth >= MAX_NESTING {
                return Err(too_deep(vm));
            }
            // Encoding runs no Python code, so the items cannot change while it reads them
            // (a list that holds itself is only borrowed again, to be read, and stops at
            // `MAX_NESTING`).
            let list;
            let items: &[Value] = match v {
                Value::List(l) => {
                    list = l.items.borrow();
                    &list
                }
                Value::Tuple(t) => &t.items,
                _ => &[],
            };
            vm.charge(cost::per_elem(items.len()))?;
            cbor::write_array_head(out, items.len());
            for item in items {
                write(vm, item, depth + 1, out)?;
            }
        }
        Value::Dict(d) => {
            if depth >= MAX_NESTING {
                return Err(too_deep(vm));
            }
            let table = d.table.borrow();
            let mut scratch = Vec::new();
            let mut entries = Vec::new();
            for e in table.iter() {
                let start = scratch.len();
                match &e.key {
                    Value::Str(_) | Value::Int(_) | Value::BigInt(_) | Value::Bytes(_) => {
                        write(vm, &e.key, depth + 1, &mut scratch)?
                    }
                    other => {
                        let t = vm.type_name(other);
                        return Err(vm.type_err(format!(
                            "cannot encode a dict key of type '{t}' as CBOR (keys must be str, int or bytes)"
                        )));
                    }
                }
                let key_end = scratch.len();
                write(vm, &e.value, depth + 1, &mut scratch)?;
                entries.push(cbor::MapEntry {
                    start,
                    key_end,
                    end: scratch.len(),
                });
            }
            cbor::write_map(out, &scratch, &mut entries);
        }
        other => {
            let t = vm.type_name(other);
            return Err(vm.type_err(format!("cannot encode '{t}' as CBOR")));
        }
    }
    Ok(())
}

fn decode(vm: &mut Vm, item: &Cbor, depth: usize) -> R<Value> {
    vm.charge(cost::PER_ELEM)?;
    Ok(match item {
        Cbor::Null => Value::None,
        Cbor::Bool(b) => Value::Bool(*b),
        Cbor::Float(f) => Value::Float(*f),
        Cbor::Uint(n) => match i64::try_from(*n) {
            Ok(i) => Value::Int(i),
            Err(_) => vm.int_result(BigInt::from(*n))?,
        },
        Cbor::Nint(n) => vm.int_result(-BigInt::from(*n) - 1)?,
        Cbor::BigUint(mag) => {
            vm.int_bound(mag.len() as u64 * 8)?;
            vm.int_result(BigInt::from_bytes_be(Sign::Plus, mag))?
        }
        Cbor::BigNint(mag) => {
            vm.int_bound(mag.len() as u64 * 8)?;
            vm.int_result(-BigInt::from_bytes_be(Sign::Plus, mag) - 1)?
        }
        Cbor::Text(s) => {
            vm.charge(cost::per_char(s.len()))?;
            vm.reserve(s.len() as u64)?;
            Value::str(s)
        }
        Cbor::Bytes(b) => {
            vm.charge(cost::per_char(b.len()))?;
            vm.reserve(b.len() as u64)?;
            Value::bytes(b.clone())
        }
        Cbor::Array(items) => {
            if depth >= MAX_NESTING {
                return Err(too_deep(vm));
            }
            vm.reserve((items.len() * crate::memory::SLOT) as u64)?;
            let mut out = Vec::with_capacity(items.len());
            for i in items {
                out.push(decode(vm, i, depth + 1)?);
            }
            Value::List(crate::value::rc_list(PyList::new(out)))
        }
        Cbor::Map(entries) => {
            if depth >= MAX_NESTING {
                return Err(too_deep(vm));
            }
            vm.reserve((entries.len() * 2 * crate::memory::SLOT) as u64)?;
            let d = crate::value::rc_dict(PyDict::new());
            for (k, v) in entries {
                let key = match k {
                    Cbor::Text(_)
                    | Cbor::Uint(_)
                    | Cbor::Nint(_)
                    | Cbor::BigUint(_)
                    | Cbor::BigNint(_)
                    | Cbor::Bytes(_) => decode(vm, k, depth + 1)?,
                    other => {
                        return Err(vm.type_err(format!(
                            "a CBOR map key of kind {} has no Python equivalent",
                            other.kind()
                        )))
                    }
                };
                let val = decode(vm, v, depth + 1)?;
                vm.dict_set(&d, key, val)?;
            }
            Value::Dict(d)
        }
    })
}
