//! Inclusion of one item in a block's ordered list: a transaction under its header's
//! `tx_root`; a receipt, a timer execution or the block's hook events under its
//! `receipts_root`. A light client that trusts a header (its hash finalized) checks with
//! [`verify_inclusion`] that a transaction is in that block and what it did, without the
//! block's other items.
//!
//! A root commits to a list of 32-byte item hashes (keccak256 of each item's canonical
//! encoding, in block order) through a binary Merkle tree, keccak256 throughout:
//! - leaf: `keccak256(0x00 ‖ item_hash)`;
//! - inner node: `keccak256(0x01 ‖ left ‖ right)`; a level of odd width carries its last node
//!   up unchanged (not paired with a copy of itself, which lets two lists share a root:
//!   Bitcoin's CVE-2012-2459);
//! - root: `keccak256(0x02 ‖ count_be8 ‖ top)`, `top` the one node left (32 zero bytes for an
//!   empty list).
//!
//! The domain bytes keep a leaf from passing for an inner node and either for a root; the count
//! in the root fixes the tree's shape, so a proof's path follows from its index and the count,
//! and the number of siblings it must carry too. Building a root hashes `2n` times; a proof is
//! at most [`MAX_SIBLINGS`] siblings, checked in as many hashes.

use alloc::vec::Vec;

use sha3::{Digest as _, Keccak256};

use crate::keys::Digest;
use crate::VerifyError;

/// Most siblings a proof can need: the depth of a tree of `u64::MAX` items.
pub const MAX_SIBLINGS: usize = 64;

/// Where an item sits in its list, and the siblings on its path to the root (lowest first).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Inclusion {
    /// The item's position in the list.
    pub index: u64,
    /// The list's length.
    pub count: u64,
    /// The sibling of each node on the path that has one, from the leaf up.
    pub siblings: Vec<Digest>,
}

fn keccak(parts: &[&[u8]]) -> Digest {
    let mut h = Keccak256::new();
    for p in parts {
        h.update(p);
    }
    h.finalize().into()
}

fn leaf(item: &Digest) -> Digest {
    keccak(&[&[0x00], item])
}

fn inner(left: &Digest, right: &Digest) -> Digest {
    keccak(&[&[0x01], left, right])
}

fn seal(count: u64, top: &Digest) -> Digest {
    keccak(&[&[0x02], &count.to_be_bytes(), top])
}

/// The level above `level`: pairs hashed, an odd last node carried up.
fn level_up(level: &[Digest]) -> Vec<Digest> {
    level
        .chunks(2)
        .map(|pair| match pair {
            [l, r] => inner(l, r),
            [only] => *only,
            _ => unreachable!("chunks(2) yields one or two"),
        })
        .collect()
}

/// The root committing to `items` (item hashes, in order).
pub fn list_root(items: &[Digest]) -> Digest {
    let mut level: Vec<Digest> = items.iter().map(leaf).collect();
    while level.len() > 1 {
        level = level_up(&level);
    }
    seal(items.len() as u64, level.first().unwrap_or(&[0; 32]))
}

/// The proof that `items[index]` is in the list `items` commits to; `None` past its end.
pub fn prove(items: &[Digest], index: usize) -> Option<Inclusion> {
    if index >= items.len() {
        return None;
    }
    let mut siblings = Vec::new();
    let mut level: Vec<Digest> = items.iter().map(leaf).collect();
    let mut i = index;
    while level.len() > 1 {
        // The last node of an odd level has no sibling: it is carried up.
        if let Some(s) = level.get(i ^ 1) {
            siblings.push(*s);
        }
        level = level_up(&level);
        i /= 2;
    }
    Some(Inclusion {
        index: index as u64,
        count: items.len() as u64,
        siblings,
    })
}

/// Check that `item` (an item hash) is at `proof.index` of a list of `proof.count` items whose
/// root is `root`. [`VerifyError::ClaimMismatch`] for an index outside the list or a path of
/// the wrong length for its shape; [`VerifyError::RootMismatch`] when the path does not
/// rebuild `root`.
pub fn verify_inclusion(
    root: &Digest,
    item: &Digest,
    proof: &Inclusion,
) -> Result<(), VerifyError> {
    if proof.index >= proof.count || proof.siblings.len() > MAX_SIBLINGS {
        return Err(VerifyError::ClaimMismatch);
    }
    let mut siblings = proof.siblings.iter();
    let mut node = leaf(item);
    let (mut i, mut width) = (proof.index, proof.count);
    while width > 1 {
        if i % 2 == 1 {
            node = inner(siblings.next().ok_or(VerifyError::ClaimMismatch)?, &node);
        } else if i + 1 < width {
            node = inner(&node, siblings.next().ok_or(VerifyError::ClaimMismatch)?);
        }
        i /= 2;
        width = width.div_ceil(2);
    }
    if siblings.next().is_some() {
        return Err(VerifyError::ClaimMismatch);
    }
    if seal(proof.count, &node) == *root {
        Ok(())
    } else {
        Err(VerifyError::RootMismatch)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn items(n: usize) -> Vec<Digest> {
        (0..n)
            .map(|i| keccak(&[&(i as u64).to_be_bytes()]))
            .collect()
    }

    /// Every item of every list up to 40 long proves under its root, and only there: not
    /// under another index, count or root, not as another item, not with a sibling changed,
    /// added or dropped.
    #[test]
    fn every_item_proves_and_nothing_else_does() {
        for n in 0..=40 {
            let list = items(n);
            let root = list_root(&list);
            assert!(prove(&list, n).is_none());
            for (i, item) in list.iter().enumerate() {
                let p = prove(&list, i).expect("in range");
                assert_eq!(verify_inclusion(&root, item, &p), Ok(()), "n={n} i={i}");
                let other = keccak(&[b"other"]);
                assert!(verify_inclusion(&root, &other, &p).is_err());
                assert!(verify_inclusion(&list_root(&items(n + 1)), item, &p).is_err());
                for (index, count) in [(i as u64 + 1, n as u64), (i as u64, n as u64 + 1)] {
                    let moved = Inclusion {
                        index,
                        count,
                        siblings: p.siblings.clone(),
                    };
                    assert!(
                        verify_inclusion(&root, item, &moved).is_err(),
                        "n={n} i={i}"
                    );
                }
                for k in 0..p.siblings.len() {
                    let mut bent = p.clone();
                    bent.siblings[k][0] ^= 1;
                    assert_eq!(
                        verify_inclusion(&root, item, &bent),
                        Err(VerifyError::RootMismatch)
                    );
                }
                let mut longer = p.clone();
                longer.siblings.push([0; 32]);
                assert_eq!(
                    verify_inclusion(&root, item, &longer),
                    Err(VerifyError::ClaimMismatch)
                );
                if !p.siblings.is_empty() {
                    let mut shorter = p.clone();
                    shorter.siblings.pop();
                    assert_eq!(
                        verify_inclusion(&root, item, &shorter),
                        Err(VerifyError::ClaimMismatch)
                    );
                }
            }
        }
    }

    /// Lists that differ only in length or by a repeated last item have different roots (a
    /// duplicated odd node would make `[a, b, c]` and `[a, b, c, c]` collide), and so do the
    /// empty list and a list of one zero hash.
    #[test]
    fn roots_differ_where_lists_differ() {
        let l = items(3);
        let mut dup = l.clone();
        dup.push(l[2]);
        assert_ne!(list_root(&l), list_root(&dup));
        assert_ne!(list_root(&[]), list_root(&[[0; 32]]));
        assert_ne!(
            list_root(&items(2)),
            list_root(&items(3)[..2].iter().rev().copied().collect::<Vec<_>>())
        );
        // A single item's root is the sealed leaf; no sibling is needed.
        let one = items(1);
        assert_eq!(list_root(&one), seal(1, &leaf(&one[0])));
        assert!(prove(&one, 0).expect("one").siblings.is_empty());
    }

    /// Fixed roots, the same in the Python SDK's port (`sdk/python/tests/test_proof.py`).
    #[test]
    fn known_roots() {
        let hex = |d: Digest| {
            d.iter()
                .map(|b| alloc::format!("{b:02x}"))
                .collect::<alloc::string::String>()
        };
        assert_eq!(
            hex(list_root(&[])),
            "f28d766e14bfa9767b97ce2a50d9b632eb10ef9c4aa085943ece3a4fcd5ef287"
        );
        assert_eq!(
            hex(list_root(&items(5))),
            "01044be4293e4bf7e5eb548b7cd53caa7caee3db7af4ad71e4fc732ccaa02036"
        );
    }

    #[test]
    fn an_index_outside_the_list_or_an_overlong_path_is_refused() {
        let list = items(5);
        let root = list_root(&list);
        let p = Inclusion {
            index: 5,
            count: 5,
            siblings: Vec::new(),
        };
        assert_eq!(
            verify_inclusion(&root, &list[0], &p),
            Err(VerifyError::ClaimMismatch)
        );
        let p = Inclusion {
            index: 0,
            count: u64::MAX,
            siblings: alloc::vec![[0; 32]; MAX_SIBLINGS + 1],
        };
        assert_eq!(
            verify_inclusion(&root, &list[0], &p),
            Err(VerifyError::ClaimMismatch)
        );
        // The deepest shape a count allows still verifies in 64 steps (and fails here).
        let p = Inclusion {
            index: u64::MAX - 1,
            count: u64::MAX,
            siblings: alloc::vec![[0; 32]; MAX_SIBLINGS],
        };
        assert!(verify_inclusion(&root, &list[0], &p).is_err());
    }
}
