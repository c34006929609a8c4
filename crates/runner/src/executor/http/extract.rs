//! The oracle mode's extraction, runner side: the job's declaration is read with the chain's
//! own parser (`cowboy_exec::system::verifier::oracle::rules`, and every rule re-checked by
//! `extract::validate`), so a runner accepts exactly the rules the chain accepted; then each
//! rule is applied to the fetched body and the values are answered as the verifier reads them,
//! `{"observed_at": unix seconds, "values": {name: value}}` in JSON.
//!
//! Choices where the spec is silent (every runner must make the same ones to agree):
//! * **jsonpath**: the body must be JSON; one match is the value, several are a list of them
//!   in document order; no match, or a JSON `null`, is "not found".
//! * **regex**: applied with `search` (Python's `re.search`) to the body as UTF-8 text; the
//!   value is group 1 when the pattern has groups, else the whole match; text that is a JSON
//!   number (`-12.5`, `3e2`) is answered as that number, so a median can use it.
//! * **css**: the page parsed as HTML5 and the selector list matched (`css.rs` says what
//!   `::text`, `::attr(name)` and a bare selector yield); each text is a value as a regex
//!   match's is, one match the value, several a list.
//! * A value not found is an `external` fault (the site did not serve what the job expects);
//!   a step budget exhausted (regex backtracking, JSONPath over a hostile document) is
//!   `impossible`.

use cowboy_exec::system::runners::records::Fields;
use cowboy_exec::system::verifier::extract::{Kind, REGEX_MAX_PROGRAM};
use cowboy_exec::system::verifier::oracle;
use cowboy_pvm_re::{Budget, Limits, Regex};
use cowboy_types::cbor::Value;
use serde_json::{Map, Value as Json};

use super::css::{self, CssError};
use super::jsonpath::{self, PathError};
use crate::executor::FaultKind;

/// Why extraction produced no result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExtractError {
    /// A `jsonpath` rule needs a JSON body (the parser's reason). `external`.
    NotJson(String),
    /// A `regex` or `css` rule needs a UTF-8 body. `external`.
    NotText,
    /// The named value matched nothing (or only null). `external`.
    NotFound(String),
    /// The named rule is malformed (the reason). `actor`.
    Malformed(String),
    /// The extraction passed its step budget. `impossible`.
    Budget,
}

impl ExtractError {
    /// The fault this is reported as.
    pub fn kind(&self) -> FaultKind {
        match self {
            ExtractError::Malformed(_) => FaultKind::Actor,
            ExtractError::Budget => FaultKind::Impossible,
            ExtractError::NotJson(_) | ExtractError::NotText | ExtractError::NotFound(_) => {
                FaultKind::External
            }
        }
    }
}

/// A job's checked extraction rules.
pub struct Rules(oracle::Oracle);

impl Rules {
    /// The declaration in the job's `verification.params`; `Err` is the chain's reason.
    pub fn of(params: &Value) -> Result<Rules, String> {
        let fields = Fields::of(params).ok_or("params: must be a map")?;
        // The committee size only sets `need`, which extraction does not use.
        let o = oracle::rules(&fields, 1)?;
        o.check_extraction()?;
        Ok(Rules(o))
    }

    /// The oracle result for `body`, observed now, with at most `steps` extraction steps.
    pub fn apply(&self, body: &[u8], steps: u64) -> Result<Vec<u8>, ExtractError> {
        let observed_at = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let mut budget = Budget::new(steps);
        let mut json: Option<Json> = None;
        let mut values = Map::new();
        for (name, (kind, rule)) in self.0.names.iter().zip(&self.0.extract) {
            let value = match kind {
                Kind::JsonPath => {
                    if json.is_none() {
                        json = Some(
                            serde_json::from_slice(body)
                                .map_err(|e| ExtractError::NotJson(e.to_string()))?,
                        );
                    }
                    let doc = json.as_ref().unwrap_or(&Json::Null);
                    let found = jsonpath::select(rule, doc, &mut budget).map_err(|e| match e {
                        PathError::Budget => ExtractError::Budget,
                        PathError::Malformed(m) => ExtractError::Malformed(format!("{name}: {m}")),
                    })?;
                    one_or_list(found.into_iter().cloned().collect())
                }
                Kind::Regex => regex(name, rule, body, &mut budget)?,
                Kind::Css => {
                    let html = std::str::from_utf8(body).map_err(|_| ExtractError::NotText)?;
                    let found = css::select(rule, html, &mut budget).map_err(|e| match e {
                        CssError::Budget => ExtractError::Budget,
                        CssError::Malformed(m) => ExtractError::Malformed(format!("{name}: {m}")),
                    })?;
                    one_or_list(found.into_iter().map(scalar).collect())
                }
            };
            let value = value.ok_or_else(|| ExtractError::NotFound(name.clone()))?;
            values.insert(name.clone(), value);
        }
        let mut result = Map::new();
        result.insert("observed_at".into(), Json::from(observed_at));
        result.insert("values".into(), Json::Object(values));
        serde_json::to_vec(&Json::Object(result)).map_err(|e| ExtractError::NotJson(e.to_string()))
    }
}

/// `rule`'s value in `body` (`None`: no match).
fn regex(
    name: &str,
    rule: &str,
    body: &[u8],
    budget: &mut Budget,
) -> Result<Option<Json>, ExtractError> {
    let text = std::str::from_utf8(body).map_err(|_| ExtractError::NotText)?;
    let limits = Limits {
        max_memory: Limits::default().max_memory,
        max_program: REGEX_MAX_PROGRAM,
    };
    let malformed = |e: String| ExtractError::Malformed(format!("{name}: {e}"));
    let re = Regex::compile_str(rule, 0, budget, &limits).map_err(|e| malformed(e.to_string()))?;
    let units = cowboy_pvm_re::str_units(text);
    let found = re
        .search(&units, 0, units.len(), budget, &limits)
        .map_err(|_| ExtractError::Budget)?;
    let Some(m) = found else { return Ok(None) };
    let group = usize::from(re.groups() > 0);
    let Some(matched) = m.group(&units, group) else {
        return Ok(None);
    };
    Ok(Some(scalar(
        matched.iter().filter_map(|&u| char::from_u32(u)).collect(),
    )))
}

/// Extracted text as a value: a number's text as the number, anything else as text.
fn scalar(s: String) -> Json {
    match serde_json::from_str::<serde_json::Number>(&s) {
        Ok(n) if s.trim() == s => Json::Number(n),
        _ => Json::String(s),
    }
}

/// A rule's matches as one value: none (or only null) is nothing, one is itself, several a
/// list in order.
fn one_or_list(mut found: Vec<Json>) -> Option<Json> {
    match found.len() {
        0 => None,
        1 => Some(found.remove(0)).filter(|v| !v.is_null()),
        _ => Some(Json::Array(found)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(s: &str) -> Value {
        Value::Text(s.into())
    }

    fn rules(list: &[(&str, &str, &str)]) -> Rules {
        let extract = list
            .iter()
            .map(|(name, kind, rule)| {
                Value::Map(vec![(text("name"), text(name)), (text(kind), text(rule))])
            })
            .collect();
        let params = Value::Map(vec![
            (text("extract"), Value::Array(extract)),
            (text("snapshot"), text("first_valid")),
        ]);
        Rules::of(&params).expect("valid rules")
    }

    fn values(r: &Rules, body: &str) -> Json {
        let out = r.apply(body.as_bytes(), 1_000_000).expect("extracted");
        let doc: Json = serde_json::from_slice(&out).expect("JSON");
        doc["values"].clone()
    }

    #[test]
    fn regex_values_are_numbers_when_they_read_as_one() {
        let r = rules(&[
            ("price", "regex", r"price: ([0-9.]+)"),
            ("unit", "regex", r"[A-Z]{3}"),
            ("padded", "regex", r"at( \d+)"),
        ]);
        assert_eq!(
            values(&r, "price: 2500.25 USD at 7"),
            serde_json::json!({"price": 2500.25, "unit": "USD", "padded": " 7"})
        );
    }

    #[test]
    fn several_jsonpath_matches_are_a_list_and_none_is_not_found() {
        let r = rules(&[("ids", "jsonpath", "$.xs[*].id")]);
        assert_eq!(
            values(&r, r#"{"xs": [{"id": 1}, {"id": 2}]}"#),
            serde_json::json!({"ids": [1, 2]})
        );
        for empty in [r#"{"xs": []}"#, r#"{"xs": [{"id": null}]}"#] {
            assert_eq!(
                r.apply(empty.as_bytes(), 1_000),
                Err(ExtractError::NotFound("ids".into()))
            );
        }
    }

    #[test]
    fn a_catastrophic_pattern_stops_at_the_step_budget() {
        // Nested quantifiers over a long run of `a` without the final `b`: exponential
        // backtracking in a naive engine; here it is refused at the budget.
        let r = rules(&[("x", "regex", "(a+)+b")]);
        let body = "a".repeat(64);
        let e = r.apply(body.as_bytes(), 100_000).expect_err("refused");
        assert_eq!(e, ExtractError::Budget);
        assert_eq!(e.kind(), FaultKind::Impossible);
    }

    #[test]
    fn the_body_must_be_what_the_rule_reads_and_css_reads_html() {
        let re = rules(&[("x", "regex", "a")]);
        assert_eq!(re.apply(&[0xff, 0xfe], 1_000), Err(ExtractError::NotText));
        let css = rules(&[("x", "css", "span.price::text")]);
        assert_eq!(css.apply(&[0xff], 1_000), Err(ExtractError::NotText));
        assert_eq!(
            values(&css, "<p><span class=price> 12.5 </span></p>"),
            serde_json::json!({"x": 12.5})
        );
    }
}
