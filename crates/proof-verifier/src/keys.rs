//! The key layout of Cowboy's authenticated state (whitepaper "Accounts and State", "Storage and
//! State Persistence").
//!
//! All of the state lives in one ordered QMDB key space; the first byte of a key names its
//! namespace, so the single state root commits to every namespace at once:
//!
//! | namespace | key bytes | value bytes |
//! |---|---|---|
//! | account | `0x01 ‖ address` (21 bytes) | [crate::Account] record |
//! | actor storage | `0x02 ‖ blake3(address ‖ key)` (33 bytes) | raw value bytes |
//! | actor code | `0x03 ‖ code_hash` (33 bytes), `code_hash = keccak256(code)` | canonical source bytes |
//!
//! Storage keys are hashed rather than laid out as `0x02 ‖ address ‖ key`: QMDB's ordered index
//! finds a key by its first 8 bytes and then reads every colliding entry from the log, so keys
//! that share a long prefix (all entries of one actor) would make each read linear in the
//! actor's entry count. Hashing makes the first 8 bytes uniform (expected O(1) reads, as the spec
//! asks) at the price of not being able to enumerate one actor's entries from the state in key
//! order. `address` is exactly 20 bytes, so `address ‖ key` is an unambiguous encoding.

/// A 20-byte account or actor address.
pub type Address = [u8; 20];

/// A 32-byte Blake3 digest (state roots, code hashes).
pub type Digest = [u8; 32];

/// Namespace byte of account records.
pub const ACCOUNT_PREFIX: u8 = 0x01;
/// Namespace byte of actor storage entries.
pub const STORAGE_PREFIX: u8 = 0x02;
/// Namespace byte of actor code.
pub const CODE_PREFIX: u8 = 0x03;

/// Length of an account key.
pub const ACCOUNT_KEY_LEN: usize = 21;
/// Length of a storage or code key.
pub const HASHED_KEY_LEN: usize = 33;

/// The state key of the account at `address`.
pub fn account_key(address: &Address) -> [u8; ACCOUNT_KEY_LEN] {
    let mut key = [0u8; ACCOUNT_KEY_LEN];
    key[0] = ACCOUNT_PREFIX;
    key[1..].copy_from_slice(address);
    key
}

/// The state key of storage entry `key` of the actor at `address`.
pub fn storage_key(address: &Address, key: &[u8]) -> [u8; HASHED_KEY_LEN] {
    let mut hasher = blake3::Hasher::new();
    hasher.update(address);
    hasher.update(key);
    prefixed(STORAGE_PREFIX, hasher.finalize().as_bytes())
}

/// The state key of the code whose hash is `code_hash`.
pub fn code_key(code_hash: &Digest) -> [u8; HASHED_KEY_LEN] {
    prefixed(CODE_PREFIX, code_hash)
}

/// The hash that content-addresses actor code: `keccak256(code)` of the canonical source, the
/// protocol's code hash (cowboy-types `code_hash`, spec §1.2; it also derives actor addresses).
pub fn code_hash(code: &[u8]) -> Digest {
    use sha3::Digest as _;
    sha3::Keccak256::digest(code).into()
}

fn prefixed(prefix: u8, digest: &Digest) -> [u8; HASHED_KEY_LEN] {
    let mut key = [0u8; HASHED_KEY_LEN];
    key[0] = prefix;
    key[1..].copy_from_slice(digest);
    key
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn namespaces_do_not_overlap() {
        let a = [7u8; 20];
        assert_eq!(account_key(&a)[0], ACCOUNT_PREFIX);
        assert_eq!(storage_key(&a, b"k")[0], STORAGE_PREFIX);
        assert_eq!(code_key(&[9u8; 32])[0], CODE_PREFIX);
        assert_ne!(storage_key(&a, b"k"), storage_key(&a, b"k2"));
        assert_ne!(storage_key(&a, b"k"), storage_key(&[8u8; 20], b"k"));
    }

    #[test]
    fn code_hash_is_keccak256() {
        // keccak256("") — Ethereum's well-known empty hash, not NIST SHA3-256's.
        let empty = code_hash(b"");
        assert_eq!(
            empty[..4],
            [0xc5, 0xd2, 0x46, 0x01],
            "keccak256 of the empty string starts c5d24601"
        );
    }

    #[test]
    fn storage_key_is_pinned() {
        // Golden value: changing the derivation changes every state root.
        let key = storage_key(&[0x11; 20], b"balance");
        let expected = {
            let mut buf = [0u8; 27];
            buf[..20].copy_from_slice(&[0x11; 20]);
            buf[20..].copy_from_slice(b"balance");
            *blake3::hash(&buf).as_bytes()
        };
        assert_eq!(&key[1..], &expected);
    }
}
