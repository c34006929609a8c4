#!/usr/bin/env python3
"""PVM vs CPython: run every program in benches/programs in both, same run, and report ratios.

Usage: python3 crates/pvm/benches/compare.py [--cowboy PATH] [--runs N] [--callgrind] [programs...]

Builds nothing itself: pass the release `cowboy` binary (default target/release/cowboy, built by
`cargo build --release -p cowboy-cli`). Each program runs --runs times (default 3) in each engine;
the best wall time counts (least disturbed by the other core's load). Outputs must be identical,
else the program is reported as a MISMATCH and excluded from the median. Metering is on in the
PVM (cycles are always counted; no --cycles budget is given). The ratio is PVM time / CPython time:
below 1.0 the PVM is faster. Process start-up is included for both engines.

With --callgrind, each program runs once per engine under `valgrind --tool=callgrind` and the
columns are instructions executed (millions) instead of seconds: a load-independent measure
for comparing commits on a busy machine (about 50 times slower; needs valgrind).
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))


def instructions(cmd, _runs):
    """(millions of instructions, stdout) of one run under callgrind, or (None, output)."""
    p = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"] + cmd,
                       capture_output=True)
    m = re.search(rb"Collected : (\d+)", p.stderr)
    if p.returncode != 0 or not m:
        return None, p.stdout + p.stderr
    return int(m.group(1)) / 1e6, p.stdout


def best_time(cmd, runs):
    best, out = None, None
    for _ in range(runs):
        t0 = time.perf_counter()
        p = subprocess.run(cmd, capture_output=True)
        dt = time.perf_counter() - t0
        if p.returncode != 0:
            return None, p.stdout + p.stderr
        best = dt if best is None else min(best, dt)
        out = p.stdout
    return best, out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cowboy", default=os.path.join(ROOT, "target", "release", "cowboy"))
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--callgrind", action="store_true")
    ap.add_argument("programs", nargs="*")
    args = ap.parse_args()
    progdir = os.path.join(HERE, "programs")
    programs = args.programs or sorted(
        os.path.join(progdir, f) for f in os.listdir(progdir) if f.endswith(".py"))
    if not os.path.exists(args.cowboy):
        sys.exit(f"no cowboy binary at {args.cowboy}: run `cargo build --release -p cowboy-cli`")
    measure = instructions if args.callgrind else best_time
    unit = "Minstr" if args.callgrind else "s"
    print(f"{'program':28} {'cpython ' + unit:>14} {'pvm ' + unit:>14} {'ratio':>7}")
    ratios = []
    for prog in programs:
        name = os.path.basename(prog)
        py_t, py_out = measure([sys.executable, prog], args.runs)
        pvm_t, pvm_out = measure([args.cowboy, "pvm", "run", prog], args.runs)
        if py_t is None:
            print(f"{name:28} CPython failed: {py_out[-200:]!r}")
            continue
        if pvm_t is None:
            last = pvm_out.decode(errors="replace").strip().splitlines()[-1:] or [""]
            print(f"{name:28} {py_t:14.3f} {'FAILED':>14}  {last[0][:80]}")
            continue
        if pvm_out != py_out:
            print(f"{name:28} {py_t:14.3f} {pvm_t:14.3f}  MISMATCH (output differs)")
            continue
        r = pvm_t / py_t
        ratios.append(r)
        print(f"{name:28} {py_t:14.3f} {pvm_t:14.3f} {r:7.2f}")
    if ratios:
        geo = statistics.geometric_mean(ratios)
        print(f"median ratio {statistics.median(ratios):.2f}  geometric mean {geo:.2f}  "
              f"({len(ratios)} of {len(programs)} programs comparable)")
    else:
        print("no program comparable")


if __name__ == "__main__":
    main()
