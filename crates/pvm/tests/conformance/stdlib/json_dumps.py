import json

print(json.dumps({"a": 1, "b": [1, 2.5, None, True, False], "c": "x"}))
print(json.dumps([1, "two", 3.0, -0.0, 1e100, 1.5e-7, 2 ** 70, 0.1 + 0.2]))
print(json.dumps("héllo \"q\" \\ \n\t\x01 €𝄞"), json.dumps("héllo €𝄞", ensure_ascii=False))
print(json.dumps("\x7f\x1f\u2028"), json.dumps(None), json.dumps(True), json.dumps(12), json.dumps("s"))
print(json.dumps({1: "int", 2.5: "float", True: "t", False: "f", None: "n"}))
print(json.dumps({"b": 1, "a": {"d": 2, "c": 3}}, sort_keys=True))
print(json.dumps([1, [2, 3]], separators=(",", ":")), json.dumps({"a": 1, "b": 2}, separators=(";", "=")))
print(json.dumps((1, 2)), json.dumps([]), json.dumps({}), json.dumps([[]]), json.dumps({"a": {}}))
print(json.dumps(float("nan")), json.dumps(float("inf")), json.dumps([float("-inf")]))
for bad in [lambda: json.dumps(float("nan"), allow_nan=False), lambda: json.dumps({(1, 2): 3}),
            lambda: json.dumps(object), lambda: json.dumps({1, 2}), lambda: json.dumps(b"x"),
            lambda: json.dumps({1: 2, "a": 3}, sort_keys=True)]:
    try:
        bad()
    except (TypeError, ValueError) as e:
        print(type(e).__name__, e)
print(json.dumps({(1, 2): 3, "ok": 1}, skipkeys=True))
l = []
l.append(l)
try:
    json.dumps(l)
except ValueError as e:
    print("ValueError", e)
d = {}
d["self"] = d
try:
    json.dumps(d)
except ValueError as e:
    print("ValueError", e)
shared = [1]
print(json.dumps([shared, shared]))
class Sub(float):
    def __repr__(self):
        return "SUB"
class IntSub(int):
    def __repr__(self):
        return "INTSUB"
print(json.dumps([Sub(1.5), IntSub(3)]))
