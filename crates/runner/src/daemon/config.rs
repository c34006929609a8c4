//! The operator's configuration: a TOML file (README, "Quickstart" shows one), whose `node`,
//! `key_file` and `data_dir` the command line may override, and the key file holding the
//! runner's two keys. The profile section is what the daemon registers (or checks its
//! registration against) at start; it is checked by the registry's own parsers, so a profile
//! the chain would refuse is refused here, with the chain's field names.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use cowboy_exec::system::runners::profile::{parse_capabilities, parse_rates, Capabilities};
use cowboy_exec::system::runners::records::Rate;
use cowboy_types::cbor::Value;
use cowboy_types::hash::parse_hex;
use cowboy_types::{GenesisParams, Hash32, PrivateKey};
use serde::Deserialize;

use super::reveal::ResultKey;
use super::simulate::Behaviour;

/// An amount of wei: a TOML integer, or a decimal string for amounts beyond 2^63.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Wei(pub u128);

impl<'de> Deserialize<'de> for Wei {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Wei, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Int(u64),
            Text(String),
        }
        match Raw::deserialize(d)? {
            Raw::Int(n) => Ok(Wei(u128::from(n))),
            Raw::Text(s) => s
                .parse()
                .map(Wei)
                .map_err(|_| serde::de::Error::custom(format!("{s:?} is not an amount of wei"))),
        }
    }
}

/// The whole configuration file.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// The node's JSON-RPC URL (`http://host:port`).
    pub node: String,
    /// The key file (see [`Keys`]).
    pub key_file: PathBuf,
    /// Where the journal lives.
    pub data_dir: PathBuf,
    /// Where the reveal inbox and `/metrics` listen.
    #[serde(default = "default_listen")]
    pub listen: SocketAddr,
    /// The inbox URL published in the profile (default: `http://` + `listen`).
    pub endpoint: Option<String>,
    /// Register at start if the runner is not registered.
    #[serde(default)]
    pub register: bool,
    /// The self-bond sent with `register`.
    #[serde(default)]
    pub stake: Wei,
    /// Blocks between heartbeats (the chain counts a runner healthy for
    /// `runner_heartbeat_timeout_blocks`, 100 at genesis, after its last one).
    #[serde(default = "default_heartbeat")]
    pub heartbeat_every_blocks: u64,
    /// Jobs whose records are kept this many blocks after they finish.
    #[serde(default = "default_keep")]
    pub keep_finished_blocks: u64,
    /// What the runner declares.
    pub profile: ProfileConfig,
    /// The HTTP executor.
    #[serde(default)]
    pub http: HttpSection,
    /// The LLM executor: one `[[llm]]` table per model served.
    #[serde(default)]
    pub llm: Vec<LlmModelSection>,
    /// The MCP executor.
    #[serde(default)]
    pub mcp: McpSection,
    /// Testing only: a simulated misbehaviour (README, "Simulator"); refused unless the node
    /// is a dev chain.
    #[serde(default)]
    pub simulate: SimulateSection,
}

/// `[simulate]`: how a test runner misbehaves. Never set by an operator.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SimulateSection {
    /// `honest` (the default), `slow=MS`, `wrong`, `silent`, `garbage`, `oversized` or
    /// `lying_usage`.
    #[serde(default)]
    pub behaviour: Behaviour,
}

fn default_listen() -> SocketAddr {
    SocketAddr::from(([127, 0, 0, 1], 9400))
}

fn default_heartbeat() -> u64 {
    25
}

fn default_keep() -> u64 {
    10_000
}

/// The profile the runner registers.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProfileConfig {
    /// `llm`, `http`, `mcp`, `custom`.
    pub job_types: Vec<String>,
    /// Model hashes (`0x…`), for LLM runners.
    #[serde(default)]
    pub models: Vec<String>,
    /// HTTP domains, for HTTP runners.
    #[serde(default)]
    pub domains: Vec<String>,
    /// Runs in a TEE.
    #[serde(default)]
    pub tee: bool,
    /// The rate card.
    pub rates: Vec<RateConfig>,
    /// Jobs taken at once; also the daemon's own bound on concurrent executions.
    pub max_concurrent_jobs: u64,
    /// The largest job value declared.
    #[serde(default)]
    pub max_job_value: Wei,
    /// Commission on delegators' share, basis points.
    #[serde(default)]
    pub commission_bps: u64,
}

/// One rate-card entry.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RateConfig {
    /// The job type.
    pub job_type: String,
    /// The model (LLM entries).
    pub model: Option<String>,
    /// Price per job.
    #[serde(default)]
    pub base: Wei,
    /// Price per token.
    #[serde(default)]
    pub per_token: Wei,
    /// Price per millisecond.
    #[serde(default)]
    pub per_ms: Wei,
}

/// The HTTP executor's operator settings.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HttpSection {
    /// Fixed addresses for names, as curl's `--resolve`: `[["api.example.com",
    /// "10.0.0.5:443"]]`.
    #[serde(default)]
    pub resolve: Vec<(String, SocketAddr)>,
    /// A PEM file of extra root certificates.
    pub extra_roots: Option<PathBuf>,
    /// Fetch `http://` URLs too.
    #[serde(default)]
    pub allow_plain_http: bool,
    /// Fetch from hosts outside the public address space too (loopback, private networks,
    /// link-local): only for a runner on a network with nothing to protect.
    #[serde(default)]
    pub allow_private_addresses: bool,
}

/// One model the LLM executor serves (README, "The LLM executor").
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LlmModelSection {
    /// The model's registry hash (`0x…`), which its four files must hash to.
    pub hash: String,
    /// The weights file.
    pub weights: PathBuf,
    /// The architecture file (e.g. `config.json`).
    pub arch: PathBuf,
    /// The tokenizer file.
    pub tokenizer: PathBuf,
    /// The license text.
    pub license: PathBuf,
    /// The OpenAI-compatible engine's base URL, up to `/v1`.
    pub base_url: String,
    /// The model's name on that engine.
    pub served_name: String,
    /// A bearer token for the engine.
    pub api_key: Option<String>,
}

/// The MCP executor's servers, by the name jobs use.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct McpSection {
    /// `[mcp.servers.NAME]`: `command` (with `args`, `env`) for a stdio server, or `url` for
    /// a streamable HTTP one.
    #[serde(default)]
    pub servers: std::collections::BTreeMap<String, McpServerSection>,
    /// A PEM file of extra root certificates for HTTPS servers.
    pub extra_roots: Option<PathBuf>,
}

/// One MCP server: exactly one of `command` and `url`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct McpServerSection {
    /// The program of a stdio server.
    pub command: Option<String>,
    /// Its arguments.
    #[serde(default)]
    pub args: Vec<String>,
    /// Variables added to its environment.
    #[serde(default)]
    pub env: std::collections::BTreeMap<String, String>,
    /// The URL of a streamable HTTP server.
    pub url: Option<String>,
}

/// What is wrong with a configuration.
#[derive(Debug)]
pub enum ConfigError {
    /// A file could not be read.
    Read(PathBuf, std::io::Error),
    /// A file is not valid TOML of the expected shape.
    Parse(PathBuf, String),
    /// A field is invalid (its name and why), e.g. the chain's registry refusing the profile.
    Field(String, String),
}

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ConfigError::Read(p, e) => write!(f, "{}: {e}", p.display()),
            ConfigError::Parse(p, e) => write!(f, "{}: {e}", p.display()),
            ConfigError::Field(field, why) => write!(f, "{field}: {why}"),
        }
    }
}

impl std::error::Error for ConfigError {}

fn read(path: &Path) -> Result<String, ConfigError> {
    std::fs::read_to_string(path).map_err(|e| ConfigError::Read(path.to_path_buf(), e))
}

impl Config {
    /// Reads a configuration file.
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        toml::from_str(&read(path)?)
            .map_err(|e| ConfigError::Parse(path.to_path_buf(), e.to_string()))
    }

    /// The inbox URL the profile publishes.
    pub fn endpoint(&self) -> String {
        self.endpoint
            .clone()
            .unwrap_or_else(|| format!("http://{}", self.listen))
    }

    /// The capabilities argument of `register` / `update` (with the endpoint).
    pub fn capabilities(&self) -> Result<Value, ConfigError> {
        let p = &self.profile;
        let text = |s: &String| Value::Text(s.clone());
        let models = p
            .models
            .iter()
            .map(|m| hash(m, "profile.models").map(|h| Value::Bytes(h.0.to_vec())))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Value::Map(vec![
            (
                t("job_types"),
                Value::Array(p.job_types.iter().map(text).collect()),
            ),
            (t("models"), Value::Array(models)),
            (
                t("domains"),
                Value::Array(p.domains.iter().map(text).collect()),
            ),
            (t("tee"), Value::Bool(p.tee)),
            (t("endpoint"), Value::Text(self.endpoint())),
        ]))
    }

    /// The rates argument of `register` / `update`.
    pub fn rates(&self) -> Result<Value, ConfigError> {
        self.profile
            .rates
            .iter()
            .map(|r| {
                let model = match &r.model {
                    None => Value::Null,
                    Some(m) => Value::Bytes(hash(m, "profile.rates.model")?.0.to_vec()),
                };
                Ok(Value::Map(vec![
                    (t("job_type"), Value::Text(r.job_type.clone())),
                    (t("model"), model),
                    (t("base"), Value::from_u128(r.base.0)),
                    (t("per_token"), Value::from_u128(r.per_token.0)),
                    (t("per_ms"), Value::from_u128(r.per_ms.0)),
                ]))
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Value::Array)
    }

    /// The profile as the registry would store it (its own parsers, genesis limits): what the
    /// registration on chain is compared with.
    pub fn checked_profile(&self) -> Result<(Capabilities, Vec<Rate>), ConfigError> {
        let p = GenesisParams::default();
        let refused = |e: cowboy_exec::system::runners::error::RegistryError| {
            ConfigError::Field("profile".into(), e.to_string())
        };
        let caps = parse_capabilities(&self.capabilities()?, &p).map_err(refused)?;
        let rates = parse_rates(&self.rates()?, &caps, &p).map_err(refused)?;
        Ok((caps, rates))
    }

    /// The `register` / `update` arguments after the key: capabilities, rates,
    /// max_concurrent_jobs, max_job_value, commission_bps.
    pub fn profile_args(&self) -> Result<Vec<Value>, ConfigError> {
        Ok(vec![
            self.capabilities()?,
            self.rates()?,
            Value::Uint(self.profile.max_concurrent_jobs),
            Value::from_u128(self.profile.max_job_value.0),
            Value::Uint(self.profile.commission_bps),
        ])
    }
}

fn t(s: &str) -> Value {
    Value::Text(s.into())
}

fn hash(s: &str, field: &str) -> Result<Hash32, ConfigError> {
    Hash32::from_hex(s)
        .ok_or_else(|| ConfigError::Field(field.into(), format!("{s:?} is not 32 bytes of hex")))
}

/// The key file: TOML with the account key (secp256k1: signs transactions, pays fees, holds
/// the stake) and the result key (an Ed25519 seed: signs results), each 32 bytes of hex.
///
/// ```toml
/// account_key = "0x…"
/// result_key = "0x…"
/// ```
pub struct Keys {
    /// The account key.
    pub account: PrivateKey,
    /// The result key.
    pub result: ResultKey,
}

impl Keys {
    /// Reads a key file.
    pub fn load(path: &Path) -> Result<Keys, ConfigError> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Raw {
            account_key: String,
            result_key: String,
        }
        let raw: Raw = toml::from_str(&read(path)?)
            .map_err(|e| ConfigError::Parse(path.to_path_buf(), e.to_string()))?;
        let bytes32 = |s: &str, field: &str| -> Result<[u8; 32], ConfigError> {
            parse_hex(s.strip_prefix("0x").unwrap_or(s))
                .and_then(|b| b.try_into().ok())
                .ok_or_else(|| ConfigError::Field(field.into(), "must be 32 bytes of hex".into()))
        };
        let account = PrivateKey::from_bytes(&bytes32(&raw.account_key, "account_key")?)
            .map_err(|e| ConfigError::Field("account_key".into(), e.to_string()))?;
        let result = ResultKey::from_seed(bytes32(&raw.result_key, "result_key")?)
            .ok_or_else(|| ConfigError::Field("result_key".into(), "not an Ed25519 seed".into()))?;
        Ok(Keys { account, result })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CONFIG: &str = r#"
node = "http://127.0.0.1:8545"
key_file = "keys.toml"
data_dir = "data"
listen = "127.0.0.1:9401"
register = true
stake = "10000000000000000000000"

[profile]
job_types = ["http"]
domains = ["api.example.com"]
rates = [{ job_type = "http", base = 1000 }]
max_concurrent_jobs = 4
"#;

    #[test]
    fn a_config_parses_and_its_profile_is_checked_by_the_registry_rules() {
        let c: Config = toml::from_str(CONFIG).expect("parses");
        assert_eq!(c.stake, Wei(10_000 * 10u128.pow(18)));
        assert_eq!(c.endpoint(), "http://127.0.0.1:9401");
        let (caps, rates) = c.checked_profile().expect("a valid profile");
        assert_eq!(caps.domains, vec!["api.example.com".to_string()]);
        assert_eq!(caps.endpoint.as_deref(), Some("http://127.0.0.1:9401"));
        assert_eq!(rates[0].base, 1000);

        let mut bad = c.clone();
        bad.profile.domains = vec!["API.example.com".into()];
        let e = bad.checked_profile().expect_err("the registry refuses it");
        assert!(e.to_string().contains("capabilities.domains[0]"), "{e}");
        assert!(toml::from_str::<Config>(&format!("{CONFIG}\nsurprise = 1")).is_err());
    }

    #[test]
    fn llm_models_and_mcp_servers_are_configured_by_section() {
        let text = format!(
            r#"{CONFIG}
[[llm]]
hash = "0x{h}"
weights = "m/model.safetensors"
arch = "m/config.json"
tokenizer = "m/tokenizer.json"
license = "m/LICENSE"
base_url = "http://127.0.0.1:8000/v1"
served_name = "tiny"

[mcp.servers.files]
command = "mcp-files"
args = ["--root", "/srv"]

[mcp.servers.search]
url = "https://mcp.example.com/mcp"
"#,
            h = "ab".repeat(32)
        );
        let c: Config = toml::from_str(&text).expect("parses");
        assert_eq!(c.llm.len(), 1);
        assert_eq!(c.llm[0].served_name, "tiny");
        assert_eq!(c.llm[0].api_key, None);
        assert_eq!(c.mcp.servers["files"].args, vec!["--root", "/srv"]);
        assert_eq!(
            c.mcp.servers["search"].url.as_deref(),
            Some("https://mcp.example.com/mcp")
        );
        let typo = text.replace("served_name", "servedname");
        assert!(
            toml::from_str::<Config>(&typo).is_err(),
            "an unknown key is refused"
        );
    }

    #[test]
    fn a_simulated_behaviour_is_a_section_and_an_unknown_one_is_refused() {
        let with = |b: &str| format!("{CONFIG}\n[simulate]\nbehaviour = \"{b}\"\n");
        let c: Config = toml::from_str(&with("slow=250")).expect("parses");
        assert_eq!(c.simulate.behaviour, Behaviour::Slow(250));
        let c: Config = toml::from_str(CONFIG).expect("parses");
        assert_eq!(c.simulate.behaviour, Behaviour::Honest);
        let e = toml::from_str::<Config>(&with("lie")).expect_err("refused");
        assert!(e.to_string().contains("not a behaviour"), "{e}");
    }
}
