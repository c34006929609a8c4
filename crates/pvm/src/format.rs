//! repr/str and the formatting mini-languages (format spec, `str.format`, `%`), matching
//! CPython 3.11 output. Float repr is the shortest round-trip form with CPython's thresholds
//! (scientific when the exponent is < -4 or >= 16). Output size is charged and reserved before
//! building, so `f"{x:>1000000000}"` stops at the budget or the memory limit.

use crate::cost;
use crate::unicode::str_repr;
use crate::value::*;
use crate::vm::{Args, Vm, R};
use std::rc::Rc;

/// The shortest round-tripping digits of finite nonzero `f` as `d.ddde±x`, chosen as
/// CPython's `repr` (dtoa mode 0) chooses them: Rust's `{:e}` finds the shortest length, but
/// when several strings of that length round-trip it may not pick the one nearest `f`
/// (`2**-25` is `2.9802322387695312e-08` in CPython, `…313e-8` in Rust). The correctly rounded
/// (ties-to-even) string of that length is nearest; it is used whenever it round-trips,
/// which fails only just below a power of two, where the lower half-interval is narrower.
fn shortest_sci(f: f64) -> String {
    let short = format!("{f:e}");
    let ndigits = short
        .split_once('e')
        .map_or(short.as_str(), |(m, _)| m)
        .bytes()
        .filter(u8::is_ascii_digit)
        .count();
    let nearest = format!("{:.*e}", ndigits.saturating_sub(1), f);
    if nearest.parse::<f64>() == Ok(f) {
        nearest
    } else {
        short
    }
}

/// CPython `repr(float)`. Owes [`cost::FLOAT_REPR`] (paid before the next instruction): every
/// path that shows a float in repr style (`repr`, `str`, `print`, `format` without a type,
/// complex parts) comes through here.
pub fn float_repr(f: f64) -> String {
    crate::memory::owe(cost::FLOAT_REPR);
    if f.is_nan() {
        return "nan".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "inf".into() } else { "-inf".into() };
    }
    if f == 0.0 {
        return if f.is_sign_negative() {
            "-0.0".into()
        } else {
            "0.0".into()
        };
    }
    let e = shortest_sci(f);
    let (mant, exp) = e.split_once('e').unwrap_or((&e, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let neg = mant.starts_with('-');
    let digits: String = mant.chars().filter(|c| c.is_ascii_digit()).collect();
    let sign = if neg { "-" } else { "" };
    if (-4..16).contains(&exp) {
        let n = digits.len() as i32;
        let s = if exp >= 0 {
            if n > exp + 1 {
                format!(
                    "{}.{}",
                    &digits[..(exp + 1) as usize],
                    &digits[(exp + 1) as usize..]
                )
            } else {
                format!("{}{}.0", digits, "0".repeat((exp + 1 - n) as usize))
            }
        } else {
            format!("0.{}{}", "0".repeat((-exp - 1) as usize), digits)
        };
        format!("{sign}{s}")
    } else {
        let m = if digits.len() > 1 {
            format!("{}.{}", &digits[..1], &digits[1..])
        } else {
            digits.clone()
        };
        format!(
            "{}{}e{}{:02}",
            sign,
            m,
            if exp < 0 { "-" } else { "+" },
            exp.abs()
        )
    }
}

/// `ascii()` escaping of a repr.
pub fn ascii_escape(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        let u = c as u32;
        if u < 0x80 {
            out.push(c);
        } else if u < 0x100 {
            out.push_str(&format!("\\x{u:02x}"));
        } else if u < 0x10000 {
            out.push_str(&format!("\\u{u:04x}"));
        } else {
            out.push_str(&format!("\\U{u:08x}"));
        }
    }
    out
}

/// `repr(bytes)`.
pub fn bytes_repr(b: &[u8]) -> String {
    let q = if b.contains(&b'\'') && !b.contains(&b'"') {
        '"'
    } else {
        '\''
    };
    let mut out = format!("b{q}");
    for &x in b {
        match x {
            b'\\' => out.push_str("\\\\"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            x if x as char == q => {
                out.push('\\');
                out.push(q);
            }
            0x20..=0x7e => out.push(x as char),
            _ => out.push_str(&format!("\\x{x:02x}")),
        }
    }
    out.push(q);
    out
}

/// The repr of a container is built from its items' reprs, each copied into it: every level
/// of nesting copies the text of the levels below once more, so the work is the output size
/// times the depth, not the output size. Each item pays for its visit and for the characters
/// copied, before the copy ([`nested_piece`]).
fn nested_piece(vm: &mut Vm, piece: &str) -> R<()> {
    vm.charge(cost::PER_ELEM + cost::per_char(piece.len()))
}

fn seq_repr(vm: &mut Vm, items: &[Value], open: &str, close: &str) -> R<String> {
    vm.enter()?;
    let mut out = String::from(open);
    let mut res = Ok(());
    for (i, x) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        match vm.repr(x).and_then(|s| nested_piece(vm, &s).map(|()| s)) {
            Ok(s) => out.push_str(&s),
            Err(e) => {
                res = Err(e);
                break;
            }
        }
    }
    vm.leave();
    res?;
    out.push_str(close);
    Ok(out)
}

/// `repr(v)`.
pub fn repr(vm: &mut Vm, v: &Value) -> R<String> {
    let (addr, again) = match v {
        Value::List(l) => (std::rc::Rc::as_ptr(l) as *const () as usize, "[...]"),
        Value::Dict(d) => (std::rc::Rc::as_ptr(d) as *const () as usize, "{...}"),
        _ => return repr_value(vm, v),
    };
    if vm.repr_active.contains(&addr) {
        return Ok(again.into());
    }
    vm.repr_active.push(addr);
    let r = repr_value(vm, v);
    vm.repr_active.pop();
    r
}

fn repr_value(vm: &mut Vm, v: &Value) -> R<String> {
    let s = match v {
        Value::None => "None".into(),
        Value::NotImplemented => "NotImplemented".into(),
        Value::Ellipsis => "Ellipsis".into(),
        Value::Bool(b) => if *b { "True" } else { "False" }.into(),
        Value::Int(i) => i.to_string(),
        Value::BigInt(b) => {
            vm.charge(cost::int_to_text(b.bits(), 10))?;
            b.to_string()
        }
        Value::Float(f) => float_repr(*f),
        Value::Str(s) => {
            vm.charge(cost::per_char(s.s.len()))?;
            str_repr(&s.s)
        }
        Value::Bytes(b) => {
            vm.charge(cost::per_char(b.b.len()))?;
            bytes_repr(&b.b)
        }
        Value::ByteArray(b) => {
            let n = b.b.borrow().len();
            vm.charge(cost::per_char(n))?;
            format!("bytearray({})", bytes_repr(&b.b.borrow()))
        }
        Value::Tuple(t) => {
            if t.items.len() == 1 {
                seq_repr(vm, &t.items, "(", ",)")?
            } else {
                seq_repr(vm, &t.items, "(", ")")?
            }
        }
        // The copy is paid before it is made: an item's repr may fail at the first item.
        Value::List(l) => {
            vm.charge(cost::per_elem(l.items.borrow().len()))?;
            let items = l.items.borrow().clone();
            seq_repr(vm, &items, "[", "]")?
        }
        Value::Dict(d) => {
            vm.charge(cost::per_elem(d.table.borrow().len))?;
            let items: Vec<Entry> = d.table.borrow().iter().cloned().collect();
            vm.enter()?;
            let mut out = String::from("{");
            let mut res = Ok(());
            for (i, e) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                match vm
                    .repr(&e.key)
                    .and_then(|k| vm.repr(&e.value).map(|v| (k, v)))
                    .and_then(|(k, v)| nested_piece(vm, &k).map(|()| (k, v)))
                    .and_then(|(k, v)| nested_piece(vm, &v).map(|()| (k, v)))
                {
                    Ok((k, v)) => {
                        out.push_str(&k);
                        out.push_str(": ");
                        out.push_str(&v);
                    }
                    Err(e) => {
                        res = Err(e);
                        break;
                    }
                }
            }
            vm.leave();
            res?;
            out.push('}');
            out
        }
        Value::Set(s) => {
            let items: Vec<Value> = s.table.borrow().iter().map(|e| e.key.clone()).collect();
            if s.frozen {
                if items.is_empty() {
                    "frozenset()".into()
                } else {
                    format!("frozenset({})", seq_repr(vm, &items, "{", "}")?)
                }
            } else if items.is_empty() {
                "set()".into()
            } else {
                seq_repr(vm, &items, "{", "}")?
            }
        }
        Value::Range(r) => {
            if r.step == 1 {
                format!("range({}, {})", r.start, r.stop)
            } else {
                format!("range({}, {}, {})", r.start, r.stop, r.step)
            }
        }
        Value::Slice(s) => format!(
            "slice({}, {}, {})",
            repr(vm, &s.start)?,
            repr(vm, &s.stop)?,
            repr(vm, &s.step)?
        ),
        Value::Function(f) => format!("<function {}>", f.qualname()),
        Value::Builtin(b) => match &b.kind {
            BuiltinKind::Method(r) => {
                format!("<built-in method {} of {} object>", b.name, vm.type_name(r))
            }
            _ => format!("<built-in function {}>", b.name),
        },
        Value::BoundMethod(m) => match &m.func {
            // A builtin bound to its receiver (`dict.fromkeys`, a native class's method).
            Value::Builtin(b) => {
                let of = vm.type_name(&m.receiver);
                format!("<built-in method {} of {of} object>", b.name)
            }
            Value::Function(f) => {
                format!(
                    "<bound method {} of {}>",
                    f.qualname(),
                    repr(vm, &m.receiver)?
                )
            }
            _ => format!("<bound method ? of {}>", repr(vm, &m.receiver)?),
        },
        Value::Class(_) if vm.lookup_dunder(v, "__repr__").is_some() => {
            match vm.call_dunder(v, "__repr__", vec![])? {
                Some(Value::Str(s)) => s.s.to_string(),
                _ => return Err(vm.type_err("__repr__ returned non-string")),
            }
        }
        Value::Class(c) => {
            let builtin = Rc_ptr_builtin(vm, c);
            if builtin {
                format!("<class '{}'>", c.name)
            } else {
                let module = match c.dict.borrow().get("__module__") {
                    Some(Value::Str(s)) => s.s.to_string(),
                    _ => "builtins".into(),
                };
                format!("<class '{}.{}'>", module, c.qualname.borrow())
            }
        }
        Value::Instance(i) => {
            if let Some(r) = vm.call_dunder(v, "__repr__", vec![])? {
                return match r {
                    Value::Str(s) => Ok(s.s.to_string()),
                    _ => Err(vm.type_err(format!(
                        "__repr__ returned non-string (type {})",
                        vm.type_name(&r)
                    ))),
                };
            }
            if let Some(d) = vm.mapping_proxy(v) {
                let inner = repr(vm, &Value::Dict(d))?;
                return Ok(format!("mappingproxy({inner})"));
            }
            if let Some((kind, d)) = vm.dict_view(v) {
                let items = vm.view_items(kind, &d)?;
                let name = ["dict_keys", "dict_values", "dict_items"][kind as usize];
                return Ok(format!("{name}({})", seq_repr(vm, &items, "[", "]")?));
            }
            if Rc::ptr_eq(&i.cls(), &vm.types.union) {
                let args = match i.dict.get_str("__args__") {
                    Some(Value::Tuple(t)) => t.items.to_vec(),
                    _ => Vec::new(),
                };
                let mut parts = Vec::new();
                for a in &args {
                    parts.push(match a {
                        Value::Class(c) if Rc::ptr_eq(c, &vm.types.none) => "None".to_string(),
                        Value::Class(c) => match c.dict.borrow().get("__module__") {
                            Some(Value::Str(m)) if &*m.s != "builtins" => {
                                format!("{}.{}", m.s, c.qualname.borrow())
                            }
                            _ => c.name.to_string(),
                        },
                        other => repr(vm, other)?,
                    });
                }
                return Ok(parts.join(" | "));
            }
            if i.exc.borrow().is_some() {
                let args = i.dict.get_str("args").unwrap_or(Value::tuple(vec![]));
                let cls = i.cls();
                // `Name(arg, …)`: the reprs of the args (a tuple's repr minus its parentheses
                // and a 1-tuple's trailing comma, without stripping nested parentheses).
                let inner = if let Value::Tuple(t) = &args {
                    let mut parts = Vec::with_capacity(t.items.len());
                    for x in t.items.iter() {
                        parts.push(repr(vm, x)?);
                    }
                    parts.join(", ")
                } else {
                    repr(vm, &args)?
                };
                return Ok(format!("{}({})", cls.name, inner));
            }
            let b = i.base.borrow().clone();
            if let Some(b) = b {
                let inner = repr(vm, &b)?;
                // CPython's bytearray, set and frozenset reprs name the (sub)class; the others
                // show the plain value.
                let name = i.cls().name.clone();
                return Ok(match &b {
                    Value::ByteArray(_) => {
                        format!(
                            "{name}{}",
                            inner.strip_prefix("bytearray").unwrap_or(&inner)
                        )
                    }
                    Value::Set(set) if set.table.borrow().len == 0 => format!("{name}()"),
                    Value::Set(set) if set.frozen => {
                        format!(
                            "{name}{}",
                            inner.strip_prefix("frozenset").unwrap_or(&inner)
                        )
                    }
                    Value::Set(_) => format!("{name}({inner})"),
                    _ => inner,
                });
            }
            let cls = i.cls();
            let module = match cls.dict.borrow().get("__module__") {
                Some(Value::Str(s)) => s.s.to_string(),
                _ => "__main__".into(),
            };
            format!("<{}.{} object>", module, cls.qualname.borrow())
        }
        Value::Generator(g) => format!(
            "<{} object {}>",
            if g.coroutine {
                "coroutine"
            } else if g.async_gen {
                "async_generator"
            } else {
                "generator"
            },
            g.name
        ),
        Value::Iter(_) => format!("<{} object>", vm.type_name(v)),
        Value::Module(m) => format!("<module '{}'>", m.name),
        Value::Property(_) => "<property object>".into(),
        Value::ClassMethod(_) => "<classmethod object>".into(),
        Value::StaticMethod(_) => "<staticmethod object>".into(),
        Value::Super(s) => format!(
            "<super: <class '{}'>, <{} object>>",
            s.class.name,
            vm.type_name(&s.obj)
        ),
        Value::Cell(_) => "<cell>".into(),
    };
    Ok(s)
}

#[allow(non_snake_case)]
fn Rc_ptr_builtin(vm: &Vm, c: &std::rc::Rc<Class>) -> bool {
    !c.dict.borrow().contains_key("__module__")
        || vm.types.exc.values().any(|x| std::rc::Rc::ptr_eq(x, c))
}

/// `str(exception)`.
pub fn exc_str(vm: &mut Vm, i: &Instance) -> R<String> {
    let args = i.dict.get_str("args").unwrap_or(Value::tuple(vec![]));
    let cls = i.cls();
    if cls.is_subclass(&vm.types.exc["OSError"]) {
        // CPython's OSError.__str__: `[Errno e] strerror: 'filename'` when there is a file name,
        // `[Errno e] strerror` when both are set, else like any exception.
        let attr = |n: &str| i.dict.get_str(n).filter(|v| !v.is_none());
        if let (Some(e), Some(s)) = (attr("errno"), attr("strerror")) {
            let mut out = format!("[Errno {}] {}", vm.str(&e)?, vm.str(&s)?);
            if let Some(f) = attr("filename") {
                out.push_str(&format!(": {}", repr(vm, &f)?));
                if let Some(f2) = attr("filename2") {
                    out.push_str(&format!(" -> {}", repr(vm, &f2)?));
                }
            }
            return Ok(out);
        }
    }
    let decode = cls.is_subclass(&vm.types.exc["UnicodeDecodeError"]);
    if decode || cls.is_subclass(&vm.types.exc["UnicodeEncodeError"]) {
        if let Value::Tuple(t) = &args {
            if let Some(s) = crate::codec::unicode_error_str(decode, &t.items) {
                return Ok(s);
            }
        }
    }
    match &args {
        Value::Tuple(t) if t.items.is_empty() => Ok(String::new()),
        Value::Tuple(t) if t.items.len() == 1 => {
            if cls.is_subclass(&vm.types.exc["KeyError"]) {
                repr(vm, &t.items[0])
            } else {
                vm.str(&t.items[0])
            }
        }
        other => repr(vm, other),
    }
}

/// Parsed format spec (`[[fill]align][sign][#][0][width][grouping][.precision][type]`).
#[derive(Default, Debug)]
pub(crate) struct Spec {
    /// The fill character, if the spec gives one (else a space).
    pub fill: Option<char>,
    pub align: Option<char>,
    pub sign: Option<char>,
    pub alt: bool,
    pub zero: bool,
    pub width: usize,
    pub grouping: Option<char>,
    pub precision: Option<usize>,
    pub ty: Option<char>,
}

/// Parse a format spec with CPython's errors (shared by every type's `__format__`); `ty` is
/// the formatted object's type name, for the message about a malformed spec.
pub(crate) fn parse_spec(vm: &mut Vm, s: &str, ty: &str) -> R<Spec> {
    let cs: Vec<char> = s.chars().collect();
    let mut sp = Spec::default();
    let mut i = 0;
    if cs.len() >= 2 && matches!(cs[1], '<' | '>' | '^' | '=') {
        sp.fill = Some(cs[0]);
        sp.align = Some(cs[1]);
        i = 2;
    } else if !cs.is_empty() && matches!(cs[0], '<' | '>' | '^' | '=') {
        sp.align = Some(cs[0]);
        i = 1;
    }
    if i < cs.len() && matches!(cs[i], '+' | '-' | ' ') {
        sp.sign = Some(cs[i]);
        i += 1;
    }
    if i < cs.len() && cs[i] == '#' {
        sp.alt = true;
        i += 1;
    }
    if i < cs.len() && cs[i] == '0' {
        sp.zero = true;
        i += 1;
    }
    let mut w = String::new();
    while i < cs.len() && cs[i].is_ascii_digit() {
        w.push(cs[i]);
        i += 1;
    }
    if !w.is_empty() {
        sp.width = w
            .parse()
            .map_err(|_| vm.value_err("Too many decimal digits in format string"))?;
    }
    if i < cs.len() && matches!(cs[i], ',' | '_') {
        sp.grouping = Some(cs[i]);
        i += 1;
        if i < cs.len() && matches!(cs[i], ',' | '_') {
            return Err(vm.value_err("Cannot specify both ',' and '_'."));
        }
    }
    if i < cs.len() && cs[i] == '.' {
        i += 1;
        let mut p = String::new();
        while i < cs.len() && cs[i].is_ascii_digit() {
            p.push(cs[i]);
            i += 1;
        }
        if p.is_empty() {
            return Err(vm.value_err("Format specifier missing precision"));
        }
        sp.precision = Some(
            p.parse()
                .map_err(|_| vm.value_err("Too many decimal digits in format string"))?,
        );
    }
    if i < cs.len() {
        sp.ty = Some(cs[i]);
        i += 1;
    }
    if let (Some(g), Some(t)) = (sp.grouping, sp.ty) {
        // ',' only with decimal types; '_' also with the power-of-two bases.
        let ok = matches!(t, 'd' | 'e' | 'E' | 'f' | 'F' | 'g' | 'G' | '%')
            || (g == '_' && matches!(t, 'b' | 'o' | 'x' | 'X'));
        if !ok && i == cs.len() {
            return Err(vm.value_err(format!("Cannot specify '{g}' with '{t}'.")));
        }
    }
    if i < cs.len() {
        return Err(vm.value_err(format!(
            "Invalid format specifier '{s}' for object of type '{ty}'"
        )));
    }
    Ok(sp)
}

fn group(digits: &str, sep: char, every: usize) -> String {
    let n = digits.len();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (n - i).is_multiple_of(every) {
            out.push(sep);
        }
        out.push(c);
    }
    out
}

fn pad_to(vm: &mut Vm, body: String, sp: &Spec, default_right: bool, sign_len: usize) -> R<String> {
    let len = body.chars().count();
    if sp.width <= len {
        return Ok(body);
    }
    vm.charge(cost::per_char(sp.width))?;
    vm.reserve(sp.width as u64 * 4)?;
    let n = sp.width - len;
    let fill = if sp.zero && sp.align.is_none() {
        '0'
    } else {
        sp.fill.unwrap_or(' ')
    };
    let align = sp.align.unwrap_or(if sp.zero {
        '='
    } else if default_right {
        '>'
    } else {
        '<'
    });
    let f = |k: usize| std::iter::repeat_n(fill, k).collect::<String>();
    Ok(match align {
        '<' => body + &f(n),
        '^' => f(n / 2) + &body + &f(n - n / 2),
        '=' => {
            let (a, b) = body.split_at(sign_len.min(body.len()));
            format!("{}{}{}", a, f(n), b)
        }
        _ => f(n) + &body,
    })
}

/// `format(v, spec)` for builtin values.
pub fn format_value(vm: &mut Vm, v: &Value, spec: &str) -> R<String> {
    if spec.is_empty() {
        return vm.str(v);
    }
    let tn = vm.type_name(v);
    let sp = parse_spec(vm, spec, &tn)?;
    vm.charge(cost::per_char(sp.width.min(1 << 20)))?;
    match v {
        Value::Int(_) | Value::BigInt(_) | Value::Bool(_)
            if !matches!(sp.ty, Some('e' | 'E' | 'f' | 'F' | 'g' | 'G' | '%')) =>
        {
            let b = match v {
                Value::Int(i) => num_bigint::BigInt::from(*i),
                Value::Bool(x) => num_bigint::BigInt::from(*x as i64),
                Value::BigInt(b) => (**b).clone(),
                _ => num_bigint::BigInt::default(),
            };
            if sp.precision.is_some() {
                return Err(vm.value_err("Precision not allowed in integer format specifier"));
            }
            let neg = b.sign() == num_bigint::Sign::Minus;
            let mag = if neg { -b } else { b };
            let radix = match sp.ty {
                Some('x' | 'X') => 16,
                Some('o') => 8,
                Some('b') => 2,
                _ => 10,
            };
            // The conversion, and then the grouping pass over its digits.
            vm.charge(cost::int_to_text(mag.bits(), radix).saturating_mul(2))?;
            let (digits, prefix) = match sp.ty {
                None | Some('d') | Some('n') => (mag.to_str_radix(10), ""),
                Some('x') => (mag.to_str_radix(16), "0x"),
                Some('X') => (mag.to_str_radix(16).to_uppercase(), "0X"),
                Some('o') => (mag.to_str_radix(8), "0o"),
                Some('b') => (mag.to_str_radix(2), "0b"),
                Some('c') => (
                    char::from_u32(num_traits::ToPrimitive::to_u32(&mag).unwrap_or(0))
                        .unwrap_or(' ')
                        .to_string(),
                    "",
                ),
                Some(t) => {
                    return Err(vm.value_err(format!(
                        "Unknown format code '{t}' for object of type '{tn}'"
                    )))
                }
            };
            let digits = match sp.grouping {
                Some(g) => group(
                    &digits,
                    g,
                    if matches!(sp.ty, Some('x' | 'X' | 'o' | 'b')) {
                        4
                    } else {
                        3
                    },
                ),
                None => digits,
            };
            let sign = if neg {
                "-"
            } else {
                match sp.sign {
                    Some('+') => "+",
                    Some(' ') => " ",
                    _ => "",
                }
            };
            let pre = if sp.alt { prefix } else { "" };
            let body = format!("{sign}{pre}{digits}");
            pad_to(vm, body, &sp, true, sign.len() + pre.len())
        }
        Value::Int(_) | Value::BigInt(_) | Value::Bool(_) | Value::Float(_) => {
            let f = vm.to_float(v)?;
            let neg = f.is_sign_negative();
            let a = f.abs();
            let prec = sp.precision;
            // The digits a precision asks for are produced exactly (CPython prints every
            // digit of the binary value); past the first 400, which the fixed price covers,
            // each is charged and accounted before the string is made.
            // Every digit is paid for: the ones the precision asks for and, for the fixed-point
            // types, the integer part's (up to 309 for 1e308), from the binary exponent.
            let int_digits = if matches!(sp.ty, Some('f' | 'F' | '%')) && a.is_finite() {
                let e2 = ((a.to_bits() >> 52) & 0x7ff).saturating_sub(1023);
                (e2 * 30_103 / 100_000 + 3) as usize
            } else {
                0
            };
            vm.charge(
                cost::per_char(prec.unwrap_or(0).saturating_add(int_digits))
                    .saturating_mul(cost::FLOAT_DIGIT),
            )?;
            if let Some(p) = prec.filter(|p| *p > FREE_DIGITS) {
                vm.reserve(p as u64 + 400)?;
            }
            let mut body = match sp.ty {
                // '#' keeps the decimal point even with no digits after it.
                Some('f') | Some('F') if sp.alt && prec == Some(0) => format!("{}.", fixed(a, 0)),
                Some('f') | Some('F') => fixed(a, prec.unwrap_or(6)),
                Some('e') | Some('E') if sp.alt && prec == Some(0) => {
                    sci(a, 0).replacen('e', ".e", 1)
                }
                Some('e') | Some('E') => sci(a, prec.unwrap_or(6)),
                // Without a locale, 'n' is 'g'.
                Some('n') => general(a, prec.unwrap_or(6), sp.alt),
                Some('%') => format!("{}%", fixed(a * 100.0, prec.unwrap_or(6))),
                Some('g') | Some('G') => general(a, prec.unwrap_or(6), sp.alt),
                None => match prec {
                    Some(p) => {
                        let g = general(a, p.max(1), sp.alt);
                        if g.contains('.')
                            || g.contains('e')
                            || g.contains("inf")
                            || g.contains("nan")
                        {
                            g
                        } else {
                            format!("{g}.0")
                        }
                    }
                    None => float_repr(a),
                },
                Some(t) => {
                    return Err(vm.value_err(format!(
                        "Unknown format code '{t}' for object of type '{tn}'"
                    )))
                }
            };
            if !a.is_finite() {
                let word = if a.is_nan() { "nan" } else { "inf" };
                // '%' keeps its percent sign even for inf and nan, as in CPython.
                body = if sp.ty == Some('%') {
                    format!("{word}%")
                } else {
                    word.into()
                };
            }
            if matches!(sp.ty, Some('E' | 'G' | 'F')) {
                body = body.to_uppercase();
            }
            if let Some(g) = sp.grouping {
                let (ip, rest) = match body.find(|c: char| !c.is_ascii_digit()) {
                    Some(p) => (body[..p].to_string(), body[p..].to_string()),
                    None => (body.clone(), String::new()),
                };
                body = group(&ip, g, 3) + &rest;
            }
            let sign = if neg && !f.is_nan() {
                "-"
            } else {
                match sp.sign {
                    Some('+') => "+",
                    Some(' ') => " ",
                    _ => "",
                }
            };
            pad_to(vm, format!("{sign}{body}"), &sp, true, sign.len())
        }
        Value::Str(s) => {
            if let Some(t) = sp.ty {
                if t != 's' {
                    return Err(vm.value_err(format!(
                        "Unknown format code '{t}' for object of type '{tn}'"
                    )));
                }
            }
            if sp.sign.is_some() {
                return Err(vm.value_err("Sign not allowed in string format specifier"));
            }
            if sp.align == Some('=') {
                return Err(vm.value_err("'=' alignment not allowed in string format specifier"));
            }
            let body: String = match sp.precision {
                Some(p) => s.s.chars().take(p).collect(),
                None => s.s.to_string(),
            };
            pad_to(vm, body, &sp, false, 0)
        }
        _ => {
            let tn = vm.type_name(v);
            Err(vm.type_err(format!(
                "unsupported format string passed to {tn}.__format__"
            )))
        }
    }
}

/// Float formatting digits covered by the fixed price of a format call.
const FREE_DIGITS: usize = 400;

/// A double's exact decimal expansion has at most 1074 fractional and 767 significant digits:
/// past this many, every digit is '0', so longer precisions are padded (Rust's formatter
/// takes at most 65535).
const EXACT_DIGITS: usize = 1100;

fn zeros(n: usize) -> String {
    "0".repeat(n)
}

fn fixed(a: f64, p: usize) -> String {
    let q = p.min(EXACT_DIGITS);
    format!("{:.*}{}", q, a, zeros(p - q))
}

/// `a` as `d.ddd` with `p` digits after the point, and its decimal exponent.
fn sci_parts(a: f64, p: usize) -> (String, i32) {
    let q = p.min(EXACT_DIGITS);
    let s = format!("{:.*e}", q, a);
    let (m, e) = s.split_once('e').unwrap_or((&s, "0"));
    (format!("{m}{}", zeros(p - q)), e.parse().unwrap_or(0))
}

fn sci(a: f64, p: usize) -> String {
    let (m, e) = sci_parts(a, p);
    format!("{}e{}{:02}", m, if e < 0 { '-' } else { '+' }, e.abs())
}

fn general(a: f64, p: usize, alt: bool) -> String {
    let p = p.max(1);
    if a == 0.0 {
        return if alt { fixed(0.0, p - 1) } else { "0".into() };
    }
    if !a.is_finite() {
        return float_repr(a);
    }
    let (m, exp) = sci_parts(a, p - 1);
    let out = if exp < -4 || exp >= p as i32 {
        let m = if alt { m } else { trim_zeros(&m) };
        format!("{}e{}{:02}", m, if exp < 0 { '-' } else { '+' }, exp.abs())
    } else {
        let f = fixed(a, (p as i32 - 1 - exp).max(0) as usize);
        if alt {
            f
        } else {
            trim_zeros(&f)
        }
    };
    out
}

fn trim_zeros(s: &str) -> String {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s.to_string()
    }
}

/// `str.format`.
pub fn str_format(vm: &mut Vm, fmt: &str, args: &Args) -> R<String> {
    format_fields(vm, fmt, args, None)
}

/// `str.format_map`: named fields are looked up with `mapping[name]` (so a dict subclass's
/// `__missing__` applies); positional fields are an error, as in CPython.
pub fn str_format_map(vm: &mut Vm, fmt: &str, mapping: &Value) -> R<String> {
    format_fields(vm, fmt, &Args::new(Vec::new()), Some(mapping))
}

fn format_fields(vm: &mut Vm, fmt: &str, args: &Args, mapping: Option<&Value>) -> R<String> {
    let mut out = String::new();
    let cs: Vec<char> = fmt.chars().collect();
    let mut i = 0;
    let mut auto = 0usize;
    // 0: no field yet, 1: automatic numbering ("{}"), 2: manual ("{0}").
    let mut numbering = 0u8;
    while i < cs.len() {
        let c = cs[i];
        if c == '{' {
            if cs.get(i + 1) == Some(&'{') {
                out.push('{');
                i += 2;
                continue;
            }
            let mut j = i + 1;
            let mut depth = 1;
            while j < cs.len() {
                if cs[j] == '{' {
                    depth += 1;
                } else if cs[j] == '}' {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                j += 1;
            }
            if j >= cs.len() {
                return Err(vm.value_err("Single '{' encountered in format string"));
            }
            vm.charge(cost::FORMAT_FIELD)?;
            let field: String = cs[i + 1..j].iter().collect();
            let (name_conv, spec) = match field.find(':') {
                Some(p) => (field[..p].to_string(), field[p + 1..].to_string()),
                None => (field.clone(), String::new()),
            };
            let (name, conv) = match name_conv.find('!') {
                Some(p) => (
                    name_conv[..p].to_string(),
                    name_conv[p + 1..].chars().next(),
                ),
                None => (name_conv, None),
            };
            let spec = if spec.contains('{') {
                format_fields(vm, &spec, args, mapping)?
            } else {
                spec
            };
            let (first, rest) = match name.find(['.', '[']) {
                Some(p) => (&name[..p], &name[p..]),
                None => (name.as_str(), ""),
            };
            let numbered = !first.is_empty() && first.bytes().all(|b| b.is_ascii_digit());
            if first.is_empty() || numbered {
                // CPython forbids mixing "{}" and "{0}" in one format string.
                let now = if first.is_empty() { 1 } else { 2 };
                if numbering != 0 && numbering != now {
                    return Err(vm.value_err(if now == 2 {
                        "cannot switch from automatic field numbering to manual field specification"
                    } else {
                        "cannot switch from manual field specification to automatic field numbering"
                    }));
                }
                numbering = now;
            }
            let positional = first.is_empty() || first.parse::<usize>().is_ok();
            let mut v = if let (Some(m), false) = (mapping, positional) {
                vm.getitem(m, &Value::str(first))?
            } else if mapping.is_some() {
                return Err(vm.value_err("Format string contains positional fields"));
            } else if first.is_empty() {
                let v = args.pos.get(auto).cloned();
                auto += 1;
                v.ok_or_else(|| {
                    vm.new_exc(
                        "IndexError",
                        &format!(
                            "Replacement index {} out of range for positional args tuple",
                            auto - 1
                        ),
                    )
                })?
            } else if let Ok(n) = first.parse::<usize>() {
                args.pos.get(n).cloned().ok_or_else(|| {
                    vm.new_exc(
                        "IndexError",
                        &format!("Replacement index {n} out of range for positional args tuple"),
                    )
                })?
            } else if let Some(m) = mapping {
                vm.getitem(m, &Value::str(first))?
            } else {
                match args.kw.iter().find(|(k, _)| &**k == first) {
                    Some((_, v)) => v.clone(),
                    None => {
                        let cls = vm.types.exc["KeyError"].clone();
                        return Err(crate::vm::Exc::Py(
                            vm.make_exc(&cls, vec![Value::str(first)]),
                        ));
                    }
                }
            };
            let mut r = rest;
            while !r.is_empty() {
                if let Some(x) = r.strip_prefix('.') {
                    let end = x.find(['.', '[']).unwrap_or(x.len());
                    v = vm.getattr(&v, &x[..end])?;
                    r = &x[end..];
                } else if let Some(x) = r.strip_prefix('[') {
                    let end = x.find(']').unwrap_or(x.len());
                    let key = &x[..end];
                    let k = match key.parse::<i64>() {
                        Ok(n) => Value::Int(n),
                        Err(_) => Value::str(key),
                    };
                    v = vm.getitem(&v, &k)?;
                    r = x.get(end + 1..).unwrap_or("");
                } else {
                    break;
                }
            }
            let v = match conv {
                Some('r') => Value::str(&vm.repr(&v)?),
                Some('s') => Value::str(&vm.str(&v)?),
                Some('a') => Value::str(&ascii_escape(&vm.repr(&v)?)),
                Some(c) => return Err(vm.value_err(format!("Unknown conversion specifier {c}"))),
                None => v,
            };
            out.push_str(&vm.format(&v, &spec)?);
            i = j + 1;
        } else if c == '}' {
            if cs.get(i + 1) == Some(&'}') {
                out.push('}');
                i += 2;
                continue;
            }
            return Err(vm.value_err("Single '}' encountered in format string"));
        } else {
            out.push(c);
            i += 1;
        }
    }
    vm.charge(cost::per_char(out.len()))?;
    Ok(out)
}

/// `fmt % args` for `str`.
pub fn percent_format(vm: &mut Vm, fmt: &str, args: &Value) -> R<String> {
    percent_impl(vm, fmt.chars().collect(), args, false)
}

/// `fmt % args` for `bytes`/`bytearray` (PEP 461): the format and the result are handled as
/// Latin-1 text, one char per byte, so widths and precisions count bytes.
pub fn bytes_percent_format(vm: &mut Vm, fmt: &[u8], args: &Value) -> R<Vec<u8>> {
    let out = percent_impl(vm, fmt.iter().map(|&b| b as char).collect(), args, true)?;
    // Every char the bytes mode emits is below U+0100 (bytes, ASCII reprs and numbers).
    Ok(out.chars().map(|c| c as u8).collect())
}

/// `%b`/`%s` operand of bytes formatting as Latin-1 text.
fn percent_bytes_arg(vm: &mut Vm, v: &Value) -> R<String> {
    let b = match Vm::base_of(v) {
        Value::Bytes(b) => b.b.to_vec(),
        Value::ByteArray(b) => b.b.borrow().clone(),
        _ => match vm.call_dunder(v, "__bytes__", vec![])? {
            Some(Value::Bytes(b)) => b.b.to_vec(),
            Some(other) => {
                let tn = vm.type_name(&other);
                return Err(vm.type_err(format!("__bytes__ returned non-bytes (type {tn})")));
            }
            None => {
                let tn = vm.type_name(v);
                return Err(vm.type_err(format!(
                    "%b requires a bytes-like object, or an object that implements __bytes__, not '{tn}'"
                )));
            }
        },
    };
    // The operand is converted whole before `%.Ns` truncates it: pay for reading it.
    vm.charge(cost::per_char(b.len()))?;
    Ok(b.iter().map(|&x| x as char).collect())
}

/// `%c` operand: one char (str mode) or one byte (bytes mode).
fn percent_char_arg(vm: &mut Vm, v: &Value, bytes: bool) -> R<char> {
    let base = Vm::base_of(v);
    let single = match (&base, bytes) {
        (Value::Str(s), false) if s.s.chars().count() == 1 => s.s.chars().next(),
        (Value::Bytes(b), true) if b.b.len() == 1 => Some(b.b[0] as char),
        (Value::ByteArray(b), true) if b.b.borrow().len() == 1 => Some(b.b.borrow()[0] as char),
        _ => None,
    };
    if let Some(c) = single {
        return Ok(c);
    }
    let wrong = if bytes {
        "%c requires an integer in range(256) or a single byte"
    } else {
        "%c requires int or char"
    };
    if !matches!(base, Value::Int(_) | Value::BigInt(_) | Value::Bool(_)) {
        return Err(vm.type_err(wrong));
    }
    let limit: i64 = if bytes { 0x100 } else { 0x110000 };
    match base {
        Value::Int(i) if (0..limit).contains(&i) => {
            char::from_u32(i as u32).ok_or_else(|| vm.value_err("%c arg not in range(0x110000)"))
        }
        Value::Bool(b) => Ok(char::from(b as u8)),
        _ if bytes => Err(vm.new_exc("OverflowError", "%c arg not in range(256)")),
        _ => Err(vm.new_exc("OverflowError", "%c arg not in range(0x110000)")),
    }
}

fn percent_impl(vm: &mut Vm, cs: Vec<char>, args: &Value, bytes: bool) -> R<String> {
    // The format is scanned (and copied out) whole before an error can end it: paid per char
    // first. Unpaid, `('ab' * 50000) % 3`, which fails only at the end ("not all arguments
    // converted"), ran at 290x the plain loop per cycle (the adversarial search's --prelude).
    vm.charge(cost::per_char(cs.len()))?;
    let base = Vm::base_of(args);
    // CPython reads the tuple in place; a copy here is paid first (`"x" % big_tuple`, which
    // fails at once, copied 200,000 items for one cycle: 15,000x the plain loop per cycle).
    let items: Vec<Value> = match &base {
        Value::Tuple(t) => {
            vm.charge(cost::per_elem(t.items.len()))?;
            t.items.to_vec()
        }
        _ => vec![args.clone()],
    };
    let mapping = matches!(base, Value::Dict(_));
    let args = &base;
    let mut out = String::new();
    let mut i = 0;
    let mut k = 0;
    while i < cs.len() {
        if cs[i] != '%' {
            out.push(cs[i]);
            i += 1;
            continue;
        }
        i += 1;
        let mut key = None;
        if cs.get(i) == Some(&'(') {
            let end = cs[i..]
                .iter()
                .position(|c| *c == ')')
                .map(|p| p + i)
                .unwrap_or(cs.len());
            key = Some(cs[i + 1..end].iter().collect::<String>());
            i = end + 1;
        }
        let mut flags = String::new();
        while i < cs.len() && matches!(cs[i], '-' | '+' | ' ' | '#' | '0') {
            flags.push(cs[i]);
            i += 1;
        }
        let mut width = String::new();
        while i < cs.len() && (cs[i].is_ascii_digit() || cs[i] == '*') {
            if cs[i] == '*' {
                let w = items.get(k).cloned().unwrap_or(Value::Int(0));
                k += 1;
                if !matches!(w, Value::Int(_) | Value::Bool(_)) {
                    return Err(vm.type_err("* wants int"));
                }
                let n = vm.index_of(&w)?;
                // A negative `*` width means left alignment.
                if n < 0 && !flags.contains('-') {
                    flags.push('-');
                }
                width = n.unsigned_abs().to_string();
            } else {
                width.push(cs[i]);
            }
            i += 1;
        }
        let mut prec = None;
        if cs.get(i) == Some(&'.') {
            i += 1;
            let mut p = String::new();
            if cs.get(i) == Some(&'*') {
                // `.*` takes the precision from the arguments.
                let w = items.get(k).cloned().unwrap_or(Value::Int(0));
                k += 1;
                if !matches!(w, Value::Int(_) | Value::Bool(_)) {
                    return Err(vm.type_err("* wants int"));
                }
                p = vm.index_of(&w)?.max(0).to_string();
                i += 1;
            }
            while i < cs.len() && cs[i].is_ascii_digit() {
                p.push(cs[i]);
                i += 1;
            }
            prec = Some(p);
        }
        let Some(&ty) = cs.get(i) else {
            return Err(vm.value_err("incomplete format"));
        };
        i += 1;
        vm.charge(cost::FORMAT_FIELD)?;
        if ty == '%' {
            out.push('%');
            continue;
        }
        let v = match &key {
            Some(kname) => match args {
                Value::Dict(d) => {
                    let k = if bytes {
                        Value::bytes(kname.chars().map(|c| c as u8).collect())
                    } else {
                        Value::str(kname)
                    };
                    vm.dict_get(d, &k)?.ok_or_else(|| {
                        let cls = vm.types.exc["KeyError"].clone();
                        crate::vm::Exc::Py(vm.make_exc(&cls, vec![k]))
                    })?
                }
                _ => return Err(vm.type_err("format requires a mapping")),
            },
            None => {
                if mapping {
                    args.clone()
                } else {
                    let v = items.get(k).cloned();
                    k += 1;
                    v.ok_or_else(|| vm.type_err("not enough arguments for format string"))?
                }
            }
        };
        let align = if flags.contains('-') { "<" } else { "" };
        // Text conversions are right-aligned unless `-` (format()'s default for str is left).
        let talign = if flags.contains('-') { "<" } else { ">" };
        let zero = if flags.contains('0') && !flags.contains('-') {
            "0"
        } else {
            ""
        };
        let sign = if flags.contains('+') {
            "+"
        } else if flags.contains(' ') {
            " "
        } else {
            ""
        };
        let alt = if flags.contains('#') { "#" } else { "" };
        let p = prec
            .as_ref()
            .map(|p| format!(".{}", if p.is_empty() { "0" } else { p }))
            .unwrap_or_default();
        let s = match ty {
            's' | 'b' if bytes => {
                let s = percent_bytes_arg(vm, &v)?;
                format_value(vm, &Value::str(&s), &format!("{talign}{width}{p}"))?
            }
            's' => {
                let s = vm.str(&v)?;
                format_value(vm, &Value::str(&s), &format!("{talign}{width}{p}"))?
            }
            // Bytes have no str(): `%r` is `%a` there (PEP 461).
            'r' | 'a' => {
                let r = vm.repr(&v)?;
                let s = if ty == 'a' || bytes {
                    ascii_escape(&r)
                } else {
                    r
                };
                format_value(vm, &Value::str(&s), &format!("{talign}{width}{p}"))?
            }
            'd' | 'i' | 'u' => {
                let v = match &v {
                    Value::Instance(_) => match vm.call_dunder(&v, "__index__", vec![])? {
                        Some(x) => x,
                        None => Vm::base_of(&v),
                    },
                    _ => v.clone(),
                };
                let iv = match &v {
                    Value::Float(f) => Value::from_bigint(
                        crate::objects::int::float_to_big(*f).unwrap_or_default(),
                    ),
                    Value::Int(_) | Value::BigInt(_) | Value::Bool(_) => v.clone(),
                    _ => {
                        return Err(vm.type_err(format!(
                            "%{ty} format: a real number is required, not {}",
                            vm.type_name(&v)
                        )))
                    }
                };
                if let Some(prec) = p.strip_prefix('.').and_then(|d| d.parse::<usize>().ok()) {
                    // A precision is a minimum digit count (then the 0 flag is ignored).
                    let digits = format_value(vm, &iv, &format!("{sign}d"))?;
                    let (sgn, num) = match digits.find(|c: char| c.is_ascii_digit()) {
                        Some(pos) => digits.split_at(pos),
                        None => ("", digits.as_str()),
                    };
                    vm.charge(cost::per_char(prec.min(1 << 20)))?;
                    vm.reserve(prec as u64)?;
                    let body = format!("{sgn}{}{num}", "0".repeat(prec.saturating_sub(num.len())));
                    format_value(vm, &Value::str(&body), &format!("{talign}{width}"))?
                } else {
                    format_value(vm, &iv, &format!("{align}{sign}{zero}{width}d"))?
                }
            }
            'x' | 'X' | 'o' => {
                let v = match &v {
                    Value::Instance(_) => match vm.call_dunder(&v, "__index__", vec![])? {
                        Some(x) => x,
                        None => Vm::base_of(&v),
                    },
                    _ => v.clone(),
                };
                if !matches!(v, Value::Int(_) | Value::BigInt(_) | Value::Bool(_)) {
                    let tn = vm.type_name(&v);
                    return Err(
                        vm.type_err(format!("%{ty} format: an integer is required, not {tn}"))
                    );
                }
                format_value(vm, &v, &format!("{align}{sign}{alt}{zero}{width}{ty}"))?
            }
            'f' | 'F' | 'e' | 'E' | 'g' | 'G' => {
                let real = match &v {
                    Value::Int(_) | Value::BigInt(_) | Value::Bool(_) | Value::Float(_) => true,
                    Value::Instance(_) => vm.lookup_dunder(&v, "__float__").is_some(),
                    _ => false,
                };
                if !real {
                    let tn = vm.type_name(&v);
                    return Err(vm.type_err(format!("must be real number, not {tn}")));
                }
                let p = if p.is_empty() { ".6".to_string() } else { p };
                format_value(vm, &v, &format!("{align}{sign}{alt}{zero}{width}{p}{ty}"))?
            }
            'c' => {
                let c = percent_char_arg(vm, &v, bytes)?;
                format_value(vm, &Value::str(&c.to_string()), &format!("{talign}{width}"))?
            }
            _ => {
                return Err(vm.value_err(format!(
                    "unsupported format character '{ty}' (0x{:x}) at index {}",
                    ty as u32,
                    i - 1
                )))
            }
        };
        out.push_str(&s);
    }
    // Leftover arguments are an error; a lone non-tuple, non-mapping argument counts as one.
    if !mapping && k < items.len() {
        let what = if bytes { "bytes" } else { "string" };
        return Err(vm.type_err(format!(
            "not all arguments converted during {what} formatting"
        )));
    }
    vm.charge(cost::per_char(out.len()))?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float_repr_matches_cpython() {
        for (f, want) in [
            (0.1, "0.1"),
            (1.0, "1.0"),
            (1e16, "1e+16"),
            (1e15, "1000000000000000.0"),
            (1.5e-5, "1.5e-05"),
            (0.0001, "0.0001"),
            (-0.0, "-0.0"),
            (123456789012345678.0, "1.2345678901234568e+17"),
            (5e-324, "5e-324"),
            (2.9802322387695312e-08, "2.9802322387695312e-08"),
            (1425328188898793.2, "1425328188898793.2"),
            (f64::INFINITY, "inf"),
            (f64::NAN, "nan"),
        ] {
            assert_eq!(float_repr(f), want);
        }
    }

    #[test]
    fn str_repr_quotes_like_cpython() {
        assert_eq!(str_repr("it's"), "\"it's\"");
        assert_eq!(str_repr("a\nb\\"), "'a\\nb\\\\'");
        assert_eq!(str_repr("\u{7f}"), "'\\x7f'");
        assert_eq!(bytes_repr(b"'"), "b\"'\"");
    }
}
