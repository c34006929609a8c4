# json's scanner and encoder run natively: options, hooks, errors with positions (ASCII and
# non-ASCII documents), number edge cases, nesting bounds, subclasses of the JSON types.
# (Lone surrogate escapes are a deliberate difference, LIMITATIONS 21: json_loads.py.)
import enum
import json


def t(label, f):
    try:
        print(label, repr(f()))
    except Exception as e:
        print(label, type(e).__name__, e)


class Color(enum.IntEnum):
    RED = 1


class MyStr(str):
    pass


class MyFloat(float):
    pass


class MyList(list):
    pass


class Point:
    def __init__(self, x, y):
        self.x, self.y = x, y


t("basic", lambda: json.dumps({"a": [1, 2.5, None, True, False, "x"], "b": {}}))
t("tuple", lambda: json.dumps((1, (2, [3]))))
t("keys", lambda: json.dumps({1: "i", 2.5: "f", True: "t", None: "n", "s": 1}))
t("float keys", lambda: json.dumps({float("nan"): 1, float("inf"): 2, -0.0: 3}))
t("bad key", lambda: json.dumps({(1, 2): 3}))
t("skipkeys", lambda: json.dumps({(1,): 0, "a": 1, (2,): 2, "b": 3}, skipkeys=True))
t("skipkeys indent", lambda: json.dumps({(1,): 0, "a": 1}, skipkeys=True, indent=2))
t("skipkeys all", lambda: json.dumps({(1,): 0}, skipkeys=True, indent=2))
t("indent int", lambda: json.dumps({"a": [1, {"b": []}], "c": {}}, indent=3))
t("indent str", lambda: json.dumps([1, [2, 3]], indent="\t"))
t("indent 0", lambda: json.dumps([1, [2]], indent=0))
t("separators", lambda: json.dumps({"a": [1, 2]}, separators=(";", "=")))
t("sort_keys", lambda: json.dumps({"b": 1, "a": {"d": 1, "c": 2}}, sort_keys=True))
t("sort mixed", lambda: json.dumps({"b": 1, 2: 3}, sort_keys=True))
t("nan", lambda: json.dumps([float("nan"), float("inf"), -float("inf")]))
t("nan strict", lambda: json.dumps([1.0, float("nan")], allow_nan=False))
t("floats", lambda: json.dumps([0.1, 1e16, 1e-7, -0.0, 1.5e300, 123456789.125, 2.0 ** 70]))
t("ints", lambda: json.dumps([2 ** 64, -(2 ** 70), 0, -1, Color.RED, True]))
t("subclasses", lambda: json.dumps([MyStr("s"), MyFloat(1.5), MyList([1, 2]), Color.RED]))
t("ascii", lambda: json.dumps("é\u2028😀\x00\x1f\x7f\"\\/\b\f\n\r\t"))
t("unicode", lambda: json.dumps("é\u2028😀\x00\x1f\x7f\"\\/", ensure_ascii=False))
t("default", lambda: json.dumps({"p": Point(1, 2)}, default=lambda o: [o.x, o.y]))
t("default nested", lambda: json.dumps([Point(Point(1, 2), 3)], default=lambda o: {"x": o.x, "y": o.y}))
t("no default", lambda: json.dumps([1, Point(1, 2)]))
t("default set", lambda: json.dumps({1, 2, 3}, default=sorted))
circ = [1]
circ.append(circ)
t("circular", lambda: json.dumps(circ))
d = {}
d["self"] = d
t("circular dict", lambda: json.dumps(d))
t("circular default", lambda: json.dumps(Point(0, 0), default=lambda o: o))
t("shared not circular", lambda: json.dumps([[1], [1]] * 2))
deep = []
for _ in range(1200):
    deep = [deep]
t("deep encode", lambda: json.dumps(deep))
t("deep decode", lambda: json.loads("[" * 1200 + "]" * 1200))
t("deep obj decode", lambda: len(json.loads('{"a":' * 1200 + "1" + "}" * 1200)))
t("ok depth", lambda: len(json.dumps(json.loads("[" * 400 + "]" * 400))))


class Enc(json.JSONEncoder):
    def default(self, o):
        if isinstance(o, Point):
            return {"pt": [o.x, o.y]}
        return super().default(o)


t("cls", lambda: json.dumps([Point(3, 4)], cls=Enc, indent=1))
t("encode str", lambda: json.JSONEncoder().encode("a\"b"))
t("iterencode", lambda: "".join(json.JSONEncoder(indent=1).iterencode({"a": [1]})))

for doc in ['', ' ', '[', '[1,', '[1 2]', '{"a" 1}', '{"a":1,}', '{1:2}', '{"a":1 "b":2}',
            '"abc', '"a\\x"', '"\\u12"', '"\\u12zz"', '[1]x', 'nul', 'tru', '-', '-x', '01',
            '1.', '1e', '1e+', '.5', '"\x01"', '"é\\q"', '["é", "ü", 1 2]', '[\n  1,\n  2\n  3]',
            '{"é": [1, }', '"\\ud834\\udd1e"', 'NaN', '-Infinity',
            'Infinity', '[NaN, -Infinity]', '{"a": 1, "a": 2}', '1e400', '-0', '-0.0', '0.1',
            '12345678901234567890123', '-9223372036854775808', '9223372036854775808', ' [ ] ',
            '{ "a" : [ 1 , 2 ] }', '"\\/\\b\\f\\n\\r\\t\\"\\\\"', '\ufeff[]', '[1e5, 1E-2, 2.5e+3]']:
    t("loads %r" % doc, lambda: json.loads(doc))

t("bytes", lambda: json.loads(b'{"a": "\xc3\xa9"}'))
t("bom bytes", lambda: json.loads(b'\xef\xbb\xbf[1]'))
t("bad type", lambda: json.loads(5))
t("strict", lambda: json.loads('"a\x01b\tc"', strict=False))
t("pairs hook", lambda: json.loads('{"b": 1, "a": {"c": 2}}', object_pairs_hook=lambda p: p))
t("object hook", lambda: json.loads('{"b": 1, "a": {"c": 2}}', object_hook=lambda d: sorted(d)))
t("both hooks", lambda: json.loads('{"b": 1}', object_hook=len, object_pairs_hook=list))
t("parse_float", lambda: json.loads('[1.5, 2, 1e3]', parse_float=lambda s: "f" + s))
t("parse_int", lambda: json.loads('[1.5, 2, -3]', parse_int=lambda s: "i" + s))
t("parse_constant", lambda: json.loads('[NaN, Infinity, -Infinity]', parse_constant=str))
t("hook raises", lambda: json.loads('[1]', parse_int=int.from_bytes))
t("raw_decode", lambda: json.JSONDecoder().raw_decode('xx[1, "é"] tail', 2))
t("raw_decode unicode", lambda: json.JSONDecoder().raw_decode('éé{"a": 1}é', 2))
t("raw_decode ws", lambda: json.JSONDecoder().raw_decode(' [1]'))
try:
    json.loads('{"é": 1,\n "b": tru}')
except json.JSONDecodeError as e:
    print(e.msg, e.pos, e.lineno, e.colno, type(e).__module__, isinstance(e, ValueError))
round_trip = {"k%d" % i: [i, i / 3, str(i) * 3, {"n": None}] for i in range(50)}
print(json.loads(json.dumps(round_trip)) == round_trip,
      json.loads(json.dumps(round_trip, indent=2, sort_keys=True)) == round_trip)
