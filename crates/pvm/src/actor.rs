//! Running actors: the embedding API the state transition calls for every deploy and handler
//! call (whitepaper "The Cowboy Actor VM", "Accounts and State", §3; key-innovations.md §3).
//!
//! [`invoke`] runs one invocation in a fresh [`Vm`] — nothing survives between invocations but
//! what the host stores — on a VM thread with a large stack (the interpreter recurses on the
//! Rust stack). Each calling thread gets one VM thread, kept for its next invocations along
//! with its compiled-code cache (`crate::code_cache`, invisible to programs). The caller's
//! [`Host`] stays on the caller's thread: the VM thread reaches it through channels, one
//! request at a time, so the host needs neither `Send` nor `'static`, and host calls happen in
//! exactly the order the program makes them.
//!
//! One invocation:
//! 1. compile the source (a failure is [`InvokeError::Compile`] with the line) and run the
//!    module body;
//! 2. find the actor class: the one decorated with `cowboy_sdk.actor`, else a class named
//!    `Actor`;
//! 3. make an instance **without** calling `__init__`, give it `storage` (a
//!    `cowboy_sdk.Storage`) and, for a call, restore its persisted attributes;
//! 4. deploy: run `__init__(*args, **kwargs)`; call: run the public method `handler`
//!    (`async def` handlers are driven to completion; they cannot suspend);
//! 5. encode the return value, write back storage values changed in place, and persist the
//!    instance attributes (all but `storage`) as one CBOR map under the reserved key
//!    `["__attrs__"]` — an array, which no user key can be.

use std::sync::mpsc;

use cowboy_types::cbor::{self, Value as Cbor};

use crate::cbor_bridge::{from_cbor, from_cbor_bytes, to_cbor, to_cbor_bytes};
use crate::compiler::CompileError;
use crate::host::{Addr, CallContext, Host, HostCosts, HostError};
use crate::limits::Limits;
use crate::value::{PyDict, Value};
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

/// Stack of the VM thread: reserved address space, touched only as deep as the program goes.
const VM_STACK: usize = 256 << 20;

/// An invocation as sent to the VM thread (owned: the thread outlives any one call).
struct Job {
    source: String,
    filename: String,
    entry: Entry,
    limits: Limits,
    costs: HostCosts,
    ctx: CallContext,
}

/// What the VM thread sends back: a host call to serve, or the finished outcome.
enum FromVm {
    Host(Request),
    Done(InvocationOutcome),
}

/// The caller thread's handle on its VM thread.
struct Worker {
    jobs: mpsc::Sender<Job>,
    events: mpsc::Receiver<FromVm>,
    replies: mpsc::Sender<Response>,
}

impl Worker {
    fn spawn() -> std::io::Result<Worker> {
        let (jobs_tx, jobs_rx) = mpsc::channel::<Job>();
        let (events_tx, events_rx) = mpsc::channel::<FromVm>();
        let (replies_tx, replies_rx) = mpsc::channel::<Response>();
        std::thread::Builder::new()
            .name("pvm".into())
            .stack_size(VM_STACK)
            .spawn(move || {
                let replies = std::rc::Rc::new(replies_rx);
                for job in jobs_rx {
                    let remote = RemoteHost {
                        ctx: job.ctx,
                        requests: events_tx.clone(),
                        responses: replies.clone(),
                    };
                    let outcome = execute(job, remote);
                    if events_tx.send(FromVm::Done(outcome)).is_err() {
                        break;
                    }
                }
            })?;
        Ok(Worker {
            jobs: jobs_tx,
            events: events_rx,
            replies: replies_tx,
        })
    }
}

thread_local! {
    /// This thread's VM thread, started on first use and kept, with its code cache, for the
    /// next invocation.
    static WORKER: std::cell::RefCell<Option<Worker>> = const { std::cell::RefCell::new(None) };
}

/// Run one invocation against `host` (see the module docs). The host is only ever called on
/// this thread; it must not start another invocation from inside a host call.
pub fn invoke(inv: Invocation<'_>, host: &mut dyn Host) -> InvocationOutcome {
    let job = Job {
        source: inv.source.to_string(),
        filename: inv.filename.to_string(),
        entry: inv.entry,
        limits: inv.limits,
        costs: inv.costs,
        ctx: *host.context(),
    };
    WORKER.with(|slot| {
        let mut slot = slot.borrow_mut();
        if slot.is_none() {
            match Worker::spawn() {
                Ok(w) => *slot = Some(w),
                Err(e) => return internal(format!("cannot start the VM thread: {e}")),
            }
        }
        let Some(worker) = slot.as_ref() else {
            return internal("no VM thread".into());
        };
        if worker.jobs.send(job).is_err() {
            *slot = None;
            return internal("the VM thread is gone".into());
        }
        loop {
            match worker.events.recv() {
                Ok(FromVm::Host(req)) => {
                    if worker.replies.send(serve(host, req)).is_err() {
                        *slot = None;
                        return internal("the VM thread is gone".into());
                    }
                }
                Ok(FromVm::Done(outcome)) => return outcome,
                // The VM thread died (a panic: a VM bug). Start afresh next time.
                Err(_) => {
                    *slot = None;
                    return internal("the VM panicked".into());
                }
            }
        }
    })
}

fn internal(msg: String) -> InvocationOutcome {
    InvocationOutcome {
        result: Err(InvokeError::Internal(msg)),
        cycles: 0,
        stdout: String::new(),
    }
}

/// The VM thread: compile, run, and collect the outcome.
fn execute(inv: Job, host: RemoteHost) -> InvocationOutcome {
    let code = match crate::code_cache::compile(&inv.source, &inv.filename) {
        Ok(c) => c,
        Err(e) => {
            return InvocationOutcome {
                result: Err(InvokeError::Compile(e)),
                cycles: 0,
                stdout: String::new(),
            }
        }
    };
    let mut vm = Vm::new(inv.limits);
    vm.host = Some(Box::new(host));
    vm.host_costs = inv.costs;
    let result = match run_actor(&mut vm, code, &inv) {
        Ok(r) => r,
        Err(e) => Err(exc_to_error(&mut vm, e, &inv.filename)),
    };
    let outcome = InvocationOutcome {
        result,
        cycles: vm.stats.cycles,
        stdout: std::mem::take(&mut vm.stdout),
    };
    drop(vm);
    outcome
}

/// The reserved storage key of the persisted instance attributes.
pub fn attrs_key() -> Vec<u8> {
    cbor::encode(&Cbor::Array(vec![Cbor::Text("__attrs__".into())]))
}

/// Steps 1–5 of the module docs. The outer `R` carries Python exceptions and aborts; the inner
/// `Result` the failures that are not Python's.
fn run_actor(
    vm: &mut Vm,
    code: std::rc::Rc<crate::bytecode::Code>,
    inv: &Job,
) -> R<Result<Vec<u8>, InvokeError>> {
    vm.sources
        .insert(code.filename.clone(), inv.source.as_str().into());
    let globals = crate::value::rc_dict(PyDict::new());
    vm.dict_set_str(&globals, "__name__", Value::str("__main__"))?;
    let mut frame = vm.new_frame(code, globals.clone(), None, Vec::new());
    vm.run_frame(&mut frame)?;
    drop(frame);

    let cls = match find_actor_class(&globals) {
        Ok(c) => c,
        Err(msg) => return Ok(Err(InvokeError::NoActorClass(msg))),
    };
    let sdk = vm.import("cowboy_sdk")?;
    let storage_cls = vm.getattr(&sdk, "Storage")?;
    let storage = vm.call(&storage_cls, Args::default())?;
    let instance = vm.new_instance(&cls, &Args::default())?;
    let Value::Instance(inst) = &instance else {
        return Ok(Err(InvokeError::NoActorClass(
            "the actor class must be a plain Python class".into(),
        )));
    };
    inst.dict.set_str("storage", storage.clone());

    let key = attrs_key();
    let (stored_attrs, ret) = match &inv.entry {
        Entry::Deploy { args } => {
            let args = match convert_args(vm, args)? {
                Ok(a) => a,
                Err(e) => return Ok(Err(e)),
            };
            if matches!(cls.lookup("__init__"), Some(Value::Function(_))) {
                let init = vm.getattr(&instance, "__init__")?;
                let r = vm.call(&init, args)?;
                drive(vm, r)?;
            } else if !args.pos.is_empty() || !args.kw.is_empty() {
                return Err(vm.type_err(format!("{}() takes no arguments", cls.name)));
            }
            (None, Value::None)
        }
        Entry::Call { handler, args } => {
            if handler.starts_with('_') || !matches!(cls.lookup(handler), Some(Value::Function(_)))
            {
                return Ok(Err(InvokeError::NoSuchHandler(handler.clone())));
            }
            let args = match convert_args(vm, args)? {
                Ok(a) => a,
                Err(e) => return Ok(Err(e)),
            };
            let stored = crate::sdk::raw_get(vm, &key)?;
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
    vm.call_method(&storage, "_flush", Args::default())?;
    save_attrs(vm, inst, &key, stored_attrs)?;
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
    let mut map = Vec::new();
    for (k, v) in entries {
        let Value::Str(name) = &k else { continue };
        if &*name.s == "storage" {
            continue;
        }
        match to_cbor(vm, &v) {
            Ok(item) => map.push((Cbor::Text(name.s.to_string()), item)),
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
    let bytes = cbor::encode(&Cbor::Map(map));
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
                    st.traceback
                        .iter()
                        .find(|(file, _, _)| &**file == filename)
                        .map(|(_, line, _)| *line)
                }),
                _ => None,
            };
            let message = vm.str(&v).unwrap_or_default();
            let class = vm.type_name(&v);
            let traceback = match crate::render_error(vm, Exc::Py(v)) {
                crate::RunError::Uncaught { traceback, .. } => traceback,
                other => other.last_line(),
            };
            InvokeError::Python {
                class,
                message,
                line,
                traceback,
            }
        }
    }
}

/// A host call, sent from the VM thread to the caller's thread.
enum Request {
    Get(Vec<u8>),
    Set(Vec<u8>, Vec<u8>),
    Delete(Vec<u8>),
    Send(Addr, String, Vec<u8>, u128),
    Event(String, Vec<u8>),
    Transfer(Addr, u128),
    Balance(Addr),
    Randomness(Vec<u8>),
    TmpWrite(u64),
}

/// The host's answer.
enum Response {
    Get(Result<Option<Vec<u8>>, HostError>),
    Unit(Result<(), HostError>),
    Id(Result<[u8; 32], HostError>),
    Amount(Result<u128, HostError>),
}

fn serve(host: &mut dyn Host, req: Request) -> Response {
    match req {
        Request::Get(k) => Response::Get(host.storage_get(&k)),
        Request::Set(k, v) => Response::Unit(host.storage_set(&k, &v)),
        Request::Delete(k) => Response::Unit(host.storage_delete(&k)),
        Request::Send(t, h, a, v) => Response::Id(host.send_message(t, &h, &a, v)),
        Request::Event(t, d) => Response::Unit(host.emit_event(&t, &d)),
        Request::Transfer(to, v) => Response::Unit(host.transfer(to, v)),
        Request::Balance(a) => Response::Amount(host.balance(a)),
        Request::Randomness(l) => Response::Id(host.randomness(&l)),
        Request::TmpWrite(n) => Response::Unit(host.tmp_write(n)),
    }
}

/// The VM thread's end of the host channel.
struct RemoteHost {
    ctx: CallContext,
    requests: mpsc::Sender<FromVm>,
    responses: std::rc::Rc<mpsc::Receiver<Response>>,
}

fn lost() -> HostError {
    HostError::Fatal("the host channel closed".into())
}

impl RemoteHost {
    fn ask(&mut self, req: Request) -> Result<Response, HostError> {
        self.requests.send(FromVm::Host(req)).map_err(|_| lost())?;
        self.responses.recv().map_err(|_| lost())
    }
}

impl Host for RemoteHost {
    fn context(&self) -> &CallContext {
        &self.ctx
    }
    fn storage_get(&mut self, key: &[u8]) -> Result<Option<Vec<u8>>, HostError> {
        match self.ask(Request::Get(key.to_vec()))? {
            Response::Get(r) => r,
            _ => Err(lost()),
        }
    }
    fn storage_set(&mut self, key: &[u8], value: &[u8]) -> Result<(), HostError> {
        match self.ask(Request::Set(key.to_vec(), value.to_vec()))? {
            Response::Unit(r) => r,
            _ => Err(lost()),
        }
    }
    fn storage_delete(&mut self, key: &[u8]) -> Result<(), HostError> {
        match self.ask(Request::Delete(key.to_vec()))? {
            Response::Unit(r) => r,
            _ => Err(lost()),
        }
    }
    fn send_message(
        &mut self,
        target: Addr,
        handler: &str,
        args: &[u8],
        value: u128,
    ) -> Result<[u8; 32], HostError> {
        let req = Request::Send(target, handler.to_string(), args.to_vec(), value);
        match self.ask(req)? {
            Response::Id(r) => r,
            _ => Err(lost()),
        }
    }
    fn emit_event(&mut self, topic: &str, data: &[u8]) -> Result<(), HostError> {
        match self.ask(Request::Event(topic.to_string(), data.to_vec()))? {
            Response::Unit(r) => r,
            _ => Err(lost()),
        }
    }
    fn transfer(&mut self, to: Addr, amount: u128) -> Result<(), HostError> {
        match self.ask(Request::Transfer(to, amount))? {
            Response::Unit(r) => r,
            _ => Err(lost()),
        }
    }
    fn balance(&mut self, addr: Addr) -> Result<u128, HostError> {
        match self.ask(Request::Balance(addr))? {
            Response::Amount(r) => r,
            _ => Err(lost()),
        }
    }
    fn randomness(&mut self, label: &[u8]) -> Result<[u8; 32], HostError> {
        match self.ask(Request::Randomness(label.to_vec()))? {
            Response::Id(r) => r,
            _ => Err(lost()),
        }
    }
    fn tmp_write(&mut self, bytes: u64) -> Result<(), HostError> {
        match self.ask(Request::TmpWrite(bytes))? {
            Response::Unit(r) => r,
            _ => Err(lost()),
        }
    }
}
