//! Builtins are dispatched on types, not strings, and registered once (issue 18 item 5;
//! STYLE 10, and 15: ratchets).
//!
//! A builtin function is a `BuiltinFn` variant (`builtin_fns!` in `src/value.rs`) and
//! `builtins::call_builtin` matches the enum: this test fails if a string pattern comes back
//! into that `match`. A builtin type's methods are lines of its `methods!` table, which carry
//! their calling conventions; `objects/arity.rs` keeps conventions by name only for the types
//! listed in [`UNCONVERTED`] (the dict views, which are instances, not values with a table).
//! The list only shrinks: a type added to `arity.rs`'s `TYPES` fails.

use std::path::Path;

/// The CPython types whose method conventions `objects/arity.rs` still keeps by name
/// (`TYPES`). Remove a type when its methods move into a table; never add one.
const UNCONVERTED: &[&str] = &["dict_keys", "dict_items"];

fn src(path: &str) -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("src").join(path);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("read {}: {e}", p.display()))
}

/// The text of the top-level function whose signature line starts with `sig`, to its closing
/// brace in the first column.
fn function<'a>(src: &'a str, sig: &str) -> &'a str {
    let start = src.find(sig).unwrap_or_else(|| panic!("`{sig}` not found"));
    let end = src[start..]
        .find("\n}\n")
        .unwrap_or_else(|| panic!("`{sig}` has no closing brace"));
    &src[start..start + end + 3]
}

#[test]
fn call_builtin_matches_no_strings() {
    let builtins = src("builtins.rs");
    let body = function(&builtins, "pub fn call_builtin(");
    let bad: Vec<&str> = body
        .lines()
        .filter(|l| {
            let t = l.trim_start();
            t.starts_with('"') && t.contains("=>")
        })
        .collect();
    assert!(
        bad.is_empty(),
        "call_builtin matches strings again (give each builtin a BuiltinFn variant):\n{}",
        bad.join("\n")
    );
    assert!(
        body.contains("match f {"),
        "call_builtin no longer matches its BuiltinFn"
    );
}

#[test]
fn only_unconverted_types_keep_conventions_by_name() {
    let arity = src("objects/arity.rs");
    let at = arity
        .find("const TYPES")
        .expect("`const TYPES` in objects/arity.rs");
    let len = arity[at..].find("];").expect("the end of `TYPES`");
    let decl = &arity[at..at + len];
    let types: Vec<&str> = decl
        .split('"')
        .enumerate()
        .filter(|(i, _)| i % 2 == 1)
        .map(|(_, t)| t)
        .collect();
    let added: Vec<&&str> = types.iter().filter(|t| !UNCONVERTED.contains(t)).collect();
    assert!(
        added.is_empty(),
        "arity.rs keeps conventions by name for {added:?}: give them a methods! table instead"
    );
    let converted: Vec<&&str> = UNCONVERTED.iter().filter(|t| !types.contains(t)).collect();
    assert!(
        converted.is_empty(),
        "{converted:?} left arity.rs's TYPES: remove them from UNCONVERTED too (the ratchet)"
    );
}
