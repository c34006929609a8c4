//! Oracle semantics for HTTP jobs (CIP-2; whitepaper "External Data and Oracle Semantics"):
//! the `oracle` verification mode. The job declares how data is extracted from what its
//! runners fetch, how fresh it must be and how one canonical answer is chosen; the runners
//! apply the extraction off chain and return only the extracted values with the time they
//! observed them; the verifier checks every result against the declaration and the freshness
//! bound, then the snapshot mode picks the job's result.
//!
//! **Parameters** (`verification.params`, checked at submission):
//! * `extract`: 1 to [`MAX_RULES`] rules `{"name": n, <kind>: rule}`, `<kind>` one of
//!   `"jsonpath"` (must start with `$`), `"regex"`, `"css"`; names `[A-Za-z0-9_]`, 1 to 64
//!   bytes, distinct; a rule 1 to 256 bytes. The chain does not run them (it never sees the
//!   page); they are part of the signed-for job, so a runner that applied another rule
//!   returns other values and is outvoted.
//! * `snapshot`: `first_valid`, `median`, `majority` or `latest`.
//! * `field`: the extracted value the snapshot looks at — required for `median` (a number),
//!   optional for `majority` (default: every extracted value must agree).
//! * `tolerance_bps` (`median` only, 0 to 10,000): results further than this from the median
//!   are outvoted. Without it every valid result counts as agreeing (the median itself is
//!   robust to an outlier; the outlier is then paid).
//! * `max_age_seconds` (≥ 1, optional): the freshness bound.
//!
//! **A result** (in the job's data format) is the map
//! `{"observed_at": unix seconds, "values": {name: value, …}}` with exactly these two keys and
//! exactly the declared names, no value null. It is *valid* when it is such a map, and
//! `observed_at ≤ now` and, with `max_age_seconds`, `observed_at ≥ now − max_age_seconds`,
//! where `now` is the timestamp of the block that decides the job (*choice*: the whitepaper
//! offers a block, submission or absolute reference; the deciding block is the one every
//! validator knows without storing anything more); for `median`, its `field` is a number.
//! An invalid result agrees with nothing.
//!
//! **Snapshots** over the valid results, in committee order:
//! * `first_valid`: the first is the job's result; every valid result wins;
//! * `latest`: the one with the greatest `observed_at` (ties to the earliest); every valid
//!   result wins;
//! * `median`: the lower median of `field` (sorted by value, ties by committee order) is the
//!   job's result; the winners are the valid results within `tolerance_bps` of it;
//! * `majority`: results compared on `field` (or every value); the largest group wins, its
//!   first member's result is the job's; a group as large as it means no verdict.
//!
//! Each needs at least [`need`]`(M)` = a strict majority of the committee among the winners
//! (*choice*: one runner's word is the economic-bond mode's; an oracle answer stands when most
//! of its committee delivered fresh, well-formed data that agrees), and the dispatcher waits for
//! that many commits.

use cowboy_types::cbor::Value;

use cowboy_types::genesis::GenesisParams;

use super::extract::{self, Kind};
use super::modes::{at, key, largest, near, parse, Doc, FieldRule, Format, Key, SCALE};
use crate::system::runners::records::Fields;

/// Most extraction rules a job declares.
pub const MAX_RULES: usize = 16;
/// Longest extraction rule, in bytes.
const MAX_RULE_BYTES: usize = 256;
/// Longest extracted value's name, in bytes.
const MAX_NAME_BYTES: usize = 64;

/// How the canonical result is chosen among valid ones.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Snapshot {
    /// The first valid result in committee order.
    FirstValid,
    /// The lower median of a numeric field.
    Median,
    /// The largest group of equal values.
    Majority,
    /// The most recently observed.
    Latest,
}

impl Snapshot {
    fn parse(s: &str) -> Option<Snapshot> {
        Some(match s {
            "first_valid" => Snapshot::FirstValid,
            "median" => Snapshot::Median,
            "majority" => Snapshot::Majority,
            "latest" => Snapshot::Latest,
            _ => return None,
        })
    }
}

/// A job's oracle declaration, checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Oracle {
    /// The snapshot mode.
    pub snapshot: Snapshot,
    /// The declared names of the extracted values, in declaration order.
    pub names: Vec<String>,
    /// Each name's extraction rule, in the same order.
    pub extract: Vec<(Kind, String)>,
    /// The value the snapshot looks at (`None`: all of them, majority only).
    pub field: Option<String>,
    /// The median's agreement bound, in basis points (`None`: every valid result agrees).
    pub tolerance_bps: Option<u64>,
    /// The freshness bound.
    pub max_age_seconds: Option<u64>,
    /// Winners needed: a strict majority of the committee.
    pub need: usize,
}

/// Commits and winners an oracle job of `m` runners needs: `floor(m / 2) + 1`.
pub fn need(m: u64) -> u64 {
    m / 2 + 1
}

fn name_ok(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= MAX_NAME_BYTES
        && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// The declaration in `params` for a committee needing `need` winners; `Err` names what is
/// wrong.
pub fn rules(f: &Fields<'_>, need: u64) -> Result<Oracle, String> {
    for (k, _) in f.0 {
        match k {
            Value::Text(k)
                if [
                    "extract",
                    "snapshot",
                    "field",
                    "tolerance_bps",
                    "max_age_seconds",
                ]
                .contains(&k.as_str()) => {}
            _ => return Err(format!("unknown parameter {k:?}")),
        }
    }
    let snapshot = match f.get("snapshot") {
        Some(Value::Text(s)) => Snapshot::parse(s),
        _ => None,
    }
    .ok_or("snapshot: one of first_valid, median, majority, latest")?;
    let list = match f.get("extract") {
        Some(Value::Array(a)) if !a.is_empty() && a.len() <= MAX_RULES => a,
        _ => return Err(format!("extract: a list of 1 to {MAX_RULES} rules")),
    };
    let mut names: Vec<String> = Vec::with_capacity(list.len());
    let mut extract = Vec::with_capacity(list.len());
    for (i, r) in list.iter().enumerate() {
        let g = Fields::of(r).ok_or(format!("extract[{i}]: must be a map"))?;
        if g.0.len() != 2 {
            return Err(format!("extract[{i}]: a name and one rule"));
        }
        let name = match g.get("name") {
            Some(Value::Text(n)) if name_ok(n) => n.clone(),
            _ => {
                return Err(format!(
                    "extract[{i}].name: 1 to {MAX_NAME_BYTES} of A-Z a-z 0-9 _"
                ))
            }
        };
        if names.contains(&name) {
            return Err(format!("extract[{i}].name: {name} is declared twice"));
        }
        let rule = [Kind::JsonPath, Kind::Regex, Kind::Css]
            .iter()
            .find_map(|kind| match g.get(kind.name()) {
                Some(Value::Text(t)) => Some((kind.name(), t)),
                _ => None,
            })
            .ok_or(format!("extract[{i}]: a jsonpath, regex or css rule"))?;
        if rule.1.is_empty() || rule.1.len() > MAX_RULE_BYTES {
            return Err(format!(
                "extract[{i}].{}: 1 to {MAX_RULE_BYTES} bytes",
                rule.0
            ));
        }
        if rule.0 == "jsonpath" && !rule.1.starts_with('$') {
            return Err(format!("extract[{i}].jsonpath: starts with $"));
        }
        names.push(name);
        let kind = [Kind::JsonPath, Kind::Regex, Kind::Css]
            .into_iter()
            .find(|k| k.name() == rule.0)
            .unwrap_or(Kind::JsonPath);
        extract.push((kind, rule.1.clone()));
    }
    let field = match f.get("field") {
        None | Some(Value::Null) => None,
        Some(Value::Text(t)) if names.contains(t) => Some(t.clone()),
        Some(_) => return Err("field: the name of an extracted value".into()),
    };
    match (snapshot, &field) {
        (Snapshot::Median, None) => return Err("field: the median needs one".into()),
        (Snapshot::FirstValid | Snapshot::Latest, Some(_)) => {
            return Err("field: only for median and majority".into())
        }
        _ => {}
    }
    let tolerance_bps = match f.get("tolerance_bps") {
        None | Some(Value::Null) => None,
        Some(v) if snapshot == Snapshot::Median => Some(
            v.as_u64()
                .filter(|b| *b <= 10_000)
                .ok_or("tolerance_bps: 0 to 10,000")?,
        ),
        Some(_) => return Err("tolerance_bps: only for median".into()),
    };
    let max_age_seconds = match f.get("max_age_seconds") {
        None | Some(Value::Null) => None,
        Some(v) => Some(
            v.as_u64()
                .filter(|s| *s >= 1)
                .ok_or("max_age_seconds: at least 1")?,
        ),
    };
    Ok(Oracle {
        snapshot,
        names,
        extract,
        field,
        tolerance_bps,
        max_age_seconds,
        need: usize::try_from(need).unwrap_or(usize::MAX),
    })
}

impl Oracle {
    /// The cycles [`Oracle::check_extraction`] costs at worst: each rule's
    /// [`extract::rule_cycles`]. Charged at submission before checking.
    pub fn extraction_cycles(&self, p: &GenesisParams) -> u64 {
        self.extract
            .iter()
            .map(|(k, r)| extract::rule_cycles(p, *k, r))
            .fold(0u64, u64::saturating_add)
    }

    /// Every extraction rule parsed (JSONPath, CSS) or compiled (regex) as a runner would:
    /// `Err` names the first malformed rule and why. Run once, at submission.
    pub fn check_extraction(&self) -> Result<(), String> {
        for (i, (kind, rule)) in self.extract.iter().enumerate() {
            extract::validate(*kind, rule)
                .map_err(|e| format!("extract[{i}].{}: {e}", kind.name()))?;
        }
        Ok(())
    }
}

/// A valid result: when it was observed and the key the snapshot compares.
struct Valid {
    observed_at: i128,
    key: Key,
}

impl Oracle {
    /// `doc` checked against the declaration and freshness at `now` (unix seconds).
    fn valid(&self, doc: &Doc, now: u64) -> Option<Valid> {
        let Doc::Map(top) = doc else { return None };
        if top.len() != 2 {
            return None;
        }
        let observed_at = match at(doc, "observed_at")? {
            Doc::Num(n) if *n >= 0 && n % SCALE == 0 => n / SCALE,
            _ => return None,
        };
        let now = i128::from(now);
        if observed_at > now {
            return None;
        }
        if let Some(age) = self.max_age_seconds {
            if observed_at < now - i128::from(age) {
                return None;
            }
        }
        let values = at(doc, "values")?;
        let Doc::Map(vals) = values else { return None };
        if vals.len() != self.names.len()
            || vals
                .iter()
                .any(|(k, v)| *v == Doc::Null || !self.names.contains(k))
        {
            return None;
        }
        let compared = match &self.field {
            Some(f) => at(values, f)?,
            None => values,
        };
        if self.snapshot == Snapshot::Median && !matches!(compared, Doc::Num(_)) {
            return None;
        }
        Some(Valid {
            observed_at,
            key: key(compared),
        })
    }

    /// The winners among `results` (committee order) at `now`, the job's result first and the
    /// rest ascending, if enough agree.
    pub fn evaluate(&self, format: Format, results: &[&[u8]], now: u64) -> Option<Vec<usize>> {
        let valid: Vec<Option<Valid>> = results
            .iter()
            .map(|r| parse(format, r).and_then(|d| self.valid(&d, now)))
            .collect();
        let all: Vec<usize> = (0..valid.len()).filter(|&i| valid[i].is_some()).collect();
        let (first, mut winners) = match self.snapshot {
            Snapshot::FirstValid => (*all.first()?, all),
            Snapshot::Latest => {
                // The greatest observed_at; `max_by_key` keeps the last of equals, so scan.
                let mut best = *all.first()?;
                for &i in &all {
                    if observed(&valid[i]) > observed(&valid[best]) {
                        best = i;
                    }
                }
                (best, all)
            }
            Snapshot::Median => {
                let mut sorted: Vec<(i128, usize)> = all
                    .iter()
                    .filter_map(|&i| match valid[i].as_ref()?.key {
                        Key::Num(v) => Some((v, i)),
                        Key::Digest(_) => None,
                    })
                    .collect();
                sorted.sort_unstable();
                let (m, mi) = *sorted.get(sorted.len().checked_sub(1)? / 2)?;
                let rule = FieldRule {
                    path: String::new(),
                    tolerance: 0,
                    tolerance_bps: self.tolerance_bps.unwrap_or(0),
                    min: None,
                    max: None,
                };
                let agree: Vec<usize> = match self.tolerance_bps {
                    None => all,
                    Some(_) => sorted
                        .iter()
                        .filter(|(v, _)| near(&Key::Num(m), &Key::Num(*v), &rule))
                        .map(|&(_, i)| i)
                        .collect(),
                };
                (mi, agree)
            }
            Snapshot::Majority => {
                let mut groups: Vec<Vec<usize>> = Vec::new();
                for &i in &all {
                    let k = valid[i].as_ref().map(|v| v.key);
                    match groups
                        .iter_mut()
                        .find(|g| valid[g[0]].as_ref().map(|v| v.key) == k)
                    {
                        Some(g) => g.push(i),
                        None => groups.push(vec![i]),
                    }
                }
                let (best, tied) = largest(groups);
                if tied {
                    return None;
                }
                (*best.first()?, best)
            }
        };
        if winners.len() < self.need.max(1) {
            return None;
        }
        winners.sort_unstable();
        winners.retain(|&i| i != first);
        winners.insert(0, first);
        Some(winners)
    }
}

fn observed(v: &Option<Valid>) -> i128 {
    v.as_ref().map_or(i128::MIN, |v| v.observed_at)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(s: &str) -> Value {
        Value::Text(s.into())
    }

    fn map(e: Vec<(&str, Value)>) -> Value {
        Value::Map(e.into_iter().map(|(k, v)| (text(k), v)).collect())
    }

    fn declare(extra: Vec<(&str, Value)>) -> Result<Oracle, String> {
        let mut e = vec![(
            "extract",
            Value::Array(vec![
                map(vec![("name", text("price")), ("jsonpath", text("$.price"))]),
                map(vec![("name", text("unit")), ("regex", text("[A-Z]{3}"))]),
            ]),
        )];
        e.extend(extra);
        let v = map(e);
        rules(&Fields::of(&v).expect("a map"), 2)
    }

    fn oracle(snapshot: &str, extra: Vec<(&str, Value)>) -> Oracle {
        let mut e = vec![("snapshot", text(snapshot))];
        e.extend(extra);
        declare(e).expect("valid")
    }

    fn res(at: u64, price: &str, unit: &str) -> String {
        format!(r#"{{"observed_at": {at}, "values": {{"price": {price}, "unit": "{unit}"}}}}"#)
    }

    /// Results in dollars: `(observed_at, price)`.
    fn usd(xs: &[(u64, &str)]) -> Vec<String> {
        xs.iter().map(|(at, p)| res(*at, p, "USD")).collect()
    }

    fn ev(o: &Oracle, xs: &[String], now: u64) -> Option<Vec<usize>> {
        let b: Vec<&[u8]> = xs.iter().map(|x| x.as_bytes()).collect();
        o.evaluate(Format::Json, &b, now)
    }

    #[test]
    fn declarations_are_checked() {
        let ok = oracle("median", vec![("field", text("price"))]);
        assert_eq!(ok.names, ["price", "unit"]);
        assert_eq!(ok.need, 2);
        for (bad, why) in [
            (vec![("snapshot", text("mean"))], "snapshot"),
            (vec![("snapshot", text("median"))], "field"),
            (
                vec![("snapshot", text("median")), ("field", text("nope"))],
                "field",
            ),
            (
                vec![("snapshot", text("latest")), ("field", text("price"))],
                "field",
            ),
            (
                vec![
                    ("snapshot", text("majority")),
                    ("tolerance_bps", Value::Uint(5)),
                ],
                "tolerance_bps",
            ),
            (
                vec![
                    ("snapshot", text("latest")),
                    ("max_age_seconds", Value::Uint(0)),
                ],
                "max_age_seconds",
            ),
            (
                vec![("snapshot", text("latest")), ("x", text("y"))],
                "unknown",
            ),
        ] {
            let e = declare(bad).expect_err("refused");
            assert!(e.contains(why), "{e}");
        }
        let rule = |r: Value| {
            let v = map(vec![
                ("snapshot", text("first_valid")),
                ("extract", Value::Array(vec![r])),
            ]);
            rules(&Fields::of(&v).expect("map"), 1)
        };
        assert!(rule(map(vec![("name", text("a")), ("css", text("div.p"))])).is_ok());
        for bad in [
            map(vec![("name", text("a")), ("jsonpath", text("price"))]),
            map(vec![("name", text("a b")), ("css", text("p"))]),
            map(vec![("name", text("a")), ("xpath", text("//p"))]),
            map(vec![("name", text("a")), ("css", text(""))]),
            map(vec![
                ("name", text("a")),
                ("css", text("p")),
                ("regex", text("x")),
            ]),
            map(vec![("name", text("a")), ("css", text(&"p".repeat(257)))]),
        ] {
            assert!(rule(bad.clone()).is_err(), "{bad:?}");
        }
        let twice = map(vec![
            ("snapshot", text("first_valid")),
            (
                "extract",
                Value::Array(vec![
                    map(vec![("name", text("a")), ("css", text("p"))]),
                    map(vec![("name", text("a")), ("css", text("q"))]),
                ]),
            ),
        ]);
        assert!(rules(&Fields::of(&twice).expect("map"), 1).is_err());
    }

    #[test]
    fn median_picks_the_middle_and_outvotes_outliers() {
        let o = oracle(
            "median",
            vec![
                ("field", text("price")),
                ("tolerance_bps", Value::Uint(100)),
            ],
        );
        let honest = usd(&[(90, "2500"), (95, "2510"), (99, "2490")]);
        assert_eq!(
            ev(&o, &honest, 100),
            Some(vec![0, 1, 2]),
            "2500 is the median"
        );
        let liar = usd(&[(90, "2500"), (95, "99999"), (99, "2501")]);
        assert_eq!(
            ev(&o, &liar, 100),
            Some(vec![2, 0]),
            "2501; the liar is out"
        );
        // Two liars of three: the median is a liar's, and only it agrees with itself.
        let two = usd(&[(90, "1"), (95, "99999"), (99, "2501")]);
        assert_eq!(ev(&o, &two, 100), None);
        // Without a tolerance every valid result agrees.
        let loose = oracle("median", vec![("field", text("price"))]);
        assert_eq!(ev(&loose, &liar, 100), Some(vec![2, 0, 1]));
    }

    #[test]
    fn stale_future_and_malformed_results_agree_with_nothing() {
        let o = oracle("first_valid", vec![("max_age_seconds", Value::Uint(30))]);
        let good = res(90, "1", "USD");
        for bad in [
            res(69, "1", "USD"),  // older than now − 30
            res(101, "1", "USD"), // from the future
            r#"{"observed_at": 90, "values": {"price": 1}}"#.to_string(),
            r#"{"observed_at": 90, "values": {"price": 1, "unit": "USD", "html": "<p>"}}"#
                .to_string(),
            r#"{"observed_at": 90, "values": {"price": null, "unit": "USD"}}"#.to_string(),
            r#"{"observed_at": 90.5, "values": {"price": 1, "unit": "USD"}}"#.to_string(),
            r#"{"observed_at": 90, "values": {"price": 1, "unit": "USD"}, "x": 1}"#.to_string(),
            "<html>1 USD</html>".to_string(),
        ] {
            assert_eq!(
                ev(&o, &[bad.clone(), good.clone(), good.clone()], 100),
                Some(vec![1, 2]),
                "{bad}"
            );
        }
        assert_eq!(
            ev(&o, &[res(70, "1", "USD"), good.clone()], 100),
            Some(vec![0, 1]),
            "the bound is inclusive"
        );
        assert_eq!(
            ev(&o, &[res(69, "1", "USD"), good.clone()], 100),
            None,
            "one valid of need 2"
        );
    }

    #[test]
    fn latest_takes_the_newest_and_majority_the_largest_group() {
        let o = oracle("latest", vec![]);
        let xs = usd(&[(90, "1"), (97, "2"), (97, "3")]);
        assert_eq!(
            ev(&o, &xs, 100),
            Some(vec![1, 0, 2]),
            "ties to the earliest"
        );

        let m = oracle("majority", vec![]);
        let xs = [
            res(90, "1", "USD"),
            res(91, "1", "EUR"),
            res(92, "1", "USD"),
        ];
        assert_eq!(ev(&m, &xs, 100), Some(vec![0, 2]));
        let on_price = oracle("majority", vec![("field", text("price"))]);
        assert_eq!(
            ev(&on_price, &xs, 100),
            Some(vec![0, 1, 2]),
            "units ignored"
        );
        let split = [res(90, "1", "USD"), res(91, "2", "USD")];
        assert_eq!(ev(&m, &split, 100), None, "a tie");
    }
}
