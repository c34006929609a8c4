"""Off-chain jobs end to end on a real ``cowboyd --dev``: ``examples/actors/price_feed.py`` asks
three runners for a price; the runners are separate OS processes (``tests/data/price_runner.py``
over ``cowboy.runner``) that watch their assignments over RPC, sign with their Ed25519 keys,
commit, hand their results to the aggregator over loopback HTTP, and the aggregator reveals.

* all honest: the price is stored, the feed's timeout timer cancelled, the winners paid at
  their rate card, the escrow settled to the wei;
* one runner lying: the median with its 1 % tolerance outvotes it; it is not paid and loses
  reputation;
* one runner revealing a result over ``max_return_bytes``: the aggregator leaves it out (the
  verifier would refuse the whole aggregate), the other two are paid, it loses reputation;
* all silent: the job fails at its deadline with a full refund, and the feed's own timer gives
  the request up;
* ``kill -9`` of the node while the job is assigned and again once it is settled: the job, the
  outcome and the stored price come back from disk.

Blocks are made on demand (a transaction seals one; ``mine`` makes empty ones), so heights
move only when someone acts; the waits below poll the chain's state, never a clock.
"""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cowboy import Client, dev_account
from cowboy.crypto import keccak256
from cowboy.pytest_plugin import find_cowboyd, start_node
from cowboy.runner import JOB_DISPATCHER, Runner, RunnerKey, address_of
from cowboy.wallet import CBY

pytestmark = pytest.mark.node

HERE = Path(__file__).resolve().parent
FEED = (HERE.parents[2] / "examples" / "actors" / "price_feed.py").read_text()
RUNNER_PROGRAM = HERE / "data" / "price_runner.py"
TREASURY = "0x0000000000000000000000000000000000000008"

ACCOUNTS = (5, 6, 7)
DOMAIN = "api.example.com"
BASE = 1_000  # each runner's price for a job (per_ms 0: the reported wall time is free)
MAX_PRICE = 30_000  # the feed's budget per job: cap = 10,000 per runner
OWNER = dev_account(0)


def runner_key_seed(n: int) -> bytes:
    return keccak256(b"cowboy-test-runner-" + str(n).encode())


def runner_key(n: int) -> RunnerKey:
    return RunnerKey(runner_key_seed(n))


def register_runners(c: Client) -> None:
    capabilities = {"job_types": ["http"], "domains": [DOMAIN]}
    rates = [{"job_type": "http", "base": BASE, "per_ms": 0}]
    for n in ACCOUNTS:
        Runner(c, dev_account(n), runner_key(n)).register(capabilities, rates, 10_000 * CBY, commission_bps=500)


def wait_until(check, what: str, timeout: float = 120.0, poll: float = 0.1):
    """Polls ``check()`` until it returns something truthy (a safety net for processes that
    never act: the assertions are on the state it returns, not on the time it took)."""
    end = time.monotonic() + timeout
    while True:
        got = check()
        if got:
            return got
        if time.monotonic() > end:
            pytest.fail(f"gave up waiting for {what}")
        time.sleep(poll)


class Committee:
    """The three runner processes, one answer each (a price, ``"oversized:<price>"`` for that
    price padded past the job's ``max_return_bytes``, or None for silence)."""

    def __init__(self, url: str, answers, directory: Path, from_block: int):
        self.logs = {}
        self.procs = {}
        env = dict(os.environ, PYTHONPATH=str(HERE.parent) + os.pathsep + os.environ.get("PYTHONPATH", ""))
        for n, answer in zip(ACCOUNTS, answers):
            if answer is None:
                how = ["--silent"]
            elif isinstance(answer, str):  # "oversized:<price>"
                how = ["--price", answer.split(":")[1], "--oversized"]
            else:
                how = ["--price", str(answer)]
            log = directory / f"runner-{n}.log"
            self.logs[n] = log
            with open(log, "wb") as out:
                self.procs[n] = subprocess.Popen(
                    [sys.executable, str(RUNNER_PROGRAM), url, str(n), runner_key_seed(n).hex(),
                     str(directory / "peers"), *how, "--from-block", str(from_block)],
                    stdout=out, stderr=subprocess.STDOUT, env=env,
                )

    def stop(self) -> None:
        for p in self.procs.values():
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        for n, p in self.procs.items():
            p.wait(timeout=30)
            assert p.returncode == 0, f"runner {n} exited {p.returncode}:\n{self.logs[n].read_text()}"

    def actions(self, n: int):
        return [json.loads(line) for line in self.logs[n].read_text().splitlines() if line.startswith("{")]

    def fees(self, c: Client, n: int) -> int:
        """What runner ``n``'s process paid in fees, from the receipts of what it sent."""
        return sum(c.get_receipt(a["tx"])["feePaid"] for a in self.actions(n) if "tx" in a)


def deploy_feed(c: Client, wait_blocks: int) -> str:
    feed, _ = c.deploy(OWNER, FEED, [DOMAIN, MAX_PRICE, wait_blocks], value=CBY)
    return feed


def balances(c: Client, *addrs):
    return [c.get_balance(a) for a in addrs]


def split(a: int):
    """A winner's a_i: (burned, treasury, the runner's side)."""
    burned, treasury = a * 1000 // 10_000, a * 100 // 10_000
    return burned, treasury, a - burned - treasury


def run_job(c: Client, tmp_path: Path, answers, wait_blocks: int = 100):
    """Deploys a feed, starts the committee, requests ETH and waits until the job is decided
    (then stops the runners, so nothing moves while the test reads balances)."""
    register_runners(c)
    feed = deploy_feed(c, wait_blocks)
    runners = [dev_account(n).address for n in ACCOUNTS]
    before = dict(zip(["feed", "dispatcher", "treasury", *ACCOUNTS],
                      balances(c, feed, JOB_DISPATCHER, TREASURY, *runners)))
    committee = Committee(c.url, answers, tmp_path, c.block_number() + 1)
    try:
        job_id = c.call(OWNER, feed, "request", ["ETH"])
        job = wait_until(lambda: (j := c.get_job(job_id)) and j["outcome"] and j, "the job's outcome")
    finally:
        committee.stop()
    return feed, job_id, job, before, committee


def test_honest_runners_price_stored_timer_cancelled_runners_paid_escrow_settled(cowboy_client, mine, tmp_path):
    c = cowboy_client
    feed, job_id, job, before, committee = run_job(c, tmp_path, [2500.5, 2501.25, 2499.75])
    out = job["outcome"]
    assert job["status"] == "verified" and out["status"] == "verified"
    winners = {address_of(a) for a in out["winners"]}
    assert winners == {address_of(dev_account(n).address) for n in ACCOUNTS}
    assert out["faulty"] == []
    assert len(c.get_timers(feed)) == 1, "the feed still waits: its continuation runs next block"

    mine(1)
    stored = c.view(feed, "price", ["ETH"])
    first = address_of(out["result_from"])
    said = {address_of(dev_account(n).address): p for n, p in zip(ACCOUNTS, [2500.5, 2501.25, 2499.75])}
    assert stored["price"] == said[first] and stored["job"] == job_id
    assert c.get_timers(feed) == [], "the feed's timeout timer was cancelled"
    assert c.get_events(feed, "PriceUpdated")[-1]["value"]["price"] == said[first]
    mine(3)
    assert len(c.get_events(feed, "PriceUpdated")) == 1, "the continuation ran once"

    check_settlement(c, feed, job, before, committee, paid_runners=ACCOUNTS)


def test_a_lying_runner_is_outvoted_unpaid_and_loses_reputation(cowboy_client, mine, tmp_path):
    c = cowboy_client
    liar = address_of(dev_account(ACCOUNTS[1]).address)
    feed, job_id, job, before, committee = run_job(c, tmp_path, [2500.5, 3100.0, 2499.75])
    out = job["outcome"]
    assert out["status"] == "verified"
    assert [address_of(a) for a in out["faulty"]] == [liar]
    assert liar not in {address_of(a) for a in out["winners"]}
    assert c.get_runner(dev_account(ACCOUNTS[1]).address)["reputation"] == 70 - 5
    assert c.get_runner(dev_account(ACCOUNTS[0]).address)["reputation"] == 70 + 1
    mine(1)
    assert c.view(feed, "price", ["ETH"])["price"] in (2500.5, 2499.75)
    assert c.get_timers(feed) == []
    check_settlement(c, feed, job, before, committee, paid_runners=(ACCOUNTS[0], ACCOUNTS[2]))


def test_an_oversized_reveal_is_left_out_by_the_aggregator_and_the_others_are_paid(cowboy_client, mine, tmp_path):
    # Whoever aggregates (the oversized runner itself included) submits the other two: one
    # reveal over the limit would make the verifier refuse the whole transaction.
    c = cowboy_client
    big = address_of(dev_account(ACCOUNTS[2]).address)
    feed, job_id, job, before, committee = run_job(c, tmp_path, [2500.5, 2500.0, "oversized:2500.25"])
    out = job["outcome"]
    assert out["status"] == "verified"
    assert big not in {address_of(a) for a in out["winners"]}
    assert c.get_runner(dev_account(ACCOUNTS[2]).address)["reputation"] == 70 - 5
    mine(1)  # the continuation
    assert c.view(feed, "price", ["ETH"])["price"] in (2500.5, 2500.0)
    assert c.get_timers(feed) == []
    check_settlement(c, feed, job, before, committee, paid_runners=(ACCOUNTS[0], ACCOUNTS[1]))


def check_settlement(c: Client, feed: str, job: dict, before: dict, committee: Committee, paid_runners) -> None:
    """Every wei of the escrow is where the payment rules put it."""
    out = job["outcome"]
    escrow = MAX_PRICE
    paid = BASE * len(paid_runners)
    bonus = min(MAX_PRICE * 200 // 10_000, MAX_PRICE - paid)
    assert (out["paid"], out["tip"], out["bonus"]) == (paid, 0, bonus)
    assert out["burned"] == sum(split(BASE)[0] for _ in paid_runners)
    assert out["treasury"] == sum(split(BASE)[1] for _ in paid_runners)
    assert out["refund"] == escrow - paid - bonus
    assert c.get_balance(JOB_DISPATCHER) == before["dispatcher"], "the escrow is spent to the wei"
    assert c.get_balance(feed) - before["feed"] == out["refund"] - escrow
    aggregator = address_of(out["aggregator"])
    for n in ACCOUNTS:
        me = dev_account(n).address
        earned = split(BASE)[2] if n in paid_runners else 0
        if address_of(me) == aggregator:
            earned += bonus
        assert c.get_balance(me) - before[n] == earned - committee.fees(c, n), f"runner {n}"


def test_silent_runners_the_job_fails_refunds_and_the_feed_gives_up(cowboy_client, mine, tmp_path):
    c = cowboy_client
    register_runners(c)
    feed = deploy_feed(c, 30)
    committee = Committee(c.url, [None, None, None], tmp_path, c.block_number() + 1)
    try:
        before = c.get_balance(feed)
        job_id = c.call(OWNER, feed, "request", ["ETH"])
        wait_until(lambda: all(any(a["action"] == "silent" for a in committee.actions(n)) for n in ACCOUNTS),
                   "every runner to see the job")
        deadline = c.get_job(job_id)["deadline"]
        mine(max(1, deadline + 1 - c.block_number()))
        job = c.get_job(job_id)
        assert job["status"] == "failed" and job["escrow"] == 0
        assert c.get_balance(JOB_DISPATCHER) == 0
        [failed] = [e["value"] for e in c.get_events(JOB_DISPATCHER, "JobFailed")]
        assert failed["refund"] == MAX_PRICE
        [timer] = c.get_timers(feed)
        run = c.wait_for_timer(timer["id"])
    finally:
        committee.stop()
    assert run["success"]
    assert c.get_timers(feed) == []
    assert [e["value"]["symbol"] for e in c.get_events(feed, "PriceTimedOut")] == ["ETH"]
    assert c.view(feed, "price", ["ETH"]) is None
    # The escrow came back whole: the feed paid only its timer's run.
    assert c.get_balance(feed) == before - run["feePaid"]
    for n in ACCOUNTS:
        assert c.get_runner(dev_account(n).address)["reputation"] < 70, "non-responders"
    # Nothing in flight: the owner may ask again.
    assert c.call(OWNER, feed, "request", ["ETH"]) != job_id


@pytest.fixture
def own_node(request, tmp_path):
    """A node of this test's own, to kill."""
    binary = request.config.getoption("--cowboyd") or find_cowboyd(Path(str(request.config.rootpath))) or find_cowboyd()
    if binary is None:
        pytest.fail("no cowboyd binary", pytrace=False)
    node = start_node(binary, tmp_path / "node", block_time_ms=0)
    yield node
    node.stop()


def test_the_job_and_its_outcome_survive_kill_9(own_node, tmp_path):
    node = own_node
    c = Client(node.url)
    register_runners(c)
    feed = deploy_feed(c, 100)
    job_id = c.call(OWNER, feed, "request", ["ETH"])
    assigned = c.get_job(job_id)
    assert assigned["status"] == "assigned"

    def kill_and_restart():
        height = c.block_number()
        node.process.send_signal(signal.SIGKILL)
        node.process.wait(timeout=30)
        node.start()
        assert c.block_number() == height

    kill_and_restart()
    assert c.get_job(job_id) == assigned

    committee = Committee(c.url, [2500.5, 2500.5, 2500.5], tmp_path, assigned["submitted_at"])
    try:
        job = wait_until(lambda: (j := c.get_job(job_id)) and j["outcome"] and j, "the job's outcome")
    finally:
        committee.stop()
    c.mine(1)
    price = c.view(feed, "price", ["ETH"])
    assert price["price"] == 2500.5

    kill_and_restart()
    assert c.get_job(job_id) == job
    assert c.view(feed, "price", ["ETH"]) == price
    assert c.get_timers(feed) == []
