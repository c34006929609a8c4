//! The genesis file of a network and the built-in devnet genesis.
//!
//! A genesis file is JSON (the one place besides the RPC where JSON is the format, because
//! operators write it by hand):
//!
//! ```json
//! {
//!   "chainId": 7001,
//!   "timestampMs": 1767225600000,
//!   "allocations": { "0x1111111111111111111111111111111111111111": "1000000000000000000000" },
//!   "params": { "block_cycles_cap": 20000000 },
//!   "validators": [
//!     { "publicKey": "<ed25519 public key, hex>", "p2p": "10.0.0.1:30333",
//!       "coinbase": "0x2222222222222222222222222222222222222222",
//!       "blsPublicKey": "<compressed BLS12-381 G1 key, hex>", "stake": "100000000000000000000000" }
//!   ]
//! }
//! ```
//!
//! An optional `"beacon"` holds the threshold beacon group's public polynomial (hex of
//! commonware's `Sharing` encoding, `MinSig`); `params.beacon_group_key` must then be its
//! constant term (`to_json` writes both), and each genesis validator, in ascending order of
//! its ed25519 key, holds the share of that index (see `crate::beacon`).
//!
//! `params` overrides fields of [`GenesisParams`] by name (unknown names are an error);
//! amounts are decimal strings. Each validator is staked and active in epoch 0 (exec's staking
//! actor, `cowboy_exec::system::staking`): its `coinbase` is its validator address (which
//! receives its rewards), `stake` (default `minimum_validator_stake_wei`, at least that) comes on
//! top of the allocations within `total_supply_wei`, and `blsPublicKey` is its BLS key. A
//! genesis validator gives no proof of possession: the operators who write the file vouch
//! for its keys. The genesis block (height 0) carries no transactions; its
//! state root commits to the allocations, and its hash is the consensus engine's genesis
//! payload. The node keeps a copy of the genesis it was initialised with in its data directory
//! and refuses to start with a different one.

use std::net::SocketAddr;

use commonware_codec::{Decode, DecodeExt, Encode};
use commonware_cryptography::bls12381::dkg::feldman_desmedt as dkg;
use commonware_cryptography::bls12381::primitives::group::Share;
use commonware_cryptography::bls12381::primitives::sharing::{Mode, ModeVersion, Sharing};
use commonware_cryptography::{bls12381, ed25519, Signer};
use cowboy_exec::beacon::Variant;
use cowboy_exec::system::staking;
use cowboy_types::cbor::Value;
use cowboy_types::genesis::GenesisParams;
use cowboy_types::genesis::BEACON_KEY_BYTES;
use cowboy_types::{keccak256, Address, PrivateKey};
use rand::SeedableRng;
use serde_json::{json, Map, Value as Json};

pub use cowboy_types::DEV_CHAIN_ID;
/// Number of pre-funded dev accounts.
pub const DEV_ACCOUNTS: u32 = 10;
/// Each dev account's balance: 1,000,000 CBY (18 decimals).
pub const DEV_FUNDS: u128 = 1_000_000 * 10u128.pow(18);

/// Dev account `i`'s key (see [`cowboy_types::dev_key`]).
pub fn dev_account(i: u32) -> PrivateKey {
    cowboy_types::dev_key(i)
}

/// The devnet validator's consensus key (ed25519), equally public.
pub fn dev_validator_key() -> ed25519::PrivateKey {
    let seed = keccak256(b"cowboy-dev-validator");
    ed25519::PrivateKey::decode(seed.0.to_vec()).expect("32 bytes are an ed25519 seed")
}

/// The BLS public key of a validator whose key seed is `seed` (the devnet's, and the local
/// multi-validator networks' whose seeds are public anyway): `keccak256("bls" ‖ seed)` as a
/// BLS12-381 secret.
pub fn validator_bls_key(seed: &[u8]) -> [u8; 48] {
    // Only a seed hashing to zero (after clearing two bits) has no key; keccak256 makes that
    // out of reach, and the devnet's seed is fixed.
    staking::validator_bls_key(seed)
        .map(|k| staking::bls_public_key(&k))
        .unwrap_or([0; 48])
}

/// Where the devnet's tips go: an address nobody holds a key for, so dev account balances
/// move only by what their owners do.
pub fn dev_coinbase() -> Address {
    Address::from_hash(&keccak256(b"cowboy-dev-coinbase"))
}

/// One validator of the genesis set.
#[derive(Clone, Debug)]
pub struct Validator {
    /// Consensus (and p2p identity) key.
    pub public_key: ed25519::PublicKey,
    /// Where its peers dial it.
    pub p2p: SocketAddr,
    /// Account credited with the tips of the blocks it proposes; also its validator address
    /// in the staking actor (its rewards go there).
    pub coinbase: Address,
    /// Its BLS12-381 public key (compressed G1; decodes, checked on parse).
    pub bls_public_key: [u8; 48],
    /// Its genesis stake (wei).
    pub stake: u128,
}

/// A network's genesis.
#[derive(Clone, Debug)]
pub struct Genesis {
    /// Chain id every transaction must carry.
    pub chain_id: u64,
    /// Timestamp of block 0 (ms since the Unix epoch).
    pub timestamp_ms: u64,
    /// Initial balances (order is irrelevant: credits commute).
    pub allocations: Vec<(Address, u128)>,
    /// Protocol parameters.
    pub params: GenesisParams,
    /// The validator set.
    pub validators: Vec<Validator>,
    /// The beacon group's public polynomial, if the chain has a beacon (phase 1: dealt at
    /// genesis to the genesis validators; see `crate::beacon`).
    pub beacon: Option<Sharing<Variant>>,
}

impl Genesis {
    /// The beacon's genesis sharing as exec keeps it (`cowboy_exec::reshare::genesis_output`):
    /// the polynomial and the genesis validators' ed25519 keys in ascending order, whose
    /// `i`-th holds share `i`. `None` on a chain without a beacon (or a polynomial that is
    /// not a quorum sharing of the validators).
    pub fn beacon_output(&self) -> Option<cowboy_exec::reshare::Output> {
        let sharing = self.beacon.as_ref()?;
        let mut members: Vec<_> = self
            .validators
            .iter()
            .map(|v| v.public_key.clone())
            .collect();
        members.sort();
        cowboy_exec::reshare::genesis_output(sharing, &members)
    }
}

/// The seed the dev chain's beacon group is dealt from (public, as every dev key is).
const DEV_BEACON_SEED: &[u8] = b"cowboy-dev-beacon";

/// A member's key and the share dealt to it.
pub type DealtShare = (ed25519::PublicKey, Share);

/// Deal a beacon group among `members` (ed25519 keys; share `i` goes to the `i`-th in
/// ascending order) with `t` = commonware's quorum of `n` (2f + 1), from `rng`. Returns the
/// public polynomial and the shares in member order.
pub fn deal_beacon(
    rng: impl rand::CryptoRng,
    members: &[ed25519::PublicKey],
) -> Result<(Sharing<Variant>, Vec<DealtShare>), String> {
    let players = commonware_utils::ordered::Set::from_iter_dedup(members.iter().cloned());
    let (output, shares) =
        dkg::deal::<Variant, _, commonware_utils::N3f1>(rng, Mode::NonZeroCounter, players)
            .map_err(|e| format!("cannot deal the beacon group: {e:?}"))?;
    let shares = shares
        .iter_pairs()
        .map(|(k, s)| (k.clone(), s.clone()))
        .collect();
    Ok((output.public().clone(), shares))
}

/// The dev chain's beacon: `t = n = 1`, dealt deterministically from a public seed to the
/// dev validator, so `cowboyd --dev` needs no ceremony.
pub fn dev_beacon() -> (Sharing<Variant>, Share) {
    let rng = rand::rngs::ChaCha20Rng::from_seed(keccak256(DEV_BEACON_SEED).0);
    let (sharing, mut shares) = deal_beacon(rng, &[dev_validator_key().public_key()])
        .expect("one player can always be dealt to");
    (sharing, shares.remove(0).1)
}

/// The group key bytes of `sharing` (what `params.beacon_group_key` holds).
pub fn beacon_group_key(sharing: &Sharing<Variant>) -> [u8; BEACON_KEY_BYTES] {
    let mut out = [0u8; BEACON_KEY_BYTES];
    out.copy_from_slice(&sharing.public().encode());
    out
}

/// Decode a public polynomial from `hex` (at most [`MAX_BEACON_MEMBERS`]
/// members: a bound on the work decoding may do).
pub fn decode_sharing(hex_text: &str) -> Option<Sharing<Variant>> {
    let bytes = hex::decode(hex_text.trim_start_matches("0x")).ok()?;
    let max = std::num::NonZeroU32::new(MAX_BEACON_MEMBERS)?;
    Sharing::<Variant>::decode_cfg(bytes, &(max, ModeVersion::v0())).ok()
}

/// Most members a beacon group may have (a bound on decoding a genesis' polynomial).
pub const MAX_BEACON_MEMBERS: u32 = 1024;

/// Why a genesis file is unusable.
#[derive(Debug)]
pub struct GenesisFileError(pub String);

impl std::fmt::Display for GenesisFileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "genesis: {}", self.0)
    }
}

impl std::error::Error for GenesisFileError {}

fn err(msg: impl Into<String>) -> GenesisFileError {
    GenesisFileError(msg.into())
}

impl Genesis {
    /// The devnet: chain 1337, ten funded dev accounts, one validator listening on `p2p`, and
    /// the `dev_chain` flag, under which exec accepts the set-balance and impersonated
    /// transactions `dev_setBalance` and `dev_impersonate` send. `cowboyd devnet`'s networks
    /// of several validators do not set it: they are rehearsals of a real network.
    pub fn dev(p2p: SocketAddr) -> Genesis {
        let mut genesis = Genesis::dev_accounts_with(vec![Validator {
            public_key: dev_validator_key().public_key(),
            p2p,
            coinbase: dev_coinbase(),
            bls_public_key: validator_bls_key(&keccak256(b"cowboy-dev-validator").0),
            stake: GenesisParams::default().minimum_validator_stake_wei,
        }]);
        genesis.params.dev_chain = 1;
        let (sharing, _) = dev_beacon();
        genesis.params.beacon_group_key = Some(beacon_group_key(&sharing));
        genesis.beacon = Some(sharing);
        genesis
    }

    /// Chain 1337 with the ten funded dev accounts and the default parameters, run by
    /// `validators` (`--dev`'s one, or `cowboyd devnet`'s).
    pub fn dev_accounts_with(validators: Vec<Validator>) -> Genesis {
        Genesis {
            chain_id: DEV_CHAIN_ID,
            timestamp_ms: 0,
            allocations: (0..DEV_ACCOUNTS)
                .map(|i| (dev_account(i).address(), DEV_FUNDS))
                .collect(),
            params: GenesisParams::default(),
            validators,
            beacon: None,
        }
    }

    /// The validators as the staking actor seeds them.
    pub fn staked_validators(&self) -> Vec<staking::GenesisValidator> {
        self.validators
            .iter()
            .map(|v| staking::GenesisValidator {
                address: v.coinbase,
                stake: v.stake,
                keys: staking::Keys {
                    bls: v.bls_public_key,
                    ed25519: ed25519_bytes(&v.public_key),
                },
            })
            .collect()
    }

    /// Parse a genesis file.
    pub fn from_json(text: &str) -> Result<Genesis, GenesisFileError> {
        let v: Json = serde_json::from_str(text).map_err(|e| err(format!("not JSON: {e}")))?;
        let obj = v.as_object().ok_or_else(|| err("must be a JSON object"))?;
        for key in obj.keys() {
            if ![
                "chainId",
                "timestampMs",
                "allocations",
                "params",
                "validators",
                "beacon",
            ]
            .contains(&key.as_str())
            {
                return Err(err(format!("unknown field {key:?}")));
            }
        }
        let chain_id = obj
            .get("chainId")
            .and_then(Json::as_u64)
            .ok_or_else(|| err("chainId must be a non-negative integer"))?;
        let timestamp_ms = match obj.get("timestampMs") {
            None => 0,
            Some(t) => t
                .as_u64()
                .ok_or_else(|| err("timestampMs must be a non-negative integer"))?,
        };
        let mut allocations = Vec::new();
        if let Some(a) = obj.get("allocations") {
            let a = a
                .as_object()
                .ok_or_else(|| err("allocations must map addresses to amounts"))?;
            for (addr, amount) in a {
                let address = parse_address(addr)
                    .ok_or_else(|| err(format!("allocations: bad address {addr:?}")))?;
                let amount = parse_amount(amount)
                    .ok_or_else(|| err(format!("allocations: bad amount for {addr}")))?;
                allocations.push((address, amount));
            }
        }
        let params = match obj.get("params") {
            None => GenesisParams::default(),
            Some(p) => params_from_json(p)?,
        };
        let mut validators = Vec::new();
        for (i, val) in obj
            .get("validators")
            .and_then(Json::as_array)
            .ok_or_else(|| err("validators must be a non-empty array"))?
            .iter()
            .enumerate()
        {
            let field = |name: &str| {
                val.get(name)
                    .and_then(Json::as_str)
                    .ok_or_else(|| err(format!("validators[{i}].{name} must be a string")))
            };
            let pk = hex::decode(field("publicKey")?.trim_start_matches("0x"))
                .ok()
                .and_then(|b| ed25519::PublicKey::decode(b).ok())
                .ok_or_else(|| err(format!("validators[{i}].publicKey is not an ed25519 key")))?;
            let p2p = field("p2p")?
                .parse()
                .map_err(|_| err(format!("validators[{i}].p2p must be ip:port")))?;
            let coinbase = parse_address(field("coinbase")?)
                .ok_or_else(|| err(format!("validators[{i}].coinbase is not an address")))?;
            let bls_public_key = hex::decode(field("blsPublicKey")?.trim_start_matches("0x"))
                .ok()
                .filter(|b| bls12381::PublicKey::decode(b.clone()).is_ok())
                .and_then(|b| <[u8; 48]>::try_from(b.as_slice()).ok())
                .ok_or_else(|| {
                    err(format!(
                        "validators[{i}].blsPublicKey is not a compressed BLS12-381 G1 key"
                    ))
                })?;
            let stake = match val.get("stake") {
                None => params.minimum_validator_stake_wei,
                Some(s) => parse_amount(s)
                    .ok_or_else(|| err(format!("validators[{i}].stake must be an amount")))?,
            };
            if stake < params.minimum_validator_stake_wei {
                return Err(err(format!(
                    "validators[{i}].stake is below params.minimum_validator_stake_wei ({} wei)",
                    params.minimum_validator_stake_wei
                )));
            }
            validators.push(Validator {
                public_key: pk,
                p2p,
                coinbase,
                bls_public_key,
                stake,
            });
        }
        if validators.is_empty() {
            return Err(err("validators must be a non-empty array"));
        }
        // The allocations and the validators' stakes are the whole supply at genesis; they may
        // not exceed it (§8).
        let allocated = allocations
            .iter()
            .map(|(_, a)| *a)
            .chain(validators.iter().map(|v| v.stake))
            .try_fold(0u128, |sum, a| sum.checked_add(a));
        if allocated.is_none_or(|sum| sum > params.total_supply_wei) {
            return Err(err(format!(
                "allocations and stakes total more than params.total_supply_wei ({} wei)",
                params.total_supply_wei
            )));
        }
        // The timer queue's tiers (exec `timers/queue.rs`): an epoch bucket is half the ring.
        let ring = params.timer_ring_blocks;
        if ring < 2 || ring % 2 != 0 || params.timer_epoch_buckets < 2 {
            return Err(err(format!(
                "params.timer_ring_blocks must be even and at least 2 (got {ring}) and \
                 params.timer_epoch_buckets at least 2 (got {})",
                params.timer_epoch_buckets
            )));
        }
        if params.timer_bid_window == 0 {
            return Err(err("params.timer_bid_window must be at least 1"));
        }
        let max_window = cowboy_exec::system::staking::MAX_DOWNTIME_WINDOW;
        if !(1..=max_window).contains(&params.downtime_window_blocks) {
            return Err(err(format!(
                "params.downtime_window_blocks must be between 1 and {max_window} (a \
                 validator's downtime record holds one bit per height of it)"
            )));
        }
        let max_block = params.max_block_bytes();
        if max_block > u64::from(crate::node::MAX_P2P_MESSAGE_BYTES) {
            return Err(err(format!(
                "params allow {max_block}-byte blocks, more than the {}-byte p2p message limit \
                 (lower block_cells_cap, raise calldata_cells_per_byte, or raise \
                 minimum_validator_stake_wei: a block's vote record holds one vote per \
                 possible validator)",
                crate::node::MAX_P2P_MESSAGE_BYTES
            )));
        }
        let beacon = match obj.get("beacon") {
            None => None,
            Some(b) => Some(b.as_str().and_then(decode_sharing).ok_or_else(|| {
                err("beacon must be the hex of a BLS12-381 public polynomial (MinSig)")
            })?),
        };
        let key = beacon.as_ref().map(beacon_group_key);
        if key != params.beacon_group_key {
            return Err(err(
                "params.beacon_group_key must be the beacon polynomial's constant term, and \
                 is set exactly when the genesis has a beacon",
            ));
        }
        match params.beacon_dkg {
            0 => {}
            1 if beacon.is_some() => {
                return Err(err(
                    "params.beacon_dkg = 1 has the validators generate the beacon's group: the \
                     genesis must not also deal one (no beacon, no params.beacon_group_key)",
                ))
            }
            1 if params.epoch_blocks < 2 => {
                return Err(err(
                    "params.beacon_dkg = 1 needs params.epoch_blocks of at least 2 (the key \
                     generation runs in the first half of an epoch)",
                ))
            }
            1 => {}
            _ => return Err(err("params.beacon_dkg must be 0 or 1")),
        }
        if params.beacon_players_max == 0 {
            return Err(err(
                "params.beacon_players_max must be at least 1 (the validators that hold beacon \
                 shares)",
            ));
        }
        if let Some(sharing) = &beacon {
            if sharing.total().get() as usize != validators.len()
                || cowboy_exec::beacon::decode_group_key(&key.unwrap_or([0; BEACON_KEY_BYTES]))
                    .is_none()
            {
                return Err(err(
                    "beacon: the polynomial must have one share per genesis validator",
                ));
            }
        }
        Ok(Genesis {
            chain_id,
            timestamp_ms,
            allocations,
            params,
            validators,
            beacon,
        })
    }

    /// What identifies the chain: the genesis without the validators' network addresses (which
    /// may change between runs without changing the chain).
    pub fn identity(&self) -> String {
        let mut g = self.clone();
        for v in &mut g.validators {
            v.p2p = SocketAddr::from(([0, 0, 0, 0], 0));
        }
        g.to_json()
    }

    /// The genesis as a file (round-trips through [`Genesis::from_json`]).
    pub fn to_json(&self) -> String {
        let mut allocations = Map::new();
        for (a, amount) in &self.allocations {
            allocations.insert(format!("0x{}", hex::encode(a.0)), json!(amount.to_string()));
        }
        let mut params = Map::new();
        if let Value::Map(entries) = self.params.to_value() {
            for (k, v) in entries {
                match (k, v) {
                    (Value::Text(k), Value::Bytes(a)) => {
                        params.insert(k, json!(format!("0x{}", hex::encode(a))));
                    }
                    (Value::Text(k), v) => {
                        if let Some(n) = v.as_u128() {
                            params.insert(k, json!(n.to_string()));
                        }
                    }
                    _ => {}
                }
            }
        }
        let validators: Vec<Json> = self
            .validators
            .iter()
            .map(|v| {
                json!({
                    "publicKey": hex::encode(v.public_key.encode()),
                    "p2p": v.p2p.to_string(),
                    "coinbase": format!("0x{}", hex::encode(v.coinbase.0)),
                    "blsPublicKey": hex::encode(v.bls_public_key),
                    "stake": v.stake.to_string(),
                })
            })
            .collect();
        let mut doc = json!({
            "chainId": self.chain_id,
            "timestampMs": self.timestamp_ms,
            "allocations": allocations,
            "params": params,
            "validators": validators,
        });
        if let Some(b) = &self.beacon {
            doc["beacon"] = json!(hex::encode(b.encode()));
        }
        serde_json::to_string_pretty(&doc).unwrap_or_default()
    }
}

fn params_from_json(p: &Json) -> Result<GenesisParams, GenesisFileError> {
    let p = p
        .as_object()
        .ok_or_else(|| err("params must be an object"))?;
    let Value::Map(mut entries) = GenesisParams::default().to_value() else {
        return Err(err("internal: parameters are not a map"));
    };
    for (name, value) in p {
        let slot = entries
            .iter_mut()
            .find(|(k, _)| matches!(k, Value::Text(t) if t == name))
            .ok_or_else(|| err(format!("params: unknown parameter {name:?}")))?;
        // An address parameter (its default is 20 bytes) is `0x`-hex; the beacon key (absent
        // by default) is `0x`-hex of its 96 bytes or null; the rest are integers.
        slot.1 = if name == "beacon_group_key" {
            match value {
                Json::Null => Value::Null,
                v => Value::Bytes(
                    v.as_str()
                        .and_then(|s| hex::decode(s.trim_start_matches("0x")).ok())
                        .filter(|b| b.len() == BEACON_KEY_BYTES)
                        .ok_or_else(|| err(format!("params.{name} must be 0x-hex of 96 bytes")))?,
                ),
            }
        } else if matches!(slot.1, Value::Bytes(_)) {
            let a = value
                .as_str()
                .and_then(parse_address)
                .ok_or_else(|| err(format!("params.{name} must be a 0x-hex address")))?;
            Value::Bytes(a.0.to_vec())
        } else {
            let n = parse_amount(value)
                .ok_or_else(|| err(format!("params.{name} must be a non-negative integer")))?;
            Value::from_u128(n)
        };
    }
    GenesisParams::from_value(&Value::Map(entries)).map_err(|e| err(format!("params: {e}")))
}

fn ed25519_bytes(k: &ed25519::PublicKey) -> [u8; 32] {
    let mut out = [0u8; 32];
    out.copy_from_slice(&k.encode());
    out
}

/// `0x`-prefixed (or bare) 40-digit hex.
pub fn parse_address(s: &str) -> Option<Address> {
    let s = s.strip_prefix("0x").unwrap_or(s);
    if s.len() != 40 {
        return None;
    }
    let bytes = hex::decode(s).ok()?;
    let mut a = [0u8; 20];
    a.copy_from_slice(&bytes);
    Some(Address(a))
}

/// A decimal string or a JSON integer.
pub fn parse_amount(v: &Json) -> Option<u128> {
    match v {
        Json::String(s) => s.parse().ok(),
        Json::Number(n) => n.as_u64().map(u128::from),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dev_genesis_round_trips_through_json() {
        let g = Genesis::dev("127.0.0.1:30333".parse().unwrap());
        let back = Genesis::from_json(&g.to_json()).unwrap();
        assert_eq!(back.chain_id, g.chain_id);
        // The file is a JSON object, so allocations come back in address order.
        let mut expected = g.allocations.clone();
        expected.sort();
        assert_eq!(back.allocations, expected);
        assert_eq!(back.params, g.params);
        assert_eq!(back.validators[0].public_key, g.validators[0].public_key);
    }

    #[test]
    fn dev_beacon_is_one_fixed_share_and_its_key_is_checked_on_load() {
        let (sharing, share) = dev_beacon();
        assert_eq!(sharing.required(), 1);
        assert_eq!(dev_beacon().0, sharing, "dealt from a fixed seed");
        assert_eq!(dev_beacon().1.index, share.index);
        let g = Genesis::dev("127.0.0.1:30333".parse().unwrap());
        assert_eq!(g.params.beacon_group_key, Some(beacon_group_key(&sharing)));
        let back = Genesis::from_json(&g.to_json()).unwrap();
        assert_eq!(back.beacon, g.beacon);
        assert_eq!(back.params, g.params);
        // A key that is not the polynomial's constant term is refused.
        let mut j: Json = serde_json::from_str(&g.to_json()).unwrap();
        j["params"]["beacon_group_key"] = json!(format!("0x{}", hex::encode([0x11u8; 96])));
        let e = Genesis::from_json(&j.to_string()).unwrap_err().to_string();
        assert!(e.contains("beacon_group_key"), "{e}");
    }

    #[test]
    fn dev_accounts_are_fixed() {
        // Pinned: the SDK and the docs derive the same keys.
        // Pinned: the README, the SDK and the CLI name this address.
        assert_eq!(
            hex::encode(dev_account(0).address().0),
            "1790c769a360961af2555745926d6f529521e027"
        );
        let mut seen: Vec<_> = (0..DEV_ACCOUNTS)
            .map(|i| dev_account(i).address())
            .collect();
        seen.dedup();
        assert_eq!(seen.len(), DEV_ACCOUNTS as usize);
    }

    #[test]
    fn blocks_with_dealer_logs_still_fit_at_a_ten_thousand_cby_minimum_stake() {
        // `tests/devnet/staking.rs` runs such a genesis; the dealer-log item's share of
        // `max_block_bytes` (types' MAX_DEALER_LOG_BYTES) must leave it under the p2p limit.
        let g = Genesis::dev("127.0.0.1:30333".parse().unwrap());
        let mut j: Json = serde_json::from_str(&g.to_json()).unwrap();
        j["params"]["minimum_validator_stake_wei"] = serde_json::json!("10000000000000000000000");
        let back = Genesis::from_json(&j.to_string()).expect("accepted");
        assert!(back.params.max_block_bytes() <= u64::from(crate::node::MAX_P2P_MESSAGE_BYTES));
        // ...and 9,900 CBY is below the bound (a vote record of ~101,000 validators).
        j["params"]["minimum_validator_stake_wei"] = serde_json::json!("9900000000000000000000");
        let e = Genesis::from_json(&j.to_string()).unwrap_err().to_string();
        assert!(e.contains("p2p message limit"), "{e}");
    }

    #[test]
    fn the_dev_beacon_is_a_sharing_exec_can_reshare_from() {
        let g = Genesis::dev("127.0.0.1:30333".parse().unwrap());
        let output = g
            .beacon_output()
            .expect("a quorum sharing of the one validator");
        assert_eq!(output.players().len(), 1);
        assert_eq!(Some(output.public()), g.beacon.as_ref());
    }

    #[test]
    fn a_generated_beacon_excludes_a_dealt_one() {
        let g = Genesis::dev("127.0.0.1:30333".parse().unwrap());
        let mut j: Json = serde_json::from_str(&g.to_json()).unwrap();
        j["params"]["beacon_dkg"] = json!("1");
        let e = Genesis::from_json(&j.to_string()).unwrap_err().to_string();
        assert!(e.contains("must not also deal one"), "{e}");
        // Without the dealt group: accepted, and the chain has a beacon to generate.
        j.as_object_mut().unwrap().remove("beacon");
        j["params"]["beacon_group_key"] = Json::Null;
        let back = Genesis::from_json(&j.to_string()).expect("accepted");
        assert!(back.beacon.is_none() && back.params.beacon_by_dkg() && back.params.has_beacon());
        assert_eq!(
            Genesis::from_json(&back.to_json()).unwrap().params,
            back.params
        );
        j["params"]["epoch_blocks"] = json!("1");
        let e = Genesis::from_json(&j.to_string()).unwrap_err().to_string();
        assert!(e.contains("epoch_blocks of at least 2"), "{e}");
        j["params"]["epoch_blocks"] = json!("100");
        j["params"]["beacon_dkg"] = json!("2");
        let e = Genesis::from_json(&j.to_string()).unwrap_err().to_string();
        assert!(e.contains("beacon_dkg must be 0 or 1"), "{e}");
        j["params"]["beacon_dkg"] = json!("1");
        j["params"]["beacon_players_max"] = json!("0");
        let e = Genesis::from_json(&j.to_string()).unwrap_err().to_string();
        assert!(e.contains("beacon_players_max must be at least 1"), "{e}");
    }

    #[test]
    fn a_downtime_window_outside_its_bounds_is_refused() {
        let g = Genesis::dev("127.0.0.1:30333".parse().unwrap());
        let mut j: Json = serde_json::from_str(&g.to_json()).unwrap();
        for bad in ["0", "10001"] {
            j["params"]["downtime_window_blocks"] = json!(bad);
            let e = Genesis::from_json(&j.to_string()).unwrap_err().to_string();
            assert!(
                e.contains("downtime_window_blocks must be between 1 and 10000"),
                "{e}"
            );
        }
        j["params"]["downtime_window_blocks"] = json!("10000");
        Genesis::from_json(&j.to_string()).expect("the largest window");
    }

    #[test]
    fn a_timer_queue_without_its_tiers_is_refused() {
        let g = Genesis::dev("127.0.0.1:30333".parse().unwrap());
        let mut j: Json = serde_json::from_str(&g.to_json()).unwrap();
        j["params"]["timer_ring_blocks"] = serde_json::json!("3");
        let e = Genesis::from_json(&j.to_string()).unwrap_err().to_string();
        assert!(e.contains("timer_ring_blocks must be even"), "{e}");
    }

    #[test]
    fn bad_files_name_the_problem() {
        for (text, needle) in [
            ("[]", "JSON object"),
            ("{\"chainId\": -1, \"validators\": []}", "chainId"),
            ("{\"chainId\": 1, \"validators\": []}", "validators"),
            ("{\"chainId\": 1, \"bogus\": 1}", "bogus"),
            (
                "{\"chainId\": 1, \"params\": {\"nope\": 1}, \"validators\": []}",
                "nope",
            ),
        ] {
            let e = Genesis::from_json(text).unwrap_err().to_string();
            assert!(e.contains(needle), "{text}: {e}");
        }
    }
}
