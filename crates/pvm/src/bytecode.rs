//! The PVM bytecode: a compact stack-machine instruction set (ARCHITECTURE D2).
//!
//! Plain data that names no value: the code object that holds these instructions with its
//! constants and caches is part of the data model (`crate::value::Code`), so this module
//! sits below it. A code object is what the compiler produces for a module, function,
//! lambda, class body or comprehension. Instructions carry their operands inline (`u32` indexes into the code's
//! constant and name tables or local slots), so dispatch is one `match`. Every instruction has a
//! source line in `lines` for tracebacks. Exception handling uses a block stack (`SetupExcept`,
//! `SetupFinally`, `PopBlock`); `finally` bodies on the non-exceptional paths are inlined by
//! the compiler.

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
    /// `LoadFast(a)` then `ReturnValue` (`return x`).
    LoadFastReturn(u32),
    /// `LoadConst(c)` then `ReturnValue` (`return 0`).
    LoadConstReturn(u32),
    /// `LoadNone` then `ReturnValue`: `return None`, and every function body's implicit end.
    LoadNoneReturn,
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
        (Op::LoadFast(a), Op::ReturnValue) => (Op::LoadFastReturn(a), 2),
        (Op::LoadConst(c), Op::ReturnValue) => (Op::LoadConstReturn(c), 2),
        (Op::LoadNone, Op::ReturnValue) => (Op::LoadNoneReturn, 2),
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
        // A load and the return of what it loaded.
        let mut ops = vec![
            Op::LoadFast(3),
            Op::ReturnValue,
            Op::LoadConst(1),
            Op::ReturnValue,
            Op::LoadNone,
            Op::ReturnValue,
        ];
        quicken(&mut ops);
        assert_eq!(
            ops,
            vec![
                Op::LoadFastReturn(3),
                Op::ReturnValue,
                Op::LoadConstReturn(1),
                Op::ReturnValue,
                Op::LoadNoneReturn,
                Op::ReturnValue,
            ]
        );
    }
}
