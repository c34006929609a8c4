//! CSS rules of the oracle mode, runner side: the page parsed as HTML5 (html5ever, through
//! `scraper`) and each selector of the rule's list matched with Servo's `selectors`, over the
//! grammar the chain validates (`cowboy_exec::system::verifier::extract`).
//!
//! What a match yields (Scrapy's and parsel's pseudo-elements, which the grammar allows at the
//! end of each selector):
//! * `sel::text`: the element's own text (its direct text children, joined);
//! * `sel::attr(name)`: the attribute's value (elements without it yield nothing);
//! * `sel`: all the text inside the element, joined.
//!
//! Each text is trimmed of whitespace (insignificant in HTML). A list `a, b` yields `a`'s
//! matches then `b`'s, each in document order.
//!
//! **Cost.** Parsing is linear in the page. Matching is charged before it runs, one step of
//! the caller's budget per element per byte of the rule: a generous bound on the selector
//! engine's work per element (a combinator walks at most the ancestors or siblings of one
//! element, which a rule of a few compound selectors multiplies by little), so a huge page
//! with a long rule is refused at the budget instead of matched for seconds.

use cowboy_pvm_re::{Budget, Meter};
use scraper::{ElementRef, Html, Selector};

/// Why a CSS rule produced nothing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CssError {
    /// The rule is not in the grammar (the reason).
    Malformed(String),
    /// Matching would pass the budget.
    Budget,
}

/// What a selector's matches yield.
enum Output {
    Text,
    Attr(String),
    AllText,
}

/// Splits a selector list at its top-level commas (not inside quotes, brackets or parens).
fn items(rule: &str) -> Vec<&str> {
    let (mut out, mut depth, mut quote, mut start) = (Vec::new(), 0i32, None, 0);
    for (i, c) in rule.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"') => quote = Some(c),
            (None, '[' | '(') => depth += 1,
            (None, ']' | ')') => depth -= 1,
            (None, ',') if depth == 0 => {
                out.push(rule[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(rule[start..].trim());
    out
}

/// A selector without its pseudo-element, and what it yields.
fn split(item: &str) -> Result<(&str, Output), CssError> {
    if let Some(s) = item.strip_suffix("::text") {
        return Ok((s, Output::Text));
    }
    if let Some(at) = item.rfind("::attr(") {
        let name = item[at + 7..]
            .strip_suffix(')')
            .ok_or_else(|| CssError::Malformed(format!("{item}: ::attr(name)")))?;
        return Ok((&item[..at], Output::Attr(name.to_string())));
    }
    Ok((item, Output::AllText))
}

/// The texts `rule` selects in `html`.
pub fn select(rule: &str, html: &str, budget: &mut Budget) -> Result<Vec<String>, CssError> {
    let doc = Html::parse_document(html);
    let elements = doc.root_element().descendants().count() as u64;
    budget
        .charge(elements.saturating_mul(rule.len() as u64))
        .map_err(|_| CssError::Budget)?;
    let mut out = Vec::new();
    for item in items(rule) {
        let (selector, output) = split(item)?;
        let selector =
            Selector::parse(selector).map_err(|e| CssError::Malformed(format!("{item}: {e}")))?;
        for el in doc.select(&selector) {
            let text = match &output {
                Output::Text => Some(own_text(el)),
                Output::Attr(name) => el.attr(name).map(str::to_string),
                Output::AllText => Some(el.text().collect()),
            };
            out.extend(text.map(|t| t.trim().to_string()));
        }
    }
    Ok(out)
}

/// The element's direct text children, joined.
fn own_text(el: ElementRef<'_>) -> String {
    el.children()
        .filter_map(|n| n.value().as_text().map(|t| t.to_string()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sel(rule: &str, html: &str) -> Vec<String> {
        select(rule, html, &mut Budget::new(1_000_000)).expect("selects")
    }

    const PAGE: &str = r#"<html><body><div id="main">
        <table><tr><td class="sym">ETH</td><td class="price"> 2500.5 <b>USD</b></td></tr>
               <tr><td class="sym">BTC</td><td class="price hidden">90000</td></tr></table>
        <a href="https://x.test/a">first</a><a>second</a></div></body></html>"#;

    #[test]
    fn the_validators_grammar_selects_what_it_says() {
        assert_eq!(sel("td.price::text", PAGE), ["2500.5", "90000"]);
        assert_eq!(sel("td.price", PAGE), ["2500.5 USD", "90000"]);
        assert_eq!(sel("#main tr:first-child td.price::text", PAGE), ["2500.5"]);
        assert_eq!(sel("td.price:not(.hidden)::text", PAGE), ["2500.5"]);
        assert_eq!(sel("td.sym + td::text", PAGE), ["2500.5", "90000"]);
        assert_eq!(
            sel("a[href^=\"https\"]::attr(href)", PAGE),
            ["https://x.test/a"]
        );
        assert_eq!(sel("a::attr(href)", PAGE), ["https://x.test/a"]);
        assert_eq!(
            sel("td.sym::text, a::text", PAGE),
            ["ETH", "BTC", "first", "second"]
        );
        assert_eq!(sel("tr:nth-child(2n) td.sym::text", PAGE), ["BTC"]);
        assert!(sel("span.none", PAGE).is_empty());
    }

    #[test]
    fn a_big_page_and_a_long_rule_stop_at_the_budget() {
        let page = "<p>x</p>".repeat(10_000);
        let mut b = Budget::new(100_000);
        assert_eq!(
            select("div p > p ~ p", &page, &mut b),
            Err(CssError::Budget)
        );
    }
}
