//! The p2p side of seats (`crate::seats`): what lets simplex count a member's vote once per
//! seat while the network carries it once.
//!
//! A derived seat is a participant with no peer behind it, so an engine's channels are
//! wrapped:
//!
//! - **Votes in** ([`VoteReceiver`]): a vote a member sent at its own seat is handed to the
//!   engine once per seat it holds, each copy naming the seat as signer and coming "from" the
//!   seat's key, with the member's signature (checked once per member by `Seats`). Anything
//!   else (a vote at another seat, undecodable bytes) passes through untouched, for the engine
//!   to refuse and block as it would. A member can make a node expand at most its own seats
//!   per vote it sends, and its votes are rate-limited by the channel as before.
//! - **Votes out** ([`VoteSender`]): the engine hands its own vote to its batcher at its own
//!   seat only, and sends it to the network; this node's derived seats get their copies here,
//!   looped back into the receiver as the network's would be.
//! - **Certificate requests** ([`RequestSender`], [`RequestReceiver`]): the engine's resolver
//!   picks peers among the participants, derived seats included. A request to a derived seat
//!   goes to its member, and the member's answer (matched by the request id, the first eight
//!   bytes of commonware's resolver message, then its kind: `1` data, `2` error) comes back
//!   as the seat's, the peer the resolver asked.
//! - **Blocking** ([`SeatBlocker`]): a derived seat blocked (a bad signature) blocks its member.
//!
//! Certificates travel to all peers and are per member (`Seats`), so that channel is not
//! wrapped.

use std::collections::{BTreeMap, VecDeque};
use std::num::NonZeroUsize;
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use commonware_actor::{Feedback, Unreliable};
use commonware_codec::{Copying, DecodeExt, Encode};
use commonware_consensus::simplex::types::Vote;
use commonware_cryptography::certificate::Attestation;
use commonware_cryptography::ed25519::PublicKey;
use commonware_p2p::{
    BlockedSubscription, Blocker, CheckedSender, LimitedSender, Message, Receiver, Recipients,
};
use commonware_runtime::{IoBuf, IoBufs};
use commonware_utils::Participant;
use tokio::sync::mpsc;

use crate::consensus::Digest;
use crate::seats::Seats;

/// Copies of `vote` at each of `seats` (seat, its key), with the vote's own signature.
fn copies(
    vote: &Vote<Seats, Digest>,
    seats: &[(Participant, PublicKey)],
) -> Vec<Message<PublicKey>> {
    seats
        .iter()
        .map(|(seat, key)| {
            let at = |a: &Attestation<Seats>| Attestation {
                signer: *seat,
                signature: a.signature.clone(),
            };
            let copy = match vote {
                Vote::Notarize(v) => {
                    let mut v = v.clone();
                    v.attestation = at(&v.attestation);
                    Vote::Notarize(v)
                }
                Vote::Nullify(v) => {
                    let mut v = v.clone();
                    v.attestation = at(&v.attestation);
                    Vote::Nullify(v)
                }
                Vote::Finalize(v) => {
                    let mut v = v.clone();
                    v.attestation = at(&v.attestation);
                    Vote::Finalize(v)
                }
            };
            (key.clone(), IoBuf::from(copy.encode().to_vec()))
        })
        .collect()
}

/// The seat a vote is signed at.
fn signer(vote: &Vote<Seats, Digest>) -> Participant {
    match vote {
        Vote::Notarize(v) => v.attestation.signer,
        Vote::Nullify(v) => v.attestation.signer,
        Vote::Finalize(v) => v.attestation.signer,
    }
}

/// Wrap an engine's vote channel (see the module docs).
pub fn votes<S, R>(seats: Seats, sender: S, receiver: R) -> (VoteSender<S>, VoteReceiver<R>)
where
    S: LimitedSender<PublicKey = PublicKey>,
    R: Receiver<PublicKey = PublicKey>,
{
    let (loopback_tx, loopback) = mpsc::unbounded_channel();
    let mine = match commonware_cryptography::certificate::Scheme::me(&seats) {
        Some(me) => seats.derived_seats(me.index()),
        None => Vec::new(),
    };
    (
        VoteSender {
            inner: sender,
            mine: Arc::new(mine),
            loopback: loopback_tx,
        },
        VoteReceiver {
            inner: receiver,
            seats,
            queue: VecDeque::new(),
            loopback,
        },
    )
}

/// The engine's vote sender: this node's derived seats get copies of its own votes.
#[derive(Clone)]
pub struct VoteSender<S> {
    inner: S,
    /// This node's derived seats.
    mine: Arc<Vec<(Participant, PublicKey)>>,
    loopback: mpsc::UnboundedSender<Message<PublicKey>>,
}

impl<S: LimitedSender<PublicKey = PublicKey>> LimitedSender for VoteSender<S> {
    type PublicKey = PublicKey;
    type Checked<'a> = CheckedVote<S::Checked<'a>>;

    fn check(
        &mut self,
        recipients: Recipients<PublicKey>,
    ) -> Result<Self::Checked<'_>, SystemTime> {
        let mine = Arc::clone(&self.mine);
        let loopback = self.loopback.clone();
        let inner = self.inner.check(recipients);
        match inner {
            Ok(inner) => Ok(CheckedVote {
                inner,
                mine,
                loopback,
            }),
            Err(at) => {
                // Nobody reachable now: the derived seats still vote (they are local).
                Err(at)
            }
        }
    }
}

/// A checked vote send (see [`VoteSender`]).
pub struct CheckedVote<C> {
    inner: C,
    mine: Arc<Vec<(Participant, PublicKey)>>,
    loopback: mpsc::UnboundedSender<Message<PublicKey>>,
}

impl<C: CheckedSender<PublicKey = PublicKey>> CheckedSender for CheckedVote<C> {
    type PublicKey = PublicKey;

    fn recipients(&self) -> Vec<PublicKey> {
        self.inner.recipients()
    }

    fn send(self, message: impl Into<IoBufs> + Send, priority: bool) -> Unreliable<Feedback> {
        let message = message.into().coalesce();
        if !self.mine.is_empty() {
            if let Ok(vote) = Vote::<Seats, Digest>::decode(Copying(message.as_ref())) {
                for copy in copies(&vote, &self.mine) {
                    let _ = self.loopback.send(copy);
                }
            }
        }
        self.inner.send(message, priority)
    }
}

/// The engine's vote receiver: a member's vote once per seat it holds.
#[derive(Debug)]
pub struct VoteReceiver<R> {
    inner: R,
    seats: Seats,
    /// Copies not yet handed to the engine.
    queue: VecDeque<Message<PublicKey>>,
    loopback: mpsc::UnboundedReceiver<Message<PublicKey>>,
}

impl<R: Receiver<PublicKey = PublicKey>> VoteReceiver<R> {
    /// `message` from `sender` and its copies at the sender's derived seats.
    fn expand(&mut self, sender: PublicKey, message: IoBuf) -> Message<PublicKey> {
        let seat = self.seats.seat_of(&sender);
        if let (Some(seat), Ok(vote)) = (
            seat,
            Vote::<Seats, Digest>::decode(Copying(message.as_ref())),
        ) {
            if signer(&vote) == seat {
                let derived = self.seats.derived_seats(seat);
                self.queue.extend(copies(&vote, &derived));
            }
        }
        (sender, message)
    }
}

impl<R: Receiver<PublicKey = PublicKey>> Receiver for VoteReceiver<R> {
    type Error = R::Error;
    type PublicKey = PublicKey;

    async fn recv(&mut self) -> Result<Message<PublicKey>, R::Error> {
        if let Some(next) = self.queue.pop_front() {
            return Ok(next);
        }
        tokio::select! {
            biased;
            Some(own) = self.loopback.recv() => Ok(own),
            received = self.inner.recv() => {
                let (sender, message) = received?;
                Ok(self.expand(sender, message))
            }
        }
    }

    fn capacity(&self) -> NonZeroUsize {
        self.inner.capacity()
    }
}

/// Requests sent to derived seats, awaiting the member's answer: `(member, id)` → the seat.
#[derive(Debug, Default)]
struct Asked {
    seat: BTreeMap<(PublicKey, u64), PublicKey>,
    order: VecDeque<(PublicKey, u64)>,
}

/// Requests remembered at most (older ones are forgotten: their answers then come from the
/// member, which the resolver ignores as unasked, and it asks again).
const MAX_ASKED: usize = 4_096;

impl Asked {
    fn insert(&mut self, member: PublicKey, id: u64, seat: PublicKey) {
        if self.order.len() >= MAX_ASKED {
            if let Some(old) = self.order.pop_front() {
                self.seat.remove(&old);
            }
        }
        if self.seat.insert((member.clone(), id), seat).is_none() {
            self.order.push_back((member, id));
        }
    }

    fn take(&mut self, member: &PublicKey, id: u64) -> Option<PublicKey> {
        let seat = self.seat.remove(&(member.clone(), id))?;
        self.order.retain(|k| !(k.0 == *member && k.1 == id));
        Some(seat)
    }
}

/// A resolver message's id and kind (`0` request, `1` data, `2` error), if it has them.
fn id_and_kind(message: &[u8]) -> Option<(u64, u8)> {
    let id = u64::from_be_bytes(message.get(..8)?.try_into().ok()?);
    Some((id, *message.get(8)?))
}

/// Wrap an engine's certificate-request channel (see the module docs).
pub fn requests<S, R>(
    seats: Seats,
    sender: S,
    receiver: R,
) -> (RequestSender<S>, RequestReceiver<R>)
where
    S: LimitedSender<PublicKey = PublicKey>,
    R: Receiver<PublicKey = PublicKey>,
{
    let asked = Arc::new(Mutex::new(Asked::default()));
    (
        RequestSender {
            inner: sender,
            seats: seats.clone(),
            asked: Arc::clone(&asked),
        },
        RequestReceiver {
            inner: receiver,
            asked,
        },
    )
}

/// The resolver's sender: a derived seat's messages go to its member.
#[derive(Clone)]
pub struct RequestSender<S> {
    inner: S,
    seats: Seats,
    asked: Arc<Mutex<Asked>>,
}

impl<S: LimitedSender<PublicKey = PublicKey>> LimitedSender for RequestSender<S> {
    type PublicKey = PublicKey;
    type Checked<'a> = CheckedRequest<S::Checked<'a>>;

    fn check(
        &mut self,
        recipients: Recipients<PublicKey>,
    ) -> Result<Self::Checked<'_>, SystemTime> {
        let member = |k: &PublicKey| {
            self.seats
                .holder_key(k)
                .cloned()
                .unwrap_or_else(|| k.clone())
        };
        let (asked_for, mapped): (Vec<(PublicKey, PublicKey)>, Recipients<PublicKey>) =
            match recipients {
                Recipients::All => (Vec::new(), Recipients::All),
                Recipients::One(k) => {
                    let m = member(&k);
                    (vec![(k, m.clone())], Recipients::One(m))
                }
                Recipients::Some(ks) => {
                    let pairs: Vec<_> = ks
                        .into_iter()
                        .map(|k| {
                            let m = member(&k);
                            (k, m)
                        })
                        .collect();
                    let mut members: Vec<_> = pairs.iter().map(|(_, m)| m.clone()).collect();
                    members.sort();
                    members.dedup();
                    (pairs, Recipients::Some(members))
                }
            };
        let asked = Arc::clone(&self.asked);
        let inner = self.inner.check(mapped)?;
        Ok(CheckedRequest {
            inner,
            asked_for,
            asked,
        })
    }
}

/// A checked resolver send (see [`RequestSender`]).
pub struct CheckedRequest<C> {
    inner: C,
    /// Each seat asked for and its member.
    asked_for: Vec<(PublicKey, PublicKey)>,
    asked: Arc<Mutex<Asked>>,
}

impl<C: CheckedSender<PublicKey = PublicKey>> CheckedSender for CheckedRequest<C> {
    type PublicKey = PublicKey;

    /// The seats asked for whose members are reachable (all of them when sent to all).
    fn recipients(&self) -> Vec<PublicKey> {
        let reached = self.inner.recipients();
        if self.asked_for.is_empty() {
            return reached;
        }
        self.asked_for
            .iter()
            .filter(|(_, m)| reached.contains(m))
            .map(|(k, _)| k.clone())
            .collect()
    }

    fn send(self, message: impl Into<IoBufs> + Send, priority: bool) -> Unreliable<Feedback> {
        let message = message.into().coalesce();
        if let Some((id, 0)) = id_and_kind(message.as_ref()) {
            if let Ok(mut asked) = self.asked.lock() {
                for (seat, member) in &self.asked_for {
                    if seat != member {
                        asked.insert(member.clone(), id, seat.clone());
                    }
                }
            }
        }
        self.inner.send(message, priority)
    }
}

/// The resolver's receiver: a member's answer to a request made of one of its derived seats
/// comes from that seat.
#[derive(Debug)]
pub struct RequestReceiver<R> {
    inner: R,
    asked: Arc<Mutex<Asked>>,
}

impl<R: Receiver<PublicKey = PublicKey>> Receiver for RequestReceiver<R> {
    type Error = R::Error;
    type PublicKey = PublicKey;

    async fn recv(&mut self) -> Result<Message<PublicKey>, R::Error> {
        let (sender, message) = self.inner.recv().await?;
        let seat = match id_and_kind(message.as_ref()) {
            Some((id, 1 | 2)) => self.asked.lock().ok().and_then(|mut a| a.take(&sender, id)),
            _ => None,
        };
        Ok((seat.unwrap_or(sender), message))
    }

    fn capacity(&self) -> NonZeroUsize {
        self.inner.capacity()
    }
}

/// The engine's blocker: blocking a derived seat blocks its member.
#[derive(Clone)]
pub struct SeatBlocker<B> {
    inner: B,
    seats: Seats,
}

impl<B> SeatBlocker<B> {
    /// `inner` blocking members for the seats of `seats`.
    pub fn new(inner: B, seats: Seats) -> Self {
        SeatBlocker { inner, seats }
    }
}

impl<B: Blocker<PublicKey = PublicKey>> Blocker for SeatBlocker<B> {
    type PublicKey = PublicKey;

    fn block(&mut self, peer: PublicKey) -> Feedback {
        let member = self.seats.holder_key(&peer).cloned().unwrap_or(peer);
        self.inner.block(member)
    }

    fn blocked(&mut self) -> BlockedSubscription<PublicKey> {
        self.inner.blocked()
    }
}
