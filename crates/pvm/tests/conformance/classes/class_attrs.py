class Config:
    defaults = {"a": 1}
    count = 0
    def __init__(self, **kw):
        self.values = dict(self.defaults, **kw)
        type(self).count += 1
class Sub(Config):
    defaults = {"a": 2, "b": 3}
c1 = Config(); c2 = Sub(x=1); c3 = Sub()
print(c1.values, c2.values, Config.count, Sub.count, c1.count)
c1.count = 100
print(c1.count, Config.count, "count" in c1.__dict__, sorted(vars(c2)))
print(Sub.__name__, Sub.__bases__[0].__name__, type(c2).__name__, type(Sub).__name__, isinstance(Sub, type))
print(getattr(Sub, "defaults"), Sub.__dict__["defaults"] is Sub.defaults, hasattr(Config, "b"))
setattr(Config, "extra", 7); print(c3.extra); delattr(Config, "extra"); print(hasattr(c3, "extra"))
