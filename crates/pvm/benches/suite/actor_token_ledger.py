"""Actor-style code: a token contract class with balances and allowances in dicts, events
appended to a log, checks that raise, and a stream of transfers, approvals and failures."""


class InsufficientFunds(Exception):
    pass


class Token:
    def __init__(self, supply, owner):
        self.balances = {owner: supply}
        self.allowances = {}
        self.events = []
        self.total = supply

    def balance_of(self, who):
        return self.balances.get(who, 0)

    def transfer(self, sender, to, amount):
        bal = self.balances.get(sender, 0)
        if amount <= 0 or bal < amount:
            raise InsufficientFunds(sender)
        self.balances[sender] = bal - amount
        self.balances[to] = self.balances.get(to, 0) + amount
        self.events.append(("Transfer", sender, to, amount))

    def approve(self, owner, spender, amount):
        self.allowances[(owner, spender)] = amount
        self.events.append(("Approval", owner, spender, amount))

    def transfer_from(self, spender, owner, to, amount):
        key = (owner, spender)
        allowed = self.allowances.get(key, 0)
        if allowed < amount:
            raise InsufficientFunds(spender)
        self.transfer(owner, to, amount)
        self.allowances[key] = allowed - amount


# Repeated so that CPython runs for at least 0.5 s (issue 18's benchmark rule).
for _round in range(2):
    accounts = ["0x%040x" % (i * 2654435761 % (1 << 160)) for i in range(500)]
    t = Token(10 ** 24, accounts[0])
    for i in range(1, 500):
        t.transfer(accounts[0], accounts[i], 10 ** 18 + i)
    failed = 0
    for i in range(600000):
        a = accounts[i % 500]
        b = accounts[(i * 7 + 3) % 500]
        try:
            if i % 5 == 0:
                t.approve(a, b, 10 ** 15)
            elif i % 5 == 1:
                t.transfer_from(b, a, accounts[(i + 1) % 500], 10 ** 12 + i)
            else:
                t.transfer(a, b, 10 ** 12 + i * 1000)
        except InsufficientFunds:
            failed += 1
    print(len(t.events), failed, sum(t.balances.values()) == t.total, t.balance_of(accounts[7]))
