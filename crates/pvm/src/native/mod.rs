//! Native (Rust) standard-library modules beyond `math`: `_bisect` (under `bisect`),
//! `_dataclasses` (under `dataclasses`), `_decimal` (under `decimal`), `_heapq` (under `heapq`),
//! `hashlib`, `itertools`, `_json` (under `json`), `struct`, `re`
//! (whitepaper "Standard Library Whitelist"). Registered in [`crate::modules`]'s `REGISTRY`.
//!
//! Their objects (hash objects, `struct.Struct`, `re.Pattern`, `re.Match`) are native objects
//! ([`crate::objects::native_type`]: instances carrying Rust state, native methods and
//! read-only properties). Every method charges its work through `Vm::charge` before doing it,
//! with prices from [`crate::cost`].

pub mod bisect;
pub mod dataclasses;
pub mod decimal;
pub mod hashlib;
pub mod heapq;
pub mod itertools;
pub mod json;
pub mod pystruct;
pub mod re;

// The toolkit every native module builds on, beside the interpreter.
pub use crate::objects::native_type::{
    builtin, bytes_like, class, exc_class, getter, iter_class, module, new_obj, positional,
    receiver, set_state, state, state_mut, wrong_self, Body,
};
