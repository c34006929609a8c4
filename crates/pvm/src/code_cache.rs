//! Loading a program's code: the one place that charges for compilation, and the per-thread
//! cache of compiled modules (keyed by file name and the keccak256 of the source), so an actor
//! called a thousand times in a block is parsed once.
//!
//! **Metering (issue 15).** Every load — a deploy and every later call of the actor — charges
//! [`crate::cost::load_bytes`] for the source's size before anything else, then, once the
//! pre-scan has counted tokens, scopes and f-strings, [`crate::cost::load_scanned`] before
//! parsing. The charge is
//! the price of a full compilation in the worst case measured per byte and token (README,
//! "Compilation is metered"), and it is the same on a cache hit: what an invocation costs
//! never depends on which validator compiled what before, and the cache is purely an
//! optimisation. A cache hit remembers that price, so it charges the same without scanning
//! again.
//!
//! Caching must not be observable by a program either. Code is compiled with memory
//! accounting off ([`crate::memory::unaccounted`]), so its constants weigh nothing in every
//! invocation, and those constants carry a fixed identity serial. Compiled code is immutable.
//!
//! **Bounds.** The cache holds at most [`CAPACITY_ENTRIES`] modules and
//! [`CAPACITY_BYTES`] of estimated compiled size per thread, evicting the least recently used;
//! a module larger than the whole budget is compiled and not kept. With the compiler's own
//! memory linear in the source (at most [`crate::compiler::MAX_SOURCE_BYTES`]), nothing the
//! loader allocates outside the invocation's accounting is unbounded.

use std::cell::RefCell;
use std::rc::Rc;

use indexmap::IndexMap;

use crate::compiler::{check, check_size, compile_checked, compile_module, CompileError};
use crate::value::Code;
use crate::value::{NameBuild, Value};
use crate::vm::{Vm, R};

/// Modules kept per thread at most.
pub const CAPACITY_ENTRIES: usize = 1024;
/// Estimated compiled bytes kept per thread at most ([`code_size`]).
pub const CAPACITY_BYTES: usize = 64 << 20;

type Key = (Box<str>, [u8; 32]);

/// A cached module.
struct Entry {
    code: Rc<Code>,
    /// What a load of this source is charged after its size ([`crate::compiler::Checked::price`]).
    price: u64,
    /// [`code_size`] of `code`.
    bytes: usize,
    /// When it was last used ([`Lru::clock`]).
    used: u64,
}

/// The per-thread cache: least recently used entries go first.
struct Lru {
    entries: IndexMap<Key, Entry, NameBuild>,
    bytes: usize,
    clock: u64,
    max_entries: usize,
    max_bytes: usize,
}

impl Default for Lru {
    fn default() -> Lru {
        Lru::new(CAPACITY_ENTRIES, CAPACITY_BYTES)
    }
}

impl Lru {
    fn new(max_entries: usize, max_bytes: usize) -> Lru {
        Lru {
            entries: IndexMap::default(),
            bytes: 0,
            clock: 0,
            max_entries,
            max_bytes,
        }
    }

    fn get(&mut self, key: &Key) -> Option<(Rc<Code>, u64)> {
        self.clock += 1;
        let e = self.entries.get_mut(key)?;
        e.used = self.clock;
        Some((e.code.clone(), e.price))
    }

    fn insert(&mut self, key: Key, code: Rc<Code>, price: u64) {
        let bytes = code_size(&code);
        if bytes > self.max_bytes {
            return;
        }
        while !self.entries.is_empty()
            && (self.entries.len() >= self.max_entries || self.bytes + bytes > self.max_bytes)
        {
            // A linear scan for the oldest: evictions follow a compilation, which costs far
            // more than looking at a thousand entries.
            let oldest = self
                .entries
                .values()
                .enumerate()
                .min_by_key(|(_, e)| e.used)
                .map(|(i, _)| i);
            if let Some((_, e)) = oldest.and_then(|i| self.entries.swap_remove_index(i)) {
                self.bytes -= e.bytes;
            }
        }
        self.clock += 1;
        self.bytes += bytes;
        self.entries.insert(
            key,
            Entry {
                code,
                price,
                bytes,
                used: self.clock,
            },
        );
    }
}

thread_local! {
    static CACHE: RefCell<Lru> = RefCell::new(Lru::default());
    /// The PVM's own Python modules, by name: their sources are compiled into the binary, so
    /// the name identifies the source and there is nothing to hash (a few per thread, kept).
    static BUILTIN: RefCell<IndexMap<&'static str, Rc<Code>, NameBuild>> =
        RefCell::new(IndexMap::default());
}

/// The compiled code of the PVM's own module `name` (its `source` is in the binary; importing
/// it is charged by the import instruction).
pub fn compile_builtin(
    name: &'static str,
    source: &'static str,
    filename: &str,
) -> Result<Rc<Code>, CompileError> {
    if let Some(code) = BUILTIN.with(|c| c.borrow().get(name).cloned()) {
        return Ok(code);
    }
    let code = crate::memory::unaccounted(|| compile_module(source, filename))?;
    BUILTIN.with(|c| c.borrow_mut().insert(name, code.clone()));
    Ok(code)
}

/// Load a program: charge `vm` for compiling `source` (module docs), then compile it, or take
/// it from this thread's cache when `cached`. The outer `R` carries the abort when the cycles
/// run out (nothing was compiled then); the inner `Result` a program that does not compile.
pub fn load(
    vm: &mut Vm,
    source: &str,
    filename: &str,
    cached: bool,
    hash: Option<[u8; 32]>,
) -> R<Result<Rc<Code>, CompileError>> {
    if let Err(e) = check_size(source, filename) {
        return Ok(Err(e));
    }
    vm.charge(crate::cost::load_bytes(source.len()))?;
    // The caller may know the hash already (the chain stores code under it): hashing a
    // source is linear in its size, on every invocation.
    let key: Key = (
        filename.into(),
        hash.unwrap_or_else(|| cowboy_types::keccak256(source.as_bytes()).0),
    );
    if cached {
        if let Some((code, price)) = CACHE.with(|c| c.borrow_mut().get(&key)) {
            vm.charge(price)?;
            return Ok(Ok(code));
        }
    }
    let checked = match check(source, filename) {
        Ok(c) => c,
        Err(e) => return Ok(Err(e)),
    };
    vm.charge(checked.price())?;
    let code = match crate::memory::unaccounted(|| compile_checked(checked, filename)) {
        Ok(c) => c,
        Err(e) => return Ok(Err(e)),
    };
    if cached {
        CACHE.with(|c| c.borrow_mut().insert(key, code.clone(), checked.price()));
    }
    Ok(Ok(code))
}

/// An estimate of the heap a compiled module holds: its instructions, line table, constants,
/// names and nested code objects. It sizes the cache; it is never part of consensus.
pub fn code_size(code: &Code) -> usize {
    use std::mem::size_of;
    let mut total = 0usize;
    let mut stack = vec![code];
    while let Some(c) = stack.pop() {
        total += size_of::<Code>()
            + c.ops.capacity() * size_of::<crate::bytecode::Op>()
            + c.lines.capacity() * size_of::<u32>()
            + c.consts.capacity() * size_of::<Value>()
            + c.names.iter().map(|n| 64 + n.s.len()).sum::<usize>()
            + c.name_caches.capacity() * size_of::<crate::value::NameCache>()
            + c.codes.capacity() * size_of::<Rc<Code>>()
            + c.name.len()
            + c.qualname.len();
        for v in [&c.varnames, &c.cellvars, &c.freevars] {
            total += v.iter().map(|n| 16 + n.len()).sum::<usize>();
        }
        for k in &c.consts {
            match k {
                Value::Str(s) => total += 64 + s.s.len(),
                Value::Bytes(b) => total += 64 + b.b.len(),
                _ => {}
            }
        }
        stack.extend(c.codes.iter().map(|c| &**c));
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(i: usize) -> Key {
        (format!("a{i}.py").into(), [0; 32])
    }

    #[test]
    fn least_recently_used_goes_first() {
        let code = compile_module("x = 1\n", "a.py").expect("compiles");
        let mut lru = Lru::new(4, usize::MAX);
        for i in 0..4 {
            lru.insert(key(i), code.clone(), 1);
        }
        // Round-robin over five actors with one kept hot: the hot one stays (a FIFO would
        // evict it), the coldest goes.
        for i in 4..20 {
            assert!(lru.get(&key(0)).is_some(), "hot entry evicted at {i}");
            lru.insert(key(i), code.clone(), 1);
            assert_eq!(lru.entries.len(), 4);
        }
        let kept: Vec<bool> = (0..20).map(|i| lru.entries.contains_key(&key(i))).collect();
        let expect: Vec<bool> = (0..20).map(|i| i == 0 || i >= 17).collect();
        assert_eq!(kept, expect);
    }

    #[test]
    fn the_cache_is_bounded_in_bytes() {
        let code = compile_module(&"x = 'abc'\n".repeat(50), "a.py").expect("compiles");
        let size = code_size(&code);
        let mut lru = Lru::new(1000, size * 3);
        for i in 0..10 {
            lru.insert(key(i), code.clone(), 1);
            assert!(lru.bytes <= size * 3);
        }
        assert_eq!(lru.entries.len(), 3);
        // An entry larger than the whole budget is not kept.
        let mut small = Lru::new(1000, size - 1);
        small.insert(key(0), code, 1);
        assert!(small.entries.is_empty());
    }
}
