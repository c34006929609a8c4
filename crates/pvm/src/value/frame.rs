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
