#!/usr/bin/env python3
"""Devnet throughput and latency, end to end through JSON-RPC (no speed assertion anywhere).

Starts `cowboyd --dev` (the binary given, default target/release/cowboyd) on free ports, signs
N transfers and N token-transfer calls from the ten dev accounts with the Python SDK, submits
them over HTTP, and reports: RPC submission rate, end-to-end transactions/s (first submission
to last receipt finalized), blocks used, and the latency of a read-only `cowboy_call`.

    cargo build --release -p cowboy-node && pip install ./sdk/python
    python3 crates/node/benches/devnet_throughput.py [--n 2000] [--cowboyd PATH] [--block-time 1000]
"""
import argparse, json, os, socket, subprocess, sys, tempfile, time, urllib.request

from cowboy import Client, dev_account
from cowboy.wallet import Wallet

TOKEN = open(os.path.join(os.path.dirname(__file__), "../../../examples/actors/token.py")).read()


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--cowboyd", default="target/release/cowboyd")
    ap.add_argument("--block-time", default="1000")
    a = ap.parse_args()
    rpc, p2p = free_port(), free_port()
    data = tempfile.mkdtemp()
    node = subprocess.Popen(
        [a.cowboyd, "--dev", "--data-dir", data, "--rpc-addr", f"127.0.0.1:{rpc}",
         "--p2p-addr", f"127.0.0.1:{p2p}", "--block-time", a.block_time],
        stdout=subprocess.DEVNULL,
        stderr=open(os.environ["BENCH_LOG"], "w") if os.environ.get("BENCH_LOG") else subprocess.DEVNULL)
    try:
        c = Client(f"http://127.0.0.1:{rpc}")
        for _ in range(600):
            try:
                c.chain_id()
                break
            except Exception:
                time.sleep(0.1)
        chain_id = c.chain_id()
        fees = dict(cycles_limit=200_000, cells_limit=5_000, max_fee_per_cycle=10**10,
                    max_fee_per_cell=10**10, tip_per_cycle=1, tip_per_cell=1)
        # A sender may queue at most 64 transactions ahead: spread the load over fresh wallets
        # (50 transactions each), funded with CBY and tokens in setup, before any clock starts.
        dev = dev_account(0)
        token, _ = c.deploy(dev, TOKEN, ["Gold", 10**12])
        wallets = [Wallet.random() for _ in range(max(1, a.n // 50))]
        nonce = c.get_account(dev.address)["pendingNonce"]
        setup = []
        for w in wallets:
            setup.append(dev.transfer_tx(chain_id=chain_id, nonce=nonce, to=w.address, value=10**21, **fees))
            setup.append(dev.call_tx(chain_id=chain_id, nonce=nonce + 1, to=token, handler="transfer",
                                     args=[w.address, 10**6], **fees))
            nonce += 2
            if len(setup) >= 60:
                for h in [c.send_raw_transaction(t) for t in setup]:
                    c.wait_for_receipt(h, timeout=600)
                setup = []
        for h in [c.send_raw_transaction(t) for t in setup]:
            c.wait_for_receipt(h, timeout=600)
        for kind in ("transfer", "token call"):
            nonces = {w.address: c.get_account(w.address)["pendingNonce"] for w in wallets}
            # Limits as a wallet sets them from cowboy_estimateFee (+25%): blocks are packed by
            # limits, so generous limits would cap the block, not the node.
            tight = dict(fees, cycles_limit=12_500, cells_limit=0) if kind == "transfer" else \
                dict(fees, cycles_limit=20_000, cells_limit=400)
            txs = []
            for i in range(a.n):
                w = wallets[i % len(wallets)]
                n = nonces[w.address]
                nonces[w.address] += 1
                if kind == "transfer":
                    txs.append(w.transfer_tx(chain_id=chain_id, nonce=n, to="0x" + "ab" * 20, value=1, **tight))
                else:
                    txs.append(w.call_tx(chain_id=chain_id, nonce=n, to=token, handler="transfer",
                                         args=["0x" + "cd" * 20, 1], **tight))
            h0 = c.block_number()
            t0 = time.time()
            hashes = [c.send_raw_transaction(t) for t in txs]
            t_sub = time.time() - t0
            c.wait_for_receipt(hashes[-1], timeout=600)
            heights = set()
            for h in hashes:
                r = c.get_receipt(h)
                while r is None:  # not yet in a finalized block
                    time.sleep(0.05)
                    r = c.get_receipt(h)
                heights.add(r["blockHeight"])
            # End = the timestamp of the block that finalized the last transaction (the node's
            # clock; the client's polling interval does not count).
            t_all = c.get_block(max(heights))["timestamp"] / 1000 - t0
            blocks = max(heights) - h0
            print(f"{kind:>10}: {a.n} txs  submit {a.n / t_sub:,.0f}/s  "
                  f"end-to-end {a.n / t_all:,.0f} tx/s  over {blocks} blocks ({t_all:.1f} s)")
        t0 = time.perf_counter()
        for _ in range(200):
            c.view(token, "balance_of", [wallets[1].address])
        print(f"cowboy_call token.balance_of: {(time.perf_counter() - t0) / 200 * 1000:.2f} ms per call")
    finally:
        node.terminate()
        node.wait()


if __name__ == "__main__":
    main()
