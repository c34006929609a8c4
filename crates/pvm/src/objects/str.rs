//! `str` and `bytes` methods. Every method charges per character it reads or writes.

use super::arity::Arity::{self, *};
use crate::cost;
use crate::unicode;
use crate::value::*;
use crate::vm::{Args, Vm, R};
use std::rc::Rc;

methods! {
    /// `str`'s methods. All but the splits and searches charge per char of the receiver first.
    STR, METHODS: Rc<PyStr>;
    listed {
        "upper" => Some(NoArgs), |vm, s, _| mapped(vm, s, unicode::upper);
        "lower" => Some(NoArgs), |vm, s, _| mapped(vm, s, unicode::lower);
        "strip" => Some(Clinic(0, 1)), |vm, s, a| strip(vm, s, a, "strip");
        "lstrip" => Some(Clinic(0, 1)), |vm, s, a| strip(vm, s, a, "lstrip");
        "rstrip" => Some(Clinic(0, 1)), |vm, s, a| strip(vm, s, a, "rstrip");
        "split" => Some(SPLIT), |vm, s, a| split(vm, s, a, "split");
        "rsplit" => Some(SPLIT), |vm, s, a| split(vm, s, a, "rsplit");
        "join" => Some(One), join;
        "replace" => Some(Clinic(2, 3)), replace;
        "startswith" => Some(Tuple(1, 3)), |vm, s, a| search(vm, s, a, "startswith");
        "endswith" => Some(Tuple(1, 3)), |vm, s, a| search(vm, s, a, "endswith");
        "find" => Some(Tuple(1, 3)), |vm, s, a| search(vm, s, a, "find");
        "rfind" => Some(Tuple(1, 3)), |vm, s, a| search(vm, s, a, "rfind");
        "index" => Some(Tuple(1, 3)), |vm, s, a| search(vm, s, a, "index");
        "rindex" => Some(Tuple(1, 3)), |vm, s, a| search(vm, s, a, "rindex");
        "count" => Some(Tuple(1, 3)), |vm, s, a| search(vm, s, a, "count");
        "format" => None, format;
        "format_map" => Some(One), format_map;
        "isdigit" => Some(NoArgs), |vm, s, _| is_all(vm, s, unicode::is_digit);
        "isalpha" => Some(NoArgs), |vm, s, _| is_all(vm, s, unicode::is_alpha);
        "isalnum" => Some(NoArgs), |vm, s, _| is_all(vm, s, unicode::is_alnum);
        "isspace" => Some(NoArgs), |vm, s, _| is_all(vm, s, unicode::is_space);
        "isupper" => Some(NoArgs), |vm, s, _| holds(vm, s, unicode::str_isupper);
        "islower" => Some(NoArgs), |vm, s, _| holds(vm, s, unicode::str_islower);
        "isdecimal" => Some(NoArgs), |vm, s, _| is_all(vm, s, unicode::is_decimal);
        "isnumeric" => Some(NoArgs), |vm, s, _| is_all(vm, s, unicode::is_numeric);
        "isidentifier" => Some(NoArgs), isidentifier;
        "istitle" => Some(NoArgs), |vm, s, _| holds(vm, s, unicode::str_istitle);
        "title" => Some(NoArgs), |vm, s, _| mapped(vm, s, unicode::title);
        "capitalize" => Some(NoArgs), |vm, s, _| mapped(vm, s, unicode::capitalize);
        "swapcase" => Some(NoArgs), |vm, s, _| mapped(vm, s, unicode::swapcase);
        "center" => Some(Clinic(1, 2)), |vm, s, a| padded(vm, s, a, 2);
        "ljust" => Some(Clinic(1, 2)), |vm, s, a| padded(vm, s, a, 0);
        "rjust" => Some(Clinic(1, 2)), |vm, s, a| padded(vm, s, a, 1);
        "zfill" => Some(One), zfill;
        "encode" => Some(Kw {
            posonly: 0,
            minpos: 0,
            maxpos: 2,
            names: &["encoding", "errors"],
        }), encode;
        "splitlines" => Some(Kw {
            posonly: 0,
            minpos: 0,
            maxpos: 1,
            names: &["keepends"],
        }), |vm, s, a| split(vm, s, a, "splitlines");
        "partition" => Some(One), |vm, s, a| partition(vm, s, a, "partition");
        "rpartition" => Some(One), |vm, s, a| partition(vm, s, a, "rpartition");
        "casefold" => Some(NoArgs), |vm, s, _| mapped(vm, s, unicode::casefold);
        "removeprefix" => Some(One), removeprefix;
        "removesuffix" => Some(One), removesuffix;
        "expandtabs" => Some(Kw {
            posonly: 0,
            minpos: 0,
            maxpos: 1,
            names: &["tabsize"],
        }), expandtabs;
        "isascii" => Some(NoArgs), |vm, s, _| on_text(vm, s, |_| Value::Bool(s.ascii));
        "isprintable" => Some(NoArgs), |vm, s, _| is_all_or_empty(vm, s, unicode::is_printable);
        "translate" => Some(One), translate;
    }
    unlisted {}
}

/// Str method `name` on `s`, its arguments already checked (the bytes methods that are the
/// str methods run on their text): a name that is none is paid like one, then AttributeError.
fn call_by_name(vm: &mut Vm, s: &Rc<PyStr>, name: &str, args: Args) -> R<Value> {
    match super::Method::find(STR, name) {
        Some(m) => (m.body)(vm, s, args),
        None => {
            vm.charge(cost::per_char(s.s.len()))?;
            Err(vm.attr_error(&Value::Str(s.clone()), name))
        }
    }
}

/// The convention of `str.split` and `str.rsplit`.
const SPLIT: Arity = Kw {
    posonly: 0,
    minpos: 0,
    maxpos: 2,
    names: &["sep", "maxsplit"],
};

/// Charge per char of the receiver (what every str method but the splits and searches pays
/// first), then make the answer from its text.
fn on_text(vm: &mut Vm, s: &PyStr, f: impl FnOnce(&str) -> Value) -> R<Value> {
    vm.charge(cost::per_char(s.s.len()))?;
    Ok(f(&s.s))
}

/// `str.upper` and its kind: the text `f` makes of the receiver's.
fn mapped(vm: &mut Vm, s: &PyStr, f: fn(&str) -> String) -> R<Value> {
    on_text(vm, s, |t| Value::str(&f(t)))
}

/// `str.isupper` and its kind: whether `f` holds of the receiver's text.
fn holds(vm: &mut Vm, s: &PyStr, f: fn(&str) -> bool) -> R<Value> {
    on_text(vm, s, |t| Value::Bool(f(t)))
}

/// `str.isdigit` and its kind: true for a non-empty text whose every char passes `pred`.
fn is_all(vm: &mut Vm, s: &PyStr, pred: fn(char) -> bool) -> R<Value> {
    on_text(vm, s, |t| Value::Bool(!t.is_empty() && t.chars().all(pred)))
}

/// `str.isprintable`: true when every char passes `pred` (the empty text too).
fn is_all_or_empty(vm: &mut Vm, s: &PyStr, pred: fn(char) -> bool) -> R<Value> {
    on_text(vm, s, |t| Value::Bool(t.chars().all(pred)))
}

/// `str.split`, `str.rsplit`, `str.splitlines` (`name`): `objects::split`.
fn split(vm: &mut Vm, s: &Rc<PyStr>, args: Args, name: &str) -> R<Value> {
    super::split::call(vm, &Value::Str(s.clone()), name, &args)
}

/// `str.find` and the other searches (`name`): `objects::search`.
fn search(vm: &mut Vm, s: &Rc<PyStr>, args: Args, name: &str) -> R<Value> {
    let pos = super::search::positions(vm, &args)?;
    super::search::call(vm, super::search::Hay::Str(s), name, &args, pos)
}

/// `str.ljust`, `str.rjust`, `str.center` (`how` 0, 1, 2).
fn padded(vm: &mut Vm, s: &Rc<PyStr>, args: Args, how: u8) -> R<Value> {
    vm.charge(cost::per_char(s.s.len()))?;
    pad(vm, s, &args, how)
}

/// `str.format(*args, **kwargs)`.
fn format(vm: &mut Vm, s: &Rc<PyStr>, args: Args) -> R<Value> {
    vm.charge(cost::per_char(s.s.len()))?;
    Ok(Value::str(&crate::format::str_format(vm, &s.s, &args)?))
}

fn arg_str(vm: &mut Vm, v: Option<&Value>, what: &str) -> R<Option<String>> {
    match v {
        None | Some(Value::None) => Ok(None),
        Some(Value::Str(s)) => Ok(Some(s.s.to_string())),
        // CPython's two spellings: split/rsplit name the type, the strip family does not.
        Some(o) if what == "sep" => {
            Err(vm.type_err(format!("must be str or None, not {}", vm.type_name(o))))
        }
        Some(_) => Err(vm.type_err(format!("{what} arg must be None or str"))),
    }
}

fn need_str(vm: &mut Vm, v: Option<&Value>, m: &str) -> R<Rc<PyStr>> {
    match v {
        Some(Value::Str(s)) => Ok(s.clone()),
        // CPython's argument-clinic message names None itself rather than its type.
        Some(o) => {
            let tn = match o {
                Value::None if m.starts_with("re") => "None".to_string(),
                o => vm.type_name(o),
            };
            // CPython spells this per method: the search methods and partition say only
            // "must be str", removeprefix/removesuffix name themselves, replace its argument.
            Err(vm.type_err(match m {
                "removeprefix" | "removesuffix" => format!("{m}() argument must be str, not {tn}"),
                "replace" => format!("replace() argument 1 must be str, not {tn}"),
                "replace2" => format!("replace() argument 2 must be str, not {tn}"),
                _ => format!("must be str, not {tn}"),
            }))
        }
        None => Err(vm.type_err(format!("{m}() takes at least 1 argument (0 given)"))),
    }
}

fn pad(vm: &mut Vm, s: &PyStr, args: &Args, how: u8) -> R<Value> {
    let w = match args.pos.first() {
        Some(v) => vm.index_of(v)?,
        None => {
            let m = ["ljust", "rjust", "center"][usize::from(how.min(2))];
            return Err(vm.type_err(format!("{m} expected at least 1 argument, got 0")));
        }
    };
    let fill = match args.pos.get(1) {
        Some(Value::Str(f)) if f.len == 1 => f.s.chars().next().unwrap_or(' '),
        Some(Value::Str(_)) => {
            return Err(vm.type_err("The fill character must be exactly one character long"))
        }
        Some(o) => {
            let tn = vm.type_name(o);
            return Err(vm.type_err(format!(
                "The fill character must be a unicode character, not {tn}"
            )));
        }
        None => ' ',
    };
    let w = w.max(0) as usize;
    if w <= s.len {
        return Ok(Value::Str(Rc::new(PyStr::new(&s.s))));
    }
    vm.charge(cost::per_char(w))?;
    vm.reserve(w as u64 * 4)?;
    let total = w - s.len;
    let (l, r) = match how {
        0 => (0, total),
        1 => (total, 0),
        _ => {
            let l = total / 2 + (total & w & 1);
            (l, total - l)
        }
    };
    let mut out = String::new();
    out.extend(std::iter::repeat_n(fill, l));
    out.push_str(&s.s);
    out.extend(std::iter::repeat_n(fill, r));
    Ok(Value::str(&out))
}

/// `str.strip`, `str.lstrip`, `str.rstrip`.
fn strip(vm: &mut Vm, s: &Rc<PyStr>, args: Args, name: &str) -> R<Value> {
    vm.charge(cost::per_char(s.s.len()))?;
    let a0 = args.pos.first();
    let text = &*s.s;
    // `chars` becomes a sorted set, paid per char: each char stripped is then one
    // lookup, where a scan of `chars` made `"a" * n` stripped by a long `chars` cost
    // n scans for n cycles (4,300x the plain loop per cycle).
    if let Some(Value::Str(cs)) = a0 {
        vm.charge(cost::per_char(cs.s.len()))?;
    }
    let chars = arg_str(vm, a0, name)?.map(|cs| {
        let mut set: Vec<char> = cs.chars().collect();
        set.sort_unstable();
        set.dedup();
        set
    });
    let pred = |c: char| match &chars {
        Some(cs) => cs.binary_search(&c).is_ok(),
        None => crate::unicode::is_space(c),
    };
    Ok(Value::str(match name {
        "strip" => text.trim_matches(pred),
        "lstrip" => text.trim_start_matches(pred),
        _ => text.trim_end_matches(pred),
    }))
}

/// `str.join`.
fn join(vm: &mut Vm, s: &Rc<PyStr>, args: Args) -> R<Value> {
    vm.charge(cost::per_char(s.s.len()))?;
    let a0 = args.pos.first();
    let text = &*s.s;
    let it = a0.unwrap_or(&Value::None);
    let items = match vm.collect(it) {
        Ok(items) => items,
        Err(e) if vm.exc_is(&e, "TypeError") && vm.not_iterable(it) => {
            return Err(vm.type_err("can only join an iterable"))
        }
        Err(e) => return Err(e),
    };
    let mut total = 0usize;
    for (i, x) in items.iter().enumerate() {
        match x {
            Value::Str(p) => total += p.s.len(),
            o => {
                return Err(vm.type_err(format!(
                    "sequence item {i}: expected str instance, {} found",
                    vm.type_name(o)
                )));
            }
        }
    }
    total += text.len() * items.len().saturating_sub(1);
    vm.charge(cost::per_char(total).saturating_add(cost::per_elem(items.len())))?;
    vm.reserve(total as u64)?;
    let mut out = String::with_capacity(total);
    for (i, x) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(text);
        }
        if let Value::Str(p) = x {
            out.push_str(&p.s);
        }
    }
    Ok(Value::str(&out))
}

/// `str.replace`.
fn replace(vm: &mut Vm, s: &Rc<PyStr>, args: Args) -> R<Value> {
    vm.charge(cost::per_char(s.s.len()))?;
    let a0 = args.pos.first();
    let text = &*s.s;
    if args.pos.len() < 2 {
        return Err(vm.type_err(format!(
            "replace expected at least 2 arguments, got {}",
            args.pos.len()
        )));
    }
    let old = need_str(vm, a0, "replace")?;
    let new = need_str(vm, args.pos.get(1), "replace2")?;
    let count = match args.pos.get(2) {
        Some(v) => vm.index_of(v)?,
        None => -1,
    };
    // The search prepares `old` whole before it looks (a 1 MB `old` in a 1-char
    // string did not finish 2M cycles in a minute): paid by its length.
    vm.charge(cost::per_char(old.s.len()))?;
    let n = if old.s.is_empty() {
        s.len + 1
    } else {
        text.matches(&*old.s).count()
    };
    let est = text.len() + n * new.s.len();
    vm.charge(cost::per_char(est))?;
    vm.reserve(est as u64)?;
    Ok(if count < 0 {
        Value::str(&text.replace(&*old.s, &new.s))
    } else {
        Value::str(&text.replacen(&*old.s, &new.s, count as usize))
    })
}

/// `str.format_map`.
fn format_map(vm: &mut Vm, s: &Rc<PyStr>, args: Args) -> R<Value> {
    vm.charge(cost::per_char(s.s.len()))?;
    let text = &*s.s;
    if args.pos.len() != 1 || !args.kw.is_empty() {
        let n = args.pos.len() + args.kw.len();
        return Err(vm.type_err(format!(
            "str.format_map() takes exactly one argument ({n} given)"
        )));
    }
    let mapping = args.pos[0].clone();
    Ok(Value::str(&crate::format::str_format_map(
        vm, text, &mapping,
    )?))
}

/// `str.isidentifier`.
fn isidentifier(vm: &mut Vm, s: &Rc<PyStr>, _args: Args) -> R<Value> {
    vm.charge(cost::per_char(s.s.len()))?;
    let text = &*s.s;
    let mut cs = text.chars();
    Ok(Value::Bool(
        cs.next().is_some_and(crate::unicode::is_id_start)
            && cs.all(crate::unicode::is_id_continue),
    ))
}

/// `str.zfill`.
fn zfill(vm: &mut Vm, s: &Rc<PyStr>, args: Args) -> R<Value> {
    vm.charge(cost::per_char(s.s.len()))?;
    let a0 = args.pos.first();
    let text = &*s.s;
    let w = vm.index_of(a0.unwrap_or(&Value::Int(0)))?.max(0) as usize;
    Ok(if w <= s.len {
        Value::str(text)
    } else {
        vm.charge(cost::per_char(w))?;
        vm.reserve(w as u64)?;
        let (sign, rest) = match text.chars().next() {
            Some(c @ ('+' | '-')) => (c.to_string(), &text[1..]),
            _ => (String::new(), text),
        };
        Value::str(&format!("{}{}{}", sign, "0".repeat(w - s.len), rest))
    })
}

/// The `encoding` and `errors` arguments of `str.encode` and `bytes.decode` (`fname`), by
/// position or keyword, with their defaults and CPython's messages for a non-str.
fn codec_args(vm: &mut Vm, args: &Args, fname: &str) -> R<(String, String)> {
    let mut a = args.clone();
    let encoding = a.pos.first().cloned().or_else(|| a.take_kw("encoding"));
    let errors = a.pos.get(1).cloned().or_else(|| a.take_kw("errors"));
    let mut text = |v: Option<Value>, param: &str, default: &str| match v {
        None => Ok(default.to_string()),
        Some(Value::Str(e)) => Ok(e.s.to_string()),
        Some(v) => {
            let tn = super::clinic_type_name(vm, &v);
            Err(vm.type_err(format!(
                "{fname}() argument '{param}' must be str, not {tn}"
            )))
        }
    };
    let encoding = text(encoding, "encoding", "utf-8")?;
    let errors = text(errors, "errors", "strict")?;
    Ok((encoding, errors))
}

/// `str.encode`.
fn encode(vm: &mut Vm, s: &Rc<PyStr>, args: Args) -> R<Value> {
    vm.charge(cost::per_char(s.s.len()))?;
    let text = &*s.s;
    vm.charge(cost::CODEC)?;
    let (encoding, errors) = codec_args(vm, &args, "encode")?;
    let bytes = crate::codec::encode(text, &encoding, &errors).map_err(|e| vm.codec_error(e))?;
    Ok(Value::bytes(bytes))
}

/// `str.partition`, `str.rpartition`.
fn partition(vm: &mut Vm, s: &Rc<PyStr>, args: Args, name: &str) -> R<Value> {
    vm.charge(cost::per_char(s.s.len()))?;
    let a0 = args.pos.first();
    let text = &*s.s;
    let sep = need_str(vm, a0, name)?;
    if sep.s.is_empty() {
        return Err(vm.value_err("empty separator"));
    }
    // The search prepares `sep` whole, as replace's does: paid by its length.
    vm.charge(cost::per_char(sep.s.len()))?;
    let pos = if name == "partition" {
        text.find(&*sep.s)
    } else {
        text.rfind(&*sep.s)
    };
    Ok(match pos {
        Some(p) => Value::tuple(vec![
            Value::str(&text[..p]),
            Value::Str(sep.clone()),
            Value::str(&text[p + sep.s.len()..]),
        ]),
        None if name == "partition" => {
            Value::tuple(vec![Value::str(text), Value::str(""), Value::str("")])
        }
        None => Value::tuple(vec![Value::str(""), Value::str(""), Value::str(text)]),
    })
}

/// `str.removeprefix`.
fn removeprefix(vm: &mut Vm, s: &Rc<PyStr>, args: Args) -> R<Value> {
    vm.charge(cost::per_char(s.s.len()))?;
    let a0 = args.pos.first();
    let text = &*s.s;
    let p = need_str(vm, a0, "removeprefix")?;
    Ok(Value::str(text.strip_prefix(&*p.s).unwrap_or(text)))
}

/// `str.removesuffix`.
fn removesuffix(vm: &mut Vm, s: &Rc<PyStr>, args: Args) -> R<Value> {
    vm.charge(cost::per_char(s.s.len()))?;
    let a0 = args.pos.first();
    let text = &*s.s;
    let p = need_str(vm, a0, "removesuffix")?;
    Ok(Value::str(text.strip_suffix(&*p.s).unwrap_or(text)))
}

/// `str.expandtabs`.
fn expandtabs(vm: &mut Vm, s: &Rc<PyStr>, args: Args) -> R<Value> {
    vm.charge(cost::per_char(s.s.len()))?;
    let a0 = args.pos.first();
    let text = &*s.s;
    let ts = match a0 {
        Some(v) => vm.index_of(v)?.max(0) as usize,
        None => 8,
    };
    // The output can be far longer than the input (one tab, a tab size of a
    // million): a first pass over the input (already paid per char) sizes it, and
    // the output is charged and reserved per char before it is built.
    let mut len = 0usize;
    let mut col = 0usize;
    for c in text.chars() {
        match c {
            '\t' if ts > 0 => {
                let n = ts - col % ts;
                len = len.saturating_add(n);
                col = col.saturating_add(n);
            }
            '\t' => {}
            '\n' | '\r' => {
                len += 1;
                col = 0;
            }
            _ => {
                len = len.saturating_add(c.len_utf8());
                col = col.saturating_add(1);
            }
        }
    }
    vm.charge(cost::per_char(len))?;
    vm.reserve(len as u64)?;
    let mut out = String::with_capacity(len);
    let mut col = 0;
    for c in text.chars() {
        match c {
            '\t' => {
                if ts > 0 {
                    let n = ts - col % ts;
                    out.extend(std::iter::repeat_n(' ', n));
                    col += n;
                }
            }
            '\n' | '\r' => {
                out.push(c);
                col = 0;
            }
            _ => {
                out.push(c);
                col += 1;
            }
        }
    }
    Ok(Value::str(&out))
}

/// `str.translate`.
fn translate(vm: &mut Vm, s: &Rc<PyStr>, args: Args) -> R<Value> {
    vm.charge(cost::per_char(s.s.len()))?;
    let a0 = args.pos.first();
    let text = &*s.s;
    let table = a0.cloned().unwrap_or_default();
    // The output is built as UTF-8 bytes (a byte push per ASCII char, where
    // `String::push` is a call that encodes); only whole chars and whole strs are
    // appended, so it is always valid text.
    let mut out: Vec<u8> = Vec::with_capacity(text.len());
    let push = |out: &mut Vec<u8>, ch: char| {
        if ch.is_ascii() {
            out.push(ch as u8);
        } else {
            out.extend_from_slice(ch.encode_utf8(&mut [0; 4]).as_bytes());
        }
    };
    // A dict table is looked up directly (a charged table lookup per char, its
    // ASCII answers remembered for the call: `TranslateMemo`); any other table is
    // subscripted, and each miss pays for the LookupError it raised.
    let dict = match &table {
        Value::Dict(d) => Some(d.clone()),
        _ => None,
    };
    let mut memo = TranslateMemo::default();
    let bytes = text.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        // A run of ASCII chars whose answers are remembered chars or deletions is applied in
        // one pass: each charged what its lookup charged, summed and charged at the run's end,
        // the run stopping before the char the budget cannot afford (which then takes the
        // path below, as it always did). Nothing in the run owes work or allocates accounted
        // memory, so `attention` cannot rise within it.
        // The run reads the memo's byte table (`TranslateMemo::code`): an ASCII answer or a
        // deletion continues it; anything else (not remembered, a str, a non-ASCII char)
        // ends it and takes the path below.
        if dict.is_some() && !memo.ascii.is_empty() && !crate::memory::attention() {
            let left = vm.cycles_left();
            let mut run = 0u64;
            while let Some(&b) = bytes.get(at) {
                let Some(&code) = memo.code.get(usize::from(b)) else {
                    break;
                };
                let next = run.saturating_add(memo.cost[usize::from(b)]);
                if code == CODE_STOP || next > left {
                    break;
                }
                run = next;
                if code != CODE_DELETE {
                    out.push(code);
                }
                at += 1;
            }
            vm.charge(run)?;
            if at == bytes.len() {
                break;
            }
        }
        let Some(c) = text[at..].chars().next() else {
            break;
        };
        at += c.len_utf8();
        // A remembered ASCII answer is applied without building the key or the
        // answer again, and charged what its lookup charged; it is used only when
        // no owed work is pending (a real lookup would settle it, in its place) and
        // the budget affords it (else the real lookup stops where it always stopped).
        if dict.is_some() && c.is_ascii() && !crate::memory::attention() {
            if let Some(Some((m, cycles))) = memo.ascii.get(c as usize) {
                if *cycles <= vm.cycles_left() {
                    vm.charge(*cycles)?;
                    match m {
                        Mapped::Char(ch) => push(&mut out, *ch),
                        Mapped::Delete => {}
                        Mapped::Str(x) => {
                            vm.charge(cost::per_char(x.s.len()))?;
                            vm.reserve((out.len() + x.s.len()) as u64)?;
                            out.extend_from_slice(x.s.as_bytes());
                        }
                    }
                    continue;
                }
            }
        }
        let k = Value::Int(c as i64);
        let r = match &dict {
            Some(d) => memo.lookup(vm, d, c)?,
            None => match vm.getitem(&table, &k) {
                Ok(v) => Some(v),
                Err(e) if vm.exc_is(&e, "LookupError") => {
                    vm.charge(cost::RAISE)?;
                    None
                }
                Err(e) => return Err(e),
            },
        };
        match r {
            None => push(&mut out, c),
            Some(Value::None) => {}
            Some(Value::Int(i)) => match u32::try_from(i).ok().and_then(char::from_u32) {
                Some(ch) => push(&mut out, ch),
                None => return Err(vm.value_err("character mapping must be in range(0x110000)")),
            },
            Some(Value::Str(x)) => {
                // A replacement may be long: pay for it and check memory before the copy.
                vm.charge(cost::per_char(x.s.len()))?;
                vm.reserve((out.len() + x.s.len()) as u64)?;
                out.extend_from_slice(x.s.as_bytes());
            }
            Some(_) => {
                return Err(vm.type_err("character mapping must return integer, None or str"))
            }
        }
    }
    match std::str::from_utf8(&out) {
        Ok(text) => Ok(Value::str(text)),
        // Unreachable: only whole chars and strs were appended.
        Err(_) => Err(vm.value_err("str.translate built invalid UTF-8")),
    }
}

/// The answers of one `str.translate` call's dict table for the ASCII chars it has looked up
/// (CPython's translate keeps the same per-call table, `unicode_fast_translate`), so a long
/// text maps each char by an array read instead of a hash-table lookup.
///
/// A remembered answer costs exactly what its lookup cost: the first lookup of a char records
/// the cycles it charged, and every later use charges them again, so cycles are those of a
/// lookup per char, as without the memo. Nothing can change the table between two uses within
/// the call (no Python code runs in between), so the lookup would answer and charge the same.
/// A lookup is remembered only when its cost is exactly its own: no debt owed from earlier
/// work was settled in it (`memory::attention` was down before it) and it ran no Python
/// instruction (a colliding key's `__eq__`). A use the budget cannot afford takes the real
/// lookup, which stops where it always stopped, and so does one with owed work pending, which
/// the lookup would have settled.
struct TranslateMemo {
    /// Per ASCII char: what its lookup answered, as the output it makes, and the cycles the
    /// lookup charged. `None` until looked up, or when the answer is not remembered (see
    /// [`TranslateMemo::lookup`]).
    ascii: Vec<Option<(Mapped, u64)>>,
    /// The same answers as bytes, for the runs of ASCII output: the ASCII char made,
    /// [`CODE_DELETE`], or [`CODE_STOP`] (not remembered, or an answer a byte cannot hold);
    /// `cost` holds the cycles beside them.
    code: [u8; 128],
    cost: [u64; 128],
}

impl Default for TranslateMemo {
    fn default() -> Self {
        TranslateMemo {
            ascii: Vec::new(),
            code: [CODE_STOP; 128],
            cost: [0; 128],
        }
    }
}

/// [`TranslateMemo::code`] of a char its table deletes.
const CODE_DELETE: u8 = 0x80;
/// [`TranslateMemo::code`] of a char whose answer the byte table does not hold.
const CODE_STOP: u8 = 0xFF;

/// What a remembered lookup makes of its char. Only answers that cannot fail are remembered
/// (no key: the char itself; None; an int that is a char; a str), so applying one needs no
/// error path: an int out of range or a value of another type raises at its first (real)
/// lookup, which ends the call.
#[derive(Clone)]
enum Mapped {
    Char(char),
    Delete,
    Str(Rc<PyStr>),
}

impl TranslateMemo {
    /// The real lookup of `c` in `d`, remembering an ASCII char's answer and its cost when
    /// the cost is exactly the lookup's own.
    fn lookup(&mut self, vm: &mut Vm, d: &PyDict, c: char) -> R<Option<Value>> {
        let key = Value::Int(c as i64);
        if !c.is_ascii() {
            return vm.dict_get(d, &key);
        }
        if self.ascii.is_empty() {
            self.ascii.resize(128, None);
        }
        // Owed work pending (attention up) is settled by a real lookup, in its place.
        let own_cost = !crate::memory::attention();
        let (cycles, instructions) = (vm.cycles(), vm.instructions);
        let answer = vm.dict_get(d, &key)?;
        if own_cost && vm.instructions == instructions {
            let mapped = match &answer {
                None => Some(Mapped::Char(c)),
                Some(Value::None) => Some(Mapped::Delete),
                Some(Value::Int(i)) => u32::try_from(*i)
                    .ok()
                    .and_then(char::from_u32)
                    .map(Mapped::Char),
                Some(Value::Str(x)) => Some(Mapped::Str(x.clone())),
                Some(_) => None,
            };
            let cost = vm.cycles() - cycles;
            self.code[c as usize] = match &mapped {
                Some(Mapped::Char(ch)) if ch.is_ascii() => *ch as u8,
                Some(Mapped::Delete) => CODE_DELETE,
                _ => CODE_STOP,
            };
            self.cost[c as usize] = cost;
            self.ascii[c as usize] = mapped.map(|m| (m, cost));
        }
        Ok(answer)
    }
}

/// `str.maketrans(x[, y[, z]])`.
pub fn maketrans(vm: &mut Vm, args: &Args) -> R<Value> {
    let d = crate::value::rc_dict(PyDict::new());
    match args.pos.as_slice() {
        [Value::Dict(src)] => {
            let items: Vec<Entry> = src.table.borrow().iter().cloned().collect();
            for e in items {
                let k = match &e.key {
                    Value::Str(s) if s.len == 1 => {
                        Value::Int(s.s.chars().next().map(|c| c as i64).unwrap_or(0))
                    }
                    Value::Int(i) => Value::Int(*i),
                    _ => {
                        return Err(
                            vm.value_err("string keys in translate table must be of length 1")
                        )
                    }
                };
                vm.dict_set(&d, k, e.value.clone())?;
            }
        }
        [Value::Str(x), Value::Str(y), rest @ ..] => {
            if x.len != y.len {
                return Err(
                    vm.value_err("the first two maketrans arguments must have equal length")
                );
            }
            for (a, b) in x.s.chars().zip(y.s.chars()) {
                vm.dict_set(&d, Value::Int(a as i64), Value::Int(b as i64))?;
            }
            if let Some(Value::Str(z)) = rest.first() {
                for c in z.s.chars() {
                    vm.dict_set(&d, Value::Int(c as i64), Value::None)?;
                }
            }
        }
        [_] => {
            return Err(vm.type_err("if you give only one argument to maketrans it must be a dict"))
        }
        [x, y, rest @ ..] => {
            // The clinic converts `y` and `z` (typed str) before the body looks at `x`.
            let bad = [y].into_iter().chain(rest.first()).enumerate();
            if let Some((i, v)) = bad.into_iter().find(|(_, v)| !matches!(v, Value::Str(_))) {
                let tn = super::clinic_type_name(vm, v);
                return Err(vm.type_err(format!(
                    "maketrans() argument {} must be str, not {tn}",
                    i + 2
                )));
            }
            let _ = x;
            return Err(vm.type_err(
                "first maketrans argument must be a string if there is a second argument",
            ));
        }
        [] => return Err(vm.type_err("maketrans() takes at least 1 argument (0 given)")),
    }
    Ok(Value::Dict(d))
}

methods! {
    /// `bytes`' methods. All but the splits and searches charge per byte of the receiver
    /// first; those without a body of their own run the str method on the bytes' text
    /// ([`via_str`]).
    BYTES, BYTES_METHODS: Rc<PyBytes>;
    listed {
        "decode" => Some(Kw {
            posonly: 0,
            minpos: 0,
            maxpos: 2,
            names: &["encoding", "errors"],
        }), decode;
        // An alternate constructor: `call_method` binds it to the class before this table is
        // read (`objects::types::class_attr`); the row gives its convention.
        "hex" => Some(Kw {
            posonly: 0,
            minpos: 0,
            maxpos: 2,
            names: &["sep", "bytes_per_sep"],
        }), hex;
        "startswith" => Some(Tuple(1, 3)), |vm, b, a| bytes_search(vm, b, a, "startswith");
        "endswith" => Some(Tuple(1, 3)), |vm, b, a| bytes_search(vm, b, a, "endswith");
        "count" => Some(Tuple(1, 3)), |vm, b, a| bytes_search(vm, b, a, "count");
        "find" => Some(Tuple(1, 3)), |vm, b, a| bytes_search(vm, b, a, "find");
        "rfind" => Some(Tuple(1, 3)), |vm, b, a| bytes_search(vm, b, a, "rfind");
        "index" => Some(Tuple(1, 3)), |vm, b, a| bytes_search(vm, b, a, "index");
        "rindex" => Some(Tuple(1, 3)), |vm, b, a| bytes_search(vm, b, a, "rindex");
        "strip" => Some(Clinic(0, 1)), |vm, b, a| via_str(vm, b, a, "strip");
        "lstrip" => Some(Clinic(0, 1)), |vm, b, a| via_str(vm, b, a, "lstrip");
        "rstrip" => Some(Clinic(0, 1)), |vm, b, a| via_str(vm, b, a, "rstrip");
        "split" => Some(SPLIT), |vm, b, a| bytes_split(vm, b, a, "split");
        "rsplit" => Some(SPLIT), |vm, b, a| bytes_split(vm, b, a, "rsplit");
        "join" => Some(One), join_bytes;
        "replace" => Some(Clinic(2, 3)), |vm, b, a| via_str(vm, b, a, "replace");
        "upper" => Some(NoArgs), |vm, b, a| via_str(vm, b, a, "upper");
        "lower" => Some(NoArgs), |vm, b, a| via_str(vm, b, a, "lower");
        "isdigit" => Some(NoArgs), |vm, b, a| via_str(vm, b, a, "isdigit");
        "isalpha" => Some(NoArgs), |vm, b, a| via_str(vm, b, a, "isalpha");
        "isalnum" => Some(NoArgs), |vm, b, a| via_str(vm, b, a, "isalnum");
        "isspace" => Some(NoArgs), |vm, b, a| via_str(vm, b, a, "isspace");
        "partition" => Some(One), |vm, b, a| via_str(vm, b, a, "partition");
        "rpartition" => Some(One), |vm, b, a| via_str(vm, b, a, "rpartition");
        "removeprefix" => Some(One), |vm, b, a| via_str(vm, b, a, "removeprefix");
        "removesuffix" => Some(One), |vm, b, a| via_str(vm, b, a, "removesuffix");
        "ljust" => Some(Clinic(1, 2)), |vm, b, a| via_str(vm, b, a, "ljust");
        "rjust" => Some(Clinic(1, 2)), |vm, b, a| via_str(vm, b, a, "rjust");
        "center" => Some(Clinic(1, 2)), |vm, b, a| via_str(vm, b, a, "center");
        "zfill" => Some(One), |vm, b, a| via_str(vm, b, a, "zfill");
        "title" => Some(NoArgs), |vm, b, a| via_str(vm, b, a, "title");
        "capitalize" => Some(NoArgs), |vm, b, a| via_str(vm, b, a, "capitalize");
        "swapcase" => Some(NoArgs), |vm, b, a| via_str(vm, b, a, "swapcase");
        "splitlines" => Some(Kw {
            posonly: 0,
            minpos: 0,
            maxpos: 1,
            names: &["keepends"],
        }), |vm, b, a| bytes_split(vm, b, a, "splitlines");
        "isascii" => Some(NoArgs), |vm, b, _| {
            vm.charge(cost::per_char(b.b.len()))?;
            Ok(Value::Bool(b.b.is_ascii()))
        };
        "islower" => Some(NoArgs), |vm, b, a| via_str(vm, b, a, "islower");
        "isupper" => Some(NoArgs), |vm, b, a| via_str(vm, b, a, "isupper");
        "istitle" => Some(NoArgs), |vm, b, a| via_str(vm, b, a, "istitle");
        "expandtabs" => Some(Kw {
            posonly: 0,
            minpos: 0,
            maxpos: 1,
            names: &["tabsize"],
        }), |vm, b, a| via_str(vm, b, a, "expandtabs");
        "translate" => Some(Kw {
            posonly: 1,
            minpos: 1,
            maxpos: 2,
            names: &["delete"],
        }), |vm, b, a| {
            vm.charge(cost::per_char(b.b.len()))?;
            bytes_translate(vm, &b.b, a)
        };
    }
    unlisted {}
}

/// The char a byte stands for when a bytes method runs as the str method of the same name.
/// Bytes have ASCII semantics: bytes 0x80-0xff and the separators 0x1c-0x1f (which str
/// counts as whitespace and line breaks, bytes do not) become private-use chars U+E000 + b,
/// which are uncased, not alphanumeric, not whitespace and not ASCII, so `isalpha`, `upper`,
/// `title`, `split()`, `strip()`, ... treat them as CPython's bytes methods do.
fn byte_char(x: u8) -> char {
    if x >= 0x80 || (0x1c..=0x1f).contains(&x) {
        char::from_u32(0xE000 + u32::from(x)).unwrap_or('\u{FFFD}')
    } else {
        x as char
    }
}

/// The byte a char produced by a str method stands for (inverse of [`byte_char`]).
fn char_byte(c: char) -> u8 {
    let u = u32::from(c);
    if (0xE000..=0xE0FF).contains(&u) {
        (u - 0xE000) as u8
    } else {
        u as u8
    }
}

fn byte_text(b: &[u8]) -> String {
    b.iter().map(|&x| byte_char(x)).collect()
}

fn to_bytes_val(v: Value) -> Value {
    match v {
        Value::Str(s) => Value::bytes(s.s.chars().map(char_byte).collect()),
        Value::List(l) => {
            let items: Vec<Value> = l.items.borrow().iter().cloned().map(to_bytes_val).collect();
            Value::list(items)
        }
        Value::Tuple(t) => Value::tuple(t.items.iter().cloned().map(to_bytes_val).collect()),
        other => other,
    }
}

fn arg_to_text(v: &Value) -> Value {
    match v {
        Value::Tuple(t) => Value::tuple(t.items.iter().map(bytes_to_text).collect()),
        Value::List(l) => Value::list(l.items.borrow().iter().map(bytes_to_text).collect()),
        other => bytes_to_text(other),
    }
}

/// One bytes-like value as the text a str method reads (others unchanged).
fn bytes_to_text(v: &Value) -> Value {
    match v {
        Value::Bytes(b) => Value::str(&byte_text(&b.b)),
        Value::ByteArray(b) => Value::str(&byte_text(&b.b.borrow())),
        other => other.clone(),
    }
}

/// What [`arg_to_text`] reads of `v`: its bytes, and a tuple's or list's items with theirs.
fn arg_to_text_work(v: &Value) -> u64 {
    let bytes = |v: &Value| match v {
        Value::Bytes(x) => cost::per_char(x.b.len()),
        Value::ByteArray(x) => cost::per_char(x.b.borrow().len()),
        _ => 0,
    };
    match v {
        Value::Tuple(t) => cost::per_elem(t.items.len()) + t.items.iter().map(bytes).sum::<u64>(),
        Value::List(l) => {
            let items = l.items.borrow();
            cost::per_elem(items.len()) + items.iter().map(bytes).sum::<u64>()
        }
        other => bytes(other),
    }
}

/// A byte-like argument of `maketrans`/`translate`.
fn bytes_arg(vm: &mut Vm, v: &Value) -> R<Vec<u8>> {
    match v {
        Value::Bytes(b) => Ok(b.b.to_vec()),
        Value::ByteArray(b) => Ok(b.b.borrow().clone()),
        _ => {
            let msg = format!("a bytes-like object is required, not '{}'", vm.type_name(v));
            Err(vm.type_err(msg))
        }
    }
}

/// `bytes.maketrans(from, to)` (a static method): the 256-byte translation table.
pub fn bytes_maketrans(vm: &mut Vm, args: &Args) -> R<Value> {
    if args.pos.len() != 2 {
        return Err(vm.type_err(format!(
            "maketrans expected 2 arguments, got {}",
            args.pos.len()
        )));
    }
    let from = bytes_arg(vm, &args.pos[0])?;
    let to = bytes_arg(vm, &args.pos[1])?;
    if from.len() != to.len() {
        return Err(vm.value_err("maketrans arguments must have same length"));
    }
    let mut table: Vec<u8> = (0..=255u8).collect();
    for (f, t) in from.iter().zip(&to) {
        table[*f as usize] = *t;
    }
    Ok(Value::bytes(table))
}

/// `bytes.translate(table, /, delete=b'')`.
fn bytes_translate(vm: &mut Vm, b: &[u8], mut args: Args) -> R<Value> {
    let delete = match args.take_kw("delete").or_else(|| args.pos.get(1).cloned()) {
        Some(v) => bytes_arg(vm, &v)?,
        None => Vec::new(),
    };
    let table = match args.pos.first() {
        None => return Err(vm.type_err("translate expected at least 1 argument, got 0")),
        Some(Value::None) => None,
        Some(v) => {
            let v = v.clone();
            let t = bytes_arg(vm, &v)?;
            if t.len() != 256 {
                return Err(vm.value_err("translation table must be 256 characters long"));
            }
            Some(t)
        }
    };
    let mut gone = [false; 256];
    for d in delete {
        gone[d as usize] = true;
    }
    let out = b
        .iter()
        .filter(|x| !gone[**x as usize])
        .map(|x| table.as_ref().map_or(*x, |t| t[*x as usize]))
        .collect();
    Ok(Value::bytes(out))
}

/// `bytes.split`, `bytes.rsplit`, `bytes.splitlines` (`name`): `objects::split`.
fn bytes_split(vm: &mut Vm, b: &Rc<PyBytes>, args: Args, name: &str) -> R<Value> {
    super::split::call(vm, &Value::Bytes(b.clone()), name, &args)
}

/// `bytes.find` and the other searches (`name`): `objects::search`.
fn bytes_search(vm: &mut Vm, b: &Rc<PyBytes>, args: Args, name: &str) -> R<Value> {
    let pos = super::search::positions(vm, &args)?;
    super::search::call(vm, super::search::Hay::Bytes(&b.b), name, &args, pos)
}

/// Bytes method `name` on `b`, its arguments already checked (a bytearray's methods that are
/// the bytes methods run on a copy): a name that is none is paid like one, then AttributeError.
fn bytes_call_by_name(vm: &mut Vm, b: &Rc<PyBytes>, name: &str, args: Args) -> R<Value> {
    match super::Method::find(BYTES, name) {
        Some(m) => (m.body)(vm, b, args),
        None => {
            vm.charge(cost::per_char(b.b.len()))?;
            Err(vm.attr_error(&Value::Bytes(b.clone()), name))
        }
    }
}

/// `bytes.decode(encoding='utf-8', errors='strict')`.
fn decode(vm: &mut Vm, b: &Rc<PyBytes>, args: Args) -> R<Value> {
    vm.charge(cost::per_char(b.b.len()))?;
    vm.charge(cost::CODEC)?;
    let (encoding, errors) = codec_args(vm, &args, "decode")?;
    let text = crate::codec::decode(&b.b, &encoding, &errors).map_err(|e| vm.codec_error(e))?;
    Ok(Value::str(&text))
}

/// `bytes.join(iterable_of_bytes)`.
fn join_bytes(vm: &mut Vm, b: &Rc<PyBytes>, args: Args) -> R<Value> {
    vm.charge(cost::per_char(b.b.len()))?;
    let it = args.pos.first().cloned().unwrap_or_default();
    let items = match vm.collect(&it) {
        Ok(items) => items,
        Err(e) if vm.exc_is(&e, "TypeError") && vm.not_iterable(&it) => {
            return Err(vm.type_err("can only join an iterable"))
        }
        Err(e) => return Err(e),
    };
    let mut out = Vec::new();
    for (i, x) in items.iter().enumerate() {
        if i > 0 {
            out.extend_from_slice(&b.b);
        }
        match x {
            Value::Bytes(p) => out.extend_from_slice(&p.b),
            Value::ByteArray(p) => out.extend_from_slice(&p.b.borrow()),
            other => {
                let tn = vm.type_name(other);
                return Err(vm.type_err(format!(
                    "sequence item {i}: expected a bytes-like object, {tn} found"
                )));
            }
        }
    }
    vm.charge(cost::per_char(out.len()))?;
    vm.reserve(out.len() as u64)?;
    Ok(Value::bytes(out))
}

/// `bytes.hex(sep=None, bytes_per_sep=1)`.
fn hex(vm: &mut Vm, b: &Rc<PyBytes>, args: Args) -> R<Value> {
    vm.charge(cost::per_char(b.b.len()))?;
    let digits: Vec<String> = b.b.iter().map(|x| format!("{x:02x}")).collect();
    let mut a = args.clone();
    let sep = a.pos.first().cloned().or_else(|| a.take_kw("sep"));
    let per = a.pos.get(1).cloned().or_else(|| a.take_kw("bytes_per_sep"));
    let per = match per {
        Some(v) => vm.index_of(&v)?,
        None => 1,
    };
    let sep = match sep.as_ref() {
        None => return Ok(Value::str(&digits.concat())),
        Some(Value::Str(s)) if s.len == 1 => s.s.to_string(),
        Some(Value::Bytes(s)) if s.b.len() == 1 => (s.b[0] as char).to_string(),
        Some(Value::Str(_) | Value::Bytes(_)) => return Err(vm.value_err("sep must be length 1.")),
        Some(o) => {
            let tn = vm.type_name(o);
            return Err(vm.type_err(format!("object of type '{tn}' has no len()")));
        }
    };
    let n = per.unsigned_abs().max(1) as usize;
    // Groups of `n` bytes counted from the right (positive) or the left (negative).
    let len = digits.len();
    let mut out = String::with_capacity(len * 3);
    for (i, d) in digits.iter().enumerate() {
        let boundary = if per >= 0 {
            (len - i).is_multiple_of(n)
        } else {
            i.is_multiple_of(n)
        };
        if i > 0 && boundary {
            out.push_str(&sep);
        }
        out.push_str(d);
    }
    Ok(Value::str(&out))
}

/// A bytes method that is the str method `name` run on the bytes' text (each byte one char),
/// after the bytes-like checks of its arguments; a str result becomes bytes.
fn via_str(vm: &mut Vm, b: &Rc<PyBytes>, args: Args, name: &str) -> R<Value> {
    vm.charge(cost::per_char(b.b.len()))?;
    let s = Rc::new(PyStr::new(&byte_text(&b.b)));
    // The str methods below would take text; bytes methods take only bytes-likes.
    let text_arg = args.pos.iter().chain(args.kw.iter().map(|(_, v)| v)).find(|v| {
        matches!(v, Value::Str(_))
            || matches!(v, Value::Tuple(t) if t.items.iter().any(|x| matches!(x, Value::Str(_))))
    });
    if text_arg.is_some() && !matches!(name, "decode" | "hex" | "center" | "ljust" | "rjust") {
        return Err(vm.type_err("a bytes-like object is required, not 'str'"));
    }
    // Arguments that must be bytes-like (strip's may also be None).
    let need = match name {
        "partition" | "rpartition" | "removeprefix" | "removesuffix" => 1,
        "replace" => 2,
        "strip" | "lstrip" | "rstrip" if !matches!(args.pos.first(), Some(Value::None)) => 1,
        _ => 0,
    };
    if let Some(o) = args
        .pos
        .iter()
        .take(need)
        .find(|v| !matches!(v, Value::Bytes(_) | Value::ByteArray(_)))
    {
        let tn = vm.type_name(o);
        return Err(vm.type_err(format!("a bytes-like object is required, not '{tn}'")));
    }
    // Converting the arguments reads them whole: paid before, by what it reads.
    let work: u64 = args
        .pos
        .iter()
        .chain(args.kw.iter().map(|(_, v)| v))
        .map(arg_to_text_work)
        .sum();
    vm.charge(work)?;
    let pos = args.pos.iter().map(arg_to_text).collect();
    let a = Args {
        pos,
        kw: args
            .kw
            .iter()
            .map(|(k, v)| (k.clone(), arg_to_text(v)))
            .collect(),
    };
    let r = call_by_name(vm, &s, name, a)?;
    Ok(to_bytes_val(r))
}

methods! {
    /// `bytearray`'s methods: its own mutators, then every bytes method with bytes' convention
    /// ([`as_bytes`]), run on a bytes copy ([`via_bytes`]) except the splits and searches. The
    /// mutators pay only for what they touch (a loop of appends is linear, as in CPython);
    /// every other method pays per byte of the buffer first.
    BYTEARRAY, BYTEARRAY_METHODS: Rc<PyByteArray>;
    listed {
        "append" => Some(One), bytearray_append;
        "extend" => Some(One), bytearray_extend;
        "pop" => Some(Clinic(0, 1)), bytearray_pop;
        "copy" => Some(NoArgs), bytearray_copy;
        "clear" => Some(NoArgs), bytearray_clear;
        "insert" => Some(Clinic(2, 2)), bytearray_insert;
        "reverse" => Some(NoArgs), bytearray_reverse;
        "remove" => Some(One), bytearray_remove;
        "decode" => as_bytes("decode"), |vm, b, a| via_bytes(vm, b, a, "decode");
        "hex" => as_bytes("hex"), |vm, b, a| via_bytes(vm, b, a, "hex");
        "startswith" => as_bytes("startswith"), |vm, b, a| bytearray_search(vm, b, a, "startswith");
        "endswith" => as_bytes("endswith"), |vm, b, a| bytearray_search(vm, b, a, "endswith");
        "count" => as_bytes("count"), |vm, b, a| bytearray_search(vm, b, a, "count");
        "find" => as_bytes("find"), |vm, b, a| bytearray_search(vm, b, a, "find");
        "rfind" => as_bytes("rfind"), |vm, b, a| bytearray_search(vm, b, a, "rfind");
        "index" => as_bytes("index"), |vm, b, a| bytearray_search(vm, b, a, "index");
        "rindex" => as_bytes("rindex"), |vm, b, a| bytearray_search(vm, b, a, "rindex");
        "strip" => as_bytes("strip"), |vm, b, a| via_bytes(vm, b, a, "strip");
        "lstrip" => as_bytes("lstrip"), |vm, b, a| via_bytes(vm, b, a, "lstrip");
        "rstrip" => as_bytes("rstrip"), |vm, b, a| via_bytes(vm, b, a, "rstrip");
        "split" => as_bytes("split"), |vm, b, a| bytearray_split(vm, b, a, "split");
        "rsplit" => as_bytes("rsplit"), |vm, b, a| bytearray_split(vm, b, a, "rsplit");
        "join" => as_bytes("join"), |vm, b, a| via_bytes(vm, b, a, "join");
        "replace" => as_bytes("replace"), |vm, b, a| via_bytes(vm, b, a, "replace");
        "upper" => as_bytes("upper"), |vm, b, a| via_bytes(vm, b, a, "upper");
        "lower" => as_bytes("lower"), |vm, b, a| via_bytes(vm, b, a, "lower");
        "isdigit" => as_bytes("isdigit"), |vm, b, a| via_bytes(vm, b, a, "isdigit");
        "isalpha" => as_bytes("isalpha"), |vm, b, a| via_bytes(vm, b, a, "isalpha");
        "isalnum" => as_bytes("isalnum"), |vm, b, a| via_bytes(vm, b, a, "isalnum");
        "isspace" => as_bytes("isspace"), |vm, b, a| via_bytes(vm, b, a, "isspace");
        "partition" => as_bytes("partition"), |vm, b, a| via_bytes(vm, b, a, "partition");
        "rpartition" => as_bytes("rpartition"), |vm, b, a| via_bytes(vm, b, a, "rpartition");
        "removeprefix" => as_bytes("removeprefix"), |vm, b, a| via_bytes(vm, b, a, "removeprefix");
        "removesuffix" => as_bytes("removesuffix"), |vm, b, a| via_bytes(vm, b, a, "removesuffix");
        "ljust" => as_bytes("ljust"), |vm, b, a| via_bytes(vm, b, a, "ljust");
        "rjust" => as_bytes("rjust"), |vm, b, a| via_bytes(vm, b, a, "rjust");
        "center" => as_bytes("center"), |vm, b, a| via_bytes(vm, b, a, "center");
        "zfill" => as_bytes("zfill"), |vm, b, a| via_bytes(vm, b, a, "zfill");
        "title" => as_bytes("title"), |vm, b, a| via_bytes(vm, b, a, "title");
        "capitalize" => as_bytes("capitalize"), |vm, b, a| via_bytes(vm, b, a, "capitalize");
        "swapcase" => as_bytes("swapcase"), |vm, b, a| via_bytes(vm, b, a, "swapcase");
        "splitlines" => as_bytes("splitlines"), |vm, b, a| bytearray_split(vm, b, a, "splitlines");
        "isascii" => as_bytes("isascii"), |vm, b, a| via_bytes(vm, b, a, "isascii");
        "islower" => as_bytes("islower"), |vm, b, a| via_bytes(vm, b, a, "islower");
        "isupper" => as_bytes("isupper"), |vm, b, a| via_bytes(vm, b, a, "isupper");
        "istitle" => as_bytes("istitle"), |vm, b, a| via_bytes(vm, b, a, "istitle");
        "expandtabs" => as_bytes("expandtabs"), |vm, b, a| via_bytes(vm, b, a, "expandtabs");
        "translate" => as_bytes("translate"), |vm, b, a| via_bytes(vm, b, a, "translate");
    }
    // `bytearray.__init__(b, source=b'', …)`, reached by name (a subclass's `__init__`).
    unlisted {
        "__init__" => None, bytearray_init;
    }
}

/// The convention of bytes method `name`, which bytearray has too.
const fn as_bytes(name: &str) -> Option<Arity> {
    super::Method::arity_in(BYTES, name)
}

fn byte_arg(vm: &mut Vm, v: Option<&Value>) -> R<u8> {
    let i = match v {
        Some(v) => vm.index_of(v)?,
        None => return Err(vm.type_err("expected an int argument")),
    };
    if !(0..256).contains(&i) {
        return Err(vm.value_err("byte must be in range(0, 256)"));
    }
    Ok(i as u8)
}

/// `bytearray.split`, `rsplit`, `splitlines` (`name`): `objects::split`, unpaid here.
fn bytearray_split(vm: &mut Vm, b: &Rc<PyByteArray>, args: Args, name: &str) -> R<Value> {
    super::split::call(vm, &Value::ByteArray(b.clone()), name, &args)
}

/// `bytearray.find` and the other searches (`name`): `objects::search`, unpaid here.
fn bytearray_search(vm: &mut Vm, b: &Rc<PyByteArray>, args: Args, name: &str) -> R<Value> {
    let pos = super::search::positions(vm, &args)?;
    let data = b.b.borrow();
    super::search::call(vm, super::search::Hay::Bytes(&data), name, &args, pos)
}

/// A bytearray method that is bytes method `name`: paid per byte, run on a bytes copy; bytes
/// results (and lists of them) become bytearrays, except `decode`'s and `hex`'s. A name that is
/// no method ends as the bytes method's AttributeError, paid as one.
pub fn via_bytes(vm: &mut Vm, b: &Rc<PyByteArray>, args: Args, name: &str) -> R<Value> {
    vm.charge(cost::per_char(b.b.borrow().len()))?;
    let tmp = Rc::new(PyBytes::new(b.b.borrow().clone()));
    let r = bytes_call_by_name(vm, &tmp, name, args)?;
    Ok(match r {
        Value::Bytes(x) if !matches!(name, "decode" | "hex") => {
            Value::ByteArray(Rc::new(PyByteArray::new(x.b.to_vec())))
        }
        Value::List(l) => {
            let items: Vec<Value> = l
                .items
                .borrow()
                .iter()
                .map(|x| match x {
                    Value::Bytes(y) => Value::ByteArray(Rc::new(PyByteArray::new(y.b.to_vec()))),
                    o => o.clone(),
                })
                .collect();
            Value::list(items)
        }
        other => other,
    })
}

/// `bytearray.append(x)`.
fn bytearray_append(vm: &mut Vm, b: &Rc<PyByteArray>, args: Args) -> R<Value> {
    let x = byte_arg(vm, args.pos.first())?;
    b.b.borrow_mut().push(x);
    b.touch();
    Ok(Value::None)
}

/// `bytearray.extend(iterable_of_ints)`: paid per byte added.
fn bytearray_extend(vm: &mut Vm, b: &Rc<PyByteArray>, args: Args) -> R<Value> {
    let items: Vec<u8> = match args.pos.first() {
        Some(Value::Bytes(x)) => x.b.to_vec(),
        Some(Value::ByteArray(x)) => x.b.borrow().clone(),
        Some(v) => {
            let v = v.clone();
            if vm.not_iterable(&v) {
                let tn = vm.type_name(&v);
                return Err(vm.type_err(format!("can't extend bytearray with {tn}")));
            }
            let items = vm.collect(&v)?;
            let mut out = Vec::with_capacity(items.len());
            for x in &items {
                out.push(byte_arg(vm, Some(x))?);
            }
            out
        }
        None => Vec::new(),
    };
    vm.charge(cost::per_char(items.len()))?;
    b.b.borrow_mut().extend(items);
    b.touch();
    Ok(Value::None)
}

/// `bytearray.pop(i=-1)`: paid per byte shifted.
fn bytearray_pop(vm: &mut Vm, b: &Rc<PyByteArray>, args: Args) -> R<Value> {
    let n = b.b.borrow().len();
    if n == 0 {
        return Err(vm.new_exc("IndexError", "pop from empty bytearray"));
    }
    let i = match args.pos.first() {
        Some(k) => super::norm_index(vm, k, n, "pop")?,
        None => n - 1,
    };
    // Removing index i shifts the n - 1 - i bytes after it.
    vm.charge(cost::per_char(n - 1 - i))?;
    let x = b.b.borrow_mut().remove(i);
    b.touch();
    Ok(Value::Int(x as i64))
}

/// `bytearray.copy()`.
fn bytearray_copy(vm: &mut Vm, b: &Rc<PyByteArray>, _: Args) -> R<Value> {
    vm.charge(cost::per_char(b.b.borrow().len()))?;
    Ok(Value::ByteArray(Rc::new(PyByteArray::new(
        b.b.borrow().clone(),
    ))))
}

/// `bytearray.__init__(b, source=b'', encoding, errors)`: `b`'s contents become what
/// `bytearray(source, …)` would hold (its conversions and errors).
fn bytearray_init(vm: &mut Vm, b: &Rc<PyByteArray>, args: Args) -> R<Value> {
    let cls = vm.types.bytearray.clone();
    if let Value::ByteArray(made) = crate::objects::types::construct(vm, &cls, args)? {
        let bytes = std::mem::take(&mut *made.b.borrow_mut());
        made.touch();
        *b.b.borrow_mut() = bytes;
        b.touch();
    }
    Ok(Value::None)
}

/// `bytearray.clear()`.
fn bytearray_clear(_: &mut Vm, b: &Rc<PyByteArray>, _: Args) -> R<Value> {
    b.b.borrow_mut().clear();
    b.touch();
    Ok(Value::None)
}

/// `bytearray.insert(i, x)`.
fn bytearray_insert(vm: &mut Vm, b: &Rc<PyByteArray>, args: Args) -> R<Value> {
    let n = b.b.borrow().len();
    vm.charge(cost::per_char(n))?;
    let i = vm.index_of(args.pos.first().unwrap_or(&Value::Int(0)))?;
    let i = if i < 0 {
        (i + n as i64).max(0)
    } else {
        i.min(n as i64)
    } as usize;
    let x = byte_arg(vm, args.pos.get(1))?;
    b.b.borrow_mut().insert(i, x);
    b.touch();
    Ok(Value::None)
}

/// `bytearray.reverse()`.
fn bytearray_reverse(vm: &mut Vm, b: &Rc<PyByteArray>, _: Args) -> R<Value> {
    vm.charge(cost::per_char(b.b.borrow().len()))?;
    b.b.borrow_mut().reverse();
    b.touch();
    Ok(Value::None)
}

/// `bytearray.remove(x)`.
fn bytearray_remove(vm: &mut Vm, b: &Rc<PyByteArray>, args: Args) -> R<Value> {
    vm.charge(cost::per_char(b.b.borrow().len()))?;
    let x = byte_arg(vm, args.pos.first())?;
    let pos = b.b.borrow().iter().position(|y| *y == x);
    match pos {
        Some(p) => {
            b.b.borrow_mut().remove(p);
        }
        None => return Err(vm.value_err("value not found in bytearray")),
    }
    b.touch();
    Ok(Value::None)
}
