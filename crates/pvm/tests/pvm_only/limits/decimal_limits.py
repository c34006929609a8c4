# decimal's PVM limits: MAX_PREC is 250 (CPython: 999999999999999999) so that every
# intermediate stays well below the 4096-bit int cap; a coefficient longer than the cap is
# the int cap's OverflowError; everything up to MAX_PREC digits works.
from decimal import *

print(MAX_PREC, MIN_ETINY, MAX_EMAX, MIN_EMIN)
for bad in [lambda: Context(prec=MAX_PREC + 1), lambda: localcontext(prec=10 ** 6),
            lambda: setattr(getcontext(), 'prec', 251), lambda: Decimal('9' * 1300),
            lambda: Decimal('1' + '0' * 1300 + 'E-5')]:
    try:
        bad()
        print('ok')
    except (ValueError, OverflowError) as e:
        print(type(e).__name__, e)
print(Decimal('0' * 5000 + '12.5'), Decimal('1' * 1200).adjusted())
with localcontext(prec=MAX_PREC, Emax=MAX_EMAX, Emin=MIN_EMIN) as c:
    near1 = Decimal('1.' + '0' * 248 + '1')
    big = Decimal('7' * 250 + 'E-3')
    results = [near1.ln(), near1.log10(), Decimal('0.' + '9' * 250).ln(), big.ln(),
               Decimal('-2302585092994045684').exp(), Decimal('1E-999999999999999999').ln(),
               big ** Decimal('-2.' + '5' * 249), big ** -987654321, big.sqrt(), big * big,
               big / Decimal('3' * 250), Decimal(2).exp()]
    print([len(str(r)) for r in results], c.flags[Inexact])
    print(str(results[0])[:40], str(results[-1])[-20:])
