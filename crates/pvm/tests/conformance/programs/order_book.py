"""A realistic program: an async order-matching engine using dataclasses, enums, match, heapq,
async generators for the order feed, exception groups for batch validation and complex-free
decimal arithmetic with Fraction."""
from __future__ import annotations

import heapq
from dataclasses import dataclass, field
from enum import Enum
from fractions import Fraction


class Side(Enum):
    BUY = "buy"
    SELL = "sell"


@dataclass(order=True)
class Order:
    sort_key: tuple = field(init=False, repr=False)
    oid: int
    side: Side
    price: Fraction
    qty: int

    def __post_init__(self):
        p = -self.price if self.side is Side.BUY else self.price
        self.sort_key = (p, self.oid)


class InvalidOrder(ValueError):
    pass


def validate(batch: list[dict]) -> list[Order]:
    errors, good = [], []
    for i, raw in enumerate(batch):
        match raw:
            case {"side": "buy" | "sell" as s, "price": str(p), "qty": int(q)} if q > 0:
                good.append(Order(i, Side(s), Fraction(p), q))
            case {"qty": int(q)} if q <= 0:
                errors.append(InvalidOrder(f"order {i}: quantity {q}"))
            case _:
                errors.append(InvalidOrder(f"order {i}: malformed {sorted(raw)}"))
    if errors:
        raise ExceptionGroup("invalid orders", errors)
    return good


class Tick:
    def __await__(self):
        yield "tick"


async def feed(orders):
    for o in orders:
        await Tick()
        yield o


async def engine(orders):
    bids, asks, trades = [], [], []
    async for o in feed(orders):
        book, other = (bids, asks) if o.side is Side.BUY else (asks, bids)
        while o.qty and other:
            best = other[0]
            crosses = o.price >= best.price if o.side is Side.BUY else o.price <= best.price
            if not crosses:
                break
            q = min(o.qty, best.qty)
            trades.append((o.oid, best.oid, q, best.price))
            o.qty -= q
            best.qty -= q
            if not best.qty:
                heapq.heappop(other)
        if o.qty:
            heapq.heappush(book, o)
    return trades, sorted(b.oid for b in bids), sorted(a.oid for a in asks)


batch = [
    {"side": "sell", "price": "10.5", "qty": 5},
    {"side": "sell", "price": "10.25", "qty": 3},
    {"side": "buy", "price": "10.5", "qty": 6},
    {"side": "buy", "price": "9", "qty": 2},
    {"side": "sell", "price": "8.75", "qty": 4},
]
orders = validate(batch)
co = engine(orders)
ticks = 0
try:
    while True:
        co.send(None)
        ticks += 1
except StopIteration as s:
    trades, bids, asks = s.value
for t in trades:
    print(t)
print("resting bids", bids, "asks", asks, "ticks", ticks)
try:
    validate([{"side": "buy", "price": "1", "qty": 0}, {"side": "x"}, {"side": "sell", "price": "2", "qty": 1}])
except* InvalidOrder as eg:
    for e in eg.exceptions:
        print("invalid:", e)
print(Order.__annotations__["price"], sorted(orders)[0].oid)
