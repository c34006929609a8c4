"""The `cowboy_sdk` typing package (sdk/python-actor) against the PVM's real module.

The stub must not drift from what actors get on chain: its public names are compared with
`dir(cowboy_sdk)` as an actor sees it (run by `cowboy actor test`, the real PVM in an
in-process chain), its signatures with the PVM module's source, and mypy must accept every
example actor with it and reject misuse. Needs the stub installed
(`python3 -m pip install ./sdk/python-actor`, as scripts/test does) and the `cowboy` binary
(`$COWBOY`, else target/debug/cowboy of this checkout).
"""

from __future__ import annotations

import ast
import inspect
import json
import os
import re
import pathlib
import subprocess
import sys

import pytest

REPO = pathlib.Path(__file__).resolve().parents[3]
PVM_MODULE = REPO / "crates" / "pvm" / "src" / "stdlib" / "python" / "cowboy_sdk.py"
# `cowboy_sdk.Storage` is native: its methods are the table in this file.
PVM_STORAGE = REPO / "crates" / "pvm" / "src" / "sdk" / "storage.rs"
EXAMPLES = sorted((REPO / "examples" / "actors").glob("*.py"))
# Names `from typing import …` brings into the stub's namespace: not part of the SDK.
TYPING_NAMES = {"Any", "Callable", "TypeVar", "Union", "overload", "annotations"}
# The SDK's constants: compared by value with what an actor sees, not by signature.
CONSTANTS = ["CAPTURE_MAX_BYTES", "JOB_DISPATCHER", "RESULT_VERIFIER", "RUNNER_REGISTRY", "SCHEDULER"]


def _stub():
    try:
        import cowboy_sdk
    except ImportError:
        pytest.fail("the cowboy_sdk stub is not installed: python3 -m pip install ./sdk/python-actor")
    return cowboy_sdk


def _cowboy() -> str:
    env = os.environ.get("COWBOY")
    if env:
        return env
    for profile in ("debug", "release"):
        p = REPO / "target" / profile / "cowboy"
        if p.exists():
            return str(p)
    pytest.fail("no cowboy binary: set COWBOY=/path/to/cowboy or `cargo build -p cowboy-cli`")


PROBE = '''\
import cowboy_sdk
from cowboy_sdk import actor


@actor
class Probe:
    def __init__(self):
        self.storage["ok"] = True

    def names(self):
        return [n for n in dir(cowboy_sdk) if not n.startswith("_")]

    def constants(self):
        return {n: getattr(cowboy_sdk, n) for n in CONSTANTS}
'''.replace("CONSTANTS", repr(CONSTANTS))


def _probe(tmp_path, handler):
    src = tmp_path / "probe.py"
    src.write_text(PROBE)
    out = subprocess.run(
        [_cowboy(), "--json", "actor", "test", str(src), "--view", handler],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr + out.stdout
    steps = json.loads(out.stdout)["steps"]
    return steps[-1]["returnValue"]


def test_public_names_match_the_pvm_module(tmp_path):
    stub = _stub()
    # The host module it is built on is not part of the actor surface.
    on_chain = set(_probe(tmp_path, "names")) - {"pvm_host"}
    assert sorted(stub.__all__) == sorted(on_chain)
    public = {n for n in dir(stub) if not n.startswith("_")} - TYPING_NAMES
    # Submodules (the mypy plugin) are not part of the actor surface.
    public = {n for n in public if not inspect.ismodule(getattr(stub, n))}
    assert public == set(stub.__all__)


def test_constants_match(tmp_path):
    stub = _stub()
    assert {n: getattr(stub, n) for n in CONSTANTS} == _probe(tmp_path, "constants")


def _pvm_defs():
    """Top-level functions and classes of the PVM's cowboy_sdk source, by name."""
    tree = ast.parse(PVM_MODULE.read_text())
    return {n.name: n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}


def _params(fn: ast.FunctionDef):
    """(name, default source or None) of each parameter, as the PVM source spells them."""
    a = fn.args
    positional = a.posonlyargs + a.args
    defaults = [None] * (len(positional) - len(a.defaults)) + [ast.unparse(d) for d in a.defaults]
    out = [(p.arg, d) for p, d in zip(positional, defaults)]
    if a.vararg:
        out.append((a.vararg.arg, None))
    out += [
        (p.arg, None if d is None else ast.unparse(d)) for p, d in zip(a.kwonlyargs, a.kw_defaults)
    ]
    if a.kwarg:
        out.append((a.kwarg.arg, None))
    return out


def _stub_params(fn):
    out = []
    for p in inspect.signature(fn).parameters.values():
        if p.default is inspect.Parameter.empty:
            out.append((p.name, None))
        elif p.default is getattr(_stub(), "_ABSENT"):
            out.append((p.name, "_ABSENT"))
        else:
            out.append((p.name, repr(p.default)))
    return out


def _native_storage_methods():
    """The method names of the native `Storage` class (its `make_class` table)."""
    return set(re.findall(r'\("(\w+)", m_\w+\)', PVM_STORAGE.read_text()))


def test_storage_methods_match_the_native_class():
    stub = _stub()
    ours = {
        m
        for m, v in vars(stub.Storage).items()
        if callable(v) and (not m.startswith("_") or m.startswith("__")) and m != "__init__"
    }
    native = _native_storage_methods()
    assert "get" in native and "__getitem__" in native, native
    assert ours == native


def test_signatures_match_the_pvm_module():
    stub = _stub()
    defs = _pvm_defs()
    for name in stub.__all__:
        if name in CONSTANTS or name == "Storage":
            continue
        node = defs.get(name)
        assert node is not None, f"{name} is not defined in {PVM_MODULE}"
        obj = getattr(stub, name)
        if isinstance(node, ast.FunctionDef):
            assert _stub_params(obj) == _params(node), name
            continue
        methods = {
            m.name: m
            for m in node.body
            if isinstance(m, ast.FunctionDef) and (not m.name.startswith("_") or m.name.startswith("__"))
        }
        for m_name, m in methods.items():
            assert hasattr(obj, m_name), f"{name}.{m_name} is missing from the stub"
            assert _stub_params(getattr(obj, m_name)) == _params(m), f"{name}.{m_name}"
        stub_methods = {
            m
            for m, v in vars(obj).items()
            if callable(v) and not m.startswith("_") and not isinstance(v, type)
        }
        assert stub_methods <= set(methods), f"{name}: the stub has methods the PVM lacks"


def _mypy(files, config_dir):
    config = config_dir / "mypy.ini"
    config.write_text("[mypy]\nplugins = cowboy_sdk.mypy_plugin\n")
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--no-incremental", "--config-file", str(config), *map(str, files)],
        capture_output=True,
        text=True,
        cwd=config_dir,
        timeout=600,
    )


def test_mypy_accepts_the_example_actors(tmp_path):
    _stub()
    assert EXAMPLES, "no example actors found"
    out = _mypy(EXAMPLES, tmp_path)
    assert out.returncode == 0, out.stdout + out.stderr
    assert f"no issues found in {len(EXAMPLES)} source files" in out.stdout


def test_mypy_rejects_misuse(tmp_path):
    # Proves mypy reads the stub: each line below is wrong only by the SDK's types.
    bad = tmp_path / "bad.py"
    bad.write_text(
        "from cowboy_sdk import Address, actor, emit_event, sender, set_timer\n"
        "\n"
        "\n"
        "@actor\n"
        "class Bad:\n"
        "    def f(self, to: Address) -> int:\n"
        "        emit_event(42)\n"
        "        n: int = sender()\n"
        "        self.storage[1.5] = 0\n"
        "        return set_timer('soon', 'f')\n"
    )
    out = _mypy([bad], tmp_path)
    assert out.returncode == 1, out.stdout
    for line in (7, 8, 9, 10):
        assert f"bad.py:{line}: error" in out.stdout, out.stdout
    # The plugin gave the actor its storage: line 9 fails on the key's type, not the attribute.
    assert 'has no attribute "storage"' not in out.stdout, out.stdout


def test_the_stub_says_where_actors_run():
    stub = _stub()
    with pytest.raises(RuntimeError, match="cowboy actor test"):
        stub.sender()

    @stub.actor
    class A:
        pass

    assert A.__cowboy_actor__ is True
