//! The scanning operations of `re` on top of the VM — `finditer`,
//! `findall`, `sub`/`subn` (template or callback), `split` — with CPython
//! 3.7+'s empty-match rule: after an empty match the next search starts at
//! the same position but may not return an empty match there. Also
//! `escape`. Output is charged to the meter one step per code unit copied.

use crate::error::{MatchError, ReError};
use crate::template::Template;
use crate::vm::RunOpts;
use crate::{Limits, Match, Meter, Regex};

/// An in-progress `finditer`: call [`Scanner::next_match`] repeatedly.
#[derive(Clone, Debug)]
pub struct Scanner {
    pos: usize,
    endpos: usize,
    must_advance: bool,
    done: bool,
}

impl Scanner {
    /// A scanner over `text[pos:endpos]` (clamped as Python does).
    pub fn new(text: &[u32], pos: usize, endpos: usize) -> Self {
        let endpos = endpos.min(text.len());
        let pos = pos.min(text.len());
        Scanner {
            pos,
            endpos,
            must_advance: false,
            done: pos > endpos,
        }
    }

    /// The next match, or `None` when the scan is over.
    pub fn next_match(
        &mut self,
        re: &Regex,
        text: &[u32],
        meter: &mut dyn Meter,
        limits: &Limits,
    ) -> Result<Option<Match>, MatchError> {
        if self.done {
            return Ok(None);
        }
        let opts = RunOpts {
            anchored: false,
            full: false,
            must_advance_at: self.must_advance.then_some(self.pos),
        };
        match re.find_at(text, self.pos, self.endpos, opts, meter, limits)? {
            Some(m) => {
                let (s, e) = m.span();
                self.must_advance = s == e;
                self.pos = e;
                Ok(Some(m))
            }
            None => {
                self.done = true;
                Ok(None)
            }
        }
    }
}

/// `Pattern.finditer`, collected.
pub fn finditer(
    re: &Regex,
    text: &[u32],
    pos: usize,
    endpos: usize,
    meter: &mut dyn Meter,
    limits: &Limits,
) -> Result<Vec<Match>, MatchError> {
    let mut sc = Scanner::new(text, pos, endpos);
    let mut out = Vec::new();
    while let Some(m) = sc.next_match(re, text, meter, limits)? {
        out.push(m);
    }
    Ok(out)
}

/// One element of `findall`'s result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FindItem {
    /// No groups: the whole match; one group: that group ('' if unmatched).
    One(Vec<u32>),
    /// Two or more groups: a tuple of them ('' for unmatched ones).
    Tuple(Vec<Vec<u32>>),
}

/// `Pattern.findall`.
pub fn findall(
    re: &Regex,
    text: &[u32],
    pos: usize,
    endpos: usize,
    meter: &mut dyn Meter,
    limits: &Limits,
) -> Result<Vec<FindItem>, MatchError> {
    let mut sc = Scanner::new(text, pos, endpos);
    let mut out = Vec::new();
    while let Some(m) = sc.next_match(re, text, meter, limits)? {
        // Charge for the copied text before copying it.
        let len: usize = match re.groups() {
            0 => m.group(text, 0).map_or(0, <[u32]>::len),
            n => (1..=n)
                .map(|i| m.group(text, i).map_or(0, <[u32]>::len))
                .sum(),
        };
        meter.charge(len as u64)?;
        let g = |i: usize| m.group(text, i).unwrap_or(&[]).to_vec();
        let item = match re.groups() {
            0 => FindItem::One(g(0)),
            1 => FindItem::One(g(1)),
            n => FindItem::Tuple((1..=n).map(g).collect()),
        };
        out.push(item);
    }
    Ok(out)
}

/// `Pattern.subn` with a callback computing each replacement (the PVM's
/// `repl` function). `count <= 0`… see [`subn`] for the count rule.
pub fn subn_with<E: From<MatchError>>(
    re: &Regex,
    text: &[u32],
    count: i64,
    meter: &mut dyn Meter,
    limits: &Limits,
    mut repl: impl FnMut(&Match, &mut dyn Meter) -> Result<Vec<u32>, E>,
) -> Result<(Vec<u32>, usize), E> {
    let mut sc = Scanner::new(text, 0, text.len());
    let mut out = Vec::new();
    let mut last = 0;
    let mut n: usize = 0;
    while count == 0 || (count > 0 && (n as u64) < count.unsigned_abs()) {
        let Some(m) = sc.next_match(re, text, meter, limits)? else {
            break;
        };
        let (s, e) = m.span();
        let piece = text.get(last..s).unwrap_or(&[]);
        meter.charge(piece.len() as u64).map_err(MatchError::from)?;
        out.extend_from_slice(piece);
        let r = repl(&m, meter)?;
        meter.charge(r.len() as u64).map_err(MatchError::from)?;
        out.extend_from_slice(&r);
        last = e;
        n += 1;
    }
    let rest = text.get(last..).unwrap_or(&[]);
    meter.charge(rest.len() as u64).map_err(MatchError::from)?;
    out.extend_from_slice(rest);
    Ok((out, n))
}

/// `Pattern.subn(repl, text, count)` with a template. `count == 0` replaces
/// every match; a negative count replaces none (CPython's loop condition).
pub fn subn(
    re: &Regex,
    repl: &[u32],
    text: &[u32],
    count: i64,
    meter: &mut dyn Meter,
    limits: &Limits,
) -> Result<(Vec<u32>, usize), ReError> {
    meter.charge(repl.len() as u64)?;
    let t = Template::parse(repl, re)?;
    subn_with::<ReError>(re, text, count, meter, limits, |m, meter| {
        // Charge the expansion before building it; copying it into the
        // output is charged again by subn_with.
        meter.charge(t.expanded_len(m) as u64)?;
        Ok(t.expand(text, m))
    })
}

/// `Pattern.split(text, maxsplit)`: pieces and captured groups (`None` for
/// groups that did not take part). `maxsplit == 0` splits everywhere; a
/// negative `maxsplit` does not split.
pub fn split(
    re: &Regex,
    text: &[u32],
    maxsplit: i64,
    meter: &mut dyn Meter,
    limits: &Limits,
) -> Result<Vec<Option<Vec<u32>>>, MatchError> {
    let mut sc = Scanner::new(text, 0, text.len());
    let mut out = Vec::new();
    let mut last = 0;
    let mut n: u64 = 0;
    while maxsplit == 0 || (maxsplit > 0 && n < maxsplit.unsigned_abs()) {
        let Some(m) = sc.next_match(re, text, meter, limits)? else {
            break;
        };
        let (s, e) = m.span();
        // Charge for each copy before making it.
        let piece = text.get(last..s).unwrap_or(&[]);
        meter.charge(piece.len() as u64)?;
        out.push(Some(piece.to_vec()));
        for g in 1..=re.groups() {
            let v = m.group(text, g);
            meter.charge(v.map_or(0, <[u32]>::len) as u64)?;
            out.push(v.map(<[u32]>::to_vec));
        }
        last = e;
        n += 1;
    }
    let rest = text.get(last..).unwrap_or(&[]);
    meter.charge(rest.len() as u64)?;
    out.push(Some(rest.to_vec()));
    Ok(out)
}

/// `re.escape`: backslash before each of `()[]{}?*+-|^$\.&~# \t\n\r\v\f`.
pub fn escape(units: &[u32]) -> Vec<u32> {
    const SPECIAL: &[u8] = b"()[]{}?*+-|^$\\.&~# \t\n\r\x0b\x0c";
    let mut out = Vec::with_capacity(units.len());
    for &c in units {
        if SPECIAL.iter().any(|&s| u32::from(s) == c) {
            out.push(u32::from(b'\\'));
        }
        out.push(c);
    }
    out
}
