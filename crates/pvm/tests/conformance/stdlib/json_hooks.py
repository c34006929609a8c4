import collections
import enum
import json

print(json.loads('{"b": 1, "a": 2}', object_pairs_hook=list))
print(json.loads('{"b": 1, "a": {"c": 3}}', object_pairs_hook=collections.OrderedDict))
print(json.loads('{"__complex__": true, "real": 1, "imag": 2}',
                 object_hook=lambda d: complex(d["real"], d["imag"]) if "__complex__" in d else d))
print(json.loads("[1.1, 2]", parse_float=lambda s: "F" + s, parse_int=lambda s: "I" + s))
print(json.loads("[NaN, Infinity, -Infinity]", parse_constant=lambda s: s.lower()))
print(json.loads('{"x": {}}', object_hook=lambda d: ("hooked", sorted(d))))
class Point:
    def __init__(self, x, y):
        self.x, self.y = x, y
def enc(o):
    if isinstance(o, Point):
        return {"x": o.x, "y": o.y}
    raise TypeError(f"cannot encode {type(o).__name__}")
print(json.dumps([Point(1, 2), {"p": Point(3, 4)}], default=enc))
class PointEncoder(json.JSONEncoder):
    def default(self, o):
        if isinstance(o, Point):
            return [o.x, o.y]
        return super().default(o)
print(json.dumps({"pts": [Point(0, 1)]}, cls=PointEncoder), PointEncoder().encode(Point(5, 6)))
try:
    json.dumps(Point(1, 1), cls=PointEncoder, sort_keys=True)
    json.dumps(object(), cls=PointEncoder)
except TypeError as e:
    print("TypeError", str(e).split(" at ")[0])
class Color(enum.IntEnum):
    RED = 1
print(json.dumps({"c": Color.RED, "l": [Color.RED]}), json.dumps({Color.RED: "k"}))
print(json.dumps(collections.OrderedDict([("z", 1), ("a", 2)])), json.dumps(collections.defaultdict(int, {"q": 0})))
class Upper(json.JSONDecoder):
    def __init__(self, **kw):
        super().__init__(object_hook=lambda d: {k.upper(): v for k, v in d.items()}, **kw)
print(json.loads('{"ab": {"cd": 1}}', cls=Upper))
print(list(json.JSONEncoder(indent=1).iterencode({"a": [1]}))[:0], "".join(json.JSONEncoder(sort_keys=True).iterencode({"b": 1, "a": 2})))
print(json.dumps([1], default=str), json.dumps({"d": {1, 2} and sorted({2, 1})}))
class Buf:
    def __init__(self):
        self.parts = []
    def write(self, s):
        self.parts.append(s)
    def read(self):
        return "".join(self.parts)
b = Buf()
json.dump({"k": [1, 2]}, b, indent=1)
print(repr(b.read()), json.load(b))
