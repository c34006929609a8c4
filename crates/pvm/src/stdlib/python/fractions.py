"""fractions for the PVM: exact rational numbers.

Covers: Fraction(numerator=0, denominator=None) from ints, Fractions, floats (exactly, via
as_integer_ratio), objects with as_integer_ratio, and strings ('3/4', ' -1.25e-2 ', '1_000');
normalisation with a positive denominator; numerator/denominator; + - * / // % divmod and
** with int/Fraction (exact), float (float result) and complex (complex result), reflected
forms; comparisons with int, Fraction and float (NaN/inf handled as CPython); hash equal to
the hash of an equal int/float (CPython's numeric hash modulo 2**61 - 1); round (half to
even, with ndigits), floor/ceil/trunc via math, int, float, bool, abs, limit_denominator,
as_integer_ratio, from_float, from_decimal; CPython's error messages.

Does not: register with the numbers ABCs (there is no numbers module in the PVM), support
format specs (as in 3.11, where Fraction.__format__ is object's), or interoperate with
Decimal beyond from_decimal. Written for the PVM from the documented behaviour; builtins
only.
"""

__all__ = ['Fraction']

_HASH_MODULUS = 2 ** 61 - 1
_HASH_INF = 314159


def _gcd(a, b):
    a, b = abs(a), abs(b)
    while b:
        a, b = b, a % b
    return a


_DIGITS = frozenset('0123456789')


def _digits(text):
    """Validate a digit run allowing single underscores between digits; returns the int or
    None."""
    if not text or text[0] == '_' or text[-1] == '_' or '__' in text:
        return None
    if not all(c in _DIGITS or c == '_' for c in text):
        return None
    return int(text.replace('_', ''))


def _parse(s):
    """Parse CPython's Fraction string syntax; returns (numerator, denominator) or None."""
    text = s.strip()
    sign = 1
    if text[:1] in ('+', '-'):
        if text[0] == '-':
            sign = -1
        text = text[1:]
    if not text:
        return None
    if '/' in text:
        num_text, _, den_text = text.partition('/')
        num, den = _digits(num_text), _digits(den_text)
        if num is None or den is None:
            return None
        return sign * num, den
    mantissa, exp = text, 0
    for marker in ('e', 'E'):
        if marker in text:
            mantissa, _, exp_text = text.partition(marker)
            exp_sign = 1
            if exp_text[:1] in ('+', '-'):
                exp_sign = -1 if exp_text[0] == '-' else 1
                exp_text = exp_text[1:]
            e = _digits(exp_text)
            if e is None:
                return None
            exp = exp_sign * e
            break
    int_text, dot, frac_text = mantissa.partition('.')
    if not int_text and not frac_text:
        return None
    if int_text:
        whole = _digits(int_text)
        if whole is None:
            return None
    else:
        whole = 0
    den = 1
    if dot and frac_text:
        frac = _digits(frac_text)
        if frac is None:
            return None
        scale = 10 ** len(frac_text.replace('_', ''))
        whole = whole * scale + frac
        den = scale
    elif dot and not int_text:
        return None
    if exp >= 0:
        whole *= 10 ** exp
    else:
        den *= 10 ** -exp
    return sign * whole, den


class Fraction:
    """A rational number numerator/denominator in lowest terms."""

    __slots__ = ('_numerator', '_denominator')

    def __new__(cls, numerator=0, denominator=None, *, _normalize=True):
        self = object.__new__(cls)
        if denominator is None:
            if type(numerator) is int:
                self._numerator = numerator
                self._denominator = 1
                return self
            if isinstance(numerator, Fraction):
                self._numerator = numerator._numerator
                self._denominator = numerator._denominator
                return self
            if isinstance(numerator, int):
                self._numerator = int(numerator)
                self._denominator = 1
                return self
            if isinstance(numerator, (float,)) or (
                    not isinstance(numerator, str) and hasattr(numerator, 'as_integer_ratio')):
                self._numerator, self._denominator = numerator.as_integer_ratio()
                return self
            if isinstance(numerator, str):
                parsed = _parse(numerator)
                if parsed is None:
                    raise ValueError(f'Invalid literal for Fraction: {numerator!r}')
                numerator, denominator = parsed
            else:
                raise TypeError("argument should be a string or a Rational instance")
        elif type(numerator) is int and type(denominator) is int:
            pass
        elif isinstance(numerator, (int, Fraction)) and isinstance(denominator, (int, Fraction)):
            if isinstance(numerator, Fraction) or isinstance(denominator, Fraction):
                n = Fraction(numerator)
                d = Fraction(denominator)
                numerator = n._numerator * d._denominator
                denominator = d._numerator * n._denominator
            else:
                numerator, denominator = int(numerator), int(denominator)
        else:
            raise TypeError("both arguments should be Rational instances")
        if denominator == 0:
            raise ZeroDivisionError(f'Fraction({numerator}, 0)')
        if _normalize:
            g = _gcd(numerator, denominator)
            if denominator < 0:
                g = -g
            numerator //= g
            denominator //= g
        self._numerator = numerator
        self._denominator = denominator
        return self

    @classmethod
    def from_float(cls, f):
        """Exact conversion of a float (or int) to a Fraction."""
        if isinstance(f, int):
            return cls(f)
        if not isinstance(f, float):
            raise TypeError(f"{cls.__name__}.from_float() only takes floats, "
                            f"not {f!r} ({type(f).__name__})")
        return cls(*f.as_integer_ratio())

    @classmethod
    def from_decimal(cls, dec):
        """Exact conversion of a Decimal (or int) to a Fraction."""
        if isinstance(dec, int):
            return cls(dec)
        if type(dec).__name__ != 'Decimal':
            raise TypeError(f"{cls.__name__}.from_decimal() only takes Decimals, "
                            f"not {dec!r} ({type(dec).__name__})")
        return cls(*dec.as_integer_ratio())

    def as_integer_ratio(self):
        """(numerator, denominator) with a positive denominator."""
        return (self._numerator, self._denominator)

    def limit_denominator(self, max_denominator=1000000):
        """The closest Fraction to self with denominator at most max_denominator."""
        if max_denominator < 1:
            raise ValueError("max_denominator should be at least 1")
        if self._denominator <= max_denominator:
            return Fraction(self)
        # Walk the continued-fraction convergents p1/q1 until the next would exceed the
        # bound, then compare the best semiconvergent with the last convergent.
        p0, q0, p1, q1 = 0, 1, 1, 0
        n, d = self._numerator, self._denominator
        while True:
            a = n // d
            q2 = q0 + a * q1
            if q2 > max_denominator:
                break
            p0, q0, p1, q1 = p1, q1, p0 + a * p1, q2
            n, d = d, n - a * d
        k = (max_denominator - q0) // q1
        if 2 * d * (q0 + k * q1) <= self._denominator:
            return Fraction(p1, q1, _normalize=False)
        return Fraction(p0 + k * p1, q0 + k * q1, _normalize=False)

    @property
    def numerator(self):
        return self._numerator

    @property
    def denominator(self):
        return self._denominator

    # The numbers.Complex members a Rational inherits in CPython.
    @property
    def real(self):
        return +self

    @property
    def imag(self):
        return 0

    def conjugate(self):
        return +self

    def __repr__(self):
        return f'{self.__class__.__name__}({self._numerator}, {self._denominator})'

    def __str__(self):
        if self._denominator == 1:
            return str(self._numerator)
        return f'{self._numerator}/{self._denominator}'

    # Arithmetic: each operator handles Fraction/int exactly, float and complex by
    # conversion, and defers to the other operand for anything else.
    def _coerce(self, other):
        if isinstance(other, Fraction):
            return other
        if isinstance(other, int):
            return Fraction(other)
        return None

    def _binop(self, other, exact, inexact):
        b = self._coerce(other)
        if b is not None:
            return exact(self, b)
        if isinstance(other, (float, complex)):
            return inexact(float(self), other)
        return NotImplemented

    def _rbinop(self, other, exact, inexact):
        b = self._coerce(other)
        if b is not None:
            return exact(b, self)
        if isinstance(other, (float, complex)):
            return inexact(other, float(self))
        return NotImplemented

    @staticmethod
    def _add(a, b):
        return Fraction(a._numerator * b._denominator + b._numerator * a._denominator,
                        a._denominator * b._denominator)

    @staticmethod
    def _sub(a, b):
        return Fraction(a._numerator * b._denominator - b._numerator * a._denominator,
                        a._denominator * b._denominator)

    @staticmethod
    def _mul(a, b):
        return Fraction(a._numerator * b._numerator, a._denominator * b._denominator)

    @staticmethod
    def _div(a, b):
        if b._numerator == 0:
            raise ZeroDivisionError(f'Fraction({a._numerator * b._denominator}, 0)')
        return Fraction(a._numerator * b._denominator, a._denominator * b._numerator)

    @staticmethod
    def _floordiv(a, b):
        return (a._numerator * b._denominator) // (a._denominator * b._numerator)

    @staticmethod
    def _mod(a, b):
        da, db = a._denominator, b._denominator
        return Fraction((a._numerator * db) % (b._numerator * da), da * db)

    @staticmethod
    def _divmod(a, b):
        da, db = a._denominator, b._denominator
        div, n_mod = divmod(a._numerator * db, da * b._numerator)
        return div, Fraction(n_mod, da * db)

    def __add__(self, other):
        return self._binop(other, Fraction._add, lambda x, y: x + y)

    def __radd__(self, other):
        return self._rbinop(other, Fraction._add, lambda x, y: x + y)

    def __sub__(self, other):
        return self._binop(other, Fraction._sub, lambda x, y: x - y)

    def __rsub__(self, other):
        return self._rbinop(other, Fraction._sub, lambda x, y: x - y)

    def __mul__(self, other):
        return self._binop(other, Fraction._mul, lambda x, y: x * y)

    def __rmul__(self, other):
        return self._rbinop(other, Fraction._mul, lambda x, y: x * y)

    def __truediv__(self, other):
        return self._binop(other, Fraction._div, lambda x, y: x / y)

    def __rtruediv__(self, other):
        return self._rbinop(other, Fraction._div, lambda x, y: x / y)

    def __floordiv__(self, other):
        return self._binop(other, Fraction._floordiv, lambda x, y: x // y)

    def __rfloordiv__(self, other):
        return self._rbinop(other, Fraction._floordiv, lambda x, y: x // y)

    def __mod__(self, other):
        return self._binop(other, Fraction._mod, lambda x, y: x % y)

    def __rmod__(self, other):
        return self._rbinop(other, Fraction._mod, lambda x, y: x % y)

    def __divmod__(self, other):
        return self._binop(other, Fraction._divmod, divmod)

    def __rdivmod__(self, other):
        return self._rbinop(other, Fraction._divmod, divmod)

    def __pow__(self, b):
        if isinstance(b, int) or (isinstance(b, Fraction) and b._denominator == 1):
            power = b if isinstance(b, int) else b._numerator
            n, d = self._numerator, self._denominator
            if power >= 0:
                return Fraction(n ** power, d ** power, _normalize=False)
            if n == 0:
                raise ZeroDivisionError(f'Fraction({d ** -power}, 0)')
            if n > 0:
                return Fraction(d ** -power, n ** -power, _normalize=False)
            return Fraction((-d) ** -power, (-n) ** -power, _normalize=False)
        if isinstance(b, Fraction):
            return float(self) ** float(b)
        if isinstance(b, (float, complex)):
            return float(self) ** b
        return NotImplemented

    def __rpow__(self, a):
        if self._denominator == 1 and self._numerator >= 0:
            return a ** self._numerator
        if isinstance(a, (int, Fraction)):
            return Fraction(a) ** self
        if self._denominator == 1:
            return a ** self._numerator
        return a ** float(self)

    def __pos__(self):
        return Fraction(self._numerator, self._denominator, _normalize=False)

    def __neg__(self):
        return Fraction(-self._numerator, self._denominator, _normalize=False)

    def __abs__(self):
        return Fraction(abs(self._numerator), self._denominator, _normalize=False)

    def __int__(self):
        return self.__trunc__()

    def __trunc__(self):
        if self._numerator < 0:
            return -(-self._numerator // self._denominator)
        return self._numerator // self._denominator

    def __floor__(self):
        return self._numerator // self._denominator

    def __ceil__(self):
        return -(-self._numerator // self._denominator)

    def __round__(self, ndigits=None):
        if ndigits is None:
            floor, remainder = divmod(self._numerator, self._denominator)
            if remainder * 2 < self._denominator:
                return floor
            if remainder * 2 > self._denominator:
                return floor + 1
            return floor if floor % 2 == 0 else floor + 1
        shift = 10 ** abs(ndigits)
        if ndigits > 0:
            return Fraction(round(self * shift), shift)
        return Fraction(round(self / shift) * shift)

    def __float__(self):
        return self._numerator / self._denominator

    def __bool__(self):
        return self._numerator != 0

    def __hash__(self):
        # CPython's numeric hash: n * inverse(d) modulo 2**61 - 1, so equal numbers of
        # different types hash alike.
        d = self._denominator % _HASH_MODULUS
        if d == 0:
            hash_ = _HASH_INF
        else:
            dinv = pow(self._denominator, _HASH_MODULUS - 2, _HASH_MODULUS)
            hash_ = hash(hash(abs(self._numerator)) * dinv)
        result = hash_ if self._numerator >= 0 else -hash_
        return -2 if result == -1 else result

    def __eq__(self, b):
        if type(b) is int:
            return self._numerator == b and self._denominator == 1
        if isinstance(b, Fraction):
            return self._numerator == b._numerator and self._denominator == b._denominator
        if isinstance(b, int):
            return self._numerator == b and self._denominator == 1
        if isinstance(b, complex) and b.imag == 0:
            b = b.real
        if isinstance(b, float):
            if b != b or b in (float('inf'), float('-inf')):
                return 0.0 == b
            return self == Fraction.from_float(b)
        return NotImplemented

    def _richcmp(self, other, op):
        if isinstance(other, (int, Fraction)):
            o = Fraction(other)
            return op(self._numerator * o._denominator, self._denominator * o._numerator)
        if isinstance(other, float):
            if other != other or other in (float('inf'), float('-inf')):
                return op(0.0, other)
            return self._richcmp(Fraction.from_float(other), op)
        return NotImplemented

    def __lt__(self, other):
        return self._richcmp(other, lambda a, b: a < b)

    def __gt__(self, other):
        return self._richcmp(other, lambda a, b: a > b)

    def __le__(self, other):
        return self._richcmp(other, lambda a, b: a <= b)

    def __ge__(self, other):
        return self._richcmp(other, lambda a, b: a >= b)

    def __reduce__(self):
        return (self.__class__, (self._numerator, self._denominator))

    def __copy__(self):
        if type(self) is Fraction:
            return self
        return self.__class__(self._numerator, self._denominator)

    def __deepcopy__(self, memo):
        if type(self) is Fraction:
            return self
        return self.__class__(self._numerator, self._denominator)
