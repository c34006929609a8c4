//! The `cowboy` command end to end, as one test binary: `pvm run` and `actor test` on their
//! own, the chain commands against a real `cowboyd --dev` process on loopback, and the keystore.

mod actor_test;
mod chain;
mod completions;
mod jobs;
mod keys;
mod pvm_run;
mod support;
mod trace;
mod validator;
