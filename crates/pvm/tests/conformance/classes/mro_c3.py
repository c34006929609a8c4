"""C3 linearization: diamonds, __mro__ order, super() chains through cooperative __init__, MRO errors."""
class A:
    def who(self):
        return ["A"]
    def __init__(self):
        self.log = getattr(self, "log", []) + ["A"]
class B(A):
    def who(self):
        return ["B"] + super().who()
    def __init__(self):
        super().__init__()
        self.log.append("B")
class C(A):
    def who(self):
        return ["C"] + super().who()
    def __init__(self):
        super().__init__()
        self.log.append("C")
class D(B, C):
    def who(self):
        return ["D"] + super().who()
    def __init__(self):
        super().__init__()
        self.log.append("D")
print([k.__name__ for k in D.__mro__], D().who(), D().log)
class E: pass
class F(E): pass
class G(E): pass
class H(F, G): pass
class I(G, F): pass
print([k.__name__ for k in H.__mro__], [k.__name__ for k in I.__mro__])
class X: pass
class Y: pass
class Z(X, Y): pass
class W(Y, X): pass
try:
    class Bad(Z, W):
        pass
except TypeError as e:
    print(type(e).__name__, e)
try:
    class Dup(X, X):
        pass
except TypeError as e:
    print(type(e).__name__, e)
try:
    class Order(A, B):
        pass
except TypeError as e:
    print(type(e).__name__, e)
class K1: pass
class K2: pass
class K3: pass
class KA(K1, K2): pass
class KB(K2, K3): pass
class KC(KA, KB): pass
print([k.__name__ for k in KC.__mro__], KC.__bases__[1].__name__, issubclass(KC, K3))
print(super(B, D()).who(), super(C, D()).who())
