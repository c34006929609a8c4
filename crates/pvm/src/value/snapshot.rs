//! Copies of an object graph that keep every fact an invocation can observe: the snapshot of a
//! module body's result (`crate::body_cache`).
//!
//! A module body that makes no host call computes the same objects on every invocation. The
//! body cache runs it once, copies what it made into a *template* here, and gives each later
//! invocation a fresh copy of the template instead of running the body again. For that to be
//! invisible, each copy must be, to the program and to the meters, the object the body would
//! have made:
//! - the same identity: an object keeps the identity serial its original had (or its lack of
//!   one, assigned later in program order as usual), and objects shared in the original graph
//!   are shared in the copy (one memo per copy, by address);
//! - the same accounted size: a copy's [`Acct`] is given the original's size, so when the
//!   invocation later drops or grows it the live count moves as it would have;
//! - the same layout: dict and set tables are cloned slot for slot, since what a lookup is
//!   charged depends on the probe sequence;
//! - nothing shared with another invocation: every object the body made is copied; only
//!   objects that outlive invocations anyway (the VM base, compiled-code constants: serials
//!   at or above the permanent range, [`Acct::is_shared`]) and immutable payloads without an
//!   accounting token (big ints, builtin functions, `range`) are referred to, not copied.
//!
//! Templates are built with accounting off and are not tracked for cycle reclamation
//! ([`Tracked`]): they belong to the cache, not to any invocation, and dropping one never
//! moves an invocation's live count. Their accounting tokens keep the serials; the sizes are
//! kept beside them ([`Template::sizes`], in the order the objects were made: copying the
//! template back walks the same graph in the same order, so it makes them in that order too).
//!
//! What cannot be copied faithfully makes the copy fail (`None`), and the body is then simply
//! run on every invocation: generators and iterators (a suspended frame), `super` objects,
//! instances holding native state (a `re.Pattern`, a hash object) or exception state.

use super::*;
use std::collections::BTreeMap;

/// A module body's result, copied out of the invocation that ran it.
#[derive(Debug)]
pub struct Template {
    /// The module's globals.
    pub globals: Rc<PyDict>,
    /// The modules it imported, by name, in import order.
    pub modules: Vec<(Rc<str>, Value)>,
    /// The native classes its imports registered (`Vm::native_classes`), in order.
    pub native_classes: Vec<(&'static str, Rc<Class>)>,
    /// Accounted size of each object the copy made, in the order it made them.
    sizes: Vec<u64>,
}

impl Template {
    /// The accounted bytes of the body's objects (what keeping the template costs, roughly).
    pub fn bytes(&self) -> u64 {
        self.sizes.iter().sum()
    }
}

/// Which way a copy goes.
enum Dir<'t> {
    /// From an invocation's objects to a template: unaccounted, untracked, sizes recorded.
    Out(Vec<u64>),
    /// From a template into the running invocation: accounted at the recorded sizes (the
    /// next one at the cursor), tracked.
    In(&'t [u64], usize),
}

/// A container made empty whose contents are still to be copied. Mutable containers are made
/// first and filled later, so a graph with cycles through them (a function and its module's
/// globals, a class and its methods) is copied without recursing around the cycle.
enum Fill {
    Dict(Rc<PyDict>, Rc<PyDict>),
    List(Rc<PyList>, Rc<PyList>),
    Set(Rc<PySet>, Rc<PySet>),
    Cell(Rc<PyCell>, Rc<PyCell>),
    ClassDict(Rc<Class>, Rc<Class>),
    FuncMeta(Rc<Function>, Rc<Function>),
    InstanceBase(Rc<Instance>, Rc<Instance>),
}

/// Nesting of objects (tuples in tuples, lists in dicts, …) beyond which the graph is not
/// copied: copying and dropping a template recurse on the Rust stack, which is bounded, and
/// no module body worth caching nests so deep.
const MAX_NESTING: u32 = 200;

struct Copier<'t> {
    dir: Dir<'t>,
    /// Copies made so far of objects referred to more than once, by the original's address
    /// (an object with one strong reference is met once, so it is not remembered).
    memo: BTreeMap<usize, Value>,
    /// Containers made empty, each with the nesting it was made at.
    pending: Vec<(Fill, u32)>,
    nesting: u32,
}

/// Copy the roots out of the running invocation into a template, or `None` if the graph holds
/// an object that cannot be copied faithfully (see the module docs).
pub fn take(
    globals: &Rc<PyDict>,
    modules: &[(Rc<str>, Value)],
    native_classes: &[(&'static str, Rc<Class>)],
) -> Option<Template> {
    // Built unaccounted; and kept out of the invocation's tracked containers, which are
    // emptied when it ends.
    let before = TRACKED.with(|r| std::mem::take(&mut *r.borrow_mut()));
    let out = crate::memory::unaccounted(|| {
        let mut c = Copier::new(Dir::Out(Vec::new()));
        let (globals, modules, native_classes) = c.roots(globals, modules, native_classes)?;
        let Dir::Out(sizes) = c.dir else {
            unreachable!("the copier was made outward")
        };
        Some(Template {
            globals,
            modules,
            native_classes,
            sizes,
        })
    });
    TRACKED.with(|r| *r.borrow_mut() = before);
    out
}

/// The roots of a module body's result, copied into the running invocation.
pub type Roots = (
    Rc<PyDict>,
    Vec<(Rc<str>, Value)>,
    Vec<(&'static str, Rc<Class>)>,
);

/// Copy a template into the running invocation: objects accounted at their original sizes,
/// with their original serials, tracked like any the invocation made. `None` is not expected
/// (a template holds only what [`take`] could copy, met again at the same nesting).
///
/// The copies are made with accounting off and then given their sizes, without counting
/// them: the caller must set the memory counters ([`crate::memory::set_meters`]) to those the
/// recorded run ended with, which count them.
pub fn restore(t: &Template) -> Option<Roots> {
    crate::memory::unaccounted(|| {
        Copier::new(Dir::In(&t.sizes, 0)).roots(&t.globals, &t.modules, &t.native_classes)
    })
}

/// A value the copy refers to rather than copies: inline, immutable without an accounting
/// token, or outliving invocations.
fn plain(v: &Value) -> bool {
    match v {
        Value::None
        | Value::NotImplemented
        | Value::Ellipsis
        | Value::Bool(_)
        | Value::Int(_)
        | Value::Float(_)
        | Value::BigInt(_)
        | Value::Range(_) => true,
        Value::Str(r) => r.acct.is_shared(),
        Value::Bytes(r) => r.acct.is_shared(),
        Value::Tuple(r) => r.acct.is_shared(),
        Value::List(r) => r.acct.is_shared(),
        Value::Dict(r) => r.acct.is_shared(),
        Value::Set(r) => r.acct.is_shared(),
        Value::ByteArray(r) => r.acct.is_shared(),
        Value::Function(r) => r.acct.is_shared(),
        Value::Class(r) => r.acct.is_shared(),
        Value::Instance(r) => r.acct.is_shared(),
        _ => false,
    }
}

/// The memo key of an object: its address, or `None` when this is its only strong reference
/// (it cannot be met again).
fn key<T>(r: &Rc<T>) -> Option<usize> {
    (Rc::strong_count(r) > 1).then_some(Rc::as_ptr(r) as *const () as usize)
}

impl<'t> Copier<'t> {
    fn new(dir: Dir<'t>) -> Copier<'t> {
        Copier {
            dir,
            memo: BTreeMap::new(),
            pending: Vec::new(),
            nesting: 0,
        }
    }

    fn roots(
        &mut self,
        globals: &Rc<PyDict>,
        modules: &[(Rc<str>, Value)],
        native: &[(&'static str, Rc<Class>)],
    ) -> Option<Roots> {
        let g = self.dict(globals, true);
        let mut ms = Vec::with_capacity(modules.len());
        for (name, m) in modules {
            ms.push((name.clone(), self.value(m)?));
        }
        let mut ns = Vec::with_capacity(native.len());
        for (name, c) in native {
            ns.push((*name, self.class(c)?));
        }
        while let Some((f, depth)) = self.pending.pop() {
            // Containers count toward the nesting too: a template is dropped when its thread
            // ends, possibly after the deferred-drop queue is gone, so recursively.
            self.nesting = depth + 1;
            if self.nesting >= MAX_NESTING {
                return None;
            }
            self.fill(f)?;
        }
        Some((g, ms, ns))
    }

    /// Give `copy` the size and serial of `orig` (both are the same kind of object).
    fn account(&mut self, orig: &Acct, copy: &Acct) {
        match &mut self.dir {
            Dir::Out(sizes) => {
                sizes.push(orig.size() as u64);
                copy.set_serial(orig.serial_if_assigned());
            }
            Dir::In(sizes, next) => {
                let size = sizes.get(*next).copied().unwrap_or(orig.size() as u64);
                *next += 1;
                // Made with accounting off (`restore`): the caller sets the counters to the
                // recorded run's, which counted these objects.
                copy.restore(size, orig.serial_if_assigned());
            }
        }
    }

    /// Queue a container made empty for filling.
    fn queue(&mut self, f: Fill) {
        self.pending.push((f, self.nesting));
    }

    fn tracking(&self) -> bool {
        matches!(self.dir, Dir::In(..))
    }

    /// A new container: tracked for cycle reclamation (by `tracked`, one of the `rc_*`
    /// constructors) when copied into an invocation, not when copied into a template.
    fn made<T>(&self, c: T, tracked: fn(T) -> Rc<T>) -> Rc<T> {
        if self.tracking() {
            tracked(c)
        } else {
            Rc::new(c)
        }
    }

    fn remember(&mut self, at: Option<usize>, v: Value) -> Value {
        if let Some(at) = at {
            self.memo.insert(at, v.clone());
        }
        v
    }

    fn recall(&self, at: Option<usize>) -> Option<&Value> {
        self.memo.get(&at?)
    }

    fn value(&mut self, v: &Value) -> Option<Value> {
        if plain(v) {
            return Some(v.clone());
        }
        let at = match v {
            Value::Str(r) => key(r),
            Value::Bytes(r) => key(r),
            Value::Tuple(r) => key(r),
            Value::List(r) => key(r),
            Value::Dict(r) => key(r),
            Value::Set(r) => key(r),
            Value::ByteArray(r) => key(r),
            Value::Function(r) => key(r),
            Value::Class(r) => key(r),
            Value::Instance(r) => key(r),
            Value::Module(r) => key(r),
            Value::Builtin(r) => key(r),
            Value::BoundMethod(r) => key(r),
            Value::Property(r) => key(r),
            Value::ClassMethod(r) | Value::StaticMethod(r) => key(r),
            Value::Cell(r) => key(r),
            Value::Slice(r) => key(r),
            // A suspended frame, an iterator's position, a `super` binding: not copied.
            Value::Generator(_) | Value::Iter(_) | Value::Super(_) => return None,
            // The inline and immutable kinds, answered by `plain` above.
            _ => return Some(v.clone()),
        };
        if let Some(done) = self.recall(at) {
            return Some(done.clone());
        }
        if self.nesting >= MAX_NESTING {
            return None;
        }
        self.nesting += 1;
        let out = self.fresh(v, at);
        self.nesting -= 1;
        out
    }

    /// Copy `v` (remembered under `at`), which has not been copied yet. Immutable objects are
    /// copied whole (their parts first); mutable containers are made empty and queued.
    fn fresh(&mut self, v: &Value, at: Option<usize>) -> Option<Value> {
        Some(match v {
            Value::Str(s) => {
                let c = Rc::new(PyStr::clone(s));
                self.account(&s.acct, &c.acct);
                self.remember(at, Value::Str(c))
            }
            Value::Bytes(b) => {
                let c = Rc::new(PyBytes::new(b.b.to_vec()));
                self.account(&b.acct, &c.acct);
                self.remember(at, Value::Bytes(c))
            }
            Value::ByteArray(b) => {
                let c = Rc::new(PyByteArray::new(b.b.borrow().clone()));
                self.account(&b.acct, &c.acct);
                self.remember(at, Value::ByteArray(c))
            }
            Value::Tuple(t) => {
                // Items first: a path back to this tuple passes through a mutable container,
                // which is made (and remembered) before its contents are copied.
                let mut items = Vec::with_capacity(t.items.len());
                for x in t.items.iter() {
                    items.push(self.value(x)?);
                }
                let c = Rc::new(PyTuple::new(items));
                self.account(&t.acct, &c.acct);
                self.remember(at, Value::Tuple(c))
            }
            Value::List(l) => {
                let c = PyList::new(Vec::new());
                let c = self.made(c, rc_list);
                self.account(&l.acct, &c.acct);
                self.queue(Fill::List(l.clone(), c.clone()));
                self.remember(at, Value::List(c))
            }
            Value::Dict(d) => Value::Dict(self.dict(d, true)),
            Value::Set(s) => {
                let c = PySet::from_table(Table::default(), s.frozen);
                let c = self.made(c, rc_set);
                self.account(&s.acct, &c.acct);
                self.queue(Fill::Set(s.clone(), c.clone()));
                self.remember(at, Value::Set(c))
            }
            Value::Function(f) => Value::Function(self.function(f)?),
            Value::Class(c) => Value::Class(self.class(c)?),
            Value::Instance(i) => {
                if i.native.borrow().is_some() || i.exc.borrow().is_some() {
                    return None;
                }
                let class = self.class(&i.class.borrow())?;
                let escaped = i.dict_escaped.get();
                let c = Instance {
                    class: RefCell::new(class),
                    dict: self.dict(&i.dict, escaped),
                    base: RefCell::new(None),
                    exc: RefCell::new(None),
                    native: RefCell::new(None),
                    dict_escaped: Cell::new(escaped),
                    acct: Acct::new(0),
                };
                let c = self.made(c, rc_inst);
                self.account(&i.acct, &c.acct);
                self.queue(Fill::InstanceBase(i.clone(), c.clone()));
                self.remember(at, Value::Instance(c))
            }
            Value::Module(m) => {
                let pending = m.pending.borrow();
                let c = match &*pending {
                    // Still reading the base's namespace: the copy does too, and stands for
                    // the same private copy (its size and serial).
                    Some(acct) => {
                        let c = Module::copy_on_write(&m.name, m.dict());
                        if let Some(copy) = &*c.pending.borrow() {
                            self.account(acct, copy);
                        }
                        c
                    }
                    None => Module::new(&m.name, self.dict(&m.dict(), true)),
                };
                self.remember(at, Value::Module(Rc::new(c)))
            }
            Value::Builtin(b) => match &b.kind {
                BuiltinKind::Method(recv) => {
                    let recv = self.value(recv)?;
                    let name = b.name.clone();
                    let kind = BuiltinKind::Method(recv);
                    self.remember(at, Value::Builtin(Rc::new(Builtin { name, kind })))
                }
                // Immutable, holding nothing an invocation made.
                _ => self.remember(at, v.clone()),
            },
            Value::BoundMethod(m) => {
                let receiver = self.value(&m.receiver)?;
                let func = self.value(&m.func)?;
                let c = Rc::new(BoundMethod { receiver, func });
                self.remember(at, Value::BoundMethod(c))
            }
            Value::Property(p) => {
                let c = Rc::new(Property {
                    fget: self.value(&p.fget)?,
                    fset: self.value(&p.fset)?,
                    fdel: self.value(&p.fdel)?,
                    doc: self.value(&p.doc)?,
                });
                self.remember(at, Value::Property(c))
            }
            Value::ClassMethod(w) => {
                let c = Rc::new(Wrapped(self.value(&w.0)?));
                self.remember(at, Value::ClassMethod(c))
            }
            Value::StaticMethod(w) => {
                let c = Rc::new(Wrapped(self.value(&w.0)?));
                self.remember(at, Value::StaticMethod(c))
            }
            Value::Cell(cell) => Value::Cell(self.cell(cell)),
            Value::Slice(s) => {
                let c = Rc::new(PySlice {
                    start: self.value(&s.start)?,
                    stop: self.value(&s.stop)?,
                    step: self.value(&s.step)?,
                });
                self.remember(at, Value::Slice(c))
            }
            _ => return None,
        })
    }

    /// A dict, made empty and queued; `tracked` as the original was (an instance's own dict
    /// is tracked only once handed to Python).
    fn dict(&mut self, d: &Rc<PyDict>, tracked: bool) -> Rc<PyDict> {
        if d.acct.is_shared() {
            return d.clone();
        }
        let at = key(d);
        if let Some(Value::Dict(done)) = self.recall(at) {
            return done.clone();
        }
        let c = if tracked {
            self.made(PyDict::new(), rc_dict)
        } else {
            Rc::new(PyDict::new())
        };
        self.account(&d.acct, &c.acct);
        self.queue(Fill::Dict(d.clone(), c.clone()));
        self.remember(at, Value::Dict(c.clone()));
        c
    }

    fn cell(&mut self, cell: &Rc<PyCell>) -> Rc<PyCell> {
        let at = key(cell);
        if let Some(Value::Cell(done)) = self.recall(at) {
            return done.clone();
        }
        let c = self.made(PyCell::default(), rc_cell);
        self.queue(Fill::Cell(cell.clone(), c.clone()));
        self.remember(at, Value::Cell(c.clone()));
        c
    }

    fn function(&mut self, f: &Rc<Function>) -> Option<Rc<Function>> {
        if f.acct.is_shared() {
            return Some(f.clone());
        }
        // Defaults and the closure are fixed when a function is made, from objects that
        // existed before it, so they are copied before it (a path from them back to it runs
        // through a mutable container, made before it is filled).
        let mut defaults = Vec::with_capacity(f.defaults.len());
        for d in &f.defaults {
            defaults.push(self.value(d)?);
        }
        let mut kwdefaults = Vec::with_capacity(f.kwdefaults.len());
        for (k, d) in &f.kwdefaults {
            kwdefaults.push((k.clone(), self.value(d)?));
        }
        let closure = f.closure.iter().map(|c| self.cell(c)).collect();
        let c = Function {
            code: f.code.clone(),
            globals: self.dict(&f.globals, true),
            defaults,
            kwdefaults,
            closure,
            attrs: self.dict(&f.attrs, true),
            meta: RefCell::new(FuncMeta::default()),
            acct: Acct::new(0),
        };
        let c = self.made(c, rc_func);
        self.account(&f.acct, &c.acct);
        self.queue(Fill::FuncMeta(f.clone(), c.clone()));
        self.remember(key(f), Value::Function(c.clone()));
        Some(c)
    }

    fn class(&mut self, c: &Rc<Class>) -> Option<Rc<Class>> {
        if c.acct.is_shared() {
            return Some(c.clone());
        }
        let at = key(c);
        if let Some(Value::Class(done)) = self.recall(at) {
            return Some(done.clone());
        }
        let mut bases = Vec::with_capacity(c.bases.len());
        for b in &c.bases {
            bases.push(self.class(b)?);
        }
        let mut mro = Vec::with_capacity(c.mro.len());
        for b in &c.mro {
            mro.push(self.class(b)?);
        }
        let meta = match &*c.meta.borrow() {
            Some(m) => Some(self.class(m)?),
            None => None,
        };
        let copy = Class {
            name: c.name.clone(),
            qualname: RefCell::new(c.qualname.borrow().clone()),
            bases,
            mro,
            dict: RefCell::new(NameMap::default()),
            // Lookup caches start empty, as a class just made: what a lookup is charged does
            // not depend on them, and a replayed body starts a class epoch of its own.
            lookup_cache: RefCell::default(),
            lookup_epoch: Cell::new(0),
            ctor_cache: RefCell::new(None),
            builtin: c.builtin,
            immutable: Cell::new(false),
            meta: RefCell::new(meta),
            slots: c.slots.clone(),
            acct: Acct::new(0),
        };
        let copy = self.made(copy, rc_class);
        self.account(&c.acct, &copy.acct);
        self.queue(Fill::ClassDict(c.clone(), copy.clone()));
        self.remember(at, Value::Class(copy.clone()));
        Some(copy)
    }

    /// Copy the contents of a container made empty.
    fn fill(&mut self, f: Fill) -> Option<()> {
        match f {
            // The originals are only read while copying (a copy makes and queues, it never
            // writes an original), so they stay borrowed throughout.
            Fill::Dict(src, dst) => {
                let t = self.table(&src.table.borrow())?;
                *dst.table.borrow_mut() = t;
            }
            Fill::Set(src, dst) => {
                let t = self.table(&src.table.borrow())?;
                *dst.table.borrow_mut() = t;
            }
            Fill::List(src, dst) => {
                let items = src.items.borrow();
                let mut out = Vec::with_capacity(items.capacity());
                for x in items.iter() {
                    out.push(self.value(x)?);
                }
                *dst.items.borrow_mut() = out;
            }
            Fill::Cell(src, dst) => {
                let inner = src.v.borrow().clone();
                if let Some(x) = inner {
                    *dst.v.borrow_mut() = Some(self.value(&x)?);
                }
            }
            Fill::ClassDict(src, dst) => {
                // A clone keeps the names' stored hashes: nothing is hashed again.
                let mut out = src.dict.borrow().clone();
                for v in out.values_mut() {
                    *v = self.value(v)?;
                }
                *dst.dict.borrow_mut() = out;
            }
            Fill::FuncMeta(src, dst) => {
                let m = src.meta.borrow();
                let meta = FuncMeta {
                    name: self.option(&m.name)?,
                    qualname: self.option(&m.qualname)?,
                    doc: self.value(&m.doc)?,
                    module: self.value(&m.module)?,
                    annotations: self.option(&m.annotations)?,
                };
                *dst.meta.borrow_mut() = meta;
            }
            Fill::InstanceBase(src, dst) => {
                let base = src.base.borrow().clone();
                if let Some(b) = base {
                    *dst.base.borrow_mut() = Some(self.value(&b)?);
                }
            }
        }
        Some(())
    }

    fn option(&mut self, v: &Option<Value>) -> Option<Option<Value>> {
        Some(match v {
            Some(x) => Some(self.value(x)?),
            None => None,
        })
    }

    /// A table with every key and value copied, and its index, entry positions and probe
    /// counts as they were.
    fn table(&mut self, t: &Table) -> Option<Table> {
        let mut entries = Vec::with_capacity(t.entries.len());
        for e in &t.entries {
            entries.push(match e {
                None => None,
                Some(e) => Some(Entry {
                    hash: e.hash,
                    key: self.value(&e.key)?,
                    value: self.value(&e.value)?,
                    probes: e.probes,
                }),
            });
        }
        Some(Table {
            entries,
            slots: t.slots.clone(),
            len: t.len,
            head: t.head,
            end: t.end,
            // The copy's keys, positions and index are the original's: the same lookups.
            stamp: t.stamp(),
        })
    }
}
