"""PEP 678 notes: add_note, __notes__, notes copied to derived groups, notes printed after the message."""
e = ValueError("v")
print(hasattr(e, "__notes__"))
e.add_note("first")
e.add_note("second\nline")
print(e.__notes__)
for bad in [lambda: e.add_note(1), lambda: e.add_note()]:
    try:
        bad()
    except TypeError as x:
        print("TypeError", x)
e2 = KeyError()
e2.__notes__ = "notalist"
try:
    e2.add_note("x")
except TypeError as x:
    print("TypeError", x)
eg = ExceptionGroup("g", [ValueError(1)])
eg.add_note("group note")
print(eg.subgroup(ValueError).__notes__, eg.subgroup(ValueError).__notes__ is eg.__notes__)
raise e
