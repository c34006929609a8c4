//! The LLM executor (CIP-2 `Llm` jobs): runs a job's conversation on the model it names,
//! served by an OpenAI-compatible engine the operator runs (vLLM, llama.cpp's server,
//! Ollama), and for the semantic-similarity mode returns the answer's embedding beside it.
//!
//! A job goes:
//!
//! 1. **Model**: the job's `model` must be one this runner serves, and the files it hashed at
//!    start-up ([`model`]: `keccak256(weights ‖ arch ‖ tokenizer ‖ license)`, whitepaper §5.1)
//!    must not have changed since (a `stat` per file).
//! 2. **Probe**: the conversation with `max_tokens = 1`, to learn the prompt's size in the
//!    engine's own tokens (the runner has no tokenizer; the engine's count is the one it bills).
//!    A prompt that leaves no room for one completion token within the job's `max_tokens` is
//!    `impossible`.
//! 3. **Answer**: the same request with `max_tokens = bound − prompt`, greedy (temperature 0,
//!    top-p 1, seed 0), so prompt + completion stay within the job's `max_tokens` and every
//!    runner on the same model and engine decodes the same tokens.
//! 4. **Embedding** (semantic similarity only): `/embeddings` of the answer ([`result`]).
//!
//! The whole job runs within `max_wall_ms`. Usage is the answer's prompt and completion
//! tokens as the engine reports them (a response without usage is a fault: usage is never
//! invented) and the wall time measured here. Faults: engine unreachable, failing or
//! misbehaving → `external`; bounds too tight (prompt too long, time spent after the engine
//! answered the probe) → `impossible`; malformed input or mode parameters → `actor`.

pub mod input;
pub mod model;
pub mod openai;
pub mod result;

use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use cowboy_exec::system::dispatcher::spec::Mode;
use cowboy_exec::system::verifier::modes::{self, Rules};
use cowboy_types::cbor::Value;
use cowboy_types::Hash32;
use reqwest::Client;

use self::input::{InputError, Message};
use self::model::{Fingerprint, ModelFiles};
use self::openai::{CallError, Endpoint};
use self::result::EmbeddingError;
use super::{FaultKind, Job, Outcome, Usage};

/// How much of an engine's response body the runner reads, beyond 8 bytes per byte the job
/// may return (JSON escapes are at most 6): room for the envelope and an embedding of 1,024
/// numbers. A larger body is an answer far over what the job can return.
const RESPONSE_BASE_CAP: usize = 1 << 20;

/// One model the runner serves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelConfig {
    /// The model's registry hash, as the runner declares it in its profile.
    pub hash: Hash32,
    /// The files that hash is computed from.
    pub files: ModelFiles,
    /// The engine serving it.
    pub endpoint: Endpoint,
}

/// Why the executor cannot start, or a model cannot be served.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LlmError {
    /// A model file could not be read.
    ReadModel {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        reason: String,
    },
    /// The files do not hash to the declared model.
    HashMismatch {
        /// The hash configured (and declared on chain).
        declared: Hash32,
        /// The hash of the files.
        computed: Hash32,
    },
    /// The same model configured twice.
    DuplicateModel(Hash32),
    /// The registry has no such model.
    NotRegistered(Hash32),
    /// Its publisher retired it.
    Retired(Hash32),
    /// The registry's record does not decode.
    BadRecord(Hash32),
    /// The HTTP client could not be built.
    Client(String),
}

impl fmt::Display for LlmError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LlmError::ReadModel { path, reason } => {
                write!(f, "cannot read model file {}: {reason}", path.display())
            }
            LlmError::HashMismatch { declared, computed } => write!(
                f,
                "the model files hash to {}, not the declared model {}",
                computed.to_hex(),
                declared.to_hex()
            ),
            LlmError::DuplicateModel(h) => write!(f, "model {} configured twice", h.to_hex()),
            LlmError::NotRegistered(h) => {
                write!(f, "model {} is not in the model registry", h.to_hex())
            }
            LlmError::Retired(h) => write!(f, "model {} was retired by its publisher", h.to_hex()),
            LlmError::BadRecord(h) => {
                write!(f, "the registry's record of {} is corrupt", h.to_hex())
            }
            LlmError::Client(e) => write!(f, "cannot build the HTTP client: {e}"),
        }
    }
}

impl std::error::Error for LlmError {}

/// Why a job produced no result: its fault kind, the usage so far and what happened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    /// The fault report's kind.
    pub kind: FaultKind,
    /// Usage up to the failure.
    pub usage: Usage,
    /// What happened.
    pub reason: Reason,
}

/// What made a job fail.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reason {
    /// An LLM job without a model.
    NoModel,
    /// The job's model is not one this runner serves.
    ModelNotServed(Hash32),
    /// The model's files changed since they were hashed.
    ModelChanged(Hash32),
    /// The input is malformed.
    Input(InputError),
    /// The verification parameters are malformed (`field` unusable).
    Params(String),
    /// The engine call failed.
    Engine(CallError),
    /// The engine refused the request as too large for its context (HTTP 400).
    ContextExceeded,
    /// The prompt leaves no completion token within the job's `max_tokens`.
    PromptTooLong {
        /// Prompt tokens, as the engine counted them.
        prompt_tokens: u64,
        /// The job's bound.
        max_tokens: u64,
    },
    /// The engine's usage contradicts the request (more completion tokens than allowed, or
    /// another prompt size than the probe's).
    UsageMismatch,
    /// The embedding cannot be returned.
    Embedding(EmbeddingError),
    /// The embedding alone does not fit `max_return_bytes`.
    ResultTooLarge,
    /// `max_wall_ms` passed before the engine answered the probe.
    EngineTimeout,
    /// `max_wall_ms` passed after the engine answered the probe.
    WallTimeExceeded,
}

/// A model with the fingerprint of the files its hash was computed from.
#[derive(Debug)]
struct Served {
    files: ModelFiles,
    fingerprint: Fingerprint,
    endpoint: Endpoint,
}

/// The LLM executor: the models it serves, by registry hash.
#[derive(Clone, Debug)]
pub struct LlmExecutor {
    models: Arc<BTreeMap<Hash32, Served>>,
    client: Client,
}

impl LlmExecutor {
    /// Hash every configured model's files and check each is the model it declares. Reads
    /// every byte of every model (blocking I/O: run it off the async workers for large ones).
    pub fn new(config: Vec<ModelConfig>) -> Result<LlmExecutor, LlmError> {
        let mut models = BTreeMap::new();
        for m in config {
            let (computed, fingerprint) = model::hash_files(&m.files)?;
            if computed != m.hash {
                return Err(LlmError::HashMismatch {
                    declared: m.hash,
                    computed,
                });
            }
            let served = Served {
                files: m.files,
                fingerprint,
                endpoint: m.endpoint,
            };
            if models.insert(m.hash, served).is_some() {
                return Err(LlmError::DuplicateModel(m.hash));
            }
        }
        Ok(LlmExecutor {
            models: Arc::new(models),
            client: client()?,
        })
    }

    /// The models served, in hash order (what the runner's profile declares).
    pub fn models(&self) -> impl Iterator<Item = &Hash32> {
        self.models.keys()
    }

    /// Check the registry admits `model`: `record` is what the runner registry's
    /// `model(hash)` read returned for it (null when absent). The daemon calls this at
    /// start-up for every served model, and may again whenever it re-reads the registry.
    pub fn check_registered(&self, model: &Hash32, record: &Value) -> Result<(), LlmError> {
        model::check_record(model, record)
    }

    /// Run `job`: its result with the usage, or a fault report.
    pub async fn execute(&self, job: &Job) -> Outcome {
        match self.run(job).await {
            Ok((result, usage)) => Outcome::Done { result, usage },
            Err(f) => Outcome::Fault {
                kind: f.kind,
                progress_bps: 0,
                usage: f.usage,
            },
        }
    }

    /// [`LlmExecutor::execute`], saying why a job failed.
    pub async fn run(&self, job: &Job) -> Result<(Vec<u8>, Usage), Failure> {
        let start = Instant::now();
        let usage = |tokens| Usage {
            tokens,
            wall_ms: elapsed_ms(start),
        };
        let fail = |kind, reason| Failure {
            kind,
            usage: usage(0),
            reason,
        };
        let hash = job
            .model
            .ok_or_else(|| fail(FaultKind::Actor, Reason::NoModel))?;
        let served = self
            .models
            .get(&hash)
            .ok_or_else(|| fail(FaultKind::External, Reason::ModelNotServed(hash)))?;
        if Fingerprint::of(&served.files).ok().as_ref() != Some(&served.fingerprint) {
            return Err(fail(FaultKind::External, Reason::ModelChanged(hash)));
        }
        let messages =
            input::messages(&job.input).map_err(|e| fail(FaultKind::Actor, Reason::Input(e)))?;
        let embedding_field = embedding_field(job).map_err(|e| fail(FaultKind::Actor, e))?;
        let mut run = Run {
            client: &self.client,
            endpoint: &served.endpoint,
            job,
            probed: false,
            tokens: 0,
        };
        let bound = Duration::from_millis(job.bounds.max_wall_ms);
        let outcome = tokio::time::timeout(bound, run.answer(&messages, embedding_field)).await;
        // A failure after the answer still reports the answer's tokens.
        let fail = |kind, reason| Failure {
            kind,
            usage: usage(run.tokens),
            reason,
        };
        match outcome {
            Ok(Ok(result)) => Ok((result, usage(run.tokens))),
            Ok(Err((kind, reason))) => Err(fail(kind, reason)),
            // An engine that cannot answer a one-token request within the bound is unavailable;
            // one that did but could not finish the job in time had too little time.
            Err(_) if run.probed => Err(fail(FaultKind::Impossible, Reason::WallTimeExceeded)),
            Err(_) => Err(fail(FaultKind::External, Reason::EngineTimeout)),
        }
    }
}

/// The field a semantic-similarity job's results carry their embedding at (as the chain reads
/// the job's parameters), or `None` in every other mode.
fn embedding_field(job: &Job) -> Result<Option<String>, Reason> {
    if job.mode != Mode::SemanticSimilarity.name() {
        return Ok(None);
    }
    match modes::rules(Mode::SemanticSimilarity, Some(&job.params), 0) {
        Ok(Rules::SemanticSimilarity { field, .. })
            if !field.is_empty() && field.split('.').next() != Some("text") =>
        {
            Ok(Some(field))
        }
        Ok(_) => Err(Reason::Params(
            "field: a non-empty path not under \"text\" (the answer's key)".into(),
        )),
        Err(e) => Err(Reason::Params(e)),
    }
}

/// One job's calls to the engine.
struct Run<'a> {
    client: &'a Client,
    endpoint: &'a Endpoint,
    job: &'a Job,
    /// Whether the engine has answered the probe (decides a timeout's fault kind).
    probed: bool,
    /// The answer's tokens (prompt and completion) once the engine reported them.
    tokens: u64,
}

impl Run<'_> {
    fn cap(&self) -> usize {
        let max = usize::try_from(self.job.max_return_bytes).unwrap_or(usize::MAX);
        RESPONSE_BASE_CAP.saturating_add(max.saturating_mul(8))
    }

    /// The result bytes; the tokens billed are in `self.tokens`.
    async fn answer(
        &mut self,
        messages: &[Message],
        embedding_field: Option<String>,
    ) -> Result<Vec<u8>, (FaultKind, Reason)> {
        let max_tokens = self.job.bounds.max_tokens;
        let max_bytes = usize::try_from(self.job.max_return_bytes).unwrap_or(usize::MAX);
        let probe = openai::chat(self.client, self.endpoint, messages, 1, self.cap())
            .await
            .map_err(engine_fault)?;
        self.probed = true;
        let prompt_tokens = probe.prompt_tokens;
        if prompt_tokens >= max_tokens {
            return Err((
                FaultKind::Impossible,
                Reason::PromptTooLong {
                    prompt_tokens,
                    max_tokens,
                },
            ));
        }
        let budget = max_tokens - prompt_tokens;
        let c = openai::chat(self.client, self.endpoint, messages, budget, self.cap())
            .await
            .map_err(engine_fault)?;
        if c.prompt_tokens != prompt_tokens || c.completion_tokens > budget {
            return Err((FaultKind::External, Reason::UsageMismatch));
        }
        self.tokens = c.prompt_tokens + c.completion_tokens;
        let Some(field) = embedding_field else {
            return Ok(result::cap(&c.text, max_bytes).as_bytes().to_vec());
        };
        let raw = openai::embed(self.client, self.endpoint, &c.text, self.cap())
            .await
            .map_err(engine_fault)?;
        let embedding = result::quantize(&raw).map_err(|e| match e {
            EmbeddingError::TooManyDims(_) => (FaultKind::Impossible, Reason::Embedding(e)),
            EmbeddingError::Degenerate => (FaultKind::External, Reason::Embedding(e)),
        })?;
        result::semantic_document(&c.text, &field, &embedding, max_bytes)
            .ok_or((FaultKind::Impossible, Reason::ResultTooLarge))
    }
}

/// The fault kind of a failed engine call: a request the engine refuses as too large
/// (HTTP 400, what vLLM and llama.cpp answer when the prompt exceeds the model's context) is
/// the job's bounds; an oversized body is an answer far over what the job may return;
/// everything else is the engine's.
fn engine_fault(e: CallError) -> (FaultKind, Reason) {
    match e {
        CallError::Status(400) => (FaultKind::Impossible, Reason::ContextExceeded),
        CallError::TooLarge { .. } => (FaultKind::Impossible, Reason::Engine(e)),
        _ => (FaultKind::External, Reason::Engine(e)),
    }
}

fn elapsed_ms(start: Instant) -> u64 {
    u64::try_from(start.elapsed().as_millis()).unwrap_or(u64::MAX)
}

/// An HTTP client over rustls with the ring provider and webpki's roots (engines are usually
/// on loopback over plain HTTP; a remote one over HTTPS works too). Redirects are not
/// followed: an engine API does not redirect, and a POST must not be replayed elsewhere.
fn client() -> Result<Client, LlmError> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let roots = rustls::RootCertStore {
        roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
    };
    let tls = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| LlmError::Client(e.to_string()))?
        .with_root_certificates(roots)
        .with_no_client_auth();
    Client::builder()
        .tls_backend_preconfigured(tls)
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .map_err(|e| LlmError::Client(e.to_string()))
}
