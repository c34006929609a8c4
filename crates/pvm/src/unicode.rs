//! Character properties and case mappings that must match CPython 3.11 exactly, from the
//! tables `crates/pvm-re/scripts/gen_unicode_tables.py` takes from CPython itself
//! (`cowboy_pvm_re::unicode_tables`, Unicode 14.0; one set of tables for `str` and `re`).
//! Rust's `char` methods are not used for these: they follow the toolchain's newer Unicode
//! version, and some mean something else (`is_alphabetic` includes marks and letter numbers
//! that `str.isalpha` rejects; `is_whitespace` misses `\x1c`–`\x1f`).
//!
//! The string-level algorithms (`title`, `istitle`, `isupper`, `lower`'s final sigma …) follow
//! CPython's `Objects/unicodeobject.c` behaviour; ASCII takes a fast path everywhere.

use cowboy_pvm_re::unicode_tables as t;

fn in_ranges(table: &[(u32, u32)], c: char) -> bool {
    let c = c as u32;
    table
        .binary_search_by(|&(lo, hi)| {
            if hi < c {
                core::cmp::Ordering::Less
            } else if lo > c {
                core::cmp::Ordering::Greater
            } else {
                core::cmp::Ordering::Equal
            }
        })
        .is_ok()
}

/// Append the mapping of `c` in `table` (or `c` itself) to `out`.
fn push_mapped(table: &[(u32, [u32; 3])], c: char, out: &mut String) {
    match table.binary_search_by_key(&(c as u32), |&(k, _)| k) {
        Ok(i) => out.extend(
            table[i]
                .1
                .iter()
                .take_while(|&&u| u != 0)
                .filter_map(|&u| char::from_u32(u)),
        ),
        Err(_) => out.push(c),
    }
}

/// `str.isprintable()` for one character; `repr()` escapes the characters where it is false.
pub fn is_printable(c: char) -> bool {
    if (' '..'\x7f').contains(&c) {
        return true;
    }
    !in_ranges(t::NONPRINTABLE, c)
}

/// `c.isdecimal()`.
pub fn is_decimal(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_digit();
    }
    in_ranges(t::DECIMAL, c)
}

/// The value of a decimal digit (category Nd). Unicode assigns them in runs of ten from 0,
/// and the table's ranges are unions of whole runs (the generator checks this).
pub fn decimal_value(c: char) -> Option<u32> {
    if c.is_ascii_digit() {
        return Some(c as u32 - '0' as u32);
    }
    let c = c as u32;
    let i = t::DECIMAL.partition_point(|&(_, hi)| hi < c);
    match t::DECIMAL.get(i) {
        Some(&(lo, _)) if lo <= c => Some((c - lo) % 10),
        _ => None,
    }
}

/// What `int()` and `float()` parse: non-ASCII decimal digits become ASCII digits and
/// non-ASCII whitespace a space, as CPython's `_PyUnicode_TransformDecimalAndSpaceToASCII`.
pub fn decimal_and_space_to_ascii(s: &str) -> std::borrow::Cow<'_, str> {
    if s.is_ascii() {
        return std::borrow::Cow::Borrowed(s);
    }
    s.chars()
        .map(|c| {
            if c.is_ascii() {
                c
            } else if is_space(c) {
                ' '
            } else if let Some(d) = decimal_value(c) {
                char::from_digit(d, 10).unwrap_or(c)
            } else {
                c
            }
        })
        .collect()
}

/// `c.isdigit()`.
pub fn is_digit(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_digit();
    }
    in_ranges(t::DIGIT, c)
}

/// `c.isnumeric()`.
pub fn is_numeric(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_digit();
    }
    in_ranges(t::NUMERIC, c)
}

/// `c.isspace()`: also what `split()`, `strip()` and `int()` treat as whitespace.
pub fn is_space(c: char) -> bool {
    if c.is_ascii() {
        return matches!(c, '\t'..='\r' | '\x1c'..='\x1f' | ' ');
    }
    in_ranges(t::SPACE, c)
}

/// `c.isalpha()`.
pub fn is_alpha(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_alphabetic();
    }
    in_ranges(t::ALPHA, c)
}

/// The first character of an identifier (XID_Start, or `_`).
pub fn is_id_start(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_alphabetic() || c == '_';
    }
    in_ranges(t::ID_START, c)
}

/// A later character of an identifier (XID_Continue).
pub fn is_id_continue(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_alphanumeric() || c == '_';
    }
    in_ranges(t::ID_CONTINUE, c)
}

/// `c.isalnum()`: alpha, decimal, digit or numeric.
pub fn is_alnum(c: char) -> bool {
    is_alpha(c) || is_numeric(c)
}

/// The Uppercase property.
pub fn is_upper(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_uppercase();
    }
    in_ranges(t::UPPER, c)
}

/// The Lowercase property.
pub fn is_lower(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_lowercase();
    }
    in_ranges(t::LOWER, c)
}

/// General category Lt.
pub fn is_titlecase(c: char) -> bool {
    !c.is_ascii() && in_ranges(t::TITLECASE, c)
}

/// The Cased property.
pub fn is_cased(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_alphabetic();
    }
    in_ranges(t::CASED, c)
}

fn is_case_ignorable(c: char) -> bool {
    in_ranges(t::CASE_IGNORABLE, c)
}

/// `str.isupper()`: some cased character and none lowercase or titlecase.
pub fn str_isupper(s: &str) -> bool {
    let mut cased = false;
    for c in s.chars() {
        if is_lower(c) || is_titlecase(c) {
            return false;
        }
        cased |= is_upper(c);
    }
    cased
}

/// `str.islower()`: some cased character and none uppercase or titlecase.
pub fn str_islower(s: &str) -> bool {
    let mut cased = false;
    for c in s.chars() {
        if is_upper(c) || is_titlecase(c) {
            return false;
        }
        cased |= is_lower(c);
    }
    cased
}

/// `str.istitle()`: uppercase/titlecase characters only after uncased ones, lowercase only
/// after cased ones, and at least one cased character.
pub fn str_istitle(s: &str) -> bool {
    let (mut cased, mut prev_cased) = (false, false);
    for c in s.chars() {
        if is_upper(c) || is_titlecase(c) {
            if prev_cased {
                return false;
            }
            prev_cased = true;
            cased = true;
        } else if is_lower(c) {
            if !prev_cased {
                return false;
            }
            prev_cased = true;
            cased = true;
        } else {
            prev_cased = false;
        }
    }
    cased
}

/// Lowercase `cs[i]` into `out`, applying the final-sigma rule to U+03A3: it becomes `ς`
/// when preceded by a cased letter and not followed by one (case-ignorable characters are
/// skipped in both directions).
fn push_lower(cs: &[char], i: usize, out: &mut String) {
    let c = cs[i];
    if c.is_ascii() {
        out.push(c.to_ascii_lowercase());
        return;
    }
    if c == '\u{3a3}' {
        let before = cs[..i].iter().rev().find(|&&x| !is_case_ignorable(x));
        let after = cs[i + 1..].iter().find(|&&x| !is_case_ignorable(x));
        let is_final = before.is_some_and(|&x| is_cased(x)) && !after.is_some_and(|&x| is_cased(x));
        out.push(if is_final { '\u{3c2}' } else { '\u{3c3}' });
        return;
    }
    push_mapped(t::LOWER_MAP, c, out);
}

fn push_upper(c: char, out: &mut String) {
    if c.is_ascii() {
        out.push(c.to_ascii_uppercase());
    } else {
        push_mapped(t::UPPER_MAP, c, out);
    }
}

fn push_title(c: char, out: &mut String) {
    if c.is_ascii() {
        out.push(c.to_ascii_uppercase());
        return;
    }
    match t::TITLE_MAP.binary_search_by_key(&(c as u32), |&(k, _)| k) {
        Ok(_) => push_mapped(t::TITLE_MAP, c, out),
        Err(_) => push_mapped(t::UPPER_MAP, c, out),
    }
}

/// `str.lower()`.
pub fn lower(s: &str) -> String {
    if s.is_ascii() {
        return s.to_ascii_lowercase();
    }
    let cs: Vec<char> = s.chars().collect();
    let mut out = String::with_capacity(s.len());
    for i in 0..cs.len() {
        push_lower(&cs, i, &mut out);
    }
    out
}

/// `str.upper()`.
pub fn upper(s: &str) -> String {
    if s.is_ascii() {
        return s.to_ascii_uppercase();
    }
    let mut out = String::with_capacity(s.len());
    s.chars().for_each(|c| push_upper(c, &mut out));
    out
}

/// `str.title()`: titlecase after an uncased character, lowercase after a cased one.
pub fn title(s: &str) -> String {
    let cs: Vec<char> = s.chars().collect();
    let mut out = String::with_capacity(s.len());
    let mut prev_cased = false;
    for i in 0..cs.len() {
        if prev_cased {
            push_lower(&cs, i, &mut out);
        } else {
            push_title(cs[i], &mut out);
        }
        prev_cased = is_cased(cs[i]);
    }
    out
}

/// `str.capitalize()`: the first character titlecased, the rest lowercased.
pub fn capitalize(s: &str) -> String {
    let cs: Vec<char> = s.chars().collect();
    let mut out = String::with_capacity(s.len());
    for i in 0..cs.len() {
        if i == 0 {
            push_title(cs[0], &mut out);
        } else {
            push_lower(&cs, i, &mut out);
        }
    }
    out
}

/// `str.swapcase()`: uppercase characters lowercased, lowercase ones uppercased.
pub fn swapcase(s: &str) -> String {
    let cs: Vec<char> = s.chars().collect();
    let mut out = String::with_capacity(s.len());
    for i in 0..cs.len() {
        let c = cs[i];
        if is_upper(c) {
            push_lower(&cs, i, &mut out);
        } else if is_lower(c) {
            push_upper(c, &mut out);
        } else {
            out.push(c);
        }
    }
    out
}

/// `str.casefold()`: full case folding (`'ß'` → `"ss"`, `'ς'` → `'σ'`), one character at a
/// time as CPython does.
pub fn casefold(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    s.chars()
        .for_each(|c| push_mapped(t::CASEFOLD, c, &mut out));
    out
}

/// CPython `repr(str)`.
pub fn str_repr(s: &str) -> String {
    let q = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(q);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == q => {
                out.push('\\');
                out.push(c);
            }
            c if is_printable(c) => out.push(c),
            c if (c as u32) < 0x100 => out.push_str(&format!("\\x{:02x}", c as u32)),
            c if (c as u32) < 0x10000 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push_str(&format!("\\U{:08x}", c as u32)),
        }
    }
    out.push(q);
    out
}
