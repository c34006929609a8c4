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
//!   to refuse and block as it would. A vote is copied once per (member, view, kind), however
//!   often it is sent, and only within a [`Window`] of views around where consensus is, which
//!   a member cannot move by itself: a member flooding votes for distinct views has at most
//!   `3 × 33` of them copied per view consensus advances, the rest handed on once, as sent.
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

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::num::NonZeroUsize;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use commonware_actor::{Feedback, Unreliable};
use commonware_codec::{Copying, DecodeExt, Encode};
use commonware_consensus::simplex::types::Vote;
use commonware_consensus::Viewable as _;
use commonware_cryptography::certificate::Attestation;
use commonware_cryptography::ed25519::PublicKey;
use commonware_p2p::{
    BlockedSubscription, Blocker, CheckedSender, LimitedSender, Message, Receiver, Recipients,
};
use commonware_runtime::{IoBuf, IoBufs};
use commonware_utils::ordered::Quorum as _;
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

/// A vote's kind: `0` notarize, `1` nullify, `2` finalize.
fn kind(vote: &Vote<Seats, Digest>) -> u8 {
    match vote {
        Vote::Notarize(_) => 0,
        Vote::Nullify(_) => 1,
        Vote::Finalize(_) => 2,
    }
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
        Some(me) => seats.derived_seats(me.index()).to_vec(),
        None => Vec::new(),
    };
    let own_view = Arc::new(AtomicU64::new(0));
    (
        VoteSender {
            inner: sender,
            mine: Arc::new(mine),
            loopback: loopback_tx,
            own_view: Arc::clone(&own_view),
        },
        VoteReceiver {
            inner: receiver,
            window: Window::new(&seats, own_view),
            copying: seats.has_derived_seats(),
            seats,
            queue: VecDeque::new(),
            loopback,
            expanded: BTreeSet::new(),
        },
    )
}

/// Views behind the window's centre whose votes are still copied: late finalizes of a view
/// just left. Older views are certified already (a node leaves a view on its certificate).
const BEHIND: u64 = 16;

/// Views ahead of the window's centre whose votes are copied: the engine admits votes one
/// view ahead of its own (rotating terms), so this is slack for a centre that lags.
const AHEAD: u64 = 16;

/// Where consensus is, in views, as far as no member can move it by itself: the votes copied
/// to derived seats are those within [`BEHIND`] and [`AHEAD`] of the centre, the higher of
///
/// - the last view this node voted in (its engine's own view, moved by nothing but it), and
/// - the highest view claimed by members holding [`Seats::honest_witness`] seats (each
///   member's claim is the highest view it sent a vote for at its own seat, authenticated by
///   the transport if not yet by signature): so some honest member has voted there, and the
///   `F` seats faults may hold cannot raise it. This moves the window for a node that has
///   not voted yet (just started) or is catching up.
#[derive(Debug)]
struct Window {
    own: Arc<AtomicU64>,
    /// Each member's claim, by its own seat.
    claims: BTreeMap<u32, u64>,
    /// Claimed view → seats of the members claiming it.
    claimed_at: BTreeMap<u64, u64>,
    /// Seats a claim needs behind it (see [`Seats::honest_witness`]).
    witness: u64,
    /// The highest view claimed by members holding `witness` seats.
    backed: u64,
}

impl Window {
    fn new(seats: &Seats, own: Arc<AtomicU64>) -> Self {
        Window {
            own,
            claims: BTreeMap::new(),
            claimed_at: BTreeMap::new(),
            witness: seats.honest_witness(),
            backed: 0,
        }
    }

    /// The member at own seat `seat`, holding `weight` seats, sent a vote for `view`.
    fn claim(&mut self, seat: u32, weight: u64, view: u64) {
        let old = self.claims.get(&seat).copied();
        if old.is_some_and(|old| old >= view) {
            return;
        }
        if let Some(old) = old {
            if let Some(at) = self.claimed_at.get_mut(&old) {
                *at -= weight;
                if *at == 0 {
                    self.claimed_at.remove(&old);
                }
            }
        }
        self.claims.insert(seat, view);
        *self.claimed_at.entry(view).or_default() += weight;
        if view > self.backed {
            // Claims only rise, so `backed` only rises. The walk passes the distinct views
            // claimed above it: a faulty member adds one (its own), honest ones a few.
            let mut behind = 0;
            for (at, seats) in self.claimed_at.iter().rev() {
                if *at <= self.backed {
                    break;
                }
                behind += seats;
                if behind >= self.witness {
                    self.backed = *at;
                    break;
                }
            }
        }
    }

    /// The window's centre (see [`Window`]).
    fn centre(&self) -> u64 {
        self.own.load(Ordering::Relaxed).max(self.backed)
    }

    /// Whether votes for `view` are copied.
    fn admits(&self, view: u64) -> bool {
        let centre = self.centre();
        view.saturating_add(BEHIND) >= centre && view <= centre.saturating_add(AHEAD)
    }
}

/// The engine's vote sender: this node's derived seats get copies of its own votes.
#[derive(Clone)]
pub struct VoteSender<S> {
    inner: S,
    /// This node's derived seats.
    mine: Arc<Vec<(Participant, PublicKey)>>,
    loopback: mpsc::UnboundedSender<Message<PublicKey>>,
    /// The last view this node voted in (see [`Window`]).
    own_view: Arc<AtomicU64>,
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
        let own_view = Arc::clone(&self.own_view);
        match self.inner.check(recipients) {
            Ok(inner) => Ok(CheckedVote {
                inner: Some(inner),
                mine,
                loopback,
                own_view,
            }),
            // Nobody reachable now: this node's derived seats still vote (they are local),
            // or its own engine would count its vote at one seat only.
            Err(_) if !mine.is_empty() => Ok(CheckedVote {
                inner: None,
                mine,
                loopback,
                own_view,
            }),
            Err(at) => Err(at),
        }
    }
}

/// A checked vote send (see [`VoteSender`]): `inner` is `None` when no peer can be sent to
/// now, and only the loopback happens.
pub struct CheckedVote<C> {
    inner: Option<C>,
    mine: Arc<Vec<(Participant, PublicKey)>>,
    loopback: mpsc::UnboundedSender<Message<PublicKey>>,
    own_view: Arc<AtomicU64>,
}

impl<C: CheckedSender<PublicKey = PublicKey>> CheckedSender for CheckedVote<C> {
    type PublicKey = PublicKey;

    fn recipients(&self) -> Vec<PublicKey> {
        self.inner
            .as_ref()
            .map(CheckedSender::recipients)
            .unwrap_or_default()
    }

    fn send(self, message: impl Into<IoBufs> + Send, priority: bool) -> Unreliable<Feedback> {
        let message = message.into().coalesce();
        if let Ok(vote) = Vote::<Seats, Digest>::decode(Copying(message.as_ref())) {
            self.own_view
                .fetch_max(vote.view().get(), Ordering::Relaxed);
            for copy in copies(&vote, &self.mine) {
                let _ = self.loopback.send(copy);
            }
        }
        match self.inner {
            Some(inner) => inner.send(message, priority),
            None => Unreliable::Rejected,
        }
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
    /// The views whose votes are copied.
    window: Window,
    /// Whether any member has derived seats: with equal stakes nothing is ever copied, and
    /// votes pass straight through, undecoded here.
    copying: bool,
    /// The votes already expanded within the window, `(view, seat, kind)`: a member's vote
    /// is copied to its seats once, however often it is sent (a nullify is re-sent on every
    /// timeout; a repeat would cost this node a copy per seat for nothing, as the engine
    /// drops duplicates). Views that fall behind the window are forgotten, so this holds at
    /// most `3 × 33` entries per member.
    expanded: BTreeSet<(u64, u32, u8)>,
}

impl<R: Receiver<PublicKey = PublicKey>> VoteReceiver<R> {
    /// `message` from `sender` and its copies at the sender's derived seats.
    fn expand(&mut self, sender: PublicKey, message: IoBuf) -> Message<PublicKey> {
        if !self.copying {
            return (sender, message);
        }
        let seat = self.seats.seat_of(&sender);
        if let (Some(seat), Ok(vote)) = (
            seat,
            Vote::<Seats, Digest>::decode(Copying(message.as_ref())),
        ) {
            let derived = self.seats.derived_seats(seat);
            let view = vote.view().get();
            if signer(&vote) == seat {
                self.window
                    .claim(seat.get(), derived.len() as u64 + 1, view);
                let floor = self.window.centre().saturating_sub(BEHIND);
                while self.expanded.first().is_some_and(|e| e.0 < floor) {
                    self.expanded.pop_first();
                }
                if !derived.is_empty()
                    && self.window.admits(view)
                    && self.expanded.insert((view, seat.get(), kind(&vote)))
                {
                    self.queue.extend(copies(&vote, derived));
                }
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
    // This node's own seat is keyed by its own key.
    let me = commonware_cryptography::certificate::Scheme::me(&seats).and_then(|m| {
        commonware_cryptography::certificate::Scheme::participants(&seats)
            .key(m.index())
            .cloned()
    });
    (
        RequestSender {
            inner: sender,
            me,
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
    /// This node's own key, if a member.
    me: Option<PublicKey>,
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
        // One of this node's own derived seats: nobody to ask. Refused at sending, so the
        // resolver tries its next peer at once.
        if let Recipients::One(k) = &recipients {
            if self.me.as_ref().is_some_and(|me| *me == member(k)) {
                return Ok(CheckedRequest {
                    inner: None,
                    asked_for: Vec::new(),
                    asked: Arc::clone(&self.asked),
                });
            }
        }
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
            inner: Some(inner),
            asked_for,
            asked,
        })
    }
}

/// A checked resolver send (see [`RequestSender`]); `inner` is `None` for a request to this
/// node's own derived seat, refused.
pub struct CheckedRequest<C> {
    inner: Option<C>,
    /// Each seat asked for and its member.
    asked_for: Vec<(PublicKey, PublicKey)>,
    asked: Arc<Mutex<Asked>>,
}

impl<C: CheckedSender<PublicKey = PublicKey>> CheckedSender for CheckedRequest<C> {
    type PublicKey = PublicKey;

    /// The seats asked for whose members are reachable (all of them when sent to all).
    fn recipients(&self) -> Vec<PublicKey> {
        let Some(inner) = &self.inner else {
            return Vec::new();
        };
        let reached = inner.recipients();
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
        let Some(inner) = self.inner else {
            return Unreliable::Rejected;
        };
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
        inner.send(message, priority)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::seats::Members;
    use commonware_consensus::simplex::types::{Notarize, Proposal};
    use commonware_consensus::types::{Epoch, Round, View};
    use commonware_cryptography::{ed25519, sha256, Signer as _};
    use futures::executor::block_on;

    const NS: &[u8] = b"seat-net";

    /// A channel's far side: what was sent, to whom.
    type Sent = Arc<Mutex<Vec<(Recipients<PublicKey>, Vec<u8>)>>>;

    #[derive(Clone)]
    struct FakeSender {
        sent: Sent,
    }

    struct FakeChecked {
        recipients: Recipients<PublicKey>,
        sent: Sent,
    }

    impl LimitedSender for FakeSender {
        type PublicKey = PublicKey;
        type Checked<'a> = FakeChecked;

        fn check(&mut self, recipients: Recipients<PublicKey>) -> Result<FakeChecked, SystemTime> {
            Ok(FakeChecked {
                recipients,
                sent: Arc::clone(&self.sent),
            })
        }
    }

    impl CheckedSender for FakeChecked {
        type PublicKey = PublicKey;

        fn recipients(&self) -> Vec<PublicKey> {
            match &self.recipients {
                Recipients::One(k) => vec![k.clone()],
                Recipients::Some(ks) => ks.clone(),
                Recipients::All => Vec::new(),
            }
        }

        fn send(self, message: impl Into<IoBufs> + Send, _: bool) -> Unreliable<Feedback> {
            let bytes = message.into().coalesce().as_ref().to_vec();
            if let Ok(mut sent) = self.sent.lock() {
                sent.push((self.recipients, bytes));
            }
            Unreliable::Outcome(Feedback::Ok)
        }
    }

    #[derive(Debug)]
    struct FakeReceiver {
        inbox: VecDeque<Message<PublicKey>>,
    }

    impl Receiver for FakeReceiver {
        type Error = std::io::Error;
        type PublicKey = PublicKey;

        async fn recv(&mut self) -> Result<Message<PublicKey>, std::io::Error> {
            self.inbox
                .pop_front()
                .ok_or_else(|| std::io::Error::other("closed"))
        }

        fn capacity(&self) -> NonZeroUsize {
            NonZeroUsize::MIN
        }
    }

    fn keys() -> Vec<ed25519::PrivateKey> {
        (0..4).map(ed25519::PrivateKey::from_seed).collect()
    }

    /// Member 0 stakes three times what the others do: three seats of six.
    fn members(keys: &[ed25519::PrivateKey]) -> Members {
        Members::new(
            keys.iter()
                .zip([30u128, 10, 10, 10])
                .map(|(k, p)| (k.public_key(), p)),
        )
        .expect("members")
    }

    fn vote(seats: &Seats) -> Vote<Seats, Digest> {
        vote_at(seats, 3)
    }

    fn vote_at(seats: &Seats, view: u64) -> Vote<Seats, Digest> {
        let proposal = Proposal::new(
            Round::new(Epoch::new(0), View::new(view)),
            View::new(view - 1),
            sha256::Digest([5; 32]),
        );
        Vote::Notarize(Notarize::sign(seats, proposal).expect("a signer"))
    }

    fn decoded(message: &Message<PublicKey>) -> Vote<Seats, Digest> {
        Vote::decode(Copying(message.1.as_ref())).expect("a vote")
    }

    #[test]
    fn a_members_vote_reaches_the_engine_once_per_seat() {
        let keys = keys();
        let members = members(&keys);
        let observer = Seats::verifier(NS, members.clone());
        let big = Seats::signer(NS, members.clone(), keys[0].clone()).expect("member");
        let small = Seats::signer(NS, members, keys[1].clone()).expect("member");
        let from_big = IoBuf::from(vote(&big).encode().to_vec());
        let from_small = IoBuf::from(vote(&small).encode().to_vec());
        let inbox = VecDeque::from(vec![
            (keys[0].public_key(), from_big.clone()),
            (keys[1].public_key(), from_small.clone()),
            // Member 1 relaying member 0's vote: not its own seat, passed on as is.
            (keys[1].public_key(), from_big.clone()),
            // Member 0 sending its vote again: passed on, not copied again.
            (keys[0].public_key(), from_big.clone()),
            (keys[2].public_key(), IoBuf::from(vec![7u8; 3])),
        ]);
        let sent: Sent = Arc::default();
        let (_, mut receiver) = votes(
            observer.clone(),
            FakeSender { sent },
            FakeReceiver { inbox },
        );
        let got: Vec<_> = (0..7)
            .map(|_| block_on(receiver.recv()).expect("a message"))
            .collect();
        // Member 0's vote, then its copies at its two derived seats, each from that seat.
        assert_eq!(got[0], (keys[0].public_key(), from_big.clone()));
        let derived = observer.derived_seats(observer.seat_of(&keys[0].public_key()).unwrap());
        for (copy, (seat, key)) in got[1..3].iter().zip(derived) {
            assert_eq!(&copy.0, key);
            assert_eq!(signer(&decoded(copy)), *seat);
            let Vote::Notarize(n) = decoded(copy) else {
                panic!("a notarize");
            };
            assert!(n.verify(
                &mut <rand::rngs::StdRng as rand::SeedableRng>::seed_from_u64(0),
                &observer,
                &commonware_parallel::Sequential,
            ));
        }
        assert_eq!(got[3], (keys[1].public_key(), from_small));
        assert_eq!(got[4], (keys[1].public_key(), from_big.clone()));
        assert_eq!(got[5], (keys[0].public_key(), from_big));
        assert_eq!(got[6].1.as_ref(), &[7u8; 3][..]);
        assert!(block_on(receiver.recv()).is_err(), "nothing else");
    }

    #[test]
    fn a_member_flooding_distinct_views_has_only_a_window_of_them_copied() {
        // Seven seats, a quorum of five (F = 2): member 0 holds two (one derived), short of
        // the three that always include an honest member's; members 1 to 5 one each.
        let keys: Vec<_> = (0..6).map(ed25519::PrivateKey::from_seed).collect();
        let members = Members::new(
            keys.iter()
                .zip([20u128, 10, 10, 10, 10, 10])
                .map(|(k, p)| (k.public_key(), p)),
        )
        .expect("members");
        let flooder = Seats::signer(NS, members.clone(), keys[0].clone()).expect("member");
        let me = Seats::signer(NS, members.clone(), keys[5].clone()).expect("member");
        assert_eq!(me.honest_witness(), 3);
        let flood: Vec<_> = (1..=400u64)
            .map(|v| {
                (
                    keys[0].public_key(),
                    IoBuf::from(vote_at(&flooder, v).encode().to_vec()),
                )
            })
            .collect();
        let claim = |i: usize, view: u64| {
            let seats = Seats::signer(NS, members.clone(), keys[i].clone()).expect("member");
            (
                keys[i].public_key(),
                IoBuf::from(vote_at(&seats, view).encode().to_vec()),
            )
        };
        // The flood; members 1 and 2 (two seats) at view 200; the flood again; member 3 at
        // view 200 too (three seats: the window moves there); the flood a third time.
        let mut inbox = VecDeque::new();
        inbox.extend(flood.iter().cloned());
        inbox.extend([claim(1, 200), claim(2, 200)]);
        inbox.extend(flood.iter().cloned());
        inbox.push_back(claim(3, 200));
        inbox.extend(flood.iter().cloned());
        let sent: Sent = Arc::default();
        let (mut sender, mut receiver) =
            votes(me.clone(), FakeSender { sent }, FakeReceiver { inbox });
        let mut copied_views = Vec::new();
        while let Ok((from, message)) = block_on(receiver.recv()) {
            if from != keys[0].public_key() && me.holder_key(&from) == Some(&keys[0].public_key()) {
                copied_views.push(decoded(&(from, message)).view().get());
            }
        }
        // First only the views up to 16 ahead of where anyone honest is known to be (nothing
        // voted yet); the flood's own claims (two seats) move nothing, nor do members 1 and
        // 2; with member 3, views 184 to 216 are copied, once each.
        let expected: Vec<u64> = (1..=16).chain(184..=216).collect();
        assert_eq!(copied_views, expected);

        // This node's own vote moves the window too (the flooder's next votes near it).
        let checked = sender.check(Recipients::All).expect("checked");
        assert!(checked
            .send(vote_at(&me, 300).encode().to_vec(), true)
            .accepted());
        receiver.inner.inbox.extend(flood[298..302].iter().cloned());
        let mut copies = 0;
        while let Ok((from, _)) = block_on(receiver.recv()) {
            copies += usize::from(from != keys[0].public_key());
        }
        assert_eq!(copies, 4);
    }

    #[test]
    fn a_nodes_own_vote_counts_at_its_derived_seats_once_sent() {
        let keys = keys();
        let big = Seats::signer(NS, members(&keys), keys[0].clone()).expect("member");
        let sent: Sent = Arc::default();
        let (mut sender, mut receiver) = votes(
            big.clone(),
            FakeSender {
                sent: Arc::clone(&sent),
            },
            FakeReceiver {
                inbox: VecDeque::new(),
            },
        );
        let own = vote(&big).encode().to_vec();
        let checked = sender.check(Recipients::All).expect("checked");
        assert!(checked.send(own.clone(), true).accepted());
        // Sent once to the network, looped back at the two derived seats.
        assert_eq!(sent.lock().unwrap().len(), 1);
        assert_eq!(sent.lock().unwrap()[0].1, own);
        let derived = big.derived_seats(big.seat_of(&keys[0].public_key()).unwrap());
        for (seat, key) in derived {
            let copy = block_on(receiver.recv()).expect("a copy");
            assert_eq!(&copy.0, key);
            assert_eq!(signer(&decoded(&copy)), *seat);
        }
    }

    #[test]
    fn a_request_to_a_derived_seat_goes_to_its_member_and_is_answered_by_the_seat() {
        let keys = keys();
        let members = members(&keys);
        let me = Seats::signer(NS, members.clone(), keys[1].clone()).expect("member");
        let big_seat = me.seat_of(&keys[0].public_key()).unwrap();
        let derived_key = me.derived_seats(big_seat)[0].1.clone();
        let answer = |id: u64, kind: u8| {
            let mut m = id.to_be_bytes().to_vec();
            m.push(kind);
            m.extend_from_slice(b"data");
            IoBuf::from(m)
        };
        let inbox = VecDeque::from(vec![
            (keys[0].public_key(), answer(41, 1)),
            (keys[0].public_key(), answer(99, 1)),
            (keys[0].public_key(), answer(41, 1)),
        ]);
        let sent: Sent = Arc::default();
        let (mut sender, mut receiver) = requests(
            me.clone(),
            FakeSender {
                sent: Arc::clone(&sent),
            },
            FakeReceiver { inbox },
        );
        let checked = sender
            .check(Recipients::One(derived_key.clone()))
            .expect("checked");
        assert_eq!(checked.recipients(), vec![derived_key.clone()]);
        let mut request = 41u64.to_be_bytes().to_vec();
        request.extend_from_slice(&[0, 1, 2, 3]);
        assert!(checked.send(request, true).accepted());
        let (to, _) = sent.lock().unwrap()[0].clone();
        assert!(matches!(to, Recipients::One(k) if k == keys[0].public_key()));
        // The answer to request 41 comes from the seat asked; another id from the member;
        // an answer is matched once.
        assert_eq!(block_on(receiver.recv()).unwrap().0, derived_key);
        assert_eq!(block_on(receiver.recv()).unwrap().0, keys[0].public_key());
        assert_eq!(block_on(receiver.recv()).unwrap().0, keys[0].public_key());

        // A node asking its own derived seat is refused at once, and nothing is sent.
        let big = Seats::signer(NS, members, keys[0].clone()).expect("member");
        let own_derived = big.derived_seats(big_seat)[0].1.clone();
        let sent: Sent = Arc::default();
        let (mut sender, _) = requests(
            big,
            FakeSender {
                sent: Arc::clone(&sent),
            },
            FakeReceiver {
                inbox: VecDeque::new(),
            },
        );
        let checked = sender.check(Recipients::One(own_derived)).expect("checked");
        assert!(checked.recipients().is_empty());
        assert!(matches!(
            checked.send(vec![0u8; 9], true),
            Unreliable::Rejected
        ));
        assert!(sent.lock().unwrap().is_empty());
    }
}
