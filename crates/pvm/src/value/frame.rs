//! Interpreter frames: the value stack, local slots, cells and the exception block stack of one
//! executing code object. Generator frames live on the heap and are resumed.
//!
//! Part of the data model (a generator value holds its frame); the interpreter (`vm`) is
//! what runs it.

use super::{Code, PyCell, PyDict, Value};
use std::rc::Rc;

/// Kind of a block-stack entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlockKind {
    /// `try` with except clauses.
    Except,
    /// `try` with finally or a `with` body.
    Finally,
    /// Inside an except/finally handler: remembers the exception being handled.
    Handler,
}

/// A block-stack entry.
#[derive(Debug, Clone)]
pub struct Block {
    /// Kind.
    pub kind: BlockKind,
    /// Handler address.
    pub handler: u32,
    /// Value stack depth to restore.
    pub depth: u32,
    /// For Handler blocks: the exception being handled.
    pub exc: Option<Value>,
}

/// One activation.
#[derive(Debug)]
pub struct Frame {
    /// Code being run.
    pub code: Rc<Code>,
    /// Next instruction.
    pub pc: usize,
    /// Value stack.
    pub stack: Vec<Value>,
    /// Fast locals; `None` = unbound.
    pub locals: Vec<Option<Value>>,
    /// Cells then free variables.
    pub cells: Vec<Rc<PyCell>>,
    /// Module globals.
    pub globals: Rc<PyDict>,
    /// Namespace for class bodies (module frames use `globals`).
    pub ns: Option<Rc<PyDict>>,
    /// Exception blocks.
    pub blocks: Vec<Block>,
    /// Generator has started (a non-None send is legal).
    pub started: bool,
}

impl Frame {
    /// Line of the instruction at `pc - 1` (the one executing).
    pub fn line(&self) -> u32 {
        let i = self.pc.saturating_sub(1);
        self.code
            .lines
            .get(i)
            .copied()
            .unwrap_or(self.code.firstline)
    }
}

/// Push `v` on a value stack: `Vec::push`, with the store written here so that it is inlined
/// into the dispatch loop.
///
/// Why not `Vec::push`: since Rust 1.9x it calls `Vec::push_mut`, which the compiler declines
/// to inline into a function as large as the dispatch loop, so every `LoadFast` paid a call
/// (`perf`: 3–4% of `oo_constraint_solver` and `float_particles` inside `push_mut`). Frames
/// are recycled with their buffers, so the capacity check almost never grows the vector.
#[inline(always)]
#[expect(
    unsafe_code,
    reason = "an inlined push; the SAFETY note says why the write is in bounds"
)]
pub fn push(stack: &mut Vec<Value>, v: Value) {
    let len = stack.len();
    if len == stack.capacity() {
        grow(stack);
    }
    // SAFETY: `len < capacity` now (`grow` reserved at least one more slot), so the slot at
    // `len` is allocated and uninitialised; writing it and then raising the length by one is
    // exactly what `Vec::push` does after its own capacity check.
    unsafe {
        stack.as_mut_ptr().add(len).write(v);
        stack.set_len(len + 1);
    }
}

/// The rare half of [`push`]: make room for one more value.
#[cold]
#[inline(never)]
fn grow(stack: &mut Vec<Value>) {
    stack.reserve(1);
}
