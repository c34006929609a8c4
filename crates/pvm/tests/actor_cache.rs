//! The compiled-code cache is invisible to programs: an invocation on a cold thread and the
//! same invocation on a warm one (cache filled by earlier invocations, including ones that
//! imported the same stdlib modules) charge the same cycles, return the same bytes and hit a
//! memory limit at the same point. And invocations are safe on any calling thread: a small
//! stack is no problem, and a host that tries to start an invocation from a host call gets
//! an error, not a corrupted VM.

use cowboy_pvm::actor::{invoke, Entry, Invocation, InvocationOutcome, InvokeError};
use cowboy_pvm::host::{Addr, CallContext, Host, HostCosts, HostError};
use cowboy_pvm::Limits;
use cowboy_types::cbor::Value;

mod common;
use common::MemHost;

const SRC: &str = "import json\nfrom cowboy_sdk import actor\n@actor\nclass A:\n    def work(self, n):\n        data = [json.dumps({'i': i, 's': 'x' * i}) for i in range(n)]\n        self.storage['last'] = data[-1]\n        return len(''.join(data))\n";

fn host() -> MemHost {
    MemHost::new(u64::MAX)
}

fn run(n: u64, memory: u64) -> InvocationOutcome {
    let mut host = host();
    let limits = Limits {
        cycles: Some(50_000_000),
        memory,
        ..Limits::default()
    };
    let inv = Invocation {
        source: SRC,
        filename: "a.py",
        entry: Entry::Call {
            handler: "work".into(),
            args: Value::Array(vec![Value::Uint(n)]),
        },
        limits,
        costs: HostCosts::default(),
    };
    invoke(inv, &mut host)
}

/// Runs `f` on a brand-new thread, so its code cache starts cold.
fn cold<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    std::thread::scope(|s| s.spawn(f).join().expect("thread"))
}

#[test]
fn warm_and_cold_invocations_are_identical() {
    let first = cold(|| run(50, 10 << 20));
    let (warm1, warm2) = cold(|| {
        let _ = run(10, 10 << 20);
        (run(50, 10 << 20), run(50, 10 << 20))
    });
    for w in [&warm1, &warm2] {
        assert_eq!(w.cycles, first.cycles);
        assert_eq!(w.result, first.result);
    }
    assert!(first.result.is_ok(), "{:?}", first.result);
}

#[test]
fn the_memory_limit_falls_at_the_same_point_warm_or_cold() {
    // Find, on cold threads, the smallest limit that lets n = 400 finish; then check that a
    // warm thread agrees on both sides of it.
    let (mut lo, mut hi) = (1u64 << 10, 64u64 << 20);
    while hi - lo > 64 {
        let mid = (lo + hi) / 2;
        match cold(move || run(400, mid)).result {
            Ok(_) => hi = mid,
            Err(InvokeError::MemoryLimit) => lo = mid,
            Err(e) => panic!("unexpected {e:?}"),
        }
    }
    let (below, at) = cold(move || {
        let _ = run(400, 64 << 20);
        (run(400, lo).result, run(400, hi).result)
    });
    assert_eq!(below, Err(InvokeError::MemoryLimit));
    assert!(at.is_ok(), "{at:?}");
}

#[test]
fn deep_programs_run_on_a_small_calling_thread() {
    // 128 KiB of stack: the invocation switches to its own large stack.
    const DEEP: &str = "from cowboy_sdk import actor\n@actor\nclass A:\n    def deep(self):\n        def f(n):\n            return f(n + 1)\n        x = []\n        for _ in range(200):\n            x = [x]\n        try:\n            f(0)\n        except RecursionError:\n            pass\n        return repr(x)\n";
    let out = std::thread::scope(|s| {
        std::thread::Builder::new()
            .stack_size(128 << 10)
            .spawn_scoped(s, || {
                let mut host = host();
                let inv = Invocation {
                    source: DEEP,
                    filename: "deep.py",
                    entry: Entry::Call {
                        handler: "deep".into(),
                        args: Value::Null,
                    },
                    limits: Limits::default(),
                    costs: HostCosts::default(),
                };
                invoke(inv, &mut host)
            })
            .expect("spawn")
            .join()
            .expect("no stack overflow")
    });
    match out.result {
        Err(InvokeError::Python { class, .. }) => assert_eq!(class, "RecursionError"),
        other => panic!("expected RecursionError from repr of 200 levels, got {other:?}"),
    }
}

/// A host whose storage reads try to start a nested invocation.
struct Reentrant {
    inner: MemHost,
    nested: Vec<InvocationOutcome>,
}

impl Host for Reentrant {
    fn context(&self) -> &CallContext {
        self.inner.context()
    }
    fn storage_get(&mut self, key: &[u8]) -> Result<Option<Vec<u8>>, HostError> {
        let inv = Invocation {
            source: SRC,
            filename: "a.py",
            entry: Entry::Call {
                handler: "work".into(),
                args: Value::Array(vec![Value::Uint(1)]),
            },
            limits: Limits::default(),
            costs: HostCosts::default(),
        };
        let mut other = host();
        self.nested.push(invoke(inv, &mut other));
        self.inner.storage_get(key)
    }
    fn storage_set(&mut self, key: &[u8], value: &[u8]) -> Result<(), HostError> {
        self.inner.storage_set(key, value)
    }
    fn storage_delete(&mut self, key: &[u8]) -> Result<(), HostError> {
        self.inner.storage_delete(key)
    }
    fn send_message(&mut self, t: Addr, h: &str, a: &[u8], v: u128) -> Result<[u8; 32], HostError> {
        self.inner.send_message(t, h, a, v)
    }
    fn emit_event(&mut self, t: &str, d: &[u8]) -> Result<(), HostError> {
        self.inner.emit_event(t, d)
    }
    fn transfer(&mut self, to: Addr, v: u128) -> Result<(), HostError> {
        self.inner.transfer(to, v)
    }
    fn balance(&mut self, a: Addr) -> Result<u128, HostError> {
        self.inner.balance(a)
    }
    fn randomness(&mut self, l: &[u8]) -> Result<[u8; 32], HostError> {
        self.inner.randomness(l)
    }
    fn tmp_write(&mut self, n: u64) -> Result<(), HostError> {
        self.inner.tmp_write(n)
    }
}

#[test]
fn an_invocation_cannot_start_inside_a_host_call() {
    let mut h = Reentrant {
        inner: host(),
        nested: Vec::new(),
    };
    let inv = Invocation {
        source: SRC,
        filename: "a.py",
        entry: Entry::Call {
            handler: "work".into(),
            args: Value::Array(vec![Value::Uint(3)]),
        },
        limits: Limits::default(),
        costs: HostCosts::default(),
    };
    let outer = invoke(inv, &mut h);
    assert!(!h.nested.is_empty(), "the program made no storage read");
    for n in &h.nested {
        assert!(
            matches!(&n.result, Err(InvokeError::Internal(m)) if m.contains("inside a host call")),
            "{:?}",
            n.result
        );
    }
    // The outer invocation is unaffected, and the thread works normally afterwards.
    assert_eq!(outer.result, run(3, 10 << 20).result);
    assert!(run(3, 10 << 20).result.is_ok());
}
