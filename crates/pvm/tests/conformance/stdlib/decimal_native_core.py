# The operations decimal's native core takes (construction from str/int/Decimal, + - * / // %,
# comparisons, hash, str/repr, quantize) at their edges: literal forms, zeros and signs, ties
# under every rounding mode, exponent limits, conditions and traps, subclasses, ints on either
# side, and the cases handed to the Python path (specials, floats, explicit contexts).
from decimal import *

FLAGS = [(Inexact, 'I'), (Rounded, 'R'), (Underflow, 'U'), (Subnormal, 'S'), (Overflow, 'O'),
         (Clamped, 'C'), (DivisionByZero, 'Z'), (InvalidOperation, 'V')]


def flags(ctx=None):
    ctx = getcontext() if ctx is None else ctx
    out = ''.join(c for s, c in FLAGS if ctx.flags[s])
    ctx.clear_flags()
    return out


def show(f):
    try:
        r = f()
        return repr(r) + ' ' + flags()
    except Exception as e:
        flags()
        return type(e).__name__ + ': ' + str(e)


print('-- construction')
for s in ['0', '-0', '+0.000', '00012.3400', '.5', '5.', '-.0', '1e5', '1E+5', '1.5e-7',
          '-12.345E-10', '123456789012345678901234567890123456789', '0.0000001', '1e-6',
          '1e999999999999999999', '1e-999999999999999999', '1e9999999999999999999',
          '1_000', ' 7 ', 'abc', '1e', 'e5', '.', '+', '1.2.3', '1e+-5', 'NaN', '-sNaN12',
          'Infinity', '-inf', '0e-1000', '-0E+3']:
    print(repr(s), show(lambda: Decimal(s)))
for v in [0, -1, 7, 2 ** 63, -2 ** 64 - 1, 10 ** 40, True, False]:
    print(repr(v), show(lambda: Decimal(v)))
print(show(lambda: Decimal(Decimal('-1.50'))), show(lambda: Decimal()))
print(show(lambda: Decimal('1.1', Context(prec=2))))


class Money(Decimal):
    pass


m = Money('2.50')
print(type(m).__name__, repr(m), str(m), type(m + 1).__name__, type(1 - m).__name__,
      type(m.quantize(Decimal('0.1'))).__name__, type(Money(m)).__name__, m == Decimal('2.5'))

flags()
print('-- arithmetic with ints and zeros')
a = Decimal('12.50')
for b in [3, -3, 0, 10 ** 30, Decimal('-0.00'), Decimal('0E+10')]:
    print(repr(b), show(lambda: a + b), show(lambda: b + a), show(lambda: a - b),
          show(lambda: b - a), show(lambda: a * b), show(lambda: b * a))
    print('  ', show(lambda: a / b), show(lambda: b / a), show(lambda: a // b),
          show(lambda: b // a), show(lambda: a % b), show(lambda: b % a))
print(show(lambda: Decimal('-0') + Decimal('0')), show(lambda: Decimal('-0') - Decimal('0')),
      show(lambda: Decimal('-0') + Decimal('-0')), show(lambda: Decimal('1') - Decimal('1')))
with localcontext() as c:
    c.rounding = ROUND_FLOOR
    print(show(lambda: Decimal('1') - Decimal('1')), show(lambda: Decimal('-0') + 0),
          show(lambda: Decimal('0.00') - Decimal('0')))
print(show(lambda: Decimal('1E+30') + Decimal('1E-30')),
      show(lambda: Decimal('1E+30') - Decimal('1E-30')),
      show(lambda: Decimal('9' * 28) + 1), show(lambda: Decimal('-' + '9' * 28) - Decimal('0.5')),
      show(lambda: Decimal('0.' + '9' * 30) + 0))
print(show(lambda: Decimal(1) / 3), show(lambda: Decimal(2) / 3), show(lambda: Decimal(-1) / 7),
      show(lambda: Decimal('1.00') / 4), show(lambda: Decimal(100) / Decimal('0.1')),
      show(lambda: Decimal('1E+5') / 100), show(lambda: Decimal(0) / 5),
      show(lambda: Decimal('0.000') / Decimal('1E+3')))
print(show(lambda: Decimal(-7) // 2), show(lambda: Decimal(-7) % 2), show(lambda: Decimal(7) % -2),
      show(lambda: Decimal('7.5') // Decimal('0.2')), show(lambda: Decimal('7.5') % Decimal('0.2')),
      show(lambda: Decimal('1E+40') // 3), show(lambda: Decimal('1E+40') % 3),
      show(lambda: Decimal('1E-40') // 3), show(lambda: Decimal('1E-40') % 3))
print(show(lambda: Decimal(1) / 0), show(lambda: Decimal(0) / 0), show(lambda: Decimal(1) // 0),
      show(lambda: Decimal(1) % 0), show(lambda: Decimal(0) % 0), show(lambda: Decimal(-1) / 0))
print(show(lambda: Decimal('9E+999999') * 10), show(lambda: Decimal('1E-999999') / 10 ** 30),
      show(lambda: Decimal('1E-999999') * Decimal('1E-30')),
      show(lambda: Decimal('-9E+999999') * 10))

print('-- traps off')
with localcontext() as c:
    c.traps[DivisionByZero] = False
    c.traps[InvalidOperation] = False
    c.traps[Inexact] = False
    print(show(lambda: Decimal(1) / 0), show(lambda: Decimal(-1) // 0), show(lambda: Decimal(1) % 0),
          show(lambda: Decimal(0) / 0), show(lambda: Decimal('1E+40') // 3))
    c.traps[Inexact] = True
    print(show(lambda: Decimal(1) / 3), show(lambda: Decimal(1) / 4))
    c.traps[Rounded] = True
    print(show(lambda: Decimal('1.00') / 4), show(lambda: Decimal('12345678901234567890123456789') + 0))

print('-- other precisions and explicit contexts')
c5 = Context(prec=5, rounding=ROUND_HALF_UP, Emax=10, Emin=-10, traps=[])
for x, y in [('1.23456', '1'), ('99999', '1'), ('1E+10', '9'), ('1E-14', '1E-1'),
             ('0.000012345', '1'), ('-2.5', '0'), ('5E-15', '0.1')]:
    print(x, y, c5.add(Decimal(x), Decimal(y)), c5.multiply(Decimal(x), Decimal(y)),
          c5.divide(Decimal(x), 3), c5.divide_int(Decimal(x), Decimal(y)),
          c5.remainder(Decimal(x), 7), c5.subtract(3, Decimal(y)), flags(c5))
cc = Context(prec=6, clamp=1, Emax=10, Emin=-10, traps=[])
print(cc.add(Decimal('1E+10'), 0), cc.multiply(Decimal('12'), Decimal('1E+9')), flags(cc))
cap = Context(capitals=0)
with localcontext(cap):
    print(str(Decimal('1E+10')), repr(Decimal('-1.5E-10')), cap.to_sci_string(Decimal('1E+10')))
print(repr(Decimal('1E+10')))

print('-- quantize ties under every rounding mode')
ROUNDINGS = [ROUND_DOWN, ROUND_HALF_UP, ROUND_HALF_EVEN, ROUND_CEILING, ROUND_FLOOR, ROUND_UP,
             ROUND_HALF_DOWN, ROUND_05UP]
for s, q in [('2.5', '1'), ('3.5', '1'), ('-2.5', '1'), ('2.51', '0.1'), ('-2.45', '0.1'),
             ('0.5', '1'), ('-0.5', '1'), ('5.05', '0.1'), ('4.05', '0.1'), ('1.005', '0.01'),
             ('0.004', '0.01'), ('-0.005', '0.01'), ('9.995', '0.01'), ('99.5', '1'),
             ('0.0005', '1E+2'), ('-1.25', '0.1'), ('1.35', '0.1'), ('2.65', '0.1')]:
    d = Decimal(s)
    print(s, q, ' '.join(str(d.quantize(Decimal(q), r)) for r in ROUNDINGS),
          ' '.join(str(d.quantize(Decimal(q), rounding=r)) for r in ROUNDINGS), flags())
print(show(lambda: Decimal('123.456').quantize(Decimal('1E+1'))),
      show(lambda: Decimal('123.456').quantize(Decimal('1E-30'))),
      show(lambda: Decimal('123.456').quantize(Decimal('1E-25'))),
      show(lambda: Decimal('0').quantize(Decimal('1E-5'))),
      show(lambda: Decimal('-0').quantize(Decimal('1E+5'))),
      show(lambda: Decimal('1E+999999').quantize(Decimal(1))),
      show(lambda: Decimal(5).quantize(Decimal('1E+1000000'))),
      show(lambda: Decimal(5).quantize(Decimal('1E-1000030'))),
      show(lambda: Decimal('1.5').quantize(2)),
      show(lambda: Decimal('1.5').quantize(Decimal('NaN'))),
      show(lambda: Decimal('1.5').quantize(Decimal(1), 'ROUND_SIDEWAYS')),
      show(lambda: Decimal('1.5').quantize(1.0)), show(lambda: Decimal('1.5').quantize(1.0, 'X')))
print(show(lambda: Decimal('1.5').quantize(Decimal(1), context=c5)),
      show(lambda: Decimal('1.23456789').quantize(Decimal('1E-8'), context=c5)), flags(c5))

print('-- comparisons')
vals = [Decimal('1.0'), Decimal('1'), Decimal('-1'), Decimal('0'), Decimal('-0.00'),
        Decimal('1E+2'), Decimal('99.99'), Decimal('100.00'), Decimal('1E-30'), 1, 100, 0]
for x in vals[:9]:
    print(repr(x), ''.join('=' if x == y else '<' if x < y else '>' if x > y else '?'
                           for y in vals),
          [x <= y for y in vals[-3:]], [x >= y for y in vals[-3:]], [y != x for y in vals[-3:]])
print(Decimal('1.5') == 1.5, Decimal('0.1') == 0.1, Decimal(1) < 1.5, flags())
print(Decimal('NaN') == 1, Decimal('NaN') != Decimal('NaN'), show(lambda: Decimal('NaN') < 1),
      Decimal('Infinity') > 10 ** 30, Decimal('-Infinity') < Decimal('-1E+999999'))
print(Decimal(1) == 'a', Decimal(1) != None, Decimal(1).__lt__('a'),
      sorted([Decimal('2.0'), 1, Decimal('-3'), Decimal('1.5'), 0]))

print('-- hash')
for s in ['0', '-0', '1', '-1', '1.0', '1.5', '-1.5', '0.1', '1E+30', '1E-30', '123.456',
          '-2', '12345678901234567890.123', '1E+999999', '5E-999999', 'Infinity', '-Infinity']:
    print(s, hash(Decimal(s)))
print(hash(Decimal(1)) == hash(1), hash(Decimal('0.5')) == hash(0.5),
      hash(Decimal(2 ** 70)) == hash(2 ** 70), hash(Decimal('-1')) == hash(-1),
      len({Decimal('1.0'), Decimal(1), 1, 1.0, Decimal('1.00')}))
print(show(lambda: hash(Decimal('sNaN'))), hash(Decimal('NaN')) == hash(Decimal('NaN')) or True)

print('-- str and repr')
for s in ['0', '0.00', '0E+2', '-0E-8', '1E+2', '123E-2', '123E-8', '123E-9', '-5E-7', '1E-6',
          '12345E+3', '1.000000', '-1234567890.0987654321', '4E+999999', '1E-999999']:
    d = Decimal(s)
    print(s, str(d), repr(d), d.to_eng_string(), f'{d}', str(-d), str(+d))

print('-- ** with integral exponents')
for x in ['2', '-2', '1.1', '-1.5', '0', '-0', '1', '1.000', '-1.00', '0.5', '10', '1E+5', '9.99',
          '123456789', '1E-5', '0.0625']:
    for y in [0, 1, 2, 3, -1, -2, 7, 28, 29, 100, -100, 12345, Decimal('2.0'), Decimal('-3'),
              Decimal('0E+3'), Decimal('5E+1')]:
        print(x, y, show(lambda: Decimal(x) ** y))
print(show(lambda: Decimal(10) ** 1000000), show(lambda: Decimal(10) ** -1000000),
      show(lambda: Decimal('1.0000001') ** 10 ** 15), show(lambda: Decimal(2) ** (2 ** 62)),
      show(lambda: Decimal(2) ** (2 ** 80)), show(lambda: Decimal(2) ** Decimal('1E+30')),
      show(lambda: Decimal(2) ** Decimal('0.5')), show(lambda: Decimal(-2) ** Decimal('0.5')),
      show(lambda: Decimal(0) ** 0), show(lambda: Decimal(0) ** -1), show(lambda: pow(Decimal(3), 4, 5)),
      show(lambda: 2 ** Decimal(3)), show(lambda: Decimal('NaN') ** 2), show(lambda: Decimal('Inf') ** -2))
with localcontext() as c:
    c.prec = 5
    c.rounding = ROUND_DOWN
    print(show(lambda: Decimal(3) ** 20), show(lambda: Decimal('1.5') ** -7),
          show(lambda: Decimal('1.00') ** 5), show(lambda: Decimal('-1.0') ** 9))
    c.Emax = 10
    c.Emin = -10
    c.traps[Overflow] = False
    print(show(lambda: Decimal(10) ** 11), show(lambda: Decimal(10) ** -12),
          show(lambda: Decimal('0.1') ** 15), show(lambda: Decimal(-10) ** 11))

print('-- exponent range of conversions')
for s in ['1e-1999999999999999997', '1e-1999999999999999998', '12e999999999999999998',
          '12e999999999999999999', '0e1000000000000000000', '0e-9999999999999999999999',
          '1.5e-1999999999999999997', '15e-1999999999999999998', '-0.0e999999999999999999']:
    print(s, show(lambda: Decimal(s)))
with localcontext() as c:
    c.traps[InvalidOperation] = False
    print(show(lambda: Decimal('1e1000000000000000000')), show(lambda: Decimal('1e-3000000000000000000')))
