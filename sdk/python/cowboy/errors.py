"""Typed exceptions of the Cowboy SDK.

Every error the SDK raises derives from :class:`CowboyError`:

- :class:`CborError` — bytes that are not canonical CBOR, or a value that cannot be encoded;
- :class:`RpcError` — a JSON-RPC error object from the node (``code``, ``message``, ``data``);
- :class:`TransactionRejected` — the node refused a transaction (RPC code -32000);
- :class:`ActorError` — a deploy or call ran and failed inside the actor;
- :class:`ProofError` — a state proof does not verify against the state root;
- :class:`ReceiptTimeout` — no receipt arrived in time;
- :class:`TimerTimeout` / :class:`TimerGone` — a timer did not fire in time / can no longer fire;
- :class:`TransactionError` / :class:`SignatureError` — malformed transactions or signatures.
"""

from __future__ import annotations

from typing import Any, Optional


class CowboyError(Exception):
    """Base class of every error raised by the SDK."""


class CborError(CowboyError, ValueError):
    """Bytes that are not canonical CBOR (``kind`` names the rule, as the Rust
    ``CborErrorKind``), or a Python value that has no canonical CBOR encoding."""

    def __init__(self, kind: str, offset: Optional[int] = None, detail: Any = None, message: str = ""):
        self.kind = kind
        self.offset = offset
        self.detail = detail
        if not message:
            message = kind if detail is None else f"{kind}({detail})"
        if offset is not None:
            message = f"non-canonical CBOR at byte {offset}: {message}"
        super().__init__(message)


class SignatureError(CowboyError, ValueError):
    """A signature or private key is malformed or does not verify."""


class TransactionError(CowboyError, ValueError):
    """Bytes that are not a valid transaction (mirrors the Rust ``TxError``)."""

    def __init__(self, kind: str, message: str, field: Optional[str] = None):
        self.kind = kind
        self.field = field
        super().__init__(message)


class AddressError(CowboyError, ValueError):
    """A string that is not an address (wrong length, non-hex, bad EIP-55 checksum)."""


class RpcError(CowboyError):
    """A JSON-RPC error returned by the node, or a transport failure (``code`` is None then)."""

    def __init__(self, code: Optional[int], message: str, data: Any = None):
        self.code = code
        self.message = message
        self.data = data
        text = message if code is None else f"[{code}] {message}"
        if data is not None and not isinstance(self, TransactionRejected):
            text += f" ({data})"
        super().__init__(text)


class TransactionRejected(RpcError):
    """The node refused a transaction (RPC error -32000). ``reason`` is one of the rejection
    kinds of RPC.md: ``decode``, ``signature``, ``wrongChain``, ``nonceTooLow``, ``nonceGap``,
    ``insufficientBalance``, ``feeCapBelowBasefee``, ``limits``, ``payload``,
    ``replacementUnderpriced``, ``mempoolFull``, ``alreadyKnown``, ``devOnly``, ``invalid``."""

    def __init__(self, reason: str, message: str, code: int = -32000, data: Any = None):
        self.reason = reason
        super().__init__(code, message, data if data is not None else {"reason": reason, "message": message})

    def __str__(self) -> str:
        return f"transaction rejected ({self.reason}): {self.message}"


class ActorError(CowboyError):
    """A deploy or handler call failed inside the actor.

    ``class_name`` is the Python exception class (``ValueError``, ``OutOfCycles``…),
    ``message`` its message, ``line`` the line of the actor source where it was raised (or
    None), ``receipt`` the receipt of the failed transaction (None when the failure came from a
    read-only call or a fee estimate, before anything was sent). ``source`` is the actor's
    source when the SDK could fetch it; ``str()`` then shows the failing line like a traceback.
    """

    def __init__(
        self,
        class_name: str,
        message: str,
        line: Optional[int] = None,
        receipt: Optional[dict] = None,
        *,
        address: Optional[str] = None,
        handler: Optional[str] = None,
        source: Optional[str] = None,
        simulated: bool = False,
    ):
        self.class_name = class_name
        self.message = message
        self.line = line
        self.receipt = receipt
        self.address = address
        self.handler = handler
        self.source = source
        self.simulated = simulated
        super().__init__(self._render())

    @property
    def source_line(self) -> Optional[str]:
        """The text of the failing line of the actor source, if known."""
        if self.source is None or not self.line:
            return None
        lines = self.source.split("\n")
        if 1 <= self.line <= len(lines):
            return lines[self.line - 1]
        return None

    def _render(self) -> str:
        where = self.address or "actor"
        what = "deploy" if self.handler is None else f"handler {self.handler!r}"
        head = f"{'simulated ' if self.simulated else ''}{what} of {where} failed"
        out = [f"Traceback ({head}):"]
        loc = f'  File "<actor {where}>"'
        if self.line:
            loc += f", line {self.line}"
        if self.handler:
            loc += f", in {self.handler}"
        out.append(loc)
        text = self.source_line
        if text is not None:
            out.append("    " + text.strip())
        out.append(f"{self.class_name}: {self.message}" if self.message else self.class_name)
        return "\n".join(out)

    def __str__(self) -> str:
        return self._render()


class ProofError(CowboyError):
    """A state proof was rejected. ``kind`` is ``Malformed``, ``ClaimMismatch``, ``Inactive``
    or ``RootMismatch`` (the Rust ``VerifyError``); for ``Malformed``, ``detail`` names the
    decoding problem (``UnknownVersion``, ``Truncated``…)."""

    def __init__(self, kind: str, detail: Any = None):
        self.kind = kind
        self.detail = detail
        super().__init__(kind if detail is None else f"{kind}: {detail}")


class ReceiptTimeout(CowboyError, TimeoutError):
    """No receipt for a transaction within the timeout."""

    def __init__(self, tx_hash: str, timeout: float):
        self.tx_hash = tx_hash
        self.timeout = timeout
        super().__init__(f"no receipt for {tx_hash} after {timeout:g}s")


class TimerTimeout(CowboyError, TimeoutError):
    """A timer did not fire within the timeout."""

    def __init__(self, timer_id: int, timeout: float, height: Optional[int] = None):
        self.timer_id = timer_id
        self.timeout = timeout
        self.height = height
        at = "" if height is None else f" (chain at block {height})"
        super().__init__(f"timer {timer_id} did not fire within {timeout:g}s{at}")


class TimerGone(CowboyError):
    """The timer is no longer pending and did not fire in the blocks searched: it was
    cancelled or dropped (its owner could not pay), or never existed."""

    def __init__(self, timer_id: int, searched_from: int, searched_to: int):
        self.timer_id = timer_id
        self.searched_from = searched_from
        self.searched_to = searched_to
        super().__init__(
            f"timer {timer_id} is not pending and did not run in blocks {searched_from}..{searched_to} "
            "(cancelled, dropped, or never set)"
        )


class NodeError(CowboyError):
    """The test node could not be started or found (pytest plugin)."""
