//! An OpenAI-compatible server on loopback around the tiny engine: `POST
//! /v1/chat/completions` (greedy whatever the temperature; the chat template is
//! `"{role}: {content}\n"` per message then `"assistant: "`, one token per byte) and `POST
//! /v1/embeddings`, answering with the usage they counted, as vLLM or llama.cpp's server
//! would. A [`Behaviour`] scripts the hostile engines the executor must survive.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use serde_json::{json, Value};
use tokio::net::TcpListener;
use tokio::task::JoinHandle;

use super::engine::{TinyLm, CONTEXT, EOS};

/// How the server behaves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Behaviour {
    /// An honest engine.
    Serve,
    /// Accepts requests and never answers them.
    Hang,
    /// Answers without a `usage` object.
    NoUsage,
    /// Answers one-token requests (a runner's probe) and hangs on every other.
    HangAfterProbe,
    /// Answers every request with a 4 MiB body.
    Flood,
}

/// A running server; stopped when dropped.
pub struct Server {
    /// Its address.
    pub addr: SocketAddr,
    task: JoinHandle<()>,
}

impl Server {
    /// The API's base URL.
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.task.abort();
    }
}

struct State {
    model: TinyLm,
    name: String,
    behaviour: Behaviour,
}

/// Serve `model` as `name` on a fresh loopback port.
pub async fn serve(model: TinyLm, name: &str, behaviour: Behaviour) -> Server {
    let listener = TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind loopback");
    let addr = listener.local_addr().expect("local address");
    let state = Arc::new(State {
        model,
        name: name.to_string(),
        behaviour,
    });
    let task = tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let state = state.clone();
            tokio::spawn(async move {
                let service = service_fn(move |req| handle(state.clone(), req));
                // A client that goes away mid-request ends its connection, nothing more.
                let _ = http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
            });
        }
    });
    Server { addr, task }
}

fn reply(status: StatusCode, body: Value) -> Response<Full<Bytes>> {
    let mut r = Response::new(Full::new(Bytes::from(body.to_string())));
    *r.status_mut() = status;
    r
}

fn error(status: StatusCode, message: &str) -> Response<Full<Bytes>> {
    reply(status, json!({"error": {"message": message}}))
}

async fn handle(
    state: Arc<State>,
    req: Request<Incoming>,
) -> Result<Response<Full<Bytes>>, Infallible> {
    if state.behaviour == Behaviour::Hang {
        std::future::pending::<()>().await;
    }
    if state.behaviour == Behaviour::Flood {
        let content = "x".repeat(4 << 20);
        return Ok(reply(
            StatusCode::OK,
            json!({"choices": [{"message": {"content": content}}]}),
        ));
    }
    let path = req.uri().path().to_string();
    let Ok(body) = req.into_body().collect().await else {
        return Ok(error(StatusCode::BAD_REQUEST, "unreadable body"));
    };
    let Ok(body) = serde_json::from_slice::<Value>(&body.to_bytes()) else {
        return Ok(error(StatusCode::BAD_REQUEST, "not JSON"));
    };
    if state.behaviour == Behaviour::HangAfterProbe && body["max_tokens"].as_u64() != Some(1) {
        std::future::pending::<()>().await;
    }
    if body["model"].as_str() != Some(state.name.as_str()) {
        return Ok(error(StatusCode::NOT_FOUND, "no such model"));
    }
    let state2 = state.clone();
    // Inference is CPU work: off the async workers.
    let answer = tokio::task::spawn_blocking(move || match path.as_str() {
        "/v1/chat/completions" => chat(&state2, &body),
        "/v1/embeddings" => embeddings(&state2, &body),
        _ => Err((StatusCode::NOT_FOUND, "no such route".to_string())),
    })
    .await
    .expect("inference task");
    Ok(match answer {
        Ok(mut v) => {
            if state.behaviour == Behaviour::NoUsage {
                v.as_object_mut().expect("an object").remove("usage");
            }
            reply(StatusCode::OK, v)
        }
        Err((status, message)) => error(status, &message),
    })
}

/// A response body, or the status and message of a refusal.
type Answer = Result<Value, (StatusCode, String)>;

fn chat(state: &State, body: &Value) -> Answer {
    let bad = |m: &str| (StatusCode::BAD_REQUEST, m.to_string());
    let mut prompt = String::new();
    for m in body["messages"].as_array().ok_or_else(|| bad("messages"))? {
        let (Some(role), Some(content)) = (m["role"].as_str(), m["content"].as_str()) else {
            return Err(bad("a message needs role and content"));
        };
        prompt.push_str(&format!("{role}: {content}\n"));
    }
    prompt.push_str("assistant: ");
    let tokens: Vec<u32> = prompt.bytes().map(u32::from).collect();
    let max_new = body["max_tokens"]
        .as_u64()
        .filter(|n| *n >= 1)
        .ok_or_else(|| bad("max_tokens"))? as usize;
    if tokens.len() + max_new > CONTEXT {
        return Err(bad("the request exceeds the model's context"));
    }
    let out = state
        .model
        .generate(&tokens, max_new)
        .map_err(|e| bad(&e.to_string()))?;
    let stopped = out.last() == Some(&EOS);
    let text: Vec<u8> = out
        .iter()
        .filter(|t| **t != EOS)
        .map(|t| *t as u8)
        .collect();
    Ok(json!({
        "id": "chatcmpl-0",
        "object": "chat.completion",
        "model": state.name,
        "choices": [{
            "index": 0,
            "message": {"role": "assistant", "content": String::from_utf8_lossy(&text)},
            "finish_reason": if stopped { "stop" } else { "length" },
        }],
        "usage": {
            "prompt_tokens": tokens.len(),
            "completion_tokens": out.len(),
            "total_tokens": tokens.len() + out.len(),
        },
    }))
}

fn embeddings(state: &State, body: &Value) -> Answer {
    let bad = |m: &str| (StatusCode::BAD_REQUEST, m.to_string());
    let text = body["input"].as_str().ok_or_else(|| bad("input"))?;
    let tokens: Vec<u32> = text.bytes().map(u32::from).collect();
    if tokens.is_empty() || tokens.len() > CONTEXT {
        return Err(bad("input must be 1 to 1,024 tokens"));
    }
    let v = state
        .model
        .embed(&tokens)
        .map_err(|e| bad(&e.to_string()))?;
    Ok(json!({
        "object": "list",
        "data": [{"object": "embedding", "index": 0, "embedding": v}],
        "model": state.name,
        "usage": {"prompt_tokens": tokens.len(), "total_tokens": tokens.len()},
    }))
}
