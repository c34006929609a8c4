//! The daemon's side of the node's JSON-RPC (`crates/node/RPC.md`): reads through `cowboy_call`
//! (the system actors' own read handlers, decoded with exec's own record types, so the daemon
//! reads a job exactly as the chain stores it), event ranges, receipts, and transactions signed
//! with the runner's account key.
//!
//! **Transactions are prepared, then broadcast**, in two steps, so the caller can journal the
//! signed bytes in between (write-ahead): after a crash the same transaction is broadcast again
//! instead of a second one being signed, and the chain's nonce rule makes a duplicate
//! harmless. Nonces are handed out locally (several jobs send at once) from the account's
//! `pendingNonce`, and re-read from it after any refusal.
//!
//! WebSocket subscriptions are in `daemon::follow`; this module is plain HTTP, so sending a
//! commit never waits for a subscription to come back.

use std::time::Duration;

use cowboy_exec::system::dispatcher::job::Job;
use cowboy_exec::system::runners::records::Fields;
use cowboy_types::cbor::{self, Value};
use cowboy_types::hash::{hex_lower, parse_hex};
use cowboy_types::system::{JOB_DISPATCHER, RESULT_VERIFIER, RUNNER_REGISTRY};
use cowboy_types::tx::Payload;
use cowboy_types::{Address, Hash32, PrivateKey, Transaction};
use serde_json::{json, Value as Json};
use tokio::sync::Mutex;

/// Why a chain request did not give an answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChainError {
    /// The node could not be reached or its answer not read.
    Transport {
        /// The RPC method.
        method: &'static str,
        /// What went wrong.
        reason: String,
    },
    /// The node answered with a JSON-RPC error.
    Node {
        /// The RPC method.
        method: &'static str,
        /// The error code.
        code: i64,
        /// The message.
        message: String,
        /// `data.reason` of a rejected transaction (`nonceTooLow`, `alreadyKnown`, …).
        reason: Option<String>,
    },
    /// A read or a transaction's simulation failed in the handler: the handler's error class
    /// (e.g. `LateCommit`, `ResultMismatch`) and message.
    Refused {
        /// The handler.
        handler: String,
        /// The error class.
        class: String,
        /// The message.
        message: String,
    },
    /// The answer did not have the documented shape.
    Reply {
        /// The RPC method or handler.
        what: String,
        /// What was wrong.
        reason: String,
    },
}

impl std::fmt::Display for ChainError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ChainError::Transport { method, reason } => write!(f, "{method}: {reason}"),
            ChainError::Node {
                method,
                code,
                message,
                ..
            } => write!(f, "{method}: {message} (RPC error {code})"),
            ChainError::Refused {
                handler,
                class,
                message,
            } => write!(f, "{handler} refused: {class}: {message}"),
            ChainError::Reply { what, reason } => write!(f, "{what}: unexpected answer: {reason}"),
        }
    }
}

impl std::error::Error for ChainError {}

/// A signed transaction: its hash and its canonical bytes (what the journal keeps).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SignedTx {
    /// The transaction hash.
    pub hash: Hash32,
    /// The signed transaction's canonical CBOR.
    pub raw: Vec<u8>,
}

/// A finalized transaction's receipt, as far as the daemon cares.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Receipt {
    /// Whether the handler succeeded.
    pub success: bool,
    /// The error class and message when it did not.
    pub error: String,
}

/// One `JobAssigned` event.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Assigned {
    /// The job.
    pub job: Hash32,
    /// The committee.
    pub runners: Vec<Address>,
    /// Its aggregator.
    pub aggregator: Address,
}

/// `0x` + lowercase hex.
pub fn hex0x(b: &[u8]) -> String {
    format!("0x{}", hex_lower(b))
}

/// The bytes of a `0x…` hex string.
pub fn unhex(s: &str) -> Option<Vec<u8>> {
    parse_hex(s.strip_prefix("0x").unwrap_or(s))
}

fn reply(what: impl Into<String>, reason: impl Into<String>) -> ChainError {
    ChainError::Reply {
        what: what.into(),
        reason: reason.into(),
    }
}

/// An address from CBOR bytes (exec's own decoder).
pub use cowboy_exec::system::runners::records::address_of as address_value;

/// A node, and the runner account that signs.
pub struct Chain {
    http: reqwest::Client,
    url: String,
    key: PrivateKey,
    /// The runner's account address.
    pub address: Address,
    /// The chain id (signed into every transaction and result).
    pub chain_id: u64,
    next_nonce: Mutex<Option<u64>>,
}

impl Chain {
    /// Connects to the node at `url` (`http://host:port`) as the account of `key`.
    pub async fn connect(url: &str, key: PrivateKey) -> Result<Chain, ChainError> {
        // reqwest's rustls needs a process-wide provider; ring is the one the workspace builds.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let http = reqwest::Client::builder()
            .timeout(Duration::from_secs(10))
            .no_proxy()
            .build()
            .map_err(|e| ChainError::Transport {
                method: "connect",
                reason: e.to_string(),
            })?;
        let mut chain = Chain {
            http,
            url: url.to_string(),
            address: key.address(),
            key,
            chain_id: 0,
            next_nonce: Mutex::new(None),
        };
        chain.chain_id = chain
            .request("cowboy_chainId", json!([]))
            .await?
            .as_u64()
            .ok_or_else(|| reply("cowboy_chainId", "not a number"))?;
        Ok(chain)
    }

    /// The node's WebSocket URL (same address, `ws://`).
    pub fn ws_url(&self) -> String {
        match self.url.strip_prefix("http") {
            Some(rest) => format!("ws{rest}"),
            None => self.url.clone(),
        }
    }

    /// One JSON-RPC request.
    pub async fn request(&self, method: &'static str, params: Json) -> Result<Json, ChainError> {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
        let transport = |e: reqwest::Error| ChainError::Transport {
            method,
            reason: e.to_string(),
        };
        let bytes = self
            .http
            .post(&self.url)
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(body.to_string())
            .send()
            .await
            .map_err(transport)?
            .bytes()
            .await
            .map_err(transport)?;
        let mut v: Json =
            serde_json::from_slice(&bytes).map_err(|e| reply(method, e.to_string()))?;
        if let Some(err) = v.get("error") {
            return Err(ChainError::Node {
                method,
                code: err["code"].as_i64().unwrap_or(0),
                message: err["message"].as_str().unwrap_or("error").to_string(),
                reason: err["data"]["reason"].as_str().map(str::to_string),
            });
        }
        Ok(v["result"].take())
    }

    /// The height of the last finalized block.
    pub async fn height(&self) -> Result<u64, ChainError> {
        self.request("cowboy_blockNumber", json!([]))
            .await?
            .as_u64()
            .ok_or_else(|| reply("cowboy_blockNumber", "not a number"))
    }

    /// A read-only call of `handler` on `to` as this runner (`cowboy_call`), its return value
    /// decoded; a failed handler is [`ChainError::Refused`].
    pub async fn call(&self, to: Address, handler: &str, args: Value) -> Result<Value, ChainError> {
        let r = self
            .request(
                "cowboy_call",
                json!([{"to": hex0x(&to.0), "handler": handler,
                        "args": hex0x(&cbor::encode(&args)), "from": hex0x(&self.address.0)}]),
            )
            .await?;
        if r["success"] != Json::Bool(true) {
            return Err(refused(handler, &r["error"]));
        }
        let data = r["returnData"]
            .as_str()
            .and_then(unhex)
            .ok_or_else(|| reply(handler, "returnData is not hex"))?;
        cbor::decode(&data).map_err(|e| reply(handler, e.to_string()))
    }

    /// The dispatcher's record of `job`, or `None` for an unknown job.
    pub async fn job(&self, job: &Hash32) -> Result<Option<Job>, ChainError> {
        let v = self
            .call(JOB_DISPATCHER, "get_job", Value::Array(vec![bytes(&job.0)]))
            .await?;
        if v == Value::Null {
            return Ok(None);
        }
        Job::from_value(&v)
            .map(Some)
            .map_err(|e| reply("get_job", format!("{e:?}")))
    }

    /// The registry's record of `runner` (`get_runner`: profile, stake, reputation, health), or
    /// `None` when it is not registered.
    pub async fn runner(&self, runner: &Address) -> Result<Option<Value>, ChainError> {
        let v = self
            .call(
                RUNNER_REGISTRY,
                "get_runner",
                Value::Array(vec![bytes(&runner.0)]),
            )
            .await?;
        Ok((v != Value::Null).then_some(v))
    }

    /// The commitment `runner` made for `job`, if any.
    pub async fn commitment(
        &self,
        job: &Hash32,
        runner: &Address,
    ) -> Result<Option<Hash32>, ChainError> {
        let v = self
            .call(
                RESULT_VERIFIER,
                "get_commit",
                Value::Array(vec![bytes(&job.0), bytes(&runner.0)]),
            )
            .await?;
        match v {
            Value::Null => Ok(None),
            Value::Bytes(b) => b
                .as_slice()
                .try_into()
                .map(|h| Some(Hash32(h)))
                .map_err(|_| reply("get_commit", "not 32 bytes")),
            _ => Err(reply("get_commit", "not bytes")),
        }
    }

    /// The `JobAssigned` events of blocks `from..=to` (at most 10,000 blocks: the node's cap).
    pub async fn assignments(&self, from: u64, to: u64) -> Result<Vec<Assigned>, ChainError> {
        let events = self
            .request(
                "cowboy_getEvents",
                json!([{"address": hex0x(&JOB_DISPATCHER.0), "topic": "JobAssigned",
                        "fromBlock": from, "toBlock": to}]),
            )
            .await?;
        let Json::Array(events) = events else {
            return Err(reply("cowboy_getEvents", "not an array"));
        };
        events
            .iter()
            .map(|e| {
                let data = e["data"]
                    .as_str()
                    .and_then(unhex)
                    .ok_or_else(|| reply("JobAssigned", "data is not hex"))?;
                let v = cbor::decode(&data).map_err(|e| reply("JobAssigned", e.to_string()))?;
                assigned(&v).ok_or_else(|| reply("JobAssigned", "unexpected fields"))
            })
            .collect()
    }

    /// The receipt of `tx`, or `None` while it is not in a finalized block.
    pub async fn receipt(&self, tx: &Hash32) -> Result<Option<Receipt>, ChainError> {
        let r = self
            .request("cowboy_getReceipt", json!([tx.to_hex()]))
            .await?;
        if r.is_null() {
            return Ok(None);
        }
        Ok(Some(Receipt {
            success: r["success"] == Json::Bool(true),
            error: format!(
                "{}: {}",
                r["error"]["class"].as_str().unwrap_or_default(),
                r["error"]["message"].as_str().unwrap_or_default()
            ),
        }))
    }

    /// The timestamp (ms) of the finalized block at `height` (`None`: no such block).
    pub async fn timestamp(&self, height: u64) -> Result<Option<u64>, ChainError> {
        let b = self
            .request("cowboy_getBlockByNumber", json!([height, false]))
            .await?;
        Ok(b["timestamp"].as_u64())
    }

    /// The height a pending timer is due at (`None` once it ran or never existed).
    pub async fn timer_due(&self, id: u64) -> Result<Option<u64>, ChainError> {
        let t = self.request("cowboy_getTimer", json!([id])).await?;
        Ok(t["due"].as_u64())
    }

    /// Signs a call of `handler` on `to` with `value`, after simulating it: a simulation that
    /// fails is [`ChainError::Refused`] and nothing is signed. Limits and fees are the node's
    /// estimate (its headroom keeps the transaction valid while basefees rise).
    pub async fn prepare(
        &self,
        to: Address,
        handler: &str,
        args: Value,
        value: u128,
    ) -> Result<SignedTx, ChainError> {
        let payload = Payload::Call {
            handler: handler.to_string(),
            args,
        };
        self.prepare_payload(Some(to), handler, payload, value)
            .await
    }

    /// Signs any transaction (a call, or a deploy when `to` is `None`) as [`Chain::prepare`]
    /// does; `what` names it in errors.
    pub async fn prepare_payload(
        &self,
        to: Option<Address>,
        what: &str,
        payload: Payload,
        value: u128,
    ) -> Result<SignedTx, ChainError> {
        let handler = what;
        let payload = payload.encode();
        let est = self
            .request(
                "cowboy_estimateFee",
                json!([{"from": hex0x(&self.address.0), "to": to.map(|a| hex0x(&a.0)),
                        "payload": hex0x(&payload), "value": value.to_string()}]),
            )
            .await?;
        if est["success"] == Json::Bool(false) {
            return Err(refused(handler, &est["error"]));
        }
        let amount = |k: &str| -> Result<u128, ChainError> {
            est[k]
                .as_str()
                .and_then(|s| s.parse().ok())
                .ok_or_else(|| reply("cowboy_estimateFee", format!("{k} is not an amount")))
        };
        let count = |k: &str| -> Result<u64, ChainError> {
            est[k]
                .as_u64()
                .ok_or_else(|| reply("cowboy_estimateFee", format!("{k} is not a number")))
        };
        let mut next = self.next_nonce.lock().await;
        let nonce = match *next {
            Some(n) => n,
            None => {
                let account = self
                    .request("cowboy_getAccount", json!([hex0x(&self.address.0)]))
                    .await?;
                account["pendingNonce"]
                    .as_u64()
                    .ok_or_else(|| reply("cowboy_getAccount", "pendingNonce is not a number"))?
            }
        };
        let mut tx = Transaction {
            chain_id: self.chain_id,
            nonce,
            to,
            value,
            cycles_limit: count("cyclesLimit")?,
            cells_limit: count("cellsLimit")?,
            max_fee_per_cycle: amount("maxFeePerCycle")?,
            max_fee_per_cell: amount("maxFeePerCell")?,
            tip_per_cycle: amount("tipPerCycle")?,
            tip_per_cell: amount("tipPerCell")?,
            access_list: None,
            payload,
            signature: None,
        };
        tx.sign(&self.key)
            .map_err(|e| reply("sign", format!("{e:?}")))?;
        *next = Some(nonce + 1);
        Ok(SignedTx {
            hash: tx.hash(),
            raw: tx.encode(),
        })
    }

    /// Sends a prepared transaction. One the node already holds counts as sent; after any
    /// refusal the next nonce is read from the chain again (the refused one may have left a
    /// gap).
    pub async fn broadcast(&self, tx: &SignedTx) -> Result<(), ChainError> {
        match self
            .request("cowboy_sendRawTransaction", json!([hex0x(&tx.raw)]))
            .await
        {
            Ok(_) => Ok(()),
            Err(ChainError::Node {
                reason: Some(r), ..
            }) if r == "alreadyKnown" => Ok(()),
            Err(e) => {
                *self.next_nonce.lock().await = None;
                Err(e)
            }
        }
    }

    /// Prepares and broadcasts at once (for transactions nothing depends on: heartbeats,
    /// registration).
    pub async fn send(
        &self,
        to: Address,
        handler: &str,
        args: Value,
        value: u128,
    ) -> Result<SignedTx, ChainError> {
        let tx = self.prepare(to, handler, args, value).await?;
        self.broadcast(&tx).await?;
        Ok(tx)
    }
}

fn refused(handler: &str, error: &Json) -> ChainError {
    ChainError::Refused {
        handler: handler.to_string(),
        class: error["class"].as_str().unwrap_or("Error").to_string(),
        message: error["message"].as_str().unwrap_or_default().to_string(),
    }
}

/// CBOR bytes.
pub fn bytes(b: &[u8]) -> Value {
    Value::Bytes(b.to_vec())
}

/// A `JobAssigned` event's data.
pub fn assigned(v: &Value) -> Option<Assigned> {
    let f = Fields::of(v)?;
    let get = |name: &str| f.get(name);
    let job = match get("job_id")? {
        Value::Bytes(b) => Hash32(b.as_slice().try_into().ok()?),
        _ => return None,
    };
    let runners = match get("runners")? {
        Value::Array(a) => a.iter().map(address_value).collect::<Option<Vec<_>>>()?,
        _ => return None,
    };
    Some(Assigned {
        job,
        runners,
        aggregator: address_value(get("aggregator")?)?,
    })
}
