#!/usr/bin/env python3
"""What the devnet controls cost (issue 19, item 4). No assertion.

Starts `cowboyd --dev --block-time 0` on free ports, mines to each height given, takes a
snapshot (after three transfers), mines five more blocks and times `dev_revert` back to it;
then times `dev_mine(100)`.

    cargo build --release -p cowboy-node && pip install ./sdk/python
    python3 crates/node/benches/dev_controls.py [--heights 100 500] [--cowboyd PATH]
"""
import argparse, tempfile, time
from pathlib import Path

from cowboy.client import Client
from cowboy.pytest_plugin import start_node
from cowboy.wallet import Wallet, dev_account

a = argparse.ArgumentParser()
a.add_argument("--cowboyd", default="target/release/cowboyd")
a.add_argument("--heights", type=int, nargs="+", default=[100, 500])
args = a.parse_args()

node = start_node(args.cowboyd, Path(tempfile.mkdtemp()), block_time_ms=0)
c = Client(node.url)
try:
    me = dev_account(0)
    for target in args.heights:
        while c.block_number() < target:
            c.mine(min(target - c.block_number(), 10_000))
        for _ in range(3):
            c.transfer(me, Wallet.random().address, 1)
        snap, h = c.snapshot(), c.block_number()
        c.mine(5)
        t = time.monotonic()
        c.revert(snap)
        print(f"dev_revert to height {h}: {(time.monotonic() - t) * 1000:.0f} ms")
    t = time.monotonic()
    c.mine(100)
    print(f"dev_mine(100): {(time.monotonic() - t) * 1000:.0f} ms")
finally:
    node.stop()
