import json

cases = ["", " ", "[1,]", '{"a":1,}', '{"a" 1}', "{1:2}", "[1 2]", '"abc', '"a\\x"', '"\\u12"',
         '"a\nb"', "01", "1.", "-", "nul", "[1] x", "\ufeff[]", '{"a":}', '{"a":1 "b":2}', "[",
         "{", '{"a"', '"\\', "[1,\n2,\n]", "tru", "[nan]", "+1", ".5", "1e", "[-]", '"\\ug000"',
         '"\\ud834\\uzzzz"', "[1,,2]", '{"a":1}}', "\n\n  x", '{"a"\n:\n}', "'single'", "[True]"]
for s in cases:
    try:
        print(repr(s), "->", repr(json.loads(s)))
    except json.JSONDecodeError as e:
        print(repr(s), type(e).__name__, e, "|", e.msg, e.pos, e.lineno, e.colno)
e = json.JSONDecodeError("m", "ab\ncd", 4)
print(e.msg, e.pos, e.lineno, e.colno, repr(e.doc), e.args, isinstance(e, ValueError))
for bad in [3, None, [1]]:
    try:
        json.loads(bad)
    except TypeError as err:
        print("TypeError", err)
try:
    json.loads("[" * 100000)
except RecursionError as err:
    print("RecursionError", err)
try:
    json.loads('{"a":' * 100000)
except RecursionError as err:
    print("RecursionError", err)
deep = []
for _ in range(100000):
    deep = [deep]
try:
    json.dumps(deep)
except RecursionError as err:
    print("RecursionError", err)
print(len(json.dumps(json.loads("[" * 50 + "]" * 50))))
json.loads('{"unterminated": [1, 2')
