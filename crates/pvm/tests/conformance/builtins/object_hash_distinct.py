# object.__hash__ is an identity hash: distinct for any two live objects, whatever their kind
# (copy.deepcopy's memo keys on it). A singleton once collided with an instance's identity.
class C:
    pass

objs = [C() for _ in range(64)] + [None, True, False, 1, 2.5, "s", (), [], {}, ..., NotImplemented]
hashes = [object.__hash__(o) for o in objs]
print(len(set(hashes)) == len(objs))
print(all(object.__hash__(o) == h for o, h in zip(objs, hashes)))
print(all(h != -1 for h in hashes))

import copy
class Slotted:
    __slots__ = ("a", "b")
    def __init__(self):
        self.a = [1]
made = [C() for _ in range(20)]
s = Slotted()
s3 = copy.deepcopy(s)
print(s3.a, s3.a is s.a, hasattr(s3, "b"))
