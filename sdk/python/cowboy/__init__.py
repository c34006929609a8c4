"""cowboy-py: the Python SDK of the Cowboy blockchain.

- :mod:`cowboy.cbor` — canonical CBOR, byte-identical to the node's;
- :mod:`cowboy.wallet` — secp256k1 keys, transactions, signing, actor addresses;
- :mod:`cowboy.client` — JSON-RPC client (HTTP) with WebSocket subscriptions;
- :mod:`cowboy.proof` — storage/account proof verification against a state root;
- :mod:`cowboy.errors` — typed exceptions.
"""

__version__ = "0.1.0"
