//! The runner's HTTP endpoint: the reveal inbox (CIP-2 §8's "direct HTTP push": the other
//! members of a committee this runner aggregates send it their signed results) and `GET
//! /metrics`.
//!
//! `POST /reveal/<job id hex>` with the CBOR reveal entry `[runner, result, [tokens, wall_ms],
//! sig]` (the Python SDK's `send_reveal` speaks the same). **Authentication is the entry's own
//! signature**: `sig` is the runner's Ed25519 signature over (chain, job, result, usage), and the
//! inbox checks it against the key that runner registered on chain, for this job. So only a
//! member of the committee can deliver, nobody can deliver in its name, and a captured entry is
//! worth nothing elsewhere (the job id is signed). Answers: 204 accepted; 400 malformed; 401
//! bad signature; 403 not a member; 404 not a job this runner aggregates; 413 body over
//! [`MAX_BODY`]; 429 the job holds [`MAX_PER_JOB`] entries already.
//!
//! **Bounded**, since anyone who can reach the port may post: entries are kept only for jobs
//! this runner aggregates (the daemon registers them from its assignments, and forgets them
//! when decided), at most [`MAX_PER_JOB`] per job (a member may post more than one signed
//! result; which one counts is the one matching its commitment on chain); a body is read up to
//! [`MAX_BODY`] and no further; a member's key is read from the chain once per job; at most
//! [`MAX_CONNECTIONS`] connections are served at once, each with a header deadline.

use std::collections::BTreeMap;
use std::convert::Infallible;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use cowboy_exec::system::runners::records::{bytes32, Fields};
use cowboy_types::cbor::{self, Value};
use cowboy_types::{Address, Hash32};
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::TcpListener;
use tokio::sync::{mpsc, Semaphore};

use super::chain::Chain;
use super::metrics::Metrics;
use super::reveal::Reveal;

/// Largest body read: a result is at most `job_result_max_bytes` (64 KiB); the rest is room for
/// the entry's other fields.
pub const MAX_BODY: usize = 80 << 10;
/// Most entries held per job (a committee has at most 16 members).
pub const MAX_PER_JOB: usize = 64;
/// Most connections served at once.
pub const MAX_CONNECTIONS: usize = 64;

#[derive(Default)]
struct JobInbox {
    members: Vec<Address>,
    keys: BTreeMap<Address, [u8; 32]>,
    reveals: BTreeMap<(Address, Hash32), Reveal>,
}

/// The reveals received, per job this runner aggregates.
pub struct Inbox {
    jobs: Mutex<BTreeMap<Hash32, JobInbox>>,
    /// Told the job of every accepted delivery: the aggregator steps the job at once, so the
    /// last result in is aggregated without waiting for another block (a dev chain making
    /// blocks on demand makes none until someone sends a transaction).
    arrived: mpsc::UnboundedSender<Hash32>,
}

impl Inbox {
    /// An empty inbox that names each job a delivery is accepted for on `arrived`.
    pub fn new(arrived: mpsc::UnboundedSender<Hash32>) -> Inbox {
        Inbox {
            jobs: Mutex::default(),
            arrived,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<Hash32, JobInbox>> {
        // A panic while holding the lock leaves plain data behind: keep serving it.
        self.jobs.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Accepts deliveries for `job` from `members` (its committee; called again when a retry
    /// changes it).
    pub fn expect(&self, job: Hash32, members: &[Address]) {
        self.lock().entry(job).or_default().members = members.to_vec();
    }

    /// Drops a decided job.
    pub fn forget(&self, job: &Hash32) {
        self.lock().remove(job);
    }

    /// The reveals held for `job` that match `commitments` (runner → its commitment on chain).
    pub fn matching(
        &self,
        job: &Hash32,
        commitments: &BTreeMap<Address, Hash32>,
    ) -> BTreeMap<Address, Reveal> {
        let jobs = self.lock();
        let Some(held) = jobs.get(job) else {
            return BTreeMap::new();
        };
        commitments
            .iter()
            .filter_map(|(a, c)| held.reveals.get(&(*a, *c)).map(|r| (*a, r.clone())))
            .collect()
    }

    /// Checks and stores one delivery; the HTTP status to answer.
    async fn deliver(&self, chain: &Chain, job: Hash32, body: &[u8]) -> StatusCode {
        let Some(reveal) = cbor::decode(body).ok().and_then(|v| Reveal::from_entry(&v)) else {
            return StatusCode::BAD_REQUEST;
        };
        let key = {
            let jobs = self.lock();
            let Some(held) = jobs.get(&job) else {
                return StatusCode::NOT_FOUND;
            };
            if !held.members.contains(&reveal.runner) {
                return StatusCode::FORBIDDEN;
            }
            held.keys.get(&reveal.runner).copied()
        };
        let key = match key {
            Some(k) => k,
            None => match chain.runner(&reveal.runner).await {
                Ok(Some(record)) => match registered_key(&record) {
                    Some(k) => {
                        if let Some(held) = self.lock().get_mut(&job) {
                            held.keys.insert(reveal.runner, k);
                        }
                        k
                    }
                    None => return StatusCode::FORBIDDEN,
                },
                Ok(None) => return StatusCode::FORBIDDEN,
                Err(_) => return StatusCode::SERVICE_UNAVAILABLE,
            },
        };
        if !reveal.verifies(chain.chain_id, &job, &key) {
            return StatusCode::UNAUTHORIZED;
        }
        let mut jobs = self.lock();
        let Some(held) = jobs.get_mut(&job) else {
            return StatusCode::NOT_FOUND;
        };
        let slot = (reveal.runner, reveal.commitment());
        if !held.reveals.contains_key(&slot) && held.reveals.len() >= MAX_PER_JOB {
            return StatusCode::TOO_MANY_REQUESTS;
        }
        held.reveals.insert(slot, reveal);
        // The daemon's loop may have stopped; its next tick steps the job anyway.
        let _ = self.arrived.send(job);
        StatusCode::NO_CONTENT
    }
}

/// The `key` of a `get_runner` record.
pub fn registered_key(record: &Value) -> Option<[u8; 32]> {
    bytes32(Fields::of(record)?.get("key")?)
}

fn status(s: StatusCode) -> Response<Full<Bytes>> {
    let mut r = Response::new(Full::new(Bytes::new()));
    *r.status_mut() = s;
    r
}

async fn handle(
    req: Request<Incoming>,
    inbox: Arc<Inbox>,
    chain: Arc<Chain>,
    metrics: Arc<Metrics>,
) -> Result<Response<Full<Bytes>>, Infallible> {
    let path = req.uri().path().to_string();
    if req.method() == Method::GET && path == "/metrics" {
        return Ok(Response::new(Full::new(Bytes::from(metrics.render()))));
    }
    let job = match (req.method(), path.strip_prefix("/reveal/")) {
        (&Method::POST, Some(id)) => match Hash32::from_hex(id) {
            Some(job) => job,
            None => return Ok(status(StatusCode::BAD_REQUEST)),
        },
        _ => return Ok(status(StatusCode::NOT_FOUND)),
    };
    let body = match Limited::new(req.into_body(), MAX_BODY).collect().await {
        Ok(b) => b.to_bytes(),
        Err(_) => return Ok(status(StatusCode::PAYLOAD_TOO_LARGE)),
    };
    let verdict = inbox.deliver(&chain, job, &body).await;
    Metrics::count(
        &metrics.received,
        if verdict == StatusCode::NO_CONTENT {
            "accepted"
        } else {
            "refused"
        },
    );
    Ok(status(verdict))
}

/// Serves the inbox and the metrics on `listener` until the task is dropped.
pub async fn serve(
    listener: TcpListener,
    inbox: Arc<Inbox>,
    chain: Arc<Chain>,
    metrics: Arc<Metrics>,
) {
    let slots = Arc::new(Semaphore::new(MAX_CONNECTIONS));
    loop {
        let Ok(permit) = slots.clone().acquire_owned().await else {
            return;
        };
        let Ok((tcp, _)) = listener.accept().await else {
            continue;
        };
        let (inbox, chain, metrics) = (inbox.clone(), chain.clone(), metrics.clone());
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |req| {
                handle(req, inbox.clone(), chain.clone(), metrics.clone())
            });
            // A client that misbehaves ends its own connection; nothing to report.
            let _ = hyper::server::conn::http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(Duration::from_secs(5))
                .serve_connection(TokioIo::new(tcp), service)
                .await;
            drop(permit);
        });
    }
}

/// Pushes `reveal` of `job` to the inbox at `endpoint`. A transient failure (unreachable, 5xx,
/// 429) is for the caller to retry at its next step; any other refusal is final.
pub async fn push(
    http: &reqwest::Client,
    endpoint: &str,
    job: &Hash32,
    reveal: &Reveal,
) -> Result<(), PushError> {
    let url = format!(
        "{}/reveal/{}",
        endpoint.trim_end_matches('/'),
        cowboy_types::hash::hex_lower(&job.0)
    );
    let resp = http
        .post(url)
        .body(cbor::encode(&reveal.entry()))
        .send()
        .await
        .map_err(|e| PushError::Transient(e.to_string()))?;
    let s = resp.status();
    if s.is_success() {
        Ok(())
    } else if s.is_server_error() || s.as_u16() == 429 {
        Err(PushError::Transient(format!("HTTP {s}")))
    } else {
        Err(PushError::Refused(s.as_u16()))
    }
}

/// Why a push failed.
#[derive(Debug)]
pub enum PushError {
    /// Worth trying again (the reason).
    Transient(String),
    /// The inbox refused the entry (the HTTP status).
    Refused(u16),
}

impl std::fmt::Display for PushError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PushError::Transient(e) => write!(f, "transient: {e}"),
            PushError::Refused(s) => write!(f, "refused with HTTP {s}"),
        }
    }
}
