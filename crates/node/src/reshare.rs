//! The node's side of the beacon's resharing (issue 17 item 3, phase 2; exec's `reshare`
//! holds the rule; the README, "Resharing"): one dealer and/or player [`Session`] per round,
//! its messages for p2p channel [`RESHARE_CHANNEL`], and the atomic replacement of the
//! share file.
//!
//! **A session.** For round `r` (exec's [`Round`], read from committed state when epoch
//! `r − 1`'s last block is final) a node that is one of the round's dealers deals
//! (`Dealer::start` with its current share, its randomness
//! `ChaCha20(keccak256("cowboy-reshare-dealer" ‖ ed25519 seed ‖ r))`, so a restarted dealer
//! deals the very same polynomial, as commonware's module doc asks) and one that is a player
//! answers dealings with acks. [`Session::outgoing`] is what to (re)send now: a dealer's
//! dealing to each player that has not acked, and once finalized ([`Session::finalize`],
//! at offset `E/4` of the epoch) its signed log to everyone. [`Session::receive`] handles a
//! peer's message and returns the replies (a player's ack, again on a repeated dealing, so a
//! lost ack costs one resend). [`Session::logs`] are the logs a leader may carry (exec's
//! `select_logs` keeps the valid ones). [`Session::finish`] runs `Player::finalize` over the
//! logs the chain recorded and returns the new share.
//!
//! **Bounded.** A message is a tag, the round and one commonware encoding, at most
//! [`max_message_bytes`] for the round's size; anything else, another round's message, or a
//! message of a kind the sender's role cannot send is dropped and counted
//! ([`Session::invalid`]). A player keeps one dealing per dealer (commonware drops repeats);
//! a node keeps the first log per dealer that verifies for the round (one signature check
//! per log received until then).
//!
//! **A restarted player keeps its dealings.** A dealer that has a player's ack does not send
//! it the dealing again, so a player that restarts during a round would lack it and could not
//! finish. With a journal directory, a player appends each dealing it acks to
//! `reshare-<round>.dealings` there (mode 0600: the dealings are secret shares), synced
//! *before* the ack leaves; a session started again for the same round replays the journal,
//! so the restarted player holds every dealing it acked and finishes with its share. A torn
//! last record (a crash mid-append) was never acked and is ignored. Journals of earlier rounds
//! are deleted when a round starts, and the round's own once its share is kept
//! ([`Session::discard_journal`]). Beside the journal the session keeps a record of its round
//! (`reshare-<round>.round`: exec's [`Round::encode`]), so a player that crashes after the
//! outcome block, before its share is written, can still rebuild the round the chain no longer
//! describes and finish it ([`Session::resume`]).
//!
//! **Wired** by [`crate::reshare_task`]: it starts a session when a round's epoch begins,
//! carries its messages on the channel, hands its logs to the chain's proposals and switches
//! the beacon once the outcome block is final.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use commonware_codec::{Copying, Decode, DecodeExt, Encode, FixedSize};
use commonware_cryptography::bls12381::dkg::feldman_desmedt::{
    Dealer, DealerPrivMsg, DealerPubMsg, Player, PlayerAck,
};
use commonware_cryptography::bls12381::primitives::group::Share;
use commonware_cryptography::{ed25519, Signer};
use commonware_runtime::Quota;
use cowboy_exec::beacon::Variant;
use cowboy_exec::reshare::{self, Faults, Round, SignedLog};
use cowboy_types::genesis::GenesisParams;
use cowboy_types::hash::keccak256_concat;
use rand::SeedableRng;

/// p2p channel of dealings, acks and signed logs.
pub const RESHARE_CHANNEL: u64 = 7;

const DEALING: u8 = 0;
const ACK: u8 = 1;
const LOG: u8 = 2;
/// Tag (1) and round (8, big-endian).
const HEAD: usize = 9;

/// Per-peer quota of the reshare channel: a dealer sends one dealing per player and re-sends
/// to those that have not acked once a second; a player one ack per dealing.
pub fn quota() -> Quota {
    Quota::per_second(std::num::NonZeroU32::new(128).unwrap_or(std::num::NonZeroU32::MIN))
}

/// The largest message of `round`: a signed log (the largest kind) or a dealing.
pub fn max_message_bytes(round: &Round) -> usize {
    let n = round.max_participants();
    HEAD + SignedLog::max_encode_size(n)
        .max(DealerPubMsg::<Variant>::max_encode_size(n) + DealerPrivMsg::SIZE)
}

fn message(tag: u8, round: u64, body: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEAD + body.len());
    out.push(tag);
    out.extend_from_slice(&round.to_be_bytes());
    out.extend_from_slice(body);
    out
}

/// Who a message goes to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum To {
    /// One peer.
    One(ed25519::PublicKey),
    /// Every validator of the round (dealers and players).
    All,
}

/// One round's dealer and/or player state at this node (see the module docs).
pub struct Session {
    round: Round,
    me: ed25519::PublicKey,
    /// Set while dealing (taken by [`Session::finalize`]).
    dealer: Option<Dealer<Variant, ed25519::PrivateKey>>,
    /// The dealing for each player, encoded, while not acked.
    dealings: BTreeMap<ed25519::PublicKey, Vec<u8>>,
    /// This node's signed log, once finalized.
    log: Option<Vec<u8>>,
    /// Set while a player (taken by [`Session::finish`]).
    player: Option<Player<Variant, ed25519::PrivateKey>>,
    /// The ack sent to each dealer, encoded (re-sent on a repeated dealing).
    acks: BTreeMap<ed25519::PublicKey, Vec<u8>>,
    /// The first log that verified from each dealer.
    logs: BTreeMap<ed25519::PublicKey, Vec<u8>>,
    invalid: u64,
    /// Where the dealings this player acks are journaled (see the module docs).
    journal: Option<PathBuf>,
    /// The directory of the journal and of the round's record.
    journal_dir: Option<PathBuf>,
}

/// The dealer randomness of `key` in round `round` (see the module docs).
fn dealer_rng(key: &ed25519::PrivateKey, round: u64) -> rand::rngs::ChaCha20Rng {
    let secret = key.encode();
    let parts: [&[u8]; 3] = [
        b"cowboy-reshare-dealer",
        secret.as_ref(),
        &round.to_be_bytes(),
    ];
    let seed = keccak256_concat(&parts);
    rand::rngs::ChaCha20Rng::from_seed(seed.0)
}

impl Session {
    /// Start round `round` as `key`, with `share` (this node's share of the current sharing,
    /// needed to deal), journaling acked dealings in `journal_dir` if given (and replaying
    /// what an earlier session of the round journaled there). A node that is neither a
    /// dealer with a share nor a player gets `None`.
    pub fn start(
        round: Round,
        key: &ed25519::PrivateKey,
        share: Option<Share>,
        journal_dir: Option<&Path>,
    ) -> Option<Session> {
        let me = key.public_key();
        let is_dealer = round.dealers.position(&me).is_some();
        let is_player = round.players.position(&me).is_some();
        let player = is_player
            .then(|| Player::new(round.info.clone(), key.clone()).ok())
            .flatten();
        let mut dealings = BTreeMap::new();
        let mut dealer = None;
        let mut own = None;
        // A reshare's dealer deals its share of the current sharing; a key generation's deals
        // a fresh secret (its randomness's).
        if is_dealer && (share.is_some() || round.generation) {
            if let Ok((d, pub_msg, privs)) = Dealer::start::<Faults>(
                dealer_rng(key, round.round),
                round.info.clone(),
                key.clone(),
                share.filter(|_| !round.generation),
            ) {
                for (player, priv_msg) in privs {
                    if player == me {
                        own = Some((pub_msg.clone(), priv_msg));
                        continue;
                    }
                    let mut body = priv_msg.encode().to_vec();
                    body.extend_from_slice(&pub_msg.encode());
                    dealings.insert(player, message(DEALING, round.round, &body));
                }
                dealer = Some(d);
            }
        }
        if dealer.is_none() && player.is_none() {
            return None;
        }
        let mut session = Session {
            round,
            me: me.clone(),
            dealer,
            dealings,
            log: None,
            player,
            acks: BTreeMap::new(),
            logs: BTreeMap::new(),
            invalid: 0,
            journal: None,
            journal_dir: None,
        };
        // A dealer that is also a player deals to itself without the network.
        if let (Some((pub_msg, priv_msg)), Some(player)) = (own, session.player.as_mut()) {
            if let Ok(Some(ack)) = player.dealer_message::<Faults>(me.clone(), pub_msg, priv_msg) {
                if let Some(d) = session.dealer.as_mut() {
                    let _ = d.receive_player_ack(me, ack);
                }
            }
        }
        if let (Some(dir), true) = (journal_dir, session.player.is_some()) {
            remove_old_journals(dir, session.round.round);
            keep_round(dir, &session.round);
            let path = journal_path(dir, session.round.round);
            let max = max_message_bytes(&session.round);
            for (from, body) in read_journal(&path, max) {
                if session.round.dealers.position(&from).is_some() {
                    // Acked before the restart: the ack is rebuilt, not sent.
                    session.dealing(&from, &body);
                }
            }
            session.journal = Some(path);
            session.journal_dir = Some(dir.to_path_buf());
        }
        Some(session)
    }

    /// Start again, as `key`, the session of round `round` that a player journaled in `dir`,
    /// after the chain decided the round: the round is rebuilt from the record
    /// [`Session::start`] kept (it can no longer be read from state, whose current sharing is
    /// now the round's own) and the journal replayed, so [`Session::finish`] can still give
    /// the player its share. `share` is the node's share of the sharing the round reshared, if
    /// it still holds it (as a dealer it redeals the same dealing to itself). `None` without
    /// a record of that round.
    pub fn resume(
        params: &GenesisParams,
        round: u64,
        key: &ed25519::PrivateKey,
        share: Option<Share>,
        dir: &Path,
    ) -> Option<Session> {
        let bytes = std::fs::read(round_path(dir, round)).ok()?;
        let rebuilt = Round::decode(params, &bytes).filter(|r| r.round == round)?;
        Session::start(rebuilt, key, share, Some(dir))
    }

    /// Delete this round's journal and its record (once the share it led to is kept, or the
    /// round is over).
    pub fn discard_journal(&mut self) {
        if let Some(path) = self.journal.take() {
            let _ = std::fs::remove_file(path);
            if let Some(dir) = self.journal_dir.take() {
                let _ = std::fs::remove_file(round_path(&dir, self.round.round));
            }
        }
    }

    /// The round.
    pub fn round(&self) -> &Round {
        &self.round
    }

    /// Messages dropped as invalid so far.
    pub fn invalid(&self) -> u64 {
        self.invalid
    }

    /// What to (re)send now: dealings not yet acked, and this node's log once finalized.
    pub fn outgoing(&self) -> Vec<(To, Vec<u8>)> {
        let mut out: Vec<_> = if self.dealer.is_some() {
            self.dealings
                .iter()
                .map(|(p, m)| (To::One(p.clone()), m.clone()))
                .collect()
        } else {
            Vec::new()
        };
        if let Some(log) = &self.log {
            out.push((To::All, message(LOG, self.round.round, log)));
        }
        out
    }

    /// Stop dealing (at the epoch's offset `E/4`): the signed log, with a reveal for each
    /// player that has not acked. Idempotent.
    pub fn finalize(&mut self) -> Option<Vec<u8>> {
        if let Some(dealer) = self.dealer.take() {
            let log = dealer.finalize::<Faults>().encode().to_vec();
            self.logs.insert(self.me.clone(), log.clone());
            self.log = Some(log);
            self.dealings.clear();
        }
        self.log.clone()
    }

    /// The logs this node holds (its own and those that verified from other dealers), for
    /// the leader to offer (exec keeps what a block may carry).
    pub fn logs(&self) -> Vec<Vec<u8>> {
        self.logs.values().cloned().collect()
    }

    /// Handle `bytes` from `from`; returns the replies.
    pub fn receive(&mut self, from: &ed25519::PublicKey, bytes: &[u8]) -> Vec<(To, Vec<u8>)> {
        let round = self.round.round;
        if bytes.len() < HEAD || bytes.len() > max_message_bytes(&self.round) {
            self.invalid += 1;
            return Vec::new();
        }
        let (head, body) = bytes.split_at(HEAD);
        let mut r = [0u8; 8];
        r.copy_from_slice(&head[1..]);
        if u64::from_be_bytes(r) != round {
            // Another round's: a node a round behind or ahead; not a fault.
            return Vec::new();
        }
        let is_dealer = self.round.dealers.position(from).is_some();
        let is_player = self.round.players.position(from).is_some();
        match head[0] {
            DEALING if is_dealer => self.dealing(from, body),
            ACK if is_player => {
                self.ack(from, body);
                Vec::new()
            }
            LOG if is_dealer => {
                self.foreign_log(from, body);
                Vec::new()
            }
            _ => {
                self.invalid += 1;
                Vec::new()
            }
        }
    }

    fn dealing(&mut self, from: &ed25519::PublicKey, body: &[u8]) -> Vec<(To, Vec<u8>)> {
        let round = self.round.round;
        let max = self.round.max_participants();
        let Some(player) = self.player.as_mut() else {
            self.invalid += 1;
            return Vec::new();
        };
        if let Some(ack) = self.acks.get(from) {
            // A repeat: the dealer missed the ack.
            return vec![(To::One(from.clone()), ack.clone())];
        }
        if body.len() < DealerPrivMsg::SIZE {
            self.invalid += 1;
            return Vec::new();
        }
        let (priv_bytes, pub_bytes) = body.split_at(DealerPrivMsg::SIZE);
        let parsed = DealerPrivMsg::decode(Copying(priv_bytes))
            .ok()
            .zip(DealerPubMsg::<Variant>::decode_cfg(Copying(pub_bytes), &max).ok());
        let Some((priv_msg, pub_msg)) = parsed else {
            self.invalid += 1;
            return Vec::new();
        };
        match player.dealer_message::<Faults>(from.clone(), pub_msg, priv_msg) {
            Ok(Some(ack)) => {
                if let Some(path) = &self.journal {
                    // On disk before the ack leaves: a dealer with our ack does not send
                    // the dealing again. A failed write costs only a restart's share.
                    if let Err(e) = append_journal(path, from, body) {
                        tracing::error!(error = %e, "reshare: cannot journal a dealing");
                    }
                }
                let msg = message(ACK, round, &ack.encode());
                self.acks.insert(from.clone(), msg.clone());
                vec![(To::One(from.clone()), msg)]
            }
            Ok(None) => Vec::new(),
            Err(_) => {
                self.invalid += 1;
                Vec::new()
            }
        }
    }

    fn ack(&mut self, from: &ed25519::PublicKey, body: &[u8]) {
        let Some(dealer) = self.dealer.as_mut() else {
            return; // finalized already (or not a dealer): a late ack changes nothing
        };
        let accepted = PlayerAck::<ed25519::PublicKey>::decode(Copying(body))
            .ok()
            .is_some_and(|ack| dealer.receive_player_ack(from.clone(), ack).is_ok());
        if accepted {
            self.dealings.remove(from);
        } else {
            self.invalid += 1;
        }
    }

    fn foreign_log(&mut self, from: &ed25519::PublicKey, body: &[u8]) {
        if self.logs.contains_key(from) {
            return;
        }
        let verified = SignedLog::decode_cfg(Copying(body), &self.round.max_participants())
            .ok()
            .and_then(|log| log.check(&self.round.info))
            .is_some_and(|(dealer, _)| dealer == *from);
        if verified {
            self.logs.insert(from.clone(), body.to_vec());
        } else {
            self.invalid += 1;
        }
    }

    /// The round succeeded on chain with `logs` recorded (exec's, in their recorded order):
    /// this player's new share. `None` for a node that is not a player (or finished
    /// already); an error if its state cannot produce the share the chain's outcome says
    /// it has (a restart lost a dealing it acked: the share then needs a later round).
    pub fn finish(&mut self, logs: &[Vec<u8>]) -> Option<Result<Share, String>> {
        let player = self.player.take()?;
        let mut rng = reshare::round_transcript(self.round.round, logs).noise(reshare::RNG_LABEL);
        Some(
            player
                .finalize::<Faults>(
                    &mut rng,
                    reshare::round_logs(&self.round, logs),
                    &commonware_parallel::Sequential,
                )
                .map(|(_, share)| share)
                .map_err(|e| format!("cannot finalize reshare round {}: {e}", self.round.round)),
        )
    }
}

/// The journal of round `round`'s acked dealings in `dir`.
fn journal_path(dir: &Path, round: u64) -> PathBuf {
    dir.join(format!("reshare-{round}.dealings"))
}

/// The record of round `round` in `dir`: what [`Session::resume`] rebuilds it from.
fn round_path(dir: &Path, round: u64) -> PathBuf {
    dir.join(format!("reshare-{round}.round"))
}

/// Write the record of `round` in `dir` (exec's [`Round::encode`]) unless it is there:
/// atomically (a temporary file synced, renamed, the directory synced), before any dealing
/// is journaled, so a journal always has its round's record beside it. A record that cannot
/// be written costs only the resumption after the outcome (logged).
fn keep_round(dir: &Path, round: &Round) {
    let path = round_path(dir, round.round);
    if path.exists() {
        return;
    }
    let tmp = dir.join(format!("reshare-{}.round.tmp", round.round));
    let written = std::fs::write(&tmp, round.encode())
        .and_then(|()| std::fs::File::open(&tmp)?.sync_all())
        .and_then(|()| std::fs::rename(&tmp, &path))
        .and_then(|()| std::fs::File::open(dir)?.sync_all());
    if let Err(error) = written {
        tracing::warn!(round = round.round, %error, "reshare: cannot keep the round's record");
    }
}

/// Delete the journals and round records (and a record's torn temporary file) in `dir` of
/// rounds before `round`.
fn remove_old_journals(dir: &Path, round: u64) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let old = name
            .to_str()
            .and_then(|n| n.strip_prefix("reshare-"))
            .and_then(|n| {
                [".dealings", ".round", ".round.tmp"]
                    .iter()
                    .find_map(|suffix| n.strip_suffix(suffix))
            })
            .and_then(|r| r.parse::<u64>().ok())
            .is_some_and(|r| r < round);
        if old {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// Append one record (the dealer's key, the body's length as 4 bytes big-endian, the body)
/// to the journal at `path` and sync it.
fn append_journal(path: &Path, from: &ed25519::PublicKey, body: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let mut options = std::fs::OpenOptions::new();
    options.append(true).create(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options.open(path)?;
    let len = u32::try_from(body.len()).map_err(std::io::Error::other)?;
    let mut record = from.encode().to_vec();
    record.extend_from_slice(&len.to_be_bytes());
    record.extend_from_slice(body);
    file.write_all(&record)?;
    file.sync_data()
}

/// The records of the journal at `path` (none if there is no file), up to the first that is
/// torn or malformed, bodies at most `max` bytes.
fn read_journal(path: &Path, max: usize) -> Vec<(ed25519::PublicKey, Vec<u8>)> {
    let Ok(bytes) = std::fs::read(path) else {
        return Vec::new();
    };
    let key_len = ed25519::PublicKey::SIZE;
    let mut out = Vec::new();
    let mut rest = &bytes[..];
    while rest.len() >= key_len + 4 {
        let Ok(from) = ed25519::PublicKey::decode(Copying(&rest[..key_len])) else {
            break;
        };
        let mut len = [0u8; 4];
        len.copy_from_slice(&rest[key_len..key_len + 4]);
        let len = u32::from_be_bytes(len) as usize;
        let body = &rest[key_len + 4..];
        if len > max || body.len() < len {
            break;
        }
        out.push((from, body[..len].to_vec()));
        rest = &body[len..];
    }
    out
}

/// Replace `dir`'s share file with `share` of round `round`'s sharing atomically: written to
/// a temporary file (mode 0600), synced, renamed over the old one, and the directory synced,
/// so a crash leaves either the old share or the new one, never a torn file. The file names
/// the round, so a restarted node knows which sharing its share belongs to.
pub fn replace_share(dir: &Path, round: u64, share: &Share) -> Result<(), String> {
    let tmp = dir.join(format!("{}.tmp", crate::beacon::SHARE_FILE));
    let _ = std::fs::remove_file(&tmp);
    crate::beacon::write_share_to(&tmp, round, share)?;
    let path = dir.join(crate::beacon::SHARE_FILE);
    std::fs::rename(&tmp, &path)
        .and_then(|()| std::fs::File::open(dir)?.sync_all())
        .map_err(|e| format!("cannot replace {}: {e}", path.display()))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use commonware_cryptography::bls12381::dkg::feldman_desmedt as dkg;
    use commonware_cryptography::bls12381::primitives::ops::{self, threshold};
    use commonware_cryptography::bls12381::primitives::sharing::Mode;
    use commonware_utils::ordered::Set;
    use cowboy_exec::beacon::NAMESPACE;

    fn key(i: u64) -> ed25519::PrivateKey {
        ed25519::PrivateKey::from_seed(i)
    }

    /// Round 1 from a genesis group of keys 0..4 to keys 0..5, and the genesis shares.
    fn round() -> (Round, BTreeMap<ed25519::PublicKey, Share>, reshare::Output) {
        let members = Set::from_iter_dedup((0..4).map(|i| key(i).public_key()));
        let (output, shares) = dkg::deal::<Variant, _, Faults>(
            rand::rngs::ChaCha20Rng::seed_from_u64(1),
            Mode::NonZeroCounter,
            members.clone(),
        )
        .expect("deal");
        let list: Vec<_> = members.iter().cloned().collect();
        let genesis = reshare::genesis_output(output.public(), &list).expect("genesis");
        let players = Set::from_iter_dedup((0..5).map(|i| key(i).public_key()));
        let info = reshare::Info::new::<Faults>(
            reshare::NAMESPACE,
            1,
            Some(genesis.clone()),
            Mode::NonZeroCounter,
            dkg::Reveal::V1,
            members.clone(),
            players.clone(),
        )
        .expect("info");
        let round = Round {
            round: 1,
            info,
            dealers: members,
            players,
            generation: false,
            last: 12,
            previous: Some(genesis.clone()),
        };
        let shares = shares
            .iter_pairs()
            .map(|(k, s)| (k.clone(), s.clone()))
            .collect();
        (round, shares, genesis)
    }

    /// Deliver every outgoing message (and the replies) until nothing new is produced.
    fn exchange(
        sessions: &mut BTreeMap<ed25519::PublicKey, Session>,
        drop_to: Option<&ed25519::PublicKey>,
    ) {
        for _ in 0..4 {
            let mut queue = Vec::new();
            for (from, s) in sessions.iter() {
                for (to, msg) in s.outgoing() {
                    queue.push((from.clone(), to, msg));
                }
            }
            while let Some((from, to, msg)) = queue.pop() {
                let targets: Vec<_> = match &to {
                    To::One(p) => vec![p.clone()],
                    To::All => sessions.keys().filter(|k| **k != from).cloned().collect(),
                };
                for t in targets {
                    if Some(&t) == drop_to {
                        continue;
                    }
                    if let Some(s) = sessions.get_mut(&t) {
                        for (reply_to, reply) in s.receive(&from, &msg) {
                            queue.push((t.clone(), reply_to, reply));
                        }
                    }
                }
            }
        }
    }

    /// New shares by key.
    pub(crate) type Shares = BTreeMap<ed25519::PublicKey, Share>;

    /// A completed round 1 (keys 0..4 to keys 0..5): the genesis sharing (as an exec
    /// `Output`) and shares, the new output and shares.
    pub(crate) fn reshared() -> (reshare::Output, Shares, reshare::Output, Shares) {
        let (round, shares, genesis) = round();
        let mut sessions: BTreeMap<_, _> = (0..5)
            .filter_map(|i| {
                let k = key(i);
                let share = shares.get(&k.public_key()).cloned();
                Session::start(round.clone(), &k, share, None).map(|s| (k.public_key(), s))
            })
            .collect();
        exchange(&mut sessions, None);
        for s in sessions.values_mut() {
            s.finalize();
        }
        exchange(&mut sessions, None);
        let logs = sessions[&key(0).public_key()].logs();
        let mut rng = reshare::round_transcript(1, &logs).noise(reshare::RNG_LABEL);
        let output = dkg::observe::<Variant, ed25519::PublicKey, Faults>(
            &mut rng,
            reshare::round_logs(&round, &logs),
            &commonware_parallel::Sequential,
        )
        .expect("observe");
        let new = sessions
            .iter_mut()
            .map(|(k, s)| (k.clone(), s.finish(&logs).expect("player").expect("share")))
            .collect();
        (genesis, shares, output, new)
    }

    #[test]
    fn dealers_and_a_joiner_reshare_and_the_joiners_share_signs() {
        let (round, shares, genesis) = round();
        let mut sessions: BTreeMap<_, _> = (0..5)
            .filter_map(|i| {
                let k = key(i);
                let share = shares.get(&k.public_key()).cloned();
                Session::start(round.clone(), &k, share, None).map(|s| (k.public_key(), s))
            })
            .collect();
        assert_eq!(sessions.len(), 5);
        exchange(&mut sessions, None);
        for s in sessions.values() {
            assert!(s.dealings.is_empty(), "every dealing acked");
        }
        for s in sessions.values_mut() {
            s.finalize();
        }
        exchange(&mut sessions, None);
        // Every node holds every dealer's log; the chain would record them (exec's test
        // covers that path); here they are taken in dealer order.
        let logs = sessions[&key(4).public_key()].logs();
        assert_eq!(logs.len(), 4);
        for s in sessions.values() {
            assert_eq!(s.logs(), logs);
            assert_eq!(s.invalid(), 0);
        }
        let mut new = Vec::new();
        for (k, s) in sessions.iter_mut() {
            let share = s.finish(&logs).expect("a player").expect("a share");
            new.push((k.clone(), share));
        }
        // Keys 1..5 (t = 4 of 5; the joiner, key 4, among them) sign; the signature is the
        // genesis group's.
        let msg = b"height 99";
        let partials: Vec<_> = new
            .iter()
            .filter(|(k, _)| *k != key(0).public_key())
            .map(|(_, s)| threshold::sign_message::<Variant>(s, NAMESPACE, msg))
            .collect();
        let mut rng = reshare::round_transcript(1, &logs).noise(reshare::RNG_LABEL);
        let output = dkg::observe::<Variant, ed25519::PublicKey, Faults>(
            &mut rng,
            reshare::round_logs(&round, &logs),
            &commonware_parallel::Sequential,
        )
        .expect("observe");
        let sig = threshold::recover::<Variant, _>(
            output.public(),
            &partials,
            &commonware_parallel::Sequential,
        )
        .expect("recover");
        assert!(
            ops::verify_message::<Variant>(genesis.public().public(), NAMESPACE, msg, &sig).is_ok()
        );
    }

    #[test]
    fn a_restarted_dealer_deals_the_same_and_a_silent_player_is_revealed() {
        let (round, shares, _) = round();
        let dealer = key(0);
        let share = shares.get(&dealer.public_key()).cloned();
        let a = Session::start(round.clone(), &dealer, share.clone(), None).expect("dealer");
        let b = Session::start(round.clone(), &dealer, share, None).expect("dealer");
        assert_eq!(
            a.outgoing(),
            b.outgoing(),
            "seeded from the key and the round"
        );
        // The joiner never answers: the dealers reveal its dealing in their logs, which
        // still verify, and the round still succeeds for the others.
        let mut sessions: BTreeMap<_, _> = (0..5)
            .filter_map(|i| {
                let k = key(i);
                let share = shares.get(&k.public_key()).cloned();
                Session::start(round.clone(), &k, share, None).map(|s| (k.public_key(), s))
            })
            .collect();
        let joiner = key(4).public_key();
        exchange(&mut sessions, Some(&joiner));
        for s in sessions.values_mut() {
            s.finalize();
        }
        exchange(&mut sessions, Some(&joiner));
        let logs = sessions[&key(0).public_key()].logs();
        assert_eq!(logs.len(), 4);
        let mut rng = reshare::round_transcript(1, &logs).noise(reshare::RNG_LABEL);
        let output = dkg::observe::<Variant, ed25519::PublicKey, Faults>(
            &mut rng,
            reshare::round_logs(&round, &logs),
            &commonware_parallel::Sequential,
        )
        .expect("a reveal per log is within f");
        assert!(output.revealed().position(&joiner).is_some());
    }

    #[test]
    fn a_player_restarted_mid_round_replays_its_journal_and_gets_its_share() {
        let (round, shares, _) = round();
        let dir = tempfile::tempdir().expect("temp dir");
        let stale = journal_path(dir.path(), 0);
        let stale_record = round_path(dir.path(), 0);
        let torn_record = dir.path().join("reshare-0.round.tmp");
        for file in [&stale, &stale_record, &torn_record] {
            std::fs::write(file, b"an earlier round's").expect("write");
        }
        let joiner = key(4);
        let mut sessions: BTreeMap<_, _> = (0..5)
            .filter_map(|i| {
                let k = key(i);
                let share = shares.get(&k.public_key()).cloned();
                let journal = (i == 4).then(|| dir.path());
                Session::start(round.clone(), &k, share, journal).map(|s| (k.public_key(), s))
            })
            .collect();
        assert!(!stale.exists(), "an earlier round's journal is deleted");
        assert!(
            !stale_record.exists() && !torn_record.exists(),
            "and its record"
        );
        assert!(
            round_path(dir.path(), 1).exists(),
            "the round's own record is kept"
        );
        exchange(&mut sessions, None);
        let path = journal_path(dir.path(), 1);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path)
                .expect("a journal")
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600, "the dealings are secret");
        }
        // The joiner crashes after acking every dealing, mid-append of nothing it acked.
        let mut before = sessions.remove(&joiner.public_key()).expect("joiner");
        let mut file = std::fs::read(&path).expect("journal");
        let records = file.len();
        file.extend_from_slice(&joiner.public_key().encode());
        file.extend_from_slice(&[0, 0, 1]);
        std::fs::write(&path, &file).expect("tear");
        let restarted =
            Session::start(round.clone(), &joiner, None, Some(dir.path())).expect("player");
        let forgetful = Session::start(round.clone(), &joiner, None, None).expect("player");
        assert_eq!(restarted.acks.len(), 4, "every acked dealing replayed");
        assert_eq!(forgetful.acks.len(), 0);
        // The dealers have its acks, so they send it nothing again.
        sessions.insert(joiner.public_key(), restarted);
        for s in sessions.values_mut() {
            s.finalize();
        }
        exchange(&mut sessions, None);
        assert_eq!(std::fs::read(&path).expect("journal").len(), records + 35);
        let logs = sessions[&key(0).public_key()].logs();
        let mut restarted = sessions.remove(&joiner.public_key()).expect("joiner");
        let share = restarted.finish(&logs).expect("a player").expect("a share");
        let expected = before.finish(&logs).expect("a player").expect("a share");
        assert_eq!(
            share, expected,
            "the share it would have had without the restart"
        );
        let mut forgetful = forgetful;
        assert!(forgetful.finish(&logs).expect("a player").is_err());
        // Restarted once more, after the outcome (the chain no longer says what the round
        // was): the round is rebuilt from its record, by exec's rule, and the journal gives
        // the same share again.
        let params = GenesisParams {
            epoch_blocks: 8,
            ..GenesisParams::default()
        };
        let record = std::fs::read(round_path(dir.path(), 1)).expect("the round's record");
        let rebuilt = Round::decode(&params, &record).expect("the record decodes");
        assert!(rebuilt.info == round.info, "the same round parameters");
        assert_eq!(
            (
                rebuilt.round,
                rebuilt.last,
                &rebuilt.dealers,
                &rebuilt.players
            ),
            (round.round, round.last, &round.dealers, &round.players)
        );
        assert!(Round::decode(&params, b"garbage").is_none());
        let mut resumed = Session::resume(&params, 1, &joiner, None, dir.path()).expect("resumed");
        let again = resumed.finish(&logs).expect("a player").expect("a share");
        assert_eq!(again, expected, "the share, after the outcome");
        assert!(
            Session::resume(&params, 2, &joiner, None, dir.path()).is_none(),
            "no record of round 2"
        );
        restarted.discard_journal();
        assert!(!path.exists());
        assert!(!round_path(dir.path(), 1).exists(), "the record goes too");
    }

    #[test]
    fn garbage_other_rounds_and_wrong_roles_are_dropped() {
        let (round, shares, _) = round();
        let joiner = key(4);
        let mut s = Session::start(round.clone(), &joiner, None, None).expect("a player");
        let dealer = key(1).public_key();
        // Too short, and a dealing from a node that is not a dealer.
        assert!(s.receive(&dealer, &[0u8; 3]).is_empty());
        assert!(s
            .receive(&joiner.public_key(), &message(DEALING, 1, &[0u8; 40]))
            .is_empty());
        assert_eq!(s.invalid(), 2);
        // Another round's message is not a fault.
        assert!(s
            .receive(&dealer, &message(DEALING, 2, &[0u8; 40]))
            .is_empty());
        assert_eq!(s.invalid(), 2);
        // A dealing that does not decode, and a log that does not verify.
        assert!(s
            .receive(&dealer, &message(DEALING, 1, &[0u8; 40]))
            .is_empty());
        assert!(s.receive(&dealer, &message(LOG, 1, &[1u8; 100])).is_empty());
        assert_eq!(s.invalid(), 4);
        assert!(s.logs().is_empty());
        // A valid dealing is acked, and acked again when repeated.
        let d = Session::start(round, &key(1), shares.get(&dealer).cloned(), None).expect("dealer");
        let (_, dealing) = d
            .outgoing()
            .into_iter()
            .find(|(to, _)| *to == To::One(joiner.public_key()))
            .expect("a dealing for the joiner");
        let first = s.receive(&dealer, &dealing);
        assert_eq!(first.len(), 1);
        assert_eq!(s.receive(&dealer, &dealing), first);
    }

    #[test]
    fn a_replaced_share_is_whole_and_private() {
        let (_, shares, _) = round();
        let dir = std::env::temp_dir().join(format!("cowboy-reshare-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        let mut it = shares.values();
        let (a, b) = (it.next().expect("a"), it.next().expect("b"));
        crate::beacon::write_share(&dir, a).expect("write");
        // A genesis file (bare hex) reads as round 0; the replacement names its round.
        assert_eq!(
            crate::beacon::read_share_round(&dir).expect("read"),
            Some((0, a.clone()))
        );
        replace_share(&dir, 3, b).expect("replace");
        assert_eq!(
            crate::beacon::read_share_round(&dir).expect("read"),
            Some((3, b.clone()))
        );
        assert_eq!(
            crate::beacon::read_share(&dir).expect("read"),
            Some(b.clone())
        );
        assert!(!dir
            .join(format!("{}.tmp", crate::beacon::SHARE_FILE))
            .exists());
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(dir.join(crate::beacon::SHARE_FILE))
                .expect("meta")
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
