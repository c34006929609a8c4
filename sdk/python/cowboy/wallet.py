"""Wallets: a secp256k1 key that signs Cowboy transactions.

>>> from cowboy.wallet import Wallet, dev_account
>>> w = dev_account(0)            # the devnet's pre-funded account 0
>>> tx = w.call_tx(chain_id=1337, nonce=0, to="0x…", handler="increment", args=[2],
...                cycles_limit=100_000, cells_limit=1_000, max_fee_per_cycle=10,
...                max_fee_per_cell=10)
>>> raw = tx.encode()             # what cowboy_sendRawTransaction takes

Addresses are Ethereum's (last 20 bytes of keccak256 of the uncompressed public key), so a key
controls the same address on Cowboy and on Ethereum.
"""

from __future__ import annotations

import os
from typing import Any, Optional, Union

import coincurve

from .crypto import (
    actor_address,
    address_bytes,
    canonicalize_source,
    code_hash,
    keccak256,
    to_bytes,
    to_checksum_address,
)
from .errors import SignatureError
from .tx import (
    SECP256K1_N,
    Call,
    Deploy,
    Signature,
    Transaction,
    encode_args,
    recover,
    sign_hash,
)

__all__ = ["Wallet", "dev_account", "DEV_ACCOUNTS", "DEV_CHAIN_ID", "DEV_FUNDS", "CBY", "salt_bytes"]

#: One CBY in the smallest unit (18 decimals).
CBY = 10**18
#: Chain id of ``cowboyd --dev``.
DEV_CHAIN_ID = 1337
#: Number of pre-funded dev accounts.
DEV_ACCOUNTS = 10
#: Each dev account's genesis balance: 1,000,000 CBY.
DEV_FUNDS = 1_000_000 * CBY


def salt_bytes(salt: Union[None, int, str, bytes]) -> bytes:
    """A 32-byte deploy salt from ``None`` (random), an int (big-endian), hex text or bytes."""
    if salt is None:
        return os.urandom(32)
    if isinstance(salt, bool):
        raise TypeError("salt must be bytes, hex text or an int")
    if isinstance(salt, int):
        if not 0 <= salt < 1 << 256:
            raise ValueError("an integer salt must be in 0..2^256")
        return salt.to_bytes(32, "big")
    return to_bytes(salt, 32, "salt")


class Wallet:
    """A secp256k1 private key and its address."""

    def __init__(self, private_key: Union[bytes, str, int]):
        if isinstance(private_key, int) and not isinstance(private_key, bool):
            if not 0 < private_key < SECP256K1_N:
                raise SignatureError("private key out of range")
            key = private_key.to_bytes(32, "big")
        else:
            key = to_bytes(private_key, 32, "private key")
        if not 0 < int.from_bytes(key, "big") < SECP256K1_N:
            raise SignatureError("private key out of range")
        self._key = coincurve.PrivateKey(key)
        self._secret = key
        self.public_key: bytes = self._key.public_key.format(compressed=False)[1:]
        self.address: str = to_checksum_address(keccak256(self.public_key)[12:])

    @classmethod
    def random(cls) -> "Wallet":
        """A fresh key from the OS's random source."""
        while True:
            k = os.urandom(32)
            if 0 < int.from_bytes(k, "big") < SECP256K1_N:
                return cls(k)

    @property
    def private_key(self) -> bytes:
        """The 32 big-endian key bytes."""
        return self._secret

    @property
    def address_bytes(self) -> bytes:
        return address_bytes(self.address)

    def __repr__(self) -> str:
        return f"Wallet({self.address})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Wallet) and other._secret == self._secret

    def __hash__(self) -> int:
        return hash(self.address)

    # -- signing ----------------------------------------------------------------------------

    def sign_hash(self, msg_hash: bytes) -> Signature:
        """Signs a 32-byte prehash (low-s, ``[y_parity, r, s]``)."""
        return sign_hash(self._secret, msg_hash)

    def sign_transaction(self, tx: Transaction) -> Transaction:
        """Signs ``tx`` in place (and returns it)."""
        return tx.sign(self._secret)

    def verify(self, msg_hash: bytes, sig: Signature) -> bool:
        """True iff ``sig`` over ``msg_hash`` recovers this wallet's address."""
        try:
            return recover(sig, msg_hash) == self.address
        except SignatureError:
            return False

    # -- transaction builders (signed) -------------------------------------------------------

    def transfer_tx(self, *, chain_id: int, nonce: int, to: str, value: int, **fees: int) -> Transaction:
        """A signed transfer; ``fees`` are the Transaction fee/limit fields."""
        tx = Transaction(chain_id=chain_id, nonce=nonce, to=to_checksum_address(to), value=value, payload=b"", **fees)
        return tx.sign(self._secret)

    def call_tx(
        self, *, chain_id: int, nonce: int, to: str, handler: str, args: Any = None, value: int = 0, **fees: int
    ) -> Transaction:
        """A signed handler call; ``args`` a list (positional) or dict (keyword)."""
        payload = Call(handler, encode_args(args)).encode()
        tx = Transaction(chain_id=chain_id, nonce=nonce, to=to_checksum_address(to), value=value, payload=payload, **fees)
        return tx.sign(self._secret)

    def deploy_tx(
        self,
        *,
        chain_id: int,
        nonce: int,
        source: Union[str, bytes],
        salt: Union[None, int, str, bytes] = None,
        args: Any = None,
        value: int = 0,
        **fees: int,
    ) -> Transaction:
        """A signed deploy of ``source`` (sent canonicalised); see :meth:`actor_address`."""
        payload = Deploy(canonicalize_source(source), salt_bytes(salt), encode_args(args)).encode()
        tx = Transaction(chain_id=chain_id, nonce=nonce, to=None, value=value, payload=payload, **fees)
        return tx.sign(self._secret)

    def actor_address(self, source: Union[str, bytes], salt: Union[int, str, bytes]) -> str:
        """The address a deploy of ``source`` with ``salt`` from this wallet creates."""
        return actor_address(self.address, salt_bytes(salt), code_hash(canonicalize_source(source)))


def dev_account(i: int) -> Wallet:
    """Dev account ``i`` of ``cowboyd --dev``: key ``keccak256(b"cowboy-dev-account-" + str(i))``.
    Public knowledge: never use these keys outside a devnet."""
    if isinstance(i, bool) or not isinstance(i, int) or i < 0:
        raise ValueError("dev account index must be a non-negative int")
    return Wallet(keccak256(b"cowboy-dev-account-" + str(i).encode()))


class Impersonated:
    """An account a ``--dev`` node lets you send from without its key (anvil's impersonation):
    pass it wherever a :class:`Wallet` sends (:meth:`cowboy.Client.call`, ``deploy``,
    ``transfer``, ``send_transaction``). The client sends such a transaction unsigned through
    ``dev_impersonate``; the dev chain runs it as this sender, nonce and fees included. Make
    one with :meth:`cowboy.Client.impersonate`."""

    def __init__(self, address: str):
        self.address: str = to_checksum_address(address)

    def sign_transaction(self, tx: Transaction) -> Transaction:
        """Leaves ``tx`` unsigned: the node authorizes it as :attr:`address`."""
        return tx

    def __repr__(self) -> str:
        return f"Impersonated({self.address})"
