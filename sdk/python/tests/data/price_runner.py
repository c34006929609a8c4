"""A runner process for the end-to-end job tests (``tests/test_jobs_e2e.py``): one registered
runner driven by ``cowboy.runner.serve`` until SIGTERM. Its "HTTP fetch" answers the price the
test gave it (``--price``), or nothing (``--silent``): the tests decide what each runner says,
the chain decides what comes of it. The answer has the oracle mode's shape (crates/exec
README "Oracle semantics"): the extracted values and when they were observed. Every action is printed as a JSON line (the tests read the
transactions' fees from them).

    python price_runner.py URL ACCOUNT SEED_HEX DIRECTORY (--price P | --silent) [--oversized]
        [--from-block H]
"""

import argparse
import json
import signal
import sys
import threading
import time
from pathlib import Path

from cowboy import Client, dev_account
from cowboy.runner import Directory, Runner, RunnerKey, serve

WALL_MS = 120  # the usage every answer reports (paid at the runner's per_ms rate)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("url")
    ap.add_argument("account", type=int)
    ap.add_argument("seed")
    ap.add_argument("directory")
    ap.add_argument("--price")
    ap.add_argument("--silent", action="store_true")
    ap.add_argument("--oversized", action="store_true")
    ap.add_argument("--from-block", type=int, default=0)
    a = ap.parse_args()

    def work(job: dict):
        if a.silent:
            return None
        observed = {"observed_at": int(time.time()), "values": {"price": float(a.price)}}
        result = json.dumps(observed).encode()
        if a.oversized:  # JSON whitespace, one byte over the job's limit
            limit = job["spec"]["result_schema"]["max_return_bytes"]
            result += b" " * (limit + 1 - len(result))
        return result, 0, WALL_MS

    def log(entry: dict) -> None:
        print(json.dumps(entry), flush=True)

    stop = threading.Event()
    runner = Runner(Client(a.url, timeout=5.0), dev_account(a.account), RunnerKey(bytes.fromhex(a.seed)))
    log({"action": "start", "address": runner.wallet.address})
    # SIGTERM is taken with sigwait in this thread, never by a handler: a handler calling
    # stop.set() could run while this thread holds the event's lock, and deadlock.
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
    worker = threading.Thread(
        target=serve,
        args=(runner, work, Directory(Path(a.directory))),
        kwargs={"stop": stop, "from_block": a.from_block, "log": log},
    )
    worker.start()
    signal.sigwait({signal.SIGTERM})
    stop.set()
    worker.join()
    sys.exit(0)


if __name__ == "__main__":
    main()
