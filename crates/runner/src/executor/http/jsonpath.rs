//! JSONPath evaluation for the oracle mode's `jsonpath` rules, over the grammar the chain
//! validates at submission (`cowboy_exec::system::verifier::extract`): `$` then `.name`,
//! `..name`, `.*`, `..*`, `[*]`, `[n]`, `[start:end:step]`, `[n, m, …]`, `['name', …]` and
//! filters `[?(@.a.b)]` / `[?(@.a.b OP literal)]`.
//!
//! Every rule reaching this module has passed the chain's validator, so the parser here may
//! be strict: anything it does not understand is an error, never a guess. Evaluation is
//! charged one step of the caller's [`Budget`] per node visited, so a page and a rule chosen
//! together to blow up (`$..a..a..a` over a deep document) stop at the budget instead of
//! running quadratically.

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

/// A comparison in a filter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

/// A filter's literal.
#[derive(Clone, Debug, PartialEq)]
enum Literal {
    Num(f64),
    Text(String),
}

/// One step of a path.
#[derive(Clone, Debug, PartialEq)]
enum Segment {
    /// `.name` / `['a', 'b']`: these members of a map.
    Names(Vec<String>),
    /// `..name`: the member `name` of the node or any descendant.
    Descendant(String),
    /// `.*` / `[*]`: every child.
    Children,
    /// `..*`: every descendant.
    Descendants,
    /// `[n, m, …]`: list elements (negative from the end).
    Indices(Vec<i64>),
    /// `[start:end:step]`, Python's slice.
    Slice(Option<i64>, Option<i64>, Option<i64>),
    /// `[?(@.path)]` or `[?(@.path OP literal)]`: the children that pass.
    Filter(Vec<String>, Option<(Op, Literal)>),
}

/// The values `rule` selects in `doc`, in document order.
pub fn select<'a>(
    rule: &str,
    doc: &'a Value,
    budget: &mut Budget,
) -> Result<Vec<&'a Value>, PathError> {
    let mut nodes = vec![doc];
    for segment in parse(rule)? {
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
        (Value::Number(n), Literal::Num(x)) => n.as_f64().and_then(|f| f.partial_cmp(x)),
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

/// A cursor over a rule.
struct Cur<'a> {
    s: &'a str,
    i: usize,
}

impl<'a> Cur<'a> {
    fn rest(&self) -> &'a str {
        self.s.get(self.i..).unwrap_or("")
    }
    fn peek(&self) -> Option<char> {
        self.rest().chars().next()
    }
    fn eat(&mut self, t: &str) -> bool {
        if self.rest().starts_with(t) {
            self.i += t.len();
            true
        } else {
            false
        }
    }
    fn spaces(&mut self) {
        while self.eat(" ") {}
    }
    fn err<T>(&self, what: &str) -> Result<T, PathError> {
        Err(PathError::Malformed(format!("{what} at byte {}", self.i)))
    }
    fn expect(&mut self, t: &str) -> Result<(), PathError> {
        if self.eat(t) {
            Ok(())
        } else {
            self.err(&format!("expected {t:?}"))
        }
    }
    /// A name `[A-Za-z_][A-Za-z0-9_-]*` (non-ASCII letters allowed), as the validator reads it.
    fn ident(&mut self) -> Result<String, PathError> {
        let start = self.i;
        for (k, c) in self.rest().char_indices() {
            let ok = c.is_ascii_alphabetic()
                || c == '_'
                || !c.is_ascii()
                || (k > 0 && (c.is_ascii_digit() || c == '-'));
            if !ok {
                break;
            }
            self.i = start + k + c.len_utf8();
        }
        if self.i == start {
            return self.err("expected a name");
        }
        Ok(self.s[start..self.i].to_string())
    }
    /// A quoted string, backslash escaping the next character.
    fn quoted(&mut self) -> Result<String, PathError> {
        let q = match self.peek() {
            Some(q @ ('\'' | '"')) => q,
            _ => return self.err("expected a quoted string"),
        };
        self.i += 1;
        let mut out = String::new();
        let mut chars = self.rest().char_indices();
        while let Some((k, c)) = chars.next() {
            match c {
                '\\' => match chars.next() {
                    Some((_, e)) => out.push(e),
                    None => break,
                },
                c if c == q => {
                    self.i += k + 1;
                    return Ok(out);
                }
                c => out.push(c),
            }
        }
        self.err("unterminated string")
    }
    fn int(&mut self) -> Result<i64, PathError> {
        let start = self.i;
        self.eat("-");
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.i += 1;
        }
        self.s[start..self.i]
            .parse()
            .or_else(|_| self.err("expected an integer"))
    }
    fn number(&mut self) -> Result<f64, PathError> {
        let start = self.i;
        self.int()?;
        if self.eat(".") {
            while self.peek().is_some_and(|c| c.is_ascii_digit()) {
                self.i += 1;
            }
        }
        self.s[start..self.i]
            .parse()
            .or_else(|_| self.err("expected a number"))
    }
}

fn parse(rule: &str) -> Result<Vec<Segment>, PathError> {
    let mut c = Cur { s: rule, i: 0 };
    c.expect("$")?;
    let mut out = Vec::new();
    while c.peek().is_some() {
        if c.eat("..") {
            out.push(if c.eat("*") {
                Segment::Descendants
            } else {
                Segment::Descendant(c.ident()?)
            });
        } else if c.eat(".") {
            out.push(if c.eat("*") {
                Segment::Children
            } else {
                Segment::Names(vec![c.ident()?])
            });
        } else if c.eat("[") {
            c.spaces();
            out.push(bracket(&mut c)?);
            c.spaces();
            c.expect("]")?;
        } else {
            return c.err("expected '.' or '['");
        }
    }
    Ok(out)
}

/// The inside of `[…]`.
fn bracket(c: &mut Cur<'_>) -> Result<Segment, PathError> {
    if c.eat("*") {
        return Ok(Segment::Children);
    }
    if c.eat("?(") {
        c.spaces();
        c.expect("@")?;
        let mut path = Vec::new();
        while c.eat(".") {
            path.push(c.ident()?);
        }
        c.spaces();
        let ops = [
            ("==", Op::Eq),
            ("!=", Op::Ne),
            ("<=", Op::Le),
            (">=", Op::Ge),
            ("<", Op::Lt),
            (">", Op::Gt),
        ];
        let mut test = None;
        if let Some(&(_, op)) = ops.iter().find(|(t, _)| c.eat(t)) {
            c.spaces();
            let lit = if matches!(c.peek(), Some('\'' | '"')) {
                Literal::Text(c.quoted()?)
            } else {
                Literal::Num(c.number()?)
            };
            c.spaces();
            test = Some((op, lit));
        }
        c.expect(")")?;
        return Ok(Segment::Filter(path, test));
    }
    if matches!(c.peek(), Some('\'' | '"')) {
        let mut names = vec![c.quoted()?];
        c.spaces();
        while c.eat(",") {
            c.spaces();
            names.push(c.quoted()?);
            c.spaces();
        }
        return Ok(Segment::Names(names));
    }
    // Indices, a union of them, or a slice: up to three optional integers split by ':'.
    let mut parts: Vec<Option<i64>> = Vec::new();
    let mut union = Vec::new();
    loop {
        c.spaces();
        let n = if matches!(c.peek(), Some('-' | '0'..='9')) {
            Some(c.int()?)
        } else {
            None
        };
        c.spaces();
        if c.eat(":") {
            parts.push(n);
        } else if c.eat(",") {
            union.push(n.map_or_else(|| c.err("expected an index"), Ok)?);
        } else {
            if parts.is_empty() {
                union.push(n.map_or_else(|| c.err("expected an index"), Ok)?);
                return Ok(Segment::Indices(union));
            }
            parts.push(n);
            if parts.len() > 3 || !union.is_empty() {
                return c.err("a slice has at most two ':' and no ','");
            }
            parts.resize(3, None);
            return Ok(Segment::Slice(parts[0], parts[1], parts[2]));
        }
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
            assert!(
                matches!(parse(r), Err(PathError::Malformed(_))),
                "{r}: {:?}",
                parse(r)
            );
        }
    }
}
