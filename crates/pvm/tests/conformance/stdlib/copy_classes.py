import copy

class Node:
    def __init__(self, val, children=()):
        self.val = val
        self.children = list(children)
    def __repr__(self):
        return f"Node({self.val}, {self.children})"
tree = Node(1, [Node(2), Node(3, [Node(4)])])
t2 = copy.deepcopy(tree)
t2.children[1].children[0].val = 40
print(tree, t2, type(t2).__name__)
class Slotted:
    __slots__ = ("a", "b")
    def __init__(self):
        self.a = [1]
s = Slotted()
s2 = copy.copy(s)
s3 = copy.deepcopy(s)
print(s2.a is s.a, s3.a == s.a, s3.a is s.a, hasattr(s3, "b"))
class Hook:
    def __init__(self, v):
        self.v = v
    def __deepcopy__(self, memo):
        print("deepcopy hook, memo is dict:", isinstance(memo, dict))
        return Hook(self.v + 1)
h = copy.deepcopy([Hook(1), Hook(5)])
print([x.v for x in h])
class State:
    def __init__(self):
        self.a = 1
        self.cache = "big"
    def __getstate__(self):
        st = dict(self.__dict__)
        del st["cache"]
        return st
    def __setstate__(self, st):
        self.__dict__.update(st)
        self.cache = "rebuilt"
st = copy.deepcopy(State())
print(st.a, st.cache, copy.copy(State()).cache)
class MyList(list):
    pass
ml = MyList([1, [2]])
ml.tag = "t"
mc = copy.deepcopy(ml)
print(type(mc).__name__, mc, mc.tag, mc[1] is ml[1])
mcs = copy.copy(ml)
print(type(mcs).__name__, mcs, mcs[1] is ml[1], mcs.tag)
class MyDict(dict):
    pass
md = copy.deepcopy(MyDict(a=[1]))
print(type(md).__name__, md)
class Self:
    def __init__(self):
        self.me = self
sc = copy.deepcopy(Self())
print(sc.me is sc)
class Cls:
    pass
print(copy.deepcopy(Cls) is Cls, copy.copy(Cls) is Cls)
