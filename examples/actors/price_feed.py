"""A price feed that buys its prices from off-chain runners (CIP-2).

`request(symbol)` asks three staked runners to fetch the symbol's price over HTTP, extract it
with a JSONPath and say when they observed it (the oracle mode, crates/exec README "Oracle
semantics"); the result verifier takes the median price of the fresh observations (at most a
minute old), outvotes any runner more than 1 % from it, needs two of the three to agree, pays
them from the escrow and calls `on_price` once with the median's result.
The feed also sets a timer of its own: if no verified price has come `wait_blocks` later, it
gives the job up (`on_timeout`), and a result that arrives after that is refused. If the
runners never answer, the dispatcher fails the job and refunds the escrow to the feed.

Only the owner (the deployer) requests prices, since each request spends the feed's balance
on escrow and a timer; one request per symbol is in flight at a time.
"""

import json

from cowboy_sdk import (
    SCHEDULER,
    Captured,
    HttpJob,
    ResultSchema,
    Verification,
    abandon_job,
    actor,
    block_info,
    cancel_timer,
    capture,
    emit_event,
    runner,
    sender,
    set_timer,
    submit_job,
)


@actor
class PriceFeed:
    def __init__(self, domain: str, max_price: int, wait_blocks: int) -> None:
        self.owner = sender()
        self.domain = domain
        self.max_price = max_price
        self.wait_blocks = wait_blocks
        self.storage["prices"] = {}
        # symbol -> [job id, the timeout timer's id] while a request is in flight
        self.storage["waiting"] = {}

    def request(self, symbol: str) -> bytes:
        """Ask three runners for `symbol`'s price; returns the job id."""
        if sender() != self.owner:
            raise PermissionError("only the owner requests prices")
        if symbol in self.storage["waiting"]:
            raise ValueError(f"a request for {symbol} is already in flight")
        job = HttpJob(
            [self.domain],
            {"url": f"https://{self.domain}/price?symbol={symbol}"},
            result_schema=ResultSchema(256),
            # Where the price is in the response, and how one is chosen among the runners'.
            verification=Verification(
                "oracle",
                3,
                None,
                {
                    "extract": [{"name": "price", "jsonpath": "$.price"}],
                    "snapshot": "median",
                    "field": "price",
                    "tolerance_bps": 100,
                    "max_age_seconds": 60,
                },
            ),
            max_price=self.max_price,
            timeout_blocks=10,
        )
        job_id = submit_job(job, self.on_price, capture(symbol=symbol))
        timer = set_timer(block_info().height + self.wait_blocks, self.on_timeout, [symbol, job_id])
        self.storage["waiting"][symbol] = [job_id, timer]
        return job_id

    @runner.continuation
    def on_price(self, job_id: bytes, result: bytes, context: Captured) -> None:
        """The verified result, JSON: `{"observed_at": seconds, "values": {"price": number}}`."""
        symbol = context.symbol
        _, timer = self.storage["waiting"].pop(symbol)
        cancel_timer(timer)
        price = json.loads(result.decode())["values"]["price"]
        height = block_info().height
        self.storage["prices"][symbol] = {"price": price, "height": height, "job": job_id}
        emit_event("PriceUpdated", {"symbol": symbol, "price": price, "job": job_id})

    def on_timeout(self, data: list) -> None:
        """The feed's own deadline: stop waiting for the job."""
        if sender() != SCHEDULER:
            raise PermissionError("only the feed's timer calls on_timeout")
        symbol, job_id = data
        del self.storage["waiting"][symbol]
        abandon_job(job_id)
        emit_event("PriceTimedOut", {"symbol": symbol, "job": job_id})

    def price(self, symbol: str):
        """The last verified price of `symbol`, its height and job, or None."""
        return self.storage["prices"].get(symbol)
