//! The two calls the LLM executor makes on an OpenAI-compatible engine (vLLM, llama.cpp's
//! server, Ollama): `POST {base}/chat/completions` with greedy decoding and
//! `POST {base}/embeddings`. Responses are read up to a cap, whatever the engine sends; the
//! usage is what the engine reports, and a response without it is refused.

use reqwest::{Client, StatusCode};
use serde_json::{json, Value as Json};

use super::input::Message;

/// Where a model is served.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Endpoint {
    /// The API's base URL, up to and including `/v1` (e.g. `http://127.0.0.1:8000/v1`).
    pub base_url: String,
    /// The model's name on that server (the request's `model`).
    pub served_name: String,
    /// Sent as `Authorization: Bearer <key>` when set.
    pub api_key: Option<String>,
}

/// A chat completion.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Completion {
    /// The answer's text.
    pub text: String,
    /// Prompt tokens, as the engine counted them.
    pub prompt_tokens: u64,
    /// Completion tokens, as the engine counted them.
    pub completion_tokens: u64,
}

/// Why a call to the engine failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CallError {
    /// No connection, or the connection broke.
    Unreachable(String),
    /// The engine answered with this non-success status.
    Status(u16),
    /// The response body was larger than the cap.
    TooLarge {
        /// The cap, in bytes.
        cap: usize,
    },
    /// The body is not the API's response shape; names what is missing.
    Malformed(&'static str),
    /// The response reports no token usage.
    NoUsage,
}

/// `POST {base}/chat/completions`: greedy (temperature 0, top-p 1, seed 0), one choice, at
/// most `max_tokens` completion tokens.
pub(super) async fn chat(
    client: &Client,
    ep: &Endpoint,
    messages: &[Message],
    max_tokens: u64,
    cap: usize,
) -> Result<Completion, CallError> {
    let messages: Vec<Json> = messages
        .iter()
        .map(|m| json!({"role": m.role.name(), "content": m.content}))
        .collect();
    let body = json!({
        "model": ep.served_name,
        "messages": messages,
        "max_tokens": max_tokens,
        "temperature": 0,
        "top_p": 1,
        "seed": 0,
        "n": 1,
        "stream": false,
    });
    let r = post(client, ep, "chat/completions", &body, cap).await?;
    let text = r
        .pointer("/choices/0/message/content")
        .and_then(Json::as_str)
        .ok_or(CallError::Malformed("choices[0].message.content"))?
        .to_owned();
    let usage = r.get("usage").ok_or(CallError::NoUsage)?;
    let count = |name| usage.get(name).and_then(Json::as_u64);
    match (count("prompt_tokens"), count("completion_tokens")) {
        (Some(prompt_tokens), Some(completion_tokens)) => Ok(Completion {
            text,
            prompt_tokens,
            completion_tokens,
        }),
        _ => Err(CallError::NoUsage),
    }
}

/// `POST {base}/embeddings` of one text: its vector as the engine returns it.
pub(super) async fn embed(
    client: &Client,
    ep: &Endpoint,
    text: &str,
    cap: usize,
) -> Result<Vec<f64>, CallError> {
    let body = json!({"model": ep.served_name, "input": text});
    let r = post(client, ep, "embeddings", &body, cap).await?;
    r.pointer("/data/0/embedding")
        .and_then(Json::as_array)
        .ok_or(CallError::Malformed("data[0].embedding"))?
        .iter()
        .map(|x| {
            x.as_f64()
                .ok_or(CallError::Malformed("data[0].embedding[i]"))
        })
        .collect()
}

async fn post(
    client: &Client,
    ep: &Endpoint,
    path: &str,
    body: &Json,
    cap: usize,
) -> Result<Json, CallError> {
    let url = format!("{}/{path}", ep.base_url.trim_end_matches('/'));
    let mut req = client
        .post(url)
        .header("content-type", "application/json")
        .body(body.to_string());
    if let Some(key) = &ep.api_key {
        req = req.bearer_auth(key);
    }
    let mut resp = req
        .send()
        .await
        .map_err(|e| CallError::Unreachable(e.to_string()))?;
    if resp.status() != StatusCode::OK {
        return Err(CallError::Status(resp.status().as_u16()));
    }
    // Read chunk by chunk so a hostile engine cannot make us hold more than `cap` bytes.
    let mut bytes = Vec::new();
    while let Some(chunk) = resp
        .chunk()
        .await
        .map_err(|e| CallError::Unreachable(e.to_string()))?
    {
        if bytes.len() + chunk.len() > cap {
            return Err(CallError::TooLarge { cap });
        }
        bytes.extend_from_slice(&chunk);
    }
    serde_json::from_slice(&bytes).map_err(|_| CallError::Malformed("a JSON body"))
}
