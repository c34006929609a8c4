import operator as op

class P:
    def __init__(self, name, child=None):
        self.name = name
        self.child = child
    def greet(self, greeting, punct="!"):
        return greeting + " " + self.name + punct

p = P("ann", P("bob", P("cy")))
print(op.attrgetter("name")(p), op.attrgetter("child.name")(p), op.attrgetter("child.child.name")(p))
print(op.attrgetter("name", "child.name")(p))
print(repr(op.attrgetter("a", "b.c")), repr(op.attrgetter("x")))
try:
    op.attrgetter("missing")(p)
except AttributeError as e:
    print("AttributeError", e)
for bad in [lambda: op.attrgetter(1), lambda: op.attrgetter(), lambda: op.itemgetter(),
            lambda: op.methodcaller(1), lambda: op.methodcaller()]:
    try:
        bad()
    except TypeError as e:
        print("TypeError", e)
g = op.itemgetter(1)
print(g([1, 2, 3]), g("xyz"), g({1: "one"}), repr(g))
g2 = op.itemgetter(0, -1, slice(1, 3))
print(g2("hello"), repr(g2), repr(op.itemgetter("k", 2)))
print(op.itemgetter("a")({"a": 9}))
m = op.methodcaller("greet", "hi")
print(m(p), repr(m))
m2 = op.methodcaller("greet", "yo", punct="?")
print(m2(p), repr(m2))
print(op.methodcaller("upper")("abc"), op.methodcaller("split", ",", 1)("a,b,c"))
rows = [("b", 2), ("a", 3), ("c", 1)]
print(sorted(rows, key=op.itemgetter(1)), sorted(rows, key=op.itemgetter(0)))
print(max(rows, key=op.itemgetter(1)), list(map(op.itemgetter(0), rows)))
print(sorted([P("z"), P("a")], key=op.attrgetter("name"))[0].name)
try:
    op.itemgetter(5)([1])
except IndexError as e:
    print("IndexError", e)
