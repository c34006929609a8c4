//! The MCP executor against a real MCP server built on `rmcp` (`Fixture` below), reached both
//! ways the executor supports: streamable HTTP (the server in this process, on loopback) and
//! stdio (this test binary started again as a child process, running only the ignored
//! `mcp::stdio_fixture`, which serves the same `Fixture` on its stdin and stdout; libtest's
//! own header line on stdout is not JSON, and MCP clients skip such lines).
//!
//! Paths: a tool's structured result; its text content; unknown server and tool and refused
//! arguments (`actor`); a tool reporting an error, a server error, a server that never
//! answers and one that cannot be started (`external`); an oversized result (`impossible`).

use std::collections::BTreeMap;
use std::sync::Arc;

use cowboy_runner::executor::mcp::{McpConfig, McpError, McpExecutor, McpServer};
use cowboy_runner::executor::{Bounds, FaultKind, Job, Outcome};
use cowboy_types::cbor::Value;
use cowboy_types::Hash32;
use hyper_util::rt::TokioIo;
use hyper_util::service::TowerToHyperService;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::json;

use crate::support::{fault, map, text};

/// Set in the child's environment: serve the fixture on stdio.
const STDIO_ENV: &str = "COWBOY_RUNNER_MCP_STDIO_FIXTURE";

/// A small MCP server: `add` (structured `{"sum"}`), `echo` (text), `fail` (a tool error),
/// `crash` (a server error), `big` (10,000 bytes of text), `hang` (never answers).
#[derive(Clone)]
struct Fixture;

impl ServerHandler for Fixture {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        _: Option<PaginatedRequestParams>,
        _: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let schema = |s: serde_json::Value| match s {
            serde_json::Value::Object(o) => Arc::new(o),
            _ => Arc::new(Default::default()),
        };
        let any = || schema(json!({"type": "object"}));
        Ok(ListToolsResult::with_all_items(vec![
            Tool::new(
                "add",
                "a + b",
                schema(
                    json!({"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}}),
                ),
            ),
            Tool::new("echo", "its text", any()),
            Tool::new("fail", "a tool error", any()),
            Tool::new("crash", "a server error", any()),
            Tool::new("big", "10,000 bytes", any()),
            Tool::new("hang", "never answers", any()),
        ]))
    }

    async fn call_tool(
        &self,
        req: CallToolRequestParams,
        _: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let args = req.arguments.unwrap_or_default();
        let result = match req.name.as_ref() {
            "add" => {
                let (Some(a), Some(b)) = (
                    args.get("a").and_then(|v| v.as_i64()),
                    args.get("b").and_then(|v| v.as_i64()),
                ) else {
                    return Err(ErrorData::invalid_params("a and b: integers", None));
                };
                CallToolResult::structured(json!({"sum": a + b}))
            }
            "echo" => {
                let text = args.get("text").and_then(|v| v.as_str()).unwrap_or("");
                CallToolResult::success(vec![ContentBlock::text(text.to_string())])
            }
            "fail" => CallToolResult::error(vec![ContentBlock::text("boom")]),
            "crash" => return Err(ErrorData::internal_error("crashed", None)),
            "big" => CallToolResult::success(vec![ContentBlock::text("x".repeat(10_000))]),
            "hang" => std::future::pending().await,
            other => return Err(ErrorData::invalid_params(format!("no tool {other}"), None)),
        };
        Ok(result.into())
    }
}

#[tokio::test]
#[ignore = "not a test: the stdio MCP server the MCP tests start as a child process"]
async fn stdio_fixture() {
    if std::env::var_os(STDIO_ENV).is_none() {
        return;
    }
    let server = Fixture
        .serve(rmcp::transport::stdio())
        .await
        .expect("stdio session");
    // Until the client closes stdin (or the runner kills this process). Then exit at once:
    // libtest's closing summary would go to a stdout nobody reads any more.
    let _ = server.waiting().await;
    std::process::exit(0);
}

/// The fixture over stdio: this binary, running only `stdio_fixture`.
fn stdio() -> McpServer {
    McpServer::Stdio {
        program: std::env::current_exe()
            .expect("test binary")
            .to_string_lossy()
            .into_owned(),
        args: ["mcp::stdio_fixture", "--exact", "--ignored", "-q"]
            .map(String::from)
            .to_vec(),
        env: vec![(STDIO_ENV.into(), "1".into())],
    }
}

/// The fixture over streamable HTTP on loopback; its URL.
async fn http() -> String {
    let service = StreamableHttpService::new(
        || Ok(Fixture),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default(),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move {
        while let Ok((tcp, _)) = listener.accept().await {
            let service = TowerToHyperService::new(service.clone());
            tokio::spawn(async move {
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(tcp), service)
                    .await;
            });
        }
    });
    format!("http://{addr}/mcp")
}

async fn executor() -> McpExecutor {
    let servers = BTreeMap::from([
        ("stdio".to_string(), stdio()),
        ("web".to_string(), McpServer::Http { url: http().await }),
        (
            "missing".to_string(),
            McpServer::Stdio {
                program: "/nonexistent/mcp-server".into(),
                args: vec![],
                env: vec![],
            },
        ),
    ]);
    McpExecutor::new(McpConfig {
        servers,
        extra_root_certs: Vec::new(),
    })
    .expect("executor")
}

fn job(server: &str, tool: &str, arguments: Value) -> Job {
    Job {
        id: Hash32::default(),
        model: None,
        domains: vec![],
        input: map(vec![
            ("server", text(server)),
            ("tool", text(tool)),
            ("arguments", arguments),
        ]),
        bounds: Bounds {
            max_tokens: 1,
            max_wall_ms: 20_000,
            max_memory_mb: 64,
        },
        max_return_bytes: 4_096,
        mode: "deterministic".into(),
        params: Value::Null,
    }
}

fn add(a: u64, b: u64) -> Value {
    map(vec![("a", Value::Uint(a)), ("b", Value::Uint(b))])
}

#[tokio::test]
async fn mcp_tools_answer_over_stdio_and_http() {
    let exec = executor().await;
    for server in ["stdio", "web"] {
        let Outcome::Done { result, usage } = exec.execute(&job(server, "add", add(2, 40))).await
        else {
            panic!("{server}: no result");
        };
        assert_eq!(result, br#"{"sum":42}"#, "{server}: the structured content");
        assert_eq!(usage.tokens, 0);
        let echoed = exec
            .run(&job(server, "echo", map(vec![("text", text("hi"))])))
            .await
            .expect("echo");
        let blocks: serde_json::Value = serde_json::from_slice(&echoed).expect("JSON");
        assert_eq!(blocks[0]["text"], "hi", "{server}: the content blocks");
    }
}

#[tokio::test]
async fn mcp_the_actors_mistakes_are_actor_faults() {
    let exec = executor().await;
    for server in ["stdio", "web"] {
        assert_eq!(
            exec.run(&job(server, "nope", map(vec![]))).await,
            Err(McpError::UnknownTool("nope".into()))
        );
        let refused = exec
            .run(&job(server, "add", map(vec![("a", text("x"))])))
            .await;
        assert!(
            matches!(refused, Err(McpError::BadArguments(_))),
            "{refused:?}"
        );
    }
    assert_eq!(
        exec.run(&job("elsewhere", "add", add(1, 2))).await,
        Err(McpError::UnknownServer("elsewhere".into()))
    );
    for input in [
        text("add"),
        map(vec![("tool", text("add"))]),
        map(vec![
            ("server", text("web")),
            ("tool", text("add")),
            ("x", Value::Null),
        ]),
        map(vec![
            ("server", text("web")),
            ("tool", text("add")),
            ("arguments", map(vec![("a", Value::Bytes(vec![1]))])),
        ]),
    ] {
        let mut j = job("web", "add", Value::Null);
        j.input = input.clone();
        let r = exec.run(&j).await;
        assert!(matches!(r, Err(McpError::BadInput(_))), "{input:?}: {r:?}");
        assert_eq!(fault(&exec.execute(&j).await), (FaultKind::Actor, 0));
    }
}

#[tokio::test]
async fn mcp_server_failures_are_external_and_size_impossible() {
    let exec = executor().await;
    for server in ["stdio", "web"] {
        assert_eq!(
            exec.run(&job(server, "fail", map(vec![]))).await,
            Err(McpError::ToolFailed(
                r#"[{"type":"text","text":"boom"}]"#.into()
            ))
        );
        assert_eq!(
            exec.run(&job(server, "crash", map(vec![]))).await,
            Err(McpError::ToolFailed("crashed".into()))
        );
        let mut hang = job(server, "hang", map(vec![]));
        hang.bounds.max_wall_ms = 2_000;
        let Outcome::Fault { kind, usage, .. } = exec.execute(&hang).await else {
            panic!("a result from a tool that never answers")
        };
        assert_eq!(kind, FaultKind::External);
        assert!(usage.wall_ms >= 2_000, "stopped by the bound: {usage:?}");
        let big = exec.execute(&job(server, "big", map(vec![]))).await;
        assert_eq!(fault(&big), (FaultKind::Impossible, 10_000));
    }
    let r = exec.run(&job("missing", "add", add(1, 2))).await;
    assert!(matches!(r, Err(McpError::Unavailable(_))), "{r:?}");
}
