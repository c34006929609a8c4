# Regression cases found by the adversarial search (`search.rs`; PVM README, "Adversarial
# search"), in the format of `cases.py`: each header names the finding and the ratio it had when
# found, before the fix that brought it down. `calibrate` measures them with the other cases.

### search | exception created | `ValueError("x")` built and dropped; found at 12x (uncharged construction)
while True:
    ValueError("x")

### search | VM error | `NameError` from a failed lookup, caught; found at 11x
while True:
    try:
        undefined_name
    except NameError:
        pass

### search | refused power | `10 ** 100000` refused with OverflowError, caught; found at 7.1x
while True:
    try:
        10 ** 100000
    except OverflowError:
        pass

### search | type() | `type("X", (), {"z": 1})`; found at 8.4x (no class charge outside `class`)
while True:
    X = type("X", (), {"z": 1})

### search | metaclass | a class made through a metaclass's `super().__new__`; found at 10.1x
class Meta(type):
    def __new__(mcls, name, bases, ns, **kw):
        cls = super().__new__(mcls, name, bases, ns)
        cls.registry = []
        return cls
while True:
    class A(metaclass=Meta, flag=7):
        def __init__(self, v):
            self.v = v
    A(1)

### search | Enum class | `class Color(Enum)` with three members; found at 5-7x
from enum import Enum, auto
while True:
    class Color(Enum):
        RED = 1
        GREEN = 2
        BLUE = auto()

### search | float repr | `repr(1.7976931348623157e308)`; found at 8x (shortest-repr search uncharged)
x = 1.7976931348623157e308
while True:
    repr(x)

### search | complex repr | `print` of complex literals; found at 9.4x
while True:
    repr(1.5e300j)
    repr(1 - 2j)
    str(-0.0 + 0j)
