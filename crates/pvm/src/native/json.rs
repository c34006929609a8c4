//! `_json`: the scanner and encoder behind `json` (`src/stdlib/python/json.py`), in Rust, as
//! CPython's `json` sits on its C `_json`. The Python module keeps the API (`dumps`, `loads`,
//! `JSONEncoder`, `JSONDecoder`, `JSONDecodeError`, the hooks, `cls=`); these two functions do
//! the per-byte and per-element work:
//!
//! - `encode(obj, ensure_ascii, allow_nan, sort_keys, indent, item_separator, key_separator,
//!   skipkeys, check_circular, default)` → the JSON text, one string. `indent` is `None` or
//!   the indent string; `default` is called for anything not JSON (its result is encoded in
//!   its place). Floats are `float.__repr__`, ints `int.__repr__` (an `IntEnum` member is a
//!   number), as CPython writes them.
//! - `scan(s, idx, strict, object_hook, object_pairs_hook, parse_float, parse_int,
//!   parse_constant, error)` → `(value, end)`: one JSON value starting exactly at char `idx`.
//!   A `None` hook is the default (native float and int parsing: Rust's `f64` parse is
//!   correctly rounded, as CPython's is); `error` is `JSONDecodeError`, called with CPython's
//!   message, the document and the char position.
//!
//! Both are iterative (explicit stacks), so deep data never deepens the Rust stack; nesting is
//! bounded by `MAX_DEPTH` (500) with CPython's RecursionError messages, as the Python version
//! was. Metering: the scanner pays one cycle per byte of the document up front (`per_char`)
//! and one element per value made, plus the dict stores (`Vm::dict_set`, probes included);
//! the encoder pays per char written and per element visited, and checks the output against
//! the memory limit as it grows, before it becomes a string.

use std::rc::Rc;

use super::builtin;
use crate::cost;
use crate::value::*;
use crate::vm::{Args, Exc, Vm, R};

/// Nesting bound of both directions (json.py's `MAX_DEPTH`).
const MAX_DEPTH: usize = 500;

/// Output bytes between memory checks of the encoder.
const CHECK_EVERY: usize = 4096;

fn arg(a: &Args, i: usize) -> Value {
    a.pos.get(i).cloned().unwrap_or_default()
}

fn str_arg(vm: &mut Vm, a: &Args, i: usize, what: &str) -> R<Rc<PyStr>> {
    match Vm::base_of(&arg(a, i)) {
        Value::Str(s) => Ok(s),
        other => {
            let t = vm.type_name(&other);
            Err(vm.type_err(format!("{what} must be str, not {t}")))
        }
    }
}

// ------------------------------------------------------------------------------ encoding

/// The encoder's settings for one call.
struct Enc {
    ascii: bool,
    allow_nan: bool,
    sort_keys: bool,
    indent: Option<Rc<PyStr>>,
    item_sep: Rc<PyStr>,
    key_sep: Rc<PyStr>,
    skipkeys: bool,
    circular: bool,
    default: Value,
    out: String,
    checked: usize,
}

impl Enc {
    fn push(&mut self, vm: &mut Vm, s: &str) -> R<()> {
        vm.charge(cost::per_char(s.len()))?;
        self.out.push_str(s);
        if self.out.len() - self.checked >= CHECK_EVERY {
            self.checked = self.out.len();
            vm.reserve(self.out.len() as u64)?;
        }
        Ok(())
    }

    fn newline(&mut self, vm: &mut Vm, level: usize) -> R<()> {
        if let Some(ind) = self.indent.clone() {
            vm.charge(cost::per_char(ind.s.len().saturating_mul(level)))?;
            vm.reserve((self.out.len() + ind.s.len().saturating_mul(level)) as u64)?;
            self.out.push('\n');
            for _ in 0..level {
                self.out.push_str(&ind.s);
            }
        }
        Ok(())
    }

    fn quote(&mut self, vm: &mut Vm, s: &str) -> R<()> {
        // Paid per char read before, and for what escapes added after (at most twelve bytes
        // per char, `\uXXXX\uXXXX`); the output is checked against the memory limit.
        vm.charge(cost::per_char(s.len()))?;
        let before = self.out.len();
        self.out.push('"');
        for c in s.chars() {
            match c {
                '"' => self.out.push_str("\\\""),
                '\\' => self.out.push_str("\\\\"),
                '\n' => self.out.push_str("\\n"),
                '\r' => self.out.push_str("\\r"),
                '\t' => self.out.push_str("\\t"),
                '\u{8}' => self.out.push_str("\\b"),
                '\u{c}' => self.out.push_str("\\f"),
                c if (c as u32) < 0x20 => self.out.push_str(&format!("\\u{:04x}", c as u32)),
                c if self.ascii && (c as u32) >= 0x7f => {
                    let n = c as u32;
                    if n < 0x10000 {
                        self.out.push_str(&format!("\\u{n:04x}"));
                    } else {
                        let m = n - 0x10000;
                        self.out.push_str(&format!(
                            "\\u{:04x}\\u{:04x}",
                            0xd800 | (m >> 10),
                            0xdc00 | (m & 0x3ff)
                        ));
                    }
                }
                c => self.out.push(c),
            }
        }
        self.out.push('"');
        let written = self.out.len() - before;
        vm.charge(cost::per_char(written.saturating_sub(s.len())))?;
        if self.out.len() - self.checked >= CHECK_EVERY {
            self.checked = self.out.len();
            vm.reserve(self.out.len() as u64)?;
        }
        Ok(())
    }

    fn float(&mut self, vm: &mut Vm, f: f64) -> R<String> {
        let text = if f.is_nan() {
            "NaN"
        } else if f == f64::INFINITY {
            "Infinity"
        } else if f == f64::NEG_INFINITY {
            "-Infinity"
        } else {
            return Ok(crate::format::float_repr(f));
        };
        if !self.allow_nan {
            return Err(vm.value_err("Out of range float values are not JSON compliant"));
        }
        Ok(text.into())
    }

    fn int(&mut self, vm: &mut Vm, v: &Value) -> R<String> {
        match v {
            Value::Int(i) => Ok(i.to_string()),
            Value::Bool(b) => Ok((*b as i64).to_string()),
            other => vm.repr(other),
        }
    }

    /// The object key for a dict key, `None` to skip it (`skipkeys`).
    fn key(&mut self, vm: &mut Vm, k: &Value) -> R<Option<String>> {
        Ok(Some(match k {
            Value::Bool(true) => "true".into(),
            Value::Bool(false) => "false".into(),
            Value::None => "null".into(),
            _ => match Vm::base_of(k) {
                Value::Str(s) => s.s.clone(),
                Value::Float(f) => self.float(vm, f)?,
                b @ (Value::Int(_) | Value::BigInt(_)) => self.int(vm, &b)?,
                _ if self.skipkeys => return Ok(None),
                _ => {
                    let t = vm.type_name(k);
                    return Err(vm.type_err(format!(
                        "keys must be str, int, float, bool or None, not {t}"
                    )));
                }
            },
        }))
    }
}

/// An open container of the encoder: its items, the next one's index and its indent level;
/// or the marker of a `default()` result being encoded.
enum Open {
    Seq(Vec<Value>, usize, usize),
    /// Also: whether a member has been written yet (`skipkeys` may skip the first keys).
    Map(Vec<(Value, Value)>, usize, usize, bool),
    Default,
}

fn f_encode(vm: &mut Vm, a: Args) -> R<Value> {
    let indent = match arg(&a, 4) {
        Value::None => None,
        _ => Some(str_arg(vm, &a, 4, "indent")?),
    };
    let mut e = Enc {
        ascii: vm.truthy(&arg(&a, 1))?,
        allow_nan: vm.truthy(&arg(&a, 2))?,
        sort_keys: vm.truthy(&arg(&a, 3))?,
        indent,
        item_sep: str_arg(vm, &a, 5, "item_separator")?,
        key_sep: str_arg(vm, &a, 6, "key_separator")?,
        skipkeys: vm.truthy(&arg(&a, 7))?,
        circular: vm.truthy(&arg(&a, 8))?,
        default: arg(&a, 9),
        out: String::new(),
        checked: 0,
    };
    let mut stack: Vec<Open> = Vec::new();
    let mut markers: Vec<Value> = Vec::new();
    let mut level = 0usize;
    let mut pending = arg(&a, 0);
    loop {
        vm.charge(cost::PER_ELEM)?;
        let v = pending;
        let base = Vm::base_of(&v);
        let mut opened = None;
        match (&v, &base) {
            (Value::None, _) => e.push(vm, "null")?,
            (Value::Bool(true), _) => e.push(vm, "true")?,
            (Value::Bool(false), _) => e.push(vm, "false")?,
            (_, Value::Str(s)) => e.quote(vm, &s.s)?,
            (_, Value::Int(_) | Value::BigInt(_)) => {
                let t = e.int(vm, &base)?;
                e.push(vm, &t)?
            }
            (_, Value::Float(f)) => {
                let t = e.float(vm, *f)?;
                e.push(vm, &t)?
            }
            (_, Value::List(_) | Value::Tuple(_)) => {
                let items = match &base {
                    Value::List(l) => l.items.borrow().clone(),
                    Value::Tuple(t) => t.items.to_vec(),
                    _ => Vec::new(),
                };
                vm.charge(cost::per_elem(items.len()))?;
                if items.is_empty() {
                    e.push(vm, "[]")?;
                } else {
                    e.push(vm, "[")?;
                    level += 1;
                    e.newline(vm, level)?;
                    opened = Some(Open::Seq(items, 0, level));
                }
            }
            (_, Value::Dict(d)) => {
                let items: Vec<(Value, Value)> = d
                    .table
                    .borrow()
                    .iter()
                    .map(|en| (en.key.clone(), en.value.clone()))
                    .collect();
                vm.charge(cost::per_elem(items.len()))?;
                if items.is_empty() {
                    e.push(vm, "{}")?;
                } else {
                    let items = if e.sort_keys {
                        sorted(vm, items)?
                    } else {
                        items
                    };
                    e.push(vm, "{")?;
                    level += 1;
                    // As CPython's encoder: the first indent is written with the bracket,
                    // even if `skipkeys` then skips every key.
                    e.newline(vm, level)?;
                    opened = Some(Open::Map(items, 0, level, false));
                }
            }
            _ => {
                enter(vm, &mut markers, &v, stack.len(), e.circular)?;
                stack.push(Open::Default);
                let f = e.default.clone();
                pending = vm.call(&f, Args::new(vec![v]))?;
                continue;
            }
        }
        if let Some(o) = opened {
            enter(vm, &mut markers, &v, stack.len(), e.circular)?;
            stack.push(o);
        }
        // Find the next value to write, closing finished containers.
        pending = loop {
            let Some(top) = stack.last_mut() else {
                return Ok(Value::str(&e.out));
            };
            let step = match top {
                Open::Default => Step::Close(None),
                Open::Seq(items, i, lvl) if *i < items.len() => {
                    *i += 1;
                    Step::Item(items[*i - 1].clone(), *i == 1, *lvl)
                }
                Open::Map(items, i, lvl, written) if *i < items.len() => {
                    *i += 1;
                    let (k, v) = items[*i - 1].clone();
                    Step::Member(k, v, !*written, *lvl)
                }
                Open::Seq(..) => Step::Close(Some("]")),
                Open::Map(..) => Step::Close(Some("}")),
            };
            match step {
                Step::Close(close) => {
                    stack.pop();
                    if let Some(close) = close {
                        level -= 1;
                        e.newline(vm, level)?;
                        e.push(vm, close)?;
                    }
                    if e.circular {
                        markers.pop();
                    }
                }
                Step::Item(item, first, lvl) => {
                    if !first {
                        let sep = e.item_sep.clone();
                        e.push(vm, &sep.s)?;
                        e.newline(vm, lvl)?;
                    }
                    break item;
                }
                Step::Member(k, v, first, lvl) => {
                    // With `skipkeys`, the first member written need not be the first key.
                    let Some(key) = e.key(vm, &k)? else {
                        continue;
                    };
                    if let Some(Open::Map(.., written)) = stack.last_mut() {
                        *written = true;
                    }
                    if !first {
                        let sep = e.item_sep.clone();
                        e.push(vm, &sep.s)?;
                        e.newline(vm, lvl)?;
                    }
                    e.quote(vm, &key)?;
                    let sep = e.key_sep.clone();
                    e.push(vm, &sep.s)?;
                    break v;
                }
            }
        };
    }
}

/// What the encoder does next with the innermost open container.
enum Step {
    /// It is finished: close it with this bracket (`None`: a `default()` result).
    Close(Option<&'static str>),
    /// Write this item (whether it is the first, the indent level).
    Item(Value, bool, usize),
    /// Write this key and value (whether it is the first written, the indent level).
    Member(Value, Value, bool, usize),
}

/// Circularity and depth check on entering a container or a `default()` result.
fn enter(vm: &mut Vm, markers: &mut Vec<Value>, v: &Value, depth: usize, circular: bool) -> R<()> {
    if depth >= MAX_DEPTH {
        return Err(vm.new_exc(
            "RecursionError",
            "maximum recursion depth exceeded while encoding a JSON object",
        ));
    }
    if circular {
        vm.charge(cost::per_elem(markers.len()))?;
        if markers.iter().any(|m| m.is(v)) {
            return Err(vm.value_err("Circular reference detected"));
        }
        markers.push(v.clone());
    }
    Ok(())
}

/// `sorted(d.items())`, by the list sort (Python comparisons, TypeError on mixed keys).
fn sorted(vm: &mut Vm, items: Vec<(Value, Value)>) -> R<Vec<(Value, Value)>> {
    let pairs: Vec<Value> = items
        .into_iter()
        .map(|(k, v)| Value::tuple(vec![k, v]))
        .collect();
    let list = Rc::new(PyList::new(pairs));
    crate::objects::list::sort(vm, &list, Args::default())?;
    let out = list
        .items
        .borrow()
        .iter()
        .filter_map(|p| match p {
            Value::Tuple(t) if t.items.len() == 2 => Some((t.items[0].clone(), t.items[1].clone())),
            _ => None,
        })
        .collect();
    Ok(out)
}

// ------------------------------------------------------------------------------ decoding

/// One scan: the document, its hooks and where errors are raised from.
struct Scan<'a> {
    doc: &'a Rc<PyStr>,
    b: &'a [u8],
    strict: bool,
    object_hook: Value,
    pairs_hook: Value,
    parse_float: Value,
    parse_int: Value,
    parse_constant: Value,
    error: Value,
}

/// An open container of the scanner.
enum Partial {
    Array(Vec<Value>),
    Object(Vec<(Value, Value)>, Value),
}

impl Scan<'_> {
    /// The char index of byte offset `b` (errors and the end position are in chars).
    fn char_pos(&self, b: usize) -> usize {
        if self.doc.ascii {
            b
        } else {
            self.doc.s[..b.min(self.b.len())].chars().count()
        }
    }

    fn err(&self, vm: &mut Vm, msg: &str, at: usize) -> Exc {
        let pos = self.char_pos(at) as i64;
        let args = vec![
            Value::str(msg),
            Value::Str(self.doc.clone()),
            Value::Int(pos),
        ];
        match vm.call(&self.error, Args::new(args)) {
            Ok(e) => Exc::Py(e),
            Err(e) => e,
        }
    }

    fn ws(&self, mut i: usize) -> usize {
        while i < self.b.len() && matches!(self.b[i], b' ' | b'\t' | b'\n' | b'\r') {
            i += 1;
        }
        i
    }

    fn at(&self, i: usize, lit: &str) -> bool {
        self.b[i.min(self.b.len())..].starts_with(lit.as_bytes())
    }

    /// The string whose opening quote is at `i - 1`: its value and the byte after its quote.
    fn string(&self, vm: &mut Vm, mut i: usize) -> R<(String, usize)> {
        let begin = i - 1;
        let mut out = String::new();
        loop {
            let start = i;
            while i < self.b.len() && self.b[i] != b'"' && self.b[i] != b'\\' {
                if self.strict && self.b[i] < 0x20 {
                    return Err(self.err(vm, "Invalid control character at", i));
                }
                i += 1;
            }
            out.push_str(&self.doc.s[start..i]);
            if i >= self.b.len() {
                return Err(self.err(vm, "Unterminated string starting at", begin));
            }
            if self.b[i] == b'"' {
                return Ok((out, i + 1));
            }
            // A backslash escape at `i`.
            let Some(&esc) = self.b.get(i + 1) else {
                return Err(self.err(vm, "Unterminated string starting at", begin));
            };
            let c = match esc {
                b'"' => '"',
                b'\\' => '\\',
                b'/' => '/',
                b'b' => '\u{8}',
                b'f' => '\u{c}',
                b'n' => '\n',
                b'r' => '\r',
                b't' => '\t',
                b'u' => {
                    let mut uni = self.hex4(vm, i + 1)?;
                    let mut end = i + 6;
                    if (0xd800..=0xdbff).contains(&uni) && self.at(end, "\\u") {
                        let low = self.hex4(vm, end + 1)?;
                        if (0xdc00..=0xdfff).contains(&low) {
                            uni = 0x10000 + (((uni - 0xd800) << 10) | (low - 0xdc00));
                            end += 6;
                        }
                    }
                    // The PVM's str holds Unicode scalar values only (LIMITATIONS 21).
                    let Some(c) = char::from_u32(uni) else {
                        return Err(self.err(
                            vm,
                            "Lone surrogate \\uXXXX escape is not supported by the PVM",
                            i,
                        ));
                    };
                    out.push(c);
                    i = end;
                    continue;
                }
                _ => {
                    return Err(self.err(vm, "Invalid \\escape", i));
                }
            };
            out.push(c);
            i += 2;
        }
    }

    /// The four hex digits after the `u` at `u`.
    fn hex4(&self, vm: &mut Vm, u: usize) -> R<u32> {
        let digits = self
            .b
            .get(u + 1..u + 5)
            .filter(|d| d.iter().all(u8::is_ascii_hexdigit));
        match digits {
            Some(d) => Ok(d.iter().fold(0, |acc, &h| {
                acc * 16 + (h as char).to_digit(16).unwrap_or(0)
            })),
            None => Err(self.err(vm, "Invalid \\uXXXX escape", u)),
        }
    }

    /// A number at `i`: its value and end, or `None` when none starts there.
    fn number(&self, vm: &mut Vm, i: usize) -> R<Option<(Value, usize)>> {
        let b = self.b;
        let n = b.len();
        let mut j = i;
        if j < n && b[j] == b'-' {
            j += 1;
        }
        if j < n && (b'1'..=b'9').contains(&b[j]) {
            while j < n && b[j].is_ascii_digit() {
                j += 1;
            }
        } else if j < n && b[j] == b'0' {
            j += 1;
        } else {
            return Ok(None);
        }
        let mut is_float = false;
        if j + 1 < n && b[j] == b'.' && b[j + 1].is_ascii_digit() {
            is_float = true;
            j += 2;
            while j < n && b[j].is_ascii_digit() {
                j += 1;
            }
        }
        if j < n && (b[j] == b'e' || b[j] == b'E') {
            let e_start = j;
            j += 1;
            if j < n && (b[j] == b'-' || b[j] == b'+') {
                j += 1;
            }
            let digits = j;
            while j < n && b[j].is_ascii_digit() {
                j += 1;
            }
            if j > digits {
                is_float = true;
            } else {
                j = e_start;
            }
        }
        let text = &self.doc.s[i..j];
        let v = if is_float {
            if self.parse_float.is_none() {
                Value::Float(text.parse::<f64>().unwrap_or(f64::NAN))
            } else {
                vm.call(&self.parse_float, Args::new(vec![Value::str(text)]))?
            }
        } else if self.parse_int.is_none() {
            match text.parse::<i64>() {
                Ok(x) => Value::Int(x),
                // Beyond i64: `int()` (the big-int cap and its message apply).
                Err(_) => {
                    let int = Value::Class(vm.types.int.clone());
                    vm.call(&int, Args::new(vec![Value::str(text)]))?
                }
            }
        } else {
            vm.call(&self.parse_int, Args::new(vec![Value::str(text)]))?
        };
        Ok(Some((v, j)))
    }

    fn constant(&self, vm: &mut Vm, name: &str) -> R<Value> {
        if self.parse_constant.is_none() {
            return Ok(Value::Float(match name {
                "NaN" => f64::NAN,
                "Infinity" => f64::INFINITY,
                _ => f64::NEG_INFINITY,
            }));
        }
        vm.call(&self.parse_constant, Args::new(vec![Value::str(name)]))
    }

    fn finish_object(&self, vm: &mut Vm, pairs: Vec<(Value, Value)>) -> R<Value> {
        if !self.pairs_hook.is_none() {
            let list = pairs
                .into_iter()
                .map(|(k, v)| Value::tuple(vec![k, v]))
                .collect();
            return vm.call(&self.pairs_hook, Args::new(vec![Value::list(list)]));
        }
        let d = rc_dict(PyDict::new());
        for (k, v) in pairs {
            vm.dict_set(&d, k, v)?;
        }
        if !self.object_hook.is_none() {
            return vm.call(&self.object_hook, Args::new(vec![Value::Dict(d)]));
        }
        Ok(Value::Dict(d))
    }

    /// `"key" :` at `i` (the quote): the key and the first byte of the value.
    fn key_colon(&self, vm: &mut Vm, i: usize) -> R<(Value, usize)> {
        let (key, i) = self.string(vm, i + 1)?;
        let i = self.ws(i);
        if self.b.get(i) != Some(&b':') {
            return Err(self.err(vm, "Expecting ':' delimiter", i));
        }
        Ok((Value::str(&key), self.ws(i + 1)))
    }

    fn depth_err(vm: &mut Vm, what: &str) -> Exc {
        vm.new_exc(
            "RecursionError",
            &format!("maximum recursion depth exceeded while decoding a JSON {what} from a unicode string"),
        )
    }

    /// One value at byte `i`: the value and the byte after it.
    fn value(&self, vm: &mut Vm, mut i: usize) -> R<(Value, usize)> {
        let mut stack: Vec<Partial> = Vec::new();
        loop {
            vm.charge(cost::PER_ELEM)?;
            let mut value = match self.b.get(i) {
                Some(b'"') => {
                    let (s, end) = self.string(vm, i + 1)?;
                    i = end;
                    Value::str(&s)
                }
                Some(b'{') => {
                    i = self.ws(i + 1);
                    match self.b.get(i) {
                        Some(b'}') => {
                            i += 1;
                            self.finish_object(vm, Vec::new())?
                        }
                        Some(b'"') => {
                            if stack.len() >= MAX_DEPTH {
                                return Err(Self::depth_err(vm, "object"));
                            }
                            let (key, next) = self.key_colon(vm, i)?;
                            i = next;
                            stack.push(Partial::Object(Vec::new(), key));
                            continue;
                        }
                        _ => {
                            return Err(self.err(
                                vm,
                                "Expecting property name enclosed in double quotes",
                                i,
                            ))
                        }
                    }
                }
                Some(b'[') => {
                    i = self.ws(i + 1);
                    if self.b.get(i) == Some(&b']') {
                        i += 1;
                        Value::list(Vec::new())
                    } else {
                        if stack.len() >= MAX_DEPTH {
                            return Err(Self::depth_err(vm, "array"));
                        }
                        stack.push(Partial::Array(Vec::new()));
                        continue;
                    }
                }
                Some(b'n') if self.at(i, "null") => {
                    i += 4;
                    Value::None
                }
                Some(b't') if self.at(i, "true") => {
                    i += 4;
                    Value::Bool(true)
                }
                Some(b'f') if self.at(i, "false") => {
                    i += 5;
                    Value::Bool(false)
                }
                Some(b'N') if self.at(i, "NaN") => {
                    i += 3;
                    self.constant(vm, "NaN")?
                }
                Some(b'I') if self.at(i, "Infinity") => {
                    i += 8;
                    self.constant(vm, "Infinity")?
                }
                Some(b'-') if self.at(i, "-Infinity") => {
                    i += 9;
                    self.constant(vm, "-Infinity")?
                }
                _ => match self.number(vm, i)? {
                    Some((v, end)) => {
                        i = end;
                        v
                    }
                    None => return Err(self.err(vm, "Expecting value", i)),
                },
            };
            // Attach the value to the innermost open container(s).
            loop {
                let Some(top) = stack.last_mut() else {
                    return Ok((value, i));
                };
                i = self.ws(i);
                let c = self.b.get(i).copied();
                match top {
                    Partial::Array(items) => {
                        items.push(value);
                        if c == Some(b']') {
                            i += 1;
                            let Some(Partial::Array(items)) = stack.pop() else {
                                return Ok((Value::None, i));
                            };
                            value = Value::list(items);
                            continue;
                        }
                        if c != Some(b',') {
                            return Err(self.err(vm, "Expecting ',' delimiter", i));
                        }
                        i = self.ws(i + 1);
                        break;
                    }
                    Partial::Object(pairs, key) => {
                        pairs.push((key.clone(), value));
                        if c == Some(b'}') {
                            i += 1;
                            let Some(Partial::Object(pairs, _)) = stack.pop() else {
                                return Ok((Value::None, i));
                            };
                            value = self.finish_object(vm, pairs)?;
                            continue;
                        }
                        if c != Some(b',') {
                            return Err(self.err(vm, "Expecting ',' delimiter", i));
                        }
                        i = self.ws(i + 1);
                        if self.b.get(i) != Some(&b'"') {
                            return Err(self.err(
                                vm,
                                "Expecting property name enclosed in double quotes",
                                i,
                            ));
                        }
                        let (k, next) = self.key_colon(vm, i)?;
                        if let Some(Partial::Object(_, key)) = stack.last_mut() {
                            *key = k;
                        }
                        i = next;
                        break;
                    }
                }
            }
        }
    }
}

fn f_scan(vm: &mut Vm, a: Args) -> R<Value> {
    let doc = str_arg(vm, &a, 0, "the JSON object")?;
    let idx = vm.index_of(&arg(&a, 1))?.max(0) as usize;
    vm.charge(cost::per_char(doc.s.len()))?;
    let scan = Scan {
        doc: &doc,
        b: doc.s.as_bytes(),
        strict: vm.truthy(&arg(&a, 2))?,
        object_hook: arg(&a, 3),
        pairs_hook: arg(&a, 4),
        parse_float: arg(&a, 5),
        parse_int: arg(&a, 6),
        parse_constant: arg(&a, 7),
        error: arg(&a, 8),
    };
    let start = doc.byte_offset(idx);
    let (v, end) = scan.value(vm, start)?;
    let end = scan.char_pos(end) as i64;
    Ok(Value::tuple(vec![v, Value::Int(end)]))
}

/// Load `_json`.
pub fn load(vm: &mut Vm, name: &str) -> R<Value> {
    let d = rc_dict(PyDict::new());
    vm.dict_set_str(&d, "__name__", Value::str(name))?;
    vm.dict_set_str(&d, "encode", builtin("encode", f_encode))?;
    vm.dict_set_str(&d, "scan", builtin("scan", f_scan))?;
    Ok(super::module(name, d))
}
