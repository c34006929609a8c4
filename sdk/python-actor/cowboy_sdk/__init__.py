"""cowboy_sdk for editors and type checkers: the names, signatures and types of the module
Cowboy actors import, without the chain behind them.

Actors run on the PVM, Cowboy's own Python VM, where `cowboy_sdk` is built in
(crates/pvm/src/stdlib/python/cowboy_sdk.py). This package mirrors that module exactly, name
for name and parameter for parameter (a test in sdk/python/tests/test_actor_stub.py keeps the two
from drifting), so `from cowboy_sdk import actor, sender` resolves in an editor and mypy checks
actor code. Its functions need a chain: outside one they raise RuntimeError naming the command
that runs an actor without a node, `cowboy actor test FILE.py --call 'HANDLER(ARG, ...)'`.

mypy: add `plugins = cowboy_sdk.mypy_plugin` to your mypy configuration so that classes
decorated with `@actor` (and low-level classes named `Actor`) have their `storage` attribute,
which the chain sets on every invocation.
"""

from __future__ import annotations

from typing import Any, Callable, TypeVar, Union, overload

__all__ = [
    "CAPTURE_MAX_BYTES",
    "JOB_DISPATCHER",
    "RESULT_VERIFIER",
    "RUNNER_REGISTRY",
    "SCHEDULER",
    "Address",
    "BlockInfo",
    "Bounds",
    "Captured",
    "CustomJob",
    "HttpJob",
    "JobSpec",
    "LlmJob",
    "McpJob",
    "ResultSchema",
    "Storage",
    "Verification",
    "abandon_job",
    "actor",
    "address",
    "balance",
    "block_info",
    "cancel_timer",
    "capture",
    "emit_event",
    "next_job_id",
    "pending_job",
    "randomness",
    "runner",
    "self_address",
    "send_message",
    "sender",
    "set_interval",
    "set_timer",
    "submit_job",
    "transfer",
    "value",
]

_C = TypeVar("_C", bound=type)
_T = TypeVar("_T")

#: A storage key: the chain accepts these three types only, so keys are unambiguous.
_StorageKey = Union[str, int, bytes]
#: An address argument: checksummed (or all-lower/upper-case) "0x..." text, or 20 bytes.
_AddressLike = Union[str, bytes]
#: What a value argument or storage value may be: anything canonical CBOR encodes (None, bool,
#: int, float, str, bytes, and lists, tuples and dicts of them).
_Encodable = Any


def _no_chain(name: str) -> RuntimeError:
    return RuntimeError(
        f"cowboy_sdk.{name} needs a chain: actors run on the PVM, not in CPython. Run this "
        "actor without a node: cowboy actor test FILE.py --call 'HANDLER(ARG, ...)'"
    )


def actor(cls: _C) -> _C:
    """Mark `cls` as the module's actor class."""
    setattr(cls, "__cowboy_actor__", True)
    return cls


_ABSENT: Any = object()


class Storage:
    """The actor's persistent key/value storage (keys: str, int or bytes; values: any
    CBOR-encodable value).

    A value read once is cached for the rest of the invocation, so the same object comes back
    and changes made to it in place (`storage["items"].append(x)`) are written back when the
    handler returns successfully. Assignment writes through immediately.
    """

    __slots__ = ()

    def __getitem__(self, key: _StorageKey) -> Any:
        raise _no_chain("Storage")

    @overload
    def get(self, key: _StorageKey) -> Any: ...
    @overload
    def get(self, key: _StorageKey, default: _T) -> Any | _T: ...
    def get(self, key: _StorageKey, default: Any = None) -> Any:
        raise _no_chain("Storage")

    def __contains__(self, key: _StorageKey) -> bool:
        raise _no_chain("Storage")

    def __setitem__(self, key: _StorageKey, value: _Encodable) -> None:
        raise _no_chain("Storage")

    def set(self, key: _StorageKey, value: _Encodable) -> None:
        raise _no_chain("Storage")

    def __delitem__(self, key: _StorageKey) -> None:
        raise _no_chain("Storage")

    def delete(self, key: _StorageKey) -> None:
        """Remove `key` (no error if it is absent)."""
        raise _no_chain("Storage")

    def pop(self, key: _StorageKey, default: Any = _ABSENT) -> Any:
        raise _no_chain("Storage")

    def setdefault(self, key: _StorageKey, default: _Encodable = None) -> Any:
        raise _no_chain("Storage")

    def __repr__(self) -> str:
        return "<actor storage>"


class BlockInfo:
    """The block the invocation runs in."""

    __slots__ = ("height", "timestamp_ms", "chain_id", "proposer")

    height: int
    timestamp_ms: int
    chain_id: int
    proposer: str

    def __init__(self, height: int, timestamp_ms: int, chain_id: int, proposer: str) -> None:
        self.height = height
        self.timestamp_ms = timestamp_ms
        self.chain_id = chain_id
        self.proposer = proposer

    def __repr__(self) -> str:
        return (
            f"BlockInfo(height={self.height}, timestamp_ms={self.timestamp_ms}, "
            f"chain_id={self.chain_id}, proposer={self.proposer!r})"
        )


def block_info() -> BlockInfo:
    """Height, timestamp (ms), chain id and proposer of the current block."""
    raise _no_chain("block_info")


class Address(str):
    """An address: annotate a handler parameter `to: Address` and the dispatch hands the
    handler the canonical EIP-55 checksummed string, whatever letter case the caller typed, so
    equal addresses are equal storage keys. `Address(s)` normalises like `address(s)`."""

    __slots__ = ()

    def __new__(cls, value: _AddressLike) -> Address:
        raise _no_chain("Address")


def address(value: _AddressLike) -> str:
    """The canonical checksummed '0x...' form of an address given as hex text in any case (a
    mixed-case string must carry a valid EIP-55 checksum: ValueError otherwise) or 20 bytes."""
    raise _no_chain("address")


def sender() -> str:
    """The transaction sender, or the actor that sent the message (checksummed '0x...')."""
    raise _no_chain("sender")


def value() -> int:
    """Value (wei) that came with this call."""
    raise _no_chain("value")


def self_address() -> str:
    """This actor's address (checksummed '0x...')."""
    raise _no_chain("self_address")


def balance(address: _AddressLike | None = None) -> int:
    """Balance (wei) of `address`, or of this actor."""
    raise _no_chain("balance")


def send_message(
    target: _AddressLike,
    handler: str,
    args: list[Any] | tuple[Any, ...] | dict[str, Any] | None = None,
    value: int = 0,
) -> bytes:
    """Queue a message to `handler` of actor `target`, delivered after this handler returns,
    in the same transaction. `args`: a list/tuple (positional) or dict (keyword). Returns the
    message id (32 bytes)."""
    raise _no_chain("send_message")


def emit_event(topic: str, data: _Encodable = None) -> None:
    """Emit an event (in the receipt) with a CBOR-encodable payload."""
    raise _no_chain("emit_event")


def transfer(to: _AddressLike, amount: int) -> None:
    """Send `amount` wei from this actor to `to`."""
    raise _no_chain("transfer")


SCHEDULER: str = "0x000000000000000000000000000000000000000d"
"""The scheduler's address: `sender()` inside a handler a timer called."""

#: A timer's handler: its name, or a method of the actor (`self.tick`).
_TimerHandler = Union[str, Callable[..., Any]]


def set_timer(
    height: int,
    handler: _TimerHandler,
    data: _Encodable = None,
    gba: _AddressLike | None = None,
) -> int:
    """Call this actor's public `handler(data)` at block `height` (> the current block).

    The handler runs as this actor with `sender() == SCHEDULER`, paid from this actor's
    balance at the fee its Gas Bidding Agent bids when the timer is due (`gba`: an agent
    actor's address; None: the network default). A refundable deposit is taken now and
    returned when the timer fires or is cancelled. Returns the timer id (an int).
    """
    raise _no_chain("set_timer")


def set_interval(
    every_n_blocks: int,
    handler: _TimerHandler,
    data: _Encodable = None,
    gba: _AddressLike | None = None,
) -> int:
    """Call `handler(data)` every `every_n_blocks` blocks, first at the current height plus
    `every_n_blocks`, until cancelled. A late firing does not shift the schedule: the next one
    is due at the scheduled height plus the interval. Returns the timer id."""
    raise _no_chain("set_interval")


def cancel_timer(timer_id: int) -> int:
    """Cancel one of this actor's pending timers; returns the deposit refunded (wei)."""
    raise _no_chain("cancel_timer")


def randomness(label: str | bytes) -> bytes:
    """32 bytes of HKDF(R_n, label) for the current block (whitepaper §3.4)."""
    raise _no_chain("randomness")


# Off-chain jobs (CIP-2): the PVM module's section of the same name says how they work.

RUNNER_REGISTRY: str = "0x0000000000000000000000000000000000000001"
"""The runner registry's address (0x...01)."""

JOB_DISPATCHER: str = "0x0000000000000000000000000000000000000002"
"""The job dispatcher's address (0x...02): `submit_job` sends the spec there."""

RESULT_VERIFIER: str = "0x0000000000000000000000000000000000000003"
"""The result verifier's address (0x...03): the only caller a continuation accepts."""

CAPTURE_MAX_BYTES: int = 4096
"""Largest `capture()`d context, encoded (it is stored until the continuation runs)."""


class Bounds:
    """A job's resource limits (each at least 1): tokens (input and output), wall-clock
    milliseconds, memory in MiB."""

    __slots__ = ("max_tokens", "max_wall_ms", "max_memory_mb")

    def __init__(self, max_tokens: int = 1, max_wall_ms: int = 10000, max_memory_mb: int = 256) -> None:
        self.max_tokens = max_tokens
        self.max_wall_ms = max_wall_ms
        self.max_memory_mb = max_memory_mb

    def to_spec(self) -> dict[str, int]:
        """The dispatcher's `bounds` map."""
        raise _no_chain("Bounds")


class ResultSchema:
    """The mandatory result schema (CIP-2 §1): the largest result in bytes, the expected
    execution time, and the format ("json" results are read as JSON by the verifier; any other
    text, or a map, as CBOR)."""

    __slots__ = ("max_return_bytes", "data_format", "expected_execution_ms")

    def __init__(
        self,
        max_return_bytes: int,
        data_format: str | dict[str, Any] = "json",
        expected_execution_ms: int = 1000,
    ) -> None:
        self.max_return_bytes = max_return_bytes
        self.data_format = data_format
        self.expected_execution_ms = expected_execution_ms

    def to_spec(self) -> dict[str, Any]:
        """The dispatcher's `result_schema` map."""
        raise _no_chain("ResultSchema")


class Verification:
    """How the verifier decides between the runners' results (CIP-2 §9): a mode, the committee
    size M (`runners`), a threshold N and the mode's parameters. Build one with the static
    methods, which name each mode's parameters."""

    __slots__ = ("mode", "runners", "threshold", "params")

    def __init__(
        self,
        mode: str,
        runners: int | None = None,
        threshold: int | None = None,
        params: dict[str, Any] | None = None,
    ) -> None:
        self.mode = mode
        self.runners = runners
        self.threshold = threshold
        self.params = params

    @staticmethod
    def none() -> Verification:
        """One runner, its result taken as is (development only)."""
        raise _no_chain("Verification")

    @staticmethod
    def economic_bond() -> Verification:
        """One runner, backed by its stake."""
        raise _no_chain("Verification")

    @staticmethod
    def majority_vote(field: str | None = None, runners: int = 3, threshold: int | None = None) -> Verification:
        """`threshold` of `runners` results agree on the value at `field`."""
        raise _no_chain("Verification")

    @staticmethod
    def structured_match(fields: list[dict[str, Any]] | None = None, runners: int = 3) -> Verification:
        """Per field, a majority of the results agree (numbers within a tolerance)."""
        raise _no_chain("Verification")

    @staticmethod
    def deterministic(runners: int = 2) -> Verification:
        """Byte-identical results from at least two runners."""
        raise _no_chain("Verification")

    @staticmethod
    def semantic_similarity(
        runners: int = 3,
        threshold: int = 3,
        field: str | None = None,
        min_similarity_bps: int | None = None,
    ) -> Verification:
        """`threshold` results whose embeddings are within `min_similarity_bps` of each other."""
        raise _no_chain("Verification")

    def to_spec(self) -> dict[str, Any]:
        """The dispatcher's `verification` map."""
        raise _no_chain("Verification")


class JobSpec:
    """A job for the dispatcher (CIP-2 §2). Use LlmJob, HttpJob, McpJob or CustomJob.
    `max_price + tip` (wei) is escrowed from the actor's balance at submission."""

    def __init__(
        self,
        job_type: str,
        input: _Encodable = None,
        *,
        result_schema: ResultSchema,
        verification: Verification,
        max_price: int,
        tip: int = 0,
        timeout_blocks: int = 20,
        bounds: Bounds | None = None,
        model: bytes | None = None,
        domains: list[str] | None = None,
        tee_required: bool = False,
        runner_pool: bytes | None = None,
    ) -> None:
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

    def escrow(self) -> int:
        """The value `submit_job` sends: `max_price + tip`."""
        return self.max_price + self.tip

    def to_spec(self, handler: str) -> dict[str, Any]:
        """The dispatcher's JobSpec map, with the continuation `handler` as the callback."""
        raise _no_chain("JobSpec")


class LlmJob(JobSpec):
    """Inference with the model whose registry hash is `model` (32 bytes)."""

    def __init__(self, model: bytes, input: _Encodable = None, **options: Any) -> None:
        JobSpec.__init__(self, "llm", input, model=model, **options)


class HttpJob(JobSpec):
    """Fetches from `domains` (the runners must serve every one)."""

    def __init__(self, domains: list[str], input: _Encodable = None, **options: Any) -> None:
        JobSpec.__init__(self, "http", input, domains=domains, **options)


class McpJob(JobSpec):
    """A tool call over the Model Context Protocol."""

    def __init__(self, input: _Encodable = None, **options: Any) -> None:
        JobSpec.__init__(self, "mcp", input, **options)


class CustomJob(JobSpec):
    """Any other work runners offer under the "custom" job type."""

    def __init__(self, input: _Encodable = None, **options: Any) -> None:
        JobSpec.__init__(self, "custom", input, **options)


class Captured:
    """Context carried from `submit_job` to the continuation (see `capture`)."""

    __slots__ = ("values",)

    def __init__(self, values: dict[str, Any]) -> None:
        self.values = values

    def __getattr__(self, name: str) -> Any:
        try:
            return self.values[name]
        except KeyError:
            raise AttributeError(f"nothing named {name!r} was captured") from None

    def __repr__(self) -> str:
        return f"Captured({self.values!r})"


def capture(**values: _Encodable) -> Captured:
    """Context for a continuation, checked now: CBOR-encodable, at most CAPTURE_MAX_BYTES."""
    raise _no_chain("capture")


def next_job_id() -> bytes:
    """The id the dispatcher will give this actor's next job."""
    raise _no_chain("next_job_id")


def submit_job(job: JobSpec, continuation: Callable[..., Any], context: Captured | None = None) -> bytes:
    """Submit `job`, escrowing `job.escrow()` wei, with `continuation` (a method decorated
    `@runner.continuation`) as its callback and `context` kept for it. Returns the job id."""
    raise _no_chain("submit_job")


def pending_job(job_id: bytes) -> bool:
    """Whether this actor still waits for `job_id`'s continuation."""
    raise _no_chain("pending_job")


def abandon_job(job_id: bytes) -> Captured | None:
    """Stop waiting for `job_id`: a late result is refused. Returns the captured context."""
    raise _no_chain("abandon_job")


class runner:
    """The runner-facing decorators: `@runner.continuation`."""

    @staticmethod
    def continuation(fn: Callable[..., Any]) -> Callable[..., Any]:
        """Mark `fn(self, job_id, result, context)` as a job's continuation: the chain calls
        `name(job_id, result)`, which runs `fn` once, for the result verifier only."""
        setattr(fn, "__cowboy_continuation__", fn.__name__)
        return fn
