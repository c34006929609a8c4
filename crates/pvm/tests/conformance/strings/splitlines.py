for s in ["a\nb $", "x\r\ny\rz\n", "", "\n", "a\x0bb\x0cc\x1cd\x1de\x1ef\x85g\u2028h\u2029i", "no newline"]:
    print(s.splitlines(), s.splitlines(True), s.splitlines(keepends=True), s.splitlines(keepends=False))
print(b"a\nb\r\nc\rd".splitlines(keepends=True), b"a\x0bb".splitlines())
print(bytearray(b"a\nb\x0bc").splitlines(True), type(bytearray(b"a\nb").splitlines()[0]))
