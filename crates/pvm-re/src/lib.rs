//! A Python 3.11 `re`-compatible regular-expression engine with metered
//! backtracking, for the Cowboy PVM (whitepaper "Standard Library
//! Whitelist"; CIP-3 §2.2: every matching step is charged, so catastrophic
//! backtracking ends in `OutOfCycles` within budget, never a hang).
//!
//! Pipeline: `parse` (sre_parse semantics and error text) → `compile` (a
//! program for the VM) → [`vm`] (an explicit backtrack stack, a [`Meter`]
//! charge per step, a memory limit). The
//! operations of `re` (`search`, `match`, `fullmatch`, `findall`,
//! `finditer`, `sub`, `subn`, `split`, `escape`) live in [`ops`] and
//! [`template`]. Not a PVM module: the PVM wraps [`Regex`] into `re.Pattern`.
//! Start reading at [`Regex::compile`].

mod compile;
mod error;
pub mod ops;
mod parse;
pub mod template;
mod unicode;
pub mod unicode_tables;
pub mod vm;

use std::collections::BTreeMap;

pub use error::{CompileError, ErrorKind, Exhausted, MatchError, ReError};
pub use parse::MAX_NESTING;

/// The `re` flag bits, with CPython's values.
pub mod flags {
    /// `re.TEMPLATE` (refused by this engine).
    pub const TEMPLATE: u32 = 1;
    /// `re.IGNORECASE`.
    pub const IGNORECASE: u32 = 2;
    /// `re.LOCALE` (refused: it depends on the process locale).
    pub const LOCALE: u32 = 4;
    /// `re.MULTILINE`.
    pub const MULTILINE: u32 = 8;
    /// `re.DOTALL`.
    pub const DOTALL: u32 = 16;
    /// `re.UNICODE` (the default for str patterns).
    pub const UNICODE: u32 = 32;
    /// `re.VERBOSE`.
    pub const VERBOSE: u32 = 64;
    /// `re.DEBUG` (refused: it prints).
    pub const DEBUG: u32 = 128;
    /// `re.ASCII`.
    pub const ASCII: u32 = 256;
}

/// Steps charged per pattern code unit before parsing. Parsing builds a tree node (and, under
/// IGNORECASE, case-folding sets) per unit: about 8 matching steps' worth of work, measured
/// against the PVM's plain loop; at 1 step a unit, compiling ran at 4-8x the plain loop per
/// cycle (issue 15's calibration, `re.compile` of 10,000-unit patterns).
pub const COMPILE_STEPS_PER_UNIT: u64 = 8;

/// Steps charged per instruction of the compiled program, after lowering (which allocates and
/// links each one, and expands counted repeats such as `a{1000}`).
pub const COMPILE_STEPS_PER_INST: u64 = 8;

/// The caller's step budget. The engine calls `charge` with the number of
/// steps it is about to account for; an `Err` stops matching at once.
pub trait Meter {
    /// Charges `steps` matching steps.
    fn charge(&mut self, steps: u64) -> Result<(), Exhausted>;
}

/// A meter with a fixed budget that records what it charged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// Steps still available.
    pub remaining: u64,
    /// Steps charged so far.
    pub charged: u64,
}

impl Budget {
    /// A budget of `steps` steps.
    pub fn new(steps: u64) -> Self {
        Budget {
            remaining: steps,
            charged: 0,
        }
    }
}

impl Meter for Budget {
    fn charge(&mut self, steps: u64) -> Result<(), Exhausted> {
        if steps > self.remaining {
            self.charged += self.remaining;
            self.remaining = 0;
            return Err(Exhausted);
        }
        self.remaining -= steps;
        self.charged += steps;
        Ok(())
    }
}

/// Limits on the resources of one operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Accounted bytes for the backtrack stack and capture state
    /// ([`vm::ENTRY_BYTES`] per stack entry, [`vm::WORD_BYTES`] per slot).
    pub max_memory: u64,
    /// Maximum instructions in a compiled program.
    pub max_program: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_memory: 10 * 1024 * 1024,
            max_program: 100_000,
        }
    }
}

/// A compiled pattern (`re.Pattern`).
#[derive(Clone, Debug)]
pub struct Regex {
    prog: compile::Program,
    is_text: bool,
    groups: usize,
    groupindex: BTreeMap<String, usize>,
    flags: u32,
}

/// A successful match (`re.Match`): spans in code points (str) or bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Match {
    /// `spans[g]` is group `g`'s `(start, end)`, `None` if it did not take part.
    pub spans: Vec<Option<(usize, usize)>>,
    /// `Match.lastindex`.
    pub lastindex: Option<usize>,
}

impl Match {
    /// The span of group 0.
    pub fn span(&self) -> (usize, usize) {
        self.spans.first().copied().flatten().unwrap_or((0, 0))
    }
    /// The text of group `g` in `text` (`None` if unmatched or out of range).
    pub fn group<'t>(&self, text: &'t [u32], g: usize) -> Option<&'t [u32]> {
        let (s, e) = self.spans.get(g).copied().flatten()?;
        text.get(s..e)
    }
}

/// The subject as code units: code points of a str, or bytes.
pub fn str_units(s: &str) -> Vec<u32> {
    s.chars().map(u32::from).collect()
}

/// The subject as code units for a bytes object.
pub fn bytes_units(b: &[u8]) -> Vec<u32> {
    b.iter().map(|&x| u32::from(x)).collect()
}

impl Regex {
    /// Compiles `pattern` (code units; `is_text` = str pattern, else bytes)
    /// with `flags`, charging one step per pattern unit before parsing and
    /// refusing programs longer than `limits.max_program`.
    pub fn compile(
        pattern: &[u32],
        is_text: bool,
        flags: u32,
        meter: &mut dyn Meter,
        limits: &Limits,
    ) -> Result<Self, ReError> {
        meter.charge((pattern.len() as u64 + 1).saturating_mul(COMPILE_STEPS_PER_UNIT))?;
        let parsed = parse::parse(pattern, is_text, flags)?;
        if parsed.flags & (flags::LOCALE | flags::TEMPLATE | flags::DEBUG) != 0 {
            return Err(CompileError::plain(
                ErrorKind::Unsupported,
                "re.LOCALE, re.TEMPLATE and re.DEBUG are not supported",
            )
            .into());
        }
        let prog = compile::compile(&parsed, is_text, limits.max_program)?;
        meter.charge((prog.insts.len() as u64).saturating_mul(COMPILE_STEPS_PER_INST))?;
        Ok(Regex {
            prog,
            is_text,
            groups: parsed.groups,
            groupindex: parsed.groupindex,
            flags: parsed.flags,
        })
    }

    /// Compiles a str pattern.
    pub fn compile_str(
        pattern: &str,
        flags: u32,
        meter: &mut dyn Meter,
        limits: &Limits,
    ) -> Result<Self, ReError> {
        Self::compile(&str_units(pattern), true, flags, meter, limits)
    }

    /// Compiles a bytes pattern.
    pub fn compile_bytes(
        pattern: &[u8],
        flags: u32,
        meter: &mut dyn Meter,
        limits: &Limits,
    ) -> Result<Self, ReError> {
        Self::compile(&bytes_units(pattern), false, flags, meter, limits)
    }

    /// `Pattern.groups`.
    pub fn groups(&self) -> usize {
        self.groups
    }
    /// `Pattern.groupindex`.
    pub fn groupindex(&self) -> &BTreeMap<String, usize> {
        &self.groupindex
    }
    /// `Pattern.flags`.
    pub fn flags(&self) -> u32 {
        self.flags
    }
    /// Whether this is a str pattern (else bytes).
    pub fn is_text(&self) -> bool {
        self.is_text
    }
    /// Instructions in the compiled program.
    pub fn program_len(&self) -> usize {
        self.prog.insts.len()
    }

    /// The core search: tries start positions `pos..=endpos` (only `pos`
    /// when `anchored`), Python's clamping of `pos`/`endpos` applied.
    pub(crate) fn find_at(
        &self,
        text: &[u32],
        pos: usize,
        endpos: usize,
        opts: vm::RunOpts,
        meter: &mut dyn Meter,
        limits: &Limits,
    ) -> Result<Option<Match>, MatchError> {
        let endpos = endpos.min(text.len());
        let pos = pos.min(text.len());
        if pos > endpos {
            return Ok(None);
        }
        let sub = text.get(..endpos).unwrap_or(text);
        // Setting up the capture state, copying it out on success and
        // building the spans are O(groups): one step per 4 words.
        meter.charge(1 + (self.prog.slots as u64 + 2 * self.prog.regs as u64) / 4)?;
        let mut vm = vm::Vm::new(&self.prog, sub, meter, *limits)?;
        let mut start = pos;
        let result = loop {
            if let Some(f) = vm.run(start, opts)? {
                let mut spans = Vec::with_capacity(self.groups + 1);
                spans.push(Some((start, f.end)));
                for g in 1..=self.groups {
                    let s = f.slots.get(2 * g).copied().unwrap_or(usize::MAX);
                    let e = f.slots.get(2 * g + 1).copied().unwrap_or(usize::MAX);
                    spans.push(if s == usize::MAX || e == usize::MAX || e < s {
                        None
                    } else {
                        Some((s, e))
                    });
                }
                let lastindex = if f.lastindex == 0 {
                    None
                } else {
                    Some(f.lastindex)
                };
                break Some(Match { spans, lastindex });
            }
            if opts.anchored || start >= endpos {
                break None;
            }
            start += 1;
        };
        vm.flush()?;
        Ok(result)
    }

    /// `Pattern.search(text, pos, endpos)`.
    pub fn search(
        &self,
        text: &[u32],
        pos: usize,
        endpos: usize,
        meter: &mut dyn Meter,
        limits: &Limits,
    ) -> Result<Option<Match>, MatchError> {
        self.find_at(
            text,
            pos,
            endpos,
            vm::RunOpts {
                anchored: false,
                full: false,
                must_advance_at: None,
            },
            meter,
            limits,
        )
    }

    /// `Pattern.match(text, pos, endpos)`.
    pub fn match_at(
        &self,
        text: &[u32],
        pos: usize,
        endpos: usize,
        meter: &mut dyn Meter,
        limits: &Limits,
    ) -> Result<Option<Match>, MatchError> {
        self.find_at(
            text,
            pos,
            endpos,
            vm::RunOpts {
                anchored: true,
                full: false,
                must_advance_at: None,
            },
            meter,
            limits,
        )
    }

    /// `Pattern.fullmatch(text, pos, endpos)`.
    pub fn fullmatch(
        &self,
        text: &[u32],
        pos: usize,
        endpos: usize,
        meter: &mut dyn Meter,
        limits: &Limits,
    ) -> Result<Option<Match>, MatchError> {
        self.find_at(
            text,
            pos,
            endpos,
            vm::RunOpts {
                anchored: true,
                full: true,
                must_advance_at: None,
            },
            meter,
            limits,
        )
    }
}
