#!/usr/bin/env python3
"""Regenerate the expected outputs of the PVM conformance programs from CPython 3.11.

Usage: python3 crates/pvm/tests/conformance/regen.py [FILE_OR_DIR ...]

For every `<name>.py` under the given paths (default: this directory), runs `python3 <name>.py`
with PYTHONHASHSEED=0, the program's directory as cwd and a 10 s timeout, then writes
`<name>.stdout` (exact stdout bytes) and, only if the program exits non-zero, `<name>.error`
(the last non-blank stderr line, e.g. `ZeroDivisionError: division by zero`); a stale `.error`
is deleted. The committed files are the PVM's expectations: never edit them by hand.
"""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def programs(paths):
    for p in paths:
        p = os.path.abspath(p)
        if os.path.isdir(p):
            for root, _, files in sorted(os.walk(p)):
                for f in sorted(files):
                    if f.endswith(".py") and f != "regen.py":
                        yield os.path.join(root, f)
        elif p.endswith(".py"):
            yield p


def regen(path):
    env = dict(os.environ, PYTHONHASHSEED="0", LC_ALL="C.UTF-8", PYTHONIOENCODING="utf-8")
    r = subprocess.run([sys.executable, path], cwd=os.path.dirname(path), env=env,
                       capture_output=True, timeout=10)
    base = path[:-3]
    with open(base + ".stdout", "wb") as f:
        f.write(r.stdout)
    if r.returncode != 0:
        lines = [line for line in r.stderr.decode("utf-8", "replace").splitlines() if line.strip()]
        with open(base + ".error", "w", encoding="utf-8") as f:
            f.write((lines[-1] if lines else "") + "\n")
        return "error"
    if os.path.exists(base + ".error"):
        os.remove(base + ".error")
    return "ok"


def main():
    if sys.version_info[:2] != (3, 11):
        sys.exit(f"regen.py must run on CPython 3.11 (the PVM's reference), not {sys.version}")
    counts = {"ok": 0, "error": 0}
    for path in programs(sys.argv[1:] or [HERE]):
        counts[regen(path)] += 1
    print(f"regenerated {counts['ok'] + counts['error']} programs "
          f"({counts['error']} expected to raise)")


if __name__ == "__main__":
    main()
