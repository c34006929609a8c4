//! Behaviour tests of the public API beyond the differential suite: hostile
//! patterns end in `Exhausted` within budget, metering is exact and
//! deterministic (golden step counts), the memory limit is an error, deep
//! subjects do not overflow the Rust stack, template and split/findall edge
//! cases, and the documented deviations from CPython.

use cowboy_pvm_re::ops::{escape, findall, split, subn, subn_with, FindItem};
use cowboy_pvm_re::template::{Piece, Template};
use cowboy_pvm_re::{str_units, Budget, ErrorKind, Limits, MatchError, Meter, ReError, Regex};

fn re(p: &str) -> Regex {
    Regex::compile_str(p, 0, &mut Budget::new(u64::MAX), &Limits::default())
        .expect("pattern compiles")
}

fn s(v: &[u32]) -> String {
    v.iter()
        .map(|&c| char::from_u32(c).unwrap_or('?'))
        .collect()
}

/// Steps a full `search` of `p` over `subject` costs.
fn search_cost(p: &str, subject: &str) -> Result<u64, MatchError> {
    let r = re(p);
    let t = str_units(subject);
    let mut b = Budget::new(u64::MAX);
    r.search(&t, 0, t.len(), &mut b, &Limits::default())?;
    Ok(b.charged)
}

#[test]
fn catastrophic_backtracking_ends_in_exhausted_within_budget() {
    let cases = [
        ("(a+)+$", format!("{}b", "a".repeat(30))),
        ("(a|a)*b", "a".repeat(30)),
        ("(a*)*b", "a".repeat(30)),
        ("(x+x+)+y", "x".repeat(40)),
        ("(?:a|aa)*c", "a".repeat(60)),
        ("((a+)*)+$", format!("{}!", "a".repeat(25))),
        ("(.*a){20}", "a".repeat(40)),
    ];
    for (p, subject) in cases {
        let r = re(p);
        let t = str_units(&subject);
        let budget = 1_000_000;
        let mut b = Budget::new(budget);
        let got = r.search(&t, 0, t.len(), &mut b, &Limits::default());
        assert_eq!(
            got,
            Err(MatchError::Exhausted),
            "{p} must run out of budget"
        );
        assert_eq!(
            b.charged, budget,
            "{p}: the meter is charged up to the budget, never past it"
        );
    }
}

#[test]
fn charged_steps_are_exact_a_budget_of_n_suffices_and_n_minus_1_does_not() {
    for (p, subject) in [
        ("(a|b)*c", "ababababc"),
        ("x*y", "xxxxxxxxxxxxxxxxxxxxxxxx"),
        ("(?<=a)b+", "aabbb"),
        ("(\\w+)\\s\\1", "hello hello"),
    ] {
        let need = search_cost(p, subject).expect("runs");
        let r = re(p);
        let t = str_units(subject);
        let mut ok = Budget::new(need);
        assert!(
            r.search(&t, 0, t.len(), &mut ok, &Limits::default())
                .is_ok(),
            "{p}: budget {need} suffices"
        );
        assert_eq!(ok.remaining, 0);
        let mut short = Budget::new(need - 1);
        assert_eq!(
            r.search(&t, 0, t.len(), &mut short, &Limits::default()),
            Err(MatchError::Exhausted),
            "{p}: budget {} does not",
            need - 1
        );
    }
}

/// Golden step counts: changing the cost model changes consensus, so it must
/// be a visible, deliberate act (update these numbers in the same commit).
#[test]
fn golden_step_counts() {
    let golden = [
        ("abc", "xxabc", 7),
        ("(a+)+b", "aaaa", 422),
        ("\\d{3}-\\d{4}", "call 555-1234 now", 22),
        ("(?i)hello", "HeLLo world", 7),
    ];
    let got: Vec<(&str, &str, u64)> = golden
        .iter()
        .map(|&(p, t, _)| (p, t, search_cost(p, t).expect("runs")))
        .collect();
    let want: Vec<(&str, &str, u64)> = golden.to_vec();
    assert_eq!(got, want);
}

#[test]
fn metering_is_deterministic() {
    let a = search_cost("(a|b|ab)*c", "abababababababab").expect("runs");
    let b = search_cost("(a|b|ab)*c", "abababababababab").expect("runs");
    assert_eq!(a, b);
}

#[test]
fn compile_is_metered_and_program_size_bounded() {
    let mut b = Budget::new(3);
    let err = Regex::compile_str("abcdef", 0, &mut b, &Limits::default()).unwrap_err();
    assert_eq!(err, ReError::Match(MatchError::Exhausted));
    let small = Limits {
        max_program: 10,
        ..Limits::default()
    };
    let err =
        Regex::compile_str(&"a".repeat(50), 0, &mut Budget::new(u64::MAX), &small).unwrap_err();
    match err {
        ReError::Compile(e) => assert_eq!(e.kind, ErrorKind::Unsupported),
        other => panic!("expected a size error, got {other:?}"),
    }
}

#[test]
fn memory_limit_is_an_error_and_deep_subjects_do_not_overflow() {
    let r = re("(?:a|b)*c");
    let t = str_units(&"ab".repeat(200_000));
    let tight = Limits {
        max_memory: 64 * 1024,
        ..Limits::default()
    };
    let mut b = Budget::new(u64::MAX);
    assert_eq!(
        r.search(&t, 0, t.len(), &mut b, &tight),
        Err(MatchError::MemoryLimit)
    );
    // With room enough, 400k nested choice points run on the heap stack.
    let roomy = Limits {
        max_memory: 1 << 30,
        ..Limits::default()
    };
    let r = re("(?:(a)|b)*$");
    let mut b = Budget::new(u64::MAX);
    let m = r
        .search(&t, 0, t.len(), &mut b, &roomy)
        .expect("no overflow")
        .expect("matches");
    assert_eq!(m.span(), (0, t.len()));
    assert_eq!(
        m.spans.get(1).copied().flatten(),
        Some((t.len() - 2, t.len() - 1))
    );
}

#[test]
fn templates_parse_into_pieces_and_report_cpython_errors() {
    let r = re("(?P<w>a)(b)?");
    let t = Template::parse(&str_units(r"x\1\g<w>\g<2>\n\-"), &r).expect("valid");
    assert_eq!(
        t.pieces,
        vec![
            Piece::Lit(vec![u32::from('x')]),
            Piece::Group(1),
            Piece::Group(1),
            Piece::Group(2),
            Piece::Lit(str_units("\n\\-")),
        ]
    );
    let err = |p: &str| Template::parse(&str_units(p), &r).unwrap_err().to_string();
    assert_eq!(err(r"\3"), "invalid group reference 3 at position 1");
    assert_eq!(err(r"\g<nope>"), "unknown group name 'nope'");
    assert_eq!(err(r"\g<1"), "missing >, unterminated name at position 3");
    assert_eq!(err(r"\q"), "bad escape \\q at position 0");
    assert_eq!(err("\\"), "bad escape (end of pattern) at position 0");
}

#[test]
fn sub_with_a_callback_and_counts() {
    let r = re(r"\d+");
    let t = str_units("a1b22c333");
    let mut b = Budget::new(u64::MAX);
    let (out, n) = subn_with::<MatchError>(&r, &t, 0, &mut b, &Limits::default(), |m, _| {
        let (s, e) = m.span();
        Ok(str_units(&format!("<{}>", e - s)))
    })
    .expect("runs");
    assert_eq!((s(&out), n), ("a<1>b<2>c<3>".to_string(), 3));
    let (out, n) = subn(&r, &str_units("#"), &t, 2, &mut b, &Limits::default()).expect("runs");
    assert_eq!((s(&out), n), ("a#b#c333".to_string(), 2));
    let (out, n) = subn(&r, &str_units("#"), &t, -1, &mut b, &Limits::default()).expect("runs");
    assert_eq!((s(&out), n), ("a1b22c333".to_string(), 0));
}

#[test]
fn split_and_findall_empty_match_rules() {
    let mut b = Budget::new(u64::MAX);
    let l = Limits::default();
    let parts = |p: &str, t: &str, max: i64, b: &mut Budget| -> Vec<Option<String>> {
        split(&re(p), &str_units(t), max, b, &l)
            .expect("runs")
            .iter()
            .map(|o| o.as_ref().map(|v| s(v)))
            .collect()
    };
    let some = |v: &[&str]| v.iter().map(|x| Some(x.to_string())).collect::<Vec<_>>();
    // CPython 3.11: re.split('x*', 'axbc') == ['', 'a', '', 'b', 'c', '']
    assert_eq!(
        parts("x*", "axbc", 0, &mut b),
        some(&["", "a", "", "b", "c", ""])
    );
    assert_eq!(
        parts("(,)|(;)", "a,b", 0, &mut b),
        vec![Some("a".into()), Some(",".into()), None, Some("b".into())]
    );
    assert_eq!(parts(",", "a,b,c", 1, &mut b), some(&["a", "b,c"]));
    assert_eq!(parts(",", "a,b,c", -1, &mut b), some(&["a,b,c"]));
    let fa = findall(&re("(a)(b)?"), &str_units("aab"), 0, 3, &mut b, &l).expect("runs");
    assert_eq!(
        fa,
        vec![
            FindItem::Tuple(vec![str_units("a"), vec![]]),
            FindItem::Tuple(vec![str_units("a"), str_units("b")])
        ]
    );
    let fa = findall(&re(""), &str_units("ab"), 0, 2, &mut b, &l).expect("runs");
    assert_eq!(fa.len(), 3);
}

#[test]
fn escape_matches_re_escape() {
    assert_eq!(
        s(&escape(&str_units("a.b*c d-é\n"))),
        "a\\.b\\*c\\ d\\-é\\\n"
    );
}

#[test]
fn documented_deviations_are_clear_errors() {
    let compile =
        |p: &str, f: u32| Regex::compile_str(p, f, &mut Budget::new(u64::MAX), &Limits::default());
    // \N{...}: no Unicode name database; CPython would accept a valid name.
    match compile(r"\N{EM DASH}", 0) {
        Err(ReError::Compile(e)) => assert_eq!(
            e.to_string(),
            "undefined character name 'EM DASH' at position 0"
        ),
        other => panic!("{other:?}"),
    }
    // TEMPLATE is refused.
    assert!(
        matches!(compile("(?t)a", 0), Err(ReError::Compile(e)) if e.kind == ErrorKind::Unsupported)
    );
    // LOCALE is refused for bytes (CPython allows it; it depends on the process locale).
    let b = Regex::compile_bytes(
        b"a",
        cowboy_pvm_re::flags::LOCALE,
        &mut Budget::new(u64::MAX),
        &Limits::default(),
    );
    assert!(matches!(b, Err(ReError::Compile(e)) if e.kind == ErrorKind::Unsupported));
}

/// A meter that counts calls, to show batching: the engine charges in
/// batches of 64 steps plus one remainder per operation.
struct Counting {
    calls: u64,
    total: u64,
}

impl Meter for Counting {
    fn charge(&mut self, steps: u64) -> Result<(), cowboy_pvm_re::Exhausted> {
        self.calls += 1;
        self.total += steps;
        Ok(())
    }
}

#[test]
fn charges_are_batched() {
    let r = re("a*b");
    let t = str_units(&"a".repeat(1000));
    let mut m = Counting { calls: 0, total: 0 };
    let _ = r.search(&t, 0, t.len(), &mut m, &Limits::default());
    assert!(
        m.calls <= m.total / 64 + 2,
        "{} calls for {} steps",
        m.calls,
        m.total
    );
    assert_eq!(Some(m.total), search_cost("a*b", &"a".repeat(1000)).ok());
}

#[test]
fn nesting_is_bounded_not_a_stack_overflow() {
    let nested = |n: usize| format!("{}a{}", "(".repeat(n), ")*".repeat(n));
    let ok = Regex::compile_str(
        &nested(cowboy_pvm_re::MAX_NESTING),
        0,
        &mut Budget::new(u64::MAX),
        &Limits::default(),
    );
    let r = ok.expect("MAX_NESTING levels compile");
    let t = str_units("aaaa");
    let m = r
        .search(&t, 0, 4, &mut Budget::new(u64::MAX), &Limits::default())
        .expect("runs")
        .expect("matches");
    assert_eq!(m.span(), (0, 4));
    let deep = Regex::compile_str(
        &nested(100_000),
        0,
        &mut Budget::new(u64::MAX),
        &Limits::default(),
    );
    match deep {
        Err(ReError::Compile(e)) => assert_eq!(
            (e.kind, e.to_string().as_str()),
            (ErrorKind::Recursion, "maximum recursion depth exceeded")
        ),
        other => panic!("expected RecursionError, got {other:?}"),
    }
}

#[test]
fn large_classes_cost_more_steps_per_test() {
    let members: String = (0x4E00u32..0x4E00 + 800)
        .filter_map(char::from_u32)
        .collect();
    let big = search_cost(&format!("[{members}]"), &"a".repeat(1000)).expect("runs");
    let small = search_cost("[xyz]", &"a".repeat(1000)).expect("runs");
    // 1001 start positions (the end included); 800 members cost
    // 1 + 800/8 = 101 steps per test, a small class 1; plus 1 set-up step.
    assert_eq!(big, 1001 * 101 + 1);
    assert_eq!(small, 1002);
}
