"""format() builtin and __format__: defaults, types without specs, user classes, spec grammar."""
print(format(3), format(3.5), format("s"), format(None), format([1]), format(True), format(2**80, ","))
print(format(1234.5678, ".2f"), format(1234.5678, ",.1f"), format(0.5, "%"), format(255, "#010x"), format(-3, "05"))
print(format(True, "d"), format(True, ">5"), format(1.0, ""), format(1e20, ""), format(1e16, "n") if False else "skip-n")
print(format("abc", "^7"), format("abc", "x<7"), format("abc", ".2"), format(12, "c"), format(0x1F600, "c"))
print(format(3.0, "g"), format(3.0, ".3"), format(0.00001, ""), format(0.0001, ".3"), format(1/3, ".30"), format(-0.0, "+"))
class Temp:
    def __init__(self, c):
        self.c = c
    def __format__(self, spec):
        if spec.endswith("F"):
            return format(self.c * 9 / 5 + 32, spec[:-1] + "f") + "F"
        return format(self.c, spec) + "C"
t = Temp(21.5)
print(format(t, ".1F"), format(t, ".0f"), f"{t:.2F}", "{:>8.1F}".format(t))
class NoFormat:
    pass
print(format(NoFormat(), "") == str(NoFormat()))
def attempt(v, spec):
    try:
        print(repr(format(v, spec)))
    except (ValueError, TypeError) as e:
        print(repr(spec), type(e).__name__, e)
attempt(NoFormat(), "x")
attempt(1, "s")
attempt("s", "d")
attempt(1.5, "x")
attempt(1, ".2d")
attempt(1, "==")
attempt(3, "<>")
attempt("x", "+")
attempt(1, ",_")
attempt(1.5, "y")
attempt(2, "=^10,.3%")
class BadFormat:
    def __format__(self, spec):
        return 5
attempt(BadFormat(), "")
