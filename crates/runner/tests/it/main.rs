//! `cowboy-runner`'s integration tests: one binary, a module per concern.

mod llm;
