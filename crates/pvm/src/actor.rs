//! Running actors: the embedding API the state transition calls for every deploy and handler
//! call (whitepaper "The Cowboy Actor VM", "Accounts and State", §3; key-innovations.md §3).
//!
//! [`invoke`] runs one invocation in a fresh [`Vm`] — nothing survives between invocations but
//! what the host stores — on the caller's thread, switched to a large guard-paged stack (the
//! interpreter recurses on the Rust stack). The VM calls the caller's [`Host`] directly, in
//! exactly the order the program makes host calls; the host needs neither `Send` nor
//! `'static`. The compiled-code cache (`crate::code_cache`, invisible to programs) is per
//! thread and kept for the thread's next invocations.
//!
//! One invocation:
//! 1. load the code — charged per byte and token on every invocation, whether this thread's
//!    cache holds it or not (`code_cache::load`); a failure is [`InvokeError::Compile`] with
//!    the line — and run the module body (once per compiled module and thread; later
//!    invocations replay it exactly, `crate::body_cache`);
//! 2. find the actor class: the one decorated with `cowboy_sdk.actor`, else a class named
//!    `Actor`;
//! 3. make an instance **without** calling `__init__`, give it `storage` (a
//!    `cowboy_sdk.Storage`) and, for a call, restore its persisted attributes;
//! 4. deploy: run `__init__(*args, **kwargs)`; call: run the public method `handler`
//!    (`async def` handlers are driven to completion; they cannot suspend);
//! 5. encode the return value, write back storage values changed in place, and persist the
//!    instance attributes (all but `storage`) as one CBOR map under the reserved key
//!    `["__attrs__"]` — an array, which no user key can be.

use std::collections::BTreeMap;

use cowboy_types::cbor::{self, Value as Cbor};

use crate::cbor_bridge::{from_cbor, from_cbor_bytes, to_cbor_bytes, write_cbor};
use crate::compiler::CompileError;
use crate::host::{Host, HostCosts};
use crate::limits::Limits;
use crate::value::{PyDict, Value};
use crate::vm::profile::{LineCost, LineProfile};
use crate::vm::{Abort, Args, Exc, Vm, R};

/// What to run.
#[derive(Debug, Clone, PartialEq)]
pub enum Entry {
    /// Construct the actor: run `__init__` with these arguments.
    Deploy {
        /// CBOR array (positional), map with text keys (keyword) or null (none).
        args: Cbor,
    },
    /// Run a public handler.
    Call {
        /// Method name.
        handler: String,
        /// CBOR array (positional), map with text keys (keyword) or null (none).
        args: Cbor,
    },
}

/// One invocation's inputs.
#[derive(Debug, Clone)]
pub struct Invocation<'a> {
    /// The actor's canonical source.
    pub source: &'a str,
    /// keccak256 of `source`, when the caller knows it (the chain stores code by this hash),
    /// so the compiled-code cache need not hash the source again; `None` hashes it here. A
    /// wrong hash would run the code cached under it: only pass one read with the source.
    pub code_hash: Option<[u8; 32]>,
    /// File name used in errors and tracebacks.
    pub filename: &'a str,
    /// Deploy or call.
    pub entry: Entry,
    /// Cycle budget, call depth and memory.
    pub limits: Limits,
    /// Prices of host calls.
    pub costs: HostCosts,
}

/// Why an invocation failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InvokeError {
    /// The source does not compile (syntax, unsupported or forbidden construct).
    Compile(CompileError),
    /// The module defines no actor class.
    NoActorClass(String),
    /// The handler does not exist, is private or is not a method.
    NoSuchHandler(String),
    /// The arguments are not an array, a text-keyed map or null, or do not convert.
    BadArguments(String),
    /// An uncaught Python exception.
    Python {
        /// Exception class name.
        class: String,
        /// `str(exception)`.
        message: String,
        /// Line in the actor source of the innermost frame there, if any.
        line: Option<u32>,
        /// CPython-style traceback.
        traceback: String,
    },
    /// The cycle budget ran out.
    OutOfCycles,
    /// The memory limit was exceeded.
    MemoryLimit,
    /// The host reported the cell limit exhausted.
    OutOfCells,
    /// The host failed.
    HostFailure(String),
    /// The return value cannot be encoded as CBOR.
    ReturnNotEncodable(String),
    /// The VM itself failed (a bug: a panic or no thread); deterministic, never the program's.
    Internal(String),
}

impl std::fmt::Display for InvokeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            InvokeError::Compile(e) => write!(f, "{e}"),
            InvokeError::NoActorClass(m) => write!(f, "{m}"),
            InvokeError::NoSuchHandler(h) => write!(f, "no public handler named {h:?}"),
            InvokeError::BadArguments(m) => write!(f, "bad arguments: {m}"),
            InvokeError::Python { class, message, .. } if message.is_empty() => {
                write!(f, "{class}")
            }
            InvokeError::Python { class, message, .. } => write!(f, "{class}: {message}"),
            InvokeError::OutOfCycles => write!(f, "out of cycles"),
            InvokeError::MemoryLimit => write!(f, "invocation memory limit exceeded"),
            InvokeError::OutOfCells => write!(f, "out of cells"),
            InvokeError::HostFailure(m) => write!(f, "host failure: {m}"),
            InvokeError::ReturnNotEncodable(m) => write!(f, "return value: {m}"),
            InvokeError::Internal(m) => write!(f, "internal VM error: {m}"),
        }
    }
}

impl std::error::Error for InvokeError {}

/// One invocation's result.
#[derive(Debug, Clone)]
pub struct InvocationOutcome {
    /// Canonical CBOR of the return value (`None` → null), or why it failed.
    pub result: Result<Vec<u8>, InvokeError>,
    /// Cycles charged, host calls included.
    pub cycles: u64,
    /// What `print` wrote (not part of consensus; for tooling).
    pub stdout: String,
}

/// Stack an invocation needs free: the interpreter recurses on the Rust stack; its depth is
/// bounded by the PVM's limits, and this bound leaves a wide margin above the deepest it goes.
const VM_STACK_NEEDED: usize = 128 << 20;

/// Size of a stack [`with_vm_stack`] switches to: reserved address space with a guard page,
/// touched only as deep as programs go.
const VM_STACK: usize = 256 << 20;

/// Run `f` where at least [`VM_STACK_NEEDED`] bytes of stack are free, switching to a fresh
/// [`VM_STACK`]-byte stack (one `mmap`) only if the current one has less. [`invoke`] does
/// this itself; a caller that runs many invocations (a block) wraps them all in one call so
/// they share one stack instead of mapping one each.
pub fn with_vm_stack<T>(f: impl FnOnce() -> T) -> T {
    stacker::maybe_grow(VM_STACK_NEEDED, VM_STACK, f)
}

thread_local! {
    /// Whether this thread is inside [`invoke`]: a host may not start an invocation from a
    /// host call (the VM's memory accounting is per thread).
    static ACTIVE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether this thread runs an actor's module body once and replays it after
/// (`crate::body_cache`; on unless turned off). Replays are exact, so this changes nothing but
/// speed; tests and benchmarks turn it off to compare.
pub fn set_body_cache(on: bool) {
    crate::body_cache::set_enabled(on)
}

/// How many module bodies this thread has replayed instead of running.
pub fn bodies_replayed() -> u64 {
    crate::body_cache::replayed()
}

/// Run one invocation against `host` (see the module docs).
///
/// The VM runs on the caller's thread, on a large stack ([`with_vm_stack`]), and calls `host`
/// directly: a host call is a plain function call, so storage reads and writes cost what the
/// host's work costs and nothing more (an earlier design ran the VM on its own thread and
/// paid two thread switches per host call). The host must not start another invocation from
/// inside a host call; doing so fails that inner invocation with [`InvokeError::Internal`].
/// A panic in the VM (a VM bug) is caught and reported the same way.
pub fn invoke(inv: Invocation<'_>, host: &mut dyn Host) -> InvocationOutcome {
    invoke_with(inv, host, false).0
}

/// [`invoke`], also attributing its cycles and cells to the actor's source lines
/// ([`crate::vm::profile`]); the outcome is the one [`invoke`] gives, to the cycle. For
/// traces only: the attribution costs time on every instruction.
pub fn invoke_profiled(
    inv: Invocation<'_>,
    host: &mut dyn Host,
) -> (InvocationOutcome, BTreeMap<u32, LineCost>) {
    invoke_with(inv, host, true)
}

fn invoke_with(
    inv: Invocation<'_>,
    host: &mut dyn Host,
    profiled: bool,
) -> (InvocationOutcome, BTreeMap<u32, LineCost>) {
    if ACTIVE.with(|a| a.replace(true)) {
        let refused = internal("an invocation cannot start inside a host call".into());
        return (refused, BTreeMap::new());
    }
    let outcome = with_vm_stack(|| {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            execute(&inv, host, profiled)
        }))
        .unwrap_or_else(|p| {
            let what = p
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| p.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            (
                internal(format!("the VM panicked: {what}")),
                BTreeMap::new(),
            )
        })
    });
    ACTIVE.with(|a| a.set(false));
    outcome
}

fn internal(msg: String) -> InvocationOutcome {
    InvocationOutcome {
        result: Err(InvokeError::Internal(msg)),
        cycles: 0,
        stdout: String::new(),
    }
}

/// Compile, run, and collect the outcome, with the cost of each line if `profiled`.
fn execute(
    inv: &Invocation<'_>,
    host: &mut dyn Host,
    profiled: bool,
) -> (InvocationOutcome, BTreeMap<u32, LineCost>) {
    let mut vm = Vm::new(inv.limits, &crate::modules::LIBRARY);
    let cells_at_start = host.cells_used();
    if profiled {
        vm.profile = Some(LineProfile::new(inv.filename, 0, cells_at_start));
    }
    // Loading the code is charged on every invocation, cached or not (`code_cache::load`).
    let code = match crate::code_cache::load(&mut vm, inv.source, inv.filename, true, inv.code_hash)
    {
        Ok(Ok(c)) => c,
        Ok(Err(e)) => return failed(&mut vm, InvokeError::Compile(e), cells_at_start),
        Err(e) => {
            let e = exc_to_error(&mut vm, e, inv.filename);
            return failed(&mut vm, e, cells_at_start);
        }
    };
    vm.host = Some(host);
    vm.host_costs = inv.costs;
    let mut result = match run_actor(&mut vm, code, inv) {
        Ok(r) => r,
        Err(e) => Err(exc_to_error(&mut vm, e, inv.filename)),
    };
    // Probes owed after the last instruction belong to this invocation: charge them before the
    // count is read (the next invocation's `Vm::new` would otherwise just drop them). A
    // success that cannot pay for them runs out of cycles like any other overrun.
    if let Err(e) = vm.settle_final() {
        if result.is_ok() {
            result = Err(exc_to_error(&mut vm, e, inv.filename));
        }
    }
    let cells = vm.host.as_ref().map_or(cells_at_start, |h| h.cells_used());
    let lines = line_costs(&mut vm, cells);
    let outcome = InvocationOutcome {
        result,
        cycles: vm.cycles(),
        stdout: std::mem::take(&mut vm.stdout),
    };
    drop(vm);
    (outcome, lines)
}

/// The profile's costs by line with the meters where they ended (empty if not profiled).
fn line_costs(vm: &mut Vm, cells: u64) -> BTreeMap<u32, LineCost> {
    vm.profile
        .take()
        .map_or_else(BTreeMap::new, |p| p.finish(vm.cycles(), cells))
}

/// An invocation that ended while loading its code, with the cycles the load charged (all on
/// line 0 if profiled: no actor line ran).
fn failed(vm: &mut Vm, e: InvokeError, cells: u64) -> (InvocationOutcome, BTreeMap<u32, LineCost>) {
    let lines = line_costs(vm, cells);
    let outcome = InvocationOutcome {
        result: Err(e),
        cycles: vm.cycles(),
        stdout: String::new(),
    };
    (outcome, lines)
}

/// The reserved storage key of the persisted instance attributes: the canonical CBOR of
/// `["__attrs__"]` (an array of one 9-byte text), written out so that no call encodes it.
const ATTRS_KEY: &[u8] = b"\x81\x69__attrs__";

/// Steps 1–5 of the module docs. The outer `R` carries Python exceptions and aborts; the inner
/// `Result` the failures that are not Python's.
fn run_actor(
    vm: &mut Vm,
    code: std::rc::Rc<crate::value::Code>,
    inv: &Invocation<'_>,
) -> R<Result<Vec<u8>, InvokeError>> {
    vm.sources
        .insert(code.filename.clone(), inv.source.to_owned().into());
    let globals = crate::value::rc_dict(PyDict::new());
    vm.dict_set_str(&globals, "__name__", Value::str("__main__"))?;
    // Run once per compiled module and thread, replayed after (`crate::body_cache`).
    let globals = crate::body_cache::run_body(vm, code, globals)?;

    let cls = match find_actor_class(&globals) {
        Ok(c) => c,
        Err(msg) => return Ok(Err(InvokeError::NoActorClass(msg))),
    };
    vm.actor_class = Some(cls.clone());
    let sdk = vm.import("cowboy_sdk")?;
    let storage_cls = crate::sdk::storage_class(vm)?;
    let storage = crate::sdk::storage::new(&storage_cls);
    let instance = vm.new_instance(&cls, &Args::default())?;
    let Value::Instance(inst) = &instance else {
        return Ok(Err(InvokeError::NoActorClass(
            "the actor class must be a plain Python class".into(),
        )));
    };
    inst.dict.set_str("storage", storage.clone());

    let key = ATTRS_KEY;
    let (stored_attrs, ret) = match &inv.entry {
        Entry::Deploy { args } => {
            let args = match convert_args(vm, args)? {
                Ok(a) => a,
                Err(e) => return Ok(Err(e)),
            };
            if let Some(Value::Function(f)) = cls.lookup_static("__init__") {
                let args = match canonical_address_args(vm, &f, &sdk, args)? {
                    Ok(a) => a,
                    Err(e) => return Ok(Err(e)),
                };
                let init = vm.getattr(&instance, "__init__")?;
                vm.settle()?;
                let r = vm.call(&init, args)?;
                drive(vm, r)?;
            } else if !args.pos.is_empty() || !args.kw.is_empty() {
                return Err(vm.type_err(format!("{}() takes no arguments", cls.name)));
            }
            (None, Value::None)
        }
        Entry::Call { handler, args } => {
            let func = match cls.lookup(handler) {
                Some(Value::Function(f)) if !handler.starts_with('_') => f,
                _ => return Ok(Err(InvokeError::NoSuchHandler(handler.clone()))),
            };
            let args = match convert_args(vm, args)? {
                Ok(a) => a,
                Err(e) => return Ok(Err(e)),
            };
            let args = match canonical_address_args(vm, &func, &sdk, args)? {
                Ok(a) => a,
                Err(e) => return Ok(Err(e)),
            };
            let stored = crate::sdk::raw_get(vm, key)?;
            if let Some(raw) = &stored {
                if let Value::Dict(d) = from_cbor_bytes(vm, raw)? {
                    let entries: Vec<(Value, Value)> = d
                        .table
                        .borrow()
                        .iter()
                        .map(|e| (e.key.clone(), e.value.clone()))
                        .collect();
                    for (k, v) in entries {
                        if let Value::Str(name) = k {
                            inst.dict.set_str(&name.s, v);
                        }
                    }
                }
            }
            let method = vm.getattr(&instance, handler)?;
            // The setup's memory growth is owed now, so a profile puts it on line 0 (the
            // invocation's own work) rather than on the handler's first line.
            vm.settle()?;
            let r = vm.call(&method, args)?;
            (stored, drive(vm, r)?)
        }
    };

    let encoded = match to_cbor_bytes(vm, &ret) {
        Ok(b) => b,
        Err(Exc::Py(e)) if is_type_error(vm, &e) => {
            let msg = vm.str(&e).unwrap_or_default();
            return Ok(Err(InvokeError::ReturnNotEncodable(msg)));
        }
        Err(e) => return Err(e),
    };
    crate::sdk::storage::flush(vm, &storage)?;
    save_attrs(vm, inst, key, stored_attrs)?;
    Ok(Ok(encoded))
}

fn is_type_error(vm: &Vm, e: &Value) -> bool {
    vm.exc_is(&Exc::Py(e.clone()), "TypeError")
}

/// Persist every instance attribute but `storage`, if their encoding changed.
fn save_attrs(
    vm: &mut Vm,
    inst: &crate::value::Instance,
    key: &[u8],
    stored: Option<Vec<u8>>,
) -> R<()> {
    let entries: Vec<(Value, Value)> = inst
        .dict
        .table
        .borrow()
        .iter()
        .map(|e| (e.key.clone(), e.value.clone()))
        .collect();
    // Each attribute is encoded once into one buffer; the map is written in key order.
    let mut scratch = Vec::new();
    let mut map = Vec::new();
    for (k, v) in entries {
        let Value::Str(name) = &k else { continue };
        if &*name.s == "storage" {
            continue;
        }
        let start = scratch.len();
        cbor::write_text(&mut scratch, &name.s);
        let key_end = scratch.len();
        match write_cbor(vm, &v, &mut scratch) {
            Ok(()) => map.push(cbor::MapEntry {
                start,
                key_end,
                end: scratch.len(),
            }),
            Err(Exc::Py(e)) if is_type_error(vm, &e) => {
                let msg = vm.str(&e).unwrap_or_default();
                return Err(vm.type_err(format!(
                    "actor attribute '{}' cannot be stored: {msg}",
                    name.s
                )));
            }
            Err(e) => return Err(e),
        }
    }
    if map.is_empty() && stored.is_none() {
        return Ok(());
    }
    let mut bytes = Vec::with_capacity(scratch.len() + 9);
    cbor::write_map(&mut bytes, &scratch, &mut map);
    if stored.as_deref() != Some(bytes.as_slice()) {
        crate::sdk::raw_set(vm, key, &bytes)?;
    }
    Ok(())
}

/// The class marked by `@actor` (exactly one), else the class named `Actor`.
fn find_actor_class(globals: &PyDict) -> Result<std::rc::Rc<crate::value::Class>, String> {
    let mut marked = Vec::new();
    let mut named = None;
    for e in globals.table.borrow().iter() {
        if let Value::Class(c) = &e.value {
            if c.dict.borrow().contains_key("__cowboy_actor__") {
                marked.push(c.clone());
            }
            if matches!(&e.key, Value::Str(s) if &*s.s == "Actor") {
                named = Some(c.clone());
            }
        }
    }
    match marked.len() {
        1 => Ok(marked.remove(0)),
        0 => named.ok_or_else(|| {
            "no actor class: decorate a class with @cowboy_sdk.actor or name it Actor".into()
        }),
        n => Err(format!(
            "{n} classes are decorated with @actor; a module defines exactly one actor"
        )),
    }
}

/// CBOR arguments → call arguments.
fn convert_args(vm: &mut Vm, args: &Cbor) -> R<Result<Args, InvokeError>> {
    let mut out = Args::default();
    match args {
        Cbor::Null => {}
        Cbor::Array(items) => {
            for item in items {
                match from_cbor(vm, item) {
                    Ok(v) => out.pos.push(v),
                    Err(Exc::Py(e)) => {
                        let msg = vm.str(&e).unwrap_or_default();
                        return Ok(Err(InvokeError::BadArguments(msg)));
                    }
                    Err(e) => return Err(e),
                }
            }
        }
        Cbor::Map(entries) => {
            for (k, v) in entries {
                let Cbor::Text(name) = k else {
                    return Ok(Err(InvokeError::BadArguments(
                        "keyword argument names must be text".into(),
                    )));
                };
                match from_cbor(vm, v) {
                    Ok(v) => out.kw.push((name.as_str().into(), v)),
                    Err(Exc::Py(e)) => {
                        let msg = vm.str(&e).unwrap_or_default();
                        return Ok(Err(InvokeError::BadArguments(msg)));
                    }
                    Err(e) => return Err(e),
                }
            }
        }
        other => {
            return Ok(Err(InvokeError::BadArguments(format!(
                "arguments must be an array, a map or null, not {}",
                other.kind()
            ))))
        }
    }
    Ok(Ok(out))
}

/// Is `annotation` the SDK's `Address` marker? The class itself, or its name as a string (what
/// `from __future__ import annotations` leaves).
fn is_address_annotation(annotation: &Value, marker: &Value) -> bool {
    match (annotation, marker) {
        (Value::Class(a), Value::Class(m)) => std::rc::Rc::ptr_eq(a, m),
        (Value::Str(s), _) => matches!(&*s.s, "Address" | "cowboy_sdk.Address"),
        _ => false,
    }
}

/// Step 4's argument rule: every argument bound to a parameter annotated `cowboy_sdk.Address`
/// becomes the address's canonical checksummed string (`crate::sdk::canonical_address`,
/// charged per address), so an address typed in any letter case is the same storage key as
/// `sender()`. A malformed address or a wrong mixed-case checksum is
/// [`InvokeError::BadArguments`] naming the parameter; `None` passes through (an optional
/// address). Looking at the annotations is charged one dict operation per entry.
fn canonical_address_args(
    vm: &mut Vm,
    func: &crate::value::Function,
    sdk: &Value,
    mut args: Args,
) -> R<Result<Args, InvokeError>> {
    let annotations = func.meta.borrow().annotations.clone();
    let Some(Value::Dict(annotations)) = annotations else {
        return Ok(Ok(args));
    };
    let marker = vm.getattr(sdk, "Address")?;
    let entries: Vec<(Value, Value)> = annotations
        .table
        .borrow()
        .iter()
        .map(|e| (e.key.clone(), e.value.clone()))
        .collect();
    let code = &func.code;
    // Named parameters, `self` first: positional ones, then keyword-only ones.
    let named = (code.argcount + code.kwonly) as usize;
    for (name, annotation) in entries {
        vm.charge(crate::cost::DICT_OP)?;
        let Value::Str(name) = name else { continue };
        if !is_address_annotation(&annotation, &marker) {
            continue;
        }
        let Some(index) = code.varnames[..named.min(code.varnames.len())]
            .iter()
            .position(|v| **v == *name.s)
        else {
            continue;
        };
        // Positional arguments fill the parameters after `self`.
        let slot = if index >= 1 && index < code.argcount as usize {
            args.pos.get_mut(index - 1)
        } else {
            None
        };
        let slot = match slot {
            Some(v) => Some(v),
            None => args
                .kw
                .iter_mut()
                .find(|(k, _)| **k == *name.s)
                .map(|(_, v)| v),
        };
        let Some(v) = slot else { continue };
        if matches!(v, Value::None) {
            continue;
        }
        match crate::sdk::canonical_address(vm, v) {
            Ok(canonical) => *v = canonical,
            Err(Exc::Py(e)) => {
                let msg = vm.str(&e).unwrap_or_default();
                return Ok(Err(InvokeError::BadArguments(format!(
                    "argument '{}': {msg}",
                    name.s
                ))));
            }
            Err(e) => return Err(e),
        }
    }
    Ok(Ok(args))
}

/// Run a coroutine (an `async def` handler's result) to completion; other values pass through.
/// There is no event loop, so a coroutine that would suspend is an error.
fn drive(vm: &mut Vm, v: Value) -> R<Value> {
    let Value::Generator(g) = &v else {
        return Ok(v);
    };
    if !g.coroutine {
        return Ok(v);
    }
    match vm.gen_send(g, Value::None)? {
        Err(returned) => Ok(returned),
        Ok(_) => Err(vm.new_exc(
            "RuntimeError",
            "an async handler tried to suspend; actors run async code to completion \
             without an event loop (await only other coroutines)",
        )),
    }
}

/// Map an uncaught exception or abort to the invocation error.
fn exc_to_error(vm: &mut Vm, e: Exc, filename: &str) -> InvokeError {
    match e {
        Exc::Abort(Abort::OutOfCycles) => InvokeError::OutOfCycles,
        Exc::Abort(Abort::MemoryLimit) => InvokeError::MemoryLimit,
        Exc::Abort(Abort::OutOfCells) => InvokeError::OutOfCells,
        Exc::Abort(Abort::HostFailure) => InvokeError::HostFailure("a host call failed".into()),
        Exc::Py(v) => {
            let line = match &v {
                Value::Instance(i) => i.exc.borrow().as_ref().and_then(|st| {
                    st.traceback()
                        .iter()
                        .find(|(file, _, _)| &**file == filename)
                        .map(|(_, line, _)| *line)
                }),
                _ => None,
            };
            let message = vm.str(&v).unwrap_or_default();
            let class = vm.type_name(&v);
            let traceback = vm.render_uncaught(Exc::Py(v)).traceback;
            InvokeError::Python {
                class,
                message,
                line,
                traceback,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_attrs_key_is_the_encoding_of_its_name() {
        let encoded = cbor::encode(&Cbor::Array(vec![Cbor::Text("__attrs__".into())]));
        assert_eq!(ATTRS_KEY, &encoded[..]);
    }
}
