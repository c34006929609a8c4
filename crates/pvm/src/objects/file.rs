//! `open()` and its file objects, over the invocation's in-memory `/tmp` ([`crate::tmpfs`];
//! whitepaper §3.1, CIP-3 §2.2). Nothing here touches the host filesystem.
//!
//! Behaves like CPython 3.11's `open` on a POSIX host whose `/tmp` is empty at the start and
//! has no subdirectories: the same argument checks in the same order, the same object types
//! (`_io.TextIOWrapper`, `_io.BufferedReader`/`BufferedWriter`/`BufferedRandom`), reprs,
//! `OSError` subclasses with errno/strerror/filename, and the same `ValueError` /
//! `io.UnsupportedOperation` messages for closed files and missing capabilities. Differences
//! (LIMITATIONS.md): every path outside `/tmp` (and every relative path) is `PermissionError`;
//! text is UTF-8 only; there are no file descriptors; writes go straight to the file (no
//! buffer to flush), so two handles on one file always see each other's writes.
//!
//! Text-mode positions (`tell`/`seek` cookies) are byte offsets, which is what CPython's
//! cookies are for UTF-8 when no decoder state is pending.
//!
//! Metering: `open` charges [`cost::TMP_OPEN`] plus the path's length; every read, write and
//! truncate charges [`cost::per_char`] of the bytes it moves, before moving them. Every byte a
//! write stores (its data, plus zeros filling a gap left by a seek past the end, or added by a
//! growing `truncate`) is charged as a cell through [`crate::host::Host::tmp_write`] before the
//! file changes. Without a host (`cowboy_pvm::run`) cells are not metered. `/tmp` holds at most
//! `Limits::tmp_bytes` (256 KiB on chain): a write or truncate that would exceed it changes
//! nothing and raises `OSError: [Errno 28] No space left on device`. File contents count
//! against the invocation's memory.

use std::rc::Rc;

use super::native_type::{
    bytes_like, class, new_obj, receiver, state, state_mut, wrong_self, Body,
};
use crate::cost;
use crate::tmpfs::{resolve, Target};
use crate::value::*;
use crate::vm::{Args, Exc, Vm, R};

/// How text lines end (`newline=` of `open`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Newline {
    /// `None`: reading turns `\r\n` and `\r` into `\n`; writing leaves `\n` (POSIX).
    Universal,
    /// `''`: lines end at `\n`, `\r` or `\r\n`, untranslated.
    Any,
    /// `'\n'`.
    Lf,
    /// `'\r'`: lines end at `\r`; writing turns `\n` into `\r`.
    Cr,
    /// `'\r\n'`: lines end at `\r\n`; writing turns `\n` into `\r\n`.
    CrLf,
}

/// The object's class.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Text,
    Reader,
    Writer,
    Random,
}

/// A file object's state. The contents live in `vm.tmpfs` under `key`.
#[derive(Clone)]
struct File {
    /// The path as given to `open` (str or bytes): `name`, and the file name in errors.
    name: Value,
    key: Vec<u8>,
    /// The `mode` attribute.
    mode: Rc<str>,
    kind: Kind,
    read: bool,
    write: bool,
    append: bool,
    pos: u64,
    closed: bool,
    /// Text only: the encoding as given (always UTF-8), the error handler, line endings.
    encoding: Rc<str>,
    errors: Rc<str>,
    newline: Newline,
}

impl File {
    fn text(&self) -> bool {
        self.kind == Kind::Text
    }
}

const TEXT: &str = "_io.TextIOWrapper";
const READER: &str = "_io.BufferedReader";
const WRITER: &str = "_io.BufferedWriter";
const RANDOM: &str = "_io.BufferedRandom";
const UNSUPPORTED: &str = "io.UnsupportedOperation";

/// The class of `kind`, creating the `_io` classes on first use.
fn class_of(vm: &mut Vm, kind: Kind) -> R<Rc<Class>> {
    if !vm.native_classes.contains_key(TEXT) {
        for (q, props) in [
            (TEXT, TEXT_PROPS),
            (READER, BIN_PROPS),
            (WRITER, BIN_PROPS),
            (RANDOM, BIN_PROPS),
        ] {
            let name = &q[4..];
            let c = class(vm, "_io", name, vec![], METHODS, props, Some(no_new))?;
            vm.native_classes.insert(q, c);
        }
        // CPython's io.UnsupportedOperation derives from both OSError and ValueError.
        let bases = vec![
            vm.types.exc["OSError"].clone(),
            vm.types.exc["ValueError"].clone(),
        ];
        let mut d = NameMap::default();
        d.insert("__module__".into(), Value::str("io"));
        d.insert("__doc__".into(), Value::None);
        let c = vm.new_class("UnsupportedOperation", bases, d)?;
        vm.native_classes.insert(UNSUPPORTED, c);
    }
    let q = match kind {
        Kind::Text => TEXT,
        Kind::Reader => READER,
        Kind::Writer => WRITER,
        Kind::Random => RANDOM,
    };
    Ok(vm.native_classes[q].clone())
}

/// `_io.TextIOWrapper()` and friends wrap raw streams, which the PVM does not have.
fn no_new(vm: &mut Vm, a: Args) -> R<Value> {
    let name = match a.pos.first() {
        Some(Value::Class(c)) => c.name.to_string(),
        _ => "file".into(),
    };
    Err(vm.type_err(format!("cannot create '_io.{name}' instances: use open()")))
}

fn unsupported(vm: &mut Vm, msg: &str) -> Exc {
    let cls = vm.native_classes[UNSUPPORTED].clone();
    Exc::Py(vm.make_exc(&cls, vec![Value::str(msg)]))
}

/// `cls(errno, strerror[, filename])`, as CPython raises it.
fn os_error(vm: &mut Vm, cls: &str, errno: i64, strerror: &str, filename: Option<&Value>) -> Exc {
    let cls = vm.types.exc[cls].clone();
    let mut args = vec![Value::Int(errno), Value::str(strerror)];
    args.extend(filename.cloned());
    Exc::Py(vm.make_exc(&cls, args))
}

fn no_space(vm: &mut Vm) -> Exc {
    os_error(vm, "OSError", 28, "No space left on device", None)
}

fn invalid_argument(vm: &mut Vm) -> Exc {
    os_error(vm, "OSError", 22, "Invalid argument", None)
}

/// Parsed `mode` of `open`.
struct Mode {
    read: bool,
    write: bool,
    append: bool,
    create: bool,
    plus: bool,
    binary: bool,
}

fn parse_mode(vm: &mut Vm, mode: &str) -> R<Mode> {
    let mut m = Mode {
        read: false,
        write: false,
        append: false,
        create: false,
        plus: false,
        binary: false,
    };
    let mut text = false;
    for (i, c) in mode.char_indices() {
        let flag = match c {
            'r' => &mut m.read,
            'w' => &mut m.write,
            'a' => &mut m.append,
            'x' => &mut m.create,
            '+' => &mut m.plus,
            'b' => &mut m.binary,
            't' => &mut text,
            _ => return Err(vm.value_err(format!("invalid mode: '{mode}'"))),
        };
        *flag = true;
        if mode[i + 1..].contains(c) {
            return Err(vm.value_err(format!("invalid mode: '{mode}'")));
        }
    }
    if text && m.binary {
        return Err(vm.value_err("can't have text and binary mode at once"));
    }
    let n = [m.read, m.write, m.append, m.create]
        .iter()
        .filter(|x| **x)
        .count();
    if n > 1 {
        return Err(vm.value_err("must have exactly one of create/read/write/append mode"));
    }
    Ok(m)
}

/// `str` or `None` argument `what` of `open`.
fn opt_str(vm: &mut Vm, v: Option<Value>, what: &str) -> R<Option<Rc<str>>> {
    match v {
        None | Some(Value::None) => Ok(None),
        Some(Value::Str(s)) => Ok(Some(Rc::from(&*s.s))),
        Some(o) => {
            let t = vm.type_name(&o);
            Err(vm.type_err(format!(
                "open() argument '{what}' must be str or None, not {t}"
            )))
        }
    }
}

/// Is `encoding` a name of UTF-8 (CPython's normalisation: case-insensitive, runs of
/// punctuation and spaces other than `.` are one `_`).
fn is_utf8(encoding: &str) -> bool {
    let mut norm = String::new();
    let mut sep = false;
    for c in encoding.chars() {
        if c.is_ascii_alphanumeric() || c == '.' {
            if sep && !norm.is_empty() {
                norm.push('_');
            }
            sep = false;
            norm.push(c.to_ascii_lowercase());
        } else {
            sep = true;
        }
    }
    matches!(
        norm.as_str(),
        "utf_8" | "utf8" | "u8" | "utf" | "utf8_ucs2" | "utf8_ucs4" | "cp65001"
    )
}

/// The `open()` builtin.
pub fn open(vm: &mut Vm, a: Args) -> R<Value> {
    const PARAMS: [&str; 8] = [
        "file",
        "mode",
        "buffering",
        "encoding",
        "errors",
        "newline",
        "closefd",
        "opener",
    ];
    if a.pos.len() > PARAMS.len() {
        return Err(vm.type_err(format!(
            "open() takes at most 8 arguments ({} given)",
            a.pos.len() + a.kw.len()
        )));
    }
    let mut vals: [Option<Value>; 8] = Default::default();
    let npos = a.pos.len();
    for (slot, v) in vals.iter_mut().zip(a.pos) {
        *slot = Some(v);
    }
    for (k, v) in a.kw {
        match PARAMS.iter().position(|p| **p == *k) {
            Some(i) if i < npos => {
                return Err(vm.type_err(format!(
                    "argument for open() given by name ('{k}') and position ({})",
                    i + 1
                )))
            }
            Some(i) => vals[i] = Some(v),
            None => {
                return Err(vm.type_err(format!("'{k}' is an invalid keyword argument for open()")))
            }
        }
    }
    let [file, mode, buffering, encoding, errors, newline, closefd, opener] = vals;
    let Some(file) = file else {
        return Err(vm.type_err("open() missing required argument 'file' (pos 1)"));
    };
    let mode_str: Rc<str> = match mode {
        None => "r".into(),
        Some(Value::Str(s)) => Rc::from(&*s.s),
        Some(o) => {
            let t = vm.type_name(&o);
            return Err(vm.type_err(format!("open() argument 'mode' must be str, not {t}")));
        }
    };
    let buffering = match buffering {
        None => -1,
        Some(v) => vm.index_of(&v)?,
    };
    let encoding = opt_str(vm, encoding, "encoding")?;
    let errors = opt_str(vm, errors, "errors")?;
    let newline = opt_str(vm, newline, "newline")?;
    let closefd = match closefd {
        None => true,
        Some(v) => vm.index_of(&v)? != 0,
    };
    let path_chars = match &file {
        Value::Str(s) => s.s.len(),
        Value::Bytes(b) => b.b.len(),
        _ => 0,
    };
    vm.charge(cost::TMP_OPEN + cost::per_char(path_chars))?;

    let m = parse_mode(vm, &mode_str)?;
    if m.binary {
        for (given, what) in [
            (encoding.is_some(), "an encoding"),
            (errors.is_some(), "an errors"),
            (newline.is_some(), "a newline"),
        ] {
            if given {
                return Err(vm.value_err(format!("binary mode doesn't take {what} argument")));
            }
        }
    }

    // What CPython's FileIO does next: the file argument, then the raw mode, then the OS.
    let key: Vec<u8> = match &file {
        Value::Str(s) => s.s.as_bytes().to_vec(),
        Value::Bytes(b) => b.b.to_vec(),
        Value::Int(_) | Value::Bool(_) | Value::BigInt(_) => {
            let fd = vm.index_of(&file)?;
            if fd < 0 {
                return Err(vm.value_err("negative file descriptor"));
            }
            // A sandboxed invocation has no file descriptors.
            return Err(os_error(vm, "OSError", 9, "Bad file descriptor", None));
        }
        other => {
            let t = vm.type_name(other);
            return Err(vm.type_err(format!(
                "expected str, bytes or os.PathLike object, not {t}"
            )));
        }
    };
    if !closefd {
        return Err(vm.value_err("Cannot use closefd=False with file name"));
    }
    if key.contains(&0) {
        return Err(vm.value_err("embedded null byte"));
    }
    if [m.read, m.write, m.append, m.create]
        .iter()
        .filter(|x| **x)
        .count()
        != 1
    {
        return Err(vm.value_err(
            "Must have exactly one of create/read/write/append mode and at most one plus",
        ));
    }
    if opener.is_some_and(|o| !o.is_none()) {
        return Err(
            vm.value_err("open(): an opener needs file descriptors, which the PVM does not have")
        );
    }
    let creates = m.write || m.append || m.create;
    let name = match resolve(&key) {
        Target::Denied => {
            return Err(os_error(
                vm,
                "PermissionError",
                13,
                "Permission denied",
                Some(&file),
            ))
        }
        Target::Root => {
            return Err(os_error(
                vm,
                "IsADirectoryError",
                21,
                "Is a directory",
                Some(&file),
            ))
        }
        Target::Below { name } | Target::Entry { name, dir: true } if vm.tmpfs.exists(&name) => {
            return Err(os_error(
                vm,
                "NotADirectoryError",
                20,
                "Not a directory",
                Some(&file),
            ))
        }
        Target::Entry { dir: true, .. } if creates => {
            return Err(os_error(
                vm,
                "IsADirectoryError",
                21,
                "Is a directory",
                Some(&file),
            ))
        }
        Target::Below { .. } | Target::Entry { dir: true, .. } => {
            return Err(os_error(
                vm,
                "FileNotFoundError",
                2,
                "No such file or directory",
                Some(&file),
            ))
        }
        Target::Entry { name, .. } => name,
    };
    let exists = vm.tmpfs.exists(&name);
    if m.create && exists {
        return Err(os_error(
            vm,
            "FileExistsError",
            17,
            "File exists",
            Some(&file),
        ));
    }
    if !creates && !exists {
        return Err(os_error(
            vm,
            "FileNotFoundError",
            2,
            "No such file or directory",
            Some(&file),
        ));
    }
    if !exists {
        vm.reserve(crate::memory::HEADER as u64)?;
        vm.tmpfs.create(&name);
    }
    if m.write {
        // Shrinking always fits.
        let _ = vm.tmpfs.truncate(&name, 0);
    }

    // The buffered and text layers on top of the opened file.
    if buffering == 0 && !m.binary {
        return Err(vm.value_err("can't have unbuffered text I/O"));
    }
    let nl = match newline.as_deref() {
        None => Newline::Universal,
        Some("") => Newline::Any,
        Some("\n") => Newline::Lf,
        Some("\r") => Newline::Cr,
        Some("\r\n") => Newline::CrLf,
        Some(other) => return Err(vm.value_err(format!("illegal newline value: {other}"))),
    };
    let enc: Rc<str> = encoding.unwrap_or_else(|| "UTF-8".into());
    if !m.binary && !is_utf8(&enc) {
        return Err(vm.new_exc("LookupError", &format!("unknown encoding: {enc}")));
    }
    let read = m.read || m.plus;
    let write = !m.read || m.plus;
    let kind = match (m.binary, read, write) {
        (false, _, _) => Kind::Text,
        (true, true, true) => Kind::Random,
        (true, true, false) => Kind::Reader,
        (true, false, _) => Kind::Writer,
    };
    let mode: Rc<str> = if m.binary {
        let base = if m.create {
            "xb"
        } else if m.append {
            "ab"
        } else if m.read || m.plus {
            "rb"
        } else {
            "wb"
        };
        format!("{base}{}", if m.plus { "+" } else { "" }).into()
    } else {
        mode_str
    };
    let pos = if m.append { vm.tmpfs.len(&name) } else { 0 };
    let f = File {
        name: file,
        key: name,
        mode,
        kind,
        read,
        write,
        append: m.append,
        pos,
        closed: false,
        encoding: enc,
        errors: errors.unwrap_or_else(|| "strict".into()),
        newline: nl,
    };
    let cls = class_of(vm, kind)?;
    Ok(new_obj(&cls, f))
}

/// The receiver of a file method and a copy of its state.
fn this(vm: &mut Vm, a: &mut Args, method: &str) -> R<(Value, File)> {
    let me = receiver(vm, a, "_io._IOBase", method)?;
    let f = state::<File>(&me).map(|f| f.clone());
    match f {
        Some(f) => Ok((me, f)),
        None => Err(wrong_self(vm, &me, "_io._IOBase", method)),
    }
}

fn set_pos(me: &Value, pos: u64) {
    if let Some(mut f) = state_mut::<File>(me) {
        f.pos = pos;
    }
}

/// ValueError for an operation on a closed file.
fn closed(vm: &mut Vm, msg: &str) -> Exc {
    vm.value_err(msg)
}

const CLOSED: &str = "I/O operation on closed file.";

/// A `size` argument: an int or None (-1).
fn size_arg(vm: &mut Vm, v: Option<&Value>) -> R<i64> {
    match v {
        None | Some(Value::None) => Ok(-1),
        Some(Value::Int(_) | Value::Bool(_)) => vm.index_of(v.unwrap_or(&Value::None)),
        Some(Value::BigInt(_)) => Err(vm.new_exc(
            "OverflowError",
            "cannot fit 'int' into an index-sized integer",
        )),
        Some(o) => {
            let t = vm.type_name(o);
            Err(vm.type_err(format!("argument should be integer or None, not '{t}'")))
        }
    }
}

/// Check that `f` may be read by `method` (`read` or `readline`), with CPython's messages.
fn check_readable(vm: &mut Vm, f: &File, method: &str) -> R<()> {
    if f.text() {
        if f.closed {
            return Err(closed(vm, CLOSED));
        }
        if !f.read {
            return Err(unsupported(vm, "not readable"));
        }
    } else {
        if !f.read {
            return Err(unsupported(vm, "read"));
        }
        if f.closed {
            return Err(closed(vm, &format!("{method} of closed file")));
        }
    }
    Ok(())
}

/// Decode text from `d` for `read` (`line == false`) or `readline`, stopping after `limit`
/// characters if given. Returns the text and the bytes consumed. Decoding errors are raised
/// when the read reaches them; positions are counted from the read's start.
/// A decoding failure: the exception class and message (built into an exception by the caller,
/// so decoding can read the file's bytes in place while `vm.tmpfs` is borrowed).
type DecodeErr = (&'static str, String);

fn decode(
    f: &File,
    d: &[u8],
    limit: Option<usize>,
    line: bool,
) -> Result<(String, usize), DecodeErr> {
    let mut out = String::new();
    let (mut i, mut chars) = (0, 0);
    while i < d.len() && limit.is_none_or(|l| chars < l) {
        let (c, w) = match crate::codec::next_utf8(&d[i..]) {
            Ok((c, w)) => (c, w),
            Err((bad, reason)) => match &*f.errors {
                "strict" => {
                    let what = if bad == 1 {
                        format!("byte 0x{:02x} in position {i}", d[i])
                    } else {
                        format!("bytes in position {i}-{}", i + bad - 1)
                    };
                    return Err((
                        "UnicodeDecodeError",
                        format!("'utf-8' codec can't decode {what}: {reason}"),
                    ));
                }
                "ignore" => {
                    i += bad;
                    continue;
                }
                "replace" => ('\u{fffd}', bad),
                other => {
                    return Err((
                        "LookupError",
                        format!("unknown error handler name '{other}'"),
                    ))
                }
            },
        };
        let crlf = c == '\r' && d.get(i + 1) == Some(&b'\n');
        if c == '\r' && f.newline == Newline::Universal {
            out.push('\n');
            i += if crlf { 2 } else { 1 };
        } else {
            out.push(c);
            i += w;
        }
        chars += 1;
        if !line {
            continue;
        }
        let room = limit.is_none_or(|l| chars < l);
        let end = match f.newline {
            // Universal: `c` is the untranslated character.
            Newline::Universal => c == '\n' || c == '\r',
            Newline::Lf => c == '\n',
            Newline::Any => {
                if crlf && room {
                    out.push('\n');
                    i += 1;
                }
                c == '\n' || c == '\r'
            }
            Newline::Cr => c == '\r',
            Newline::CrLf => {
                if crlf && room {
                    out.push('\n');
                    i += 1;
                }
                crlf
            }
        };
        if end {
            break;
        }
    }
    Ok((out, i))
}

/// Read up to `limit` characters/bytes (`None`: to the end), or one line, from the position.
fn read_at(vm: &mut Vm, me: &Value, f: &File, limit: Option<usize>, line: bool) -> R<Value> {
    // The file's bytes are read in place: copying the rest of the file on every call made a
    // loop of readline()/read(1) quadratic in the file size while charging only what it read.
    let start = (f.pos as usize).min(vm.tmpfs.data(&f.key).len());
    let (v, used) = if f.text() {
        let decoded = decode(f, &vm.tmpfs.data(&f.key)[start..], limit, line);
        let (s, used) = decoded.map_err(|(class, msg)| vm.new_exc(class, &msg))?;
        vm.charge(cost::per_char(used))?;
        vm.reserve(s.len() as u64)?;
        (Value::str(&s), used)
    } else {
        let rest = &vm.tmpfs.data(&f.key)[start..];
        let mut end = limit.map_or(rest.len(), |l| l.min(rest.len()));
        if line {
            if let Some(nl) = rest[..end].iter().position(|b| *b == b'\n') {
                end = nl + 1;
            }
        }
        vm.charge(cost::per_char(end))?;
        vm.reserve(end as u64)?;
        let bytes = vm.tmpfs.data(&f.key)[start..start + end].to_vec();
        (Value::bytes(bytes), end)
    };
    if used > 0 {
        set_pos(me, (start + used) as u64);
    }
    Ok(v)
}

fn m_read(vm: &mut Vm, mut a: Args) -> R<Value> {
    let (me, f) = this(vm, &mut a, "read")?;
    let n = size_arg(vm, a.pos.first())?;
    check_readable(vm, &f, "read")?;
    if n < -1 && !f.text() {
        return Err(vm.value_err("read length must be non-negative or -1"));
    }
    read_at(vm, &me, &f, usize::try_from(n).ok(), false)
}

fn m_readline(vm: &mut Vm, mut a: Args) -> R<Value> {
    let (me, f) = this(vm, &mut a, "readline")?;
    let n = size_arg(vm, a.pos.first())?;
    check_readable(vm, &f, "readline")?;
    read_at(vm, &me, &f, usize::try_from(n).ok(), true)
}

fn m_readlines(vm: &mut Vm, mut a: Args) -> R<Value> {
    let (me, f) = this(vm, &mut a, "readlines")?;
    let hint = size_arg(vm, a.pos.first())?;
    if f.closed {
        return Err(closed(vm, CLOSED));
    }
    check_readable(vm, &f, "readline")?;
    let mut lines = Vec::new();
    let mut total = 0usize;
    loop {
        let f = state::<File>(&me).map(|f| f.clone()).unwrap_or(f.clone());
        let line = read_at(vm, &me, &f, None, true)?;
        let n = match &line {
            Value::Str(s) => s.s.chars().count(),
            Value::Bytes(b) => b.b.len(),
            _ => 0,
        };
        if n == 0 {
            break;
        }
        vm.charge(cost::LIST_OP)?;
        lines.push(line);
        total += n;
        if hint > 0 && total >= hint as usize {
            break;
        }
    }
    Ok(Value::list(lines))
}

fn m_next(vm: &mut Vm, mut a: Args) -> R<Value> {
    let (me, f) = this(vm, &mut a, "__next__")?;
    check_readable(vm, &f, "readline")?;
    let line = read_at(vm, &me, &f, None, true)?;
    let empty = match &line {
        Value::Str(s) => s.s.is_empty(),
        Value::Bytes(b) => b.b.is_empty(),
        _ => true,
    };
    if empty {
        return Err(vm.new_exc_noargs("StopIteration"));
    }
    Ok(line)
}

/// Store `bytes` at the position (the end, in append mode): charge cycles, check the cap and
/// memory, charge the stored bytes as cells, then write.
fn store(vm: &mut Vm, me: &Value, f: &File, bytes: &[u8]) -> R<()> {
    vm.charge(cost::per_char(bytes.len()))?;
    let len = vm.tmpfs.len(&f.key);
    let pos = if f.append { len } else { f.pos };
    let Ok(grow) = vm.tmpfs.growth(&f.key, pos, bytes.len() as u64) else {
        return Err(no_space(vm));
    };
    vm.reserve(grow)?;
    let cells = bytes.len() as u64 + pos.saturating_sub(len);
    charge_cells(vm, cells)?;
    if vm.tmpfs.write(&f.key, pos, bytes).is_err() {
        return Err(no_space(vm));
    }
    set_pos(me, pos + bytes.len() as u64);
    Ok(())
}

/// Charge `n` cells to the host, which meters them (CIP-3 §2.2); plain runs have no cells.
fn charge_cells(vm: &mut Vm, n: u64) -> R<()> {
    if n == 0 || vm.host.is_none() {
        return Ok(());
    }
    vm.host_call(|h| h.tmp_write(n))
}

fn m_write(vm: &mut Vm, mut a: Args) -> R<Value> {
    let (me, f) = this(vm, &mut a, "write")?;
    let Some(data) = a.pos.first().cloned() else {
        return Err(vm.type_err("write() takes exactly one argument (0 given)"));
    };
    if f.text() {
        let s = match &data {
            Value::Str(s) => s.clone(),
            other => {
                let t = vm.type_name(other);
                return Err(vm.type_err(format!("write() argument must be str, not {t}")));
            }
        };
        if f.closed {
            return Err(closed(vm, CLOSED));
        }
        if !f.write {
            return Err(unsupported(vm, "not writable"));
        }
        let text = match f.newline {
            Newline::Cr => s.s.replace('\n', "\r"),
            Newline::CrLf => s.s.replace('\n', "\r\n"),
            _ => s.s.to_string(),
        };
        store(vm, &me, &f, text.as_bytes())?;
        return Ok(Value::Int(s.s.chars().count() as i64));
    }
    if f.kind == Kind::Reader {
        return Err(unsupported(vm, "write"));
    }
    let Some(bytes) = bytes_like(&data) else {
        let t = vm.type_name(&data);
        return Err(vm.type_err(format!("a bytes-like object is required, not '{t}'")));
    };
    if f.closed {
        return Err(closed(vm, "write to closed file"));
    }
    store(vm, &me, &f, &bytes)?;
    Ok(Value::Int(bytes.len() as i64))
}

fn m_writelines(vm: &mut Vm, mut a: Args) -> R<Value> {
    let (me, f) = this(vm, &mut a, "writelines")?;
    if f.closed {
        return Err(closed(vm, CLOSED));
    }
    let Some(lines) = a.pos.first().cloned() else {
        return Err(vm.type_err("writelines() takes exactly one argument (0 given)"));
    };
    let it = vm.iter(&lines)?;
    while let Some(line) = vm.next(&it)? {
        m_write(vm, Args::new(vec![me.clone(), line]))?;
    }
    Ok(Value::None)
}

fn m_seek(vm: &mut Vm, mut a: Args) -> R<Value> {
    let (me, f) = this(vm, &mut a, "seek")?;
    let Some(off) = a.pos.first().cloned() else {
        return Err(vm.type_err("seek expected at least 1 argument, got 0"));
    };
    let whence = match a.pos.get(1) {
        Some(w) => vm.index_of(&w.clone())?,
        None => 0,
    };
    // A text cookie may be any number (CPython returns it as given for whence 0).
    let (off, shown) = match off {
        Value::BigInt(_) if !f.text() => {
            return Err(vm.value_err("cannot fit 'int' into an offset-sized integer"))
        }
        Value::Float(x) if f.text() && x.is_finite() => (x as i64, Some(Value::Float(x))),
        v => (vm.index_of(&v)?, None),
    };
    let len = vm.tmpfs.len(&f.key) as i64;
    let new = if f.text() {
        if f.closed {
            return Err(closed(vm, CLOSED));
        }
        match whence {
            0 if off < 0 => return Err(vm.value_err(format!("negative seek position {off}"))),
            0 => off,
            1 if off != 0 => return Err(unsupported(vm, "can't do nonzero cur-relative seeks")),
            1 => f.pos as i64,
            2 if off != 0 => return Err(unsupported(vm, "can't do nonzero end-relative seeks")),
            2 => len,
            w => return Err(vm.value_err(format!("invalid whence ({w}, should be 0, 1 or 2)"))),
        }
    } else {
        if !(0..=2).contains(&whence) {
            return Err(vm.value_err(format!("whence value {whence} unsupported")));
        }
        if f.closed {
            return Err(closed(vm, "seek of closed file"));
        }
        let base = match whence {
            0 => 0,
            1 => f.pos as i64,
            _ => len,
        };
        match base.checked_add(off) {
            Some(p) if p >= 0 => p,
            _ => return Err(invalid_argument(vm)),
        }
    };
    set_pos(&me, new as u64);
    Ok(shown.filter(|_| whence == 0).unwrap_or(Value::Int(new)))
}

fn m_tell(vm: &mut Vm, mut a: Args) -> R<Value> {
    let (_, f) = this(vm, &mut a, "tell")?;
    if f.closed {
        let msg = if f.text() {
            CLOSED
        } else {
            "I/O operation on closed file"
        };
        return Err(closed(vm, msg));
    }
    Ok(Value::Int(f.pos as i64))
}

fn m_truncate(vm: &mut Vm, mut a: Args) -> R<Value> {
    let (_, f) = this(vm, &mut a, "truncate")?;
    if f.closed {
        let msg = if f.text() {
            CLOSED
        } else {
            "truncate of closed file"
        };
        return Err(closed(vm, msg));
    }
    if !f.write {
        return Err(unsupported(vm, "truncate"));
    }
    let size = match a.pos.first() {
        None | Some(Value::None) => f.pos as i64,
        Some(v) => vm.index_of(&v.clone())?,
    };
    if size < 0 {
        return Err(invalid_argument(vm));
    }
    let size = size as u64;
    let len = vm.tmpfs.len(&f.key);
    // The cap is checked before the per-byte charge: a size beyond /tmp's capacity is the
    // documented ENOSPC, not a charge of `size` cycles (10**18 was OutOfCycles).
    let Ok(grow) = vm.tmpfs.growth(&f.key, size, 0) else {
        return Err(no_space(vm));
    };
    vm.charge(cost::per_char(size.abs_diff(len) as usize))?;
    vm.reserve(grow)?;
    charge_cells(vm, grow)?;
    if vm.tmpfs.truncate(&f.key, size).is_err() {
        return Err(no_space(vm));
    }
    Ok(Value::Int(size as i64))
}

fn m_flush(vm: &mut Vm, mut a: Args) -> R<Value> {
    let (_, f) = this(vm, &mut a, "flush")?;
    if f.closed {
        let msg = match f.kind {
            Kind::Text | Kind::Reader => CLOSED,
            Kind::Writer | Kind::Random => "flush of closed file",
        };
        return Err(closed(vm, msg));
    }
    Ok(Value::None)
}

fn m_close(vm: &mut Vm, mut a: Args) -> R<Value> {
    let (me, _) = this(vm, &mut a, "close")?;
    if let Some(mut f) = state_mut::<File>(&me) {
        f.closed = true;
    }
    Ok(Value::None)
}

/// `readable()`/`writable()`: False when the mode lacks the capability (even once closed, as
/// in CPython); otherwise True on an open file.
fn capability(vm: &mut Vm, a: &mut Args, method: &str, has: fn(&File) -> bool) -> R<Value> {
    let (_, f) = this(vm, a, method)?;
    if !has(&f) {
        return Ok(Value::Bool(false));
    }
    if f.closed {
        return Err(closed(vm, "I/O operation on closed file"));
    }
    Ok(Value::Bool(true))
}

fn m_readable(vm: &mut Vm, mut a: Args) -> R<Value> {
    capability(vm, &mut a, "readable", |f| f.read)
}

fn m_writable(vm: &mut Vm, mut a: Args) -> R<Value> {
    capability(vm, &mut a, "writable", |f| f.write)
}

fn m_seekable(vm: &mut Vm, mut a: Args) -> R<Value> {
    capability(vm, &mut a, "seekable", |_| true)
}

fn m_isatty(vm: &mut Vm, mut a: Args) -> R<Value> {
    let (_, f) = this(vm, &mut a, "isatty")?;
    if f.closed {
        return Err(closed(vm, "I/O operation on closed file"));
    }
    Ok(Value::Bool(false))
}

/// There are no file descriptors in the sandbox (like `io.BytesIO.fileno`).
fn m_fileno(vm: &mut Vm, mut a: Args) -> R<Value> {
    let (_, f) = this(vm, &mut a, "fileno")?;
    if f.closed {
        return Err(closed(vm, "I/O operation on closed file"));
    }
    Err(unsupported(vm, "fileno"))
}

/// `__enter__` and `__iter__`: the file itself, if open.
fn m_self(vm: &mut Vm, mut a: Args) -> R<Value> {
    let (me, f) = this(vm, &mut a, "__enter__")?;
    if f.closed {
        return Err(closed(vm, CLOSED));
    }
    Ok(me)
}

fn m_exit(vm: &mut Vm, mut a: Args) -> R<Value> {
    let (me, _) = this(vm, &mut a, "__exit__")?;
    m_close(vm, Args::new(vec![me]))
}

fn m_repr(vm: &mut Vm, mut a: Args) -> R<Value> {
    let (me, f) = this(vm, &mut a, "__repr__")?;
    let cls = vm.type_name(&me);
    let name = vm.repr(&f.name)?;
    Ok(Value::str(&if f.text() {
        format!(
            "<_io.{cls} name={name} mode={} encoding={}>",
            vm.repr(&Value::str(&f.mode))?,
            vm.repr(&Value::str(&f.encoding))?
        )
    } else {
        format!("<_io.{cls} name={name}>")
    }))
}

fn p_name(vm: &mut Vm, mut a: Args) -> R<Value> {
    Ok(this(vm, &mut a, "name")?.1.name)
}

fn p_mode(vm: &mut Vm, mut a: Args) -> R<Value> {
    Ok(Value::str(&this(vm, &mut a, "mode")?.1.mode))
}

fn p_closed(vm: &mut Vm, mut a: Args) -> R<Value> {
    Ok(Value::Bool(this(vm, &mut a, "closed")?.1.closed))
}

fn p_encoding(vm: &mut Vm, mut a: Args) -> R<Value> {
    Ok(Value::str(&this(vm, &mut a, "encoding")?.1.encoding))
}

fn p_errors(vm: &mut Vm, mut a: Args) -> R<Value> {
    Ok(Value::str(&this(vm, &mut a, "errors")?.1.errors))
}

const METHODS: &[(&str, Body)] = &[
    ("read", m_read),
    ("readline", m_readline),
    ("readlines", m_readlines),
    ("write", m_write),
    ("writelines", m_writelines),
    ("seek", m_seek),
    ("tell", m_tell),
    ("truncate", m_truncate),
    ("flush", m_flush),
    ("close", m_close),
    ("readable", m_readable),
    ("writable", m_writable),
    ("seekable", m_seekable),
    ("isatty", m_isatty),
    ("fileno", m_fileno),
    ("__enter__", m_self),
    ("__exit__", m_exit),
    ("__iter__", m_self),
    ("__next__", m_next),
    ("__repr__", m_repr),
];
const BIN_PROPS: &[(&str, Body)] = &[("name", p_name), ("mode", p_mode), ("closed", p_closed)];
const TEXT_PROPS: &[(&str, Body)] = &[
    ("name", p_name),
    ("mode", p_mode),
    ("closed", p_closed),
    ("encoding", p_encoding),
    ("errors", p_errors),
];
