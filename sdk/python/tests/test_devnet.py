"""Devnet controls through the SDK and the plugin (issue 19, item 4): on-demand blocks, each
test on a clean chain (snapshot/revert), ``mine`` and ``advance_time``, ``set_balance`` and
``impersonate``, and the client's ``dev_*`` methods with their errors."""

from pathlib import Path

import pytest

from cowboy.errors import RpcError
from cowboy.wallet import CBY, Wallet

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "actors"

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


# An address nobody holds a key for: only set-balance and impersonation can fund and move it.
KEYLESS = "0x" + "51" * 20


@pytest.mark.parametrize("run", [1, 2])
def test_set_balance_is_undone_for_the_next_test(cowboy_client, set_balance, run):
    assert cowboy_client.get_balance(KEYLESS) == 0, f"run {run} sees an earlier test's balance"
    r = set_balance(KEYLESS, 3 * CBY)
    assert r["success"] and int(r["feePaid"]) == 0
    assert cowboy_client.get_balance(KEYLESS) == 3 * CBY


def test_set_balance_then_revert_restores_it(cowboy_client, set_balance, dev_wallet):
    c = cowboy_client
    before = c.get_balance(dev_wallet.address)
    snap = c.snapshot()
    set_balance(dev_wallet.address, 1)
    assert c.get_balance(dev_wallet.address) == 1
    c.revert(snap)
    assert c.get_balance(dev_wallet.address) == before


def test_impersonate_a_keyless_account_and_act_as_it(cowboy_client, set_balance, impersonate):
    c = cowboy_client
    set_balance(KEYLESS, 10 * CBY)
    owner = impersonate(KEYLESS)
    payee = Wallet.random().address
    r = c.transfer(owner, payee, 2 * CBY)
    assert r["success"] and int(r["feePaid"]) > 0, "an impersonated sender pays its fees"
    assert c.get_balance(payee) == 2 * CBY
    assert c.get_balance(KEYLESS) == 8 * CBY - int(r["feePaid"])
    # It deploys and calls like any wallet: the actor sees it as its sender.
    with open(EXAMPLES / "token.py") as f:
        token, _ = c.deploy(owner, f.read(), {"name": "T", "supply": 1000})
    assert c.view(token, "balance_of", [KEYLESS]) == 1000
    c.call(owner, token, "transfer", [payee, 250])
    assert c.view(token, "balance_of", [payee]) == 250
    assert c.next_nonce(KEYLESS) == 3


def test_dev_transactions_need_an_unsigned_transaction(cowboy_client, dev_wallet):
    signed = cowboy_client.build_transaction(dev_wallet, KEYLESS, b"", 1)
    with pytest.raises(RpcError) as e:
        cowboy_client.request("dev_impersonate", [KEYLESS, "0x" + signed.encode().hex()])
    assert e.value.code == -32602 and "unsigned" in e.value.message
