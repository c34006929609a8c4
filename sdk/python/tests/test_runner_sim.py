"""The ``runner_sim`` fixture: real ``cowboy-runner`` daemons (``cowboy-runner sim --node``)
on the session's ``cowboyd --dev``, with chosen behaviours, run an actor's two paths.

The actor is ``examples/actors/price_feed.py`` fetching over plain HTTP from a loopback server
(the runners pin ``api.example.com`` to it, as curl's ``--resolve``): with honest runners its
continuation stores the price; with silent ones the job fails and the feed's own timer gives
the request up. Blocks are made on demand; the waits poll the chain, never a clock.
"""

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from cowboy import dev_account
from cowboy.wallet import CBY

HERE = Path(__file__).resolve().parent
FEED = (HERE.parents[2] / "examples" / "actors" / "price_feed.py").read_text().replace("https://", "http://")
DOMAIN = "api.example.com"
OWNER = dev_account(0)


@pytest.fixture
def prices():
    """A loopback HTTP server answering every price request with 2500.5."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            body = json.dumps({"price": 2500.5}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *_) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"{DOMAIN}=127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def wait_until(check, what: str, timeout: float = 60.0):
    """Polls ``check()`` until it returns something truthy (a safety net, not an assertion)."""
    end = time.monotonic() + timeout
    while not (got := check()):
        if time.monotonic() > end:
            pytest.fail(f"gave up waiting for {what}")
        time.sleep(0.1)
    return got


def test_honest_runners_run_the_continuation(cowboy_client, runner_sim, prices, mine):
    c = cowboy_client
    sim = runner_sim("honest", "honest", "honest", domains=[prices], allow_plain_http=True)
    assert [r.behaviour for r in sim.runners] == ["honest"] * 3
    feed, _ = c.deploy(OWNER, FEED, [DOMAIN, 30_000, 100], value=CBY)
    job_id = c.call(OWNER, feed, "request", ["ETH"])
    job = wait_until(lambda: (j := c.get_job(job_id)) and j["outcome"] and j, "the job's outcome")
    assert job["status"] == "verified"
    assert len(job["outcome"]["winners"]) == 3
    mine(1)  # the continuation runs in the next block
    assert c.view(feed, "price", ["ETH"])["price"] == 2500.5
    assert c.get_timers(feed) == [], "the feed's timeout timer was cancelled"


def test_silent_runners_take_the_timeout_path(cowboy_client, runner_sim, prices, mine):
    c = cowboy_client
    runner_sim("silent", "silent", "silent", domains=[prices], allow_plain_http=True)
    feed, _ = c.deploy(OWNER, FEED, [DOMAIN, 30_000, 20], value=CBY)
    job_id = c.call(OWNER, feed, "request", ["ETH"])
    [timer] = c.get_timers(feed)
    mine(max(1, timer["due"] - c.block_number()))
    assert [e["value"]["symbol"] for e in c.get_events(feed, "PriceTimedOut")] == ["ETH"]
    assert c.view(feed, "price", ["ETH"]) is None
    assert c.get_job(job_id)["committed"] == [], "nobody ever committed"
