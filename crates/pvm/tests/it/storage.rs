//! `self.storage` (`cowboy_sdk.Storage`, native since issue 18): every method's answer and
//! error, the read cache (the same object comes back; changes made in place are written back
//! when a handler returns), write-through of assignment and deletion, and what reaches the host
//! byte for byte.

use cowboy_pvm::actor::{invoke, Entry, Invocation, InvocationOutcome};
use cowboy_pvm::host::HostCosts;
use cowboy_pvm::Limits;
use cowboy_types::cbor::{self, Value};

use crate::common::MemHost;

const SRC: &str = r#"
from cowboy_sdk import actor, Storage

@actor
class A:
    def __init__(self):
        self.storage["items"] = [1]
        self.storage[7] = "seven"
        self.storage[b"raw"] = {"k": b"v"}

    def probe(self):
        s = self.storage
        out = []
        def attempt(name, f):
            try:
                out.append(name + ": " + repr(f()))
            except Exception as e:
                out.append(name + ": " + type(e).__name__ + " " + str(e))
        attempt("repr", lambda: repr(s))
        attempt("isinstance", lambda: isinstance(s, Storage))
        attempt("get present", lambda: s.get(7))
        attempt("get absent", lambda: s.get("nope"))
        attempt("get default", lambda: s.get("nope", 5))
        attempt("getitem absent", lambda: s["nope"])
        attempt("contains", lambda: (7 in s, "nope" in s, b"raw" in s))
        attempt("same object", lambda: s["items"] is s["items"])
        attempt("bad key", lambda: s.get(1.5))
        attempt("bad key set", lambda: s.__setitem__([1], 1))
        attempt("unencodable", lambda: s.__setitem__("f", object()))
        attempt("after unencodable", lambda: "f" in s)
        attempt("setdefault new", lambda: s.setdefault("d", [0]))
        attempt("setdefault old", lambda: s.setdefault("d", [9]))
        attempt("pop", lambda: s.pop(7))
        attempt("pop again", lambda: s.pop(7))
        attempt("pop default", lambda: s.pop(7, "dflt"))
        attempt("delitem absent", lambda: s.__delitem__("nope"))
        attempt("delete absent", lambda: s.delete("nope"))
        attempt("set", lambda: s.set("n", 3))
        attempt("arity", lambda: s.get())
        attempt("attr", lambda: setattr(s, "x", 1))
        s["items"].append(2)
        del s[b"raw"]
        return out

    def after(self):
        return [self.storage.get("items"), self.storage.get(b"raw"), self.storage.get("d"),
                self.storage.get("n"), 7 in self.storage]

    def spoil(self):
        self.storage["items"].append(object())

    def grow_then_fail(self):
        self.storage["items"].append(3)
        raise ValueError("no")
"#;

fn run(host: &mut MemHost, entry: Entry) -> InvocationOutcome {
    let inv = Invocation {
        source: SRC,
        code_hash: None,
        filename: "storage.py",
        entry,
        limits: Limits {
            cycles: Some(10_000_000),
            ..Limits::default()
        },
        costs: HostCosts::default(),
    };
    invoke(inv, host)
}

fn call(host: &mut MemHost, handler: &str) -> InvocationOutcome {
    run(
        host,
        Entry::Call {
            handler: handler.into(),
            args: Value::Array(vec![]),
        },
    )
}

fn result(out: &InvocationOutcome) -> Value {
    cbor::decode(out.result.as_ref().expect("handler returns")).expect("cbor")
}

fn text(s: &str) -> Value {
    Value::Text(s.into())
}

fn key(k: &Value) -> Vec<u8> {
    cbor::encode(k)
}

#[test]
fn every_method_answers_as_documented() {
    std::thread::scope(|s| {
        s.spawn(|| {
            let mut host = MemHost::new(u64::MAX);
            let dep = run(&mut host, Entry::Deploy { args: Value::Null });
            assert!(dep.result.is_ok(), "{:?}", dep.result);
            // Written through as canonical CBOR under the encoded key.
            assert_eq!(
                host.store.get(&key(&text("items"))),
                Some(&cbor::encode(&Value::Array(vec![Value::Uint(1)])))
            );
            assert_eq!(
                host.store.get(&key(&Value::Uint(7))),
                Some(&cbor::encode(&text("seven")))
            );

            let out = call(&mut host, "probe");
            let Value::Array(lines) = result(&out) else {
                panic!("not a list")
            };
            let lines: Vec<String> = lines
                .into_iter()
                .map(|v| match v {
                    Value::Text(t) => t,
                    other => panic!("{other:?}"),
                })
                .collect();
            let expected = [
                "repr: '<actor storage>'",
                "isinstance: True",
                "get present: 'seven'",
                "get absent: None",
                "get default: 5",
                "getitem absent: KeyError 'nope'",
                "contains: (True, False, True)",
                "same object: True",
                "bad key: TypeError storage keys must be str, int or bytes, not 'float'",
                "bad key set: TypeError storage keys must be str, int or bytes, not 'list'",
                "unencodable: TypeError cannot encode 'object' as CBOR",
                "after unencodable: False",
                "setdefault new: [0]",
                "setdefault old: [0]",
                "pop: 'seven'",
                "pop again: KeyError 7",
                "pop default: 'dflt'",
                "delitem absent: KeyError 'nope'",
                "delete absent: None",
                "set: None",
                "arity: TypeError Storage.get() takes from 1 to 2 positional arguments but 0 were given",
                "attr: AttributeError 'Storage' object has no attribute 'x'",
            ];
            assert_eq!(lines, expected);

            // The in-place append was written back; the deletions and writes went through.
            let after = result(&call(&mut host, "after"));
            let expected = Value::Array(vec![
                Value::Array(vec![Value::Uint(1), Value::Uint(2)]),
                Value::Null,
                Value::Array(vec![Value::Uint(0)]),
                Value::Uint(3),
                Value::Bool(false),
            ]);
            assert_eq!(after, expected);
            assert!(!host.store.contains_key(&key(&Value::Uint(7))));
            assert!(!host.store.contains_key(&key(&Value::Bytes(b"raw".to_vec()))));
        })
        .join()
        .expect("thread");
    });
}

#[test]
fn a_value_spoiled_in_place_or_a_failed_handler_writes_nothing_back() {
    std::thread::scope(|s| {
        s.spawn(|| {
            let mut host = MemHost::new(u64::MAX);
            run(&mut host, Entry::Deploy { args: Value::Null })
                .result
                .expect("deploy");
            let before = host.store.clone();
            let spoiled = call(&mut host, "spoil");
            let err = format!("{:?}", spoiled.result);
            assert!(
                err.contains("storage['items'] can no longer be stored"),
                "{err}"
            );
            let failed = call(&mut host, "grow_then_fail");
            assert!(failed.result.is_err());
            assert_eq!(host.store, before);
        })
        .join()
        .expect("thread");
    });
}
