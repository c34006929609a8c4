#!/usr/bin/env python3
"""Finality latency and finalized transactions/s: the 4-validator loopback devnet
(`cowboyd devnet --validators 4`) against the one-validator `cowboyd --dev`, in one run, at the
same block time, and the devnet again with unequal stakes (`--stakes 3,1,1,1`: validator 0
holds three of six seats, so every vote of its is copied to its derived seats; node README,
"Votes weigh by stake"). No speed assertion anywhere.

- Latency: one transfer at a time, from submission (`cowboy_sendRawTransaction`) to its
  finalized receipt being readable (polled every 2 ms) at the validator it was sent to; the
  devnet's transfers go round the validators. Median, 90th percentile and maximum.
- Throughput: N transfers from the ten dev accounts, submitted as fast as one client can
  (round the validators on the devnet), from the first submission to the last receipt.

    cargo build --release -p cowboy-node && pip install ./sdk/python
    python3 crates/node/benches/finality.py [--cowboyd target/release/cowboyd]
        [--block-time 200] [--samples 30] [--n 480] [--stakes 3,1,1,1]
"""
import argparse, os, signal, socket, subprocess, statistics, tempfile, time

from cowboy import Client, dev_account

FEES = dict(cycles_limit=12_500, cells_limit=500, max_fee_per_cycle=10**10,
            max_fee_per_cell=10**10, tip_per_cycle=1, tip_per_cell=1)


def free_ports(n):
    """The first of n consecutive free loopback ports."""
    while True:
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        base = s.getsockname()[1]
        s.close()
        try:
            for i in range(1, n):
                t = socket.socket()
                t.bind(("127.0.0.1", base + i))
                t.close()
            return base
        except OSError:
            continue


def wait_up(c):
    for _ in range(600):
        try:
            return c.chain_id()
        except Exception:
            time.sleep(0.1)
    raise SystemExit(f"{c} never answered")


def receipt(c, h):
    while True:
        r = c.get_receipt(h)
        if r is not None:
            return r
        time.sleep(0.002)


def measure(clients, samples, n):
    chain_id = wait_up(clients[0])
    for c in clients:
        wait_up(c)
    clients[0].wait_for_block(2, timeout=120)
    sender = dev_account(9)
    nonce = clients[0].get_account(sender.address)["pendingNonce"]
    latencies = []
    for i in range(samples):
        c = clients[i % len(clients)]
        tx = sender.transfer_tx(chain_id=chain_id, nonce=nonce, to=dev_account(8).address, value=1, **FEES)
        nonce += 1
        t0 = time.perf_counter()
        h = c.send_raw_transaction(tx)
        receipt(c, h)
        latencies.append(time.perf_counter() - t0)
    # Throughput: at most 60 per dev account (64 may wait ahead of an account's nonce).
    accounts = [dev_account(i) for i in range(8)]
    nonces = {a.address: clients[0].get_account(a.address)["pendingNonce"] for a in accounts}
    txs = []
    for i in range(n):
        a = accounts[i % len(accounts)]
        txs.append(a.transfer_tx(chain_id=chain_id, nonce=nonces[a.address], to=dev_account(8).address,
                                 value=1, **FEES))
        nonces[a.address] += 1
    first = clients[0].block_number()
    t0 = time.perf_counter()
    hashes = [clients[i % len(clients)].send_raw_transaction(t) for i, t in enumerate(txs)]
    heights = [receipt(clients[0], h)["blockHeight"] for h in hashes]
    took = time.perf_counter() - t0
    latencies.sort()
    return dict(
        median=statistics.median(latencies) * 1000,
        p90=latencies[int(0.9 * (len(latencies) - 1))] * 1000,
        max=latencies[-1] * 1000,
        tps=n / took,
        blocks=max(heights) - first,
    )


def run(cmd, rpc, count, samples, n, log):
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=open(log, "w"))
    try:
        return measure([Client(f"http://127.0.0.1:{rpc + i}") for i in range(count)], samples, n)
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=60)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cowboyd", default="target/release/cowboyd")
    ap.add_argument("--block-time", default="200")
    ap.add_argument("--samples", type=int, default=30)
    ap.add_argument("--n", type=int, default=480)
    ap.add_argument("--stakes", default="3,1,1,1")
    a = ap.parse_args()
    if a.n > 480:
        raise SystemExit("--n: at most 480 (60 transfers for each of eight dev accounts)")
    data = tempfile.mkdtemp()
    rpc, p2p = free_ports(4), free_ports(4)
    dev = run([a.cowboyd, "--dev", "--data-dir", os.path.join(data, "dev"), "--rpc-addr", f"127.0.0.1:{rpc}",
               "--p2p-addr", f"127.0.0.1:{p2p}", "--block-time", a.block_time],
              rpc, 1, a.samples, a.n, os.path.join(data, "dev.log"))
    def devnet(name, *extra):
        return run([a.cowboyd, "devnet", "--validators", "4", "--data-dir", os.path.join(data, name),
                    "--rpc-addr", f"127.0.0.1:{rpc}", "--p2p-addr", f"127.0.0.1:{p2p}",
                    "--block-time", a.block_time, *extra],
                   rpc, 4, a.samples, a.n, os.path.join(data, f"{name}.log"))
    net = devnet("devnet")
    staked = devnet("staked", "--stakes", a.stakes)
    print(f"block time {a.block_time} ms, {a.samples} latency samples, {a.n} transfers (logs in {data})")
    print("| network | finality median | p90 | max | finalized tx/s | blocks |")
    print("|---|---|---|---|---|---|")
    for name, r in (("1 validator (`--dev`)", dev), ("4 validators (`devnet`)", net),
                    (f"4 validators, stakes {a.stakes}", staked)):
        print(f"| {name} | {r['median']:.0f} ms | {r['p90']:.0f} ms | {r['max']:.0f} ms | "
              f"{r['tps']:.0f} | {r['blocks']} |")


if __name__ == "__main__":
    main()
