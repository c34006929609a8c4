//! A block's state before it is committed: its [`Changes`] merkleized over its parent's state,
//! which may itself be staged and not yet committed (commonware QMDB's speculative batches).
//!
//! **Why.** Simplex BFT lets the next leader extend a block that is notarized but not yet
//! finalized. A validator that could execute only on committed state would have to wait for
//! the parent's finalization before building or verifying its child; when the parent's
//! finalize votes are lost, no child is ever built and the chain halts (the node README,
//! "Consensus"). With staging, a block executes on its parent's staged state, and its root is
//! the root the chain will have once both are committed.
//!
//! **Reads.** A [`crate::WriteBatch`] opened on a staged parent ([`crate::StateDb::batch_on`])
//! reads its own writes, then each staged ancestor's changes newest first, then the committed
//! state. An ancestor at or below the committed height is already in the committed state, so
//! the walk stops there.
//!
//! **Roots.** [`crate::StateDb::stage`] merkleizes a child batch of the parent's QMDB batch, so
//! the root is exactly the one committing parent and child one after the other gives.
//! [`crate::StateDb::commit_staged`] applies that same batch: nothing is merkleized twice.
//!
//! **Lifetime.** A staged block holds its parent until it is committed itself (QMDB needs every
//! unapplied ancestor alive to merkleize or apply a child); committing drops the link, so the
//! memory held is the staged blocks above the committed one, never the chain's history.

use std::sync::{Arc, Mutex};

use crate::batch::Changes;
use crate::db::{Merkleized, Root};

/// A block's state staged over its parent's (see the module docs).
pub struct Staged {
    pub(crate) height: u64,
    pub(crate) root: Root,
    pub(crate) changes: Changes,
    pub(crate) merkleized: Merkleized,
    /// The staged parent, while this block is not committed (`None` once it is, or when the
    /// parent was the committed state).
    pub(crate) parent: Mutex<Option<Arc<Staged>>>,
}

impl Staged {
    /// The block height this state belongs to.
    pub fn height(&self) -> u64 {
        self.height
    }

    /// The state root after this block (what its header commits to).
    pub fn root(&self) -> Root {
        self.root
    }

    /// The block's own changes.
    pub fn changes(&self) -> &Changes {
        &self.changes
    }

    fn parent(&self) -> Option<Arc<Staged>> {
        self.parent.lock().map(|p| p.clone()).unwrap_or(None)
    }

    /// Forget the parent (this block is committed: its parent is too).
    pub(crate) fn detach(&self) {
        if let Ok(mut p) = self.parent.lock() {
            *p = None;
        }
    }
}

impl std::fmt::Debug for Staged {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Staged")
            .field("height", &self.height)
            .field("changes", &self.changes.len())
            .finish()
    }
}

/// The value of `key` as the staged blocks from `top` down see it, stopping at the committed
/// height: `Some(entry)` if one of them wrote it (`entry` is `None` for a delete), `None` to
/// read the committed state.
pub(crate) fn read(
    top: Option<&Arc<Staged>>,
    committed: Option<u64>,
    key: &[u8],
) -> Option<Option<Vec<u8>>> {
    let mut layer = top.cloned();
    while let Some(l) = layer {
        if committed.is_some_and(|c| l.height <= c) {
            return None;
        }
        if let Some(entry) = l.changes.0.get(key) {
            return Some(entry.clone());
        }
        layer = l.parent();
    }
    None
}
