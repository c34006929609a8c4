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
    "SCHEDULER",
    "Address",
    "BlockInfo",
    "Storage",
    "actor",
    "address",
    "balance",
    "block_info",
    "cancel_timer",
    "emit_event",
    "randomness",
    "self_address",
    "send_message",
    "sender",
    "set_interval",
    "set_timer",
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

    __slots__ = ("_cache", "_stored")

    def __init__(self) -> None:
        self._cache: dict[_StorageKey, Any] = {}
        self._stored: dict[_StorageKey, bytes | None] = {}

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
