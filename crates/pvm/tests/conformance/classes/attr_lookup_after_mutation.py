# Attribute lookups must see every change to a class or to any of its bases, however often the
# same name was looked up before (the PVM caches class lookups; this pins the invalidation).
class Base:
    kind = "base"

    def greet(self):
        return "hello from Base"


class Mid(Base):
    pass


class Leaf(Mid):
    def __init__(self):
        self.n = 0


obj = Leaf()
for _ in range(3):
    print(obj.greet(), obj.kind, Leaf.kind)

# Replace a method on the root: subclasses see it at once.
Base.greet = lambda self: "patched Base"
print(obj.greet())

# Shadow it in the middle, then remove the shadow.
Mid.greet = lambda self: "Mid override"
print(obj.greet())
del Mid.greet
print(obj.greet())

# Class attribute changes, added and deleted names.
Base.kind = "changed"
print(obj.kind, Leaf.kind, Mid.kind)
print(hasattr(obj, "extra"))
Mid.extra = 42
print(hasattr(obj, "extra"), obj.extra)
del Mid.extra
print(hasattr(obj, "extra"))
try:
    obj.extra
except AttributeError as e:
    print(type(e).__name__, e)

# An instance attribute shadows a non-data class attribute; a property (data descriptor) wins.
obj.kind = "instance"
print(obj.kind)
Leaf.kind = property(lambda self: "property")
print(obj.kind)
del Leaf.kind
print(obj.kind)

# setattr/delattr builtins on classes invalidate too.
setattr(Base, "greet", lambda self: "via setattr")
print(obj.greet())
delattr(Base, "greet")
try:
    obj.greet()
except AttributeError as e:
    print(type(e).__name__, e)

# Many classes and names: the cache of one class never answers for another.
classes = []
for i in range(40):
    classes.append(type("C%d" % i, (Base,), {"v%d" % i: i, "v": i}))
print(sum(c.v for c in classes), [getattr(c(), "v%d" % i) for i, c in enumerate(classes)][:5])
for i, c in enumerate(classes):
    c.v = -i
print(sum(c().v for c in classes))
