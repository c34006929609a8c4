//! The result bytes of an LLM job.
//!
//! * Every mode but semantic similarity: the answer's UTF-8 bytes, capped at
//!   `max_return_bytes` on a character boundary. Greedy decoding on one model gives the same
//!   bytes on every runner, so the deterministic mode compares them as they are.
//! * Semantic similarity: the JSON document `{"text": answer, <field>: embedding}` (the
//!   mode's `field`, default `"embedding"`; a dotted path nests maps), the answer capped so
//!   the whole document fits `max_return_bytes`. The embedding is the engine's embedding of
//!   the whole answer, scaled so its largest component is ±100 and written at 4 decimals:
//!   exactly the numbers `verifier/modes.rs` reads (at most 1,024 of them in `[-100, 100]`,
//!   4 decimals), at the most precision those bounds allow; cosine similarity does not
//!   depend on the scale. JSON because it is the result format the SDK declares by default
//!   (`data_format: "json"`); the mode reads a CBOR result's numbers as integers only.

use cowboy_exec::system::verifier::modes::MAX_EMBEDDING_DIMS;

/// Units of an embedding component: 10^-4 (the 4 decimals the mode keeps).
const UNITS: f64 = 10_000.0;
/// The largest component, 100, in those units.
const LARGEST: f64 = 100.0 * UNITS;

/// Why an engine's embedding cannot be returned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EmbeddingError {
    /// More dimensions than the mode accepts ([`MAX_EMBEDDING_DIMS`]).
    TooManyDims(usize),
    /// No component, a non-finite one, or all zero: no direction to compare.
    Degenerate,
}

/// `text` cut to at most `max` bytes, on a character boundary.
pub(super) fn cap(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// The embedding in units of 10^-4, scaled so the largest magnitude is exactly 100.
pub(super) fn quantize(v: &[f64]) -> Result<Vec<i64>, EmbeddingError> {
    if v.len() > MAX_EMBEDDING_DIMS {
        return Err(EmbeddingError::TooManyDims(v.len()));
    }
    if v.iter().any(|x| !x.is_finite()) {
        return Err(EmbeddingError::Degenerate);
    }
    let largest = v.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    if largest == 0.0 {
        return Err(EmbeddingError::Degenerate);
    }
    // |x / largest| ≤ 1, so every component lands in [-10^6, 10^6].
    Ok(v.iter()
        .map(|x| (x / largest * LARGEST).round() as i64)
        .collect())
}

/// A component in units of 10^-4 as a JSON number with at most 4 decimals.
fn number(q: i64, out: &mut String) {
    let units = UNITS as u64;
    let (int, frac) = (q.unsigned_abs() / units, q.unsigned_abs() % units);
    if q < 0 {
        out.push('-');
    }
    out.push_str(&int.to_string());
    if frac != 0 {
        let digits = format!("{frac:04}");
        out.push('.');
        out.push_str(digits.trim_end_matches('0'));
    }
}

/// The semantic-similarity document for `text` with `embedding` at `field`, in at most `max`
/// bytes; `None` when even an empty text does not fit.
pub(super) fn semantic_document(
    text: &str,
    field: &str,
    embedding: &[i64],
    max: usize,
) -> Option<Vec<u8>> {
    let mut list = String::from("[");
    for (i, q) in embedding.iter().enumerate() {
        if i > 0 {
            list.push(',');
        }
        number(*q, &mut list);
    }
    list.push(']');
    // `"a.b"` nests: {"text": …, "a": {"b": [...]}}.
    let parts: Vec<&str> = field.split('.').collect();
    let mut tail = list;
    for (i, part) in parts.iter().enumerate().rev() {
        let key = serde_json::Value::from(*part).to_string();
        tail = format!("{key}:{tail}");
        if i > 0 {
            tail = format!("{{{tail}}}");
        }
    }
    let doc = |t: &str| format!("{{\"text\":{},{tail}}}", serde_json::Value::from(t));
    // The escaped length only grows with the prefix: the longest prefix that fits is found
    // by bisection over character boundaries.
    let bounds: Vec<usize> = text
        .char_indices()
        .map(|(i, _)| i)
        .chain([text.len()])
        .collect();
    let fits = |end: usize| doc(&text[..end]).len() <= max;
    if !fits(0) {
        return None;
    }
    let (mut lo, mut hi) = (0, bounds.len() - 1);
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        if fits(bounds[mid]) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    Some(doc(&text[..bounds[lo]]).into_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caps_on_character_boundaries() {
        assert_eq!(cap("héllo", 2), "h");
        assert_eq!(cap("héllo", 3), "hé");
        assert_eq!(cap("héllo", 100), "héllo");
    }

    #[test]
    fn quantizes_to_the_modes_bounds() {
        assert_eq!(
            quantize(&[0.5, -1.0, 0.25]).unwrap(),
            [500_000, -1_000_000, 250_000]
        );
        assert_eq!(quantize(&[0.0, 0.0]), Err(EmbeddingError::Degenerate));
        assert_eq!(quantize(&[f64::NAN]), Err(EmbeddingError::Degenerate));
        assert_eq!(quantize(&[]), Err(EmbeddingError::Degenerate));
        let big = vec![1.0; MAX_EMBEDDING_DIMS + 1];
        assert_eq!(quantize(&big), Err(EmbeddingError::TooManyDims(1_025)));
    }

    #[test]
    fn documents_nest_the_field_and_fit_the_cap() {
        let d = semantic_document("hi \"x\"", "a.b", &[1_000_000, -5, 123_400], 1_000).unwrap();
        assert_eq!(
            String::from_utf8(d).unwrap(),
            r#"{"text":"hi \"x\"","a":{"b":[100,-0.0005,12.34]}}"#
        );
        let d = semantic_document("abcdef", "embedding", &[10_000], 30).unwrap();
        assert_eq!(
            String::from_utf8(d).unwrap(),
            r#"{"text":"abc","embedding":[1]}"#
        );
        assert_eq!(semantic_document("abc", "embedding", &[10_000], 10), None);
    }
}
