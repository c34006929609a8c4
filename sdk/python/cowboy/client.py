"""JSON-RPC client of a Cowboy node (``crates/node/RPC.md``).

HTTP requests use only the standard library (``urllib``); subscriptions use WebSocket
(``websockets``) on the same URL and survive disconnects: they reconnect with backoff and
resume without losing or repeating anything (new heads are gap-filled with
``cowboy_getBlockByNumber``, events re-queried with ``cowboy_getEvents`` from the last block
seen).

>>> from cowboy import Client, dev_account
>>> c = Client("http://127.0.0.1:8545")
>>> me = dev_account(0)
>>> address, receipt = c.deploy(me, open("examples/actors/counter.py").read())
>>> c.call(me, address, "increment", [2])
2
>>> c.view(address, "get")
2
>>> c.get_storage(address, "count").value     # verified against the block's state root
2

Amounts (balances, values, fees) are Python ints in the smallest unit; the JSON decimal strings
of the RPC are converted in the objects this client returns. CBOR values (return values, event
data, storage values) are decoded with :mod:`cowboy.cbor`, exactly, from their bytes.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import random
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any, AsyncIterator, Dict, List, Optional, Sequence, Tuple, Union
from urllib.parse import urlsplit, urlunsplit

from . import cbor
from .crypto import address_bytes, canonicalize_source, code_hash, actor_address, hex0x, keccak256, to_bytes, to_checksum_address
from .errors import (
    ActorError,
    CowboyError,
    ProofError,
    ReceiptTimeout,
    RpcError,
    TimerGone,
    TimerTimeout,
    TransactionRejected,
)
from .proof import Inclusion, verify_inclusion, verify_storage
from .tx import Call, Deploy, Transaction, encode_args
from .wallet import Impersonated, Wallet, salt_bytes

__all__ = ["Client", "StorageValue", "Subscription", "MAX_EVENT_BLOCKS", "SCHEDULER", "STAKING"]

#: The timer scheduler's system address: the ``sender()`` of every timer handler, and the
#: owner of the timer queue's storage.
SCHEDULER = "0x000000000000000000000000000000000000000D"

#: The staking system actor (``cowboy_types::system::STAKING``): the validator registry, whose
#: handlers :meth:`Client.register_validator` and the methods after it call.
STAKING = "0x000000000000000000000000000000000000000F"

#: Most blocks one ``cowboy_getEvents`` query may span.
MAX_EVENT_BLOCKS = 10_000

_AMOUNT_FIELDS = frozenset(
    {
        "balance", "value", "feePaid", "cycleBasefee", "cellBasefee", "tipPerCycle", "tipPerCell",
        "maxFeePerCycle", "maxFeePerCell", "deposit",
    }
)

TxHash = Union[str, bytes]


def _amounts(obj: Any) -> Any:
    """Converts the decimal-string amount fields of an RPC object (and nested transactions) to ints."""
    if isinstance(obj, dict):
        out = {}
        for k, v in obj.items():
            if k in _AMOUNT_FIELDS and isinstance(v, str):
                try:
                    v = int(v)
                except ValueError:
                    pass
            elif k in ("transactions", "timerExecutions") and isinstance(v, list):
                v = [_amounts(t) for t in v]
            out[k] = v
        return out
    return obj


def _block(block: Optional[int]) -> Any:
    """A read's block parameter: a height, or ``"latest"``."""
    if block is None:
        return "latest"
    if isinstance(block, bool) or not isinstance(block, int) or block < 0:
        raise ValueError(f"block must be a non-negative height, got {block!r}")
    return block


def _hash_hex(h: TxHash) -> str:
    if isinstance(h, (bytes, bytearray)):
        if len(h) != 32:
            raise ValueError("a hash is 32 bytes")
        return hex0x(h)
    b = to_bytes(h, 32, "hash")
    return hex0x(b)


def _decode_data(hex_text: Optional[str]) -> Any:
    """Decodes a ``bytes`` field holding CBOR; empty or absent is None."""
    if not hex_text or hex_text in ("0x", "0X"):
        return None
    return cbor.decode_hex(hex_text)


def _validator_keys(bls_key: Union[bytes, str], pop: Union[bytes, str], consensus_key: Union[bytes, str]) -> list:
    """The arguments of the staking actor's ``register`` and ``rotate_keys``, as bytes. Their
    lengths and validity are the actor's to check: its refusal names the bad one."""
    return [to_bytes(bls_key, None, "bls_key"), to_bytes(pop, None, "pop"), to_bytes(consensus_key, None, "consensus_key")]


def storage_key_bytes(key: Any) -> bytes:
    """The raw storage key an actor's ``self.storage[key]`` uses: the canonical CBOR of the key
    (str, int or bytes)."""
    if isinstance(key, bool) or not isinstance(key, (str, int, bytes, bytearray)):
        raise TypeError(f"storage keys are str, int or bytes, got {type(key).__name__}")
    return cbor.encode(bytes(key) if isinstance(key, bytearray) else key)


@dataclass
class StorageValue:
    """One storage entry read with ``cowboy_getStorage``."""

    address: str
    key: bytes
    """The raw storage key (canonical CBOR of the Python key)."""
    raw: Optional[bytes]
    """The stored bytes (canonical CBOR), or None when the entry is absent."""
    proof: bytes
    state_root: str
    height: int
    verified: bool

    @property
    def exists(self) -> bool:
        return self.raw is not None

    @property
    def value(self) -> Any:
        """The decoded value (None when absent)."""
        return None if self.raw is None else cbor.decode(self.raw)


class Client:
    """A JSON-RPC client. ``url`` is the node's HTTP URL; WebSocket uses the same address."""

    def __init__(self, url: str = "http://127.0.0.1:8545", *, timeout: float = 30.0, ws_url: Optional[str] = None):
        self.url = url
        self.timeout = timeout
        parts = urlsplit(url)
        if ws_url is None:
            scheme = {"http": "ws", "https": "wss"}.get(parts.scheme, parts.scheme)
            ws_url = urlunsplit((scheme, parts.netloc, parts.path or "/", parts.query, ""))
        self.ws_url = ws_url
        self._ids = itertools.count(1)
        self._chain_id: Optional[int] = None
        self._nonces: Dict[str, int] = {}
        self._lock = threading.Lock()
        self._on_demand: Optional[bool] = None

    def __repr__(self) -> str:
        return f"Client({self.url!r})"

    # -- transport ---------------------------------------------------------------------------

    def _post(self, body: Any) -> Any:
        data = json.dumps(body).encode()
        req = urllib.request.Request(self.url, data=data, headers={"Content-Type": "application/json"}, method="POST")
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                raw = resp.read()
        except urllib.error.HTTPError as e:
            raw = e.read()
            try:
                return json.loads(raw)
            except ValueError:
                raise RpcError(None, f"HTTP {e.code} from {self.url}: {raw[:200]!r}") from None
        except (urllib.error.URLError, OSError) as e:
            raise RpcError(None, f"cannot reach {self.url}: {getattr(e, 'reason', e)}") from None
        try:
            return json.loads(raw)
        except ValueError:
            raise RpcError(None, f"invalid JSON from {self.url}: {raw[:200]!r}") from None

    @staticmethod
    def _error(err: Dict[str, Any]) -> RpcError:
        code = err.get("code")
        message = err.get("message", "")
        data = err.get("data")
        if code == -32000 and isinstance(data, dict) and "reason" in data:
            return TransactionRejected(data["reason"], data.get("message", message), code, data)
        return RpcError(code, message, data)

    def request(self, method: str, params: Sequence[Any] = ()) -> Any:
        """Sends one request and returns its ``result`` (raises :class:`RpcError`)."""
        rid = next(self._ids)
        resp = self._post({"jsonrpc": "2.0", "id": rid, "method": method, "params": list(params)})
        if not isinstance(resp, dict):
            raise RpcError(None, f"unexpected response to {method}: {resp!r}")
        if resp.get("error") is not None:
            raise self._error(resp["error"])
        return resp.get("result")

    def batch(self, calls: Sequence[Tuple[str, Sequence[Any]]]) -> List[Any]:
        """Sends several requests in one JSON-RPC batch; returns results in order, with an
        :class:`RpcError` instance in place of each failed one."""
        if not calls:
            return []
        ids = [next(self._ids) for _ in calls]
        body = [{"jsonrpc": "2.0", "id": i, "method": m, "params": list(p)} for i, (m, p) in zip(ids, calls)]
        resp = self._post(body)
        if isinstance(resp, dict) and resp.get("error") is not None:
            raise self._error(resp["error"])
        by_id = {r.get("id"): r for r in resp}
        out: List[Any] = []
        for i in ids:
            r = by_id.get(i)
            if r is None:
                out.append(RpcError(None, f"no response for batch item {i}"))
            elif r.get("error") is not None:
                out.append(self._error(r["error"]))
            else:
                out.append(r.get("result"))
        return out

    # -- plain methods -----------------------------------------------------------------------

    def chain_id(self) -> int:
        """``cowboy_chainId`` (cached)."""
        if self._chain_id is None:
            self._chain_id = int(self.request("cowboy_chainId"))
        return self._chain_id

    def block_number(self) -> int:
        """Height of the last finalized block."""
        return int(self.request("cowboy_blockNumber"))

    def basefees(self) -> Dict[str, int]:
        """``{cycleBasefee, cellBasefee}`` in force for the next block, as ints."""
        return _amounts(self.request("cowboy_basefees"))

    def send_raw_transaction(self, raw: Union[bytes, Transaction]) -> str:
        """Submits a signed transaction (bytes or :class:`Transaction`); returns its hash."""
        if isinstance(raw, Transaction):
            raw = raw.encode()
        return self.request("cowboy_sendRawTransaction", [hex0x(raw)])

    def get_transaction(self, tx_hash: TxHash) -> Optional[dict]:
        return _amounts(self.request("cowboy_getTransaction", [_hash_hex(tx_hash)]))

    def get_receipt(self, tx_hash: TxHash) -> Optional[dict]:
        """The receipt, or None while the transaction is not in a finalized block."""
        return self._receipt(self.request("cowboy_getReceipt", [_hash_hex(tx_hash)]))

    def get_transaction_proof(self, tx_hash: TxHash, verify: bool = True) -> Optional[dict]:
        """A finalized transaction and its receipt, each with the proof that puts it in its
        block (``cowboy_getTransactionProof``), or None while it is not in a finalized block.
        ``header``, ``transaction`` and ``receipt`` are the canonical CBOR bytes,
        ``transactionProof`` and ``receiptProof`` :class:`~cowboy.proof.Inclusion` paths.

        With ``verify`` (the default) the answer is checked with nothing but itself: the
        header hashes to ``blockHash``, the transaction to ``transactionHash``, and each path
        rebuilds the header's ``tx_root`` or ``receipts_root`` (:func:`~cowboy.proof.verify_inclusion`);
        any failure raises :class:`ProofError`. Whether ``blockHash`` itself is final is the
        caller's to trust (a finality certificate, or a node it trusts)."""
        r = self.request("cowboy_getTransactionProof", [_hash_hex(tx_hash)])
        if r is None:
            return None
        out = dict(r)
        for name in ("header", "transaction", "receipt"):
            out[name] = to_bytes(r[name], what=name)
        out["transactionProof"] = Inclusion.from_json(r["transactionProof"])
        out["receiptProof"] = Inclusion.from_json(r["receiptProof"])
        if verify:
            if keccak256(out["header"]) != to_bytes(r["blockHash"], what="blockHash"):
                raise ProofError("ClaimMismatch", "the header does not hash to blockHash")
            tx = keccak256(out["transaction"])
            if tx != to_bytes(r["transactionHash"], what="transactionHash"):
                raise ProofError("ClaimMismatch", "the transaction does not hash to its hash")
            # BlockHeader = [parent_hash, height, timestamp_ms, proposer, state_root, tx_root,
            # receipts_root, …] (crates/types/README.md).
            fields = cbor.decode(out["header"])
            verify_inclusion(fields[5], tx, out["transactionProof"])
            verify_inclusion(fields[6], keccak256(out["receipt"]), out["receiptProof"])
        out["verified"] = verify
        return out

    @staticmethod
    def _receipt(r: Optional[dict]) -> Optional[dict]:
        if r is None:
            return None
        r = _amounts(r)
        r["events"] = [Client._event(e) for e in r.get("events") or []]
        return r

    @staticmethod
    def _event(e: dict) -> dict:
        e = dict(e)
        try:
            e["value"] = _decode_data(e.get("data"))
        except CowboyError:
            e["value"] = None
        return e

    def wait_for_receipt(self, tx_hash: TxHash, timeout: float = 60.0, poll: float = 0.1) -> dict:
        """Polls ``cowboy_getReceipt`` until the transaction is finalized."""
        h = _hash_hex(tx_hash)
        deadline = time.monotonic() + timeout
        delay = poll
        while True:
            r = self.get_receipt(h)
            if r is not None:
                return r
            if time.monotonic() >= deadline:
                raise ReceiptTimeout(h, timeout)
            time.sleep(min(delay, max(0.0, deadline - time.monotonic())))
            delay = min(delay * 1.5, 1.0)

    def get_block(self, tag_or_hash: Union[int, str, bytes] = "latest", full: bool = False) -> Optional[dict]:
        """A block by height, ``"latest"``, or hash (``0x`` + 64 hex digits, or 32 bytes)."""
        if isinstance(tag_or_hash, (bytes, bytearray)) or (
            isinstance(tag_or_hash, str) and tag_or_hash != "latest" and len(tag_or_hash.removeprefix("0x")) == 64
        ):
            return _amounts(self.request("cowboy_getBlockByHash", [_hash_hex(tag_or_hash), full]))
        if isinstance(tag_or_hash, str) and tag_or_hash != "latest":
            raise ValueError(f"block tag must be a height, 'latest' or a hash, got {tag_or_hash!r}")
        return _amounts(self.request("cowboy_getBlockByNumber", [tag_or_hash, full]))

    def get_account(self, address: str, block: Optional[int] = None) -> dict:
        """``{address, balance, nonce, codeHash, isActor, height}`` (balance as int), as of the
        end of block ``block`` (a height within the node's history window) or the latest."""
        return _amounts(self.request("cowboy_getAccount", [to_checksum_address(address), _block(block)]))

    def get_balance(self, address: str, block: Optional[int] = None) -> int:
        return self.get_account(address, block)["balance"]

    def get_actor_source(self, address: str, block: Optional[int] = None) -> Optional[dict]:
        """``{address, codeHash, source}`` or None if there is no actor there."""
        return self.request("cowboy_getActorSource", [to_checksum_address(address), _block(block)])

    def trace_transaction(self, tx_hash: Any) -> dict:
        """``cowboy_traceTransaction``: the node re-executes a finalized transaction and returns
        its call tree: ``{transactionHash, blockHeight, index, success, cyclesUsed, cellsUsed,
        error, calls}``, each call ``{kind, from, to, handler, value, depth, cycles, cells,
        success, returnValue, error, events, storage, calls}`` (``calls``: the messages it
        sent). The block's parent must be within the node's history window."""
        return self.request("cowboy_traceTransaction", [_hash_hex(tx_hash)])

    def get_storage(
        self, address: str, key: Any, verify: bool = True, *, raw_key: bool = False, block: Optional[int] = None
    ) -> StorageValue:
        """Reads storage entry ``key`` of the actor at ``address``.

        ``key`` is what the actor uses (``self.storage["count"]`` → ``"count"``: a str, int or
        bytes, sent as its canonical CBOR), or, with ``raw_key=True``, the raw key bytes.
        With ``verify`` (the default) the proof is checked against the returned state root and
        that root against the header of the block it names; a mismatch raises
        :class:`~cowboy.errors.ProofError`. With ``block`` (a height) the entry is read as of the
        end of that block; proofs are of the latest state only, so such an entry has no proof
        (``proof`` is empty and ``verified`` False) unless ``block`` is the latest.
        """
        k = to_bytes(key, what="key") if raw_key else storage_key_bytes(key)
        addr = to_checksum_address(address)
        r = self.request("cowboy_getStorage", [addr, hex0x(k), _block(block)])
        raw = None if r.get("value") is None else to_bytes(r["value"], what="value")
        proof = b"" if r.get("proof") is None else to_bytes(r["proof"], what="proof")
        entry = StorageValue(addr, k, raw, proof, r["stateRoot"], int(r["height"]), False)
        if r.get("proof") is None:
            if block is None:
                raise ProofError("MissingProof", "the node's answer lacks a proof")
            return entry
        if verify:
            verify_storage(entry.state_root, addr, k, raw, proof)
            header = self.get_block(entry.height)
            if header is None or header.get("stateRoot", "").lower() != entry.state_root.lower():
                raise ProofError("RootMismatch", f"stateRoot is not the state root of block {entry.height}")
            entry.verified = True
        return entry

    def simulate(
        self,
        to: str,
        handler: str,
        args: Any = None,
        value: int = 0,
        sender: Optional[str] = None,
        block: Optional[int] = None,
    ) -> dict:
        """``cowboy_call``: runs ``handler`` read-only against the latest state (or, with
        ``block``, the state as of the end of that block) and returns the full result
        (``success``, ``returnData``, ``value`` (decoded), ``cyclesUsed``, ``events``,
        ``error``…)."""
        obj: Dict[str, Any] = {
            "to": to_checksum_address(to),
            "handler": handler,
            "args": hex0x(cbor.encode(encode_args(args))),
            "value": str(int(value)),
        }
        if sender is not None:
            obj["from"] = to_checksum_address(sender if isinstance(sender, str) else sender.address)
        r = self.request("cowboy_call", [obj, _block(block)])
        r["value"] = _decode_data(r.get("returnData"))
        r["events"] = [self._event(e) for e in r.get("events") or []]
        return r

    def view(
        self,
        to: str,
        handler: str,
        args: Any = None,
        value: int = 0,
        sender: Optional[str] = None,
        block: Optional[int] = None,
    ) -> Any:
        """Runs ``handler`` read-only (as of the end of ``block``, default the latest) and
        returns its decoded return value; a failure raises :class:`~cowboy.errors.ActorError`."""
        r = self.simulate(to, handler, args, value, sender, block)
        if not r.get("success"):
            raise self._actor_error(r.get("error"), None, to, handler, simulated=True)
        return r["value"]

    def estimate_fee(
        self,
        to: Optional[str] = None,
        payload: bytes = b"",
        value: int = 0,
        sender: Optional[str] = None,
        block: Optional[int] = None,
    ) -> dict:
        """``cowboy_estimateFee`` with amounts as ints; ``block``: simulate on the state as of
        that height (default the latest)."""
        obj: Dict[str, Any] = {"payload": hex0x(payload), "value": str(int(value))}
        if to is not None:
            obj["to"] = to_checksum_address(to)
        if sender is not None:
            obj["from"] = to_checksum_address(sender)
        return _amounts(self.request("cowboy_estimateFee", [obj, _block(block)]))

    def get_events(
        self,
        address: Optional[str] = None,
        topic: Optional[str] = None,
        from_block: Optional[int] = None,
        to_block: Optional[int] = None,
    ) -> List[dict]:
        """``cowboy_getEvents`` (at most 10,000 blocks per query); each event also gets
        ``value``, its data decoded."""
        f: Dict[str, Any] = {}
        if address is not None:
            f["address"] = to_checksum_address(address)
        if topic is not None:
            f["topic"] = topic
        if from_block is not None:
            f["fromBlock"] = int(from_block)
        if to_block is not None:
            f["toBlock"] = int(to_block)
        return [self._event(e) for e in self.request("cowboy_getEvents", [f])]

    # -- timers ------------------------------------------------------------------------------

    @staticmethod
    def _timer(t: Optional[dict]) -> Optional[dict]:
        if t is None:
            return None
        t = _amounts(t)
        try:
            t["value"] = _decode_data(t.get("data"))
        except CowboyError:
            t["value"] = None
        return t

    def get_timer(self, timer_id: int) -> Optional[dict]:
        """``cowboy_getTimer``: the pending timer ``{id, owner, handler, data, value (data
        decoded), due, every, gba, deposit (int), deferrals}``, or None once it fired (one-shot),
        was cancelled or dropped."""
        return self._timer(self.request("cowboy_getTimer", [int(timer_id)]))

    def get_timer_proof(self, timer_id: int, verify: bool = True) -> "StorageValue":
        """A Merkle proof of timer ``timer_id``'s record, the storage entry ``["timer", id]``
        of the scheduler (``SCHEDULER``, ``0x…0D``), checked against the state root of the
        block it names as :meth:`get_storage` does: what a light client needs to know a timer
        is pending. ``.exists`` is False once it fired (one-shot), was cancelled or dropped."""
        return self.get_storage(SCHEDULER, cbor.encode(["timer", int(timer_id)]), verify, raw_key=True)

    def get_timers(self, address: str) -> List[dict]:
        """``cowboy_getTimers``: the pending timers of the actor at ``address``."""
        return [self._timer(t) for t in self.request("cowboy_getTimers", [to_checksum_address(address)])]

    def get_runners(self) -> List[dict]:
        """``cowboy_getRunners``, every page: each registered runner's ``{address, status,
        effective_stake, reputation, healthy}`` (CIP-2 runner registry, ``0x…01``)."""
        out: List[dict] = []
        start: Optional[int] = 0
        while start is not None:
            page = self.request("cowboy_getRunners", [start])
            out.extend(page["runners"])
            start = page["next"]
        return out

    def get_runner(self, address: str) -> Optional[dict]:
        """``cowboy_getRunner``: the runner's record (profile, stake, reputation, active jobs,
        last heartbeat, health), or None if it is not registered."""
        return self.request("cowboy_getRunner", [to_checksum_address(address)])

    def get_entitlements(self, address: str) -> List[dict]:
        """``cowboy_getEntitlements``, every page: the entitlements ``address`` holds (CIP-2 §7,
        registry ``0x…07``), each ``{id, entitlement, grantor, depth, in_force}``."""
        out: List[dict] = []
        start: Optional[int] = 0
        while start is not None:
            page = self.request("cowboy_getEntitlements", [to_checksum_address(address), start])
            out.extend(page["items"])
            start = page["next"]
        return out

    def get_validator(self, address: str) -> Optional[dict]:
        """``cowboy_getValidator``: the validator's record from the staking actor (``0x…0F``):
        stake, keys, ``status`` (pending, active, jailed, exiting, unbonding), or None."""
        return self.request("cowboy_getValidator", [to_checksum_address(address)])

    def get_validator_set(self, epoch: Optional[int] = None) -> dict:
        """``cowboy_getValidatorSet``: ``{epoch, members}`` for ``epoch`` (default: the
        current one); ``members`` lists ``{validator, power, consensus_key, bls_key}`` ordered
        by address, or is None when the epoch has no set on record."""
        return self.request("cowboy_getValidatorSet", [epoch])

    def get_epoch(self) -> dict:
        """``cowboy_getEpoch``: the current ``{epoch, seed}``."""
        return self.request("cowboy_getEpoch", [])

    def get_job(self, job_id: Union[bytes, str]) -> Optional[dict]:
        """``cowboy_getJob``: the job (spec, submitter, ``status``, ``attempt``, ``seed``,
        ``selected`` (the committee), ``committed``, ``aggregator``, ``escrow``, deadlines) with
        ``outcome``, the verifier's record once it is decided (else None); None if unknown."""
        return self.request("cowboy_getJob", [_hash_hex(job_id)])

    def get_job_candidates(self, job_id: Union[bytes, str]) -> List[list]:
        """``cowboy_getJobCandidates``, every page: the job's candidate snapshot
        ``[address, weight, reputation]`` in address order (what its committee was drawn from)."""
        out: List[list] = []
        start: Optional[int] = 0
        while start is not None:
            page = self.request("cowboy_getJobCandidates", [_hash_hex(job_id), start])
            out.extend(page["candidates"])
            start = page["next"]
        return out

    def get_jobs_of(self, address: str) -> List[dict]:
        """``cowboy_getJobsOf``, every page: the jobs ``address`` submitted, oldest first, as
        ``{job_id, status, attempt}``."""
        out: List[dict] = []
        start: Optional[int] = 0
        while start is not None:
            page = self.request("cowboy_getJobsOf", [to_checksum_address(address), start])
            out.extend(page["jobs"])
            start = page["next"]
        return out

    def get_timer_executions(self, height: Union[int, str] = "latest") -> Optional[List[dict]]:
        """``cowboy_getTimerExecutions``: the timers block ``height`` ran in its
        ``begin_block``, each with its receipt fields (``success``, ``value`` (return value
        decoded), ``feePaid``, ``events``, ``error``…); None above the finalized tip."""
        xs = self.request("cowboy_getTimerExecutions", [height])
        if xs is None:
            return None
        return [self._execution(x) for x in xs]

    def get_hook_events(self, height: Union[int, str] = "latest") -> Optional[dict]:
        """``cowboy_getHookEvents``: ``{"begin": [...], "end": [...]}``, the events block
        ``height``'s system hooks emitted (a downtime jailing; an epoch boundary's
        ``RewardPaid``, ``ValidatorActivated``, ``ValidatorDeactivated``, ``EpochStarted``…),
        each with ``value`` decoded; None above the finalized tip."""
        hooks = self.request("cowboy_getHookEvents", [height])
        if hooks is None:
            return None
        return {phase: [self._event(e) for e in hooks[phase]] for phase in ("begin", "end")}

    @staticmethod
    def _execution(x: dict) -> dict:
        """A timer execution with amounts as ints, events decoded and ``value``, the handler's
        return value decoded."""
        x = Client._receipt(x)
        try:
            x["value"] = _decode_data(x.get("returnData"))
        except CowboyError:
            x["value"] = None
        return x

    def wait_for_block(self, height: int, timeout: float = 60.0, poll: float = 0.1) -> int:
        """Waits until block ``height`` is finalized and returns the tip. A dev node that
        makes blocks on demand (``--block-time 0``) is asked to mine them
        (:meth:`mine`); one with a block time makes them on its own clock."""
        deadline = time.monotonic() + timeout
        while True:
            tip = self.block_number()
            if tip >= height:
                return tip
            if time.monotonic() >= deadline:
                raise TimeoutError(f"block {height} not finalized within {timeout:g}s (tip {tip})")
            if self.mines_on_demand():
                self.mine(min(height - tip, 100))
            else:
                time.sleep(poll)

    def wait_for_timer(
        self, timer_id: int, timeout: float = 60.0, *, from_block: Optional[int] = None, poll: float = 0.1
    ) -> dict:
        """Waits until timer ``timer_id`` runs and returns that execution (as
        :meth:`get_timer_executions` gives it; ``blockHeight`` says where it ran).

        It looks at the executions of every block from ``from_block`` on; by default from the
        timer's current ``due`` height, so for an interval timer this is its next run. If the
        timer is no longer pending when the call starts, ``from_block`` is required (the run may
        already be in the past). Raises :class:`~cowboy.errors.TimerGone` when the timer stops
        being pending without a run in the blocks searched (cancelled or dropped), and
        :class:`~cowboy.errors.TimerTimeout` after ``timeout`` seconds.
        """
        timer_id = int(timer_id)
        if from_block is None:
            t = self.get_timer(timer_id)
            if t is None:
                tip = self.block_number()
                raise TimerGone(timer_id, tip, tip)
            from_block = int(t["due"])
        start = cursor = int(from_block)
        deadline = time.monotonic() + timeout
        while True:
            # The timer's pendency is read before the tip, so a run that ends it lies at or
            # below that tip and is found by the scan below.
            pending = self.get_timer(timer_id) is not None
            tip = self.block_number()
            while cursor <= tip:
                for x in self.get_timer_executions(cursor) or []:
                    if int(x["timerId"]) == timer_id:
                        return x
                cursor += 1
            if not pending:
                raise TimerGone(timer_id, start, tip)
            if time.monotonic() >= deadline:
                raise TimerTimeout(timer_id, timeout, tip)
            if self.mines_on_demand():
                self.mine(1)
            else:
                time.sleep(poll)

    # -- devnet controls (a ``cowboyd --dev`` node only) ---------------------------------------

    def mining(self) -> dict:
        """``dev_mining``: ``{mode: "interval" | "onDemand", blockTimeMs, timeOffsetMs}``."""
        return self.request("dev_mining")

    def mines_on_demand(self) -> bool:
        """Whether the node is a dev node making blocks on demand (cached; False for a node
        without ``--dev``)."""
        if self._on_demand is None:
            try:
                self._on_demand = self.mining()["mode"] == "onDemand"
            except RpcError:
                self._on_demand = False
        return self._on_demand

    def mine(self, blocks: int = 1) -> int:
        """``dev_mine``: builds ``blocks`` blocks now (1 to 10,000) and returns the tip once
        they are final."""
        return int(self.request("dev_mine", [int(blocks)]))

    def increase_time(self, ms: int) -> int:
        """``dev_increaseTime``: moves the node's clock ``ms`` milliseconds forward (block
        timestamps are in ms); returns its total offset. Takes effect on the next block."""
        return int(self.request("dev_increaseTime", [int(ms)]))

    def set_next_block_timestamp(self, ms: int) -> int:
        """``dev_setNextBlockTimestamp``: the next block's timestamp (ms since the epoch; it
        must be after the tip's)."""
        return int(self.request("dev_setNextBlockTimestamp", [int(ms)]))

    def snapshot(self) -> int:
        """``dev_snapshot``: records the tip; returns the id to :meth:`revert` to."""
        return int(self.request("dev_snapshot"))

    def revert(self, snapshot_id: int) -> int:
        """``dev_revert``: the chain goes back to the snapshot's block (later blocks, the
        mempool, this snapshot and later ones are gone); returns the tip's height. Nonces this
        client remembers are forgotten."""
        height = int(self.request("dev_revert", [int(snapshot_id)]))
        with self._lock:
            self._nonces.clear()
        return height

    def set_balance(self, address: str, amount: int, *, timeout: float = 60.0) -> dict:
        """``dev_setBalance``: ``address``'s balance becomes ``amount`` (smallest unit). The
        node sends it as a set-balance transaction of the dev chain, so it is in a block (and
        survives restarts; a revert past it undoes it); waits for that block and returns the
        receipt."""
        h = self.request("dev_setBalance", [to_checksum_address(address), str(int(amount))])
        return self.wait_for_receipt(h, timeout)

    def impersonate(self, address: str) -> Impersonated:
        """An :class:`cowboy.wallet.Impersonated` sender for ``address``: transactions sent
        with it go through ``dev_impersonate`` unsigned and run as ``address`` (a dev node
        only; it pays their fees from its balance)."""
        return Impersonated(address)

    # -- transactions ------------------------------------------------------------------------

    def next_nonce(self, address: str) -> int:
        """The nonce the next transaction of ``address`` should carry."""
        acct = self.get_account(address)
        remote = int(acct.get("pendingNonce", acct["nonce"]))
        with self._lock:
            return max(remote, self._nonces.get(to_checksum_address(address), 0))

    def build_transaction(
        self,
        wallet: Union[Wallet, Impersonated],
        to: Optional[str],
        payload: bytes,
        value: int = 0,
        *,
        force: bool = False,
        **overrides: int,
    ) -> Transaction:
        """A signed transaction with nonce from ``cowboy_getAccount`` and fees and limits from
        ``cowboy_estimateFee`` (each overridable by keyword: ``nonce``, ``cycles_limit``,
        ``cells_limit``, ``max_fee_per_cycle``, ``max_fee_per_cell``, ``tip_per_cycle``,
        ``tip_per_cell``). If the estimate's simulation fails, :class:`ActorError` is raised
        before anything is sent, unless ``force``."""
        known = {"nonce", "cycles_limit", "cells_limit", "max_fee_per_cycle", "max_fee_per_cell", "tip_per_cycle", "tip_per_cell"}
        unknown = set(overrides) - known
        if unknown:
            raise TypeError(f"unknown transaction fields: {sorted(unknown)}")
        est = self.estimate_fee(to, payload, value, wallet.address)
        if est.get("success") is False and not force:
            handler = None
            if to is not None and payload:
                try:
                    handler = cbor.decode(payload)[0]
                except Exception:
                    handler = None
            source = None
            if to is None:
                try:
                    source = cbor.decode(payload)[0]
                except Exception:
                    source = None
            raise self._actor_error(est.get("error"), None, to, handler, simulated=True, source=source)
        nonce = overrides.pop("nonce", None)
        if nonce is None:
            nonce = self.next_nonce(wallet.address)
        fields = {
            "cycles_limit": int(est["cyclesLimit"]),
            "cells_limit": int(est["cellsLimit"]),
            "max_fee_per_cycle": int(est["maxFeePerCycle"]),
            "max_fee_per_cell": int(est["maxFeePerCell"]),
            "tip_per_cycle": int(est["tipPerCycle"]),
            "tip_per_cell": int(est["tipPerCell"]),
        }
        fields.update(overrides)
        tx = Transaction(
            chain_id=self.chain_id(),
            nonce=nonce,
            to=None if to is None else to_checksum_address(to),
            value=int(value),
            payload=bytes(payload),
            **fields,
        )
        return wallet.sign_transaction(tx)

    def send_transaction(
        self, wallet: Union[Wallet, Impersonated], to: Optional[str], payload: bytes, value: int = 0, **kw: Any
    ) -> str:
        """Builds (see :meth:`build_transaction`), signs and submits; returns the hash. An
        :class:`Impersonated` sender's transaction goes unsigned to ``dev_impersonate``."""
        tx = self.build_transaction(wallet, to, payload, value, **kw)
        try:
            if isinstance(wallet, Impersonated):
                h = self.request("dev_impersonate", [wallet.address, hex0x(tx.encode_unsigned())])
            else:
                h = self.send_raw_transaction(tx)
        except TransactionRejected:
            with self._lock:
                self._nonces.pop(wallet.address, None)
            raise
        with self._lock:
            self._nonces[wallet.address] = max(self._nonces.get(wallet.address, 0), tx.nonce + 1)
        return h

    def deploy(
        self,
        wallet: Union[Wallet, Impersonated],
        source: Union[str, bytes],
        args: Any = None,
        salt: Union[None, int, str, bytes] = None,
        *,
        value: int = 0,
        timeout: float = 60.0,
        **kw: Any,
    ) -> Tuple[str, dict]:
        """Deploys an actor and waits for it: returns ``(address, receipt)``. ``args`` go to
        ``__init__`` (list: positional, dict: keyword); ``salt`` defaults to 32 random bytes.
        A failed deploy raises :class:`ActorError`."""
        canonical = canonicalize_source(source)
        salt_b = salt_bytes(salt)
        predicted = actor_address(wallet.address, salt_b, code_hash(canonical))
        payload = Deploy(canonical, salt_b, encode_args(args)).encode()
        h = self.send_transaction(wallet, None, payload, value, **kw)
        receipt = self.wait_for_receipt(h, timeout)
        if not receipt.get("success"):
            raise self._actor_error(receipt.get("error"), receipt, predicted, None, source=canonical)
        got = receipt.get("contractAddress")
        if got is not None and to_checksum_address(got) != predicted:
            raise CowboyError(f"node deployed to {got}, the SDK predicted {predicted}")
        return predicted, receipt

    def call(
        self,
        wallet: Union[Wallet, Impersonated, str],
        to: str,
        handler: Optional[str] = None,
        args: Any = None,
        value: int = 0,
        *,
        timeout: float = 60.0,
        receipt: bool = False,
        **kw: Any,
    ) -> Any:
        """Calls ``handler`` of the actor at ``to`` in a transaction signed by ``wallet``, waits
        for the receipt and returns the decoded return value (``receipt=True``: the tuple
        ``(value, receipt)``). A failure raises :class:`ActorError`.

        Given an address instead of a wallet (``call(to, handler, args)``), this is the
        read-only :meth:`view`.
        """
        if not isinstance(wallet, (Wallet, Impersonated)):
            # call(to, handler, args=None, value=0, sender=None): read-only. The parameters
            # shift one place left: `to` holds the handler, `handler` the args, `args` the value.
            ro_value = args if isinstance(args, int) and not isinstance(args, bool) else value
            return self.view(wallet, to, handler, ro_value, kw.get("sender"))
        if handler is None:
            raise TypeError("call() needs a handler name")
        payload = Call(handler, encode_args(args)).encode()
        h = self.send_transaction(wallet, to, payload, value, **kw)
        r = self.wait_for_receipt(h, timeout)
        if not r.get("success"):
            raise self._actor_error(r.get("error"), r, to, handler)
        result = _decode_data(r.get("returnData"))
        return (result, r) if receipt else result

    def transfer(self, wallet: Union[Wallet, Impersonated], to: str, amount: int, *, timeout: float = 60.0, **kw: Any) -> dict:
        """Sends ``amount`` (smallest unit) to ``to`` and waits; returns the receipt."""
        h = self.send_transaction(wallet, to, b"", amount, **kw)
        r = self.wait_for_receipt(h, timeout)
        if not r.get("success"):
            raise self._actor_error(r.get("error"), r, to, None)
        return r

    def _actor_error(
        self,
        err: Optional[dict],
        receipt: Optional[dict],
        address: Optional[str],
        handler: Optional[str],
        *,
        simulated: bool = False,
        source: Optional[str] = None,
    ) -> ActorError:
        err = err or {}
        line = err.get("line")
        if source is None and address is not None and line:
            try:
                src = self.get_actor_source(address)
                source = src.get("source") if src else None
            except CowboyError:
                source = None
        return ActorError(
            err.get("class") or "TransactionFailed",
            err.get("message") or "",
            line,
            receipt,
            address=None if address is None else to_checksum_address(address),
            handler=handler,
            source=source,
            simulated=simulated,
        )

    # -- validators (the staking actor, ``0x…0F``) -------------------------------------------
    #
    # The sender is the validator. Handler names and arguments are exec's
    # (crates/exec/src/system/staking/mod.rs). A refusal is the actor's typed error: an
    # ActorError whose ``class_name`` is the StakingError variant (``StakeTooLow``,
    # ``BadProofOfPossession``, ``StillBonded``…); a refusal the fee estimate's simulation
    # already shows is raised before anything is sent (``simulated=True``), unless ``force``.
    # Each returns the receipt of the mined transaction; what the actor did is in its events.

    def _staking(
        self, wallet: Union[Wallet, Impersonated], handler: str, args: list, value: int, timeout: float, kw: Any
    ) -> dict:
        _, r = self.call(wallet, STAKING, handler, args, value, timeout=timeout, receipt=True, **kw)
        return r

    def register_validator(
        self,
        wallet: Union[Wallet, Impersonated],
        stake: int,
        bls_key: Union[bytes, str],
        pop: Union[bytes, str],
        consensus_key: Union[bytes, str],
        *,
        timeout: float = 60.0,
        **kw: Any,
    ) -> dict:
        """Registers ``wallet``'s account as a validator with ``stake`` (smallest unit; at
        least the genesis ``minimum_validator_stake_wei``) bonded from its balance, and waits;
        returns the receipt (event ``ValidatorRegistered`` with ``active_from_epoch``).

        The keys (bytes or ``0x`` hex) are those of the node's ``--validator-key`` file:
        ``bls_key`` the compressed BLS12-381 key (48 bytes), ``pop`` its proof of possession
        signed for this account's address (96 bytes), ``consensus_key`` the Ed25519 key (32
        bytes). The SDK cannot sign BLS; ``cowboy validator key-args --validator-key FILE
        --for ADDRESS`` prints the three as JSON. The validator is ``pending`` until the next
        epoch boundary, where it joins the active set."""
        args = _validator_keys(bls_key, pop, consensus_key)
        return self._staking(wallet, "register", args, stake, timeout, kw)

    def rotate_validator_keys(
        self,
        wallet: Union[Wallet, Impersonated],
        bls_key: Union[bytes, str],
        pop: Union[bytes, str],
        consensus_key: Union[bytes, str],
        *,
        timeout: float = 60.0,
        **kw: Any,
    ) -> dict:
        """Replaces the validator's keys (as :meth:`register_validator` takes them, the proof
        signed for this account) and waits; returns the receipt (event ``KeysRotated`` with
        ``effective_epoch``). The record shows them as ``next_keys`` until the next epoch
        boundary, where they replace the current ones; the new keys are claimed at once, so no
        other validator can take them meanwhile. A second rotation in the same epoch replaces
        the first."""
        args = _validator_keys(bls_key, pop, consensus_key)
        return self._staking(wallet, "rotate_keys", args, 0, timeout, kw)

    def add_stake(self, wallet: Union[Wallet, Impersonated], amount: int, *, timeout: float = 60.0, **kw: Any) -> dict:
        """Bonds ``amount`` more (smallest unit, more than 0) to the validator's stake and
        waits; returns the receipt (event ``StakeAdded`` with the new ``stake``). The record's
        stake rises at once; the voting power follows at the next epoch boundary. Refused
        once the validator has signalled its exit."""
        return self._staking(wallet, "add_stake", [], amount, timeout, kw)

    def signal_exit(self, wallet: Union[Wallet, Impersonated], *, timeout: float = 60.0, **kw: Any) -> dict:
        """Announces that the validator leaves (``cowboy validator exit``) and waits; returns
        the receipt (event ``ExitSignalled`` with ``withdraw_at``, the first height at which
        :meth:`withdraw_stake` succeeds: now plus the unbonding period in blocks). An active
        validator leaves the set at the next epoch boundary (status ``exiting`` until then,
        ``unbonding`` after); a pending one never joins (``unbonding`` at once). It cannot add
        stake or rotate keys any more."""
        return self._staking(wallet, "signal_exit", [], 0, timeout, kw)

    def withdraw_stake(self, wallet: Union[Wallet, Impersonated], *, timeout: float = 60.0, **kw: Any) -> dict:
        """Pays the whole stake back to the validator's account and forgets its record and
        keys, and waits; returns the receipt (event ``Withdrawn`` with ``amount``). Only after
        :meth:`signal_exit`, once the unbonding period is over and the validator is out of the
        active set; before that the actor refuses it (``StillBonded``, naming the height at
        which it unbonds) and nothing changes."""
        return self._staking(wallet, "withdraw", [], 0, timeout, kw)

    def unjail(self, wallet: Union[Wallet, Impersonated], *, timeout: float = 60.0, **kw: Any) -> dict:
        """Ends a jailed validator's jailing once the jail period is over, and waits; returns
        the receipt (event ``Unjailed``). It rejoins the active set at the next epoch
        boundary. Refused (``StillJailed``) before the period ends and
        (``NotJailed``) for a validator that is not jailed."""
        return self._staking(wallet, "unjail", [], 0, timeout, kw)

    # -- subscriptions -----------------------------------------------------------------------

    def subscribe_new_heads(self, since: Optional[int] = None, **kw: Any) -> "Subscription":
        """``async for head in client.subscribe_new_heads():`` — every finalized block header,
        in order, exactly once (gaps after a reconnect are filled by query). ``since``: also
        deliver the blocks from that height on first."""
        return _HeadsSubscription(self, since, **kw)

    def subscribe_events(
        self, address: Optional[str] = None, topic: Optional[str] = None, from_block: Optional[int] = None, **kw: Any
    ) -> "Subscription":
        """``async for event in client.subscribe_events(address, topic):`` — matching events in
        chain order, exactly once across reconnects. ``from_block``: start with the events of
        that block on (by query)."""
        return _EventsSubscription(self, address, topic, from_block, **kw)

    def subscribe_timers(
        self, owner: Optional[str] = None, timer_id: Optional[int] = None, from_block: Optional[int] = None, **kw: Any
    ) -> "Subscription":
        """``async for x in client.subscribe_timers(owner):`` — timer executions (optionally of
        one owner and/or one timer id) in chain order, exactly once across reconnects (missed
        blocks are re-read with ``cowboy_getTimerExecutions``). ``from_block``: start with the
        executions of that block on."""
        return _TimersSubscription(self, owner, timer_id, from_block, **kw)

    def subscribe_receipt(self, tx_hash: TxHash, **kw: Any) -> "Subscription":
        """The receipt of ``tx_hash`` once finalized: ``await client.subscribe_receipt(h)`` or
        ``async for r in …`` (yields once)."""
        return _ReceiptSubscription(self, _hash_hex(tx_hash), **kw)


# ---------------------------------------------------------------------------------------------
# WebSocket subscriptions


def _ws_connect(url: str, open_timeout: float):
    try:
        from websockets.asyncio.client import connect
    except ImportError:  # websockets < 13
        from websockets import connect  # type: ignore
    return connect(url, open_timeout=open_timeout, max_size=16 << 20, ping_interval=20)


class _Dropped(Exception):
    """The connection or the server-side subscription ended."""


class Subscription:
    """An async iterator over subscription notifications that reconnects on its own.

    ``reconnects`` counts the reconnections so far. ``max_retries`` (None: forever) bounds
    consecutive failed attempts; ``backoff``/``max_backoff`` shape the exponential delay
    between them. ``await sub.aclose()`` (or leaving ``async with``) ends it.
    """

    kind: str = ""

    def __init__(
        self,
        client: Client,
        *,
        backoff: float = 0.1,
        max_backoff: float = 5.0,
        max_retries: Optional[int] = None,
        open_timeout: float = 10.0,
    ):
        self.client = client
        self.backoff = backoff
        self.max_backoff = max_backoff
        self.max_retries = max_retries
        self.open_timeout = open_timeout
        self.reconnects = 0
        self.subscription_id: Any = None
        self._ws: Any = None
        self._gen: Optional[AsyncIterator[Any]] = None
        self._closed = False
        self._ids = itertools.count(1)

    def params(self) -> list:
        raise NotImplementedError

    def __aiter__(self):
        return self

    async def __anext__(self):
        if self._gen is None:
            self._gen = self._run()
        return await self._gen.__anext__()

    async def __aenter__(self):
        return self

    async def __aexit__(self, *exc):
        await self.aclose()

    async def aclose(self) -> None:
        self._closed = True
        if self._gen is not None:
            try:
                await self._gen.aclose()
            except RuntimeError:
                pass  # being iterated by another task: closing the socket ends it
        await self._close_ws()

    async def drop_connection(self) -> None:
        """Closes the current WebSocket as a network failure would (for tests): the
        subscription reconnects and resumes."""
        if self._ws is not None:
            await self._ws.close()

    async def _close_ws(self) -> None:
        ws, self._ws = self._ws, None
        if ws is not None:
            try:
                await ws.close()
            except Exception:
                pass

    async def _rpc(self, method: str, params: Sequence[Any]) -> Any:
        """A request over a thread (HTTP), so the event loop keeps running."""
        return await asyncio.to_thread(self.client.request, method, params)

    async def _connect(self) -> None:
        """(Re)connects and subscribes, with backoff; sets ``subscription_id``."""
        failures = 0
        delay = self.backoff
        while True:
            try:
                ws = await _ws_connect(self.client.ws_url, self.open_timeout)
                self._ws = ws
                rid = next(self._ids)
                await ws.send(json.dumps({"jsonrpc": "2.0", "id": rid, "method": "cowboy_subscribe", "params": self.params()}))
                while True:
                    msg = json.loads(await asyncio.wait_for(ws.recv(), self.open_timeout))
                    if msg.get("id") == rid:
                        break
                if msg.get("error") is not None:
                    err = Client._error(msg["error"])
                    if err.code is not None and err.code != -32005:
                        raise err  # invalid params etc.: retrying cannot help
                    raise _Dropped(str(err))
                self.subscription_id = msg.get("result")
                return
            except RpcError as e:
                if e.code is not None and e.code != -32005:
                    await self._close_ws()
                    raise
                err: Exception = e
            except (OSError, asyncio.TimeoutError, _Dropped, ValueError) as e:
                err = e
            except Exception as e:  # websockets' own exceptions (ConnectionClosed, InvalidHandshake…)
                if not type(e).__module__.startswith("websockets"):
                    raise
                err = e
            await self._close_ws()
            failures += 1
            if self.max_retries is not None and failures > self.max_retries:
                raise RpcError(None, f"subscription {self.kind}: giving up after {failures} attempts: {err}")
            await asyncio.sleep(delay * (0.5 + random.random()))
            delay = min(delay * 2, self.max_backoff)

    async def _notifications(self):
        """Yields notification payloads until the connection drops (then returns)."""
        ws = self._ws
        while True:
            try:
                raw = await ws.recv()
            except Exception as e:
                if isinstance(e, asyncio.CancelledError):
                    raise
                return
            try:
                msg = json.loads(raw)
            except ValueError:
                continue
            if msg.get("method") != "cowboy_subscription":
                continue
            p = msg.get("params") or {}
            if p.get("subscription") != self.subscription_id:
                continue
            if "error" in p and "result" not in p:
                return  # the server ended the subscription (e.g. lagging): resubscribe
            yield p.get("result")

    async def _run(self):
        raise NotImplementedError
        yield  # pragma: no cover


class _HeadsSubscription(Subscription):
    kind = "newHeads"

    def __init__(self, client: Client, since: Optional[int], **kw: Any):
        super().__init__(client, **kw)
        self.next_height: Optional[int] = since

    def params(self) -> list:
        return ["newHeads"]

    async def _fill(self, upto: int):
        while self.next_height is not None and self.next_height <= upto:
            b = await self._rpc("cowboy_getBlockByNumber", [self.next_height, False])
            if b is None:
                return
            self.next_height = int(b["height"]) + 1
            yield _amounts(b)

    async def _run(self):
        first = True
        try:
            while not self._closed:
                await self._connect()
                if not first:
                    self.reconnects += 1
                first = False
                if self.next_height is not None:
                    tip = int(await self._rpc("cowboy_blockNumber", []))
                    async for b in self._fill(tip):
                        yield b
                async for head in self._notifications():
                    h = int(head["height"])
                    if self.next_height is not None:
                        if h < self.next_height:
                            continue
                        if h > self.next_height:
                            async for b in self._fill(h - 1):
                                yield b
                    self.next_height = h + 1
                    yield _amounts(head)
                await self._close_ws()
        finally:
            await self._close_ws()


class _EventsSubscription(Subscription):
    kind = "events"

    def __init__(self, client: Client, address: Optional[str], topic: Optional[str], from_block: Optional[int], **kw: Any):
        super().__init__(client, **kw)
        self.address = None if address is None else to_checksum_address(address)
        self.topic = topic
        self.from_block = from_block
        # Every event in blocks below `cursor` has been delivered; `seen` holds the keys of the
        # events of block `cursor` delivered so far.
        self.cursor: Optional[int] = None
        self.seen: set = set()

    def params(self) -> list:
        f: Dict[str, Any] = {}
        if self.address is not None:
            f["address"] = self.address
        if self.topic is not None:
            f["topic"] = self.topic
        return ["events", f]

    @staticmethod
    def _key(e: dict) -> tuple:
        # A timer handler's event has no transaction hash; its execution's hash tells it apart,
        # and a block hook's event its phase (each phase numbers its events from 0).
        return (
            int(e["blockHeight"]),
            e.get("transactionHash"),
            e.get("timerExecutionHash"),
            e.get("hook"),
            int(e.get("index", 0)),
        )

    def _fresh(self, e: dict) -> bool:
        h = int(e["blockHeight"])
        if self.cursor is None:
            return True
        if h < self.cursor:
            return False
        if h == self.cursor and self._key(e) in self.seen:
            return False
        return True

    def _mark(self, e: dict) -> None:
        h = int(e["blockHeight"])
        if self.cursor is None or h > self.cursor:
            self.cursor = h
            self.seen = set()
        self.seen.add(self._key(e))

    async def _catch_up(self, start: int, tip: int):
        a = start
        while a <= tip:
            b = min(a + MAX_EVENT_BLOCKS - 1, tip)
            f: Dict[str, Any] = {"fromBlock": a, "toBlock": b}
            if self.address is not None:
                f["address"] = self.address
            if self.topic is not None:
                f["topic"] = self.topic
            for e in await self._rpc("cowboy_getEvents", [f]):
                if self._fresh(e):
                    self._mark(e)
                    yield Client._event(e)
            a = b + 1

    async def _run(self):
        first = True
        try:
            while not self._closed:
                await self._connect()
                if not first:
                    self.reconnects += 1
                tip = int(await self._rpc("cowboy_blockNumber", []))
                start = self.cursor if self.cursor is not None else (self.from_block if first else None)
                first = False
                if start is not None:
                    async for e in self._catch_up(start, tip):
                        yield e
                # Every block up to `tip` is now fully delivered; later ones stream.
                if self.cursor is None or self.cursor <= tip:
                    self.cursor, self.seen = tip + 1, set()
                async for e in self._notifications():
                    if self._fresh(e):
                        self._mark(e)
                        yield Client._event(e)
                await self._close_ws()
        finally:
            await self._close_ws()


class _TimersSubscription(Subscription):
    kind = "timers"

    def __init__(
        self, client: Client, owner: Optional[str], timer_id: Optional[int], from_block: Optional[int], **kw: Any
    ):
        super().__init__(client, **kw)
        self.owner = None if owner is None else to_checksum_address(owner)
        self.timer_id = None if timer_id is None else int(timer_id)
        self.from_block = from_block
        # Every matching execution in blocks below `cursor` has been delivered, and those of
        # block `cursor` whose index is in `seen`.
        self.cursor: Optional[int] = None
        self.seen: set = set()

    def params(self) -> list:
        f: Dict[str, Any] = {}
        if self.owner is not None:
            f["owner"] = self.owner
        if self.timer_id is not None:
            f["timerId"] = self.timer_id
        return ["timers", f]

    def _wanted(self, x: dict) -> bool:
        return (self.owner is None or to_checksum_address(x["owner"]) == self.owner) and (
            self.timer_id is None or int(x["timerId"]) == self.timer_id
        )

    def _fresh(self, x: dict) -> bool:
        h = int(x["blockHeight"])
        if self.cursor is None or h > self.cursor:
            return True
        return h == self.cursor and int(x["index"]) not in self.seen

    def _mark(self, x: dict) -> None:
        h = int(x["blockHeight"])
        if self.cursor is None or h > self.cursor:
            self.cursor, self.seen = h, set()
        self.seen.add(int(x["index"]))

    async def _run(self):
        first = True
        try:
            while not self._closed:
                await self._connect()
                if not first:
                    self.reconnects += 1
                tip = int(await self._rpc("cowboy_blockNumber", []))
                start = self.cursor if self.cursor is not None else (self.from_block if first else None)
                first = False
                if start is not None:
                    for h in range(start, tip + 1):
                        for x in await self._rpc("cowboy_getTimerExecutions", [h]) or []:
                            if self._wanted(x) and self._fresh(x):
                                self._mark(x)
                                yield Client._execution(x)
                if self.cursor is None or self.cursor <= tip:
                    self.cursor, self.seen = tip + 1, set()
                async for x in self._notifications():
                    if self._fresh(x):
                        self._mark(x)
                        yield Client._execution(x)
                await self._close_ws()
        finally:
            await self._close_ws()


class _ReceiptSubscription(Subscription):
    kind = "receipt"

    def __init__(self, client: Client, tx_hash: str, **kw: Any):
        super().__init__(client, **kw)
        self.tx_hash = tx_hash

    def params(self) -> list:
        return ["receipt", self.tx_hash]

    def __await__(self):
        return self._first().__await__()

    async def _first(self) -> dict:
        try:
            async for r in self:
                return r
        finally:
            await self.aclose()
        raise RpcError(None, "receipt subscription ended")

    async def _run(self):
        first = True
        try:
            while not self._closed:
                await self._connect()
                if not first:
                    self.reconnects += 1
                    # It may have been finalized while we were away (the server also sends an
                    # existing receipt at once; asking costs one request).
                    r = await self._rpc("cowboy_getReceipt", [self.tx_hash])
                    if r is not None:
                        yield Client._receipt(r)
                        return
                first = False
                async for r in self._notifications():
                    yield Client._receipt(r)
                    return
                await self._close_ws()
        finally:
            await self._close_ws()
