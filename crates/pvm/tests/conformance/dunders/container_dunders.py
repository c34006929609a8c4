# Operator special methods of str, bytes, bytearray, list, tuple, dict, set and frozenset called
# explicitly: results, NotImplemented for operands the type does not handle, in-place
# mutation, argument errors, unbound calls through the type and super() in subclasses.

def t(f):
    try:
        print(repr(f()))
    except Exception as e:
        print(type(e).__name__, e)


t(lambda: 'x'.__rmod__('%s'))
t(lambda: 'x'.__rmod__(1))
t(lambda: '%d'.__mod__(3))
t(lambda: '%s-%s'.__mod__((1, 2)))
t(lambda: 'ab'.__rmul__(2))
t(lambda: 3 * b'ab')
t(lambda: 3 * bytearray(b'a'))
t(lambda: b'a' + 1)
t(lambda: bytearray(b'a') + 'x')
t(lambda: 'ab'.__rmul__(2.0))
t(lambda: b'%d'.__mod__(3))
t(lambda: b'x'.__rmod__(b'%s'))
t(lambda: b'x'.__rmod__('%s'))
t(lambda: b'x'.__bytes__())
t(lambda: b'ab'.__rmul__(3))
t(lambda: bytearray(b'a').__iadd__(1))
t(lambda: bytearray(b'a').__iadd__(b'b'))
t(lambda: bytearray(b'a').__imul__(3))
t(lambda: bytearray(b'%d').__mod__(5))
t(lambda: [1].__iadd__(5))
t(lambda: [1].__iadd__((2, 3)))
t(lambda: [1].__imul__(2))
t(lambda: [1].__imul__('a'))
t(lambda: list([1, 2].__reversed__()))
t(lambda: [1, 2].__rmul__(2))
t(lambda: (1,).__rmul__(3))
t(lambda: {1: 2}.__or__({3: 4}))
t(lambda: {1: 2}.__or__([(3, 4)]))
t(lambda: {1: 2}.__ror__({3: 4}))
t(lambda: {1: 2}.__ior__([(3, 4)]))
t(lambda: {1: 2}.__ior__({5: 6}))
t(lambda: {1: 2}.__ior__(5))
t(lambda: {}.__lt__({}))
t(lambda: {}.__ge__(1))
t(lambda: list({1: 2, 3: 4}.__reversed__()))
t(lambda: {1}.__or__({2}))
t(lambda: {1}.__or__([2]))
t(lambda: sorted({1, 2}.__rsub__({2, 3})))
t(lambda: sorted({1, 2}.__sub__({2, 3})))
t(lambda: sorted({1, 2}.__and__(frozenset({2, 3}))))
t(lambda: sorted({1, 2}.__xor__({2, 3})))
t(lambda: sorted({1, 2}.__rxor__({2, 3})))
t(lambda: sorted({1, 2}.__rand__({2, 3})))
t(lambda: sorted({1, 2}.__ror__({2, 3})))
t(lambda: sorted(frozenset({1}).__or__({2})))
t(lambda: sorted(frozenset({1, 2}).__rsub__(frozenset({2, 3}))))
t(lambda: {1}.__ior__({2}))
t(lambda: {1}.__ior__([2]))
t(lambda: {1, 2}.__iand__(frozenset({2})))
t(lambda: {1, 2}.__isub__({2}))
t(lambda: {1, 2}.__ixor__({2, 3}))
t(lambda: frozenset({1}).__or__({2}))
t(lambda: {1}.__or__())
t(lambda: {1}.__or__({2}, {3}))
t(lambda: [1].__reversed__(1))
t(lambda: b''.__bytes__(1))
t(lambda: {1}.__or__(x=1))
t(lambda: [].__reversed__(x=1))
t(lambda: {1}.__ror__({1: 2}.keys()))
t(lambda: list.__iadd__([1], [2]))
t(lambda: set.__or__({1}, {2}))
t(lambda: str.__mod__('%s!', 'a'))
t(lambda: dict.__or__({1: 2}, {1: 3}))

s = {1}
r = s.__ior__({2})
print(r is s, s)
l = [1]
r = l.__iadd__([2])
print(r is l, l)
d = {1: 2}
r = d.__ior__({3: 4})
print(r is d, d)


class L(list):
    def __iadd__(self, other):
        return ('L.iadd', super().__iadd__(other))


class S(set):
    def __or__(self, other):
        return ('S.or', super().__or__(other))


t(lambda: L([1]).__iadd__([2]))
t(lambda: S({1}) | {2})
t(lambda: S({1}).__or__([2]))

for T, v in [(str, 'a'), (bytes, b'a'), (bytearray, bytearray(b'a')), (list, [1]), (tuple, (1,)),
             (dict, {1: 2}), (set, {1}), (frozenset, frozenset({1}))]:
    names = ['__mod__', '__rmod__', '__rmul__', '__bytes__', '__iadd__', '__imul__', '__reversed__',
             '__or__', '__ror__', '__ior__', '__and__', '__rand__', '__iand__', '__sub__',
             '__rsub__', '__isub__', '__xor__', '__rxor__', '__ixor__', '__lt__', '__le__',
             '__gt__', '__ge__']
    # (On the type, CPython also finds type.__or__/__ror__, the `X | Y` of annotations.)
    print(T.__name__, [n for n in names if hasattr(v, n)])
