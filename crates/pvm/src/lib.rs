//! The Cowboy Python VM.
