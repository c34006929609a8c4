//! Async generators (PEP 525): the methods of `async_generator` objects and the awaitables
//! their `__anext__`, `asend`, `athrow` and `aclose` return (CPython's `async_generator_asend`
//! and `async_generator_athrow`, here `IterState::AsyncGenStep`).
//!
//! An async generator is a `Generator` whose frame suspends in two ways: at a `yield` of its
//! own (the step is over: the awaiting coroutine receives the value, as `StopIteration(value)`
//! of the step), or inside an `await` (the frame is parked on its `YieldFrom` instruction and
//! the value travels up to whoever drives the coroutine; the step stays pending and forwards
//! the next `send`/`throw` to the generator). Returning ends the iteration with
//! `StopAsyncIteration`.

use crate::bytecode::Op;
use crate::value::{AsyncGenOp, Generator, IterState, PyIter, Value};
use crate::vm::{Args, Exc, Vm, R};
use std::rc::Rc;

/// Step states (`IterState::AsyncGenStep::state`).
const INIT: u8 = 0;
const AWAITING: u8 = 1;
const DONE: u8 = 2;

/// Methods of an async generator object.
pub const METHODS: &[&str] = &["__anext__", "__aiter__", "asend", "athrow", "aclose"];

/// `ag.<name>(args…)`.
pub fn call(vm: &mut Vm, g: &Rc<Generator>, name: &str, args: Args) -> R<Value> {
    let n = args.pos.len();
    let arity = |vm: &mut Vm, want: usize| -> R<()> {
        if n == want {
            return Ok(());
        }
        Err(vm.type_err(match (want, name) {
            (0, "__aiter__" | "__anext__") => format!("expected 0 arguments, got {n}"),
            (0, _) => format!("async_generator.{name}() takes no arguments ({n} given)"),
            _ => format!("async_generator.{name}() takes exactly one argument ({n} given)"),
        }))
    };
    match name {
        "__aiter__" => {
            arity(vm, 0)?;
            Ok(Value::Generator(g.clone()))
        }
        "__anext__" => {
            arity(vm, 0)?;
            Ok(step(g, AsyncGenOp::Send(Value::None)))
        }
        "asend" => {
            arity(vm, 1)?;
            Ok(step(g, AsyncGenOp::Send(args.pos[0].clone())))
        }
        "aclose" => {
            arity(vm, 0)?;
            Ok(step(g, AsyncGenOp::Close))
        }
        // As in CPython, the arguments are checked when the step is first awaited.
        "athrow" => Ok(step(g, AsyncGenOp::Throw(args.pos))),
        _ => Err(vm.attr_error(&Value::Generator(g.clone()), name)),
    }
}

fn step(g: &Rc<Generator>, op: AsyncGenOp) -> Value {
    Value::Iter(Rc::new(PyIter::new(IterState::AsyncGenStep {
        gen: g.clone(),
        op,
        state: INIT,
    })))
}

/// Is `it` one of the awaitables of this module (an async generator step or `anext`'s)?
pub fn is_step(it: &PyIter) -> bool {
    matches!(
        &*it.state.borrow(),
        IterState::AsyncGenStep { .. } | IterState::AnextDefault { .. }
    )
}

fn is_anext_default(it: &PyIter) -> bool {
    matches!(&*it.state.borrow(), IterState::AnextDefault { .. })
}

/// Method names of a step awaitable.
pub fn step_has_method(name: &str) -> bool {
    matches!(name, "send" | "throw" | "close" | "__await__")
}

/// `step.<name>(args…)` (`__next__` is `send(None)`).
pub fn step_call(vm: &mut Vm, v: &Value, it: &Rc<PyIter>, name: &str, args: Args) -> R<Value> {
    let r = match name {
        "__await__" | "__iter__" => return Ok(v.clone()),
        "close" => {
            step_close(vm, it)?;
            return Ok(Value::None);
        }
        "__next__" => step_send(vm, it, Value::None)?,
        "send" => {
            let [x] = args.pos.as_slice() else {
                let n = args.pos.len();
                return Err(vm.type_err(format!("send() takes exactly one argument ({n} given)")));
            };
            step_send(vm, it, x.clone())?
        }
        "throw" => {
            let e = super::iter::throw_arg(vm, &args)?;
            let exc = vm.raise_value(e, None);
            step_throw(vm, it, exc)?
        }
        _ => return Err(vm.attr_error(v, name)),
    };
    match r {
        Ok(y) => Ok(y),
        Err(ret) => {
            let cls = vm.types.exc["StopIteration"].clone();
            let a = if ret.is_none() { vec![] } else { vec![ret] };
            Err(Exc::Py(vm.make_exc(&cls, a)))
        }
    }
}

/// The generator, operation and state of a step (callers handle `AnextDefault` first).
fn parts(vm: &mut Vm, it: &PyIter) -> R<(Rc<Generator>, AsyncGenOp, u8)> {
    match &*it.state.borrow() {
        IterState::AsyncGenStep { gen, op, state } => Ok((gen.clone(), op.clone(), *state)),
        _ => Err(vm.type_err("an async generator step was expected")),
    }
}

fn set_state(it: &PyIter, s: u8) {
    if let IterState::AsyncGenStep { gen, state, .. } = &mut *it.state.borrow_mut() {
        if *state == AWAITING && s != AWAITING {
            gen.running_async.set(false);
        }
        if s == AWAITING {
            gen.running_async.set(true);
        }
        *state = s;
    }
}

fn reuse_error(vm: &mut Vm, op: &AsyncGenOp) -> Exc {
    let what = match op {
        AsyncGenOp::Send(_) => "__anext__()/asend()",
        _ => "aclose()/athrow()",
    };
    vm.new_exc(
        "RuntimeError",
        &format!("cannot reuse already awaited {what}"),
    )
}

/// Start a step: checks CPython makes before the generator runs.
fn start(vm: &mut Vm, g: &Rc<Generator>, op: &AsyncGenOp) -> R<()> {
    if g.running_async.get() {
        let who = match op {
            AsyncGenOp::Send(_) => "anext",
            AsyncGenOp::Throw(_) => "athrow",
            AsyncGenOp::Close => "aclose",
        };
        return Err(vm.new_exc(
            "RuntimeError",
            &format!("{who}(): asynchronous generator is already running"),
        ));
    }
    Ok(())
}

/// `send(sent)` on a step: `Ok(Ok(v))` passes `v` up to the driver of the awaiting coroutine,
/// `Ok(Err(v))` finishes the step with result `v`.
pub fn step_send(vm: &mut Vm, it: &Rc<PyIter>, sent: Value) -> R<Result<Value, Value>> {
    if is_anext_default(it) {
        let (inner, default) = anext_inner(vm, it)?;
        let r = vm.send(&inner, sent);
        return anext_result(vm, r, default);
    }
    let (g, op, state) = parts(vm, it)?;
    let r = match state {
        DONE => return Err(reuse_error(vm, &op)),
        AWAITING => vm.gen_resume(&g, Some(sent), None),
        _ => {
            start(vm, &g, &op)?;
            match &op {
                AsyncGenOp::Send(v) => {
                    let v = if sent.is_none() { v.clone() } else { sent };
                    vm.gen_resume(&g, Some(v), None)
                }
                AsyncGenOp::Throw(_) | AsyncGenOp::Close => {
                    if !sent.is_none() {
                        return Err(vm.new_exc(
                            "RuntimeError",
                            "can't send non-None value to a just-started coroutine",
                        ));
                    }
                    if g.frame.borrow().is_none() {
                        set_state(it, DONE);
                        return Ok(Err(Value::None));
                    }
                    let e = match &op {
                        AsyncGenOp::Throw(args) => athrow_arg(vm, args)?,
                        _ => {
                            let cls = vm.types.exc["GeneratorExit"].clone();
                            vm.make_exc(&cls, vec![])
                        }
                    };
                    let exc = vm.raise_value(e, None);
                    vm.gen_resume(&g, None, Some(exc))
                }
            }
        }
    };
    finish(vm, it, &g, &op, r)
}

/// The exception `athrow(*args)` throws.
fn athrow_arg(vm: &mut Vm, args: &[Value]) -> R<Value> {
    match args.len() {
        0 => Err(vm.type_err("athrow expected at least 1 argument, got 0")),
        1..=3 => super::iter::throw_arg(vm, &Args::new(args.to_vec())),
        n => Err(vm.type_err(format!("athrow expected at most 3 arguments, got {n}"))),
    }
}

/// `throw(exc)` on a step: thrown into the generator.
pub fn step_throw(vm: &mut Vm, it: &Rc<PyIter>, exc: Exc) -> R<Result<Value, Value>> {
    if is_anext_default(it) {
        let (inner, default) = anext_inner(vm, it)?;
        let r = throw_into(vm, &inner, exc);
        return anext_result(vm, r, default);
    }
    let (g, op, state) = parts(vm, it)?;
    if state == DONE {
        return Err(reuse_error(vm, &op));
    }
    if state == INIT {
        start(vm, &g, &op)?;
    }
    let r = vm.gen_resume(&g, None, Some(exc));
    finish(vm, it, &g, &op, r)
}

/// `close()` on a step (a coroutine awaiting it is being closed).
pub fn step_close(vm: &mut Vm, it: &PyIter) -> R<()> {
    let inner = match &*it.state.borrow() {
        IterState::AnextDefault { iter, .. } => iter.clone(),
        _ => None,
    };
    match inner {
        Some(Value::Generator(g)) => {
            super::iter::close(vm, &g, Args::default())?;
        }
        Some(Value::Iter(s)) if is_step(&s) => step_close(vm, &s)?,
        Some(other) => {
            if let Some(close) = vm.getattr_opt(&other, "close")? {
                vm.call(&close, Args::default())?;
            }
        }
        None => set_state(it, DONE),
    }
    Ok(())
}

/// `throw(exc)` into the iterator behind an awaitable, as `yield from` delegates it.
fn throw_into(vm: &mut Vm, inner: &Value, exc: Exc) -> R<Result<Value, Value>> {
    match inner {
        Value::Generator(g) => vm.gen_resume(g, None, Some(exc)),
        Value::Iter(s) if is_step(s) => step_throw(vm, s, exc),
        _ => {
            let Exc::Py(e) = exc else { return Err(exc) };
            match vm.getattr_opt(inner, "throw")? {
                Some(throw) => match vm.call(&throw, Args::new(vec![e])) {
                    Ok(v) => Ok(Ok(v)),
                    Err(x) if vm.exc_is(&x, "StopIteration") => {
                        Ok(Err(crate::vm::call::stop_value(&x)))
                    }
                    Err(x) => Err(x),
                },
                None => Err(Exc::Py(e)),
            }
        }
    }
}

/// The iterator `anext(it, default)` awaits (made from `__anext__()`'s result on first use)
/// and the default.
fn anext_inner(vm: &mut Vm, it: &PyIter) -> R<(Value, Value)> {
    let (awaitable, iter, default) = match &*it.state.borrow() {
        IterState::AnextDefault {
            awaitable,
            iter,
            default,
        } => (awaitable.clone(), iter.clone(), default.clone()),
        _ => return Err(vm.type_err("an anext awaitable was expected")),
    };
    let iter = match iter {
        Some(i) => i,
        None => {
            let i = vm.awaitable(awaitable, 0)?;
            if let IterState::AnextDefault { iter, .. } = &mut *it.state.borrow_mut() {
                *iter = Some(i.clone());
            }
            i
        }
    };
    Ok((iter, default))
}

/// `StopAsyncIteration` from the awaited `__anext__()` becomes the default.
fn anext_result(
    vm: &mut Vm,
    r: R<Result<Value, Value>>,
    default: Value,
) -> R<Result<Value, Value>> {
    match r {
        Err(e) if vm.exc_is(&e, "StopAsyncIteration") => Ok(Err(default)),
        other => other,
    }
}

/// `aiter(v)`.
pub fn aiter(vm: &mut Vm, v: &Value) -> R<Value> {
    let it = match v {
        Value::Generator(g) if g.async_gen => return Ok(v.clone()),
        Value::Instance(_) => vm.call_dunder(v, "__aiter__", vec![])?,
        _ => None,
    };
    let Some(it) = it else {
        let tn = vm.type_name(v);
        return Err(vm.type_err(format!("'{tn}' object is not an async iterable")));
    };
    if !has_anext(vm, &it) {
        let tn = vm.type_name(&it);
        return Err(vm.type_err(format!(
            "aiter() returned not an async iterator of type '{tn}'"
        )));
    }
    Ok(it)
}

fn has_anext(vm: &Vm, v: &Value) -> bool {
    match v {
        Value::Generator(g) => g.async_gen,
        Value::Instance(_) => vm.lookup_dunder(v, "__anext__").is_some(),
        _ => false,
    }
}

/// `anext(it)` and `anext(it, default)`.
pub fn anext(vm: &mut Vm, it: &Value, default: Option<Value>) -> R<Value> {
    if !has_anext(vm, it) {
        let tn = vm.type_name(it);
        return Err(vm.type_err(format!("'{tn}' object is not an async iterator")));
    }
    let awaitable = get_anext(vm, it)?;
    Ok(match default {
        None => awaitable,
        Some(default) => Value::Iter(Rc::new(PyIter::new(IterState::AnextDefault {
            awaitable,
            iter: None,
            default,
        }))),
    })
}

/// Interpret what the generator did for a step.
fn finish(
    vm: &mut Vm,
    it: &Rc<PyIter>,
    g: &Rc<Generator>,
    op: &AsyncGenOp,
    r: R<Result<Value, Value>>,
) -> R<Result<Value, Value>> {
    let closing = matches!(op, AsyncGenOp::Close);
    match r {
        Ok(Ok(y)) => {
            let in_await = g
                .frame
                .borrow()
                .as_ref()
                .is_some_and(|f| matches!(f.code.ops.get(f.pc), Some(Op::YieldFrom)));
            if in_await {
                set_state(it, AWAITING);
                return Ok(Ok(y));
            }
            set_state(it, DONE);
            if closing {
                return Err(vm.new_exc("RuntimeError", "async generator ignored GeneratorExit"));
            }
            Ok(Err(y))
        }
        Ok(Err(_)) => {
            set_state(it, DONE);
            if closing {
                return Ok(Err(Value::None));
            }
            Err(vm.new_exc_noargs("StopAsyncIteration"))
        }
        Err(e) => {
            set_state(it, DONE);
            if closing && vm.exc_is(&e, "GeneratorExit") {
                return Ok(Err(Value::None));
            }
            Err(e)
        }
    }
}

/// `async with mgr`: the bound `__aexit__` and the (not yet awaited) result of `__aenter__()`.
pub fn async_with_enter(vm: &mut Vm, mgr: &Value) -> R<(Value, Value)> {
    let unsupported = |vm: &mut Vm, detail: &str| {
        let tn = vm.type_name(mgr);
        vm.type_err(format!(
            "'{tn}' object does not support the asynchronous context manager protocol{detail}"
        ))
    };
    let Some(enter) = vm.getattr_opt(mgr, "__aenter__")? else {
        return Err(unsupported(vm, ""));
    };
    let Some(exit) = vm.getattr_opt(mgr, "__aexit__")? else {
        return Err(unsupported(vm, " (missed __aexit__ method)"));
    };
    let r = vm.call(&enter, Args::default())?;
    Ok((exit, r))
}

/// `async for … in v`: `v.__aiter__()`, which must have `__anext__`.
pub fn get_aiter(vm: &mut Vm, v: &Value) -> R<Value> {
    let it = match v {
        Value::Generator(g) if g.async_gen => return Ok(v.clone()),
        Value::Instance(_) => vm.call_dunder(v, "__aiter__", vec![])?,
        _ => None,
    };
    let Some(it) = it else {
        let tn = vm.type_name(v);
        return Err(vm.type_err(format!(
            "'async for' requires an object with __aiter__ method, got {tn}"
        )));
    };
    let ok = match &it {
        Value::Generator(g) => g.async_gen,
        Value::Instance(_) => vm.lookup_dunder(&it, "__anext__").is_some(),
        _ => false,
    };
    if !ok {
        let tn = vm.type_name(&it);
        return Err(vm.type_err(format!(
            "'async for' received an object from __aiter__ that does not implement __anext__: {tn}"
        )));
    }
    Ok(it)
}

/// One `async for` step: `it.__anext__()` (awaited by the caller).
pub fn get_anext(vm: &mut Vm, it: &Value) -> R<Value> {
    let r = match it {
        Value::Generator(g) if g.async_gen => return Ok(step(g, AsyncGenOp::Send(Value::None))),
        Value::Instance(_) => vm.call_dunder(it, "__anext__", vec![])?,
        _ => None,
    };
    match r {
        Some(r) => Ok(r),
        None => {
            let tn = vm.type_name(it);
            Err(vm.type_err(format!(
                "'async for' requires an iterator with __anext__ method, got {tn}"
            )))
        }
    }
}
