class Escrow:
    TRANSITIONS = {"created": {"fund": "funded", "cancel": "cancelled"},
                   "funded": {"release": "released", "refund": "refunded"},
                   "released": {}, "refunded": {}, "cancelled": {}}
    def __init__(self, amount): self.state = "created"; self.amount = amount; self.history = ["created"]
    def fire(self, event):
        nxt = self.TRANSITIONS[self.state].get(event)
        if nxt is None:
            raise RuntimeError(f"cannot {event} from {self.state}")
        self.state = nxt; self.history.append(nxt)
        return self
for events in [["fund", "release"], ["fund", "refund"], ["cancel"], ["release"], ["fund", "fund"]]:
    e = Escrow(10)
    try:
        for ev in events: e.fire(ev)
        print(" -> ".join(e.history))
    except RuntimeError as err:
        print("error:", err, "| at", e.state)
