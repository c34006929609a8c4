# The public names of every builtin type, on an instance and on the type, as dir() lists them,
# and hasattr for each.
samples = {'str': 'abc', 'bytes': b'abc', 'bytearray': bytearray(b'abc'), 'int': 5, 'bool': True,
           'float': 2.5, 'list': [1, 2], 'tuple': (1, 2), 'dict': {1: 2}, 'set': {1},
           'frozenset': frozenset({1}), 'dict_keys': {1: 2}.keys(), 'dict_values': {1: 2}.values(),
           'dict_items': {1: 2}.items(), 'range': range(3), 'slice': slice(1)}
for tn, v in samples.items():
    inst = sorted(n for n in dir(v) if not n.startswith('_'))
    print(tn, inst)
    print(tn, 'missing', [n for n in inst if not hasattr(v, n)])
for t in [str, bytes, bytearray, int, bool, float, list, tuple, dict, set, frozenset, range, slice]:
    print(t.__name__, sorted(n for n in dir(t) if not n.startswith('_')))
print(hasattr(5, 'is_integer'), hasattr(frozenset(), 'add'), hasattr(2.5, 'fromhex'))
print((2.5).fromhex('0x1p3'), b''.fromhex('41 42'), bytearray(b'x').fromhex('43'), (7).from_bytes(b'\x01\x02', 'little'))
print((5).real, (5).imag, (5).numerator, (5).denominator, (2.5).real, (2.5).imag, range(1, 9, 2).step, slice(1, 2).stop)
