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

### search | dataclass field | `dataclasses.field(default=5, repr=False)`; found at 5.1x (after the fixes above)
from dataclasses import field
while True:
    field(default=5, repr=False)

### search | slot store | `s.a = 1` on a `__slots__` instance; 4-5x the plain loop (the slot check walked the MRO's `__slots__` each time; now fixed at class creation)
class S:
    __slots__ = ("a",)
s = S()
while True:
    s.a = 1

### search | keyword-only defaults | a call binding 8 keyword-only parameters, 6 by default; found at 5x (a kwargs dict built for every such call, now only for `**kwargs`)
def f(*, a=1, b=2, c=3, d=4, e=5, f=6, g=7, h=8):
    return a
while True:
    f(a=5, b=6)

### search | keyword-only defaults, quadratic | `f()` on 300 keyword-only parameters with defaults; did not stop at 2,000 (unpriced quadratic lookup)
def f(*, a0=0, a1=0, a2=0, a3=0, a4=0, a5=0, a6=0, a7=0, a8=0, a9=0, a10=0, a11=0, a12=0, a13=0, a14=0, a15=0, a16=0, a17=0, a18=0, a19=0, a20=0, a21=0, a22=0, a23=0, a24=0, a25=0, a26=0, a27=0, a28=0, a29=0, a30=0, a31=0, a32=0, a33=0, a34=0, a35=0, a36=0, a37=0, a38=0, a39=0, a40=0, a41=0, a42=0, a43=0, a44=0, a45=0, a46=0, a47=0, a48=0, a49=0, a50=0, a51=0, a52=0, a53=0, a54=0, a55=0, a56=0, a57=0, a58=0, a59=0, a60=0, a61=0, a62=0, a63=0, a64=0, a65=0, a66=0, a67=0, a68=0, a69=0, a70=0, a71=0, a72=0, a73=0, a74=0, a75=0, a76=0, a77=0, a78=0, a79=0, a80=0, a81=0, a82=0, a83=0, a84=0, a85=0, a86=0, a87=0, a88=0, a89=0, a90=0, a91=0, a92=0, a93=0, a94=0, a95=0, a96=0, a97=0, a98=0, a99=0, a100=0, a101=0, a102=0, a103=0, a104=0, a105=0, a106=0, a107=0, a108=0, a109=0, a110=0, a111=0, a112=0, a113=0, a114=0, a115=0, a116=0, a117=0, a118=0, a119=0, a120=0, a121=0, a122=0, a123=0, a124=0, a125=0, a126=0, a127=0, a128=0, a129=0, a130=0, a131=0, a132=0, a133=0, a134=0, a135=0, a136=0, a137=0, a138=0, a139=0, a140=0, a141=0, a142=0, a143=0, a144=0, a145=0, a146=0, a147=0, a148=0, a149=0, a150=0, a151=0, a152=0, a153=0, a154=0, a155=0, a156=0, a157=0, a158=0, a159=0, a160=0, a161=0, a162=0, a163=0, a164=0, a165=0, a166=0, a167=0, a168=0, a169=0, a170=0, a171=0, a172=0, a173=0, a174=0, a175=0, a176=0, a177=0, a178=0, a179=0, a180=0, a181=0, a182=0, a183=0, a184=0, a185=0, a186=0, a187=0, a188=0, a189=0, a190=0, a191=0, a192=0, a193=0, a194=0, a195=0, a196=0, a197=0, a198=0, a199=0, a200=0, a201=0, a202=0, a203=0, a204=0, a205=0, a206=0, a207=0, a208=0, a209=0, a210=0, a211=0, a212=0, a213=0, a214=0, a215=0, a216=0, a217=0, a218=0, a219=0, a220=0, a221=0, a222=0, a223=0, a224=0, a225=0, a226=0, a227=0, a228=0, a229=0, a230=0, a231=0, a232=0, a233=0, a234=0, a235=0, a236=0, a237=0, a238=0, a239=0, a240=0, a241=0, a242=0, a243=0, a244=0, a245=0, a246=0, a247=0, a248=0, a249=0, a250=0, a251=0, a252=0, a253=0, a254=0, a255=0, a256=0, a257=0, a258=0, a259=0, a260=0, a261=0, a262=0, a263=0, a264=0, a265=0, a266=0, a267=0, a268=0, a269=0, a270=0, a271=0, a272=0, a273=0, a274=0, a275=0, a276=0, a277=0, a278=0, a279=0, a280=0, a281=0, a282=0, a283=0, a284=0, a285=0, a286=0, a287=0, a288=0, a289=0, a290=0, a291=0, a292=0, a293=0, a294=0, a295=0, a296=0, a297=0, a298=0, a299=0):
    return 0
while True:
    f()

### search | re.compile | `re.compile(r"(?P<k>[a-z]+)=(?P<v>\d+)")` in a loop; found at 23x the median on a loaded machine, 5.7x the plain loop quiet (compile priced at 1 step a unit)
import re
while True:
    re.compile(r"(?P<k>[a-z]+)=(?P<v>\d+)")

### search | str % / bytes % | 100,000-char format without a field, failing at its end; seed 9 --prelude, did not stop (the format was scanned unpaid)
s = "ab" * 50000
b = b"ab" * 50000
while True:
    try:
        s % 3
    except TypeError:
        pass
    try:
        b % 3
    except TypeError:
        pass

### search | fill to the memory limit | `set(range(10**11))`, `list(range(10**11))` and their mutants (seed 10, --prelude) ran to the memory limit at 10-15x the plain loop per cycle (growth unpaid); the loop form builds 200,000-member frozensets
while True:
    x = frozenset(range(200000))
    x = None
