# A suspended generator that is dropped is not closed: no finalizers (LIMITATIONS 13).
def g():
    try:
        yield 1
    finally:
        print("finally ran")


x = g()
next(x)
del x
print("end")
