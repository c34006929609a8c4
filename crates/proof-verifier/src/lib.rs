//! no_std verification of Cowboy state proofs (also wasm32).
