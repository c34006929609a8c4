//! Executing a job: the executor for its type, under the daemon's own bounds. The spec as the
//! chain stores it becomes an executor [`Job`]; a job type with no executor configured is an
//! `external` fault report (the runner cannot reach what the job needs), and so is a spec the
//! daemon cannot read. The daemon enforces the job's wall time itself too, whatever the
//! executor does: an execution still running at `max_wall_ms` (plus a small grace for the
//! executor's own timeout to fire first) is cut off and reported `impossible` (the bounds were
//! too tight for it) with the full wall time as its usage.

use std::time::{Duration, Instant};

use cowboy_exec::system::runners::records::{Fields, JobType};
use cowboy_exec::system::verifier::fault::{Kind, Report};
use cowboy_exec::system::verifier::sign::Usage as SignedUsage;
use cowboy_types::cbor::Value;
use cowboy_types::Hash32;

use crate::executor::http::HttpExecutor;
use crate::executor::llm::LlmExecutor;
use crate::executor::mcp::McpExecutor;
use crate::executor::{Bounds, FaultKind, Job, Outcome, Usage};

/// Extra time an executor gets past `max_wall_ms` before the daemon cuts it off (at most a
/// tenth of the bound).
pub const GRACE: Duration = Duration::from_millis(500);

/// The executors this runner has, by job type.
#[derive(Default)]
pub struct Executors {
    /// HTTP jobs.
    pub http: Option<HttpExecutor>,
    /// LLM jobs.
    pub llm: Option<LlmExecutor>,
    /// MCP jobs.
    pub mcp: Option<McpExecutor>,
}

fn field<'a>(v: &'a Value, name: &str) -> Option<&'a Value> {
    Fields::of(v)?.get(name)
}

fn uint(v: &Value, path: &[&str]) -> Option<u64> {
    let mut at = v;
    for p in path {
        at = field(at, p)?;
    }
    at.as_u64()
}

/// The executor's view of a job spec as stored on chain (already checked by the dispatcher,
/// so a spec that does not read is a chain the daemon does not understand).
pub fn job_of(id: Hash32, spec: &Value) -> Option<(JobType, Job)> {
    let job_type = match field(spec, "job_type")? {
        Value::Text(s) => JobType::parse(s)?,
        _ => return None,
    };
    let model = match field(spec, "model") {
        Some(Value::Bytes(b)) => Some(Hash32(b.as_slice().try_into().ok()?)),
        _ => None,
    };
    let domains = match field(spec, "domains") {
        Some(Value::Array(a)) => a
            .iter()
            .map(|d| match d {
                Value::Text(s) => Some(s.clone()),
                _ => None,
            })
            .collect::<Option<Vec<_>>>()?,
        _ => Vec::new(),
    };
    let verification = field(spec, "verification")?;
    let mode = match field(verification, "mode")? {
        Value::Text(s) => s.clone(),
        _ => return None,
    };
    Some((
        job_type,
        Job {
            id,
            model,
            domains,
            input: field(spec, "input").cloned().unwrap_or(Value::Null),
            bounds: Bounds {
                max_tokens: uint(spec, &["bounds", "max_tokens"])?,
                max_wall_ms: uint(spec, &["bounds", "max_wall_ms"])?,
                max_memory_mb: uint(spec, &["bounds", "max_memory_mb"])?,
            },
            max_return_bytes: uint(spec, &["result_schema", "max_return_bytes"])?,
            mode,
            params: field(verification, "params")
                .cloned()
                .unwrap_or(Value::Null),
        },
    ))
}

/// Cut off after `wall_ms` (or never started): the bounds were too tight for the job.
fn impossible(wall_ms: u64) -> Outcome {
    Outcome::Fault {
        kind: FaultKind::Impossible,
        progress_bps: 0,
        usage: Usage { tokens: 0, wall_ms },
    }
}

fn external() -> Outcome {
    Outcome::Fault {
        kind: FaultKind::External,
        progress_bps: 0,
        usage: Usage::default(),
    }
}

impl Executors {
    /// Runs the job in `spec` within its wall time, and within `budget` when the time left
    /// before its commit deadline is shorter (the daemon's [`BlockClock`] estimate; `None`:
    /// no estimate). A cut budget is the job's bound for the executor, whose own timeout
    /// then reports the fault it would at the job's bound (a site that never answers is
    /// `external`), in time to be committed; with no time left at all the job is `impossible`
    /// without being started. The outcome and how long it took.
    ///
    /// [`BlockClock`]: super::clock::BlockClock
    pub async fn run(
        &self,
        id: Hash32,
        spec: &Value,
        budget: Option<Duration>,
    ) -> (Outcome, Duration) {
        let started = Instant::now();
        let Some((job_type, mut job)) = job_of(id, spec) else {
            return (external(), started.elapsed());
        };
        if let Some(budget) = budget {
            let ms = u64::try_from(budget.as_millis()).unwrap_or(u64::MAX);
            if ms == 0 {
                return (impossible(0), started.elapsed());
            }
            job.bounds.max_wall_ms = job.bounds.max_wall_ms.min(ms);
        }
        let bound = Duration::from_millis(job.bounds.max_wall_ms);
        // The executor's own timeout fires first; this cut is for one that does not keep it,
        // and stays a small share of a short bound.
        let limit = bound + GRACE.min(bound / 10);
        let work = async {
            match job_type {
                JobType::Http => match &self.http {
                    Some(http) => http.execute(&job).await,
                    None => external(),
                },
                JobType::Llm => match &self.llm {
                    Some(llm) => llm.execute(&job).await,
                    None => external(),
                },
                JobType::Mcp => match &self.mcp {
                    Some(mcp) => mcp.execute(&job).await,
                    None => external(),
                },
                _ => external(),
            }
        };
        let outcome = match tokio::time::timeout(limit, work).await {
            Ok(o) => o,
            Err(_) => impossible(job.bounds.max_wall_ms),
        };
        (outcome, started.elapsed())
    }
}

/// The bytes a runner reveals for `outcome` and the usage it signs: the result, or the fault
/// report (exec `verifier/fault.rs`).
pub fn revealed(outcome: Outcome) -> (Vec<u8>, SignedUsage, &'static str) {
    let signed = |u: Usage| SignedUsage {
        tokens: u.tokens,
        wall_ms: u.wall_ms,
    };
    match outcome {
        Outcome::Done { result, usage } => (result, signed(usage), "result"),
        Outcome::Fault {
            kind,
            progress_bps,
            usage,
        } => {
            let (kind, label) = match kind {
                FaultKind::Impossible => (Kind::Impossible, "impossible"),
                FaultKind::External => (Kind::External, "external"),
                FaultKind::Actor => (Kind::Actor, "actor"),
            };
            let report = Report {
                kind,
                progress_bps: u64::from(progress_bps.min(10_000)),
            };
            (report.encode(), signed(usage), label)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::executor::http::HttpConfig;

    fn t(s: &str) -> Value {
        Value::Text(s.into())
    }

    fn spec(job_type: &str) -> Value {
        Value::Map(vec![
            (t("job_type"), t(job_type)),
            (t("domains"), Value::Array(vec![t("api.example.com")])),
            (
                t("input"),
                Value::Map(vec![(t("url"), t("https://api.example.com/p"))]),
            ),
            (
                t("bounds"),
                Value::Map(vec![
                    (t("max_tokens"), Value::Uint(1)),
                    (t("max_wall_ms"), Value::Uint(50)),
                    (t("max_memory_mb"), Value::Uint(1)),
                ]),
            ),
            (
                t("result_schema"),
                Value::Map(vec![(t("max_return_bytes"), Value::Uint(256))]),
            ),
            (
                t("verification"),
                Value::Map(vec![(t("mode"), t("oracle"))]),
            ),
        ])
    }

    /// Replaces the field `name` of a spec map.
    fn set(spec: &mut Value, name: &str, value: Value) {
        let Value::Map(fields) = spec else {
            panic!("a spec is a map")
        };
        let field = fields
            .iter_mut()
            .find(|(k, _)| *k == t(name))
            .unwrap_or_else(|| panic!("no field {name}"));
        field.1 = value;
    }

    #[test]
    fn a_spec_reads_as_the_executor_job() {
        let (ty, job) = job_of(Hash32([1; 32]), &spec("http")).expect("reads");
        assert_eq!(ty, JobType::Http);
        assert_eq!(job.domains, vec!["api.example.com".to_string()]);
        assert_eq!(job.bounds.max_wall_ms, 50);
        assert_eq!(job.max_return_bytes, 256);
        assert_eq!(job.mode, "oracle");
        assert_eq!(job.params, Value::Null);
        assert!(job_of(Hash32([1; 32]), &Value::Null).is_none());
    }

    #[tokio::test]
    async fn a_job_type_without_an_executor_is_an_external_fault_report() {
        let (outcome, _) = Executors::default()
            .run(Hash32([1; 32]), &spec("llm"), None)
            .await;
        let (bytes, usage, label) = revealed(outcome);
        assert_eq!(label, "external");
        assert_eq!(
            Report::parse(&bytes),
            Some(Report {
                kind: Kind::External,
                progress_bps: 0
            })
        );
        assert_eq!(usage, SignedUsage::default());
    }

    #[tokio::test]
    async fn no_time_left_before_the_deadline_is_impossible_without_starting() {
        // Started, an LLM job with no LLM executor would be `external`.
        let (outcome, _) = Executors::default()
            .run(Hash32([1; 32]), &spec("llm"), Some(Duration::ZERO))
            .await;
        let (bytes, usage, label) = revealed(outcome);
        assert_eq!(label, "impossible");
        assert_eq!(
            Report::parse(&bytes).map(|r| r.kind),
            Some(Kind::Impossible)
        );
        assert_eq!(usage, SignedUsage::default());
    }

    #[tokio::test]
    async fn a_budget_shorter_than_the_wall_bound_is_the_executors_bound() {
        // A site that accepts the connection and never answers, and a job allowed 60 s.
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let addr = listener.local_addr().expect("addr");
        let held = tokio::spawn(async move {
            let mut open = Vec::new();
            while let Ok((conn, _)) = listener.accept().await {
                open.push(conn);
            }
        });
        let http = HttpExecutor::new(HttpConfig {
            resolve: vec![("api.example.com".into(), addr)],
            allow_plain_http: true,
            ..HttpConfig::default()
        })
        .expect("client");
        let executors = Executors {
            http: Some(http),
            ..Executors::default()
        };
        // The majority mode: the body as received, no extraction rules to give.
        let mut job = spec("http");
        let url = format!("http://api.example.com:{}/hang", addr.port());
        set(&mut job, "input", Value::Map(vec![(t("url"), t(&url))]));
        set(
            &mut job,
            "bounds",
            Value::Map(vec![
                (t("max_tokens"), Value::Uint(1)),
                (t("max_wall_ms"), Value::Uint(60_000)),
                (t("max_memory_mb"), Value::Uint(1)),
            ]),
        );
        set(
            &mut job,
            "verification",
            Value::Map(vec![(t("mode"), t("majority_vote"))]),
        );
        let budget = Duration::from_millis(200);
        let (outcome, _) = executors.run(Hash32([1; 32]), &job, Some(budget)).await;
        held.abort();
        // The executor's own timeout reports what it reports at the job's bound, with the
        // time it really took: far below the job's 60 s.
        let (bytes, usage, label) = revealed(outcome);
        assert_eq!(label, "external", "{:?}", Report::parse(&bytes));
        assert!(usage.wall_ms >= 200 && usage.wall_ms < 60_000, "{usage:?}");
    }
}
