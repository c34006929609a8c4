"""Decimal arithmetic: an interest-bearing ledger with quantize to cents, amortization
schedules, and currency conversion, all in the default context (28 digits, ROUND_HALF_EVEN)."""
from decimal import Decimal

CENT = Decimal("0.01")


def amortize(principal, annual_rate, months):
    r = annual_rate / 12
    payment = (principal * r / (1 - (1 + r) ** -months)).quantize(CENT)
    balance = principal
    interest_total = Decimal(0)
    for _ in range(months):
        interest = (balance * r).quantize(CENT)
        interest_total += interest
        balance = balance + interest - payment
    return payment, interest_total, balance


def ledger(n):
    balances = [Decimal(i % 1000) + Decimal("0.37") for i in range(200)]
    rate = Decimal("0.0004125")
    for day in range(n):
        for i in range(len(balances)):
            b = balances[i]
            b += (b * rate).quantize(CENT)
            if (day + i) % 11 == 0:
                b -= Decimal("12.50")
            balances[i] = b
    return sum(balances)


# Repeated so that CPython runs for at least 0.5 s (issue 18's benchmark rule).
for _round in range(2):
    fx = {"EUR": Decimal("1.0843"), "GBP": Decimal("1.2671"), "JPY": Decimal("0.006689")}
    converted = Decimal(0)
    for i in range(200000):
        for cur, rate in fx.items():
            converted += (Decimal(i) / 7 * rate).quantize(CENT)
    schedules = [amortize(Decimal(100000 + 1000 * k), Decimal("0.0525"), 360) for k in range(30)]
    print(ledger(1000), converted, schedules[-1])
