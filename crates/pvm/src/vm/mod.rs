//! The interpreter (whitepaper "The Cowboy Actor VM"; metering per §17.3 / CIP-3 §2.2).
//!
//! [`Vm::exec`] is the one dispatch loop. Every instruction first calls [`Vm::charge`] with its
//! cost from [`crate::cost`]; operations whose work grows with their operands charge a
//! surcharge through the same function before doing the work. `charge` is the only place the
//! running total is compared with the budget, so a program stops at exactly the same instruction on
//! every run. Running out raises [`Abort::OutOfCycles`], which is not a Python exception: no
//! `except` clause can catch it.

pub(crate) mod call;
pub(crate) mod inline_cache;
pub(crate) mod ops;
pub mod profile;
mod uncaught;

pub use uncaught::Uncaught;

use crate::bytecode::{BinOp, CodeKind, Op};
use crate::cost;
use crate::frame::{Block, BlockKind, Frame};
use crate::limits::Limits;
use crate::objects::asyncgen;
use crate::value::*;
use indexmap::IndexMap;
use std::borrow::Cow;
use std::rc::Rc;

/// Uncatchable VM aborts: the invocation ends, no Python code runs afterwards.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Abort {
    /// The cycle budget is exhausted.
    OutOfCycles,
    /// Live memory exceeded the invocation limit.
    MemoryLimit,
    /// The host reports the transaction's cell limit exhausted.
    OutOfCells,
    /// The host failed (state I/O on the node); the invocation cannot continue.
    HostFailure,
}

/// Why execution left the normal path.
#[derive(Debug, Clone)]
pub enum Exc {
    /// A Python exception (an instance of a BaseException subclass).
    Py(Value),
    /// A VM abort.
    Abort(Abort),
}

impl Exc {
    /// An abort ends the invocation: code that catches errors to raise a different Python
    /// exception (CPython's "replace the TypeError" paths) must pass these through, or the
    /// invocation ends with a made-up Python error that a program can catch instead of the
    /// abort that stopped it (`tests/it/hostile.rs`, `aborts_pass_through_error_replacing_paths`).
    pub fn is_abort(&self) -> bool {
        matches!(self, Exc::Abort(_))
    }
}

/// Result of VM operations.
pub type R<T> = Result<T, Exc>;

/// Call arguments.
#[derive(Debug, Default, Clone)]
pub struct Args {
    /// Positional.
    pub pos: Vec<Value>,
    /// Keyword (name, value) in call order.
    pub kw: Vec<(Rc<str>, Value)>,
}

impl Args {
    /// Positional-only args.
    pub fn new(pos: Vec<Value>) -> Args {
        Args {
            pos,
            kw: Vec::new(),
        }
    }
    /// Take keyword `name` if present.
    pub fn take_kw(&mut self, name: &str) -> Option<Value> {
        let i = self.kw.iter().position(|(k, _)| &**k == name)?;
        Some(self.kw.remove(i).1)
    }
}

/// How a frame stopped.
pub enum Outcome {
    /// `return`.
    Return(Value),
    /// `yield`.
    Yield(Value),
}

/// Builtin classes the VM needs by identity.
#[allow(missing_docs)]
pub struct Types {
    pub object: Rc<Class>,
    pub type_: Rc<Class>,
    pub int: Rc<Class>,
    pub bool_: Rc<Class>,
    pub float: Rc<Class>,
    pub str_: Rc<Class>,
    pub bytes: Rc<Class>,
    pub bytearray: Rc<Class>,
    pub tuple: Rc<Class>,
    pub list: Rc<Class>,
    pub dict: Rc<Class>,
    pub set: Rc<Class>,
    pub frozenset: Rc<Class>,
    pub range: Rc<Class>,
    pub slice: Rc<Class>,
    pub none: Rc<Class>,
    pub function: Rc<Class>,
    pub builtin_function: Rc<Class>,
    pub method: Rc<Class>,
    pub generator: Rc<Class>,
    pub coroutine: Rc<Class>,
    pub async_generator: Rc<Class>,
    pub async_generator_asend: Rc<Class>,
    pub async_generator_athrow: Rc<Class>,
    pub anext_awaitable: Rc<Class>,
    pub generic_alias: Rc<Class>,
    pub traceback: Rc<Class>,
    pub iterator: Rc<Class>,
    pub module: Rc<Class>,
    pub property: Rc<Class>,
    pub classmethod: Rc<Class>,
    pub staticmethod: Rc<Class>,
    pub super_: Rc<Class>,
    pub notimpl: Rc<Class>,
    pub ellipsis: Rc<Class>,
    pub cell: Rc<Class>,
    /// `complex`: instances carry their value natively (`objects/complex.rs`).
    pub complex: Rc<Class>,
    /// Dict views.
    pub dict_keys: Rc<Class>,
    /// Dict views.
    pub dict_values: Rc<Class>,
    /// Dict views.
    pub dict_items: Rc<Class>,
    /// A read-only live view of a dict (a dict view's `.mapping`).
    pub mappingproxy: Rc<Class>,
    /// `types.UnionType` (`int | None`).
    pub union: Rc<Class>,
    /// Exception classes by name.
    pub exc: IndexMap<&'static str, Rc<Class>>,
    /// The exception classes whose instances get attributes besides `args`, held directly:
    /// every exception creation checks them, and a lookup by name for each check was a
    /// quarter of the time it took.
    pub attr_exc: AttrExcClasses,
}

/// See [`Types::attr_exc`].
pub struct AttrExcClasses {
    /// `ImportError`: `msg`, `name`, `path`.
    pub import_error: Rc<Class>,
    /// `OSError`: `errno`, `strerror`, `filename`, `filename2`.
    pub os_error: Rc<Class>,
    /// `UnicodeDecodeError`: `encoding`, `object`, `start`, `end`, `reason`.
    pub unicode_decode_error: Rc<Class>,
    /// `UnicodeEncodeError`: as `UnicodeDecodeError`.
    pub unicode_encode_error: Rc<Class>,
}

/// Counters reported after a run.
#[derive(Debug, Default, Clone, Copy)]
pub struct Stats {
    /// Cycles charged.
    pub cycles: u64,
    /// Instructions executed.
    pub instructions: u64,
}

/// What every VM of a thread starts from: the builtin classes and the builtin namespace.
///
/// Built once per thread (the first `Vm::new` there) and shared by every later invocation, so
/// an invocation does not pay to build and drop ~90 classes and a namespace of ~150 names
/// (issue 18: that was a third of an actor call). Sharing cannot change a result or a charge:
/// - every class in it is immutable ([`Class::immutable`]: stores and deletes on it raise
///   `TypeError`, as on CPython's static types) and the namespace is read-only (no program
///   can reach it to write: there is no `builtins` module), so nothing an invocation does is
///   visible to the next;
/// - it is built unaccounted, as before it was built and then the count reset, so memory
///   figures are unchanged;
/// - its objects' identity serials are fixed by creation order ([`crate::value::permanent`]),
///   so `hash(int)` is the same on a thread's first invocation and its thousandth;
/// - caches that remember a class (lookup caches, inline caches) are hints checked against
///   the class epoch and never change a charge (README, "Inline caches").
///
/// The base also holds the `pvm_host` module and the `cowboy_sdk` module (built by running its
/// body once), in the same way (see [`crate::modules::copy_shared`] for what an invocation's
/// import gets and pays).
struct Base {
    types: Rc<Types>,
    builtins: Rc<NameMap>,
    /// The shared `pvm_host`, or why it failed to build (a bug).
    pvm_host: Result<Rc<Module>, String>,
    /// The shared `cowboy_sdk`, or why its body failed (a bug in the embedded SDK).
    sdk: Result<Rc<Module>, String>,
}

/// A module of the thread's [`Base`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SharedModule {
    /// `pvm_host` (`crate::sdk`).
    PvmHost,
    /// `cowboy_sdk` (`stdlib/python/cowboy_sdk.py`).
    CowboySdk,
}

thread_local! {
    static BASE: std::cell::OnceCell<Base> = const { std::cell::OnceCell::new() };
}

/// One VM instance = one invocation. `'h` is the lifetime of the embedder's host.
pub struct Vm<'h> {
    /// Builtin classes (the thread's [`Base`], shared).
    pub types: Rc<Types>,
    /// Builtin namespace (the thread's [`Base`], shared).
    pub builtins: Rc<NameMap>,
    /// Limits.
    pub limits: Limits,
    /// The cycle budget: charging past it aborts. `u64::MAX` when unlimited (`stats.cycles`
    /// saturates there, so it is never exceeded).
    cycle_limit: u64,
    /// Counters.
    pub stats: Stats,
    /// Python call depth (plus native recursion guard depth).
    pub depth: u32,
    /// Captured stdout.
    pub stdout: String,
    /// Loaded modules.
    pub modules: IndexMap<Rc<str>, Value, NameBuild>,
    /// Source text by file name (for tracebacks). The embedded modules' sources are in the
    /// binary and are borrowed: `cowboy_sdk.py` alone is 23 KB, and copying it on every import
    /// was 8% of a token call's instructions.
    pub sources: IndexMap<Rc<str>, Cow<'static, str>, NameBuild>,
    /// Exceptions currently being handled, innermost last (for bare `raise` and `__context__`).
    pub handling: Vec<Value>,
    /// Set by re-raising ops so the frame does not add a duplicate traceback entry.
    reraise: bool,
    /// Containers whose repr is being built (by address), so a container that contains
    /// itself prints `[...]`/`{...}` as in CPython instead of recursing.
    pub(crate) repr_active: Vec<usize>,
    /// Host interface, if embedded (actors); `None` for plain scripts.
    pub host: Option<&'h mut dyn crate::host::Host>,
    /// Per-line cost attribution, only when a trace asked for it ([`profile`]).
    pub(crate) profile: Option<profile::LineProfile>,
    /// Cycle prices of host calls.
    pub host_costs: crate::host::HostCosts,
    /// The actor class of the running invocation (`crate::actor`), so host calls that name a
    /// handler (timers) can check it is one.
    pub actor_class: Option<Rc<Class>>,
    /// Classes of native modules' objects (`crate::native`), by qualified name, so their
    /// constructors find them whatever the program does to the module's namespace.
    pub native_classes: IndexMap<&'static str, Rc<Class>, NameBuild>,
    /// This invocation's `/tmp` (empty at start, gone with the VM).
    pub tmpfs: crate::tmpfs::TmpFs,
    /// Value-stack and local-slot buffers of finished frames, reused by the next calls so a
    /// Python-to-Python call allocates nothing for its frame (see `new_frame`/`recycle_frame`).
    spare_frames: Vec<(Vec<Value>, Vec<Option<Value>>)>,
    /// This VM builds the thread's [`Base`] (its objects outlive it): `pvm_host` loads without
    /// a host, and dropping the VM leaves the containers it made alone.
    pub(crate) building_base: bool,
    /// What decimal.py registered with its native core (`native::decimal::Registry`), kept
    /// opaque here so the interpreter does not depend on the module.
    pub(crate) decimal_core: Option<Rc<dyn std::any::Any>>,
}

/// Frames kept for reuse, and the largest buffer worth keeping (a frame that once held a huge
/// stack should not pin it for the rest of the invocation).
const SPARE_FRAMES: usize = 64;
const SPARE_FRAME_CAPACITY: usize = 256;

impl<'h> Vm<'h> {
    /// New VM with the given limits. Resets the thread's memory accounting.
    pub fn new(limits: Limits) -> Vm<'h> {
        let (types, builtins) = BASE.with(|b| {
            let base = b.get_or_init(|| crate::value::permanent(Vm::build_base));
            (base.types.clone(), base.builtins.clone())
        });
        crate::memory::reset(limits.memory);
        // Caches filled by the thread's earlier invocations must not make this one cheaper:
        // an inline-cache refill owes a class lookup, a hit does not (`value::new_class_epoch`).
        crate::value::new_class_epoch();
        Vm::with_base(limits, types, builtins)
    }

    /// The thread's [`Base`]: the builtin classes, the namespace that names them, and the
    /// `cowboy_sdk` module, whose body runs here once, unmetered, in a VM of its own.
    fn build_base() -> Base {
        let types = Rc::new(crate::builtins::make_types());
        let builtins = Rc::new(crate::builtins::install(&types));
        let (pvm_host, sdk) = {
            let mut vm = Vm::with_base(Limits::default(), types.clone(), builtins.clone());
            vm.building_base = true;
            // `pvm_host` first, so the SDK's own import finds this module.
            let host = vm.import("pvm_host");
            let host = Vm::base_module(&mut vm, host, "pvm_host");
            let sdk = crate::modules::load_cowboy_sdk(&mut vm, "cowboy_sdk");
            (host, Vm::base_module(&mut vm, sdk, "cowboy_sdk"))
        };
        Base {
            types,
            builtins,
            pvm_host,
            sdk,
        }
    }

    /// A module the base builder loaded, or why it failed.
    fn base_module(vm: &mut Vm, loaded: R<Value>, name: &str) -> Result<Rc<Module>, String> {
        match loaded {
            Ok(Value::Module(m)) => Ok(m),
            Ok(_) => Err(format!("{name} is not a module")),
            Err(e) => Err(format!("{:?}", vm.render_uncaught(e))),
        }
    }

    /// A module of the thread's [`Base`], shared by every invocation.
    pub(crate) fn shared_module(&mut self, which: SharedModule) -> R<Rc<Module>> {
        let m = BASE.with(|b| {
            b.get().map(|base| match which {
                SharedModule::PvmHost => base.pvm_host.clone(),
                SharedModule::CowboySdk => base.sdk.clone(),
            })
        });
        let name = match which {
            SharedModule::PvmHost => "pvm_host",
            SharedModule::CowboySdk => "cowboy_sdk",
        };
        match m {
            Some(Ok(m)) => Ok(m),
            Some(Err(why)) => {
                Err(self.new_exc("ImportError", &format!("{name} failed to build: {why}")))
            }
            None => Err(self.new_exc("ImportError", &format!("{name}: no VM base on this thread"))),
        }
    }

    fn with_base(limits: Limits, types: Rc<Types>, builtins: Rc<NameMap>) -> Vm<'h> {
        Vm {
            types,
            builtins,
            limits,
            cycle_limit: limits.cycles.unwrap_or(u64::MAX),
            stats: Stats::default(),
            depth: 0,
            stdout: String::new(),
            modules: IndexMap::default(),
            sources: IndexMap::default(),
            handling: Vec::new(),
            reraise: false,
            repr_active: Vec::new(),
            host: None,
            profile: None,
            host_costs: crate::host::HostCosts::default(),
            actor_class: None,
            native_classes: IndexMap::default(),
            tmpfs: crate::tmpfs::TmpFs::new(limits.tmp_bytes),
            spare_frames: Vec::new(),
            building_base: false,
            decimal_core: None,
        }
    }

    /// Charge `n` cycles. THE metering point: every cycle the VM spends goes through here,
    /// before the work it pays for.
    #[inline]
    pub fn charge(&mut self, n: u64) -> R<()> {
        // One running total compared with the limit: the abort happens at the first charge that
        // takes the total past the budget, and the total (reported as cycles used) includes it.
        self.stats.cycles = self.stats.cycles.saturating_add(n);
        if self.stats.cycles > self.cycle_limit {
            return Err(Exc::Abort(Abort::OutOfCycles));
        }
        Ok(())
    }

    /// Charge the work owed from below the VM (hash-table probes on name lookups,
    /// [`crate::memory::owe`]) and stop if memory went over its limit. The interpreter calls
    /// this before an instruction when the attention flag is up; table operations call it
    /// after each lookup, so a native loop of lookups pays as it goes.
    #[inline]
    pub fn settle(&mut self) -> R<()> {
        // Memory first: a run that went over the limit ends with MemoryError even when the
        // growth that took it there is more than its cycles left (`settle_final` still
        // charges that debt).
        if crate::memory::over_limit() {
            return Err(Exc::Abort(Abort::MemoryLimit));
        }
        let owed = crate::memory::take_debt();
        if owed > 0 {
            self.charge(owed)?;
        }
        Ok(())
    }

    /// Charge whatever is still owed when an invocation ends (probes of lookups after its
    /// last instruction: returning a value, persisting attributes, rendering an error), so
    /// the cycle count read next is complete. Memory is not checked again: the run's outcome
    /// stands, and the over-limit check stays where it was, at instructions.
    pub fn settle_final(&mut self) -> R<()> {
        let owed = crate::memory::take_debt();
        self.charge(owed)
    }

    /// What unpacking a tuple or list of `n` items charges: the copy the general path makes
    /// (`collect`: per element, after a memory check), then the unpack itself.
    fn charge_unpack(&mut self, n: usize) -> R<()> {
        self.charge(cost::per_elem(n))?;
        self.reserve((n as u64).saturating_mul(crate::memory::SLOT as u64))?;
        self.charge(cost::BASIC + cost::per_elem(n))
    }

    /// Cycles that can still be charged before the budget is exhausted. Work whose size is
    /// known only as it proceeds (a search stopping at its first match) bounds itself by this,
    /// then charges exactly what it did, so it never works past the budget.
    pub fn cycles_left(&self) -> u64 {
        self.cycle_limit.saturating_sub(self.stats.cycles)
    }

    /// Check that `bytes` more accounted memory fits before allocating it.
    pub fn reserve(&mut self, bytes: u64) -> R<()> {
        crate::memory::reserve(bytes).map_err(|_| Exc::Abort(Abort::MemoryLimit))
    }

    /// Enter a level of native recursion (repr/eq/hash of nested data); pair with `leave`.
    pub fn enter(&mut self) -> R<()> {
        self.depth += 1;
        if self.depth > self.limits.max_depth.saturating_mul(4).max(64) {
            self.depth -= 1;
            return Err(self.new_exc("RecursionError", "maximum recursion depth exceeded"));
        }
        Ok(())
    }
    /// Leave a level of native recursion.
    pub fn leave(&mut self) {
        self.depth -= 1;
    }

    /// Build an exception of builtin class `name` with message `msg`.
    pub fn new_exc(&mut self, name: &str, msg: &str) -> Exc {
        let cls = match self.types.exc.get(name) {
            Some(c) => c.clone(),
            None => self.types.exc["Exception"].clone(),
        };
        Exc::Py(self.make_exc(&cls, vec![Value::str(msg)]))
    }
    /// Exception with no args.
    pub fn new_exc_noargs(&mut self, name: &str) -> Exc {
        let cls = self.types.exc[name].clone();
        Exc::Py(self.make_exc(&cls, vec![]))
    }
    /// `NameError: name 'x' is not defined`, with the `name` attribute set as in CPython.
    pub fn name_error(&mut self, name: &str) -> Exc {
        let e = self.new_exc("NameError", &format!("name '{name}' is not defined"));
        if let Exc::Py(Value::Instance(i)) = &e {
            i.dict.set_str("name", Value::str(name));
        }
        e
    }
    /// TypeError shortcut.
    pub fn type_err(&mut self, msg: impl AsRef<str>) -> Exc {
        self.new_exc("TypeError", msg.as_ref())
    }
    /// ValueError shortcut.
    pub fn value_err(&mut self, msg: impl AsRef<str>) -> Exc {
        self.new_exc("ValueError", msg.as_ref())
    }
    /// Instantiate an exception class with args (no user __init__ is run).
    pub fn make_exc(&mut self, cls: &Rc<Class>, args: Vec<Value>) -> Value {
        let inst = Instance::new(cls.clone());
        crate::builtins::set_exc_args(self, &inst, args);
        *inst.exc.borrow_mut() = Some(Box::default());
        Value::Instance(crate::value::rc_inst(inst))
    }
    /// Is `e` an instance of builtin exception `name`.
    pub fn exc_is(&self, e: &Exc, name: &str) -> bool {
        match (e, self.types.exc.get(name)) {
            (Exc::Py(Value::Instance(i)), Some(c)) => i.cls().is_subclass(c),
            _ => false,
        }
    }

    /// Run a module code object as `__main__`.
    pub fn run_main(&mut self, code: Rc<crate::bytecode::Code>, source: &str) -> R<Value> {
        self.sources
            .insert(code.filename.clone(), Cow::Owned(source.into()));
        let globals = crate::value::rc_dict(PyDict::new());
        self.dict_set_str(&globals, "__name__", Value::str("__main__"))?;
        let mut f = self.new_frame(code, globals, None, &[]);
        match self.run_frame(&mut f)? {
            Outcome::Return(v) | Outcome::Yield(v) => Ok(v),
        }
    }

    /// Fresh frame for `code`.
    pub fn new_frame(
        &mut self,
        code: Rc<crate::bytecode::Code>,
        globals: Rc<PyDict>,
        ns: Option<Rc<PyDict>>,
        closure: &[Rc<PyCell>],
    ) -> Frame {
        // One allocation for the frame's own cells and the closure's, none when both are empty.
        let mut cells: Vec<Rc<PyCell>> = Vec::with_capacity(code.cellvars.len() + closure.len());
        cells.extend(
            code.cellvars
                .iter()
                .map(|_| crate::value::rc_cell(PyCell::default())),
        );
        cells.extend_from_slice(closure);
        let (stack, mut locals) = self
            .spare_frames
            .pop()
            .unwrap_or_else(|| (Vec::with_capacity(8), Vec::new()));
        locals.resize(code.varnames.len(), None);
        Frame {
            locals,
            stack,
            code,
            pc: 0,
            cells,
            globals,
            ns,
            blocks: Vec::new(),
            started: false,
        }
    }

    /// Give a finished frame's buffers back for reuse. Its remaining values are dropped here,
    /// exactly where dropping the frame would have dropped them.
    pub fn recycle_frame(&mut self, f: &mut Frame) {
        let mut stack = std::mem::take(&mut f.stack);
        let mut locals = std::mem::take(&mut f.locals);
        stack.clear();
        locals.clear();
        if self.spare_frames.len() < SPARE_FRAMES
            && stack.capacity() <= SPARE_FRAME_CAPACITY
            && locals.capacity() <= SPARE_FRAME_CAPACITY
        {
            self.spare_frames.push((stack, locals));
        }
    }

    /// Run a frame until it returns or yields, handling exceptions with its block stack.
    pub fn run_frame(&mut self, f: &mut Frame) -> R<Outcome> {
        loop {
            match self.exec(f) {
                Ok(o) => return Ok(o),
                Err(Exc::Py(e)) => {
                    if !std::mem::take(&mut self.reraise) {
                        self.add_traceback(&e, f);
                    }
                    if !self.unwind(f, e.clone()) {
                        return Err(Exc::Py(e));
                    }
                }
                Err(abort) => return Err(abort),
            }
        }
    }

    /// Record that exception `e` unwound through frame `f`.
    pub(crate) fn add_traceback(&mut self, e: &Value, f: &Frame) {
        if let Value::Instance(i) = e {
            if let Some(st) = i.exc.borrow_mut().as_mut() {
                st.push_traceback((f.code.filename.clone(), f.line(), f.code.name.clone()));
            }
        }
    }

    /// Find a handler in `f` for `e`; set up the frame to run it. False if none.
    fn unwind(&mut self, f: &mut Frame, e: Value) -> bool {
        while let Some(b) = f.blocks.pop() {
            match b.kind {
                BlockKind::Handler => {
                    // Leaving a handler by an exception: it is no longer being handled.
                    self.handling.pop();
                }
                BlockKind::Except | BlockKind::Finally => {
                    f.stack.truncate(b.depth as usize);
                    // The exception being handled while this one was raised becomes its context.
                    f.blocks.push(Block {
                        kind: BlockKind::Handler,
                        handler: 0,
                        depth: b.depth,
                        exc: Some(e.clone()),
                    });
                    self.handling.push(e.clone());
                    f.stack.push(e);
                    f.pc = b.handler as usize;
                    return true;
                }
            }
        }
        false
    }

    /// Raise `e` (an exception instance or class), setting `__context__`.
    pub fn raise_value(&mut self, e: Value, cause: Option<Value>) -> Exc {
        let e = match e {
            Value::Class(c) if c.is_subclass(&self.types.exc["BaseException"]) => {
                match self.call(&Value::Class(c), Args::default()) {
                    Ok(v) => v,
                    Err(x) => return x,
                }
            }
            v => v,
        };
        let ok = matches!(&e, Value::Instance(i) if i.exc.borrow().is_some());
        if !ok {
            return self.type_err("exceptions must derive from BaseException");
        }
        let cause_ok = match &cause {
            None | Some(Value::None) => true,
            Some(Value::Instance(i)) => i.exc.borrow().is_some(),
            Some(_) => false,
        };
        if !cause_ok {
            return self.type_err("exception causes must derive from BaseException");
        }
        if let Value::Instance(i) = &e {
            let ctx = self.handling.last().cloned();
            if let Some(st) = i.exc.borrow_mut().as_mut() {
                if let Some(c) = ctx {
                    if !c.is(&e) && st.context.is_none() {
                        st.context = Some(c);
                    }
                }
                if let Some(c) = cause {
                    st.suppress = true;
                    st.cause = if c.is_none() { None } else { Some(c) };
                }
            }
        }
        Exc::Py(e)
    }

    /// Replace the two top values, both inline (int or float: nothing to drop), by `v`: the
    /// arithmetic fast paths work in place on the value stack.
    #[inline(always)]
    fn replace_top2(f: &mut Frame, v: Value) {
        let n = f.stack.len();
        debug_assert!(n >= 2 && !f.stack[n - 2].is_heap() && !f.stack[n - 1].is_heap());
        // Forgetting an inline value releases nothing: it owns no heap memory.
        std::mem::forget(f.stack.pop());
        std::mem::forget(std::mem::replace(&mut f.stack[n - 2], v));
    }

    fn pop(f: &mut Frame) -> Value {
        f.stack.pop().unwrap_or(Value::None)
    }
    fn top(f: &Frame) -> &Value {
        f.stack.last().unwrap_or(&Value::None)
    }

    /// The dispatch loop.
    fn exec(&mut self, f: &mut Frame) -> R<Outcome> {
        let code = f.code.clone();
        // The instruction slice stays in registers across the loop (the `Rc<Code>` is held).
        let ops: &[Op] = &code.ops;
        loop {
            let pc = f.pc;
            let Some(&op) = ops.get(pc) else {
                return Ok(Outcome::Return(Value::None));
            };
            f.pc = pc + 1;
            self.stats.instructions += 1;
            if let Some(profile) = self.profile.as_mut() {
                let cells = self.host.as_ref().map_or(0, |h| h.cells_used());
                profile.at(&code, pc, self.stats.cycles, cells);
            }
            if crate::memory::attention() {
                self.settle()?;
            }
            match op {
                Op::Nop => self.charge(cost::BASIC)?,
                Op::Pop => {
                    self.charge(cost::BASIC)?;
                    f.stack.pop();
                }
                Op::Dup => {
                    self.charge(cost::BASIC)?;
                    let v = Self::top(f).clone();
                    f.stack.push(v);
                }
                Op::Dup2 => {
                    self.charge(cost::BASIC)?;
                    let n = f.stack.len();
                    if n >= 2 {
                        let a = f.stack[n - 2].clone();
                        let b = f.stack[n - 1].clone();
                        f.stack.push(a);
                        f.stack.push(b);
                    }
                }
                Op::Rot2 => {
                    self.charge(cost::BASIC)?;
                    let n = f.stack.len();
                    if n >= 2 {
                        f.stack.swap(n - 1, n - 2);
                    }
                }
                Op::Rot3 => {
                    self.charge(cost::BASIC)?;
                    let v = Self::pop(f);
                    let n = f.stack.len();
                    f.stack.insert(n.saturating_sub(2), v);
                }
                Op::Rot4 => {
                    self.charge(cost::BASIC)?;
                    let v = Self::pop(f);
                    let n = f.stack.len();
                    f.stack.insert(n.saturating_sub(3), v);
                }
                Op::LoadConst(i) => {
                    self.charge(cost::BASIC)?;
                    f.stack.push(code.consts[i as usize].clone());
                }
                Op::LoadNone => {
                    self.charge(cost::BASIC)?;
                    f.stack.push(Value::None);
                }
                Op::LoadFast(i) => {
                    self.charge(cost::BASIC)?;
                    match &f.locals[i as usize] {
                        Some(v) => f.stack.push(v.clone_inline()),
                        None => {
                            let n = code.varnames[i as usize].clone();
                            return Err(self.new_exc(
                                "UnboundLocalError",
                                &format!("cannot access local variable '{n}' where it is not associated with a value"),
                            ));
                        }
                    }
                }
                Op::StoreFast(i) => {
                    self.charge(cost::BASIC)?;
                    f.locals[i as usize] = Some(Self::pop(f));
                }
                Op::DeleteFast(i) => {
                    self.charge(cost::BASIC)?;
                    if f.locals[i as usize].take().is_none() {
                        let n = code.varnames[i as usize].clone();
                        return Err(self.new_exc(
                            "UnboundLocalError",
                            &format!("cannot access local variable '{n}' where it is not associated with a value"),
                        ));
                    }
                }
                Op::LoadDeref(i) | Op::LoadClosure(i) => {
                    self.charge(cost::BASIC)?;
                    let cell = f.cells[i as usize].clone();
                    if matches!(op, Op::LoadClosure(_)) {
                        f.stack.push(Value::Cell(cell));
                    } else {
                        let v = cell.v.borrow().clone();
                        match v {
                            Some(v) => f.stack.push(v),
                            None => {
                                let n = self.cell_name(&code, i);
                                return Err(self.new_exc(
                                    "NameError",
                                    &format!("cannot access free variable '{n}' where it is not associated with a value in enclosing scope"),
                                ));
                            }
                        }
                    }
                }
                Op::StoreDeref(i) => {
                    self.charge(cost::BASIC)?;
                    let v = Self::pop(f);
                    *f.cells[i as usize].v.borrow_mut() = Some(v);
                }
                Op::DeleteDeref(i) => {
                    self.charge(cost::BASIC)?;
                    *f.cells[i as usize].v.borrow_mut() = None;
                }
                Op::LoadGlobal(i) => {
                    self.charge(cost::GLOBAL)?;
                    let (name, c) = (&code.names[i as usize], &code.name_caches[i as usize]);
                    let v = self.load_global_cached(&f.globals, name, c)?;
                    f.stack.push(v);
                }
                Op::StoreGlobal(i) => {
                    self.charge(cost::GLOBAL)?;
                    self.check_writable(&f.globals)?;
                    let v = Self::pop(f);
                    f.globals.set_name(&code.names[i as usize], v);
                }
                Op::DeleteGlobal(i) => {
                    self.charge(cost::GLOBAL)?;
                    let g = f.globals.clone();
                    let name = code.names[i as usize].clone();
                    if self.dict_del(&g, &Value::Str(name.clone()))?.is_none() {
                        return Err(self.name_error(&name.s));
                    }
                }
                Op::LoadName(i) => {
                    self.charge(cost::GLOBAL)?;
                    let name = &code.names[i as usize];
                    if let Some(v) = f.ns.as_ref().and_then(|ns| ns.get_name(name)) {
                        f.stack.push(v);
                        continue;
                    }
                    let v =
                        self.load_global_cached(&f.globals, name, &code.name_caches[i as usize])?;
                    f.stack.push(v);
                }
                Op::LoadClassDeref(i, c) => {
                    self.charge(cost::GLOBAL)?;
                    let name = &code.names[i as usize];
                    if let Some(v) = f.ns.as_ref().and_then(|ns| ns.get_name(name)) {
                        f.stack.push(v);
                        continue;
                    }
                    let v = f.cells[c as usize].v.borrow().clone();
                    match v {
                        Some(v) => f.stack.push(v),
                        None => return Err(self.name_error(&name.s)),
                    }
                }
                Op::StoreName(i) => {
                    self.charge(cost::GLOBAL)?;
                    let v = Self::pop(f);
                    f.ns.as_ref()
                        .unwrap_or(&f.globals)
                        .set_name(&code.names[i as usize], v);
                }
                Op::DeleteName(i) => {
                    self.charge(cost::GLOBAL)?;
                    let ns = f.ns.clone().unwrap_or_else(|| f.globals.clone());
                    let name = code.names[i as usize].clone();
                    if self.dict_del(&ns, &Value::Str(name.clone()))?.is_none() {
                        return Err(self.name_error(&name.s));
                    }
                }
                Op::LoadAttr(i) => {
                    self.charge(cost::ATTR)?;
                    let o = Self::pop(f);
                    let (name, c) = (&code.names[i as usize], &code.name_caches[i as usize]);
                    let v = self.load_attr_cached(&o, name, c)?;
                    f.stack.push(v);
                }
                Op::StoreAttr(i) => {
                    self.charge(cost::ATTR)?;
                    let o = Self::pop(f);
                    let v = Self::pop(f);
                    let (name, c) = (&code.names[i as usize], &code.name_caches[i as usize]);
                    self.store_attr_cached(&o, name, c, v)?;
                }
                Op::DeleteAttr(i) => {
                    self.charge(cost::ATTR)?;
                    let o = Self::pop(f);
                    self.delattr(&o, &code.names[i as usize].s)?;
                }
                Op::CallMethod(i, argc) => {
                    self.charge(cost::CALL)?;
                    let n = f.stack.len() - argc as usize;
                    // `obj.method(args…)` on an instance whose class defines a plain function
                    // `method` (and whose own dict does not shadow it): the same lookup as
                    // `call_method`, then a direct call with `obj` as the first argument.
                    let (name, c) = (&code.names[i as usize], &code.name_caches[i as usize]);
                    let direct = match n.checked_sub(1) {
                        Some(recv) => self
                            .method_cached(&f.stack[recv], name, c)
                            .filter(|func| func.code.takes_exactly(argc + 1)),
                        None => None,
                    };
                    if let Some(func) = direct {
                        let v = self.call_positional(&func, &mut f.stack, n, true)?;
                        f.stack.push(v);
                        continue;
                    }
                    // A builtin method of a builtin value (`xs.append(x)`, `d.get(k)`): the
                    // lookup `call_method` makes first is remembered per receiver kind.
                    if n > 0 && self.builtin_method_cached(&f.stack[n - 1], name, c) {
                        let args: Vec<Value> = f.stack.split_off(n);
                        let o = Self::pop(f);
                        let v = crate::objects::call_method(self, &o, &name.s, Args::new(args))?;
                        f.stack.push(v);
                        continue;
                    }
                    let args: Vec<Value> = f.stack.split_off(n);
                    let o = Self::pop(f);
                    let v = self.call_method(&o, &code.names[i as usize].s, Args::new(args))?;
                    f.stack.push(v);
                }
                Op::Subscr => {
                    self.charge(cost::LIST_OP)?;
                    if let Some(v) = ops::fast_subscr(&f.stack) {
                        // The index is an int (nothing to drop); the container's reference goes.
                        std::mem::forget(f.stack.pop());
                        if let Some(top) = f.stack.last_mut() {
                            *top = v;
                        }
                        continue;
                    }
                    let k = Self::pop(f);
                    let o = Self::pop(f);
                    let v = self.getitem(&o, &k)?;
                    f.stack.push(v);
                }
                Op::StoreSubscr => {
                    self.charge(cost::LIST_OP)?;
                    if ops::fast_store_subscr(&mut f.stack) {
                        continue;
                    }
                    let k = Self::pop(f);
                    let o = Self::pop(f);
                    let v = Self::pop(f);
                    self.setitem(&o, k, v)?;
                }
                Op::DeleteSubscr => {
                    self.charge(cost::LIST_OP)?;
                    let k = Self::pop(f);
                    let o = Self::pop(f);
                    self.delitem(&o, k)?;
                }
                Op::Binary(b) | Op::Inplace(b) => {
                    self.charge(cost::ARITH)?;
                    if let Some(z) = ops::fast_binary(&f.stack, b) {
                        Self::replace_top2(f, z);
                        continue;
                    }
                    if op == Op::Inplace(BinOp::Add) && self.str_append_in_place(f)? {
                        continue;
                    }
                    let r = Self::pop(f);
                    let l = Self::pop(f);
                    let v = self.binary_op(&l, &r, b, matches!(op, Op::Inplace(_)))?;
                    f.stack.push(v);
                }
                Op::Compare(c) => {
                    self.charge(cost::ARITH)?;
                    if let Some(z) = ops::fast_compare(&f.stack, c) {
                        Self::replace_top2(f, z);
                        continue;
                    }
                    let r = Self::pop(f);
                    let l = Self::pop(f);
                    let v = self.compare(&l, &r, c)?;
                    f.stack.push(v);
                }
                Op::Is(neg) => {
                    self.charge(cost::ARITH)?;
                    let r = Self::pop(f);
                    let l = Self::pop(f);
                    let same = self.is_op(&l, &r)?;
                    f.stack.push(Value::Bool(same != neg));
                }
                Op::In(neg) => {
                    self.charge(cost::ARITH)?;
                    let r = Self::pop(f);
                    let l = Self::pop(f);
                    let b = self.contains(&r, &l)?;
                    f.stack.push(Value::Bool(b != neg));
                }
                Op::Not => {
                    self.charge(cost::ARITH)?;
                    let v = Self::pop(f);
                    let b = self.truthy(&v)?;
                    f.stack.push(Value::Bool(!b));
                }
                Op::Neg | Op::Pos | Op::Invert => {
                    self.charge(cost::ARITH)?;
                    let v = Self::pop(f);
                    let r = self.unary_op(&v, op)?;
                    f.stack.push(r);
                }
                Op::BuildTuple(n) | Op::BuildList(n) => {
                    self.charge(cost::BUILD + cost::per_elem(n as usize))?;
                    let k = f.stack.len() - n as usize;
                    let items: Vec<Value> = f.stack.split_off(k);
                    f.stack.push(if matches!(op, Op::BuildTuple(_)) {
                        Value::tuple(items)
                    } else {
                        Value::list(items)
                    });
                }
                Op::BuildSet(n) => {
                    self.charge(cost::BUILD + cost::per_elem(n as usize))?;
                    let k = f.stack.len() - n as usize;
                    let items: Vec<Value> = f.stack.split_off(k);
                    let s = self.new_set(items, false)?;
                    f.stack.push(s);
                }
                Op::BuildMap(n) => {
                    self.charge(cost::BUILD + cost::per_elem(n as usize))?;
                    let k = f.stack.len() - 2 * n as usize;
                    let items: Vec<Value> = f.stack.split_off(k);
                    let d = crate::value::rc_dict(PyDict::new());
                    for kv in items.chunks(2) {
                        self.dict_set(&d, kv[0].clone(), kv[1].clone())?;
                    }
                    f.stack.push(Value::Dict(d));
                }
                Op::BuildSlice(n) => {
                    self.charge(cost::BUILD)?;
                    let step = if n == 3 { Self::pop(f) } else { Value::None };
                    let stop = Self::pop(f);
                    let start = Self::pop(f);
                    f.stack
                        .push(Value::Slice(Rc::new(PySlice { start, stop, step })));
                }
                Op::BuildString(n) => {
                    let k = f.stack.len() - n as usize;
                    let parts: Vec<Value> = f.stack.split_off(k);
                    let mut s = String::new();
                    for p in &parts {
                        if let Value::Str(x) = p {
                            s.push_str(&x.s);
                        }
                    }
                    self.charge(cost::BUILD + cost::per_char(s.len()))?;
                    f.stack.push(Value::str(&s));
                }
                Op::ListExtend | Op::SetUpdate | Op::ArgsExtend => {
                    let it = Self::pop(f);
                    let items = match self.collect(&it) {
                        Ok(items) => items,
                        Err(e)
                            if matches!(op, Op::ArgsExtend)
                                && self.exc_is(&e, "TypeError")
                                && self.not_iterable(&it) =>
                        {
                            let callee = f.stack[f.stack.len().saturating_sub(2)].clone();
                            let fs = self.func_str(&callee)?;
                            let tn = self.type_name(&it);
                            return Err(self.type_err(format!(
                                "{fs} argument after * must be an iterable, not {tn}"
                            )));
                        }
                        Err(e) => return Err(e),
                    };
                    self.charge(cost::BUILD + cost::per_elem(items.len()))?;
                    match Self::top(f).clone() {
                        Value::List(l) => {
                            l.items.borrow_mut().extend(items);
                            l.touch();
                        }
                        Value::Set(s) => {
                            for x in items {
                                self.set_add(&s, x)?;
                            }
                        }
                        _ => {}
                    }
                }
                Op::DictUpdate | Op::DictMerge => {
                    let src = Self::pop(f);
                    let Value::Dict(dst) = Self::top(f).clone() else {
                        continue;
                    };
                    // DictMerge builds a call's keywords; the callee sits below the
                    // positional tuple and this dict, and names it in errors as CPython does.
                    let callee = |f: &Frame| f.stack[f.stack.len().saturating_sub(3)].clone();
                    let pairs = match self.mapping_items(&src) {
                        Ok(p) => p,
                        Err(e) if matches!(op, Op::DictMerge) && self.exc_is(&e, "TypeError") => {
                            let fs = self.func_str(&callee(f))?;
                            let tn = self.type_name(&src);
                            return Err(self.type_err(format!(
                                "{fs} argument after ** must be a mapping, not {tn}"
                            )));
                        }
                        Err(e) => return Err(e),
                    };
                    self.charge(cost::BUILD + cost::per_elem(pairs.len()))?;
                    for (k, v) in pairs {
                        if matches!(op, Op::DictMerge) && !matches!(k, Value::Str(_)) {
                            return Err(self.type_err("keywords must be strings"));
                        }
                        if matches!(op, Op::DictMerge) && self.dict_get(&dst, &k)?.is_some() {
                            let ks = self.str(&k)?;
                            let fs = self.func_str(&callee(f))?;
                            return Err(self.type_err(format!(
                                "{fs} got multiple values for keyword argument '{ks}'"
                            )));
                        }
                        self.dict_set(&dst, k, v)?;
                    }
                }
                Op::ListToTuple => {
                    self.charge(cost::BUILD)?;
                    if let Value::List(l) = Self::pop(f) {
                        let items = l.items.borrow().clone();
                        f.stack.push(Value::tuple(items));
                    }
                }
                Op::ListAppend(n) | Op::SetAdd(n) => {
                    self.charge(cost::LIST_OP)?;
                    let v = Self::pop(f);
                    let idx = f.stack.len() - n as usize;
                    match f.stack[idx].clone() {
                        Value::List(l) => {
                            l.items.borrow_mut().push(v);
                            l.touch();
                        }
                        Value::Set(s) => self.set_add(&s, v)?,
                        _ => {}
                    }
                }
                Op::MapAdd(n) => {
                    self.charge(cost::DICT_OP)?;
                    let v = Self::pop(f);
                    let k = Self::pop(f);
                    let idx = f.stack.len() + 1 - n as usize;
                    if let Value::Dict(d) = f.stack[idx].clone() {
                        self.dict_set(&d, k, v)?;
                    }
                }
                Op::FormatValue(flags) => {
                    self.charge(cost::BASIC)?;
                    let spec = if flags & 1 == 1 {
                        Some(Self::pop(f))
                    } else {
                        None
                    };
                    let mut v = Self::pop(f);
                    match flags >> 1 {
                        1 => v = Value::str(&self.str(&v)?),
                        2 => v = Value::str(&self.repr(&v)?),
                        3 => v = Value::str(&crate::format::ascii_escape(&self.repr(&v)?)),
                        _ => {}
                    }
                    let spec = match &spec {
                        Some(Value::Str(s)) => s.s.to_string(),
                        _ => String::new(),
                    };
                    let s = self.format(&v, &spec)?;
                    f.stack.push(Value::str(&s));
                }
                Op::Jump(t) => {
                    self.charge(cost::BASIC)?;
                    f.pc = t as usize;
                }
                Op::JumpIfFalse(t) | Op::JumpIfTrue(t) => {
                    self.charge(cost::BASIC)?;
                    let v = Self::pop(f);
                    let b = match v {
                        Value::Bool(b) => b,
                        _ => self.truthy(&v)?,
                    };
                    if b == matches!(op, Op::JumpIfTrue(_)) {
                        f.pc = t as usize;
                    }
                }
                Op::JumpIfFalseOrPop(t) | Op::JumpIfTrueOrPop(t) => {
                    self.charge(cost::BASIC)?;
                    let v = Self::top(f).clone();
                    let b = self.truthy(&v)?;
                    if b == matches!(op, Op::JumpIfTrueOrPop(_)) {
                        f.pc = t as usize;
                    } else {
                        f.stack.pop();
                    }
                }
                Op::GetIter => {
                    self.charge(cost::BASIC)?;
                    let v = Self::pop(f);
                    let it = self.iter(&v)?;
                    f.stack.push(it);
                }
                Op::ForIter(t) => {
                    self.charge(cost::ITER)?;
                    // `for` over a range or a list/tuple iterator: step it in place, as
                    // `iter::next` would, without cloning the iterator or dispatching.
                    let step = match f.stack.last() {
                        Some(Value::Iter(it)) => {
                            let mut st = it.state.borrow_mut();
                            let (step, exhausted) = match &mut *st {
                                IterState::Range { next, step, left } => {
                                    if *left > 0 {
                                        let v = *next;
                                        *left -= 1;
                                        *next = next.wrapping_add(*step);
                                        (Some(Some(Value::Int(v))), false)
                                    } else {
                                        (Some(None), false)
                                    }
                                }
                                IterState::Seq { seq, i } => {
                                    let item = match seq {
                                        Value::List(l) => Some(l.items.borrow().get(*i).cloned()),
                                        Value::Tuple(t) => Some(t.items.get(*i).cloned()),
                                        _ => None,
                                    };
                                    if let Some(Some(_)) = item {
                                        *i += 1;
                                    }
                                    let done = matches!(item, Some(None));
                                    (item, done)
                                }
                                _ => (None, false),
                            };
                            if exhausted {
                                *st = IterState::Empty;
                            }
                            step
                        }
                        _ => None,
                    };
                    match step {
                        Some(Some(v)) => {
                            f.stack.push(v);
                            continue;
                        }
                        Some(None) => {
                            f.stack.pop();
                            f.pc = t as usize;
                            continue;
                        }
                        None => {}
                    }
                    let it = Self::top(f).clone();
                    match self.next(&it)? {
                        Some(v) => f.stack.push(v),
                        None => {
                            f.stack.pop();
                            f.pc = t as usize;
                        }
                    }
                }
                Op::UnpackSequence(n) => {
                    let v = Self::pop(f);
                    let n = n as usize;
                    // A tuple or list of the right length goes straight onto the stack, with
                    // the general path's charges (`charge_unpack`) but without its copy:
                    // `a, b = b, a + b` and `for x, y in pairs` allocated a vector per step.
                    match &v {
                        Value::Tuple(t) if t.items.len() == n => {
                            self.charge_unpack(n)?;
                            f.stack.extend(t.items.iter().rev().cloned());
                        }
                        Value::List(l) if l.items.borrow().len() == n => {
                            self.charge_unpack(n)?;
                            f.stack.extend(l.items.borrow().iter().rev().cloned());
                        }
                        _ => {
                            let items = self.unpack(&v, n, None)?;
                            self.charge(cost::BASIC + cost::per_elem(items.len()))?;
                            f.stack.extend(items.into_iter().rev());
                        }
                    }
                }
                Op::UnpackEx(before, after) => {
                    let v = Self::pop(f);
                    let items = self.unpack(&v, before as usize, Some(after as usize))?;
                    self.charge(cost::BASIC + cost::per_elem(items.len()))?;
                    f.stack.extend(items.into_iter().rev());
                }
                Op::Call(argc) => {
                    self.charge(cost::CALL)?;
                    let n = f.stack.len() - argc as usize;
                    match n.checked_sub(1).map(|i| &f.stack[i]) {
                        Some(Value::Function(func)) if func.code.takes_exactly(argc) => {
                            let func = func.clone();
                            let v = self.call_positional(&func, &mut f.stack, n, false)?;
                            f.stack.push(v);
                            continue;
                        }
                        // `C(args…)` of a plain class: the new instance takes the class's
                        // stack slot and becomes `__init__`'s receiver (as `call_class`).
                        Some(Value::Class(c)) => {
                            let c = c.clone();
                            if let Some(init) = self
                                .plain_init(&c)
                                .filter(|init| init.code.takes_exactly(argc + 1))
                            {
                                let inst = Value::Instance(rc_inst(Instance::new(c)));
                                f.stack[n - 1] = inst.clone();
                                let r = self.call_positional(&init, &mut f.stack, n, true)?;
                                if !r.is_none() {
                                    return Err(self.type_err(format!(
                                        "__init__() should return None, not '{}'",
                                        self.type_name(&r)
                                    )));
                                }
                                f.stack.push(inst);
                                continue;
                            }
                        }
                        _ => {}
                    }
                    let args: Vec<Value> = f.stack.split_off(n);
                    let func = Self::pop(f);
                    let v = self.call(&func, Args::new(args))?;
                    f.stack.push(v);
                }
                Op::CallKw(argc, names) => {
                    self.charge(cost::CALL)?;
                    let Value::Tuple(names) = &code.consts[names as usize] else {
                        continue;
                    };
                    let n = f.stack.len() - argc as usize;
                    let mut args: Vec<Value> = f.stack.split_off(n);
                    let kwv = args.split_off(args.len() - names.items.len());
                    let kw = names
                        .items
                        .iter()
                        .zip(kwv)
                        .map(|(k, v)| {
                            (
                                if let Value::Str(s) = k {
                                    Rc::from(&*s.s)
                                } else {
                                    Rc::from("")
                                },
                                v,
                            )
                        })
                        .collect();
                    let func = Self::pop(f);
                    let v = self.call(&func, Args { pos: args, kw })?;
                    f.stack.push(v);
                }
                Op::CallEx(flag) => {
                    self.charge(cost::CALL)?;
                    let kw = if flag == 1 { Some(Self::pop(f)) } else { None };
                    let pos = Self::pop(f);
                    let func = Self::pop(f);
                    let mut args = Args::default();
                    if let Value::Tuple(t) = pos {
                        args.pos = t.items.to_vec();
                    }
                    if let Some(Value::Dict(d)) = kw {
                        for e in d.table.borrow().iter() {
                            let k = match &e.key {
                                Value::Str(s) => Rc::from(&*s.s),
                                _ => Rc::from(""),
                            };
                            args.kw.push((k, e.value.clone()));
                        }
                    }
                    let v = self.call(&func, args)?;
                    f.stack.push(v);
                }
                Op::MakeFunction(ci, flags) => {
                    self.charge(cost::MAKE)?;
                    let c = code.codes[ci as usize].clone();
                    let closure = if flags & 4 != 0 {
                        match Self::pop(f) {
                            Value::Tuple(t) => t
                                .items
                                .iter()
                                .filter_map(|x| {
                                    if let Value::Cell(c) = x {
                                        Some(c.clone())
                                    } else {
                                        None
                                    }
                                })
                                .collect(),
                            _ => Vec::new(),
                        }
                    } else {
                        Vec::new()
                    };
                    let annotations = if flags & 8 != 0 {
                        Some(Self::pop(f))
                    } else {
                        None
                    };
                    let kwdefaults = if flags & 2 != 0 {
                        match Self::pop(f) {
                            Value::Dict(d) => d
                                .table
                                .borrow()
                                .iter()
                                .map(|e| {
                                    (
                                        if let Value::Str(s) = &e.key {
                                            Rc::from(&*s.s)
                                        } else {
                                            Rc::from("")
                                        },
                                        e.value.clone(),
                                    )
                                })
                                .collect(),
                            _ => Vec::new(),
                        }
                    } else {
                        Vec::new()
                    };
                    let defaults = if flags & 1 != 0 {
                        match Self::pop(f) {
                            Value::Tuple(t) => t.items.to_vec(),
                            _ => Vec::new(),
                        }
                    } else {
                        Vec::new()
                    };
                    let func =
                        Function::new(c.clone(), f.globals.clone(), defaults, kwdefaults, closure);
                    {
                        let a = func.attrs.clone();
                        let doc = c.consts.first().cloned().unwrap_or(Value::None);
                        self.dict_set_str(&a, "__doc__", doc)?;
                        let m = self
                            .dict_get_str(&f.globals, "__name__")
                            .unwrap_or(Value::None);
                        self.dict_set_str(&a, "__module__", m)?;
                        if let Some(an) = annotations {
                            self.dict_set_str(&a, "__annotations__", an)?;
                        }
                    }
                    f.stack.push(Value::Function(Rc::new(func)));
                }
                Op::BuildClass(flag) => {
                    // The body runs as a call; making the class is `type_new`'s charge.
                    self.charge(cost::CALL)?;
                    let kw = if flag == 1 { Some(Self::pop(f)) } else { None };
                    let bases = Self::pop(f);
                    let name = Self::pop(f);
                    let body = Self::pop(f);
                    let cls = self.build_class(body, name, bases, kw)?;
                    f.stack.push(cls);
                }
                Op::ReturnValue => {
                    self.charge(cost::BASIC)?;
                    let v = Self::pop(f);
                    return Ok(Outcome::Return(v));
                }
                Op::YieldValue => {
                    self.charge(cost::YIELD)?;
                    let v = Self::pop(f);
                    return Ok(Outcome::Yield(v));
                }
                Op::YieldFrom => {
                    self.charge(cost::YIELD)?;
                    let sent = Self::pop(f);
                    let sub = Self::top(f).clone();
                    match self.send(&sub, sent)? {
                        Ok(y) => {
                            // Resume at this instruction again with the next sent value.
                            f.pc -= 1;
                            return Ok(Outcome::Yield(y));
                        }
                        Err(ret) => {
                            f.stack.pop();
                            f.stack.push(ret);
                        }
                    }
                }
                Op::Imaginary => {
                    self.charge(cost::BUILD)?;
                    let v = Self::pop(f);
                    let im = crate::vm::ops::as_f64(&v).unwrap_or(0.0);
                    f.stack.push(crate::objects::complex::new(self, 0.0, im));
                }
                Op::GetAwaitable(k) => {
                    self.charge(cost::BASIC)?;
                    let v = Self::pop(f);
                    let a = self.awaitable(v, k)?;
                    f.stack.push(a);
                }
                Op::BeforeAsyncWith => {
                    self.charge(cost::CALL)?;
                    let mgr = Self::pop(f);
                    let (exit, r) = asyncgen::async_with_enter(self, &mgr)?;
                    f.stack.push(exit);
                    f.stack.push(r);
                }
                Op::AsyncWithExcept => {
                    self.charge(cost::CALL)?;
                    let e = Self::pop(f);
                    let exit = Self::pop(f);
                    let ty = self.type_of(&e);
                    let tb = crate::objects::traceback::of(self, &e)?;
                    let args = vec![Value::Class(ty), e.clone(), tb];
                    let r = self.call(&exit, Args::new(args))?;
                    f.stack.push(e);
                    f.stack.push(r);
                }
                Op::AsyncWithExceptEnd => {
                    self.charge(cost::BASIC)?;
                    let r = Self::pop(f);
                    let e = Self::pop(f);
                    if let Some(b) = f.blocks.pop() {
                        if b.kind == BlockKind::Handler {
                            self.handling.pop();
                        }
                    }
                    if !self.truthy(&r)? {
                        self.reraise = true;
                        return Err(Exc::Py(e));
                    }
                }
                Op::ExcStarBegin => {
                    self.charge(cost::EXCEPT)?;
                    let e = Self::pop(f);
                    f.stack.push(e.clone());
                    f.stack.push(Value::list(Vec::new()));
                    f.stack.push(e);
                }
                Op::ExcStarMatch(t) => {
                    self.charge(cost::EXCEPT)?;
                    let ty = Self::pop(f);
                    let rest = Self::pop(f);
                    let (rest, m) = if rest.is_none() {
                        (rest, Value::None)
                    } else {
                        crate::objects::excgroup::star_match(self, &rest, &ty)?
                    };
                    f.stack.push(rest);
                    if m.is_none() {
                        f.pc = t as usize;
                    } else {
                        f.blocks.push(Block {
                            kind: BlockKind::Handler,
                            handler: 0,
                            depth: f.stack.len() as u32,
                            exc: Some(m.clone()),
                        });
                        self.handling.push(m.clone());
                        f.stack.push(m);
                    }
                }
                Op::ExcStarEnd => {
                    self.charge(cost::EXCEPT)?;
                    let rest = Self::pop(f);
                    let list = Self::pop(f);
                    let orig = Self::pop(f);
                    let mut excs = match &list {
                        Value::List(l) => l.items.borrow().clone(),
                        _ => Vec::new(),
                    };
                    excs.push(rest);
                    let r = crate::objects::excgroup::prep_reraise(self, &orig, excs);
                    if let Some(b) = f.blocks.pop() {
                        if b.kind == BlockKind::Handler {
                            self.handling.pop();
                        }
                    }
                    let r = r?;
                    if !r.is_none() {
                        self.reraise = true;
                        return Err(Exc::Py(r));
                    }
                }
                Op::GetAIter => {
                    self.charge(cost::CALL)?;
                    let v = Self::pop(f);
                    let it = asyncgen::get_aiter(self, &v)?;
                    f.stack.push(it);
                }
                Op::GetANext => {
                    self.charge(cost::CALL)?;
                    let it = Self::top(f).clone();
                    let a = asyncgen::get_anext(self, &it)?;
                    f.stack.push(a);
                }
                Op::EndAsyncFor => {
                    self.charge(cost::EXCEPT)?;
                    let e = Self::pop(f);
                    if let Some(b) = f.blocks.pop() {
                        if b.kind == BlockKind::Handler {
                            self.handling.pop();
                        }
                    }
                    let e = Exc::Py(e);
                    if !self.exc_is(&e, "StopAsyncIteration") {
                        self.reraise = true;
                        return Err(e);
                    }
                    f.stack.pop();
                }
                Op::Raise(n) => {
                    self.charge(cost::RAISE)?;
                    match n {
                        0 => {
                            let cur = self.handling.last().cloned();
                            return match cur {
                                Some(e) => {
                                    // A bare `raise` adds no traceback entry for this frame
                                    // (CPython's RERAISE path skips PyTraceBack_Here).
                                    self.reraise = true;
                                    Err(Exc::Py(e))
                                }
                                None => {
                                    Err(self
                                        .new_exc("RuntimeError", "No active exception to reraise"))
                                }
                            };
                        }
                        1 => {
                            let e = Self::pop(f);
                            return Err(self.raise_value(e, None));
                        }
                        _ => {
                            let cause = Self::pop(f);
                            let e = Self::pop(f);
                            let cause = match cause {
                                Value::Class(c) => self.call(&Value::Class(c), Args::default())?,
                                v => v,
                            };
                            return Err(self.raise_value(e, Some(cause)));
                        }
                    }
                }
                Op::SetupExcept(t) | Op::SetupFinally(t) => {
                    self.charge(cost::TRY)?;
                    let kind = if matches!(op, Op::SetupExcept(_)) {
                        BlockKind::Except
                    } else {
                        BlockKind::Finally
                    };
                    f.blocks.push(Block {
                        kind,
                        handler: t,
                        depth: f.stack.len() as u32,
                        exc: None,
                    });
                }
                Op::PopBlock => {
                    self.charge(cost::BASIC)?;
                    f.blocks.pop();
                }
                Op::PopExcept => {
                    self.charge(cost::BASIC)?;
                    if let Some(b) = f.blocks.pop() {
                        if b.kind == BlockKind::Handler {
                            self.handling.pop();
                        }
                    }
                }
                Op::Reraise => {
                    self.charge(cost::RAISE)?;
                    let e = Self::pop(f);
                    if let Some(b) = f.blocks.pop() {
                        if b.kind == BlockKind::Handler {
                            self.handling.pop();
                        }
                    }
                    self.reraise = true;
                    return Err(Exc::Py(e));
                }
                Op::ExcMatch => {
                    self.charge(cost::EXCEPT)?;
                    let ty = Self::pop(f);
                    let e = Self::top(f).clone();
                    let m = self.exc_matches(&e, &ty)?;
                    f.stack.push(Value::Bool(m));
                }
                Op::WithEnter => {
                    self.charge(cost::CALL)?;
                    let mgr = Self::pop(f);
                    let exit = match self.getattr(&mgr, "__exit__") {
                        Ok(x) => x,
                        Err(e) if e.is_abort() => return Err(e),
                        Err(_) => {
                            let tn = self.type_name(&mgr);
                            // CPython 3.11 says which half is missing when one is there.
                            let detail = if self.getattr_opt(&mgr, "__enter__")?.is_some() {
                                " (missed __exit__ method)"
                            } else {
                                ""
                            };
                            return Err(self.type_err(format!(
                                "'{tn}' object does not support the context manager protocol{detail}"
                            )));
                        }
                    };
                    let r = self.call_method(&mgr, "__enter__", Args::default())?;
                    f.stack.push(exit);
                    f.stack.push(r);
                }
                Op::WithExit => {
                    self.charge(cost::CALL)?;
                    let exit = Self::pop(f);
                    self.call(
                        &exit,
                        Args::new(vec![Value::None, Value::None, Value::None]),
                    )?;
                }
                Op::WithExcept => {
                    self.charge(cost::CALL)?;
                    let e = Self::pop(f);
                    let exit = Self::pop(f);
                    let ty = self.type_of(&e);
                    let tb = crate::objects::traceback::of(self, &e);
                    let r = tb.and_then(|tb| {
                        self.call(&exit, Args::new(vec![Value::Class(ty), e.clone(), tb]))
                    });
                    if let Some(b) = f.blocks.pop() {
                        if b.kind == BlockKind::Handler {
                            self.handling.pop();
                        }
                    }
                    let r = r?;
                    if !self.truthy(&r)? {
                        self.reraise = true;
                        return Err(Exc::Py(e));
                    }
                }
                Op::ImportName(i) => {
                    let name = code.names[i as usize].clone();
                    let m = self.import(&name.s)?;
                    f.stack.push(m);
                }
                Op::ImportFrom(i) => {
                    self.charge(cost::ATTR)?;
                    let m = Self::top(f).clone();
                    let name = &code.names[i as usize];
                    let name = &name.s;
                    let v = match self.getattr(&m, name) {
                        Ok(v) => v,
                        Err(e) if self.exc_is(&e, "AttributeError") => {
                            let mn = match &m {
                                Value::Module(m) => m.name.to_string(),
                                _ => String::new(),
                            };
                            // PVM modules have no file: CPython words a module without
                            // `__file__` "(unknown location)" (LIMITATIONS 6).
                            let e = self.new_exc(
                                "ImportError",
                                &format!(
                                    "cannot import name '{name}' from '{mn}' (unknown location)"
                                ),
                            );
                            if let Exc::Py(Value::Instance(i)) = &e {
                                i.dict.set_str("name", Value::str(&mn));
                            }
                            return Err(e);
                        }
                        Err(e) => return Err(e),
                    };
                    f.stack.push(v);
                }
                Op::ImportStar => {
                    self.charge(cost::IMPORT_CACHED)?;
                    if let Value::Module(m) = Self::pop(f) {
                        let items: Vec<Entry> = m.dict.table.borrow().iter().cloned().collect();
                        self.charge(cost::per_elem(items.len()))?;
                        for e in items {
                            if let Value::Str(s) = &e.key {
                                if !s.s.starts_with('_') {
                                    let g = f.globals.clone();
                                    self.dict_set(&g, e.key.clone(), e.value.clone())?;
                                }
                            }
                        }
                    }
                }
                Op::LoadAssertionError => {
                    self.charge(cost::BASIC)?;
                    f.stack
                        .push(Value::Class(self.types.exc["AssertionError"].clone()));
                }
                Op::MatchSequence | Op::MatchMapping => {
                    self.charge(cost::BASIC)?;
                    let v = Self::base_of(&Self::pop(f));
                    let r = if matches!(op, Op::MatchSequence) {
                        matches!(v, Value::List(_) | Value::Tuple(_) | Value::Range(_))
                    } else {
                        matches!(v, Value::Dict(_))
                    };
                    f.stack.push(Value::Bool(r));
                }
                Op::GetLen => {
                    self.charge(cost::BASIC)?;
                    let v = Self::pop(f);
                    let n = crate::builtins::len_of(self, &v)?;
                    f.stack.push(Value::Int(n as i64));
                }
                Op::MatchClass(k) => {
                    self.charge(cost::ATTR)?;
                    let cls = Self::pop(f);
                    let subj = Self::pop(f);
                    let Value::Class(c) = &cls else {
                        return Err(self.type_err("called match pattern must be a type"));
                    };
                    if k == 0 {
                        let sc = self.type_of(&subj);
                        f.stack.push(Value::Bool(sc.is_subclass(c)));
                        continue;
                    }
                    let match_args = c.lookup("__match_args__");
                    let self_match = matches!(
                        c.builtin,
                        BuiltinType::Bool
                            | BuiltinType::ByteArray
                            | BuiltinType::Bytes
                            | BuiltinType::Dict
                            | BuiltinType::Float
                            | BuiltinType::FrozenSet
                            | BuiltinType::Int
                            | BuiltinType::List
                            | BuiltinType::Set
                            | BuiltinType::Str
                            | BuiltinType::Tuple
                    ) && match_args.is_none();
                    if self_match && k == 1 {
                        f.stack.push(subj);
                        f.stack.push(Value::Bool(true));
                        continue;
                    }
                    let args = match match_args {
                        Some(Value::Tuple(t)) => t.items.to_vec(),
                        None => Vec::new(),
                        Some(other) => {
                            return Err(self.type_err(format!(
                                "{}.__match_args__ must be a tuple (got {})",
                                c.name,
                                self.type_name(&other)
                            )))
                        }
                    };
                    let name = match args.get(k as usize - 1) {
                        Some(Value::Str(name)) => name.clone(),
                        Some(other) => {
                            return Err(self.type_err(format!(
                                "__match_args__ elements must be strings (got {})",
                                self.type_name(other)
                            )))
                        }
                        None => {
                            let n = args.len().max(usize::from(self_match));
                            return Err(self.type_err(format!(
                                "{}() accepts {} positional sub-pattern{} ({} given)",
                                c.name,
                                n,
                                if n == 1 { "" } else { "s" },
                                k
                            )));
                        }
                    };
                    let got = self.match_attr(&subj, &name.s)?;
                    Self::push_match(f, got);
                }
                Op::MatchAttr(i) => {
                    self.charge(cost::ATTR)?;
                    let subj = Self::pop(f);
                    let got = self.match_attr(&subj, &code.names[i as usize].s)?;
                    Self::push_match(f, got);
                }
                Op::CopyDictWithoutKeys => {
                    let keys = Self::pop(f);
                    let subj = Self::base_of(&Self::pop(f));
                    let d = crate::value::rc_dict(PyDict::new());
                    let pairs = self.mapping_items(&subj)?;
                    self.charge(cost::BUILD + cost::per_elem(pairs.len()))?;
                    let ks = self.seq_items(&keys);
                    for (k, v) in pairs {
                        let mut skip = false;
                        for x in &ks {
                            if self.eq(&k, x)? {
                                skip = true;
                                break;
                            }
                        }
                        if !skip {
                            self.dict_set(&d, k, v)?;
                        }
                    }
                    f.stack.push(Value::Dict(d));
                }
            }
        }
    }

    fn cell_name(&self, code: &crate::bytecode::Code, i: u32) -> Rc<str> {
        let i = i as usize;
        if i < code.cellvars.len() {
            code.cellvars[i].clone()
        } else {
            code.freevars
                .get(i - code.cellvars.len())
                .cloned()
                .unwrap_or_else(|| "?".into())
        }
    }

    /// An attribute for a class pattern: `None` when it is missing (AttributeError), which
    /// fails the pattern as in CPython; other exceptions propagate.
    fn match_attr(&mut self, subj: &Value, name: &str) -> R<Option<Value>> {
        match self.getattr(subj, name) {
            Ok(v) => Ok(Some(v)),
            Err(e) if self.exc_is(&e, "AttributeError") => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// How CPython names a callable in call errors (`_PyObject_FunctionStr`):
    /// `module.qualname()`, just `qualname()` for builtins.
    /// Python exceptions from the lookups fall back as CPython's do; aborts propagate.
    pub fn func_str(&mut self, func: &Value) -> R<String> {
        if let Value::Builtin(b) = func {
            let short = b.name.rsplit('.').next().unwrap_or(&b.name).to_string();
            return Ok(format!("{short}()"));
        }
        let q = match self.getattr(func, "__qualname__") {
            Ok(Value::Str(q)) => q,
            Err(e) if e.is_abort() => return Err(e),
            _ => {
                return match self.str(func) {
                    Err(e) if e.is_abort() => Err(e),
                    r => Ok(r.unwrap_or_default()),
                }
            }
        };
        Ok(match self.getattr(func, "__module__") {
            Ok(Value::Str(m)) if &*m.s != "builtins" => format!("{}.{}()", m.s, q.s),
            Err(e) if e.is_abort() => return Err(e),
            _ => format!("{}()", q.s),
        })
    }

    fn push_match(f: &mut Frame, got: Option<Value>) {
        match got {
            Some(v) => {
                f.stack.push(v);
                f.stack.push(Value::Bool(true));
            }
            None => f.stack.push(Value::Bool(false)),
        }
    }

    pub(crate) fn exc_matches(&mut self, e: &Value, ty: &Value) -> R<bool> {
        match ty {
            Value::Class(c) if c.is_subclass(&self.types.exc["BaseException"]) => {
                let ec = self.type_of(e);
                Ok(ec.is_subclass(c))
            }
            Value::Tuple(t) => {
                for x in t.items.iter() {
                    if self.exc_matches(e, x)? {
                        return Ok(true);
                    }
                }
                Ok(false)
            }
            _ => Err(self.type_err(
                "catching classes that do not inherit from BaseException is not allowed",
            )),
        }
    }

    /// Run a class body and create the class.
    fn build_class(
        &mut self,
        body: Value,
        name: Value,
        bases: Value,
        kw: Option<Value>,
    ) -> R<Value> {
        let Value::Function(func) = body else {
            return Err(self.type_err("bad class body"));
        };
        let mut base_classes = Vec::new();
        let mut orig_bases = None;
        if let Value::Tuple(t) = &bases {
            for b in t.items.iter() {
                match b {
                    Value::Class(c) => base_classes.push(c.clone()),
                    other => {
                        // PEP 560: a non-class base may supply classes via __mro_entries__.
                        let Some(me) = self.getattr_opt(other, "__mro_entries__")? else {
                            return Err(self.type_err("bases must be types"));
                        };
                        let r = self.call(&me, Args::new(vec![bases.clone()]))?;
                        for x in self.collect(&r)? {
                            if let Value::Class(c) = x {
                                base_classes.push(c);
                            }
                        }
                        orig_bases = Some(bases.clone());
                    }
                }
            }
        }
        let mut kwargs: Vec<(Rc<str>, Value)> = Vec::new();
        let mut meta: Option<Rc<Class>> = None;
        if let Some(Value::Dict(d)) = &kw {
            for e in d.table.borrow().iter() {
                if let Value::Str(s) = &e.key {
                    if &*s.s == "metaclass" {
                        match &e.value {
                            Value::Class(m) => meta = Some(m.clone()),
                            _ => return Err(self.type_err("metaclass must be a class")),
                        }
                    } else {
                        kwargs.push((Rc::from(&*s.s), e.value.clone()));
                    }
                }
            }
        }
        // The most derived metaclass among the explicit one and the bases'.
        for b in &base_classes {
            if let Some(bm) = b.meta.borrow().clone() {
                match &meta {
                    None => meta = Some(bm),
                    Some(m) if bm.is_subclass(m) => meta = Some(bm),
                    _ => {}
                }
            }
        }
        if meta
            .as_ref()
            .is_some_and(|m| Rc::ptr_eq(m, &self.types.type_))
        {
            meta = None;
        }
        let ns = crate::value::rc_dict(PyDict::new());
        let module = self
            .dict_get_str(&func.globals, "__name__")
            .unwrap_or(Value::None);
        self.dict_set_str(&ns, "__module__", module)?;
        self.dict_set_str(&ns, "__qualname__", Value::str(&func.code.qualname))?;
        if let Some(ob) = orig_bases {
            self.dict_set_str(&ns, "__orig_bases__", ob)?;
        }
        let mut frame = self.new_frame(
            func.code.clone(),
            func.globals.clone(),
            Some(ns.clone()),
            &func.closure,
        );
        self.depth += 1;
        if self.depth > self.limits.max_depth {
            self.depth -= 1;
            return Err(self.new_exc("RecursionError", "maximum recursion depth exceeded"));
        }
        let r = self.run_frame(&mut frame);
        self.depth -= 1;
        let ret = match r? {
            Outcome::Return(v) | Outcome::Yield(v) => v,
        };
        let cls = match meta {
            None => Value::Class(self.type_new(None, &name, base_classes, &ns, kwargs)?),
            Some(m) => {
                let bases_t = Value::tuple(base_classes.into_iter().map(Value::Class).collect());
                let args = Args {
                    pos: vec![name, bases_t, Value::Dict(ns)],
                    kw: kwargs,
                };
                self.call(&Value::Class(m), args)?
            }
        };
        if let (Value::Cell(c), Value::Class(_)) = (&ret, &cls) {
            *c.v.borrow_mut() = Some(cls.clone());
        }
        Ok(cls)
    }

    /// `type.__new__(meta, name, bases, ns, **kw)`: create the class object, run
    /// `__set_name__` on its descriptors and the parent's `__init_subclass__`.
    pub fn type_new(
        &mut self,
        meta: Option<Rc<Class>>,
        name: &Value,
        bases: Vec<Rc<Class>>,
        ns: &Rc<PyDict>,
        kw: Vec<(Rc<str>, Value)>,
    ) -> R<Rc<Class>> {
        let name = match name {
            Value::Str(s) => s.s.to_string(),
            _ => return Err(self.type_err("type.__new__() argument 1 must be str")),
        };
        // Every class is made here, by a `class` statement, `type(name, bases, ns)` or a
        // metaclass's `super().__new__`: one charge for all three, with the namespace it copies.
        // Entries with holes: the copy below walks them all.
        let entries = ns.table.borrow().entries.len() as u64;
        self.charge(cost::CLASS.saturating_add(entries.saturating_mul(cost::CLASS_PER_NAME)))?;
        let mut dict = NameMap::default();
        for e in ns.table.borrow().iter() {
            if let Value::Str(s) = &e.key {
                dict.insert(Rc::from(&*s.s), e.value.clone());
            }
        }
        // __new__ and __init_subclass__/__class_getitem__ are implicitly static/class methods.
        if let Some(Value::Function(f)) = dict.get("__new__").cloned() {
            dict.insert(
                "__new__".into(),
                Value::StaticMethod(Rc::new(Wrapped(Value::Function(f)))),
            );
        }
        for n in ["__init_subclass__", "__class_getitem__"] {
            if let Some(Value::Function(f)) = dict.get(n).cloned() {
                dict.insert(
                    n.into(),
                    Value::ClassMethod(Rc::new(Wrapped(Value::Function(f)))),
                );
            }
        }
        // A class that defines __eq__ but not __hash__ is unhashable, and its subclasses
        // inherit that (CPython's type_new sets __hash__ to None).
        if dict.contains_key("__eq__") && !dict.contains_key("__hash__") {
            dict.insert("__hash__".into(), Value::None);
        }
        // Every class has its own __doc__ (never inherited).
        if !dict.contains_key("__doc__") {
            dict.insert("__doc__".into(), Value::None);
        }
        if let Some(Value::Str(q)) = dict.get("__qualname__").cloned() {
            dict.shift_remove("__qualname__");
            let cls = self.new_class(&name, bases, dict)?;
            *cls.qualname.borrow_mut() = q.s.as_str().into();
            return self.finish_class(cls, meta, kw);
        }
        let cls = self.new_class(&name, bases, dict)?;
        self.finish_class(cls, meta, kw)
    }

    fn finish_class(
        &mut self,
        cls: Rc<Class>,
        meta: Option<Rc<Class>>,
        kw: Vec<(Rc<str>, Value)>,
    ) -> R<Rc<Class>> {
        let meta = meta.or_else(|| cls.bases.iter().find_map(|b| b.meta.borrow().clone()));
        *cls.meta.borrow_mut() = meta;
        let items: Vec<(Rc<str>, Value)> = cls
            .dict
            .borrow()
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        for (k, v) in items {
            if matches!(v, Value::Instance(_)) && self.lookup_dunder(&v, "__set_name__").is_some() {
                let r = self.call_method(
                    &v,
                    "__set_name__",
                    Args::new(vec![Value::Class(cls.clone()), Value::str(&k)]),
                );
                // CPython 3.11's type.__new__ wraps the error: RuntimeError from the original.
                if let Err(Exc::Py(orig)) = r {
                    let tn = self.type_name(&v);
                    let msg = format!(
                        "Error calling __set_name__ on '{tn}' instance '{k}' in '{}'",
                        cls.name
                    );
                    let wrapped = self.new_exc("RuntimeError", &msg);
                    if let Exc::Py(Value::Instance(w)) = &wrapped {
                        if let Some(st) = w.exc.borrow_mut().as_mut() {
                            st.cause = Some(orig.clone());
                            st.context = Some(orig);
                            st.suppress = true;
                        }
                    }
                    return Err(wrapped);
                }
                r?;
            }
        }
        if let Some(parent) = cls.mro.first() {
            if let Some(init_sub) = parent.lookup("__init_subclass__") {
                let args = Args {
                    pos: vec![Value::Class(cls.clone())],
                    kw,
                };
                let f = match init_sub {
                    Value::ClassMethod(w) => w.0.clone(),
                    other => other,
                };
                self.call(&f, args)?;
            }
        }
        Ok(cls)
    }

    /// Create a class with C3 linearisation.
    pub fn new_class(
        &mut self,
        name: &str,
        bases: Vec<Rc<Class>>,
        mut dict: NameMap,
    ) -> R<Rc<Class>> {
        // A class that defines __eq__ but not __hash__ gets `__hash__ = None`, as in CPython.
        if dict.contains_key("__eq__") && !dict.contains_key("__hash__") {
            dict.insert("__hash__".into(), Value::None);
        }
        let bases = if bases.is_empty() {
            vec![self.types.object.clone()]
        } else {
            bases
        };
        let mro = self.c3(&bases)?;
        let builtin = mro
            .iter()
            .map(|c| c.builtin)
            .find(|b| *b != BuiltinType::Object)
            .unwrap_or(BuiltinType::Object);
        // `__slots__` may be any iterable of strings (collected, and charged, here); the
        // layout it makes is the union with the bases' slot names, paid per name.
        let declared = match dict.get("__slots__").cloned() {
            None => None,
            Some(v @ Value::Str(_)) => Some(vec![v]),
            Some(v) => Some(self.collect(&v)?),
        };
        if let Some(d) = &declared {
            let inherited: usize = bases
                .iter()
                .filter_map(|b| b.slots.as_ref().map(|s| s.len()))
                .sum();
            self.charge(cost::per_elem(d.len().saturating_add(inherited)))?;
        }
        Ok(crate::value::rc_class(Class::with_slots(
            name, bases, mro, dict, builtin, declared,
        )))
    }

    /// C3 linearisation of `bases`. Charged like any builtin that visits elements: each
    /// candidate test scans the tails of the remaining sequences, and that scan is paid for
    /// before it runs (a chain of n classes costs about n² per class, as in CPython; it was
    /// unmetered, so a few thousand subclasses of a deep chain took seconds for few cycles).
    fn c3(&mut self, bases: &[Rc<Class>]) -> R<Vec<Rc<Class>>> {
        for (i, b) in bases.iter().enumerate() {
            if bases[..i].iter().any(|x| Rc::ptr_eq(x, b)) {
                return Err(self.type_err(format!("duplicate base class {}", b.name)));
            }
        }
        let mut seqs: Vec<Vec<Rc<Class>>> = Vec::with_capacity(bases.len() + 1);
        for b in bases {
            self.charge(cost::per_elem(b.mro.len() + 1))?;
            let mut v = vec![b.clone()];
            v.extend(b.mro.iter().cloned());
            seqs.push(v);
        }
        seqs.push(bases.to_vec());
        // `heads[i]` is how much of `seqs[i]` has been merged (no front removals).
        let mut heads = vec![0usize; seqs.len()];
        let mut out: Vec<Rc<Class>> = Vec::new();
        loop {
            let live: Vec<usize> = (0..seqs.len())
                .filter(|&i| heads[i] < seqs[i].len())
                .collect();
            if live.is_empty() {
                return Ok(out);
            }
            let tails: usize = live.iter().map(|&i| seqs[i].len() - heads[i] - 1).sum();
            let mut found = None;
            for &i in &live {
                self.charge(cost::per_elem(tails + 1))?;
                let cand = &seqs[i][heads[i]];
                if !live
                    .iter()
                    .any(|&j| seqs[j][heads[j] + 1..].iter().any(|x| Rc::ptr_eq(x, cand)))
                {
                    found = Some(cand.clone());
                    break;
                }
            }
            let Some(c) = found else {
                // CPython names the distinct heads of the remaining sequences, in order.
                let mut heads_seen: Vec<&Rc<Class>> = Vec::new();
                for &i in &live {
                    let h = &seqs[i][heads[i]];
                    if !heads_seen.iter().any(|x| Rc::ptr_eq(x, h)) {
                        heads_seen.push(h);
                    }
                }
                let names: Vec<&str> = heads_seen.iter().map(|h| &*h.name).collect();
                let msg = format!(
                    "Cannot create a consistent method resolution\norder (MRO) for bases {}",
                    names.join(", ")
                );
                return Err(self.type_err(msg));
            };
            for &i in &live {
                if Rc::ptr_eq(&seqs[i][heads[i]], &c) {
                    heads[i] += 1;
                }
            }
            out.push(c);
        }
    }

    /// Import a whitelisted module (the only import path; CIP-3 import costs) and return it.
    ///
    /// A dotted name is a submodule (`collections.abc`): its parent is imported first, as in
    /// CPython, and the submodule is bound as an attribute of the parent once loaded. Each
    /// dotted name is a whitelist entry of its own, so `collections.foo` stays an ImportError.
    pub fn import(&mut self, name: &str) -> R<Value> {
        if let Some(m) = self.modules.get(name) {
            let m = m.clone();
            self.charge(cost::IMPORT_CACHED)?;
            return Ok(m);
        }
        let parent = match name.rsplit_once('.') {
            Some((p, child)) => Some((self.import(p)?, p, child)),
            None => None,
        };
        // The parent's body may have imported this submodule already.
        if let Some(m) = self.modules.get(name) {
            return Ok(m.clone());
        }
        match crate::modules::lookup(name) {
            Some(loader) => {
                self.charge(cost::IMPORT_FIRST)?;
                let m = loader(self, name)?;
                self.modules.insert(name.into(), m.clone());
                if let Some((Value::Module(pm), _, child)) = &parent {
                    self.dict_set_str(&pm.dict, child, m.clone())?;
                }
                Ok(m)
            }
            None => {
                self.charge(cost::IMPORT_MISS)?;
                let msg = match parent {
                    Some((_, p, _)) if !crate::modules::is_package(p) => {
                        format!("No module named '{name}'; '{p}' is not a package")
                    }
                    _ => format!("No module named '{name}'"),
                };
                // A module that is not on the whitelist is, to the program, a missing one:
                // ModuleNotFoundError (an ImportError) with its `name`, as CPython raises.
                let e = self.new_exc("ModuleNotFoundError", &msg);
                if let Exc::Py(Value::Instance(i)) = &e {
                    i.dict.set_str("name", Value::str(name));
                }
                Err(e)
            }
        }
    }

    /// Current code kind helper for builtins that need it.
    pub fn is_module_code(k: CodeKind) -> bool {
        k == CodeKind::Module
    }
}

impl Drop for Vm<'_> {
    /// Invocation end: break every reference cycle so all objects are freed.
    fn drop(&mut self) {
        self.modules.clear();
        self.native_classes.clear();
        // The base's builder made only permanent objects, which `clear_tracked` must not
        // empty (it would see the base's containers while `value::permanent` runs).
        if !self.building_base {
            crate::value::clear_tracked();
        }
    }
}
