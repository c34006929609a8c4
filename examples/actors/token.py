"""A fungible token with balances per holder, allowances-free, and Transfer events.

Holders are parameters annotated `Address`: the SDK hands them over in the canonical
checksummed form `sender()` uses, so a recipient typed in lowercase is the same key its owner
later spends from."""
from cowboy_sdk import Address, actor, emit_event, sender


@actor
class Token:
    def __init__(self, name, supply):
        self.storage["name"] = name
        self.storage["supply"] = supply
        self.storage["bal:" + sender()] = supply

    def balance_of(self, holder: Address):
        return self.storage.get("bal:" + holder, 0)

    def transfer(self, to: Address, amount):
        if amount <= 0:
            raise ValueError("amount must be positive")
        frm = sender()
        have = self.storage.get("bal:" + frm, 0)
        if have < amount:
            raise ValueError(f"insufficient balance: {have} < {amount}")
        self.storage["bal:" + frm] = have - amount
        self.storage["bal:" + to] = self.storage.get("bal:" + to, 0) + amount
        emit_event("Transfer", {"from": frm, "to": to, "amount": amount})
        return True
