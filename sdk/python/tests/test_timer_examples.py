"""The timer examples (`examples/actors/heartbeat.py`, `urgency_gba.py`) against a real
`cowboyd --dev` (issue 16, "Done means"): a heartbeat that beats on schedule from its own
balance with no transaction, with the network default bid and with the urgency agent, and
stops when its deployer says so."""

from pathlib import Path

import pytest

from cowboy import CBY, cbor
from cowboy.errors import ActorError

pytestmark = pytest.mark.node

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "actors"
HEARTBEAT = (EXAMPLES / "heartbeat.py").read_text()
URGENCY = (EXAMPLES / "urgency_gba.py").read_text()


def beats_of(c, timer_id, first, count):
    """The next `count` executions of `timer_id`, starting the search at block `first`."""
    out = []
    start = first
    for _ in range(count):
        x = c.wait_for_timer(timer_id, timeout=60, from_block=start)
        out.append(x)
        start = x["blockHeight"] + 1
    return out


@pytest.mark.parametrize("with_agent", [False, True])
def test_the_heartbeat_beats_on_schedule_from_its_own_balance(cowboy_client, dev_wallet, funded_wallet, with_agent):
    c = cowboy_client
    gba = None
    if with_agent:
        gba, _ = c.deploy(dev_wallet, URGENCY)
    args = [2, gba] if gba else [2]
    hb, r = c.deploy(dev_wallet, HEARTBEAT, args, value=CBY)
    deployed_at = r["blockHeight"]
    status = c.view(hb, "status")
    tid = status["timer"]
    pending = c.get_timer(tid)
    assert pending["every"] == 2 and pending["due"] == deployed_at + 2
    if gba:
        assert pending["gba"].lower() == gba.lower()
    # A light client can prove the timer is pending: its record under the state root.
    proof = c.get_timer_proof(tid)
    assert proof.verified and proof.exists
    record = cbor.decode(proof.raw)
    assert record[0] == bytes.fromhex(hb[2:]) and record[1] == "beat" and record[4] == 2

    beats = beats_of(c, tid, deployed_at, 3)
    # On schedule: every two blocks from deployment, each a success with its event.
    assert [x["due"] for x in beats] == [deployed_at + 2, deployed_at + 4, deployed_at + 6]
    for n, x in enumerate(beats, start=1):
        assert x["success"], x
        assert x["events"][0]["topic"] == "beat" and x["events"][0]["value"]["n"] == n

    # Someone else cannot stop it; its deployer can, and gets the deposit back.
    with pytest.raises(ActorError) as e:
        c.call(funded_wallet, hb, "stop")
    assert "only the deployer" in str(e.value)
    refund = c.call(dev_wallet, hb, "stop")
    assert refund == pending["deposit"]
    assert c.get_timer(tid) is None
    assert c.view(hb, "status")["timer"] is None
    gone = c.get_timer_proof(tid)
    assert gone.verified and not gone.exists
    # It paid its own way: every beat's fee came out of its balance, and the deposit came back.
    every_beat = [
        x for h in range(deployed_at, c.block_number() + 1) for x in c.get_timer_executions(h) if x["timerId"] == tid
    ]
    assert every_beat[:3] == beats
    assert c.get_balance(hb) == CBY - sum(x["feePaid"] for x in every_beat)
