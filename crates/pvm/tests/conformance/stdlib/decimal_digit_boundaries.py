# Digit counts of coefficients around the machine-word edges (2**64, 10**19, 10**20,
# 2**128, 10**38): rounding to the context's 28 digits, adjusted exponents, quantize and
# arithmetic all depend on counting them right.
from decimal import Decimal, InvalidOperation, getcontext

edges = [0, 1, 9, 10, 99, 10**18 - 1, 10**18, 10**19 - 1, 10**19, 2**63 - 1, 2**63,
         2**64 - 1, 2**64, 10**20 - 1, 10**20, 10**27 - 1, 10**28 - 1, 10**28, 10**28 + 5,
         10**29 - 1, 2**96, 2**127, 2**128 - 1, 2**128, 10**38 - 1, 10**38, 10**39 + 7,
         10**50 + 1]
for n in edges:
    d = Decimal(n)
    for e in (0, -3, 5):
        x = d.scaleb(e)
        print(n, e, x.adjusted(), +x, x * 1, x + Decimal("0.5"), x / 3)
    try:
        print(d.quantize(Decimal("0.01")))
    except InvalidOperation:
        print("InvalidOperation")
print(getcontext().flags[InvalidOperation])
print(sum(Decimal(n) for n in edges), Decimal(10**20 + 3) % 7, Decimal(2**64 + 1) // 3)
