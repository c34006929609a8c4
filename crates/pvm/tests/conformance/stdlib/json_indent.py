import json

data = {"name": "x", "list": [1, [2, 3], {}], "obj": {"k": None, "e": []}, "n": 1.5}
print(json.dumps(data, indent=2))
print(json.dumps(data, indent=0))
print(json.dumps(data, indent="\t", sort_keys=True))
print(json.dumps([1, 2], indent=4, separators=(",", " -> ")))
print(json.dumps({"a": [1]}, indent=-1))
print(json.dumps([], indent=2), json.dumps({}, indent=2), json.dumps("s", indent=2))
print(json.dumps({"a": 1, "b": 2}, indent=1, separators=(", ", ": ")))
print(repr(json.dumps([[1, 2], [3]], indent=" ")))
