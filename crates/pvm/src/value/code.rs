//! A compiled code object ([`Code`]): the instructions (`crate::bytecode`) of a module,
//! function, lambda, class body or comprehension with their constants, names, line table and
//! per-site caches.
//!
//! Part of the data model: a function value holds its code object, a code object its
//! constant values and the classes and functions its caches remember (weakly), so the three
//! are one recursive family of types and live in one module, as CPython keeps code, function
//! and frame objects beside the other objects.

use super::{Builtin, Class, Function, PyStr, Value};
use crate::bytecode::{CodeKind, Op};
use std::cell::{Cell, RefCell};
use std::rc::{Rc, Weak};

/// A compiled code object.
#[derive(Debug)]
pub struct Code {
    /// Function or class name (`<module>`, `<lambda>`, `<listcomp>` …).
    pub name: Rc<str>,
    /// Qualified name used in reprs.
    pub qualname: Rc<str>,
    /// Source file name for tracebacks.
    pub filename: Rc<str>,
    /// Kind of scope.
    pub kind: CodeKind,
    /// Instructions.
    pub ops: Vec<Op>,
    /// Source line of each instruction.
    pub lines: Vec<u32>,
    /// Constants.
    pub consts: Vec<Value>,
    /// Names for global/attribute/name ops.
    /// Interned per compilation (one `Rc` per distinct name), so lookups by these names
    /// compare pointers first and instance dicts share their keys.
    pub names: Vec<Rc<PyStr>>,
    /// The inline cache of each name (parallel to `names`; see `vm::inline_cache`).
    pub name_caches: Vec<NameCache>,
    /// Nested code objects (functions, classes, comprehensions) for `MakeFunction`.
    pub codes: Vec<Rc<Code>>,
    /// Local variable names (fast slots); parameters come first.
    pub varnames: Vec<Rc<str>>,
    /// Names of cells created by this code (captured by inner functions).
    pub cellvars: Vec<Rc<str>>,
    /// Names of cells received from the enclosing function.
    pub freevars: Vec<Rc<str>>,
    /// For each cellvar that is also a parameter: (cell index, local slot).
    pub cell_params: Vec<(u32, u32)>,
    /// Positional parameters (including positional-only).
    pub argcount: u32,
    /// Positional-only parameter count.
    pub posonly: u32,
    /// Keyword-only parameter count.
    pub kwonly: u32,
    /// Has `*args`.
    pub varargs: bool,
    /// Has `**kwargs`.
    pub varkw: bool,
    /// Contains `yield`.
    pub is_generator: bool,
    /// `async def` (or an async comprehension): calling it makes a coroutine.
    pub is_coroutine: bool,
    /// `async def` containing `yield` (or an async generator expression).
    pub is_async_gen: bool,
    /// Line of the `def`.
    pub firstline: u32,
}

impl Code {
    /// A call with `n` positional arguments and no keywords, of a function with `ndefaults`
    /// positional defaults, binds them straight to the first `n` local slots and the defaults
    /// to the rest of the parameters: no missing or extra argument, no `*args`, `**kwargs` or
    /// keyword-only parameters to fill, and the body runs now (not a generator or coroutine).
    /// The interpreter's direct call path (`Vm::enter_positional`) is taken only then.
    pub fn takes_positional(&self, n: u32, ndefaults: usize) -> bool {
        (self.argcount == n
            || (self.argcount > n && n as usize + ndefaults >= self.argcount as usize))
            && !self.varargs
            && !self.varkw
            && self.kwonly == 0
            && !self.is_generator
            && !self.is_coroutine
    }
}

/// [`NameCache::flags`]: a value in the instance dict is the attribute.
pub(crate) const FACT_DICT_LOAD: u8 = 1;
/// [`NameCache::flags`]: `obj.name = v` is a plain instance dict store.
pub(crate) const FACT_PLAIN_STORE: u8 = 2;

/// What the last class seen at a name's sites tells about it (`vm::inline_cache`).
#[derive(Debug)]
pub(crate) struct ClassFacts {
    /// The class, held so that no other class can be allocated at the address
    /// [`NameCache::seen`] compares with while these facts are remembered.
    #[expect(
        dead_code,
        reason = "held for its allocation, never read: it keeps the remembered address unique"
    )]
    pub(crate) class: Weak<Class>,
    /// The plain function the class finds for `name`, if it is one.
    pub(crate) method: Option<Weak<Function>>,
    /// The native method (a native class's, `Decimal.quantize`) the class's own namespace
    /// holds for `name`, if it is one and `obj.name` would bind it (`vm::inline_cache`).
    pub(crate) native: Option<Weak<Builtin>>,
}

/// The inline cache of one name of a code object. The code object holds it (as CPython keeps
/// inline cache entries beside the instructions); `vm::inline_cache` fills it, reads it and
/// explains why it can change no result, cycle count or memory figure.
#[derive(Debug, Default)]
pub struct NameCache {
    pub(crate) facts: RefCell<Option<ClassFacts>>,
    /// The hot copy of `facts`, read without borrowing it: the address of its class (0 =
    /// none yet), its epoch, and its two flags (`FACT_DICT_LOAD`, `FACT_PLAIN_STORE`). Set
    /// only with `facts`, whose `Weak` keeps that address from being reused by another class.
    pub(crate) seen: Cell<(usize, u64)>,
    pub(crate) flags: Cell<u8>,
    /// Where the name was last found in a dict (instance dict or globals).
    pub(crate) hint: Cell<u32>,
    /// For `obj.name(…)` on a builtin value: the last receiver kind seen (see `builtin_kind`,
    /// 0 = none yet), whether that type has a method `name`, and the row of its method table
    /// that `call_method` takes for it (`objects::method_row`; `objects::NO_ROW` if none).
    pub(crate) builtin: Cell<(u8, bool, u16)>,
    /// For a global load that falls through to the builtins: the position of `name` in the
    /// builtin namespace, checked by its key before use (the namespace is immutable and not
    /// probe-charged, so a hit answers and costs exactly what the hashed lookup does).
    pub(crate) builtin_at: Cell<u32>,
    /// The last dict the name was looked up in and missing from, named by its table's
    /// [`crate::value::Table::stamp`], and the slots that walk read (see
    /// `PyDict::find_name_memo`): a global load of a builtin name misses the module globals,
    /// and a method call misses the instance dict, on every execution.
    pub(crate) absent: Cell<(u64, u64)>,
}
