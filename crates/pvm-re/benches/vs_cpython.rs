//! Benchmark: this engine against CPython 3.11's `re` (the real peer, run in
//! the same invocation through `python3`) on the same subjects, printing a
//! table of microseconds per operation and our metered step counts.
//! Run: `cargo bench -p cowboy-pvm-re --bench vs_cpython`.

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::Instant;

use cowboy_pvm_re::ops::{findall, split, subn};
use cowboy_pvm_re::{str_units, Budget, Limits, Regex};

/// A deterministic ~100 KB subject: words, numbers, e-mail addresses.
fn subject() -> String {
    let words = [
        "alpha", "beta", "gamma", "delta", "hello", "world", "mail", "x",
    ];
    let mut s = String::new();
    let mut i: u64 = 7;
    while s.len() < 100_000 {
        i = i
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let w = words[(i >> 33) as usize % words.len()];
        match (i >> 40) % 10 {
            0 => s.push_str(&format!("{w}@{w}.com , ")),
            1 => s.push_str(&format!("{} ,", (i >> 20) % 1000)),
            _ => {
                s.push_str(w);
                s.push(' ');
            }
        }
    }
    s.push_str("555-1234");
    s
}

struct Work {
    name: &'static str,
    pattern: &'static str,
    op: &'static str,
    repl: &'static str,
}

const WORK: &[Work] = &[
    Work {
        name: "search \\d{3}-\\d{4} (at end)",
        pattern: r"\d{3}-\d{4}",
        op: "search",
        repl: "",
    },
    Work {
        name: "findall \\w+",
        pattern: r"\w+",
        op: "findall",
        repl: "",
    },
    Work {
        name: "sub e-mail template",
        pattern: r"(\w+)@(\w+)\.com",
        op: "sub",
        repl: r"\2 at \1",
    },
    Work {
        name: "split \\s*,\\s*",
        pattern: r"\s*,\s*",
        op: "split",
        repl: "",
    },
    Work {
        name: "search (?i)HELLO WORLD",
        pattern: r"(?i)hello\s+world",
        op: "search",
        repl: "",
    },
];

fn ours(w: &Work, text: &[u32], iters: u32) -> (f64, u64) {
    let limits = Limits {
        max_memory: 1 << 30,
        max_program: 100_000,
    };
    let re =
        Regex::compile_str(w.pattern, 0, &mut Budget::new(u64::MAX), &limits).expect("compiles");
    let repl = str_units(w.repl);
    let mut steps = 0;
    let start = Instant::now();
    for _ in 0..iters {
        let mut b = Budget::new(u64::MAX);
        match w.op {
            "search" => drop(
                re.search(text, 0, text.len(), &mut b, &limits)
                    .expect("runs"),
            ),
            "findall" => drop(findall(&re, text, 0, text.len(), &mut b, &limits).expect("runs")),
            "sub" => drop(subn(&re, &repl, text, 0, &mut b, &limits).expect("runs")),
            _ => drop(split(&re, text, 0, &mut b, &limits).expect("runs")),
        }
        steps = b.charged;
    }
    (
        start.elapsed().as_secs_f64() * 1e6 / f64::from(iters),
        steps,
    )
}

fn cpython(w: &Work, text: &str, iters: u32) -> Option<f64> {
    let script = format!(
        "import re,sys,timeit\ns=sys.stdin.read()\np=re.compile({:?})\nf={{'search':lambda:p.search(s),'findall':lambda:p.findall(s),'sub':lambda:p.sub({:?},s),'split':lambda:p.split(s)}}[{:?}]\nprint(timeit.timeit(f,number={iters})*1e6/{iters})",
        w.pattern, w.repl, w.op
    );
    let mut child = Command::new("python3")
        .arg("-c")
        .arg(script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .ok()?;
    child.stdin.take()?.write_all(text.as_bytes()).ok()?;
    let out = child.wait_with_output().ok()?;
    String::from_utf8_lossy(&out.stdout).trim().parse().ok()
}

fn main() {
    let text = subject();
    let units = str_units(&text);
    let iters = 20;
    println!("subject: {} chars, {iters} iterations each", units.len());
    println!(
        "{:<34} {:>12} {:>12} {:>8} {:>12}",
        "workload", "ours µs/op", "CPython µs", "ratio", "our steps"
    );
    for w in WORK {
        let (us, steps) = ours(w, &units, iters);
        match cpython(w, &text, iters) {
            Some(py) => println!(
                "{:<34} {:>12.1} {:>12.1} {:>8.2} {:>12}",
                w.name,
                us,
                py,
                us / py,
                steps
            ),
            None => println!(
                "{:<34} {:>12.1} {:>12} {:>8} {:>12}",
                w.name, us, "n/a", "", steps
            ),
        }
    }
}
