//! The dispatch loop stays small and its handlers readable (issue 18: "the dispatch loop split
//! so each handler can be read on one screen"; STYLE 15, ratchets).
//!
//! `src/vm/dispatch.rs` holds the loop, whose size is what lets its state stay in registers
//! (its module docs); `src/vm/handlers.rs` holds one method per instruction. This test reads
//! both files and fails when a function grows past its number: the loop past [`LOOP_MAX`],
//! `exec_cold` (a `match` of one arm per rare instruction) past [`COLD_MAX`], any other function
//! of either file past [`HANDLER_MAX`]. Lower a number when you shorten what it bounds; raise
//! one only with a reason in the commit (a new instruction's arm, say, in the cold match).

use std::path::Path;

/// Lines of `exec_loop`, signature to closing brace (247 when written).
const LOOP_MAX: usize = 250;
/// Lines of `exec_cold` (263 when written; 273 with the superinstructions named among the
/// instructions the loop dispatches).
const COLD_MAX: usize = 275;
/// Lines of any other function in the two files: one screen.
const HANDLER_MAX: usize = 50;

/// `(name, lines)` of every function at the first level of an `impl` or at the top of `src`:
/// from its `fn` line (or the attributes' end) to the closing brace at the same indentation.
fn functions(src: &str) -> Vec<(String, usize)> {
    let lines: Vec<&str> = src.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let indent = line.len() - line.trim_start().len();
        let rest = line.trim_start();
        let rest = rest.strip_prefix("pub(super) ").unwrap_or(rest);
        let rest = rest.strip_prefix("pub(crate) ").unwrap_or(rest);
        if let Some(sig) = rest.strip_prefix("fn ") {
            let name: String = sig
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            let close = format!("{}}}", " ".repeat(indent));
            let end = (i..lines.len())
                .find(|&j| lines[j] == close)
                .unwrap_or_else(|| panic!("fn {name} has no closing brace at its indentation"));
            out.push((name, end - i + 1));
            i = end;
        }
        i += 1;
    }
    out
}

#[test]
fn dispatch_loop_and_handlers_stay_within_their_lengths() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/vm");
    let mut over = Vec::new();
    let mut seen_loop = false;
    for file in ["dispatch.rs", "handlers.rs"] {
        let src = std::fs::read_to_string(dir.join(file)).expect("read the source");
        for (name, n) in functions(&src) {
            let max = match name.as_str() {
                "exec_loop" => {
                    seen_loop = true;
                    LOOP_MAX
                }
                "exec_cold" => COLD_MAX,
                _ => HANDLER_MAX,
            };
            if n > max {
                over.push(format!("{file}: fn {name} is {n} lines (at most {max})"));
            }
        }
    }
    assert!(seen_loop, "exec_loop not found in src/vm/dispatch.rs");
    assert!(over.is_empty(), "{}", over.join("\n"));
}
