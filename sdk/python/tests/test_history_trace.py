"""Reads at a block and transaction traces through the client (issue 19, items 2 and 6):
``block=`` on ``get_balance``, ``get_storage`` and ``view`` reads an older block's state, and
``trace_transaction`` returns a finalized transaction's call tree."""

from pathlib import Path

import pytest

from cowboy.errors import RpcError
from cowboy.tx import Call, encode_args

pytestmark = pytest.mark.node

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "actors"
COUNTER = (EXAMPLES / "counter.py").read_text()
RELAY = (EXAMPLES / "relay.py").read_text()


def test_reads_at_a_block_see_that_blocks_state(cowboy_client, dev_wallet):
    c = cowboy_client
    counter, _ = c.deploy(dev_wallet, COUNTER, [40])
    _, first = c.call(dev_wallet, counter, "increment", [2], receipt=True)
    h = first["blockHeight"]
    balance_then = c.get_balance(dev_wallet.address, block=h)
    c.call(dev_wallet, counter, "increment", [3])
    assert c.view(counter, "get", block=h) == 42
    assert c.view(counter, "get") == 45
    old = c.get_storage(counter, "count", block=h)
    assert old.value == 42 and old.height == h and not old.verified
    assert c.get_storage(counter, "count").verified
    assert c.get_balance(dev_wallet.address, block=h) == balance_then
    assert c.get_balance(dev_wallet.address) < balance_then
    with pytest.raises(RpcError) as e:
        c.get_balance(dev_wallet.address, block=c.block_number() + 100)
    assert e.value.code == -32001 and "history window" in e.value.message
    with pytest.raises(ValueError):
        c.get_balance(dev_wallet.address, block=-1)


def test_a_trace_is_the_call_tree_with_storage_and_failures(cowboy_client, dev_wallet):
    c = cowboy_client
    a, _ = c.deploy(dev_wallet, RELAY)
    b, _ = c.deploy(dev_wallet, RELAY)
    _, r = c.call(dev_wallet, a, "ping", [b, 1], receipt=True)
    t = c.trace_transaction(r["transactionHash"])
    assert t["success"] and t["cyclesUsed"] == r["cyclesUsed"]
    (top,) = t["calls"]
    assert (top["kind"], top["handler"], top["returnValue"]) == ("call", "ping", 1)
    (msg,) = top["calls"]
    assert msg["kind"] == "message" and msg["to"].lower() == b.lower() and msg["depth"] == 1
    assert msg["calls"] == []
    for frame in (top, msg):
        assert frame["cycles"] > 0
        assert [s["op"] for s in frame["storage"]][:1] == ["read"]
    failed = c.send_transaction(dev_wallet, a, Call("fail_after", encode_args([b, 1])).encode(), force=True)
    fr = c.wait_for_receipt(failed)
    assert not fr["success"]
    t = c.trace_transaction(failed)
    err = t["calls"][0]["calls"][0]["error"]
    assert err["class"] == "RuntimeError" and err["line"] is not None
    with pytest.raises(RpcError) as e:
        c.trace_transaction("0x" + "07" * 32)
    assert e.value.code == -32001

