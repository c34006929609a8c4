//! The PVM bytecode: a compact stack-machine instruction set (ARCHITECTURE D2).
//!
//! A [`Code`] object is what the compiler produces for a module, function, lambda, class body
//! or comprehension. Instructions carry their operands inline (`u32` indexes into the code's
//! constant and name tables or local slots), so dispatch is one `match`. Every instruction has a
//! source line in `lines` for tracebacks. Exception handling uses a block stack (`SetupExcept`,
//! `SetupFinally`, `PopBlock`); `finally` bodies on the non-exceptional paths are inlined by
//! the compiler.

use crate::value::{Builtin, Class, Function, PyStr, Value};
use std::cell::{Cell, RefCell};
use std::rc::{Rc, Weak};

/// Binary operators, shared by `Op::Binary` and `Op::Inplace`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    MatMul,
    TrueDiv,
    FloorDiv,
    Mod,
    Pow,
    LShift,
    RShift,
    And,
    Or,
    Xor,
}

/// Rich comparison operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum CmpOp {
    Lt,
    Le,
    Eq,
    Ne,
    Gt,
    Ge,
}

/// One instruction.
#[derive(Clone, Copy, Debug, PartialEq)]
#[allow(missing_docs)]
pub enum Op {
    Nop,
    Pop,
    Dup,
    Dup2,
    Rot2,
    Rot3,
    Rot4,
    LoadConst(u32),
    LoadNone,
    LoadFast(u32),
    StoreFast(u32),
    DeleteFast(u32),
    LoadDeref(u32),
    StoreDeref(u32),
    DeleteDeref(u32),
    LoadClosure(u32),
    LoadGlobal(u32),
    StoreGlobal(u32),
    DeleteGlobal(u32),
    /// Class body / module: namespace, then globals, then builtins.
    LoadName(u32),
    StoreName(u32),
    DeleteName(u32),
    /// Class body reading a free variable: namespace first, then the cell.
    LoadClassDeref(u32, u32),
    LoadAttr(u32),
    StoreAttr(u32),
    DeleteAttr(u32),
    /// `obj.name(args…)` without allocating a bound method: (name, argc).
    CallMethod(u32, u32),
    Subscr,
    StoreSubscr,
    DeleteSubscr,
    Binary(BinOp),
    Inplace(BinOp),
    Compare(CmpOp),
    Is(bool),
    In(bool),
    Not,
    Neg,
    Pos,
    Invert,
    BuildTuple(u32),
    BuildList(u32),
    BuildSet(u32),
    BuildMap(u32),
    BuildSlice(u32),
    BuildString(u32),
    /// Pop iterable, extend the list/set below it (starred displays).
    ListExtend,
    /// `ListExtend` while building a call's positional arguments (stack: callee, list, it).
    ArgsExtend,
    SetUpdate,
    DictUpdate,
    /// Merge for `**kw` in calls: like DictUpdate but duplicate keys are a TypeError.
    DictMerge,
    ListToTuple,
    /// Comprehension appends: the container is `n` below the top.
    ListAppend(u32),
    SetAdd(u32),
    MapAdd(u32),
    /// `format(value, spec)` for f-strings: flag bit 0 = has spec on stack, bits 1-2 conversion
    /// (0 none, 1 str, 2 repr, 3 ascii).
    FormatValue(u32),
    Jump(u32),
    JumpIfFalse(u32),
    JumpIfTrue(u32),
    /// Peek: jump keeping the value if false/true, else pop (and/or).
    JumpIfFalseOrPop(u32),
    JumpIfTrueOrPop(u32),
    GetIter,
    /// Next item or pop the iterator and jump.
    ForIter(u32),
    UnpackSequence(u32),
    /// (before, after) counts around a starred target.
    UnpackEx(u32, u32),
    /// Positional call with `argc` args.
    Call(u32),
    /// Call with keywords: (argc total, const index of a tuple of keyword names).
    CallKw(u32, u32),
    /// Call with `*args` tuple and (flag=1) `**kwargs` dict on the stack.
    CallEx(u32),
    /// Make a function from the code constant; flags: 1 defaults tuple, 2 kw-defaults dict,
    /// 4 closure tuple.
    MakeFunction(u32, u32),
    /// Stack: body function, name, bases tuple → class. The u32 is the keywords flag.
    BuildClass(u32),
    ReturnValue,
    YieldValue,
    /// Delegate to the sub-iterator under the sent value.
    YieldFrom,
    /// An imaginary literal: pops the float `x`, pushes `complex(0, x)`.
    Imaginary,
    /// `await`: the awaitable behind the popped value. The operand names the context for
    /// CPython's error messages: 0 `await`, 1 `__aenter__`, 2 `__aexit__`, 3 `__anext__`.
    GetAwaitable(u32),
    /// `async with`: pops the manager, pushes bound `__aexit__` then the `__aenter__()` result.
    BeforeAsyncWith,
    /// Exceptional `async with` exit: stack `__aexit__`, exc → exc, `__aexit__(type, exc, tb)`.
    AsyncWithExcept,
    /// After awaiting `__aexit__`: stack exc, result. Swallows (truthy) or re-raises.
    AsyncWithExceptEnd,
    /// `async for`: pops the iterable, pushes `__aiter__()`.
    GetAIter,
    /// `async for`: peeks the async iterator, pushes the awaitable of `__anext__()`.
    GetANext,
    /// `except*` (PEP 654) entry: stack exc → orig, [] (exceptions raised by handlers), rest.
    ExcStarBegin,
    /// `except* T`: stack orig, list, rest, T. On a match: orig, list, rest', match, with
    /// `match` being handled (a handler block); else orig, list, rest and jump.
    ExcStarMatch(u32),
    /// End of `except*`: stack orig, list, rest → what remains to raise (`PREP_RERAISE_STAR`)
    /// is re-raised, or the statement is done.
    ExcStarEnd,
    /// End of an `async for` (handler): stack iterator, exc. `StopAsyncIteration` pops both and
    /// continues after the loop; anything else is re-raised.
    EndAsyncFor,
    Raise(u32),
    SetupExcept(u32),
    SetupFinally(u32),
    PopBlock,
    /// End of an except handler: drop the handled-exception marker.
    PopExcept,
    /// End of a finally reached by an exception: re-raise it.
    Reraise,
    /// Exception matching: pops type, peeks exception, pushes bool.
    ExcMatch,
    /// `with`: pops manager, pushes bound `__exit__` then the `__enter__` result.
    WithEnter,
    /// Normal `with` exit: pops `__exit__` and calls it with three Nones.
    WithExit,
    /// Exceptional `with` exit: stack `__exit__`, exc. Swallows or re-raises.
    WithExcept,
    ImportName(u32),
    ImportFrom(u32),
    ImportStar,
    /// Match statement helpers.
    /// `MatchClass(0)`: stack subject, class → is-instance bool. `MatchClass(k)`: the k-th
    /// positional sub-pattern's attribute (via `__match_args__`), pushed as `MatchAttr` does.
    MatchClass(u32),
    /// Pops the subject; pushes its attribute and `True`, or only `False` when the attribute
    /// is missing (a missing attribute fails the class pattern, it is not an error).
    MatchAttr(u32),
    MatchMapping,
    MatchSequence,
    GetLen,
    CopyDictWithoutKeys,
    /// Push `SetupAnnotations`-free no-op marker for `assert` failures.
    LoadAssertionError,
    // Superinstructions ([`quicken`]): each is the first of two adjacent instructions,
    // rewritten to run the second too. The second stays in its slot, unchanged.
    /// `LoadFast(a)` then `LoadFast(b)`.
    LoadFastLoadFast(u32, u32),
    /// `LoadFast(a)` then `LoadConst(c)`.
    LoadFastLoadConst(u32, u32),
    /// `StoreFast(a)` then `LoadFast(b)`.
    StoreFastLoadFast(u32, u32),
    /// `StoreFast(a)` then `StoreFast(b)`.
    StoreFastStoreFast(u32, u32),
    /// `LoadGlobal(i)` then `LoadFast(a)`.
    LoadGlobalLoadFast(u32, u32),
    /// `LoadFast(a)` then `LoadAttr(i)`.
    LoadFastLoadAttr(u32, u32),
    /// `LoadFast(a)` then `Binary(b)` or `Inplace(b)` (the same on the fast path, ints and
    /// floats; off it, the second instruction runs from its slot).
    LoadFastBinary(u32, BinOp),
    /// `LoadConst(c)` then `Binary(b)` or `Inplace(b)`.
    LoadConstBinary(u32, BinOp),
    /// `Compare(c)` then `JumpIfFalse(t)`.
    CompareJumpIfFalse(CmpOp, u32),
    /// `ForIter(end)` then `StoreFast(a)`.
    ForIterStoreFast(u32, u32),
    /// `Jump(t)` to a `ForIter` (or a `ForIterStoreFast`): a loop's back edge and its next
    /// step.
    JumpForIter(u32),
}

impl Op {
    /// The local slot this instruction stores to first, if it starts with `StoreFast` (a
    /// superinstruction included): what an instruction that looks at its successor sees.
    pub fn stores_fast(self) -> Option<u32> {
        match self {
            Op::StoreFast(a) | Op::StoreFastLoadFast(a, _) | Op::StoreFastStoreFast(a, _) => {
                Some(a)
            }
            _ => None,
        }
    }
}

/// Rewrite common pairs of adjacent instructions into superinstructions, as CPython 3.11's
/// `LOAD_FAST__LOAD_FAST` and friends: the first of the pair becomes an instruction that does
/// the work of both and moves past the second, and the second keeps its slot, so a jump to it,
/// its source line and the instruction count are what they were.
///
/// Which pairs: along the straight line, the tiling that saves the most, a pair that also
/// saves a push and a pop (a value produced only to be consumed) weighing twice a pair that
/// saves only the dispatch. Then every `Jump` to a loop's `ForIter` runs that step too.
///
/// Why results and metering cannot change: the interpreter runs a superinstruction as the
/// two instructions one after the other, each charging its own cost, counting itself and
/// settling owed work when the attention flag is up in between (`vm::dispatch`); only the
/// second dispatch (and the value passed between them) is saved. Where the second half cannot
/// take its fast path (an unbound local, operands of other kinds, a profiled run) the first
/// half runs alone and the second instruction runs from its own slot.
pub fn quicken(ops: &mut [Op]) {
    let n = ops.len();
    // best[i]: the most weight pairs can save in ops[i..]; take[i]: whether the best starts
    // with the pair at i.
    let mut best = vec![0u32; n + 2];
    let mut take = vec![false; n];
    for i in (0..n.saturating_sub(1)).rev() {
        let skip = best[i + 1];
        let pair = fuse(ops[i], ops[i + 1]).map(|(_, w)| w + best[i + 2]);
        match pair {
            Some(w) if w > skip => {
                best[i] = w;
                take[i] = true;
            }
            _ => best[i] = skip,
        }
    }
    let mut i = 0;
    while i + 1 < n {
        match fuse(ops[i], ops[i + 1]) {
            Some((fused, _)) if take[i] => {
                ops[i] = fused;
                i += 2;
            }
            _ => i += 1,
        }
    }
    for i in 0..n {
        if let Op::Jump(t) = ops[i] {
            if let Some(Op::ForIter(_) | Op::ForIterStoreFast(..)) = ops.get(t as usize) {
                ops[i] = Op::JumpForIter(t);
            }
        }
    }
}

/// The superinstruction for `first` then `second`, with its weight in [`quicken`].
fn fuse(first: Op, second: Op) -> Option<(Op, u32)> {
    Some(match (first, second) {
        (Op::LoadFast(a), Op::LoadFast(b)) => (Op::LoadFastLoadFast(a, b), 1),
        (Op::LoadFast(a), Op::LoadConst(c)) => (Op::LoadFastLoadConst(a, c), 1),
        (Op::StoreFast(a), Op::LoadFast(b)) => (Op::StoreFastLoadFast(a, b), 1),
        (Op::StoreFast(a), Op::StoreFast(b)) => (Op::StoreFastStoreFast(a, b), 1),
        (Op::LoadGlobal(i), Op::LoadFast(a)) => (Op::LoadGlobalLoadFast(i, a), 1),
        (Op::LoadFast(a), Op::LoadAttr(i)) => (Op::LoadFastLoadAttr(a, i), 2),
        (Op::LoadFast(a), Op::Binary(b)) => (Op::LoadFastBinary(a, b), 2),
        (Op::LoadFast(a), Op::Inplace(b)) => (Op::LoadFastBinary(a, b), 2),
        (Op::LoadConst(c), Op::Binary(b)) => (Op::LoadConstBinary(c, b), 2),
        (Op::LoadConst(c), Op::Inplace(b)) => (Op::LoadConstBinary(c, b), 2),
        (Op::Compare(c), Op::JumpIfFalse(t)) => (Op::CompareJumpIfFalse(c, t), 2),
        (Op::ForIter(end), Op::StoreFast(a)) => (Op::ForIterStoreFast(end, a), 2),
        _ => return None,
    })
}

/// What a code object is for; decides how names resolve and what a call returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CodeKind {
    /// Top level of a file.
    Module,
    /// `def` or `lambda`.
    Function,
    /// A class body.
    Class,
    /// A comprehension or generator expression.
    Comprehension,
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quicken_takes_the_tiling_that_saves_most_and_keeps_every_slot() {
        let mut ops = vec![
            Op::ForIter(9),
            Op::StoreFast(0),
            Op::LoadFast(0),
            Op::LoadFast(1),
            Op::Binary(BinOp::Add),
            Op::LoadConst(0),
            Op::Compare(CmpOp::Lt),
            Op::JumpIfFalse(0),
            Op::Jump(0),
            Op::StoreFast(1),
            Op::StoreFast(2),
        ];
        quicken(&mut ops);
        assert_eq!(
            ops,
            vec![
                Op::ForIterStoreFast(9, 0),
                Op::StoreFast(0),
                // `a + b`: the load of `b` pairs with the add (it saves a push and a pop),
                // not with the load of `a`.
                Op::LoadFast(0),
                Op::LoadFastBinary(1, BinOp::Add),
                Op::Binary(BinOp::Add),
                Op::LoadConst(0),
                Op::CompareJumpIfFalse(CmpOp::Lt, 0),
                Op::JumpIfFalse(0),
                Op::JumpForIter(0),
                Op::StoreFastStoreFast(1, 2),
                Op::StoreFast(2),
            ]
        );
        // A superinstruction still says where its first half stores.
        assert_eq!(ops[9].stores_fast(), Some(1));
    }
}
