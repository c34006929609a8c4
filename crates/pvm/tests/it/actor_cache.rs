//! The compiled-code cache is invisible to programs: an invocation on a cold thread and the
//! same invocation on a warm one (cache filled by earlier invocations, including ones that
//! imported the same stdlib modules) charge the same cycles, return the same bytes and hit a
//! memory limit at the same point. The builtin classes, built once per thread and shared, are
//! likewise invisible (their identity hashes are the same cold and warm). And invocations are
//! safe on any calling thread: a small stack is no problem, and a host that tries to start an
//! invocation from a host call gets an error, not a corrupted VM.

use cowboy_pvm::actor::{invoke, Entry, Invocation, InvocationOutcome, InvokeError};
use cowboy_pvm::host::{Addr, CallContext, Host, HostCosts, HostError};
use cowboy_pvm::Limits;
use cowboy_types::cbor::Value;

use crate::common::MemHost;

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
        code_hash: None,
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
                    code_hash: None,
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
            code_hash: None,
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
        code_hash: None,
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

// ---- Cycles never depend on a cache -------------------------------------------------------
//
// Hash-table lookups pay for the slots they read past the first few (`cost::PROBE`). Code
// objects, and the inline caches inside them that remember where a name was found, live in
// the per-thread code cache, so a lookup may walk the table on a cold thread and go straight
// to the entry on a warm one. Both must charge the same: a block built on one validator and
// verified on another (or on the same thread, warm) must cost the same cycles.

/// An actor with enough globals and instance attributes that some of them sit several slots
/// down their probe sequences (so their walks are charged), read through inline-cached sites;
/// plus methods, class creation, stdlib imports and dict/set/frozenset work with colliding keys.
fn busy_source() -> String {
    let mut s = String::from(concat!(
        "import json\nimport math\nimport heapq\nimport collections\nimport dataclasses\n",
        "import fractions\nimport decimal\nimport enum\nfrom cowboy_sdk import actor\n",
    ));
    for i in 0..80 {
        s += &format!("G{i} = {i}\n");
    }
    s += "def gsum():\n    return 0";
    for i in 0..80 {
        s += &format!(" + G{i}");
    }
    s += "\nclass P:\n    def __init__(self):\n";
    for i in 0..80 {
        s += &format!("        self.a{i} = {i}\n");
    }
    s += "    def total(self):\n        return 0";
    for i in 0..80 {
        s += &format!(" + self.a{i}");
    }
    s += "\n    def bump(self, k):\n        self.a7 = self.a7 + k\n        return self.a7\n";
    s += concat!(
        "@actor\n",
        "class A:\n",
        "    def work(self, n):\n",
        "        p = P()\n",
        "        t = p.total() + gsum() + p.bump(n)\n",
        "        setattr(p, 'dyn' + str(n), n)\n",
        "        t += getattr(p, 'dyn' + str(n))\n",
        "        d = {}\n",
        "        for i in range(n):\n",
        "            d[i * (2**61 - 1)] = i\n",
        "        s = {i * (2**61 - 1) for i in range(n)}\n",
        "        fs = frozenset(s)\n",
        "        hits = sum(1 for i in range(n) if i * (2**61 - 1) in fs)\n",
        "        del d[0]\n",
        "        class K(P):\n",
        "            extra = 1\n",
        "        k = K()\n",
        "        h = [5, 1, 4]\n",
        "        heapq.heapify(h)\n",
        "        @dataclasses.dataclass\n",
        "        class D:\n",
        "            x: int\n",
        "            y: int = 2\n",
        "        class E(enum.Enum):\n",
        "            R = 1\n",
        "            G = 2\n",
        "        c = collections.Counter('abracadabra').most_common(2)\n",
        "        q = collections.deque([1, 2, 3], maxlen=2)\n",
        "        fr = fractions.Fraction(3, 4) + fractions.Fraction(1, 3)\n",
        "        dm = decimal.Decimal('1.5') * 3\n",
        "        t += D(n).x + E.G.value + len(c) + len(q) + fr.denominator + int(dm)\n",
        // Builtin classes are shared by a thread's invocations: their identities (here the
        // iteration order of a set of them, and their hashes) must not show it.
        "        kinds = [c.__name__ for c in {int, str, float, list, dict, tuple, object, type,\n",
        "                 ValueError, KeyError, Exception, bool, bytes, set}]\n",
        "        t += (hash(int) ^ hash(KeyError) ^ hash(object)) % 1000003\n",
        "        self.count = getattr(self, 'count', 0) + 1\n",
        "        self.last = {'t': t, 'k': k.total()}\n",
        "        return [t, len(d), len(s), hits, k.extra, h[0], math.isqrt(10**40),\n",
        "                json.dumps({'a': [1, 2]}), self.count, kinds]\n",
    );
    s
}

/// The other actor a warm thread ran before: it shares the stdlib modules' code objects (and
/// so their inline caches) and has its own layouts of similar names.
const OTHER: &str = "import json\nimport heapq\nfrom cowboy_sdk import actor\nG1 = 1\nG0 = 0\n@actor\nclass B:\n    def work(self, n):\n        h = list(range(n, 0, -1))\n        heapq.heapify(h)\n        return json.dumps({'h': h, 'z': [G0, G1]})\n";

fn invoke_src(src: &str, host: &mut MemHost, entry: Entry) -> InvocationOutcome {
    let inv = Invocation {
        source: src,
        code_hash: None,
        filename: "busy.py",
        entry,
        limits: Limits {
            cycles: Some(50_000_000),
            ..Limits::default()
        },
        costs: HostCosts::default(),
    };
    invoke(inv, host)
}

/// Deploy, then three calls against the same storage: the cycles of each step.
fn busy_session() -> Vec<(u64, Result<Vec<u8>, InvokeError>)> {
    let src = busy_source();
    let mut h = host();
    let mut out = vec![invoke_src(
        &src,
        &mut h,
        Entry::Deploy {
            args: Value::Array(vec![]),
        },
    )];
    for n in [40u64, 300, 41] {
        let call = Entry::Call {
            handler: "work".into(),
            args: Value::Array(vec![Value::Uint(n)]),
        };
        out.push(invoke_src(&src, &mut h, call));
    }
    out.into_iter().map(|o| (o.cycles, o.result)).collect()
}

#[test]
fn cycles_are_the_same_cold_warm_and_after_other_programs() {
    let cold_run = cold(busy_session);
    for (i, (_, r)) in cold_run.iter().enumerate() {
        assert!(r.is_ok(), "step {i}: {r:?}");
    }
    let (again, after_other) = cold(|| {
        let first = busy_session();
        assert_eq!(
            first, cold_run,
            "a fresh thread charges what another fresh thread does"
        );
        let again = busy_session();
        let mut h = host();
        for n in [3, 50] {
            let call = Entry::Call {
                handler: "work".into(),
                args: Value::Array(vec![Value::Uint(n)]),
            };
            let o = invoke_src(OTHER, &mut h, call);
            assert!(o.result.is_ok(), "{:?}", o.result);
        }
        (again, busy_session())
    });
    assert_eq!(again, cold_run, "same thread, code and inline caches warm");
    assert_eq!(after_other, cold_run, "warm, after another program");
}

/// The same for plain runs (`cowboy_pvm::run`, the CLI's `pvm run`): the main module is
/// compiled afresh each time, the stdlib modules it imports come from the thread's cache.
#[test]
fn plain_runs_charge_the_same_cold_and_warm() {
    let src = format!(
        "{}\nprint(A().work(60))\nprint(A().work(60))\n",
        busy_source()
            .replace("from cowboy_sdk import actor\n", "")
            .replace("@actor\n", "")
    );
    let limits = Limits {
        cycles: Some(50_000_000),
        ..Limits::default()
    };
    let once = |src: &str| {
        let o = cowboy_pvm::run(src, "busy.py", limits);
        assert!(o.error.is_none(), "{:?}", o.error);
        (o.cycles, o.stdout)
    };
    let first = cold(|| once(&src));
    let (a, b) = cold(|| (once(&src), once(&src)));
    assert_eq!(a, first);
    assert_eq!(b, first);
}

/// An actor module that reads an attribute of an instance of a builtin class with a long MRO
/// (`UnicodeDecodeError`: six namespaces) and makes no class of its own. The builtin classes
/// are built once per thread and outlive an invocation, and so do the inline caches of the
/// actor's cached code, so its sites could stay warm from one invocation to the next; a
/// refill owes the MRO walk that a hit does not.
const DEEP: &str = "def f():\n    try:\n        b'\\xff'.decode()\n    except UnicodeDecodeError as e:\n        e.mine = 1\n        return e.mine + e.mine\nr = f()\n";

/// Each invocation starts in a class epoch of its own (`Vm::new`), so the second invocation on
/// a thread pays the refills the first paid, though nothing between them changed a class
/// (before, it was charged 1,878 cycles against the first's 1,929).
#[test]
fn builtin_class_sites_start_cold_in_every_invocation() {
    let call = || Entry::Call {
        handler: "work".into(),
        args: Value::Array(vec![]),
    };
    let (first, second) = cold(|| {
        let mut h = host();
        let first = invoke_src(DEEP, &mut h, call());
        (first, invoke_src(DEEP, &mut h, call()))
    });
    // The module defines no actor class: the invocation fails after running its body.
    assert!(
        matches!(first.result, Err(InvokeError::NoActorClass(_))),
        "{:?}",
        first.result
    );
    assert_eq!(second.result, first.result);
    assert_eq!(second.cycles, first.cycles);
}
