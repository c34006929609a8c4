//! The windowed search methods of `str`, `bytes` and `bytearray`: `find`, `rfind`, `index`,
//! `rindex`, `count`, `startswith` and `endswith`, each with optional `start`/`end`.
//!
//! Metering: a call pays for its needle(s) and for the part of the `[start:end]` window it
//! actually reads, never for the rest of the string, so a tokenizer that searches from a
//! moving position (`s.find('"', i)`, `s.startswith('null', i)`) costs linear cycles in total.
//! `count` reads its whole window; `find`/`index` read up to the end of the first match and
//! `rfind`/`rindex` back to the start of the last one, so they charge that, *bounded by the
//! budget before searching*: the search looks only at as many bytes as the cycles left can pay
//! for, which finds the same first match whenever the charge for it fits, and otherwise ends
//! in `OutOfCycles` having done no more work than the budget allowed. `startswith`/`endswith`
//! compare each pattern tried against at most its own length.
//!
//! The scan touches only the window: a `str` char index becomes a byte offset through the
//! string's offset marks (`PyStr::byte_offset`, at most 31 chars walked), matching runs on the
//! UTF-8 bytes (`memchr::memmem`, linear time), and a match's char index is counted over the
//! bytes already paid for. [`matches`] and [`matches_rev`] (also `split`'s) find a short
//! needle in a short haystack without `memmem`, whose searcher costs more to build than such a
//! search does; both give exactly `memmem`'s matches.

use crate::cost;
use crate::value::*;
use crate::vm::{Args, Vm, R};
use memchr::memmem;
use num_traits::Signed;

/// What is searched: a `str` (chars are UTF-8 byte runs) or bytes.
#[derive(Clone, Copy)]
pub enum Hay<'a> {
    /// A str: indices count chars.
    Str(&'a PyStr),
    /// bytes or a bytearray's contents: indices count bytes.
    Bytes(&'a [u8]),
}

impl Hay<'_> {
    fn len(&self) -> usize {
        match self {
            Hay::Str(s) => s.len,
            Hay::Bytes(b) => b.len(),
        }
    }
    fn bytes(&self) -> &[u8] {
        match self {
            Hay::Str(s) => s.s.as_bytes(),
            Hay::Bytes(b) => b,
        }
    }
    fn byte_offset(&self, i: usize) -> usize {
        match self {
            Hay::Str(s) => s.byte_offset(i),
            Hay::Bytes(b) => i.min(b.len()),
        }
    }
    /// Number of indices (chars or bytes) in `b`, a run of this hay's bytes.
    fn count_units(&self, b: &[u8]) -> usize {
        match self {
            Hay::Str(s) if !s.ascii => b.iter().filter(|&&x| x & 0xC0 != 0x80).count(),
            _ => b.len(),
        }
    }
}

/// A `start`/`end` argument: None, an int (big ones clamp, as CPython's `Py_ssize_t`) or an
/// object with `__index__`.
fn slice_index(vm: &mut Vm, v: Option<&Value>) -> R<Option<i64>> {
    match v {
        Some(Value::None) => Ok(None),
        v => slice_index_or(
            vm,
            v,
            "slice indices must be integers or None or have an __index__ method",
        ),
    }
}

/// [`slice_index`] where None is not allowed (`list.index`), with CPython's message `msg`
/// for anything that is not an index.
pub fn slice_index_or(vm: &mut Vm, v: Option<&Value>, msg: &str) -> R<Option<i64>> {
    Ok(Some(match v {
        None => return Ok(None),
        Some(Value::Int(i)) => *i,
        Some(Value::Bool(b)) => i64::from(*b),
        Some(Value::BigInt(b)) => {
            if b.is_negative() {
                i64::MIN
            } else {
                i64::MAX
            }
        }
        Some(v @ Value::Instance(_)) => {
            if let Some(r) = vm.call_dunder(v, "__index__", vec![])? {
                return slice_index_or(vm, Some(&r), msg);
            }
            let b = Vm::base_of(v);
            if !b.is(v) && !matches!(b, Value::Instance(_)) {
                return slice_index_or(vm, Some(&b), msg);
            }
            return Err(vm.type_err(msg));
        }
        Some(_) => return Err(vm.type_err(msg)),
    }))
}

/// The window `[start:end]` of a sequence of `n` items, CPython's `ADJUST_INDICES`: `end` is
/// clamped to `n`, negatives count from the end; `start` may stay past `end` (then nothing,
/// not even an empty needle, is found there).
pub fn window(n: usize, start: Option<i64>, end: Option<i64>) -> (usize, usize) {
    let n = n as i64;
    let adjust = |x: i64| if x < 0 { x.saturating_add(n).max(0) } else { x };
    let st = adjust(start.unwrap_or(0));
    let en = adjust(end.unwrap_or(n)).min(n);
    (st as usize, en as usize)
}

/// The needle of `find`/`count`/`index` on bytes: a bytes-like or a byte value.
fn bytes_needle(vm: &mut Vm, v: &Value) -> R<Vec<u8>> {
    match v {
        Value::Bytes(b) => Ok(b.b.to_vec()),
        Value::ByteArray(b) => Ok(b.b.borrow().clone()),
        Value::Int(_) | Value::Bool(_) | Value::BigInt(_) => match vm.index_of(v) {
            Ok(i) if (0..256).contains(&i) => Ok(vec![i as u8]),
            _ => Err(vm.value_err("byte must be in range(0, 256)")),
        },
        o => {
            let tn = vm.type_name(o);
            Err(vm.type_err(format!(
                "argument should be integer or bytes-like object, not '{tn}'"
            )))
        }
    }
}

/// First match of `needle` in `hay`, charging the needle and the bytes read up to the end of
/// the match (the whole hay when there is none), searching no further than the budget pays.
fn find_first(vm: &mut Vm, hay: &[u8], needle: &[u8]) -> R<Option<usize>> {
    vm.charge(cost::per_char(needle.len()))?;
    let cap = cost::chars_for(vm.cycles_left()).min(hay.len());
    match matches(&hay[..cap], needle).next() {
        Some(p) => {
            vm.charge(cost::per_char(p + needle.len()))?;
            Ok(Some(p))
        }
        None => {
            vm.charge(cost::per_char(hay.len()))?;
            Ok(None)
        }
    }
}

/// Last match of `needle` in `hay`: [`find_first`] from the end.
fn find_last(vm: &mut Vm, hay: &[u8], needle: &[u8]) -> R<Option<usize>> {
    vm.charge(cost::per_char(needle.len()))?;
    let lo = hay.len() - cost::chars_for(vm.cycles_left()).min(hay.len());
    match matches_rev(&hay[lo..], needle).next() {
        Some(p) => {
            vm.charge(cost::per_char(hay.len() - (lo + p)))?;
            Ok(Some(lo + p))
        }
        None => {
            vm.charge(cost::per_char(hay.len()))?;
            Ok(None)
        }
    }
}

/// The `start` and `end` arguments of a search method. CPython converts them before it looks
/// at the needle; converting may run Python code (`__index__`), so a bytearray is borrowed
/// only after this.
pub fn positions(vm: &mut Vm, args: &Args) -> R<(Option<i64>, Option<i64>)> {
    let start = slice_index(vm, args.pos.get(1))?;
    let end = slice_index(vm, args.pos.get(2))?;
    Ok((start, end))
}

/// Call search method `name` (`find`, `rfind`, `index`, `rindex`, `count`, `startswith`,
/// `endswith`) on `hay`, with `start`/`end` from
/// [`positions`]. The argument count has been checked by the caller. Runs no Python code.
pub fn call(
    vm: &mut Vm,
    hay: Hay,
    name: &str,
    args: &Args,
    (start, end): (Option<i64>, Option<i64>),
) -> R<Value> {
    let a0 = args.pos.first().cloned().unwrap_or_default();
    if matches!(name, "startswith" | "endswith") {
        return affix(vm, hay, name, &a0, (start, end));
    }
    let needle: Vec<u8> = match (hay, &a0) {
        (Hay::Str(_), Value::Str(n)) => n.s.as_bytes().to_vec(),
        (Hay::Str(_), o) => {
            let tn = vm.type_name(o);
            return Err(vm.type_err(format!("must be str, not {tn}")));
        }
        (Hay::Bytes(_), v) => bytes_needle(vm, v)?,
    };
    let (st, en) = window(hay.len(), start, end);
    let not_found = |vm: &mut Vm| -> R<Value> {
        match name {
            "count" => Ok(Value::Int(0)),
            "index" | "rindex" => Err(vm.value_err(match hay {
                Hay::Str(_) => "substring not found",
                Hay::Bytes(_) => "subsection not found",
            })),
            _ => Ok(Value::Int(-1)),
        }
    };
    if st > en {
        return not_found(vm);
    }
    let (b0, b1) = (hay.byte_offset(st), hay.byte_offset(en));
    let win = &hay.bytes()[b0..b1];
    if name == "count" {
        if needle.is_empty() {
            return Ok(Value::Int((en - st + 1) as i64));
        }
        vm.charge(cost::per_char(needle.len() + win.len()))?;
        return Ok(Value::Int(matches(win, &needle).count() as i64));
    }
    let found = if name.starts_with('r') {
        find_last(vm, win, &needle)?
    } else {
        find_first(vm, win, &needle)?
    };
    match found {
        Some(p) if name.starts_with('r') => {
            // Count the chars after the match (paid for) back from the window's end.
            Ok(Value::Int((en - hay.count_units(&win[p..])) as i64))
        }
        Some(p) => Ok(Value::Int((st + hay.count_units(&win[..p])) as i64)),
        None => not_found(vm),
    }
}

/// `startswith`/`endswith(prefix or tuple of them, start, end)`.
fn affix(
    vm: &mut Vm,
    hay: Hay,
    name: &str,
    pat: &Value,
    (start, end): (Option<i64>, Option<i64>),
) -> R<Value> {
    let is_str = matches!(hay, Hay::Str(_));
    let kind = if is_str { "str" } else { "bytes" };
    // A tuple is read in place: copying it first was O(n) work for a scan that can stop,
    // paid, at its first item.
    let pats: &[Value] = match pat {
        Value::Tuple(t) => &t.items[..],
        Value::Str(_) if is_str => std::slice::from_ref(pat),
        Value::Bytes(_) | Value::ByteArray(_) if !is_str => std::slice::from_ref(pat),
        o => {
            let tn = vm.type_name(o);
            return Err(vm.type_err(format!(
                "{name} first arg must be {kind} or a tuple of {kind}, not {tn}"
            )));
        }
    };
    let (st, en) = window(hay.len(), start, end);
    let win: &[u8] = if st > en {
        &[]
    } else {
        &hay.bytes()[hay.byte_offset(st)..hay.byte_offset(en)]
    };
    for p in pats {
        // Tuple items are type-checked only when reached, as in CPython.
        let owned;
        let p: &[u8] = match (p, is_str) {
            (Value::Str(s), true) => s.s.as_bytes(),
            (Value::Bytes(b), false) => &b.b,
            (Value::ByteArray(b), false) => {
                owned = b.b.borrow().clone();
                &owned
            }
            (o, true) => {
                let tn = vm.type_name(o);
                return Err(
                    vm.type_err(format!("tuple for {name} must only contain str, not {tn}"))
                );
            }
            (o, false) => {
                let tn = vm.type_name(o);
                return Err(vm.type_err(format!("a bytes-like object is required, not '{tn}'")));
            }
        };
        // Past the end nothing matches, not even "" (CPython does not clamp start).
        if st > en || p.len() > win.len() {
            continue;
        }
        vm.charge(cost::per_char(p.len()))?;
        let hit = if name == "startswith" {
            win.starts_with(p)
        } else {
            win.ends_with(p)
        };
        if hit {
            return Ok(Value::Bool(true));
        }
    }
    Ok(Value::Bool(false))
}

/// Haystacks up to this many bytes are searched for a needle of up to [`SHORT_NEEDLE`] bytes
/// by `memchr` on the needle's first byte and a comparison, which costs at most
/// `SHORT_NEEDLE` comparisons per byte (linear, like `memmem`) and no set-up.
const SHORT_HAY: usize = 512;
/// See [`SHORT_HAY`].
const SHORT_NEEDLE: usize = 8;

/// The non-overlapping matches of `needle` in `hay`, left to right: exactly
/// `memmem::find_iter`'s.
pub(crate) fn matches<'a>(hay: &'a [u8], needle: &'a [u8]) -> Matches<'a> {
    if hay.len() <= SHORT_HAY && (1..=SHORT_NEEDLE).contains(&needle.len()) {
        Matches::Short { hay, needle, at: 0 }
    } else {
        Matches::Long(Box::new(memmem::find_iter(hay, needle)))
    }
}

/// The non-overlapping matches of `needle` in `hay`, right to left: exactly
/// `memmem::rfind_iter`'s.
pub(crate) fn matches_rev<'a>(hay: &'a [u8], needle: &'a [u8]) -> MatchesRev<'a> {
    if hay.len() <= SHORT_HAY && (1..=SHORT_NEEDLE).contains(&needle.len()) {
        MatchesRev::Short {
            hay,
            needle,
            end: hay.len(),
        }
    } else {
        MatchesRev::Long(Box::new(memmem::rfind_iter(hay, needle)))
    }
}

/// See [`matches`].
pub(crate) enum Matches<'a> {
    /// Searched from `at` by the needle's first byte.
    Short {
        hay: &'a [u8],
        needle: &'a [u8],
        at: usize,
    },
    /// `memmem`'s (boxed: its searcher is large, and built only for long searches).
    Long(Box<memmem::FindIter<'a, 'a>>),
}

impl Iterator for Matches<'_> {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        match self {
            Matches::Long(it) => it.next(),
            Matches::Short { hay, needle, at } => {
                let first = *needle.first()?;
                while *at + needle.len() <= hay.len() {
                    let last = hay.len() - needle.len();
                    let i = *at + memchr::memchr(first, &hay[*at..=last])?;
                    if hay[i..].starts_with(needle) {
                        *at = i + needle.len();
                        return Some(i);
                    }
                    *at = i + 1;
                }
                None
            }
        }
    }
}

/// See [`matches_rev`].
pub(crate) enum MatchesRev<'a> {
    /// Searched in `hay[..end]` by the needle's first byte, from the right.
    Short {
        hay: &'a [u8],
        needle: &'a [u8],
        end: usize,
    },
    /// `memmem`'s (boxed: its searcher is large, and built only for long searches).
    Long(Box<memmem::FindRevIter<'a, 'a>>),
}

impl Iterator for MatchesRev<'_> {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        match self {
            MatchesRev::Long(it) => it.next(),
            MatchesRev::Short { hay, needle, end } => {
                let first = *needle.first()?;
                while *end >= needle.len() {
                    let last = *end - needle.len();
                    let i = memchr::memrchr(first, &hay[..=last])?;
                    if hay[i..].starts_with(needle) {
                        *end = i;
                        return Some(i);
                    }
                    // The next candidate starts before `i`.
                    if i == 0 {
                        *end = 0;
                        return None;
                    }
                    *end = i - 1 + needle.len();
                }
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The short search gives `memmem`'s matches, both ways, on haystacks over a two- and a
    /// three-letter alphabet (where partial matches and overlaps are common), every needle
    /// length it serves (and the empty needle, which goes to `memmem`).
    #[test]
    fn short_search_finds_what_memmem_finds() {
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for round in 0..4000 {
            let letters: &[u8] = if round % 2 == 0 { b"ab" } else { b"abc" };
            let hay: Vec<u8> = (0..next() % 70)
                .map(|_| letters[(next() % letters.len() as u64) as usize])
                .collect();
            let needle: Vec<u8> = (0..next() % (SHORT_NEEDLE as u64 + 1))
                .map(|_| letters[(next() % letters.len() as u64) as usize])
                .collect();
            let short: Vec<usize> = matches(&hay, &needle).collect();
            let want: Vec<usize> = memmem::find_iter(&hay, &needle).collect();
            assert_eq!(short, want, "{hay:?} {needle:?}");
            let short: Vec<usize> = matches_rev(&hay, &needle).collect();
            let want: Vec<usize> = memmem::rfind_iter(&hay, &needle).collect();
            assert_eq!(short, want, "reverse {hay:?} {needle:?}");
        }
        // The long path is memmem itself.
        let hay = b"xy".repeat(SHORT_HAY);
        assert_eq!(matches(&hay, b"yx").count(), SHORT_HAY - 1);
        assert_eq!(matches_rev(&hay, b"yx").next(), Some(2 * SHORT_HAY - 3));
    }
}
