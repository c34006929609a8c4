"""The CPython peer of `benches/actor_call.rs`: the same two invocations on python3, in-process.

The PVM's figures count a whole invocation: a fresh VM, the actor's instance, the arguments
decoded from CBOR, the handler, storage through the host, the result encoded and the writes
handed back. This script does the same work on CPython 3.11 with nothing in between: the
real `examples/actors/token.py` and the PVM's own `cowboy_sdk.py`, over a `pvm_host` written
here in Python whose storage is a dict of encoded bytes. What it leaves out is exactly what
the PVM adds: the sandbox, metering, memory accounting, a VM per call. So the ratio
PVM ÷ CPython is the price of those, per call.

Stand-ins (CPython's standard library has neither): values are encoded with `json` (C) where
the host uses CBOR (Rust), and the EIP-55 checksum of an address hashes with `sha3_256` where
the chain uses keccak256 (the same sponge and cost; a different padding). Both are native on
both sides.

Prints one line per kind, `<kind> <microseconds per call>`; `actor_call.rs` runs it and puts
the figures beside its own.
"""

import hashlib
import json
import os
import sys
import time
import types

HERE = os.path.dirname(os.path.abspath(__file__))
TOKEN = os.path.join(HERE, "..", "..", "..", "examples", "actors", "token.py")
SDK = os.path.join(HERE, "..", "src", "stdlib", "python", "cowboy_sdk.py")


_ENCODER = json.JSONEncoder(separators=(",", ":"))
_DECODER = json.JSONDecoder()


def encode(value):
    return _ENCODER.encode(value).encode()


def decode(data):
    return _DECODER.decode(data.decode())


def checksum(value):
    """EIP-55 form of a 0x-prefixed hex address (see the module doc for the hash)."""
    hexpart = value[2:].lower()
    if len(hexpart) != 40:
        raise ValueError("an address is 20 bytes")
    digest = hashlib.sha3_256(hexpart.encode()).hexdigest()
    return "0x" + "".join(
        c.upper() if c.isalpha() and int(digest[i], 16) >= 8 else c for i, c in enumerate(hexpart)
    )


class Storage:
    """`self.storage`: reads cached for the invocation, writes through, as the PVM's."""

    __slots__ = ("_store", "_cache")

    def __init__(self, store):
        self._store = store
        self._cache = {}

    def get(self, key, default=None):
        if key in self._cache:
            return self._cache[key]
        raw = self._store.get(encode(key))
        value = default if raw is None else decode(raw)
        if raw is not None:
            self._cache[key] = value
        return value

    def __getitem__(self, key):
        value = self.get(key, KeyError)
        if value is KeyError:
            raise KeyError(key)
        return value

    def __setitem__(self, key, value):
        self._cache[key] = value
        self._store[encode(key)] = encode(value)


SENDER = checksum("0x" + "02" * 20)
EVENTS = []


def host_module():
    m = types.ModuleType("pvm_host")
    m.Storage = Storage
    m.encode = encode
    m.decode = decode
    m.address = checksum
    m.sender = lambda: SENDER
    m.emit_event = lambda topic, data: EVENTS.append((topic, data))
    m.storage_get = lambda key: None
    for name in ("SCHEDULER", "RUNNER_REGISTRY", "JOB_DISPATCHER", "RESULT_VERIFIER"):
        setattr(m, name, "0x" + "00" * 19 + "0f")
    return m


def load(path, name):
    module = types.ModuleType(name)
    module.__file__ = path
    with open(path) as f:
        exec(compile(f.read(), path, "exec"), module.__dict__)
    sys.modules[name] = module
    return module


def converters(cls, handler):
    """Per parameter of `cls.handler`, the function its argument goes through: the SDK's
    `Address` for a parameter annotated so, else none. Found once per handler (the PVM keeps
    the same per loaded actor)."""
    function = getattr(cls, handler)
    hints = function.__annotations__
    names = function.__code__.co_varnames[1 : function.__code__.co_argcount]
    address = sys.modules["cowboy_sdk"].Address
    return [address if hints.get(n) is address else None for n in names]


def invoke(cls, convert, store, handler, args_bytes):
    """One invocation: a fresh instance over the store, arguments decoded and annotated
    `Address` parameters normalised, the handler run, its result encoded."""
    actor = cls.__new__(cls)
    actor.storage = Storage(store)
    args = decode(args_bytes)
    args = [a if c is None else c(a) for c, a in zip(convert, args)]
    return encode(getattr(actor, handler)(*args))


def per_call(n, f):
    start = time.perf_counter()
    for i in range(n):
        f(i)
    return (time.perf_counter() - start) * 1e6 / n


def main():
    sys.modules["pvm_host"] = host_module()
    load(SDK, "cowboy_sdk")
    token = load(TOKEN, "token").Token
    store = {}
    deployer = token.__new__(token)
    deployer.storage = Storage(store)
    deployer.__init__("T", 1 << 60)

    class Empty:
        def reads(self, k):
            for _ in range(k):
                sys.modules["pvm_host"].storage_get("x")

    n = 20_000
    to_token = converters(token, "transfer")
    to_empty = converters(Empty, "reads")
    transfer = per_call(
        n,
        lambda i: invoke(token, to_token, store, "transfer", encode(["0x%040x" % (i + 1), 1])),
    )
    empty = per_call(n, lambda i: invoke(Empty, to_empty, store, "reads", encode([0])))
    EVENTS.clear()
    print(f"transfer {transfer:.2f}")
    print(f"empty {empty:.2f}")


if __name__ == "__main__":
    main()
