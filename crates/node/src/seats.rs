//! Votes weigh by stake: the vote scheme of every epoch's simplex engine, in which each member
//! holds as many participant *seats* as its stake buys (`staking::seats`), and signs for all
//! of them with its one Ed25519 key.
//!
//! simplex counts a quorum as `2f + 1` participants, each voting once. Stake cannot be given
//! to it as a weight, so it is given as participants: a member with three seats is three
//! participants, its own consensus key and two *seat keys* derived from it (public,
//! deterministic, and never used to sign: anybody can compute their private keys, and no
//! signature by one is ever checked). The engine then counts seats, and its quorum, `2F + 1`
//! seats, is more than two thirds of the stake (to within the apportionment's rounding).
//!
//! - **Signatures are the member's.** A member signs once, at its own key's seat. Its vote
//!   stands for each of its seats: a node that receives it hands the engine one copy per seat,
//!   each naming that seat as its signer with the member's signature (`crate::seat_net`).
//!   [`Seats`] checks an attestation at any seat against the key of the member holding it,
//!   and checks each member's signature once however many seats it covers.
//! - **Certificates are per member.** A certificate is commonware's Ed25519 certificate over
//!   the *members* (a bitmap of members, one signature each), so it does not grow with seats
//!   and encodes exactly as before; it verifies when its signers hold a quorum of seats. The
//!   finalizations nodes keep and serve (catch-up, snapshots) are checked the same way.
//! - **Attributable.** A seat's vote is its member's signature, so evidence (double signing,
//!   invalid proposals) and the blocks' vote records name the member ([`Seats::member_vote`]),
//!   in the plain Ed25519 scheme exec verifies with.
//! - **Equal stakes** give every member one seat: the engine sees exactly the members, as
//!   before seats.
//!
//! Seat keys are derived from the member's key and the seat's number (`keccak256("cowboy/seat"
//! ‖ key ‖ seat ‖ attempt)` as an Ed25519 seed); a derived key equal to a real member's or to
//! an earlier seat key (which a registrant could arrange, the derivation being public) takes
//! the next attempt, so the set always builds, identically on every node.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, OnceLock};

use commonware_codec::{Copying, DecodeExt, Encode, Read};
use commonware_consensus::simplex::scheme::ed25519::Scheme as MemberScheme;
use commonware_consensus::simplex::scheme::Namespace;
use commonware_consensus::simplex::types::{
    Activity, ConflictingFinalize, ConflictingNotarize, Finalization, Finalize, Notarize, Nullify,
    NullifyFinalize, Subject,
};
use commonware_cryptography::certificate::{
    self, AssemblyError, Attestation, Membership, Signers, Verification,
};
use commonware_cryptography::ed25519::certificate::{Certificate, Generic};
use commonware_cryptography::{ed25519, Digest, Signer as _};
use commonware_parallel::Strategy;
use commonware_utils::iter::NonEmpty;
use commonware_utils::ordered::{Quorum as _, Set};
use commonware_utils::{N3f1, Participant, TryFromIterator};
use cowboy_exec::system::staking::seats::{seat_quorum, seats, total_seats};
use cowboy_types::keccak256;
use rand_core::CryptoRng;

/// An epoch's voters: the members' consensus keys (in simplex's order) and their powers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Members {
    keys: Set<ed25519::PublicKey>,
    /// Each member's power, in the order of `keys`.
    powers: Vec<u128>,
}

impl Members {
    /// The members `(key, power)`, in any order; `None` if there are none or a key is named
    /// twice.
    pub fn new(members: impl IntoIterator<Item = (ed25519::PublicKey, u128)>) -> Option<Self> {
        let by_key: BTreeMap<ed25519::PublicKey, u128> = members
            .into_iter()
            .try_fold(BTreeMap::new(), |mut m, (k, p)| {
                m.insert(k, p).is_none().then_some(m)
            })?;
        if by_key.is_empty() {
            return None;
        }
        let powers = by_key.values().copied().collect();
        let keys = Set::try_from_iter(by_key.into_keys()).ok()?;
        Some(Members { keys, powers })
    }

    /// The members' keys, in simplex's order.
    pub fn keys(&self) -> &Set<ed25519::PublicKey> {
        &self.keys
    }

    /// Each member's `(key, power)`.
    pub fn powers(&self) -> impl Iterator<Item = (&ed25519::PublicKey, u128)> {
        self.keys.iter().zip(self.powers.iter().copied())
    }
}

/// Members of equal power (one seat each): a set as commonware's plain Ed25519 scheme sees it.
impl From<Set<ed25519::PublicKey>> for Members {
    fn from(keys: Set<ed25519::PublicKey>) -> Self {
        let powers = vec![1; keys.len()];
        Members { keys, powers }
    }
}

/// What an epoch's seats are: each member's count and the quorum, at once; the seats
/// themselves (the derived keys, an Ed25519 key derivation each: 40–55 ms for ~2,100 seats)
/// only when first needed, which a check of a kept certificate never does.
#[derive(Debug)]
struct Plan {
    members: Members,
    /// Each member's seats, by member index (exec's apportionment).
    weight: Vec<u32>,
    /// All seats.
    total: u64,
    /// Seats a certificate needs.
    quorum: u64,
    layout: OnceLock<Layout>,
}

impl Plan {
    fn new(members: Members) -> Plan {
        let weight = seats(&members.powers);
        let total = total_seats(&weight);
        Plan {
            members,
            weight,
            total,
            quorum: seat_quorum(total),
            layout: OnceLock::new(),
        }
    }

    fn layout(&self) -> &Layout {
        self.layout
            .get_or_init(|| layout(&self.members, &self.weight))
    }
}

/// The seats of an epoch's set, in simplex's order.
#[derive(Debug)]
struct Layout {
    /// Every seat's key, in simplex's order: the members' own keys and their seat keys.
    seats: Set<ed25519::PublicKey>,
    /// The member holding each seat (an index into the member set).
    holder: Vec<u32>,
    /// Whether each seat is its holder's own key (where the member signs).
    own: Vec<bool>,
    /// Each member's derived seats and their keys, by member index.
    derived: Vec<Vec<(Participant, ed25519::PublicKey)>>,
}

/// The vote scheme: seats over the members of an epoch's set (see the module docs).
#[derive(Clone, Debug)]
pub struct Seats {
    /// The members' keys (and this node's signing key, if a member): every signature check.
    members: Generic<Namespace>,
    plan: Arc<Plan>,
    /// This node's own seat, if a member.
    me: Option<Participant>,
}

impl Seats {
    /// The scheme of a member signing with `key` among `members` (each `(key, power)`), or
    /// `None` if `key` is not one of them or the members do not form a set.
    pub fn signer(namespace: &[u8], members: Members, key: ed25519::PrivateKey) -> Option<Self> {
        let keys = members.keys.clone();
        let plan = Plan::new(members);
        let me = plan.layout().seats.index(&key.public_key())?;
        Some(Seats {
            members: Generic::signer(namespace, keys, key)?,
            plan: Arc::new(plan),
            me: Some(me),
        })
    }

    /// The scheme of a node that only verifies (an observer, or a check of a kept
    /// certificate: that needs only the members and their seat counts, and never lays the
    /// seats out).
    pub fn verifier(namespace: &[u8], members: Members) -> Self {
        Seats {
            members: Generic::verifier(namespace, members.keys.clone()),
            plan: Arc::new(Plan::new(members)),
            me: None,
        }
    }

    fn layout(&self) -> &Layout {
        self.plan.layout()
    }

    /// The seat keyed `key`, if it is one.
    pub fn seat_of(&self, key: &ed25519::PublicKey) -> Option<Participant> {
        self.layout().seats.index(key)
    }

    /// The member holding `seat`, if the seat exists.
    pub fn holder(&self, seat: Participant) -> Option<Participant> {
        let i = usize::try_from(seat.get()).ok()?;
        self.layout().holder.get(i).map(|m| Participant::new(*m))
    }

    /// The member key holding the seat keyed `key` (a member's own key holds its own seat).
    pub fn holder_key(&self, key: &ed25519::PublicKey) -> Option<&ed25519::PublicKey> {
        let seat = self.layout().seats.index(key)?;
        self.members.participants.key(self.holder(seat)?)
    }

    /// The member whose own seat is `seat`: `None` for a derived seat (its votes are copies of
    /// the member's, made by this node).
    pub fn own_seat_member(&self, seat: Participant) -> Option<Participant> {
        let i = usize::try_from(seat.get()).ok()?;
        self.layout()
            .own
            .get(i)
            .copied()
            .filter(|own| *own)
            .and(self.holder(seat))
    }

    /// The derived seats of the member holding the own seat `seat` (empty for a member with
    /// one seat or a seat that is not a member's own).
    pub fn derived_seats(&self, seat: Participant) -> &[(Participant, ed25519::PublicKey)] {
        self.own_seat_member(seat)
            .and_then(|m| self.layout().derived.get(usize::try_from(m.get()).ok()?))
            .map_or(&[], Vec::as_slice)
    }

    /// Whether any member holds more than its own seat (else no vote is ever copied).
    pub fn has_derived_seats(&self) -> bool {
        self.plan.total > self.plan.weight.len() as u64
    }

    /// Seats that always include an honest member's: one more than the `F` faulty seats a
    /// quorum (`2F + 1` of `3F + 1`) tolerates.
    pub fn honest_witness(&self) -> u64 {
        self.plan.total - self.plan.quorum + 1
    }

    /// The vote at `attestation`'s seat as the plain Ed25519 scheme of the members types it
    /// (the member's index, the same signature): what evidence and vote records carry. `None`
    /// for a derived seat, whose vote is a copy of its member's.
    pub fn member_vote(
        &self,
        attestation: &Attestation<Seats>,
    ) -> Option<Attestation<MemberScheme>> {
        let member = self.own_seat_member(attestation.signer)?;
        Some(Attestation {
            signer: member,
            signature: attestation.signature.clone(),
        })
    }

    /// `activity` at seats as the members' (see [`Seats::member_vote`]): the votes of a
    /// member's own seat and the certificates; `None` for what a derived seat reports (a copy
    /// of its member's) and for what the node does not use.
    pub fn member_activity<D: Digest>(
        &self,
        activity: Activity<Seats, D>,
    ) -> Option<Activity<MemberScheme, D>> {
        let notarize = |n: Notarize<Seats, D>| {
            Some(Notarize {
                attestation: self.member_vote(&n.attestation)?,
                proposal: n.proposal,
            })
        };
        let finalize = |f: Finalize<Seats, D>| {
            Some(Finalize {
                attestation: self.member_vote(&f.attestation)?,
                proposal: f.proposal,
            })
        };
        let nullify = |n: Nullify<Seats>| {
            Some(Nullify {
                attestation: self.member_vote(&n.attestation)?,
                round: n.round,
            })
        };
        // Evidence keeps its parts private; it encodes as its two votes, one after the other.
        fn parts<A: Read<Cfg = ()>, B: Read<Cfg = ()>>(bytes: &[u8]) -> Option<(A, B)> {
            let mut buf = Copying(bytes);
            let a = A::read_cfg(&mut buf, &()).ok()?;
            let b = B::read_cfg(&mut buf, &()).ok()?;
            buf.0.is_empty().then_some((a, b))
        }
        Some(match activity {
            Activity::Notarize(n) => Activity::Notarize(notarize(n)?),
            Activity::Finalization(f) => Activity::Finalization(Finalization {
                proposal: f.proposal,
                certificate: f.certificate,
            }),
            Activity::ConflictingNotarize(c) => {
                let (a, b) = parts::<Notarize<Seats, D>, Notarize<Seats, D>>(&c.encode())?;
                Activity::ConflictingNotarize(ConflictingNotarize::new(notarize(a)?, notarize(b)?))
            }
            Activity::ConflictingFinalize(c) => {
                let (a, b) = parts::<Finalize<Seats, D>, Finalize<Seats, D>>(&c.encode())?;
                Activity::ConflictingFinalize(ConflictingFinalize::new(finalize(a)?, finalize(b)?))
            }
            Activity::NullifyFinalize(c) => {
                let (a, b) = parts::<Nullify<Seats>, Finalize<Seats, D>>(&c.encode())?;
                Activity::NullifyFinalize(NullifyFinalize::new(nullify(a)?, finalize(b)?))
            }
            _ => return None,
        })
    }

    /// Seats of the distinct members `signers` (member indexes).
    fn seats_of(&self, signers: impl Iterator<Item = Participant>) -> u64 {
        signers
            .filter_map(|m| self.plan.weight.get(usize::try_from(m.get()).ok()?))
            .map(|w| u64::from(*w))
            .sum()
    }

    /// `attestation` re-indexed to its seat's member, or `None` for an unknown seat.
    fn at_member(&self, attestation: &Attestation<Seats>) -> Option<Attestation<Seats>> {
        Some(Attestation {
            signer: self.holder(attestation.signer)?,
            signature: attestation.signature.clone(),
        })
    }
}

/// The seats of `members`, member `m` holding `weight[m]` (see the module docs).
fn layout(members: &Members, weight: &[u32]) -> Layout {
    let mut holder_of: BTreeMap<ed25519::PublicKey, (u32, bool)> = BTreeMap::new();
    for (m, key) in members.keys.iter().enumerate() {
        holder_of.insert(key.clone(), (m as u32, true));
    }
    for (m, key) in members.keys.iter().enumerate() {
        for seat in 1..weight[m] {
            // A taken key takes the next attempt. 2^32 attempts all taken cannot happen
            // (there are at most `MAX_SEATS + n` seats), so every member holds exactly its
            // apportioned seats, which certificates are counted by.
            let derived = (0u32..=u32::MAX)
                .map(|attempt| seat_key(key, seat, attempt))
                .find(|k| !holder_of.contains_key(k))
                .unwrap_or_else(|| key.clone());
            holder_of.entry(derived).or_insert((m as u32, false));
        }
    }
    // The keys are a map's: sorted and distinct, so a seat's index is its place in the map.
    let seats = Set::from_iter_dedup(holder_of.keys().cloned());
    let n = members.keys.len();
    let (mut holder, mut own) = (
        Vec::with_capacity(seats.len()),
        Vec::with_capacity(seats.len()),
    );
    let mut derived = vec![Vec::new(); n];
    for (seat, (key, (m, is_own))) in holder_of.into_iter().enumerate() {
        holder.push(m);
        own.push(is_own);
        if !is_own {
            derived[m as usize].push((Participant::from_usize(seat), key));
        }
    }
    Layout {
        seats,
        holder,
        own,
        derived,
    }
}

/// Derived seat `seat` of the member keyed `member`, at `attempt` (see the module docs).
fn seat_key(member: &ed25519::PublicKey, seat: u32, attempt: u32) -> ed25519::PublicKey {
    let seed = keccak256(
        &[
            &b"cowboy/seat"[..],
            member.as_ref(),
            &seat.to_be_bytes(),
            &attempt.to_be_bytes(),
        ]
        .concat(),
    );
    // Any 32 bytes are an Ed25519 seed: decoding cannot fail.
    ed25519::PrivateKey::decode(Copying(&seed.0[..]))
        .map(|k| k.public_key())
        .unwrap_or_else(|_| ed25519::PrivateKey::from_seed(u64::from(seat)).public_key())
}

impl certificate::Verifier for Seats {
    type Subject<'a, D: Digest> = Subject<'a, D>;
    type Faults = N3f1;
    type PublicKey = ed25519::PublicKey;
    type Certificate = Certificate;

    /// A certificate of distinct members whose seats reach the quorum, each signature valid.
    fn verify_certificate<R, D>(
        &self,
        rng: &mut R,
        subject: Subject<'_, D>,
        certificate: &Certificate,
        strategy: &impl Strategy,
    ) -> bool
    where
        R: CryptoRng,
        D: Digest,
    {
        let members = self.members.participants.len();
        if certificate.signers.len() != members
            || certificate.signers.count() != certificate.signatures.len()
            || self.seats_of(certificate.signers.iter()) < self.plan.quorum
        {
            return false;
        }
        let votes: Vec<Attestation<Seats>> = certificate
            .signers
            .iter()
            .zip(&certificate.signatures)
            .map(|(signer, signature)| Attestation {
                signer,
                signature: signature.clone(),
            })
            .collect();
        let checked = self
            .members
            .verify_attestations::<Seats, _, _>(rng, subject, votes, strategy);
        checked.invalid.is_empty() && checked.verified.len() == certificate.signatures.len()
    }

    fn is_batchable() -> bool {
        true
    }

    fn max_certificate_size(participants: u32) -> usize {
        Generic::<Namespace>::max_certificate_size(participants)
    }

    fn certificate_codec_config(&self) -> usize {
        self.members.certificate_codec_config()
    }

    fn certificate_codec_config_unbounded() -> usize {
        Generic::<Namespace>::certificate_codec_config_unbounded()
    }
}

impl certificate::Scheme for Seats {
    type Signature = ed25519::Signature;

    fn me(&self) -> Option<Membership> {
        self.me.map(Membership::Signer)
    }

    fn participants(&self) -> &Set<ed25519::PublicKey> {
        &self.layout().seats
    }

    /// The member's signature, at its own seat.
    fn sign<D: Digest>(&self, subject: Subject<'_, D>) -> Option<Attestation<Self>> {
        let signed: Attestation<Seats> = self.members.sign(subject)?;
        Some(Attestation {
            signer: self.me?,
            signature: signed.signature,
        })
    }

    fn verify_attestation<R, D>(
        &self,
        _: &mut R,
        subject: Subject<'_, D>,
        attestation: &Attestation<Self>,
        _: &impl Strategy,
    ) -> bool
    where
        R: CryptoRng,
        D: Digest,
    {
        self.at_member(attestation)
            .is_some_and(|a| self.members.verify_attestation(subject, &a))
    }

    /// Each member's signature is checked once, however many of its seats carry it (in one
    /// batch when a member has one signature among them; a member showing two different
    /// signatures, of which at most one can be valid, has each checked on its own).
    fn verify_attestations<R, D, I>(
        &self,
        rng: &mut R,
        subject: Subject<'_, D>,
        attestations: I,
        strategy: &impl Strategy,
    ) -> Verification<Self>
    where
        R: CryptoRng,
        D: Digest,
        I: IntoIterator<Item = Attestation<Self>>,
    {
        // Group the seats by (member, signature).
        let mut invalid = Vec::new();
        let mut groups: BTreeMap<(u32, Vec<u8>), Vec<Attestation<Seats>>> = BTreeMap::new();
        for attestation in attestations {
            let (Some(member), Some(signature)) =
                (self.holder(attestation.signer), attestation.signature.get())
            else {
                invalid.push(attestation.signer);
                continue;
            };
            let key = (member.get(), signature.encode().to_vec());
            groups.entry(key).or_default().push(attestation);
        }
        let mut per_member: BTreeMap<u32, usize> = BTreeMap::new();
        for (member, _) in groups.keys() {
            *per_member.entry(*member).or_default() += 1;
        }
        // One representative per group: batched where the member is unambiguous.
        let mut batch = Vec::new();
        let mut valid: BTreeSet<(u32, Vec<u8>)> = BTreeSet::new();
        for (key, seats) in &groups {
            let representative = Attestation {
                signer: Participant::new(key.0),
                signature: seats[0].signature.clone(),
            };
            if per_member.get(&key.0) == Some(&1) {
                batch.push(representative);
            } else if self.members.verify_attestation(subject, &representative) {
                valid.insert(key.clone());
            }
        }
        let checked = self
            .members
            .verify_attestations::<Seats, _, _>(rng, subject, batch, strategy);
        for a in checked.verified {
            if let Some(signature) = a.signature.get() {
                valid.insert((a.signer.get(), signature.encode().to_vec()));
            }
        }
        let mut verified = Vec::new();
        for (key, seats) in groups {
            if valid.contains(&key) {
                verified.extend(seats);
            } else {
                invalid.extend(seats.into_iter().map(|a| a.signer));
            }
        }
        invalid.sort();
        invalid.dedup();
        Verification::new(verified, invalid)
    }

    fn optimistic_assemble<'a, R, D, I, J>(
        &self,
        rng: &mut R,
        subject: Subject<'_, D>,
        pending: I,
        verified: J,
        strategy: &impl Strategy,
    ) -> Result<Certificate, Verification<Self>>
    where
        R: CryptoRng,
        D: Digest,
        I: IntoIterator<Item = Attestation<Self>>,
        I::IntoIter: ExactSizeIterator + Send,
        J: IntoIterator<Item = &'a Attestation<Self>>,
        J::IntoIter: Send,
    {
        certificate::optimistic_assemble::<Self, _, D, _, _>(
            self, rng, subject, pending, verified, strategy,
        )
    }

    /// One signature per member (the first seen among its seats), when the members' seats
    /// reach the quorum.
    fn assemble<I>(
        &self,
        attestations: NonEmpty<I>,
        _: &impl Strategy,
    ) -> Result<Certificate, AssemblyError>
    where
        I: Iterator<Item = Attestation<Self>> + Send,
    {
        let mut by_member: BTreeMap<u32, Attestation<Seats>> = BTreeMap::new();
        for attestation in attestations {
            let seat = attestation.signer;
            let member = self
                .at_member(&attestation)
                .ok_or(AssemblyError::UnknownSigner(seat))?;
            if member.signature.get().is_none() {
                return Err(AssemblyError::MalformedSignature(seat));
            }
            by_member.entry(member.signer.get()).or_insert(member);
        }
        let got = self.seats_of(by_member.keys().map(|m| Participant::new(*m)));
        if got < self.plan.quorum {
            let clamp = |x: u64| u32::try_from(x).unwrap_or(u32::MAX);
            return Err(AssemblyError::InsufficientAttestations(
                clamp(self.plan.quorum),
                clamp(got),
            ));
        }
        let signers = Signers::try_from((
            &self.members.participants,
            by_member.keys().map(|m| Participant::new(*m)),
        ))?;
        Ok(Certificate {
            signers,
            signatures: by_member.into_values().map(|a| a.signature).collect(),
        })
    }

    fn is_attributable() -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use commonware_consensus::simplex::types::Proposal;
    use commonware_consensus::types::{Epoch, Round, View};
    use commonware_cryptography::certificate::{Scheme as _, Verifier as _};
    use commonware_cryptography::sha256;
    use commonware_parallel::Sequential;

    const NS: &[u8] = b"seats";

    fn key(i: u64) -> ed25519::PrivateKey {
        ed25519::PrivateKey::from_seed(i)
    }

    /// Four members: the first with three times the others' stake.
    fn members() -> (Vec<ed25519::PrivateKey>, Members) {
        let keys: Vec<_> = (0..4).map(key).collect();
        let powers = [30u128, 10, 10, 10];
        let members =
            Members::new(keys.iter().zip(powers).map(|(k, p)| (k.public_key(), p))).unwrap();
        (keys, members)
    }

    fn proposal() -> Proposal<sha256::Digest> {
        Proposal::new(
            Round::new(Epoch::new(0), View::new(7)),
            View::new(6),
            sha256::Digest([9; 32]),
        )
    }

    fn rng() -> rand::rngs::StdRng {
        rand::SeedableRng::seed_from_u64(1)
    }

    /// The votes at every seat of the members `who` (indexes into `keys`), as a node hands
    /// them to its engine: each member's own vote and its copies.
    fn votes(
        keys: &[ed25519::PrivateKey],
        members: &Members,
        who: &[usize],
    ) -> Vec<Attestation<Seats>> {
        let mut out = Vec::new();
        for &i in who {
            let s = Seats::signer(NS, members.clone(), keys[i].clone()).unwrap();
            let own = s
                .sign::<sha256::Digest>(Subject::Notarize {
                    proposal: &proposal(),
                })
                .unwrap();
            for (seat, _) in s.derived_seats(own.signer) {
                out.push(Attestation {
                    signer: *seat,
                    signature: own.signature.clone(),
                });
            }
            out.push(own);
        }
        out
    }

    #[test]
    fn a_member_holds_seats_in_proportion_to_its_stake() {
        let (keys, members) = members();
        let s = Seats::verifier(NS, members.clone());
        assert_eq!(s.participants().len(), 6);
        let big = members.keys().index(&keys[0].public_key()).unwrap();
        assert_eq!(s.plan.weight[usize::from(big)], 3);
        let own = s.seat_of(&keys[0].public_key()).unwrap();
        assert_eq!(s.own_seat_member(own), Some(big));
        let derived = s.derived_seats(own);
        assert_eq!(derived.len(), 2);
        for (seat, k) in derived {
            assert_eq!(s.holder(*seat), Some(big));
            assert_eq!(s.own_seat_member(*seat), None);
            assert_eq!(s.holder_key(k), Some(&keys[0].public_key()));
        }
        // Every node lays the seats out alike.
        let again = Seats::verifier(NS, members);
        assert_eq!(again.participants(), s.participants());
        // Equal stakes: the members are the seats.
        let equal: Members = members_equal(&keys);
        assert_eq!(
            Seats::verifier(NS, equal.clone()).participants(),
            equal.keys()
        );
    }

    fn members_equal(keys: &[ed25519::PrivateKey]) -> Members {
        Members::new(keys.iter().map(|k| (k.public_key(), 5))).unwrap()
    }

    #[test]
    fn a_certificate_needs_a_quorum_of_seats_not_of_members() {
        let (keys, members) = members();
        let s = Seats::verifier(NS, members.clone());
        let voted = proposal();
        let subject = || Subject::Notarize { proposal: &voted };
        // Six seats, a quorum of five: the three small members (three of four members, what
        // counting members would accept) hold three seats.
        let small = votes(&keys, &members, &[1, 2, 3]);
        let checked = s.verify_attestations::<_, sha256::Digest, _>(
            &mut rng(),
            subject(),
            small.clone(),
            &Sequential,
        );
        assert_eq!(checked.verified.len(), 3);
        assert!(checked.invalid.is_empty());
        let short = s.assemble(NonEmpty::try_new(small.into_iter()).unwrap(), &Sequential);
        assert_eq!(short, Err(AssemblyError::InsufficientAttestations(5, 3)));
        // The large member and one small one: four seats, still short.
        let four = votes(&keys, &members, &[0, 1]);
        assert!(s
            .assemble(NonEmpty::try_new(four.into_iter()).unwrap(), &Sequential)
            .is_err());
        // The large member and two small ones: five seats, one signature each.
        let five = votes(&keys, &members, &[0, 1, 2]);
        let checked = s.verify_attestations::<_, sha256::Digest, _>(
            &mut rng(),
            subject(),
            five.clone(),
            &Sequential,
        );
        assert_eq!(checked.verified.len(), 5);
        let certificate = s
            .assemble(NonEmpty::try_new(five.into_iter()).unwrap(), &Sequential)
            .unwrap();
        assert_eq!(certificate.signatures.len(), 3);
        assert!(s.verify_certificate::<_, sha256::Digest>(
            &mut rng(),
            subject(),
            &certificate,
            &Sequential
        ));
        // The same certificate over another proposal does not verify.
        let other = Proposal::new(proposal().round, View::new(6), sha256::Digest([8; 32]));
        assert!(!s.verify_certificate::<_, sha256::Digest>(
            &mut rng(),
            Subject::Notarize { proposal: &other },
            &certificate,
            &Sequential
        ));
        // A certificate of the three small members, made by hand, is refused: three seats.
        let plain = MemberScheme::verifier(NS, members.keys().clone());
        let small_votes: Vec<Notarize<MemberScheme, sha256::Digest>> = (1..4)
            .map(|i| {
                let m = MemberScheme::signer(NS, members.keys().clone(), keys[i].clone()).unwrap();
                Notarize::sign(&m, proposal()).unwrap()
            })
            .collect();
        let by_count = commonware_consensus::simplex::types::Notarization::from_notarizes(
            &plain,
            NonEmpty::try_new(small_votes.iter()).unwrap(),
            &Sequential,
        )
        .expect("three of four members is a count quorum");
        assert!(!s.verify_certificate::<_, sha256::Digest>(
            &mut rng(),
            subject(),
            &by_count.certificate,
            &Sequential
        ));
        // A node checking a kept certificate never lays the seats out (no derived key).
        let checker = Seats::verifier(NS, members);
        assert!(checker.verify_certificate::<_, sha256::Digest>(
            &mut rng(),
            subject(),
            &certificate,
            &Sequential
        ));
        assert!(checker.plan.layout.get().is_none());
    }

    #[test]
    fn a_bad_signature_at_a_derived_seat_is_refused_with_its_seat() {
        let (keys, members) = members();
        let s = Seats::verifier(NS, members.clone());
        let mut all = votes(&keys, &members, &[0, 1]);
        // A forged copy at one of member 0's derived seats (member 1's signature).
        let own0 = s.seat_of(&keys[0].public_key()).unwrap();
        let forged_seat = s.derived_seats(own0)[0].0;
        let other_sig = all
            .iter()
            .find(|a| s.holder(a.signer) != s.holder(own0))
            .unwrap()
            .signature
            .clone();
        for a in all.iter_mut() {
            if a.signer == forged_seat {
                a.signature = other_sig.clone();
            }
        }
        let checked = s.verify_attestations::<_, sha256::Digest, _>(
            &mut rng(),
            Subject::Notarize {
                proposal: &proposal(),
            },
            all,
            &Sequential,
        );
        assert_eq!(checked.invalid, vec![forged_seat]);
        assert_eq!(checked.verified.len(), 3);
    }

    #[test]
    fn activity_is_reported_per_member_in_the_plain_scheme() {
        let (keys, members) = members();
        let s = Seats::signer(NS, members.clone(), keys[0].clone()).unwrap();
        let own = Notarize::sign(&s, proposal()).unwrap();
        let derived = s.derived_seats(own.attestation.signer)[0].0;
        let copy = Notarize {
            proposal: proposal(),
            attestation: Attestation {
                signer: derived,
                signature: own.attestation.signature.clone(),
            },
        };
        assert!(s.member_activity(Activity::Notarize(copy)).is_none());
        let Some(Activity::Notarize(member)) = s.member_activity(Activity::Notarize(own.clone()))
        else {
            panic!("the own seat's vote is reported");
        };
        assert_eq!(
            member.attestation.signer,
            members.keys().index(&keys[0].public_key()).unwrap()
        );
        let plain = MemberScheme::verifier(NS, members.keys().clone());
        assert!(member.verify(&mut rng(), &plain, &Sequential));
        // Double signing: evidence exec can check.
        let other = Proposal::new(proposal().round, View::new(6), sha256::Digest([8; 32]));
        let second = Notarize::sign(&s, other).unwrap();
        let conflict = ConflictingNotarize::new(own, second);
        let Some(Activity::ConflictingNotarize(evidence)) =
            s.member_activity(Activity::ConflictingNotarize(conflict))
        else {
            panic!("evidence is reported");
        };
        assert!(evidence.verify(&mut rng(), &plain, &Sequential));
    }
}
