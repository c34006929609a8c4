//! `re`: CPython 3.11's regular expressions on the metered engine `cowboy-pvm-re`.
//!
//! compile, match, search, fullmatch, findall, finditer, sub/subn (templates and callables),
//! split, escape, purge; `re.Pattern`, `re.Match`, `re.error`; `re.RegexFlag` (an IntFlag
//! defined in Python, `re_flags.py`) and its members as the flag constants.
//! Every matching step of the engine is charged through [`Vm::charge`] ([`cost::RE_STEP`]
//! each, in the engine's batches of 64), so catastrophic backtracking ends in `OutOfCycles`;
//! the engine's backtrack stack is bounded by what is left of the invocation's memory limit
//! (`MemoryError`). Subjects are converted to code units once per call (one cycle per
//! character); results cost one cycle per character produced. Patterns are compiled on every
//! call (compiling is charged per pattern character and per instruction): there is no cache,
//! so the cost of a call never depends on what ran before it.
//!
//! Differences from CPython (LIMITATIONS.md): `Pattern.groupindex` is a dict copy, not a
//! mappingproxy; no `re.LOCALE`, `re.DEBUG`, `re.TEMPLATE` (so they are not RegexFlag members
//! either), `Pattern.scanner`, pickling, `copy`.

use std::rc::Rc;

use cowboy_pvm_re::ops::Scanner;
use cowboy_pvm_re::template::Template;
use cowboy_pvm_re::{flags as rf, CompileError, ErrorKind, Exhausted, Match, MatchError, Regex};

use super::{builtin, class, new_obj, state, state_mut, Body};
use crate::cost;
use crate::memory::Acct;
use crate::value::*;
use crate::vm::{Abort, Args, Exc, Vm, R};

/// The engine's meter: one engine step costs [`cost::RE_STEP`] cycles.
struct Meter<'a, 'h>(&'a mut Vm<'h>);

impl cowboy_pvm_re::Meter for Meter<'_, '_> {
    fn charge(&mut self, steps: u64) -> Result<(), Exhausted> {
        self.0
            .charge(steps.saturating_mul(cost::RE_STEP))
            .map_err(|_| Exhausted)
    }
}

/// Engine limits: its backtrack stack may use what is left of the invocation's memory.
fn limits(vm: &Vm) -> cowboy_pvm_re::Limits {
    let d = cowboy_pvm_re::Limits::default();
    let left = vm.limits.memory.saturating_sub(crate::memory::live());
    cowboy_pvm_re::Limits {
        max_memory: left.min(d.max_memory),
        ..d
    }
}

fn match_err(e: MatchError) -> Exc {
    match e {
        MatchError::Exhausted => Exc::Abort(Abort::OutOfCycles),
        MatchError::MemoryLimit => Exc::Abort(Abort::MemoryLimit),
    }
}

/// A compiled pattern's state.
struct Pat {
    regex: Rc<Regex>,
    /// The pattern as given (str or bytes).
    pattern: Value,
}

/// A match's state.
struct Mat {
    regex: Rc<Regex>,
    /// The `re.Pattern` object.
    pattern: Value,
    string: Value,
    units: Rc<Vec<u32>>,
    m: Match,
    pos: usize,
    endpos: usize,
    _acct: Rc<Acct>,
}

/// `finditer`'s iterator state.
struct Iter {
    regex: Rc<Regex>,
    pattern: Value,
    string: Value,
    units: Rc<Vec<u32>>,
    scanner: Scanner,
    pos: usize,
    endpos: usize,
    acct: Rc<Acct>,
}

fn native_class(vm: &mut Vm, name: &str) -> R<Rc<Class>> {
    match vm.native_classes.get(name) {
        Some(c) => Ok(c.clone()),
        None => Err(vm.new_exc("SystemError", "re is not initialised")),
    }
}

// ---- argument binding ----

/// How a function reports argument errors: like a Python function (`re.match`) or like an
/// Argument Clinic builtin (`Pattern.match`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Style {
    Py,
    Clinic,
}

fn quote_list(names: &[&str]) -> String {
    let q: Vec<String> = names.iter().map(|n| format!("'{n}'")).collect();
    match q.len() {
        0 => String::new(),
        1 => q[0].clone(),
        2 => format!("{} and {}", q[0], q[1]),
        _ => format!("{}, and {}", q[..q.len() - 1].join(", "), q[q.len() - 1]),
    }
}

/// Bind `a` to `names` (the first `required` are required). `None` = not given.
fn bind(
    vm: &mut Vm,
    a: Args,
    f: &str,
    names: &[&str],
    required: usize,
    style: Style,
) -> R<Vec<Option<Value>>> {
    let given = a.pos.len() + a.kw.len();
    let mut out: Vec<Option<Value>> = vec![None; names.len()];
    if a.pos.len() > names.len() {
        return Err(vm.type_err(match style {
            Style::Py if required == names.len() => format!(
                "{f}() takes {} positional argument{} but {} were given",
                names.len(),
                if names.len() == 1 { "" } else { "s" },
                a.pos.len()
            ),
            Style::Py => format!(
                "{f}() takes from {required} to {} positional arguments but {} were given",
                names.len(),
                a.pos.len()
            ),
            Style::Clinic => format!(
                "{f}() takes at most {} argument{} ({given} given)",
                names.len(),
                if names.len() == 1 { "" } else { "s" }
            ),
        }));
    }
    let npos = a.pos.len();
    for (i, v) in a.pos.into_iter().enumerate() {
        out[i] = Some(v);
    }
    for (k, v) in a.kw {
        let Some(i) = names.iter().position(|n| **n == *k) else {
            return Err(vm.type_err(match style {
                Style::Py => format!("{f}() got an unexpected keyword argument '{k}'"),
                Style::Clinic => format!("'{k}' is an invalid keyword argument for {f}()"),
            }));
        };
        if out[i].is_some() {
            return Err(vm.type_err(match style {
                Style::Py => format!("{f}() got multiple values for argument '{k}'"),
                Style::Clinic => format!(
                    "argument for {f}() given by name ('{k}') and position ({})",
                    i + 1
                ),
            }));
        }
        out[i] = Some(v);
    }
    let missing: Vec<&str> = (0..required)
        .filter(|&i| out[i].is_none())
        .map(|i| names[i])
        .collect();
    if let Some(first) = missing.first() {
        let _ = npos;
        return Err(vm.type_err(match style {
            Style::Py => format!(
                "{f}() missing {} required positional argument{}: {}",
                missing.len(),
                if missing.len() == 1 { "" } else { "s" },
                quote_list(&missing)
            ),
            Style::Clinic => {
                let i = names.iter().position(|n| n == first).unwrap_or(0);
                format!("{f}() missing required argument '{first}' (pos {})", i + 1)
            }
        }));
    }
    Ok(out)
}

// ---- conversions ----

/// Code units of a subject for a pattern of kind `text`, charged per unit.
fn subject(vm: &mut Vm, v: &Value, text: bool) -> R<Rc<Vec<u32>>> {
    let base = Vm::base_of(v);
    let units = match (&base, text) {
        (Value::Str(s), true) => {
            vm.charge(cost::per_char(s.len))?;
            s.s.chars().map(u32::from).collect()
        }
        (Value::Bytes(_) | Value::ByteArray(_), false) => {
            let b = super::bytes_like(&base).unwrap_or_default();
            vm.charge(cost::per_char(b.len()))?;
            b.into_iter().map(u32::from).collect()
        }
        (Value::Str(_), false) => {
            return Err(vm.type_err("cannot use a bytes pattern on a string-like object"))
        }
        (Value::Bytes(_) | Value::ByteArray(_), true) => {
            return Err(vm.type_err("cannot use a string pattern on a bytes-like object"))
        }
        _ => {
            let t = vm.type_name(v);
            return Err(vm.type_err(format!("expected string or bytes-like object, got '{t}'")));
        }
    };
    Ok(Rc::new(units))
}

/// A str (text) or bytes value of `units`, charged per unit.
fn value_of(vm: &mut Vm, units: &[u32], text: bool) -> R<Value> {
    vm.charge(cost::per_char(units.len()))?;
    Ok(if text {
        let s: String = units.iter().filter_map(|&u| char::from_u32(u)).collect();
        Value::str(&s)
    } else {
        Value::bytes(units.iter().map(|&u| u as u8).collect())
    })
}

fn flags_arg(vm: &mut Vm, v: Option<&Value>) -> R<u32> {
    match v {
        None => Ok(0),
        Some(v @ (Value::Int(_) | Value::Bool(_) | Value::Instance(_))) => {
            let n = vm.index_of(v)?;
            Ok(n as u32)
        }
        Some(Value::BigInt(b)) => {
            use num_traits::ToPrimitive;
            Ok(b.to_u64().map_or(0, |x| x as u32))
        }
        Some(other) => {
            let t = vm.type_name(other);
            Err(vm.type_err(format!(
                "unsupported operand type(s) for &: '{t}' and 'RegexFlag'"
            )))
        }
    }
}

/// `re.error` for `e` raised while compiling `pattern` (units of `pattern_value`).
fn compile_err(vm: &mut Vm, e: CompileError, pattern_value: &Value, units: &[u32]) -> Exc {
    match e.kind {
        ErrorKind::Re | ErrorKind::Unsupported => {
            let cls = match vm.native_classes.get("re.error") {
                Some(c) => c.clone(),
                None => vm.types.exc["Exception"].clone(),
            };
            let exc = vm.make_exc(&cls, vec![Value::str(&e.display)]);
            if let Value::Instance(i) = &exc {
                let (lineno, colno) = match e.pos {
                    Some(pos) => {
                        let nl = u32::from(b'\n');
                        let before = units.get(..pos).unwrap_or(units);
                        let line = before.iter().filter(|&&c| c == nl).count() + 1;
                        let col = match before.iter().rposition(|&c| c == nl) {
                            Some(k) => pos - k,
                            None => pos + 1,
                        };
                        (Value::Int(line as i64), Value::Int(col as i64))
                    }
                    None => (Value::None, Value::None),
                };
                i.dict.set_str("msg", Value::str(&e.msg));
                let pv = if e.pos.is_some() {
                    pattern_value.clone()
                } else {
                    Value::None
                };
                i.dict.set_str("pattern", pv);
                i.dict
                    .set_str("pos", e.pos.map_or(Value::None, |p| Value::Int(p as i64)));
                i.dict.set_str("lineno", lineno);
                i.dict.set_str("colno", colno);
            }
            Exc::Py(exc)
        }
        ErrorKind::Value => vm.value_err(&e.msg),
        ErrorKind::Overflow => vm.new_exc("OverflowError", &e.msg),
        ErrorKind::Index => vm.new_exc("IndexError", &e.msg),
        ErrorKind::Recursion => vm.new_exc("RecursionError", &e.msg),
    }
}

fn re_err(vm: &mut Vm, e: cowboy_pvm_re::ReError, pattern_value: &Value, units: &[u32]) -> Exc {
    match e {
        cowboy_pvm_re::ReError::Compile(c) => compile_err(vm, c, pattern_value, units),
        cowboy_pvm_re::ReError::Match(m) => match_err(m),
    }
}

/// Compile `pattern` with `flags` into a `re.Pattern` (a Pattern is returned as is).
fn compile(vm: &mut Vm, pattern: &Value, flags: u32) -> R<Value> {
    if state::<Pat>(pattern).is_some() {
        if flags != 0 {
            return Err(vm.value_err("cannot process flags argument with a compiled pattern"));
        }
        return Ok(pattern.clone());
    }
    let base = Vm::base_of(pattern);
    let (units, text): (Vec<u32>, bool) = match &base {
        Value::Str(s) => (s.s.chars().map(u32::from).collect(), true),
        Value::Bytes(b) => (b.b.iter().map(|&x| u32::from(x)).collect(), false),
        _ => return Err(vm.type_err("first argument must be string or compiled pattern")),
    };
    let lim = limits(vm);
    let r = Regex::compile(&units, text, flags, &mut Meter(vm), &lim);
    let regex = match r {
        Ok(r) => r,
        Err(e) => return Err(re_err(vm, e, &base, &units)),
    };
    let cls = native_class(vm, "re.Pattern")?;
    Ok(new_obj(
        &cls,
        Pat {
            regex: Rc::new(regex),
            pattern: base,
        },
    ))
}

fn pat_of(vm: &mut Vm, v: &Value, method: &str) -> R<(Rc<Regex>, Value)> {
    let p = state::<Pat>(v).map(|p| (p.regex.clone(), p.pattern.clone()));
    match p {
        Some(p) => Ok(p),
        None => Err(super::wrong_self(vm, v, "re.Pattern", method)),
    }
}

/// Python's clamping of `pos`/`endpos` to `0..=len`.
fn clamp(vm: &mut Vm, v: Option<&Value>, len: usize, default: usize) -> R<usize> {
    let n = match v {
        None => return Ok(default),
        Some(Value::BigInt(b)) => {
            if num_traits::Signed::is_negative(&**b) {
                0
            } else {
                len
            }
        }
        Some(v) => {
            let n = vm.index_of(v)?;
            if n < 0 {
                0
            } else {
                (n as u64).min(len as u64) as usize
            }
        }
    };
    Ok(n)
}

#[derive(Clone, Copy)]
enum Kind {
    Search,
    Match,
    Full,
}

#[allow(clippy::too_many_arguments)]
fn make_match(
    vm: &mut Vm,
    regex: &Rc<Regex>,
    pattern: &Value,
    string: &Value,
    units: &Rc<Vec<u32>>,
    acct: &Rc<Acct>,
    m: Match,
    pos: usize,
    endpos: usize,
) -> R<Value> {
    let cls = native_class(vm, "re.Match")?;
    Ok(new_obj(
        &cls,
        Mat {
            regex: regex.clone(),
            pattern: pattern.clone(),
            string: string.clone(),
            units: units.clone(),
            m,
            pos,
            endpos,
            _acct: acct.clone(),
        },
    ))
}

fn units_acct(units: &[u32]) -> Rc<Acct> {
    Rc::new(Acct::new(units.len() * 4))
}

fn do_match(
    vm: &mut Vm,
    pat: &Value,
    string: &Value,
    pos: Option<&Value>,
    endpos: Option<&Value>,
    kind: Kind,
) -> R<Value> {
    let (regex, _) = pat_of(vm, pat, "match")?;
    let units = subject(vm, string, regex.is_text())?;
    let len = units.len();
    let pos = clamp(vm, pos, len, 0)?;
    let endpos = clamp(vm, endpos, len, len)?;
    let lim = limits(vm);
    let r = {
        let mut meter = Meter(vm);
        match kind {
            Kind::Search => regex.search(&units, pos, endpos, &mut meter, &lim),
            Kind::Match => regex.match_at(&units, pos, endpos, &mut meter, &lim),
            Kind::Full => regex.fullmatch(&units, pos, endpos, &mut meter, &lim),
        }
    };
    match r.map_err(match_err)? {
        Some(m) => {
            let acct = units_acct(&units);
            make_match(vm, &regex, pat, string, &units, &acct, m, pos, endpos)
        }
        None => Ok(Value::None),
    }
}

/// Every match of `pat` in `string[pos:endpos]`, in order.
fn all_matches(
    vm: &mut Vm,
    regex: &Regex,
    units: &[u32],
    pos: usize,
    endpos: usize,
) -> R<Vec<Match>> {
    let lim = limits(vm);
    let mut sc = Scanner::new(units, pos, endpos);
    let mut out = Vec::new();
    loop {
        let r = sc.next_match(regex, units, &mut Meter(vm), &lim);
        match r.map_err(match_err)? {
            Some(m) => {
                vm.charge(cost::LIST_OP)?;
                out.push(m);
            }
            None => return Ok(out),
        }
    }
}

fn group_value(vm: &mut Vm, units: &[u32], m: &Match, g: usize, text: bool) -> R<Value> {
    match m.group(units, g) {
        Some(u) => value_of(vm, u, text),
        None => Ok(Value::None),
    }
}

fn do_findall(
    vm: &mut Vm,
    pat: &Value,
    string: &Value,
    pos: Option<&Value>,
    endpos: Option<&Value>,
) -> R<Value> {
    let (regex, _) = pat_of(vm, pat, "findall")?;
    let text = regex.is_text();
    let units = subject(vm, string, text)?;
    let len = units.len();
    let pos = clamp(vm, pos, len, 0)?;
    let endpos = clamp(vm, endpos, len, len)?;
    let ms = all_matches(vm, &regex, &units, pos, endpos)?;
    let mut out = Vec::with_capacity(ms.len());
    for m in &ms {
        let item = match regex.groups() {
            0 => value_of(vm, m.group(&units, 0).unwrap_or(&[]), text)?,
            1 => value_of(vm, m.group(&units, 1).unwrap_or(&[]), text)?,
            n => {
                let mut t = Vec::with_capacity(n);
                for g in 1..=n {
                    t.push(value_of(vm, m.group(&units, g).unwrap_or(&[]), text)?);
                }
                Value::tuple(t)
            }
        };
        out.push(item);
    }
    Ok(Value::list(out))
}

fn do_finditer(
    vm: &mut Vm,
    pat: &Value,
    string: &Value,
    pos: Option<&Value>,
    endpos: Option<&Value>,
) -> R<Value> {
    let (regex, _) = pat_of(vm, pat, "finditer")?;
    let units = subject(vm, string, regex.is_text())?;
    let len = units.len();
    let pos = clamp(vm, pos, len, 0)?;
    let endpos = clamp(vm, endpos, len, len)?;
    let cls = native_class(vm, "callable_iterator")?;
    let acct = units_acct(&units);
    Ok(new_obj(
        &cls,
        Iter {
            scanner: Scanner::new(&units, pos, endpos),
            regex,
            pattern: pat.clone(),
            string: string.clone(),
            units,
            pos,
            endpos,
            acct,
        },
    ))
}

fn do_split(vm: &mut Vm, pat: &Value, string: &Value, maxsplit: Option<&Value>) -> R<Value> {
    let (regex, _) = pat_of(vm, pat, "split")?;
    let text = regex.is_text();
    let units = subject(vm, string, text)?;
    let maxsplit = match maxsplit {
        Some(v) => vm.index_of(v)?,
        None => 0,
    };
    let lim = limits(vm);
    let mut sc = Scanner::new(&units, 0, units.len());
    let mut out = Vec::new();
    let mut last = 0;
    let mut n: i64 = 0;
    while maxsplit == 0 || (maxsplit > 0 && n < maxsplit) {
        let r = sc.next_match(&regex, &units, &mut Meter(vm), &lim);
        let Some(m) = r.map_err(match_err)? else {
            break;
        };
        let (s, e) = m.span();
        out.push(value_of(vm, units.get(last..s).unwrap_or(&[]), text)?);
        for g in 1..=regex.groups() {
            out.push(group_value(vm, &units, &m, g, text)?);
        }
        last = e;
        n += 1;
    }
    out.push(value_of(vm, units.get(last..).unwrap_or(&[]), text)?);
    Ok(Value::list(out))
}

/// `callable(v)`.
fn is_callable(vm: &Vm, v: &Value) -> bool {
    match v {
        Value::Function(_) | Value::Builtin(_) | Value::BoundMethod(_) | Value::Class(_) => true,
        Value::Instance(_) => vm.lookup_dunder(v, "__call__").is_some(),
        _ => false,
    }
}

/// A replacement: a parsed template or a callable.
enum Repl {
    Template(Template),
    Call(Value),
}

fn do_subn(
    vm: &mut Vm,
    pat: &Value,
    repl: &Value,
    string: &Value,
    count: Option<&Value>,
) -> R<(Value, usize)> {
    let (regex, _) = pat_of(vm, pat, "sub")?;
    let text = regex.is_text();
    let repl_base = Vm::base_of(repl);
    let repl = match (&repl_base, text) {
        (Value::Str(_), true) | (Value::Bytes(_), false) => {
            let ru: Vec<u32> = match &repl_base {
                Value::Str(s) => s.s.chars().map(u32::from).collect(),
                Value::Bytes(b) => b.b.iter().map(|&x| u32::from(x)).collect(),
                _ => Vec::new(),
            };
            vm.charge(cost::per_char(ru.len()))?;
            match Template::parse(&ru, &regex) {
                Ok(t) => Repl::Template(t),
                Err(e) => return Err(compile_err(vm, e, &repl_base, &ru)),
            }
        }
        (Value::Str(_), false) => {
            return Err(vm.type_err("expected a bytes-like object, str found"));
        }
        (Value::Bytes(_), true) => {
            return Err(vm.type_err("expected str instance, bytes found"));
        }
        _ if is_callable(vm, repl) => Repl::Call(repl.clone()),
        _ => {
            let t = vm.type_name(repl);
            return Err(vm.type_err(format!(
                "decoding to str: need a bytes-like object, {t} found"
            )));
        }
    };
    let units = subject(vm, string, text)?;
    let count = match count {
        Some(v) => vm.index_of(v)?,
        None => 0,
    };
    let lim = limits(vm);
    let acct = units_acct(&units);
    let mut sc = Scanner::new(&units, 0, units.len());
    let mut out: Vec<u32> = Vec::new();
    let mut last = 0;
    let mut n: usize = 0;
    let mut items = 0usize;
    while count == 0 || (count > 0 && (n as i64) < count) {
        let r = sc.next_match(&regex, &units, &mut Meter(vm), &lim);
        let Some(m) = r.map_err(match_err)? else {
            break;
        };
        let (s, e) = m.span();
        let piece = units.get(last..s).unwrap_or(&[]);
        vm.charge(cost::per_char(piece.len()))?;
        if !piece.is_empty() {
            items += 1;
        }
        out.extend_from_slice(piece);
        match &repl {
            Repl::Template(t) => {
                let n = t.expanded_len(&m);
                vm.charge(cost::per_char(n))?;
                vm.reserve(n as u64)?;
                out.extend(t.expand(&units, &m));
                items += 1;
            }
            Repl::Call(f) => {
                let mo = make_match(vm, &regex, pat, string, &units, &acct, m, 0, units.len())?;
                let r = vm.call(f, Args::new(vec![mo]))?;
                let r = Vm::base_of(&r);
                match (&r, text) {
                    (Value::None, _) => {}
                    (Value::Str(s), true) => {
                        vm.charge(cost::per_char(s.len))?;
                        out.extend(s.s.chars().map(u32::from));
                        items += 1;
                    }
                    (Value::Bytes(_) | Value::ByteArray(_), false) => {
                        let b = super::bytes_like(&r).unwrap_or_default();
                        vm.charge(cost::per_char(b.len()))?;
                        out.extend(b.into_iter().map(u32::from));
                        items += 1;
                    }
                    (other, _) => {
                        let t = vm.type_name(other);
                        let want = if text {
                            "str instance"
                        } else {
                            "a bytes-like object"
                        };
                        return Err(vm.type_err(format!(
                            "sequence item {items}: expected {want}, {t} found"
                        )));
                    }
                }
            }
        }
        last = e;
        n += 1;
    }
    let rest = units.get(last..).unwrap_or(&[]);
    out.extend_from_slice(rest);
    let v = value_of(vm, &out, text)?;
    Ok((v, n))
}

// ---- module functions ----

fn pattern_flags(vm: &mut Vm, p: Option<&Value>, f: Option<&Value>) -> R<Value> {
    let flags = flags_arg(vm, f)?;
    compile(vm, p.unwrap_or(&Value::None), flags)
}

macro_rules! m_matchlike {
    ($fn:ident, $name:literal, $kind:expr) => {
        fn $fn(vm: &mut Vm, a: Args) -> R<Value> {
            let v = bind(vm, a, $name, &["pattern", "string", "flags"], 2, Style::Py)?;
            let p = pattern_flags(vm, v[0].as_ref(), v[2].as_ref())?;
            let s = v[1].clone().unwrap_or_default();
            do_match(vm, &p, &s, None, None, $kind)
        }
    };
}
m_matchlike!(f_match, "match", Kind::Match);
m_matchlike!(f_search, "search", Kind::Search);
m_matchlike!(f_fullmatch, "fullmatch", Kind::Full);

fn f_compile(vm: &mut Vm, a: Args) -> R<Value> {
    let v = bind(vm, a, "compile", &["pattern", "flags"], 1, Style::Py)?;
    pattern_flags(vm, v[0].as_ref(), v[1].as_ref())
}

fn f_findall(vm: &mut Vm, a: Args) -> R<Value> {
    let v = bind(
        vm,
        a,
        "findall",
        &["pattern", "string", "flags"],
        2,
        Style::Py,
    )?;
    let p = pattern_flags(vm, v[0].as_ref(), v[2].as_ref())?;
    do_findall(vm, &p, v[1].as_ref().unwrap_or(&Value::None), None, None)
}

fn f_finditer(vm: &mut Vm, a: Args) -> R<Value> {
    let v = bind(
        vm,
        a,
        "finditer",
        &["pattern", "string", "flags"],
        2,
        Style::Py,
    )?;
    let p = pattern_flags(vm, v[0].as_ref(), v[2].as_ref())?;
    do_finditer(vm, &p, v[1].as_ref().unwrap_or(&Value::None), None, None)
}

fn f_split(vm: &mut Vm, a: Args) -> R<Value> {
    let names = &["pattern", "string", "maxsplit", "flags"];
    let v = bind(vm, a, "split", names, 2, Style::Py)?;
    let p = pattern_flags(vm, v[0].as_ref(), v[3].as_ref())?;
    do_split(vm, &p, v[1].as_ref().unwrap_or(&Value::None), v[2].as_ref())
}

fn sub_common(vm: &mut Vm, a: Args, name: &str) -> R<(Value, usize)> {
    let names = &["pattern", "repl", "string", "count", "flags"];
    let v = bind(vm, a, name, names, 3, Style::Py)?;
    let p = pattern_flags(vm, v[0].as_ref(), v[4].as_ref())?;
    let none = Value::None;
    do_subn(
        vm,
        &p,
        v[1].as_ref().unwrap_or(&none),
        v[2].as_ref().unwrap_or(&none),
        v[3].as_ref(),
    )
}

fn f_sub(vm: &mut Vm, a: Args) -> R<Value> {
    Ok(sub_common(vm, a, "sub")?.0)
}

fn f_subn(vm: &mut Vm, a: Args) -> R<Value> {
    let (s, n) = sub_common(vm, a, "subn")?;
    Ok(Value::tuple(vec![s, Value::Int(n as i64)]))
}

fn f_escape(vm: &mut Vm, a: Args) -> R<Value> {
    let v = bind(vm, a, "escape", &["pattern"], 1, Style::Py)?;
    let p = Vm::base_of(v[0].as_ref().unwrap_or(&Value::None));
    let (units, text): (Vec<u32>, bool) = match &p {
        Value::Str(s) => (s.s.chars().map(u32::from).collect(), true),
        Value::Bytes(_) | Value::ByteArray(_) => (
            super::bytes_like(&p)
                .unwrap_or_default()
                .into_iter()
                .map(u32::from)
                .collect(),
            false,
        ),
        other => {
            let t = vm.type_name(other);
            return Err(vm.type_err(format!(
                "decoding to str: need a bytes-like object, {t} found"
            )));
        }
    };
    vm.charge(cost::per_char(units.len()))?;
    let out = cowboy_pvm_re::ops::escape(&units);
    value_of(vm, &out, text)
}

fn f_purge(vm: &mut Vm, a: Args) -> R<Value> {
    bind(vm, a, "purge", &[], 0, Style::Py)?;
    Ok(Value::None)
}

// ---- Pattern methods ----

fn p_self(vm: &mut Vm, a: &mut Args, method: &str) -> R<Value> {
    let me = super::receiver(vm, a, "Pattern", method)?;
    pat_of(vm, &me, method)?;
    Ok(me)
}

macro_rules! p_matchlike {
    ($fn:ident, $name:literal, $kind:expr) => {
        fn $fn(vm: &mut Vm, mut a: Args) -> R<Value> {
            let me = p_self(vm, &mut a, $name)?;
            let v = bind(vm, a, $name, &["string", "pos", "endpos"], 1, Style::Clinic)?;
            let s = v[0].clone().unwrap_or_default();
            do_match(vm, &me, &s, v[1].as_ref(), v[2].as_ref(), $kind)
        }
    };
}
p_matchlike!(p_match, "match", Kind::Match);
p_matchlike!(p_search, "search", Kind::Search);
p_matchlike!(p_fullmatch, "fullmatch", Kind::Full);

fn p_findall(vm: &mut Vm, mut a: Args) -> R<Value> {
    let me = p_self(vm, &mut a, "findall")?;
    let v = bind(
        vm,
        a,
        "findall",
        &["string", "pos", "endpos"],
        1,
        Style::Clinic,
    )?;
    let s = v[0].clone().unwrap_or_default();
    do_findall(vm, &me, &s, v[1].as_ref(), v[2].as_ref())
}

fn p_finditer(vm: &mut Vm, mut a: Args) -> R<Value> {
    let me = p_self(vm, &mut a, "finditer")?;
    let v = bind(
        vm,
        a,
        "finditer",
        &["string", "pos", "endpos"],
        1,
        Style::Clinic,
    )?;
    let s = v[0].clone().unwrap_or_default();
    do_finditer(vm, &me, &s, v[1].as_ref(), v[2].as_ref())
}

fn p_split(vm: &mut Vm, mut a: Args) -> R<Value> {
    let me = p_self(vm, &mut a, "split")?;
    let v = bind(vm, a, "split", &["string", "maxsplit"], 1, Style::Clinic)?;
    let s = v[0].clone().unwrap_or_default();
    do_split(vm, &me, &s, v[1].as_ref())
}

fn p_sub_common(vm: &mut Vm, mut a: Args, name: &str) -> R<(Value, usize)> {
    let me = p_self(vm, &mut a, name)?;
    let v = bind(vm, a, name, &["repl", "string", "count"], 2, Style::Clinic)?;
    let none = Value::None;
    do_subn(
        vm,
        &me,
        v[0].as_ref().unwrap_or(&none),
        v[1].as_ref().unwrap_or(&none),
        v[2].as_ref(),
    )
}

fn p_sub(vm: &mut Vm, a: Args) -> R<Value> {
    Ok(p_sub_common(vm, a, "sub")?.0)
}

fn p_subn(vm: &mut Vm, a: Args) -> R<Value> {
    let (s, n) = p_sub_common(vm, a, "subn")?;
    Ok(Value::tuple(vec![s, Value::Int(n as i64)]))
}

/// Flag names in CPython's `pattern_repr` order.
const FLAG_NAMES: &[(u32, &str)] = &[
    (rf::TEMPLATE, "re.TEMPLATE"),
    (rf::IGNORECASE, "re.IGNORECASE"),
    (rf::LOCALE, "re.LOCALE"),
    (rf::MULTILINE, "re.MULTILINE"),
    (rf::DOTALL, "re.DOTALL"),
    (rf::UNICODE, "re.UNICODE"),
    (rf::VERBOSE, "re.VERBOSE"),
    (rf::DEBUG, "re.DEBUG"),
    (rf::ASCII, "re.ASCII"),
];

fn p_repr(vm: &mut Vm, mut a: Args) -> R<Value> {
    let me = p_self(vm, &mut a, "__repr__")?;
    let (regex, pattern) = pat_of(vm, &me, "__repr__")?;
    let r = vm.repr(&pattern)?;
    let r: String = r.chars().take(200).collect();
    let mut flags = regex.flags();
    if regex.is_text() && flags & (rf::LOCALE | rf::UNICODE | rf::ASCII) == rf::UNICODE {
        flags &= !rf::UNICODE;
    }
    let mut out = format!("re.compile({r}");
    if flags != 0 {
        let mut names = Vec::new();
        for (bit, name) in FLAG_NAMES {
            if flags & bit != 0 {
                names.push(name.to_string());
                flags &= !bit;
            }
        }
        if flags != 0 {
            names.push(format!("0x{flags:x}"));
        }
        out.push_str(", ");
        out.push_str(&names.join("|"));
    }
    out.push(')');
    Ok(Value::str(&out))
}

fn p_eq(vm: &mut Vm, mut a: Args) -> R<Value> {
    let me = p_self(vm, &mut a, "__eq__")?;
    let other = a.pos.first().cloned().unwrap_or_default();
    let Some((ro, po)) = state::<Pat>(&other).map(|p| (p.regex.clone(), p.pattern.clone())) else {
        return Ok(Value::NotImplemented);
    };
    let (r, p) = pat_of(vm, &me, "__eq__")?;
    if r.flags() != ro.flags() || r.is_text() != ro.is_text() {
        return Ok(Value::Bool(false));
    }
    Ok(Value::Bool(vm.eq(&p, &po)?))
}

fn p_hash(vm: &mut Vm, mut a: Args) -> R<Value> {
    let me = p_self(vm, &mut a, "__hash__")?;
    let (r, p) = pat_of(vm, &me, "__hash__")?;
    let h = vm.hash(&p)?;
    Ok(Value::Int(((h ^ u64::from(r.flags())) >> 1) as i64))
}

fn p_pattern(vm: &mut Vm, mut a: Args) -> R<Value> {
    let me = p_self(vm, &mut a, "pattern")?;
    Ok(pat_of(vm, &me, "pattern")?.1)
}

fn p_flags(vm: &mut Vm, mut a: Args) -> R<Value> {
    let me = p_self(vm, &mut a, "flags")?;
    Ok(Value::Int(i64::from(pat_of(vm, &me, "flags")?.0.flags())))
}

fn p_groups(vm: &mut Vm, mut a: Args) -> R<Value> {
    let me = p_self(vm, &mut a, "groups")?;
    Ok(Value::Int(pat_of(vm, &me, "groups")?.0.groups() as i64))
}

/// Group names in group-number order.
fn names_in_order(regex: &Regex) -> Vec<(String, usize)> {
    let mut v: Vec<(String, usize)> = regex
        .groupindex()
        .iter()
        .map(|(k, v)| (k.clone(), *v))
        .collect();
    v.sort_by_key(|(_, i)| *i);
    v
}

fn p_groupindex(vm: &mut Vm, mut a: Args) -> R<Value> {
    let me = p_self(vm, &mut a, "groupindex")?;
    let (regex, _) = pat_of(vm, &me, "groupindex")?;
    let d = rc_dict(PyDict::new());
    for (k, i) in names_in_order(&regex) {
        vm.dict_set(&d, Value::str(&k), Value::Int(i as i64))?;
    }
    Ok(Value::Dict(d))
}

fn no_new_pattern(vm: &mut Vm, _a: Args) -> R<Value> {
    Err(vm.type_err("cannot create 're.Pattern' instances"))
}

fn no_new_match(vm: &mut Vm, _a: Args) -> R<Value> {
    Err(vm.type_err("cannot create 're.Match' instances"))
}

fn no_new_iter(vm: &mut Vm, _a: Args) -> R<Value> {
    Err(vm.type_err("cannot create 'callable_iterator' instances"))
}

// ---- Match methods ----

/// What a Match method needs from its receiver.
struct MView {
    regex: Rc<Regex>,
    units: Rc<Vec<u32>>,
    m: Match,
}

fn m_self(vm: &mut Vm, a: &mut Args, method: &str) -> R<(Value, MView)> {
    let me = super::receiver(vm, a, "Match", method)?;
    let v = state::<Mat>(&me).map(|s| MView {
        regex: s.regex.clone(),
        units: s.units.clone(),
        m: s.m.clone(),
    });
    match v {
        Some(v) => Ok((me, v)),
        None => Err(super::wrong_self(vm, &me, "re.Match", method)),
    }
}

/// Resolve a group reference (int or name) to its number.
fn group_index(vm: &mut Vm, mv: &MView, g: &Value) -> R<usize> {
    let idx = match g {
        Value::Int(i) => usize::try_from(*i).ok(),
        Value::Bool(b) => Some(usize::from(*b)),
        Value::Str(s) => mv.regex.groupindex().get(&*s.s).copied(),
        Value::Instance(_) => match Vm::base_of(g) {
            Value::Int(i) => usize::try_from(i).ok(),
            Value::Str(s) => mv.regex.groupindex().get(&*s.s).copied(),
            _ => match vm.call_dunder(g, "__index__", vec![])? {
                Some(Value::Int(i)) => usize::try_from(i).ok(),
                _ => None,
            },
        },
        _ => None,
    };
    match idx {
        Some(i) if i <= mv.regex.groups() => Ok(i),
        _ => Err(vm.new_exc("IndexError", "no such group")),
    }
}

fn m_group(vm: &mut Vm, mut a: Args) -> R<Value> {
    let (_, mv) = m_self(vm, &mut a, "group")?;
    let text = mv.regex.is_text();
    if a.pos.is_empty() {
        return group_value(vm, &mv.units, &mv.m, 0, text);
    }
    let mut out = Vec::with_capacity(a.pos.len());
    for g in &a.pos {
        let i = group_index(vm, &mv, g)?;
        out.push(group_value(vm, &mv.units, &mv.m, i, text)?);
    }
    if out.len() == 1 {
        return Ok(out.remove(0));
    }
    Ok(Value::tuple(out))
}

fn m_getitem(vm: &mut Vm, mut a: Args) -> R<Value> {
    let (_, mv) = m_self(vm, &mut a, "__getitem__")?;
    let g = a.pos.first().cloned().unwrap_or_default();
    let i = group_index(vm, &mv, &g)?;
    group_value(vm, &mv.units, &mv.m, i, mv.regex.is_text())
}

fn m_groups(vm: &mut Vm, mut a: Args) -> R<Value> {
    let (_, mv) = m_self(vm, &mut a, "groups")?;
    let v = bind(vm, a, "groups", &["default"], 0, Style::Clinic)?;
    let default = v[0].clone().unwrap_or_default();
    let mut out = Vec::new();
    for g in 1..=mv.regex.groups() {
        out.push(match mv.m.group(&mv.units, g) {
            Some(u) => value_of(vm, u, mv.regex.is_text())?,
            None => default.clone(),
        });
    }
    Ok(Value::tuple(out))
}

fn m_groupdict(vm: &mut Vm, mut a: Args) -> R<Value> {
    let (_, mv) = m_self(vm, &mut a, "groupdict")?;
    let v = bind(vm, a, "groupdict", &["default"], 0, Style::Clinic)?;
    let default = v[0].clone().unwrap_or_default();
    let d = rc_dict(PyDict::new());
    for (name, g) in names_in_order(&mv.regex) {
        let val = match mv.m.group(&mv.units, g) {
            Some(u) => value_of(vm, u, mv.regex.is_text())?,
            None => default.clone(),
        };
        vm.dict_set(&d, Value::str(&name), val)?;
    }
    Ok(Value::Dict(d))
}

fn span_of(vm: &mut Vm, a: &mut Args, method: &str) -> R<(i64, i64)> {
    let (_, mv) = m_self(vm, a, method)?;
    let v = bind(vm, std::mem::take(a), method, &["group"], 0, Style::Clinic)?;
    let i = match &v[0] {
        Some(g) => group_index(vm, &mv, g)?,
        None => 0,
    };
    Ok(match mv.m.spans.get(i).copied().flatten() {
        Some((s, e)) => (s as i64, e as i64),
        None => (-1, -1),
    })
}

fn m_start(vm: &mut Vm, mut a: Args) -> R<Value> {
    Ok(Value::Int(span_of(vm, &mut a, "start")?.0))
}

fn m_end(vm: &mut Vm, mut a: Args) -> R<Value> {
    Ok(Value::Int(span_of(vm, &mut a, "end")?.1))
}

fn m_span(vm: &mut Vm, mut a: Args) -> R<Value> {
    let (s, e) = span_of(vm, &mut a, "span")?;
    Ok(Value::tuple(vec![Value::Int(s), Value::Int(e)]))
}

fn m_expand(vm: &mut Vm, mut a: Args) -> R<Value> {
    let (_, mv) = m_self(vm, &mut a, "expand")?;
    let v = bind(vm, a, "expand", &["template"], 1, Style::Clinic)?;
    let t = Vm::base_of(v[0].as_ref().unwrap_or(&Value::None));
    let text = mv.regex.is_text();
    let tu: Vec<u32> = match (&t, text) {
        (Value::Str(s), true) => s.s.chars().map(u32::from).collect(),
        (Value::Bytes(b), false) => b.b.iter().map(|&x| u32::from(x)).collect(),
        (other, _) => {
            let tn = vm.type_name(other);
            let want = if text {
                "str instance"
            } else {
                "a bytes-like object"
            };
            return Err(vm.type_err(format!("expected {want}, {tn} found")));
        }
    };
    vm.charge(cost::per_char(tu.len()))?;
    let tpl = match Template::parse(&tu, &mv.regex) {
        Ok(t) => t,
        Err(e) => return Err(compile_err(vm, e, &t, &tu)),
    };
    let out = tpl.expand(&mv.units, &mv.m);
    value_of(vm, &out, text)
}

fn m_repr(vm: &mut Vm, mut a: Args) -> R<Value> {
    let (_, mv) = m_self(vm, &mut a, "__repr__")?;
    let (s, e) = mv.m.span();
    let g = group_value(vm, &mv.units, &mv.m, 0, mv.regex.is_text())?;
    let r = vm.repr(&g)?;
    Ok(Value::str(&format!(
        "<re.Match object; span=({s}, {e}), match={r}>"
    )))
}

fn m_attr(vm: &mut Vm, mut a: Args, name: &str) -> R<Value> {
    let me = super::receiver(vm, &mut a, "Match", name)?;
    let st = state::<Mat>(&me).map(|s| match name {
        "string" => s.string.clone(),
        "re" => s.pattern.clone(),
        "pos" => Value::Int(s.pos as i64),
        "endpos" => Value::Int(s.endpos as i64),
        "lastindex" => s.m.lastindex.map_or(Value::None, |i| Value::Int(i as i64)),
        "lastgroup" => {
            s.m.lastindex
                .and_then(|i| {
                    s.regex
                        .groupindex()
                        .iter()
                        .find(|(_, g)| **g == i)
                        .map(|(k, _)| Value::str(k))
                })
                .unwrap_or_default()
        }
        _ => Value::tuple(
            s.m.spans
                .iter()
                .map(|sp| {
                    let (x, y) = sp.map_or((-1, -1), |(x, y)| (x as i64, y as i64));
                    Value::tuple(vec![Value::Int(x), Value::Int(y)])
                })
                .collect(),
        ),
    });
    match st {
        Some(v) => Ok(v),
        None => Err(super::wrong_self(vm, &me, "re.Match", name)),
    }
}

fn m_string(vm: &mut Vm, a: Args) -> R<Value> {
    m_attr(vm, a, "string")
}
fn m_re(vm: &mut Vm, a: Args) -> R<Value> {
    m_attr(vm, a, "re")
}
fn m_pos(vm: &mut Vm, a: Args) -> R<Value> {
    m_attr(vm, a, "pos")
}
fn m_endpos(vm: &mut Vm, a: Args) -> R<Value> {
    m_attr(vm, a, "endpos")
}
fn m_lastindex(vm: &mut Vm, a: Args) -> R<Value> {
    m_attr(vm, a, "lastindex")
}
fn m_lastgroup(vm: &mut Vm, a: Args) -> R<Value> {
    m_attr(vm, a, "lastgroup")
}
fn m_regs(vm: &mut Vm, a: Args) -> R<Value> {
    m_attr(vm, a, "regs")
}

// ---- finditer iterator ----

fn it_iter(vm: &mut Vm, mut a: Args) -> R<Value> {
    let me = super::receiver(vm, &mut a, "callable_iterator", "__iter__")?;
    Ok(me)
}

fn it_next(vm: &mut Vm, mut a: Args) -> R<Value> {
    let me = super::receiver(vm, &mut a, "callable_iterator", "__next__")?;
    let Some(mut st) = state_mut::<Iter>(&me).map(|s| {
        (
            s.regex.clone(),
            s.units.clone(),
            s.scanner.clone(),
            s.pattern.clone(),
            s.string.clone(),
            s.acct.clone(),
            s.pos,
            s.endpos,
        )
    }) else {
        return Err(super::wrong_self(vm, &me, "callable_iterator", "__next__"));
    };
    let lim = limits(vm);
    let r = st.2.next_match(&st.0, &st.1, &mut Meter(vm), &lim);
    if let Some(mut s) = state_mut::<Iter>(&me) {
        s.scanner = st.2.clone();
    }
    match r.map_err(match_err)? {
        Some(m) => make_match(vm, &st.0, &st.3, &st.4, &st.1, &st.5, m, st.6, st.7),
        None => Err(vm.new_exc_noargs("StopIteration")),
    }
}

/// Load `re`.
pub fn load(vm: &mut Vm, name: &str) -> R<Value> {
    let error = super::exc_class(vm, "re", "error", "Exception")?;
    let pmethods: &[(&str, Body)] = &[
        ("match", p_match),
        ("search", p_search),
        ("fullmatch", p_fullmatch),
        ("findall", p_findall),
        ("finditer", p_finditer),
        ("split", p_split),
        ("sub", p_sub),
        ("subn", p_subn),
        ("__repr__", p_repr),
        ("__eq__", p_eq),
        ("__hash__", p_hash),
    ];
    let pprops: &[(&str, Body)] = &[
        ("pattern", p_pattern),
        ("flags", p_flags),
        ("groups", p_groups),
        ("groupindex", p_groupindex),
    ];
    let pattern = class(
        vm,
        "re",
        "Pattern",
        vec![],
        pmethods,
        pprops,
        Some(no_new_pattern),
    )?;
    let mmethods: &[(&str, Body)] = &[
        ("group", m_group),
        ("__getitem__", m_getitem),
        ("groups", m_groups),
        ("groupdict", m_groupdict),
        ("start", m_start),
        ("end", m_end),
        ("span", m_span),
        ("expand", m_expand),
        ("__repr__", m_repr),
    ];
    let mprops: &[(&str, Body)] = &[
        ("string", m_string),
        ("re", m_re),
        ("pos", m_pos),
        ("endpos", m_endpos),
        ("lastindex", m_lastindex),
        ("lastgroup", m_lastgroup),
        ("regs", m_regs),
    ];
    let matchc = class(
        vm,
        "re",
        "Match",
        vec![],
        mmethods,
        mprops,
        Some(no_new_match),
    )?;
    let imethods: &[(&str, Body)] = &[("__iter__", it_iter), ("__next__", it_next)];
    let iter = class(
        vm,
        "builtins",
        "callable_iterator",
        vec![],
        imethods,
        &[],
        Some(no_new_iter),
    )?;
    vm.native_classes.insert("re.error", error.clone());
    vm.native_classes.insert("re.Pattern", pattern.clone());
    vm.native_classes.insert("re.Match", matchc.clone());
    vm.native_classes.insert("callable_iterator", iter);
    let d = rc_dict(PyDict::new());
    vm.dict_set_str(&d, "__name__", Value::str(name))?;
    vm.dict_set_str(&d, "error", Value::Class(error))?;
    vm.dict_set_str(&d, "Pattern", Value::Class(pattern))?;
    vm.dict_set_str(&d, "Match", Value::Class(matchc))?;
    let fns: &[(&str, Body)] = &[
        ("compile", f_compile),
        ("match", f_match),
        ("search", f_search),
        ("fullmatch", f_fullmatch),
        ("findall", f_findall),
        ("finditer", f_finditer),
        ("split", f_split),
        ("sub", f_sub),
        ("subn", f_subn),
        ("escape", f_escape),
        ("purge", f_purge),
    ];
    for (n, f) in fns {
        vm.dict_set_str(&d, n, builtin(n, *f))?;
    }
    let flags = regex_flag(vm)?;
    vm.dict_set_str(&d, "RegexFlag", flags.clone())?;
    for (n, v) in [
        ("NOFLAG", 0),
        ("I", rf::IGNORECASE),
        ("IGNORECASE", rf::IGNORECASE),
        ("M", rf::MULTILINE),
        ("MULTILINE", rf::MULTILINE),
        ("S", rf::DOTALL),
        ("DOTALL", rf::DOTALL),
        ("X", rf::VERBOSE),
        ("VERBOSE", rf::VERBOSE),
        ("A", rf::ASCII),
        ("ASCII", rf::ASCII),
        ("U", rf::UNICODE),
        ("UNICODE", rf::UNICODE),
    ] {
        // RegexFlag(v) is the member (the engine's values are CPython's).
        let member = vm.call(&flags, Args::new(vec![Value::Int(i64::from(v))]))?;
        vm.dict_set_str(&d, n, member)?;
    }
    Ok(super::module(name, d))
}

/// Build `re.RegexFlag`, an `enum.IntFlag` defined in Python (`re_flags.py`): it runs in a
/// namespace named `re`, so the class and its members report module `re`, as CPython's.
fn regex_flag(vm: &mut Vm) -> R<Value> {
    const SRC: &str = include_str!("re_flags.py");
    let code = crate::code_cache::compile_builtin("re._flags", SRC, "re_flags.py")
        .map_err(|e| vm.new_exc("ImportError", &format!("re flags failed to compile: {e}")))?;
    vm.sources
        .insert("re_flags.py".into(), std::borrow::Cow::Borrowed(SRC));
    let ns = rc_dict(PyDict::new());
    vm.dict_set_str(&ns, "__name__", Value::str("re"))?;
    let mut f = vm.new_frame(code, ns.clone(), None, &[]);
    vm.run_frame(&mut f)?;
    match vm.dict_get_str(&ns, "RegexFlag") {
        Some(c) => Ok(c),
        None => Err(vm.new_exc("ImportError", "re flags did not define RegexFlag")),
    }
}
