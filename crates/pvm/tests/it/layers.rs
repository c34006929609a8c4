//! The PVM's modules in layers you can draw (README "Layers"; issue 18 item 5).
//!
//! [`LAYERS`] lists the top-level modules of `src/` from the bottom up. A module may use any
//! module of a lower layer, never one of a higher layer; modules of one layer may use each
//! other only where the layer is declared a knot (`mutual`). The test reads every `.rs` file
//! under `src/`, takes every `crate::<name>` path in the code (in `use` lines, groups such as
//! `crate::{a, b::c}`, and inline paths such as `crate::vm::Vm`; comments, doc comments,
//! strings and character literals are skipped) and fails on each edge the order forbids,
//! naming the file, the line and the edge. A path to an item of the crate root
//! (`crate::run`) counts as a use of `lib`, the top. Every module must sit in exactly one
//! layer, so a new module is placed deliberately.
//!
//! It reads the source, not the compiled crate, because the rule is about the code a reader
//! follows: a path through a re-export still counts as the module it names.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// One layer: its name in the README's diagram, its modules, and whether they may use each
/// other.
struct Layer {
    name: &'static str,
    modules: &'static [&'static str],
    mutual: bool,
}

/// Bottom to top. Keep in step with the diagram in `crates/pvm/README.md`.
const LAYERS: &[Layer] = &[
    Layer {
        name: "cost table",
        modules: &["cost"],
        mutual: false,
    },
    Layer {
        name: "memory accounting",
        modules: &["memory"],
        mutual: false,
    },
    Layer {
        name: "leaves",
        modules: &["limits", "tmpfs", "host"],
        mutual: false,
    },
    Layer {
        name: "unicode",
        modules: &["unicode"],
        mutual: false,
    },
    Layer {
        name: "instruction set",
        modules: &["bytecode"],
        mutual: false,
    },
    Layer {
        name: "data model",
        modules: &["value"],
        mutual: false,
    },
    Layer {
        name: "text codecs",
        modules: &["codec"],
        mutual: false,
    },
    Layer {
        name: "compiler",
        modules: &["compiler"],
        mutual: false,
    },
    Layer {
        name: "runtime",
        modules: &["vm", "objects", "format"],
        mutual: true,
    },
    Layer {
        name: "builtin namespace",
        modules: &["builtins"],
        mutual: false,
    },
    Layer {
        name: "module library",
        modules: &["native", "modules", "sdk", "cbor_bridge", "code_cache"],
        mutual: true,
    },
    Layer {
        name: "module body cache",
        modules: &["body_cache"],
        mutual: false,
    },
    Layer {
        name: "entry points",
        modules: &["actor", "outcome"],
        mutual: false,
    },
    Layer {
        name: "crate root",
        modules: &["lib"],
        mutual: false,
    },
];

/// `text` with comments, string literals and character literals blanked out (newlines kept,
/// so byte offsets still give line numbers). Lifetimes are left alone.
fn code_only(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = b.to_vec();
    let blank = |out: &mut Vec<u8>, from: usize, to: usize| {
        for c in &mut out[from..to] {
            if *c != b'\n' {
                *c = b' ';
            }
        }
    };
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let mut i = 0;
    while i < b.len() {
        let start = i;
        if b[i..].starts_with(b"//") {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if b[i..].starts_with(b"/*") {
            let mut depth = 0;
            while i < b.len() {
                if b[i..].starts_with(b"/*") {
                    depth += 1;
                    i += 2;
                } else if b[i..].starts_with(b"*/") {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if b[i] == b'r' && (i == 0 || !ident(b[i - 1])) && raw_hashes(&b[i + 1..]).is_some()
        {
            // r"…", r#"…"#: ends at a quote followed by as many hashes.
            let hashes = raw_hashes(&b[i + 1..]).unwrap_or(0);
            let close: Vec<u8> = std::iter::once(b'"')
                .chain(std::iter::repeat_n(b'#', hashes))
                .collect();
            i += 2 + hashes;
            i = match b[i..].windows(close.len()).position(|w| w == close) {
                Some(k) => i + k + close.len(),
                None => b.len(),
            };
        } else if b[i] == b'"' {
            i += 1;
            while i < b.len() && b[i] != b'"' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i = (i + 1).min(b.len());
        } else if b[i] == b'\'' {
            // A character literal ('x', '\n', '\u{..}', 'é'); otherwise a lifetime.
            match char_literal_len(&text[i..]) {
                Some(n) => i += n,
                None => {
                    i += 1;
                    continue;
                }
            }
        } else {
            i += 1;
            continue;
        }
        blank(&mut out, start, i);
    }
    String::from_utf8(out).expect("only ASCII bytes were replaced, by ASCII")
}

/// After an `r`: the number of `#` before a `"`, if this starts a raw string.
fn raw_hashes(rest: &[u8]) -> Option<usize> {
    let hashes = rest.iter().take_while(|&&c| c == b'#').count();
    (rest.get(hashes) == Some(&b'"')).then_some(hashes)
}

/// The length in bytes of the character literal `s` starts with, if it starts with one.
fn char_literal_len(s: &str) -> Option<usize> {
    let mut chars = s.char_indices().skip(1);
    let (_, c) = chars.next()?;
    if c == '\\' {
        // An escape runs to the next quote ('\'' has its quote escaped).
        let body = &s[2..];
        let skip = usize::from(body.starts_with('\''));
        return body[skip..].find('\'').map(|k| 2 + skip + k + 1);
    }
    let (k, close) = chars.next()?;
    (close == '\'' && c != '\'').then_some(k + 1)
}

/// The top-level module names of `src/` (files and directories with a `mod.rs`).
fn modules(src: &Path) -> Vec<String> {
    let mut names = Vec::new();
    for entry in std::fs::read_dir(src).expect("read src") {
        let path = entry.expect("dir entry").path();
        let name = path
            .file_stem()
            .and_then(|s| s.to_str())
            .expect("utf-8 name")
            .to_string();
        let module_dir = path.is_dir() && path.join("mod.rs").exists();
        let module_file = path.extension().is_some_and(|e| e == "rs") && name != "lib";
        if module_dir || module_file {
            names.push(name);
        }
    }
    names.sort();
    names
}

/// Every `.rs` file under `dir`, sorted.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("read dir")
        .map(|e| e.expect("dir entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// One `crate::` path in the code: where it is and the first name after `crate::`.
struct Use {
    line: usize,
    name: String,
}

/// The names each `crate::` path of `code` starts with; a group `crate::{a, b::c}` gives one
/// per member.
fn crate_uses(code: &str) -> Vec<Use> {
    let b = code.as_bytes();
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let word = |from: usize| -> String {
        let n = b[from..].iter().take_while(|&&c| ident(c)).count();
        code[from..from + n].to_string()
    };
    let line_of = |at: usize| 1 + b[..at].iter().filter(|&&c| c == b'\n').count();
    let mut uses = Vec::new();
    let mut from = 0;
    while let Some(k) = code[from..].find("crate::") {
        let at = from + k;
        from = at + "crate::".len();
        if at > 0 && (ident(b[at - 1]) || b[at - 1] == b'$') {
            continue;
        }
        let rest = from
            + b[from..]
                .iter()
                .take_while(|c| c.is_ascii_whitespace())
                .count();
        if b.get(rest) != Some(&b'{') {
            uses.push(Use {
                line: line_of(at),
                name: word(rest),
            });
            continue;
        }
        // A group: the first name of each member at depth one.
        let mut depth = 0;
        let mut expect_member = true;
        for (j, &c) in b.iter().enumerate().skip(rest) {
            match c {
                b'{' => {
                    depth += 1;
                    expect_member = depth == 1;
                }
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                b',' if depth == 1 => expect_member = true,
                c if expect_member && depth == 1 && ident(c) => {
                    uses.push(Use {
                        line: line_of(j),
                        name: word(j),
                    });
                    expect_member = false;
                }
                _ => {}
            }
        }
    }
    uses
}

/// The uses of `text` (the file `rel` under `src/`) the layers forbid, one line each:
/// `src/<file>:<line>: <module> (<layer>) -> <module> (<layer>)`.
fn offences(
    rel: &Path,
    text: &str,
    modules: &[String],
    layer_of: &BTreeMap<&str, usize>,
) -> Vec<String> {
    let first = rel
        .components()
        .next()
        .expect("a path")
        .as_os_str()
        .to_string_lossy();
    let from = first.trim_end_matches(".rs");
    let from_layer = layer_of[from];
    let mut found = Vec::new();
    for u in crate_uses(&code_only(text)) {
        let to = if modules.contains(&u.name) {
            u.name.as_str()
        } else {
            "lib"
        };
        let to_layer = layer_of[to];
        let allowed = to == from
            || to_layer < from_layer
            || (to_layer == from_layer && LAYERS[from_layer].mutual);
        if !allowed {
            found.push(format!(
                "src/{}:{}: {from} ({}) -> {to} ({})",
                rel.display(),
                u.line,
                LAYERS[from_layer].name,
                LAYERS[to_layer].name
            ));
        }
    }
    found
}

/// Each module's layer (its index in [`LAYERS`]), checked to place every module of `src/`
/// exactly once.
fn layer_of(modules: &[String]) -> BTreeMap<&'static str, usize> {
    let mut layer_of = BTreeMap::new();
    for (i, layer) in LAYERS.iter().enumerate() {
        for m in layer.modules {
            assert!(
                layer_of.insert(*m, i).is_none(),
                "module {m} is in two layers"
            );
        }
    }
    for m in modules {
        assert!(
            layer_of.contains_key(m.as_str()),
            "module {m} is in no layer of LAYERS"
        );
    }
    for m in layer_of.keys() {
        assert!(
            *m == "lib" || modules.iter().any(|n| n == m),
            "LAYERS names {m}, which is not a module of src/"
        );
    }
    layer_of
}

#[test]
fn no_module_reaches_up() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let modules = modules(&src);
    let layer_of = layer_of(&modules);
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut found = Vec::new();
    for file in &files {
        let rel = file.strip_prefix(&src).expect("under src");
        let text = std::fs::read_to_string(file).expect("read source");
        found.extend(offences(rel, &text, &modules, &layer_of));
    }
    assert!(
        found.is_empty(),
        "{} uses reach up or sideways (see tests/it/layers.rs):\n{}",
        found.len(),
        found.join("\n")
    );
}

#[test]
fn an_upward_use_is_named() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let modules = modules(&src);
    let layer_of = layer_of(&modules);
    let text = "use crate::memory::Acct;\n// crate::vm\nfn f() { crate::vm::ops::int_hash(1); }\n\
                use crate::{bytecode::Code, builtins};\n";
    assert_eq!(
        offences(Path::new("value.rs"), text, &modules, &layer_of),
        [
            "src/value.rs:3: value (data model) -> vm (runtime)",
            "src/value.rs:4: value (data model) -> builtins (builtin namespace)",
        ]
    );
    // A sibling in a layer that is not a knot is refused too; the crate root is the top.
    let text = "use crate::host::Host;\nfn g() -> crate::RunError { todo!() }\n";
    assert_eq!(
        offences(Path::new("tmpfs.rs"), text, &modules, &layer_of),
        [
            "src/tmpfs.rs:1: tmpfs (leaves) -> host (leaves)",
            "src/tmpfs.rs:2: tmpfs (leaves) -> lib (crate root)",
        ]
    );
}

#[test]
fn the_reader_sees_only_code() {
    let code = code_only(
        "use crate::a; // crate::b\n/* crate::c /* nested */ crate::d */ let s = \"crate::e\";\n\
         let r = r#\"crate::f\"#; let q = '\"'; fn g<'x>(v: &'x crate::h::T) {}\n\
         /// [`crate::i`]\nuse crate::{j::k, l, m::{n, o}};\n",
    );
    let names: Vec<(usize, String)> = crate_uses(&code)
        .into_iter()
        .map(|u| (u.line, u.name))
        .collect();
    let want = [(1, "a"), (3, "h"), (5, "j"), (5, "l"), (5, "m")];
    assert_eq!(
        names,
        want.iter()
            .map(|(l, n)| (*l, n.to_string()))
            .collect::<Vec<_>>()
    );
}
