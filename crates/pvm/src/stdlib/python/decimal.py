"""decimal for the PVM: decimal floating point with contexts (General Decimal Arithmetic),
behaving as CPython 3.11's decimal (libmpdec) in results, flags and exceptions.

Covers: Decimal from int, str (incl. underscores, whitespace, NaN/sNaN/Infinity), float
(exact, sets FloatOperation), tuple and Decimal; str/repr/to_eng_string; + - * / // % divmod
and unary ops, correctly rounded to the context (prec, the eight rounding modes, Emin, Emax,
clamp, subnormals, overflow); ** with libmpdec's algorithms (integral exponents by rounded
binary powering, others as exp(y*ln(x)) at extra precision) and three-argument pow; exp, ln,
log10 correctly rounded (ROUND_HALF_EVEN) by integer fixed-point series, never floats; logb,
sqrt, quantize, normalize, to_integral_*, fma, remainder_near, scaleb, rotate, shift,
logical_and/or/xor/invert, next_plus/minus/toward, compare/compare_signal/compare_total(_mag),
max/min(_mag), same_quantum, number_class, the is_* predicates, copy_*, adjusted, as_tuple,
as_integer_ratio, from_float, round/floor/ceil/trunc/int/float, numeric hash equal to equal
ints and floats; format() with fill/align/sign/z/0/width/,/precision and e E f F g G n %
(with libmpdec's validation); Context with every operation as a method (ints accepted),
create_decimal(_from_float), Etiny/Etop, flags/traps mappings with CPython's KeyErrors,
copy/clear_flags/clear_traps, repr; getcontext/setcontext/localcontext(**kw),
DefaultContext/BasicContext/ExtendedContext; the signal classes with CPython's hierarchy,
raised as the C implementation does (the class of the first trapped signal, the list of
trapped conditions as argument: InvalidOperation([<class 'decimal.ConversionSyntax'>])).

PVM limits: MAX_PREC is 250 (CPython 999999999999999999) so every intermediate stays far
below the PVM's 4096-bit int cap; a literal or operand whose coefficient exceeds the cap
raises the cap's OverflowError. The current context is per invocation (one runs at a time),
not thread-local. Locale-aware 'n' formats as in the C locale. Written for the PVM from the
documented behaviour; builtins only.

Actors (code running under a chain host, where `import pvm_host` succeeds) get a fixed
context, as the whitepaper requires ("fixed rounding mode (ROUND_HALF_EVEN) and fixed
precision"; CIP-3): every Context the public API lets them build or reach has prec 28 and
ROUND_HALF_EVEN, so setting another prec or rounding (directly, through Context(...),
localcontext(**kw) or setcontext) raises ValueError, and BasicContext/ExtendedContext
(prec 9) refuse every use.
Per-call rounding= arguments (quantize, to_integral_*) stay allowed. The module's own
working contexts (higher precision inside ** and the transcendental functions, directed
rounding inside next_*) are built by _working, past the check. Plain scripts keep CPython's
behaviour. See crates/pvm/LIMITATIONS.md item 30 (what the rule does not defend).
"""

import _decimal
from _decimal import make as _make

# No __all__, as CPython's decimal: a star import takes every public name.

# The PVM's ints hold at most 4096 bits (about 1233 digits), and a product of two
# prec-digit coefficients, or the fixed-point intermediates of ln/exp/power at prec + 29
# digits, must fit with room to spare; CPython allows 999999999999999999.
MAX_PREC = 250
MAX_EMAX = 999999999999999999
MIN_EMIN = -999999999999999999
MIN_ETINY = MIN_EMIN - (MAX_PREC - 1)
# One invocation runs at a time: the current context is private to it, as a context
# variable would be.
HAVE_THREADS = True
HAVE_CONTEXTVAR = True

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
_ROUNDING_ERROR = ('valid values for rounding are:\n'
                   '  [ROUND_CEILING, ROUND_FLOOR, ROUND_UP, ROUND_DOWN,\n'
                   '   ROUND_HALF_UP, ROUND_HALF_DOWN, ROUND_HALF_EVEN,\n'
                   '   ROUND_05UP]')

# Actor mode: True when a chain host is attached (set at the end of the module, after the
# module's own contexts are built). Then the context is fixed at prec 28, ROUND_HALF_EVEN.
_fixed = False
_FIXED_PREC = 28
_FIXED_ERROR = ('the decimal context is fixed on Cowboy: prec 28, ROUND_HALF_EVEN '
                '(per-call rounding= arguments are allowed)')


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


_SIGNAL_KEY_ERROR = ('valid values for signals are:\n  [InvalidOperation, FloatOperation, '
                     'DivisionByZero,\n   Overflow, Underflow, Subnormal, Inexact, Rounded,\n'
                     '   Clamped]')


class _SignalDict:
    """Context.flags / Context.traps: a mutable mapping of exactly the nine signals to
    bools, as CPython's SignalDict (which is not a dict either)."""

    __slots__ = ('_d',)

    def __init__(self, pairs):
        self._d = {k: bool(v) for k, v in pairs}

    def __getitem__(self, key):
        if key not in self._d:
            raise KeyError(_SIGNAL_KEY_ERROR)
        return self._d[key]

    def __setitem__(self, key, value):
        if key not in self._d:
            raise KeyError(_SIGNAL_KEY_ERROR)
        self._d[key] = bool(value)

    def __delitem__(self, key):
        raise ValueError('signal keys cannot be deleted')

    def __iter__(self):
        return iter(self._d)

    def __len__(self):
        return len(self._d)

    def __contains__(self, key):
        return key in self._d

    def __eq__(self, other):
        if isinstance(other, _SignalDict):
            other = other._d
        return self._d == other

    __hash__ = None

    def keys(self):
        return self._d.keys()

    def values(self):
        return self._d.values()

    def items(self):
        return self._d.items()

    def get(self, key, default=None):
        return self._d.get(key, default)

    def copy(self):
        return dict(self._d)

    def __repr__(self):
        return '{' + ', '.join(f"<class 'decimal.{k.__name__}'>:{v}"
                               for k, v in self._d.items()) + '}'


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
        if isinstance(value, (dict, _SignalDict)):
            d = _SignalDict((s, bool(value.get(s, False))) for s in _SIGNALS)
        else:
            on = default_on if value is None else value
            d = _SignalDict((s, s in on) for s in _SIGNALS)
        return d

    def __setattr__(self, name, value):
        if name == 'prec':
            if not isinstance(value, int) or not 1 <= value <= MAX_PREC:
                raise ValueError('valid range for prec is [1, MAX_PREC]')
            if _fixed and value != _FIXED_PREC:
                raise ValueError(_FIXED_ERROR)
        elif name == 'rounding':
            if value not in _ROUNDINGS:
                raise TypeError(_ROUNDING_ERROR)
            if _fixed and value != ROUND_HALF_EVEN:
                raise ValueError(_FIXED_ERROR)
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
        elif name in ('flags', 'traps'):
            if isinstance(value, (dict, _SignalDict)):
                if len(value) != len(_SIGNALS) or any(k not in value for k in _SIGNALS):
                    raise KeyError('invalid signal dict')
                value = Context._signal_dict(value, ())
            else:
                value = Context._signal_dict(value, ())
        else:
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
        return _working(self, self.prec, self.rounding)

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
        if d.is_nan():
            # A payload longer than the context allows is a conversion error.
            r = d
            if d._int and _ndigits(d._int) > self.prec - self.clamp:
                conds.append(ConversionSyntax)
                r = _special(0, 'n')
        elif d._is_special:
            r = d
        else:
            r = _fix(d._sign, d._int, d._exp, self, conds)
        self._signal(conds)
        return r

    def create_decimal_from_float(self, f):
        return self.create_decimal(Decimal.from_float(f))

    # Every operation is also a context method; ints are accepted where Decimals are.
    def _apply(self, a):
        return _dec_arg(a)._plus(self)

    def abs(self, a):
        return _dec_arg(a).__abs__(True, self)

    def add(self, a, b):
        return _ctx_binary(a, b, '__add__', self)

    def subtract(self, a, b):
        return _ctx_binary(a, b, '__sub__', self)

    def multiply(self, a, b):
        return _ctx_binary(a, b, '__mul__', self)

    def divide(self, a, b):
        return _ctx_binary(a, b, '__truediv__', self)

    def divide_int(self, a, b):
        return _ctx_binary(a, b, '__floordiv__', self)

    def remainder(self, a, b):
        return _ctx_binary(a, b, '__mod__', self)

    def divmod(self, a, b):
        return _ctx_binary(a, b, '__divmod__', self)

    def power(self, a, b, modulo=None):
        a = _dec_arg(a)
        b = _dec_arg(b)
        if modulo is not None:
            modulo = _dec_arg(modulo)
        return a.__pow__(b, modulo, self)

    def fma(self, a, b, c):
        return _dec_arg(a).fma(b, c, self)

    def plus(self, a):
        return _dec_arg(a).__pos__(self)

    def minus(self, a):
        return _dec_arg(a).__neg__(self)

    def canonical(self, a):
        if not isinstance(a, Decimal):
            raise TypeError('argument must be a Decimal')
        return a

    def copy_decimal(self, a):
        return Decimal(_dec_arg(a))

    def copy_abs(self, a):
        return _dec_arg(a).copy_abs()

    def copy_negate(self, a):
        return _dec_arg(a).copy_negate()

    def copy_sign(self, a, b):
        return _dec_arg(a).copy_sign(b)

    def radix(self):
        return Decimal(10)

    def number_class(self, a):
        return _dec_arg(a).number_class(self)

    def is_canonical(self, a):
        if not isinstance(a, Decimal):
            raise TypeError('argument must be a Decimal')
        return True

    def is_normal(self, a):
        return _dec_arg(a).is_normal(self)

    def is_subnormal(self, a):
        return _dec_arg(a).is_subnormal(self)

    def same_quantum(self, a, b):
        return _dec_arg(a).same_quantum(b)

    def to_sci_string(self, a):
        return _dec_arg(a).__str__(context=self)

    def to_eng_string(self, a):
        return _dec_arg(a).to_eng_string(self)

    def to_integral_exact(self, a):
        return _dec_arg(a).to_integral_exact(context=self)

    def to_integral_value(self, a):
        return _dec_arg(a).to_integral_value(context=self)

    to_integral = to_integral_value

    def logical_invert(self, a):
        return _dec_arg(a).logical_invert(self)


def _dec_arg(a):
    if isinstance(a, Decimal):
        return a
    if isinstance(a, int):
        return Decimal(a)
    raise TypeError(f"conversion from {type(a).__name__} to Decimal is not supported")


def _working(ctx, prec, rounding):
    """A copy of ctx with `prec` and `rounding`, set past Context.__setattr__: copies of a
    valid context need no second check, the module's working precisions may exceed MAX_PREC,
    and an actor's fixed context does not bind the module's own intermediate arithmetic."""
    c = Context(None, None, ctx.Emin, ctx.Emax, ctx.capitals, ctx.clamp, ctx.flags, ctx.traps)
    object.__setattr__(c, 'prec', prec)
    object.__setattr__(c, 'rounding', rounding)
    return c


_current = [None]


def getcontext():
    """The current context (created from DefaultContext on first use)."""
    if _current[0] is None:
        _current[0] = DefaultContext.copy()
    return _current[0]


def setcontext(context):
    """Make `context` the current context."""
    if _fixed and (context.prec != _FIXED_PREC or context.rounding != ROUND_HALF_EVEN):
        raise ValueError(_FIXED_ERROR)
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
    return _make(Decimal, sign, coeff, exp)


def _special(sign, kind, payload=0):
    # kind: 'F' infinity, 'n' quiet NaN, 'N' signaling NaN
    return _make(Decimal, sign, payload, kind)


_DIGITS = frozenset('0123456789')


def _digit_run(text):
    if not text or text[0] == '_' or text[-1] == '_' or '__' in text:
        return None
    digits = text.replace('_', '')
    # String methods, not a per-character loop: a long literal costs little per digit.
    if not (digits.isascii() and digits.isdigit()):
        return None
    return digits


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
    # Leading zeros are dropped first: the PVM's int() refuses strings longer than its
    # 4096-bit cap allows, whatever their value.
    digits = ((intpart or '') + (frac or '')).lstrip('0') or '0'
    exp -= len(frac or '')
    if exp + len(digits) - 1 > MAX_EMAX or exp < _MIN_CONV_EXP:
        return _OUT_OF_RANGE
    if len(digits) > _INT_CAP_DIGITS:
        raise OverflowError("integer exceeds the PVM's 4096-bit limit")
    return _dec(sign, int(digits), exp)


# An exact conversion from str is InvalidOperation beyond CPython's exponent range: an
# adjusted exponent above MAX_EMAX, or an exponent below its MIN_ETINY (libmpdec's, with its
# MAX_PREC; ours is lower, LIMITATIONS 23).
_MIN_CONV_EXP = MIN_EMIN - (999999999999999999 - 1)
_OUT_OF_RANGE = object()


# More digits than this is certainly above 2**4096 (the PVM's int cap, LIMITATIONS 3).
_INT_CAP_DIGITS = 1234


_HASH_MODULUS = 2 ** 61 - 1
_HASH_10INV = pow(10, _HASH_MODULUS - 2, _HASH_MODULUS)


class Decimal:
    """Floating-point decimal number: sign, integer coefficient, exponent."""

    # The value lives in the native core (`_decimal`); these read it.
    __slots__ = ()
    _sign = _decimal._sign
    _int = _decimal._int
    _exp = _decimal._exp
    _is_special = _decimal._is_special

    def __new__(cls, value='0', context=None):
        if isinstance(value, Decimal):
            src = value
        elif isinstance(value, int):
            src = _dec(1 if value < 0 else 0, abs(int(value)), 0)
        elif isinstance(value, str):
            src = _parse(value)
            if src is None or src is _OUT_OF_RANGE:
                ctx = getcontext() if context is None else context
                ctx._signal([ConversionSyntax if src is None else InvalidOperation])
                src = _special(0, 'n')
        elif isinstance(value, float):
            (getcontext() if context is None else context)._signal([FloatOperation])
            src = Decimal._from_float(value)
        elif isinstance(value, (tuple, list)):
            src = Decimal._from_tuple(value)
        else:
            raise TypeError(f"conversion from {type(value).__name__} to Decimal is not "
                            "supported")
        return _make(cls, src._sign, src._int, src._exp)

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
        """format() with [[fill]align][sign][z][0][width][,][.precision][type], type one of
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
        if ftype in 'gG' and spec['precision'] == 0:
            spec['precision'] = 1
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
        # 'z' drops the sign of a zero; CPython tests 'F' before rounding, the rest after.
        sign = 0 if (spec['no_neg_0'] and (self if ftype == 'F' else d)._int == 0) \
            else d._sign
        return _format_number(sign, intpart, fracpart, leftdigits - dotplace, spec)

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
            raise TypeError('optional arg must be an integer')
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

    def _minmax(self, other, context, want_max, mag=False):
        """max/min (of magnitudes if mag): a quiet NaN loses to a number; numerically
        equal operands are ordered by sign, then exponent (libmpdec's rules)."""
        ctx = getcontext() if context is None else context
        other = _convert(other, True)
        conds = []
        if self.is_qnan() and not other.is_nan():
            r = _fix(other._sign, other._int, other._exp, ctx, conds) \
                if not other._is_special else other
        elif other.is_qnan() and not self.is_nan():
            r = _fix(self._sign, self._int, self._exp, ctx, conds) \
                if not self._is_special else self
        elif self.is_nan() or other.is_nan():
            r = _check_nans(self, other, ctx, conds)
        else:
            c = self.copy_abs()._cmp(other.copy_abs()) if mag else self._cmp(other)
            if c == 0:
                c = _cmp_numequal(self, other)
            pick = self if (c >= 0) == want_max else other
            if c == 0:
                pick = self if want_max else other
            r = pick if pick._is_special else \
                _fix(pick._sign, pick._int, pick._exp, ctx, conds)
        ctx._signal(conds)
        return r

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
        if self.is_nan():
            return self._plus(ctx)
        return self.copy_negate()._plus(ctx)

    def __abs__(self, round=True, context=None):
        ctx = getcontext() if context is None else context
        if not round:
            return self.copy_abs()
        if self.is_nan():
            return self._plus(ctx)
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
        if modulo is None:
            return self._binary(other, context, _pow)
        other = _convert(other, False)
        modulo = _convert(modulo, False)
        if other is NotImplemented or modulo is NotImplemented:
            return NotImplemented
        ctx = getcontext() if context is None else context
        conds = []
        r = _powmod(self, other, modulo, ctx, conds)
        ctx._signal(conds)
        return r

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
        if rounding is not None and rounding not in _ROUNDINGS:
            raise TypeError(_ROUNDING_ERROR)
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
        if self._is_special or self._exp >= 0 or self._int == 0:
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

    # ---- logarithms, exponentials and the remaining operations of the specification
    def exp(self, context=None):
        """e**self, correctly rounded (ROUND_HALF_EVEN)."""
        return self._unary(context, _exp)

    def ln(self, context=None):
        """Natural logarithm, correctly rounded (ROUND_HALF_EVEN)."""
        return self._unary(context, _ln)

    def log10(self, context=None):
        """Base-10 logarithm, correctly rounded (ROUND_HALF_EVEN); exact for powers of 10."""
        return self._unary(context, _log10)

    def logb(self, context=None):
        """The adjusted exponent as a Decimal."""
        return self._unary(context, _logb)

    def _unary(self, context, fn):
        ctx = getcontext() if context is None else context
        conds = []
        r = fn(self, ctx, conds)
        ctx._signal(conds)
        return r

    def _binary_strict(self, other, context, fn):
        other = _convert(other, True)
        ctx = getcontext() if context is None else context
        conds = []
        r = fn(self, other, ctx, conds)
        ctx._signal(conds)
        return r

    def compare_signal(self, other, context=None):
        """compare(), but any NaN operand signals InvalidOperation."""
        def fn(a, b, ctx, conds):
            if a.is_nan() or b.is_nan():
                nan = _check_nans(a, b, ctx, conds)
                if InvalidOperation not in conds:
                    conds.append(InvalidOperation)
                return nan
            return Decimal(a._cmp(b))
        return self._binary_strict(other, context, fn)

    def compare_total(self, other, context=None):
        """Total order on representations (signs, NaN payloads and exponents count)."""
        other = _convert(other, True)
        return Decimal(_total_key_cmp(self, other))

    def compare_total_mag(self, other, context=None):
        other = _convert(other, True)
        return Decimal(_total_key_cmp(self.copy_abs(), other.copy_abs()))

    def conjugate(self):
        return self

    def canonical(self):
        return self

    @property
    def real(self):
        return self

    @property
    def imag(self):
        return Decimal(0)

    def radix(self):
        return Decimal(10)

    def fma(self, other, third, context=None):
        """self * other + third with a single rounding."""
        other = _convert(other, True)
        third = _convert(third, True)
        ctx = getcontext() if context is None else context
        conds = []
        if self._is_special or other._is_special:
            product = _mul(self, other, ctx, conds)
        else:
            product = _dec(self._sign ^ other._sign, self._int * other._int,
                           self._exp + other._exp)
        r = _add(product, third, ctx, conds)
        ctx._signal(conds)
        return r

    def max_mag(self, other, context=None):
        return self._minmax(other, context, True, True)

    def min_mag(self, other, context=None):
        return self._minmax(other, context, False, True)

    def next_minus(self, context=None):
        """The largest representable number below self."""
        return self._unary(context, lambda a, ctx, conds: _next(a, ctx, conds, -1))

    def next_plus(self, context=None):
        """The smallest representable number above self."""
        return self._unary(context, lambda a, ctx, conds: _next(a, ctx, conds, 1))

    def next_toward(self, other, context=None):
        """The representable number next to self in the direction of other."""
        return self._binary_strict(other, context, _next_toward)

    def number_class(self, context=None):
        ctx = getcontext() if context is None else context
        if self.is_snan():
            return 'sNaN'
        if self.is_nan():
            return 'NaN'
        sign = '-' if self._sign else '+'
        if self.is_infinite():
            return sign + 'Infinity'
        if self._int == 0:
            return sign + 'Zero'
        if self.adjusted() < ctx.Emin:
            return sign + 'Subnormal'
        return sign + 'Normal'

    def remainder_near(self, other, context=None):
        """self - n * other, n the integer nearest self / other (ties to even)."""
        return self._binary_strict(other, context, _remainder_near)

    def rotate(self, other, context=None):
        """Rotate the coefficient's prec digits by other places (left if positive)."""
        return self._binary_strict(other, context, lambda a, b, ctx, conds:
                                   _shift_digits(a, b, ctx, conds, True))

    def shift(self, other, context=None):
        """Shift the coefficient's digits by other places (left if positive)."""
        return self._binary_strict(other, context, lambda a, b, ctx, conds:
                                   _shift_digits(a, b, ctx, conds, False))

    def same_quantum(self, other, context=None):
        other = _convert(other, True)
        if self._is_special or other._is_special:
            return (self.is_nan() and other.is_nan()) or \
                (self.is_infinite() and other.is_infinite())
        return self._exp == other._exp

    def scaleb(self, other, context=None):
        """self * 10**other for an integral other."""
        return self._binary_strict(other, context, _scaleb)

    def logical_and(self, other, context=None):
        return self._binary_strict(other, context, lambda a, b, ctx, conds:
                                   _logical(a, b, ctx, conds, lambda x, y: x & y))

    def logical_or(self, other, context=None):
        return self._binary_strict(other, context, lambda a, b, ctx, conds:
                                   _logical(a, b, ctx, conds, lambda x, y: x | y))

    def logical_xor(self, other, context=None):
        return self._binary_strict(other, context, lambda a, b, ctx, conds:
                                   _logical(a, b, ctx, conds, lambda x, y: x ^ y))

    def logical_invert(self, context=None):
        ctx = getcontext() if context is None else context
        ones = _dec(0, int('1' * ctx.prec), 0)
        conds = []
        r = _logical(self, ones, ctx, conds, lambda x, y: x ^ y)
        ctx._signal(conds)
        return r

    def __reduce__(self):
        return (self.__class__, (str(self),))

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self


def _parse_format(text):
    """Parse a format specification; raises ValueError('invalid format string')."""
    spec = {'fill': ' ', 'align': None, 'sign': '-', 'zeropad': False, 'alt': False,
            'no_neg_0': False,
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
    if i < n and text[i] == 'z':
        spec['no_neg_0'] = True
        i += 1
    if i < n and text[i] == '0':
        if spec['align'] is not None:
            raise ValueError('invalid format string')  # libmpdec: '0' excludes an align
        spec['zeropad'] = True
        i += 1
    if i < n and text[i] == '0':
        raise ValueError('invalid format string')  # a width never starts with 0
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
    if i != n or (spec['type'] == 'n' and spec['thousands_sep']):
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
    """(a // b, a % b) with Decimal semantics (the quotient truncates toward zero), each
    rounded into the context. `which` is 0 for the quotient alone, 1 for the remainder
    alone (the other part's conditions are then not raised), None for both."""
    sign = a._sign ^ b._sign
    nan = _special(0, 'n')
    if a._is_special or b._is_special:
        r = _check_nans(a, b, ctx, conds)
        if r is not None:
            return r, r
        if a.is_infinite():
            if b.is_infinite() or which != 0:
                conds.append(InvalidOperation)
            if b.is_infinite():
                return nan, nan
            return _special(sign, 'F'), nan
        q = _dec(sign, 0, 0)
        r = _fix(a._sign, a._int, a._exp, ctx, conds) if which != 0 else None
        return q, r
    if b._int == 0:
        if a._int == 0:
            conds.append(DivisionUndefined)
            return nan, nan
        # x // 0 signals DivisionByZero, x % 0 InvalidOperation, divmod both.
        if which != 1:
            conds.append(DivisionByZero)
        if which != 0:
            conds.append(InvalidOperation)
        return _special(sign, 'F'), nan
    ideal = min(a._exp, b._exp)
    expdiff = a.adjusted() - b.adjusted()
    if a._int == 0 or expdiff <= -2:
        q, rem = 0, a._int * 10 ** (a._exp - ideal)
    elif expdiff <= ctx.prec:
        x, y = a._int, b._int
        if a._exp >= b._exp:
            x *= 10 ** (a._exp - b._exp)
        else:
            y *= 10 ** (b._exp - a._exp)
        q, rem = divmod(x, y)
        if q >= 10 ** ctx.prec:
            conds.append(DivisionImpossible)
            return nan, nan
    else:
        conds.append(DivisionImpossible)
        return nan, nan
    qd = _fix(sign, q, 0, ctx, conds) if which is None or which == 0 else None
    if which == 2:  # remainder_near wants the exact remainder
        return None, _dec(a._sign, rem, ideal)
    rd = _fix(a._sign, rem, ideal, ctx, conds) if which != 0 else None
    return qd, rd


# ---- transcendental functions and powers
#
# exp, ln and log10 are correctly rounded (ROUND_HALF_EVEN, as libmpdec with its default
# "all correctly rounded" setting): an approximation with a proven error bound is computed
# at a working precision, and the precision grows until both ends of the error interval
# round to the same p digits (Ziv's strategy; the results are transcendental, never exactly
# halfway). Everything is integer fixed-point arithmetic: a value v is held as round(v*10**W).
# The non-integral power follows libmpdec's algorithm step by step (exp(y*ln(x)) at
# max(prec, digits of x) + 23 digits, then rounded to the context) because that is what
# CPython returns, including its double rounding under directed rounding modes.

# Digits beyond prec the correct-rounding loop may add (see _ziv). A value whose rounding
# needs more is within 10**-(prec+94) of a rounding boundary: not known to occur, and the cap
# keeps the intermediates of MAX_PREC operations below about 2,600 bits.
_MAX_ZIV_EXTRA = 100


def _round_half_even(c, e, p):
    """(coefficient, exponent) of c*10**e rounded half-even to exactly p digits (c > 0)."""
    n = _ndigits(c)
    if n <= p:
        return c * 10 ** (p - n), e - (p - n)
    q, _ = _round_digits(c, n - p, 0, ROUND_HALF_EVEN)
    e += n - p
    if q == 10 ** p:
        q //= 10
        e += 1
    return q, e


def _ziv(approx, p):
    """Correctly rounded p-digit (sign, coeff, exp) from approx(w) -> (sign, a, e, err),
    meaning the true value is sign * [a - err, a + err] * 10**e with a of at least w digits.
    The interval shrinks as w grows; a value not representable in p digits and not a
    halfway point is separated from every rounding boundary at some finite w. The loop
    is capped so a call's work stays bounded (no case this close is known for these
    sizes; the cap returns the nearest candidate)."""
    w = p + 6
    while True:
        sign, a, e, err = approx(w)
        lo = _round_half_even(a - err, e, p)
        if lo == _round_half_even(a + err, e, p) or w >= p + _MAX_ZIV_EXTRA:
            return sign, lo[0], lo[1]
        w = min(w + 12 + w // 2, p + _MAX_ZIV_EXTRA)


def _isqrt(n):
    """floor(sqrt(n)) by Newton's method from an overestimate."""
    if n == 0:
        return 0
    x = 1 << ((n.bit_length() + 1) // 2)
    while True:
        y = (x + n // x) // 2
        if y >= x:
            return x
        x = y


def _exp_fixed(r, w):
    """round(exp(r / 10**w) * 10**w) within 4 units, for |r| <= 1.2 * 10**w.
    r is halved 10 times (Taylor series of a value below 0.0012), then squared back;
    the squarings multiply the relative error by 2**10, covered by g guard digits."""
    g = 6 + _ndigits(w)
    one = 10 ** (w + g)
    y = (r * 10 ** g) >> 10
    total = one + y
    term = y
    n = 2
    while term:
        term = term * y // (one * n)
        total += term
        n += 1
    for _ in range(10):
        total = total * total // one
    half = 10 ** g // 2
    return (total + half) // 10 ** g


def _ln_fixed(m, w):
    """round(ln(m / 10**w) * 10**w) within 4 units, for 0.3 <= m / 10**w <= 10.5.
    Square roots bring the argument within 0.0005 of 1 (k of them, ln scales by 2**k),
    then ln(u) = 2 atanh((u-1)/(u+1)) converges quickly; g guard digits cover the 2**k
    amplification and the rounding of every term."""
    g = 8 + _ndigits(w)
    one = 10 ** (w + g)
    u = m * 10 ** g
    k = 0
    tol = one >> 11
    while abs(u - one) > tol:
        u = _isqrt(u * one)
        k += 1
    # z = (u - one) / (u + one) at scale `one`. When u is very close to one, z has few
    # significant digits, so the divisor is truncated to them (plus margin) instead of
    # multiplying by `one`: intermediates stay about twice z's length, not one's.
    keep = _ndigits(abs(u - one)) + 6
    cut = max(0, w + g - keep)
    z = (u - one) * 10 ** (w + g - cut) // ((u + one) // 10 ** cut)
    neg = z < 0
    z = abs(z)
    z2 = z * z // one
    total = z
    term = z
    n = 3
    while term:
        term = term * z2 // one
        total += term // n
        n += 2
    total <<= k + 1
    total = (total + 10 ** g // 2) // 10 ** g
    return -total if neg else total


def _scaled(c, e, w):
    """floor(c * 10**(e + w)) for c >= 0 (exact when e + w >= 0)."""
    s = e + w
    return c * 10 ** s if s >= 0 else c // 10 ** -s


def _ln10_fixed(w):
    return _ln_fixed(10 ** (w + 1), w)


def _ln_parts(c, e):
    """x = c*10**e as m * 10**a with m in [0.5, 5): returns a (m = c * 10**(e - a))."""
    a = e + _ndigits(c) - 1
    if str(c)[0] >= '5':
        a += 1
    return a


def _ln_approx(c, e):
    """approx(w) for ln(c * 10**e), c*10**e > 0 and != 1."""
    a = _ln_parts(c, e)

    def approx(w):
        if a == 0:
            # |ln m| >= |m - 1| / 5 on [0.5, 5): scale so the result keeps w digits.
            d = c - 10 ** -e if e < 0 else c - 1
            t = _ndigits(abs(d)) - 1 + (e if e < 0 else 0)
            ww = w + 2 - t
            v = _ln_fixed(_scaled(c, e, ww), ww)
            return (1 if v < 0 else 0), abs(v), -ww, 6
        ww = w + 2 + _ndigits(abs(a))
        v = a * _ln10_fixed(ww) + _ln_fixed(_scaled(c, e - a, ww), ww)
        return (1 if v < 0 else 0), abs(v), -ww, 4 * abs(a) + 6
    return approx


def _log10_approx(c, e):
    """approx(w) for log10(c * 10**e), not a power of ten."""
    a = _ln_parts(c, e)

    def approx(w):
        if a == 0:
            d = c - 10 ** -e if e < 0 else c - 1
            t = _ndigits(abs(d)) - 1 + (e if e < 0 else 0)
            ww = w + 3 - t
        else:
            ww = w + 3
        g = ww + 4
        # ln(10) only needs the result's relative precision, not its scale.
        h = w + 12
        q = _ln_fixed(_scaled(c, e - a, g), g) * 10 ** (h - 4) // _ln10_fixed(h)
        v = a * 10 ** ww + q
        return (1 if v < 0 else 0), abs(v), -ww, 3
    return approx


def _exp_approx(sign, c, e):
    """approx(w) for exp(+-c*10**e), |x| below 10**20 (larger ones are decided early)."""
    def approx(w):
        big = e + _ndigits(c) > 0  # |x| >= 1: take out a power of ten first
        if not big:
            ww = w + 2
            r = _scaled(c, e, ww)
            v = _exp_fixed(-r if sign else r, ww)
            return 0, v, -ww, 6
        # x = k*ln(10) + r with |r| <= 1.16: exp(x) = 10**k * exp(r).
        ww = w + 2
        extra = e + _ndigits(c) + 2  # digits of k, plus margin
        g = ww + extra
        ln10 = _ln10_fixed(g)
        x = _scaled(c, e, g)
        if sign:
            x = -x
        k = (2 * x + ln10) // (2 * ln10)
        r = (x - k * ln10) // 10 ** extra
        v = _exp_fixed(r, ww)
        return 0, v, k - ww, 12
    return approx


def _ctx_half_even(ctx):
    if ctx.rounding == ROUND_HALF_EVEN:
        return ctx
    return _working(ctx, ctx.prec, ROUND_HALF_EVEN)


def _finish_cr(approx, ctx, conds):
    """Round a transcendental result into the context (always half-even, Inexact and
    Rounded). A subnormal result has fewer digits available, so it is recomputed at that
    precision rather than rounded twice."""
    he = _ctx_half_even(ctx)
    sign, coeff, exp = _ziv(approx, ctx.prec)
    etiny = ctx.Emin - ctx.prec + 1
    if exp < etiny and exp + ctx.prec - 1 <= ctx.Emax:
        room = ctx.prec - (etiny - exp)
        if room >= 1:
            sign, coeff, exp = _ziv(approx, room)
        else:
            # Below half the smallest subnormal (or close to it): only the sign matters,
            # and a value in (0.5, 1) * 10**etiny must round up, so keep one sticky digit.
            coeff, exp = (1, etiny - 1) if room < 0 or coeff * 2 < 10 ** ctx.prec \
                else (6, etiny - 1)
    sub = []
    r = _fix(sign, coeff, exp, he, sub)
    extra = (Underflow, Inexact, Rounded) if Subnormal in sub else (Inexact, Rounded)
    for s in extra:
        if s not in sub:
            sub.append(s)
    conds.extend(sub)
    return r


def _exp(a, ctx, conds):
    if a._is_special:
        nan = _check_nans(a, a, ctx, conds)
        if nan is not None:
            return nan
        return _dec(0, 0, 0) if a._sign else _special(0, 'F')
    if a._int == 0:
        return _dec(0, 1, 0)
    adj = a.adjusted()
    p = ctx.prec
    if adj < -p - 2:
        # |x| < 10**(-p-2): exp(x) is 1 to well within half a unit of the p-th digit.
        return _finish_cr(lambda w: (0, 10 ** (w + 1), -(w + 1), 1), ctx, conds)
    # Certain overflow / underflow, decided from the exponent range alone.
    lim = max(ctx.Emax + 2, -(ctx.Emin - p) + 2)
    if adj >= 20 or a._cmp(Decimal(lim * 3)) > 0 or a._cmp(Decimal(-lim * 3)) < 0:
        tiny = a._sign == 1
        return _finish_cr(lambda w: (0, 10 ** w, (ctx.Emin - 3 * p - 10) if tiny
                                     else ctx.Emax + 10, 1), ctx, conds)
    return _finish_cr(_exp_approx(a._sign, a._int, a._exp), ctx, conds)


def _ln(a, ctx, conds):
    if a._is_special:
        nan = _check_nans(a, a, ctx, conds)
        if nan is not None:
            return nan
        if a._sign:
            conds.append(InvalidOperation)
            return _special(0, 'n')
        return _special(0, 'F')
    if a._int == 0:
        return _special(1, 'F')
    if a._sign:
        conds.append(InvalidOperation)
        return _special(0, 'n')
    if a._cmp(_dec(0, 1, 0)) == 0:
        return _dec(0, 0, 0)
    return _finish_cr(_ln_approx(a._int, a._exp), ctx, conds)


def _log10(a, ctx, conds):
    if a._is_special or a._int == 0 or a._sign:
        return _ln(a, ctx, conds)
    c = a._int
    s = str(c)
    if s[0] == '1' and s.count('0') == len(s) - 1:
        # Exact power of ten: the integer log, rounded into the context.
        adj = a.adjusted()
        return _fix(1 if adj < 0 else 0, abs(adj), 0, ctx, conds)
    return _finish_cr(_log10_approx(c, a._exp), ctx, conds)


def _logb(a, ctx, conds):
    if a._is_special:
        nan = _check_nans(a, a, ctx, conds)
        if nan is not None:
            return nan
        return _special(0, 'F')
    if a._int == 0:
        conds.append(DivisionByZero)
        return _special(1, 'F')
    adj = a.adjusted()
    return _fix(1 if adj < 0 else 0, abs(adj), 0, ctx, conds)


def _is_integral(d):
    return not d._is_special and (d._exp >= 0 or d._int % 10 ** -d._exp == 0)


def _exp_digits(n):
    """Number of decimal digits of |n| (libmpdec's exponent width)."""
    return _ndigits(abs(n))


def _pow_bounds(x, y, rsign, ctx, conds):
    """libmpdec's early overflow/underflow test for x**y (|x| != 1, y != 0): a lower
    bound of log10|log10|x|| + log10|y| compared with the width of Emax or Etiny."""
    lb_theta = y.adjusted()
    t = x.adjusted()
    if t > 0:
        lb_zeta = _exp_digits(t) - 1
    elif t < -1:
        lb_zeta = _exp_digits(t + 1) - 1
    else:
        u = _add(x.copy_abs(), _dec(0, 1, 0), _MAXCTX, [], True).adjusted()
        lb_zeta = u - 2 if t == 0 else u - 1
    if (t < 0) ^ (y._sign == 1) == 0:
        if _exp_digits(ctx.Emax) < lb_zeta + lb_theta:
            return _fix(rsign, 1, _EXP_INF, ctx, conds)
    else:
        etiny = ctx.Etiny()
        if _exp_digits(etiny) < lb_zeta + lb_theta:
            return _fix(rsign, 1, etiny - 1, ctx, conds)
    return None


def _pow_int(base, y, rsign, ctx, conds):
    """Integral power as libmpdec: binary powering at prec + digits of y + 2 digits,
    half-even, every step rounded; then rounded to the context."""
    # Working precision may exceed MAX_PREC: _working sets it past the validation.
    work = _working(ctx, ctx.prec + _ndigits(y._int) + y._exp + 2 + (1 if y._sign else 0),
                    ROUND_HALF_EVEN)
    work.clamp = 0
    n = abs(int(y))
    if y._sign:
        tbase = _div(_dec(0, 1, 0), base, work, conds)
    else:
        tbase = base
    wconds = []
    if n < 1 << 64:
        result = tbase
        for bit in bin(n)[3:]:
            result = _mul(result, result, work, wconds)
            if bit == '1':
                result = _mul(result, tbase, work, wconds)
            if result._is_special or (result._int == 0 and Clamped in wconds):
                break
    else:
        result = _dec(0, 1, 0)
        while n:
            if n & 1:
                result = _mul(result, tbase, work, wconds)
                if result._is_special or (result._int == 0 and Clamped in wconds):
                    break
            tbase = _mul(tbase, tbase, work, wconds)
            n >>= 1
    conds.extend(wconds)
    if result._is_special:
        return _fix(rsign, 1, _EXP_INF, ctx, conds)
    return _fix(rsign, result._int, result._exp, ctx, conds)


def _pow_real(base, y, ctx, conds):
    """exp(y * ln(base)) with libmpdec's working precision and roundings."""
    work = _working(_MAXCTX, max(_ndigits(base._int), ctx.prec) + 4 + 19, ROUND_HALF_EVEN)
    wconds = []
    r = _ln(base, work, wconds)
    r = _mul(r, y, work, wconds)
    econds = []
    r = _exp(r, work, econds)
    conds.extend(econds)
    conds.extend(c for c in wconds if _signal_of(c) in (InvalidOperation, DivisionByZero,
                                                         Overflow, Underflow))
    conds.extend((Inexact, Rounded))
    return r


_EXP_INF = 10 ** 19  # an exponent above every context's Emax (libmpdec's MPD_EXP_INF)


def _pow(a, b, ctx, conds):
    if a._is_special or b._is_special:
        nan = _check_nans(a, b, ctx, conds)
        if nan is not None:
            return nan
    intexp = _is_integral(b)
    rsign = 1 if a._sign and intexp and int(b) % 2 else 0
    if a.is_zero():
        if b.is_zero():
            conds.append(InvalidOperation)
            return _special(0, 'n')
        if b._sign:
            return _special(rsign, 'F')
        return _dec(rsign, 0, 0)
    if a._sign and (not intexp or b._is_special):
        conds.append(InvalidOperation)
        return _special(0, 'n')
    if b._is_special:
        c = a._cmp(_dec(0, 1, 0))
        if c == 0:
            conds.extend((Inexact, Rounded))
            return _dec(rsign, 10 ** (ctx.prec - 1), 1 - ctx.prec)
        if c * (-1 if b._sign else 1) < 0:
            return _dec(rsign, 0, 0)
        return _special(rsign, 'F')
    if a._is_special:
        if b.is_zero():
            return _dec(rsign, 1, 0)
        if b._sign:
            return _dec(rsign, 0, 0)
        return _special(rsign, 'F')
    if b.is_zero():
        return _dec(rsign, 1, 0)
    if a.copy_abs()._cmp(_dec(0, 1, 0)) == 0:
        # A power of one: exact for integral exponents (1.0**3 == 1.000), else inexact.
        if intexp:
            if b._sign:
                return _dec(rsign, 1, 0)
            shift = int(b) * -a._exp
            if shift > ctx.prec - 1:
                shift = ctx.prec - 1
                conds.append(Rounded)
        else:
            shift = ctx.prec - 1
            conds.extend((Inexact, Rounded))
        return _dec(rsign, 10 ** shift, -shift)
    r = _pow_bounds(a, b, rsign, ctx, conds)
    if r is not None:
        return r
    if intexp:
        return _pow_int(a, b, rsign, ctx, conds)
    r = _pow_real(a, b, ctx, conds)
    if not r._is_special and r._cmp(_dec(0, 1, 0)) == 0:
        r = _dec(0, 10 ** (ctx.prec - 1), 1 - ctx.prec)
    if r._is_special:
        return _fix(0, 1, _EXP_INF, ctx, conds)
    return _fix(r._sign, r._int, r._exp, ctx, conds)


def _powmod(a, b, m, ctx, conds):
    """Three-argument pow: exact modular exponentiation of integral operands."""
    if a._is_special or b._is_special or m._is_special:
        for x in (a, b, m):
            if x.is_snan():
                conds.append(InvalidOperation)
                return _special(x._sign, 'n', x._int)._fix_nan(ctx)
        for x in (a, b, m):
            if x.is_qnan():
                return x._fix_nan(ctx)
        conds.append(InvalidOperation)
        return _special(0, 'n')
    if not (_is_integral(a) and _is_integral(b) and _is_integral(m)) or m._int == 0 \
            or _ndigits(m._int) + m._exp > ctx.prec:
        conds.append(InvalidOperation)
        return _special(0, 'n')
    sign = 1 if a._sign and int(b) % 2 else 0
    if b._int == 0:
        if a._int == 0:
            conds.append(InvalidOperation)
            return _special(0, 'n')
        return _dec(sign, 0 if abs(int(m)) == 1 else 1, 0)
    if b._sign:
        conds.append(InvalidOperation)
        return _special(0, 'n')
    if a._int == 0:
        return _dec(sign, 0, 0)
    mod = abs(int(m))
    base = a._int % mod
    # The operands' exponents stay symbolic: 10**exp is reduced modulo mod (cost
    # proportional to the exponent's value, as libmpdec's loop).
    if a._exp > 0:
        base = base * pow(10, a._exp, mod) % mod
    exp_coeff = b._int
    for _ in range(max(b._exp, 0)):
        base = pow(base, 10, mod)
    if b._exp < 0:
        exp_coeff //= 10 ** -b._exp
    return _dec(sign, pow(base, exp_coeff, mod), 0)


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
    return _fix(0, n, e, _working(ctx, ctx.prec, ROUND_HALF_EVEN), conds)


DefaultContext = Context(prec=28, rounding=ROUND_HALF_EVEN,
                         traps=[DivisionByZero, Overflow, InvalidOperation])
BasicContext = Context(prec=9, rounding=ROUND_HALF_UP,
                       traps=[DivisionByZero, Overflow, InvalidOperation, Clamped, Underflow])
ExtendedContext = Context(prec=9, rounding=ROUND_HALF_EVEN, traps=[])


def _cmp_numequal(a, b):
    """Order of numerically equal operands: + above -, then by exponent."""
    if a._sign != b._sign:
        return -1 if a._sign else 1
    if a._exp == b._exp:
        return 0
    r = -1 if a._exp < b._exp else 1
    return -r if a._sign else r


def _total_key_cmp(a, b):
    """compare_total: -1 < +1 by sign, then finite < Infinity < sNaN < NaN (reversed for
    negatives); equal finite values order by exponent, NaNs by payload."""
    if a._sign != b._sign:
        return -1 if a._sign else 1

    def kind(x):
        if not x._is_special:
            return 0
        return {'F': 1, 'N': 2, 'n': 3}[x._exp]
    ka, kb = kind(a), kind(b)
    if ka != kb:
        r = -1 if ka < kb else 1
    elif ka == 0:
        r = a.copy_abs()._cmp(b.copy_abs())
        if r == 0:
            r = (a._exp > b._exp) - (a._exp < b._exp)
    elif ka == 1:
        r = 0
    else:
        r = (a._int > b._int) - (a._int < b._int)
    return -r if a._sign else r


def _next(a, ctx, conds, direction):
    """next_plus (direction 1) / next_minus (-1) as libmpdec: only InvalidOperation is
    ever signalled."""
    if a._is_special:
        nan = _check_nans(a, a, ctx, conds)
        if nan is not None:
            return nan
        if (a._sign == 1) == (direction < 0):
            return a
        return _dec(a._sign, 10 ** ctx.prec - 1, ctx.Etop())
    work = _working(ctx, ctx.prec, ROUND_CEILING if direction > 0 else ROUND_FLOOR)
    sub = []
    r = _fix(a._sign, a._int, a._exp, work, sub)
    if Inexact in sub:
        return r
    tiny = _dec(0, 1, ctx.Etiny() - 1)
    return _add(a, tiny, work, [], direction < 0)


def _next_toward(a, b, ctx, conds):
    nan = _check_nans(a, b, ctx, conds) if (a._is_special or b._is_special) else None
    if nan is not None:
        return nan
    c = a._cmp(b)
    if c == 0:
        return a._with_sign(b._sign)
    r = _next(a, ctx, conds, 1 if c < 0 else -1)
    if r._is_special:
        conds.extend((Overflow, Inexact, Rounded))
    elif r.adjusted() < ctx.Emin:
        conds.extend((Underflow, Subnormal, Inexact, Rounded))
        if r._int == 0:
            conds.append(Clamped)
    return r


def _remainder_near(a, b, ctx, conds):
    if a._is_special or b._is_special:
        nan = _check_nans(a, b, ctx, conds)
        if nan is not None:
            return nan
        if a.is_infinite():
            conds.append(InvalidOperation)
            return _special(0, 'n')
        return _fix(a._sign, a._int, a._exp, ctx, conds)
    if b._int == 0:
        conds.append(DivisionUndefined if a._int == 0 else InvalidOperation)
        return _special(0, 'n')
    _, r = _divmod(a, b, ctx, conds, 2)
    if r._is_special or r._int == 0:
        return r if r._is_special else _fix(r._sign, 0, r._exp, ctx, conds)
    if -1 <= b.adjusted() - r.adjusted() <= 1:
        # The truncated quotient (small: the division was possible).
        e = min(a._exp, b._exp)
        q = (a._int * 10 ** (a._exp - e)) // (b._int * 10 ** (b._exp - e))
        ideal = min(r._exp, b._exp)
        rv = r._int * 10 ** (r._exp - ideal)
        bv = b._int * 10 ** (b._exp - ideal)
        # r has a's sign; moving one step of b toward zero flips it.
        t = rv - bv
        if abs(t) < rv or (abs(t) == rv and q % 2):
            if q == 10 ** ctx.prec - 1:
                conds.append(DivisionImpossible)
                return _special(0, 'n')
            sign = r._sign ^ (1 if t < 0 else 0)
            return _fix(sign, abs(t), ideal, ctx, conds)
    return _fix(r._sign, r._int, r._exp, ctx, conds)


def _int_operand(b, ctx, conds, limit):
    """The integral value of an exponent-0 operand within [-limit, limit], else None."""
    if b._is_special or b._exp != 0 or b._int > limit:
        conds.append(InvalidOperation)
        return None
    return -b._int if b._sign else b._int


def _shift_digits(a, b, ctx, conds, rotate):
    if a._is_special or b._is_special:
        nan = _check_nans(a, b, ctx, conds)
        if nan is not None:
            return nan
    n = _int_operand(b, ctx, conds, ctx.prec)
    if n is None:
        return _special(0, 'n')
    if a._is_special:
        return a
    p = ctx.prec
    c = a._int % 10 ** p
    if rotate:
        n %= p
        c = c * 10 ** n % 10 ** p + c // 10 ** (p - n)
    elif n >= 0:
        c = c * 10 ** n % 10 ** p
    else:
        c //= 10 ** -n
    return _dec(a._sign, c, a._exp)


def _scaleb(a, b, ctx, conds):
    if a._is_special or b._is_special:
        nan = _check_nans(a, b, ctx, conds)
        if nan is not None:
            return nan
    n = _int_operand(b, ctx, conds, 2 * (ctx.Emax + ctx.prec))
    if n is None:
        return _special(0, 'n')
    if a._is_special:
        return a
    return _fix(a._sign, a._int, a._exp + n, ctx, conds)


def _logical_digits(d, p):
    if d._is_special or d._sign or d._exp != 0:
        return None
    s = str(d._int)
    if s.strip('01'):
        return None
    return s[-p:].rjust(p, '0')  # every digit must be 0/1; only the last prec count


def _logical(a, b, ctx, conds, op):
    x = _logical_digits(a, ctx.prec)
    y = _logical_digits(b, ctx.prec)
    if x is None or y is None:
        conds.append(InvalidOperation)
        return _special(0, 'n')
    bits = ''.join('1' if op(i == '1', j == '1') else '0' for i, j in zip(x, y))
    return _dec(0, int(bits), 0)


_MAXCTX = Context(prec=MAX_PREC, rounding=ROUND_HALF_EVEN, Emax=MAX_EMAX, Emin=MIN_EMIN,
                  traps=[])


def _ctx_binary(a, b, name, ctx):
    r = getattr(_dec_arg(a), name)(_dec_arg(b), ctx)
    return r


def _ctx_method(name, nargs):
    """A Context method forwarding to Decimal.<name>(..., context=ctx)."""
    if nargs == 1:
        def method(self, a):
            return getattr(_dec_arg(a), name)(context=self)
    else:
        def method(self, a, b):
            return getattr(_dec_arg(a), name)(_dec_arg(b), context=self)
    method.__name__ = name
    method.__qualname__ = 'Context.' + name
    return method


for _name in ('exp', 'ln', 'log10', 'logb', 'next_minus', 'next_plus', 'normalize', 'sqrt'):
    setattr(Context, _name, _ctx_method(_name, 1))
for _name in ('compare', 'compare_signal', 'compare_total', 'compare_total_mag', 'max',
              'max_mag', 'min', 'min_mag', 'next_toward', 'quantize', 'remainder_near',
              'rotate', 'scaleb', 'shift', 'logical_and', 'logical_or', 'logical_xor'):
    setattr(Context, _name, _ctx_method(_name, 2))
for _name in ('is_finite', 'is_infinite', 'is_nan', 'is_qnan', 'is_signed', 'is_snan',
              'is_zero'):
    setattr(Context, _name, (lambda n: lambda self, a: getattr(_dec_arg(a), n)())(_name))
del _name


# The native core takes the hot methods (construction, arithmetic, comparisons, hash, str,
# quantize, ** with an integral exponent) in their common case, finite operands and a plain Context, and hands every other
# case to the Python method it replaces, registered here.
_NATIVE = ('__new__', '__add__', '__radd__', '__sub__', '__rsub__', '__mul__', '__rmul__',
           '__truediv__', '__rtruediv__', '__floordiv__', '__rfloordiv__', '__mod__',
           '__rmod__', '__eq__', '__ne__', '__lt__', '__le__', '__gt__', '__ge__',
           '__hash__', '__str__', '__repr__', 'quantize', '__pow__')
_decimal.init(Decimal, Context, _current, getcontext, tuple(_SIGNALS + _CONDITIONS[1:]),
              {_name: getattr(Decimal, _name) for _name in _NATIVE})
for _name in _NATIVE[1:]:
    setattr(Decimal, _name, getattr(_decimal, _name))
Decimal.__new__ = staticmethod(_decimal.__new__)
del _name

# Actor mode. `pvm_host` imports exactly when a chain host is attached; no reference to it
# is kept. Set last, so the contexts above were built with their own precisions.
try:
    import pvm_host
except ImportError:
    pass
else:
    del pvm_host

    # Defined here, so scripts do not pay for building a class only actors use.
    class _Unavailable:
        """BasicContext and ExtendedContext as an actor sees them: prec 9 contexts, which the
        fixed context forbids, so every use (as an operation's context, in setcontext or
        localcontext, reading or setting a field, copy) raises the fixed-context error."""

        def __init__(self, name):
            object.__setattr__(self, '_name', name)

        def __getattr__(self, attr):
            raise ValueError(f'decimal.{self._name} is not available: ' + _FIXED_ERROR)

        def __setattr__(self, attr, value):
            raise ValueError(f'decimal.{self._name} is not available: ' + _FIXED_ERROR)

        def __repr__(self):
            return f'<decimal.{self._name}: not available to actors>'

    _fixed = True
    BasicContext = _Unavailable('BasicContext')
    ExtendedContext = _Unavailable('ExtendedContext')
