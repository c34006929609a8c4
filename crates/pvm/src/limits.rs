//! Invocation limits (whitepaper "The Cowboy Actor VM" §3: call depth, memory, int size).
//!
//! * Call depth: 32 on chain ([`Limits::max_depth`]); native recursion inside the VM (repr,
//!   equality, hashing of nested data) counts against the same depth so deep data raises
//!   `RecursionError` and never overflows the Rust stack.
//! * Memory: 10 MiB per invocation, accounted by a deterministic size formula per object (see
//!   [`crate::memory`]), never by asking the allocator.
//! * `/tmp` scratch space: at most [`DEFAULT_TMP_BYTES`] (256 KiB) of file contents per
//!   invocation ([`Limits::tmp_bytes`], from genesis `tmp_scratch_bytes`); see [`crate::tmpfs`].
//! * Ints: at most [`MAX_INT_BITS`] bits. [`check_int_bits`] is the ONE place that enforces it;
//!   every operation that can grow an int calls it, predicting the result size first where it can
//!   (pow, shifts, multiplication) so a huge result is never computed.

/// Largest int magnitude in bits (whitepaper §3: "integers capped at 4096 bits").
pub const MAX_INT_BITS: u64 = 4096;

/// Default on-chain call depth.
pub const DEFAULT_MAX_DEPTH: u32 = 32;

/// Default on-chain memory per invocation: 10 MiB.
pub const DEFAULT_MEMORY: u64 = 10 * 1024 * 1024;

/// Default on-chain `/tmp` scratch space per invocation: 256 KiB (whitepaper §3.1).
pub const DEFAULT_TMP_BYTES: u64 = 256 * 1024;

/// Resource limits for one invocation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Cycle budget; `None` counts cycles without a limit (CLI default).
    pub cycles: Option<u64>,
    /// Maximum Python call depth.
    pub max_depth: u32,
    /// Maximum live accounted bytes.
    pub memory: u64,
    /// Maximum total size of the files in the invocation's `/tmp`.
    pub tmp_bytes: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            cycles: None,
            max_depth: DEFAULT_MAX_DEPTH,
            memory: DEFAULT_MEMORY,
            tmp_bytes: DEFAULT_TMP_BYTES,
        }
    }
}

/// The one int-size check: `Ok` when an int of `bits` bits is allowed.
///
/// Callers that can bound a result's size before computing it (pow, `<<`, `*`) call this with
/// the bound; everything else calls it on the computed result before it becomes a value.
#[inline]
pub fn check_int_bits(bits: u64) -> Result<(), IntTooBig> {
    if bits > MAX_INT_BITS {
        Err(IntTooBig)
    } else {
        Ok(())
    }
}

/// An int would exceed [`MAX_INT_BITS`]; the VM turns it into `OverflowError`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IntTooBig;
