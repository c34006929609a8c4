//! Calls, argument binding, attribute access and generators.
//!
//! `call` is the single entry for every call (Python functions, builtins, classes, bound
//! methods); it enforces the call-depth limit. Attribute lookup follows CPython's order: data
//! descriptors on the type, the instance dict, then non-data descriptors/class attributes, then
//! `__getattr__`. There are no attributes reaching frames, code objects, globals or subclasses.

use super::{Args, Exc, Outcome, Vm, R};
use crate::value::frame::push;
use crate::value::*;
use std::rc::Rc;

impl Vm<'_> {
    /// Call builtin function `f` (through the embedder's [`super::Builtins`]).
    pub fn call_builtin(&mut self, f: BuiltinFn, args: Args) -> R<Value> {
        (self.library.builtins.call)(self, f, args)
    }

    /// Call any callable.
    pub fn call(&mut self, f: &Value, args: Args) -> R<Value> {
        match f {
            Value::Function(func) => self.call_function(func, args),
            Value::Builtin(b) => match &b.kind {
                BuiltinKind::Func(id) => self.call_builtin(*id, args),
                BuiltinKind::Method(recv) => {
                    let recv = recv.clone();
                    crate::objects::call_method(self, &recv, &b.name, args)
                }
                BuiltinKind::Native(h) => match h.get::<crate::objects::native_type::NativeFn>() {
                    Some(nf) => (nf.0)(self, args),
                    None => Err(self.type_err(format!("'{}' is not callable", b.name))),
                },
                BuiltinKind::Unbound(bt) => {
                    let mut a = args;
                    let owner = self.types_class(*bt);
                    if a.pos.is_empty() {
                        return Err(self.type_err(format!(
                            "unbound method {}.{}() needs an argument",
                            owner.name, b.name
                        )));
                    }
                    let recv = a.pos.remove(0);
                    let name = b.name.clone();
                    // Like CPython's method descriptors: the receiver must be of the owning type.
                    if owner.builtin != BuiltinType::Object
                        && !self.type_of(&recv).is_subclass(&owner)
                    {
                        let tn = self.type_name(&recv);
                        if crate::objects::numdunder::is_slot_wrapper(&name)
                            && matches!(
                                owner.builtin,
                                BuiltinType::Int | BuiltinType::Bool | BuiltinType::Float
                            )
                        {
                            return Err(self.type_err(format!(
                                "descriptor '{name}' requires a '{}' object but received a '{tn}'",
                                owner.name
                            )));
                        }
                        return Err(self.type_err(format!(
                            "descriptor '{}' for '{}' objects doesn't apply to a '{}' object",
                            name, owner.name, tn
                        )));
                    }
                    crate::objects::call_method(self, &Vm::base_of(&recv), &name, a)
                }
            },
            Value::BoundMethod(m) => {
                let mut a = args;
                a.pos.insert(0, m.receiver.clone());
                let func = m.func.clone();
                self.call(&func, a)
            }
            Value::Class(c) => {
                if let Some(m) = self.lookup_dunder(f, "__call__") {
                    let mut a = args;
                    a.pos.insert(0, f.clone());
                    return self.call(&m, a);
                }
                self.call_class(c, args)
            }
            Value::Instance(_) => match self.lookup_dunder(f, "__call__") {
                Some(m) => {
                    let mut a = args;
                    a.pos.insert(0, f.clone());
                    self.call(&m, a)
                }
                None => {
                    let tn = self.type_name(f);
                    Err(self.type_err(format!("'{tn}' object is not callable")))
                }
            },
            Value::StaticMethod(w) | Value::ClassMethod(w) => {
                let inner = w.0.clone();
                self.call(&inner, args)
            }
            _ => {
                let tn = self.type_name(f);
                Err(self.type_err(format!("'{tn}' object is not callable")))
            }
        }
    }

    fn call_function(&mut self, func: &Rc<Function>, args: Args) -> R<Value> {
        let code = func.code.clone();
        let mut frame = self.new_frame(code.clone(), func.globals.clone(), None, &func.closure);
        self.bind_args(func, &mut frame.locals, args)?;
        if code.is_generator {
            for &(ci, pi) in &code.cell_params {
                let v = frame.locals[pi as usize].clone();
                *frame.cells[ci as usize].v.borrow_mut() = v;
            }
            return Ok(Value::Generator(crate::value::rc_gen(Generator::new(
                frame,
                code.qualname.clone(),
                code.is_coroutine,
            ))));
        }
        self.run_bound_frame(&mut frame)
    }

    /// Call `func`, for which `func.takes_positional(k)` holds, with the `k` values at the top
    /// of `stack` from position `args_at`: they move straight into the new frame's first local
    /// slots, with no argument vector, and the defaults fill the parameters after them (as
    /// `bind_args` would, which charges nothing for such a call). The value just below them, if any, is removed too; with
    /// `receiver` it is the method's receiver and becomes the first argument, else it is the
    /// function object itself. Behaves as `call_function` does for such a call.
    pub(crate) fn call_positional(
        &mut self,
        func: &Rc<Function>,
        stack: &mut Vec<Value>,
        args_at: usize,
        receiver: bool,
    ) -> R<Value> {
        let mut callee = self.enter_positional(func, stack, args_at, receiver)?;
        let r = self.run_frame(&mut callee.frame);
        self.leave_callee(callee);
        match r? {
            Outcome::Return(v) | Outcome::Yield(v) => Ok(v),
        }
    }

    /// The first half of [`Vm::call_positional`]: the callee's frame, its arguments bound and
    /// the call depth entered (`RecursionError` past the limit), ready to run. Whoever runs it
    /// leaves it with [`Vm::leave_callee`]: [`Vm::call_positional`] at once, the dispatch loop
    /// when the callee's `return` comes (a call made by `CALL` runs in the caller's loop).
    pub(crate) fn enter_positional(
        &mut self,
        func: &Rc<Function>,
        stack: &mut Vec<Value>,
        args_at: usize,
        receiver: bool,
    ) -> R<Box<super::Callee>> {
        let mut callee = self.callee_frame(func);
        let frame = &mut callee.frame;
        let first = usize::from(receiver);
        // Last argument first, each popped straight into its slot (`takes_positional` means
        // the frame has a local for each, and a default for each parameter after them).
        let given = first + (stack.len() - args_at);
        for slot in (first..given).rev() {
            frame.locals[slot] = stack.pop();
        }
        if given < func.code.argcount as usize {
            fill_defaults(func, &mut frame.locals, given);
        }
        // Popped in each arm straight into its place: popped once above the branch, the value
        // was spilled in halves and read back whole (a store-forwarding stall on every method
        // call, a third of this function's time).
        if receiver {
            frame.locals[0] = Some(stack.pop().unwrap_or_default());
        } else {
            callee.callable = stack.pop().unwrap_or_default();
        }
        self.enter_frame(&mut callee.frame)?;
        Ok(callee)
    }

    /// `f(x)`: a plain function taking one positional argument is entered directly
    /// (as `call_positional`, defaults filled), anything else through [`Vm::call`]. For the callbacks builtins
    /// make per element (sort keys, `filter`, `min`/`max` keys, `map`).
    pub fn call1(&mut self, f: &Value, x: Value) -> R<Value> {
        if let Value::Function(func) = f {
            if func.takes_positional(1) {
                let mut stack = vec![Value::None, x];
                return self.call_positional(func, &mut stack, 1, false);
            }
        }
        self.call(f, Args::new(vec![x]))
    }

    /// Run a function frame whose arguments are bound: fill the cells of captured parameters,
    /// enforce the call-depth limit, run it, and give its buffers back for reuse.
    fn run_bound_frame(&mut self, frame: &mut crate::value::frame::Frame) -> R<Value> {
        self.enter_frame(frame)?;
        self.finish_frame(frame)
    }

    /// Fill the cells of a bound frame's captured parameters and enter the call depth.
    #[inline(always)]
    fn enter_frame(&mut self, frame: &mut crate::value::frame::Frame) -> R<()> {
        if !frame.code.cell_params.is_empty() {
            let code = frame.code.clone();
            for &(ci, pi) in &code.cell_params {
                let v = frame.locals[pi as usize].clone();
                *frame.cells[ci as usize].v.borrow_mut() = v;
            }
        }
        self.depth += 1;
        if self.depth > self.limits.max_depth {
            self.depth -= 1;
            return Err(self.new_exc("RecursionError", "maximum recursion depth exceeded"));
        }
        Ok(())
    }

    /// Run an entered frame to its end and leave it.
    fn finish_frame(&mut self, frame: &mut crate::value::frame::Frame) -> R<Value> {
        let r = self.run_frame(frame);
        self.leave_frame(frame);
        match r? {
            Outcome::Return(v) | Outcome::Yield(v) => Ok(v),
        }
    }

    /// Leave the call depth of a finished frame and give its buffers back for reuse.
    fn leave_frame(&mut self, frame: &mut crate::value::frame::Frame) {
        self.depth -= 1;
        self.recycle_frame(frame);
    }

    /// `TypeError` for an `__init__` that returned `r`, not `None`.
    pub(crate) fn init_not_none(&mut self, r: &Value) -> Exc {
        self.type_err(format!(
            "__init__() should return None, not '{}'",
            self.type_name(r)
        ))
    }

    /// [`Vm::leave_frame`] for a frame from [`Vm::enter_positional`].
    #[inline]
    pub(crate) fn leave_callee(&mut self, callee: Box<super::Callee>) {
        self.depth -= 1;
        self.recycle_callee(callee);
    }

    fn bind_args(
        &mut self,
        func: &Function,
        locals: &mut [Option<Value>],
        mut args: Args,
    ) -> R<()> {
        let code = &func.code;
        let argc = code.argcount as usize;
        // The function's `__qualname__` (as assigned: `dataclasses` names its methods so), as
        // CPython's messages use it; made only for an error.
        let name = || func.qualname();
        let npos = args.pos.len();
        // Fast path: exact positional call.
        if npos == argc && args.kw.is_empty() && !code.varargs && !code.varkw && code.kwonly == 0 {
            for (i, v) in args.pos.drain(..).enumerate() {
                locals[i] = Some(v);
            }
            return Ok(());
        }
        let kwonly = code.kwonly as usize;
        // Name matching below is priced by its worst case before it runs (`cost::name_compares`):
        // every keyword may scan every parameter name, every keyword-only parameter the
        // keyword defaults.
        let names = code.varnames.len().min(argc + kwonly) as u64;
        let compares = (args.kw.len() as u64)
            .saturating_mul(names)
            .saturating_add((kwonly as u64).saturating_mul(func.kwdefaults.len() as u64));
        self.charge(crate::cost::name_compares(compares))?;
        let mut extra = Vec::new();
        for (i, v) in args.pos.drain(..).enumerate() {
            if i < argc {
                locals[i] = Some(v);
            } else {
                extra.push(v);
            }
        }
        let mut slot = argc;
        if code.varargs {
            locals[argc] = Some(Value::tuple(std::mem::take(&mut extra)));
            slot = argc;
        }
        if !extra.is_empty() {
            let ndef = func.defaults.len();
            let given = npos;
            let msg = if ndef > 0 {
                format!(
                    "{}() takes from {} to {} positional arguments but {} were given",
                    name(),
                    argc - ndef,
                    argc,
                    given
                )
            } else {
                format!(
                    "{}() takes {} positional argument{} but {} {} given",
                    name(),
                    argc,
                    if argc == 1 { "" } else { "s" },
                    given,
                    if given == 1 { "was" } else { "were" }
                )
            };
            return Err(self.type_err(msg));
        }
        let kw_slot = if code.varkw {
            Some(argc + kwonly + usize::from(code.varargs))
        } else {
            None
        };
        if kw_slot.is_none() {
            // CPython names every positional-only parameter passed by keyword at once.
            let posonly = &code.varnames[..code.posonly as usize];
            let bad: Vec<&str> = args
                .kw
                .iter()
                .filter(|(k, _)| posonly.iter().any(|n| **n == **k))
                .map(|(k, _)| &**k)
                .collect();
            if !bad.is_empty() {
                return Err(self.type_err(format!(
                    "{}() got some positional-only arguments passed as keyword arguments: '{}'",
                    name(),
                    bad.join(", ")
                )));
            }
        }
        // Only a `**kwargs` parameter needs the dict.
        let kwdict = kw_slot.map(|_| crate::value::rc_dict(PyDict::new()));
        for (k, v) in args.kw.drain(..) {
            let pos = code.varnames[code.posonly as usize..argc]
                .iter()
                .position(|n| **n == *k)
                .map(|p| p + code.posonly as usize)
                .or_else(|| {
                    let off = argc + usize::from(code.varargs);
                    code.varnames[off..off + kwonly]
                        .iter()
                        .position(|n| **n == *k)
                        .map(|p| p + argc)
                });
            match pos {
                Some(p) => {
                    let idx = if p >= argc && code.varargs { p + 1 } else { p };
                    let idx = if p >= argc {
                        p + usize::from(code.varargs) - usize::from(code.varargs)
                    } else {
                        idx
                    };
                    let real = if p >= argc {
                        argc + usize::from(code.varargs) + (p - argc)
                    } else {
                        idx
                    };
                    let _ = slot;
                    if locals[real].is_some() {
                        return Err(self.type_err(format!(
                            "{}() got multiple values for argument '{k}'",
                            name()
                        )));
                    }
                    locals[real] = Some(v);
                }
                None => match &kwdict {
                    Some(d) => self.dict_set(d, Value::str(&k), v)?,
                    None => {
                        if code.varnames[..code.posonly as usize]
                            .iter()
                            .any(|n| **n == *k)
                        {
                            return Err(self.type_err(format!(
                                "{}() got some positional-only arguments passed as keyword arguments: '{k}'",
                                name()
                            )));
                        }
                        return Err(self.type_err(format!(
                            "{}() got an unexpected keyword argument '{k}'",
                            name()
                        )));
                    }
                },
            }
        }
        if let (Some(s), Some(d)) = (kw_slot, kwdict) {
            locals[s] = Some(Value::Dict(d));
        }
        // Defaults for positional params.
        let ndef = func.defaults.len();
        let mut missing = Vec::new();
        #[expect(
            clippy::needless_range_loop,
            reason = "index also selects the default and the name"
        )]
        for i in 0..argc {
            if locals[i].is_none() {
                if i + ndef >= argc {
                    locals[i] = Some(func.defaults[i + ndef - argc].clone());
                } else {
                    missing.push(code.varnames[i].clone());
                }
            }
        }
        if !missing.is_empty() {
            let names: Vec<String> = missing.iter().map(|n| format!("'{n}'")).collect();
            let list = join_names(&names);
            return Err(self.type_err(format!(
                "{}() missing {} required positional argument{}: {}",
                name(),
                missing.len(),
                if missing.len() == 1 { "" } else { "s" },
                list
            )));
        }
        let off = argc + usize::from(code.varargs);
        let mut kmissing = Vec::new();
        for j in 0..kwonly {
            if locals[off + j].is_none() {
                let n = code.varnames[off + j].clone();
                match func.kwdefaults.iter().find(|(k, _)| *k == n) {
                    Some((_, v)) => locals[off + j] = Some(v.clone()),
                    None => kmissing.push(format!("'{n}'")),
                }
            }
        }
        if !kmissing.is_empty() {
            return Err(self.type_err(format!(
                "{}() missing {} required keyword-only argument{}: {}",
                name(),
                kmissing.len(),
                if kmissing.len() == 1 { "" } else { "s" },
                join_names(&kmissing)
            )));
        }
        Ok(())
    }

    /// Instantiate a class.
    /// `type.__call__`: instantiate `c` (metaclass `__call__` hooks are handled by `call`).
    pub fn call_class(&mut self, c: &Rc<Class>, mut args: Args) -> R<Value> {
        if c.builtin == BuiltinType::Type && !Rc::ptr_eq(c, &self.types.type_) {
            return self.call_metaclass(c, args);
        }
        if c.dict.borrow().get("__builtin_ctor__").is_some() || is_builtin_class(self, c) {
            return crate::objects::types::construct(self, c, args);
        }
        // User class: __new__ then __init__.
        let inst = match c.lookup_static("__new__") {
            // `object.__new__` (a builtin) is the default below; native modules' classes
            // (`crate::native`) may define their own `__new__`.
            Some(Value::StaticMethod(w)) | Some(Value::ClassMethod(w)) if !is_builtin_new(&w.0) => {
                // Built at its size: a clone then an insert at the front reallocated.
                let mut pos = Vec::with_capacity(args.pos.len() + 1);
                pos.push(Value::Class(c.clone()));
                pos.extend(args.pos.iter().cloned());
                let a = Args {
                    pos,
                    kw: args.kw.clone(),
                };
                let f = w.0.clone();
                let v = self.call(&f, a)?;
                let vc = self.type_of(&v);
                if !vc.is_subclass(c) {
                    return Ok(v);
                }
                v
            }
            Some(Value::Function(f)) => {
                let mut a = args.clone();
                a.pos.insert(0, Value::Class(c.clone()));
                let v = self.call(&Value::Function(f), a)?;
                let vc = self.type_of(&v);
                if !vc.is_subclass(c) {
                    return Ok(v);
                }
                v
            }
            _ => self.new_instance(c, &args)?,
        };
        match c.lookup_static("__init__") {
            Some(Value::Function(f)) => {
                args.pos.insert(0, inst.clone());
                let r = self.call_function(&f, args)?;
                if !r.is_none() {
                    return Err(self.init_not_none(&r));
                }
            }
            // `object.__init__` (the class defines `__new__`, as native classes do) does
            // nothing and charges nothing: not called, its argument vector is not built.
            Some(Value::Builtin(b))
                if matches!(b.kind, BuiltinKind::Func(BuiltinFn::ObjectInit)) => {}
            Some(other @ Value::Builtin(_)) => {
                args.pos.insert(0, inst.clone());
                self.call(&other, args)?;
            }
            Some(other) => {
                args.pos.insert(0, inst.clone());
                self.call(&other, args)?;
            }
            None => {}
        }
        Ok(inst)
    }

    /// The `__init__` of a plain user class, whose instances come from `object.__new__` (no
    /// metaclass, no builtin base, no user `__new__`) and are initialised by a plain Python
    /// function: `C(args…)` then needs no argument vector (the `Call` fast path). `None` when
    /// `call_class` must decide. Remembered per class for the current class epoch.
    pub(crate) fn plain_init(&self, c: &Rc<Class>) -> Option<Rc<Function>> {
        let epoch = crate::value::class_epoch();
        if let Some((e, init)) = &*c.ctor_cache.borrow() {
            if *e == epoch {
                return init.as_ref().and_then(std::rc::Weak::upgrade);
            }
        }
        let default_new = match c.lookup_static("__new__") {
            Some(Value::StaticMethod(w)) | Some(Value::ClassMethod(w)) => is_builtin_new(&w.0),
            Some(Value::Function(_)) => false,
            _ => true,
        };
        let plain = c.builtin == BuiltinType::Object
            && c.meta.borrow().is_none()
            && default_new
            && !c.dict.borrow().contains_key("__builtin_ctor__")
            && !is_builtin_class(self, c);
        let init = match c.lookup_static("__init__") {
            Some(Value::Function(f)) if plain => Some(f),
            _ => None,
        };
        *c.ctor_cache.borrow_mut() = Some((epoch, init.as_ref().map(Rc::downgrade)));
        crate::value::note_epoch_fact();
        init
    }

    /// Instantiate a user metaclass: its `__new__` (or `type.__new__`), then its `__init__`.
    fn call_metaclass(&mut self, meta: &Rc<Class>, args: Args) -> R<Value> {
        let mcls = Value::Class(meta.clone());
        let cls = match meta.lookup_static("__new__") {
            Some(Value::StaticMethod(w)) => {
                let mut a = args.clone();
                a.pos.insert(0, mcls.clone());
                let f = w.0.clone();
                self.call(&f, a)?
            }
            Some(f @ Value::Function(_)) => {
                let mut a = args.clone();
                a.pos.insert(0, mcls.clone());
                self.call(&f, a)?
            }
            _ => {
                let mut a = args.clone();
                a.pos.insert(0, mcls.clone());
                crate::objects::types::type_new(self, a)?
            }
        };
        if let Value::Class(c) = &cls {
            let is_inst = c
                .meta
                .borrow()
                .as_ref()
                .is_some_and(|m| m.is_subclass(meta));
            if is_inst {
                if let Some(init @ Value::Function(_)) = meta.lookup_static("__init__") {
                    let mut a = args;
                    a.pos.insert(0, cls.clone());
                    self.call(&init, a)?;
                }
            }
        }
        Ok(cls)
    }

    /// A bare instance of user class `c` (with builtin payload for builtin bases).
    pub fn new_instance(&mut self, c: &Rc<Class>, args: &Args) -> R<Value> {
        let inst = Instance::new(c.clone());
        match c.builtin {
            BuiltinType::BaseException => {
                crate::objects::types::set_exc_args(self, &inst, args.pos.clone());
                *inst.exc.borrow_mut() = Some(Box::default());
                if c.is_subclass(&self.types.attr_exc.import_error) {
                    // ImportError(msg, *, name=None, path=None).
                    for (k, v) in &args.kw {
                        match &**k {
                            "name" | "path" => inst.dict.set_str(k, v.clone()),
                            _ => {
                                return Err(self.type_err(format!(
                                    "'{k}' is an invalid keyword argument for {}()",
                                    c.name
                                )))
                            }
                        }
                    }
                }
            }
            BuiltinType::List => *inst.base.borrow_mut() = Some(Value::list(Vec::new())),
            BuiltinType::Dict => {
                *inst.base.borrow_mut() = Some(Value::Dict(crate::value::rc_dict(PyDict::new())))
            }
            BuiltinType::Set => *inst.base.borrow_mut() = Some(self.new_set(Vec::new(), false)?),
            BuiltinType::ByteArray => {
                *inst.base.borrow_mut() =
                    Some(Value::ByteArray(Rc::new(PyByteArray::new(Vec::new()))))
            }
            BuiltinType::Int
            | BuiltinType::Str
            | BuiltinType::Float
            | BuiltinType::Tuple
            | BuiltinType::FrozenSet
            | BuiltinType::Bytes => {
                let b = self.types_class(c.builtin);
                let v = crate::objects::types::construct(self, &b, args.clone())?;
                *inst.base.borrow_mut() = Some(v);
            }
            _ => {}
        }
        Ok(Value::Instance(crate::value::rc_inst(inst)))
    }

    /// Builtin class for a builtin type tag.
    pub fn types_class(&self, b: BuiltinType) -> Rc<Class> {
        let t = &self.types;
        match b {
            BuiltinType::Int => t.int.clone(),
            BuiltinType::Str => t.str_.clone(),
            BuiltinType::Float => t.float.clone(),
            BuiltinType::Tuple => t.tuple.clone(),
            BuiltinType::FrozenSet => t.frozenset.clone(),
            BuiltinType::Bytes => t.bytes.clone(),
            BuiltinType::List => t.list.clone(),
            BuiltinType::Dict => t.dict.clone(),
            BuiltinType::Set => t.set.clone(),
            BuiltinType::Bool => t.bool_.clone(),
            BuiltinType::ByteArray => t.bytearray.clone(),
            BuiltinType::Range => t.range.clone(),
            _ => t.object.clone(),
        }
    }

    /// Look up a special method on the type of `v` (user classes only).
    pub fn lookup_dunder(&self, v: &Value, name: &'static str) -> Option<Value> {
        match v {
            Value::Instance(i) => {
                let c = i.cls();
                let m = c.lookup_static(name)?;
                if let Value::Builtin(b) = &m {
                    if matches!(b.kind, BuiltinKind::Func(_)) && is_object_default(name) {
                        return None;
                    }
                }
                Some(m)
            }
            // A class's special methods come from its metaclass (user metaclasses only).
            Value::Class(c) => {
                let meta = c.meta.borrow().clone()?;
                let m = meta.lookup_static(name)?;
                if matches!(m, Value::Builtin(_)) {
                    return None;
                }
                Some(m)
            }
            _ => None,
        }
    }

    /// Call a special method if the type defines it.
    pub fn call_dunder(
        &mut self,
        v: &Value,
        name: &'static str,
        args: Vec<Value>,
    ) -> R<Option<Value>> {
        match self.lookup_dunder(v, name) {
            Some(m) => self.call_special(v, m, args).map(Some),
            None => Ok(None),
        }
    }

    /// Call `m`, a special method [`Vm::lookup_dunder`] found for `v`, with `args`.
    pub fn call_special(&mut self, v: &Value, m: Value, args: Vec<Value>) -> R<Value> {
        let mut a = Vec::with_capacity(args.len() + 1);
        a.push(v.clone());
        a.extend(args);
        self.call_special_with(v, m, a)
    }

    /// [`Vm::call_dunder`] with one argument, its vector built only when the method exists
    /// and built once (operators call their special methods this way).
    pub fn call_dunder1(&mut self, v: &Value, name: &'static str, arg: &Value) -> R<Option<Value>> {
        let Some(m) = self.lookup_dunder(v, name) else {
            return Ok(None);
        };
        self.call_special_with(v, m, vec![v.clone(), arg.clone()])
            .map(Some)
    }

    /// Call special method `m` of `v` with `a`, the receiver `v` first then the arguments.
    fn call_special_with(&mut self, v: &Value, m: Value, mut a: Vec<Value>) -> R<Value> {
        // Special methods invoked by operators and builtins (`__eq__` from a dict lookup,
        // `__lt__` from sort, …) pay the call cost like an explicit call.
        self.charge(crate::cost::CALL)?;
        match m {
            Value::StaticMethod(w) => {
                let f = w.0.clone();
                a.remove(0);
                self.call(&f, Args::new(a))
            }
            Value::ClassMethod(w) => {
                let f = w.0.clone();
                a[0] = Value::Class(self.type_of(v));
                self.call(&f, Args::new(a))
            }
            m => self.call_vec(&m, a),
        }
    }

    /// `f(*a)`: a plain function taking `a.len()` positional arguments is entered directly
    /// (as [`Vm::call1`] does for one), anything else through [`Vm::call`]. For special
    /// methods (`__hash__`, `__eq__` from a dict lookup, `__lt__` from a sort).
    pub fn call_vec(&mut self, f: &Value, mut a: Vec<Value>) -> R<Value> {
        if let Value::Function(func) = f {
            if func.takes_positional(a.len() as u32) {
                // No slot below the arguments: `call_positional` finds none to take.
                return self.call_positional(func, &mut a, 0, false);
            }
        }
        self.call(f, Args::new(a))
    }

    /// `obj.name(args)`.
    pub fn call_method(&mut self, obj: &Value, name: &str, args: Args) -> R<Value> {
        if let Value::Instance(i) = obj {
            let c = i.cls();
            if !i.dict.has_str(name) {
                if let Some(Value::Function(f)) = c.lookup(name) {
                    let mut a = args;
                    a.pos.insert(0, obj.clone());
                    return self.call_function(&f, a);
                }
            }
        } else if crate::objects::has_method(self, obj, name) {
            return crate::objects::call_method(self, obj, name, args);
        }
        let m = self.getattr(obj, name)?;
        self.call(&m, args)
    }

    /// `getattr(obj, name)`.
    pub fn getattr(&mut self, obj: &Value, name: &str) -> R<Value> {
        match self.getattr_opt(obj, name)? {
            Some(v) => Ok(v),
            None => self.getattr_missing(obj, name),
        }
    }

    /// An attribute the lookup did not find: the class's `__getattr__`, else AttributeError.
    fn getattr_missing(&mut self, obj: &Value, name: &str) -> R<Value> {
        if let Value::Instance(_) = obj {
            if let Some(ga) = self.lookup_dunder(obj, "__getattr__") {
                return self.call(&ga, Args::new(vec![obj.clone(), Value::str(name)]));
            }
        }
        Err(self.attr_error(obj, name))
    }

    /// Instances of `cls` take `object.__setattr__` (no class in the MRO overrides it).
    pub fn class_setattr_is_default(&self, cls: &Class) -> bool {
        match cls.lookup_static("__setattr__") {
            None => true,
            Some(Value::Builtin(b)) => matches!(b.kind, BuiltinKind::Func(_)),
            Some(_) => false,
        }
    }

    /// AttributeError in CPython's words.
    pub fn attr_error(&mut self, obj: &Value, name: &str) -> Exc {
        match obj {
            Value::Class(c) => {
                let m = format!("type object '{}' has no attribute '{}'", c.name, name);
                self.new_exc("AttributeError", &m)
            }
            Value::Module(m) => {
                let msg = format!("module '{}' has no attribute '{}'", m.name, name);
                self.new_exc("AttributeError", &msg)
            }
            _ => {
                let tn = self.type_name(obj);
                self.new_exc(
                    "AttributeError",
                    &format!("'{tn}' object has no attribute '{name}'"),
                )
            }
        }
    }

    /// Bind a class attribute found for instance/receiver `obj`.
    fn bind(&mut self, attr: Value, obj: &Value, cls: &Rc<Class>) -> R<Value> {
        Ok(match attr {
            Value::Function(_) | Value::Builtin(_)
                if !obj.is_none() || matches!(obj, Value::Instance(_)) =>
            {
                Value::BoundMethod(Rc::new(BoundMethod {
                    receiver: obj.clone(),
                    func: attr,
                }))
            }
            Value::ClassMethod(w) => Value::BoundMethod(Rc::new(BoundMethod {
                receiver: Value::Class(cls.clone()),
                func: w.0.clone(),
            })),
            Value::StaticMethod(w) => w.0.clone(),
            Value::Property(p) => {
                if p.fget.is_none() {
                    return Err(self.new_exc("AttributeError", "property has no getter"));
                }
                let g = p.fget.clone();
                self.call(&g, Args::new(vec![obj.clone()]))?
            }
            Value::Instance(_) if self.lookup_dunder(&attr, "__get__").is_some() => self
                .call_dunder(
                    &attr,
                    "__get__",
                    vec![obj.clone(), Value::Class(cls.clone())],
                )?
                .unwrap_or_default(),
            other => other,
        })
    }

    /// Attribute lookup; `None` when absent.
    pub fn getattr_opt(&mut self, obj: &Value, name: &str) -> R<Option<Value>> {
        self.getattr_opt_in(obj, name, None)
    }

    /// [`Vm::getattr`] by a str object (`getattr(o, name)`, `_dataclasses.attrs`): the same
    /// lookup, but the class's lookup cache is searched by the string's identity first and
    /// the instance dict by its cached hash, instead of reading and hashing the text on
    /// every call. Same walks, so the same answer and the same charges.
    pub fn getattr_str(&mut self, obj: &Value, name: &Rc<PyStr>) -> R<Value> {
        match self.getattr_opt_in(obj, &name.s, Some(name))? {
            Some(v) => Ok(v),
            None => self.getattr_missing(obj, &name.s),
        }
    }

    /// [`Vm::getattr_opt`], with `name`'s str object when the caller has one.
    fn getattr_opt_in(
        &mut self,
        obj: &Value,
        name: &str,
        interned: Option<&Rc<PyStr>>,
    ) -> R<Option<Value>> {
        // Every object answers __class__ with its type (instances and classes below may
        // report a different class, e.g. a metaclass).
        if name == "__class__" && !matches!(obj, Value::Instance(_) | Value::Class(_)) {
            return Ok(Some(Value::Class(self.type_of(obj))));
        }
        match obj {
            Value::Instance(i) => {
                let cls = i.cls();
                if name == "__class__" {
                    return Ok(Some(Value::Class(cls)));
                }
                if name == "__dict__" {
                    if cls.slots.is_some() {
                        return Ok(None);
                    }
                    return Ok(Some(i.dict_value()));
                }
                if name == "isdisjoint" && self.dict_view(obj).is_some_and(|(k, _)| k != 1) {
                    return Ok(Some(Value::Builtin(Rc::new(Builtin {
                        name: name.into(),
                        kind: BuiltinKind::Method(obj.clone()),
                    }))));
                }
                let cattr = match interned {
                    Some(n) => cls.lookup_name(n),
                    None => cls.lookup(name),
                };
                if let Some(ca) = &cattr {
                    let is_data = match ca {
                        Value::Property(_) => true,
                        Value::Instance(_) => {
                            self.lookup_dunder(ca, "__set__").is_some()
                                || self.lookup_dunder(ca, "__delete__").is_some()
                        }
                        _ => false,
                    };
                    if is_data {
                        return Ok(Some(self.bind(ca.clone(), obj, &cls)?));
                    }
                }
                let own = match interned {
                    Some(n) => i.dict.get_name(n),
                    None => i.dict.get_str(name),
                };
                if let Some(v) = own {
                    return Ok(Some(v));
                }
                if name == "__traceback__" && i.exc.borrow().is_some() {
                    return Ok(Some(crate::objects::traceback::of(self, obj)?));
                }
                if let Some(st) = i.exc.borrow().as_ref() {
                    match name {
                        "__cause__" => return Ok(Some(st.cause.clone().unwrap_or_default())),
                        "__context__" => return Ok(Some(st.context.clone().unwrap_or_default())),
                        "__suppress_context__" => return Ok(Some(Value::Bool(st.suppress))),
                        // CPython's StopIteration.__init__ stores `args[0]` (or None) as
                        // `value`; derive it from `args` so every way of raising agrees.
                        "value" if cls.is_subclass(&self.types.exc["StopIteration"]) => {
                            return Ok(Some(stop_value(&Exc::Py(obj.clone()))))
                        }
                        // SystemExit.code: None, the one argument, or the args tuple.
                        "code" if cls.is_subclass(&self.types.exc["SystemExit"]) => {
                            return Ok(Some(match i.dict.get_str("args") {
                                Some(Value::Tuple(t)) if t.items.len() == 1 => t.items[0].clone(),
                                Some(Value::Tuple(t)) if t.items.is_empty() => Value::None,
                                Some(args) => args,
                                None => Value::None,
                            }))
                        }
                        _ => {}
                    }
                }
                if let Some(ca) = cattr {
                    return Ok(Some(self.bind(ca, obj, &cls)?));
                }
                if let Some((_, d)) = self.dict_view(obj) {
                    if name == "mapping" {
                        return Ok(Some(self.new_mapping_proxy(d)));
                    }
                }
                let sealed = self.sealed_methods(obj);
                if sealed.is_some_and(|ok| ok.contains(&name)) && name.starts_with("__") {
                    return Ok(Some(Value::Builtin(Rc::new(Builtin {
                        name: name.into(),
                        kind: BuiltinKind::Method(obj.clone()),
                    }))));
                }
                let base = i.base.borrow().clone();
                if let Some(b) = base {
                    // An alternate constructor is a class method: bound to the instance's
                    // class, as through the class (`D().fromkeys(…)` makes a `D`); a static
                    // method is found there unbound.
                    if sealed.is_none_or(|ok| ok.contains(&name))
                        && crate::objects::is_type_method(&b, name)
                    {
                        return self.getattr_opt(&Value::Class(cls), name);
                    }
                    if sealed.is_none_or(|ok| ok.contains(&name))
                        && crate::objects::has_method(self, &b, name)
                    {
                        return Ok(Some(Value::Builtin(Rc::new(Builtin {
                            name: name.into(),
                            kind: BuiltinKind::Method(b),
                        }))));
                    }
                }
                Ok(None)
            }
            Value::Class(c) => {
                match name {
                    "__name__" => {
                        let renamed = c.dict.borrow().get("__name__").cloned();
                        return Ok(Some(renamed.unwrap_or_else(|| Value::str(&c.name))));
                    }
                    "__module__" if !c.dict.borrow().contains_key("__module__") => {
                        return Ok(Some(Value::str("builtins")));
                    }
                    "__qualname__" => return Ok(Some(Value::str(&c.qualname.borrow()))),
                    "__mro__" => {
                        let mut v = vec![Value::Class(c.clone())];
                        v.extend(c.mro.iter().map(|x| Value::Class(x.clone())));
                        return Ok(Some(Value::tuple(v)));
                    }
                    "__bases__" => {
                        return Ok(Some(Value::tuple(
                            c.bases.iter().map(|x| Value::Class(x.clone())).collect(),
                        )))
                    }
                    "__base__" => {
                        return Ok(Some(
                            c.bases
                                .first()
                                .map(|x| Value::Class(x.clone()))
                                .unwrap_or_default(),
                        ))
                    }
                    "__dict__" => {
                        let d = crate::value::rc_dict(PyDict::new());
                        let items: Vec<(Rc<str>, Value)> = c
                            .dict
                            .borrow()
                            .iter()
                            .map(|(k, v)| (k.clone(), v.clone()))
                            .collect();
                        for (k, v) in items {
                            self.dict_set(&d, Value::str(&k), v)?;
                        }
                        if c.is_builtin_value_type() {
                            let mut names: Vec<&str> = crate::objects::GENERIC_DUNDERS
                                .iter()
                                .copied()
                                .filter(|n| crate::value::type_has_dunder(c.builtin, n))
                                .collect();
                            names.extend(crate::objects::methods_of(c.builtin));
                            names.extend(match c.builtin {
                                BuiltinType::Int | BuiltinType::Bool => {
                                    crate::objects::numdunder::INT
                                }
                                BuiltinType::Float => crate::objects::numdunder::FLOAT,
                                _ => &[],
                            });
                            names.extend(crate::objects::seqdunder::names(c.builtin));
                            for n in names {
                                if let Some(v) = crate::objects::types::class_attr(self, c, n) {
                                    self.dict_set(&d, Value::str(n), v)?;
                                }
                            }
                        }
                        return Ok(Some(Value::Dict(d)));
                    }
                    _ => {}
                }
                // Builtin types answer their own methods (e.g. `int.__repr__`) before object's.
                if !Rc::ptr_eq(c, &self.types.object) && !c.dict.borrow().contains_key("__module__")
                {
                    if let Some(v) = crate::objects::types::class_attr(self, c, name) {
                        return Ok(Some(v));
                    }
                }
                match c.lookup(name) {
                    Some(Value::ClassMethod(w)) => {
                        Ok(Some(Value::BoundMethod(Rc::new(BoundMethod {
                            receiver: obj.clone(),
                            func: w.0.clone(),
                        }))))
                    }
                    Some(Value::StaticMethod(w)) => Ok(Some(w.0.clone())),
                    Some(v @ Value::Instance(_)) if self.lookup_dunder(&v, "__get__").is_some() => {
                        Ok(self.call_dunder(&v, "__get__", vec![Value::None, obj.clone()])?)
                    }
                    Some(v) => Ok(Some(v)),
                    None => {
                        // Attributes of the metaclass (`type` by default, e.g. `C.mro()`),
                        // bound to the class.
                        let meta = c.meta.borrow().clone();
                        if let Some(m) = meta.or_else(|| Some(self.types.type_.clone())) {
                            if let Some(v) = m.lookup(name) {
                                return Ok(Some(self.bind(v, obj, &m)?));
                            }
                        }
                        if name == "__doc__" || name == "__module__" {
                            return Ok(Some(Value::None));
                        }
                        if name == "__class__" {
                            return Ok(Some(Value::Class(self.type_of(obj))));
                        }
                        // Builtin type methods used unbound, e.g. str.upper / dict.fromkeys.
                        Ok(crate::objects::types::class_attr(self, c, name))
                    }
                }
            }
            Value::Function(f) => {
                // Data descriptors of the function type, ahead of `__dict__` as in CPython.
                match name {
                    "__doc__" => return Ok(Some(f.meta.borrow().doc.clone())),
                    "__name__" => {
                        let n = f.meta.borrow().name.clone();
                        return Ok(Some(n.unwrap_or_else(|| Value::str(&f.code.name))));
                    }
                    "__qualname__" => return Ok(Some(Value::str(&f.qualname()))),
                    "__module__" => return Ok(Some(f.meta.borrow().module.clone())),
                    "__annotations__" => {
                        if let Some(a) = f.meta.borrow().annotations.clone() {
                            return Ok(Some(a));
                        }
                        // Made on first read and kept, except on a shared SDK function
                        // (whose fields no invocation may change).
                        let d = Value::Dict(crate::value::rc_dict(PyDict::new()));
                        if !crate::memory::is_frozen(&f.attrs.acct) {
                            f.meta.borrow_mut().annotations = Some(d.clone());
                        }
                        return Ok(Some(d));
                    }
                    _ => {}
                }
                if let Some(v) = self.dict_get_str(&f.attrs, name) {
                    return Ok(Some(v));
                }
                match name {
                    // A shared SDK function's namespace is read-only: its `__dict__` is a
                    // copy (as `vars(int)` is), and its empty annotations are not stored.
                    "__dict__" if crate::memory::is_frozen(&f.attrs.acct) => {
                        let t = f.attrs.table.borrow().clone();
                        Ok(Some(Value::Dict(crate::value::rc_dict(
                            PyDict::from_table(t),
                        ))))
                    }
                    "__dict__" => Ok(Some(Value::Dict(f.attrs.clone()))),
                    "__get__" => Ok(Some(Value::Builtin(Rc::new(Builtin {
                        name: name.into(),
                        kind: BuiltinKind::Method(obj.clone()),
                    })))),
                    "__defaults__" => Ok(Some(if f.defaults.is_empty() {
                        Value::None
                    } else {
                        Value::tuple(f.defaults.clone())
                    })),
                    "__kwdefaults__" => Ok(Some(if f.kwdefaults.is_empty() {
                        Value::None
                    } else {
                        let d = crate::value::rc_dict(PyDict::new());
                        for (k, v) in &f.kwdefaults {
                            self.dict_set_str(&d, k, v.clone())?;
                        }
                        Value::Dict(d)
                    })),
                    "__closure__" => Ok(Some(if f.closure.is_empty() {
                        Value::None
                    } else {
                        Value::tuple(f.closure.iter().cloned().map(Value::Cell).collect())
                    })),
                    _ => Ok(None),
                }
            }
            Value::Cell(c) if name == "cell_contents" => match c.v.borrow().clone() {
                Some(v) => Ok(Some(v)),
                None => Err(self.value_err("Cell is empty")),
            },
            Value::BoundMethod(m) => match name {
                "__self__" => Ok(Some(m.receiver.clone())),
                "__func__" => Ok(Some(m.func.clone())),
                _ => {
                    let f = m.func.clone();
                    self.getattr_opt(&f, name)
                }
            },
            Value::Generator(g) if crate::objects::iter::gen_attr(g, name).is_some() => {
                Ok(crate::objects::iter::gen_attr(g, name))
            }
            Value::Builtin(b) => match name {
                "__name__" | "__qualname__" => Ok(Some(Value::str(&b.name))),
                "__self__" => Ok(Some(match &b.kind {
                    BuiltinKind::Method(r) => r.clone(),
                    _ => Value::None,
                })),
                _ => Ok(None),
            },
            Value::Module(m) => {
                if name == "__name__" {
                    return Ok(Some(Value::str(&m.name)));
                }
                Ok(self.dict_get_str(&m.dict(), name))
            }
            Value::Property(p) => match name {
                "fget" => Ok(Some(p.fget.clone())),
                "fset" => Ok(Some(p.fset.clone())),
                "fdel" => Ok(Some(p.fdel.clone())),
                "__doc__" => Ok(Some(p.doc.clone())),
                "getter" | "setter" | "deleter" => Ok(Some(Value::Builtin(Rc::new(Builtin {
                    name: name.into(),
                    kind: BuiltinKind::Method(obj.clone()),
                })))),
                "__get__" | "__set__" | "__delete__" => {
                    Ok(Some(Value::Builtin(Rc::new(Builtin {
                        name: name.into(),
                        kind: BuiltinKind::Method(obj.clone()),
                    }))))
                }
                "__isabstractmethod__" => {
                    let mut r = Value::Bool(false);
                    for f in [p.fget.clone(), p.fset.clone(), p.fdel.clone()] {
                        if let Value::Function(func) = &f {
                            if let Some(v) = self.dict_get_str(&func.attrs, name) {
                                if self.truthy(&v)? {
                                    r = Value::Bool(true);
                                }
                            }
                        }
                    }
                    Ok(Some(r))
                }
                _ => Ok(None),
            },
            Value::ClassMethod(w) | Value::StaticMethod(w) => match name {
                "__func__" | "__wrapped__" => Ok(Some(w.0.clone())),
                "__get__" => Ok(Some(Value::Builtin(Rc::new(Builtin {
                    name: name.into(),
                    kind: BuiltinKind::Method(obj.clone()),
                })))),
                "__isabstractmethod__" => {
                    let inner = w.0.clone();
                    Ok(Some(
                        self.getattr_opt(&inner, name)?
                            .unwrap_or(Value::Bool(false)),
                    ))
                }
                _ => {
                    let inner = w.0.clone();
                    self.getattr_opt(&inner, name)
                }
            },
            Value::Super(s) => {
                // super(C, x): class binding when x is a subclass of C, else instance binding.
                let class_mode = matches!(&s.obj, Value::Class(c) if c.is_subclass(&s.class));
                let start_cls = match &s.obj {
                    Value::Class(c) if class_mode => c.clone(),
                    o => self.type_of(o),
                };
                let mut full = vec![start_cls.clone()];
                full.extend(start_cls.mro.iter().cloned());
                let pos = full
                    .iter()
                    .position(|c| Rc::ptr_eq(c, &s.class))
                    .map(|p| p + 1)
                    .unwrap_or(full.len());
                for c in &full[pos..] {
                    let found = c.dict.borrow().get(name).cloned();
                    if let Some(v) = found {
                        if class_mode {
                            return Ok(Some(match v {
                                Value::ClassMethod(w) => Value::BoundMethod(Rc::new(BoundMethod {
                                    receiver: s.obj.clone(),
                                    func: w.0.clone(),
                                })),
                                Value::StaticMethod(w) => w.0.clone(),
                                other => other,
                            }));
                        }
                        return Ok(Some(self.bind(v, &s.obj, &start_cls)?));
                    }
                    if c.builtin != BuiltinType::Object
                        && Rc::ptr_eq(c, &self.types_class(c.builtin))
                    {
                        // Builtin base of a subclass: methods of the payload.
                        if let Value::Instance(i) = &s.obj {
                            let b = i.base.borrow().clone();
                            if let Some(b) = b {
                                if crate::objects::has_method(self, &b, name) {
                                    return Ok(Some(Value::Builtin(Rc::new(Builtin {
                                        name: name.into(),
                                        kind: BuiltinKind::Method(b),
                                    }))));
                                }
                            }
                        }
                    }
                }
                Ok(None)
            }
            _ => {
                if name == "__class__" {
                    return Ok(Some(Value::Class(self.type_of(obj))));
                }
                // Alternate constructors are class methods, reachable through an instance too
                // (`{}.fromkeys`, `(1).from_bytes`, `b''.fromhex`), bound to its class; static
                // methods (`''.maketrans`) are found there unbound.
                if crate::objects::is_type_method(obj, name) {
                    let c = self.type_of(obj);
                    return Ok(crate::objects::types::class_attr(self, &c, name));
                }
                if crate::objects::has_method(self, obj, name) {
                    return Ok(Some(Value::Builtin(Rc::new(Builtin {
                        name: name.into(),
                        kind: BuiltinKind::Method(obj.clone()),
                    }))));
                }
                crate::objects::get_attr(self, obj, name)
            }
        }
    }

    /// `setattr(obj, name, v)`.
    pub fn setattr(&mut self, obj: &Value, name: &str, v: Value) -> R<()> {
        self.setattr_in(obj, name, None, v)
    }

    /// [`Vm::setattr`], with `name`'s str object when the caller has one: a new instance
    /// attribute is then keyed by that object itself, as `STORE_ATTR` keys it by the code's
    /// name, instead of by a fresh copy (which later lookups by the same object would have to
    /// compare by text).
    pub fn setattr_in(
        &mut self,
        obj: &Value,
        name: &str,
        interned: Option<&Rc<PyStr>>,
        v: Value,
    ) -> R<()> {
        match obj {
            Value::Instance(i) => {
                let cls = i.cls();
                if let Some(m) = self.lookup_dunder(obj, "__setattr__") {
                    self.call(&m, Args::new(vec![obj.clone(), Value::str(name), v]))?;
                    return Ok(());
                }
                // The chaining attributes of an exception live in its state; setting
                // __cause__ also sets __suppress_context__, as in CPython.
                if let Some(st) = i.exc.borrow_mut().as_mut() {
                    let some = |v: &Value| (!v.is_none()).then(|| v.clone());
                    match name {
                        "__cause__" => {
                            st.cause = some(&v);
                            st.suppress = true;
                            return Ok(());
                        }
                        "__context__" => {
                            st.context = some(&v);
                            return Ok(());
                        }
                        "__suppress_context__" => {
                            st.suppress = matches!(v, Value::Bool(true));
                            return Ok(());
                        }
                        _ => {}
                    }
                }
                if name == "__traceback__" && i.exc.borrow().is_some() {
                    return crate::objects::traceback::set(self, obj, &v);
                }
                self.generic_setattr_in(i, &cls, obj, name, interned, v)
            }
            Value::Class(c) => {
                if let Some(m) = self.lookup_dunder(obj, "__setattr__") {
                    self.call(&m, Args::new(vec![obj.clone(), Value::str(name), v]))?;
                    return Ok(());
                }
                if let Some(Value::Property(p)) =
                    c.meta.borrow().clone().and_then(|m| m.lookup(name))
                {
                    if !p.fset.is_none() {
                        let s = p.fset.clone();
                        self.call(&s, Args::new(vec![obj.clone(), v]))?;
                        return Ok(());
                    }
                }
                self.check_mutable(c, name)?;
                if name == "__qualname__" {
                    if let Value::Str(q) = &v {
                        *c.qualname.borrow_mut() = q.s.as_str().into();
                        return Ok(());
                    }
                }
                self.class_store(c, name, v)
            }
            Value::Function(f) => {
                let a = f.attrs.clone();
                if self.set_function_meta(f, name, Some(v.clone()))? {
                    return Ok(());
                }
                self.dict_set_str(&a, name, v)
            }
            Value::Module(m) => {
                let d = m.dict_mut();
                self.dict_set_str(&d, name, v)
            }
            _ => {
                let tn = self.type_name(obj);
                Err(self.new_exc(
                    "AttributeError",
                    &format!("'{tn}' object has no attribute '{name}'"),
                ))
            }
        }
    }

    /// Set (`Some`) or delete (`None`) a function's `__doc__`, `__module__`,
    /// `__annotations__`, `__name__` or `__qualname__` (its [`crate::value::FuncMeta`]); false
    /// for any other name. As CPython: a deleted `__doc__` or `__module__` reads None, a
    /// deleted `__annotations__` reads as a new empty dict, `__annotations__` may only be set
    /// to a dict, and the names only to a str (never deleted).
    fn set_function_meta(&mut self, f: &Function, name: &str, v: Option<Value>) -> R<bool> {
        if !matches!(
            name,
            "__doc__" | "__module__" | "__annotations__" | "__name__" | "__qualname__"
        ) {
            return Ok(false);
        }
        self.check_writable(&f.attrs)?;
        if name == "__annotations__" && !matches!(v, None | Some(Value::Dict(_))) {
            return Err(self.type_err("__annotations__ must be set to a dict object"));
        }
        let is_name = matches!(name, "__name__" | "__qualname__");
        if is_name && !matches!(v, Some(Value::Str(_))) {
            return Err(self.type_err(format!("{name} must be set to a string object")));
        }
        let old = {
            let mut m = f.meta.borrow_mut();
            match name {
                "__doc__" => std::mem::replace(&mut m.doc, v.unwrap_or_default()),
                "__module__" => std::mem::replace(&mut m.module, v.unwrap_or_default()),
                "__name__" => std::mem::replace(&mut m.name, v).unwrap_or_default(),
                "__qualname__" => std::mem::replace(&mut m.qualname, v).unwrap_or_default(),
                _ => std::mem::replace(&mut m.annotations, v).unwrap_or_default(),
            }
        };
        drop(old);
        Ok(true)
    }

    /// `obj.__class__ = new`: allowed, as in CPython, between user classes of the same
    /// layout (same builtin base, same `__slots__` along the MRO).
    fn assign_class(&mut self, i: &Rc<Instance>, cls: &Rc<Class>, v: Value) -> R<()> {
        let Value::Class(new) = v else {
            let tn = self.type_name(&v);
            return Err(self.type_err(format!(
                "__class__ must be set to a class, not '{tn}' object"
            )));
        };
        if new.is_builtin_value_type() || Rc::ptr_eq(&new, &self.types.object) {
            return Err(self.type_err(
                "__class__ assignment only supported for mutable types or ModuleType subclasses",
            ));
        }
        // Each class's declared slot names (None: no `__slots__`), along the MRO.
        let slots = |c: &Rc<Class>| -> Vec<Option<Vec<String>>> {
            let names = |v: &Value| -> Vec<String> {
                let items = match v {
                    Value::Tuple(t) => t.items.to_vec(),
                    Value::List(l) => l.items.borrow().clone(),
                    other => vec![other.clone()],
                };
                items
                    .iter()
                    .map(|x| match x {
                        Value::Str(s) => s.s.to_string(),
                        _ => String::new(),
                    })
                    .collect()
            };
            std::iter::once(c)
                .chain(c.mro.iter())
                .map(|k| k.dict.borrow().get("__slots__").map(names))
                .collect()
        };
        if new.builtin != cls.builtin || slots(&new) != slots(cls) {
            return Err(self.type_err(format!(
                "__class__ assignment: '{}' object layout differs from '{}'",
                new.name, cls.name
            )));
        }
        *i.class.borrow_mut() = new;
        Ok(())
    }

    /// Refuse to change a builtin class, as CPython refuses to change its static types (and
    /// the VM base is shared by every invocation of the thread, `vm::Base`).
    fn check_mutable(&mut self, c: &Class, name: &str) -> R<()> {
        if c.immutable.get() {
            return Err(self.type_err(format!(
                "cannot set '{name}' attribute of immutable type '{}'",
                c.name
            )));
        }
        Ok(())
    }

    /// Set attribute `name` of class `c` (no descriptor or hook: the caller has checked).
    pub fn class_store(&mut self, c: &Class, name: &str, v: Value) -> R<()> {
        self.check_mutable(c, name)?;
        self.charge(crate::cost::CLASS_STORE)?;
        c.dict_mut().insert(name.into(), v);
        Ok(())
    }

    /// Delete attribute `name` of class `c`; whether it was there. The namespace keeps its
    /// order, so the entries after the removed one move down: priced by their count, the worst
    /// case (deleting the first of 100,000 names, again and again, was O(n) for a fixed price).
    pub fn class_delete(&mut self, c: &Class, name: &str) -> R<bool> {
        self.check_mutable(c, name)?;
        let len = c.dict.borrow().len();
        self.charge(crate::cost::CLASS_STORE.saturating_add(crate::cost::per_elem(len)))?;
        Ok(c.dict_mut().shift_remove(name).is_some())
    }

    /// `object.__setattr__`.
    pub fn generic_setattr(
        &mut self,
        i: &Rc<Instance>,
        cls: &Rc<Class>,
        obj: &Value,
        name: &str,
        v: Value,
    ) -> R<()> {
        self.generic_setattr_in(i, cls, obj, name, None, v)
    }

    /// [`Vm::generic_setattr`], keying a new attribute by `interned` when given (see
    /// [`Vm::setattr_in`]).
    pub fn generic_setattr_in(
        &mut self,
        i: &Rc<Instance>,
        cls: &Rc<Class>,
        obj: &Value,
        name: &str,
        interned: Option<&Rc<PyStr>>,
        v: Value,
    ) -> R<()> {
        if name == "__class__" {
            return self.assign_class(i, cls, v);
        }
        if let Some(ca) = cls.lookup(name) {
            match &ca {
                Value::Property(p) => {
                    if p.fset.is_none() {
                        return Err(self.new_exc(
                            "AttributeError",
                            &format!("property '{}' of '{}' object has no setter", name, cls.name),
                        ));
                    }
                    let s = p.fset.clone();
                    self.call(&s, Args::new(vec![obj.clone(), v]))?;
                    return Ok(());
                }
                Value::Instance(_) if self.lookup_dunder(&ca, "__set__").is_some() => {
                    self.call_dunder(&ca, "__set__", vec![obj.clone(), v])?;
                    return Ok(());
                }
                _ => {}
            }
        }
        // __slots__: only when every class in the MRO (but object) declares slots is the
        // attribute set restricted to the union of their slot names (`Class::slots`); a bare
        // `object()` allows none (so a shared sentinel cannot carry state).
        if !cls.slots_allow(name) {
            return Err(self.new_exc(
                "AttributeError",
                &format!("'{}' object has no attribute '{}'", cls.name, name),
            ));
        }
        match interned {
            Some(key) => {
                i.dict.set_name(key, v);
            }
            None => i.dict.set_str(name, v),
        }
        i.touch();
        Ok(())
    }

    /// `delattr(obj, name)`.
    pub fn delattr(&mut self, obj: &Value, name: &str) -> R<()> {
        if let Value::Instance(i) = obj {
            if let Some(m) = self.lookup_dunder(obj, "__delattr__") {
                self.call(&m, Args::new(vec![obj.clone(), Value::str(name)]))?;
                return Ok(());
            }
            let cls = i.cls();
            if let Some(Value::Property(p)) = cls.lookup(name) {
                if !p.fdel.is_none() {
                    let d = p.fdel.clone();
                    self.call(&d, Args::new(vec![obj.clone()]))?;
                    return Ok(());
                }
                return Err(self.new_exc(
                    "AttributeError",
                    &format!(
                        "property '{}' of '{}' object has no deleter",
                        name, cls.name
                    ),
                ));
            }
            if let Some(ca) = cls.lookup(name) {
                if let Value::Instance(_) = ca {
                    if self.lookup_dunder(&ca, "__delete__").is_some() {
                        self.call_dunder(&ca, "__delete__", vec![obj.clone()])?;
                        return Ok(());
                    }
                }
            }
            if i.dict.del_str(name).is_some() {
                return Ok(());
            }
        }
        if let Value::Class(c) = obj {
            if let Some(m) = self.lookup_dunder(obj, "__delattr__") {
                self.call(&m, Args::new(vec![obj.clone(), Value::str(name)]))?;
                return Ok(());
            }
            if self.class_delete(c, name)? {
                return Ok(());
            }
        }
        if let Value::Function(f) = obj {
            if self.set_function_meta(f, name, None)? {
                return Ok(());
            }
        }
        // A module's or function's attribute lives in its namespace (refused on the shared
        // SDK's: `Vm::check_writable`).
        let ns = match obj {
            Value::Module(m) => Some(m.dict_mut()),
            Value::Function(f) => Some(f.attrs.clone()),
            _ => None,
        };
        if let Some(ns) = ns {
            if self.dict_del(&ns, &Value::str(name))?.is_some() {
                return Ok(());
            }
            // CPython words a failed delete on a module by its type, not its name.
            let tn = self.type_name(obj);
            return Err(self.new_exc(
                "AttributeError",
                &format!("'{tn}' object has no attribute '{name}'"),
            ));
        }
        Err(self.attr_error(obj, name))
    }

    /// Resume a generator with `sent`: `Ok(Ok(yielded))` or `Ok(Err(returned))`.
    pub fn gen_send(&mut self, g: &Rc<Generator>, sent: Value) -> R<Result<Value, Value>> {
        self.gen_resume(g, Some(sent), None)
    }

    /// Resume with a value or throw an exception into it.
    pub fn gen_resume(
        &mut self,
        g: &Rc<Generator>,
        sent: Option<Value>,
        throw: Option<Exc>,
    ) -> R<Result<Value, Value>> {
        if g.running.get() {
            return Err(self.value_err("generator already executing"));
        }
        let taken = g.frame.borrow_mut().take();
        let kind = if g.coroutine {
            "coroutine"
        } else if g.async_gen {
            "async generator"
        } else {
            "generator"
        };
        let Some(mut frame) = taken else {
            if let Some(e) = throw {
                return Err(e);
            }
            if g.coroutine {
                return Err(self.new_exc("RuntimeError", "cannot reuse already awaited coroutine"));
            }
            return Ok(Err(Value::None));
        };
        if !frame.started {
            if let Some(s) = &sent {
                if !s.is_none() {
                    *g.frame.borrow_mut() = Some(frame);
                    return Err(self.type_err(format!(
                        "can't send non-None value to a just-started {kind}"
                    )));
                }
            }
            frame.started = true;
        } else if throw.is_none() {
            // Each arm stores its own value: `unwrap_or_default` built the value in a
            // temporary in halves and copied it whole, a store-forwarding stall on every
            // resumption (a third of this function's time in a generator pipeline).
            match sent {
                Some(v) => push(&mut frame.stack, v),
                None => push(&mut frame.stack, Value::None),
            }
        }
        self.depth += 1;
        if self.depth > self.limits.max_depth {
            self.depth -= 1;
            *g.frame.borrow_mut() = Some(frame);
            return Err(self.new_exc("RecursionError", "maximum recursion depth exceeded"));
        }
        g.running.set(true);
        let saved_handling = self.handling.len();
        // The exceptions its suspended frame was handling are being handled again.
        for b in &frame.blocks {
            if let (crate::value::frame::BlockKind::Handler, Some(e)) = (b.kind, &b.exc) {
                self.handling.push(e.clone());
            }
        }
        let r = match throw {
            Some(Exc::Py(e)) => match self.throw_to_delegate(&mut frame, e) {
                Delegated::Yield(v) => Ok(Outcome::Yield(v)),
                Delegated::Resume => self.run_frame(&mut frame),
                Delegated::Raise(Exc::Py(e)) => {
                    self.add_traceback(&e, &frame);
                    if self.unwind_pub(&mut frame, e.clone()) {
                        self.run_frame(&mut frame)
                    } else {
                        Err(Exc::Py(e))
                    }
                }
                Delegated::Raise(abort) => Err(abort),
            },
            Some(a) => Err(a),
            None => self.run_frame(&mut frame),
        };
        self.handling.truncate(saved_handling);
        g.running.set(false);
        self.depth -= 1;
        match r {
            Ok(Outcome::Yield(v)) => {
                *g.frame.borrow_mut() = Some(frame);
                Ok(Ok(v))
            }
            Ok(Outcome::Return(v)) => Ok(Err(v)),
            Err(e) => {
                let msg = if self.exc_is(&e, "StopIteration") {
                    format!("{kind} raised StopIteration")
                } else if g.async_gen && self.exc_is(&e, "StopAsyncIteration") {
                    "async generator raised StopAsyncIteration".to_string()
                } else {
                    return Err(e);
                };
                // The RuntimeError is raised from the StopIteration (its cause and context).
                let r = self.new_exc("RuntimeError", &msg);
                if let (Exc::Py(Value::Instance(ri)), Exc::Py(stop)) = (&r, &e) {
                    if let Some(st) = ri.exc.borrow_mut().as_mut() {
                        st.cause = Some(stop.clone());
                        st.context = Some(stop.clone());
                        st.suppress = true;
                    }
                }
                Err(r)
            }
        }
    }

    /// `throw()`/`close()` on a generator suspended in `yield from`/`await` go to the
    /// delegate first (PEP 380): `GeneratorExit` closes it and is then raised here; anything
    /// else is thrown into it, and what it yields, returns or raises decides what this
    /// frame does.
    fn throw_to_delegate(&mut self, frame: &mut crate::value::frame::Frame, e: Value) -> Delegated {
        let at_yield_from = frame.started
            && matches!(
                frame.code.ops.get(frame.pc),
                Some(crate::bytecode::Op::YieldFrom)
            );
        let Some(sub) = frame.stack.last().cloned().filter(|_| at_yield_from) else {
            return Delegated::Raise(Exc::Py(e));
        };
        let step = matches!(&sub, Value::Iter(it) if crate::objects::asyncgen::is_step(it));
        let is_exit = match &e {
            Value::Instance(i) => self
                .types
                .exc
                .get("GeneratorExit")
                .is_some_and(|c| i.cls().is_subclass(c)),
            _ => false,
        };
        if is_exit {
            frame.stack.pop();
            let closed = match &sub {
                Value::Iter(it) if step => crate::objects::asyncgen::step_close(self, it),
                Value::Generator(g) => {
                    crate::objects::iter::close(self, g, Args::default()).map(drop)
                }
                _ => match self.getattr_opt(&sub, "close") {
                    Ok(Some(close)) => self.call(&close, Args::default()).map(drop),
                    Ok(None) => Ok(()),
                    Err(e) => Err(e),
                },
            };
            return Delegated::Raise(closed.err().unwrap_or(Exc::Py(e)));
        }
        let r = match &sub {
            Value::Iter(it) if step => crate::objects::asyncgen::step_throw(self, it, Exc::Py(e)),
            Value::Generator(g) => self.gen_resume(g, None, Some(Exc::Py(e))),
            _ => match self.getattr_opt(&sub, "throw") {
                Ok(Some(throw)) => match self.call(&throw, Args::new(vec![e])) {
                    Ok(v) => Ok(Ok(v)),
                    Err(x) if self.exc_is(&x, "StopIteration") => Ok(Err(stop_value(&x))),
                    Err(x) => Err(x),
                },
                Ok(None) => {
                    frame.stack.pop();
                    return Delegated::Raise(Exc::Py(e));
                }
                Err(x) => Err(x),
            },
        };
        match r {
            Ok(Ok(y)) => Delegated::Yield(y),
            Ok(Err(ret)) => {
                frame.stack.pop();
                frame.stack.push(ret);
                frame.pc += 1;
                Delegated::Resume
            }
            Err(x) => {
                frame.stack.pop();
                Delegated::Raise(x)
            }
        }
    }

    fn unwind_pub(&mut self, f: &mut crate::value::frame::Frame, e: Value) -> bool {
        self.unwind(f, e)
    }

    /// `send` for `yield from`: generators natively, other iterators via next/send.
    pub fn send(&mut self, sub: &Value, sent: Value) -> R<Result<Value, Value>> {
        match sub {
            Value::Generator(g) => self.gen_send(g, sent),
            Value::Iter(it) if crate::objects::asyncgen::is_step(it) => {
                crate::objects::asyncgen::step_send(self, it, sent)
            }
            _ => {
                if sent.is_none() {
                    match self.next_or_stop(sub)? {
                        Ok(v) => Ok(Ok(v)),
                        Err(r) => Ok(Err(r)),
                    }
                } else {
                    match self.call_method(sub, "send", Args::new(vec![sent])) {
                        Ok(v) => Ok(Ok(v)),
                        Err(e) if self.exc_is(&e, "StopIteration") => Ok(Err(stop_value(&e))),
                        Err(e) => Err(e),
                    }
                }
            }
        }
    }

    /// next() returning the StopIteration value on exhaustion.
    fn next_or_stop(&mut self, it: &Value) -> R<Result<Value, Value>> {
        match it {
            Value::Instance(_) => match self.call_dunder(it, "__next__", vec![]) {
                Ok(Some(v)) => Ok(Ok(v)),
                Ok(None) => Err(self.type_err("object is not an iterator")),
                Err(e) if self.exc_is(&e, "StopIteration") => Ok(Err(stop_value(&e))),
                Err(e) => Err(e),
            },
            _ => Ok(match self.next(it)? {
                Some(v) => Ok(v),
                None => Err(Value::None),
            }),
        }
    }

    /// The awaitable behind `await v`; `ctx` (as in `Op::GetAwaitable`) picks CPython's
    /// message for a value that cannot be awaited.
    pub fn awaitable(&mut self, v: Value, ctx: u32) -> R<Value> {
        let not_awaitable = |vm: &mut Self, v: &Value| {
            let tn = vm.type_name(v);
            vm.type_err(match ctx {
                1 | 2 => format!(
                    "'async with' received an object from __a{}__ that does not implement \
                     __await__: {tn}",
                    if ctx == 1 { "enter" } else { "exit" }
                ),
                3 => format!("'async for' received an invalid object from __anext__: {tn}"),
                _ => format!("object {tn} can't be used in 'await' expression"),
            })
        };
        match &v {
            Value::Generator(g) if g.coroutine => Ok(v),
            Value::Iter(it) if crate::objects::asyncgen::is_step(it) => Ok(v),
            Value::Instance(_) => match self.call_dunder(&v, "__await__", vec![])? {
                Some(it) => {
                    let iterator = match &it {
                        Value::Generator(g) if g.coroutine => {
                            return Err(self.type_err("__await__() returned a coroutine"))
                        }
                        Value::Generator(_) | Value::Iter(_) => true,
                        Value::Instance(_) => self.lookup_dunder(&it, "__next__").is_some(),
                        _ => false,
                    };
                    if !iterator {
                        let tn = self.type_name(&it);
                        return Err(self.type_err(format!(
                            "__await__() returned non-iterator of type '{tn}'"
                        )));
                    }
                    Ok(it)
                }
                None => Err(not_awaitable(self, &v)),
            },
            _ => Err(not_awaitable(self, &v)),
        }
    }
}

/// Value carried by a StopIteration.
pub fn stop_value(e: &Exc) -> Value {
    if let Exc::Py(Value::Instance(i)) = e {
        if let Some(Value::Tuple(t)) = i.dict.get_str("args") {
            return t.items.first().cloned().unwrap_or_default();
        }
    }
    Value::None
}

fn join_names(names: &[String]) -> String {
    match names.len() {
        0 => String::new(),
        1 => names[0].clone(),
        2 => format!("{} and {}", names[0], names[1]),
        n => format!("{}, and {}", names[..n - 1].join(", "), names[n - 1]),
    }
}

fn is_object_default(name: &str) -> bool {
    matches!(
        name,
        "__init__"
            | "__new__"
            | "__setattr__"
            | "__getattribute__"
            | "__delattr__"
            | "__init_subclass__"
            | "__eq__"
            | "__ne__"
            | "__hash__"
            | "__repr__"
            | "__str__"
            | "__format__"
    )
}

fn is_builtin_class(vm: &Vm, c: &Rc<Class>) -> bool {
    let t = &vm.types;
    [
        &t.object,
        &t.type_,
        &t.int,
        &t.bool_,
        &t.float,
        &t.str_,
        &t.bytes,
        &t.bytearray,
        &t.tuple,
        &t.list,
        &t.dict,
        &t.set,
        &t.frozenset,
        &t.range,
        &t.slice,
        &t.property,
        &t.classmethod,
        &t.staticmethod,
        &t.super_,
        &t.none,
    ]
    .iter()
    .any(|x| Rc::ptr_eq(x, c))
}

/// A builtin (non-native) `__new__`: `object.__new__`, served by `new_instance`.
fn is_builtin_new(f: &Value) -> bool {
    matches!(f, Value::Builtin(b) if !matches!(b.kind, BuiltinKind::Native(_)))
}

impl Vm<'_> {
    /// `callable(v)`.
    pub fn is_callable(&self, v: &Value) -> bool {
        match v {
            Value::Function(_) | Value::Builtin(_) | Value::BoundMethod(_) | Value::Class(_) => {
                true
            }
            Value::Instance(_) => self.lookup_dunder(v, "__call__").is_some(),
            _ => false,
        }
    }
}

/// What a `throw()` into a generator suspended in `yield from` leads to.
enum Delegated {
    /// The delegate yielded: the generator stays suspended and yields this.
    Yield(Value),
    /// The delegate returned; its value is on the stack and the frame continues.
    Resume,
    /// Raise this in the generator's frame.
    Raise(Exc),
}

/// Bind `func`'s defaults to its positional parameters from `given` on (a direct call with
/// fewer arguments than parameters, [`Vm::enter_positional`]).
#[inline(never)]
fn fill_defaults(func: &Function, locals: &mut [Option<Value>], given: usize) {
    let argcount = func.code.argcount as usize;
    let first = func.defaults.len() + given - argcount;
    for (slot, d) in locals[given..argcount]
        .iter_mut()
        .zip(&func.defaults[first..])
    {
        *slot = Some(d.clone());
    }
}
