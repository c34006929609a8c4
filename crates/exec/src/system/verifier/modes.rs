//! The verification modes of CIP-2 §9 as pure, deterministic functions: given the revealed
//! results of a job's committee (already checked against their commitments and signatures),
//! which of them agree, if enough do. Integer arithmetic only, no floats, no hashing of maps
//! by address: the same results give the same verdict on every validator.
//!
//! * **none**, **economic bond**: one runner; its result stands (the bond is its stake, which
//!   a proven challenge slashes).
//! * **deterministic**: byte-identical results; the largest group wins if it has at least two
//!   members and no other group is as large.
//! * **majority vote** (`params = {"field": path}`): the value at `field` of each parsed
//!   result; a value held by at least the job's threshold N (a strict majority of M) wins.
//!   Without `field` the whole document is the value.
//! * **structured match** (`params = {"fields": [{"path", "tolerance", "tolerance_bps", "min",
//!   "max"}]}`): per field, values outside `[min, max]` drop out, then the largest set of
//!   results agreeing with one of them (equal, or for numbers within `max(tolerance,
//!   |v| × tolerance_bps / 10^4)` of it; ties to the earliest) is that field's majority; the
//!   winners agree on every field, and must be at least two and more than half of the
//!   revealed results. Without `fields` whole documents must be equal.
//! * **semantic similarity** (`params = {"field": path (default "embedding"),
//!   "min_similarity_bps" (default 9,000)}`): each result carries its runner's embedding, a
//!   list of at most [`MAX_EMBEDDING_DIMS`] numbers in `[-100, 100]`, used at 4 decimals
//!   (truncated toward zero); two results are similar when their cosine similarity is at
//!   least `min_similarity_bps / 10^4`, tested without a square root as
//!   `dot ≥ 0 ∧ dot² × 10^8 ≥ bps² × |a|² × |b|²` in `u128` (bounds below). The largest
//!   cluster around one result (ties to the earliest) wins if it has at least N members.
//! * **oracle** (HTTP jobs; `params = {"extract", "snapshot", "field", "tolerance_bps",
//!   "max_age_seconds"}`): extracted values with the time they were observed, checked for
//!   freshness against the deciding block's time, one chosen by the snapshot mode
//!   (`first_valid`, `median`, `majority`, `latest`); the rules are in [`super::oracle`].
//!
//! **Result formats.** The job's `result_schema.data_format` decides how results are read for
//! the modes that look inside them: `"json"` is strict RFC 8259 JSON (UTF-8, no duplicate
//! keys, depth ≤ 64); anything else (`"cbor"`, or a schema map) is canonical CBOR with text
//! map keys. Numbers become exact fixed-point integers with 18 decimals ([`SCALE`]); digits
//! beyond the 18th decimal are truncated toward zero, and a number whose magnitude does not
//! fit 128 bits makes the result unreadable. An unreadable result, or one without the field a
//! mode needs, agrees with nothing. Deterministic, none and economic bond never parse.

use cowboy_types::cbor::{self, Value};
use cowboy_types::genesis::GenesisParams;

use super::oracle::{self, Oracle};
use crate::system::dispatcher::spec::Mode;
use crate::system::runners::records::Fields;

/// Fixed-point scale of numbers read from results: 18 decimals.
pub const SCALE: i128 = 1_000_000_000_000_000_000;
/// Most dimensions of an embedding (semantic similarity).
pub const MAX_EMBEDDING_DIMS: usize = 1_024;
/// Most fields a structured match compares.
pub const MAX_FIELDS: usize = 32;
/// Deepest nesting of a result document.
const MAX_DEPTH: usize = 64;
/// Embedding components are used at 4 decimals: `SCALE / 10^14`.
const EMBED_DIV: i128 = 100_000_000_000_000;
/// Largest embedding component magnitude, 100, at 4 decimals. With at most
/// [`MAX_EMBEDDING_DIMS`] dimensions a dot product is at most `1024 × 10^12 < 2^50`, its square
/// times `10^8` below `2^127`, as is `bps² × |a|² × |b|²`.
const EMBED_MAX: i128 = 1_000_000;

/// A parsed result document.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Doc {
    /// JSON null / CBOR null.
    Null,
    /// A boolean.
    Bool(bool),
    /// A number, times [`SCALE`].
    Num(i128),
    /// A string.
    Text(String),
    /// A byte string (CBOR only).
    Bytes(Vec<u8>),
    /// A list.
    List(Vec<Doc>),
    /// A map with text keys, in document order.
    Map(Vec<(String, Doc)>),
}

/// How results are encoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// RFC 8259 JSON.
    Json,
    /// Canonical CBOR.
    Cbor,
}

impl Format {
    /// The format a job's `result_schema.data_format` names.
    pub fn of(data_format: &Value) -> Format {
        match data_format {
            Value::Text(t) if t.eq_ignore_ascii_case("json") => Format::Json,
            _ => Format::Cbor,
        }
    }
}

/// Parse a result, or `None` when it is unreadable or a fault report (which is never a
/// result, [`super::fault`]).
pub fn parse(format: Format, bytes: &[u8]) -> Option<Doc> {
    if bytes.starts_with(super::fault::MARKER) {
        return None;
    }
    match format {
        Format::Cbor => from_cbor(&cbor::decode(bytes).ok()?, 0),
        Format::Json => {
            let mut j = Json { b: bytes, i: 0 };
            let d = j.value(0)?;
            j.ws();
            (j.i == bytes.len()).then_some(d)
        }
    }
}

fn from_cbor(v: &Value, depth: usize) -> Option<Doc> {
    if depth > MAX_DEPTH {
        return None;
    }
    Some(match v {
        Value::Null => Doc::Null,
        Value::Bool(b) => Doc::Bool(*b),
        Value::Uint(n) => Doc::Num(i128::from(*n).checked_mul(SCALE)?),
        Value::Nint(n) => Doc::Num((-1 - i128::from(*n)).checked_mul(SCALE)?),
        Value::Text(t) => Doc::Text(t.clone()),
        Value::Bytes(b) => Doc::Bytes(b.clone()),
        Value::Array(a) => Doc::List(
            a.iter()
                .map(|x| from_cbor(x, depth + 1))
                .collect::<Option<_>>()?,
        ),
        Value::Map(m) => Doc::Map(
            m.iter()
                .map(|(k, x)| match k {
                    Value::Text(k) => Some((k.clone(), from_cbor(x, depth + 1)?)),
                    _ => None,
                })
                .collect::<Option<_>>()?,
        ),
        _ => return None,
    })
}

/// A strict JSON reader over bytes.
struct Json<'a> {
    b: &'a [u8],
    i: usize,
}

impl Json<'_> {
    fn ws(&mut self) {
        while matches!(self.b.get(self.i), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.i += 1;
        }
    }

    fn eat(&mut self, lit: &[u8]) -> Option<()> {
        let end = self.i.checked_add(lit.len())?;
        (self.b.get(self.i..end)? == lit).then(|| self.i = end)
    }

    fn value(&mut self, depth: usize) -> Option<Doc> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.ws();
        match *self.b.get(self.i)? {
            b'n' => self.eat(b"null").map(|_| Doc::Null),
            b't' => self.eat(b"true").map(|_| Doc::Bool(true)),
            b'f' => self.eat(b"false").map(|_| Doc::Bool(false)),
            b'"' => self.string().map(Doc::Text),
            b'[' => {
                self.i += 1;
                let mut out = Vec::new();
                self.ws();
                if self.eat(b"]").is_some() {
                    return Some(Doc::List(out));
                }
                loop {
                    out.push(self.value(depth + 1)?);
                    self.ws();
                    match *self.b.get(self.i)? {
                        b',' => self.i += 1,
                        b']' => {
                            self.i += 1;
                            return Some(Doc::List(out));
                        }
                        _ => return None,
                    }
                }
            }
            b'{' => {
                self.i += 1;
                let mut out: Vec<(String, Doc)> = Vec::new();
                self.ws();
                if self.eat(b"}").is_some() {
                    return Some(Doc::Map(out));
                }
                loop {
                    self.ws();
                    let k = self.string()?;
                    // Duplicate keys make a document mean two things: unreadable.
                    if out.iter().any(|(x, _)| *x == k) {
                        return None;
                    }
                    self.ws();
                    self.eat(b":")?;
                    let v = self.value(depth + 1)?;
                    out.push((k, v));
                    self.ws();
                    match *self.b.get(self.i)? {
                        b',' => self.i += 1,
                        b'}' => {
                            self.i += 1;
                            return Some(Doc::Map(out));
                        }
                        _ => return None,
                    }
                }
            }
            _ => self.number().map(Doc::Num),
        }
    }

    fn hex4(&mut self) -> Option<u32> {
        let s = self.b.get(self.i..self.i.checked_add(4)?)?;
        let s = std::str::from_utf8(s).ok()?;
        if !s.bytes().all(|c| c.is_ascii_hexdigit()) {
            return None;
        }
        self.i += 4;
        u32::from_str_radix(s, 16).ok()
    }

    fn string(&mut self) -> Option<String> {
        self.eat(b"\"")?;
        let mut out = Vec::new();
        loop {
            let c = *self.b.get(self.i)?;
            self.i += 1;
            match c {
                b'"' => return String::from_utf8(out).ok(),
                b'\\' => {
                    let e = *self.b.get(self.i)?;
                    self.i += 1;
                    let ch = match e {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'/' => '/',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        b'u' => {
                            let hi = self.hex4()?;
                            let code = if (0xD800..0xDC00).contains(&hi) {
                                self.eat(b"\\u")?;
                                let lo = self.hex4()?;
                                if !(0xDC00..0xE000).contains(&lo) {
                                    return None;
                                }
                                0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)
                            } else {
                                hi
                            };
                            char::from_u32(code)?
                        }
                        _ => return None,
                    };
                    let mut buf = [0u8; 4];
                    out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                }
                0..=0x1f => return None,
                c => out.push(c),
            }
        }
    }

    /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?` as a number times [`SCALE`], digits
    /// past the 18th decimal truncated toward zero.
    fn number(&mut self) -> Option<i128> {
        let b = self.b;
        let neg = self.eat(b"-").is_some();
        let start = self.i;
        let digits = |j: &mut Json<'_>| {
            let s = j.i;
            while j.b.get(j.i).is_some_and(u8::is_ascii_digit) {
                j.i += 1;
            }
            j.i - s
        };
        let n_int = digits(self);
        if n_int == 0 || (n_int > 1 && b[start] == b'0') {
            return None;
        }
        let int = &b[start..start + n_int];
        let mut frac: &[u8] = &[];
        if self.eat(b".").is_some() {
            let s = self.i;
            if digits(self) == 0 {
                return None;
            }
            frac = &b[s..self.i];
        }
        let mut exp: i64 = 0;
        if matches!(self.b.get(self.i), Some(b'e' | b'E')) {
            self.i += 1;
            let eneg = match self.b.get(self.i) {
                Some(b'-') => {
                    self.i += 1;
                    true
                }
                Some(b'+') => {
                    self.i += 1;
                    false
                }
                _ => false,
            };
            let s = self.i;
            let n = digits(self);
            if n == 0 || n > 4 {
                return None;
            }
            let e: i64 = std::str::from_utf8(&b[s..self.i]).ok()?.parse().ok()?;
            exp = if eneg { -e } else { e };
        }
        // value = int.frac × 10^exp × 10^18: shift the decimal point of the digit string.
        let shift = exp + 18 - frac.len() as i64;
        let all = int.iter().chain(frac.iter());
        let keep = if shift >= 0 {
            int.len() + frac.len()
        } else {
            (int.len() + frac.len()).saturating_sub(shift.unsigned_abs() as usize)
        };
        let mut v: i128 = 0;
        for d in all.take(keep) {
            v = v.checked_mul(10)?.checked_add(i128::from(d - b'0'))?;
        }
        if shift > 0 {
            for _ in 0..shift {
                if v == 0 {
                    break;
                }
                v = v.checked_mul(10)?;
            }
        }
        Some(if neg { -v } else { v })
    }
}

/// The value at `path` (dot-separated map keys or list indices; empty = the whole document).
pub fn at<'a>(doc: &'a Doc, path: &str) -> Option<&'a Doc> {
    if path.is_empty() {
        return Some(doc);
    }
    let mut cur = doc;
    for part in path.split('.') {
        cur = match cur {
            Doc::Map(m) => m.iter().find(|(k, _)| k == part).map(|(_, v)| v)?,
            Doc::List(l) => l.get(part.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    Some(cur)
}

/// One field of a structured match.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldRule {
    /// Where the field is.
    pub path: String,
    /// Absolute numeric tolerance (times [`SCALE`]).
    pub tolerance: i128,
    /// Relative numeric tolerance, in basis points of the value compared against.
    pub tolerance_bps: u64,
    /// Smallest accepted value (times [`SCALE`]).
    pub min: Option<i128>,
    /// Largest accepted value (times [`SCALE`]).
    pub max: Option<i128>,
}

/// A job's verification rule, checked from its spec at submission.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Rules {
    /// The single runner's result stands.
    Single,
    /// Byte-identical results.
    Deterministic,
    /// N-of-M on one field.
    MajorityVote {
        /// The field (empty: the whole document).
        field: String,
        /// N.
        threshold: usize,
    },
    /// Per-field agreement.
    StructuredMatch {
        /// The fields compared (empty: whole documents).
        fields: Vec<FieldRule>,
    },
    /// Cosine clustering of runner-submitted embeddings.
    SemanticSimilarity {
        /// Where each result's embedding is.
        field: String,
        /// N.
        threshold: usize,
        /// Least cosine similarity, in basis points.
        min_similarity_bps: u64,
    },
    /// Extracted external data, a snapshot mode and a freshness bound.
    Oracle(Oracle),
}

fn text_param(f: &Fields<'_>, name: &str, default: &str) -> Result<String, String> {
    match f.get(name) {
        None | Some(Value::Null) => Ok(default.to_string()),
        Some(Value::Text(t)) if t.len() <= 256 => Ok(t.clone()),
        Some(_) => Err(format!("{name}: text of at most 256 bytes")),
    }
}

fn num_param(v: Option<&Value>, name: &str) -> Result<Option<i128>, String> {
    match v {
        None | Some(Value::Null) => Ok(None),
        Some(v) => match from_cbor(v, 0) {
            Some(Doc::Num(n)) => Ok(Some(n)),
            _ => Err(format!("{name}: an integer")),
        },
    }
}

fn known(f: &Fields<'_>, names: &[&str]) -> Result<(), String> {
    for (k, _) in f.0 {
        match k {
            Value::Text(k) if names.contains(&k.as_str()) => {}
            _ => return Err(format!("unknown parameter {k:?}")),
        }
    }
    Ok(())
}

/// The rule of a job in `mode` with `params` (the spec's `verification.params`) and threshold
/// N; `Err` names what is wrong with the parameters.
pub fn rules(mode: Mode, params: Option<&Value>, threshold: u64) -> Result<Rules, String> {
    let empty = Value::Map(Vec::new());
    let params = match params {
        None | Some(Value::Null) => &empty,
        Some(v) => v,
    };
    let f = Fields::of(params).ok_or("must be a map")?;
    let n = usize::try_from(threshold).unwrap_or(usize::MAX);
    Ok(match mode {
        Mode::None | Mode::EconomicBond | Mode::Deterministic => {
            known(&f, &[])?;
            if mode == Mode::Deterministic {
                Rules::Deterministic
            } else {
                Rules::Single
            }
        }
        Mode::MajorityVote => {
            known(&f, &["field"])?;
            Rules::MajorityVote {
                field: text_param(&f, "field", "")?,
                threshold: n,
            }
        }
        Mode::SemanticSimilarity => {
            known(&f, &["field", "min_similarity_bps"])?;
            let bps = match f.get("min_similarity_bps") {
                None | Some(Value::Null) => 9_000,
                Some(v) => match v.as_u64() {
                    Some(b @ 1..=10_000) => b,
                    _ => return Err("min_similarity_bps: 1 to 10,000".into()),
                },
            };
            Rules::SemanticSimilarity {
                field: text_param(&f, "field", "embedding")?,
                threshold: n,
                min_similarity_bps: bps,
            }
        }
        Mode::StructuredMatch => {
            known(&f, &["fields"])?;
            let list = match f.get("fields") {
                None | Some(Value::Null) => Vec::new(),
                Some(Value::Array(a)) if a.len() <= MAX_FIELDS => a.clone(),
                Some(_) => return Err(format!("fields: a list of at most {MAX_FIELDS}")),
            };
            let mut fields = Vec::with_capacity(list.len());
            for (i, r) in list.iter().enumerate() {
                let g = Fields::of(r).ok_or(format!("fields[{i}]: must be a map"))?;
                known(&g, &["path", "tolerance", "tolerance_bps", "min", "max"])
                    .map_err(|e| format!("fields[{i}]: {e}"))?;
                let path = match g.get("path") {
                    Some(Value::Text(t)) if !t.is_empty() && t.len() <= 256 => t.clone(),
                    _ => return Err(format!("fields[{i}].path: non-empty text")),
                };
                let tolerance = num_param(g.get("tolerance"), "tolerance")?.unwrap_or(0);
                if tolerance < 0 {
                    return Err(format!("fields[{i}].tolerance: not negative"));
                }
                let tolerance_bps = match g.get("tolerance_bps") {
                    None | Some(Value::Null) => 0,
                    Some(v) => v
                        .as_u64()
                        .filter(|b| *b <= 10_000)
                        .ok_or(format!("fields[{i}].tolerance_bps: 0 to 10,000"))?,
                };
                fields.push(FieldRule {
                    path,
                    tolerance,
                    tolerance_bps,
                    min: num_param(g.get("min"), "min")?,
                    max: num_param(g.get("max"), "max")?,
                });
            }
            Rules::StructuredMatch { fields }
        }
        Mode::Oracle => Rules::Oracle(oracle::rules(&f, threshold)?),
    })
}

/// What the reveals came to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// These results (indices into the input) agree; the first is the job's result, the rest
    /// ascending.
    Consensus(Vec<usize>),
    /// Not enough of them agree.
    NoConsensus,
    /// A fault report of this kind decides the job ([`super::fault::decisive`]); the
    /// reporters, ascending.
    Fault(super::fault::Kind, Vec<usize>),
}

impl Verdict {
    /// The reveals the verdict stands on: the winners, or a decisive fault's reporters.
    pub fn winners(&self) -> &[usize] {
        match self {
            Verdict::Consensus(w) | Verdict::Fault(_, w) => w,
            Verdict::NoConsensus => &[],
        }
    }
}

/// The verdict over `results` (in committee order) of a job needing `need` agreeing runners:
/// a decisive fault report ([`super::fault::decisive`]), else the mode's ([`evaluate`]).
/// Recognising reports reads a constant number of bytes per reveal, covered by the check each
/// reveal was charged ([`super::reveal::check_cycles`]).
pub fn verdict(rules: &Rules, format: Format, results: &[&[u8]], now: u64, need: u64) -> Verdict {
    match super::fault::decisive(results, need) {
        Some((kind, by)) => Verdict::Fault(kind, by),
        None => evaluate(rules, format, results, now),
    }
}

impl Rules {
    /// Cycles per result byte (times `hash_cycles_per_byte`) of [`evaluate`]'s worst case:
    /// comparing raw bytes 2; parsing 4 (measured: a JSON list of small numbers is the most
    /// expensive document per byte); then 2 per value digested (a field's value is at worst
    /// the whole document, and its digest encoding a few times its source).
    pub fn byte_cost(&self) -> u64 {
        match self {
            Rules::Single => 1,
            Rules::Deterministic => 2,
            Rules::SemanticSimilarity { .. } => 4,
            Rules::MajorityVote { .. } => 4 + 2,
            Rules::StructuredMatch { fields } => 4 + 2 * fields.len().max(1) as u64,
            // Parse, then one digest of the compared value (at worst the whole document).
            Rules::Oracle(_) => 4 + 2,
        }
    }
}

/// The cycles [`evaluate`] under `rules` is charged for `m` results of `total_bytes` bytes in
/// all: [`Rules::byte_cost`] per byte, and 128 cycles per pair of results (a pair costs at
/// most [`MAX_EMBEDDING_DIMS`] multiply-adds) per compared field (values are compared by
/// digest, never walked pairwise). Measured against a Python loop in
/// `tests/it/verifier.rs::measure_modes_and_signatures_against_a_python_loop`.
pub fn cycles(p: &GenesisParams, rules: &Rules, m: u64, total_bytes: u64) -> u64 {
    let per_pair = 128u64.saturating_mul(match rules {
        Rules::StructuredMatch { fields } => fields.len().max(1) as u64,
        _ => 1,
    });
    p.hash_base_cycles
        .saturating_mul(m)
        .saturating_add(
            p.hash_cycles_per_byte
                .saturating_mul(rules.byte_cost())
                .saturating_mul(total_bytes),
        )
        .saturating_add(m.saturating_mul(m).saturating_mul(per_pair))
}

/// What parsed values are compared by: a number's exact value (so tolerances apply), or the
/// keccak256 of anything else's canonical encoding (map keys sorted: `{"a":1,"b":2}` equals
/// `{"b":2,"a":1}`), computed once per value so that comparing two costs O(1) whatever
/// their size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Key {
    Num(i128),
    Digest([u8; 32]),
}

pub(super) fn key(d: &Doc) -> Key {
    match d {
        Doc::Num(n) => Key::Num(*n),
        _ => {
            let mut buf = Vec::new();
            encode(d, &mut buf);
            Key::Digest(cowboy_types::keccak256(&buf).0)
        }
    }
}

fn encode(d: &Doc, out: &mut Vec<u8>) {
    let len = |out: &mut Vec<u8>, n: usize| out.extend_from_slice(&(n as u64).to_le_bytes());
    match d {
        Doc::Null => out.push(0),
        Doc::Bool(b) => out.push(1 + u8::from(*b)),
        Doc::Num(n) => {
            out.push(3);
            out.extend_from_slice(&n.to_le_bytes());
        }
        Doc::Text(t) => {
            out.push(4);
            len(out, t.len());
            out.extend_from_slice(t.as_bytes());
        }
        Doc::Bytes(b) => {
            out.push(5);
            len(out, b.len());
            out.extend_from_slice(b);
        }
        Doc::List(l) => {
            out.push(6);
            len(out, l.len());
            for x in l {
                encode(x, out);
            }
        }
        Doc::Map(m) => {
            out.push(7);
            len(out, m.len());
            let mut entries: Vec<&(String, Doc)> = m.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            for (k, v) in entries {
                len(out, k.len());
                out.extend_from_slice(k.as_bytes());
                encode(v, out);
            }
        }
    }
}

/// The largest of `groups` (ties to the earliest), as sorted indices.
pub(super) fn largest(groups: Vec<Vec<usize>>) -> (Vec<usize>, bool) {
    let mut best: Vec<usize> = Vec::new();
    let mut tied = false;
    for g in groups {
        if g.len() > best.len() {
            best = g;
            tied = false;
        } else if g.len() == best.len() && !g.is_empty() {
            tied = true;
        }
    }
    (best, tied)
}

/// Group indices `0..items.len()` with `Some` items by equality, in first-seen order.
fn group_eq<T: PartialEq>(items: &[Option<T>]) -> Vec<Vec<usize>> {
    let mut groups: Vec<(usize, Vec<usize>)> = Vec::new();
    for (i, it) in items.iter().enumerate() {
        let Some(v) = it else { continue };
        match groups
            .iter_mut()
            .find(|(r, _)| items[*r].as_ref() == Some(v))
        {
            Some((_, g)) => g.push(i),
            None => groups.push((i, vec![i])),
        }
    }
    groups.into_iter().map(|(_, g)| g).collect()
}

/// The verdict of `rules` over `results` (in committee order), decided in a block with
/// timestamp `now` (unix seconds; only the oracle mode's freshness bound reads it). A fault
/// report agrees with nothing, in every mode.
pub fn evaluate(rules: &Rules, format: Format, results: &[&[u8]], now: u64) -> Verdict {
    let k = results.len();
    let not_report = |r: &&[u8]| !r.starts_with(super::fault::MARKER);
    let consensus = |w: Vec<usize>, need: usize| {
        if w.len() >= need.max(1) {
            Verdict::Consensus(w)
        } else {
            Verdict::NoConsensus
        }
    };
    match rules {
        Rules::Single => consensus(
            (0..k.min(1)).filter(|&i| not_report(&results[i])).collect(),
            1,
        ),
        Rules::Deterministic => {
            let items: Vec<Option<&[u8]>> = results
                .iter()
                .map(|r| Some(*r).filter(not_report))
                .collect();
            let (best, tied) = largest(group_eq(&items));
            if tied {
                return Verdict::NoConsensus;
            }
            consensus(best, 2)
        }
        Rules::MajorityVote { field, threshold } => {
            let docs: Vec<Option<Doc>> = results.iter().map(|r| parse(format, r)).collect();
            let vals: Vec<Option<Key>> = docs
                .iter()
                .map(|d| d.as_ref().and_then(|d| at(d, field)).map(key))
                .collect();
            let (best, _) = largest(group_eq(&vals));
            consensus(best, *threshold)
        }
        Rules::StructuredMatch { fields } => {
            let docs: Vec<Option<Doc>> = results.iter().map(|r| parse(format, r)).collect();
            let mut winners: Vec<usize> = (0..k).filter(|&i| docs[i].is_some()).collect();
            if fields.is_empty() {
                let keys: Vec<Option<Key>> = docs.iter().map(|d| d.as_ref().map(key)).collect();
                let (best, tied) = largest(group_eq(&keys));
                winners = if tied { Vec::new() } else { best };
            }
            for f in fields {
                let vals: Vec<Option<Key>> = docs
                    .iter()
                    .map(|d| d.as_ref().and_then(|d| at(d, &f.path)))
                    .map(|v| v.filter(|v| in_range(v, f)).map(key))
                    .collect();
                let agree = field_majority(&vals, f);
                winners.retain(|i| agree.contains(i));
            }
            // At least two, and a majority of what was revealed.
            if 2 * winners.len() <= k {
                return Verdict::NoConsensus;
            }
            consensus(winners, 2)
        }
        Rules::SemanticSimilarity {
            field,
            threshold,
            min_similarity_bps,
        } => {
            let embs: Vec<Option<Vec<i128>>> = results
                .iter()
                .map(|r| parse(format, r).and_then(|d| at(&d, field).and_then(embedding)))
                .collect();
            let mut best: Vec<usize> = Vec::new();
            for a in embs.iter().flatten() {
                let cluster: Vec<usize> = embs
                    .iter()
                    .enumerate()
                    .filter(|(_, b)| {
                        b.as_ref()
                            .is_some_and(|b| similar(a, b, *min_similarity_bps))
                    })
                    .map(|(j, _)| j)
                    .collect();
                if cluster.len() > best.len() {
                    best = cluster;
                }
            }
            consensus(best, *threshold)
        }
        Rules::Oracle(o) => o
            .evaluate(format, results, now)
            .map_or(Verdict::NoConsensus, Verdict::Consensus),
    }
}

fn in_range(v: &Doc, f: &FieldRule) -> bool {
    match v {
        Doc::Num(n) => f.min.is_none_or(|m| *n >= m) && f.max.is_none_or(|m| *n <= m),
        // A bound only admits numbers.
        _ => f.min.is_none() && f.max.is_none(),
    }
}

/// Whether `b` is within `f`'s tolerance of `a` (equality for anything but two numbers).
pub(super) fn near(a: &Key, b: &Key, f: &FieldRule) -> bool {
    match (a, b) {
        (Key::Num(x), Key::Num(y)) => {
            let rel = x.unsigned_abs() / 10_000 * u128::from(f.tolerance_bps)
                + x.unsigned_abs() % 10_000 * u128::from(f.tolerance_bps) / 10_000;
            let tol = f.tolerance.unsigned_abs().max(rel);
            x.abs_diff(*y) <= tol
        }
        _ => a == b,
    }
}

/// The largest set of results within tolerance of one of them (ties to the earliest).
fn field_majority(vals: &[Option<Key>], f: &FieldRule) -> Vec<usize> {
    let mut best: Vec<usize> = Vec::new();
    for a in vals.iter().flatten() {
        let set: Vec<usize> = vals
            .iter()
            .enumerate()
            .filter(|(_, b)| b.is_some_and(|b| near(a, &b, f)))
            .map(|(j, _)| j)
            .collect();
        if set.len() > best.len() {
            best = set;
        }
    }
    best
}

/// An embedding at 4 decimals, or `None` if it is not a list of 1 to
/// [`MAX_EMBEDDING_DIMS`] numbers in `[-100, 100]`.
fn embedding(d: &Doc) -> Option<Vec<i128>> {
    let Doc::List(l) = d else { return None };
    if l.is_empty() || l.len() > MAX_EMBEDDING_DIMS {
        return None;
    }
    l.iter()
        .map(|x| match x {
            Doc::Num(n) => Some(n / EMBED_DIV).filter(|q| q.abs() <= EMBED_MAX),
            _ => None,
        })
        .collect()
}

/// Cosine similarity of `a` and `b` ≥ `bps / 10^4`, in integers (bounds at [`EMBED_MAX`]).
pub fn similar(a: &[i128], b: &[i128], bps: u64) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let dot: i128 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let na: i128 = a.iter().map(|x| x * x).sum();
    let nb: i128 = b.iter().map(|x| x * x).sum();
    if dot < 0 || na == 0 || nb == 0 {
        return false;
    }
    let (dot, na, nb) = (dot.unsigned_abs(), na.unsigned_abs(), nb.unsigned_abs());
    let bps = u128::from(bps);
    dot * dot * 100_000_000 >= bps * bps * na * nb
}

#[cfg(test)]
mod tests {
    use super::*;

    fn json(s: &str) -> Option<Doc> {
        parse(Format::Json, s.as_bytes())
    }

    fn ev(r: &Rules, f: Format, xs: &[&str]) -> Verdict {
        let b: Vec<&[u8]> = xs.iter().map(|x| x.as_bytes()).collect();
        evaluate(r, f, &b, 0)
    }

    fn rule(mode: Mode, params: Value, n: u64) -> Rules {
        rules(mode, Some(&params), n).expect("valid params")
    }

    fn map(e: Vec<(&str, Value)>) -> Value {
        Value::Map(
            e.into_iter()
                .map(|(k, v)| (Value::Text(k.into()), v))
                .collect(),
        )
    }

    #[test]
    fn json_numbers_are_exact_fixed_point() {
        assert_eq!(json("12.34"), Some(Doc::Num(12_340_000_000_000_000_000)));
        assert_eq!(json("-0.5e1"), Some(Doc::Num(-5 * SCALE)));
        assert_eq!(json("1e-18"), Some(Doc::Num(1)));
        assert_eq!(json("1e-19"), Some(Doc::Num(0)), "truncated toward zero");
        assert_eq!(json("7"), Some(Doc::Num(7 * SCALE)));
        assert_eq!(
            json("0.1234567890123456789"),
            Some(Doc::Num(123_456_789_012_345_678))
        );
        assert_eq!(json("1e30"), None, "beyond 128 bits");
        assert_eq!(json("01"), None);
        assert_eq!(json("1."), None);
        assert_eq!(json("1e99999"), None);
        assert_eq!(json("0e99999"), None, "exponents of more than 4 digits");
        assert_eq!(json("0e9999"), Some(Doc::Num(0)));
    }

    #[test]
    fn json_is_strict() {
        assert_eq!(
            json(r#" {"a": [1, "x\u00e9\ud83d\ude00", null, true]} "#),
            Some(Doc::Map(vec![(
                "a".into(),
                Doc::List(vec![
                    Doc::Num(SCALE),
                    Doc::Text("xé😀".into()),
                    Doc::Null,
                    Doc::Bool(true)
                ])
            )]))
        );
        for bad in [
            r#"{"a":1,"a":2}"#,
            r#"{"a":1,}"#,
            "[1 2]",
            "\"\x01\"",
            "nul",
            "1 1",
            r#""\ud800""#,
            "",
        ] {
            assert_eq!(json(bad), None, "{bad:?}");
        }
        let deep = "[".repeat(70) + &"]".repeat(70);
        assert_eq!(json(&deep), None, "too deep");
    }

    #[test]
    fn paths() {
        let d = json(r#"{"data": {"items": [{"v": 3}]}}"#).expect("json");
        assert_eq!(at(&d, "data.items.0.v"), Some(&Doc::Num(3 * SCALE)));
        assert_eq!(at(&d, "data.items.1.v"), None);
        assert_eq!(at(&d, "data.x"), None);
        assert_eq!(at(&d, ""), Some(&d));
    }

    #[test]
    fn single_runner_modes_accept_the_one_result() {
        let r = rule(Mode::None, Value::Null, 1);
        assert_eq!(
            ev(&r, Format::Json, &["anything"]),
            Verdict::Consensus(vec![0])
        );
        assert_eq!(ev(&r, Format::Json, &[]), Verdict::NoConsensus);
        let r = rule(Mode::EconomicBond, Value::Null, 1);
        assert_eq!(ev(&r, Format::Cbor, &["x"]), Verdict::Consensus(vec![0]));
        assert!(rules(Mode::None, Some(&map(vec![("x", Value::Uint(1))])), 1).is_err());
    }

    #[test]
    fn deterministic_needs_a_unique_largest_group_of_two() {
        let r = rule(Mode::Deterministic, Value::Null, 2);
        assert_eq!(
            ev(&r, Format::Json, &["a", "a"]),
            Verdict::Consensus(vec![0, 1])
        );
        // A dishonest runner is outvoted.
        assert_eq!(
            ev(&r, Format::Json, &["a", "b", "a"]),
            Verdict::Consensus(vec![0, 2])
        );
        assert_eq!(ev(&r, Format::Json, &["a", "b"]), Verdict::NoConsensus);
        assert_eq!(
            ev(&r, Format::Json, &["a", "a", "b", "b"]),
            Verdict::NoConsensus
        );
        assert_eq!(ev(&r, Format::Json, &["a"]), Verdict::NoConsensus);
    }

    #[test]
    fn majority_vote_on_a_field() {
        let r = rule(
            Mode::MajorityVote,
            map(vec![("field", Value::Text("price".into()))]),
            3,
        );
        let honest = r#"{"price": 100, "ts": 1}"#;
        let honest2 = r#"{"ts": 2, "price": 100.0}"#;
        let liar = r#"{"price": 999}"#;
        assert_eq!(
            ev(
                &r,
                Format::Json,
                &[honest, liar, honest2, honest, "garbage"]
            ),
            Verdict::Consensus(vec![0, 2, 3])
        );
        assert_eq!(
            ev(&r, Format::Json, &[honest, liar, honest2, liar, liar]),
            Verdict::Consensus(vec![1, 3, 4]),
            "a colluding majority wins the vote: that is what the stake backs"
        );
        assert_eq!(
            ev(&r, Format::Json, &[honest, liar, honest2, "{}", "{}"]),
            Verdict::NoConsensus
        );
        // CBOR results.
        let c = |p: u64| cbor::encode(&map(vec![("price", Value::Uint(p))]));
        let (a, b) = (c(5), c(6));
        let got = evaluate(&r, Format::Cbor, &[&a, &a, &b, &a], 0);
        assert_eq!(got, Verdict::Consensus(vec![0, 1, 3]));
    }

    #[test]
    fn structured_match_tolerance_range_and_per_field_majority() {
        let fields = Value::Array(vec![
            map(vec![
                ("path", Value::Text("price".into())),
                ("tolerance_bps", Value::Uint(100)),
                ("min", Value::Uint(1)),
                ("max", Value::Uint(1_000_000)),
            ]),
            map(vec![("path", Value::Text("symbol".into()))]),
        ]);
        let r = rule(Mode::StructuredMatch, map(vec![("fields", fields)]), 2);
        let a = r#"{"price": 100.0, "symbol": "ETH"}"#;
        let b = r#"{"price": 100.5, "symbol": "ETH"}"#;
        let off = r#"{"price": 150, "symbol": "ETH"}"#;
        let wrong_sym = r#"{"price": 100.2, "symbol": "BTC"}"#;
        let out_of_range = r#"{"price": 0, "symbol": "ETH"}"#;
        assert_eq!(
            ev(&r, Format::Json, &[a, b]),
            Verdict::Consensus(vec![0, 1])
        );
        assert_eq!(
            ev(&r, Format::Json, &[a, off, b, wrong_sym, a]),
            Verdict::Consensus(vec![0, 2, 4]),
            "within 1 %: 100 and 100.5 agree; 150 is outvoted; BTC fails the symbol"
        );
        assert_eq!(
            ev(&r, Format::Json, &[a, off, b, wrong_sym]),
            Verdict::NoConsensus,
            "two of four is not a majority of the reveals"
        );
        assert_eq!(ev(&r, Format::Json, &[a, off]), Verdict::NoConsensus);
        assert_eq!(
            ev(&r, Format::Json, &[out_of_range, out_of_range, a]),
            Verdict::NoConsensus,
            "values out of range agree with nothing"
        );
        // Whole-document equality without fields.
        let r = rule(Mode::StructuredMatch, Value::Null, 2);
        assert_eq!(
            ev(
                &r,
                Format::Json,
                &[r#"{"a":1,"b":2}"#, r#"{"b":2, "a":1.0}"#, "{}"]
            ),
            Verdict::Consensus(vec![0, 1])
        );
        assert!(rules(
            Mode::StructuredMatch,
            Some(&map(vec![("fields", Value::Array(vec![map(vec![])]))])),
            2
        )
        .is_err());
    }

    fn emb(v: &[&str]) -> String {
        format!(r#"{{"embedding": [{}], "text": "x"}}"#, v.join(","))
    }

    #[test]
    fn semantic_similarity_clusters_in_integers() {
        let r = rule(Mode::SemanticSimilarity, Value::Null, 3);
        let a = emb(&["0.9", "0.1", "0.0"]);
        let b = emb(&["0.88", "0.12", "0.01"]);
        let c = emb(&["0.91", "0.09", "0.02"]);
        let far = emb(&["0.0", "0.1", "0.99"]);
        let opposite = emb(&["-0.9", "-0.1", "0"]);
        assert_eq!(
            ev(&r, Format::Json, &[&a, &far, &b, &c]),
            Verdict::Consensus(vec![0, 2, 3])
        );
        assert_eq!(
            ev(&r, Format::Json, &[&a, &far, &opposite, &c]),
            Verdict::NoConsensus
        );
        assert_eq!(
            ev(&r, Format::Json, &[&a, &emb(&["0.9", "0.1"]), &b, "bad"]),
            Verdict::NoConsensus,
            "other dimensions and unreadable results are similar to nothing"
        );
        // Exactly at the threshold: cos = 0.6 between (1, 0) and (0.6, 0.8).
        let x = [10_000i128, 0];
        let y = [6_000i128, 8_000];
        assert!(similar(&x, &y, 6_000));
        assert!(!similar(&x, &y, 6_001));
        // The largest allowed vectors do not overflow.
        let big = vec![EMBED_MAX; MAX_EMBEDDING_DIMS];
        assert!(similar(&big, &big, 10_000));
        let neg: Vec<i128> = big.iter().map(|x| -x).collect();
        assert!(!similar(&big, &neg, 1));
        assert_eq!(
            embedding(&Doc::List(vec![Doc::Num(101 * SCALE)])),
            None,
            "components beyond 100"
        );
    }
}
