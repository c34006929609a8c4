class X: pass
class Y: pass
class A(X, Y): pass
class B(Y, X): pass
try:
    class C(A, B): pass
except TypeError as e: print(e)
class Z(A): pass
try:
    class D(Z, B, A): pass
except TypeError as e: print(e)
try:
    class E(X, A): pass
except TypeError as e: print(e)
