# decimal's native core reads a context's fields at the positions Context.__init__ gives them,
# recognising each key by the string last seen there: contexts whose fields change, move or
# are spelled by other strings must read exactly as CPython's do.
from decimal import Decimal, Context, getcontext, setcontext, localcontext, ROUND_DOWN, ROUND_UP, Inexact

x = Decimal("2") / Decimal("3")
print(x)
c = getcontext()
c.prec = 5
print(Decimal("2") / Decimal("3"), Decimal("1.23456789") * 1)
c.rounding = ROUND_DOWN
print(Decimal("2") / Decimal("3"), Decimal("-2") / Decimal("3"))
c.rounding = ROUND_UP
print(Decimal("2") / Decimal("3"))

# Many contexts alternated: each is read by its own fields.
ctxs = [Context(prec=p, rounding=r) for p in (3, 7, 12) for r in (ROUND_DOWN, ROUND_UP)]
for k in range(3):
    for ctx in ctxs:
        setcontext(ctx)
        print(ctx.prec, ctx.rounding, Decimal(1) / Decimal(7), Decimal("9.87654321") + 0)

# Fields set again and again on one context (CPython refuses deleting them, so each stays at
# its place in the dict).
d = Context(prec=4)
setcontext(d)
for p in (4, 9, 2, 28):
    d.prec = p
    d.Emax = p + 5
    print(Decimal(1) / Decimal(3), d.flags[Inexact])
try:
    print(Decimal("1e40") * 10)
except Exception as e:
    print(type(e).__name__)

# Field names built at run time (other string objects than the code's names).
e = Context()
setattr(e, "pr" + "ec", 3)
setattr(e, "".join(["round", "ing"]), ROUND_DOWN)
setcontext(e)
print(Decimal(2) / Decimal(3), Decimal("5.5555") + 0)

# A Context subclass and an explicit context argument.
class MyContext(Context):
    pass

m = MyContext(prec=3)
print(m.divide(Decimal(1), Decimal(3)), Decimal("1.555").quantize(Decimal("0.01"), context=m))
with localcontext() as lc:
    lc.prec = 8
    print(Decimal(1) / Decimal(9))
print(Decimal(1) / Decimal(9))
