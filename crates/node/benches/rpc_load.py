#!/usr/bin/env python3
"""Block intervals while free RPC work saturates the node (issue 14, item 8). No assertion.

Starts `cowboyd --dev` (default target/release/cowboyd) on free ports, deploys an actor with a
cycle-burning read-only handler and fills one block with N transfers (whose receipts the load
then fetches). Then, in one run, it measures the interval between consecutive finalized
blocks (header timestamps) over B blocks on the idle node, and over the next B blocks while T
client threads hammer the RPC with heavy read-only `cowboy_call`s, `cowboy_getReceipt`s of the
big block's transactions and full `cowboy_getBlockByNumber` of it. Reports both, the ratio
loaded/idle, and what the RPC answered (results vs. `-32005` refusals of the worker pool).

    cargo build --release -p cowboy-node && pip install ./sdk/python
    python3 crates/node/benches/rpc_load.py [--n 2000] [--blocks 20] [--threads 16] [--cowboyd PATH]
"""
import argparse, json, os, socket, statistics, subprocess, tempfile, threading, time
import urllib.request

from cowboy import Client, dev_account
from cowboy.wallet import Wallet

SPIN = '''
from cowboy_sdk import actor


@actor
class Spin:
    def __init__(self):
        self.storage["n"] = 0

    def spin(self, n):
        total = 0
        for i in range(n):
            total += i * i % 7
        return total
'''


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def rpc(url, method, params):
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).encode()
    req = urllib.request.Request(url, body, {"content-type": "application/json"})
    with urllib.request.urlopen(req, timeout=60) as r:
        return json.loads(r.read())


def wait_for_height(c, height):
    """Wait until `height` is finalized (`cowboy_blockNumber` reads no state: never refused)."""
    while c.block_number() < height:
        time.sleep(0.2)


def intervals(c, start, count):
    """Intervals (s) between the header timestamps of blocks start..start+count. Read after
    the load has stopped: block reads under load may be refused to this client (-32005)."""
    wait_for_height(c, start + count)
    ts = [c.get_block(h)["timestamp"] for h in range(start, start + count + 1)]
    return [(b - a) / 1000 for a, b in zip(ts, ts[1:])]


def summary(xs):
    return f"mean {statistics.mean(xs):.3f} s  median {statistics.median(xs):.3f} s  max {max(xs):.3f} s"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=2000, help="transfers in the big block")
    ap.add_argument("--blocks", type=int, default=20, help="blocks measured per phase")
    ap.add_argument("--threads", type=int, default=16)
    ap.add_argument("--spin", type=int, default=20000, help="loop count of each heavy call")
    ap.add_argument("--cowboyd", default="target/release/cowboyd")
    ap.add_argument("--block-time", default="1000")
    a = ap.parse_args()
    rpc_port, p2p = free_port(), free_port()
    url = f"http://127.0.0.1:{rpc_port}"
    data = tempfile.mkdtemp()
    node = subprocess.Popen(
        [a.cowboyd, "--dev", "--data-dir", data, "--rpc-addr", f"127.0.0.1:{rpc_port}",
         "--p2p-addr", f"127.0.0.1:{p2p}", "--block-time", a.block_time],
        stdout=subprocess.DEVNULL,
        stderr=open(os.environ["BENCH_LOG"], "w") if os.environ.get("BENCH_LOG") else subprocess.DEVNULL)
    try:
        c = Client(url)
        for _ in range(600):
            try:
                c.chain_id()
                break
            except Exception:
                time.sleep(0.1)
        chain_id = c.chain_id()
        dev = dev_account(0)
        spin, _ = c.deploy(dev, SPIN, [])
        cycles = c.simulate(spin, "spin", [a.spin])["cyclesUsed"]
        fees = dict(cycles_limit=12_500, cells_limit=500, max_fee_per_cycle=10**10,
                    max_fee_per_cell=10**10, tip_per_cycle=1, tip_per_cell=1)
        # The big block: N transfers from fresh wallets (a sender queues at most 64 ahead).
        wallets = [Wallet.random() for _ in range(max(1, a.n // 50))]
        nonce = c.get_account(dev.address)["pendingNonce"]
        setup = [dev.transfer_tx(chain_id=chain_id, nonce=nonce + i, to=w.address, value=10**21,
                                 **dict(fees, cycles_limit=200_000, cells_limit=5_000))
                 for i, w in enumerate(wallets)]
        for h in [c.send_raw_transaction(t) for t in setup]:
            c.wait_for_receipt(h, timeout=600)
        txs = [wallets[i % len(wallets)].transfer_tx(chain_id=chain_id, nonce=i // len(wallets),
                                                     to="0x" + "ab" * 20, value=1, **fees)
               for i in range(a.n)]
        hashes = [c.send_raw_transaction(t) for t in txs]
        receipts = [c.wait_for_receipt(h, timeout=600) for h in hashes]
        heights = sorted({r["blockHeight"] for r in receipts})
        big = max(heights, key=lambda h: len(c.get_block(h)["transactions"]))
        print(f"setup: spin({a.spin}) = {cycles:,} cycles per call; {a.n} transfers in blocks "
              f"{heights[0]}..{heights[-1]}, the largest {big} with "
              f"{len(c.get_block(big)['transactions'])}")

        # Idle.
        h0 = c.block_number() + 1
        idle = intervals(c, h0, a.blocks)

        # Loaded: same node, the next blocks.
        stop = threading.Event()
        counts = {"ok": 0, "refused": 0, "error": 0}
        lock = threading.Lock()
        call = {"to": spin, "handler": "spin",
                "args": "0x" + __import__("cowboy").cbor.encode([a.spin]).hex()}

        def hammer(i):
            k = 0
            while not stop.is_set():
                k += 1
                if k % 3 == 0:
                    out = rpc(url, "cowboy_call", [call])
                elif k % 3 == 1:
                    out = rpc(url, "cowboy_getReceipt", [hashes[(i * 7919 + k) % len(hashes)]])
                else:
                    out = rpc(url, "cowboy_getBlockByNumber", [big, True])
                kind = "ok" if "result" in out else (
                    "refused" if out.get("error", {}).get("code") == -32005 else "error")
                with lock:
                    counts[kind] += 1

        workers = [threading.Thread(target=hammer, args=(i,), daemon=True) for i in range(a.threads)]
        for w in workers:
            w.start()
        time.sleep(2)
        h1 = c.block_number() + 1
        t0 = time.time()
        wait_for_height(c, h1 + a.blocks)
        elapsed = time.time() - t0
        stop.set()
        for w in workers:
            w.join()
        loaded = intervals(c, h1, a.blocks)
        print(f"idle   ({a.blocks} blocks from {h0}): {summary(idle)}")
        print(f"loaded ({a.blocks} blocks from {h1}): {summary(loaded)}")
        print(f"ratio loaded/idle: mean {statistics.mean(loaded) / statistics.mean(idle):.2f}  "
              f"max {max(loaded) / max(idle):.2f}")
        print(f"RPC under load ({a.threads} threads, {elapsed:.0f} s): {counts['ok']} answered, "
              f"{counts['refused']} refused (-32005), {counts['error']} other errors")
    finally:
        node.terminate()
        node.wait()


if __name__ == "__main__":
    main()
