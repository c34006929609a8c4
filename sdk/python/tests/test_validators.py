"""The staking reads of the client against a real `cowboyd --dev`: the dev chain's one genesis
validator is the epoch-0 set, staked with the minimum, and an account that never registered
has no record."""

import pytest

from cowboy.wallet import dev_account

pytestmark = pytest.mark.node

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
