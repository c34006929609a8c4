"""The CIP-2 reads of the client against a real `cowboyd --dev`: dev accounts 5, 6 and 7
register as runners and account 0 submits a job with plain calls to the system actors; then
`get_runners`, `get_runner`, `get_job`, `get_job_candidates` and `get_jobs_of` read them back;
a runner's inbox endpoint is published with `Runner.register(endpoint=...)`."""

import pytest

from cowboy.crypto import keccak256
from cowboy.errors import CowboyError
from cowboy.runner import Runner, RunnerKey
from cowboy.wallet import CBY, Wallet, dev_account

pytestmark = pytest.mark.node

RUNNER_REGISTRY = "0x0000000000000000000000000000000000000001"
JOB_DISPATCHER = "0x0000000000000000000000000000000000000002"
# An Ed25519 public key (the base point): the registry checks it is a point; these runners never sign.
KEY = bytes.fromhex("58" + "66" * 31)
RUNNERS = (5, 6, 7)


def test_runners_and_jobs_are_read_back(cowboy_client):
    c = cowboy_client
    capabilities = {"job_types": ["http"], "domains": ["jobs.example.com"]}
    rates = [{"job_type": "http", "base": 1000}]
    for n in RUNNERS:
        c.call(dev_account(n), RUNNER_REGISTRY, "register",
               [KEY, capabilities, rates, 8, 0, 500], value=10_000 * CBY)
    mine = {dev_account(n).address.lower() for n in RUNNERS}
    listed = [r for r in c.get_runners() if r["address"]["bytes"] in mine]
    assert len(listed) == 3
    assert all(r["status"] == "active" and r["healthy"] for r in listed)
    one = c.get_runner(dev_account(5).address)
    assert one["reputation"] == 70
    assert c.get_runner(dev_account(9).address) is None

    for n in RUNNERS:  # fresh heartbeats, whatever else the session's node did meanwhile
        c.call(dev_account(n), RUNNER_REGISTRY, "heartbeat")
    spec = {
        "job_type": "http",
        "domains": ["jobs.example.com"],
        "bounds": {"max_tokens": 1, "max_wall_ms": 1, "max_memory_mb": 1},
        "result_schema": {"max_return_bytes": 64, "expected_execution_ms": 1, "data_format": "json"},
        "verification": {"mode": "structured_match", "runners": 3},
        "max_price": 3000,
        "timeout_blocks": 600,
        "callback": {"handler": "on_result"},
    }
    me = dev_account(0)
    before = len(c.get_jobs_of(me.address))
    job_id = c.call(me, JOB_DISPATCHER, "submit_job", [spec], value=3000)
    assert isinstance(job_id, bytes) and len(job_id) == 32

    job = c.get_job(job_id)
    assert job["status"] == "assigned"
    assert job["submitter"]["bytes"] == me.address.lower()
    committee = {a["bytes"] for a in job["selected"]}
    assert committee <= mine
    assert len(committee) == 3
    assert job["outcome"] is None
    snapshot = c.get_job_candidates(job_id)
    assert {e[0]["bytes"] for e in snapshot} >= committee
    jobs = c.get_jobs_of(me.address)
    assert len(jobs) == before + 1 and jobs[-1]["job_id"]["bytes"] == "0x" + job_id.hex()
    assert c.get_job(b"\0" * 32) is None


ENTITLEMENT_REGISTRY = "0x0000000000000000000000000000000000000007"


def test_entitlements_are_read_back(cowboy_client):
    """Dev account 8 claims a namespace by granting in it to account 9; `get_entitlements`
    reads the grant back (CIP-2 §7, `cowboy_getEntitlements`)."""
    c = cowboy_client
    owner, holder = dev_account(8), dev_account(9)
    before = len(c.get_entitlements(holder.address))
    scope = ["namespace", b"sdk-test-" + bytes([before])]
    action = ["custom", b"read"]
    ent_id = c.call(owner, ENTITLEMENT_REGISTRY, "grant", [bytes.fromhex(holder.address[2:]), scope, action, {}])
    assert isinstance(ent_id, bytes) and len(ent_id) == 32
    held = c.get_entitlements(holder.address)
    assert len(held) == before + 1
    mine = [e for e in held if e["id"]["bytes"] == "0x" + ent_id.hex()]
    assert len(mine) == 1 and mine[0]["in_force"] is True
    assert mine[0]["grantor"]["bytes"] == owner.address.lower()
    assert mine[0]["entitlement"]["parent_id"] is None


def test_register_publishes_the_inbox_endpoint(cowboy_client):
    """``Runner.register(endpoint=...)`` puts the inbox URL in the profile, where
    ``cowboy_getRunner`` shows it (other runners push their results there); a malformed one is
    refused by the registry."""
    c = cowboy_client
    wallet = Wallet(keccak256(b"cowboy-test-endpoint-runner"))
    c.set_balance(wallet.address, 20_000 * CBY)
    runner = Runner(c, wallet, RunnerKey(keccak256(b"cowboy-test-endpoint-key")))
    caps = {"job_types": ["http"], "domains": ["api.example.com"]}
    rates = [{"job_type": "http", "base": 1000}]
    with pytest.raises(CowboyError, match="capabilities.endpoint"):
        runner.register(caps, rates, 10_000 * CBY, endpoint="ftp://runner.example.com")
    runner.register(caps, rates, 10_000 * CBY, endpoint="http://127.0.0.1:9400")
    assert c.get_runner(wallet.address)["endpoint"] == "http://127.0.0.1:9400"
