class Money:
    def __init__(self, cents): self.cents = cents
    def __repr__(self): return f"Money({self.cents})"
    def __str__(self): return f"${self.cents // 100}.{self.cents % 100:02d}"
    def __add__(self, o): return Money(self.cents + o.cents)
    def __lt__(self, o): return self.cents < o.cents
    def __eq__(self, o): return isinstance(o, Money) and self.cents == o.cents
    def __hash__(self): return hash(self.cents)
    def __bool__(self): return self.cents != 0
    def __int__(self): return self.cents
    def __float__(self): return self.cents / 100
    def __index__(self): return self.cents
m = Money(1234)
print(m, repr(m), str(m + Money(66)), m == Money(1234), bool(Money(0)), int(m), float(m), [1, 2, 3, 4][Money(2)])
print(sorted([Money(5), Money(1), Money(3)]), {Money(1), Money(1)}, hex(Money(255)))
