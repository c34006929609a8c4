x = [1, 2, 3]
del x[0]; print(x)
d = {"a": 1, "b": 2}; del d["a"]; print(d)
y = 5; del y
try: print(y)
except NameError as e: print("NameError", e)
assert len(x) == 2, "length"
try:
    assert x == [], f"x is {x}"
except AssertionError as e:
    print("AssertionError", e)
assert False, "final"
