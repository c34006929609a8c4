//! `split`, `rsplit` and `splitlines` of `str`, `bytes` and `bytearray`.
//!
//! The pieces are found twice by the same visitor: once to count them and their bytes, then,
//! after charging a cycle per piece and *reserving* their accounted memory (a header and a
//! list slot per piece, plus the text), once more to build them. So a split into millions of
//! tiny pieces (`('a,' * n).split(',')`) fails with MemoryError before allocating anything,
//! and no intermediate copy of the text or of the pieces is made. Separators are found with
//! `memchr` (one byte) or `objects::search::matches` (longer) on the bytes (a `str` separator
//! matches only at char boundaries in UTF-8);
//! whitespace and line breaks are `str.isspace()`/Unicode line boundaries for `str` and the
//! ASCII ones for bytes, as in CPython.

use crate::cost;
use crate::memory::{HEADER, SLOT};
use crate::value::*;
use crate::vm::{Args, Vm, R};
use std::rc::Rc;

/// What is split, and what its pieces become.
#[derive(Clone, Copy)]
pub enum Text<'a> {
    /// A str: pieces are str, whitespace is Unicode's.
    Str(&'a str),
    /// bytes (`false`) or a bytearray's contents (`true`): pieces of the same type.
    Bytes(&'a [u8], bool),
}

impl Text<'_> {
    fn bytes(&self) -> &[u8] {
        match self {
            Text::Str(s) => s.as_bytes(),
            Text::Bytes(b, _) => b,
        }
    }
    /// Length and whitespace-ness of the unit (char or byte) starting at byte `i`.
    fn unit_at(&self, i: usize) -> (usize, char) {
        match self {
            Text::Str(s) => {
                let c = s[i..].chars().next().unwrap_or('\0');
                (c.len_utf8(), c)
            }
            Text::Bytes(b, _) => (1, b[i] as char),
        }
    }
    /// Start and value of the unit ending at byte `i` (> 0).
    fn unit_before(&self, i: usize) -> (usize, char) {
        match self {
            Text::Str(s) => {
                let c = s[..i].chars().next_back().unwrap_or('\0');
                (i - c.len_utf8(), c)
            }
            Text::Bytes(b, _) => (i - 1, b[i - 1] as char),
        }
    }
    fn is_space(&self, c: char) -> bool {
        match self {
            Text::Str(_) => crate::unicode::is_space(c),
            Text::Bytes(..) => matches!(c, ' ' | '\t'..='\r'),
        }
    }
    fn is_line_break(&self, c: char) -> bool {
        match self {
            Text::Str(_) => matches!(
                c,
                '\n' | '\r'
                    | '\x0b'
                    | '\x0c'
                    | '\x1c'
                    | '\x1d'
                    | '\x1e'
                    | '\u{85}'
                    | '\u{2028}'
                    | '\u{2029}'
            ),
            Text::Bytes(..) => matches!(c, '\n' | '\r'),
        }
    }
    fn piece(&self, s: usize, e: usize) -> Value {
        match self {
            Text::Str(t) => Value::str(&t[s..e]),
            Text::Bytes(b, false) => Value::bytes(b[s..e].to_vec()),
            Text::Bytes(b, true) => Value::ByteArray(Rc::new(PyByteArray::new(b[s..e].to_vec()))),
        }
    }
}

/// What to split at.
pub enum How {
    /// `split(sep)`/`rsplit(sep)` (`right`), at most `maxsplit` splits when it is not negative.
    Sep(Vec<u8>, i64, bool),
    /// `split()`/`rsplit()`: runs of whitespace.
    Space(i64, bool),
    /// `splitlines(keepends)`.
    Lines(bool),
}

/// The pieces between separator matches `at` (left to right, each `len` bytes), at most
/// `max` splits when it is not negative, of a text of `n` bytes.
fn split_left(
    at: impl Iterator<Item = usize>,
    len: usize,
    max: i64,
    n: usize,
    f: &mut dyn FnMut(usize, usize),
) {
    let (mut start, mut done) = (0, 0);
    for p in at {
        if max >= 0 && done == max {
            break;
        }
        f(start, p);
        start = p + len;
        done += 1;
    }
    f(start, n);
}

/// [`split_left`] from the right, with matches `at` right to left.
fn split_right(
    at: impl Iterator<Item = usize>,
    len: usize,
    max: i64,
    n: usize,
    f: &mut dyn FnMut(usize, usize),
) {
    let (mut end, mut done) = (n, 0);
    for p in at {
        if max >= 0 && done == max {
            break;
        }
        f(p + len, end);
        end = p;
        done += 1;
    }
    f(0, end);
}

/// Call `f(start, end)` for each piece's byte range; `rsplit` visits from the right.
fn visit(t: Text, how: &How, f: &mut dyn FnMut(usize, usize)) {
    let b = t.bytes();
    let n = b.len();
    match *how {
        // A one-byte separator (`s.split(',')`, the commonest) is found by `memchr`, whose
        // search needs no set-up; `search::matches` avoids `memmem`'s set-up when it is short.
        // Both yield every match, left to right (or right to left), so the pieces are the same.
        How::Sep(ref sep, max, false) => match sep[..] {
            [byte] => split_left(memchr::memchr_iter(byte, b), 1, max, n, f),
            _ => split_left(super::search::matches(b, sep), sep.len(), max, n, f),
        },
        How::Sep(ref sep, max, true) => match sep[..] {
            [byte] => split_right(memchr::memrchr_iter(byte, b), 1, max, n, f),
            _ => split_right(super::search::matches_rev(b, sep), sep.len(), max, n, f),
        },
        How::Space(max, false) => {
            let (mut i, mut done) = (0, 0);
            loop {
                while i < n {
                    let (l, c) = t.unit_at(i);
                    if !t.is_space(c) {
                        break;
                    }
                    i += l;
                }
                if i >= n {
                    break;
                }
                if max >= 0 && done == max {
                    f(i, n);
                    break;
                }
                let s = i;
                while i < n {
                    let (l, c) = t.unit_at(i);
                    if t.is_space(c) {
                        break;
                    }
                    i += l;
                }
                f(s, i);
                done += 1;
            }
        }
        How::Space(max, true) => {
            let (mut j, mut done) = (n, 0);
            loop {
                while j > 0 {
                    let (s, c) = t.unit_before(j);
                    if !t.is_space(c) {
                        break;
                    }
                    j = s;
                }
                if j == 0 {
                    break;
                }
                if max >= 0 && done == max {
                    f(0, j);
                    break;
                }
                let e = j;
                while j > 0 {
                    let (s, c) = t.unit_before(j);
                    if t.is_space(c) {
                        break;
                    }
                    j = s;
                }
                f(j, e);
                done += 1;
            }
        }
        How::Lines(keep) => {
            let (mut start, mut i) = (0, 0);
            while i < n {
                let (l, c) = t.unit_at(i);
                if !t.is_line_break(c) {
                    i += l;
                    continue;
                }
                let mut end = i + l;
                if c == '\r' && b.get(end) == Some(&b'\n') {
                    end += 1;
                }
                f(start, if keep { end } else { i });
                start = end;
                i = end;
            }
            if start < n {
                f(start, n);
            }
        }
    }
}

/// The list of pieces of `t`: counted, charged (the caller has paid for reading the text)
/// and reserved before any is built.
pub fn split(vm: &mut Vm, t: Text, how: &How) -> R<Value> {
    let (mut count, mut bytes) = (0usize, 0usize);
    visit(t, how, &mut |s, e| {
        count += 1;
        bytes += e - s;
    });
    vm.charge(cost::per_elem(count))?;
    // Each piece: an object header and its list slot; non-ASCII str pieces add at most one
    // 4-byte offset mark per 32 chars (under bytes / 8).
    let need = count * (HEADER + SLOT) + bytes + bytes / 8 + HEADER;
    vm.reserve(need as u64)?;
    let mut out = Vec::with_capacity(count);
    visit(t, how, &mut |s, e| out.push(t.piece(s, e)));
    if matches!(how, How::Sep(_, _, true) | How::Space(_, true)) {
        out.reverse();
    }
    Ok(Value::list(out))
}

/// `maxsplit`: an index; too big for a `Py_ssize_t` is CPython's OverflowError.
fn maxsplit(vm: &mut Vm, v: Option<Value>) -> R<i64> {
    match v {
        None => Ok(-1),
        Some(Value::BigInt(_)) => Err(vm.new_exc(
            "OverflowError",
            "Python int too large to convert to C ssize_t",
        )),
        Some(v) => vm.index_of(&v),
    }
}

/// Parse the arguments of `split`/`rsplit` (`sep=None, maxsplit=-1`) for a str (`is_str`) or
/// bytes receiver. Converting may run Python code (`__index__`), so a bytearray is borrowed
/// only after this.
pub fn split_args(vm: &mut Vm, is_str: bool, right: bool, args: &Args) -> R<How> {
    let mut a = args.clone();
    let sep = a.pos.first().cloned().or_else(|| a.take_kw("sep"));
    let max = maxsplit(vm, a.pos.get(1).cloned().or_else(|| a.take_kw("maxsplit")))?;
    let sep = match sep {
        None | Some(Value::None) => return Ok(How::Space(max, right)),
        Some(Value::Str(s)) if is_str => s.s.as_bytes().to_vec(),
        Some(Value::Bytes(b)) if !is_str => b.b.to_vec(),
        Some(Value::ByteArray(b)) if !is_str => b.b.borrow().clone(),
        Some(o) => {
            let tn = vm.type_name(&o);
            return Err(vm.type_err(if is_str {
                format!("must be str or None, not {tn}")
            } else {
                format!("a bytes-like object is required, not '{tn}'")
            }));
        }
    };
    if sep.is_empty() {
        return Err(vm.value_err("empty separator"));
    }
    vm.charge(cost::per_char(sep.len()))?;
    Ok(How::Sep(sep, max, right))
}

/// Parse `splitlines(keepends=False)`: an int-like flag.
pub fn splitlines_args(vm: &mut Vm, args: &Args) -> R<How> {
    let v = args.pos.first().or_else(|| {
        args.kw
            .iter()
            .find(|(k, _)| &**k == "keepends")
            .map(|(_, v)| v)
    });
    let keep = match v {
        None => false,
        Some(Value::BigInt(_)) => true,
        Some(v) => {
            let v = v.clone();
            vm.index_of(&v)? != 0
        }
    };
    Ok(How::Lines(keep))
}

/// `split`/`rsplit`/`splitlines` (`name`) on a str, bytes or bytearray receiver `v`.
pub fn call(vm: &mut Vm, v: &Value, name: &str, args: &Args) -> R<Value> {
    let is_str = matches!(v, Value::Str(_));
    let how = match name {
        "splitlines" => splitlines_args(vm, args)?,
        _ => split_args(vm, is_str, name == "rsplit", args)?,
    };
    match v {
        Value::Str(s) => {
            vm.charge(cost::per_char(s.s.len()))?;
            split(vm, Text::Str(&s.s), &how)
        }
        Value::Bytes(b) => {
            vm.charge(cost::per_char(b.b.len()))?;
            split(vm, Text::Bytes(&b.b, false), &how)
        }
        Value::ByteArray(b) => {
            let data = b.b.borrow();
            vm.charge(cost::per_char(data.len()))?;
            split(vm, Text::Bytes(&data, true), &how)
        }
        _ => Err(vm.attr_error(v, name)),
    }
}
