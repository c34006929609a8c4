//! Block sync on a p2p channel of its own ([`SYNC_CHANNEL`]): range sync (a missed block and
//! its ancestors in one request) and the requests catch-up makes ([`crate::catchup`]: a
//! finalization certificate to aim at, then the header chain down to the head).
//!
//! **Messages.** A tag byte, then (integers big-endian, lists as `u32` length ‖ bytes items):
//!
//! | tag | message | body | answered with |
//! |---|---|---|---|
//! | 0 | `Want` | block hash (32) ‖ `above` (`u64`) | `Blocks`: the block and its ancestors down to height `above + 1`, newest first, at most [`MAX_RANGE_BLOCKS`] and [`MAX_RANGE_BYTES`] (one block is always sent; a block fits in a p2p message by the genesis check) |
//! | 1 | `Blocks` | blocks | |
//! | 2 | `WantHeaders` | block hash (32) ‖ `above` (`u64`) | `Headers`: the headers of the finalized block and its ancestors down to height `above + 1`, newest first, at most [`MAX_RANGE_HEADERS`] |
//! | 3 | `Headers` | headers | |
//! | 4 | `WantTip` | epoch (`u64`) ‖ head height (`u64`) | `Tip`: the epoch's last block's finalization certificate if the block is final here (kept on disk: [`Chain::keep_certificate`]), else the newest certificate of that epoch this node applied, if it names a block above the head given |
//! | 5 | `Tip` | certificate (commonware's encoding of a simplex `Finalization`) ‖ the header of the block it names | |
//! | 6 | `WantEpoch` | epoch (`u64`) | `Epoch`, if this node keeps the epoch's last block's certificate and boundary record ([`crate::snapshot_sync`]) |
//! | 7 | `Epoch` | the newest epoch whose boundary this node keeps (`u64`) ‖ certificate ‖ boundary record ([`crate::snapshot_sync::Boundary`]) | |
//! | 8 | `WantOps` | a [`SnapshotRequest`] (its fixed 25 bytes) | `Ops`: [`StateDb::serve_snapshot`](cowboy_state::StateDb::serve_snapshot)'s answer, if it can serve it |
//! | 9 | `Ops` | the request answered (25) ‖ the response (commonware's encoding, at most [`MAX_SNAPSHOT_RESPONSE_BYTES`]) | |
//!
//! A peer answers from its block store, reading through its published
//! [`crate::reader::Reader`], not under the chain's lock; a `Want`'s top block may also be one
//! it holds pending (verified but not yet finalized here). A request nobody can answer gets no
//! answer.
//!
//! **Trust.** Nothing a peer sends is taken on its word: blocks join the pending set
//! ([`Chain::receive`]) and are finalized only when [`Chain::finalize_through`] walks the
//! parent hashes from a block a finalization certificate names down to the head, so each one
//! is authenticated by its child's hash; each is then re-executed like any other. Headers and
//! certificates go to catch-up, which checks them ([`crate::catchup`]).
//!
//! **Bounds.** Requests and answers are limited by the channel's per-peer quota
//! ([`PEER_QUOTA`]), so a peer can make this node read at most that many ranges a second. The
//! quota is enforced by the sender too: p2p drops what a node sends a peer past it, silently.
//! This node's own requests therefore wait for it ([`send_paced`]): an epoch walk asks every
//! peer for one boundary after another, faster than the quota, and a request dropped that way
//! cost its answer's whole timeout (the `WantOps` that followed a long walk went nowhere and
//! the snapshot's first source looked silent for 10 s). Answers are sent unpaced: a peer that
//! asks faster than the quota loses the answers past it, not this node's time. A
//! message is refused whole if it is malformed ([`Message::decode`]: unknown tag, wrong
//! length, more items than an answer holds, trailing bytes); blocks are decoded one by one
//! with the genesis limits and held in the chain's bounded pending set; headers and
//! certificates wait for catch-up in a bounded queue (the rest are dropped). An `Ops` answer
//! is taken only from the peer it was asked of and only while its request is outstanding
//! ([`Sync::fetch_ops`]); anything else, and every malformed message, is dropped and counted
//! ([`Sync::dropped`]). While a snapshot is fetched ([`Sync::watch`]), the peers that send a
//! malformed message, an undecodable header or block, or snapshot operations that were never
//! asked of them are also named ([`Sync::take_offenders`], at most [`MAX_WATCHED`]), so that
//! [`crate::snapshot_sync`] does not take a snapshot from them.

use std::collections::{BTreeMap, BTreeSet};
use std::num::NonZeroU32;
use std::sync::Arc;

use commonware_cryptography::ed25519;
use commonware_p2p::{Receiver, Recipients, Sender};
use commonware_runtime::telemetry::metrics::Counter;
use commonware_runtime::Quota;
use cowboy_state::snapshot::MAX_SNAPSHOT_RESPONSE_BYTES;
use cowboy_state::SnapshotRequest;
use cowboy_types::block::{Block, BlockHeader};
use cowboy_types::Hash32;
use tokio::sync::{mpsc, oneshot, Mutex, Notify};

use crate::chain::Chain;
use crate::consensus::Runtime;
use crate::node::MAX_P2P_MESSAGE_BYTES;

/// p2p channel of block sync.
pub const SYNC_CHANNEL: u64 = 5;
/// Most blocks in one answer.
pub const MAX_RANGE_BLOCKS: usize = 64;
/// Most headers in one answer: each costs the peer a block read and decode.
pub const MAX_RANGE_HEADERS: usize = 256;
/// Most bytes of blocks in one answer (after the first block): half the p2p message limit.
pub const MAX_RANGE_BYTES: usize = (MAX_P2P_MESSAGE_BYTES / 2) as usize;
/// Most bytes of a header (one is a few hundred).
pub const MAX_HEADER_BYTES: usize = 4 << 10;
/// Most bytes of a finalization certificate (ed25519: 64 bytes and a bit per signer, so
/// room for thousands of validators).
pub const MAX_CERTIFICATE_BYTES: usize = 512 << 10;
/// Most bytes of an epoch's boundary record (a header, a snapshot target, the next set's
/// entry and its proof: a few KiB for tens of validators).
pub const MAX_BOUNDARY_BYTES: usize = 1 << 20;
/// Sync messages per second per peer, each way.
pub const PEER_QUOTA: u32 = 20;

/// A peer's identity on the p2p network.
pub type Peer = ed25519::PublicKey;

/// Headers and certificates received, waiting for catch-up (more are dropped).
const ANSWER_QUEUE: usize = 64;
/// Most peers a watch names as offenders, and most it remembers as asked for operations
/// ([`Sync::watch`]); more are not recorded.
pub const MAX_WATCHED: usize = 64;

const WANT: u8 = 0;
const BLOCKS: u8 = 1;
const WANT_HEADERS: u8 = 2;
const HEADERS: u8 = 3;
const WANT_TIP: u8 = 4;
const TIP: u8 = 5;
const WANT_EPOCH: u8 = 6;
const EPOCH: u8 = 7;
const WANT_OPS: u8 = 8;
const OPS: u8 = 9;
/// The length of an encoded [`SnapshotRequest`].
const REQUEST_LEN: usize = SnapshotRequest::ENCODED_LEN;

/// The channel's per-peer rate quota.
pub fn quota() -> Quota {
    Quota::per_second(NonZeroU32::new(PEER_QUOTA).unwrap_or(NonZeroU32::MIN))
}

/// A sync-channel message (see the module docs for the layouts). Lists borrow their items
/// from the received bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Message<'a> {
    /// Block `hash` and its ancestors above height `above`.
    Want {
        /// The top block.
        hash: Hash32,
        /// The height below the lowest block wanted (the asker's head).
        above: u64,
    },
    /// Blocks, newest first.
    Blocks(Vec<&'a [u8]>),
    /// The headers of finalized block `hash` and its ancestors above height `above`.
    WantHeaders {
        /// The top block.
        hash: Hash32,
        /// The height below the lowest header wanted (the asker's head).
        above: u64,
    },
    /// Headers, newest first.
    Headers(Vec<&'a [u8]>),
    /// A finalization certificate of `epoch` for a block above height `head`.
    WantTip {
        /// The epoch.
        epoch: u64,
        /// The asker's head height.
        head: u64,
    },
    /// A finalization certificate and the header of the block it names.
    Tip {
        /// commonware's encoding of a simplex `Finalization`.
        certificate: &'a [u8],
        /// The block's header.
        header: &'a [u8],
    },
    /// The certificate and boundary record of epoch `epoch`'s last block.
    WantEpoch {
        /// The epoch.
        epoch: u64,
    },
    /// An epoch's last block's certificate and boundary record.
    Epoch {
        /// The newest epoch whose boundary the sender keeps (a hint: see
        /// [`crate::snapshot_sync`]).
        newest: u64,
        /// commonware's encoding of a simplex `Finalization`.
        certificate: &'a [u8],
        /// [`crate::snapshot_sync::Boundary`]'s encoding.
        boundary: &'a [u8],
    },
    /// Part of a state snapshot's operation log.
    WantOps(SnapshotRequest),
    /// The answer to a [`Message::WantOps`].
    Ops {
        /// The request answered.
        request: SnapshotRequest,
        /// The encoded response (not decoded here: the state crate bounds and checks it).
        response: &'a [u8],
    },
}

/// Why a sync message was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MessageError {
    /// No bytes at all.
    Empty,
    /// A tag no message has.
    UnknownTag(u8),
    /// A request of the wrong length.
    Length {
        /// The message's tag.
        tag: u8,
        /// Its body's length.
        got: usize,
        /// The length its tag has.
        expected: usize,
    },
    /// An item's length runs past the end, or fewer than four length bytes are left.
    Truncated,
    /// More items than an answer holds, or an item larger than its kind may be.
    TooLarge {
        /// The message's tag.
        tag: u8,
        /// What was found (items, or an item's bytes).
        got: usize,
        /// The bound.
        max: usize,
    },
    /// Bytes after the last item of a `Tip` or `Epoch`.
    Trailing(usize),
    /// A snapshot request that does not decode or asks for nothing
    /// ([`SnapshotRequest::decode`]).
    Request,
}

impl std::fmt::Display for MessageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Empty => write!(f, "empty sync message"),
            Self::UnknownTag(t) => write!(f, "unknown sync message tag {t}"),
            Self::Length { tag, got, expected } => {
                write!(f, "sync request {tag} has {got} bytes, not {expected}")
            }
            Self::Truncated => write!(f, "sync message truncated"),
            Self::TooLarge { tag, got, max } => {
                write!(f, "sync message {tag}: {got} is over the bound {max}")
            }
            Self::Trailing(n) => write!(f, "{n} bytes after a sync message"),
            Self::Request => write!(f, "malformed snapshot request"),
        }
    }
}

impl<'a> Message<'a> {
    /// The message's bytes.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        match self {
            Message::Want { hash, above } | Message::WantHeaders { hash, above } => {
                out.push(if matches!(self, Message::Want { .. }) {
                    WANT
                } else {
                    WANT_HEADERS
                });
                out.extend_from_slice(&hash.0);
                out.extend_from_slice(&above.to_be_bytes());
            }
            Message::Blocks(items) | Message::Headers(items) => {
                out.push(if matches!(self, Message::Blocks(_)) {
                    BLOCKS
                } else {
                    HEADERS
                });
                for item in items {
                    push(&mut out, item);
                }
            }
            Message::WantTip { epoch, head } => {
                out.push(WANT_TIP);
                out.extend_from_slice(&epoch.to_be_bytes());
                out.extend_from_slice(&head.to_be_bytes());
            }
            Message::Tip {
                certificate,
                header,
            } => {
                out.push(TIP);
                push(&mut out, certificate);
                push(&mut out, header);
            }
            Message::WantEpoch { epoch } => {
                out.push(WANT_EPOCH);
                out.extend_from_slice(&epoch.to_be_bytes());
            }
            Message::Epoch {
                newest,
                certificate,
                boundary,
            } => {
                out.push(EPOCH);
                out.extend_from_slice(&newest.to_be_bytes());
                push(&mut out, certificate);
                push(&mut out, boundary);
            }
            Message::WantOps(request) => {
                out.push(WANT_OPS);
                out.extend_from_slice(&request.encode());
            }
            Message::Ops { request, response } => {
                out.push(OPS);
                out.extend_from_slice(&request.encode());
                out.extend_from_slice(response);
            }
        }
        out
    }

    /// Decode a message, refusing it whole if anything is off (see [`MessageError`]).
    pub fn decode(bytes: &'a [u8]) -> Result<Message<'a>, MessageError> {
        let (&tag, body) = bytes.split_first().ok_or(MessageError::Empty)?;
        let fixed = |expected: usize| {
            if body.len() == expected {
                Ok(())
            } else {
                Err(MessageError::Length {
                    tag,
                    got: body.len(),
                    expected,
                })
            }
        };
        match tag {
            WANT | WANT_HEADERS => {
                fixed(40)?;
                let (hash, above) = body.split_at(32);
                let hash = Hash32(hash.try_into().map_err(|_| MessageError::Truncated)?);
                let above =
                    u64::from_be_bytes(above.try_into().map_err(|_| MessageError::Truncated)?);
                Ok(if tag == WANT {
                    Message::Want { hash, above }
                } else {
                    Message::WantHeaders { hash, above }
                })
            }
            WANT_TIP => {
                fixed(16)?;
                let (epoch, head) = body.split_at(8);
                let number = |b: &[u8]| b.try_into().map(u64::from_be_bytes);
                Ok(Message::WantTip {
                    epoch: number(epoch).map_err(|_| MessageError::Truncated)?,
                    head: number(head).map_err(|_| MessageError::Truncated)?,
                })
            }
            BLOCKS | HEADERS => {
                let (max, item_max) = if tag == BLOCKS {
                    (MAX_RANGE_BLOCKS, MAX_P2P_MESSAGE_BYTES as usize)
                } else {
                    (MAX_RANGE_HEADERS, MAX_HEADER_BYTES)
                };
                let mut items = Vec::new();
                let mut rest = body;
                while !rest.is_empty() {
                    let (item, tail) = next_item(rest).ok_or(MessageError::Truncated)?;
                    if items.len() == max {
                        return Err(MessageError::TooLarge {
                            tag,
                            got: max + 1,
                            max,
                        });
                    }
                    if item.len() > item_max {
                        return Err(MessageError::TooLarge {
                            tag,
                            got: item.len(),
                            max: item_max,
                        });
                    }
                    items.push(item);
                    rest = tail;
                }
                Ok(if tag == BLOCKS {
                    Message::Blocks(items)
                } else {
                    Message::Headers(items)
                })
            }
            TIP => {
                let (certificate, rest) = next_item(body).ok_or(MessageError::Truncated)?;
                let (header, rest) = next_item(rest).ok_or(MessageError::Truncated)?;
                if !rest.is_empty() {
                    return Err(MessageError::Trailing(rest.len()));
                }
                for (got, max) in [
                    (certificate.len(), MAX_CERTIFICATE_BYTES),
                    (header.len(), MAX_HEADER_BYTES),
                ] {
                    if got > max {
                        return Err(MessageError::TooLarge { tag, got, max });
                    }
                }
                Ok(Message::Tip {
                    certificate,
                    header,
                })
            }
            WANT_EPOCH => {
                fixed(8)?;
                let epoch = body.try_into().map_err(|_| MessageError::Truncated)?;
                Ok(Message::WantEpoch {
                    epoch: u64::from_be_bytes(epoch),
                })
            }
            EPOCH => {
                let (newest, rest) = body
                    .split_first_chunk::<8>()
                    .ok_or(MessageError::Truncated)?;
                let (certificate, rest) = next_item(rest).ok_or(MessageError::Truncated)?;
                let (boundary, rest) = next_item(rest).ok_or(MessageError::Truncated)?;
                if !rest.is_empty() {
                    return Err(MessageError::Trailing(rest.len()));
                }
                for (got, max) in [
                    (certificate.len(), MAX_CERTIFICATE_BYTES),
                    (boundary.len(), MAX_BOUNDARY_BYTES),
                ] {
                    if got > max {
                        return Err(MessageError::TooLarge { tag, got, max });
                    }
                }
                Ok(Message::Epoch {
                    newest: u64::from_be_bytes(*newest),
                    certificate,
                    boundary,
                })
            }
            WANT_OPS => {
                fixed(REQUEST_LEN)?;
                let request = SnapshotRequest::decode(body).map_err(|_| MessageError::Request)?;
                Ok(Message::WantOps(request))
            }
            OPS => {
                if body.len() < REQUEST_LEN {
                    return Err(MessageError::Truncated);
                }
                let (request, response) = body.split_at(REQUEST_LEN);
                let request =
                    SnapshotRequest::decode(request).map_err(|_| MessageError::Request)?;
                if response.len() > MAX_SNAPSHOT_RESPONSE_BYTES {
                    return Err(MessageError::TooLarge {
                        tag,
                        got: response.len(),
                        max: MAX_SNAPSHOT_RESPONSE_BYTES,
                    });
                }
                Ok(Message::Ops { request, response })
            }
            t => Err(MessageError::UnknownTag(t)),
        }
    }
}

/// What a peer answered that catch-up asked for (decoded, not yet checked).
#[derive(Debug)]
pub enum Answer {
    /// Headers, newest first.
    Headers(Vec<BlockHeader>),
    /// A finalization certificate (not decoded: that needs the epoch's set) and the header
    /// of the block it names.
    Tip {
        /// The certificate's bytes.
        certificate: Vec<u8>,
        /// The header.
        header: Box<BlockHeader>,
    },
    /// An epoch's last block's certificate and boundary record (not decoded: see
    /// [`crate::snapshot_sync::check_epoch`]).
    Epoch {
        /// The newest epoch whose boundary the peer keeps (unauthenticated).
        newest: u64,
        /// The certificate's bytes.
        certificate: Vec<u8>,
        /// The boundary record's bytes.
        boundary: Vec<u8>,
    },
}

/// Snapshot requests waiting for their answer: by the peer asked and the request's bytes.
type OpsWaiters = BTreeMap<(Peer, [u8; REQUEST_LEN]), oneshot::Sender<Vec<u8>>>;

/// What a watch saw (see [`Sync::watch`]).
#[derive(Debug, Default)]
struct Watch {
    /// Peers asked for snapshot operations while watching: their answers that arrive after
    /// their request was withdrawn are late, not lies.
    asked: BTreeSet<Peer>,
    /// Peers that sent a malformed message, an undecodable header or block, or operations
    /// never asked of them, while watching.
    offenders: BTreeSet<Peer>,
}

/// The newest finalization certificate this node applied: what it answers a `WantTip` for
/// its current epoch with.
#[derive(Clone, Debug)]
pub struct Certified {
    /// The certificate's epoch.
    pub epoch: u64,
    /// The height of the block it names.
    pub height: u64,
    /// The certificate (commonware's encoding).
    pub certificate: Vec<u8>,
}

/// The sync side of a validator (see the module docs).
#[derive(Clone)]
pub struct Sync {
    outbound: mpsc::UnboundedSender<(Option<Peer>, Vec<u8>)>,
    latest: Arc<std::sync::Mutex<Option<Certified>>>,
    ops: Arc<std::sync::Mutex<OpsWaiters>>,
    dropped: Counter,
    watch: Arc<std::sync::Mutex<Option<Watch>>>,
}

impl Sync {
    /// Ask the peers for block `hash` and its ancestors above height `above`.
    pub fn want(&self, hash: Hash32, above: u64) {
        self.ask(Message::Want { hash, above });
    }

    /// Send a request to every peer.
    pub fn ask(&self, message: Message<'_>) {
        let _ = self.outbound.send((None, message.encode()));
    }

    /// Send a request to `peer` alone, or to every peer if `None`.
    pub fn ask_of(&self, peer: Option<Peer>, message: Message<'_>) {
        let _ = self.outbound.send((peer, message.encode()));
    }

    /// Ask `peer` for part of a state snapshot; the receiver gets the response bytes when
    /// that peer answers this request (an answer from anyone else, or to no outstanding
    /// request, is dropped and counted). Dropping the receiver withdraws the request.
    pub fn fetch_ops(&self, peer: Peer, request: SnapshotRequest) -> oneshot::Receiver<Vec<u8>> {
        let (tx, rx) = oneshot::channel();
        if let Ok(mut watch) = self.watch.lock() {
            if let Some(w) = watch.as_mut().filter(|w| w.asked.len() < MAX_WATCHED) {
                w.asked.insert(peer.clone());
            }
        }
        if let Ok(mut waiting) = self.ops.lock() {
            // Withdrawn requests (their receivers dropped) are forgotten here.
            waiting.retain(|_, w| !w.is_closed());
            waiting.insert((peer.clone(), request.encode()), tx);
        }
        self.ask_of(Some(peer), Message::WantOps(request));
        rx
    }

    /// Messages dropped: malformed, or answers nobody asked for.
    pub fn dropped(&self) -> u64 {
        self.dropped.get()
    }

    /// Count a peer's message or answer as dropped (malformed, unasked for, or a lie found
    /// out by whoever checked it).
    pub fn drop_one(&self) {
        self.dropped.inc();
    }

    /// Start (or restart, forgetting what was seen) naming the peers that misbehave on the
    /// channel: a malformed message, an undecodable header or block, or snapshot operations
    /// from a peer not asked for any since the watch began ([`Sync::fetch_ops`]). At most
    /// [`MAX_WATCHED`] are named.
    pub fn watch(&self) {
        if let Ok(mut watch) = self.watch.lock() {
            *watch = Some(Watch::default());
        }
    }

    /// The peers named since the watch began or since the last call, which forgets them;
    /// the watch goes on.
    pub fn take_offenders(&self) -> Vec<Peer> {
        self.watch
            .lock()
            .ok()
            .and_then(|mut w| w.as_mut().map(|w| std::mem::take(&mut w.offenders)))
            .map(|o| o.into_iter().collect())
            .unwrap_or_default()
    }

    /// Stop watching; returns the peers named and not yet taken.
    pub fn unwatch(&self) -> Vec<Peer> {
        self.watch
            .lock()
            .ok()
            .and_then(|mut w| w.take())
            .map(|w| w.offenders.into_iter().collect())
            .unwrap_or_default()
    }

    /// Name `peer` as an offender if a watch is on (an unasked answer counts only if no
    /// operations were asked of it since the watch began).
    fn offended(&self, peer: &Peer, unasked_ops: bool) {
        if let Ok(mut watch) = self.watch.lock() {
            if let Some(w) = watch.as_mut() {
                if (!unasked_ops || !w.asked.contains(peer)) && w.offenders.len() < MAX_WATCHED {
                    w.offenders.insert(peer.clone());
                }
            }
        }
    }

    /// Record that the block a finalization certificate names is final here (the newest such
    /// is what `WantTip` is answered with in its epoch).
    pub fn certified(&self, certified: Certified) {
        if let Ok(mut latest) = self.latest.lock() {
            if latest.as_ref().is_none_or(|l| l.height < certified.height) {
                *latest = Some(certified);
            }
        }
    }

    /// Start asking (through [`Sync::want`] and [`Sync::ask`]) and answering on `channel`, on
    /// `context`'s runtime; each of `arrived` is notified whenever received blocks joined the
    /// pending set, headers and certificates go to the returned queue, and `dropped` counts
    /// what peers sent that was dropped (the `sync_dropped` metric).
    pub fn start<E: Runtime>(
        context: E,
        chain: Arc<Mutex<Chain<E>>>,
        arrived: Vec<Arc<Notify>>,
        channel: (
            impl Sender<PublicKey = ed25519::PublicKey>,
            impl Receiver<PublicKey = ed25519::PublicKey>,
        ),
        dropped: Counter,
    ) -> (Sync, mpsc::Receiver<(Peer, Answer)>) {
        let (mut sender, mut receiver) = channel;
        let (outbound, mut queue) = mpsc::unbounded_channel::<(Option<Peer>, Vec<u8>)>();
        let (answers, answers_rx) = mpsc::channel(ANSWER_QUEUE);
        let latest: Arc<std::sync::Mutex<Option<Certified>>> = Default::default();
        let ops: Arc<std::sync::Mutex<OpsWaiters>> = Default::default();
        let sync = Sync {
            outbound,
            latest: latest.clone(),
            ops: ops.clone(),
            dropped: dropped.clone(),
            watch: Default::default(),
        };
        let counter = sync.clone();

        let mut asker = sender.clone();
        context.child("ask").spawn(move |clock| async move {
            while let Some((peer, msg)) = queue.recv().await {
                let to = peer.map_or(Recipients::All, Recipients::One);
                send_paced(&clock, &mut asker, to, msg).await;
            }
        });

        let serving = latest.clone();
        context.child("answer").spawn(move |_| async move {
            let limits = chain.lock().await.genesis().params.block_limits();
            while let Ok((peer, bytes)) = receiver.recv().await {
                let message = match Message::decode(bytes.as_ref()) {
                    Ok(m) => m,
                    Err(e) => {
                        tracing::warn!(?peer, error = %e, "peer sent a malformed sync message");
                        counter.drop_one();
                        counter.offended(&peer, false);
                        continue;
                    }
                };
                let answer = match message {
                    Message::Want { hash, above } => range(&chain, hash, above).await,
                    Message::WantHeaders { hash, above } => headers(&chain, hash, above).await,
                    Message::WantTip { epoch, head } => tip(&chain, &serving, epoch, head).await,
                    Message::WantEpoch { epoch } => boundary(&chain, epoch).await,
                    Message::WantOps(request) => ops_answer(&chain, request).await,
                    Message::Ops { request, response } => {
                        let waiter = ops
                            .lock()
                            .ok()
                            .and_then(|mut w| w.remove(&(peer.clone(), request.encode())));
                        match waiter {
                            Some(w) => {
                                let _ = w.send(response.to_vec());
                            }
                            None => {
                                tracing::debug!(?peer, "peer sent snapshot operations unasked");
                                counter.drop_one();
                                counter.offended(&peer, true);
                            }
                        }
                        continue;
                    }
                    Message::Epoch {
                        newest,
                        certificate,
                        boundary,
                    } => {
                        let _ = answers.try_send((
                            peer,
                            Answer::Epoch {
                                newest,
                                certificate: certificate.to_vec(),
                                boundary: boundary.to_vec(),
                            },
                        ));
                        continue;
                    }
                    Message::Blocks(blocks) => {
                        let mut received = 0usize;
                        for block in blocks {
                            match Block::decode(block, limits) {
                                Ok(block) => {
                                    chain.lock().await.receive(block);
                                    received += 1;
                                }
                                Err(e) => {
                                    tracing::warn!(?peer, error = %e, "peer sent an undecodable block");
                                    counter.offended(&peer, false);
                                    break;
                                }
                            }
                        }
                        if received > 0 {
                            tracing::debug!(?peer, blocks = received, "blocks from a peer");
                            for waiter in &arrived {
                                waiter.notify_one();
                            }
                        }
                        continue;
                    }
                    Message::Headers(items) => {
                        match items
                            .iter()
                            .map(|h| BlockHeader::decode(h))
                            .collect::<Result<Vec<_>, _>>()
                        {
                            Ok(headers) => {
                                let _ = answers.try_send((peer, Answer::Headers(headers)));
                            }
                            Err(e) => {
                                tracing::warn!(?peer, error = %e, "peer sent an undecodable header");
                                counter.offended(&peer, false);
                            }
                        }
                        continue;
                    }
                    Message::Tip {
                        certificate,
                        header,
                    } => {
                        match BlockHeader::decode(header) {
                            Ok(header) => {
                                let _ = answers.try_send((
                                    peer,
                                    Answer::Tip {
                                        certificate: certificate.to_vec(),
                                        header: Box::new(header),
                                    },
                                ));
                            }
                            Err(e) => {
                                tracing::warn!(?peer, error = %e, "peer sent an undecodable header");
                                counter.offended(&peer, false);
                            }
                        }
                        continue;
                    }
                };
                match answer {
                    Ok(Some(answer)) => {
                        let _ = sender.send(Recipients::One(peer), answer, false);
                    }
                    Ok(None) => {}
                    Err(e) => tracing::error!(error = %e, "cannot read blocks for a peer"),
                }
            }
        });
        (sync, answers_rx)
    }
}

/// Split the first length-prefixed item off a message.
fn next_item(bytes: &[u8]) -> Option<(&[u8], &[u8])> {
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

/// The answer to a want of the headers of finalized block `hash` and its ancestors above
/// `above`, or `None` if the block is not final here.
async fn headers<E: Runtime>(
    chain: &Mutex<Chain<E>>,
    hash: Hash32,
    above: u64,
) -> Result<Option<Vec<u8>>, String> {
    let reader = chain.lock().await.readers().borrow().clone();
    let Some(reader) = reader else {
        return Ok(None);
    };
    let limits = reader.genesis.params.block_limits();
    let store = &reader.blocks;
    let Some((top, _)) = store
        .block_by_hash(&hash.0)
        .await
        .map_err(|e| e.to_string())?
    else {
        return Ok(None);
    };
    let mut msg = vec![HEADERS];
    let mut height = top;
    let mut count = 0;
    while count < MAX_RANGE_HEADERS && height > above {
        let Some(bytes) = store.block(height).await.map_err(|e| e.to_string())? else {
            break;
        };
        let header = Block::decode(&bytes, limits)
            .map_err(|e| e.to_string())?
            .header
            .encode();
        push(&mut msg, &header);
        count += 1;
        height -= 1;
    }
    Ok((count > 0).then_some(msg))
}

/// The answer to a want of a certificate of `epoch` above height `head`: the epoch's last
/// block's, if final here, else the newest applied (`latest`) if it is of that epoch and
/// above `head`.
async fn tip<E: Runtime>(
    chain: &Mutex<Chain<E>>,
    latest: &std::sync::Mutex<Option<Certified>>,
    epoch: u64,
    head: u64,
) -> Result<Option<Vec<u8>>, String> {
    let (reader, boundary) = {
        let c = chain.lock().await;
        let reader = c.readers().borrow().clone();
        (reader, c.certificate(epoch))
    };
    let Some(reader) = reader else {
        return Ok(None);
    };
    let (height, certificate) = match boundary {
        Some(certificate) => {
            let blocks = reader.genesis.params.epoch_blocks.max(1);
            let last = epoch
                .checked_add(1)
                .and_then(|e| e.checked_mul(blocks))
                .map_or(u64::MAX, |h| h - 1);
            (last, certificate)
        }
        None => {
            let newest = latest.lock().ok().and_then(|l| l.clone());
            match newest {
                Some(c) if c.epoch == epoch => (c.height, c.certificate),
                _ => return Ok(None),
            }
        }
    };
    if height <= head {
        return Ok(None);
    }
    let block = match reader.block(height).await {
        Ok(Some(block)) => block,
        // A node that began at a later snapshot keeps the certificate but not the block.
        Ok(None) | Err(crate::chain::ChainError::BeforeSnapshot { .. }) => return Ok(None),
        Err(e) => return Err(e.to_string()),
    };
    let header = block.header.encode();
    Ok(Some(
        Message::Tip {
            certificate: &certificate,
            header: &header,
        }
        .encode(),
    ))
}

/// The answer to a want of epoch `epoch`'s boundary: its certificate and boundary record if
/// both are kept here, with the newest epoch whose boundary is.
async fn boundary<E: Runtime>(
    chain: &Mutex<Chain<E>>,
    epoch: u64,
) -> Result<Option<Vec<u8>>, String> {
    let (certificate, record, newest) = {
        let c = chain.lock().await;
        let params = &c.genesis().params;
        // The newest boundary at or below the head: the last block of the epoch before the
        // head's next block's.
        let newest = cowboy_exec::system::staking::epoch_of(params, c.head().header.height + 1)
            .checked_sub(1);
        (c.certificate(epoch), c.boundary(epoch), newest)
    };
    let (Some(certificate), Some(record), Some(newest)) = (certificate, record, newest) else {
        return Ok(None);
    };
    Ok(Some(
        Message::Epoch {
            newest,
            certificate: &certificate,
            boundary: &record,
        }
        .encode(),
    ))
}

/// The answer to a snapshot request, if this node's state can serve it.
async fn ops_answer<E: Runtime>(
    chain: &Mutex<Chain<E>>,
    request: SnapshotRequest,
) -> Result<Option<Vec<u8>>, String> {
    let reader = chain.lock().await.readers().borrow().clone();
    let Some(reader) = reader else {
        return Ok(None);
    };
    match reader.state.serve_snapshot(&request).await {
        Ok(response) => Ok(Some(
            Message::Ops {
                request,
                response: &response,
            }
            .encode(),
        )),
        Err(e) => {
            // Pruned past, or a size above this node's: not this node's fault, nor the asker's.
            tracing::debug!(error = %e, "cannot serve a snapshot request");
            Ok(None)
        }
    }
}

fn push(msg: &mut Vec<u8>, item: &[u8]) {
    msg.extend_from_slice(&(item.len() as u32).to_be_bytes());
    msg.extend_from_slice(item);
}

/// Send `msg` to `to`, waiting until the channel's quota admits it instead of letting the
/// sender drop it (see the module docs). A recipient that is offline still loses it, as p2p
/// promises no more; recipients of `All` that are over the quota while others are not miss it.
pub async fn send_paced<S: Sender>(
    clock: &impl commonware_runtime::Clock,
    sender: &mut S,
    to: Recipients<S::PublicKey>,
    msg: Vec<u8>,
) {
    use commonware_p2p::CheckedSender as _;
    loop {
        match sender.check(to.clone()) {
            Ok(checked) => {
                let _ = checked.send(msg, false);
                return;
            }
            Err(until) => clock.sleep_until(until).await,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn samples() -> Vec<Message<'static>> {
        vec![
            Message::Want {
                hash: Hash32([7; 32]),
                above: 41,
            },
            Message::Blocks(vec![b"abc", b"", b"defg"]),
            Message::Blocks(vec![]),
            Message::WantHeaders {
                hash: Hash32([9; 32]),
                above: u64::MAX,
            },
            Message::Headers(vec![b"h1", b"h2"]),
            Message::WantTip {
                epoch: 3,
                head: 299,
            },
            Message::Tip {
                certificate: b"cert",
                header: b"header",
            },
            Message::WantEpoch { epoch: 41 },
            Message::Epoch {
                newest: 44,
                certificate: b"cert",
                boundary: b"record",
            },
            Message::WantOps(request()),
            Message::Ops {
                request: request(),
                response: b"proof and operations",
            },
            Message::Ops {
                request: SnapshotRequest::Boundary { size: 9, start: 8 },
                response: b"",
            },
        ]
    }

    fn request() -> SnapshotRequest {
        SnapshotRequest::Operations {
            size: 900,
            start: 30,
            max_ops: 64,
        }
    }

    #[test]
    fn every_message_round_trips() {
        for m in samples() {
            assert_eq!(Message::decode(&m.encode()), Ok(m.clone()), "{m:?}");
        }
    }

    #[test]
    fn malformed_messages_are_refused_whole() {
        use MessageError::*;
        let want = Message::Want {
            hash: Hash32([1; 32]),
            above: 2,
        }
        .encode();
        let blocks = Message::Blocks(vec![b"abc", b"defg"]).encode();
        let tip = Message::Tip {
            certificate: b"c",
            header: b"h",
        }
        .encode();
        let cases: Vec<(Vec<u8>, MessageError)> = vec![
            (vec![], Empty),
            (vec![10], UnknownTag(10)),
            (vec![255, 1, 2], UnknownTag(255)),
            (
                want[..40].to_vec(),
                Length {
                    tag: 0,
                    got: 39,
                    expected: 40,
                },
            ),
            (
                [&want[..], &[0]].concat(),
                Length {
                    tag: 0,
                    got: 41,
                    expected: 40,
                },
            ),
            (
                vec![WANT_TIP; 16],
                Length {
                    tag: 4,
                    got: 15,
                    expected: 16,
                },
            ),
            // A length running past the end, or fewer than four length bytes.
            (blocks[..blocks.len() - 1].to_vec(), Truncated),
            (vec![BLOCKS, 0, 0, 1], Truncated),
            (vec![TIP], Truncated),
            ([&tip[..], &[9]].concat(), Trailing(1)),
            (
                [&[HEADERS][..], &5000u32.to_be_bytes(), &[0; 5000]].concat(),
                TooLarge {
                    tag: 3,
                    got: 5000,
                    max: MAX_HEADER_BYTES,
                },
            ),
        ];
        // The snapshot messages.
        let want_ops = Message::WantOps(request()).encode();
        let epoch = Message::Epoch {
            newest: 3,
            certificate: b"c",
            boundary: b"b",
        }
        .encode();
        let mut zero_ops = want_ops.clone();
        // `max_ops` (the last eight bytes) zero: a request for nothing.
        zero_ops[18..].copy_from_slice(&[0; 8]);
        let mut start_past_size = want_ops.clone();
        start_past_size[10..18].copy_from_slice(&901u64.to_be_bytes());
        let cases = cases.into_iter().chain([
            (
                vec![WANT_EPOCH; 8],
                Length {
                    tag: 6,
                    got: 7,
                    expected: 8,
                },
            ),
            (epoch[..epoch.len() - 1].to_vec(), Truncated),
            (vec![EPOCH, 0, 0, 0], Truncated),
            ([&epoch[..], &[0]].concat(), Trailing(1)),
            (
                [
                    &[EPOCH][..],
                    &[0; 8],
                    &1u32.to_be_bytes(),
                    b"c",
                    &((MAX_BOUNDARY_BYTES + 1) as u32).to_be_bytes(),
                    &vec![0; MAX_BOUNDARY_BYTES + 1],
                ]
                .concat(),
                TooLarge {
                    tag: 7,
                    got: MAX_BOUNDARY_BYTES + 1,
                    max: MAX_BOUNDARY_BYTES,
                },
            ),
            (
                want_ops[..want_ops.len() - 1].to_vec(),
                Length {
                    tag: 8,
                    got: 24,
                    expected: 25,
                },
            ),
            (zero_ops.clone(), Request),
            (start_past_size, Request),
            (
                {
                    let mut unknown = want_ops.clone();
                    unknown[1] = 7;
                    unknown
                },
                Request,
            ),
            (vec![OPS; 25], Truncated),
            ([&[OPS][..], &zero_ops[1..]].concat(), Request),
            (
                [
                    &[OPS][..],
                    &want_ops[1..],
                    &vec![0; MAX_SNAPSHOT_RESPONSE_BYTES + 1],
                ]
                .concat(),
                TooLarge {
                    tag: 9,
                    got: MAX_SNAPSHOT_RESPONSE_BYTES + 1,
                    max: MAX_SNAPSHOT_RESPONSE_BYTES,
                },
            ),
        ]);
        for (bytes, error) in cases {
            let shown = &bytes[..bytes.len().min(64)];
            assert_eq!(Message::decode(&bytes), Err(error), "{shown:?}");
        }
        // More items than an answer holds.
        let many: Vec<&[u8]> = vec![b"x"; MAX_RANGE_BLOCKS + 1];
        assert_eq!(
            Message::decode(&Message::Blocks(many).encode()),
            Err(TooLarge {
                tag: 1,
                got: MAX_RANGE_BLOCKS + 1,
                max: MAX_RANGE_BLOCKS
            })
        );
        let most: Vec<&[u8]> = vec![b"x"; MAX_RANGE_HEADERS];
        assert!(Message::decode(&Message::Headers(most).encode()).is_ok());
    }

    /// How many messages `receiver` gets until none comes for 5 s.
    async fn arrivals(
        context: &commonware_runtime::deterministic::Context,
        receiver: &mut impl Receiver,
    ) -> usize {
        use commonware_runtime::Clock as _;
        let mut n = 0;
        loop {
            tokio::select! {
                biased;
                m = receiver.recv() => {
                    m.expect("open");
                    n += 1;
                }
                _ = context.sleep(std::time::Duration::from_secs(5)) => return n,
            }
        }
    }

    /// Fifty requests sent at once to one peer on the sync channel's quota: sent plainly, p2p
    /// drops those past the quota's burst (what an epoch walk lost); paced, all arrive.
    #[test]
    fn requests_past_the_quota_wait_for_it_instead_of_being_dropped() {
        use commonware_cryptography::Signer as _;
        use commonware_p2p::simulated::{self, Link};
        use commonware_runtime::{deterministic, Runner as _, Supervisor as _};
        use std::time::Duration;
        deterministic::Runner::default().start(|context| async move {
            let (a, b) = (
                ed25519::PrivateKey::from_seed(1).public_key(),
                ed25519::PrivateKey::from_seed(2).public_key(),
            );
            let (network, oracle) = simulated::Network::new_with_peers(
                context.child("network"),
                simulated::Config {
                    max_size: 1024,
                    max_peers_per_set: std::num::NonZeroUsize::new(2).expect("two"),
                    disconnect_on_block: true,
                    tracked_peer_sets: std::num::NonZeroUsize::MIN,
                },
                vec![a.clone(), b.clone()],
            )
            .await;
            network.start();
            let link = Link {
                latency: Duration::from_millis(1),
                jitter: Duration::ZERO,
                success_rate: commonware_utils::probability!(1.0),
            };
            oracle
                .add_link(a.clone(), b.clone(), link)
                .await
                .expect("link");
            let (mut sender, _) = oracle
                .control(a.clone())
                .register(SYNC_CHANNEL, quota())
                .await
                .expect("register");
            let (_, mut receiver) = oracle
                .control(b.clone())
                .register(SYNC_CHANNEL, quota())
                .await
                .expect("register");
            for i in 0..50u8 {
                let _ = sender.send(Recipients::One(b.clone()), vec![i], false);
            }
            let plain = arrivals(&context, &mut receiver).await;
            assert!(
                plain < 50 && plain >= PEER_QUOTA as usize,
                "{plain} arrived"
            );
            for i in 0..50u8 {
                send_paced(&context, &mut sender, Recipients::One(b.clone()), vec![i]).await;
            }
            assert_eq!(arrivals(&context, &mut receiver).await, 50);
        });
    }

    #[test]
    fn garbage_never_panics_and_what_decodes_re_encodes_to_itself() {
        // A fixed xorshift stream: random bytes of every length up to 300, each tag forced
        // at random, plus every truncation of the sample messages.
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut inputs: Vec<Vec<u8>> = Vec::new();
        for len in 0..300 {
            let mut bytes: Vec<u8> = (0..len).map(|_| next() as u8).collect();
            if let Some(b) = bytes.first_mut() {
                *b %= 10;
            }
            inputs.push(bytes);
        }
        for m in samples() {
            let bytes = m.encode();
            for cut in 0..bytes.len() {
                inputs.push(bytes[..cut].to_vec());
            }
        }
        for bytes in inputs {
            if let Ok(m) = Message::decode(&bytes) {
                assert_eq!(m.encode(), bytes);
            }
        }
    }
}
