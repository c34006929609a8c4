//! Traceback objects: `exc.__traceback__` and the third argument of `__exit__`/`__aexit__`.
//!
//! One object per frame the exception passed through, linked by `tb_next` from the outermost
//! frame inward, each with `tb_lineno`. They are made on demand from the entries the VM records
//! while the exception unwinds (`ExcState::traceback`, innermost first) and cached in the
//! exception (`ExcState::tb_objs`), so the same objects come back every time and an exception
//! that propagates further gets a new head whose `tb_next` is the previous one, as in CPython.
//! There is no `tb_frame` (frames are forbidden introspection: no path may reach locals or
//! globals of another frame) and no `tb_lasti` (PVM bytecode offsets are not CPython's);
//! LIMITATIONS 26.

use super::native_type::{builtin, getter, state};
use crate::value::{Value, Wrapped};
use crate::vm::{Args, Vm, R};
use std::rc::Rc;

/// The state of a traceback object.
#[derive(Debug)]
pub struct Tb {
    /// Source file of the frame.
    pub file: Rc<str>,
    /// Line being executed in that frame.
    pub line: u32,
    /// Function name of the frame.
    pub name: Rc<str>,
    /// The next traceback object (the frame it called) or None.
    pub next: Value,
}

// A chain as long as the exception's history (`raise e` in a loop keeps adding entries) is
// released link by link, never by recursion.
impl Drop for Tb {
    fn drop(&mut self) {
        crate::value::defer_drop(std::iter::once(std::mem::replace(
            &mut self.next,
            Value::None,
        )));
    }
}

/// Fill the `traceback` class (once per VM, from `builtins::install`).
pub fn install(types: &crate::vm::Types) {
    let c = types.traceback.clone();
    let mut d = c.dict_mut();
    d.insert("tb_lineno".into(), getter(tb_lineno));
    d.insert("tb_next".into(), getter(tb_next));
    d.insert(
        "__new__".into(),
        Value::StaticMethod(Rc::new(Wrapped(builtin("__new__", tb_new)))),
    );
}

fn tb_new(vm: &mut Vm, _a: Args) -> R<Value> {
    Err(vm.type_err("cannot create 'traceback' instances"))
}

fn tb_lineno(vm: &mut Vm, a: Args) -> R<Value> {
    let v = a.pos.first().cloned().unwrap_or_default();
    let line = state::<Tb>(&v).map(|t| t.line);
    match line {
        Some(l) => Ok(Value::Int(i64::from(l))),
        None => Err(super::native_type::wrong_self(
            vm,
            &v,
            "traceback",
            "tb_lineno",
        )),
    }
}

fn tb_next(vm: &mut Vm, a: Args) -> R<Value> {
    let v = a.pos.first().cloned().unwrap_or_default();
    let next = state::<Tb>(&v).map(|t| t.next.clone());
    match next {
        Some(n) => Ok(n),
        None => Err(super::native_type::wrong_self(
            vm,
            &v,
            "traceback",
            "tb_next",
        )),
    }
}

/// `exc.__traceback__`: the outermost traceback object, or None before it was raised. The
/// objects not made yet are charged per object first.
pub fn of(vm: &mut Vm, e: &Value) -> R<Value> {
    let Value::Instance(i) = e else {
        return Ok(Value::None);
    };
    let missing = match i.exc.borrow().as_ref() {
        Some(st) => st.traceback().len().saturating_sub(st.tb_objs.len()),
        None => return Ok(Value::None),
    };
    if missing > 0 {
        vm.charge(crate::cost::per_elem(missing))?;
    }
    let mut st = i.exc.borrow_mut();
    let Some(st) = st.as_mut() else {
        return Ok(Value::None);
    };
    while st.tb_objs.len() < st.traceback().len() {
        let (file, line, name) = st.traceback()[st.tb_objs.len()].clone();
        let next = st.tb_objs.last().cloned().unwrap_or_default();
        let t = super::native_type::new_obj(
            &vm.types.traceback,
            Tb {
                file,
                line,
                name,
                next,
            },
        );
        st.tb_objs.push(t);
    }
    Ok(st.tb_objs.last().cloned().unwrap_or_default())
}

/// `exc.__traceback__ = tb` (a traceback object or None), also `exc.with_traceback(tb)`.
pub fn set(vm: &mut Vm, e: &Value, tb: &Value) -> R<()> {
    let mut chain = Vec::new();
    let mut cur = tb.clone();
    while !cur.is_none() {
        let next = match state::<Tb>(&cur) {
            Some(t) => t.next.clone(),
            None => return Err(vm.type_err("__traceback__ must be a traceback or None")),
        };
        vm.charge(crate::cost::PER_ELEM)?;
        chain.push(cur);
        cur = next;
    }
    // Innermost first, as the VM records them.
    chain.reverse();
    let entries = chain
        .iter()
        .filter_map(|t| state::<Tb>(t).map(|t| (t.file.clone(), t.line, t.name.clone())))
        .collect();
    if let Value::Instance(i) = e {
        if let Some(st) = i.exc.borrow_mut().as_mut() {
            st.set_traceback(entries);
            st.tb_objs = chain;
        }
    }
    Ok(())
}
