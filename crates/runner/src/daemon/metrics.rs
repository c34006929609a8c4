//! The daemon's Prometheus metrics, served at `GET /metrics` beside the reveal inbox: jobs by
//! outcome, transactions by kind, results pushed and received, execution time, jobs in flight.

use prometheus_client::encoding::{text::encode, EncodeLabelSet};
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;

/// A label with one value.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct Kind {
    /// The value.
    pub kind: &'static str,
}

/// Every metric.
pub struct Metrics {
    registry: Registry,
    /// Executions by outcome: `result`, `impossible`, `external`, `actor`, `timeout`.
    pub executions: Family<Kind, Counter>,
    /// Transactions sent: `commit`, `aggregate`, `reveal`, `heartbeat`, `register`, `update`.
    pub transactions: Family<Kind, Counter>,
    /// Jobs finished on chain, by status: `verified`, `failed`, `silent`.
    pub jobs: Family<Kind, Counter>,
    /// Results pushed to aggregators.
    pub delivered: Counter,
    /// Results received in the inbox, by verdict: `accepted`, `refused`.
    pub received: Family<Kind, Counter>,
    /// Execution wall time, seconds.
    pub execution_seconds: Histogram,
    /// Jobs the journal holds that are not done.
    pub in_flight: Gauge,
}

impl Default for Metrics {
    fn default() -> Self {
        let mut registry = Registry::with_prefix("cowboy_runner");
        let executions = Family::default();
        let transactions = Family::default();
        let jobs = Family::default();
        let delivered = Counter::default();
        let received = Family::default();
        let execution_seconds =
            Histogram::new([0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0]);
        let in_flight = Gauge::default();
        registry.register("executions", "Executions by outcome", executions.clone());
        registry.register(
            "transactions",
            "Transactions sent by kind",
            transactions.clone(),
        );
        registry.register("jobs", "Jobs finished, by status on chain", jobs.clone());
        registry.register(
            "delivered",
            "Results pushed to aggregators",
            delivered.clone(),
        );
        registry.register(
            "received",
            "Results received in the inbox",
            received.clone(),
        );
        registry.register(
            "execution_seconds",
            "Execution wall time",
            execution_seconds.clone(),
        );
        registry.register("in_flight", "Jobs not yet done", in_flight.clone());
        Metrics {
            registry,
            executions,
            transactions,
            jobs,
            delivered,
            received,
            execution_seconds,
            in_flight,
        }
    }
}

impl Metrics {
    /// Counts one of `family` labelled `kind`.
    pub fn count(family: &Family<Kind, Counter>, kind: &'static str) {
        family.get_or_create(&Kind { kind }).inc();
    }

    /// The text exposition.
    pub fn render(&self) -> String {
        let mut out = String::new();
        // Writing into a String cannot fail.
        let _ = encode(&mut out, &self.registry);
        out
    }
}
