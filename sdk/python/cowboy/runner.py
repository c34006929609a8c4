"""The runner's side of off-chain jobs (CIP-2): what a runner process does on chain.

A runner is an account registered with the runner registry (``0x…01``) under an Ed25519 key.
When the job dispatcher (``0x…02``) assigns it a job (the ``JobAssigned`` event names the
committee and its aggregator) it does the work off chain, signs the result with that key and
commits to it at the result verifier (``0x…03``); once the job is committed the members send
their signed results to the aggregator off chain, and the aggregator reveals them all in one
``submit_verified_result`` transaction, which the verifier checks against every commitment and
signature. If the aggregator stays silent, each member reveals its own result after
``aggregator_timeout_blocks`` (self-aggregation).

What is signed (``crates/exec/src/system/verifier/sign.rs``)::

    digest     = keccak256("cowboy-runner-result-v1:" ‖ chain_id_le8 ‖ job_id ‖ keccak256(result)
                           ‖ tokens_le8 ‖ wall_ms_le8)
    sig        = Ed25519 over  varint(23) ‖ "cowboy-runner-result-v1" ‖ digest
    commitment = keccak256(result ‖ sig)

:class:`RunnerKey` signs; :func:`fault_report` is what a runner reveals when it cannot produce
a result (the job is impossible, an external fault, or the actor's); :class:`Runner` sends the
registry's and verifier's transactions and reads assignments; :class:`RevealInbox` and :func:`send_reveal` carry signed results between
runners over HTTP (CBOR bodies); :func:`serve` is the whole loop for one runner, with the work
itself supplied by the caller.
"""

from __future__ import annotations

import http.server
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Tuple

from Crypto.PublicKey import ECC
from Crypto.Signature import eddsa

from . import cbor
from .client import Client
from .crypto import keccak256
from .errors import CowboyError
from .wallet import Wallet

RUNNER_REGISTRY = "0x0000000000000000000000000000000000000001"
JOB_DISPATCHER = "0x0000000000000000000000000000000000000002"
RESULT_VERIFIER = "0x0000000000000000000000000000000000000003"

DOMAIN = b"cowboy-runner-result-v1:"
NAMESPACE = b"cowboy-runner-result-v1"


def result_digest(chain_id: int, job_id: bytes, result: bytes, tokens: int, wall_ms: int) -> bytes:
    """The 32-byte digest a runner signs for ``result`` of ``job_id``, with its usage."""
    return keccak256(
        DOMAIN,
        chain_id.to_bytes(8, "little"),
        job_id,
        keccak256(result),
        tokens.to_bytes(8, "little"),
        wall_ms.to_bytes(8, "little"),
    )


FAULT_MARKER = b"\0cowboy-fault-v1:"
FAULT_KINDS = ("impossible", "external", "actor")


def fault_report(kind: str, progress_bps: int) -> bytes:
    """The result bytes a runner reveals when it cannot produce a result
    (``crates/exec/src/system/verifier/fault.rs``): ``kind`` is ``"impossible"`` (the job's
    bounds are too tight), ``"external"`` (the API or model it needs is down) or ``"actor"``
    (the actor's input is malformed); ``progress_bps`` is the share of the work done, 0 to
    10,000. Signed, committed and revealed like any result; when a majority of the committee
    reports one kind the job fails with it and the reporters are paid pro rata by progress
    (impossible, external) or the minimum fee (actor)."""
    if kind not in FAULT_KINDS:
        raise ValueError(f"fault kind must be one of {FAULT_KINDS}, not {kind!r}")
    if not isinstance(progress_bps, int) or not 0 <= progress_bps <= 10_000:
        raise ValueError("progress_bps must be an int in 0..=10000")
    return FAULT_MARKER + kind.encode() + b":" + str(progress_bps).encode()


def commitment(result: bytes, sig: bytes) -> bytes:
    """``keccak256(result ‖ sig)``: what a runner commits before anyone reveals."""
    return keccak256(result, sig)


class RunnerKey:
    """A runner's Ed25519 key, from a 32-byte seed (keep it secret: it signs results)."""

    def __init__(self, seed: bytes):
        if len(seed) != 32:
            raise ValueError("an Ed25519 seed is 32 bytes")
        self._key = ECC.construct(curve="Ed25519", seed=seed)
        self.public = self._key.public_key().export_key(format="raw")

    def sign(self, digest: bytes) -> bytes:
        """The namespaced signature of ``digest`` (commonware's form, as the verifier checks)."""
        message = bytes([len(NAMESPACE)]) + NAMESPACE + digest
        return eddsa.new(self._key, "rfc8032").sign(message)


@dataclass
class Reveal:
    """One runner's signed result for a job: what its commitment hides, and what it reveals."""

    runner: bytes  # the runner's 20-byte address
    result: bytes
    tokens: int
    wall_ms: int
    sig: bytes

    def entry(self) -> list:
        """The verifier's reveal entry ``[runner, result, [tokens, wall_ms], sig]``."""
        return [self.runner, self.result, [self.tokens, self.wall_ms], self.sig]

    @staticmethod
    def from_entry(v: Any) -> "Reveal":
        runner, result, (tokens, wall_ms), sig = v
        return Reveal(bytes(runner), bytes(result), int(tokens), int(wall_ms), bytes(sig))

    @property
    def commitment(self) -> bytes:
        return commitment(self.result, self.sig)


def address_of(v: Any) -> bytes:
    """A 20-byte address from any of the forms RPC hands back (raw bytes, ``{"bytes": "0x…"}``
    from the JSON of a stored record, or a hex string)."""
    if isinstance(v, dict):
        v = v["bytes"]
    if isinstance(v, str):
        return bytes.fromhex(v[2:] if v.startswith("0x") else v)
    return bytes(v)


def job_id_of(v: Any) -> bytes:
    """A 32-byte job id from raw bytes, ``{"bytes": "0x…"}`` or hex."""
    return address_of(v)


class Runner:
    """One runner: its account (pays the transactions, holds the stake) and its signing key."""

    def __init__(self, client: Client, wallet: Wallet, key: RunnerKey):
        self.client = client
        self.wallet = wallet
        self.key = key
        self.address = bytes.fromhex(wallet.address[2:])
        self._chain_id: Optional[int] = None
        # The receipts of every transaction this runner sent, in order (fees are read from them).
        self.receipts: List[dict] = []

    @property
    def chain_id(self) -> int:
        if self._chain_id is None:
            self._chain_id = self.client.chain_id()
        return self._chain_id

    def _send(self, to: str, handler: str, args: Any = None, value: int = 0) -> Any:
        out, receipt = self.client.call(self.wallet, to, handler, args, value, receipt=True)
        self.receipts.append(receipt)
        return out

    # -- registry --------------------------------------------------------------------------

    def register(
        self,
        capabilities: dict,
        rates: List[dict],
        stake: int,
        *,
        max_concurrent_jobs: int = 8,
        max_job_value: int = 0,
        commission_bps: int = 0,
        endpoint: Optional[str] = None,
    ) -> None:
        """``register`` with ``stake`` as the self-bond (capabilities and rates as the
        registry's README describes them, e.g. ``{"job_types": ["http"], "domains": [...]}`` and
        ``[{"job_type": "http", "base": 1000, "per_ms": 1}]``). ``endpoint`` is the URL of this
        runner's reveal inbox (``http://`` or ``https://``, at most 256 bytes), published in its
        profile so the other members of its committees can push their results to it when it
        aggregates (the ``cowboy-runner`` daemon reads it from ``cowboy_getRunner``)."""
        if endpoint is not None:
            capabilities = dict(capabilities, endpoint=endpoint)
        args = [self.key.public, capabilities, rates, max_concurrent_jobs, max_job_value, commission_bps]
        self._send(RUNNER_REGISTRY, "register", args, stake)

    def heartbeat(self) -> None:
        """Tells the registry the runner is alive (a runner silent for
        ``runner_heartbeat_timeout_blocks`` is not a candidate for new jobs)."""
        self._send(RUNNER_REGISTRY, "heartbeat")

    def profile(self) -> Optional[dict]:
        return self.client.get_runner(self.wallet.address)

    # -- jobs ------------------------------------------------------------------------------

    def assignments(self, from_block: int, to_block: int) -> List[dict]:
        """The ``JobAssigned`` events of blocks ``from_block..=to_block`` that name this runner
        (one per committee it is in: a re-selection after a timeout assigns again)."""
        out = []
        for ev in self.client.get_events(JOB_DISPATCHER, "JobAssigned", from_block, to_block):
            v = ev.get("value") or {}
            if any(address_of(a) == self.address for a in v.get("runners", [])):
                out.append(v)
        return out

    def sign(self, job_id: bytes, result: bytes, tokens: int, wall_ms: int) -> Reveal:
        """This runner's signed result for ``job_id`` (nothing is sent)."""
        sig = self.key.sign(result_digest(self.chain_id, job_id, result, tokens, wall_ms))
        return Reveal(self.address, result, tokens, wall_ms, sig)

    def commit(self, job_id: bytes, reveal: Reveal) -> None:
        """Commits to ``reveal`` (before the job's deadline; only a committee member may)."""
        self._send(RESULT_VERIFIER, "commit", [job_id, reveal.commitment])

    def commitment_of(self, job_id: bytes, runner: bytes) -> Optional[bytes]:
        """The commitment ``runner`` made for ``job_id`` (the verifier's ``get_commit``)."""
        c = self.client.view(RESULT_VERIFIER, "get_commit", [job_id, runner])
        return bytes(c) if c is not None else None

    def aggregate(self, job_id: bytes, reveals: List[Reveal]) -> bytes:
        """As the job's aggregator, reveals every result in one transaction; returns the result
        submitted as the verified one. Which result the mode picks (the first winner in
        committee order) is the chain's rule, so it is asked rather than re-implemented: each
        distinct result is tried in a read-only call, in committee order, and the first one the
        verifier does not refuse as ``ResultMismatch`` is sent. A reveal over the job's
        ``max_return_bytes`` is left out: the verifier would refuse the whole transaction for
        it (``ResultTooLarge``), holding every other member's pay; its runner counts as
        missing."""
        job = self.client.get_job(job_id) or {}
        limit = ((job.get("spec") or {}).get("result_schema") or {}).get("max_return_bytes")
        if limit is not None:
            reveals = [r for r in reveals if len(r.result) <= limit]
        entries = [r.entry() for r in reveals]
        order = [address_of(a) for a in job.get("committed", [])]
        ranked = sorted(reveals, key=lambda r: order.index(r.runner) if r.runner in order else len(order))
        tried = set()
        for r in ranked:
            if r.result in tried:
                continue
            tried.add(r.result)
            sim = self.client.simulate(
                RESULT_VERIFIER, "submit_verified_result", [job_id, r.result, entries], sender=self.wallet.address
            )
            if sim.get("success"):
                self._send(RESULT_VERIFIER, "submit_verified_result", [job_id, r.result, entries])
                return r.result
            if "ResultMismatch" not in str(sim.get("error")):
                raise CowboyError(f"submit_verified_result refused: {sim.get('error')}")
        raise CowboyError("no result of these reveals is the verified one")

    def reveal(self, job_id: bytes, reveal: Reveal) -> None:
        """Reveals this runner's own result (self-aggregation, once the aggregator's window
        has passed)."""
        self._send(RESULT_VERIFIER, "reveal", [job_id, reveal.result, [reveal.tokens, reveal.wall_ms], reveal.sig])


class RevealInbox:
    """A loopback HTTP endpoint where other runners deliver their signed results to this one
    when it aggregates: ``POST /reveal/<job id hex>`` with the CBOR of the reveal entry. It
    keeps every distinct reveal per (job, runner), since anyone can post in a runner's name;
    :meth:`reveals` picks, per runner, the one matching the commitment it made on chain (what
    the verifier will check). Bounded, since anyone who can reach it may post: a body is at most
    1 MiB, at most ``max_jobs`` jobs are held at once (a post for another is refused with 503)
    and at most ``max_per_job`` distinct reveals per job (then 429; a committee has at most 16
    members, so honest runners fit with room for a few forgeries each). :meth:`forget` frees a
    finished job.
    """

    def __init__(
        self, host: str = "127.0.0.1", port: int = 0, max_jobs: int = 256, max_per_job: int = 64
    ):
        self._lock = threading.Lock()
        self._reveals: Dict[bytes, Dict[Tuple[bytes, bytes], Reveal]] = {}
        self.max_jobs = max_jobs
        self.max_per_job = max_per_job
        inbox = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                try:
                    parts = self.path.strip("/").split("/")
                    if len(parts) != 2 or parts[0] != "reveal":
                        raise ValueError("POST /reveal/<job id>")
                    job_id = bytes.fromhex(parts[1])
                    length = int(self.headers.get("Content-Length", "0"))
                    if not 0 < length <= 1 << 20:
                        raise ValueError("body size")
                    r = Reveal.from_entry(cbor.decode(self.rfile.read(length)))
                except (ValueError, TypeError, CowboyError) as e:
                    self.send_error(400, str(e))
                    return
                with inbox._lock:
                    if job_id not in inbox._reveals and len(inbox._reveals) >= inbox.max_jobs:
                        self.send_error(503, "inbox full: too many jobs")
                        return
                    held = inbox._reveals.setdefault(job_id, {})
                    key = (r.runner, r.commitment)
                    if key not in held and len(held) >= inbox.max_per_job:
                        self.send_error(429, "inbox full for this job")
                        return
                    held[key] = r
                self.send_response(204)
                self.end_headers()

            def log_message(self, *_: Any) -> None:
                pass

        self._server = http.server.ThreadingHTTPServer((host, port), Handler)
        self.url = f"http://{host}:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    def reveals(self, job_id: bytes, commitments: Dict[bytes, bytes]) -> Dict[bytes, Reveal]:
        """The reveals received for ``job_id`` that match ``commitments`` (runner address ->
        its commitment on chain), by runner address."""
        with self._lock:
            got = self._reveals.get(job_id, {})
            return {a: got[(a, c)] for a, c in commitments.items() if (a, c) in got}

    def forget(self, job_id: bytes) -> None:
        """Drops what was received for a finished job."""
        with self._lock:
            self._reveals.pop(job_id, None)

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()


def send_reveal(
    url: str,
    job_id: bytes,
    reveal: Reveal,
    timeout: float = 5.0,
    attempts: int = 3,
    backoff: float = 0.1,
) -> None:
    """Delivers ``reveal`` to the aggregator's :class:`RevealInbox` at ``url``. A transient
    failure (connection refused or reset, a timeout, a 5xx or 429) is retried up to
    ``attempts`` times in all, waiting ``backoff``, then twice that, and so on; a refusal of
    the request itself (another 4xx) is raised at once."""
    req = urllib.request.Request(
        f"{url}/reveal/{job_id.hex()}", data=cbor.encode(reveal.entry()), method="POST"
    )
    for i in range(attempts):
        try:
            with urllib.request.urlopen(req, timeout=timeout):
                return
        except urllib.error.HTTPError as e:
            if e.code < 500 and e.code != 429 or i + 1 == attempts:
                raise
        except OSError:
            if i + 1 == attempts:
                raise
        time.sleep(backoff * (1 << i))


# The work a runner does for a job: the job (``cowboy_getJob``) -> ``(result, tokens,
# wall_ms)``, or None to stay silent.
Work = Callable[[dict], Optional[Tuple[bytes, int, int]]]


class Directory:
    """Where runners find each other's inboxes: a folder with one file per runner, named by its
    address in hex, holding its inbox URL. (A stand-in for discovery among the committee, which
    CIP-2 leaves off chain; any shared folder works, e.g. on one host.)"""

    def __init__(self, path: Path):
        self.path = Path(path)
        self.path.mkdir(parents=True, exist_ok=True)

    def publish(self, address: bytes, url: str) -> None:
        tmp = self.path / f".{address.hex()}.tmp"
        tmp.write_text(url)
        tmp.replace(self.path / address.hex())

    def lookup(self, address: bytes) -> Optional[str]:
        f = self.path / address.hex()
        return f.read_text() if f.exists() else None


@dataclass
class _Job:
    reveal: Optional[Reveal] = None  # None: the work was declined (silent)
    delivered: bool = False
    done: bool = False


def serve(
    runner: Runner,
    work: Work,
    directory: Directory,
    *,
    stop: threading.Event,
    from_block: int = 0,
    heartbeat_every: int = 50,
    aggregator_timeout_blocks: int = 20,
    poll: float = 0.05,
    max_backoff: float = 5.0,
    log: Callable[[dict], None] = lambda _: None,
) -> None:
    """Runs ``runner`` until ``stop`` is set: heartbeats every ``heartbeat_every`` blocks,
    answers every job assigned to it from ``from_block`` on (``work``, sign, commit before the
    deadline), delivers its result to the aggregator once the job is committed, aggregates when
    it is the aggregator (waiting for every committed member's result up to half the
    aggregator's window, then revealing what it has), and reveals its own result when the
    aggregator's window has passed. An RPC failure (the node restarting, say) is retried on the
    next round, after a wait that doubles with each consecutive failure from ``poll`` up to
    ``max_backoff`` seconds: every step is decided afresh from the chain's state, so none is
    done twice. A finished job is dropped (and its inbox entries), so memory follows the jobs
    in flight, which the chain bounds by ``max_concurrent_jobs``.
    ``log`` receives one dict per action (``{"action": "commit", "job": hex, "tx": hash}``…)."""
    inbox = RevealInbox()
    directory.publish(runner.address, inbox.url)
    jobs: Dict[bytes, _Job] = {}
    cursor = from_block
    last_beat: Optional[int] = None
    failures = 0
    try:
        while not stop.is_set():
            try:
                height = runner.client.block_number()
                if last_beat is None or height >= last_beat + heartbeat_every:
                    runner.heartbeat()
                    last_beat = runner.client.block_number()
                    log({"action": "heartbeat", "tx": runner.receipts[-1]["transactionHash"]})
                if height >= cursor:
                    for ev in runner.assignments(cursor, height):
                        jobs.setdefault(job_id_of(ev["job_id"]), _Job())
                    cursor = height + 1
                for job_id, st in list(jobs.items()):
                    if not st.done:
                        _step(runner, work, directory, inbox, job_id, st, height, aggregator_timeout_blocks, log)
                    if st.done:
                        del jobs[job_id]
                        inbox.forget(job_id)
                failures = 0
            except (CowboyError, OSError) as e:
                failures += 1
                log({"action": "retry", "error": str(e), "failures": failures})
            stop.wait(min(poll * (1 << min(failures, 16)), max_backoff))
    finally:
        inbox.close()


def _step(
    runner: Runner,
    work: Work,
    directory: Directory,
    inbox: RevealInbox,
    job_id: bytes,
    st: _Job,
    height: int,
    window: int,
    log: Callable[[dict], None],
) -> None:
    """One job's next move, decided from its state on chain."""
    job = runner.client.get_job(job_id)
    if job is None:
        return
    status = job["status"]
    me = runner.address
    committed = [address_of(a) for a in job.get("committed", [])]
    if status == "assigned":
        selected = [address_of(a) for a in job.get("selected", [])]
        if me in selected and me not in committed and st.reveal is None:
            answer = work(job)
            if answer is None:
                st.done = True  # silent: the deadline will exclude it
                log({"action": "silent", "job": job_id.hex()})
                return
            result, tokens, wall_ms = answer
            st.reveal = runner.sign(job_id, result, tokens, wall_ms)
        if st.reveal is not None and me in selected and me not in committed:
            runner.commit(job_id, st.reveal)
            log({"action": "commit", "job": job_id.hex(), "tx": runner.receipts[-1]["transactionHash"]})
        return
    if status != "committed":
        st.done = True  # verified or failed
        return
    if st.reveal is None or me not in committed:
        st.done = True
        return
    aggregator = address_of(job["aggregator"])
    opened = int(job["committed_at"])
    if aggregator == me:
        commitments = {a: runner.commitment_of(job_id, a) for a in committed if a != me}
        have = inbox.reveals(job_id, {a: c for a, c in commitments.items() if c is not None})
        have[me] = st.reveal
        everyone = all(a in have for a in committed)
        if everyone or height > opened + window // 2:
            chosen = [have[a] for a in committed if a in have]
            result = runner.aggregate(job_id, chosen)
            st.done = True
            log({"action": "aggregate", "job": job_id.hex(), "result": result.hex(),
                 "tx": runner.receipts[-1]["transactionHash"]})
        return
    if height > opened + window:
        runner.reveal(job_id, st.reveal)
        st.done = True
        log({"action": "reveal", "job": job_id.hex(), "tx": runner.receipts[-1]["transactionHash"]})
        return
    if not st.delivered:
        url = directory.lookup(aggregator)
        if url is not None:
            send_reveal(url, job_id, st.reveal)
            st.delivered = True
            log({"action": "deliver", "job": job_id.hex(), "to": aggregator.hex()})
