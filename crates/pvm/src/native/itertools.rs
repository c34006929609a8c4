//! `itertools`: CPython 3.11's module in Rust (`batched` is 3.12 and absent), replacing the
//! Python version that ran every element through a generator.
//!
//! Each tool is a class of its own (`itertools.count`, `itertools.product`, …, subclassable,
//! as in CPython) whose instances carry an [`It`] as native state; one `__next__` serves them
//! all. Every tool is lazy like CPython's: it reads its input only as far as its output needs,
//! except `product`, `permutations`, `combinations` and `combinations_with_replacement`, which
//! read their pools up front, as CPython does.
//!
//! Arguments are checked when the object is made, with CPython's messages (the Argument
//! Clinic ones for tools taking keywords, `… expected N arguments, got M` for the
//! positional-only ones).
//!
//! Metering, by the worst case of each step: every `__next__` is a call (`cost::CALL`, paid by
//! the caller of the dunder; iteration reaches it receiver-first, `super::iter_class`); each element read from an input while skipping (`dropwhile`,
//! `islice`, `groupby`, a `chain` source) pays `cost::ITER`; each tuple made pays one
//! `PER_ELEM` per item, and the combinatoric tools also pay for the index work of the step
//! (a `permutations` step can rotate the whole index vector) before the tuple is built. The
//! pools, the `cycle` copy and the `tee` buffer are accounted memory: they are tuples, lists
//! and accounted links, so filling the memory limit with them ends in MemoryError.
//!
//! State is never borrowed across a call back into Python (an iterator, a predicate, a key
//! function): the values a step needs are cloned out first, so a callback that re-enters the
//! same iterator sees consistent state and cannot make the VM panic. `tee` refuses re-entry
//! with CPython's RuntimeError. Does not: pickle (`__reduce__`, `__setstate__`), as the Python
//! version did not.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use super::{builtin, iter_class, new_obj, positional, state, state_mut, Body};
use crate::bytecode::BinOp;
use crate::cost;
use crate::memory::{Acct, HEADER, SLOT};
use crate::value::*;
use crate::vm::{Args, Exc, Vm, R};

/// The state of one itertools object.
enum It {
    Count {
        n: Value,
        step: Value,
    },
    Cycle {
        /// The input, until it is exhausted; then the saved copy is replayed.
        it: Option<Value>,
        saved: Rc<PyList>,
        i: usize,
    },
    Repeat {
        obj: Value,
        /// Repetitions left; `None` = forever.
        left: Option<i64>,
    },
    Accumulate {
        it: Value,
        func: Value,
        total: Option<Value>,
        /// `initial=`, given out first and then dropped.
        initial: Option<Value>,
    },
    Chain {
        /// Iterator over the iterables (`None` once exhausted).
        sources: Option<Value>,
        active: Option<Value>,
    },
    Compress {
        data: Value,
        selectors: Value,
    },
    DropWhile {
        pred: Value,
        it: Value,
        dropping: bool,
    },
    TakeWhile {
        pred: Value,
        it: Value,
        done: bool,
    },
    FilterFalse {
        pred: Value,
        it: Value,
    },
    StarMap {
        func: Value,
        it: Value,
    },
    Islice {
        /// The input (`None` once islice is done).
        it: Option<Value>,
        next: u64,
        stop: Option<u64>,
        step: u64,
        count: u64,
    },
    Pairwise {
        it: Option<Value>,
        old: Option<Value>,
    },
    ZipLongest {
        /// Inputs; `None` for an exhausted one.
        its: Vec<Option<Value>>,
        active: usize,
        fill: Value,
    },
    /// `product`, `permutations`, `combinations`, `combinations_with_replacement`.
    Combinatoric(Combo),
    GroupBy(Rc<RefCell<Group>>),
    Grouper {
        group: Rc<RefCell<Group>>,
        /// Which of the groupby's groups this is (it dies when the groupby moves on).
        serial: u64,
        key: Value,
    },
    Tee {
        source: Rc<TeeSource>,
        link: Rc<TeeLink>,
    },
}

/// Index state of the combinatoric tools: the next tuple is `pools[k][indices[k]]` (product)
/// or `pool[indices[k]]` for `k < r` (the others).
struct Combo {
    kind: ComboKind,
    pools: Vec<Rc<PyTuple>>,
    indices: Vec<usize>,
    /// permutations: CPython's countdown per position.
    cycles: Vec<usize>,
    r: usize,
    first: bool,
    done: bool,
    /// The index vectors, accounted (the pools are tuples, accounted already).
    _acct: Acct,
}

#[derive(Clone, Copy, PartialEq)]
enum ComboKind {
    Product,
    Permutations,
    Combinations,
    WithReplacement,
}

/// State shared by a `groupby` and its group iterators (CPython's `groupbyobject`).
struct Group {
    it: Value,
    key: Value,
    target: Option<Value>,
    current_key: Option<Value>,
    current_value: Option<Value>,
    /// Serial of the live group iterator.
    serial: u64,
}

/// The input shared by the iterators of one `tee`.
struct TeeSource {
    it: Value,
    running: Cell<bool>,
}

/// One buffered element of a `tee`: every tee iterator points at the link it reads next; the
/// last link is empty until the fastest iterator pulls the next element into it.
struct TeeLink {
    value: RefCell<Option<Value>>,
    next: RefCell<Option<Rc<TeeLink>>>,
    _acct: Acct,
}

impl TeeLink {
    fn new() -> Rc<TeeLink> {
        Rc::new(TeeLink {
            value: RefCell::new(None),
            next: RefCell::new(None),
            _acct: Acct::new(HEADER + 2 * SLOT),
        })
    }
}

/// Dropped link by link: a tee buffering a million elements must not recurse a million deep.
impl Drop for TeeLink {
    fn drop(&mut self) {
        let mut next = self.next.get_mut().take();
        while let Some(link) = next {
            next = match Rc::try_unwrap(link) {
                Ok(mut l) => l.next.get_mut().take(),
                Err(_) => None,
            };
        }
    }
}

fn stop(vm: &mut Vm) -> Exc {
    vm.new_exc_noargs("StopIteration")
}

/// CPython's `n` converter (`Py_ssize_t`): an index, too-large ints an OverflowError.
fn ssize(vm: &mut Vm, v: &Value) -> R<i64> {
    if let Value::BigInt(_) = v {
        return Err(vm.new_exc(
            "OverflowError",
            "Python int too large to convert to C ssize_t",
        ));
    }
    vm.index_of(v)
}

/// Arguments of a tool taking keywords (Argument Clinic's checks and messages): `names` in
/// order, the first `required` required, at most `max_pos` positionally.
fn clinic(
    vm: &mut Vm,
    mut a: Args,
    f: &str,
    names: &[&str],
    required: usize,
    max_pos: usize,
) -> R<Vec<Option<Value>>> {
    let plural = |k: usize| if k == 1 { "" } else { "s" };
    let total = a.pos.len() + a.kw.len();
    if total > names.len() {
        let max = names.len();
        return Err(vm.type_err(format!(
            "{f}() takes at most {max} argument{} ({total} given)",
            plural(max)
        )));
    }
    if a.pos.len() > max_pos {
        let n = a.pos.len();
        return Err(vm.type_err(format!(
            "{f}() takes at most {max_pos} positional argument{} ({n} given)",
            plural(max_pos)
        )));
    }
    let mut out: Vec<Option<Value>> = vec![None; names.len()];
    for (i, v) in a.pos.drain(..).enumerate() {
        out[i] = Some(v);
    }
    for (k, v) in a.kw.drain(..) {
        match names.iter().position(|n| **n == *k) {
            Some(i) if out[i].is_some() => {
                return Err(vm.type_err(format!(
                    "argument for {f}() given by name ('{k}') and position ({})",
                    i + 1
                )))
            }
            Some(i) => out[i] = Some(v),
            None => {
                return Err(vm.type_err(format!("'{k}' is an invalid keyword argument for {f}()")))
            }
        }
    }
    if let Some(i) = out[..required].iter().position(Option::is_none) {
        return Err(vm.type_err(format!(
            "{f}() missing required argument '{}' (pos {})",
            names[i],
            i + 1
        )));
    }
    Ok(out)
}

/// The class `__new__` was called on (its first argument).
fn new_cls(vm: &mut Vm, a: &mut Args, name: &str) -> R<Rc<Class>> {
    match (!a.pos.is_empty()).then(|| a.pos.remove(0)) {
        Some(Value::Class(c)) => Ok(c),
        _ => Err(vm.type_err(format!("{name}.__new__(X): X is not a type object"))),
    }
}

fn make(cls: &Rc<Class>, it: It) -> R<Value> {
    Ok(new_obj(cls, it))
}

fn is_number(vm: &Vm, v: &Value) -> bool {
    match v {
        Value::Int(_) | Value::Bool(_) | Value::BigInt(_) | Value::Float(_) => true,
        Value::Instance(_) => ["__index__", "__int__", "__float__", "__complex__"]
            .iter()
            .any(|d| vm.lookup_dunder(v, d).is_some()),
        _ => false,
    }
}

fn new_count(vm: &mut Vm, mut a: Args) -> R<Value> {
    let cls = new_cls(vm, &mut a, "count")?;
    let v = clinic(vm, a, "count", &["start", "step"], 0, 2)?;
    let n = v[0].clone().unwrap_or(Value::Int(0));
    let step = v[1].clone().unwrap_or(Value::Int(1));
    if !is_number(vm, &n) || !is_number(vm, &step) {
        return Err(vm.type_err("a number is required"));
    }
    make(&cls, It::Count { n, step })
}

fn new_cycle(vm: &mut Vm, mut a: Args) -> R<Value> {
    let cls = new_cls(vm, &mut a, "cycle")?;
    let v = positional(vm, a, "cycle", 1, 1)?;
    let it = vm.iter(&v[0])?;
    let saved = Rc::new(PyList::new(Vec::new()));
    make(
        &cls,
        It::Cycle {
            it: Some(it),
            saved,
            i: 0,
        },
    )
}

fn new_repeat(vm: &mut Vm, mut a: Args) -> R<Value> {
    let cls = new_cls(vm, &mut a, "repeat")?;
    let v = clinic(vm, a, "repeat", &["object", "times"], 1, 2)?;
    let obj = v[0].clone().unwrap_or_default();
    let left = match &v[1] {
        None => None,
        Some(t) => Some(ssize(vm, t)?.max(0)),
    };
    make(&cls, It::Repeat { obj, left })
}

fn new_accumulate(vm: &mut Vm, mut a: Args) -> R<Value> {
    let cls = new_cls(vm, &mut a, "accumulate")?;
    let v = clinic(vm, a, "accumulate", &["iterable", "func", "initial"], 1, 2)?;
    let it = vm.iter(v[0].as_ref().unwrap_or(&Value::None))?;
    let func = v[1].clone().unwrap_or_default();
    let initial = v[2].clone().filter(|x| !x.is_none());
    make(
        &cls,
        It::Accumulate {
            it,
            func,
            total: None,
            initial,
        },
    )
}

fn new_chain(vm: &mut Vm, mut a: Args) -> R<Value> {
    let cls = new_cls(vm, &mut a, "chain")?;
    if !a.kw.is_empty() {
        return Err(vm.type_err("chain() takes no keyword arguments"));
    }
    let sources = vm.iter(&Value::tuple(a.pos))?;
    make(
        &cls,
        It::Chain {
            sources: Some(sources),
            active: None,
        },
    )
}

/// `chain.from_iterable(iterable)` (a classmethod: the first argument is the class).
fn chain_from_iterable(vm: &mut Vm, mut a: Args) -> R<Value> {
    let cls = new_cls(vm, &mut a, "chain")?;
    let v = positional(vm, a, "from_iterable", 1, 1)?;
    let sources = vm.iter(&v[0])?;
    make(
        &cls,
        It::Chain {
            sources: Some(sources),
            active: None,
        },
    )
}

fn new_compress(vm: &mut Vm, mut a: Args) -> R<Value> {
    let cls = new_cls(vm, &mut a, "compress")?;
    let v = clinic(vm, a, "compress", &["data", "selectors"], 2, 2)?;
    let data = vm.iter(v[0].as_ref().unwrap_or(&Value::None))?;
    let selectors = vm.iter(v[1].as_ref().unwrap_or(&Value::None))?;
    make(&cls, It::Compress { data, selectors })
}

/// `(predicate, iterable)` of dropwhile, takewhile, filterfalse and starmap.
fn pred_and_iter(vm: &mut Vm, a: &mut Args, f: &str) -> R<(Rc<Class>, Value, Value)> {
    let cls = new_cls(vm, a, f)?;
    let v = positional(vm, std::mem::replace(a, Args::new(Vec::new())), f, 2, 2)?;
    let it = vm.iter(&v[1])?;
    Ok((cls, v[0].clone(), it))
}

fn new_dropwhile(vm: &mut Vm, mut a: Args) -> R<Value> {
    let (cls, pred, it) = pred_and_iter(vm, &mut a, "dropwhile")?;
    make(
        &cls,
        It::DropWhile {
            pred,
            it,
            dropping: true,
        },
    )
}

fn new_takewhile(vm: &mut Vm, mut a: Args) -> R<Value> {
    let (cls, pred, it) = pred_and_iter(vm, &mut a, "takewhile")?;
    make(
        &cls,
        It::TakeWhile {
            pred,
            it,
            done: false,
        },
    )
}

fn new_filterfalse(vm: &mut Vm, mut a: Args) -> R<Value> {
    let (cls, pred, it) = pred_and_iter(vm, &mut a, "filterfalse")?;
    make(&cls, It::FilterFalse { pred, it })
}

fn new_starmap(vm: &mut Vm, mut a: Args) -> R<Value> {
    let (cls, func, it) = pred_and_iter(vm, &mut a, "starmap")?;
    make(&cls, It::StarMap { func, it })
}

fn new_islice(vm: &mut Vm, mut a: Args) -> R<Value> {
    let cls = new_cls(vm, &mut a, "islice")?;
    let v = positional(vm, a, "islice", 2, 4)?;
    let bound = |vm: &mut Vm, x: &Value, msg: &str| -> R<Option<u64>> {
        match x {
            Value::None => Ok(None),
            Value::Int(i) if *i >= 0 => Ok(Some(*i as u64)),
            Value::Bool(b) => Ok(Some(*b as u64)),
            _ => Err(vm.value_err(msg)),
        }
    };
    let (start, stop) = if v.len() == 2 {
        let msg = "Stop argument for islice() must be None or an integer: 0 <= x <= sys.maxsize.";
        (None, bound(vm, &v[1], msg)?)
    } else {
        let msg = "Indices for islice() must be None or an integer: 0 <= x <= sys.maxsize.";
        (bound(vm, &v[1], msg)?, bound(vm, &v[2], msg)?)
    };
    let step = match v.get(3) {
        None | Some(Value::None) => 1,
        Some(Value::Int(s)) if *s >= 1 => *s as u64,
        Some(Value::Bool(true)) => 1,
        Some(_) => {
            return Err(vm.value_err("Step for islice() must be a positive integer or None."))
        }
    };
    let it = vm.iter(&v[0])?;
    make(
        &cls,
        It::Islice {
            it: Some(it),
            next: start.unwrap_or(0),
            stop,
            step,
            count: 0,
        },
    )
}

fn new_pairwise(vm: &mut Vm, mut a: Args) -> R<Value> {
    let cls = new_cls(vm, &mut a, "pairwise")?;
    let v = positional(vm, a, "pairwise", 1, 1)?;
    let it = vm.iter(&v[0])?;
    make(
        &cls,
        It::Pairwise {
            it: Some(it),
            old: None,
        },
    )
}

fn new_zip_longest(vm: &mut Vm, mut a: Args) -> R<Value> {
    let cls = new_cls(vm, &mut a, "zip_longest")?;
    let fill = a.take_kw("fillvalue").unwrap_or_default();
    if !a.kw.is_empty() {
        return Err(vm.type_err("zip_longest() got an unexpected keyword argument"));
    }
    vm.charge(cost::per_elem(a.pos.len()))?;
    let mut its = Vec::with_capacity(a.pos.len());
    for x in &a.pos {
        its.push(Some(vm.iter(x)?));
    }
    let active = its.len();
    make(&cls, It::ZipLongest { its, active, fill })
}

fn new_groupby(vm: &mut Vm, mut a: Args) -> R<Value> {
    let cls = new_cls(vm, &mut a, "groupby")?;
    let v = clinic(vm, a, "groupby", &["iterable", "key"], 1, 2)?;
    let it = vm.iter(v[0].as_ref().unwrap_or(&Value::None))?;
    let group = Group {
        it,
        key: v[1].clone().unwrap_or_default(),
        target: None,
        current_key: None,
        current_value: None,
        serial: 0,
    };
    make(&cls, It::GroupBy(Rc::new(RefCell::new(group))))
}

/// Read every input of a combinatoric tool into a tuple (paid per element by `collect`).
fn pool(vm: &mut Vm, v: &Value) -> R<Rc<PyTuple>> {
    if let Value::Tuple(t) = v {
        return Ok(t.clone());
    }
    let items = vm.collect(v)?;
    Ok(Rc::new(PyTuple::new(items)))
}

fn combo(kind: ComboKind, pools: Vec<Rc<PyTuple>>, r: usize) -> It {
    let n = pools.first().map_or(0, |p| p.items.len());
    let (indices, cycles) = match kind {
        ComboKind::Product => (vec![0; pools.len()], Vec::new()),
        ComboKind::Permutations => ((0..n).collect(), (n + 1 - r.min(n)..=n).rev().collect()),
        ComboKind::Combinations => ((0..r).collect(), Vec::new()),
        ComboKind::WithReplacement => (vec![0; r], Vec::new()),
    };
    let empty = match kind {
        ComboKind::Product => pools.iter().any(|p| p.items.is_empty()),
        ComboKind::Permutations | ComboKind::Combinations => r > n,
        ComboKind::WithReplacement => n == 0 && r > 0,
    };
    let words = indices.len() + cycles.len() + pools.len();
    It::Combinatoric(Combo {
        kind,
        _acct: Acct::new(HEADER + words * SLOT),
        pools,
        indices,
        cycles,
        r,
        first: true,
        done: empty,
    })
}

fn new_product(vm: &mut Vm, mut a: Args) -> R<Value> {
    let cls = new_cls(vm, &mut a, "product")?;
    let repeat = match a.take_kw("repeat") {
        Some(r) => ssize(vm, &r)?,
        None => 1,
    };
    if let Some((k, _)) = a.kw.first() {
        return Err(vm.type_err(format!(
            "'{k}' is an invalid keyword argument for product()"
        )));
    }
    if repeat < 0 {
        return Err(vm.value_err("repeat argument cannot be negative"));
    }
    let npools = (a.pos.len() as u64).saturating_mul(repeat as u64);
    // The pools list and the index vector, paid and reserved before they are made.
    vm.charge(npools)?;
    vm.reserve(npools.saturating_mul(2 * SLOT as u64))?;
    let mut distinct = Vec::with_capacity(a.pos.len());
    for x in &a.pos {
        distinct.push(pool(vm, x)?);
    }
    let mut pools = Vec::with_capacity(npools as usize);
    // No inputs, no loop: `product(repeat=10**18)` must not spin over nothing uncharged.
    if !distinct.is_empty() {
        for _ in 0..repeat {
            pools.extend(distinct.iter().cloned());
        }
    }
    make(&cls, combo(ComboKind::Product, pools, 0))
}

fn new_permutations(vm: &mut Vm, mut a: Args) -> R<Value> {
    let cls = new_cls(vm, &mut a, "permutations")?;
    let v = clinic(vm, a, "permutations", &["iterable", "r"], 1, 2)?;
    let p = pool(vm, v[0].as_ref().unwrap_or(&Value::None))?;
    let n = p.items.len();
    let r = match &v[1] {
        None | Some(Value::None) => n,
        Some(Value::Int(r)) => {
            if *r < 0 {
                return Err(vm.value_err("r must be non-negative"));
            }
            *r as usize
        }
        Some(Value::Bool(b)) => *b as usize,
        Some(_) => return Err(vm.type_err("Expected int as r")),
    };
    vm.charge(cost::per_elem(n))?;
    make(&cls, combo(ComboKind::Permutations, vec![p], r))
}

fn new_combinations(vm: &mut Vm, mut a: Args) -> R<Value> {
    new_choose(vm, &mut a, "combinations", ComboKind::Combinations)
}

fn new_with_replacement(vm: &mut Vm, mut a: Args) -> R<Value> {
    new_choose(
        vm,
        &mut a,
        "combinations_with_replacement",
        ComboKind::WithReplacement,
    )
}

fn new_choose(vm: &mut Vm, a: &mut Args, f: &str, kind: ComboKind) -> R<Value> {
    let cls = new_cls(vm, a, f)?;
    let v = clinic(
        vm,
        std::mem::replace(a, Args::new(Vec::new())),
        f,
        &["iterable", "r"],
        2,
        2,
    )?;
    let p = pool(vm, v[0].as_ref().unwrap_or(&Value::None))?;
    let r = ssize(vm, v[1].as_ref().unwrap_or(&Value::None))?;
    if r < 0 {
        return Err(vm.value_err("r must be non-negative"));
    }
    // The index vector has `r` entries whatever the pool (`combinations_with_replacement`
    // of one element can ask for any `r`): paid and reserved before it is made.
    vm.charge(cost::per_elem(r as usize))?;
    vm.reserve((r as u64).saturating_mul(SLOT as u64))?;
    make(&cls, combo(kind, vec![p], r as usize))
}

/// `tee(iterable, n=2)`: `n` independent iterators over one input. A copyable input (one
/// with `__copy__`, such as a tee iterator) is itself the first of them, as in CPython.
fn f_tee(vm: &mut Vm, a: Args) -> R<Value> {
    if !a.kw.is_empty() {
        return Err(vm.type_err("itertools.tee() takes no keyword arguments"));
    }
    let v = positional(vm, a, "tee", 1, 2)?;
    let n = match v.get(1) {
        Some(x) => ssize(vm, x)?,
        None => 2,
    };
    if n < 0 {
        return Err(vm.value_err("n must be >= 0"));
    }
    if n == 0 {
        return Ok(Value::tuple(Vec::new()));
    }
    vm.charge(cost::per_elem(n as usize))?;
    vm.reserve((n as u64).saturating_mul(SLOT as u64))?;
    let it = vm.iter(&v[0])?;
    let first = if vm.lookup_dunder(&it, "__copy__").is_some() {
        it
    } else {
        let cls = tee_class(vm)?;
        new_obj(
            &cls,
            It::Tee {
                source: Rc::new(TeeSource {
                    it,
                    running: Cell::new(false),
                }),
                link: TeeLink::new(),
            },
        )
    };
    let mut out = vec![first.clone()];
    for _ in 1..n {
        let c = vm.call_method(&first, "__copy__", Args::new(Vec::new()))?;
        out.push(c);
    }
    Ok(Value::tuple(out))
}

fn tee_class(vm: &mut Vm) -> R<Rc<Class>> {
    match vm.native_classes.get("itertools._tee") {
        Some(c) => Ok(c.clone()),
        None => Err(vm.type_err("itertools is not loaded")),
    }
}

fn tee_copy(vm: &mut Vm, mut a: Args) -> R<Value> {
    let me = super::receiver(vm, &mut a, "_tee", "__copy__")?;
    let copy = match state::<It>(&me).as_deref() {
        Some(It::Tee { source, link }) => It::Tee {
            source: source.clone(),
            link: link.clone(),
        },
        _ => return Err(super::wrong_self(vm, &me, "itertools._tee", "__copy__")),
    };
    let cls = tee_class(vm)?;
    Ok(new_obj(&cls, copy))
}

fn no_new(vm: &mut Vm, mut a: Args) -> R<Value> {
    let cls = new_cls(vm, &mut a, "object")?;
    Err(vm.type_err(format!("cannot create 'itertools.{}' instances", cls.name)))
}

fn it_iter(vm: &mut Vm, mut a: Args) -> R<Value> {
    super::receiver(vm, &mut a, "itertools", "__iter__")
}

fn it_next(vm: &mut Vm, mut a: Args) -> R<Value> {
    let me = super::receiver(vm, &mut a, "itertools", "__next__")?;
    next_of(vm, &me)
}

/// `__next__` of `me`, taking it directly (how iteration reaches it: `super::iter_class`).
fn next_of(vm: &mut Vm, me: &Value) -> R<Value> {
    match step(vm, me)? {
        Some(v) => Ok(v),
        None => Err(stop(vm)),
    }
}

/// Next value of an input iterator, paying one `ITER` for the read.
fn read(vm: &mut Vm, it: &Value) -> R<Option<Value>> {
    vm.charge(cost::ITER)?;
    vm.next(it)
}

/// Update `me`'s state in place (it is an `It`: checked by [`step`] before).
fn update(me: &Value, f: impl FnOnce(&mut It)) {
    if let Some(mut s) = state_mut::<It>(me) {
        f(&mut s)
    }
}

/// One step of any itertools object: `None` when it is exhausted.
fn step(vm: &mut Vm, me: &Value) -> R<Option<Value>> {
    // What the step needs, cloned out so that no borrow is held across a callback.
    enum Plan {
        Count(Value, Value),
        Cycle(Option<Value>, Rc<PyList>, usize),
        Repeat(Value, Option<i64>),
        Accumulate(Value, Value, Option<Value>, Option<Value>),
        Chain(Option<Value>, Option<Value>),
        Compress(Value, Value),
        DropWhile(Value, Value, bool),
        TakeWhile(Value, Value, bool),
        FilterFalse(Value, Value),
        StarMap(Value, Value),
        Islice(Option<Value>, u64, Option<u64>, u64, u64),
        Pairwise(Option<Value>, Option<Value>),
        ZipLongest(Vec<Option<Value>>, usize, Value),
        Combinatoric,
        GroupBy(Rc<RefCell<Group>>),
        Grouper(Rc<RefCell<Group>>, u64, Value),
        Tee(Rc<TeeSource>, Rc<TeeLink>),
    }
    let plan = {
        let Some(s) = state::<It>(me) else {
            return Err(super::wrong_self(vm, me, "itertools", "__next__"));
        };
        match &*s {
            It::Count { n, step } => Plan::Count(n.clone(), step.clone()),
            It::Cycle { it, saved, i } => Plan::Cycle(it.clone(), saved.clone(), *i),
            It::Repeat { obj, left } => Plan::Repeat(obj.clone(), *left),
            It::Accumulate {
                it,
                func,
                total,
                initial,
            } => Plan::Accumulate(it.clone(), func.clone(), total.clone(), initial.clone()),
            It::Chain { sources, active } => Plan::Chain(sources.clone(), active.clone()),
            It::Compress { data, selectors } => Plan::Compress(data.clone(), selectors.clone()),
            It::DropWhile { pred, it, dropping } => {
                Plan::DropWhile(pred.clone(), it.clone(), *dropping)
            }
            It::TakeWhile { pred, it, done } => Plan::TakeWhile(pred.clone(), it.clone(), *done),
            It::FilterFalse { pred, it } => Plan::FilterFalse(pred.clone(), it.clone()),
            It::StarMap { func, it } => Plan::StarMap(func.clone(), it.clone()),
            It::Islice {
                it,
                next,
                stop,
                step,
                count,
            } => Plan::Islice(it.clone(), *next, *stop, *step, *count),
            It::Pairwise { it, old } => Plan::Pairwise(it.clone(), old.clone()),
            It::ZipLongest { its, active, fill } => {
                Plan::ZipLongest(its.clone(), *active, fill.clone())
            }
            It::Combinatoric(_) => Plan::Combinatoric,
            It::GroupBy(g) => Plan::GroupBy(g.clone()),
            It::Grouper { group, serial, key } => {
                Plan::Grouper(group.clone(), *serial, key.clone())
            }
            It::Tee { source, link } => Plan::Tee(source.clone(), link.clone()),
        }
    };
    match plan {
        Plan::Count(n, step) => {
            vm.charge(cost::ARITH)?;
            let next = vm.binary_op(&n, &step, BinOp::Add, false)?;
            update(me, |s| {
                if let It::Count { n, .. } = s {
                    *n = next;
                }
            });
            Ok(Some(n))
        }
        Plan::Cycle(it, saved, i) => {
            if let Some(it) = it {
                if let Some(x) = read(vm, &it)? {
                    vm.charge(cost::LIST_OP)?;
                    saved.items.borrow_mut().push(x.clone());
                    saved.touch();
                    return Ok(Some(x));
                }
                update(me, |s| {
                    if let It::Cycle { it, .. } = s {
                        *it = None;
                    }
                });
            }
            let x = {
                let items = saved.items.borrow();
                if items.is_empty() {
                    return Ok(None);
                }
                items[i % items.len()].clone()
            };
            let n = saved.items.borrow().len();
            update(me, |s| {
                if let It::Cycle { i: at, .. } = s {
                    *at = (i + 1) % n;
                }
            });
            Ok(Some(x))
        }
        Plan::Repeat(obj, left) => match left {
            None => Ok(Some(obj)),
            Some(0) => Ok(None),
            Some(k) => {
                update(me, |s| {
                    if let It::Repeat { left, .. } = s {
                        *left = Some(k - 1);
                    }
                });
                Ok(Some(obj))
            }
        },
        Plan::Accumulate(it, func, total, initial) => {
            if let Some(init) = initial {
                update(me, |s| {
                    if let It::Accumulate { total, initial, .. } = s {
                        *total = Some(init.clone());
                        *initial = None;
                    }
                });
                return Ok(Some(init));
            }
            let Some(x) = read(vm, &it)? else {
                return Ok(None);
            };
            let next = match total {
                None => x,
                Some(t) if func.is_none() => vm.binary_op(&t, &x, BinOp::Add, false)?,
                Some(t) => vm.call(&func, Args::new(vec![t, x]))?,
            };
            update(me, |s| {
                if let It::Accumulate { total, .. } = s {
                    *total = Some(next.clone());
                }
            });
            Ok(Some(next))
        }
        Plan::Chain(mut sources, mut active) => loop {
            if let Some(a) = &active {
                if let Some(x) = read(vm, a)? {
                    return Ok(Some(x));
                }
                active = None;
                update(me, |s| {
                    if let It::Chain { active, .. } = s {
                        *active = None;
                    }
                });
            }
            let Some(src) = &sources else {
                return Ok(None);
            };
            match read(vm, src)? {
                Some(iterable) => {
                    let it = vm.iter(&iterable)?;
                    active = Some(it.clone());
                    update(me, |s| {
                        if let It::Chain { active, .. } = s {
                            *active = Some(it);
                        }
                    });
                }
                None => {
                    sources = None;
                    update(me, |s| {
                        if let It::Chain { sources, .. } = s {
                            *sources = None;
                        }
                    });
                }
            }
        },
        Plan::Compress(data, selectors) => loop {
            let Some(d) = read(vm, &data)? else {
                return Ok(None);
            };
            let Some(sel) = read(vm, &selectors)? else {
                return Ok(None);
            };
            if vm.truthy(&sel)? {
                return Ok(Some(d));
            }
        },
        Plan::DropWhile(pred, it, dropping) => loop {
            let Some(x) = read(vm, &it)? else {
                return Ok(None);
            };
            if !dropping {
                return Ok(Some(x));
            }
            let r = vm.call(&pred, Args::new(vec![x.clone()]))?;
            if !vm.truthy(&r)? {
                update(me, |s| {
                    if let It::DropWhile { dropping, .. } = s {
                        *dropping = false;
                    }
                });
                return Ok(Some(x));
            }
        },
        Plan::TakeWhile(pred, it, done) => {
            if done {
                return Ok(None);
            }
            let Some(x) = read(vm, &it)? else {
                return Ok(None);
            };
            let r = vm.call(&pred, Args::new(vec![x.clone()]))?;
            if vm.truthy(&r)? {
                return Ok(Some(x));
            }
            update(me, |s| {
                if let It::TakeWhile { done, .. } = s {
                    *done = true;
                }
            });
            Ok(None)
        }
        Plan::FilterFalse(pred, it) => loop {
            let Some(x) = read(vm, &it)? else {
                return Ok(None);
            };
            let keep = if pred.is_none() {
                !vm.truthy(&x)?
            } else {
                let r = vm.call(&pred, Args::new(vec![x.clone()]))?;
                !vm.truthy(&r)?
            };
            if keep {
                return Ok(Some(x));
            }
        },
        Plan::StarMap(func, it) => {
            let Some(args) = read(vm, &it)? else {
                return Ok(None);
            };
            let args = vm.collect(&args)?;
            vm.call(&func, Args::new(args)).map(Some)
        }
        Plan::Islice(it, mut next, stop, step, mut count) => {
            let Some(it) = it else {
                return Ok(None);
            };
            let finish = |me: &Value| {
                update(me, |s| {
                    if let It::Islice { it, .. } = s {
                        *it = None;
                    }
                })
            };
            // Skip (consuming) up to the next wanted position, exactly as CPython does.
            while count < next {
                if read(vm, &it)?.is_none() {
                    finish(me);
                    return Ok(None);
                }
                count += 1;
                update(me, |s| {
                    if let It::Islice { count: c, .. } = s {
                        *c = count;
                    }
                });
            }
            if stop.is_some_and(|stop| count >= stop) {
                finish(me);
                return Ok(None);
            }
            let Some(x) = read(vm, &it)? else {
                finish(me);
                return Ok(None);
            };
            count += 1;
            next = next.saturating_add(step);
            if let Some(stop) = stop {
                next = next.min(stop);
            }
            update(me, |s| {
                if let It::Islice {
                    count: c, next: n, ..
                } = s
                {
                    *c = count;
                    *n = next;
                }
            });
            Ok(Some(x))
        }
        Plan::Pairwise(it, old) => {
            let Some(it) = it else {
                return Ok(None);
            };
            // An input that raises is dropped, as CPython's pairwise drops it: every later
            // call is the end.
            let read = |vm: &mut Vm, it: &Value| {
                let r = read(vm, it);
                if r.is_err() {
                    update(me, |s| {
                        if let It::Pairwise { it, old } = s {
                            *it = None;
                            *old = None;
                        }
                    });
                }
                r
            };
            let old = match old {
                Some(o) => o,
                None => match read(vm, &it)? {
                    // Kept at once: if the next read raises, the next call starts from it.
                    Some(o) => {
                        update(me, |s| {
                            if let It::Pairwise { old, .. } = s {
                                *old = Some(o.clone());
                            }
                        });
                        o
                    }
                    None => {
                        update(me, |s| {
                            if let It::Pairwise { it, .. } = s {
                                *it = None;
                            }
                        });
                        return Ok(None);
                    }
                },
            };
            let Some(new) = read(vm, &it)? else {
                update(me, |s| {
                    if let It::Pairwise { it, old } = s {
                        *it = None;
                        *old = None;
                    }
                });
                return Ok(None);
            };
            update(me, |s| {
                if let It::Pairwise { old: o, .. } = s {
                    *o = Some(new.clone());
                }
            });
            vm.charge(cost::per_elem(2))?;
            Ok(Some(Value::tuple(vec![old, new])))
        }
        Plan::ZipLongest(its, mut active, fill) => {
            if active == 0 {
                return Ok(None);
            }
            vm.charge(cost::per_elem(its.len()))?;
            let mut out = Vec::with_capacity(its.len());
            for (k, it) in its.iter().enumerate() {
                let Some(it) = it else {
                    out.push(fill.clone());
                    continue;
                };
                match read(vm, it)? {
                    Some(x) => out.push(x),
                    None => {
                        active -= 1;
                        update(me, |s| {
                            if let It::ZipLongest { its, active: a, .. } = s {
                                its[k] = None;
                                *a = active;
                            }
                        });
                        if active == 0 {
                            return Ok(None);
                        }
                        out.push(fill.clone());
                    }
                }
            }
            Ok(Some(Value::tuple(out)))
        }
        Plan::Combinatoric => combinatoric_step(vm, me),
        Plan::GroupBy(g) => groupby_step(vm, &g),
        Plan::Grouper(g, serial, key) => {
            if g.borrow().serial != serial {
                return Ok(None);
            }
            let pending = g.borrow().current_value.is_some();
            if !pending && !group_read(vm, &g)? {
                return Ok(None);
            }
            let current = g.borrow().current_key.clone().unwrap_or_default();
            if !vm.eq(&key, &current)? {
                return Ok(None);
            }
            // The key goes with the value given out, as in CPython: the next read decides.
            let mut gb = g.borrow_mut();
            gb.current_key = None;
            Ok(gb.current_value.take())
        }
        Plan::Tee(source, link) => {
            let filled = link.next.borrow().is_some();
            if !filled {
                if source.running.get() {
                    return Err(vm.new_exc("RuntimeError", "cannot re-enter the tee iterator"));
                }
                source.running.set(true);
                let x = read(vm, &source.it);
                source.running.set(false);
                let Some(x) = x? else {
                    return Ok(None);
                };
                vm.charge(cost::LIST_OP)?;
                *link.value.borrow_mut() = Some(x);
                *link.next.borrow_mut() = Some(TeeLink::new());
            }
            let next = link.next.borrow().clone();
            let value = link.value.borrow().clone();
            update(me, |s| {
                if let (It::Tee { link, .. }, Some(n)) = (s, next) {
                    *link = n;
                }
            });
            Ok(value)
        }
    }
}

/// Read the groupby's next element and its key; `false` at the end of the input.
fn group_read(vm: &mut Vm, g: &Rc<RefCell<Group>>) -> R<bool> {
    let (it, keyf) = {
        let g = g.borrow();
        (g.it.clone(), g.key.clone())
    };
    let Some(x) = read(vm, &it)? else {
        return Ok(false);
    };
    let key = if keyf.is_none() {
        x.clone()
    } else {
        vm.call(&keyf, Args::new(vec![x.clone()]))?
    };
    let mut g = g.borrow_mut();
    g.current_value = Some(x);
    g.current_key = Some(key);
    Ok(true)
}

/// `groupby.__next__`: skip the rest of the current run, then give `(key, group)`.
fn groupby_step(vm: &mut Vm, g: &Rc<RefCell<Group>>) -> R<Option<Value>> {
    let serial = {
        let mut gb = g.borrow_mut();
        gb.serial += 1;
        gb.serial
    };
    loop {
        let (current, target) = {
            let gb = g.borrow();
            (gb.current_key.clone(), gb.target.clone())
        };
        match (current, target) {
            (None, _) => {}
            (Some(_), None) => break,
            (Some(c), Some(t)) => {
                if !vm.eq(&t, &c)? {
                    break;
                }
            }
        }
        if !group_read(vm, g)? {
            return Ok(None);
        }
    }
    let key = {
        let mut gb = g.borrow_mut();
        gb.target = gb.current_key.clone();
        gb.target.clone().unwrap_or_default()
    };
    let cls = match vm.native_classes.get("itertools._grouper") {
        Some(c) => c.clone(),
        None => return Err(vm.type_err("itertools is not loaded")),
    };
    let grouper = new_obj(
        &cls,
        It::Grouper {
            group: g.clone(),
            serial,
            key: key.clone(),
        },
    );
    vm.charge(cost::per_elem(2))?;
    Ok(Some(Value::tuple(vec![key, grouper])))
}

/// The next tuple of a combinatoric tool (CPython's algorithms, in the same order). The index
/// work of the step is counted as it is done and paid, with the tuple, before the tuple is
/// made; an abort there ends the invocation, so the advanced indices are never seen.
fn combinatoric_step(vm: &mut Vm, me: &Value) -> R<Option<Value>> {
    let mut st = match state_mut::<It>(me) {
        Some(s) => s,
        None => return Ok(None),
    };
    let It::Combinatoric(c) = &mut *st else {
        return Ok(None);
    };
    if c.done {
        return Ok(None);
    }
    let work = if c.first {
        c.first = false;
        0
    } else {
        match advance(c) {
            Some(w) => w,
            None => {
                c.done = true;
                return Ok(None);
            }
        }
    };
    let width = match c.kind {
        ComboKind::Product => c.pools.len(),
        _ => c.r,
    };
    let items: Vec<Value> = match c.kind {
        ComboKind::Product => c
            .pools
            .iter()
            .zip(&c.indices)
            .map(|(p, &i)| p.items[i].clone())
            .collect(),
        _ => c.indices[..c.r]
            .iter()
            .map(|&i| c.pools[0].items[i].clone())
            .collect(),
    };
    drop(st);
    vm.charge(cost::per_elem(work + width))?;
    Ok(Some(Value::tuple(items)))
}

/// Advance the indices to the next tuple; the index positions touched, or `None` at the end.
fn advance(c: &mut Combo) -> Option<usize> {
    let n = c.pools.first().map_or(0, |p| p.items.len());
    let r = c.r;
    match c.kind {
        ComboKind::Product => {
            let mut work = 0;
            for k in (0..c.pools.len()).rev() {
                work += 1;
                c.indices[k] += 1;
                if c.indices[k] < c.pools[k].items.len() {
                    return Some(work);
                }
                c.indices[k] = 0;
            }
            None
        }
        ComboKind::Permutations => {
            let mut work = 0;
            for i in (0..r).rev() {
                work += 1;
                c.cycles[i] -= 1;
                if c.cycles[i] == 0 {
                    // Move index i to the end, shifting the rest left.
                    c.indices[i..].rotate_left(1);
                    work += n - i;
                    c.cycles[i] = n - i;
                } else {
                    let j = c.cycles[i];
                    c.indices.swap(i, n - j);
                    return Some(work);
                }
            }
            None
        }
        ComboKind::Combinations => {
            let mut i = r;
            while i > 0 && c.indices[i - 1] == i - 1 + n - r {
                i -= 1;
            }
            if i == 0 {
                return None;
            }
            let i = i - 1;
            c.indices[i] += 1;
            for j in i + 1..r {
                c.indices[j] = c.indices[j - 1] + 1;
            }
            Some(r - i + (r - i))
        }
        ComboKind::WithReplacement => {
            let mut i = r;
            while i > 0 && c.indices[i - 1] == n - 1 {
                i -= 1;
            }
            if i == 0 {
                return None;
            }
            let i = i - 1;
            let v = c.indices[i] + 1;
            for x in &mut c.indices[i..] {
                *x = v;
            }
            Some(r - i + (r - i))
        }
    }
}

fn count_repr(vm: &mut Vm, mut a: Args) -> R<Value> {
    let me = super::receiver(vm, &mut a, "count", "__repr__")?;
    let (n, step) = match state::<It>(&me).as_deref() {
        Some(It::Count { n, step }) => (n.clone(), step.clone()),
        _ => return Err(super::wrong_self(vm, &me, "itertools.count", "__repr__")),
    };
    let name = vm.type_name(&me);
    let n = vm.repr(&n)?;
    let text = if matches!(step, Value::Int(1)) {
        format!("{name}({n})")
    } else {
        let s = vm.repr(&step)?;
        format!("{name}({n}, {s})")
    };
    Ok(Value::str(&text))
}

fn repeat_repr(vm: &mut Vm, mut a: Args) -> R<Value> {
    let me = super::receiver(vm, &mut a, "repeat", "__repr__")?;
    let (obj, left) = match state::<It>(&me).as_deref() {
        Some(It::Repeat { obj, left }) => (obj.clone(), *left),
        _ => return Err(super::wrong_self(vm, &me, "itertools.repeat", "__repr__")),
    };
    let name = vm.type_name(&me);
    let o = vm.repr(&obj)?;
    let text = match left {
        None => format!("{name}({o})"),
        Some(k) => format!("{name}({o}, {k})"),
    };
    Ok(Value::str(&text))
}

fn repeat_length_hint(vm: &mut Vm, mut a: Args) -> R<Value> {
    let me = super::receiver(vm, &mut a, "repeat", "__length_hint__")?;
    let left = match state::<It>(&me).as_deref() {
        Some(It::Repeat { left, .. }) => *left,
        _ => {
            return Err(super::wrong_self(
                vm,
                &me,
                "itertools.repeat",
                "__length_hint__",
            ))
        }
    };
    match left {
        Some(k) => Ok(Value::Int(k)),
        None => Err(vm.type_err("len() of unsized object")),
    }
}

/// A tool's name, its `__new__` and its methods beyond `__iter__`/`__next__`.
type Tool = (&'static str, Body, &'static [(&'static str, Body)]);

/// Load `itertools`.
pub fn load(vm: &mut Vm, name: &str) -> R<Value> {
    let iter_methods: &[(&str, Body)] = &[("__iter__", it_iter), ("__next__", it_next)];
    let tools: &[Tool] = &[
        ("accumulate", new_accumulate, &[]),
        ("chain", new_chain, &[]),
        ("combinations", new_combinations, &[]),
        ("combinations_with_replacement", new_with_replacement, &[]),
        ("compress", new_compress, &[]),
        ("count", new_count, &[("__repr__", count_repr)]),
        ("cycle", new_cycle, &[]),
        ("dropwhile", new_dropwhile, &[]),
        ("filterfalse", new_filterfalse, &[]),
        ("groupby", new_groupby, &[]),
        ("islice", new_islice, &[]),
        ("pairwise", new_pairwise, &[]),
        ("permutations", new_permutations, &[]),
        ("product", new_product, &[]),
        (
            "repeat",
            new_repeat,
            &[
                ("__repr__", repeat_repr),
                ("__length_hint__", repeat_length_hint),
            ],
        ),
        ("starmap", new_starmap, &[]),
        ("takewhile", new_takewhile, &[]),
        ("zip_longest", new_zip_longest, &[]),
    ];
    let d = rc_dict(PyDict::new());
    vm.dict_set_str(&d, "__name__", Value::str(name))?;
    for (tool, new, extra) in tools {
        let methods: Vec<(&str, Body)> = iter_methods.iter().chain(extra.iter()).copied().collect();
        let c = iter_class(vm, "itertools", tool, &methods, Some(*new), next_of)?;
        if *tool == "chain" {
            c.dict_mut().insert(
                "from_iterable".into(),
                Value::ClassMethod(Rc::new(Wrapped(builtin(
                    "from_iterable",
                    chain_from_iterable,
                )))),
            );
        }
        vm.dict_set_str(&d, tool, Value::Class(c))?;
    }
    let mut tee_methods = iter_methods.to_vec();
    tee_methods.push(("__copy__", tee_copy));
    let tee = iter_class(vm, "itertools", "_tee", &tee_methods, Some(no_new), next_of)?;
    let grouper = iter_class(
        vm,
        "itertools",
        "_grouper",
        iter_methods,
        Some(no_new),
        next_of,
    )?;
    vm.native_classes.insert("itertools._tee", tee);
    vm.native_classes.insert("itertools._grouper", grouper);
    vm.dict_set_str(&d, "tee", builtin("tee", f_tee))?;
    Ok(super::module(name, d))
}
