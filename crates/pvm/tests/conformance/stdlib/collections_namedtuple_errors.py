import collections

P = collections.namedtuple("P", "x y")
D = collections.namedtuple("D", "x y z", defaults=[9])
for call in [lambda: P(1), lambda: P(1, 2, 3), lambda: P(1, x=2), lambda: P(1, z=2),
             lambda: P(), lambda: D(), lambda: D(1), lambda: D(1, 2, 3, 4),
             lambda: collections.namedtuple("Q", "a b c")(), lambda: P(y=1),
             lambda: collections.namedtuple("One", "a")(1, 2),
             lambda: collections.namedtuple("Zero", "")(1)]:
    try:
        call()
    except TypeError as e:
        print("TypeError", e)
for args, kw in [(("P", "x class"), {}), (("P", "x _y"), {}), (("P", "x x"), {}),
                 (("P", "x 1y"), {}), (("P", "x y"), {"defaults": [1, 2, 3]}),
                 (("P", ["x", 3]), {}), (("1P", "x"), {}), (("def", "x"), {}),
                 (("P", "x-y"), {})]:
    try:
        collections.namedtuple(*args, **kw)
    except (TypeError, ValueError) as e:
        print(type(e).__name__, e)
try:
    P._make([1, 2, 3])
except TypeError as e:
    print("TypeError", e)
try:
    P(1, 2)._replace(z=3)
except ValueError as e:
    print("ValueError", e)
try:
    P(1, 2).z
except AttributeError as e:
    print("AttributeError", e)
print(collections.namedtuple("P", "x _1", rename=True)._fields)
