//! Canonical CBOR (RFC 8949 §4.2, "core deterministic encoding"), Cowboy's profile.
//!
//! Every consensus object is encoded with this codec (ARCHITECTURE D3, whitepaper §2.5). The
//! encoder only produces canonical bytes; the decoder accepts only canonical bytes, so for every
//! [`Value`] there is exactly one encoding and `encode(decode(b)?) == b` for every accepted `b`.
//!
//! Rules enforced by the decoder (each violation is a distinct [`CborErrorKind`]):
//! - integers, lengths and tags use the shortest head (RFC 8949 §4.2.1);
//! - no indefinite-length items (§4.2.1);
//! - map keys are strictly increasing in the bytewise order of their encodings, so there are no
//!   duplicates (§4.2.1);
//! - text is valid UTF-8;
//! - the only tags are 2 and 3 (unsigned/negative bignums), used only for values that do not fit
//!   the 64-bit heads, with no leading zero bytes, at most [`MAX_BIGNUM_BYTES`] long;
//! - the only simple values are `false`, `true` and `null`;
//! - floats are always IEEE-754 binary64 (head 0xfb). This is Cowboy's deviation from RFC 8949
//!   preferred serialization (which would shorten to binary16/32): CIP-3 fixes floats crossing the
//!   VM boundary at 64 bits, and one width keeps the encoder trivially deterministic. NaN is
//!   canonicalised to `0x7ff8000000000000`.
//! - nesting is at most [`MAX_DEPTH`] deep, and no length is believed before the input proves
//!   it (each element needs at least one byte), so hostile lengths cannot force allocations.

use std::fmt;

/// Maximum nesting depth of arrays/maps/tags the decoder accepts.
pub const MAX_DEPTH: usize = 128;

/// Maximum bignum magnitude in bytes (4096 bits: the PVM's integer cap).
pub const MAX_BIGNUM_BYTES: usize = 512;

/// The canonical NaN bit pattern.
const CANONICAL_NAN: u64 = 0x7ff8_0000_0000_0000;

/// A CBOR data item in Cowboy's canonical profile.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// Major type 0: an unsigned integer `0..=u64::MAX`.
    Uint(u64),
    /// Major type 1: the negative integer `-1 - n`.
    Nint(u64),
    /// Tag 2: an unsigned integer above `u64::MAX`, big-endian magnitude without leading zeros.
    BigUint(Vec<u8>),
    /// Tag 3: the negative integer `-1 - n` for `n` above `u64::MAX` (big-endian, no leading zeros).
    BigNint(Vec<u8>),
    /// Major type 2: a byte string.
    Bytes(Vec<u8>),
    /// Major type 3: a UTF-8 text string.
    Text(String),
    /// Major type 4: an array.
    Array(Vec<Value>),
    /// Major type 5: a map. The encoder sorts entries canonically; keys must be distinct.
    Map(Vec<(Value, Value)>),
    /// Simple values 20/21.
    Bool(bool),
    /// Simple value 22.
    Null,
    /// An IEEE-754 binary64 float.
    Float(f64),
}

impl Value {
    /// An unsigned 128-bit integer, encoded as a plain integer or a bignum as canonical rules say.
    pub fn from_u128(v: u128) -> Value {
        match u64::try_from(v) {
            Ok(small) => Value::Uint(small),
            Err(_) => Value::BigUint(strip_leading_zeros(&v.to_be_bytes()).to_vec()),
        }
    }

    /// A signed 128-bit integer.
    pub fn from_i128(v: i128) -> Value {
        if v >= 0 {
            Value::from_u128(v as u128)
        } else {
            // -1 - n = v  =>  n = -1 - v = !v (two's complement), which is non-negative.
            let n = (!v) as u128;
            match u64::try_from(n) {
                Ok(small) => Value::Nint(small),
                Err(_) => Value::BigNint(strip_leading_zeros(&n.to_be_bytes()).to_vec()),
            }
        }
    }

    /// The value as a `u64`, if it is a non-negative integer that fits.
    pub fn as_u64(&self) -> Option<u64> {
        match self {
            Value::Uint(v) => Some(*v),
            _ => None,
        }
    }

    /// The value as a `u128`, if it is a non-negative integer that fits.
    pub fn as_u128(&self) -> Option<u128> {
        match self {
            Value::Uint(v) => Some(u128::from(*v)),
            Value::BigUint(bytes) if bytes.len() <= 16 => {
                let mut buf = [0u8; 16];
                buf[16 - bytes.len()..].copy_from_slice(bytes);
                Some(u128::from_be_bytes(buf))
            }
            _ => None,
        }
    }

    /// A short name of the item's kind, for error messages.
    pub fn kind(&self) -> &'static str {
        match self {
            Value::Uint(_) | Value::Nint(_) | Value::BigUint(_) | Value::BigNint(_) => "integer",
            Value::Bytes(_) => "bytes",
            Value::Text(_) => "text",
            Value::Array(_) => "array",
            Value::Map(_) => "map",
            Value::Bool(_) => "bool",
            Value::Null => "null",
            Value::Float(_) => "float",
        }
    }
}

fn strip_leading_zeros(bytes: &[u8]) -> &[u8] {
    let first = bytes.iter().position(|b| *b != 0).unwrap_or(bytes.len());
    &bytes[first..]
}

/// Why a byte string is not the canonical encoding of a value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CborErrorKind {
    /// The input ended inside an item.
    UnexpectedEof,
    /// Bytes remain after the top-level item.
    TrailingBytes,
    /// An integer, length or tag used a longer head than needed.
    NonShortestHead,
    /// Additional information 28–30 (reserved) was used.
    ReservedAdditionalInfo(u8),
    /// An indefinite-length item (additional information 31).
    IndefiniteLength,
    /// A tag other than 2/3.
    UnsupportedTag(u64),
    /// A bignum whose content is not a byte string, has leading zeros, fits 64 bits, or is too long.
    NonCanonicalBignum,
    /// A simple value other than false/true/null, or a binary16/binary32 float.
    UnsupportedSimple(u8),
    /// A NaN with a payload other than the canonical one.
    NonCanonicalNan,
    /// Text that is not valid UTF-8.
    InvalidUtf8,
    /// Map keys not strictly increasing in encoded order.
    MapKeysNotSorted,
    /// The same map key twice.
    DuplicateMapKey,
    /// Nesting deeper than [`MAX_DEPTH`].
    DepthExceeded,
    /// A declared length larger than the remaining input could hold.
    LengthExceedsInput(u64),
}

/// A decoding error: what was wrong and the byte offset where it was found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CborError {
    /// Byte offset of the offending item's head.
    pub offset: usize,
    /// What was wrong.
    pub kind: CborErrorKind,
}

impl fmt::Display for CborError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use CborErrorKind::*;
        let what = match &self.kind {
            UnexpectedEof => "unexpected end of input".to_string(),
            TrailingBytes => "trailing bytes after the item".to_string(),
            NonShortestHead => "integer or length not in shortest form".to_string(),
            ReservedAdditionalInfo(ai) => format!("reserved additional information {ai}"),
            IndefiniteLength => "indefinite-length item".to_string(),
            UnsupportedTag(t) => format!("unsupported tag {t}"),
            NonCanonicalBignum => "non-canonical bignum".to_string(),
            UnsupportedSimple(s) => format!("unsupported simple value or float width {s}"),
            NonCanonicalNan => "NaN with a non-canonical payload".to_string(),
            InvalidUtf8 => "text is not valid UTF-8".to_string(),
            MapKeysNotSorted => "map keys are not in canonical order".to_string(),
            DuplicateMapKey => "duplicate map key".to_string(),
            DepthExceeded => format!("nesting deeper than {MAX_DEPTH}"),
            LengthExceedsInput(n) => format!("declared length {n} exceeds the input"),
        };
        write!(f, "non-canonical CBOR at byte {}: {what}", self.offset)
    }
}

impl std::error::Error for CborError {}

/// Encodes `value` canonically.
pub fn encode(value: &Value) -> Vec<u8> {
    // Most encodings (keys, scalars, small records) fit: one allocation instead of a few
    // doublings.
    let mut out = Vec::with_capacity(64);
    encode_into(value, &mut out);
    out
}

/// Appends the canonical encoding of `value` to `out`.
pub fn encode_into(value: &Value, out: &mut Vec<u8>) {
    match value {
        Value::Uint(v) => write_head(out, 0, *v),
        Value::Nint(v) => write_head(out, 1, *v),
        Value::BigUint(mag) | Value::BigNint(mag) => {
            let mag = strip_leading_zeros(mag);
            let negative = matches!(value, Value::BigNint(_));
            if mag.len() <= 8 {
                // Magnitudes that fit 64 bits use the plain integer head (preferred serialization).
                let mut buf = [0u8; 8];
                buf[8 - mag.len()..].copy_from_slice(mag);
                write_head(out, if negative { 1 } else { 0 }, u64::from_be_bytes(buf));
            } else {
                write_head(out, 6, if negative { 3 } else { 2 });
                write_head(out, 2, mag.len() as u64);
                out.extend_from_slice(mag);
            }
        }
        Value::Bytes(b) => write_bytes(out, b),
        Value::Text(s) => write_text(out, s),
        Value::Array(items) => {
            write_array_head(out, items.len());
            for item in items {
                encode_into(item, out);
            }
        }
        Value::Map(entries) => {
            // Each entry is encoded once into one scratch buffer, then copied out in key order.
            let mut scratch = Vec::new();
            let mut spans: Vec<MapEntry> = Vec::with_capacity(entries.len());
            for (k, v) in entries {
                let start = scratch.len();
                encode_into(k, &mut scratch);
                let key_end = scratch.len();
                encode_into(v, &mut scratch);
                spans.push(MapEntry {
                    start,
                    key_end,
                    end: scratch.len(),
                });
            }
            write_map(out, &scratch, &mut spans);
        }
        Value::Bool(false) => out.push(0xf4),
        Value::Bool(true) => out.push(0xf5),
        Value::Null => out.push(0xf6),
        Value::Float(f) => {
            let bits = if f.is_nan() {
                CANONICAL_NAN
            } else {
                f.to_bits()
            };
            out.push(0xfb);
            out.extend_from_slice(&bits.to_be_bytes());
        }
    }
}

/// One map entry encoded into a scratch buffer: key at `start..key_end`, value up to `end`.
#[derive(Clone, Copy, Debug)]
pub struct MapEntry {
    /// Where the entry's key starts.
    pub start: usize,
    /// Where its key ends and its value starts.
    pub key_end: usize,
    /// Where its value ends.
    pub end: usize,
}

/// Appends a canonical map whose entries were encoded, in any order, into `scratch`: the
/// entries are written in the bytewise order of their encoded keys (canonical CBOR), which
/// must be distinct. For encoders that write straight from their own data (the PVM's).
pub fn write_map(out: &mut Vec<u8>, scratch: &[u8], entries: &mut [MapEntry]) {
    entries.sort_by(|a, b| scratch[a.start..a.key_end].cmp(&scratch[b.start..b.key_end]));
    write_head(out, 5, entries.len() as u64);
    for e in entries.iter() {
        out.extend_from_slice(&scratch[e.start..e.end]);
    }
}

/// Appends a text string (major type 3).
pub fn write_text(out: &mut Vec<u8>, s: &str) {
    write_head(out, 3, s.len() as u64);
    out.extend_from_slice(s.as_bytes());
}

/// Appends a byte string (major type 2).
pub fn write_bytes(out: &mut Vec<u8>, b: &[u8]) {
    write_head(out, 2, b.len() as u64);
    out.extend_from_slice(b);
}

/// Appends the head of an array of `len` items (major type 4); the items follow.
pub fn write_array_head(out: &mut Vec<u8>, len: usize) {
    write_head(out, 4, len as u64);
}

fn write_head(out: &mut Vec<u8>, major: u8, v: u64) {
    let m = major << 5;
    if v < 24 {
        out.push(m | v as u8);
    } else if v <= u64::from(u8::MAX) {
        out.push(m | 24);
        out.push(v as u8);
    } else if v <= u64::from(u16::MAX) {
        out.push(m | 25);
        out.extend_from_slice(&(v as u16).to_be_bytes());
    } else if v <= u64::from(u32::MAX) {
        out.push(m | 26);
        out.extend_from_slice(&(v as u32).to_be_bytes());
    } else {
        out.push(m | 27);
        out.extend_from_slice(&v.to_be_bytes());
    }
}

/// Decodes exactly one canonical item occupying all of `bytes`.
pub fn decode(bytes: &[u8]) -> Result<Value, CborError> {
    let mut d = Decoder { bytes, pos: 0 };
    let value = d.item(0)?;
    if d.pos != bytes.len() {
        return Err(CborError {
            offset: d.pos,
            kind: CborErrorKind::TrailingBytes,
        });
    }
    Ok(value)
}

struct Decoder<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl Decoder<'_> {
    fn err(&self, offset: usize, kind: CborErrorKind) -> CborError {
        CborError { offset, kind }
    }

    fn take(&mut self, n: usize, at: usize) -> Result<&[u8], CborError> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|end| *end <= self.bytes.len())
            .ok_or(CborError {
                offset: at,
                kind: CborErrorKind::UnexpectedEof,
            })?;
        let slice = &self.bytes[self.pos..end];
        self.pos = end;
        Ok(slice)
    }

    /// Reads a head, returning (major, additional info, argument). Checks shortest form.
    fn head(&mut self) -> Result<(u8, u8, u64), CborError> {
        let at = self.pos;
        let first = self.take(1, at)?[0];
        let major = first >> 5;
        let ai = first & 0x1f;
        let arg = match ai {
            0..=23 => u64::from(ai),
            24..=27 => {
                let n = 1usize << (ai - 24);
                let raw = self.take(n, at)?;
                let mut buf = [0u8; 8];
                buf[8 - n..].copy_from_slice(raw);
                let v = u64::from_be_bytes(buf);
                // Floats (major 7, ai 25–27) carry bits, not an integer: no shortest-form rule.
                if major != 7 {
                    let min = match ai {
                        24 => 24,
                        25 => 1 << 8,
                        26 => 1 << 16,
                        _ => 1 << 32,
                    };
                    if v < min {
                        return Err(self.err(at, CborErrorKind::NonShortestHead));
                    }
                }
                v
            }
            28..=30 => return Err(self.err(at, CborErrorKind::ReservedAdditionalInfo(ai))),
            _ => return Err(self.err(at, CborErrorKind::IndefiniteLength)),
        };
        Ok((major, ai, arg))
    }

    /// Checks that `len` items/bytes of at least `min_size` bytes each can fit in the rest.
    fn check_len(&self, len: u64, min_size: u64, at: usize) -> Result<usize, CborError> {
        let remaining = (self.bytes.len() - self.pos) as u64;
        match len.checked_mul(min_size) {
            Some(need) if need <= remaining => Ok(len as usize),
            _ => Err(self.err(at, CborErrorKind::LengthExceedsInput(len))),
        }
    }

    fn item(&mut self, depth: usize) -> Result<Value, CborError> {
        let at = self.pos;
        if depth > MAX_DEPTH {
            return Err(self.err(at, CborErrorKind::DepthExceeded));
        }
        let (major, ai, arg) = self.head()?;
        match major {
            0 => Ok(Value::Uint(arg)),
            1 => Ok(Value::Nint(arg)),
            2 => {
                let n = self.check_len(arg, 1, at)?;
                Ok(Value::Bytes(self.take(n, at)?.to_vec()))
            }
            3 => {
                let n = self.check_len(arg, 1, at)?;
                let raw = self.take(n, at)?;
                let text = std::str::from_utf8(raw).map_err(|_| CborError {
                    offset: at,
                    kind: CborErrorKind::InvalidUtf8,
                })?;
                Ok(Value::Text(text.to_owned()))
            }
            4 => {
                let n = self.check_len(arg, 1, at)?;
                let mut items = Vec::with_capacity(n);
                for _ in 0..n {
                    items.push(self.item(depth + 1)?);
                }
                Ok(Value::Array(items))
            }
            5 => {
                let n = self.check_len(arg, 2, at)?;
                let mut entries: Vec<(Value, Value)> = Vec::with_capacity(n);
                let mut prev_key: Option<&[u8]> = None;
                for _ in 0..n {
                    let key_start = self.pos;
                    let key = self.item(depth + 1)?;
                    let key_bytes = &self.bytes[key_start..self.pos];
                    if let Some(prev) = prev_key {
                        match prev.cmp(key_bytes) {
                            std::cmp::Ordering::Less => {}
                            std::cmp::Ordering::Equal => {
                                return Err(self.err(key_start, CborErrorKind::DuplicateMapKey))
                            }
                            std::cmp::Ordering::Greater => {
                                return Err(self.err(key_start, CborErrorKind::MapKeysNotSorted))
                            }
                        }
                    }
                    prev_key = Some(key_bytes);
                    let value = self.item(depth + 1)?;
                    entries.push((key, value));
                }
                Ok(Value::Map(entries))
            }
            6 => {
                if arg != 2 && arg != 3 {
                    return Err(self.err(at, CborErrorKind::UnsupportedTag(arg)));
                }
                let content_at = self.pos;
                let (m, _, len) = self.head()?;
                if m != 2 {
                    return Err(self.err(content_at, CborErrorKind::NonCanonicalBignum));
                }
                let n = self.check_len(len, 1, content_at)?;
                let mag = self.take(n, content_at)?;
                if n <= 8 || n > MAX_BIGNUM_BYTES || mag.first() == Some(&0) {
                    return Err(self.err(at, CborErrorKind::NonCanonicalBignum));
                }
                Ok(if arg == 2 {
                    Value::BigUint(mag.to_vec())
                } else {
                    Value::BigNint(mag.to_vec())
                })
            }
            _ => match ai {
                20 => Ok(Value::Bool(false)),
                21 => Ok(Value::Bool(true)),
                22 => Ok(Value::Null),
                27 => {
                    if f64::from_bits(arg).is_nan() && arg != CANONICAL_NAN {
                        return Err(self.err(at, CborErrorKind::NonCanonicalNan));
                    }
                    Ok(Value::Float(f64::from_bits(arg)))
                }
                _ => Err(self.err(at, CborErrorKind::UnsupportedSimple(ai))),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(v: &Value) -> String {
        encode(v).iter().map(|b| format!("{b:02x}")).collect()
    }

    fn unhex(s: &str) -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("test hex"))
            .collect()
    }

    #[test]
    fn rfc8949_appendix_a_examples() {
        assert_eq!(hex(&Value::Uint(0)), "00");
        assert_eq!(hex(&Value::Uint(23)), "17");
        assert_eq!(hex(&Value::Uint(24)), "1818");
        assert_eq!(hex(&Value::Uint(1000)), "1903e8");
        assert_eq!(hex(&Value::Uint(1_000_000_000_000)), "1b000000e8d4a51000");
        assert_eq!(
            hex(&Value::from_u128(18446744073709551616)),
            "c249010000000000000000"
        );
        assert_eq!(
            hex(&Value::from_i128(-18446744073709551617)),
            "c349010000000000000000"
        );
        assert_eq!(hex(&Value::from_i128(-1)), "20");
        assert_eq!(hex(&Value::from_i128(-1000)), "3903e7");
        assert_eq!(hex(&Value::Float(1.1)), "fb3ff199999999999a");
        assert_eq!(hex(&Value::Text("IETF".into())), "6449455446");
        assert_eq!(hex(&Value::Null), "f6");
    }

    #[test]
    fn map_keys_are_sorted_by_encoding() {
        let m = Value::Map(vec![
            (Value::Text("aa".into()), Value::Uint(1)),
            (Value::Uint(10), Value::Uint(2)),
            (Value::Text("b".into()), Value::Uint(3)),
        ]);
        // 0x0a < 0x61 'b' < 0x62 'aa' (shorter encodings sort first).
        assert_eq!(hex(&m), "a30a0261620362616101");
        assert_eq!(decode(&encode(&m)).map(|v| encode(&v)), Ok(encode(&m)));
    }

    #[test]
    fn rejects_non_canonical_inputs() {
        let cases: &[(&str, CborErrorKind)] = &[
            ("1817", CborErrorKind::NonShortestHead),
            ("190017", CborErrorKind::NonShortestHead),
            ("9f01ff", CborErrorKind::IndefiniteLength),
            ("5f4101ff", CborErrorKind::IndefiniteLength),
            ("c101", CborErrorKind::UnsupportedTag(1)),
            ("c24101", CborErrorKind::NonCanonicalBignum),
            (
                "c2490001000000000000000000",
                CborErrorKind::NonCanonicalBignum,
            ),
            ("f7", CborErrorKind::UnsupportedSimple(23)),
            ("f93c00", CborErrorKind::UnsupportedSimple(25)),
            ("fa3f800000", CborErrorKind::UnsupportedSimple(26)),
            ("fb7ff8000000000001", CborErrorKind::NonCanonicalNan),
            ("62c328", CborErrorKind::InvalidUtf8),
            ("a2616201616101", CborErrorKind::MapKeysNotSorted),
            ("a2616101616102", CborErrorKind::DuplicateMapKey),
            ("0000", CborErrorKind::TrailingBytes),
            ("1c", CborErrorKind::ReservedAdditionalInfo(28)),
            ("19", CborErrorKind::UnexpectedEof),
            (
                "9b7fffffffffffffff",
                CborErrorKind::LengthExceedsInput(0x7fff_ffff_ffff_ffff),
            ),
            ("5a00010000", CborErrorKind::LengthExceedsInput(65536)),
        ];
        for (input, kind) in cases {
            let got = decode(&unhex(input));
            assert_eq!(got.map_err(|e| e.kind), Err(kind.clone()), "input {input}");
        }
    }

    #[test]
    fn depth_is_bounded() {
        let deep = vec![0x81u8; MAX_DEPTH + 2];
        let mut input = deep.clone();
        input.push(0x00);
        assert_eq!(
            decode(&input).map_err(|e| e.kind),
            Err(CborErrorKind::DepthExceeded)
        );
        let mut ok = vec![0x81u8; MAX_DEPTH];
        ok.push(0x00);
        assert!(decode(&ok).is_ok());
    }

    #[test]
    fn integer_helpers_round_trip() {
        for v in [
            0u128,
            1,
            23,
            24,
            u64::MAX as u128,
            u64::MAX as u128 + 1,
            u128::MAX,
        ] {
            let enc = encode(&Value::from_u128(v));
            assert_eq!(decode(&enc).ok().and_then(|d| d.as_u128()), Some(v));
        }
        for v in [
            -1i128,
            -24,
            -25,
            i64::MIN as i128,
            -(u64::MAX as i128) - 2,
            i128::MIN,
        ] {
            let enc = encode(&Value::from_i128(v));
            assert_eq!(decode(&enc).map(|d| encode(&d)), Ok(enc));
        }
    }
}
