//! The PVM team's own language regression programs (`tests/lang/*.py`), separate from the
//! shared conformance set: each must print exactly what CPython 3.11 printed
//! (`<name>.stdout`, produced with `python3 <name>.py`). They cover calls and parameter
//! binding, closures, classes/MRO/super, descriptors, metaclasses, name mangling, generators,
//! exceptions, `match`, formatting and builtin error messages.

use crate::common;
use std::path::Path;

#[test]
fn language_programs_match_cpython() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("lang");
    let mut progs: Vec<_> = std::fs::read_dir(&dir)
        .expect("lang dir")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "py"))
        .collect();
    progs.sort();
    assert!(progs.len() >= 8);
    let mut failures = Vec::new();
    for p in &progs {
        let src = std::fs::read_to_string(p).expect("read");
        let want = std::fs::read_to_string(p.with_extension("stdout")).expect("stdout file");
        let o = common::run_with(
            &src,
            cowboy_pvm::Limits {
                max_depth: 200,
                ..Default::default()
            },
        );
        if o.stdout != want || o.error.is_some() {
            failures.push(format!(
                "{}: {:?}",
                p.display(),
                o.error.map(|e| e.last_line())
            ));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}
