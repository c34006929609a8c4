def compound(principal_cents, rate_bps, periods):
    history = []
    bal = principal_cents
    for p in range(periods):
        interest = bal * rate_bps // 10000
        bal += interest
        history.append((p + 1, interest, bal))
    return history
for row in compound(100_000, 125, 6):
    print("period %d: +%d -> %s" % (row[0], row[1], f"{row[2] / 100:,.2f}"))
accounts = {"a": 1000, "b": 250, "c": 0}
fees = {k: max(5, v // 100) for k, v in accounts.items()}
print(fees, {k: v - fees[k] for k, v in accounts.items() if v >= fees[k]})
