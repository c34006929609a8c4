//! The account record stored under `0x01 ‖ address` (whitepaper "Accounts and State":
//! `State : Address → { balance, nonce, code_hash?, storage?, metadata }`).
//!
//! Encoding (version 1), all integers big-endian, one encoding per value so it is canonical by
//! construction — the decoder rejects anything else:
//!
//! ```text
//! 0x01                      version
//! balance        u128       16 bytes
//! nonce          u64         8 bytes
//! has_code       u8          0 or 1
//! code_hash      [u8; 32]    present iff has_code == 1
//! storage_items  u64         number of live storage entries of this actor
//! storage_bytes  u64         Σ (len(key) + len(value)) over those entries
//! metadata_len   u32         ≤ MAX_METADATA_LEN
//! metadata       bytes
//! ```
//!
//! The "storage commitment" of an account is `(storage_items, storage_bytes)`, not a separate
//! Merkle root: QMDB's single state root already commits to every storage entry, so a per-actor
//! root would be a second, redundant authentication of the same data. The two counters are what
//! the protocol needs from an actor's storage — quota (§3.2) and rent (§4.4) are charged per byte —
//! and `cowboy-state` maintains them on every storage write, so they are consensus-checked facts.
//! `metadata` is opaque bytes owned by the state transition (e.g. rent bookkeeping).

use alloc::vec::Vec;

use crate::keys::Digest;

/// Current account record version.
pub const ACCOUNT_VERSION: u8 = 1;

/// Largest accepted `metadata` field, in bytes.
pub const MAX_METADATA_LEN: usize = 4096;

/// One account (an EOA, or an actor when `code_hash` is set).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Account {
    /// Balance in the smallest CBY unit.
    pub balance: u128,
    /// Number of transactions sent by this account.
    pub nonce: u64,
    /// Hash of the actor's code (`keccak256` of its canonical source), `None` for an externally
    /// owned account.
    pub code_hash: Option<Digest>,
    /// Number of live storage entries of this actor.
    pub storage_items: u64,
    /// Bytes of live storage: Σ (len(key) + len(value)).
    pub storage_bytes: u64,
    /// Opaque metadata owned by the state transition, at most [MAX_METADATA_LEN] bytes.
    pub metadata: Vec<u8>,
}

/// Why bytes are not a valid account record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AccountError {
    /// The version byte is not [ACCOUNT_VERSION].
    UnknownVersion(u8),
    /// The record ends before field `.0`.
    Truncated(&'static str),
    /// `has_code` is neither 0 nor 1.
    BadCodeFlag(u8),
    /// `metadata` is longer than [MAX_METADATA_LEN].
    MetadataTooLong(usize),
    /// Bytes remain after the last field.
    TrailingBytes(usize),
}

impl Account {
    /// The canonical encoding of this record.
    ///
    /// Metadata longer than [MAX_METADATA_LEN] cannot be stored: `cowboy-state` rejects such an
    /// account before encoding it, so here it is simply encoded as given.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(66 + self.metadata.len());
        out.push(ACCOUNT_VERSION);
        out.extend_from_slice(&self.balance.to_be_bytes());
        out.extend_from_slice(&self.nonce.to_be_bytes());
        match &self.code_hash {
            Some(hash) => {
                out.push(1);
                out.extend_from_slice(hash);
            }
            None => out.push(0),
        }
        out.extend_from_slice(&self.storage_items.to_be_bytes());
        out.extend_from_slice(&self.storage_bytes.to_be_bytes());
        // Lengths above u32::MAX cannot occur for a valid record (MAX_METADATA_LEN is far below).
        let len = u32::try_from(self.metadata.len()).unwrap_or(u32::MAX);
        out.extend_from_slice(&len.to_be_bytes());
        out.extend_from_slice(&self.metadata);
        out
    }

    /// Decode a record, rejecting every non-canonical or malformed input.
    pub fn decode(bytes: &[u8]) -> Result<Self, AccountError> {
        let mut r = Reader(bytes);
        let version = r.u8("version")?;
        if version != ACCOUNT_VERSION {
            return Err(AccountError::UnknownVersion(version));
        }
        let balance = u128::from_be_bytes(r.array("balance")?);
        let nonce = u64::from_be_bytes(r.array("nonce")?);
        let code_hash = match r.u8("has_code")? {
            0 => None,
            1 => Some(r.array("code_hash")?),
            other => return Err(AccountError::BadCodeFlag(other)),
        };
        let storage_items = u64::from_be_bytes(r.array("storage_items")?);
        let storage_bytes = u64::from_be_bytes(r.array("storage_bytes")?);
        let len = u32::from_be_bytes(r.array("metadata_len")?) as usize;
        if len > MAX_METADATA_LEN {
            return Err(AccountError::MetadataTooLong(len));
        }
        let metadata = r.take(len, "metadata")?.to_vec();
        if !r.0.is_empty() {
            return Err(AccountError::TrailingBytes(r.0.len()));
        }
        Ok(Self {
            balance,
            nonce,
            code_hash,
            storage_items,
            storage_bytes,
            metadata,
        })
    }
}

struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize, field: &'static str) -> Result<&'a [u8], AccountError> {
        if self.0.len() < n {
            return Err(AccountError::Truncated(field));
        }
        let (head, tail) = self.0.split_at(n);
        self.0 = tail;
        Ok(head)
    }

    fn u8(&mut self, field: &'static str) -> Result<u8, AccountError> {
        Ok(self.array::<1>(field)?[0])
    }

    fn array<const N: usize>(&mut self, field: &'static str) -> Result<[u8; N], AccountError> {
        let mut out = [0u8; N];
        out.copy_from_slice(self.take(N, field)?);
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    fn sample() -> Account {
        Account {
            balance: 1_000_000_000_000_000_000_000,
            nonce: 7,
            code_hash: Some([0xAB; 32]),
            storage_items: 3,
            storage_bytes: 120,
            metadata: vec![1, 2, 3],
        }
    }

    #[test]
    fn round_trips() {
        for account in [sample(), Account::default()] {
            assert_eq!(Account::decode(&account.encode()), Ok(account));
        }
    }

    #[test]
    fn encoding_is_pinned() {
        let bytes = Account::default().encode();
        // version, 16 + 8 zero bytes, no code, two zero counters, empty metadata.
        let mut expected = vec![1u8];
        expected.extend_from_slice(&[0u8; 24]);
        expected.push(0);
        expected.extend_from_slice(&[0u8; 20]);
        assert_eq!(bytes, expected);
    }

    #[test]
    fn rejects_malformed_records() {
        let good = sample().encode();
        assert_eq!(
            Account::decode(&good[..good.len() - 1]),
            Err(AccountError::Truncated("metadata"))
        );
        let mut trailing = good.clone();
        trailing.push(0);
        assert_eq!(
            Account::decode(&trailing),
            Err(AccountError::TrailingBytes(1))
        );
        let mut version = good.clone();
        version[0] = 2;
        assert_eq!(
            Account::decode(&version),
            Err(AccountError::UnknownVersion(2))
        );
        let mut flag = good.clone();
        flag[25] = 2;
        assert_eq!(Account::decode(&flag), Err(AccountError::BadCodeFlag(2)));
        let mut long = Account::default().encode();
        let n = long.len();
        long[n - 4..].copy_from_slice(&5000u32.to_be_bytes());
        assert_eq!(
            Account::decode(&long),
            Err(AccountError::MetadataTooLong(5000))
        );
        assert_eq!(
            Account::decode(&[]),
            Err(AccountError::Truncated("version"))
        );
    }
}
