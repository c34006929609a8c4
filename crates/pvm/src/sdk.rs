//! `pvm_host`: the low-level host module, the only door from Python to the chain (whitepaper
//! §3 host functions, §17.3 costs). `cowboy_sdk` (src/stdlib/python/cowboy_sdk.py) builds the
//! developer surface on it; actors may also import it directly.
//!
//! Every function charges its §17.3 cycle price through `Vm::charge` *before* calling the
//! host, converts Python values to canonical CBOR with [`crate::cbor_bridge`], and turns host
//! errors into Python exceptions (catchable) or aborts (out of cells, host failure;
//! uncatchable). The module exists only while a host is attached: a plain `cowboy pvm run`
//! gets `ImportError`.
//!
//! Addresses are EIP-55 checksummed `"0x…"` strings in Python. Functions taking an address
//! accept such a string (all-lowercase or all-uppercase hex is accepted too; mixed case must be
//! a valid checksum) or 20 raw bytes. `address(a)` returns that canonical checksummed form of
//! any accepted input, so equal addresses are equal strings and equal storage keys; the actor
//! dispatch (`crate::actor`) applies it to handler parameters annotated `cowboy_sdk.Address`.

use std::rc::Rc;

use cowboy_types::Address;

use crate::cbor_bridge::{from_cbor_bytes, to_cbor_bytes};
use crate::host::checksum;
use crate::objects::native_type::{Body, NativeFn};
use crate::value::*;
use crate::vm::{Args, Exc, Vm, R};

pub(crate) mod storage;

/// Load `pvm_host` (ImportError without a host). The module is built once per thread, with the
/// VM base (`vm::Base`): it holds only native functions and constant addresses, and the shared
/// `cowboy_sdk` calls the host of whichever invocation runs it. An invocation's import copies
/// its namespace (`modules::copy_shared`) instead of building ~30 functions and hashing the
/// system addresses' checksums again.
pub fn load(vm: &mut Vm, name: &str) -> R<Value> {
    if !vm.building_base {
        return crate::modules::copy_shared(vm, name, crate::vm::SharedModule::PvmHost);
    }
    let d = rc_dict(PyDict::new());
    let fns: &[(&str, Body)] = &[
        ("storage_get", storage_get),
        ("storage_set", storage_set),
        ("storage_delete", storage_delete),
        ("encode", encode),
        ("decode", decode),
        ("sender", sender),
        ("self_address", self_address),
        ("value", value),
        ("block_info", block_info),
        ("balance", balance),
        ("send_message", send_message),
        ("emit_event", emit_event),
        ("transfer", transfer),
        ("randomness", randomness),
        ("set_timer", set_timer),
        ("cancel_timer", cancel_timer),
        ("address", address),
    ];
    for (n, f) in fns {
        vm.dict_set_str(
            &d,
            n,
            Value::Builtin(Rc::new(Builtin {
                name: (*n).into(),
                kind: NativeFn::kind(*f),
            })),
        )?;
    }
    use cowboy_types::system::{JOB_DISPATCHER, RESULT_VERIFIER, RUNNER_REGISTRY, SCHEDULER};
    for (n, a) in [
        ("SCHEDULER", SCHEDULER),
        ("RUNNER_REGISTRY", RUNNER_REGISTRY),
        ("JOB_DISPATCHER", JOB_DISPATCHER),
        ("RESULT_VERIFIER", RESULT_VERIFIER),
    ] {
        vm.dict_set_str(&d, n, address_value(a.0))?;
    }
    // `cowboy_sdk.Storage` (re-exported there): native, and built here so that it is part of
    // the shared base like the functions above.
    let storage = storage::make_class(vm)?;
    vm.dict_set_str(&d, "Storage", Value::Class(storage))?;
    vm.dict_set_str(&d, "__name__", Value::str(name))?;
    Ok(Value::Module(Rc::new(Module::new(name, d))))
}

/// The shared `Storage` class (`cowboy_sdk.Storage`), as the base built it: an actor that
/// rebinds `cowboy_sdk.Storage` in its own copy of the module does not change what
/// `self.storage` is.
pub(crate) fn storage_class(vm: &mut Vm) -> R<Rc<Class>> {
    let host = vm.shared_module(crate::vm::SharedModule::PvmHost)?;
    let cls = host.dict().get_str("Storage");
    match cls {
        Some(Value::Class(c)) => Ok(c),
        _ => Err(vm.new_exc("ImportError", "pvm_host has no Storage class")),
    }
}

/// The ImportError of a host module imported by a plain script.
pub(crate) fn no_host(vm: &mut Vm, name: &str) -> Exc {
    vm.new_exc(
        "ImportError",
        &format!("{name} needs a chain host: run the actor with `cowboy`, not as a script"),
    )
}

fn arg(vm: &mut Vm, a: &Args, i: usize, fname: &str) -> R<Value> {
    match a.pos.get(i) {
        Some(v) => Ok(v.clone()),
        None => Err(vm.type_err(format!("{fname}() missing argument {}", i + 1))),
    }
}

/// Encode a storage key: `str`, `int` or `bytes` only (so keys are unambiguous and no user key
/// can collide with the reserved array keys the SDK uses).
pub fn key_bytes(vm: &mut Vm, key: &Value) -> R<Vec<u8>> {
    match key {
        Value::Str(_) | Value::Int(_) | Value::BigInt(_) | Value::Bytes(_) => {
            to_cbor_bytes(vm, key)
        }
        other => {
            let t = vm.type_name(other);
            Err(vm.type_err(format!("storage keys must be str, int or bytes, not '{t}'")))
        }
    }
}

/// The key of a storage function's arguments: `key`, or with the optional `space` argument
/// (a `str` naming one of the SDK's own tables, e.g. its pending jobs) the array `[space,
/// key]`, which no user key (str, int or bytes) and no other reserved key (`["__attrs__"]`)
/// can be.
fn spaced_key(vm: &mut Vm, a: &Args, space_at: usize) -> R<Vec<u8>> {
    let k = arg(vm, a, 0, "storage")?;
    match a.pos.get(space_at) {
        None | Some(Value::None) => key_bytes(vm, &k),
        Some(space @ Value::Str(_)) => {
            let space = space.clone();
            key_bytes(vm, &k)?; // the same key types as a plain key
            to_cbor_bytes(vm, &Value::tuple(vec![space, k]))
        }
        Some(other) => {
            let t = vm.type_name(other);
            Err(vm.type_err(format!("a storage space must be a str, not '{t}'")))
        }
    }
}

fn bytes_arg(vm: &mut Vm, v: &Value, what: &str) -> R<Vec<u8>> {
    match v {
        Value::Bytes(b) => Ok(b.b.to_vec()),
        Value::ByteArray(b) => Ok(b.b.borrow().clone()),
        other => {
            let t = vm.type_name(other);
            Err(vm.type_err(format!("{what} must be bytes, not '{t}'")))
        }
    }
}

/// Parse an address argument (see the module docs).
pub fn address_arg(vm: &mut Vm, v: &Value) -> R<[u8; 20]> {
    match v {
        Value::Bytes(b) if b.b.len() == 20 => {
            let mut a = [0u8; 20];
            a.copy_from_slice(&b.b);
            Ok(a)
        }
        Value::Bytes(b) => Err(vm.value_err(format!("an address is 20 bytes, got {}", b.b.len()))),
        Value::Str(s) => {
            if let Some(a) = known_checksum(&s.s) {
                return Ok(a);
            }
            // The common valid spellings with one hash, the checksum [`address_value`] will
            // write next (remembered by [`checksum`]): the parse below would hash a mixed-case
            // string to check it, and the canonical form would be hashed again.
            if let Some(a) = hex_address(&s.s) {
                let digits = &s.s.as_bytes()[2..];
                let mixed = digits.iter().any(u8::is_ascii_lowercase)
                    && digits.iter().any(u8::is_ascii_uppercase);
                if !mixed || checksum(a) == s.s.as_bytes() {
                    return Ok(a);
                }
            }
            match s.s.parse::<Address>() {
                Ok(a) => Ok(a.0),
                // Quote at most an address's worth of a long string: the message is not
                // charged.
                Err(e) => {
                    let shown: String = s.s.chars().take(44).collect();
                    let more = if shown.len() < s.s.len() { "…" } else { "" };
                    Err(vm.value_err(format!("invalid address {shown:?}{more}: {e}")))
                }
            }
        }
        other => {
            let t = vm.type_name(other);
            Err(vm.type_err(format!(
                "an address must be a '0x…' str or 20 bytes, not '{t}'"
            )))
        }
    }
}

/// Cycles of [`canonical_address`]: the worst case hashes the 40 hex digits twice (checking a
/// mixed-case checksum, then writing the canonical one), priced as two `hash()` calls.
pub fn address_cost(vm: &Vm) -> u64 {
    let one = vm
        .host_costs
        .hash_base
        .saturating_add(vm.host_costs.hash_per_byte.saturating_mul(40));
    one.saturating_mul(2)
}

/// The canonical (EIP-55 checksummed) form of an address value, charged before the work. A
/// mixed-case string whose checksum is wrong is a `ValueError`.
pub fn canonical_address(vm: &mut Vm, v: &Value) -> R<Value> {
    vm.charge(address_cost(vm))?;
    let a = address_arg(vm, v)?;
    Ok(address_value(a))
}

/// `address(a)`: see [`canonical_address`].
fn address(vm: &mut Vm, a: Args) -> R<Value> {
    let v = arg(vm, &a, 0, "address")?;
    canonical_address(vm, &v)
}

fn address_value(a: [u8; 20]) -> Value {
    let s = checksum(a);
    // ASCII by construction.
    Value::str(std::str::from_utf8(&s).unwrap_or_default())
}

/// The bytes of `s` if it is exactly a checksummed form [`checksum`] remembers (what `sender()`
/// and `address()` return), so checking its mixed case needs no hash; `None` sends it down the
/// full parse, which hashes and names any error.
fn known_checksum(s: &str) -> Option<[u8; 20]> {
    let a = hex_address(s)?;
    crate::host::is_remembered_checksum(&a, s.as_bytes()).then_some(a)
}

/// The bytes of `"0x"` followed by exactly 40 hex digits of either case (no checksum check).
fn hex_address(s: &str) -> Option<[u8; 20]> {
    let digits = s.strip_prefix("0x")?.as_bytes();
    if digits.len() != 40 {
        return None;
    }
    let mut a = [0u8; 20];
    for (byte, pair) in a.iter_mut().zip(digits.chunks_exact(2)) {
        let hi = (pair[0] as char).to_digit(16)?;
        let lo = (pair[1] as char).to_digit(16)?;
        *byte = (hi * 16 + lo) as u8;
    }
    Some(a)
}

fn u128_arg(vm: &mut Vm, v: &Value, what: &str) -> R<u128> {
    let n = match v {
        Value::Int(i) if *i >= 0 => Some(*i as u128),
        Value::BigInt(b) => u128::try_from(&**b).ok(),
        Value::Bool(b) => Some(u128::from(*b)),
        Value::Int(_) => None,
        other => {
            let t = vm.type_name(other);
            return Err(vm.type_err(format!("{what} must be an int, not '{t}'")));
        }
    };
    match n {
        Some(n) => Ok(n),
        None => Err(vm.value_err(format!("{what} must be between 0 and 2**128 - 1"))),
    }
}

fn u128_value(vm: &mut Vm, n: u128) -> R<Value> {
    match i64::try_from(n) {
        Ok(i) => Ok(Value::Int(i)),
        Err(_) => vm.int_result(num_bigint::BigInt::from(n)),
    }
}

/// `storage_get(key, space=None)`: the encoded value, or None.
fn storage_get(vm: &mut Vm, a: Args) -> R<Value> {
    let key = spaced_key(vm, &a, 1)?;
    vm.charge(vm.host_costs.storage_read)?;
    match vm.host_call(|h| h.storage_get(&key))? {
        Some(v) => {
            vm.reserve(v.len() as u64)?;
            Ok(Value::bytes(v))
        }
        None => Ok(Value::None),
    }
}

/// `storage_set(key, encoded, space=None)`.
fn storage_set(vm: &mut Vm, a: Args) -> R<Value> {
    let raw = arg(vm, &a, 1, "storage_set")?;
    let key = spaced_key(vm, &a, 2)?;
    let raw = bytes_arg(vm, &raw, "the encoded value")?;
    // Only canonical CBOR may be stored: what a later read decodes must be what was meant.
    if let Err(e) = cowboy_types::cbor::decode(&raw) {
        return Err(vm.value_err(format!("storage values must be canonical CBOR: {e}")));
    }
    raw_set(vm, &key, &raw)?;
    Ok(Value::None)
}

/// Write an encoded entry (charged as a storage write).
pub fn raw_set(vm: &mut Vm, key: &[u8], raw: &[u8]) -> R<()> {
    vm.charge(vm.host_costs.storage_write)?;
    vm.host_call(|h| h.storage_set(key, raw))
}

/// Read an encoded entry (charged as a storage read).
pub fn raw_get(vm: &mut Vm, key: &[u8]) -> R<Option<Vec<u8>>> {
    vm.charge(vm.host_costs.storage_read)?;
    vm.host_call(|h| h.storage_get(key))
}

/// `storage_delete(key, space=None)`.
fn storage_delete(vm: &mut Vm, a: Args) -> R<Value> {
    let key = spaced_key(vm, &a, 1)?;
    vm.charge(vm.host_costs.storage_write)?;
    vm.host_call(|h| h.storage_delete(&key))?;
    Ok(Value::None)
}

fn encode(vm: &mut Vm, a: Args) -> R<Value> {
    let v = arg(vm, &a, 0, "encode")?;
    let bytes = to_cbor_bytes(vm, &v)?;
    vm.reserve(bytes.len() as u64)?;
    Ok(Value::bytes(bytes))
}

fn decode(vm: &mut Vm, a: Args) -> R<Value> {
    let v = arg(vm, &a, 0, "decode")?;
    let raw = bytes_arg(vm, &v, "decode() argument")?;
    from_cbor_bytes(vm, &raw)
}

fn context(vm: &mut Vm) -> R<crate::host::CallContext> {
    vm.charge(vm.host_costs.block_info)?;
    vm.host_call(|h| Ok(*h.context()))
}

fn sender(vm: &mut Vm, _a: Args) -> R<Value> {
    Ok(address_value(context(vm)?.sender))
}

fn self_address(vm: &mut Vm, _a: Args) -> R<Value> {
    Ok(address_value(context(vm)?.self_address))
}

fn value(vm: &mut Vm, _a: Args) -> R<Value> {
    let v = context(vm)?.value;
    u128_value(vm, v)
}

fn block_info(vm: &mut Vm, _a: Args) -> R<Value> {
    let b = context(vm)?.block;
    let height = u128_value(vm, u128::from(b.height))?;
    let ts = u128_value(vm, u128::from(b.timestamp_ms))?;
    let chain = u128_value(vm, u128::from(b.chain_id))?;
    Ok(Value::tuple(vec![
        height,
        ts,
        chain,
        address_value(b.proposer),
    ]))
}

fn balance(vm: &mut Vm, a: Args) -> R<Value> {
    let addr = match a.pos.first() {
        None | Some(Value::None) => context(vm)?.self_address,
        Some(v) => {
            let v = v.clone();
            vm.charge(vm.host_costs.storage_read)?;
            address_arg(vm, &v)?
        }
    };
    let b = vm.host_call(|h| h.balance(addr))?;
    u128_value(vm, b)
}

fn send_message(vm: &mut Vm, a: Args) -> R<Value> {
    let target = arg(vm, &a, 0, "send_message")?;
    let handler = arg(vm, &a, 1, "send_message")?;
    let raw = arg(vm, &a, 2, "send_message")?;
    let amount = a.pos.get(3).cloned().unwrap_or(Value::Int(0));
    let target = address_arg(vm, &target)?;
    let handler = match &handler {
        Value::Str(s) => s.s.to_string(),
        other => {
            let t = vm.type_name(other);
            return Err(vm.type_err(format!("handler must be a str, not '{t}'")));
        }
    };
    if handler.is_empty() || handler.starts_with('_') {
        return Err(vm.value_err(format!("handler {handler:?} is not a public handler name")));
    }
    let args = bytes_arg(vm, &raw, "the encoded arguments")?;
    let amount = u128_arg(vm, &amount, "value")?;
    vm.charge(vm.host_costs.send_message)?;
    let id = vm.host_call(|h| h.send_message(target, &handler, &args, amount))?;
    Ok(Value::bytes(id.to_vec()))
}

fn emit_event(vm: &mut Vm, a: Args) -> R<Value> {
    let topic = arg(vm, &a, 0, "emit_event")?;
    let raw = arg(vm, &a, 1, "emit_event")?;
    let topic = match &topic {
        Value::Str(s) => s.s.to_string(),
        other => {
            let t = vm.type_name(other);
            return Err(vm.type_err(format!("an event topic must be a str, not '{t}'")));
        }
    };
    let data = bytes_arg(vm, &raw, "the encoded event data")?;
    let per_byte = vm.host_costs.emit_event_per_byte;
    let cost = vm
        .host_costs
        .emit_event
        .saturating_add(per_byte.saturating_mul((topic.len() + data.len()) as u64));
    vm.charge(cost)?;
    vm.host_call(|h| h.emit_event(&topic, &data))?;
    Ok(Value::None)
}

fn transfer(vm: &mut Vm, a: Args) -> R<Value> {
    let to = arg(vm, &a, 0, "transfer")?;
    let amount = arg(vm, &a, 1, "transfer")?;
    let to = address_arg(vm, &to)?;
    let amount = u128_arg(vm, &amount, "amount")?;
    // Two account writes, priced like a message send (§17.3 has no separate row).
    vm.charge(vm.host_costs.send_message)?;
    vm.host_call(|h| h.transfer(to, amount))?;
    Ok(Value::None)
}

fn randomness(vm: &mut Vm, a: Args) -> R<Value> {
    let label = arg(vm, &a, 0, "randomness")?;
    let label = match &label {
        Value::Str(s) => s.s.as_bytes().to_vec(),
        Value::Bytes(b) => b.b.to_vec(),
        other => {
            let t = vm.type_name(other);
            return Err(vm.type_err(format!(
                "a randomness label must be str or bytes, not '{t}'"
            )));
        }
    };
    let cost = vm.host_costs.hash_base.saturating_add(
        vm.host_costs
            .hash_per_byte
            .saturating_mul(label.len() as u64),
    );
    vm.charge(cost)?;
    let out = vm.host_call(|h| h.randomness(&label))?;
    Ok(Value::bytes(out.to_vec()))
}

fn u64_arg(vm: &mut Vm, v: &Value, what: &str) -> R<u64> {
    let n = u128_arg(vm, v, what)?;
    u64::try_from(n).map_err(|_| vm.value_err(format!("{what} must be below 2**64")))
}

/// `set_timer(height, every, handler, data, gba)`: the one native behind `cowboy_sdk`'s
/// `set_timer` and `set_interval` (`every` = 0 for a one-shot timer; `data` already encoded).
fn set_timer(vm: &mut Vm, a: Args) -> R<Value> {
    let height = arg(vm, &a, 0, "set_timer")?;
    let every = arg(vm, &a, 1, "set_timer")?;
    let handler = arg(vm, &a, 2, "set_timer")?;
    let raw = arg(vm, &a, 3, "set_timer")?;
    let gba = a.pos.get(4).cloned().unwrap_or_default();
    let height = u64_arg(vm, &height, "the timer height")?;
    let every = u64_arg(vm, &every, "the interval")?;
    let handler = match &handler {
        Value::Str(s) => s.s.to_string(),
        other => {
            let t = vm.type_name(other);
            return Err(vm.type_err(format!("a timer handler must be a str, not '{t}'")));
        }
    };
    if handler.is_empty() || handler.starts_with('_') {
        return Err(vm.value_err(format!(
            "timer handler {handler:?} is not a public handler name"
        )));
    }
    let is_handler = vm
        .actor_class
        .as_ref()
        .is_some_and(|c| matches!(c.lookup(&handler), Some(Value::Function(_))));
    if !is_handler {
        return Err(vm.value_err(format!(
            "timer handler {handler:?} is not a method of this actor"
        )));
    }
    let data = bytes_arg(vm, &raw, "the encoded timer data")?;
    let gba = match &gba {
        Value::None => None,
        v => {
            let v = v.clone();
            Some(address_arg(vm, &v)?)
        }
    };
    let base = vm.host_costs.set_timer;
    let price = vm.host_call(|h| Ok(h.set_timer_price(base)))?;
    vm.charge(price)?;
    let request = crate::host::TimerRequest {
        height,
        every,
        handler: &handler,
        data: &data,
        gba,
    };
    let id = vm.host_call(|h| h.set_timer(&request))?;
    u128_value(vm, u128::from(id))
}

/// `cancel_timer(id)`: the refunded deposit.
fn cancel_timer(vm: &mut Vm, a: Args) -> R<Value> {
    let id = arg(vm, &a, 0, "cancel_timer")?;
    let id = u64_arg(vm, &id, "a timer id")?;
    vm.charge(vm.host_costs.cancel_timer)?;
    let refund = vm.host_call(|h| h.cancel_timer(id))?;
    u128_value(vm, refund)
}

#[cfg(test)]
mod tests {
    //! The checksum cache answers exactly what hashing answers.

    use super::*;

    /// `s` with the case of its last letter flipped (a checksum that no longer verifies, when
    /// the result is mixed-case).
    fn flip_last_letter(s: &str) -> String {
        let mut b = s.as_bytes().to_vec();
        let at = b.iter().rposition(u8::is_ascii_alphabetic).unwrap_or(2);
        b[at] ^= 0x20;
        String::from_utf8(b).unwrap_or_default()
    }

    #[test]
    fn cached_checksums_equal_computed_ones_and_recognise_only_themselves() {
        for seed in 0u8..50 {
            let a: [u8; 20] =
                std::array::from_fn(|i| seed.wrapping_mul(37).wrapping_add(i as u8 * 11));
            let fresh = Address(a).to_checksum();
            assert_eq!(&checksum(a)[..], fresh.as_bytes());
            // A hit: the cached form itself.
            assert_eq!(known_checksum(&fresh), Some(a));
            // Other spellings of the same address go down the full parse.
            let lower = fresh.to_lowercase();
            if lower != fresh {
                assert_eq!(known_checksum(&lower), None);
                let flipped = flip_last_letter(&fresh);
                assert_eq!(known_checksum(&flipped), None);
                let mixed = flipped[2..].bytes().any(|b| b.is_ascii_lowercase())
                    && flipped[2..].bytes().any(|b| b.is_ascii_uppercase());
                if mixed {
                    assert!(flipped.parse::<Address>().is_err(), "{flipped}");
                }
            }
            assert_eq!(known_checksum(&fresh[2..]), None);
            assert_eq!(known_checksum(&format!("{fresh}0")), None);
        }
    }

    #[test]
    fn address_arguments_are_accepted_exactly_when_the_parser_accepts_them() {
        // On a thread of its own, so the checksum cache starts empty; each spelling is tried
        // twice (cold, then with whatever the first try remembered).
        std::thread::spawn(|| {
            let mut vm = Vm::new(crate::limits::Limits::default(), &crate::modules::LIBRARY);
            for seed in 0u8..40 {
                let a: [u8; 20] =
                    std::array::from_fn(|i| seed.wrapping_mul(53).wrapping_add(i as u8 * 7));
                let fresh = Address(a).to_checksum();
                let flipped = flip_last_letter(&fresh);
                let spellings = [
                    fresh.clone(),
                    fresh.to_lowercase(),
                    format!("0x{}", fresh[2..].to_uppercase()),
                    flipped,
                    format!("0X{}", &fresh[2..]),
                    fresh[2..].to_string(),
                    format!("{fresh}0"),
                    format!("0x{}g", &fresh[2..41]),
                ];
                for s in spellings {
                    for _ in 0..2 {
                        let got = address_arg(&mut vm, &Value::str(&s)).ok();
                        let want = s.parse::<Address>().ok().map(|x| x.0);
                        assert_eq!(got, want, "{s}");
                    }
                }
            }
        })
        .join()
        .expect("thread");
    }
}
