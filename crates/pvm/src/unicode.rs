//! Character properties that must match CPython 3.11 exactly, from the tables that
//! `scripts/gen_unicode_tables.py` takes from CPython itself (`src/unicode_tables.rs`).
//! Everything else about characters uses Rust's `char` methods.

use crate::unicode_tables::{CASEFOLD, NONPRINTABLE};

/// `str.isprintable()` for one character; `repr()` escapes the characters where it is false.
pub fn is_printable(c: char) -> bool {
    let c = c as u32;
    if (0x20..0x7F).contains(&c) {
        return true;
    }
    NONPRINTABLE
        .binary_search_by(|&(lo, hi)| {
            if hi < c {
                core::cmp::Ordering::Less
            } else if lo > c {
                core::cmp::Ordering::Greater
            } else {
                core::cmp::Ordering::Equal
            }
        })
        .is_err()
}

/// `str.casefold()`: full case folding (`'ß'` → `"ss"`, `'ς'` → `'σ'`), one character at a
/// time as CPython does.
pub fn casefold(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match CASEFOLD.binary_search_by_key(&(c as u32), |&(k, _)| k) {
            Ok(i) => out.extend(
                CASEFOLD[i]
                    .1
                    .iter()
                    .take_while(|&&u| u != 0)
                    .filter_map(|&u| char::from_u32(u)),
            ),
            Err(_) => out.push(c),
        }
    }
    out
}
