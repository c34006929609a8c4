"""Two relays bounce a message back and forth: asynchronous messages and reentrancy."""
from cowboy_sdk import actor, send_message, self_address, sender


@actor
class Relay:
    def __init__(self):
        self.storage["hops"] = 0
        self.storage["last_sender"] = None

    def ping(self, other, n):
        self.storage["hops"] += 1
        self.storage["last_sender"] = sender()
        if n > 0:
            send_message(other, "ping", [self_address(), n - 1])
        return self.storage["hops"]

    def fail_after(self, other, n):
        if n == 0:
            raise RuntimeError("the end of the chain fails")
        self.storage["hops"] += 1
        send_message(other, "fail_after", [self_address(), n - 1])

    def flood(self, other, count):
        for i in range(count):
            send_message(other, "hops_of", [])

    def hops_of(self):
        return self.storage["hops"]
