//! Property test: arbitrary patterns and subjects never panic the engine —
//! compile errors are fine, and every operation ends in a result, a compile
//! error, `Exhausted` or `MemoryLimit`.

use cowboy_pvm_re::ops::{findall, split, subn};
use cowboy_pvm_re::{str_units, Budget, Limits, Regex};
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn never_panics(
        pattern in "[ab().|*+?{}0-9,^$\\[\\]\\\\dwsbBAZgP<>=!:#\\-i-]{0,24}",
        subject in "[ab\n ]{0,12}",
        flags in prop::sample::select(vec![0u32, 2, 8, 16, 64, 256, 2 | 256]),
        bytes in any::<bool>(),
    ) {
        let limits = Limits { max_memory: 1 << 20, max_program: 10_000 };
        let mut b = Budget::new(200_000);
        let p = str_units(&pattern);
        let compiled = Regex::compile(&p, !bytes, flags, &mut b, &limits);
        if let Ok(r) = compiled {
            let t = str_units(&subject);
            let n = t.len();
            let _ = r.search(&t, 0, n, &mut b, &limits);
            let _ = r.match_at(&t, 1, n, &mut b, &limits);
            let _ = r.fullmatch(&t, 0, n, &mut b, &limits);
            let _ = findall(&r, &t, 0, n, &mut b, &limits);
            let _ = split(&r, &t, 0, &mut b, &limits);
            let _ = subn(&r, &str_units("\\g<0>-"), &t, 0, &mut b, &limits);
            prop_assert!(b.charged <= 200_000);
        }
    }
}
