//! Cross-process determinism: the same programs run in two child processes with different
//! environments (locale, HOME, TZ, a hash seed variable) must print identical stdout, errors and
//! cycle/instruction counts. The children are this test binary re-executed with
//! `PVM_DET_CHILD=<program>`, so nothing outside the crate is needed.

use crate::common;
use std::process::Command;

const PROGRAMS: &[&str] = &[
    "d = {}\nfor i in range(300):\n    d[str(i)] = i\ns = {str(i) for i in range(100)}\nprint(list(d)[:5], list(s)[:5], hash('abc') == hash('abc'))\n",
    "print(0.1 + 0.2, 1e22, 1/3, 2.5e-7, float('inf'), -0.0, round(2.675, 2), 10**30 / 7)\n",
    "class A:\n    pass\nobjs = {A(): i for i in range(50)}\nprint(sorted(objs.values())[:3], len(objs))\n",
    "x = 0\nwhile True:\n    x += 1\n",
];

/// The libtest name of [`child_entry`]: its module path without the crate name (the module is
/// one of several in the `it` test binary, so the name is `determinism::child_entry`).
fn child_test_name() -> String {
    match module_path!().split_once("::") {
        Some((_, module)) => format!("{module}::child_entry"),
        None => "child_entry".to_string(),
    }
}

fn child_output(i: usize, env: &[(&str, &str)]) -> String {
    let exe = std::env::current_exe().expect("current exe");
    let mut cmd = Command::new(exe);
    let name = child_test_name();
    cmd.args(["--exact", &name, "--nocapture", "--test-threads=1"])
        .env("PVM_DET_CHILD", i.to_string());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("spawn child");
    let s = String::from_utf8_lossy(&out.stdout).to_string();
    // Keep only the child's payload between markers (the test harness adds its own lines).
    s.split("<<<PVM>>>").nth(1).unwrap_or("").to_string()
}

#[test]
fn child_entry() {
    let Ok(i) = std::env::var("PVM_DET_CHILD") else {
        return;
    };
    let i: usize = i.parse().unwrap_or(0);
    let o = common::run_with(
        PROGRAMS[i],
        cowboy_pvm::Limits {
            cycles: Some(100_000),
            ..Default::default()
        },
    );
    print!(
        "<<<PVM>>>{}|{:?}|{}|{}<<<PVM>>>",
        o.stdout,
        o.error.map(|e| e.last_line()),
        o.cycles,
        o.instructions
    );
}

#[test]
fn two_processes_agree() {
    if std::env::var("PVM_DET_CHILD").is_ok() {
        return;
    }
    for i in 0..PROGRAMS.len() {
        let a = child_output(
            i,
            &[
                ("LANG", "C"),
                ("LC_ALL", "C"),
                ("TZ", "UTC"),
                ("PYTHONHASHSEED", "0"),
            ],
        );
        let b = child_output(
            i,
            &[
                ("LANG", "tr_TR.UTF-8"),
                ("LC_ALL", "de_DE.UTF-8"),
                ("TZ", "Asia/Kolkata"),
                ("HOME", "/nonexistent"),
                ("PYTHONHASHSEED", "12345"),
            ],
        );
        assert!(!a.is_empty(), "child produced nothing for program {i}");
        assert_eq!(a, b, "program {i} differs between processes");
    }
}
