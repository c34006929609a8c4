//! The interpreter (whitepaper "The Cowboy Actor VM"; metering per §17.3 / CIP-3 §2.2).
//!
//! `Vm::exec_loop` is the one dispatch loop (`dispatch.rs`: the loop, the common instructions'
//! fast paths and `Vm::drive`, which runs the Python calls the loop makes on a stack of frames;
//! `handlers.rs`: slow paths and rare instructions, one method each). Every
//! instruction first calls [`Vm::charge`] with its cost from [`crate::cost`]; operations whose
//! work grows with their operands charge a surcharge through the same function before doing the
//! work. `charge` is the only place the running total is compared with the budget, so a program
//! stops at exactly the same instruction on every run. Running out raises
//! [`Abort::OutOfCycles`], which is not a Python exception: no `except` clause can catch it.

pub(crate) mod call;
mod dispatch;
mod handlers;
pub(crate) mod inline_cache;
pub(crate) mod ops;
pub mod profile;
mod uncaught;

pub use uncaught::Uncaught;

use crate::bytecode::CodeKind;
use crate::cost;
use crate::limits::Limits;
use crate::value::frame::{Block, BlockKind, Frame};
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

/// A Python function's frame that a call instruction hands the dispatch loop to run in place of
/// the call ([`Vm::run_frame`]): entered (arguments bound, call depth counted), not started.
///
/// Always boxed (`Box<Callee>`, reused whole: [`Vm::callee_frame`]), so that a call handler's
/// result, the loop's `Step::Call` and the loop's stack of callees move one pointer. Moved by
/// value it was 40 bytes, stored in pieces by the handler and read back whole by the loop: two
/// store-forwarding stalls on every Python-to-Python call (6% of an object-heavy program).
pub(crate) struct Callee {
    /// The callee's frame.
    pub(crate) frame: Frame,
    /// For `C(args…)`, whose callee is `__init__`: the new instance, which the call gives.
    pub(crate) init: Option<Value>,
    /// The function value the call was made through (`None` for a method call, whose
    /// receiver is the first local instead), held until the callee has returned, as the
    /// caller's stack held it before: a function made for the call (a comprehension's) must
    /// not be freed while it runs, or peak memory would differ.
    pub(crate) callable: Value,
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
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
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
    /// What the thread's VMs import (the first VM's library; see [`Library`]).
    library: &'static Library,
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

/// Builds a module object on its first import.
pub type Loader = fn(&mut Vm, &str) -> R<Value>;

/// What the embedder gives the interpreter: the builtin namespace and functions, and the
/// modules a program can import, as CPython's `PyImport_Inittab` is the embedding
/// application's. The interpreter knows neither itself; [`Vm::import`] asks `find`, a call of
/// a builtin function goes through `builtins` (the chain's are `crate::modules::LIBRARY` and
/// `crate::builtins::BUILTINS`, in the layers above), so the interpreter and the object
/// methods beside it never depend on the functions and modules they run.
pub struct Library {
    /// The loader of an importable module; `None` for every other name
    /// (ModuleNotFoundError).
    pub find: fn(&str) -> Option<Loader>,
    /// Whether a module is a package (the wording of ImportError for a missing submodule).
    pub is_package: fn(&str) -> bool,
    /// The builtin namespace and what each builtin function does.
    pub builtins: &'static Builtins,
}

/// The builtin namespace and functions of an interpreter ([`Library::builtins`]). A builtin
/// function value holds a [`BuiltinFn`], a plain name; these say what it does.
pub struct Builtins {
    /// Complete the builtin classes (the functions installed on them) and make the builtin
    /// namespace, once per thread ([`Base`]).
    pub install: fn(&Types) -> NameMap,
    /// Call builtin function `f` with `args`.
    pub call: fn(&mut Vm, BuiltinFn, Args) -> R<Value>,
    /// The entry of `f` that takes positional arguments where they lie (`f(a, b)` on the
    /// value stack, no argument vector), if it has one; it answers and charges as `call` does.
    pub positional: fn(BuiltinFn) -> Option<PositionalFn>,
}

/// A builtin called with positional arguments only, given them where they lie.
pub type PositionalFn = fn(&mut Vm, &[Value]) -> R<Value>;

thread_local! {
    static BASE: std::cell::OnceCell<Base> = const { std::cell::OnceCell::new() };
}

/// One VM instance = one invocation. `'h` is the lifetime of the embedder's host.
pub struct Vm<'h> {
    /// What `import` can load (the thread's [`Base`]'s).
    library: &'static Library,
    /// Builtin classes (the thread's [`Base`], shared).
    pub types: Rc<Types>,
    /// Builtin namespace (the thread's [`Base`], shared).
    pub builtins: Rc<NameMap>,
    /// Limits.
    pub limits: Limits,
    /// The cycle budget: charging past it aborts. `u64::MAX` when unlimited (the cycles
    /// charged saturate there, so it is never exceeded).
    cycle_limit: u64,
    /// Cycles that can still be charged: the budget less what has been charged. The meter
    /// counts down so that [`Vm::charge`], run before every instruction, is one subtraction
    /// and one branch (a running total compared with the limit was two more instructions and
    /// a load per bytecode).
    fuel: u64,
    /// What the charges that failed asked for beyond the fuel they found: the cycles charged
    /// are `cycle_limit - fuel + overdraft` ([`Vm::cycles`]), as when the total ran past the
    /// budget.
    overdraft: u64,
    /// Instructions executed.
    pub(crate) instructions: u64,
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
    /// Finished direct calls ([`Callee`]s), boxed so that the loop moves a pointer, reused
    /// whole (buffers, code and globals) by the next direct call: see `callee_frame`.
    #[expect(
        clippy::vec_box,
        reason = "a spare callee is handed out as the box the loop moves around"
    )]
    spare_callees: Vec<Box<Callee>>,
    /// This VM builds the thread's [`Base`] (its objects outlive it): `pvm_host` loads without
    /// a host, and dropping the VM leaves the containers it made alone.
    pub(crate) building_base: bool,
    /// What decimal.py registered with its native core (`native::decimal::Registry`), kept
    /// opaque here so the interpreter does not depend on the module.
    pub(crate) decimal_core: Option<Rc<dyn std::any::Any>>,
    /// What `_dataclasses.attrs` remembers per names tuple (`native::dataclasses::Reads`),
    /// opaque here for the same reason.
    pub(crate) dataclass_reads: Option<Rc<dyn std::any::Any>>,
    /// Calls made to the host so far ([`Vm::host_call`]): a module body that made none is a pure
    /// function of its code, which the body cache relies on (`crate::body_cache`).
    pub(crate) host_calls: u64,
}

/// Frames kept for reuse, and the largest buffer worth keeping (a frame that once held a huge
/// stack should not pin it for the rest of the invocation).
const SPARE_FRAMES: usize = 64;
const SPARE_FRAME_CAPACITY: usize = 256;

impl<'h> Vm<'h> {
    /// New VM with the given limits, importing from `library`. Resets the thread's memory
    /// accounting. The thread's first VM builds the shared base with its `library`, which
    /// every later VM of the thread uses (a process has one: `crate::modules::LIBRARY`).
    pub fn new(limits: Limits, library: &'static Library) -> Vm<'h> {
        let (library, types, builtins) = BASE.with(|b| {
            let base = b.get_or_init(|| crate::value::permanent(|| Vm::build_base(library)));
            (base.library, base.types.clone(), base.builtins.clone())
        });
        crate::memory::reset(limits.memory);
        // Caches filled by the thread's earlier invocations must not make this one cheaper:
        // an inline-cache refill owes a class lookup, a hit does not (`value::new_class_epoch`).
        crate::value::new_class_epoch();
        Vm::with_base(limits, library, types, builtins)
    }

    /// The thread's [`Base`]: the builtin classes, the namespace that names them, and the
    /// `cowboy_sdk` module, whose body runs here once, unmetered, in a VM of its own.
    fn build_base(library: &'static Library) -> Base {
        let types = Rc::new(crate::objects::types::make_types());
        let builtins = Rc::new((library.builtins.install)(&types));
        let (pvm_host, sdk) = {
            let mut vm = Vm::with_base(Limits::default(), library, types.clone(), builtins.clone());
            vm.building_base = true;
            // `pvm_host` first, so the SDK's own import finds this module.
            let host = vm.import("pvm_host");
            let host = Vm::base_module(&mut vm, host, "pvm_host");
            let sdk = vm.import("cowboy_sdk");
            (host, Vm::base_module(&mut vm, sdk, "cowboy_sdk"))
        };
        Base {
            library,
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

    fn with_base(
        limits: Limits,
        library: &'static Library,
        types: Rc<Types>,
        builtins: Rc<NameMap>,
    ) -> Vm<'h> {
        Vm {
            library,
            types,
            builtins,
            limits,
            cycle_limit: limits.cycles.unwrap_or(u64::MAX),
            fuel: limits.cycles.unwrap_or(u64::MAX),
            overdraft: 0,
            instructions: 0,
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
            spare_callees: Vec::new(),
            building_base: false,
            decimal_core: None,
            dataclass_reads: None,
            host_calls: 0,
        }
    }

    /// The cycle budget (`u64::MAX` when unlimited).
    pub(crate) fn cycle_limit(&self) -> u64 {
        self.cycle_limit
    }

    /// Cycles charged so far (including what a failed charge asked for).
    pub fn cycles(&self) -> u64 {
        (self.cycle_limit - self.fuel).saturating_add(self.overdraft)
    }

    /// The counters: cycles charged and instructions executed.
    pub fn stats(&self) -> Stats {
        Stats {
            cycles: self.cycles(),
            instructions: self.instructions,
        }
    }

    /// Set the counters to `s` (a replayed module body's, `crate::body_cache`), against this
    /// VM's budget.
    pub(crate) fn set_stats(&mut self, s: Stats) {
        self.instructions = s.instructions;
        self.fuel = self.cycle_limit.saturating_sub(s.cycles);
        self.overdraft = s.cycles.saturating_sub(self.cycle_limit);
    }

    /// Charge `n` cycles. THE metering point: every cycle the VM spends goes through here,
    /// before the work it pays for.
    #[inline]
    pub fn charge(&mut self, n: u64) -> R<()> {
        // The abort happens at the first charge that takes the total past the budget, and the
        // total (reported as cycles used) includes it: that charge's excess is the overdraft.
        match self.fuel.checked_sub(n) {
            Some(left) => {
                self.fuel = left;
                Ok(())
            }
            None => Err(self.overdrawn(n)),
        }
    }

    /// The rare half of [`Vm::charge`]: `n` is more than the fuel left.
    #[cold]
    #[inline(never)]
    fn overdrawn(&mut self, n: u64) -> Exc {
        self.overdraft = self.overdraft.saturating_add(n - self.fuel);
        self.fuel = 0;
        Exc::Abort(Abort::OutOfCycles)
    }

    /// Charge the work owed from below the VM (hash-table probes on name lookups,
    /// [`crate::memory::owe`]) and stop if memory went over its limit. The interpreter calls
    /// this before an instruction when the attention flag is up; table operations call it
    /// after each lookup, so a native loop of lookups pays as it goes.
    #[inline]
    pub fn settle(&mut self) -> R<()> {
        // The flag is up whenever either is pending (`memory::owe` and the over-limit mark
        // raise it; only `take_debt` lowers it, and not while over the limit), so one read
        // answers the common case, where a lookup owed nothing.
        if !crate::memory::attention() {
            return Ok(());
        }
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
        self.fuel
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
        crate::objects::types::set_exc_args(self, &inst, args);
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
    pub fn run_main(&mut self, code: Rc<crate::value::Code>, source: &str) -> R<Value> {
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
        code: Rc<crate::value::Code>,
        globals: Rc<PyDict>,
        ns: Option<Rc<PyDict>>,
        closure: &[Rc<PyCell>],
    ) -> Frame {
        let mut cells = Vec::new();
        Self::fill_cells(&mut cells, &code, closure);
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

    /// Fill a frame's (empty) `cells`: its own cells, then the closure's, in the buffer a
    /// reused frame already has (a closure called in a loop allocated a fresh vector, and
    /// freed the last, on every call).
    #[inline(always)]
    fn fill_cells(cells: &mut Vec<Rc<PyCell>>, code: &crate::value::Code, closure: &[Rc<PyCell>]) {
        // Most functions have no cells: that answer is inlined into every call.
        if !(code.cellvars.is_empty() && closure.is_empty()) {
            Self::fill_cells_slow(cells, code, closure);
        }
    }

    #[inline(never)]
    fn fill_cells_slow(
        cells: &mut Vec<Rc<PyCell>>,
        code: &crate::value::Code,
        closure: &[Rc<PyCell>],
    ) {
        cells.reserve(code.cellvars.len() + closure.len());
        cells.extend(
            code.cellvars
                .iter()
                .map(|_| crate::value::rc_cell(PyCell::default())),
        );
        cells.extend_from_slice(closure);
    }

    /// Fresh boxed frame for a call of `func` (the frames of [`Callee`]s and
    /// `call_positional`): a finished one reused when there is one. When it ran `func`'s code
    /// before (a loop calling one function, a recursion), its code, globals and local slots
    /// (all unbound by [`Vm::recycle_callee`]) are already right.
    ///
    /// A reused frame's local slots are only ever grown: a frame that ran a function with more
    /// locals keeps the extra slots, unbound. Nothing reads past the code's own slots (the
    /// compiler numbers them), so they change nothing, and a loop calling two functions in turn
    /// does not shrink and regrow the vector on every call (`Vec::resize`: a tenth of such a
    /// call's machine instructions).
    pub(crate) fn callee_frame(&mut self, func: &Function) -> Box<Callee> {
        let Some(mut c) = self.spare_callees.pop() else {
            let (code, globals) = (func.code.clone(), func.globals.clone());
            return Box::new(Callee {
                frame: self.new_frame(code, globals, None, &func.closure),
                init: None,
                callable: Value::None,
            });
        };
        let f = &mut c.frame;
        if !Rc::ptr_eq(&f.code, &func.code) {
            f.code = func.code.clone();
            let slots = f.code.varnames.len();
            if f.locals.len() < slots {
                f.locals.resize(slots, None);
            }
        }
        if !Rc::ptr_eq(&f.globals, &func.globals) {
            f.globals = func.globals.clone();
        }
        Self::fill_cells(&mut f.cells, &f.code, &func.closure);
        f.pc = 0;
        c
    }

    /// Give a finished [`Vm::callee_frame`] back for reuse. Its values are dropped here, in the
    /// order and at the point where dropping the frame would have dropped them (stack, locals,
    /// cells, blocks), then the callable it was called through; its local slots stay, unbound,
    /// for the next call of the same code. Its code and globals stay referenced until the frame
    /// is reused or the VM ends: a function's code object and its module's globals live as long
    /// as the module, which lives as long as the invocation, so holding them longer frees
    /// nothing later.
    pub(crate) fn recycle_callee(&mut self, mut c: Box<Callee>) {
        let f = &mut c.frame;
        f.stack.clear();
        for slot in f.locals.iter_mut() {
            if let Some(v) = slot.take() {
                if v.is_heap() {
                    drop(v);
                } else {
                    // An inline value owns nothing: this skips the call to its drop glue.
                    std::mem::forget(v);
                }
            }
        }
        f.cells.clear();
        f.blocks.clear();
        c.callable = Value::None;
        c.init = None;
        let f = &c.frame;
        if self.spare_callees.len() < SPARE_FRAMES
            && f.stack.capacity() <= SPARE_FRAME_CAPACITY
            && f.locals.capacity() <= SPARE_FRAME_CAPACITY
            && f.cells.capacity() <= SPARE_FRAME_CAPACITY
        {
            self.spare_callees.push(c);
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
        f.stack.pop().unwrap_or_default()
    }
    fn top(f: &Frame) -> &Value {
        f.stack.last().unwrap_or(&Value::None)
    }

    fn cell_name(&self, code: &crate::value::Code, i: u32) -> Rc<str> {
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
            .unwrap_or_default();
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
        // One pass over the namespace: the names type_new treats specially are recognised as
        // they are copied, so the new class's map is hashed once per name, never searched.
        let mut dict = NameMap::with_capacity_and_hasher(entries as usize + 2, Default::default());
        let (mut has_eq, mut has_hash, mut has_doc) = (false, false, false);
        let mut qualname = None;
        let mut slots = None;
        for e in ns.table.borrow().iter() {
            let Value::Str(s) = &e.key else { continue };
            let mut value = e.value.clone();
            match s.s.as_str() {
                "__eq__" => has_eq = true,
                "__hash__" => has_hash = true,
                "__doc__" => has_doc = true,
                "__slots__" => slots = Some(value.clone()),
                // A str `__qualname__` names the class and is not kept in its namespace.
                "__qualname__" => {
                    if let Value::Str(q) = &value {
                        qualname = Some(q.clone());
                        continue;
                    }
                }
                // __new__ and __init_subclass__/__class_getitem__ are implicitly static and
                // class methods.
                "__new__" => {
                    if let Value::Function(_) = &value {
                        value = Value::StaticMethod(Rc::new(Wrapped(value)));
                    }
                }
                "__init_subclass__" | "__class_getitem__" => {
                    if let Value::Function(_) = &value {
                        value = Value::ClassMethod(Rc::new(Wrapped(value)));
                    }
                }
                _ => {}
            }
            dict.insert(Rc::from(&*s.s), value);
        }
        // A class that defines __eq__ but not __hash__ is unhashable, and its subclasses
        // inherit that (CPython's type_new sets __hash__ to None).
        if has_eq && !has_hash {
            dict.insert("__hash__".into(), Value::None);
        }
        // Every class has its own __doc__ (never inherited).
        if !has_doc {
            dict.insert("__doc__".into(), Value::None);
        }
        let cls = self.make_class(&name, bases, dict, slots)?;
        if let Some(q) = qualname {
            *cls.qualname.borrow_mut() = q.s.as_str().into();
        }
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
        // Only instances can have `__set_name__` (a class or a builtin value cannot define it
        // for itself), so only they are taken out of the namespace before the calls.
        let items: Vec<(Rc<str>, Value)> = cls
            .dict
            .borrow()
            .iter()
            .filter(|(_, v)| matches!(v, Value::Instance(_)))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        for (k, v) in items {
            if self.lookup_dunder(&v, "__set_name__").is_some() {
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
            if let Some(init_sub) = parent.lookup_static("__init_subclass__") {
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
        let slots = dict.get("__slots__").cloned();
        self.make_class(name, bases, dict, slots)
    }

    /// [`Vm::new_class`] once the namespace is final, with its `__slots__` entry if any.
    fn make_class(
        &mut self,
        name: &str,
        bases: Vec<Rc<Class>>,
        dict: NameMap,
        slots: Option<Value>,
    ) -> R<Rc<Class>> {
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
        let declared = match slots {
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
        match (self.library.find)(name) {
            Some(loader) => {
                self.charge(cost::IMPORT_FIRST)?;
                let m = loader(self, name)?;
                self.modules.insert(name.into(), m.clone());
                if let Some((Value::Module(pm), _, child)) = &parent {
                    self.dict_set_str(&pm.dict_mut(), child, m.clone())?;
                }
                Ok(m)
            }
            None => {
                self.charge(cost::IMPORT_MISS)?;
                let msg = match parent {
                    Some((_, p, _)) if !(self.library.is_package)(p) => {
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

    /// Call the host, mapping its errors into the VM: a refusal is the Python exception it
    /// names, running out of cells or a host failure aborts the invocation. Counted in
    /// `host_calls`.
    pub(crate) fn host_call<T>(
        &mut self,
        f: impl FnOnce(&mut dyn crate::host::Host) -> Result<T, crate::host::HostError>,
    ) -> R<T> {
        use crate::host::HostError;
        self.host_calls += 1;
        let Some(h) = self.host.as_mut() else {
            return Err(self.new_exc("RuntimeError", "no chain host is attached"));
        };
        match f(&mut **h) {
            Ok(v) => Ok(v),
            Err(HostError::Rejected { class, message }) => Err(self.new_exc(class, &message)),
            Err(HostError::OutOfCells) => Err(Exc::Abort(Abort::OutOfCells)),
            Err(HostError::Fatal(_)) => Err(Exc::Abort(Abort::HostFailure)),
        }
    }

    /// The Python exception of a codec failure (`crate::codec`).
    pub(crate) fn codec_error(&mut self, e: crate::codec::CodecError) -> Exc {
        use crate::codec::CodecError;
        match e {
            CodecError::UnknownEncoding(name) => {
                self.new_exc("LookupError", &format!("unknown encoding: {name}"))
            }
            CodecError::UnknownHandler(name) => self.new_exc(
                "LookupError",
                &format!("unknown error handler name '{name}'"),
            ),
            CodecError::Unicode { decode, args } => {
                let class = if decode {
                    "UnicodeDecodeError"
                } else {
                    "UnicodeEncodeError"
                };
                let cls = self.types.exc[class].clone();
                Exc::Py(self.make_exc(&cls, args.into()))
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
