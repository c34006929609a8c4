"""bool as int, int() of subclasses, int methods through the class, comparisons and chained ops."""
print(True + True, True * 10, False - 1, True / 2, True // 1, -True, ~True, True & 1, True | 2, True ^ True, type(True + 0).__name__)
print(isinstance(True, int), issubclass(bool, int), bool(0), bool(-1), bool(2**80), int.__add__(2, 3), (7).__add__(2), (7).__mul__(3))
print((5).__eq__(5), (5).__lt__(6), (2).__add__(3), int.__bool__(0))
class Money(int):
    def __repr__(self):
        return f"Money({int(self)})"
m = Money(5)
print(m, m + 1, type(m + 1).__name__, m * 2, -m, abs(Money(-3)), m == 5, hash(m) == hash(5), str(m), int(m), type(int(m)).__name__)
print(1 < 2 < 3, 1 < 3 < 2, 1 == 1.0 == True, 3 > 2 == 2, (1 < 2) + (2 < 3), 0 < 0.5 < 1, -1 < -0.5)
print(max(3, 7, 5), min([4, -2]), max(range(5), key=lambda x: -x), sum([1, 2], 10), divmod(-7, 3), round(2.675, 2), round(3), type(round(3.7)).__name__)
x = 10
x += 5; x -= 3; x *= 2; x //= 5; x **= 3; x %= 50; x <<= 2; x >>= 1; x |= 1; x &= 0b1110111; x ^= 3
print(x)
print(int.from_bytes(b"\x07", "big").__class__.__name__, (255).__format__("x"), format(255, "08b"), round(10, -1))
