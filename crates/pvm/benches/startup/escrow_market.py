# A 100-line actor-style module for the start-up benchmark (benches/startup.rs): constants,
# helpers, an exception class, a decorator and an actor class with several handlers. The
# benchmark parses, compiles and runs it, then drives a few handlers, in a fresh VM each time.
MAX_OFFERS = 64
FEE_BPS = 25
STATES = ("open", "funded", "released", "refunded")


class MarketError(Exception):
    pass


def require(cond, msg):
    if not cond:
        raise MarketError(msg)


def fee(amount):
    return amount * FEE_BPS // 10_000


def only_state(*allowed):
    def wrap(fn):
        def inner(self, oid, *args):
            offer = self.offers[oid]
            require(offer["state"] in allowed, f"offer {oid} is {offer['state']}")
            return fn(self, oid, *args)
        return inner
    return wrap


class Market:
    def __init__(self, owner):
        self.owner = owner
        self.offers = {}
        self.balances = {}
        self.next_id = 0
        self.log = []

    def deposit(self, who, amount):
        require(amount > 0, "amount must be positive")
        self.balances[who] = self.balances.get(who, 0) + amount
        self.log.append(("deposit", who, amount))
        return self.balances[who]

    def offer(self, seller, price, item):
        require(len(self.offers) < MAX_OFFERS, "too many offers")
        require(price > 0, "price must be positive")
        oid = self.next_id
        self.next_id += 1
        self.offers[oid] = {"seller": seller, "price": price, "item": item,
                            "state": "open", "buyer": None}
        self.log.append(("offer", oid, price))
        return oid

    @only_state("open")
    def fund(self, oid, buyer):
        offer = self.offers[oid]
        have = self.balances.get(buyer, 0)
        require(have >= offer["price"], f"{buyer} has {have}, needs {offer['price']}")
        self.balances[buyer] = have - offer["price"]
        offer["buyer"] = buyer
        offer["state"] = "funded"
        return offer["price"]

    @only_state("funded")
    def release(self, oid):
        offer = self.offers[oid]
        cut = fee(offer["price"])
        seller = offer["seller"]
        self.balances[seller] = self.balances.get(seller, 0) + offer["price"] - cut
        self.balances[self.owner] = self.balances.get(self.owner, 0) + cut
        offer["state"] = "released"
        return cut

    @only_state("funded")
    def refund(self, oid):
        offer = self.offers[oid]
        self.balances[offer["buyer"]] += offer["price"]
        offer["state"] = "refunded"
        return offer["price"]

    def summary(self):
        by_state = {s: 0 for s in STATES}
        for o in self.offers.values():
            by_state[o["state"]] += 1
        total = sum(self.balances.values())
        return sorted(by_state.items()), total, len(self.log)


m = Market("owner")
m.deposit("bob", 1_000)
a = m.offer("alice", 300, "lamp")
b = m.offer("carol", 500, "desk")
m.fund(a, "bob")
m.fund(b, "bob")
m.release(a)
m.refund(b)
try:
    m.release(b)
except MarketError as e:
    err = str(e)
result = (m.summary(), err)
