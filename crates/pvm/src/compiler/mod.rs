//! The PVM compiler: Python 3.11 source → [`Code`] objects (ARCHITECTURE D2).
//!
//! Parsing is `ruff_python_parser`; this module does scope analysis ([`scope`]) and emits
//! bytecode. Anything the VM does not support is rejected here with a [`CompileError`] naming
//! the construct, file and line. The sandbox is enforced here too where it is visible: a call of
//! an unbound name `eval`, `exec`, `compile`, `__import__`, `globals`, `locals`, `vars` or
//! `input` is a compile error, and `import` is the only way to reach another module.

pub mod prescan;
pub mod scope;

use crate::bytecode::{BinOp, CmpOp, CodeKind, Op};
use crate::value::Code;
use crate::value::{PyStr, Value};
use indexmap::IndexSet;
use ruff_python_ast::{self as ast, Expr, Stmt};
use ruff_text_size::Ranged;
use scope::Scope;
use std::rc::Rc;

/// A program the PVM refuses to compile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompileError {
    /// `SyntaxError` (the parser rejected it) or `CompileError` (valid Python the PVM does not
    /// support or forbids).
    pub kind: &'static str,
    /// Message naming the construct.
    pub msg: String,
    /// File name.
    pub filename: String,
    /// 1-based line.
    pub line: u32,
}

impl std::fmt::Display for CompileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: {} ({}, line {})",
            self.kind, self.msg, self.filename, self.line
        )
    }
}

/// Names that are rejected at compile time when called without a local binding. (`vars` and
/// `dir` are rejected only without an argument, when they would read the caller's locals;
/// `vars(obj)` is `obj.__dict__`.)
const FORBIDDEN_CALLS: &[&str] = &[
    "eval",
    "exec",
    "compile",
    "__import__",
    "globals",
    "locals",
    "input",
    "breakpoint",
    "memoryview",
    "id",
];

/// The largest source the PVM compiles: what the largest transaction can carry (genesis
/// `max_tx_size_bytes`). A larger source is refused before any work.
pub const MAX_SOURCE_BYTES: usize = cowboy_types::genesis::DEFAULT_MAX_TX_SIZE_BYTES as usize;

/// Compilation visits at most this many syntax nodes per token of the source (plus
/// [`WORK_SLACK`]). A `finally` body is compiled once per way out of its `try` (the normal
/// path, the exceptional path, each `return`/`break`/`continue`), as CPython does, so nested
/// `try`/`finally` statements multiply: CPython 3.11 takes 78 s to compile 20 of them nested
/// in one another's `finally` (200 bytes of source). The budget keeps compilation linear in
/// the source; a program over it is refused with a `CompileError`.
pub const WORK_PER_TOKEN: u64 = 8;
/// Nodes every program may visit whatever its size.
pub const WORK_SLACK: u64 = 10_000;

/// A source that passed the size check and the pre-scan ([`check`]): only those are parsed.
#[derive(Debug, Clone, Copy)]
pub struct Checked<'a> {
    source: &'a str,
    scan: prescan::Scan,
}

impl Checked<'_> {
    /// Tokens counted by the pre-scan.
    pub fn tokens(&self) -> u32 {
        self.scan.tokens
    }
    /// What compiling this source is charged on top of its size ([`crate::cost::load_scanned`]).
    pub fn price(&self) -> u64 {
        crate::cost::load_scanned(self.scan.tokens, self.scan.scopes, self.scan.fstrings)
    }
}

/// Refuse a source larger than [`MAX_SOURCE_BYTES`], before any work.
pub fn check_size(source: &str, filename: &str) -> Result<(), CompileError> {
    if source.len() <= MAX_SOURCE_BYTES {
        return Ok(());
    }
    Err(CompileError {
        kind: "CompileError",
        msg: format!(
            "the source is {} bytes; a program is at most {MAX_SOURCE_BYTES} bytes (the \
             largest transaction)",
            source.len()
        ),
        filename: filename.into(),
        line: 1,
    })
}

/// Refuse a source that is too large ([`MAX_SOURCE_BYTES`]) or nested too deeply
/// ([`prescan`]), before parsing it; otherwise count its tokens.
pub fn check<'a>(source: &'a str, filename: &str) -> Result<Checked<'a>, CompileError> {
    let lines = || LineIndex::new(source);
    let error = |kind: &'static str, msg: String, at: u32| CompileError {
        kind,
        msg,
        filename: filename.into(),
        line: lines().line(at),
    };
    check_size(source, filename)?;
    match prescan::scan(source) {
        Ok(scan) => Ok(Checked { source, scan }),
        Err(prescan::ScanError::TooManyParens { offset }) => Err(error(
            "SyntaxError",
            "too many nested parentheses".into(),
            offset,
        )),
        Err(prescan::ScanError::TooDeepIndent { offset }) => Err(error(
            "IndentationError",
            "too many levels of indentation".into(),
            offset,
        )),
        Err(prescan::ScanError::TooDeepExpr { offset }) => Err(error(
            "CompileError",
            format!(
                "expression nested too deeply: more than {} levels of operators (a PVM limit)",
                prescan::MAX_EXPR_DEPTH
            ),
            offset,
        )),
    }
}

/// Stack the compiler needs free: the parser, the compiler and dropping the syntax tree
/// recurse once per level of nesting, which [`check`] bounds; this covers the deepest with a
/// wide margin. [`compile_checked`] switches to a fresh stack of [`COMPILE_STACK`] bytes when
/// less is left.
const COMPILE_STACK_NEEDED: usize = 48 << 20;
const COMPILE_STACK: usize = 96 << 20;

/// Compile a module's source ([`check`], then [`compile_checked`]).
pub fn compile_module(source: &str, filename: &str) -> Result<Rc<Code>, CompileError> {
    compile_checked(check(source, filename)?, filename)
}

/// Compile a checked source. Time and memory are linear in the source: every node is visited
/// by the scope analysis once and by code generation at most [`WORK_PER_TOKEN`] times per
/// token.
pub fn compile_checked(checked: Checked<'_>, filename: &str) -> Result<Rc<Code>, CompileError> {
    stacker::maybe_grow(COMPILE_STACK_NEEDED, COMPILE_STACK, || {
        compile_unchecked(checked, filename)
    })
}

fn compile_unchecked(checked: Checked<'_>, filename: &str) -> Result<Rc<Code>, CompileError> {
    let source = checked.source;
    let lines = LineIndex::new(source);
    let parsed = ruff_python_parser::parse_module(source).map_err(|e| CompileError {
        kind: "SyntaxError",
        msg: e.error.to_string(),
        filename: filename.into(),
        line: lines.line(e.location.start().to_u32()),
    })?;
    let module = parsed.into_syntax();
    let (scope, scopes) = scope::analyze_module(&module.body).map_err(|at| CompileError {
        kind: "CompileError",
        msg: format!(
            "too many nested scopes: functions, lambdas, classes and comprehensions nest at \
             most {} deep in the PVM",
            scope::MAX_SCOPE_DEPTH
        ),
        filename: filename.into(),
        line: lines.line(at),
    })?;
    // `from __future__ import …` may only open the module (after its docstring).
    let mut future_ok = Vec::new();
    let mut future_annotations = false;
    for (k, st) in module.body.iter().enumerate() {
        match st {
            Stmt::Expr(e) if k == 0 && matches!(&*e.value, Expr::StringLiteral(_)) => {}
            Stmt::ImportFrom(i)
                if i.level == 0
                    && i.module
                        .as_ref()
                        .is_some_and(|m| m.id.as_str() == "__future__") =>
            {
                future_ok.push(i.range.start().to_u32());
                future_annotations |= i.names.iter().any(|a| a.name.id.as_str() == "annotations");
            }
            _ => break,
        }
    }
    let mut c = Compiler {
        lines,
        source: source.into(),
        filename: filename.into(),
        units: Vec::new(),
        scopes,
        work_left: WORK_PER_TOKEN
            .saturating_mul(u64::from(checked.tokens()))
            .saturating_add(WORK_SLACK),
        visible: Default::default(),
        interned: Default::default(),
        future_ok,
        future_annotations,
    };
    c.push_unit(
        "<module>",
        "<module>",
        CodeKind::Module,
        scope,
        Vec::new(),
        1,
    );
    // A module with annotated names gets `__annotations__` (CPython's SETUP_ANNOTATIONS).
    if has_annotations(&module.body) {
        c.emit(Op::BuildMap(0));
        let ai = c.name_idx("__annotations__");
        c.emit(Op::StoreName(ai));
    }
    c.stmts(&module.body)?;
    c.emit(Op::LoadNone);
    c.emit(Op::ReturnValue);
    Ok(Rc::new(c.pop_unit()))
}

/// Does a module or class body annotate a name (at any depth of its compound statements, not
/// inside functions or classes)? Then it gets an `__annotations__` dict first.
fn has_annotations(body: &[Stmt]) -> bool {
    body.iter().any(|s| match s {
        Stmt::AnnAssign(a) => a.simple,
        Stmt::If(i) => {
            has_annotations(&i.body) || i.elif_else_clauses.iter().any(|c| has_annotations(&c.body))
        }
        Stmt::For(f) => has_annotations(&f.body) || has_annotations(&f.orelse),
        Stmt::While(w) => has_annotations(&w.body) || has_annotations(&w.orelse),
        Stmt::With(w) => has_annotations(&w.body),
        Stmt::Try(t) => {
            has_annotations(&t.body)
                || has_annotations(&t.orelse)
                || has_annotations(&t.finalbody)
                || t.handlers.iter().any(|h| {
                    let ast::ExceptHandler::ExceptHandler(h) = h;
                    has_annotations(&h.body)
                })
        }
        Stmt::Match(m) => m.cases.iter().any(|c| has_annotations(&c.body)),
        _ => false,
    })
}

struct LineIndex {
    starts: Vec<u32>,
}
impl LineIndex {
    fn new(s: &str) -> LineIndex {
        let mut starts = vec![0];
        for (i, b) in s.bytes().enumerate() {
            if b == b'\n' {
                starts.push(i as u32 + 1);
            }
        }
        LineIndex { starts }
    }
    fn line(&self, off: u32) -> u32 {
        match self.starts.binary_search(&off) {
            Ok(i) => i as u32 + 1,
            Err(i) => i as u32,
        }
    }
}

enum FBlock {
    Loop {
        start: usize,
        breaks: Vec<usize>,
        is_for: bool,
    },
    Try,
    Finally(Vec<Stmt>),
    FinallyEnd,
    Handler {
        name: Option<String>,
    },
    With,
    AsyncWith,
    /// The body of an `except*` clause: `break`, `continue` and `return` may not leave it.
    ExceptStar,
}

struct Unit {
    code: Code,
    scope: Scope,
    /// `code.freevars` as a set, for [`Compiler::enclosing_binds`].
    free_names: IndexSet<String>,
    /// Index of each name in `code.names`.
    name_at: std::collections::BTreeMap<Box<str>, u32>,
    /// Index of each local in `code.varnames`.
    var_at: std::collections::BTreeMap<Box<str>, u32>,
    fblocks: Vec<FBlock>,
    line: u32,
    /// First parameter name (for zero-argument super()).
    first_param: Option<String>,
    /// Name of the innermost enclosing class, for private name mangling (`__x` → `_C__x`).
    private: Option<String>,
}

struct Compiler {
    lines: LineIndex,
    /// The source text (for checks the AST does not answer, e.g. f-string expression text).
    source: Rc<str>,
    /// Offsets of the `from __future__ import` statements that open the module.
    future_ok: Vec<u32>,
    /// `from __future__ import annotations` (PEP 563): annotations are kept as strings.
    future_annotations: bool,
    filename: Rc<str>,
    units: Vec<Unit>,
    /// The scopes of every function, class, lambda and comprehension, from one analysis pass.
    scopes: scope::Scopes,
    /// Syntax nodes code generation may still visit ([`WORK_PER_TOKEN`]).
    work_left: u64,
    /// Per name, how many open units make it visible to nested ones ([`Self::enclosing_binds`]).
    visible: std::collections::BTreeMap<String, u32>,
    /// One string object per distinct global/attribute name in the module (see `Code::names`).
    interned: std::collections::BTreeMap<Box<str>, Rc<PyStr>>,
}

type CResult = Result<(), CompileError>;

enum NameKind {
    Fast(u32),
    Deref(u32),
    Global,
    Name,
    ClassDeref(u32),
}

impl Compiler {
    fn err(&self, line: u32, msg: impl Into<String>) -> CompileError {
        CompileError {
            kind: "CompileError",
            msg: msg.into(),
            filename: self.filename.to_string(),
            line,
        }
    }
    fn syntax(&self, line: u32, msg: impl Into<String>) -> CompileError {
        CompileError {
            kind: "SyntaxError",
            msg: msg.into(),
            filename: self.filename.to_string(),
            line,
        }
    }
    /// The scope the one-pass analysis computed for a nested scope's node.
    fn take_scope(&mut self, key: scope::ScopeKey) -> Result<Scope, CompileError> {
        match self.scopes.take(key) {
            Some(s) => Ok(s),
            None => Err(self.err(self.line(), "internal: scope not analysed")),
        }
    }
    fn unit(&mut self) -> &mut Unit {
        let n = self.units.len() - 1;
        &mut self.units[n]
    }
    fn u(&self) -> &Unit {
        &self.units[self.units.len() - 1]
    }
    fn push_unit(
        &mut self,
        name: &str,
        qualname: &str,
        kind: CodeKind,
        scope: Scope,
        params: Vec<String>,
        line: u32,
    ) {
        let mut code = Code {
            name: name.into(),
            qualname: qualname.into(),
            filename: self.filename.clone(),
            kind,
            ops: Vec::new(),
            lines: Vec::new(),
            consts: Vec::new(),
            names: Vec::new(),
            name_caches: Vec::new(),
            codes: Vec::new(),
            varnames: Vec::new(),
            cellvars: Vec::new(),
            freevars: Vec::new(),
            cell_params: Vec::new(),
            argcount: 0,
            posonly: 0,
            kwonly: 0,
            varargs: false,
            varkw: false,
            is_generator: scope.is_generator && kind != CodeKind::Module,
            is_coroutine: false,
            is_async_gen: false,
            firstline: line,
        };
        let first_param = params.first().cloned();
        if kind == CodeKind::Function || kind == CodeKind::Comprehension {
            for p in &params {
                code.varnames.push(p.as_str().into());
            }
            // Cells: locals captured by nested scopes.
            for n in &scope.bound {
                if scope.is_local(n) && scope.child_free.contains(n) {
                    code.cellvars.push(n.as_str().into());
                }
            }
            for (ci, n) in code.cellvars.iter().enumerate() {
                if let Some(pi) = params.iter().position(|p| p.as_str() == &**n) {
                    code.cell_params.push((ci as u32, pi as u32));
                }
            }
            for n in scope.free() {
                if self.enclosing_binds(&n) {
                    code.freevars.push(n.as_str().into());
                }
            }
        } else if kind == CodeKind::Class {
            if scope.child_free.contains("__class__") {
                code.cellvars.push("__class__".into());
            }
            for n in scope.free() {
                if self.enclosing_binds(&n) {
                    code.freevars.push(n.as_str().into());
                }
            }
        }
        let private = if kind == CodeKind::Class {
            Some(name.to_string())
        } else {
            self.units.last().and_then(|u| u.private.clone())
        };
        let free_names = code.freevars.iter().map(|f| f.to_string()).collect();
        let var_at = code
            .varnames
            .iter()
            .enumerate()
            .map(|(i, v)| (Box::<str>::from(&**v), i as u32))
            .collect();
        self.units.push(Unit {
            code,
            scope,
            free_names,
            name_at: Default::default(),
            var_at,
            fblocks: Vec::new(),
            line,
            first_param,
            private,
        });
        if let Some(u) = self.units.last() {
            for n in Self::unit_exports(u) {
                *self.visible.entry(n).or_insert(0) += 1;
            }
        }
    }
    /// Is `n` visible to a new unit as a variable of an enclosing function: a local or free
    /// variable of an enclosing function-like unit, or `__class__` of an enclosing class?
    /// (`visible` counts, per name, the open units that make it visible; it was once a set
    /// copied into every unit, then a walk over the open units per name, both a factor of the
    /// nesting depth.)
    fn enclosing_binds(&self, n: &str) -> bool {
        self.visible.get(n).is_some_and(|&k| k > 0)
    }
    /// The names a unit makes visible to the units nested in it.
    fn unit_exports(u: &Unit) -> Vec<String> {
        match u.code.kind {
            CodeKind::Module => Vec::new(),
            CodeKind::Class => vec!["__class__".to_string()],
            _ => u
                .scope
                .bound
                .iter()
                .filter(|n| u.scope.is_local(n))
                .chain(u.free_names.iter())
                .cloned()
                .collect(),
        }
    }
    fn pop_unit(&mut self) -> Code {
        let u = self.units.pop();
        match u {
            Some(u) => {
                for n in Self::unit_exports(&u) {
                    if let Some(k) = self.visible.get_mut(&n) {
                        *k -= 1;
                    }
                }
                let mut code = u.code;
                crate::bytecode::quicken(&mut code.ops);
                code
            }
            None => unreachable_code(),
        }
    }
    fn emit(&mut self, op: Op) -> usize {
        let u = self.unit();
        let line = u.line;
        u.code.ops.push(op);
        u.code.lines.push(line);
        u.code.ops.len() - 1
    }
    fn here(&self) -> usize {
        self.u().code.ops.len()
    }
    fn patch(&mut self, at: usize) {
        let target = self.here() as u32;
        self.patch_to(at, target);
    }
    fn patch_to(&mut self, at: usize, target: u32) {
        let op = &mut self.unit().code.ops[at];
        *op = match *op {
            Op::Jump(_) => Op::Jump(target),
            Op::JumpIfFalse(_) => Op::JumpIfFalse(target),
            Op::JumpIfTrue(_) => Op::JumpIfTrue(target),
            Op::JumpIfFalseOrPop(_) => Op::JumpIfFalseOrPop(target),
            Op::JumpIfTrueOrPop(_) => Op::JumpIfTrueOrPop(target),
            Op::ForIter(_) => Op::ForIter(target),
            Op::SetupExcept(_) => Op::SetupExcept(target),
            Op::SetupFinally(_) => Op::SetupFinally(target),
            Op::ExcStarMatch(_) => Op::ExcStarMatch(target),
            other => other,
        };
    }
    fn set_line(&mut self, node: &impl Ranged) {
        let l = self.lines.line(node.range().start().to_u32());
        self.unit().line = l;
    }
    fn line(&self) -> u32 {
        self.u().line
    }
    fn konst(&mut self, v: Value) -> u32 {
        let c = &mut self.unit().code.consts;
        c.push(v);
        (c.len() - 1) as u32
    }
    fn load_const(&mut self, v: Value) {
        let i = self.konst(v);
        self.emit(Op::LoadConst(i));
    }
    /// `__x` inside a class (but not `__x__`) becomes `_Class__x`, as CPython mangles.
    fn mangle(&self, n: &str) -> String {
        match &self.u().private {
            Some(c) if n.starts_with("__") && !n.ends_with("__") && !n.contains('.') => {
                let c = c.trim_start_matches('_');
                if c.is_empty() {
                    n.to_string()
                } else {
                    format!("_{c}{n}")
                }
            }
            _ => n.to_string(),
        }
    }

    /// Name index for an attribute (mangled).
    fn attr_idx(&mut self, n: &str) -> u32 {
        let m = self.mangle(n);
        self.name_idx(&m)
    }

    fn name_idx(&mut self, n: &str) -> u32 {
        // A map, not a walk of `names`: a module with many distinct names was quadratic.
        if let Some(&i) = self.u().name_at.get(n) {
            return i;
        }
        let name = self
            .interned
            .entry(n.into())
            .or_insert_with(|| Rc::new(PyStr::new(n)))
            .clone();
        let u = self.unit();
        u.code.names.push(name);
        u.code.name_caches.push(Default::default());
        let i = (u.code.names.len() - 1) as u32;
        u.name_at.insert(n.into(), i);
        i
    }
    fn resolve(&mut self, n: &str) -> NameKind {
        let u = self.u();
        let kind = u.code.kind;
        if kind == CodeKind::Module {
            return NameKind::Global;
        }
        if u.scope.globals.contains(n) {
            return NameKind::Global;
        }
        let cell = u.code.cellvars.iter().position(|x| &**x == n);
        let free = u.code.freevars.iter().position(|x| &**x == n);
        let ncell = u.code.cellvars.len();
        if kind == CodeKind::Class {
            // `nonlocal x` in a class body reads and writes the enclosing function's cell.
            if let (true, Some(f)) = (u.scope.nonlocals.contains(n), free) {
                return NameKind::Deref((ncell + f) as u32);
            }
            if u.scope.is_local(n) {
                return NameKind::Name;
            }
            if let Some(f) = free {
                return NameKind::ClassDeref((ncell + f) as u32);
            }
            return NameKind::Name;
        }
        if let Some(c) = cell {
            return NameKind::Deref(c as u32);
        }
        if u.scope.is_local(n) {
            if let Some(&i) = self.u().var_at.get(n) {
                return NameKind::Fast(i);
            }
            let u = self.unit();
            u.code.varnames.push(n.into());
            let i = (u.code.varnames.len() - 1) as u32;
            u.var_at.insert(n.into(), i);
            return NameKind::Fast(i);
        }
        if let Some(f) = free {
            return NameKind::Deref((ncell + f) as u32);
        }
        NameKind::Global
    }
    fn load_name(&mut self, n: &str) {
        match self.resolve(n) {
            NameKind::Fast(i) => self.emit(Op::LoadFast(i)),
            NameKind::Deref(i) => self.emit(Op::LoadDeref(i)),
            NameKind::Global => {
                let i = self.name_idx(n);
                self.emit(Op::LoadGlobal(i))
            }
            NameKind::Name => {
                let i = self.attr_idx(n);
                self.emit(Op::LoadName(i))
            }
            NameKind::ClassDeref(c) => {
                let i = self.name_idx(n);
                self.emit(Op::LoadClassDeref(i, c))
            }
        };
    }
    fn store_name(&mut self, n: &str) {
        match self.resolve(n) {
            NameKind::Fast(i) => self.emit(Op::StoreFast(i)),
            NameKind::Deref(i) => self.emit(Op::StoreDeref(i)),
            NameKind::Global => {
                let i = self.name_idx(n);
                self.emit(Op::StoreGlobal(i))
            }
            NameKind::Name | NameKind::ClassDeref(_) => {
                let i = self.attr_idx(n);
                self.emit(Op::StoreName(i))
            }
        };
    }
    fn delete_name(&mut self, n: &str) {
        match self.resolve(n) {
            NameKind::Fast(i) => self.emit(Op::DeleteFast(i)),
            NameKind::Deref(i) => self.emit(Op::DeleteDeref(i)),
            NameKind::Global => {
                let i = self.name_idx(n);
                self.emit(Op::DeleteGlobal(i))
            }
            NameKind::Name | NameKind::ClassDeref(_) => {
                let i = self.attr_idx(n);
                self.emit(Op::DeleteName(i))
            }
        };
    }

    fn stmts(&mut self, body: &[Stmt]) -> CResult {
        for s in body {
            self.stmt(s)?;
        }
        Ok(())
    }

    /// Enter a block that `break`/`continue`/`return`/exceptions must unwind, refusing more
    /// than CPython's 20 statically nested blocks with its error. An except handler's body
    /// weighs two, as in CPython (its handler and its cleanup).
    fn push_fblock(&mut self, b: FBlock) -> CResult {
        const MAX_BLOCKS: usize = 20;
        let weight = |b: &FBlock| match b {
            FBlock::Handler { .. } | FBlock::ExceptStar => 2,
            _ => 1,
        };
        let open: usize = self.u().fblocks.iter().map(weight).sum();
        if open + weight(&b) > MAX_BLOCKS {
            return Err(self.syntax(self.line(), "too many statically nested blocks"));
        }
        self.unit().fblocks.push(b);
        Ok(())
    }
    /// Count one node visited against the budget ([`WORK_PER_TOKEN`]).
    fn work(&mut self) -> CResult {
        if self.work_left == 0 {
            return Err(self.err(
                self.line(),
                format!(
                    "the program is too large once its finally blocks are inlined (code \
                     generation may visit {WORK_PER_TOKEN} syntax nodes per token)"
                ),
            ));
        }
        self.work_left -= 1;
        Ok(())
    }
    fn stmt(&mut self, st: &Stmt) -> CResult {
        self.set_line(st);
        self.work()?;
        match st {
            Stmt::Expr(e) => {
                self.expr(&e.value)?;
                self.emit(Op::Pop);
            }
            Stmt::Pass(_) => {}
            Stmt::Assign(a) if self.swap_assign(a)? => {}
            Stmt::Assign(a) => {
                self.expr(&a.value)?;
                for (i, t) in a.targets.iter().enumerate() {
                    if i + 1 < a.targets.len() {
                        self.emit(Op::Dup);
                    }
                    self.store(t)?;
                }
            }
            Stmt::AugAssign(a) => self.augassign(a)?,
            Stmt::AnnAssign(a) => {
                if let Some(v) = &a.value {
                    self.expr(v)?;
                    self.store(&a.target)?;
                }
                // Class bodies and modules record simple annotations in `__annotations__`
                // (dataclasses, NamedTuple and TypedDict read them); in functions they are
                // not evaluated, as in CPython.
                if let (CodeKind::Class | CodeKind::Module, Expr::Name(n), true) =
                    (self.u().code.kind, &*a.target, a.simple)
                {
                    self.annotation(&a.annotation)?;
                    let ai = self.name_idx("__annotations__");
                    self.emit(Op::LoadName(ai));
                    self.load_const(Value::str(n.id.as_str()));
                    self.emit(Op::StoreSubscr);
                }
            }
            Stmt::If(i) => {
                self.expr(&i.test)?;
                let jf = self.emit(Op::JumpIfFalse(0));
                self.stmts(&i.body)?;
                let mut ends = Vec::new();
                let mut pending = Some(jf);
                for c in &i.elif_else_clauses {
                    ends.push(self.emit(Op::Jump(0)));
                    if let Some(p) = pending.take() {
                        self.patch(p);
                    }
                    self.set_line(c);
                    if let Some(t) = &c.test {
                        self.expr(t)?;
                        pending = Some(self.emit(Op::JumpIfFalse(0)));
                    }
                    self.stmts(&c.body)?;
                }
                if let Some(p) = pending {
                    self.patch(p);
                }
                for e in ends {
                    self.patch(e);
                }
            }
            Stmt::While(w) => {
                let start = self.here();
                self.expr(&w.test)?;
                let jf = self.emit(Op::JumpIfFalse(0));
                let breaks = self.loop_body(start, false, &w.body)?;
                self.patch(jf);
                self.stmts(&w.orelse)?;
                for b in breaks {
                    self.patch(b);
                }
            }
            Stmt::For(f) if f.is_async => self.async_for(f)?,
            Stmt::For(f) => {
                self.expr(&f.iter)?;
                self.emit(Op::GetIter);
                let start = self.here();
                let fi = self.emit(Op::ForIter(0));
                self.store(&f.target)?;
                let breaks = self.loop_body(start, true, &f.body)?;
                self.patch(fi);
                self.stmts(&f.orelse)?;
                for b in breaks {
                    self.patch(b);
                }
            }
            Stmt::Break(_) => {
                let n = self.unwind_to_loop(true)?;
                let j = self.emit(Op::Jump(0));
                if let Some(FBlock::Loop { breaks, .. }) = self.unit().fblocks.get_mut(n) {
                    breaks.push(j);
                }
            }
            Stmt::Continue(_) => {
                let n = self.unwind_to_loop(false)?;
                if let Some(FBlock::Loop { start, .. }) = self.u().fblocks.get(n) {
                    let s = *start as u32;
                    self.emit(Op::Jump(s));
                }
            }
            Stmt::Return(r) => {
                if self.u().code.kind == CodeKind::Module || self.u().code.kind == CodeKind::Class {
                    return Err(self.syntax(self.line(), "'return' outside function"));
                }
                if r.value.is_some() && self.u().code.is_async_gen {
                    return Err(self.syntax(self.line(), "'return' with value in async generator"));
                }
                match &r.value {
                    Some(v) => self.expr(v)?,
                    None => {
                        self.emit(Op::LoadNone);
                    }
                }
                self.unwind_all(true)?;
                self.emit(Op::ReturnValue);
            }
            Stmt::FunctionDef(f) => self.funcdef(f)?,
            Stmt::ClassDef(c) => self.classdef(c)?,
            Stmt::Delete(d) => {
                for t in &d.targets {
                    self.delete(t)?;
                }
            }
            Stmt::Raise(r) => {
                let mut n = 0;
                if let Some(e) = &r.exc {
                    self.expr(e)?;
                    n = 1;
                    if let Some(c) = &r.cause {
                        self.expr(c)?;
                        n = 2;
                    }
                }
                self.emit(Op::Raise(n));
            }
            Stmt::Try(t) => self.try_stmt(t)?,
            Stmt::Assert(a) => {
                self.expr(&a.test)?;
                let jt = self.emit(Op::JumpIfTrue(0));
                self.emit(Op::LoadAssertionError);
                let mut argc = 0;
                if let Some(m) = &a.msg {
                    self.expr(m)?;
                    argc = 1;
                }
                self.emit(Op::Call(argc));
                self.emit(Op::Raise(1));
                self.patch(jt);
            }
            Stmt::With(w) => {
                if w.is_async {
                    self.check_async("'async with' outside async function")?;
                    self.async_with_items(&w.items, &w.body)?;
                } else {
                    self.with_items(&w.items, &w.body)?;
                }
            }
            Stmt::Global(g) => {
                for n in &g.names {
                    let n = n.id.as_str();
                    if self.is_param(n) {
                        return Err(
                            self.syntax(self.line(), format!("name '{n}' is parameter and global"))
                        );
                    }
                    if self.u().scope.nonlocals.contains(n) {
                        return Err(
                            self.syntax(self.line(), format!("name '{n}' is nonlocal and global"))
                        );
                    }
                }
            }
            Stmt::Nonlocal(g) => {
                if self.u().code.kind == CodeKind::Module {
                    return Err(self.syntax(
                        self.line(),
                        "nonlocal declaration not allowed at module level",
                    ));
                }
                for n in &g.names {
                    let n = n.id.as_str();
                    if self.is_param(n) {
                        return Err(self
                            .syntax(self.line(), format!("name '{n}' is parameter and nonlocal")));
                    }
                    if !self.u().code.freevars.iter().any(|f| &**f == n) {
                        return Err(self
                            .syntax(self.line(), format!("no binding for nonlocal '{n}' found")));
                    }
                }
            }
            Stmt::Import(i) => {
                for a in &i.names {
                    let full = a.name.id.as_str();
                    let ni = self.name_idx(full);
                    // ImportName pushes the named (sub)module itself.
                    self.emit(Op::ImportName(ni));
                    match (&a.asname, full.split_once('.')) {
                        // `import a.b as c` binds the submodule.
                        (Some(asn), _) => self.store_name(asn.id.as_str()),
                        // `import a.b` loads a.b (binding it on a) and binds the top package.
                        (None, Some((top, _))) => {
                            self.emit(Op::Pop);
                            let ti = self.name_idx(top);
                            self.emit(Op::ImportName(ti));
                            self.store_name(top);
                        }
                        (None, None) => self.store_name(full),
                    }
                }
            }
            Stmt::ImportFrom(i) => {
                if i.level > 0 {
                    return Err(self.err(self.line(), "relative import is not supported"));
                }
                if i.module
                    .as_ref()
                    .is_some_and(|m| m.id.as_str() == "__future__")
                {
                    self.check_future(i)?;
                }
                let m = i
                    .module
                    .as_ref()
                    .map(|m| m.id.to_string())
                    .unwrap_or_default();
                let ni = self.name_idx(&m);
                self.emit(Op::ImportName(ni));
                for a in &i.names {
                    if a.name.id.as_str() == "*" {
                        if self.u().code.kind != CodeKind::Module {
                            return Err(
                                self.syntax(self.line(), "import * only allowed at module level")
                            );
                        }
                        self.emit(Op::ImportStar);
                        return Ok(());
                    }
                    let ai = self.name_idx(a.name.id.as_str());
                    self.emit(Op::ImportFrom(ai));
                    let n = a.asname.as_ref().unwrap_or(&a.name);
                    self.store_name(n.id.as_str());
                }
                self.emit(Op::Pop);
            }
            Stmt::Match(m) => self.match_stmt(m)?,
            Stmt::TypeAlias(_) => {
                return Err(self.err(self.line(), "type alias statement is not supported"))
            }
            Stmt::IpyEscapeCommand(_) => return Err(self.syntax(self.line(), "invalid syntax")),
        }
        Ok(())
    }

    /// Emit cleanup for break/continue up to the innermost loop; returns its fblock index.
    fn unwind_to_loop(&mut self, is_break: bool) -> Result<usize, CompileError> {
        let pos = self
            .u()
            .fblocks
            .iter()
            .rposition(|f| matches!(f, FBlock::Loop { .. }));
        let Some(i) = pos else {
            return Err(self.syntax(
                self.line(),
                if is_break {
                    "'break' outside loop"
                } else {
                    "'continue' not properly in loop"
                },
            ));
        };
        self.unwind_until(i + 1, false)?;
        if is_break {
            if let FBlock::Loop { is_for: true, .. } = self.u().fblocks[i] {
                self.emit(Op::Pop);
            }
        }
        Ok(i)
    }

    fn unwind_all(&mut self, with_value: bool) -> CResult {
        self.unwind_until(0, with_value)
    }

    /// Emit the cleanup of every fblock above `keep`, innermost first. Each inlined finally
    /// body is compiled seeing only the blocks outside it.
    fn unwind_until(&mut self, keep: usize, with_value: bool) -> CResult {
        let mut stack = std::mem::take(&mut self.unit().fblocks);
        let mut popped = Vec::new();
        let mut res = Ok(());
        while stack.len() > keep {
            let Some(fb) = stack.pop() else { break };
            self.unit().fblocks = stack;
            res = self.unwind_one(&fb, with_value);
            stack = std::mem::take(&mut self.unit().fblocks);
            popped.push(fb);
            if res.is_err() {
                break;
            }
        }
        popped.reverse();
        stack.extend(popped);
        self.unit().fblocks = stack;
        res
    }

    fn unwind_one(&mut self, fb: &FBlock, with_value: bool) -> CResult {
        match fb {
            // Return leaves a for-loop's iterator on the stack; the frame drops it.
            FBlock::Loop { .. } => {}
            FBlock::Try => {
                self.emit(Op::PopBlock);
            }
            FBlock::Finally(body) => {
                self.emit(Op::PopBlock);
                self.stmts(body)?;
            }
            FBlock::FinallyEnd => {
                self.emit(Op::PopExcept);
                if with_value {
                    self.emit(Op::Rot2);
                }
                self.emit(Op::Pop);
            }
            FBlock::Handler { name } => {
                self.emit(Op::PopExcept);
                if let Some(n) = name {
                    let n = n.clone();
                    self.emit(Op::LoadNone);
                    self.store_name(&n);
                }
            }
            FBlock::With => {
                self.emit(Op::PopBlock);
                if with_value {
                    self.emit(Op::Rot2);
                }
                self.emit(Op::WithExit);
            }
            FBlock::ExceptStar => {
                return Err(self.syntax(
                    self.line(),
                    "'break', 'continue' and 'return' cannot appear in an except* block",
                ));
            }
            FBlock::AsyncWith => {
                self.emit(Op::PopBlock);
                if with_value {
                    self.emit(Op::Rot2);
                }
                self.async_with_exit();
            }
        }
        Ok(())
    }

    fn try_stmt(&mut self, t: &ast::StmtTry) -> CResult {
        let has_finally = !t.finalbody.is_empty();
        let fin_setup = if has_finally {
            let s = self.emit(Op::SetupFinally(0));
            self.push_fblock(FBlock::Finally(t.finalbody.to_vec()))?;
            Some(s)
        } else {
            None
        };
        if t.handlers.is_empty() {
            self.stmts(&t.body)?;
        } else {
            let setup = self.emit(Op::SetupExcept(0));
            self.push_fblock(FBlock::Try)?;
            self.stmts(&t.body)?;
            self.unit().fblocks.pop();
            self.emit(Op::PopBlock);
            self.stmts(&t.orelse)?;
            let mut ends = vec![self.emit(Op::Jump(0))];
            self.patch(setup);
            if t.is_star {
                self.star_handlers(&t.handlers)?;
            }
            for h in t.handlers.iter().filter(|_| !t.is_star) {
                let ast::ExceptHandler::ExceptHandler(h) = h;
                self.set_line(h);
                let mut next = None;
                if let Some(ty) = &h.type_ {
                    self.check_except_type(ty)?;
                    self.expr(ty)?;
                    self.emit(Op::ExcMatch);
                    next = Some(self.emit(Op::JumpIfFalse(0)));
                }
                let name = h.name.as_ref().map(|n| n.id.to_string());
                match &name {
                    Some(n) => self.store_name(n),
                    None => {
                        self.emit(Op::Pop);
                    }
                }
                self.push_fblock(FBlock::Handler { name: name.clone() })?;
                self.stmts(&h.body)?;
                self.unit().fblocks.pop();
                self.emit(Op::PopExcept);
                if let Some(n) = &name {
                    self.emit(Op::LoadNone);
                    self.store_name(n);
                    self.delete_name(n);
                }
                ends.push(self.emit(Op::Jump(0)));
                if let Some(nx) = next {
                    self.patch(nx);
                }
            }
            if !t.is_star {
                self.emit(Op::Reraise);
            }
            for e in ends {
                self.patch(e);
            }
        }
        if let Some(fs) = fin_setup {
            self.unit().fblocks.pop();
            self.emit(Op::PopBlock);
            self.stmts(&t.finalbody)?;
            let end = self.emit(Op::Jump(0));
            self.patch(fs);
            self.push_fblock(FBlock::FinallyEnd)?;
            self.stmts(&t.finalbody)?;
            self.unit().fblocks.pop();
            self.emit(Op::Reraise);
            self.patch(end);
        }
        Ok(())
    }

    /// The clauses of `try: … except* T as e: …` (PEP 654), entered with the exception on the
    /// stack: each clause takes the part of what is left that matches `T`, and exceptions its
    /// body raises are collected; `ExcStarEnd` re-raises what is left unhandled plus them.
    fn star_handlers(&mut self, handlers: &[ast::ExceptHandler]) -> CResult {
        self.emit(Op::ExcStarBegin);
        for h in handlers {
            let ast::ExceptHandler::ExceptHandler(h) = h;
            self.set_line(h);
            let Some(ty) = &h.type_ else {
                return Err(self.syntax(self.line(), "expected one or more exception types"));
            };
            self.check_except_type(ty)?;
            self.expr(ty)?;
            let nomatch = self.emit(Op::ExcStarMatch(0));
            let name = h.name.as_ref().map(|n| n.id.to_string());
            match &name {
                Some(n) => self.store_name(n),
                None => {
                    self.emit(Op::Pop);
                }
            }
            let fin = self.emit(Op::SetupFinally(0));
            self.push_fblock(FBlock::ExceptStar)?;
            self.stmts(&h.body)?;
            self.unit().fblocks.pop();
            self.emit(Op::PopBlock);
            self.emit(Op::PopExcept);
            self.clear_handler_name(name.as_deref());
            let next = self.emit(Op::Jump(0));
            // The body raised: collect the exception, leave both handlers.
            self.patch(fin);
            // Stack: orig, list, rest, raised.
            self.emit(Op::ListAppend(2));
            self.emit(Op::PopExcept);
            self.emit(Op::PopExcept);
            self.clear_handler_name(name.as_deref());
            self.patch(next);
            self.patch(nomatch);
        }
        self.emit(Op::ExcStarEnd);
        Ok(())
    }

    /// `e = None; del e` after a handler bound `except … as e`.
    fn clear_handler_name(&mut self, name: Option<&str>) {
        if let Some(n) = name {
            self.emit(Op::LoadNone);
            self.store_name(n);
            self.delete_name(n);
        }
    }

    fn with_items(&mut self, items: &[ast::WithItem], body: &[Stmt]) -> CResult {
        let Some((first, rest)) = items.split_first() else {
            return self.stmts(body);
        };
        self.expr(&first.context_expr)?;
        self.emit(Op::WithEnter);
        match &first.optional_vars {
            Some(t) => self.store(t)?,
            None => {
                self.emit(Op::Pop);
            }
        }
        let setup = self.emit(Op::SetupFinally(0));
        self.push_fblock(FBlock::With)?;
        self.with_items(rest, body)?;
        self.unit().fblocks.pop();
        self.emit(Op::PopBlock);
        self.emit(Op::WithExit);
        let end = self.emit(Op::Jump(0));
        self.patch(setup);
        self.emit(Op::WithExcept);
        self.patch(end);
        Ok(())
    }

    /// `await` the value on top of the stack (`k` as in `Op::GetAwaitable`).
    fn await_top(&mut self, k: u32) {
        self.emit(Op::GetAwaitable(k));
        self.emit(Op::LoadNone);
        self.emit(Op::YieldFrom);
    }

    /// `await`, `async for` and `async with` are only valid in an `async def` (or an async
    /// comprehension or async generator expression, which are compiled as such).
    fn check_async(&self, msg: &str) -> CResult {
        let c = &self.u().code;
        if c.is_coroutine || c.is_async_gen {
            Ok(())
        } else {
            Err(self.syntax(self.line(), msg))
        }
    }

    /// Normal exit of an `async with` (stack: bound `__aexit__`): `await __aexit__(None, None,
    /// None)` and drop the result.
    fn async_with_exit(&mut self) {
        for _ in 0..3 {
            self.emit(Op::LoadNone);
        }
        self.emit(Op::Call(3));
        self.await_top(2);
        self.emit(Op::Pop);
    }

    /// `async with` (PEP 492): `__aenter__()` and `__aexit__(…)` are awaited; a truthy result of
    /// `__aexit__` swallows the exception.
    fn async_with_items(&mut self, items: &[ast::WithItem], body: &[Stmt]) -> CResult {
        let Some((first, rest)) = items.split_first() else {
            return self.stmts(body);
        };
        self.expr(&first.context_expr)?;
        self.emit(Op::BeforeAsyncWith);
        self.await_top(1);
        match &first.optional_vars {
            Some(t) => self.store(t)?,
            None => {
                self.emit(Op::Pop);
            }
        }
        let setup = self.emit(Op::SetupFinally(0));
        self.push_fblock(FBlock::AsyncWith)?;
        self.async_with_items(rest, body)?;
        self.unit().fblocks.pop();
        self.emit(Op::PopBlock);
        self.async_with_exit();
        let end = self.emit(Op::Jump(0));
        self.patch(setup);
        self.emit(Op::AsyncWithExcept);
        self.await_top(2);
        self.emit(Op::AsyncWithExceptEnd);
        self.patch(end);
        Ok(())
    }

    /// One step of an `async for` whose async iterator is on the stack: await `__anext__()`
    /// under a handler that ends the loop on `StopAsyncIteration`, then bind the target.
    /// Returns the position of the handler's `SetupExcept` (patched to `EndAsyncFor`).
    fn async_for_step(&mut self, target: &Expr) -> Result<usize, CompileError> {
        let setup = self.emit(Op::SetupExcept(0));
        self.emit(Op::GetANext);
        self.await_top(3);
        self.emit(Op::PopBlock);
        self.store(target)?;
        Ok(setup)
    }

    /// `async for` (PEP 492), with `else`, `break` and `continue`.
    /// A loop body whose `continue` jumps to `start`, then the jump back to `start`; returns
    /// the `break` jumps to patch past the loop (and its `else`).
    fn loop_body(
        &mut self,
        start: usize,
        is_for: bool,
        body: &[Stmt],
    ) -> Result<Vec<usize>, CompileError> {
        self.push_fblock(FBlock::Loop {
            start,
            breaks: Vec::new(),
            is_for,
        })?;
        self.stmts(body)?;
        self.emit(Op::Jump(start as u32));
        Ok(match self.unit().fblocks.pop() {
            Some(FBlock::Loop { breaks, .. }) => breaks,
            _ => Vec::new(),
        })
    }

    fn async_for(&mut self, f: &ast::StmtFor) -> CResult {
        self.check_async("'async for' outside async function")?;
        self.expr(&f.iter)?;
        self.emit(Op::GetAIter);
        let start = self.here();
        let setup = self.async_for_step(&f.target)?;
        let breaks = self.loop_body(start, true, &f.body)?;
        self.patch(setup);
        self.emit(Op::EndAsyncFor);
        self.stmts(&f.orelse)?;
        for b in breaks {
            self.patch(b);
        }
        Ok(())
    }

    /// Emit defaults/kwdefaults/closure for a nested code and the MakeFunction.
    fn make_function(
        &mut self,
        code: Code,
        params: Option<&ast::Parameters>,
        returns: Option<&Expr>,
    ) -> CResult {
        let mut flags = 0;
        if let Some(p) = params {
            let defs: Vec<&Expr> = p
                .posonlyargs
                .iter()
                .chain(p.args.iter())
                .filter_map(|a| a.default.as_deref())
                .collect();
            if !defs.is_empty() {
                for d in &defs {
                    self.expr(d)?;
                }
                self.emit(Op::BuildTuple(defs.len() as u32));
                flags |= 1;
            }
            let kw: Vec<&ast::ParameterWithDefault> = p
                .kwonlyargs
                .iter()
                .filter(|a| a.default.is_some())
                .collect();
            if !kw.is_empty() {
                for a in &kw {
                    self.load_const(Value::str(a.parameter.name.id.as_str()));
                    if let Some(d) = &a.default {
                        self.expr(d)?;
                    }
                }
                self.emit(Op::BuildMap(kw.len() as u32));
                flags |= 2;
            }
        }
        // Annotations are evaluated at definition time, as CPython 3.11 does.
        let mut ann: Vec<(&str, &Expr)> = Vec::new();
        if let Some(p) = params {
            for a in p.posonlyargs.iter().chain(p.args.iter()) {
                if let Some(x) = &a.parameter.annotation {
                    ann.push((a.parameter.name.id.as_str(), x));
                }
            }
            if let Some(x) = p.vararg.as_ref().and_then(|v| v.annotation.as_deref()) {
                ann.push((
                    p.vararg.as_ref().map(|v| v.name.id.as_str()).unwrap_or(""),
                    x,
                ));
            }
            for a in p.kwonlyargs.iter() {
                if let Some(x) = &a.parameter.annotation {
                    ann.push((a.parameter.name.id.as_str(), x));
                }
            }
            if let Some(x) = p.kwarg.as_ref().and_then(|v| v.annotation.as_deref()) {
                ann.push((
                    p.kwarg.as_ref().map(|v| v.name.id.as_str()).unwrap_or(""),
                    x,
                ));
            }
        }
        if let Some(r) = returns {
            ann.push(("return", r));
        }
        if !ann.is_empty() {
            for (n, x) in &ann {
                self.load_const(Value::str(n));
                self.annotation(x)?;
            }
            self.emit(Op::BuildMap(ann.len() as u32));
            flags |= 8;
        }
        {}
        if !code.freevars.is_empty() {
            let frees: Vec<Rc<str>> = code.freevars.clone();
            for f in &frees {
                let u = self.u();
                let idx = if let Some(c) = u.code.cellvars.iter().position(|x| x == f) {
                    c
                } else if let Some(c) = u.code.freevars.iter().position(|x| x == f) {
                    u.code.cellvars.len() + c
                } else {
                    return Err(self.err(
                        self.line(),
                        format!("internal: free variable {f} not found"),
                    ));
                };
                self.emit(Op::LoadClosure(idx as u32));
            }
            self.emit(Op::BuildTuple(frees.len() as u32));
            flags |= 4;
        }
        let codes = &mut self.unit().code.codes;
        codes.push(Rc::new(code));
        let ci = (codes.len() - 1) as u32;
        self.emit(Op::MakeFunction(ci, flags));
        Ok(())
    }

    fn qualname(&self, name: &str) -> String {
        let u = self.u();
        match u.code.kind {
            CodeKind::Module => name.to_string(),
            CodeKind::Class => format!("{}.{}", u.code.qualname, name),
            _ => format!("{}.<locals>.{}", u.code.qualname, name),
        }
    }

    fn set_params(&mut self, p: &ast::Parameters) {
        let c = &mut self.unit().code;
        c.posonly = p.posonlyargs.len() as u32;
        c.argcount = (p.posonlyargs.len() + p.args.len()) as u32;
        c.kwonly = p.kwonlyargs.len() as u32;
        c.varargs = p.vararg.is_some();
        c.varkw = p.kwarg.is_some();
    }

    fn funcdef(&mut self, f: &ast::StmtFunctionDef) -> CResult {
        if f.type_params.is_some() {
            return Err(self.err(self.line(), "type parameters are not supported"));
        }
        for d in &f.decorator_list {
            self.expr(&d.expression)?;
        }
        let line = self.line();
        let scope = self.take_scope(scope::def_key(f))?;
        let has_yield = scope.has_yield;
        let qn = self.qualname(f.name.id.as_str());
        let params = scope::param_names(&f.parameters);
        self.push_unit(
            f.name.id.as_str(),
            &qn,
            CodeKind::Function,
            scope,
            params,
            line,
        );
        self.set_params(&f.parameters);
        self.unit().code.is_coroutine = f.is_async && !has_yield;
        self.unit().code.is_async_gen = f.is_async && has_yield;
        if f.is_async {
            self.unit().code.is_generator = true;
        }
        // Docstring becomes consts[0] when present (read by MakeFunction for __doc__).
        let doc = match f.body.first() {
            Some(Stmt::Expr(e)) => match &*e.value {
                Expr::StringLiteral(s) => Value::str(s.value.to_str()),
                _ => Value::None,
            },
            _ => Value::None,
        };
        self.konst(doc);
        self.stmts(&f.body)?;
        self.emit(Op::LoadNone);
        self.emit(Op::ReturnValue);
        let code = self.pop_unit();
        self.make_function(code, Some(&f.parameters), f.returns.as_deref())?;
        for _ in &f.decorator_list {
            self.emit(Op::Call(1));
        }
        self.store_name(f.name.id.as_str());
        Ok(())
    }

    fn classdef(&mut self, c: &ast::StmtClassDef) -> CResult {
        if c.type_params.is_some() {
            return Err(self.err(self.line(), "type parameters are not supported"));
        }
        for d in &c.decorator_list {
            self.expr(&d.expression)?;
        }
        let line = self.line();
        let scope = self.take_scope(scope::class_key(c))?;
        let qn = self.qualname(c.name.id.as_str());
        self.push_unit(
            c.name.id.as_str(),
            &qn,
            CodeKind::Class,
            scope,
            Vec::new(),
            line,
        );
        self.konst(Value::None);
        // __module__ and __qualname__ are set by BuildClass.
        if let Some(Stmt::Expr(e)) = c.body.first() {
            if let Expr::StringLiteral(s) = &*e.value {
                self.load_const(Value::str(s.value.to_str()));
                let i = self.name_idx("__doc__");
                self.emit(Op::StoreName(i));
            }
        }
        if has_annotations(&c.body) {
            self.emit(Op::BuildMap(0));
            let ai = self.name_idx("__annotations__");
            self.emit(Op::StoreName(ai));
        }
        self.stmts(&c.body)?;
        if self.u().code.cellvars.iter().any(|x| &**x == "__class__") {
            self.emit(Op::LoadClosure(0));
        } else {
            self.emit(Op::LoadNone);
        }
        self.emit(Op::ReturnValue);
        let code = self.pop_unit();
        self.make_function(code, None, None)?;
        self.load_const(Value::str(c.name.id.as_str()));
        let mut nb = 0;
        let mut kw = 0;
        if let Some(a) = &c.arguments {
            for b in a.args.iter() {
                if matches!(b, Expr::Starred(_)) {
                    return Err(self.err(self.line(), "starred class bases are not supported"));
                }
                self.expr(b)?;
                nb += 1;
            }
        }
        self.emit(Op::BuildTuple(nb));
        if let Some(a) = &c.arguments {
            for k in a.keywords.iter() {
                let Some(n) = &k.arg else {
                    return Err(
                        self.err(self.line(), "**kwargs in class definition is not supported")
                    );
                };
                self.load_const(Value::str(n.id.as_str()));
                self.expr(&k.value)?;
            }
            kw = a.keywords.len();
        }
        if kw > 0 {
            self.emit(Op::BuildMap(kw as u32));
        }
        self.emit(Op::BuildClass(if kw > 0 { 1 } else { 0 }));
        for _ in &c.decorator_list {
            self.emit(Op::Call(1));
        }
        self.store_name(c.name.id.as_str());
        Ok(())
    }

    /// `a, b = x, y` (and three names): the values are left on the stack in reverse order
    /// and stored one by one, without building a tuple and unpacking it, as CPython 3.11's
    /// optimizer turns `BUILD_TUPLE n; UNPACK_SEQUENCE n` into `SWAP n`. The order of
    /// evaluation and of the stores is the same; only the tuple (its allocation and its
    /// charges) is gone. False, emitting nothing, for any other assignment.
    fn swap_assign(&mut self, a: &ast::StmtAssign) -> Result<bool, CompileError> {
        let [Expr::Tuple(ast::ExprTuple { elts: targets, .. })
        | Expr::List(ast::ExprList { elts: targets, .. })] = &a.targets[..]
        else {
            return Ok(false);
        };
        let Expr::Tuple(ast::ExprTuple { elts: values, .. }) = &*a.value else {
            return Ok(false);
        };
        let starred = |es: &[Expr]| es.iter().any(|e| matches!(e, Expr::Starred(_)));
        if !matches!(values.len(), 2 | 3)
            || values.len() != targets.len()
            || starred(values)
            || starred(targets)
        {
            return Ok(false);
        }
        for v in values {
            self.expr(v)?;
        }
        // [x, y] → [y, x]; [x, y, z] → [z, x, y] → [z, y, x]: the first target's value on top.
        if values.len() == 3 {
            self.emit(Op::Rot3);
        }
        self.emit(Op::Rot2);
        for t in targets {
            self.store(t)?;
        }
        Ok(true)
    }

    fn store(&mut self, t: &Expr) -> CResult {
        match t {
            Expr::Name(n) if n.id.as_str() == "__debug__" => {
                return Err(self.syntax(self.line(), "cannot assign to __debug__"))
            }
            Expr::Name(n) => self.store_name(n.id.as_str()),
            Expr::Attribute(a) => {
                self.expr(&a.value)?;
                let i = self.attr_idx(a.attr.id.as_str());
                self.emit(Op::StoreAttr(i));
            }
            Expr::Subscript(s) => {
                self.expr(&s.value)?;
                self.expr(&s.slice)?;
                self.emit(Op::StoreSubscr);
            }
            Expr::Tuple(ast::ExprTuple { elts, .. }) | Expr::List(ast::ExprList { elts, .. }) => {
                let star = elts.iter().position(|e| matches!(e, Expr::Starred(_)));
                match star {
                    Some(si) => {
                        if elts
                            .iter()
                            .filter(|e| matches!(e, Expr::Starred(_)))
                            .count()
                            > 1
                        {
                            return Err(self.syntax(
                                self.line(),
                                "multiple starred expressions in assignment",
                            ));
                        }
                        self.emit(Op::UnpackEx(si as u32, (elts.len() - si - 1) as u32));
                    }
                    None => {
                        self.emit(Op::UnpackSequence(elts.len() as u32));
                    }
                }
                for e in elts.iter() {
                    match e {
                        Expr::Starred(s) => self.store(&s.value)?,
                        other => self.store(other)?,
                    }
                }
            }
            Expr::Starred(_) => {
                return Err(self.syntax(
                    self.line(),
                    "starred assignment target must be in a list or tuple",
                ))
            }
            _ => return Err(self.syntax(self.line(), "cannot assign to expression")),
        }
        Ok(())
    }

    fn delete(&mut self, t: &Expr) -> CResult {
        match t {
            Expr::Name(n) => self.delete_name(n.id.as_str()),
            Expr::Attribute(a) => {
                self.expr(&a.value)?;
                let i = self.attr_idx(a.attr.id.as_str());
                self.emit(Op::DeleteAttr(i));
            }
            Expr::Subscript(s) => {
                self.expr(&s.value)?;
                self.expr(&s.slice)?;
                self.emit(Op::DeleteSubscr);
            }
            Expr::Tuple(ast::ExprTuple { elts, .. }) | Expr::List(ast::ExprList { elts, .. }) => {
                for e in elts.iter() {
                    self.delete(e)?;
                }
            }
            _ => return Err(self.syntax(self.line(), "cannot delete expression")),
        }
        Ok(())
    }

    fn augassign(&mut self, a: &ast::StmtAugAssign) -> CResult {
        let op = binop(a.op);
        match &*a.target {
            Expr::Name(n) => {
                self.load_name(n.id.as_str());
                self.expr(&a.value)?;
                self.emit(Op::Inplace(op));
                self.store_name(n.id.as_str());
            }
            Expr::Attribute(at) => {
                self.expr(&at.value)?;
                self.emit(Op::Dup);
                let i = self.attr_idx(at.attr.id.as_str());
                self.emit(Op::LoadAttr(i));
                self.expr(&a.value)?;
                self.emit(Op::Inplace(op));
                self.emit(Op::Rot2);
                self.emit(Op::StoreAttr(i));
            }
            Expr::Subscript(s) => {
                self.expr(&s.value)?;
                self.expr(&s.slice)?;
                self.emit(Op::Dup2);
                self.emit(Op::Subscr);
                self.expr(&a.value)?;
                self.emit(Op::Inplace(op));
                self.emit(Op::Rot3);
                self.emit(Op::StoreSubscr);
            }
            _ => {
                return Err(self.syntax(self.line(), "illegal expression for augmented assignment"))
            }
        }
        Ok(())
    }

    /// `match`: the subject stays on the stack; each case tests a copy. A pattern consumes its
    /// subject on success and jumps to one of its fail jumps with the subject still on the
    /// stack on failure (nested patterns pop their element in a trampoline first).
    fn match_stmt(&mut self, m: &ast::StmtMatch) -> CResult {
        self.expr(&m.subject)?;
        let mut ends = Vec::new();
        for case in &m.cases {
            self.set_line(case);
            self.emit(Op::Dup);
            let mut fails = Vec::new();
            self.pattern(&case.pattern, &mut fails)?;
            let guard_fail = match &case.guard {
                Some(g) => {
                    self.expr(g)?;
                    Some(self.emit(Op::JumpIfFalse(0)))
                }
                None => None,
            };
            self.emit(Op::Pop);
            self.stmts(&case.body)?;
            ends.push(self.emit(Op::Jump(0)));
            for f in fails {
                self.patch(f.0);
            }
            self.emit(Op::Pop);
            if let Some(g) = guard_fail {
                self.patch(g);
            }
        }
        self.emit(Op::Pop);
        for e in ends {
            self.patch(e);
        }
        Ok(())
    }

    /// Fail jumps with a trampoline that pops one extra stack item then continues failing.
    fn trampoline(&mut self, inner: Vec<FailJump>, fails: &mut Vec<FailJump>) {
        if inner.is_empty() {
            return;
        }
        let over = self.emit(Op::Jump(0));
        for f in inner {
            self.patch(f.0);
        }
        self.emit(Op::Pop);
        fails.push(FailJump(self.emit(Op::Jump(0))));
        self.patch(over);
    }

    fn fail_if_false(&mut self, fails: &mut Vec<FailJump>) {
        let j = self.emit(Op::JumpIfFalse(0));
        fails.push(FailJump(j));
    }

    fn pattern(&mut self, p: &ast::Pattern, fails: &mut Vec<FailJump>) -> CResult {
        use ast::Pattern as P;
        match p {
            P::MatchValue(v) => {
                self.emit(Op::Dup);
                self.expr(&v.value)?;
                self.emit(Op::Compare(CmpOp::Eq));
                self.fail_if_false(fails);
                self.emit(Op::Pop);
            }
            P::MatchSingleton(s) => {
                self.emit(Op::Dup);
                match s.value {
                    ast::Singleton::None => {
                        self.emit(Op::LoadNone);
                    }
                    ast::Singleton::True => self.load_const(Value::Bool(true)),
                    ast::Singleton::False => self.load_const(Value::Bool(false)),
                }
                self.emit(Op::Is(false));
                self.fail_if_false(fails);
                self.emit(Op::Pop);
            }
            P::MatchAs(a) => {
                if let Some(sub) = &a.pattern {
                    self.emit(Op::Dup);
                    let mut inner = Vec::new();
                    self.pattern(sub, &mut inner)?;
                    self.trampoline(inner, fails);
                }
                match &a.name {
                    Some(n) => self.store_name(n.id.as_str()),
                    None => {
                        self.emit(Op::Pop);
                    }
                }
            }
            P::MatchStar(_) => {
                return Err(self.syntax(self.line(), "star pattern outside a sequence pattern"))
            }
            P::MatchOr(o) => {
                let mut oks = Vec::new();
                for alt in o.patterns.iter() {
                    self.emit(Op::Dup);
                    let mut inner = Vec::new();
                    self.pattern(alt, &mut inner)?;
                    oks.push(self.emit(Op::Jump(0)));
                    for f in inner {
                        self.patch(f.0);
                    }
                    self.emit(Op::Pop);
                }
                fails.push(FailJump(self.emit(Op::Jump(0))));
                for j in oks {
                    self.patch(j);
                }
                self.emit(Op::Pop);
            }
            P::MatchSequence(sq) => {
                let n = sq.patterns.len();
                let star = sq
                    .patterns
                    .iter()
                    .position(|x| matches!(x, P::MatchStar(_)));
                self.emit(Op::Dup);
                self.emit(Op::MatchSequence);
                self.fail_if_false(fails);
                self.emit(Op::Dup);
                self.emit(Op::GetLen);
                match star {
                    Some(_) => {
                        self.load_const(Value::Int(n as i64 - 1));
                        self.emit(Op::Compare(CmpOp::Ge));
                    }
                    None => {
                        self.load_const(Value::Int(n as i64));
                        self.emit(Op::Compare(CmpOp::Eq));
                    }
                }
                self.fail_if_false(fails);
                for (i, sub) in sq.patterns.iter().enumerate() {
                    if let P::MatchStar(st) = sub {
                        let after = n - i - 1;
                        self.emit(Op::Dup);
                        self.load_const(Value::Int(i as i64));
                        if after == 0 {
                            self.emit(Op::LoadNone);
                        } else {
                            self.load_const(Value::Int(-(after as i64)));
                        }
                        self.emit(Op::BuildSlice(2));
                        self.emit(Op::Subscr);
                        self.emit(Op::BuildList(0));
                        self.emit(Op::Rot2);
                        self.emit(Op::ListExtend);
                        match &st.name {
                            Some(nm) => self.store_name(nm.id.as_str()),
                            None => {
                                self.emit(Op::Pop);
                            }
                        }
                        continue;
                    }
                    let idx = match star {
                        Some(s) if i > s => i as i64 - n as i64,
                        _ => i as i64,
                    };
                    self.emit(Op::Dup);
                    self.load_const(Value::Int(idx));
                    self.emit(Op::Subscr);
                    let mut inner = Vec::new();
                    self.pattern(sub, &mut inner)?;
                    self.trampoline(inner, fails);
                }
                self.emit(Op::Pop);
            }
            P::MatchMapping(mm) => {
                self.emit(Op::Dup);
                self.emit(Op::MatchMapping);
                self.fail_if_false(fails);
                for (k, sub) in mm.keys.iter().zip(mm.patterns.iter()) {
                    self.emit(Op::Dup);
                    self.expr(k)?;
                    self.emit(Op::Rot2);
                    self.emit(Op::In(false));
                    self.fail_if_false(fails);
                    self.emit(Op::Dup);
                    self.expr(k)?;
                    self.emit(Op::Subscr);
                    let mut inner = Vec::new();
                    self.pattern(sub, &mut inner)?;
                    self.trampoline(inner, fails);
                }
                if let Some(rest) = &mm.rest {
                    self.emit(Op::Dup);
                    for k in mm.keys.iter() {
                        self.expr(k)?;
                    }
                    self.emit(Op::BuildTuple(mm.keys.len() as u32));
                    self.emit(Op::CopyDictWithoutKeys);
                    self.store_name(rest.id.as_str());
                }
                self.emit(Op::Pop);
            }
            P::MatchClass(mc) => {
                self.emit(Op::Dup);
                self.expr(&mc.cls)?;
                self.emit(Op::MatchClass(0));
                self.fail_if_false(fails);
                for (i, sub) in mc.arguments.patterns.iter().enumerate() {
                    self.emit(Op::Dup);
                    self.expr(&mc.cls)?;
                    self.emit(Op::MatchClass(i as u32 + 1));
                    self.fail_if_false(fails);
                    let mut inner = Vec::new();
                    self.pattern(sub, &mut inner)?;
                    self.trampoline(inner, fails);
                }
                for kw in mc.arguments.keywords.iter() {
                    self.emit(Op::Dup);
                    let ni = self.name_idx(kw.attr.id.as_str());
                    self.emit(Op::MatchAttr(ni));
                    self.fail_if_false(fails);
                    let mut inner = Vec::new();
                    self.pattern(&kw.pattern, &mut inner)?;
                    self.trampoline(inner, fails);
                }
                self.emit(Op::Pop);
            }
        }
        Ok(())
    }

    fn expr(&mut self, e: &Expr) -> CResult {
        self.work()?;
        match e {
            Expr::NumberLiteral(n) => match &n.value {
                ast::Number::Int(i) => {
                    let v = match i.as_i64() {
                        Some(x) => Value::Int(x),
                        None => {
                            let s = i.to_string();
                            let b = parse_int_literal(&s)
                                .ok_or_else(|| self.syntax(self.line(), "invalid int literal"))?;
                            if b.bits() > crate::limits::MAX_INT_BITS {
                                return Err(self.err(self.line(), "int literal exceeds 4096 bits"));
                            }
                            Value::from_bigint(b)
                        }
                    };
                    self.load_const(v);
                }
                ast::Number::Float(f) => self.load_const(Value::Float(*f)),
                ast::Number::Complex { imag, .. } => {
                    self.load_const(Value::Float(*imag));
                    self.emit(Op::Imaginary);
                }
            },
            Expr::StringLiteral(s) => self.load_const(Value::str(s.value.to_str())),
            Expr::BytesLiteral(b) => self.load_const(Value::bytes(b.value.bytes().collect())),
            Expr::BooleanLiteral(b) => self.load_const(Value::Bool(b.value)),
            Expr::NoneLiteral(_) => {
                self.emit(Op::LoadNone);
            }
            Expr::EllipsisLiteral(_) => self.load_const(Value::Ellipsis),
            Expr::Name(n) => self.load_name(n.id.as_str()),
            Expr::BinOp(b) => {
                self.expr(&b.left)?;
                self.expr(&b.right)?;
                self.emit(Op::Binary(binop(b.op)));
            }
            Expr::UnaryOp(u) => {
                self.expr(&u.operand)?;
                self.emit(match u.op {
                    ast::UnaryOp::Not => Op::Not,
                    ast::UnaryOp::USub => Op::Neg,
                    ast::UnaryOp::UAdd => Op::Pos,
                    ast::UnaryOp::Invert => Op::Invert,
                });
            }
            Expr::BoolOp(b) => {
                let mut jumps = Vec::new();
                for (i, v) in b.values.iter().enumerate() {
                    self.expr(v)?;
                    if i + 1 < b.values.len() {
                        jumps.push(self.emit(match b.op {
                            ast::BoolOp::And => Op::JumpIfFalseOrPop(0),
                            ast::BoolOp::Or => Op::JumpIfTrueOrPop(0),
                        }));
                    }
                }
                for j in jumps {
                    self.patch(j);
                }
            }
            Expr::Compare(c) => self.compare(c)?,
            Expr::If(i) => {
                self.expr(&i.test)?;
                let jf = self.emit(Op::JumpIfFalse(0));
                self.expr(&i.body)?;
                let end = self.emit(Op::Jump(0));
                self.patch(jf);
                self.expr(&i.orelse)?;
                self.patch(end);
            }
            Expr::Named(n) => {
                self.expr(&n.value)?;
                self.emit(Op::Dup);
                self.store(&n.target)?;
            }
            Expr::Tuple(t) => {
                if t.elts.iter().any(|x| matches!(x, Expr::Starred(_))) {
                    self.starred_list(&t.elts, Op::ListExtend)?;
                    self.emit(Op::ListToTuple);
                } else {
                    for x in t.elts.iter() {
                        self.expr(x)?;
                    }
                    self.emit(Op::BuildTuple(t.elts.len() as u32));
                }
            }
            Expr::List(t) => {
                if t.elts.iter().any(|x| matches!(x, Expr::Starred(_))) {
                    self.starred_list(&t.elts, Op::ListExtend)?;
                } else {
                    for x in t.elts.iter() {
                        self.expr(x)?;
                    }
                    self.emit(Op::BuildList(t.elts.len() as u32));
                }
            }
            Expr::Set(t) => {
                self.emit(Op::BuildSet(0));
                for x in t.elts.iter() {
                    match x {
                        Expr::Starred(s) => {
                            self.expr(&s.value)?;
                            self.emit(Op::SetUpdate);
                        }
                        other => {
                            self.expr(other)?;
                            self.emit(Op::SetAdd(1));
                        }
                    }
                }
            }
            Expr::Dict(d) => {
                self.emit(Op::BuildMap(0));
                for it in &d.items {
                    match &it.key {
                        Some(k) => {
                            self.expr(k)?;
                            self.expr(&it.value)?;
                            self.emit(Op::MapAdd(2));
                        }
                        None => {
                            self.expr(&it.value)?;
                            self.emit(Op::DictUpdate);
                        }
                    }
                }
            }
            Expr::Attribute(a) => {
                self.expr(&a.value)?;
                let i = self.attr_idx(a.attr.id.as_str());
                self.emit(Op::LoadAttr(i));
            }
            Expr::Subscript(s) => {
                self.expr(&s.value)?;
                self.expr(&s.slice)?;
                self.emit(Op::Subscr);
            }
            Expr::Slice(s) => {
                for x in [&s.lower, &s.upper] {
                    match x {
                        Some(v) => self.expr(v)?,
                        None => {
                            self.emit(Op::LoadNone);
                        }
                    }
                }
                match &s.step {
                    Some(v) => {
                        self.expr(v)?;
                        self.emit(Op::BuildSlice(3));
                    }
                    None => {
                        self.emit(Op::BuildSlice(2));
                    }
                }
            }
            Expr::Call(c) => self.call(c)?,
            Expr::Lambda(l) => {
                let line = self.line();
                let scope = self.take_scope(scope::lambda_key(l))?;
                let params = l
                    .parameters
                    .as_deref()
                    .map(scope::param_names)
                    .unwrap_or_default();
                let qn = self.qualname("<lambda>");
                self.push_unit("<lambda>", &qn, CodeKind::Function, scope, params, line);
                if let Some(p) = &l.parameters {
                    self.set_params(p);
                }
                self.konst(Value::None);
                self.expr(&l.body)?;
                self.emit(Op::ReturnValue);
                let code = self.pop_unit();
                self.make_function(code, l.parameters.as_deref(), None)?;
            }
            Expr::ListComp(c) => self.comprehension("<listcomp>", 0, &[&c.elt], &c.generators)?,
            Expr::SetComp(c) => self.comprehension("<setcomp>", 1, &[&c.elt], &c.generators)?,
            Expr::DictComp(c) => match &c.key {
                Some(k) => self.comprehension("<dictcomp>", 2, &[k, &c.value], &c.generators)?,
                None => {
                    return Err(self.syntax(
                        self.line(),
                        "dict unpacking cannot be used in dict comprehension",
                    ))
                }
            },
            Expr::Generator(c) => self.comprehension("<genexpr>", 3, &[&c.elt], &c.generators)?,
            Expr::Yield(y) => {
                self.check_in_function("'yield' outside function")?;
                self.check_not_in_comprehension("yield")?;
                match &y.value {
                    Some(v) => self.expr(v)?,
                    None => {
                        self.emit(Op::LoadNone);
                    }
                }
                self.emit(Op::YieldValue);
            }
            Expr::YieldFrom(y) => {
                self.check_in_function("'yield from' outside function")?;
                self.check_not_in_comprehension("yield")?;
                if self.u().code.is_coroutine || self.u().code.is_async_gen {
                    return Err(self.syntax(self.line(), "'yield from' inside async function"));
                }
                self.expr(&y.value)?;
                self.emit(Op::GetIter);
                self.emit(Op::LoadNone);
                self.emit(Op::YieldFrom);
            }
            Expr::Await(a) => {
                self.check_in_function("'await' outside function")?;
                self.check_async("'await' outside async function")?;
                self.expr(&a.value)?;
                self.await_top(0);
            }
            Expr::FString(f) => {
                let mut n = 0;
                for part in f.value.iter() {
                    match part {
                        ast::FStringPart::Literal(l) => {
                            self.load_const(Value::str(&l.value));
                            n += 1;
                        }
                        ast::FStringPart::FString(fs) => {
                            self.check_fstring_311(&fs.elements, fs.flags, 0)?;
                            for el in fs.elements.iter() {
                                n += self.fstring_element(el)?;
                            }
                        }
                    }
                }
                if n != 1 {
                    self.emit(Op::BuildString(n));
                }
            }
            Expr::Starred(_) => {
                return Err(self.syntax(self.line(), "can't use starred expression here"))
            }
            Expr::TString(_) => {
                return Err(self.err(self.line(), "template strings are not supported"))
            }
            Expr::IpyEscapeCommand(_) => return Err(self.syntax(self.line(), "invalid syntax")),
        }
        Ok(())
    }

    /// A `from __future__ import` must open the module and name features Python 3.11 knows.
    fn check_future(&self, i: &ast::StmtImportFrom) -> CResult {
        if !self.future_ok.contains(&i.range.start().to_u32()) {
            return Err(self.syntax(
                self.line(),
                "from __future__ imports must occur at the beginning of the file",
            ));
        }
        for a in &i.names {
            match a.name.id.as_str() {
                "nested_scopes" | "generators" | "division" | "absolute_import"
                | "with_statement" | "print_function" | "unicode_literals" | "barry_as_FLUFL"
                | "generator_stop" | "annotations" => {}
                "braces" => return Err(self.syntax(self.line(), "not a chance")),
                other => {
                    return Err(self.syntax(
                        self.line(),
                        format!("future feature {other} is not defined"),
                    ))
                }
            }
        }
        Ok(())
    }

    /// An annotation: evaluated, or under `from __future__ import annotations` its source
    /// text as a string (CPython stores `ast.unparse` of it; the text as written is used).
    fn annotation(&mut self, x: &Expr) -> CResult {
        if self.future_annotations {
            let text = match self.unparse(x) {
                Some(t) => t,
                None => self
                    .source
                    .get(x.range().to_std_range())
                    .unwrap_or("")
                    .to_string(),
            };
            self.load_const(Value::str(&text));
            return Ok(());
        }
        self.expr(x)
    }

    /// `ast.unparse` for the expressions annotations are made of (names, attributes,
    /// subscripts, tuples, lists, `|`, constants); None for anything else.
    fn unparse(&self, x: &Expr) -> Option<String> {
        let join = |xs: &[Expr]| -> Option<String> {
            let parts: Option<Vec<String>> = xs.iter().map(|e| self.unparse(e)).collect();
            Some(parts?.join(", "))
        };
        Some(match x {
            Expr::Name(n) => n.id.to_string(),
            Expr::Attribute(a) => format!("{}.{}", self.unparse(&a.value)?, a.attr.id),
            Expr::Subscript(s) => {
                let inner = match &*s.slice {
                    Expr::Tuple(t) if !t.elts.is_empty() => join(&t.elts)?,
                    other => self.unparse(other)?,
                };
                format!("{}[{inner}]", self.unparse(&s.value)?)
            }
            Expr::Tuple(t) if t.elts.len() == 1 => format!("({},)", self.unparse(&t.elts[0])?),
            Expr::Tuple(t) => format!("({})", join(&t.elts)?),
            Expr::List(l) => format!("[{}]", join(&l.elts)?),
            Expr::BinOp(b) if b.op == ast::Operator::BitOr => {
                format!("{} | {}", self.unparse(&b.left)?, self.unparse(&b.right)?)
            }
            Expr::StringLiteral(s) => crate::unicode::str_repr(s.value.to_str()),
            Expr::NoneLiteral(_) => "None".into(),
            Expr::BooleanLiteral(b) => if b.value { "True" } else { "False" }.into(),
            Expr::EllipsisLiteral(_) => "...".into(),
            Expr::NumberLiteral(_) => self.source.get(x.range().to_std_range())?.to_string(),
            _ => return None,
        })
    }

    /// Is `n` a parameter of the function being compiled?
    fn is_param(&self, n: &str) -> bool {
        let c = &self.u().code;
        if c.kind != CodeKind::Function {
            return false;
        }
        let k = (c.argcount + c.kwonly) as usize + usize::from(c.varargs) + usize::from(c.varkw);
        c.varnames.iter().take(k).any(|v| &**v == n)
    }

    /// `except A, B:` (Python 3.14) must be `except (A, B):` in 3.11.
    fn check_except_type(&self, ty: &Expr) -> CResult {
        match ty {
            Expr::Tuple(t) if !t.parenthesized => Err(self.syntax(
                self.line(),
                "multiple exception types must be parenthesized",
            )),
            _ => Ok(()),
        }
    }

    /// `yield` in a comprehension or generator expression is a SyntaxError (Python 3.8+).
    fn check_not_in_comprehension(&self, what: &str) -> CResult {
        let c = &self.u().code;
        if c.kind != CodeKind::Comprehension {
            return Ok(());
        }
        let kind = match &*c.name {
            "<genexpr>" => "generator expression",
            "<setcomp>" => "set comprehension",
            "<dictcomp>" => "dict comprehension",
            _ => "list comprehension",
        };
        Err(self.syntax(self.line(), format!("'{what}' inside {kind}")))
    }

    fn check_in_function(&self, msg: &str) -> CResult {
        match self.u().code.kind {
            CodeKind::Function | CodeKind::Comprehension => Ok(()),
            _ => Err(self.syntax(self.line(), msg)),
        }
    }

    /// The parser accepts Python 3.12's f-strings (PEP 701); 3.11 forbids a backslash, a
    /// comment or (in a single-quoted f-string) the string's own quote in an expression part.
    fn check_fstring_311(
        &self,
        elements: &ast::InterpolatedStringElements,
        flags: ast::FStringFlags,
        spec_depth: u32,
    ) -> CResult {
        use ast::StringFlags;
        let quote = match flags.quote_style() {
            ast::str::Quote::Single => '\'',
            ast::str::Quote::Double => '"',
        };
        for el in elements.iter() {
            let ast::InterpolatedStringElement::Interpolation(i) = el else {
                continue;
            };
            let line = self.lines.line(i.range.start().to_u32());
            if spec_depth >= 2 {
                return Err(self.syntax(line, "f-string: expressions nested too deeply"));
            }
            // From after `{` to the format spec's `:` (or the closing `}`): the expression,
            // any `=` / `!r` and whatever comment the parser skipped.
            let start = i.range.start().to_usize() + 1;
            let end = match &i.format_spec {
                Some(spec) => spec.range.start().to_usize(),
                None => i.range.end().to_usize().saturating_sub(1),
            };
            let text = self.source.get(start..end.max(start)).unwrap_or("");
            if text.contains('\\') {
                return Err(
                    self.syntax(line, "f-string expression part cannot include a backslash")
                );
            }
            if !flags.is_triple_quoted() && text.contains(quote) {
                return Err(self.syntax(line, "f-string: expecting '}'"));
            }
            let mut in_str: Option<char> = None;
            for ch in text.chars() {
                match (in_str, ch) {
                    (None, '\'' | '"') => in_str = Some(ch),
                    (Some(q), c) if c == q => in_str = None,
                    (None, '#') => {
                        return Err(self.syntax(line, "f-string expression part cannot include '#'"))
                    }
                    _ => {}
                }
            }
            if let Some(spec) = &i.format_spec {
                self.check_fstring_311(&spec.elements, flags, spec_depth + 1)?;
            }
        }
        Ok(())
    }

    fn fstring_element(
        &mut self,
        el: &ast::InterpolatedStringElement,
    ) -> Result<u32, CompileError> {
        match el {
            ast::InterpolatedStringElement::Literal(l) => {
                self.load_const(Value::str(&l.value));
                Ok(1)
            }
            ast::InterpolatedStringElement::Interpolation(i) => {
                let mut n = 0;
                let mut conv = match i.conversion {
                    ast::ConversionFlag::None => 0,
                    ast::ConversionFlag::Str => 1,
                    ast::ConversionFlag::Repr => 2,
                    ast::ConversionFlag::Ascii => 3,
                };
                if let Some(d) = &i.debug_text {
                    let text = format!("{}{}{}", d.leading(), d.expression(), d.trailing());
                    self.load_const(Value::str(&text));
                    n += 1;
                    if conv == 0 && i.format_spec.is_none() {
                        conv = 2;
                    }
                }
                self.expr(&i.expression)?;
                let mut flags = conv << 1;
                if let Some(spec) = &i.format_spec {
                    let mut k = 0;
                    for e in spec.elements.iter() {
                        k += self.fstring_element(e)?;
                    }
                    if k != 1 {
                        self.emit(Op::BuildString(k));
                    }
                    flags |= 1;
                }
                self.emit(Op::FormatValue(flags));
                Ok(n + 1)
            }
        }
    }

    /// Build a list from elements some of which are starred.
    /// A list from `elts` with `*x` items spliced in by `extend` (`ListExtend` for displays,
    /// `ArgsExtend` for call arguments, whose error names the callee).
    fn starred_list(&mut self, elts: &[Expr], extend: Op) -> CResult {
        self.emit(Op::BuildList(0));
        for x in elts {
            match x {
                Expr::Starred(s) => {
                    self.expr(&s.value)?;
                    self.emit(extend);
                }
                other => {
                    self.expr(other)?;
                    self.emit(Op::ListAppend(1));
                }
            }
        }
        Ok(())
    }

    fn compare(&mut self, c: &ast::ExprCompare) -> CResult {
        // `x is 5`, `s is "a"`: identity of numbers, strings and bytes is forbidden on Cowboy
        // (whitepaper, "Forbidden operations: Identity"); CPython warns about the same mistake.
        let literal = |e: &Expr| {
            matches!(
                e,
                Expr::NumberLiteral(_)
                    | Expr::StringLiteral(_)
                    | Expr::BytesLiteral(_)
                    | Expr::FString(_)
            )
        };
        for (i, op) in c.ops.iter().enumerate() {
            let left = if i == 0 {
                &*c.left
            } else {
                &c.comparators[i - 1]
            };
            if matches!(op, ast::CmpOp::Is | ast::CmpOp::IsNot)
                && (literal(left) || literal(&c.comparators[i]))
            {
                return Err(self.syntax(
                    self.line(),
                    "\"is\" with a literal: use \"==\" (identity of numbers, strings and bytes is not defined on Cowboy)",
                ));
            }
        }
        self.expr(&c.left)?;
        let n = c.ops.len();
        let mut cleanup = Vec::new();
        for (i, (op, right)) in c.ops.iter().zip(c.comparators.iter()).enumerate() {
            self.expr(right)?;
            if i + 1 < n {
                self.emit(Op::Dup);
                self.emit(Op::Rot3);
            }
            self.emit(cmpop(*op));
            if i + 1 < n {
                cleanup.push(self.emit(Op::JumpIfFalseOrPop(0)));
            }
        }
        if !cleanup.is_empty() {
            let end = self.emit(Op::Jump(0));
            for j in cleanup {
                self.patch(j);
            }
            // Stack: [right_copy, False] → drop the copy under the result.
            self.emit(Op::Rot2);
            self.emit(Op::Pop);
            self.patch(end);
        }
        Ok(())
    }

    fn call(&mut self, c: &ast::ExprCall) -> CResult {
        let args = &c.arguments.args;
        let kws = &c.arguments.keywords;
        if let Expr::Name(n) = &*c.func {
            let name = n.id.as_str();
            if FORBIDDEN_CALLS.contains(&name)
                && matches!(self.resolve_peek(name), NameKind::Global)
            {
                return Err(self.err(
                    self.line(),
                    format!("call to '{name}' is not allowed in the PVM"),
                ));
            }
            if matches!(name, "vars" | "dir")
                && args.is_empty()
                && kws.is_empty()
                && matches!(self.resolve_peek(name), NameKind::Global)
            {
                return Err(self.err(
                    self.line(),
                    format!("call to '{name}' without an argument is not allowed in the PVM"),
                ));
            }
            if name == "super"
                && args.is_empty()
                && kws.is_empty()
                && matches!(self.resolve_peek("super"), NameKind::Global)
            {
                // Zero-argument super(): pass the defining class and the first argument.
                let first = self.u().first_param.clone();
                let has_class = self.u().code.freevars.iter().any(|x| &**x == "__class__");
                if let (Some(first), true) = (first, has_class) {
                    self.load_name("super");
                    self.load_name("__class__");
                    self.load_name(&first);
                    self.emit(Op::Call(2));
                    return Ok(());
                }
                return Err(self.syntax(self.line(), "super(): no arguments outside a method"));
            }
        }
        let simple = !args.iter().any(|a| matches!(a, Expr::Starred(_)))
            && kws.iter().all(|k| k.arg.is_some());
        if simple && kws.is_empty() {
            if let Expr::Attribute(a) = &*c.func {
                self.expr(&a.value)?;
                for x in args.iter() {
                    self.expr(x)?;
                }
                let i = self.attr_idx(a.attr.id.as_str());
                self.set_line(c);
                self.emit(Op::CallMethod(i, args.len() as u32));
                return Ok(());
            }
        }
        self.expr(&c.func)?;
        if simple {
            for x in args.iter() {
                self.expr(x)?;
            }
            if kws.is_empty() {
                self.set_line(c);
                self.emit(Op::Call(args.len() as u32));
            } else {
                let mut names = Vec::new();
                for k in kws.iter() {
                    self.expr(&k.value)?;
                    if let Some(a) = &k.arg {
                        names.push(Value::str(a.id.as_str()));
                    }
                }
                let ki = self.konst(Value::tuple(names));
                self.set_line(c);
                self.emit(Op::CallKw((args.len() + kws.len()) as u32, ki));
            }
            return Ok(());
        }
        self.starred_list(args, Op::ArgsExtend)?;
        self.emit(Op::ListToTuple);
        let mut flag = 0;
        if !kws.is_empty() {
            self.emit(Op::BuildMap(0));
            for k in kws.iter() {
                match &k.arg {
                    Some(a) => {
                        self.load_const(Value::str(a.id.as_str()));
                        self.expr(&k.value)?;
                        self.emit(Op::BuildMap(1));
                        self.emit(Op::DictMerge);
                    }
                    None => {
                        self.expr(&k.value)?;
                        self.emit(Op::DictMerge);
                    }
                }
            }
            flag = 1;
        }
        self.set_line(c);
        self.emit(Op::CallEx(flag));
        Ok(())
    }

    /// Resolve without allocating a local slot (used for checks).
    fn resolve_peek(&self, n: &str) -> NameKind {
        let u = self.u();
        if u.scope.globals.contains(n) {
            return NameKind::Global;
        }
        let mut bound = u.scope.bound.contains(n) || u.code.freevars.iter().any(|x| &**x == n);
        if !bound {
            bound = self.units.iter().any(|x| x.scope.bound.contains(n));
        }
        if bound {
            NameKind::Name
        } else {
            NameKind::Global
        }
    }

    /// Comprehension: kind 0 list, 1 set, 2 dict, 3 generator.
    fn comprehension(
        &mut self,
        name: &str,
        kind: u8,
        elts: &[&Expr],
        gens: &[ast::Comprehension],
    ) -> CResult {
        let Some(first) = gens.first() else {
            return Err(self.syntax(self.line(), "comprehension without for"));
        };
        let line = self.line();
        let scope = self.take_scope(scope::comp_key(first))?;
        let is_gen = kind == 3 || scope.is_generator;
        // `async for` clauses or `await`s make a list/set/dict comprehension a coroutine
        // awaited in place, and a generator expression an async generator.
        let is_async = scope.has_await;
        if is_async && kind != 3 {
            self.check_async("asynchronous comprehension outside of an asynchronous function")?;
        }
        let qn = self.qualname(name);
        self.push_unit(
            name,
            &qn,
            CodeKind::Comprehension,
            scope,
            vec![".0".into()],
            line,
        );
        self.unit().code.argcount = 1;
        self.unit().code.is_generator = is_gen;
        self.unit().code.is_coroutine = is_async && kind != 3;
        self.unit().code.is_async_gen = is_async && kind == 3;
        self.konst(Value::None);
        match kind {
            0 => {
                self.emit(Op::BuildList(0));
            }
            1 => {
                self.emit(Op::BuildSet(0));
            }
            2 => {
                self.emit(Op::BuildMap(0));
            }
            _ => {}
        }
        self.comp_loop(kind, elts, gens, 0)?;
        if kind == 3 {
            self.emit(Op::LoadNone);
        }
        self.emit(Op::ReturnValue);
        let code = self.pop_unit();
        self.make_function(code, None, None)?;
        self.expr(&first.iter)?;
        self.emit(if first.is_async {
            Op::GetAIter
        } else {
            Op::GetIter
        });
        self.emit(Op::Call(1));
        if is_async && kind != 3 {
            self.await_top(0);
        }
        Ok(())
    }

    fn comp_loop(
        &mut self,
        kind: u8,
        elts: &[&Expr],
        gens: &[ast::Comprehension],
        depth: usize,
    ) -> CResult {
        let Some(g) = gens.get(depth) else {
            // Innermost: produce the element.
            let d = depth as u32 + 1;
            match kind {
                0 => {
                    self.expr(elts[0])?;
                    self.emit(Op::ListAppend(d));
                }
                1 => {
                    self.expr(elts[0])?;
                    self.emit(Op::SetAdd(d));
                }
                2 => {
                    self.expr(elts[0])?;
                    self.expr(elts[1])?;
                    self.emit(Op::MapAdd(d + 1));
                }
                _ => {
                    self.expr(elts[0])?;
                    self.emit(Op::YieldValue);
                    self.emit(Op::Pop);
                }
            }
            return Ok(());
        };
        if depth == 0 {
            self.emit(Op::LoadFast(0));
        } else {
            self.expr(&g.iter)?;
            self.emit(if g.is_async {
                Op::GetAIter
            } else {
                Op::GetIter
            });
        }
        let start = self.here();
        let fi = if g.is_async {
            self.async_for_step(&g.target)?
        } else {
            let fi = self.emit(Op::ForIter(0));
            self.store(&g.target)?;
            fi
        };
        let mut skips = Vec::new();
        for c in &g.ifs {
            self.expr(c)?;
            skips.push(self.emit(Op::JumpIfFalse(0)));
        }
        self.comp_loop(kind, elts, gens, depth + 1)?;
        for s in skips {
            self.patch_to(s, start as u32);
        }
        self.emit(Op::Jump(start as u32));
        self.patch(fi);
        if g.is_async {
            self.emit(Op::EndAsyncFor);
        }
        Ok(())
    }
}

/// A jump taken when a pattern fails (the pattern's subject is still on the stack).
struct FailJump(usize);

fn binop(op: ast::Operator) -> BinOp {
    match op {
        ast::Operator::Add => BinOp::Add,
        ast::Operator::Sub => BinOp::Sub,
        ast::Operator::Mult => BinOp::Mul,
        ast::Operator::MatMult => BinOp::MatMul,
        ast::Operator::Div => BinOp::TrueDiv,
        ast::Operator::Mod => BinOp::Mod,
        ast::Operator::Pow => BinOp::Pow,
        ast::Operator::LShift => BinOp::LShift,
        ast::Operator::RShift => BinOp::RShift,
        ast::Operator::BitOr => BinOp::Or,
        ast::Operator::BitXor => BinOp::Xor,
        ast::Operator::BitAnd => BinOp::And,
        ast::Operator::FloorDiv => BinOp::FloorDiv,
    }
}

fn cmpop(op: ast::CmpOp) -> Op {
    match op {
        ast::CmpOp::Eq => Op::Compare(CmpOp::Eq),
        ast::CmpOp::NotEq => Op::Compare(CmpOp::Ne),
        ast::CmpOp::Lt => Op::Compare(CmpOp::Lt),
        ast::CmpOp::LtE => Op::Compare(CmpOp::Le),
        ast::CmpOp::Gt => Op::Compare(CmpOp::Gt),
        ast::CmpOp::GtE => Op::Compare(CmpOp::Ge),
        ast::CmpOp::Is => Op::Is(false),
        ast::CmpOp::IsNot => Op::Is(true),
        ast::CmpOp::In => Op::In(false),
        ast::CmpOp::NotIn => Op::In(true),
    }
}

/// Parse a Python int literal (with base prefix and underscores).
fn parse_int_literal(s: &str) -> Option<num_bigint::BigInt> {
    let t: String = s.chars().filter(|c| *c != '_').collect();
    let lower = t.to_ascii_lowercase();
    let (radix, digits) = if let Some(r) = lower.strip_prefix("0x") {
        (16, r.to_string())
    } else if let Some(r) = lower.strip_prefix("0o") {
        (8, r.to_string())
    } else if let Some(r) = lower.strip_prefix("0b") {
        (2, r.to_string())
    } else {
        (10, lower)
    };
    num_bigint::BigInt::parse_bytes(digits.as_bytes(), radix)
}

fn unreachable_code() -> ! {
    // The unit stack is balanced by construction (every push_unit has a pop_unit).
    panic!("compiler unit stack underflow")
}
