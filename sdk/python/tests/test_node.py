"""Integration tests against a real `cowboyd --dev` (started by the cowboy_node fixture of the
plugin). Marked `node`: `pytest -m "not node"` deselects them while no binary is built; with
them selected and no binary, they fail with a message saying how to get one."""

import asyncio
from pathlib import Path

import pytest

from cowboy import cbor
from cowboy.client import Client, storage_key_bytes
from cowboy.crypto import canonicalize_source, code_hash, hex0x, to_checksum_address
from cowboy.errors import ActorError, ProofError, RpcError, TransactionRejected
from cowboy.proof import verify_inclusion, verify_storage
from cowboy.tx import Call, Transaction
from cowboy.wallet import CBY, DEV_CHAIN_ID, Wallet, dev_account

pytestmark = pytest.mark.node

COUNTER = Path(__file__).resolve().parents[3] / "examples" / "actors" / "counter.py"

BELL = '''\
from cowboy_sdk import actor, emit_event, sender


@actor
class Bell:
    def __init__(self, note="ding"):
        self.storage["note"] = note
        self.storage["rings"] = 0

    def ring(self, times=1):
        for _ in range(times):
            self.storage["rings"] += 1
            emit_event("Rang", {"n": self.storage["rings"], "note": self.storage["note"]})
        return self.storage["rings"]

    def echo(self, *args, **kwargs):
        return [list(args), kwargs, sender()]

    def fail(self, why):
        if why:
            raise ValueError("bad bell: " + why)
        return 0
'''
FAIL_LINE = next(i for i, l in enumerate(BELL.split("\n"), 1) if "raise ValueError" in l)


def counter_source():
    assert COUNTER.exists(), f"{COUNTER} missing"
    return COUNTER.read_text()


@pytest.fixture(scope="module")
def bell(cowboy_client, dev_wallet):
    address, receipt = cowboy_client.deploy(dev_wallet, BELL, {"note": "dong"})
    return address


def test_chain_basics(cowboy_client):
    c = cowboy_client
    assert c.chain_id() == DEV_CHAIN_ID
    h = c.block_number()
    fees = c.basefees()
    assert isinstance(fees["cycleBasefee"], int) and isinstance(fees["cellBasefee"], int)
    latest = c.get_block("latest")
    assert latest["height"] >= h
    by_hash = c.get_block(latest["hash"])
    assert by_hash["height"] == latest["height"] and by_hash["stateRoot"] == latest["stateRoot"]
    assert c.get_block(0)["height"] == 0
    assert c.get_block(10**9) is None
    acct = c.get_account(dev_account(9).address)
    assert acct["balance"] > 0 and acct["isActor"] is False
    assert c.get_receipt("0x" + "00" * 32) is None
    assert c.get_transaction("0x" + "00" * 32) is None


def test_unknown_method_is_a_typed_rpc_error(cowboy_client):
    with pytest.raises(RpcError) as e:
        cowboy_client.request("cowboy_noSuchMethod")
    assert e.value.code == -32601


def test_transfer_moves_value(cowboy_client, funded_wallet):
    c = cowboy_client
    assert c.get_balance(funded_wallet.address) == 1_000 * CBY
    other = Wallet.random()
    receipt = c.transfer(funded_wallet, other.address, 5 * CBY)
    assert receipt["success"] is True
    assert c.get_balance(other.address) == 5 * CBY
    assert c.get_balance(funded_wallet.address) == 1_000 * CBY - 5 * CBY - receipt["feePaid"]
    tx = c.get_transaction(receipt["transactionHash"])
    assert tx["kind"] == "transfer" and tx["value"] == 5 * CBY
    assert to_checksum_address(tx["from"]) == funded_wallet.address
    assert c.get_account(funded_wallet.address)["nonce"] == 1


def test_deploy_counter_increment_view_and_storage_proof(cowboy_client, funded_wallet):
    c = cowboy_client
    source = counter_source()
    address, receipt = c.deploy(funded_wallet, source, [5], salt=7)
    assert receipt["success"] is True
    assert address == funded_wallet.actor_address(source, 7)
    assert to_checksum_address(receipt["contractAddress"]) == address
    acct = c.get_account(address)
    assert acct["isActor"] is True
    assert acct["codeHash"] == hex0x(code_hash(canonicalize_source(source)))
    assert c.get_actor_source(address)["source"] == canonicalize_source(source)

    assert c.call(funded_wallet, address, "increment") == 6
    value, r = c.call(funded_wallet, address, "increment", {"by": 3}, receipt=True)
    assert value == 9 and r["success"] is True and r["returnValue"] == 9
    # The call and its receipt, proven in their block against its header alone.
    p = c.get_transaction_proof(r["transactionHash"])
    assert p["verified"] and p["blockHash"] == r["blockHash"]
    assert cbor.decode(p["receipt"])[0] == 1  # status: success
    with pytest.raises(ProofError):
        verify_inclusion(cbor.decode(p["header"])[5], b"\x01" * 32, p["transactionProof"])
    assert c.get_transaction_proof("0x" + "09" * 32) is None
    assert c.view(address, "get") == 9
    assert c.call(address, "get") == 9  # read-only form
    sim = c.simulate(address, "increment", [10])
    assert sim["success"] is True and sim["value"] == 19
    assert c.view(address, "get") == 9  # the simulation wrote nothing

    entry = c.get_storage(address, "count")
    assert entry.verified and entry.exists and entry.value == 9
    assert entry.key == bytes.fromhex("65636f756e74")
    # The proof binds exactly this value under the block's state root.
    verify_storage(entry.state_root, address, entry.key, entry.raw, entry.proof)
    with pytest.raises(ProofError):
        verify_storage(entry.state_root, address, entry.key, cbor.encode(10), entry.proof)
    with pytest.raises(ProofError):
        verify_storage(entry.state_root, address, entry.key, None, entry.proof)
    header = c.get_block(entry.height)
    assert header["stateRoot"] == entry.state_root

    missing = c.get_storage(address, "no-such-key")
    assert missing.verified and not missing.exists and missing.value is None
    with pytest.raises(ProofError):
        verify_storage(missing.state_root, address, missing.key, cbor.encode(0), missing.proof)
    raw = c.get_storage(address, storage_key_bytes("count"), raw_key=True)
    assert raw.value == 9


def test_events_in_receipts_and_queries(cowboy_client, dev_wallet, bell):
    c = cowboy_client
    start = c.block_number()
    n, r = c.call(dev_wallet, bell, "ring", [2], receipt=True)
    assert n >= 2
    evs = r["events"]
    assert [e["topic"] for e in evs] == ["Rang", "Rang"]
    assert [e["value"]["n"] for e in evs] == [n - 1, n]
    assert evs[0]["value"]["note"] == "dong"
    assert to_checksum_address(evs[0]["emitter"]) == bell
    found = c.get_events(address=bell, topic="Rang", from_block=start)
    assert [(e["blockHeight"], e["index"]) for e in found] == [(r["blockHeight"], 0), (r["blockHeight"], 1)]
    assert c.get_events(address=bell, topic="Nope", from_block=start) == []


def test_positional_and_keyword_arguments(cowboy_client, dev_wallet, bell):
    c = cowboy_client
    got = c.view(bell, "echo", [1, "two", b"\x03"], sender=dev_wallet.address)
    assert got[0] == [1, "two", b"\x03"] and got[1] == {}
    assert to_checksum_address(got[2]) == dev_wallet.address
    got = c.view(bell, "echo", {"a": 1, "b": [True, None]})
    assert got[0] == [] and got[1] == {"a": 1, "b": [True, None]}


def test_actor_failure_raises_actor_error_with_the_line(cowboy_client, dev_wallet, bell):
    c = cowboy_client
    # Read-only: fails in the simulation.
    with pytest.raises(ActorError) as e:
        c.view(bell, "fail", ["cracked"])
    err = e.value
    assert err.class_name == "ValueError" and "bad bell: cracked" in err.message
    assert err.line == FAIL_LINE and err.receipt is None and err.simulated
    text = str(err)
    assert 'raise ValueError("bad bell: " + why)' in text
    assert f"line {FAIL_LINE}" in text and "ValueError: bad bell: cracked" in text

    # A transaction: the fee estimate already fails, so nothing is sent...
    nonce = c.next_nonce(dev_wallet.address)
    with pytest.raises(ActorError) as e:
        c.call(dev_wallet, bell, "fail", ["chipped"])
    assert e.value.simulated and c.next_nonce(dev_wallet.address) == nonce

    # ...unless forced: then the failed receipt comes back inside the error.
    with pytest.raises(ActorError) as e:
        c.call(dev_wallet, bell, "fail", ["broken"], force=True)
    err = e.value
    assert not err.simulated and err.receipt is not None and err.receipt["success"] is False
    assert err.class_name == "ValueError" and err.line == FAIL_LINE
    assert "bad bell: broken" in str(err) and 'raise ValueError("bad bell: " + why)' in str(err)
    assert c.call(dev_wallet, bell, "fail", [""]) == 0


def test_failed_deploy_raises_actor_error(cowboy_client, funded_wallet):
    bad = "from cowboy_sdk import actor\n\n\n@actor\nclass Bad:\n    def __init__(self):\n        raise RuntimeError('no init')\n"
    with pytest.raises(ActorError) as e:
        cowboy_client.deploy(funded_wallet, bad)
    assert e.value.class_name == "RuntimeError" and e.value.line == 7
    assert "raise RuntimeError('no init')" in str(e.value)


def test_rejections_are_typed(cowboy_client, funded_wallet):
    c = cowboy_client
    fees = c.basefees()
    base = dict(
        nonce=0, to=dev_account(1).address, value=1, cycles_limit=100_000, cells_limit=10_000,
        max_fee_per_cycle=2 * fees["cycleBasefee"] + 1, max_fee_per_cell=2 * fees["cellBasefee"] + 1,
        tip_per_cycle=1, tip_per_cell=1,
    )
    wrong_chain = Transaction(chain_id=DEV_CHAIN_ID + 1, **base).sign(funded_wallet.private_key)
    with pytest.raises(TransactionRejected) as e:
        c.send_raw_transaction(wrong_chain)
    assert e.value.reason == "wrongChain" and e.value.code == -32000
    with pytest.raises(TransactionRejected) as e:
        c.send_raw_transaction(b"\x00garbage")
    assert e.value.reason == "decode"
    broke = Wallet.random()
    poor = Transaction(chain_id=DEV_CHAIN_ID, **base).sign(broke.private_key)
    with pytest.raises(TransactionRejected) as e:
        c.send_raw_transaction(poor)
    assert e.value.reason == "insufficientBalance"


def test_raw_transaction_hash_matches_the_node(cowboy_client, funded_wallet, bell):
    c = cowboy_client
    tx = c.build_transaction(funded_wallet, bell, Call("ring", []).encode())
    h = c.send_raw_transaction(tx.encode())
    assert h == tx.hash_hex()
    r = c.wait_for_receipt(h, timeout=30)
    assert r["transactionHash"] == h and r["success"] is True
    got = c.get_transaction(h)
    assert got["kind"] == "call" and got["handler"] == "ring" and got["payload"] == hex0x(tx.payload)
    block = c.get_block(r["blockHeight"], full=True)
    assert h in [t["hash"] for t in block["transactions"]]


def test_subscribe_new_heads_resumes_without_gaps(cowboy_client, mine_in_background):
    async def run():
        heads = []
        sub = cowboy_client.subscribe_new_heads()
        try:
            async for head in sub:
                heads.append(head["height"])
                if len(heads) == 2:
                    await sub.drop_connection()
                    await asyncio.sleep(1.0)  # several blocks pass while disconnected
                if len(heads) >= 8:
                    break
        finally:
            await sub.aclose()
        return heads, sub.reconnects

    with mine_in_background():
        heads, reconnects = asyncio.run(asyncio.wait_for(run(), 60))
    assert reconnects >= 1
    assert heads == list(range(heads[0], heads[0] + len(heads))), heads


def test_subscribe_events_and_receipt(cowboy_client, dev_wallet, bell):
    c = cowboy_client

    async def run():
        sub = c.subscribe_events(address=bell, topic="Rang")
        got = []
        try:
            it = sub.__aiter__()
            # Subscribe first, then cause events from a thread.
            first = asyncio.ensure_future(it.__anext__())
            await asyncio.sleep(0.5)
            h = await asyncio.to_thread(c.send_transaction, dev_wallet, bell, Call("ring", [1]).encode())
            receipt = await asyncio.wait_for(c.subscribe_receipt(h), 30)
            got.append(await asyncio.wait_for(first, 30))
            # Drop the connection, ring twice while away, and get both exactly once.
            await sub.drop_connection()
            await asyncio.to_thread(c.call, dev_wallet, bell, "ring", [2])
            while len(got) < 3:
                got.append(await asyncio.wait_for(it.__anext__(), 30))
        finally:
            await sub.aclose()
        return got, receipt, sub.reconnects

    got, receipt, reconnects = asyncio.run(asyncio.wait_for(run(), 90))
    assert receipt["success"] is True and receipt["transactionHash"] == got[0]["transactionHash"]
    ns = [e["value"]["n"] for e in got]
    assert ns == list(range(ns[0], ns[0] + 3)), ns
    assert reconnects >= 1
    keys = [(e["blockHeight"], e["transactionHash"], e["index"]) for e in got]
    assert len(set(keys)) == 3


def test_backfilling_subscriptions_and_finalized_receipts(cowboy_client, dev_wallet, bell, mine_in_background):
    c = cowboy_client
    n, r = c.call(dev_wallet, bell, "ring", [1], receipt=True)
    height = r["blockHeight"]

    async def run():
        # A receipt that is already final arrives at once.
        receipt = await asyncio.wait_for(c.subscribe_receipt(r["transactionHash"]), 30)
        # Heads from an earlier height: the history first, then live, contiguous.
        heads = []
        sub = c.subscribe_new_heads(since=height)
        async for head in sub:
            heads.append(head["height"])
            if head["height"] >= height + 3 and len(heads) >= 4:
                break
        await sub.aclose()
        # Events from an earlier block: the ring above comes back first.
        events = c.subscribe_events(address=bell, topic="Rang", from_block=height)
        first = await asyncio.wait_for(events.__anext__(), 30)
        await events.aclose()
        return receipt, heads, first

    with mine_in_background():
        receipt, heads, first = asyncio.run(asyncio.wait_for(run(), 60))
    assert receipt["transactionHash"] == r["transactionHash"] and receipt["blockHeight"] == height
    assert heads[0] == height and heads == list(range(height, height + len(heads)))
    assert first["transactionHash"] == r["transactionHash"] and first["value"]["n"] == n


def test_batch_requests(cowboy_client):
    chain_id, number, bad = cowboy_client.batch(
        [("cowboy_chainId", []), ("cowboy_blockNumber", []), ("cowboy_getBlockByHash", ["nope"])]
    )
    assert chain_id == DEV_CHAIN_ID and isinstance(number, int)
    assert isinstance(bad, RpcError) and bad.code == -32602


@pytest.fixture
def private_node(tmp_path, cowboy_node):
    """A second node of our own, which the test may stop and restart."""
    from cowboy.pytest_plugin import start_node

    node = start_node(cowboy_node.binary, tmp_path / "private")
    try:
        yield node
    finally:
        node.stop()


def test_subscriptions_survive_a_node_restart(private_node):
    c = Client(private_node.url)
    me = dev_account(0)
    bell_addr, _ = c.deploy(me, BELL)

    async def run():
        heads, events = [], []
        hsub = c.subscribe_new_heads(backoff=0.05, max_backoff=0.5)
        esub = c.subscribe_events(address=bell_addr, backoff=0.05, max_backoff=0.5)

        async def collect(sub, out, until):
            async for x in sub:
                out.append(x)
                if until(out):
                    return

        ev_task = asyncio.ensure_future(collect(esub, events, lambda o: len(o) >= 4))
        hd_task = asyncio.ensure_future(collect(hsub, heads, lambda o: False))
        await asyncio.sleep(0.5)
        await asyncio.to_thread(c.call, me, bell_addr, "ring", [1])
        while not events:
            await asyncio.sleep(0.05)
        # The node goes away and comes back; events happen before the subscriptions reconnect.
        await asyncio.to_thread(private_node.restart)
        await asyncio.to_thread(c.call, me, bell_addr, "ring", [3])
        await asyncio.wait_for(ev_task, 60)
        target = c.block_number() + 3
        while not heads or heads[-1]["height"] < target:
            await asyncio.sleep(0.1)
        hd_task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await hd_task
        await hsub.aclose()
        await esub.aclose()
        return heads, events, hsub.reconnects, esub.reconnects

    heads, events, hre, ere = asyncio.run(asyncio.wait_for(run(), 120))
    assert hre >= 1 and ere >= 1
    hs = [h["height"] for h in heads]
    assert hs == list(range(hs[0], hs[0] + len(hs))), hs
    ns = [e["value"]["n"] for e in events]
    assert ns == [1, 2, 3, 4], ns
