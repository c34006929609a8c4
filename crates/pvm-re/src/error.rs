//! Errors of the `re` engine: compile errors that reproduce CPython 3.11's
//! `re.error` / `ValueError` / `OverflowError` text, and match-time stops
//! (budget exhausted, memory limit) that the PVM maps to `OutOfCycles` and
//! `MemoryError` (whitepaper "Standard Library Whitelist", CIP-3 §2.2).

use core::fmt;

/// Which Python exception a [`CompileError`] corresponds to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// `re.error` (a syntax error in the pattern or template).
    Re,
    /// `ValueError` (incompatible flags, such as LOCALE with a str pattern).
    Value,
    /// `OverflowError` (a repeat count of 2**32 - 1 or more).
    Overflow,
    /// `IndexError` (unknown group name in a replacement template).
    Index,
    /// `RecursionError` (a pattern nested deeper than `MAX_NESTING`).
    Recursion,
    /// A valid CPython pattern this engine refuses (LOCALE, TEMPLATE, DEBUG
    /// flags) or one whose compiled program exceeds the caller's size limit.
    Unsupported,
}

/// A pattern or template that cannot be compiled.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompileError {
    /// Which Python exception this is.
    pub kind: ErrorKind,
    /// The bare message, as `re.error.msg` holds it.
    pub msg: String,
    /// Position in the pattern (in code points / bytes), as `re.error.pos`.
    pub pos: Option<usize>,
    /// The full text `str(exc)` prints in CPython.
    pub display: String,
}

impl CompileError {
    /// A `re.error` at `pos` in `pattern`, formatted exactly as CPython's
    /// `re.error.__init__` does (position, and line/column when the pattern
    /// spans several lines).
    pub(crate) fn re(msg: impl Into<String>, pattern: &[u32], pos: usize) -> Self {
        let msg = msg.into();
        let mut display = format!("{msg} at position {pos}");
        let nl = u32::from(b'\n');
        if pattern.contains(&nl) {
            let before = pattern.get(..pos).unwrap_or(pattern);
            let lineno = before.iter().filter(|&&c| c == nl).count() + 1;
            let colno = match before.iter().rposition(|&c| c == nl) {
                Some(i) => pos - i,
                None => pos + 1,
            };
            display = format!("{display} (line {lineno}, column {colno})");
        }
        CompileError {
            kind: ErrorKind::Re,
            msg,
            pos: Some(pos),
            display,
        }
    }

    /// An error without a position (`re.error(msg)`, `ValueError`, ...).
    pub(crate) fn plain(kind: ErrorKind, msg: impl Into<String>) -> Self {
        let msg = msg.into();
        CompileError {
            kind,
            display: msg.clone(),
            msg,
            pos: None,
        }
    }
}

impl fmt::Display for CompileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.display)
    }
}

impl std::error::Error for CompileError {}

/// The meter refused a charge: the caller's cycle budget is spent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Exhausted;

/// Why matching stopped without an answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MatchError {
    /// The meter is exhausted (the PVM raises `OutOfCycles`).
    Exhausted,
    /// The backtrack stack and capture state would exceed the caller's
    /// memory limit (the PVM raises `MemoryError`).
    MemoryLimit,
}

impl From<Exhausted> for MatchError {
    fn from(_: Exhausted) -> Self {
        MatchError::Exhausted
    }
}

impl fmt::Display for MatchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MatchError::Exhausted => f.write_str("regular expression step budget exhausted"),
            MatchError::MemoryLimit => f.write_str("regular expression memory limit exceeded"),
        }
    }
}

impl std::error::Error for MatchError {}

/// Errors of operations that both match and expand templates (`sub` with a
/// template, `Match.expand`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReError {
    /// The template did not compile.
    Compile(CompileError),
    /// Matching stopped.
    Match(MatchError),
}

impl From<CompileError> for ReError {
    fn from(e: CompileError) -> Self {
        ReError::Compile(e)
    }
}

impl From<MatchError> for ReError {
    fn from(e: MatchError) -> Self {
        ReError::Match(e)
    }
}

impl From<Exhausted> for ReError {
    fn from(_: Exhausted) -> Self {
        ReError::Match(MatchError::Exhausted)
    }
}

impl fmt::Display for ReError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReError::Compile(e) => e.fmt(f),
            ReError::Match(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for ReError {}
