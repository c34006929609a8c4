//! Checking what a runner declares (`register`, `update`): the Ed25519 key, capabilities,
//! rate card and limits, each bad field a [`RegistryError`] naming it. Every list is bounded
//! by a genesis limit checked before it is walked, so a profile's worst-case checking work is
//! a constant the handler's base price covers. Whether the models exist is the handler's
//! (metered) read, not this module's.

use cowboy_types::cbor::Value;
use cowboy_types::genesis::GenesisParams;
use cowboy_types::Hash32;
use curve25519_dalek::edwards::CompressedEdwardsY;

use super::error::RegistryError;
use super::records::{bytes32, Fields, JobType, Rate};

/// The longest DNS name (RFC 1035).
const MAX_DOMAIN_BYTES: usize = 253;
/// The longest endpoint URL a runner may declare (a bounded profile: its worst case stays a
/// constant the handler's base price covers).
pub const MAX_ENDPOINT_BYTES: usize = 256;

fn bad(field: impl Into<String>, reason: impl Into<String>) -> RegistryError {
    RegistryError::BadField {
        field: field.into(),
        reason: reason.into(),
    }
}

/// An Ed25519 public key: 32 bytes that decompress to a curve point not of small order (a
/// small-order key would make a signature that verifies for many messages).
pub fn parse_key(v: &Value) -> Result<[u8; 32], RegistryError> {
    let bytes = bytes32(v).ok_or(RegistryError::BadKey("must be 32 bytes"))?;
    let point = CompressedEdwardsY(bytes)
        .decompress()
        .ok_or(RegistryError::BadKey("not a point on the Ed25519 curve"))?;
    if point.is_small_order() {
        return Err(RegistryError::BadKey("a small-order point"));
    }
    Ok(bytes)
}

/// Declared capabilities.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Capabilities {
    /// Canonical order, no repeats, at least one.
    pub job_types: Vec<JobType>,
    /// Sorted, no repeats; present iff `llm` is declared.
    pub models: Vec<Hash32>,
    /// Sorted, no repeats; present iff `http` is declared.
    pub domains: Vec<String>,
    /// TEE support.
    pub tee: bool,
    /// Where the runner takes other runners' results when it aggregates (CIP-2 §8's "direct
    /// HTTP push"): an `http://` or `https://` URL, if it declares one.
    pub endpoint: Option<String>,
}

fn check_len(field: &'static str, n: usize, max: u64) -> Result<(), RegistryError> {
    if n as u64 > max {
        return Err(RegistryError::TooMany {
            field,
            got: n as u64,
            max,
        });
    }
    Ok(())
}

fn array<'a>(f: &Fields<'a>, name: &str, field: &str) -> Result<&'a [Value], RegistryError> {
    match f.get(name) {
        None => Ok(&[]),
        Some(Value::Array(a)) => Ok(a),
        Some(_) => Err(bad(field, "must be a list")),
    }
}

/// Sort and refuse repeats.
fn sorted_unique<T: Ord + Clone>(mut v: Vec<T>, field: &str) -> Result<Vec<T>, RegistryError> {
    v.sort();
    if v.windows(2).any(|w| w[0] == w[1]) {
        return Err(bad(field, "lists an entry twice"));
    }
    Ok(v)
}

/// A lowercase DNS host name: labels of `a-z`, `0-9`, `-` (not at a label's ends), 1 to 63
/// bytes each, joined by dots, at most 253 bytes.
fn check_domain(d: &str) -> Result<(), &'static str> {
    if d.is_empty() || d.len() > MAX_DOMAIN_BYTES {
        return Err("must be 1 to 253 bytes");
    }
    for label in d.split('.') {
        if label.is_empty() || label.len() > 63 {
            return Err("every label must be 1 to 63 bytes");
        }
        if label.starts_with('-') || label.ends_with('-') {
            return Err("a label may not start or end with '-'");
        }
        if !label
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        {
            return Err("only lowercase a-z, 0-9, '-' and '.'");
        }
    }
    Ok(())
}

/// An endpoint URL: `http://` or `https://`, a non-empty host, at most
/// [`MAX_ENDPOINT_BYTES`] of printable ASCII without spaces. Only its form is checked: whether
/// anything answers there is for the runners that push to it to find out.
fn check_endpoint(url: &str) -> Result<(), &'static str> {
    if url.is_empty() || url.len() > MAX_ENDPOINT_BYTES {
        return Err("must be 1 to 256 bytes");
    }
    if !url.bytes().all(|b| b.is_ascii_graphic()) {
        return Err("only printable ASCII without spaces");
    }
    let rest = url
        .strip_prefix("http://")
        .or_else(|| url.strip_prefix("https://"))
        .ok_or("must start with http:// or https://")?;
    let host = rest.split(['/', '?', '#']).next().unwrap_or_default();
    if host.is_empty() || host.starts_with(':') || host.contains('@') {
        return Err("must name a host (and no user info)");
    }
    Ok(())
}

/// Parse `{"job_types": [...], "models": [...], "domains": [...], "tee": bool, "endpoint":
/// url}` (`models`, `domains`, `tee` and `endpoint` may be left out).
pub fn parse_capabilities(v: &Value, p: &GenesisParams) -> Result<Capabilities, RegistryError> {
    let f = Fields::of(v).ok_or_else(|| bad("capabilities", "must be a map"))?;
    for (k, _) in f.0 {
        match k {
            Value::Text(k)
                if ["job_types", "models", "domains", "tee", "endpoint"].contains(&k.as_str()) => {}
            Value::Text(k) => return Err(bad(format!("capabilities.{k}"), "unknown field")),
            _ => return Err(bad("capabilities", "keys must be text")),
        }
    }
    let raw = array(&f, "job_types", "capabilities.job_types")?;
    check_len(
        "capabilities.job_types",
        raw.len(),
        JobType::ALL.len() as u64,
    )?;
    let mut job_types = Vec::with_capacity(raw.len());
    for (i, j) in raw.iter().enumerate() {
        let field = format!("capabilities.job_types[{i}]");
        let Value::Text(s) = j else {
            return Err(bad(field, "must be text"));
        };
        job_types
            .push(JobType::parse(s).ok_or_else(|| bad(field, "one of llm, http, mcp, custom"))?);
    }
    if job_types.is_empty() {
        return Err(bad(
            "capabilities.job_types",
            "declare at least one job type",
        ));
    }
    let job_types = sorted_unique(job_types, "capabilities.job_types")?;

    let raw = array(&f, "models", "capabilities.models")?;
    check_len("capabilities.models", raw.len(), p.runner_max_models)?;
    let mut models = Vec::with_capacity(raw.len());
    for (i, m) in raw.iter().enumerate() {
        let m = bytes32(m)
            .ok_or_else(|| bad(format!("capabilities.models[{i}]"), "must be 32 bytes"))?;
        models.push(Hash32(m));
    }
    let models = sorted_unique(models, "capabilities.models")?;
    let llm = job_types.contains(&JobType::Llm);
    if llm && models.is_empty() {
        return Err(bad(
            "capabilities.models",
            "an llm runner declares its models",
        ));
    }
    if !llm && !models.is_empty() {
        return Err(bad("capabilities.models", "models are for llm runners"));
    }

    let raw = array(&f, "domains", "capabilities.domains")?;
    check_len("capabilities.domains", raw.len(), p.runner_max_domains)?;
    let mut domains = Vec::with_capacity(raw.len());
    for (i, d) in raw.iter().enumerate() {
        let field = format!("capabilities.domains[{i}]");
        let Value::Text(s) = d else {
            return Err(bad(field, "must be text"));
        };
        check_domain(s).map_err(|why| bad(field, why))?;
        domains.push(s.clone());
    }
    let domains = sorted_unique(domains, "capabilities.domains")?;
    let http = job_types.contains(&JobType::Http);
    if http && domains.is_empty() {
        return Err(bad(
            "capabilities.domains",
            "an http runner declares its domains",
        ));
    }
    if !http && !domains.is_empty() {
        return Err(bad("capabilities.domains", "domains are for http runners"));
    }

    let tee = match f.get("tee") {
        None => false,
        Some(Value::Bool(b)) => *b,
        Some(_) => return Err(bad("capabilities.tee", "must be a bool")),
    };
    let endpoint = match f.get("endpoint") {
        None => None,
        Some(Value::Text(url)) => {
            check_endpoint(url).map_err(|why| bad("capabilities.endpoint", why))?;
            Some(url.clone())
        }
        Some(_) => return Err(bad("capabilities.endpoint", "must be text")),
    };
    Ok(Capabilities {
        job_types,
        models,
        domains,
        tee,
        endpoint,
    })
}

fn price(r: &Fields<'_>, name: &str, field: &str) -> Result<u128, RegistryError> {
    match r.get(name) {
        None => Ok(0),
        Some(v) => v.as_u128().ok_or_else(|| {
            bad(
                format!("{field}.{name}"),
                "must be a non-negative int < 2^128",
            )
        }),
    }
}

/// Parse the rate card: a list of `{"job_type", "model" (llm only), "base", "per_token",
/// "per_ms"}` (prices in wei, absent = 0). Every declared job type is priced; an llm entry
/// names a declared model and every declared model is priced; no (job type, model) twice.
pub fn parse_rates(
    v: &Value,
    caps: &Capabilities,
    p: &GenesisParams,
) -> Result<Vec<Rate>, RegistryError> {
    let Value::Array(raw) = v else {
        return Err(bad("rates", "must be a list"));
    };
    check_len("rates", raw.len(), p.runner_max_rates)?;
    let mut rates = Vec::with_capacity(raw.len());
    for (i, r) in raw.iter().enumerate() {
        let field = format!("rates[{i}]");
        let f = Fields::of(r).ok_or_else(|| bad(&field, "must be a map"))?;
        for (k, _) in f.0 {
            match k {
                Value::Text(k)
                    if ["job_type", "model", "base", "per_token", "per_ms"]
                        .contains(&k.as_str()) => {}
                _ => return Err(bad(&field, "unknown field")),
            }
        }
        let job_type = match f.get("job_type") {
            Some(Value::Text(s)) => JobType::parse(s),
            _ => None,
        }
        .ok_or_else(|| bad(format!("{field}.job_type"), "one of llm, http, mcp, custom"))?;
        if !caps.job_types.contains(&job_type) {
            return Err(bad(
                format!("{field}.job_type"),
                format!("{} is not a declared job type", job_type.name()),
            ));
        }
        let model = match f.get("model") {
            None | Some(Value::Null) => None,
            Some(m) => {
                Some(Hash32(bytes32(m).ok_or_else(|| {
                    bad(format!("{field}.model"), "must be 32 bytes")
                })?))
            }
        };
        match (job_type, model) {
            (JobType::Llm, None) => {
                return Err(bad(format!("{field}.model"), "an llm rate names its model"))
            }
            (JobType::Llm, Some(m)) if !caps.models.contains(&m) => {
                return Err(bad(format!("{field}.model"), "not a declared model"))
            }
            (JobType::Llm, Some(_)) | (_, None) => {}
            (_, Some(_)) => {
                return Err(bad(format!("{field}.model"), "only llm rates name a model"))
            }
        }
        rates.push(Rate {
            job_type,
            model,
            base: price(&f, "base", &field)?,
            per_token: price(&f, "per_token", &field)?,
            per_ms: price(&f, "per_ms", &field)?,
        });
    }
    rates.sort_by_key(|r| (r.job_type, r.model));
    if rates
        .windows(2)
        .any(|w| (w[0].job_type, w[0].model) == (w[1].job_type, w[1].model))
    {
        return Err(bad("rates", "prices a (job type, model) twice"));
    }
    for j in &caps.job_types {
        if !rates.iter().any(|r| r.job_type == *j) {
            return Err(bad("rates", format!("no rate for job type {}", j.name())));
        }
    }
    for m in &caps.models {
        if !rates.iter().any(|r| r.model == Some(*m)) {
            return Err(bad("rates", format!("no rate for model {}", m.to_hex())));
        }
    }
    Ok(rates)
}

/// The runner's limits: `max_concurrent_jobs` in 1..=`runner_max_concurrent_jobs`,
/// `max_job_value` any amount, `commission_bps` ≤ 10,000.
pub fn parse_limits(
    max_concurrent_jobs: &Value,
    max_job_value: &Value,
    commission_bps: &Value,
    p: &GenesisParams,
) -> Result<(u64, u128, u64), RegistryError> {
    let jobs = max_concurrent_jobs
        .as_u64()
        .filter(|n| (1..=p.runner_max_concurrent_jobs).contains(n))
        .ok_or_else(|| {
            bad(
                "max_concurrent_jobs",
                format!("an int from 1 to {}", p.runner_max_concurrent_jobs),
            )
        })?;
    let value = max_job_value
        .as_u128()
        .ok_or_else(|| bad("max_job_value", "a non-negative int < 2^128"))?;
    let commission = commission_bps
        .as_u64()
        .filter(|n| *n <= 10_000)
        .ok_or_else(|| bad("commission_bps", "an int from 0 to 10000"))?;
    Ok((jobs, value, commission))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn domains() {
        for ok in ["api.example.com", "a", "x-1.y2", &"a".repeat(63)] {
            assert_eq!(check_domain(ok), Ok(()), "{ok}");
        }
        for no in [
            "",
            "Api.example.com",
            "a..b",
            ".a",
            "a.",
            "-a.b",
            "a-.b",
            "a_b",
            "*.a",
            &"a".repeat(64),
            &format!(
                "{}.{}.{}.{}",
                "a".repeat(63),
                "a".repeat(63),
                "a".repeat(63),
                "a".repeat(62)
            ),
        ] {
            assert!(check_domain(no).is_err(), "{no}");
        }
    }

    #[test]
    fn endpoints() {
        for ok in [
            "http://127.0.0.1:9000",
            "https://runner.example.com/inbox",
            "http://[::1]:80",
            &format!("https://{}", "a".repeat(248)),
        ] {
            assert_eq!(check_endpoint(ok), Ok(()), "{ok}");
        }
        for no in [
            "",
            "ftp://a",
            "http://",
            "http://:80",
            "https://u@host",
            "http://a b",
            "http://a\n",
            "runner.example.com",
            &format!("https://{}", "a".repeat(249)),
        ] {
            assert!(check_endpoint(no).is_err(), "{no}");
        }
    }

    #[test]
    fn keys() {
        use curve25519_dalek::constants::ED25519_BASEPOINT_POINT;
        use curve25519_dalek::scalar::Scalar;
        let good = (ED25519_BASEPOINT_POINT * Scalar::from(7u64)).compress().0;
        assert_eq!(parse_key(&Value::Bytes(good.to_vec())), Ok(good));
        // The identity (small order), a 31-byte string, and y = 2, which is not on the curve.
        let mut identity = [0u8; 32];
        identity[0] = 1;
        let mut off = [0u8; 32];
        off[0] = 2;
        assert_eq!(
            parse_key(&Value::Bytes(identity.to_vec())),
            Err(RegistryError::BadKey("a small-order point"))
        );
        assert_eq!(
            parse_key(&Value::Bytes(vec![1; 31])),
            Err(RegistryError::BadKey("must be 32 bytes"))
        );
        assert_eq!(
            parse_key(&Value::Bytes(off.to_vec())),
            Err(RegistryError::BadKey("not a point on the Ed25519 curve"))
        );
    }
}
