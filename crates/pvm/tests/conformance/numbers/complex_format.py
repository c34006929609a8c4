"""format()/f-strings of complex: empty type, e/E/f/F/g/G/n, precision, sign, width, fill, align, grouping."""

vals = [1 + 2j, -1.5 - 0.25j, 1.5j, -1.5j, complex(-0.0, 1), 1234567.5 + 2j, 1e20 + 1j, complex(float("nan"), float("inf")), 0j]
specs = ["", ".2f", "10", "<15", "^15", ">15", "+", "-", " ", ".3", "g", "e", "E", "F", ".0f", ".1e", "#.0f", "*^20.3g",
         ",.1f", "_.2f", ",", "n", ".5n", "20", "+.2e", " .1f", "#g", ".10g", "G"]
for v in vals:
    print(repr(v), [format(v, s) for s in specs])
print(f"{3-4j:e}", f"{3-4j:E}", f"{1234567.5+2j:,.1f}", f"{1j:*>10}", f"{-1j: }", f"{1+1j: }", f"{1e20+1j}", f"{1e20+1j:g}")
for spec in ["010", "=10", "d", "%", "x", "0<10", "s", ".2%", "c", "b"]:
    try:
        print(spec, format(1 + 2j, spec))
    except ValueError as e:
        print(spec, "ValueError", e)
print("{:.3f}|{:>12}|{!r:>10}".format(1j, 1 - 1j, 2j), "%s|%r" % (1 + 1j, -1j))
