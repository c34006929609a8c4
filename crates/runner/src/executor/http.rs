//! The HTTP executor: one real HTTP(S) fetch per job, bounded on every side an attacker (the
//! job's submitter, or the site it names) could push, and for the oracle mode the job's
//! extraction rules applied to what came back (exec README, "Oracle semantics").
//!
//! **The job's input** (`spec.input`, CBOR): `{"url": text, "method": "GET" | "POST"
//! (default GET), "body": text | bytes (POST only), "headers": {name: text}}`. Anything else
//! is malformed: an `actor` fault.
//!
//! **What is enforced**, in order:
//! * the URL's scheme is `https` (or `http` when the operator allows it) and its host is one of
//!   the job's `domains` *and* of the runner's own allow-list (exact names, case-insensitive);
//!   else an `actor` fault, and no connection is made;
//! * the host is, or resolves to, a public address (`public.rs`: a job cannot reach into the
//!   runner's own network), unless the operator allows private addresses or fixed the
//!   name's address; else an `actor` fault;
//! * redirects are followed by hand, at most [`HttpConfig::max_redirects`], each target checked
//!   as above *before* it is requested (a redirect to a host the job does not name is the
//!   actor's fault as if it had named it; a loop is the site's: `external`);
//! * the whole job (connect, TLS, redirects, body, extraction) runs within `max_wall_ms`; a
//!   site that does not answer in time is an `external` fault;
//! * the body is read chunk by chunk and refused the moment it passes the cap (the smaller of
//!   [`HttpConfig::max_body_bytes`] and the job's `max_memory_mb`, and for raw results
//!   `max_return_bytes`), so a site serving gigabytes costs the cap, never more: `impossible`;
//! * a non-2xx status, a refused connection or a TLS failure is `external`;
//! * the result is at most `max_return_bytes`, else `impossible`.
//!
//! **The result**: for the oracle mode `{"observed_at": unix seconds, "values": {name:
//! value}}` as JSON (`extract`); for every other mode the body as received.
//! Usage: the wall time measured, no tokens.

mod css;
mod extract;
mod jsonpath;
mod public;

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use cowboy_types::cbor::Value;
use reqwest::header::{HeaderName, HeaderValue, LOCATION};
use reqwest::{Method, StatusCode};
use url::Url;

pub use extract::ExtractError;

use super::bounded::{bounded, measured, Failure};
use super::{FaultKind, Job, Outcome};

/// How an operator configures the HTTP executor.
#[derive(Clone, Debug)]
pub struct HttpConfig {
    /// The hosts this runner fetches from at all (`None`: any a job names). A job's host must
    /// be in the job's `domains` and in this list.
    pub allowed_domains: Option<Vec<String>>,
    /// Fixed addresses for domains, as curl's `--resolve`: the name is still the one checked
    /// against the allow-lists and the TLS certificate, only the address is given.
    pub resolve: Vec<(String, SocketAddr)>,
    /// PEM certificates trusted as roots besides webpki's (e.g. an operator's own CA, or a
    /// test's self-signed certificate).
    pub extra_root_certs: Vec<u8>,
    /// Whether `http://` URLs are fetched (default: HTTPS only).
    pub allow_plain_http: bool,
    /// Whether hosts outside the public address space (loopback, private networks,
    /// link-local, …) may be fetched (default: no; see `public.rs`). Names in `resolve` are
    /// the operator's and always allowed.
    pub allow_private_addresses: bool,
    /// Most redirects followed for one job.
    pub max_redirects: usize,
    /// Largest response body read, whatever the job allows.
    pub max_body_bytes: u64,
    /// Steps the extraction of one job may take (regex matching steps and JSONPath nodes
    /// visited): a hostile page cannot make a rule run longer than this.
    pub max_extract_steps: u64,
}

impl Default for HttpConfig {
    fn default() -> Self {
        HttpConfig {
            allowed_domains: None,
            resolve: Vec::new(),
            extra_root_certs: Vec::new(),
            allow_plain_http: false,
            allow_private_addresses: false,
            max_redirects: 5,
            max_body_bytes: 8 << 20,
            max_extract_steps: 50_000_000,
        }
    }
}

/// A configuration the executor cannot be built from.
#[derive(Debug)]
pub enum HttpConfigError {
    /// `extra_root_certs` holds something that is not a PEM certificate, or no certificate.
    Certificate(String),
    /// The HTTP client could not be built (its reason).
    Client(String),
}

impl std::fmt::Display for HttpConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            HttpConfigError::Certificate(e) => write!(f, "extra root certificates: {e}"),
            HttpConfigError::Client(e) => write!(f, "HTTP client: {e}"),
        }
    }
}

impl std::error::Error for HttpConfigError {}

/// Why a job produced no result, each with the fault it is reported as ([`HttpError::kind`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HttpError {
    /// The input is not the shape above (its reason). `actor`.
    BadInput(String),
    /// The URL's scheme is not allowed. `actor`.
    Scheme(String),
    /// The host (of the URL or of a redirect) is not in the job's domains or the runner's
    /// allow-list; nothing was requested from it. `actor`.
    DomainNotAllowed(String),
    /// The host is, or resolves only to, addresses outside the public address space, which
    /// the runner does not fetch from; nothing was requested from it. `actor`.
    NotPublic(String),
    /// The oracle's parameters are malformed (the chain's reason). `actor`.
    BadRules(String),
    /// No answer within `max_wall_ms`. `external`.
    TimedOut,
    /// The site could not be reached or the connection failed (its reason). `external`.
    Unreachable(String),
    /// The site answered with a status outside 2xx (other than a redirect). `external`.
    Status(u16),
    /// A redirect without a usable `Location`. `external`.
    BadRedirect(String),
    /// More redirects than allowed. `external`.
    TooManyRedirects,
    /// The body passed the cap (bytes). `impossible`.
    BodyTooLarge(u64),
    /// Extraction failed (see [`ExtractError`]); the fault is the error's.
    Extract(ExtractError),
    /// The result is larger than `max_return_bytes`. `impossible`.
    ResultTooLarge {
        /// The result's size.
        got: u64,
        /// The job's bound.
        max: u64,
    },
}

impl Failure for HttpError {
    fn kind(&self) -> FaultKind {
        match self {
            HttpError::BadInput(_)
            | HttpError::Scheme(_)
            | HttpError::DomainNotAllowed(_)
            | HttpError::NotPublic(_)
            | HttpError::BadRules(_) => FaultKind::Actor,
            HttpError::TimedOut
            | HttpError::Unreachable(_)
            | HttpError::Status(_)
            | HttpError::BadRedirect(_)
            | HttpError::TooManyRedirects => FaultKind::External,
            HttpError::BodyTooLarge(_) | HttpError::ResultTooLarge { .. } => FaultKind::Impossible,
            HttpError::Extract(e) => e.kind(),
        }
    }

    fn progress_bps(&self) -> u16 {
        match self {
            HttpError::ResultTooLarge { .. } => 10_000,
            _ => 0,
        }
    }

    fn timed_out() -> Self {
        HttpError::TimedOut
    }

    fn too_large(got: u64, max: u64) -> Self {
        HttpError::ResultTooLarge { got, max }
    }
}

/// The request a job's input asks for.
struct Request {
    url: Url,
    method: Method,
    body: Vec<u8>,
    headers: Vec<(HeaderName, HeaderValue)>,
}

/// Most headers a job may set.
const MAX_HEADERS: usize = 32;

fn text_field<'a>(input: &'a Value, name: &str) -> Option<&'a Value> {
    match input {
        Value::Map(m) => m
            .iter()
            .find(|(k, _)| matches!(k, Value::Text(t) if t == name))
            .map(|(_, v)| v),
        _ => None,
    }
}

impl Request {
    fn of(input: &Value) -> Result<Request, HttpError> {
        let bad = |s: &str| HttpError::BadInput(s.to_string());
        let Value::Map(m) = input else {
            return Err(bad("the input must be a map with a url"));
        };
        for (k, _) in m {
            match k {
                Value::Text(t) if ["url", "method", "body", "headers"].contains(&t.as_str()) => {}
                _ => return Err(HttpError::BadInput(format!("unknown input field {k:?}"))),
            }
        }
        let url = match text_field(input, "url") {
            Some(Value::Text(u)) => {
                Url::parse(u).map_err(|e| HttpError::BadInput(format!("url: {e}")))?
            }
            _ => return Err(bad("url: required text")),
        };
        let method = match text_field(input, "method") {
            None => Method::GET,
            Some(Value::Text(t)) if t == "GET" => Method::GET,
            Some(Value::Text(t)) if t == "POST" => Method::POST,
            Some(_) => return Err(bad("method: GET or POST")),
        };
        let body = match (text_field(input, "body"), &method) {
            (None, _) => Vec::new(),
            (Some(Value::Text(t)), &Method::POST) => t.as_bytes().to_vec(),
            (Some(Value::Bytes(b)), &Method::POST) => b.clone(),
            (Some(_), &Method::POST) => return Err(bad("body: text or bytes")),
            (Some(_), _) => return Err(bad("body: only with POST")),
        };
        let headers = match text_field(input, "headers") {
            None => Vec::new(),
            Some(Value::Map(h)) if h.len() <= MAX_HEADERS => h
                .iter()
                .map(|(k, v)| match (k, v) {
                    (Value::Text(k), Value::Text(v)) => Ok((
                        HeaderName::from_bytes(k.as_bytes())
                            .map_err(|_| HttpError::BadInput(format!("headers: bad name {k:?}")))?,
                        HeaderValue::from_str(v).map_err(|_| {
                            HttpError::BadInput(format!("headers: bad value for {k:?}"))
                        })?,
                    )),
                    _ => Err(bad("headers: text names and values")),
                })
                .collect::<Result<_, _>>()?,
            Some(_) => {
                return Err(HttpError::BadInput(format!(
                    "headers: a map of at most {MAX_HEADERS}"
                )))
            }
        };
        Ok(Request {
            url,
            method,
            body,
            headers,
        })
    }
}

/// A host name as compared: lower case, without a trailing dot.
fn normal(host: &str) -> String {
    host.trim_end_matches('.').to_ascii_lowercase()
}

/// Executes HTTP jobs. Cheap to share: one connection pool for every job.
pub struct HttpExecutor {
    client: reqwest::Client,
    config: HttpConfig,
}

impl HttpExecutor {
    /// An executor with `config`'s client (roots, resolution overrides, no automatic redirects,
    /// no proxy, no decompression: a compressed body could otherwise expand past the cap).
    pub fn new(config: HttpConfig) -> Result<HttpExecutor, HttpConfigError> {
        let tls = tls_config(&config.extra_root_certs)?;
        let mut builder = reqwest::Client::builder()
            .tls_backend_preconfigured(tls)
            .redirect(reqwest::redirect::Policy::none())
            .no_proxy()
            .user_agent(concat!("cowboy-runner/", env!("CARGO_PKG_VERSION")));
        if !config.allow_private_addresses {
            builder = builder.dns_resolver(Arc::new(public::PublicResolver));
        }
        // Answered before the resolver above: the operator's fixed addresses are trusted.
        for (domain, addr) in &config.resolve {
            builder = builder.resolve(domain, *addr);
        }
        let client = builder
            .build()
            .map_err(|e| HttpConfigError::Client(e.to_string()))?;
        Ok(HttpExecutor { client, config })
    }

    /// Runs `job` within its bounds: its result and usage, or a fault report's kind and
    /// progress.
    pub async fn execute(&self, job: &Job) -> Outcome {
        measured(self.run(job)).await
    }

    /// The result bytes of `job`, or why there are none. [`HttpExecutor::execute`] is this
    /// with the usage measured and the error reported as its fault.
    pub async fn run(&self, job: &Job) -> Result<Vec<u8>, HttpError> {
        let request = Request::of(&job.input)?;
        let oracle = if job.mode == "oracle" {
            Some(extract::Rules::of(&job.params).map_err(HttpError::BadRules)?)
        } else {
            None
        };
        let steps = self.config.max_extract_steps;
        let work = async {
            let body = self.fetch(job, request, oracle.is_some()).await?;
            match oracle {
                // Extraction is CPU work bounded by its step budget; off the async workers.
                Some(rules) => tokio::task::spawn_blocking(move || rules.apply(&body, steps))
                    .await
                    .map_err(|e| HttpError::Unreachable(format!("extraction task: {e}")))?
                    .map_err(HttpError::Extract),
                None => Ok(body),
            }
        };
        bounded(job, work).await
    }

    /// Whether `url` may be requested for `job`.
    fn check(&self, job: &Job, url: &Url) -> Result<(), HttpError> {
        match url.scheme() {
            "https" => {}
            "http" if self.config.allow_plain_http => {}
            s => return Err(HttpError::Scheme(s.to_string())),
        }
        let host = normal(url.host_str().unwrap_or(""));
        let listed = |list: &[String]| list.iter().any(|d| normal(d) == host);
        let runner_allows = self.config.allowed_domains.as_deref().is_none_or(listed);
        if host.is_empty() || !listed(&job.domains) || !runner_allows {
            return Err(HttpError::DomainNotAllowed(host));
        }
        let literal = match url.host() {
            Some(url::Host::Ipv4(ip)) => Some(IpAddr::V4(ip)),
            Some(url::Host::Ipv6(ip)) => Some(IpAddr::V6(ip)),
            _ => None,
        };
        if literal.is_some_and(|ip| !self.config.allow_private_addresses && !public::is_public(ip))
        {
            return Err(HttpError::NotPublic(host));
        }
        Ok(())
    }

    /// The body of the final response, following at most `max_redirects` checked redirects.
    async fn fetch(
        &self,
        job: &Job,
        request: Request,
        extracted: bool,
    ) -> Result<Vec<u8>, HttpError> {
        let Request {
            mut url,
            mut method,
            mut body,
            headers,
        } = request;
        let memory = job.bounds.max_memory_mb.saturating_mul(1 << 20);
        let mut cap = self.config.max_body_bytes.min(memory);
        if !extracted {
            // The body is the result: nothing past the result's bound is worth reading.
            cap = cap.min(job.max_return_bytes);
        }
        for _ in 0..=self.config.max_redirects {
            self.check(job, &url)?;
            let mut req = self.client.request(method.clone(), url.clone());
            for (k, v) in &headers {
                req = req.header(k, v);
            }
            if method == Method::POST {
                req = req.body(body.clone());
            }
            let response = req.send().await.map_err(|e| send_error(&e))?;
            let status = response.status();
            if status.is_redirection() && status != StatusCode::NOT_MODIFIED {
                let location = response
                    .headers()
                    .get(LOCATION)
                    .and_then(|l| l.to_str().ok())
                    .ok_or_else(|| HttpError::BadRedirect("no Location".into()))?;
                url = url
                    .join(location)
                    .map_err(|e| HttpError::BadRedirect(format!("{location:?}: {e}")))?;
                // As browsers do: 303, and 301/302 after a POST, continue as a GET.
                if status == StatusCode::SEE_OTHER
                    || (method == Method::POST
                        && matches!(status, StatusCode::MOVED_PERMANENTLY | StatusCode::FOUND))
                {
                    method = Method::GET;
                    body = Vec::new();
                }
                continue;
            }
            if !status.is_success() {
                return Err(HttpError::Status(status.as_u16()));
            }
            return read_capped(response, cap).await;
        }
        Err(HttpError::TooManyRedirects)
    }
}

/// The body of `response`, refused as soon as it passes `cap` bytes.
async fn read_capped(mut response: reqwest::Response, cap: u64) -> Result<Vec<u8>, HttpError> {
    if response.content_length().is_some_and(|n| n > cap) {
        return Err(HttpError::BodyTooLarge(cap));
    }
    let mut body = Vec::new();
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|e| HttpError::Unreachable(error_chain(&e)))?
    {
        if (body.len() + chunk.len()) as u64 > cap {
            return Err(HttpError::BodyTooLarge(cap));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// A failed request as the fault it is: a name that resolved only to non-public addresses is
/// the job's ([`HttpError::NotPublic`]), anything else the site's.
fn send_error(e: &reqwest::Error) -> HttpError {
    let mut cause: Option<&dyn std::error::Error> = Some(e);
    while let Some(c) = cause {
        if let Some(public::NotPublic(host)) = c.downcast_ref::<public::NotPublic>() {
            return HttpError::NotPublic(host.clone());
        }
        cause = c.source();
    }
    HttpError::Unreachable(error_chain(e))
}

/// An error and its causes, `: `-joined (reqwest's own message hides the cause).
fn error_chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        s.push_str(": ");
        s.push_str(&c.to_string());
        cause = c.source();
    }
    s
}

/// rustls with the ring provider, trusting webpki's roots and `extra_pem`'s certificates.
pub(crate) fn tls_config(extra_pem: &[u8]) -> Result<rustls::ClientConfig, HttpConfigError> {
    use rustls_pki_types::pem::PemObject;
    use rustls_pki_types::CertificateDer;
    let mut roots = rustls::RootCertStore {
        roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
    };
    if !extra_pem.is_empty() {
        let mut added = 0;
        for cert in CertificateDer::pem_slice_iter(extra_pem) {
            let cert = cert.map_err(|e| HttpConfigError::Certificate(e.to_string()))?;
            roots
                .add(cert)
                .map_err(|e| HttpConfigError::Certificate(e.to_string()))?;
            added += 1;
        }
        if added == 0 {
            return Err(HttpConfigError::Certificate(
                "no PEM certificate found".into(),
            ));
        }
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    Ok(rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| HttpConfigError::Client(e.to_string()))?
        .with_root_certificates(roots)
        .with_no_client_auth())
}
