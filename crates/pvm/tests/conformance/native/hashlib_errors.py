# hashlib: error messages of common misuse.
import hashlib


def show(f):
    try:
        r = f()
        print("ok", r)
    except Exception as e:
        print(type(e).__name__, e)


for n in ["sha256", "sha512", "sha3_256", "sha3_512", "blake2b", "blake2s"]:
    ctor = getattr(hashlib, n)
    show(lambda: ctor("text"))
    show(lambda: ctor(1))
    show(lambda: ctor(None))
    show(lambda: ctor([1, 2]))
    show(lambda: ctor(b"a", b"b"))
    show(lambda: ctor(foo=1))
    show(lambda: ctor(data=b"x"))
    h = ctor()
    show(lambda: h.update())
    show(lambda: h.update(b"a", b"b"))
    show(lambda: h.update(data=b"a"))
    show(lambda: h.update("s"))
    show(lambda: h.update(3))
    show(lambda: h.digest(1))
    show(lambda: h.hexdigest(1))
    show(lambda: h.copy(1))

show(lambda: hashlib.sha256(b"a", string=b"b"))
show(lambda: hashlib.new("md4"))
show(lambda: hashlib.new("foo"))
show(lambda: hashlib.new("SHA3_256"))
show(lambda: hashlib.new("Blake2b"))
show(lambda: hashlib.new())
show(lambda: hashlib.new(1))
show(lambda: hashlib.new(b"sha256"))
show(lambda: hashlib.new("sha256", "text"))
show(lambda: hashlib.new("sha256", b"x", digest_size=16))
show(lambda: hashlib.new("sha256", b"x", foo=1))
for ds in [0, 65, -1, 1.5, "3"]:
    show(lambda: hashlib.blake2b(digest_size=ds))
show(lambda: hashlib.blake2s(digest_size=33))
show(lambda: hashlib.blake2s(digest_size=32).digest_size)
show(lambda: hashlib.blake2b(digest_size=True).digest_size)


h = hashlib.sha256()
b = hashlib.blake2b()
for obj in [h, b]:
    for attr in ["name", "digest_size", "block_size"]:
        try:
            setattr(obj, attr, 3)
            print("set", attr)
        except AttributeError:
            print("AttributeError", attr)
    try:
        obj.foo = 1
        print("set foo")
    except AttributeError:
        print("AttributeError foo")
    try:
        obj.foo
    except AttributeError:
        print("AttributeError get foo")
show(lambda: type(h)())
hashlib.sha256("not bytes")
