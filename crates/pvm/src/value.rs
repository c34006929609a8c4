//! Python values and heap objects (ARCHITECTURE D2 "Heap").
//!
//! [`Value`] is a 16-byte enum: immediates (None, bool, small int, float) inline, everything
//! else behind an `Rc`. Mutable containers sit behind `RefCell`. Every heap object carries an
//! [`Acct`] so its deterministic size is added to the invocation's live bytes on creation and
//! removed on drop. Ints that do not fit `i64` are `BigInt` (always normalised: a `BigInt`
//! value never fits `i64`).

mod code;
pub mod frame;
pub mod snapshot;

pub(crate) use code::{ClassFacts, FACT_DICT_LOAD, FACT_PLAIN_STORE};
pub use code::{Code, NameCache};

use crate::memory::{Acct, HEADER, SLOT};
use indexmap::IndexMap;
use num_bigint::BigInt;
use std::cell::{Cell, RefCell};
use std::rc::Rc;

/// The hash of `str` and `bytes` text (`hash()`, and so Python dicts and sets): SipHash-1-3
/// under fixed keys.
///
/// Fixed, so every validator computes the same values (and `hash('a')` is the same on every
/// run, where CPython salts it per process). Not FxHash: FxHash mixes one byte at a time
/// through an invertible step, so anyone can compute offline as many strings as they like that
/// share one hash. SipHash keeps a 256-bit state, so equal 64-bit hashes of different texts
/// are found only by brute force, one pair at a time. Partial collisions (the few bits a table
/// indexes by) are cheap to find under fixed keys, which is why Python dicts charge every probe
/// and the VM's own maps do not use this hasher (see [`NameBuild`]).
#[derive(Clone, Copy)]
pub struct FixedHasher(siphasher::sip::SipHasher13);

impl Default for FixedHasher {
    fn default() -> Self {
        // Arbitrary fixed keys (the fractional digits of pi); changing them changes consensus.
        FixedHasher(siphasher::sip::SipHasher13::new_with_keys(
            0x243F_6A88_85A3_08D3,
            0x1319_8A2E_0370_7344,
        ))
    }
}

impl std::hash::Hasher for FixedHasher {
    fn finish(&self) -> u64 {
        self.0.finish()
    }
    fn write(&mut self, bytes: &[u8]) {
        self.0.write(bytes);
    }
    fn write_u64(&mut self, n: u64) {
        self.0.write_u64(n);
    }
}

/// The hash of a string's UTF-8 bytes: SipHash-1-3 under the fixed keys of [`FixedHasher`].
#[inline]
pub fn str_hash(s: &str) -> u64 {
    use std::hash::Hasher;
    let mut h = FixedHasher::default();
    h.write(s.as_bytes());
    h.finish()
}

/// The hasher of the VM's own maps: class namespaces ([`NameMap`]), loaded modules, the code
/// cache. aHash under keys drawn at random for each map (`ahash::RandomState`): a keyed hash
/// like the standard library's SipHash-1-3 `RandomState`, which it replaced because hashing
/// names was 4% of a token call's instructions (a class lookup's refill hashes the name).
///
/// Random keys do not make execution nondeterministic: these are `IndexMap`s, whose order is
/// insertion order and whose answers never depend on the hash; the hash only decides where an
/// index sits in the table, so it moves time, never a result, a cycle or an accounted byte.
/// They must be random because these tables do not charge their probes: under fixed keys
/// anyone can brute-force offline, at ~2^19 tries a name, attribute names that share one probe
/// sequence and one tag byte of a 4,096-slot table; a class holding a thousand such names made
/// each lookup of one compare them all for the price of one (the calibration row "class
/// attribute, names sharing a probe chain" measured that before and after).
pub type NameBuild = ahash::RandomState;
/// Insertion-ordered map from attribute names to values.
pub type NameMap = IndexMap<Rc<str>, Value, NameBuild>;

/// A Python value. The default is `None`, so `opt.unwrap_or_default()` gives `None` without
/// building one to drop when the option holds a value (`unwrap_or_default()` did: a call to
/// the drop glue per pop on the hot paths).
///
/// Every kind that owns anything owns exactly one `Rc`, which is what makes [`Value::clone`]
/// a reference-count increment and a copy of the value's 16 bytes.
///
/// The tag is a whole word (`repr(u64)`): with a one-byte tag, bytes 1–7 were padding, and a
/// value moved out of a `Result` or an `Option` was copied piece by piece around them (a
/// byte, a byte, then six and eight bytes), after which the value stack's push read the 16
/// bytes back at once, a load the store buffer cannot forward. With no padding, a move is
/// two words (pvm README, "A value is two words").
#[derive(Debug, Default)]
#[allow(missing_docs)]
#[repr(u64)]
pub enum Value {
    #[default]
    None,
    NotImplemented,
    Ellipsis,
    Bool(bool),
    Int(i64),
    Float(f64),
    BigInt(Rc<BigInt>),
    Str(Rc<PyStr>),
    Bytes(Rc<PyBytes>),
    ByteArray(Rc<PyByteArray>),
    Tuple(Rc<PyTuple>),
    List(Rc<PyList>),
    Dict(Rc<PyDict>),
    Set(Rc<PySet>),
    Range(Rc<PyRange>),
    Slice(Rc<PySlice>),
    Function(Rc<Function>),
    Builtin(Rc<Builtin>),
    BoundMethod(Rc<BoundMethod>),
    Class(Rc<Class>),
    Instance(Rc<Instance>),
    Generator(Rc<Generator>),
    Iter(Rc<PyIter>),
    Module(Rc<Module>),
    Property(Rc<Property>),
    ClassMethod(Rc<Wrapped>),
    StaticMethod(Rc<Wrapped>),
    Super(Rc<Super>),
    Cell(Rc<PyCell>),
}

/// A string with its char count and an ASCII flag (O(1) len/index for ASCII). Immutable to
/// programs; the one mutation is [`PyStr::append`], on a string no one else can see.
#[derive(Debug, Clone)]
pub struct PyStr {
    /// The text (a `String`, so that an in-place append grows it with amortised doubling).
    pub s: String,
    /// Number of chars.
    pub len: usize,
    /// All chars are ASCII.
    pub ascii: bool,
    /// `str_hash` of the text once computed (0 = not yet; a true 0 is just recomputed). Names
    /// and dict keys are hashed again and again, so the hash is kept, as CPython does.
    hash: Cell<u64>,
    /// For a non-ASCII string of more than [`STR_STRIDE`] chars: the byte offset of every
    /// `STR_STRIDE`-th char (entry `k` is char `k * STR_STRIDE`), so that a char index becomes a
    /// byte offset by walking at most `STR_STRIDE - 1` chars (indexing, slicing and the
    /// windowed search methods never walk the string from its start). Built in the pass that
    /// counts the chars and accounted with the string. Empty otherwise.
    marks: Vec<u32>,
    pub(crate) acct: Acct,
}

/// Char stride of [`PyStr`]'s offset marks.
pub const STR_STRIDE: usize = 32;

/// Push to `marks` the byte offset (from `base`) of every char of `s` whose index, counted
/// from `first`, is a multiple of [`STR_STRIDE`]; the number of chars walked plus `first`.
fn mark_chars(marks: &mut Vec<u32>, s: &str, base: usize, first: usize) -> usize {
    let mut n = first;
    for (b, _) in s.char_indices() {
        if n.is_multiple_of(STR_STRIDE) {
            marks.push((base + b) as u32);
        }
        n += 1;
    }
    n
}

impl PyStr {
    /// Build from text.
    pub fn new(s: &str) -> PyStr {
        let ascii = s.is_ascii();
        let (len, marks) = if ascii {
            (s.len(), Vec::new())
        } else {
            let mut marks = Vec::new();
            let n = mark_chars(&mut marks, s, 0, 0);
            if n <= STR_STRIDE {
                marks.clear();
            }
            (n, marks)
        };
        PyStr {
            acct: Acct::new(HEADER + s.len() + marks.len() * 4),
            s: s.into(),
            len,
            ascii,
            hash: Cell::new(0),
            marks,
        }
    }
    /// Append `t` to this string in place: `s += t` when the string's only reference is the
    /// local being rebound (`Vm::str_append_in_place`), so no program can observe the change.
    /// The text grows by `String`'s amortised doubling; the char count, ASCII flag and offset
    /// marks are extended by a walk of `t` alone (an ASCII prefix's marks are computed, not
    /// walked), the cached hash is dropped, and the accounted size follows the length, as a
    /// list's does.
    pub fn append(&mut self, t: &PyStr) {
        let (old_bytes, old_len) = (self.s.len(), self.len);
        self.s.push_str(&t.s);
        self.len += t.len;
        self.hash.set(0);
        if !(self.ascii && t.ascii) {
            // Marks exist only above STR_STRIDE chars; rebuild the old part's when absent.
            if self.marks.is_empty() {
                if self.ascii {
                    self.marks
                        .extend((0..old_bytes).step_by(STR_STRIDE).map(|b| b as u32));
                } else {
                    // A non-ASCII string without marks has at most STR_STRIDE chars.
                    mark_chars(&mut self.marks, &self.s[..old_bytes], 0, 0);
                }
            }
            self.ascii = false;
            mark_chars(&mut self.marks, &self.s[old_bytes..], old_bytes, old_len);
            if self.len <= STR_STRIDE {
                self.marks.clear();
            }
        }
        self.acct
            .resize(HEADER + self.s.len() + self.marks.len() * 4);
    }
    /// The text's `str_hash`, computed once.
    pub fn hash(&self) -> u64 {
        let h = self.hash.get();
        if h != 0 {
            return h;
        }
        let h = str_hash(&self.s);
        self.hash.set(h);
        h
    }
    /// Same text as `other`; identical objects (interned names) answer without reading it.
    pub fn same_text(self: &Rc<Self>, other: &Rc<PyStr>) -> bool {
        Rc::ptr_eq(self, other) || self.s == other.s
    }
    /// Char at index `i` (must be in range).
    pub fn char_at(&self, i: usize) -> Option<char> {
        if self.ascii {
            self.s.as_bytes().get(i).map(|&b| b as char)
        } else {
            self.s[self.byte_offset(i)..].chars().next()
        }
    }
    /// Byte offset of char index `i` (clamped to the end), walking at most
    /// `STR_STRIDE - 1` chars.
    pub fn byte_offset(&self, i: usize) -> usize {
        if self.ascii {
            return i.min(self.s.len());
        }
        if i >= self.len {
            return self.s.len();
        }
        let (from, skip) = match self.marks.get(i / STR_STRIDE) {
            Some(&b) => (b as usize, i % STR_STRIDE),
            None => (0, i),
        };
        self.s[from..]
            .char_indices()
            .nth(skip)
            .map_or(self.s.len(), |(b, _)| from + b)
    }
}

/// Immutable bytes.
#[derive(Debug)]
pub struct PyBytes {
    /// The bytes.
    pub b: Box<[u8]>,
    pub(crate) acct: Acct,
}
impl PyBytes {
    /// Build from bytes.
    pub fn new(b: Vec<u8>) -> PyBytes {
        let n = b.len();
        PyBytes {
            b: b.into(),
            acct: Acct::new(HEADER + n),
        }
    }
}

/// Mutable bytes.
#[derive(Debug)]
pub struct PyByteArray {
    /// The bytes.
    pub b: RefCell<Vec<u8>>,
    pub(crate) acct: Acct,
}
impl PyByteArray {
    /// Build from bytes.
    pub fn new(b: Vec<u8>) -> PyByteArray {
        let n = b.len();
        PyByteArray {
            b: RefCell::new(b),
            acct: Acct::new(HEADER + n),
        }
    }
    /// Re-account after mutation.
    pub fn touch(&self) {
        self.acct.resize(HEADER + self.b.borrow().len())
    }
}

/// A tuple.
#[derive(Debug)]
pub struct PyTuple {
    /// Items.
    pub items: Box<[Value]>,
    pub(crate) acct: Acct,
}
impl PyTuple {
    /// Build from items.
    pub fn new(items: Vec<Value>) -> PyTuple {
        let n = items.len();
        PyTuple {
            items: items.into(),
            acct: Acct::new(Self::bytes(n)),
        }
    }

    /// The accounted size of a tuple of `n` items (what a path that reads items in place
    /// accounts for the tuple it did not make).
    pub(crate) const fn bytes(n: usize) -> usize {
        HEADER + n * SLOT
    }
}

/// A list.
#[derive(Debug)]
pub struct PyList {
    /// Items.
    pub items: RefCell<Vec<Value>>,
    pub(crate) acct: Acct,
}
impl PyList {
    /// Build from items.
    pub fn new(items: Vec<Value>) -> PyList {
        let n = items.len();
        PyList {
            items: RefCell::new(items),
            acct: Acct::new(HEADER + n * SLOT),
        }
    }
    /// Re-account after the length changed.
    pub fn touch(&self) {
        let n = self.items.borrow().len();
        self.acct.resize(HEADER + n * SLOT)
    }
}

/// One dict entry; `hash` is the Python hash of the key.
#[derive(Debug, Clone)]
pub struct Entry {
    /// Key hash.
    pub hash: u64,
    /// Key.
    pub key: Value,
    /// Value.
    pub value: Value,
    /// Slots a lookup of this key reads to reach it: its slot's position (from 1) in its probe
    /// sequence. Fixed from placement to the next rebuild, since the slots it passed were
    /// taken then and only a rebuild empties a slot. A lookup that finds the entry without
    /// walking (an inline cache's remembered position) charges this, so it costs exactly
    /// what the walk would ([`owe_probes`]).
    probes: u32,
}

impl Entry {
    /// Slots a lookup reads to find this entry (see the field).
    pub fn probes(&self) -> u32 {
        self.probes
    }
}

/// Owe the probes of one lookup that read `probes` slots: the first [`crate::cost::FREE_PROBES`]
/// are part of the operation's fixed price (an ordinary table, at most 2/3 full, rarely needs
/// more), each further one costs [`crate::cost::PROBE`]. Owed, not charged, because name
/// lookups run where no `Vm` is at hand; the VM settles the debt at its next instruction.
#[inline]
pub fn owe_probes(probes: u64) {
    if probes > crate::cost::FREE_PROBES {
        crate::memory::owe((probes - crate::cost::FREE_PROBES) * crate::cost::PROBE);
    }
}

/// Owe the MRO walk of a class attribute lookup that read `namespaces` class namespaces,
/// hashing a name of `name_len` bytes in each. The first three (a class, its base and
/// `object`: where single inheritance ends, found or not) are part of the instruction's fixed
/// price; each further one costs [`crate::cost::MRO_STEP`] plus hashing the name again. Owed
/// from the walk's length, which the lookup cache remembers, so a cached answer costs what the
/// walk would: unpriced, a lookup of a method defined at the root of a 400-class chain, with
/// the caches flushed by a class store each time, ran at 17x the plain loop per cycle.
#[inline]
pub fn owe_mro_walk(namespaces: usize, name_len: usize) {
    let cycles = mro_walk_cycles(namespaces, name_len);
    if cycles > 0 {
        crate::memory::owe(cycles);
    }
}

/// What [`owe_mro_walk`] owes for a walk of `namespaces` namespaces by a name of `name_len`.
pub fn mro_walk_cycles(namespaces: usize, name_len: usize) -> u64 {
    if namespaces <= 3 {
        return 0;
    }
    let step = crate::cost::MRO_STEP + crate::cost::per_char(name_len);
    (namespaces as u64 - 3).saturating_mul(step)
}

/// Insertion-ordered hash table storage shared by dict and set. Lookups that need Python
/// equality go through the VM (`Vm::table_find`).
///
/// The layout is CPython's compact dict: `entries` in insertion order (a removed entry leaves
/// `None` until the next compaction) and `slots`, an open-addressed index of entry positions
/// probed with CPython's perturbation recurrence. A lookup touches one small integer array and
/// compares the full hashes of the entries it points at; inserting allocates nothing beyond the
/// two vectors' amortized growth. None of this is observable: order is `entries`' order, and
/// memory is accounted from the entry count, not from these vectors' capacities.
#[derive(Debug, Default, Clone)]
pub struct Table {
    /// Entries in insertion order; `None` marks a deleted slot.
    pub entries: Vec<Option<Entry>>,
    /// Open-addressed index into `entries`: `SLOT_EMPTY`, `SLOT_DELETED` or a position. Empty
    /// (no allocation) until the first insertion; otherwise a power of two, at most 2/3 full.
    slots: Vec<u32>,
    /// Live entries.
    pub len: usize,
    /// No live entry sits before this position, and none at or after `end`: `set.pop`,
    /// `dict.popitem` and new iterators start from these instead of walking over the
    /// tombstones that removals from either end leave (up to half the entries until the next
    /// compaction), which a loop of pops would otherwise walk again on every pop, unpaid.
    head: usize,
    end: usize,
    /// Names the table's keys and index as they stand ([`Table::stamp`]).
    stamp: u64,
}

thread_local! {
    /// The next [`Table::stamp`] to hand out on this thread (0 is the empty table's).
    static NEXT_STAMP: std::cell::Cell<u64> = const { std::cell::Cell::new(1) };
}

/// A stamp no table of this thread has had before.
fn fresh_stamp() -> u64 {
    NEXT_STAMP.with(|n| {
        let s = n.get();
        n.set(s + 1);
        s
    })
}

/// Shapes: the stamps of tables built alike.
///
/// A table made empty and given str keys one after another, with no removal in between (an
/// instance dict filled by `__init__`, a module's globals), is named by a *shape*: the empty
/// table's stamp 0, then one transition per key, from the shape before to the shape after,
/// remembered by the key's text. Every table built by the same texts in the same order takes
/// the same transitions and so the same stamp, and it holds the same hashes and str texts at
/// the same positions under the same index (placement is a function of the hashes in order),
/// which is all a stamp promises ([`Table::stamp`]). So what the inline caches remember by
/// stamp, a name's absence from an instance dict above all (every method call proves the
/// method is not shadowed by the instance), holds for every instance built like the one it
/// was learnt from, as CPython 3.11's shared-key dicts and V8's hidden classes let one check
/// of a layout stand for every object built alike.
///
/// Shape stamps carry [`SHAPE`]; a removal, a non-str key, a table of [`SHAPE_MAX_LEN`] keys
/// or a key text longer than [`SHAPE_KEY_MAX`] leaves shapes for fresh stamps, which name one
/// table. Transitions live in a direct-mapped cache of [`SHAPE_EDGES`] rows per thread
/// (bounded memory, outside any program's accounting, as the code cache is): a row taken by
/// another transition is overwritten, and the table then gets a new shape stamp, which only
/// means fewer shared hits. The cache holds copies of key texts, never the strings
/// themselves, so no reference count a program's path depends on (`s += t` in place) moves.
/// Like every stamp, a shape decides which path a lookup takes, never what it answers or
/// costs.
const SHAPE: u64 = 1 << 63;
/// Tables with this many entries take fresh stamps from then on (instance dicts are small;
/// a large table gains nothing from sharing its name and would crowd the cache).
const SHAPE_MAX_LEN: usize = 32;
/// Longer key texts are not copied into the cache.
const SHAPE_KEY_MAX: usize = 64;
/// Rows of the transition cache (a power of two).
const SHAPE_EDGES: usize = 4096;

/// One remembered transition: from the shape `from`, a key of hash `hash` and text `key`
/// leads to the shape `to`.
struct ShapeEdge {
    from: u64,
    hash: u64,
    key: Box<str>,
    to: u64,
}

thread_local! {
    /// The transition cache, allocated on its first use.
    static SHAPE_CACHE: RefCell<Vec<Option<ShapeEdge>>> = const { RefCell::new(Vec::new()) };
}

/// The stamp of a table of stamp `from` (a shape) after a push of a str key of `hash` and
/// text `key`.
fn shape_after(from: u64, hash: u64, key: &str) -> u64 {
    if key.len() > SHAPE_KEY_MAX {
        return fresh_stamp();
    }
    let row = ((from ^ hash.rotate_left(23)).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 52) as usize
        & (SHAPE_EDGES - 1);
    SHAPE_CACHE.with(|c| {
        let mut c = c.borrow_mut();
        if c.is_empty() {
            c.resize_with(SHAPE_EDGES, || None);
        }
        if let Some(e) = &c[row] {
            if e.from == from && e.hash == hash && *e.key == *key {
                return e.to;
            }
        }
        let to = fresh_stamp() | SHAPE;
        c[row] = Some(ShapeEdge {
            from,
            hash,
            key: key.into(),
            to,
        });
        to
    })
}

const SLOT_EMPTY: u32 = u32::MAX;
const SLOT_DELETED: u32 = u32::MAX - 1;
const MIN_SLOTS: usize = 8;

/// The probe sequence of `hash` over `mask + 1` slots: CPython's `i = 5i + 1 + perturb`, which
/// visits every slot once `perturb` has shifted down to zero. The first slot is the hash's low
/// bits with its high half folded in, so hashes that differ only in high bits (FxHash of
/// similar strings) still start apart, while consecutive ints, whose hash is the int as in
/// CPython, take consecutive slots: a table of them is read in order, not at random (a
/// multiplicative mix here made building `set(range(300000))` miss the cache at every insert).
#[derive(Clone, Copy)]
struct Probe {
    i: usize,
    perturb: u64,
    mask: usize,
}

impl Probe {
    fn new(hash: u64, mask: usize) -> Probe {
        let folded = hash ^ (hash >> 32);
        Probe {
            i: folded as usize & mask,
            perturb: hash,
            mask,
        }
    }
    fn next(&mut self) -> usize {
        let cur = self.i;
        self.perturb >>= 5;
        self.i = (self
            .i
            .wrapping_mul(5)
            .wrapping_add(1)
            .wrapping_add(self.perturb as usize))
            & self.mask;
        cur
    }
}

/// Positions of the live entries whose hash equals the one probed for (see [`Table::candidates`]).
pub struct Candidates<'a> {
    table: &'a Table,
    probe: Option<Probe>,
    hash: u64,
    /// Slots read so far: the work of the lookup, which colliding keys make as long as the
    /// table (all of `i * (2**61 - 1)` hash to 0). The VM charges it ([`Vm::table_find`]).
    probes: u64,
}

impl Candidates<'_> {
    /// Slots read so far.
    pub fn probes(&self) -> u64 {
        self.probes
    }
}

impl Drop for Candidates<'_> {
    fn drop(&mut self) {
        owe_probes(self.probes);
    }
}

impl Iterator for Candidates<'_> {
    type Item = u32;
    fn next(&mut self) -> Option<u32> {
        let probe = self.probe.as_mut()?;
        loop {
            self.probes += 1;
            let slot = self.table.slots[probe.next()];
            if slot == SLOT_EMPTY {
                self.probe = None;
                return None;
            }
            if slot == SLOT_DELETED {
                continue;
            }
            if let Some(Some(e)) = self.table.entries.get(slot as usize) {
                if e.hash == self.hash {
                    return Some(slot);
                }
            }
        }
    }
}

impl Table {
    /// Live entries in order.
    pub fn iter(&self) -> impl Iterator<Item = &Entry> {
        self.entries.iter().flatten()
    }
    /// Append a new entry (caller checked absence).
    pub fn push(&mut self, hash: u64, key: Value, value: Value) {
        self.stamp = match &key {
            Value::Str(k)
                if (self.stamp == 0 || self.stamp & SHAPE != 0)
                    && self.entries.len() < SHAPE_MAX_LEN =>
            {
                shape_after(self.stamp, hash, &k.s)
            }
            _ => fresh_stamp(),
        };
        if (self.entries.len() + 1) * 3 > self.slots.len() * 2 {
            self.rebuild_slots(self.entries.len() + 1);
        }
        let i = self.entries.len() as u32;
        let probes = self.place(hash, i);
        self.entries.push(Some(Entry {
            hash,
            key,
            value,
            probes,
        }));
        self.len += 1;
        self.end = self.entries.len();
    }
    /// First position that may hold a live entry (every earlier one is a tombstone).
    pub fn first_live(&self) -> usize {
        self.head
    }
    /// One past the last live entry.
    pub fn live_end(&self) -> usize {
        self.end
    }
    /// Put entry position `i` in the first free slot of its probe sequence; returns the slots
    /// read to get there (the entry's [`Entry::probes`]).
    fn place(&mut self, hash: u64, i: u32) -> u32 {
        let mut p = Probe::new(hash, self.slots.len() - 1);
        let mut read = 0u32;
        loop {
            read += 1;
            let j = p.next();
            if self.slots[j] == SLOT_EMPTY {
                self.slots[j] = i;
                return read;
            }
        }
    }
    /// Re-index every entry into a slot array sized for `n` entries. Deleted entries are not
    /// indexed, so this also drops the tombstones.
    ///
    /// Linear even when many entries share one hash (keys colliding on purpose): placing the
    /// k-th entry of a hash would walk past the k−1 slots its predecessors took, so a long walk
    /// leaves its probe state in `resume`, and the next entry with that hash continues from
    /// there. Slots only fill during a rebuild, so every slot the naive walk would pass is
    /// still taken: the layout is exactly the naive one. (A `BTreeMap`: keys are hashes the
    /// program chooses, so a hash map here could itself be made to collide.)
    fn rebuild_slots(&mut self, n: usize) {
        /// Walks shorter than this are not remembered (nearly every walk, in ordinary tables).
        const REMEMBER: u32 = 4;
        let size = (n * 3 / 2 + 1).next_power_of_two().max(MIN_SLOTS);
        self.slots.clear();
        self.slots.resize(size, SLOT_EMPTY);
        let mask = size - 1;
        // Per remembered hash: the probe state and the slots read before it.
        let mut resume: std::collections::BTreeMap<u64, (Probe, u32)> = Default::default();
        for i in 0..self.entries.len() {
            let Some(h) = self.entries[i].as_ref().map(|e| e.hash) else {
                continue;
            };
            let saved = if resume.is_empty() {
                None
            } else {
                resume.remove(&h)
            };
            let resumed = saved.is_some();
            let (mut p, mut read) = saved.unwrap_or_else(|| (Probe::new(h, mask), 0));
            let mut walked = 0;
            loop {
                walked += 1;
                read += 1;
                let j = p.next();
                if self.slots[j] == SLOT_EMPTY {
                    self.slots[j] = i as u32;
                    break;
                }
            }
            if let Some(e) = self.entries[i].as_mut() {
                e.probes = read;
            }
            if resumed || walked >= REMEMBER {
                resume.insert(h, (p, read));
            }
        }
    }
    /// Remove entry `i`.
    pub fn remove_at(&mut self, i: usize) -> Option<Entry> {
        let e = self.entries.get_mut(i)?.take()?;
        self.stamp = fresh_stamp();
        let mut p = Probe::new(e.hash, self.slots.len() - 1);
        loop {
            let j = p.next();
            if self.slots[j] == i as u32 {
                self.slots[j] = SLOT_DELETED;
                break;
            }
            debug_assert!(
                self.slots[j] != SLOT_EMPTY,
                "indexed entry missing from its probe"
            );
        }
        self.len -= 1;
        // Each position is passed once between compactions: amortised O(1) per removal.
        while self.head < self.end && self.entries[self.head].is_none() {
            self.head += 1;
        }
        while self.end > self.head && self.entries[self.end - 1].is_none() {
            self.end -= 1;
        }
        if self.entries.len() > 32 && self.len * 2 < self.entries.len() {
            self.compact();
        }
        Some(e)
    }
    fn compact(&mut self) {
        self.entries.retain(|e| e.is_some());
        self.rebuild_slots(self.entries.len());
        self.head = 0;
        self.end = self.entries.len();
    }
    /// Remove everything.
    pub fn clear(&mut self) {
        self.entries.clear();
        self.slots.clear();
        self.len = 0;
        self.head = 0;
        self.end = 0;
        self.stamp = 0;
    }
    /// A name for the table's keys and index as they stand: two tables of one thread (or one
    /// table at two times) with the same stamp hold keys of the same hashes at the same
    /// positions under the same index, each str key of the same text in both, so a lookup of
    /// a name in one walks, finds and misses exactly as in the other. Every change of keys or
    /// index (insert, remove, clear) takes a new stamp: a table built from empty by str keys
    /// alone takes its shape's (see [`SHAPE`]: the same for every table built by the same
    /// texts in the same order), any other a stamp never used on this thread before; a value
    /// store keeps it; a clone or an exact copy keeps it with the content it names; 0 is an
    /// empty table's. The inline caches remember a name's absence by it (`vm::inline_cache`).
    /// Never observable: it decides which path a lookup takes, never what it answers or costs.
    pub fn stamp(&self) -> u64 {
        self.stamp
    }
    /// Slots in the index (zero before the first insertion): what a lookup's reach, and so its
    /// cache misses, depends on ([`crate::cost::table_reach`]).
    pub fn slot_count(&self) -> usize {
        self.slots.len()
    }
    /// Positions of the live entries whose stored hash is `hash`, in probe order; the caller
    /// compares keys.
    pub fn candidates(&self, hash: u64) -> Candidates<'_> {
        Candidates {
            table: self,
            probe: (!self.slots.is_empty()).then(|| Probe::new(hash, self.slots.len() - 1)),
            hash,
            probes: 0,
        }
    }
}

/// A dict.
#[derive(Debug)]
pub struct PyDict {
    /// Storage.
    pub table: RefCell<Table>,
    pub(crate) acct: Acct,
}
impl PyDict {
    /// Empty dict.
    pub fn new() -> PyDict {
        PyDict {
            table: RefCell::new(Table::default()),
            acct: Acct::new(HEADER),
        }
    }
    /// From a table.
    pub fn from_table(t: Table) -> PyDict {
        let n = t.entries.len();
        PyDict {
            table: RefCell::new(t),
            acct: Acct::new(HEADER + n * 3 * SLOT),
        }
    }
    /// Re-account after growth.
    pub fn touch(&self) {
        let n = self.table.borrow().entries.len();
        self.acct.resize(HEADER + n * 3 * SLOT)
    }
}
impl PyDict {
    /// Lookup by str key (attribute dicts, globals).
    pub fn get_str(&self, key: &str) -> Option<Value> {
        let h = str_hash(key);
        let t = self.table.borrow();
        for i in t.candidates(h) {
            if let Some(Some(e)) = t.entries.get(i as usize) {
                if let Value::Str(s) = &e.key {
                    if &*s.s == key {
                        return Some(e.value.clone());
                    }
                }
            }
        }
        None
    }
    fn find_str(t: &Table, h: u64, key: &str) -> Option<usize> {
        t.candidates(h).map(|i| i as usize).find(|&i| {
            matches!(t.entries.get(i), Some(Some(Entry { key: Value::Str(s), .. })) if &*s.s == key)
        })
    }
    /// Store by str key.
    pub fn set_str(&self, key: &str, v: Value) {
        let h = str_hash(key);
        {
            let mut t = self.table.borrow_mut();
            if let Some(i) = Self::find_str(&t, h, key) {
                if let Some(Some(e)) = t.entries.get_mut(i) {
                    e.value = v;
                }
                return;
            }
            t.push(h, Value::str(key), v);
        }
        self.touch();
    }
    /// Remove by str key.
    pub fn del_str(&self, key: &str) -> Option<Value> {
        let h = str_hash(key);
        let r = {
            let mut t = self.table.borrow_mut();
            let i = Self::find_str(&t, h, key)?;
            t.remove_at(i).map(|e| e.value)
        };
        self.touch();
        r
    }
    /// Contains str key.
    pub fn has_str(&self, key: &str) -> bool {
        let h = str_hash(key);
        Self::find_str(&self.table.borrow(), h, key).is_some()
    }

    /// Position of the entry keyed by the text of `name`, using its cached hash and comparing
    /// pointers before text (names from code are interned).
    pub(crate) fn find_name(t: &Table, name: &Rc<PyStr>) -> Option<usize> {
        t.candidates(name.hash())
            .map(|i| i as usize)
            .find(|&i| Self::keyed_by(t, i, name))
    }
    /// [`PyDict::find_name`], remembering an absence in `memo`: the [`Table::stamp`] of the
    /// table the name was last missing from and the slots that walk read. In a table with
    /// that stamp the name is missing again after the same walk, so the answer is given
    /// without walking and the walk's probes are owed as the walk would have owed them. The
    /// initial `(0, 0)` is true of every table: stamp 0 is the empty table, missed in 0 reads.
    #[inline(always)]
    pub(crate) fn find_name_memo(
        t: &Table,
        name: &Rc<PyStr>,
        memo: &Cell<(u64, u64)>,
    ) -> Option<usize> {
        let (stamp, probes) = memo.get();
        if t.stamp() == stamp {
            owe_probes(probes);
            return None;
        }
        Self::find_name_remember(t, name, memo)
    }
    /// [`PyDict::find_name_memo`]'s walk, remembering an absence.
    #[inline(never)]
    fn find_name_remember(t: &Table, name: &Rc<PyStr>, memo: &Cell<(u64, u64)>) -> Option<usize> {
        let mut walk = t.candidates(name.hash());
        let found = walk
            .by_ref()
            .map(|i| i as usize)
            .find(|&i| Self::keyed_by(t, i, name));
        if found.is_none() {
            memo.set((t.stamp(), walk.probes()));
        }
        found
    }
    /// Entry `i` of `t` is live and keyed by the text of `name`.
    #[inline(always)]
    fn keyed_by(t: &Table, i: usize, name: &Rc<PyStr>) -> bool {
        matches!(t.entries.get(i), Some(Some(Entry { key: Value::Str(s), .. })) if s.same_text(name))
    }
    /// Lookup by a name string (attribute, global): [`PyDict::get_str`] without hashing.
    pub fn get_name(&self, name: &Rc<PyStr>) -> Option<Value> {
        let t = self.table.borrow();
        let i = Self::find_name(&t, name)?;
        t.entries[i].as_ref().map(|e| e.value.clone())
    }
    /// Contains a name string.
    pub fn has_name(&self, name: &Rc<PyStr>) -> bool {
        Self::find_name(&self.table.borrow(), name).is_some()
    }
    /// Store by a name string. A new entry's key is `name` itself, not a copy, so every
    /// instance dict that gets `self.x = …` from the same code shares one key string.
    /// Returns the entry's position.
    pub fn set_name(&self, name: &Rc<PyStr>, v: Value) -> usize {
        let i = {
            let mut t = self.table.borrow_mut();
            if let Some(i) = Self::find_name(&t, name) {
                if let Some(Some(e)) = t.entries.get_mut(i) {
                    e.value = v;
                }
                return i;
            }
            t.push(name.hash(), Value::Str(name.clone()), v);
            t.entries.len() - 1
        };
        self.touch();
        i
    }
}

impl Default for PyDict {
    fn default() -> Self {
        Self::new()
    }
}

/// A set or frozenset (insertion-ordered, as the whitepaper requires).
#[derive(Debug)]
pub struct PySet {
    /// Storage (values are None).
    pub table: RefCell<Table>,
    /// frozenset.
    pub frozen: bool,
    pub(crate) acct: Acct,
}
impl PySet {
    /// From a table.
    pub fn from_table(t: Table, frozen: bool) -> PySet {
        let n = t.entries.len();
        PySet {
            table: RefCell::new(t),
            frozen,
            acct: Acct::new(HEADER + n * 2 * SLOT),
        }
    }
    /// Re-account after growth.
    pub fn touch(&self) {
        let n = self.table.borrow().entries.len();
        self.acct.resize(HEADER + n * 2 * SLOT)
    }
}

/// `range(start, stop, step)`.
#[derive(Debug)]
#[allow(missing_docs)]
pub struct PyRange {
    pub start: i64,
    pub stop: i64,
    pub step: i64,
}
impl PyRange {
    /// Number of elements.
    pub fn len(&self) -> i64 {
        if self.step > 0 && self.start < self.stop {
            ((self.stop as i128 - self.start as i128 - 1) / self.step as i128 + 1) as i64
        } else if self.step < 0 && self.start > self.stop {
            ((self.start as i128 - self.stop as i128 - 1) / (-(self.step as i128)) + 1) as i64
        } else {
            0
        }
    }
    /// Is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// `slice(start, stop, step)`.
#[derive(Debug)]
#[allow(missing_docs)]
pub struct PySlice {
    pub start: Value,
    pub stop: Value,
    pub step: Value,
}

/// A user function.
#[derive(Debug)]
pub struct Function {
    /// Compiled body.
    pub code: Rc<Code>,
    /// Module globals.
    pub globals: Rc<PyDict>,
    /// Positional defaults (last N positional params).
    pub defaults: Vec<Value>,
    /// Keyword-only defaults.
    pub kwdefaults: Vec<(Rc<str>, Value)>,
    /// Captured cells, in `code.freevars` order.
    pub closure: Vec<Rc<PyCell>>,
    /// `__dict__`: user attributes (and `__name__`/`__qualname__` once assigned). Empty when
    /// the function is made, as in CPython.
    pub attrs: Rc<PyDict>,
    /// `__doc__`, `__module__`, `__annotations__`.
    pub meta: RefCell<FuncMeta>,
    pub(crate) acct: Acct,
}

impl Function {
    /// Whether a call with `n` positional arguments and no keywords takes the direct path
    /// ([`Code::takes_positional`] with this function's defaults).
    pub fn takes_positional(&self, n: u32) -> bool {
        self.code.takes_positional(n, self.defaults.len())
    }

    /// `__qualname__`: as assigned, else the code's (what `repr` shows).
    pub fn qualname(&self) -> String {
        match &self.meta.borrow().qualname {
            Some(Value::Str(s)) => s.s.to_string(),
            _ => self.code.qualname.to_string(),
        }
    }
}

/// A function's `__doc__`, `__module__`, `__annotations__`, and `__name__`/`__qualname__`
/// once assigned: fields, as CPython keeps them, not entries of its `__dict__`, so making a
/// function fills no dict (three string keys allocated and hashed for every `def` and every
/// closure made in a loop). Writable like CPython's (`Vm::setattr`; refused on the shared
/// SDK's functions, `Vm::check_writable`).
#[derive(Debug)]
pub struct FuncMeta {
    /// An assigned `__name__` (a str); `None`: the code's name.
    pub name: Option<Value>,
    /// An assigned `__qualname__` (a str); `None`: the code's qualified name.
    pub qualname: Option<Value>,
    /// `__doc__` (None when absent or deleted).
    pub doc: Value,
    /// `__module__` (None when deleted).
    pub module: Value,
    /// `__annotations__`: `None` until the function has annotations, or they are read (a new
    /// empty dict then) or set (a dict).
    pub annotations: Option<Value>,
}

impl Default for FuncMeta {
    fn default() -> FuncMeta {
        FuncMeta {
            name: None,
            qualname: None,
            doc: Value::None,
            module: Value::None,
            annotations: None,
        }
    }
}
impl Function {
    /// Build a function object.
    pub fn new(
        code: Rc<Code>,
        globals: Rc<PyDict>,
        defaults: Vec<Value>,
        kwdefaults: Vec<(Rc<str>, Value)>,
        closure: Vec<Rc<PyCell>>,
    ) -> Function {
        Function {
            code,
            globals,
            defaults,
            kwdefaults,
            closure,
            attrs: rc_dict(PyDict::new()),
            meta: RefCell::new(FuncMeta::default()),
            // The object and its five `meta` slots.
            acct: Acct::new(HEADER * 4 + 5 * SLOT),
        }
    }
}

/// A variable cell shared between a function and its closures.
#[derive(Debug, Default)]
pub struct PyCell {
    /// Contents; `None` = unbound.
    pub v: RefCell<Option<Value>>,
}

/// A builtin function or a builtin type's method bound to `self`.
#[derive(Debug)]
pub struct Builtin {
    /// Name shown in reprs and errors.
    pub name: Rc<str>,
    /// What to run.
    pub kind: BuiltinKind,
}

/// A CPython calling convention, with its argument bounds: how a builtin method's arguments
/// are checked, and worded when wrong, before it runs (`objects::arity`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arity {
    /// `METH_NOARGS`: `list.clear() takes no arguments (1 given)`.
    NoArgs,
    /// `METH_O`: `list.append() takes exactly one argument (2 given)`.
    One,
    /// Argument Clinic, positional only (min, max): `pop expected at most 1 argument, got 2`.
    Clinic(u8, u8),
    /// As [`Arity::Clinic`], but keywords are the method's own business (`dict.update`).
    ClinicKw(u8, u8),
    /// `PyArg_ParseTuple` (min, max): `find() takes at most 3 arguments (4 given)`.
    Tuple(u8, u8),
    /// Any number of positional arguments, no keywords (`set.union`).
    VarNoKw,
    /// Argument Clinic with keywords: `posonly` positional-only parameters, then `names`
    /// (positional-or-keyword up to `maxpos`, keyword-only after); the first `minpos` are
    /// required. `'x' is an invalid keyword argument for split()`.
    Kw {
        /// Leading positional-only parameters.
        posonly: u8,
        /// Required positional parameters.
        minpos: u8,
        /// Parameters that can be given by position.
        maxpos: u8,
        /// Parameters that can be given by keyword, in order.
        names: &'static [&'static str],
    },
}
/// Where a builtin function is found, which decides where `builtins::install` puts it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BuiltinHome {
    /// The builtin namespace (`len`).
    Builtins,
    /// The dict of a builtin class (`object.__init__`, `type.mro`, `BaseException.add_note`),
    /// found by the ordinary class lookup.
    Slot(BuiltinType),
    /// An alternate constructor (`dict.fromkeys`): `objects::types::class_attr` binds it to the class
    /// it is looked up on, or an instance's class, as a class method is.
    ClassMethod(BuiltinType),
    /// A static method (`str.maketrans`), found by `objects::types::class_attr` unbound.
    StaticMethod(BuiltinType),
}

/// Declares [`BuiltinFn`]: one line per builtin function, its Python name (`owner.name` for a
/// method of a builtin class) and its [`BuiltinHome`]. Everything else derives from this list:
/// [`BuiltinFn::name`], the namespace and class dicts `builtins::install` fills (in this order),
/// the alternate constructors `objects::types::class_attr` finds, and `builtins::call_builtin`'s
/// `match`, which the compiler holds exhaustive.
macro_rules! builtin_fns {
    (@arity) => { None };
    (@arity $arity:expr) => { Some($arity) };
    ($($variant:ident => $qualname:literal, $home:expr $(, $arity:expr)?;)*) => {
        /// A builtin function (or a builtin class's method implemented as one), run by the
        /// embedder's `vm::Builtins::call` (the chain's: `builtins::call_builtin`). The
        /// behaviour lives there; this layer only names them.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum BuiltinFn {
            $(
                #[doc = concat!("`", $qualname, "`")]
                $variant,
            )*
        }

        impl BuiltinFn {
            /// Every builtin function, in registration order.
            pub const ALL: &'static [BuiltinFn] = &[$(BuiltinFn::$variant),*];

            /// The Python name, qualified by its class for a method (`dict.fromkeys`).
            pub const fn qualname(self) -> &'static str {
                match self {
                    $(BuiltinFn::$variant => $qualname,)*
                }
            }

            /// Where it is installed.
            pub const fn home(self) -> BuiltinHome {
                use {BuiltinHome::*, BuiltinType as T};
                match self {
                    $(BuiltinFn::$variant => $home,)*
                }
            }

            /// The CPython calling convention checked before it runs, for an alternate
            /// constructor or static method (`builtins::alt_ctor`); `None` for the others,
            /// which check their own arguments.
            pub const fn arity(self) -> Option<Arity> {
                use Arity::*;
                match self {
                    $(BuiltinFn::$variant => builtin_fns!(@arity $($arity)?),)*
                }
            }
        }
    };
}

builtin_fns! {
    // The builtin namespace, in the order it is filled.
    Print => "print", Builtins;
    Len => "len", Builtins;
    Abs => "abs", Builtins;
    Min => "min", Builtins;
    Max => "max", Builtins;
    Sum => "sum", Builtins;
    Sorted => "sorted", Builtins;
    Reversed => "reversed", Builtins;
    Enumerate => "enumerate", Builtins;
    Zip => "zip", Builtins;
    Map => "map", Builtins;
    Filter => "filter", Builtins;
    IsInstance => "isinstance", Builtins;
    IsSubclass => "issubclass", Builtins;
    HasAttr => "hasattr", Builtins;
    GetAttr => "getattr", Builtins;
    SetAttr => "setattr", Builtins;
    DelAttr => "delattr", Builtins;
    Repr => "repr", Builtins;
    Iter => "iter", Builtins;
    Next => "next", Builtins;
    AIter => "aiter", Builtins;
    ANext => "anext", Builtins;
    Any => "any", Builtins;
    All => "all", Builtins;
    Divmod => "divmod", Builtins;
    Pow => "pow", Builtins;
    Round => "round", Builtins;
    Hex => "hex", Builtins;
    Oct => "oct", Builtins;
    Bin => "bin", Builtins;
    Chr => "chr", Builtins;
    Ord => "ord", Builtins;
    Callable => "callable", Builtins;
    Hash => "hash", Builtins;
    Format => "format", Builtins;
    Ascii => "ascii", Builtins;
    Vars => "vars", Builtins;
    Dir => "dir", Builtins;
    Open => "open", Builtins;
    // Methods of builtin classes kept in their class dicts, each dict in this order.
    BaseExceptionInit => "BaseException.__init__", Slot(T::BaseException);
    BaseExceptionAddNote => "BaseException.add_note", Slot(T::BaseException);
    BaseExceptionWithTraceback => "BaseException.with_traceback", Slot(T::BaseException);
    // `type.__subclasses__` is deliberately absent: no attribute path may enumerate classes.
    TypeNew => "type.__new__", Slot(T::Type);
    TypeCall => "type.__call__", Slot(T::Type);
    TypeInit => "type.__init__", Slot(T::Type);
    TypeSetattr => "type.__setattr__", Slot(T::Type);
    TypeDelattr => "type.__delattr__", Slot(T::Type);
    TypeRepr => "type.__repr__", Slot(T::Type);
    TypeInstancecheck => "type.__instancecheck__", Slot(T::Type);
    TypeSubclasscheck => "type.__subclasscheck__", Slot(T::Type);
    TypeMro => "type.mro", Slot(T::Type);
    DictInit => "dict.__init__", Slot(T::Dict);
    ListInit => "list.__init__", Slot(T::List);
    SetInit => "set.__init__", Slot(T::Set);
    ByteArrayInit => "bytearray.__init__", Slot(T::ByteArray);
    ObjectInit => "object.__init__", Slot(T::Object);
    ObjectSetattr => "object.__setattr__", Slot(T::Object);
    ObjectGetattribute => "object.__getattribute__", Slot(T::Object);
    ObjectDelattr => "object.__delattr__", Slot(T::Object);
    ObjectNew => "object.__new__", Slot(T::Object);
    ObjectInitSubclass => "object.__init_subclass__", Slot(T::Object);
    ObjectEq => "object.__eq__", Slot(T::Object);
    ObjectNe => "object.__ne__", Slot(T::Object);
    ObjectHash => "object.__hash__", Slot(T::Object);
    ObjectRepr => "object.__repr__", Slot(T::Object);
    ObjectStr => "object.__str__", Slot(T::Object);
    ObjectFormat => "object.__format__", Slot(T::Object);
    // Alternate constructors and static methods (`bool` takes `int`'s).
    // Each line is the whole registration, its calling convention included: the class
    // attribute, the instance attribute bound to its class, `dir()` and the arity check.
    DictFromkeys => "dict.fromkeys", ClassMethod(T::Dict), Clinic(1, 2);
    IntFromBytes => "int.from_bytes", ClassMethod(T::Int), Kw {
        posonly: 0,
        minpos: 1,
        maxpos: 2,
        names: &["bytes", "byteorder", "signed"],
    };
    FloatFromhex => "float.fromhex", ClassMethod(T::Float), One;
    BytesFromhex => "bytes.fromhex", ClassMethod(T::Bytes), One;
    ByteArrayFromhex => "bytearray.fromhex", ClassMethod(T::ByteArray), One;
    StrMaketrans => "str.maketrans", StaticMethod(T::Str), Clinic(1, 3);
    BytesMaketrans => "bytes.maketrans", StaticMethod(T::Bytes), Clinic(2, 2);
    ByteArrayMaketrans => "bytearray.maketrans", StaticMethod(T::ByteArray), Clinic(2, 2);
}

impl BuiltinFn {
    /// The alternate constructor (class method) or static method `name` of builtin type `t`,
    /// as `t`'s class finds it (`bool` has `int`'s).
    pub fn of_type(t: BuiltinType, name: &str) -> Option<BuiltinFn> {
        let owner = type_method_owner(t);
        type_methods()
            .iter()
            .find(|(h, n, _)| *h == owner && *n == name)
            .map(|&(_, _, f)| f)
    }

    /// The names of the alternate constructors and static methods of builtin type `t` (as
    /// [`BuiltinFn::of_type`] finds them), in registration order: `dir()` and the class
    /// `__dict__` list them with the type's methods.
    pub fn names_on_type(t: BuiltinType) -> impl Iterator<Item = &'static str> {
        let owner = type_method_owner(t);
        type_methods()
            .iter()
            .filter(move |(h, _, _)| *h == owner)
            .map(|&(_, n, _)| n)
    }

    /// The name it is found by: its attribute name for a method (`fromkeys`).
    pub fn name(self) -> &'static str {
        let q = self.qualname();
        q.rsplit_once('.').map_or(q, |(_, n)| n)
    }
}

/// The type whose alternate constructors and static methods `t` has: `bool` has `int`'s (its
/// base class's; `bytearray`, not a subclass of `bytes`, has its own).
fn type_method_owner(t: BuiltinType) -> BuiltinType {
    match t {
        BuiltinType::Bool => BuiltinType::Int,
        other => other,
    }
}

/// The builtin functions that live on a class (alternate constructors and static methods),
/// with their owner and attribute name: found once from [`BuiltinFn::ALL`], since they are
/// asked for on attribute loads from builtin values, which must not scan every builtin.
fn type_methods() -> &'static [(BuiltinType, &'static str, BuiltinFn)] {
    static ON_CLASSES: std::sync::OnceLock<Vec<(BuiltinType, &'static str, BuiltinFn)>> =
        std::sync::OnceLock::new();
    ON_CLASSES.get_or_init(|| {
        BuiltinFn::ALL
            .iter()
            .filter_map(|&f| match f.home() {
                BuiltinHome::ClassMethod(h) | BuiltinHome::StaticMethod(h) => {
                    Some((h, f.name(), f))
                }
                _ => None,
            })
            .collect()
    })
}

impl BuiltinType {
    /// `str`, `bytes`, `bytearray`, `tuple`, `list`, `dict`, `set`, `frozenset` or `range`.
    #[inline]
    pub fn is_container(self) -> bool {
        use BuiltinType as B;
        matches!(
            self,
            B::Str
                | B::Bytes
                | B::ByteArray
                | B::Tuple
                | B::List
                | B::Dict
                | B::Set
                | B::FrozenSet
                | B::Range
        )
    }

    /// `int`, `bool` or `float`.
    #[inline]
    pub fn is_number(self) -> bool {
        matches!(
            self,
            BuiltinType::Int | BuiltinType::Bool | BuiltinType::Float
        )
    }
}

/// Which generic special methods a builtin value type has (so `hasattr(int, "__len__")` is
/// false, and an `int` base in an MRO supplies `__hash__` before a later mixin's).
pub fn type_has_dunder(bt: BuiltinType, name: &str) -> bool {
    use BuiltinType as B;
    let container = bt.is_container();
    let number = bt.is_number();
    let valued = container || number;
    match name {
        "__len__" | "__iter__" | "__contains__" => container,
        "__getitem__" => container && !matches!(bt, B::Set | B::FrozenSet),
        "__setitem__" | "__delitem__" => matches!(bt, B::List | B::Dict | B::ByteArray),
        "__add__" | "__mul__" => {
            number || matches!(bt, B::Str | B::Bytes | B::ByteArray | B::Tuple | B::List)
        }
        "__hash__" => valued && !matches!(bt, B::List | B::Dict | B::Set | B::ByteArray),
        "__lt__" | "__le__" | "__gt__" | "__ge__" => valued && !matches!(bt, B::Dict | B::Range),
        "__repr__" | "__str__" | "__eq__" | "__ne__" | "__format__" | "__bool__" => valued,
        _ => false,
    }
}

/// The callable behind a [`Builtin`].
#[derive(Debug, Clone)]
pub enum BuiltinKind {
    /// A builtin function (`builtins::call_builtin` runs it).
    Func(BuiltinFn),
    /// Method `name` of builtin-typed receiver.
    Method(Value),
    /// A native module function.
    Native(NativeHandle),
    /// A builtin type's method taken from the class (`str.upper`): the receiver is the first
    /// argument and must be an instance of that type.
    Unbound(BuiltinType),
}

/// A native function (`objects::native_type::NativeFn`), held opaquely: its signature names the
/// interpreter, a layer above values, so this layer keeps it as `Any` and the interpreter,
/// which made it, opens it again to call it (`Vm::call`). The check is one type-id comparison.
#[derive(Clone)]
pub struct NativeHandle(Rc<dyn std::any::Any>);

impl NativeHandle {
    /// Hold `body` (an `objects::native_type::NativeFn`).
    pub fn new(body: impl std::any::Any) -> Self {
        NativeHandle(Rc::new(body))
    }

    /// The body, if it is a `T`.
    #[inline]
    pub fn get<T: std::any::Any>(&self) -> Option<&T> {
        self.0.downcast_ref()
    }
}

impl std::fmt::Debug for NativeHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("NativeFn")
    }
}

/// A function bound to an instance (or class for classmethods).
#[derive(Debug)]
pub struct BoundMethod {
    /// Receiver.
    pub receiver: Value,
    /// Function.
    pub func: Value,
}

/// The builtin type behind a class (for builtin classes and subclasses of builtins).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum BuiltinType {
    Object,
    Type,
    Int,
    Bool,
    Float,
    Str,
    Bytes,
    ByteArray,
    Tuple,
    List,
    Dict,
    Set,
    FrozenSet,
    Range,
    Slice,
    NoneType,
    Function,
    BaseException,
    Property,
    ClassMethod,
    StaticMethod,
    Super,
    Generator,
    Module,
    Complex,
    NotImplementedType,
    Ellipsis,
}

/// The current class epoch (see [`Class::dict_mut`]): cached class lookups made in another
/// epoch are stale.
pub fn class_epoch() -> u64 {
    CLASS_EPOCH.with(|e| e.get())
}

/// Start a new class epoch: every cached class lookup and inline-cache fact made before is
/// stale. Each invocation starts in one of its own (`Vm::new`), so what a cache refill charges
/// (its MRO walk) is paid at the first use of each site in every invocation, whatever the
/// thread ran before: the classes of the VM base and `cowboy_sdk` outlive invocations.
pub fn new_class_epoch() {
    CLASS_EPOCH.with(|e| e.set(e.get() + 1));
    EPOCH_FACTS.with(|f| f.set(false));
}

/// Record that a cache remembered a fact about a class for the current epoch whose hit is
/// charged differently from its refill (an inline cache's class facts, a class's constructor
/// plan). The body cache (`crate::body_cache`) replays a module body only if none was
/// remembered after the body's last epoch change, since a replay cannot remember them.
pub fn note_epoch_fact() {
    EPOCH_FACTS.with(|f| f.set(true));
}

/// Whether [`note_epoch_fact`] was called in the current class epoch.
pub fn epoch_has_facts() -> bool {
    EPOCH_FACTS.with(|f| f.get())
}

thread_local! {
    /// Bumped by every class namespace change; a class's cached lookups from an older epoch
    /// are stale (a change to a base class must invalidate its subclasses' caches too).
    static CLASS_EPOCH: Cell<u64> = const { Cell::new(0) };
    /// See [`note_epoch_fact`].
    static EPOCH_FACTS: Cell<bool> = const { Cell::new(false) };
}

/// Names remembered per class before its lookup cache starts over.
const LOOKUP_CACHE_SIZE: usize = 32;

/// A class's recent lookups (`Class::lookup`), and which entry each of a few buckets of text
/// addresses last hit: a name asked again is found by reading one entry instead of scanning
/// up to [`LOOKUP_CACHE_SIZE`] (a hint, checked like any entry; a miss scans as before).
#[derive(Debug, Default)]
struct LookupCache {
    entries: Vec<LookupEntry>,
    recent: [u8; 16],
}

impl LookupCache {
    fn bucket(at: usize) -> usize {
        (at ^ (at >> 4) ^ (at >> 9)) & 15
    }
}

/// One remembered `Class::lookup`: where `name` was found along the class's MRO.
#[derive(Debug)]
struct LookupEntry {
    name: Rc<PyStr>,
    /// The address of the text the entry was made for: `name`'s own (held alive by it), or
    /// a `&'static str` the Rust code asked with (alive forever). Either way no other text
    /// can have it, so an equal address and length is a hit without reading the text.
    key: usize,
    /// (MRO position, 0 = the class itself; index in that class's dict), or `None` if absent.
    found: Option<(u32, u32)>,
}

/// [`Class::slots`] of a class named `name` with direct `bases` declaring `declared`: the
/// union of its own slot names and its bases' (every base but `object` must be slotted), or
/// `None` when some class in the MRO declares no `__slots__` or one declares `__dict__`.
fn slot_layout(
    name: &str,
    bases: &[Rc<Class>],
    declared: Option<Vec<Value>>,
) -> Option<Box<[Rc<str>]>> {
    let declared = declared?;
    let mut names: Vec<Rc<str>> = Vec::new();
    for b in bases {
        if b.builtin == BuiltinType::Object && b.bases.is_empty() {
            continue;
        }
        names.extend(b.slots.as_ref()?.iter().cloned());
    }
    // Private slot names are mangled with the declaring class's name, as attribute names in
    // its body are.
    let cn = name.trim_start_matches('_');
    for v in declared {
        let Value::Str(x) = v else { continue };
        if &*x.s == "__dict__" {
            return None;
        }
        if x.s.starts_with("__") && !x.s.ends_with("__") && !cn.is_empty() {
            names.push(format!("_{cn}{}", x.s).into());
        } else {
            names.push(Rc::from(&*x.s));
        }
    }
    names.sort_unstable();
    names.dedup();
    Some(names.into_boxed_slice())
}

/// A class (builtin or user).
#[derive(Debug)]
pub struct Class {
    /// `__name__`.
    pub name: Rc<str>,
    /// `__qualname__`.
    pub qualname: RefCell<Rc<str>>,
    /// Direct bases.
    pub bases: Vec<Rc<Class>>,
    /// Method resolution order, starting with the class itself (C3). Filled once at creation;
    /// the self-entry is implied (mro[0] is not stored to avoid an Rc cycle).
    pub mro: Vec<Rc<Class>>,
    /// Class namespace. Read it with `borrow()`; change it only through [`Class::dict_mut`],
    /// which invalidates the attribute lookup cache.
    pub dict: RefCell<NameMap>,
    /// Recent lookups (see [`Class::lookup`]), valid while `lookup_epoch` is current.
    lookup_cache: RefCell<LookupCache>,
    lookup_epoch: Cell<u64>,
    /// How `C(...)` runs, remembered for a class epoch: `Some(init)` when it is
    /// `object.__new__` then the plain function `init` (see `Vm::plain_init`), `None` when
    /// it takes the general path.
    pub(crate) ctor_cache: RefCell<Option<(u64, Option<std::rc::Weak<Function>>)>>,
    /// Builtin type this class is or derives from.
    pub builtin: BuiltinType,
    /// A builtin type (every class of the VM base, [`permanent`]): its namespace cannot change
    /// from Python, as CPython's static types cannot, so every invocation on a thread can
    /// share it (`Vm::class_store`, `Vm::class_delete` refuse).
    pub immutable: Cell<bool>,
    /// Metaclass; `None` means `type`.
    pub meta: RefCell<Option<Rc<Class>>>,
    /// The attribute names instances may hold when every class of the MRO but `object`
    /// declares `__slots__` without `__dict__` (sorted, private names mangled); `None` when
    /// instances have a `__dict__`. Fixed when the class is made, as CPython fixes its layout
    /// (assigning `__slots__` later changes nothing), so a store checks it by binary search
    /// instead of walking the MRO's `__slots__` again.
    pub slots: Option<Box<[Rc<str>]>>,
    pub(crate) acct: Acct,
}

impl Class {
    /// Build a class whose `__slots__`, if any, is a string or a tuple or list of strings.
    pub fn new(
        name: &str,
        bases: Vec<Rc<Class>>,
        mro: Vec<Rc<Class>>,
        dict: NameMap,
        builtin: BuiltinType,
    ) -> Class {
        let declared = dict.get("__slots__").map(|v| match v {
            Value::Tuple(t) => t.items.to_vec(),
            Value::List(l) => l.items.borrow().clone(),
            other => vec![other.clone()],
        });
        Class::with_slots(name, bases, mro, dict, builtin, declared)
    }

    /// Build a class, given the items of its `__slots__` (`None`: it declares none).
    pub fn with_slots(
        name: &str,
        bases: Vec<Rc<Class>>,
        mro: Vec<Rc<Class>>,
        dict: NameMap,
        builtin: BuiltinType,
        declared: Option<Vec<Value>>,
    ) -> Class {
        let slots = slot_layout(name, &bases, declared);
        let slot_bytes: usize = slots
            .iter()
            .flat_map(|s| s.iter())
            .map(|n| SLOT + n.len())
            .sum();
        let n = dict.len();
        Class {
            name: name.into(),
            qualname: RefCell::new(name.into()),
            bases,
            mro,
            dict: RefCell::new(dict),
            lookup_cache: RefCell::default(),
            lookup_epoch: Cell::new(0),
            ctor_cache: RefCell::new(None),
            builtin,
            immutable: Cell::new(false),
            meta: RefCell::new(None),
            slots,
            acct: Acct::new(HEADER * 8 + n * 3 * SLOT + slot_bytes),
        }
    }
    /// Look an attribute up along the MRO (self first). A builtin value type in the MRO supplies
    /// its `__hash__` at its MRO position (so `class N(int, Enum)` hashes like an int).
    ///
    /// Results are remembered in a small cache by (class, name) as the position where the name
    /// was found (or that it was not), never as the value, so the cache keeps no value alive
    /// and changes no memory figure (its name strings are unaccounted copies or the program's
    /// own interned names). Any change to any class namespace empties it.
    ///
    /// The walk is priced by its length ([`owe_mro_walk`]), the same whether the cache or
    /// the walk answered.
    pub fn lookup(&self, name: &str) -> Option<Value> {
        self.lookup_cached(name, None, false)
    }

    /// [`Class::lookup`] by a name from code: found in the cache by pointer, without reading
    /// the text, when the same interned name asked before.
    pub fn lookup_name(&self, name: &Rc<PyStr>) -> Option<Value> {
        self.lookup_cached(&name.s, Some(name), false)
    }

    /// [`Class::lookup`] by a name written in the Rust code (a special method's, say): found
    /// in the cache by the text's address, without reading the text, when asked before.
    pub fn lookup_static(&self, name: &'static str) -> Option<Value> {
        self.lookup_cached(name, None, true)
    }

    fn lookup_cached(
        &self,
        name: &str,
        interned: Option<&Rc<PyStr>>,
        is_static: bool,
    ) -> Option<Value> {
        // `__hash__` may be synthesised for a builtin value type in the MRO (see
        // `lookup_uncached`), which is no dict position: it is remembered only when found in
        // a dict, and always priced as a walk of the whole MRO, its worst case.
        let hash = name == "__hash__";
        let owe = |found: Option<(u32, u32)>| {
            let namespaces = if hash {
                self.mro.len() + 1
            } else {
                self.walk_len(found)
            };
            owe_mro_walk(namespaces, name.len())
        };
        let epoch = CLASS_EPOCH.with(|e| e.get());
        let mut lc = self.lookup_cache.borrow_mut();
        if self.lookup_epoch.get() != epoch {
            lc.entries.clear();
            self.lookup_epoch.set(epoch);
        }
        // Equal text addresses and lengths mean equal text (`LookupEntry::key`).
        let at = name.as_ptr() as usize;
        let bucket = LookupCache::bucket(at);
        let is_key = |e: &LookupEntry| e.key == at && e.name.s.len() == name.len();
        let guess = usize::from(lc.recent[bucket]);
        let hit = match lc.entries.get(guess) {
            Some(e) if is_key(e) => Some(guess),
            _ => lc
                .entries
                .iter()
                .position(is_key)
                .or_else(|| lc.entries.iter().position(|e| *e.name.s == *name)),
        };
        if let Some(k) = hit {
            lc.recent[bucket] = k as u8;
        }
        let cache = &mut lc.entries;
        if let Some(e) = hit.map(|k| &cache[k]) {
            owe(e.found);
            let (k, i) = e.found?;
            let owner = if k == 0 {
                self
            } else {
                &*self.mro[k as usize - 1]
            };
            return owner
                .dict
                .borrow()
                .get_index(i as usize)
                .map(|(_, v)| v.clone());
        }
        let (v, found) = self.lookup_uncached(name);
        owe(found);
        if hash && found.is_none() {
            return v;
        }
        if cache.len() == LOOKUP_CACHE_SIZE {
            cache.clear();
        }
        let entry_name = match interned {
            Some(n) => n.clone(),
            // Not the program's memory: the cache must not move any accounted figure.
            None => Rc::new(crate::memory::unaccounted(|| PyStr::new(name))),
        };
        let key = if is_static {
            at
        } else {
            entry_name.s.as_ptr() as usize
        };
        cache.push(LookupEntry {
            name: entry_name,
            key,
            found,
        });
        lc.recent[LookupCache::bucket(key)] = (lc.entries.len() - 1) as u8;
        v
    }

    /// Whether instances may hold attribute `name` under the class's `__slots__` layout
    /// (always, when they have a `__dict__`): a binary search of [`Class::slots`].
    pub fn slots_allow(&self, name: &str) -> bool {
        self.slots
            .as_ref()
            .is_none_or(|s| s.binary_search_by(|n| (**n).cmp(name)).is_ok())
    }

    /// How many namespaces the MRO walk reads to find a name at `found` (all of them for a
    /// miss): what a lookup costs whether or not the lookup cache answered it.
    /// The class attribute `name` (what [`Class::lookup`] answers) and the namespaces its
    /// walk reads, found without the cache and owing nothing: for callers that remember the
    /// answer and owe the walk themselves on each use (`native::dataclasses`).
    pub fn lookup_walk(&self, name: &str) -> (Option<Value>, usize) {
        if name == "__hash__" {
            return (self.lookup_uncached(name).0, self.mro.len() + 1);
        }
        let (v, found) = self.lookup_uncached(name);
        (v, self.walk_len(found))
    }

    fn walk_len(&self, found: Option<(u32, u32)>) -> usize {
        found.map_or(self.mro.len() + 1, |(k, _)| k as usize + 1)
    }

    /// Change this class's namespace (invalidates every cached attribute lookup).
    pub fn dict_mut(&self) -> std::cell::RefMut<'_, NameMap> {
        new_class_epoch();
        self.dict.borrow_mut()
    }

    /// The MRO walk behind [`Class::lookup`]: the value and where it was found (MRO position,
    /// 0 = this class, and index in that class's dict).
    fn lookup_uncached(&self, name: &str) -> (Option<Value>, Option<(u32, u32)>) {
        if let Some((i, _, v)) = self.dict.borrow().get_full(name) {
            return (Some(v.clone()), Some((0, i as u32)));
        }
        for (k, c) in self.mro.iter().enumerate() {
            if let Some((i, _, v)) = c.dict.borrow().get_full(name) {
                return (Some(v.clone()), Some((k as u32 + 1, i as u32)));
            }
            // Only `__hash__` is synthesised: the other protocols of builtin bases are served by
            // the payload fallbacks (which also handle `__missing__` and friends).
            if name == "__hash__" && c.is_builtin_value_type() && type_has_dunder(c.builtin, name) {
                let v = Value::Builtin(Rc::new(Builtin {
                    name: name.into(),
                    kind: BuiltinKind::Unbound(c.builtin),
                }));
                return (Some(v), None);
            }
        }
        (None, None)
    }

    /// The canonical class of a builtin value type (`int`, `list`, …), not a user subclass.
    pub fn is_builtin_value_type(&self) -> bool {
        (self.builtin.is_number() || self.builtin.is_container())
            && !self.dict.borrow().contains_key("__module__")
    }
    /// Is `self` the class `other` or a subclass of it.
    pub fn is_subclass(self: &Rc<Self>, other: &Rc<Class>) -> bool {
        Rc::ptr_eq(self, other) || self.mro.iter().any(|c| Rc::ptr_eq(c, other))
    }
}

/// One traceback entry: file, line, function.
pub type TbEntry = (Rc<str>, u32, Rc<str>);

/// Extra state of exception instances.
#[derive(Debug, Default)]
pub struct ExcState {
    /// Traceback entries, innermost first (pushed as it unwinds). Private so that every
    /// change goes through [`ExcState::push_traceback`]/[`ExcState::set_traceback`], which
    /// account it: raising one instance again and again grows it without bound (as CPython's
    /// does), so it must count against the invocation's memory.
    traceback: Vec<TbEntry>,
    /// What `traceback` weighs in the memory accounting.
    traceback_acct: crate::memory::Acct,
    /// The traceback objects made for the first entries so far (`objects/traceback.rs`).
    pub tb_objs: Vec<Value>,
    /// `__cause__`.
    pub cause: Option<Value>,
    /// `__context__`.
    pub context: Option<Value>,
    /// `__suppress_context__`.
    pub suppress: bool,
}

impl ExcState {
    /// The traceback entries, innermost first.
    pub fn traceback(&self) -> &[TbEntry] {
        &self.traceback
    }

    /// Record that the exception unwound through a frame.
    pub fn push_traceback(&mut self, entry: TbEntry) {
        self.traceback.push(entry);
        self.account_traceback();
    }

    /// Replace the entries (`exc.__traceback__ = tb`).
    pub fn set_traceback(&mut self, entries: Vec<TbEntry>) {
        self.traceback = entries;
        self.account_traceback();
    }

    fn account_traceback(&self) {
        let bytes = self.traceback.capacity() * std::mem::size_of::<TbEntry>();
        self.traceback_acct.resize(bytes);
    }
}

/// An instance of a user class.
#[derive(Debug)]
pub struct Instance {
    /// Its class.
    pub class: RefCell<Rc<Class>>,
    /// `__dict__` (live: `obj.__dict__[k] = v` sets the attribute).
    pub dict: Rc<PyDict>,
    /// Builtin payload for subclasses of builtins (e.g. the int of an `int` subclass, or the
    /// list of a `list` subclass).
    pub base: RefCell<Option<Value>>,
    /// Exception state for BaseException subclasses.
    pub exc: RefCell<Option<Box<ExcState>>>,
    /// Rust state of instances of native classes (`hashlib` objects, `struct.Struct`,
    /// `re.Pattern`/`re.Match`; see `crate::native`). Invisible to Python.
    pub native: RefCell<Option<Box<dyn std::any::Any>>>,
    /// `__dict__` was handed to Python, so the dict may outlive the instance and is tracked
    /// for cycle reclamation on its own (see [`Instance::dict_value`]).
    dict_escaped: Cell<bool>,
    pub(crate) acct: Acct,
}
impl Instance {
    /// New empty instance.
    pub fn new(class: Rc<Class>) -> Instance {
        Self::with_native(class, None)
    }
    /// New instance of a native class, carrying `native` (see `crate::native::new_obj`).
    /// Inlined so that [`rc_inst`] builds it where it will live instead of moving it there.
    #[inline(always)]
    pub fn with_native(class: Rc<Class>, native: Option<Box<dyn std::any::Any>>) -> Instance {
        Instance {
            class: RefCell::new(class),
            // Not tracked while only the instance holds it: the instance's own tracking
            // empties it at the end of the invocation.
            dict: Rc::new(PyDict::new()),
            base: RefCell::new(None),
            exc: RefCell::new(None),
            native: RefCell::new(native),
            dict_escaped: Cell::new(false),
            acct: Acct::new(HEADER * 2),
        }
    }
    /// `obj.__dict__`: the live attribute dict, from now on tracked by itself too, since
    /// Python code may keep it after the instance is gone.
    pub fn dict_value(&self) -> Value {
        if !self.dict_escaped.replace(true) {
            track(Tracked::Dict(Rc::downgrade(&self.dict)));
        }
        Value::Dict(self.dict.clone())
    }
    /// Re-account (the attribute dict accounts for itself).
    pub fn touch(&self) {
        self.acct.resize(HEADER * 2)
    }
    /// The class.
    pub fn cls(&self) -> Rc<Class> {
        self.class.borrow().clone()
    }
}

/// A generator / coroutine: a suspended heap frame.
#[derive(Debug)]
pub struct Generator {
    /// The frame; `None` once finished.
    pub frame: RefCell<Option<Box<frame::Frame>>>,
    /// Name for reprs.
    pub name: Rc<str>,
    /// Currently executing (re-entrancy guard).
    pub running: Cell<bool>,
    /// Coroutine (async def).
    pub coroutine: bool,
    /// Async generator (async def with yield, or an async generator expression).
    pub async_gen: bool,
    /// Async generator: a step (`__anext__` …) is suspended in an `await` of its frame.
    pub running_async: Cell<bool>,
    pub(crate) acct: Acct,
}
impl Generator {
    /// Wrap a frame.
    pub fn new(frame: frame::Frame, name: Rc<str>, coroutine: bool) -> Generator {
        let async_gen = frame.code.is_async_gen;
        Generator {
            frame: RefCell::new(Some(Box::new(frame))),
            name,
            running: Cell::new(false),
            coroutine,
            async_gen,
            running_async: Cell::new(false),
            acct: Acct::new(HEADER * 8),
        }
    }
}

/// Builtin iterator state.
#[derive(Debug)]
pub struct PyIter {
    /// State.
    pub state: RefCell<IterState>,
    pub(crate) acct: Acct,
}
impl PyIter {
    /// The accounted size of an iterator object.
    pub(crate) const SIZE: usize = HEADER * 2;

    /// Wrap a state.
    pub fn new(s: IterState) -> PyIter {
        PyIter {
            state: RefCell::new(s),
            acct: Acct::new(Self::SIZE),
        }
    }
}

/// The kinds of builtin iterators.
#[derive(Debug)]
#[allow(missing_docs)]
pub enum IterState {
    Seq {
        seq: Value,
        i: usize,
    },
    Range {
        next: i64,
        step: i64,
        left: i64,
    },
    Str {
        s: Rc<PyStr>,
        byte: usize,
    },
    Dict {
        d: Rc<PyDict>,
        i: usize,
        kind: u8,
        len: usize,
    },
    Set {
        s: Rc<PySet>,
        i: usize,
        len: usize,
    },
    Reversed {
        seq: Value,
        i: usize,
    },
    Enumerate {
        it: Value,
        n: Value,
    },
    /// The input iterators are shared (`Rc`): a step clones the handle out of the borrowed
    /// state before it calls into them, which must not copy a vector per step.
    Zip {
        its: Rc<[Value]>,
        strict: bool,
    },
    Map {
        f: Value,
        its: Rc<[Value]>,
    },
    Filter {
        f: Value,
        it: Value,
    },
    Callable {
        f: Value,
        sentinel: Value,
    },
    /// `anext(it, default)` (`objects/asyncgen.rs`): awaits `awaitable` (the result of
    /// `it.__anext__()`, turned into its iterator `iter` on the first send) and gives
    /// `default` instead of `StopAsyncIteration`.
    AnextDefault {
        awaitable: Value,
        iter: Option<Value>,
        default: Value,
    },
    /// The awaitable of one step of an async generator (`objects/asyncgen.rs`).
    AsyncGenStep {
        gen: Rc<Generator>,
        op: AsyncGenOp,
        /// 0 not started, 1 suspended in an `await` of the generator, 2 done.
        state: u8,
    },
    Empty,
}

/// What an async generator step does first: `__anext__`/`asend(v)` send a value,
/// `athrow(e)` throws an exception, `aclose()` throws `GeneratorExit`.
#[derive(Debug, Clone)]
#[allow(missing_docs)]
pub enum AsyncGenOp {
    Send(Value),
    /// The arguments of `athrow(typ[, val[, tb]])`, checked when the step starts.
    Throw(Vec<Value>),
    Close,
}

/// A module object.
#[derive(Debug)]
pub struct Module {
    /// Module name.
    pub name: Rc<str>,
    /// Its globals: read with [`Module::dict`], write through [`Module::dict_mut`].
    dict: RefCell<Rc<PyDict>>,
    /// For an import of a module of the VM base not written to yet: the accounting of the
    /// private copy of its namespace this module stands for, while `dict` is still the shared
    /// (frozen) namespace itself (see [`Module::copy_on_write`]).
    pending: RefCell<Option<Acct>>,
}

impl Module {
    /// A module over its own namespace.
    pub fn new(name: &str, dict: Rc<PyDict>) -> Module {
        Module {
            name: name.into(),
            dict: RefCell::new(dict),
            pending: RefCell::new(None),
        }
    }

    /// An import of a module of the VM base (`pvm_host`, `cowboy_sdk`): to the program, a
    /// module over a private copy of `shared`, the base's frozen namespace, so that it may
    /// rebind names in it for itself. The copy is made at the first write ([`Module::dict_mut`]);
    /// until then reads go to `shared`, whose table is the copy's slot for slot, so a lookup
    /// finds and is charged exactly what it would be in the copy. The copy is accounted now,
    /// as it was when it was made at the import (the same bytes, the same identity serial
    /// carried over), so memory figures and charges are those of the eager copy.
    pub fn copy_on_write(name: &str, shared: Rc<PyDict>) -> Module {
        let n = shared.table.borrow().entries.len();
        Module {
            name: name.into(),
            dict: RefCell::new(shared),
            pending: RefCell::new(Some(Acct::new(HEADER + n * 3 * SLOT))),
        }
    }

    /// The namespace, for reading.
    pub fn dict(&self) -> Rc<PyDict> {
        self.dict.borrow().clone()
    }

    /// The namespace, for writing: a copy-on-write module makes its private copy first.
    pub fn dict_mut(&self) -> Rc<PyDict> {
        if let Some(acct) = self.pending.borrow_mut().take() {
            let table = self.dict.borrow().table.borrow().clone();
            let own = rc_dict(PyDict {
                table: RefCell::new(table),
                acct,
            });
            *self.dict.borrow_mut() = own;
        }
        self.dict()
    }
}

/// `property(fget, fset, fdel, doc)`.
#[derive(Debug)]
#[allow(missing_docs)]
pub struct Property {
    pub fget: Value,
    pub fset: Value,
    pub fdel: Value,
    pub doc: Value,
}

/// The wrapped callable of classmethod/staticmethod.
#[derive(Debug)]
pub struct Wrapped(pub Value);

/// A `super()` object: MRO search starts after `class` in type(obj).__mro__.
#[derive(Debug)]
pub struct Super {
    /// The class whose successor is searched.
    pub class: Rc<Class>,
    /// The receiver (instance or class).
    pub obj: Value,
}

// Two words, and `None` of an `Option<Value>` (every frame's local slot) is a tag value,
// not a word more.
const _: () = assert!(std::mem::size_of::<Value>() == 16);
const _: () = assert!(std::mem::size_of::<Option<Value>>() == 16);

impl Clone for Value {
    /// One more reference: the `Rc` of a heap kind gains a strong count ([`Value::retain`]),
    /// then the 16 bytes are copied whole.
    ///
    /// Why not the derived `clone`: it built the copy field by field (a tag byte, then the
    /// payload) in a temporary that the caller then read back as one 16-byte word, and a wide
    /// load of narrower stores just made cannot be forwarded from the store buffer: the value
    /// stack's push, which every arm of the dispatch loop that loads a value shares, stalled on
    /// it (`perf annotate`: a tenth of the loop's samples on that one load). Copying the
    /// source's bytes reads memory written long before.
    #[inline(always)]
    #[expect(
        unsafe_code,
        reason = "the one copy of a value's bytes; the SAFETY note says why it is sound"
    )]
    fn clone(&self) -> Value {
        if self.is_heap() {
            self.retain();
        }
        // SAFETY: a kind that owns nothing (None, NotImplemented, Ellipsis, bool, int, float)
        // is plain data, so its bits are an independent value; every other kind holds exactly
        // one `Rc` (`retain`'s exhaustive match does not compile otherwise), whose strong count
        // `retain` has just raised for the copy. So the copy owns one reference of its own,
        // exactly what `Rc::clone` of the field would have made, and dropping both the
        // original and the copy releases both references.
        unsafe { std::ptr::read(self) }
    }
}

impl Value {
    /// Take one more strong reference to the `Rc` a heap kind holds (nothing for the inline
    /// kinds): the half of [`Value::clone`] that is not a copy of bytes.
    #[inline(always)]
    fn retain(&self) {
        fn more<T>(r: &Rc<T>) {
            std::mem::forget(Rc::clone(r));
        }
        match self {
            Value::None
            | Value::NotImplemented
            | Value::Ellipsis
            | Value::Bool(_)
            | Value::Int(_)
            | Value::Float(_) => {}
            Value::BigInt(r) => more(r),
            Value::Str(r) => more(r),
            Value::Bytes(r) => more(r),
            Value::ByteArray(r) => more(r),
            Value::Tuple(r) => more(r),
            Value::List(r) => more(r),
            Value::Dict(r) => more(r),
            Value::Set(r) => more(r),
            Value::Range(r) => more(r),
            Value::Slice(r) => more(r),
            Value::Function(r) => more(r),
            Value::Builtin(r) => more(r),
            Value::BoundMethod(r) => more(r),
            Value::Class(r) => more(r),
            Value::Instance(r) => more(r),
            Value::Generator(r) => more(r),
            Value::Iter(r) => more(r),
            Value::Module(r) => more(r),
            Value::Property(r) => more(r),
            Value::ClassMethod(r) => more(r),
            Value::StaticMethod(r) => more(r),
            Value::Super(r) => more(r),
            Value::Cell(r) => more(r),
        }
    }
    /// Owns heap memory (anything but None, NotImplemented, Ellipsis, bool, small int, float).
    #[inline]
    pub fn is_heap(&self) -> bool {
        !matches!(
            self,
            Value::None
                | Value::NotImplemented
                | Value::Ellipsis
                | Value::Bool(_)
                | Value::Int(_)
                | Value::Float(_)
        )
    }
    /// Deterministic identity number: the object's serial for heap objects (see
    /// [`Acct::serial`]); immutable singletons and descriptors hash by kind.
    pub fn identity(&self) -> u64 {
        match self {
            Value::Str(x) => x.acct.serial() << 1,
            Value::Bytes(x) => x.acct.serial() << 1,
            Value::ByteArray(x) => x.acct.serial() << 1,
            Value::Tuple(x) => x.acct.serial() << 1,
            Value::List(x) => x.acct.serial() << 1,
            Value::Dict(x) => x.acct.serial() << 1,
            Value::Set(x) => x.acct.serial() << 1,
            Value::Function(x) => x.acct.serial() << 1,
            Value::Class(x) => x.acct.serial() << 1,
            Value::Instance(x) => x.acct.serial() << 1,
            Value::Generator(x) => x.acct.serial() << 1,
            Value::Iter(x) => x.acct.serial() << 1,
            Value::Builtin(b) => str_hash(&b.name) | 1,
            Value::Module(m) => str_hash(&m.name) | 1,
            // Inline values: equal values are "the same object" (like CPython's small ints);
            // odd numbers so they never collide with heap serials (even).
            Value::Int(i) => (*i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1,
            Value::Float(f) => f.to_bits().wrapping_mul(0xC2B2_AE3D_27D4_EB4F) | 1,
            Value::Bool(b) => 0x10 | (*b as u64) << 8 | 1,
            Value::None => 0x21,
            Value::NotImplemented => 0x23,
            Value::Ellipsis => 0x25,
            _ => 0x27,
        }
    }
    /// Make a str value.
    pub fn str(s: &str) -> Value {
        Value::Str(Rc::new(PyStr::new(s)))
    }
    /// Make a tuple value.
    pub fn tuple(v: Vec<Value>) -> Value {
        Value::Tuple(Rc::new(PyTuple::new(v)))
    }
    /// Make a list value.
    pub fn list(v: Vec<Value>) -> Value {
        Value::List(rc_list(PyList::new(v)))
    }
    /// Make a bytes value.
    pub fn bytes(v: Vec<u8>) -> Value {
        Value::Bytes(Rc::new(PyBytes::new(v)))
    }
    /// Make an int from a BigInt, demoting to i64 when it fits. Callers checked the size.
    pub fn from_bigint(b: BigInt) -> Value {
        use num_traits::ToPrimitive;
        match b.to_i64() {
            Some(i) => Value::Int(i),
            None => Value::BigInt(Rc::new(b)),
        }
    }
    /// Is None.
    pub fn is_none(&self) -> bool {
        matches!(self, Value::None)
    }
    /// Identity comparison (`is`).
    pub fn is(&self, other: &Value) -> bool {
        use Value::*;
        match (self, other) {
            (None, None) | (NotImplemented, NotImplemented) | (Ellipsis, Ellipsis) => true,
            (Bool(a), Bool(b)) => a == b,
            // Small ints are cached in CPython for -5..=256; we treat equal ints as identical,
            // which only differs for large ints created separately (see LIMITATIONS.md).
            (Int(a), Int(b)) => a == b,
            (Float(a), Float(b)) => a.to_bits() == b.to_bits(),
            (BigInt(a), BigInt(b)) => Rc::ptr_eq(a, b),
            (Str(a), Str(b)) => Rc::ptr_eq(a, b) || (a.len <= 1 && a.s == b.s),
            (Bytes(a), Bytes(b)) => Rc::ptr_eq(a, b),
            (ByteArray(a), ByteArray(b)) => Rc::ptr_eq(a, b),
            (Tuple(a), Tuple(b)) => Rc::ptr_eq(a, b) || (a.items.is_empty() && b.items.is_empty()),
            (List(a), List(b)) => Rc::ptr_eq(a, b),
            (Dict(a), Dict(b)) => Rc::ptr_eq(a, b),
            (Set(a), Set(b)) => Rc::ptr_eq(a, b),
            (Range(a), Range(b)) => Rc::ptr_eq(a, b),
            (Slice(a), Slice(b)) => Rc::ptr_eq(a, b),
            (Function(a), Function(b)) => Rc::ptr_eq(a, b),
            (Builtin(a), Builtin(b)) => Rc::ptr_eq(a, b),
            (BoundMethod(a), BoundMethod(b)) => Rc::ptr_eq(a, b),
            (Class(a), Class(b)) => Rc::ptr_eq(a, b),
            (Instance(a), Instance(b)) => Rc::ptr_eq(a, b),
            (Generator(a), Generator(b)) => Rc::ptr_eq(a, b),
            (Iter(a), Iter(b)) => Rc::ptr_eq(a, b),
            (Module(a), Module(b)) => Rc::ptr_eq(a, b),
            (Property(a), Property(b)) => Rc::ptr_eq(a, b),
            (ClassMethod(a), ClassMethod(b)) => Rc::ptr_eq(a, b),
            (StaticMethod(a), StaticMethod(b)) => Rc::ptr_eq(a, b),
            (Super(a), Super(b)) => Rc::ptr_eq(a, b),
            (Cell(a), Cell(b)) => Rc::ptr_eq(a, b),
            _ => false,
        }
    }
}

// Iterative destruction. Dropping a deeply nested structure (`x = [x]` a million times) with
// the default drop glue recurses once per level and would overflow the Rust stack. Container
// drops instead hand their children to a thread-local queue drained by the outermost drop.
thread_local! {
    static DROPPING: Cell<bool> = const { Cell::new(false) };
    static PENDING: RefCell<Vec<Value>> = const { RefCell::new(Vec::new()) };
}

pub(crate) fn defer_drop(items: impl IntoIterator<Item = Value>) {
    // During thread teardown (a thread-local code cache dropping its constants after these
    // thread-locals are gone) drop directly: constants are shallow.
    let mut items = Some(items);
    let queued = PENDING.try_with(|p| {
        if let (Ok(mut p), Some(items)) = (p.try_borrow_mut(), items.take()) {
            p.extend(items.into_iter().filter(|v| v.is_container()));
        }
    });
    if queued.is_err() {
        drop(items);
        return;
    }
    match DROPPING.try_with(|d| d.replace(true)) {
        Ok(false) => {}
        _ => return,
    }
    loop {
        let next = PENDING
            .try_with(|p| p.try_borrow_mut().ok().and_then(|mut p| p.pop()))
            .ok()
            .flatten();
        match next {
            Some(v) => drop(v),
            None => break,
        }
    }
    let _ = DROPPING.try_with(|d| d.set(false));
}

impl Value {
    fn is_container(&self) -> bool {
        matches!(
            self,
            Value::List(_) | Value::Tuple(_) | Value::Dict(_) | Value::Set(_) | Value::Instance(_)
        )
    }
}

// A list or tuple holding no container (ints, strs, …) lets its items go with it: the queue
// would drop them at once all the same (it keeps only containers), and skipping its
// thread-locals is most of the cost of freeing a small tuple.
impl Drop for PyList {
    fn drop(&mut self) {
        let items = self.items.get_mut();
        if items.iter().any(Value::is_container) {
            defer_drop(std::mem::take(items));
        }
    }
}

impl Drop for PyTuple {
    fn drop(&mut self) {
        if self.items.iter().any(Value::is_container) {
            defer_drop(std::mem::take(&mut self.items).into_vec());
        }
    }
}

impl Drop for PyDict {
    fn drop(&mut self) {
        let t = std::mem::take(self.table.get_mut());
        if t.entries.is_empty() {
            return; // nothing to queue (an instance's dict, mostly)
        }
        defer_drop(
            t.entries
                .into_iter()
                .flatten()
                .flat_map(|e| [e.key, e.value]),
        );
    }
}

impl Drop for PySet {
    fn drop(&mut self) {
        let t = std::mem::take(self.table.get_mut());
        defer_drop(t.entries.into_iter().flatten().map(|e| e.key));
    }
}

impl Drop for Instance {
    fn drop(&mut self) {
        let b = self.base.get_mut().take();
        // The usual case: nothing else holds the attribute dict, so hand its contents to the
        // deferred drop and let the emptied dict go with the instance (no replacement dict).
        if let Some(d) = Rc::get_mut(&mut self.dict) {
            let t = std::mem::take(d.table.get_mut());
            if t.entries.is_empty() && b.is_none() {
                // No attributes (a `__slots__ = ()` class, native state): nothing to queue,
                // and the queue's thread-locals cost more than the rest of the drop.
                return;
            }
            defer_drop(
                t.entries
                    .into_iter()
                    .flatten()
                    .flat_map(|e| [e.key, e.value])
                    .chain(b),
            );
            return;
        }
        let d = std::mem::replace(&mut self.dict, Rc::new(PyDict::new()));
        defer_drop(std::iter::once(Value::Dict(d)).chain(b));
    }
}

// Cycle reclamation. Python programs may build reference cycles (a function and its module
// globals always form one). There are no finalizers, so instead of a cycle collector every
// mutable container is registered here (weakly) and `clear_tracked` empties them all when the
// invocation ends, which breaks every cycle and lets reference counting free everything.
#[derive(Debug)]
enum Tracked {
    Dict(std::rc::Weak<PyDict>),
    List(std::rc::Weak<PyList>),
    Set(std::rc::Weak<PySet>),
    Cell(std::rc::Weak<PyCell>),
    Class(std::rc::Weak<Class>),
    Gen(std::rc::Weak<Generator>),
    Inst(std::rc::Weak<Instance>),
    Func(std::rc::Weak<Function>),
}

impl Tracked {
    fn alive(&self) -> bool {
        match self {
            Tracked::Dict(w) => w.strong_count() > 0,
            Tracked::List(w) => w.strong_count() > 0,
            Tracked::Set(w) => w.strong_count() > 0,
            Tracked::Cell(w) => w.strong_count() > 0,
            Tracked::Class(w) => w.strong_count() > 0,
            Tracked::Gen(w) => w.strong_count() > 0,
            Tracked::Inst(w) => w.strong_count() > 0,
            Tracked::Func(w) => w.strong_count() > 0,
        }
    }
}

thread_local! {
    static TRACKED: RefCell<Vec<Tracked>> = const { RefCell::new(Vec::new()) };
    static TRACK_LIMIT: Cell<usize> = const { Cell::new(1024) };
}

fn track(t: Tracked) {
    TRACKED.with(|r| {
        if let Ok(mut v) = r.try_borrow_mut() {
            v.push(t);
            // Drop dead weak entries now and then so short-lived containers do not pile up.
            let lim = TRACK_LIMIT.with(|l| l.get());
            if v.len() > lim {
                v.retain(Tracked::alive);
                TRACK_LIMIT.with(|l| l.set((v.len() * 2).max(1024)));
            }
        }
    });
}

/// A tracked dict.
pub fn rc_dict(d: PyDict) -> Rc<PyDict> {
    let r = Rc::new(d);
    track(Tracked::Dict(Rc::downgrade(&r)));
    r
}
/// A tracked list.
pub fn rc_list(l: PyList) -> Rc<PyList> {
    let r = Rc::new(l);
    track(Tracked::List(Rc::downgrade(&r)));
    r
}
/// A tracked set.
pub fn rc_set(s: PySet) -> Rc<PySet> {
    let r = Rc::new(s);
    track(Tracked::Set(Rc::downgrade(&r)));
    r
}
/// A tracked cell.
pub fn rc_cell(c: PyCell) -> Rc<PyCell> {
    let r = Rc::new(c);
    track(Tracked::Cell(Rc::downgrade(&r)));
    r
}
/// A tracked class.
pub fn rc_class(c: Class) -> Rc<Class> {
    let r = Rc::new(c);
    track(Tracked::Class(Rc::downgrade(&r)));
    r
}
/// A tracked generator.
pub fn rc_gen(g: Generator) -> Rc<Generator> {
    let r = Rc::new(g);
    track(Tracked::Gen(Rc::downgrade(&r)));
    r
}
/// A tracked function (its `meta` may hold the function itself: `f.__doc__ = f`).
pub fn rc_func(f: Function) -> Rc<Function> {
    let r = Rc::new(f);
    track(Tracked::Func(Rc::downgrade(&r)));
    r
}
/// A tracked instance.
#[inline]
pub fn rc_inst(i: Instance) -> Rc<Instance> {
    let r = Rc::new(i);
    track(Tracked::Inst(Rc::downgrade(&r)));
    r
}

/// Run `f`, which builds objects that live as long as the thread (the VM base, `vm::Base`):
/// they are never emptied at an invocation's end ([`clear_tracked`] does not see them), every
/// class among them is [`Class::immutable`], and they are built unaccounted with identity
/// serials fixed by creation order ([`crate::memory::permanent`]), so an invocation cannot
/// tell whether it is the thread's first.
pub fn permanent<T>(f: impl FnOnce() -> T) -> T {
    let before = TRACKED.with(|r| std::mem::take(&mut *r.borrow_mut()));
    let out = crate::memory::permanent(f);
    let made = TRACKED.with(|r| std::mem::replace(&mut *r.borrow_mut(), before));
    for t in made {
        if let Tracked::Class(w) = t {
            if let Some(c) = w.upgrade() {
                c.immutable.set(true);
            }
        }
    }
    out
}

/// Empty every container created on this thread since the last call (invocation end).
pub fn clear_tracked() {
    let all = TRACKED.with(|r| {
        r.try_borrow_mut()
            .map(|mut v| std::mem::take(&mut *v))
            .unwrap_or_default()
    });
    for t in all {
        match t {
            Tracked::Dict(w) => {
                if let Some(d) = w.upgrade() {
                    let t = std::mem::take(&mut *d.table.borrow_mut());
                    drop(t);
                }
            }
            Tracked::List(w) => {
                if let Some(l) = w.upgrade() {
                    let v = std::mem::take(&mut *l.items.borrow_mut());
                    drop(v);
                }
            }
            Tracked::Set(w) => {
                if let Some(s) = w.upgrade() {
                    let t = std::mem::take(&mut *s.table.borrow_mut());
                    drop(t);
                }
            }
            Tracked::Cell(w) => {
                if let Some(c) = w.upgrade() {
                    let v = c.v.borrow_mut().take();
                    drop(v);
                }
            }
            Tracked::Class(w) => {
                if let Some(c) = w.upgrade() {
                    let d = std::mem::take(&mut *c.dict_mut());
                    drop(d);
                }
            }
            Tracked::Gen(w) => {
                if let Some(g) = w.upgrade() {
                    let f = g.frame.borrow_mut().take();
                    drop(f);
                }
            }
            Tracked::Inst(w) => {
                if let Some(i) = w.upgrade() {
                    let b = i.base.borrow_mut().take();
                    drop(b);
                    let e = i.exc.borrow_mut().take();
                    drop(e);
                    let n = i.native.borrow_mut().take();
                    drop(n);
                    let d = std::mem::take(&mut *i.dict.table.borrow_mut());
                    drop(d);
                }
            }
            Tracked::Func(w) => {
                if let Some(f) = w.upgrade() {
                    let m = std::mem::take(&mut *f.meta.borrow_mut());
                    drop(m);
                }
            }
        }
    }
    TRACK_LIMIT.with(|l| l.set(1024));
}

#[cfg(test)]
mod tests {
    use super::{Table, Value};

    /// Slots a full walk reads to find the entry at position `i` (what `Candidates` counts).
    fn walk_to(t: &Table, i: usize) -> u64 {
        let h = t.entries[i].as_ref().expect("live").hash;
        let mut c = t.candidates(h);
        while let Some(pos) = c.next() {
            if pos as usize == i {
                return c.probes();
            }
        }
        panic!("entry {i} not found by its own walk");
    }

    /// An entry's recorded slot count is what the walk to it reads, through inserts, deletes,
    /// growth and compaction, with ordinary hashes and with many sharing one hash (the inline
    /// caches charge the recorded count in place of the walk, so they must agree).
    #[test]
    fn recorded_probes_match_the_walk() {
        let mut t = Table::default();
        let mut x: u64 = 0x2545_F491_4F6C_DD1D;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for round in 0..3000u64 {
            let r = next();
            let live: Vec<usize> = (0..t.entries.len())
                .filter(|&i| t.entries[i].is_some())
                .collect();
            if r % 5 == 0 && !live.is_empty() {
                let i = live[(r as usize / 5) % live.len()];
                t.remove_at(i);
            } else {
                // A third of the keys collide on hash 0, another third on 7.
                let hash = match r % 3 {
                    0 => 0,
                    1 => 7,
                    _ => next(),
                };
                t.push(hash, Value::Int(round as i64), Value::None);
            }
            if round % 97 == 0 || round > 2900 {
                for i in 0..t.entries.len() {
                    if let Some(e) = &t.entries[i] {
                        assert_eq!(u64::from(e.probes()), walk_to(&t, i), "entry {i}");
                    }
                }
            }
        }
        crate::memory::take_debt();
    }

    /// A name's remembered absence (`PyDict::find_name_memo`) answers as the walk does and
    /// owes the same probes, in the table whose stamp it recorded; every change of the
    /// table's keys takes a new stamp, so the memo is never trusted across one.
    #[test]
    fn remembered_absence_owes_what_the_walk_owes() {
        use super::{PyDict, PyStr};
        use std::cell::Cell;
        use std::rc::Rc;
        let name = Rc::new(PyStr::new("absent"));
        let mut t = Table::default();
        // Keys sharing the name's hash: the walk that misses reads past all of them.
        for k in 0..12 {
            t.push(name.hash(), Value::str(&format!("k{k}")), Value::Int(k));
        }
        crate::memory::take_debt();
        assert_eq!(PyDict::find_name(&t, &name), None);
        let walked = crate::memory::take_debt();
        assert!(walked > 0, "the walk reads more than the free probes");
        let memo = Cell::new((0, 0));
        assert_eq!(PyDict::find_name_memo(&t, &name, &memo), None);
        assert_eq!(crate::memory::take_debt(), walked);
        assert_eq!(memo.get().0, t.stamp());
        assert_eq!(PyDict::find_name_memo(&t, &name, &memo), None);
        assert_eq!(
            crate::memory::take_debt(),
            walked,
            "a remembered absence owes the walk"
        );
        // A clone holds the same keys under the same index: the memo holds for it too.
        assert_eq!(t.clone().stamp(), t.stamp());
        let before = t.stamp();
        t.push(name.hash(), Value::Str(name.clone()), Value::None);
        assert_ne!(t.stamp(), before);
        let at = PyDict::find_name_memo(&t, &name, &memo).expect("found once inserted");
        t.remove_at(at);
        let removed = t.stamp();
        assert_ne!(removed, before);
        assert_eq!(PyDict::find_name_memo(&t, &name, &memo), None);
        assert_eq!(memo.get().0, removed);
        t.clear();
        assert_eq!(
            t.stamp(),
            0,
            "an empty table has stamp 0, missed in no reads"
        );
        crate::memory::take_debt();
        assert_eq!(PyDict::find_name_memo(&t, &name, &memo), None);
        assert_eq!(crate::memory::take_debt(), 0);
    }

    /// Tables built from empty by the same str keys in the same order share a stamp (their
    /// shape), whichever string objects hold the texts, and only they: another order, a
    /// removal, a non-str key, a long key or a large table leave the shape for stamps of
    /// their own. Tables of one shape miss a name after the same walk.
    #[test]
    fn tables_built_alike_share_a_shape() {
        use super::{str_hash, PyDict, PyStr, SHAPE_KEY_MAX, SHAPE_MAX_LEN};
        use std::rc::Rc;
        let build = |keys: &[&str]| {
            let mut t = Table::default();
            for k in keys {
                t.push(str_hash(k), Value::str(k), Value::None);
            }
            t
        };
        let a = build(&["x", "y", "z"]);
        let b = build(&["x", "y", "z"]);
        assert_ne!(a.stamp(), 0);
        assert_eq!(
            a.stamp(),
            b.stamp(),
            "same texts in the same order: one shape"
        );
        assert_ne!(a.stamp(), build(&["y", "x", "z"]).stamp());
        assert_ne!(a.stamp(), build(&["x", "y"]).stamp());
        let name = Rc::new(PyStr::new("method"));
        crate::memory::take_debt();
        assert_eq!(PyDict::find_name(&a, &name), None);
        let walked = crate::memory::take_debt();
        assert_eq!(PyDict::find_name(&b, &name), None);
        assert_eq!(crate::memory::take_debt(), walked);
        // A removal and a re-insert of the same key: not a table built alike.
        let mut c = build(&["x", "y", "z", "w"]);
        let w = PyDict::find_name(&c, &Rc::new(PyStr::new("w"))).expect("w is in c");
        c.remove_at(w);
        c.push(str_hash("w"), Value::str("w"), Value::None);
        assert_ne!(c.stamp(), build(&["x", "y", "z", "w"]).stamp());
        // A non-str key, a long key and a large table take stamps of their own.
        let mut d = build(&["x"]);
        d.push(7, Value::Int(7), Value::None);
        let mut e = build(&["x"]);
        e.push(7, Value::Int(7), Value::None);
        assert_ne!(d.stamp(), e.stamp());
        let long = "k".repeat(SHAPE_KEY_MAX + 1);
        assert_ne!(build(&[&long]).stamp(), build(&[&long]).stamp());
        let many: Vec<String> = (0..=SHAPE_MAX_LEN).map(|i| format!("a{i}")).collect();
        let many: Vec<&str> = many.iter().map(String::as_str).collect();
        assert_ne!(build(&many).stamp(), build(&many).stamp());
        assert_eq!(
            build(&many[..SHAPE_MAX_LEN]).stamp(),
            build(&many[..SHAPE_MAX_LEN]).stamp()
        );
        // Cleared, a table is empty again and builds into the shape.
        let mut f = build(&["q"]);
        f.clear();
        f.push(str_hash("x"), Value::str("x"), Value::None);
        assert_eq!(f.stamp(), build(&["x"]).stamp());
    }
}
