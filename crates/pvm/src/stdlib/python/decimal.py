"""decimal for the PVM: decimal floating point with contexts (General Decimal Arithmetic).

Covers: Decimal from int, str (incl. underscores, whitespace, NaN/sNaN/Infinity), float
(exact, sets FloatOperation), tuple and Decimal; str/repr/to_eng_string in CPython's
notation; + - * / // % divmod, ** with integral exponents, unary - + abs, all correctly
rounded to the context (prec, rounding, Emin, Emax, clamp) with CPython's signals; the
eight rounding modes (ROUND_HALF_EVEN by default); comparisons with Decimal, int, float and
Fraction (NaN ordering signals InvalidOperation); hash equal to equal ints/floats; quantize,
sqrt, normalize, to_integral_value/to_integral_exact, compare, max, min, copy_abs,
copy_negate, copy_sign, adjusted, as_tuple (DecimalTuple), as_integer_ratio, is_* predicates,
int/float/round/math.floor/ceil/trunc; format() with fill/align/sign/zero/width/','/
precision and types e E f F g G n %; Context (validation messages, copy, clear_flags,
create_decimal, Etiny/Etop, repr), getcontext/setcontext/localcontext (with keyword
arguments), DefaultContext/BasicContext/ExtendedContext; the signal classes
(InvalidOperation, DivisionByZero, Overflow, ...) raised as CPython's C implementation does:
the exception class of the first trapped signal, with the list of trapped conditions as its
argument, e.g. InvalidOperation([<class 'decimal.ConversionSyntax'>]).

Does not: exp, ln, log10, logb, scaleb, fma, the logical_* and next_* operations,
non-integral or three-argument powers (these raise NotImplementedError), the 'z' and '_'
format options or locale-aware 'n', or thread-local contexts (the PVM runs one call at a
time; the current context is a module global). Written for the PVM from the documented
behaviour; builtins only.
"""

__all__ = ['Decimal', 'Context', 'DecimalTuple', 'DefaultContext', 'BasicContext',
           'ExtendedContext', 'DecimalException', 'Clamped', 'InvalidOperation',
           'DivisionByZero', 'Inexact', 'Rounded', 'Subnormal', 'Overflow', 'Underflow',
           'FloatOperation', 'DivisionImpossible', 'InvalidContext', 'ConversionSyntax',
           'DivisionUndefined', 'ROUND_DOWN', 'ROUND_HALF_UP', 'ROUND_HALF_EVEN',
           'ROUND_CEILING', 'ROUND_FLOOR', 'ROUND_UP', 'ROUND_HALF_DOWN', 'ROUND_05UP',
           'setcontext', 'getcontext', 'localcontext', 'MAX_PREC', 'MAX_EMAX', 'MIN_EMIN',
           'MIN_ETINY']

MAX_PREC = 999999999999999999
MAX_EMAX = 999999999999999999
MIN_EMIN = -999999999999999999
MIN_ETINY = MIN_EMIN - (MAX_PREC - 1)

ROUND_DOWN = 'ROUND_DOWN'
ROUND_HALF_UP = 'ROUND_HALF_UP'
ROUND_HALF_EVEN = 'ROUND_HALF_EVEN'
ROUND_CEILING = 'ROUND_CEILING'
ROUND_FLOOR = 'ROUND_FLOOR'
ROUND_UP = 'ROUND_UP'
ROUND_HALF_DOWN = 'ROUND_HALF_DOWN'
ROUND_05UP = 'ROUND_05UP'
_ROUNDINGS = (ROUND_CEILING, ROUND_FLOOR, ROUND_UP, ROUND_DOWN, ROUND_HALF_UP,
              ROUND_HALF_DOWN, ROUND_HALF_EVEN, ROUND_05UP)


class DecimalException(ArithmeticError):
    """Base class of the decimal signals."""


class Clamped(DecimalException):
    """Exponent of a 0 changed to fit bounds."""


class InvalidOperation(DecimalException):
    """An invalid operation was performed."""


class ConversionSyntax(InvalidOperation):
    """A string could not be converted to a Decimal."""


class DivisionByZero(DecimalException, ZeroDivisionError):
    """Division of a finite nonzero number by zero."""


class DivisionImpossible(InvalidOperation):
    """The integer part of a division result does not fit the precision."""


class DivisionUndefined(InvalidOperation, ZeroDivisionError):
    """0 / 0."""


class Inexact(DecimalException):
    """Nonzero digits were discarded by rounding."""


class InvalidContext(InvalidOperation):
    """Invalid context."""


class Rounded(DecimalException):
    """Digits (possibly zero) were discarded by rounding."""


class Subnormal(DecimalException):
    """The exponent is below Emin before rounding."""


class Overflow(Inexact, Rounded):
    """The result exponent exceeds Emax after rounding."""


class Underflow(Inexact, Rounded, Subnormal):
    """A subnormal result was rounded inexactly."""


class FloatOperation(DecimalException, TypeError):
    """A float was mixed with Decimals."""


_SIGNALS = [InvalidOperation, FloatOperation, DivisionByZero, Overflow, Underflow, Subnormal,
            Inexact, Rounded, Clamped]  # order used to pick the exception class
_CONDITIONS = [InvalidOperation, ConversionSyntax, DivisionImpossible, DivisionUndefined,
               InvalidContext]  # listed first in an exception's condition list
_REPR_ORDER = [Clamped, InvalidOperation, DivisionByZero, Inexact, FloatOperation, Overflow,
               Rounded, Subnormal, Underflow]  # order in Context.__repr__ (libmpdec bits)


def _signal_of(cond):
    return InvalidOperation if cond in _CONDITIONS else cond


class DecimalTuple(tuple):
    """DecimalTuple(sign, digits, exponent)."""

    __slots__ = ()

    def __new__(cls, sign, digits, exponent):
        return tuple.__new__(cls, (sign, digits, exponent))

    sign = property(lambda self: self[0])
    digits = property(lambda self: self[1])
    exponent = property(lambda self: self[2])

    def __repr__(self):
        return 'DecimalTuple(sign=%r, digits=%r, exponent=%r)' % tuple(self)


def _ndigits(n):
    return len(str(n))


class Context:
    """Precision, rounding, exponent limits, flags and traps for decimal arithmetic."""

    def __init__(self, prec=None, rounding=None, Emin=None, Emax=None, capitals=None,
                 clamp=None, flags=None, traps=None):
        self.prec = 28 if prec is None else prec
        self.rounding = ROUND_HALF_EVEN if rounding is None else rounding
        self.Emin = -999999 if Emin is None else Emin
        self.Emax = 999999 if Emax is None else Emax
        self.capitals = 1 if capitals is None else capitals
        self.clamp = 0 if clamp is None else clamp
        self.flags = self._signal_dict(flags, ())
        self.traps = self._signal_dict(traps, (InvalidOperation, DivisionByZero, Overflow))

    @staticmethod
    def _signal_dict(value, default_on):
        if isinstance(value, dict):
            d = {s: bool(value.get(s, False)) for s in _SIGNALS}
        else:
            on = default_on if value is None else value
            d = {s: s in on for s in _SIGNALS}
        return d

    def __setattr__(self, name, value):
        if name == 'prec':
            if not isinstance(value, int) or not 1 <= value <= MAX_PREC:
                raise ValueError('valid range for prec is [1, MAX_PREC]')
        elif name == 'rounding':
            if value not in _ROUNDINGS:
                raise TypeError('valid values for rounding are:\n'
                                '  [ROUND_CEILING, ROUND_FLOOR, ROUND_UP, ROUND_DOWN,\n'
                                '   ROUND_HALF_UP, ROUND_HALF_DOWN, ROUND_HALF_EVEN,\n'
                                '   ROUND_05UP]')
        elif name == 'Emin':
            if not isinstance(value, int) or not MIN_EMIN <= value <= 0:
                raise ValueError('valid range for Emin is [MIN_EMIN, 0]')
        elif name == 'Emax':
            if not isinstance(value, int) or not 0 <= value <= MAX_EMAX:
                raise ValueError('valid range for Emax is [0, MAX_EMAX]')
        elif name == 'capitals':
            if value not in (0, 1):
                raise ValueError('valid values for capitals are 0 or 1')
        elif name == 'clamp':
            if value not in (0, 1):
                raise ValueError('valid values for clamp are 0 or 1')
        elif name not in ('flags', 'traps'):
            raise AttributeError(f"'decimal.Context' object has no attribute '{name}'")
        object.__setattr__(self, name, value)

    def __repr__(self):
        flags = ', '.join(s.__name__ for s in _REPR_ORDER if self.flags[s])
        traps = ', '.join(s.__name__ for s in _REPR_ORDER if self.traps[s])
        return (f'Context(prec={self.prec}, rounding={self.rounding}, Emin={self.Emin}, '
                f'Emax={self.Emax}, capitals={self.capitals}, clamp={self.clamp}, '
                f'flags=[{flags}], traps=[{traps}])')

    def copy(self):
        """A copy of the context, flags and traps included."""
        return Context(self.prec, self.rounding, self.Emin, self.Emax, self.capitals,
                       self.clamp, dict(self.flags), dict(self.traps))

    __copy__ = copy

    def clear_flags(self):
        for s in self.flags:
            self.flags[s] = False

    def clear_traps(self):
        for s in self.traps:
            self.traps[s] = False

    def Etiny(self):
        return self.Emin - self.prec + 1

    def Etop(self):
        return self.Emax - self.prec + 1

    def _signal(self, conds):
        """Record conditions; raise if any is trapped (CPython's C behaviour)."""
        if not conds:
            return
        for c in conds:
            self.flags[_signal_of(c)] = True
        trapped = [c for c in conds if self.traps[_signal_of(c)]]
        if not trapped:
            return
        listed = [c for c in _CONDITIONS if c in trapped]
        listed += [s for s in _SIGNALS[1:] if s in trapped]
        for s in _SIGNALS:
            if any(_signal_of(c) is s for c in trapped):
                raise s(listed)

    def create_decimal(self, num='0'):
        """A Decimal from num, rounded to this context."""
        d = Decimal(num, self)
        conds = []
        if d._is_special:
            r = d._fix_nan(self)
        else:
            r = _fix(d._sign, d._int, d._exp, self, conds)
        self._signal(conds)
        return r

    def create_decimal_from_float(self, f):
        return self.create_decimal(Decimal.from_float(f))

    # Context methods for the supported operations.
    def add(self, a, b):
        return _dec_arg(a).__add__(b, self)

    def subtract(self, a, b):
        return _dec_arg(a).__sub__(b, self)

    def multiply(self, a, b):
        return _dec_arg(a).__mul__(b, self)

    def divide(self, a, b):
        return _dec_arg(a).__truediv__(b, self)

    def divide_int(self, a, b):
        return _dec_arg(a).__floordiv__(b, self)

    def remainder(self, a, b):
        return _dec_arg(a).__mod__(b, self)

    def power(self, a, b):
        return _dec_arg(a).__pow__(b, None, self)

    def sqrt(self, a):
        return _dec_arg(a).sqrt(self)

    def quantize(self, a, b):
        return _dec_arg(a).quantize(b, context=self)

    def plus(self, a):
        return _dec_arg(a).__pos__(self)

    def minus(self, a):
        return _dec_arg(a).__neg__(self)

    def abs(self, a):
        return _dec_arg(a).__abs__(True, self)

    def compare(self, a, b):
        return _dec_arg(a).compare(b, self)


def _dec_arg(a):
    if isinstance(a, Decimal):
        return a
    if isinstance(a, int):
        return Decimal(a)
    raise TypeError(f"conversion from {type(a).__name__} to Decimal is not supported")


_current = [None]


def getcontext():
    """The current context (created from DefaultContext on first use)."""
    if _current[0] is None:
        _current[0] = DefaultContext.copy()
    return _current[0]


def setcontext(context):
    """Make `context` the current context."""
    if context is DefaultContext or context is BasicContext or context is ExtendedContext:
        context = context.copy()
        context.clear_flags()
    _current[0] = context


class _ContextManager:
    def __init__(self, new_context):
        self.new_context = new_context

    def __enter__(self):
        self.saved_context = getcontext()
        setcontext(self.new_context)
        return self.new_context

    def __exit__(self, t, v, tb):
        setcontext(self.saved_context)


def localcontext(ctx=None, **kwargs):
    """Context manager running its body with a copy of ctx (or the current context)."""
    ctx = (getcontext() if ctx is None else ctx).copy()
    for key, value in kwargs.items():
        if key not in ('prec', 'rounding', 'Emin', 'Emax', 'capitals', 'clamp', 'flags',
                       'traps'):
            raise TypeError(f"'{key}' is an invalid keyword argument for this function")
        if key in ('flags', 'traps'):
            value = Context._signal_dict(value, ())
        setattr(ctx, key, value)
    return _ContextManager(ctx)


def _round_digits(coeff, k, sign, rounding):
    """Drop k trailing digits of coeff with `rounding`: (new coeff, -1 truncated inexact,
    0 exact, 1 incremented)."""
    if k <= 0:
        return coeff, 0
    p = 10 ** k
    q, r = divmod(coeff, p)
    if r == 0:
        return q, 0
    half = p // 2
    if rounding == ROUND_DOWN:
        up = False
    elif rounding == ROUND_UP:
        up = True
    elif rounding == ROUND_HALF_UP:
        up = r >= half
    elif rounding == ROUND_HALF_DOWN:
        up = r > half
    elif rounding == ROUND_HALF_EVEN:
        up = r > half or (r == half and q % 2 == 1)
    elif rounding == ROUND_CEILING:
        up = not sign
    elif rounding == ROUND_FLOOR:
        up = bool(sign)
    else:  # ROUND_05UP
        up = q % 10 in (0, 5)
    return (q + 1, 1) if up else (q, -1)


def _overflow_result(sign, ctx):
    r = ctx.rounding
    big = _dec(sign, 10 ** ctx.prec - 1, ctx.Emax - ctx.prec + 1)
    inf = _special(sign, 'F')
    if r in (ROUND_HALF_UP, ROUND_HALF_EVEN, ROUND_HALF_DOWN, ROUND_UP):
        return inf
    if sign == 0:
        return inf if r == ROUND_CEILING else big
    return inf if r == ROUND_FLOOR else big


def _fix(sign, coeff, exp, ctx, conds):
    """Round (sign, coeff, exp) to the context, appending the conditions raised."""
    prec = ctx.prec
    etiny = ctx.Emin - prec + 1
    etop = ctx.Emax - prec + 1
    if coeff == 0:
        exp_max = ctx.Emax if ctx.clamp == 0 else etop
        new_exp = min(max(exp, etiny), exp_max)
        if new_exp != exp:
            conds.append(Clamped)
        return _dec(sign, 0, new_exp)
    nd = _ndigits(coeff)
    exp_min = nd + exp - prec
    if exp_min > etop:
        conds.extend((Overflow, Inexact, Rounded))
        return _overflow_result(sign, ctx)
    is_sub = exp_min < etiny
    if is_sub:
        exp_min = etiny
    if exp < exp_min:
        if nd + exp - exp_min < 0:
            coeff, exp = 1, exp_min - 1  # far below: only its sign matters for rounding
        q, changed = _round_digits(coeff, exp_min - exp, sign, ctx.rounding)
        if changed == 1 and _ndigits(q) > prec:
            q //= 10
            exp_min += 1
        if exp_min > etop:
            conds.extend((Overflow, Inexact, Rounded))
            ans = _overflow_result(sign, ctx)
        else:
            ans = _dec(sign, q, exp_min)
        if changed and is_sub:
            conds.append(Underflow)
        if is_sub:
            conds.append(Subnormal)
        if changed:
            conds.append(Inexact)
        conds.append(Rounded)
        if not ans._is_special and ans._int == 0:
            conds.append(Clamped)
        return ans
    if is_sub:
        conds.append(Subnormal)
    if ctx.clamp == 1 and exp > etop:
        conds.append(Clamped)
        return _dec(sign, coeff * 10 ** (exp - etop), etop)
    return _dec(sign, coeff, exp)


def _dec(sign, coeff, exp):
    d = object.__new__(Decimal)
    d._sign = sign
    d._int = coeff
    d._exp = exp
    d._is_special = False
    return d


def _special(sign, kind, payload=0):
    d = object.__new__(Decimal)
    d._sign = sign
    d._int = payload
    d._exp = kind  # 'F' infinity, 'n' quiet NaN, 'N' signaling NaN
    d._is_special = True
    return d


_DIGITS = frozenset('0123456789')


def _digit_run(text):
    if not text or text[0] == '_' or text[-1] == '_' or '__' in text:
        return None
    if not all(c in _DIGITS or c == '_' for c in text):
        return None
    return text.replace('_', '')


def _parse(s):
    """Parse a numeric string; returns a Decimal or None."""
    text = s.strip()
    sign = 0
    if text[:1] in ('+', '-'):
        sign = 1 if text[0] == '-' else 0
        text = text[1:]
    low = text.lower()
    if low in ('inf', 'infinity'):
        return _special(sign, 'F')
    for prefix, kind in (('snan', 'N'), ('nan', 'n')):
        if low.startswith(prefix):
            rest = text[len(prefix):]
            if not rest:
                return _special(sign, kind)
            digits = _digit_run(rest)
            if digits is None:
                return None
            return _special(sign, kind, int(digits))
    exp = 0
    epos = max(low.find('e'), -1)
    if epos >= 0:
        exp_text = text[epos + 1:]
        text = text[:epos]
        esign = 1
        if exp_text[:1] in ('+', '-'):
            esign = -1 if exp_text[0] == '-' else 1
            exp_text = exp_text[1:]
        e = _digit_run(exp_text)
        if e is None:
            return None
        exp = esign * int(e)
    intpart, dot, frac = text.partition('.')
    if not intpart and not frac:
        return None
    if intpart:
        intpart = _digit_run(intpart)
        if intpart is None:
            return None
    if frac:
        frac = _digit_run(frac)
        if frac is None:
            return None
    return _dec(sign, int((intpart or '') + (frac or '') or '0'), exp - len(frac or ''))


_HASH_MODULUS = 2 ** 61 - 1
_HASH_10INV = pow(10, _HASH_MODULUS - 2, _HASH_MODULUS)


class Decimal:
    """Floating-point decimal number: sign, integer coefficient, exponent."""

    __slots__ = ('_sign', '_int', '_exp', '_is_special')

    def __new__(cls, value='0', context=None):
        if isinstance(value, Decimal):
            src = value
        elif isinstance(value, int):
            src = _dec(1 if value < 0 else 0, abs(int(value)), 0)
        elif isinstance(value, str):
            src = _parse(value)
            if src is None:
                ctx = getcontext() if context is None else context
                ctx._signal([ConversionSyntax])
                src = _special(0, 'n')
        elif isinstance(value, float):
            (getcontext() if context is None else context)._signal([FloatOperation])
            src = Decimal._from_float(value)
        elif isinstance(value, (tuple, list)):
            src = Decimal._from_tuple(value)
        else:
            raise TypeError(f"conversion from {type(value).__name__} to Decimal is not "
                            "supported")
        self = object.__new__(cls)
        self._sign = src._sign
        self._int = src._int
        self._exp = src._exp
        self._is_special = src._is_special
        return self

    @staticmethod
    def _from_float(f):
        if f != f:
            return _special(0, 'n')
        if f in (float('inf'), float('-inf')):
            return _special(0 if f > 0 else 1, 'F')
        sign = 0 if str(f)[0] != '-' else 1
        n, d = abs(f).as_integer_ratio()
        k = d.bit_length() - 1  # d is a power of two
        return _dec(sign, n * 5 ** k, -k)

    @staticmethod
    def _from_tuple(value):
        if len(value) != 3:
            raise ValueError('argument must be a sequence of length 3')
        sign, digits, exp = value
        if sign not in (0, 1):
            raise ValueError('sign must be an integer with the value 0 or 1')
        coeff = 0
        for d in digits:
            if not isinstance(d, int) or not 0 <= d <= 9:
                raise ValueError('coefficient must be a tuple of digits')
            coeff = coeff * 10 + d
        if exp in ('F', 'n', 'N'):
            return _special(sign, exp, 0 if exp == 'F' else coeff)
        if not isinstance(exp, int):
            raise ValueError('exponent must be an integer')
        return _dec(sign, coeff, exp)

    @classmethod
    def from_float(cls, f):
        """Exact conversion of a float (or int)."""
        if isinstance(f, int):
            return cls(f)
        if not isinstance(f, float):
            raise TypeError('argument must be int or float')
        d = Decimal._from_float(f)
        return d if cls is Decimal else cls(d)

    # ---- predicates and accessors
    def is_nan(self):
        return self._is_special and self._exp != 'F'

    def is_qnan(self):
        return self._exp == 'n'

    def is_snan(self):
        return self._exp == 'N'

    def is_infinite(self):
        return self._exp == 'F'

    def is_finite(self):
        return not self._is_special

    def is_zero(self):
        return not self._is_special and self._int == 0

    def is_signed(self):
        return self._sign == 1

    def is_canonical(self):
        return True

    def is_normal(self, context=None):
        ctx = getcontext() if context is None else context
        return not self._is_special and self._int != 0 and self.adjusted() >= ctx.Emin

    def is_subnormal(self, context=None):
        ctx = getcontext() if context is None else context
        return not self._is_special and self._int != 0 and self.adjusted() < ctx.Emin

    def adjusted(self):
        """Exponent of the most significant digit."""
        if self._is_special:
            return 0
        return self._exp + _ndigits(self._int) - 1

    def as_tuple(self):
        digits = tuple(int(c) for c in str(self._int))
        if self._exp == 'F':
            digits = (0,)
        elif self._is_special and self._int == 0:
            digits = ()
        return DecimalTuple(self._sign, digits, self._exp)

    def as_integer_ratio(self):
        if self._is_special:
            if self.is_nan():
                raise ValueError('cannot convert NaN to integer ratio')
            raise OverflowError('cannot convert Infinity to integer ratio')
        if self._int == 0:
            return 0, 1
        n, d = self._int, 1
        if self._exp >= 0:
            n *= 10 ** self._exp
        else:
            d = 10 ** -self._exp
            # Reduce by common powers of 2 and 5 only (d has no other factors).
            while d % 2 == 0 and n % 2 == 0:
                n //= 2
                d //= 2
            while d % 5 == 0 and n % 5 == 0:
                n //= 5
                d //= 5
        return (-n if self._sign else n), d

    def copy_abs(self):
        return self._with_sign(0)

    def copy_negate(self):
        return self._with_sign(1 - self._sign)

    def copy_sign(self, other, context=None):
        return self._with_sign(_convert(other, True)._sign)

    def _with_sign(self, sign):
        if self._is_special:
            return _special(sign, self._exp, self._int)
        return _dec(sign, self._int, self._exp)

    # ---- conversion to text
    def __str__(self, eng=False, context=None):
        sign = '-' if self._sign else ''
        if self._is_special:
            if self._exp == 'F':
                return sign + 'Infinity'
            name = 'NaN' if self._exp == 'n' else 'sNaN'
            return sign + name + (str(self._int) if self._int else '')
        digits = str(self._int)
        leftdigits = self._exp + len(digits)
        if self._exp <= 0 and leftdigits > -6:
            dotplace = leftdigits
        elif not eng:
            dotplace = 1
        elif self._int == 0:
            dotplace = (leftdigits + 1) % 3 - 1
        else:
            dotplace = (leftdigits - 1) % 3 + 1
        if dotplace <= 0:
            intpart, fracpart = '0', '.' + '0' * (-dotplace) + digits
        elif dotplace >= len(digits):
            intpart, fracpart = digits + '0' * (dotplace - len(digits)), ''
        else:
            intpart, fracpart = digits[:dotplace], '.' + digits[dotplace:]
        if leftdigits == dotplace:
            exp = ''
        else:
            capitals = (getcontext() if context is None else context).capitals
            exp = ('E' if capitals else 'e') + '%+d' % (leftdigits - dotplace)
        return sign + intpart + fracpart + exp

    def to_eng_string(self, context=None):
        return self.__str__(eng=True, context=context)

    def __repr__(self):
        return "Decimal('%s')" % str(self)

    def __format__(self, specifier, context=None):
        """format() with [[fill]align][sign][0][width][,][.precision][type], type one of
        e E f F g G n % (rounded with the context's rounding, as CPython)."""
        ctx = getcontext() if context is None else context
        spec = _parse_format(specifier)
        if self._is_special:
            if spec['zeropad']:
                spec['fill'], spec['align'] = ' ', '>'  # specials are never zero-padded
            body = str(self.copy_abs())
            if spec['type'] == '%':
                body += '%'
            return _format_align(_format_sign(self._sign, spec), body, spec)
        ftype = spec['type']
        if ftype is None:
            ftype = 'G' if ctx.capitals else 'g'
            spec['type'] = ftype
        if ftype == 'n':
            ftype = spec['type'] = 'g'
        d = self
        if ftype == '%':
            d = _dec(d._sign, d._int, d._exp + 2)
        rounding = ctx.rounding
        precision = spec['precision']
        if precision is not None:
            if ftype in 'eE':
                d = d._round_sig(precision + 1, rounding)
            elif ftype in 'fF%':
                d = d._rescale(-precision, rounding)[0]
            elif ftype in 'gG' and _ndigits(d._int) > precision:
                d = d._round_sig(precision, rounding)
        if d._int == 0 and d._exp > 0 and ftype in 'fF%':
            d = d._rescale(0, rounding)[0]
        digits = str(d._int)
        leftdigits = d._exp + len(digits)
        if ftype in 'eE':
            dotplace = 1 - precision if (d._int == 0 and precision is not None) else 1
        elif ftype in 'fF%':
            dotplace = leftdigits
        else:
            dotplace = leftdigits if (d._exp <= 0 and leftdigits > -6) else 1
        if dotplace < 0:
            intpart, fracpart = '0', '0' * (-dotplace) + digits
        elif dotplace > len(digits):
            intpart, fracpart = digits + '0' * (dotplace - len(digits)), ''
        else:
            intpart, fracpart = digits[:dotplace] or '0', digits[dotplace:]
        return _format_number(d._sign, intpart, fracpart, leftdigits - dotplace, spec)

    def _round_sig(self, places, rounding):
        """Round to `places` significant digits."""
        if self._is_special or self._int == 0:
            return self
        ans = self._rescale(self.adjusted() + 1 - places, rounding)[0]
        if ans.adjusted() != self.adjusted():
            ans = ans._rescale(ans.adjusted() + 1 - places, rounding)[0]
        return ans

    # ---- conversion to numbers
    def __int__(self):
        if self._is_special:
            if self.is_nan():
                raise ValueError('cannot convert NaN to integer')
            raise OverflowError('cannot convert Infinity to integer')
        if self._exp >= 0:
            v = self._int * 10 ** self._exp
        else:
            v = self._int // 10 ** -self._exp
        return -v if self._sign else v

    __trunc__ = __int__

    def __float__(self):
        if self.is_nan():
            if self.is_snan():
                raise ValueError('cannot convert signaling NaN to float')
            return float('-nan') if self._sign else float('nan')
        return float(str(self))

    def __bool__(self):
        return self._is_special or self._int != 0

    def __floor__(self):
        return self._to_int(ROUND_FLOOR)

    def __ceil__(self):
        return self._to_int(ROUND_CEILING)

    def _to_int(self, rounding):
        if self._is_special:
            return int(self)
        if self._exp >= 0:
            return int(self)
        q, _ = _round_digits(self._int, -self._exp, self._sign, rounding)
        return -q if self._sign else q

    def __round__(self, n=None):
        if n is None:
            return self._to_int(ROUND_HALF_EVEN)
        if not isinstance(n, int):
            raise TypeError('Second argument to round should be integral')
        return self.quantize(_dec(0, 1, -n))

    # ---- hashing and comparison
    def __hash__(self):
        if self._is_special:
            if self.is_snan():
                raise TypeError('Cannot hash a signaling NaN value')
            if self.is_nan():
                return object.__hash__(self)
            return -314159 if self._sign else 314159
        if self._exp >= 0:
            exp_hash = pow(10, self._exp, _HASH_MODULUS)
        else:
            exp_hash = pow(_HASH_10INV, -self._exp, _HASH_MODULUS)
        h = self._int * exp_hash % _HASH_MODULUS
        ans = -h if self._sign else h
        return -2 if ans == -1 else ans

    def _compare_other(self, other, ctx):
        if isinstance(other, Decimal):
            return other
        if isinstance(other, int):
            return Decimal(other)
        if isinstance(other, float):
            ctx._signal([FloatOperation])
            return Decimal._from_float(other)
        if type(other).__name__ == 'Fraction' and not self._is_special:
            # Compare self * denominator with numerator exactly.
            scaled = _dec(self._sign, self._int * other.denominator, self._exp)
            return ('fraction', scaled, Decimal(other.numerator))
        return NotImplemented

    def _cmp(self, other):
        """-1, 0, 1 for non-NaN operands."""
        if self._is_special or other._is_special:
            a = 0 if not self._exp == 'F' else (-1 if self._sign else 1)
            b = 0 if not other._exp == 'F' else (-1 if other._sign else 1)
            if a or b:
                if a == b:
                    return 0
                if a and b:
                    return -1 if a < b else 1
                if a:
                    return a
                return -b
        if self._int == 0:
            if other._int == 0:
                return 0
            return 1 if other._sign else -1
        if other._int == 0:
            return -1 if self._sign else 1
        if self._sign != other._sign:
            return -1 if self._sign else 1
        sa, sb = self.adjusted(), other.adjusted()
        if sa == sb:
            e = min(self._exp, other._exp)
            x = self._int * 10 ** (self._exp - e)
            y = other._int * 10 ** (other._exp - e)
            r = (x > y) - (x < y)
        else:
            r = 1 if sa > sb else -1
        return -r if self._sign else r

    def _rich(self, other, op, ordering):
        ctx = getcontext()
        o = self._compare_other(other, ctx)
        if o is NotImplemented:
            return o
        a = self
        if isinstance(o, tuple):
            a, o = o[1], o[2]
        if a.is_nan() or o.is_nan():
            if ordering or a.is_snan() or o.is_snan():
                ctx._signal([InvalidOperation])
            return op == 'ne'
        c = a._cmp(o)
        return {'eq': c == 0, 'ne': c != 0, 'lt': c < 0, 'le': c <= 0, 'gt': c > 0,
                'ge': c >= 0}[op]

    def __eq__(self, other):
        return self._rich(other, 'eq', False)

    def __ne__(self, other):
        return self._rich(other, 'ne', False)

    def __lt__(self, other):
        return self._rich(other, 'lt', True)

    def __le__(self, other):
        return self._rich(other, 'le', True)

    def __gt__(self, other):
        return self._rich(other, 'gt', True)

    def __ge__(self, other):
        return self._rich(other, 'ge', True)

    def compare(self, other, context=None):
        """Decimal(-1), Decimal(0) or Decimal(1); NaN if either is NaN."""
        ctx = getcontext() if context is None else context
        other = _convert(other, True)
        conds = []
        nan = _check_nans(self, other, ctx, conds)
        ctx._signal(conds)
        if nan is not None:
            return nan
        return Decimal(self._cmp(other))

    def max(self, other, context=None):
        return self._minmax(other, context, True)

    def min(self, other, context=None):
        return self._minmax(other, context, False)

    def _minmax(self, other, context, want_max):
        ctx = getcontext() if context is None else context
        other = _convert(other, True)
        if self.is_snan() or other.is_snan():
            conds = []
            r = _check_nans(self, other, ctx, conds)
            ctx._signal(conds)
            return r
        if self.is_nan() and not other.is_nan():
            return other._plus(ctx)
        if other.is_nan() and not self.is_nan():
            return self._plus(ctx)
        if self.is_nan():
            return self._plus(ctx)
        c = self._cmp(other)
        if c == 0:
            # Numerically equal: the positive one is the larger (-0 < 0).
            c = other._sign - self._sign
        pick = self if (c >= 0) == want_max else other
        return pick._plus(ctx)

    # ---- arithmetic
    def _plus(self, ctx):
        conds = []
        if self._is_special:
            r = self._fix_nan(ctx) if self.is_nan() else self
            if self.is_snan():
                conds.append(InvalidOperation)
        else:
            r = _fix(self._sign, self._int, self._exp, ctx, conds)
        ctx._signal(conds)
        return r

    def _fix_nan(self, ctx):
        payload = self._int
        max_len = ctx.prec - ctx.clamp
        if _ndigits(payload) > max_len:
            payload = payload % 10 ** max_len
        return _special(self._sign, 'n', payload)

    def __pos__(self, context=None):
        ctx = getcontext() if context is None else context
        if not self._is_special and self._int == 0 and ctx.rounding != ROUND_FLOOR:
            return _dec(0, 0, self._exp)._plus(ctx)
        return self._plus(ctx)

    def __neg__(self, context=None):
        ctx = getcontext() if context is None else context
        if not self._is_special and self._int == 0 and ctx.rounding != ROUND_FLOOR:
            return _dec(0, 0, self._exp)._plus(ctx)
        return self.copy_negate()._plus(ctx)

    def __abs__(self, round=True, context=None):
        ctx = getcontext() if context is None else context
        if not round:
            return self.copy_abs()
        return self.copy_abs()._plus(ctx)

    def _binary(self, other, context, fn, reflected=False):
        other = _convert(other, False)
        if other is NotImplemented:
            return other
        ctx = getcontext() if context is None else context
        a, b = (other, self) if reflected else (self, other)
        conds = []
        r = fn(a, b, ctx, conds)
        ctx._signal(conds)
        return r

    def __add__(self, other, context=None):
        return self._binary(other, context, _add)

    def __radd__(self, other, context=None):
        return self._binary(other, context, _add, True)

    def __sub__(self, other, context=None):
        return self._binary(other, context, _sub)

    def __rsub__(self, other, context=None):
        return self._binary(other, context, _sub, True)

    def __mul__(self, other, context=None):
        return self._binary(other, context, _mul)

    def __rmul__(self, other, context=None):
        return self._binary(other, context, _mul, True)

    def __truediv__(self, other, context=None):
        return self._binary(other, context, _div)

    def __rtruediv__(self, other, context=None):
        return self._binary(other, context, _div, True)

    def __floordiv__(self, other, context=None):
        return self._binary(other, context, lambda a, b, c, k: _divmod(a, b, c, k, 0)[0])

    def __rfloordiv__(self, other, context=None):
        return self._binary(other, context, lambda a, b, c, k: _divmod(a, b, c, k, 0)[0], True)

    def __mod__(self, other, context=None):
        return self._binary(other, context, lambda a, b, c, k: _divmod(a, b, c, k, 1)[1])

    def __rmod__(self, other, context=None):
        return self._binary(other, context, lambda a, b, c, k: _divmod(a, b, c, k, 1)[1], True)

    def __divmod__(self, other, context=None):
        return self._binary(other, context, _divmod)

    def __rdivmod__(self, other, context=None):
        return self._binary(other, context, _divmod, True)

    def __pow__(self, other, modulo=None, context=None):
        if modulo is not None:
            raise NotImplementedError('three-argument pow() is not supported by the PVM '
                                      'decimal module')
        return self._binary(other, context, _pow)

    def __rpow__(self, other, context=None):
        return self._binary(other, context, _pow, True)

    # ---- rounding-related operations
    def _rescale(self, exp, rounding):
        """Same value with exponent exp (rounding when digits are dropped)."""
        if self._int == 0:
            return _dec(self._sign, 0, exp), 0
        if self._exp >= exp:
            return _dec(self._sign, self._int * 10 ** (self._exp - exp), exp), 0
        coeff, cur = self._int, self._exp
        if _ndigits(coeff) + cur - exp < 0:
            coeff, cur = 1, exp - 1
        q, changed = _round_digits(coeff, exp - cur, self._sign, rounding)
        return _dec(self._sign, q, exp), changed

    def quantize(self, exp, rounding=None, context=None):
        """Round to the exponent of `exp`."""
        ctx = getcontext() if context is None else context
        exp = _convert(exp, True)
        rounding = ctx.rounding if rounding is None else rounding
        conds = []
        r = self._quantize(exp, rounding, ctx, conds)
        ctx._signal(conds)
        return r

    def _quantize(self, exp, rounding, ctx, conds):
        if self._is_special or exp._is_special:
            nan = _check_nans(self, exp, ctx, conds)
            if nan is not None:
                return nan
            if self.is_infinite() and exp.is_infinite():
                return self
            conds.append(InvalidOperation)
            return _special(0, 'n')
        if not ctx.Etiny() <= exp._exp <= ctx.Emax:
            conds.append(InvalidOperation)
            return _special(0, 'n')
        if self._int == 0:
            return _fix(self._sign, 0, exp._exp, ctx, conds)
        if self.adjusted() > ctx.Emax or self.adjusted() - exp._exp + 1 > ctx.prec:
            conds.append(InvalidOperation)
            return _special(0, 'n')
        ans, changed = self._rescale(exp._exp, rounding)
        if ans.adjusted() > ctx.Emax or _ndigits(ans._int) > ctx.prec:
            conds.append(InvalidOperation)
            return _special(0, 'n')
        if ans._int and ans.adjusted() < ctx.Emin:
            conds.append(Subnormal)
        if ans._exp > self._exp:
            if changed:
                conds.append(Inexact)
            conds.append(Rounded)
        return _fix(ans._sign, ans._int, ans._exp, ctx, conds)

    def to_integral_value(self, rounding=None, context=None):
        """Round to an integer (exponent 0) without signalling Inexact/Rounded."""
        ctx = getcontext() if context is None else context
        if self._is_special:
            conds = []
            r = _check_nans(self, self, ctx, conds)
            ctx._signal(conds)
            return self if r is None else r
        if self._exp >= 0:
            return self
        ans, _ = self._rescale(0, ctx.rounding if rounding is None else rounding)
        return ans

    to_integral = to_integral_value

    def to_integral_exact(self, rounding=None, context=None):
        """Round to an integer, signalling Inexact and Rounded as needed."""
        ctx = getcontext() if context is None else context
        if self._is_special or self._exp >= 0:
            return self.to_integral_value(rounding, ctx)
        ans, changed = self._rescale(0, ctx.rounding if rounding is None else rounding)
        conds = [Rounded]
        if changed:
            conds.insert(0, Inexact)
        ctx._signal(conds)
        return ans

    def normalize(self, context=None):
        """Round to the context and strip trailing zeros (zero becomes 0 / -0)."""
        ctx = getcontext() if context is None else context
        r = self._plus(ctx)
        if r._is_special:
            return r
        if r._int == 0:
            return _dec(r._sign, 0, 0)
        coeff, exp = r._int, r._exp
        exp_max = ctx.Emax if ctx.clamp == 0 else ctx.Etop()
        while coeff % 10 == 0 and exp < exp_max:
            coeff //= 10
            exp += 1
        return _dec(r._sign, coeff, exp)

    def sqrt(self, context=None):
        """Square root, correctly rounded (always with ROUND_HALF_EVEN)."""
        ctx = getcontext() if context is None else context
        conds = []
        r = _sqrt(self, ctx, conds)
        ctx._signal(conds)
        return r

    def exp(self, context=None):
        raise NotImplementedError('Decimal.exp is not supported by the PVM decimal module')

    def ln(self, context=None):
        raise NotImplementedError('Decimal.ln is not supported by the PVM decimal module')

    def log10(self, context=None):
        raise NotImplementedError('Decimal.log10 is not supported by the PVM decimal module')

    def __reduce__(self):
        return (self.__class__, (str(self),))

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self


def _parse_format(text):
    """Parse a format specification; raises ValueError('invalid format string')."""
    spec = {'fill': ' ', 'align': None, 'sign': '-', 'zeropad': False, 'alt': False,
            'minimumwidth': 0, 'thousands_sep': '', 'precision': None, 'type': None}
    i, n = 0, len(text)
    if n >= 2 and text[1] in '<>=^':
        spec['fill'], spec['align'] = text[0], text[1]
        i = 2
    elif n >= 1 and text[0] in '<>=^':
        spec['align'] = text[0]
        i = 1
    if i < n and text[i] in '+- ':
        spec['sign'] = text[i]
        i += 1
    if i < n and text[i] == '0':
        spec['zeropad'] = True
        i += 1
    start = i
    while i < n and text[i] in _DIGITS:
        i += 1
    if i > start:
        spec['minimumwidth'] = int(text[start:i])
    if i < n and text[i] == ',':
        spec['thousands_sep'] = ','
        i += 1
    if i < n and text[i] == '.':
        start = i + 1
        i = start
        while i < n and text[i] in _DIGITS:
            i += 1
        if i == start:
            raise ValueError('invalid format string')
        spec['precision'] = int(text[start:i])
    if i < n and text[i] in 'eEfFgGn%':
        spec['type'] = text[i]
        i += 1
    if i != n:
        raise ValueError('invalid format string')
    if spec['zeropad']:
        if spec['align'] is None:
            spec['align'] = '='
        if spec['fill'] == ' ' and text[:2] not in (' <', ' >', ' =', ' ^'):
            spec['fill'] = '0'
    if spec['align'] is None:
        spec['align'] = '>'
    if spec['type'] in ('g', 'G') and spec['precision'] == 0:
        spec['precision'] = 1
    return spec


def _format_sign(is_negative, spec):
    if is_negative:
        return '-'
    return spec['sign'] if spec['sign'] in ' +' else ''


def _format_align(sign, body, spec):
    padding = spec['fill'] * (spec['minimumwidth'] - len(sign) - len(body))
    align = spec['align']
    if align == '<':
        return sign + body + padding
    if align == '>':
        return padding + sign + body
    if align == '=':
        return sign + padding + body
    half = len(padding) // 2
    return padding[:half] + sign + body + padding[half:]


def _group_digits(digits, sep, min_width):
    """Insert thousands separators, zero-padding to min_width characters."""
    if not sep:
        return digits.rjust(min_width, '0') if min_width > len(digits) else digits
    groups = []
    while True:
        size = min(max(len(digits), min_width, 1), 3)
        groups.append('0' * (size - len(digits[-size:] if digits else '')) + digits[-size:]
                      if digits else '0' * size)
        digits = digits[:-size] if len(digits) > size else ''
        min_width -= size
        if not digits and min_width <= 0:
            break
        min_width -= len(sep)
    return sep.join(reversed(groups))


def _format_number(sign_bit, intpart, fracpart, exp, spec):
    sign = _format_sign(sign_bit, spec)
    if fracpart or spec['alt']:
        fracpart = '.' + fracpart
    if exp != 0 or spec['type'] in 'eE':
        echar = {'E': 'E', 'e': 'e', 'G': 'E', 'g': 'e'}[spec['type']]
        fracpart += '{0}{1:+}'.format(echar, exp)
    if spec['type'] == '%':
        fracpart += '%'
    min_width = spec['minimumwidth'] - len(fracpart) - len(sign) if spec['zeropad'] else 0
    intpart = _group_digits(intpart, spec['thousands_sep'], min_width)
    return _format_align(sign, intpart + fracpart, spec)


def _convert(other, strict):
    if isinstance(other, Decimal):
        return other
    if isinstance(other, int):
        return Decimal(other)
    if strict:
        raise TypeError(f"conversion from {type(other).__name__} to Decimal is not supported")
    return NotImplemented


def _check_nans(a, b, ctx, conds):
    """NaN result of a binary operation (signalling for sNaN), or None."""
    for x in (a, b):
        if x.is_snan():
            conds.append(InvalidOperation)
            return _special(x._sign, 'n', x._int)._fix_nan(ctx)
    for x in (a, b):
        if x.is_qnan():
            return x._fix_nan(ctx)
    return None


def _add(a, b, ctx, conds, negate_b=False):
    bsign = b._sign ^ 1 if negate_b else b._sign
    if a._is_special or b._is_special:
        nan = _check_nans(a, b, ctx, conds)
        if nan is not None:
            return nan
        if a.is_infinite():
            if b.is_infinite() and a._sign != bsign:
                conds.append(InvalidOperation)
                return _special(0, 'n')
            return _special(a._sign, 'F')
        return _special(bsign, 'F')
    exp = min(a._exp, b._exp)
    if a._int == 0 and b._int == 0:
        sign = 1 if (a._sign and bsign) or (a._sign != bsign and ctx.rounding == ROUND_FLOOR) \
            else 0
        return _fix(sign, 0, exp, ctx, conds)
    if a._int == 0:
        e = max(exp, b._exp - ctx.prec - 1)
        return _fix(bsign, b._int * 10 ** (b._exp - e), e, ctx, conds)
    if b._int == 0:
        e = max(exp, a._exp - ctx.prec - 1)
        return _fix(a._sign, a._int * 10 ** (a._exp - e), e, ctx, conds)
    x = (a._sign, a._int, a._exp)
    y = (bsign, b._int, b._exp)
    # Replace an operand far below the other's precision by a tiny sticky value, so that
    # 1E+999999 + 1 does not build a million-digit integer (rounding is unchanged).
    hi, lo = (x, y) if x[2] >= y[2] else (y, x)
    limit = hi[2] + min(-1, _ndigits(hi[1]) - ctx.prec - 2)
    if _ndigits(lo[1]) + lo[2] - 1 < limit:
        lo = (lo[0], 1, limit)
    exp = lo[2]
    va = hi[1] * 10 ** (hi[2] - exp) * (-1 if hi[0] else 1)
    vb = lo[1] * (-1 if lo[0] else 1)
    total = va + vb
    if total == 0:
        sign = 1 if ctx.rounding == ROUND_FLOOR else 0
        return _fix(sign, 0, exp, ctx, conds)
    return _fix(1 if total < 0 else 0, abs(total), exp, ctx, conds)


def _sub(a, b, ctx, conds):
    return _add(a, b, ctx, conds, negate_b=True)


def _mul(a, b, ctx, conds):
    sign = a._sign ^ b._sign
    if a._is_special or b._is_special:
        nan = _check_nans(a, b, ctx, conds)
        if nan is not None:
            return nan
        if (a.is_infinite() and b.is_zero()) or (b.is_infinite() and a.is_zero()):
            conds.append(InvalidOperation)
            return _special(0, 'n')
        return _special(sign, 'F')
    return _fix(sign, a._int * b._int, a._exp + b._exp, ctx, conds)


def _div(a, b, ctx, conds):
    sign = a._sign ^ b._sign
    if a._is_special or b._is_special:
        nan = _check_nans(a, b, ctx, conds)
        if nan is not None:
            return nan
        if a.is_infinite() and b.is_infinite():
            conds.append(InvalidOperation)
            return _special(0, 'n')
        if a.is_infinite():
            return _special(sign, 'F')
        conds.append(Clamped)
        return _dec(sign, 0, ctx.Etiny())
    if b._int == 0:
        if a._int == 0:
            conds.append(DivisionUndefined)
            return _special(0, 'n')
        conds.append(DivisionByZero)
        return _special(sign, 'F')
    ideal = a._exp - b._exp
    if a._int == 0:
        return _fix(sign, 0, ideal, ctx, conds)
    shift = _ndigits(b._int) - _ndigits(a._int) + ctx.prec + 1
    exp = ideal - shift
    if shift >= 0:
        q, r = divmod(a._int * 10 ** shift, b._int)
    else:
        q, r = divmod(a._int, b._int * 10 ** -shift)
    if r:
        if q % 5 == 0:
            q += 1  # sticky digit: the true quotient is above q
    else:
        while exp < ideal and q % 10 == 0:
            q //= 10
            exp += 1
    return _fix(sign, q, exp, ctx, conds)


def _divmod(a, b, ctx, conds, which=None):
    """(a // b, a % b) with Decimal semantics: the quotient truncates toward zero."""
    sign = a._sign ^ b._sign
    if a._is_special or b._is_special:
        nan = _check_nans(a, b, ctx, conds)
        if nan is not None:
            return nan, nan
        if a.is_infinite():
            if b.is_infinite():
                conds.append(InvalidOperation)
                return _special(0, 'n'), _special(0, 'n')
            conds.append(InvalidOperation)
            return _special(sign, 'F'), _special(0, 'n')
        return _dec(sign, 0, 0), _fix(a._sign, a._int, a._exp, ctx, conds)
    if b._int == 0:
        if a._int == 0:
            conds.append(DivisionUndefined)
            return _special(0, 'n'), _special(0, 'n')
        # x // 0 signals DivisionByZero, x % 0 InvalidOperation, divmod both.
        if which != 1:
            conds.append(DivisionByZero)
        if which != 0:
            conds.append(InvalidOperation)
        return _special(sign, 'F'), _special(0, 'n')
    ideal = min(a._exp, b._exp)
    expdiff = a.adjusted() - b.adjusted()
    if a._int == 0 or expdiff <= -2:
        rem, _ = a._rescale(ideal, ctx.rounding)
        return _dec(sign, 0, 0), _fix(rem._sign, rem._int, rem._exp, ctx, conds)
    if expdiff <= ctx.prec:
        x, y = a._int, b._int
        if a._exp >= b._exp:
            x *= 10 ** (a._exp - b._exp)
        else:
            y *= 10 ** (b._exp - a._exp)
        q, r = divmod(x, y)
        if q < 10 ** ctx.prec:
            return (_dec(sign, q, 0),
                    _fix(a._sign, r, ideal, ctx, conds))
    conds.append(DivisionImpossible)
    return _special(0, 'n'), _special(0, 'n')


def _pow(a, b, ctx, conds):
    if a._is_special or b._is_special:
        nan = _check_nans(a, b, ctx, conds)
        if nan is not None:
            return nan
    if b._is_special:
        # x ** +-Infinity
        if a.is_zero():
            return _special(0, 'F') if b._sign else _dec(0, 0, 0)
        if a._sign:
            conds.append(InvalidOperation)
            return _special(0, 'n')
        c = a._cmp(Decimal(1))
        if c == 0:
            conds.extend((Inexact, Rounded))
            return _fix(0, 10 ** (ctx.prec - 1), 1 - ctx.prec, ctx, conds)
        big = (c > 0) != bool(b._sign)
        return _special(0, 'F') if big else _dec(0, 0, 0)
    integral = b._exp >= 0 or b._int % 10 ** -b._exp == 0
    if not integral:
        if a._sign and not a.is_zero():
            conds.append(InvalidOperation)
            return _special(0, 'n')
        raise NotImplementedError('non-integral powers are not supported by the PVM '
                                  'decimal module')
    n = int(b)
    sign = a._sign if n % 2 else 0
    if a.is_infinite():
        if n == 0:
            return _dec(0, 1, 0)
        return _special(sign, 'F') if n > 0 else _dec(sign, 0, 0)
    if a._int == 0:
        if n == 0:
            conds.append(InvalidOperation)
            return _special(0, 'n')
        return _dec(sign, 0, 0) if n > 0 else _special(sign, 'F')
    if n == 0:
        return _fix(0, 1, 0, ctx, conds)
    if n > 0:
        # Guard against results that could not fit any context before computing them.
        if (a.adjusted() + 1) * n > ctx.Emax + ctx.prec + 2 and a.adjusted() >= 0:
            conds.extend((Overflow, Inexact, Rounded))
            return _overflow_result(sign, ctx)
        return _fix(sign, a._int ** n, a._exp * n, ctx, conds)
    denom = _dec(0, a._int ** -n, a._exp * -n)
    return _div(_dec(sign, 1, 0), denom, ctx, conds)


def _isqrt(n):
    if n == 0:
        return 0
    x = 1 << ((n.bit_length() + 1) // 2)
    while True:
        y = (x + n // x) // 2
        if y >= x:
            return x
        x = y


def _sqrt(a, ctx, conds):
    if a._is_special:
        nan = _check_nans(a, a, ctx, conds)
        if nan is not None:
            return nan
        if a._sign:
            conds.append(InvalidOperation)
            return _special(0, 'n')
        return a
    if a._int == 0:
        return _fix(a._sign, 0, a._exp // 2, ctx, conds)
    if a._sign:
        conds.append(InvalidOperation)
        return _special(0, 'n')
    ideal = a._exp // 2
    c, e = a._int, a._exp
    if e % 2:
        c *= 10
        e -= 1
    shift = max(0, ctx.prec + 1 - (_ndigits(c) + 1) // 2)
    c *= 100 ** shift
    e = e // 2 - shift
    n = _isqrt(c)
    if n * n == c:
        while e < ideal and n % 10 == 0:
            n //= 10
            e += 1
    elif n % 5 == 0:
        n += 1  # sticky digit
    half_even = ctx.copy()
    half_even.rounding = ROUND_HALF_EVEN
    return _fix(0, n, e, half_even, conds)


DefaultContext = Context(prec=28, rounding=ROUND_HALF_EVEN,
                         traps=[DivisionByZero, Overflow, InvalidOperation])
BasicContext = Context(prec=9, rounding=ROUND_HALF_UP,
                       traps=[DivisionByZero, Overflow, InvalidOperation, Clamped, Underflow])
ExtendedContext = Context(prec=9, rounding=ROUND_HALF_EVEN, traps=[])
