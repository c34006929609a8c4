//! `cowboy_sdk.Storage`: the actor's persistent key/value mapping, in Rust (issue 18 item 3).
//!
//! Every invocation's actor instance gets one as `self.storage`; it was a Python class over
//! `pvm_host.storage_get`/`storage_set`/`encode`/`decode`, and its method frames and two cache
//! dicts were a third of a token transfer's instructions. Same surface and meaning:
//! - keys are `str`, `int` or `bytes` (`sdk::key_bytes`; anything else is `TypeError`), values
//!   anything canonical CBOR can hold (`TypeError` otherwise, before anything is written);
//! - a value read once is cached for the rest of the invocation, so the same object comes back
//!   and changes made to it in place (`storage["items"].append(x)`) are written back when the
//!   handler returns successfully ([`flush`]); assignment and deletion write through at once;
//! - `s[k]`, `s.get(k, default=None)`, `k in s`, `s[k] = v`, `s.set(k, v)`, `del s[k]`
//!   (`KeyError` if absent), `s.delete(k)` (no error if absent), `s.pop(k[, default])`,
//!   `s.setdefault(k, default=None)`, `repr(s)`.
//!
//! The cache is keyed by the encoded key, so two spellings of one storage key (`1` and a big
//! int equal to it) are one entry, and a key of the wrong type is refused even when an equal
//! key is cached (the Python class let `storage.get(1.0)` hit a cached `1`).
//!
//! Metering: what the Python class's host calls and codec work charged, charged the same way
//! (`storage_read`/`storage_write` from the host's prices, `cbor_bridge`'s per-byte codec
//! costs, the read value's bytes reserved), plus [`cost::DICT_OP`] per cache probe or update;
//! the interpreter's instructions of the Python methods are no longer there to charge. The
//! cache's entries are accounted memory (keys, encodings and slots).

use std::rc::Rc;

use indexmap::IndexMap;

use crate::cbor_bridge::{from_cbor_bytes, to_cbor_bytes};
use crate::cost;
use crate::memory::{Acct, SLOT};
use crate::native::{self, state, state_mut, Body};
use crate::value::*;
use crate::vm::{Args, Exc, Vm, R};

/// One touched key: as the program spelled it (for `KeyError` and flush errors), its current
/// value (`None`: absent) and the encoding storage holds for it (`None`: absent).
struct Entry {
    key: Value,
    value: Option<Value>,
    stored: Option<Vec<u8>>,
}

/// Accounted bytes of an entry besides its key's and encoding's bytes: three value slots.
const ENTRY: usize = 3 * SLOT;

/// A `Storage` object's state: every key touched this invocation, in first-touch order (the
/// order [`flush`] writes back in). `IndexMap` under the VM's own random-keyed hasher: its
/// answers and its order never depend on the hash (`value::NameBuild`).
struct Cache {
    entries: IndexMap<Vec<u8>, Entry, NameBuild>,
    /// Bytes held (keys and encodings) plus [`ENTRY`] per entry.
    acct: Acct,
}

impl Cache {
    fn put(&mut self, key_bytes: Vec<u8>, entry: Entry) {
        let mut bytes = self.acct.size();
        bytes += entry.stored.as_ref().map_or(0, Vec::len);
        // One hash of the key whether it is cached already or not.
        match self.entries.entry(key_bytes) {
            indexmap::map::Entry::Occupied(mut old) => {
                bytes -= old.get().stored.as_ref().map_or(0, Vec::len);
                *old.get_mut() = entry;
            }
            indexmap::map::Entry::Vacant(slot) => {
                bytes += ENTRY + slot.key().len();
                slot.insert(entry);
            }
        }
        self.acct.resize(bytes);
    }
}

/// The `Storage` class, built once per thread into `pvm_host` (the VM base, so immutable and
/// shared) and re-exported by `cowboy_sdk`.
pub(crate) fn make_class(vm: &mut Vm) -> R<Rc<Class>> {
    let methods: &[(&str, Body)] = &[
        ("__getitem__", m_getitem),
        ("get", m_get),
        ("__contains__", m_contains),
        ("__setitem__", m_setitem),
        ("set", m_setitem),
        ("__delitem__", m_delitem),
        ("delete", m_delete),
        ("pop", m_pop),
        ("setdefault", m_setdefault),
        ("__repr__", m_repr),
    ];
    let cls = native::class(
        vm,
        "cowboy_sdk",
        "Storage",
        vec![],
        methods,
        &[],
        Some(m_new),
    )?;
    cls.dict_mut().insert(
        "__doc__".into(),
        Value::str(
            "The actor's persistent key/value storage (keys: str, int or bytes; values: any \
             CBOR-encodable value).",
        ),
    );
    Ok(cls)
}

/// A new, empty `Storage` of class `cls`.
pub(crate) fn new(cls: &Rc<Class>) -> Value {
    native::new_obj(
        cls,
        Cache {
            entries: IndexMap::default(),
            acct: Acct::new(0),
        },
    )
}

fn m_new(vm: &mut Vm, a: Args) -> R<Value> {
    let cls = match a.pos.first() {
        Some(Value::Class(c)) => c.clone(),
        _ => return Err(vm.type_err("Storage.__new__(X): X is not a type object")),
    };
    if a.pos.len() > 1 || !a.kw.is_empty() {
        return Err(vm.type_err("Storage() takes no arguments"));
    }
    Ok(new(&cls))
}

/// The receiver and `n_min..=n_max` further positional arguments of method `name`.
fn args(
    vm: &mut Vm,
    mut a: Args,
    name: &str,
    n_min: usize,
    n_max: usize,
) -> R<(Value, Vec<Value>)> {
    let me = native::receiver(vm, &mut a, "Storage", name)?;
    if state::<Cache>(&me).is_none() {
        return Err(native::wrong_self(vm, &me, "Storage", name));
    }
    if !a.kw.is_empty() {
        return Err(vm.type_err(format!("Storage.{name}() takes no keyword arguments")));
    }
    let n = a.pos.len();
    if n < n_min || n > n_max {
        let want = if n_min == n_max {
            format!("{n_min}")
        } else {
            format!("from {n_min} to {n_max}")
        };
        return Err(vm.type_err(format!(
            "Storage.{name}() takes {want} positional arguments but {n} were given"
        )));
    }
    Ok((me, a.pos))
}

/// The value under `key` (`None`: absent), read from the host and cached on first use.
fn load(vm: &mut Vm, me: &Value, key: &Value) -> R<Option<Value>> {
    let kb = crate::sdk::key_bytes(vm, key)?;
    vm.charge(cost::DICT_OP)?;
    if let Some(e) = state::<Cache>(me).and_then(|c| c.entries.get(&kb).map(|e| e.value.clone())) {
        return Ok(e);
    }
    let raw = crate::sdk::raw_get(vm, &kb)?;
    let value = match &raw {
        Some(r) => {
            vm.reserve(r.len() as u64)?;
            Some(from_cbor_bytes(vm, r)?)
        }
        None => None,
    };
    vm.charge(cost::DICT_OP)?;
    if let Some(mut c) = state_mut::<Cache>(me) {
        let entry = Entry {
            key: key.clone(),
            value: value.clone(),
            stored: raw,
        };
        c.put(kb, entry);
    }
    Ok(value)
}

/// `storage[key] = value`: encode (refusing what CBOR cannot hold before anything changes),
/// write through, cache.
fn store(vm: &mut Vm, me: &Value, key: &Value, value: Value) -> R<()> {
    let raw = to_cbor_bytes(vm, &value)?;
    vm.reserve(raw.len() as u64)?;
    let kb = crate::sdk::key_bytes(vm, key)?;
    crate::sdk::raw_set(vm, &kb, &raw)?;
    vm.charge(cost::DICT_OP)?;
    if let Some(mut c) = state_mut::<Cache>(me) {
        let entry = Entry {
            key: key.clone(),
            value: Some(value),
            stored: Some(raw),
        };
        c.put(kb, entry);
    }
    Ok(())
}

/// Remove `key` from storage (no error if absent).
fn delete(vm: &mut Vm, me: &Value, key: &Value) -> R<()> {
    let kb = crate::sdk::key_bytes(vm, key)?;
    vm.charge(vm.host_costs.storage_write)?;
    vm.host_call(|h| h.storage_delete(&kb))?;
    vm.charge(cost::DICT_OP)?;
    if let Some(mut c) = state_mut::<Cache>(me) {
        let entry = Entry {
            key: key.clone(),
            value: None,
            stored: None,
        };
        c.put(kb, entry);
    }
    Ok(())
}

fn key_error(vm: &mut Vm, key: Value) -> Exc {
    let cls = vm.types.exc["KeyError"].clone();
    Exc::Py(vm.make_exc(&cls, vec![key]))
}

fn m_getitem(vm: &mut Vm, a: Args) -> R<Value> {
    let (me, p) = args(vm, a, "__getitem__", 1, 1)?;
    match load(vm, &me, &p[0])? {
        Some(v) => Ok(v),
        None => Err(key_error(vm, p[0].clone())),
    }
}

fn m_get(vm: &mut Vm, a: Args) -> R<Value> {
    let (me, mut p) = args(vm, a, "get", 1, 2)?;
    let default = if p.len() == 2 { p.pop() } else { None };
    Ok(load(vm, &me, &p[0])?.or(default).unwrap_or_default())
}

fn m_contains(vm: &mut Vm, a: Args) -> R<Value> {
    let (me, p) = args(vm, a, "__contains__", 1, 1)?;
    Ok(Value::Bool(load(vm, &me, &p[0])?.is_some()))
}

fn m_setitem(vm: &mut Vm, a: Args) -> R<Value> {
    let (me, mut p) = args(vm, a, "__setitem__", 2, 2)?;
    let value = p.pop().unwrap_or_default();
    store(vm, &me, &p[0], value)?;
    Ok(Value::None)
}

fn m_delitem(vm: &mut Vm, a: Args) -> R<Value> {
    let (me, p) = args(vm, a, "__delitem__", 1, 1)?;
    if load(vm, &me, &p[0])?.is_none() {
        return Err(key_error(vm, p[0].clone()));
    }
    delete(vm, &me, &p[0])?;
    Ok(Value::None)
}

fn m_delete(vm: &mut Vm, a: Args) -> R<Value> {
    let (me, p) = args(vm, a, "delete", 1, 1)?;
    delete(vm, &me, &p[0])?;
    Ok(Value::None)
}

fn m_pop(vm: &mut Vm, a: Args) -> R<Value> {
    let (me, mut p) = args(vm, a, "pop", 1, 2)?;
    let default = if p.len() == 2 { p.pop() } else { None };
    match load(vm, &me, &p[0])? {
        Some(v) => {
            delete(vm, &me, &p[0])?;
            Ok(v)
        }
        None => match default {
            Some(d) => Ok(d),
            None => Err(key_error(vm, p[0].clone())),
        },
    }
}

fn m_setdefault(vm: &mut Vm, a: Args) -> R<Value> {
    let (me, mut p) = args(vm, a, "setdefault", 1, 2)?;
    let default = if p.len() == 2 {
        p.pop().unwrap_or_default()
    } else {
        Value::None
    };
    match load(vm, &me, &p[0])? {
        Some(v) => Ok(v),
        None => {
            store(vm, &me, &p[0], default.clone())?;
            Ok(default)
        }
    }
}

fn m_repr(vm: &mut Vm, a: Args) -> R<Value> {
    args(vm, a, "__repr__", 0, 0)?;
    Ok(Value::str("<actor storage>"))
}

/// Write back the values changed in place since they were read or written: each present
/// entry, in first-touch order, is encoded again and written if its encoding differs from
/// what storage holds. A value that can no longer be encoded is a `TypeError` naming its key.
pub(crate) fn flush(vm: &mut Vm, me: &Value) -> R<()> {
    let present: Vec<(Vec<u8>, Value, Value)> = match state::<Cache>(me) {
        Some(c) => c
            .entries
            .iter()
            .filter_map(|(kb, e)| Some((kb.clone(), e.key.clone(), e.value.clone()?)))
            .collect(),
        None => return Ok(()),
    };
    for (kb, key, value) in present {
        vm.charge(cost::DICT_OP)?;
        let raw = match to_cbor_bytes(vm, &value) {
            Ok(r) => r,
            Err(Exc::Py(e)) if vm.exc_is(&Exc::Py(e.clone()), "TypeError") => {
                let msg = vm.str(&e)?;
                let k = vm.repr(&key)?;
                return Err(vm.type_err(format!("storage[{k}] can no longer be stored: {msg}")));
            }
            Err(e) => return Err(e),
        };
        vm.charge(cost::per_char(raw.len()))?;
        let same = state::<Cache>(me)
            .and_then(|c| {
                c.entries
                    .get(&kb)
                    .map(|e| e.stored.as_deref() == Some(&raw[..]))
            })
            .unwrap_or(false);
        if !same {
            crate::sdk::raw_set(vm, &kb, &raw)?;
            if let Some(mut c) = state_mut::<Cache>(me) {
                let entry = Entry {
                    key,
                    value: Some(value),
                    stored: Some(raw),
                };
                c.put(kb, entry);
            }
        }
    }
    Ok(())
}
