//! What several test modules share: real servers on loopback, and small builders.

pub mod https;

use cowboy_runner::executor::{FaultKind, Outcome};
use cowboy_types::cbor::Value;

/// A CBOR text.
pub fn text(s: &str) -> Value {
    Value::Text(s.into())
}

/// A CBOR map with text keys.
pub fn map(e: Vec<(&str, Value)>) -> Value {
    Value::Map(e.into_iter().map(|(k, v)| (text(k), v)).collect())
}

/// A fault's kind and progress; a result fails the test.
pub fn fault(o: &Outcome) -> (FaultKind, u16) {
    match o {
        Outcome::Fault {
            kind, progress_bps, ..
        } => (*kind, *progress_bps),
        Outcome::Done { result, .. } => panic!("a result: {}", String::from_utf8_lossy(result)),
    }
}
