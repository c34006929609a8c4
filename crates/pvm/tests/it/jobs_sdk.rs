//! `cowboy_sdk`'s off-chain jobs from the actor's side, on an in-memory host that records the
//! messages an actor sends: `submit_job` sends the dispatcher's JobSpec with the escrow and
//! knows the job's id beforehand; `capture()` is checked at submission and comes back to the
//! continuation; a `@runner.continuation` runs only for the result verifier delivering a job the
//! actor waits for, with that handler, once; `abandon_job` makes a late result refused. Every
//! refusal is a Python exception that sends and stores nothing.

use cowboy_pvm::actor::{invoke, Entry, Invocation, InvokeError};
use cowboy_pvm::host::{Addr, HostCosts};
use cowboy_pvm::Limits;
use cowboy_types::cbor::{self, Value};
use cowboy_types::system::{JOB_DISPATCHER, RESULT_VERIFIER};

use crate::common::MemHost;

const SRC: &str = r#"
from cowboy_sdk import (
    Bounds, CustomJob, HttpJob, LlmJob, McpJob, ResultSchema, Verification, abandon_job,
    actor, capture, next_job_id, runner, submit_job,
)


def price_job(symbol):
    return HttpJob(
        ["api.example.com"],
        {"url": "https://api.example.com/price?s=" + symbol},
        result_schema=ResultSchema(64),
        verification=Verification.majority_vote("price"),
        max_price=3000,
        tip=10,
        timeout_blocks=5,
    )


@actor
class Consumer:
    def ask(self, symbol):
        return submit_job(price_job(symbol), self.on_price, capture(symbol=symbol))

    def predicted(self):
        return next_job_id()

    def specs(self):
        schema = ResultSchema(128, {"type": "object"}, 50)
        one = Verification.none()
        return [
            LlmJob(b"m" * 32, "hello", result_schema=schema, verification=one, max_price=5,
                   bounds=Bounds(100, 2000, 512)).to_spec("on_price"),
            McpJob({"tool": "t"}, result_schema=schema, verification=Verification.deterministic(),
                   max_price=5, tee_required=True).to_spec("on_price"),
            CustomJob(result_schema=schema,
                      verification=Verification.structured_match([{"path": "x", "tolerance_bps": 10}]),
                      max_price=5, runner_pool=b"pool").to_spec("on_price"),
        ]

    def too_big(self):
        submit_job(price_job("X"), self.on_price, capture(blob=b"x" * 5000))

    def not_encodable(self):
        submit_job(price_job("X"), self.on_price, capture(f=len))

    def plain_handler(self):
        submit_job(price_job("X"), self.ask)

    def give_up(self, job_id):
        return abandon_job(job_id).symbol

    @runner.continuation
    def on_price(self, job_id, result, context):
        self.storage["price:" + context.symbol] = result
        return context.symbol

    @runner.continuation
    def on_other(self, job_id, result, context):
        return "other"
"#;

const ME: Addr = [1; 20];

fn call(
    host: &mut MemHost,
    sender: Addr,
    handler: &str,
    args: Vec<Value>,
) -> Result<Value, InvokeError> {
    host.ctx.sender = sender;
    let inv = Invocation {
        source: SRC,
        code_hash: None,
        filename: "consumer.py",
        entry: Entry::Call {
            handler: handler.into(),
            args: Value::Array(args),
        },
        limits: Limits {
            cycles: Some(50_000_000),
            ..Limits::default()
        },
        costs: HostCosts::default(),
    };
    invoke(inv, host)
        .result
        .map(|b| cbor::decode(&b).expect("canonical return value"))
}

fn class(r: Result<Value, InvokeError>) -> String {
    match r {
        Err(InvokeError::Python { class, .. }) => class,
        other => panic!("expected a Python exception, got {other:?}"),
    }
}

fn text(s: &str) -> Value {
    Value::Text(s.into())
}

fn field<'a>(v: &'a Value, name: &str) -> &'a Value {
    let Value::Map(m) = v else {
        panic!("not a map: {v:?}")
    };
    m.iter()
        .find(|(k, _)| *k == text(name))
        .map(|(_, v)| v)
        .unwrap_or_else(|| panic!("no field {name} in {v:?}"))
}

fn job_id(n: u64) -> Value {
    let h = cowboy_types::hash::keccak256_concat(&[&ME, &n.to_le_bytes(), b"job"]);
    Value::Bytes(h.0.to_vec())
}

const USER: Addr = [2; 20];

#[test]
fn submit_job_sends_the_spec_with_the_escrow_and_knows_the_id() {
    let mut host = MemHost::new(u64::MAX);
    host.ctx.self_address = ME;
    assert_eq!(call(&mut host, USER, "predicted", vec![]), Ok(job_id(0)));
    let id = call(&mut host, USER, "ask", vec![text("ETH")]).expect("submitted");
    assert_eq!(
        id,
        job_id(0),
        "keccak256(actor ‖ 0_le8 ‖ \"job\"), as the dispatcher numbers it"
    );
    assert_eq!(host.sent.len(), 1);
    let (to, handler, args, value) = host.sent[0].clone();
    assert_eq!(
        (to, handler.as_str(), value),
        (JOB_DISPATCHER.0, "submit_job", 3_010)
    );
    let Ok(Value::Array(args)) = cbor::decode(&args) else {
        panic!("positional args")
    };
    let spec = &args[0];
    assert_eq!(field(spec, "job_type"), &text("http"));
    assert_eq!(
        field(spec, "domains"),
        &Value::Array(vec![text("api.example.com")])
    );
    assert_eq!(
        field(spec, "callback"),
        &Value::Map(vec![(text("handler"), text("on_price"))]),
        "the callback actor defaults to the submitter"
    );
    let v = field(spec, "verification");
    assert_eq!(field(v, "mode"), &text("majority_vote"));
    assert_eq!(
        (field(v, "runners"), field(v, "threshold")),
        (&Value::Uint(3), &Value::Uint(3))
    );
    assert_eq!(field(field(v, "params"), "field"), &text("price"));
    assert_eq!(
        field(field(spec, "result_schema"), "data_format"),
        &text("json")
    );
    assert_eq!(field(spec, "max_price"), &Value::Uint(3_000));
    assert_eq!(field(spec, "timeout_blocks"), &Value::Uint(5));
    assert_eq!(
        call(&mut host, USER, "ask", vec![text("BTC")]),
        Ok(job_id(1)),
        "counted"
    );
}

#[test]
fn every_job_type_builds_its_spec() {
    let mut host = MemHost::new(u64::MAX);
    let Ok(Value::Array(specs)) = call(&mut host, USER, "specs", vec![]) else {
        panic!()
    };
    let (llm, mcp, custom) = (&specs[0], &specs[1], &specs[2]);
    assert_eq!(field(llm, "job_type"), &text("llm"));
    assert_eq!(field(llm, "model"), &Value::Bytes(vec![b'm'; 32]));
    assert_eq!(field(llm, "input"), &text("hello"));
    assert_eq!(field(field(llm, "bounds"), "max_tokens"), &Value::Uint(100));
    assert_eq!(
        field(field(llm, "verification"), "runners"),
        &Value::Uint(1)
    );
    assert_eq!(field(mcp, "job_type"), &text("mcp"));
    assert_eq!(field(mcp, "tee_required"), &Value::Bool(true));
    assert_eq!(
        field(field(mcp, "verification"), "mode"),
        &text("deterministic")
    );
    assert_eq!(field(custom, "job_type"), &text("custom"));
    assert_eq!(
        field(custom, "required_runner_pool"),
        &Value::Bytes(b"pool".to_vec())
    );
    assert_eq!(
        field(field(field(custom, "verification"), "params"), "fields"),
        &Value::Array(vec![Value::Map(vec![
            (text("path"), text("x")),
            (text("tolerance_bps"), Value::Uint(10)),
        ])])
    );
    assert!(host.sent.is_empty(), "building a spec sends nothing");
}

#[test]
fn bad_submissions_send_and_store_nothing() {
    let mut host = MemHost::new(u64::MAX);
    host.ctx.self_address = ME;
    for (handler, want) in [
        ("too_big", "ValueError"),
        ("not_encodable", "TypeError"),
        ("plain_handler", "TypeError"),
    ] {
        assert_eq!(
            class(call(&mut host, USER, handler, vec![])),
            want,
            "{handler}"
        );
    }
    assert!(host.sent.is_empty());
    assert!(host.store.is_empty(), "no pending job, no count");
    assert_eq!(
        call(&mut host, USER, "ask", vec![text("ETH")]),
        Ok(job_id(0))
    );
}

#[test]
fn a_continuation_runs_once_for_the_verifier_and_a_job_it_waits_for() {
    let mut host = MemHost::new(u64::MAX);
    host.ctx.self_address = ME;
    let first = call(&mut host, USER, "ask", vec![text("ETH")]).expect("submitted");
    let second = call(&mut host, USER, "ask", vec![text("BTC")]).expect("submitted");
    let result = Value::Bytes(br#"{"price": 100.25}"#.to_vec());
    let deliver = |host: &mut MemHost, from: Addr, handler: &str, id: &Value| {
        call(host, from, handler, vec![id.clone(), result.clone()])
    };

    let before = host.store.clone();
    assert_eq!(
        class(deliver(&mut host, USER, "on_price", &first)),
        "PermissionError",
        "not the verifier"
    );
    let stranger = Value::Bytes(vec![9; 32]);
    assert_eq!(
        class(deliver(&mut host, RESULT_VERIFIER.0, "on_price", &stranger)),
        "PermissionError",
        "someone else's job naming this actor as its callback"
    );
    assert_eq!(
        class(deliver(&mut host, RESULT_VERIFIER.0, "on_other", &first)),
        "PermissionError",
        "the job continues in on_price"
    );
    assert_eq!(host.store, before, "refusals change nothing");

    assert_eq!(
        deliver(&mut host, RESULT_VERIFIER.0, "on_price", &first),
        Ok(text("ETH")),
        "the captured context"
    );
    let stored = host
        .store
        .iter()
        .find(|(k, _)| cbor::decode(k).ok() == Some(text("price:ETH")))
        .map(|(_, v)| cbor::decode(v).expect("value"));
    assert_eq!(stored, Some(result.clone()));
    assert_eq!(
        class(deliver(&mut host, RESULT_VERIFIER.0, "on_price", &first)),
        "PermissionError",
        "never twice"
    );

    // The actor gives up on the second job (its own timeout): the late result is refused.
    assert_eq!(
        call(&mut host, USER, "give_up", vec![second.clone()]),
        Ok(text("BTC"))
    );
    assert_eq!(
        class(deliver(&mut host, RESULT_VERIFIER.0, "on_price", &second)),
        "PermissionError"
    );
    assert_eq!(
        class(call(&mut host, USER, "give_up", vec![second])),
        "KeyError"
    );
}
