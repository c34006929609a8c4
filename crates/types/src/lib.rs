//! Cowboy protocol types: the crate every other crate stands on.
