//! The one cycle cost table of the PVM (whitepaper §17.3 "Cycle costs", CIP-3 §2.2).
//!
//! Every cycle the VM charges comes from a constant in this file, and every charge goes through
//! [`crate::vm::Vm::charge`]. Changing a number here changes consensus: the golden cycle test
//! (`tests/it/golden_cycles.rs`) pins the totals of a fixed program set so a change is deliberate.
//!
//! Fixed costs are per executed instruction; size-proportional surcharges (`PER_*`) are charged
//! before the work they pay for, so a budget is never overrun by more than one fixed step.

/// Load/store of a local, constant, stack shuffles, jumps.
pub const BASIC: u64 = 1;
/// Arithmetic and comparison on small ints/floats (§17.3 "arithmetic: 1").
pub const ARITH: u64 = 1;
/// Global/builtin name lookup (a dict get).
pub const GLOBAL: u64 = 3;
/// Attribute load/store (dict get/set on the instance or class).
pub const ATTR: u64 = 3;
/// Dict get/set (§17.3 "dict get/set: 3").
pub const DICT_OP: u64 = 3;
/// List append/access (§17.3 "list append/access: 2").
pub const LIST_OP: u64 = 2;
/// Any call (Python or builtin) (§17.3 "function call: 10").
pub const CALL: u64 = 10;
/// Building a container: fixed part; elements add `PER_ELEM`.
pub const BUILD: u64 = 2;
/// Per element moved, compared, hashed or visited by a builtin.
pub const PER_ELEM: u64 = 1;
/// Per element a builtin steps an iterator over and compares or combines with Python
/// semantics (`in` on a list, `min`/`max`/`sum`, `list.index`/`count`/`remove`): the iterator
/// step and the general comparison cost about two elements' worth (calibrated).
pub const PER_ELEM_CMP: u64 = 3;
/// Per character of a string created, compared, hashed or formatted (§17.3 "string ops: 1/char").
pub const PER_CHAR_DIV: u64 = 1;
/// Raising an exception (fixed).
pub const RAISE: u64 = 45;
/// Creating an exception instance, by a call of its class or by the VM for an error it
/// raises (`NameError`, `TypeError`, …): its state, `args` tuple and attribute dict, freed
/// again when it is dropped. About 1 us on the reference machine: 7-14x the plain loop per
/// cycle before this was charged (the adversarial search's first finding); at 100 the search's
/// regression cases (`benches/calibrate/found.py`) measure 0.3-0.6 of the median, an
/// overcharge kept rather than risk the other side.
pub const EXC_NEW: u64 = 100;
/// Entering a try block / handler / finally (fixed).
pub const TRY: u64 = 2;
/// Matching an except clause.
pub const EXCEPT: u64 = 5;
/// Per digit of a float formatted at a precision (`'%.300f' % x`, `format(x, '.50e')`): each
/// is produced exactly from the binary value, a big-number step per digit. At one cycle per
/// digit (until 2026-12-04) `'%.300f' % 1e300` ran at 3.3x the median per cycle.
pub const FLOAT_DIGIT: u64 = 2;
/// A level of nested data visited by a native recursion over it (`==` of lists and tuples):
/// the recursive call, its depth check and the item reads around it, on top of
/// [`PER_ELEM`] per item. At one cycle (until 2026-12-04) `==` of 60-deep nested lists, whose
/// every item is a container, ran at 3.5x the median per cycle.
pub const NEST_VISIT: u64 = 3;
/// The shortest round-trip repr of a float (`format::float_repr`): a shortest-digits search,
/// an exact re-format and a parse to check it, about 0.5-1 us whatever the value. Uncharged it
/// ran at 4-8x the plain loop per cycle (`repr(1.7976931348623157e308)`; adversarial search).
pub const FLOAT_REPR: u64 = 60;
/// Creating a function, class or generator object.
pub const MAKE: u64 = 20;
/// Creating a class object (fixed, plus the body's own instructions), charged where every
/// class is made (`Vm::type_new`): its MRO, name map and the hooks looked up on it. About 3 us
/// on the reference machine; at 100 a `class` statement ran at 3x the plain loop per cycle and
/// `type(name, bases, ns)`, which was not charged it at all, at 6-8x (adversarial search).
pub const CLASS: u64 = 250;
/// Per entry of the namespace a new class copies into its own name map.
pub const CLASS_PER_NAME: u64 = 5;
/// Setting or deleting a class attribute, on top of the instruction (`Vm::class_store`,
/// `Vm::class_delete`): the change empties every class's lookup cache and every inline cache
/// (the class epoch moves), so the lookups after it take their slow paths. A loop storing a
/// class attribute and loading a method ran at 4.3x the plain loop per cycle before.
pub const CLASS_STORE: u64 = 20;
/// Import of a whitelisted module, first time (§17.3 "import: 100 first").
pub const IMPORT_FIRST: u64 = 100;
/// Import of an already-loaded module (§17.3 "5 cached").
pub const IMPORT_CACHED: u64 = 5;
/// Import of a module not on the whitelist (the failed lookup still costs).
pub const IMPORT_MISS: u64 = 50;
/// Big-int arithmetic: per 64-bit limb of the larger operand (quadratic ops charge limbs²/8).
pub const PER_LIMB: u64 = 1;
/// Fixed work of one big-int operation step, on top of its limbs: allocating the result and
/// dispatching through num-bigint. `x ** e` runs up to two multiplications per bit of `e`
/// and `pow(b, e, m)` one Montgomery square and multiply per bit, so a small base or
/// modulus paid almost nothing for `2 ** 100` (6-11x the plain loop per cycle before).
pub const BIGINT_STEP: u64 = 4;
/// encode/decode fixed part (§17.3 "encode/decode 10+len").
pub const CODEC: u64 = 10;
/// Yield/resume of a generator.
pub const YIELD: u64 = 3;
/// Iterator step (FOR_ITER), on top of the element access it performs.
pub const ITER: u64 = 1;

/// Accounted bytes of memory growth per cycle (`crate::memory`): every object created and
/// every container grown pays for its accounted bytes, freed memory is not refunded. Filling
/// the 10 MiB limit with small objects, table entries or list slots ran at 8-16x the plain
/// loop per cycle before (allocator, first touch of fresh pages, and the drop); churn of
/// small objects at 3.8x.
pub const ALLOC_BYTES_PER_CYCLE: u64 = 8;

/// One matching step of the `re` engine (`cowboy-pvm-re`'s step: a VM instruction, a
/// character examined by a repeat, a backtrack entry popped, a code unit copied).
pub const RE_STEP: u64 = 1;

/// Slots a hash-table lookup reads within the fixed price of its operation ([`DICT_OP`],
/// [`ATTR`], [`GLOBAL`]): with the table at most 2/3 full, ordinary lookups rarely read more.
pub const FREE_PROBES: u64 = 4;

/// Each hash-table slot read beyond [`FREE_PROBES`] in a lookup (dict/set get, set, delete, `in`,
/// attribute and global names). Ordinary tables read about 1.5 slots a lookup; keys that
/// collide on purpose (every `i * (2**61 - 1)` hashes to 0) make a lookup read one slot, and
/// compare one key, per colliding entry, and this is what pays for it.
pub const PROBE: u64 = 5;

/// Cycles one dict or set lookup pays on top of its operation in a table of `slots` index
/// slots, for the cache misses its reads take once the table outgrows the caches: nothing up
/// to 2^12 slots (the index and entries of such a table stay in L2), then one more per
/// doubling, 8 at the largest table the memory limit allows (2^20 slots). Inserting 300,000
/// scattered ints into one set ran at 5.5x the plain loop per cycle before, each insert
/// missing the cache in the index and again in the entries.
#[inline]
pub fn table_reach(slots: usize) -> u64 {
    let log2 = usize::BITS - 1 - slots.max(1).leading_zeros();
    u64::from(log2.saturating_sub(12))
}

/// Each class namespace an attribute lookup reads beyond the first three, walking the MRO
/// (`value::owe_mro_walk`): one name-map lookup, hashing the name again (about 7 ns, the plain
/// loop's cycle). A deep hierarchy read from its root paid nothing per class before.
pub const MRO_STEP: u64 = 1;

/// One replacement field of `str.format`/`format_map` or one conversion of `%`-formatting,
/// on top of the characters it produces: parsing the field, converting the value and padding
/// it allocate several temporaries, far more work than a character.
pub const FORMAT_FIELD: u64 = 15;

/// Opening a `/tmp` file with `open()`, on top of the call: resolving the path and looking
/// the file up. The path's characters add [`per_char`]; every file read or write then charges
/// [`per_char`] of the bytes it moves (`crate::objects::file`).
pub const TMP_OPEN: u64 = 20;

/// Cycles of `hashlib` hashing `n` bytes: whitepaper §17.3's actor-API `hash()`, 100 cycles
/// plus 1 cycle per byte hashed, with both numbers from the genesis parameters (`hash_base_cycles`,
/// `hash_cycles_per_byte`, carried in [`crate::host::HostCosts`]). The bytes are charged as
/// they are fed (constructor, `update`), the base once per digest computed (`digest`,
/// `hexdigest`). (CIP-3's "6 per 32-byte word" is older; §17 is authoritative for fees.)
#[inline]
pub fn hash_bytes(per_byte: u64, n: usize) -> u64 {
    (n as u64).saturating_mul(per_byte)
}

/// Copying a hash table of `n` entries (`dict.copy`, `d | e`, `set.copy`, a set operand made
/// frozen): each entry's key and value are cloned with its slot and later freed, about three
/// elements' worth (calibrated: at one per entry `d | {}` ran at 8x the plain loop).
pub fn table_copy(n: usize) -> u64 {
    (n as u64).saturating_mul(3)
}

/// Surcharge for an operation touching `n` elements.
#[inline]
pub fn per_elem(n: usize) -> u64 {
    (n as u64).saturating_mul(PER_ELEM)
}

/// Parameter-name comparisons one cycle pays for when a call binds by keyword: each keyword
/// scans the parameter names and each keyword-only parameter left unset scans the function's
/// keyword defaults, so the work is quadratic in a function's size (as in CPython). Unpriced,
/// `f(**kw)` on a function of 2,000 keyword-only parameters ran at 20x the plain loop per
/// cycle and `f()` did not stop within minutes (adversarial search, then by reading the code).
pub const NAME_COMPARES_PER_CYCLE: u64 = 4;

/// Surcharge for a call binding that makes at most `compares` parameter-name comparisons.
#[inline]
pub fn name_compares(compares: u64) -> u64 {
    compares.div_ceil(NAME_COMPARES_PER_CYCLE)
}

/// Surcharge for an operation producing or reading `n` characters/bytes.
#[inline]
pub fn per_char(n: usize) -> u64 {
    (n as u64) / PER_CHAR_DIV
}

/// How many characters/bytes `cycles` pay for at [`per_char`] (its inverse, rounded down).
#[inline]
pub fn chars_for(cycles: u64) -> usize {
    usize::try_from(cycles.saturating_mul(PER_CHAR_DIV)).unwrap_or(usize::MAX)
}

/// Surcharge for big-int arithmetic on operands of `bits` bits (linear operations).
#[inline]
pub fn bigint_linear(bits: u64) -> u64 {
    (bits / 64 + 1) * PER_LIMB
}

/// Surcharge for a big-int gcd (`math.gcd`, `math.lcm`, `pow` with a negative exponent's
/// inverse): num-integer's binary gcd runs one shift-and-subtract pass per bit of the larger
/// operand. A pass costs a fixed part (the trailing-zero count, the comparison, setting up the
/// shift and the subtraction: about 17 ns here, as much as 68 limbs of work) plus about
/// 0.25 ns per limb, so each bit is priced at `limbs + GCD_FIXED_LIMBS` limb steps. Priced by
/// limbs alone (`bits * limbs / 16`, until 2026-12-04) a gcd of two 61-bit ints ran at 12x
/// the median per cycle, since it paid 4 cycles for ~1 us of work; two 2,000-bit ints 3.1x.
#[inline]
pub fn bigint_gcd(bits_a: u64, bits_b: u64) -> u64 {
    let bits = bits_a.max(bits_b);
    let limbs = bits / 64 + 1;
    (bits.saturating_mul(limbs + GCD_FIXED_LIMBS) / GCD_DIV + 1) * PER_LIMB
}

/// A gcd pass's fixed part, in limbs of work (calibrated, `benches/calibrate/main.rs`).
const GCD_FIXED_LIMBS: u64 = 68;
/// Limb steps of a binary gcd per cycle (calibrated).
const GCD_DIV: u64 = 30;

/// Surcharge per bit of the exponent of a modular power `pow(b, e, m)` with a modulus of
/// `bits` bits: a squaring and, for half the bits, a multiplication, each reduced modulo `m`
/// (a Montgomery reduction costs about a product), so about two products of the modulus's
/// size per bit. One product per bit (until 2026-12-04) ran 4,000-bit operands at 3.8x the
/// median per cycle.
#[inline]
pub fn modpow_per_bit(bits: u64) -> u64 {
    2 * bigint_quadratic(bits, bits) + 2 * BIGINT_STEP
}

/// Surcharge for an integer square root (`math.isqrt`): Newton's method, one long division
/// per iteration, about log2 of the size in limbs iterations from num-bigint's first guess.
#[inline]
pub fn bigint_isqrt(bits: u64) -> u64 {
    let limbs = bits / 64 + 1;
    let iterations = u64::from(64 - limbs.leading_zeros()) + 2;
    bigint_quadratic(bits, bits).saturating_mul(iterations)
}

/// Surcharge for writing an int of `bits` bits in `radix`: decimal is quadratic in num-bigint
/// (a long division per 19 digits, calibrated at twice the schoolbook bound), the power-of-two
/// bases linear; both pay per digit written.
#[inline]
pub fn int_to_text(bits: u64, radix: u32) -> u64 {
    let per_digit = match radix {
        2 => 1,
        8 => 3,
        16 => 4,
        _ => 3,
    };
    let digits = bits / per_digit + 1;
    let base = if radix.is_power_of_two() {
        bigint_linear(bits)
    } else if bits < 64 {
        0
    } else {
        bigint_quadratic(bits, bits) * 2
    };
    base + digits
}

/// Surcharge for `x ** e` with `x` of `base_bits` bits: the quadratic bound of the result
/// (capped where `Vm::int_bound` stops larger results) plus [`BIGINT_STEP`] for each of the up
/// to two multiplications per bit of `e` that square-and-multiply makes.
#[inline]
pub fn bigint_pow(base_bits: u64, e: u64) -> u64 {
    let bits = base_bits.saturating_mul(e).min(8192);
    let steps = 2 * u64::from(64 - e.leading_zeros());
    bigint_quadratic(bits, bits) + steps * BIGINT_STEP
}

/// Surcharge for big-int multiplication/division/conversion (schoolbook quadratic bound).
#[inline]
pub fn bigint_quadratic(bits_a: u64, bits_b: u64) -> u64 {
    let a = bits_a / 64 + 1;
    let b = bits_b / 64 + 1;
    (a * b / 8 + 1) * PER_LIMB
}

// ---------------------------------------------------------------------------------------------
// Loading code: compilation (issue 15, item 1). Kept apart from the instruction and builtin
// costs above; see the README section "Compilation is metered" for how these were measured.
// ---------------------------------------------------------------------------------------------

/// Fixed part of loading a program's code, charged at every invocation (deploy and call).
pub const LOAD_BASE: u64 = 100;
/// Per source byte of the program loaded: pays for hashing the source (the cache key), the
/// pre-scan, and the parser's and compiler's per-byte work (identifiers, string literals).
pub const LOAD_PER_BYTE: u64 = 1;
/// Per token found by the pre-scan: pays for parsing, scope analysis and code generation in
/// the worst case measured per token (deep expression nesting, inlined `finally` bodies).
pub const LOAD_PER_TOKEN: u64 = 10;
/// Per scope opened (`def`, `class`, `lambda`, a comprehension): a code object, a scope, its
/// qualified name and free-variable pass-through, measured at the deepest nesting allowed.
pub const LOAD_PER_SCOPE: u64 = 900;
/// Per f-string.
pub const LOAD_PER_FSTRING: u64 = 80;

/// The cycles loading `bytes` of source costs before it is scanned.
pub fn load_bytes(bytes: usize) -> u64 {
    LOAD_BASE.saturating_add(LOAD_PER_BYTE.saturating_mul(bytes as u64))
}

/// The cycles loading a scanned source costs on top of [`load_bytes`], by what the pre-scan
/// counted.
pub fn load_scanned(tokens: u32, scopes: u32, fstrings: u32) -> u64 {
    LOAD_PER_TOKEN
        .saturating_mul(u64::from(tokens))
        .saturating_add(LOAD_PER_SCOPE.saturating_mul(u64::from(scopes)))
        .saturating_add(LOAD_PER_FSTRING.saturating_mul(u64::from(fstrings)))
}
