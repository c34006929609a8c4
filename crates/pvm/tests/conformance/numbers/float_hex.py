for x in [1.5, 0.1, 5e-324, 2.2250738585072014e-308, 1e308, -0.0, 0.0, -2.5, 1.7976931348623157e308, 1e-310, float('inf'), float('nan')]: print(x.hex(), x.hex() == float.hex(x))
for s in ['0x1.8p1',' 0X1P-1074 ','0x.8p0','0x1.fffffffffffff8p1023','-inf','nAn','infinity','0x1p-1075','0x1.0000000000001p-1075','0x3p-1076','1','1.','.8','0x1.p0','0x1p+3','0x1e', '-0x0p0', '0x1.00000000000008p0', '0x1.00000000000018p0', '0x1.000000000000081p0', '0x0.0000000000001p-1022', '0x1.ffffffffffffffp-1023']:
  try: print(repr(s), float.fromhex(s))
  except Exception as e: print(repr(s), type(e).__name__, e)
for s in ['', '0x', 'x1', '0x1p', '0x1.8p1 x', '0x1p1024', '0x1.fffffffffffffp1023', '0x1.fffffffffffff7p1023','- 1', '0x1_0', '0x1p99999999999999999999', '0x1p-99999999999999999999','0x0p99999999999999999999', '0x1..0', '.', '0x.p1', 3]:
  try: print(repr(s), float.fromhex(s))
  except Exception as e: print(repr(s), type(e).__name__, e)
class F(float): pass
print(type(F.fromhex('0x1p0')), F.fromhex('0x1p0'))
for v in [float('inf'), float('-inf'), float('nan'), 0.0, -0.0, 0.1, 5e-324, 1e300, -3.75, 2.0**60]:
  try: print(v.as_integer_ratio())
  except Exception as e: print(type(e).__name__, e)
# pseudo-random mantissas and exponents: correct rounding everywhere, incl. subnormals
x = 12345
out = []
for i in range(400):
    x = (x * 6364136223846793005 + 1442695040888963407) % 2**64
    digits = "%016x" % x
    e = (x >> 7) % 2200 - 1100
    s = "0x%s.%sp%d" % (digits[:1], digits[1:], e)
    try:
        f = float.fromhex(s)
        out.append(f.hex())
        assert float.fromhex(f.hex()) == f
    except OverflowError:
        out.append("overflow")
print(" ".join(out))
print(float.fromhex("0x1" + "0" * 5000 + "p-20000"), float.fromhex("0x1.00000000000008" + "0" * 3000 + "1p0"), float.fromhex("0x1.00000000000008" + "0" * 3000 + "p0"), float.fromhex("0x1.00000000000018" + "0" * 30 + "p0"))
print(float.fromhex("0x" + "0" * 100 + "1.8p0"), float.fromhex("0x0." + "0" * 100 + "1p400"), float.fromhex("0x" + "f" * 300 + "p-1200"), float.fromhex("0x." + "f" * 300 + "p0"))
print(float.fromhex("0x0.0000000000000" + "8" + "0" * 50 + "1p-1022"), float.fromhex("0x0.0000000000000" + "8p-1022"), float.fromhex("0x0.0000000000001" + "8p-1022"))
