"""cowboy.local: running an actor without a node from Python, through `cowboy actor test`
(needs the `cowboy` binary: `$COWBOY`, else target/debug/cowboy of this checkout)."""

from __future__ import annotations

import pathlib

import pytest

from cowboy import CowboyError, dev_account
from cowboy.local import call, mine, run_actor, view

REPO = pathlib.Path(__file__).resolve().parents[3]
TOKEN = REPO / "examples" / "actors" / "token.py"


def test_token_scenario_with_a_failure(cowboy_bin):
    bob = dev_account(1).address
    big = 10**24  # beyond 64 bits: must arrive exact
    run = run_actor(
        TOKEN,
        [
            call("transfer", [bob.lower(), 5]),
            view("balance_of(dev1)"),
            view("balance_of", {"holder": dev_account(0).address}),
            call("transfer(dev0, 10)", sender=1),
            call("transfer", [bob, 1], sender="dev0"),
        ],
        args=["Tok", big],
        keep_going=True,
        cowboy=cowboy_bin,
    )
    assert not run.ok
    assert run.actor and run.actor.startswith("0x")
    deploy, transfer, bal, bal0, bad, again = run.steps
    assert deploy.kind == "deploy" and deploy.success and deploy.fee_paid > 0
    assert transfer.return_value is True
    assert transfer.events[0]["topic"] == "Transfer"
    assert transfer.events[0]["dataValue"]["to"] == bob
    assert bal.return_value == 5
    assert int(bal0.return_value) == big - 5  # beyond 2^53: a decimal string
    assert not bad.success and bad.fee_paid > 0
    assert "in transfer" in bad.traceback and "insufficient balance: 5 < 10" in bad.traceback
    assert again.success and again.raw["blockHeight"] == 4


def test_value_and_mining(cowboy_bin):
    hb = REPO / "examples" / "actors" / "heartbeat.py"
    run = run_actor(hb, [mine(2), view("status")], args=[2], value="1cby", cowboy=cowboy_bin)
    assert run.ok
    assert [s.kind for s in run.steps] == ["deploy", "mine", "timer", "view"]
    assert run.steps[-1].return_value["beats"] == 1


def test_errors_raise(cowboy_bin):
    with pytest.raises(CowboyError, match="unknown name"):
        run_actor(TOKEN, [call("transfer(bob, 1)")], args=["T", 1], cowboy=cowboy_bin)
    with pytest.raises(CowboyError, match="dev account"):
        run_actor(TOKEN, [], args=["T", 1], sender=42, cowboy=cowboy_bin)
    with pytest.raises(TypeError):
        call("f", 5).argv()
