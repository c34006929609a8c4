"""An English auction: bids must beat the best bid; the previous bidder is refunded at once;
after the end block the seller collects the winning bid."""
from cowboy_sdk import actor, block_info, emit_event, sender, transfer, value


@actor
class Auction:
    def __init__(self, item, duration_blocks, reserve=0):
        self.storage["seller"] = sender()
        self.storage["item"] = item
        self.storage["end"] = block_info().height + duration_blocks
        self.storage["best"] = {"bidder": None, "amount": reserve}
        self.storage["bids"] = []
        self.storage["closed"] = False

    def bid(self):
        if block_info().height >= self.storage["end"]:
            raise RuntimeError("the auction has ended")
        amount = value()
        best = self.storage["best"]
        if amount <= best["amount"]:
            raise ValueError(f"bid {amount} does not beat {best['amount']}")
        if best["bidder"] is not None:
            transfer(best["bidder"], best["amount"])
        best["bidder"] = sender()
        best["amount"] = amount
        self.storage["bids"].append([sender(), amount])
        emit_event("Bid", {"bidder": sender(), "amount": amount})
        return amount

    def close(self):
        if block_info().height < self.storage["end"]:
            raise RuntimeError("the auction is still running")
        if self.storage["closed"]:
            raise RuntimeError("already closed")
        self.storage["closed"] = True
        best = self.storage["best"]
        if best["bidder"] is not None:
            transfer(self.storage["seller"], best["amount"])
        emit_event("Closed", best)
        return best

    def leader(self):
        return self.storage["best"]

    def history(self):
        return self.storage["bids"]
