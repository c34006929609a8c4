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
