//! Running a transaction's payload: transfers, actor deployment, handler calls and the
//! messages they send (whitepaper "Transactions and Message Passing", §1.2, §3, §17.3, §17.4).
//!
//! * **Deploy** stores the canonical source under its keccak256 (§1.2), creates the actor at
//!   `last20(keccak256(creator ‖ salt ‖ code_hash))`, and runs its `__init__` with the init
//!   arguments. A syntax error, an unsupported construct or a determinism violation fails the
//!   deploy with the PVM's error and line.
//! * **Call** runs the named public handler with the CBOR arguments (array = positional, map =
//!   keyword). Its return value (canonical CBOR, ≤ `max_return_data_bytes`, billed as cells)
//!   goes in the receipt.
//! * **Messages** (`send_message`) are queued and delivered after the handler that sent them
//!   returns, breadth-first in send order, within the same transaction and sharing its meters.
//!   A chain of sends may be at most `reentrancy_depth` deep; a transaction may enqueue at most
//!   `fanout_per_tx` messages; the bytes queued for one actor may not exceed
//!   `mailbox_capacity_bytes`. Message value is taken from the sender when the message is sent
//!   and given to the target when it is delivered.
//! * **Atomicity.** The transaction is one unit: if any handler it runs — the first or any
//!   message — fails, everything it did is rolled back (storage, balances, messages, events)
//!   and the receipt carries the failing handler's exception. This is the model of CosmWasm's
//!   default sub-messages; it keeps "a handler is atomic" true across messages, at the price
//!   that a caller cannot swallow a callee's failure. Fees are still paid.
//!
//! Cycle budgets: each invocation may use at most what is left of the transaction's cycle limit
//! and of the actor's `per_actor_per_block_cycles` allowance for this block, whichever is less.

use std::collections::{BTreeMap, VecDeque};

use cowboy_pvm::actor::{self as pvm_actor, Entry, Invocation, InvokeError};
use cowboy_pvm::host::{BlockInfo, CallContext, Host, HostCosts, HostError, TimerRequest};
use cowboy_pvm::Limits;
use cowboy_state::Context;
use cowboy_types::cbor::{self, Value};
use cowboy_types::genesis::GenesisParams;
use cowboy_types::tx::Payload;
use cowboy_types::{actor_address, keccak256, message_id, Address, Event, Hash32};

use crate::apply::{BlockUsage, CheckedTx};
use crate::header::BlockEnv;
use crate::intrinsic::{Exhausted, TxMeter};
use crate::state::{BlockState, SResult, StateFailure};
use crate::system::{self, mailbox};
use crate::trace::{Frame, FrameKind, StorageOp, Trace};

/// Why a transaction's execution failed (goes into the receipt).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// Python exception class, or the protocol error's name.
    pub class: String,
    /// Message.
    pub message: String,
    /// Line in the actor source, when the failure has one.
    pub line: Option<u32>,
}

impl Failure {
    pub(crate) fn new(class: &str, message: impl Into<String>) -> Self {
        Failure {
            class: class.to_string(),
            message: message.into(),
            line: None,
        }
    }

    pub(crate) fn out_of(e: Exhausted) -> Self {
        match e {
            Exhausted::Cycles => {
                Failure::new("OutOfCycles", "the transaction's cycle limit is exhausted")
            }
            Exhausted::Cells => {
                Failure::new("OutOfCells", "the transaction's cell limit is exhausted")
            }
        }
    }
}

/// A successful execution's output.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Done {
    /// Canonical CBOR of the top-level return value (a deploy returns the actor's address as
    /// 20 bytes); empty for a transfer.
    pub return_data: Vec<u8>,
    /// Events, in emission order.
    pub events: Vec<Event>,
    /// Wei system actors burned during the execution (a job's fee burn), for the block's
    /// supply tally; rolled back with the execution when it fails.
    pub burned: u128,
}

/// A queued actor-to-actor message.
#[derive(Debug, Clone)]
struct Message {
    id: Hash32,
    from: Address,
    to: Address,
    handler: String,
    args: Value,
    value: u128,
    depth: u64,
    bytes: u64,
    /// The trace frame that sent it, when the run is traced.
    parent: Option<usize>,
}

/// The execution of one transaction's payload (see the module docs).
pub struct TxRun<'r> {
    params: &'r GenesisParams,
    env: &'r BlockEnv,
    usage: &'r mut BlockUsage,
    events: Vec<Event>,
    queue: VecDeque<Message>,
    sent: u64,
    mailbox_bytes: BTreeMap<Address, u64>,
    burned: u128,
    /// The call tree being recorded, when the run is traced (`crate::trace`).
    trace: Option<Trace>,
}

impl<'r> TxRun<'r> {
    /// Prepare to run payloads in block `env`; `usage` holds the block's per-actor tallies
    /// (cycles, timers set).
    pub fn new(params: &'r GenesisParams, env: &'r BlockEnv, usage: &'r mut BlockUsage) -> Self {
        Self {
            params,
            env,
            usage,
            events: Vec::new(),
            queue: VecDeque::new(),
            sent: 0,
            mailbox_bytes: BTreeMap::new(),
            burned: 0,
            trace: None,
        }
    }

    /// Record this run's call tree ([`Trace`]); [`Self::take_trace`] hands it back.
    pub fn traced(mut self) -> Self {
        self.trace = Some(Trace::default());
        self
    }

    /// The recorded call tree, if the run is traced.
    pub fn take_trace(&mut self) -> Option<Trace> {
        self.trace.take()
    }

    /// Run `tx`'s payload. The caller holds a checkpoint and rolls it back on `Ok(Err(_))`.
    pub fn execute<E: Context>(
        &mut self,
        state: &mut BlockState<'_, E>,
        meter: &mut TxMeter,
        tx: &CheckedTx,
    ) -> SResult<Result<Done, Failure>> {
        let sender = tx.sender;
        let value = tx.tx.value;
        let result = match &tx.payload {
            Payload::Transfer => {
                let Some(to) = tx.tx.to else {
                    return Ok(Err(Failure::new(
                        "InvalidTransaction",
                        "a transfer needs a recipient",
                    )));
                };
                move_value(state, &sender, &to, value)?;
                Ok(Vec::new())
            }
            Payload::Deploy {
                source,
                salt,
                init_args,
            } => self.deploy(state, meter, tx, source, salt, init_args.clone())?,
            Payload::Call { handler, args } => {
                let Some(to) = tx.tx.to else {
                    return Ok(Err(Failure::new(
                        "InvalidTransaction",
                        "a call needs a target",
                    )));
                };
                if let Err(f) = callable(state, &to)? {
                    return Ok(Err(f));
                }
                move_value(state, &sender, &to, value)?;
                let entry = Entry::Call {
                    handler: handler.clone(),
                    args: args.clone(),
                };
                self.invoke(state, meter, to, sender, value, entry, 0, None)?
            }
        };
        self.finish(state, meter, result)
    }

    /// Run `handler(*args)` of the actor at `at` as a message from `sender` carrying no value,
    /// with the messages it sends: a timer's delivery (`crate::timers::deliver`). The caller
    /// holds a checkpoint and rolls it back on `Ok(Err(_))`.
    pub fn call<E: Context>(
        &mut self,
        state: &mut BlockState<'_, E>,
        meter: &mut TxMeter,
        at: Address,
        sender: Address,
        entry: Entry,
    ) -> SResult<Result<Done, Failure>> {
        let result = self.query(state, meter, at, sender, entry)?;
        self.finish(state, meter, result)
    }

    /// Run `handler(*args)` of the actor at `at` and return its value, leaving the messages it
    /// sends queued and undelivered: a Gas Bidding Agent's read-only query (the caller rolls
    /// the state back afterwards), and the first step of [`TxRun::call`].
    pub fn query<E: Context>(
        &mut self,
        state: &mut BlockState<'_, E>,
        meter: &mut TxMeter,
        at: Address,
        sender: Address,
        entry: Entry,
    ) -> SResult<Result<Vec<u8>, Failure>> {
        if let Err(f) = callable(state, &at)? {
            return Ok(Err(f));
        }
        self.invoke(state, meter, at, sender, 0, entry, 0, None)
    }

    /// After the first handler: deliver its messages, collect the events.
    fn finish<E: Context>(
        &mut self,
        state: &mut BlockState<'_, E>,
        meter: &mut TxMeter,
        result: Result<Vec<u8>, Failure>,
    ) -> SResult<Result<Done, Failure>> {
        let return_data = match result {
            Ok(r) => r,
            Err(f) => return Ok(Err(f)),
        };
        if let Err(f) = self.deliver_messages(state, meter)? {
            return Ok(Err(f));
        }
        Ok(Ok(Done {
            return_data,
            events: std::mem::take(&mut self.events),
            burned: std::mem::take(&mut self.burned),
        }))
    }

    fn deploy<E: Context>(
        &mut self,
        state: &mut BlockState<'_, E>,
        meter: &mut TxMeter,
        tx: &CheckedTx,
        source: &str,
        salt: &Hash32,
        init_args: Value,
    ) -> SResult<Result<Vec<u8>, Failure>> {
        let sender = tx.sender;
        let code_hash = cowboy_types::code_hash(source);
        let address = actor_address(&sender, salt, &code_hash);
        let mut acct = state.account(&address)?;
        if acct.code_hash.is_some() {
            return Ok(Err(Failure::new(
                "ActorExists",
                format!(
                    "an actor already exists at {} (use another salt)",
                    address.to_checksum()
                ),
            )));
        }
        let stored = state.put_code(source.as_bytes())?;
        if stored != code_hash.0 {
            return Err(StateFailure::Invariant(
                "state code hash differs from the protocol code hash".into(),
            ));
        }
        acct.code_hash = Some(stored);
        state.set_account(&address, &acct)?;
        move_value(state, &sender, &address, tx.tx.value)?;
        let entry = Entry::Deploy { args: init_args };
        match self.invoke(state, meter, address, sender, tx.tx.value, entry, 0, None)? {
            Ok(_) => Ok(Ok(cbor::encode(&Value::Bytes(address.0.to_vec())))),
            Err(f) => Ok(Err(f)),
        }
    }

    /// Deliver queued messages until none are left or one fails.
    fn deliver_messages<E: Context>(
        &mut self,
        state: &mut BlockState<'_, E>,
        meter: &mut TxMeter,
    ) -> SResult<Result<(), Failure>> {
        while let Some(m) = self.queue.pop_front() {
            if let Some(left) = self.mailbox_bytes.get_mut(&m.to) {
                *left = left.saturating_sub(m.bytes);
            }
            let Some(written) = mailbox::record_delivery(state, self.env.height, &m.to, &m.id)?
            else {
                // Already delivered within the dedup window: exactly-once, so skip it.
                continue;
            };
            let cells = self
                .params
                .state_write_cells_per_byte
                .saturating_mul(written);
            if let Err(e) = meter.charge_cells(cells) {
                return Ok(Err(Failure::out_of(e)));
            }
            state.credit(&m.to, m.value)?;
            let entry = Entry::Call {
                handler: m.handler.clone(),
                args: m.args,
            };
            if let Err(mut f) = self.invoke(
                state, meter, m.to, m.from, m.value, entry, m.depth, m.parent,
            )? {
                f.message = format!(
                    "{} (in message {} → {}.{})",
                    f.message,
                    m.from.to_checksum(),
                    m.to.to_checksum(),
                    m.handler
                );
                return Ok(Err(f));
            }
        }
        Ok(Ok(()))
    }

    /// Run one handler of the actor at `at` (a message's, sent by trace frame `parent`),
    /// recording it as a frame when the run is traced.
    #[allow(clippy::too_many_arguments)]
    fn invoke<E: Context>(
        &mut self,
        state: &mut BlockState<'_, E>,
        meter: &mut TxMeter,
        at: Address,
        sender: Address,
        value: u128,
        entry: Entry,
        depth: u64,
        parent: Option<usize>,
    ) -> SResult<Result<Vec<u8>, Failure>> {
        let Some(trace) = self.trace.as_mut() else {
            return self.invoke_handler(state, meter, at, sender, value, entry, depth);
        };
        let (kind, handler) = match &entry {
            Entry::Deploy { .. } => (FrameKind::Deploy, "__init__".to_string()),
            Entry::Call { handler, .. } if parent.is_some() => {
                (FrameKind::Message, handler.clone())
            }
            Entry::Call { handler, .. } => (FrameKind::Call, handler.clone()),
        };
        trace.enter(Frame {
            parent,
            kind,
            from: sender,
            to: at,
            handler,
            value,
            depth,
            cycles: 0,
            cells: 0,
            events: Vec::new(),
            storage: Vec::new(),
            lines: Vec::new(),
            other_lines: Default::default(),
            outcome: None,
        });
        let (cycles, cells, events) = (meter.cycles(), meter.cells(), self.events.len());
        let result = self.invoke_handler(state, meter, at, sender, value, entry, depth)?;
        let emitted = self.events.get(events..).unwrap_or_default().to_vec();
        if let Some(trace) = self.trace.as_mut() {
            trace.exit(
                meter.cycles() - cycles,
                meter.cells() - cells,
                emitted,
                result.clone(),
            );
        }
        Ok(result)
    }

    /// Run one handler of the actor at `at`.
    #[allow(clippy::too_many_arguments)]
    fn invoke_handler<E: Context>(
        &mut self,
        state: &mut BlockState<'_, E>,
        meter: &mut TxMeter,
        at: Address,
        sender: Address,
        value: u128,
        entry: Entry,
        depth: u64,
    ) -> SResult<Result<Vec<u8>, Failure>> {
        if at.is_system() {
            return self.invoke_system(state, meter, at, sender, value, entry);
        }
        let acct = state.account(&at)?;
        let Some(hash) = acct.code_hash else {
            return Ok(Err(Failure::new(
                "NoSuchActor",
                format!("no actor is deployed at {}", at.to_checksum()),
            )));
        };
        let Some(code) = state.code(&hash)? else {
            return Err(StateFailure::Invariant(format!(
                "actor {} has no code",
                at.to_checksum()
            )));
        };
        let source = String::from_utf8(code)
            .map_err(|_| StateFailure::Invariant("stored actor code is not UTF-8".into()))?;

        let actor_used = self.usage.per_actor.get(&at).copied().unwrap_or(0);
        let actor_left = self
            .params
            .per_actor_per_block_cycles
            .saturating_sub(actor_used);
        let budget = meter.cycles_left().min(actor_left);
        let limited_by_actor = actor_left < meter.cycles_left();

        // The thread remembers recent checksums: an actor called again is not hashed again.
        let filename = format!("{}.py", cowboy_pvm::host::checksum_string(at.0));
        let invocation = Invocation {
            source: &source,
            code_hash: Some(hash),
            filename: &filename,
            entry,
            limits: Limits {
                cycles: Some(budget),
                max_depth: cowboy_pvm::limits::DEFAULT_MAX_DEPTH,
                memory: self.params.memory_per_call_bytes,
                tmp_bytes: self.params.tmp_scratch_bytes,
            },
            costs: host_costs(self.params),
        };
        let ctx = CallContext {
            self_address: at.0,
            sender: sender.0,
            value,
            block: BlockInfo {
                height: self.env.height,
                timestamp_ms: self.env.timestamp_ms,
                chain_id: self.env.chain_id,
                proposer: self.env.proposer.0,
            },
        };
        // A traced run attributes the handler's costs to its source lines; the VM charges
        // exactly the same either way (`cowboy_pvm::vm::profile`).
        let traced = self.trace.is_some();
        let mut host = ActorHost {
            run: self,
            state,
            meter: &mut *meter,
            ctx,
            depth,
            fatal: None,
        };
        let (outcome, lines) = if traced {
            pvm_actor::invoke_profiled(invocation, &mut host)
        } else {
            (pvm_actor::invoke(invocation, &mut host), Default::default())
        };
        let fatal = host.fatal.take();
        drop(host);
        if let Some(trace) = self.trace.as_mut() {
            trace.lines(lines);
        }
        if let Some(f) = fatal {
            return Err(f);
        }
        // The VM never charges more than its budget, which is within both allowances.
        let cycles = outcome.cycles.min(budget);
        *self.usage.per_actor.entry(at).or_insert(0) += cycles;
        if let Err(e) = meter.charge_cycles(cycles) {
            return Ok(Err(Failure::out_of(e)));
        }
        match outcome.result {
            Ok(ret) => Ok(self.return_data(meter, ret)),
            Err(e) => Ok(Err(invoke_failure(e, limited_by_actor, self.params))),
        }
    }

    /// Check and bill a handler's return value (Python or system actor alike).
    fn return_data(&self, meter: &mut TxMeter, ret: Vec<u8>) -> Result<Vec<u8>, Failure> {
        let max = self.params.max_return_data_bytes;
        if ret.len() as u64 > max {
            return Err(Failure::new(
                "ReturnTooLarge",
                format!("return value is {} bytes, the limit is {max}", ret.len()),
            ));
        }
        let cells = self
            .params
            .calldata_cells_per_byte
            .saturating_mul(ret.len() as u64);
        meter.charge_cells(cells).map_err(Failure::out_of)?;
        Ok(ret)
    }

    /// Run one handler of the system actor at `at` (see [`crate::system`]).
    fn invoke_system<E: Context>(
        &mut self,
        state: &mut BlockState<'_, E>,
        meter: &mut TxMeter,
        at: Address,
        sender: Address,
        value: u128,
        entry: Entry,
    ) -> SResult<Result<Vec<u8>, Failure>> {
        let Some(actor) = system::lookup(&at) else {
            return Ok(Err(no_system_actor(&at)));
        };
        let Entry::Call { handler, args } = entry else {
            return Ok(Err(Failure::new(
                "InvalidTransaction",
                "system actors cannot be deployed",
            )));
        };
        let mut outbox = Vec::new();
        let mut burned = 0u128;
        let mut call = system::Call {
            me: at,
            sender,
            value,
            env: self.env,
            params: self.params,
            state: &mut *state,
            meter: &mut *meter,
            events: &mut self.events,
            outbox: &mut outbox,
            burned: &mut burned,
        };
        let result = actor.call(&mut call, &handler, &system::Args::new(&args));
        match result {
            Ok(ret) => {
                self.burned = self.burned.saturating_add(burned);
                for m in outbox {
                    self.queue_system_message(state, at, m)?;
                }
                Ok(self.return_data(meter, cbor::encode(&ret)))
            }
            Err(system::CallError::Fail(f)) => Ok(Err(f)),
            Err(system::CallError::State(s)) => Err(s),
        }
    }
}

impl TxRun<'_> {
    /// Queue a message a system actor sent (a job's continuation), delivered after its
    /// handler returns like an actor's. Its id uses the system actor's account nonce, as an
    /// actor's send does. No calldata cells are charged: a system actor sends only bytes it
    /// already holds in state, which were paid for as cells when stored, and the run that
    /// delivers it has its own limits.
    fn queue_system_message<E: Context>(
        &mut self,
        state: &mut BlockState<'_, E>,
        from: Address,
        m: system::OutMessage,
    ) -> SResult<()> {
        let mut acct = state.account(&from)?;
        let nonce = acct.nonce;
        acct.nonce += 1;
        state.set_account(&from, &acct)?;
        let msg_hash = keccak256(&cbor::encode(&Value::Array(vec![
            Value::Bytes(m.to.0.to_vec()),
            Value::Text(m.handler.clone()),
            m.args.clone(),
            Value::Uint(0),
        ])));
        self.sent += 1;
        self.queue.push_back(Message {
            id: message_id(&from, nonce, &msg_hash),
            from,
            to: m.to,
            handler: m.handler,
            args: m.args,
            value: 0,
            depth: 1,
            bytes: 0,
            parent: self.trace.as_ref().and_then(Trace::current),
        });
        Ok(())
    }
}

fn no_system_actor(at: &Address) -> Failure {
    Failure::new(
        "NoSuchActor",
        format!(
            "{} is a reserved system address with no system actor yet",
            at.to_checksum()
        ),
    )
}

/// Whether `to` can be called: a registered system actor or a deployed Python actor.
fn callable<E: Context>(state: &BlockState<'_, E>, to: &Address) -> SResult<Result<(), Failure>> {
    if to.is_system() {
        return Ok(match system::lookup(to) {
            Some(_) => Ok(()),
            None => Err(no_system_actor(to)),
        });
    }
    if state.account(to)?.code_hash.is_none() {
        return Ok(Err(Failure::new(
            "NoSuchActor",
            format!("no actor is deployed at {}", to.to_checksum()),
        )));
    }
    Ok(Ok(()))
}

/// Map a PVM failure to the receipt's error.
fn invoke_failure(e: InvokeError, limited_by_actor: bool, params: &GenesisParams) -> Failure {
    match e {
        InvokeError::Compile(c) => Failure {
            class: c.kind.to_string(),
            message: c.msg,
            line: Some(c.line),
        },
        InvokeError::Python {
            class,
            message,
            line,
            ..
        } => Failure {
            class,
            message,
            line,
        },
        InvokeError::OutOfCycles if limited_by_actor => Failure::new(
            "OutOfCycles",
            format!(
                "the actor's per-block cycle allowance ({}) is exhausted",
                params.per_actor_per_block_cycles
            ),
        ),
        InvokeError::OutOfCycles => Failure::out_of(Exhausted::Cycles),
        InvokeError::OutOfCells => Failure::out_of(Exhausted::Cells),
        InvokeError::MemoryLimit => Failure::new(
            "MemoryError",
            format!(
                "the invocation exceeded its memory limit of {} bytes",
                params.memory_per_call_bytes
            ),
        ),
        other => Failure::new(invoke_error_class(&other), other.to_string()),
    }
}

fn invoke_error_class(e: &InvokeError) -> &'static str {
    match e {
        InvokeError::NoActorClass(_) => "NoActorClass",
        InvokeError::NoSuchHandler(_) => "NoSuchHandler",
        InvokeError::BadArguments(_) => "BadArguments",
        InvokeError::ReturnNotEncodable(_) => "TypeError",
        InvokeError::HostFailure(_) => "HostFailure",
        _ => "InternalError",
    }
}

/// Cycle prices of host calls, from the genesis parameters (§17.3).
pub fn host_costs(p: &GenesisParams) -> HostCosts {
    HostCosts {
        storage_read: p.storage_read_cycles,
        storage_write: p.storage_write_cycles,
        send_message: p.send_message_cycles,
        block_info: p.block_info_cycles,
        emit_event: p.emit_event_cycles,
        emit_event_per_byte: p.emit_event_cycles_per_byte,
        hash_base: p.hash_base_cycles,
        hash_per_byte: p.hash_cycles_per_byte,
        set_timer: p.set_timer_cycles,
        cancel_timer: p.cancel_timer_cycles,
    }
}

fn move_value<E: Context>(
    state: &mut BlockState<'_, E>,
    from: &Address,
    to: &Address,
    amount: u128,
) -> SResult<()> {
    // Validity checked the sender covers value + reservation, so the debit cannot fail.
    if !state.debit(from, amount)? {
        return Err(StateFailure::Invariant(
            "validated value transfer found the balance short".into(),
        ));
    }
    state.credit(to, amount)
}

/// The PVM's view of the chain during one invocation.
struct ActorHost<'h, 'r, 's, 'a, E: Context> {
    run: &'h mut TxRun<'r>,
    state: &'s mut BlockState<'a, E>,
    meter: &'h mut TxMeter,
    ctx: CallContext,
    depth: u64,
    /// A state failure seen by a host call: reported to the VM as fatal, then to the block.
    fatal: Option<StateFailure>,
}

fn rejected(class: &'static str, message: impl Into<String>) -> HostError {
    HostError::Rejected {
        class,
        message: message.into(),
    }
}

impl<E: Context> ActorHost<'_, '_, '_, '_, E> {
    fn me(&self) -> Address {
        Address(self.ctx.self_address)
    }

    fn io<T>(&mut self, r: SResult<T>) -> Result<T, HostError> {
        r.map_err(|f| {
            let msg = f.to_string();
            self.fatal = Some(f);
            HostError::Fatal(msg)
        })
    }

    fn cells(&mut self, n: u64) -> Result<(), HostError> {
        self.meter
            .charge_cells(n)
            .map_err(|_| HostError::OutOfCells)
    }

    /// Record a storage access in the run's trace, if it is traced.
    fn trace(&mut self, key: &[u8], op: StorageOp) {
        if let Some(t) = self.run.trace.as_mut() {
            t.storage(key, op);
        }
    }

    fn millicells(&mut self, n: u128) -> Result<(), HostError> {
        self.meter
            .charge_millicells(n)
            .map_err(|_| HostError::OutOfCells)
    }
}

impl<E: Context> Host for ActorHost<'_, '_, '_, '_, E> {
    fn context(&self) -> &CallContext {
        &self.ctx
    }

    fn cells_used(&self) -> u64 {
        self.meter.cells()
    }

    fn storage_get(&mut self, key: &[u8]) -> Result<Option<Vec<u8>>, HostError> {
        let me = self.me();
        let r = self.state.storage(&me, key);
        let v = self.io(r)?;
        self.trace(key, StorageOp::Read(v.as_ref().map(|v| v.len() as u64)));
        let bytes = key.len() + v.as_ref().map_or(0, Vec::len);
        let p = u128::from(self.run.params.state_read_millicells_per_byte);
        self.millicells(p * bytes as u128)?;
        Ok(v)
    }

    fn storage_set(&mut self, key: &[u8], value: &[u8]) -> Result<(), HostError> {
        let me = self.me();
        let r = self.state.account(&me);
        let acct = self.io(r)?;
        let r = self.state.storage(&me, key);
        let old = self.io(r)?;
        let old_size = old.map_or(0, |o| (key.len() + o.len()) as u64);
        let new_size = (key.len() + value.len()) as u64;
        let after = acct.storage_bytes.saturating_sub(old_size) + new_size;
        let quota = self.run.params.storage_quota_per_actor_bytes;
        if new_size > old_size && after > quota {
            return Err(rejected(
                "MemoryError",
                format!("storage quota exceeded: the actor would use {after} bytes of its {quota}"),
            ));
        }
        let p = self.run.params.state_write_cells_per_byte;
        self.cells(p.saturating_mul(new_size))?;
        let r = self.state.set_storage(&me, key, value);
        self.io(r)?;
        self.trace(key, StorageOp::Write(value.len() as u64));
        Ok(())
    }

    fn storage_delete(&mut self, key: &[u8]) -> Result<(), HostError> {
        let me = self.me();
        let r = self.state.delete_storage(&me, key);
        self.io(r)?;
        self.trace(key, StorageOp::Delete);
        Ok(())
    }

    fn send_message(
        &mut self,
        target: [u8; 20],
        handler: &str,
        args: &[u8],
        value: u128,
    ) -> Result<[u8; 32], HostError> {
        let to = Address(target);
        let me = self.me();
        let p = self.run.params;
        if self.run.sent >= p.fanout_per_tx {
            return Err(rejected(
                "RuntimeError",
                format!(
                    "a transaction may enqueue at most {} messages",
                    p.fanout_per_tx
                ),
            ));
        }
        if self.depth + 1 > p.reentrancy_depth {
            return Err(rejected(
                "RecursionError",
                format!("message chain deeper than {}", p.reentrancy_depth),
            ));
        }
        let args_value = cbor::decode(args)
            .map_err(|e| rejected("ValueError", format!("message arguments: {e}")))?;
        if !matches!(args_value, Value::Array(_) | Value::Map(_) | Value::Null) {
            return Err(rejected(
                "TypeError",
                "message arguments must be a list, a dict or None",
            ));
        }
        let r = callable(self.state, &to);
        if let Err(f) = self.io(r)? {
            return Err(rejected("ValueError", f.message));
        }
        let bytes = (handler.len() + args.len()) as u64;
        let queued = self.run.mailbox_bytes.get(&to).copied().unwrap_or(0);
        if queued + bytes > p.mailbox_capacity_bytes {
            return Err(rejected(
                "RuntimeError",
                format!(
                    "the mailbox of {} is full ({} of {} bytes queued)",
                    to.to_checksum(),
                    queued,
                    p.mailbox_capacity_bytes
                ),
            ));
        }
        self.cells(p.calldata_cells_per_byte.saturating_mul(bytes))?;
        let r = self.state.account(&me);
        let mut acct = self.io(r)?;
        if acct.balance < value {
            return Err(rejected(
                "ValueError",
                format!("insufficient balance: {} < {value}", acct.balance),
            ));
        }
        acct.balance -= value;
        let nonce = acct.nonce;
        acct.nonce += 1;
        let r = self.state.set_account(&me, &acct);
        self.io(r)?;
        let msg_hash = keccak256(&cbor::encode(&Value::Array(vec![
            Value::Bytes(to.0.to_vec()),
            Value::Text(handler.to_string()),
            args_value.clone(),
            Value::from_u128(value),
        ])));
        let id = message_id(&me, nonce, &msg_hash);
        self.run.sent += 1;
        *self.run.mailbox_bytes.entry(to).or_insert(0) += bytes;
        self.run.queue.push_back(Message {
            id,
            from: me,
            to,
            handler: handler.to_string(),
            args: args_value,
            value,
            depth: self.depth + 1,
            bytes,
            parent: self.run.trace.as_ref().and_then(Trace::current),
        });
        Ok(id.0)
    }

    fn emit_event(&mut self, topic: &str, data: &[u8]) -> Result<(), HostError> {
        const MAX_TOPIC: usize = 256;
        if topic.len() > MAX_TOPIC {
            return Err(rejected(
                "ValueError",
                format!(
                    "event topic is {} bytes, the limit is {MAX_TOPIC}",
                    topic.len()
                ),
            ));
        }
        let p = u128::from(self.run.params.event_millicells_per_byte);
        self.millicells(p * (topic.len() + data.len()) as u128)?;
        self.run.events.push(Event {
            emitter: self.me(),
            topic: topic.to_string(),
            data: data.to_vec(),
        });
        Ok(())
    }

    fn transfer(&mut self, to: [u8; 20], amount: u128) -> Result<(), HostError> {
        let to_address = Address(to);
        if to_address.is_system() {
            return Err(rejected(
                "ValueError",
                format!(
                    "{} is a reserved system address: send it a message instead of a transfer",
                    to_address.to_checksum()
                ),
            ));
        }
        let me = self.me();
        let r = self.state.debit(&me, amount);
        if !self.io(r)? {
            return Err(rejected("ValueError", "insufficient balance for transfer"));
        }
        let r = self.state.credit(&Address(to), amount);
        self.io(r)
    }

    fn balance(&mut self, addr: [u8; 20]) -> Result<u128, HostError> {
        let r = self.state.account(&Address(addr));
        Ok(self.io(r)?.balance)
    }

    fn randomness(&mut self, label: &[u8]) -> Result<[u8; 32], HostError> {
        Ok(crate::randomness::derive(&self.run.env.randomness, label))
    }

    fn tmp_write(&mut self, bytes: u64) -> Result<(), HostError> {
        // CIP-3 §2.2: a /tmp write charges data.len() cells, at once (the PVM caps /tmp at
        // `tmp_scratch_bytes` itself).
        self.cells(bytes)
    }

    fn set_timer_price(&mut self, _base: u64) -> u64 {
        // The timer basefee replaces the static base (it starts there, `crate::timers`).
        let me = self.me();
        let p = self.run.params;
        let r = crate::timers::Meta::load(&*self.state, p);
        let Ok(meta) = self.io(r) else {
            return u64::MAX;
        };
        let k = self.run.usage.timers_set.get(&me).copied().unwrap_or(0) + 1;
        meta.basefee_cycles
            .saturating_mul(crate::timers::surcharge_factor(p, k))
    }

    fn set_timer(&mut self, req: &TimerRequest<'_>) -> Result<u64, HostError> {
        let me = self.me();
        // Counted once priced and charged, refused or not: a failing transaction cannot reset
        // its actor's same-block surcharge.
        *self.run.usage.timers_set.entry(me).or_insert(0) += 1;
        let new = crate::timers::NewTimer {
            owner: me,
            due: req.height,
            every: req.every,
            handler: req.handler,
            data: req.data,
            gba: req.gba.map(Address),
        };
        let r =
            crate::timers::schedule(&mut *self.state, self.run.params, self.run.env.height, &new);
        match self.io(r)? {
            Ok((id, written)) => {
                let p = self.run.params.state_write_cells_per_byte;
                self.cells(p.saturating_mul(written))?;
                Ok(id)
            }
            Err(refused) => Err(rejected(refused.class, refused.message)),
        }
    }

    fn cancel_timer(&mut self, id: u64) -> Result<u128, HostError> {
        let me = self.me();
        let r = crate::timers::cancel(&mut *self.state, self.run.params, &me, id);
        match self.io(r)? {
            Ok(refund) => Ok(refund),
            Err(refused) => Err(rejected(refused.class, refused.message)),
        }
    }
}
