//! The node's side of the threshold randomness beacon (issue 17 item 3; exec's `beacon` holds
//! the block rule; the README, "The threshold beacon").
//!
//! **Where the group comes from.** Either the genesis names the group's public polynomial
//! ([`crate::genesis::Genesis::beacon`], dealt before genesis) and each genesis validator
//! holds one share (its data directory's [`SHARE_FILE`], or the dev share on `--dev`), or
//! the genesis validators generate it on chain (`beacon_dkg = 1`: a key generation run as
//! epoch 0's reshare round, so no one ever held the secret) and the service starts with no
//! group ([`Beacon::awaiting`]) until the generation's outcome is final. A validator that
//! joins later holds no share: it recovers signatures from the others' partials but signs
//! nothing until a round gives it one. Resharing
//! at set changes (exec's `reshare`, this crate's [`crate::reshare`] and
//! [`crate::reshare_task`]) gives each new set shares of the same group key; the task
//! switches this service to each new sharing ([`Beacon::switch`]).
//!
//! **Flow.** When block `h` is finalized here, a share holder signs its partial over
//! `(chain id, h, hash(h))` and sends it to every peer on [`BEACON_CHANNEL`]. Any node
//! recovers `σ_h` from `t` valid partials over the same block (commonware's threshold
//! `recover`, checked against the group key) and keeps it; the leader of `h + k` waits
//! for it ([`Beacon::signature`]) and puts it in its block. A single validator (`t = 1`)
//! recovers from its own partial at once.
//!
//! **Bounded.** A peer's message carries at most [`MAX_ENTRIES`] partials, each only for the
//! sender's own share index (so a peer can fill no one else's slot), for heights within
//! [`WINDOW`] of the finalized head; the first valid partial per index per height is kept,
//! a repeat costs a lookup, an invalid one a pairing check and a count
//! ([`Beacon::invalid`]), once: the transport is authenticated, so an invalid partial proves
//! its sender faulty, and its later partials for that height are dropped unchecked. A faulty
//! member can so make a node run at most one pairing check per height, not one per message
//! its quota allows. Partials, refusals, recovered signatures and hashes older than the
//! window are dropped.
//!
//! **Sharings by round.** A partial names the reshare round of the sharing it is under
//! (0: genesis; exec's `reshare`), and is checked against that sharing's polynomial and
//! members; `σ` is recovered from `t` partials of one sharing. The service keeps the newest
//! [`KEPT_GROUPS`] sharings ([`Beacon::switch`] adds one) and signs with every share it holds
//! among them, so around a switch old and new holders' partials both count: a threshold BLS
//! signature is unique, so either sharing recovers the same `σ`. A partial naming a round the
//! node does not keep is dropped uncounted (a node ahead or behind is not faulty).
//!
//! **Message loss.** Each share holder re-sends its partials for the newest `k + 1`
//! finalized heights on every finalization and once a second, so a lost message delays a
//! signature by at most a second and never halts the chain while `t` holders are up.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use commonware_codec::{DecodeExt, Encode};
use commonware_cryptography::bls12381::primitives::group::{Share, G1};
use commonware_cryptography::bls12381::primitives::ops::{self, threshold};
use commonware_cryptography::bls12381::primitives::sharing::Sharing;
use commonware_cryptography::bls12381::primitives::variant::PartialSignature;
use commonware_cryptography::ed25519;
use commonware_p2p::{Receiver, Recipients, Sender};
use commonware_runtime::Quota;
use commonware_utils::Participant;
use cowboy_exec::beacon::{message, Signed, Variant, BEACON_LAG, NAMESPACE};
use cowboy_types::block::BEACON_SIGNATURE_BYTES;
use cowboy_types::Hash32;
use tokio::sync::watch;

use crate::consensus::Runtime;

/// p2p channel of partial signatures.
pub const BEACON_CHANNEL: u64 = 6;
/// Heights around the finalized head whose partials are accepted and kept.
pub const WINDOW: u64 = 16;
/// Most partials one message carries (a share holder sends `k + 1`).
pub const MAX_ENTRIES: usize = 8;
/// The file in a validator's data directory holding its share (hex of commonware's encoding).
pub const SHARE_FILE: &str = "beacon.share";
/// One entry: round (8, big-endian), height (8, big-endian), block hash (32), share index
/// (4, big-endian), signature.
const ENTRY_BYTES: usize = 8 + 8 + 32 + 4 + BEACON_SIGNATURE_BYTES;
/// Sharings kept: the current one and the one before it (see the module docs).
pub const KEPT_GROUPS: usize = 2;

/// Per-peer quota of the beacon channel: a share holder sends about one message per
/// finalization plus one a second.
pub fn quota() -> Quota {
    Quota::per_second(std::num::NonZeroU32::new(64).unwrap_or(std::num::NonZeroU32::MIN))
}

/// The group as this node knows it: the public polynomial, the members' p2p keys in share
/// order (the genesis validators' ed25519 keys, ascending: commonware's `Set` order, in which
/// shares were dealt), and this node's share if it holds one.
#[derive(Clone)]
pub struct Group {
    /// The reshare round the sharing came from (0: the genesis dealing).
    pub round: u64,
    /// The public polynomial.
    pub sharing: Sharing<Variant>,
    /// Members by share index.
    pub members: Vec<ed25519::PublicKey>,
    /// This node's share.
    pub share: Option<Share>,
}

/// A partial as kept: the block it signs and the signature.
#[derive(Clone)]
struct Kept {
    hash: Hash32,
    bytes: [u8; BEACON_SIGNATURE_BYTES],
    partial: PartialSignature<Variant>,
}

#[derive(Default)]
struct State {
    /// The finalized head's height as last told.
    head: u64,
    /// Finalized hashes of the window (what this node signs and re-sends).
    finalized: BTreeMap<u64, Hash32>,
    /// Valid partials by height, then round and share index.
    partials: BTreeMap<u64, BTreeMap<(u64, u32), Kept>>,
    /// Recovered signatures by height and block hash.
    recovered: BTreeMap<(u64, Hash32), [u8; BEACON_SIGNATURE_BYTES]>,
    /// Share indices whose partial for a height was invalid, by height: their later partials
    /// for it are dropped without a pairing check.
    refused: BTreeMap<u64, std::collections::BTreeSet<(u64, u32)>>,
    /// Invalid partials received.
    invalid: u64,
}

/// The beacon service (see the module docs). Cheap to clone.
#[derive(Clone)]
pub struct Beacon {
    chain_id: u64,
    /// The sharings kept, by round.
    groups: Arc<Mutex<BTreeMap<u64, Arc<Group>>>>,
    state: Arc<Mutex<State>>,
    /// Bumped whenever a signature is recovered.
    changed: watch::Sender<u64>,
    /// Wakes the sender: something new to send.
    send_now: Arc<tokio::sync::Notify>,
}

impl Beacon {
    /// A beacon for `group` on chain `chain_id`.
    pub fn new(chain_id: u64, group: Group) -> Beacon {
        let beacon = Beacon::awaiting(chain_id);
        beacon.switch(group);
        beacon
    }

    /// A beacon on chain `chain_id` with no group yet: the genesis validators are generating
    /// it (exec's `reshare`); it signs and recovers nothing until [`Beacon::switch`].
    pub fn awaiting(chain_id: u64) -> Beacon {
        Beacon {
            chain_id,
            groups: Arc::new(Mutex::new(BTreeMap::new())),
            state: Arc::new(Mutex::new(State::default())),
            changed: watch::channel(0).0,
            send_now: Arc::new(tokio::sync::Notify::new()),
        }
    }

    /// Add the sharing of a completed reshare round (with this node's new share, if it is a
    /// player), keeping the newest [`KEPT_GROUPS`]; this node signs with it from the next
    /// finalization.
    pub fn switch(&self, group: Group) {
        if let Ok(mut groups) = self.groups.lock() {
            groups.insert(group.round, Arc::new(group));
            while groups.len() > KEPT_GROUPS {
                groups.pop_first();
            }
        }
        self.send_now.notify_one();
    }

    /// The sharings kept, oldest first.
    fn groups(&self) -> Vec<Arc<Group>> {
        self.groups
            .lock()
            .map(|g| g.values().cloned().collect())
            .unwrap_or_default()
    }

    /// The rounds of the sharings kept, oldest first (the newest is the one a reshare task
    /// compares the chain's current sharing with).
    pub fn rounds(&self) -> Vec<u64> {
        self.groups().iter().map(|g| g.round).collect()
    }

    /// Invalid partials received so far.
    pub fn invalid(&self) -> u64 {
        self.state.lock().map_or(0, |s| s.invalid)
    }

    /// The recovered signature over block `height` with hash `hash`, if any.
    pub fn recovered(&self, height: u64, hash: &Hash32) -> Option<[u8; BEACON_SIGNATURE_BYTES]> {
        self.state
            .lock()
            .ok()?
            .recovered
            .get(&(height, *hash))
            .copied()
    }

    /// Block `height` with hash `hash` is final here: sign it (once) if this node holds a
    /// share, keep the partial, and have it sent. Idempotent, so a leader may call it for a
    /// finalized block it needs the signature of (after a restart or a dev revert, nobody
    /// else may still be sending partials for it).
    pub fn on_finalized(&self, height: u64, hash: Hash32) {
        {
            let Ok(mut s) = self.state.lock() else { return };
            s.head = s.head.max(height);
            s.finalized.insert(height, hash);
            let low = s.head.saturating_sub(WINDOW);
            s.finalized = s.finalized.split_off(&low);
            s.partials = s.partials.split_off(&low);
            s.refused = s.refused.split_off(&low);
            s.recovered = s.recovered.split_off(&(low, Hash32([0; 32])));
            for group in self.groups() {
                let Some(share) = &group.share else { continue };
                let key = (group.round, share.index.get());
                let mine = s
                    .partials
                    .get(&height)
                    .and_then(|p| p.get(&key))
                    .is_some_and(|k| k.hash == hash);
                if !mine {
                    let partial = threshold::sign_message::<Variant>(
                        share,
                        NAMESPACE,
                        &message(self.chain_id, height, &hash),
                    );
                    let bytes = signature_bytes(&partial.value);
                    s.partials.entry(height).or_default().insert(
                        key,
                        Kept {
                            hash,
                            bytes,
                            partial,
                        },
                    );
                    self.try_recover(&mut s, height, hash);
                }
            }
        }
        self.send_now.notify_one();
    }

    /// A dev revert made block `height` the head again: forget the finalized hashes,
    /// partials, refusals and signatures above it (of blocks the revert removed) and take
    /// `height` as the head. Without it the head stayed where the reverted chain had reached,
    /// and as the new chain climbed back every height more than [`WINDOW`] below that old
    /// head was pruned at each finalization, the partial and the signature a leader was
    /// waiting for among them: the leader waited for ever (the SDK suite's dev node stopped
    /// building, about one run in thirty). What remains at or below `height` is of the same
    /// blocks (a revert keeps their hashes) and stays valid.
    pub fn rewind(&self, height: u64) {
        let Ok(mut s) = self.state.lock() else { return };
        s.head = height;
        let above = height.saturating_add(1);
        s.finalized.split_off(&above);
        s.partials.split_off(&above);
        s.refused.split_off(&above);
        s.recovered.split_off(&(above, Hash32([0; 32])));
    }

    /// Whether `(height, hash)` is among the finalized blocks this service keeps.
    fn holds(&self, height: u64, hash: &Hash32) -> bool {
        self.state
            .lock()
            .is_ok_and(|s| s.finalized.get(&height) == Some(hash))
    }

    /// Wait for the signature over block `height` with hash `hash` (which must be final
    /// here: this node signs it if it holds a share).
    pub async fn signature(&self, height: u64, hash: Hash32) -> Signed {
        let mut changed = self.changed.subscribe();
        loop {
            // Marked seen first, so a change between here and the check below wakes the wait.
            changed.borrow_and_update();
            // Again whenever the window has moved past it since (its partials were pruned
            // with it): the wait must not depend on no finalization coming in between.
            if !self.holds(height, &hash) {
                self.on_finalized(height, hash);
            }
            if let Some(signature) = self.recovered(height, &hash) {
                return Signed {
                    target_hash: hash,
                    signature,
                };
            }
            if changed.changed().await.is_err() {
                // The sender lives as long as `self`: unreachable; wait for cancellation.
                std::future::pending::<()>().await;
            }
        }
    }

    /// Recover `σ` for `(height, hash)` if `t` partials of one sharing over it are kept and
    /// it is not yet.
    fn try_recover(&self, s: &mut State, height: u64, hash: Hash32) {
        if s.recovered.contains_key(&(height, hash)) {
            return;
        }
        for group in self.groups() {
            let Some(kept) = s.partials.get(&height) else {
                return;
            };
            let over: Vec<&PartialSignature<Variant>> = kept
                .iter()
                .filter(|((round, _), k)| *round == group.round && k.hash == hash)
                .map(|(_, k)| &k.partial)
                .collect();
            if (over.len() as u64) < u64::from(group.sharing.required()) {
                continue;
            }
            let Ok(sig) = threshold::recover::<Variant, _>(
                &group.sharing,
                over,
                &commonware_parallel::Sequential,
            ) else {
                continue;
            };
            // Every partial was verified, so this holds; checked anyway, since a block
            // carrying a wrong signature would be refused by every validator.
            let msg = message(self.chain_id, height, &hash);
            if ops::verify_message::<Variant>(group.sharing.public(), NAMESPACE, &msg, &sig)
                .is_err()
            {
                tracing::error!(height, "recovered a beacon signature that does not verify");
                continue;
            }
            s.recovered.insert((height, hash), signature_bytes(&sig));
            self.changed.send_modify(|n| *n += 1);
            return;
        }
    }

    /// Handle one message from `peer` (see the module docs for what is dropped).
    pub fn receive(&self, peer: &ed25519::PublicKey, bytes: &[u8]) {
        let groups = self.groups();
        if !groups.iter().any(|g| g.members.contains(peer)) {
            return; // not a share holder: it has nothing to send
        }
        if bytes.is_empty()
            || !bytes.len().is_multiple_of(ENTRY_BYTES)
            || bytes.len() / ENTRY_BYTES > MAX_ENTRIES
        {
            self.count_invalid(1);
            return;
        }
        for entry in bytes.chunks(ENTRY_BYTES) {
            let (round, rest) = entry.split_at(8);
            let round = u64::from_be_bytes(round.try_into().unwrap_or_default());
            let Some(group) = groups.iter().find(|g| g.round == round) else {
                continue; // a sharing not kept here: dropped, not counted
            };
            match group.members.iter().position(|k| k == peer) {
                Some(index) => self.receive_entry(group, index as u32, rest),
                // Not a member of that sharing: it cannot hold a share of it.
                None => self.count_invalid(1),
            }
        }
    }

    fn count_invalid(&self, n: u64) {
        if let Ok(mut s) = self.state.lock() {
            s.invalid += n;
        }
    }

    fn receive_entry(&self, group: &Group, sender: u32, entry: &[u8]) {
        let (head, rest) = entry.split_at(8);
        let (hash, rest) = rest.split_at(32);
        let (index, sig) = rest.split_at(4);
        let height = u64::from_be_bytes(head.try_into().unwrap_or_default());
        let hash = Hash32(hash.try_into().unwrap_or_default());
        let index = u32::from_be_bytes(index.try_into().unwrap_or_default());
        let bytes: [u8; BEACON_SIGNATURE_BYTES] = sig.try_into().unwrap_or([0; 48]);
        if index != sender {
            self.count_invalid(1);
            return;
        }
        let key = (group.round, index);
        {
            let Ok(s) = self.state.lock() else { return };
            if height + WINDOW < s.head || height > s.head + WINDOW {
                return; // outside the window: dropped, not counted
            }
            // The first valid partial per index per height stays: a repeat is free, and so is
            // anything more from a member already caught sending an invalid one.
            if s.partials
                .get(&height)
                .is_some_and(|p| p.contains_key(&key))
                || s.refused.get(&height).is_some_and(|r| r.contains(&key))
            {
                return;
            }
        }
        // Verified outside the lock: a pairing check.
        let partial = G1::decode(bytes.to_vec())
            .ok()
            .map(|value| PartialSignature::<Variant> {
                index: Participant::new(index),
                value,
            })
            .filter(|p| {
                threshold::verify_message::<Variant>(
                    &group.sharing,
                    NAMESPACE,
                    &message(self.chain_id, height, &hash),
                    p,
                )
                .is_ok()
            });
        let Ok(mut s) = self.state.lock() else { return };
        match partial {
            None => {
                s.invalid += 1;
                s.refused.entry(height).or_default().insert(key);
            }
            Some(partial) => {
                s.partials
                    .entry(height)
                    .or_default()
                    .entry(key)
                    .or_insert(Kept {
                        hash,
                        bytes,
                        partial,
                    });
                self.try_recover(&mut s, height, hash);
            }
        }
    }

    /// This node's partials for the newest `k + 1` finalized heights (under every sharing it
    /// holds a share of, newest first), as one message.
    fn outgoing(&self) -> Option<Vec<u8>> {
        let mine: Vec<(u64, u32)> = self
            .groups()
            .iter()
            .rev()
            .filter_map(|g| g.share.as_ref().map(|s| (g.round, s.index.get())))
            .collect();
        let s = self.state.lock().ok()?;
        let mut out = Vec::new();
        'heights: for (height, kept) in s.partials.iter().rev() {
            if *height + BEACON_LAG < s.head {
                break;
            }
            for key in &mine {
                if out.len() / ENTRY_BYTES >= MAX_ENTRIES {
                    break 'heights;
                }
                if let Some(k) = kept.get(key) {
                    out.extend_from_slice(&key.0.to_be_bytes());
                    out.extend_from_slice(&height.to_be_bytes());
                    out.extend_from_slice(&k.hash.0);
                    out.extend_from_slice(&key.1.to_be_bytes());
                    out.extend_from_slice(&k.bytes);
                }
            }
        }
        (!out.is_empty()).then_some(out)
    }

    /// Start sending (on finalizations and every second) and receiving on `channel`.
    pub fn start<E: Runtime>(
        &self,
        context: &E,
        channel: (
            impl Sender<PublicKey = ed25519::PublicKey>,
            impl Receiver<PublicKey = ed25519::PublicKey>,
        ),
    ) {
        let (mut sender, mut receiver) = channel;
        let me = self.clone();
        let clock = context.child("beacon_clock");
        context.child("beacon_send").spawn(move |_| async move {
            loop {
                tokio::select! {
                    biased;
                    _ = me.send_now.notified() => {}
                    _ = clock.sleep(Duration::from_secs(1)) => {}
                }
                if let Some(msg) = me.outgoing() {
                    let _ = sender.send(Recipients::All, msg, false);
                }
            }
        });
        let me = self.clone();
        context.child("beacon_receive").spawn(move |_| async move {
            while let Ok((peer, bytes)) = receiver.recv().await {
                me.receive(&peer, bytes.as_ref());
            }
        });
    }
}

fn signature_bytes(sig: &G1) -> [u8; BEACON_SIGNATURE_BYTES] {
    let mut out = [0u8; BEACON_SIGNATURE_BYTES];
    out.copy_from_slice(&sig.encode());
    out
}

/// Write `share` of the genesis sharing (round 0) to `dir`'s [`SHARE_FILE`], readable by its
/// owner only (it is a secret).
pub fn write_share(dir: &std::path::Path, share: &Share) -> Result<(), String> {
    write_share_to(&dir.join(SHARE_FILE), 0, share)
}

/// Write `share` of round `round`'s sharing to the file at `path` (created with mode 0600)
/// and sync it. The format: the hex of commonware's encoding, prefixed by `<round>:` for a
/// reshared sharing; a genesis share (round 0) is the bare hex, as files were before shares
/// could be reshared, so every older file still reads as round 0.
pub fn write_share_to(path: &std::path::Path, round: u64, share: &Share) -> Result<(), String> {
    use std::io::Write;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options
        .open(path)
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    let text = match round {
        0 => hex::encode(share.encode()),
        r => format!("{r}:{}", hex::encode(share.encode())),
    };
    file.write_all(text.as_bytes())
        .and_then(|()| file.sync_all())
        .map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// Read `dir`'s [`SHARE_FILE`]: `Ok(None)` if there is none (a validator that joined after
/// genesis), an error if it is unreadable or not a share.
pub fn read_share(dir: &std::path::Path) -> Result<Option<Share>, String> {
    Ok(read_share_round(dir)?.map(|(_, share)| share))
}

/// Read `dir`'s [`SHARE_FILE`] with the reshare round its sharing came from (see
/// [`write_share_to`] for the format).
pub fn read_share_round(dir: &std::path::Path) -> Result<Option<(u64, Share)>, String> {
    let path = dir.join(SHARE_FILE);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
    };
    let text = text.trim();
    let (round, hex_text) = match text.split_once(':') {
        Some((r, h)) => (r.parse::<u64>().ok(), h),
        None => (Some(0), text),
    };
    round
        .zip(
            hex::decode(hex_text)
                .ok()
                .and_then(|b| Share::decode(b).ok()),
        )
        .map(Some)
        .ok_or_else(|| format!("{} does not hold a beacon share", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use commonware_cryptography::Signer as _;
    use rand::SeedableRng as _;

    /// Four members, t = 3; node `me`'s view, holding share `me`.
    fn beacons() -> Vec<(ed25519::PublicKey, Beacon)> {
        let keys: Vec<_> = (0..4u64)
            .map(|i| ed25519::PrivateKey::from_seed(i).public_key())
            .collect();
        let (sharing, shares) =
            crate::genesis::deal_beacon(rand::rngs::ChaCha20Rng::seed_from_u64(9), &keys)
                .expect("deal");
        let members: Vec<_> = shares.iter().map(|(k, _)| k.clone()).collect();
        shares
            .iter()
            .map(|(k, share)| {
                let group = Group {
                    round: 0,
                    sharing: sharing.clone(),
                    members: members.clone(),
                    share: Some(share.clone()),
                };
                (k.clone(), Beacon::new(7, group))
            })
            .collect()
    }

    /// A dev chain's beacon: one member, t = 1.
    fn single() -> Beacon {
        let key = ed25519::PrivateKey::from_seed(0).public_key();
        let (sharing, shares) = crate::genesis::deal_beacon(
            rand::rngs::ChaCha20Rng::seed_from_u64(9),
            std::slice::from_ref(&key),
        )
        .expect("deal");
        let (member, share) = shares.into_iter().next().expect("one share");
        Beacon::new(
            7,
            Group {
                round: 0,
                sharing,
                members: vec![member],
                share: Some(share),
            },
        )
    }

    #[test]
    fn a_rewound_service_keeps_the_signatures_of_the_new_chain() {
        let hash = |h: u64, fork: u8| {
            Hash32([
                fork, h as u8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                0, 0, 0, 0, 0, 0, 0,
            ])
        };
        // Finalized to 40, then the chain climbs again from 1 without the service told: the
        // head stays at 40, and the next finalization prunes what a leader waits for.
        let stale = single();
        for h in 1..=40 {
            stale.on_finalized(h, hash(h, 0));
        }
        stale.on_finalized(2, hash(2, 1));
        assert!(
            stale.recovered(2, &hash(2, 1)).is_some(),
            "recovered at once (t = 1)"
        );
        stale.on_finalized(3, hash(3, 1));
        assert_eq!(
            stale.recovered(2, &hash(2, 1)),
            None,
            "the failure mode rewind prevents"
        );

        let rewound = single();
        for h in 1..=40 {
            rewound.on_finalized(h, hash(h, 0));
        }
        rewound.rewind(30);
        // Kept: what is at or below the new head (the same blocks). Gone: everything above.
        assert!(rewound.recovered(30, &hash(30, 0)).is_some());
        assert_eq!(rewound.recovered(31, &hash(31, 0)), None);
        // Back to 1 (whose signature is long pruned; a leader needing it signs it again).
        rewound.rewind(1);
        for h in 2..=40 {
            rewound.on_finalized(h, hash(h, 1));
            assert!(rewound.recovered(h, &hash(h, 1)).is_some(), "height {h}");
            // The previous block's stays within the window, as on a chain never reverted.
            if h > 2 {
                assert!(rewound.recovered(h - 1, &hash(h - 1, 1)).is_some(), "{h}");
            }
        }
    }

    #[test]
    fn t_partials_recover_and_bad_ones_are_dropped_and_counted() {
        let nodes = beacons();
        let hash = Hash32([3; 32]);
        for (_, b) in &nodes {
            b.on_finalized(5, hash);
        }
        let (_, me) = &nodes[0];
        // Its own partial alone is not t.
        assert_eq!(me.recovered(5, &hash), None);
        let msg = |i: usize| nodes[i].1.outgoing().expect("a share holder sends");
        // A partial relayed by another peer (not the sender's own index) is refused.
        me.receive(&nodes[2].0, &msg(1));
        assert_eq!(me.invalid(), 1);
        // Garbage: a wrong length (a bad signature: the next test).
        me.receive(&nodes[1].0, &[0u8; 5]);
        assert_eq!(me.invalid(), 2);
        assert_eq!(me.recovered(5, &hash), None);
        // A valid partial over another block at that height does not count towards this one.
        let fork = &beacons()[1].1;
        fork.on_finalized(5, Hash32([4; 32]));
        me.receive(&nodes[1].0, &fork.outgoing().expect("signed"));
        assert_eq!(me.recovered(5, &hash), None);
        // The first valid partial per index stays: member 1's real one is now a free repeat.
        me.receive(&nodes[1].0, &msg(1));
        assert_eq!(me.recovered(5, &hash), None);
        // Member 2's makes t = 3 over `hash`... minus member 1's, which signed the fork:
        // member 3's completes it.
        me.receive(&nodes[2].0, &msg(2));
        me.receive(&nodes[3].0, &msg(3));
        let sig = me
            .recovered(5, &hash)
            .expect("t partials over the block recover");
        let group = nodes[0].1.groups()[0].clone();
        assert!(cowboy_exec::beacon::verify_signature(
            group.sharing.public(),
            7,
            5,
            &hash,
            &sig
        ));
        assert_eq!(me.invalid(), 2, "valid partials are not counted");
        // Every member recovers the same signature from any t.
        let (_, other) = &nodes[3];
        other.receive(&nodes[1].0, &msg(1));
        other.receive(&nodes[2].0, &msg(2));
        assert_eq!(other.recovered(5, &hash), Some(sig));
    }

    #[test]
    fn a_member_caught_with_an_invalid_partial_costs_no_more_checks_at_that_height() {
        let nodes = beacons();
        let hash = Hash32([3; 32]);
        for (_, b) in &nodes {
            b.on_finalized(5, hash);
        }
        let (_, me) = &nodes[0];
        let msg = |i: usize| nodes[i].1.outgoing().expect("a share holder sends");
        // A well-formed entry whose signature is not a point: one check, one count.
        let mut bad = msg(1);
        let len = bad.len();
        bad[len - 48..].copy_from_slice(&[0xAB; 48]);
        me.receive(&nodes[1].0, &bad);
        assert_eq!(me.invalid(), 1);
        assert!(me.state.lock().expect("lock").refused[&5].contains(&(0, 1)));
        // Caught once, member 1 is dropped unchecked at that height, even with a valid one.
        me.receive(&nodes[1].0, &bad);
        me.receive(&nodes[1].0, &msg(1));
        assert_eq!(
            me.invalid(),
            1,
            "a refused member's partials are not checked again"
        );
        me.receive(&nodes[2].0, &msg(2));
        assert_eq!(
            me.recovered(5, &hash),
            None,
            "member 1's partial was not kept"
        );
        // The other members still make t.
        me.receive(&nodes[3].0, &msg(3));
        assert!(me.recovered(5, &hash).is_some());
    }

    #[test]
    fn partials_outside_the_window_are_dropped() {
        let nodes = beacons();
        let (_, me) = &nodes[0];
        me.on_finalized(100, Hash32([1; 32]));
        let (_, far) = &nodes[1];
        far.on_finalized(100 + WINDOW + 1, Hash32([2; 32]));
        me.receive(&nodes[1].0, &far.outgoing().expect("signed"));
        let s = me.state.lock().expect("lock");
        assert!(!s.partials.contains_key(&(100 + WINDOW + 1)));
        assert_eq!(s.invalid, 0, "dropped, not counted");
    }

    #[test]
    fn after_a_switch_new_partials_recover_the_same_signature_and_sharings_do_not_mix() {
        let (genesis, old_shares, output, new_shares) = crate::reshare::tests::reshared();
        let old_members: Vec<_> = old_shares.keys().cloned().collect();
        let new_members: Vec<_> = new_shares.keys().cloned().collect();
        let group = |round, sharing: &Sharing<Variant>, members: &Vec<_>, share| Group {
            round,
            sharing: sharing.clone(),
            members: members.clone(),
            share,
        };
        // Every node of the new set, holding its old share (if any) and its new one.
        let nodes: Vec<(ed25519::PublicKey, Beacon)> = new_members
            .iter()
            .map(|k| {
                let b = Beacon::new(
                    7,
                    group(
                        0,
                        genesis.public(),
                        &old_members,
                        old_shares.get(k).cloned(),
                    ),
                );
                b.switch(group(
                    1,
                    output.public(),
                    &new_members,
                    new_shares.get(k).cloned(),
                ));
                (k.clone(), b)
            })
            .collect();
        let hash = Hash32([3; 32]);
        for (_, b) in &nodes {
            b.on_finalized(5, hash);
        }
        // The joiner (in the new set only) signs under round 1 alone.
        let joiner = nodes
            .iter()
            .find(|(k, _)| !old_members.contains(k))
            .expect("a joiner");
        let joined = joiner.1.outgoing().expect("it holds a new share");
        assert_eq!(joined.len(), ENTRY_BYTES);
        assert_eq!(joined[..8], 1u64.to_be_bytes());
        // A fresh observer keeping both sharings: two old and two new partials make neither
        // sharing's t (3 of 4, 4 of 5).
        let observer = Beacon::new(7, group(0, genesis.public(), &old_members, None));
        observer.switch(group(1, output.public(), &new_members, None));
        let entries = |i: usize, round: u64| -> Vec<u8> {
            nodes[i]
                .1
                .outgoing()
                .expect("signed")
                .chunks(ENTRY_BYTES)
                .filter(|e| e[..8] == round.to_be_bytes())
                .flat_map(|e| e.to_vec())
                .collect()
        };
        let olds: Vec<usize> = (0..nodes.len())
            .filter(|i| old_members.contains(&nodes[*i].0))
            .collect();
        observer.receive(&nodes[olds[0]].0, &entries(olds[0], 0));
        observer.receive(&nodes[olds[1]].0, &entries(olds[1], 0));
        observer.receive(&nodes[olds[2]].0, &entries(olds[2], 1));
        observer.receive(&joiner.0, &joined);
        assert_eq!(observer.recovered(5, &hash), None, "sharings do not mix");
        // A joiner's entry claiming the genesis sharing: it holds no share of it.
        let mut forged = joined.clone();
        forged[..8].copy_from_slice(&0u64.to_be_bytes());
        observer.receive(&joiner.0, &forged);
        assert_eq!(observer.invalid(), 1);
        // A round the observer does not keep: dropped, not counted.
        let mut ahead = joined.clone();
        ahead[..8].copy_from_slice(&2u64.to_be_bytes());
        observer.receive(&joiner.0, &ahead);
        assert_eq!(observer.invalid(), 1);
        // Four new partials (t of 5, the joiner's among them) recover σ: the genesis group's.
        observer.receive(&nodes[olds[3]].0, &entries(olds[3], 1));
        observer.receive(&nodes[olds[1]].0, &entries(olds[1], 1));
        let sig = observer.recovered(5, &hash).expect("t new partials");
        assert!(cowboy_exec::beacon::verify_signature(
            genesis.public().public(),
            7,
            5,
            &hash,
            &sig
        ));
        // Three old partials recover the very same σ elsewhere.
        let old_only = Beacon::new(7, group(0, genesis.public(), &old_members, None));
        for i in &olds[..3] {
            old_only.receive(&nodes[*i].0, &entries(*i, 0));
        }
        assert_eq!(old_only.recovered(5, &hash), Some(sig));
    }
}
