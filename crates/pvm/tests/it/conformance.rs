//! Conformance harness (contract: /tmp/conformance-format.md, kept in crates/pvm/README.md).
//!
//! Runs every `tests/conformance/**/*.py` in-process and compares stdout (exact) and the last
//! traceback line with CPython's recorded `.stdout`/`.error`; runs `tests/pvm_only/**/*.py` with
//! their `# pvm-args:` limits. Fails on any unlisted failure and on any listed program that now
//! passes (KNOWN_FAILURES only shrinks). `PVM_UPDATE_KNOWN_FAILURES=1` rewrites the list.
//! `PVM_CONFORMANCE_ONLY=substr` runs only the programs whose path contains `substr` and
//! reports each one (for working on a few programs; the KNOWN_FAILURES check is skipped).

use std::path::{Path, PathBuf};

fn programs(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            programs(&p, out);
        } else if p.extension().is_some_and(|e| e == "py")
            && p.file_name().is_some_and(|n| n != "regen.py")
        {
            out.push(p);
        }
    }
}

fn parse_args(src: &str) -> cowboy_pvm::Limits {
    let mut l = cowboy_pvm::Limits::default();
    if let Some(first) = src.lines().next() {
        if let Some(rest) = first.strip_prefix("# pvm-args:") {
            let toks: Vec<&str> = rest.split_whitespace().collect();
            for w in toks.windows(2) {
                let n: u64 = w[1].parse().unwrap_or(0);
                match w[0] {
                    "--cycles" => l.cycles = Some(n),
                    "--max-depth" => l.max_depth = n as u32,
                    "--memory" => l.memory = n,
                    "--tmp-bytes" => l.tmp_bytes = n,
                    _ => {}
                }
            }
        }
    }
    l
}

/// Run one program; `Err(reason)` on mismatch.
fn check(path: &Path, pvm_only: bool) -> Result<(), String> {
    let src = std::fs::read_to_string(path).map_err(|e| format!("read: {e}"))?;
    // Conformance programs state CPython behaviour, so they get CPython-like headroom (deep
    // recursion, large budgets and memory); the PVM's own limits are exercised by tests/pvm_only
    // and tests/it/hostile.rs.
    let limits = if pvm_only {
        parse_args(&src)
    } else {
        cowboy_pvm::Limits {
            cycles: Some(2_000_000_000),
            max_depth: 400,
            memory: 256 << 20,
            ..Default::default()
        }
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_default();
    let out = std::thread::Builder::new()
        .stack_size(256 * 1024 * 1024)
        .spawn(move || cowboy_pvm::run(&src, &name, limits))
        .map_err(|e| format!("spawn: {e}"))?
        .join()
        .map_err(|_| "VM panicked".to_string())?;
    let want_out = std::fs::read_to_string(path.with_extension("stdout")).unwrap_or_default();
    let want_err = std::fs::read_to_string(path.with_extension("error"))
        .ok()
        .map(|s| s.trim_end().to_string());
    if out.stdout != want_out {
        let got: Vec<&str> = out.stdout.lines().collect();
        let want: Vec<&str> = want_out.lines().collect();
        let i = got
            .iter()
            .zip(want.iter())
            .position(|(a, b)| a != b)
            .unwrap_or(got.len().min(want.len()));
        let err = out
            .error
            .as_ref()
            .map(|e| e.last_line())
            .unwrap_or_default();
        return Err(format!(
            "stdout line {}: got {:?} want {:?}{}",
            i + 1,
            got.get(i).copied().unwrap_or("<eof>"),
            want.get(i).copied().unwrap_or("<eof>"),
            if err.is_empty() {
                String::new()
            } else {
                format!(" [{err}]")
            }
        ));
    }
    let got_err = out.error.as_ref().map(|e| e.last_line());
    match (&want_err, &got_err) {
        (None, None) => Ok(()),
        (Some(w), Some(g)) => {
            let ok = if w.contains(": ") || !pvm_only {
                g == w
            } else {
                g.split(':').next() == Some(w.as_str())
            };
            if ok {
                Ok(())
            } else {
                Err(format!("error: got {g:?} want {w:?}"))
            }
        }
        (None, Some(g)) => Err(format!("unexpected error: {g}")),
        (Some(w), None) => Err(format!("expected error {w}, program succeeded")),
    }
}

fn sanitize(s: &str) -> String {
    let mut t: String = s.chars().filter(|c| *c != '\n').take(150).collect();
    t = t.replace('#', "");
    t
}

#[test]
fn conformance() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let conf = root.join("conformance");
    let mut progs = Vec::new();
    programs(&conf, &mut progs);
    let mut only = Vec::new();
    programs(&root.join("pvm_only"), &mut only);
    let known_path = conf.join("KNOWN_FAILURES");
    let known_text = std::fs::read_to_string(&known_path).unwrap_or_default();
    let known: Vec<String> = known_text
        .lines()
        .filter_map(|l| l.split('#').next().map(|s| s.trim().to_string()))
        .filter(|s| !s.is_empty())
        .collect();
    let only_filter = std::env::var("PVM_CONFORMANCE_ONLY").ok();
    if let Some(f) = &only_filter {
        progs.retain(|p| p.to_string_lossy().contains(f.as_str()));
        only.retain(|p| p.to_string_lossy().contains(f.as_str()));
    }
    let mut failures: Vec<(String, String)> = Vec::new();
    let mut passed = 0;
    for (p, is_only, base) in progs
        .iter()
        .map(|p| (p, false, &conf))
        .chain(only.iter().map(|p| (p, true, &root)))
    {
        let rel = p
            .strip_prefix(base)
            .map(|r| r.to_string_lossy().replace('\\', "/"))
            .unwrap_or_default();
        match check(p, is_only) {
            Ok(()) => passed += 1,
            Err(reason) => failures.push((rel, reason)),
        }
    }
    if only_filter.is_some() {
        println!("{passed} passed, {} failed", failures.len());
        for (r, why) in &failures {
            println!("FAIL {r}: {why}");
        }
        assert!(
            failures.is_empty(),
            "{} conformance failures",
            failures.len()
        );
        return;
    }
    if std::env::var("PVM_UPDATE_KNOWN_FAILURES").is_ok_and(|v| v == "1") {
        let mut text = String::new();
        for (r, why) in &failures {
            text.push_str(&format!("{r}  # {}\n", sanitize(why)));
        }
        std::fs::write(&known_path, text).expect("write KNOWN_FAILURES");
    }
    let mut problems = Vec::new();
    for (r, why) in &failures {
        if !known.contains(r) {
            problems.push(format!("NEW FAILURE {r}: {why}"));
        }
    }
    for k in &known {
        if !failures.iter().any(|(r, _)| r == k) {
            problems.push(format!("NOW PASSES (remove from KNOWN_FAILURES): {k}"));
        }
    }
    println!("{passed} passed, {} known failures", failures.len());
    for p in &problems {
        println!("{p}");
    }
    assert!(
        problems.is_empty() || std::env::var("PVM_UPDATE_KNOWN_FAILURES").is_ok_and(|v| v == "1"),
        "{} conformance problems",
        problems.len()
    );
}
