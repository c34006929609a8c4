"""Uncaught groups: more than 15 sub-exceptions, nesting deeper than 10, a group as a cause."""
e = ValueError("leaf")
for i in range(12):
    e = ExceptionGroup(f"level {i}", [e, KeyError(i)] if i % 5 == 0 else [e])
wide = ExceptionGroup("wide", [ValueError(i) for i in range(17)] + [e])
try:
    raise wide
except ExceptionGroup as g:
    g.add_note("note on group")
    raise RuntimeError("wrapper") from g
