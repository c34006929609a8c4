//! Pattern parser with the semantics and error messages of CPython 3.11's
//! `re._parser` (sre_parse): tokenizer, escapes, classes, groups, lookaround,
//! conditionals, inline flags, greedy/lazy/possessive repeats, widths for the
//! fixed-width look-behind rule. Produces the AST that `compile` lowers.
//!
//! Patterns are sequences of code units (`u32`): code points for str
//! patterns, bytes for bytes patterns (CPython decodes those as latin-1).
//! Error positions are indices into that sequence, as `re.error.pos`.

use std::collections::BTreeMap;

use crate::error::{CompileError, ErrorKind};
use crate::flags;

/// `_sre.MAXREPEAT`: an unbounded repeat's max.
pub(crate) const MAXREPEAT: u64 = 4_294_967_295;
/// Deepest nesting of groups, lookarounds and repeats a pattern may have.
pub const MAX_NESTING: usize = 100;
/// `_sre.MAXGROUPS` on 64-bit CPython.
pub(crate) const MAXGROUPS: usize = 1_073_741_823;

/// One of `\d \D \s \S \w \W`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Cat {
    Digit,
    NotDigit,
    Space,
    NotSpace,
    Word,
    NotWord,
}

/// A member of a character class.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ClassItem {
    Lit(u32),
    Range(u32, u32),
    Cat(Cat),
}

/// Zero-width position tests.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum At {
    Beginning,
    BeginningString,
    End,
    EndString,
    Boundary,
    NonBoundary,
}

/// Repeat flavour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RepKind {
    Greedy,
    Lazy,
    Possessive,
}

/// The parsed pattern (sre_parse's `(op, av)` list, as a tree).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Node {
    Lit(u32),
    NotLit(u32),
    Any,
    In {
        negate: bool,
        items: Vec<ClassItem>,
    },
    At(At),
    Branch(Vec<Vec<Node>>),
    Group {
        gid: Option<usize>,
        add: u32,
        del: u32,
        body: Vec<Node>,
    },
    Atomic(Vec<Node>),
    Repeat {
        min: u32,
        max: u32,
        kind: RepKind,
        body: Vec<Node>,
    },
    Assert {
        behind: bool,
        negate: bool,
        body: Vec<Node>,
    },
    GroupRef(usize),
    GroupRefExists {
        group: usize,
        yes: Vec<Node>,
        no: Option<Vec<Node>>,
    },
}

/// Result of parsing: the tree plus what `Pattern` exposes.
#[derive(Debug)]
pub(crate) struct Parsed {
    pub(crate) nodes: Vec<Node>,
    pub(crate) flags: u32,
    /// Number of capturing groups (not counting group 0).
    pub(crate) groups: usize,
    pub(crate) groupindex: BTreeMap<String, usize>,
    /// Width bounds of every group (index 0 unused), for look-behind checks.
    pub(crate) groupwidths: Vec<Option<(u64, u64)>>,
}

/// Width bounds of a subpattern, as `SubPattern.getwidth()`.
pub(crate) fn width(nodes: &[Node], gw: &[Option<(u64, u64)>]) -> (u64, u64) {
    let (mut lo, mut hi) = (0u64, 0u64);
    for n in nodes {
        let (i, j) = match n {
            Node::Branch(alts) => {
                let mut i = MAXREPEAT - 1;
                let mut j = 0;
                for a in alts {
                    let (l, h) = width(a, gw);
                    i = i.min(l);
                    j = j.max(h);
                }
                (i, j)
            }
            Node::Atomic(b) | Node::Group { body: b, .. } => width(b, gw),
            Node::Repeat { min, max, body, .. } => {
                let (i, j) = width(body, gw);
                (
                    i.saturating_mul(u64::from(*min)),
                    j.saturating_mul(u64::from(*max)),
                )
            }
            Node::Lit(_) | Node::NotLit(_) | Node::Any | Node::In { .. } => (1, 1),
            Node::GroupRef(g) => gw.get(*g).copied().flatten().unwrap_or((0, 0)),
            Node::GroupRefExists { yes, no, .. } => {
                let (i, j) = width(yes, gw);
                match no {
                    Some(no) => {
                        let (l, h) = width(no, gw);
                        (i.min(l), j.max(h))
                    }
                    None => (0, j),
                }
            }
            Node::At(_) | Node::Assert { .. } => (0, 0),
        };
        lo = lo.saturating_add(i);
        hi = hi.saturating_add(j);
    }
    (lo.min(MAXREPEAT - 1), hi.min(MAXREPEAT))
}

/// A token: one character, or a backslash and the character after it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Tok {
    Ch(u32),
    Esc(u32),
}

impl Tok {
    pub(crate) fn len(self) -> usize {
        match self {
            Tok::Ch(_) => 1,
            Tok::Esc(_) => 2,
        }
    }
    pub(crate) fn is(self, c: u8) -> bool {
        self == Tok::Ch(u32::from(c))
    }
    pub(crate) fn text(self) -> String {
        match self {
            Tok::Ch(c) => ch(c).to_string(),
            Tok::Esc(c) => format!("\\{}", ch(c)),
        }
    }
}

pub(crate) fn ch(c: u32) -> char {
    char::from_u32(c).unwrap_or('\u{FFFD}')
}

/// Python's `repr()` of a str, enough for error messages.
pub(crate) fn py_repr(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::new();
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 || (0x7F..0xA1).contains(&(c as u32)) => {
                out.push_str(&format!("\\x{:02x}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

/// `str.isidentifier()`, from tables generated by CPython.
pub(crate) fn is_identifier(s: &str) -> bool {
    crate::unicode::is_identifier(s)
}

fn is_digit(t: Option<Tok>) -> Option<u32> {
    match t {
        Some(Tok::Ch(c)) if (0x30..=0x39).contains(&c) => Some(c - 0x30),
        _ => None,
    }
}

/// sre_parse's `Tokenizer`.
pub(crate) struct Source<'a> {
    s: &'a [u32],
    index: usize,
    pub(crate) next: Option<Tok>,
    pub(crate) is_text: bool,
}

impl<'a> Source<'a> {
    pub(crate) fn new(s: &'a [u32], is_text: bool) -> Result<Self, CompileError> {
        let mut src = Source {
            s,
            index: 0,
            next: None,
            is_text,
        };
        src.advance()?;
        Ok(src)
    }

    pub(crate) fn advance(&mut self) -> Result<(), CompileError> {
        let i = self.index;
        let Some(&c) = self.s.get(i) else {
            self.next = None;
            return Ok(());
        };
        if c == u32::from(b'\\') {
            let Some(&d) = self.s.get(i + 1) else {
                return Err(self.err_at("bad escape (end of pattern)", self.s.len() - 1));
            };
            self.index = i + 2;
            self.next = Some(Tok::Esc(d));
        } else {
            self.index = i + 1;
            self.next = Some(Tok::Ch(c));
        }
        Ok(())
    }

    pub(crate) fn get(&mut self) -> Result<Option<Tok>, CompileError> {
        let t = self.next;
        self.advance()?;
        Ok(t)
    }

    pub(crate) fn matches(&mut self, c: u8) -> Result<bool, CompileError> {
        if self.next.is_some_and(|t| t.is(c)) {
            self.advance()?;
            return Ok(true);
        }
        Ok(false)
    }

    pub(crate) fn tell(&self) -> usize {
        self.index - self.next.map_or(0, Tok::len)
    }

    pub(crate) fn seek(&mut self, index: usize) -> Result<(), CompileError> {
        self.index = index;
        self.advance()
    }

    pub(crate) fn getwhile(
        &mut self,
        n: usize,
        pred: fn(u32) -> bool,
    ) -> Result<String, CompileError> {
        let mut out = String::new();
        for _ in 0..n {
            match self.next {
                Some(Tok::Ch(c)) if pred(c) => {
                    out.push(ch(c));
                    self.advance()?;
                }
                _ => break,
            }
        }
        Ok(out)
    }

    pub(crate) fn getuntil(&mut self, term: u8, name: &str) -> Result<String, CompileError> {
        let mut out = String::new();
        loop {
            let c = self.next;
            self.advance()?;
            match c {
                None => {
                    if out.is_empty() {
                        return Err(self.error(&format!("missing {name}"), 0));
                    }
                    let n = out.chars().count();
                    return Err(self.error(
                        &format!("missing {}, unterminated name", ch(u32::from(term))),
                        n,
                    ));
                }
                Some(t) if t.is(term) => {
                    if out.is_empty() {
                        return Err(self.error(&format!("missing {name}"), 1));
                    }
                    return Ok(out);
                }
                Some(t) => out.push_str(&t.text()),
            }
        }
    }

    pub(crate) fn err_at(&self, msg: &str, pos: usize) -> CompileError {
        let msg = if self.is_text {
            msg.to_string()
        } else {
            ascii_backslashreplace(msg)
        };
        CompileError::re(msg, self.s, pos)
    }

    pub(crate) fn error(&self, msg: &str, offset: usize) -> CompileError {
        self.err_at(msg, self.tell().saturating_sub(offset))
    }

    pub(crate) fn checkgroupname(&self, name: &str, offset: usize) -> Result<(), CompileError> {
        if !is_identifier(name) {
            let msg = format!("bad character in group name {}", py_repr(name));
            return Err(self.error(&msg, name.chars().count() + offset));
        }
        Ok(())
    }
}

/// `msg.encode('ascii', 'backslashreplace').decode('ascii')`.
fn ascii_backslashreplace(msg: &str) -> String {
    let mut out = String::new();
    for c in msg.chars() {
        let v = c as u32;
        if v < 0x80 {
            out.push(c);
        } else if v < 0x100 {
            out.push_str(&format!("\\x{v:02x}"));
        } else if v < 0x10000 {
            out.push_str(&format!("\\u{v:04x}"));
        } else {
            out.push_str(&format!("\\U{v:08x}"));
        }
    }
    out
}

fn is_hex(c: u32) -> bool {
    char::from_u32(c).is_some_and(|c| c.is_ascii_hexdigit())
}
pub(crate) fn is_oct(c: u32) -> bool {
    (0x30..=0x37).contains(&c)
}
pub(crate) fn is_ascii_letter(c: u32) -> bool {
    char::from_u32(c).is_some_and(|c| c.is_ascii_alphabetic())
}

fn hex_value(s: &str) -> u32 {
    u32::from_str_radix(s, 16).unwrap_or(u32::MAX)
}

/// sre_parse's `State`.
struct State {
    flags: u32,
    groupdict: BTreeMap<String, usize>,
    groupwidths: Vec<Option<(u64, u64)>>,
    lookbehindgroups: Option<usize>,
    grouprefpos: BTreeMap<usize, usize>,
}

impl State {
    fn groups(&self) -> usize {
        self.groupwidths.len()
    }
    fn checkgroup(&self, gid: usize) -> bool {
        gid < self.groups() && self.groupwidths.get(gid).is_some_and(Option::is_some)
    }
    fn checklookbehindgroup(&self, gid: usize, src: &Source) -> Result<(), CompileError> {
        if let Some(lb) = self.lookbehindgroups {
            if !self.checkgroup(gid) {
                return Err(src.error("cannot refer to an open group", 0));
            }
            if gid >= lb {
                return Err(src.error(
                    "cannot refer to group defined in the same lookbehind subpattern",
                    0,
                ));
            }
        }
        Ok(())
    }
}

/// What an escape means outside or inside a class.
enum Esc {
    Lit(u32),
    Cat(Cat),
    At(At),
    GroupRef(usize),
}

fn category(c: u32) -> Option<Esc> {
    Some(match ch(c) {
        'A' => Esc::At(At::BeginningString),
        'b' => Esc::At(At::Boundary),
        'B' => Esc::At(At::NonBoundary),
        'd' => Esc::Cat(Cat::Digit),
        'D' => Esc::Cat(Cat::NotDigit),
        's' => Esc::Cat(Cat::Space),
        'S' => Esc::Cat(Cat::NotSpace),
        'w' => Esc::Cat(Cat::Word),
        'W' => Esc::Cat(Cat::NotWord),
        'Z' => Esc::At(At::EndString),
        _ => return None,
    })
}

pub(crate) fn simple_escape(c: u32) -> Option<u32> {
    Some(match ch(c) {
        'a' => 7,
        'b' => 8,
        'f' => 12,
        'n' => 10,
        'r' => 13,
        't' => 9,
        'v' => 11,
        '\\' => 92,
        _ => return None,
    })
}

/// The `\x`, `\u`, `\U` and `\N` escapes shared by classes and expressions.
/// `Ok(None)` means "not one of these".
fn code_escape(src: &mut Source, c: u32, escape: &mut String) -> Result<Option<u32>, CompileError> {
    match ch(c) {
        'x' => {
            escape.push_str(&src.getwhile(2, is_hex)?);
            if escape.chars().count() != 4 {
                return Err(src.error(
                    &format!("incomplete escape {escape}"),
                    escape.chars().count(),
                ));
            }
            Ok(Some(hex_value(escape.get(2..).unwrap_or(""))))
        }
        'u' if src.is_text => {
            escape.push_str(&src.getwhile(4, is_hex)?);
            if escape.chars().count() != 6 {
                return Err(src.error(
                    &format!("incomplete escape {escape}"),
                    escape.chars().count(),
                ));
            }
            Ok(Some(hex_value(escape.get(2..).unwrap_or(""))))
        }
        'U' if src.is_text => {
            escape.push_str(&src.getwhile(8, is_hex)?);
            if escape.chars().count() != 10 {
                return Err(src.error(
                    &format!("incomplete escape {escape}"),
                    escape.chars().count(),
                ));
            }
            let v = hex_value(escape.get(2..).unwrap_or(""));
            if v > 0x10FFFF {
                return Err(src.error(&format!("bad escape {escape}"), escape.chars().count()));
            }
            Ok(Some(v))
        }
        'N' if src.is_text => {
            if !src.matches(b'{')? {
                return Err(src.error("missing {", 0));
            }
            let name = src.getuntil(b'}', "character name")?;
            // The Unicode name database is not part of this crate; every
            // name is reported as undefined (README "does not").
            let msg = format!("undefined character name {}", py_repr(&name));
            Err(src.error(&msg, name.chars().count() + 4))
        }
        _ => Ok(None),
    }
}

fn class_escape(src: &mut Source, c: u32) -> Result<Esc, CompileError> {
    if let Some(v) = simple_escape(c) {
        return Ok(Esc::Lit(v));
    }
    if let Some(Esc::Cat(k)) = category(c) {
        return Ok(Esc::Cat(k));
    }
    let mut escape = format!("\\{}", ch(c));
    if let Some(v) = code_escape(src, c, &mut escape)? {
        return Ok(Esc::Lit(v));
    }
    if is_oct(c) {
        escape.push_str(&src.getwhile(2, is_oct)?);
        let v = u32::from_str_radix(escape.get(1..).unwrap_or(""), 8).unwrap_or(u32::MAX);
        if v > 0o377 {
            let msg = format!("octal escape value {escape} outside of range 0-0o377");
            return Err(src.error(&msg, escape.chars().count()));
        }
        return Ok(Esc::Lit(v));
    }
    if (0x30..=0x39).contains(&c) || is_ascii_letter(c) {
        return Err(src.error(&format!("bad escape {escape}"), escape.chars().count()));
    }
    Ok(Esc::Lit(c))
}

fn escape(src: &mut Source, c: u32, state: &State) -> Result<Esc, CompileError> {
    if let Some(e) = category(c) {
        return Ok(e);
    }
    if let Some(v) = simple_escape(c) {
        return Ok(Esc::Lit(v));
    }
    let mut escape = format!("\\{}", ch(c));
    if let Some(v) = code_escape(src, c, &mut escape)? {
        return Ok(Esc::Lit(v));
    }
    if c == u32::from(b'0') {
        escape.push_str(&src.getwhile(2, is_oct)?);
        return Ok(Esc::Lit(
            u32::from_str_radix(escape.get(1..).unwrap_or("0"), 8).unwrap_or(0),
        ));
    }
    if (0x31..=0x39).contains(&c) {
        if let Some(d) = is_digit(src.next) {
            src.get()?;
            escape.push(ch(0x30 + d));
            if is_oct(c)
                && is_oct(0x30 + d)
                && src
                    .next
                    .is_some_and(|t| matches!(t, Tok::Ch(x) if is_oct(x)))
            {
                if let Some(Tok::Ch(x)) = src.get()? {
                    escape.push(ch(x));
                }
                let v = u32::from_str_radix(escape.get(1..).unwrap_or(""), 8).unwrap_or(u32::MAX);
                if v > 0o377 {
                    let msg = format!("octal escape value {escape} outside of range 0-0o377");
                    return Err(src.error(&msg, escape.chars().count()));
                }
                return Ok(Esc::Lit(v));
            }
        }
        let group: usize = escape.get(1..).and_then(|s| s.parse().ok()).unwrap_or(0);
        if group < state.groups() {
            if !state.checkgroup(group) {
                return Err(src.error("cannot refer to an open group", escape.chars().count()));
            }
            state.checklookbehindgroup(group, src)?;
            return Ok(Esc::GroupRef(group));
        }
        let msg = format!("invalid group reference {group}");
        return Err(src.error(&msg, escape.chars().count() - 1));
    }
    if is_ascii_letter(c) {
        return Err(src.error(&format!("bad escape {escape}"), escape.chars().count()));
    }
    Ok(Esc::Lit(c))
}

/// Parses a whole pattern (`re._parser.parse` followed by `fix_flags`).
pub(crate) fn parse(pattern: &[u32], is_text: bool, flags_in: u32) -> Result<Parsed, CompileError> {
    let mut src = Source::new(pattern, is_text)?;
    let mut state = State {
        flags: flags_in,
        groupdict: BTreeMap::new(),
        groupwidths: vec![None],
        lookbehindgroups: None,
        grouprefpos: BTreeMap::new(),
    };
    let verbose = flags_in & flags::VERBOSE != 0;
    let nodes = parse_sub(&mut src, &mut state, verbose, 0)?;
    let flags = fix_flags(is_text, state.flags)?;
    if src.next.is_some() {
        return Err(src.error("unbalanced parenthesis", 0));
    }
    for (&g, &pos) in &state.grouprefpos {
        if g >= state.groups() {
            return Err(CompileError::re(
                format!("invalid group reference {g}"),
                pattern,
                pos,
            ));
        }
    }
    Ok(Parsed {
        nodes,
        flags,
        groups: state.groups() - 1,
        groupindex: state.groupdict,
        groupwidths: state.groupwidths,
    })
}

/// `re._parser.fix_flags`.
pub(crate) fn fix_flags(is_text: bool, mut f: u32) -> Result<u32, CompileError> {
    if is_text {
        if f & flags::LOCALE != 0 {
            return Err(CompileError::plain(
                ErrorKind::Value,
                "cannot use LOCALE flag with a str pattern",
            ));
        }
        if f & flags::ASCII == 0 {
            f |= flags::UNICODE;
        } else if f & flags::UNICODE != 0 {
            return Err(CompileError::plain(
                ErrorKind::Value,
                "ASCII and UNICODE flags are incompatible",
            ));
        }
    } else {
        if f & flags::UNICODE != 0 {
            return Err(CompileError::plain(
                ErrorKind::Value,
                "cannot use UNICODE flag with a bytes pattern",
            ));
        }
        if f & flags::LOCALE != 0 && f & flags::ASCII != 0 {
            return Err(CompileError::plain(
                ErrorKind::Value,
                "ASCII and LOCALE flags are incompatible",
            ));
        }
    }
    Ok(f)
}

fn parse_sub(
    src: &mut Source,
    state: &mut State,
    mut verbose: bool,
    nested: usize,
) -> Result<Vec<Node>, CompileError> {
    // The parser, compiler and width computation recurse once per nesting
    // level; bound it so hostile patterns cannot overflow the Rust stack
    // (under 4 KiB of stack per level at opt-level >= 1; unoptimised builds
    // need about 25 KiB). CPython raises RecursionError at about 495 levels.
    if nested / 2 > MAX_NESTING {
        return Err(CompileError::plain(
            ErrorKind::Recursion,
            "maximum recursion depth exceeded",
        ));
    }
    let mut items: Vec<Vec<Node>> = Vec::new();
    loop {
        let first = nested == 0 && items.is_empty();
        items.push(parse_seq(src, state, verbose, nested + 1, first)?);
        if !src.matches(b'|')? {
            break;
        }
        if nested == 0 {
            verbose = state.flags & flags::VERBOSE != 0;
        }
    }
    if items.len() == 1 {
        return Ok(items.pop().unwrap_or_default());
    }
    Ok(vec![Node::Branch(items)])
}

fn flag_bit(c: u32) -> Option<u32> {
    Some(match ch(c) {
        'i' => flags::IGNORECASE,
        'L' => flags::LOCALE,
        'm' => flags::MULTILINE,
        's' => flags::DOTALL,
        'x' => flags::VERBOSE,
        'a' => flags::ASCII,
        't' => flags::TEMPLATE,
        'u' => flags::UNICODE,
        _ => return None,
    })
}

const TYPE_FLAGS: u32 = flags::ASCII | flags::LOCALE | flags::UNICODE;
const GLOBAL_FLAGS: u32 = flags::DEBUG | flags::TEMPLATE;

fn tok_char(t: Option<Tok>) -> Option<u32> {
    match t {
        Some(Tok::Ch(c)) => Some(c),
        _ => None,
    }
}

fn tok_isalpha(t: Tok) -> bool {
    match t {
        Tok::Ch(c) => ch(c).is_alphabetic(),
        Tok::Esc(_) => false,
    }
}

/// `_parse_flags`: `Ok(None)` for global flags `(?i)`.
fn parse_flags(
    src: &mut Source,
    state: &mut State,
    first: Tok,
) -> Result<Option<(u32, u32)>, CompileError> {
    let mut add = 0u32;
    let mut del = 0u32;
    let mut cur = Some(first);
    if !first.is(b'-') {
        loop {
            let c = tok_char(cur).unwrap_or(0);
            let flag = flag_bit(c).unwrap_or(0);
            if src.is_text {
                if c == u32::from(b'L') {
                    return Err(src.error(
                        "bad inline flags: cannot use 'L' flag with a str pattern",
                        0,
                    ));
                }
            } else if c == u32::from(b'u') {
                return Err(src.error(
                    "bad inline flags: cannot use 'u' flag with a bytes pattern",
                    0,
                ));
            }
            add |= flag;
            if flag & TYPE_FLAGS != 0 && add & TYPE_FLAGS != flag {
                return Err(src.error(
                    "bad inline flags: flags 'a', 'u' and 'L' are incompatible",
                    0,
                ));
            }
            cur = src.get()?;
            let Some(t) = cur else {
                return Err(src.error("missing -, : or )", 0));
            };
            if t.is(b')') || t.is(b'-') || t.is(b':') {
                break;
            }
            if tok_char(cur).and_then(flag_bit).is_none() {
                let msg = if tok_isalpha(t) {
                    "unknown flag"
                } else {
                    "missing -, : or )"
                };
                return Err(src.error(msg, t.len()));
            }
        }
    }
    if cur.is_some_and(|t| t.is(b')')) {
        state.flags |= add;
        return Ok(None);
    }
    if add & GLOBAL_FLAGS != 0 {
        return Err(src.error("bad inline flags: cannot turn on global flag", 1));
    }
    if cur.is_some_and(|t| t.is(b'-')) {
        cur = src.get()?;
        let Some(t) = cur else {
            return Err(src.error("missing flag", 0));
        };
        if tok_char(cur).and_then(flag_bit).is_none() {
            let msg = if tok_isalpha(t) {
                "unknown flag"
            } else {
                "missing flag"
            };
            return Err(src.error(msg, t.len()));
        }
        loop {
            let flag = tok_char(cur).and_then(flag_bit).unwrap_or(0);
            if flag & TYPE_FLAGS != 0 {
                return Err(src.error(
                    "bad inline flags: cannot turn off flags 'a', 'u' and 'L'",
                    0,
                ));
            }
            del |= flag;
            cur = src.get()?;
            let Some(t) = cur else {
                return Err(src.error("missing :", 0));
            };
            if t.is(b':') {
                break;
            }
            if tok_char(cur).and_then(flag_bit).is_none() {
                let msg = if tok_isalpha(t) {
                    "unknown flag"
                } else {
                    "missing :"
                };
                return Err(src.error(msg, t.len()));
            }
        }
    }
    if del & GLOBAL_FLAGS != 0 {
        return Err(src.error("bad inline flags: cannot turn off global flag", 1));
    }
    if add & del != 0 {
        return Err(src.error("bad inline flags: flag turned on and off", 1));
    }
    Ok(Some((add, del)))
}

fn is_ws(c: u32) -> bool {
    matches!(c, 0x20 | 0x09 | 0x0A | 0x0D | 0x0B | 0x0C)
}

#[expect(
    clippy::too_many_lines,
    reason = "mirrors sre_parse._parse, one arm per syntax"
)]
fn parse_seq(
    src: &mut Source,
    state: &mut State,
    mut verbose: bool,
    nested: usize,
    first: bool,
) -> Result<Vec<Node>, CompileError> {
    let mut sub: Vec<Node> = Vec::new();
    while let Some(this) = src.next {
        if this.is(b'|') || this.is(b')') {
            break;
        }
        src.get()?;
        if verbose {
            if let Tok::Ch(c) = this {
                if is_ws(c) {
                    continue;
                }
                if c == u32::from(b'#') {
                    loop {
                        match src.get()? {
                            None => break,
                            Some(t) if t.is(b'\n') => break,
                            _ => {}
                        }
                    }
                    continue;
                }
            }
        }
        let c = match this {
            Tok::Esc(c) => {
                match escape(src, c, state)? {
                    Esc::Lit(v) => sub.push(Node::Lit(v)),
                    Esc::Cat(k) => sub.push(Node::In {
                        negate: false,
                        items: vec![ClassItem::Cat(k)],
                    }),
                    Esc::At(a) => sub.push(Node::At(a)),
                    Esc::GroupRef(g) => sub.push(Node::GroupRef(g)),
                }
                continue;
            }
            Tok::Ch(c) => c,
        };
        match ch(c) {
            '[' => {
                let here = src.tell() - 1;
                let negate = src.matches(b'^')?;
                let mut set: Vec<ClassItem> = Vec::new();
                loop {
                    let Some(t) = src.get()? else {
                        return Err(src.error("unterminated character set", src.tell() - here));
                    };
                    if t.is(b']') && !set.is_empty() {
                        break;
                    }
                    let code1 = match t {
                        Tok::Esc(e) => class_escape(src, e)?,
                        Tok::Ch(x) => Esc::Lit(x),
                    };
                    if src.matches(b'-')? {
                        let Some(that) = src.get()? else {
                            return Err(src.error("unterminated character set", src.tell() - here));
                        };
                        if that.is(b']') {
                            set.push(item_of(code1));
                            set.push(ClassItem::Lit(u32::from(b'-')));
                            break;
                        }
                        let code2 = match that {
                            Tok::Esc(e) => class_escape(src, e)?,
                            Tok::Ch(x) => Esc::Lit(x),
                        };
                        let msg = format!("bad character range {}-{}", t.text(), that.text());
                        let off = t.text().chars().count() + 1 + that.text().chars().count();
                        match (code1, code2) {
                            (Esc::Lit(lo), Esc::Lit(hi)) if hi >= lo => {
                                set.push(ClassItem::Range(lo, hi))
                            }
                            _ => return Err(src.error(&msg, off)),
                        }
                    } else {
                        set.push(item_of(code1));
                    }
                }
                let mut uniq: Vec<ClassItem> = Vec::new();
                for i in set {
                    if !uniq.contains(&i) {
                        uniq.push(i);
                    }
                }
                match (uniq.as_slice(), negate) {
                    ([ClassItem::Lit(v)], false) => sub.push(Node::Lit(*v)),
                    ([ClassItem::Lit(v)], true) => sub.push(Node::NotLit(*v)),
                    _ => sub.push(Node::In {
                        negate,
                        items: uniq,
                    }),
                }
            }
            '*' | '+' | '?' | '{' => {
                let here = src.tell();
                let (min, max): (u64, u64);
                match ch(c) {
                    '?' => (min, max) = (0, 1),
                    '*' => (min, max) = (0, MAXREPEAT),
                    '+' => (min, max) = (1, MAXREPEAT),
                    _ => {
                        if src.next.is_some_and(|t| t.is(b'}')) {
                            sub.push(Node::Lit(c));
                            continue;
                        }
                        let mut lo = String::new();
                        let mut hi = String::new();
                        while let Some(d) = is_digit(src.next) {
                            lo.push(ch(0x30 + d));
                            src.get()?;
                        }
                        if src.matches(b',')? {
                            while let Some(d) = is_digit(src.next) {
                                hi.push(ch(0x30 + d));
                                src.get()?;
                            }
                        } else {
                            hi = lo.clone();
                        }
                        if !src.matches(b'}')? {
                            sub.push(Node::Lit(c));
                            src.seek(here)?;
                            continue;
                        }
                        let mut mn = 0;
                        let mut mx = MAXREPEAT;
                        if !lo.is_empty() {
                            mn = parse_count(&lo)?;
                        }
                        if !hi.is_empty() {
                            mx = parse_count(&hi)?;
                            if mx < mn {
                                return Err(src.error(
                                    "min repeat greater than max repeat",
                                    src.tell() - here,
                                ));
                            }
                        }
                        (min, max) = (mn, mx);
                    }
                }
                let off = src.tell() - here + 1;
                let item = match sub.pop() {
                    None | Some(Node::At(_)) => return Err(src.error("nothing to repeat", off)),
                    Some(Node::Repeat { .. }) => return Err(src.error("multiple repeat", off)),
                    Some(Node::Group {
                        gid: None,
                        add: 0,
                        del: 0,
                        body,
                    }) => body,
                    Some(n) => vec![n],
                };
                let kind = if src.matches(b'?')? {
                    RepKind::Lazy
                } else if src.matches(b'+')? {
                    RepKind::Possessive
                } else {
                    RepKind::Greedy
                };
                let min = u32::try_from(min).unwrap_or(u32::MAX);
                let max = u32::try_from(max).unwrap_or(u32::MAX);
                sub.push(Node::Repeat {
                    min,
                    max,
                    kind,
                    body: item,
                });
            }
            '.' => sub.push(Node::Any),
            '^' => sub.push(Node::At(At::Beginning)),
            '$' => sub.push(Node::At(At::End)),
            '(' => match parse_group(src, state, verbose, nested, first && sub.is_empty())? {
                GroupOutcome::Push(n) => sub.push(n),
                GroupOutcome::Nothing => {}
                GroupOutcome::Verbose(v) => verbose = v,
            },
            _ => sub.push(Node::Lit(c)),
        }
    }
    // Unpack plain non-capturing groups, as sre_parse does.
    let mut out = Vec::with_capacity(sub.len());
    for n in sub {
        match n {
            Node::Group {
                gid: None,
                add: 0,
                del: 0,
                body,
            } => out.extend(body),
            n => out.push(n),
        }
    }
    Ok(out)
}

/// What parsing a `(` construct produced.
enum GroupOutcome {
    /// A node to append.
    Push(Node),
    /// Nothing (a comment).
    Nothing,
    /// Global flags: the new verbose setting.
    Verbose(bool),
}

/// Parses everything after a `(`. A separate function so the recursive
/// `parse_seq` frame stays small (deep nesting recurses through it).
fn parse_group(
    src: &mut Source,
    state: &mut State,
    verbose: bool,
    nested: usize,
    at_start: bool,
) -> Result<GroupOutcome, CompileError> {
    let start = src.tell() - 1;
    let mut capture = true;
    let mut atomic = false;
    let mut name: Option<String> = None;
    let mut add = 0;
    let mut del = 0;
    if src.matches(b'?')? {
        let Some(t) = src.get()? else {
            return Err(src.error("unexpected end of pattern", 0));
        };
        match t {
            t if t.is(b'P') => {
                if src.matches(b'<')? {
                    let n = src.getuntil(b'>', "group name")?;
                    src.checkgroupname(&n, 1)?;
                    name = Some(n);
                } else if src.matches(b'=')? {
                    let n = src.getuntil(b')', "group name")?;
                    src.checkgroupname(&n, 1)?;
                    let nlen = n.chars().count();
                    let Some(&gid) = state.groupdict.get(&n) else {
                        let msg = format!("unknown group name {}", py_repr(&n));
                        return Err(src.error(&msg, nlen + 1));
                    };
                    if !state.checkgroup(gid) {
                        return Err(src.error("cannot refer to an open group", nlen + 1));
                    }
                    state.checklookbehindgroup(gid, src)?;
                    return Ok(GroupOutcome::Push(Node::GroupRef(gid)));
                } else {
                    let Some(t2) = src.get()? else {
                        return Err(src.error("unexpected end of pattern", 0));
                    };
                    let msg = format!("unknown extension ?P{}", t2.text());
                    return Err(src.error(&msg, t2.len() + 2));
                }
            }
            t if t.is(b':') => capture = false,
            t if t.is(b'#') => {
                loop {
                    if src.next.is_none() {
                        return Err(
                            src.error("missing ), unterminated comment", src.tell() - start)
                        );
                    }
                    if src.get()?.is_some_and(|t| t.is(b')')) {
                        break;
                    }
                }
                return Ok(GroupOutcome::Nothing);
            }
            t if t.is(b'=') || t.is(b'!') || t.is(b'<') => {
                let mut kind = t;
                let mut behind = false;
                let saved_lb = state.lookbehindgroups;
                if t.is(b'<') {
                    let Some(t2) = src.get()? else {
                        return Err(src.error("unexpected end of pattern", 0));
                    };
                    if !(t2.is(b'=') || t2.is(b'!')) {
                        let msg = format!("unknown extension ?<{}", t2.text());
                        return Err(src.error(&msg, t2.len() + 2));
                    }
                    kind = t2;
                    behind = true;
                    if saved_lb.is_none() {
                        state.lookbehindgroups = Some(state.groups());
                    }
                }
                let body = parse_sub(src, state, verbose, nested + 1)?;
                if behind && saved_lb.is_none() {
                    state.lookbehindgroups = None;
                }
                if !src.matches(b')')? {
                    return Err(src.error("missing ), unterminated subpattern", src.tell() - start));
                }
                return Ok(GroupOutcome::Push(Node::Assert {
                    behind,
                    negate: kind.is(b'!'),
                    body,
                }));
            }
            t if t.is(b'(') => {
                let condname = src.getuntil(b')', "group name")?;
                let clen = condname.chars().count();
                let condgroup = if is_identifier(&condname) {
                    let Some(&g) = state.groupdict.get(&condname) else {
                        let msg = format!("unknown group name {}", py_repr(&condname));
                        return Err(src.error(&msg, clen + 1));
                    };
                    g
                } else {
                    let Some(g) = parse_int(&condname) else {
                        let msg = format!("bad character in group name {}", py_repr(&condname));
                        return Err(src.error(&msg, clen + 1));
                    };
                    if g == 0 {
                        return Err(src.error("bad group number", clen + 1));
                    }
                    if g >= MAXGROUPS {
                        let msg = format!("invalid group reference {g}");
                        return Err(src.error(&msg, clen + 1));
                    }
                    let pos = src.tell() - clen - 1;
                    state.grouprefpos.entry(g).or_insert(pos);
                    g
                };
                state.checklookbehindgroup(condgroup, src)?;
                let yes = parse_seq(src, state, verbose, nested + 1, false)?;
                let no = if src.matches(b'|')? {
                    let no = parse_seq(src, state, verbose, nested + 1, false)?;
                    if src.next.is_some_and(|t| t.is(b'|')) {
                        return Err(src.error("conditional backref with more than two branches", 0));
                    }
                    Some(no)
                } else {
                    None
                };
                if !src.matches(b')')? {
                    return Err(src.error("missing ), unterminated subpattern", src.tell() - start));
                }
                return Ok(GroupOutcome::Push(Node::GroupRefExists {
                    group: condgroup,
                    yes,
                    no,
                }));
            }
            t if t.is(b'>') => {
                capture = false;
                atomic = true;
            }
            t if t.is(b'-') || tok_char(Some(t)).and_then(flag_bit).is_some() => {
                match parse_flags(src, state, t)? {
                    None => {
                        if !at_start {
                            return Err(src.error(
                                "global flags not at the start of the expression",
                                src.tell() - start,
                            ));
                        }
                        return Ok(GroupOutcome::Verbose(state.flags & flags::VERBOSE != 0));
                    }
                    Some((a, d)) => {
                        add = a;
                        del = d;
                        capture = false;
                    }
                }
            }
            t => {
                let msg = format!("unknown extension ?{}", t.text());
                return Err(src.error(&msg, t.len() + 1));
            }
        }
    }
    let gid = if capture {
        let gid = state.groups();
        state.groupwidths.push(None);
        if state.groups() > MAXGROUPS {
            return Err(src.error(
                "too many groups",
                name.as_ref().map_or(0, |n| n.chars().count()) + 1,
            ));
        }
        if let Some(n) = &name {
            if let Some(&og) = state.groupdict.get(n) {
                let msg = format!(
                    "redefinition of group name {} as group {gid}; was group {og}",
                    py_repr(n)
                );
                return Err(src.error(&msg, n.chars().count() + 1));
            }
            state.groupdict.insert(n.clone(), gid);
        }
        Some(gid)
    } else {
        None
    };
    let sub_verbose = (verbose || add & flags::VERBOSE != 0) && del & flags::VERBOSE == 0;
    let body = parse_sub(src, state, sub_verbose, nested + 1)?;
    if !src.matches(b')')? {
        return Err(src.error("missing ), unterminated subpattern", src.tell() - start));
    }
    if let Some(g) = gid {
        let w = width(&body, &state.groupwidths);
        if let Some(slot) = state.groupwidths.get_mut(g) {
            *slot = Some(w);
        }
    }
    if atomic {
        Ok(GroupOutcome::Push(Node::Atomic(body)))
    } else {
        Ok(GroupOutcome::Push(Node::Group {
            gid,
            add,
            del,
            body,
        }))
    }
}

fn item_of(e: Esc) -> ClassItem {
    match e {
        Esc::Cat(k) => ClassItem::Cat(k),
        Esc::Lit(v) => ClassItem::Lit(v),
        // class_escape never yields these.
        Esc::At(_) | Esc::GroupRef(_) => ClassItem::Lit(0),
    }
}

fn parse_count(s: &str) -> Result<u64, CompileError> {
    let mut v: u64 = 0;
    for d in s.bytes() {
        v = v.saturating_mul(10).saturating_add(u64::from(d - b'0'));
    }
    if v >= MAXREPEAT {
        return Err(CompileError::plain(
            ErrorKind::Overflow,
            "the repetition number is too large",
        ));
    }
    Ok(v)
}

/// `int(s)` for ASCII-digit strings (group numbers); `None` if not one.
pub(crate) fn parse_int(s: &str) -> Option<usize> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let mut v: usize = 0;
    for d in s.bytes() {
        v = v.saturating_mul(10).saturating_add(usize::from(d - b'0'));
    }
    Some(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn units(s: &str) -> Vec<u32> {
        s.chars().map(u32::from).collect()
    }

    fn err(p: &str) -> String {
        parse(&units(p), true, 0)
            .map(|_| String::new())
            .unwrap_or_else(|e| e.display)
    }

    #[test]
    fn widths_follow_getwidth() {
        let p = parse(&units("a{2,3}(b|cd)"), true, 0).expect("parses");
        assert_eq!(width(&p.nodes, &p.groupwidths), (3, 5));
        let p = parse(&units("a*"), true, 0).expect("parses");
        assert_eq!(width(&p.nodes, &p.groupwidths), (0, MAXREPEAT));
    }

    #[test]
    fn errors_carry_cpython_text_and_position() {
        assert_eq!(
            err("(?P<x>a)(?P<x>b)"),
            "redefinition of group name 'x' as group 2; was group 1 at position 12"
        );
        assert_eq!(err("a**"), "multiple repeat at position 2");
        assert_eq!(
            err("x{2,1}"),
            "min repeat greater than max repeat at position 2"
        );
        assert_eq!(
            err("a\n(b"),
            "missing ), unterminated subpattern at position 2 (line 2, column 1)"
        );
        assert_eq!(err("(?i"), "missing -, : or ) at position 3");
        assert_eq!(
            err("a(?i)"),
            "global flags not at the start of the expression at position 1"
        );
    }

    #[test]
    fn bytes_messages_are_ascii() {
        let e = parse(&[u32::from(b'\\'), 0xE9], false, 0)
            .map(|_| String::new())
            .unwrap_or_else(|e| e.display);
        assert_eq!(e, "");
        let e = parse(
            &[
                u32::from(b'['),
                0xE9,
                u32::from(b'-'),
                u32::from(b'a'),
                u32::from(b']'),
            ],
            false,
            0,
        )
        .map(|_| String::new())
        .unwrap_or_else(|e| e.display);
        assert_eq!(e, "bad character range \\xe9-a at position 1");
    }
}
