//! The host interface (whitepaper §3 "host functions", §17.3 costs): what the embedding (the
//! state transition, `cowboy-exec`) provides to a running actor — storage, messages, events,
//! value transfer, balances, block information and randomness.
//!
//! Keys and values crossing the boundary are canonical CBOR (`cowboy_types::cbor`). The VM
//! charges every host call's cycles ([`HostCosts`]) *before* calling the host; the host meters
//! cells (bytes) itself and says [`HostError::OutOfCells`] when the transaction's cell limit is
//! reached. Python code reaches the host only through the native module `pvm_host`
//! (`crate::sdk`), which `cowboy_sdk` wraps.

/// A 20-byte account address.
pub type Addr = [u8; 20];

/// The block an invocation runs in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockInfo {
    /// Block height.
    pub height: u64,
    /// Block timestamp, ms since the Unix epoch (from the header, agreed by consensus).
    pub timestamp_ms: u64,
    /// Chain id.
    pub chain_id: u64,
    /// The block's proposer.
    pub proposer: Addr,
}

/// Who is running and why.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CallContext {
    /// The actor being invoked.
    pub self_address: Addr,
    /// The transaction sender or the actor that sent the message.
    pub sender: Addr,
    /// Value (wei) that came with the call.
    pub value: u128,
    /// The block.
    pub block: BlockInfo,
}

/// Errors a host reports back into the VM.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HostError {
    /// Raised in Python at the call site as builtin exception `class` (catchable).
    Rejected {
        /// Builtin exception class name (`ValueError`, `RuntimeError`, `MemoryError`, …).
        class: &'static str,
        /// Message.
        message: String,
    },
    /// The transaction's cell limit is exhausted: uncatchable, ends the invocation.
    OutOfCells,
    /// The node failed (state I/O): uncatchable, ends the invocation.
    Fatal(String),
}

/// What the embedding provides to a running actor.
pub trait Host {
    /// The invocation's context.
    fn context(&self) -> &CallContext;
    /// Cells charged so far (any monotonic count of the transaction's): read, never
    /// charged, by the per-line attribution of a traced run (`crate::vm::profile`). A host
    /// that meters no cells keeps the default.
    fn cells_used(&self) -> u64 {
        0
    }
    /// Read a storage entry of the running actor (`key`/value are canonical CBOR).
    fn storage_get(&mut self, key: &[u8]) -> Result<Option<Vec<u8>>, HostError>;
    /// Write a storage entry of the running actor.
    fn storage_set(&mut self, key: &[u8], value: &[u8]) -> Result<(), HostError>;
    /// Delete a storage entry of the running actor (absent is not an error).
    fn storage_delete(&mut self, key: &[u8]) -> Result<(), HostError>;
    /// Queue an asynchronous message (`args`: CBOR array, map or null); returns its id.
    fn send_message(
        &mut self,
        target: Addr,
        handler: &str,
        args: &[u8],
        value: u128,
    ) -> Result<[u8; 32], HostError>;
    /// Emit an event with CBOR `data`.
    fn emit_event(&mut self, topic: &str, data: &[u8]) -> Result<(), HostError>;
    /// Move `amount` from the running actor to `to`.
    fn transfer(&mut self, to: Addr, amount: u128) -> Result<(), HostError>;
    /// Balance of `addr`.
    fn balance(&mut self, addr: Addr) -> Result<u128, HostError>;
    /// `HKDF(R_n, label)` (§3.4).
    fn randomness(&mut self, label: &[u8]) -> Result<[u8; 32], HostError>;
    /// The actor is about to store `bytes` bytes in its invocation's `/tmp` scratch space
    /// (`crate::tmpfs`): charge them as cells now, one cell per byte (CIP-3 §2.2 "a call to
    /// file.write(data) MUST immediately charge data.len() Cells"). The VM keeps the files
    /// and enforces the size cap; the host only meters.
    fn tmp_write(&mut self, bytes: u64) -> Result<(), HostError>;
    /// The cycle price of the running actor's next `set_timer`/`set_interval`, given the
    /// base price `base`: the host applies the same-block surcharge (whitepaper "Timer bomb":
    /// `base × 2^max(0, k − free)` for the actor's k-th timer in the block). The VM charges it
    /// before calling [`Host::set_timer`].
    fn set_timer_price(&mut self, base: u64) -> u64 {
        base
    }
    /// Schedule a timer owned by the running actor (§3.3); returns its id. The host checks
    /// the height, the per-actor cap and the deposit, and charges the record's cells.
    /// Hosts without a scheduler (a test host, a local runner) refuse.
    fn set_timer(&mut self, _timer: &TimerRequest<'_>) -> Result<u64, HostError> {
        Err(no_scheduler())
    }
    /// Cancel one of the running actor's timers; returns the deposit refunded to it.
    fn cancel_timer(&mut self, _id: u64) -> Result<u128, HostError> {
        Err(no_scheduler())
    }
}

fn no_scheduler() -> HostError {
    HostError::Rejected {
        class: "RuntimeError",
        message: "this host has no timer scheduler".into(),
    }
}

/// A timer an actor asks for (`cowboy_sdk.set_timer` / `set_interval`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimerRequest<'a> {
    /// First height at which it is due (for an interval: the current height + `every`).
    pub height: u64,
    /// Blocks between firings of an interval; 0 for a one-shot timer.
    pub every: u64,
    /// The public handler of the running actor it calls.
    pub handler: &'a str,
    /// Canonical CBOR of the one argument the handler receives.
    pub data: &'a [u8],
    /// Its Gas Bidding Agent; `None`: the network default agent.
    pub gba: Option<Addr>,
}

/// Cycle prices of host calls (§17.3). The embedding fills them from the genesis parameters;
/// [`Default`] is the spec's table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HostCosts {
    /// `storage_read()`.
    pub storage_read: u64,
    /// `storage_write()` (cells are the host's).
    pub storage_write: u64,
    /// `send_message()`.
    pub send_message: u64,
    /// `get_block_info()`, and the other context reads.
    pub block_info: u64,
    /// `emit_event()` fixed part.
    pub emit_event: u64,
    /// `emit_event()` per byte of data.
    pub emit_event_per_byte: u64,
    /// `hash()` fixed part.
    pub hash_base: u64,
    /// `hash()` per byte hashed.
    pub hash_per_byte: u64,
    /// `set_timer()` / `set_interval()` before the host's same-block surcharge.
    pub set_timer: u64,
    /// `cancel_timer()`.
    pub cancel_timer: u64,
}

impl Default for HostCosts {
    fn default() -> Self {
        HostCosts {
            storage_read: 10,
            storage_write: 200,
            send_message: 500,
            block_info: 100,
            emit_event: 500,
            emit_event_per_byte: 5,
            hash_base: 100,
            hash_per_byte: 1,
            set_timer: 1_000,
            cancel_timer: 500,
        }
    }
}

thread_local! {
    /// EIP-55 forms of addresses this thread has written, one per slot. A checksum hashes the
    /// 40 hex digits (a keccak-f permutation, ~6,000 instructions, as much as the rest of a
    /// storage read), and an actor's own address, the system addresses and the senders of a
    /// busy actor come back on every invocation. It is a pure function of the bytes, so the
    /// cache changes no result, and the VM charges its cycles (`sdk::address_cost`) whether it
    /// hits or not. Direct-mapped by the address's last bytes: a miss costs one compare and
    /// one slot write, and addresses that collide only evict each other.
    static CHECKSUMS: std::cell::RefCell<Vec<Option<ChecksumSlot>>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// An address and its checksummed `0x…` form.
type ChecksumSlot = ([u8; 20], [u8; 42]);

/// Slots of [`CHECKSUMS`] (62 bytes each).
const CHECKSUM_SLOTS: usize = 1024;

fn checksum_slot(a: &[u8; 20]) -> usize {
    usize::from(u16::from_le_bytes([a[18], a[19]])) % CHECKSUM_SLOTS
}

/// The EIP-55 checksummed `0x…` form of `a`, as ASCII bytes, remembered per thread.
pub fn checksum(a: [u8; 20]) -> [u8; 42] {
    CHECKSUMS.with(|c| {
        let mut c = c.borrow_mut();
        if c.is_empty() {
            c.resize(CHECKSUM_SLOTS, None);
        }
        let slot = &mut c[checksum_slot(&a)];
        match slot {
            Some((k, s)) if *k == a => *s,
            _ => {
                let s = cowboy_types::Address(a).to_checksum_bytes();
                *slot = Some((a, s));
                s
            }
        }
    })
}

/// [`checksum`] as a `String`: what `Address::to_checksum` returns, without hashing again for
/// an address this thread wrote recently (the embedding names an actor's source file by it on
/// every invocation).
pub fn checksum_string(a: [u8; 20]) -> String {
    // ASCII by construction.
    String::from_utf8_lossy(&checksum(a)).into_owned()
}

/// Whether `s` is exactly the checksummed form [`checksum`] remembers for `a` (no hash).
pub(crate) fn is_remembered_checksum(a: &[u8; 20], s: &[u8]) -> bool {
    CHECKSUMS.with(|c| {
        c.borrow()
            .get(checksum_slot(a))
            .is_some_and(|e| matches!(e, Some((k, cs)) if k == a && cs == s))
    })
}
