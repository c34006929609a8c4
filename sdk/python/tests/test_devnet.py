"""Devnet controls through the SDK and the plugin (issue 19, item 4): on-demand blocks, each
test on a clean chain (snapshot/revert), ``mine`` and ``advance_time``, and the client's
``dev_*`` methods with their errors."""

import pytest

from cowboy.errors import RpcError
from cowboy.wallet import Wallet

pytestmark = pytest.mark.node

# One address both runs below pay: the second finds it empty only if the first was reverted.
PAYEE = Wallet(b"\x42" * 32).address


@pytest.mark.parametrize("run", [1, 2])
def test_each_test_starts_from_the_same_chain(cowboy_client, dev_wallet, run):
    assert cowboy_client.get_balance(PAYEE) == 0, f"run {run} sees an earlier test's transfer"
    cowboy_client.transfer(dev_wallet, PAYEE, 5)
    assert cowboy_client.get_balance(PAYEE) == 5


def test_a_transaction_is_sealed_at_once_and_alone(cowboy_client, dev_wallet):
    assert cowboy_client.mines_on_demand()
    r = cowboy_client.transfer(dev_wallet, Wallet.random().address, 1)
    assert cowboy_client.block_number() == r["blockHeight"], "no block beyond the transaction's"


def test_mine_and_advance_time(cowboy_client, mine, advance_time):
    tip = cowboy_client.block_number()
    assert mine() == tip + 1
    assert mine(3) == tip + 4
    before = cowboy_client.get_block(tip + 4)["timestamp"]
    hour = 3_600_000
    assert advance_time(hour) == tip + 5
    assert cowboy_client.get_block(tip + 5)["timestamp"] >= before + hour
    fixed = cowboy_client.get_block(tip + 5)["timestamp"] + hour
    cowboy_client.set_next_block_timestamp(fixed)
    mine()
    assert cowboy_client.get_block(tip + 6)["timestamp"] == fixed


def test_snapshot_and_revert_from_the_client(cowboy_client, dev_wallet):
    c = cowboy_client
    to = Wallet.random().address
    tip = c.block_number()
    snap = c.snapshot()
    c.transfer(dev_wallet, to, 7)
    c.mine(2)
    assert c.revert(snap) == tip
    assert c.block_number() == tip and c.get_balance(to) == 0
    # The client forgot its nonces: the next transfer reuses the reverted one's and goes in.
    r = c.transfer(dev_wallet, to, 8)
    assert r["success"] and c.get_balance(to) == 8
    with pytest.raises(RpcError) as e:
        c.revert(snap)
    assert e.value.code == -32001 and "no snapshot" in e.value.message


def test_bad_dev_arguments_are_typed_errors(cowboy_client):
    tip = cowboy_client.block_number()
    for call in (lambda: cowboy_client.mine(0), lambda: cowboy_client.mine(10_001)):
        with pytest.raises(RpcError) as e:
            call()
        assert e.value.code == -32602
    head = cowboy_client.get_block(tip)["timestamp"]
    with pytest.raises(RpcError) as e:
        cowboy_client.set_next_block_timestamp(head)
    assert e.value.code == -32602 and "not after" in e.value.message
    assert cowboy_client.block_number() == tip, "a refused control changes nothing"
