//! Inline caches for name accesses: `obj.name` loads and stores, `obj.name(...)` calls and
//! global loads (CPython 3.11's specialising interpreter keeps the same kind of per-site state).
//!
//! Each name of a code object (`Code::names[i]`) has one [`NameCache`], shared by every
//! instruction of that code using the name. It remembers, for the last instance class seen,
//! the facts the full lookup derives from the class alone: whether a value in the instance
//! dict wins (no data descriptor of that name), whether a store is a plain dict store (no
//! `__setattr__`, no data descriptor, a name `__slots__` allows), and which plain function a method call
//! finds. It also keeps the position where the name was last found in a dict (instance dict
//! or globals), checked by its key before use (identity, else text), and in the builtin
//! namespace, checked by its key; and the last dict it was missing from (a builtin name from the module globals, a
//! method name from the instance dict), named by the table's stamp, which every change of the
//! table's keys replaces (`Table::stamp`), with the slots that walk read. Instance dicts built
//! alike share one stamp (their shape, `value::SHAPE`), so one absence learnt from one instance
//! holds for every instance of the class that `__init__` filled the same way.
//!
//! A cache entry is valid only for the same class object (held `Weak`, so its address cannot
//! be reused while remembered) and the same class epoch (bumped by any change to any class
//! namespace). It is a hint, never a source of truth: each use re-checks it and otherwise takes
//! the full path, which answers the same. So caches change no result, no cycle count and no
//! memory figure; they hold nothing alive that Python can see (`Weak` references only).
//!
//! Cycles in particular: code objects, and so these caches, live in the per-thread code cache
//! and outlast an invocation, so whether a hint is warm depends on what the thread ran before.
//! A full lookup pays for the slots its walk reads past the free few (`cost::PROBE`); a hit on
//! a remembered position pays the same, from the slot count the entry recorded when it was
//! placed (`Entry::probes`), which is exactly what the walk to it reads; a remembered absence
//! owes the slots its walk read, which a walk in a table of the same stamp reads again. Everything else
//! remembered here (class facts, builtin kinds) decides which path runs, never what it costs:
//! both paths charge the same instructions. The one priced thing a refill does is its class
//! lookup, which owes its MRO walk (`value::owe_mro_walk`) like any other; a refill happens at
//! the first use of a site for a class in a class epoch, a function of the program alone (a
//! class object lives within one invocation, and the `Weak` held here keeps its address from
//! being reused by a later one), so that price is the same on every validator.

use super::{Vm, R};
use crate::value::frame::push;
use crate::value::{Builtin, BuiltinKind, Class, Function, PyDict, PyStr, Value};
use crate::value::{ClassFacts, NameCache, FACT_DICT_LOAD, FACT_PLAIN_STORE};
use std::cell::Cell;
use std::rc::Rc;

/// Whether `b`, which `cls` finds for `name`, is a native method that `obj.name` binds as
/// found: held by the class's own namespace (so the lookup walked one namespace and owes
/// nothing), and not a name `getattr` answers before the class (`__class__`, `__dict__`,
/// a dict view's `isdisjoint`).
fn native_method(cls: &Class, name: &PyStr, b: &Rc<Builtin>) -> bool {
    matches!(b.kind, BuiltinKind::Native(_))
        && !matches!(&*name.s, "__class__" | "__dict__" | "isdisjoint")
        && matches!(cls.dict.borrow().get(&*name.s), Some(Value::Builtin(own)) if Rc::ptr_eq(own, b))
}

/// The value kinds whose builtin methods depend on the kind alone (so `has_method` may be
/// remembered per kind), numbered from 1.
fn builtin_kind(v: &Value) -> Option<u8> {
    Some(match v {
        Value::Str(_) => 1,
        Value::List(_) => 2,
        Value::Tuple(_) => 3,
        Value::Dict(_) => 4,
        Value::Int(_) => 5,
        Value::Float(_) => 6,
        Value::Bytes(_) => 7,
        Value::Generator(g) if !g.async_gen => 8,
        _ => return None,
    })
}

impl NameCache {
    /// The flags (`FACT_*`) for `cls`, recomputed when the remembered class or epoch differs.
    #[inline(always)]
    fn flags_for(&self, vm: &Vm, cls: &Rc<Class>, name: &Rc<PyStr>) -> u8 {
        let epoch = crate::value::class_epoch();
        if self.seen.get() != (Rc::as_ptr(cls) as usize, epoch) {
            self.refill(vm, cls, name, epoch);
        }
        self.flags.get()
    }

    /// Compute and remember the facts for `cls` in `epoch` (the miss path of `flags_for`).
    #[cold]
    #[inline(never)]
    fn refill(&self, vm: &Vm, cls: &Rc<Class>, name: &Rc<PyStr>, epoch: u64) {
        let found = cls.lookup_name(name);
        let data = matches!(found, Some(Value::Property(_) | Value::Instance(_)));
        let dunder = name.s.starts_with("__");
        let dict_load = !dunder && !data;
        let plain_store = dict_load && vm.class_setattr_is_default(cls) && cls.slots_allow(&name.s);
        let facts = ClassFacts {
            class: Rc::downgrade(cls),
            method: match &found {
                Some(Value::Function(func)) => Some(Rc::downgrade(func)),
                _ => None,
            },
            native: match &found {
                Some(Value::Builtin(b)) if native_method(cls, name, b) => Some(Rc::downgrade(b)),
                _ => None,
            },
        };
        *self.facts.borrow_mut() = Some(facts);
        self.seen.set((Rc::as_ptr(cls) as usize, epoch));
        self.flags.set(
            if dict_load { FACT_DICT_LOAD } else { 0 }
                | if plain_store { FACT_PLAIN_STORE } else { 0 },
        );
        crate::value::note_epoch_fact();
    }

    /// The native method `cls` finds for `name` in its own namespace (from the facts).
    fn native_for(&self, vm: &Vm, cls: &Rc<Class>, name: &Rc<PyStr>) -> Option<Rc<Builtin>> {
        self.flags_for(vm, cls, name);
        let facts = self.facts.borrow();
        facts.as_ref()?.native.as_ref()?.upgrade()
    }

    /// The plain function `cls` finds for `name`, if it is one (from the facts).
    fn method_for(&self, vm: &Vm, cls: &Rc<Class>, name: &Rc<PyStr>) -> Option<Rc<Function>> {
        self.flags_for(vm, cls, name);
        let facts = self.facts.borrow();
        facts.as_ref()?.method.as_ref()?.upgrade()
    }
}

impl PyDict {
    /// Lookup of a code name, trying the position `c.hint` first (by its key: a dict has one
    /// entry per key, so an entry keyed by this very string, or by a str of the same text, is
    /// the one; the text is read only when the key is another object, as when the dict was
    /// filled by another module's code or by `setattr`), then the
    /// remembered absence `c.absent` (`PyDict::find_name_memo`), remembering where it was
    /// found or that it was missing. The value found is pushed onto `stack` (see
    /// [`Vm::load_attr_push`] for why); `false`: not in this dict.
    #[inline(always)]
    pub fn push_name_hinted(
        &self,
        name: &Rc<PyStr>,
        c: &NameCache,
        stack: &mut Vec<Value>,
    ) -> bool {
        {
            let t = self.table.borrow();
            if let Some(Some(e)) = t.entries.get(c.hint.get() as usize) {
                if matches!(&e.key, Value::Str(k) if k.same_text(name)) {
                    // What the walk to this entry would have cost: a remembered position
                    // must not make a lookup cheaper on a warm thread than on a cold one.
                    crate::value::owe_probes(u64::from(e.probes()));
                    push(stack, e.value.clone());
                    return true;
                }
            }
        }
        match self.get_name_rehint(name, c) {
            Some(v) => {
                push(stack, v);
                true
            }
            None => false,
        }
    }

    #[inline(never)]
    pub(crate) fn get_name_rehint(&self, name: &Rc<PyStr>, c: &NameCache) -> Option<Value> {
        let t = self.table.borrow();
        let i = Self::find_name_memo(&t, name, &c.absent)?;
        c.hint.set(i as u32);
        t.entries[i].as_ref().map(|e| e.value.clone())
    }

    /// Store under a code name, trying the position `hint` first (see `push_name_hinted`).
    #[inline(always)]
    pub fn set_name_hinted(&self, name: &Rc<PyStr>, v: Value, hint: &Cell<u32>) {
        {
            let mut t = self.table.borrow_mut();
            if let Some(Some(e)) = t.entries.get_mut(hint.get() as usize) {
                if matches!(&e.key, Value::Str(k) if k.same_text(name)) {
                    crate::value::owe_probes(u64::from(e.probes()));
                    e.value = v;
                    return;
                }
            }
        }
        hint.set(self.set_name(name, v) as u32);
    }
}

impl Vm<'_> {
    /// `LoadAttr` when everything the site remembers holds: an instance of the class the site
    /// last saw, in the same class epoch, whose value in the instance dict wins, and whose
    /// dict holds the name (this string, or one of its text) at the remembered position. The attribute is pushed
    /// and charged exactly as [`Vm::load_attr_push`] would (it takes the same path to the same
    /// entry); `false` with nothing done otherwise. Inlined into the dispatch loop: the call,
    /// and the registers [`Vm::load_attr_push`] saves for its slower paths, were a fifth of an
    /// attribute load's machine instructions.
    #[inline(always)]
    pub fn load_attr_hit(
        stack: &mut Vec<Value>,
        obj: &Value,
        name: &Rc<PyStr>,
        c: &NameCache,
    ) -> bool {
        let Value::Instance(i) = obj else {
            return false;
        };
        let seen = (
            Rc::as_ptr(&i.class.borrow()) as usize,
            crate::value::class_epoch(),
        );
        if c.seen.get() != seen || c.flags.get() & FACT_DICT_LOAD == 0 {
            return false;
        }
        let t = i.dict.table.borrow();
        match t.entries.get(c.hint.get() as usize) {
            Some(Some(e)) if matches!(&e.key, Value::Str(k) if k.same_text(name)) => {
                crate::value::owe_probes(u64::from(e.probes()));
                push(stack, e.value.clone());
                true
            }
            _ => false,
        }
    }

    /// `StoreAttr` when everything the site remembers holds: an instance of the class the
    /// site last saw, in the same class epoch, where a store is a plain dict store, and whose
    /// dict holds the name (this string, or one of its text) at the remembered position. The value replaces the
    /// entry's and is charged exactly as [`Vm::store_attr_cached`] would (the same path to the
    /// same entry); otherwise nothing is done and `v` is given back. Inlined into the dispatch
    /// loop for the reason [`Vm::load_attr_hit`] is.
    #[inline(always)]
    pub fn store_attr_hit(obj: &Value, name: &Rc<PyStr>, c: &NameCache, v: Value) -> Option<Value> {
        let Value::Instance(i) = obj else {
            return Some(v);
        };
        let seen = (
            Rc::as_ptr(&i.class.borrow()) as usize,
            crate::value::class_epoch(),
        );
        if c.seen.get() != seen || c.flags.get() & FACT_PLAIN_STORE == 0 {
            return Some(v);
        }
        {
            let mut t = i.dict.table.borrow_mut();
            match t.entries.get_mut(c.hint.get() as usize) {
                Some(Some(e)) if matches!(&e.key, Value::Str(k) if k.same_text(name)) => {
                    crate::value::owe_probes(u64::from(e.probes()));
                    e.value = v;
                }
                _ => return Some(v),
            }
        }
        i.touch();
        None
    }

    /// `LoadAttr`: an attribute found in an instance's dict where the class lets it win; else
    /// the full [`Vm::getattr`].
    ///
    /// The attribute is pushed onto `stack` here rather than returned: a value returned
    /// through memory and pushed by the caller is read back whole right after being written
    /// in pieces, a store-forwarding stall that was a tenth of an attribute-heavy program.
    #[inline(never)]
    pub fn load_attr_push(
        &mut self,
        stack: &mut Vec<Value>,
        obj: &Value,
        name: &Rc<PyStr>,
        c: &NameCache,
    ) -> R<()> {
        if let Value::Instance(i) = obj {
            let dict_load = c.flags_for(self, &i.class.borrow(), name) & FACT_DICT_LOAD != 0;
            if dict_load && i.dict.push_name_hinted(name, c, stack) {
                return Ok(());
            }
        }
        let v = self.load_attr_uncached(obj, name)?;
        push(stack, v);
        Ok(())
    }

    /// `LoadAttr` past the instance-dict fast path: the full lookup.
    #[inline(never)]
    fn load_attr_uncached(&mut self, obj: &Value, name: &Rc<PyStr>) -> R<Value> {
        self.getattr(obj, &name.s)
    }

    /// `StoreAttr`: a plain instance dict store where the class allows it; else the full
    /// [`Vm::setattr`].
    #[inline(never)]
    pub fn store_attr_cached(
        &mut self,
        obj: &Value,
        name: &Rc<PyStr>,
        c: &NameCache,
        v: Value,
    ) -> R<()> {
        if let Value::Instance(i) = obj {
            let plain = c.flags_for(self, &i.class.borrow(), name) & FACT_PLAIN_STORE != 0;
            if plain {
                i.dict.set_name_hinted(name, v, &c.hint);
                i.touch();
                return Ok(());
            }
        }
        self.setattr(obj, &name.s, v)
    }

    /// `CallMethod` on an instance: the plain function its class finds for `name`, unless the
    /// instance dict shadows it. `None` means: take the general method call.
    #[inline(always)]
    pub fn method_cached(
        &mut self,
        obj: &Value,
        name: &Rc<PyStr>,
        c: &NameCache,
    ) -> Option<Rc<Function>> {
        let Value::Instance(i) = obj else {
            return None;
        };
        let func = c.method_for(self, &i.class.borrow(), name)?;
        let shadowed = PyDict::find_name_memo(&i.dict.table.borrow(), name, &c.absent).is_some();
        (!shadowed).then_some(func)
    }

    /// `CallMethod` on an instance (`stack[n - 1]`) whose class's own namespace holds a native
    /// method `name` (`d.quantize(CENT)` on a Decimal): the receiver's position and the
    /// method, to be called with the stack from the receiver on as its arguments.
    /// That is what `Vm::call_method` does by binding it (`getattr`) and calling the bound
    /// method, which unbinds it again; the same call, without the lookups and the bound
    /// method in between, and the same charges: a miss in the instance dict is not charged on
    /// either path, and a lookup found in the class's own namespace owes no MRO walk. `None`
    /// where `getattr` might answer otherwise: the instance dict holds the name, or the
    /// instance carries exception state (whose `__cause__`, `value`, … come first).
    pub fn native_method_at(
        &mut self,
        stack: &[Value],
        n: usize,
        name: &Rc<PyStr>,
        c: &NameCache,
    ) -> Option<(usize, Value)> {
        let recv = n.checked_sub(1)?;
        let Value::Instance(i) = &stack[recv] else {
            return None;
        };
        let m = c.native_for(self, &i.class.borrow(), name)?;
        let shadowed = PyDict::find_name(&i.dict.table.borrow(), name).is_some();
        (!shadowed && i.exc.borrow().is_none()).then_some((recv, Value::Builtin(m)))
    }

    /// `CallMethod` on a str, list, tuple, dict, int, float, bytes or generator: whether its
    /// type has the builtin method `name` (what `objects::has_method` answers), and if so the
    /// row of its method table `objects::call_method` takes (`objects::method_row`), both
    /// remembered per kind. `None`: not a builtin method of a builtin value.
    #[inline(always)]
    pub fn builtin_method_cached(
        &self,
        obj: &Value,
        name: &Rc<PyStr>,
        c: &NameCache,
    ) -> Option<u16> {
        let kind = builtin_kind(obj)?;
        let (k, has, row) = c.builtin.get();
        if k == kind {
            return has.then_some(row);
        }
        let has = crate::objects::has_method(self, obj, &name.s);
        let row = crate::objects::method_row(obj, &name.s).unwrap_or(crate::objects::NO_ROW);
        c.builtin.set((kind, has, row));
        has.then_some(row)
    }

    /// `LoadGlobal`: module globals (by the remembered position first), then builtins, pushed
    /// onto `stack`. The two remembered answers are tried inline in the loop:
    ///
    /// - a builtin name: the globals have not changed since it was last missing from them
    ///   (`c.absent` names their table's stamp), so neither the remembered position nor a walk
    ///   can find it; owe that walk's slots as `find_name_memo` would, and go to the builtins;
    /// - else the remembered position, charged as `push_name_hinted` charges it.
    ///
    /// The value is pushed here, not returned, for the reason [`Vm::load_attr_push`] gives (a
    /// value returned through memory was stored in halves and read back whole: 2.5% of an
    /// object-heavy program on that one load).
    #[inline(always)]
    pub fn load_global_push(
        &mut self,
        stack: &mut Vec<Value>,
        globals: &PyDict,
        name: &Rc<PyStr>,
        c: &NameCache,
    ) -> R<()> {
        {
            let t = globals.table.borrow();
            let (stamp, probes) = c.absent.get();
            if t.stamp() == stamp {
                drop(t);
                crate::value::owe_probes(probes);
                if let Some((k, v)) = self.builtins.get_index(c.builtin_at.get() as usize) {
                    if **k == *name.s {
                        push(stack, v.clone());
                        return Ok(());
                    }
                }
                return self.push_builtin(stack, name, c);
            }
            if let Some(Some(e)) = t.entries.get(c.hint.get() as usize) {
                if matches!(&e.key, Value::Str(k) if k.same_text(name)) {
                    crate::value::owe_probes(u64::from(e.probes()));
                    push(stack, e.value.clone());
                    return Ok(());
                }
            }
        }
        match globals.get_name_rehint(name, c) {
            Some(v) => {
                push(stack, v);
                Ok(())
            }
            None => self.push_builtin(stack, name, c),
        }
    }

    /// A global load's name from the builtins (position `c.builtin_at` first) pushed onto
    /// `stack`, or `NameError`.
    #[inline(never)]
    fn push_builtin(&mut self, stack: &mut Vec<Value>, name: &Rc<PyStr>, c: &NameCache) -> R<()> {
        if let Some((k, v)) = self.builtins.get_index(c.builtin_at.get() as usize) {
            if **k == *name.s {
                push(stack, v.clone());
                return Ok(());
            }
        }
        if let Some((i, _, v)) = self.builtins.get_full(&*name.s) {
            c.builtin_at.set(i as u32);
            push(stack, v.clone());
            return Ok(());
        }
        Err(self.name_error(&name.s))
    }
}
