//! Deterministic memory accounting (whitepaper §3 "10 MiB per invocation").
//!
//! Every heap object adds a size computed by a fixed formula (header + per-element bytes) to a
//! per-thread live counter when created, and subtracts exactly that amount when dropped
//! ([`Acct`]). Reference counting makes the drop point deterministic. Allocations whose size is
//! known beforehand (`[0] * n`, `"x" * n`, `range` → list, `join`) call [`reserve`] first, so
//! a giant allocation fails before any memory is touched. Growth that is not pre-checked sets
//! the live counter (and the peak) above the limit; the interpreter notices at the next
//! instruction, even when the memory was freed again in between.
//!
//! Growth is also work: every byte added to the live count (an object created, a container
//! grown) owes cycles at [`crate::cost::ALLOC_BYTES_PER_CYCLE`], settled by the VM at its next
//! instruction like any other debt ([`owe`]). Shrinking refunds nothing, so churn pays for
//! every allocation it makes. The debt of one allocation is bounded by the memory limit.
//!
//! One VM runs per thread at a time; the counter is thread-local for that reason.

use std::cell::Cell;

/// Accounted size of any heap object header.
pub const HEADER: usize = 32;
/// Accounted size of one value slot in a container.
pub const SLOT: usize = 16;

thread_local! {
    static LIVE: Cell<u64> = const { Cell::new(0) };
    static PEAK: Cell<u64> = const { Cell::new(0) };
    static LIMIT: Cell<u64> = const { Cell::new(u64::MAX) };
    /// The peak has exceeded the limit.
    static OVER: Cell<bool> = const { Cell::new(false) };
    /// Work done where no VM was at hand to charge it, in cycles (see [`owe`]).
    static DEBT: Cell<u64> = const { Cell::new(0) };
    /// Bytes grown and not yet owed as cycles (less than [`GROWTH_CHUNK`]).
    static GROWN: Cell<u64> = const { Cell::new(0) };
    /// The memory limit was passed or work is owed: the one flag the interpreter asks every
    /// instruction, so neither costs the common path more than one read.
    static ATTENTION: Cell<bool> = const { Cell::new(false) };
}

/// Record `cycles` of work done below the VM (the probes of a hash-table lookup on a name
/// path that has no `Vm` to charge). The VM charges the debt at its next instruction, or
/// sooner at its next table operation (`Vm::settle`), so the overrun is at most one lookup.
///
/// Work done with accounting off ([`unaccounted`]: the compiler building cached code) is the
/// loader's, priced by its own formula, and is not owed: whether it happens at all depends on
/// the thread's code cache, so charging it would make cycles depend on what ran before.
pub fn owe(cycles: u64) {
    if !ACCOUNTING.with(|a| a.get()) {
        return;
    }
    DEBT.with(|d| d.set(d.get().saturating_add(cycles)));
    ATTENTION.with(|a| a.set(true));
}

/// Take the owed cycles (zero when none), clearing the flag unless memory is over its limit.
pub fn take_debt() -> u64 {
    let d = DEBT.with(|d| d.replace(0));
    if !OVER.with(|o| o.get()) {
        ATTENTION.with(|a| a.set(false));
    }
    d
}

/// True when the interpreter must look: memory over its limit or cycles owed.
#[inline]
pub fn attention() -> bool {
    ATTENTION.with(|a| a.get())
}

/// Reset the counters for a new invocation with the given limit.
pub fn reset(limit: u64) {
    NEXT_SERIAL.with(|n| n.set(1));
    LIVE.with(|l| l.set(0));
    PEAK.with(|p| p.set(0));
    LIMIT.with(|l| l.set(limit));
    OVER.with(|o| o.set(false));
    DEBT.with(|d| d.set(0));
    GROWN.with(|g| g.set(0));
    ATTENTION.with(|a| a.set(false));
}

/// Every per-invocation counter of this module, as one value: what an invocation's memory
/// state is at a point of its run. A module body replayed from its snapshot
/// (`crate::body_cache`) puts the counters exactly where running the body left them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Meters {
    live: u64,
    peak: u64,
    over: bool,
    debt: u64,
    grown: u64,
    attention: bool,
    next_serial: u64,
}

/// The counters now.
pub fn meters() -> Meters {
    Meters {
        live: live(),
        peak: peak(),
        over: over_limit(),
        debt: DEBT.with(|d| d.get()),
        grown: GROWN.with(|g| g.get()),
        attention: attention(),
        next_serial: NEXT_SERIAL.with(|n| n.get()),
    }
}

/// Put the counters back to `m` (the limit is not part of them).
pub fn set_meters(m: Meters) {
    LIVE.with(|l| l.set(m.live));
    PEAK.with(|p| p.set(m.peak));
    OVER.with(|o| o.set(m.over));
    DEBT.with(|d| d.set(m.debt));
    GROWN.with(|g| g.set(m.grown));
    ATTENTION.with(|a| a.set(m.attention));
    NEXT_SERIAL.with(|n| n.set(m.next_serial));
}

/// Live accounted bytes.
pub fn live() -> u64 {
    LIVE.with(|l| l.get())
}

/// Peak accounted bytes since [`reset`].
pub fn peak() -> u64 {
    PEAK.with(|p| p.get())
}

/// True when accounted memory has exceeded the limit at any point of this invocation.
///
/// The peak, not the live count: a native operation that grows memory without a pre-check and
/// frees it again before the next instruction (a temporary copy of a huge argument list) must
/// still end the invocation, so the limit bounds the peak every outcome reports.
#[inline]
pub fn over_limit() -> bool {
    OVER.with(|o| o.get())
}

/// Check that `bytes` more would fit, without allocating. `Err` means MemoryError.
pub fn reserve(bytes: u64) -> Result<(), MemoryLimit> {
    let l = live();
    if l.saturating_add(bytes) > LIMIT.with(|x| x.get()) {
        Err(MemoryLimit)
    } else {
        Ok(())
    }
}

/// Growth owed in whole chunks, so the interpreter's attention flag goes up once per chunk
/// rather than at every small object. A multiple of [`crate::cost::ALLOC_BYTES_PER_CYCLE`].
const GROWTH_CHUNK: u64 = 1024;

fn add(n: u64) {
    // Only accounted work owes (see `owe`); the check keeps the remainder deterministic too.
    GROWN.with(|g| {
        if !ACCOUNTING.with(|a| a.get()) {
            return;
        }
        let t = g.get().saturating_add(n);
        if t >= GROWTH_CHUNK {
            let whole = t - t % GROWTH_CHUNK;
            g.set(t - whole);
            owe(whole / crate::cost::ALLOC_BYTES_PER_CYCLE);
        } else {
            g.set(t);
        }
    });
    LIVE.with(|l| {
        let v = l.get().saturating_add(n);
        l.set(v);
        PEAK.with(|p| {
            if v > p.get() {
                p.set(v);
                if v > LIMIT.with(|l| l.get()) {
                    OVER.with(|o| o.set(true));
                    ATTENTION.with(|a| a.set(true));
                }
            }
        });
    });
}

fn sub(n: u64) {
    // `try_with`: objects cached in other thread-locals (compiled code) may drop while the
    // thread is being torn down, after LIVE is gone.
    let _ = LIVE.try_with(|l| l.set(l.get().saturating_sub(n)));
}

/// The memory limit was hit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemoryLimit;

/// An accounting token owned by a heap object: adds its size on creation, subtracts on drop.
/// The size can change for growable containers ([`Acct::resize`]). It also carries the
/// object's identity serial, assigned on first request in program order, so identity hashes
/// are deterministic (never derived from addresses).
#[derive(Debug)]
pub struct Acct(Cell<u64>, Cell<u64>);

thread_local! {
    static NEXT_SERIAL: Cell<u64> = const { Cell::new(1) };
    static ACCOUNTING: Cell<bool> = const { Cell::new(true) };
}

/// Identity serial of objects created by [`unaccounted`]: fixed, so an object that outlives
/// one invocation (a cached code constant) looks the same to every invocation.
const UNACCOUNTED_SERIAL: u64 = u64::MAX >> 2;

/// Run `f` with accounting off: objects it creates (compiled code constants) weigh nothing
/// and carry a fixed serial, so caching compiled code across invocations changes neither the
/// memory figures nor any identity an invocation can observe.
pub fn unaccounted<T>(f: impl FnOnce() -> T) -> T {
    let was = ACCOUNTING.with(|a| a.replace(false));
    let out = f();
    ACCOUNTING.with(|a| a.set(was));
    out
}

/// First identity serial of the objects [`permanent`] builds: above any serial an invocation
/// reaches (one per object it makes, and the memory limit bounds those to millions), below
/// [`UNACCOUNTED_SERIAL`].
const PERMANENT_SERIALS: u64 = 1 << 48;

thread_local! {
    /// The next serial [`permanent`] gives; 0 outside it.
    static NEXT_PERMANENT: Cell<u64> = const { Cell::new(0) };
}

/// Run `f`, building objects that outlive every invocation of the thread (the VM base):
/// unaccounted, as [`unaccounted`], but each given a distinct serial at creation, in creation
/// order, so their identities (and identity hashes: `{int, str}`) are the same on every thread
/// of every machine however many invocations came before.
pub fn permanent<T>(f: impl FnOnce() -> T) -> T {
    let was = NEXT_PERMANENT.with(|n| n.replace(PERMANENT_SERIALS));
    let out = unaccounted(f);
    NEXT_PERMANENT.with(|n| n.set(was));
    out
}

/// Whether the object was built by [`permanent`] and that build is over: it belongs to the
/// thread's shared base (builtin classes, the shared `cowboy_sdk`), which every invocation
/// sees and none may change. The containers that can be reached there (module and function
/// namespaces) refuse writes by this test (`Vm::dict_set` and its kin).
pub fn is_frozen(acct: &Acct) -> bool {
    let serial = acct.1.get();
    (PERMANENT_SERIALS..UNACCOUNTED_SERIAL).contains(&serial)
        && NEXT_PERMANENT.with(|n| n.get()) == 0
}

impl Acct {
    /// Account `bytes` for a new object.
    pub fn new(bytes: usize) -> Acct {
        if !ACCOUNTING.with(|a| a.get()) {
            let serial = NEXT_PERMANENT.with(|n| match n.get() {
                0 => UNACCOUNTED_SERIAL,
                s => {
                    n.set(s + 1);
                    s
                }
            });
            return Acct(Cell::new(0), Cell::new(serial));
        }
        add(bytes as u64);
        Acct(Cell::new(bytes as u64), Cell::new(0))
    }

    /// The object's identity serial (stable for its life, distinct among objects of this
    /// invocation, deterministic).
    pub fn serial(&self) -> u64 {
        if self.1.get() == 0 {
            let s = NEXT_SERIAL.with(|n| {
                let v = n.get();
                n.set(v + 1);
                v
            });
            self.1.set(s);
        }
        self.1.get()
    }

    /// The identity serial if one was assigned, without assigning one (0: none yet).
    pub(crate) fn serial_if_assigned(&self) -> u64 {
        self.1.get()
    }

    /// Give this token `serial`: a copy of an object (`value::snapshot`) keeps the identity
    /// its original had, or had not yet, been given.
    pub(crate) fn set_serial(&self, serial: u64) {
        self.1.set(serial);
    }

    /// Give this token `size` and `serial` without touching the counters: a copy made while
    /// the caller sets every counter itself afterwards ([`set_meters`]: a module body's replay).
    pub(crate) fn restore(&self, size: u64, serial: u64) {
        self.0.set(size);
        self.1.set(serial);
    }

    /// The object outlives invocations (built by [`permanent`] or [`unaccounted`]): shared,
    /// never copied into an invocation.
    pub(crate) fn is_shared(&self) -> bool {
        self.1.get() >= PERMANENT_SERIALS
    }

    /// The accounted size.
    pub fn size(&self) -> usize {
        self.0.get() as usize
    }

    /// Change the accounted size to `bytes` (container grew or shrank).
    pub fn resize(&self, bytes: usize) {
        let old = self.0.get();
        let new = bytes as u64;
        if new > old {
            add(new - old)
        } else {
            sub(old - new)
        }
        self.0.set(new);
    }
}

/// An empty object's token (it accounts nothing until [`Acct::resize`]d).
impl Default for Acct {
    fn default() -> Acct {
        Acct::new(0)
    }
}

impl Clone for Acct {
    fn clone(&self) -> Acct {
        Acct::new(self.0.get() as usize)
    }
}

impl Drop for Acct {
    fn drop(&mut self) {
        let n = self.0.get();
        if n > 0 {
            sub(n)
        }
    }
}
