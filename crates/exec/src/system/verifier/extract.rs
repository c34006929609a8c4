//! On-chain validation of an oracle job's extraction rules (whitepaper "Extraction-Based
//! Verification": runners apply CSS selectors, JSONPath or regex rules and submit the
//! extracted data). The chain never runs a rule — it never sees the page — but it refuses, at
//! submission, a rule no runner could apply, so a job cannot escrow value for work that is
//! malformed by construction.
//!
//! * **regex**: compiled by the PVM's engine (`cowboy-pvm-re`, Python `re` syntax: what a
//!   runner's Python extractor accepts), with its program capped at [`REGEX_MAX_PROGRAM`]
//!   instructions. Charged before compiling at the engine's worst case for the pattern:
//!   `(units + 1 + REGEX_MAX_PROGRAM) × 8` steps of one cycle ([`rule_cycles`]).
//! * **jsonpath**: the grammar of [`super::jsonpath`], whose parser runners use too.
//! * **css**: a selector list of compound selectors (type or `*`, `#id`, `.class`,
//!   `[attr]`, `[attr OP value]` with OP one of `= ~= |= ^= $= *=`, pseudo-classes
//!   `:first-child :last-child :only-child :first-of-type :last-of-type :empty`,
//!   `:nth-child(…)` / `:nth-of-type(…)` with `odd`, `even` or `an+b`, `:not(compound)`)
//!   joined by descendant, `>`, `+` or `~`; the last may end in `::text` or
//!   `::attr(name)` (the extraction's output, as Scrapy and parsel write it). A single pass;
//!   `:not` nests once.
//!
//! JSONPath and CSS parsing is charged `4 × hash_cycles_per_byte` per byte of the rule before
//! parsing (as the verifier prices parsing a result). Each rule is at most 256 bytes.

use cowboy_pvm_re::{Budget, Limits, Regex};
use cowboy_types::genesis::GenesisParams;

/// The longest compiled program a regex rule may have.
pub const REGEX_MAX_PROGRAM: usize = 1_024;

/// A rule's kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A JSONPath expression.
    JsonPath,
    /// A Python `re` pattern.
    Regex,
    /// A CSS selector.
    Css,
}

impl Kind {
    /// The name the job spec uses.
    pub fn name(self) -> &'static str {
        match self {
            Kind::JsonPath => "jsonpath",
            Kind::Regex => "regex",
            Kind::Css => "css",
        }
    }
}

fn regex_steps(units: u64) -> u64 {
    (units + 1 + REGEX_MAX_PROGRAM as u64).saturating_mul(cowboy_pvm_re::COMPILE_STEPS_PER_UNIT)
}

/// The cycles validating `rule` costs at worst (charged before [`validate`]).
pub fn rule_cycles(p: &GenesisParams, kind: Kind, rule: &str) -> u64 {
    let units = rule.chars().count() as u64;
    match kind {
        Kind::Regex => regex_steps(units).saturating_mul(cowboy_pvm::cost::RE_STEP),
        Kind::JsonPath | Kind::Css => (rule.len() as u64)
            .saturating_mul(4)
            .saturating_mul(p.hash_cycles_per_byte),
    }
}

/// Whether `rule` is a well-formed rule of `kind`; `Err` says what is wrong.
pub fn validate(kind: Kind, rule: &str) -> Result<(), String> {
    match kind {
        Kind::Regex => {
            let mut budget = Budget::new(regex_steps(rule.chars().count() as u64));
            let limits = Limits {
                max_memory: Limits::default().max_memory,
                max_program: REGEX_MAX_PROGRAM,
            };
            Regex::compile_str(rule, 0, &mut budget, &limits)
                .map(|_| ())
                .map_err(|e| e.to_string())
        }
        Kind::JsonPath => super::jsonpath::parse(rule).map(drop),
        Kind::Css => css(rule),
    }
}

/// A cursor over a rule's bytes (a rule is UTF-8 text; names take non-ASCII bytes whole, so
/// every slice taken ends on a character boundary). Shared by the JSONPath and CSS parsers.
pub(super) struct Cur<'a> {
    s: &'a [u8],
    i: usize,
}

impl<'a> Cur<'a> {
    pub(super) fn new(rule: &'a str) -> Cur<'a> {
        Cur {
            s: rule.as_bytes(),
            i: 0,
        }
    }
    /// The text from `start` to the cursor.
    fn text(&self, start: usize) -> String {
        String::from_utf8_lossy(&self.s[start..self.i]).into_owned()
    }
    pub(super) fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }
    pub(super) fn eat(&mut self, c: u8) -> bool {
        if self.peek() == Some(c) {
            self.i += 1;
            true
        } else {
            false
        }
    }
    pub(super) fn eat_str(&mut self, t: &str) -> bool {
        if self
            .s
            .get(self.i..)
            .is_some_and(|r| r.starts_with(t.as_bytes()))
        {
            self.i += t.len();
            true
        } else {
            false
        }
    }
    pub(super) fn spaces(&mut self) {
        while self.peek() == Some(b' ') {
            self.i += 1;
        }
    }
    pub(super) fn err(&self, what: &str) -> String {
        format!("{what} at byte {}", self.i)
    }
    pub(super) fn expect(&mut self, c: u8) -> Result<(), String> {
        if self.eat(c) {
            Ok(())
        } else {
            Err(self.err(&format!("expected {:?}", c as char)))
        }
    }
    /// An identifier `[A-Za-z_][A-Za-z0-9_-]*` (also non-ASCII bytes, for names in UTF-8).
    pub(super) fn ident(&mut self) -> Result<String, String> {
        let start = self.i;
        while let Some(c) = self.peek() {
            let first = self.i == start;
            let ok = c.is_ascii_alphabetic()
                || c == b'_'
                || c >= 0x80
                || (!first && (c.is_ascii_digit() || c == b'-'));
            if !ok {
                break;
            }
            self.i += 1;
        }
        if self.i == start {
            return Err(self.err("expected a name"));
        }
        Ok(self.text(start))
    }
    /// A quoted string (`'…'` or `"…"`, a backslash taking the next character literally),
    /// unescaped.
    pub(super) fn quoted(&mut self) -> Result<String, String> {
        let q = match self.peek() {
            Some(q @ (b'\'' | b'"')) => q,
            _ => return Err(self.err("expected a quoted string")),
        };
        self.i += 1;
        let mut out = Vec::new();
        loop {
            match self.peek() {
                None => return Err(self.err("unterminated string")),
                Some(b'\\') => {
                    // The escaped byte is kept; a multi-byte character's other bytes follow as
                    // ordinary ones, so `out` stays UTF-8.
                    out.extend(self.s.get(self.i + 1).copied());
                    self.i += 2;
                }
                Some(c) if c == q => {
                    self.i += 1;
                    return Ok(String::from_utf8_lossy(&out).into_owned());
                }
                Some(c) => {
                    out.push(c);
                    self.i += 1;
                }
            }
        }
    }
    /// An optionally signed integer that fits in an `i64`.
    pub(super) fn int(&mut self) -> Result<i64, String> {
        let start = self.i;
        self.eat(b'-');
        self.digits("expected an integer")?;
        self.text(start)
            .parse()
            .map_err(|_| self.err("an integer out of range"))
    }
    /// A number literal, as written: an optionally signed integer with an optional fraction
    /// (any length: the chain keeps it as text).
    pub(super) fn number(&mut self) -> Result<String, String> {
        let start = self.i;
        self.eat(b'-');
        self.digits("expected a number")?;
        if self.eat(b'.') {
            self.digits("expected digits after the point")?;
        }
        Ok(self.text(start))
    }
    /// One or more ASCII digits, else `missing` as the error.
    fn digits(&mut self, missing: &str) -> Result<(), String> {
        let start = self.i;
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.i += 1;
        }
        if self.i == start {
            return Err(self.err(missing));
        }
        Ok(())
    }
}

impl Cur<'_> {
    /// An optional comparison: one of `ops` (longest first), then a quoted string or what
    /// `bare` reads, with spaces around.
    fn comparison(
        &mut self,
        ops: &[&str],
        bare: fn(&mut Self) -> Result<(), String>,
    ) -> Result<(), String> {
        if ops.iter().any(|op| self.eat_str(op)) {
            self.spaces();
            if matches!(self.peek(), Some(b'\'' | b'"')) {
                self.quoted()?;
            } else {
                bare(self)?;
            }
            self.spaces();
        }
        Ok(())
    }
}

fn css(rule: &str) -> Result<(), String> {
    let mut c = Cur::new(rule);
    loop {
        complex(&mut c)?;
        c.spaces();
        if !c.eat(b',') {
            break;
        }
        c.spaces();
    }
    if c.peek().is_some() {
        return Err(c.err("unexpected character"));
    }
    Ok(())
}

/// Compound selectors joined by combinators, optionally ending in `::text` / `::attr(name)`.
fn complex(c: &mut Cur<'_>) -> Result<(), String> {
    c.spaces();
    compound(c, true)?;
    loop {
        if c.eat_str("::") {
            if c.eat_str("text") {
                return Ok(());
            }
            if c.eat_str("attr(") {
                c.ident()?;
                return c.expect(b')');
            }
            return Err(c.err("the only pseudo-elements are ::text and ::attr(name)"));
        }
        let before = c.i;
        c.spaces();
        let combinator = matches!(c.peek(), Some(b'>' | b'+' | b'~'));
        if combinator {
            c.i += 1;
            c.spaces();
        }
        match c.peek() {
            None | Some(b',') => {
                if combinator {
                    return Err(c.err("a combinator needs a selector after it"));
                }
                return Ok(());
            }
            _ if !combinator && c.i == before => return Ok(()),
            _ => compound(c, true)?,
        }
    }
}

/// A compound selector: a type or `*`, then ids, classes, attributes and pseudo-classes.
/// `:not(…)` takes one compound without a further `:not` (`nest` false).
fn compound(c: &mut Cur<'_>, nest: bool) -> Result<(), String> {
    let start = c.i;
    if !c.eat(b'*')
        && c.peek()
            .is_some_and(|x| x.is_ascii_alphabetic() || x == b'_')
    {
        c.ident()?;
    }
    loop {
        match c.peek() {
            Some(b'#') | Some(b'.') => {
                c.i += 1;
                c.ident()?;
            }
            Some(b'[') => {
                c.i += 1;
                c.spaces();
                c.ident()?;
                c.spaces();
                c.comparison(&["~=", "|=", "^=", "$=", "*=", "="], |c| {
                    c.ident().map(drop)
                })?;
                c.expect(b']')?;
            }
            Some(b':') if c.s.get(c.i + 1) != Some(&b':') => {
                c.i += 1;
                pseudo_class(c, nest)?;
            }
            _ => break,
        }
    }
    if c.i == start {
        return Err(c.err("expected a selector"));
    }
    Ok(())
}

fn pseudo_class(c: &mut Cur<'_>, nest: bool) -> Result<(), String> {
    for plain in [
        "first-child",
        "last-child",
        "only-child",
        "first-of-type",
        "last-of-type",
        "empty",
    ] {
        if c.eat_str(plain) && !matches!(c.peek(), Some(b'-' | b'(')) {
            return Ok(());
        }
    }
    if c.eat_str("nth-child(") || c.eat_str("nth-of-type(") {
        c.spaces();
        if !(c.eat_str("odd") || c.eat_str("even")) {
            nth(c)?;
        }
        c.spaces();
        return c.expect(b')');
    }
    if nest && c.eat_str("not(") {
        c.spaces();
        compound(c, false)?;
        c.spaces();
        return c.expect(b')');
    }
    Err(c.err("an unsupported pseudo-class"))
}

/// `an+b`, `an`, `b`, with optional signs and spaces around the sign.
fn nth(c: &mut Cur<'_>) -> Result<(), String> {
    let start = c.i;
    c.eat(b'-');
    c.eat(b'+');
    while c.peek().is_some_and(|x| x.is_ascii_digit()) {
        c.i += 1;
    }
    if c.eat(b'n') {
        c.spaces();
        if c.eat(b'+') || c.eat(b'-') {
            c.spaces();
            c.int()?;
        }
        return Ok(());
    }
    if c.i == start || !c.s[start..c.i].iter().any(u8::is_ascii_digit) {
        return Err(c.err("expected odd, even or an+b"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn well_formed_rules_pass() {
        for r in [
            "$.price",
            "$.data[0].quote.USD.price",
            "$..price",
            "$.items[*].id",
            "$['a b'][\"c\"]",
            "$.xs[1:3]",
            "$.xs[::2]",
            "$.xs[-1]",
            "$.xs[0, 2]",
            "$.items[?(@.kind == 'spot')].price",
            "$.items[?(@.volume >= 10.5)]",
            "$.items[?(@.id)]",
        ] {
            assert_eq!(validate(Kind::JsonPath, r), Ok(()), "{r}");
        }
        for r in [
            "span.price",
            "#main > div.quote:first-child span::text",
            "a[href^=\"https\"]::attr(href)",
            "tr:nth-child(2n+1) td:not(.hidden)",
            "ul li + li ~ li, p",
            "*",
            "td:nth-of-type(odd)",
        ] {
            assert_eq!(validate(Kind::Css, r), Ok(()), "{r}");
        }
        for r in [r"\d+\.\d{2}", r"price: (?P<p>[0-9.]+)", "(a|b)*c"] {
            assert_eq!(validate(Kind::Regex, r), Ok(()), "{r}");
        }
    }

    #[test]
    fn malformed_rules_are_refused_with_a_reason() {
        for r in [
            "price",
            "$.",
            "$[",
            "$[1:2:3:4]",
            "$[?(@.a ==)]",
            "$['open",
            "$.a b",
            "$[1:2, 3]",
        ] {
            assert!(validate(Kind::JsonPath, r).is_err(), "{r}");
        }
        for r in [
            "",
            "div >",
            "a[href",
            "p::before",
            "li:hover",
            "li:not(:not(a))",
            "td:nth-child(x)",
            "a, ",
            "div {",
        ] {
            assert!(validate(Kind::Css, r).is_err(), "{r}");
        }
        let e = validate(Kind::Regex, "(unclosed").expect_err("refused");
        assert!(e.contains("missing )"), "{e}");
    }

    #[test]
    fn the_regex_program_cap_is_enforced_at_its_exact_size() {
        // A literal compiles to one instruction a character, then `Match`: 1,023 characters
        // are exactly the cap, one more is over it and refused with the engine's reason.
        assert_eq!(
            validate(Kind::Regex, &"a".repeat(REGEX_MAX_PROGRAM - 1)),
            Ok(())
        );
        let e = validate(Kind::Regex, &"a".repeat(REGEX_MAX_PROGRAM)).expect_err("refused");
        assert!(e.contains("code size limit exceeded"), "{e}");
        let e = validate(Kind::Regex, &"()*".repeat(400)).expect_err("refused");
        assert!(e.contains("code size limit exceeded"), "{e}");
        // The densest shapes found (about two instructions a byte: an empty group and a
        // repeat around it, or an empty alternation) stay near half the cap within a rule's
        // 256 bytes, so at submission the rule's length bound binds before the cap does.
        let half = Limits {
            max_memory: Limits::default().max_memory,
            max_program: REGEX_MAX_PROGRAM / 2 + 2,
        };
        for dense in ["()*".repeat(85), "(|)*".repeat(64), "((|)*)*".repeat(36)] {
            assert!(dense.len() <= 256);
            let mut b = Budget::new(u64::MAX);
            Regex::compile_str(&dense, 0, &mut b, &half).expect("under half the cap");
        }
    }

    #[test]
    fn the_regex_charge_covers_the_engines_worst_case() {
        let p = GenesisParams::default();
        let r = "(a|b){100}";
        let steps = regex_steps(r.chars().count() as u64);
        assert!(rule_cycles(&p, Kind::Regex, r) >= steps);
        // The engine never exceeds that budget on a pattern it accepts.
        let mut b = Budget::new(steps);
        let limits = Limits {
            max_memory: Limits::default().max_memory,
            max_program: REGEX_MAX_PROGRAM,
        };
        Regex::compile_str(r, 0, &mut b, &limits).expect("compiles");
    }
}
