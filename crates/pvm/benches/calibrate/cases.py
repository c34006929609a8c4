# Calibration cases for `benches/calibrate/main.rs` (see the PVM README, "Calibration").
#
# Each case starts with a header line `### group | op | worst-case input` and runs until the
# cycle budget stops it (OutOfCycles): a little setup, then a `while True:` loop repeating the
# operation on the input that makes it do the most work per cycle charged, chosen by reading
# its implementation. Setup must be cheap next to the loop and memory must stay bounded.

### opcode | loop | `while True: i += 1` (the plain loop)
i = 0
while True:
    i += 1

### opcode | call | one-argument Python function
def f(x):
    return x
while True:
    f(1)

### opcode | method call | bound method of a plain instance
class C:
    def m(self, x):
        return x
c = C()
while True:
    c.m(1)

### opcode | attribute | load and store on an instance
class C:
    pass
c = C()
c.x = 0
while True:
    c.x = c.x + 1

### opcode | raise/except | raise and catch ValueError
while True:
    try:
        raise ValueError("x")
    except ValueError:
        pass

### opcode | generator | resume a generator
def g():
    while True:
        yield 1
it = g()
while True:
    next(it)

### opcode | class | `class C: pass`
while True:
    class C:
        pass

### opcode | closure | make a closure
while True:
    y = 1
    f = lambda: y

### opcode | import | cached `import math`
while True:
    import math

### opcode | comprehension | `[x for x in r]`, 8 items
r = range(8)
while True:
    [x for x in r]

### opcode | with | a plain context manager
class M:
    def __enter__(self):
        return self
    def __exit__(self, *a):
        return False
m = M()
while True:
    with m:
        pass

### opcode | unpack | `a, b, *c = t` with 20 items
t = tuple(range(20))
while True:
    a, b, *c = t

### opcode | call kwargs | `f(*args, **kw)` with 10 + 10
def f(*a, **k):
    return a
args = list(range(10))
kw = {"k%d" % i: i for i in range(10)}
while True:
    f(*args, **kw)

### hash table | dict insert, colliding ints | `d[i * (2**61 - 1)] = 0`, 3,000 keys hashing to 0
M = 2**61 - 1
while True:
    d = {}
    for i in range(3000):
        d[i * M] = 0

### hash table | set add/discard, colliding ints | 2,000 members hashing to 0, add+discard a new one
M = 2**61 - 1
s = {i * M for i in range(2000)}
k = 5000 * M
while True:
    s.add(k)
    s.discard(k)

### hash table | dict lookup miss, colliding ints | 3,000 keys hashing to 0, look up a missing one
M = 2**61 - 1
d = dict.fromkeys([i * M for i in range(3000)])
k = 9999 * M
while True:
    k in d

### hash table | set lookup, ints equal mod 2**61-1 | 3,000 keys `i * P + 7`
M = 2**61 - 1
s = {i * M + 7 for i in range(3000)}
while True:
    (4000 * M + 7) in s

### hash table | set lookup, colliding tuples | 2,000 `(i * (2**61-1),)`
M = 2**61 - 1
s = {(i * M,) for i in range(2000)}
k = (9999 * M,)
while True:
    k in s

### hash table | set lookup, colliding frozensets | 1,000 `frozenset({i * (2**61-1)})`
M = 2**61 - 1
s = {frozenset({i * M}) for i in range(1000)}
k = frozenset({9999 * M})
while True:
    k in s

### hash table | dict lookup, -1/-2 and float/int | keys -1, -2, 1.0, True...
d = {-1: 1, -2: 2, 1.0: 3, 2: 4}
while True:
    d[-2]
    d[True]

### hash table | dict copy / update | 2,000-key dict
d = {i: i for i in range(2000)}
while True:
    e = dict(d)
    e.update(d)

### hash table | set algebra | `a | b`, `a & b`, `a - b` on 2,000 ints
a = set(range(2000))
b = set(range(1000, 3000))
while True:
    a | b
    a & b
    a - b

### hash table | dict from colliding str keys | 2,000 distinct short strings
ks = ["k%d" % i for i in range(2000)]
while True:
    d = dict.fromkeys(ks)

### sequence | list.insert(0) | 20,000-item list
l = list(range(20000))
while True:
    l.insert(0, 1)
    l.pop(0)

### sequence | list.remove / index / count | 20,000 items, target at the end
l = list(range(20000))
while True:
    l.index(19999)
    l.count(19999)
    l.remove(19999)
    l.append(19999)

### sequence | `in` list miss | 20,000 ints
l = list(range(20000))
while True:
    -1 in l

### sequence | slice assignment | `l[0:0] = [1]`, `del l[0]` on 20,000 items
l = list(range(20000))
while True:
    l[0:0] = [1]
    del l[0]

### sequence | list == | two equal 20,000-item lists
a = list(range(20000))
b = list(range(20000))
while True:
    a == b

### sequence | sort | 5,000 ints, reversed runs
while True:
    l = [(i * 7919) % 5000 for i in range(5000)]
    l.sort()

### sequence | sorted with key | 2,000 strs, key=len
l = ["x" * (i % 50) for i in range(2000)]
while True:
    sorted(l, key=len)

### sequence | min / max / sum | 20,000 ints
l = list(range(20000))
while True:
    min(l)
    max(l)
    sum(l)

### sequence | list copy / concat / repeat | 10,000 items
l = list(range(10000))
while True:
    l[:]
    l + l
    l * 2

### sequence | reverse / extend | 20,000 items
l = list(range(20000))
while True:
    l.reverse()
    m = []
    m.extend(l)

### sequence | tuple compare | two equal 20,000-tuples differing last
a = tuple(range(20000))
b = tuple(range(19999)) + (0,)
while True:
    a < b

### str | expandtabs | `'\t'.expandtabs(100000)`
s = "\t" * 4
while True:
    s.expandtabs(100000)

### str | expandtabs, many tabs | 1,000 tabs, tab size 8
s = "a\t" * 1000
while True:
    s.expandtabs()

### str | replace | 10,000 one-char matches by two chars
s = "a" * 10000
while True:
    s.replace("a", "bc")

### str | split / join | 10,000 single chars
s = "a," * 10000
while True:
    ",".join(s.split(","))

### str | translate | 10,000 chars with a dict table
s = "abc" * 3000
t = {97: "xyz", 98: None}
while True:
    s.translate(t)

### str | find worst case | `'a'*10000` for `'a'*100 + 'b'`
s = "a" * 10000
n = "a" * 100 + "b"
while True:
    s.find(n)

### str | `in` substring worst case | `'ab'*5000` for `'ab'*50 + 'c'`
s = "ab" * 5000
n = "ab" * 50 + "c"
while True:
    n in s

### str | case / predicates | upper, isalnum of 10,000 non-ASCII chars
s = "é" * 10000
while True:
    s.upper()
    s.isalnum()

### str | == / < | two 20,000-char strings equal but the last char
a = "x" * 20000
b = "x" * 19999 + "y"
while True:
    a == b
    a < b

### str | format width | `format(1, '>100000')`, f-string `{x:^50000}`
x = 1
while True:
    format(x, ">100000")
    f"{x:^50000}"

### str | % formatting | `'%s' * 1000 % args`
fmt = "%s" * 1000
args = tuple(range(1000))
while True:
    fmt % args

### str | str.format | 500 fields
fmt = "{}" * 500
args = list(range(500))
while True:
    fmt.format(*args)

### str | center / zfill | width 100,000
while True:
    "x".center(100000)
    "1".zfill(100000)

### str | encode / decode | 10,000 non-ASCII chars
s = "é" * 10000
b = s.encode()
while True:
    s.encode()
    b.decode()

### str | splitlines / strip | 10,000 short lines
s = "a\n" * 10000
w = " " * 10000 + "x" + " " * 10000
while True:
    s.splitlines()
    w.strip()

### repr | repr of nested lists | `[[[...]]]` 60 deep, 20 wide at the leaves
x = [list(range(20))]
for _ in range(60):
    x = [x]
while True:
    repr(x)

### repr | repr of a list of strs | 2,000 strs needing escapes
l = ["a'\n\x00é" * 3] * 2000
while True:
    repr(l)

### repr | str() of a dict | 2,000 int keys
d = {i: i for i in range(2000)}
while True:
    str(d)

### nested | == of nested lists | 60 deep
a = [1]
b = [1]
for _ in range(60):
    a = [a, a]
    a = [a]
    b = [b, b]
    b = [b]
while True:
    a == b

### nested | hash of nested tuples | 60 deep, binary
t = (1,)
for _ in range(60):
    t = (t,)
while True:
    hash(t)

### nested | copy.deepcopy | nested list of 2,000 items
import copy
x = [[i, [i]] for i in range(500)]
while True:
    copy.deepcopy(x)

### nested | json.dumps / loads | 500 nested items
import json
x = [{"a": [i, "s"], "b": None} for i in range(200)]
s = json.dumps(x)
while True:
    json.dumps(x)
    json.loads(s)

### int | multiply 4096-bit | `a * b`, 2048-bit operands
a = 3**1290
b = 7**729
while True:
    a * b

### int | divmod 4096-bit | `divmod(a, b)`, 4,000 / 2,000 bits
a = 3**2500
b = 7**700
while True:
    divmod(a, b)

### int | pow with modulus | `pow(a, e, m)`, 4,000-bit operands
a = 3**2500
e = 5**1700
m = 7**1420 + 2
while True:
    pow(a, e, m)

### int | pow | `3 ** 2580`
while True:
    3 ** 2580

### int | shifts / bit ops | 4,000-bit `<<`, `>>`, `&`, `^`
a = 3**2500
while True:
    (a >> 7) << 3
    a & (a >> 1)
    a ^ 12345

### int | compare / hash | 4,000-bit ints
a = 3**2500
b = 3**2500 + 1
while True:
    a < b
    hash(a)

### int | math.gcd | two 4,000-bit Fibonacci numbers
a, b = 0, 1
for _ in range(5700):
    a, b = b, a + b
import math
while True:
    math.gcd(a, b)

### int | math.lcm | two 2,000-bit numbers
a = 3**1260
b = 7**710 + 1
import math
while True:
    math.lcm(a, b)

### int | math.isqrt | 4,000-bit
import math
a = 3**2500
while True:
    math.isqrt(a)

### int | math.comb / perm | comb(4096, 2048)-sized results
import math
while True:
    math.comb(2000, 1000)
    math.perm(400, 300)

### int | math.factorial | factorial(450) (near 4,096 bits)
import math
while True:
    math.factorial(450)

### int | int -> str | 4,000-bit int
a = 3**2500
while True:
    str(a)

### int | str -> int | 1,200 decimal digits
s = "7" * 1200
while True:
    int(s)

### int | hex / to_bytes / from_bytes | 4,000-bit
a = 3**2500
b = a.to_bytes(500, "big")
while True:
    hex(a)
    a.to_bytes(500, "big")
    int.from_bytes(b, "big")

### int | int(str, base) | 1,000 digits in base 7
s = "6" * 1000
while True:
    int(s, 7)

### int | format with grouping | `format(a, ',')` 4,000-bit
a = 3**2500
while True:
    format(a, ",")

### float | repr / format | `'%.300f' % 1e300`
x = 1e300
while True:
    "%.300f" % x
    repr(x)

### float | float(str) / float(int) | 300-digit literal, 1,000-bit int
s = "1" * 300
a = 3**640
while True:
    float(s)
    float(a)

### hashing | hash() of a long str | fresh 10,000-char strs
s = "x" * 10000
while True:
    hash(s + "y")

### hashing | hashlib.sha256 | 10,000 bytes
import hashlib
b = b"x" * 10000
while True:
    hashlib.sha256(b).digest()

### hashing | hashlib.keccak256 / sha3 | 10,000 bytes
import hashlib
b = b"x" * 10000
while True:
    hashlib.sha3_256(b).digest()

### bytes | hex / fromhex / replace | 10,000 bytes
b = b"ab" * 5000
h = b.hex()
while True:
    b.hex()
    bytes.fromhex(h)
    b.replace(b"a", b"cd")

### bytes | bytearray insert(0) / pop(0) | 20,000 bytes
b = bytearray(20000)
while True:
    b.insert(0, 1)
    b.pop(0)

### re | catastrophic backtracking | `(a*)*b` on `'a' * 18`
import re
p = re.compile("(a*)*b")
s = "a" * 18
while True:
    p.match(s)

### re | sub / findall | 5,000 matches
import re
s = "ab " * 5000
while True:
    re.sub("a", "xy", s)
    re.findall("b", s)

### stdlib | deque / heapq / bisect | 5,000 items
import collections, heapq, bisect
d = collections.deque(range(5000))
h = list(range(5000))
l = list(range(5000))
while True:
    d.appendleft(d.pop())
    heapq.heappush(h, 2500)
    heapq.heappop(h)
    bisect.insort(l, 2500)
    l.pop(0)

### stdlib | itertools / Counter | permutations of 6, Counter of 1,000
import itertools, collections
l = [i % 50 for i in range(1000)]
while True:
    for p in itertools.permutations(range(6)):
        pass
    collections.Counter(l)

### stdlib | struct | pack / unpack 100 fields
import struct
fmt = "<" + "q" * 100
vals = list(range(100))
while True:
    struct.unpack(fmt, struct.pack(fmt, *vals))

### stdlib | decimal / fractions | arithmetic
from decimal import Decimal
from fractions import Fraction
a = Decimal("1.2345678901234567890")
f = Fraction(355, 113)
while True:
    a * a + a
    f * f + f
