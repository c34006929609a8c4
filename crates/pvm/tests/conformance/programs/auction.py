class AuctionError(Exception): pass
class Auction:
    def __init__(self, seller, reserve, end_block):
        self.seller, self.reserve, self.end = seller, reserve, end_block
        self.best = None; self.refunds = {}; self.closed = False
    def bid(self, who, amount, block):
        if block > self.end: raise AuctionError("auction ended")
        if who == self.seller: raise AuctionError("seller cannot bid")
        floor = self.best[1] if self.best else self.reserve - 1
        if amount <= floor: raise AuctionError(f"bid {amount} too low (must exceed {floor})")
        if self.best:
            self.refunds[self.best[0]] = self.refunds.get(self.best[0], 0) + self.best[1]
        self.best = (who, amount)
    def close(self, block):
        if block <= self.end: raise AuctionError("too early")
        self.closed = True
        return self.best
a = Auction("sam", 10, 100)
for who, amt, blk in [("ann", 5, 1), ("ann", 12, 2), ("bob", 12, 3), ("bob", 20, 4), ("sam", 50, 5), ("ann", 25, 6), ("cat", 30, 101)]:
    try:
        a.bid(who, amt, blk); print("bid ok", who, amt)
    except AuctionError as e:
        print("rejected:", e)
try: a.close(50)
except AuctionError as e: print("rejected:", e)
print(a.close(101), a.refunds)
