//! Simulated runner behaviours: a testing knob for actor developers and for the protocol's
//! hostile-path tests (README, "Simulator"). An operator never sets it, and the daemon refuses
//! any behaviour but `honest` unless its node is a dev chain (chain id
//! [`DEV_CHAIN_ID`]), so nobody runs a lying runner by
//! accident.
//!
//! Every behaviour changes only what the runner *sends*: the job is executed by the real
//! executor as an honest runner would, then its outcome is altered (or never committed). What
//! becomes of the job — outvoted, missing, held for review — is the chain's decision alone.

use std::str::FromStr;
use std::time::Duration;

use serde_json::Value as Json;

use crate::executor::{Job, Outcome, Usage};

pub use cowboy_types::DEV_CHAIN_ID;

/// The bytes the `garbage` behaviour answers with: neither UTF-8, JSON, one CBOR item, nor a
/// fault report, so no result format or schema reads them.
pub const GARBAGE: &[u8] = b"\xff\xfe cowboy-simulated-garbage \x00";

/// How a simulated runner misbehaves.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Behaviour {
    /// As the daemon is: the executor's outcome, sent as it is.
    #[default]
    Honest,
    /// Waits this many milliseconds after executing before it commits (then honest): a
    /// runner whose result comes late, which the deadline cap cannot see coming.
    Slow(u64),
    /// A different result: the last number of a JSON result (in the map order `serde_json`
    /// keeps) becomes `2x + 1`; a result with no number has its last byte flipped. Faults are
    /// sent as they are.
    Wrong,
    /// Never executes and never commits.
    Silent,
    /// [`GARBAGE`] in place of any outcome.
    Garbage,
    /// The result padded with spaces (JSON whitespace) to `max_return_bytes + 1`.
    Oversized,
    /// The honest outcome, with usage reported at ten times the job's bounds.
    LyingUsage,
    /// Honest as a member; as the aggregator it commits, collects and never submits the
    /// aggregate or its own reveal (the members self-reveal after the window).
    Withhold,
}

/// A behaviour that does not parse (the text, and what is accepted).
#[derive(Debug, PartialEq, Eq)]
pub struct UnknownBehaviour(pub String);

impl std::fmt::Display for UnknownBehaviour {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{:?} is not a behaviour: honest, slow=MS, wrong, silent, garbage, oversized, \
             lying_usage, withhold",
            self.0
        )
    }
}

impl std::error::Error for UnknownBehaviour {}

impl FromStr for Behaviour {
    type Err = UnknownBehaviour;

    fn from_str(s: &str) -> Result<Behaviour, UnknownBehaviour> {
        let unknown = || UnknownBehaviour(s.to_string());
        Ok(match s {
            "honest" => Behaviour::Honest,
            "wrong" => Behaviour::Wrong,
            "silent" => Behaviour::Silent,
            "garbage" => Behaviour::Garbage,
            "oversized" => Behaviour::Oversized,
            "lying_usage" => Behaviour::LyingUsage,
            "withhold" => Behaviour::Withhold,
            _ => match s.strip_prefix("slow=") {
                Some(ms) => Behaviour::Slow(ms.parse().map_err(|_| unknown())?),
                None => return Err(unknown()),
            },
        })
    }
}

impl std::fmt::Display for Behaviour {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Behaviour::Honest => write!(f, "honest"),
            Behaviour::Slow(ms) => write!(f, "slow={ms}"),
            Behaviour::Wrong => write!(f, "wrong"),
            Behaviour::Silent => write!(f, "silent"),
            Behaviour::Garbage => write!(f, "garbage"),
            Behaviour::Oversized => write!(f, "oversized"),
            Behaviour::LyingUsage => write!(f, "lying_usage"),
            Behaviour::Withhold => write!(f, "withhold"),
        }
    }
}

impl<'de> serde::Deserialize<'de> for Behaviour {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Behaviour, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

impl Behaviour {
    /// Refuses a simulated behaviour on any chain but the dev chain (`chain_id` is the node's).
    pub fn allowed_on(self, chain_id: u64) -> Result<(), String> {
        if self == Behaviour::Honest || chain_id == DEV_CHAIN_ID {
            return Ok(());
        }
        Err(format!(
            "{self} is a testing knob, refused on chain {chain_id} (only a dev chain, id \
             {DEV_CHAIN_ID}, runs a simulated runner)"
        ))
    }

    /// How long to wait between executing and committing.
    pub fn delay(self) -> Option<Duration> {
        match self {
            Behaviour::Slow(ms) => Some(Duration::from_millis(ms)),
            _ => None,
        }
    }

    /// What the runner sends in place of the executor's `outcome` for `job` (`None`: a spec
    /// the daemon could not read, whose outcome is sent as it is).
    pub fn apply(self, job: Option<&Job>, outcome: Outcome) -> Outcome {
        let Some(job) = job else { return outcome };
        match (self, outcome) {
            (Behaviour::Wrong, Outcome::Done { result, usage }) => Outcome::Done {
                result: perturbed(result),
                usage,
            },
            (Behaviour::Garbage, o) => Outcome::Done {
                result: GARBAGE.to_vec(),
                usage: usage_of(&o),
            },
            (Behaviour::Oversized, o) => {
                let mut result = match &o {
                    Outcome::Done { result, .. } => result.clone(),
                    Outcome::Fault { .. } => Vec::new(),
                };
                let len =
                    usize::try_from(job.max_return_bytes.saturating_add(1)).unwrap_or(usize::MAX);
                result.resize(len.max(result.len()), b' ');
                Outcome::Done {
                    result,
                    usage: usage_of(&o),
                }
            }
            (Behaviour::LyingUsage, o) => {
                let inflated = Usage {
                    tokens: job.bounds.max_tokens.saturating_mul(10).max(1),
                    wall_ms: job.bounds.max_wall_ms.saturating_mul(10).max(1),
                };
                match o {
                    Outcome::Done { result, .. } => Outcome::Done {
                        result,
                        usage: inflated,
                    },
                    Outcome::Fault {
                        kind, progress_bps, ..
                    } => Outcome::Fault {
                        kind,
                        progress_bps,
                        usage: inflated,
                    },
                }
            }
            (_, o) => o,
        }
    }
}

fn usage_of(o: &Outcome) -> Usage {
    match o {
        Outcome::Done { usage, .. } | Outcome::Fault { usage, .. } => *usage,
    }
}

/// `result` with its last JSON number (in the map order `serde_json` keeps: the document's
/// with its `preserve_order` feature, which this workspace builds, else sorted) replaced by
/// `2x + 1`, or, when it is not JSON or holds no number, its last byte flipped (an empty result
/// becomes one byte).
fn perturbed(result: Vec<u8>) -> Vec<u8> {
    if let Ok(mut doc) = serde_json::from_slice::<Json>(&result) {
        if let Some(n) = last_number(&mut doc) {
            *n = match (n.as_i64(), n.as_f64()) {
                (Some(i), _) => Json::from(i.saturating_mul(2).saturating_add(1)),
                (None, Some(x)) => {
                    serde_json::Number::from_f64(x * 2.0 + 1.0).map_or(Json::from(1), Json::Number)
                }
                (None, None) => Json::from(1),
            };
            if let Ok(bytes) = serde_json::to_vec(&doc) {
                return bytes;
            }
        }
    }
    let mut result = result;
    match result.last_mut() {
        Some(b) => *b ^= 1,
        None => result.push(1),
    }
    result
}

fn last_number(v: &mut Json) -> Option<&mut Json> {
    match v {
        Json::Number(_) => Some(v),
        Json::Array(items) => items.iter_mut().rev().find_map(last_number),
        Json::Object(map) => map.values_mut().rev().find_map(last_number),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::executor::{Bounds, FaultKind};
    use cowboy_types::cbor::Value;
    use cowboy_types::Hash32;

    fn job() -> Job {
        Job {
            id: Hash32([1; 32]),
            model: None,
            domains: vec![],
            input: Value::Null,
            bounds: Bounds {
                max_tokens: 1,
                max_wall_ms: 10_000,
                max_memory_mb: 256,
            },
            max_return_bytes: 64,
            mode: "oracle".into(),
            params: Value::Null,
        }
    }

    fn done(result: &[u8]) -> Outcome {
        Outcome::Done {
            result: result.to_vec(),
            usage: Usage {
                tokens: 0,
                wall_ms: 12,
            },
        }
    }

    fn result(o: Outcome) -> Vec<u8> {
        match o {
            Outcome::Done { result, .. } => result,
            Outcome::Fault { .. } => panic!("a fault"),
        }
    }

    #[test]
    fn only_a_dev_chain_runs_a_simulated_runner() {
        assert_eq!(Behaviour::Wrong.allowed_on(DEV_CHAIN_ID), Ok(()));
        assert_eq!(Behaviour::Honest.allowed_on(1), Ok(()));
        let e = Behaviour::Silent.allowed_on(1).expect_err("refused");
        assert!(e.contains("refused on chain 1"), "{e}");
    }

    #[test]
    fn behaviours_parse_and_print_back() {
        for s in [
            "honest",
            "slow=2000",
            "wrong",
            "silent",
            "garbage",
            "oversized",
            "lying_usage",
            "withhold",
        ] {
            assert_eq!(s.parse::<Behaviour>().expect(s).to_string(), s);
        }
        assert_eq!("slow=2000".parse(), Ok(Behaviour::Slow(2000)));
        for bad in ["", "slow", "slow=x", "Honest", "lying"] {
            assert_eq!(bad.parse::<Behaviour>(), Err(UnknownBehaviour(bad.into())));
        }
    }

    #[test]
    fn wrong_changes_the_answers_last_number_and_nothing_else() {
        let honest = br#"{"observed_at": 1700000000, "values": {"price": 2500.5}}"#;
        let wrong = result(Behaviour::Wrong.apply(Some(&job()), done(honest)));
        let v: Json = serde_json::from_slice(&wrong).expect("still JSON");
        assert_eq!(v["values"]["price"], Json::from(5002.0));
        assert_eq!(v["observed_at"], Json::from(1_700_000_000));
        assert_eq!(
            result(Behaviour::Wrong.apply(Some(&job()), done(b"abc"))),
            b"abb"
        );
        assert_eq!(
            result(Behaviour::Wrong.apply(Some(&job()), done(b""))),
            b"\x01"
        );
    }

    #[test]
    fn garbage_oversized_and_lying_usage_alter_only_what_is_sent() {
        let j = job();
        assert_eq!(
            result(Behaviour::Garbage.apply(Some(&j), done(b"{}"))),
            GARBAGE
        );
        assert!(serde_json::from_slice::<Json>(GARBAGE).is_err());
        let big = result(Behaviour::Oversized.apply(Some(&j), done(b"{\"a\": 1}")));
        assert_eq!(big.len(), 65);
        assert_eq!(
            serde_json::from_slice::<Json>(&big).expect("JSON")["a"],
            Json::from(1)
        );
        let fault = Outcome::Fault {
            kind: FaultKind::External,
            progress_bps: 0,
            usage: Usage::default(),
        };
        match Behaviour::LyingUsage.apply(Some(&j), fault) {
            Outcome::Fault { kind, usage, .. } => {
                assert_eq!(kind, FaultKind::External);
                assert_eq!(
                    usage,
                    Usage {
                        tokens: 10,
                        wall_ms: 100_000
                    }
                );
            }
            o => panic!("{o:?}"),
        }
        assert_eq!(Behaviour::Honest.apply(Some(&j), done(b"x")), done(b"x"));
        assert_eq!(Behaviour::Garbage.apply(None, done(b"x")), done(b"x"));
        assert_eq!(Behaviour::Slow(5).delay(), Some(Duration::from_millis(5)));
    }
}
