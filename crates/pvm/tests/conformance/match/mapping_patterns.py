"""match: mapping patterns, **rest, extra keys allowed, value patterns as keys, nesting."""

def handle(msg):
    match msg:
        case {"type": "ping"}:
            return "pong"
        case {"type": "add", "a": int(a), "b": int(b)}:
            return a + b
        case {"type": "echo", "text": str() as t, **rest}:
            return f"echo {t} extra={sorted(rest)}"
        case {"type": t}:
            return f"unknown type {t}"
        case {}:
            return "empty-or-untyped mapping"
    return "not a mapping"

tests = [
    {"type": "ping", "ignored": 1},
    {"type": "add", "a": 2, "b": 40},
    {"type": "add", "a": 2, "b": "x"},
    {"type": "echo", "text": "hi", "z": 1, "y": 2},
    {"other": 1},
    {},
    [("type", "ping")],
    "type",
]
for t in tests:
    print(handle(t))

KEY = "k"
class Keys:
    A = 1

match {1: "one", "k": "kay"}:
    case {Keys.A: v1, "k": v2}:
        print("value keys", v1, v2)

match {"user": {"name": "ann", "roles": ["admin", "dev"]}}:
    case {"user": {"name": name, "roles": [*_, "dev"]}}:
        print("nested", name)

# **rest collects the remaining items in order
match {"a": 1, "b": 2, "c": 3}:
    case {"b": b, **rest}:
        print(b, rest)

# a dict subclass works; missing keys never call __missing__? (get is used, defaultdict is fine)
class D(dict):
    pass
match D(x=1):
    case {"x": x}:
        print("subclass", x)

# duplicate literal keys are a SyntaxError at compile time, so only runtime key checks here
match {True: "t"}:
    case {1: v}:
        print("1 finds True key:", v)
