//! Rebuilds a Cowboy `StateProof` as commonware-storage's own QMDB proof types and asks
//! commonware's verifier for its verdict: the reference the conformance test and the
//! verification benchmark compare `cowboy-proof-verifier` against.

use commonware_cryptography::blake3::Digest as B3;
use commonware_cryptography::Blake3;
use commonware_storage::merkle::{mmr, Location, Proof, Unused};
use commonware_storage::qmdb::any::ordered::Update;
use commonware_storage::qmdb::any::value::VariableEncoding;
use commonware_storage::qmdb::current::ordered::proof::{ExclusionProof, KeyValueProof};
use commonware_storage::qmdb::current::proof::operation::Proof as OperationProof;
use commonware_storage::qmdb::current::proof::RangeProof;
use cowboy_proof_verifier::proof::{Claim, StateProof};

/// Value encoding of the state's QMDB.
pub type Enc = VariableEncoding<Vec<u8>>;

/// The Merkle part of `p` as commonware's operation proof.
pub fn op_proof(p: &StateProof) -> OperationProof<mmr::Family, B3, [u8; 32]> {
    let op = &p.op;
    OperationProof {
        loc: Location::new(op.loc),
        chunk: op.chunk,
        range_proof: RangeProof {
            proof: Proof {
                leaves: Location::new(op.leaves),
                inactive_peaks: op.inactive_peaks as usize,
                digests: op.digests.iter().map(|d| B3(*d)).collect(),
            },
            pending_chunk_digest: Unused,
            partial_chunk_digest: op.partial_chunk_digest.map(B3),
            ops_root: B3(op.ops_root),
        },
    }
}

/// commonware's verdict on `proof` for the claim `key → claimed` under `root`.
pub fn commonware_verdict(
    root: &[u8; 32],
    key: &[u8],
    claimed: Option<&[u8]>,
    p: &StateProof,
) -> bool {
    let root = B3(*root);
    match (&p.claim, claimed) {
        (Claim::Present { next_key }, Some(value)) => KeyValueProof {
            proof: op_proof(p),
            next_key: next_key.clone(),
        }
        .verify::<Blake3, Enc>(key.to_vec(), value.to_vec(), &root),
        (
            Claim::AbsentInSpan {
                key: k,
                value,
                next_key,
            },
            None,
        ) => ExclusionProof::<mmr::Family, Vec<u8>, Enc, B3, [u8; 32]>::KeyValue(
            op_proof(p),
            Update {
                key: k.clone(),
                value: value.clone(),
                next_key: next_key.clone(),
            },
        )
        .verify::<Blake3>(&key.to_vec(), &root),
        (Claim::Empty { metadata }, None) => {
            ExclusionProof::<mmr::Family, Vec<u8>, Enc, B3, [u8; 32]>::Commit(
                op_proof(p),
                metadata.clone(),
            )
            .verify::<Blake3>(&key.to_vec(), &root)
        }
        _ => false,
    }
}
