# format() with specs generated from every component CPython's decimal accepts
# ([[fill]align][sign][z][0][width][,][.precision][type]) and invalid ones, on many values.
from decimal import *

state = 4242


def rand(n):
    global state
    state = (state * 1103515245 + 12345) % 2147483648
    return state % n


def pick(options):
    return options[rand(len(options))]


values = ['0', '-0', '0.000', '-0.0001', '1234567.891', '-1234.5', '1E+30', '-1.5E-7', '9.995',
          '0.5', '123', 'NaN', '-sNaN', '-Infinity', 'Infinity', '1E-20', '99999.5', '0E+5',
          '-0E-3', '12345678901234567890.123456789']
for i in range(300):
    spec = ''
    if rand(10) < 3:
        spec += pick(['*', '0', 'x', ' ', '<', '='])
    if rand(10) < 4:
        spec += pick('<>=^')
    if rand(10) < 3:
        spec += pick('+- ')
    if rand(10) < 2:
        spec += 'z'
    if rand(10) < 1:
        spec += '#'
    if rand(10) < 3:
        spec += '0'
    if rand(10) < 4:
        spec += str(rand(25))
    if rand(10) < 3:
        spec += pick([',', '_'])
    if rand(10) < 5:
        spec += '.' + str(rand(12))
    if rand(10) < 7:
        spec += pick('eEfFgGn%xd')
    v = pick(values)
    with localcontext(rounding=pick([ROUND_HALF_EVEN, ROUND_DOWN, ROUND_UP, ROUND_HALF_UP])):
        try:
            print(repr(spec), v, repr(format(Decimal(v), spec)))
        except ValueError as e:
            print(repr(spec), v, 'ValueError', e)
print(f'{Decimal("1234.5678"):_>+20,.2f}|{Decimal("-0.00001"):z.3f}|{Decimal("42"):%}')
