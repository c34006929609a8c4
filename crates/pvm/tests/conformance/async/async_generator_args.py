"""Argument checks of async generator methods: athrow checks its arguments when first awaited."""
async def ag():
    yield 1
g = ag()
for f in [lambda: g.__anext__(1), lambda: g.asend(), lambda: g.asend(1, 2), lambda: g.athrow(), lambda: g.athrow(1, 2, 3, 4), lambda: g.aclose(1), lambda: g.__aiter__(2)]:
    try:
        f()
    except TypeError as e:
        print(e)

for args in [(), (1, 2, 3, 4), (1,), (ValueError, 1, None), (ValueError, ValueError(2))]:
    g = ag()
    g.asend(None).send(None) if False else None
    aw = g.athrow(*args)
    try:
        aw.send(None)
    except BaseException as e:
        print(type(e).__name__, e)
