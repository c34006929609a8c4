//! The registry's records and their canonical CBOR form (text-keyed maps; the layout is in the
//! exec README's CIP-2 design). Decoding a stored record that does not fit is a corrupt state
//! ([`super::store::corrupt`]), never a caller's error.

use cowboy_types::cbor::Value;
use cowboy_types::{Address, Hash32};

use super::store::corrupt;
use crate::system::CallError;

/// The job types of CIP-2 §2, in their canonical order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum JobType {
    /// LLM inference (rated per model).
    Llm,
    /// HTTP fetch.
    Http,
    /// MCP tool call.
    Mcp,
    /// Custom executor.
    Custom,
}

impl JobType {
    /// Every job type.
    pub const ALL: [JobType; 4] = [JobType::Llm, JobType::Http, JobType::Mcp, JobType::Custom];

    /// Its wire name.
    pub fn name(self) -> &'static str {
        match self {
            JobType::Llm => "llm",
            JobType::Http => "http",
            JobType::Mcp => "mcp",
            JobType::Custom => "custom",
        }
    }

    /// Parse a wire name.
    pub fn parse(s: &str) -> Option<JobType> {
        JobType::ALL.into_iter().find(|t| t.name() == s)
    }
}

/// One rate-card entry: the price of a job of `job_type` (on `model`, for LLM jobs), in wei:
/// `base + per_token × tokens + per_ms × wall-clock milliseconds`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rate {
    /// The job type.
    pub job_type: JobType,
    /// The model (LLM entries only).
    pub model: Option<Hash32>,
    /// Price per job.
    pub base: u128,
    /// Price per token (input and output).
    pub per_token: u128,
    /// Price per millisecond of execution.
    pub per_ms: u128,
}

/// What a runner declares: key, capabilities, rate card, limits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Profile {
    /// Ed25519 public key its results are signed with.
    pub key: [u8; 32],
    /// Job types it runs, canonical order, no repeats.
    pub job_types: Vec<JobType>,
    /// Models it serves (registered), sorted.
    pub models: Vec<Hash32>,
    /// HTTP domains it serves, sorted.
    pub domains: Vec<String>,
    /// Whether it runs in a TEE.
    pub tee: bool,
    /// Rate card, sorted by (job type, model).
    pub rates: Vec<Rate>,
    /// Jobs it takes at once.
    pub max_concurrent_jobs: u64,
    /// The largest job value it declares (stake must cover 1.5 × it).
    pub max_job_value: u128,
    /// Its cut of delegator-attributed revenue, in basis points.
    pub commission_bps: u64,
    /// Height of its (latest) registration.
    pub registered_at: u64,
    /// Its inbox URL for other runners' results, if declared. Stored only when present, so a
    /// profile without one encodes exactly as before the field existed.
    pub endpoint: Option<String>,
}

/// Where a runner is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// A candidate (if healthy and reputable).
    Active,
    /// Left candidacy; its self-bond is withdrawable at `release_at`.
    Unbonding,
    /// Self-bond withdrawn; the record lives on while delegations remain.
    Exited,
}

impl Status {
    /// Its wire name.
    pub fn name(self) -> &'static str {
        match self {
            Status::Active => "active",
            Status::Unbonding => "unbonding",
            Status::Exited => "exited",
        }
    }
    fn parse(s: &str) -> Option<Status> {
        [Status::Active, Status::Unbonding, Status::Exited]
            .into_iter()
            .find(|x| x.name() == s)
    }
}

/// A runner's stake: its self-bond and its two delegation pools (share accounting).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stake {
    /// Life stage.
    pub status: Status,
    /// The runner's own stake.
    pub self_bond: u128,
    /// When unbonding: first height its self-bond may be withdrawn.
    pub release_at: u64,
    /// Delegated stake in the bonded pool.
    pub pool_tokens: u128,
    /// Shares of the bonded pool held by delegators.
    pub pool_shares: u128,
    /// Delegated stake unbonding.
    pub unbonding_tokens: u128,
    /// Shares of the unbonding pool held by tranches.
    pub unbonding_shares: u128,
    /// Delegators with shares in the bonded pool.
    pub delegators: u64,
}

impl Stake {
    /// Self-bond plus bonded delegations: what selection weight and the stake floor use.
    pub fn effective(&self) -> u128 {
        self.self_bond.saturating_add(self.pool_tokens)
    }

    /// Everything slashable: the self-bond and both pools.
    pub fn slashable(&self) -> u128 {
        self.effective().saturating_add(self.unbonding_tokens)
    }
}

/// A runner's reputation and job counters (kept apart from the profile: they change often).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rep {
    /// 0..=`runner_max_reputation`.
    pub reputation: u64,
    /// Consecutive persistent non-responses (CIP-2 §6).
    pub failures: u64,
    /// Jobs assigned and not yet finished.
    pub active_jobs: u64,
}

/// A delegator's unbonding tranche.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unbond {
    /// The runner it was delegated to.
    pub runner: Address,
    /// Shares of that runner's unbonding pool.
    pub shares: u128,
    /// First height it may be withdrawn.
    pub release_at: u64,
}

/// A registered model (whitepaper §5.1).
#[derive(Clone, Debug, PartialEq)]
pub struct Model {
    /// Who published it (and gets the deposit back on retiring it).
    pub publisher: Address,
    /// Deposit held (0 once retired).
    pub deposit: u128,
    /// Publisher-supplied metadata (bounded CBOR).
    pub metadata: Value,
    /// Height of publication.
    pub registered_at: u64,
    /// Retired by its publisher.
    pub retired: bool,
}

fn t(s: &str) -> Value {
    Value::Text(s.into())
}

fn h(x: &Hash32) -> Value {
    Value::Bytes(x.0.to_vec())
}

/// An address as CBOR bytes.
pub fn addr_value(a: &Address) -> Value {
    Value::Bytes(a.0.to_vec())
}

/// Field access on a decoded text-keyed map; `None` for absent or mistyped fields.
pub struct Fields<'a>(pub &'a [(Value, Value)]);

impl<'a> Fields<'a> {
    /// The map's entries, or `None` if `v` is not a map.
    pub fn of(v: &'a Value) -> Option<Fields<'a>> {
        match v {
            Value::Map(m) => Some(Fields(m)),
            _ => None,
        }
    }
    /// Field `name`.
    pub fn get(&self, name: &str) -> Option<&'a Value> {
        self.0
            .iter()
            .find(|(k, _)| matches!(k, Value::Text(x) if x == name))
            .map(|(_, v)| v)
    }
    fn u64(&self, name: &str) -> Option<u64> {
        self.get(name)?.as_u64()
    }
    fn u128(&self, name: &str) -> Option<u128> {
        self.get(name)?.as_u128()
    }
    fn text(&self, name: &str) -> Option<&'a str> {
        match self.get(name)? {
            Value::Text(s) => Some(s),
            _ => None,
        }
    }
    fn bool(&self, name: &str) -> Option<bool> {
        match self.get(name)? {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }
    fn array(&self, name: &str) -> Option<&'a [Value]> {
        match self.get(name)? {
            Value::Array(a) => Some(a),
            _ => None,
        }
    }
}

/// 32 bytes from a CBOR byte string.
pub fn bytes32(v: &Value) -> Option<[u8; 32]> {
    match v {
        Value::Bytes(b) => b.as_slice().try_into().ok(),
        _ => None,
    }
}

/// 20 bytes from a CBOR byte string.
pub fn address_of(v: &Value) -> Option<Address> {
    match v {
        Value::Bytes(b) => b.as_slice().try_into().ok().map(Address),
        _ => None,
    }
}

impl Rate {
    /// CBOR form.
    pub fn to_value(&self) -> Value {
        Value::Map(vec![
            (t("job_type"), t(self.job_type.name())),
            (t("model"), self.model.as_ref().map_or(Value::Null, h)),
            (t("base"), Value::from_u128(self.base)),
            (t("per_token"), Value::from_u128(self.per_token)),
            (t("per_ms"), Value::from_u128(self.per_ms)),
        ])
    }
}

impl Profile {
    /// CBOR form.
    pub fn to_value(&self) -> Value {
        let mut fields = vec![
            (t("key"), Value::Bytes(self.key.to_vec())),
            (
                t("job_types"),
                Value::Array(self.job_types.iter().map(|j| t(j.name())).collect()),
            ),
            (
                t("models"),
                Value::Array(self.models.iter().map(h).collect()),
            ),
            (
                t("domains"),
                Value::Array(self.domains.iter().map(|d| t(d)).collect()),
            ),
            (t("tee"), Value::Bool(self.tee)),
            (
                t("rates"),
                Value::Array(self.rates.iter().map(Rate::to_value).collect()),
            ),
            (
                t("max_concurrent_jobs"),
                Value::Uint(self.max_concurrent_jobs),
            ),
            (t("max_job_value"), Value::from_u128(self.max_job_value)),
            (t("commission_bps"), Value::Uint(self.commission_bps)),
            (t("registered_at"), Value::Uint(self.registered_at)),
        ];
        if let Some(url) = &self.endpoint {
            fields.push((t("endpoint"), t(url)));
        }
        Value::Map(fields)
    }

    /// Decode a stored profile.
    pub fn from_value(v: &Value) -> Result<Profile, CallError> {
        let bad = || corrupt("runner profile");
        let f = Fields::of(v).ok_or_else(bad)?;
        let job_types = f
            .array("job_types")
            .ok_or_else(bad)?
            .iter()
            .map(|j| match j {
                Value::Text(s) => JobType::parse(s),
                _ => None,
            })
            .collect::<Option<Vec<_>>>()
            .ok_or_else(bad)?;
        let models = f
            .array("models")
            .ok_or_else(bad)?
            .iter()
            .map(|m| bytes32(m).map(Hash32))
            .collect::<Option<Vec<_>>>()
            .ok_or_else(bad)?;
        let domains = f
            .array("domains")
            .ok_or_else(bad)?
            .iter()
            .map(|d| match d {
                Value::Text(s) => Some(s.clone()),
                _ => None,
            })
            .collect::<Option<Vec<_>>>()
            .ok_or_else(bad)?;
        let rates = f
            .array("rates")
            .ok_or_else(bad)?
            .iter()
            .map(|r| {
                let r = Fields::of(r)?;
                Some(Rate {
                    job_type: JobType::parse(r.text("job_type")?)?,
                    model: match r.get("model")? {
                        Value::Null => None,
                        m => Some(Hash32(bytes32(m)?)),
                    },
                    base: r.u128("base")?,
                    per_token: r.u128("per_token")?,
                    per_ms: r.u128("per_ms")?,
                })
            })
            .collect::<Option<Vec<_>>>()
            .ok_or_else(bad)?;
        Ok(Profile {
            key: bytes32(f.get("key").ok_or_else(bad)?).ok_or_else(bad)?,
            job_types,
            models,
            domains,
            tee: f.bool("tee").ok_or_else(bad)?,
            rates,
            max_concurrent_jobs: f.u64("max_concurrent_jobs").ok_or_else(bad)?,
            max_job_value: f.u128("max_job_value").ok_or_else(bad)?,
            commission_bps: f.u64("commission_bps").ok_or_else(bad)?,
            registered_at: f.u64("registered_at").ok_or_else(bad)?,
            endpoint: match f.get("endpoint") {
                None => None,
                Some(Value::Text(url)) => Some(url.clone()),
                Some(_) => return Err(bad()),
            },
        })
    }
}

impl Stake {
    /// CBOR form.
    pub fn to_value(&self) -> Value {
        Value::Map(vec![
            (t("status"), t(self.status.name())),
            (t("self_bond"), Value::from_u128(self.self_bond)),
            (t("release_at"), Value::Uint(self.release_at)),
            (t("pool_tokens"), Value::from_u128(self.pool_tokens)),
            (t("pool_shares"), Value::from_u128(self.pool_shares)),
            (
                t("unbonding_tokens"),
                Value::from_u128(self.unbonding_tokens),
            ),
            (
                t("unbonding_shares"),
                Value::from_u128(self.unbonding_shares),
            ),
            (t("delegators"), Value::Uint(self.delegators)),
        ])
    }

    /// Decode a stored stake record.
    pub fn from_value(v: &Value) -> Result<Stake, CallError> {
        let f = Fields::of(v).ok_or_else(|| corrupt("stake"))?;
        (|| {
            Some(Stake {
                status: Status::parse(f.text("status")?)?,
                self_bond: f.u128("self_bond")?,
                release_at: f.u64("release_at")?,
                pool_tokens: f.u128("pool_tokens")?,
                pool_shares: f.u128("pool_shares")?,
                unbonding_tokens: f.u128("unbonding_tokens")?,
                unbonding_shares: f.u128("unbonding_shares")?,
                delegators: f.u64("delegators")?,
            })
        })()
        .ok_or_else(|| corrupt("stake"))
    }
}

impl Rep {
    /// CBOR form.
    pub fn to_value(&self) -> Value {
        Value::Map(vec![
            (t("reputation"), Value::Uint(self.reputation)),
            (t("failures"), Value::Uint(self.failures)),
            (t("active_jobs"), Value::Uint(self.active_jobs)),
        ])
    }

    /// Decode a stored reputation record.
    pub fn from_value(v: &Value) -> Result<Rep, CallError> {
        let f = Fields::of(v).ok_or_else(|| corrupt("rep"))?;
        (|| {
            Some(Rep {
                reputation: f.u64("reputation")?,
                failures: f.u64("failures")?,
                active_jobs: f.u64("active_jobs")?,
            })
        })()
        .ok_or_else(|| corrupt("rep"))
    }
}

impl Unbond {
    /// CBOR form.
    pub fn to_value(&self) -> Value {
        Value::Map(vec![
            (t("runner"), addr_value(&self.runner)),
            (t("shares"), Value::from_u128(self.shares)),
            (t("release_at"), Value::Uint(self.release_at)),
        ])
    }

    /// Decode a stored tranche.
    pub fn from_value(v: &Value) -> Result<Unbond, CallError> {
        let f = Fields::of(v).ok_or_else(|| corrupt("unbond"))?;
        (|| {
            Some(Unbond {
                runner: address_of(f.get("runner")?)?,
                shares: f.u128("shares")?,
                release_at: f.u64("release_at")?,
            })
        })()
        .ok_or_else(|| corrupt("unbond"))
    }
}

impl Model {
    /// CBOR form.
    pub fn to_value(&self) -> Value {
        Value::Map(vec![
            (t("publisher"), addr_value(&self.publisher)),
            (t("deposit"), Value::from_u128(self.deposit)),
            (t("metadata"), self.metadata.clone()),
            (t("registered_at"), Value::Uint(self.registered_at)),
            (t("retired"), Value::Bool(self.retired)),
        ])
    }

    /// Decode a stored model.
    pub fn from_value(v: &Value) -> Result<Model, CallError> {
        let f = Fields::of(v).ok_or_else(|| corrupt("model"))?;
        (|| {
            Some(Model {
                publisher: address_of(f.get("publisher")?)?,
                deposit: f.u128("deposit")?,
                metadata: f.get("metadata")?.clone(),
                registered_at: f.u64("registered_at")?,
                retired: f.bool("retired")?,
            })
        })()
        .ok_or_else(|| corrupt("model"))
    }
}

/// A `(shares)` or `(count, next)` pair record.
pub fn pair_value(a: u128, b: u64) -> Value {
    Value::Array(vec![Value::from_u128(a), Value::Uint(b)])
}

/// Decode [`pair_value`].
pub fn pair_from(v: &Value) -> Result<(u128, u64), CallError> {
    match v {
        Value::Array(x) => match x.as_slice() {
            [a, Value::Uint(b)] => a.as_u128().map(|a| (a, *b)),
            _ => None,
        },
        _ => None,
    }
    .ok_or_else(|| corrupt("pair"))
}
