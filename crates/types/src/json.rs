//! CBOR values as JSON, both ways: the rendering the RPC uses for return values, event data
//! and storage values (`crates/node/RPC.md`, "Encodings"), and the conversion the CLI applies
//! to `--args`.
//!
//! To JSON: integers are numbers (strings beyond ±2^53, where JSON readers lose precision),
//! text is a string, bytes are `{"bytes": "0x…"}`, arrays are arrays, maps whose keys are all
//! text are objects, other maps are `{"map": [[k, v], …]}`, floats are numbers (non-finite
//! floats are strings `"NaN"`, `"Infinity"`, `"-Infinity"`).
//!
//! From JSON: the inverse for what JSON can say — a number without fraction or exponent is an
//! integer, any other number a float; `{"bytes": "0x…"}` is bytes; `{"map": [[k, v], …]}` is a
//! map with arbitrary keys; other objects are maps with text keys.

use serde_json::{Map, Number, Value as Json};

use crate::cbor::Value;
use crate::hash::{hex_lower, parse_hex};

const SAFE: u64 = 1 << 53;

/// Render a CBOR value as JSON.
pub fn to_json(v: &Value) -> Json {
    match v {
        Value::Uint(n) if *n <= SAFE => Json::Number((*n).into()),
        Value::Uint(n) => Json::String(n.to_string()),
        Value::Nint(n) if *n < SAFE => Json::Number((-1 - *n as i64).into()),
        Value::Nint(n) => Json::String(format!("-{}", u128::from(*n) + 1)),
        Value::BigUint(_) | Value::BigNint(_) => Json::String(big_to_decimal(v)),
        Value::Bytes(b) => bytes_json(b),
        Value::Text(s) => Json::String(s.clone()),
        Value::Array(items) => Json::Array(items.iter().map(to_json).collect()),
        Value::Map(entries) => {
            if entries.iter().all(|(k, _)| matches!(k, Value::Text(_))) {
                let mut m = Map::new();
                for (k, val) in entries {
                    if let Value::Text(k) = k {
                        m.insert(k.clone(), to_json(val));
                    }
                }
                Json::Object(m)
            } else {
                let pairs = entries
                    .iter()
                    .map(|(k, val)| Json::Array(vec![to_json(k), to_json(val)]))
                    .collect();
                let mut m = Map::new();
                m.insert("map".into(), Json::Array(pairs));
                Json::Object(m)
            }
        }
        Value::Bool(b) => Json::Bool(*b),
        Value::Null => Json::Null,
        Value::Float(f) => match Number::from_f64(*f) {
            Some(n) => Json::Number(n),
            None if f.is_nan() => Json::String("NaN".into()),
            None if *f > 0.0 => Json::String("Infinity".into()),
            None => Json::String("-Infinity".into()),
        },
    }
}

fn bytes_json(b: &[u8]) -> Json {
    let mut m = Map::new();
    m.insert("bytes".into(), Json::String(format!("0x{}", hex_lower(b))));
    Json::Object(m)
}

/// Decimal digits of a tagged big integer.
fn big_to_decimal(v: &Value) -> String {
    let (neg, mag) = match v {
        Value::BigUint(m) => (false, m),
        Value::BigNint(m) => (true, m),
        _ => return String::new(),
    };
    // Schoolbook base conversion: magnitudes are bounded by the decoder (4096-bit ints).
    let mut digits = mag.clone();
    let mut out = Vec::new();
    while digits.iter().any(|&d| d != 0) {
        let mut rem = 0u32;
        for d in digits.iter_mut() {
            let cur = (rem << 8) | u32::from(*d);
            *d = (cur / 10) as u8;
            rem = cur % 10;
        }
        out.push(b'0' + rem as u8);
    }
    if out.is_empty() {
        out.push(b'0');
    }
    if neg {
        // -1 - n: add one to the magnitude's decimal digits.
        let mut carry = true;
        for d in out.iter_mut() {
            if !carry {
                break;
            }
            if *d == b'9' {
                *d = b'0';
            } else {
                *d += 1;
                carry = false;
            }
        }
        if carry {
            out.push(b'1');
        }
        out.push(b'-');
    }
    out.reverse();
    String::from_utf8(out).unwrap_or_default()
}

/// Why a JSON document has no CBOR reading.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FromJsonError(pub String);

impl std::fmt::Display for FromJsonError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for FromJsonError {}

/// Convert JSON to a CBOR value (see the module docs).
pub fn from_json(j: &Json) -> Result<Value, FromJsonError> {
    Ok(match j {
        Json::Null => Value::Null,
        Json::Bool(b) => Value::Bool(*b),
        Json::Number(n) => {
            if let Some(u) = n.as_u64() {
                Value::Uint(u)
            } else if let Some(i) = n.as_i64() {
                Value::from_i128(i128::from(i))
            } else if let Some(f) = n.as_f64() {
                Value::Float(f)
            } else {
                return Err(FromJsonError(format!("number {n} is out of range")));
            }
        }
        Json::String(s) => Value::Text(s.clone()),
        Json::Array(items) => Value::Array(items.iter().map(from_json).collect::<Result<_, _>>()?),
        Json::Object(m) => {
            if m.len() == 1 {
                if let Some(Json::String(h)) = m.get("bytes") {
                    let b = parse_hex(h.strip_prefix("0x").unwrap_or(h)).ok_or_else(|| {
                        FromJsonError(format!("{{\"bytes\": {h:?}}} is not 0x-prefixed hex"))
                    })?;
                    return Ok(Value::Bytes(b));
                }
                if let Some(Json::Array(pairs)) = m.get("map") {
                    let mut entries = Vec::new();
                    for p in pairs {
                        match p {
                            Json::Array(kv) if kv.len() == 2 => {
                                entries.push((from_json(&kv[0])?, from_json(&kv[1])?))
                            }
                            _ => {
                                return Err(FromJsonError(
                                    "{\"map\": …} must hold [key, value] pairs".into(),
                                ))
                            }
                        }
                    }
                    return Ok(Value::Map(entries));
                }
            }
            let mut entries = Vec::new();
            for (k, v) in m {
                entries.push((Value::Text(k.clone()), from_json(v)?));
            }
            Value::Map(entries)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn round_trips() {
        for j in [
            json!(null),
            json!([1, -2, "x", true, 1.5, {"a": [1]}]),
            json!({"bytes": "0x00ff"}),
            json!({"map": [[1, "one"], [{"bytes": "0x01"}, 2]]}),
            json!(9007199254740992u64),
        ] {
            assert_eq!(to_json(&from_json(&j).unwrap()), j, "{j}");
        }
    }

    #[test]
    fn large_integers_become_strings() {
        assert_eq!(
            to_json(&Value::Uint(u64::MAX)),
            json!("18446744073709551615")
        );
        assert_eq!(
            to_json(&Value::Nint(u64::MAX)),
            json!("-18446744073709551616")
        );
        assert_eq!(
            to_json(&Value::from_u128(u128::MAX)),
            json!(u128::MAX.to_string())
        );
        assert_eq!(
            to_json(&Value::from_i128(-(1i128 << 100))),
            json!((-(1i128 << 100)).to_string())
        );
    }

    #[test]
    fn bad_bytes_are_an_error() {
        assert!(from_json(&json!({"bytes": "zz"})).is_err());
        assert!(from_json(&json!({"map": [1]})).is_err());
    }
}
