"""The chunk store's order-preserving bytes of a bound: the sandbox's KeyString port.

`encode(a) < encode(b)` exactly when MongoDB orders a before b, so the store keeps one compact
`bytes` per chunk boundary and bisects on it. The port lives in zonectl.sandbox.keyorder.
"""

from zonectl.sandbox.keyorder import encode as encode

__all__ = ["encode"]
