class Plugin:
    registry = {}
    def __init_subclass__(cls, name=None, **kw):
        super().__init_subclass__(**kw)
        Plugin.registry[name or cls.__name__.lower()] = cls
class Alpha(Plugin): pass
class Beta(Plugin, name="b"): pass
print(sorted(Plugin.registry), Plugin.registry["b"].__name__)
def add_repr(cls):
    cls.__repr__ = lambda self: f"<{cls.__name__} {sorted(vars(self).items())}>"
    return cls
@add_repr
class Pt:
    def __init__(self, x, y): self.x, self.y = x, y
print(Pt(1, 2), [Pt(0, 0)])
