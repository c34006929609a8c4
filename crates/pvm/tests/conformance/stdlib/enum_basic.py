import enum

class Color(enum.Enum):
    RED = 1
    GREEN = 2
    BLUE = 3
    CRIMSON = 1

print(repr(Color.RED), str(Color.RED), format(Color.RED), f"{Color.RED}", f"{Color.RED:>12}|")
print(Color(1), Color["GREEN"], list(Color), len(Color), Color.CRIMSON is Color.RED)
print(Color.__members__)
print(repr(Color), Color.RED.name, Color.RED.value, Color.RED._name_, Color.RED._value_)
print(Color.RED in Color, Color.CRIMSON.name, Color._member_names_, list(reversed(Color)))
print(hash(Color.RED) == hash("RED"), Color.RED == 1, Color.RED == Color.RED, Color.RED != Color.BLUE)
print(type(Color.RED).__name__, isinstance(Color.RED, Color), isinstance(Color.RED, enum.Enum))
print({Color.RED: "r"}[Color.CRIMSON], sorted(Color, key=lambda c: c.value)[-1])
for f in [lambda: Color(7), lambda: Color["X"], lambda: setattr(Color, "RED", 5),
          lambda: Color.RED < Color.GREEN, lambda: delattr(Color, "RED"), lambda: Color("RED")]:
    try:
        f()
    except Exception as e:
        print(type(e).__name__, e)
print(Color.RED.GREEN, Color(Color.BLUE))
try:
    class More(Color):
        PINK = 4
except TypeError as e:
    print("TypeError", e)
try:
    @enum.unique
    class U(enum.Enum):
        a = 1
        b = 1
        c = 2
        d = 2
except ValueError as e:
    print("ValueError", e)
@enum.unique
class OK(enum.Enum):
    a = 1
    b = 2
print(list(OK))
match Color.GREEN:
    case Color.RED:
        print("red")
    case Color.GREEN:
        print("green")
