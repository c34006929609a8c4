//! The block explorer (issue 19, item 7): a single-page web app served on the RPC port.
//!
//! `GET /` (and `HEAD`) returns the page, `GET /explorer.js` and `GET /explorer.css` its script
//! and style; every other `GET` path is 404. POST (JSON-RPC) and WebSocket upgrades never reach
//! here. The assets are compiled into the binary (`include_str!`) and answered from memory, so
//! serving them costs the node a copy of a few tens of KiB per request under the RPC's
//! connection limits, and nothing else: the page is just another RPC client and every chain
//! read it makes goes through the bounded RPC methods.
//!
//! What the chain returns (actor source, event data, storage) is attacker-controlled. The
//! script builds the DOM only with `createElement` and `textContent`, never `innerHTML`, and
//! the page is sent with a Content-Security-Policy that allows scripts only from this origin,
//! so an injected tag or inline handler could not run even if it slipped into the markup.

use jsonrpsee::server::{HttpBody, HttpResponse};

const INDEX_HTML: &str = include_str!("../explorer/index.html");
const EXPLORER_JS: &str = include_str!("../explorer/explorer.js");
const EXPLORER_CSS: &str = include_str!("../explorer/explorer.css");

/// Scripts, styles and fetches from this origin only (`'self'` covers its `ws://` in CSP 3);
/// no inline script, no plugin, no framing.
const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; \
                   connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/// The explorer asset at `path` (query string excluded), or `None` for a path it does not serve.
fn asset(path: &str) -> Option<(&'static str, &'static str)> {
    match path {
        "/" | "/index.html" => Some((INDEX_HTML, "text/html; charset=utf-8")),
        "/explorer.js" => Some((EXPLORER_JS, "text/javascript; charset=utf-8")),
        "/explorer.css" => Some((EXPLORER_CSS, "text/css; charset=utf-8")),
        _ => None,
    }
}

/// The answer to a `GET` or `HEAD` of `path` that is not a WebSocket upgrade.
pub fn response(method: &http::Method, path: &str) -> HttpResponse {
    let (status, body, content_type) = match asset(path) {
        Some((body, content_type)) => (http::StatusCode::OK, body, content_type),
        None => (
            http::StatusCode::NOT_FOUND,
            "not found: the explorer serves /, /explorer.js and /explorer.css; JSON-RPC is POST /\n",
            "text/plain; charset=utf-8",
        ),
    };
    let body = if method == http::Method::HEAD {
        HttpBody::default()
    } else {
        HttpBody::from(body)
    };
    HttpResponse::builder()
        .status(status)
        .header(http::header::CONTENT_TYPE, content_type)
        .header(http::header::CONTENT_SECURITY_POLICY, CSP)
        .header(http::header::X_CONTENT_TYPE_OPTIONS, "nosniff")
        .header(http::header::REFERRER_POLICY, "no-referrer")
        .header(http::header::CACHE_CONTROL, "no-cache")
        .body(body)
        // Every header above is a valid static value; the builder cannot fail on them.
        .unwrap_or_else(|_| HttpResponse::new(HttpBody::default()))
}

/// Whether the explorer answers `method` (the RPC answers POST; jsonrpsee refuses the rest).
pub fn serves(method: &http::Method) -> bool {
    method == http::Method::GET || method == http::Method::HEAD
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serves_its_three_assets_with_a_strict_policy_and_404s_the_rest() {
        for path in ["/", "/explorer.js", "/explorer.css"] {
            let r = response(&http::Method::GET, path);
            assert_eq!(r.status(), http::StatusCode::OK, "{path}");
            let csp = r.headers()[http::header::CONTENT_SECURITY_POLICY]
                .to_str()
                .unwrap();
            assert!(csp.contains("script-src 'self'") && !csp.contains("unsafe"));
        }
        for path in ["/../Cargo.toml", "/explorer.js/x", "/favicon.ico"] {
            assert_eq!(
                response(&http::Method::GET, path).status(),
                http::StatusCode::NOT_FOUND
            );
        }
        assert!(serves(&http::Method::HEAD) && !serves(&http::Method::POST));
    }

    #[test]
    fn the_script_never_writes_markup_from_strings() {
        // The escaping rule of the module doc, held mechanically: no API that parses HTML.
        for banned in [
            "innerHTML",
            "outerHTML",
            "insertAdjacentHTML",
            "document.write",
            "eval(",
        ] {
            assert!(!EXPLORER_JS.contains(banned), "explorer.js uses {banned}");
        }
    }
}
