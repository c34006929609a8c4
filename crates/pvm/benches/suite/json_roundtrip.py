"""JSON: serialising nested documents with dumps (sorted keys, indentation, separators), parsing
them back with loads, and walking the result."""
import json


def make_doc(i):
    return {
        "id": i,
        "name": f"item-{i}",
        "price": (i * 37 % 1000) / 100,
        "tags": ["t%d" % (i % 5), "t%d" % (i % 7), "unicode-é-%d" % (i % 3)],
        "active": i % 2 == 0,
        "owner": None if i % 11 == 0 else {"id": i % 97, "roles": ["r", "w"][: i % 3]},
        "history": [{"at": i + k, "delta": k - 2} for k in range(4)],
    }


def walk(obj):
    if isinstance(obj, dict):
        return sum(walk(v) for v in obj.values()) + len(obj)
    if isinstance(obj, list):
        return sum(walk(v) for v in obj) + 1
    if isinstance(obj, (int, float)) and not isinstance(obj, bool):
        return int(obj) % 7
    return 1


# Repeated so that CPython runs for at least 0.5 s (issue 18's benchmark rule).
for _round in range(2):
    docs = [make_doc(i) for i in range(6000)]
    compact = json.dumps(docs, separators=(",", ":"))
    pretty = json.dumps(docs[:1500], indent=2, sort_keys=True)
    back = json.loads(compact)
    again = json.loads(pretty)
    lines = [json.dumps(d, sort_keys=True) for d in docs[:3000]]
    parsed = [json.loads(s) for s in lines]
    print(len(compact), len(pretty), walk(back), walk(again), back == docs, len(parsed))
