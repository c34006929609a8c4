//! An actor's module body runs once per thread and is replayed after (`src/body_cache.rs`),
//! and a replay is exact: every invocation returns the same bytes, charges the same cycles,
//! prints the same text and peaks at the same memory as it does with the cache off, whatever
//! the program then does to the objects the body made (class attributes, globals, module
//! containers, closures, identities), and under cycle budgets that end anywhere in the call.
//! Bodies whose result may differ from run to run (a host call at module level) or that hold
//! what a copy cannot reproduce are never replayed.

use cowboy_pvm::actor::{bodies_replayed, invoke, set_body_cache, Entry, Invocation};
use cowboy_pvm::host::HostCosts;
use cowboy_pvm::Limits;
use cowboy_types::cbor::Value;

use crate::common::MemHost;

/// What one invocation showed: result bytes or error, cycles, stdout, peak memory.
type Seen = (String, u64, String, u64);

fn text(s: &str) -> Value {
    Value::Text(s.into())
}

fn call(handler: &str, args: Vec<Value>) -> Entry {
    Entry::Call {
        handler: handler.into(),
        args: Value::Array(args),
    }
}

/// Run `entries` in order against one host on a new thread, with the body cache on or off,
/// each under its own cycle budget; what each showed, and how many bodies were replayed.
fn session(src: &'static str, entries: Vec<(Entry, u64)>, cache: bool) -> (Vec<Seen>, u64) {
    std::thread::scope(|s| {
        s.spawn(move || {
            set_body_cache(cache);
            let mut host = MemHost::new(u64::MAX);
            let mut seen = Vec::new();
            for (entry, cycles) in entries {
                let inv = Invocation {
                    source: src,
                    code_hash: None,
                    filename: "actor.py",
                    entry,
                    limits: Limits {
                        cycles: Some(cycles),
                        ..Limits::default()
                    },
                    costs: HostCosts::default(),
                };
                let o = invoke(inv, &mut host);
                let result = match o.result {
                    Ok(bytes) => format!("ok {bytes:?}"),
                    Err(e) => format!("err {e:?}"),
                };
                seen.push((result, o.cycles, o.stdout, cowboy_pvm::memory::peak()));
            }
            (seen, bodies_replayed())
        })
        .join()
        .expect("session thread")
    })
}

/// Run `entries` with the cache off and on; they must agree on everything. Returns the
/// outcomes and the number of replays with the cache on.
fn compare(src: &'static str, entries: Vec<(Entry, u64)>) -> (Vec<Seen>, u64) {
    let (off, none) = session(src, entries.clone(), false);
    assert_eq!(none, 0, "the cache was off");
    let (on, replays) = session(src, entries, true);
    for (i, (a, b)) in off.iter().zip(&on).enumerate() {
        assert_eq!(a, b, "invocation {i} differs with the body cache on");
    }
    (on, replays)
}

const BIG: u64 = 100_000_000;

const TOKEN: &str = include_str!("../../../../examples/actors/token.py");
const TO: &str = "0x0303030303030303030303030303030303030303";

#[test]
fn the_token_replays_its_body_exactly() {
    let mut entries = vec![(
        Entry::Deploy {
            args: Value::Array(vec![text("Tok"), Value::Uint(1000)]),
        },
        BIG,
    )];
    for amount in [10, 20, 2000, 0] {
        entries.push((call("transfer", vec![text(TO), Value::Uint(amount)]), BIG));
    }
    entries.push((call("balance_of", vec![text(TO)]), BIG));
    let (seen, replays) = compare(TOKEN, entries);
    assert_eq!(
        replays, 5,
        "every invocation after the first replays the body"
    );
    assert!(seen[1].0.starts_with("ok"), "{:?}", seen[1]);
    assert!(seen[3].0.contains("insufficient balance"), "{:?}", seen[3]);
}

#[test]
fn a_budget_that_ends_anywhere_ends_alike() {
    // A transfer's cycles with a warm cache, then budgets across the whole call: below the
    // body's end the body runs (and runs out where it always did), above it the replay must
    // leave exactly what the body would have.
    let deploy = Entry::Deploy {
        args: Value::Array(vec![text("Tok"), Value::Uint(1000)]),
    };
    let transfer = || call("transfer", vec![text(TO), Value::Uint(1)]);
    let (probe, _) = session(TOKEN, vec![(deploy.clone(), BIG), (transfer(), BIG)], true);
    let full = probe[1].1;
    let mut entries = vec![(deploy, BIG)];
    for k in 1..=40 {
        entries.push((transfer(), full * k / 40));
    }
    entries.push((transfer(), full - 1));
    let (seen, replays) = compare(TOKEN, entries);
    assert!(replays > 0);
    assert!(seen.iter().any(|s| s.0.contains("OutOfCycles")));
}

/// A body that makes classes with inheritance and descriptors, closures, defaults, module
/// containers and imports; the handler changes all of them and reports identities.
const MUTATES: &str = r#"
import json
import cowboy_sdk
from cowboy_sdk import actor

print("loading")
counter = 0
TABLE = {"a": [1, 2], "t": (1, "two", b"3", 4.5, None)}
SEEN = set()

def helper(x, acc=[]):
    acc.append(x)
    return len(acc)

def make():
    def rec(n):
        return 0 if n == 0 else 1 + rec(n - 1)
    return rec

rec = make()

class Base:
    kind = "base"

    @staticmethod
    def s():
        return 1

    @classmethod
    def c(cls):
        return cls.__name__

    @property
    def p(self):
        return 2

@actor
class A(Base):
    tags = ("x", b"y", 3.5, None, frozenset({1}))

    def bump(self):
        global counter
        counter += 1
        A.kind = A.kind + "!"
        Base.extra = counter
        TABLE["a"].append(counter)
        SEEN.add(counter)
        helper.calls = getattr(helper, "calls", 0) + 1
        cowboy_sdk.extra = getattr(cowboy_sdk, "extra", 0) + 1
        del cowboy_sdk.sender
        print("bump", counter)
        return [counter, A.kind, Base.extra, json.dumps(TABLE["a"]), sorted(SEEN), helper(1),
                helper.calls, rec(5), self.s(), self.c(), self.p, list(A.tags[:2]),
                cowboy_sdk.extra, hasattr(cowboy_sdk, "sender")]

    def ids(self):
        return [hash(x) % 100003 for x in (A, Base, helper, rec, self, A.tags[4], json, A.s)]
"#;

#[test]
fn what_a_handler_changes_does_not_reach_the_next_invocation() {
    let mut entries = vec![(Entry::Deploy { args: Value::Null }, BIG)];
    for _ in 0..3 {
        entries.push((call("bump", vec![]), BIG));
        entries.push((call("ids", vec![]), BIG));
    }
    let (seen, replays) = compare(MUTATES, entries);
    assert!(seen[1].0.starts_with("ok"), "{:?}", seen[1]);
    assert!(seen[2].0.starts_with("ok"), "{:?}", seen[2]);
    assert_eq!(replays, 6);
    // Every bump starts from the body's state.
    assert_eq!(seen[1], seen[3]);
    assert_eq!(seen[1], seen[5]);
    assert!(seen[1].2.contains("loading\nbump 1"), "{:?}", seen[1]);
}

#[test]
fn a_body_that_calls_the_host_is_never_replayed() {
    const SRC: &str = "from cowboy_sdk import actor, sender\nOWNER = sender()\n@actor\nclass A:\n    def owner(self):\n        return OWNER\n";
    let entries = vec![(call("owner", vec![]), BIG), (call("owner", vec![]), BIG)];
    let (seen, replays) = compare(SRC, entries);
    assert_eq!(replays, 0);
    assert!(seen[1].0.starts_with("ok"), "{:?}", seen[1]);
}

#[test]
fn a_body_holding_what_a_copy_cannot_reproduce_is_run_each_time() {
    // A generator (a suspended frame), an instance made after the last class change (its
    // constructor plan is remembered for the epoch, which a copy cannot carry), and data
    // nested deeper than a template may be (it is dropped recursively when its thread ends).
    for src in [
        "from cowboy_sdk import actor\nX = []\nfor _ in range(500):\n    X = [X]\n@actor\nclass A:\n    def f(self):\n        return len(X)\n",
        "from cowboy_sdk import actor\nG = (i for i in range(3))\n@actor\nclass A:\n    def f(self):\n        return next(G)\n",
        "from cowboy_sdk import actor\n@actor\nclass A:\n    def __init__(self):\n        self.x = 1\n    def f(self):\n        return A().x\nDEFAULT = A()\n",
    ] {
        let entries = vec![(call("f", vec![]), BIG), (call("f", vec![]), BIG)];
        let (seen, replays) = compare(src, entries);
        assert_eq!(replays, 0, "{src}");
        assert!(seen[1].0.starts_with("ok"), "{:?}", seen[1]);
    }
}

#[test]
fn stdlib_imports_replay_exactly() {
    const SRC: &str = r#"
import json, struct, heapq, re
from dataclasses import dataclass, field
from cowboy_sdk import actor

@dataclass(order=True)
class Point:
    x: int = 0
    y: int = 0
    tags: list = field(default_factory=list)

@actor
class A:
    def f(self, n):
        ps = sorted(Point(i % 3, -i) for i in range(n))
        h = []
        for p in ps:
            heapq.heappush(h, (p.y, p.x))
        return [repr(ps[0]), json.dumps([heapq.heappop(h) for _ in range(2)]),
                struct.pack("<I", n).hex(), re.sub("a+", "-", "caaab")]
"#;
    let entries = (0..3)
        .map(|i| (call("f", vec![Value::Uint(5 + i)]), BIG))
        .collect();
    let (seen, replays) = compare(SRC, entries);
    assert!(seen[2].0.starts_with("ok"), "{:?}", seen[2]);
    assert_eq!(replays, 2);
}
