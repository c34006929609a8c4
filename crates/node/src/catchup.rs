//! Catch-up of a validator far behind: any distance, any number of epochs, in bounded memory.
//!
//! Range sync ([`crate::sync`], `Want`) walks back from a finalization to the head holding
//! every block on the way in the chain's pending set, so it reaches only as far as that set
//! holds (256 blocks), and a node whose engines run an epoch its peers have left hears no
//! finalization at all. Catch-up is *headers first between certified blocks*:
//!
//! 1. **A target.** Either the finalizer hands over a finalization its engine reported whose
//!    block is too far above the head for range sync ([`CatchUp::aim`]), or, when the head has
//!    not moved for [`STALL`], catch-up asks the peers for a certificate of the head's next
//!    epoch `e` (`WantTip`). A peer answers with the certificate of `e`'s last block if that
//!    block is final there (every node keeps those on disk: [`crate::chain::Chain::keep_certificate`]),
//!    else the newest certificate of `e` it applied. The answer is checked against epoch
//!    `e`'s set, which this node read from its own executed state (the set is taken in the
//!    `end_block` of epoch `e − 1`'s last block, at or below the head): the certificate
//!    decodes for that set, names epoch `e`, names the header sent with it, which is of a
//!    height in `e` above the head, and its quorum of signatures verifies ([`check_tip`]).
//! 2. **The header chain down to the head.** `WantHeaders` from the target's hash, up to
//!    [`crate::sync::MAX_RANGE_HEADERS`] a request: each answer must start at the hash asked
//!    for and chain by parent hash and height; the walk ends at the header whose parent is
//!    the head, else the target is dropped. Only every [`MAX_RANGE_BLOCKS`]-th hash from the
//!    target down is kept (a *checkpoint*): memory is a hash per 64 blocks, and a target is at
//!    most an epoch above the head.
//! 3. **Bodies forwards.** From the lowest checkpoint up, `Want` of the checkpoint down to the
//!    head (one range, at most [`MAX_RANGE_BLOCKS`] blocks), then [`Chain::finalize_through`]
//!    the checkpoint: the range is authenticated by the parent hashes from the checkpoint, is
//!    re-executed block by block, and is committed before the next is asked for.
//! 4. **The next epoch.** Once the target is final, if it was the epoch's last block its
//!    certificate is kept (this node can now serve it), and the set of the next epoch is in
//!    this node's state: the next stall asks for that epoch's tip, and so on, epoch by epoch.
//!    The orchestrator ([`crate::epochs`]) starts the engine of the epoch the head is in.
//!
//! **A peer that lies** gets nothing accepted: a certificate that does not verify for the
//! epoch's set, names another epoch or another header, or a header at or below the head, is
//! dropped (and counted in the log); headers that do not chain from the hash asked for are
//! dropped whole; blocks that are not the ones the checkpoint's hash chain names are never
//! finalized (they sit in the bounded pending set until the head passes them). Each request
//! is re-sent at most [`TRIES`] times, [`ANSWER_TIMEOUT`] apart, then the target is dropped;
//! the next stall starts again from the head.
//!
//! **One peer serves.** `WantTip` goes to every peer (whoever is ahead answers); headers and
//! blocks are asked first of the peer whose certificate or headers checked out, and of every
//! peer only after a timeout, so a catch-up costs the network about one copy of the range.

use std::sync::Arc;
use std::time::Duration;

use commonware_consensus::simplex::types::Finalization;
use commonware_consensus::Epochable as _;
use commonware_cryptography::certificate::Verifier as _;
use commonware_parallel::Sequential;
use cowboy_exec::system::staking;
use cowboy_types::block::BlockHeader;
use cowboy_types::genesis::GenesisParams;
use cowboy_types::Hash32;
use tokio::sync::{mpsc, Mutex, Notify};

use crate::chain::Chain;
use crate::consensus::{hash32, Announce, Digest, Runtime, Scheme};
use crate::sync::{Answer, Certified, Message, Peer, Sync, MAX_RANGE_BLOCKS};

/// How long the head must stand still before catch-up asks peers for a certificate.
pub const STALL: Duration = Duration::from_secs(2);
/// How long an answer is waited for before the request is sent again.
pub const ANSWER_TIMEOUT: Duration = Duration::from_secs(2);
/// How many times a request is sent before its target is dropped.
pub const TRIES: usize = 5;
/// Targets handed over by the finalizer waiting (more are dropped: the finalizer hands its
/// target again every second).
const TARGET_QUEUE: usize = 4;

/// A finalized block to catch up to, and the certificate that says so.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    /// The block's hash.
    pub hash: Hash32,
    /// Its height, if known before its header arrives.
    pub height: Option<u64>,
    /// The certificate's epoch.
    pub epoch: u64,
    /// The certificate (commonware's encoding of a simplex `Finalization`).
    pub certificate: Vec<u8>,
}

/// Why a peer's `Tip` was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TipError {
    /// The certificate does not decode for the epoch's set.
    Undecodable,
    /// It is a certificate of another epoch.
    Epoch {
        /// The certificate's epoch.
        got: u64,
        /// The epoch asked for.
        expected: u64,
    },
    /// It names another block than the header sent with it.
    Payload {
        /// The block it names.
        got: Hash32,
        /// The header's hash.
        expected: Hash32,
    },
    /// The header's height is not in the epoch, or not above the head.
    Height {
        /// The header's height.
        got: u64,
        /// The lowest acceptable height.
        above: u64,
        /// The epoch.
        epoch: u64,
    },
    /// The signatures are not a valid quorum of the epoch's set.
    Signatures,
}

impl std::fmt::Display for TipError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Undecodable => write!(f, "certificate does not decode for the epoch's set"),
            Self::Epoch { got, expected } => {
                write!(f, "certificate of epoch {got}, not {expected}")
            }
            Self::Payload { got, expected } => write!(
                f,
                "certificate names block {}, the header is {}",
                got.to_hex(),
                expected.to_hex()
            ),
            Self::Height { got, above, epoch } => write!(
                f,
                "header at height {got}: not above {above} in epoch {epoch}"
            ),
            Self::Signatures => write!(f, "certificate's signatures do not verify"),
        }
    }
}

/// Check a peer's answer to `WantTip { epoch, head }` (see the module docs): `scheme` verifies
/// epoch `epoch`'s certificates (its set, under the chain's consensus namespace).
pub fn check_tip<R: rand_core::CryptoRng>(
    rng: &mut R,
    scheme: &Scheme,
    params: &GenesisParams,
    (epoch, head): (u64, u64),
    certificate: &[u8],
    header: &BlockHeader,
) -> Result<Target, TipError> {
    use commonware_codec::Decode as _;
    let finalization = Finalization::<Scheme, Digest>::decode_cfg(
        commonware_codec::Copying(certificate),
        &scheme.certificate_codec_config(),
    )
    .map_err(|_| TipError::Undecodable)?;
    let got = finalization.epoch().get();
    if got != epoch {
        return Err(TipError::Epoch {
            got,
            expected: epoch,
        });
    }
    let hash = header.hash();
    let named = hash32(&finalization.proposal.payload);
    if named != hash {
        return Err(TipError::Payload {
            got: named,
            expected: hash,
        });
    }
    if header.height <= head || staking::epoch_of(params, header.height) != epoch {
        return Err(TipError::Height {
            got: header.height,
            above: head,
            epoch,
        });
    }
    if !finalization.verify(rng, scheme, &Sequential) {
        return Err(TipError::Signatures);
    }
    Ok(Target {
        hash,
        height: Some(header.height),
        epoch,
        certificate: certificate.to_vec(),
    })
}

/// Check that `headers` (a peer's answer, newest first) start at `top` and chain by parent
/// hash and height, all above height `above`.
pub fn chains(headers: &[BlockHeader], top: &Hash32, above: u64) -> bool {
    let mut expected = *top;
    let mut height = None;
    for header in headers {
        if header.height <= above
            || height.is_some_and(|h: u64| header.height.checked_add(1) != Some(h))
            || header.hash() != expected
        {
            return false;
        }
        expected = header.parent_hash;
        height = Some(header.height);
    }
    !headers.is_empty()
}

/// Hands catch-up the targets the finalizer cannot reach by range sync.
#[derive(Clone)]
pub struct CatchUp {
    targets: mpsc::Sender<Target>,
}

impl CatchUp {
    /// Catch up to `target` (a finalization this node's engine reported) when idle.
    pub fn aim(&self, target: Target) {
        let _ = self.targets.try_send(target);
    }

    /// Start catching up on `context`'s runtime (see the module docs): requests go through
    /// `sync`, headers and certificates come from `answers`, `arrived` is notified when blocks
    /// joined the pending set, and `announce` reports what is finalized.
    pub fn start<E: Runtime>(
        context: E,
        chain: Arc<Mutex<Chain<E>>>,
        sync: Sync,
        answers: mpsc::Receiver<(Peer, Answer)>,
        arrived: Arc<Notify>,
        announce: Announce,
    ) -> CatchUp {
        let (targets, queue) = mpsc::channel(TARGET_QUEUE);
        // In memory until `run` reads the file the chain's data directory keeps.
        let bad_sources = crate::snapshot_sync::BadSources::counting(announce.bad_sources_metric());
        let task = Task {
            chain,
            sync,
            answers,
            arrived,
            announce,
            source: None,
            bad_sources,
        };
        context
            .child("catchup")
            .spawn(move |context| task.run(context, queue));
        CatchUp { targets }
    }
}

struct Task<E: Runtime> {
    chain: Arc<Mutex<Chain<E>>>,
    sync: Sync,
    answers: mpsc::Receiver<(Peer, Answer)>,
    arrived: Arc<Notify>,
    announce: Announce,
    /// The peer that last sent a certificate or headers that checked out: the first one asked
    /// for what follows (every peer after a timeout), so one peer, not all, serves a range.
    source: Option<Peer>,
    /// The peers not to take a state snapshot from again (for a while).
    bad_sources: crate::snapshot_sync::BadSources,
}

impl<E: Runtime> Task<E> {
    async fn run(mut self, mut context: E, mut targets: mpsc::Receiver<Target>) {
        let (namespace, kept) = {
            let chain = self.chain.lock().await;
            (
                staking::consensus_namespace(chain.genesis().chain_id),
                chain
                    .data_dir()
                    .join(crate::snapshot_sync::BAD_SOURCES_FILE),
            )
        };
        self.bad_sources =
            crate::snapshot_sync::BadSources::kept_in(kept, self.announce.bad_sources_metric());
        // The head and since when it has not moved; `eager` after a target was reached, when
        // the next epoch's tip is asked for without waiting for a stall.
        let mut last = (u64::MAX, context.current());
        let mut eager = false;
        // Set when a catch-up (or a snapshot) reached an epoch's last block: the next epoch's
        // tip is then asked for now, not at the next tick (a tick per epoch cost every
        // catch-up a second per epoch). At most once per epoch, so it never spins.
        let mut next_epoch_now = false;
        loop {
            let tick = if std::mem::take(&mut next_epoch_now) {
                Duration::ZERO
            } else {
                Duration::from_secs(1)
            };
            let handed = tokio::select! {
                biased;
                t = targets.recv() => match t {
                    Some(t) => Some(t),
                    None => return,
                },
                _ = context.sleep(tick) => None,
            };
            let target = match handed {
                Some(t) => t,
                None => {
                    let head = self.chain.lock().await.head().header.height;
                    let now = context.current();
                    if !eager {
                        if head != last.0 {
                            last = (head, now);
                            continue;
                        }
                        if now.duration_since(last.1).unwrap_or_default() < STALL {
                            continue;
                        }
                    }
                    let stalled = !std::mem::take(&mut eager);
                    let target = match self.tip(&mut context, &namespace, head).await {
                        Some(t) => t,
                        None => {
                            last = (head, context.current());
                            continue;
                        }
                    };
                    // After a stall (not the next epoch of a catch-up under way), a target
                    // that is its epoch's last block says the peers are past that epoch: if
                    // they are more than an epoch past, a state snapshot is cheaper than
                    // re-execution (`crate::snapshot_sync`, which decides).
                    let params = self.chain.lock().await.genesis().params.clone();
                    if stalled
                        && target
                            .height
                            .is_some_and(|h| staking::is_boundary(&params, h))
                    {
                        match self.snapshot(&mut context).await {
                            Ok(Some(installed)) => {
                                self.sync.certified(Certified {
                                    epoch: installed.epoch,
                                    height: installed.height,
                                    certificate: installed.certificate,
                                });
                                eager = true;
                                next_epoch_now = true;
                                last = (u64::MAX, context.current());
                                continue;
                            }
                            Ok(None) => {}
                            Err(e) => tracing::warn!(
                                error = %e,
                                "state snapshot failed; catching up by re-execution"
                            ),
                        }
                    }
                    target
                }
            };
            let mut target = target;
            while let Ok(newer) = targets.try_recv() {
                target = newer;
            }
            match self.follow(&context, &target).await {
                Ok(()) => {
                    eager = true;
                    let c = self.chain.lock().await;
                    next_epoch_now =
                        staking::is_boundary(&c.genesis().params, c.head().header.height);
                }
                Err(e) => {
                    tracing::warn!(target = %target.hash.to_hex(), error = %e, "catch-up stopped")
                }
            }
            last = (u64::MAX, context.current());
        }
    }

    /// Catch up from a state snapshot if this node is more than an epoch behind
    /// ([`crate::snapshot_sync`]).
    async fn snapshot(
        &mut self,
        context: &mut E,
    ) -> Result<Option<crate::snapshot_sync::Installed>, crate::snapshot_sync::SnapshotSyncError>
    {
        crate::snapshot_sync::catch_up(
            context,
            crate::snapshot_sync::Catching {
                chain: &self.chain,
                sync: &self.sync,
                answers: &mut self.answers,
                arrived: &self.arrived,
                bad: &mut self.bad_sources,
            },
        )
        .await
    }

    /// Ask the peers for a certificate of the head's next epoch above `head` and return the
    /// first that checks out.
    async fn tip(&mut self, context: &mut E, namespace: &[u8], head: u64) -> Option<Target> {
        let reader = self.chain.lock().await.readers().borrow().clone()?;
        let params = reader.genesis.params.clone();
        let epoch = staking::epoch_of(&params, head + 1);
        let participants = match crate::epochs::participants(reader.as_ref(), epoch).await {
            Ok(p) => p,
            Err(e) => {
                tracing::warn!(epoch, error = %e, "cannot check certificates of the epoch");
                return None;
            }
        };
        let scheme = Scheme::verifier(namespace, participants);
        self.drop_stale();
        self.sync.ask(Message::WantTip { epoch, head });
        let deadline = context.current() + ANSWER_TIMEOUT;
        loop {
            let (peer, answer) = tokio::select! {
                biased;
                a = self.answers.recv() => a?,
                _ = context.sleep_until(deadline) => return None,
            };
            let Answer::Tip {
                certificate,
                header,
            } = answer
            else {
                continue; // a late answer to an earlier request
            };
            match check_tip(
                context,
                &scheme,
                &params,
                (epoch, head),
                &certificate,
                &header,
            ) {
                Ok(target) => {
                    tracing::info!(
                        epoch,
                        head,
                        height = header.height,
                        "catching up to a certified block"
                    );
                    self.source = Some(peer);
                    return Some(target);
                }
                // A late answer to an earlier ask (the head has moved since): not a lie.
                Err(e @ TipError::Height { .. }) => {
                    tracing::debug!(epoch, error = %e, "peer sent a certificate refused")
                }
                Err(e) => tracing::warn!(epoch, error = %e, "peer sent a certificate refused"),
            }
        }
    }

    /// Catch up to `target`: its header chain down to the head, then its bodies forwards.
    async fn follow(&mut self, context: &E, target: &Target) -> Result<(), String> {
        let (head, known) = {
            let c = self.chain.lock().await;
            (c.head().clone(), c.knows_final(&target.hash).await)
        };
        if known.map_err(|e| e.to_string())? {
            return Ok(());
        }
        let params = self.chain.lock().await.genesis().params.clone();
        let checkpoints = self.walk(context, target, &head, &params).await?;
        let top = checkpoints.last().map(|(h, _)| *h);
        for (hash, height) in checkpoints {
            self.bodies(context, hash, height).await?;
        }
        if let (Some(top), Some(height)) =
            (top, target.height.or(self.height_of(&target.hash).await))
        {
            let chain = self.chain.lock().await;
            if staking::is_boundary(&params, height) {
                chain
                    .keep_certificate(target.epoch, &target.certificate)
                    .map_err(|e| e.to_string())?;
            }
            drop(chain);
            self.sync.certified(Certified {
                epoch: target.epoch,
                height,
                certificate: target.certificate.clone(),
            });
            tracing::info!(height, hash = %top.to_hex(), "caught up");
        }
        Ok(())
    }

    /// Drop the answers queued before a new request: late answers to earlier ones, or sent
    /// unasked, they would cost a check each (a certificate's is a quorum of signatures).
    fn drop_stale(&mut self) {
        while self.answers.try_recv().is_ok() {}
    }

    async fn height_of(&self, hash: &Hash32) -> Option<u64> {
        let reader = self.chain.lock().await.readers().borrow().clone()?;
        reader
            .blocks
            .block_by_hash(&hash.0)
            .await
            .ok()
            .flatten()
            .map(|(h, _)| h)
    }

    /// Walk the headers from `target` down to `head`; the checkpoints, lowest first, with
    /// their heights (see the module docs).
    async fn walk(
        &mut self,
        context: &E,
        target: &Target,
        head: &crate::chain::Head,
        params: &GenesisParams,
    ) -> Result<Vec<(Hash32, u64)>, String> {
        let above = head.header.height;
        let mut checkpoints = Vec::new();
        let mut cursor = target.hash;
        let mut top = None;
        loop {
            let headers = self.headers(context, cursor, above).await?;
            for header in headers {
                let hash = header.hash();
                let top_height = *top.get_or_insert(header.height);
                // A certified block is of its certificate's epoch, so at most an epoch above
                // the head: the checkpoints stay few.
                if staking::epoch_of(params, top_height) != target.epoch
                    || target.height.is_some_and(|h| h != top_height)
                {
                    return Err(format!(
                        "target at height {top_height} is not of epoch {}",
                        target.epoch
                    ));
                }
                if (top_height - header.height).is_multiple_of(MAX_RANGE_BLOCKS as u64) {
                    checkpoints.push((hash, header.height));
                }
                if header.height == above + 1 {
                    if header.parent_hash != head.hash {
                        return Err("the target does not descend from the finalized head".into());
                    }
                    checkpoints.reverse();
                    return Ok(checkpoints);
                }
                cursor = header.parent_hash;
            }
        }
    }

    /// The headers of `top` and its ancestors above `above` from the first peer whose answer
    /// chains (see [`chains`]).
    async fn headers(
        &mut self,
        context: &E,
        top: Hash32,
        above: u64,
    ) -> Result<Vec<BlockHeader>, String> {
        self.drop_stale();
        for attempt in 0..TRIES {
            let to = self.source.clone().filter(|_| attempt == 0);
            self.sync
                .ask_of(to, Message::WantHeaders { hash: top, above });
            let deadline = context.current() + ANSWER_TIMEOUT;
            loop {
                let (peer, answer) = tokio::select! {
                    biased;
                    a = self.answers.recv() => a.ok_or("sync stopped")?,
                    _ = context.sleep_until(deadline) => break,
                };
                match answer {
                    Answer::Headers(headers) if chains(&headers, &top, above) => {
                        self.source = Some(peer);
                        return Ok(headers);
                    }
                    Answer::Headers(headers) => {
                        // Another request's late answer starts elsewhere; one that starts
                        // here and breaks the chain is a lie.
                        if headers.first().is_some_and(|h| h.hash() == top) {
                            tracing::warn!(top = %top.to_hex(), "peer sent headers that do not chain");
                        }
                    }
                    Answer::Tip { .. } | Answer::Epoch { .. } => {}
                }
            }
        }
        Err(format!("no peer sent the headers below {}", top.to_hex()))
    }

    /// Fetch the range below checkpoint `hash` (at `height`) and finalize through it. A range
    /// cut short by the answer's byte bound is completed by asking for the block still
    /// missing; only [`TRIES`] timeouts in a row give up.
    async fn bodies(&mut self, context: &E, hash: Hash32, height: u64) -> Result<(), String> {
        let (mut asked, mut last_missing): (Option<Hash32>, Option<Hash32>) = (None, None);
        let mut deadline = context.current();
        let mut timeouts = 0;
        loop {
            let started = context.current();
            let (result, head) = {
                let mut c = self.chain.lock().await;
                let result = c.finalize_through(&hash).await;
                (result, c.head().header.height)
            };
            match result {
                Ok(Ok(done)) => {
                    let took = context
                        .current()
                        .duration_since(started)
                        .unwrap_or_default();
                    self.announce.finalized(&done, took, context.current());
                    tracing::debug!(height, head, blocks = done.len(), "caught up a range");
                    return Ok(());
                }
                Ok(Err(missing)) => {
                    if last_missing != Some(missing) {
                        last_missing = Some(missing);
                        timeouts = 0; // progress: the range grew down
                    }
                    if asked != Some(missing) {
                        let to = self.source.clone().filter(|_| timeouts == 0);
                        self.sync.ask_of(
                            to,
                            Message::Want {
                                hash: missing,
                                above: head,
                            },
                        );
                        asked = Some(missing);
                        deadline = context.current() + ANSWER_TIMEOUT;
                    }
                }
                Err(e) => return Err(e.to_string()),
            }
            tokio::select! {
                biased;
                _ = self.arrived.notified() => {}
                _ = context.sleep_until(deadline) => {
                    timeouts += 1;
                    if timeouts >= TRIES {
                        return Err(format!("no peer sent the blocks below height {height}"));
                    }
                    asked = None;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use commonware_codec::Encode as _;
    use commonware_consensus::simplex::types::{Finalize, Proposal};
    use commonware_consensus::types::{Epoch, Round, View};
    use commonware_cryptography::{ed25519, Signer as _};
    use commonware_utils::ordered::Set;
    use commonware_utils::TryFromIterator as _;

    fn keys(indexes: std::ops::Range<usize>) -> Vec<ed25519::PrivateKey> {
        indexes.map(crate::devnet::validator_key).collect()
    }

    fn set(keys: &[ed25519::PrivateKey]) -> Set<ed25519::PublicKey> {
        Set::try_from_iter(keys.iter().map(|k| k.public_key())).expect("distinct keys")
    }

    fn header(height: u64, parent: Hash32) -> BlockHeader {
        BlockHeader {
            parent_hash: parent,
            height,
            timestamp_ms: 1_000 + height,
            proposer: cowboy_types::Address([3; 20]),
            state_root: Hash32([4; 32]),
            tx_root: Hash32([5; 32]),
            receipts_root: Hash32([6; 32]),
            cycle_basefee: 1,
            cell_basefee: 1,
            cycles_used: 0,
            cells_used: 0,
            randomness: Hash32([7; 32]),
            votes_root: None,
            dealings_root: None,
        }
    }

    /// A finalization of `epoch` over `payload` signed by `signers` (members of `keys`).
    fn certify(
        keys: &[ed25519::PrivateKey],
        signers: usize,
        epoch: u64,
        payload: Hash32,
    ) -> Vec<u8> {
        certify_in(b"ns", keys, signers, epoch, payload)
    }

    fn certify_in(
        namespace: &[u8],
        keys: &[ed25519::PrivateKey],
        signers: usize,
        epoch: u64,
        payload: Hash32,
    ) -> Vec<u8> {
        let participants = set(keys);
        let proposal = Proposal::new(
            Round::new(Epoch::new(epoch), View::new(7)),
            View::new(6),
            crate::consensus::digest(&payload),
        );
        let votes: Vec<Finalize<Scheme, Digest>> = keys
            .iter()
            .take(signers)
            .map(|k| {
                let scheme = Scheme::signer(namespace, participants.clone().into(), k.clone())
                    .expect("member");
                Finalize::sign(&scheme, proposal.clone()).expect("signs")
            })
            .collect();
        let scheme = Scheme::verifier(namespace, participants.into());
        commonware_utils::iter::NonEmpty::try_new(votes.iter())
            .and_then(|votes| Finalization::from_finalizes(&scheme, votes, &Sequential).ok())
            .map(|f| f.encode().to_vec())
            .unwrap_or_default()
    }

    #[test]
    fn a_tip_is_accepted_only_if_its_certificate_verifies_for_the_epoch_and_names_its_header() {
        let params = GenesisParams {
            epoch_blocks: 100,
            ..GenesisParams::default()
        };
        let validators = keys(0..4);
        let scheme = Scheme::verifier(b"ns", set(&validators).into());
        let mut rng = commonware_utils::rng::TestRng::new(1);
        let block = header(250, Hash32([1; 32]));
        let hash = block.hash();
        let good = certify(&validators, 3, 2, hash);
        let tip = check_tip(&mut rng, &scheme, &params, (2, 120), &good, &block);
        assert_eq!(tip.map(|t| (t.hash, t.height)), Ok((hash, Some(250))));

        let strangers = keys(10..14);
        let cases = [
            // Signed by a set of strangers, by too few, or under another namespace.
            (
                certify(&strangers, 3, 2, hash),
                block.clone(),
                (2, 120),
                TipError::Signatures,
            ),
            (
                certify_in(b"other", &validators, 4, 2, hash),
                block.clone(),
                (2, 120),
                TipError::Signatures,
            ),
            (Vec::new(), block.clone(), (2, 120), TipError::Undecodable),
            (
                good[..good.len() - 1].to_vec(),
                block.clone(),
                (2, 120),
                TipError::Undecodable,
            ),
            (
                vec![0xff; 300],
                block.clone(),
                (2, 120),
                TipError::Undecodable,
            ),
            (
                certify(&validators, 3, 1, hash),
                block.clone(),
                (2, 120),
                TipError::Epoch {
                    got: 1,
                    expected: 2,
                },
            ),
            (
                good.clone(),
                header(251, Hash32([1; 32])),
                (2, 120),
                TipError::Payload {
                    got: hash,
                    expected: header(251, Hash32([1; 32])).hash(),
                },
            ),
            (
                good.clone(),
                block.clone(),
                (2, 250),
                TipError::Height {
                    got: 250,
                    above: 250,
                    epoch: 2,
                },
            ),
        ];
        for (certificate, header, asked, error) in cases {
            assert_eq!(
                check_tip(&mut rng, &scheme, &params, asked, &certificate, &header),
                Err(error.clone()),
                "{error}"
            );
        }
        // A quorum is three of four: two signatures do not make a certificate at all.
        assert!(
            certify(&validators, 2, 2, hash).is_empty()
                || check_tip(
                    &mut rng,
                    &scheme,
                    &params,
                    (2, 120),
                    &certify(&validators, 2, 2, hash),
                    &block
                )
                .is_err()
        );
        // A block outside the epoch, even genuinely certified.
        let early = header(150, Hash32([1; 32]));
        let certificate = certify(&validators, 3, 2, early.hash());
        assert_eq!(
            check_tip(&mut rng, &scheme, &params, (2, 120), &certificate, &early),
            Err(TipError::Height {
                got: 150,
                above: 120,
                epoch: 2
            })
        );
    }

    #[test]
    fn headers_must_start_at_the_hash_asked_for_and_chain_down() {
        let h1 = header(11, Hash32([0; 32]));
        let h2 = header(12, h1.hash());
        let h3 = header(13, h2.hash());
        let top = h3.hash();
        assert!(chains(&[h3.clone(), h2.clone(), h1.clone()], &top, 10));
        assert!(chains(std::slice::from_ref(&h3), &top, 10));
        assert!(!chains(&[], &top, 10));
        assert!(
            !chains(&[h2.clone(), h1.clone()], &top, 10),
            "starts elsewhere"
        );
        assert!(!chains(&[h3.clone(), h1.clone()], &top, 10), "a gap");
        assert!(
            !chains(&[h3.clone(), h2.clone(), h1.clone()], &top, 11),
            "at or below the head"
        );
        let forged = header(12, Hash32([5; 32]));
        assert!(
            !chains(&[h3, forged], &top, 10),
            "a parent that does not hash to the link"
        );
    }
}
