//! Character predicates and case folding with CPython 3.11's exact meaning:
//! `\d` = `str.isdecimal`, `\w` = `str.isalnum` or `_`, `\s` = `str.isspace`,
//! case folding = `_sre.unicode_tolower` plus `re._casefix._EXTRA_CASES`,
//! and their ASCII-only variants (ASCII flag, bytes patterns).

use crate::unicode_tables::{
    ALNUM, DECIMAL, EXTRA_CASES, ID_CONTINUE, ID_START, SPACE, SRE_CASED, SRE_LOWER, SRE_LOWER_INV,
};

fn in_ranges(table: &[(u32, u32)], c: u32) -> bool {
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

/// `\d` for str patterns without the ASCII flag.
pub(crate) fn uni_digit(c: u32) -> bool {
    if c < 0x80 {
        return ascii_digit(c);
    }
    in_ranges(DECIMAL, c)
}

/// `\w` for str patterns without the ASCII flag.
pub(crate) fn uni_word(c: u32) -> bool {
    if c < 0x80 {
        return ascii_word(c);
    }
    in_ranges(ALNUM, c)
}

/// `\s` for str patterns without the ASCII flag.
pub(crate) fn uni_space(c: u32) -> bool {
    in_ranges(SPACE, c)
}

/// ASCII `\d`.
pub(crate) fn ascii_digit(c: u32) -> bool {
    (0x30..=0x39).contains(&c)
}

/// ASCII `\w` (`[a-zA-Z0-9_]`).
pub(crate) fn ascii_word(c: u32) -> bool {
    ascii_digit(c) || (0x41..=0x5A).contains(&c) || (0x61..=0x7A).contains(&c) || c == 0x5F
}

/// ASCII `\s` (`[ \t\n\r\f\v]`, as `Py_ISSPACE`).
pub(crate) fn ascii_space(c: u32) -> bool {
    c == 0x20 || (0x09..=0x0D).contains(&c)
}

/// `str.isidentifier()` (group names).
pub(crate) fn is_identifier(s: &str) -> bool {
    let mut it = s.chars();
    match it.next() {
        Some(c) if in_ranges(ID_START, u32::from(c)) => {}
        _ => return false,
    }
    it.all(|c| in_ranges(ID_CONTINUE, u32::from(c)))
}

/// `_sre.unicode_tolower`.
pub(crate) fn uni_lower(c: u32) -> u32 {
    if c < 0x80 {
        return ascii_lower(c);
    }
    match SRE_LOWER.binary_search_by_key(&c, |&(k, _)| k) {
        Ok(i) => SRE_LOWER.get(i).map_or(c, |&(_, v)| v),
        Err(_) => c,
    }
}

/// `_sre.ascii_tolower`.
pub(crate) fn ascii_lower(c: u32) -> u32 {
    if (0x41..=0x5A).contains(&c) {
        c + 0x20
    } else {
        c
    }
}

/// `_sre.unicode_iscased`.
pub(crate) fn uni_cased(c: u32) -> bool {
    in_ranges(SRE_CASED, c)
}

/// `_sre.ascii_iscased`.
pub(crate) fn ascii_cased(c: u32) -> bool {
    (0x41..=0x5A).contains(&c) || (0x61..=0x7A).contains(&c)
}

/// Extra equivalents of a lower-case code point (`_EXTRA_CASES`), if any.
pub(crate) fn extra_cases(lower: u32) -> &'static [u32] {
    match EXTRA_CASES.binary_search_by_key(&lower, |&(k, _)| k) {
        Ok(i) => EXTRA_CASES.get(i).map_or(&[][..], |&(_, v)| v),
        Err(_) => &[],
    }
}

/// Calls `f` with every code point whose (unicode) lower case is `lower`,
/// including `lower` itself when it is its own lower case.
pub(crate) fn for_each_preimage(lower: u32, f: &mut dyn FnMut(u32) -> bool) -> bool {
    if uni_lower(lower) == lower && f(lower) {
        return true;
    }
    let start = SRE_LOWER_INV.partition_point(|&(k, _)| k < lower);
    for &(k, v) in SRE_LOWER_INV.get(start..).unwrap_or(&[]) {
        if k != lower {
            break;
        }
        if f(v) {
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u(c: char) -> u32 {
        u32::from(c)
    }

    #[test]
    fn categories_follow_python_not_rust() {
        // '²' is numeric (Rust's is_numeric) but not decimal: Python's \d rejects it.
        assert!('²'.is_numeric());
        assert!(!uni_digit(u('²')));
        assert!(uni_digit(u('٣')));
        // ... yet str.isalnum() accepts it, so \w does.
        assert!(uni_word(u('²')));
        assert!(uni_word(u('_')) && !uni_word(u('-')));
        // \x1c..\x1f are whitespace to str.isspace().
        assert!(uni_space(0x1C) && uni_space(0x85) && !uni_space(u('a')));
        assert!(!ascii_space(0x1C) && ascii_space(0x0B));
    }

    #[test]
    fn case_folding_is_sre_simple_lower_with_extra_cases() {
        assert_eq!(uni_lower(u('İ')), u('i'));
        assert_eq!(uni_lower(u('K')), u('k'));
        assert_eq!(uni_lower(0x212A), u('k'));
        assert_eq!(uni_lower(u('ſ')), u('ſ'));
        assert!(extra_cases(u('s')).contains(&u('ſ')));
        assert!(uni_cased(u('ſ')) && !uni_cased(u('1')));
        let mut pre = Vec::new();
        for_each_preimage(u('k'), &mut |c| {
            pre.push(c);
            false
        });
        pre.sort_unstable();
        assert_eq!(pre, vec![u('K'), u('k'), 0x212A]);
    }
}
