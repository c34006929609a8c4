"""Class vs instance attributes: shadowing, mutation of shared mutable class attributes, __class__."""
class Account:
    interest = 0.02
    registry = []
    def __init__(self, owner):
        self.owner = owner
        Account.registry.append(owner)
a, b = Account("ann"), Account("bob")
b.interest = 0.05
print(a.interest, b.interest, Account.interest, Account.registry, "interest" in vars(b), "interest" in vars(a))
Account.interest = 0.03
print(a.interest, b.interest)
del b.interest
print(b.interest)
a.registry.append("via instance")
print(Account.registry is b.registry, Account.registry)
a.registry = ["own"]
print(a.registry, b.registry[:2])
print(a.__class__.__name__, type(a).interest, a.__class__ is Account, Account.__name__, Account.__qualname__, Account.__module__)
class Outer:
    class Inner:
        pass
    def make(self):
        return self.Inner()
print(Outer.Inner.__qualname__, type(Outer().make()).__name__, Outer.Inner.__module__)
class Counter:
    n = 0
    def __init__(self):
        Counter.n += 1
        self.id = Counter.n
cs = [Counter() for _ in range(3)]
print([c.id for c in cs], Counter.n)
Account.new_attr = "added later"
print(a.new_attr, hasattr(b, "new_attr"), getattr(Account, "missing", "none"))
print(Account.__dict__["interest"], "owner" in Account.__dict__, sorted(k for k in a.__dict__))
