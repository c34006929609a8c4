//! `cowboy actor test` end to end: the real binary deploys the example actors into its
//! in-process chain and runs calls, views and empty blocks; no node is started.

use crate::support::{cowboy, run, Run};

fn example(name: &str) -> String {
    format!(
        "{}/../../examples/actors/{name}",
        env!("CARGO_MANIFEST_DIR")
    )
}

/// The 1-based number of the first line of `file` containing `needle`.
fn line_of(file: &str, needle: &str) -> usize {
    let src = std::fs::read_to_string(file).expect("example");
    src.lines()
        .position(|l| l.contains(needle))
        .map(|i| i + 1)
        .unwrap_or_else(|| panic!("{needle:?} not in {file}"))
}

fn actor_test(args: &[&str]) -> Run {
    let home = tempfile::tempdir().expect("home");
    let mut c = cowboy(home.path());
    c.args(["actor", "test"]).args(args);
    run(c)
}

fn json(r: &Run) -> serde_json::Value {
    serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("{e}: {}", r.stdout))
}

fn dev(i: u32) -> String {
    cowboy_types::dev_key(i).address().to_checksum()
}

#[test]
fn token_transfer_between_dev_accounts() {
    let token = example("token.py");
    let r = actor_test(&[
        &token,
        "--args",
        r#"["Tok", 100000000000000000000]"#,
        "--call",
        "transfer(dev1, 5)",
        "--view",
        "balance_of(dev1)",
        // The recipient typed in lowercase is the same holder (issue 19, item 1).
        "--call",
        "transfer",
        "--args",
        &format!(r#"["{}", 2]"#, dev(2).to_lowercase()),
        "--from",
        "dev1",
        "--view",
        "balance_of(holder=dev2)",
        "--view",
        "balance_of(dev0)",
    ]);
    let out = r.ok();
    let lines: Vec<&str> = out.lines().collect();
    assert!(
        lines[0].starts_with(&format!("deploy {token} from dev0 → 0x"))
            && lines[0].ends_with("(block 1)"),
        "{out}"
    );
    assert!(out.contains("call transfer(dev1, 5) from dev0 (block 2)\n  → true\n  event Transfer "));
    assert!(
        out.contains("view balance_of(dev1) from dev0\n  → 5\n"),
        "{out}"
    );
    assert!(
        out.contains("call transfer from dev1 (block 3)\n  → true\n"),
        "{out}"
    );
    assert!(
        out.contains("view balance_of(holder=dev2) from dev0\n  → 2\n"),
        "{out}"
    );
    // 10^20 - 5 is beyond 2^53: printed exact, as a decimal string.
    assert!(
        out.contains("view balance_of(dev0) from dev0\n  → \"99999999999999999995\"\n"),
        "{out}"
    );
    assert!(
        out.contains("  cycles ") && out.contains(" fee 0.0"),
        "{out}"
    );
}

#[test]
fn json_receipts_carry_events_usage_and_fees() {
    let r = actor_test(&[
        "--json",
        &example("token.py"),
        "--args",
        r#"["Tok", 1000]"#,
        "--call",
        "transfer(dev3, 7)",
    ]);
    let v = json(&r);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(v["chainId"], 1337);
    assert_eq!(v["height"], 2);
    assert_eq!(v["accounts"][3]["address"], dev(3));
    let steps = v["steps"].as_array().expect("steps");
    assert_eq!(steps.len(), 2);
    let deploy = &steps[0];
    assert_eq!(deploy["kind"], "deploy");
    assert_eq!(deploy["success"], true);
    assert_eq!(deploy["contractAddress"], v["actor"]);
    assert_eq!(deploy["from"], dev(0));
    let call = &steps[1];
    assert_eq!(
        (&call["kind"], &call["handler"], &call["blockHeight"]),
        (&"call".into(), &"transfer".into(), &2.into())
    );
    assert_eq!(call["returnValue"], true);
    let ev = &call["events"][0];
    assert_eq!(ev["topic"], "Transfer");
    assert_eq!(ev["emitter"], v["actor"]);
    assert_eq!(ev["dataValue"]["amount"], 7);
    assert_eq!(ev["dataValue"]["from"], dev(0));
    assert_eq!(ev["dataValue"]["to"], dev(3));
    for s in steps {
        assert!(s["cyclesUsed"].as_u64().expect("cycles") > 0);
        assert!(s["cellsUsed"].as_u64().expect("cells") > 0);
        let fee: u128 = s["feePaid"].as_str().expect("fee").parse().expect("wei");
        assert!(fee > 0, "{s}");
        assert_eq!(s["transactionHash"].as_str().map(str::len), Some(66));
    }
}

#[test]
fn a_failing_call_prints_its_traceback_with_the_local_line() {
    let token = example("token.py");
    let line = line_of(&token, "raise ValueError(f\"insufficient balance");
    let r = actor_test(&[
        &token,
        "--args",
        r#"["Tok", 1000]"#,
        "--call",
        "transfer(dev0, 10)",
        "--from",
        "1",
        "--call",
        "transfer(dev1, 1)",
    ]);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    let expected = format!(
        "call transfer(dev0, 10) from dev1 (block 2): failed\n  Traceback (most recent call \
         last):\n    File \"{token}\", line {line}, in transfer\n      raise \
         ValueError(f\"insufficient balance: {{have}} < {{amount}}\")\n  ValueError: \
         insufficient balance: 0 < 10\n  cycles "
    );
    assert!(r.stdout.contains(&expected), "{}", r.stdout);
    // The failure was mined (its fee paid); the steps after it did not run.
    assert!(r.stdout.contains(" fee 0.0"), "{}", r.stdout);
    assert!(!r.stdout.contains("transfer(dev1, 1)"), "{}", r.stdout);
    assert!(r.stderr.contains("1 step failed"), "{}", r.stderr);

    let json = json(&actor_test(&[
        "--json",
        &token,
        "--args",
        r#"["Tok", 1000]"#,
        "--call",
        "transfer(dev0, 10)",
        "--from",
        "1",
    ]));
    let err = &json["steps"][1];
    assert_eq!(err["success"], false);
    assert_eq!(err["error"]["class"], "ValueError");
    assert_eq!(err["error"]["line"], line);
    assert!(err["traceback"]
        .as_str()
        .expect("traceback")
        .contains(&format!("line {line}, in transfer")));
}

#[test]
fn a_failure_in_a_helper_names_the_helper() {
    let dir = tempfile::tempdir().expect("dir");
    let file = dir.path().join("deep.py");
    std::fs::write(
        &file,
        "from cowboy_sdk import actor\n\n\ndef helper(x):\n    return 1 // x\n\n\n@actor\n\
         class D:\n    def go(self, x):\n        return helper(x)\n",
    )
    .expect("write");
    let file = file.display().to_string();
    let r = actor_test(&[&file, "--call", "go(0)"]);
    assert_eq!(r.code, 1);
    assert!(
        r.stdout.contains(&format!(
            "    File \"{file}\", line 5, in helper\n      return 1 // x\n  ZeroDivisionError: "
        )),
        "{}",
        r.stdout
    );
}

#[test]
fn a_file_that_does_not_compile_shows_the_line() {
    let dir = tempfile::tempdir().expect("dir");
    for (src, line, text, error) in [
        ("x = 1\ndef (:\n", 2, "def (:", "SyntaxError: "),
        (
            "from cowboy_sdk import actor\n\n\n@actor\nclass A:\n    def f(self):\n        \
             return eval('1')\n",
            7,
            "return eval('1')",
            "CompileError: call to 'eval' is not allowed in the PVM",
        ),
    ] {
        let file = dir.path().join(format!("bad{line}.py"));
        std::fs::write(&file, src).expect("write");
        let file = file.display().to_string();
        let r = actor_test(&[&file]);
        assert_eq!(r.code, 1);
        let expected = format!(
            "deploy {file} from dev0 (block 1): failed\n    File \"{file}\", line {line}\n      \
             {text}\n  {error}"
        );
        assert!(r.stdout.contains(&expected), "{}", r.stdout);
    }
}

#[test]
fn keep_going_runs_the_steps_after_a_failure() {
    let r = actor_test(&[
        &example("counter.py"),
        "--call",
        "increment('x')",
        "--call",
        "increment(2)",
        "--keep-going",
        "--view",
        "get",
    ]);
    assert_eq!(r.code, 1);
    assert!(
        r.stdout
            .contains("call increment('x') from dev0 (block 2): failed"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("  TypeError: "), "{}", r.stdout);
    assert!(
        r.stdout
            .contains("call increment(2) from dev0 (block 3)\n  → 2\n"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("view get from dev0\n  → 2\n"),
        "{}",
        r.stdout
    );
}

#[test]
fn a_failing_deploy_stops_with_the_init_traceback() {
    let dir = tempfile::tempdir().expect("dir");
    let file = dir.path().join("picky.py");
    std::fs::write(
        &file,
        "from cowboy_sdk import actor\n\n\n@actor\nclass Picky:\n    def __init__(self, n):\n        \
         if n < 0:\n            raise ValueError('n must not be negative')\n        \
         self.storage['n'] = n\n\n    def get(self):\n        return self.storage['n']\n",
    )
    .expect("write");
    let file = file.display().to_string();
    let r = actor_test(&[&file, "--args", "[-1]", "--call", "get"]);
    assert_eq!(r.code, 1);
    assert!(
        r.stdout.contains(&format!(
            "deploy {file} from dev0 (block 1): failed\n  Traceback (most recent call last):\n    \
             File \"{file}\", line 8, in __init__\n      raise ValueError('n must not be \
             negative')\n  ValueError: n must not be negative\n"
        )),
        "{}",
        r.stdout
    );
    assert!(!r.stdout.contains("call get"), "{}", r.stdout);
    let r = actor_test(&[&example("token.py")]);
    assert_eq!(r.code, 1);
    assert!(
        r.stdout
            .contains("TypeError: Token.__init__() missing 2 required positional arguments"),
        "{}",
        r.stdout
    );
}

#[test]
fn value_and_mined_blocks_run_timers() {
    // A heartbeat beats every 2 blocks, paid from the value its deploy sends.
    let r = actor_test(&[
        "--json",
        &example("heartbeat.py"),
        "--args",
        "[2]",
        "--value",
        "1cby",
        "--mine",
        "4",
        "--view",
        "status()",
        "--call",
        "fund",
        "--value",
        "20gwei",
    ]);
    let v = json(&r);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let steps = v["steps"].as_array().expect("steps");
    let beats: Vec<_> = steps.iter().filter(|s| s["kind"] == "timer").collect();
    assert_eq!(beats.len(), 2, "{steps:?}");
    assert_eq!(beats[0]["handler"], "beat");
    assert_eq!(beats[0]["events"][0]["dataValue"]["n"], 1);
    assert_eq!(beats[1]["blockHeight"], 5);
    let status = steps.iter().find(|s| s["kind"] == "view").expect("view");
    assert_eq!(status["returnValue"]["beats"], 2);
    let fund = steps.last().expect("fund");
    assert_eq!(fund["value"], "20000000000");
    assert_eq!(fund["blockHeight"], 6);
}

#[test]
fn runs_are_deterministic() {
    let args = [
        "--json",
        &example("token.py"),
        "--args",
        r#"["Tok", 1000]"#,
        "--call",
        "transfer(dev1, 5)",
    ];
    assert_eq!(actor_test(&args).stdout, actor_test(&args).stdout);
}

#[test]
fn bad_options_are_refused_before_anything_runs() {
    let token = example("token.py");
    for (args, says) in [
        (vec!["--from", "10"], "give a dev account, 0 … 9"),
        (
            vec!["--call", "x", "--from", "1", "--from", "2"],
            "--from given twice for --call x",
        ),
        (vec!["--mine", "1", "--args", "[]"], "--args follows --mine"),
        (vec!["--mine", "many"], "give a number of blocks"),
        (
            vec!["--call", "x", "--value", "1.5"],
            "more decimals than its unit",
        ),
    ] {
        let mut all = vec![token.as_str()];
        all.extend(args.iter().copied());
        let r = actor_test(&all);
        assert!(r.err().contains(says), "{args:?}: {}", r.stderr);
        assert!(r.stdout.is_empty(), "{args:?}: {}", r.stdout);
    }
    let r = actor_test(&[
        &token,
        "--args",
        r#"["T", 1]"#,
        "--call",
        "transfer(bob, 1)",
    ]);
    assert!(r.err().contains("unknown name \"bob\""), "{}", r.stderr);
    let r = actor_test(&[
        &token,
        "--args",
        r#"["T", 1]"#,
        "--call",
        "f(1)",
        "--args",
        "[1]",
    ]);
    assert!(r.err().contains("give them once"), "{}", r.stderr);
}

#[test]
fn pvm_run_points_an_actor_to_actor_test() {
    let home = tempfile::tempdir().expect("home");
    let mut c = cowboy(home.path());
    let token = example("token.py");
    c.args(["pvm", "run", &token]);
    let r = run(c);
    let err = r.err();
    assert!(err.contains("ImportError: "), "{err}");
    assert!(
        err.contains(&format!("cowboy actor test {token} --call")),
        "{err}"
    );
}
