# exp, ln, log10, logb: generated operands (fixed LCG), several precisions, specials,
# flags after every call (I=Inexact R=Rounded U=Underflow S=Subnormal O=Overflow C=Clamped
# Z=DivisionByZero V=InvalidOperation).
from decimal import *

state = 12345


def rand(n):
    global state
    state = (state * 1103515245 + 12345) % 2147483648
    return state % n


def operand():
    k = rand(10)
    digits = str(rand(10 ** (1 + rand(12))))
    exp = rand(25) - 15 if k < 8 else rand(400) - 200
    return ('-' if rand(4) == 0 else '') + digits + 'E' + str(exp)


FLAGS = [(Inexact, 'I'), (Rounded, 'R'), (Underflow, 'U'), (Subnormal, 'S'), (Overflow, 'O'),
         (Clamped, 'C'), (DivisionByZero, 'Z'), (InvalidOperation, 'V')]


def show(ctx, fn, x):
    ctx.clear_flags()
    try:
        r = str(fn(Decimal(x), ctx))
    except DecimalException as e:
        r = type(e).__name__
    return r + ' ' + ''.join(c for s, c in FLAGS if ctx.flags[s])


funcs = [('exp', lambda d, c: d.exp(c)), ('ln', lambda d, c: d.ln(c)),
         ('log10', lambda d, c: d.log10(c)), ('logb', lambda d, c: d.logb(c))]
specials = ['0', '-0', '1', '-1', '10', '1E+5', '0.001', '1.000', 'Infinity', '-Infinity',
            'NaN', '-NaN7', 'sNaN', '2', '0.5', '1E-100', '-1E-100', '1E+100']
for prec in (1, 9, 28, 50):
    ctx = Context(prec=prec, traps=[])
    for name, fn in funcs:
        print(name, prec, [show(ctx, fn, x) for x in specials])
for prec in (5, 16, 28):
    ctx = Context(prec=prec, traps=[], rounding=ROUND_DOWN)
    for i in range(60):
        x = operand()
        print(prec, x, '|', ' | '.join(show(ctx, fn, x) for _, fn in funcs))
# Near 1, near the exponent limits, and subnormal results.
small = Context(prec=7, Emax=99, Emin=-99, traps=[])
for x in ['1.0000001', '0.9999999', '1.00000000000000000001', '230', '-230', '-235.1',
          '-240', '-1000', '228.6', '229.3', '1E+20', '-1E+20', '1E-99', '9.99E+99']:
    print(x, show(small, lambda d, c: d.exp(c), x), show(small, lambda d, c: d.ln(c), x),
          show(small, lambda d, c: d.log10(c), x))
clamped = Context(prec=5, Emax=20, Emin=-20, clamp=1, traps=[])
print([show(clamped, lambda d, c: d.exp(c), x) for x in ['40', '46', '-50', '-55', '0.1']])
# Traps: the exception class names the first trapped signal.
for x in ['-1', '0', 'sNaN', '1E+10']:
    for fn in (lambda d: d.ln(), lambda d: d.log10(), lambda d: d.exp(), lambda d: d.logb()):
        try:
            print(x, fn(Decimal(x)))
        except DecimalException as e:
            print(x, type(e).__name__, e)
with localcontext(prec=40):
    print(Decimal(2).ln(), Decimal(10).exp(), Decimal('0.5').log10(), Decimal(7).logb())
print(getcontext().flags[Inexact])
