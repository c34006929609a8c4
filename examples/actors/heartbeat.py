"""A heartbeat that pays its own way: a native timer calls `beat` every `every` blocks, with
no keeper and no transaction, and each beat's fee comes out of the actor's own balance
(whitepaper "Native Timers"). Anyone can top it up with `fund`; when the balance runs low it
says so in an event; its deployer can `stop` it, which returns the timer's deposit.

Deploy it with value (the balance it will spend). `gba` names a Gas Bidding Agent for its
timer (e.g. `urgency_gba.py`); None uses the network default bid."""
from cowboy_sdk import (
    SCHEDULER,
    actor,
    balance,
    block_info,
    cancel_timer,
    emit_event,
    sender,
    set_interval,
)

# Below this balance (wei) each beat warns: roughly a hundred beats at today's fees.
LOW_BALANCE = 10**16


@actor
class Heartbeat:
    def __init__(self, every=10, gba=None):
        self.owner = sender()
        self.every = every
        self.beats = 0
        self.last = None
        self.timer = set_interval(every, self.beat, None, gba=gba)

    def beat(self, _data):
        if sender() != SCHEDULER:
            raise PermissionError("only the scheduler beats the heart")
        self.beats += 1
        self.last = block_info().height
        left = balance()
        emit_event("beat", {"n": self.beats, "height": self.last, "balance": left})
        if left < LOW_BALANCE:
            emit_event("low_balance", {"balance": left})

    def fund(self):
        """Top up the balance the beats are paid from (send value with the call)."""
        return balance()

    def stop(self):
        """Cancel the heartbeat (deployer only); returns the deposit refunded."""
        if sender() != self.owner:
            raise PermissionError("only the deployer stops the heartbeat")
        if self.timer is None:
            return 0
        refund = cancel_timer(self.timer)
        self.timer = None
        return refund

    def status(self):
        return {
            "beats": self.beats,
            "last": self.last,
            "timer": self.timer,
            "balance": balance(),
        }
