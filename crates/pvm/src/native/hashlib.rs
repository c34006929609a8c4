//! `hashlib`: sha224/256/384/512, sha3_224/256/384/512, blake2b/blake2s (digest_size only)
//! and Cowboy's `keccak256` (Ethereum Keccak-256, not SHA3-256), on RustCrypto's digests.
//!
//! Behaves like CPython 3.11's `hashlib` (OpenSSL build): the `openssl_*` constructors take at
//! most one positional argument or `string=`; `blake2b`/`blake2s` are classes taking a
//! positional-only `data` and `digest_size=`; `new(name, data=b'', **kwargs)` accepts Python's
//! names and OpenSSL's case-insensitive aliases (`SHA256`, `sha-256`, `sha3-256`,
//! `blake2b512`). Hash objects are `_hashlib.HASH` / `_blake2.blake2b` / `_blake2.blake2s`
//! with `update`, `digest`, `hexdigest`, `copy`, `name`, `digest_size`, `block_size`.
//!
//! Metering (whitepaper §17.3, actor-API `hash()`: 100 cycles + 1 per byte, from the genesis
//! parameters via `HostCosts`): [`cost::hash_bytes`] per byte fed (constructor, `update`), the
//! base once per digest computed (`digest`, `hexdigest`), plus the output characters.
//! Not provided: md5, sha1, shake_*, blake2 `key`/`salt`/`person`/tree parameters,
//! `pbkdf2_hmac`, `scrypt`, `file_digest` (see LIMITATIONS.md).

use std::rc::Rc;

use blake2::digest::{Digest, Update, VariableOutput};

use super::{builtin, bytes_like, class, new_obj, state, state_mut, Body};
use crate::cost;
use crate::value::*;
use crate::vm::{Args, Vm, R};

/// The digest state.
#[derive(Clone)]
enum Algo {
    Sha224(sha2::Sha224),
    Sha256(sha2::Sha256),
    Sha384(sha2::Sha384),
    Sha512(sha2::Sha512),
    Sha3_224(sha3::Sha3_224),
    Sha3_256(sha3::Sha3_256),
    Sha3_384(sha3::Sha3_384),
    Sha3_512(sha3::Sha3_512),
    Keccak256(sha3::Keccak256),
    Blake2b(blake2::Blake2bVar),
    Blake2s(blake2::Blake2sVar),
}

/// A hash object's state.
#[derive(Clone)]
struct Hash {
    algo: Algo,
    name: &'static str,
    digest_size: usize,
    block_size: usize,
}

impl Hash {
    fn new(name: &'static str, digest_size: usize) -> Option<Hash> {
        let (algo, ds, bs) = match name {
            "sha224" => (Algo::Sha224(Default::default()), 28, 64),
            "sha256" => (Algo::Sha256(Default::default()), 32, 64),
            "sha384" => (Algo::Sha384(Default::default()), 48, 128),
            "sha512" => (Algo::Sha512(Default::default()), 64, 128),
            "sha3_224" => (Algo::Sha3_224(Default::default()), 28, 144),
            "sha3_256" => (Algo::Sha3_256(Default::default()), 32, 136),
            "sha3_384" => (Algo::Sha3_384(Default::default()), 48, 104),
            "sha3_512" => (Algo::Sha3_512(Default::default()), 64, 72),
            "keccak256" => (Algo::Keccak256(Default::default()), 32, 136),
            "blake2b" => (
                Algo::Blake2b(blake2::Blake2bVar::new(digest_size).ok()?),
                digest_size,
                128,
            ),
            "blake2s" => (
                Algo::Blake2s(blake2::Blake2sVar::new(digest_size).ok()?),
                digest_size,
                64,
            ),
            _ => return None,
        };
        Some(Hash {
            algo,
            name,
            digest_size: ds,
            block_size: bs,
        })
    }

    fn update(&mut self, data: &[u8]) {
        match &mut self.algo {
            Algo::Sha224(h) => Digest::update(h, data),
            Algo::Sha256(h) => Digest::update(h, data),
            Algo::Sha384(h) => Digest::update(h, data),
            Algo::Sha512(h) => Digest::update(h, data),
            Algo::Sha3_224(h) => Digest::update(h, data),
            Algo::Sha3_256(h) => Digest::update(h, data),
            Algo::Sha3_384(h) => Digest::update(h, data),
            Algo::Sha3_512(h) => Digest::update(h, data),
            Algo::Keccak256(h) => Digest::update(h, data),
            Algo::Blake2b(h) => Update::update(h, data),
            Algo::Blake2s(h) => Update::update(h, data),
        }
    }

    fn digest(&self) -> Vec<u8> {
        match self.algo.clone() {
            Algo::Sha224(h) => h.finalize().to_vec(),
            Algo::Sha256(h) => h.finalize().to_vec(),
            Algo::Sha384(h) => h.finalize().to_vec(),
            Algo::Sha512(h) => h.finalize().to_vec(),
            Algo::Sha3_224(h) => h.finalize().to_vec(),
            Algo::Sha3_256(h) => h.finalize().to_vec(),
            Algo::Sha3_384(h) => h.finalize().to_vec(),
            Algo::Sha3_512(h) => h.finalize().to_vec(),
            Algo::Keccak256(h) => h.finalize().to_vec(),
            Algo::Blake2b(h) => {
                let mut out = vec![0u8; self.digest_size];
                // The buffer has exactly the configured size, so this cannot fail.
                let _ = h.finalize_variable(&mut out);
                out
            }
            Algo::Blake2s(h) => {
                let mut out = vec![0u8; self.digest_size];
                let _ = h.finalize_variable(&mut out);
                out
            }
        }
    }

    /// The class's display name in messages (`HASH`, `blake2b`).
    fn owner(&self) -> &'static str {
        match self.name {
            "blake2b" => "blake2b",
            "blake2s" => "blake2s",
            _ => "HASH",
        }
    }
}

/// Classes of hash objects, kept on the module.
struct Classes {
    hash: Rc<Class>,
    blake2b: Rc<Class>,
    blake2s: Rc<Class>,
}

fn classes(vm: &mut Vm) -> R<Classes> {
    let get = |vm: &mut Vm, n: &str| -> R<Rc<Class>> {
        match vm.native_classes.get(n) {
            Some(c) => Ok(c.clone()),
            None => Err(vm.new_exc("SystemError", "hashlib is not initialised")),
        }
    };
    Ok(Classes {
        hash: get(vm, "_hashlib.HASH")?,
        blake2b: get(vm, "_blake2.blake2b")?,
        blake2s: get(vm, "_blake2.blake2s")?,
    })
}

fn class_for(vm: &mut Vm, name: &str) -> R<Rc<Class>> {
    let c = classes(vm)?;
    Ok(match name {
        "blake2b" => c.blake2b,
        "blake2s" => c.blake2s,
        _ => c.hash,
    })
}

/// The bytes of data to hash, with CPython's errors.
fn data_arg(vm: &mut Vm, v: &Value) -> R<Vec<u8>> {
    if let Some(b) = bytes_like(v) {
        return Ok(b);
    }
    if matches!(vm.type_of(v).builtin, BuiltinType::Str) {
        return Err(vm.type_err("Strings must be encoded before hashing"));
    }
    Err(vm.type_err("object supporting the buffer API required"))
}

/// Charge and feed `data` into `h`.
fn feed(vm: &mut Vm, h: &mut Hash, data: &[u8]) -> R<()> {
    vm.charge(cost::hash_bytes(vm.host_costs.hash_per_byte, data.len()))?;
    h.update(data);
    Ok(())
}

/// Build a hash object of algorithm `name` fed with `data`.
fn make(vm: &mut Vm, name: &'static str, digest_size: usize, data: Option<&Value>) -> R<Value> {
    let Some(mut h) = Hash::new(name, digest_size) else {
        return Err(vm.value_err(format!("unsupported hash type {name}")));
    };
    if let Some(d) = data {
        let bytes = data_arg(vm, d)?;
        feed(vm, &mut h, &bytes)?;
    }
    let cls = class_for(vm, name)?;
    Ok(new_obj(&cls, h))
}

/// Arguments of an `openssl_<name>(string=b'', *, usedforsecurity=True)` constructor.
fn openssl_args(vm: &mut Vm, mut a: Args, fname: &str) -> R<Option<Value>> {
    let _ = a.take_kw("usedforsecurity");
    let kw_string = a.take_kw("string");
    if let Some((k, _)) = a.kw.first() {
        return Err(vm.type_err(format!(
            "'{k}' is an invalid keyword argument for {fname}()"
        )));
    }
    if a.pos.len() > 1 {
        return Err(vm.type_err(format!(
            "{fname}() takes at most 1 positional argument ({} given)",
            a.pos.len()
        )));
    }
    match (a.pos.pop(), kw_string) {
        (Some(_), Some(_)) => Err(vm.type_err(format!(
            "argument for {fname}() given by name ('string') and position (1)"
        ))),
        (p, k) => Ok(p.or(k)),
    }
}

macro_rules! openssl_ctor {
    ($fn:ident, $name:literal) => {
        fn $fn(vm: &mut Vm, a: Args) -> R<Value> {
            let data = openssl_args(vm, a, concat!("openssl_", $name))?;
            make(vm, $name, 0, data.as_ref())
        }
    };
}
openssl_ctor!(new_sha224, "sha224");
openssl_ctor!(new_sha256, "sha256");
openssl_ctor!(new_sha384, "sha384");
openssl_ctor!(new_sha512, "sha512");
openssl_ctor!(new_sha3_224, "sha3_224");
openssl_ctor!(new_sha3_256, "sha3_256");
openssl_ctor!(new_sha3_384, "sha3_384");
openssl_ctor!(new_sha3_512, "sha3_512");

/// `hashlib.keccak256(data=b'')` (Cowboy): Ethereum's Keccak-256.
fn new_keccak256(vm: &mut Vm, a: Args) -> R<Value> {
    let data = openssl_args(vm, a, "keccak256")?;
    make(vm, "keccak256", 0, data.as_ref())
}

/// Blake2 keyword parameters accepted with their default value only.
const BLAKE2_DEFAULTS: &[&str] = &[
    "key",
    "salt",
    "person",
    "fanout",
    "depth",
    "leaf_size",
    "node_offset",
    "node_depth",
    "inner_size",
    "last_node",
];

/// `blake2b(data=b'', /, *, digest_size=64, …)` / `blake2s`.
fn blake2(vm: &mut Vm, mut a: Args, name: &'static str, max: usize) -> R<Value> {
    let _ = a.take_kw("usedforsecurity");
    let mut digest_size = max;
    if let Some(v) = a.take_kw("digest_size") {
        let n = vm.index_of(&v)?;
        if n < 1 || n as u64 > max as u64 {
            return Err(vm.value_err(format!("digest_size must be between 1 and {max} bytes")));
        }
        digest_size = n as usize;
    }
    for (k, v) in std::mem::take(&mut a.kw) {
        if !BLAKE2_DEFAULTS.contains(&&*k) {
            return Err(vm.type_err(format!("'{k}' is an invalid keyword argument for {name}()")));
        }
        let is_default = match &*k {
            "key" | "salt" | "person" => bytes_like(&v).is_some_and(|b| b.is_empty()),
            "fanout" | "depth" => matches!(v, Value::Int(1)),
            "last_node" => matches!(v, Value::Bool(false) | Value::Int(0)),
            _ => matches!(v, Value::Int(0)),
        };
        if !is_default {
            return Err(vm.value_err(format!(
                "{name}(): the '{k}' parameter is not supported by the PVM"
            )));
        }
    }
    if a.pos.len() > 1 {
        return Err(vm.type_err(format!(
            "{name}() takes at most 1 positional argument ({} given)",
            a.pos.len()
        )));
    }
    let data = a.pos.pop();
    make(vm, name, digest_size, data.as_ref())
}

fn new_blake2b(vm: &mut Vm, mut a: Args) -> R<Value> {
    // Called as the class's `__new__`: drop the class argument.
    if matches!(a.pos.first(), Some(Value::Class(_))) {
        a.pos.remove(0);
    }
    blake2(vm, a, "blake2b", 64)
}

fn new_blake2s(vm: &mut Vm, mut a: Args) -> R<Value> {
    if matches!(a.pos.first(), Some(Value::Class(_))) {
        a.pos.remove(0);
    }
    blake2(vm, a, "blake2s", 32)
}

/// Python's name for an algorithm given to `new()`, or its OpenSSL alias (case-insensitive).
fn canonical(name: &str) -> Option<&'static str> {
    const PY: &[&str] = &[
        "sha224",
        "sha256",
        "sha384",
        "sha512",
        "sha3_224",
        "sha3_256",
        "sha3_384",
        "sha3_512",
        "blake2b",
        "blake2s",
        "keccak256",
    ];
    if let Some(n) = PY.iter().find(|n| **n == name) {
        return Some(n);
    }
    Some(match name.to_ascii_lowercase().as_str() {
        "sha224" | "sha-224" | "sha2-224" => "sha224",
        "sha256" | "sha-256" | "sha2-256" => "sha256",
        "sha384" | "sha-384" | "sha2-384" => "sha384",
        "sha512" | "sha-512" | "sha2-512" => "sha512",
        "sha3-224" => "sha3_224",
        "sha3-256" => "sha3_256",
        "sha3-384" => "sha3_384",
        "sha3-512" => "sha3_512",
        "blake2b512" => "blake2b",
        "blake2s256" => "blake2s",
        _ => return None,
    })
}

/// `hashlib.new(name, data=b'', **kwargs)`.
fn new(vm: &mut Vm, mut a: Args) -> R<Value> {
    let name = match a.take_kw("name") {
        Some(n) if a.pos.is_empty() => n,
        Some(_) => {
            return Err(vm.type_err("__hash_new() got multiple values for argument 'name'"));
        }
        None if a.pos.is_empty() => {
            return Err(vm.type_err("__hash_new() missing 1 required positional argument: 'name'"));
        }
        None => a.pos.remove(0),
    };
    let data = match a.take_kw("data") {
        Some(d) if a.pos.is_empty() => Some(d),
        Some(_) => {
            return Err(vm.type_err("__hash_new() got multiple values for argument 'data'"));
        }
        None if a.pos.is_empty() => None,
        None => Some(a.pos.remove(0)),
    };
    if !a.pos.is_empty() {
        return Err(vm.type_err(format!(
            "__hash_new() takes from 1 to 2 positional arguments but {} were given",
            a.pos.len() + 2
        )));
    }
    let Value::Str(s) = &name else {
        return Err(vm.type_err("name must be a string"));
    };
    let exact_blake = matches!(&*s.s, "blake2b" | "blake2s");
    let Some(algo) = canonical(&s.s) else {
        return Err(vm.value_err(format!("unsupported hash type {}", s.s)));
    };
    if exact_blake {
        a.pos.extend(data);
        return if algo == "blake2b" {
            blake2(vm, a, "blake2b", 64)
        } else {
            blake2(vm, a, "blake2s", 32)
        };
    }
    let _ = a.take_kw("usedforsecurity");
    if let Some((k, _)) = a.kw.first() {
        return Err(vm.type_err(format!("'{k}' is an invalid keyword argument for new()")));
    }
    let size = match algo {
        "blake2b" => 64,
        "blake2s" => 32,
        _ => 0,
    };
    make(vm, algo, size, data.as_ref())
}

/// The hash state of a method's receiver.
fn this(vm: &mut Vm, a: &mut Args, method: &str) -> R<Value> {
    let v = super::receiver(vm, a, "HASH", method)?;
    if state::<Hash>(&v).is_none() {
        return Err(super::wrong_self(vm, &v, "_hashlib.HASH", method));
    }
    Ok(v)
}

fn no_args(vm: &mut Vm, a: &Args, owner: &str, method: &str) -> R<()> {
    if !a.kw.is_empty() {
        return Err(vm.type_err(format!("{owner}.{method}() takes no keyword arguments")));
    }
    if !a.pos.is_empty() {
        return Err(vm.type_err(format!(
            "{owner}.{method}() takes no arguments ({} given)",
            a.pos.len()
        )));
    }
    Ok(())
}

fn owner_of(v: &Value) -> &'static str {
    state::<Hash>(v).map(|h| h.owner()).unwrap_or("HASH")
}

fn m_update(vm: &mut Vm, mut a: Args) -> R<Value> {
    let me = this(vm, &mut a, "update")?;
    let owner = owner_of(&me);
    if !a.kw.is_empty() {
        return Err(vm.type_err(format!("{owner}.update() takes no keyword arguments")));
    }
    if a.pos.len() != 1 {
        return Err(vm.type_err(format!(
            "{owner}.update() takes exactly one argument ({} given)",
            a.pos.len()
        )));
    }
    let data = data_arg(vm, &a.pos[0])?;
    vm.charge(cost::hash_bytes(vm.host_costs.hash_per_byte, data.len()))?;
    if let Some(mut h) = state_mut::<Hash>(&me) {
        h.update(&data);
    }
    Ok(Value::None)
}

/// Charge the finalisation and compute the digest of the receiver.
fn finish(vm: &mut Vm, a: &mut Args, method: &str) -> R<Vec<u8>> {
    let me = this(vm, a, method)?;
    let owner = owner_of(&me);
    no_args(vm, a, owner, method)?;
    let ds = state::<Hash>(&me).map(|h| h.digest_size).unwrap_or(0);
    vm.charge(
        vm.host_costs
            .hash_base
            .saturating_add(cost::per_char(ds * 2)),
    )?;
    Ok(state::<Hash>(&me).map(|h| h.digest()).unwrap_or_default())
}

fn m_digest(vm: &mut Vm, mut a: Args) -> R<Value> {
    let d = finish(vm, &mut a, "digest")?;
    Ok(Value::bytes(d))
}

fn m_hexdigest(vm: &mut Vm, mut a: Args) -> R<Value> {
    let d = finish(vm, &mut a, "hexdigest")?;
    let mut s = String::with_capacity(d.len() * 2);
    for b in d {
        s.push_str(&format!("{b:02x}"));
    }
    Ok(Value::str(&s))
}

fn m_copy(vm: &mut Vm, mut a: Args) -> R<Value> {
    let me = this(vm, &mut a, "copy")?;
    let owner = owner_of(&me);
    no_args(vm, &a, owner, "copy")?;
    let Some(h) = state::<Hash>(&me).map(|h| h.clone()) else {
        return Ok(Value::None);
    };
    vm.charge(cost::per_char(h.block_size))?;
    let cls = class_for(vm, h.name)?;
    Ok(new_obj(&cls, h))
}

fn m_repr(vm: &mut Vm, mut a: Args) -> R<Value> {
    let me = this(vm, &mut a, "__repr__")?;
    let Some((name, owner)) = state::<Hash>(&me).map(|h| (h.name, h.owner())) else {
        return Ok(Value::None);
    };
    Ok(Value::str(&if owner == "HASH" {
        format!("<{name} _hashlib.HASH object>")
    } else {
        format!("<_blake2.{owner} object>")
    }))
}

fn p_name(vm: &mut Vm, mut a: Args) -> R<Value> {
    let me = this(vm, &mut a, "name")?;
    let n = state::<Hash>(&me).map(|h| h.name).unwrap_or("");
    Ok(Value::str(n))
}

fn p_digest_size(vm: &mut Vm, mut a: Args) -> R<Value> {
    let me = this(vm, &mut a, "digest_size")?;
    let n = state::<Hash>(&me).map(|h| h.digest_size).unwrap_or(0);
    Ok(Value::Int(n as i64))
}

fn p_block_size(vm: &mut Vm, mut a: Args) -> R<Value> {
    let me = this(vm, &mut a, "block_size")?;
    let n = state::<Hash>(&me).map(|h| h.block_size).unwrap_or(0);
    Ok(Value::Int(n as i64))
}

const METHODS: &[(&str, Body)] = &[
    ("update", m_update),
    ("digest", m_digest),
    ("hexdigest", m_hexdigest),
    ("copy", m_copy),
    ("__repr__", m_repr),
];
const PROPS: &[(&str, Body)] = &[
    ("name", p_name),
    ("digest_size", p_digest_size),
    ("block_size", p_block_size),
];

/// Names of the algorithms this module provides.
const ALGORITHMS: &[&str] = &[
    "sha224", "sha256", "sha384", "sha512", "sha3_224", "sha3_256", "sha3_384", "sha3_512",
    "blake2b", "blake2s",
];

/// Load `hashlib`.
pub fn load(vm: &mut Vm, name: &str) -> R<Value> {
    let hash = class(vm, "_hashlib", "HASH", vec![], METHODS, PROPS, Some(no_new))?;
    let b2b = class(
        vm,
        "_blake2",
        "blake2b",
        vec![],
        METHODS,
        PROPS,
        Some(new_blake2b),
    )?;
    let b2s = class(
        vm,
        "_blake2",
        "blake2s",
        vec![],
        METHODS,
        PROPS,
        Some(new_blake2s),
    )?;
    vm.native_classes.insert("_hashlib.HASH", hash);
    vm.native_classes.insert("_blake2.blake2b", b2b.clone());
    vm.native_classes.insert("_blake2.blake2s", b2s.clone());
    let d = rc_dict(PyDict::new());
    vm.dict_set_str(&d, "__name__", Value::str(name))?;
    let ctors: &[(&str, &str, Body)] = &[
        ("sha224", "openssl_sha224", new_sha224),
        ("sha256", "openssl_sha256", new_sha256),
        ("sha384", "openssl_sha384", new_sha384),
        ("sha512", "openssl_sha512", new_sha512),
        ("sha3_224", "openssl_sha3_224", new_sha3_224),
        ("sha3_256", "openssl_sha3_256", new_sha3_256),
        ("sha3_384", "openssl_sha3_384", new_sha3_384),
        ("sha3_512", "openssl_sha3_512", new_sha3_512),
        ("keccak256", "keccak256", new_keccak256),
        ("new", "__hash_new", new),
    ];
    for (n, shown, f) in ctors {
        vm.dict_set_str(&d, n, builtin(shown, *f))?;
    }
    vm.dict_set_str(&d, "blake2b", Value::Class(b2b))?;
    vm.dict_set_str(&d, "blake2s", Value::Class(b2s))?;
    for n in ["algorithms_guaranteed", "algorithms_available"] {
        let names = ALGORITHMS.iter().map(|a| Value::str(a)).collect();
        let s = vm.new_set(names, false)?;
        vm.dict_set_str(&d, n, s)?;
    }
    Ok(super::module(name, d))
}

/// `_hashlib.HASH()` cannot be instantiated directly.
fn no_new(vm: &mut Vm, _a: Args) -> R<Value> {
    Err(vm.type_err("cannot create '_hashlib.HASH' instances"))
}
