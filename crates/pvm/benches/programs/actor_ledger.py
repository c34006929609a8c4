# Actor-style: a token ledger with balances, allowances, events and exceptions.
class InsufficientFunds(Exception):
    pass

class Token:
    def __init__(self):
        self.balances = {}
        self.allowances = {}
        self.events = []

    def mint(self, to, amount):
        self.balances[to] = self.balances.get(to, 0) + amount

    def transfer(self, frm, to, amount):
        bal = self.balances.get(frm, 0)
        if bal < amount:
            raise InsufficientFunds(f"{frm} has {bal}, needs {amount}")
        self.balances[frm] = bal - amount
        self.balances[to] = self.balances.get(to, 0) + amount
        self.events.append(("Transfer", frm, to, amount))

t = Token()
accounts = ["acct%03d" % i for i in range(200)]
for a in accounts:
    t.mint(a, 1000)
failed = 0
for i in range(120000):
    frm = accounts[i % 200]
    to = accounts[(i * 13 + 5) % 200]
    try:
        t.transfer(frm, to, (i % 50) + 1)
    except InsufficientFunds:
        failed += 1
print(len(t.events), failed, sum(t.balances.values()))
