"""pytest plugin of cowboy-py (registered through the ``pytest11`` entry point).

Fixtures:

- ``cowboy_node`` (session): a real ``cowboyd --dev`` on free ports with a temporary data
  directory, making blocks on demand (``--block-time 0``: a transaction is sealed into a block
  as soon as it arrives, and no block comes otherwise; ``--cowboy-block-time MS`` for a clock),
  stopped at the end of the session. The binary is ``$COWBOYD``,
  else ``target/debug/cowboyd`` or ``target/release/cowboyd`` (the newer one) in the nearest
  directory above the working directory that has one (or under ``$CARGO_TARGET_DIR``), else
  ``cowboyd`` on ``PATH``. ``--cowboy-url URL`` uses an already running dev node instead.
- ``cowboy_client`` (session): a :class:`cowboy.Client` for it.
- ``dev_wallet`` (session): dev account 0.
- ``funded_wallet``: a fresh wallet funded with 1,000 CBY by a transfer from dev account 0.
- ``wait_for_timer`` (session): ``wait_for_timer(timer_id, timeout=60, from_block=None)`` waits
  while the node makes blocks until the timer runs and returns that execution (its receipt,
  ``blockHeight``…); :meth:`cowboy.Client.wait_for_timer` on ``cowboy_client``.
- ``wait_for_block`` (session): ``wait_for_block(height, timeout=60)`` waits until that block
  is finalized, mining the blocks missing on an on-demand node.
- ``mine`` (session): ``mine(n=1)`` builds ``n`` blocks now and returns the tip (timers are
  due at heights: mining is how a test makes them run).
- ``advance_time`` (session): ``advance_time(ms)`` moves the node's clock forward and mines a
  block, so the next timestamps an actor sees are ``ms`` later; returns the tip.
- ``mine_in_background`` (session): ``with mine_in_background(interval=0.05): ...`` mines a
  block every ``interval`` seconds meanwhile (for code that waits on a stream of blocks).
- ``set_balance`` (session): ``set_balance(address, amount)`` makes ``address`` hold exactly
  ``amount`` (smallest unit; :data:`cowboy.CBY` is one CBY) and returns the receipt of the
  set-balance transaction (:meth:`cowboy.Client.set_balance`).
- ``impersonate`` (session): ``impersonate(address)`` → a sender to pass wherever a wallet goes
  (``cowboy_client.call(impersonate(owner), actor, "withdraw")``): its transactions run as
  ``address`` without its key and pay from its balance (:meth:`cowboy.Client.impersonate`).
- ``runner_sim``: ``runner_sim("honest", "honest", "wrong", domains=[...], ...)`` starts
  ``cowboy-runner sim --node <the session node>``: one real runner daemon per behaviour
  (``honest``, ``slow=MS``, ``wrong``, ``silent``, ``garbage``, ``oversized``,
  ``lying_usage``; ``crates/runner/README.md``, "Simulator"), funded and registered, and
  returns a :class:`RunnerSim` once all are registered (``.runners``: index, address,
  behaviour, endpoint, log); stopped at the end of the test. ``domains`` are ``"NAME"`` or
  ``"NAME=IP:PORT"`` (pinned, as curl's ``--resolve``); ``allow_plain_http=True`` lets the
  runners fetch ``http://`` URLs (a loopback server). The binary is ``--cowboy-runner PATH``,
  else ``$COWBOY_RUNNER``, else found as ``cowboyd`` is.

**Isolation.** Each test that uses the node runs between a ``dev_snapshot`` and a
``dev_revert``: whatever it did to the chain (blocks, balances, actors, the clock) is gone for
the next test, while what session- and module-scoped fixtures set up before it stays.

Tests that use these fixtures are marked ``node`` automatically, so ``pytest -m "not node"``
runs everything that needs no node. When no binary is found the tests fail (never skip) with a
message saying how to build one.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional

import pytest

from .client import Client
from .errors import CowboyError, NodeError, RpcError
from .local import find_binary
from .wallet import CBY, Wallet, dev_account

NODE_FIXTURES = {
    "cowboy_node",
    "cowboy_client",
    "funded_wallet",
    "dev_wallet",
    "wait_for_timer",
    "wait_for_block",
    "mine",
    "advance_time",
    "mine_in_background",
    "set_balance",
    "impersonate",
    "runner_sim",
}


def pytest_addoption(parser):
    group = parser.getgroup("cowboy", "Cowboy node for tests")
    group.addoption("--cowboyd", default=None, help="path of the cowboyd binary (default: $COWBOYD, target/, PATH)")
    group.addoption("--cowboy-url", default=None, help="use this running dev node instead of starting cowboyd")
    group.addoption(
        "--cowboy-runner", default=None, help="path of the cowboy-runner binary (default: $COWBOY_RUNNER, target/, PATH)"
    )
    group.addoption(
        "--cowboy-block-time",
        default="0",
        help="--block-time (ms) of the started node (default 0: a block per transaction, and on dev_mine)",
    )


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "node: needs a running cowboyd (started by the cowboy_node fixture); deselect with -m 'not node'"
    )


def pytest_collection_modifyitems(config, items):
    for item in items:
        if NODE_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.node)


def find_cowboyd(start: Optional[Path] = None) -> Optional[str]:
    """The cowboyd binary: ``$COWBOYD``; else the newest ``target/{debug,release}/cowboyd``
    walking up from ``start`` (default: the working directory) or under ``$CARGO_TARGET_DIR``;
    else ``cowboyd`` on ``PATH``. None if there is none."""
    return find_binary("cowboyd", "COWBOYD", start)


def find_cowboy_runner(start: Optional[Path] = None) -> Optional[str]:
    """The cowboy-runner binary, found as :func:`find_cowboyd` finds cowboyd
    (``$COWBOY_RUNNER``)."""
    return find_binary("cowboy-runner", "COWBOY_RUNNER", start)


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _terminate(p: subprocess.Popen) -> None:
    """Stops `p` if it still runs: SIGTERM, then SIGKILL after 10 s."""
    if p.poll() is not None:
        return
    p.terminate()
    try:
        p.wait(timeout=10)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait(timeout=10)


@dataclass
class CowboyNode:
    """A running node: its URLs, process (None for an external node) and log file."""

    url: str
    ws_url: str
    process: Optional[subprocess.Popen]
    data_dir: Optional[Path]
    log_path: Optional[Path]
    binary: Optional[str]
    args: Optional[List[str]] = None
    start_timeout: float = 60.0

    def log_tail(self, n: int = 40) -> str:
        if self.log_path is None or not self.log_path.exists():
            return ""
        return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-n:])

    def stop(self) -> None:
        """Stops the node (SIGTERM, then SIGKILL after 10 s)."""
        if self.process is not None:
            _terminate(self.process)

    def start(self) -> None:
        """(Re)starts the process with the same arguments, ports and data directory, and waits
        until it answers RPC."""
        if self.args is None or self.log_path is None:
            raise NodeError("this node was not started by the plugin")
        if self.process is not None and self.process.poll() is None:
            return
        with open(self.log_path, "ab") as log:
            try:
                self.process = subprocess.Popen(
                    self.args, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL
                )
            except OSError as e:
                raise NodeError(f"cannot start {self.args[0]}: {e}") from None
        self._wait_ready()

    def restart(self) -> None:
        """Stops and starts the node again; its chain continues from the data directory."""
        self.stop()
        self.start()

    def _wait_ready(self) -> None:
        proc = self.process
        assert proc is not None and self.args is not None
        client = Client(self.url, timeout=2.0)
        deadline = time.monotonic() + self.start_timeout
        last_err: Optional[Exception] = None
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise NodeError(
                    f"cowboyd exited with status {proc.returncode} before answering RPC\n"
                    f"command: {' '.join(self.args)}\n--- log ---\n{self.log_tail()}"
                )
            try:
                client.request("cowboy_chainId")
                return
            except CowboyError as e:
                last_err = e
                time.sleep(0.1)
        self.stop()
        raise NodeError(
            f"cowboyd did not answer cowboy_chainId within {self.start_timeout:g}s ({last_err})\n"
            f"command: {' '.join(self.args)}\n--- log ---\n{self.log_tail()}"
        )


def start_node(
    binary: str,
    data_dir: Path,
    *,
    block_time_ms: int = 200,
    timeout: float = 60.0,
    extra_args: Optional[List[str]] = None,
) -> CowboyNode:
    """Starts ``cowboyd --dev`` on free ports (RPC and p2p) with its data under ``data_dir``
    and waits until ``cowboy_chainId`` answers. Raises :class:`~cowboy.errors.NodeError` (with
    the node's log) if it does not."""
    data_dir.mkdir(parents=True, exist_ok=True)
    rpc_port = _free_port()
    p2p_port = _free_port()
    args = [
        binary, "--dev",
        "--rpc-addr", f"127.0.0.1:{rpc_port}",
        "--p2p-addr", f"127.0.0.1:{p2p_port}",
        "--data-dir", str(data_dir / "data"),
        "--block-time", str(block_time_ms),
        *(extra_args or []),
    ]
    url = f"http://127.0.0.1:{rpc_port}"
    log_path = data_dir / "cowboyd.log"
    log_path.write_bytes(b"")
    node = CowboyNode(url, f"ws://127.0.0.1:{rpc_port}", None, data_dir, log_path, binary, args, timeout)
    node.start()
    return node


_MISSING = (
    "no cowboyd binary found: set COWBOYD=/path/to/cowboyd, pass --cowboyd PATH, or build one "
    "(cargo build -p cowboy-node --bin cowboyd) so target/debug/cowboyd exists. "
    "To run only the tests that need no node: pytest -m 'not node'."
)


@pytest.fixture(scope="session")
def cowboy_node(request, tmp_path_factory):
    """A running ``cowboyd --dev`` for the whole session."""
    url = request.config.getoption("--cowboy-url")
    if url:
        c = Client(url)
        failure = None
        try:
            c.chain_id()
        except CowboyError as e:
            failure = f"--cowboy-url {url} does not answer: {e}"
        if failure is not None:
            pytest.fail(failure, pytrace=False)
        ws = Client(url).ws_url
        yield CowboyNode(url, ws, None, None, None, None)
        return
    binary = request.config.getoption("--cowboyd") or find_cowboyd(Path(str(request.config.rootpath)))
    if binary is None:
        binary = find_cowboyd()
    if binary is None:
        pytest.fail(_MISSING, pytrace=False)
    data_dir = tmp_path_factory.mktemp("cowboyd")
    timeout = float(os.environ.get("COWBOYD_START_TIMEOUT", "60"))
    failure = None
    try:
        node = start_node(
            binary, data_dir, block_time_ms=int(request.config.getoption("--cowboy-block-time")), timeout=timeout
        )
    except NodeError as e:
        failure = str(e)
    if failure is not None:
        pytest.fail(failure, pytrace=False)
    try:
        yield node
    finally:
        node.stop()
        if node.process is not None and node.process.returncode not in (0, -15, None):
            sys.stderr.write(f"\ncowboyd exited with {node.process.returncode}; log tail:\n{node.log_tail()}\n")


@pytest.fixture(scope="session")
def cowboy_client(cowboy_node) -> Client:
    """A :class:`cowboy.Client` for ``cowboy_node``."""
    return Client(cowboy_node.url)


@pytest.fixture(scope="session")
def dev_wallet() -> Wallet:
    """Dev account 0 (1,000,000 CBY at genesis)."""
    return dev_account(0)


@pytest.fixture
def funded_wallet(cowboy_client, dev_wallet) -> Wallet:
    """A fresh wallet holding 1,000 CBY, funded by a transfer from dev account 0."""
    w = Wallet.random()
    cowboy_client.transfer(dev_wallet, w.address, 1_000 * CBY)
    return w


@pytest.fixture(scope="session")
def wait_for_timer(cowboy_client):
    """``wait_for_timer(timer_id, timeout=60.0, from_block=None)`` → the timer's execution
    once it has run (see :meth:`cowboy.Client.wait_for_timer`)."""
    return cowboy_client.wait_for_timer


@pytest.fixture(scope="session")
def wait_for_block(cowboy_client):
    """``wait_for_block(height, timeout=60.0)`` → the tip once block ``height`` is final."""
    return cowboy_client.wait_for_block


@pytest.fixture(scope="session")
def mine(cowboy_client):
    """``mine(n=1)`` → the tip after ``n`` more blocks (see :meth:`cowboy.Client.mine`)."""
    return cowboy_client.mine


@pytest.fixture(scope="session")
def advance_time(cowboy_client):
    """``advance_time(ms)`` → the tip after moving the clock ``ms`` forward and mining a block."""

    def advance(ms: int) -> int:
        cowboy_client.increase_time(ms)
        return cowboy_client.mine(1)

    return advance


@pytest.fixture(scope="session")
def mine_in_background(cowboy_client):
    """``with mine_in_background(interval=0.05): ...`` mines a block every ``interval`` seconds
    while the block runs (a stream of blocks for subscriptions and the like)."""

    @contextlib.contextmanager
    def mining(interval: float = 0.05):
        stop = threading.Event()
        client = Client(cowboy_client.url)

        def run():
            while not stop.wait(interval):
                client.mine(1)

        thread = threading.Thread(target=run, name="cowboy-miner", daemon=True)
        thread.start()
        try:
            yield
        finally:
            stop.set()
            thread.join()

    return mining


@pytest.fixture(scope="session")
def set_balance(cowboy_client):
    """``set_balance(address, amount)`` → the receipt once ``address`` holds ``amount``."""
    return cowboy_client.set_balance


@pytest.fixture(scope="session")
def impersonate(cowboy_client):
    """``impersonate(address)`` → an :class:`cowboy.wallet.Impersonated` sender."""
    return cowboy_client.impersonate


@pytest.fixture(autouse=True)
def _cowboy_isolation(request):
    """Runs each test that uses the node between a snapshot and a revert (see the module
    docs). Tests that need no node, and nodes without ``--dev`` (``--cowboy-url``), are left
    alone."""
    if not NODE_FIXTURES & set(request.fixturenames):
        yield
        return
    client = request.getfixturevalue("cowboy_client")
    try:
        snapshot = client.snapshot()
    except RpcError as e:
        if e.code != -32601:
            raise
        yield
        return
    yield
    client.revert(snapshot)


@dataclass
class SimRunner:
    """One simulated runner: its index, account address, behaviour, inbox URL and log file."""

    index: int
    address: str
    behaviour: str
    endpoint: str
    log: str


class RunnerSim:
    """A running ``cowboy-runner sim``: its runners, once every one is registered."""

    def __init__(self, binary: str, node_url: str, behaviours, directory: Path, *, domains=(),
                 allow_plain_http: bool = False, extra_roots: Optional[str] = None,
                 base: int = 1000, per_token: int = 0, per_ms: int = 0, timeout: float = 120.0):
        args = [binary, "sim", "--node", node_url, "--data-dir", str(directory),
                "--runners", ",".join(behaviours),
                "--base", str(base), "--per-token", str(per_token), "--per-ms", str(per_ms)]
        for d in domains:
            args += ["--domain", d]
        if allow_plain_http:
            args.append("--allow-plain-http")
        if extra_roots:
            args += ["--extra-roots", str(extra_roots)]
        directory.mkdir(parents=True, exist_ok=True)
        self.log_path = directory / "sim.log"
        with open(self.log_path, "wb") as log:
            try:
                self.process = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=log, stdin=subprocess.DEVNULL)
            except OSError as e:
                raise NodeError(f"cannot start {binary}: {e}") from None
        # The simulator prints one JSON line once every runner is registered.
        line = _read_line(self.process, timeout)
        if line is None:
            self.stop()
            raise NodeError(f"cowboy-runner sim did not start its runners\ncommand: {' '.join(args)}\n"
                            f"--- log ---\n{self.log_tail()}")
        ready = json.loads(line)
        self.runners = [SimRunner(r["index"], r["address"], r["behaviour"], r["endpoint"], r["log"])
                        for r in ready["runners"]]

    def log_tail(self, n: int = 40) -> str:
        return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-n:])

    def stop(self) -> None:
        """Stops the simulator and its runners (SIGTERM, then SIGKILL after 10 s)."""
        p = self.process
        _terminate(p)
        if p.stdout is not None:
            p.stdout.close()


def _read_line(process: subprocess.Popen, timeout: float) -> Optional[str]:
    """The process's first line on stdout, or None if it exits or ``timeout`` passes first."""
    assert process.stdout is not None
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([process.stdout], [], [], 0.2)
        if ready:
            line = process.stdout.readline()
            return line.decode() if line else None
        if process.poll() is not None:
            return None
    return None


@pytest.fixture
def runner_sim(request, cowboy_node, tmp_path):
    """``runner_sim(*behaviours, domains=(), allow_plain_http=False, ...)`` → a
    :class:`RunnerSim` on the session node; every simulator started is stopped after the test."""
    binary = request.config.getoption("--cowboy-runner") or find_cowboy_runner(Path(str(request.config.rootpath)))
    if binary is None:
        binary = find_cowboy_runner()
    if binary is None:
        pytest.fail("no cowboy-runner binary found: set COWBOY_RUNNER=/path/to/cowboy-runner, pass "
                    "--cowboy-runner PATH, or build one (cargo build -p cowboy-runner)", pytrace=False)
    started: List[RunnerSim] = []

    def start(*behaviours: str, **options) -> RunnerSim:
        sim = RunnerSim(binary, cowboy_node.url, behaviours, tmp_path / f"runner-sim-{len(started)}", **options)
        started.append(sim)
        return sim

    yield start
    for sim in started:
        sim.stop()
