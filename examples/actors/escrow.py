"""An escrow: a buyer deposits value for a seller; an arbiter releases it or refunds it,
and the buyer can reclaim it after a deadline (in blocks). The seller and arbiter are `Address`
parameters, stored in the canonical form `sender()` returns, so the comparisons below hold
whatever letter case the deployer typed."""
from cowboy_sdk import Address, actor, block_info, emit_event, sender, transfer, value


class Unauthorized(Exception):
    """The caller may not do this."""


@actor
class Escrow:
    def __init__(self, seller: Address, arbiter: Address, deadline_blocks):
        self.storage["buyer"] = sender()
        self.storage["seller"] = seller
        self.storage["arbiter"] = arbiter
        self.storage["amount"] = value()
        self.storage["deadline"] = block_info().height + deadline_blocks
        self.storage["state"] = "funded"

    def _settle(self, to, outcome):
        if self.storage["state"] != "funded":
            raise RuntimeError(f"escrow already {self.storage['state']}")
        self.storage["state"] = outcome
        transfer(to, self.storage["amount"])
        emit_event(outcome, {"to": to, "amount": self.storage["amount"]})

    def release(self):
        if sender() != self.storage["arbiter"]:
            raise Unauthorized("only the arbiter can release")
        self._settle(self.storage["seller"], "released")

    def refund(self):
        caller = sender()
        if caller == self.storage["arbiter"]:
            pass
        elif caller == self.storage["buyer"]:
            if block_info().height < self.storage["deadline"]:
                raise Unauthorized("the buyer can reclaim only after the deadline")
        else:
            raise Unauthorized("only the arbiter or the buyer can refund")
        self._settle(self.storage["buyer"], "refunded")

    def status(self):
        return {k: self.storage[k] for k in ("state", "amount", "deadline")}
