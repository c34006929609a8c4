//! JSONPath evaluation for the oracle mode's `jsonpath` rules. The rule is parsed by the
//! chain's own parser (`cowboy_exec::system::verifier::jsonpath`, the one that validated it
//! at submission), so the runner reads exactly the grammar the chain accepts. Evaluation is
//! charged one step of the caller's [`Budget`] per node visited, so a page and a rule chosen
//! together to blow up (`$..a..a..a` over a deep document) stop at the budget instead of
//! running quadratically.

use cowboy_exec::system::verifier::jsonpath::{parse, Literal, Op, Segment};
use cowboy_pvm_re::{Budget, Meter};
use serde_json::Value;

/// Why a path could not be evaluated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PathError {
    /// The rule is not in the grammar (the chain would have refused it).
    Malformed(String),
    /// The evaluation needed more steps than the budget holds.
    Budget,
}

/// The values `rule` selects in `doc`, in document order.
pub fn select<'a>(
    rule: &str,
    doc: &'a Value,
    budget: &mut Budget,
) -> Result<Vec<&'a Value>, PathError> {
    let mut nodes = vec![doc];
    for segment in parse(rule).map_err(PathError::Malformed)? {
        let mut next = Vec::new();
        for node in nodes {
            apply(&segment, node, &mut next, budget)?;
        }
        nodes = next;
    }
    Ok(nodes)
}

fn charge(budget: &mut Budget) -> Result<(), PathError> {
    budget.charge(1).map_err(|_| PathError::Budget)
}

fn children(node: &Value) -> Vec<&Value> {
    match node {
        Value::Object(m) => m.values().collect(),
        Value::Array(a) => a.iter().collect(),
        _ => Vec::new(),
    }
}

/// `node` and all its descendants, pre-order, one step each.
fn walk<'a>(
    node: &'a Value,
    out: &mut Vec<&'a Value>,
    budget: &mut Budget,
) -> Result<(), PathError> {
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        charge(budget)?;
        out.push(n);
        stack.extend(children(n).into_iter().rev());
    }
    Ok(())
}

fn apply<'a>(
    segment: &Segment,
    node: &'a Value,
    out: &mut Vec<&'a Value>,
    budget: &mut Budget,
) -> Result<(), PathError> {
    charge(budget)?;
    match segment {
        Segment::Names(names) => {
            if let Value::Object(m) = node {
                out.extend(names.iter().filter_map(|n| m.get(n)));
            }
        }
        Segment::Descendant(name) => {
            let mut all = Vec::new();
            walk(node, &mut all, budget)?;
            out.extend(all.into_iter().filter_map(|n| match n {
                Value::Object(m) => m.get(name),
                _ => None,
            }));
        }
        Segment::Children => out.extend(children(node)),
        Segment::Descendants => {
            let mut all = Vec::new();
            walk(node, &mut all, budget)?;
            // The node itself is not its own descendant.
            out.extend(all.into_iter().skip(1));
        }
        Segment::Indices(indices) => {
            if let Value::Array(a) = node {
                for &i in indices {
                    let at = if i < 0 {
                        i64::try_from(a.len()).ok().and_then(|n| n.checked_add(i))
                    } else {
                        Some(i)
                    };
                    if let Some(v) = at
                        .and_then(|i| usize::try_from(i).ok())
                        .and_then(|i| a.get(i))
                    {
                        out.push(v);
                    }
                }
            }
        }
        Segment::Slice(start, end, step) => {
            if let Value::Array(a) = node {
                for i in slice(a.len(), *start, *end, *step) {
                    charge(budget)?;
                    out.extend(a.get(i));
                }
            }
        }
        Segment::Filter(path, test) => {
            for child in children(node) {
                charge(budget)?;
                let mut at = Some(child);
                for name in path {
                    at = match at {
                        Some(Value::Object(m)) => m.get(name),
                        _ => None,
                    };
                }
                let pass = match (at, test) {
                    (None, _) => false,
                    (Some(_), None) => true,
                    (Some(v), Some((op, lit))) => compare(v, *op, lit),
                };
                if pass {
                    out.push(child);
                }
            }
        }
    }
    Ok(())
}

/// Python's `range(*slice(start, end, step).indices(len))`; a zero step selects nothing.
fn slice(len: usize, start: Option<i64>, end: Option<i64>, step: Option<i64>) -> Vec<usize> {
    let n = i64::try_from(len).unwrap_or(i64::MAX);
    let step = step.unwrap_or(1);
    if step == 0 {
        return Vec::new();
    }
    let clamp = |v: i64, lo: i64, hi: i64| {
        let v = if v < 0 { v.saturating_add(n) } else { v };
        v.clamp(lo, hi)
    };
    let mut out = Vec::new();
    if step > 0 {
        let (mut i, e) = (
            clamp(start.unwrap_or(0), 0, n),
            clamp(end.unwrap_or(n), 0, n),
        );
        while i < e {
            out.extend(usize::try_from(i).ok());
            i = i.saturating_add(step);
        }
    } else {
        let mut i = start.map_or(n - 1, |s| clamp(s, -1, n - 1));
        let e = end.map_or(-1, |e| clamp(e, -1, n - 1));
        while i > e {
            out.extend(usize::try_from(i).ok());
            i = i.saturating_add(step);
        }
    }
    out
}

fn compare(v: &Value, op: Op, lit: &Literal) -> bool {
    use std::cmp::Ordering;
    let ord = match (v, lit) {
        // The literal is `-?[0-9]+(\.[0-9]+)?` (the chain's grammar): it always reads as an f64.
        (Value::Number(n), Literal::Number(x)) => n
            .as_f64()
            .zip(x.parse::<f64>().ok())
            .and_then(|(f, x)| f.partial_cmp(&x)),
        (Value::String(s), Literal::Text(t)) => Some(s.as_str().cmp(t.as_str())),
        // Values of different kinds are only ever unequal.
        _ => return op == Op::Ne,
    };
    let Some(ord) = ord else { return op == Op::Ne };
    match op {
        Op::Eq => ord == Ordering::Equal,
        Op::Ne => ord != Ordering::Equal,
        Op::Lt => ord == Ordering::Less,
        Op::Le => ord != Ordering::Greater,
        Op::Gt => ord == Ordering::Greater,
        Op::Ge => ord != Ordering::Less,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn sel(rule: &str, doc: &Value) -> Vec<Value> {
        let mut b = Budget::new(1_000_000);
        select(rule, doc, &mut b)
            .expect("evaluates")
            .into_iter()
            .cloned()
            .collect()
    }

    #[test]
    fn the_validators_grammar_selects_what_it_says() {
        let doc = json!({
            "price": 2500.5,
            "data": [{"quote": {"USD": {"price": 1}}}],
            "items": [
                {"id": 1, "kind": "spot", "price": 10, "volume": 11},
                {"id": 2, "kind": "perp", "price": 20, "volume": 3},
                {"id": 3, "kind": "spot", "price": 30}
            ],
            "a b": {"c": true},
            "xs": [0, 1, 2, 3, 4]
        });
        assert_eq!(sel("$.price", &doc), [json!(2500.5)]);
        assert_eq!(sel("$.data[0].quote.USD.price", &doc), [json!(1)]);
        assert_eq!(
            sel("$..price", &doc),
            [json!(2500.5), json!(1), json!(10), json!(20), json!(30)]
        );
        assert_eq!(sel("$.items[*].id", &doc), [json!(1), json!(2), json!(3)]);
        assert_eq!(sel("$['a b'][\"c\"]", &doc), [json!(true)]);
        assert_eq!(sel("$.xs[1:3]", &doc), [json!(1), json!(2)]);
        assert_eq!(sel("$.xs[::2]", &doc), [json!(0), json!(2), json!(4)]);
        assert_eq!(sel("$.xs[::-2]", &doc), [json!(4), json!(2), json!(0)]);
        assert_eq!(sel("$.xs[-1]", &doc), [json!(4)]);
        assert_eq!(sel("$.xs[0, 2]", &doc), [json!(0), json!(2)]);
        assert_eq!(sel("$.xs[9]", &doc), Vec::<Value>::new());
        assert_eq!(
            sel("$.items[?(@.kind == 'spot')].price", &doc),
            [json!(10), json!(30)]
        );
        assert_eq!(sel("$.items[?(@.volume >= 10.5)].id", &doc), [json!(1)]);
        assert_eq!(sel("$.items[?(@.volume)].id", &doc), [json!(1), json!(2)]);
    }

    #[test]
    fn a_blow_up_stops_at_the_budget() {
        // A 64-deep chain of {"a": …}: every `..a` multiplies the work.
        let mut doc = json!(1);
        for _ in 0..64 {
            doc = json!({ "a": doc });
        }
        let mut b = Budget::new(10_000);
        assert_eq!(
            select("$..a..a..a..a", &doc, &mut b),
            Err(PathError::Budget)
        );
    }

    #[test]
    fn malformed_rules_are_errors() {
        for r in [
            "price",
            "$.",
            "$[",
            "$[1:2:3:4]",
            "$[?(@.a ==)]",
            "$['open",
            "$[1:2, 3]",
        ] {
            let got = select(r, &Value::Null, &mut Budget::new(1_000));
            assert!(matches!(got, Err(PathError::Malformed(_))), "{r}: {got:?}");
        }
    }
}
