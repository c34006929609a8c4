print(0x1F, 0o17, 0b1011, 1_000_000, 1e3, 1.5E-2, .5, 5., 0xFF_FF, 1j.imag if False else "no-complex")
print("a" "b" 'c', """tri
ple""", r"raw\n", b"bytes", "\u00e9\x41\N{BULLET}" if False else "\u00e9\x41", "\t|", len("\n"))
print([1, 2,], (1,), {}, {1: 2}, set(), {1, 2}, ..., Ellipsis is ..., None, True, NotImplemented)
print(f"{1+1}", f"{'nested'!r}", f"{{literal}}", f"{3.0:.2f}", F"{'A'.lower()}", rf"\d{2}")
