//! `cowboy-runner`'s integration tests: one binary, a module per concern.

mod daemon;
mod hostile;
mod http;
mod llm;
mod mcp;
mod sim;
mod support;
