//! Cowboy authenticated state: accounts, actor code and storage in QMDB, block store, indexes, proofs.
