# int(x, base): valid bases, prefixes with base 0, bytes with a base, and every invalid base
# (found by the fuzzer: base 1 used to reach the digit parser and abort the VM).
print(int("1011", 2), int("ff", 16), int("Zz", 36), int("0x1f", 0), int("0o17", 0), int("0b101", 0))
print(int("  -42  ", 0), int("1_000", 10), int(b"ff", 16), int(b"777", 8), int(b"-12", 3))
print(int("10", base=0), int("z", base=36))
for base in (1, 37, -1, -2, 100, 2**40):
    try:
        print(int("1011", base))
    except ValueError as e:
        print(base, "ValueError", e)
for s, base in (("12", 2), ("0x1f", 10), ("0x1f", 16), ("08", 0), ("", 10), ("_1", 10)):
    try:
        print(repr(s), base, int(s, base))
    except ValueError as e:
        print(repr(s), base, "ValueError", e)
try:
    int("10", "2")
except TypeError as e:
    print("TypeError", e)
import functools
to_int = functools.partial(int, base=1)
try:
    to_int("1011")
except ValueError as e:
    print("partial", e)
