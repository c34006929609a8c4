//! Fault reports: how a runner says a job could not be done, and the outcome rows they decide
//! (whitepaper "Payment and Failure Handling": impossible job, external fault, actor fault).
//!
//! A runner that cannot produce a result reveals a **fault report** in place of one: the
//! result bytes `"\0cowboy-fault-v1:" ‖ kind ‖ ":" ‖ progress_bps`, kind one of `impossible`
//! (the job's bounds are too tight for it), `external` (the API or model it needs is down) or
//! `actor` (the actor's input is malformed), `progress_bps` the share of the work it did, a
//! decimal in `0..=10000` without leading zeros. It is committed, signed (with its usage) and
//! revealed exactly like a result, so the aggregator cannot alter it and a runner that said
//! one thing and committed to another is caught by the same equivocation challenge. The
//! leading NUL byte makes a report neither JSON nor a single CBOR item, so no result in
//! those formats is mistaken for one; for byte-compared results it is reserved.
//!
//! **Deciding.** A kind reported by a strict majority of the revealed outcomes, and by at
//! least the job's `need` (the number of agreeing runners its mode needs for a result), decides
//! the job: it fails with that kind, and only its reporters are paid. Otherwise the mode
//! decides over every reveal, and a fault report agrees with nothing (it is never a result).
//!
//! **Paying** (README "Formulas", the outcome rows): each reporter of an impossible job or an
//! external fault earns `a_i × progress_bps / 10^4`, `a_i` its price for its usage as for a
//! success (capped, and over twice the expected usage held for review); each reporter of an
//! actor fault earns `min(job_min_fee_wei, cap)` whatever its progress; either way split 89 /
//! 10 / 1 like any payment. No tip and no aggregator bonus (they reward a delivered result);
//! the rest of the escrow is refunded. Reporters keep their reputation; committed runners that
//! revealed nothing lose it, as in every failure.

/// The prefix of every fault report.
pub const MARKER: &[u8] = b"\0cowboy-fault-v1:";

/// Progress is in basis points of the whole job.
const FULL_BPS: u64 = 10_000;

/// What a runner reports instead of a result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// The job cannot be done within its bounds.
    Impossible,
    /// Something outside runner and actor failed (an API down, a model unavailable).
    External,
    /// The actor's input is malformed.
    Actor,
}

impl Kind {
    /// The name in a report, the outcome record and the `JobFailed` event.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Impossible => "impossible",
            Kind::External => "external",
            Kind::Actor => "actor",
        }
    }

    fn parse(s: &[u8]) -> Option<Kind> {
        [Kind::Impossible, Kind::External, Kind::Actor]
            .into_iter()
            .find(|k| k.name().as_bytes() == s)
    }
}

/// A parsed fault report.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Report {
    /// What went wrong.
    pub kind: Kind,
    /// The share of the work done, in basis points (`0..=10000`).
    pub progress_bps: u64,
}

impl Report {
    /// The report's bytes, as a runner reveals them.
    pub fn encode(&self) -> Vec<u8> {
        let mut b = MARKER.to_vec();
        b.extend_from_slice(self.kind.name().as_bytes());
        b.push(b':');
        b.extend_from_slice(self.progress_bps.to_string().as_bytes());
        b
    }

    /// The report in `result`, if it is one (exactly the encoding: one form per report, so
    /// equal reports are equal bytes). Reads at most a few dozen bytes.
    pub fn parse(result: &[u8]) -> Option<Report> {
        let rest = result.strip_prefix(MARKER)?;
        if rest.len() > 16 {
            return None;
        }
        let colon = rest.iter().position(|&c| c == b':')?;
        let kind = Kind::parse(&rest[..colon])?;
        let digits = &rest[colon + 1..];
        let canonical = !digits.is_empty()
            && digits.iter().all(u8::is_ascii_digit)
            && (digits == b"0" || digits[0] != b'0');
        if !canonical {
            return None;
        }
        let progress_bps: u64 = std::str::from_utf8(digits).ok()?.parse().ok()?;
        (progress_bps <= FULL_BPS).then_some(Report { kind, progress_bps })
    }

    /// The report's share of a price `a`: `a × progress_bps / 10^4` for an impossible job or
    /// an external fault (pro rata by progress); an actor fault is paid a fixed fee instead.
    pub fn pro_rata(&self, a: u128) -> u128 {
        let bps = u128::from(self.progress_bps);
        a / u128::from(FULL_BPS) * bps + a % u128::from(FULL_BPS) * bps / u128::from(FULL_BPS)
    }
}

/// The fault that decides a job whose revealed `results` are these (in committee order), if
/// any: a kind reported by more than half of them and by at least `need` runners, with the
/// indices of its reporters.
pub fn decisive(results: &[&[u8]], need: u64) -> Option<(Kind, Vec<usize>)> {
    let reports: Vec<Option<Report>> = results.iter().map(|r| Report::parse(r)).collect();
    [Kind::Impossible, Kind::External, Kind::Actor]
        .into_iter()
        .find_map(|kind| {
            let by: Vec<usize> = (0..reports.len())
                .filter(|&i| reports[i].is_some_and(|r| r.kind == kind))
                .collect();
            let decides = 2 * by.len() > results.len() && by.len() as u64 >= need.max(1);
            decides.then_some((kind, by))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(kind: Kind, progress_bps: u64) -> Vec<u8> {
        Report { kind, progress_bps }.encode()
    }

    #[test]
    fn reports_round_trip_and_only_the_canonical_form_parses() {
        for (kind, bps) in [
            (Kind::Impossible, 0),
            (Kind::External, 2_500),
            (Kind::Actor, 10_000),
        ] {
            let b = r(kind, bps);
            assert_eq!(
                Report::parse(&b),
                Some(Report {
                    kind,
                    progress_bps: bps
                })
            );
        }
        assert_eq!(
            r(Kind::External, 2_500),
            b"\0cowboy-fault-v1:external:2500".to_vec()
        );
        for bad in [
            &b"\0cowboy-fault-v1:external:02500"[..],
            b"\0cowboy-fault-v1:external:10001",
            b"\0cowboy-fault-v1:external:",
            b"\0cowboy-fault-v1:external:1 ",
            b"\0cowboy-fault-v1:external",
            b"\0cowboy-fault-v1:gone:1",
            b"cowboy-fault-v1:external:1",
            b"\0cowboy-fault-v1:external:99999999999999999999",
        ] {
            assert_eq!(Report::parse(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn a_report_is_neither_json_nor_cbor() {
        use super::super::modes::{parse, Format};
        let b = r(Kind::Impossible, 0);
        assert!(parse(Format::Json, &b).is_none());
        assert!(parse(Format::Cbor, &b).is_none());
    }

    #[test]
    fn pro_rata_is_exact_and_never_more_than_the_price() {
        let rep = |bps| Report {
            kind: Kind::External,
            progress_bps: bps,
        };
        assert_eq!(rep(2_500).pro_rata(1_000), 250);
        assert_eq!(rep(3_333).pro_rata(10), 3);
        assert_eq!(rep(10_000).pro_rata(u128::MAX), u128::MAX);
        assert_eq!(rep(0).pro_rata(u128::MAX), 0);
        assert!(rep(9_999).pro_rata(u128::MAX) < u128::MAX);
    }

    #[test]
    fn a_kind_decides_with_a_strict_majority_of_the_reveals_and_the_need() {
        let imp = r(Kind::Impossible, 100);
        let ext = r(Kind::External, 100);
        let ok = br#"{"v": 1}"#.to_vec();
        fn of<'a>(v: &[&'a Vec<u8>]) -> Vec<&'a [u8]> {
            v.iter().map(|x| x.as_slice()).collect()
        }
        // Two of three: a majority, and the need of 2.
        assert_eq!(
            decisive(&of(&[&imp, &ok, &imp]), 2),
            Some((Kind::Impossible, vec![0, 2]))
        );
        // Progress may differ between reporters of one kind.
        let imp2 = r(Kind::Impossible, 9_000);
        assert_eq!(
            decisive(&of(&[&imp, &imp2, &ok]), 2),
            Some((Kind::Impossible, vec![0, 1]))
        );
        // Half is not a majority; two kinds do not add up; the need must be met.
        assert_eq!(decisive(&of(&[&imp, &ok]), 1), None);
        assert_eq!(decisive(&of(&[&imp, &ext, &ok]), 1), None);
        assert_eq!(decisive(&of(&[&imp, &imp, &ok]), 3), None);
        // One runner of a one-runner job.
        assert_eq!(decisive(&of(&[&ext]), 1), Some((Kind::External, vec![0])));
        assert_eq!(decisive(&[], 1), None);
    }
}
