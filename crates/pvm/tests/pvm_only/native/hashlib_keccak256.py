# Cowboy's hashlib.keccak256: Ethereum Keccak-256 (original Keccak padding), not SHA3-256.
import hashlib

print(hashlib.keccak256(b"").hexdigest())
print(hashlib.keccak256(b"abc").hexdigest())
print(hashlib.keccak256(b"transfer(address,uint256)").digest()[:4].hex())
print(hashlib.sha3_256(b"").hexdigest())
h = hashlib.keccak256()
h.update(b"a")
h.update(b"bc")
print(h.hexdigest() == hashlib.keccak256(b"abc").hexdigest(), h.name, h.digest_size, h.block_size)
c = h.copy()
c.update(b"d")
print(c.hexdigest() != h.hexdigest(), type(h).__name__, type(h).__module__)
print(hashlib.new("keccak256", b"abc").hexdigest() == h.hexdigest())
print(hashlib.keccak256(string=b"abc").hexdigest() == h.hexdigest())
try:
    hashlib.keccak256("abc")
except TypeError as e:
    print("TypeError", e)
