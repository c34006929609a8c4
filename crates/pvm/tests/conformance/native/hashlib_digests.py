# hashlib: digests of known inputs for every supported algorithm, incremental updates, copy.
import hashlib

NAMES = ["sha224", "sha256", "sha384", "sha512", "sha3_224", "sha3_256", "sha3_384",
         "sha3_512", "blake2b", "blake2s"]
INPUTS = [b"", b"abc", b"a" * 63, b"a" * 64, b"a" * 65, b"x" * 1000, bytes(range(256)),
          bytearray(b"bytearray input")]

for n in NAMES:
    ctor = getattr(hashlib, n)
    for data in INPUTS:
        h = ctor(data)
        print(n, len(data), h.hexdigest())
    h = ctor()
    print(n, "empty", h.name, h.digest_size, h.block_size, h.digest() == ctor(b"").digest())

# Incremental updates equal one-shot hashing, and copy() forks the state.
for n in NAMES:
    ctor = getattr(hashlib, n)
    h = ctor(b"hello ")
    c = h.copy()
    print(n, h.update(b"world"), h.hexdigest() == ctor(b"hello world").hexdigest())
    c.update(b"there")
    print(n, c.hexdigest() == ctor(b"hello there").hexdigest(), h.hexdigest() != c.hexdigest())
    # digest() does not finalise: more updates keep working.
    d1 = h.digest()
    h.update(b"!")
    print(n, h.digest() == ctor(b"hello world!").digest(), d1 == h.copy().digest(), len(d1))

# Many small updates.
h = hashlib.sha256()
for i in range(200):
    h.update(bytes([i % 256]) * (i % 7))
print(h.hexdigest())
print(hashlib.sha256(b"".join([bytes([i % 256]) * (i % 7) for i in range(200)])).hexdigest())

# hexdigest is the hex of digest.
for n in NAMES:
    h = getattr(hashlib, n)(b"The quick brown fox")
    print(n, h.digest().hex() == h.hexdigest(), type(h.digest()).__name__, type(h.hexdigest()).__name__)

# string= keyword for the OpenSSL constructors.
print(hashlib.sha256(string=b"abc").hexdigest())
print(hashlib.sha3_512(string=b"abc").hexdigest()[:32])
print(hashlib.sha256(b"abc", usedforsecurity=False).hexdigest())
