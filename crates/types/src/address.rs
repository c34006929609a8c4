//! Addresses (whitepaper §1): externally owned accounts, actor addresses, the system range.
//!
//! - An EOA address is Ethereum's: the last 20 bytes of keccak256 of the 64-byte uncompressed
//!   secp256k1 public key (without the 0x04 prefix), so one key controls the same account on
//!   Cowboy and on Ethereum (§16.1).
//! - An actor address is CREATE2-style (§1.2):
//!   `last_20_bytes(keccak256(creator ‖ salt ‖ code_hash))`, with a 32-byte salt and
//!   `code_hash = keccak256(canonical source)`; see [`canonicalize_source`].
//! - `0x0000…0000` through `0x0000…0100` are reserved for system actors and precompiles (§1.3,
//!   §9); no key or deployment can produce them in practice, and the state transition refuses to
//!   deploy there.
//! - Display is EIP-55 mixed-case checksummed hex; parsing accepts all-lowercase, all-uppercase
//!   or correctly checksummed input and rejects a wrong checksum.

use crate::hash::{keccak256, keccak256_concat, parse_hex, Hash32};
use std::fmt;
use std::str::FromStr;
use unicode_normalization::UnicodeNormalization;

/// A 20-byte account address.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Address(pub [u8; 20]);

/// Why a string is not an address.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AddressError {
    /// Not 40 hex digits after the optional `0x`.
    WrongLength(usize),
    /// A character that is not a hex digit.
    InvalidHex,
    /// Mixed case that does not match the EIP-55 checksum.
    BadChecksum,
}

impl fmt::Display for AddressError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AddressError::WrongLength(n) => write!(f, "address must be 40 hex digits, got {n}"),
            AddressError::InvalidHex => f.write_str("address contains a non-hex character"),
            AddressError::BadChecksum => f.write_str("address has an invalid EIP-55 checksum"),
        }
    }
}

impl std::error::Error for AddressError {}

impl Address {
    /// The zero address.
    pub const ZERO: Address = Address([0u8; 20]);

    /// The address whose last two bytes are `n` and the rest zero (system range helper).
    pub const fn system(n: u16) -> Address {
        let mut a = [0u8; 20];
        a[18] = (n >> 8) as u8;
        a[19] = n as u8;
        Address(a)
    }

    /// True for the reserved system range `0x…0000`–`0x…0100` (§1.3).
    pub fn is_system(&self) -> bool {
        self.0[..18].iter().all(|b| *b == 0)
            && u16::from_be_bytes([self.0[18], self.0[19]]) <= 0x100
    }

    /// The EOA address of an uncompressed SEC1 public key (65 bytes starting 0x04, or the 64
    /// coordinate bytes).
    pub fn from_uncompressed_public_key(key: &[u8]) -> Option<Address> {
        let coords = match key.len() {
            65 if key[0] == 0x04 => &key[1..],
            64 => key,
            _ => return None,
        };
        Some(Address::from_hash(&keccak256(coords)))
    }

    /// The last 20 bytes of a hash.
    pub fn from_hash(h: &Hash32) -> Address {
        let mut a = [0u8; 20];
        a.copy_from_slice(&h.0[12..]);
        Address(a)
    }

    /// EIP-55 checksummed hex with `0x` prefix.
    pub fn to_checksum(&self) -> String {
        // ASCII by construction, so the lossy conversion never replaces anything.
        String::from_utf8_lossy(&self.to_checksum_bytes()).into_owned()
    }

    /// [`Address::to_checksum`] as its 42 ASCII bytes, built without allocating (the PVM
    /// checksums every address argument of an actor call).
    pub fn to_checksum_bytes(&self) -> [u8; 42] {
        const DIGITS: &[u8; 16] = b"0123456789abcdef";
        let mut out = [0u8; 42];
        out[0] = b'0';
        out[1] = b'x';
        for (i, b) in self.0.iter().enumerate() {
            out[2 + 2 * i] = DIGITS[usize::from(b >> 4)];
            out[3 + 2 * i] = DIGITS[usize::from(b & 0xf)];
        }
        // EIP-55: a letter is upper case where the keccak of the lower-case hex has a nibble
        // of 8 or more at its position.
        let h = keccak256(&out[2..]);
        for (i, c) in out[2..].iter_mut().enumerate() {
            let nibble = (h.0[i / 2] >> if i % 2 == 0 { 4 } else { 0 }) & 0xf;
            if c.is_ascii_alphabetic() && nibble >= 8 {
                c.make_ascii_uppercase();
            }
        }
        out
    }
}

impl FromStr for Address {
    type Err = AddressError;

    fn from_str(s: &str) -> Result<Address, AddressError> {
        let digits = s
            .strip_prefix("0x")
            .or_else(|| s.strip_prefix("0X"))
            .unwrap_or(s);
        if digits.len() != 40 {
            return Err(AddressError::WrongLength(digits.len()));
        }
        let bytes = parse_hex(digits).ok_or(AddressError::InvalidHex)?;
        let mut a = [0u8; 20];
        a.copy_from_slice(&bytes);
        let addr = Address(a);
        let has_lower = digits.bytes().any(|b| b.is_ascii_lowercase());
        let has_upper = digits.bytes().any(|b| b.is_ascii_uppercase());
        if has_lower && has_upper && addr.to_checksum()[2..] != *digits {
            return Err(AddressError::BadChecksum);
        }
        Ok(addr)
    }
}

impl fmt::Display for Address {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_checksum())
    }
}

impl fmt::Debug for Address {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_checksum())
    }
}

/// The system actors' addresses: the eleven of whitepaper §9 (`0x…01`–`0x…0B`) and ours
/// beyond them. Every address up to [`system::SYSTEM_RANGE_END`] is reserved for system actors
/// (`Address::is_system`); which of them have an actor yet is `cowboy-exec`'s registry.
pub mod system {
    use super::Address;
    /// Runner registration, staking, capabilities, health, reputation.
    pub const RUNNER_REGISTRY: Address = Address::system(0x01);
    /// Job submission, VRF runner selection, job lifecycle.
    pub const JOB_DISPATCHER: Address = Address::system(0x02);
    /// Commit-reveal aggregation, result verification, callback dispatch.
    pub const RESULT_VERIFIER: Address = Address::system(0x03);
    /// Encrypted secret storage and TEE-gated release.
    pub const SECRETS_MANAGER: Address = Address::system(0x04);
    /// Remote attestation verification for TEE runners.
    pub const TEE_VERIFIER: Address = Address::system(0x05);
    /// Dual-metered basefee state (§4, CIP-3).
    pub const DUAL_BASEFEE: Address = Address::system(0x06);
    /// Permissions, runner pool access control, RBAC.
    pub const ENTITLEMENT_REGISTRY: Address = Address::system(0x07);
    /// Protocol fee accumulation.
    pub const TREASURY: Address = Address::system(0x08);
    /// Proposals, parameter store, upgrades (CIP-12).
    pub const GOVERNANCE: Address = Address::system(0x09);
    /// Volume metadata and storage commitments (CIP-9).
    pub const STORAGE_MANAGER: Address = Address::system(0x0A);
    /// Relay node registration and repair coordination (CIP-9).
    pub const RELAY_REGISTRY: Address = Address::system(0x0B);
    /// The message dedup set (whitepaper §3.3). **Ours**: the spec numbers system actors only
    /// up to 0x0B and keeps the dedup set without naming an address; we give it the next one.
    pub const MAILBOX: Address = Address::system(0x0C);
    /// The timer scheduler (whitepaper "Native Timers and the Actor Scheduler"). **Ours**: the
    /// 2025-09 draft put timers at 0x02, which the current numbering gives the job dispatcher.
    /// A timer's handler runs with this address as its `sender()`.
    pub const SCHEDULER: Address = Address::system(0x0D);
    /// The network default Gas Bidding Agent (CIP-1): the agent of every timer that names
    /// none. **Ours**, as the scheduler.
    pub const DEFAULT_GBA: Address = Address::system(0x0E);
    /// Validator staking, epochs, rewards, jailing and slashing (whitepaper §6.1 "Validator
    /// Set", "Staking and Rewards", "Slashing"; §8.2). **Ours**: the spec lists a staking system
    /// actor without an address; we give it the next free one after the default agent.
    pub const STAKING: Address = Address::system(0x0F);
    /// The last reserved address.
    pub const SYSTEM_RANGE_END: Address = Address::system(0x100);
}

/// Why actor source cannot be canonicalised.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SourceError {
    /// The bytes are not UTF-8; `offset` is the first invalid byte.
    InvalidUtf8 {
        /// Byte offset of the first invalid sequence.
        offset: usize,
    },
}

impl fmt::Display for SourceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SourceError::InvalidUtf8 { offset } => {
                write!(
                    f,
                    "actor source is not valid UTF-8 (first bad byte at offset {offset})"
                )
            }
        }
    }
}

impl std::error::Error for SourceError {}

/// Canonicalises Python source for hashing and storage (§1.2): valid UTF-8, a leading BOM
/// removed, CRLF and lone CR turned into LF, then Unicode NFC.
pub fn canonicalize_source(bytes: &[u8]) -> Result<String, SourceError> {
    let text = std::str::from_utf8(bytes).map_err(|e| SourceError::InvalidUtf8 {
        offset: e.valid_up_to(),
    })?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lf = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\r' {
            if chars.peek() == Some(&'\n') {
                chars.next();
            }
            lf.push('\n');
        } else {
            lf.push(c);
        }
    }
    Ok(lf.nfc().collect())
}

/// `keccak256` of canonical source.
pub fn code_hash(canonical_source: &str) -> Hash32 {
    keccak256(canonical_source.as_bytes())
}

/// The address of an actor deployed by `creator` with `salt` and `code_hash` (§1.2).
pub fn actor_address(creator: &Address, salt: &Hash32, code_hash: &Hash32) -> Address {
    Address::from_hash(&keccak256_concat(&[&creator.0, &salt.0, &code_hash.0]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eip55_examples() {
        // The test vectors of EIP-55.
        for s in [
            "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
            "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359",
            "0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB",
            "0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb",
        ] {
            let a: Address = s.parse().expect("valid");
            assert_eq!(a.to_checksum(), s);
            assert_eq!(s.to_lowercase().parse::<Address>(), Ok(a));
        }
    }

    #[test]
    fn parse_errors_are_typed() {
        assert_eq!(
            "0x5aaeb6053F3E94C9b9A09f33669435E7Ef1BeAed".parse::<Address>(),
            Err(AddressError::BadChecksum)
        );
        assert_eq!(
            "0x1234".parse::<Address>(),
            Err(AddressError::WrongLength(4))
        );
        assert_eq!(
            "0xzz00000000000000000000000000000000000000".parse::<Address>(),
            Err(AddressError::InvalidHex)
        );
    }

    #[test]
    fn system_range() {
        assert!(system::TREASURY.is_system());
        assert!(Address::ZERO.is_system());
        assert!(system::SYSTEM_RANGE_END.is_system());
        assert!(!Address::system(0x101).is_system());
        assert_eq!(
            system::GOVERNANCE.to_checksum(),
            "0x0000000000000000000000000000000000000009"
        );
    }

    #[test]
    fn source_canonicalisation() {
        let raw = "\u{feff}x = 'e\u{301}'\r\ny = 1\rz = 2\n".as_bytes();
        let canon = canonicalize_source(raw).expect("utf-8");
        assert_eq!(canon, "x = '\u{e9}'\ny = 1\nz = 2\n");
        assert_eq!(
            canonicalize_source(b"ok\xff"),
            Err(SourceError::InvalidUtf8 { offset: 2 })
        );
    }

    #[test]
    fn actor_address_is_create2_style() {
        let creator: Address = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"
            .parse()
            .expect("ok");
        let salt = Hash32([0u8; 32]);
        let ch = code_hash("class A: pass\n");
        let expect = Address::from_hash(&keccak256_concat(&[&creator.0, &salt.0, &ch.0]));
        assert_eq!(actor_address(&creator, &salt, &ch), expect);
        assert_ne!(actor_address(&creator, &Hash32([1u8; 32]), &ch), expect);
    }
}
