"""cowboy-py: the Python SDK of the Cowboy blockchain.

- :mod:`cowboy.cbor` — canonical CBOR, byte-identical to the node's;
- :mod:`cowboy.wallet` — secp256k1 keys, dev accounts, signed transaction builders;
- :mod:`cowboy.tx` — the transaction and payload wire formats;
- :mod:`cowboy.crypto` — keccak256, EIP-55 addresses, canonical source and actor addresses;
- :mod:`cowboy.client` — JSON-RPC client (HTTP) with WebSocket subscriptions;
- :mod:`cowboy.proof` — state proof verification against a state root;
- :mod:`cowboy.errors` — typed exceptions;
- :mod:`cowboy.pytest_plugin` — ``cowboy_node``/``cowboy_client``/``funded_wallet`` fixtures;
- :mod:`cowboy.local` — run an actor without a node (drives ``cowboy actor test``);
- :mod:`cowboy.runner` — the runner's side of off-chain jobs (register, commit, aggregate).
"""

from .client import Client, StorageValue
from .errors import (
    ActorError,
    CborError,
    CowboyError,
    ProofError,
    ReceiptTimeout,
    RpcError,
    TimerGone,
    TimerTimeout,
    TransactionRejected,
)
from .tx import Transaction
from .wallet import CBY, Impersonated, Wallet, dev_account

__version__ = "0.1.0"

__all__ = [
    "Client",
    "StorageValue",
    "Wallet",
    "Impersonated",
    "dev_account",
    "Transaction",
    "CBY",
    "CowboyError",
    "CborError",
    "RpcError",
    "TransactionRejected",
    "ActorError",
    "ProofError",
    "TimerTimeout",
    "TimerGone",
    "ReceiptTimeout",
]
