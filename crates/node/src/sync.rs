//! Range sync: a validator that lacks finalized blocks asks a peer for a block and its
//! ancestors in one request, on a p2p channel of its own ([`SYNC_CHANNEL`]), instead of one
//! block per round trip.
//!
//! A request is `WANT ‖ hash ‖ above` (32 bytes, then a big-endian `u64`): "the block `hash`
//! and its ancestors down to height `above + 1`". The answer is `BLOCKS` followed by blocks,
//! newest first, each as a big-endian `u32` length and the block's canonical bytes: at most
//! [`MAX_RANGE_BLOCKS`] blocks and [`MAX_RANGE_BYTES`] bytes (one block is always sent; a
//! block fits in a p2p message by the genesis check). A peer answers from its block store,
//! reading through its published [`crate::reader::Reader`], not under the chain's lock; the
//! top block may also be one it holds pending (verified but not yet finalized here).
//!
//! **Trust.** Nothing a peer sends is taken on its word: the blocks join the pending set
//! ([`Chain::receive`]) and are finalized only when [`Chain::finalize_through`] walks the
//! parent hashes from a block a finalization certificate names down to the head, so each one
//! is authenticated by its child's hash; each is then re-executed like any other.
//!
//! **Bounds.** Requests and answers are limited by the channel's per-peer quota
//! ([`PEER_QUOTA`]), so a peer can make this node read at most that many ranges a second; an
//! answer is decoded block by block with the genesis limits, and what is received is held in
//! the chain's bounded pending set.

use std::num::NonZeroU32;
use std::sync::Arc;

use commonware_cryptography::ed25519;
use commonware_p2p::{Receiver, Recipients, Sender};
use commonware_runtime::Quota;
use cowboy_types::block::Block;
use cowboy_types::Hash32;
use tokio::sync::{mpsc, Mutex, Notify};

use crate::chain::Chain;
use crate::consensus::Runtime;
use crate::node::MAX_P2P_MESSAGE_BYTES;

/// p2p channel of range sync.
pub const SYNC_CHANNEL: u64 = 5;
/// Most blocks in one answer.
pub const MAX_RANGE_BLOCKS: usize = 64;
/// Most bytes of blocks in one answer (after the first block): half the p2p message limit.
pub const MAX_RANGE_BYTES: usize = (MAX_P2P_MESSAGE_BYTES / 2) as usize;
/// Sync messages per second per peer, each way.
pub const PEER_QUOTA: u32 = 20;

/// Request tag.
const WANT: u8 = 0;
/// Answer tag.
const BLOCKS: u8 = 1;

/// The channel's per-peer rate quota.
pub fn quota() -> Quota {
    Quota::per_second(NonZeroU32::new(PEER_QUOTA).unwrap_or(NonZeroU32::MIN))
}

/// Asks peers for missing blocks (see the module docs).
#[derive(Clone)]
pub struct Sync {
    wants: mpsc::UnboundedSender<(Hash32, u64)>,
}

impl Sync {
    /// Ask the peers for block `hash` and its ancestors above height `above`.
    pub fn want(&self, hash: Hash32, above: u64) {
        let _ = self.wants.send((hash, above));
    }

    /// Start asking (through [`Sync::want`]) and answering on `channel`, on `context`'s
    /// runtime; `arrived` is notified whenever received blocks joined the pending set.
    pub fn start<E: Runtime>(
        context: E,
        chain: Arc<Mutex<Chain<E>>>,
        arrived: Arc<Notify>,
        channel: (
            impl Sender<PublicKey = ed25519::PublicKey>,
            impl Receiver<PublicKey = ed25519::PublicKey>,
        ),
    ) -> Sync {
        let (mut sender, mut receiver) = channel;
        let (wants, mut queue) = mpsc::unbounded_channel::<(Hash32, u64)>();

        let mut asker = sender.clone();
        context.child("ask").spawn(move |_| async move {
            while let Some((hash, above)) = queue.recv().await {
                let mut msg = Vec::with_capacity(41);
                msg.push(WANT);
                msg.extend_from_slice(&hash.0);
                msg.extend_from_slice(&above.to_be_bytes());
                let _ = asker.send(Recipients::All, msg, false);
            }
        });

        context.child("answer").spawn(move |_| async move {
            let limits = chain.lock().await.genesis().params.block_limits();
            while let Ok((peer, message)) = receiver.recv().await {
                match message.as_ref().split_first() {
                    Some((&WANT, rest)) if rest.len() == 40 => {
                        let mut hash = [0u8; 32];
                        hash.copy_from_slice(&rest[..32]);
                        let mut above = [0u8; 8];
                        above.copy_from_slice(&rest[32..]);
                        let above = u64::from_be_bytes(above);
                        match range(&chain, Hash32(hash), above).await {
                            Ok(Some(answer)) => {
                                let _ = sender.send(Recipients::One(peer), answer, false);
                            }
                            Ok(None) => {}
                            Err(e) => tracing::error!(error = %e, "cannot read blocks for a peer"),
                        }
                    }
                    Some((&BLOCKS, mut rest)) => {
                        let mut received = 0usize;
                        while let Some((block, tail)) = next_block(rest) {
                            rest = tail;
                            match Block::decode(block, limits) {
                                Ok(block) => {
                                    chain.lock().await.receive(block);
                                    received += 1;
                                }
                                Err(e) => {
                                    tracing::warn!(?peer, error = %e, "peer sent an undecodable block");
                                    break;
                                }
                            }
                        }
                        if received > 0 {
                            tracing::debug!(?peer, blocks = received, "blocks from a peer");
                            arrived.notify_one();
                        }
                    }
                    _ => tracing::warn!(?peer, "peer sent a malformed sync message"),
                }
            }
        });
        Sync { wants }
    }
}

/// Split the first length-prefixed block off an answer.
fn next_block(bytes: &[u8]) -> Option<(&[u8], &[u8])> {
    let (len, rest) = bytes.split_first_chunk::<4>()?;
    let len = u32::from_be_bytes(*len) as usize;
    (rest.len() >= len).then(|| rest.split_at(len))
}

/// The answer to a want of `hash` and its ancestors above `above`, or `None` if this node
/// does not have the block.
async fn range<E: Runtime>(
    chain: &Mutex<Chain<E>>,
    hash: Hash32,
    above: u64,
) -> Result<Option<Vec<u8>>, String> {
    let (reader, pending) = {
        let c = chain.lock().await;
        let reader = c.readers().borrow().clone();
        (reader, c.pending_block(&hash).map(|b| b.encode()))
    };
    let Some(reader) = reader else {
        return Ok(None);
    };
    let mut msg = vec![BLOCKS];
    if let Some(top) = pending {
        // Its ancestors may be pending too: the block alone answers.
        push(&mut msg, &top);
        return Ok(Some(msg));
    }
    let store = &reader.blocks;
    let Some((mut next, top)) = store
        .block_by_hash(&hash.0)
        .await
        .map_err(|e| e.to_string())?
    else {
        return Ok(None);
    };
    push(&mut msg, &top);
    let mut count = 1;
    while count < MAX_RANGE_BLOCKS && next > above.saturating_add(1) {
        next -= 1;
        let Some(block) = store.block(next).await.map_err(|e| e.to_string())? else {
            break;
        };
        if msg.len() + 4 + block.len() > MAX_RANGE_BYTES {
            break;
        }
        push(&mut msg, &block);
        count += 1;
    }
    Ok(Some(msg))
}

fn push(msg: &mut Vec<u8>, block: &[u8]) {
    msg.extend_from_slice(&(block.len() as u32).to_be_bytes());
    msg.extend_from_slice(block);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_answer_splits_into_its_blocks_and_a_truncated_one_stops() {
        let mut msg = Vec::new();
        push(&mut msg, b"abc");
        push(&mut msg, b"");
        push(&mut msg, b"defg");
        let (a, rest) = next_block(&msg).unwrap();
        let (b, rest) = next_block(rest).unwrap();
        let (c, rest) = next_block(rest).unwrap();
        assert_eq!(
            (a, b, c, rest),
            (&b"abc"[..], &b""[..], &b"defg"[..], &b""[..])
        );
        // A length running past the end, or fewer than four length bytes: nothing more.
        assert!(next_block(&msg[..msg.len() - 1][11..]).is_none());
        assert!(next_block(&[0, 0, 1]).is_none());
    }
}
