"""Modules: import forms, module attributes, __name__, from-import of names, aliases and ImportError."""
import math
import math as m
from math import sqrt, pi as PI
from collections import OrderedDict, namedtuple
print(__name__, math.__name__, m is math, sqrt(16.0), round(PI, 5), type(math).__name__)
print(hasattr(math, "tau"), math.floor(2.7), m.ceil(2.1), "sqrt" in dir(math))
P = namedtuple("P", "x y")
print(P(1, 2), OrderedDict(a=1))
def local_import():
    import json
    return json.dumps({"k": [1, 2]})
print(local_import())
try:
    import no_such_module_xyz
except ImportError as e:
    print(isinstance(e, ImportError), e)
try:
    from math import no_such_name
except ImportError as e:
    print(type(e).__name__, str(e).startswith("cannot import name 'no_such_name' from 'math'"))
import math, json
print(json.loads("[1]"), math.gcd(12, 18))
print(isinstance(math, type(json)), math.__name__ == "math")
