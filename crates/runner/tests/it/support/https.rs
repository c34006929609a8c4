//! A real HTTPS server on loopback for the executors' tests: TLS with a self-signed certificate
//! made at start for the names it serves, hyper's HTTP/1.1 behind it, and routes scripted by
//! path — a JSON answer, any status, the request's method, a hang, a redirect (to itself makes a loop; to another
//! name, a redirect off the job's domains), a generated body of any length (gigabytes are
//! produced chunk by chunk as they are read, never stored) or a function of the query string.
//!
//! Every request is recorded as `"host path"`, so a test can show that a host was never asked,
//! and the bytes of generated bodies sent are counted, so a test can show a reader stopped.

use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use bytes::Bytes;
use hyper::body::{Body, Frame};
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;
use tokio_rustls::rustls;
use tokio_rustls::TlsAcceptor;

/// A function of the query string answering `(status, body)`.
pub type Handler = Arc<dyn Fn(&str) -> (u16, String) + Send + Sync>;

/// What a path answers.
#[derive(Clone)]
pub enum Route {
    /// 200 with this JSON.
    Json(String),
    /// This status, empty body.
    Status(u16),
    /// Never answers.
    Hang,
    /// 302 to this location (absolute or relative).
    Redirect(String),
    /// 200 with this many bytes, generated as they are read, no Content-Length.
    Stream(u64),
    /// Whatever the function answers for the query string.
    Fn(Handler),
    /// 200 with `{"method": the request's method}`.
    Method,
}

/// A running server; it stops with the test's runtime.
pub struct Https {
    /// Where it listens (every name it serves resolves here).
    pub addr: SocketAddr,
    /// Its certificate, PEM: the client's extra root.
    pub cert_pem: String,
    names: Vec<String>,
    requests: Arc<Mutex<Vec<String>>>,
    streamed: Arc<AtomicU64>,
}

impl Https {
    /// Starts serving `routes` for the names `names` (the certificate's).
    pub async fn start(names: &[&str], routes: Vec<(&str, Route)>) -> Https {
        let names: Vec<String> = names.iter().map(|n| n.to_string()).collect();
        let key = rcgen::generate_simple_self_signed(names.clone()).expect("certificate");
        let cert_pem = key.cert.pem();
        let der = key.cert.der().clone();
        let private =
            rustls::pki_types::PrivateKeyDer::Pkcs8(key.signing_key.serialize_der().into());
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let tls = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .expect("protocols")
            .with_no_client_auth()
            .with_single_cert(vec![der], private)
            .expect("server config");
        let acceptor = TlsAcceptor::from(Arc::new(tls));
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr = listener.local_addr().expect("addr");
        let routes: Arc<Vec<(String, Route)>> = Arc::new(
            routes
                .into_iter()
                .map(|(p, r)| (p.to_string(), r))
                .collect(),
        );
        let requests = Arc::new(Mutex::new(Vec::new()));
        let streamed = Arc::new(AtomicU64::new(0));
        let (log, count) = (requests.clone(), streamed.clone());
        tokio::spawn(async move {
            while let Ok((tcp, _)) = listener.accept().await {
                let (acceptor, routes, log, count) =
                    (acceptor.clone(), routes.clone(), log.clone(), count.clone());
                tokio::spawn(async move {
                    let Ok(tls) = acceptor.accept(tcp).await else {
                        return;
                    };
                    let service =
                        hyper::service::service_fn(move |req: Request<hyper::body::Incoming>| {
                            answer(req, routes.clone(), log.clone(), count.clone())
                        });
                    // A client that stops reading (the capped body) ends the connection: fine.
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(TokioIo::new(tls), service)
                        .await;
                });
            }
        });
        Https {
            addr,
            cert_pem,
            names,
            requests,
            streamed,
        }
    }

    /// Every name it serves resolved to it (the executor's `resolve`).
    pub fn resolve(&self) -> Vec<(String, SocketAddr)> {
        self.names.iter().map(|n| (n.clone(), self.addr)).collect()
    }

    /// The requests received so far, `"host path"`.
    pub fn requests(&self) -> Vec<String> {
        self.requests.lock().expect("log").clone()
    }

    /// Bytes of generated bodies sent so far.
    pub fn streamed(&self) -> u64 {
        self.streamed.load(Ordering::Relaxed)
    }
}

fn answer(
    req: Request<hyper::body::Incoming>,
    routes: Arc<Vec<(String, Route)>>,
    log: Arc<Mutex<Vec<String>>>,
    count: Arc<AtomicU64>,
) -> impl Future<Output = Result<Response<Reply>, Infallible>> {
    let host = req
        .headers()
        .get(hyper::header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("")
        .split(':')
        .next()
        .unwrap_or("")
        .to_string();
    let path = req.uri().path().to_string();
    let method = req.method().to_string();
    let query = req.uri().query().unwrap_or("").to_string();
    log.lock().expect("log").push(format!("{host} {path}"));
    let route = routes
        .iter()
        .find(|(p, _)| *p == path)
        .map(|(_, r)| r.clone());
    async move {
        let whole = |status: u16, body: String| {
            Response::builder()
                .status(status)
                .header("content-type", "application/json")
                .body(Reply::whole(body.into()))
                .expect("response")
        };
        Ok(match route {
            None => whole(404, String::new()),
            Some(Route::Json(j)) => whole(200, j),
            Some(Route::Status(s)) => whole(s, String::new()),
            Some(Route::Hang) => std::future::pending().await,
            Some(Route::Redirect(to)) => Response::builder()
                .status(302)
                .header("location", to)
                .body(Reply::whole(Bytes::new()))
                .expect("response"),
            Some(Route::Stream(n)) => Response::builder()
                .status(200)
                .body(Reply::Stream {
                    remaining: n,
                    count,
                })
                .expect("response"),
            Some(Route::Method) => whole(200, format!(r#"{{"method": "{method}"}}"#)),
            Some(Route::Fn(f)) => {
                let (status, body) = f(&query);
                whole(status, body)
            }
        })
    }
}

/// A response body: given whole, or generated 64 KiB at a time.
pub enum Reply {
    /// The whole body (taken on the first poll).
    Whole(Option<Bytes>),
    /// Bytes still to generate, and the server's count of those sent.
    Stream {
        /// Bytes left.
        remaining: u64,
        /// Sent so far, across the server.
        count: Arc<AtomicU64>,
    },
}

impl Reply {
    fn whole(b: Bytes) -> Reply {
        Reply::Whole(Some(b))
    }
}

const CHUNK: usize = 64 << 10;

impl Body for Reply {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        self: Pin<&mut Self>,
        _: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        let this = self.get_mut();
        Poll::Ready(match this {
            Reply::Whole(b) => b.take().map(|b| Ok(Frame::data(b))),
            Reply::Stream { remaining: 0, .. } => None,
            Reply::Stream { remaining, count } => {
                let n = (*remaining).min(CHUNK as u64);
                *remaining -= n;
                count.fetch_add(n, Ordering::Relaxed);
                Some(Ok(Frame::data(Bytes::from(vec![b'x'; n as usize]))))
            }
        })
    }
}
