# Methods of native classes called as `obj.m(args)` (the CallMethod site's unbound call,
# README "Native methods are called unbound"), beside the same methods bound first and
# called later: both must keep charging what `call_method`'s general path charged.
import hashlib
import re
from decimal import Decimal

cent = Decimal("0.01")
total = Decimal(0)
for i in range(200):
    d = Decimal(i) / 7
    total += d.quantize(cent)
    q = d.quantize
    total += q(cent)
print(total)

pat = re.compile(r"(\w+)=(\d+)")
found = 0
for line in ["a=1 b=22", "ccc=333", "none here"] * 50:
    m = pat.search(line)
    if m:
        found += int(m.group(2))
    found += len(pat.findall(line))
print(found)

h = hashlib.sha256()
for i in range(100):
    h.update(b"x" * i)
print(h.hexdigest())
