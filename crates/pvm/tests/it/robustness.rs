//! A deterministic mini-fuzzer that runs in `cargo test`: mutated versions of the golden and
//! conformance programs (byte deletions, duplications, swaps and truncations from a fixed
//! LCG) must compile-fail, raise or finish — never panic, hang or overflow the stack. The
//! coverage-guided fuzzer lives in crates/pvm/fuzz.

use std::path::Path;

struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() as usize) % n
        }
    }
}

fn mutate(src: &str, rng: &mut Lcg) -> String {
    let mut chars: Vec<char> = src.chars().collect();
    for _ in 0..1 + rng.below(4) {
        let n = chars.len();
        match rng.below(5) {
            0 if n > 0 => {
                let i = rng.below(n);
                chars.remove(i);
            }
            1 if n > 0 => {
                let i = rng.below(n);
                let c = chars[i];
                chars.insert(i, c);
            }
            2 if n > 1 => {
                let i = rng.below(n);
                let j = rng.below(n);
                chars.swap(i, j);
            }
            3 if n > 0 => {
                let i = rng.below(n);
                chars.truncate(i);
            }
            _ => {
                let pool = [
                    '(', ')', '[', ']', ':', '*', '\n', ' ', '0', 'x', '.', ',', '=', '"', 'f',
                    '{', '}',
                ];
                let i = rng.below(n + 1);
                chars.insert(i, pool[rng.below(pool.len())]);
            }
        }
    }
    chars.into_iter().collect()
}

#[test]
fn mutated_programs_never_panic() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let mut seeds = Vec::new();
    for dir in [root.join("golden"), root.join("conformance").join("stdlib")] {
        if let Ok(rd) = std::fs::read_dir(&dir) {
            let mut ps: Vec<_> = rd
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "py"))
                .collect();
            ps.sort();
            for p in ps.into_iter().take(20) {
                if let Ok(s) = std::fs::read_to_string(&p) {
                    seeds.push(s);
                }
            }
        }
    }
    assert!(!seeds.is_empty());
    let mut rng = Lcg(0x5eed);
    let mut cases = Vec::new();
    for s in &seeds {
        for _ in 0..40 {
            cases.push(mutate(s, &mut rng));
        }
    }
    let handle = std::thread::Builder::new()
        .stack_size(64 * 1024 * 1024)
        .spawn(move || {
            for c in &cases {
                let limits = cowboy_pvm::Limits {
                    cycles: Some(20_000),
                    max_depth: 32,
                    memory: 1 << 20,
                    ..Default::default()
                };
                let _ = cowboy_pvm::run(c, "m.py", limits);
            }
            cases.len()
        })
        .expect("spawn");
    let n = handle.join().expect("a mutated program panicked the VM");
    assert!(n > 100);
}
