//! The pre-scan: one linear pass over the source before the parser sees it, which counts the
//! tokens the compilation is charged for and refuses nesting the later passes could not afford.
//!
//! The parser (ruff's, recursive descent), the scope analysis and the code generator all
//! recurse once per level of nesting of the syntax tree, and dropping the tree recurses too. A
//! 128 KiB source can nest 100,000 levels deep (`-----…1`, `f()()()…`, `lambda: lambda: …`),
//! so the depth must be bounded before any of them runs. The scan is a small tokenizer (it
//! knows strings, f-strings, comments, brackets and indentation, nothing of the grammar) that
//! keeps an upper bound of the tree depth and refuses:
//!
//! - more than [`MAX_PARENS`] nested brackets: `SyntaxError: too many nested parentheses`,
//!   CPython 3.11's tokenizer limit and message;
//! - more than [`MAX_INDENT`]` - 1` indentation levels: `IndentationError: too many levels of
//!   indentation`, CPython's tokenizer limit and message;
//! - an expression whose operators nest deeper than [`MAX_EXPR_DEPTH`] (a PVM limit; CPython
//!   fails at a few thousand with `RecursionError` during compilation).
//!
//! **The depth bound.** Every node of an expression tree but a leaf stands for an operator
//! token: an operator character, an operator keyword (`not`, `lambda`, `if`, `for`, …), a
//! `.` or an opening bracket. The scan counts those tokens per bracket level and forgets the
//! count of a level at a `,`, a plain `=` or a `;` (what follows one of those is a sibling of
//! what precedes it, not a child), except inside the parameters of a `lambda`, whose body is a
//! child of everything before its `:`. The sum of the counts of the open levels plus their
//! number is therefore at least the depth of the node being read. It over-counts (binary
//! operators chained at one level, `a + b + c`, build a left-leaning tree as deep as the
//! chain, and are counted so; comparisons and `and`/`or` chains are flat but counted too),
//! which only makes the limit conservative.
//!
//! The scan never rejects a program for a syntax error: anything it does not understand
//! (an unterminated string, a stray bracket) is left to the parser, which reports it.

/// CPython's tokenizer refuses more nested brackets than this (`MAXLEVEL`).
pub const MAX_PARENS: usize = 200;

/// CPython's tokenizer keeps at most this many indentation levels, the first one included
/// (`MAXINDENT`): 99 indented blocks inside one another are allowed, 100 are not.
pub const MAX_INDENT: usize = 100;

/// The deepest expression nesting the PVM compiles: operators counted as described in the
/// module docs. CPython compiles 1,000 nested unary operators or a 1,000-term sum and fails
/// with `RecursionError` at 3,000.
pub const MAX_EXPR_DEPTH: u32 = 1000;

/// Why the scan refused a source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ScanError {
    /// More than [`MAX_PARENS`] nested brackets.
    TooManyParens {
        /// Byte offset of the bracket that went too deep.
        offset: u32,
    },
    /// More than [`MAX_INDENT`] indentation levels.
    TooDeepIndent {
        /// Byte offset of the line that went too deep.
        offset: u32,
    },
    /// An expression nested deeper than [`MAX_EXPR_DEPTH`].
    TooDeepExpr {
        /// Byte offset of the token that went too deep.
        offset: u32,
    },
}

/// What the scan found in a source it accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Scan {
    /// Tokens (names, numbers, strings, operator characters, brackets, line ends): the size
    /// of the work of every later pass, which compilation is charged for.
    pub tokens: u32,
    /// Scope openers: `def`, `class`, `lambda`, and `for` inside brackets (a comprehension or
    /// generator expression). Each costs the compiler a code object, a scope and its names,
    /// more than its few tokens.
    pub scopes: u32,
    /// f-strings (each is parsed and compiled as a sequence of parts).
    pub fstrings: u32,
}

/// One open level of the scan.
#[derive(Clone, Copy)]
enum Level {
    /// Code inside a bracket, or inside a replacement field `{…}` of an f-string.
    Code {
        /// Operator tokens counted at this level since it last forgot (see the module docs).
        ops: u32,
        /// `lambda`s at this level whose parameter list has not reached its `:` yet.
        lambdas: u32,
        /// This is an f-string replacement field (closed by `}`, `:` starts its spec).
        field: bool,
        /// This is a bracket (counted against [`MAX_PARENS`]).
        bracket: bool,
    },
    /// The literal part of an f-string (or of a format spec inside a replacement field).
    Literal {
        /// Quote byte and whether the string is triple-quoted; a spec has none (`quote == 0`).
        quote: u8,
        triple: bool,
    },
}

/// Scan `src` (see the module docs).
pub fn scan(src: &str) -> Result<Scan, ScanError> {
    Scanner {
        b: src.as_bytes(),
        i: 0,
        tokens: 0,
        scopes: 0,
        fstrings: 0,
        levels: vec![Level::Code {
            ops: 0,
            lambdas: 0,
            field: false,
            bracket: false,
        }],
        brackets: 0,
        depth: 0,
        indents: vec![0],
    }
    .run()
}

struct Scanner<'a> {
    b: &'a [u8],
    i: usize,
    tokens: u32,
    scopes: u32,
    fstrings: u32,
    /// `levels[0]` is the statement level; it is never popped.
    levels: Vec<Level>,
    /// Open brackets.
    brackets: usize,
    /// Sum of the `ops` of the open levels plus their number: the depth bound.
    depth: u32,
    /// Indentation columns of the open blocks (CPython's indent stack).
    indents: Vec<usize>,
}

impl Scanner<'_> {
    fn run(mut self) -> Result<Scan, ScanError> {
        let mut line_start = true;
        while self.i < self.b.len() {
            if line_start {
                line_start = false;
                self.indentation()?;
                continue;
            }
            match self.levels.last().copied() {
                Some(Level::Literal { quote, triple }) => self.literal(quote, triple)?,
                _ => line_start = self.code()?,
            }
        }
        Ok(Scan {
            tokens: self.tokens,
            scopes: self.scopes,
            fstrings: self.fstrings,
        })
    }

    fn peek(&self, k: usize) -> u8 {
        self.b.get(self.i + k).copied().unwrap_or(0)
    }

    /// At the start of a physical line outside brackets: measure its indentation as CPython's
    /// tokenizer does (tabs to the next multiple of 8) and keep the indent stack. Blank and
    /// comment-only lines do not count.
    fn indentation(&mut self) -> Result<(), ScanError> {
        let start = self.i;
        let mut col = 0usize;
        while self.i < self.b.len() {
            match self.b[self.i] {
                b' ' => col += 1,
                b'\t' => col = (col / 8 + 1) * 8,
                b'\x0c' => col = 0,
                _ => break,
            }
            self.i += 1;
        }
        if matches!(self.peek(0), b'\n' | b'\r' | b'#' | 0) {
            return Ok(());
        }
        let top = self.indents.last().copied().unwrap_or(0);
        if col > top {
            if self.indents.len() >= MAX_INDENT {
                return Err(ScanError::TooDeepIndent {
                    offset: start as u32,
                });
            }
            self.indents.push(col);
        } else {
            while self.indents.len() > 1 && self.indents.last().is_some_and(|&c| c > col) {
                self.indents.pop();
            }
        }
        Ok(())
    }

    /// One token of code. Returns whether a logical line ended (the next byte starts a line).
    fn code(&mut self) -> Result<bool, ScanError> {
        let c = self.b[self.i];
        match c {
            b' ' | b'\t' | b'\x0c' | b'\r' => self.i += 1,
            b'\\' => {
                // A line continuation (or a stray backslash, the parser's business).
                self.i += 1;
                if self.peek(0) == b'\r' {
                    self.i += 1;
                }
                if self.peek(0) == b'\n' {
                    self.i += 1;
                }
            }
            b'#' => {
                while self.i < self.b.len() && self.b[self.i] != b'\n' {
                    self.i += 1;
                }
            }
            b'\n' => {
                self.i += 1;
                if self.levels.len() == 1 {
                    self.tokens += 1;
                    self.forget();
                    return Ok(true);
                }
            }
            b'\'' | b'"' => {
                self.tokens += 1;
                self.string(false)?;
            }
            b'0'..=b'9' => self.number(),
            b'.' if self.peek(1).is_ascii_digit() => self.number(),
            b'(' | b'[' | b'{' => {
                self.tokens += 1;
                self.op(1)?;
                self.i += 1;
                self.brackets += 1;
                if self.brackets > MAX_PARENS {
                    return Err(ScanError::TooManyParens {
                        offset: self.i as u32 - 1,
                    });
                }
                self.push(Level::Code {
                    ops: 0,
                    lambdas: 0,
                    field: false,
                    bracket: true,
                })?;
            }
            b')' | b']' | b'}' => {
                self.tokens += 1;
                self.i += 1;
                match self.levels.last().copied() {
                    Some(Level::Code { bracket: true, .. }) => {
                        self.pop();
                        self.brackets -= 1;
                    }
                    Some(Level::Code { field: true, .. }) if c == b'}' => self.pop(),
                    _ => {}
                }
            }
            b',' | b';' => {
                self.tokens += 1;
                self.i += 1;
                if !self.in_lambda_params() {
                    self.forget();
                }
            }
            b':' if self.peek(1) == b'=' => {
                self.tokens += 1;
                self.i += 2;
                self.op(1)?;
            }
            b':' => {
                self.tokens += 1;
                self.i += 1;
                if let Some(Level::Code { lambdas, field, .. }) = self.levels.last_mut() {
                    if *lambdas > 0 {
                        *lambdas -= 1;
                    } else if *field {
                        // The format spec of a replacement field: literal text until `}`.
                        self.push(Level::Literal {
                            quote: 0,
                            triple: false,
                        })?;
                    }
                }
            }
            b'=' if self.peek(1) != b'=' => {
                self.tokens += 1;
                self.i += 1;
                if !self.in_lambda_params() {
                    self.forget();
                }
            }
            b'!' if matches!(self.levels.last(), Some(Level::Code { field: true, .. }))
                && self.peek(1) != b'=' =>
            {
                // A conversion (`!r`) in a replacement field: its letter is a name.
                self.tokens += 1;
                self.i += 1;
            }
            b'+' | b'-' | b'*' | b'/' | b'%' | b'@' | b'&' | b'|' | b'^' | b'~' | b'<' | b'>'
            | b'!' | b'.' | b'=' => {
                // Every operator character counts (`---x` is three nodes); an `=` that ends
                // an operator (`==`, `<=`, `+=`) is part of it.
                self.tokens += 1;
                self.i += 1;
                while self.peek(0) == b'=' {
                    self.i += 1;
                }
                self.op(1)?;
            }
            _ if c == b'_' || c.is_ascii_alphabetic() || c >= 0x80 => self.word()?,
            _ => {
                // Anything else (`$`, `?`, a backtick) is a syntax error for the parser.
                self.tokens += 1;
                self.i += 1;
            }
        }
        Ok(false)
    }

    /// A name or keyword, or the prefix of a string.
    fn word(&mut self) -> Result<(), ScanError> {
        let start = self.i;
        while self.i < self.b.len() {
            let c = self.b[self.i];
            if c == b'_' || c.is_ascii_alphanumeric() || c >= 0x80 {
                self.i += 1;
            } else {
                break;
            }
        }
        let w = &self.b[start..self.i];
        self.tokens += 1;
        if matches!(self.peek(0), b'\'' | b'"') && w.len() <= 2 {
            let lower: Vec<u8> = w.iter().map(|c| c.to_ascii_lowercase()).collect();
            let prefix = matches!(
                lower.as_slice(),
                b"r" | b"u" | b"b" | b"f" | b"br" | b"rb" | b"fr" | b"rf"
            );
            if prefix {
                return self.string(lower.contains(&b'f'));
            }
        }
        let in_brackets = self.levels.len() > 1;
        match w {
            b"def" | b"class" => self.scopes += 1,
            b"for" if in_brackets => {
                self.scopes += 1;
                self.op(1)?;
            }
            _ => {}
        }
        match w {
            b"lambda" => {
                self.scopes += 1;
                self.op(1)?;
                if let Some(Level::Code { lambdas, .. }) = self.levels.last_mut() {
                    *lambdas += 1;
                }
            }
            b"not" | b"and" | b"or" | b"if" | b"else" | b"in" | b"is" | b"await" | b"for"
            | b"async" | b"yield" | b"from" => self.op(1)?,
            _ => {}
        }
        Ok(())
    }

    /// A number literal. Letters are taken only where a number has them (a base prefix, hex
    /// digits, an exponent followed by its digits, the imaginary `j`), so that `1if x else 2`
    /// still shows its keywords.
    fn number(&mut self) {
        self.tokens += 1;
        let based = self.peek(0) == b'0' && matches!(self.peek(1) | 0x20, b'x' | b'o' | b'b');
        let hex = based && self.peek(1) | 0x20 == b'x';
        if based {
            self.i += 2;
        }
        while self.i < self.b.len() {
            let c = self.b[self.i];
            let exp_digit = |k: usize| self.peek(k).is_ascii_digit();
            if c.is_ascii_digit() || c == b'_' || c == b'.' || (hex && c.is_ascii_hexdigit()) {
                self.i += 1;
            } else if matches!(c, b'e' | b'E') && exp_digit(1) {
                self.i += 2;
            } else if matches!(c, b'e' | b'E')
                && matches!(self.peek(1), b'+' | b'-')
                && exp_digit(2)
            {
                self.i += 3;
            } else if matches!(c, b'j' | b'J') {
                self.i += 1;
                break;
            } else {
                break;
            }
        }
    }

    /// A string starting at its opening quote. A plain string is skipped whole; an f-string
    /// opens a literal level (its replacement fields are code).
    fn string(&mut self, fstring: bool) -> Result<(), ScanError> {
        let quote = self.b[self.i];
        let triple = self.peek(1) == quote && self.peek(2) == quote;
        self.i += if triple { 3 } else { 1 };
        if fstring {
            self.fstrings += 1;
            // An f-string is a node of the expression it stands in, and its fields are
            // nested inside it.
            self.op(1)?;
            return self.push(Level::Literal { quote, triple });
        }
        while self.i < self.b.len() {
            let c = self.b[self.i];
            if c == b'\\' {
                self.i += 2;
            } else if c == quote && (!triple || (self.peek(1) == quote && self.peek(2) == quote)) {
                self.i += if triple { 3 } else { 1 };
                return Ok(());
            } else if c == b'\n' && !triple {
                // Unterminated: the parser will say so.
                return Ok(());
            } else {
                self.i += 1;
            }
        }
        Ok(())
    }

    /// Literal text of an f-string or a format spec, up to a replacement field or the end.
    fn literal(&mut self, quote: u8, triple: bool) -> Result<(), ScanError> {
        while self.i < self.b.len() {
            let c = self.b[self.i];
            // An escape, or a doubled brace (a literal brace) outside a spec: two bytes.
            if c == b'\\' || (c == b'{' && self.peek(1) == b'{' && quote != 0) {
                self.i += 2;
            } else if c == b'{' {
                self.tokens += 1;
                self.i += 1;
                // A field inside a literal: the literal level stays open beneath it.
                return self.push(Level::Code {
                    ops: 0,
                    lambdas: 0,
                    field: true,
                    bracket: false,
                });
            } else if c == b'}' && quote == 0 {
                // The end of a format spec closes the spec and its replacement field.
                self.i += 1;
                self.pop();
                self.pop();
                return Ok(());
            } else if c == b'}' && self.peek(1) == b'}' {
                self.i += 2;
            } else if quote != 0
                && c == quote
                && (!triple || (self.peek(1) == quote && self.peek(2) == quote))
            {
                self.i += if triple { 3 } else { 1 };
                self.pop();
                return Ok(());
            } else if c == b'\n' && !triple && quote != 0 {
                // Unterminated: close it and let the parser report it.
                self.pop();
                return Ok(());
            } else {
                self.i += 1;
            }
        }
        Ok(())
    }

    fn in_lambda_params(&self) -> bool {
        matches!(self.levels.last(), Some(Level::Code { lambdas, .. }) if *lambdas > 0)
    }

    /// Count `n` operator tokens at the current level.
    fn op(&mut self, n: u32) -> Result<(), ScanError> {
        if let Some(Level::Code { ops, .. }) = self.levels.last_mut() {
            *ops += n;
            self.depth += n;
        }
        self.check()
    }

    fn check(&self) -> Result<(), ScanError> {
        if self.depth > MAX_EXPR_DEPTH {
            return Err(ScanError::TooDeepExpr {
                offset: self.i.min(self.b.len()) as u32,
            });
        }
        Ok(())
    }

    /// The current level's count is forgotten (a sibling follows).
    fn forget(&mut self) {
        if let Some(Level::Code { ops, lambdas, .. }) = self.levels.last_mut() {
            self.depth -= *ops;
            *ops = 0;
            *lambdas = 0;
        }
    }

    fn push(&mut self, level: Level) -> Result<(), ScanError> {
        self.levels.push(level);
        self.depth += 1;
        self.check()
    }

    fn pop(&mut self) {
        if self.levels.len() > 1 {
            if let Some(Level::Code { ops, .. }) = self.levels.pop() {
                self.depth -= ops;
            }
            self.depth -= 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn brackets_up_to_cpythons_limit() {
        let ok = format!("x = {}1{}\n", "(".repeat(200), ")".repeat(200));
        assert!(scan(&ok).is_ok());
        let bad = format!("x = {}1{}\n", "(".repeat(201), ")".repeat(201));
        assert_eq!(scan(&bad), Err(ScanError::TooManyParens { offset: 204 }));
    }

    #[test]
    fn brackets_in_strings_and_comments_do_not_count() {
        let s = format!(
            "x = '{0}' + \"\"\"{0}\n\"\"\" # {0}\ny = f'{{{{{0}'\n",
            "(".repeat(300)
        );
        assert!(scan(&s).is_ok());
    }

    #[test]
    fn indentation_up_to_cpythons_limit() {
        let nest = |n: usize| {
            let mut s = String::new();
            for i in 0..n {
                s.push_str(&format!("{}if x:\n", " ".repeat(i)));
            }
            s.push_str(&format!("{}pass\n", " ".repeat(n)));
            s
        };
        assert!(scan(&nest(99)).is_ok());
        assert!(matches!(
            scan(&nest(100)),
            Err(ScanError::TooDeepIndent { .. })
        ));
    }

    #[test]
    fn deep_operator_chains_are_refused_and_siblings_are_not() {
        let deep = |unit: &str, n: usize| format!("x = {}1\n", unit.repeat(n));
        assert!(scan(&deep("-", 900)).is_ok());
        assert!(matches!(
            scan(&deep("-", 1001)),
            Err(ScanError::TooDeepExpr { .. })
        ));
        assert!(scan(&deep("lambda: ", 900)).is_ok());
        assert!(scan(&deep("lambda: ", 1001)).is_err());
        // Commas inside a lambda's parameters do not end it.
        assert!(scan(&deep("lambda a, b=1: ", 1001)).is_err());
        // Siblings do not add up: a long list of negative numbers is shallow.
        let list = format!("x = [{}]\n", "-1, ".repeat(50_000));
        assert!(scan(&list).is_ok());
        let lines = "x = -1\n".repeat(50_000);
        assert!(scan(&lines).is_ok());
    }

    #[test]
    fn fstring_fields_are_code() {
        assert!(scan("x = f'{a:{b}} {c!r:>{w}} {{ }}'\ny = (1)\n").is_ok());
        let deep = format!("x = f'{{{}1}}'\n", "-".repeat(1001));
        assert!(scan(&deep).is_err());
    }
}
