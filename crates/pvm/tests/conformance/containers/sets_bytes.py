a = {1, 2, 3, 4}; b = {3, 4, 5}
print(sorted(a | b), sorted(a & b), sorted(a - b), sorted(a ^ b), a <= {1, 2, 3, 4, 5}, a.isdisjoint({9}))
s = set(); s.add(1); s.update([2, 3]); s.discard(9); s.remove(1); print(sorted(s), len(s), 2 in s)
try: s.remove(42)
except KeyError as e: print("KeyError", e)
fs = frozenset([1, 2]); print(sorted(fs | {3}), fs == frozenset([2, 1]), hash(fs) == hash(frozenset([1, 2])))
bs = b"hello world"
print(bs.upper(), bs.split(), bs.find(b"o"), bs[0], bs[-1:], list(bs[:3]), bs.hex(), bytes.fromhex("4142"))
print(bytes(3), bytes([65, 66]), b"ab" + b"cd", b"a" * 3, b"x" in b"xyz", bs.replace(b"l", b"L"), bs.startswith(b"he"))
ba = bytearray(b"abc"); ba.append(100); ba[0] = 65; ba.extend(b"ef"); print(ba, len(ba), bytes(ba), ba.pop())
print(b"%d-%s" % (5, b"x"), b",".join([b"a", b"b"]), bytes(range(3)), repr(b"\x00\n'"), b"AbC".lower())
