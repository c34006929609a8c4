//! A blocking JSON-RPC 2.0 client over HTTP for the node's `cowboy_*` methods (`RPC.md`).

use serde_json::{json, Value};

/// An RPC failure: transport, or the node's error object.
#[derive(Debug)]
pub enum RpcError {
    /// Could not reach the node or read its answer.
    Transport(String),
    /// The node answered with a JSON-RPC error.
    Node {
        /// Error code.
        code: i64,
        /// Message.
        message: String,
        /// Structured data.
        data: Value,
    },
}

impl std::fmt::Display for RpcError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RpcError::Transport(e) => write!(f, "{e}"),
            RpcError::Node { code, message, .. } => write!(f, "{message} (RPC error {code})"),
        }
    }
}

/// The client.
pub struct Client {
    url: String,
    agent: ureq::Agent,
}

impl Client {
    /// A client of the node at `url` (`http://host:port`).
    pub fn new(url: &str) -> Self {
        let agent = ureq::Agent::config_builder()
            .timeout_global(Some(std::time::Duration::from_secs(60)))
            .http_status_as_error(false)
            .build()
            .new_agent();
        Self {
            url: url.to_string(),
            agent,
        }
    }

    /// Call `method` with positional `params`.
    pub fn call(&self, method: &str, params: Value) -> Result<Value, RpcError> {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
        let mut resp = self.agent.post(&self.url).send_json(&body).map_err(|e| {
            RpcError::Transport(format!(
                "cannot reach the node at {} ({e}).\n\
                 Is cowboyd running? Start a local devnet with `cowboyd --dev` (from a checkout: \
                 `cargo run --release -p cowboy-node --bin cowboyd -- --dev`), or point --rpc or \
                 COWBOY_RPC at a running node.",
                self.url
            ))
        })?;
        let v: Value = resp
            .body_mut()
            .read_json()
            .map_err(|e| RpcError::Transport(format!("bad answer from {}: {e}", self.url)))?;
        if let Some(err) = v.get("error") {
            return Err(RpcError::Node {
                code: err["code"].as_i64().unwrap_or(0),
                message: err["message"].as_str().unwrap_or("error").to_string(),
                data: err.get("data").cloned().unwrap_or(Value::Null),
            });
        }
        Ok(v.get("result").cloned().unwrap_or(Value::Null))
    }
}
