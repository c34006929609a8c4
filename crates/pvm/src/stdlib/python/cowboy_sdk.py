"""cowboy_sdk: the actor developer surface (key-innovations.md §3, CIP-6) over pvm_host.

An actor is the class decorated with @actor (or, in the low-level form, a class named Actor).
Each invocation gets a fresh instance whose `storage` attribute is a Storage mapping and whose
other attributes are restored from the previous invocation. Addresses are canonical EIP-55
checksummed strings everywhere (`sender()`, `self_address()`, parameters annotated `Address`,
`address(s)`), so one account is one storage key. Everything here is metered like
any Python code; the host calls are priced by pvm_host (whitepaper §17.3).
"""

import pvm_host

_ABSENT = object()


def actor(cls):
    """Mark `cls` as the module's actor class."""
    cls.__cowboy_actor__ = True
    return cls


class Storage:
    """The actor's persistent key/value storage (keys: str, int or bytes; values: any
    CBOR-encodable value).

    A value read once is cached for the rest of the invocation, so the same object comes back
    and changes made to it in place (`storage["items"].append(x)`) are written back when the
    handler returns successfully. Assignment writes through immediately.
    """

    __slots__ = ("_cache", "_stored")

    def __init__(self):
        self._cache = {}
        self._stored = {}

    def _load(self, key):
        if key in self._cache:
            return self._cache[key]
        raw = pvm_host.storage_get(key)
        value = _ABSENT if raw is None else pvm_host.decode(raw)
        self._cache[key] = value
        self._stored[key] = raw
        return value

    def __getitem__(self, key):
        value = self._load(key)
        if value is _ABSENT:
            raise KeyError(key)
        return value

    def get(self, key, default=None):
        value = self._load(key)
        return default if value is _ABSENT else value

    def __contains__(self, key):
        return self._load(key) is not _ABSENT

    def __setitem__(self, key, value):
        raw = pvm_host.encode(value)
        pvm_host.storage_set(key, raw)
        self._cache[key] = value
        self._stored[key] = raw

    def set(self, key, value):
        self[key] = value

    def __delitem__(self, key):
        if self._load(key) is _ABSENT:
            raise KeyError(key)
        self.delete(key)

    def delete(self, key):
        """Remove `key` (no error if it is absent)."""
        pvm_host.storage_delete(key)
        self._cache[key] = _ABSENT
        self._stored[key] = None

    def pop(self, key, default=_ABSENT):
        value = self._load(key)
        if value is _ABSENT:
            if default is _ABSENT:
                raise KeyError(key)
            return default
        self.delete(key)
        return value

    def setdefault(self, key, default=None):
        value = self._load(key)
        if value is _ABSENT:
            self[key] = default
            return default
        return value

    def _flush(self):
        """Write back values changed in place since they were read or written."""
        for key, value in self._cache.items():
            if value is _ABSENT:
                continue
            try:
                raw = pvm_host.encode(value)
            except TypeError as e:
                raise TypeError(f"storage[{key!r}] can no longer be stored: {e}") from None
            if raw != self._stored[key]:
                pvm_host.storage_set(key, raw)
                self._stored[key] = raw

    def __repr__(self):
        return "<actor storage>"


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
