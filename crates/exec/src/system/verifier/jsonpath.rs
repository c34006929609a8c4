//! The oracle mode's JSONPath grammar, parsed once, here, for the chain and for runners:
//! [`parse`] is what the chain validates at submission (through `extract::validate`) and the
//! tree a runner evaluates (`cowboy-runner`'s `executor/http/jsonpath.rs`), so a rule the
//! chain accepted is a rule every runner reads the same way.
//!
//! `$` then segments: `.name`, `..name`, `.*`, `..*`, `[*]`, `[n]`, `[start:end:step]` (each
//! part optional), `[n, m, …]`, `['name', …]` (quotes `'` or `"`, a backslash takes the next
//! character literally), and filters `[?(@.a.b)]` or `[?(@.a.b OP literal)]` with OP one of
//! `== != < <= > >=` and the literal a quoted string or a decimal number (`-12`, `2.5`). A
//! name is `[A-Za-z_][A-Za-z0-9_-]*`, non-ASCII letters allowed. Spaces may stand inside
//! brackets. Integers must fit in an `i64`. One left-to-right pass, no recursion; a rule is at
//! most 256 bytes (the job spec's bound), so the tree is small.
//!
//! The chain never evaluates a path (it never sees the page): filter numbers stay in their
//! decimal text here, and a runner reads them as it compares.

use super::extract::Cur;

/// A parsed path: its segments, applied left to right from the document's root.
pub type Path = Vec<Segment>;

/// One step of a path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Segment {
    /// `.name` / `['a', 'b']`: these members of a map.
    Names(Vec<String>),
    /// `..name`: the member `name` of the node or of any descendant.
    Descendant(String),
    /// `.*` / `[*]`: every child.
    Children,
    /// `..*`: every descendant.
    Descendants,
    /// `[n, m, …]`: list elements (negative counts from the end).
    Indices(Vec<i64>),
    /// `[start:end:step]`, as Python slices a list.
    Slice(Option<i64>, Option<i64>, Option<i64>),
    /// `[?(@.a.b)]` (the member path exists) or `[?(@.a.b OP literal)]`: the children that pass.
    Filter(Vec<String>, Option<(Op, Literal)>),
}

/// A filter's comparison.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
}

/// A filter's literal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Literal {
    /// A decimal number, as written (`-?[0-9]+(\.[0-9]+)?`).
    Number(String),
    /// A quoted string, unescaped.
    Text(String),
}

/// The comparisons, longest first so `<=` is not read as `<`.
const OPS: [(&str, Op); 6] = [
    ("==", Op::Eq),
    ("!=", Op::Ne),
    ("<=", Op::Le),
    (">=", Op::Ge),
    ("<", Op::Lt),
    (">", Op::Gt),
];

/// `rule` as a path, or what is wrong with it and where.
pub fn parse(rule: &str) -> Result<Path, String> {
    let mut c = Cur::new(rule);
    c.expect(b'$')?;
    let mut path = Vec::new();
    while c.peek().is_some() {
        if c.eat(b'.') {
            let deep = c.eat(b'.');
            path.push(match (deep, c.eat(b'*')) {
                (false, true) => Segment::Children,
                (true, true) => Segment::Descendants,
                (false, false) => Segment::Names(vec![c.ident()?]),
                (true, false) => Segment::Descendant(c.ident()?),
            });
        } else if c.eat(b'[') {
            path.push(bracket(&mut c)?);
            c.expect(b']')?;
        } else {
            return Err(c.err("expected '.' or '['"));
        }
    }
    Ok(path)
}

/// The inside of a `[…]`.
fn bracket(c: &mut Cur<'_>) -> Result<Segment, String> {
    c.spaces();
    if c.eat(b'*') {
        c.spaces();
        return Ok(Segment::Children);
    }
    if c.eat_str("?(") {
        c.spaces();
        c.expect(b'@')?;
        let mut members = Vec::new();
        while c.eat(b'.') {
            members.push(c.ident()?);
        }
        c.spaces();
        let mut test = None;
        if let Some(&(_, op)) = OPS.iter().find(|(t, _)| c.eat_str(t)) {
            c.spaces();
            let literal = if matches!(c.peek(), Some(b'\'' | b'"')) {
                Literal::Text(c.quoted()?)
            } else {
                Literal::Number(c.number()?)
            };
            c.spaces();
            test = Some((op, literal));
        }
        c.expect(b')')?;
        return Ok(Segment::Filter(members, test));
    }
    if matches!(c.peek(), Some(b'\'' | b'"')) {
        let mut names = vec![c.quoted()?];
        c.spaces();
        while c.eat(b',') {
            c.spaces();
            names.push(c.quoted()?);
            c.spaces();
        }
        return Ok(Segment::Names(names));
    }
    // Indices (one, or a union split by ','), or a slice: up to three optional integers split
    // by ':'.
    let mut parts: Vec<Option<i64>> = Vec::new();
    let mut union = Vec::new();
    loop {
        c.spaces();
        let n = if matches!(c.peek(), Some(b'-' | b'0'..=b'9')) {
            Some(c.int()?)
        } else {
            None
        };
        c.spaces();
        if c.eat(b':') {
            if !union.is_empty() || parts.len() == 2 {
                return Err(c.err("a slice has at most two ':' and no ','"));
            }
            parts.push(n);
        } else if c.eat(b',') {
            if !parts.is_empty() {
                return Err(c.err("a slice has no ','"));
            }
            union.push(n.ok_or_else(|| c.err("expected an index"))?);
        } else if parts.is_empty() {
            union.push(
                n.ok_or_else(|| c.err("expected an index, a slice, a name, '*' or a filter"))?,
            );
            return Ok(Segment::Indices(union));
        } else {
            parts.push(n);
            parts.resize(3, None);
            return Ok(Segment::Slice(parts[0], parts[1], parts[2]));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_form_parses_to_its_segment() {
        let names = |n: &[&str]| Segment::Names(n.iter().map(|s| s.to_string()).collect());
        assert_eq!(
            parse("$.a..b.*..*[*]").unwrap(),
            [
                names(&["a"]),
                Segment::Descendant("b".into()),
                Segment::Children,
                Segment::Descendants,
                Segment::Children
            ]
        );
        assert_eq!(
            parse(r#"$['a b', "c\"d"][ 0 , -1 ][1:][::-2][:]"#).unwrap(),
            [
                names(&["a b", "c\"d"]),
                Segment::Indices(vec![0, -1]),
                Segment::Slice(Some(1), None, None),
                Segment::Slice(None, None, Some(-2)),
                Segment::Slice(None, None, None),
            ]
        );
        assert_eq!(
            parse("$[?(@.kind == 'spot')][?(@.v >= -2.5)][?(@.x.y)]").unwrap(),
            [
                Segment::Filter(
                    vec!["kind".into()],
                    Some((Op::Eq, Literal::Text("spot".into())))
                ),
                Segment::Filter(
                    vec!["v".into()],
                    Some((Op::Ge, Literal::Number("-2.5".into())))
                ),
                Segment::Filter(vec!["x".into(), "y".into()], None),
            ]
        );
        assert_eq!(parse("$.prix_€").unwrap(), [names(&["prix_€"])]);
    }

    #[test]
    fn malformed_paths_are_refused_with_where() {
        for r in [
            "price",
            "$.",
            "$..",
            "$[",
            "$[]",
            "$[1:2:3:4]",
            "$[?(@.a ==)]",
            "$['open",
            "$.a b",
            "$[1:2, 3]",
            "$[1,]",
            "$[1,,2]",
            "$[,1]",
            "$[1, 2:3]",
            "$[99999999999999999999]",
            "$[?(@.a == 1.)]",
            "$[?(@.a == x)]",
            "$.1a",
            "$[*",
        ] {
            let e = parse(r).expect_err(r);
            assert!(e.contains("at byte"), "{r}: {e}");
        }
    }
}
