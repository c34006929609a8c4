# Argument errors that mix positional and keyword arguments, unbound calls through the type,
# subclass receivers and the alternate constructors (class methods) reached through instances.

def t(f):
    try:
        print(repr(f()))
    except (TypeError, ValueError) as e:
        print(type(e).__name__, e)

t(lambda: [].append(1, 2))
t(lambda: [].append(x=1))
t(lambda: list.append([], 1, 2))
t(lambda: str.upper('a', 1))
t(lambda: dict.get({}, 1, 2, 3))
t(lambda: 'a'.split(1, 2, 3, x=1))
t(lambda: 'a'.split(1, sep=2))
t(lambda: 'a b'.split(maxsplit=1, sep=None))
t(lambda: (1).to_bytes(1, 2, 3, x=1))
t(lambda: (1).to_bytes(1, 2, 3))
t(lambda: (1).to_bytes(1, 'big', signed=True, x=1))
t(lambda: (1).to_bytes(length=2, byteorder='little'))
t(lambda: {}.update(1, 2, x=1))
t(lambda: set().union(x=1))
t(lambda: b'a'.translate(None, b'', x=1))
t(lambda: b'a'.translate(x=1))
t(lambda: b'a'.translate())
t(lambda: b'a'.translate(table=None))
t(lambda: b'abc'.translate(None, delete=b'b'))
t(lambda: [3, 1].sort(1, key=2))
t(lambda: [3, 1].sort(1, 2, 3))
t(lambda: [3, 1].sort(reverse=True, cmp=None))
t(lambda: int.from_bytes())
t(lambda: int.from_bytes(b'', 'big', True))
t(lambda: int.from_bytes(b'\x01\x00', byteorder='little', signed=False))
t(lambda: int.from_bytes(None, 'x'))
t(lambda: int.from_bytes(b'', None))
t(lambda: (5).from_bytes(b'\x02', 'big'))
t(lambda: True.from_bytes(b'\x01', 'big'))
t(lambda: ''.splitlines(1, keepends=2))
t(lambda: 'a\nb'.splitlines(keepends=True))
t(lambda: ''.encode(1, 2, 3))
t(lambda: ''.encode(encoding=1, errors=2, x=3))
t(lambda: ''.encode(encoding='ascii', errors='strict'))
t(lambda: b'ab'.hex(sep=':', bytes_per_sep=1))
t(lambda: b'ab'.hex(':', 1, 2))
t(lambda: {1: 2}.fromkeys([1, 2], 0))
t(lambda: {1: 2}.fromkeys())
t(lambda: dict.fromkeys())
t(lambda: b'x'.fromhex('4142'))
t(lambda: bytearray().fromhex('41', '42'))
t(lambda: bytes.fromhex(string='41'))
t(lambda: (1.5).fromhex('0x1p1'))
t(lambda: float.fromhex())
t(lambda: str.maketrans())
t(lambda: str.maketrans('a', 'b', 'c', 'd'))
t(lambda: bytes.maketrans(b'a'))
t(lambda: True.bit_length(1))
t(lambda: (2**100).bit_length(x=1))
t(lambda: {1: 2}.keys().isdisjoint())
t(lambda: {1: 2}.keys().isdisjoint([2], [3]))
t(lambda: {1: 2}.items().isdisjoint(other=1))
t(lambda: {1: 2}.keys().isdisjoint([2, 3]))
t(lambda: {1: 2}.keys().isdisjoint({1}))
t(lambda: {1: 2}.items().isdisjoint([(1, 2)]))
t(lambda: {1: 2}.items().isdisjoint([(1, 3), [1, 2]]))
t(lambda: {1: 2}.keys().isdisjoint(5))
t(lambda: {1: 2}.keys().isdisjoint([[1]]))


class S(str):
    pass


class L(list):
    pass


t(lambda: S('ab').upper(1))
t(lambda: S('ab').find())
t(lambda: L([1]).append())
t(lambda: L([1]).pop(0, 1))
t(lambda: L([3, 1, 2]).index(2, 0, 3))
t(lambda: [1, 2, 3, 2].index(2, 2))
t(lambda: [1, 2, 3].index(3, -1, 2**70))
t(lambda: [1, 2, 3].index(1, None))
t(lambda: (1, 2).index(2, 1.0))
