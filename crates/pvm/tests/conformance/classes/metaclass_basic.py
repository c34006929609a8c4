class Meta(type):
    def __new__(mcls, name, bases, ns):
        ns["tag"] = name.upper()
        return super().__new__(mcls, name, bases, ns)
    def __call__(cls, *a, **k):
        inst = super().__call__(*a, **k)
        inst.created_by = "Meta"
        return inst
class Thing(metaclass=Meta):
    def __init__(self, v): self.v = v
t = Thing(3)
print(Thing.tag, t.v, t.created_by, type(Thing).__name__, isinstance(Thing, Meta))
class Child(Thing): pass
print(Child.tag, Child(1).created_by)
