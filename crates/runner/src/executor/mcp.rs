//! The MCP executor: one tool call on a Model Context Protocol server the operator configured,
//! through the official Rust SDK (`rmcp`), over stdio (the server a child process of the
//! runner) or streamable HTTP.
//!
//! **The job's input** (`spec.input`, CBOR): `{"server": name, "tool": name, "arguments":
//! {…}}`, `server` one of the runner's configured servers (jobs never name a program or a URL:
//! what runs on the operator's machine is the operator's choice), `arguments` a map whose
//! values convert to JSON (no byte strings, no integers past 64 bits).
//!
//! **Per job**: a fresh session (a stdio server is started for the job and killed after it, so
//! no job sees another's state), `tools/list` to check the tool exists, `tools/call`, all within
//! `max_wall_ms`. The result is the tool's structured content when it gives one, else its
//! content blocks, as JSON, at most `max_return_bytes`.
//!
//! | what | fault |
//! |---|---|
//! | input malformed, server not configured, tool not listed, arguments refused by the server (`-32602`) | `actor` |
//! | server cannot be started or reached, protocol failure, the tool answering `isError`, any other server error, no answer within `max_wall_ms` | `external` |
//! | result over `max_return_bytes` | `impossible` (progress 10,000) |

use std::collections::BTreeMap;

use cowboy_types::cbor::Value;
use rmcp::model::{CallToolRequestParams, ErrorCode, JsonObject};
use rmcp::service::{RoleClient, RunningService, ServiceError};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::ServiceExt;
use serde_json::Value as Json;

use super::bounded::{bounded, measured, Failure};
use super::http::{tls_config, HttpConfigError};
use super::{FaultKind, Job, Outcome};

/// How the runner reaches one MCP server.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum McpServer {
    /// A program speaking MCP on its stdin and stdout, started for each job.
    Stdio {
        /// The program.
        program: String,
        /// Its arguments.
        args: Vec<String>,
        /// Variables added to its environment.
        env: Vec<(String, String)>,
    },
    /// A streamable HTTP endpoint (`http://` or `https://`).
    Http {
        /// The endpoint's URL.
        url: String,
    },
}

/// The operator's MCP servers, by the name jobs use.
#[derive(Clone, Debug, Default)]
pub struct McpConfig {
    /// The servers.
    pub servers: BTreeMap<String, McpServer>,
    /// PEM certificates trusted for HTTPS servers besides webpki's roots.
    pub extra_root_certs: Vec<u8>,
}

/// Why a job produced no result, each with the fault it is reported as ([`McpError::kind`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum McpError {
    /// The input is not the shape above (its reason). `actor`.
    BadInput(String),
    /// The job names a server this runner does not have. `actor`.
    UnknownServer(String),
    /// The server does not list the tool. `actor`.
    UnknownTool(String),
    /// The server refused the arguments (its message). `actor`.
    BadArguments(String),
    /// The server could not be started or reached, or the session failed (the reason).
    /// `external`.
    Unavailable(String),
    /// The tool ran and reported an error, or the server answered with one (its message).
    /// `external`.
    ToolFailed(String),
    /// No result within `max_wall_ms`. `external`.
    TimedOut,
    /// The result is larger than `max_return_bytes`. `impossible`.
    ResultTooLarge {
        /// The result's size.
        got: u64,
        /// The job's bound.
        max: u64,
    },
}

impl Failure for McpError {
    fn kind(&self) -> FaultKind {
        match self {
            McpError::BadInput(_)
            | McpError::UnknownServer(_)
            | McpError::UnknownTool(_)
            | McpError::BadArguments(_) => FaultKind::Actor,
            McpError::Unavailable(_) | McpError::ToolFailed(_) | McpError::TimedOut => {
                FaultKind::External
            }
            McpError::ResultTooLarge { .. } => FaultKind::Impossible,
        }
    }

    fn progress_bps(&self) -> u16 {
        match self {
            McpError::ResultTooLarge { .. } => 10_000,
            _ => 0,
        }
    }

    fn timed_out() -> Self {
        McpError::TimedOut
    }

    fn too_large(got: u64, max: u64) -> Self {
        McpError::ResultTooLarge { got, max }
    }
}

/// What a job asks for.
struct Call {
    server: String,
    tool: String,
    arguments: JsonObject,
}

impl Call {
    fn of(input: &Value) -> Result<Call, McpError> {
        let bad = |s: &str| McpError::BadInput(s.to_string());
        let Value::Map(m) = input else {
            return Err(bad("the input must be a map with server and tool"));
        };
        let (mut server, mut tool, mut arguments) = (None, None, JsonObject::new());
        for (k, v) in m {
            match (k, v) {
                (Value::Text(k), Value::Text(v)) if k == "server" => server = Some(v.clone()),
                (Value::Text(k), Value::Text(v)) if k == "tool" => tool = Some(v.clone()),
                (Value::Text(k), v @ Value::Map(_)) if k == "arguments" => {
                    let Json::Object(o) = json(v)? else {
                        return Err(bad("arguments: a map"));
                    };
                    arguments = o;
                }
                _ => return Err(McpError::BadInput(format!("unexpected input field {k:?}"))),
            }
        }
        Ok(Call {
            server: server.ok_or_else(|| bad("server: required text"))?,
            tool: tool.ok_or_else(|| bad("tool: required text"))?,
            arguments,
        })
    }
}

/// `v` as JSON: maps need text keys; byte strings and integers past 64 bits have no JSON form.
fn json(v: &Value) -> Result<Json, McpError> {
    let bad = |what: &str| McpError::BadInput(format!("arguments: {what} has no JSON form"));
    Ok(match v {
        Value::Uint(n) => Json::from(*n),
        Value::Nint(n) => Json::from(
            i64::try_from(*n)
                .ok()
                .and_then(|n| (-1i64).checked_sub(n))
                .ok_or_else(|| bad("an integer below -2^63"))?,
        ),
        Value::BigUint(_) | Value::BigNint(_) => return Err(bad("an integer past 64 bits")),
        Value::Bytes(_) => return Err(bad("a byte string")),
        Value::Text(t) => Json::String(t.clone()),
        Value::Array(a) => Json::Array(a.iter().map(json).collect::<Result<_, _>>()?),
        Value::Map(m) => Json::Object(
            m.iter()
                .map(|(k, v)| match k {
                    Value::Text(k) => Ok((k.clone(), json(v)?)),
                    _ => Err(bad("a map key that is not text")),
                })
                .collect::<Result<_, _>>()?,
        ),
        Value::Bool(b) => Json::Bool(*b),
        Value::Null => Json::Null,
        Value::Float(f) => serde_json::Number::from_f64(*f)
            .map(Json::Number)
            .ok_or_else(|| bad("a NaN or infinity"))?,
    })
}

/// A session's failure: a server's JSON-RPC error by its code, anything else unavailable.
fn failed(e: ServiceError) -> McpError {
    match e {
        ServiceError::McpError(e) if e.code == ErrorCode::INVALID_PARAMS => {
            McpError::BadArguments(e.message.into_owned())
        }
        ServiceError::McpError(e) => McpError::ToolFailed(e.message.into_owned()),
        e => McpError::Unavailable(e.to_string()),
    }
}

/// Executes MCP jobs on the configured servers.
pub struct McpExecutor {
    config: McpConfig,
    /// The client for HTTP servers (the HTTP executor's TLS roots; redirects not followed).
    http: reqwest::Client,
}

impl McpExecutor {
    /// An executor for `config`'s servers.
    pub fn new(config: McpConfig) -> Result<McpExecutor, HttpConfigError> {
        let http = reqwest::Client::builder()
            .tls_backend_preconfigured(tls_config(&config.extra_root_certs)?)
            .redirect(reqwest::redirect::Policy::none())
            .no_proxy()
            .build()
            .map_err(|e| HttpConfigError::Client(e.to_string()))?;
        Ok(McpExecutor { config, http })
    }

    /// Runs `job` within its bounds: its result and usage, or a fault report's kind and
    /// progress.
    pub async fn execute(&self, job: &Job) -> Outcome {
        measured(self.run(job)).await
    }

    /// The result bytes of `job`, or why there are none.
    pub async fn run(&self, job: &Job) -> Result<Vec<u8>, McpError> {
        let call = Call::of(&job.input)?;
        let server = self
            .config
            .servers
            .get(&call.server)
            .ok_or_else(|| McpError::UnknownServer(call.server.clone()))?;
        // Dropping the session on a timeout closes it; a stdio server is killed.
        bounded(job, self.call(server, call)).await
    }

    async fn connect(
        &self,
        server: &McpServer,
    ) -> Result<RunningService<RoleClient, ()>, McpError> {
        let unavailable = |e: String| McpError::Unavailable(e);
        match server {
            McpServer::Stdio { program, args, env } => {
                let mut command = tokio::process::Command::new(program);
                command.args(args).envs(env.iter().map(|(k, v)| (k, v)));
                let transport = TokioChildProcess::new(command)
                    .map_err(|e| unavailable(format!("{program}: {e}")))?;
                ().serve(transport)
                    .await
                    .map_err(|e| unavailable(e.to_string()))
            }
            McpServer::Http { url } => {
                let transport = StreamableHttpClientTransport::with_client(
                    self.http.clone(),
                    StreamableHttpClientTransportConfig::with_uri(url.as_str()),
                );
                ().serve(transport)
                    .await
                    .map_err(|e| unavailable(e.to_string()))
            }
        }
    }

    /// One session: list, call, close.
    async fn call(&self, server: &McpServer, call: Call) -> Result<Vec<u8>, McpError> {
        let session = self.connect(server).await?;
        let tools = session.list_all_tools().await.map_err(failed)?;
        if !tools.iter().any(|t| t.name == call.tool) {
            return Err(McpError::UnknownTool(call.tool));
        }
        let mut params = CallToolRequestParams::new(call.tool);
        params.arguments = Some(call.arguments);
        let answer = session.call_tool(params).await.map_err(failed)?;
        // A session that will not close cleanly is the server's problem, not the result's.
        let _ = session.cancel().await;
        if answer.is_error == Some(true) {
            let text = serde_json::to_string(&answer.content).unwrap_or_default();
            return Err(McpError::ToolFailed(text));
        }
        let value = match answer.structured_content {
            Some(structured) => structured,
            None => serde_json::to_value(&answer.content)
                .map_err(|e| McpError::ToolFailed(e.to_string()))?,
        };
        serde_json::to_vec(&value).map_err(|e| McpError::ToolFailed(e.to_string()))
    }
}
