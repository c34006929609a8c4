class X:
    __hash__ = None
print(type([]).__hash__ is None, type({}).__hash__, list.__hash__, dict.__hash__, X.__hash__, set.__hash__, bytearray.__hash__, int.__hash__ is None, tuple.__hash__ is None, frozenset.__hash__ is None)
class L(list): pass
class D(dict): pass
class LH(list):
    def __hash__(self): return 7
print(L.__hash__, D.__hash__, hash(LH()), "__hash__" in list.__dict__, list.__dict__["__hash__"])
for v in [[], {}, set(), bytearray(), L(), D()]:
    try: hash(v)
    except TypeError as e: print("TypeError", e)
print(hash(frozenset()) == hash(frozenset()), {(1, 2): 3})
