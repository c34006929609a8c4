"""A Gas Bidding Agent (CIP-1) that bids by urgency: the later a timer runs past its
scheduled height, and the busier the last block was, the higher its tip, never more than a
set share of its owner's balance.

When a timer naming this agent is due, the block producer calls `get_gas_bid(context)`
read-only with the CIP-1 context (`trigger_block_height`, `current_block_height`,
`basefee_cycle`, `basefee_cell`, `last_block_cycle_usage`, `owner_actor_balance`, ...) and
uses the fee parameters it returns to order due timers by tip within the timer lane. A
liquidation-style job names an agent like this one so it runs first when it matters."""
from cowboy_sdk import actor

CELLS = 4096


@actor
class UrgencyBidder:
    def __init__(
        self,
        base_tip=1,
        tip_per_late_block=1,
        max_tip=1_000,
        cycles_limit=200_000,
        congested_above=10_000_000,
        max_share_bps=1_000,
    ):
        self.base_tip = base_tip
        self.tip_per_late_block = tip_per_late_block
        self.max_tip = max_tip
        self.cycles_limit = cycles_limit
        self.congested_above = congested_above
        self.max_share_bps = max_share_bps

    def get_gas_bid(self, ctx):
        late = max(0, ctx["current_block_height"] - ctx["trigger_block_height"])
        tip = self.base_tip + late * self.tip_per_late_block
        if ctx["last_block_cycle_usage"] > self.congested_above:
            tip *= 2
        tip = min(tip, self.max_tip)
        bf_cycle, bf_cell = ctx["basefee_cycle"], ctx["basefee_cell"]
        # Never commit more than max_share_bps of the owner's balance to one run.
        budget = ctx["owner_actor_balance"] * self.max_share_bps // 10_000
        cells_cost = CELLS * 2 * bf_cell
        while tip > 0 and self.cycles_limit * (2 * bf_cycle + tip) + cells_cost > budget:
            tip //= 2
        return {
            "cycles_limit": self.cycles_limit,
            "cells_limit": CELLS,
            "max_fee_per_cycle": 2 * bf_cycle + tip,
            "max_fee_per_cell": 2 * bf_cell,
            "tip_per_cycle": tip,
            "tip_per_cell": 0,
        }
