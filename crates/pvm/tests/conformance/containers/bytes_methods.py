"""bytes/bytearray methods: search, split/join, strip, case, predicates, hex/fromhex, translate, and mutation."""
b = b"Hello, World! hello"
print(b.find(b"lo"), b.rfind(b"lo"), b.count(b"l"), b.index(b"W"), b.startswith(b"Hell"), b.endswith((b"x", b"lo")), b.find(108))
print(b.split(b" "), b.split(), b.rsplit(b"l", 1), b.partition(b", "), b.rpartition(b"!"), b"-".join([b"a", bytearray(b"b")]))
print(b.upper(), b.lower(), b.swapcase(), b.title(), b.capitalize(), b"  pad  ".strip(), b"xxhixx".strip(b"x"), b"ab".center(6, b"*"))
print(b"abc".isalpha(), b"123".isdigit(), b"a1".isalnum(), b" \t".isspace(), b"ABC".isupper(), b"abc".islower(), b"\xff".isascii())
print(b.hex(), bytes.fromhex("48 65 6c"), b"\x00\xff".hex(), b"abc".hex(":"), b"abcde".hex("-", 2), b"abcde".hex(b"_", -2), bytearray.fromhex("ff00"))
print(b.replace(b"l", b"L", 2), b"abc".translate(bytes.maketrans(b"abc", b"xyz")), b"hello".translate(None, b"l"))
print(b"a\nb\r\nc".splitlines(), b"a\tb".expandtabs(4), b"42".zfill(5), b"x".ljust(3, b"."), b"x".rjust(3))
print(b"TestCase".removeprefix(b"Test"), b"TestCase".removesuffix(b"Case"), b"abc"[1], b"abc"[1:], list(b"hi"))
ba = bytearray(b"hello")
ba.append(33); ba.extend(b"??"); ba.insert(0, 62); ba.remove(63); print(ba, ba.pop(), ba.pop(0), ba)
ba.reverse(); print(ba, ba.copy() == ba, ba.count(108))
ba.clear(); print(ba, len(ba))
for bad in [lambda: b"a".find("a"), lambda: b"a" + "b", lambda: bytearray(b"a").append(256), lambda: bytes.fromhex("zz"), lambda: b"a".join([1])]:
    try:
        print(bad())
    except (TypeError, ValueError) as e:
        print(type(e).__name__, e)
