class Ledger:
    def __init__(self):
        self.balances = {}
        self.log = []
    def mint(self, who, amt):
        if amt <= 0: raise ValueError("amount must be positive")
        self.balances[who] = self.balances.get(who, 0) + amt
        self.log.append(("mint", who, amt))
    def transfer(self, src, dst, amt):
        if self.balances.get(src, 0) < amt:
            raise ValueError(f"{src} has insufficient funds")
        self.balances[src] -= amt
        self.balances[dst] = self.balances.get(dst, 0) + amt
        self.log.append(("transfer", src, dst, amt))
    def total(self): return sum(self.balances.values())
L = Ledger()
L.mint("alice", 100); L.mint("bob", 50)
for src, dst, amt in [("alice", "bob", 30), ("bob", "carol", 100), ("carol", "alice", 5), ("bob", "carol", 80)]:
    try:
        L.transfer(src, dst, amt); print("ok", src, dst, amt)
    except ValueError as e:
        print("failed:", e)
print(sorted(L.balances.items()), L.total(), len(L.log))
try: L.mint("x", 0)
except ValueError as e: print(e)
