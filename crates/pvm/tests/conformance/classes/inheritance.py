class A:
    def who(self): return "A"
    def hello(self): return "hello from " + self.who()
class B(A):
    def who(self): return "B"
class C(A):
    def who(self): return "C+" + super().who()
class D(B, C):
    def who(self): return "D>" + super().who()
print([k.__name__ for k in D.__mro__])
print(D().hello(), C().hello())
print(isinstance(D(), (C, int)), issubclass(D, A), issubclass(A, D))
try:
    class X(A, B): pass
except TypeError as e:
    print("TypeError", e)
