//! Scope analysis: which names of a function are locals, cells, free variables or globals
//! (Python 3.11 scoping rules, as CPython's symtable computes them).
//!
//! A scope records the names it binds, declares `global`/`nonlocal`, and reads, plus the free
//! names of its nested scopes. The compiler then decides per name: a fast local slot, a cell
//! (bound here and captured by an inner function), a free variable (bound in an enclosing
//! function), or a global. Class bodies do not make their names visible to nested functions.

use indexmap::IndexSet;
use ruff_python_ast::{self as ast, Expr, Stmt};
use ruff_text_size::Ranged;

/// Names used by one scope.
#[derive(Debug, Default, Clone)]
pub struct Scope {
    /// Names bound here (parameters, assignments, imports, def/class, for/with/except targets).
    pub bound: IndexSet<String>,
    /// Declared `global`.
    pub globals: IndexSet<String>,
    /// Declared `nonlocal`.
    pub nonlocals: IndexSet<String>,
    /// Names read.
    pub uses: IndexSet<String>,
    /// Free names of nested scopes.
    pub child_free: IndexSet<String>,
    /// Contains `yield` / `yield from` / `await`.
    pub is_generator: bool,
    /// Contains `yield` / `yield from` (an `async def` with it is an async generator).
    pub has_yield: bool,
    /// Contains `await`, `async for`, `async with` or an async comprehension (awaited here).
    pub has_await: bool,
    /// Names bound by walrus inside comprehensions nested here (bind in this scope).
    pub walrus: IndexSet<String>,
    /// This is a class body.
    pub is_class: bool,
}

impl Scope {
    /// Local names (bound and not declared global/nonlocal).
    pub fn is_local(&self, n: &str) -> bool {
        self.bound.contains(n) && !self.globals.contains(n) && !self.nonlocals.contains(n)
    }
    /// Names this scope needs from enclosing function scopes.
    pub fn free(&self) -> IndexSet<String> {
        let mut out = IndexSet::new();
        for n in self
            .uses
            .iter()
            .chain(self.child_free.iter())
            .chain(self.nonlocals.iter())
        {
            if self.globals.contains(n) {
                continue;
            }
            if self.is_class {
                if n == "__class__" {
                    continue;
                }
                if self.child_free.contains(n) && !self.uses.contains(n) {
                    // A nested function's free name passes through the class body even if
                    // the class binds it (class names are invisible to nested functions).
                    out.insert(n.clone());
                    continue;
                }
            }
            if !self.is_local(n) {
                out.insert(n.clone());
            }
        }
        out
    }
}

/// The deepest nesting of scopes (functions, lambdas, classes, comprehensions and generator
/// expressions inside one another, the module not counted) the PVM compiles. Free names pass
/// through every scope between their binding and their use, so resolving them costs the
/// nesting depth per name, and a scope's qualified name grows with its depth; the limit
/// keeps both a small constant factor of the source size. CPython has no such limit (it fails
/// with `MemoryError` or `RecursionError` at a few thousand); real programs nest a handful of
/// scopes, and 20 matches CPython's limit on statically nested blocks.
pub const MAX_SCOPE_DEPTH: u32 = 20;

/// Identifies a scope's node: its source range and kind. The scopes of a module are computed
/// in one pass ([`analyze_module`]) and looked up by the compiler when it reaches each node.
pub type ScopeKey = (u32, u32, u8);

/// The key of a `def`.
pub fn def_key(f: &ast::StmtFunctionDef) -> ScopeKey {
    key(f.range(), 0)
}
/// The key of a `class`.
pub fn class_key(c: &ast::StmtClassDef) -> ScopeKey {
    key(c.range(), 1)
}
/// The key of a `lambda`.
pub fn lambda_key(l: &ast::ExprLambda) -> ScopeKey {
    key(l.range(), 2)
}
/// The key of a comprehension or generator expression (by its first `for` clause).
pub fn comp_key(first: &ast::Comprehension) -> ScopeKey {
    key(first.range(), 3)
}
fn key(r: ruff_text_size::TextRange, kind: u8) -> ScopeKey {
    (r.start().to_u32(), r.end().to_u32(), kind)
}

/// Every nested scope of a module, by node.
#[derive(Debug, Default)]
pub struct Scopes {
    map: std::collections::BTreeMap<ScopeKey, Scope>,
    /// Offset of the first scope nested deeper than [`MAX_SCOPE_DEPTH`].
    too_deep: Option<u32>,
}

impl Scopes {
    /// The scope of the node `key` (each is taken once, by the compiler).
    pub fn take(&mut self, key: ScopeKey) -> Option<Scope> {
        self.map.remove(&key)
    }
}

/// Analyse a module and, in the same pass, every scope nested in it: each node is visited
/// once, whatever the nesting (the compiler used to analyse each nested scope again when it
/// reached it, which made `lambda: lambda: …` quadratic). `Err` holds the offset of a scope
/// nested deeper than [`MAX_SCOPE_DEPTH`].
pub fn analyze_module(body: &[Stmt]) -> Result<(Scope, Scopes), u32> {
    let mut scopes = Scopes::default();
    let mut b = Builder::new(Scope::default(), false, 0, &mut scopes);
    b.body(body);
    let s = b.s;
    match scopes.too_deep {
        Some(at) => Err(at),
        None => Ok((s, scopes)),
    }
}

/// Analyse a function-like scope on its own (nested scopes are analysed but discarded).
pub fn analyze_function(params: Option<&ast::Parameters>, body: &[Stmt], is_class: bool) -> Scope {
    let mut scopes = Scopes::default();
    function_scope(params, body, is_class, 1, &mut scopes)
}

fn function_scope(
    params: Option<&ast::Parameters>,
    body: &[Stmt],
    is_class: bool,
    depth: u32,
    scopes: &mut Scopes,
) -> Scope {
    let s = Scope {
        is_class,
        ..Scope::default()
    };
    let mut b = Builder::new(s, !is_class, depth, scopes);
    if let Some(p) = params {
        for n in param_names(p) {
            b.s.bound.insert(n);
        }
    }
    b.body(body);
    if !is_class && b.s.uses.contains("super") {
        b.s.uses.insert("__class__".into());
    }
    b.s
}

fn lambda_scope(
    params: Option<&ast::Parameters>,
    body: &Expr,
    depth: u32,
    scopes: &mut Scopes,
) -> Scope {
    let mut b = Builder::new(Scope::default(), true, depth, scopes);
    if let Some(p) = params {
        for n in param_names(p) {
            b.s.bound.insert(n);
        }
    }
    b.expr(body);
    b.s
}

/// A comprehension body (everything except the first iterable). A walrus target binds in
/// the enclosing function (`nonlocal`) or, at module or class level, globally.
fn comprehension_scope(
    elts: &[&Expr],
    gens: &[ast::Comprehension],
    parent_is_function: bool,
    depth: u32,
    scopes: &mut Scopes,
) -> Scope {
    let mut b = Builder::new(Scope::default(), true, depth, scopes);
    b.s.bound.insert(".0".into());
    for (i, g) in gens.iter().enumerate() {
        if i > 0 {
            b.expr(&g.iter);
        }
        b.target(&g.target);
        for c in &g.ifs {
            b.expr(c);
        }
        if g.is_async {
            b.s.is_generator = true;
            b.s.has_await = true;
        }
    }
    for e in elts {
        b.expr(e);
    }
    let w: Vec<String> = b.s.walrus.drain(..).collect();
    for n in w {
        if parent_is_function {
            b.s.nonlocals.insert(n);
        } else {
            b.s.globals.insert(n);
        }
    }
    b.s
}

/// All parameter names in order: positional-only, positional, *args, keyword-only, **kwargs.
pub fn param_names(p: &ast::Parameters) -> Vec<String> {
    let mut v = Vec::new();
    for a in p.posonlyargs.iter().chain(p.args.iter()) {
        v.push(a.parameter.name.id.to_string());
    }
    if let Some(a) = &p.vararg {
        v.push(a.name.id.to_string());
    }
    for a in p.kwonlyargs.iter() {
        v.push(a.parameter.name.id.to_string());
    }
    if let Some(a) = &p.kwarg {
        v.push(a.name.id.to_string());
    }
    v
}

struct Builder<'s> {
    s: Scope,
    /// A function, lambda or comprehension (not the module, not a class body): a walrus in
    /// a comprehension nested here binds here.
    function_like: bool,
    /// Scopes enclosing this one, the module not counted.
    depth: u32,
    /// Where nested scopes go.
    scopes: &'s mut Scopes,
}

impl<'s> Builder<'s> {
    fn new(s: Scope, function_like: bool, depth: u32, scopes: &'s mut Scopes) -> Builder<'s> {
        Builder {
            s,
            function_like,
            depth,
            scopes,
        }
    }
    fn bind(&mut self, n: &str) {
        self.s.bound.insert(n.to_string());
    }
    /// Record a nested scope (built by `build` one level deeper) under `key`, and its free
    /// names as this scope's `child_free`. Beyond [`MAX_SCOPE_DEPTH`] nothing is built.
    fn child(&mut self, key: ScopeKey, build: impl FnOnce(u32, &mut Scopes) -> Scope) {
        let depth = self.depth + 1;
        if depth > MAX_SCOPE_DEPTH {
            self.scopes.too_deep.get_or_insert(key.0);
            return;
        }
        let c = build(depth, self.scopes);
        for n in c.free() {
            self.s.child_free.insert(n);
        }
        self.scopes.map.insert(key, c);
    }
    fn params_defaults(&mut self, p: &ast::Parameters) {
        for a in p
            .posonlyargs
            .iter()
            .chain(p.args.iter())
            .chain(p.kwonlyargs.iter())
        {
            if let Some(d) = &a.default {
                self.expr(d);
            }
        }
    }
    fn target(&mut self, e: &Expr) {
        match e {
            Expr::Name(n) => self.bind(n.id.as_str()),
            Expr::Tuple(t) => t.elts.iter().for_each(|x| self.target(x)),
            Expr::List(t) => t.elts.iter().for_each(|x| self.target(x)),
            Expr::Starred(s) => self.target(&s.value),
            other => self.expr(other),
        }
    }
    fn body(&mut self, b: &[Stmt]) {
        for s in b {
            self.stmt(s)
        }
    }
    fn stmt(&mut self, st: &Stmt) {
        match st {
            Stmt::FunctionDef(f) => {
                for d in &f.decorator_list {
                    self.expr(&d.expression);
                }
                self.params_defaults(&f.parameters);
                self.bind(f.name.id.as_str());
                self.child(def_key(f), |d, sc| {
                    function_scope(Some(&f.parameters), &f.body, false, d, sc)
                });
            }
            Stmt::ClassDef(c) => {
                for d in &c.decorator_list {
                    self.expr(&d.expression);
                }
                if let Some(a) = &c.arguments {
                    a.args.iter().for_each(|x| self.expr(x));
                    a.keywords.iter().for_each(|k| self.expr(&k.value));
                }
                self.bind(c.name.id.as_str());
                self.child(class_key(c), |d, sc| {
                    function_scope(None, &c.body, true, d, sc)
                });
            }
            Stmt::Return(r) => {
                if let Some(v) = &r.value {
                    self.expr(v)
                }
            }
            Stmt::Delete(d) => d.targets.iter().for_each(|t| self.target(t)),
            Stmt::Assign(a) => {
                self.expr(&a.value);
                a.targets.iter().for_each(|t| self.target(t));
            }
            Stmt::AugAssign(a) => {
                self.expr(&a.value);
                if let Expr::Name(n) = &*a.target {
                    self.s.uses.insert(n.id.to_string());
                }
                self.target(&a.target);
            }
            Stmt::AnnAssign(a) => {
                if let Some(v) = &a.value {
                    self.expr(v);
                    self.target(&a.target);
                } else if let Expr::Name(n) = &*a.target {
                    if !self.s.is_class {
                        self.bind(n.id.as_str());
                    }
                }
            }
            Stmt::For(f) => {
                if f.is_async {
                    self.s.is_generator = true;
                    self.s.has_await = true;
                }
                self.expr(&f.iter);
                self.target(&f.target);
                self.body(&f.body);
                self.body(&f.orelse);
            }
            Stmt::While(w) => {
                self.expr(&w.test);
                self.body(&w.body);
                self.body(&w.orelse);
            }
            Stmt::If(i) => {
                self.expr(&i.test);
                self.body(&i.body);
                for c in &i.elif_else_clauses {
                    if let Some(t) = &c.test {
                        self.expr(t);
                    }
                    self.body(&c.body);
                }
            }
            Stmt::With(w) => {
                if w.is_async {
                    self.s.is_generator = true;
                    self.s.has_await = true;
                }
                for it in &w.items {
                    self.expr(&it.context_expr);
                    if let Some(t) = &it.optional_vars {
                        self.target(t);
                    }
                }
                self.body(&w.body);
            }
            Stmt::Match(m) => {
                self.expr(&m.subject);
                for c in &m.cases {
                    self.pattern(&c.pattern);
                    if let Some(g) = &c.guard {
                        self.expr(g);
                    }
                    self.body(&c.body);
                }
            }
            Stmt::Raise(r) => {
                if let Some(e) = &r.exc {
                    self.expr(e);
                }
                if let Some(e) = &r.cause {
                    self.expr(e);
                }
            }
            Stmt::Try(t) => {
                self.body(&t.body);
                for h in &t.handlers {
                    let ast::ExceptHandler::ExceptHandler(h) = h;
                    if let Some(ty) = &h.type_ {
                        self.expr(ty);
                    }
                    if let Some(n) = &h.name {
                        self.bind(n.id.as_str());
                    }
                    self.body(&h.body);
                }
                self.body(&t.orelse);
                self.body(&t.finalbody);
            }
            Stmt::Assert(a) => {
                self.expr(&a.test);
                if let Some(m) = &a.msg {
                    self.expr(m);
                }
            }
            Stmt::Import(i) => {
                for a in &i.names {
                    let n = match &a.asname {
                        Some(x) => x.id.to_string(),
                        None => a.name.id.split('.').next().unwrap_or("").to_string(),
                    };
                    self.bind(&n);
                }
            }
            Stmt::ImportFrom(i) => {
                for a in &i.names {
                    let n = a.asname.as_ref().unwrap_or(&a.name);
                    if n.id.as_str() != "*" {
                        self.bind(n.id.as_str());
                    }
                }
            }
            Stmt::Global(g) => {
                for n in &g.names {
                    self.s.globals.insert(n.id.to_string());
                }
            }
            Stmt::Nonlocal(g) => {
                for n in &g.names {
                    self.s.nonlocals.insert(n.id.to_string());
                }
            }
            Stmt::Expr(e) => self.expr(&e.value),
            _ => {}
        }
    }
    fn pattern(&mut self, p: &ast::Pattern) {
        use ast::Pattern as P;
        match p {
            P::MatchValue(v) => self.expr(&v.value),
            P::MatchSingleton(_) => {}
            P::MatchSequence(s) => s.patterns.iter().for_each(|x| self.pattern(x)),
            P::MatchMapping(m) => {
                m.keys.iter().for_each(|k| self.expr(k));
                m.patterns.iter().for_each(|x| self.pattern(x));
                if let Some(r) = &m.rest {
                    self.bind(r.id.as_str());
                }
            }
            P::MatchClass(c) => {
                self.expr(&c.cls);
                c.arguments.patterns.iter().for_each(|x| self.pattern(x));
                c.arguments
                    .keywords
                    .iter()
                    .for_each(|k| self.pattern(&k.pattern));
            }
            P::MatchStar(s) => {
                if let Some(n) = &s.name {
                    self.bind(n.id.as_str());
                }
            }
            P::MatchAs(a) => {
                if let Some(p) = &a.pattern {
                    self.pattern(p);
                }
                if let Some(n) = &a.name {
                    self.bind(n.id.as_str());
                }
            }
            P::MatchOr(o) => o.patterns.iter().for_each(|x| self.pattern(x)),
        }
    }
    fn comp(&mut self, elts: &[&Expr], gens: &[ast::Comprehension], is_genexp: bool) {
        let Some(first) = gens.first() else { return };
        self.expr(&first.iter);
        let parent_is_function = self.function_like;
        let mut has_await = false;
        let mut walrus = Vec::new();
        self.child(comp_key(first), |d, sc| {
            let c = comprehension_scope(elts, gens, parent_is_function, d, sc);
            has_await = c.has_await;
            walrus.extend(c.nonlocals.iter().chain(c.globals.iter()).cloned());
            c
        });
        // An async list/set/dict comprehension is a coroutine awaited where it stands; an
        // async generator expression is an async generator, not awaited.
        if has_await && !is_genexp {
            self.s.is_generator = true;
            self.s.has_await = true;
        }
        for n in walrus {
            self.bind(&n);
            self.s.walrus.insert(n);
        }
    }
    fn expr(&mut self, e: &Expr) {
        match e {
            Expr::BoolOp(b) => b.values.iter().for_each(|x| self.expr(x)),
            Expr::Named(n) => {
                self.expr(&n.value);
                if let Expr::Name(t) = &*n.target {
                    self.bind(t.id.as_str());
                    self.s.walrus.insert(t.id.to_string());
                }
            }
            Expr::BinOp(b) => {
                self.expr(&b.left);
                self.expr(&b.right);
            }
            Expr::UnaryOp(u) => self.expr(&u.operand),
            Expr::Lambda(l) => {
                if let Some(p) = &l.parameters {
                    self.params_defaults(p);
                }
                self.child(lambda_key(l), |d, sc| {
                    lambda_scope(l.parameters.as_deref(), &l.body, d, sc)
                });
            }
            Expr::If(i) => {
                self.expr(&i.test);
                self.expr(&i.body);
                self.expr(&i.orelse);
            }
            Expr::Dict(d) => {
                for it in &d.items {
                    if let Some(k) = &it.key {
                        self.expr(k);
                    }
                    self.expr(&it.value);
                }
            }
            Expr::Set(s) => s.elts.iter().for_each(|x| self.expr(x)),
            Expr::ListComp(c) => self.comp(&[&c.elt], &c.generators, false),
            Expr::SetComp(c) => self.comp(&[&c.elt], &c.generators, false),
            Expr::Generator(c) => self.comp(&[&c.elt], &c.generators, true),
            Expr::DictComp(c) => match &c.key {
                Some(k) => self.comp(&[k, &c.value], &c.generators, false),
                None => self.comp(&[&c.value], &c.generators, false),
            },
            Expr::Await(a) => {
                self.s.is_generator = true;
                self.s.has_await = true;
                self.expr(&a.value)
            }
            Expr::Yield(y) => {
                self.s.is_generator = true;
                self.s.has_yield = true;
                if let Some(v) = &y.value {
                    self.expr(v)
                }
            }
            Expr::YieldFrom(y) => {
                self.s.is_generator = true;
                self.s.has_yield = true;
                self.expr(&y.value)
            }
            Expr::Compare(c) => {
                self.expr(&c.left);
                c.comparators.iter().for_each(|x| self.expr(x));
            }
            Expr::Call(c) => {
                self.expr(&c.func);
                c.arguments.args.iter().for_each(|x| self.expr(x));
                c.arguments
                    .keywords
                    .iter()
                    .for_each(|k| self.expr(&k.value));
            }
            Expr::FString(f) => {
                for el in f.value.elements() {
                    self.fstring_el(el);
                }
            }
            Expr::Attribute(a) => self.expr(&a.value),
            Expr::Subscript(s) => {
                self.expr(&s.value);
                self.expr(&s.slice);
            }
            Expr::Starred(s) => self.expr(&s.value),
            Expr::Name(n) => {
                if matches!(n.ctx, ast::ExprContext::Store | ast::ExprContext::Del) {
                    self.bind(n.id.as_str());
                } else {
                    self.s.uses.insert(n.id.to_string());
                }
            }
            Expr::List(l) => l.elts.iter().for_each(|x| self.expr(x)),
            Expr::Tuple(l) => l.elts.iter().for_each(|x| self.expr(x)),
            Expr::Slice(s) => {
                for x in [&s.lower, &s.upper, &s.step].into_iter().flatten() {
                    self.expr(x)
                }
            }
            _ => {}
        }
    }
    fn fstring_el(&mut self, el: &ast::InterpolatedStringElement) {
        if let ast::InterpolatedStringElement::Interpolation(i) = el {
            self.expr(&i.expression);
            if let Some(spec) = &i.format_spec {
                for e in spec.elements.iter() {
                    self.fstring_el(e);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(src: &str) -> Vec<Stmt> {
        ruff_python_parser::parse_module(src)
            .map(|p| p.into_syntax().body.to_vec())
            .unwrap_or_default()
    }

    #[test]
    fn locals_cells_and_frees() {
        let b = body(
            "def outer(a):\n    x = 1\n    def inner():\n        return x + y\n    return inner\n",
        );
        let Some(Stmt::FunctionDef(f)) = b.first() else {
            panic!("not a def")
        };
        let s = analyze_function(Some(&f.parameters), &f.body, false);
        assert!(s.is_local("a") && s.is_local("x") && s.is_local("inner"));
        // x is captured by inner; y is free in inner and not bound here, so it is free here too.
        assert!(s.child_free.contains("x"));
        let free = s.free();
        assert!(free.contains("y") && !free.contains("x"));
    }

    #[test]
    fn global_and_nonlocal_are_not_local() {
        let b = body("def f():\n    global g\n    g = 1\n    def h():\n        nonlocal z\n        z = 2\n    z = 0\n");
        let Some(Stmt::FunctionDef(f)) = b.first() else {
            panic!("not a def")
        };
        let s = analyze_function(Some(&f.parameters), &f.body, false);
        assert!(!s.is_local("g") && s.globals.contains("g"));
        assert!(s.is_local("z") && s.child_free.contains("z"));
    }

    #[test]
    fn super_needs_class_cell() {
        let b = body("def m(self):\n    return super().m()\n");
        let Some(Stmt::FunctionDef(f)) = b.first() else {
            panic!("not a def")
        };
        let s = analyze_function(Some(&f.parameters), &f.body, false);
        assert!(s.free().contains("__class__"));
    }

    #[test]
    fn comprehension_walrus_binds_in_enclosing_function() {
        let b = body("def f(xs):\n    [y := x for x in xs]\n    return y\n");
        let Some(Stmt::FunctionDef(f)) = b.first() else {
            panic!("not a def")
        };
        let s = analyze_function(Some(&f.parameters), &f.body, false);
        assert!(s.is_local("y") && !s.is_local("x"));
    }
}
