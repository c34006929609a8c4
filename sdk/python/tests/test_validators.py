"""The staking reads and transactions of the client against a real `cowboyd --dev`: the dev
chain's one genesis validator is the epoch-0 set, staked with the minimum, and an account that
never registered has no record; a dev account registers with keys `cowboy validator key-args`
derives from a key file (the SDK cannot sign BLS), adds stake, rotates its keys, signals its
exit and is refused a withdrawal before the unbonding period; a proof of possession signed for
another account is refused by name. No epoch boundary is crossed (the dev chain's epochs are
3,600 blocks), so nothing here joins the active set and no block has hook events."""

import json
import os
import subprocess

import pytest

from cowboy import CBY, ActorError
from cowboy.client import STAKING
from cowboy.wallet import dev_account

pytestmark = pytest.mark.node


# The dev genesis's `minimum_validator_stake_wei` (GenesisParams' default, which
# crates/node/src/genesis.rs keeps for the dev chain).
MIN_STAKE = 100_000 * 10**18


def test_validator_set_epoch_and_records(cowboy_client):
    c = cowboy_client
    epoch = c.get_epoch()
    assert epoch["epoch"] >= 0
    current = c.get_validator_set()
    assert current["epoch"] == epoch["epoch"]
    members = current["members"]
    assert len(members) == 1, members
    (only,) = members
    assert int(only["power"]) == MIN_STAKE
    assert len(only["consensus_key"]["bytes"]) == 2 + 64
    assert len(only["bls_key"]["bytes"]) == 2 + 96

    record = c.get_validator(only["validator"]["bytes"])
    assert record["status"] == "active"
    assert c.get_validator(dev_account(9).address) is None
    assert c.get_validator_set(10**9)["members"] is None


@pytest.fixture
def key_args(cowboy_bin, tmp_path):
    """``key_args(address)`` → the ``{bls_key, pop, consensus_key}`` of a fresh validator key
    file (a new random seed each call), the proof of possession signed for ``address``."""
    made = []

    def derive(address: str) -> dict:
        key = tmp_path / f"validator-{len(made)}.key"
        key.write_text(os.urandom(32).hex() + "\n")
        made.append(key)
        argv = [cowboy_bin, "validator", "key-args", "--validator-key", str(key), "--for", address]
        out = subprocess.run(argv, capture_output=True, text=True, check=False)
        assert out.returncode == 0, out.stderr
        return json.loads(out.stdout)

    return derive


def _bytes(v) -> str:
    """The hex of a bytes field as the RPC renders it (``{"bytes": "0x…"}``), lowercase."""
    return v["bytes"].lower()


def _event(receipt: dict, topic: str) -> dict:
    (value,) = [e["value"] for e in receipt["events"] if e["topic"] == topic]
    return value


def test_register_add_stake_rotate_exit_and_withdraw_too_early(cowboy_client, set_balance, key_args):
    c = cowboy_client
    me = dev_account(4)
    set_balance(me.address, 3 * MIN_STAKE)
    keys = key_args(me.address)
    assert c.get_validator(me.address) is None

    epoch = c.get_epoch()["epoch"]
    r = c.register_validator(me, MIN_STAKE, keys["bls_key"], keys["pop"], keys["consensus_key"])
    assert r["success"]
    assert _event(r, "ValidatorRegistered")["active_from_epoch"] == epoch + 1
    assert c.get_balance(me.address) == 3 * MIN_STAKE - MIN_STAKE - r["feePaid"]
    record = c.get_validator(me.address)
    assert record["status"] == "pending", record
    assert int(record["stake"]) == MIN_STAKE
    assert _bytes(record["bls_key"]) == keys["bls_key"]
    assert _bytes(record["consensus_key"]) == keys["consensus_key"]
    # Registered, waiting for the next boundary: not in this epoch's set.
    members = c.get_validator_set()["members"]
    assert me.address.lower() not in [_bytes(m["validator"]) for m in members]

    r = c.add_stake(me, 5 * CBY)
    assert int(_event(r, "StakeAdded")["stake"]) == MIN_STAKE + 5 * CBY
    assert int(c.get_validator(me.address)["stake"]) == MIN_STAKE + 5 * CBY

    # New keys wait as next_keys; the current ones stay until the boundary.
    new = key_args(me.address)
    r = c.rotate_validator_keys(me, new["bls_key"], new["pop"], new["consensus_key"])
    assert _event(r, "KeysRotated")["effective_epoch"] == epoch + 1
    record = c.get_validator(me.address)
    assert [_bytes(k) for k in record["next_keys"]] == [new["bls_key"], new["consensus_key"]]
    assert _bytes(record["bls_key"]) == keys["bls_key"]

    # A validator that is not jailed has nothing to unjail.
    with pytest.raises(ActorError) as e:
        c.unjail(me)
    assert e.value.class_name == "NotJailed"

    r = c.signal_exit(me)
    withdraw_at = _event(r, "ExitSignalled")["withdraw_at"]
    assert withdraw_at > r["blockHeight"]
    # Never in the set, so unbonding at once (an active one would be exiting until the boundary).
    record = c.get_validator(me.address)
    assert record["status"] == "unbonding", record
    assert record["withdraw_at"] == withdraw_at
    with pytest.raises(ActorError) as e:
        c.add_stake(me, CBY)
    assert e.value.class_name == "Exiting"

    # Withdrawing before the unbonding period: the estimate's simulation refuses it, so
    # nothing is sent...
    balance = c.get_balance(me.address)
    with pytest.raises(ActorError) as e:
        c.withdraw_stake(me)
    err = e.value
    assert err.simulated and err.receipt is None
    assert err.class_name == "StillBonded"
    assert f"unbonds at height {withdraw_at}" in err.message, err.message
    assert c.get_balance(me.address) == balance
    assert c.get_validator(me.address) == record
    # ...and forced, the mined transaction fails the same way and only its fee is spent.
    with pytest.raises(ActorError) as e:
        c.withdraw_stake(me, force=True)
    err = e.value
    assert not err.simulated and err.receipt["success"] is False
    assert err.class_name == "StillBonded"
    assert c.get_balance(me.address) == balance - err.receipt["feePaid"]
    assert c.get_validator(me.address) == record


def test_register_with_a_proof_of_possession_for_another_account_is_refused(
    cowboy_client, set_balance, key_args
):
    c = cowboy_client
    me = dev_account(4)
    set_balance(me.address, 3 * MIN_STAKE)
    # A valid proof, but signed for dev account 5: replaying another registrant's proof must
    # not let this account claim the key. Refused by the estimate (nothing sent), and forced,
    # by the mined transaction (only its fee spent).
    theirs = key_args(dev_account(5).address)
    for forced in (False, True):
        balance = c.get_balance(me.address)
        with pytest.raises(ActorError) as e:
            c.register_validator(
                me, MIN_STAKE, theirs["bls_key"], theirs["pop"], theirs["consensus_key"], force=forced
            )
        err = e.value
        assert err.class_name == "BadProofOfPossession"
        assert "pop" in err.message, err.message
        assert c.get_validator(me.address) is None
        spent = err.receipt["feePaid"] if forced else 0
        assert c.get_balance(me.address) == balance - spent

    # Garbage in the pop's place is refused under the same name.
    mine = key_args(me.address)
    with pytest.raises(ActorError) as e:
        c.register_validator(me, MIN_STAKE, mine["bls_key"], b"\x01" * 10, mine["consensus_key"])
    assert e.value.class_name == "BadProofOfPossession"
    assert c.get_validator(me.address) is None


def test_hook_events_of_a_block(cowboy_client):
    """``get_hook_events``: the events of a block's system hooks, by phase. The dev chain's
    first boundary is 3,600 blocks away (mining there takes minutes on a debug node), so its
    blocks have none; what a boundary reports is tested by exec's staking tests and over
    real processes by the node's staking devnet test."""
    c = cowboy_client
    tip = c.mine(1)
    assert c.get_hook_events() == {"begin": [], "end": []}
    assert c.get_hook_events(1) == {"begin": [], "end": []}
    assert c.get_hook_events(10**9) is None
    # The staking actor's events are served by address like any actor's.
    assert c.get_events(address=STAKING, topic="EpochStarted", from_block=max(0, tip - 100)) == []


def test_a_subscription_tells_hook_events_of_both_phases_apart():
    """A reconnecting events subscription skips what it delivered by key: the first event of a
    block's ``begin_block`` hooks and the first of its ``end_block`` hooks (both index 0, no
    transaction, no timer) are different events."""
    from cowboy.client import _EventsSubscription

    begin = {"blockHeight": 7, "transactionHash": None, "index": 0, "hook": "begin"}
    end = dict(begin, hook="end")
    timer = {"blockHeight": 7, "transactionHash": None, "index": 0, "timerExecutionHash": "0x01"}
    keys = {_EventsSubscription._key(e) for e in (begin, end, timer)}
    assert len(keys) == 3

