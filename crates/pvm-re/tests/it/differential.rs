//! Differential test against CPython 3.11's `re`: runs `re_oracle.py` on
//! every case in `re_cases.json` with the real `python3`, computes the same
//! results with this engine, and fails listing every disagreement. Fails
//! (does not skip) when python3 is missing.

use std::path::PathBuf;
use std::process::Command;

use cowboy_pvm_re::ops::{findall, finditer, split, subn, FindItem};
use cowboy_pvm_re::{flags, Budget, ErrorKind, Limits, Match, ReError, Regex};
use serde_json::{json, Value};

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests")
}

fn units(s: &str) -> Vec<u32> {
    s.chars().map(u32::from).collect()
}

fn text(v: &[u32]) -> String {
    v.iter()
        .map(|&c| char::from_u32(c).unwrap_or('\u{FFFD}'))
        .collect()
}

fn kind_name(k: ErrorKind) -> &'static str {
    match k {
        ErrorKind::Re => "error",
        ErrorKind::Value => "ValueError",
        ErrorKind::Overflow => "OverflowError",
        ErrorKind::Index => "IndexError",
        ErrorKind::Recursion => "RecursionError",
        ErrorKind::Unsupported => "Unsupported",
    }
}

fn err_json(e: &ReError) -> Value {
    match e {
        ReError::Compile(c) => json!({"error": [kind_name(c.kind), c.display]}),
        ReError::Match(m) => json!({"error": ["MatchError", m.to_string()]}),
    }
}

fn spans(m: Option<Match>) -> Value {
    match m {
        None => Value::Null,
        Some(m) => json!({
            "spans": m.spans.iter().map(|s| s.map_or(Value::Null, |(a, b)| json!([a, b]))).collect::<Vec<_>>(),
            "lastindex": m.lastindex,
        }),
    }
}

fn find_json(items: Vec<FindItem>) -> Value {
    Value::Array(
        items
            .into_iter()
            .map(|i| match i {
                FindItem::One(v) => json!(text(&v)),
                FindItem::Tuple(vs) => json!(vs.iter().map(|v| text(v)).collect::<Vec<_>>()),
            })
            .collect(),
    )
}

fn split_json(items: Vec<Option<Vec<u32>>>) -> Value {
    json!(items
        .iter()
        .map(|o| o.as_ref().map(|v| text(v)))
        .collect::<Vec<_>>())
}

fn run_case(case: &Value) -> Value {
    let pattern = case[0].as_str().unwrap_or_default();
    let fl = case[1].as_str().unwrap_or_default();
    let subjects = case[2].as_array().cloned().unwrap_or_default();
    let repl = units(case.get(3).and_then(Value::as_str).unwrap_or("<\\g<0>>"));
    let is_bytes = fl.contains('b');
    let mut f = 0;
    for c in fl.chars() {
        f |= match c {
            'i' => flags::IGNORECASE,
            'm' => flags::MULTILINE,
            's' => flags::DOTALL,
            'x' => flags::VERBOSE,
            'a' => flags::ASCII,
            'u' => flags::UNICODE,
            'L' => flags::LOCALE,
            _ => 0,
        };
    }
    let limits = Limits::default();
    let mut meter = Budget::new(u64::MAX);
    let m = &mut meter;
    let re = match Regex::compile(&units(pattern), !is_bytes, f, m, &limits) {
        Ok(r) => r,
        Err(e) => return err_json(&e),
    };
    let mut out = Vec::new();
    for s in subjects {
        let s = units(s.as_str().unwrap_or_default());
        let n = s.len();
        let sub = subn(&re, &repl, &s, 0, m, &limits);
        let (sub_v, subn1) = match sub {
            Ok((v, _)) => {
                let (v1, c1) = subn(&re, &repl, &s, 1, m, &limits).expect("subn");
                (json!(text(&v)), json!([text(&v1), c1]))
            }
            Err(e) => (err_json(&e), Value::Null),
        };
        out.push(json!({
            "search": spans(re.search(&s, 0, n, m, &limits).expect("search")),
            "match": spans(re.match_at(&s, 0, n, m, &limits).expect("match")),
            "fullmatch": spans(re.fullmatch(&s, 0, n, m, &limits).expect("fullmatch")),
            "search1": spans(re.search(&s, 1, n, m, &limits).expect("search1")),
            "findall": find_json(findall(&re, &s, 0, n, m, &limits).expect("findall")),
            "findall_end": find_json(findall(&re, &s, 0, n.saturating_sub(1), m, &limits).expect("findall")),
            "finditer": finditer(&re, &s, 0, n, m, &limits).expect("finditer").iter().map(|m| { let (a, b) = m.span(); json!([a, b]) }).collect::<Vec<_>>(),
            "split": split_json(split(&re, &s, 0, m, &limits).expect("split")),
            "split1": split_json(split(&re, &s, 1, m, &limits).expect("split")),
            "sub": sub_v,
            "subn1": subn1,
        }));
    }
    Value::Array(out)
}

#[test]
fn agrees_with_cpython_re() {
    let cases_path = dir().join("re_cases.json");
    let output = Command::new("python3")
        .arg(dir().join("re_oracle.py"))
        .arg(&cases_path)
        .output()
        .expect("python3 (CPython 3.11) is required for the differential test and was not found on PATH");
    assert!(
        output.status.success(),
        "re_oracle.py failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let expected: Value = serde_json::from_slice(&output.stdout).expect("oracle output is JSON");
    let cases: Value =
        serde_json::from_str(&std::fs::read_to_string(&cases_path).expect("cases file"))
            .expect("cases JSON");
    let cases = cases.as_array().expect("case list");
    let expected = expected.as_array().expect("result list");
    assert_eq!(cases.len(), expected.len());
    assert!(
        cases.len() >= 400,
        "the differential suite must keep at least 400 cases"
    );
    let mut failures = Vec::new();
    for (case, want) in cases.iter().zip(expected) {
        let got = run_case(case);
        if &got != want {
            // Report the first differing field to keep the output readable.
            let detail = match (got.as_array(), want.as_array()) {
                (Some(g), Some(w)) => g
                    .iter()
                    .zip(w)
                    .zip(case[2].as_array().into_iter().flatten())
                    .find_map(|((g, w), subj)| {
                        let keys = w.as_object()?.keys().cloned().collect::<Vec<_>>();
                        keys.into_iter()
                            .find(|k| g[k] != w[k])
                            .map(|k| format!("subject {subj}: {k}: got {} want {}", g[&k], w[&k]))
                    })
                    .unwrap_or_default(),
                _ => format!("got {got} want {want}"),
            };
            failures.push(format!("{case}\n    {detail}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases disagree with CPython:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}
