//! `cowboy pvm run` end to end: stdout, CPython-style tracebacks on stderr, exit status, the
//! `--cycles`/`--max-depth`/`--memory`/`--stats` flags.

use std::process::Command;

fn run(src: &str, args: &[&str]) -> (i32, String, String) {
    let dir = std::env::temp_dir().join(format!("cowboy-cli-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("tmp dir");
    // A file per call: tests run in parallel, and two programs may have the same length.
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let file = dir.join(format!("p{n}.py"));
    std::fs::write(&file, src).expect("write program");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_cowboy"));
    cmd.args(["pvm", "run"]).args(args).arg(&file);
    let out = cmd.output().expect("run cowboy");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).to_string(),
        String::from_utf8_lossy(&out.stderr).to_string(),
    )
}

#[test]
fn hello_example_runs() {
    let src = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/hello.py"
    ))
    .expect("example");
    let (code, out, _) = run(&src, &[]);
    assert_eq!(code, 0);
    assert_eq!(out, "Howdy, world!\n285\n");
}

#[test]
fn uncaught_exception_prints_traceback_and_exits_1() {
    let (code, out, err) = run("def f():\n    return 1 / 0\nprint('before')\nf()\n", &[]);
    assert_eq!(code, 1);
    assert_eq!(out, "before\n");
    assert!(
        err.starts_with("Traceback (most recent call last):\n"),
        "{err}"
    );
    assert!(
        err.contains(", line 4, in <module>") && err.contains(", line 2, in f"),
        "{err}"
    );
    assert_eq!(
        err.trim_end().lines().last(),
        Some("ZeroDivisionError: division by zero")
    );
}

#[test]
fn compile_errors_name_file_and_line() {
    let (code, _, err) = run("x = 1\nprint(eval('x'))\n", &[]);
    assert_eq!(code, 1);
    assert!(err.contains("line 2"), "{err}");
    assert!(
        err.trim_end()
            .ends_with("CompileError: call to 'eval' is not allowed in the PVM"),
        "{err}"
    );
    let (code, _, err) = run("def (:\n", &[]);
    assert_eq!(code, 1);
    assert!(
        err.trim_end()
            .lines()
            .last()
            .unwrap_or("")
            .starts_with("SyntaxError:"),
        "{err}"
    );
}

#[test]
fn limits_flags_and_stats() {
    let (code, _, err) = run("while True:\n    pass\n", &["--cycles", "1000"]);
    assert_eq!(code, 1);
    assert!(
        err.trim_end()
            .ends_with("OutOfCycles: cycle budget exhausted"),
        "{err}"
    );
    let (code, _, err) = run(
        "def f(n):\n    return f(n + 1)\nf(0)\n",
        &["--max-depth", "10"],
    );
    assert_eq!(code, 1);
    assert!(
        err.trim_end()
            .ends_with("RecursionError: maximum recursion depth exceeded"),
        "{err}"
    );
    let (code, _, err) = run("x = [0] * 1000000\n", &["--memory", "100000"]);
    assert_eq!(code, 1);
    assert!(
        err.trim_end()
            .lines()
            .last()
            .unwrap_or("")
            .starts_with("MemoryError"),
        "{err}"
    );
    let (code, out, err) = run("print(sum(range(10)))\n", &["--stats"]);
    assert_eq!((code, out.as_str()), (0, "45\n"));
    assert!(
        err.contains("cycles: ") && err.contains("peak memory: ") && err.contains("instructions: "),
        "{err}"
    );
}

#[test]
fn deep_max_depth_runs_on_a_big_stack() {
    let (code, out, err) = run(
        "def f(n):\n    return 0 if n == 0 else 1 + f(n - 1)\nprint(f(900))\n",
        &["--max-depth", "1000"],
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "900\n");
}

#[test]
fn json_reports_output_error_and_counts() {
    let (code, out, _) = run("print('hi')\n1 / 0\n", &["--json"]);
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(&out).expect("one JSON document");
    assert_eq!(v["stdout"], "hi\n");
    assert!(v["error"]
        .as_str()
        .expect("the traceback")
        .ends_with("ZeroDivisionError: division by zero"));
    assert!(v["cycles"].as_u64().expect("cycles") > 0);
}
