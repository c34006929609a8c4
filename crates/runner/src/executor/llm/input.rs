//! An LLM job's input (`spec.input`, CBOR), as the runner reads it:
//!
//! * a text: the prompt, sent as one user message;
//! * `{"messages": [{"role": "system" | "user" | "assistant", "content": text}, …]}`: the
//!   conversation, sent as is (at least one message; no other keys).
//!
//! Anything else is the actor's fault (malformed input). The spec's size is already bounded
//! by the dispatcher (`job_spec_max_bytes`), so nothing here needs its own limit.

use cowboy_types::cbor::Value;

/// Who says a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// Instructions.
    System,
    /// The user.
    User,
    /// The model, earlier in the conversation.
    Assistant,
}

impl Role {
    /// Its name in the API.
    pub fn name(self) -> &'static str {
        match self {
            Role::System => "system",
            Role::User => "user",
            Role::Assistant => "assistant",
        }
    }

    fn parse(s: &str) -> Option<Role> {
        [Role::System, Role::User, Role::Assistant]
            .into_iter()
            .find(|r| r.name() == s)
    }
}

/// One message of the conversation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Message {
    /// Who says it.
    pub role: Role,
    /// What is said.
    pub content: String,
}

/// What is wrong with an input: the path of the offending part and the rule it breaks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputError {
    /// Where (`input`, `input.messages[2].role`, …).
    pub field: String,
    /// What it must be.
    pub expected: &'static str,
}

fn bad(field: impl Into<String>, expected: &'static str) -> InputError {
    InputError {
        field: field.into(),
        expected,
    }
}

/// The conversation an input asks for.
pub fn messages(input: &Value) -> Result<Vec<Message>, InputError> {
    let entries = match input {
        Value::Text(prompt) => {
            return Ok(vec![Message {
                role: Role::User,
                content: prompt.clone(),
            }])
        }
        Value::Map(entries) => entries,
        _ => return Err(bad("input", "a text or a map with \"messages\"")),
    };
    let list = match entries.as_slice() {
        [(Value::Text(k), Value::Array(list))] if k == "messages" && !list.is_empty() => list,
        _ => {
            return Err(bad(
                "input",
                "exactly {\"messages\": [one or more messages]}",
            ))
        }
    };
    list.iter()
        .enumerate()
        .map(|(i, m)| {
            let field = |name: &str| format!("input.messages[{i}]{name}");
            let Value::Map(kv) = m else {
                return Err(bad(field(""), "a map {\"role\", \"content\"}"));
            };
            let (mut role, mut content) = (None, None);
            for (k, v) in kv {
                match (k, v) {
                    (Value::Text(k), Value::Text(v)) if k == "role" => role = Some(v),
                    (Value::Text(k), Value::Text(v)) if k == "content" => content = Some(v),
                    _ => return Err(bad(field(""), "text \"role\" and \"content\" only")),
                }
            }
            let role = role
                .and_then(|r| Role::parse(r))
                .ok_or_else(|| bad(field(".role"), "\"system\", \"user\" or \"assistant\""))?;
            let content = content.ok_or_else(|| bad(field(".content"), "a text"))?;
            Ok(Message {
                role,
                content: content.clone(),
            })
        })
        .collect()
}
