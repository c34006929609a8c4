//! What every executor does around its work: run it under the job's wall-clock bound, refuse a
//! result over `max_return_bytes`, measure the wall time, and report a typed failure as the
//! fault it stands for (exec README, "Outcome table").

use std::future::Future;
use std::time::{Duration, Instant};

use super::{FaultKind, Job, Outcome, Usage};

/// An executor's typed reason for producing no result.
pub trait Failure: Sized {
    /// The fault it is reported as.
    fn kind(&self) -> FaultKind;
    /// The share of the work done when it failed, 0..=10,000 basis points.
    fn progress_bps(&self) -> u16;
    /// The job's wall-clock bound passed.
    fn timed_out() -> Self;
    /// The result is `got` bytes, over the job's `max` (the work was done).
    fn too_large(got: u64, max: u64) -> Self;
}

/// `work`'s result, if it comes within `job`'s `max_wall_ms` (else it is dropped, which stops
/// it at its next await) and is at most `max_return_bytes`.
pub async fn bounded<E: Failure>(
    job: &Job,
    work: impl Future<Output = Result<Vec<u8>, E>>,
) -> Result<Vec<u8>, E> {
    let within = Duration::from_millis(job.bounds.max_wall_ms);
    let result = tokio::time::timeout(within, work)
        .await
        .map_err(|_| E::timed_out())??;
    let (got, max) = (result.len() as u64, job.max_return_bytes);
    if got > max {
        return Err(E::too_large(got, max));
    }
    Ok(result)
}

/// `work` as an [`Outcome`]: its wall time measured, no tokens (the executors that count
/// tokens report their own).
pub async fn measured<E: Failure>(work: impl Future<Output = Result<Vec<u8>, E>>) -> Outcome {
    let start = Instant::now();
    let result = work.await;
    let usage = Usage {
        tokens: 0,
        wall_ms: u64::try_from(start.elapsed().as_millis()).unwrap_or(u64::MAX),
    };
    match result {
        Ok(result) => Outcome::Done { result, usage },
        Err(e) => Outcome::Fault {
            kind: e.kind(),
            progress_bps: e.progress_bps(),
            usage,
        },
    }
}
