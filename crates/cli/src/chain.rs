//! The chain commands of `cowboy`: everything goes through the node's public JSON-RPC
//! (`crates/node/RPC.md`); transactions are built, signed and encoded here, with
//! `cowboy-types`, exactly as the node decodes them.

use std::time::{Duration, Instant};

use cowboy_types::cbor::{self, Value};
use cowboy_types::json::{from_json, to_json};
use cowboy_types::tx::Payload;
use cowboy_types::{keccak256, Address, Hash32, PrivateKey, Transaction};
use serde_json::{json, Value as Json};

use crate::rpc::{Client, RpcError};

/// How a command ended: `Ok` prints and exits 0, `Err` prints to stderr and exits non-zero.
pub type CmdResult = Result<(), String>;

/// Global options every chain command sees.
pub struct Ctx {
    /// The node.
    pub client: Client,
    /// Print raw JSON.
    pub json: bool,
    /// Signing key, if one was selected.
    pub key: Option<PrivateKey>,
}

fn rpc(e: RpcError) -> String {
    match e {
        RpcError::Node { data, message, .. } if !data.is_null() => {
            let reason = data["reason"].as_str().unwrap_or_default();
            if reason.is_empty() {
                message
            } else {
                format!("{message} [{reason}]")
            }
        }
        other => other.to_string(),
    }
}

fn hex0x(b: &[u8]) -> String {
    format!("0x{}", hex::encode(b))
}

/// Parse an address argument.
pub fn parse_address(s: &str) -> Result<Address, String> {
    let h = s.strip_prefix("0x").unwrap_or(s);
    let b = hex::decode(h).map_err(|_| format!("{s:?} is not a hex address"))?;
    let a: [u8; 20] = b
        .try_into()
        .map_err(|_| format!("{s:?} is not a 20-byte address"))?;
    Ok(Address(a))
}

/// Parse an amount: an integer number of wei, or a decimal number of CBY with the suffix `cby`
/// (`1.5cby` = 1.5 × 10^18 wei).
pub fn parse_amount(s: &str) -> Result<u128, String> {
    let lower = s.trim().to_ascii_lowercase();
    let Some(cby) = lower.strip_suffix("cby") else {
        return lower
            .parse()
            .map_err(|_| format!("{s:?} is not an amount (wei, or e.g. 1.5cby)"));
    };
    let (whole, frac) = cby.split_once('.').unwrap_or((cby, ""));
    if frac.len() > 18 || (whole.is_empty() && frac.is_empty()) {
        return Err(format!("{s:?} is not an amount (at most 18 decimals)"));
    }
    let whole: u128 = if whole.is_empty() {
        0
    } else {
        whole
            .parse()
            .map_err(|_| format!("{s:?} is not an amount"))?
    };
    let frac_wei: u128 = if frac.is_empty() {
        0
    } else {
        frac.parse::<u128>()
            .map_err(|_| format!("{s:?} is not an amount"))?
            * 10u128.pow(18 - frac.len() as u32)
    };
    whole
        .checked_mul(10u128.pow(18))
        .and_then(|w| w.checked_add(frac_wei))
        .ok_or_else(|| format!("{s:?} is too large"))
}

/// `--args`: a JSON array (positional) or object (keyword) as handler arguments.
pub fn parse_args(args: Option<&str>) -> Result<Value, String> {
    let Some(text) = args else {
        return Ok(Value::Array(Vec::new()));
    };
    let j: Json = serde_json::from_str(text).map_err(|e| format!("--args is not JSON: {e}"))?;
    if !(j.is_array() || j.is_object()) || j.get("bytes").is_some() || j.get("map").is_some() {
        return Err(
            "--args must be a JSON array (positional) or object (keyword arguments)".into(),
        );
    }
    from_json(&j).map_err(|e| format!("--args: {e}"))
}

fn signer(ctx: &Ctx) -> Result<&PrivateKey, String> {
    ctx.key.as_ref().ok_or_else(|| {
        "this command signs a transaction: give --key NAME or --dev-account N".into()
    })
}

fn amount(v: &Json) -> u128 {
    v.as_str().and_then(|s| s.parse().ok()).unwrap_or(0)
}

fn format_cby(wei: u128) -> String {
    let whole = wei / 10u128.pow(18);
    let frac = wei % 10u128.pow(18);
    if frac == 0 {
        format!("{whole} CBY")
    } else {
        let f = format!("{frac:018}");
        format!("{whole}.{} CBY", f.trim_end_matches('0'))
    }
}

/// Sign and send a transaction with estimated limits and fees, wait for its receipt.
fn send(ctx: &Ctx, to: Option<Address>, value: u128, payload: Vec<u8>) -> Result<Json, String> {
    let key = signer(ctx)?;
    let from = key.address();
    let chain_id = ctx
        .client
        .call("cowboy_chainId", json!([]))
        .map_err(rpc)?
        .as_u64()
        .unwrap_or(0);
    let account = ctx
        .client
        .call("cowboy_getAccount", json!([hex0x(&from.0)]))
        .map_err(rpc)?;
    let nonce = account["pendingNonce"].as_u64().unwrap_or(0);
    let est = ctx
        .client
        .call(
            "cowboy_estimateFee",
            json!([{"from": hex0x(&from.0), "to": to.map(|a| hex0x(&a.0)),
                    "payload": hex0x(&payload), "value": value.to_string()}]),
        )
        .map_err(rpc)?;
    let mut tx = Transaction {
        chain_id,
        nonce,
        to,
        value,
        cycles_limit: est["cyclesLimit"].as_u64().unwrap_or(0),
        cells_limit: est["cellsLimit"].as_u64().unwrap_or(0),
        max_fee_per_cycle: amount(&est["maxFeePerCycle"]),
        max_fee_per_cell: amount(&est["maxFeePerCell"]),
        tip_per_cycle: amount(&est["tipPerCycle"]),
        tip_per_cell: amount(&est["tipPerCell"]),
        access_list: None,
        payload,
        signature: None,
    };
    tx.sign(key).map_err(|e| format!("cannot sign: {e}"))?;
    let hash = ctx
        .client
        .call("cowboy_sendRawTransaction", json!([hex0x(&tx.encode())]))
        .map_err(rpc)?;
    let hash = hash.as_str().unwrap_or_default().to_string();
    if !ctx.json {
        eprintln!("sent {hash}");
    }
    wait_receipt(ctx, &hash)
}

fn wait_receipt(ctx: &Ctx, hash: &str) -> Result<Json, String> {
    let started = Instant::now();
    loop {
        let r = ctx
            .client
            .call("cowboy_getReceipt", json!([hash]))
            .map_err(rpc)?;
        if !r.is_null() {
            return Ok(r);
        }
        if started.elapsed() > Duration::from_secs(120) {
            return Err(format!(
                "no receipt for {hash} after 120 s; the transaction may still be pending"
            ));
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// The actor traceback of a failed receipt or call result.
fn traceback(ctx: &Ctx, actor: Option<&str>, handler: &str, error: &Json) -> String {
    let class = error["class"].as_str().unwrap_or("Error");
    let message = error["message"].as_str().unwrap_or_default();
    let mut out = String::from("Traceback (most recent call last):\n");
    if let (Some(actor), Some(line)) = (actor, error["line"].as_u64()) {
        out.push_str(&format!(
            "  File \"<actor {actor}>\", line {line}, in {handler}\n"
        ));
        let source = ctx
            .client
            .call("cowboy_getActorSource", json!([actor]))
            .ok();
        if let Some(text) = source
            .as_ref()
            .and_then(|s| s["source"].as_str())
            .and_then(|src| src.lines().nth(line.saturating_sub(1) as usize))
        {
            out.push_str(&format!("    {}\n", text.trim()));
        }
    }
    if message.is_empty() {
        out.push_str(class);
    } else {
        out.push_str(&format!("{class}: {message}"));
    }
    out
}

fn report(ctx: &Ctx, receipt: &Json, handler: &str) -> CmdResult {
    if ctx.json {
        println!(
            "{}",
            serde_json::to_string_pretty(receipt).unwrap_or_default()
        );
    }
    if receipt["success"].as_bool() != Some(true) {
        let actor = receipt["to"].as_str();
        return Err(traceback(ctx, actor, handler, &receipt["error"]));
    }
    if !ctx.json {
        if let Some(addr) = receipt["contractAddress"].as_str() {
            println!("deployed {addr}");
        } else if !receipt["returnValue"].is_null() {
            println!("{}", receipt["returnValue"]);
        }
        eprintln!(
            "block {}  cycles {}  cells {}  fee {}",
            receipt["blockHeight"],
            receipt["cyclesUsed"],
            receipt["cellsUsed"],
            format_cby(amount(&receipt["feePaid"]))
        );
    }
    Ok(())
}

/// `cowboy balance ADDR`.
pub fn balance(ctx: &Ctx, addr: Option<&str>) -> CmdResult {
    let address = match addr {
        Some(a) => parse_address(a)?,
        None => signer(ctx)?.address(),
    };
    let acct = ctx
        .client
        .call("cowboy_getAccount", json!([hex0x(&address.0)]))
        .map_err(rpc)?;
    if ctx.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&acct).unwrap_or_default()
        );
    } else {
        println!("{}", format_cby(amount(&acct["balance"])));
    }
    Ok(())
}

/// `cowboy transfer TO AMOUNT`.
pub fn transfer(ctx: &Ctx, to: &str, value: &str) -> CmdResult {
    let to = parse_address(to)?;
    let receipt = send(
        ctx,
        Some(to),
        parse_amount(value)?,
        Payload::Transfer.encode(),
    )?;
    report(ctx, &receipt, "transfer")
}

/// `cowboy deploy FILE`.
pub fn deploy(
    ctx: &Ctx,
    file: &std::path::Path,
    salt: Option<&str>,
    args: Option<&str>,
) -> CmdResult {
    let source = std::fs::read_to_string(file)
        .map_err(|e| format!("cannot read {}: {e}", file.display()))?;
    let salt = match salt {
        Some(s) => match s.strip_prefix("0x").and_then(Hash32::from_hex) {
            Some(h) => h,
            None => keccak256(s.as_bytes()),
        },
        // A fresh salt per deploy: the sender and the time make repeated deploys distinct.
        None => {
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos());
            keccak256(format!("{}-{now}", hex::encode(signer(ctx)?.address().0)).as_bytes())
        }
    };
    let payload = Payload::Deploy {
        source,
        salt,
        init_args: parse_args(args)?,
    };
    let receipt = send(ctx, None, 0, payload.encode())?;
    report(ctx, &receipt, "__init__")
}

/// `cowboy call ADDR HANDLER`.
pub fn call(
    ctx: &Ctx,
    to: &str,
    handler: &str,
    args: Option<&str>,
    value: Option<&str>,
) -> CmdResult {
    let to = parse_address(to)?;
    let payload = Payload::Call {
        handler: handler.to_string(),
        args: parse_args(args)?,
    };
    let value = value.map(parse_amount).transpose()?.unwrap_or(0);
    let receipt = send(ctx, Some(to), value, payload.encode())?;
    report(ctx, &receipt, handler)
}

/// `cowboy view ADDR HANDLER`.
pub fn view(ctx: &Ctx, to: &str, handler: &str, args: Option<&str>) -> CmdResult {
    let to = parse_address(to)?;
    let args = cbor::encode(&parse_args(args)?);
    let from = ctx.key.as_ref().map(|k| hex0x(&k.address().0));
    let r = ctx
        .client
        .call(
            "cowboy_call",
            json!([{"to": hex0x(&to.0), "handler": handler, "args": hex0x(&args), "from": from}]),
        )
        .map_err(rpc)?;
    if ctx.json {
        println!("{}", serde_json::to_string_pretty(&r).unwrap_or_default());
    }
    if r["success"].as_bool() != Some(true) {
        return Err(traceback(ctx, Some(&hex0x(&to.0)), handler, &r["error"]));
    }
    if !ctx.json {
        println!("{}", r["returnValue"]);
        eprintln!("cycles {}  cells {}", r["cyclesUsed"], r["cellsUsed"]);
    }
    Ok(())
}

/// `cowboy receipt HASH`.
pub fn receipt(ctx: &Ctx, hash: &str) -> CmdResult {
    let r = ctx
        .client
        .call("cowboy_getReceipt", json!([hash]))
        .map_err(rpc)?;
    if r.is_null() {
        return Err(format!(
            "no receipt for {hash} (unknown, or not in a finalized block yet)"
        ));
    }
    println!("{}", serde_json::to_string_pretty(&r).unwrap_or_default());
    Ok(())
}

/// `cowboy block [N]`.
pub fn block(ctx: &Ctx, n: Option<u64>) -> CmdResult {
    let tag = n.map_or(json!("latest"), |n| json!(n));
    let b = ctx
        .client
        .call("cowboy_getBlockByNumber", json!([tag, false]))
        .map_err(rpc)?;
    if b.is_null() {
        return Err("no such block".into());
    }
    println!("{}", serde_json::to_string_pretty(&b).unwrap_or_default());
    Ok(())
}

/// `cowboy storage ADDR KEY`: the key is a string (the SDK stores under the CBOR of the Python
/// key), or `0x…` for raw key bytes. The proof is checked against the block's state root.
pub fn storage(ctx: &Ctx, addr: &str, key: &str) -> CmdResult {
    let address = parse_address(addr)?;
    let raw = match key.strip_prefix("0x") {
        Some(h) => hex::decode(h).map_err(|_| format!("{key:?} is not hex"))?,
        None => cbor::encode(&Value::Text(key.to_string())),
    };
    let r = ctx
        .client
        .call("cowboy_getStorage", json!([hex0x(&address.0), hex0x(&raw)]))
        .map_err(rpc)?;
    let decode = |k: &str| {
        r[k].as_str()
            .and_then(|s| s.strip_prefix("0x"))
            .and_then(|h| hex::decode(h).ok())
    };
    let (Some(proof), Some(root)) = (decode("proof"), decode("stateRoot")) else {
        return Err("the node's answer lacks a proof".into());
    };
    let root: [u8; 32] = root.try_into().map_err(|_| "bad state root")?;
    let value = decode("value");
    cowboy_proof_verifier::verify_storage(&root, &address.0, &raw, value.as_deref(), &proof)
        .map_err(|e| format!("the node's proof does not verify: {e:?}"))?;
    if ctx.json {
        println!("{}", serde_json::to_string_pretty(&r).unwrap_or_default());
    } else {
        match value {
            None => println!("(absent)"),
            Some(v) => match cbor::decode(&v) {
                Ok(v) => println!("{}", to_json(&v)),
                Err(_) => println!("{}", hex0x(&v)),
            },
        }
        eprintln!(
            "proof verified against the state root of block {}",
            r["height"]
        );
    }
    Ok(())
}

/// `cowboy events ADDR [--topic T] [--follow]`.
pub fn events(ctx: &Ctx, addr: &str, topic: Option<&str>, follow: bool) -> CmdResult {
    let address = parse_address(addr)?;
    let mut from: Option<u64> = None;
    loop {
        let tip = ctx
            .client
            .call("cowboy_blockNumber", json!([]))
            .map_err(rpc)?
            .as_u64()
            .unwrap_or(0);
        let start = from.unwrap_or_else(|| tip.saturating_sub(9_999));
        if start <= tip {
            let evs = ctx
                .client
                .call(
                    "cowboy_getEvents",
                    json!([{"address": hex0x(&address.0), "topic": topic, "fromBlock": start, "toBlock": tip}]),
                )
                .map_err(rpc)?;
            for e in evs.as_array().into_iter().flatten() {
                if ctx.json {
                    println!("{e}");
                } else {
                    println!(
                        "block {} {} {}",
                        e["blockHeight"],
                        e["topic"].as_str().unwrap_or_default(),
                        e["dataValue"]
                    );
                }
            }
            from = Some(tip + 1);
        }
        if !follow {
            return Ok(());
        }
        std::thread::sleep(Duration::from_millis(500));
    }
}

/// One pending timer as a table row.
fn timer_row(t: &Json) -> String {
    let every = match t["every"].as_u64() {
        Some(0) | None => "-".to_string(),
        Some(n) => n.to_string(),
    };
    format!(
        "{:<8} {:<20} {:<10} {:<6} {:<42} {:<16} {}",
        // JSON values ignore width: format them as text first.
        t["id"].to_string(),
        t["handler"].as_str().unwrap_or_default(),
        t["due"].to_string(),
        every,
        t["gba"].as_str().unwrap_or_default(),
        format_cby(amount(&t["deposit"])),
        t["deferrals"]
    )
}

const TIMER_HEADER: &str =
    "id       handler              due        every  agent                                      deposit          deferrals";

/// `cowboy timers ADDR`: the address's pending timers.
pub fn timers(ctx: &Ctx, addr: &str) -> CmdResult {
    let address = parse_address(addr)?;
    let ts = ctx
        .client
        .call("cowboy_getTimers", json!([hex0x(&address.0)]))
        .map_err(rpc)?;
    if ctx.json {
        println!("{}", serde_json::to_string_pretty(&ts).unwrap_or_default());
        return Ok(());
    }
    let list = ts.as_array().cloned().unwrap_or_default();
    if list.is_empty() {
        eprintln!("{addr} has no pending timers");
        return Ok(());
    }
    println!("{TIMER_HEADER}");
    for t in &list {
        println!("{}", timer_row(t));
    }
    Ok(())
}

/// `cowboy timer ID`: one pending timer, with its argument.
pub fn timer(ctx: &Ctx, id: u64) -> CmdResult {
    let t = ctx
        .client
        .call("cowboy_getTimer", json!([id]))
        .map_err(rpc)?;
    if t.is_null() {
        return Err(format!(
            "timer {id} is not pending (it fired, was cancelled or dropped, or never existed); \
             see `cowboy timer-executions HEIGHT`"
        ));
    }
    if ctx.json {
        println!("{}", serde_json::to_string_pretty(&t).unwrap_or_default());
        return Ok(());
    }
    println!("{TIMER_HEADER}");
    println!("{}", timer_row(&t));
    println!(
        "owner {}  data {}",
        t["owner"].as_str().unwrap_or_default(),
        t["dataValue"]
    );
    Ok(())
}

/// `cowboy timer-executions [HEIGHT]`: the timers a block's `begin_block` ran, with receipts.
pub fn timer_executions(ctx: &Ctx, height: Option<u64>) -> CmdResult {
    let tag = height.map_or(json!("latest"), |n| json!(n));
    let xs = ctx
        .client
        .call("cowboy_getTimerExecutions", json!([tag]))
        .map_err(rpc)?;
    if xs.is_null() {
        return Err("no such block".into());
    }
    if ctx.json {
        println!("{}", serde_json::to_string_pretty(&xs).unwrap_or_default());
        return Ok(());
    }
    let list = xs.as_array().cloned().unwrap_or_default();
    if list.is_empty() {
        eprintln!("no timer ran in that block");
    }
    for x in &list {
        let handler = x["handler"].as_str().unwrap_or_default();
        let outcome = if x["success"].as_bool() == Some(true) {
            format!("ok {}", x["returnValue"])
        } else {
            traceback(ctx, x["owner"].as_str(), handler, &x["error"])
        };
        println!(
            "block {}  timer {}  {}.{}  due {}  cycles {}  fee {}  events {}\n{}",
            x["blockHeight"],
            x["timerId"],
            x["owner"].as_str().unwrap_or_default(),
            handler,
            x["due"],
            x["cyclesUsed"],
            format_cby(amount(&x["feePaid"])),
            x["events"].as_array().map_or(0, Vec::len),
            outcome
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amounts() {
        assert_eq!(parse_amount("5").unwrap(), 5);
        assert_eq!(parse_amount("1.5cby").unwrap(), 15 * 10u128.pow(17));
        assert_eq!(parse_amount("2CBY").unwrap(), 2 * 10u128.pow(18));
        assert!(parse_amount("1.0000000000000000001cby").is_err());
        assert!(parse_amount("abc").is_err());
        assert_eq!(format_cby(15 * 10u128.pow(17)), "1.5 CBY");
    }

    #[test]
    fn args_are_arrays_or_objects() {
        assert_eq!(
            parse_args(Some("[1, \"a\"]")).unwrap(),
            Value::Array(vec![Value::Uint(1), Value::Text("a".into())])
        );
        assert!(matches!(
            parse_args(Some("{\"n\": 2}")).unwrap(),
            Value::Map(_)
        ));
        assert!(parse_args(Some("3")).is_err());
        assert!(parse_args(Some("[1,")).is_err());
    }

    #[test]
    fn timer_rows_line_up_with_the_header() {
        let t = json!({"id": 3, "handler": "ring", "due": 120, "every": 0,
                       "gba": format!("0x{}", "00".repeat(19) + "0e"),
                       "deposit": "1000000000000000", "deferrals": 2});
        let row = timer_row(&t);
        assert!(row.starts_with("3        ring"), "{row}");
        assert!(
            row.contains(" - "),
            "a one-shot timer shows no interval: {row}"
        );
        assert!(row.contains("0.001 CBY"), "{row}");
        assert!(row.ends_with(" 2"), "{row}");
        let cols = |s: &str| s.find("due").or_else(|| s.find("120"));
        assert_eq!(cols(TIMER_HEADER), cols(&row));
    }
}
