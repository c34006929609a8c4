"""classmethod and staticmethod: binding through instances and subclasses, alternative constructors."""
class Date:
    count = 0
    def __init__(self, y, m, d):
        self.y, self.m, self.d = y, m, d
        type(self).count += 1
    @classmethod
    def from_string(cls, s):
        return cls(*map(int, s.split("-")))
    @staticmethod
    def is_leap(y):
        return y % 4 == 0 and (y % 100 != 0 or y % 400 == 0)
    @classmethod
    def kind(cls):
        return cls.__name__
    def __repr__(self):
        return f"{type(self).__name__}({self.y}, {self.m}, {self.d})"
class MyDate(Date):
    pass
print(Date.from_string("2024-02-29"), MyDate.from_string("2023-1-2"), MyDate(1, 2, 3).from_string("9-9-9"))
print(Date.is_leap(2000), Date.is_leap(1900), Date(1, 1, 1).is_leap(2024), MyDate.kind(), MyDate(1, 1, 1).kind())
print(Date.count, MyDate.count, type(Date.__dict__["is_leap"]).__name__, type(Date.__dict__["kind"]).__name__)
sm = staticmethod(lambda x: x * 2)
cm = classmethod(lambda cls, x: (cls.__name__, x))
class Late:
    double = sm
    info = cm
print(Late.double(4), Late().double(5), Late.info(1), Late().info(2))
print(Date.is_leap.__name__, Date.kind.__self__ is Date, MyDate.kind.__self__ is MyDate, Date.from_string.__func__ is MyDate.from_string.__func__)
try:
    Date.is_leap()
except TypeError as e:
    print(type(e).__name__, e)
try:
    Date.kind(1)
except TypeError as e:
    print(type(e).__name__, e)
