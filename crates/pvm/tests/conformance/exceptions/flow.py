def f(x):
    try:
        print("try", x)
        if x == 1: raise ValueError("one")
        if x == 2: return "ret"
    except ValueError as e:
        print("except", e)
        return "exc"
    else:
        print("else")
    finally:
        print("finally")
    return "end"
for i in range(3): print(f(i))
def g():
    try:
        return 1
    finally:
        return 2
print(g())
def h():
    for i in range(3):
        try:
            if i == 1: continue
            if i == 2: break
        finally:
            print("fin", i)
h()
