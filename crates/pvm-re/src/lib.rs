//! Python re-compatible regular expression engine with metered backtracking, for the Cowboy PVM.
