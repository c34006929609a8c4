import json
for s in ['"\\ud834"', '"a\\udd1e"', '"\\ud834\\udd1e"', '["x", "\\ud800x"]']:
    try: print(repr(json.loads(s)))
    except ValueError as e: print(type(e).__name__, e)
for i in [0xd7ff, 0xd800, 0xdfff, 0xe000, 0x110000, -1]:
    try: print(repr(chr(i)))
    except ValueError as e: print("ValueError", e)
