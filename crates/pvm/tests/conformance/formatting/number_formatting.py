"""Number formatting grid: types x flags x widths for ints and floats, compared to CPython."""
ints = [0, 7, -7, 255, -1000000, 2**40]
for spec in ["", "d", "+d", " d", "08d", "<6d", ">6d", "^7d", "=+8d", ",d", "_d", "x", "#x", "X", "#X", "o", "#o", "b", "#b", "_b", "n", "e", "f", "%"]:
    print(f"{spec:>6}:", " | ".join(format(i, spec) for i in ints))
floats = [0.0, -0.0, 1.5, -2.25, 1234.5678, 1e-5, 1e16, 123456789.0, 0.1]
for spec in ["", "f", ".1f", ".0f", "#.0f", "e", ".2e", "E", "g", ".3g", "#g", "G", "%", ".1%", "+.2f", " .2f", "010.2f", ",.2f", "_.2f", ">12.3e", "<10", "^12.1f", "n"]:
    print(f"{spec:>7}:", " | ".join(format(f, spec) for f in floats))
