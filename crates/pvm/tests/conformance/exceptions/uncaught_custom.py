class InsufficientFunds(Exception):
    pass
def withdraw(bal, amt):
    if amt > bal:
        raise InsufficientFunds(f"balance {bal} < {amt}")
    return bal - amt
print(withdraw(10, 3))
withdraw(1, 5)
