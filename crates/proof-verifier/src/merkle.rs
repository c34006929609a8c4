//! Reconstruction of a QMDB `current` root from a single-operation proof.
//!
//! This mirrors, for one operation, what commonware-storage 2026.10.0 does in
//! `qmdb::current::proof::RangeProof::verify_with_chunk_size` with the parameters Cowboy's state
//! uses: the MMR family, Blake3, backward peak bagging (`qmdb::hasher`), and 32-byte activity
//! chunks (grafting height 8). The structure, from the leaves up:
//!
//! * **Ops MMR.** Leaf `i` is `H(pos_be ‖ encode(op_i))`, an inner node is
//!   `H(pos_be ‖ left ‖ right)`, where `pos` is the node's MMR position as a big-endian `u64`.
//! * **Grafting.** The activity bitmap has one bit per operation, in 256-bit chunks. At height 8
//!   each complete chunk's subtree root `r` is replaced by `H(chunk ‖ r)` (or kept as `r` if the
//!   chunk is all zeroes). Nodes above height 8 hash the grafted children as usual.
//! * **Grafted root.** The peaks of the grafted tree are bagged: the first `inactive` peaks are
//!   folded forward (`acc = H(acc ‖ peak)`), the rest backward (`bag = H(peak ‖ bag)`), then
//!   `H(0x00 ‖ 0x01 ‖ leaves_be ‖ [inactive_be if inactive > 0] ‖ folded)` (MMR family domain 0,
//!   backward-fold domain 1).
//! * **Canonical root.** `H(ops_root ‖ grafted_root ‖ [next_bit_be ‖ H(partial_chunk)])`, the
//!   bracket present when the bitmap ends in a partial chunk (`next_bit = leaves % 256`).
//!
//! A proof carries the Merkle path of one leaf in left-first DFS order plus the digests of the
//! other peaks (inactive prefix peaks folded into one accumulator, active peaks after the leaf's
//! peak folded into one suffix accumulator). The golden tests in `cowboy-state` check that roots
//! rebuilt here equal the roots QMDB computes.

use alloc::vec::Vec;

use crate::keys::Digest;
use crate::proof::{OperationProof, CHUNK_BYTES};
use crate::VerifyError;

/// Domain byte of the MMR family in commonware-storage.
const MMR_FAMILY_DOMAIN: u8 = 0;
/// Domain byte of backward peak bagging, QMDB's root bagging.
const BACKWARD_FOLD_DOMAIN: u8 = 1;
/// Bits per activity chunk.
const CHUNK_BITS: u64 = (CHUNK_BYTES as u64) * 8;
/// Height at which chunks are grafted: log2(CHUNK_BITS).
const GRAFTING_HEIGHT: u32 = CHUNK_BITS.trailing_zeros();
/// Largest leaf count of an MMR (commonware's `MAX_LEAVES`).
const MAX_LEAVES: u64 = 1 << 62;

fn hash(parts: &[&[u8]]) -> Digest {
    let mut hasher = blake3::Hasher::new();
    for part in parts {
        hasher.update(part);
    }
    *hasher.finalize().as_bytes()
}

/// A perfect subtree of the MMR: root position, height and first leaf.
#[derive(Clone, Copy)]
struct Subtree {
    pos: u64,
    height: u32,
    leaf_start: u64,
}

impl Subtree {
    fn leaf_end(&self) -> u64 {
        self.leaf_start + (1u64 << self.height)
    }

    fn contains(&self, loc: u64) -> bool {
        self.leaf_start <= loc && loc < self.leaf_end()
    }

    fn children(&self) -> (Self, Self) {
        let child = self.height - 1;
        (
            Self {
                pos: self.pos - (1u64 << self.height),
                height: child,
                leaf_start: self.leaf_start,
            },
            Self {
                pos: self.pos - 1,
                height: child,
                leaf_start: self.leaf_start + (1u64 << child),
            },
        )
    }
}

/// The peaks of an MMR with `leaves` leaves, tallest (oldest) first.
fn peaks(leaves: u64) -> Vec<Subtree> {
    let mut out = Vec::new();
    let mut nodes_before = 0u64;
    let mut leaves_before = 0u64;
    for height in (0..64u32).rev() {
        if leaves & (1u64 << height) == 0 {
            continue;
        }
        let size = (1u64 << (height + 1)) - 1;
        out.push(Subtree {
            pos: nodes_before + size - 1,
            height,
            leaf_start: leaves_before,
        });
        nodes_before += size;
        leaves_before += 1u64 << height;
    }
    out
}

/// Node hashing of the grafted view, for the one chunk the proof carries.
struct Grafter<'a> {
    chunk: &'a [u8; CHUNK_BYTES],
    chunk_index: u64,
    graftable_chunks: u64,
}

impl Grafter<'_> {
    fn node(&self, node: &Subtree, left: &Digest, right: &Digest) -> Digest {
        let ops = hash(&[&node.pos.to_be_bytes(), left, right]);
        if node.height != GRAFTING_HEIGHT {
            return ops;
        }
        let chunk_index = node.leaf_start >> GRAFTING_HEIGHT;
        // Only the chunk carried by the proof can be grafted on the leaf's own path; every other
        // height-8 node on a path is a sibling and arrives already grafted.
        if chunk_index >= self.graftable_chunks
            || chunk_index != self.chunk_index
            || self.chunk.iter().all(|&b| b == 0)
        {
            return ops;
        }
        hash(&[self.chunk, &ops])
    }

    /// Rebuild `node`'s digest from the leaf at `loc` and path siblings in left-first DFS order.
    fn rebuild(
        &self,
        node: &Subtree,
        loc: u64,
        element: &[u8],
        siblings: &[Digest],
        cursor: &mut usize,
    ) -> Result<Digest, VerifyError> {
        if !node.contains(loc) {
            let digest = siblings
                .get(*cursor)
                .copied()
                .ok_or(VerifyError::RootMismatch)?;
            *cursor += 1;
            return Ok(digest);
        }
        if node.height == 0 {
            return Ok(hash(&[&node.pos.to_be_bytes(), element]));
        }
        let (left, right) = node.children();
        let l = self.rebuild(&left, loc, element, siblings, cursor)?;
        let r = self.rebuild(&right, loc, element, siblings, cursor)?;
        Ok(self.node(node, &l, &r))
    }
}

/// Verify that `element` (an encoded log operation) is active at `proof.loc` under `root`.
pub fn verify_active_operation(
    proof: &OperationProof,
    element: &[u8],
    root: &Digest,
) -> Result<(), VerifyError> {
    let (loc, leaves) = (proof.loc, proof.leaves);
    if leaves > MAX_LEAVES || loc >= leaves {
        return Err(VerifyError::RootMismatch);
    }

    // The operation must be active: its bit in the chunk is set.
    let bit = loc % CHUNK_BITS;
    if proof.chunk[(bit / 8) as usize] & (1 << (bit % 8)) == 0 {
        return Err(VerifyError::Inactive);
    }

    let chunk_index = loc / CHUNK_BITS;
    let complete_chunks = leaves / CHUNK_BITS;
    let next_bit = leaves % CHUNK_BITS;
    let partial = match (next_bit != 0, &proof.partial_chunk_digest) {
        (true, Some(digest)) => {
            // When the leaf sits in the partial chunk, the chunk we were given *is* that chunk.
            if chunk_index == complete_chunks && *digest != hash(&[&proof.chunk]) {
                return Err(VerifyError::RootMismatch);
            }
            Some(digest)
        }
        (false, None) => None,
        _ => return Err(VerifyError::RootMismatch),
    };

    let peaks = peaks(leaves);
    let inactive = usize::try_from(proof.inactive_peaks).map_err(|_| VerifyError::RootMismatch)?;
    if inactive > peaks.len() {
        return Err(VerifyError::RootMismatch);
    }
    let Some(range_index) = peaks.iter().position(|p| p.contains(loc)) else {
        return Err(VerifyError::RootMismatch);
    };
    let range_peak = peaks[range_index];
    let before = range_index;
    let after = peaks.len() - range_index - 1;

    // Digest layout (commonware `Blueprint`, backward bagging): inactive peaks before the leaf's
    // peak fold into one accumulator; active ones before it are listed; after it, peaks still
    // inside the inactive prefix are listed and the active rest collapse into one accumulator.
    let fold_count = inactive.min(before);
    let prefix_listed = before - fold_count;
    let after_listed = inactive.saturating_sub(before + 1).min(after);
    let has_suffix = after > after_listed;
    let path_len = range_peak.height as usize;
    let required = usize::from(fold_count > 0)
        + prefix_listed
        + after_listed
        + usize::from(has_suffix)
        + path_len;
    if proof.digests.len() != required {
        return Err(VerifyError::RootMismatch);
    }

    let (head, siblings) = proof.digests.split_at(required - path_len);
    let grafter = Grafter {
        chunk: &proof.chunk,
        chunk_index,
        // In an MMR every complete chunk is graftable as soon as it is complete.
        graftable_chunks: complete_chunks,
    };
    let mut cursor = 0;
    let peak_digest = grafter.rebuild(&range_peak, loc, element, siblings, &mut cursor)?;
    if cursor != siblings.len() {
        return Err(VerifyError::RootMismatch);
    }

    let listed_before = usize::from(fold_count > 0) + prefix_listed;
    let mut peak_digests: Vec<Digest> = Vec::with_capacity(head.len() + 1);
    peak_digests.extend_from_slice(&head[..listed_before]);
    peak_digests.push(peak_digest);
    peak_digests.extend_from_slice(&head[listed_before..]);

    let to_fold = if fold_count == 0 {
        inactive
    } else {
        inactive - fold_count + 1
    };
    let grafted_root = bag_peaks(leaves, to_fold, inactive, &peak_digests)?;

    let canonical = match partial {
        None => hash(&[&proof.ops_root, &grafted_root]),
        Some(digest) => hash(&[
            &proof.ops_root,
            &grafted_root,
            &next_bit.to_be_bytes(),
            digest,
        ]),
    };
    if canonical == *root {
        Ok(())
    } else {
        Err(VerifyError::RootMismatch)
    }
}

/// commonware's `Hasher::root_with_folded_peaks` under backward bagging.
fn bag_peaks(
    leaves: u64,
    to_fold: usize,
    committed_inactive: usize,
    peaks: &[Digest],
) -> Result<Digest, VerifyError> {
    let domain = [MMR_FAMILY_DOMAIN, BACKWARD_FOLD_DOMAIN];
    let (first, rest) = peaks.split_first().ok_or(VerifyError::RootMismatch)?;
    let forward = to_fold.saturating_sub(1);
    if forward > rest.len() {
        return Err(VerifyError::RootMismatch);
    }
    let (fold, backward) = rest.split_at(forward);
    let acc = fold.iter().fold(*first, |acc, peak| hash(&[&acc, peak]));
    let folded = match backward.split_last() {
        None => acc,
        Some((last, earlier)) => {
            let bag = earlier
                .iter()
                .rev()
                .fold(*last, |bag, peak| hash(&[peak, &bag]));
            hash(&[&acc, &bag])
        }
    };
    Ok(if committed_inactive == 0 {
        hash(&[&domain, &leaves.to_be_bytes(), &folded])
    } else {
        hash(&[
            &domain,
            &leaves.to_be_bytes(),
            &(committed_inactive as u64).to_be_bytes(),
            &folded,
        ])
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mmr_peaks_match_the_layout() {
        // 11 leaves = 8 + 2 + 1: peaks at positions 14, 17, 18 (commonware's PeakIterator doc).
        let p = peaks(11);
        let got: Vec<(u64, u32, u64)> = p.iter().map(|s| (s.pos, s.height, s.leaf_start)).collect();
        assert_eq!(got, [(14, 3, 0), (17, 1, 8), (18, 0, 10)]);
        assert!(peaks(0).is_empty());
    }

    #[test]
    fn children_of_a_peak() {
        let (l, r) = peaks(8)[0].children();
        assert_eq!((l.pos, r.pos), (6, 13));
        assert_eq!((l.leaf_start, r.leaf_start), (0, 4));
    }
}
