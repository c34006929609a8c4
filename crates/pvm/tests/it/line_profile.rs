//! Per-line attribution for traces (`cowboy_pvm::vm::profile`): a profiled invocation charges
//! exactly what an unprofiled one does, whatever happens to it, and its lines sum to its
//! totals, with each line holding what ran on it (library code at the line that called it).

use std::collections::BTreeMap;

use crate::common::*;

use cowboy_pvm::actor::{invoke, invoke_profiled, Entry, Invocation, InvocationOutcome};
use cowboy_pvm::host::HostCosts;
use cowboy_pvm::vm::profile::LineCost;
use cowboy_pvm::Limits;
use cowboy_types::cbor::Value;

const ACTOR: &str = "\
import json

class Actor:
    def work(self, n):
        total = 0
        for i in range(n):
            total += i * i
        text = json.dumps({'total': total, 'items': list(range(50))})
        open('/tmp/out', 'w').write('x' * 300)
        return len(text)
";

fn invocation(source: &str, cycles: u64) -> Invocation<'_> {
    Invocation {
        source,
        code_hash: None,
        filename: "profiled.py",
        entry: Entry::Call {
            handler: "work".into(),
            args: Value::Array(vec![Value::Uint(5000)]),
        },
        limits: Limits {
            cycles: Some(cycles),
            ..Limits::default()
        },
        costs: HostCosts::default(),
    }
}

/// The invocation unprofiled and profiled, each on a fresh host and thread (the code cache
/// is per thread, and a warm one must not make the runs differ).
fn both(
    source: &str,
    cycles: u64,
) -> (
    InvocationOutcome,
    InvocationOutcome,
    BTreeMap<u32, LineCost>,
    u64,
) {
    let source = source.to_string();
    std::thread::spawn(move || {
        let mut plain_host = MemHost::new(u64::MAX);
        let plain = invoke(invocation(&source, cycles), &mut plain_host);
        let mut host = MemHost::new(u64::MAX);
        let (profiled, lines) = invoke_profiled(invocation(&source, cycles), &mut host);
        assert_eq!(plain_host.tmp_cells, host.tmp_cells);
        (plain, profiled, lines, host.tmp_cells)
    })
    .join()
    .expect("thread")
}

fn sums(lines: &BTreeMap<u32, LineCost>) -> (u64, u64) {
    lines
        .values()
        .fold((0, 0), |(y, c), l| (y + l.cycles, c + l.cells))
}

#[test]
fn profiling_charges_nothing_and_the_lines_sum_to_the_totals() {
    let (plain, profiled, lines, cells) = both(ACTOR, 50_000_000);
    assert!(plain.result.is_ok(), "{:?}", plain.result);
    assert_eq!(plain.result, profiled.result);
    assert_eq!(plain.cycles, profiled.cycles);
    assert_eq!(sums(&lines), (profiled.cycles, cells));
    assert_eq!(cells, 300);

    // The loop body is the costliest line; json.dumps (library Python) counts on line 8 that
    // called it; the /tmp write's cells are on line 9; loading the code is on line 0.
    let costliest = lines.iter().max_by_key(|(_, c)| c.cycles).map(|(l, _)| *l);
    assert_eq!(costliest, Some(7), "{lines:?}");
    // (json's encoder is native since the json change, so its work is a few hundred cycles,
    // still several times the one assignment on line 5.)
    assert!(lines[&8].cycles > 4 * lines[&5].cycles, "{lines:?}");
    assert_eq!(lines[&9].cells, 300, "{lines:?}");
    assert!(lines[&0].cycles > 0, "{lines:?}");
    assert!(
        lines.keys().all(|l| *l <= 10),
        "only the actor's own lines: {lines:?}"
    );
}

#[test]
fn an_aborted_or_uncompilable_run_is_attributed_in_full_too() {
    // Out of cycles inside the loop: the same abort at the same count either way.
    let (plain, profiled, lines, _) = both(ACTOR, 30_000);
    assert!(plain.result.is_err());
    assert_eq!(plain.result, profiled.result);
    assert_eq!(plain.cycles, profiled.cycles);
    assert_eq!(sums(&lines).0, profiled.cycles);

    // A compile error runs no line: everything it charged is on line 0.
    let (plain, profiled, lines, _) = both(
        "class Actor:\n    def work(self, n):\n        return (\n",
        1_000_000,
    );
    assert!(plain.result.is_err());
    assert_eq!(plain.cycles, profiled.cycles);
    assert_eq!(lines.keys().copied().collect::<Vec<_>>(), vec![0]);
    assert_eq!(lines[&0].cycles, profiled.cycles);
}

/// `for a, b in` a zip, an enumerate, a dict's items or a list or tuple of pairs: unprofiled,
/// the interpreter takes the pair's items without making or passing it
/// (`objects::iter::next_pair`); profiled, it runs the two
/// instructions one by one. The two must charge the same cycles, make the same memory growth
/// and stop at the same count for every cycle and memory limit.
const PAIRS: &str = "\
class Actor:
    def work(self, n):
        keep = []
        xs = list(range(n))
        text = 'xé' * n
        d = {i: i * 3 for i in range(n)}
        for k in range(0, n, 4):
            del d[k]
        for rnd in range(3):
            for a, b in zip(xs, range(n)):
                keep.append(a + b)
            for i, x in enumerate(xs):
                keep.append(i * x)
            for k, v in d.items():
                keep.append(k - v)
            for i, c in enumerate(text):
                keep.append(i)
            for c, e in zip(text, text[1:]):
                keep.append(len(c + e))
            pairs = [(i, -i) for i in range(n)] + [[i, i] for i in range(n)]
            for a, b in pairs:
                keep.append(a - b)
            for a, b in tuple(pairs):
                keep.append(a * b)
        return len(keep) + sum(keep)
";

#[test]
fn pair_loops_charge_as_their_two_instructions_at_every_limit() {
    profiled_and_plain_agree_at_every_limit(PAIRS);
}

/// Every superinstruction (`bytecode::quicken`) on its fast path and off it: unprofiled, the
/// interpreter runs each pair in one dispatch; profiled, one instruction at a time.
const SUPERINSTRUCTIONS: &str = "\
class Actor:
    def same(self, x):
        return x

    def zero(self):
        return 0

    def nothing(self):
        pass

    def work(self, n):
        keep = []
        xs = [i * 0.5 for i in range(n)]
        words = ['b', 'a', 'c'] * n
        total, other = 0, 1
        for i in range(n):
            a = i
            b = a
            self.k = a
            if a < b + 1:
                total = total + self.k
            if xs[i] >= 3.0:
                keep.append(total)
            if words[i] < 'b':
                keep.append(i)
            if i == 1.0:
                keep.append(-1)
            c, d = a, total
            other = c + self.same(d) + self.zero()
            self.nothing()
            keep.append(str(c) + str(d))
        j = 0
        while j < n:
            j = j + 1
            for w in words[:j]:
                other = other + len(w)
        return len(keep) + total + other
";

#[test]
fn superinstructions_charge_as_their_two_instructions_at_every_limit() {
    profiled_and_plain_agree_at_every_limit(SUPERINSTRUCTIONS);
}

/// Run `src`'s `work(40)` plain and profiled, in full and then stopped at every cycle count
/// across two stretches and every 8 bytes across the last 4,000 bytes of its growth: results,
/// cycles and where the run stops must agree.
fn profiled_and_plain_agree_at_every_limit(src: &'static str) {
    let run = |cycles: u64, memory: u64| {
        let inv = move |src: &'static str| Invocation {
            limits: Limits {
                cycles: Some(cycles),
                memory,
                ..Limits::default()
            },
            entry: Entry::Call {
                handler: "work".into(),
                args: Value::Array(vec![Value::Uint(40)]),
            },
            ..invocation(src, cycles)
        };
        std::thread::spawn(move || {
            let plain = invoke(inv(src), &mut MemHost::new(u64::MAX));
            let (profiled, _) = invoke_profiled(inv(src), &mut MemHost::new(u64::MAX));
            (plain, profiled)
        })
        .join()
        .expect("thread")
    };
    let (plain, profiled) = run(u64::MAX / 4, Limits::default().memory);
    assert!(plain.result.is_ok(), "{:?}", plain.result);
    assert_eq!(plain.result, profiled.result);
    assert_eq!(plain.cycles, profiled.cycles);
    let full = plain.cycles;

    // Out of cycles at every count across a stretch of the pair loops.
    for cycles in (full - 2_000..full)
        .step_by(7)
        .chain(full / 2..full / 2 + 300)
    {
        let (plain, profiled) = run(cycles, Limits::default().memory);
        assert!(plain.result.is_err(), "{cycles}");
        assert_eq!(plain.result, profiled.result, "{cycles}");
        assert_eq!(plain.cycles, profiled.cycles, "{cycles}");
    }
    // Out of memory every 8 bytes across the last 4,000 bytes of the call's growth: the
    // least limit it fits in (found by bisection), and below.
    let (mut lo, mut hi) = (0, Limits::default().memory);
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if run(u64::MAX / 4, mid).0.result.is_ok() {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    let (mut stopped, mut ran) = (0, 0);
    for memory in (hi - 4_000..hi + 16).step_by(8) {
        let (plain, profiled) = run(u64::MAX / 4, memory);
        assert_eq!(plain.result, profiled.result, "{memory}");
        assert_eq!(plain.cycles, profiled.cycles, "{memory}");
        if plain.result.is_err() {
            stopped += 1;
        } else {
            ran += 1;
        }
    }
    assert!(
        stopped > 0 && ran > 0,
        "the sweep crosses the limit: {stopped} {ran}"
    );
}
