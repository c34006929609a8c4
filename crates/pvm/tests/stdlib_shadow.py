"""Shadow test for the PVM's Python-written standard library.

The PVM embeds every ``crates/pvm/src/stdlib/python/<module>.py`` and runs it as the
whitelisted module of that name (a submodule's file is named after its dotted name,
``collections.abc.py``) (whitepaper "Standard Library Whitelist", Issue 4 item 16).
Until the VM can run them, this script proves those files behave like CPython 3.11's modules:
it runs every conformance program under ``tests/conformance/stdlib/`` in a fresh CPython
subprocess in which OUR module files replace the real stdlib modules of the same names, and
compares stdout (exact bytes) and, for failing programs, the last stderr line with the
committed expectations (``<name>.stdout`` / ``<name>.error`` produced by regen.py from the real
stdlib).

Only the modules a program imports (plus the modules ours import in turn) are substituted, so
CPython's own internals keep using the real stdlib.

It also lints our module files: they may import only each other, and may not call the builtins
the PVM does not provide or that break determinism (id, exec, eval, ...).

Usage: python3 crates/pvm/tests/stdlib_shadow.py [-v] [program.py ...]
Last line: ``N passed, M failed, K skipped …``; exit status 1 if anything failed.
"""

import ast
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.normpath(os.path.join(HERE, "..", "src", "stdlib", "python"))
PROGRAMS = os.path.join(HERE, "conformance", "stdlib")

# Names our modules must never use: not provided by the PVM, or nondeterministic.
FORBIDDEN_NAMES = {
    "id", "exec", "eval", "compile", "__import__", "globals", "locals", "vars",
    "open", "input", "breakpoint", "memoryview",
}

# Programs whose CPython expectation our modules deliberately do not meet, with the reason. They
# stay in conformance's KNOWN_FAILURES too; here they are reported as skipped, not passed.
DELIBERATE = {
    # json.loads rejects a lone \udXXX escape: the PVM's str cannot hold surrogates.
    "json_loads.py": "LIMITATIONS 21 (lone surrogates)",
}

# Runs inside the child: installs a finder serving our files for the chosen names, then runs
# the program as __main__ so tracebacks end exactly like a plain `python3 prog.py`.
BOOT = r"""
import importlib.abc, importlib.util, runpy, sys
src, prog, names = sys.argv[1], sys.argv[2], sys.argv[3].split(",") if sys.argv[3] else []
class _Ours(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name not in names:
            return None
        # A module with a submodule among ours (collections -> collections.abc) is a package
        # whose __path__ is empty: its submodules come from this finder only.
        package = [] if any(n.startswith(name + ".") for n in names) else None
        return importlib.util.spec_from_file_location(
            name, src + "/" + name + ".py", submodule_search_locations=package)
for n in names:
    sys.modules.pop(n, None)
sys.meta_path.insert(0, _Ours())
sys.argv = [prog]
del _Ours
runpy.run_path(prog, run_name="__main__")
"""


# Native modules (src/modules.rs REGISTRY) our Python modules may import. `pvm_host` exists only
# under a chain host, so modules importing it (cowboy_sdk) are linted but never shadow-run.
NATIVE_MODULES = {"_bisect", "_dataclasses", "_decimal", "_heapq", "_json", "hashlib", "math",
                  "pvm_host", "struct"}
# Native modules CPython lacks in our shape: a program whose modules import one (json's Python
# API over the PVM's `_json` scanner and encoder, decimal's over the `_decimal` core, the
# methods dataclasses generates over `_dataclasses`, bisect's search over `_bisect.search`;
# CPython's own `_decimal` and `_bisect` are other modules) cannot run in CPython and is
# reported skipped; the conformance suite compares it with CPython's output in the PVM itself.
# `_heapq` is not here: CPython's has the same five functions, so heapq programs still run.
PVM_ONLY = {"_bisect", "_dataclasses", "_decimal", "_json", "pvm_host"}


def our_modules():
    return sorted(f[:-3] for f in os.listdir(SRC) if f.endswith(".py"))


def imports_of(path):
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), path)
    found = set()

    def add(dotted):
        # `import a.b` imports a, then a.b (a submodule's file is named `a.b.py`).
        parts = dotted.split(".")
        found.update(".".join(parts[:i]) for i in range(1, len(parts) + 1))

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                add(a.name)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            add(node.module)
    return tree, found


def lint(ours):
    """Return a list of problems in our module files."""
    problems = []
    for name in ours:
        path = os.path.join(SRC, name + ".py")
        tree, imported = imports_of(path)
        for mod in sorted(imported - set(ours) - NATIVE_MODULES):
            problems.append(f"{name}.py imports {mod!r}, which is not one of our modules")
        if ast.get_docstring(tree) is None:
            problems.append(f"{name}.py has no module docstring")
        # A parameter may carry a forbidden name (base64.encode(input, output) keeps
        # CPython's keywords): inside its function the name is the argument, not the builtin.
        shadowed = set()
        for fn in ast.walk(tree):
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                params = {a.arg for a in fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs}
                for node in ast.walk(fn):
                    if isinstance(node, ast.Name) and node.id in params:
                        shadowed.add(id(node))
        for node in ast.walk(tree):
            if isinstance(node, ast.Name) and node.id in FORBIDDEN_NAMES \
                    and id(node) not in shadowed:
                problems.append(f"{name}.py:{node.lineno} uses forbidden name {node.id!r}")
    return problems


def closure(start, ours):
    """Our modules reachable from `start` through imports."""
    todo, seen = [m for m in start if m in ours], set()
    while todo:
        m = todo.pop()
        if m in seen:
            continue
        seen.add(m)
        _, deps = imports_of(os.path.join(SRC, m + ".py"))
        todo.extend(d for d in deps if d in ours)
    return sorted(seen)


def last_line(text):
    lines = [ln for ln in text.splitlines() if ln.strip()]
    return lines[-1] if lines else ""


def run_one(prog, ours):
    _, imported = imports_of(prog)
    names = closure(imported, ours)
    env = dict(os.environ, PYTHONHASHSEED="0")
    try:
        proc = subprocess.run(
            [sys.executable, "-c", BOOT, SRC, prog, ",".join(names)],
            cwd=os.path.dirname(prog), env=env, capture_output=True, timeout=10,
        )
    except subprocess.TimeoutExpired:
        return "timed out after 10 s"
    base = prog[:-3]
    with open(base + ".stdout", "rb") as f:
        want_out = f.read()
    want_err = None
    if os.path.exists(base + ".error"):
        with open(base + ".error", encoding="utf-8") as f:
            want_err = f.read().strip()
    if proc.stdout != want_out:
        got = proc.stdout.decode("utf-8", "replace").splitlines()
        want = want_out.decode("utf-8", "replace").splitlines()
        for i in range(max(len(got), len(want))):
            g = got[i] if i < len(got) else "<missing>"
            w = want[i] if i < len(want) else "<missing>"
            if g != w:
                err = last_line(proc.stderr.decode("utf-8", "replace"))
                return f"stdout line {i + 1}: got {g!r}, want {w!r}" + (f" [stderr: {err}]" if err else "")
        return "stdout differs (trailing bytes)"
    got_err = last_line(proc.stderr.decode("utf-8", "replace")) if proc.returncode else None
    if got_err != want_err:
        return f"error: got {got_err!r}, want {want_err!r}"
    return None


def main(argv):
    verbose = "-v" in argv
    chosen = [os.path.abspath(a) for a in argv if a != "-v"]
    ours = our_modules()
    failed = 0
    problems = lint(ours)
    for p in problems:
        print("LINT", p)
    failed += len(problems)
    progs = chosen or sorted(
        os.path.join(PROGRAMS, f) for f in os.listdir(PROGRAMS) if f.endswith(".py")
    )
    passed = skipped = 0
    for prog in progs:
        rel = os.path.relpath(prog, PROGRAMS)
        if rel in DELIBERATE:
            skipped += 1
            print("skip", rel, "--", DELIBERATE[rel])
            continue
        _, imported = imports_of(prog)
        needs = sorted(d for m in closure(imported, ours)
                       for d in imports_of(os.path.join(SRC, m + ".py"))[1] & PVM_ONLY)
        if needs:
            skipped += 1
            print("skip", rel, "-- needs the PVM's native", ", ".join(needs))
            continue
        why = run_one(prog, ours)
        if why is None:
            passed += 1
            if verbose:
                print("ok  ", rel)
        else:
            failed += 1
            print("FAIL", rel, "--", why)
    print(f"{passed} passed, {failed} failed, {skipped} skipped as deliberate differences")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
