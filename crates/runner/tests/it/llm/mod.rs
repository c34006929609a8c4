//! The LLM executor against a real inference engine: a tiny transformer whose weights each
//! test draws from a fixed seed and writes to disk, loaded back by candle and served on
//! loopback through an OpenAI-compatible server ([`engine`], [`server`]). Results are judged
//! by the chain's own verification modes (`cowboy_exec::system::verifier::modes`).

mod engine;
mod server;

use std::path::Path;

use cowboy_exec::system::dispatcher::spec::Mode;
use cowboy_exec::system::runners::records::Model;
use cowboy_exec::system::verifier::modes::{self, Doc, Format, Rules, Verdict};
use cowboy_exec::system::verifier::sign;
use cowboy_runner::executor::llm::input::InputError;
use cowboy_runner::executor::llm::model::ModelFiles;
use cowboy_runner::executor::llm::openai::{CallError, Endpoint};
use cowboy_runner::executor::llm::{Failure, LlmError, LlmExecutor, ModelConfig, Reason};
use cowboy_runner::executor::{Bounds, FaultKind, Job, Outcome, Usage};
use cowboy_types::cbor::Value;
use cowboy_types::hash::keccak256_concat;
use cowboy_types::{Address, Hash32};
use tempfile::TempDir;

use self::server::{Behaviour, Server};

const SEED: u64 = 7;
const NAME: &str = "tiny";

/// A model's four files, written to a fresh directory, and their registry hash computed
/// here, independently of the executor.
struct ModelDir {
    _dir: TempDir,
    files: ModelFiles,
    hash: Hash32,
}

fn model_dir(seed: u64) -> ModelDir {
    let dir = tempfile::tempdir().expect("temp dir");
    let p = |n: &str| dir.path().join(n);
    let files = ModelFiles {
        weights: p("model.safetensors"),
        arch: p("config.json"),
        tokenizer: p("tokenizer.json"),
        license: p("LICENSE"),
    };
    engine::write_weights(&files.weights, seed).expect("write weights");
    std::fs::write(&files.arch, engine::ARCH).expect("write arch");
    std::fs::write(&files.tokenizer, engine::TOKENIZER).expect("write tokenizer");
    std::fs::write(&files.license, engine::LICENSE).expect("write license");
    let read = |p: &Path| std::fs::read(p).expect("read back");
    let parts = [
        read(&files.weights),
        read(&files.arch),
        read(&files.tokenizer),
        read(&files.license),
    ];
    let hash = keccak256_concat(&[&parts[0], &parts[1], &parts[2], &parts[3]]);
    ModelDir {
        _dir: dir,
        files,
        hash,
    }
}

/// An engine loading `m`'s weights from disk, serving them as [`NAME`].
async fn engine(m: &ModelDir, behaviour: Behaviour) -> Server {
    let model = engine::TinyLm::load(&m.files.weights).expect("load weights");
    server::serve(model, NAME, behaviour).await
}

fn config(m: &ModelDir, base_url: String) -> Vec<ModelConfig> {
    vec![ModelConfig {
        hash: m.hash,
        files: m.files.clone(),
        endpoint: Endpoint {
            base_url,
            served_name: NAME.into(),
            api_key: None,
        },
    }]
}

/// A runner: its own copy of the model files, its own engine, its own executor.
struct Runner {
    model: ModelDir,
    _server: Server,
    exec: LlmExecutor,
}

async fn runner(behaviour: Behaviour) -> Runner {
    let model = model_dir(SEED);
    let server = engine(&model, behaviour).await;
    let exec = LlmExecutor::new(config(&model, server.base_url())).expect("executor starts");
    Runner {
        model,
        _server: server,
        exec,
    }
}

fn job(model: Hash32, input: Value, max_tokens: u64, max_return_bytes: u64) -> Job {
    Job {
        id: Hash32([9; 32]),
        model: Some(model),
        domains: Vec::new(),
        input,
        bounds: Bounds {
            max_tokens,
            max_wall_ms: 120_000,
            max_memory_mb: 256,
        },
        max_return_bytes,
        mode: Mode::Deterministic.name().into(),
        params: Value::Null,
    }
}

fn text(s: &str) -> Value {
    Value::Text(s.into())
}

fn done(o: Outcome) -> (Vec<u8>, Usage) {
    match o {
        Outcome::Done { result, usage } => (result, usage),
        other => panic!("expected a result, got {other:?}"),
    }
}

fn failed(r: Result<(Vec<u8>, Usage), Failure>) -> Failure {
    r.expect_err("expected a fault")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn llm_two_runners_answer_byte_identically_in_the_deterministic_mode() {
    let (a, b) = (
        runner(Behaviour::Serve).await,
        runner(Behaviour::Serve).await,
    );
    // Two runners wrote the weights from the same seed: the same files, the same model.
    assert_eq!(a.model.hash, b.model.hash);
    let j = job(
        a.model.hash,
        text("What is the capital of France?"),
        96,
        4_096,
    );
    let (ra, ua) = done(a.exec.execute(&j).await);
    let (rb, ub) = done(b.exec.execute(&j).await);
    assert!(!ra.is_empty());
    assert_eq!(ra, rb, "greedy decoding on one model gives the same bytes");
    // The prompt is the chat template's bytes ("user: …\nassistant: "), one token each;
    // the completion fills what max_tokens leaves (the random model rarely stops itself).
    let prompt = "user: What is the capital of France?\nassistant: ".len() as u64;
    assert_eq!(ua.tokens, ub.tokens);
    assert!(
        ua.tokens > prompt && ua.tokens <= 96,
        "tokens {}",
        ua.tokens
    );
    // The chain's deterministic mode agrees with both.
    let results: [&[u8]; 2] = [&ra, &rb];
    assert_eq!(
        modes::verdict(&Rules::Deterministic, Format::Json, &results, 0, 2),
        Verdict::Consensus(vec![0, 1])
    );
    // What each signs differs only by its measured wall time: at the same time the digests
    // are the same.
    let digest = |r: &[u8], u: Usage| {
        let usage = sign::Usage {
            tokens: u.tokens,
            wall_ms: 1_000,
        };
        sign::digest(1, &j.id, r, usage)
    };
    assert_eq!(digest(&ra, ua), digest(&rb, ub));
    // A conversation is another prompt, hence (here) another answer, still the same on both.
    let convo = Value::Map(vec![(
        text("messages"),
        Value::Array(vec![
            Value::Map(vec![
                (text("role"), text("system")),
                (text("content"), text("Be brief.")),
            ]),
            Value::Map(vec![
                (text("role"), text("user")),
                (text("content"), text("Hi")),
            ]),
        ]),
    )]);
    let j2 = job(a.model.hash, convo, 96, 4_096);
    let (ca, _) = done(a.exec.execute(&j2).await);
    let (cb, _) = done(b.exec.execute(&j2).await);
    assert_eq!(ca, cb);
    assert_ne!(ca, ra);
}

/// The embedding at `field` of a semantic-similarity result, in the mode's units (10^-4).
fn embedding_of(result: &[u8], field: &str) -> Vec<i128> {
    let doc = modes::parse(Format::Json, result).expect("a JSON result");
    let Some(Doc::List(xs)) = modes::at(&doc, field) else {
        panic!("no embedding at {field}");
    };
    xs.iter()
        .map(|x| match x {
            Doc::Num(n) => {
                // Exactly 4 decimals: nothing below the mode's unit.
                assert_eq!(n % 100_000_000_000_000, 0);
                n / 100_000_000_000_000
            }
            other => panic!("not a number: {other:?}"),
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn llm_embeddings_are_within_the_modes_bounds_and_two_runners_agree() {
    let (a, b) = (
        runner(Behaviour::Serve).await,
        runner(Behaviour::Serve).await,
    );
    for (params, field) in [
        (Value::Null, "embedding"),
        (
            Value::Map(vec![(text("field"), text("out.vec"))]),
            "out.vec",
        ),
    ] {
        let mut j = job(a.model.hash, text("Summarise the news."), 64, 4_096);
        j.mode = Mode::SemanticSimilarity.name().into();
        j.params = params.clone();
        let (ra, ua) = done(a.exec.execute(&j).await);
        let (rb, _) = done(b.exec.execute(&j).await);
        let (ea, eb) = (embedding_of(&ra, field), embedding_of(&rb, field));
        // The tiny model's hidden size; within the mode's 1,024 and |x| ≤ 100, the largest
        // exactly 100 (the scale that keeps the most precision).
        assert_eq!(ea.len(), 32);
        assert!(ea.iter().all(|x| x.abs() <= 1_000_000));
        assert_eq!(ea.iter().map(|x| x.abs()).max(), Some(1_000_000));
        // Two runners, cosine similarity 1 (identical vectors), as the mode computes it.
        assert_eq!(ea, eb);
        assert!(modes::similar(&ea, &eb, 10_000));
        let rules = modes::rules(Mode::SemanticSimilarity, Some(&params), 2).expect("rules");
        let results: [&[u8]; 2] = [&ra, &rb];
        assert_eq!(
            modes::verdict(&rules, Format::Json, &results, 0, 2),
            Verdict::Consensus(vec![0, 1])
        );
        // The text beside it is the answer the deterministic mode would return.
        let plain = job(a.model.hash, text("Summarise the news."), 64, 4_096);
        let (answer, pu) = done(a.exec.execute(&plain).await);
        let doc = modes::parse(Format::Json, &ra).expect("JSON");
        assert_eq!(
            modes::at(&doc, "text"),
            Some(&Doc::Text(String::from_utf8(answer).expect("UTF-8")))
        );
        // The answer's tokens are billed, not the embedding pass.
        assert_eq!(ua.tokens, pu.tokens);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn llm_model_hash_mismatch_is_refused() {
    let m = model_dir(SEED);
    let server = engine(&m, Behaviour::Serve).await;
    // Files of another model (another seed) under this model's hash: refused at start-up.
    let other = model_dir(SEED + 1);
    let mut cfg = config(&other, server.base_url());
    cfg[0].hash = m.hash;
    assert_eq!(
        LlmExecutor::new(cfg).err(),
        Some(LlmError::HashMismatch {
            declared: m.hash,
            computed: other.hash
        })
    );
    let exec = LlmExecutor::new(config(&m, server.base_url())).expect("the right files start");
    assert_eq!(exec.models().collect::<Vec<_>>(), [&m.hash]);
    // A job naming a model this runner does not serve.
    let r = exec.run(&job(other.hash, text("hi"), 64, 64)).await;
    let f = failed(r);
    assert_eq!(
        (f.kind, f.reason),
        (FaultKind::External, Reason::ModelNotServed(other.hash))
    );
    // The registry's record: absent, retired, live.
    let record = |retired| {
        Model {
            publisher: Address([1; 20]),
            deposit: 1,
            metadata: Value::Null,
            registered_at: 5,
            retired,
        }
        .to_value()
    };
    assert_eq!(
        exec.check_registered(&m.hash, &Value::Null),
        Err(LlmError::NotRegistered(m.hash))
    );
    assert_eq!(
        exec.check_registered(&m.hash, &record(true)),
        Err(LlmError::Retired(m.hash))
    );
    assert_eq!(
        exec.check_registered(&m.hash, &Value::Uint(3)),
        Err(LlmError::BadRecord(m.hash))
    );
    assert_eq!(exec.check_registered(&m.hash, &record(false)), Ok(()));
    // Weights replaced under a running executor: refused per job, without a re-hash.
    let mut weights = std::fs::read(&m.files.weights).expect("read");
    weights.push(0);
    std::fs::write(&m.files.weights, weights).expect("write");
    let f = failed(exec.run(&job(m.hash, text("hi"), 64, 64)).await);
    assert_eq!(
        (f.kind, f.reason),
        (FaultKind::External, Reason::ModelChanged(m.hash))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn llm_endpoint_down_is_an_external_fault() {
    let m = model_dir(SEED);
    // A free port no other test is given: nothing listens there.
    let port = cowboy_test_support::free_port();
    let exec = LlmExecutor::new(config(&m, format!("http://127.0.0.1:{port}/v1"))).expect("start");
    let f = failed(exec.run(&job(m.hash, text("hi"), 64, 64)).await);
    assert_eq!(f.kind, FaultKind::External);
    assert!(
        matches!(f.reason, Reason::Engine(CallError::Unreachable(_))),
        "{f:?}"
    );
    assert_eq!(f.usage.tokens, 0);
    let o = exec.execute(&job(m.hash, text("hi"), 64, 64)).await;
    assert!(matches!(
        o,
        Outcome::Fault {
            kind: FaultKind::External,
            progress_bps: 0,
            ..
        }
    ));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn llm_max_tokens_too_small_is_impossible() {
    let r = runner(Behaviour::Serve).await;
    let prompt = "user: hello\nassistant: ".len() as u64;
    let f = failed(
        r.exec
            .run(&job(r.model.hash, text("hello"), prompt, 64))
            .await,
    );
    assert_eq!(
        (f.kind, f.reason),
        (
            FaultKind::Impossible,
            Reason::PromptTooLong {
                prompt_tokens: prompt,
                max_tokens: prompt
            }
        )
    );
    // One more token is room for exactly one completion token.
    let (_, usage) = done(
        r.exec
            .execute(&job(r.model.hash, text("hello"), prompt + 1, 64))
            .await,
    );
    assert_eq!(usage.tokens, prompt + 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn llm_oversized_answer_is_capped() {
    let r = runner(Behaviour::Serve).await;
    let full = done(
        r.exec
            .execute(&job(r.model.hash, text("Tell me a story."), 128, 4_096))
            .await,
    );
    assert!(full.0.len() > 8, "the answer is {} bytes", full.0.len());
    let capped = done(
        r.exec
            .execute(&job(r.model.hash, text("Tell me a story."), 128, 8))
            .await,
    );
    assert!(capped.0.len() <= 8);
    assert!(full.0.starts_with(&capped.0));
    // At most 3 bytes short of the cap: cut on a character boundary, never inside one.
    assert!(capped.0.len() >= 5);
    assert!(std::str::from_utf8(&capped.0).is_ok());
    assert_eq!(capped.1.tokens, full.1.tokens);
    // A semantic-similarity document whose embedding cannot fit is impossible.
    let mut j = job(r.model.hash, text("Tell me a story."), 128, 64);
    j.mode = Mode::SemanticSimilarity.name().into();
    let f = failed(r.exec.run(&j).await);
    assert_eq!(
        (f.kind, f.reason),
        (FaultKind::Impossible, Reason::ResultTooLarge)
    );
    // The answer was produced: its tokens are reported with the fault.
    assert_eq!(f.usage.tokens, full.1.tokens);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn llm_hanging_engine_faults_within_the_bound() {
    let r = runner(Behaviour::Hang).await;
    let mut j = job(r.model.hash, text("hi"), 64, 64);
    j.bounds.max_wall_ms = 300;
    let f = failed(r.exec.run(&j).await);
    assert_eq!(
        (f.kind, f.reason),
        (FaultKind::External, Reason::EngineTimeout)
    );
    assert!(f.usage.wall_ms >= 300);
    assert_eq!(f.usage.tokens, 0);
    // An engine that answers the probe but not the answer is up: the job's time was too short.
    let r = runner(Behaviour::HangAfterProbe).await;
    let mut j = job(r.model.hash, text("hi"), 64, 64);
    j.bounds.max_wall_ms = 2_000;
    let f = failed(r.exec.run(&j).await);
    assert_eq!(
        (f.kind, f.reason),
        (FaultKind::Impossible, Reason::WallTimeExceeded)
    );
    assert!(f.usage.wall_ms >= 2_000);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn llm_flooding_engine_is_read_only_up_to_the_cap() {
    let r = runner(Behaviour::Flood).await;
    let f = failed(r.exec.run(&job(r.model.hash, text("hi"), 64, 64)).await);
    // 1 MiB + 8 × 64 bytes read, then the 4 MiB answer is refused.
    assert_eq!(
        (f.kind, f.reason),
        (
            FaultKind::Impossible,
            Reason::Engine(CallError::TooLarge {
                cap: (1 << 20) + 8 * 64
            })
        )
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn llm_engine_without_usage_is_a_fault_never_invented_usage() {
    let r = runner(Behaviour::NoUsage).await;
    let f = failed(r.exec.run(&job(r.model.hash, text("hi"), 64, 64)).await);
    assert_eq!(
        (f.kind, f.reason),
        (FaultKind::External, Reason::Engine(CallError::NoUsage))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn llm_malformed_input_is_the_actors_fault() {
    let r = runner(Behaviour::Serve).await;
    let bad_role = Value::Map(vec![(
        text("messages"),
        Value::Array(vec![Value::Map(vec![
            (text("role"), text("tool")),
            (text("content"), text("x")),
        ])]),
    )]);
    for (input, field) in [
        (Value::Uint(3), "input"),
        (
            Value::Map(vec![(text("messages"), Value::Array(vec![]))]),
            "input",
        ),
        (bad_role, "input.messages[0].role"),
    ] {
        let f = failed(r.exec.run(&job(r.model.hash, input, 64, 64)).await);
        assert_eq!(f.kind, FaultKind::Actor);
        assert!(
            matches!(&f.reason, Reason::Input(InputError { field: got, .. }) if got == field),
            "{f:?}"
        );
    }
    let mut j = job(r.model.hash, text("hi"), 64, 64);
    j.model = None;
    assert_eq!(failed(r.exec.run(&j).await).reason, Reason::NoModel);
    // An embedding field that would overwrite the answer's text.
    j.model = Some(r.model.hash);
    j.mode = Mode::SemanticSimilarity.name().into();
    j.params = Value::Map(vec![(text("field"), text("text"))]);
    let f = failed(r.exec.run(&j).await);
    assert!(matches!(f.reason, Reason::Params(_)), "{f:?}");
}
