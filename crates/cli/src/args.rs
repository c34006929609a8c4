//! `--args`: JSON handler arguments read with exact integers.
//!
//! `serde_json` reads an integer beyond 64 bits as a float unless its `arbitrary_precision`
//! feature is on, and that feature is unified across the workspace (it would change how the
//! node's own JSON behaves). Handler arguments are often token amounts in wei, where
//! `10**20` must stay `10**20`, so `--args` has its own small reader (RFC 8259 grammar) that
//! produces CBOR values directly: an integer literal of any size becomes a CBOR integer or
//! bignum (the PVM caps ints at 4096 bits and says so), a number with a fraction or exponent a
//! float. The object conventions are `cowboy_types::json::from_json`'s: `{"bytes": "0x…"}` is a
//! byte string and `{"map": [[k, v], …]}` a map with non-text keys.
//!
//! [`parse_call`] reads the call expressions of `cowboy actor test --call 'transfer(dev1, 5)'`
//! with the same reader, widened towards Python literals: `True`/`False`/`None`, strings in
//! single quotes, a trailing comma, `name=value` keyword arguments, and bare names that the
//! caller resolves (dev accounts, the actor under test).

use cowboy_types::cbor::Value;
use num_bigint::BigInt;

/// Deepest nesting accepted (a command line never needs more; the PVM's limit is lower).
const MAX_DEPTH: usize = 256;

/// Read `text` as one JSON value.
pub fn parse(text: &str) -> Result<Value, String> {
    let mut p = Parser {
        s: text.as_bytes(),
        i: 0,
        depth: 0,
        names: None,
    };
    p.ws();
    let v = p.value()?;
    p.ws();
    if p.i != p.s.len() {
        return Err(p.err("trailing characters"));
    }
    Ok(v)
}

/// Resolves the bare names of a call expression to values (`None`: unknown name).
pub type Names<'a> = &'a dyn Fn(&str) -> Option<Value>;

/// Read a call expression: `handler`, or `handler(arg, …)` with positional arguments or
/// `handler(name=arg, …)` with keyword arguments (not both: a transaction carries one or the
/// other). Arguments are JSON values with exact integers, or the Python literals `True`,
/// `False`, `None`, `'single-quoted'` strings, or a bare name `names` resolves. Returns the
/// handler and its arguments as an array (positional) or a map (keyword); `None` for the
/// arguments when no parentheses were given.
pub fn parse_call(text: &str, names: Names<'_>) -> Result<(String, Option<Value>), String> {
    let mut p = Parser {
        s: text.as_bytes(),
        i: 0,
        depth: 0,
        names: Some(names),
    };
    p.ws();
    let handler = p
        .identifier()
        .ok_or_else(|| p.err("expected a handler name"))?;
    p.ws();
    if p.i == p.s.len() {
        return Ok((handler, None));
    }
    if !p.eat("(") {
        return Err(p.err("expected '(' after the handler name"));
    }
    let mut positional = Vec::new();
    let mut keyword: Vec<(Value, Value)> = Vec::new();
    loop {
        p.ws();
        if p.eat(")") {
            break;
        }
        // `name=value` (but not `name==…`, which is no Python argument either).
        let save = p.i;
        let kw = p.identifier().and_then(|k| {
            p.ws();
            (p.s.get(p.i) == Some(&b'=') && p.s.get(p.i + 1) != Some(&b'=')).then_some(k)
        });
        match kw {
            Some(k) => {
                p.i += 1;
                p.ws();
                let v = p.value()?;
                if keyword
                    .iter()
                    .any(|(old, _)| *old == Value::Text(k.clone()))
                {
                    return Err(format!("keyword argument {k:?} repeated"));
                }
                keyword.push((Value::Text(k), v));
            }
            None => {
                p.i = save;
                if !keyword.is_empty() {
                    return Err(p.err("positional argument after a keyword argument"));
                }
                positional.push(p.value()?);
            }
        }
        p.ws();
        if p.eat(")") {
            break;
        }
        if !p.eat(",") {
            return Err(p.err("expected ',' or ')'"));
        }
    }
    p.ws();
    if p.i != p.s.len() {
        return Err(p.err("trailing characters"));
    }
    let args = match (positional.is_empty(), keyword.is_empty()) {
        (_, true) => Value::Array(positional),
        (true, false) => Value::Map(keyword),
        (false, false) => {
            return Err(
                "give the arguments all positionally or all by keyword: a call \
                        carries one or the other"
                    .into(),
            )
        }
    };
    Ok((handler, Some(args)))
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
    depth: usize,
    /// Set when reading a call expression: Python literals and bare names are allowed.
    names: Option<Names<'a>>,
}

impl Parser<'_> {
    fn err(&self, what: &str) -> String {
        format!("{what} at character {}", self.i + 1)
    }

    fn ws(&mut self) {
        while matches!(self.s.get(self.i), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.i += 1;
        }
    }

    fn eat(&mut self, lit: &str) -> bool {
        if self.s[self.i..].starts_with(lit.as_bytes()) {
            self.i += lit.len();
            true
        } else {
            false
        }
    }

    /// A Python identifier (ASCII): `[A-Za-z_][A-Za-z0-9_]*`.
    fn identifier(&mut self) -> Option<String> {
        let start = self.i;
        if !matches!(self.s.get(self.i), Some(b'A'..=b'Z' | b'a'..=b'z' | b'_')) {
            return None;
        }
        while matches!(
            self.s.get(self.i),
            Some(b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'_')
        ) {
            self.i += 1;
        }
        Some(String::from_utf8_lossy(&self.s[start..self.i]).into_owned())
    }

    /// A Python literal or a bare name (call expressions only).
    fn name(&mut self) -> Result<Value, String> {
        let names = self.names.unwrap_or(&|_| None);
        let at = self.i;
        let Some(id) = self.identifier() else {
            return Err(self.err("expected a value"));
        };
        Ok(match id.as_str() {
            "True" | "true" => Value::Bool(true),
            "False" | "false" => Value::Bool(false),
            "None" | "null" => Value::Null,
            _ => names(&id).ok_or_else(|| {
                format!(
                    "unknown name {id:?} at character {}: give a quoted string, a number, \
                     dev0 … dev9 (the dev accounts' addresses) or actor (the actor's)",
                    at + 1
                )
            })?,
        })
    }

    fn value(&mut self) -> Result<Value, String> {
        match self.s.get(self.i) {
            None => Err(self.err("unexpected end")),
            Some(b'{') => self.nested(Self::object),
            Some(b'[') => self.nested(Self::array),
            Some(b'"') => Ok(Value::Text(self.string()?)),
            Some(b'\'') if self.names.is_some() => Ok(Value::Text(self.string()?)),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(_) if self.names.is_some() => self.name(),
            Some(_) if self.eat("true") => Ok(Value::Bool(true)),
            Some(_) if self.eat("false") => Ok(Value::Bool(false)),
            Some(_) if self.eat("null") => Ok(Value::Null),
            Some(_) => Err(self.err("expected a JSON value")),
        }
    }

    fn nested(&mut self, f: fn(&mut Self) -> Result<Value, String>) -> Result<Value, String> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.err("nested too deeply"));
        }
        let v = f(self);
        self.depth -= 1;
        v
    }

    fn array(&mut self) -> Result<Value, String> {
        self.i += 1;
        let mut items = Vec::new();
        self.ws();
        if self.eat("]") {
            return Ok(Value::Array(items));
        }
        loop {
            self.ws();
            items.push(self.value()?);
            self.ws();
            if self.eat("]") {
                return Ok(Value::Array(items));
            }
            if !self.eat(",") {
                return Err(self.err("expected ',' or ']'"));
            }
        }
    }

    fn object(&mut self) -> Result<Value, String> {
        self.i += 1;
        let mut entries: Vec<(String, Value)> = Vec::new();
        self.ws();
        if !self.eat("}") {
            loop {
                self.ws();
                if self.s.get(self.i) != Some(&b'"') {
                    return Err(self.err("expected a string key"));
                }
                let k = self.string()?;
                self.ws();
                if !self.eat(":") {
                    return Err(self.err("expected ':'"));
                }
                self.ws();
                let v = self.value()?;
                // Later duplicates win, as in serde_json and JavaScript.
                entries.retain(|(old, _)| *old != k);
                entries.push((k, v));
                self.ws();
                if self.eat("}") {
                    break;
                }
                if !self.eat(",") {
                    return Err(self.err("expected ',' or '}'"));
                }
            }
        }
        object_value(entries)
    }

    fn hex4(&mut self) -> Result<u32, String> {
        let h = self
            .s
            .get(self.i..self.i + 4)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u32::from_str_radix(h, 16).ok())
            .ok_or_else(|| self.err("bad \\u escape"))?;
        self.i += 4;
        Ok(h)
    }

    /// A string in the quotes it starts with (`'` only in call expressions).
    fn string(&mut self) -> Result<String, String> {
        let quote = self.s[self.i];
        self.i += 1;
        let mut out = String::new();
        loop {
            let start = self.i;
            while let Some(&c) = self.s.get(self.i) {
                if c == quote || c == b'\\' || c < 0x20 {
                    break;
                }
                self.i += 1;
            }
            // The input is a &str and the run stops at ASCII bytes: the slice is UTF-8.
            out.push_str(std::str::from_utf8(&self.s[start..self.i]).unwrap_or_default());
            match self.s.get(self.i) {
                None => return Err(self.err("unterminated string")),
                Some(&c) if c == quote => {
                    self.i += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    self.i += 1;
                    let Some(&e) = self.s.get(self.i) else {
                        return Err(self.err("unterminated string"));
                    };
                    self.i += 1;
                    match e {
                        b'"' => out.push('"'),
                        b'\'' if quote == b'\'' => out.push('\''),
                        b'\\' => out.push('\\'),
                        b'/' => out.push('/'),
                        b'b' => out.push('\u{8}'),
                        b'f' => out.push('\u{c}'),
                        b'n' => out.push('\n'),
                        b'r' => out.push('\r'),
                        b't' => out.push('\t'),
                        b'u' => {
                            let hi = self.hex4()?;
                            let code = if (0xD800..0xDC00).contains(&hi) && self.eat("\\u") {
                                let lo = self.hex4()?;
                                if !(0xDC00..0xE000).contains(&lo) {
                                    return Err(self.err("bad surrogate pair"));
                                }
                                0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)
                            } else {
                                hi
                            };
                            out.push(
                                char::from_u32(code).ok_or_else(|| self.err("lone surrogate"))?,
                            );
                        }
                        _ => return Err(self.err("bad escape")),
                    }
                }
                Some(_) => return Err(self.err("control character in string")),
            }
        }
    }

    fn number(&mut self) -> Result<Value, String> {
        let start = self.i;
        self.eat("-");
        let digits = self.i;
        while matches!(self.s.get(self.i), Some(b'0'..=b'9')) {
            self.i += 1;
        }
        let int_len = self.i - digits;
        if int_len == 0 || (int_len > 1 && self.s[digits] == b'0') {
            return Err(self.err("bad number"));
        }
        let mut float = false;
        if self.eat(".") {
            float = true;
            let f = self.i;
            while matches!(self.s.get(self.i), Some(b'0'..=b'9')) {
                self.i += 1;
            }
            if self.i == f {
                return Err(self.err("bad number"));
            }
        }
        if matches!(self.s.get(self.i), Some(b'e' | b'E')) {
            float = true;
            self.i += 1;
            if matches!(self.s.get(self.i), Some(b'+' | b'-')) {
                self.i += 1;
            }
            let e = self.i;
            while matches!(self.s.get(self.i), Some(b'0'..=b'9')) {
                self.i += 1;
            }
            if self.i == e {
                return Err(self.err("bad number"));
            }
        }
        let text = std::str::from_utf8(&self.s[start..self.i]).unwrap_or_default();
        if float {
            let f: f64 = text.parse().map_err(|_| self.err("bad number"))?;
            return Ok(Value::Float(f));
        }
        let n: BigInt = text.parse().map_err(|_| self.err("bad number"))?;
        Ok(int_value(&n))
    }
}

/// A CBOR integer of any size: plain when it fits 64 bits, else a bignum (tags 2 and 3).
pub fn int_value(n: &BigInt) -> Value {
    use num_bigint::Sign;
    let (sign, magnitude) = n.to_bytes_be();
    if sign == Sign::Minus {
        // CBOR stores a negative n as -1 - m.
        let m: BigInt = -n - 1;
        match u64::try_from(&m) {
            Ok(small) => Value::Nint(small),
            Err(_) => Value::BigNint(m.to_bytes_be().1),
        }
    } else {
        match u64::try_from(n) {
            Ok(small) => Value::Uint(small),
            Err(_) => Value::BigUint(magnitude),
        }
    }
}

/// An object, with `from_json`'s two conventions.
fn object_value(entries: Vec<(String, Value)>) -> Result<Value, String> {
    if let [(k, v)] = entries.as_slice() {
        match (k.as_str(), v) {
            ("bytes", Value::Text(h)) => {
                let digits = h
                    .strip_prefix("0x")
                    .ok_or_else(|| format!("{{\"bytes\": {h:?}}} is not 0x-prefixed hex"))?;
                let b = hex::decode(digits)
                    .map_err(|_| format!("{{\"bytes\": {h:?}}} is not 0x-prefixed hex"))?;
                return Ok(Value::Bytes(b));
            }
            ("map", Value::Array(pairs)) => {
                let mut out = Vec::new();
                for p in pairs {
                    match p {
                        Value::Array(kv) if kv.len() == 2 => {
                            out.push((kv[0].clone(), kv[1].clone()))
                        }
                        _ => return Err("{\"map\": …} must hold [key, value] pairs".into()),
                    }
                }
                return Ok(Value::Map(out));
            }
            _ => {}
        }
    }
    Ok(Value::Map(
        entries
            .into_iter()
            .map(|(k, v)| (Value::Text(k), v))
            .collect(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use cowboy_types::json::from_json;

    #[test]
    fn integers_beyond_64_bits_stay_exact() {
        // 10**20 and 2**64: serde_json would have made both floats.
        assert_eq!(
            parse("[100000000000000000000, 18446744073709551616]").unwrap(),
            Value::Array(vec![
                Value::BigUint(vec![0x05, 0x6b, 0xc7, 0x5e, 0x2d, 0x63, 0x10, 0x00, 0x00]),
                Value::BigUint(vec![1, 0, 0, 0, 0, 0, 0, 0, 0]),
            ])
        );
        assert_eq!(
            parse("18446744073709551615").unwrap(),
            Value::Uint(u64::MAX)
        );
        assert_eq!(parse("-1").unwrap(), Value::Nint(0));
        assert_eq!(
            parse("-18446744073709551616").unwrap(),
            Value::Nint(u64::MAX)
        );
        assert_eq!(
            parse("-18446744073709551617").unwrap(),
            Value::BigNint(vec![1, 0, 0, 0, 0, 0, 0, 0, 0])
        );
        assert_eq!(parse("1.5").unwrap(), Value::Float(1.5));
        assert_eq!(parse("1e3").unwrap(), Value::Float(1000.0));
    }

    #[test]
    fn agrees_with_serde_json_where_it_is_exact() {
        for text in [
            r#"[1, -2, "x\u00e9\n\ud83d\ude00", true, false, null, 1.25, {"a": [1, {}], "b": []}]"#,
            r#"{"bytes": "0x00ff"}"#,
            r#"{"map": [[1, "one"], [[2], null]]}"#,
            r#"{"k": 1, "k": 2}"#,
            "  [ ]  ",
        ] {
            let ours = parse(text).unwrap();
            let theirs = from_json(&serde_json::from_str(text).unwrap()).unwrap();
            assert_eq!(ours, theirs, "{text}");
        }
    }

    #[test]
    fn rejects_what_json_rejects() {
        for bad in [
            "",
            "[1,]",
            "[01]",
            "{'a': 1}",
            "[1",
            "\"abc",
            "1.",
            "-",
            "[1] x",
            "{\"a\" 1}",
            "\"\\x\"",
            "tru",
            "[1e]",
        ] {
            assert!(parse(bad).is_err(), "{bad:?}");
            assert!(
                serde_json::from_str::<serde_json::Value>(bad).is_err(),
                "{bad:?}"
            );
        }
        let deep = "[".repeat(10_000);
        assert!(parse(&deep).unwrap_err().contains("nested too deeply"));
    }
}
