//! `cowboy actor test FILE.py`: run an actor without a node. The file is deployed into a fresh
//! in-process chain ([`crate::devchain`]: the real block rule over a real QMDB in a temporary
//! directory), then the steps given on the command line run in order — `--call` (a signed
//! transaction in a block of its own), `--view` (a read-only simulation) and `--mine N` (empty
//! blocks, for timers) — and each one's receipt is printed: return value, events, cycles,
//! cells, fee, and on failure the traceback quoting the line of the local file.
//!
//! Step options attach to the step before them: `--args`, `--from` and `--value` given before
//! the first step are the deploy's (`__init__`'s arguments, the deployer, the value sent to the
//! new actor); after a `--call` or `--view` they are that step's. clap parses the options; the
//! order is recovered from its argument indices ([`plan`]).

use clap::ArgMatches;
use cowboy_types::cbor::{self, Value};
use cowboy_types::json::to_json;
use cowboy_types::tx::Payload;
use cowboy_types::{keccak256, Address, Event, PrivateKey, Receipt, TimerExecution};
use serde_json::{json, Value as Json};

use crate::chain::{format_cby, frame, hex0x, parse_address, parse_amount, CmdResult};
use crate::devchain::{DevChain, CHAIN_ID, DEV_ACCOUNTS};

/// What a step does.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Kind {
    /// Deploy the file (always the first step).
    Deploy,
    /// A handler call in a transaction: the expression as given.
    Call(String),
    /// A read-only handler call.
    View(String),
    /// Mine this many empty blocks.
    Mine(u64),
}

/// One step with the options attached to it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Step {
    kind: Kind,
    args: Option<String>,
    from: Option<String>,
    value: Option<String>,
}

impl Step {
    fn new(kind: Kind) -> Step {
        Step {
            kind,
            args: None,
            from: None,
            value: None,
        }
    }

    fn name(&self) -> String {
        match &self.kind {
            Kind::Deploy => "the deploy".into(),
            Kind::Call(c) => format!("--call {c}"),
            Kind::View(c) => format!("--view {c}"),
            Kind::Mine(n) => format!("--mine {n}"),
        }
    }
}

/// The options of `cowboy actor test` that are not steps.
pub struct Options {
    /// The actor's source file.
    pub file: std::path::PathBuf,
    /// Deploy salt (0x + 64 hex digits, or text that is hashed).
    pub salt: Option<String>,
    /// Run the steps after a failed one.
    pub keep_going: bool,
    /// Print one JSON document.
    pub json: bool,
    /// The default sender (`--dev-account`, else 0).
    pub dev_account: u32,
}

/// The steps in command-line order, with `--args`/`--from`/`--value` attached to the step
/// before them. `m` is the `actor test` subcommand's matches.
fn plan(m: &ArgMatches) -> Result<Vec<Step>, String> {
    let mut items: Vec<(usize, &str, String)> = Vec::new();
    for id in ["call", "view", "mine", "args", "from", "value"] {
        let (Some(idx), Some(vals)) = (m.indices_of(id), m.get_raw(id)) else {
            continue;
        };
        for (i, v) in idx.zip(vals) {
            items.push((i, id, v.to_string_lossy().into_owned()));
        }
    }
    items.sort_by_key(|(i, _, _)| *i);
    let mut steps = vec![Step::new(Kind::Deploy)];
    for (_, id, v) in items {
        let new = match id {
            "call" => Some(Kind::Call(v.clone())),
            "view" => Some(Kind::View(v.clone())),
            "mine" => {
                Some(Kind::Mine(v.parse().map_err(|_| {
                    format!("--mine {v:?}: give a number of blocks")
                })?))
            }
            _ => None,
        };
        if let Some(kind) = new {
            steps.push(Step::new(kind));
            continue;
        }
        let step = steps.last_mut().ok_or("no step")?;
        if matches!(step.kind, Kind::Mine(_)) {
            return Err(format!(
                "--{id} follows --mine, which takes none: put it after the --call or --view it \
                 is for"
            ));
        }
        let slot = match id {
            "args" => &mut step.args,
            "from" => &mut step.from,
            _ => &mut step.value,
        };
        if slot.is_some() {
            return Err(format!(
                "--{id} given twice for {}: each --args, --from and --value belongs to the \
                 step before it (the deploy when no --call or --view precedes it)",
                step.name()
            ));
        }
        *slot = Some(v);
    }
    Ok(steps)
}

/// A sender given to `--from`: a dev account number (`1`, `dev1`) or a dev account's address.
fn dev_account(s: &str) -> Result<u32, String> {
    let t = s.trim();
    let n = t.strip_prefix("dev").unwrap_or(t);
    if let Ok(i) = n.parse::<u32>() {
        if i < DEV_ACCOUNTS {
            return Ok(i);
        }
    } else if let Ok(a) = parse_address(t) {
        if let Some(i) = (0..DEV_ACCOUNTS).find(|i| cowboy_types::dev_key(*i).address() == a) {
            return Ok(i);
        }
    }
    Err(format!(
        "--from {s:?}: give a dev account, 0 … {} (or dev0 …), or its address: only they hold \
         keys and funds in the in-process chain",
        DEV_ACCOUNTS - 1
    ))
}

/// The bare names of call expressions: `dev0` … `dev9` and `actor`, as checksummed addresses.
fn resolve(name: &str, actor: Option<Address>) -> Option<Value> {
    let address = if name == "actor" {
        actor?
    } else {
        let i: u32 = name.strip_prefix("dev")?.parse().ok()?;
        if i >= DEV_ACCOUNTS || name != format!("dev{i}") {
            return None;
        }
        cowboy_types::dev_key(i).address()
    };
    Some(Value::Text(address.to_checksum()))
}

/// A step's handler and arguments: from its expression, or its name and `--args`.
fn handler_args(expr: &str, args: Option<&str>, actor: Address) -> Result<(String, Value), String> {
    let names = |n: &str| resolve(n, Some(actor));
    let (handler, inline) =
        crate::args::parse_call(expr, &names).map_err(|e| format!("{expr:?}: {e}"))?;
    match (inline, args) {
        (Some(_), Some(_)) => Err(format!(
            "{expr:?} has its arguments in parentheses and in --args: give them once"
        )),
        (Some(a), None) => Ok((handler, a)),
        (None, a) => Ok((handler, crate::chain::parse_args(a)?)),
    }
}

/// What one step printed and whether it succeeded.
struct Outcome {
    json: Json,
    text: Vec<String>,
    success: bool,
}

fn event_json(e: &Event) -> Json {
    json!({
        "emitter": e.emitter.to_checksum(),
        "topic": e.topic,
        "data": hex0x(&e.data),
        "dataValue": cbor::decode(&e.data).map(|v| to_json(&v)).unwrap_or(Json::Null),
    })
}

fn return_value(r: &Receipt) -> Json {
    if r.return_data.is_empty() {
        return Json::Null;
    }
    cbor::decode(&r.return_data)
        .map(|v| to_json(&v))
        .unwrap_or(Json::Null)
}

/// The traceback of a failed receipt, quoting the line from the local file. A failure with no
/// line (arguments that do not fit the handler, out of cycles before it ran) is just its
/// `Class: message`, as no frame of the actor's code was running; a file that does not compile
/// is reported as CPython reports a SyntaxError, with the line and no traceback header.
fn traceback(r: &Receipt, file: &str, source: &str) -> Option<String> {
    let e = r.error.as_ref()?;
    let mut out = String::new();
    if e.line > 0 {
        if matches!(e.class.as_str(), "SyntaxError" | "CompileError") {
            let at = usize::try_from(e.line - 1).unwrap_or(usize::MAX);
            let text = source.lines().nth(at).unwrap_or_default();
            out.push_str(&format!(
                "  File \"{file}\", line {}\n    {}\n",
                e.line,
                text.trim()
            ));
        } else {
            let function = enclosing_function(source, e.line).unwrap_or("<module>");
            out.push_str("Traceback (most recent call last):\n");
            out.push_str(&frame(file, e.line, function, Some(source)));
        }
    }
    if e.message.is_empty() {
        out.push_str(&e.class);
    } else {
        out.push_str(&format!("{}: {}", e.class, e.message));
    }
    Some(out)
}

/// The name of the function whose body holds line `line` of `source`: the nearest `def` above
/// it that is indented less (`None`: module level). The receipt names the line, not the
/// function, and the line may be in a helper the handler called.
fn enclosing_function(source: &str, line: u64) -> Option<&str> {
    let lines: Vec<&str> = source.lines().collect();
    let at = usize::try_from(line).ok()?.checked_sub(1)?;
    let indent = |l: &str| l.len() - l.trim_start().len();
    let mut within = indent(lines.get(at)?);
    for l in lines[..at].iter().rev() {
        let t = l.trim_start();
        if t.is_empty() || t.starts_with('#') || indent(l) >= within {
            continue;
        }
        let def = t.strip_prefix("async ").unwrap_or(t).strip_prefix("def ");
        if let Some(rest) = def {
            let end = rest.find(|c: char| !(c.is_alphanumeric() || c == '_'))?;
            return Some(&rest[..end]);
        }
        // A class or a compound statement: keep looking further out.
        within = indent(l);
    }
    None
}

/// The receipt's fields as the RPC names them (`crates/node/RPC.md`), plus the traceback.
fn receipt_json(r: &Receipt, tb: Option<&str>) -> Json {
    json!({
        "success": r.success,
        "cyclesUsed": r.cycles_used,
        "cellsUsed": r.cells_used,
        "feePaid": r.fee_paid.to_string(),
        "returnData": hex0x(&r.return_data),
        "returnValue": return_value(r),
        "events": r.events.iter().map(event_json).collect::<Vec<_>>(),
        "error": r.error.as_ref().map(|e| json!({
            "class": e.class,
            "message": e.message,
            "line": if e.line == 0 { Json::Null } else { json!(e.line) },
        })),
        "traceback": tb,
    })
}

/// The indented detail lines of a receipt: return value, events, traceback, usage.
fn receipt_text(r: &Receipt, tb: Option<&str>, fee: bool) -> Vec<String> {
    let mut lines = Vec::new();
    // `None` is not shown, as the Python REPL does not echo it (`--json` has it).
    let value = return_value(r);
    if r.success && !value.is_null() {
        lines.push(format!("  → {value}"));
    }
    for e in &r.events {
        let data = cbor::decode(&e.data)
            .map(|v| to_json(&v))
            .unwrap_or(Json::Null);
        lines.push(format!("  event {} {data}", e.topic));
    }
    if let Some(tb) = tb {
        lines.extend(tb.lines().map(|l| format!("  {l}")));
    }
    let mut usage = format!("  cycles {}  cells {}", r.cycles_used, r.cells_used);
    if fee {
        usage.push_str(&format!("  fee {}", format_cby(r.fee_paid)));
    }
    lines.push(usage);
    lines
}

fn timer_outcome(height: u64, t: &TimerExecution, file: &str, source: &str) -> Outcome {
    let tb = traceback(&t.receipt, file, source);
    let mut text = vec![format!(
        "timer {} {}.{} (due {}) in block {height}{}",
        t.timer_id,
        t.owner.to_checksum(),
        t.handler,
        t.due,
        if t.receipt.success { "" } else { ": failed" }
    )];
    text.extend(receipt_text(&t.receipt, tb.as_deref(), true));
    let mut json = receipt_json(&t.receipt, tb.as_deref());
    json["kind"] = json!("timer");
    json["timerId"] = json!(t.timer_id);
    json["owner"] = json!(t.owner.to_checksum());
    json["handler"] = json!(t.handler);
    json["due"] = json!(t.due);
    json["blockHeight"] = json!(height);
    Outcome {
        json,
        text,
        success: t.receipt.success,
    }
}

/// The deploy salt: the one given (0x + 64 hex digits, or text, hashed), else a fixed one, so
/// every run deploys to the same address.
fn salt(s: Option<&str>) -> cowboy_types::Hash32 {
    match s {
        Some(s) => match s
            .strip_prefix("0x")
            .and_then(cowboy_types::Hash32::from_hex)
        {
            Some(h) => h,
            None => keccak256(s.as_bytes()),
        },
        None => keccak256(b"cowboy actor test"),
    }
}

/// Everything a run needs, checked before the chain starts.
struct Session {
    opts: Options,
    path: String,
    source: String,
    steps: Vec<Step>,
}

/// `cowboy actor test FILE`: `m` is the subcommand's matches (for the order of the steps).
pub fn test(opts: Options, m: &ArgMatches) -> CmdResult {
    if opts.dev_account >= DEV_ACCOUNTS {
        return Err(format!(
            "--dev-account {}: the in-process chain funds dev accounts 0 … {}",
            opts.dev_account,
            DEV_ACCOUNTS - 1
        ));
    }
    let source = std::fs::read_to_string(&opts.file)
        .map_err(|e| format!("cannot read {}: {e}", opts.file.display()))?;
    let path = opts.file.display().to_string();
    let steps = plan(m)?;
    // Check every sender and amount before anything runs: a typo fails fast.
    for s in &steps {
        if let Some(f) = &s.from {
            dev_account(f)?;
        }
        if let Some(v) = &s.value {
            parse_amount(v).map_err(|e| format!("--value of {}: {e}", s.name()))?;
        }
    }
    let session = Session {
        opts,
        path,
        source,
        steps,
    };
    let dir = tempfile::Builder::new()
        .prefix("cowboy-actor-test-")
        .tempdir()
        .map_err(|e| format!("cannot make a temporary directory for the chain's state: {e}"))?;
    let cfg = commonware_runtime::tokio::Config::new()
        .with_storage_directory(dir.path())
        .with_worker_threads(1)
        .with_catch_panics(false);
    use commonware_runtime::Runner as _;
    commonware_runtime::tokio::Runner::new(cfg).start(|ctx| session.run(ctx))
}

impl Session {
    fn key(&self, step: &Step) -> Result<PrivateKey, String> {
        let i = match &step.from {
            Some(f) => dev_account(f)?,
            None => self.opts.dev_account,
        };
        Ok(cowboy_types::dev_key(i))
    }

    fn value(step: &Step) -> Result<u128, String> {
        step.value
            .as_deref()
            .map(parse_amount)
            .transpose()
            .map(Option::unwrap_or_default)
    }

    fn who(key: &PrivateKey) -> String {
        let a = key.address();
        match (0..DEV_ACCOUNTS).find(|i| cowboy_types::dev_key(*i).address() == a) {
            Some(i) => format!("dev{i}"),
            None => a.to_checksum(),
        }
    }

    async fn run<E: cowboy_state::Context>(self, ctx: E) -> CmdResult {
        let mut chain = DevChain::genesis(ctx).await?;
        let mut outcomes: Vec<Outcome> = Vec::new();
        let mut failed = 0usize;
        let mut actor: Option<Address> = None;
        let mut result = Ok(());
        for (n, step) in self.steps.iter().enumerate() {
            let outs = match self.step(&mut chain, step, &mut actor).await {
                Ok(o) => o,
                Err(e) => {
                    result = Err(format!("{}: {e}", step.name()));
                    break;
                }
            };
            let ok = outs.iter().all(|o| o.success);
            for mut o in outs {
                o.json["step"] = json!(n);
                if !self.opts.json {
                    for l in &o.text {
                        crate::out(l);
                    }
                }
                outcomes.push(o);
            }
            if !ok {
                failed += 1;
                // Nothing can be called on an actor that was not deployed.
                if !self.opts.keep_going || actor.is_none() {
                    break;
                }
            }
        }
        if self.opts.json {
            let accounts: Vec<Json> = (0..DEV_ACCOUNTS)
                .map(|i| json!({"name": format!("dev{i}"), "address": cowboy_types::dev_key(i).address().to_checksum()}))
                .collect();
            crate::out_json(&json!({
                "chainId": CHAIN_ID,
                "file": self.path,
                "actor": actor.map(|a| a.to_checksum()),
                "accounts": accounts,
                "height": chain.height(),
                "steps": outcomes.into_iter().map(|o| o.json).collect::<Vec<_>>(),
                "error": result.as_ref().err(),
            }));
        }
        result?;
        if failed > 0 {
            return Err(format!(
                "{failed} step{} failed",
                if failed == 1 { "" } else { "s" }
            ));
        }
        Ok(())
    }

    /// Run one step; `Err` only when it could not run at all (bad arguments, a sender who
    /// cannot pay): a handler that raises is an `Outcome` with `success: false`.
    async fn step<E: cowboy_state::Context>(
        &self,
        chain: &mut DevChain<E>,
        step: &Step,
        actor: &mut Option<Address>,
    ) -> Result<Vec<Outcome>, String> {
        let (file, src) = (self.path.as_str(), self.source.as_str());
        match &step.kind {
            Kind::Deploy => {
                let key = self.key(step)?;
                let payload = Payload::Deploy {
                    source: self.source.clone(),
                    salt: salt(self.opts.salt.as_deref()),
                    init_args: crate::chain::parse_args(step.args.as_deref())?,
                };
                let value = Self::value(step)?;
                let mined = chain.send(&key, None, value, &payload).await?;
                let r = &mined.receipt;
                let address = match cbor::decode(&r.return_data) {
                    Ok(Value::Bytes(b)) if r.success => <[u8; 20]>::try_from(b).ok().map(Address),
                    _ => None,
                };
                *actor = address;
                let tb = traceback(r, file, src);
                let mut json = receipt_json(r, tb.as_deref());
                json["kind"] = json!("deploy");
                json["from"] = json!(key.address().to_checksum());
                json["value"] = json!(value.to_string());
                json["contractAddress"] = json!(address.map(|a| a.to_checksum()));
                json["blockHeight"] = json!(mined.height);
                json["transactionHash"] = json!(hex0x(&mined.hash.0));
                let head = match address {
                    Some(a) => format!(
                        "deploy {file} from {} → {} (block {})",
                        Self::who(&key),
                        a.to_checksum(),
                        mined.height
                    ),
                    None => format!(
                        "deploy {file} from {} (block {}): failed",
                        Self::who(&key),
                        mined.height
                    ),
                };
                let mut text = vec![head];
                // A deploy returns the address, already shown above.
                let shown = Receipt {
                    return_data: Vec::new(),
                    ..r.clone()
                };
                text.extend(receipt_text(&shown, tb.as_deref(), true));
                Ok(vec![Outcome {
                    json,
                    text,
                    success: r.success,
                }])
            }
            Kind::Call(expr) | Kind::View(expr) => {
                let view = matches!(step.kind, Kind::View(_));
                let to = actor.ok_or("no actor was deployed")?;
                let key = self.key(step)?;
                let (handler, args) = handler_args(expr, step.args.as_deref(), to)?;
                let payload = Payload::Call {
                    handler: handler.clone(),
                    args,
                };
                let value = Self::value(step)?;
                let (receipt, height, hash, timers) = if view {
                    let r = chain.simulate(key.address(), Some(to), value, &payload)?;
                    (r, None, None, Vec::new())
                } else {
                    let m = chain.send(&key, Some(to), value, &payload).await?;
                    (m.receipt, Some(m.height), Some(m.hash), m.timers)
                };
                let mut outs: Vec<Outcome> = timers
                    .iter()
                    .map(|t| timer_outcome(height.unwrap_or(0), t, file, src))
                    .collect();
                let tb = traceback(&receipt, file, src);
                let mut json = receipt_json(&receipt, tb.as_deref());
                json["kind"] = json!(if view { "view" } else { "call" });
                json["call"] = json!(expr);
                json["handler"] = json!(handler);
                json["from"] = json!(key.address().to_checksum());
                json["to"] = json!(to.to_checksum());
                json["value"] = json!(value.to_string());
                json["blockHeight"] = json!(height);
                json["transactionHash"] = json!(hash.map(|h| hex0x(&h.0)));
                let mut head = format!(
                    "{} {expr} from {}",
                    if view { "view" } else { "call" },
                    Self::who(&key)
                );
                if value > 0 {
                    head.push_str(&format!(" with {}", format_cby(value)));
                }
                if let Some(h) = height {
                    head.push_str(&format!(" (block {h})"));
                }
                if !receipt.success {
                    head.push_str(": failed");
                }
                let mut text = vec![head];
                text.extend(receipt_text(&receipt, tb.as_deref(), !view));
                outs.push(Outcome {
                    json,
                    text,
                    success: receipt.success,
                });
                Ok(outs)
            }
            Kind::Mine(n) => {
                let ran = chain.mine(*n).await?;
                let mut outs = vec![Outcome {
                    json: json!({"kind": "mine", "blocks": n, "blockHeight": chain.height()}),
                    text: vec![format!(
                        "mined {n} block{} (now at block {})",
                        if *n == 1 { "" } else { "s" },
                        chain.height()
                    )],
                    success: true,
                }];
                outs.extend(ran.iter().map(|(h, t)| timer_outcome(*h, t, file, src)));
                Ok(outs)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bare_names_are_dev_accounts_and_the_actor() {
        let a = Address([7; 20]);
        assert_eq!(
            resolve("actor", Some(a)),
            Some(Value::Text(a.to_checksum()))
        );
        assert_eq!(resolve("actor", None), None);
        assert_eq!(
            resolve("dev3", None),
            Some(Value::Text(
                cowboy_types::dev_key(3).address().to_checksum()
            ))
        );
        for bad in ["dev10", "dev03", "dev", "devx", "to"] {
            assert_eq!(resolve(bad, None), None, "{bad}");
        }
    }

    #[test]
    fn the_frame_names_the_function_around_the_line() {
        let src = "def helper(x):\n    if x:\n        return 1 // x\n\n\nclass A:\n    \
                   def go(self):\n        # note\n        for i in []:\n            pass\n\n        \
                   return helper(0)\nprint(1)\n";
        assert_eq!(enclosing_function(src, 3), Some("helper"));
        assert_eq!(enclosing_function(src, 2), Some("helper"));
        assert_eq!(enclosing_function(src, 10), Some("go"));
        assert_eq!(enclosing_function(src, 12), Some("go"));
        assert_eq!(enclosing_function(src, 13), None);
        assert_eq!(enclosing_function(src, 99), None);
        assert_eq!(enclosing_function(src, 0), None);
    }

    #[test]
    fn from_takes_numbers_names_and_addresses() {
        let a = cowboy_types::dev_key(4).address();
        assert_eq!(dev_account("4"), Ok(4));
        assert_eq!(dev_account("dev4"), Ok(4));
        assert_eq!(dev_account(&a.to_checksum()), Ok(4));
        assert_eq!(dev_account(&a.to_checksum().to_lowercase()), Ok(4));
        assert!(dev_account("10").is_err());
        assert!(dev_account(&Address([1; 20]).to_checksum()).is_err());
    }

    #[test]
    fn call_expressions_and_args() {
        let actor = Address([9; 20]);
        let dev1 = Value::Text(cowboy_types::dev_key(1).address().to_checksum());
        let (h, a) = handler_args("transfer(dev1, 100000000000000000000)", None, actor).unwrap();
        assert_eq!(h, "transfer");
        assert_eq!(
            a,
            Value::Array(vec![
                dev1.clone(),
                Value::BigUint(vec![0x05, 0x6b, 0xc7, 0x5e, 0x2d, 0x63, 0x10, 0x00, 0x00])
            ])
        );
        let (_, a) = handler_args("f(to=dev1, ok=True, n=None, s='it\\'s',)", None, actor).unwrap();
        assert_eq!(
            a,
            Value::Map(vec![
                (Value::Text("to".into()), dev1),
                (Value::Text("ok".into()), Value::Bool(true)),
                (Value::Text("n".into()), Value::Null),
                (Value::Text("s".into()), Value::Text("it's".into())),
            ])
        );
        let (h, a) = handler_args("get", Some("[1]"), actor).unwrap();
        assert_eq!((h.as_str(), a), ("get", Value::Array(vec![Value::Uint(1)])));
        let (_, a) = handler_args("get()", None, actor).unwrap();
        assert_eq!(a, Value::Array(vec![]));
        for bad in [
            "f(1, x=2)",
            "f(x=1, 2)",
            "f(x=1, x=2)",
            "f(to)",
            "f(1",
            "f(1) x",
            "1f()",
            "f(==1)",
        ] {
            assert!(handler_args(bad, None, actor).is_err(), "{bad}");
        }
        assert!(handler_args("f(1)", Some("[1]"), actor).is_err());
    }
}
