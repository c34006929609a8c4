//! The task that runs this node's part of each reshare round on p2p channel
//! [`crate::reshare::RESHARE_CHANNEL`] and switches the beacon to the round's sharing (issue 17 item 3,
//! phase 3; the README, "Resharing"; the round's messages are [`crate::reshare::Session`]'s).
//!
//! Everything it decides is read from the chain's committed state, published by the chain
//! after each finalization ([`crate::reader`]), through exec's own functions, so every node
//! acts on the same facts the block rule checks:
//!
//! - **Start.** Once epoch `e − 1`'s last block is final here (the next block's offset in
//!   epoch `e` is at most `E/2`), the task asks exec's [`reshare::committed_round`] whether
//!   epoch `e` runs a round (once per epoch), and if so starts a [`Session`] with this node's
//!   share of the current sharing (a dealer needs it; a share of another round is not
//!   offered). A node neither dealer nor player has no session.
//! - **Exchange.** It sends the session's [`Session::outgoing`] at once and re-sends it every
//!   second of the runtime's clock (commonware `Clock`: virtual time in the simulations;
//!   nothing here reads std time), and answers each channel-7 message with
//!   [`Session::receive`]'s replies. Messages that arrive with no session are dropped.
//! - **Logs.** When the block at offset `E/4` of the epoch is final, the session finalizes
//!   (its signed log); whenever the logs it holds change, they are handed to the chain
//!   ([`Chain::offer_dealer_logs`]), which offers them to every block it builds: exec's
//!   `propose` keeps the valid ones whose dealer the branch has not recorded.
//! - **Switch.** Once the chain's current sharing (exec's [`reshare::committed_output`]) is
//!   newer than the beacon's newest, the outcome block is final and the round succeeded: a
//!   player runs [`Session::finish`] over the recorded logs ([`reshare::committed_logs`]),
//!   writes the new share ([`replace_share`]: atomic, 0600, naming its round) and only then
//!   hands the sharing with its share to [`Beacon::switch`]; any other node switches to the
//!   sharing without a share (it verifies the new holders' partials). A round that failed
//!   leaves the sharing as it was; its session ends after the outcome block.
//!
//! **Bounded.** One session at a time (the newest epoch's); per peer, the channel's quota
//! ([`crate::reshare::quota`]); per message, [`crate::reshare::max_message_bytes`] of the
//! round, checked before anything is decoded; the logs handed to the chain, one per dealer.
//!
//! **Restarts.** A node restarted during a round starts its session again: as a dealer it
//! deals the same dealing (seeded), as a player it replays the dealings it journaled before
//! acking them (`crate::reshare`, "A restarted player keeps its dealings"), so it finishes
//! with its share (`sim_a_player_restarted_during_the_genesis_generation_keeps_its_share`:
//! a player killed after its first ack and restarted blocks later; with the replay removed it
//! ends the round without a share). A player that crashed after the outcome block was final
//! on it but before its share was written finds, on restart, the round already decided and
//! the chain's current sharing the round's own, so the round can no longer be read from
//! state: it rebuilds it from the record its session kept beside the journal and finishes
//! from the journal ([`Session::resume`];
//! `sim_a_player_restarted_after_the_outcome_before_keeping_its_share_resumes_the_round`,
//! which ends with that player holding no share when the resumption is disabled).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use commonware_cryptography::bls12381::primitives::group::Share;
use commonware_cryptography::{ed25519, Signer};
use commonware_p2p::{Receiver, Recipients, Sender};
use cowboy_exec::reshare;
use cowboy_types::genesis::GenesisParams;
use tokio::sync::Mutex;

use crate::beacon::{Beacon, Group};
use crate::chain::Chain;
use crate::consensus::Runtime;
use crate::reader::Reader;
use crate::reshare::{replace_share, Session, To};

/// How often a session's outgoing messages are re-sent.
const RESEND: Duration = Duration::from_secs(1);

/// What the task needs besides the chain, the beacon and the channel.
pub struct Config {
    /// This validator's key (it signs dealings, acks and logs).
    pub key: ed25519::PrivateKey,
    /// Its share of the beacon and the round of the sharing it belongs to, if it holds one.
    pub share: Option<(u64, Share)>,
    /// Where its share file lives (`None`: not persisted, as on a dev chain).
    pub share_dir: Option<PathBuf>,
    /// The genesis parameters (`epoch_blocks`).
    pub params: GenesisParams,
}

/// Start the task on `channel` (see the module docs).
pub fn start<E, S, R>(
    context: &E,
    chain: Arc<Mutex<Chain<E>>>,
    beacon: Beacon,
    cfg: Config,
    channel: (S, R),
) where
    E: Runtime,
    S: Sender<PublicKey = ed25519::PublicKey>,
    R: Receiver<PublicKey = ed25519::PublicKey>,
{
    let clock = context.child("reshare_clock");
    context.child("reshare").spawn(move |_| async move {
        let (mut sender, mut receiver) = channel;
        let mut readers = chain.lock().await.readers();
        let mut task = Task {
            chain,
            beacon,
            me: cfg.key.public_key(),
            cfg,
            session: None,
            looked_up: None,
            switch_checked: None,
            resumed: None,
            offered: 0,
        };
        let mut resend_at = clock.current() + RESEND;
        let mut head_moved = true;
        loop {
            if head_moved {
                head_moved = false;
                let reader = readers.borrow_and_update().clone();
                if let Some(reader) = reader {
                    for (to, msg) in task.on_head(&reader).await {
                        task.send(&mut sender, to, msg);
                    }
                }
            }
            tokio::select! {
                biased;
                changed = readers.changed() => {
                    if changed.is_err() {
                        return;
                    }
                    head_moved = true;
                }
                message = receiver.recv() => {
                    let Ok((peer, bytes)) = message else { return };
                    for (to, msg) in task.receive(&peer, bytes.as_ref()).await {
                        task.send(&mut sender, to, msg);
                    }
                }
                _ = clock.sleep_until(resend_at) => {
                    resend_at = clock.current() + RESEND;
                    for (to, msg) in task.outgoing() {
                        task.send(&mut sender, to, msg);
                    }
                }
            }
        }
    });
}

/// The task's state (see the module docs).
struct Task<E: Runtime> {
    chain: Arc<Mutex<Chain<E>>>,
    beacon: Beacon,
    me: ed25519::PublicKey,
    cfg: Config,
    /// The running round's session.
    session: Option<Session>,
    /// The epoch whose round was last looked up (once per epoch).
    looked_up: Option<u64>,
    /// The epoch whose outcome was last looked for (once per epoch, from its outcome block
    /// on: reading the sharing decodes its polynomial).
    switch_checked: Option<u64>,
    /// The round this node last tried to resume after its outcome (once per round).
    resumed: Option<u64>,
    /// How many logs were last handed to the chain.
    offered: usize,
}

impl<E: Runtime> Task<E> {
    /// The finalized head moved to `reader`'s: switch, start, finalize or end as the
    /// committed state says; returns what to send now.
    async fn on_head(&mut self, reader: &Reader<E>) -> Vec<(To, Vec<u8>)> {
        let e = self.cfg.params.epoch_blocks;
        if e < 2 {
            return Vec::new();
        }
        let head = reader.head.header.height;
        let epoch = head / e;
        if head % e >= e / 2 && self.switch_checked != Some(epoch) {
            match self.switch_if_decided(reader).await {
                Ok(()) => self.switch_checked = Some(epoch),
                // A reader replaced while read, or a storage failure: retried on the next head.
                Err(error) => tracing::warn!(head, %error, "cannot read the reshare outcome"),
            }
        }
        if self
            .session
            .as_ref()
            .is_some_and(|s| head >= s.round().last)
        {
            // The outcome block is final (and switched to, if the round succeeded).
            self.session = None;
            self.offer(Vec::new()).await;
        }
        let mut out = Vec::new();
        let (epoch, offset) = ((head + 1) / e, (head + 1) % e);
        // Epoch 0 runs a round only on a chain that generates its group (exec's rule); a
        // dealt chain reads nothing here before epoch 1, as it always did.
        let may_run = epoch >= 1 || self.cfg.params.beacon_by_dkg();
        if may_run && offset <= e / 2 && self.looked_up != Some(epoch) {
            match self.start_round(reader, epoch).await {
                Ok(()) => self.looked_up = Some(epoch),
                Err(error) => tracing::warn!(epoch, %error, "cannot read the reshare round"),
            }
            if let Some(s) = &self.session {
                out = s.outgoing();
            }
        }
        let finalize = self
            .session
            .as_ref()
            .is_some_and(|s| head >= s.round().round * e + e / 4);
        if finalize {
            if let Some(s) = self.session.as_mut() {
                let pending = s.outgoing();
                let had_log = pending.iter().any(|(to, _)| *to == To::All);
                if s.finalize().is_some() && !had_log {
                    // Players that never acked get their shares revealed in the log.
                    let unacked = pending.len();
                    tracing::info!(
                        round = s.round().round,
                        unacked,
                        "reshare: dealer log signed"
                    );
                    out = s.outgoing();
                }
            }
            self.offer_held().await;
        }
        out
    }

    /// Start epoch `epoch`'s round if it runs one (see the module docs).
    async fn start_round(&mut self, reader: &Reader<E>, epoch: u64) -> Result<(), String> {
        let round = reshare::committed_round(&reader.state, &self.cfg.params, epoch)
            .await
            .map_err(|e| e.to_string())?;
        let Some(round) = round else {
            return Ok(());
        };
        let current = reshare::committed_output(&reader.state)
            .await
            .map_err(|e| e.to_string())?
            .map(|(r, _)| r);
        // Dealing needs a share of the round's previous sharing: the current one.
        let share = self
            .cfg
            .share
            .as_ref()
            .filter(|(r, _)| Some(*r) == current)
            .map(|(_, s)| s.clone());
        let dealing = share.is_some() || round.generation;
        self.session = Session::start(round, &self.cfg.key, share, self.cfg.share_dir.as_deref());
        if let Some(s) = &self.session {
            tracing::info!(
                round = s.round().round,
                dealers = s.round().dealers.len(),
                players = s.round().players.len(),
                dealing,
                "reshare round started"
            );
        }
        Ok(())
    }

    /// If the chain's current sharing is newer than the beacon's, switch to it (with this
    /// node's new share if it was a player). A player that holds no share of the current
    /// sharing and has no session of its round (restarted after the outcome block was final
    /// here but before its share was written) resumes the round from its journal once
    /// ([`Session::resume`]) and, with the share that gives, switches again.
    async fn switch_if_decided(&mut self, reader: &Reader<E>) -> Result<(), String> {
        let Some((round, output)) = reshare::committed_output(&reader.state)
            .await
            .map_err(|e| e.to_string())?
        else {
            return Ok(());
        };
        let switched = self.beacon.rounds().last().is_some_and(|r| *r >= round);
        let player = output.players().position(&self.me).is_some();
        let held = self.cfg.share.as_ref().is_some_and(|(r, _)| *r == round);
        if switched && (held || !player || self.resumed == Some(round)) {
            return Ok(());
        }
        let mut resumed: Option<Session>;
        let session = match self.session.as_mut().filter(|s| s.round().round == round) {
            Some(session) => Some(session),
            None if player => {
                self.resumed = Some(round);
                resumed = self.cfg.share_dir.as_deref().and_then(|dir| {
                    // The share it held before the round, if any: a dealer redeals to itself.
                    let before = self.cfg.share.clone().filter(|(r, _)| *r < round);
                    Session::resume(
                        &self.cfg.params,
                        round,
                        &self.cfg.key,
                        before.map(|(_, s)| s),
                        dir,
                    )
                });
                if resumed.is_some() {
                    tracing::info!(round, "reshare: round resumed from its journal");
                }
                resumed.as_mut()
            }
            None => None,
        };
        let share = match session {
            Some(session) => {
                let logs = reshare::committed_logs(&reader.state)
                    .await
                    .map_err(|e| e.to_string())?
                    .filter(|(r, _)| *r == round)
                    .map(|(_, logs)| logs)
                    .unwrap_or_default();
                let share = match session.finish(&logs) {
                    Some(Ok(share)) => persist(self.cfg.share_dir.as_deref(), round, share),
                    Some(Err(error)) => {
                        tracing::error!(round, %error, "reshare: no share of the new sharing");
                        None
                    }
                    None => None,
                };
                session.discard_journal();
                share
            }
            None => {
                if player {
                    tracing::error!(
                        round,
                        "reshare: a player of the new sharing without the round's session or \
                         its journal: it holds no share until a later round"
                    );
                }
                None
            }
        };
        if switched && share.is_none() {
            // Nothing new: the beacon already runs this sharing, without a share.
            return Ok(());
        }
        tracing::info!(
            round,
            share = share.is_some(),
            "beacon switched to the round's sharing"
        );
        self.beacon.switch(Group {
            round,
            sharing: output.public().clone(),
            members: output.players().iter().cloned().collect(),
            share: share.clone(),
        });
        self.cfg.share = share.map(|s| (round, s));
        Ok(())
    }

    /// Handle one channel message.
    async fn receive(&mut self, peer: &ed25519::PublicKey, bytes: &[u8]) -> Vec<(To, Vec<u8>)> {
        let Some(session) = self.session.as_mut() else {
            return Vec::new();
        };
        let replies = session.receive(peer, bytes);
        self.offer_held().await;
        replies
    }

    /// What to re-send now.
    fn outgoing(&self) -> Vec<(To, Vec<u8>)> {
        self.session
            .as_ref()
            .map(Session::outgoing)
            .unwrap_or_default()
    }

    /// Hand the session's logs to the chain if they changed (a node keeps at most one per
    /// dealer and never drops one within a round, so the count tells).
    async fn offer_held(&mut self) {
        let logs = self.session.as_ref().map(Session::logs).unwrap_or_default();
        if logs.len() != self.offered {
            self.offer(logs).await;
        }
    }

    async fn offer(&mut self, logs: Vec<Vec<u8>>) {
        self.offered = logs.len();
        self.chain.lock().await.offer_dealer_logs(logs);
    }

    fn send<S: Sender<PublicKey = ed25519::PublicKey>>(
        &self,
        sender: &mut S,
        to: To,
        msg: Vec<u8>,
    ) {
        let recipients = match to {
            To::One(peer) => Recipients::One(peer),
            To::All => {
                let Some(s) = &self.session else { return };
                let round = s.round();
                let mut all: Vec<_> = round
                    .dealers
                    .iter()
                    .chain(round.players.iter())
                    .filter(|k| **k != self.me)
                    .cloned()
                    .collect();
                all.sort();
                all.dedup();
                Recipients::Some(all)
            }
        };
        let _ = sender.send(recipients, msg, false);
    }
}

/// Write the new share to `dir` (if the node keeps one on disk) before it is used: a share
/// that cannot be written is not used (a restart would not find it).
fn persist(dir: Option<&std::path::Path>, round: u64, share: Share) -> Option<Share> {
    match dir {
        None => Some(share),
        Some(dir) => match replace_share(dir, round, &share) {
            Ok(()) => Some(share),
            Err(error) => {
                tracing::error!(round, %error, "reshare: cannot keep the new share");
                None
            }
        },
    }
}
