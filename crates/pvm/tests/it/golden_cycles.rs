//! Golden cycle counts (STYLE.md §3): the cycles and instruction counts of a fixed program set
//! are pinned in `tests/golden_cycles.txt`. Any change to metering (cost.rs, the compiler's
//! instruction selection, builtin surcharges) changes these numbers and fails this test, so it
//! is a visible, deliberate act: rerun with `PVM_UPDATE_GOLDEN=1` and commit the new file.

use crate::common;
use std::path::Path;

#[test]
fn golden_cycles() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let mut names: Vec<_> = std::fs::read_dir(dir.join("golden"))
        .expect("golden dir")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "py"))
        .collect();
    names.sort();
    let mut text = String::new();
    for p in &names {
        let src = std::fs::read_to_string(p).expect("read");
        let o = common::run_with(&src, cowboy_pvm::Limits::default());
        assert!(o.error.is_none(), "{}: {:?}", p.display(), o.error);
        let name = p
            .file_name()
            .map(|n| n.to_string_lossy().to_string())
            .unwrap_or_default();
        text.push_str(&format!(
            "{name} cycles={} instructions={} peak_memory={}\n",
            o.cycles, o.instructions, o.peak_memory
        ));
    }
    let golden = dir.join("golden_cycles.txt");
    if std::env::var("PVM_UPDATE_GOLDEN").is_ok_and(|v| v == "1") {
        std::fs::write(&golden, &text).expect("write golden");
    }
    let want = std::fs::read_to_string(&golden).unwrap_or_default();
    assert_eq!(
        text, want,
        "metering changed; if deliberate, rerun with PVM_UPDATE_GOLDEN=1"
    );
}
