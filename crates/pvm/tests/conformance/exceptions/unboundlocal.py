x = 1
def f():
    try:
        print(x)
    except UnboundLocalError as e:
        print("UnboundLocalError:", e)
    x = 2
f()
def g():
    try:
        del y
    except NameError as e:
        print(type(e).__name__ + ":", e)
g()
try:
    raise NotImplementedError
except NotImplementedError as e:
    print(repr(e), str(e) == "")
def boom(): raise TypeError("inner")
try:
    boom()
except (ValueError, TypeError) as e:
    print("tuple catch", e)
