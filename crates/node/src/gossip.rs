//! Transaction gossip: a transaction admitted to this validator's mempool, whether it came by
//! RPC or from a peer, is forwarded to every other voter of the current epoch on a p2p channel
//! of its own ([`TXS_CHANNEL`]), so it is included whoever leads. The voters are the set the
//! node last had the network track (`crate::epochs`); until then, the genesis validators.
//!
//! A message is one transaction's canonical bytes. What a peer sends goes through exactly the
//! admission an RPC submission does ([`Mempool::check`], then [`Chain::submit_checked`]:
//! signature, chain id, payload, limits, nonce, balance, fee caps, the pool's bounds), and only
//! an admitted transaction is forwarded on, so an invalid one travels one hop at most.
//!
//! **Bounds.** What a peer can make this node spend:
//! - *Messages*: commonware p2p enforces [`PEER_QUOTA`] per peer on this channel (inbound and
//!   outbound); beyond it messages are dropped by the network, before they reach us.
//! - *Size*: a message larger than `max_tx_size_bytes` is dropped unread.
//! - *Repeats*: the keccak hash of a message is the transaction's hash (canonical encoding).
//!   The [`Seen`] set remembers the last [`SEEN_CAPACITY`] hashes this node admitted or was
//!   sent; a message whose hash is there is dropped before any decoding, so nothing is checked,
//!   admitted or forwarded twice, and gossip cannot loop.
//! - *CPU*: the stateless checks (a signature recovery) run as a blocking task (a blocking
//!   thread under tokio; in turn on the deterministic runtime), one message
//!   at a time, without the chain's lock; the lock is taken only for the nonce and balance
//!   lookup an RPC submission also takes it for. Garbage therefore never holds up block
//!   building, verification or finalization, and one peer's flood costs at most
//!   [`PEER_QUOTA`] signature checks a second.
//! - *Outbound*: forwarding goes through a queue of [`OUTBOUND_QUEUE`] transactions; when it is
//!   full a transaction is not forwarded (it stays in this pool and is included when this
//!   validator leads).
//!
//! **Re-sends.** The network drops a message to a peer it is not connected to at that moment
//! (one still dialing at start-up, one restarting, one behind a partition), and nothing tells
//! the sender who was missed. So a forwarded transaction is sent again after
//! [`RESEND_DELAYS`] (1, 2, 4, … s on the runtime clock, ~1 min in all) for as long as it is
//! still in this node's pool: a peer that already has it drops the repeat by its hash before
//! decoding; one that was away gets it once it is back. At most [`RESEND_CAPACITY`]
//! transactions wait for a re-send (beyond that a transaction is sent once, as above), so
//! re-sends add at most `RESEND_CAPACITY` messages a second per peer, inside [`PEER_QUOTA`].
//!
//! A transaction this node refused for a reason of the moment (a nonce gap while it lags) is
//! still remembered as seen: the peer that admitted it keeps it and includes it when it leads.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::num::NonZeroU32;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use commonware_cryptography::ed25519;
use commonware_p2p::{Receiver, Recipients, Sender};
use commonware_runtime::Quota;
use cowboy_types::{keccak256, Hash32};
use tokio::sync::{mpsc, Mutex};

use crate::chain::Chain;
use crate::consensus::Runtime;
use crate::mempool::{max_tx_bytes, Mempool};
use crate::metrics::Metrics;
use crate::production::Production;

/// p2p channel of transaction gossip.
pub const TXS_CHANNEL: u64 = 4;
/// Transaction hashes remembered as seen (32 bytes each, twice: ~4 MiB).
pub const SEEN_CAPACITY: usize = 1 << 16;
/// Transactions waiting to be forwarded.
pub const OUTBOUND_QUEUE: usize = 4_096;
/// Gossip messages (transactions) per second per peer, each way. Above the ~750 tx/s one client
/// sustains against a node (`benches/devnet_throughput.py`), and a bound on the signature
/// checks a flooding peer can cost.
pub const PEER_QUOTA: u32 = 2_000;
/// Seconds after a send (the first or a re-send) at which a transaction still in the pool is
/// sent again: after the last, ~1 min after the first send, it is left to whoever holds it.
pub const RESEND_DELAYS: [u64; 6] = [1, 2, 4, 8, 16, 32];
/// Transactions waiting for a re-send at most.
pub const RESEND_CAPACITY: usize = 1_024;

/// The channel's per-peer rate quota.
pub fn quota() -> Quota {
    Quota::per_second(NonZeroU32::new(PEER_QUOTA).unwrap_or(NonZeroU32::MIN))
}

/// The last [`SEEN_CAPACITY`] transaction hashes, oldest forgotten first.
#[derive(Default)]
pub struct Seen {
    order: VecDeque<Hash32>,
    set: BTreeSet<Hash32>,
}

impl Seen {
    /// Remember `hash`; whether it was new.
    pub fn insert(&mut self, hash: Hash32) -> bool {
        if !self.set.insert(hash) {
            return false;
        }
        self.order.push_back(hash);
        if self.order.len() > SEEN_CAPACITY {
            if let Some(old) = self.order.pop_front() {
                self.set.remove(&old);
            }
        }
        true
    }
}

/// A transaction to forward, to every peer but the one it came from.
struct Outgoing {
    hash: Hash32,
    bytes: Vec<u8>,
    from: Option<ed25519::PublicKey>,
    /// Sends before this one (an index into [`RESEND_DELAYS`]).
    sends: usize,
}

/// Transactions waiting for a re-send, by when it is due (then by arrival, so the order is
/// total and deterministic).
#[derive(Default)]
struct Resends {
    due: BTreeMap<(SystemTime, u64), Outgoing>,
    arrivals: u64,
}

impl Resends {
    /// Re-send `out` (just sent) after its next delay, if it has one and there is room.
    fn schedule(&mut self, now: SystemTime, mut out: Outgoing) {
        let Some(delay) = RESEND_DELAYS.get(out.sends) else {
            return;
        };
        if self.due.len() >= RESEND_CAPACITY {
            tracing::debug!("gossip re-send list full: a transaction is sent once");
            return;
        }
        out.sends += 1;
        self.arrivals += 1;
        self.due
            .insert((now + Duration::from_secs(*delay), self.arrivals), out);
    }

    /// Take the re-sends due by `now`.
    fn take_due(&mut self, now: SystemTime) -> Vec<Outgoing> {
        let later = self.due.split_off(&(now, u64::MAX));
        std::mem::replace(&mut self.due, later)
            .into_values()
            .collect()
    }
}

/// The gossip handle: tell it of transactions admitted by RPC ([`Gossip::admitted`]); it
/// handles the peers' itself once started ([`Gossip::start`]).
#[derive(Clone)]
pub struct Gossip {
    seen: Arc<std::sync::Mutex<Seen>>,
    outbound: mpsc::Sender<Outgoing>,
    /// Whom transactions are forwarded to: the current epoch's other voters.
    peers: Arc<std::sync::Mutex<Vec<ed25519::PublicKey>>>,
}

/// The receiving end of the outbound queue, consumed by [`Gossip::start`].
pub struct Outbound(mpsc::Receiver<Outgoing>);

impl Gossip {
    /// A handle and its outbound queue.
    pub fn new() -> (Self, Outbound) {
        let (tx, rx) = mpsc::channel(OUTBOUND_QUEUE);
        let gossip = Self {
            seen: Arc::default(),
            outbound: tx,
            peers: Arc::default(),
        };
        (gossip, Outbound(rx))
    }

    /// Forward from now on to `peers` (the current epoch's voters but this node): leaders
    /// change with the staked set, and a transaction must reach whoever leads next.
    pub fn set_peers(&self, peers: Vec<ed25519::PublicKey>) {
        if let Ok(mut current) = self.peers.lock() {
            *current = peers;
        }
    }

    /// Whether this node has admitted or been sent the transaction `hash` (among the last
    /// [`SEEN_CAPACITY`]).
    pub fn has_seen(&self, hash: &Hash32) -> bool {
        self.seen
            .lock()
            .map(|seen| seen.set.contains(hash))
            .unwrap_or(false)
    }

    /// Remember `hash`; whether it was new.
    fn first_sight(&self, hash: Hash32) -> bool {
        self.seen
            .lock()
            .map(|mut seen| seen.insert(hash))
            .unwrap_or(false)
    }

    /// A transaction (canonical `bytes`, hash `hash`) entered the mempool by RPC: forward it
    /// to every peer.
    pub fn admitted(&self, hash: Hash32, bytes: &[u8]) {
        self.first_sight(hash);
        self.forward(hash, bytes.to_vec(), None);
    }

    fn forward(&self, hash: Hash32, bytes: Vec<u8>, from: Option<ed25519::PublicKey>) {
        let out = Outgoing {
            hash,
            bytes,
            from,
            sends: 0,
        };
        if self.outbound.try_send(out).is_err() {
            tracing::debug!("gossip queue full: a transaction is not forwarded");
        }
    }

    /// Start forwarding to the peers ([`Gossip::set_peers`]) and admitting what they send, on
    /// `context`'s runtime.
    pub fn start<E: Runtime>(
        &self,
        context: E,
        outbound: Outbound,
        chain: Arc<Mutex<Chain<E>>>,
        production: Arc<Production>,
        metrics: Metrics,
        channel: (
            impl Sender<PublicKey = ed25519::PublicKey>,
            impl Receiver<PublicKey = ed25519::PublicKey>,
        ),
    ) {
        let (mut sender, mut receiver) = channel;
        let Outbound(mut queue) = outbound;
        let peers = self.peers.clone();
        let resends = Arc::new(std::sync::Mutex::new(Resends::default()));
        let scheduled = resends.clone();
        context.child("forward").spawn(move |context| async move {
            while let Some(out) = queue.recv().await {
                let to: Vec<_> = peers
                    .lock()
                    .map(|peers| {
                        peers
                            .iter()
                            .filter(|p| Some(*p) != out.from.as_ref())
                            .cloned()
                            .collect()
                    })
                    .unwrap_or_default();
                // Nobody to send to (a lone validator): nothing to send again either.
                if to.is_empty() {
                    continue;
                }
                let _ = sender.send(Recipients::Some(to), out.bytes.clone(), false);
                if let Ok(mut resends) = scheduled.lock() {
                    resends.schedule(context.current(), out);
                }
            }
        });

        // Once a second, what is due goes back on the queue if it is still in the pool.
        let (outbound, pool) = (self.outbound.clone(), chain.clone());
        context.child("resend").spawn(move |context| async move {
            loop {
                context.sleep(Duration::from_secs(1)).await;
                let due = match resends.lock() {
                    Ok(mut resends) => resends.take_due(context.current()),
                    Err(_) => return,
                };
                if due.is_empty() {
                    continue;
                }
                let pending: Vec<Outgoing> = {
                    let c = pool.lock().await;
                    due.into_iter()
                        .filter(|out| c.mempool.get(&out.hash).is_some())
                        .collect()
                };
                for out in pending {
                    if outbound.try_send(out).is_err() {
                        tracing::debug!("gossip queue full: a re-send is dropped");
                    }
                }
            }
        });

        let gossip = self.clone();
        context.child("admit").spawn(move |context| async move {
            let (params, chain_id) = {
                let c = chain.lock().await;
                (Arc::new(c.genesis().params.clone()), c.genesis().chain_id)
            };
            let limit = max_tx_bytes(&params);
            while let Ok((peer, message)) = receiver.recv().await {
                let bytes = message.as_ref();
                if bytes.len() > limit {
                    metrics.gossip_dropped.inc();
                    continue;
                }
                let hash = keccak256(bytes);
                if !gossip.first_sight(hash) {
                    metrics.gossip_dropped.inc();
                    continue;
                }
                let bytes = bytes.to_vec();
                let params = params.clone();
                let checked = context
                    .child("check")
                    .shared(true)
                    .spawn(move |_| async move {
                        Mempool::check(&bytes, &params, chain_id).map(|c| (c, bytes))
                    })
                    .await;
                let (checked, bytes) = match checked {
                    Ok(Ok(ok)) => ok,
                    Ok(Err(rejection)) => {
                        tracing::debug!(
                            ?peer,
                            reason = rejection.kind(),
                            "invalid gossiped transaction"
                        );
                        metrics.gossip_dropped.inc();
                        continue;
                    }
                    Err(_) => return, // the runtime is shutting down
                };
                let admitted = {
                    let mut c = chain.lock().await;
                    let result = c.submit_checked(checked).await;
                    metrics.mempool.set(c.mempool.len() as i64);
                    if matches!(result, Ok(Ok(_))) {
                        production.on_transaction();
                    }
                    result
                };
                match admitted {
                    Ok(Ok(_)) => {
                        metrics.gossip_admitted.inc();
                        gossip.forward(hash, bytes, Some(peer));
                    }
                    Ok(Err(rejection)) => {
                        tracing::debug!(
                            ?peer,
                            reason = rejection.kind(),
                            "gossiped transaction refused"
                        );
                        metrics.gossip_dropped.inc();
                    }
                    Err(e) => tracing::error!(error = %e, "cannot admit a gossiped transaction"),
                }
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seen_remembers_the_last_capacity_hashes() {
        let mut seen = Seen::default();
        let h = |i: u32| keccak256(&i.to_be_bytes());
        assert!(seen.insert(h(0)));
        assert!(!seen.insert(h(0)));
        for i in 1..=SEEN_CAPACITY as u32 {
            assert!(seen.insert(h(i)));
        }
        // h(0) was the oldest: forgotten once the set is full, the others kept.
        assert_eq!(seen.set.len(), SEEN_CAPACITY);
        assert!(!seen.insert(h(1)));
        assert!(seen.insert(h(0)));
        assert!(!seen.insert(h(SEEN_CAPACITY as u32)));
    }

    #[test]
    fn resends_come_due_after_each_delay_and_stop_after_the_last() {
        let start = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000);
        let at = |s: u64| start + Duration::from_secs(s);
        let out = |i: u32| Outgoing {
            hash: keccak256(&i.to_be_bytes()),
            bytes: i.to_be_bytes().to_vec(),
            from: None,
            sends: 0,
        };
        let mut resends = Resends::default();
        resends.schedule(start, out(0));
        // Due at each delay after the previous send, not before; gone after the last.
        let mut now = start;
        for delay in RESEND_DELAYS {
            assert!(resends
                .take_due(now + Duration::from_secs(delay) - Duration::from_millis(1))
                .is_empty());
            now += Duration::from_secs(delay);
            let due = resends.take_due(now);
            assert_eq!(due.len(), 1);
            for o in due {
                resends.schedule(now, o);
            }
        }
        assert!(resends.due.is_empty());

        // Bounded: beyond the capacity a transaction is not scheduled; those due come out in
        // order of arrival.
        for i in 0..RESEND_CAPACITY as u32 + 5 {
            resends.schedule(start, out(i));
        }
        assert_eq!(resends.due.len(), RESEND_CAPACITY);
        let due = resends.take_due(at(1));
        assert_eq!(due.len(), RESEND_CAPACITY);
        assert!(due
            .iter()
            .zip(0u32..)
            .all(|(o, i)| o.bytes == i.to_be_bytes()));
        assert!(due.iter().all(|o| o.sends == 1));
    }
}
