# hashlib.new with Python and OpenSSL names, blake2 digest_size, type and attribute names.
import hashlib

for name in ["sha256", "SHA256", "sha-256", "SHA-512", "sha2-256", "sha3_256", "sha3-256",
             "SHA3-512", "Sha3-224", "sha384", "sha224", "blake2b", "blake2s", "blake2b512",
             "blake2s256", "sha512"]:
    h = hashlib.new(name, b"data")
    print(name, h.name, h.digest_size, h.block_size, h.hexdigest()[:16])

print(hashlib.new("sha256").hexdigest())
print(hashlib.new(name="sha256", data=b"x").hexdigest())
print(hashlib.new("sha256", data=b"x").hexdigest())
print(hashlib.new("sha256", b"x", usedforsecurity=False).hexdigest())
print(hashlib.new("blake2b", b"x", digest_size=16).hexdigest())
print(hashlib.new("blake2s", digest_size=8).hexdigest())

for ds in [1, 16, 20, 32, 48, 64]:
    h = hashlib.blake2b(b"abc", digest_size=ds)
    print("blake2b", ds, h.digest_size, h.hexdigest())
for ds in [1, 16, 20, 32]:
    h = hashlib.blake2s(b"abc", digest_size=ds)
    print("blake2s", ds, h.digest_size, h.hexdigest())
h = hashlib.blake2b(digest_size=20)
h.update(b"ab")
c = h.copy()
c.update(b"c")
print(c.digest_size, c.hexdigest() == hashlib.blake2b(b"abc", digest_size=20).hexdigest())
print(hashlib.blake2b(b"k", key=b"", salt=b"", person=b"").hexdigest()[:16])

print(type(hashlib.sha256()).__name__, type(hashlib.sha256()).__module__)
print(type(hashlib.blake2b()).__name__, type(hashlib.blake2b()).__module__)
print(hashlib.blake2b, hashlib.blake2s, type(hashlib.sha3_256()))
print(isinstance(hashlib.blake2b(), hashlib.blake2b), isinstance(hashlib.blake2s(), hashlib.blake2b))
print(hashlib.sha256.__name__, hashlib.sha3_256.__name__, hashlib.blake2b.__name__)
print(sorted(n for n in hashlib.algorithms_guaranteed if n in
             {"sha256", "sha512", "sha3_256", "sha3_512", "blake2b", "blake2s"}))
print(type(hashlib.sha256()) is type(hashlib.sha512()), type(hashlib.sha256()) is type(hashlib.blake2b()))
