//! The `cowboy` command end to end, as one test binary: `pvm run` on its own, the chain
//! commands against a real `cowboyd --dev` process on loopback, and the keystore.

mod chain;
mod keys;
mod pvm_run;
mod support;
