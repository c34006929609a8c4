//! secp256k1 keys and recoverable signatures (whitepaper §1.1, ARCHITECTURE D4).
//!
//! Signatures are `[y_parity, r, s]` over a 32-byte prehash, as Ethereum's. We enforce low-s
//! (s ≤ n/2, EIP-2) so a signature has exactly one valid form and a transaction exactly one
//! hash. Chain-id separation comes from the signed bytes: the chain id is the first field of
//! the transaction whose hash is signed (§2.5).

use crate::address::Address;
use crate::hash::Hash32;
use k256::ecdsa::{RecoveryId, Signature as EcdsaSignature, SigningKey, VerifyingKey};
use std::fmt;

/// A recoverable secp256k1 signature.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Signature {
    /// Parity of the ephemeral point's y coordinate: 0 or 1.
    pub y_parity: u8,
    /// Big-endian r.
    pub r: [u8; 32],
    /// Big-endian s, at most n/2.
    pub s: [u8; 32],
}

/// Why a signature does not verify or a key is unusable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SignatureError {
    /// `y_parity` was not 0 or 1.
    BadParity(u8),
    /// r or s is zero or not below the curve order.
    OutOfRange,
    /// s is above n/2 (EIP-2 malleability rule).
    HighS,
    /// No public key recovers from this signature and hash.
    RecoveryFailed,
    /// A private key that is zero or not below the curve order.
    InvalidPrivateKey,
}

impl fmt::Display for SignatureError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SignatureError::BadParity(p) => write!(f, "y_parity must be 0 or 1, got {p}"),
            SignatureError::OutOfRange => f.write_str("signature r or s out of range"),
            SignatureError::HighS => f.write_str("signature s is not low (s > n/2)"),
            SignatureError::RecoveryFailed => f.write_str("no public key recovers from signature"),
            SignatureError::InvalidPrivateKey => f.write_str("private key out of range"),
        }
    }
}

impl std::error::Error for SignatureError {}

/// A secp256k1 private key that signs transactions.
#[derive(Clone)]
pub struct PrivateKey(SigningKey);

impl fmt::Debug for PrivateKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PrivateKey({})", self.address())
    }
}

/// The chain id of `cowboyd --dev` (and `cowboyd devnet`): the one chain on which the node,
/// the CLI and the runner's simulator treat the dev keys below as expected.
pub const DEV_CHAIN_ID: u64 = 1337;

/// Dev account `i` of `cowboyd --dev`: the key `keccak256("cowboy-dev-account-" ‖ decimal i)`.
/// These keys are public knowledge (like anvil's): never hold value with them outside a devnet.
/// The node funds them, the CLI signs with them (`--dev-account N`), the Python SDK derives
/// the same ones.
pub fn dev_key(i: u32) -> PrivateKey {
    let seed = crate::hash::keccak256(format!("cowboy-dev-account-{i}").as_bytes());
    // A keccak output is a valid scalar except with negligible probability; the devnet's ten
    // are checked by a test.
    PrivateKey::from_bytes(&seed.0).expect("dev key is a valid scalar")
}

impl PrivateKey {
    /// A key from its 32 big-endian bytes.
    pub fn from_bytes(bytes: &[u8; 32]) -> Result<PrivateKey, SignatureError> {
        SigningKey::from_bytes(bytes.into())
            .map(PrivateKey)
            .map_err(|_| SignatureError::InvalidPrivateKey)
    }

    /// The 32 big-endian bytes.
    pub fn to_bytes(&self) -> [u8; 32] {
        self.0.to_bytes().into()
    }

    /// The Ethereum-style address of this key.
    pub fn address(&self) -> Address {
        address_of(self.0.verifying_key())
    }

    /// Signs a 32-byte prehash; the result is always low-s.
    pub fn sign_hash(&self, hash: &Hash32) -> Result<Signature, SignatureError> {
        let (sig, recid) = self
            .0
            .sign_prehash_recoverable(&hash.0)
            .map_err(|_| SignatureError::RecoveryFailed)?;
        // k256 normalises to low-s and adjusts the recovery id accordingly; normalise again
        // defensively so the invariant does not rest on a dependency's default.
        let (sig, recid) = match sig.normalize_s() {
            Some(low) => (
                low,
                RecoveryId::new(!recid.is_y_odd(), recid.is_x_reduced()),
            ),
            None => (sig, recid),
        };
        let bytes = sig.to_bytes();
        let mut r = [0u8; 32];
        let mut s = [0u8; 32];
        r.copy_from_slice(&bytes[..32]);
        s.copy_from_slice(&bytes[32..]);
        Ok(Signature {
            y_parity: u8::from(recid.is_y_odd()),
            r,
            s,
        })
    }
}

fn address_of(key: &VerifyingKey) -> Address {
    let point = key.to_encoded_point(false);
    // An uncompressed point is always 65 bytes starting with 0x04.
    Address::from_uncompressed_public_key(point.as_bytes()).unwrap_or(Address::ZERO)
}

impl Signature {
    /// Recovers the signer's address from `hash`, enforcing parity, range and low-s.
    ///
    /// The checks run on k256; the recovery itself on libsecp256k1, about twice as fast as
    /// k256's (`cargo bench -p cowboy-types --bench recover`), in the check every transaction
    /// of a block pays. The property tests below pin it to k256's own recovery.
    pub fn recover(&self, hash: &Hash32) -> Result<Address, SignatureError> {
        self.check()?;
        recover_libsecp(hash, self).ok_or(SignatureError::RecoveryFailed)
    }

    /// [`Signature::recover`] with the recovery on k256's arithmetic: the benchmark's peer.
    pub fn recover_with_k256(&self, hash: &Hash32) -> Result<Address, SignatureError> {
        let sig = self.check()?;
        let key =
            recover_key(hash, &sig, self.y_parity == 1).ok_or(SignatureError::RecoveryFailed)?;
        Ok(address_of(&key))
    }

    /// Parity 0 or 1, 0 < r, s < n, and s ≤ n/2.
    fn check(&self) -> Result<EcdsaSignature, SignatureError> {
        if self.y_parity > 1 {
            return Err(SignatureError::BadParity(self.y_parity));
        }
        let sig =
            EcdsaSignature::from_scalars(self.r, self.s).map_err(|_| SignatureError::OutOfRange)?;
        if sig.normalize_s().is_some() {
            return Err(SignatureError::HighS);
        }
        Ok(sig)
    }
}

/// libsecp256k1's `secp256k1_ecdsa_recover` with recovery id = y parity (x = r, as below),
/// on a signature [`Signature::check`] accepted.
fn recover_libsecp(hash: &Hash32, sig: &Signature) -> Option<Address> {
    use secp256k1::ecdsa::{RecoverableSignature, RecoveryId as LibRecoveryId};
    use std::sync::OnceLock;
    /// The verification context: its tables are built once per process.
    static CONTEXT: OnceLock<secp256k1::Secp256k1<secp256k1::VerifyOnly>> = OnceLock::new();
    let ctx = CONTEXT.get_or_init(secp256k1::Secp256k1::verification_only);
    let mut compact = [0u8; 64];
    compact[..32].copy_from_slice(&sig.r);
    compact[32..].copy_from_slice(&sig.s);
    let id = LibRecoveryId::try_from(i32::from(sig.y_parity)).ok()?;
    let rs = RecoverableSignature::from_compact(&compact, id).ok()?;
    let key = ctx
        .recover_ecdsa(secp256k1::Message::from_digest(hash.0), &rs)
        .ok()?;
    Address::from_uncompressed_public_key(&key.serialize_uncompressed())
}

/// SEC1 §4.1.6 public-key recovery on k256's group arithmetic: Q = r⁻¹·(s·R − z·G), with R the
/// curve point whose x is r and whose y has the given parity (r < n, so x = r, never r + n).
///
/// `VerifyingKey::recover_from_prehash` computes this same Q and then also verifies the
/// signature against it. That check holds by construction (u₁·G + u₂·Q = R with u₁ = z/s,
/// u₂ = r/s) and costs as much again as the recovery, in a block's dominant per-transaction
/// check. The test `recovery_matches_k256` pins the equivalence on valid and invalid inputs.
fn recover_key(hash: &Hash32, sig: &EcdsaSignature, y_odd: bool) -> Option<VerifyingKey> {
    use k256::elliptic_curve::ops::{Invert, LinearCombination, Reduce};
    use k256::elliptic_curve::point::DecompressPoint;
    use k256::elliptic_curve::PrimeField;
    use k256::{AffinePoint, ProjectivePoint, Scalar, U256};
    let (r, s) = sig.split_scalars();
    let z = <Scalar as Reduce<U256>>::reduce_bytes(&hash.0.into());
    let big_r: AffinePoint = Option::from(AffinePoint::decompress(
        &r.to_repr(),
        u8::from(y_odd).into(),
    ))?;
    let r_inv: Scalar = *r.invert();
    let u1 = -(r_inv * z);
    let u2 = r_inv * *s;
    let q = ProjectivePoint::lincomb(
        &ProjectivePoint::GENERATOR,
        &u1,
        &ProjectivePoint::from(big_r),
        &u2,
    );
    VerifyingKey::from_affine(q.to_affine()).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hash::keccak256;

    fn key(hex: &str) -> PrivateKey {
        let bytes = crate::hash::parse_hex(hex).expect("hex");
        PrivateKey::from_bytes(&bytes.try_into().expect("32 bytes")).expect("valid key")
    }

    #[test]
    fn known_ethereum_addresses() {
        let one = format!("{:064x}", 1);
        assert_eq!(
            key(&one).address().to_checksum(),
            "0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf"
        );
        assert_eq!(
            key("ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80")
                .address()
                .to_checksum(),
            "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"
        );
        assert_eq!(
            key("59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d")
                .address()
                .to_checksum(),
            "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"
        );
    }

    #[test]
    fn sign_recover_round_trip_and_malleability() {
        let k = key("ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80");
        let h = keccak256(b"message");
        let sig = k.sign_hash(&h).expect("sign");
        assert_eq!(sig.recover(&h), Ok(k.address()));
        // The high-s twin of the same signature must be rejected.
        let n = crate::hash::parse_hex(
            "fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141",
        )
        .expect("order hex");
        let mut high = [0u8; 32];
        let mut borrow = 0i16;
        for i in (0..32).rev() {
            let v = i16::from(n[i]) - i16::from(sig.s[i]) - borrow;
            borrow = i16::from(v < 0);
            high[i] = (v + if v < 0 { 256 } else { 0 }) as u8;
        }
        let twin = Signature {
            y_parity: 1 - sig.y_parity,
            s: high,
            ..sig
        };
        assert_eq!(twin.recover(&h), Err(SignatureError::HighS));
        assert_eq!(
            Signature { y_parity: 2, ..sig }.recover(&h),
            Err(SignatureError::BadParity(2))
        );
        assert_eq!(
            Signature { r: [0; 32], ..sig }.recover(&h),
            Err(SignatureError::OutOfRange)
        );
        assert_eq!(
            PrivateKey::from_bytes(&[0u8; 32]).map(|k| k.address()),
            Err(SignatureError::InvalidPrivateKey)
        );
    }

    /// What [`Signature::recover`] must equal: k256's own recovery (which also re-verifies,
    /// and whose verification rejects high s, as `recover` does up front).
    fn k256_recover(hash: &Hash32, r: [u8; 32], s: [u8; 32], y_odd: bool) -> Option<Address> {
        let sig = EcdsaSignature::from_scalars(r, s).ok()?;
        let key = VerifyingKey::recover_from_prehash(&hash.0, &sig, RecoveryId::new(y_odd, false));
        key.ok().map(|k| address_of(&k))
    }

    fn ours(hash: &Hash32, r: [u8; 32], s: [u8; 32], y_odd: bool) -> Option<Address> {
        let sig = Signature {
            y_parity: u8::from(y_odd),
            r,
            s,
        };
        sig.recover(hash).ok()
    }

    proptest::proptest! {
        #[test]
        fn recovery_matches_k256_on_signatures(seed in proptest::array::uniform32(1u8..), msg in proptest::array::uniform32(proptest::num::u8::ANY)) {
            let k = PrivateKey::from_bytes(&seed).expect("nonzero seed below n");
            let h = Hash32(msg);
            let sig = k.sign_hash(&h).expect("sign");
            let y_odd = sig.y_parity == 1;
            let ours = ours(&h, sig.r, sig.s, y_odd);
            proptest::prop_assert_eq!(ours, k256_recover(&h, sig.r, sig.s, y_odd));
            proptest::prop_assert_eq!(ours, sig.recover_with_k256(&h).ok());
            proptest::prop_assert_eq!(ours, Some(k.address()));
        }

        #[test]
        fn recovery_matches_k256_on_arbitrary_input(r in proptest::array::uniform32(proptest::num::u8::ANY), s in proptest::array::uniform32(proptest::num::u8::ANY), msg in proptest::array::uniform32(proptest::num::u8::ANY), y_odd: bool) {
            let h = Hash32(msg);
            proptest::prop_assert_eq!(ours(&h, r, s, y_odd), k256_recover(&h, r, s, y_odd));
            let sig = Signature { y_parity: u8::from(y_odd), r, s };
            proptest::prop_assert_eq!(sig.recover(&h), sig.recover_with_k256(&h));
        }
    }

    #[test]
    fn recovery_matches_k256_at_the_edges() {
        let n_minus_1 = crate::hash::parse_hex(
            "fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364140",
        )
        .expect("hex");
        let n_minus_1: [u8; 32] = n_minus_1.try_into().expect("32 bytes");
        let mut one = [0u8; 32];
        one[31] = 1;
        // x = 1 is not on the curve; x = n - 1 is not; hash 0 and hash n - 1.
        for r in [one, n_minus_1] {
            for s in [one, n_minus_1] {
                for msg in [[0u8; 32], n_minus_1, [0xff; 32]] {
                    for y_odd in [false, true] {
                        let h = Hash32(msg);
                        assert_eq!(ours(&h, r, s, y_odd), k256_recover(&h, r, s, y_odd));
                    }
                }
            }
        }
    }
}
