"""Dataclasses: an inventory of frozen and mutable dataclass records, generated __eq__,
__hash__ and ordering used by sets, dicts and sort, replace() for updates."""
from dataclasses import dataclass, field, replace


@dataclass(frozen=True, order=True)
class Sku:
    category: str
    code: int


@dataclass
class Item:
    sku: Sku
    qty: int
    price_cents: int
    tags: list = field(default_factory=list)

    def value(self):
        return self.qty * self.price_cents


cats = ["tools", "food", "toys", "books", "garden"]
items = [Item(Sku(cats[i % 5], i % 3000), i % 40, 100 + i * 7 % 900, ["t%d" % (i % 3)])
         for i in range(90000)]
by_sku = {}
for it in items:
    by_sku[it.sku] = by_sku.get(it.sku, 0) + it.qty
unique = set(it.sku for it in items)
ordered = sorted(unique)
restocked = [replace(it, qty=it.qty + 10) for it in items[:45000]]
equal = sum(1 for a, b in zip(items, items[1:]) if a.sku == b.sku)
total = sum(it.value() for it in restocked)
print(len(by_sku), len(unique), ordered[0], ordered[-1], equal, total, restocked[3] == items[3])
