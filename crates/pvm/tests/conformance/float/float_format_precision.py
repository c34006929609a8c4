"""Float formatting with large precisions: every digit of the exact binary value, as CPython (the
PVM capped precisions at 400 digits and panicked past 65535 for g)."""
vals = [1e300, 1.5, 0.1, 1e-300, 5e-324, 123456.789, 0.0, 2.5]
for v in vals:
    for spec in [".1200f", ".70000f", ".1100e", ".70000e", ".70000g", "#.1200g", ".2000%", ".1100g", "#.70000g"]:
        s = format(v, spec)
        print(spec, len(s), s[:30], s[-30:])
print(format(1e300, ".100000f")[:5], len(format(0.1, ".100000f")))
