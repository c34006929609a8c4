//! `cowboy_sdk` is built once per thread and shared by every invocation (`modules.rs`,
//! `load_cowboy_sdk`). An actor that tries every way to change it is refused each time, its
//! own rebinding of `cowboy_sdk.x` stays its own, and the next invocation on the thread sees
//! the SDK untouched. The other half of the guarantee, that the shared module reaches no
//! mutable object at all, is the unit test `modules::tests`.

use cowboy_pvm::actor::{invoke, Entry, Invocation, InvocationOutcome};
use cowboy_pvm::host::HostCosts;
use cowboy_pvm::Limits;
use cowboy_types::cbor::Value;

use crate::common::MemHost;

const SRC: &str = r#"
import cowboy_sdk
from cowboy_sdk import actor, Storage, sender

@actor
class A:
    def tamper(self):
        out = []
        def attempt(name, f):
            try:
                f()
                out.append(name + ": ok")
            except Exception as e:
                out.append(name + ": " + type(e).__name__)
        attempt("class attribute", lambda: setattr(Storage, "x", 1))
        attempt("class method", lambda: setattr(Storage, "get", None))
        attempt("class delete", lambda: delattr(Storage, "get"))
        attempt("function attribute", lambda: setattr(cowboy_sdk.sender, "x", 1))
        attempt("function __dict__", lambda: cowboy_sdk.sender.__dict__.__setitem__("x", 1))
        attempt("function __name__", lambda: setattr(cowboy_sdk.sender, "__name__", "evil"))
        attempt("function __annotations__", lambda: cowboy_sdk.sender.__annotations__.__setitem__("x", 1))
        attempt("method attribute", lambda: setattr(cowboy_sdk.BlockInfo.__repr__, "x", 1))
        attempt("native method attribute", lambda: setattr(Storage.get, "x", 1))
        attempt("host module", lambda: setattr(cowboy_sdk.pvm_host, "sender", None))
        attempt("host module delete", lambda: delattr(cowboy_sdk.pvm_host, "sender"))
        attempt("subclass", lambda: type("Mine", (Storage,), {"x": 1}))
        cowboy_sdk.sender = lambda: "rebound"
        out.append(cowboy_sdk.sender())
        return out

    def check(self):
        return [
            hasattr(Storage, "x"),
            Storage.get.__name__,
            cowboy_sdk.sender.__name__,
            hasattr(cowboy_sdk.sender, "x"),
            sorted(cowboy_sdk.sender.__annotations__),
            cowboy_sdk.pvm_host.sender.__name__,
            cowboy_sdk.sender(),
        ]
"#;

fn call(host: &mut MemHost, handler: &str) -> InvocationOutcome {
    let inv = Invocation {
        source: SRC,
        code_hash: None,
        filename: "tamper.py",
        entry: Entry::Call {
            handler: handler.into(),
            args: Value::Array(vec![]),
        },
        limits: Limits {
            cycles: Some(10_000_000),
            ..Limits::default()
        },
        costs: HostCosts::default(),
    };
    invoke(inv, host)
}

fn texts(out: &InvocationOutcome) -> Vec<String> {
    let bytes = out.result.as_ref().expect("handler returns");
    match cowboy_types::cbor::decode(bytes).expect("cbor") {
        Value::Array(items) => items.into_iter().map(|v| format!("{v:?}")).collect(),
        other => panic!("not a list: {other:?}"),
    }
}

#[test]
fn an_actor_cannot_change_the_shared_sdk_for_the_next_invocation() {
    std::thread::scope(|s| {
        s.spawn(|| {
            let mut host = MemHost::new(u64::MAX);
            let clean = texts(&call(&mut host, "check"));
            let tampered = texts(&call(&mut host, "tamper"));
            let expected = [
                "class attribute: TypeError",
                "class method: TypeError",
                "class delete: TypeError",
                "function attribute: TypeError",
                "function __dict__: ok",
                "function __name__: TypeError",
                "function __annotations__: ok",
                "method attribute: TypeError",
                "native method attribute: AttributeError",
                "host module: TypeError",
                "host module delete: TypeError",
                "subclass: ok",
                "rebound",
            ];
            let expected: Vec<String> = expected.iter().map(|e| format!("Text({e:?})")).collect();
            assert_eq!(tampered, expected);
            // The next invocation on this thread sees exactly what the first one saw.
            assert_eq!(texts(&call(&mut host, "check")), clean);
            assert_eq!(clean[0], "Bool(false)");
            assert_eq!(clean[2], "Text(\"sender\")");
        })
        .join()
        .expect("thread");
    });
}

#[test]
fn cowboy_sdk_without_a_host_is_an_import_error() {
    let out = cowboy_pvm::run("import cowboy_sdk\n", "script.py", Limits::default());
    let err = format!("{:?}", out.error);
    assert!(
        err.contains("ImportError") && err.contains("needs a chain host"),
        "{err}"
    );
}
