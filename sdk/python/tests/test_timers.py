"""Native timers through the SDK against a real `cowboyd --dev` (issue 16, "Receipts and
visibility"): an actor sets a timer a few blocks ahead; the timer is visible as pending, its
execution appears via RPC, the SDK's wait helper, the plugin fixture and the `timers`
subscription, and it is gone once it fired."""

import asyncio

import pytest

from cowboy import CBY
from cowboy.crypto import to_checksum_address
from cowboy.errors import RpcError, TimerGone, TimerTimeout

pytestmark = pytest.mark.node

ALARM = '''\
from cowboy_sdk import actor, set_timer, set_interval, cancel_timer, block_info, emit_event, sender, SCHEDULER


@actor
class Alarm:
    def __init__(self):
        self.storage["rang"] = []

    def later(self, n, data):
        return set_timer(block_info().height + n, self.ring, data)

    def every(self, n, data):
        return set_interval(n, "ring", data)

    def cancel(self, tid):
        return cancel_timer(tid)

    def ring(self, data):
        if sender() != SCHEDULER:
            raise PermissionError("only the scheduler")
        if data == "boom":
            raise ValueError("boom at " + str(block_info().height))
        self.storage["rang"].append(data)
        emit_event("Rang", data)
        return data

    def rang(self):
        return self.storage["rang"]
'''


@pytest.fixture(scope="module")
def alarm(cowboy_client, dev_wallet):
    address, _ = cowboy_client.deploy(dev_wallet, ALARM, value=10 * CBY)
    return address


def test_a_timer_is_pending_then_fires_once_and_is_gone(cowboy_client, dev_wallet, alarm):
    c = cowboy_client
    tid, r = c.call(dev_wallet, alarm, "later", [3, {"n": 1}], receipt=True)
    set_at = r["blockHeight"]
    t = c.get_timer(tid)
    assert t is not None, "pending right after it was set"
    assert t["id"] == tid and t["due"] == set_at + 3 and t["every"] == 0
    assert to_checksum_address(t["owner"]) == to_checksum_address(alarm)
    assert t["handler"] == "ring" and t["value"] == {"n": 1}
    assert isinstance(t["deposit"], int) and t["deposit"] > 0
    assert tid in [x["id"] for x in c.get_timers(alarm)]

    x = c.wait_for_timer(tid, timeout=60)
    assert x["timerId"] == tid and x["success"] and x["value"] == {"n": 1}
    assert x["due"] == set_at + 3 and x["blockHeight"] >= set_at + 3
    assert isinstance(x["feePaid"], int) and x["feePaid"] > 0
    assert [e["topic"] for e in x["events"]] == ["Rang"] and x["events"][0]["value"] == {"n": 1}
    # The same execution by height, in its block, and nowhere else.
    assert x in c.get_timer_executions(x["blockHeight"])
    assert x["hash"] in c.get_block(x["blockHeight"])["timerExecutions"]
    full = c.get_block(x["blockHeight"], full=True)["timerExecutions"]
    assert any(f["hash"] == x["hash"] and f["feePaid"] == x["feePaid"] for f in full)
    runs = [y for h in range(set_at, c.block_number() + 1) for y in c.get_timer_executions(h) if y["timerId"] == tid]
    assert runs == [x]
    assert c.get_timer(tid) is None
    assert tid not in [y["id"] for y in c.get_timers(alarm)]
    assert {"n": 1} in c.view(alarm, "rang")
    # Its event is queryable like a transaction's, naming the execution.
    evs = c.get_events(alarm, "Rang", from_block=x["blockHeight"], to_block=x["blockHeight"])
    assert [e["timerExecutionHash"] for e in evs] == [x["hash"]]
    assert evs[0]["transactionHash"] is None
    # Gone now, so waiting again needs to know where to look.
    with pytest.raises(TimerGone):
        c.wait_for_timer(tid, timeout=5)
    assert c.wait_for_timer(tid, timeout=5, from_block=set_at) == x


def test_the_plugin_fixture_waits_for_a_failing_timer(cowboy_client, dev_wallet, alarm, wait_for_timer):
    tid = cowboy_client.call(dev_wallet, alarm, "later", [2, "boom"])
    x = wait_for_timer(tid, timeout=60)
    assert x["success"] is False
    assert x["error"]["class"] == "ValueError" and x["error"]["message"].startswith("boom at ")
    assert x["events"] == []
    assert cowboy_client.get_timer(tid) is None


def test_an_interval_stays_pending_and_a_cancelled_timer_is_gone(cowboy_client, dev_wallet, alarm, wait_for_block):
    c = cowboy_client
    tid = c.call(dev_wallet, alarm, "every", [2, "tick"])
    first = c.wait_for_timer(tid, timeout=60)
    second = c.wait_for_timer(tid, timeout=60, from_block=first["blockHeight"] + 1)
    assert second["due"] == first["due"] + 2
    assert c.get_timer(tid)["due"] >= second["due"] + 2
    refund, r = c.call(dev_wallet, alarm, "cancel", [tid], receipt=True)
    assert refund > 0
    assert c.get_timer(tid) is None
    with pytest.raises(TimerGone):
        c.wait_for_timer(tid, timeout=5, from_block=r["blockHeight"] + 1)
    # A timer that is far away times out rather than hanging.
    far = c.call(dev_wallet, alarm, "later", [10_000, "never"])
    with pytest.raises(TimerTimeout):
        c.wait_for_timer(far, timeout=0.5)
    c.call(dev_wallet, alarm, "cancel", [far])
    tip = c.block_number()
    assert wait_for_block(tip + 1) >= tip + 1


def test_subscribe_timers_delivers_an_owners_executions(cowboy_client, dev_wallet, alarm, mine_in_background):
    c = cowboy_client

    async def run():
        got = []
        # From the next block on: whatever happens while it connects is caught up by query.
        start = await asyncio.to_thread(c.block_number)
        async with c.subscribe_timers(alarm, from_block=start + 1) as sub:
            it = sub.__aiter__()
            first = asyncio.ensure_future(it.__anext__())
            await asyncio.sleep(0.5)
            tid = await asyncio.to_thread(c.call, dev_wallet, alarm, "later", [2, "sub"])
            got.append(await asyncio.wait_for(first, 60))
            await sub.drop_connection()
            tid2 = await asyncio.to_thread(c.call, dev_wallet, alarm, "later", [2, "sub2"])
            got.append(await asyncio.wait_for(it.__anext__(), 60))
            return tid, tid2, got, sub.reconnects

    with mine_in_background():
        tid, tid2, got, reconnects = asyncio.run(asyncio.wait_for(run(), 120))
    assert [x["timerId"] for x in got] == [tid, tid2]
    assert [x["value"] for x in got] == ["sub", "sub2"]
    assert reconnects >= 1


def test_bad_timer_queries_are_typed_errors(cowboy_client):
    with pytest.raises(RpcError) as e:
        cowboy_client.request("cowboy_getTimer", ["seven"])
    assert e.value.code == -32602
    with pytest.raises(RpcError) as e:
        cowboy_client.request("cowboy_getTimers", ["0x12"])
    assert e.value.code == -32602
    assert cowboy_client.get_timer(2**63) is None
    assert cowboy_client.get_timer_executions(cowboy_client.block_number() + 10_000) is None
