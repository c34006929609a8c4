# The remaining operations of the specification on generated operands (fixed LCG) and
# specials: compare_signal/total/total_mag, fma, max/min(_mag), next_*, number_class,
# remainder_near, rotate, shift, scaleb, same_quantum, logical_*, to_integral_*, plus the
# Python protocol (round, floor, ceil, trunc, hash, as_integer_ratio, from_float).
import math
from decimal import *

state = 777


def rand(n):
    global state
    state = (state * 1103515245 + 12345) % 2147483648
    return state % n


def operand():
    k = rand(20)
    if k == 0:
        return ['NaN', '-sNaN2', 'Infinity', '-Infinity', '0', '-0E-3', 'NaN5'][rand(7)]
    return ('-' if rand(3) == 0 else '') + str(rand(10 ** (1 + rand(10)))) + 'E' + str(rand(30) - 20)


FLAGS = [(Inexact, 'I'), (Rounded, 'R'), (Underflow, 'U'), (Subnormal, 'S'), (Overflow, 'O'),
         (Clamped, 'C'), (DivisionByZero, 'Z'), (InvalidOperation, 'V')]


def run(ctx, fn, *args):
    ctx.clear_flags()
    try:
        r = str(fn(*[Decimal(a) for a in args]))
    except DecimalException as e:
        r = type(e).__name__
    return r + ' ' + ''.join(c for s, c in FLAGS if ctx.flags[s])


ROUNDINGS = [ROUND_DOWN, ROUND_HALF_UP, ROUND_HALF_EVEN, ROUND_CEILING, ROUND_FLOOR, ROUND_UP,
             ROUND_HALF_DOWN, ROUND_05UP]
ctx = Context(prec=7, Emax=30, Emin=-30, traps=[])
binary = ['compare_signal', 'compare_total', 'compare_total_mag', 'max', 'min', 'max_mag',
          'min_mag', 'next_toward', 'remainder_near', 'same_quantum']
for i in range(40):
    a, b = operand(), operand()
    ctx.rounding = ROUNDINGS[i % 8]
    print(a, b, ' | '.join(run(ctx, getattr(ctx, name), a, b) for name in binary))
unary = ['next_plus', 'next_minus', 'number_class', 'to_integral_exact', 'to_integral_value',
         'normalize', 'logb', 'abs', 'minus', 'plus']
for i in range(40):
    a = operand()
    ctx.rounding = ROUNDINGS[i % 8]
    print(a, ' | '.join(run(ctx, getattr(ctx, name), a) for name in unary))
for i in range(30):
    a, b, c = operand(), operand(), operand()
    print('fma', a, b, c, run(ctx, ctx.fma, a, b, c))
for i in range(30):
    a = operand()
    n = str(rand(17) - 8)
    print(a, n, run(ctx, ctx.rotate, a, n), run(ctx, ctx.shift, a, n),
          run(ctx, ctx.scaleb, a, n))
for a, n in [('123', '1.0'), ('123', '8'), ('123', '-8'), ('123', 'Inf'), ('1', '1E+1'),
             ('5', '999'), ('5', '-999'), ('sNaN', '1'), ('1', 'NaN')]:
    print(a, n, run(ctx, ctx.rotate, a, n), run(ctx, ctx.shift, a, n),
          run(ctx, ctx.scaleb, a, n))
for a, b in [('1101', '1011'), ('0', '1'), ('11111111', '1'), ('2', '1'), ('-1', '1'),
             ('1.0', '1'), ('1E+1', '1'), ('111111111111', '101')]:
    print(a, b, run(ctx, ctx.logical_and, a, b), run(ctx, ctx.logical_or, a, b),
          run(ctx, ctx.logical_xor, a, b), run(ctx, ctx.logical_invert, a))
for a, b in [('1E+30', '3'), ('9999999', '0.1'), ('10', '3'), ('-10', '3'), ('10', '-6'),
             ('10', '4'), ('7', '0'), ('0', '0'), ('Inf', '1'), ('1', 'Inf')]:
    print('remainder_near', a, b, run(ctx, ctx.remainder_near, a, b))
print([ctx.number_class(Decimal(x)) for x in ['1E-31', '-1E-35', '0', '-0', 'Inf', 'sNaN']])
values = ['2.5', '-2.5', '3.5', '0.5', '-0.5', '1.2345', '-1.2345', '123.456', '1E+3', '-7',
          '0.001', '9.999']
for v in values:
    d = Decimal(v)
    print(v, round(d), round(d, 2), round(d, -1), math.floor(d), math.ceil(d), math.trunc(d),
          int(d), hash(d), d.as_integer_ratio(), d.adjusted(), d.as_tuple(),
          d.conjugate(), d.real, d.imag, d.radix(), d.canonical(), d.is_canonical())
for f in [0.1, -2.5, 1e300, 5e-324, float('inf'), float('-inf'), 3, -0.0]:
    print(repr(Decimal.from_float(f)), hash(Decimal.from_float(f)) == hash(f))
for v in [1, 2.5, -0.0, 10 ** 20]:
    print(hash(Decimal(v)) == hash(v), Decimal(v) == v)
for bad in [lambda: round(Decimal('NaN')), lambda: round(Decimal('Inf')),
            lambda: math.floor(Decimal('-Inf')), lambda: hash(Decimal('sNaN')),
            lambda: Decimal('NaN').as_integer_ratio(), lambda: round(Decimal(1), 1.5),
            lambda: Decimal(1).fma(2, 1.5), lambda: Decimal(1).compare_total(0.5)]:
    try:
        print(bad())
    except Exception as e:
        print(type(e).__name__, e)
for bad in [lambda: ctx.flags[DivisionImpossible], lambda: ctx.traps.__setitem__('x', 1),
            lambda: ctx.flags.__delitem__(Inexact),
            lambda: setattr(ctx, 'traps', {Inexact: True})]:
    try:
        print(bad())
    except Exception as e:
        print(type(e).__name__, e)
print(ctx.flags == dict(ctx.flags), len(ctx.traps), repr(ctx.traps))
