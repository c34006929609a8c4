import math
o = object()
try:
    o.x = 1
except AttributeError as e:
    print("AttributeError", e)
try:
    del o.x
except AttributeError as e:
    print("AttributeError", e)
math.myattr = 5
print(math.myattr)
del math.myattr
print(hasattr(math, "myattr"))
try:
    del math.nope
except AttributeError as e:
    print("AttributeError", e)
def f(): pass
f.a = 1
del f.a
print(hasattr(f, "a"))
try:
    del f.a
except AttributeError as e:
    print("AttributeError", e)
