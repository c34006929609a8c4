//! Metering calibration (issue 15, ARCHITECTURE D11): nanoseconds per cycle of every opcode and
//! builtin on its worst-case input, against the median of ordinary programs, in the same run.
//!
//! Each case of `benches/calibrate/cases.py` is a small program that repeats one operation on
//! the input that makes it do the most work per cycle charged, until the cycle budget stops it.
//! The ordinary programs are the plain loop and `benches/programs/*.py` (cut off by the same
//! kind of budget when they run longer). For every program the harness picks a budget that runs
//! for about the target time, runs it several times and keeps the fastest run (the least
//! disturbed by other load), and reports `ns/cycle` and the ratio to the ordinary programs'
//! median `ns/cycle`. The goal is every ratio at most 3.
//!
//! ```text
//! cargo bench -p cowboy-pvm --bench calibrate                 # full: ~0.25 s a run, best of 3
//! cargo bench -p cowboy-pvm --bench calibrate -- --check      # CI: ~25 ms a run, best of 5,
//!                                                             # report; exit 1 above 10x the
//!                                                             # plain loop, confirmed by an
//!                                                             # interleaved re-measurement
//! cargo bench -p cowboy-pvm --bench calibrate -- --only int   # cases whose group/op matches
//! cargo bench -p cowboy-pvm --bench calibrate -- --run f.py --budget 20000000
//!                                           # one program: cycles, wall time, how it ended
//! cargo bench -p cowboy-pvm --bench calibrate -- --search --minutes 60 --seed 1
//!                                           # the adversarial search (search.rs)
//! ```
//!
//! The cases are `cases.py`, written by reading each operation's algorithm, and `found.py`, the
//! adversarial search's findings kept as regressions.
//!
//! `--check` reports the goal, and fails on issue 15's bound: a row that costs more than
//! [`FAIL_BOUND`] times the plain loop's ns/cycle. Rows near the goal move by 1.5x or more
//! between runs on a shared 2-core machine, because load changes during a run and the
//! denominator is measured at another moment than the row. So a row over the bound against
//! the plain loop measured at the start is measured again, alternating with the plain loop
//! ([`CONFIRM_ROUNDS`] times each, the fastest of each kept), so both see the same load, and
//! fails the check only if that ratio is still over. Rows measure 1.4-4.2x the plain loop that
//! way (the worst: `pow` with a modulus); an uncharged loop shows 20x to 2,500x
//! (see the README, "Calibration").

use std::time::{Duration, Instant};

use cowboy_pvm::{Limits, RunOutcome};

mod search;

/// The allocator cowboyd links: the figures should be the node's.
#[global_allocator]
static ALLOC: std::alloc::System = std::alloc::System;
// mimalloc, as `malloc` (its `override` feature: see the cli crate's Cargo.toml).
use mimalloc as _;

const CASES: &str = include_str!("cases.py");

/// The adversarial search's findings kept as regression cases (group `search`, see `search.rs`).
const FOUND: &str = include_str!("found.py");

/// The ordinary programs the ratio is taken against (with the plain loop from `CASES`).
const ORDINARY: &[(&str, &str)] = &[
    ("actor_ledger", include_str!("../programs/actor_ledger.py")),
    ("bigint_arith", include_str!("../programs/bigint_arith.py")),
    (
        "comprehensions",
        include_str!("../programs/comprehensions.py"),
    ),
    (
        "dict_wordcount",
        include_str!("../programs/dict_wordcount.py"),
    ),
    (
        "fib_recursive",
        include_str!("../programs/fib_recursive.py"),
    ),
    (
        "generators_pipeline",
        include_str!("../programs/generators_pipeline.py"),
    ),
    ("nbody_float", include_str!("../programs/nbody_float.py")),
    ("nqueens", include_str!("../programs/nqueens.py")),
    (
        "objects_methods",
        include_str!("../programs/objects_methods.py"),
    ),
    ("sort_tuples", include_str!("../programs/sort_tuples.py")),
    (
        "spectral_norm",
        include_str!("../programs/spectral_norm.py"),
    ),
    ("string_build", include_str!("../programs/string_build.py")),
];

/// The goal of issue 15: no operation costs more than 3× ordinary code per cycle.
const GOAL: f64 = 3.0;

/// Issue 15's bound: `--check` fails when a row costs more than this many times the plain
/// loop's ns/cycle, in the first measurement and again in an interleaved one.
const FAIL_BOUND: f64 = 10.0;

/// Alternations of the row and the plain loop that confirm a row over [`FAIL_BOUND`].
const CONFIRM_ROUNDS: usize = 3;

/// One calibration case.
struct Case {
    group: String,
    op: String,
    input: String,
    src: String,
}

/// Split `cases.py` at its `### group | op | input` headers.
fn parse_cases(text: &str) -> Vec<Case> {
    let mut cases: Vec<Case> = Vec::new();
    for line in text.lines() {
        if let Some(h) = line.strip_prefix("### ") {
            let parts: Vec<&str> = h.splitn(3, " | ").collect();
            assert_eq!(parts.len(), 3, "bad case header: {line}");
            cases.push(Case {
                group: parts[0].trim().to_string(),
                op: parts[1].trim().to_string(),
                input: parts[2].trim().to_string(),
                src: String::new(),
            });
        } else if let Some(c) = cases.last_mut() {
            c.src.push_str(line);
            c.src.push('\n');
        }
    }
    cases
}

/// Run `src` under `budget` cycles; the time covers compile and run. Everything runs on the one
/// big-stack thread `main` starts, so the PVM's per-thread cache of its compiled Python stdlib
/// modules is warm after a program's first (probe) run, as on a node's long-lived threads:
/// the table measures execution, not the first compile of `collections.py`.
fn timed_run(src: &str, budget: u64) -> (RunOutcome, Duration) {
    let limits = Limits {
        cycles: Some(budget),
        ..Limits::default()
    };
    let t = Instant::now();
    let o = cowboy_pvm::run(src, "calibrate.py", limits);
    (o, t.elapsed())
}

/// How a program ended: it must run out of cycles (or, for an ordinary program, finish).
fn check_ending(name: &str, o: &RunOutcome, may_finish: bool) {
    match &o.error {
        None if may_finish => {}
        Some(e) if e.last_line().starts_with("OutOfCycles") => {}
        other => panic!(
            "calibration program {name} ended with {:?} instead of running out of cycles",
            other.as_ref().map(|e| e.last_line())
        ),
    }
}

struct Settings {
    target: Duration,
    reps: usize,
}

/// Best-of-`reps` ns/cycle of `src` with a budget sized to run about `target`.
fn measure(name: &str, src: &str, may_finish: bool, s: &Settings) -> (f64, u64) {
    const PROBE: u64 = 200_000;
    let (o, t) = timed_run(src, PROBE);
    check_ending(name, &o, may_finish);
    let per = t.as_secs_f64() / o.cycles.max(1) as f64;
    let budget = ((s.target.as_secs_f64() / per) as u64).clamp(PROBE, 400_000_000);
    let mut best = f64::INFINITY;
    let mut cycles = 0;
    for _ in 0..s.reps {
        let (o, t) = timed_run(src, budget);
        check_ending(name, &o, may_finish);
        let ns = t.as_nanos() as f64 / o.cycles.max(1) as f64;
        if ns < best {
            best = ns;
            cycles = o.cycles;
        }
    }
    (best, cycles)
}

fn main() {
    std::thread::Builder::new()
        .stack_size(256 * 1024 * 1024)
        .spawn(calibrate)
        .expect("spawn")
        .join()
        .expect("calibration thread panicked");
}

fn calibrate() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "--search-worker") {
        return search::worker();
    }
    if args.iter().any(|a| a == "--search") {
        return search::search(&args);
    }
    let value = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1).cloned())
    };
    if let Some(path) = value("--run") {
        let src = std::fs::read_to_string(&path).expect("read the program");
        let budget = value("--budget").map_or(20_000_000, |b| b.parse().expect("a cycle count"));
        let (o, t) = timed_run(&src, budget);
        let end = o
            .error
            .as_ref()
            .map_or("finished".to_string(), |e| e.last_line());
        println!(
            "{path}: {} cycles in {:.3} s ({:.1} ns/cycle), {end}",
            o.cycles,
            t.as_secs_f64(),
            t.as_nanos() as f64 / o.cycles.max(1) as f64
        );
        return;
    }
    let check = args.iter().any(|a| a == "--check");
    let only = args
        .iter()
        .position(|a| a == "--only")
        .and_then(|i| args.get(i + 1).cloned());
    let settings = if check {
        Settings {
            target: Duration::from_millis(25),
            reps: 5,
        }
    } else {
        Settings {
            target: Duration::from_millis(250),
            reps: 3,
        }
    };
    let mut cases = parse_cases(CASES);
    cases.extend(parse_cases(FOUND));
    let plain = cases
        .iter()
        .find(|c| c.op == "loop")
        .expect("the plain loop case");

    // The denominator: ordinary programs and the plain loop, measured in this run.
    let (ordinary, median) = reference(&plain.src, &settings);
    println!("ordinary programs (ns/cycle):");
    for (name, ns) in &ordinary {
        println!("  {name:<22} {ns:7.2}  ({:.2}x median)", ns / median);
    }
    println!("median: {median:.2} ns/cycle\n");

    let plain_ns = ordinary
        .iter()
        .find(|(n, _)| n == "plain loop")
        .map(|(_, ns)| *ns)
        .expect("the plain loop is measured");
    println!("| group | op | worst-case input | ns/cycle | ratio to median | × plain loop |");
    println!("| --- | --- | --- | ---: | ---: | ---: |");
    let mut worst: Option<(f64, String)> = None;
    let mut over = Vec::new();
    let mut failed = Vec::new();
    for c in &cases {
        let label = format!("{} {}", c.group, c.op);
        if only.as_ref().is_some_and(|o| !label.contains(o.as_str())) {
            continue;
        }
        let (ns, _cycles) = measure(&label, &c.src, false, &settings);
        let ratio = ns / median;
        let mark = if ratio > GOAL { " **over**" } else { "" };
        let to_plain = ns / plain_ns;
        // A `|` inside an input (`a | b`) would end its Markdown cell.
        println!(
            "| {} | {} | {} | {ns:.2} | {ratio:.2}{mark} | {to_plain:.2} |",
            c.group,
            c.op,
            c.input.replace('|', "\\|")
        );
        if worst.as_ref().is_none_or(|(r, _)| ratio > *r) {
            worst = Some((ratio, label.clone()));
        }
        if ratio > GOAL {
            over.push(format!("{label}: {ratio:.2}"));
        }
        if check && to_plain > FAIL_BOUND {
            // Confirm, alternating with the plain loop so both see the same load (module doc).
            let (mut row, mut plain_again) = (f64::INFINITY, f64::INFINITY);
            for _ in 0..CONFIRM_ROUNDS {
                row = row.min(measure(&label, &c.src, false, &settings).0);
                plain_again = plain_again.min(measure("loop", &plain.src, false, &settings).0);
            }
            let again = row / plain_again;
            println!("  re-measured, interleaved with the plain loop: {again:.2}x");
            if again > FAIL_BOUND {
                failed.push(format!("{label}: {to_plain:.2}x, then {again:.2}x"));
            }
        }
    }
    if let Some((r, l)) = worst {
        println!("\nworst ratio: {r:.2} ({l}); goal {GOAL}");
    }
    if !over.is_empty() {
        println!("over the goal (reported, not failed): {}", over.join(", "));
    }
    if check && !failed.is_empty() {
        eprintln!(
            "calibration check failed: above {FAIL_BOUND}x the plain loop twice for {}",
            failed.join("; ")
        );
        std::process::exit(1);
    }
}

/// Every ordinary program's best ns/cycle, and their median (the plain loop included).
fn reference(plain_loop: &str, settings: &Settings) -> (Vec<(String, f64)>, f64) {
    let mut ordinary: Vec<(String, f64)> = Vec::new();
    for (name, src) in ORDINARY {
        let (ns, _) = measure(name, src, true, settings);
        ordinary.push((name.to_string(), ns));
    }
    let (ns, _) = measure("loop", plain_loop, false, settings);
    ordinary.push(("plain loop".to_string(), ns));
    let mut sorted: Vec<f64> = ordinary.iter().map(|(_, ns)| *ns).collect();
    sorted.sort_by(f64::total_cmp);
    let median = sorted[sorted.len() / 2];
    (ordinary, median)
}
