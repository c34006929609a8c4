//! The adversarial search of issue 15, item 4: a genetic search for programs that make the PVM
//! work more nanoseconds per cycle than ordinary programs do ("Broken Metre", Perez & Livshits,
//! NDSS 2020, did this for the EVM).
//!
//! A genome is Python source. It is evaluated as the body of
//! `while True: try: <body> except Exception: pass`, so every program repeats until the cycle
//! budget stops it and a mutation that makes it raise still measures what it did before raising.
//! Fitness is its ratio: wall time per cycle, start-up subtracted, over the median ns/cycle of the
//! ordinary programs measured by the same worker (the denominator `calibrate` uses). The
//! population starts from every Python program of the crate's tests and benchmarks (conformance,
//! language, PVM-only, calibration cases, benchmark programs) and evolves by steady-state
//! tournament selection under text mutations that know a little Python: literals replaced by
//! values that stress algorithms (colliding ints, 4,096-bit ints, long runs of tabs), statements
//! repeated, deleted or spliced in from another program, builtins and methods swapped for others.
//!
//! Programs run in a worker process, so a program the budget does not stop (an uncharged loop),
//! a crash or a memory blow-up is a finding rather than a hung or dead search: the worker is
//! killed after [`TIMEOUT`] and replaced. A candidate whose ratio passes [`CONFIRM_AT`] is
//! measured twice more and its best time kept, then shrunk (statements deleted while its ratio
//! holds) and written to the output directory with a report of the worst findings. Findings worth
//! keeping go into `found.py`, which `calibrate` measures as cases of the group `search`.
//!
//! ```text
//! cargo bench -p cowboy-pvm --bench calibrate -- --search --minutes 60 --seed 1 --out target/search
//! ```

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// The cycle budget of one evaluation: about 15 ms of ordinary code.
const BUDGET: u64 = 2_000_000;

/// A run shorter than this many cycles says little about ns/cycle (start-up noise dominates):
/// its fitness is 0.
const MIN_CYCLES: u64 = 200_000;

/// A run still going after this is a finding of its own: about 300x ordinary code for the budget.
const TIMEOUT: Duration = Duration::from_secs(5);

/// A ratio above this is re-measured (and, if it holds, kept as a finding).
const CONFIRM_AT: f64 = 3.0;

/// The largest genome: mutations that grow a program past this are discarded.
const MAX_SOURCE: usize = 32 * 1024;

/// Population size of the steady-state genetic search.
const POPULATION: usize = 64;

/// Peak resident memory above which a program is a finding whatever its ratio (issue 15's bound).
const RSS_BOUND_KB: u64 = 1024 * 1024;

// ---------------------------------------------------------------------------------------------
// The worker: runs programs in a child process, one request at a time.
// ---------------------------------------------------------------------------------------------

/// The worker's side: read `budget len\n<source>` requests from stdin, answer each with one line
/// `cycles nanos peak_rss_kb how-it-ended`. Runs on the caller's (big-stack) thread, so the
/// per-thread cache of compiled stdlib modules stays warm as on a node.
pub fn worker() {
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let mut out = std::io::stdout().lock();
    let mut header = String::new();
    loop {
        header.clear();
        if input.read_line(&mut header).unwrap_or(0) == 0 {
            return;
        }
        let mut parts = header.split_whitespace().map(|p| p.parse::<u64>());
        let (Some(Ok(budget)), Some(Ok(len))) = (parts.next(), parts.next()) else {
            return;
        };
        let mut src = vec![0; len as usize];
        if input.read_exact(&mut src).is_err() {
            return;
        }
        let src = String::from_utf8_lossy(&src);
        reset_peak_rss();
        let (o, t) = super::timed_run(&src, budget);
        let end = o.error.as_ref().map_or("finished".to_string(), |e| {
            let last = e.last_line();
            last.split(':')
                .next()
                .unwrap_or("")
                .trim()
                .replace(' ', "_")
        });
        let _ = writeln!(out, "{} {} {} {end}", o.cycles, t.as_nanos(), peak_rss_kb());
        let _ = out.flush();
    }
}

/// Reset the kernel's peak-RSS mark of this process (Linux `clear_refs` 5), so each answer
/// reports its own program's peak.
fn reset_peak_rss() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

/// `VmHWM` of this process in KiB (0 where `/proc` does not say).
fn peak_rss_kb() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1).and_then(|v| v.parse().ok()))
        })
        .unwrap_or(0)
}

/// What one evaluation measured.
#[derive(Clone, Debug)]
struct Eval {
    cycles: u64,
    nanos: u64,
    rss_kb: u64,
    /// `finished`, `OutOfCycles`, an error's type, `timeout` or `crash`.
    end: String,
}

/// The search's side of a worker process.
struct Worker {
    child: Child,
    stdin: ChildStdin,
    replies: mpsc::Receiver<String>,
}

impl Worker {
    fn spawn() -> Worker {
        let exe = std::env::current_exe().expect("the bench's own path");
        let mut child = Command::new(exe)
            .arg("--search-worker")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start a search worker");
        let stdin = child.stdin.take().expect("worker stdin");
        let stdout = child.stdout.take().expect("worker stdout");
        let (tx, replies) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { return };
                if tx.send(line).is_err() {
                    return;
                }
            }
        });
        Worker {
            child,
            stdin,
            replies,
        }
    }

    /// Run `src` under `budget`; a timeout or a dead worker is an answer too (and a new worker
    /// takes the old one's place).
    fn eval(&mut self, src: &str, budget: u64) -> Eval {
        let sent =
            write!(self.stdin, "{budget} {}\n{src}", src.len()).and_then(|_| self.stdin.flush());
        let reply = match sent {
            Ok(()) => self.replies.recv_timeout(TIMEOUT),
            Err(_) => Err(mpsc::RecvTimeoutError::Disconnected),
        };
        match reply {
            Ok(line) => {
                let f: Vec<&str> = line.split_whitespace().collect();
                let num = |i: usize| f.get(i).and_then(|v| v.parse().ok()).unwrap_or(0);
                Eval {
                    cycles: num(0),
                    nanos: num(1),
                    rss_kb: num(2),
                    end: f.get(3).unwrap_or(&"").to_string(),
                }
            }
            Err(e) => {
                let end = match e {
                    mpsc::RecvTimeoutError::Timeout => "timeout",
                    mpsc::RecvTimeoutError::Disconnected => "crash",
                };
                self.restart();
                Eval {
                    cycles: 0,
                    nanos: TIMEOUT.as_nanos() as u64,
                    rss_kb: 0,
                    end: end.to_string(),
                }
            }
        }
    }

    fn restart(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        *self = Worker::spawn();
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

// ---------------------------------------------------------------------------------------------
// Fitness.
// ---------------------------------------------------------------------------------------------

/// The denominator and the start-up time, measured by the worker that runs the candidates.
struct Scale {
    /// Median ns/cycle of the ordinary programs and the plain loop.
    median: f64,
    /// Wall time of an empty program (start-up), subtracted from every run.
    startup_ns: f64,
    /// The plain loop's ns/cycle when `median` was measured: a confirmation re-measures the
    /// loop beside the candidate and scales the median by the change (load moves both).
    loop_ns: f64,
}

impl Scale {
    fn measure(w: &mut Worker, plain_loop: &str) -> Scale {
        let best = |w: &mut Worker, src: &str, budget: u64| {
            (0..5)
                .map(|_| w.eval(src, budget))
                .min_by_key(|e| e.nanos)
                .expect("five runs")
        };
        // Start-up: an empty program, or the prelude alone when every program builds it.
        let empty = if prelude_on() { PRELUDE } else { "pass\n" };
        let startup_ns = best(w, empty, BUDGET).nanos as f64;
        let per_cycle = |e: Eval| (e.nanos as f64 - startup_ns).max(1.0) / e.cycles.max(1) as f64;
        let mut all: Vec<f64> = super::ORDINARY
            .iter()
            .map(|(_, src)| per_cycle(best(w, src, BUDGET * 5)))
            .collect();
        let loop_ns = per_cycle(best(w, plain_loop, BUDGET * 5));
        all.push(loop_ns);
        all.sort_by(f64::total_cmp);
        Scale {
            median: all[all.len() / 2],
            startup_ns,
            loop_ns,
        }
    }

    /// The ratio of one evaluation: what the search maximises.
    fn ratio(&self, e: &Eval) -> f64 {
        match e.end.as_str() {
            // Still running at the timeout: at least this much over the budget it was given.
            "timeout" => e.nanos as f64 / BUDGET as f64 / self.median,
            _ if e.cycles < MIN_CYCLES => 0.0,
            _ => (e.nanos as f64 - self.startup_ns).max(0.0) / e.cycles as f64 / self.median,
        }
    }
}

/// `--prelude`: every program starts by building [`PRELUDE`]'s structures, and mutations may put
/// their names where a literal or a name stood.
static PRELUDE_ON: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

fn prelude_on() -> bool {
    PRELUDE_ON.load(std::sync::atomic::Ordering::Relaxed)
}

/// Large structures built once before the loop (`--prelude`). Text mutation rarely builds a
/// large structure and then touches it cheaply, because a program that builds one in its loop
/// pays for the building every time; the holes of that shape (an operation that walks or copies
/// an existing structure for one cycle: `s <= t`, `l * 0`, `hash(frozenset)`) were found by
/// reading code. With the structures prebuilt, one mutation can reach them.
const PRELUDE: &str = "_L = list(range(20000))
_T = tuple(_L)
_S = set(_L)
_F = frozenset(_L)
_D = dict.fromkeys(_L)
_STR = 'ab' * 50000
_B = b'ab' * 50000
_BA = bytearray(_B)
_N = [[i] for i in range(2000)]
";

/// The names [`PRELUDE`] binds.
const BIG: &[&str] = &["_L", "_T", "_S", "_F", "_D", "_STR", "_B", "_BA", "_N"];

/// The program a genome runs as: its body repeated until the budget stops it, exceptions
/// swallowed so a body that raises still repeats (after [`PRELUDE`] with `--prelude`).
pub fn harness(body: &str) -> String {
    let mut s = String::new();
    if prelude_on() {
        s.push_str(PRELUDE);
    }
    s.push_str("while True:\n    try:\n");
    let mut any = false;
    for line in body.lines() {
        if line.trim().is_empty() {
            continue;
        }
        s.push_str("        ");
        s.push_str(line);
        s.push('\n');
        any = true;
    }
    if !any {
        s.push_str("        pass\n");
    }
    s.push_str("    except Exception:\n        pass\n");
    s
}

// ---------------------------------------------------------------------------------------------
// Mutation.
// ---------------------------------------------------------------------------------------------

/// xorshift64*: the search is reproducible from its seed (not consensus code; any PRNG does).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
    /// A random element of a possibly empty slice.
    fn choose<T: Copy>(&mut self, items: &[T]) -> Option<T> {
        (!items.is_empty()).then(|| items[self.below(items.len())])
    }
}

/// Integers that make algorithms do their most work: hash collisions (multiples of the modulus
/// 2**61 - 1 hash to 0), big operands for the quadratic and worse big-int algorithms, sizes at
/// the limits of repetition and formatting.
const INTS: &[&str] = &[
    "0",
    "1",
    "2",
    "7",
    "64",
    "255",
    "1000",
    "4096",
    "100000",
    "10**6",
    "(2**61 - 1)",
    "(2**61 - 1) * 12345",
    "(1 << 4096) - 1",
    "3**5000",
    "10**1200",
    "-1",
];

/// Strings that stress str methods, formatting and parsing.
const STRS: &[&str] = &[
    r#"("\t" * 4000)"#,
    r#"("a" * 10000)"#,
    r#"("é" * 2000)"#,
    r#"("{}" * 500)"#,
    r#"("%s" * 500)"#,
    r#"("\n" * 3000)"#,
    r#"("9" * 4000)"#,
    r#"("ab" * 3000 + "c")"#,
    r#"(" " * 5000 + "x")"#,
    r#""""#,
];

/// Names swapped for one another within a group (same kind of callee, different algorithm).
const SWAPS: &[&[&str]] = &[
    &[
        "sorted",
        "list",
        "set",
        "frozenset",
        "tuple",
        "repr",
        "str",
        "hash",
        "len",
        "max",
        "min",
        "sum",
        "any",
        "all",
        "reversed",
        "bytes",
        "bytearray",
        "dict.fromkeys",
        "format",
        "ascii",
        "sorted",
        "enumerate",
    ],
    &[
        "join",
        "split",
        "rsplit",
        "replace",
        "expandtabs",
        "center",
        "ljust",
        "zfill",
        "find",
        "rfind",
        "count",
        "index",
        "upper",
        "casefold",
        "splitlines",
        "partition",
        "strip",
        "startswith",
        "encode",
        "title",
        "swapcase",
    ],
    &[
        "append",
        "extend",
        "insert",
        "remove",
        "pop",
        "sort",
        "reverse",
        "copy",
        "clear",
        "update",
        "add",
        "discard",
        "setdefault",
        "get",
        "keys",
        "values",
        "items",
    ],
    &[
        "gcd",
        "isqrt",
        "factorial",
        "comb",
        "perm",
        "lcm",
        "sqrt",
        "log",
        "pow",
        "prod",
        "fsum",
    ],
    &["+", "*", "//", "%", "**", "<<", ">>", "&", "|", "^", "-"],
];

/// Byte spans of the top-level statements of `src` (a statement with its indented body and
/// continuation lines). Line-based: brackets spanning lines stay inside one statement because a
/// continuation line of a top-level statement is indented or closes the bracket.
fn statements(src: &str) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let mut start: Option<usize> = None;
    let mut pos = 0;
    let mut depth: i32 = 0;
    for line in src.split_inclusive('\n') {
        let t = line.trim_start();
        let top = depth <= 0
            && !line.starts_with([' ', '\t'])
            && !t.is_empty()
            && !t.starts_with('#')
            && !t.starts_with(')')
            && !t.starts_with(']')
            && !t.starts_with('}')
            && !["else", "elif", "except", "finally"]
                .iter()
                .any(|k| t.starts_with(k) && t[k.len()..].starts_with([':', ' ', '(']));
        if top {
            if let Some(s) = start {
                spans.push((s, pos));
            }
            start = Some(pos);
        }
        for c in line.chars() {
            match c {
                '(' | '[' | '{' => depth += 1,
                ')' | ']' | '}' => depth -= 1,
                '#' => break,
                _ => {}
            }
        }
        pos += line.len();
    }
    if let Some(s) = start {
        spans.push((s, pos));
    }
    spans
}

/// Byte spans of integer literals (decimal, not part of a name, float or other number).
fn int_literals(src: &str) -> Vec<(usize, usize)> {
    let b = src.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_digit()
            && (i == 0
                || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_' || b[i - 1] == b'.'))
        {
            let s = i;
            while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'_') {
                i += 1;
            }
            let next = b.get(i).copied().unwrap_or(b' ');
            if !(next.is_ascii_alphabetic() || next == b'.') {
                out.push((s, i));
            }
        } else {
            i += 1;
        }
    }
    out
}

/// Byte spans of one-line string literals (with any prefix), outside comments.
fn str_literals(src: &str) -> Vec<(usize, usize)> {
    let b = src.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'#' => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            q @ (b'"' | b'\'') => {
                if b[i..].starts_with(&[q, q, q]) {
                    // Triple-quoted: skip it whole.
                    let end = src[i + 3..]
                        .find(std::str::from_utf8(&[q, q, q]).unwrap_or("\"\"\""))
                        .map_or(b.len(), |e| i + 3 + e + 3);
                    i = end;
                    continue;
                }
                let mut s = i;
                while s > 0 && b[s - 1].is_ascii_alphabetic() {
                    s -= 1;
                }
                let prefix = &src[s..i];
                let mut j = i + 1;
                while j < b.len() && b[j] != q && b[j] != b'\n' {
                    j += if b[j] == b'\\' { 2 } else { 1 };
                }
                if j < b.len() && b[j] == q && prefix.len() <= 2 && !prefix.contains(['f', 'F']) {
                    out.push((s, j + 1));
                }
                i = j + 1;
            }
            _ => i += 1,
        }
    }
    out
}

/// Indent every line of `text` by `n` spaces.
/// Byte spans of the identifiers of `src` that name a variable: words that are not keywords,
/// not attributes (after a `.`), not keyword arguments and not inside string literals (a rough
/// scan: a wrong guess makes a mutant that fails to compile, which costs one evaluation).
fn identifiers(src: &str) -> Vec<(usize, usize)> {
    const KEYWORDS: &[&str] = &[
        "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class",
        "continue", "def", "del", "elif", "else", "except", "finally", "for", "from", "global",
        "if", "import", "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return",
        "try", "while", "with", "yield", "print", "self",
    ];
    let strings = str_literals(src);
    let b = src.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_alphabetic() || c == b'_' {
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            let word = &src[start..i];
            let after_dot = start > 0 && b[start - 1] == b'.';
            let kwarg = b.get(i) == Some(&b'=') && b.get(i + 1) != Some(&b'=');
            let in_str = strings.iter().any(|&(s0, s1)| s0 <= start && start < s1);
            if !KEYWORDS.contains(&word) && !after_dot && !kwarg && !in_str {
                out.push((start, i));
            }
        } else if c.is_ascii_digit() {
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
        } else {
            i += 1;
        }
    }
    out
}

fn indent(text: &str, n: usize) -> String {
    let pad = " ".repeat(n);
    text.lines()
        .map(|l| format!("{pad}{l}\n"))
        .collect::<String>()
}

/// One mutation of `src`, with a word naming it; `None` when it does not apply.
fn mutate_once(src: &str, donor: &str, rng: &mut Rng) -> Option<(String, &'static str)> {
    let splice =
        |span: (usize, usize), with: &str| format!("{}{}{}", &src[..span.0], with, &src[span.1..]);
    let big = prelude_on() && rng.below(3) == 0;
    match rng.below(if prelude_on() { 10 } else { 9 }) {
        0 | 1 => {
            let lits = int_literals(src);
            let span = rng.choose(&lits)?;
            let value: &str = rng.pick::<&str>(if big { BIG } else { INTS });
            Some((splice(span, value), "int"))
        }
        9 => {
            // A name (not a keyword, not an attribute) replaced by a prebuilt structure.
            let names = identifiers(src);
            let span = rng.choose(&names)?;
            Some((splice(span, rng.pick::<&str>(BIG)), "big"))
        }
        2 => {
            let lits = str_literals(src);
            let span = rng.choose(&lits)?;
            let is_bytes = src[span.0..span.1].starts_with(['b', 'B'])
                || src[span.0..span.1].starts_with("rb")
                || src[span.0..span.1].starts_with("Rb");
            let with = if big {
                rng.pick(&["_STR", "_B", "_BA"]).to_string()
            } else {
                rng.pick(STRS).to_string()
            };
            let with = if is_bytes {
                with.replace('"', "b\"").replace('é', "e")
            } else {
                with
            };
            Some((splice(span, &with), "str"))
        }
        3 => {
            // Repeat one statement.
            let stmts = statements(src);
            let span = rng.choose(&stmts)?;
            let n = rng.pick(&["10", "100", "1000"]);
            let body = indent(&src[span.0..span.1], 4);
            Some((
                splice(span, &format!("for _r in range({n}):\n{body}")),
                "repeat",
            ))
        }
        4 => {
            let stmts = statements(src);
            if stmts.len() < 2 {
                return None;
            }
            let span = *rng.pick(&stmts[..]);
            Some((splice(span, ""), "delete"))
        }
        5 | 6 => {
            // Splice a statement of the donor in before one of ours (or at the end).
            let theirs = statements(donor);
            let t = rng.choose(&theirs)?;
            let ours = statements(src);
            let at = if ours.is_empty() || rng.below(4) == 0 {
                src.len()
            } else {
                rng.pick(&ours[..]).0
            };
            let mut text = donor[t.0..t.1].to_string();
            if !text.ends_with('\n') {
                text.push('\n');
            }
            let mut head = src[..at].to_string();
            if !head.is_empty() && !head.ends_with('\n') {
                head.push('\n');
            }
            Some((format!("{head}{text}{}", &src[at..]), "splice"))
        }
        7 => {
            // Swap a callee or operator for another of its group.
            let group = rng.pick(SWAPS);
            let from = rng.pick(group);
            let to = rng.pick(group);
            let hits: Vec<usize> = src.match_indices(*from).map(|(i, _)| i).collect();
            let at = rng.choose(&hits)?;
            let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
            let alpha = from
                .chars()
                .all(|c| c.is_alphanumeric() || c == '.' || c == '_');
            if alpha
                && (word(src[..at].chars().next_back())
                    || word(src[at + from.len()..].chars().next()))
            {
                return None;
            }
            Some((splice((at, at + from.len()), to), "swap"))
        }
        _ => {
            // Grow a `range(` argument: loops that run longer per statement.
            let hits: Vec<usize> = src.match_indices("range(").map(|(i, _)| i + 6).collect();
            let at = rng.choose(&hits)?;
            Some((splice((at, at), "1000 * "), "grow"))
        }
    }
}

/// One to three mutations; `None` when none applied or the result is too large.
fn mutate(src: &str, donor: &str, rng: &mut Rng) -> Option<(String, String)> {
    let mut out = src.to_string();
    let mut names = Vec::new();
    for _ in 0..1 + rng.below(3) {
        if let Some((s, name)) = mutate_once(&out, donor, rng) {
            out = s;
            names.push(name);
        }
    }
    if names.is_empty() || out.len() > MAX_SOURCE || out == src {
        return None;
    }
    Some((out, names.join("+")))
}

// ---------------------------------------------------------------------------------------------
// The search.
// ---------------------------------------------------------------------------------------------

/// Every Python program of the crate's tests and benchmarks, as seeds.
fn seeds() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in [
        "tests/conformance",
        "tests/lang",
        "tests/pvm_only",
        "benches/programs",
    ] {
        collect_py(&root.join(dir), &mut files);
    }
    files.sort();
    let mut out: Vec<(String, String)> = files
        .iter()
        .filter_map(|p| {
            let src = std::fs::read_to_string(p).ok()?;
            let name = p.strip_prefix(root).unwrap_or(p).display().to_string();
            (src.len() <= MAX_SOURCE).then_some((name, src))
        })
        .collect();
    for c in super::parse_cases(super::CASES) {
        out.push((format!("case {} {}", c.group, c.op), c.src));
    }
    out
}

fn collect_py(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            collect_py(&p, out);
        } else if p.extension().is_some_and(|x| x == "py") {
            out.push(p);
        }
    }
}

/// A member of the population.
#[derive(Clone)]
struct Member {
    src: String,
    ratio: f64,
    /// Where it came from: the seed's name and the mutations since.
    lineage: String,
}

/// A confirmed finding.
struct Finding {
    src: String,
    ratio: f64,
    eval: Eval,
    lineage: String,
}

/// `--search`: run the search until the time is up, then write the findings.
pub fn search(args: &[String]) {
    let value = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1).cloned())
    };
    let minutes: f64 = value("--minutes").map_or(10.0, |m| m.parse().expect("minutes"));
    let seed: u64 = value("--seed").map_or(1, |s| s.parse().expect("a seed"));
    if args.iter().any(|a| a == "--prelude") {
        PRELUDE_ON.store(true, std::sync::atomic::Ordering::Relaxed);
    }
    let out_dir = PathBuf::from(value("--out").unwrap_or_else(|| "target/search".to_string()));
    // The last tenth of the time shrinks the findings.
    let deadline = Instant::now() + Duration::from_secs_f64(minutes * 60.0 * 0.9);
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);

    let plain = super::parse_cases(super::CASES)
        .into_iter()
        .find(|c| c.op == "loop")
        .expect("the plain loop case")
        .src;
    let mut worker = Worker::spawn();
    let mut scale = Scale::measure(&mut worker, &plain);
    let mut rescaled = Instant::now();
    println!(
        "median {:.2} ns/cycle, start-up {:.0} us; {minutes} min, seed {seed}",
        scale.median,
        scale.startup_ns / 1e3
    );

    let seeds = seeds();
    println!("{} seed programs", seeds.len());
    let mut evals = 0u64;
    let mut population: Vec<Member> = Vec::new();
    let mut findings: Vec<Finding> = Vec::new();
    let mut seen: BTreeSet<String> = BTreeSet::new();

    // Initial population: the best of a pass over the seeds (all of them if time allows).
    let mut order: Vec<usize> = (0..seeds.len()).collect();
    for i in (1..order.len()).rev() {
        order.swap(i, rng.below(i + 1));
    }
    let mut scored: Vec<Member> = Vec::new();
    for &i in &order {
        if Instant::now() > deadline {
            break;
        }
        let (name, src) = &seeds[i];
        let e = worker.eval(&harness(src), BUDGET);
        evals += 1;
        let ratio = scale.ratio(&e);
        consider(
            &mut worker,
            &scale,
            &plain,
            src,
            ratio,
            &e,
            name,
            &mut findings,
            &mut seen,
        );
        scored.push(Member {
            src: src.clone(),
            ratio,
            lineage: name.clone(),
        });
    }
    scored.sort_by(|a, b| b.ratio.total_cmp(&a.ratio));
    population.extend(scored.iter().take(POPULATION).cloned());
    println!(
        "seeds measured: best {:.2} ({}), population {}",
        population.first().map_or(0.0, |m| m.ratio),
        population.first().map_or("", |m| m.lineage.as_str()),
        population.len()
    );

    let mut last_report = Instant::now();
    while Instant::now() < deadline && !population.is_empty() {
        let parent = tournament(&population, &mut rng).clone();
        let donor = if rng.below(2) == 0 {
            &seeds[rng.below(seeds.len())].1
        } else {
            &population[rng.below(population.len())].src
        };
        let Some((child, how)) = mutate(&parent.src, donor, &mut rng) else {
            continue;
        };
        let e = worker.eval(&harness(&child), BUDGET);
        evals += 1;
        let ratio = scale.ratio(&e);
        let lineage = short_lineage(&format!("{} > {how}", parent.lineage));
        consider(
            &mut worker,
            &scale,
            &plain,
            &child,
            ratio,
            &e,
            &lineage,
            &mut findings,
            &mut seen,
        );
        // Steady state: the child replaces the weakest member when it is better.
        let (weakest, worst) = population
            .iter()
            .enumerate()
            .min_by(|a, b| a.1.ratio.total_cmp(&b.1.ratio))
            .map(|(i, m)| (i, m.ratio))
            .expect("a population");
        if ratio > worst {
            population[weakest] = Member {
                src: child,
                ratio,
                lineage,
            };
        }
        if last_report.elapsed() > Duration::from_secs(60) {
            last_report = Instant::now();
            let best = population.iter().map(|m| m.ratio).fold(0.0, f64::max);
            let found = findings.iter().map(|f| f.ratio).fold(0.0, f64::max);
            println!("{evals} evaluations; population best {best:.2}; worst finding {found:.2}");
            // Unshrunk findings so far: a search cut short still leaves what it found.
            write_report(&out_dir, &findings, evals, minutes, seed, &scale, false);
        }
        if rescaled.elapsed() > Duration::from_secs(600) {
            scale = Scale::measure(&mut worker, &plain);
            rescaled = Instant::now();
        }
    }
    for f in findings.iter_mut().take(10) {
        let broken = matches!(f.eval.end.as_str(), "timeout" | "crash");
        f.src = shrink(&mut worker, &scale, &f.src, f.ratio.min(50.0) * 0.7, broken);
    }
    write_report(&out_dir, &findings, evals, minutes, seed, &scale, true);
}

/// A lineage kept readable: the seed's name and its last twelve mutation steps.
fn short_lineage(lineage: &str) -> String {
    let steps: Vec<&str> = lineage.split(" > ").collect();
    if steps.len() <= 13 {
        return lineage.to_string();
    }
    format!(
        "{} > … > {}",
        steps[0],
        steps[steps.len() - 12..].join(" > ")
    )
}

/// Tournament of three: the best of three random members.
fn tournament<'a>(population: &'a [Member], rng: &mut Rng) -> &'a Member {
    (0..3)
        .map(|_| &population[rng.below(population.len())])
        .max_by(|a, b| a.ratio.total_cmp(&b.ratio))
        .expect("three")
}

/// How many findings the search keeps (the worst ones).
const KEEP: usize = 24;

/// Confirm a promising candidate and keep it among the worst [`KEEP`]: measured twice more
/// alternately with the plain loop, its best time is taken against the median scaled by how
/// the loop's time moved since the median was measured (so a burst of load on the machine
/// does not make a finding).
#[allow(clippy::too_many_arguments)]
fn consider(
    worker: &mut Worker,
    scale: &Scale,
    plain_loop: &str,
    src: &str,
    ratio: f64,
    e: &Eval,
    lineage: &str,
    findings: &mut Vec<Finding>,
    seen: &mut BTreeSet<String>,
) {
    let memory = e.rss_kb > RSS_BOUND_KB;
    let broken = matches!(e.end.as_str(), "timeout" | "crash");
    let bar = if findings.len() >= KEEP {
        findings
            .iter()
            .map(|f| f.ratio)
            .fold(f64::INFINITY, f64::min)
    } else {
        CONFIRM_AT
    };
    if ratio <= bar && !memory && !broken {
        return;
    }
    if !seen.insert(src.to_string()) {
        return;
    }
    let (mut best, mut best_ratio) = (e.clone(), ratio);
    if !broken {
        let program = harness(src);
        let mut loop_best = f64::INFINITY;
        let mut cand_best = f64::INFINITY;
        for _ in 0..3 {
            let l = worker.eval(plain_loop, BUDGET);
            loop_best = loop_best.min(l.nanos as f64 / l.cycles.max(1) as f64);
            let again = worker.eval(&program, BUDGET);
            if again.cycles >= MIN_CYCLES {
                let ns = (again.nanos as f64 - scale.startup_ns).max(0.0) / again.cycles as f64;
                if ns < cand_best {
                    cand_best = ns;
                    best = again;
                }
            }
        }
        let local_median = scale.median * (loop_best / scale.loop_ns);
        best_ratio = if cand_best.is_finite() {
            cand_best / local_median
        } else {
            0.0
        };
        if best_ratio <= bar && best.rss_kb <= RSS_BOUND_KB {
            return;
        }
    }
    println!(
        "finding: ratio {best_ratio:.2}, {} cycles, {} KiB peak, ended {} ({lineage})",
        best.cycles, best.rss_kb, best.end
    );
    findings.push(Finding {
        src: src.to_string(),
        ratio: best_ratio,
        eval: best,
        lineage: lineage.to_string(),
    });
    findings.sort_by(|a, b| b.ratio.total_cmp(&a.ratio));
    // Keep the worst KEEP, and every timeout, crash or memory finding.
    let mut kept = 0;
    findings.retain(|f| {
        let special =
            f.eval.rss_kb > RSS_BOUND_KB || matches!(f.eval.end.as_str(), "timeout" | "crash");
        kept += 1;
        special || kept <= KEEP
    });
}

/// Delete statements while the program keeps its ratio above `keep` (or keeps breaking the
/// worker, for a timeout or crash): findings are read by people.
fn shrink(worker: &mut Worker, scale: &Scale, src: &str, keep: f64, broken: bool) -> String {
    let mut cur = src.to_string();
    let mut i = 0;
    loop {
        let stmts = statements(&cur);
        if i >= stmts.len() || stmts.len() < 2 {
            return cur;
        }
        let (s, e) = stmts[i];
        let cand = format!("{}{}", &cur[..s], &cur[e..]);
        let ev = worker.eval(&harness(&cand), BUDGET);
        let holds = if broken {
            matches!(ev.end.as_str(), "timeout" | "crash")
        } else {
            scale.ratio(&ev) > keep
        };
        if holds {
            cur = cand;
        } else {
            i += 1;
        }
    }
}

fn write_report(
    dir: &Path,
    findings: &[Finding],
    evals: u64,
    minutes: f64,
    seed: u64,
    scale: &Scale,
    print: bool,
) {
    std::fs::create_dir_all(dir).expect("create the output directory");
    let mut order: Vec<&Finding> = findings.iter().collect();
    order.sort_by(|a, b| b.ratio.total_cmp(&a.ratio));
    let mut report = format!(
        "# Adversarial search: {evals} evaluations in {minutes} min, seed {seed}\n\n\
         median {:.2} ns/cycle; budget {BUDGET} cycles; {} findings over {CONFIRM_AT}\n\n\
         | # | ratio | cycles | peak KiB | ended | lineage |\n| ---: | ---: | ---: | ---: | --- | --- |\n",
        scale.median,
        order.len()
    );
    for (n, f) in order.iter().enumerate() {
        let file = dir.join(format!("finding-{n:03}.py"));
        let text = format!(
            "# ratio {:.2} ({} cycles, {} KiB peak, ended {}); lineage: {}\n{}",
            f.ratio,
            f.eval.cycles,
            f.eval.rss_kb,
            f.eval.end,
            f.lineage,
            harness(&f.src)
        );
        std::fs::write(&file, text).expect("write a finding");
        report.push_str(&format!(
            "| {n} | {:.2} | {} | {} | {} | {} |\n",
            f.ratio,
            f.eval.cycles,
            f.eval.rss_kb,
            f.eval.end,
            f.lineage.replace('|', "/")
        ));
    }
    std::fs::write(dir.join("report.md"), &report).expect("write the report");
    if print {
        println!("\n{report}");
        println!("findings written to {}", dir.display());
    }
}
