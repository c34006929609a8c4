"""An uncaught exception group prints CPython's tree of sub-exceptions (tracebacks, chains, notes, nesting)."""
def f():
    raise ValueError(1)
def g():
    try:
        f()
    except ValueError as e:
        raise KeyError("k") from e
excs = []
for h in (f, g):
    try:
        h()
    except Exception as e:
        excs.append(e)
inner = ExceptionGroup("inner", [TypeError(2), IndexError(3)])
inner.add_note("inner note")
raise ExceptionGroup("outer", excs + [inner, RuntimeError("r")])
