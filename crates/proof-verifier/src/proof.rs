//! The Cowboy state proof wire format and the mapping from a claim to the operation it proves.
//!
//! A proof shows that one *operation* of the state's QMDB operation log (commonware-storage
//! `qmdb::current::ordered`, MMR family, Blake3, 32-byte activity chunks) is **active** under a
//! state root. Which operation is proven depends on the claim:
//!
//! * **inclusion** of `key = value`: the active `Update(key, value, next_key)`, where `next_key`
//!   is the next active key in order (carried in the proof);
//! * **exclusion** of `key`: an active `Update(k, v, next)` whose cyclic span `(k, next)`
//!   strictly contains `key` — the ordered database keeps each active key linked to its
//!   successor, so no active key lies inside a span;
//! * **exclusion in an empty state**: the last `CommitFloor(metadata, floor)` whose floor equals
//!   its own location, which is only the case when no key is active.
//!
//! Encoding, version 1 (integers big-endian; byte strings are `u32` length + bytes):
//!
//! ```text
//! 0x01                                version
//! kind          u8                    0 inclusion, 1 exclusion (span), 2 exclusion (empty)
//! loc           u64                   location of the proven operation in the log
//! chunk         [u8; 32]              the activity-bitmap chunk holding bit `loc`
//! leaves        u64                   operations in the log (leaves of the ops MMR)
//! inactive      u64                   number of inactive (floor-folded) MMR peaks
//! n_digests     u16                   ≤ MAX_DIGESTS
//! digests       [u8; 32] × n_digests  range-proof digests (see crate::merkle)
//! has_partial   u8                    0 or 1
//! partial       [u8; 32]              digest of the trailing partial chunk, iff has_partial
//! ops_root      [u8; 32]              root of the raw operations MMR
//! kind 0:  next_key bytes
//! kind 1:  span_key bytes, span_value bytes, span_next_key bytes
//! kind 2:  has_metadata u8, metadata bytes iff has_metadata
//! ```

use alloc::vec::Vec;

use crate::VerifyError;

/// Current proof encoding version.
pub const PROOF_VERSION: u8 = 1;

/// Upper bound on the digests of one single-operation proof: 61 path siblings plus peaks and
/// accumulators in the largest possible MMR (commonware's bound for one element is 122).
pub const MAX_DIGESTS: usize = 128;

/// Largest byte string accepted inside a proof (keys, values, metadata): 16 MiB.
pub const MAX_FIELD_LEN: usize = 16 << 20;

/// Size of an activity-bitmap chunk in bytes (`N` of the QMDB `current` database).
pub const CHUNK_BYTES: usize = 32;

/// Operation tags of QMDB's `any` operation encoding.
pub(crate) const UPDATE_CONTEXT: u8 = 0xD2;
pub(crate) const COMMIT_CONTEXT: u8 = 0xD3;

/// The Merkle part of a proof: one operation of the log is active under a root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OperationProof {
    /// Location (index) of the operation in the operation log.
    pub loc: u64,
    /// Activity-bitmap chunk containing bit `loc`.
    pub chunk: [u8; CHUNK_BYTES],
    /// Number of operations (MMR leaves) when the proof was made.
    pub leaves: u64,
    /// Number of leading MMR peaks folded as inactive (below the inactivity floor).
    pub inactive_peaks: u64,
    /// Range-proof digests: `[prefix_acc? | prefix_peaks.. | after_peaks.. | suffix_acc? | path..]`.
    pub digests: Vec<[u8; 32]>,
    /// Digest of the trailing partial bitmap chunk, present iff `leaves % 256 != 0`.
    pub partial_chunk_digest: Option<[u8; 32]>,
    /// Root of the raw operations MMR (bound into the canonical root).
    pub ops_root: [u8; 32],
}

/// What the operation in a proof is, and so what the proof can show.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Claim {
    /// The proven operation is `Update(key, value, next_key)` for the queried key: inclusion.
    Present {
        /// The next active key after the queried key (wrapping).
        next_key: Vec<u8>,
    },
    /// The proven operation is the active update whose span contains the queried key: exclusion.
    AbsentInSpan {
        /// Active key that starts the span.
        key: Vec<u8>,
        /// Its value.
        value: Vec<u8>,
        /// Next active key, which ends the span.
        next_key: Vec<u8>,
    },
    /// The proven operation is a commit of an empty state: exclusion of every key.
    Empty {
        /// Commit metadata of that commit.
        metadata: Option<Vec<u8>>,
    },
}

/// A decoded state proof.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StateProof {
    /// The Merkle proof of the operation.
    pub op: OperationProof,
    /// Which operation it is.
    pub claim: Claim,
}

/// Why proof bytes could not be decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProofError {
    /// The version byte is not [PROOF_VERSION].
    UnknownVersion(u8),
    /// The kind byte is not 0, 1 or 2.
    UnknownKind(u8),
    /// The input ends before field `.0`.
    Truncated(&'static str),
    /// A flag byte (field `.0`) is neither 0 nor 1.
    BadFlag(&'static str),
    /// More than [MAX_DIGESTS] digests.
    TooManyDigests(usize),
    /// A byte string longer than [MAX_FIELD_LEN].
    FieldTooLong(&'static str),
    /// Bytes remain after the last field.
    TrailingBytes(usize),
}

impl StateProof {
    /// Encode this proof in the version-1 wire format.
    pub fn encode(&self) -> Vec<u8> {
        let op = &self.op;
        let mut out = Vec::with_capacity(128 + op.digests.len() * 32);
        out.push(PROOF_VERSION);
        out.push(match self.claim {
            Claim::Present { .. } => 0,
            Claim::AbsentInSpan { .. } => 1,
            Claim::Empty { .. } => 2,
        });
        out.extend_from_slice(&op.loc.to_be_bytes());
        out.extend_from_slice(&op.chunk);
        out.extend_from_slice(&op.leaves.to_be_bytes());
        out.extend_from_slice(&op.inactive_peaks.to_be_bytes());
        let n = u16::try_from(op.digests.len()).unwrap_or(u16::MAX);
        out.extend_from_slice(&n.to_be_bytes());
        for d in &op.digests {
            out.extend_from_slice(d);
        }
        match &op.partial_chunk_digest {
            Some(d) => {
                out.push(1);
                out.extend_from_slice(d);
            }
            None => out.push(0),
        }
        out.extend_from_slice(&op.ops_root);
        match &self.claim {
            Claim::Present { next_key } => put_bytes(&mut out, next_key),
            Claim::AbsentInSpan {
                key,
                value,
                next_key,
            } => {
                put_bytes(&mut out, key);
                put_bytes(&mut out, value);
                put_bytes(&mut out, next_key);
            }
            Claim::Empty { metadata } => match metadata {
                Some(m) => {
                    out.push(1);
                    put_bytes(&mut out, m);
                }
                None => out.push(0),
            },
        }
        out
    }

    /// Decode a proof, rejecting malformed input with a typed error.
    pub fn decode(bytes: &[u8]) -> Result<Self, ProofError> {
        let mut r = Reader(bytes);
        let version = r.u8("version")?;
        if version != PROOF_VERSION {
            return Err(ProofError::UnknownVersion(version));
        }
        let kind = r.u8("kind")?;
        if kind > 2 {
            return Err(ProofError::UnknownKind(kind));
        }
        let loc = u64::from_be_bytes(r.array("loc")?);
        let chunk = r.array("chunk")?;
        let leaves = u64::from_be_bytes(r.array("leaves")?);
        let inactive_peaks = u64::from_be_bytes(r.array("inactive_peaks")?);
        let n = usize::from(u16::from_be_bytes(r.array("n_digests")?));
        if n > MAX_DIGESTS {
            return Err(ProofError::TooManyDigests(n));
        }
        let mut digests = Vec::with_capacity(n);
        for _ in 0..n {
            digests.push(r.array("digests")?);
        }
        let partial_chunk_digest = match r.u8("has_partial")? {
            0 => None,
            1 => Some(r.array("partial")?),
            _ => return Err(ProofError::BadFlag("has_partial")),
        };
        let ops_root = r.array("ops_root")?;
        let claim = match kind {
            0 => Claim::Present {
                next_key: r.bytes("next_key")?,
            },
            1 => Claim::AbsentInSpan {
                key: r.bytes("span_key")?,
                value: r.bytes("span_value")?,
                next_key: r.bytes("span_next_key")?,
            },
            _ => Claim::Empty {
                metadata: match r.u8("has_metadata")? {
                    0 => None,
                    1 => Some(r.bytes("metadata")?),
                    _ => return Err(ProofError::BadFlag("has_metadata")),
                },
            },
        };
        if !r.0.is_empty() {
            return Err(ProofError::TrailingBytes(r.0.len()));
        }
        Ok(Self {
            op: OperationProof {
                loc,
                chunk,
                leaves,
                inactive_peaks,
                digests,
                partial_chunk_digest,
                ops_root,
            },
            claim,
        })
    }

    /// The encoded log operation this proof must show active for the claim
    /// "`state_key` maps to `claimed`" (`None` = absent), or why the proof cannot show it.
    pub fn element_for(
        &self,
        state_key: &[u8],
        claimed: Option<&[u8]>,
    ) -> Result<Vec<u8>, VerifyError> {
        match (&self.claim, claimed) {
            (Claim::Present { next_key }, Some(value)) => {
                Ok(encode_update(state_key, value, next_key))
            }
            (
                Claim::AbsentInSpan {
                    key,
                    value,
                    next_key,
                },
                None,
            ) => {
                if key.as_slice() == state_key || !in_cyclic_span(key, next_key, state_key) {
                    return Err(VerifyError::ClaimMismatch);
                }
                Ok(encode_update(key, value, next_key))
            }
            (Claim::Empty { metadata }, None) => {
                // An empty state's last commit has its floor at its own location.
                Ok(encode_commit(metadata.as_deref(), self.op.loc))
            }
            _ => Err(VerifyError::ClaimMismatch),
        }
    }
}

/// `start <= key < end` in the cyclic order over byte strings (a span with `start >= end` wraps
/// around the end of the key space; `start == end` is the whole space).
fn in_cyclic_span(start: &[u8], end: &[u8], key: &[u8]) -> bool {
    if start < end {
        start <= key && key < end
    } else {
        key >= start || key < end
    }
}

/// QMDB's encoding of `Operation::Update(Update { key, value, next_key })` for variable-size
/// `Vec<u8>` keys and values: tag, then each field as a LEB128 length and its bytes.
pub fn encode_update(key: &[u8], value: &[u8], next_key: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(16 + key.len() + value.len() + next_key.len());
    out.push(UPDATE_CONTEXT);
    for field in [key, value, next_key] {
        put_varint(&mut out, field.len() as u64);
        out.extend_from_slice(field);
    }
    out
}

/// QMDB's encoding of `Operation::CommitFloor(metadata, floor)` for `Vec<u8>` metadata.
pub fn encode_commit(metadata: Option<&[u8]>, floor: u64) -> Vec<u8> {
    let mut out = Vec::new();
    out.push(COMMIT_CONTEXT);
    match metadata {
        Some(m) => {
            out.push(1);
            put_varint(&mut out, m.len() as u64);
            out.extend_from_slice(m);
        }
        None => out.push(0),
    }
    put_varint(&mut out, floor);
    out
}

/// Unsigned LEB128, as commonware-codec writes lengths and locations.
fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn put_bytes(out: &mut Vec<u8>, bytes: &[u8]) {
    let len = u32::try_from(bytes.len()).unwrap_or(u32::MAX);
    out.extend_from_slice(&len.to_be_bytes());
    out.extend_from_slice(bytes);
}

struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize, field: &'static str) -> Result<&'a [u8], ProofError> {
        if self.0.len() < n {
            return Err(ProofError::Truncated(field));
        }
        let (head, tail) = self.0.split_at(n);
        self.0 = tail;
        Ok(head)
    }

    fn u8(&mut self, field: &'static str) -> Result<u8, ProofError> {
        Ok(self.array::<1>(field)?[0])
    }

    fn array<const N: usize>(&mut self, field: &'static str) -> Result<[u8; N], ProofError> {
        let mut out = [0u8; N];
        out.copy_from_slice(self.take(N, field)?);
        Ok(out)
    }

    fn bytes(&mut self, field: &'static str) -> Result<Vec<u8>, ProofError> {
        let len = u32::from_be_bytes(self.array(field)?) as usize;
        if len > MAX_FIELD_LEN {
            return Err(ProofError::FieldTooLong(field));
        }
        Ok(self.take(len, field)?.to_vec())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    fn sample(claim: Claim) -> StateProof {
        StateProof {
            op: OperationProof {
                loc: 5,
                chunk: [0xF0; 32],
                leaves: 300,
                inactive_peaks: 1,
                digests: vec![[1; 32], [2; 32]],
                partial_chunk_digest: Some([3; 32]),
                ops_root: [4; 32],
            },
            claim,
        }
    }

    #[test]
    fn round_trips_every_kind() {
        for claim in [
            Claim::Present {
                next_key: vec![1, 2],
            },
            Claim::AbsentInSpan {
                key: vec![1],
                value: vec![9; 40],
                next_key: vec![3],
            },
            Claim::Empty { metadata: None },
            Claim::Empty {
                metadata: Some(vec![7; 8]),
            },
        ] {
            let proof = sample(claim);
            assert_eq!(StateProof::decode(&proof.encode()), Ok(proof));
        }
    }

    #[test]
    fn rejects_malformed_bytes() {
        let good = sample(Claim::Empty { metadata: None }).encode();
        for cut in 0..good.len() {
            assert!(StateProof::decode(&good[..cut]).is_err(), "cut at {cut}");
        }
        let mut trailing = good.clone();
        trailing.push(0);
        assert_eq!(
            StateProof::decode(&trailing),
            Err(ProofError::TrailingBytes(1))
        );
        let mut kind = good.clone();
        kind[1] = 9;
        assert_eq!(StateProof::decode(&kind), Err(ProofError::UnknownKind(9)));
        let mut version = good.clone();
        version[0] = 0;
        assert_eq!(
            StateProof::decode(&version),
            Err(ProofError::UnknownVersion(0))
        );
        let mut many = good;
        many[2 + 8 + 32 + 16..2 + 8 + 32 + 18].copy_from_slice(&500u16.to_be_bytes());
        assert_eq!(
            StateProof::decode(&many),
            Err(ProofError::TooManyDigests(500))
        );
    }

    #[test]
    fn cyclic_spans() {
        assert!(in_cyclic_span(b"b", b"d", b"c"));
        assert!(!in_cyclic_span(b"b", b"d", b"d"));
        assert!(!in_cyclic_span(b"b", b"d", b"a"));
        // Wrapping span: from the last key around to the first.
        assert!(in_cyclic_span(b"x", b"b", b"z"));
        assert!(in_cyclic_span(b"x", b"b", b"a"));
        assert!(!in_cyclic_span(b"x", b"b", b"c"));
        // A single active key spans everything.
        assert!(in_cyclic_span(b"k", b"k", b"anything"));
    }

    #[test]
    fn varint_matches_leb128() {
        let mut out = Vec::new();
        put_varint(&mut out, 300);
        assert_eq!(out, vec![0xAC, 0x02]);
        assert_eq!(encode_commit(None, 0), vec![COMMIT_CONTEXT, 0, 0]);
    }
}
