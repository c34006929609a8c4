//! Replacement templates for `sub`/`subn`/`Match.expand`, with the parsing
//! rules and error messages of CPython 3.11's `re._parser.parse_template`:
//! `\1`..`\99`, `\g<n>`, `\g<name>`, octal escapes, the simple escapes, and
//! unknown non-letter escapes kept verbatim.

use crate::error::{CompileError, ErrorKind};
use crate::parse::{
    ch, is_ascii_letter, is_identifier, is_oct, parse_int, py_repr, simple_escape, Source, Tok,
    MAXGROUPS,
};
use crate::{Match, Regex};

/// One piece of a parsed template.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Piece {
    /// Literal code units.
    Lit(Vec<u32>),
    /// The text of a group (empty if the group did not match).
    Group(usize),
}

/// A parsed replacement template.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Template {
    /// The pieces, in order.
    pub pieces: Vec<Piece>,
}

fn push_lit(pieces: &mut Vec<Piece>, c: u32) {
    if let Some(Piece::Lit(v)) = pieces.last_mut() {
        v.push(c);
    } else {
        pieces.push(Piece::Lit(vec![c]));
    }
}

impl Template {
    /// Parses `repl` for `regex` (code units, same kind as the pattern).
    pub fn parse(repl: &[u32], regex: &Regex) -> Result<Template, CompileError> {
        let mut s = Source::new(repl, regex.is_text())?;
        let mut pieces = Vec::new();
        let groups = regex.groups();
        let addgroup = |s: &Source,
                        pieces: &mut Vec<Piece>,
                        index: usize,
                        pos: usize|
         -> Result<(), CompileError> {
            if index > groups {
                return Err(s.error(&format!("invalid group reference {index}"), pos));
            }
            pieces.push(Piece::Group(index));
            Ok(())
        };
        while let Some(this) = s.get()? {
            let c = match this {
                Tok::Ch(c) => {
                    push_lit(&mut pieces, c);
                    continue;
                }
                Tok::Esc(c) => c,
            };
            if c == u32::from(b'g') {
                if !s.matches(b'<')? {
                    return Err(s.error("missing <", 0));
                }
                let name = s.getuntil(b'>', "group name")?;
                let nlen = name.chars().count();
                let index = if is_identifier(&name) {
                    match regex.groupindex().get(&name) {
                        Some(&i) => i,
                        None => {
                            return Err(CompileError::plain(
                                ErrorKind::Index,
                                format!("unknown group name {}", py_repr(&name)),
                            ));
                        }
                    }
                } else {
                    let Some(i) = parse_int(&name) else {
                        return Err(s.error(
                            &format!("bad character in group name {}", py_repr(&name)),
                            nlen + 1,
                        ));
                    };
                    if i >= MAXGROUPS {
                        return Err(s.error(&format!("invalid group reference {i}"), nlen + 1));
                    }
                    i
                };
                addgroup(&s, &mut pieces, index, nlen + 1)?;
            } else if c == u32::from(b'0') {
                let mut v = 0u32;
                for _ in 0..2 {
                    match s.next {
                        Some(Tok::Ch(d)) if is_oct(d) => {
                            v = v * 8 + (d - 0x30);
                            s.get()?;
                        }
                        _ => break,
                    }
                }
                push_lit(&mut pieces, v & 0xFF);
            } else if (0x31..=0x39).contains(&c) {
                let mut digits = vec![c];
                let mut octal = false;
                if let Some(Tok::Ch(d)) = s.next {
                    if (0x30..=0x39).contains(&d) {
                        s.get()?;
                        digits.push(d);
                        if is_oct(c) && is_oct(d) {
                            if let Some(Tok::Ch(e)) = s.next {
                                if is_oct(e) {
                                    s.get()?;
                                    digits.push(e);
                                    octal = true;
                                    let v = (c - 0x30) * 64 + (d - 0x30) * 8 + (e - 0x30);
                                    if v > 0o377 {
                                        let text: String = digits.iter().map(|&x| ch(x)).collect();
                                        let msg = format!(
                                            "octal escape value \\{text} outside of range 0-0o377"
                                        );
                                        return Err(s.error(&msg, digits.len() + 1));
                                    }
                                    push_lit(&mut pieces, v);
                                }
                            }
                        }
                    }
                }
                if !octal {
                    let index = digits
                        .iter()
                        .fold(0usize, |a, &d| a * 10 + (d - 0x30) as usize);
                    addgroup(&s, &mut pieces, index, digits.len())?;
                }
            } else if let Some(v) = simple_escape(c) {
                push_lit(&mut pieces, v);
            } else if is_ascii_letter(c) {
                return Err(s.error(&format!("bad escape \\{}", ch(c)), 2));
            } else {
                push_lit(&mut pieces, u32::from(b'\\'));
                push_lit(&mut pieces, c);
            }
        }
        Ok(Template { pieces })
    }

    /// The replacement text for match `m` of `text` (`Match.expand`).
    pub fn expand(&self, text: &[u32], m: &Match) -> Vec<u32> {
        let mut out = Vec::new();
        for p in &self.pieces {
            match p {
                Piece::Lit(v) => out.extend_from_slice(v),
                Piece::Group(g) => out.extend_from_slice(m.group(text, *g).unwrap_or(&[])),
            }
        }
        out
    }

    /// Number of code units `expand` produces for match `m` (computed in
    /// O(pieces), so callers can charge before expanding).
    pub fn expanded_len(&self, m: &Match) -> usize {
        self.pieces
            .iter()
            .map(|p| match p {
                Piece::Lit(v) => v.len(),
                Piece::Group(g) => m.spans.get(*g).copied().flatten().map_or(0, |(s, e)| e - s),
            })
            .fold(0usize, usize::saturating_add)
    }
}
