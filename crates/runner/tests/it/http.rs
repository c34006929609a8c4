//! The HTTP executor against a real HTTPS server on loopback (`support::https`): the oracle
//! answer extracted over TLS and accepted by the chain's own oracle check, and every hostile
//! path — a hang, a redirect loop, gigabytes, hosts the job does not name (directly and by
//! redirect), an oversized result, malformed input — reported as the fault it is.

use std::sync::Arc;

use cowboy_exec::system::runners::records::Fields;
use cowboy_exec::system::verifier::modes::Format;
use cowboy_exec::system::verifier::oracle;
use cowboy_runner::executor::http::{ExtractError, HttpConfig, HttpError, HttpExecutor};
use cowboy_runner::executor::{Bounds, FaultKind, Job, Outcome};
use cowboy_types::cbor::Value;
use cowboy_types::Hash32;

use crate::support::https::{Https, Route};
use crate::support::{fault, map, text};

const PRICE: &str = "price.test";
const EVIL: &str = "evil.test";

/// The oracle parameters of `examples/actors/price_feed.py`, with `rules` as `extract`.
fn oracle_params(rules: Vec<Value>) -> Value {
    map(vec![
        ("extract", Value::Array(rules)),
        ("snapshot", text("median")),
        ("field", text("price")),
        ("tolerance_bps", Value::Uint(100)),
        ("max_age_seconds", Value::Uint(60)),
    ])
}

fn rule(name: &str, kind: &str, rule: &str) -> Value {
    map(vec![("name", text(name)), (kind, text(rule))])
}

/// A job fetching `url` from `price.test` in `mode`.
fn job(input: Value, mode: &str, params: Value) -> Job {
    Job {
        id: Hash32::default(),
        model: None,
        domains: vec![PRICE.into()],
        input,
        bounds: Bounds {
            max_tokens: 1,
            max_wall_ms: 10_000,
            max_memory_mb: 64,
        },
        max_return_bytes: 4_096,
        mode: mode.into(),
        params,
    }
}

fn get(url: &str) -> Value {
    map(vec![("url", text(url))])
}

fn raw(url: &str) -> Job {
    raw_input(get(url))
}

fn raw_input(input: Value) -> Job {
    job(input, "none", Value::Null)
}

fn executor(server: &Https, tune: impl FnOnce(&mut HttpConfig)) -> HttpExecutor {
    let mut config = HttpConfig {
        resolve: server.resolve(),
        extra_root_certs: server.cert_pem.clone().into_bytes(),
        ..HttpConfig::default()
    };
    tune(&mut config);
    HttpExecutor::new(config).expect("executor")
}

async fn serve(routes: Vec<(&str, Route)>) -> Https {
    Https::start(&[PRICE, EVIL], routes).await
}

#[tokio::test]
async fn http_oracle_answer_over_tls_is_what_the_chain_accepts() {
    let prices = Route::Fn(Arc::new(|query: &str| match query {
        "symbol=ETH" => (
            200,
            r#"{"symbol": "ETH", "price": 2500.5, "venue": "x"}"#.into(),
        ),
        _ => (404, String::new()),
    }));
    let server = serve(vec![("/price", prices)]).await;
    let exec = executor(&server, |_| {});
    let params = oracle_params(vec![
        rule("price", "jsonpath", "$.price"),
        rule("sym", "regex", r#""symbol": "(\w+)""#),
    ]);
    let j = job(
        get("https://price.test/price?symbol=ETH"),
        "oracle",
        params.clone(),
    );
    let Outcome::Done { result, usage } = exec.execute(&j).await else {
        panic!("no result")
    };
    assert_eq!(usage.tokens, 0);
    let doc: serde_json::Value = serde_json::from_slice(&result).expect("JSON");
    assert_eq!(
        doc["values"],
        serde_json::json!({"price": 2500.5, "sym": "ETH"}),
        "extracted values, not the page"
    );
    let observed = doc["observed_at"].as_u64().expect("seconds");
    assert!(observed > 1_700_000_000, "unix seconds: {observed}");

    // The chain's oracle check takes two such answers as a verdict, a minute later too.
    let o = oracle::rules(&Fields::of(&params).expect("map"), 2).expect("rules");
    let both = [result.as_slice(), result.as_slice()];
    assert_eq!(
        o.evaluate(Format::Json, &both, observed + 60),
        Some(vec![0, 1])
    );
    assert_eq!(server.requests(), ["price.test /price"]);

    // Other modes get the body as served.
    let body = exec
        .run(&raw("https://price.test/price?symbol=ETH"))
        .await
        .expect("body");
    assert_eq!(body, br#"{"symbol": "ETH", "price": 2500.5, "venue": "x"}"#);
}

#[tokio::test]
async fn http_post_is_sent_and_a_redirect_after_it_continues_as_get() {
    let server = serve(vec![
        ("/method", Route::Method),
        ("/moved", Route::Redirect("/method".into())),
    ])
    .await;
    let exec = executor(&server, |_| {});
    let post = |path: &str| {
        raw_input(map(vec![
            ("url", text(&format!("https://price.test{path}"))),
            ("method", text("POST")),
            ("body", text("q=1")),
            ("headers", map(vec![("x-api", text("k"))])),
        ]))
    };
    assert_eq!(
        exec.run(&post("/method")).await.expect("answer"),
        br#"{"method": "POST"}"#
    );
    // 302 after a POST: the target is fetched with GET, as browsers do.
    assert_eq!(
        exec.run(&post("/moved")).await.expect("answer"),
        br#"{"method": "GET"}"#
    );
    assert_eq!(
        server.requests(),
        [
            "price.test /method",
            "price.test /moved",
            "price.test /method"
        ]
    );
}

#[tokio::test]
async fn http_a_hanging_site_is_an_external_fault_at_the_wall_bound() {
    let server = serve(vec![("/hang", Route::Hang)]).await;
    let exec = executor(&server, |_| {});
    let mut j = raw("https://price.test/hang");
    j.bounds.max_wall_ms = 300;
    let o = exec.execute(&j).await;
    assert_eq!(fault(&o), (FaultKind::External, 0));
    let Outcome::Fault { usage, .. } = o else {
        unreachable!()
    };
    assert!(usage.wall_ms >= 300, "stopped by the bound: {usage:?}");
    assert_eq!(exec.run(&j).await, Err(HttpError::TimedOut));
}

#[tokio::test]
async fn http_a_redirect_loop_stops_at_the_limit() {
    let server = serve(vec![("/loop", Route::Redirect("/loop".into()))]).await;
    let exec = executor(&server, |c| c.max_redirects = 5);
    let j = raw("https://price.test/loop");
    assert_eq!(exec.run(&j).await, Err(HttpError::TooManyRedirects));
    // The first request and five redirects followed; the sixth refused.
    assert_eq!(server.requests().len(), 6);
    assert_eq!(fault(&exec.execute(&j).await), (FaultKind::External, 0));
}

#[tokio::test]
async fn http_gigabytes_are_cut_off_at_the_cap() {
    const GIB4: u64 = 4 << 30;
    let server = serve(vec![("/huge", Route::Stream(GIB4))]).await;
    let exec = executor(&server, |c| c.max_body_bytes = 1 << 20);
    // An oracle job reads up to the body cap (1 MiB here), then gives up.
    let params = oracle_params(vec![rule("price", "jsonpath", "$.price")]);
    let j = job(get("https://price.test/huge"), "oracle", params);
    assert_eq!(exec.run(&j).await, Err(HttpError::BodyTooLarge(1 << 20)));
    // A raw job reads no more than its result may hold.
    let mut r = raw("https://price.test/huge");
    r.max_return_bytes = 100_000;
    assert_eq!(exec.run(&r).await, Err(HttpError::BodyTooLarge(100_000)));
    assert_eq!(fault(&exec.execute(&r).await), (FaultKind::Impossible, 0));
    // The server stopped producing once the reader stopped: socket buffers, not gigabytes.
    let sent = server.streamed();
    assert!(sent < 64 << 20, "{sent} bytes generated of {GIB4}");
}

#[tokio::test]
async fn http_hosts_the_job_does_not_name_are_never_asked() {
    let server = serve(vec![
        ("/go", Route::Redirect("https://evil.test/steal".into())),
        ("/steal", Route::Json("{}".into())),
    ])
    .await;
    let exec = executor(&server, |_| {});
    // Directly: refused before any connection.
    let direct = raw("https://evil.test/steal");
    assert_eq!(
        exec.run(&direct).await,
        Err(HttpError::DomainNotAllowed(EVIL.into()))
    );
    assert_eq!(fault(&exec.execute(&direct).await), (FaultKind::Actor, 0));
    // By redirect: the target is checked before it is requested.
    let redirected = raw("https://price.test/go");
    assert_eq!(
        exec.run(&redirected).await,
        Err(HttpError::DomainNotAllowed(EVIL.into()))
    );
    // The runner's own allow-list binds too, whatever the job names.
    let strict = executor(&server, |c| {
        c.allowed_domains = Some(vec!["other.test".into()])
    });
    assert_eq!(
        strict.run(&raw("https://price.test/steal")).await,
        Err(HttpError::DomainNotAllowed(PRICE.into()))
    );
    // Plain HTTP is refused unless the operator allows it.
    assert_eq!(
        exec.run(&raw("http://price.test/steal")).await,
        Err(HttpError::Scheme("http".into()))
    );
    assert!(
        server.requests().iter().all(|r| !r.starts_with(EVIL)),
        "{:?}",
        server.requests()
    );
    assert_eq!(server.requests(), ["price.test /go"]);
}

#[tokio::test]
async fn http_the_runners_own_network_is_out_of_reach() {
    // One server for a public-looking name, `localhost` and `127.0.0.1` (its certificate
    // names all three, so only the guard can stop a request).
    let server = Https::start(
        &[PRICE, "localhost", "127.0.0.1"],
        vec![
            ("/inside", Route::Json("{}".into())),
            // Port 443: the guard refuses it before a connection could fail.
            ("/go", Route::Redirect("https://127.0.0.1/inside".into())),
        ],
    )
    .await;
    let port = server.addr.port();
    let config = |allow_private_addresses| HttpConfig {
        // Only the public-looking name is the operator's pinned address.
        resolve: vec![(PRICE.into(), server.addr)],
        extra_root_certs: server.cert_pem.clone().into_bytes(),
        allow_private_addresses,
        ..HttpConfig::default()
    };
    let guarded = HttpExecutor::new(config(false)).expect("executor");
    let open = HttpExecutor::new(config(true)).expect("executor");
    let naming = |url: String, host: &str| Job {
        domains: vec![PRICE.into(), host.into()],
        ..raw(&url)
    };
    // An IP literal, refused before any connection.
    let literal = naming(format!("https://127.0.0.1:{port}/inside"), "127.0.0.1");
    assert_eq!(
        guarded.run(&literal).await,
        Err(HttpError::NotPublic("127.0.0.1".into()))
    );
    assert_eq!(
        fault(&guarded.execute(&literal).await),
        (FaultKind::Actor, 0)
    );
    // A name the system resolver answers with loopback.
    let name = naming(format!("https://localhost:{port}/inside"), "localhost");
    assert_eq!(
        guarded.run(&name).await,
        Err(HttpError::NotPublic("localhost".into()))
    );
    // A public name redirecting inside: the target is checked before it is requested.
    let redirect = naming(format!("https://{PRICE}:{port}/go"), "127.0.0.1");
    assert_eq!(
        guarded.run(&redirect).await,
        Err(HttpError::NotPublic("127.0.0.1".into()))
    );
    assert_eq!(server.requests(), [format!("{PRICE} /go")]);
    // An operator who allows private addresses reaches them.
    for job in [&literal, &name] {
        assert_eq!(open.run(job).await, Ok(b"{}".to_vec()), "{:?}", job.input);
    }
}

#[tokio::test]
async fn http_an_oversized_result_is_impossible() {
    let big = format!(r#"{{"price": 1, "note": "{}"}}"#, "n".repeat(2_000));
    let server = serve(vec![("/big", Route::Json(big))]).await;
    let exec = executor(&server, |_| {});
    // The extracted answer is over the bound: the work was done, the result cannot be sent.
    let params = oracle_params(vec![
        rule("price", "jsonpath", "$.price"),
        rule("note", "jsonpath", "$.note"),
    ]);
    let mut j = job(get("https://price.test/big"), "oracle", params);
    j.max_return_bytes = 1_000;
    assert!(matches!(
        exec.run(&j).await,
        Err(HttpError::ResultTooLarge { max: 1_000, .. })
    ));
    assert_eq!(
        fault(&exec.execute(&j).await),
        (FaultKind::Impossible, 10_000)
    );
}

#[tokio::test]
async fn http_malformed_input_is_the_actors_fault_and_asks_nothing() {
    let server = serve(vec![("/p", Route::Json(r#"{"price": 1}"#.into()))]).await;
    let exec = executor(&server, |_| {});
    let url = || ("url", text("https://price.test/p"));
    for input in [
        text("https://price.test/p"),
        map(vec![]),
        map(vec![("url", text("not a url"))]),
        map(vec![url(), ("method", text("PUT"))]),
        map(vec![url(), ("body", text("x"))]),
        map(vec![url(), ("cookies", text("x"))]),
        map(vec![url(), ("headers", map(vec![("bad name", text("x"))]))]),
    ] {
        let r = exec.run(&job(input.clone(), "none", Value::Null)).await;
        assert!(matches!(r, Err(HttpError::BadInput(_))), "{input:?}: {r:?}");
    }
    // Oracle parameters the chain would refuse are refused the same way.
    for params in [
        Value::Null,
        oracle_params(vec![rule("price", "regex", "(unclosed")]),
        oracle_params(vec![rule("price", "css", "div >")]),
    ] {
        let j = job(get("https://price.test/p"), "oracle", params.clone());
        let r = exec.run(&j).await;
        assert!(
            matches!(r, Err(HttpError::BadRules(_))),
            "{params:?}: {r:?}"
        );
        assert_eq!(fault(&exec.execute(&j).await), (FaultKind::Actor, 0));
    }
    assert!(server.requests().is_empty(), "{:?}", server.requests());
}

#[tokio::test]
async fn http_what_the_site_gets_wrong_is_external() {
    let server = serve(vec![
        ("/down", Route::Status(503)),
        ("/html", Route::Json("<html>no json</html>".into())),
        ("/other", Route::Json(r#"{"cost": 1}"#.into())),
    ])
    .await;
    let exec = executor(&server, |_| {});
    assert_eq!(
        exec.run(&raw("https://price.test/down")).await,
        Err(HttpError::Status(503))
    );
    let price = || oracle_params(vec![rule("price", "jsonpath", "$.price")]);
    let html = job(get("https://price.test/html"), "oracle", price());
    assert!(matches!(
        exec.run(&html).await,
        Err(HttpError::Extract(ExtractError::NotJson(_)))
    ));
    let other = job(get("https://price.test/other"), "oracle", price());
    assert_eq!(
        exec.run(&other).await,
        Err(HttpError::Extract(ExtractError::NotFound("price".into())))
    );
    assert_eq!(fault(&exec.execute(&other).await), (FaultKind::External, 0));

    // Nothing listening: a connection refused.
    let closed = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind")
        .local_addr()
        .expect("addr");
    let nowhere = executor(&server, |c| c.resolve = vec![(PRICE.into(), closed)]);
    let r = nowhere.run(&raw("https://price.test/down")).await;
    assert!(matches!(r, Err(HttpError::Unreachable(_))), "{r:?}");

    // A certificate the runner does not trust is a failed connection, not a result.
    let untrusting = executor(&server, |c| c.extra_root_certs.clear());
    let r = untrusting.run(&raw("https://price.test/other")).await;
    assert!(matches!(r, Err(HttpError::Unreachable(_))), "{r:?}");
}
