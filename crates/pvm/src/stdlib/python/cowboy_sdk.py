"""cowboy_sdk: the actor developer surface (key-innovations.md §3, CIP-6) over pvm_host.

An actor is the class decorated with @actor (or, in the low-level form, a class named Actor).
Each invocation gets a fresh instance whose `storage` attribute is a Storage mapping and whose
other attributes are restored from the previous invocation. Addresses are canonical EIP-55
checksummed strings everywhere (`sender()`, `self_address()`, parameters annotated `Address`,
`address(s)`), so one account is one storage key. Everything here is metered like
any Python code; the host calls are priced by pvm_host (whitepaper §17.3).

This module is built once per thread and shared by every invocation (crates/pvm/src/modules.rs,
`load_cowboy_sdk`): it holds no mutable state and imports no module an actor could change, so
anything stateful (hashlib below) is imported where it is used, from the invocation's own modules.
"""

import pvm_host


def actor(cls):
    """Mark `cls` as the module's actor class."""
    cls.__cowboy_actor__ = True
    return cls


# The actor's persistent key/value storage (keys: str, int or bytes; values: any CBOR-encodable
# value), `self.storage` of every actor instance. Native (crates/pvm/src/sdk/storage.rs): a
# value read once is cached for the rest of the invocation, so the same object comes back and
# changes made to it in place (`storage["items"].append(x)`) are written back when the handler
# returns successfully; assignment and deletion write through immediately. Methods: `s[k]`,
# `s.get(k, default=None)`, `k in s`, `s[k] = v`, `s.set(k, v)`, `del s[k]`, `s.delete(k)`,
# `s.pop(k[, default])`, `s.setdefault(k, default=None)`.
Storage = pvm_host.Storage


class BlockInfo:
    """The block the invocation runs in."""

    __slots__ = ("height", "timestamp_ms", "chain_id", "proposer")

    def __init__(self, height, timestamp_ms, chain_id, proposer):
        self.height = height
        self.timestamp_ms = timestamp_ms
        self.chain_id = chain_id
        self.proposer = proposer

    def __repr__(self):
        return (
            f"BlockInfo(height={self.height}, timestamp_ms={self.timestamp_ms}, "
            f"chain_id={self.chain_id}, proposer={self.proposer!r})"
        )


def block_info():
    """Height, timestamp (ms), chain id and proposer of the current block."""
    return BlockInfo(*pvm_host.block_info())


class Address(str):
    """An address: annotate a handler parameter `to: Address` and the dispatch hands the
    handler the canonical EIP-55 checksummed string, whatever letter case the caller typed, so
    equal addresses are equal storage keys. `Address(s)` normalises like `address(s)`."""

    __slots__ = ()

    def __new__(cls, value):
        return pvm_host.address(value)


def address(value):
    """The canonical checksummed '0x…' form of an address given as hex text in any case (a
    mixed-case string must carry a valid EIP-55 checksum: ValueError otherwise) or 20 bytes."""
    return pvm_host.address(value)


def sender():
    """The transaction sender, or the actor that sent the message (checksummed '0x…')."""
    return pvm_host.sender()


def value():
    """Value (wei) that came with this call."""
    return pvm_host.value()


def self_address():
    """This actor's address (checksummed '0x…')."""
    return pvm_host.self_address()


def balance(address=None):
    """Balance (wei) of `address`, or of this actor."""
    return pvm_host.balance(address)


def send_message(target, handler, args=None, value=0):
    """Queue a message to `handler` of actor `target`, delivered after this handler returns,
    in the same transaction. `args`: a list/tuple (positional) or dict (keyword). Returns the
    message id (32 bytes)."""
    if args is None:
        args = []
    elif isinstance(args, tuple):
        args = list(args)
    elif not isinstance(args, (list, dict)):
        raise TypeError("message args must be a list, a tuple, a dict or None")
    return pvm_host.send_message(target, handler, pvm_host.encode(args), value)


def emit_event(topic, data=None):
    """Emit an event (in the receipt) with a CBOR-encodable payload."""
    pvm_host.emit_event(topic, pvm_host.encode(data))


def transfer(to, amount):
    """Send `amount` wei from this actor to `to`."""
    pvm_host.transfer(to, amount)


SCHEDULER = pvm_host.SCHEDULER
"""The scheduler's address: `sender()` inside a handler a timer called."""


def _timer_handler(handler):
    # A bound method of the actor (`self.tick`) names its handler; so does a str.
    if isinstance(handler, str):
        return handler
    name = getattr(handler, "__name__", None)
    if callable(handler) and isinstance(name, str):
        return name
    raise TypeError("a timer handler must be a handler name (str) or a method of the actor")


def _timer_data(data):
    try:
        return pvm_host.encode(data)
    except TypeError as e:
        raise TypeError(f"timer data must be CBOR-encodable: {e}") from None


def set_timer(height, handler, data=None, gba=None):
    """Call this actor's public `handler(data)` at block `height` (> the current block).

    The handler runs as this actor with `sender() == SCHEDULER`, paid from this actor's
    balance at the fee its Gas Bidding Agent bids when the timer is due (`gba`: an agent
    actor's address; None: the network default). A refundable deposit is taken now and
    returned when the timer fires or is cancelled. Returns the timer id (an int).
    """
    return pvm_host.set_timer(height, 0, _timer_handler(handler), _timer_data(data), gba)


def set_interval(every_n_blocks, handler, data=None, gba=None):
    """Call `handler(data)` every `every_n_blocks` blocks, first at the current height plus
    `every_n_blocks`, until cancelled. A late firing does not shift the schedule: the next one
    is due at the scheduled height plus the interval. Returns the timer id."""
    if not isinstance(every_n_blocks, int) or every_n_blocks < 1:
        raise ValueError("an interval must be a positive number of blocks")
    now = pvm_host.block_info()[0]
    return pvm_host.set_timer(
        now + every_n_blocks, every_n_blocks, _timer_handler(handler), _timer_data(data), gba
    )


def cancel_timer(timer_id):
    """Cancel one of this actor's pending timers; returns the deposit refunded (wei)."""
    return pvm_host.cancel_timer(timer_id)


def randomness(label):
    """32 bytes of HKDF(R_n, label) for the current block (whitepaper §3.4)."""
    return pvm_host.randomness(label)


# ---------------------------------------------------------------------------------------------
# Off-chain jobs (CIP-2; the chain's side is crates/exec/src/system: dispatcher 0x…02,
# verifier 0x…03). An actor buys work from staked runners with `submit_job`, naming one of its
# handlers decorated `@runner.continuation`; the verifier calls that handler once with
# `(job_id, result)` when the runners' results are verified. The SDK keeps one record per
# pending job in the actor's storage (the reserved space "__jobs__", which no user key can
# reach): the continuation's name and the `capture()`d context. The continuation refuses every
# call that is not the verifier delivering one of this actor's pending jobs to that very
# handler, and deletes the record before the user code runs, so it runs at most once and a
# result for a job the actor abandoned (`abandon_job`, e.g. on its own timeout) is refused.
# ---------------------------------------------------------------------------------------------

RUNNER_REGISTRY = pvm_host.RUNNER_REGISTRY
"""The runner registry's address (0x…01)."""

JOB_DISPATCHER = pvm_host.JOB_DISPATCHER
"""The job dispatcher's address (0x…02): `submit_job` sends the spec there."""

RESULT_VERIFIER = pvm_host.RESULT_VERIFIER
"""The result verifier's address (0x…03): the only caller a continuation accepts."""

CAPTURE_MAX_BYTES = 4096
"""Largest `capture()`d context, encoded (it is stored until the continuation runs)."""

_JOBS = "__jobs__"
_JOB_COUNT = "count"


class Bounds:
    """A job's resource limits (each at least 1): tokens (input and output), wall-clock
    milliseconds, memory in MiB."""

    __slots__ = ("max_tokens", "max_wall_ms", "max_memory_mb")

    def __init__(self, max_tokens=1, max_wall_ms=10000, max_memory_mb=256):
        self.max_tokens = max_tokens
        self.max_wall_ms = max_wall_ms
        self.max_memory_mb = max_memory_mb

    def to_spec(self):
        """The dispatcher's `bounds` map."""
        return {
            "max_tokens": self.max_tokens,
            "max_wall_ms": self.max_wall_ms,
            "max_memory_mb": self.max_memory_mb,
        }


class ResultSchema:
    """The mandatory result schema (CIP-2 §1): the largest result in bytes, the expected
    execution time, and the format ("json" results are read as JSON by the verifier; any other
    text, or a map, as CBOR)."""

    __slots__ = ("max_return_bytes", "data_format", "expected_execution_ms")

    def __init__(self, max_return_bytes, data_format="json", expected_execution_ms=1000):
        self.max_return_bytes = max_return_bytes
        self.data_format = data_format
        self.expected_execution_ms = expected_execution_ms

    def to_spec(self):
        """The dispatcher's `result_schema` map."""
        return {
            "max_return_bytes": self.max_return_bytes,
            "expected_execution_ms": self.expected_execution_ms,
            "data_format": self.data_format,
        }


class Verification:
    """How the verifier decides between the runners' results (CIP-2 §9): a mode, the committee
    size M (`runners`), a threshold N and the mode's parameters. Build one with the static
    methods, which name each mode's parameters."""

    __slots__ = ("mode", "runners", "threshold", "params")

    def __init__(self, mode, runners=None, threshold=None, params=None):
        self.mode = mode
        self.runners = runners
        self.threshold = threshold
        self.params = params

    @staticmethod
    def none():
        """One runner, its result taken as is (development only)."""
        return Verification("none", 1)

    @staticmethod
    def economic_bond():
        """One runner, backed by its stake."""
        return Verification("economic_bond", 1)

    @staticmethod
    def majority_vote(field=None, runners=3, threshold=None):
        """`threshold` of `runners` results agree on the value at `field` (a path into the
        result; None: the whole result). N defaults to the smallest strict majority, at least 3."""
        if threshold is None:
            threshold = max(3, runners // 2 + 1)
        params = None if field is None else {"field": field}
        return Verification("majority_vote", runners, threshold, params)

    @staticmethod
    def structured_match(fields=None, runners=3):
        """Per field, a majority of the results agree (numbers within a tolerance): `fields` is
        a list of maps `{"path", "tolerance", "tolerance_bps", "min", "max"}` (None: whole
        results must be equal)."""
        params = None if fields is None else {"fields": fields}
        return Verification("structured_match", runners, None, params)

    @staticmethod
    def deterministic(runners=2):
        """Byte-identical results from at least two runners."""
        return Verification("deterministic", runners)

    @staticmethod
    def semantic_similarity(runners=3, threshold=3, field=None, min_similarity_bps=None):
        """`threshold` results whose embeddings (at `field`, default "embedding") are within
        `min_similarity_bps` cosine similarity of each other."""
        params = {}
        if field is not None:
            params["field"] = field
        if min_similarity_bps is not None:
            params["min_similarity_bps"] = min_similarity_bps
        return Verification("semantic_similarity", runners, threshold, params or None)

    def to_spec(self):
        """The dispatcher's `verification` map."""
        out = {"mode": self.mode}
        if self.runners is not None:
            out["runners"] = self.runners
        if self.threshold is not None:
            out["threshold"] = self.threshold
        if self.params is not None:
            out["params"] = self.params
        return out


class JobSpec:
    """A job for the dispatcher (CIP-2 §2): what to do (`job_type` and `input`, the request
    the runners read), its result schema, verification, bounds, price and timeout. Use the
    subclasses LlmJob, HttpJob, McpJob and CustomJob. `max_price + tip` (wei) is escrowed from
    the actor's balance at submission; what the runners do not earn is refunded to it."""

    def __init__(
        self,
        job_type,
        input=None,
        *,
        result_schema,
        verification,
        max_price,
        tip=0,
        timeout_blocks=20,
        bounds=None,
        model=None,
        domains=None,
        tee_required=False,
        runner_pool=None,
    ):
        if not isinstance(result_schema, ResultSchema):
            raise TypeError("result_schema must be a ResultSchema")
        if not isinstance(verification, Verification):
            raise TypeError("verification must be a Verification")
        if bounds is not None and not isinstance(bounds, Bounds):
            raise TypeError("bounds must be a Bounds or None")
        self.job_type = job_type
        self.input = input
        self.result_schema = result_schema
        self.verification = verification
        self.max_price = max_price
        self.tip = tip
        self.timeout_blocks = timeout_blocks
        self.bounds = Bounds() if bounds is None else bounds
        self.model = model
        self.domains = domains
        self.tee_required = tee_required
        self.runner_pool = runner_pool

    def escrow(self):
        """The value `submit_job` sends: `max_price + tip`."""
        return self.max_price + self.tip

    def to_spec(self, handler):
        """The dispatcher's JobSpec map, with the continuation `handler` of this actor as the
        callback (crates/exec/src/system/dispatcher/spec.rs has every rule)."""
        spec = {
            "job_type": self.job_type,
            "bounds": self.bounds.to_spec(),
            "result_schema": self.result_schema.to_spec(),
            "verification": self.verification.to_spec(),
            "max_price": self.max_price,
            "tip": self.tip,
            "timeout_blocks": self.timeout_blocks,
            "callback": {"handler": handler},
            "tee_required": self.tee_required,
        }
        if self.input is not None:
            spec["input"] = self.input
        if self.model is not None:
            spec["model"] = self.model
        if self.domains is not None:
            spec["domains"] = list(self.domains)
        if self.runner_pool is not None:
            spec["required_runner_pool"] = self.runner_pool
        return spec


class LlmJob(JobSpec):
    """Inference with the model whose registry hash is `model` (32 bytes)."""

    def __init__(self, model, input=None, **options):
        JobSpec.__init__(self, "llm", input, model=model, **options)


class HttpJob(JobSpec):
    """Fetches from `domains` (the runners must serve every one)."""

    def __init__(self, domains, input=None, **options):
        JobSpec.__init__(self, "http", input, domains=domains, **options)


class McpJob(JobSpec):
    """A tool call over the Model Context Protocol."""

    def __init__(self, input=None, **options):
        JobSpec.__init__(self, "mcp", input, **options)


class CustomJob(JobSpec):
    """Any other work runners offer under the "custom" job type."""

    def __init__(self, input=None, **options):
        JobSpec.__init__(self, "custom", input, **options)


class Captured:
    """Context carried from `submit_job` to the continuation (see `capture`)."""

    __slots__ = ("values",)

    def __init__(self, values):
        self.values = values

    def __getattr__(self, name):
        try:
            return self.values[name]
        except KeyError:
            raise AttributeError(f"nothing named {name!r} was captured") from None

    def __repr__(self):
        return f"Captured({self.values!r})"


def capture(**values):
    """Context for a continuation: `submit_job(job, self.on_result, capture(symbol=s))` and
    the continuation gets it back as its third argument (`context.symbol`). The values must be
    CBOR-encodable and encode in at most CAPTURE_MAX_BYTES; checked here, before anything is
    sent (TypeError, ValueError)."""
    try:
        raw = pvm_host.encode(values)
    except TypeError as e:
        raise TypeError(f"captured values must be CBOR-encodable: {e}") from None
    if len(raw) > CAPTURE_MAX_BYTES:
        raise ValueError(
            f"captured context is {len(raw)} bytes encoded; the limit is {CAPTURE_MAX_BYTES}"
        )
    return Captured(values)


def _continuation_name(handler):
    name = getattr(handler, "__cowboy_continuation__", None)
    if not isinstance(name, str):
        raise TypeError("a job's continuation must be a handler decorated @runner.continuation")
    return name


def _job_count():
    raw = pvm_host.storage_get(_JOB_COUNT, _JOBS)
    return 0 if raw is None else pvm_host.decode(raw)


def next_job_id():
    """The id the dispatcher will give this actor's next job: keccak256(this actor ‖ n_le8 ‖
    "job"), n the jobs it submitted before (the dispatcher numbers jobs per submitter, so an
    actor knows its job's id before the submission message is delivered)."""
    import hashlib

    me = bytes.fromhex(pvm_host.self_address()[2:])
    n = _job_count()
    return hashlib.keccak256(me + n.to_bytes(8, "little") + b"job").digest()


def submit_job(job, continuation, context=None):
    """Submit `job` (a JobSpec) to the dispatcher, escrowing `job.escrow()` wei from this
    actor, with `continuation` (a method of this actor decorated `@runner.continuation`) as its
    callback and `context` (from `capture()`, or None) kept for it. Returns the job id (32
    bytes). The spec is checked here for what the SDK knows (types, CBOR) and by the dispatcher
    for the rest; a refusal there fails the whole transaction, this submission included.

    Submit every job through this function: the SDK counts the actor's jobs to know their ids,
    and a job sent to the dispatcher any other way would shift the count."""
    if not isinstance(job, JobSpec):
        raise TypeError("submit_job needs a JobSpec (LlmJob, HttpJob, McpJob or CustomJob)")
    if context is not None and not isinstance(context, Captured):
        raise TypeError("a continuation's context must come from capture()")
    handler = _continuation_name(continuation)
    try:
        spec = pvm_host.encode([job.to_spec(handler)])
    except TypeError as e:
        raise TypeError(f"the job spec must be CBOR-encodable: {e}") from None
    job_id = next_job_id()
    pvm_host.send_message(JOB_DISPATCHER, "submit_job", spec, job.escrow())
    pvm_host.storage_set(_JOB_COUNT, pvm_host.encode(_job_count() + 1), _JOBS)
    pending = {"handler": handler, "context": None if context is None else context.values}
    pvm_host.storage_set(job_id, pvm_host.encode(pending), _JOBS)
    return job_id


def pending_job(job_id):
    """Whether this actor still waits for `job_id`'s continuation."""
    return pvm_host.storage_get(job_id, _JOBS) is not None


def abandon_job(job_id):
    """Stop waiting for `job_id` (e.g. on the actor's own timeout): its continuation, should
    the result still come, is refused. Returns the captured context (a Captured, or None if
    none was captured); KeyError if the actor was not waiting for the job."""
    raw = pvm_host.storage_get(job_id, _JOBS)
    if raw is None:
        raise KeyError(job_id)
    pvm_host.storage_delete(job_id, _JOBS)
    values = pvm_host.decode(raw)["context"]
    return None if values is None else Captured(values)


class runner:
    """The runner-facing decorators: `@runner.continuation`."""

    @staticmethod
    def continuation(fn):
        """Mark `fn(self, job_id, result, context)` as a job's continuation. The handler the
        chain calls is `name(job_id, result)`; it runs `fn` only when the result verifier
        (0x…03) delivers a job this actor submitted with this continuation and still waits for
        (PermissionError otherwise), forgets the job first (so it never runs twice), and passes
        the `capture()`d context (a Captured, or None). `result` is the verified result's bytes."""
        name = fn.__name__

        def handler(self, job_id, result):
            if pvm_host.sender() != RESULT_VERIFIER:
                raise PermissionError(f"{name} is a job continuation: only the result verifier calls it")
            raw = pvm_host.storage_get(job_id, _JOBS)
            if raw is None:
                raise PermissionError(f"{name}: this actor is not waiting for job {job_id.hex()}")
            pending = pvm_host.decode(raw)
            if pending["handler"] != name:
                raise PermissionError(f"job {job_id.hex()} continues in {pending['handler']}, not {name}")
            pvm_host.storage_delete(job_id, _JOBS)
            values = pending["context"]
            return fn(self, job_id, result, None if values is None else Captured(values))

        handler.__name__ = name
        handler.__qualname__ = getattr(fn, "__qualname__", name)
        handler.__doc__ = fn.__doc__
        handler.__cowboy_continuation__ = name
        return handler
