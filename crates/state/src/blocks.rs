//! Block store (placeholder while being written).
