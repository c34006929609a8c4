name, n, f = "Ada", 42, 3.14159
print(f"{name} has {n} items costing {f:.2f}", f"{name!r:>10}", f"{n:#06x}", f"{n * 2 = }" if False else n * 2)
print(f"{'x' * 3}", f"{[i for i in range(3)]}", f"{ {'k': 1}['k'] }", f"{n:{'^'}{9}}", f"{-n:+}", f"{n:e}")
w = 8; p = 3
print(f"{f:{w}.{p}f}|", f"{name:.{2}}", f"{True}", f"{None}", f"{1e100}", f"{0.000001}", f"{1/3:.20f}")
print(f"{'multi' + 'part'!s:*<12}", f"{3:b}{4:o}", f"{n!s:>5}", f"{12345678:,}", f"{12345.6789:_.2f}")
