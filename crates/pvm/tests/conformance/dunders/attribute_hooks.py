"""__getattr__, __getattribute__, __setattr__ and __delattr__ hooks, object.__setattr__, and recursion guards."""
class Record:
    def __init__(self, **fields):
        object.__setattr__(self, "_fields", dict(fields))
        object.__setattr__(self, "log", [])
    def __getattr__(self, name):
        try:
            return self._fields[name]
        except KeyError:
            raise AttributeError(f"Record has no field {name!r}") from None
    def __setattr__(self, name, value):
        self.log.append(("set", name))
        self._fields[name] = value
    def __delattr__(self, name):
        self.log.append(("del", name))
        del self._fields[name]
r = Record(a=1)
r.b = 2
print(r.a, r.b, r._fields, hasattr(r, "zzz"))
del r.a
print(r.log, hasattr(r, "a"))
try:
    r.missing
except AttributeError as e:
    print(type(e).__name__, e)
class Audited:
    def __init__(self):
        self.x = 1
    def __getattribute__(self, name):
        if name.startswith("secret"):
            raise AttributeError(f"access to {name} denied")
        return object.__getattribute__(self, name)
    def __getattr__(self, name):
        return f"fallback for {name}"
a = Audited()
print(a.x, a.other, a.secret_key)
class ReadOnly:
    __slots__ = ()
    def __setattr__(self, name, value):
        raise AttributeError(f"{type(self).__name__} is read-only")
try:
    ReadOnly().x = 1
except AttributeError as e:
    print(type(e).__name__, e)
class Defaults:
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return 0
d = Defaults()
d.count += 1
d.count += 1
print(d.count, d.other, vars(d))
