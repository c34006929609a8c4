//! `cowboy validator …`: proof-of-stake operations on the staking system actor (`0x…0F`) and
//! the reads behind them (`cowboy_getValidator`, `cowboy_getValidatorSet`, `cowboy_getEpoch`).
//!
//! `register` and `rotate-keys` take the validator's key file, the one `cowboyd
//! --validator-key` runs with (an Ed25519 seed as hex): the consensus key is its public key,
//! and the BLS12-381 key is derived from the same seed exactly as the node derives it
//! (`cowboy_exec::system::staking::validator_bls_key`), with its proof of possession signed
//! here for the sending account. The file never leaves this machine; only public keys and
//! the proof go on chain. `key-args` prints those three arguments for a sender, so a client
//! that cannot sign BLS (the Python SDK's `register_validator`) can send the transaction
//! itself.

use std::path::Path;

use commonware_codec::{DecodeExt as _, Encode as _};
use commonware_cryptography::{ed25519, Signer as _};
use cowboy_exec::system::staking;
use cowboy_types::cbor::Value;
use cowboy_types::Address;
use serde_json::{json, Value as Json};

use crate::chain::{
    call_encoded, format_cby, hex0x, parse_address, parse_amount, rpc, CmdResult, Ctx,
};

/// The staking actor.
const STAKING: Address = cowboy_types::system::STAKING;

/// The keys `register` and `rotate_keys` take, in their order, derived from a validator key
/// file for one sender (the proof of possession signs the sender's address, so it is good for
/// that account only).
struct KeyArgs {
    /// The compressed BLS12-381 G1 public key.
    bls_key: [u8; 48],
    /// Its proof of possession for the sender.
    pop: [u8; 96],
    /// The Ed25519 consensus key.
    consensus_key: Vec<u8>,
}

impl KeyArgs {
    /// The handler arguments `[bls_key, pop, consensus_key]`.
    fn to_args(&self) -> Value {
        Value::Array(vec![
            Value::Bytes(self.bls_key.to_vec()),
            Value::Bytes(self.pop.to_vec()),
            Value::Bytes(self.consensus_key.clone()),
        ])
    }

    /// The same three as `0x` hex, named as the handlers name them.
    fn to_json(&self) -> Json {
        json!({
            "bls_key": hex0x(&self.bls_key),
            "pop": hex0x(&self.pop),
            "consensus_key": hex0x(&self.consensus_key),
        })
    }
}

/// The keys of validator key file `file` for `sender`.
fn key_args(file: &Path, sender: &Address) -> Result<KeyArgs, String> {
    let text = std::fs::read_to_string(file)
        .map_err(|e| format!("cannot read the validator key file {}: {e}", file.display()))?;
    let seed = hex::decode(text.trim().trim_start_matches("0x"))
        .ok()
        .filter(|s| s.len() == 32)
        .ok_or_else(|| {
            format!(
                "{} does not hold a validator key (32 bytes as hex, as `cowboyd \
                 --validator-key` reads it)",
                file.display()
            )
        })?;
    let ed = ed25519::PrivateKey::decode(seed.clone())
        .map_err(|e| format!("{}: not an Ed25519 seed: {e}", file.display()))?;
    let bls = staking::validator_bls_key(&seed)
        .ok_or_else(|| format!("{}: this seed derives no BLS key", file.display()))?;
    Ok(KeyArgs {
        bls_key: staking::bls_public_key(&bls),
        pop: staking::sign_pop(&bls, sender),
        consensus_key: ed.public_key().encode().to_vec(),
    })
}

fn sender(ctx: &Ctx) -> Result<Address, String> {
    ctx.address()?.ok_or_else(|| {
        "this command signs a transaction: give --key NAME or --dev-account N".to_string()
    })
}

/// `cowboy validator register --validator-key FILE --stake AMOUNT`.
pub fn register(ctx: &Ctx, key_file: &Path, stake: &str, force: bool) -> CmdResult {
    let from = sender(ctx)?;
    let args = key_args(key_file, &from)?.to_args();
    call_encoded(ctx, STAKING, "register", args, parse_amount(stake)?, force)
}

/// `cowboy validator rotate-keys --validator-key FILE`.
pub fn rotate_keys(ctx: &Ctx, key_file: &Path, force: bool) -> CmdResult {
    let from = sender(ctx)?;
    let args = key_args(key_file, &from)?.to_args();
    call_encoded(ctx, STAKING, "rotate_keys", args, 0, force)
}

/// `cowboy validator key-args --validator-key FILE [--for ADDR]`: the arguments `register` and
/// `rotate_keys` take, for a client that sends the transaction itself (the Python SDK cannot
/// sign BLS). Nothing is sent and no node is asked.
pub fn print_key_args(ctx: &Ctx, key_file: &Path, sender: Option<&str>) -> CmdResult {
    let sender = ctx.subject(sender)?;
    crate::out_json(&key_args(key_file, &sender)?.to_json());
    Ok(())
}

/// `cowboy validator add-stake AMOUNT`.
pub fn add_stake(ctx: &Ctx, amount: &str, force: bool) -> CmdResult {
    let value = parse_amount(amount)?;
    call_encoded(
        ctx,
        STAKING,
        "add_stake",
        Value::Array(Vec::new()),
        value,
        force,
    )
}

/// `cowboy validator exit|withdraw|unjail`: a handler without arguments.
pub fn simple(ctx: &Ctx, handler: &str, force: bool) -> CmdResult {
    call_encoded(ctx, STAKING, handler, Value::Array(Vec::new()), 0, force)
}

/// `cowboy validator show [ADDR]`: one validator's record (default: the signer's).
pub fn show(ctx: &Ctx, addr: Option<&str>) -> CmdResult {
    let a = match addr {
        Some(a) => parse_address(a)?,
        None => sender(ctx).map_err(|_| "give an address, --key NAME or --dev-account N")?,
    };
    let v = ctx
        .client
        .call("cowboy_getValidator", json!([hex0x(&a.0)]))
        .map_err(rpc)?;
    if v.is_null() {
        return Err(format!(
            "{} is not a validator (register with `cowboy validator register`)",
            a.to_checksum()
        ));
    }
    crate::out_json(&v);
    Ok(())
}

fn wei(v: &Json) -> u128 {
    match v {
        Json::String(s) => s.parse().unwrap_or(0),
        other => other.as_u64().map_or(0, u128::from),
    }
}

/// `cowboy validator set [--epoch N]`: the active set of an epoch (default: the current one).
pub fn set(ctx: &Ctx, epoch: Option<u64>) -> CmdResult {
    let r = ctx
        .client
        .call("cowboy_getValidatorSet", json!([epoch]))
        .map_err(rpc)?;
    if ctx.json {
        crate::out_json(&r);
        return Ok(());
    }
    let e = r["epoch"].as_u64().unwrap_or(0);
    let Some(members) = r["members"].as_array() else {
        crate::note(format!("epoch {e} has no validator set on record"));
        return Ok(());
    };
    let total: u128 = members.iter().map(|m| wei(&m["power"])).sum();
    crate::out(format!(
        "epoch {e}: {} validators, total stake {}",
        members.len(),
        format_cby(total)
    ));
    crate::out("address                                     stake");
    for m in members {
        let a = m["validator"]["bytes"]
            .as_str()
            .and_then(|h| parse_address(h).ok())
            .map(|a| a.to_checksum())
            .unwrap_or_default();
        crate::out(format!("{a:<43} {}", format_cby(wei(&m["power"]))));
    }
    Ok(())
}

/// `cowboy validator evidence`: the faults the node's consensus reported, ready to submit.
pub fn evidence(ctx: &Ctx) -> CmdResult {
    let kept = ctx
        .client
        .call("cowboy_getEvidence", json!([]))
        .map_err(rpc)?;
    if ctx.json {
        crate::out_json(&kept);
        return Ok(());
    }
    let kept = kept.as_array().cloned().unwrap_or_default();
    if kept.is_empty() {
        crate::note("this node's consensus has reported no attributable fault");
        return Ok(());
    }
    for e in &kept {
        crate::out(format!(
            "{} in view {} by signer {}: {}",
            e["kind"].as_str().unwrap_or_default(),
            e["view"],
            e["signer"],
            e["evidence"].as_str().unwrap_or_default(),
        ));
    }
    Ok(())
}

/// `cowboy validator submit-evidence HEX`: anyone may; the chain verifies it, then jails the
/// offender, slashing it for a double vote (each offence once).
pub fn submit_evidence(ctx: &Ctx, evidence: &str, force: bool) -> CmdResult {
    let bytes = hex::decode(evidence.trim().trim_start_matches("0x")).map_err(|e| {
        format!("the evidence is not hex ({e}); copy it from `cowboy validator evidence`")
    })?;
    let args = Value::Array(vec![Value::Bytes(bytes)]);
    call_encoded(ctx, STAKING, "submit_evidence", args, 0, force)
}
