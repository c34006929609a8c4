class A:
    __slots__ = ("__p",)
    def __init__(self): self.__p = 1
    def __helper(self): return self.__p + 1
    def go(self): return self.__helper()
a = A(); print(a.go(), a._A__p, hasattr(a, "__p"))
class E:
    def __eq__(self, o): return "eq-result"
    def __lt__(self, o): return "lt-result"
import operator
print(operator.eq(E(), 1), E() == 1, E() != 1, operator.lt(E(), 2))
print("ßtraße".capitalize(), "ßa".title())
