//! Lowers the parsed pattern to a program for the backtracking VM, resolving
//! flags per scope as `re._compiler._compile` does: IGNORECASE folding
//! (unicode, ASCII, or none), MULTILINE anchors, DOTALL, ASCII categories,
//! and the fixed-width rule for look-behind ("look-behind requires
//! fixed-width pattern"). Single-character repeats become `RepOne` (sre's
//! REPEAT_ONE) so `.*` over a long subject needs one backtrack entry, not one
//! per character.

use crate::error::{CompileError, ErrorKind};
use crate::flags;
use crate::parse::{width, At, Cat, ClassItem, Node, Parsed, RepKind};
use crate::unicode;

/// How a literal or class compares characters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fold {
    None,
    Ascii,
    Uni,
}

/// A category with its ASCII/Unicode meaning fixed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct CatP {
    pub(crate) cat: Cat,
    pub(crate) ascii: bool,
}

impl CatP {
    pub(crate) fn test(self, c: u32) -> bool {
        let (d, w, s) = if self.ascii {
            (
                unicode::ascii_digit as fn(u32) -> bool,
                unicode::ascii_word as fn(u32) -> bool,
                unicode::ascii_space as fn(u32) -> bool,
            )
        } else {
            (
                unicode::uni_digit as fn(u32) -> bool,
                unicode::uni_word as fn(u32) -> bool,
                unicode::uni_space as fn(u32) -> bool,
            )
        };
        match self.cat {
            Cat::Digit => d(c),
            Cat::NotDigit => !d(c),
            Cat::Space => s(c),
            Cat::NotSpace => !s(c),
            Cat::Word => w(c),
            Cat::NotWord => !w(c),
        }
    }
}

/// A class member after flag resolution.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Item {
    Lit(u32),
    Range(u32, u32),
    Cat(CatP),
}

/// Something that matches exactly one character.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Unit {
    /// A literal; under folding `c` is already lower-cased.
    Lit {
        c: u32,
        fold: Fold,
        negate: bool,
    },
    Any,
    AnyAll,
    Class {
        negate: bool,
        fold: Fold,
        items: Vec<Item>,
    },
}

impl Unit {
    /// Steps one test of this unit costs: 1, plus one per 8 class-member
    /// comparisons a class test may make (a case-insensitive test scans the
    /// members once per case variant), so a huge class cannot make a step
    /// arbitrarily expensive.
    pub(crate) fn cost(&self) -> u64 {
        match self {
            Unit::Class { items, fold, .. } => {
                let passes: u64 = match fold {
                    Fold::None => 1,
                    Fold::Ascii => 2,
                    Fold::Uni => 8,
                };
                1 + (items.len() as u64).saturating_mul(passes) / 8
            }
            _ => 1,
        }
    }

    /// Does this unit accept character `c`?
    pub(crate) fn test(&self, c: u32) -> bool {
        match self {
            Unit::Lit { c: l, fold, negate } => {
                let hit = match fold {
                    Fold::None => c == *l,
                    Fold::Ascii => unicode::ascii_lower(c) == *l,
                    Fold::Uni => {
                        let lc = unicode::uni_lower(c);
                        lc == *l || unicode::extra_cases(*l).contains(&lc)
                    }
                };
                hit != *negate
            }
            Unit::Any => c != u32::from(b'\n'),
            Unit::AnyAll => true,
            Unit::Class {
                negate,
                fold,
                items,
            } => class_test(items, *fold, c) != *negate,
        }
    }
}

fn raw_in(items: &[Item], c: u32) -> bool {
    items.iter().any(|i| match *i {
        Item::Lit(l) => l == c,
        Item::Range(lo, hi) => lo <= c && c <= hi,
        Item::Cat(_) => false,
    })
}

fn class_test(items: &[Item], fold: Fold, c: u32) -> bool {
    if items.iter().any(|i| matches!(i, Item::Cat(p) if p.test(c))) {
        return true;
    }
    match fold {
        Fold::None => raw_in(items, c),
        Fold::Ascii => {
            let lc = unicode::ascii_lower(c);
            raw_in(items, lc) || ((0x61..=0x7A).contains(&lc) && raw_in(items, lc - 0x20))
        }
        Fold::Uni => {
            // CPython lower-cases every class member (adding _EXTRA_CASES)
            // and tests lower(c); equivalently some member lower-cases to
            // lower(c) or to one of its extra equivalents.
            let lc = unicode::uni_lower(c);
            if unicode::for_each_preimage(lc, &mut |x| raw_in(items, x)) {
                return true;
            }
            unicode::extra_cases(lc)
                .iter()
                .any(|&f| unicode::for_each_preimage(f, &mut |x| raw_in(items, x)))
        }
    }
}

/// Zero-width tests after flag resolution.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AtOp {
    Beginning,
    BeginLine,
    End,
    EndLine,
    EndString,
    Boundary { ascii: bool },
    NonBoundary { ascii: bool },
}

/// One VM instruction. Jump targets are program indices.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Inst {
    Unit(Unit),
    At(AtOp),
    Backref {
        group: usize,
        fold: Fold,
    },
    /// Record the position in capture slot `n` (2g = start, 2g+1 = end).
    Save(usize),
    /// Try `.0` first, then `.1`.
    Split(usize, usize),
    Jmp(usize),
    /// Start a counted loop: counter register := 0, last position := none.
    RepInit(usize),
    /// Loop head: iterate into the next instruction or leave to `exit`.
    RepHead {
        reg: usize,
        min: u32,
        max: u32,
        lazy: bool,
        exit: usize,
    },
    /// Count one iteration and remember where it started.
    RepStep(usize),
    /// A repeat of a single-character unit (sre REPEAT_ONE / MIN_REPEAT_ONE).
    RepOne {
        unit: Unit,
        min: u32,
        max: u32,
        lazy: bool,
    },
    AtomicStart,
    /// End of an atomic group: drop its choice points.
    AtomicEnd,
    /// Start an assertion looking `behind` characters back (0 = ahead);
    /// a negative assertion continues at `after` when its body fails.
    LookStart {
        behind: usize,
        negate: bool,
        after: usize,
    },
    LookEnd {
        negate: bool,
    },
    /// Continue if `group` matched, else jump to `no`.
    GroupExists {
        group: usize,
        no: usize,
    },
    Match,
}

/// A compiled program.
#[derive(Clone, Debug)]
pub(crate) struct Program {
    pub(crate) insts: Vec<Inst>,
    /// Number of counter registers used by general loops.
    pub(crate) regs: usize,
    /// Number of capture slots (2 per group, including group 0).
    pub(crate) slots: usize,
}

struct Compiler<'a> {
    insts: Vec<Inst>,
    regs: usize,
    is_text: bool,
    parsed: &'a Parsed,
    max_len: usize,
}

/// Compiles a parsed pattern; `max_len` bounds the program's instruction count.
pub(crate) fn compile(
    parsed: &Parsed,
    is_text: bool,
    max_len: usize,
) -> Result<Program, CompileError> {
    let mut c = Compiler {
        insts: Vec::new(),
        regs: 0,
        is_text,
        parsed,
        max_len,
    };
    c.seq(&parsed.nodes, parsed.flags)?;
    c.emit(Inst::Match)?;
    Ok(Program {
        insts: c.insts,
        regs: c.regs,
        slots: 2 * (parsed.groups + 1),
    })
}

fn combine(flags: u32, add: u32, del: u32) -> u32 {
    let mut f = flags;
    if add & (flags::ASCII | flags::UNICODE | flags::LOCALE) != 0 {
        f &= !(flags::ASCII | flags::UNICODE | flags::LOCALE);
    }
    (f | add) & !del
}

impl Compiler<'_> {
    fn emit(&mut self, i: Inst) -> Result<usize, CompileError> {
        if self.insts.len() >= self.max_len {
            return Err(CompileError::plain(
                ErrorKind::Unsupported,
                "regular expression code size limit exceeded",
            ));
        }
        self.insts.push(i);
        Ok(self.insts.len() - 1)
    }

    fn pc(&self) -> usize {
        self.insts.len()
    }

    fn patch(&mut self, at: usize, target: usize) {
        if let Some(i) = self.insts.get_mut(at) {
            match i {
                Inst::Split(_, b) => *b = target,
                Inst::Jmp(t) => *t = target,
                Inst::RepHead { exit, .. } => *exit = target,
                Inst::LookStart { after, .. } => *after = target,
                Inst::GroupExists { no, .. } => *no = target,
                _ => {}
            }
        }
    }

    fn ascii(&self, f: u32) -> bool {
        !self.is_text || f & flags::ASCII != 0
    }

    fn fold(&self, f: u32) -> Fold {
        if f & flags::IGNORECASE == 0 {
            Fold::None
        } else if self.ascii(f) {
            Fold::Ascii
        } else {
            Fold::Uni
        }
    }

    fn lit(&self, c: u32, negate: bool, f: u32) -> Unit {
        match self.fold(f) {
            Fold::None => Unit::Lit {
                c,
                fold: Fold::None,
                negate,
            },
            Fold::Ascii if unicode::ascii_cased(c) => Unit::Lit {
                c: unicode::ascii_lower(c),
                fold: Fold::Ascii,
                negate,
            },
            Fold::Uni if unicode::uni_cased(c) => Unit::Lit {
                c: unicode::uni_lower(c),
                fold: Fold::Uni,
                negate,
            },
            _ => Unit::Lit {
                c,
                fold: Fold::None,
                negate,
            },
        }
    }

    fn unit(&self, n: &Node, f: u32) -> Option<Unit> {
        Some(match n {
            Node::Lit(c) => self.lit(*c, false, f),
            Node::NotLit(c) => self.lit(*c, true, f),
            Node::Any if f & flags::DOTALL != 0 => Unit::AnyAll,
            Node::Any => Unit::Any,
            Node::In { negate, items } => {
                let ascii = self.ascii(f);
                let items: Vec<Item> = items
                    .iter()
                    .map(|i| match *i {
                        ClassItem::Lit(c) => Item::Lit(c),
                        ClassItem::Range(a, b) => Item::Range(a, b),
                        ClassItem::Cat(cat) => Item::Cat(CatP { cat, ascii }),
                    })
                    .collect();
                Unit::Class {
                    negate: *negate,
                    fold: self.fold(f),
                    items,
                }
            }
            _ => return None,
        })
    }

    fn seq(&mut self, nodes: &[Node], f: u32) -> Result<(), CompileError> {
        for n in nodes {
            self.node(n, f)?;
        }
        Ok(())
    }

    fn node(&mut self, n: &Node, f: u32) -> Result<(), CompileError> {
        if let Some(u) = self.unit(n, f) {
            self.emit(Inst::Unit(u))?;
            return Ok(());
        }
        match n {
            Node::At(a) => {
                let ml = f & flags::MULTILINE != 0;
                let ascii = self.ascii(f);
                let op = match a {
                    At::Beginning if ml => AtOp::BeginLine,
                    At::Beginning | At::BeginningString => AtOp::Beginning,
                    At::End if ml => AtOp::EndLine,
                    At::End => AtOp::End,
                    At::EndString => AtOp::EndString,
                    At::Boundary => AtOp::Boundary { ascii },
                    At::NonBoundary => AtOp::NonBoundary { ascii },
                };
                self.emit(Inst::At(op))?;
            }
            Node::Branch(alts) => {
                let mut jumps = Vec::new();
                let last = alts.len().saturating_sub(1);
                for (i, alt) in alts.iter().enumerate() {
                    if i < last {
                        let split = self.emit(Inst::Split(0, 0))?;
                        if let Some(Inst::Split(a, _)) = self.insts.get_mut(split) {
                            *a = split + 1;
                        }
                        self.seq(alt, f)?;
                        jumps.push(self.emit(Inst::Jmp(0))?);
                        let here = self.pc();
                        self.patch(split, here);
                    } else {
                        self.seq(alt, f)?;
                    }
                }
                let end = self.pc();
                for j in jumps {
                    self.patch(j, end);
                }
            }
            Node::Group {
                gid,
                add,
                del,
                body,
            } => {
                let f2 = combine(f, *add, *del);
                if let Some(g) = gid {
                    self.emit(Inst::Save(2 * g))?;
                    self.seq(body, f2)?;
                    self.emit(Inst::Save(2 * g + 1))?;
                } else {
                    self.seq(body, f2)?;
                }
            }
            Node::Atomic(body) => {
                self.emit(Inst::AtomicStart)?;
                self.seq(body, f)?;
                self.emit(Inst::AtomicEnd)?;
            }
            Node::Repeat {
                min,
                max,
                kind,
                body,
            } => self.repeat(*min, *max, *kind, body, f)?,
            Node::Assert {
                behind,
                negate,
                body,
            } => {
                let back = if *behind {
                    let (lo, hi) = width(body, &self.parsed.groupwidths);
                    if lo != hi {
                        return Err(CompileError::plain(
                            ErrorKind::Re,
                            "look-behind requires fixed-width pattern",
                        ));
                    }
                    usize::try_from(lo).unwrap_or(usize::MAX)
                } else {
                    0
                };
                let start = self.emit(Inst::LookStart {
                    behind: back,
                    negate: *negate,
                    after: 0,
                })?;
                self.seq(body, f)?;
                self.emit(Inst::LookEnd { negate: *negate })?;
                let here = self.pc();
                self.patch(start, here);
            }
            Node::GroupRef(g) => {
                self.emit(Inst::Backref {
                    group: *g,
                    fold: self.fold(f),
                })?;
            }
            Node::GroupRefExists { group, yes, no } => {
                let test = self.emit(Inst::GroupExists {
                    group: *group,
                    no: 0,
                })?;
                self.seq(yes, f)?;
                if let Some(no) = no {
                    let j = self.emit(Inst::Jmp(0))?;
                    let here = self.pc();
                    self.patch(test, here);
                    self.seq(no, f)?;
                    let end = self.pc();
                    self.patch(j, end);
                } else {
                    let here = self.pc();
                    self.patch(test, here);
                }
            }
            // Units were handled above.
            Node::Lit(_) | Node::NotLit(_) | Node::Any | Node::In { .. } => {}
        }
        Ok(())
    }

    fn repeat(
        &mut self,
        min: u32,
        max: u32,
        kind: RepKind,
        body: &[Node],
        f: u32,
    ) -> Result<(), CompileError> {
        if kind == RepKind::Possessive {
            self.emit(Inst::AtomicStart)?;
            self.repeat(min, max, RepKind::Greedy, body, f)?;
            self.emit(Inst::AtomicEnd)?;
            return Ok(());
        }
        let lazy = kind == RepKind::Lazy;
        if let [one] = body {
            if let Some(unit) = self.unit(one, f) {
                self.emit(Inst::RepOne {
                    unit,
                    min,
                    max,
                    lazy,
                })?;
                return Ok(());
            }
        }
        let reg = self.regs;
        self.regs += 1;
        self.emit(Inst::RepInit(reg))?;
        let head = self.emit(Inst::RepHead {
            reg,
            min,
            max,
            lazy,
            exit: 0,
        })?;
        self.emit(Inst::RepStep(reg))?;
        self.seq(body, f)?;
        self.emit(Inst::Jmp(head))?;
        let exit = self.pc();
        self.patch(head, exit);
        Ok(())
    }
}
