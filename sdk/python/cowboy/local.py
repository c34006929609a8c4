"""Run an actor without a node, from Python: a thin driver of ``cowboy actor test``.

``cowboy actor test FILE.py`` deploys the file into an in-process chain (the real block rule
over a real state database in a temporary directory, with the devnet's ten funded dev
accounts) and runs steps in order (crates/cli/README.md, "Actors without a node").
:func:`run_actor` builds that command from Python values, runs it with ``--json`` and returns
the receipts::

    from cowboy import dev_account
    from cowboy.local import call, run_actor, view

    bob = dev_account(1).address
    run = run_actor("examples/actors/token.py", args=["Tok", 1000], steps=[
        call("transfer", [bob, 5]),
        view("balance_of(dev1)"),                  # a call expression, as on the command line
        call("transfer(dev0, 10)", sender=1),      # fails: run.steps[-1].traceback
    ], keep_going=True)
    assert run.steps[2].return_value == 5

Arguments given as a list or dict are sent as JSON with exact integers (a string is just a
string); in a call expression ``dev0`` … ``dev9`` and ``actor`` name those addresses. The binary is ``$COWBOY``, else the newest
``target/{debug,release}/cowboy`` above the working directory or under
``$CARGO_TARGET_DIR``, else ``cowboy`` on ``PATH``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Union

from .errors import CowboyError

__all__ = ["Step", "call", "view", "mine", "StepResult", "LocalRun", "run_actor", "find_binary"]


def _is_exe(p: Path) -> bool:
    return p.is_file() and os.access(p, os.X_OK)


def find_binary(name: str, env: str, start: Optional[Path] = None) -> Optional[str]:
    """A binary of this repository: ``$ENV``; else the newest ``target/{debug,release}/NAME``
    walking up from ``start`` (default: the working directory) or under ``$CARGO_TARGET_DIR``;
    else ``NAME`` on ``PATH``. None if there is none."""
    given = os.environ.get(env)
    if given:
        return given
    candidates: List[Path] = []
    target_dir = os.environ.get("CARGO_TARGET_DIR")
    if target_dir:
        candidates += [Path(target_dir) / p / name for p in ("debug", "release")]
    here = (start or Path.cwd()).resolve()
    for d in [here, *here.parents]:
        found = [d / "target" / p / name for p in ("debug", "release")]
        found = [p for p in found if _is_exe(p)]
        if found:
            candidates += found
            break
    existing = [p for p in candidates if _is_exe(p)]
    if existing:
        return str(max(existing, key=lambda p: p.stat().st_mtime))
    return shutil.which(name)


@dataclass
class Step:
    """One step of a run: ``kind`` is ``"call"``, ``"view"`` or ``"mine"``."""

    kind: str
    handler: str = ""
    args: Optional[Union[Sequence[Any], Dict[str, Any]]] = None
    sender: Optional[Union[int, str]] = None
    value: Optional[Union[int, str]] = None
    blocks: int = 0

    def argv(self) -> List[str]:
        if self.kind == "mine":
            return ["--mine", str(self.blocks)]
        out = [f"--{self.kind}", self.handler]
        out += _options(self.args, self.sender, self.value)
        return out


def _options(args: Any, sender: Any, value: Any) -> List[str]:
    out: List[str] = []
    if args is not None:
        if not isinstance(args, (list, tuple, dict)):
            raise TypeError("args must be a list, a tuple or a dict")
        out += ["--args", json.dumps(list(args) if isinstance(args, tuple) else args)]
    if sender is not None:
        out += ["--from", str(sender)]
    if value is not None:
        out += ["--value", str(value)]
    return out


def call(handler: str, args: Any = None, *, sender: Union[int, str, None] = None,
         value: Union[int, str, None] = None) -> Step:
    """A handler call in a transaction, mined in a block of its own. ``handler`` is a name
    (then ``args`` is a list or dict) or a call expression such as ``"transfer(dev1, 5)"``.
    ``sender``: a dev account number or address (default: dev account 0); ``value``: wei, or a
    string with a unit (``"1.5cby"``)."""
    return Step("call", handler, args, sender, value)


def view(handler: str, args: Any = None, *, sender: Union[int, str, None] = None,
         value: Union[int, str, None] = None) -> Step:
    """A read-only handler call on the latest state: nothing is mined or paid."""
    return Step("view", handler, args, sender, value)


def mine(blocks: int = 1) -> Step:
    """Mine ``blocks`` empty blocks (due timers run in them)."""
    return Step("mine", blocks=blocks)


@dataclass
class StepResult:
    """What one step did: its receipt as ``cowboy actor test --json`` prints it (the RPC's
    receipt fields, plus ``kind``, ``from``, ``to``, ``blockHeight``, ``traceback``) in
    ``raw``."""

    raw: Dict[str, Any]

    @property
    def kind(self) -> str:
        return self.raw.get("kind", "")

    @property
    def success(self) -> bool:
        return bool(self.raw.get("success", True))

    @property
    def return_value(self) -> Any:
        return self.raw.get("returnValue")

    @property
    def events(self) -> List[Dict[str, Any]]:
        return self.raw.get("events", [])

    @property
    def traceback(self) -> Optional[str]:
        return self.raw.get("traceback")

    @property
    def fee_paid(self) -> int:
        return int(self.raw.get("feePaid", "0"))


@dataclass
class LocalRun:
    """A finished ``cowboy actor test`` run."""

    actor: Optional[str]
    steps: List[StepResult]
    ok: bool
    stderr: str
    raw: Dict[str, Any] = field(repr=False, default_factory=dict)


def run_actor(source: Union[str, Path], steps: Sequence[Step] = (), *, args: Any = None,
              sender: Union[int, str, None] = None, value: Union[int, str, None] = None,
              salt: Optional[str] = None, keep_going: bool = False,
              cowboy: Optional[str] = None, timeout: float = 600) -> LocalRun:
    """Deploy ``source`` (a file) with ``args`` for ``__init__`` from ``sender`` with
    ``value``, run ``steps`` in order and return every receipt. A handler that fails is a
    step with ``success`` False (the run stops there unless ``keep_going``); a run that could
    not start or continue (a bad option, a sender who cannot pay) raises :class:`CowboyError`
    with the command's message."""
    binary = cowboy or find_binary("cowboy", "COWBOY")
    if not binary:
        raise CowboyError(
            "no cowboy binary: set COWBOY=/path/to/cowboy or build one with "
            "`cargo build -p cowboy-cli`"
        )
    argv = [binary, "--json", "actor", "test", str(source)]
    argv += _options(args, sender, value)
    if salt is not None:
        argv += ["--salt", salt]
    for s in steps:
        argv += s.argv()
    if keep_going:
        argv.append("--keep-going")
    done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    try:
        doc = json.loads(done.stdout)
    except json.JSONDecodeError:
        raise CowboyError(done.stderr.strip() or f"cowboy exited with {done.returncode}") from None
    if doc.get("error"):
        raise CowboyError(doc["error"])
    return LocalRun(
        actor=doc.get("actor"),
        steps=[StepResult(s) for s in doc.get("steps", [])],
        ok=done.returncode == 0,
        stderr=done.stderr,
        raw=doc,
    )
