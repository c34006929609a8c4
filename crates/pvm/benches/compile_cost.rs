//! Compile cost against its charge (issue 15): for worst-case source shapes near the largest
//! transaction, the wall time of a load (pre-scan, parse, scope analysis, code generation)
//! per cycle charged for it, against the ns per cycle of a plain `while True: i += 1` loop
//! measured in the same run. (Peak memory: run a shape through the release CLI under
//! `/usr/bin/time -f %M`; README "Compilation is metered".)
//!
//! `cargo bench -p cowboy-pvm --bench compile_cost` (add `-- --quick` for one round). The
//! table goes in the README ("Compilation is metered"); a ratio above 3 means a shape is
//! underpriced.

use std::time::Instant;

use cowboy_pvm::{compiler, cost, Limits};

/// The node's allocator (allocation is much of compilation's time).
#[global_allocator]
static GLOBAL: std::alloc::System = std::alloc::System;
// mimalloc, as `malloc` (its `override` feature: see the cli crate's Cargo.toml).
use mimalloc as _;

const MAX: usize = 128 * 1024 - 256;

/// `unit` repeated to fill a transaction.
fn fill(unit: &str) -> String {
    unit.repeat(MAX / unit.len())
}

fn nest(n: usize, f: impl Fn(String) -> String, leaf: &str) -> String {
    let mut s = leaf.to_string();
    for _ in 0..n {
        s = f(s);
    }
    s
}

fn shapes() -> Vec<(&'static str, String)> {
    let scopes = compiler::scope::MAX_SCOPE_DEPTH as usize;
    let expr = compiler::prescan::MAX_EXPR_DEPTH as usize - 2;
    let lambdas = format!("f = {}1\n", "lambda: ".repeat(scopes));
    let lambdas_args = format!(
        "f = {}{}\n",
        (0..scopes)
            .map(|i| format!("lambda a{i}: "))
            .collect::<String>(),
        (0..scopes)
            .map(|i| format!("a{i}"))
            .collect::<Vec<_>>()
            .join("+")
    );
    let comps = format!(
        "y = {}\n",
        nest(scopes.min(199), |s| format!("[{s} for x in y]"), "x")
    );
    let mut defs = String::new();
    for i in 0..scopes {
        defs.push_str(&format!("{}def f{i}(a{i}):\n", " ".repeat(i)));
    }
    defs.push_str(&format!(
        "{}return {}\n",
        " ".repeat(scopes),
        (0..scopes)
            .map(|i| format!("a{i}"))
            .collect::<Vec<_>>()
            .join("+")
    ));
    let mut finally = String::new();
    for i in 0..3 {
        finally.push_str(&format!("{0}try:\n{0} pass\n{0}finally:\n", " ".repeat(i)));
    }
    finally.push_str("   x = 1\n");
    let mut blocks = String::new();
    for i in 0..20 {
        blocks.push_str(&format!("{}for x{i} in y:\n", " ".repeat(i)));
    }
    blocks.push_str(&format!("{}pass\n", " ".repeat(20)));
    vec![
        ("flat assignments", fill("x = -1\n")),
        ("small functions", fill("def f(a, b):\n    return a + b\n")),
        ("class with methods", {
            let mut s = "class C:\n".to_string();
            s.push_str(&fill("    def m(self, a):\n        self.x = a\n"));
            s
        }),
        (
            "long string literal",
            format!("x = '{}'\n", "a".repeat(MAX)),
        ),
        (
            "long identifiers",
            fill(&format!("{} = 1\n", "a".repeat(200))),
        ),
        (
            "one long list",
            format!("x = [{}]\n", "-1, ".repeat(MAX / 4)),
        ),
        ("lambdas at the scope limit", fill(&lambdas)),
        ("lambdas with free vars", fill(&lambdas_args)),
        ("comprehensions at the scope limit", fill(&comps)),
        ("defs at the scope limit, free vars", fill(&defs)),
        (
            "parens at the limit",
            fill(&format!("x = {}1{}\n", "(".repeat(200), ")".repeat(200))),
        ),
        (
            "unary chain at the limit",
            fill(&format!("x = {}1\n", "-".repeat(expr))),
        ),
        (
            "sum chain at the limit",
            fill(&format!("x = 1{}\n", "+1".repeat(expr / 2))),
        ),
        (
            "call chain at the limit",
            fill(&format!("x = f{}\n", "()".repeat(expr / 2))),
        ),
        (
            "attribute chain",
            fill(&format!("x = a{}\n", ".b".repeat(expr / 2))),
        ),
        (
            "conditional chain",
            fill(&format!("x = {}1\n", "1 if x else ".repeat(expr / 3))),
        ),
        (
            "nested f-strings",
            fill(&format!(
                "x = f'{}1{}'\n",
                "{f'".repeat(100),
                "'}".repeat(100)
            )),
        ),
        ("try/finally 3 deep in finally", fill(&finally)),
        ("20 nested for blocks", fill(&blocks)),
        ("dict literal", format!("x = {{{}}}\n", fill("1: 'a', "))),
        (
            "syntax error at the end",
            format!("{}x = (\n", fill("x = -1\n")),
        ),
    ]
}

/// Best wall time of `rounds` runs of `f`, in ns.
fn best(rounds: usize, mut f: impl FnMut()) -> f64 {
    (0..rounds)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_nanos() as f64
        })
        .fold(f64::INFINITY, f64::min)
}

fn main() {
    let rounds = if std::env::args().any(|a| a == "--quick") {
        1
    } else {
        5
    };
    cowboy_pvm::actor::with_vm_stack(|| {
        let budget = 20_000_000u64;
        let limits = Limits {
            cycles: Some(budget),
            ..Limits::default()
        };
        let loop_ns = best(rounds, || {
            let o = cowboy_pvm::run("i = 0\nwhile True:\n    i += 1\n", "loop.py", limits);
            assert!(o.error.is_some());
        }) / budget as f64;
        println!("plain loop: {loop_ns:.2} ns/cycle ({budget} cycles)\n");
        println!(
            "| shape | bytes | tokens | cycles charged | compile ms | ns/cycle | ratio | result |"
        );
        println!("|---|---|---|---|---|---|---|---|");
        let mut worst = 0f64;
        for (name, src) in shapes() {
            let (tokens, price) = compiler::check(&src, "s.py")
                .map(|c| (c.tokens(), c.price()))
                .unwrap_or((0, 0));
            let cycles = cost::load_bytes(src.len()) + price;
            let mut result = String::new();
            let ns = best(rounds, || {
                result = match compiler::compile_module(&src, "s.py") {
                    Ok(_) => "ok".into(),
                    Err(e) => format!("{}: {}", e.kind, e.msg.chars().take(40).collect::<String>()),
                };
            });
            let per_cycle = ns / cycles as f64;
            let ratio = per_cycle / loop_ns;
            worst = worst.max(ratio);
            println!(
                "| {name} | {} | {tokens} | {cycles} | {:.2} | {per_cycle:.2} | {ratio:.2} | {result} |",
                src.len(),
                ns / 1e6,
            );
        }
        println!("\nworst ratio: {worst:.2}");
    });
}
