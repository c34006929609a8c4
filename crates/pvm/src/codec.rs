//! Text codecs behind `str.encode`, `bytes.decode`, `bytearray.decode`, `str(b, encoding)` and
//! `bytes(s, encoding)`: UTF-8 (and `utf-8-sig`), ASCII and Latin-1 under every name CPython
//! 3.11 accepts for them, with the error handlers `strict`, `ignore`, `replace` and
//! `backslashreplace` (and `xmlcharrefreplace` when encoding).
//!
//! Errors are CPython's: `LookupError: unknown encoding: …`, `LookupError: unknown error
//! handler name '…'` (raised only when a bad byte or character is met, as CPython does), and
//! `UnicodeDecodeError`/`UnicodeEncodeError` carrying `(encoding, object, start, end, reason)`
//! so that `str(e)` and the attributes match. UTF-8 errors cover the same byte ranges as
//! CPython's decoder ("maximal subparts"), which is also what Rust's `Utf8Error` reports.
//! Callers charge the cycles (per byte or character) before calling.
//!
//! Pure: a failure is a [`CodecError`], which the interpreter turns into the Python exception
//! (`Vm::codec_error`), so the codecs sit below the runtime and name no interpreter.
//!
//! Not supported (LIMITATIONS 21): handlers that produce or consume lone surrogates
//! (`surrogateescape`, `surrogatepass`), and `namereplace` (it needs the Unicode name
//! database); both are `LookupError` when they are needed.

use crate::value::Value;

/// Why encoding or decoding failed, as CPython reports it.
#[derive(Debug, Clone)]
pub enum CodecError {
    /// `LookupError: unknown encoding: …`.
    UnknownEncoding(String),
    /// `LookupError: unknown error handler name '…'`.
    UnknownHandler(String),
    /// A `UnicodeDecodeError` (`decode`) or `UnicodeEncodeError` with CPython's five
    /// arguments `(encoding, object, start, end, reason)`.
    Unicode {
        /// Decoding (else encoding).
        decode: bool,
        /// The arguments.
        args: [Value; 5],
    },
}

/// The codecs the PVM has.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Codec {
    /// UTF-8.
    Utf8,
    /// UTF-8 with a byte-order mark: written when encoding, skipped when decoding.
    Utf8Sig,
    /// 7-bit ASCII.
    Ascii,
    /// ISO-8859-1: bytes are the first 256 code points.
    Latin1,
}

impl Codec {
    /// The name CPython puts in error messages.
    fn name(self) -> &'static str {
        match self {
            Codec::Utf8 | Codec::Utf8Sig => "utf-8",
            Codec::Ascii => "ascii",
            Codec::Latin1 => "latin-1",
        }
    }
}

/// Find a codec the way `codecs.lookup` does: lower-case, runs of punctuation and spaces
/// (other than `.`) become one `_`, then the `encodings.aliases` names of these codecs.
pub fn lookup(encoding: &str) -> Result<Codec, CodecError> {
    let mut norm = String::with_capacity(encoding.len());
    for c in encoding.chars() {
        if c.is_ascii_alphanumeric() || c == '.' {
            norm.push(c.to_ascii_lowercase());
        } else if !norm.ends_with('_') {
            norm.push('_');
        }
    }
    let norm = norm.trim_matches('_');
    Ok(match norm {
        "utf_8" | "utf8" | "u8" | "utf" | "cp65001" | "utf8_ucs2" | "utf8_ucs4" => Codec::Utf8,
        "utf_8_sig" => Codec::Utf8Sig,
        "ascii" | "646" | "ansi_x3.4_1968" | "ansi_x3.4_1986" | "ansi_x3_4_1968" | "cp367"
        | "csascii" | "ibm367" | "iso646_us" | "iso_646.irv_1991" | "iso_ir_6" | "us"
        | "us_ascii" => Codec::Ascii,
        "latin_1" | "latin1" | "latin" | "l1" | "8859" | "cp819" | "csisolatin1" | "ibm819"
        | "iso8859" | "iso8859_1" | "iso_8859_1" | "iso_8859_1_1987" | "iso_ir_100" => {
            Codec::Latin1
        }
        _ => return Err(CodecError::UnknownEncoding(encoding.to_string())),
    })
}

/// One decoded character at the start of `d`, or the length of the invalid UTF-8 sequence
/// there and CPython's reason for it.
pub fn next_utf8(d: &[u8]) -> Result<(char, usize), (usize, &'static str)> {
    let n = d.len().min(4);
    let valid = match std::str::from_utf8(&d[..n]) {
        Ok(s) => s,
        Err(e) if e.valid_up_to() > 0 => std::str::from_utf8(&d[..e.valid_up_to()]).unwrap_or(""),
        Err(e) => {
            return Err(match e.error_len() {
                None => (n, "unexpected end of data"),
                Some(k) if matches!(d[0], 0x80..=0xc1 | 0xf5..=0xff) => (k, "invalid start byte"),
                Some(k) => (k, "invalid continuation byte"),
            })
        }
    };
    match valid.chars().next() {
        Some(c) => Ok((c, c.len_utf8())),
        None => Err((1, "invalid start byte")),
    }
}

/// A `UnicodeDecodeError`/`UnicodeEncodeError` with CPython's five arguments.
fn unicode_error(
    decode: bool,
    codec: Codec,
    object: Value,
    start: usize,
    end: usize,
    reason: &str,
) -> CodecError {
    CodecError::Unicode {
        decode,
        args: [
            Value::str(codec.name()),
            object,
            Value::Int(start as i64),
            Value::Int(end as i64),
            Value::str(reason),
        ],
    }
}

/// `data` as Latin-1: each byte the code point of its value.
pub fn latin1(data: &[u8]) -> String {
    data.iter().map(|&x| x as char).collect()
}

/// `data.decode(encoding, errors)`.
pub fn decode(data: &[u8], encoding: &str, errors: &str) -> Result<String, CodecError> {
    let codec = lookup(encoding)?;
    let data = match codec {
        Codec::Utf8Sig => data
            .strip_prefix(b"\xef\xbb\xbf".as_slice())
            .unwrap_or(data),
        _ => data,
    };
    // The common case, valid input, costs one validation pass.
    match codec {
        Codec::Utf8 | Codec::Utf8Sig => {
            if let Ok(s) = std::str::from_utf8(data) {
                return Ok(s.to_string());
            }
        }
        Codec::Ascii if data.is_ascii() => return Ok(latin1(data)),
        Codec::Latin1 => return Ok(latin1(data)),
        Codec::Ascii => {}
    }
    let mut out = String::with_capacity(data.len());
    let mut i = 0;
    while i < data.len() {
        let bad = match codec {
            Codec::Ascii if data[i] < 0x80 => {
                out.push(data[i] as char);
                i += 1;
                continue;
            }
            Codec::Ascii => (1, "ordinal not in range(128)"),
            _ => match next_utf8(&data[i..]) {
                Ok((c, w)) => {
                    out.push(c);
                    i += w;
                    continue;
                }
                Err(bad) => bad,
            },
        };
        let (len, reason) = bad;
        match errors {
            "strict" => {
                let obj = Value::bytes(data.to_vec());
                return Err(unicode_error(true, codec, obj, i, i + len, reason));
            }
            "ignore" => {}
            "replace" => out.push('\u{fffd}'),
            "backslashreplace" => {
                for b in &data[i..i + len] {
                    out.push_str(&format!("\\x{b:02x}"));
                }
            }
            other => return Err(CodecError::UnknownHandler(other.to_string())),
        }
        i += len;
    }
    Ok(out)
}

/// `text.encode(encoding, errors)`.
pub fn encode(text: &str, encoding: &str, errors: &str) -> Result<Vec<u8>, CodecError> {
    let codec = lookup(encoding)?;
    let limit = match codec {
        // A `str` holds no surrogates, so UTF-8 encoding cannot fail.
        Codec::Utf8 => return Ok(text.as_bytes().to_vec()),
        Codec::Utf8Sig => {
            let mut out = b"\xef\xbb\xbf".to_vec();
            out.extend_from_slice(text.as_bytes());
            return Ok(out);
        }
        Codec::Ascii => 0x80u32,
        Codec::Latin1 => 0x100,
    };
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::with_capacity(chars.len());
    let mut pos = 0;
    while pos < chars.len() {
        let code = u32::from(chars[pos]);
        if code < limit {
            out.push(code as u8);
            pos += 1;
            continue;
        }
        // CPython hands the whole run of unencodable characters to the handler at once.
        let run = chars[pos..]
            .iter()
            .take_while(|c| u32::from(**c) >= limit)
            .count();
        match errors {
            "strict" => {
                let reason = format!("ordinal not in range({limit})");
                return Err(unicode_error(
                    false,
                    codec,
                    Value::str(text),
                    pos,
                    pos + run,
                    &reason,
                ));
            }
            "ignore" => {}
            "replace" => out.extend(std::iter::repeat_n(b'?', run)),
            "backslashreplace" => {
                for &c in &chars[pos..pos + run] {
                    out.extend_from_slice(escape_char(c).as_bytes());
                }
            }
            "xmlcharrefreplace" => {
                for &c in &chars[pos..pos + run] {
                    out.extend_from_slice(format!("&#{};", u32::from(c)).as_bytes());
                }
            }
            other => return Err(CodecError::UnknownHandler(other.to_string())),
        }
        pos += run;
    }
    Ok(out)
}

/// `\xNN`, `\uNNNN` or `\UNNNNNNNN`, as `backslashreplace` and the error messages write a
/// character.
fn escape_char(c: char) -> String {
    let code = u32::from(c);
    if code < 0x100 {
        format!("\\x{code:02x}")
    } else if code < 0x10000 {
        format!("\\u{code:04x}")
    } else {
        format!("\\U{code:08x}")
    }
}

/// `str()` of a `UnicodeDecodeError`/`UnicodeEncodeError` built from its five arguments, or
/// `None` when the arguments are not of that shape (then it prints like any exception).
pub fn unicode_error_str(decode: bool, args: &[Value]) -> Option<String> {
    let [Value::Str(enc), object, Value::Int(start), Value::Int(end), Value::Str(reason)] = args
    else {
        return None;
    };
    let (start, end) = (*start, *end);
    let single = end == start + 1;
    Some(if decode {
        let byte = match object {
            Value::Bytes(b) => b.b.get(start as usize).copied(),
            Value::ByteArray(b) => b.b.borrow().get(start as usize).copied(),
            _ => None,
        };
        match byte {
            Some(b) if single => format!(
                "'{}' codec can't decode byte 0x{b:02x} in position {start}: {}",
                enc.s, reason.s
            ),
            _ => format!(
                "'{}' codec can't decode bytes in position {start}-{}: {}",
                enc.s,
                end - 1,
                reason.s
            ),
        }
    } else {
        let ch = match object {
            Value::Str(s) if start >= 0 => s.s.chars().nth(start as usize),
            _ => None,
        };
        match ch {
            Some(c) if single => format!(
                "'{}' codec can't encode character '{}' in position {start}: {}",
                enc.s,
                escape_char(c),
                reason.s
            ),
            _ => format!(
                "'{}' codec can't encode characters in position {start}-{}: {}",
                enc.s,
                end - 1,
                reason.s
            ),
        }
    })
}
