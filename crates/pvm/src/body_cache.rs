//! An actor's module body, run once per thread and replayed (issue 18 item 3).
//!
//! Every invocation of an actor runs its module body: the imports, the `def`s, the class
//! statement and its decorator. For a token `transfer` that was about a third of the PVM's
//! work, and its result is the same every time, since a body that makes no host call is a
//! function of its code alone. So the first invocation of a compiled module on a thread runs
//! the body and copies what it made into a template (`value::snapshot`); later invocations
//! that start in the same state copy the template instead of running the body.
//!
//! A replay is the body's run as far as anything can tell:
//! - **Objects**: each invocation gets copies of its own (an actor may change its class, its
//!   globals, `cowboy_sdk`'s namespace; nothing reaches the next invocation), with the
//!   identities, accounted sizes and table layouts the body gave them (`value::snapshot`).
//! - **Meters**: the cycles and instruction count, every memory counter (live, peak, growth
//!   owed, the next identity serial) and what the body printed are set to what the recorded
//!   run ended with. The recorded run started from the same counters (checked: [`Before`]),
//!   and a replay happens only when the recorded end fits the invocation's cycle budget, so
//!   every charge the body made would have passed; a smaller budget runs the body, which runs
//!   out of cycles where it always did. The memory limit and call depth are part of
//!   [`Before`], so a run under other limits runs the body too.
//! - **Caches**: lookups that a cache answers are charged as the full lookup is, except an
//!   inline cache's class facts and a class's constructor plan, whose refill is charged and
//!   hit is not. A copy cannot carry those (they name the original classes), so a body is
//!   recorded only if none was remembered after its last class epoch change
//!   (`value::epoch_has_facts`), and a replay starts a new epoch: in both runs, every such
//!   fact is stale when the handler starts.
//!
//! Not recorded, so run on every invocation: a body that called the host (its result may
//! depend on the block), imported `decimal` (whose native core registers state outside the
//! module graph), wrote to `/tmp`, raised, went over the memory limit, or left an object the
//! copy cannot reproduce (a generator, an iterator, an instance with native state); and any
//! invocation that is profiled. Such a body is remembered as not replayable, so later
//! invocations run it without copying its result again.

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

use crate::memory::{self, Meters};
use crate::value::Code;
use crate::value::{self, snapshot, PyDict};
use crate::vm::{Stats, Vm, R};

/// Bodies kept per thread at most.
const CAPACITY_ENTRIES: usize = 256;
/// Bytes kept per thread at most: templates (accounted size) and the compiled modules they
/// keep alive (`code_cache::code_size`).
const CAPACITY_BYTES: u64 = 64 << 20;

/// What an invocation looks like when its body starts: a replay needs the recorded run to
/// have started from the same point.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Before {
    stats: Stats,
    meters: Meters,
    memory_limit: u64,
    max_depth: u32,
    tmp_bytes: u64,
}

/// A recorded body.
struct Recorded {
    /// The compiled module (held, so its address, the key, is not reused while recorded).
    code: Rc<Code>,
    before: Before,
    /// `None`: the body cannot be replayed (the module docs list why), so later invocations
    /// run it without trying to record it again.
    template: Option<snapshot::Template>,
    /// Counters where the body left them.
    stats: Stats,
    meters: Meters,
    /// What the body printed.
    stdout: String,
    /// Sources the body's imports registered for tracebacks.
    sources: Vec<(Rc<str>, Cow<'static, str>)>,
    bytes: u64,
    /// When it was last replayed (`Cache::clock`).
    used: std::cell::Cell<u64>,
}

#[derive(Default)]
struct Cache {
    entries: BTreeMap<usize, Rc<Recorded>>,
    bytes: u64,
    clock: u64,
}

thread_local! {
    static CACHE: RefCell<Cache> = RefCell::new(Cache::default());
    /// Off in tests that compare replays with runs (`set_enabled`).
    static ENABLED: std::cell::Cell<bool> = const { std::cell::Cell::new(true) };
    /// Bodies replayed on this thread (`replayed`).
    static REPLAYED: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// Module bodies replayed on this thread so far.
pub fn replayed() -> u64 {
    REPLAYED.with(|r| r.get())
}

/// Turn the cache on or off for this thread (tests compare both); off also forgets every
/// recorded body.
pub fn set_enabled(on: bool) {
    ENABLED.with(|e| e.set(on));
    if !on {
        CACHE.with(|c| *c.borrow_mut() = Cache::default());
    }
}

/// Run the module body of `code` in `globals`, or replay it; the globals to use after.
pub(crate) fn run_body(vm: &mut Vm, code: Rc<Code>, globals: Rc<PyDict>) -> R<Rc<PyDict>> {
    let Some(before) = before(vm) else {
        return run(vm, code, globals);
    };
    let key = Rc::as_ptr(&code) as usize;
    let recorded = CACHE.with(|c| {
        let mut c = c.borrow_mut();
        c.clock += 1;
        let clock = c.clock;
        let r = c.entries.get_mut(&key)?;
        if !Rc::ptr_eq(&r.code, &code) || r.before != before {
            return None;
        }
        r.used.set(clock);
        Some(r.clone())
    });
    if let Some(r) = recorded {
        let fits = r.stats.cycles <= vm.cycle_limit();
        if let Some(roots) = r
            .template
            .as_ref()
            .filter(|_| fits)
            .and_then(snapshot::restore)
        {
            // Dropped before the meters are set: it weighs in the counters they start from.
            drop(globals);
            return Ok(replay(vm, &r, roots));
        }
        // Not replayable, or a budget the recorded run does not fit: run it, as it always ran.
        return run(vm, code, globals);
    }
    let host_calls = vm.host_calls;
    let stdout_from = vm.stdout.len();
    let sources_from = vm.sources.len();
    let globals = run(vm, code.clone(), globals)?;
    let r = record(
        vm,
        code,
        before,
        host_calls,
        stdout_from,
        sources_from,
        &globals,
    );
    insert(key, r);
    Ok(globals)
}

fn run(vm: &mut Vm, code: Rc<Code>, globals: Rc<PyDict>) -> R<Rc<PyDict>> {
    let mut frame = vm.new_frame(code, globals.clone(), None, &[]);
    vm.run_frame(&mut frame)?;
    Ok(globals)
}

/// The starting point, if this invocation may record or replay at all.
fn before(vm: &Vm) -> Option<Before> {
    let fresh = ENABLED.with(|e| e.get())
        && vm.profile.is_none()
        && vm.modules.is_empty()
        && vm.native_classes.is_empty()
        && vm.decimal_core.is_none()
        && vm.handling.is_empty()
        && vm.stdout.is_empty()
        && vm.depth == 0
        && vm.tmpfs.is_empty();
    fresh.then(|| Before {
        stats: vm.stats(),
        meters: memory::meters(),
        memory_limit: vm.limits.memory,
        max_depth: vm.limits.max_depth,
        tmp_bytes: vm.limits.tmp_bytes,
    })
}

/// Copy what the body made, or mark it as not replayable (the module docs list when).
fn record(
    vm: &Vm,
    code: Rc<Code>,
    before: Before,
    host_calls: u64,
    stdout_from: usize,
    sources_from: usize,
    globals: &Rc<PyDict>,
) -> Recorded {
    let pure = vm.host_calls == host_calls
        && vm.decimal_core.is_none()
        && vm.handling.is_empty()
        && vm.tmpfs.is_empty()
        && !memory::over_limit()
        && !value::epoch_has_facts();
    let template = if pure {
        let modules: Vec<_> = vm
            .modules
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        let native: Vec<_> = vm
            .native_classes
            .iter()
            .map(|(k, v)| (*k, v.clone()))
            .collect();
        snapshot::take(globals, &modules, &native)
    } else {
        None
    };
    // The compiled module counts too: the entry keeps it alive after the code cache drops it.
    let bytes =
        template.as_ref().map_or(0, |t| t.bytes()) + crate::code_cache::code_size(&code) as u64;
    Recorded {
        code,
        before,
        template,
        stats: vm.stats(),
        meters: memory::meters(),
        stdout: vm.stdout[stdout_from..].to_string(),
        sources: vm
            .sources
            .iter()
            .skip(sources_from)
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect(),
        bytes,
        used: std::cell::Cell::new(0),
    }
}

fn insert(key: usize, r: Recorded) {
    if r.bytes > CAPACITY_BYTES / 4 {
        return;
    }
    CACHE.with(|c| {
        let mut c = c.borrow_mut();
        r.used.set(c.clock);
        while !c.entries.is_empty()
            && (c.entries.len() >= CAPACITY_ENTRIES || c.bytes + r.bytes > CAPACITY_BYTES)
        {
            let oldest = c
                .entries
                .iter()
                .min_by_key(|(_, e)| e.used.get())
                .map(|(k, _)| *k);
            if let Some(e) = oldest.and_then(|k| c.entries.remove(&k)) {
                c.bytes -= e.bytes;
            }
        }
        c.bytes += r.bytes;
        if let Some(old) = c.entries.insert(key, Rc::new(r)) {
            c.bytes -= old.bytes;
        }
    });
}

/// Put the invocation where running the body would have left it; its globals.
fn replay(vm: &mut Vm, r: &Recorded, roots: snapshot::Roots) -> Rc<PyDict> {
    let (globals, modules, native) = roots;
    for (name, m) in modules {
        vm.modules.insert(name, m);
    }
    for (name, c) in native {
        vm.native_classes.insert(name, c);
    }
    for (name, src) in &r.sources {
        vm.sources.insert(name.clone(), src.clone());
    }
    vm.stdout.push_str(&r.stdout);
    vm.set_stats(r.stats);
    memory::set_meters(r.meters);
    value::new_class_epoch();
    REPLAYED.with(|n| n.set(n.get() + 1));
    globals
}
