//! Compiled-code cache: a thread's recently compiled modules, keyed by file name and the
//! keccak256 of the source, so an actor called a thousand times in a block is parsed once.
//!
//! Caching must not be observable by a program, or a validator with a warm cache and one
//! with a cold cache would disagree. Three things make it invisible: compilation is not
//! metered (the cycle costs of loading a module are charged by `import`/invocation, the same
//! either way); code is compiled with memory accounting off ([`crate::memory::unaccounted`]),
//! so its constants weigh nothing in every invocation; and those constants carry a fixed
//! identity serial. Compiled code is immutable.

use std::cell::RefCell;
use std::rc::Rc;

use indexmap::IndexMap;

use crate::bytecode::Code;
use crate::compiler::{compile_module, CompileError};
use crate::value::FxBuild;

/// Entries kept per thread; the oldest is dropped beyond this.
const CAPACITY: usize = 128;

type Key = (Box<str>, [u8; 32]);

thread_local! {
    static CACHE: RefCell<IndexMap<Key, Rc<Code>, FxBuild>> = RefCell::new(IndexMap::default());
    /// The PVM's own Python modules, by name: their sources are compiled into the binary, so
    /// the name identifies the source and there is nothing to hash (a few per thread, kept).
    static BUILTIN: RefCell<IndexMap<&'static str, Rc<Code>, FxBuild>> =
        RefCell::new(IndexMap::default());
}

/// The compiled code of the PVM's own module `name` (its `source` is in the binary).
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

/// The compiled module for `source`, from the cache or freshly compiled (errors are not
/// cached).
pub fn compile(source: &str, filename: &str) -> Result<Rc<Code>, CompileError> {
    let key: Key = (
        filename.into(),
        cowboy_types::keccak256(source.as_bytes()).0,
    );
    if let Some(code) = CACHE.with(|c| c.borrow().get(&key).cloned()) {
        return Ok(code);
    }
    let code = crate::memory::unaccounted(|| compile_module(source, filename))?;
    CACHE.with(|c| {
        let mut c = c.borrow_mut();
        if c.len() >= CAPACITY {
            c.shift_remove_index(0);
        }
        c.insert(key, code.clone());
    });
    Ok(code)
}
