//! The regular-expression engine's integration tests, as one test binary.
//!
//! Every file directly under `tests/` is a test crate of its own that links the engine and
//! the test dependencies again; so the tests live here as modules of one crate that links once
//! (README for engineers: "few integration-test binaries per crate"). A test's name is
//! `<module>::<test>`, so `cargo test -p cowboy-pvm-re --test it differential::` runs one
//! module. The modules share no state: every test builds its own budget, limits and patterns.
//! Their data stays directly under `tests/` (`re_cases.json`, the CPython oracle
//! `re_oracle.py` and the case generator `gen_cases.py`).

mod api;
mod differential;
// Random patterns and subjects (named `properties`, not `proptest`, so the module does not
// share a name with the `proptest` crate it uses).
mod properties;
