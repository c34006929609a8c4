#!/usr/bin/env python3
"""PVM vs CPython: run a set of programs in both engines, same run, and report ratios.

Usage: python3 crates/pvm/benches/compare.py [--set suite|programs] [--cowboy PATH] [--runs N]
                                            [--baseline PATH] [--callgrind] [programs...]

Two sets of CPU-bound programs:
- `suite/` (the default): 28 programs, each about 0.5-1.5 s in CPython 3.11, covering
  object-oriented code, floats, unpacking, closures, exceptions, string building, dict and set
  work, comprehensions, generators and coroutines, big ints, `re`, `decimal`, `json`, `struct`,
  sorting, dynamic programming, itertools, dataclasses and bytes. The headline figure of issue 18.
- `programs/`: the 12 short programs (about 0.1 s each) of the first speed work, kept so
  figures stay comparable with older notes; their times are dominated more by start-up.

Builds nothing itself: pass the release `cowboy` binary (default target/release/cowboy, built by
`cargo build --release -p cowboy-cli`). Each program runs --runs times (default 3) in each engine;
the best wall time counts (least disturbed by the other core's load). Outputs must be identical,
else the program is reported as a MISMATCH and excluded. Metering is on in the PVM (cycles are
always counted; no --cycles budget is given; see `pvm_cmd` for the limits). The ratio is PVM time / CPython time: below 1.0
the PVM is faster. The summary is the geometric mean of the ratios (and their median).

Start-up is measured separately, as the best time of an empty program in each engine, and
printed on its own line; the per-program ratio is of whole process times (start-up included),
and a second column gives the ratio with each engine's start-up subtracted.

With --baseline, an earlier `cowboy` binary runs each program too, in the same run, right after
the PVM under test: its ratio to CPython is printed beside, and its geometric mean after the
headline, so a change is measured against its parent under the same load.

With --callgrind, each program also runs once per engine under `valgrind --tool=callgrind` and
the instruction counts (millions) and their ratio are printed beside the times: a
load-independent measure for comparing commits on a busy machine (about 50 times slower).
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))


def instructions(cmd):
    """(millions of instructions, stdout) of one run under callgrind, or (None, output)."""
    p = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"] + cmd,
                       capture_output=True)
    m = re.search(rb"Collected : (\d+)", p.stderr)
    if p.returncode != 0 or not m:
        return None, p.stdout + p.stderr
    return int(m.group(1)) / 1e6, p.stdout


def best_time(cmd, runs):
    """(best wall seconds over `runs`, stdout), or (None, output) if a run failed."""
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


def pvm_cmd(cowboy, prog):
    """The PVM's command line: metering on, no cycle budget; memory and call depth raised to
    what a script (not an actor) may use, since the suite measures speed, not the on-chain
    limits (10 MiB, depth 32)."""
    return [cowboy, "pvm", "run", "--memory", str(4 << 30), "--max-depth", "1000", prog]


def startup(cowboy, runs):
    """Best wall time of an empty program in each engine: (cpython s, pvm s)."""
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
        f.write("pass\n")
    try:
        py, _ = best_time([sys.executable, f.name], max(runs, 5))
        pvm, _ = best_time(pvm_cmd(cowboy, f.name), max(runs, 5))
    finally:
        os.unlink(f.name)
    return py, pvm


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--set", choices=("suite", "programs"), default="suite")
    ap.add_argument("--cowboy", default=os.path.join(ROOT, "target", "release", "cowboy"))
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--baseline", help="an earlier cowboy binary, timed in the same run")
    ap.add_argument("--callgrind", action="store_true")
    ap.add_argument("programs", nargs="*")
    args = ap.parse_args()
    progdir = os.path.join(HERE, args.set)
    programs = args.programs or sorted(
        os.path.join(progdir, f) for f in os.listdir(progdir) if f.endswith(".py"))
    if not os.path.exists(args.cowboy):
        sys.exit(f"no cowboy binary at {args.cowboy}: run `cargo build --release -p cowboy-cli`")

    py_start, pvm_start = startup(args.cowboy, args.runs)
    print(f"start-up (empty program): cpython {py_start * 1e3:.1f} ms, pvm {pvm_start * 1e3:.1f} ms")
    head = f"{'program':30} {'cpython s':>10} {'pvm s':>8} {'ratio':>6} {'-start':>7}"
    if args.baseline:
        head += f" {'base s':>8} {'ratio':>6}"
    if args.callgrind:
        head += f" {'cpy Minstr':>11} {'pvm Minstr':>11} {'ratio':>6}"
    print(head)
    ratios, net_ratios, instr_ratios, base_ratios = [], [], [], []
    for prog in programs:
        name = os.path.basename(prog)
        py_t, py_out = best_time([sys.executable, prog], args.runs)
        pvm_t, pvm_out = best_time(pvm_cmd(args.cowboy, prog), args.runs)
        if py_t is None:
            print(f"{name:30} CPython failed: {py_out[-200:]!r}")
            continue
        if pvm_t is None:
            last = pvm_out.decode(errors="replace").strip().splitlines()[-1:] or [""]
            print(f"{name:30} {py_t:10.3f} {'FAILED':>8}  {last[0][:80]}")
            continue
        if pvm_out != py_out:
            print(f"{name:30} {py_t:10.3f} {pvm_t:8.3f}  MISMATCH (output differs)")
            continue
        r = pvm_t / py_t
        net = max(pvm_t - pvm_start, 1e-6) / max(py_t - py_start, 1e-6)
        ratios.append(r)
        net_ratios.append(net)
        line = f"{name:30} {py_t:10.3f} {pvm_t:8.3f} {r:6.2f} {net:7.2f}"
        if args.baseline:
            base_t, base_out = best_time(pvm_cmd(args.baseline, prog), args.runs)
            if base_t is not None and base_out == py_out:
                base_ratios.append(base_t / py_t)
                line += f" {base_t:8.3f} {base_t / py_t:6.2f}"
            else:
                line += f" {'failed':>8}"
        if args.callgrind:
            py_i, _ = instructions([sys.executable, prog])
            pvm_i, _ = instructions(pvm_cmd(args.cowboy, prog))
            if py_i and pvm_i:
                instr_ratios.append(pvm_i / py_i)
                line += f" {py_i:11.0f} {pvm_i:11.0f} {pvm_i / py_i:6.2f}"
            else:
                line += f" {'failed':>11}"
        print(line, flush=True)
    if not ratios:
        print("no program comparable")
        return
    print(f"geometric mean {statistics.geometric_mean(ratios):.2f} "
          f"(start-up subtracted {statistics.geometric_mean(net_ratios):.2f}), "
          f"median {statistics.median(ratios):.2f}, worst {max(ratios):.2f}; "
          f"{len(ratios)} of {len(programs)} programs comparable")
    if base_ratios:
        print(f"baseline: geometric mean {statistics.geometric_mean(base_ratios):.2f}, "
              f"median {statistics.median(base_ratios):.2f}, worst {max(base_ratios):.2f}; "
              f"{len(base_ratios)} programs")
    if instr_ratios:
        print(f"instructions: geometric mean {statistics.geometric_mean(instr_ratios):.2f}, "
              f"worst {max(instr_ratios):.2f}")


if __name__ == "__main__":
    main()
