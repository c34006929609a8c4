//! State snapshots: a node far behind builds the state of a recent block from a peer's
//! operation log instead of re-executing every block since its own head (issue 17, item 6).
//!
//! Built on commonware-storage's QMDB sync engine (`qmdb::sync`). The state's log is an
//! append-only sequence of operations (updates, deletes, commits), authenticated by an MMR whose
//! root is the *ops root*. The state root a block header carries is not the ops root but the
//! QMDB `current` *canonical root*, `H(ops_root ‖ grafted_root ‖ [next_bit ‖ H(partial_chunk)])`
//! (the activity bitmap grafted onto the ops MMR; see `db` and the README).
//!
//! * **Trust model.** The caller trusts one thing: a block's height and state root (from a
//!   finalized header). Everything else comes from an untrusted source: the [SnapshotTarget]
//!   (ops root, operation range, witness) and every response. The target is authenticated
//!   before anything is fetched: its witness must recombine with its ops root into the trusted
//!   root ([SnapshotError::TargetNotAuthentic] otherwise). Every response's operations must
//!   verify by range proof against that ops root, at the target's log size (the MMR root commits
//!   to its leaf count, so a wrong size fails every proof too). After the last operation the
//!   engine rebuilds the activity bitmap and grafted tree from the operations, and the new
//!   database's canonical root must equal the trusted root and its commit metadata the trusted
//!   height ([SnapshotError::RootMismatch], [SnapshotError::HeightMismatch]). That final check
//!   also covers the one target field no proof covers, the lower bound: whatever it is, the
//!   state built must have the trusted root. (In practice a lower bound above the state's
//!   inactivity floor cannot even be built, [SnapshotError::BuildFailed], and one between the
//!   sync boundary and the floor builds the same state, since both lie in the same bitmap
//!   chunk.)
//! * **Failure leaves nothing.** The state is built in its own partitions, which must be empty
//!   at the start ([SnapshotError::PartitionNotEmpty]); on any error they are removed again, so
//!   a failed sync can be retried from scratch (from another peer) and never opens. While the
//!   build runs, a marker partition says so, and [StateDb::open] refuses a state that has it
//!   ([StateError::SnapshotUnfinished]): a crash mid-sync leaves nothing that opens either.
//! * **Serving.** [StateDb::snapshot_target] describes the latest committed state;
//!   [StateDb::serve_snapshot] answers a [SnapshotRequest] for any log size up to the current
//!   one (the log is append-only, so older targets stay provable until [StateDb::prune] drops
//!   operations below their lower bound). A response carries at most
//!   [MAX_SNAPSHOT_OPS] operations and at most [MAX_SNAPSHOT_RESPONSE_BYTES] bytes; the
//!   fetching side refuses anything larger before decoding it.
//!
//! Deviation from commonware's engine defaults: none, except that we do the canonical-root and
//! height checks ourselves (the engine checks only the ops root, by design: see
//! `qmdb::current::sync`).

use std::future::Future;
use std::num::{NonZeroU64, NonZeroUsize};

use commonware_codec::{Decode as _, Encode as _, EncodeSize as _};
use commonware_cryptography::blake3::Digest as Blake3Digest;
use commonware_cryptography::Blake3;
use commonware_runtime::Blob as _;
use commonware_storage::merkle::{mmr, Location, Unused};
use commonware_storage::qmdb::current::proof::OpsRootWitness;
use commonware_storage::qmdb::sync::{
    self as qsync, engine, EngineError, Request, Response, Source, Target,
};
use commonware_utils::range::NonEmptyRange;

use crate::cursor::Reader;
use crate::db::{digest, Committed, Context, Qmdb, Root, StateConfig, StateDb};
use crate::error::StateError;

/// Most operations one snapshot response carries (a request for more gets this many).
pub const MAX_SNAPSHOT_OPS: u64 = 1024;

/// Most bytes one encoded snapshot response takes. A server answers with fewer operations
/// than asked when they would not fit; one operation always fits (a value is at most 2 MiB).
pub const MAX_SNAPSHOT_RESPONSE_BYTES: usize = 4 << 20;

/// One operation of the state's log, as the sync engine moves it.
type Op =
    commonware_storage::qmdb::any::ordered::variable::Operation<mmr::Family, Vec<u8>, Vec<u8>>;

/// A request for part of a state's operation log, with a proof against the ops root the log had
/// at `size` operations. The wire form of commonware's `qmdb::sync::Request`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SnapshotRequest {
    /// Operations `start..start + max_ops` (fewer may come back) of the log at size `size`.
    Operations {
        /// The log size (operation count) of the target state.
        size: u64,
        /// The first operation.
        start: u64,
        /// The most operations wanted (at least 1).
        max_ops: u64,
    },
    /// Operation `start` and the MMR nodes pinned at `start` (what lets the fetcher build a log
    /// that begins at `start`: the target's lower bound).
    Boundary {
        /// The log size of the target state.
        size: u64,
        /// The lower bound of the target.
        start: u64,
    },
}

impl SnapshotRequest {
    /// Encoded length: a tag and three big-endian `u64`s (a boundary's third is zero).
    pub const ENCODED_LEN: usize = 25;

    /// The fixed binary encoding (for a network message).
    pub fn encode(&self) -> [u8; Self::ENCODED_LEN] {
        let (tag, size, start, max_ops) = match *self {
            SnapshotRequest::Operations {
                size,
                start,
                max_ops,
            } => (0u8, size, start, max_ops),
            SnapshotRequest::Boundary { size, start } => (1u8, size, start, 0),
        };
        let mut out = [0u8; Self::ENCODED_LEN];
        out[0] = tag;
        out[1..9].copy_from_slice(&size.to_be_bytes());
        out[9..17].copy_from_slice(&start.to_be_bytes());
        out[17..25].copy_from_slice(&max_ops.to_be_bytes());
        out
    }

    /// Decode and check a request: `start < size`, `max_ops ≥ 1` for operations, `0` for a
    /// boundary (one encoding per request).
    pub fn decode(bytes: &[u8]) -> Result<Self, SnapshotError> {
        let bad = |reason| SnapshotError::BadRequest(reason);
        let bytes: &[u8; Self::ENCODED_LEN] =
            bytes.try_into().map_err(|_| bad("length is not 25"))?;
        let word = |i: usize| {
            let mut w = [0u8; 8];
            w.copy_from_slice(&bytes[i..i + 8]);
            u64::from_be_bytes(w)
        };
        let (size, start, max_ops) = (word(1), word(9), word(17));
        let request = match (bytes[0], max_ops) {
            (0, 0) => return Err(bad("max_ops is zero")),
            (0, max_ops) => SnapshotRequest::Operations {
                size,
                start,
                max_ops,
            },
            (1, 0) => SnapshotRequest::Boundary { size, start },
            (1, _) => return Err(bad("a boundary request carries max_ops")),
            _ => return Err(bad("unknown request tag")),
        };
        request.check()?;
        Ok(request)
    }

    fn check(&self) -> Result<(), SnapshotError> {
        let (size, start) = match *self {
            SnapshotRequest::Operations { size, start, .. }
            | SnapshotRequest::Boundary { size, start } => (size, start),
        };
        if start >= size {
            return Err(SnapshotError::BadRequest("start is not below size"));
        }
        if !Location::<mmr::Family>::new(size).is_valid() {
            return Err(SnapshotError::BadRequest("size is out of range"));
        }
        Ok(())
    }

    fn to_engine(self) -> Result<Request<mmr::Family>, SnapshotError> {
        self.check()?;
        Ok(match self {
            SnapshotRequest::Operations {
                size,
                start,
                max_ops,
            } => Request::Operations {
                size: Location::new(size),
                start: Location::new(start),
                max_ops: NonZeroU64::new(max_ops)
                    .ok_or(SnapshotError::BadRequest("max_ops is zero"))?,
            },
            SnapshotRequest::Boundary { size, start } => Request::Boundary {
                size: Location::new(size),
                start: Location::new(start),
            },
        })
    }

    fn from_engine(request: Request<mmr::Family>) -> Self {
        match request {
            Request::Operations {
                size,
                start,
                max_ops,
            } => SnapshotRequest::Operations {
                size: *size,
                start: *start,
                max_ops: max_ops.get(),
            },
            Request::Boundary { size, start } => SnapshotRequest::Boundary {
                size: *size,
                start: *start,
            },
        }
    }
}

/// What a source claims about the state after block `height`, to be checked against a trusted
/// header (see the module docs: only `height` and `root` need to be trusted; the rest is
/// authenticated by them).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SnapshotTarget {
    /// The block height.
    pub height: u64,
    /// The state root after it (the header's `state_root`).
    pub root: Root,
    /// The root of the operations MMR at `size` operations: what every response proves against.
    pub ops_root: Root,
    /// The first operation to fetch: the state's sync boundary (every operation below it is
    /// inactive, so the state can be rebuilt without them).
    pub lower: u64,
    /// Operations in the log after the block (the target log size).
    pub size: u64,
    /// The grafted tree's root, which `root` commits to beside `ops_root`.
    pub grafted_root: Root,
    /// The trailing partial bitmap chunk, if any: `(next_bit, digest of the chunk)`.
    pub partial_chunk: Option<(u64, Root)>,
}

impl SnapshotTarget {
    /// Encoded length without a partial chunk; one adds 40 bytes.
    const BASE_LEN: usize = 8 + 32 + 32 + 8 + 8 + 32 + 1;

    /// The fixed binary encoding (big-endian integers; a flag byte for the partial chunk).
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(Self::BASE_LEN + 40);
        out.extend_from_slice(&self.height.to_be_bytes());
        out.extend_from_slice(&self.root);
        out.extend_from_slice(&self.ops_root);
        out.extend_from_slice(&self.lower.to_be_bytes());
        out.extend_from_slice(&self.size.to_be_bytes());
        out.extend_from_slice(&self.grafted_root);
        match &self.partial_chunk {
            None => out.push(0),
            Some((next_bit, chunk)) => {
                out.push(1);
                out.extend_from_slice(&next_bit.to_be_bytes());
                out.extend_from_slice(chunk);
            }
        }
        out
    }

    /// Decode a target (its fields are checked by [StateDb::from_snapshot], not here).
    pub fn decode(bytes: &[u8]) -> Result<Self, SnapshotError> {
        let malformed = || SnapshotError::BadTarget("malformed encoding");
        let mut r = Reader(bytes);
        let height = r.u64().ok_or_else(malformed)?;
        let root = r.array().ok_or_else(malformed)?;
        let ops_root = r.array().ok_or_else(malformed)?;
        let lower = r.u64().ok_or_else(malformed)?;
        let size = r.u64().ok_or_else(malformed)?;
        let grafted_root = r.array().ok_or_else(malformed)?;
        let partial_chunk = match r.take(1).ok_or_else(malformed)? {
            [0] => None,
            [1] => Some((
                r.u64().ok_or_else(malformed)?,
                r.array().ok_or_else(malformed)?,
            )),
            _ => return Err(malformed()),
        };
        if !r.0.is_empty() {
            return Err(malformed());
        }
        Ok(SnapshotTarget {
            height,
            root,
            ops_root,
            lower,
            size,
            grafted_root,
            partial_chunk,
        })
    }

    fn witness(&self) -> OpsRootWitness<mmr::Family, Blake3Digest> {
        OpsRootWitness {
            grafted_root: Blake3Digest(self.grafted_root),
            pending_chunk_digest: Unused,
            partial_chunk: self
                .partial_chunk
                .map(|(next_bit, chunk)| (next_bit, Blake3Digest(chunk))),
        }
    }
}

/// Where a snapshot's operations come from: a peer, over whatever transport. Untrusted: what it
/// returns is checked (see the module docs).
pub trait SnapshotSource: Send + Sync + 'static {
    /// Why the transport could not answer (its text ends up in [SnapshotError::Source]).
    type Error: core::fmt::Display + Send;

    /// Send `request` and return the encoded response ([StateDb::serve_snapshot]'s bytes).
    fn fetch(
        &self,
        request: SnapshotRequest,
    ) -> impl Future<Output = Result<Vec<u8>, Self::Error>> + Send;
}

/// How a snapshot is fetched.
#[derive(Debug, Clone, Copy)]
pub struct FetchConfig {
    /// Operations asked for per request (capped by the server at [MAX_SNAPSHOT_OPS]).
    pub batch_ops: NonZeroU64,
    /// Requests in flight at once. Responses that arrive ahead of an unanswered request wait in
    /// memory, so memory is about `outstanding × MAX_SNAPSHOT_RESPONSE_BYTES`.
    pub outstanding: NonZeroUsize,
}

impl Default for FetchConfig {
    fn default() -> Self {
        Self {
            batch_ops: NonZeroU64::new(MAX_SNAPSHOT_OPS).unwrap_or(NonZeroU64::MIN),
            outstanding: NonZeroUsize::new(4).unwrap_or(NonZeroUsize::MIN),
        }
    }
}

/// Why a snapshot could not be served or built. Every variant of the fetching side means the
/// new state's partitions were removed again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SnapshotError {
    /// A request is malformed or asks for something impossible (the text says what).
    BadRequest(&'static str),
    /// A request asks for a log size above the served state's, or for operations it pruned.
    Unavailable {
        /// The log size asked for.
        size: u64,
        /// The first operation asked for.
        start: u64,
        /// The operations the server can prove now: `oldest..size_now`.
        oldest: u64,
        /// The server's log size now.
        size_now: u64,
    },
    /// A target is malformed or inconsistent (empty range, height or root not the trusted one).
    BadTarget(&'static str),
    /// The target's witness and ops root do not recombine into the trusted state root: the
    /// source lied about the target, nothing was fetched.
    TargetNotAuthentic {
        /// The trusted root.
        expected: Root,
        /// The root the target's ops root and witness give.
        got: Root,
    },
    /// The state's partitions already hold data: a snapshot is built only into empty storage.
    PartitionNotEmpty(String),
    /// The source failed to answer (transport error text).
    Source(String),
    /// A response did not decode, or is larger than [MAX_SNAPSHOT_RESPONSE_BYTES].
    MalformedResponse(String),
    /// A response's proof does not verify against the target (tampered or missing operations,
    /// a wrong proof, or an empty answer).
    InvalidResponse,
    /// The state built from verified operations does not have the trusted root (the target's
    /// lower bound was above the state's sync boundary, or the engine misbehaved).
    RootMismatch {
        /// The trusted root.
        expected: Root,
        /// The built state's root.
        got: Root,
    },
    /// The verified operations could not be built into a state: the target's lower bound is
    /// above the state's inactivity floor (operations the state needs were left out), or local
    /// storage failed (the text is the engine's).
    BuildFailed(String),
    /// The built state's last commit is not of the trusted height.
    HeightMismatch {
        /// The trusted height.
        expected: u64,
        /// The built state's height (`None`: no commit).
        got: Option<u64>,
    },
    /// The state or the storage engine failed.
    State(StateError),
}

impl core::fmt::Display for SnapshotError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{self:?}")
    }
}

impl std::error::Error for SnapshotError {}

impl From<StateError> for SnapshotError {
    fn from(e: StateError) -> Self {
        SnapshotError::State(e)
    }
}

fn storage<E: core::fmt::Display>(e: E) -> SnapshotError {
    SnapshotError::State(StateError::Storage(e.to_string()))
}

/// The error of the engine-facing source adapter (the engine wants a `std::error::Error`).
#[derive(Debug)]
enum FetchError {
    Source(String),
    Malformed(String),
}

impl core::fmt::Display for FetchError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            FetchError::Source(e) => write!(f, "source failed: {e}"),
            FetchError::Malformed(e) => write!(f, "malformed response: {e}"),
        }
    }
}

impl std::error::Error for FetchError {}

/// Adapts a [SnapshotSource] (bytes) to commonware's engine (typed responses): bounds and
/// decodes each response; the engine verifies it.
struct Adapter<S>(S);

impl<S: SnapshotSource> Source for Adapter<S> {
    type Family = mmr::Family;
    type Digest = Blake3Digest;
    type Op = Op;
    type Error = FetchError;

    async fn serve(&self, request: Request<mmr::Family>) -> qsync::source::Result<Self> {
        let bytes = self
            .0
            .fetch(SnapshotRequest::from_engine(request))
            .await
            .map_err(|e| FetchError::Source(e.to_string()))?;
        if bytes.len() > MAX_SNAPSHOT_RESPONSE_BYTES {
            return Err(FetchError::Malformed(format!(
                "{} bytes, more than {MAX_SNAPSHOT_RESPONSE_BYTES}",
                bytes.len()
            )));
        }
        let max_ops = usize::try_from(request.max_ops().get()).unwrap_or(usize::MAX);
        let response = Response::<mmr::Family, Op, Blake3Digest>::decode_cfg(
            bytes,
            &(max_ops, StateConfig::log_codec()),
        )
        .map_err(|e| FetchError::Malformed(e.to_string()))?;
        Ok((response, None))
    }
}

impl<E: Context> StateDb<E> {
    /// The [SnapshotTarget] of the last committed state: what a peer needs, beside a trusted
    /// header, to fetch it. `None` before the first commit.
    pub async fn snapshot_target(&self) -> Result<Option<SnapshotTarget>, SnapshotError> {
        let guard = self.read_current().await?;
        let Some(committed) = guard.committed else {
            return Ok(None);
        };
        let db = guard.db()?;
        let witness = db.ops_root_witness().await.map_err(storage)?;
        Ok(Some(SnapshotTarget {
            height: committed.height,
            root: committed.root,
            ops_root: digest(&db.ops_root()),
            lower: *db.sync_boundary(),
            size: *db.bounds().end,
            grafted_root: digest(&witness.grafted_root),
            partial_chunk: witness
                .partial_chunk
                .map(|(next_bit, chunk)| (next_bit, digest(&chunk))),
        }))
    }

    /// Answer a snapshot request: operations of the log as it was at `size` operations with a
    /// range proof against that size's ops root (or a boundary operation with its pinned
    /// nodes), encoded. At most [MAX_SNAPSHOT_OPS] operations and
    /// [MAX_SNAPSHOT_RESPONSE_BYTES] bytes: fewer operations than asked when they would not
    /// fit. Sizes up to the current log size can be served, from the oldest operation not
    /// pruned; anything else is [SnapshotError::Unavailable].
    pub async fn serve_snapshot(
        &self,
        request: &SnapshotRequest,
    ) -> Result<Vec<u8>, SnapshotError> {
        let mut request = request.to_engine()?;
        if let Request::Operations { max_ops, .. } = &mut request {
            *max_ops = (*max_ops).min(NonZeroU64::new(MAX_SNAPSHOT_OPS).unwrap_or(NonZeroU64::MIN));
        }
        // Any handle serves, whatever it is pinned to: the request names the log size it
        // wants, and every size up to the current one can still be proven.
        let guard = self.read_unpinned().await;
        let db = guard.db()?;
        let bounds = db.bounds();
        if request.size() > bounds.end || request.start() < bounds.start {
            return Err(SnapshotError::Unavailable {
                size: *request.size(),
                start: *request.start(),
                oldest: *bounds.start,
                size_now: *bounds.end,
            });
        }
        loop {
            let (response, _) = db.serve(request).await.map_err(storage)?;
            let encoded = response.encode();
            if encoded.len() <= MAX_SNAPSHOT_RESPONSE_BYTES {
                return Ok(encoded.to_vec());
            }
            // Too large: keep the longest prefix of operations that fits beside the proof, and
            // prove that range instead (a shorter range has a proof of about the same size).
            let Response::Operations { proof, operations } = &response else {
                return Err(SnapshotError::BadRequest("boundary response too large"));
            };
            let Request::Operations { max_ops, .. } = &mut request else {
                return Err(SnapshotError::BadRequest("boundary response too large"));
            };
            let budget = MAX_SNAPSHOT_RESPONSE_BYTES.saturating_sub(proof.encode_size() + 16);
            let mut used = 0usize;
            let fit = operations
                .iter()
                .take_while(|op| {
                    used += op.encode_size();
                    used <= budget
                })
                .count() as u64;
            // Always shrink, so this ends; a single operation always fits (values ≤ 2 MiB).
            let fit = fit.min(max_ops.get() / 2).max(1);
            if fit == max_ops.get() {
                return Err(SnapshotError::BadRequest(
                    "one operation exceeds the response bound",
                ));
            }
            *max_ops = NonZeroU64::new(fit).unwrap_or(NonZeroU64::MIN);
        }
    }

    /// Build the state of the block `trusted` names by fetching its operations from `source`,
    /// into `config`'s partitions of `context`'s storage, which must be empty. `target` is the
    /// source's description of that state; it is authenticated against `trusted` (see the module
    /// docs) and so is every response. On success the state is open at `trusted.height` with
    /// `trusted.root` and durable (reopening with [StateDb::open] gives the same state); it has
    /// no history below that height. On any error the partitions are removed again.
    pub async fn from_snapshot<S: SnapshotSource>(
        context: E,
        config: &StateConfig,
        trusted: Committed,
        target: &SnapshotTarget,
        source: S,
        fetch: FetchConfig,
    ) -> Result<StateDb<E>, SnapshotError> {
        let partitions = config.partitions();
        for p in &partitions {
            match context.scan(p).await {
                Ok(blobs) if blobs.is_empty() => {}
                Ok(_) => return Err(SnapshotError::PartitionNotEmpty(p.clone())),
                Err(commonware_runtime::Error::PartitionMissing(_)) => {}
                Err(e) => return Err(storage(e)),
            }
        }
        let engine_target = check_target(trusted, target)?;
        // Mark the partitions as a snapshot in progress before the engine writes anything, so
        // that a crash mid-sync leaves a state `open` refuses rather than partial data.
        let marker = config.unfinished_snapshot_partition();
        let (blob, _) = context.open(&marker, b"marker").await.map_err(storage)?;
        blob.sync().await.map_err(storage)?;
        drop(blob);
        let result = Self::build(
            context.child("snapshot"),
            config,
            trusted,
            engine_target,
            source,
            fetch,
        )
        .await;
        match &result {
            // The state is durable (`build` synced it): only now is it a state.
            Ok(_) => context.remove(&marker, None).await.map_err(storage)?,
            Err(_) => {
                // Whatever the engine wrote is unverified or incomplete: leave nothing behind. A
                // failure to remove is not reported over the sync failure; the next attempt's
                // emptiness check will name the partition.
                let _ = crate::db::destroy_partitions(&context, &partitions).await;
            }
        }
        result
    }

    async fn build<S: SnapshotSource>(
        context: E,
        config: &StateConfig,
        trusted: Committed,
        target: Target<mmr::Family, Blake3Digest>,
        source: S,
        fetch: FetchConfig,
    ) -> Result<StateDb<E>, SnapshotError> {
        let history_context = context.child("history");
        let db: Qmdb<E> = qsync::sync(engine::Config {
            context: context.child("qmdb"),
            source: Adapter(source),
            target,
            max_outstanding_requests: fetch.outstanding,
            fetch_batch_size: fetch.batch_ops,
            apply_batch_size: NonZeroU64::new(MAX_SNAPSHOT_OPS).unwrap_or(NonZeroU64::MIN),
            db_config: config.qmdb(),
            update_rx: None,
            finish_rx: None,
            reached_target_tx: None,
        })
        .await
        .map_err(|e| match e {
            qsync::Error::Engine(EngineError::InvalidResponse) => SnapshotError::InvalidResponse,
            // The rebuilt log's ops root is not the target's: every response verified, so
            // this cannot happen short of an engine bug; refuse it like a bad response.
            qsync::Error::Engine(EngineError::RootMismatch { .. }) => {
                SnapshotError::InvalidResponse
            }
            qsync::Error::Source(FetchError::Malformed(e)) => SnapshotError::MalformedResponse(e),
            qsync::Error::Source(FetchError::Source(e)) => SnapshotError::Source(e),
            qsync::Error::Database(e) => SnapshotError::BuildFailed(e.to_string()),
            other => storage(other),
        })?;
        let got = digest(&db.root());
        if got != trusted.root {
            return Err(SnapshotError::RootMismatch {
                expected: trusted.root,
                got,
            });
        }
        let height = match db.get_metadata().await.map_err(storage)? {
            Some(meta) => Some(crate::db::decode_height(&meta)?),
            None => None,
        };
        if height != Some(trusted.height) {
            return Err(SnapshotError::HeightMismatch {
                expected: trusted.height,
                got: height,
            });
        }
        let db = db.sync().await.map_err(storage)?;
        Ok(StateDb::from_parts(history_context, config, db, trusted).await?)
    }
}

/// Check a source's target against the trusted commit and turn it into the engine's target.
fn check_target(
    trusted: Committed,
    target: &SnapshotTarget,
) -> Result<Target<mmr::Family, Blake3Digest>, SnapshotError> {
    if target.height != trusted.height {
        return Err(SnapshotError::BadTarget("height is not the trusted height"));
    }
    if target.root != trusted.root {
        return Err(SnapshotError::BadTarget("root is not the trusted root"));
    }
    let ops_root = Blake3Digest(target.ops_root);
    let got = digest(&target.witness().root::<Blake3>(&ops_root));
    if got != trusted.root {
        return Err(SnapshotError::TargetNotAuthentic {
            expected: trusted.root,
            got,
        });
    }
    if !Location::<mmr::Family>::new(target.size).is_valid() {
        return Err(SnapshotError::BadTarget("size is out of range"));
    }
    let range = NonEmptyRange::new(Location::new(target.lower)..Location::new(target.size))
        .map_err(|_| SnapshotError::BadTarget("lower bound is not below size"))?;
    Ok(Target::new(ops_root, range))
}
