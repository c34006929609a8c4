//! The type objects: the builtin classes and exception hierarchy ([`make_types`]), what
//! calling a builtin class makes ([`construct`], CPython's `tp_new`/`tp_init` of each type,
//! and `type(name, bases, ns)`: [`type_new`]), the attributes a builtin class answers unbound
//! ([`class_attr`]), an exception's `args` ([`set_exc_args`]) and `len` ([`len_of`]).
//!
//! They are object semantics, used by the interpreter and by object methods alike, so they
//! live here with the objects rather than with the builtin namespace (`crate::builtins`,
//! which the interpreter reaches only through the embedder's [`crate::vm::Library`]).

use crate::cost;
use crate::value::*;
use crate::vm::{Args, Types, Vm, R};
use indexmap::IndexMap;
use std::rc::Rc;

fn cls(name: &str, bases: Vec<Rc<Class>>, b: BuiltinType) -> Rc<Class> {
    let mut mro = Vec::new();
    if let Some(base) = bases.first() {
        mro.push(base.clone());
        mro.extend(base.mro.iter().cloned());
    }
    let mut dict = NameMap::default();
    // The mutable builtins set `__hash__ = None` (as CPython's do), so `list.__hash__ is None`
    // and subclasses inherit unhashability instead of `object.__hash__`.
    // So do the set-like dict views (dict_values keeps object's identity hash).
    if matches!(
        b,
        BuiltinType::List | BuiltinType::Dict | BuiltinType::Set | BuiltinType::ByteArray
    ) || name == "dict_keys"
        || name == "dict_items"
    {
        dict.insert("__hash__".into(), Value::None);
    }
    // Builtin types whose instances have no `__dict__` (subclasses get one). Declared here,
    // when the class is made, because that is when a layout is fixed (`Class::slots`).
    if matches!(name, "complex" | "GenericAlias" | "traceback") {
        dict.insert("__slots__".into(), Value::tuple(Vec::new()));
    }
    crate::value::rc_class(Class::new(name, bases, mro, dict, b))
}

/// Create the builtin classes and exception hierarchy.
pub fn make_types() -> Types {
    // A bare `object()` has no `__dict__` (its layout declares no slots; subclasses get a
    // dict as usual), so `object().x = 1` is AttributeError as in CPython.
    let object = crate::value::rc_class(Class::with_slots(
        "object",
        vec![],
        vec![],
        NameMap::default(),
        BuiltinType::Object,
        Some(Vec::new()),
    ));
    let o = || vec![object.clone()];
    let int = cls("int", o(), BuiltinType::Int);
    let mut exc: IndexMap<&'static str, Rc<Class>> = IndexMap::new();
    let base_exc = cls("BaseException", o(), BuiltinType::BaseException);
    exc.insert("BaseException", base_exc.clone());
    let tree: &[(&'static str, &'static str)] = &[
        ("Exception", "BaseException"),
        ("SystemExit", "BaseException"),
        ("KeyboardInterrupt", "BaseException"),
        ("GeneratorExit", "BaseException"),
        ("ArithmeticError", "Exception"),
        ("OverflowError", "ArithmeticError"),
        ("ZeroDivisionError", "ArithmeticError"),
        ("FloatingPointError", "ArithmeticError"),
        ("AssertionError", "Exception"),
        ("AttributeError", "Exception"),
        ("LookupError", "Exception"),
        ("IndexError", "LookupError"),
        ("KeyError", "LookupError"),
        ("NameError", "Exception"),
        ("UnboundLocalError", "NameError"),
        ("RuntimeError", "Exception"),
        ("RecursionError", "RuntimeError"),
        ("NotImplementedError", "RuntimeError"),
        ("TypeError", "Exception"),
        ("ValueError", "Exception"),
        ("UnicodeError", "ValueError"),
        ("UnicodeDecodeError", "UnicodeError"),
        ("UnicodeEncodeError", "UnicodeError"),
        ("StopIteration", "Exception"),
        ("StopAsyncIteration", "Exception"),
        ("ImportError", "Exception"),
        ("ModuleNotFoundError", "ImportError"),
        ("MemoryError", "Exception"),
        ("BufferError", "Exception"),
        ("EOFError", "Exception"),
        ("OSError", "Exception"),
        ("FileExistsError", "OSError"),
        ("FileNotFoundError", "OSError"),
        ("IsADirectoryError", "OSError"),
        ("NotADirectoryError", "OSError"),
        ("PermissionError", "OSError"),
        ("SystemError", "Exception"),
        ("SyntaxError", "Exception"),
        ("DeterminismError", "Exception"),
        ("Warning", "Exception"),
        ("UserWarning", "Warning"),
        ("DeprecationWarning", "Warning"),
    ];
    for (n, p) in tree {
        let parent = exc[*p].clone();
        exc.insert(n, cls(n, vec![parent], BuiltinType::BaseException));
    }
    // PEP 654: ExceptionGroup(BaseExceptionGroup, Exception), its C3 MRO written out.
    let base_group = cls(
        "BaseExceptionGroup",
        vec![exc["BaseException"].clone()],
        BuiltinType::BaseException,
    );
    let group_mro = vec![
        base_group.clone(),
        exc["Exception"].clone(),
        exc["BaseException"].clone(),
        object.clone(),
    ];
    let group = crate::value::rc_class(Class::new(
        "ExceptionGroup",
        vec![base_group.clone(), exc["Exception"].clone()],
        group_mro,
        NameMap::default(),
        BuiltinType::BaseException,
    ));
    exc.insert("BaseExceptionGroup", base_group);
    exc.insert("ExceptionGroup", group);
    let attr_exc = crate::vm::AttrExcClasses {
        import_error: exc["ImportError"].clone(),
        os_error: exc["OSError"].clone(),
        unicode_decode_error: exc["UnicodeDecodeError"].clone(),
        unicode_encode_error: exc["UnicodeEncodeError"].clone(),
    };
    Types {
        type_: cls("type", o(), BuiltinType::Type),
        bool_: cls("bool", vec![int.clone()], BuiltinType::Bool),
        int,
        float: cls("float", o(), BuiltinType::Float),
        str_: cls("str", o(), BuiltinType::Str),
        bytes: cls("bytes", o(), BuiltinType::Bytes),
        bytearray: cls("bytearray", o(), BuiltinType::ByteArray),
        tuple: cls("tuple", o(), BuiltinType::Tuple),
        list: cls("list", o(), BuiltinType::List),
        dict: cls("dict", o(), BuiltinType::Dict),
        set: cls("set", o(), BuiltinType::Set),
        frozenset: cls("frozenset", o(), BuiltinType::FrozenSet),
        range: cls("range", o(), BuiltinType::Range),
        slice: cls("slice", o(), BuiltinType::Slice),
        none: cls("NoneType", o(), BuiltinType::NoneType),
        function: cls("function", o(), BuiltinType::Function),
        builtin_function: cls("builtin_function_or_method", o(), BuiltinType::Function),
        method: cls("method", o(), BuiltinType::Function),
        generator: cls("generator", o(), BuiltinType::Generator),
        coroutine: cls("coroutine", o(), BuiltinType::Generator),
        async_generator: cls("async_generator", o(), BuiltinType::Generator),
        async_generator_asend: cls("async_generator_asend", o(), BuiltinType::Object),
        async_generator_athrow: cls("async_generator_athrow", o(), BuiltinType::Object),
        anext_awaitable: cls("anext_awaitable", o(), BuiltinType::Object),
        generic_alias: cls("GenericAlias", o(), BuiltinType::Object),
        traceback: cls("traceback", o(), BuiltinType::Object),
        iterator: cls("iterator", o(), BuiltinType::Object),
        module: cls("module", o(), BuiltinType::Module),
        property: cls("property", o(), BuiltinType::Property),
        classmethod: cls("classmethod", o(), BuiltinType::ClassMethod),
        staticmethod: cls("staticmethod", o(), BuiltinType::StaticMethod),
        super_: cls("super", o(), BuiltinType::Super),
        notimpl: cls("NotImplementedType", o(), BuiltinType::NotImplementedType),
        ellipsis: cls("ellipsis", o(), BuiltinType::Ellipsis),
        cell: cls("cell", o(), BuiltinType::Object),
        complex: cls("complex", o(), BuiltinType::Complex),
        union: cls("UnionType", o(), BuiltinType::Object),
        dict_keys: cls("dict_keys", o(), BuiltinType::Object),
        dict_values: cls("dict_values", o(), BuiltinType::Object),
        dict_items: cls("dict_items", o(), BuiltinType::Object),
        mappingproxy: cls("mappingproxy", o(), BuiltinType::Object),
        exc,
        attr_exc,
        object,
    }
}

/// Attributes of builtin classes used unbound (e.g. `dict.fromkeys`, `str.join`).
pub fn class_attr(vm: &mut Vm, c: &Rc<Class>, name: &str) -> Option<Value> {
    let _ = vm;
    // What the class dict holds itself (e.g. `complex`'s native methods) is found there.
    if c.dict.borrow().contains_key(name) {
        return None;
    }
    let alt = BuiltinFn::of_type(c.builtin, name);
    let unbound = alt.is_some()
        || crate::objects::seqdunder::names(c.builtin).contains(&name)
        || (crate::objects::GENERIC_DUNDERS.contains(&name)
            && (!c.is_builtin_value_type() || crate::value::type_has_dunder(c.builtin, name)))
        || match c.builtin {
            BuiltinType::Str => crate::objects::str::METHODS.contains(&name),
            BuiltinType::List => crate::objects::list::METHODS.contains(&name),
            BuiltinType::Dict => crate::objects::dict::METHODS.contains(&name),
            BuiltinType::Set | BuiltinType::FrozenSet => {
                crate::objects::set::METHODS.contains(&name)
            }
            BuiltinType::Int | BuiltinType::Bool => {
                crate::objects::int::METHODS.contains(&name)
                    || crate::objects::numdunder::INT.contains(&name)
            }
            BuiltinType::Float => {
                crate::objects::int::FLOAT_METHODS.contains(&name)
                    || crate::objects::numdunder::FLOAT.contains(&name)
            }
            BuiltinType::Tuple => crate::objects::list::TUPLE_METHODS.contains(&name),
            BuiltinType::Bytes => crate::objects::str::BYTES_METHODS.contains(&name),
            BuiltinType::ByteArray => crate::objects::str::BYTEARRAY_METHODS.contains(&name),
            BuiltinType::Function | BuiltinType::ClassMethod | BuiltinType::StaticMethod => {
                name == "__get__"
            }
            BuiltinType::Property => matches!(
                name,
                "__get__" | "__set__" | "__delete__" | "getter" | "setter" | "deleter"
            ),
            _ => false,
        };
    if !unbound {
        return None;
    }
    let builtin = |kind| {
        Value::Builtin(Rc::new(Builtin {
            name: name.into(),
            kind,
        }))
    };
    Some(match alt {
        // Alternate constructors are class methods: bound to the (possibly derived) class.
        Some(f) if matches!(f.home(), BuiltinHome::ClassMethod(_)) => {
            Value::BoundMethod(Rc::new(BoundMethod {
                receiver: Value::Class(c.clone()),
                func: builtin(BuiltinKind::Func(f)),
            }))
        }
        Some(f) => builtin(BuiltinKind::Func(f)),
        None => builtin(BuiltinKind::Unbound(c.builtin)),
    })
}

/// Store an exception's constructor arguments in `args`. OSError and its subclasses also get
/// CPython's `errno`, `strerror`, `filename` and `filename2` (None unless given): with 2 to 5
/// arguments the first two are errno and strerror, and a non-None third (the file name) and
/// fifth (a second file name) are dropped from `args`, as CPython does.
pub fn set_exc_args(vm: &Vm, inst: &Instance, mut pos: Vec<Value>) {
    // Building an exception's state costs far more than the call that asks for it (see
    // `cost::EXC_NEW`); owed rather than charged because VM errors are built where no charge
    // can fail (`Vm::new_exc`), and paid before the next instruction.
    crate::memory::owe(crate::cost::EXC_NEW);
    let special = &vm.types.attr_exc;
    let cls = inst.cls();
    if cls.is_subclass(&special.import_error) {
        // `msg` is the message when there is exactly one argument; `name` and `path` are
        // keyword-only (`Vm::new_instance` sets them).
        let msg = match pos.as_slice() {
            [m] => m.clone(),
            _ => Value::None,
        };
        inst.dict.set_str("msg", msg);
        for k in ["name", "path"] {
            if inst.dict.get_str(k).is_none() {
                inst.dict.set_str(k, Value::None);
            }
        }
    }
    if cls.is_subclass(&special.os_error) {
        let mut attrs = [Value::None, Value::None, Value::None, Value::None];
        if (2..=5).contains(&pos.len()) {
            attrs[0] = pos[0].clone();
            attrs[1] = pos[1].clone();
            if let Some(f) = pos.get(2).filter(|f| !f.is_none()) {
                attrs[2] = f.clone();
                if let Some(f2) = pos.get(4).filter(|f| !f.is_none()) {
                    attrs[3] = f2.clone();
                }
                pos.truncate(2);
            }
        }
        for (n, v) in ["errno", "strerror", "filename", "filename2"]
            .into_iter()
            .zip(attrs)
        {
            inst.dict.set_str(n, v);
        }
    }
    let unicode = cls.is_subclass(&special.unicode_decode_error)
        || cls.is_subclass(&special.unicode_encode_error);
    if unicode && pos.len() == 5 {
        for (n, v) in ["encoding", "object", "start", "end", "reason"]
            .into_iter()
            .zip(pos.iter())
        {
            inst.dict.set_str(n, v.clone());
        }
    }
    inst.dict.set_str("args", Value::tuple(pos));
}

/// `byteorder` of `int.to_bytes`/`int.from_bytes`.
pub fn check_byteorder(vm: &mut Vm, order: &Value, who: &str) -> R<()> {
    match order {
        Value::Str(s) if matches!(&*s.s, "little" | "big") => Ok(()),
        Value::Str(_) => Err(vm.value_err("byteorder must be either 'little' or 'big'")),
        other => {
            let tn = crate::objects::clinic_type_name(vm, other);
            Err(vm.type_err(format!(
                "{who}() argument 'byteorder' must be str, not {tn}"
            )))
        }
    }
}

/// `type.__new__(meta, name, bases, ns)`, or `type(x)` with one argument.
pub fn type_new(vm: &mut Vm, mut a: Args) -> R<Value> {
    let this = a.pos.first().cloned().unwrap_or_default();
    if a.pos.len() == 2 {
        let v = a.pos[1].clone();
        return Ok(Value::Class(vm.type_of(&v)));
    }
    let Value::Class(meta) = this else {
        return Err(vm.type_err("type.__new__(X): X is not a type object"));
    };
    if a.pos.len() != 4 {
        return Err(vm.type_err("type.__new__() takes exactly 3 arguments"));
    }
    let name = a.pos[1].clone();
    let bases: Vec<Rc<Class>> = match &a.pos[2] {
        Value::Tuple(t) => t
            .items
            .iter()
            .filter_map(|b| {
                if let Value::Class(c) = b {
                    Some(c.clone())
                } else {
                    None
                }
            })
            .collect(),
        other => {
            let tn = vm.type_name(other);
            return Err(vm.type_err(format!("type.__new__() argument 2 must be tuple, not {tn}")));
        }
    };
    let ns = match &a.pos[3] {
        Value::Dict(d) => d.clone(),
        other => {
            let d = crate::value::rc_dict(PyDict::new());
            for (k, v) in vm.mapping_items(other)? {
                vm.dict_set(&d, k, v)?;
            }
            d
        }
    };
    let meta = if Rc::ptr_eq(&meta, &vm.types.type_) {
        None
    } else {
        Some(meta)
    };
    let kw = std::mem::take(&mut a.kw);
    Ok(Value::Class(vm.type_new(meta, &name, bases, &ns, kw)?))
}

/// `len(v)`.
pub fn len_of(vm: &mut Vm, v: &Value) -> R<usize> {
    Ok(match v {
        Value::Str(s) => s.len,
        Value::Bytes(b) => b.b.len(),
        Value::ByteArray(b) => b.b.borrow().len(),
        Value::Tuple(t) => t.items.len(),
        Value::List(l) => l.items.borrow().len(),
        Value::Dict(d) => d.table.borrow().len,
        Value::Set(s) => s.table.borrow().len,
        Value::Range(r) => r.len() as usize,
        Value::Class(_) if vm.lookup_dunder(v, "__len__").is_some() => {
            let r = vm
                .call_dunder(v, "__len__", vec![])?
                .unwrap_or(Value::Int(0));
            vm.index_of(&r)?.max(0) as usize
        }
        Value::Instance(i) => {
            if let Some(r) = vm.call_dunder(v, "__len__", vec![])? {
                let n = vm.index_of(&r)?;
                if n < 0 {
                    return Err(vm.value_err("__len__() should return >= 0"));
                }
                return Ok(n as usize);
            }
            let b = i.base.borrow().clone();
            match b {
                Some(b) => return len_of(vm, &b),
                None => {
                    return Err(
                        vm.type_err(format!("object of type '{}' has no len()", vm.type_name(v)))
                    )
                }
            }
        }
        _ => return Err(vm.type_err(format!("object of type '{}' has no len()", vm.type_name(v)))),
    })
}

/// The `base` argument of `int(x, base)`: 0 (infer from the prefix) or 2..=36, else CPython's
/// ValueError (a base outside the range must never reach the digit parser).
fn int_base(vm: &mut Vm, base: Option<Value>) -> R<u32> {
    let Some(v) = base else {
        return Ok(10);
    };
    match vm.index_of(&v)? {
        b @ (0 | 2..=36) => Ok(b as u32),
        _ => Err(vm.value_err("int() base must be >= 2 and <= 36, or 0")),
    }
}

/// Parse `int(s, base)` of a str (or decoded bytes); `base` is 0 or 2..=36 (see `int_base`).
fn int_from_str(vm: &mut Vm, s: &str, base: u32) -> R<Value> {
    let ascii = crate::unicode::decimal_and_space_to_ascii(s);
    let t = ascii.trim_matches(|c: char| matches!(c, ' ' | '\t'..='\r'));
    let bad = |vm: &mut Vm| {
        vm.value_err(format!(
            "invalid literal for int() with base {}: {}",
            base,
            crate::unicode::str_repr(s)
        ))
    };
    // The scan below is linear; the quadratic share of the charge is taken only for strings
    // that pass the length checks and are parsed (same total for those), so a rejected
    // 100,000-digit string costs 100,000 cycles, not 150 million.
    vm.charge(cost::per_char(t.len()))?;
    let ndigits = t.chars().filter(|c| c.is_ascii_digit()).count();
    if base == 10 && ndigits > 4300 {
        return Err(vm.value_err(format!(
            "Exceeds the limit (4300 digits) for integer string conversion: value has {ndigits} digits; use sys.set_int_max_str_digits() to increase the limit"
        )));
    }
    // Bound the work before parsing: a digit carries at least log2(base) bits (1 bit for
    // base 0, whose prefix is not known yet); the exact cap is checked on the result.
    let bits_per_digit = if base == 0 {
        1.0
    } else {
        f64::from(base).log2()
    };
    let digits = t.chars().filter(|c| c.is_ascii_alphanumeric()).count();
    if (digits.saturating_sub(2) as f64) * bits_per_digit > crate::limits::MAX_INT_BITS as f64 + 8.0
    {
        return Err(vm.new_exc("OverflowError", "integer exceeds the PVM's 4096-bit limit"));
    }
    vm.charge(cost::per_char(t.len()).saturating_mul(t.len() as u64 / 64))?;
    let (neg, body) = match t.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    let mut base = base;
    let mut body = body.to_string();
    let lower = body.to_ascii_lowercase();
    for (p, b) in [("0x", 16), ("0o", 8), ("0b", 2)] {
        if lower.starts_with(p) && (base == b || base == 0) {
            body = body[2..].to_string();
            base = b;
        }
    }
    if base == 0 {
        // Base 0 reads a literal as Python source does: no prefix means decimal, where a
        // leading zero is allowed only in zero itself ("00" yes, "08" no).
        if body.starts_with('0') && body.chars().any(|c| c != '0' && c != '_') {
            return Err(bad(vm));
        }
        base = 10;
    }
    if body.is_empty() || body.starts_with('_') || body.ends_with('_') || body.contains("__") {
        return Err(bad(vm));
    }
    let digits: String = body.chars().filter(|c| *c != '_').collect();
    match num_bigint::BigInt::parse_bytes(digits.as_bytes(), base) {
        Some(b) => vm.int_result(if neg { -b } else { b }),
        None => Err(bad(vm)),
    }
}

/// Parse a float literal the way `float(str)` does.
fn float_from_str(vm: &mut Vm, s: &str) -> R<f64> {
    // Long digit strings take the slow, big-decimal path of the parser: two per char.
    vm.charge(cost::per_char(s.len()).saturating_mul(2))?;
    let ascii = crate::unicode::decimal_and_space_to_ascii(s);
    let t = ascii.trim_matches(|c: char| matches!(c, ' ' | '\t'..='\r'));
    let l = t.to_ascii_lowercase();
    let v = match l.trim_start_matches(['+', '-']) {
        "inf" | "infinity" => Some(f64::INFINITY),
        "nan" => Some(f64::NAN),
        _ => None,
    };
    if let Some(v) = v {
        return Ok(if l.starts_with('-') { -v } else { v });
    }
    if t.contains("__") || t.starts_with('_') || t.ends_with('_') {
        return Err(vm.value_err(format!(
            "could not convert string to float: {}",
            crate::unicode::str_repr(s)
        )));
    }
    let clean: String = t.chars().filter(|c| *c != '_').collect();
    clean.parse::<f64>().map_err(|_| {
        vm.value_err(format!(
            "could not convert string to float: {}",
            crate::unicode::str_repr(s)
        ))
    })
}

/// The `encoding` and `errors` arguments of `str(b, …)` / `bytes(s, …)` (after the object).
fn codec_args(vm: &mut Vm, a: &mut Args, fname: &str) -> R<(String, String)> {
    let encoding = a.pos.get(1).cloned().or_else(|| a.take_kw("encoding"));
    let errors = a.pos.get(2).cloned().or_else(|| a.take_kw("errors"));
    let mut text = |v: Option<Value>, what: &str, default: &str| match v {
        None => Ok(default.to_string()),
        Some(Value::Str(s)) => Ok(s.s.to_string()),
        Some(v) => {
            let tn = vm.type_name(&v);
            Err(vm.type_err(format!("{fname}() argument '{what}' must be str, not {tn}")))
        }
    };
    Ok((
        text(encoding, "encoding", "utf-8")?,
        text(errors, "errors", "strict")?,
    ))
}

/// Construct an instance of a builtin class.
pub fn construct(vm: &mut Vm, c: &Rc<Class>, mut a: Args) -> R<Value> {
    let first = a.pos.first().cloned();
    macro_rules! is {
        ($x:ident) => {
            Rc::ptr_eq(c, &vm.types.$x)
        };
    }
    if is!(int) {
        let base = a.pos.get(1).cloned().or_else(|| a.take_kw("base"));
        return match (first, base) {
            (None, _) => Ok(Value::Int(0)),
            (Some(Value::Str(s)), b) => {
                let b = int_base(vm, b)?;
                int_from_str(vm, &s.s, b)
            }
            (Some(Value::Int(i)), None) => Ok(Value::Int(i)),
            (Some(Value::Bool(b)), None) => Ok(Value::Int(b as i64)),
            (Some(v @ Value::BigInt(_)), None) => Ok(v),
            (Some(Value::Float(f)), None) => crate::objects::int::float_to_int(vm, f.trunc()),
            (Some(Value::Bytes(b)), base) => {
                let base = int_base(vm, base)?;
                int_from_str(vm, &String::from_utf8_lossy(&b.b), base)
            }
            (Some(Value::ByteArray(b)), base) => {
                let base = int_base(vm, base)?;
                let text = String::from_utf8_lossy(&b.b.borrow()).into_owned();
                int_from_str(vm, &text, base)
            }
            (Some(v @ Value::Instance(_)), None) => {
                for m in ["__int__", "__index__", "__trunc__"] {
                    if let Some(r) = vm.call_dunder(&v, m, vec![])? {
                        return Ok(r);
                    }
                }
                let b = Vm::base_of(&v);
                if !b.is(&v) {
                    return construct(vm, c, Args::new(vec![b]));
                }
                Err(vm.type_err(format!("int() argument must be a string, a bytes-like object or a real number, not '{}'", vm.type_name(&v))))
            }
            (Some(_), Some(_)) => {
                Err(vm.type_err("int() can't convert non-string with explicit base"))
            }
            (Some(v), _) => Err(vm.type_err(format!(
                "int() argument must be a string, a bytes-like object or a real number, not '{}'",
                vm.type_name(&v)
            ))),
        };
    }
    if is!(float) {
        return match first {
            None => Ok(Value::Float(0.0)),
            Some(Value::Str(s)) => Ok(Value::Float(float_from_str(vm, &s.s)?)),
            Some(v @ Value::Instance(_)) => {
                if let Some(r) = vm.call_dunder(&v, "__float__", vec![])? {
                    return Ok(r);
                }
                if Vm::base_of(&v).is(&v) && vm.lookup_dunder(&v, "__index__").is_none() {
                    return Err(vm.type_err(format!(
                        "float() argument must be a string or a real number, not '{}'",
                        vm.type_name(&v)
                    )));
                }
                Ok(Value::Float(vm.to_float(&v)?))
            }
            Some(v) => match v {
                Value::Int(_) | Value::BigInt(_) | Value::Bool(_) | Value::Float(_) => {
                    Ok(Value::Float(vm.to_float(&v)?))
                }
                _ => Err(vm.type_err(format!(
                    "float() argument must be a string or a real number, not '{}'",
                    vm.type_name(&v)
                ))),
            },
        };
    }
    if is!(str_) {
        let first = first.or_else(|| a.take_kw("object"));
        return match first {
            None => Ok(Value::str("")),
            Some(v) if a.pos.len() > 1 || !a.kw.is_empty() => {
                let (encoding, errors) = codec_args(vm, &mut a, "str")?;
                let data = match &v {
                    Value::Bytes(b) => b.b.to_vec(),
                    Value::ByteArray(b) => b.b.borrow().clone(),
                    Value::Str(_) => return Err(vm.type_err("decoding str is not supported")),
                    other => {
                        let tn = vm.type_name(other);
                        return Err(vm.type_err(format!(
                            "decoding to str: need a bytes-like object, {tn} found"
                        )));
                    }
                };
                vm.charge(cost::CODEC + cost::per_char(data.len()))?;
                let text = crate::codec::decode(&data, &encoding, &errors)
                    .map_err(|e| vm.codec_error(e))?;
                Ok(Value::str(&text))
            }
            Some(v) => Ok(Value::str(&vm.str(&v)?)),
        };
    }
    if is!(bool_) {
        return match first {
            None => Ok(Value::Bool(false)),
            Some(v) => Ok(Value::Bool(vm.truthy(&v)?)),
        };
    }
    if is!(list) {
        return Ok(Value::list(match first {
            None => vec![],
            Some(v) => vm.collect(&v)?,
        }));
    }
    if is!(tuple) {
        return Ok(match first {
            None => Value::tuple(vec![]),
            Some(v @ Value::Tuple(_)) => v,
            Some(v) => Value::tuple(vm.collect(&v)?),
        });
    }
    if is!(set) || is!(frozenset) {
        let frozen = is!(frozenset);
        if let (true, Some(Value::Set(f))) = (frozen, &first) {
            if f.frozen {
                return Ok(Value::Set(f.clone()));
            }
        }
        return match first {
            None => vm.new_set(vec![], frozen),
            Some(v) => Ok(Value::Set(vm.set_from_iter(&v, frozen)?)),
        };
    }
    if is!(dict) {
        let d = crate::value::rc_dict(PyDict::new());
        crate::objects::dict::update(vm, &d, a)?;
        return Ok(Value::Dict(d));
    }
    if is!(bytes) || is!(bytearray) {
        let coding = a.pos.len() > 1 || !a.kw.is_empty();
        let data = match first {
            Some(Value::Str(s)) if coding => {
                let (encoding, errors) = codec_args(vm, &mut a, c.name.as_ref())?;
                vm.charge(cost::CODEC + cost::per_char(s.s.len()))?;
                crate::codec::encode(&s.s, &encoding, &errors).map_err(|e| vm.codec_error(e))?
            }
            Some(Value::Str(_)) => return Err(vm.type_err("string argument without an encoding")),
            _ if coding && a.pos.len() > 1 => {
                let e = if a.pos.len() > 2 || a.kw.iter().any(|(k, _)| &**k == "encoding") {
                    "encoding or errors without a string argument"
                } else {
                    "encoding without a string argument"
                };
                return Err(vm.type_err(e));
            }
            _ if coding => return Err(vm.type_err("errors without a string argument")),
            Some(v @ Value::Instance(_))
                if vm.lookup_dunder(&v, "__bytes__").is_some() && is!(bytes) =>
            {
                let r = vm.call_dunder(&v, "__bytes__", vec![])?.unwrap_or_default();
                return match r {
                    Value::Bytes(_) => Ok(r),
                    other => {
                        let tn = vm.type_name(&other);
                        Err(vm.type_err(format!("__bytes__ returned non-bytes (type {tn})")))
                    }
                };
            }
            None => vec![],
            Some(Value::Int(n)) => {
                if n < 0 {
                    return Err(vm.value_err("negative count"));
                }
                vm.charge(n as u64)?;
                vm.reserve(n as u64)?;
                vec![0; n as usize]
            }
            Some(Value::Bytes(b)) => b.b.to_vec(),
            Some(Value::ByteArray(b)) => b.b.borrow().clone(),
            Some(v) => {
                let items = match vm.collect(&v) {
                    Ok(items) => items,
                    Err(e) if vm.exc_is(&e, "TypeError") && vm.not_iterable(&v) => {
                        let tn = vm.type_name(&v);
                        return Err(
                            vm.type_err(format!("cannot convert '{tn}' object to {}", c.name))
                        );
                    }
                    Err(e) => return Err(e),
                };
                let mut out = Vec::with_capacity(items.len());
                for x in items {
                    let i = vm.index_of(&x)?;
                    if !(0..256).contains(&i) {
                        let what = if is!(bytes) { "bytes" } else { "byte" };
                        return Err(vm.value_err(format!("{what} must be in range(0, 256)")));
                    }
                    out.push(i as u8);
                }
                out
            }
        };
        return Ok(if is!(bytes) {
            Value::bytes(data)
        } else {
            Value::ByteArray(Rc::new(PyByteArray::new(data)))
        });
    }
    if is!(range) {
        let mut nums = Vec::new();
        for x in &a.pos {
            nums.push(vm.index_of(x)?);
        }
        let (start, stop, step) = match nums.as_slice() {
            [s] => (0, *s, 1),
            [a, b] => (*a, *b, 1),
            [a, b, c] => (*a, *b, *c),
            [] => return Err(vm.type_err("range expected at least 1 argument, got 0")),
            _ => {
                return Err(vm.type_err(format!(
                    "range expected at most 3 arguments, got {}",
                    nums.len()
                )))
            }
        };
        if step == 0 {
            return Err(vm.value_err("range() arg 3 must not be zero"));
        }
        return Ok(Value::Range(Rc::new(PyRange { start, stop, step })));
    }
    if is!(slice) {
        let p = &a.pos;
        let g = |i: usize| p.get(i).cloned().unwrap_or_default();
        return Ok(Value::Slice(Rc::new(match p.len() {
            1 => PySlice {
                start: Value::None,
                stop: g(0),
                step: Value::None,
            },
            _ => PySlice {
                start: g(0),
                stop: g(1),
                step: g(2),
            },
        })));
    }
    if is!(object) {
        return vm.new_instance(c, &Args::default());
    }
    if is!(type_) {
        return match a.pos.len() {
            1 => Ok(Value::Class(vm.type_of(&a.pos[0]))),
            3 => {
                a.pos.insert(0, Value::Class(c.clone()));
                type_new(vm, a)
            }
            _ => Err(vm.type_err("type() takes 1 or 3 arguments")),
        };
    }
    if is!(property) {
        let g = |i: usize, n: &str, a: &mut Args| {
            a.pos
                .get(i)
                .cloned()
                .or_else(|| a.take_kw(n))
                .unwrap_or_default()
        };
        let fget = g(0, "fget", &mut a);
        let fset = g(1, "fset", &mut a);
        let fdel = g(2, "fdel", &mut a);
        let mut doc = g(3, "doc", &mut a);
        // Without an explicit doc, a property documents itself with its getter's docstring.
        if doc.is_none() && !fget.is_none() {
            doc = vm.getattr_opt(&fget, "__doc__")?.unwrap_or_default();
        }
        return Ok(Value::Property(Rc::new(Property {
            fget,
            fset,
            fdel,
            doc,
        })));
    }
    if is!(classmethod) {
        return Ok(Value::ClassMethod(Rc::new(Wrapped(
            first.unwrap_or_default(),
        ))));
    }
    if is!(staticmethod) {
        return Ok(Value::StaticMethod(Rc::new(Wrapped(
            first.unwrap_or_default(),
        ))));
    }
    if is!(super_) {
        let (Some(Value::Class(cl)), Some(obj)) = (a.pos.first().cloned(), a.pos.get(1).cloned())
        else {
            return Err(vm.new_exc("RuntimeError", "super(): no arguments"));
        };
        return Ok(Value::Super(Rc::new(Super { class: cl, obj })));
    }
    Err(vm.type_err(format!("cannot create '{}' instances", c.name)))
}
