//! The chain commands of `cowboy`: everything goes through the node's public JSON-RPC
//! (`crates/node/RPC.md`); transactions are built, signed and encoded here, with
//! `cowboy-types`, exactly as the node decodes them.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use cowboy_types::cbor::{self, Value};
use cowboy_types::json::to_json;
use cowboy_types::tx::Payload;
use cowboy_types::{keccak256, Address, Hash32, PrivateKey, Transaction};
use serde_json::{json, Value as Json};

use crate::rpc::{Client, RpcError};

/// How a command ended: `Ok` prints and exits 0, `Err` prints to stderr and exits non-zero.
pub type CmdResult = Result<(), String>;

/// Who signs: nobody, a dev account, or a keystore key (decrypted only when something is
/// signed; reads use the address its file keeps in clear).
pub enum Signer {
    /// No signer selected.
    None,
    /// Dev account N of a `cowboyd --dev` node.
    Dev(u32),
    /// A keystore key by name.
    Keystore(String),
}

/// Global options every chain command sees.
pub struct Ctx {
    /// The node.
    pub client: Client,
    /// Print raw JSON.
    pub json: bool,
    /// The selected signer.
    pub signer: Signer,
}

impl Ctx {
    /// The signer's address, without asking for a password.
    pub(crate) fn address(&self) -> Result<Option<Address>, String> {
        match &self.signer {
            Signer::None => Ok(None),
            Signer::Dev(n) => Ok(Some(cowboy_types::dev_key(*n).address())),
            Signer::Keystore(name) => crate::keystore::address(name).map(Some),
        }
    }

    /// The signing key (asks for the keystore password).
    fn key(&self) -> Result<PrivateKey, String> {
        match &self.signer {
            Signer::None => {
                Err("this command signs a transaction: give --key NAME or --dev-account N".into())
            }
            Signer::Dev(n) => Ok(cowboy_types::dev_key(*n)),
            Signer::Keystore(name) => {
                let p = crate::keystore::password(&format!("password for {name}: "))?;
                crate::keystore::load(name, &p)
            }
        }
    }

    /// The address a read is about: the one given, else the signer's.
    pub(crate) fn subject(&self, addr: Option<&str>) -> Result<Address, String> {
        match addr {
            Some(a) => parse_address(a),
            None => self.address()?.ok_or_else(|| {
                "give an address, or select one with --key NAME or --dev-account N".to_string()
            }),
        }
    }
}

pub(crate) fn rpc(e: RpcError) -> String {
    match e {
        RpcError::Node { data, .. } if data["reason"] == "insufficientBalance" => {
            let needed = amount(&data["needed"]);
            let balance = amount(&data["balance"]);
            format!(
                "insufficient balance: the sender holds {} ({balance} wei) but this needs {} \
                 ({needed} wei: the value plus the maximum fee of this and its pending \
                 transactions)",
                format_cby(balance),
                format_cby(needed)
            )
        }
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

pub fn hex0x(b: &[u8]) -> String {
    format!("0x{}", hex::encode(b))
}

/// Parse an address argument: 0x + 40 hex digits, all lowercase, all uppercase or with a
/// valid EIP-55 checksum.
pub fn parse_address(s: &str) -> Result<Address, String> {
    s.trim()
        .parse::<Address>()
        .map_err(|e| format!("{s:?} is not an address: {e}"))
}

/// Parse an amount: an integer number of wei, or a decimal number with the unit `wei`, `gwei`
/// (10^9 wei) or `cby` (10^18 wei): `1.5cby`, `20gwei`, `7wei`.
pub fn parse_amount(s: &str) -> Result<u128, String> {
    let lower = s.trim().to_ascii_lowercase();
    let (number, decimals) = if let Some(n) = lower.strip_suffix("gwei") {
        (n, 9)
    } else if let Some(n) = lower.strip_suffix("wei") {
        (n, 0)
    } else if let Some(n) = lower.strip_suffix("cby") {
        (n, 18)
    } else {
        (lower.as_str(), 0)
    };
    let number = number.trim();
    let bad = || format!("{s:?} is not an amount (wei, or e.g. 1.5cby, 20gwei)");
    let (whole, frac) = number.split_once('.').unwrap_or((number, ""));
    if (whole.is_empty() && frac.is_empty())
        || !whole.bytes().all(|b| b.is_ascii_digit())
        || !frac.bytes().all(|b| b.is_ascii_digit())
    {
        return Err(bad());
    }
    if frac.len() > decimals as usize {
        return Err(format!(
            "{s:?} has more decimals than its unit allows ({decimals}): amounts are whole wei"
        ));
    }
    let too_large = || format!("{s:?} is too large");
    let whole: u128 = if whole.is_empty() {
        0
    } else {
        whole.parse().map_err(|_| too_large())?
    };
    let frac_wei: u128 = if frac.is_empty() {
        0
    } else {
        frac.parse::<u128>().map_err(|_| bad())? * 10u128.pow(decimals - frac.len() as u32)
    };
    whole
        .checked_mul(10u128.pow(decimals))
        .and_then(|w| w.checked_add(frac_wei))
        .ok_or_else(too_large)
}

/// `--args`: a JSON array (positional) or object (keyword) as handler arguments, integers
/// exact at any size (`crate::args`).
pub fn parse_args(args: Option<&str>) -> Result<Value, String> {
    let Some(text) = args else {
        return Ok(Value::Array(Vec::new()));
    };
    let v = crate::args::parse(text).map_err(|e| format!("--args is not JSON: {e}"))?;
    let keyword = matches!(&v, Value::Map(entries) if entries.iter().all(|(k, _)| matches!(k, Value::Text(_))));
    if !(matches!(v, Value::Array(_)) || keyword) {
        return Err(
            "--args must be a JSON array (positional) or object (keyword arguments)".into(),
        );
    }
    Ok(v)
}

fn amount(v: &Json) -> u128 {
    v.as_str().and_then(|s| s.parse().ok()).unwrap_or(0)
}

pub fn format_cby(wei: u128) -> String {
    let whole = wei / 10u128.pow(18);
    let frac = wei % 10u128.pow(18);
    if frac == 0 {
        format!("{whole} CBY")
    } else {
        let f = format!("{frac:018}");
        format!("{whole}.{} CBY", f.trim_end_matches('0'))
    }
}

/// A local copy of the actor's source: tracebacks quote its lines under its path.
pub struct Local<'a> {
    /// The file name shown.
    pub path: &'a str,
    /// Its text.
    pub source: &'a str,
}

/// What a transaction will do, for the estimate and the pre-flight check.
struct Plan<'a> {
    to: Option<Address>,
    value: u128,
    payload: Vec<u8>,
    /// The handler run (`__init__` for a deploy, `transfer` for a value transfer).
    handler: &'a str,
    local: Option<Local<'a>>,
}

fn chain_id(ctx: &Ctx) -> Result<u64, String> {
    ctx.client
        .call("cowboy_chainId", json!([]))
        .map_err(rpc)?
        .as_u64()
        .ok_or_else(|| "the node's chain id is not a number".into())
}

fn estimate(
    ctx: &Ctx,
    from: Option<Address>,
    plan: &Plan<'_>,
    block: Option<u64>,
) -> Result<Json, String> {
    ctx.client
        .call(
            "cowboy_estimateFee",
            json!([{"from": from.map(|a| hex0x(&a.0)), "to": plan.to.map(|a| hex0x(&a.0)),
                    "payload": hex0x(&plan.payload), "value": plan.value.to_string()},
                   block_param(block)]),
        )
        .map_err(rpc)
}

/// Sign and send a transaction with estimated limits and fees, wait for its receipt. When the
/// pre-flight simulation fails nothing is sent, unless `force`.
fn send(ctx: &Ctx, plan: &Plan<'_>, force: bool) -> Result<Json, String> {
    let key = ctx.key()?;
    let from = key.address();
    let chain_id = chain_id(ctx)?;
    let account = ctx
        .client
        .call("cowboy_getAccount", json!([hex0x(&from.0)]))
        .map_err(rpc)?;
    let nonce = account["pendingNonce"].as_u64().unwrap_or(0);
    let est = estimate(ctx, Some(from), plan, None)?;
    if est["success"] == false {
        let actor = plan.to.map(|a| hex0x(&a.0));
        let tb = traceback(
            ctx,
            actor.as_deref(),
            plan.handler,
            &est["error"],
            plan.local.as_ref(),
        );
        if !force {
            return Err(format!(
                "{tb}\nthe simulation failed, so nothing was sent (--force sends it anyway, and \
                 pays its fee)"
            ));
        }
        crate::note(format!(
            "{tb}\nthe simulation failed; sending anyway (--force)"
        ));
    }
    let mut tx = Transaction {
        chain_id,
        nonce,
        to: plan.to,
        value: plan.value,
        cycles_limit: est["cyclesLimit"].as_u64().unwrap_or(0),
        cells_limit: est["cellsLimit"].as_u64().unwrap_or(0),
        max_fee_per_cycle: amount(&est["maxFeePerCycle"]),
        max_fee_per_cell: amount(&est["maxFeePerCell"]),
        tip_per_cycle: amount(&est["tipPerCycle"]),
        tip_per_cell: amount(&est["tipPerCell"]),
        access_list: None,
        payload: plan.payload.clone(),
        signature: None,
    };
    tx.sign(&key).map_err(|e| format!("cannot sign: {e}"))?;
    let hash = ctx
        .client
        .call("cowboy_sendRawTransaction", json!([hex0x(&tx.encode())]))
        .map_err(rpc)?;
    let hash = hash.as_str().unwrap_or_default().to_string();
    if !ctx.json {
        crate::note(format!("sent {hash}"));
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
                "no receipt for {hash} after 120 s; the transaction may still be pending \
                 (`cowboy tx {hash}` shows it)"
            ));
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// The actor traceback of a failed receipt, call or simulation: the line is quoted from the
/// local file when there is one (a deploy), else from the actor's source on chain.
fn traceback(
    ctx: &Ctx,
    actor: Option<&str>,
    handler: &str,
    error: &Json,
    local: Option<&Local<'_>>,
) -> String {
    let class = error["class"].as_str().unwrap_or("Error");
    let message = error["message"].as_str().unwrap_or_default();
    let mut out = String::from("Traceback (most recent call last):\n");
    if let Some(line) = error["line"].as_u64() {
        let (file, source) = match (local, actor) {
            (Some(l), _) => (l.path.to_string(), Some(l.source.to_string())),
            (None, Some(actor)) => {
                let source = ctx
                    .client
                    .call("cowboy_getActorSource", json!([actor]))
                    .ok()
                    .and_then(|s| s["source"].as_str().map(str::to_string));
                (format!("<actor {actor}>"), source)
            }
            (None, None) => ("<actor>".to_string(), None),
        };
        out.push_str(&frame(&file, line, handler, source.as_deref()));
    }
    if message.is_empty() {
        out.push_str(class);
    } else {
        out.push_str(&format!("{class}: {message}"));
    }
    out
}

/// One traceback frame as CPython prints it, quoting line `line` of `source` when known.
pub fn frame(file: &str, line: u64, handler: &str, source: Option<&str>) -> String {
    let mut out = format!("  File \"{file}\", line {line}, in {handler}\n");
    if let Some(text) = source.and_then(|src| src.lines().nth(line.saturating_sub(1) as usize)) {
        out.push_str(&format!("    {}\n", text.trim()));
    }
    out
}

fn report(ctx: &Ctx, receipt: &Json, handler: &str, local: Option<&Local<'_>>) -> CmdResult {
    if ctx.json {
        crate::out_json(receipt);
    }
    if receipt["success"].as_bool() != Some(true) {
        let actor = receipt["to"].as_str();
        return Err(traceback(ctx, actor, handler, &receipt["error"], local));
    }
    if !ctx.json {
        if let Some(addr) = receipt["contractAddress"].as_str() {
            crate::out(format!("deployed {addr}"));
        } else if !receipt["returnValue"].is_null() {
            crate::out(&receipt["returnValue"]);
        }
        crate::note(format!(
            "block {}  cycles {}  cells {}  fee {}",
            receipt["blockHeight"],
            receipt["cyclesUsed"],
            receipt["cellsUsed"],
            format_cby(amount(&receipt["feePaid"]))
        ));
    }
    Ok(())
}

/// A read's block parameter: a height, or the latest state.
fn block_param(block: Option<u64>) -> Json {
    block.map_or(json!("latest"), |h| json!(h))
}

/// `cowboy balance [ADDR] [--block N]`.
pub fn balance(ctx: &Ctx, addr: Option<&str>, wei: bool, block: Option<u64>) -> CmdResult {
    let address = ctx.subject(addr)?;
    let acct = ctx
        .client
        .call(
            "cowboy_getAccount",
            json!([hex0x(&address.0), block_param(block)]),
        )
        .map_err(rpc)?;
    if ctx.json {
        crate::out_json(&acct);
    } else if wei {
        crate::out(amount(&acct["balance"]));
    } else {
        crate::out(format_cby(amount(&acct["balance"])));
    }
    Ok(())
}

/// `cowboy nonce [ADDR]`: the next nonce to sign (counting pending transactions).
pub fn nonce(ctx: &Ctx, addr: Option<&str>) -> CmdResult {
    let address = ctx.subject(addr)?;
    let acct = ctx
        .client
        .call("cowboy_getAccount", json!([hex0x(&address.0)]))
        .map_err(rpc)?;
    if ctx.json {
        crate::out_json(&json!({
            "address": address.to_checksum(),
            "nonce": acct["nonce"],
            "pendingNonce": acct["pendingNonce"],
            "height": acct["height"],
        }));
    } else {
        crate::out(&acct["pendingNonce"]);
        if acct["pendingNonce"] != acct["nonce"] {
            crate::note(format!(
                "{} mined at block {}, the rest pending",
                acct["nonce"], acct["height"]
            ));
        }
    }
    Ok(())
}

fn transfer_plan(to: &str, value: &str) -> Result<Plan<'static>, String> {
    Ok(Plan {
        to: Some(parse_address(to)?),
        value: parse_amount(value)?,
        payload: Payload::Transfer.encode(),
        handler: "transfer",
        local: None,
    })
}

/// `cowboy transfer TO AMOUNT`.
pub fn transfer(ctx: &Ctx, to: &str, value: &str, force: bool) -> CmdResult {
    let plan = transfer_plan(to, value)?;
    let receipt = send(ctx, &plan, force)?;
    report(ctx, &receipt, "transfer", None)
}

fn read_source(file: &std::path::Path) -> Result<String, String> {
    std::fs::read_to_string(file).map_err(|e| format!("cannot read {}: {e}", file.display()))
}

fn deploy_plan<'a>(
    ctx: &Ctx,
    path: &'a str,
    source: &'a str,
    salt: Option<&str>,
    args: Option<&str>,
    value: Option<&str>,
) -> Result<Plan<'a>, String> {
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
            let who = ctx.address()?.map(|a| a.0).unwrap_or_default();
            keccak256(format!("{}-{now}", hex::encode(who)).as_bytes())
        }
    };
    let payload = Payload::Deploy {
        source: source.to_string(),
        salt,
        init_args: parse_args(args)?,
    };
    Ok(Plan {
        to: None,
        value: value.map(parse_amount).transpose()?.unwrap_or(0),
        payload: payload.encode(),
        handler: "__init__",
        local: Some(Local { path, source }),
    })
}

/// `cowboy deploy FILE`.
pub fn deploy(
    ctx: &Ctx,
    file: &std::path::Path,
    salt: Option<&str>,
    args: Option<&str>,
    value: Option<&str>,
    force: bool,
) -> CmdResult {
    let source = read_source(file)?;
    let path = file.display().to_string();
    let plan = deploy_plan(ctx, &path, &source, salt, args, value)?;
    let receipt = send(ctx, &plan, force)?;
    report(ctx, &receipt, "__init__", plan.local.as_ref())
}

fn call_plan<'a>(
    to: &str,
    handler: &'a str,
    args: Option<&str>,
    value: Option<&str>,
) -> Result<Plan<'a>, String> {
    Ok(Plan {
        to: Some(parse_address(to)?),
        value: value.map(parse_amount).transpose()?.unwrap_or(0),
        payload: Payload::Call {
            handler: handler.to_string(),
            args: parse_args(args)?,
        }
        .encode(),
        handler,
        local: None,
    })
}

/// `cowboy call ADDR HANDLER`.
pub fn call(
    ctx: &Ctx,
    to: &str,
    handler: &str,
    args: Option<&str>,
    value: Option<&str>,
    force: bool,
) -> CmdResult {
    let plan = call_plan(to, handler, args, value)?;
    let receipt = send(ctx, &plan, force)?;
    report(ctx, &receipt, handler, None)
}

/// Call `handler` of `to` with arguments already encoded (the commands that build them, such
/// as `cowboy validator register`), as `cowboy call` does.
pub(crate) fn call_encoded(
    ctx: &Ctx,
    to: Address,
    handler: &str,
    args: Value,
    value: u128,
    force: bool,
) -> CmdResult {
    let plan = Plan {
        to: Some(to),
        value,
        payload: Payload::Call {
            handler: handler.to_string(),
            args,
        }
        .encode(),
        handler,
        local: None,
    };
    let receipt = send(ctx, &plan, force)?;
    report(ctx, &receipt, handler, None)
}

/// `cowboy estimate …`: the simulated usage and the fees the CLI would sign.
fn print_estimate(ctx: &Ctx, plan: &Plan<'_>, block: Option<u64>) -> CmdResult {
    let from = ctx.address()?;
    let est = estimate(ctx, from, plan, block)?;
    if ctx.json {
        crate::out_json(&est);
    } else {
        let u = |k: &str| est[k].as_u64().unwrap_or(0) as u128;
        // What the usage costs at today's basefees plus tips, and the most the signed caps allow.
        let likely = u("cycles") * (amount(&est["cycleBasefee"]) + amount(&est["tipPerCycle"]))
            + u("cells") * (amount(&est["cellBasefee"]) + amount(&est["tipPerCell"]));
        let max = u("cyclesLimit") * amount(&est["maxFeePerCycle"])
            + u("cellsLimit") * amount(&est["maxFeePerCell"]);
        crate::out(format!(
            "cycles {}  cells {}  fee {} (at most {})",
            est["cycles"],
            est["cells"],
            format_cby(likely),
            format_cby(max)
        ));
        crate::note(format!(
            "limits: {} cycles, {} cells; basefees {} / {} wei per cycle / cell",
            est["cyclesLimit"],
            est["cellsLimit"],
            est["cycleBasefee"].as_str().unwrap_or("?"),
            est["cellBasefee"].as_str().unwrap_or("?")
        ));
    }
    if est["success"] == false {
        let actor = plan.to.map(|a| hex0x(&a.0));
        return Err(traceback(
            ctx,
            actor.as_deref(),
            plan.handler,
            &est["error"],
            plan.local.as_ref(),
        ));
    }
    Ok(())
}

/// `cowboy estimate call ADDR HANDLER`.
pub fn estimate_call(
    ctx: &Ctx,
    to: &str,
    handler: &str,
    args: Option<&str>,
    value: Option<&str>,
    block: Option<u64>,
) -> CmdResult {
    print_estimate(ctx, &call_plan(to, handler, args, value)?, block)
}

/// `cowboy estimate deploy FILE`.
pub fn estimate_deploy(
    ctx: &Ctx,
    file: &std::path::Path,
    args: Option<&str>,
    value: Option<&str>,
    block: Option<u64>,
) -> CmdResult {
    let source = read_source(file)?;
    let path = file.display().to_string();
    print_estimate(
        ctx,
        &deploy_plan(ctx, &path, &source, None, args, value)?,
        block,
    )
}

/// `cowboy estimate transfer TO AMOUNT`.
pub fn estimate_transfer(ctx: &Ctx, to: &str, value: &str, block: Option<u64>) -> CmdResult {
    print_estimate(ctx, &transfer_plan(to, value)?, block)
}

/// `cowboy view ADDR HANDLER`.
pub fn view(
    ctx: &Ctx,
    to: &str,
    handler: &str,
    args: Option<&str>,
    value: Option<&str>,
    from: Option<&str>,
    block: Option<u64>,
) -> CmdResult {
    let to = parse_address(to)?;
    let args = cbor::encode(&parse_args(args)?);
    let from = match from {
        Some(f) => Some(parse_address(f)?),
        None => ctx.address()?,
    };
    let value = value.map(parse_amount).transpose()?.unwrap_or(0);
    let r = ctx
        .client
        .call(
            "cowboy_call",
            json!([{"to": hex0x(&to.0), "handler": handler, "args": hex0x(&args),
                    "from": from.map(|a| hex0x(&a.0)), "value": value.to_string()},
                   block_param(block)]),
        )
        .map_err(rpc)?;
    if ctx.json {
        crate::out_json(&r);
    }
    if r["success"].as_bool() != Some(true) {
        return Err(traceback(
            ctx,
            Some(&hex0x(&to.0)),
            handler,
            &r["error"],
            None,
        ));
    }
    if !ctx.json {
        crate::out(&r["returnValue"]);
        crate::note(format!(
            "cycles {}  cells {}",
            r["cyclesUsed"], r["cellsUsed"]
        ));
    }
    Ok(())
}

pub(crate) fn parse_hash(s: &str) -> Result<String, String> {
    match s.strip_prefix("0x").and_then(Hash32::from_hex) {
        Some(h) => Ok(hex0x(&h.0)),
        None => Err(format!("{s:?} is not a hash (0x + 64 hex digits)")),
    }
}

/// `cowboy tx HASH`: the transaction, and whether it is pending, succeeded or failed.
pub fn tx(ctx: &Ctx, hash: &str) -> CmdResult {
    let hash = parse_hash(hash)?;
    let t = ctx
        .client
        .call("cowboy_getTransaction", json!([hash]))
        .map_err(rpc)?;
    if t.is_null() {
        return Err(format!(
            "no transaction {hash}: this node has it neither pending nor in a finalized block"
        ));
    }
    let receipt = if t["blockHeight"].is_null() {
        Json::Null
    } else {
        ctx.client
            .call("cowboy_getReceipt", json!([hash]))
            .map_err(rpc)?
    };
    let status = match receipt["success"].as_bool() {
        None => "pending".to_string(),
        Some(true) => "success".to_string(),
        Some(false) => format!(
            "failed: {}: {}",
            receipt["error"]["class"].as_str().unwrap_or("Error"),
            receipt["error"]["message"].as_str().unwrap_or_default()
        ),
    };
    if ctx.json {
        let mut t = t;
        t["status"] = json!(status);
        crate::out_json(&t);
        return Ok(());
    }
    let field = |k: &str| match &t[k] {
        Json::String(s) => s.clone(),
        Json::Null => "-".to_string(),
        v => v.to_string(),
    };
    let mut rows = vec![
        ("hash", field("hash")),
        ("status", status),
        ("block", field("blockHeight")),
        ("from", field("from")),
        ("to", field("to")),
        ("kind", field("kind")),
    ];
    if t["kind"] == "call" {
        rows.push(("handler", field("handler")));
    }
    rows.extend([
        ("value", format_cby(amount(&t["value"]))),
        ("nonce", field("nonce")),
        ("cycles limit", field("cyclesLimit")),
        ("cells limit", field("cellsLimit")),
    ]);
    if !receipt.is_null() {
        rows.push(("cycles used", receipt["cyclesUsed"].to_string()));
        rows.push(("cells used", receipt["cellsUsed"].to_string()));
        rows.push(("fee paid", format_cby(amount(&receipt["feePaid"]))));
    }
    for (k, v) in rows {
        crate::out(format!("{k:<13}{v}"));
    }
    Ok(())
}

/// `cowboy receipt HASH [--prove]`.
pub fn receipt(ctx: &Ctx, hash: &str, prove: bool) -> CmdResult {
    let hash = parse_hash(hash)?;
    let r = ctx
        .client
        .call("cowboy_getReceipt", json!([hash]))
        .map_err(rpc)?;
    if r.is_null() {
        return Err(format!(
            "no receipt for {hash} (unknown, or not in a finalized block yet)"
        ));
    }
    if prove {
        let p = ctx
            .client
            .call("cowboy_getTransactionProof", json!([hash]))
            .map_err(rpc)?;
        let block = check_transaction_proof(&p, &hash, &r)
            .map_err(|e| format!("the node's inclusion proof does not verify: {e}"))?;
        crate::out_json(&r);
        crate::note(format!(
            "the transaction and this receipt are proven in block {block} (against its header's tx_root and receipts_root)"
        ));
    } else {
        crate::out_json(&r);
    }
    Ok(())
}

/// Check a `cowboy_getTransactionProof` answer against itself and the receipt `r` already
/// fetched: the header hashes to `blockHash` (the block the receipt names), the transaction
/// to `hash`, the receipt is the one fetched, and each path rebuilds its root. The block's
/// hash, on success.
fn check_transaction_proof(p: &Json, hash: &str, r: &Json) -> Result<String, String> {
    use cowboy_proof_verifier::{verify_inclusion, Inclusion};
    let bytes = |k: &str| -> Result<Vec<u8>, String> {
        p[k].as_str()
            .and_then(|s| s.strip_prefix("0x"))
            .and_then(|h| hex::decode(h).ok())
            .ok_or_else(|| format!("no {k}"))
    };
    let path = |k: &str| -> Result<Inclusion, String> {
        let o = &p[k];
        let siblings = o["siblings"].as_array().ok_or(format!("no {k}"))?;
        Ok(Inclusion {
            index: o["index"].as_u64().ok_or(format!("no {k} index"))?,
            count: o["count"].as_u64().ok_or(format!("no {k} count"))?,
            siblings: siblings
                .iter()
                .map(|s| {
                    s.as_str()
                        .and_then(|s| s.strip_prefix("0x"))
                        .and_then(|h| hex::decode(h).ok())
                        .and_then(|b| <[u8; 32]>::try_from(b).ok())
                        .ok_or(format!("a {k} sibling is not a hash"))
                })
                .collect::<Result<_, _>>()?,
        })
    };
    let header =
        cowboy_types::BlockHeader::decode(&bytes("header")?).map_err(|e| format!("header: {e}"))?;
    let block = hex0x(&header.hash().0);
    if Some(block.as_str()) != p["blockHash"].as_str() || p["blockHash"] != r["blockHash"] {
        return Err("the header is not the receipt's block".into());
    }
    let tx = cowboy_types::keccak256(&bytes("transaction")?);
    if hex0x(&tx.0) != hash {
        return Err("the transaction is not the one asked for".into());
    }
    let receipt = bytes("receipt")?;
    let decoded = cowboy_types::Receipt::decode(&receipt).map_err(|e| format!("receipt: {e}"))?;
    if Some(decoded.success) != r["success"].as_bool()
        || Some(decoded.cycles_used) != r["cyclesUsed"].as_u64()
    {
        return Err("the proven receipt is not the one the node returned".into());
    }
    verify_inclusion(&header.tx_root.0, &tx.0, &path("transactionProof")?)
        .map_err(|e| format!("transaction: {e:?}"))?;
    let receipt_hash = cowboy_types::keccak256(&receipt);
    verify_inclusion(
        &header.receipts_root.0,
        &receipt_hash.0,
        &path("receiptProof")?,
    )
    .map_err(|e| format!("receipt: {e:?}"))?;
    Ok(block)
}

/// `cowboy block [latest|N|HASH]`.
pub fn block(ctx: &Ctx, which: &str, full: bool) -> CmdResult {
    let which = which.trim();
    let b = if which.eq_ignore_ascii_case("latest") {
        ctx.client
            .call("cowboy_getBlockByNumber", json!(["latest", full]))
            .map_err(rpc)?
    } else if let Ok(n) = which.parse::<u64>() {
        ctx.client
            .call("cowboy_getBlockByNumber", json!([n, full]))
            .map_err(rpc)?
    } else if which.starts_with("0x") {
        let hash = parse_hash(which)?;
        ctx.client
            .call("cowboy_getBlockByHash", json!([hash, full]))
            .map_err(rpc)?
    } else {
        return Err(format!(
            "{which:?} is not a block: give `latest`, a height or a block hash"
        ));
    };
    if b.is_null() {
        return Err(format!("no block {which} (not finalized yet, or unknown)"));
    }
    crate::out_json(&b);
    Ok(())
}

/// `cowboy source ADDR`: the actor's Python source.
pub fn source(ctx: &Ctx, addr: &str) -> CmdResult {
    let address = parse_address(addr)?;
    let s = ctx
        .client
        .call("cowboy_getActorSource", json!([hex0x(&address.0)]))
        .map_err(rpc)?;
    if s.is_null() {
        return Err(format!("no actor is deployed at {}", address.to_checksum()));
    }
    if ctx.json {
        crate::out_json(&s);
    } else {
        crate::out(
            s["source"]
                .as_str()
                .unwrap_or_default()
                .trim_end_matches('\n'),
        );
    }
    Ok(())
}

/// `cowboy storage ADDR KEY [--block N]`: the key is a string (the SDK stores under the CBOR of
/// the Python key), or `0x…` for raw key bytes. The proof of the latest entry is checked
/// against the block's state root; an older entry has no proof (QMDB proves current state).
pub fn storage(ctx: &Ctx, addr: &str, key: &str, block: Option<u64>) -> CmdResult {
    let address = parse_address(addr)?;
    let raw = match key.strip_prefix("0x") {
        Some(h) => hex::decode(h).map_err(|_| format!("{key:?} is not hex"))?,
        None => cbor::encode(&Value::Text(key.to_string())),
    };
    let r = ctx
        .client
        .call(
            "cowboy_getStorage",
            json!([hex0x(&address.0), hex0x(&raw), block_param(block)]),
        )
        .map_err(rpc)?;
    let decode = |k: &str| {
        r[k].as_str()
            .and_then(|s| s.strip_prefix("0x"))
            .and_then(|h| hex::decode(h).ok())
    };
    let value = decode("value");
    // A latest read must come with a proof; an older one has none (QMDB proves current state).
    match (decode("proof"), block) {
        (Some(proof), _) => {
            let root = decode("stateRoot").ok_or("the node's answer lacks a state root")?;
            let root: [u8; 32] = root.try_into().map_err(|_| "bad state root")?;
            cowboy_proof_verifier::verify_storage(
                &root,
                &address.0,
                &raw,
                value.as_deref(),
                &proof,
            )
            .map_err(|e| format!("the node's proof does not verify: {e:?}"))?;
        }
        (None, None) => return Err("the node's answer lacks a proof".into()),
        (None, Some(_)) => {}
    }
    if ctx.json {
        crate::out_json(&r);
    } else {
        match value {
            None => crate::out("(absent)"),
            Some(v) => match cbor::decode(&v) {
                Ok(v) => crate::out(to_json(&v)),
                Err(_) => crate::out(hex0x(&v)),
            },
        }
        if r["proof"].is_null() {
            crate::note(format!(
                "as of block {} (older entries come without a proof)",
                r["height"]
            ));
        } else {
            crate::note(format!(
                "proof verified against the state root of block {}",
                r["height"]
            ));
        }
    }
    Ok(())
}

/// Blocks per `cowboy_getEvents` query (the node's limit, RPC.md).
const EVENT_WINDOW: u64 = 10_000;

/// `cowboy events ADDR [--topic T] [--from H] [--to H] [--follow]`: events in height order,
/// one line each (with `--json`, one event object per line), fetched in windows of the
/// node's per-query limit.
pub fn events(
    ctx: &Ctx,
    addr: &str,
    topic: Option<&str>,
    from: Option<u64>,
    to: Option<u64>,
    follow: bool,
) -> CmdResult {
    let address = parse_address(addr)?;
    if let (Some(f), Some(t)) = (from, to) {
        if f > t {
            return Err(format!("--from {f} is above --to {t}"));
        }
    }
    let mut next = from;
    loop {
        let tip = ctx
            .client
            .call("cowboy_blockNumber", json!([]))
            .map_err(rpc)?
            .as_u64()
            .unwrap_or(0);
        let end = to.map_or(tip, |t| t.min(tip));
        let mut start = next.unwrap_or_else(|| end.saturating_sub(EVENT_WINDOW - 1));
        while start <= end {
            let stop = end.min(start.saturating_add(EVENT_WINDOW - 1));
            let evs = ctx
                .client
                .call(
                    "cowboy_getEvents",
                    json!([{"address": hex0x(&address.0), "topic": topic, "fromBlock": start, "toBlock": stop}]),
                )
                .map_err(rpc)?;
            for e in evs.as_array().into_iter().flatten() {
                if ctx.json {
                    crate::out(e);
                } else {
                    crate::out(format!(
                        "block {} {} {}",
                        e["blockHeight"],
                        e["topic"].as_str().unwrap_or_default(),
                        e["dataValue"]
                    ));
                }
            }
            start = stop + 1;
        }
        next = Some(start.max(end + 1));
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
        crate::out_json(&ts);
        return Ok(());
    }
    let list = ts.as_array().cloned().unwrap_or_default();
    if list.is_empty() {
        crate::note(format!("{addr} has no pending timers"));
        return Ok(());
    }
    crate::out(TIMER_HEADER);
    for t in &list {
        crate::out(timer_row(t));
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
        crate::out_json(&t);
        return Ok(());
    }
    crate::out(TIMER_HEADER);
    crate::out(timer_row(&t));
    crate::out(format!(
        "owner {}  data {}",
        t["owner"].as_str().unwrap_or_default(),
        t["dataValue"]
    ));
    Ok(())
}

/// What `method` answers for block `height` (default: the latest); above the finalized tip,
/// an error naming that.
fn of_block(ctx: &Ctx, method: &str, height: Option<u64>) -> Result<Json, String> {
    let tag = height.map_or(json!("latest"), |n| json!(n));
    let v = ctx.client.call(method, json!([tag])).map_err(rpc)?;
    if v.is_null() {
        return Err("no such block".into());
    }
    Ok(v)
}

/// `cowboy hook-events [HEIGHT]`: the events a block's system hooks emitted, one line each
/// (`begin` before its timers and transactions, `end` after them).
pub fn hook_events(ctx: &Ctx, height: Option<u64>) -> CmdResult {
    let hooks = of_block(ctx, "cowboy_getHookEvents", height)?;
    if ctx.json {
        crate::out_json(&hooks);
        return Ok(());
    }
    let mut any = false;
    for phase in ["begin", "end"] {
        for e in hooks[phase].as_array().into_iter().flatten() {
            any = true;
            crate::out(format!(
                "{phase} {} {} {}",
                e["emitter"].as_str().unwrap_or_default(),
                e["topic"].as_str().unwrap_or_default(),
                e["dataValue"]
            ));
        }
    }
    if !any {
        crate::note("that block's hooks emitted no events");
    }
    Ok(())
}

/// `cowboy timer-executions [HEIGHT]`: the timers a block's `begin_block` ran, with receipts.
pub fn timer_executions(ctx: &Ctx, height: Option<u64>) -> CmdResult {
    let xs = of_block(ctx, "cowboy_getTimerExecutions", height)?;
    if ctx.json {
        crate::out_json(&xs);
        return Ok(());
    }
    let list = xs.as_array().cloned().unwrap_or_default();
    if list.is_empty() {
        crate::note("no timer ran in that block");
    }
    for x in &list {
        let handler = x["handler"].as_str().unwrap_or_default();
        let outcome = if x["success"].as_bool() == Some(true) {
            format!("ok {}", x["returnValue"])
        } else {
            traceback(ctx, x["owner"].as_str(), handler, &x["error"], None)
        };
        crate::out(format!(
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
        ));
    }
    Ok(())
}

/// `cowboy trace HASH`: the node re-executes a finalized transaction and returns its call tree
/// (`cowboy_traceTransaction`); printed one handler per line, indented by who sent it, with
/// its storage accesses, events and the cost of each source line (quoted from the actor's
/// source on chain) under it.
pub fn trace(ctx: &Ctx, hash: &str) -> CmdResult {
    let hash = parse_hash(hash)?;
    let t = ctx
        .client
        .call("cowboy_traceTransaction", json!([hash]))
        .map_err(rpc)?;
    if ctx.json {
        crate::out_json(&t);
        return Ok(());
    }
    let status = match t["success"].as_bool() {
        Some(true) => "success".to_string(),
        _ => format!(
            "failed: {}: {}",
            t["error"]["class"].as_str().unwrap_or("Error"),
            t["error"]["message"].as_str().unwrap_or_default()
        ),
    };
    crate::out(format!(
        "transaction {hash} (block {}, index {}): {status}; cycles {}, cells {}",
        t["blockHeight"], t["index"], t["cyclesUsed"], t["cellsUsed"]
    ));
    let mut sources = BTreeMap::new();
    let mut source_of = |actor: &str| -> Option<String> {
        sources
            .entry(actor.to_string())
            .or_insert_with(|| {
                ctx.client
                    .call("cowboy_getActorSource", json!([actor]))
                    .ok()
                    .and_then(|s| s["source"].as_str().map(str::to_string))
            })
            .clone()
    };
    for call in t["calls"].as_array().into_iter().flatten() {
        print_frame(call, 1, &mut source_of);
    }
    Ok(())
}

/// A frame's cost by source line, one row per line: cycles, cells and the line's text.
fn print_lines(f: &Json, pad: &str, source: Option<&str>) {
    let lines = f["lines"].as_array().map_or(&[][..], Vec::as_slice);
    if lines.is_empty() {
        return;
    }
    crate::out(format!(
        "{pad}  {:>6} {:>12} {:>8}",
        "line", "cycles", "cells"
    ));
    for l in lines {
        let (number, text) = match l["line"].as_u64() {
            Some(n) => (
                n.to_string(),
                source
                    .and_then(|s| s.lines().nth(n.saturating_sub(1) as usize))
                    .map_or(String::new(), |t| t.trim().to_string()),
            ),
            None => (
                "-".to_string(),
                "(load, arguments, return value)".to_string(),
            ),
        };
        crate::out(format!(
            "{pad}  {number:>6} {:>12} {:>8}  {text}",
            l["cycles"], l["cells"]
        ));
    }
    let other = &f["otherLines"];
    if other.is_object() {
        crate::out(format!(
            "{pad}  {:>6} {:>12} {:>8}  ({} more lines)",
            "…", other["cycles"], other["cells"], other["count"]
        ));
    }
}

/// An address from a trace, checksummed.
fn trace_address(v: &Json) -> String {
    let text = v.as_str().unwrap_or_default();
    parse_address(text).map_or_else(|_| text.to_string(), |a| a.to_checksum())
}

/// A storage key from a trace: the value the SDK encoded it from, else its hex.
fn trace_key(v: &Json) -> String {
    v.as_str()
        .and_then(|s| s.strip_prefix("0x"))
        .and_then(|h| hex::decode(h).ok())
        .and_then(|b| cbor::decode(&b).ok())
        .map_or_else(
            || v.as_str().unwrap_or_default().to_string(),
            |k| to_json(&k).to_string(),
        )
}

/// One frame of a trace and, indented below it, what it did and the messages it sent.
fn print_frame(f: &Json, depth: usize, source_of: &mut dyn FnMut(&str) -> Option<String>) {
    let pad = "  ".repeat(depth);
    let outcome = if f["success"].as_bool() == Some(true) {
        format!("-> {}", f["returnValue"])
    } else {
        let line = f["error"]["line"]
            .as_u64()
            .map_or(String::new(), |l| format!(" (line {l})"));
        format!(
            "!! {}: {}{line}",
            f["error"]["class"].as_str().unwrap_or("Error"),
            f["error"]["message"].as_str().unwrap_or_default()
        )
    };
    let value = match f["value"].as_str() {
        Some("0") | None => String::new(),
        Some(v) => format!(" value {v}"),
    };
    crate::out(format!(
        "{pad}{} {}.{} from {}{value}  [cycles {}, cells {}] {outcome}",
        f["kind"].as_str().unwrap_or("call"),
        trace_address(&f["to"]),
        f["handler"].as_str().unwrap_or_default(),
        trace_address(&f["from"]),
        f["cycles"],
        f["cells"],
    ));
    for s in f["storage"].as_array().into_iter().flatten() {
        let op = s["op"].as_str().unwrap_or_default();
        // A read of an absent key has no size; a delete has none to show.
        let size = match (op, s["size"].as_u64()) {
            ("delete", _) => String::new(),
            (_, Some(n)) => format!(" ({n} B)"),
            (_, None) => " (absent)".to_string(),
        };
        crate::out(format!(
            "{pad}  storage {op} {}{size}",
            trace_key(&s["key"])
        ));
    }
    for e in f["events"].as_array().into_iter().flatten() {
        crate::out(format!(
            "{pad}  event {} {}",
            e["topic"].as_str().unwrap_or_default(),
            e["dataValue"]
        ));
    }
    if f["lines"].as_array().is_some_and(|l| !l.is_empty()) {
        let source = f["to"].as_str().and_then(&mut *source_of);
        print_lines(f, &pad, source.as_deref());
    }
    for c in f["calls"].as_array().into_iter().flatten() {
        print_frame(c, depth + 1, source_of);
    }
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
