"""f-strings: nested specs, = debugging with format and conversions, conversions, escaped braces,
format of None/bool/containers, width from expressions, multiline and quotes."""
x, w, p = 3.14159, 10, 3
name = "pvm"
print(f"{x:{w}.{p}f}|{x:<{w}}|{x=}|{x=:.2f}|{name=!r}|{name!s:>6}|{{literal}}|{x!r:>12}")
print(f"{None}|{True:>5}|{[1, 2]!s}|{ {'a': 1}['a'] }|{(lambda: 5)()}|{'nested' + f'{1 + 1}'}")
print(f"{1234567:,}|{1234567:_}|{0.5:%}|{255:#x}|{255:08b}|{-3:+}|{3: }|{'s':^7}|{12:=+6}")
print(f"""{"triple"}""", f'{"single"}', f"{name:{'>'}{8}}", f"{'a' 'b'}")
items = [1, 2, 3]
print(f"{len(items)} items: {', '.join(str(i) for i in items)}", f"{items[-1]:03d}", f"{x!a}", f"{'é'!a}")
d = {"k": "v"}
print(f"{d['k']}", f"{d!r}", f"{3 if True else 4}", f"{x:.{p}}", f"{x:e}", f"{1e21}", f"{1e-7}")
for spec in ["q", ".2d", "=^", ",s"]:
    try:
        print(format(5, spec))
    except ValueError as e:
        print("ValueError", e)
