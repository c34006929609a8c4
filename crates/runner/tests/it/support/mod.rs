//! What several test modules share: real servers on loopback.

pub mod https;
