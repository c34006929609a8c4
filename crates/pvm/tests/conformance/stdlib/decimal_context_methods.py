# Every Context method (ints accepted where Decimals are), the signal hierarchy, flags vs
# traps for each signal (disabled: special result + flag; enabled: the exception class),
# module constants and context objects.
import decimal
from decimal import *

c = Context(prec=6, rounding=ROUND_HALF_UP, Emax=20, Emin=-20, traps=[])
one_arg = ['abs', 'canonical', 'copy_abs', 'copy_decimal', 'copy_negate', 'exp', 'is_canonical',
           'is_finite', 'is_infinite', 'is_nan', 'is_normal', 'is_qnan', 'is_signed',
           'is_snan', 'is_subnormal', 'is_zero', 'ln', 'log10', 'logb', 'logical_invert',
           'minus', 'next_minus', 'next_plus', 'normalize', 'number_class', 'plus', 'sqrt',
           'to_eng_string', 'to_integral', 'to_integral_exact', 'to_integral_value',
           'to_sci_string']
two_arg = ['add', 'compare', 'compare_signal', 'compare_total', 'compare_total_mag',
           'copy_sign', 'divide', 'divide_int', 'divmod', 'logical_and', 'logical_or',
           'logical_xor', 'max', 'max_mag', 'min', 'min_mag', 'multiply', 'next_toward',
           'power', 'quantize', 'remainder', 'remainder_near', 'rotate', 'same_quantum',
           'scaleb', 'shift', 'subtract']
for x in [Decimal('12.50'), Decimal('-0.000123'), Decimal('1E-25'), Decimal('-Inf'),
          Decimal('NaN'), 101]:
    out = []
    for name in one_arg:
        c.clear_flags()
        try:
            out.append(str(getattr(c, name)(x)))
        except (TypeError, DecimalException) as e:
            out.append(type(e).__name__)
    print(x, ' '.join(out))
for x, y in [(Decimal('12.5'), Decimal('3')), (Decimal('-7'), 2), (11, Decimal('101')),
             (Decimal('1E+5'), Decimal('-0.5')), (Decimal('NaN'), 1), (0, 0)]:
    out = []
    for name in two_arg:
        try:
            out.append(str(getattr(c, name)(x, y)))
        except (TypeError, DecimalException) as e:
            out.append(type(e).__name__)
    print(x, y, ' '.join(out))
print(c.fma(2, 3, 4), c.fma(Decimal('1.5'), 2, Decimal('-3')), c.power(2, 10, 1000), c.radix())
print(c.create_decimal('3.14159265'), c.create_decimal(10 ** 8), c.create_decimal_from_float(0.1),
      c.create_decimal(), c.Etiny(), c.Etop(), c.capitals, c.clamp)
print(repr(c.create_decimal('-sNaN')), repr(c.create_decimal('NaN1234567')), c.flags[InvalidOperation])
for bad in [lambda: c.add(1.5, 2), lambda: c.add(Decimal(1), '2'), lambda: c.canonical(1),
            lambda: c.exp('1'), lambda: c.power(2, 0.5), lambda: Context(prec=0),
            lambda: Context(Emax=-1), lambda: Context(Emin=1), lambda: Context(capitals=2),
            lambda: Context(clamp=-1), lambda: setattr(c, 'rounding', 'UP'),
            lambda: setattr(c, 'precision', 5)]:
    try:
        print(bad())
    except Exception as e:
        print(type(e).__name__, e)
# Signals: hierarchy and trapping.
for s in [Clamped, InvalidOperation, DivisionByZero, Inexact, Rounded, Subnormal, Overflow,
          Underflow, FloatOperation, ConversionSyntax, DivisionImpossible, DivisionUndefined,
          InvalidContext]:
    print(s.__name__, [b.__name__ for b in s.__mro__[1:]])
cases = [('InvalidOperation', lambda: Decimal('Inf') - Decimal('Inf')),
         ('DivisionByZero', lambda: Decimal(1) / 0),
         ('DivisionUndefined', lambda: Decimal(0) / 0),
         ('DivisionImpossible', lambda: Decimal('1E+30') // 3),
         ('Overflow', lambda: Decimal('9E+20') * 10),
         ('Underflow', lambda: Decimal('1E-20') / 3),
         ('Subnormal', lambda: Decimal('1E-21') + 0),
         ('Inexact', lambda: Decimal(1) / 3),
         ('Rounded', lambda: Decimal('1.0000000') + 0),
         ('Clamped', lambda: Decimal('0E+30') + 0),
         ('ConversionSyntax', lambda: Decimal('1.2.3')),
         ('FloatOperation', lambda: Decimal(1.5) < 2.5)]
for name, fn in cases:
    for trap in [None] + [s for s in [InvalidOperation, DivisionByZero, Overflow, Underflow,
                                      Subnormal, Inexact, Rounded, Clamped, FloatOperation]]:
        ctx = Context(prec=6, Emax=20, Emin=-20, traps=[] if trap is None else [trap])
        setcontext(ctx)
        try:
            r = str(fn())
        except DecimalException as e:
            r = type(e).__name__ + str(e)
        flags = ''.join(s.__name__[:3] for s in ctx.flags if ctx.flags[s])
        if trap is None or not r.startswith('Decimal') and trap.__name__ in r:
            print(name, trap and trap.__name__, r.replace("<class 'decimal.", '').replace("'>", ''), flags)
setcontext(DefaultContext)
print(getcontext())
print(DefaultContext, BasicContext, ExtendedContext, sep='\n')
print(MAX_EMAX, MIN_EMIN, ROUND_05UP, ROUND_HALF_EVEN, HAVE_THREADS, HAVE_CONTEXTVAR)
names = ['BasicContext', 'Clamped', 'Context', 'ConversionSyntax', 'Decimal', 'DecimalException',
         'DecimalTuple', 'DefaultContext', 'DivisionByZero', 'DivisionImpossible',
         'DivisionUndefined', 'ExtendedContext', 'FloatOperation', 'HAVE_CONTEXTVAR',
         'HAVE_THREADS', 'Inexact', 'InvalidContext', 'InvalidOperation', 'MAX_EMAX', 'MAX_PREC',
         'MIN_EMIN', 'MIN_ETINY', 'Overflow', 'ROUND_05UP', 'ROUND_CEILING', 'ROUND_DOWN',
         'ROUND_FLOOR', 'ROUND_HALF_DOWN', 'ROUND_HALF_EVEN', 'ROUND_HALF_UP', 'ROUND_UP',
         'Rounded', 'Subnormal', 'Underflow', 'getcontext', 'localcontext', 'setcontext',
         '__all__']
print([n for n in names if not hasattr(decimal, n)])
with localcontext(Emax=50, rounding=ROUND_DOWN, traps=[Inexact]) as lc:
    print(lc.Emax, lc.rounding, lc.traps[Inexact], getcontext() is lc)
    try:
        Decimal(1) / 3
    except Inexact as e:
        print('trapped', e)
print(getcontext().Emax)
try:
    with localcontext(prec=3, foo=1):
        pass
except TypeError as e:
    print(type(e).__name__, e)
c2 = c.copy()
c2.prec = 2
c2.traps[Overflow] = True
print(c.prec, c.traps[Overflow], c2.prec, c2.traps[Overflow], repr(c2))
c2.clear_traps()
print(c2)
