"""f-strings: nested format specs, conversions !r !s !a, the = specifier, expressions and escapes."""
name, width, prec, value = "pvm", 10, 3, 3.14159265
print(f"{name!r} {name!s} {name!a} {'é'!a} {name:>{width}} {value:.{prec}f} {value:{width}.{prec}}")
print(f"{value=}", f"{name = }", f"{value=:.2f}", f"{1 + 2=}", f"{name!r:^12}", f"{[1, 2]=}")
items = {"a": 1}
print(f"{items['a']}", f"{'nested {braces}'}", f"{{literal}}", f"{{{name}}}", f"{3 if value > 3 else 4}")
print(f"{'x':*^9}", f"{42:#x}", f"{42:#o}", f"{42:#b}", f"{-42:+}", f"{42: }", f"{1234567:,}", f"{1234567:_}")
print(f"{0.25:%}", f"{0.25:.0%}", f"{12.5:e}", f"{12.5:E}", f"{1e-7:g}", f"{123456789:g}", f"{12:08.3f}", f"{-12:08}")
print(f"{'left':<8}|", f"{'right':>8}|", f"{'mid':^8}|", f"{7:=+6}|", f"{'ab':.1}|", f"{3.0:g}|", f"{3.0:#g}|")
class P:
    def __format__(self, spec):
        return f"P<{spec}>"
    def __repr__(self):
        return "P()"
    def __str__(self):
        return "p-str"
print(f"{P()}", f"{P():xyz}", f"{P()!r}", f"{P()!s:>8}", f"{P()!r:>8}")
lines = [f"{i:>2}: {'#' * i}" for i in range(1, 4)]
print("\n".join(lines))
print(f"{'multi'}" f"{'part'}" "plain", f"tab\there", rf"raw\n{name}", f"{name}" * 2)
def attempt(fn):
    try:
        print(fn())
    except (ValueError, TypeError) as e:
        print(type(e).__name__, e)
attempt(lambda: f"{'s':d}")
attempt(lambda: f"{1.5:d}")
attempt(lambda: f"{5:s}")
attempt(lambda: f"{[]:>5}")
attempt(lambda: f"{'x':=5}")
attempt(lambda: f"{1:,x}")
